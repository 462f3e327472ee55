//! How a map plays in DDNet: the gameplay checks of `twcodec check --ddnet`, each rule read
//! from DDNet's game code (docs/checks.md names the file and function for each, as the
//! messages do). Physics layers are the last of each kind in the groups, as DDNet's
//! `CLayers::Init` takes them (`played_layers`); solid is a game tile 1 (hookable) or 3 (unhookable), as
//! `CCollision::IsSolid` reads only the game layer.
//!
//! | check | severity | what |
//! |---|---|---|
//! | `unknown-id` | warning | a tile id the layer's kind does not define (`mapitems.cpp`, `IsValid*Tile`) |
//! | `deprecated` | note | old speedups (type 28) and old hook-through (6) |
//! | `flags-ignored` | note | rotation or flip flags on a game or front tile the game reads without them |
//! | `flags-misread` | warning | directed hook-through, conveyors and crazy shotguns turned other than 0, 90, 180 or 270 degrees |
//! | `no-effect` | warning | hook-through where it does nothing, conveyors in the front layer, teleporters and checkpoints numbered 0 |
//! | `tele-no-destination` | warning | teleporters whose number has no exit, checkpoint teleporters with no exit of their number |
//! | `tele-unused-destination` | note | exits no teleporter of their number leads to |
//! | `switch-no-switcher` | warning | switched tiles whose number no switch sets (always on, or always off with `switch_open`) |
//! | `switch-unused` | note | switches whose number nothing uses |
//! | `no-spawn` | error | no spawn in the game, front or switch layer |
//! | `start-finish` | warning | a start without a finish or a finish without a start |
//! | `no-time-checkpoints` | note | a race without time checkpoints |
//! | `tune-zone-unset` | warning | tune zones no `tune_zone` setting configures |
//! | `speedup-force-0` | warning | speedups of force 0 |
//! | `speedup-into-solid` | note | speedups whose arrow points at a solid tile next to them |
//! | `stopper-into-solid` | warning | one-way stoppers pointing into a solid tile; two- and all-way stoppers with solid tiles on every side they block |
//! | `outside-game-area` | warning | physics tiles beyond the game layer's size |
//! | `map-setting` | warning | settings the server ignores, or reads otherwise than written (`console.cpp`, `config_variables.h`) |

use std::collections::BTreeSet;

use twcodec::map::{tile_name, Grid, LayerContent};
use twcodec::schema::map::layer::PhysicsKind;
use twcodec::schema::map::tile::TileKind;
use twcodec::schema::map::tile::{Speedup, Switch, Tele, Tile, Tune};
use twcodec::Map;

use super::{tiles_by, tiles_where, Finding, LayerPlace, Severity};

/// Every check's id, in the order [`check`] runs them.
pub const CHECKS: &[&str] = &[
    "unknown-id",
    "deprecated",
    "flags-ignored",
    "flags-misread",
    "no-effect",
    "tele-no-destination",
    "tele-unused-destination",
    "switch-no-switcher",
    "switch-unused",
    "no-spawn",
    "start-finish",
    "no-time-checkpoints",
    "tune-zone-unset",
    "speedup-force-0",
    "speedup-into-solid",
    "stopper-into-solid",
    "outside-game-area",
    "map-setting",
];

/// The first entity id in game, front and switch layers (`ENTITY_OFFSET + 1`).
const SPAWN: u8 = 192;

/// The flag bits the game reads for rotation: x flip, y flip, rotate.
const TURN_BITS: u8 = 1 | 2 | 8;

/// Whether `id` is in one of the inclusive `ranges`.
fn within(ranges: &[(u8, u8)], id: u8) -> bool {
    ranges.iter().any(|&(a, b)| (a..=b).contains(&id))
}

/// Valid entities as layer ids (`IsValidEntity`): spawn to the fast laser, plasma to the
/// shielded laser, the draggers, the door.
const ENTITIES: [(u8, u8); 4] = [(192, 218), (220, 229), (233, 238), (240, 240)];

/// `IsValidGameTile`.
pub fn valid_game_tile(id: u8) -> bool {
    within(
        &[
            (0, 6),
            (9, 9),
            (11, 13),
            (16, 22),
            (32, 62),
            (64, 67),
            (71, 76),
            (88, 91),
            (96, 97),
            (104, 107),
            (112, 113),
            (128, 129),
            (144, 145),
            (190, 191),
        ],
        id,
    ) || within(&ENTITIES, id)
}

/// `IsValidFrontTile`: the game's set without solid (1) and unhookable (3), with the tele gun
/// tiles 98 and 99.
pub fn valid_front_tile(id: u8) -> bool {
    id != 1 && id != 3 && (valid_game_tile(id) || id == 98 || id == 99)
}

/// `IsValidTeleTile` (and air).
pub fn valid_tele_tile(id: u8) -> bool {
    matches!(id, 0 | 10 | 14 | 15 | 26 | 27 | 29 | 30 | 31 | 63)
}

/// `IsValidSpeedupTile` (and air).
pub fn valid_speedup_tile(id: u8) -> bool {
    matches!(id, 0 | 28 | 29)
}

/// `IsValidSwitchTile` (and air): jump, the freezes, hit, the switches, time, the tele gun
/// tiles, and entities from armor on.
pub fn valid_switch_tile(id: u8) -> bool {
    matches!(
        id,
        0 | 7 | 9 | 12 | 13 | 19 | 20 | 22..=25 | 79 | 95 | 98 | 99 | 144 | 145
    ) || (id >= 197 && within(&ENTITIES, id))
}

/// `IsValidTuneTile` (and air).
pub fn valid_tune_tile(id: u8) -> bool {
    matches!(id, 0 | 68)
}

/// A physics layer: where it is and its tiles.
struct Physics<'m, T> {
    place: LayerPlace,
    grid: &'m Grid<T>,
}

/// The physics layers DDNet plays with: the last of each kind in the groups.
#[derive(Default)]
struct Layers<'m> {
    game: Option<Physics<'m, Tile>>,
    front: Option<Physics<'m, Tile>>,
    tele: Option<Physics<'m, Tele>>,
    speedup: Option<Physics<'m, Speedup>>,
    switch: Option<Physics<'m, Switch>>,
    tune: Option<Physics<'m, Tune>>,
}

impl<'m> Layers<'m> {
    fn of(map: &'m Map) -> Layers<'m> {
        fn take<'m, T: TileKind>(
            slot: &mut Option<Physics<'m, T>>,
            place: LayerPlace,
            tiles: &'m twcodec::map::TilesLayer<T>,
        ) {
            if let Some(grid) = tiles.grid() {
                *slot = Some(Physics { place, grid });
            }
        }
        let mut layers = Layers::default();
        for (_, r) in super::played_layers(map) {
            let (Some(layer), Some(place)) = (map.get(r), LayerPlace::of(map, r)) else {
                continue;
            };
            match layer.content() {
                LayerContent::Game(t) => take(&mut layers.game, place, t),
                LayerContent::Front(t) => take(&mut layers.front, place, t),
                LayerContent::Tele(t) => take(&mut layers.tele, place, t),
                LayerContent::Speedup(t) => take(&mut layers.speedup, place, t),
                LayerContent::Switch(t) => take(&mut layers.switch, place, t),
                LayerContent::Tune(t) => take(&mut layers.tune, place, t),
                _ => {}
            }
        }
        layers
    }

    /// Whether the game tile at (x, y) is solid (1 or 3); outside the game layer, not.
    fn solid(&self, x: i64, y: i64) -> bool {
        let Some(game) = &self.game else {
            return false;
        };
        let (Ok(x), Ok(y)) = (usize::try_from(x), usize::try_from(y)) else {
            return false;
        };
        matches!(game.grid.get(x, y), Some(t) if t.id == 1 || t.id == 3)
    }
}

/// Collects findings.
struct Found(Vec<Finding>);

impl Found {
    /// A finding about `tiles` of `place`, unless there are none.
    fn tiles(
        &mut self,
        check: &str,
        severity: Severity,
        place: &LayerPlace,
        tiles: Vec<[u32; 2]>,
        message: String,
    ) {
        if !tiles.is_empty() {
            self.0.push(
                Finding::new(check, severity, message)
                    .in_layer(Some(place.clone()))
                    .at(tiles),
            );
        }
    }
}

/// `NAME (id N)`, or `id N` for an id without a name.
fn named(kind: PhysicsKind, id: u8) -> String {
    match tile_name(kind, id) {
        Some(name) => format!("{name} (id {id})"),
        None => format!("id {id}"),
    }
}

/// Every gameplay finding of `map`, check by check in the order of the module's table.
pub fn check(map: &Map) -> Vec<Finding> {
    let layers = Layers::of(map);
    let settings: Vec<String> = (map.info())
        .and_then(|info| info.settings(map).ok())
        .map(|s| s.to_vec())
        .unwrap_or_default();
    let mut found = Found(Vec::new());
    unknown_ids(&layers, &mut found);
    deprecated(&layers, &mut found);
    flags(&layers, &mut found);
    hookthrough(&layers, &mut found);
    teleporters(&layers, &mut found);
    switches(&layers, &settings, &mut found);
    race(&layers, &mut found);
    tune_zones(&layers, &settings, &mut found);
    speedups(&layers, &mut found);
    stoppers(&layers, &mut found);
    outside(&layers, &mut found);
    map_settings(&layers, &settings, &mut found);
    found.0
}

/// Ids a layer's kind does not define: a finding per layer and id.
fn unknown_ids(layers: &Layers<'_>, found: &mut Found) {
    fn per_id<T: Copy>(
        found: &mut Found,
        layer: &Option<Physics<'_, T>>,
        kind: PhysicsKind,
        id_of: impl Fn(&T) -> u8,
        valid: fn(u8) -> bool,
        rule: &str,
    ) {
        let Some(layer) = layer else {
            return;
        };
        let ids = tiles_by(layer.grid, |_, _, t| !valid(id_of(t)), &id_of);
        for (id, tiles) in ids {
            found.tiles(
                "unknown-id",
                Severity::Warning,
                &layer.place,
                tiles,
                format!(
                    "{} is not a {} tile DDNet defines (mapitems.cpp {rule}): the game gives \
                     it no meaning and the editor refuses to place it",
                    named(kind, id),
                    layer.place.kind
                ),
            );
        }
    }
    per_id(
        found,
        &layers.game,
        PhysicsKind::Game,
        |t| t.id,
        valid_game_tile,
        "IsValidGameTile",
    );
    per_id(
        found,
        &layers.front,
        PhysicsKind::Front,
        |t| t.id,
        valid_front_tile,
        "IsValidFrontTile",
    );
    per_id(
        found,
        &layers.tele,
        PhysicsKind::Tele,
        |t| t.id,
        valid_tele_tile,
        "IsValidTeleTile",
    );
    per_id(
        found,
        &layers.speedup,
        PhysicsKind::Speedup,
        |t| t.id,
        valid_speedup_tile,
        "IsValidSpeedupTile",
    );
    per_id(
        found,
        &layers.switch,
        PhysicsKind::Switch,
        |t| t.id,
        valid_switch_tile,
        "IsValidSwitchTile",
    );
    per_id(
        found,
        &layers.tune,
        PhysicsKind::Tune,
        |t| t.id,
        valid_tune_tile,
        "IsValidTuneTile",
    );
}

/// Old speedups and old hook-through.
fn deprecated(layers: &Layers<'_>, found: &mut Found) {
    if let Some(speedup) = &layers.speedup {
        found.tiles(
            "deprecated",
            Severity::Note,
            &speedup.place,
            tiles_where(speedup.grid, |_, _, t| t.id == 28),
            "old speedup (type 28): DDNet's editor calls it deprecated (explanations.cpp); \
             the game still runs its old formula (character.cpp HandleSkippableTiles), new \
             speedups are type 29"
                .into(),
        );
    }
    for layer in [&layers.game, &layers.front].into_iter().flatten() {
        found.tiles(
            "deprecated",
            Severity::Note,
            &layer.place,
            tiles_where(layer.grid, |_, _, t| t.id == 6),
            "old hook-through (id 6): it works beside a solid tile (collision.cpp \
             ThroughOffset); new maps put hook-through (5, 66 or 67) in the front layer over \
             a solid tile"
                .into(),
        );
    }
}

/// Rotation and flip flags the game ignores or misreads.
fn flags(layers: &Layers<'_>, found: &mut Found) {
    /// Tiles whose flags the game reads (`IsRotatableTile`, plus one-way stoppers' flips).
    fn reads_flags(id: u8) -> bool {
        matches!(id, 60 | 61 | 64 | 65 | 67 | 190 | 191 | 197..=202 | 224..=229)
    }
    let canonical = |flags: u8| matches!(flags, 0 | 3 | 8 | 11);
    for (layer, is_game) in [(&layers.game, true), (&layers.front, false)] {
        let Some(layer) = layer else {
            continue;
        };
        let kind = if is_game {
            PhysicsKind::Game
        } else {
            PhysicsKind::Front
        };
        let ignored = tiles_by(
            layer.grid,
            |_, _, t| t.id != 0 && t.flags & TURN_BITS != 0 && !reads_flags(t.id),
            |t| t.id,
        );
        for (id, tiles) in ignored {
            found.tiles(
                "flags-ignored",
                Severity::Note,
                &layer.place,
                tiles,
                format!(
                    "{} is turned or flipped, but the game reads it without its flags (only \
                     stoppers, conveyors, directed hook-through, pickups and crazy shotguns \
                     have a direction: mapitems.cpp IsRotatableTile, collision.cpp)",
                    named(kind, id)
                ),
            );
        }
        // Directed hook-through compares the whole flags byte (collision.cpp IsThrough,
        // IsHookBlocker).
        found.tiles(
            "flags-misread",
            Severity::Warning,
            &layer.place,
            tiles_where(layer.grid, |_, _, t| t.id == 67 && !canonical(t.flags)),
            "directed hook-through (67) flipped rather than turned: collision.cpp IsThrough \
             and IsHookBlocker compare the flags with the four turns 0, 90, 180, 270 degrees, \
             so it lets no hook through and blocks none"
                .into(),
        );
        if is_game {
            found.tiles(
                "flags-misread",
                Severity::Warning,
                &layer.place,
                tiles_where(layer.grid, |_, _, t| {
                    (t.id == 64 || t.id == 65) && !canonical(t.flags)
                }),
                "conveyor (64, 65) flipped rather than turned: collision.cpp MoverSpeed \
                 knows only the four turns, so it moves nothing"
                    .into(),
            );
        }
        found.tiles(
            "flags-misread",
            Severity::Warning,
            &layer.place,
            tiles_where(layer.grid, |_, _, t| {
                (t.id == 224 || t.id == 225) && !canonical(t.flags)
            }),
            "crazy shotgun flipped rather than turned: gamecontroller.cpp OnEntity reads any \
             flags but 0, 90 and 180 degrees as 270 degrees"
                .into(),
        );
    }
    // Conveyors move things only from the game layer (collision.cpp MoverSpeed).
    if let Some(front) = &layers.front {
        found.tiles(
            "no-effect",
            Severity::Warning,
            &front.place,
            tiles_where(front.grid, |_, _, t| t.id == 64 || t.id == 65),
            "conveyor (64, 65) in the front layer: collision.cpp MoverSpeed reads the game \
             layer only, so it moves nothing"
                .into(),
        );
    }
}

/// Hook-through placed where it does nothing.
fn hookthrough(layers: &Layers<'_>, found: &mut Found) {
    if let Some(game) = &layers.game {
        found.tiles(
            "no-effect",
            Severity::Warning,
            &game.place,
            tiles_where(game.grid, |_, _, t| t.id == 5),
            "hook-through (5) in the game layer: collision.cpp IsThrough reads it from the \
             front layer only, over a solid tile"
                .into(),
        );
    }
    if let Some(front) = &layers.front {
        found.tiles(
            "no-effect",
            Severity::Warning,
            &front.place,
            tiles_where(front.grid, |x, y, t| {
                t.id == 5 && !layers.solid(x as i64, y as i64)
            }),
            "hook-through (5) over a tile that is not solid: collision.cpp IsThrough lets \
             hooks through solid tiles only, and 5 blocks nothing"
                .into(),
        );
    }
    for layer in [&layers.game, &layers.front].into_iter().flatten() {
        found.tiles(
            "no-effect",
            Severity::Warning,
            &layer.place,
            tiles_where(layer.grid, |x, y, t| {
                let (x, y) = (x as i64, y as i64);
                t.id == 6
                    && ![(1, 0), (-1, 0), (0, 1), (0, -1)]
                        .iter()
                        .any(|(dx, dy)| layers.solid(x + dx, y + dy))
            }),
            "old hook-through (6) with no solid tile beside it: collision.cpp ThroughOffset \
             reads it only on the tile before a solid one"
                .into(),
        );
    }
}

/// Teleporters without exits, exits without teleporters, numbers 0.
fn teleporters(layers: &Layers<'_>, found: &mut Found) {
    let Some(tele) = &layers.tele else {
        return;
    };
    let numbers = |ids: &[u8]| -> BTreeSet<u8> {
        (tele.grid.tiles().iter())
            .filter(|t| t.number != 0 && ids.contains(&t.id))
            .map(|t| t.number)
            .collect()
    };
    let ins = numbers(&[10, 14, 15, 26]);
    let outs = numbers(&[27]);
    let checks = numbers(&[29]);
    let check_outs = numbers(&[30]);
    found.tiles(
        "no-effect",
        Severity::Warning,
        &tele.place,
        tiles_where(tele.grid, |_, _, t| {
            t.number == 0 && matches!(t.id, 10 | 14 | 15 | 26 | 27 | 29 | 30)
        }),
        "teleporter numbered 0: collision.cpp Init skips tiles of number 0, so it does nothing"
            .into(),
    );
    let missing = tiles_by(
        tele.grid,
        |_, _, t| matches!(t.id, 10 | 14 | 15 | 26) && t.number != 0 && !outs.contains(&t.number),
        |t| t.number,
    );
    for (number, tiles) in missing {
        found.tiles(
            "tele-no-destination",
            Severity::Warning,
            &tele.place,
            tiles,
            format!(
                "teleporter {number} has no exit (tele-out 27 numbered {number}): \
                 character.cpp HandleTiles finds nowhere to send players, so it does nothing"
            ),
        );
    }
    let missing = tiles_by(
        tele.grid,
        |_, _, t| t.id == 29 && t.number != 0 && !check_outs.contains(&t.number),
        |t| t.number,
    );
    for (number, tiles) in missing {
        found.tiles(
            "tele-no-destination",
            Severity::Warning,
            &tele.place,
            tiles,
            format!(
                "checkpoint {number} (29) has no checkpoint exit (30) numbered {number}: \
                 character.cpp sends players from checkpoint tele-ins to the exit of the \
                 highest lower checkpoint that has one, or to spawn"
            ),
        );
    }
    let check_ins = tiles_where(tele.grid, |_, _, t| t.id == 31 || t.id == 63);
    if check_outs.is_empty() {
        found.tiles(
            "tele-no-destination",
            Severity::Warning,
            &tele.place,
            check_ins,
            "checkpoint tele-in (31, 63) in a map without checkpoint exits (30): character.cpp \
             always sends players to spawn"
                .into(),
        );
    }
    let unused = tiles_by(
        tele.grid,
        |_, _, t| {
            (t.id == 27 && t.number != 0 && !ins.contains(&t.number))
                || (t.id == 30 && t.number != 0 && !checks.contains(&t.number))
        },
        |t| t.id,
    );
    for (id, tiles) in unused {
        let message = if id == 27 {
            "tele-out (27) whose number no teleporter (10, 14, 15, 26) uses: only the \
             `/tele` commands reach it"
        } else {
            "checkpoint exit (30) whose number no checkpoint (29) sets: checkpoint tele-ins \
             use it only when a higher checkpoint has no exit"
        };
        found.tiles(
            "tele-unused-destination",
            Severity::Note,
            &tele.place,
            tiles,
            message.into(),
        );
    }
}

/// Switched tiles without switches, switches without switched tiles.
fn switches(layers: &Layers<'_>, settings: &[String], found: &mut Found) {
    let Some(switch) = &layers.switch else {
        return;
    };
    let is_switcher = |id: u8| (22..=25).contains(&id);
    // Tiles that take their state from their number: freezes and entities from armor on.
    let is_switched = |id: u8| matches!(id, 9 | 12 | 13 | 144 | 145) || id >= 197;
    let switchers: BTreeSet<u8> = (switch.grid.tiles().iter())
        .filter(|t| t.number != 0 && is_switcher(t.id))
        .map(|t| t.number)
        .collect();
    let switched: BTreeSet<u8> = (switch.grid.tiles().iter())
        .filter(|t| t.number != 0 && is_switched(t.id))
        .map(|t| t.number)
        .collect();
    let opened = setting_numbers(settings, &["switch_open"]);
    let missing = tiles_by(
        switch.grid,
        |_, _, t| t.number != 0 && is_switched(t.id) && !switchers.contains(&t.number),
        |t| t.number,
    );
    for (number, tiles) in missing {
        let state = if opened.contains(&number) {
            "the `switch_open` setting makes it always off"
        } else {
            "it stays on for good (gamecore.cpp InitSwitchers starts every number on)"
        };
        found.tiles(
            "switch-no-switcher",
            Severity::Warning,
            &switch.place,
            tiles,
            format!("switch number {number} is used, but no switch (22 to 25) sets it: {state}"),
        );
    }
    let unused = tiles_by(
        switch.grid,
        |_, _, t| t.number != 0 && is_switcher(t.id) && !switched.contains(&t.number),
        |t| t.number,
    );
    for (number, tiles) in unused {
        found.tiles(
            "switch-unused",
            Severity::Note,
            &switch.place,
            tiles,
            format!(
                "switch {number} sets a number no switched tile (freeze, door, laser, ...) uses"
            ),
        );
    }
}

/// Spawn, start, finish, time checkpoints.
fn race(layers: &Layers<'_>, found: &mut Found) {
    let any = |test: &dyn Fn(u8) -> bool| {
        [&layers.game, &layers.front]
            .into_iter()
            .flatten()
            .any(|l| l.grid.tiles().iter().any(|t| test(t.id)))
    };
    let spawn = |id: u8| (SPAWN..=SPAWN + 2).contains(&id);
    let switch_spawn = (layers.switch.iter()).any(|s| s.grid.tiles().iter().any(|t| spawn(t.id)));
    if layers.game.is_some() && !any(&spawn) && !switch_spawn {
        found.0.push(Finding::new(
            "no-spawn",
            Severity::Error,
            "no spawn (entity 192, 193 or 194) in the game, front or switch layer: \
             gamecontroller.cpp CanSpawn finds no place, so no player can join the game",
        ));
    }
    let start = any(&|id| id == 33);
    let finish = any(&|id| id == 34);
    if start && !finish {
        found.0.push(Finding::new(
            "start-finish",
            Severity::Warning,
            "a start (33) but no finish (34) in the game or front layer: the race never ends \
             (gamemodes/ddnet.cpp HandleCharacterTiles)",
        ));
    }
    if finish && !start {
        found.0.push(Finding::new(
            "start-finish",
            Severity::Warning,
            "a finish (34) but no start (33) in the game or front layer: no timer starts, so \
             the finish counts nothing (gamemodes/ddnet.cpp HandleCharacterTiles)",
        ));
    }
    if start && finish && !any(&|id| (35..=59).contains(&id)) {
        found.0.push(Finding::new(
            "no-time-checkpoints",
            Severity::Note,
            "a race without time checkpoints (35 to 59): players see no split times \
             (collision.cpp IsTimeCheckpoint)",
        ));
    }
}

/// Tune zones that no setting configures.
fn tune_zones(layers: &Layers<'_>, settings: &[String], found: &mut Found) {
    let Some(tune) = &layers.tune else {
        return;
    };
    // A zone is in use when a setting tunes it or gives it a message on entering or leaving
    // (gamecontext.cpp ConTuneZone, ConTuneSetZoneMsgEnter/Leave).
    let set = setting_numbers(
        settings,
        &["tune_zone", "tune_zone_enter", "tune_zone_leave"],
    );
    let unset = tiles_by(
        tune.grid,
        |_, _, t| t.id == 68 && t.number != 0 && !set.contains(&t.number),
        |t| t.number,
    );
    for (zone, tiles) in unset {
        found.tiles(
            "tune-zone-unset",
            Severity::Warning,
            &tune.place,
            tiles,
            format!(
                "tune zone {zone} is placed, but no `tune_zone {zone} ...` setting changes it \
                 and no `tune_zone_enter`/`tune_zone_leave` gives it a message: it plays as \
                 the default tuning (gamecontext.cpp ConTuneZone)"
            ),
        );
    }
}

/// The tile one step along `angle` degrees (0 right, 90 down), rounded to the 8 neighbours.
fn step(angle: i16) -> (i64, i64) {
    let radians = f64::from(angle).to_radians();
    (radians.cos().round() as i64, radians.sin().round() as i64)
}

/// Speedups of force 0 and speedups aimed at a wall.
fn speedups(layers: &Layers<'_>, found: &mut Found) {
    let Some(speedup) = &layers.speedup else {
        return;
    };
    found.tiles(
        "speedup-force-0",
        Severity::Warning,
        &speedup.place,
        tiles_where(speedup.grid, |_, _, t| t.id != 0 && t.force == 0),
        "speedup of force 0: collision.cpp IsSpeedup needs a force above 0, so it does \
         nothing (an editor bug used to make these)"
            .into(),
    );
    found.tiles(
        "speedup-into-solid",
        Severity::Note,
        &speedup.place,
        tiles_where(speedup.grid, |x, y, t| {
            let (dx, dy) = step(t.angle());
            (t.id == 28 || t.id == 29)
                && t.force > 0
                && !layers.solid(x as i64, y as i64)
                && layers.solid(x as i64 + dx, y as i64 + dy)
        }),
        "speedup aimed at a solid tile next to it: it pushes players into the wall, which is \
         right at the end of a lane of speedups and wrong elsewhere (character.cpp \
         HandleSkippableTiles)"
            .into(),
    );
}

/// One-way stoppers pointing into a wall, two- and all-way stoppers walled in.
fn stoppers(layers: &Layers<'_>, found: &mut Found) {
    for layer in [&layers.game, &layers.front].into_iter().flatten() {
        // The arrow of a one-way stopper: the way players may pass it (collision.cpp
        // GetMoveRestrictionsRaw: flags 0 forbid moving down, so it lets players up, ...).
        found.tiles(
            "stopper-into-solid",
            Severity::Warning,
            &layer.place,
            tiles_where(layer.grid, |x, y, t| {
                let (dx, dy) = match t.flags & TURN_BITS {
                    0 | 1 => (0, -1),
                    8 | 9 => (1, 0),
                    3 | 2 => (0, 1),
                    _ => (-1, 0),
                };
                let (x, y) = (x as i64, y as i64);
                t.id == 60 && !layers.solid(x, y) && layers.solid(x + dx, y + dy)
            }),
            "one-way stopper pointing into a solid tile: players may pass it only toward the \
             wall, so who falls in cannot go back (collision.cpp GetMoveRestrictions)"
                .into(),
        );
        found.tiles(
            "stopper-into-solid",
            Severity::Warning,
            &layer.place,
            tiles_where(layer.grid, |x, y, t| {
                let (x, y) = (x as i64, y as i64);
                let sides: &[(i64, i64)] = match (t.id, t.flags & TURN_BITS) {
                    (61, 0..=3) => &[(0, -1), (0, 1)],
                    (61, _) => &[(-1, 0), (1, 0)],
                    (62, _) => &[(0, -1), (0, 1), (-1, 0), (1, 0)],
                    _ => return false,
                };
                !layers.solid(x, y) && sides.iter().all(|(dx, dy)| layers.solid(x + dx, y + dy))
            }),
            "two-way or all-way stopper between solid tiles on every side it blocks: nothing \
             can move onto it the ways it stops (collision.cpp GetMoveRestrictions)"
                .into(),
        );
    }
}

/// Physics tiles beyond the game layer's size.
fn outside(layers: &Layers<'_>, found: &mut Found) {
    let Some(game) = &layers.game else {
        return;
    };
    let (w, h) = (game.grid.width(), game.grid.height());
    fn beyond<T: Copy>(
        found: &mut Found,
        layer: &Option<Physics<'_, T>>,
        (w, h): (usize, usize),
        empty: impl Fn(&T) -> bool,
    ) {
        let Some(layer) = layer else {
            return;
        };
        if (layer.grid.width(), layer.grid.height()) == (w, h) {
            return;
        }
        found.tiles(
            "outside-game-area",
            Severity::Warning,
            &layer.place,
            tiles_where(layer.grid, |x, y, t| (x >= w || y >= h) && !empty(t)),
            format!(
                "tiles beyond the {w}x{h} game layer: DDNet reads physics layers with the game \
                 layer's size (collision.cpp Init), so these are never read, and a layer of \
                 another width is read shifted"
            ),
        );
    }
    beyond(found, &layers.front, (w, h), |t| t.id == 0);
    beyond(found, &layers.tele, (w, h), |t| t.id == 0);
    beyond(found, &layers.speedup, (w, h), |t| t.id == 0);
    beyond(found, &layers.switch, (w, h), |t| t.id == 0);
    beyond(found, &layers.tune, (w, h), |t| t.id == 0);
}

/// The int settings DDNet runs from a map (`config_variables.h`, the `CFGFLAG_GAME` ones):
/// name, minimum, maximum.
const MAP_INTS: [(&str, i64, i64); 23] = [
    ("sv_old_teleport_weapons", 0, 1),
    ("sv_old_teleport_hook", 0, 1),
    ("sv_teleport_hold_hook", 0, 1),
    ("sv_teleport_lose_weapons", 0, 1),
    ("sv_deepfly", 0, 1),
    ("sv_destroy_bullets_on_death", 0, 1),
    ("sv_destroy_lasers_on_death", 0, 1),
    ("sv_hit", 0, 1),
    ("sv_endless_drag", 0, 1),
    ("sv_freeze_delay", 1, 30),
    ("sv_save_worse_scores", 0, 1),
    ("sv_pauseable", 0, 1),
    ("sv_team", 0, 3),
    ("sv_min_team_size", 1, 128),
    ("sv_max_team_size", 1, 128),
    ("sv_old_laser", 0, 1),
    ("sv_no_weak_hook", 0, 1),
    ("sv_reset_pickups", 0, 1),
    ("sv_show_others_default", 0, 2),
    ("sv_plasma_range", 1, 99999),
    ("sv_plasma_per_sec", 0, 50),
    ("sv_dragger_range", 1, 99999),
    ("sv_solo_server", 0, 1),
];

/// The tuning parameters (`tuning.h`).
const TUNINGS: [&str; 47] = [
    "ground_control_speed",
    "ground_control_accel",
    "ground_friction",
    "ground_jump_impulse",
    "air_jump_impulse",
    "air_control_speed",
    "air_control_accel",
    "air_friction",
    "hook_length",
    "hook_fire_speed",
    "hook_drag_accel",
    "hook_drag_speed",
    "gravity",
    "velramp_start",
    "velramp_range",
    "velramp_curvature",
    "gun_curvature",
    "gun_speed",
    "gun_lifetime",
    "shotgun_curvature",
    "shotgun_speed",
    "shotgun_speeddiff",
    "shotgun_lifetime",
    "grenade_curvature",
    "grenade_speed",
    "grenade_lifetime",
    "laser_reach",
    "laser_bounce_delay",
    "laser_bounce_num",
    "laser_bounce_cost",
    "laser_damage",
    "player_collision",
    "player_hooking",
    "jetpack_strength",
    "shotgun_strength",
    "explosion_strength",
    "hammer_strength",
    "hook_duration",
    "hammer_fire_delay",
    "gun_fire_delay",
    "shotgun_fire_delay",
    "grenade_fire_delay",
    "laser_fire_delay",
    "ninja_fire_delay",
    "hammer_hit_fire_delay",
    "ground_elasticity_x",
    "ground_elasticity_y",
];

/// The commands of one setting line, as DDNet's console splits it: at `;` outside quotes, up
/// to a `#` outside quotes; each as its words (quotes kept out, `\"` inside quotes a quote).
fn commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let (mut words, mut word, mut quoted, mut started) = (Vec::new(), String::new(), false, false);
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            '\\' if quoted => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            ';' | '#' if !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
                commands.push(std::mem::take(&mut words));
                if c == '#' {
                    return commands.into_iter().filter(|c| !c.is_empty()).collect();
                }
            }
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    commands.push(words);
    commands.into_iter().filter(|c| !c.is_empty()).collect()
}

/// The first arguments, as numbers, of the settings' commands named in `names`, each setting
/// split into commands as the console splits it ([`commands`]).
fn setting_numbers(settings: &[String], names: &[&str]) -> BTreeSet<u8> {
    (settings.iter())
        .flat_map(|s| commands(s))
        .filter(|words| names.contains(&words[0].as_str()))
        .filter_map(|words| words.get(1)?.parse().ok())
        .collect()
}

/// What the server makes of one command of a map's settings: `None` when it runs as written.
fn setting_problem(words: &[String], switch_numbers: usize) -> Option<String> {
    let command = words.first()?.as_str();
    let args = &words[1..];
    let int = |i: usize| args.get(i).and_then(|a| a.parse::<i64>().ok());
    if let Some(&(_, min, max)) = MAP_INTS.iter().find(|(name, ..)| *name == command) {
        return match args.first() {
            None => Some(format!(
                "`{command}` without a value only prints the value (config.cpp), so it sets \
                 nothing"
            )),
            Some(_) => match int(0) {
                None => Some(format!(
                    "`{command}` takes a number, not {:?}: the console refuses the line",
                    args[0]
                )),
                Some(v) if v < min || v > max => Some(format!(
                    "`{command} {v}` is outside {min} to {max}: config.cpp clamps it to {}",
                    v.clamp(min, max)
                )),
                Some(_) => None,
            },
        };
    }
    let tuning = |name: &str| -> Option<String> {
        (!TUNINGS.contains(&name)).then(|| {
            let hint = crate::nearest(name, &TUNINGS)
                .map(|n| format!(" (did you mean {n}?)"))
                .unwrap_or_default();
            format!("no tuning parameter `{name}`{hint}: gamecontext.cpp says \"No such tuning parameter\"")
        })
    };
    match command {
        "tune" => match args {
            [] => Some("`tune` without a parameter: the console refuses the line".into()),
            [name] => tuning(name).or_else(|| {
                Some(format!(
                    "`tune {name}` without a value only prints the value"
                ))
            }),
            [name, ..] => tuning(name),
        },
        "tune_zone" => match (int(0), args.get(1), args.len() >= 3) {
            (Some(zone), Some(name), true) => {
                if !(0..256).contains(&zone) {
                    Some(format!(
                        "tune zone {zone} is outside 0 to 255: ConTuneZone ignores it"
                    ))
                } else {
                    tuning(name)
                }
            }
            _ => Some(
                "`tune_zone` takes a zone, a parameter and a value: the console refuses the line"
                    .into(),
            ),
        },
        "tune_zone_enter" | "tune_zone_leave" => match (int(0), args.len() >= 2) {
            (Some(zone), true) if !(0..256).contains(&zone) => Some(format!(
                "tune zone {zone} is outside 0 to 255: the message is never shown"
            )),
            (Some(_), true) => None,
            _ => Some(format!(
                "`{command}` takes a zone and a message: the console refuses the line"
            )),
        },
        "switch_open" => match int(0) {
            Some(n) if n < 0 || n as usize >= switch_numbers => Some(format!(
                "`switch_open {n}`: the switch layer has no switch number {n}, so ConSwitchOpen \
                 does nothing"
            )),
            Some(_) => None,
            None => {
                Some("`switch_open` takes a switch number: the console refuses the line".into())
            }
        },
        "mapbug" => match args.first().map(String::as_str) {
            Some("grenade-doubleexplosion@ddnet.tw") => None,
            Some(bug) => Some(format!(
                "no map bug `{bug}` (mapbugs_list.h knows grenade-doubleexplosion@ddnet.tw)"
            )),
            None => Some("`mapbug` takes a bug's name: the console refuses the line".into()),
        },
        _ => {
            // No "did you mean": most are real server commands that maps may not run.
            Some(format!(
                "`{command}` is not one of the commands DDNet runs from a map: the server skips \
                 it (console.cpp: \"cannot be executed from a map\", or no such command)"
            ))
        }
    }
}

/// Settings the server ignores or reads otherwise than written: a finding per setting.
fn map_settings(layers: &Layers<'_>, settings: &[String], found: &mut Found) {
    // Switch numbers 0 to the highest in the switch layer exist (gamecore.cpp InitSwitchers).
    let switch_numbers = (layers.switch.iter())
        .flat_map(|s| s.grid.tiles().iter().map(|t| usize::from(t.number) + 1))
        .max()
        .unwrap_or(0);
    for (n, setting) in settings.iter().enumerate() {
        for words in commands(setting) {
            if let Some(problem) = setting_problem(&words, switch_numbers) {
                found.0.push(Finding::new(
                    "map-setting",
                    Severity::Warning,
                    format!("setting #{n} {setting:?}: {problem}"),
                ));
            }
        }
    }
}
