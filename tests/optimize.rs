//! `Map::optimize` and `twcodec optimize`: each step's rules on maps made here, and on every
//! corpus map the game's physics unchanged, every picture drawn as before, and the sizes.

mod common;

use std::process::Command;

use twcodec::map::edit::{OptimizeOptions, Step};
use twcodec::map::{Grid, Layer, LayerContent, NewEnvelope, NewGroup};
use twcodec::schema::map::envelope::{EnvPoint, EnvelopeKind};
use twcodec::schema::map::tile::{Tele, Tile};
use twcodec::schema::map::Point;
use twcodec::{Map, MapForm};
use twcodec_testkit::sample;
use twcodec_tools::render::{RenderOptions, Size, View};

/// A tile with this index.
fn tile(id: u8) -> Tile {
    Tile {
        id,
        ..Tile::default()
    }
}

/// An empty map with a 20 x 10 game layer (solid at the bottom row) in a game group.
fn with_game_layer() -> Map {
    let mut map = sample::empty_map().unwrap();
    let game = map.add_group(NewGroup::new("Game")).unwrap();
    let mut grid = Grid::filled(20, 10, Tile::default()).unwrap();
    for x in 0..20 {
        *grid.get_mut(x, 9).unwrap() = tile(1);
    }
    map.add_layer(game, Layer::new_game(grid).unwrap()).unwrap();
    map
}

/// Only `step`.
fn only(step: Step) -> OptimizeOptions {
    let mut options = OptimizeOptions::default();
    for other in Step::ALL.into_iter().filter(|&s| s != step) {
        options = options.skip(other);
    }
    options
}

/// The map written and read again.
fn reloaded(map: &Map) -> Map {
    Map::parse(&map.to_bytes().unwrap()).unwrap()
}

/// The changes a step reported.
fn changes(report: &twcodec::map::edit::OptimizeReport, step: Step) -> Vec<String> {
    (report.steps.iter())
        .find(|s| s.step == step)
        .map(|s| s.changes.clone())
        .unwrap_or_default()
}

#[test]
fn what_nothing_uses_goes_and_what_is_used_stays() {
    let mut map = with_game_layer();
    let (game, _) = map.game_layer().unwrap();
    let game_group = map.group_of(game).unwrap();
    map.add_layer(
        game_group,
        Layer::new_tele(Grid::filled(20, 10, Tele::default()).unwrap()).unwrap(),
    )
    .unwrap();
    let unused_external = map.add_external_image("grass_doodads").unwrap();
    let used = map.add_external_image("grass_main").unwrap();
    let _unused_embedded = (map.add_embedded_image("dot", 1, 1, vec![1, 2, 3, 4])).unwrap();
    let point = |time, value| EnvPoint {
        time,
        values: [value; 4],
        ..EnvPoint::default()
    };
    let color = |name: &str| NewEnvelope {
        points: vec![point(0, 0), point(1000, 1024)],
        ..NewEnvelope::new(EnvelopeKind::Color, name)
    };
    let _unused_envelope = map.add_envelope(color("Unused")).unwrap();
    let pulse = map.add_envelope(color("Pulse")).unwrap();
    let _sound = map.add_sound("silence", vec![0u8; 16]).unwrap();
    // A group whose only layer is all air, a group with an empty quads layer, and a group
    // with a quad drawn with `grass_main` and the `Pulse` envelope.
    let air = map.add_group(NewGroup::new("Air")).unwrap();
    let air_grid = Grid::filled(8, 8, Tile::default()).unwrap();
    map.add_layer(air, Layer::new_tiles("Nothing", air_grid).unwrap())
        .unwrap();
    let hollow = map.add_group(NewGroup::new("Hollow")).unwrap();
    map.add_layer(hollow, Layer::new_quads("None", Vec::new()).unwrap())
        .unwrap();
    let front = map.add_group(NewGroup::new("Front")).unwrap();
    let quad = sample::quad([(0, 0), (1024, 0), (0, 1024), (1024, 1024)], [255; 4]);
    let quads = map
        .add_layer(front, Layer::new_quads("Sun", vec![quad]).unwrap())
        .unwrap();
    map.set_layer_image(quads, Some(used)).unwrap();
    map.set_quad_color_envelope(quads, 0, Some(pulse)).unwrap();
    let _ = unused_external;
    let map = reloaded(&map);

    let mut optimized = map.clone();
    let report = optimized.optimize(&only(Step::Unused)).unwrap();
    assert_eq!(
        changes(&report, Step::Unused),
        [
            "quads layer #3 \"None\" in group \"Hollow\" (no quads)",
            "tiles layer #2 \"Nothing\" in group \"Air\" (all air)",
            "group #2 \"Hollow\" (no layers)",
            "group #1 \"Air\" (no layers)",
            "embedded image #2 \"dot\" (no layer draws it)",
            "external image #0 \"grass_doodads\" (no layer draws it)",
            "envelope #0 \"Unused\" (nothing refers to it)",
            "sound #0 \"silence\" (no sounds layer plays it)",
        ]
    );
    let optimized = reloaded(&optimized);
    assert!(
        optimized.problems().is_empty(),
        "{:?}",
        optimized.problems()
    );
    // The game group with its game and (empty) tele layer stays, and the quad still draws
    // grass_main with Pulse.
    let kinds: Vec<&str> = optimized.layers().iter().map(|l| l.kind_name()).collect();
    assert_eq!(kinds, ["game", "tele", "quads"]);
    let groups: Vec<String> = optimized.groups().iter().map(|g| g.name()).collect();
    assert_eq!(groups, ["Game", "Front"]);
    let sun = &optimized.layers()[2];
    let image = optimized.get(sun.image(&optimized).get().unwrap()).unwrap();
    assert_eq!(image.name(&optimized).as_deref(), Some("grass_main"));
    let LayerContent::Quads(q) = sun.content() else {
        panic!("not quads")
    };
    let envelope = q.quads().unwrap()[0].color_envelope;
    assert_eq!(optimized.envelopes()[envelope as usize].name(), "Pulse");
    assert!(optimized.sounds().is_empty());
    // Run again, nothing is left to remove.
    let mut again = optimized.clone();
    let report = again.optimize(&only(Step::Unused)).unwrap();
    assert_eq!(changes(&report, Step::Unused), Vec::<String>::new());
}

/// The tile drawn at world tile `(x, y)` by layer `index` of `map`: the layer's edge tiles are
/// drawn repeated outward (as the game draws them), and the group offset moves the layer.
fn drawn(map: &Map, index: usize, x: i32, y: i32) -> (u8, u8) {
    let layer = &map.layers()[index];
    let group = map
        .get(map.group_of(map.refs().nth(index).unwrap()).unwrap())
        .unwrap();
    let LayerContent::Tiles(t) = layer.content() else {
        panic!("layer {index} is not a tiles layer")
    };
    let grid = t.grid().unwrap();
    let offset = group.item().offset;
    // World pixel p shows group pixel p + offset.
    let column = ((x * 32 + 16 + offset.x).div_euclid(32)).clamp(0, grid.width() as i32 - 1);
    let row = ((y * 32 + 16 + offset.y).div_euclid(32)).clamp(0, grid.height() as i32 - 1);
    let tile = grid.get(column as usize, row as usize).unwrap();
    (tile.id, tile.flags)
}

#[test]
fn shrinking_keeps_every_tile_and_quad_where_it_was() {
    let mut map = with_game_layer();
    // In a group with an offset and parallax: two tile layers with content well inside, and
    // a quad; a tile layer in the game group with air at every side.
    let mut back = NewGroup::new("Back");
    back.offset = Point { x: 40, y: -64 };
    back.parallax = Point { x: 50, y: 80 };
    let back = map.add_group(back).unwrap();
    let mut a = Grid::filled(30, 20, Tile::default()).unwrap();
    *a.get_mut(10, 6).unwrap() = tile(3);
    *a.get_mut(12, 9).unwrap() = Tile {
        id: 4,
        flags: 8,
        ..Tile::default()
    };
    let mut b = Grid::filled(16, 16, Tile::default()).unwrap();
    *b.get_mut(7, 4).unwrap() = tile(5);
    map.add_layer(back, Layer::new_tiles("A", a).unwrap())
        .unwrap();
    map.add_layer(back, Layer::new_tiles("B", b).unwrap())
        .unwrap();
    let quad = sample::quad([(0, 0), (32768, 0), (0, 32768), (32768, 32768)], [255; 4]);
    map.add_layer(back, Layer::new_quads("Q", vec![quad]).unwrap())
        .unwrap();
    let (game, _) = map.game_layer().unwrap();
    let game_group = map.group_of(game).unwrap();
    let mut c = Grid::filled(20, 10, Tile::default()).unwrap();
    *c.get_mut(5, 5).unwrap() = tile(7);
    map.add_layer(game_group, Layer::new_tiles("C", c).unwrap())
        .unwrap();
    let map = reloaded(&map);
    let index = |name: &str| map.layers().iter().position(|l| l.name() == name).unwrap();
    let (a, b, c) = (index("A"), index("B"), index("C"));

    let mut shrunk = map.clone();
    let report = shrunk.optimize(&only(Step::Shrink)).unwrap();
    let shrunk = reloaded(&shrunk);
    assert_eq!(
        changes(&report, Step::Shrink),
        [
            "tiles layer #1 \"C\" in group \"Game\": 20x10 -> 7x7",
            "tiles layer #2 \"A\" in group \"Back\": 30x20 -> 8x8",
            "tiles layer #3 \"B\" in group \"Back\": 16x16 -> 3x3",
            "group #1 \"Back\": offset (40, -64) -> (-152, -160), its quads and sources moved \
             with it",
        ]
    );
    for layer in [a, b, c] {
        for y in -30..40 {
            for x in -30..50 {
                assert_eq!(
                    drawn(&map, layer, x, y),
                    drawn(&shrunk, layer, x, y),
                    "layer {layer} at {x},{y}"
                );
            }
        }
    }
    // The quad moved by the cut: 6 columns and 3 rows of 32 px, in 22.10 fixed point.
    let quad = |map: &Map| match map.layers()[index("Q")].content() {
        LayerContent::Quads(q) => q.quads().unwrap()[0].points[3],
        _ => panic!("not quads"),
    };
    let (before, after) = (quad(&map), quad(&shrunk));
    assert_eq!(
        (before.x - after.x, before.y - after.y),
        (6 * 32 * 1024, 3 * 32 * 1024)
    );
    // The game layer keeps its size.
    let size = |map: &Map| map.game_layer().unwrap().1.grid().unwrap().width();
    assert_eq!(size(&shrunk), 20);
}

#[test]
fn tileset_cells_no_tile_uses_are_cleared() {
    // A 64 x 64 tileset (4 px cells), every pixel opaque in its cell's own color; a tile layer
    // draws cells 1 and 17 with it.
    let mut rgba = Vec::new();
    for y in 0..64 {
        for x in 0..64 {
            let cell = (y / 4) * 16 + x / 4;
            rgba.extend_from_slice(&[cell as u8, 1, 2, 255]);
        }
    }
    let mut map = with_game_layer();
    let image = map
        .add_embedded_image("tiles", 64, 64, rgba.clone())
        .unwrap();
    let group = map.add_group(NewGroup::new("Design")).unwrap();
    let mut grid = Grid::filled(4, 4, Tile::default()).unwrap();
    *grid.get_mut(1, 1).unwrap() = tile(1);
    *grid.get_mut(2, 2).unwrap() = tile(17);
    let layer = map
        .add_layer(group, Layer::new_tiles("T", grid).unwrap())
        .unwrap();
    map.set_layer_image(layer, Some(image)).unwrap();
    let mut cleared = reloaded(&map);
    let report = cleared.optimize(&only(Step::Cells)).unwrap();
    assert_eq!(
        changes(&report, Step::Cells),
        ["image #0 \"tiles\": 4064 pixels cleared in cells no tile uses"]
    );
    let cleared = reloaded(&cleared);
    let pixels = cleared.images()[0].rgba8(&cleared).unwrap();
    for (i, pixel) in pixels.bytes.chunks_exact(4).enumerate() {
        let (x, y) = (i % 64, i / 64);
        let cell = (y / 4) * 16 + x / 4;
        let expected = match cell {
            1 | 17 => [cell as u8, 1, 2, 255],
            _ => [0; 4],
        };
        assert_eq!(pixel, expected, "pixel {x},{y}");
    }
    // A quads layer drawn with the image too: no cell is cleared.
    let mut map = map;
    let quads = map.add_layer(group, Layer::new_quads("Q", vec![]).unwrap());
    map.set_layer_image(quads.unwrap(), Some(image)).unwrap();
    let report = map.optimize(&only(Step::Cells)).unwrap();
    assert_eq!(changes(&report, Step::Cells), Vec::<String>::new());
}

#[test]
fn with_every_step_left_out_the_map_is_written_as_read() {
    let bytes = sample::datafile();
    let mut map = Map::parse(&bytes).unwrap();
    let mut options = OptimizeOptions::default().measure(true);
    for step in Step::ALL {
        options = options.skip(step);
    }
    let report = map.optimize(&options).unwrap();
    assert!(report.steps.is_empty());
    assert_eq!(report.bytes_after(), Some(bytes.len() as u64));
    assert_eq!(options.writer(&map).unwrap().to_vec().unwrap(), bytes);
}

#[test]
fn a_level_past_9_is_an_error_and_changes_nothing() {
    let mut map = Map::parse(&sample::datafile()).unwrap();
    let before = map.to_bytes().unwrap();
    let error = map
        .optimize(&OptimizeOptions::default().level(10))
        .unwrap_err();
    assert_eq!(error.to_string(), "zlib level 10 is past 9");
    assert_eq!(map.to_bytes().unwrap(), before);
}

/// The physics of a map as the game reads it: each physics layer's kind and bytes.
fn physics(map: &Map) -> Vec<(String, usize, usize, Vec<u8>)> {
    map.layers()
        .iter()
        .filter(|l| l.is_physics())
        .map(|layer| {
            let (w, h) = layer
                .tilemap()
                .map_or((0, 0), |t| (t.width as usize, t.height as usize));
            let bytes = match layer.content() {
                LayerContent::Game(t) | LayerContent::Front(t) => {
                    t.grid().map(|g| tile_bytes(g.tiles()))
                }
                LayerContent::Tele(t) => t.grid().map(|g| tile_bytes(g.tiles())),
                LayerContent::Speedup(t) => t.grid().map(|g| tile_bytes(g.tiles())),
                LayerContent::Switch(t) => t.grid().map(|g| tile_bytes(g.tiles())),
                LayerContent::Tune(t) => t.grid().map(|g| tile_bytes(g.tiles())),
                _ => None,
            };
            (
                layer.kind_name().to_string(),
                w,
                h,
                bytes.unwrap_or_default(),
            )
        })
        .collect()
}

fn tile_bytes<T: twcodec::schema::map::tile::TileKind>(tiles: &[T]) -> Vec<u8> {
    twcodec::schema::map::tile::tiles_as_bytes(tiles).to_vec()
}

#[test]
fn every_corpus_map_gets_smaller_plays_the_same_and_draws_the_same() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let renderer = twcodec_tools::render::Renderer::new();
    // The sizes before and after, per map; two threads share the maps.
    let check = |path: &std::path::PathBuf| -> (u64, u64) {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(path).unwrap();
        let map = Map::parse(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        let options = OptimizeOptions::default();
        let mut optimized = map.clone();
        let report = (optimized.optimize(&options)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(report.steps.len(), Step::ALL.len(), "{file}");
        let written = options.writer(&optimized).unwrap().to_vec().unwrap();
        assert!(written.len() <= bytes.len(), "{file} grew");
        let reread = Map::parse(&written).unwrap_or_else(|e| panic!("{file} written: {e}"));
        // No new errors; the physics as the game reads it, tile for tile.
        let errors = |map: &Map| {
            (map.problems().iter())
                .filter(|p| p.severity == twcodec::map::Severity::Error)
                .count()
        };
        assert!(
            errors(&reread) <= errors(&map),
            "{file}: {:?}",
            reread.problems()
        );
        assert_eq!(physics(&reread), physics(&map), "{file}");
        assert_eq!(
            reread.automappers().len(),
            map.automappers().len(),
            "{file}"
        );
        // What is left is used: removing again finds nothing, shrinking again neither.
        let mut again = reread.clone();
        let cheap = OptimizeOptions::default()
            .skip(Step::Transparent)
            .skip(Step::Dilate)
            .skip(Step::Recompress);
        let second = again.optimize(&cheap).unwrap();
        for step in [Step::Unused, Step::Shrink, Step::Cells] {
            assert_eq!(
                changes(&second, step),
                Vec::<String>::new(),
                "{file} {step}"
            );
        }
        // Drawn the same, pixel for pixel: the whole map, at a time when envelopes move. The
        // colors of fully transparent pixels (which `transparent` and `dilate` set) reach the
        // screen only through the game's straight-alpha filtering, at the edges of what is
        // drawn (docs/optimize.md): sampled premultiplied, where they cannot, nothing else
        // may change.
        let set = match map.form() {
            MapForm::Teeworlds07 => "teeworlds07",
            _ => "ddnet",
        };
        let time = 3700.0;
        let mut options = RenderOptions::default()
            .mapres(Some(dir.join("mapres").join(set)))
            .entities_tileset(None)
            .size(Size::Width(200))
            .view(View::Whole)
            .time_ms(time);
        options.filtering = twcodec_tools::render::Filtering::Issue17;
        let draw = |map: &Map| renderer.render(map, &options).map(|r| r.picture.rgba);
        match (draw(&map), draw(&reread)) {
            (Ok(a), Ok(b)) => assert!(a == b, "{file} at {time} ms is drawn differently"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{file}"),
            (a, b) => panic!("{file}: {:?} then {:?}", a.err(), b.err()),
        }
        (bytes.len() as u64, written.len() as u64)
    };
    let maps = common::corpus_maps().unwrap();
    let sizes: Vec<(u64, u64)> = std::thread::scope(|scope| {
        let other = scope.spawn(|| {
            maps.iter()
                .skip(1)
                .step_by(2)
                .map(check)
                .collect::<Vec<_>>()
        });
        let mut sizes: Vec<(u64, u64)> = maps.iter().step_by(2).map(check).collect();
        sizes.extend(other.join().unwrap());
        sizes
    });
    let before_total: u64 = sizes.iter().map(|s| s.0).sum();
    let after_total: u64 = sizes.iter().map(|s| s.1).sum();
    eprintln!("corpus: {before_total} -> {after_total} bytes");
    // The issue's goal: at most 78 % of the corpus (the better of DDNet's map_optimize and
    // twmap's remove-everything-unused with optimized pictures).
    assert!(
        after_total * 100 <= before_total * 78,
        "{after_total} of {before_total}"
    );
}

#[test]
fn the_command_prints_each_step_and_writes_nothing_on_a_dry_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.map");
    std::fs::write(&input, sample::datafile()).unwrap();
    let output = dir.path().join("out.map");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_twcodec"))
            .args(args)
            .output()
            .unwrap()
    };
    let dry = run(&["optimize", input.to_str().unwrap(), "--dry-run"]);
    assert_eq!(
        dry.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    let text = String::from_utf8(dry.stdout).unwrap();
    let steps: Vec<&str> = (text.lines())
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        steps,
        [
            "unused",
            "shrink",
            "cells",
            "transparent",
            "dilate",
            "recompress",
            "total"
        ]
    );
    assert!(!output.exists());
    let done = run(&[
        "optimize",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
        "--skip",
        "shrink,dilate",
        "--keep-images",
    ]);
    assert_eq!(done.status.code(), Some(0));
    let text = String::from_utf8(done.stdout).unwrap();
    assert!(text.starts_with("unused: "), "{text}");
    assert!(
        !text.contains("shrink:") && !text.contains("cells:"),
        "{text}"
    );
    assert!(
        text.ends_with(&format!("wrote {}\n", output.display())),
        "{text}"
    );
    Map::open(&output).unwrap();
    // A map that is not one: an error, and nothing written.
    std::fs::write(&input, b"not a map").unwrap();
    let bad_out = dir.path().join("bad.map");
    let bad = run(&[
        "optimize",
        input.to_str().unwrap(),
        "-o",
        bad_out.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("twcodec: error:"));
    assert!(!bad_out.exists());
    // Without -o and without --dry-run: a usage error.
    let usage = run(&["optimize", input.to_str().unwrap()]);
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn hostile_maps_are_optimized_or_refused_without_panicking() {
    use common::hostile;
    let maps = [
        ("layers sharing data", hostile::ddnet_layers_sharing_data()),
        (
            "0.7 layers expanding",
            hostile::teeworlds07_layers_expanding(),
        ),
        ("a tall game layer", hostile::tall_game_layer()),
        (
            "envelopes sharing points",
            hostile::envelopes_sharing_points(200, 2000),
        ),
        (
            "groups sharing layers",
            hostile::groups_sharing_layers(200, 50),
        ),
    ];
    for (what, bytes) in maps {
        let Ok(map) = Map::parse(&bytes) else {
            continue;
        };
        let mut optimized = map.clone();
        let options = OptimizeOptions::default().level(1);
        match optimized.optimize(&options) {
            Ok(_) => {
                let written = options.writer(&optimized).unwrap().to_vec().unwrap();
                let reread = Map::parse(&written).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(physics(&reread), physics(&map), "{what}");
            }
            // Refused: the map is as it was.
            Err(_) => assert_eq!(optimized.to_bytes().unwrap(), map.to_bytes().unwrap()),
        }
    }
}
