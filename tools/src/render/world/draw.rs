//! The world as the game draws it: each thing a few textured quads, in the client's order and
//! sizes (docs/format/demo-render.md, "Drawing the world").

use std::f64::consts::{FRAC_PI_2, PI, TAU};
use std::sync::Arc;

use twcodec::map::Map;
use twcodec::Error;
use twcodec_schema::netobj::common::{Emote, Weapon};

use super::super::raster::{Triangle, Vertex};
use super::super::texture::Texture;
use super::super::{Budget, Mapping, Op, QUAD_PICTURE_PIXEL, QUAD_PIXEL};
use super::data::{GameData, Part, SkinTextures, Sprite};
use super::state::{Beam, FlagView, Item, PickupLook, Shot, Skin, Tee, World, EMOTICON_TICKS};

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

/// A quad of four free corners in one color (laser beams).
fn freeform(
    corners: [[f64; 2]; 4],
    color: [f32; 4],
) -> (Option<Arc<Texture>>, [[f64; 2]; 4], [f32; 4]) {
    (None, corners, color)
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

    fn push_free(
        &mut self,
        (texture, corners, color): (Option<Arc<Texture>>, [[f64; 2]; 4], [f32; 4]),
    ) {
        let uv = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
        self.list.push((texture, corners, uv, color));
    }
}

/// The most quads a world draws (a snapshot holds at most 1024 items; a hook chain at most
/// 1024 links, as the game's).
const MAX_QUADS: usize = 1 << 16;

/// The operations that draw `world` in the game group's `mapping`, counted in `budget`.
pub(super) fn world_ops(
    map: &Map,
    data: &GameData,
    world: &World,
    names: bool,
    mapping: &Mapping,
    budget: &mut Budget<'_>,
) -> Result<Vec<Op<'static>>, Error> {
    let _ = names;
    let mut quads = Quads::default();
    for item in &world.items {
        pickup(&mut quads, data, item, world.tick);
    }
    for flag in &world.flags {
        flag_quad(&mut quads, data, flag);
    }
    for beam in &world.beams {
        laser(&mut quads, beam);
    }
    for shot in &world.shots {
        projectile(&mut quads, data, shot, world.tick);
    }
    // Others' hooks, others; then the local player's hook and the local player.
    for local in [false, true] {
        for tee in world.tees.iter().filter(|t| t.local == local) {
            hook(&mut quads, data, tee);
        }
        for tee in world.tees.iter().filter(|t| t.local == local) {
            player(&mut quads, map, data, tee);
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
        Weapon::GUN => (64.0, [32.0, 4.0], [50.0, 6.0], 5.0),
        Weapon::SHOTGUN => (96.0, [24.0, -2.0], [70.0, 6.0], 5.0),
        Weapon::GRENADE => (96.0, [24.0, -2.0], [0.0, 0.0], 0.0),
        Weapon::LASER => (92.0, [24.0, -2.0], [0.0, 0.0], 0.0),
        _ => (96.0, [0.0, 0.0], [40.0, -4.0], 3.0),
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

/// A laser beam: a dark outer band and a light inner band that narrow as the beam ages.
fn laser(quads: &mut Quads, beam: &Beam) {
    let (dx, dy) = (beam.to[0] - beam.from[0], beam.to[1] - beam.from[1]);
    let length = dx.hypot(dy);
    let dir = match length > 0.0 {
        true => [dx / length, dy / length],
        false => [0.0, 0.0],
    };
    // The game's laser bounce delay: 150 ms.
    let faded = (beam.age / super::TICKS_PER_SECOND * 1000.0 / 150.0).clamp(0.0, 1.0);
    let left = 1.0 - faded;
    let (outer, inner) = laser_colors(beam.kind);
    for (width, color) in [(7.0, outer), (5.0, inner)] {
        let out = [dir[1] * width * left, -dir[0] * width * left];
        let (from, to) = (beam.from, beam.to);
        quads.push_free(freeform(
            [
                [from[0] - out[0], from[1] - out[1]],
                [from[0] + out[0], from[1] + out[1]],
                [to[0] - out[0], to[1] - out[1]],
                [to[0] + out[0], to[1] + out[1]],
            ],
            color,
        ));
    }
    // The head: the two colors as squares at the end.
    for (size, color) in [(24.0, outer), (20.0, inner)] {
        quads.push(Quad::new(None, beam.to, [size * 0.5, size * 0.5]).color(color));
    }
}

/// Outer and inner colors of a laser of DDNet type `kind`.
fn laser_colors(kind: i32) -> ([f32; 4], [f32; 4]) {
    match kind {
        // A shotgun's laser.
        1 => ([0.34, 0.40, 0.32, 1.0], [0.71, 0.796, 0.553, 1.0]),
        // Doors.
        2 => ([0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]),
        // Freezing lasers.
        3 => ([0.314, 0.306, 0.373, 1.0], [0.84, 0.84, 0.9, 1.0]),
        _ => ([0.075, 0.075, 0.25, 1.0], [0.5, 0.5, 1.0, 1.0]),
    }
}

fn projectile(quads: &mut Quads, data: &GameData, shot: &Shot, tick: f64) {
    if shot.age < 0.0 {
        return;
    }
    let Some(w) = weapon_number(shot.weapon) else {
        return;
    };
    let angle = if shot.weapon == Weapon::GRENADE {
        // Grenades spin twice a second.
        tick / super::TICKS_PER_SECOND * TAU * 2.0
    } else if shot.dir[0].hypot(shot.dir[1]) > 1e-5 {
        shot.dir[1].atan2(shot.dir[0])
    } else {
        0.0
    };
    let which = Sprite::Projectile(w);
    let quad = Quad::new(data.sprite(which), shot.pos, [32.0, 32.0]).angle(angle);
    quads.push(match data.sprite(which) {
        Some(_) => quad,
        None => Quad::new(None, shot.pos, [8.0, 8.0]).color([1.0, 0.9, 0.3, 1.0]),
    });
}

/// The 0.6 look of a tee: its skin's parts, and the colors of its body and feet.
struct Look {
    skin: Option<Arc<SkinTextures>>,
    colorable: bool,
    body: [f32; 4],
    feet: [f32; 4],
}

/// A color of a player's info (HSL packed `0xHHSSLL`) as the game shows it: lightness lifted
/// into its upper half, then to RGB (docs/format/demo-render.md, "Colors").
pub(crate) fn player_color(packed: i32) -> [f32; 4] {
    let h = ((packed >> 16) & 0xff) as f32 / 255.0;
    let s = ((packed >> 8) & 0xff) as f32 / 255.0;
    let l = (packed & 0xff) as f32 / 255.0;
    let l = 0.5 + l * 0.5;
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

fn look(data: &GameData, tee: &Tee) -> Look {
    let white = [1.0; 4];
    if tee.frozen {
        return Look {
            skin: data.skin("x_ninja"),
            colorable: false,
            body: white,
            feet: white,
        };
    }
    match &tee.player.skin {
        Skin::Six { name, colors } => Look {
            skin: data.skin(name),
            colorable: colors.is_some(),
            body: colors.map_or(white, |(body, _)| player_color(body)),
            feet: colors.map_or(white, |(_, feet)| player_color(feet)),
        },
        // 0.7 skins of parts: drawn with the 0.6 default skin in the body part's color.
        Skin::Seven { colors, .. } => Look {
            skin: data.skin("default"),
            colorable: colors[0].is_some(),
            body: colors[0].map_or(white, player_color),
            feet: colors[4].map_or(white, player_color),
        },
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
    let Some(&(_, x, y, a)) = frames.first() else {
        return [0.0; 3];
    };
    let mut value = [x, y, a];
    for pair in frames.windows(2) {
        let (t0, x0, y0, a0) = pair[0];
        let (t1, x1, y1, a1) = pair[1];
        if time >= t0 && time <= t1 {
            let f = if t1 > t0 {
                (time - t0) / (t1 - t0)
            } else {
                0.0
            };
            value = [x0 + (x1 - x0) * f, y0 + (y1 - y0) * f, a0 + (a1 - a0) * f];
            return value;
        }
        value = [x1, y1, a1];
    }
    value
}

fn add(to: &mut [f64; 3], part: [f64; 3]) {
    for i in 0..3 {
        to[i] += part[i];
    }
}

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

/// Whether the point is in a solid tile of the game layer (tiles 1, solid, and 3, unhookable).
fn solid(map: &Map, x: f64, y: f64) -> bool {
    let Some((_, layer)) = map.game_layer() else {
        return false;
    };
    let Some(grid) = layer.grid() else {
        return false;
    };
    let (tx, ty) = ((x / 32.0).floor(), (y / 32.0).floor());
    let (w, h) = (grid.width() as f64, grid.height() as f64);
    let (tx, ty) = (
        tx.clamp(0.0, w - 1.0) as usize,
        ty.clamp(0.0, h - 1.0) as usize,
    );
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
    let in_air = !solid(map, tee.pos[0], tee.pos[1] + 16.0);
    // Velocities within 1/256 of a unit per tick count as standing.
    let stationary = tee.vel[0].abs() <= 1.0 / 256.0;
    let other_way =
        (tee.direction == -1 && tee.vel[0] > 0.0) || (tee.direction == 1 && tee.vel[0] < 0.0);
    if in_air {
        add(&mut pose.back_foot, [-3.0, 0.0, -0.1]);
        add(&mut pose.front_foot, [3.0, 0.0, -0.1]);
    } else if stationary {
        add(&mut pose.back_foot, [-7.0, 0.0, 0.0]);
        add(&mut pose.front_foot, [7.0, 0.0, 0.0]);
    } else if !other_way {
        let walk = (tee.pos[0].abs() % 100.0) / 100.0;
        add(&mut pose.body, at(WALK_BODY, walk));
        add(&mut pose.back_foot, at(WALK_BACK, walk));
        add(&mut pose.front_foot, at(WALK_FRONT, walk));
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

fn hand(
    quads: &mut Quads,
    look: &Look,
    center: [f64; 2],
    dir: [f64; 2],
    angle_offset: f64,
    post: [f64; 2],
) {
    let mut angle = dir[1].atan2(dir[0]);
    if dir[0] < 0.0 {
        angle -= angle_offset;
    } else {
        angle += angle_offset;
    }
    let dir_y = match dir[0] < 0.0 {
        true => [dir[1], -dir[0]],
        false => [-dir[1], dir[0]],
    };
    let pos = [
        center[0] + dir[0] + dir[0] * post[0] + dir_y[0] * post[1],
        center[1] + dir[1] + dir[1] * post[0] + dir_y[1] * post[1],
    ];
    let Some(skin) = &look.skin else {
        return;
    };
    for part in [Part::HandOutline, Part::Hand] {
        let quad = Quad::new(skin.part(part, look.colorable), pos, [20.0, 20.0]).angle(angle);
        quads.push(quad.color(look.body));
    }
}

fn hook(quads: &mut Quads, data: &GameData, tee: &Tee) {
    let Some(end) = tee.hook else {
        return;
    };
    let (dx, dy) = (tee.pos[0] - end[0], tee.pos[1] - end[1]);
    let distance = dx.hypot(dy);
    if distance <= 0.0 {
        return;
    }
    let dir = [dx / distance, dy / distance];
    let angle = dir[1].atan2(dir[0]) + PI;
    quads.push(Quad::new(data.sprite(Sprite::HookHead), end, [24.0, 16.0]).angle(angle));
    let mut f = 24.0;
    let mut links = 0;
    while f < distance && links < 1024 {
        let p = [end[0] + dir[0] * f, end[1] + dir[1] * f];
        quads.push(Quad::new(data.sprite(Sprite::HookChain), p, [24.0, 16.0]).angle(angle));
        f += 24.0;
        links += 1;
    }
}

fn player(quads: &mut Quads, map: &Map, data: &GameData, tee: &Tee) {
    let look = look(data, tee);
    let pose = pose(map, tee);
    let dir = [tee.angle.cos(), tee.angle.sin()];
    let pos = tee.pos;
    // The hand on the hook.
    if let Some(end) = tee.hook {
        let (dx, dy) = (end[0] - pos[0], end[1] - pos[1]);
        let d = dx.hypot(dy);
        if d > 0.0 {
            hand(quads, &look, pos, [dx / d, dy / d], -FRAC_PI_2, [20.0, 0.0]);
        }
    }
    // The weapon, behind the tee.
    if let Some(w) = weapon_number(tee.weapon) {
        let spec = weapon_look(tee.weapon);
        let body = data.sprite(Sprite::Body(w));
        let [sw, sh] = Sprite::Body(w).scale();
        let size = [spec.visual_size * sw, spec.visual_size * sh];
        let left = dir[0] < 0.0;
        let turn = pose.attach[2] * TAU;
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
            p
        } else {
            // Recoil: the weapon pulled back for 5 ticks after a shot.
            let a = tee.since_attack / 5.0;
            let recoil = if (0.0..1.0).contains(&a) {
                (a * PI).sin()
            } else {
                0.0
            };
            let p = [
                pos[0] + dir[0] * spec.offset[0] - dir[0] * recoil * 10.0,
                pos[1] + dir[1] * spec.offset[0] - dir[1] * recoil * 10.0 + spec.offset[1],
            ];
            quads.push(Quad::new(body, p, size).angle(tee.angle).flip_y(left));
            p
        };
        // The muzzle flash of the gun and the shotgun.
        if (tee.weapon == Weapon::GUN || tee.weapon == Weapon::SHOTGUN) && spec.muzzle_ticks > 0.0 {
            let t = tee.since_attack / spec.muzzle_ticks;
            if tee.since_attack >= 0.0 && tee.since_attack < spec.muzzle_ticks + 3.0 {
                let alpha = (2.0 - 2.0 * t.clamp(0.0, 1.0)).min(1.0) as f32;
                if alpha > 0.0 {
                    let offset_y = if left {
                        spec.muzzle_offset[1]
                    } else {
                        -spec.muzzle_offset[1]
                    };
                    let dir_y = [-dir[1], dir[0]];
                    let muzzle = [
                        p[0] + dir[0] * spec.muzzle_offset[0] + dir_y[0] * offset_y,
                        p[1] + dir[1] * spec.muzzle_offset[0] + dir_y[1] * offset_y,
                    ];
                    let which = Sprite::Muzzle(w, 0);
                    let [mw, mh] = which.scale();
                    let quad = Quad::new(
                        data.sprite(which),
                        muzzle,
                        [spec.visual_size * mw, spec.visual_size * mh],
                    );
                    quads.push(
                        quad.angle(tee.angle)
                            .flip_y(left)
                            .color([1.0, 1.0, 1.0, alpha]),
                    );
                }
            }
        }
        match tee.weapon {
            Weapon::GUN => hand(quads, &look, p, dir, -3.0 * PI / 4.0, [-15.0, 4.0]),
            Weapon::SHOTGUN => hand(quads, &look, p, dir, -FRAC_PI_2, [-5.0, 4.0]),
            Weapon::GRENADE => hand(quads, &look, p, dir, -FRAC_PI_2, [-4.0, 7.0]),
            _ => {}
        }
    }
    tee_body(quads, &look, &pose, pos, dir, tee.emote, tee.air_jumped);
}

/// A tee: outlines of back foot, body and front foot, then the back foot, the body, the eyes
/// and the front foot; 64 units across.
fn tee_body(
    quads: &mut Quads,
    look: &Look,
    pose: &Pose,
    pos: [f64; 2],
    dir: [f64; 2],
    emote: Emote,
    air_jumped: bool,
) {
    let size = 64.0;
    let Some(skin) = &look.skin else {
        // No skin: a disk-less square body in its color.
        quads.push(Quad::new(None, [pos[0], pos[1] - 4.0], [40.0, 40.0]).color(look.body));
        return;
    };
    let body_pos = [pos[0] + pose.body[0], pos[1] + pose.body[1]];
    let part = |part: Part| skin.part(part, look.colorable);
    for outline in [true, false] {
        for front in [false, true] {
            if front {
                let which = if outline {
                    Part::BodyOutline
                } else {
                    Part::Body
                };
                let quad = Quad::new(part(which), body_pos, [size, size]).angle(pose.body[2] * TAU);
                quads.push(quad.color(look.body));
                if !outline {
                    let eyes = match emote {
                        Emote::PAIN => 2,
                        Emote::HAPPY => 3,
                        Emote::SURPRISE => 5,
                        Emote::ANGRY => 1,
                        _ => 0,
                    };
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
                        let quad = Quad::new(part(Part::Eyes(eyes)), center, [scale, h]);
                        quads.push(quad.flip_x(flip).color(look.body));
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
            let color = [
                look.feet[0] * dim,
                look.feet[1] * dim,
                look.feet[2] * dim,
                look.feet[3],
            ];
            let center = [pos[0] + foot[0], pos[1] + foot[1]];
            let quad = Quad::new(part(which), center, [size, size / 2.0]).angle(foot[2] * TAU);
            quads.push(quad.color(color));
        }
    }
}

fn emoticon(quads: &mut Quads, data: &GameData, world: &World, tee: &Tee) {
    let Some(e) = (world.emoticons.iter())
        .rev()
        .find(|e| e.client_id == tee.id)
    else {
        return;
    };
    let since = world.tick - f64::from(e.tick);
    let until_end = f64::from(e.tick) + f64::from(EMOTICON_TICKS) - world.tick;
    if since < 0.0 || until_end <= 0.0 {
        return;
    }
    let fifth = super::TICKS_PER_SECOND / 5.0;
    let alpha = if until_end < fifth {
        until_end / fifth
    } else {
        1.0
    };
    let h = if since < super::TICKS_PER_SECOND / 10.0 {
        since / (super::TICKS_PER_SECOND / 10.0)
    } else {
        1.0
    };
    let wiggle = if since < fifth { since / fifth } else { 0.0 };
    let angle = PI / 6.0 * (5.0 * wiggle).sin();
    let center = [tee.pos[0], tee.pos[1] - 23.0 - 32.0 * h];
    let Some(texture) = data.emoticon(e.emoticon) else {
        return;
    };
    let quad = Quad::new(Some(texture), center, [64.0, 64.0 * h]).angle(angle);
    quads.push(quad.color([1.0, 1.0, 1.0, alpha as f32]));
}
