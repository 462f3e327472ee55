//! The game world at an instant between two snapshots: what the client draws, found in the
//! snapshots' objects and mixed between them as DDNet's client does (docs/format/demo-render.md,
//! "Between two snapshots").

use std::collections::HashMap;

use twcodec::snap::objects::SnapObject;
use twcodec::snap::{Protocol, Snapshot};
use twcodec_schema::netobj::common::{CharacterCore, Emote, HookState, Weapon};
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
    /// The tees, in the order the client draws them: the others, then the local player.
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
    /// The emoticons shown (those of the last [`EMOTICON_TICKS`]).
    pub emoticons: Vec<Emoticon>,
}

impl World {
    /// The tee of client `id`.
    pub fn tee(&self, id: i32) -> Option<&Tee> {
        self.tees.iter().find(|tee| tee.id == id)
    }
}

/// The objects of one snapshot that the world is made of, by id.
#[derive(Debug, Default)]
struct Objects {
    cores: HashMap<u16, (CharacterCore, Weapon, Emote, i32)>,
    ddnet: HashMap<u16, (bool, i32)>,
    players: HashMap<i32, Player>,
    local: Option<i32>,
    teams: HashMap<i32, i32>,
    shots: Vec<(u16, RawShot)>,
    beams: Vec<(u16, Beam, i32)>,
    items: Vec<Item>,
    flags: Vec<FlagView>,
}

/// A projectile as a snapshot has it: where and when it started, and how it flies.
#[derive(Debug, Clone, Copy)]
struct RawShot {
    start: [f64; 2],
    dir: [f64; 2],
    weapon: Weapon,
    start_tick: i32,
}

fn objects(snapshot: &Snapshot, protocol: Protocol) -> Objects {
    let mut out = Objects::default();
    for item in snapshot.objects(protocol) {
        let id = item.key.id();
        match item.object {
            SnapObject::Character(c) => {
                out.cores
                    .insert(id, (c.core, c.weapon, c.emote, c.attack_tick));
            }
            SnapObject::Character7(c) => {
                out.cores
                    .insert(id, (c.core, c.weapon, c.emote, c.attack_tick));
            }
            SnapObject::DdnetCharacter(c) => {
                let frozen = c.flags.is_some_and(|f| f.in_freeze())
                    || c.freeze_end.is_some_and(|end| end != 0);
                out.ddnet.insert(id, (frozen, c.jumped_total.unwrap_or(0)));
            }
            SnapObject::PlayerInfo(p) => {
                if p.local != 0 {
                    out.local = Some(p.client_id);
                }
                out.teams.insert(p.client_id, p.team.0);
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
                let shot = RawShot {
                    start: [f64::from(p.x), f64::from(p.y)],
                    dir: [f64::from(p.vel_x) / 100.0, f64::from(p.vel_y) / 100.0],
                    weapon: p.kind,
                    start_tick: p.start_tick,
                };
                out.shots.push((id, shot));
            }
            SnapObject::DdnetProjectile(p) => {
                let flags = p.flags;
                let (vx, vy) = (f64::from(p.vel_x), f64::from(p.vel_y));
                let dir = if flags.normalize_vel() {
                    let length = vx.hypot(vy);
                    match length > 0.0 {
                        true => [vx / length, vy / length],
                        false => [0.0, 0.0],
                    }
                } else {
                    [vx / 1e6, vy / 1e6]
                };
                let shot = RawShot {
                    start: [f64::from(p.x) / 100.0, f64::from(p.y) / 100.0],
                    dir,
                    weapon: p.kind,
                    start_tick: p.start_tick,
                };
                out.shots.push((id, shot));
            }
            SnapObject::DdraceProjectile(p) => {
                let angle = f64::from(p.angle) / 1e6;
                let shot = RawShot {
                    start: [f64::from(p.x) / 100.0, f64::from(p.y) / 100.0],
                    dir: [angle.cos(), angle.sin()],
                    weapon: p.kind,
                    start_tick: p.start_tick,
                };
                out.shots.push((id, shot));
            }
            SnapObject::Laser(l) | SnapObject::Laser7(l) => {
                let beam = Beam {
                    from: [f64::from(l.from_x), f64::from(l.from_y)],
                    to: [f64::from(l.x), f64::from(l.y)],
                    age: 0.0,
                    kind: 0,
                };
                out.beams.push((id, beam, l.start_tick));
            }
            SnapObject::DdnetLaser(l) => {
                let beam = Beam {
                    from: [f64::from(l.from_x), f64::from(l.from_y)],
                    to: [f64::from(l.to_x), f64::from(l.to_y)],
                    age: 0.0,
                    kind: l.kind.0,
                };
                out.beams.push((id, beam, l.start_tick));
            }
            SnapObject::Pickup(p) => out.items.push(Item {
                pos: [f64::from(p.x), f64::from(p.y)],
                look: pickup_look(p.kind, p.subtype),
                id,
            }),
            SnapObject::DdnetPickup(p) => out.items.push(Item {
                pos: [f64::from(p.x), f64::from(p.y)],
                look: pickup_look(p.kind, p.subtype),
                id,
            }),
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
                out.items.push(Item {
                    pos: [f64::from(p.x), f64::from(p.y)],
                    look,
                    id,
                });
            }
            SnapObject::Flag(f) | SnapObject::Flag7(f) => out.flags.push(FlagView {
                pos: [f64::from(f.x), f64::from(f.y)],
                team: f.team.0,
            }),
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

/// An angle of a character core (radians times 256) mixed the short way round.
fn mix_angle(prev: i32, cur: i32, t: f64) -> f64 {
    let (mut a, b) = (f64::from(prev) / 256.0, f64::from(cur) / 256.0);
    let tau = std::f64::consts::TAU;
    if b - a > std::f64::consts::PI {
        a += tau;
    } else if a - b > std::f64::consts::PI {
        a -= tau;
    }
    mix(a, b, t)
}

/// The tuning that moves projectiles: curvature and speed of the gun, the shotgun and the
/// grenade launcher, as the game's defaults have them.
fn flight(weapon: Weapon) -> (f64, f64) {
    match weapon {
        Weapon::SHOTGUN => (1.25, 2750.0),
        Weapon::GRENADE => (7.0, 1000.0),
        _ => (1.25, 2200.0),
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
/// `intra` (0 at `prev`, 1 at `cur`). Objects are those of `cur`; those also in `prev` are
/// mixed between the two.
pub fn world_between(
    protocol: Protocol,
    prev: Option<(&Snapshot, i32)>,
    cur: (&Snapshot, i32),
    intra: f64,
) -> World {
    let intra = intra.clamp(0.0, 1.0);
    let (cur_snapshot, cur_tick) = cur;
    let now = objects(cur_snapshot, protocol);
    let (before, prev_tick) = match prev {
        Some((snapshot, tick)) => (Some(objects(snapshot, protocol)), tick),
        None => (None, cur_tick),
    };
    let tick = mix(f64::from(prev_tick), f64::from(cur_tick), intra);
    let mut world = World {
        tick,
        local: now.local,
        ..World::default()
    };
    // Tees first without their hooks: a hook on a tee ends where that tee is drawn.
    let mut hooked: Vec<(usize, i32)> = Vec::new();
    let mut ids: Vec<u16> = now.cores.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        let Some(&(core, weapon, emote, attack_tick)) = now.cores.get(&id) else {
            continue;
        };
        let old = before.as_ref().and_then(|b| b.cores.get(&id)).map(|c| c.0);
        let old = old.unwrap_or(core);
        let pos = [
            mix(f64::from(old.x), f64::from(core.x), intra),
            mix(f64::from(old.y), f64::from(core.y), intra),
        ];
        let vel = [
            mix(f64::from(old.vel_x), f64::from(core.vel_x), intra) / 256.0,
            mix(f64::from(old.vel_y), f64::from(core.vel_y), intra) / 256.0,
        ];
        let hook_out = matches!(core.hook_state, HookState::FLYING | HookState::GRABBED)
            || core.hook_state.0 >= HookState::RETRACT_START.0;
        let hook = hook_out.then(|| {
            [
                mix(f64::from(old.hook_x), f64::from(core.hook_x), intra),
                mix(f64::from(old.hook_y), f64::from(core.hook_y), intra),
            ]
        });
        let client = i32::from(id);
        let (frozen, jumped_total) = now.ddnet.get(&id).copied().unwrap_or((false, 0));
        let _ = jumped_total;
        let tee = Tee {
            id: client,
            pos,
            vel,
            angle: mix_angle(old.angle, core.angle, intra),
            direction: core.direction,
            hook,
            weapon,
            emote,
            since_attack: tick - f64::from(attack_tick),
            frozen,
            air_jumped: core.jumped & 2 != 0,
            local: now.local == Some(client),
            player: now.players.get(&client).cloned().unwrap_or_default(),
        };
        if hook.is_some() && core.hooked_player >= 0 && core.hook_state == HookState::GRABBED {
            hooked.push((world.tees.len(), core.hooked_player));
        }
        world.tees.push(tee);
    }
    for (index, target) in hooked {
        if let Some(pos) = world.tee(target).map(|t| t.pos) {
            world.tees[index].hook = Some(pos);
        }
    }
    // The local player is drawn last, over the others.
    world.tees.sort_by_key(|tee| tee.local);
    for (_, raw) in &now.shots {
        let seconds = (tick - f64::from(raw.start_tick)) / TICKS_PER_SECOND;
        let pos = flight_position(raw.start, raw.dir, raw.weapon, seconds);
        let next = flight_position(raw.start, raw.dir, raw.weapon, seconds + 0.001);
        world.shots.push(Shot {
            pos,
            dir: [next[0] - pos[0], next[1] - pos[1]],
            weapon: raw.weapon,
            age: tick - f64::from(raw.start_tick),
        });
    }
    for (_, beam, start_tick) in &now.beams {
        world.beams.push(Beam {
            age: tick - f64::from(*start_tick),
            ..*beam
        });
    }
    world.items = now.items;
    world.flags = now.flags;
    world
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_mix_the_short_way() {
        let pi = std::f64::consts::PI;
        // From just below +pi to just above -pi: through pi, not through 0.
        let a = ((pi - 0.1) * 256.0) as i32;
        let b = ((-pi + 0.1) * 256.0) as i32;
        let half = mix_angle(a, b, 0.5);
        assert!((half.abs() - pi).abs() < 0.01, "{half}");
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
