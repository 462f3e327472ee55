//! The game world at an instant between two snapshots: what the client draws, found in the
//! snapshots' objects and mixed between them as DDNet's client does (docs/demo-render.md,
//! "Between two snapshots").

use std::collections::HashMap;

use twcodec::snap::objects::SnapObject;
use twcodec::snap::{Protocol, Snapshot};

use super::physics::{evolve, Collision};
use twcodec_schema::netobj::common::{CharacterCore, Emote, Weapon};
use twcodec_schema::netobj::ddnet::Powerup;

/// How long an emoticon shows, in ticks (2 seconds).
pub const EMOTICON_TICKS: i32 = 100;

/// Ticks per second of the game's server.
pub const TICKS_PER_SECOND: f64 = 50.0;

/// How a tee looks: its skin and colors, as its player's info gives them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Skin {
    /// A 0.6/DDNet skin: one picture by name, with custom body and feet colors (HSL packed
    /// `0xHHSSLL`) when the player uses them.
    Six {
        /// The skin's name (`default`).
        name: String,
        /// Body and feet colors.
        colors: Option<(i32, i32)>,
    },
    /// A 0.7 skin of parts: body, marking, decoration, hands, feet, eyes; each part's name
    /// and, where the player colors it, its color (HSLA packed `0xAAHHSSLL`).
    Seven {
        /// The parts' names (empty: none).
        parts: [String; 6],
        /// The parts' custom colors.
        colors: [Option<i32>; 6],
    },
}

impl Default for Skin {
    fn default() -> Skin {
        Skin::Six {
            name: "default".to_string(),
            colors: None,
        }
    }
}

/// A player's name and look.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Player {
    /// The name.
    pub name: String,
    /// The skin.
    pub skin: Skin,
    /// Its team (-1 watching).
    pub team: i32,
}

/// A tee, mixed between two snapshots.
#[derive(Debug, Clone, PartialEq)]
pub struct Tee {
    /// Its client id.
    pub id: i32,
    /// Position in world units (its centre).
    pub pos: [f64; 2],
    /// Velocity in world units per tick.
    pub vel: [f64; 2],
    /// The current snapshot's horizontal velocity, as sent (256ths of a unit per tick): what
    /// the client picks the walk, run or idle animation by.
    pub raw_vel_x: i32,
    /// The current snapshot's position: where the client checks for ground.
    pub ground_pos: [f64; 2],
    /// Where it aims, in radians (0 right, clockwise on screen as y grows down).
    pub angle: f64,
    /// -1 left, 0 still, 1 right: the key held.
    pub direction: i32,
    /// Its hook's end, when the hook is out.
    pub hook: Option<[f64; 2]>,
    /// The weapon in hand.
    pub weapon: Weapon,
    /// Its eyes.
    pub emote: Emote,
    /// Ticks since its last attack (with the fraction of the instant).
    pub since_attack: f64,
    /// The tick of its last attack.
    pub attack_tick: i32,
    /// Its player is typing in the chat.
    pub chatting: bool,
    /// Frozen (DDNet), drawn with the ninja look.
    pub frozen: bool,
    /// Whether the tee has used its air jump (the back foot is drawn darker).
    pub air_jumped: bool,
    /// The player of the client this demo was recorded by.
    pub local: bool,
    /// Its player's name and look.
    pub player: Player,
}

/// Which shot a projectile is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shot {
    /// Its item id (items are drawn in id order).
    pub id: u16,
    /// Where it is now, in world units.
    pub pos: [f64; 2],
    /// Its direction of flight now (not normalised).
    pub dir: [f64; 2],
    /// The weapon that fired it.
    pub weapon: Weapon,
    /// Ticks since it was fired.
    pub age: f64,
}

/// A laser beam.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Beam {
    /// Its item id.
    pub id: u16,
    /// Where the beam starts and ends.
    pub from: [f64; 2],
    /// Its end.
    pub to: [f64; 2],
    /// Ticks since it was shot.
    pub age: f64,
    /// DDNet's laser type (0 a laser shot; 1 a shotgun's; 2 to 6 the map's doors, freezes,
    /// draggers and turrets).
    pub kind: i32,
}

/// What a pickup gives, as it is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickupLook {
    /// A heart.
    Health,
    /// A shield.
    Armor,
    /// A weapon.
    Weapon(Weapon),
    /// The ninja sword.
    Ninja,
    /// DDNet's shield that takes a weapon away.
    ArmorOf(Weapon),
}

/// A pickup.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Item {
    /// Position in world units.
    pub pos: [f64; 2],
    /// What it is.
    pub look: PickupLook,
    /// Its item id (the bobbing phase depends on it).
    pub id: u16,
}

/// A flag of capture the flag.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlagView {
    /// Position in world units (its foot).
    pub pos: [f64; 2],
    /// 0 red, 1 blue.
    pub team: i32,
}

/// An emoticon a player shows, from the tick the server said so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Emoticon {
    /// The player.
    pub client_id: i32,
    /// Which, 0 to 15 (a cell of `emoticons.png`).
    pub emoticon: i32,
    /// The tick it was sent in.
    pub tick: i32,
}

/// The world at an instant.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct World {
    /// The instant, in ticks (a fraction between snapshots).
    pub tick: f64,
    /// The tees that are in both snapshots, by client id.
    pub tees: Vec<Tee>,
    /// Projectiles.
    pub shots: Vec<Shot>,
    /// Laser beams.
    pub beams: Vec<Beam>,
    /// Pickups.
    pub items: Vec<Item>,
    /// Flags.
    pub flags: Vec<FlagView>,
    /// The client id of the player this demo was recorded by, when it plays.
    pub local: Option<i32>,
    /// A game of two teams: tees are drawn in their team's colors.
    pub team_game: bool,
    /// The emoticons shown (those of the last [`EMOTICON_TICKS`]).
    pub emoticons: Vec<Emoticon>,
}

impl World {
    /// The tee of client `id`.
    pub fn tee(&self, id: i32) -> Option<&Tee> {
        self.tees.iter().find(|tee| tee.id == id)
    }
}

/// A tee as one snapshot has it.
#[derive(Debug, Clone, Copy)]
struct CharObj {
    core: CharacterCore,
    weapon: Weapon,
    emote: Emote,
    attack_tick: i32,
    chatting: bool,
}

/// DDNet's part of a tee.
#[derive(Debug, Clone, Copy, Default)]
struct DdnetObj {
    frozen: bool,
    /// Where it aims, when the server sends it (`jumped_total` not -1).
    target: Option<[i32; 2]>,
}

/// The objects of one snapshot that the world is made of, by id.
#[derive(Debug, Default)]
struct Objects {
    chars: HashMap<u16, CharObj>,
    ddnet: HashMap<u16, DdnetObj>,
    players: HashMap<i32, Player>,
    /// Client ids with a player info.
    infos: Vec<i32>,
    local: Option<i32>,
    teams: HashMap<i32, i32>,
    /// A game of two teams: tees in team colors.
    team_game: bool,
    shots: Vec<(u16, RawShot)>,
    beams: Vec<(u16, Beam, i32)>,
    items: HashMap<u16, Item>,
    flags: HashMap<u16, FlagView>,
    /// The carriers of the red and blue flags (-1 and below: none).
    carriers: Option<[i32; 2]>,
}

/// A projectile as a snapshot has it: where and when it started, and how it flies.
#[derive(Debug, Clone, Copy)]
struct RawShot {
    start: [f64; 2],
    dir: [f64; 2],
    weapon: Weapon,
    start_tick: i32,
}

/// A projectile of DDNet's older layout (`x`, `y` in hundredths, the angle in millionths of
/// radians): it flies along `(sin -a, cos -a)`.
fn ddrace_shot(x: i32, y: i32, angle: i32, weapon: Weapon, start_tick: i32) -> RawShot {
    let a = f64::from(angle) / 1e6;
    RawShot {
        start: [f64::from(x) / 100.0, f64::from(y) / 100.0],
        dir: [(-a).sin(), (-a).cos()],
        weapon,
        start_tick,
    }
}

/// DDNet's bit of a vanilla projectile's fourth int that says it is of the older DDNet layout.
const LEGACY_IS_DDNET: i32 = 1 << 9;

fn objects(snapshot: &Snapshot, protocol: Protocol) -> Objects {
    let mut out = Objects::default();
    for item in snapshot.objects(protocol) {
        let id = item.key.id();
        match item.object {
            SnapObject::Character(c) => {
                let chatting = c.player_flags.chatting();
                let (core, weapon, emote, attack_tick) = (c.core, c.weapon, c.emote, c.attack_tick);
                out.chars.insert(
                    id,
                    CharObj {
                        core,
                        weapon,
                        emote,
                        attack_tick,
                        chatting,
                    },
                );
            }
            SnapObject::Character7(c) => {
                let (core, weapon, emote, attack_tick) = (c.core, c.weapon, c.emote, c.attack_tick);
                out.chars.insert(
                    id,
                    CharObj {
                        core,
                        weapon,
                        emote,
                        attack_tick,
                        chatting: false,
                    },
                );
            }
            SnapObject::DdnetCharacter(c) => {
                let frozen = c.freeze_end.is_some_and(|end| end != 0);
                let target = match (c.jumped_total, c.target_x, c.target_y) {
                    (Some(total), Some(x), Some(y)) if total != -1 => Some([x, y]),
                    _ => None,
                };
                out.ddnet.insert(id, DdnetObj { frozen, target });
            }
            SnapObject::PlayerInfo(p) => {
                if p.local != 0 {
                    out.local = Some(p.client_id);
                }
                out.infos.push(p.client_id);
                out.teams.insert(p.client_id, p.team.0);
            }
            SnapObject::PlayerInfo7(_) => out.infos.push(i32::from(id)),
            SnapObject::GameInfo(g) => out.team_game = g.game_flags.teams(),
            SnapObject::DeGameInfo7(g) => out.team_game = g.game_flags.teams(),
            SnapObject::GameData(g) => {
                out.carriers = Some([g.flag_carrier_red, g.flag_carrier_blue]);
            }
            SnapObject::GameDataFlag7(g) => {
                out.carriers = Some([g.flag_carrier_red, g.flag_carrier_blue]);
            }
            SnapObject::ClientInfo(c) => {
                let player = Player {
                    name: c.name.to_string_lossy(),
                    skin: Skin::Six {
                        name: c.skin.to_string_lossy(),
                        colors: (c.use_custom_color != 0).then_some((c.color_body, c.color_feet)),
                    },
                    team: 0,
                };
                out.players.insert(i32::from(id), player);
            }
            SnapObject::DeClientInfo7(c) => {
                let parts = c.skin_part_names.each_ref().map(|p| p.to_string_lossy());
                let mut colors = [None; 6];
                for (i, color) in colors.iter_mut().enumerate() {
                    if c.use_custom_colors[i] != 0 {
                        *color = Some(c.skin_part_colors[i]);
                    }
                }
                if c.local != 0 {
                    out.local = Some(i32::from(id));
                }
                let player = Player {
                    name: c.name.to_string_lossy(),
                    skin: Skin::Seven { parts, colors },
                    team: c.team.0,
                };
                out.teams.insert(i32::from(id), c.team.0);
                out.players.insert(i32::from(id), player);
            }
            SnapObject::Projectile(p) | SnapObject::Projectile7(p) => {
                let shot = if p.vel_y >= 0 && p.vel_y & LEGACY_IS_DDNET != 0 {
                    ddrace_shot(p.x, p.y, p.vel_x, p.kind, p.start_tick)
                } else {
                    RawShot {
                        start: [f64::from(p.x), f64::from(p.y)],
                        dir: [f64::from(p.vel_x) / 100.0, f64::from(p.vel_y) / 100.0],
                        weapon: p.kind,
                        start_tick: p.start_tick,
                    }
                };
                out.shots.push((id, shot));
            }
            SnapObject::DdnetProjectile(p) => {
                let (vx, vy) = (f64::from(p.vel_x), f64::from(p.vel_y));
                // Without an owner the direction is in millionths; with one, the shooter's aim.
                let mut dir = match p.owner < 0 {
                    true => [vx / 1e6, vy / 1e6],
                    false => [vx, vy],
                };
                if p.flags.normalize_vel() {
                    let length = (dir[0] * dir[0] + dir[1] * dir[1]).sqrt();
                    dir = match length > 0.0 {
                        true => [dir[0] / length, dir[1] / length],
                        false => [0.0, 0.0],
                    };
                }
                let shot = RawShot {
                    start: [f64::from(p.x) / 100.0, f64::from(p.y) / 100.0],
                    dir,
                    weapon: p.kind,
                    start_tick: p.start_tick,
                };
                out.shots.push((id, shot));
            }
            SnapObject::DdraceProjectile(p) => {
                let shot = ddrace_shot(p.x, p.y, p.angle, p.kind, p.start_tick);
                out.shots.push((id, shot));
            }
            SnapObject::Laser(l) | SnapObject::Laser7(l) => {
                let beam = Beam {
                    id,
                    from: [f64::from(l.from_x), f64::from(l.from_y)],
                    to: [f64::from(l.x), f64::from(l.y)],
                    age: 0.0,
                    kind: 0,
                };
                out.beams.push((id, beam, l.start_tick));
            }
            SnapObject::DdnetLaser(l) => {
                let beam = Beam {
                    id,
                    from: [f64::from(l.from_x), f64::from(l.from_y)],
                    to: [f64::from(l.to_x), f64::from(l.to_y)],
                    age: 0.0,
                    kind: l.kind.0,
                };
                out.beams.push((id, beam, l.start_tick));
            }
            SnapObject::Pickup(p) => {
                let look = pickup_look(p.kind, p.subtype);
                out.items.insert(id, pickup(id, p.x, p.y, look));
            }
            SnapObject::DdnetPickup(p) => {
                let look = pickup_look(p.kind, p.subtype);
                out.items.insert(id, pickup(id, p.x, p.y, look));
            }
            SnapObject::Pickup7(p) => {
                use twcodec_schema::netobj::seven::PickupKind;
                let look = match p.kind {
                    PickupKind::HEALTH => PickupLook::Health,
                    PickupKind::ARMOR => PickupLook::Armor,
                    PickupKind::GRENADE => PickupLook::Weapon(Weapon::GRENADE),
                    PickupKind::SHOTGUN => PickupLook::Weapon(Weapon::SHOTGUN),
                    PickupKind::LASER => PickupLook::Weapon(Weapon::LASER),
                    PickupKind::NINJA => PickupLook::Ninja,
                    PickupKind::GUN => PickupLook::Weapon(Weapon::GUN),
                    PickupKind::HAMMER => PickupLook::Weapon(Weapon::HAMMER),
                    _ => continue,
                };
                out.items.insert(id, pickup(id, p.x, p.y, look));
            }
            SnapObject::Flag(f) | SnapObject::Flag7(f) => {
                let flag = FlagView {
                    pos: [f64::from(f.x), f64::from(f.y)],
                    team: f.team.0,
                };
                out.flags.insert(id, flag);
            }
            _ => {}
        }
    }
    for (id, player) in &mut out.players {
        if let Some(&team) = out.teams.get(id) {
            player.team = team;
        }
    }
    out
}

fn pickup(id: u16, x: i32, y: i32, look: PickupLook) -> Item {
    Item {
        pos: [f64::from(x), f64::from(y)],
        look,
        id,
    }
}

/// How a 0.6/DDNet pickup is drawn.
fn pickup_look(kind: Powerup, subtype: i32) -> PickupLook {
    match kind {
        Powerup::HEALTH => PickupLook::Health,
        Powerup::WEAPON => PickupLook::Weapon(Weapon(subtype)),
        Powerup::NINJA => PickupLook::Ninja,
        Powerup::ARMOR_SHOTGUN => PickupLook::ArmorOf(Weapon::SHOTGUN),
        Powerup::ARMOR_GRENADE => PickupLook::ArmorOf(Weapon::GRENADE),
        Powerup::ARMOR_NINJA => PickupLook::ArmorOf(Weapon::NINJA),
        Powerup::ARMOR_LASER => PickupLook::ArmorOf(Weapon::LASER),
        _ => PickupLook::Armor,
    }
}

/// `a` to `b` by `t`.
fn mix(a: f64, b: f64, t: f64) -> f64 {
    a + (b - a) * t
}

fn mix2(a: [f64; 2], b: [f64; 2], t: f64) -> [f64; 2] {
    [mix(a[0], b[0], t), mix(a[1], b[1], t)]
}

/// An aim angle of a character core (radians times 256, in -pi/2 to 3pi/2) mixed as the
/// client mixes it: across the wrap, the current angle is moved by a turn.
fn mix_angle(prev: i32, cur: i32, t: f64) -> f64 {
    let (a, mut b) = (f64::from(prev), f64::from(cur));
    let turn = 512.0 * std::f64::consts::PI;
    if b > turn / 2.0 && a < 0.0 {
        b -= turn;
    } else if b < 0.0 && a > turn / 2.0 {
        b += turn;
    }
    mix(a, b, t) / 256.0
}

/// The tuning that moves projectiles: curvature and speed of the gun, the shotgun and the
/// grenade launcher, as the game's defaults have them; other weapons' shots stay put.
fn flight(weapon: Weapon) -> (f64, f64) {
    match weapon {
        Weapon::GUN => (1.25, 2200.0),
        Weapon::SHOTGUN => (1.25, 2750.0),
        Weapon::GRENADE => (7.0, 1000.0),
        _ => (0.0, 0.0),
    }
}

/// Where a projectile is `seconds` after it started (the game's `CalcPos`).
pub fn flight_position(start: [f64; 2], dir: [f64; 2], weapon: Weapon, seconds: f64) -> [f64; 2] {
    let (curvature, speed) = flight(weapon);
    let t = seconds * speed;
    [
        start[0] + dir[0] * t,
        start[1] + dir[1] * t + curvature / 10000.0 * t * t,
    ]
}

/// The world between snapshot `prev` (tick `prev_tick`) and `cur` (tick `cur_tick`), at
/// `intra` (0 at `prev`, 1 at `cur`), as DDNet's client draws it: tees, pickups and flags that
/// are in both snapshots, mixed between the two; projectiles and lasers of `cur`, where they
/// are at that instant. With `collision` (the map's), a tee's movement that the server sent
/// before the snapshot's tick is first moved forward to it, as the client does.
pub fn world_between(
    protocol: Protocol,
    prev: Option<(&Snapshot, i32)>,
    cur: (&Snapshot, i32),
    intra: f64,
    collision: Option<&Collision>,
) -> World {
    let intra = intra.clamp(0.0, 1.0);
    let (cur_snapshot, cur_tick) = cur;
    let now = objects(cur_snapshot, protocol);
    let (before, prev_tick) = match prev {
        Some((snapshot, tick)) => (objects(snapshot, protocol), tick),
        None => (objects(cur_snapshot, protocol), cur_tick),
    };
    let tick = mix(f64::from(prev_tick), f64::from(cur_tick), intra);
    let mut world = World {
        tick,
        local: now.local,
        team_game: now.team_game,
        ..World::default()
    };
    // Tees first without their hooks: a hook on a tee ends where that tee is drawn.
    let mut hooked: Vec<(usize, i32)> = Vec::new();
    let mut ids: Vec<u16> = now.chars.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        let client = i32::from(id);
        let (Some(cur), Some(old)) = (now.chars.get(&id), before.chars.get(&id)) else {
            continue;
        };
        if !now.infos.contains(&client) {
            continue;
        }
        let (mut core, mut old) = (cur.core, old.core);
        if let Some(collision) = collision {
            core = evolve(&core, collision, cur_tick);
            old = evolve(&old, collision, prev_tick);
        }
        let pos = mix2(
            [f64::from(old.x), f64::from(old.y)],
            [f64::from(core.x), f64::from(core.y)],
            intra,
        );
        let vel = mix2(
            [f64::from(old.vel_x), f64::from(old.vel_y)],
            [f64::from(core.vel_x), f64::from(core.vel_y)],
            intra,
        );
        let hook = (core.hook_state.0 > 0).then(|| {
            mix2(
                [f64::from(old.hook_x), f64::from(old.hook_y)],
                [f64::from(core.hook_x), f64::from(core.hook_y)],
                intra,
            )
        });
        let ddnet = now.ddnet.get(&id).copied().unwrap_or_default();
        let angle = match ddnet.target {
            Some(target) => {
                let old = before
                    .ddnet
                    .get(&id)
                    .and_then(|d| d.target)
                    .unwrap_or(target);
                let [x, y] = mix2(
                    [f64::from(old[0]), f64::from(old[1])],
                    [f64::from(target[0]), f64::from(target[1])],
                    intra,
                );
                y.atan2(x)
            }
            None => mix_angle(old.angle, core.angle, intra),
        };
        let tee = Tee {
            id: client,
            pos,
            vel: [vel[0] / 256.0, vel[1] / 256.0],
            raw_vel_x: core.vel_x,
            ground_pos: [f64::from(core.x), f64::from(core.y)],
            angle,
            direction: core.direction,
            hook,
            weapon: cur.weapon,
            emote: cur.emote,
            since_attack: tick - f64::from(cur.attack_tick),
            attack_tick: cur.attack_tick,
            frozen: ddnet.frozen,
            air_jumped: core.jumped & 2 != 0,
            chatting: cur.chatting,
            local: now.local == Some(client),
            player: now.players.get(&client).cloned().unwrap_or_default(),
        };
        let target = core.hooked_player;
        if hook.is_some() && (0..64).contains(&target) {
            hooked.push((world.tees.len(), target));
        }
        world.tees.push(tee);
    }
    for (index, target) in hooked {
        match world.tee(target).map(|t| t.pos) {
            Some(pos) => world.tees[index].hook = Some(pos),
            // Hooked to a tee that is not drawn: no hook.
            None => world.tees[index].hook = None,
        }
    }
    for (id, raw) in &now.shots {
        let mut age = tick - f64::from(raw.start_tick);
        if age < 0.0 {
            // Not fired yet; within half a tick of it, at its start.
            if age > -(tick - f64::from(prev_tick)) / 2.0 {
                age = 0.0;
            } else {
                continue;
            }
        }
        let seconds = age / TICKS_PER_SECOND;
        let pos = flight_position(raw.start, raw.dir, raw.weapon, seconds);
        let before = flight_position(raw.start, raw.dir, raw.weapon, seconds - 0.001);
        world.shots.push(Shot {
            id: *id,
            pos,
            dir: [pos[0] - before[0], pos[1] - before[1]],
            weapon: raw.weapon,
            age,
        });
    }
    for (_, beam, start_tick) in &now.beams {
        world.beams.push(Beam {
            age: tick - f64::from(*start_tick),
            ..*beam
        });
    }
    let mut item_ids: Vec<&u16> = now.items.keys().collect();
    item_ids.sort_unstable();
    for id in item_ids {
        let (Some(cur), Some(old)) = (now.items.get(id), before.items.get(id)) else {
            continue;
        };
        world.items.push(Item {
            pos: mix2(old.pos, cur.pos, intra),
            ..*cur
        });
    }
    let mut flag_ids: Vec<&u16> = now.flags.keys().collect();
    flag_ids.sort_unstable();
    for id in flag_ids {
        let (Some(cur), Some(old)) = (now.flags.get(id), before.flags.get(id)) else {
            continue;
        };
        let mut pos = mix2(old.pos, cur.pos, intra);
        let team = usize::try_from(cur.team).ok().filter(|&t| t < 2);
        let carrier = team.and_then(|t| Some(now.carriers?[t]));
        let old_carrier = team.and_then(|t| Some(before.carriers?[t]));
        if let Some(carrier) = carrier.filter(|&c| c >= 0) {
            if let Some(tee) = world.tee(carrier) {
                pos = tee.pos;
            }
        }
        if carrier != old_carrier {
            pos = cur.pos;
        }
        world.flags.push(FlagView { pos, ..*cur });
    }
    world
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_mix_across_the_wrap() {
        let pi = std::f64::consts::PI;
        // The game's angles run from -pi/2 to 3pi/2 (straight up at both ends): from just left
        // of straight up to just right of it, the mix passes straight up, not straight down.
        let a = ((1.5 * pi - 0.1) * 256.0) as i32;
        let b = ((-0.5 * pi + 0.1) * 256.0) as i32;
        let half = mix_angle(a, b, 0.5);
        assert!((half - 1.5 * pi).abs() < 0.01, "{half}");
        // Elsewhere a plain mix.
        assert!((mix_angle(0, 256, 0.5) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn projectiles_fall_as_the_game_computes() {
        // A grenade fired right: after 0.1 s it has flown 100 units and fallen
        // 7 / 10000 * 100^2 = 7 units.
        let p = flight_position([0.0, 0.0], [1.0, 0.0], Weapon::GRENADE, 0.1);
        assert!(
            (p[0] - 100.0).abs() < 1e-9 && (p[1] - 7.0).abs() < 1e-9,
            "{p:?}"
        );
    }
}
