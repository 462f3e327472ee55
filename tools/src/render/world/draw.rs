//! The world as the game draws it: each thing a few textured quads, in the client's order and
//! sizes (docs/demo-render.md, "Drawing the world"). Lengths are square roots of sums, not
//! `hypot` (see `length` in raster.rs).

use std::f64::consts::{FRAC_PI_2, PI, TAU};
use std::sync::Arc;

use twcodec::map::Map;
use twcodec::Error;
use twcodec_schema::netobj::common::{Emote, Weapon};

use super::super::raster::{Triangle, Vertex};
use super::super::text::{draw_text, text_size, GLYPH};
use super::super::texture::Texture;
use super::super::{Budget, Mapping, Op, QUAD_PICTURE_PIXEL, QUAD_PIXEL};
use super::data::{GameData, Part, PartKind, PartTextures, SkinTextures, Sprite};
use super::state::{Beam, FlagView, Item, PickupLook, Shot, Skin, Tee, World, EMOTICON_TICKS};
use crate::assets::Picture;

/// A quad to draw: centred at `center` (world units), `size` wide and high before turning by
/// `angle` (radians, clockwise on screen), its texture mirrored as asked, tinted by `color`.
#[derive(Debug, Clone)]
struct Quad {
    texture: Option<Arc<Texture>>,
    center: [f64; 2],
    size: [f64; 2],
    angle: f64,
    color: [f32; 4],
    flip_x: bool,
    flip_y: bool,
}

impl Quad {
    fn new(texture: Option<&Arc<Texture>>, center: [f64; 2], size: [f64; 2]) -> Quad {
        Quad {
            texture: texture.cloned(),
            center,
            size,
            angle: 0.0,
            color: [1.0; 4],
            flip_x: false,
            flip_y: false,
        }
    }

    fn angle(self, angle: f64) -> Quad {
        Quad { angle, ..self }
    }

    fn color(self, color: [f32; 4]) -> Quad {
        Quad { color, ..self }
    }

    fn flip_x(self, flip_x: bool) -> Quad {
        Quad { flip_x, ..self }
    }

    fn flip_y(self, flip_y: bool) -> Quad {
        Quad { flip_y, ..self }
    }

    /// Its corners in world units: top left, top right, bottom left, bottom right.
    fn corners(&self) -> [[f64; 2]; 4] {
        let (sin, cos) = self.angle.sin_cos();
        let (hw, hh) = (self.size[0] / 2.0, self.size[1] / 2.0);
        [(-hw, -hh), (hw, -hh), (-hw, hh), (hw, hh)].map(|(x, y)| {
            [
                self.center[0] + x * cos - y * sin,
                self.center[1] + x * sin + y * cos,
            ]
        })
    }
}

/// A quad ready to map to the picture: texture, corners (top left, top right, bottom left,
/// bottom right), their texture coordinates, and its color.
type Drawn = (Option<Arc<Texture>>, [[f64; 2]; 4], [[f32; 2]; 4], [f32; 4]);

/// The quads of a world, in drawing order.
#[derive(Debug, Default)]
struct Quads {
    list: Vec<Drawn>,
}

impl Quads {
    fn push(&mut self, quad: Quad) {
        let (u0, u1) = if quad.flip_x { (1.0, 0.0) } else { (0.0, 1.0) };
        let (v0, v1) = if quad.flip_y { (1.0, 0.0) } else { (0.0, 1.0) };
        let uv = [[u0, v0], [u1, v0], [u0, v1], [u1, v1]];
        self.list
            .push((quad.texture.clone(), quad.corners(), uv, quad.color));
    }

    /// A quad of four free corners (top left, top right, bottom left, bottom right).
    fn push_free(
        &mut self,
        texture: Option<Arc<Texture>>,
        corners: [[f64; 2]; 4],
        color: [f32; 4],
    ) {
        let uv = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
        self.list.push((texture, corners, uv, color));
    }
}

/// The most quads a world draws (a snapshot holds at most 1024 items; a hook chain at most
/// 1024 links, as the game's).
const MAX_QUADS: usize = 1 << 16;

/// The operations that draw `world` in the screen's `mapping`, counted in `budget`.
pub(super) fn world_ops(
    map: &Map,
    data: &GameData,
    world: &World,
    mapping: &Mapping,
    budget: &mut Budget<'_>,
) -> Result<Vec<Op<'static>>, Error> {
    let mut quads = Quads::default();
    // Projectiles, pickups and lasers by item id; then flags.
    let mut things: Vec<(u16, u8, usize)> = Vec::new();
    things.extend(world.shots.iter().enumerate().map(|(i, s)| (s.id, 0, i)));
    things.extend(world.items.iter().enumerate().map(|(i, p)| (p.id, 1, i)));
    things.extend(world.beams.iter().enumerate().map(|(i, b)| (b.id, 2, i)));
    things.sort_unstable();
    for (_, kind, i) in things {
        match kind {
            0 => projectile(&mut quads, data, &world.shots[i], world.tick),
            1 => pickup(&mut quads, data, &world.items[i], world.tick),
            _ => laser(&mut quads, data, &world.beams[i], world.tick),
        }
    }
    for flag in &world.flags {
        flag_quad(&mut quads, data, flag);
    }
    // Others' hooks, the local player's; then the others, the local player last.
    for local in [false, true] {
        for tee in world.tees.iter().filter(|t| t.local == local) {
            hook(&mut quads, data, world, tee);
        }
    }
    for local in [false, true] {
        for tee in world.tees.iter().filter(|t| t.local == local) {
            player(&mut quads, map, data, world, tee);
            emoticon(&mut quads, data, world, tee);
        }
    }
    quads.list.truncate(MAX_QUADS);
    // Consecutive quads of one texture make one operation.
    let bands = budget.frame.bands() as u64;
    let mut ops: Vec<Op<'static>> = Vec::new();
    for (texture, corners, uv, color) in quads.list {
        let vertex = |i: usize| {
            let (x, y) = mapping.pixel(corners[i][0], corners[i][1]);
            Vertex {
                x,
                y,
                color,
                uv: uv[i],
            }
        };
        let [c0, c1, c2, c3] = [vertex(0), vertex(1), vertex(2), vertex(3)];
        let pixel = match texture {
            Some(_) => QUAD_PICTURE_PIXEL,
            None => QUAD_PIXEL,
        };
        let mut triangles = Vec::new();
        for corners in [[c0, c1, c3], [c0, c3, c2]] {
            if let Some(triangle) = Triangle::new(mapping.clip, corners) {
                let work = triangle.work().saturating_mul(pixel);
                budget.spend(bands.saturating_add(work), || "the game world".to_string())?;
                triangles.push(triangle);
            }
        }
        if triangles.is_empty() {
            continue;
        }
        match ops.last_mut() {
            Some(Op::Triangles {
                texture: last,
                triangles: list,
            }) if same(last, &texture) => list.extend(triangles),
            _ => ops.push(Op::Triangles { texture, triangles }),
        }
    }
    Ok(ops)
}

fn same(a: &Option<Arc<Texture>>, b: &Option<Arc<Texture>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// The sizes and offsets of a weapon held, as the game's data has them: the size it is drawn
/// at, its offset along the aim and down, and its muzzle flash's offsets and duration in
/// ticks.
struct WeaponLook {
    visual_size: f64,
    offset: [f64; 2],
    muzzle_offset: [f64; 2],
    muzzle_ticks: f64,
}

fn weapon_look(weapon: Weapon) -> WeaponLook {
    let (visual_size, offset, muzzle_offset, muzzle_ticks) = match weapon {
        Weapon::HAMMER => (96.0, [4.0, -20.0], [0.0, 0.0], 0.0),
        Weapon::GUN => (64.0, [32.0, 4.0], [58.8752, 6.0], 5.0),
        Weapon::SHOTGUN => (96.0, [24.0, -2.0], [83.3128, 6.0], 5.0),
        Weapon::GRENADE => (96.0, [24.0, -2.0], [0.0, 0.0], 0.0),
        Weapon::LASER => (92.0, [24.0, -2.0], [0.0, 0.0], 0.0),
        _ => (96.0, [0.0, 0.0], [40.0, -4.0], 5.0),
    };
    WeaponLook {
        visual_size,
        offset,
        muzzle_offset,
        muzzle_ticks,
    }
}

/// A sprite of `game.png` at `center`, `size` along its longer side.
fn sprite(data: &GameData, sprite: Sprite, center: [f64; 2], size: f64) -> Quad {
    let [w, h] = sprite.scale();
    Quad::new(data.sprite(sprite), center, [size * w, size * h])
}

fn weapon_number(weapon: Weapon) -> Option<u8> {
    u8::try_from(weapon.0).ok().filter(|&w| w <= 5)
}

fn pickup(quads: &mut Quads, data: &GameData, item: &Item, tick: f64) {
    // Health and shields at 64 along their diagonal; weapons at their size held; DDNet's
    // shields that take a weapon (no picture in the game's sheet of 0.6) as shields.
    let (which, size) = match item.look {
        PickupLook::Health => (Sprite::Health, 64.0),
        PickupLook::Armor | PickupLook::ArmorOf(_) => (Sprite::Armor, 64.0),
        PickupLook::Weapon(weapon) => match weapon_number(weapon) {
            Some(w) => (Sprite::Body(w), weapon_look(weapon).visual_size),
            None => return,
        },
        PickupLook::Ninja => (Sprite::Body(5), 128.0),
    };
    let mut pos = item.pos;
    if item.look == PickupLook::Ninja {
        pos[0] -= 10.0;
    }
    // Pickups bob on a circle of 2.5 units, each at its own phase.
    let phase = pos[1] / 32.0 + pos[0] / 32.0;
    let seconds = tick / super::TICKS_PER_SECOND;
    pos[0] += (seconds * 2.0 + phase).cos() * 2.5;
    pos[1] += (seconds * 2.0 + phase).sin() * 2.5;
    let quad = sprite(data, which, pos, size);
    quads.push(match data.sprite(which) {
        Some(_) => quad,
        None => quad.color(match item.look {
            PickupLook::Health => [0.9, 0.2, 0.2, 1.0],
            PickupLook::Armor | PickupLook::ArmorOf(_) => [0.8, 0.6, 0.1, 1.0],
            _ => [0.7, 0.7, 0.7, 1.0],
        }),
    });
}

fn flag_quad(quads: &mut Quads, data: &GameData, flag: &FlagView) {
    let which = match flag.team {
        0 => Sprite::FlagRed,
        _ => Sprite::FlagBlue,
    };
    let size = 42.0;
    let center = [flag.pos[0], flag.pos[1] - size * 0.75];
    let quad = Quad::new(data.sprite(which), center, [size, size * 2.0]);
    quads.push(match data.sprite(which) {
        Some(_) => quad,
        None => quad.color(match flag.team {
            0 => [0.9, 0.1, 0.1, 1.0],
            _ => [0.1, 0.2, 0.9, 1.0],
        }),
    });
}

/// An RGB color of 0 to 255 as the quads' colors.
fn rgb(r: u8, g: u8, b: u8) -> [f32; 4] {
    [
        f32::from(r) / 255.0,
        f32::from(g) / 255.0,
        f32::from(b) / 255.0,
        1.0,
    ]
}

/// Outer and inner colors of a laser of DDNet type `kind`: DDNet's defaults.
fn laser_colors(kind: i32) -> ([f32; 4], [f32; 4]) {
    match kind {
        // A shotgun's laser.
        1 => (rgb(31, 24, 11), rgb(146, 106, 64)),
        // Doors.
        2 => (rgb(0, 34, 25), rgb(67, 195, 163)),
        // Freezing lasers.
        3 => (rgb(34, 31, 47), rgb(123, 114, 144)),
        // Draggers.
        4 => (rgb(34, 2, 2), rgb(221, 95, 95)),
        _ => (rgb(19, 19, 63), rgb(127, 127, 255)),
    }
}

/// A laser beam: a dark outer band 14 units wide and a light inner one 10 wide, both narrowing
/// to nothing over the game's bounce delay (150 ms), and a head at its end.
fn laser(quads: &mut Quads, data: &GameData, beam: &Beam, tick: f64) {
    let (dx, dy) = (beam.to[0] - beam.from[0], beam.to[1] - beam.from[1]);
    let length = (dx * dx + dy * dy).sqrt();
    let dir = match length > 0.0 {
        true => [dx / length, dy / length],
        false => [0.0, 0.0],
    };
    let door = beam.kind == 2;
    let ticks = if door { 1.0 } else { beam.age };
    let faded = (ticks * 20.0 / 150.0).clamp(0.0, 1.0);
    let left = 1.0 - faded;
    let (outer, inner) = laser_colors(beam.kind);
    let normal = [dir[1], -dir[0]];
    let band = |from: [f64; 2], to: [f64; 2], width: f64| {
        let out = [normal[0] * width, normal[1] * width];
        [
            [from[0] - out[0], from[1] - out[1]],
            [from[0] + out[0], from[1] + out[1]],
            [to[0] - out[0], to[1] - out[1]],
            [to[0] + out[0], to[1] + out[1]],
        ]
    };
    if left > 0.0 {
        quads.push_free(None, band(beam.from, beam.to, 7.0 * left), outer);
        let inner_from = match door {
            true => beam.from,
            false => [beam.from[0] + dir[0], beam.from[1] + dir[1]],
        };
        let inner_to = [beam.to[0] - dir[0], beam.to[1] - dir[1]];
        quads.push_free(None, band(inner_from, inner_to, 5.0 * left), inner);
    }
    if door {
        quads.push(Quad::new(None, beam.to, [16.0, 16.0]).color(outer));
        quads.push(Quad::new(None, beam.to, [12.0, 12.0]).color(inner));
        return;
    }
    // The head: a splat of the particles turning with the ticks.
    let head = tick.floor();
    let splat = data.splat(head.rem_euclid(3.0) as usize);
    for (size, color) in [(24.0, outer), (20.0, inner)] {
        let quad = Quad::new(splat, beam.to, [size, size]).angle(head);
        quads.push(match splat {
            Some(_) => quad.color(color),
            None => Quad::new(None, beam.to, [size / 2.0, size / 2.0]).color(color),
        });
    }
}

fn projectile(quads: &mut Quads, data: &GameData, shot: &Shot, tick: f64) {
    let Some(w) = weapon_number(shot.weapon) else {
        return;
    };
    let angle = if shot.weapon == Weapon::GRENADE {
        // Grenades spin twice a second (the game by its clock, here by the demo's), each
        // turned by its id.
        tick / super::TICKS_PER_SECOND * TAU * 2.0 + f64::from(shot.id)
    } else if (shot.dir[0] * shot.dir[0] + shot.dir[1] * shot.dir[1]).sqrt() > 1e-5 {
        shot.dir[1].atan2(shot.dir[0])
    } else {
        0.0
    };
    let which = Sprite::Projectile(w);
    let Some(texture) = data.sprite(which) else {
        if data.sprite(Sprite::HookHead).is_none() {
            quads.push(Quad::new(None, shot.pos, [8.0, 8.0]).color([1.0, 0.9, 0.3, 1.0]));
        }
        return;
    };
    quads.push(Quad::new(Some(texture), shot.pos, [32.0, 32.0]).angle(angle));
}

/// A color of a player's info (HSL packed `0xHHSSLL`, 0.7 `0xAAHHSSLL`) as the game shows
/// it: lightness lifted above `darkest` (0.5 for 0.6 skins, 61/255 for 0.7 parts), then to
/// RGB (docs/demo-render.md, "Colors").
pub(crate) fn player_color(packed: i32, darkest: f32) -> [f32; 4] {
    let h = ((packed >> 16) & 0xff) as f32 / 255.0;
    let s = ((packed >> 8) & 0xff) as f32 / 255.0;
    let l = (packed & 0xff) as f32 / 255.0;
    let l = darkest + l * (1.0 - darkest);
    let [r, g, b] = hsl_to_rgb(h, s, l);
    [r, g, b, 1.0]
}

fn hsl_to_rgb(h: f32, s: f32, l: f32) -> [f32; 3] {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let h6 = h * 6.0;
    let x = c * (1.0 - (h6 % 2.0 - 1.0).abs());
    let (r, g, b) = match h6 as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    [r + m, g + m, b + m]
}

/// A 0.7 part and its color, when custom.
type PartLook = (Option<Arc<PartTextures>>, Option<[f32; 4]>);

/// A hand's textures (outline, hand), color and size.
type HandLook = (Arc<Texture>, Arc<Texture>, [f32; 4], f64);

/// How a tee looks: a 0.6 skin with the colors of its body and feet, or 0.7 parts.
enum Look {
    Six {
        skin: Option<Arc<SkinTextures>>,
        colorable: bool,
        body: [f32; 4],
        feet: [f32; 4],
    },
    Seven {
        /// Each kind's part (in [`PartKind::ALL`] order), with its color when custom.
        parts: [PartLook; 6],
    },
}

impl Look {
    /// A hand: its textures (outline, hand), colorable or not, its color and size.
    fn hand(&self) -> Option<HandLook> {
        match self {
            Look::Six {
                skin,
                colorable,
                body,
                ..
            } => {
                let skin = skin.as_ref()?;
                let outline = skin.part(Part::HandOutline, *colorable)?.clone();
                let hand = skin.part(Part::Hand, *colorable)?.clone();
                Some((outline, hand, *body, 20.0))
            }
            Look::Seven { parts } => {
                let (part, color) = &parts[3];
                let part = part.as_ref()?;
                let custom = color.is_some();
                let outline = part.cell(1, custom)?.clone();
                let hand = part.cell(0, custom)?.clone();
                Some((outline, hand, color.unwrap_or([1.0; 4]), 30.0))
            }
        }
    }
}

/// The colors of the two teams' tees (red, blue) and of anyone else, as DDNet gives them.
const TEAM_COLORS: [[f32; 4]; 3] = [
    [1.0, 0.4196, 0.4196, 1.0],
    [0.4196, 0.6245, 1.0, 1.0],
    [0.698, 0.386, 0.917, 1.0],
];

fn look(data: &GameData, world: &World, tee: &Tee) -> Look {
    let white = [1.0; 4];
    let team = match tee.player.team {
        0 => TEAM_COLORS[0],
        1 => TEAM_COLORS[1],
        _ => TEAM_COLORS[2],
    };
    // Frozen tees and ninjas wear the ninja skin.
    if tee.frozen || tee.weapon == Weapon::NINJA {
        return Look::Six {
            skin: data.skin("x_ninja"),
            colorable: world.team_game,
            body: if world.team_game { team } else { white },
            feet: if world.team_game { team } else { white },
        };
    }
    match &tee.player.skin {
        Skin::Six { name, colors } => {
            let (colorable, body, feet) = match (world.team_game, colors) {
                (true, _) => (true, team, team),
                (false, Some((body, feet))) => {
                    (true, player_color(*body, 0.5), player_color(*feet, 0.5))
                }
                (false, None) => (false, white, white),
            };
            Look::Six {
                skin: data.skin(name),
                colorable,
                body,
                feet,
            }
        }
        Skin::Seven { parts, colors } => {
            let looks = std::array::from_fn(|i| {
                let kind = PartKind::ALL[i];
                let part = data.part(kind, &parts[i]);
                let color = if world.team_game {
                    Some(match tee.player.team {
                        0 => rgb(192, 81, 81),
                        1 => rgb(81, 120, 192),
                        _ => TEAM_COLORS[2],
                    })
                } else {
                    colors[i].map(|packed| {
                        let mut color = player_color(packed, 61.0 / 255.0);
                        if kind == PartKind::Marking {
                            color[3] = ((packed >> 24) & 0xff) as f32 / 255.0;
                        }
                        color
                    })
                };
                (part, color)
            });
            Look::Seven { parts: looks }
        }
    }
}

/// A tee's animation at an instant: where its body and feet are and how they are turned
/// (turns, not radians), and the angle of what it holds.
#[derive(Debug, Clone, Copy, Default)]
struct Pose {
    body: [f64; 3],
    back_foot: [f64; 3],
    front_foot: [f64; 3],
    attach: [f64; 3],
}

/// Keyframes `(time, x, y, turn)` of one part.
type Frames = &'static [(f64, f64, f64, f64)];

/// A part's position at `time` (0 to 1) between its keyframes.
fn at(frames: Frames, time: f64) -> [f64; 3] {
    for pair in frames.windows(2) {
        let (t0, x0, y0, a0) = pair[0];
        let (t1, x1, y1, a1) = pair[1];
        if time >= t0 && time <= t1 {
            let f = if t1 > t0 {
                (time - t0) / (t1 - t0)
            } else {
                0.0
            };
            return [x0 + (x1 - x0) * f, y0 + (y1 - y0) * f, a0 + (a1 - a0) * f];
        }
    }
    frames.first().map_or([0.0; 3], |&(_, x, y, a)| [x, y, a])
}

fn add(to: &mut [f64; 3], part: [f64; 3]) {
    for i in 0..3 {
        to[i] += part[i];
    }
}

/// The game's animations (docs/demo-render.md, "Animations"): each part's keyframes
/// at times 0, 0.2, ... 1.
const WALK_BODY: Frames = &[
    (0.0, 0.0, 0.0, 0.0),
    (0.2, 0.0, -1.0, 0.0),
    (0.4, 0.0, 0.0, 0.0),
    (0.6, 0.0, 0.0, 0.0),
    (0.8, 0.0, -1.0, 0.0),
    (1.0, 0.0, 0.0, 0.0),
];
const WALK_BACK: Frames = &[
    (0.0, 8.0, 0.0, 0.0),
    (0.2, -8.0, 0.0, 0.0),
    (0.4, -10.0, -4.0, 0.2),
    (0.6, -8.0, -8.0, 0.3),
    (0.8, 4.0, -4.0, -0.2),
    (1.0, 8.0, 0.0, 0.0),
];
const WALK_FRONT: Frames = &[
    (0.0, -10.0, -4.0, 0.2),
    (0.2, -8.0, -8.0, 0.3),
    (0.4, 4.0, -4.0, -0.2),
    (0.6, 8.0, 0.0, 0.0),
    (0.8, 8.0, 0.0, 0.0),
    (1.0, -10.0, -4.0, 0.2),
];
const RUN_LEFT_BODY: Frames = &[
    (0.0, 0.0, -1.0, 0.0),
    (0.2, 0.0, 0.0, 0.0),
    (0.4, 0.0, -1.0, 0.0),
    (0.6, 0.0, 0.0, 0.0),
    (0.8, 0.0, 0.0, 0.0),
    (1.0, 0.0, -1.0, 0.0),
];
const RUN_LEFT_BACK: Frames = &[
    (0.0, 18.0, -8.0, -0.27),
    (0.2, 6.0, 0.0, 0.0),
    (0.4, -7.0, 0.0, 0.0),
    (0.6, -13.0, -4.5, 0.05),
    (0.8, 0.0, -8.0, -0.2),
    (1.0, 18.0, -8.0, -0.27),
];
const RUN_LEFT_FRONT: Frames = &[
    (0.0, -11.0, -2.5, 0.05),
    (0.2, -14.0, -5.0, 0.1),
    (0.4, 11.0, -8.0, -0.3),
    (0.6, 18.0, -8.0, -0.27),
    (0.8, 3.0, 0.0, 0.0),
    (1.0, -11.0, -2.5, 0.05),
];
const RUN_RIGHT_BODY: Frames = &[
    (0.0, 0.0, -1.0, 0.0),
    (0.2, 0.0, 0.0, 0.0),
    (0.4, 0.0, 0.0, 0.0),
    (0.6, 0.0, -1.0, 0.0),
    (0.8, 0.0, 0.0, 0.0),
    (1.0, 0.0, -1.0, 0.0),
];
const RUN_RIGHT_BACK: Frames = &[
    (0.0, -18.0, -8.0, 0.27),
    (0.2, 0.0, -8.0, 0.2),
    (0.4, 13.0, -4.5, -0.05),
    (0.6, 7.0, 0.0, 0.0),
    (0.8, -6.0, 0.0, 0.0),
    (1.0, -18.0, -8.0, 0.27),
];
const RUN_RIGHT_FRONT: Frames = &[
    (0.0, 11.0, -2.5, -0.05),
    (0.2, -3.0, 0.0, 0.0),
    (0.4, -18.0, -8.0, 0.27),
    (0.6, -11.0, -8.0, 0.3),
    (0.8, 14.0, -5.0, -0.1),
    (1.0, 11.0, -2.5, -0.05),
];
const HAMMER_SWING: Frames = &[
    (0.0, 0.0, 0.0, -0.10),
    (0.3, 0.0, 0.0, 0.25),
    (0.4, 0.0, 0.0, 0.30),
    (0.5, 0.0, 0.0, 0.25),
    (1.0, 0.0, 0.0, -0.10),
];
const NINJA_SWING: Frames = &[
    (0.0, 0.0, 0.0, -0.25),
    (0.1, 0.0, 0.0, -0.05),
    (0.15, 0.0, 0.0, 0.35),
    (0.42, 0.0, 0.0, 0.40),
    (0.5, 0.0, 0.0, 0.35),
    (1.0, 0.0, 0.0, -0.25),
];

/// Whether the point (rounded to whole units) is in a solid tile of the game layer (1, solid,
/// or 3, unhookable), as the game's `CheckPoint`: outside the layer, its edge tile.
fn solid(map: &Map, x: f64, y: f64) -> bool {
    let Some((_, layer)) = map.game_layer() else {
        return false;
    };
    let Some(grid) = layer.grid() else {
        return false;
    };
    let (w, h) = (grid.width() as i64, grid.height() as i64);
    if w == 0 || h == 0 {
        return false;
    }
    let (x, y) = (x.round() as i64, y.round() as i64);
    let tx = x.div_euclid(32).clamp(0, w - 1) as usize;
    let ty = y.div_euclid(32).clamp(0, h - 1) as usize;
    (grid.tiles())
        .get(ty * grid.width() + tx)
        .is_some_and(|t| t.id == 1 || t.id == 3)
}

fn pose(map: &Map, tee: &Tee) -> Pose {
    let mut pose = Pose {
        body: [0.0, -4.0, 0.0],
        back_foot: [0.0, 10.0, 0.0],
        front_foot: [0.0, 10.0, 0.0],
        attach: [0.0; 3],
    };
    let in_air = !solid(map, tee.ground_pos[0], tee.ground_pos[1] + 16.0);
    let stationary = (-1..=1).contains(&tee.raw_vel_x);
    let running = tee.raw_vel_x.unsigned_abs() >= 5000;
    let other_way =
        (tee.direction == -1 && tee.vel[0] > 0.0) || (tee.direction == 1 && tee.vel[0] < 0.0);
    let phase = |period: f64| {
        let t = (tee.pos[0] % period) / period;
        if t < 0.0 {
            t + 1.0
        } else {
            t
        }
    };
    let mut animate = |body: Frames, back: Frames, front: Frames, t: f64| {
        add(&mut pose.body, at(body, t));
        add(&mut pose.back_foot, at(back, t));
        add(&mut pose.front_foot, at(front, t));
    };
    if in_air {
        animate(
            &[],
            &[(0.0, -3.0, 0.0, -0.1)],
            &[(0.0, 3.0, 0.0, -0.1)],
            0.0,
        );
    } else if stationary {
        animate(&[], &[(0.0, -7.0, 0.0, 0.0)], &[(0.0, 7.0, 0.0, 0.0)], 0.0);
    } else if !other_way {
        if running && tee.raw_vel_x < 0 {
            animate(RUN_LEFT_BODY, RUN_LEFT_BACK, RUN_LEFT_FRONT, phase(200.0));
        } else if running {
            animate(
                RUN_RIGHT_BODY,
                RUN_RIGHT_BACK,
                RUN_RIGHT_FRONT,
                phase(200.0),
            );
        } else {
            animate(WALK_BODY, WALK_BACK, WALK_FRONT, phase(100.0));
        }
    }
    let seconds = tee.since_attack / super::TICKS_PER_SECOND;
    if tee.weapon == Weapon::HAMMER {
        add(
            &mut pose.attach,
            at(HAMMER_SWING, (seconds * 5.0).clamp(0.0, 1.0)),
        );
    }
    if tee.weapon == Weapon::NINJA {
        add(
            &mut pose.attach,
            at(NINJA_SWING, (seconds * 2.0).clamp(0.0, 1.0)),
        );
    }
    pose
}

/// A hand at `center` (a weapon's centre, or the tee's), along `dir`, turned by
/// `angle_offset` and moved by `post` along and across `dir` (docs/demo-render.md,
/// "Weapons and hands").
fn hand(
    quads: &mut Quads,
    look: &Look,
    center: [f64; 2],
    dir: [f64; 2],
    angle_offset: f64,
    post: [f64; 2],
) {
    let Some((outline, fill, color, size)) = look.hand() else {
        return;
    };
    let mut angle = dir[1].atan2(dir[0]);
    if dir[0] < 0.0 {
        angle -= angle_offset;
    } else {
        angle += angle_offset;
    }
    let across = match dir[0] < 0.0 {
        true => [dir[1], -dir[0]],
        false => [-dir[1], dir[0]],
    };
    let pos = [
        center[0] + dir[0] + dir[0] * post[0] + across[0] * post[1],
        center[1] + dir[1] + dir[1] * post[0] + across[1] * post[1],
    ];
    for texture in [outline, fill] {
        let quad = Quad::new(Some(&texture), pos, [size, size]).angle(angle);
        quads.push(quad.color(color));
    }
}

/// A hook: its head at the end, chain links every 24 units back to the tee, and the tee's hand
/// on it.
fn hook(quads: &mut Quads, data: &GameData, world: &World, tee: &Tee) {
    let Some(end) = tee.hook else {
        return;
    };
    let (dx, dy) = (tee.pos[0] - end[0], tee.pos[1] - end[1]);
    let distance = (dx * dx + dy * dy).sqrt();
    if distance <= 0.0 {
        return;
    }
    let dir = [dx / distance, dy / distance];
    let angle = dir[1].atan2(dir[0]) + PI;
    let head = data.sprite(Sprite::HookHead);
    let chain = data.sprite(Sprite::HookChain);
    let plain = head.is_none();
    let shade = |quad: Quad| match plain {
        true => quad.color([0.6, 0.6, 0.6, 1.0]),
        false => quad,
    };
    quads.push(shade(Quad::new(head, end, [24.0, 16.0]).angle(angle)));
    let mut f = 24.0;
    let mut links = 0;
    while f < distance && links < 1024 {
        let p = [end[0] + dir[0] * f, end[1] + dir[1] * f];
        let size = if plain { [24.0, 4.0] } else { [24.0, 16.0] };
        quads.push(shade(Quad::new(chain, p, size).angle(angle)));
        f += 24.0;
        links += 1;
    }
    let look = look(data, world, tee);
    hand(
        quads,
        &look,
        tee.pos,
        [-dir[0], -dir[1]],
        -FRAC_PI_2,
        [20.0, 0.0],
    );
}

fn player(quads: &mut Quads, map: &Map, data: &GameData, world: &World, tee: &Tee) {
    let look = look(data, world, tee);
    let pose = pose(map, tee);
    let dir = [tee.angle.cos(), tee.angle.sin()];
    let pos = tee.pos;
    // The weapon, behind the tee; frozen tees hold none.
    if let Some(w) = weapon_number(tee.weapon).filter(|_| !tee.frozen) {
        let spec = weapon_look(tee.weapon);
        let body = data.sprite(Sprite::Body(w));
        let [sw, sh] = Sprite::Body(w).scale();
        let size = [spec.visual_size * sw, spec.visual_size * sh];
        let left = dir[0] < 0.0;
        let turn = pose.attach[2] * TAU;
        let seconds = tee.since_attack / super::TICKS_PER_SECOND;
        let p = if tee.weapon == Weapon::HAMMER || tee.weapon == Weapon::NINJA {
            let mut p = [
                pos[0] + pose.attach[0],
                pos[1] + pose.attach[1] + spec.offset[1],
            ];
            let angle = if left {
                p[0] -= spec.offset[0];
                -FRAC_PI_2 - turn
            } else {
                -FRAC_PI_2 + turn
            };
            quads.push(Quad::new(body, p, size).angle(angle).flip_y(left));
            // The ninja's dash: a flash behind the tee for a sixth of a second.
            if tee.weapon == Weapon::NINJA && (0.0..=1.0 / 6.0).contains(&seconds) {
                let speed = (tee.vel[0] * tee.vel[0] + tee.vel[1] * tee.vel[1]).sqrt();
                let moving = match speed > 0.0 {
                    true => [tee.vel[0] / speed, tee.vel[1] / speed],
                    false => [1.0, 0.0],
                };
                let which = Sprite::Muzzle(5, (tee.attack_tick.rem_euclid(3)) as u8);
                let [mw, mh] = which.scale();
                let center = [pos[0] - moving[0] * 40.0, pos[1] - moving[1] * 40.0];
                let quad = Quad::new(data.sprite(which), center, [160.0 * mw, 160.0 * mh]);
                if data.sprite(which).is_some() {
                    quads.push(quad.angle(moving[1].atan2(moving[0])));
                }
            }
            p
        } else {
            // Recoil: the weapon pulled back for 5 ticks after a shot.
            let a = tee.since_attack / 5.0;
            let recoil = if a < 1.0 { (a * PI).sin() } else { 0.0 };
            let p = [
                pos[0] + dir[0] * spec.offset[0] - dir[0] * recoil * 10.0,
                pos[1] + dir[1] * spec.offset[0] - dir[1] * recoil * 10.0 + spec.offset[1],
            ];
            quads.push(Quad::new(body, p, size).angle(tee.angle).flip_y(left));
            p
        };
        // The muzzle flash of the gun and the shotgun, for 5 ticks after a shot; of its three
        // pictures the one of the attack tick (the game picks one at random).
        let flashes = tee.weapon == Weapon::GUN || tee.weapon == Weapon::SHOTGUN;
        if flashes && (0.0..spec.muzzle_ticks).contains(&tee.since_attack) {
            let offset_y = if left {
                spec.muzzle_offset[1]
            } else {
                -spec.muzzle_offset[1]
            };
            let across = [-dir[1], dir[0]];
            let muzzle = [
                p[0] + dir[0] * spec.muzzle_offset[0] + across[0] * offset_y,
                p[1] + dir[1] * spec.muzzle_offset[0] + across[1] * offset_y,
            ];
            let which = Sprite::Muzzle(w, (tee.attack_tick.rem_euclid(3)) as u8);
            let [mw, mh] = which.scale();
            let size = [spec.visual_size * mw, spec.visual_size * mh];
            if data.sprite(which).is_some() {
                let quad = Quad::new(data.sprite(which), muzzle, size);
                quads.push(quad.angle(tee.angle).flip_y(left));
            }
        }
        match tee.weapon {
            Weapon::GUN => hand(quads, &look, p, dir, -3.0 * PI / 4.0, [-15.0, 4.0]),
            Weapon::SHOTGUN => hand(quads, &look, p, dir, -FRAC_PI_2, [-5.0, 4.0]),
            Weapon::GRENADE => hand(quads, &look, p, dir, -FRAC_PI_2, [-4.0, 7.0]),
            _ => {}
        }
    }
    match &look {
        Look::Six { .. } => tee_six(quads, &look, &pose, pos, dir, tee.emote, tee.air_jumped),
        Look::Seven { parts } => {
            tee_seven(quads, parts, &pose, pos, dir, tee.emote, tee.air_jumped)
        }
    }
    // Typing: a "..." bubble beside the tee.
    if tee.chatting {
        if let Some(texture) = data.emoticon(4) {
            let center = [pos[0] + 24.0, pos[1] - 40.0];
            quads.push(Quad::new(Some(texture), center, [64.0, 64.0]));
        }
    }
}

/// The eye cell of 0.6 skins for an emote: normal, angry, pain, happy, dead, surprise.
fn eyes_six(emote: Emote) -> u8 {
    match emote {
        Emote::PAIN => 2,
        Emote::HAPPY => 3,
        Emote::SURPRISE => 5,
        Emote::ANGRY => 1,
        _ => 0,
    }
}

/// A 0.6 tee: outlines of back foot, body and front foot, then the back foot, the body, the
/// eyes and the front foot; 64 units across.
fn tee_six(
    quads: &mut Quads,
    look: &Look,
    pose: &Pose,
    pos: [f64; 2],
    dir: [f64; 2],
    emote: Emote,
    air_jumped: bool,
) {
    let Look::Six {
        skin,
        colorable,
        body,
        feet,
    } = look
    else {
        return;
    };
    let size = 64.0;
    let body_pos = [pos[0] + pose.body[0], pos[1] + pose.body[1]];
    let Some(skin) = skin else {
        // No skin: a square body in its color.
        quads.push(Quad::new(None, body_pos, [40.0, 40.0]).color(*body));
        return;
    };
    let part = |part: Part| skin.part(part, *colorable);
    for outline in [true, false] {
        for front in [false, true] {
            if front {
                let which = if outline {
                    Part::BodyOutline
                } else {
                    Part::Body
                };
                let turn = pose.body[2] * TAU;
                let quad = Quad::new(part(which), body_pos, [size, size]).angle(turn);
                quads.push(quad.color(*body));
                if !outline {
                    let scale = size * 0.40;
                    let h = if emote == Emote::BLINK {
                        size * 0.15
                    } else {
                        scale
                    };
                    let separation = (0.075 - 0.010 * dir[0].abs()) * size;
                    let offset = [dir[0] * 0.125 * size, (-0.05 + dir[1] * 0.10) * size];
                    for (side, flip) in [(-1.0, false), (1.0, true)] {
                        let center = [
                            body_pos[0] + side * separation + offset[0],
                            body_pos[1] + offset[1],
                        ];
                        let eyes = part(Part::Eyes(eyes_six(emote)));
                        let quad = Quad::new(eyes, center, [scale, h]).angle(turn);
                        quads.push(quad.flip_x(flip).color(*body));
                    }
                }
            }
            let foot = if front {
                pose.front_foot
            } else {
                pose.back_foot
            };
            let which = if outline {
                Part::FootOutline
            } else {
                Part::Foot
            };
            let dim = if !outline && air_jumped { 0.5 } else { 1.0 };
            let color = [feet[0] * dim, feet[1] * dim, feet[2] * dim, feet[3]];
            let center = [pos[0] + foot[0], pos[1] + foot[1]];
            let quad = Quad::new(part(which), center, [size, size / 2.0]).angle(foot[2] * TAU);
            quads.push(quad.color(color));
        }
    }
}

/// A 0.7 tee of parts: in the outline pass the back foot's, decoration's, body's and front
/// foot's outlines; then the back foot, decoration, body, marking, shading, upper outline,
/// eyes and front foot.
fn tee_seven(
    quads: &mut Quads,
    parts: &[PartLook; 6],
    pose: &Pose,
    pos: [f64; 2],
    dir: [f64; 2],
    emote: Emote,
    air_jumped: bool,
) {
    let size = 64.0;
    let body_pos = [pos[0] + pose.body[0], pos[1] + pose.body[1]];
    let turn = pose.body[2] * TAU;
    let white = [1.0; 4];
    // A cell of a part: colorable when the part has a custom color.
    let cell = |kind: usize, i: usize| {
        let (part, color) = &parts[kind];
        part.as_ref()
            .and_then(|p| p.cell(i, color.is_some()).cloned())
    };
    let color = |kind: usize| parts[kind].1.unwrap_or(white);
    let (body, marking, decoration, feet, eyes) = (0, 1, 2, 4, 5);
    let body_quad = |quads: &mut Quads, texture: Option<Arc<Texture>>, color: [f32; 4]| {
        if let Some(texture) = texture {
            let quad = Quad::new(Some(&texture), body_pos, [size, size]).angle(turn);
            quads.push(quad.color(color));
        }
    };
    for outline in [true, false] {
        for front in [false, true] {
            if front {
                if outline {
                    body_quad(quads, cell(decoration, 1), color(decoration));
                    body_quad(quads, cell(body, 0), white);
                } else {
                    body_quad(quads, cell(decoration, 0), color(decoration));
                    body_quad(quads, cell(body, 1), color(body));
                    let m = color(marking);
                    body_quad(
                        quads,
                        cell(marking, 0),
                        [m[0] * m[3], m[1] * m[3], m[2] * m[3], m[3]],
                    );
                    body_quad(quads, cell(body, 2), white);
                    body_quad(quads, cell(body, 3), white);
                    let which = match emote {
                        Emote::ANGRY => 1,
                        Emote::PAIN => 2,
                        Emote::HAPPY => 3,
                        Emote::SURPRISE => 4,
                        _ => 0,
                    };
                    if let Some(texture) = cell(eyes, which) {
                        let h = if emote == Emote::BLINK { 4.8 } else { 19.2 };
                        let center = [body_pos[0] + 8.0 * dir[0], body_pos[1] - 3.2 + 6.4 * dir[1]];
                        let quad = Quad::new(Some(&texture), center, [38.4, h]).angle(turn);
                        quads.push(quad.color(color(eyes)));
                    }
                }
            }
            let foot = if front {
                pose.front_foot
            } else {
                pose.back_foot
            };
            let (texture, mut c) = match outline {
                true => (cell(feet, 1), white),
                false => (cell(feet, 0), color(feet)),
            };
            if !outline && air_jumped {
                c = [c[0] * 0.5, c[1] * 0.5, c[2] * 0.5, c[3]];
            }
            if let Some(texture) = texture {
                let center = [pos[0] + foot[0], pos[1] + foot[1]];
                let side = size / 2.1;
                let quad = Quad::new(Some(&texture), center, [side, side]).angle(foot[2] * TAU);
                quads.push(quad.color(c));
            }
        }
    }
}

/// An emoticon above a tee, for 2 seconds: it grows in the first tenth of a second, wiggles
/// in the first fifth and fades in the last fifth.
fn emoticon(quads: &mut Quads, data: &GameData, world: &World, tee: &Tee) {
    let Some(e) = (world.emoticons.iter())
        .rev()
        .find(|e| e.client_id == tee.id)
    else {
        return;
    };
    let since = world.tick - f64::from(e.tick);
    let until_end = f64::from(EMOTICON_TICKS) - since;
    if since < 0.0 || until_end <= 0.0 {
        return;
    }
    let alpha = if until_end < 10.0 {
        until_end / 10.0
    } else {
        1.0
    };
    let h = if since < 5.0 { since / 5.0 } else { 1.0 };
    let wiggle = if since < 10.0 { since / 10.0 } else { 0.0 };
    let angle = PI / 6.0 * (5.0 * wiggle).sin();
    let center = [tee.pos[0], tee.pos[1] - 23.0 - 32.0 * h];
    let Some(texture) = data.emoticon(e.emoticon) else {
        return;
    };
    let quad = Quad::new(Some(texture), center, [64.0, 64.0 * h]).angle(angle);
    quads.push(quad.color([1.0, 1.0, 1.0, alpha as f32]));
}

/// The names above the tees, as DDNet's defaults show them: not the recording player's own;
/// 28 units high, centred over the tee, above the line its direction arrows take (36 units
/// from 30 units above its centre); white, red or blue in a game of teams; outlined in
/// half-transparent black. The font is an 8 x 8 bitmap font at the nearest whole scale.
pub(super) fn name_plates(picture: &mut Picture, world: &World, screen: &Mapping) {
    let unit = screen.units_per_pixel.1.max(1e-9);
    let scale = (28.0 / unit / f64::from(GLYPH)).round().clamp(1.0, 16.0) as u32;
    for tee in world.tees.iter().filter(|t| !t.local) {
        let name = tee.player.name.as_str();
        if name.is_empty() {
            continue;
        }
        let (x, bottom) = screen.pixel(tee.pos[0], tee.pos[1] - 30.0 - 36.0);
        let (width, height) = text_size(name, scale);
        let left = (f64::from(x) - f64::from(width) / 2.0).round() as i64;
        let top = (f64::from(bottom) - f64::from(height)).round() as i64;
        let color = match (world.team_game, tee.player.team) {
            (true, 0) => [255, 128, 128, 255],
            (true, 1) => [179, 179, 255, 255],
            _ => [255, 255, 255, 255],
        };
        for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
            draw_text(picture, left + dx, top + dy, name, [0, 0, 0, 128], scale);
        }
        draw_text(picture, left, top, name, color, scale);
    }
}
