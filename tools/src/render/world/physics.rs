//! A tee's movement without input, as DDNet's client moves a received character core forward
//! to the snapshot's tick ("evolve").
//!
//! A server sends a character's core again only when it differs from what this simulation
//! predicts, or every 3 seconds; in between, the core in a snapshot keeps the tick it was
//! made at, and the client steps it forward: for each tick after `core.tick` up to the
//! snapshot's, DDNet's `CCharacterCore` (src/game/gamecore.cpp) runs `Tick` without input,
//! `Move`, then `Quantize` (the network's rounding), alone in an empty world and with the
//! default tuning (src/game/tuning.h), so long as the core is at most 150 ticks (3 s) old
//! (`CGameClient::OnNewSnapshot`, the `Evolve` lambda, src/game/client/gameclient.cpp).
//! Without it, falling and sliding tees would hang in the air.
//!
//! What one tick without input does, in DDNet's order and float arithmetic (so that the
//! integers match DDNet's tick for tick):
//! - gravity, then the walking direction the core holds (`direction`): acceleration to the
//!   ground or air speed, or friction when it is 0; standing on ground clears the air-jump
//!   bit (2) of `jumped`;
//! - the hook: retracting states count up to retracted; a flying hook moves by the fire
//!   speed up to the hook length (then retracts), and along its way grabs solid ground, or
//!   retracts on a no-hook tile or a DDNet hook blocker, passes DDNet's hook-through tiles,
//!   and a hook tele-in sends it to the first tele-out of its number; a grabbed hook drags
//!   the tee towards it; a hook on a player lets go (the world holds no other player);
//! - the speed is clamped to 6000, scaled by the velocity ramp for the move, and the 28x28
//!   box moves in steps of at most one unit against solid and no-hook tiles;
//! - position and hook position are rounded to integers, velocity and hook direction to
//!   1/256 (`CCharacterCore::Write`, `Read`).
//!
//! Left out, because DDNet's client leaves them out of this simulation too: other
//! characters (collisions, hooking them), input (jumps, firing the hook, aim), and every
//! tile effect that DDNet applies in its `CCharacter` rather than in the core: death,
//! freeze, stoppers, speedups, teleporters for the tee, tune zones, switches and doors. A
//! core that enters a death tile keeps falling here.

use twcodec::map::{LayerContent, Map};
use twcodec_schema::map::tile::Tile;
use twcodec_schema::netobj::common::{CharacterCore, HookState};

/// How many ticks old a core may be for the client to evolve it (3 s at 50 ticks a second).
pub(crate) const MAX_EVOLVE_TICKS: i64 = 150;

/// A tuning value as DDNet holds it: in hundredths, cut to an integer (`CTuneParam`).
const fn tuned(value: f32) -> f32 {
    ((value * 100.0) as i32) as f32 / 100.0
}

// The default tuning (src/game/tuning.h), as `CTuneParam` stores it.
const GROUND_CONTROL_SPEED: f32 = tuned(10.0);
const GROUND_CONTROL_ACCEL: f32 = tuned(100.0 / 50.0);
const GROUND_FRICTION: f32 = tuned(0.5);
const AIR_CONTROL_SPEED: f32 = tuned(250.0 / 50.0);
const AIR_CONTROL_ACCEL: f32 = tuned(1.5);
const AIR_FRICTION: f32 = tuned(0.95);
const HOOK_LENGTH: f32 = tuned(380.0);
const HOOK_FIRE_SPEED: f32 = tuned(80.0);
const HOOK_DRAG_ACCEL: f32 = tuned(3.0);
const HOOK_DRAG_SPEED: f32 = tuned(15.0);
const GRAVITY: f32 = tuned(0.5);
const VELRAMP_START: f32 = tuned(550.0);
const VELRAMP_RANGE: f32 = tuned(2000.0);
const VELRAMP_CURVATURE: f32 = tuned(1.4);
const GROUND_ELASTICITY_X: f32 = tuned(0.0);
const GROUND_ELASTICITY_Y: f32 = tuned(0.0);

/// The side of a tee's square box, in world units.
const PHYSICAL_SIZE: f32 = 28.0;
/// Beyond this speed (world units a tick) the velocity is scaled down to it.
const MAX_SPEED: f32 = 6000.0;
/// The most points a hook's path is tested at in one tick. DDNet tests one per world unit of
/// the path, which for an honest core is at most the hook length and one tick's flight; a
/// received core can put its hook anywhere, and only paths longer than this are tested more
/// coarsely than DDNet does.
const MAX_LINE_POINTS: i32 = 1 << 16;
/// The most steps of one move; DDNet takes one per world unit, at most `MAX_SPEED` here.
const MAX_MOVE_STEPS: i32 = 1 << 16;

// Game tile ids (DDNet src/game/mapitems.h).
const TILE_SOLID: u8 = 1;
const TILE_NOHOOK: u8 = 3;
const TILE_NOLASER: u8 = 4;
const TILE_THROUGH_CUT: u8 = 5;
const TILE_THROUGH: u8 = 6;
const TILE_TELEINHOOK: u8 = 15;
const TILE_TELEOUT: u8 = 27;
const TILE_THROUGH_ALL: u8 = 66;
const TILE_THROUGH_DIR: u8 = 67;
// Tile flags of the four rotations of a directed tile.
const ROTATION_0: u8 = 0;
const ROTATION_90: u8 = 8;
const ROTATION_180: u8 = 3;
const ROTATION_270: u8 = 11;

/// A point or a velocity, in `f32` as DDNet's `vec2`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Vec2 {
    x: f32,
    y: f32,
}

impl Vec2 {
    const fn new(x: f32, y: f32) -> Vec2 {
        Vec2 { x, y }
    }

    fn add(self, other: Vec2) -> Vec2 {
        Vec2::new(self.x + other.x, self.y + other.y)
    }

    fn sub(self, other: Vec2) -> Vec2 {
        Vec2::new(self.x - other.x, self.y - other.y)
    }

    fn scale(self, factor: f32) -> Vec2 {
        Vec2::new(self.x * factor, self.y * factor)
    }

    fn length(self) -> f32 {
        (self.x * self.x + self.y * self.y).sqrt()
    }

    fn distance(self, other: Vec2) -> f32 {
        self.sub(other).length()
    }

    /// The unit vector (DDNet multiplies by the inverse length); zero stays zero.
    fn normalize(self) -> Vec2 {
        let length = self.length();
        if length == 0.0 {
            return Vec2::default();
        }
        let inverse = 1.0 / length;
        Vec2::new(self.x * inverse, self.y * inverse)
    }

    /// The point a fraction `t` of the way from `self` to `to`.
    fn mix(self, to: Vec2, t: f32) -> Vec2 {
        self.add(to.sub(self).scale(t))
    }
}

/// DDNet's rounding to the nearest integer, halves away from zero (`round_to_int`); out of
/// range values saturate.
fn round_to_int(value: f32) -> i32 {
    if value > 0.0 {
        (value + 0.5) as i32
    } else {
        (value - 0.5) as i32
    }
}

/// Adds `modifier` without passing the bound it moves towards, leaving a value already past
/// it as it is (DDNet `SaturatedAdd`).
fn saturated_add(min: f32, max: f32, current: f32, modifier: f32) -> f32 {
    if modifier < 0.0 {
        if current < min {
            return current;
        }
        (current + modifier).max(min)
    } else {
        if current > max {
            return current;
        }
        (current + modifier).min(max)
    }
}

/// How much of the horizontal speed a move uses at a speed of `value` units a second
/// (DDNet `VelocityRamp`).
fn velocity_ramp(value: f32, start: f32, range: f32, curvature: f32) -> f32 {
    if value < start {
        return 1.0;
    }
    1.0 / curvature.powf((value - start) / range)
}

/// The tiles of a map that a tee and its hook collide with: the game layer, DDNet's front
/// layer (hook-through tiles and hook blockers) and its tele layer (hook tele-ins and
/// tele-outs), as DDNet's `CCollision` (src/game/collision.cpp) reads them. A map without a
/// game layer (or with an empty one) has nothing to collide with.
#[derive(Debug, Clone, Default)]
pub struct Collision {
    width: i32,
    height: i32,
    /// `width * height` game tiles, row by row; empty without a game layer.
    game: Vec<Tile>,
    /// The front layer's tiles, when it has the game layer's size.
    front: Option<Vec<Tile>>,
    /// Each tile's hook tele-in number (0: none), when the tele layer has the game layer's
    /// size and holds hook tele-ins.
    hook_tele: Option<Vec<u8>>,
    /// The first tele-out of each number (index `number - 1`), the one DDNet's client sends
    /// a hook to (its empty world's random choice is always the first).
    tele_out: Vec<Option<Vec2>>,
}

impl Collision {
    /// The collision of `map`: its game layer, and DDNet's front and tele layers (the last
    /// of each kind, as DDNet takes them) when they have the game layer's size.
    pub fn new(map: &Map) -> Collision {
        let Some(grid) = map.game_layer().and_then(|(_, layer)| layer.grid()) else {
            return Collision::default();
        };
        let (Ok(width), Ok(height)) = (i32::try_from(grid.width()), i32::try_from(grid.height()))
        else {
            return Collision::default();
        };
        if width == 0 || height == 0 {
            return Collision::default();
        }
        let same_size = |w: usize, h: usize| w == grid.width() && h == grid.height();
        let mut front = None;
        let mut tele = None;
        for layer in map.layers() {
            match layer.content() {
                LayerContent::Front(layer) => front = layer.grid(),
                LayerContent::Tele(layer) => tele = layer.grid(),
                _ => {}
            }
        }
        let front = front
            .filter(|g| same_size(g.width(), g.height()))
            .map(|g| g.tiles().to_vec());
        let mut hook_tele = None;
        let mut tele_out = Vec::new();
        if let Some(tele) = tele.filter(|g| same_size(g.width(), g.height())) {
            let numbers: Vec<u8> = (tele.tiles().iter())
                .map(|t| if t.id == TILE_TELEINHOOK { t.number } else { 0 })
                .collect();
            if numbers.iter().any(|&n| n != 0) {
                hook_tele = Some(numbers);
            }
            tele_out = vec![None; 255];
            for (index, t) in tele.tiles().iter().enumerate() {
                if t.id != TILE_TELEOUT || t.number == 0 {
                    continue;
                }
                let slot = &mut tele_out[usize::from(t.number - 1)];
                if slot.is_none() {
                    // DDNet: the tile's centre, from its index in `int` and `float`.
                    let column = (index % grid.width()) as f32;
                    let row = (index / grid.width()) as f32;
                    *slot = Some(Vec2::new(column * 32.0 + 16.0, row * 32.0 + 16.0));
                }
            }
        }
        Collision {
            width,
            height,
            game: grid.tiles().to_vec(),
            front,
            hook_tele,
            tele_out,
        }
    }

    /// The index of the tile under integer world coordinates, clamped into the map
    /// (coordinates divided by 32 rounding towards zero, as in C).
    fn index(&self, x: i32, y: i32) -> usize {
        let column = (x / 32).clamp(0, (self.width - 1).max(0));
        let row = (y / 32).clamp(0, (self.height - 1).max(0));
        // Both are in range and not negative.
        row as usize * self.width as usize + column as usize
    }

    /// The index of the tile under a point (DDNet `GetPureMapIndex`).
    fn pure_index(&self, x: f32, y: f32) -> usize {
        self.index(round_to_int(x), round_to_int(y))
    }

    /// The game tile under integer coordinates when it is one of the collision tiles (solid,
    /// death, no-hook, no-laser), else 0 (DDNet `GetTile`).
    fn tile(&self, x: i32, y: i32) -> u8 {
        if self.game.is_empty() {
            return 0;
        }
        let id = self.game.get(self.index(x, y)).map_or(0, |t| t.id);
        if (TILE_SOLID..=TILE_NOLASER).contains(&id) {
            id
        } else {
            0
        }
    }

    /// The collision tile under a point (DDNet `GetCollisionAt`).
    fn collision_at(&self, x: f32, y: f32) -> u8 {
        self.tile(round_to_int(x), round_to_int(y))
    }

    /// Whether a point is in a solid or no-hook tile (DDNet `CheckPoint`).
    fn check_point(&self, x: f32, y: f32) -> bool {
        matches!(self.collision_at(x, y), TILE_SOLID | TILE_NOHOOK)
    }

    fn game_tile(&self, index: usize) -> Tile {
        self.game.get(index).copied().unwrap_or_default()
    }

    fn front_tile(&self, index: usize) -> Option<Tile> {
        self.front.as_ref().and_then(|f| f.get(index).copied())
    }

    /// Whether a hook passes a solid tile at `(x, y)` on its way from `from` to `to`: a front
    /// hook-through tile there, or a hook-through tile behind it (DDNet `IsThrough`).
    fn is_through(&self, x: i32, y: i32, offset: (i32, i32), from: Vec2, to: Vec2) -> bool {
        let index = self.pure_index(x as f32, y as f32);
        if let Some(front) = self.front_tile(index) {
            if front.id == TILE_THROUGH_ALL || front.id == TILE_THROUGH_CUT {
                return true;
            }
            if front.id == TILE_THROUGH_DIR && directed_through(front.flags, from, to) {
                return true;
            }
        }
        let behind = self.pure_index(
            x.wrapping_add(offset.0) as f32,
            y.wrapping_add(offset.1) as f32,
        );
        self.game_tile(behind).id == TILE_THROUGH
            || self
                .front_tile(behind)
                .is_some_and(|t| t.id == TILE_THROUGH)
    }

    /// Whether a tile that is not solid stops a hook as no-hook would (DDNet
    /// `IsHookBlocker`).
    fn is_hook_blocker(&self, x: i32, y: i32, from: Vec2, to: Vec2) -> bool {
        let index = self.pure_index(x as f32, y as f32);
        let game = self.game_tile(index);
        let front = self.front_tile(index);
        if game.id == TILE_THROUGH_ALL || front.is_some_and(|t| t.id == TILE_THROUGH_ALL) {
            return true;
        }
        let blocks = |t: Tile| t.id == TILE_THROUGH_DIR && directed_blocker(t.flags, from, to);
        blocks(game) || front.is_some_and(blocks)
    }

    /// The first tele-out of a tele number (1 to 255), where a hook is sent on.
    fn tele_out(&self, number: u8) -> Option<Vec2> {
        let index = usize::from(number).checked_sub(1)?;
        self.tele_out.get(index).copied().flatten()
    }

    /// The hook tele-in number of a tile, 0 for none (DDNet `IsTeleportHook`).
    fn hook_tele(&self, index: usize) -> u8 {
        (self.hook_tele.as_ref())
            .and_then(|t| t.get(index).copied())
            .unwrap_or(0)
    }

    /// The first point of the path from `from` to `to` where a hook hits something, tested
    /// one world unit apart (DDNet `IntersectLineTeleHook`): what it hit (a collision tile
    /// id, or `TILE_TELEINHOOK`), the point, and the tele number; `(0, to, 0)` when nothing.
    fn intersect_hook(&self, from: Vec2, to: Vec2) -> (u8, Vec2, u8) {
        if self.game.is_empty() {
            return (0, to, 0);
        }
        let distance = from.distance(to);
        let end = ((distance + 1.0) as i32).clamp(0, MAX_LINE_POINTS);
        let offset = through_offset(from, to);
        for i in 0..=end {
            let t = i as f32 / end as f32;
            let point = from.mix(to, t);
            let x = round_to_int(point.x);
            let y = round_to_int(point.y);
            let tele = self.hook_tele(self.pure_index(point.x, point.y));
            if tele != 0 {
                return (TILE_TELEINHOOK, point, tele);
            }
            let hit = if self.check_point(x as f32, y as f32) {
                if self.is_through(x, y, offset, from, to) {
                    0
                } else {
                    self.collision_at(x as f32, y as f32)
                }
            } else if self.is_hook_blocker(x, y, from, to) {
                TILE_NOHOOK
            } else {
                0
            };
            if hit != 0 {
                return (hit, point, 0);
            }
        }
        (0, to, 0)
    }

    /// Whether a box of `size` centred at `pos` touches a solid tile with a corner (DDNet
    /// `TestBox`).
    fn test_box(&self, pos: Vec2, size: Vec2) -> bool {
        let half = size.scale(0.5);
        self.check_point(pos.x - half.x, pos.y - half.y)
            || self.check_point(pos.x + half.x, pos.y - half.y)
            || self.check_point(pos.x - half.x, pos.y + half.y)
            || self.check_point(pos.x + half.x, pos.y + half.y)
    }

    /// Whether a tee at `pos` stands on something (DDNet `IsOnGround`).
    fn is_on_ground(&self, pos: Vec2, size: f32) -> bool {
        self.check_point(pos.x + size / 2.0, pos.y + size / 2.0 + 5.0)
            || self.check_point(pos.x - size / 2.0, pos.y + size / 2.0 + 5.0)
    }

    /// Moves a box by its velocity in equal steps of at most one world unit, stopping (or
    /// bouncing by the elasticity) on each axis that would enter a solid tile (DDNet
    /// `MoveBox`).
    fn move_box(&self, pos: &mut Vec2, vel: &mut Vec2, size: Vec2, elasticity: Vec2) {
        let distance = vel.length();
        if distance <= 0.00001 {
            return;
        }
        let max = (distance as i32).clamp(0, MAX_MOVE_STEPS);
        let fraction = 1.0 / (max + 1) as f32;
        let elasticity_x = elasticity.x.clamp(-1.0, 1.0);
        let elasticity_y = elasticity.y.clamp(-1.0, 1.0);
        let mut p = *pos;
        let mut v = *vel;
        for _ in 0..=max {
            if v == Vec2::default() {
                break;
            }
            let mut next = p.add(v.scale(fraction));
            if next == p {
                break;
            }
            if self.test_box(next, size) {
                let mut hits = 0;
                if self.test_box(Vec2::new(p.x, next.y), size) {
                    next.y = p.y;
                    v.y *= -elasticity_y;
                    hits += 1;
                }
                if self.test_box(Vec2::new(next.x, p.y), size) {
                    next.x = p.x;
                    v.x *= -elasticity_x;
                    hits += 1;
                }
                if hits == 0 {
                    // Only the corner is in the way.
                    next.y = p.y;
                    v.y *= -elasticity_y;
                    next.x = p.x;
                    v.x *= -elasticity_x;
                }
            }
            p = next;
        }
        *pos = p;
        *vel = v;
    }
}

/// The tile behind a hit along the main axis of a hook's path, for hook-through tiles
/// (DDNet `ThroughOffset`).
fn through_offset(from: Vec2, to: Vec2) -> (i32, i32) {
    let x = from.x - to.x;
    let y = from.y - to.y;
    if x.abs() > y.abs() {
        if x < 0.0 {
            (-32, 0)
        } else {
            (32, 0)
        }
    } else if y < 0.0 {
        (0, -32)
    } else {
        (0, 32)
    }
}

/// Whether a directed front hook-through tile lets a hook pass going from `from` to `to`.
fn directed_through(flags: u8, from: Vec2, to: Vec2) -> bool {
    (flags == ROTATION_0 && from.y > to.y)
        || (flags == ROTATION_90 && from.x < to.x)
        || (flags == ROTATION_180 && from.y < to.y)
        || (flags == ROTATION_270 && from.x > to.x)
}

/// Whether a directed hook-through tile blocks a hook going from `from` to `to` (the other
/// way).
fn directed_blocker(flags: u8, from: Vec2, to: Vec2) -> bool {
    (flags == ROTATION_0 && from.y < to.y)
        || (flags == ROTATION_90 && from.x > to.x)
        || (flags == ROTATION_180 && from.y > to.y)
        || (flags == ROTATION_270 && from.x < to.x)
}

/// A character core in DDNet's floats (`CCharacterCore`), with the state a run of ticks
/// keeps that the network form has not.
#[derive(Debug, Clone)]
struct Core {
    pos: Vec2,
    vel: Vec2,
    hook_pos: Vec2,
    hook_dir: Vec2,
    /// Where a hook that went through a hook tele-in measures its length from.
    hook_tele_base: Vec2,
    hook_tick: i32,
    hook_state: i32,
    hooked_player: i32,
    jumped: i32,
    direction: i32,
    angle: i32,
    /// The hook went through a hook tele-in while flying.
    new_hook: bool,
}

impl Core {
    /// The core of a network object (DDNet `CCharacterCore::Read`).
    fn read(core: &CharacterCore) -> Core {
        Core {
            pos: Vec2::new(core.x as f32, core.y as f32),
            vel: Vec2::new(core.vel_x as f32 / 256.0, core.vel_y as f32 / 256.0),
            hook_pos: Vec2::new(core.hook_x as f32, core.hook_y as f32),
            hook_dir: Vec2::new(core.hook_dx as f32 / 256.0, core.hook_dy as f32 / 256.0),
            hook_tele_base: Vec2::default(),
            hook_tick: core.hook_tick,
            hook_state: core.hook_state.0,
            hooked_player: core.hooked_player,
            jumped: core.jumped,
            direction: core.direction,
            angle: core.angle,
            new_hook: false,
        }
    }

    /// The network object of the core at `tick` (DDNet `CCharacterCore::Write`).
    fn write(&self, tick: i32) -> CharacterCore {
        CharacterCore {
            tick,
            x: round_to_int(self.pos.x),
            y: round_to_int(self.pos.y),
            vel_x: round_to_int(self.vel.x * 256.0),
            vel_y: round_to_int(self.vel.y * 256.0),
            angle: self.angle,
            direction: self.direction,
            jumped: self.jumped,
            hooked_player: self.hooked_player,
            hook_state: HookState(self.hook_state),
            hook_tick: self.hook_tick,
            hook_x: round_to_int(self.hook_pos.x),
            hook_y: round_to_int(self.hook_pos.y),
            hook_dx: round_to_int(self.hook_dir.x * 256.0),
            hook_dy: round_to_int(self.hook_dir.y * 256.0),
        }
    }

    /// Rounds the state as the network does (DDNet `Quantize`: `Write`, then `Read`).
    fn quantize(&mut self) {
        let rounded = Core::read(&self.write(0));
        self.pos = rounded.pos;
        self.vel = rounded.vel;
        self.hook_pos = rounded.hook_pos;
        self.hook_dir = rounded.hook_dir;
    }

    /// One tick without input, alone in the world (DDNet `CCharacterCore::Tick(false)` and
    /// its deferred part).
    fn tick(&mut self, collision: &Collision) {
        let grounded = collision.is_on_ground(self.pos, PHYSICAL_SIZE);
        self.vel.y += GRAVITY;
        let (max_speed, accel, friction) = if grounded {
            (GROUND_CONTROL_SPEED, GROUND_CONTROL_ACCEL, GROUND_FRICTION)
        } else {
            (AIR_CONTROL_SPEED, AIR_CONTROL_ACCEL, AIR_FRICTION)
        };
        if grounded {
            self.jumped &= !2;
        }
        if self.direction < 0 {
            self.vel.x = saturated_add(-max_speed, max_speed, self.vel.x, -accel);
        }
        if self.direction > 0 {
            self.vel.x = saturated_add(-max_speed, max_speed, self.vel.x, accel);
        }
        if self.direction == 0 {
            self.vel.x *= friction;
        }

        match HookState(self.hook_state) {
            HookState::IDLE => {
                self.hooked_player = -1;
                self.hook_pos = self.pos;
            }
            HookState::RETRACT_START | HookState::RETRACTING => self.hook_state += 1,
            HookState::RETRACT_END => self.hook_state = HookState::RETRACTED.0,
            HookState::FLYING => self.fly_hook(collision),
            _ => {}
        }
        if self.hook_state == HookState::GRABBED.0 {
            self.pull_hook();
        }

        // The deferred part: no other character to push or drag.
        if self.hook_state != HookState::FLYING.0 {
            self.new_hook = false;
        }
        if self.vel.length() > MAX_SPEED {
            self.vel = self.vel.normalize().scale(MAX_SPEED);
        }
    }

    /// A flying hook's tick.
    fn fly_hook(&mut self, collision: &Collision) {
        let base = if self.new_hook {
            self.hook_tele_base
        } else {
            self.pos
        };
        let mut next = self.hook_pos.add(self.hook_dir.scale(HOOK_FIRE_SPEED));
        if base.distance(next) > HOOK_LENGTH {
            self.hook_state = HookState::RETRACT_START.0;
            next = base.add(next.sub(base).normalize().scale(HOOK_LENGTH));
        }
        let (hit, point, tele) = collision.intersect_hook(self.hook_pos, next);
        let next = point;
        // No player to catch; only a hook still flying acts on what it hit.
        if self.hook_state != HookState::FLYING.0 {
            return;
        }
        match hit {
            0 | TILE_TELEINHOOK => {}
            TILE_NOHOOK => self.hook_state = HookState::RETRACT_START.0,
            _ => self.hook_state = HookState::GRABBED.0,
        }
        let out = match hit {
            TILE_TELEINHOOK => collision.tele_out(tele),
            _ => None,
        };
        if let Some(out) = out {
            // Sent on from the tele-out, in the aim direction: none without input.
            self.hooked_player = -1;
            self.new_hook = true;
            self.hook_pos = out;
            self.hook_dir = Vec2::default();
            self.hook_tele_base = out;
        } else {
            self.hook_pos = next;
        }
    }

    /// A grabbed hook's tick.
    fn pull_hook(&mut self) {
        if self.hooked_player != -1 {
            // The player it holds is not in this world: let go.
            self.hooked_player = -1;
            self.hook_state = HookState::RETRACTED.0;
            self.hook_pos = self.pos;
        }
        if self.hook_pos.distance(self.pos) > 46.0 {
            let mut pull = self
                .hook_pos
                .sub(self.pos)
                .normalize()
                .scale(HOOK_DRAG_ACCEL);
            // Stronger up than down, to climb onto platforms.
            if pull.y > 0.0 {
                pull.y *= 0.3;
            }
            // Stronger when walking the same way.
            if (pull.x < 0.0 && self.direction < 0) || (pull.x > 0.0 && self.direction > 0) {
                pull.x *= 0.95;
            } else {
                pull.x *= 0.75;
            }
            let vel = self.vel.add(pull);
            let speed = vel.length();
            if speed < HOOK_DRAG_SPEED || speed < self.vel.length() {
                self.vel = vel;
            }
        }
        self.hook_tick = self.hook_tick.wrapping_add(1);
    }

    /// The move of a tick (DDNet `CCharacterCore::Move`, alone in the world).
    fn do_move(&mut self, collision: &Collision) {
        let ramp = velocity_ramp(
            self.vel.length() * 50.0,
            VELRAMP_START,
            VELRAMP_RANGE,
            VELRAMP_CURVATURE,
        );
        self.vel.x *= ramp;
        // DDNet's move also tells whether the box landed, but only when the ground is
        // elastic (not by default), and then walks the path against other players (none).
        let mut pos = self.pos;
        collision.move_box(
            &mut pos,
            &mut self.vel,
            Vec2::new(PHYSICAL_SIZE, PHYSICAL_SIZE),
            Vec2::new(GROUND_ELASTICITY_X, GROUND_ELASTICITY_Y),
        );
        self.vel.x *= 1.0 / ramp;
        self.pos = pos;
    }
}

/// The core moved forward to `to_tick` as DDNet's client evolves a received core: one tick
/// without input, a move and the network's rounding for each tick after `core.tick`. The
/// core as it is when its tick is 0 (not set), when `to_tick` is not after it, or when it
/// is more than [`MAX_EVOLVE_TICKS`] older (the client leaves those alone).
pub(crate) fn evolve(core: &CharacterCore, collision: &Collision, to_tick: i32) -> CharacterCore {
    let span = i64::from(to_tick) - i64::from(core.tick);
    if core.tick == 0 || span <= 0 || span > MAX_EVOLVE_TICKS {
        return *core;
    }
    let mut state = Core::read(core);
    for _ in 0..span {
        state.tick(collision);
        state.do_move(collision);
        state.quantize();
    }
    state.write(to_tick)
}

#[cfg(test)]
mod tests {
    use super::*;
    use twcodec::map::{Grid, Layer, NewGroup};
    use twcodec_schema::map::tile::Tele;

    /// The test map (`tests/fixtures/physics/map.txt`, one character a tile); its characters
    /// are those of `harness.cpp` there.
    const MAP: &str = include_str!("../../../../tests/fixtures/physics/map.txt");
    /// What DDNet's own `CCharacterCore` made of each scenario on that map, step by step
    /// (`tests/fixtures/physics/regenerate.sh`): the name, the step, then the 16 ints of the
    /// core (the tick, then the fields in `CharacterCore`'s order).
    const CORES: &str = include_str!("../../../../tests/fixtures/physics/cores.txt");

    /// A map character's game tile, front tile and tele tile (number, id).
    fn tile_of(c: char) -> (u8, u8, (u8, u8)) {
        match c {
            '#' => (TILE_SOLID, 0, (0, 0)),
            'x' => (2, 0, (0, 0)),
            'n' => (TILE_NOHOOK, 0, (0, 0)),
            'c' => (TILE_SOLID, TILE_THROUGH_CUT, (0, 0)),
            'a' => (0, TILE_THROUGH_ALL, (0, 0)),
            'h' => (0, 0, (1, TILE_TELEINHOOK)),
            'o' => (0, 0, (1, TILE_TELEOUT)),
            'u' => (TILE_SOLID, TILE_THROUGH_DIR, (0, 0)),
            't' => (TILE_THROUGH, 0, (0, 0)),
            'v' => (TILE_THROUGH_DIR, 0, (0, 0)),
            _ => (0, 0, (0, 0)),
        }
    }

    fn tile(id: u8) -> Tile {
        Tile {
            id,
            ..Tile::default()
        }
    }

    /// The test map built with the editing API: game, front and tele layers.
    fn test_map() -> Map {
        let rows: Vec<&str> = MAP.lines().filter(|l| !l.is_empty()).collect();
        let (width, height) = (rows[0].len(), rows.len());
        let cells: Vec<_> = rows.iter().flat_map(|r| r.chars()).map(tile_of).collect();
        let game = cells.iter().map(|c| tile(c.0)).collect();
        let front = cells.iter().map(|c| tile(c.1)).collect();
        let tele = (cells.iter())
            .map(|c| Tele {
                number: c.2 .0,
                id: c.2 .1,
            })
            .collect();
        let mut map = twcodec_testkit::sample::empty_map().unwrap();
        let group = map.add_group(NewGroup::new("Game")).unwrap();
        let grid = |tiles| Grid::new(width, height, tiles).unwrap();
        map.add_layer(group, Layer::new_game(grid(game)).unwrap())
            .unwrap();
        map.add_layer(group, Layer::new_front(grid(front)).unwrap())
            .unwrap();
        let tele = Grid::new(width, height, tele).unwrap();
        map.add_layer(group, Layer::new_tele(tele).unwrap())
            .unwrap();
        map
    }

    fn core_of(ints: &[i32]) -> CharacterCore {
        CharacterCore {
            tick: ints[0],
            x: ints[1],
            y: ints[2],
            vel_x: ints[3],
            vel_y: ints[4],
            angle: ints[5],
            direction: ints[6],
            jumped: ints[7],
            hooked_player: ints[8],
            hook_state: HookState(ints[9]),
            hook_tick: ints[10],
            hook_x: ints[11],
            hook_y: ints[12],
            hook_dx: ints[13],
            hook_dy: ints[14],
        }
    }

    /// The scenarios of `cores.txt`: name, then the core at each step from 0.
    fn scenarios() -> Vec<(String, Vec<CharacterCore>)> {
        let mut out: Vec<(String, Vec<CharacterCore>)> = Vec::new();
        for line in CORES.lines().filter(|l| !l.is_empty()) {
            let mut words = line.split_whitespace();
            let name = words.next().unwrap().to_string();
            let ints: Vec<i32> = words.map(|w| w.parse().unwrap()).collect();
            assert_eq!(ints.len(), 16, "{line}");
            let core = core_of(&ints[1..]);
            match out.last_mut() {
                Some((last, cores)) if *last == name => {
                    assert_eq!(ints[0] as usize, cores.len(), "{line}");
                    cores.push(core);
                }
                _ => {
                    assert_eq!(ints[0], 0, "{line}");
                    out.push((name, vec![core]));
                }
            }
        }
        out
    }

    #[test]
    fn matches_ddnet_tick_for_tick() {
        let collision = Collision::new(&test_map());
        let scenarios = scenarios();
        assert_eq!(scenarios.len(), 30);
        let mut wrong = Vec::new();
        for (name, cores) in &scenarios {
            let start = cores[0];
            for (step, expected) in cores.iter().enumerate().skip(1) {
                let got = evolve(&start, &collision, expected.tick);
                if got != *expected {
                    wrong.push(format!("{name} step {step}:\n  {got:?}\n  {expected:?}"));
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// The scenarios do what their names say (so that the expectations test those cases).
    #[test]
    fn scenarios_cover_the_cases() {
        let scenarios = scenarios();
        let run = |name: &str| {
            let (_, cores) = scenarios.iter().find(|(n, _)| n == name).unwrap();
            cores.clone()
        };
        let states =
            |name: &str| -> Vec<i32> { run(name).iter().map(|c| c.hook_state.0).collect() };
        // Landing: falls, then rests on the floor (top at 640).
        let fall = run("fall_to_ground");
        assert!(fall[20].vel_y > 0 && fall.last().unwrap().y == 625);
        // Walking reaches the ground speed (10 a tick); sliding stops.
        assert_eq!(run("walk_right").last().unwrap().vel_x, 10 * 256);
        assert!(run("slide_to_stop").last().unwrap().vel_x.abs() <= 1);
        // The jump goes up and comes back down; the air-jump bit clears on the ground.
        let jump = run("jump_arc");
        assert!(jump.iter().any(|c| c.y < 480) && jump.last().unwrap().y == 625);
        assert_eq!(jump[1].jumped, 1);
        // The wall stops the walk (wall from x 992).
        assert_eq!(run("walk_into_wall").last().unwrap().x, 992 - 15);
        // Hooks: grab and pull up; retract on no-hook and on a blocker; the length limit.
        let pull = states("hook_up_grab_pull");
        assert!(pull.contains(&HookState::GRABBED.0));
        assert!(run("hook_up_grab_pull").last().unwrap().y < 500);
        // The diagonal hook grabs the wall (x 992) and pulls the walking tee to it.
        let diagonal = run("hook_diagonal_grab");
        assert!(diagonal
            .iter()
            .any(|c| c.hook_state == HookState::GRABBED && c.hook_x == 992));
        assert!(diagonal.last().unwrap().x > 950);
        assert!(states("hook_through_cut").contains(&HookState::GRABBED.0));
        assert!(run("hook_through_cut").iter().any(|c| c.hook_y < 300));
        // Through a solid tile with a front directed hook-through, and one with a game
        // hook-through under it, to the solid above (bottom at 448).
        for name in ["hook_through_dir", "hook_through_behind"] {
            let grabbed = run(name)
                .into_iter()
                .find(|c| c.hook_state == HookState::GRABBED);
            assert_eq!(grabbed.map(|c| c.hook_y), Some(447), "{name}");
        }
        for name in [
            "hook_nohook_retract",
            "hook_through_all",
            "hook_max_length",
            "hook_dir_blocker_down",
        ] {
            let s = states(name);
            assert!(
                s.contains(&HookState::RETRACT_START.0) && s.contains(&HookState::RETRACTED.0),
                "{name}"
            );
        }
        let tele = run("hook_tele");
        assert!(tele.iter().any(|c| (c.hook_x, c.hook_y) == (1296, 336)));
    }

    fn core(x: i32, y: i32) -> CharacterCore {
        CharacterCore {
            tick: 1000,
            x,
            y,
            vel_x: 0,
            vel_y: 0,
            angle: 0,
            direction: 0,
            jumped: 0,
            hooked_player: -1,
            hook_state: HookState::IDLE,
            hook_tick: 0,
            hook_x: x,
            hook_y: y,
            hook_dx: 0,
            hook_dy: 0,
        }
    }

    #[test]
    fn evolves_only_what_the_client_evolves() {
        let collision = Collision::new(&test_map());
        let falling = core(950, 100);
        // Not set, not later, too old: as it is.
        let unset = CharacterCore { tick: 0, ..falling };
        assert_eq!(evolve(&unset, &collision, 50), unset);
        assert_eq!(evolve(&falling, &collision, 1000), falling);
        assert_eq!(evolve(&falling, &collision, 999), falling);
        assert_eq!(evolve(&falling, &collision, 1151), falling);
        assert_eq!(evolve(&falling, &collision, i32::MIN), falling);
        let late = CharacterCore {
            tick: i32::MAX,
            ..falling
        };
        assert_eq!(evolve(&late, &collision, i32::MIN), late);
        // 150 ticks are evolved, to the tick asked for.
        let moved = evolve(&falling, &collision, 1150);
        assert_eq!(moved.tick, 1150);
        assert!(moved.y > falling.y);
    }

    #[test]
    fn tuning_as_ddnet_stores_it() {
        assert_eq!(AIR_FRICTION, 0.95);
        assert_eq!(VELRAMP_CURVATURE, 1.4);
        assert_eq!(GROUND_CONTROL_ACCEL, 2.0);
        assert_eq!(AIR_CONTROL_SPEED, 5.0);
        assert_eq!(HOOK_LENGTH, 380.0);
        assert_eq!(GROUND_ELASTICITY_Y, 0.0);
        // A value cut by the hundredths.
        assert_eq!(tuned(0.123), 0.12);
    }

    #[test]
    fn no_game_layer_no_collision() {
        let empty = twcodec_testkit::sample::empty_map().unwrap();
        let collision = Collision::new(&empty);
        assert!(collision.game.is_empty());
        assert!(!collision.check_point(0.0, 0.0));
        // A tee falls freely and its hook flies to its length.
        let mut flying = core(0, 0);
        flying.hook_state = HookState::FLYING;
        flying.hook_dy = -256;
        let later = evolve(&flying, &collision, 1010);
        assert!(later.y > 0);
        assert_eq!(later.hook_state, HookState::RETRACTED);
    }

    /// Hostile cores on hostile maps: nothing panics, every run ends (quickly).
    #[test]
    fn hostile_cores_and_maps() {
        let mut maps = vec![Collision::new(&test_map()), Collision::default()];
        // A 1x1 map of one solid tile, and one of a hook tele-in without a tele-out.
        let mut one = twcodec_testkit::sample::empty_map().unwrap();
        let group = one.add_group(NewGroup::new("Game")).unwrap();
        let grid = Grid::new(1, 1, vec![tile(TILE_SOLID)]).unwrap();
        one.add_layer(group, Layer::new_game(grid).unwrap())
            .unwrap();
        maps.push(Collision::new(&one));
        let mut tele = Collision::new(&one);
        tele.game = vec![tile(0)];
        tele.hook_tele = Some(vec![7]);
        tele.tele_out = vec![None; 255];
        maps.push(tele);

        let extremes = [i32::MIN, -1, 0, 1_000_000, i32::MAX];
        let started = std::time::Instant::now();
        for collision in &maps {
            for &a in &extremes {
                for &b in &extremes {
                    for state in [-1, 0, 1, 4, 5, 6, i32::MIN] {
                        let hostile = CharacterCore {
                            tick: 1,
                            x: a,
                            y: b,
                            vel_x: b,
                            vel_y: a,
                            angle: a,
                            direction: b,
                            jumped: a,
                            hooked_player: b,
                            hook_state: HookState(state),
                            hook_tick: i32::MAX,
                            hook_x: b,
                            hook_y: a,
                            hook_dx: a,
                            hook_dy: b,
                        };
                        assert_eq!(evolve(&hostile, collision, 31).tick, 31);
                    }
                }
            }
            // The longest runs: 150 ticks of the fastest fall, of a hook flying in from
            // far away, and of one held far away.
            let mut fast = core(0, 0);
            fast.vel_y = i32::MAX;
            let mut far = core(0, 0);
            (far.hook_state, far.hook_x, far.hook_y) = (HookState::FLYING, i32::MAX, i32::MIN);
            (far.hook_dx, far.hook_dy) = (i32::MIN, i32::MAX);
            let mut held = far;
            held.hook_state = HookState::GRABBED;
            for hostile in [fast, far, held] {
                assert_eq!(evolve(&hostile, collision, 1150).tick, 1150);
            }
        }
        // Long hook paths are tested at a bounded number of points; a move has at most
        // 6000 steps.
        assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
    }

    /// The corpus demos (`$TWCODEC_CORPUS/demos`, default `../shared/corpus` beside the
    /// project): where a server sent a core again after 3 s without a difference from its own
    /// prediction, the core it sent is the one evolved from the one before, but for the aim
    /// angle (an input, sent whenever it changes). Skipped without the corpus.
    #[test]
    fn corpus_demos_agree_with_servers() {
        use twcodec::demo::Demo;
        use twcodec::snap::SnapObject;

        let dir = std::env::var_os("TWCODEC_CORPUS")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
            })
            .join("demos");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "no corpus");
            eprintln!("skipped: no corpus demos at {}", dir.display());
            return;
        };
        let mut paths: Vec<_> = (entries.flatten())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "demo"))
            .collect();
        paths.sort();
        let mut checked = 0;
        for path in paths {
            let demo = Demo::open(&path).unwrap();
            let collision = Collision::new(&demo.map().unwrap());
            let mut last = std::collections::HashMap::new();
            for frame in demo.replay() {
                let Some(snapshot) = frame.unwrap().snapshot else {
                    continue;
                };
                for item in snapshot.objects(demo.protocol()) {
                    let sent = match item.object {
                        SnapObject::Character(c) => c.core,
                        SnapObject::Character7(c) => c.core,
                        _ => continue,
                    };
                    let Some(old) = last.insert(item.key.id(), sent) else {
                        continue;
                    };
                    let span = i64::from(sent.tick) - i64::from(old.tick);
                    if old.tick == 0 || !(MAX_EVOLVE_TICKS..=MAX_EVOLVE_TICKS + 1).contains(&span) {
                        continue;
                    }
                    // Past the client's 150 ticks in two evolves.
                    let half = evolve(&old, &collision, sent.tick - 10);
                    let evolved = evolve(&half, &collision, sent.tick);
                    let sent_aim = CharacterCore {
                        angle: old.angle,
                        ..sent
                    };
                    assert_eq!(evolved, sent_aim, "{} {old:?}", path.display());
                    checked += 1;
                }
            }
        }
        // 5 in the corpus (0.7 servers' demos: tees falling and standing).
        assert!(checked >= 5, "{checked}");
    }
}
