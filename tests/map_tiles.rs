//! Tiles changed in place (`src/map/edit/tiles.rs`): DDNet's "Game tiles" button
//! (`Map::fill_game_tiles`) and replacing a tile by another (`Map::replace_tiles`), on maps
//! built here. Where a result can be computed another way (the grids read back, positions
//! worked out from the group's offset), it is compared with that computation; every edited map
//! is written and read back.

mod common;

use common::Rng;
use twcodec::map::edit::{GameTilesReport, ReplaceTilesReport, TileRect, TileSpec};
use twcodec::map::{GameTileOp, Grid, Group, ItemRef, Layer, LayerContent, NewGroup};
use twcodec::schema::map::quad::Quad;
use twcodec::schema::map::tile::{Speedup, Switch, Tele, Tile, Tune};
use twcodec::schema::map::Point;
use twcodec::{ErrorKind, Map};

/// The game layer's size in the maps built here.
const GW: usize = 10;
const GH: usize = 7;

fn tile(id: u8) -> Tile {
    Tile {
        id,
        ..Tile::default()
    }
}

/// A `w` x `h` grid of tiles: about half of them empty, the others ids 1..=4 with random
/// flags.
fn pattern(w: usize, h: usize, seed: u64) -> Grid<Tile> {
    let mut rng = Rng(seed);
    let tiles = (0..w * h)
        .map(|_| {
            let r = rng.next();
            match r % 2 {
                0 => Tile::default(),
                _ => Tile {
                    id: 1 + (r >> 8) as u8 % 4,
                    flags: (r >> 16) as u8 & 11,
                    ..Tile::default()
                },
            }
        })
        .collect();
    Grid::new(w, h, tiles).expect("a grid")
}

/// A map with a `GW` x `GH` game layer (a random pattern of game tiles) in group "Game", and
/// a tiles layer "Design" of `design` in a group of its own drawn as `group` says. Also a
/// quads layer in the design group, to refuse.
fn map_with(group: NewGroup, design: Grid<Tile>) -> Map {
    let mut map = twcodec_testkit::sample::empty_map().expect("the sample");
    let game_group = map.add_group(NewGroup::new("Game")).expect("a group");
    let game = pattern(GW, GH, 99);
    map.add_layer(game_group, Layer::new_game(game).expect("a game layer"))
        .expect("added");
    let design_group = map.add_group(group).expect("a group");
    map.add_layer(
        design_group,
        Layer::new_tiles("Design", design).expect("a layer"),
    )
    .expect("added");
    let quad: Quad = twcodec_testkit::sample::quad([(0, 0); 4], [255; 4]);
    map.add_layer(
        design_group,
        Layer::new_quads("Quads", vec![quad]).expect("a layer"),
    )
    .expect("added");
    map
}

/// A group drawn as the game layer is.
fn game_like() -> NewGroup {
    NewGroup::new("Design")
}

/// A group at this offset in pixels, parallax 100.
fn offset(x: i32, y: i32) -> NewGroup {
    NewGroup {
        offset: Point { x, y },
        ..NewGroup::new("Design")
    }
}

fn game(map: &Map) -> Grid<Tile> {
    map.game_layer()
        .and_then(|(_, t)| t.grid().cloned())
        .expect("a game layer")
}

/// The grid of the last layer of a kind.
fn front(map: &Map) -> Option<Grid<Tile>> {
    map.layers().iter().rev().find_map(|l| match l.content() {
        LayerContent::Front(t) => t.grid().cloned(),
        _ => None,
    })
}

fn tele(map: &Map) -> Option<Grid<Tele>> {
    map.layers().iter().rev().find_map(|l| match l.content() {
        LayerContent::Tele(t) => t.grid().cloned(),
        _ => None,
    })
}

fn layer(map: &Map, spec: &str) -> ItemRef<Layer> {
    map.find_layer(spec).expect("the layer")
}

/// Writes the map and reads it back: it loads with no more problems than it had, and its
/// physics layers are as large as its game layer.
fn reloaded(map: &Map) -> Map {
    let again = Map::parse(&map.to_bytes().expect("writes")).expect("reads back");
    assert_eq!(
        again.problems().len(),
        map.problems().len(),
        "{:?}",
        again.problems()
    );
    let size = |l: &Layer| l.tilemap().map(|t| (t.width, t.height));
    let game = again.game_layer().map(|(r, _)| size(again.get(r).unwrap()));
    for physics in again.layers().iter().filter(|l| l.is_physics()) {
        assert_eq!(Some(size(physics)), game, "{}", physics.kind_name());
    }
    again
}

/// The fill as an independent computation: where each design tile lands for a group offset
/// of whole tiles (`ox`, `oy` in game tiles), skipping those left of or above the game
/// layer.
fn landings(design: &Grid<Tile>, ox: i64, oy: i64) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for y in 0..design.height() {
        for x in 0..design.width() {
            let (gx, gy) = (x as i64 + ox, y as i64 + oy);
            if design.get(x, y).unwrap().id != 0 && gx >= 0 && gy >= 0 {
                out.push((gx as usize, gy as usize));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Game tiles

/// The tile each op writes, from DDNet's `GameTileOpToIndex` (game layer), written down here
/// apart from the library's table.
const OPS: [(GameTileOp, &str, u8); 13] = [
    (GameTileOp::Air, "air", 0),
    (GameTileOp::Hookable, "hookable", 1),
    (GameTileOp::Death, "death", 2),
    (GameTileOp::Unhookable, "unhookable", 3),
    (GameTileOp::Hookthrough, "hookthrough", 5),
    (GameTileOp::Freeze, "freeze", 9),
    (GameTileOp::Unfreeze, "unfreeze", 11),
    (GameTileOp::DeepFreeze, "deep-freeze", 12),
    (GameTileOp::DeepUnfreeze, "deep-unfreeze", 13),
    (GameTileOp::BlueCheckTele, "blue-check-tele", 31),
    (GameTileOp::RedCheckTele, "red-check-tele", 63),
    (GameTileOp::LiveFreeze, "live-freeze", 144),
    (GameTileOp::LiveUnfreeze, "live-unfreeze", 145),
];

#[test]
fn ops_are_named_and_numbered_as_in_ddnets_editor() {
    assert_eq!(GameTileOp::ALL.len(), OPS.len());
    for (op, name, id) in OPS {
        assert_eq!(op.name(), name);
        assert_eq!(op.tile_id(), id, "{name}");
        assert_eq!(GameTileOp::from_name(name), Some(op));
        assert_eq!(GameTileOp::from_name(op.editor_name()), Some(op));
        assert_eq!(
            GameTileOp::from_name(&name.to_uppercase().replace('-', "_")),
            Some(op)
        );
    }
    assert_eq!(GameTileOp::DeepFreeze.editor_name(), "Deep Freeze");
    assert_eq!(GameTileOp::from_name("frozen"), None);
}

#[test]
fn every_op_writes_its_tile_where_the_layer_has_tiles_and_nothing_else() {
    let design = pattern(GW, GH, 1);
    for (op, name, id) in OPS {
        let mut map = map_with(game_like(), design.clone());
        let before = game(&map);
        let report = map
            .fill_game_tiles(layer(&map, "Design"), op)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let places = landings(&design, 0, 0);
        assert_eq!(report.tiles, places.len(), "{name}");
        let after = game(&map);
        let map = reloaded(&map);
        assert_eq!(game(&map), after, "{name}: the game layer reads back");
        match op {
            GameTileOp::BlueCheckTele | GameTileOp::RedCheckTele => {
                assert_eq!(after, before, "{name}: the game layer stays");
                let tele = tele(&map).expect("a tele layer was added");
                assert_eq!(report.added.len(), 1);
                assert_eq!(report.target_kind, "tele");
                for y in 0..GH {
                    for x in 0..GW {
                        let t = tele.get(x, y).unwrap();
                        let want = match places.contains(&(x, y)) {
                            true => Tele { number: 1, id },
                            false => Tele::default(),
                        };
                        assert_eq!(*t, want, "{name} at {x},{y}");
                    }
                }
            }
            _ => {
                // Hookthrough: unhookable in the game layer, 5 in the front layer.
                let game_id = if op == GameTileOp::Hookthrough { 3 } else { id };
                for y in 0..GH {
                    for x in 0..GW {
                        let want = match places.contains(&(x, y)) {
                            true => tile(game_id),
                            false => *before.get(x, y).unwrap(),
                        };
                        assert_eq!(*after.get(x, y).unwrap(), want, "{name} at {x},{y}");
                    }
                }
                let changed = places
                    .iter()
                    .filter(|&&(x, y)| *before.get(x, y).unwrap() != tile(game_id))
                    .count();
                assert_eq!(report.changed, changed, "{name}");
                if op == GameTileOp::Hookthrough {
                    let front = front(&map).expect("a front layer was added");
                    assert_eq!(report.front, places.len());
                    for y in 0..GH {
                        for x in 0..GW {
                            let id = front.get(x, y).unwrap().id;
                            assert_eq!(id == 5, places.contains(&(x, y)), "front at {x},{y}");
                            assert!(id == 5 || id == 0);
                        }
                    }
                } else {
                    assert!(front(&map).is_none(), "{name} adds no front layer");
                    assert!(report.added.is_empty());
                }
            }
        }
        assert!(report.enlarged.is_none());
    }
}

#[test]
fn the_oracle_freeze_is_nine_exactly_where_the_design_layer_has_tiles() {
    // Random designs, random game layers: 9 exactly under non-empty design tiles, the game
    // layer's own tile elsewhere.
    for seed in 0..20 {
        let design = pattern(GW, GH, 1000 + seed);
        let mut map = map_with(game_like(), design.clone());
        let before = game(&map);
        map.fill_game_tiles(layer(&map, "Design"), GameTileOp::Freeze)
            .expect("filled");
        let after = game(&map);
        for ((d, b), a) in design.tiles().iter().zip(before.tiles()).zip(after.tiles()) {
            match d.id {
                0 => assert_eq!(a, b),
                _ => assert_eq!(*a, tile(9)),
            }
        }
        // Twice is once.
        let again = map
            .fill_game_tiles(layer(&map, "Design"), GameTileOp::Freeze)
            .expect("filled");
        assert_eq!(again.changed, 0);
        assert_eq!(game(&map), after);
    }
}

#[test]
fn group_offsets_move_the_tiles_and_the_physics_layers_grow_to_hold_them() {
    // Offset (64, -32) px: design column x lands on game column x - 2, row y on row y + 1.
    let design = pattern(GW, GH, 7);
    let mut map = map_with(offset(64, -32), design.clone());
    let before = game(&map);
    let report = map
        .fill_game_tiles(layer(&map, "Design"), GameTileOp::DeepFreeze)
        .expect("filled");
    let places = landings(&design, -2, 1);
    assert_eq!(report.tiles, places.len());
    // The layer reaches one row below the game layer: every physics layer grows by a row.
    assert_eq!(report.enlarged, Some(((GW, GH), (GW, GH + 1))));
    let map = reloaded(&map);
    let after = game(&map);
    assert_eq!((after.width(), after.height()), (GW, GH + 1));
    for y in 0..GH + 1 {
        for x in 0..GW {
            let want = if places.contains(&(x, y)) {
                tile(12)
            } else if y < GH {
                *before.get(x, y).unwrap()
            } else {
                Tile::default()
            };
            assert_eq!(*after.get(x, y).unwrap(), want, "{x},{y}");
        }
    }

    // Offset (-96, 0): three columns to the right, past the game layer's edge; the physics
    // layers there (front, tele, speedup, switch, tune) grow with the game layer, keeping
    // their tiles at the top left.
    let design = pattern(GW, GH, 8);
    let mut map = map_with(offset(-96, 0), design.clone());
    let game_group = map.refs::<Group>().next().unwrap();
    let mut speedup = Grid::filled(GW, GH, Speedup::default()).unwrap();
    speedup.get_mut(GW - 1, GH - 1).unwrap().force = 7;
    speedup.get_mut(GW - 1, GH - 1).unwrap().id = 28;
    map.add_layer(game_group, Layer::new_speedup(speedup).unwrap())
        .unwrap();
    let mut tele = Grid::filled(GW, GH, Tele::default()).unwrap();
    *tele.get_mut(0, 0).unwrap() = Tele { number: 4, id: 26 };
    map.add_layer(game_group, Layer::new_tele(tele).unwrap())
        .unwrap();
    let switch = Grid::filled(GW, GH, Switch::default()).unwrap();
    map.add_layer(game_group, Layer::new_switch(switch).unwrap())
        .unwrap();
    let tune = Grid::filled(GW, GH, Tune::default()).unwrap();
    map.add_layer(game_group, Layer::new_tune(tune).unwrap())
        .unwrap();
    let front = Grid::filled(GW, GH, tile(9)).unwrap();
    map.add_layer(game_group, Layer::new_front(front).unwrap())
        .unwrap();
    let report = map
        .fill_game_tiles(layer(&map, "Design"), GameTileOp::Hookable)
        .expect("filled");
    assert_eq!(report.enlarged, Some(((GW, GH), (GW + 3, GH))));
    assert_eq!(report.tiles, landings(&design, 3, 0).len());
    let map = reloaded(&map);
    let after = game(&map);
    for &(x, y) in &landings(&design, 3, 0) {
        assert_eq!(*after.get(x, y).unwrap(), tile(1));
    }
    let speedup = map
        .layers()
        .iter()
        .find_map(|l| match l.content() {
            LayerContent::Speedup(t) => t.grid().cloned(),
            _ => None,
        })
        .unwrap();
    assert_eq!(speedup.width(), GW + 3);
    assert_eq!(speedup.get(GW - 1, GH - 1).unwrap().force, 7);
    assert_eq!(speedup.get(GW, GH - 1).unwrap().force, 0);
    assert_eq!(
        *crate::tele(&map).unwrap().get(0, 0).unwrap(),
        Tele { number: 4, id: 26 }
    );
    // The front layer's freeze stays (only hookthrough is cleared), and its new columns are
    // air.
    let front = crate::front(&map).unwrap();
    assert_eq!(front.get(GW - 1, 0).unwrap().id, 9);
    assert_eq!(front.get(GW, 0).unwrap().id, 0);

    // Offset (320, 224): the whole layer lands left of and above the game layer but for its
    // last tile, at game (0, 0).
    let mut design = Grid::filled(GW, GH, tile(1)).unwrap();
    *design.get_mut(3, 2).unwrap() = Tile::default();
    let mut map = map_with(offset(32 * (GW as i32 - 1), 32 * (GH as i32 - 1)), design);
    let report = map
        .fill_game_tiles(layer(&map, "Design"), GameTileOp::Death)
        .expect("filled");
    assert_eq!((report.tiles, report.enlarged), (1, None));
    assert_eq!(game(&map).get(0, 0).unwrap().id, 2);
}

#[test]
fn groups_that_scroll_otherwise_are_refused_and_nothing_changes() {
    let cases = [
        (
            NewGroup {
                parallax: Point { x: 50, y: 100 },
                ..NewGroup::new("Far")
            },
            "has parallax (50, 100); game tiles need parallax (100, 100)",
        ),
        (
            NewGroup {
                parallax: Point { x: 100, y: 0 },
                ..NewGroup::new("Far")
            },
            "has parallax (100, 0)",
        ),
        (
            offset(16, 0),
            "has offset (16, 0) px; game tiles need an offset of whole tiles",
        ),
        (offset(0, -33), "has offset (0, -33) px"),
    ];
    for (group, message) in cases {
        let mut map = map_with(group, pattern(GW, GH, 3));
        let before = map.to_bytes().unwrap();
        let error = map
            .fill_game_tiles(layer(&map, "Design"), GameTileOp::Freeze)
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidEdit);
        assert!(error.message().contains(message), "{error}");
        assert!(
            error.message().starts_with("layer #1's group #1"),
            "{error}"
        );
        assert_eq!(map.to_bytes().unwrap(), before);
    }
}

#[test]
fn check_teles_go_into_the_tele_layer_with_number_one() {
    let design = pattern(GW, GH, 11);
    let mut map = map_with(game_like(), design.clone());
    let r = map
        .fill_game_tiles(layer(&map, "Design"), GameTileOp::RedCheckTele)
        .expect("filled");
    // The tele layer is added at the end of the game group, after the game layer: the
    // design layer moves up by one.
    assert_eq!(r.added, vec![(1, "tele")]);
    assert_eq!((r.layer, r.target), (2, Some(1)));
    assert!(
        r.fact().contains("red-check-tele (63) in tele layer #1"),
        "{}",
        r.fact()
    );
    // The existing tele layer is written the second time, keeping other numbers.
    let mut map = reloaded(&map);
    let places = landings(&design, 0, 0);
    let tele_now = tele(&map).unwrap();
    for &(x, y) in &places {
        assert_eq!(*tele_now.get(x, y).unwrap(), Tele { number: 1, id: 63 });
    }
    let r = map
        .fill_game_tiles(layer(&map, "Design"), GameTileOp::BlueCheckTele)
        .expect("filled");
    assert!(r.added.is_empty());
    assert_eq!(r.changed, places.len());
    for &(x, y) in &places {
        assert_eq!(
            *tele(&map).unwrap().get(x, y).unwrap(),
            Tele { number: 1, id: 31 }
        );
    }
    // A layer with no tiles adds no tele layer.
    let mut map = map_with(game_like(), Grid::filled(GW, GH, Tile::default()).unwrap());
    let r = map
        .fill_game_tiles(layer(&map, "Design"), GameTileOp::BlueCheckTele)
        .expect("filled");
    assert_eq!((r.tiles, r.target), (0, None));
    assert!(tele(&map).is_none());
}

#[test]
fn hookthrough_writes_game_three_and_front_five_and_other_ops_clear_the_five() {
    let mut design = Grid::filled(GW, GH, Tile::default()).unwrap();
    for x in 2..6 {
        *design.get_mut(x, 3).unwrap() = tile(1);
    }
    let mut map = map_with(game_like(), design);
    let r = map
        .fill_game_tiles(layer(&map, "Design"), GameTileOp::Hookthrough)
        .expect("filled");
    assert_eq!((r.tiles, r.front), (4, 4));
    assert_eq!(r.added, vec![(1, "front")]);
    assert!(
        r.fact().contains("hookthrough (game 3, front 5)"),
        "{}",
        r.fact()
    );
    let mut map = reloaded(&map);
    for x in 2..6 {
        assert_eq!(game(&map).get(x, 3).unwrap().id, 3);
        assert_eq!(front(&map).unwrap().get(x, 3).unwrap().id, 5);
    }
    // Freeze over the same tiles: the front layer's hookthrough goes.
    let r = map
        .fill_game_tiles(layer(&map, "Design"), GameTileOp::Freeze)
        .expect("filled");
    assert_eq!((r.changed, r.front), (4, 4));
    let front = front(&map).unwrap();
    assert!(front.tiles().iter().all(|t| t.id == 0));
    assert!((2..6).all(|x| game(&map).get(x, 3).unwrap().id == 9));
}

#[test]
fn game_tiles_refuse_what_they_cannot_do() {
    let mut map = map_with(game_like(), pattern(GW, GH, 5));
    let before = map.to_bytes().unwrap();
    let fail = |map: &mut Map, spec: &str, op| -> String {
        let r = layer(map, spec);
        map.fill_game_tiles(r, op).unwrap_err().to_string()
    };
    assert!(fail(&mut map, "Quads", GameTileOp::Freeze)
        .contains("layer #2 is a quads layer; game tiles are made from a tiles layer"));
    assert!(fail(&mut map, "Game", GameTileOp::Freeze).contains("layer #0 is a game layer"));
    let error = map.find_layer("Nope").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidOptions);
    assert!(
        error.message().starts_with("the map has no layer \"Nope\"")
            && error.message().contains("#1 \"Design\""),
        "{error}"
    );
    assert!(map.find_layer("3").is_err(), "an index past the layers");
    // A reference of another map (a clone is one) is refused.
    let stale = layer(&map, "Design");
    let mut other = map.clone();
    assert!(other.fill_game_tiles(stale, GameTileOp::Air).is_err());
    assert_eq!(map.to_bytes().unwrap(), before);

    // An offset that puts the layer 2^26 tiles right: more tiles than a layer may have.
    let mut map = map_with(offset(i32::MIN, 0), pattern(GW, GH, 5));
    let error = map
        .fill_game_tiles(layer(&map, "Design"), GameTileOp::Freeze)
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert!(
        error
            .message()
            .contains("needs physics layers of 67108874x7 tiles")
            && error.message().contains("Limits::max_tiles"),
        "{error}"
    );

    // A map without a game layer.
    let mut map = map_with(game_like(), pattern(GW, GH, 5));
    map.remove_layer(layer(&map, "Game")).unwrap();
    let error = map
        .fill_game_tiles(layer(&map, "Design"), GameTileOp::Freeze)
        .unwrap_err();
    assert!(error.message().contains("no game layer"), "{error}");
}

// ---------------------------------------------------------------------------------------------
// Replacing tiles

#[test]
fn replacing_in_a_rectangle_touches_the_rectangle_only() {
    for seed in 0..10 {
        let mut map = map_with(game_like(), pattern(GW, GH, 50 + seed));
        let before = map
            .layers()
            .iter()
            .find_map(|l| match l.content() {
                LayerContent::Tiles(t) => t.grid().cloned(),
                _ => None,
            })
            .unwrap();
        let area = TileRect::new(2, 1, 5, 4);
        let from = TileSpec::new(2);
        let to = TileSpec::new(7);
        let report = map
            .replace_tiles(layer(&map, "Design"), from, to, Some(area))
            .expect("replaced");
        let map = reloaded(&map);
        let after = map
            .layers()
            .iter()
            .find_map(|l| match l.content() {
                LayerContent::Tiles(t) => t.grid().cloned(),
                _ => None,
            })
            .unwrap();
        let mut count = 0;
        for y in 0..GH {
            for x in 0..GW {
                let (b, a) = (before.get(x, y).unwrap(), after.get(x, y).unwrap());
                let inside = (2..7).contains(&x) && (1..5).contains(&y);
                if inside && b.id == 2 {
                    count += 1;
                    // The orientation stays; the opaque bit goes with the old id.
                    assert_eq!(
                        *a,
                        Tile {
                            id: 7,
                            flags: b.flags & !4,
                            ..*b
                        }
                    );
                } else {
                    assert_eq!(a, b, "{x},{y}");
                }
            }
        }
        assert_eq!(report.replaced, count);
        assert_eq!(
            report.fact(),
            format!("layer #1 \"Design\" (tiles): {count} tiles 2 -> 7 in 2,1 5x4")
        );
    }
}

#[test]
fn flags_are_matched_by_orientation_and_written_when_given() {
    // A 4 x 2 layer, its second row empty (DDNet needs 2 rows).
    let mut grid = Grid::filled(4, 2, tile(1)).unwrap();
    for x in 0..4 {
        *grid.get_mut(x, 1).unwrap() = Tile::default();
    }
    grid.get_mut(1, 0).unwrap().flags = 1; // x flip
    grid.get_mut(2, 0).unwrap().flags = 1 | 4; // x flip, opaque
    grid.get_mut(3, 0).unwrap().flags = 8; // rotate
    let mut map = map_with(game_like(), grid);
    let design = layer(&map, "Design");
    let r = map
        .replace_tiles(
            design,
            TileSpec::new(1).with_flags(1),
            TileSpec::new(1).with_flags(2),
            None,
        )
        .unwrap();
    assert_eq!(r.replaced, 2);
    let flags = |map: &Map| -> Vec<(u8, u8)> {
        let LayerContent::Tiles(t) = map.get(design).unwrap().content() else {
            unreachable!()
        };
        t.grid().unwrap().tiles()[..4]
            .iter()
            .map(|t| (t.id, t.flags))
            .collect()
    };
    assert_eq!(flags(&map), [(1, 0), (1, 2), (1, 2), (1, 8)]);
    // To air: an empty tile.
    let r = map
        .replace_tiles(design, TileSpec::new(1), TileSpec::new(0), None)
        .unwrap();
    assert_eq!(r.replaced, 4);
    assert_eq!(flags(&map), [(0, 0); 4]);
    // Nothing to replace: the layer is not touched.
    let map = reloaded(&map);
    let bytes = map.to_bytes().unwrap();
    let mut same = Map::parse(&bytes).unwrap();
    let r = same
        .replace_tiles(
            layer(&same, "Design"),
            TileSpec::new(200),
            TileSpec::new(1),
            None,
        )
        .unwrap();
    assert_eq!(r.replaced, 0);
    assert_eq!(same.to_bytes().unwrap(), bytes);
}

#[test]
fn physics_layers_replace_by_type_keeping_numbers_and_forces() {
    let mut map = map_with(game_like(), pattern(GW, GH, 1));
    let game_group = map.refs::<Group>().next().unwrap();
    let mut tele = Grid::filled(GW, GH, Tele::default()).unwrap();
    for (i, t) in tele.tiles_mut().iter_mut().enumerate() {
        *t = match i % 3 {
            0 => Tele {
                number: i as u8,
                id: 26,
            },
            1 => Tele {
                number: i as u8,
                id: 27,
            },
            _ => Tele::default(),
        };
    }
    let before = tele.clone();
    map.add_layer(game_group, Layer::new_tele(tele).unwrap())
        .unwrap();
    let mut speedup = Grid::filled(GW, GH, Speedup::default()).unwrap();
    *speedup.get_mut(1, 1).unwrap() = Speedup {
        force: 30,
        max_speed: 5,
        id: 28,
        ..Speedup::default()
    };
    speedup.get_mut(1, 1).unwrap().set_angle(-90);
    map.add_layer(game_group, Layer::new_speedup(speedup).unwrap())
        .unwrap();
    let mut switch = Grid::filled(GW, GH, Switch::default()).unwrap();
    *switch.get_mut(2, 2).unwrap() = Switch {
        number: 3,
        id: 24,
        flags: 8,
        delay: 2,
    };
    map.add_layer(game_group, Layer::new_switch(switch).unwrap())
        .unwrap();

    let r = map
        .replace_tiles(
            layer(&map, "Tele"),
            TileSpec::new(26),
            TileSpec::new(10),
            None,
        )
        .unwrap();
    assert_eq!(r.kind, "tele");
    let map2 = reloaded(&map);
    let after = tele_grid(&map2);
    for (b, a) in before.tiles().iter().zip(after.tiles()) {
        match b.id {
            26 => assert_eq!(
                *a,
                Tele {
                    number: b.number,
                    id: 10
                }
            ),
            _ => assert_eq!(a, b),
        }
    }
    assert_eq!(
        r.replaced,
        before.tiles().iter().filter(|t| t.id == 26).count()
    );
    map.replace_tiles(
        layer(&map, "Speedup"),
        TileSpec::new(28),
        TileSpec::new(29),
        None,
    )
    .unwrap();
    map.replace_tiles(
        layer(&map, "Switch"),
        TileSpec::new(24).with_flags(8),
        TileSpec::new(25),
        None,
    )
    .unwrap();
    let map = reloaded(&map);
    for l in map.layers() {
        match l.content() {
            LayerContent::Speedup(t) => {
                let s = t.grid().unwrap().get(1, 1).unwrap();
                assert_eq!((s.force, s.max_speed, s.id, s.angle()), (30, 5, 29, -90));
            }
            LayerContent::Switch(t) => {
                let s = t.grid().unwrap().get(2, 2).unwrap();
                assert_eq!(
                    *s,
                    Switch {
                        number: 3,
                        id: 25,
                        flags: 8,
                        delay: 2
                    }
                );
            }
            _ => {}
        }
    }
}

fn tele_grid(map: &Map) -> Grid<Tele> {
    tele(map).expect("a tele layer")
}

#[test]
fn replacing_refuses_what_it_cannot_do_and_changes_nothing() {
    let mut map = map_with(game_like(), pattern(GW, GH, 2));
    let game_group = map.refs::<Group>().next().unwrap();
    map.add_layer(
        game_group,
        Layer::new_tele(Grid::filled(GW, GH, Tele::default()).unwrap()).unwrap(),
    )
    .unwrap();
    let before = map.to_bytes().unwrap();
    let design = layer(&map, "Design");
    let one = TileSpec::new(1);
    let cases: Vec<(ItemRef<Layer>, TileSpec, Option<TileRect>, &str)> = vec![
        (
            design,
            one,
            Some(TileRect::new(8, 0, 3, 1)),
            "the area 8,0 3x1 reaches out of layer #2's 10x7 tiles",
        ),
        (
            design,
            one,
            Some(TileRect::new(0, 0, u32::MAX, u32::MAX)),
            "the area 0,0 4294967295x4294967295 reaches out of layer #2's 10x7 tiles",
        ),
        (
            design,
            one,
            Some(TileRect::new(u32::MAX, u32::MAX, u32::MAX, 1)),
            "reaches out of layer #2's 10x7 tiles",
        ),
        (
            design,
            one,
            Some(TileRect::new(1, 1, 0, 3)),
            "the area 1,1 0x3 holds no tiles",
        ),
        (
            layer(&map, "Quads"),
            one,
            None,
            "layer #3 is a quads layer; tiles are replaced in tile layers",
        ),
        (
            layer(&map, "Tele"),
            TileSpec::new(26).with_flags(1),
            None,
            "layer #1 is a tele layer, whose tiles have no flags",
        ),
        (
            design,
            TileSpec::new(1).with_flags(4),
            None,
            "flags 4 to look for: only the orientation is compared",
        ),
    ];
    for (r, from, area, message) in cases {
        let error = map
            .replace_tiles(r, from, TileSpec::new(2), area)
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidEdit);
        assert!(error.message().contains(message), "{error}");
    }
    let error = map
        .replace_tiles(
            layer(&map, "Tele"),
            TileSpec::new(26),
            one.with_flags(0),
            None,
        )
        .unwrap_err();
    assert!(error.message().contains("whose tiles have no flags"));
    assert_eq!(map.to_bytes().unwrap(), before);
}

/// The reports say what they did as the command line prints it.
#[test]
fn reports_read_as_one_line() {
    let mut map = map_with(offset(-64, 0), Grid::filled(2, 2, tile(1)).unwrap());
    let r: GameTilesReport = map
        .fill_game_tiles(layer(&map, "Design"), GameTileOp::LiveFreeze)
        .unwrap();
    assert_eq!(
        r.fact(),
        "layer #1 \"Design\": 4 tiles of live-freeze (144) in game layer #0, 4 changed"
    );
    let r: ReplaceTilesReport = map
        .replace_tiles(
            layer(&map, "Game"),
            TileSpec::new(144),
            TileSpec::new(145).with_flags(0),
            Some(TileRect::new(2, 0, 1, 2)),
        )
        .unwrap();
    assert_eq!(
        r.fact(),
        "layer #0 \"Game\" (game): 2 tiles 144 -> 145,0 in 2,0 1x2"
    );
}
