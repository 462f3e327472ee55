//! `twcodec check --ddnet` and `check --rules FILE` (`twcodec_tools::check`): each gameplay
//! check on a crafted map that has exactly that fault (and none on the map without it), the
//! rules file (every rule, severities, bad files), the output formats, and the corpus.

mod common;

use std::process::{Command, Output};

use twcodec::map::{Grid, Layer, NewGroup};
use twcodec::schema::map::settings_data;
use twcodec::schema::map::tile::{Speedup, Switch, Tele, Tile, Tune};
use twcodec::Map;
use twcodec_tools::check::{ddnet, rules::RuleSet, Finding, Severity};

const W: usize = 20;
const H: usize = 12;

fn tile(id: u8) -> Tile {
    Tile {
        id,
        ..Tile::default()
    }
}

fn turned(id: u8, flags: u8) -> Tile {
    Tile {
        id,
        flags,
        ..Tile::default()
    }
}

/// A playable race: a floor of solid tiles (row H-1), walls left and right, a spawn, a start,
/// a time checkpoint and a finish.
fn race_tiles() -> Vec<Tile> {
    let mut tiles = vec![Tile::default(); W * H];
    for x in 0..W {
        tiles[(H - 1) * W + x] = tile(1);
    }
    for y in 0..H {
        tiles[y * W] = tile(1);
        tiles[y * W + W - 1] = tile(1);
    }
    tiles[(H - 2) * W + 2] = tile(192);
    tiles[(H - 2) * W + 4] = tile(33);
    tiles[(H - 2) * W + 8] = tile(35);
    tiles[(H - 2) * W + 16] = tile(34);
    tiles
}

/// What a crafted map has besides its game layer.
#[derive(Default)]
struct Extra {
    front: Option<Vec<Tile>>,
    tele: Option<Vec<Tele>>,
    speedup: Option<Vec<Speedup>>,
    switch: Option<Vec<Switch>>,
    tune: Option<Vec<Tune>>,
    settings: Vec<&'static str>,
}

fn map_with(game: Vec<Tile>, extra: Extra) -> Map {
    let mut map = twcodec_testkit::sample::empty_map().unwrap();
    let group = map.add_group(NewGroup::new("Game")).unwrap();
    let grid = |tiles| Grid::new(W, H, tiles).unwrap();
    map.add_layer(group, Layer::new_game(grid(game)).unwrap())
        .unwrap();
    if let Some(front) = extra.front {
        map.add_layer(
            group,
            Layer::new_front(Grid::new(W, H, front).unwrap()).unwrap(),
        )
        .unwrap();
    }
    if let Some(tele) = extra.tele {
        map.add_layer(
            group,
            Layer::new_tele(Grid::new(W, H, tele).unwrap()).unwrap(),
        )
        .unwrap();
    }
    if let Some(speedup) = extra.speedup {
        map.add_layer(
            group,
            Layer::new_speedup(Grid::new(W, H, speedup).unwrap()).unwrap(),
        )
        .unwrap();
    }
    if let Some(switch) = extra.switch {
        map.add_layer(
            group,
            Layer::new_switch(Grid::new(W, H, switch).unwrap()).unwrap(),
        )
        .unwrap();
    }
    if let Some(tune) = extra.tune {
        map.add_layer(
            group,
            Layer::new_tune(Grid::new(W, H, tune).unwrap()).unwrap(),
        )
        .unwrap();
    }
    let settings = map.info().and_then(|i| i.item().settings).unwrap();
    let settings = map.item_ref(settings).get().unwrap();
    // Never an empty list: a data item of 0 bytes is one DDNet refuses.
    let list = if extra.settings.is_empty() {
        vec!["sv_team 1"]
    } else {
        extra.settings
    };
    map.set_data(settings, settings_data(&list)).unwrap();
    // Through bytes, as a file is checked.
    Map::parse(&map.to_bytes().unwrap()).unwrap()
}

fn at(x: usize, y: usize) -> usize {
    y * W + x
}

/// The findings of `check` as (check, severity, tiles) in order.
fn found(map: &Map) -> Vec<(String, Severity, Vec<[u32; 2]>)> {
    (ddnet::check(map).into_iter())
        .map(|f| (f.check, f.severity, f.tiles))
        .collect()
}

/// The findings of one check.
fn of(map: &Map, check: &str) -> Vec<Finding> {
    (ddnet::check(map).into_iter())
        .filter(|f| f.check == check)
        .collect()
}

#[test]
fn a_clean_race_has_no_findings() {
    let map = map_with(race_tiles(), Extra::default());
    assert_eq!(found(&map), []);
}

#[test]
fn unknown_ids_per_layer_kind() {
    let mut game = race_tiles();
    game[at(3, 3)] = tile(8); // not a game tile
    game[at(4, 3)] = tile(23); // a switch tile, not a game tile
    game[at(5, 3)] = tile(23);
    let mut front = vec![Tile::default(); W * H];
    front[at(6, 3)] = tile(1); // solid is not a front tile
    front[at(7, 3)] = tile(98); // but the tele gun tiles are
    let mut tele = vec![Tele::default(); W * H];
    tele[at(8, 3)] = Tele { number: 1, id: 28 };
    let map = map_with(
        game,
        Extra {
            front: Some(front),
            tele: Some(tele),
            ..Extra::default()
        },
    );
    let findings = of(&map, "unknown-id");
    let summary: Vec<(&str, &[[u32; 2]])> = (findings.iter())
        .map(|f| (f.layer.as_ref().unwrap().kind, f.tiles.as_slice()))
        .collect();
    assert_eq!(
        summary,
        [
            ("game", &[[3, 3]][..]),
            ("game", &[[4, 3], [5, 3]][..]),
            ("front", &[[6, 3]][..]),
            ("tele", &[[8, 3]][..]),
        ]
    );
    assert!(
        findings[1].message.starts_with("id 23 is not a game tile"),
        "{}",
        findings[1].message
    );
    assert!(findings[1].message.contains("IsValidGameTile"));
    assert!(findings[2].message.contains("IsValidFrontTile"));
}

#[test]
fn flags_ignored_and_misread() {
    let mut game = race_tiles();
    game[at(3, 3)] = turned(9, 8); // freeze turned: ignored
    game[at(4, 3)] = turned(60, 8); // a one-way stopper turned: read
    game[at(5, 3)] = turned(64, 1); // a conveyor mirrored: moves nothing
    game[at(6, 3)] = turned(64, 11); // turned 270: fine
    game[at(7, 3)] = turned(225, 2); // crazy shotgun flipped: read as 270
    game[at(8, 3)] = turned(225, 11); // turned 270: fine
    let mut front = vec![Tile::default(); W * H];
    front[at(9, 3)] = turned(67, 2); // directed hook-through flipped
    front[at(10, 3)] = turned(67, 3); // turned 180: fine
    front[at(11, 3)] = turned(65, 0); // a conveyor in the front layer
    let map = map_with(
        game,
        Extra {
            front: Some(front),
            ..Extra::default()
        },
    );
    let ignored = of(&map, "flags-ignored");
    assert_eq!(ignored.len(), 1);
    assert_eq!(ignored[0].tiles, [[3, 3]]);
    assert_eq!(ignored[0].severity, Severity::Note);
    let misread: Vec<Vec<[u32; 2]>> = of(&map, "flags-misread")
        .into_iter()
        .map(|f| f.tiles)
        .collect();
    assert_eq!(misread, [vec![[5, 3]], vec![[7, 3]], vec![[9, 3]]]);
    let no_effect = of(&map, "no-effect");
    assert_eq!(no_effect.len(), 1);
    assert_eq!(no_effect[0].tiles, [[11, 3]]);
    assert!(no_effect[0].message.contains("MoverSpeed"));
}

#[test]
fn hookthrough_where_it_does_nothing() {
    let mut game = race_tiles();
    game[at(3, 5)] = tile(1);
    game[at(4, 5)] = tile(3);
    game[at(5, 5)] = tile(5); // in the game layer: never read
    game[at(10, 3)] = tile(6); // old hook-through alone
    game[at(12, 5)] = tile(6); // old hook-through beside a solid tile
    game[at(13, 5)] = tile(1);
    let mut front = vec![Tile::default(); W * H];
    front[at(3, 5)] = tile(5); // over solid: works
    front[at(4, 5)] = tile(5); // over unhookable: works
    front[at(7, 5)] = tile(5); // over air: nothing
    front[at(8, 5)] = tile(66); // over air: a hook blocker, which is fine
    let map = map_with(
        game,
        Extra {
            front: Some(front),
            ..Extra::default()
        },
    );
    let tiles: Vec<(&str, Vec<[u32; 2]>)> = (of(&map, "no-effect").into_iter())
        .map(|f| (f.layer.unwrap().kind, f.tiles))
        .collect();
    assert_eq!(
        tiles,
        [
            ("game", vec![[5, 5]]),
            ("front", vec![[7, 5]]),
            ("game", vec![[10, 3]]),
        ]
    );
    // Old hook-through is a note wherever it is.
    let deprecated: Vec<Vec<[u32; 2]>> = of(&map, "deprecated")
        .into_iter()
        .map(|f| f.tiles)
        .collect();
    assert_eq!(deprecated, [vec![[10, 3], [12, 5]]]);
}

#[test]
fn teleporters_without_exits_and_exits_without_teleporters() {
    let mut tele = vec![Tele::default(); W * H];
    tele[at(2, 2)] = Tele { number: 1, id: 26 }; // has an exit
    tele[at(3, 2)] = Tele { number: 1, id: 27 };
    tele[at(4, 2)] = Tele { number: 2, id: 26 }; // no exit 2
    tele[at(5, 2)] = Tele { number: 2, id: 15 }; // hook tele-in 2: no exit either
    tele[at(6, 2)] = Tele { number: 3, id: 27 }; // nothing leads to 3
    tele[at(7, 2)] = Tele { number: 0, id: 26 }; // number 0
    tele[at(8, 2)] = Tele { number: 4, id: 29 }; // checkpoint 4 without exit 4
    tele[at(9, 2)] = Tele { number: 5, id: 30 }; // checkpoint exit without checkpoint
    tele[at(10, 2)] = Tele { number: 0, id: 31 }; // checkpoint tele-in: exits exist
    let map = map_with(
        race_tiles(),
        Extra {
            tele: Some(tele),
            ..Extra::default()
        },
    );
    let missing: Vec<Vec<[u32; 2]>> = (of(&map, "tele-no-destination").into_iter())
        .map(|f| f.tiles)
        .collect();
    assert_eq!(missing, [vec![[4, 2], [5, 2]], vec![[8, 2]]]);
    let unused: Vec<Vec<[u32; 2]>> = (of(&map, "tele-unused-destination").into_iter())
        .map(|f| f.tiles)
        .collect();
    assert_eq!(unused, [vec![[6, 2]], vec![[9, 2]]]);
    assert_eq!(of(&map, "no-effect")[0].tiles, [[7, 2]]);
    // Checkpoint tele-ins in a map without checkpoint exits always go to spawn.
    let mut tele = vec![Tele::default(); W * H];
    tele[at(10, 2)] = Tele { number: 0, id: 63 };
    let map = map_with(
        race_tiles(),
        Extra {
            tele: Some(tele),
            ..Extra::default()
        },
    );
    let f = of(&map, "tele-no-destination");
    assert_eq!(f.len(), 1);
    assert!(f[0].message.contains("spawn"));
}

#[test]
fn switch_numbers_without_switches() {
    let switch = |number, id| Switch {
        number,
        id,
        flags: 0,
        delay: 0,
    };
    let mut tiles = vec![Switch::default(); W * H];
    tiles[at(2, 2)] = switch(1, 24); // switch 1 on
    tiles[at(3, 2)] = switch(1, 240); // a door of 1: has a switch
    tiles[at(4, 2)] = switch(2, 9); // freeze of 2: no switch
    tiles[at(5, 2)] = switch(3, 240); // door of 3: no switch, but switch_open 3
    tiles[at(6, 2)] = switch(4, 25); // switch 4 off: nothing uses 4
    tiles[at(7, 2)] = switch(0, 9); // freeze of 0: always on, fine
    tiles[at(8, 2)] = switch(9, 7); // jump count: its number is not a switch number
    let map = map_with(
        race_tiles(),
        Extra {
            switch: Some(tiles),
            settings: vec!["switch_open 3"],
            ..Extra::default()
        },
    );
    let missing = of(&map, "switch-no-switcher");
    assert_eq!(missing.len(), 2);
    assert_eq!(missing[0].tiles, [[4, 2]]);
    assert!(missing[0].message.contains("stays on"));
    assert_eq!(missing[1].tiles, [[5, 2]]);
    assert!(missing[1].message.contains("always off"));
    let unused = of(&map, "switch-unused");
    assert_eq!(unused.len(), 1);
    assert_eq!(unused[0].tiles, [[6, 2]]);
}

#[test]
fn spawn_start_finish_and_time_checkpoints() {
    // No spawn anywhere: an error. A spawn in the switch layer counts.
    let mut game = race_tiles();
    game[at(2, H - 2)] = tile(0);
    let map = map_with(game.clone(), Extra::default());
    let f = of(&map, "no-spawn");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].severity, Severity::Error);
    let mut switch = vec![Switch::default(); W * H];
    switch[at(2, 2)] = Switch {
        id: 193,
        ..Switch::default()
    };
    let map = map_with(
        game,
        Extra {
            switch: Some(switch),
            ..Extra::default()
        },
    );
    assert!(of(&map, "no-spawn").is_empty());
    // A start without a finish, and the reverse (a finish in the front layer counts).
    let mut game = race_tiles();
    game[at(16, H - 2)] = tile(0);
    let map = map_with(game.clone(), Extra::default());
    let f = of(&map, "start-finish");
    assert_eq!(f.len(), 1);
    assert!(f[0].message.starts_with("a start (33) but no finish"));
    let mut front = vec![Tile::default(); W * H];
    front[at(16, H - 2)] = tile(34);
    let map = map_with(
        game,
        Extra {
            front: Some(front),
            ..Extra::default()
        },
    );
    assert!(of(&map, "start-finish").is_empty());
    let mut game = race_tiles();
    game[at(4, H - 2)] = tile(0);
    let f = of(&map_with(game, Extra::default()), "start-finish");
    assert!(f[0].message.starts_with("a finish (34) but no start"));
    // A race without time checkpoints: a note.
    let mut game = race_tiles();
    game[at(8, H - 2)] = tile(0);
    let f = of(&map_with(game, Extra::default()), "no-time-checkpoints");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].severity, Severity::Note);
}

#[test]
fn tune_zones_without_settings() {
    let mut tune = vec![Tune::default(); W * H];
    tune[at(2, 2)] = Tune { number: 1, id: 68 };
    tune[at(3, 2)] = Tune { number: 2, id: 68 };
    tune[at(4, 2)] = Tune { number: 2, id: 68 };
    tune[at(5, 2)] = Tune { number: 3, id: 68 }; // only a message: in use
    let map = map_with(
        race_tiles(),
        Extra {
            tune: Some(tune),
            settings: vec!["tune_zone 1 gravity 0.2", "tune_zone_enter 3 \"hello\""],
            ..Extra::default()
        },
    );
    let f = of(&map, "tune-zone-unset");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].tiles, [[3, 2], [4, 2]]);
    assert!(f[0].message.contains("tune zone 2"));
}

#[test]
fn speedups_of_force_0_and_into_walls() {
    let speedup = |force, angle: i16| {
        let mut s = Speedup {
            force,
            max_speed: 0,
            id: 29,
            ..Speedup::default()
        };
        s.set_angle(angle);
        s
    };
    let mut tiles = vec![Speedup::default(); W * H];
    tiles[at(5, 5)] = speedup(0, 0); // force 0
    tiles[at(1, 5)] = speedup(10, 180); // left, into the wall at x = 0
    tiles[at(2, 5)] = speedup(10, 0); // right: open
    tiles[at(5, H - 2)] = speedup(10, 90); // down, into the floor
    tiles[at(6, H - 2)] = speedup(10, 270); // up: open
    let map = map_with(
        race_tiles(),
        Extra {
            speedup: Some(tiles),
            ..Extra::default()
        },
    );
    assert_eq!(of(&map, "speedup-force-0")[0].tiles, [[5, 5]]);
    assert_eq!(
        of(&map, "speedup-into-solid")[0].tiles,
        [[1, 5], [5, H as u32 - 2]]
    );
}

#[test]
fn stoppers_into_walls() {
    let mut game = race_tiles();
    // One-way stoppers on the floor row above the solid floor.
    let y = H - 2;
    game[at(10, y)] = turned(60, 3); // arrow down, into the floor
    game[at(11, y)] = turned(60, 0); // arrow up: fine
    game[at(12, y)] = turned(60, 2); // y-flipped: arrow down too
    game[at(1, 4)] = turned(60, 11); // arrow left into the wall? 11 forbids moving right: arrow left
                                     // A two-way stopper between solid tiles above and below.
    game[at(14, 3)] = tile(1);
    game[at(14, 5)] = tile(1);
    game[at(14, 4)] = turned(61, 0);
    game[at(15, 4)] = turned(61, 8); // horizontal: air left and right
    let map = map_with(game, Extra::default());
    let f = of(&map, "stopper-into-solid");
    assert_eq!(f.len(), 2);
    assert_eq!(f[0].tiles, [[1, 4], [10, y as u32], [12, y as u32]]);
    assert_eq!(f[1].tiles, [[14, 4]]);
}

/// A tele layer two tiles wider than the game layer, made in the datafile (the edit API keeps
/// physics layers as large as the game layer): DDNet loads it and reads it with the game
/// layer's width.
#[test]
fn physics_tiles_beyond_the_game_layer() {
    let mut tele = vec![Tele::default(); W * H];
    tele[at(1, 1)] = Tele { number: 1, id: 26 };
    tele[at(2, 1)] = Tele { number: 1, id: 27 };
    let map = map_with(
        race_tiles(),
        Extra {
            tele: Some(tele),
            ..Extra::default()
        },
    );
    let datafile = twcodec::Datafile::parse(&map.to_bytes().unwrap()).unwrap();
    let mut writer = twcodec::DatafileWriter::from_datafile(&datafile);
    // The tele layer: a layer item (type 5) with tilemap flag 2; its tiles in data `i[18]`.
    let item = (writer.items_mut().iter_mut())
        .find(|item| item.type_id() == 5 && item.data.get(6) == Some(&2))
        .unwrap();
    item.data[4] = (W + 2) as i32;
    let data = item.data[18] as usize;
    let mut tiles = vec![0u8; (W + 2) * H * 2];
    tiles[((W + 2) + W + 1) * 2..][..2].copy_from_slice(&[1, 26]);
    writer.replace_data(data, tiles).unwrap();
    let map = Map::parse(&writer.to_vec().unwrap()).unwrap();
    let f = of(&map, "outside-game-area");
    assert_eq!(f.len(), 1, "{:?}", found(&map));
    assert_eq!(f[0].tiles, [[W as u32 + 1, 1]]);
}

#[test]
fn check_ids_are_listed_and_documented() {
    let docs = std::fs::read_to_string(common::root().join("docs/checks.md")).unwrap();
    for id in ddnet::CHECKS {
        assert!(
            docs.contains(&format!("`{id}`")),
            "docs/checks.md lacks {id}"
        );
    }
    for id in twcodec_tools::check::rules::RULES {
        assert!(
            docs.contains(&format!("`{id}`")),
            "docs/checks.md lacks {id}"
        );
    }
}

// ---- the rules file ------------------------------------------------------------------------

fn rules(text: &str) -> RuleSet {
    RuleSet::parse(text, "rules.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn rule_error(text: &str) -> String {
    RuleSet::parse(text, "rules.toml").unwrap_err().to_string()
}

#[test]
fn every_rule_finds_what_it_says() {
    let mut tele = vec![Tele::default(); W * H];
    tele[at(3, 3)] = Tele { number: 1, id: 26 };
    let map = map_with(
        race_tiles(),
        Extra {
            tele: Some(tele),
            settings: vec!["sv_team 1", "sv_password x"],
            ..Extra::default()
        },
    );
    let set = rules(
        r#"
        [limits]
        max-file-size = 100
        max-width = 10
        max-height = 100
        max-layers = 1
        max-groups = 5
        max-images = 0
        max-sounds = 5

        [tiles]
        required = ["spawn", "switch:24", "freeze"]
        forbidden = ["tele:tele-in", "start"]

        [settings]
        allowed = ["sv_team", "tune*"]
        forbidden = ["sv_pass*"]

        [info]
        required = ["author", "license"]
        licenses = ["CC0"]
        "#,
    );
    let found: Vec<(String, String)> = (set.check(&map, Some(2000)).into_iter())
        .map(|f| (f.check, f.message))
        .collect();
    let checks: Vec<&str> = found.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(
        checks,
        [
            "limits.max-file-size",
            "limits.max-width",
            "limits.max-layers",
            "tiles.required",
            "tiles.required",
            "tiles.forbidden",
            "tiles.forbidden",
            "settings.allowed",
            "settings.forbidden",
            "info.licenses",
        ],
        "{found:#?}"
    );
    assert_eq!(
        found[0].1,
        "the file is 2000 bytes, more than the 100 allowed"
    );
    assert_eq!(found[3].1, "no \"switch:24\" tile, which the rules require");
    assert_eq!(found[4].1, "no \"freeze\" tile, which the rules require");
    assert!(found[7].1.contains("\"sv_password\""), "{}", found[7].1);
    // The sample's license is not CC0.
    assert!(found[9].1.starts_with("license "), "{}", found[9].1);
}

#[test]
fn severities_change_and_turn_off_checks() {
    let map = map_with(race_tiles(), Extra::default());
    let set = rules(
        r#"
        ddnet = true
        [limits]
        max-width = 10
        max-height = 5
        [severity]
        "limits.max-width" = "warning"
        "limits.max-height" = "off"
        "#,
    );
    assert!(set.ddnet());
    let found = set.check(&map, None);
    assert_eq!(found.len(), 1);
    assert_eq!(
        (found[0].check.as_str(), found[0].severity),
        ("limits.max-width", Severity::Warning)
    );
    // Gameplay findings take the file's severities too.
    let mut game = race_tiles();
    game[at(3, 3)] = tile(8);
    let map = map_with(game, Extra::default());
    let set = rules("[severity]\n\"unknown-id\" = \"error\"\n");
    let f = set.apply_severity(ddnet::check(&map));
    assert_eq!(f[0].severity, Severity::Error);
    let set = rules("[severity]\n\"unknown-id\" = \"off\"\n");
    assert!(set.apply_severity(ddnet::check(&map)).is_empty());
}

#[test]
fn images_and_sounds() {
    let map = twcodec_testkit::sample::map().unwrap();
    let set = rules(
        "[images]\nexternal = false\nmax-width = 1\nmax-height = 1\nmax-data-size = 1\n\
         [sounds]\nallowed = false\nmax-data-size = 1\n",
    );
    let checks: Vec<String> = set.check(&map, None).into_iter().map(|f| f.check).collect();
    for expected in [
        "images.external",
        "images.max-width",
        "images.max-height",
        "images.max-data-size",
        "sounds.allowed",
        "sounds.max-data-size",
    ] {
        assert!(
            checks.iter().any(|c| c == expected),
            "{expected} in {checks:?}"
        );
    }
}

#[test]
fn bad_rule_files_are_errors_naming_the_place() {
    let e = rule_error("[limits]\nmax-widht = 3\n");
    assert!(e.contains("rules.toml") && e.contains("max-widht"), "{e}");
    assert!(e.contains("line 2"), "{e}");
    let e = rule_error("[limits]\nmax-width = \"big\"\n");
    assert!(e.contains("invalid type"), "{e}");
    let e = rule_error("[tiles]\nrequired = [\"frezee\"]\n");
    assert!(
        e.contains("tiles.required") && e.contains("did you mean \"freeze\""),
        "{e}"
    );
    let e = rule_error("[tiles]\nforbidden = [\"floor:1\"]\n");
    assert!(e.contains("no layer kind \"floor\""), "{e}");
    let e = rule_error("[severity]\n\"speedup-force0\" = \"off\"\n");
    assert!(e.contains("did you mean \"speedup-force-0\""), "{e}");
    let e = rule_error("[severity]\n\"no-spawn\" = \"fatal\"\n");
    assert!(e.contains("unknown variant"), "{e}");
    let e = rule_error("[settings]\nallowed = [\"sv_[\"]\n");
    assert!(e.contains("settings.allowed"), "{e}");
    let e = rule_error("[info]\nrequired = [\"email\"]\n");
    assert!(e.contains("unknown variant"), "{e}");
    // Not TOML at all.
    assert!(rule_error("\u{0}\u{1}[[[").contains("rules.toml"));
}

// ---- the command ---------------------------------------------------------------------------

fn twcodec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .output()
        .expect("the twcodec binary runs")
}

fn faulty_map(dir: &tempfile::TempDir) -> String {
    let mut game = race_tiles();
    game[at(2, H - 2)] = tile(0); // no spawn
    game[at(3, 3)] = tile(8);
    let path = dir.path().join("faulty, map.map");
    std::fs::write(&path, map_with(game, Extra::default()).to_bytes().unwrap()).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn the_command_writes_text_json_and_github_annotations() {
    let dir = tempfile::tempdir().unwrap();
    let file = faulty_map(&dir);
    // Without --ddnet: what the reader finds only.
    let out = twcodec(&["check", &file]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("no-spawn"));
    let out = twcodec(&["check", "--ddnet", &file]);
    let text = String::from_utf8_lossy(&out.stdout).replace(&file, "FILE");
    assert_eq!(out.status.code(), Some(0), "lenient");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "FILE: 1 error, 1 warning (lenient: use --strict to fail on errors)"
    );
    assert!(
        lines[1].starts_with(
            "FILE: warning: game layer #0 \"Game\": 1 tile at 3,3: id 8 is not a game tile"
        ),
        "{}",
        lines[1]
    );
    assert!(lines[1].ends_with("[unknown-id]"), "{}", lines[1]);
    assert!(
        lines[2].starts_with("FILE: error: no spawn"),
        "{}",
        lines[2]
    );
    assert_eq!(
        twcodec(&["check", "--ddnet", "--strict", &file])
            .status
            .code(),
        Some(1)
    );
    // JSON: one document, every tile listed.
    let out = twcodec(&["check", "--ddnet", "--format", "json", &file]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let map = &json["maps"][0];
    assert_eq!(map["file"], file.as_str());
    assert_eq!(
        (map["errors"].as_u64(), map["warnings"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(map["findings"][0]["check"], "unknown-id");
    assert_eq!(map["findings"][0]["layer"]["kind"], "game");
    assert_eq!(map["findings"][0]["tiles"], serde_json::json!([[3, 3]]));
    assert_eq!(map["findings"][1]["severity"], "error");
    // GitHub annotations: the file's comma escaped.
    let out = twcodec(&["check", "--ddnet", "--format", "github", &file]);
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("::warning file="), "{first}");
    assert!(
        first.contains("faulty%2C map.map,title=twcodec check unknown-id::game layer #0"),
        "{first}"
    );
    assert!(
        text.lines().nth(1).unwrap().starts_with("::error file="),
        "{text}"
    );
}

#[test]
fn the_command_applies_a_rules_file_and_fails_on_its_errors() {
    let dir = tempfile::tempdir().unwrap();
    let file = faulty_map(&dir);
    let rules = dir.path().join("rules.toml");
    std::fs::write(
        &rules,
        "ddnet = true\n[severity]\n\"no-spawn\" = \"warning\"\n",
    )
    .unwrap();
    let rules = rules.to_string_lossy().into_owned();
    // The gameplay checks run (ddnet = true), the spawn is now a warning: exit 0.
    let out = twcodec(&["check", "--rules", &rules, &file]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("warning: no spawn"), "{text}");
    assert_eq!(out.status.code(), Some(0), "{text}");
    // A rule that fails: exit 1 without --strict.
    std::fs::write(&rules, "[tiles]\nrequired = [\"spawn\"]\n").unwrap();
    let out = twcodec(&["check", "--rules", &rules, &file]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("error: no \"spawn\" tile, which the rules require [tiles.required]"),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(1));
    // A bad rules file: a usage error naming it, before any map is read.
    std::fs::write(&rules, "[tiles]\nrequired = 3\n").unwrap();
    let out = twcodec(&["check", "--rules", &rules, &file]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rules.toml"), "{err}");
    assert_ne!(out.status.code(), Some(0));
    // A rules file that is a directory is refused.
    let out = twcodec(&["check", "--rules", &dir.path().to_string_lossy(), &file]);
    assert_ne!(out.status.code(), Some(0));
}

/// The corpus, against twmap-check-ddnet 0.5.3's counts on the 28 maps it loads (docs/checks.md
/// says how they were made): the same speedups of force 0, undefined ids, checkpoint
/// teleporters without exits.
#[test]
fn the_corpus_findings() {
    let Some(maps) = common::corpus_maps() else {
        return;
    };
    let mut total = std::collections::BTreeMap::<String, usize>::new();
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for path in &maps {
        let map = Map::open_with(path, twcodec::LoadMode::Lenient).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for f in ddnet::check(&map) {
            let n = f.tiles.len().max(1);
            *total
                .entry(format!("{}/{}", f.check, f.layer.map_or("", |l| l.kind)))
                .or_default() += n;
            // The one map whose special layers are all one tile (a DDNet++ mod map), apart.
            if name != "ddnetpp_survival_ext_sounds.map" {
                match f.check.as_str() {
                    "speedup-force-0" => *counts.entry("force 0").or_default() += n,
                    "unknown-id" => *counts.entry("unknown ids").or_default() += n,
                    _ => {}
                }
            }
        }
    }
    // twmap-check-ddnet counts 13,129 and 769 on the 28 maps it loads; of the maps it cannot
    // load, one more (infclass_infc_warehouse_flag_reuse) has 14 undefined game tiles
    // (docs/checks.md).
    assert_eq!(counts["force 0"], 13_129);
    assert_eq!(counts["unknown ids"], 769 + 14);
    common::insta_settings().bind(|| insta::assert_debug_snapshot!("check_corpus_totals", total));
}

/// Settings the server skips or reads otherwise, each as DDNet's console and config code do
/// (the messages the DDNet server printed for trace_Nature's settings: "No such command",
/// "cannot be executed from a map").
#[test]
fn map_settings_the_server_skips_or_changes() {
    let mut switch = vec![Switch::default(); W * H];
    switch[at(2, 2)] = Switch {
        number: 3,
        id: 24,
        flags: 0,
        delay: 0,
    };
    let map = map_with(
        race_tiles(),
        Extra {
            switch: Some(switch),
            settings: vec![
                "sv_team 1",
                "sv_hit 0; sv_deepfly 1 # a comment; sv_nonsense 1",
                "sv_gametype race",
                "sv_team 7",
                "sv_team",
                "sv_team one",
                "tune gravity 0.3",
                "tune gravty 0.3",
                "tune_zone 300 gravity 1",
                "tune_zone 1 gravity",
                "tune_zone_enter 2 \"Welcome; to zone 2\"",
                "switch_open 3",
                "switch_open 4",
                "mapbug grenade-doubleexplosion@ddnet.tw",
                "mapbug nothing@ddnet.tw",
            ],
            ..Extra::default()
        },
    );
    let messages: Vec<String> = of(&map, "map-setting")
        .into_iter()
        .map(|f| f.message)
        .collect();
    let setting = |m: &String| m.split_once(": ").map(|(s, _)| s.to_string()).unwrap();
    assert_eq!(
        messages.iter().map(setting).collect::<Vec<_>>(),
        [
            "setting #2 \"sv_gametype race\"",
            "setting #3 \"sv_team 7\"",
            "setting #4 \"sv_team\"",
            "setting #5 \"sv_team one\"",
            "setting #7 \"tune gravty 0.3\"",
            "setting #8 \"tune_zone 300 gravity 1\"",
            "setting #9 \"tune_zone 1 gravity\"",
            "setting #12 \"switch_open 4\"",
            "setting #14 \"mapbug nothing@ddnet.tw\"",
        ],
        "{messages:#?}"
    );
    assert!(messages[1].ends_with("`sv_team 7` is outside 0 to 3: config.cpp clamps it to 3"));
    assert!(
        messages[4].contains("did you mean gravity?"),
        "{}",
        messages[4]
    );
    assert!(
        messages[7].contains("no switch number 4"),
        "{}",
        messages[7]
    );
}

/// 3000 groups each holding the same 2000 layers: the checks look at each (group, layer) pair
/// once and read the tiles of the six physics layers DDNet plays with once, so they find on
/// it what they find on the sample it was built from.
#[test]
fn groups_sharing_layers_are_checked_once() {
    let sample = twcodec_testkit::sample::map().unwrap();
    let hostile = Map::parse(&common::hostile::groups_sharing_layers(3000, 2000)).unwrap();
    let strip = |findings: Vec<Finding>| -> Vec<(String, Option<String>, Vec<[u32; 2]>)> {
        (findings.into_iter())
            .map(|f| (f.check, f.layer.map(|l| l.kind.to_string()), f.tiles))
            .collect()
    };
    let expected = strip(ddnet::check(&sample));
    assert!(!expected.is_empty());
    assert_eq!(strip(ddnet::check(&hostile)), expected);
    let set = rules("[tiles]\nforbidden = [\"tele:tele-in\", \"1\"]\nrequired = [\"freeze\"]\n");
    assert_eq!(
        strip(set.check(&hostile, None)),
        strip(set.check(&sample, None))
    );
}
