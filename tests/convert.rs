//! Converting maps for Teeworlds 0.7 and back (`Map::convert`, `resave --to`): what happens to
//! each DDNet physics layer and tile kind, and the notes that say so
//! (docs/format-notes.md, "Converting to Teeworlds 0.7").

mod common;

use std::path::Path;
use std::process::Command;

use common::{corpus_dir, corpus_map, corpus_maps, insta_settings};
use twcodec::map::{Conversion, DataItem, Layer, LayerContent, NoteAction, NoteSubject};
use twcodec::schema::map::tile::{tiles_as_bytes, Tile};
use twcodec::{Datafile, DatafileWriter, Map, MapForm};

/// Every tile layer's kind, tilemap version and tile bytes, in layer order.
fn tile_layers(map: &Map) -> Vec<(&'static str, i32, Vec<u8>)> {
    map.layers()
        .iter()
        .filter_map(|layer| {
            let bytes = match layer.content() {
                LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => {
                    tiles_as_bytes(t.grid()?.tiles()).to_vec()
                }
                LayerContent::Tele(t) => tiles_as_bytes(t.grid()?.tiles()).to_vec(),
                LayerContent::Speedup(t) => tiles_as_bytes(t.grid()?.tiles()).to_vec(),
                LayerContent::Switch(t) => tiles_as_bytes(t.grid()?.tiles()).to_vec(),
                LayerContent::Tune(t) => tiles_as_bytes(t.grid()?.tiles()).to_vec(),
                _ => return None,
            };
            Some((layer.kind_name(), layer.tilemap()?.version, bytes))
        })
        .collect()
}

/// The notes as `resave --to` prints them for the map at `path`.
fn printed(conversion: &Conversion, path: &Path) -> String {
    conversion
        .notes
        .iter()
        .map(|note| match note.action {
            NoteAction::Warning => format!("twcodec: warning: {}: {note}\n", path.display()),
            _ => format!("twcodec: note: {}: {note}\n", path.display()),
        })
        .collect()
}

/// The notes, one `Action: text` line each, for snapshots.
fn rendered(conversion: &Conversion) -> String {
    conversion
        .notes
        .iter()
        .map(|note| format!("{:?}: {}\n", note.action, note.text))
        .collect()
}

/// The kept note about layer `index`, which must be the only kept one about it.
fn kept_about(map: &Map, conversion: &Conversion, index: usize) -> (Vec<(u8, usize)>, String) {
    let layer = map.refs::<Layer>().nth(index).unwrap();
    let kept: Vec<_> = conversion
        .about_layer(layer)
        .filter(|n| n.action == NoteAction::Kept)
        .collect();
    assert_eq!(kept.len(), 1, "layer #{index}: {kept:?}");
    (kept[0].tiles.clone(), kept[0].text.clone())
}

/// Checks what Teeworlds 0.7 needs of every layer with a DDNet physics flag other than game:
/// its `data` names `width * height` zeroed tiles (0.7 draws it as a tile layer and writes skip
/// counts there).
fn assert_safe_physics_data(map: &Map, what: &str) {
    for layer in map.layers() {
        let Some(item) = layer.tilemap() else {
            continue;
        };
        if !layer.is_physics() || matches!(layer.content(), LayerContent::Game(_)) {
            continue;
        }
        let data = map
            .item_ref::<DataItem>(item.data)
            .get()
            .unwrap_or_else(|| {
                panic!(
                    "{what}: the {} layer's data names no item",
                    layer.kind_name()
                )
            });
        let bytes = map.data(data).unwrap();
        let needed = (item.width * item.height * 4) as usize;
        assert!(bytes.len() >= needed, "{what}: {} layer", layer.kind_name());
        assert!(
            bytes[..needed].iter().all(|&b| b == 0),
            "{what}: {} layer's data holds tiles",
            layer.kind_name()
        );
    }
}

/// DDNet's Tutorial converted for 0.7: every physics layer and every tile stays (0.7 ignores
/// them), the tiles and game layers are skip-compressed, and the notes say exactly what
/// happened to each layer and tile kind; converted back, the map is DDNet's again, tile for tile.
#[test]
fn ddnet_tutorial_to_07_keeps_the_race_and_says_what_07_makes_of_it() {
    let Some(bytes) = corpus_map("ddnet_Tutorial.map") else {
        return;
    };
    let original = Map::parse(&bytes).unwrap();
    let before = tile_layers(&original);
    let mut map = original.clone();
    let conversion = map.convert(MapForm::Teeworlds07).unwrap();

    // Each DDNet physics layer: kept, with its tiles counted by id.
    let kinds: Vec<&str> = map.layers()[53..57].iter().map(|l| l.kind_name()).collect();
    assert_eq!(kinds, ["switch", "tele", "game", "front"]);
    let (switch, text) = kept_about(&map, &conversion, 53);
    assert_eq!(switch, [(7, 11), (79, 1)]);
    assert_eq!(
        text,
        "kept the switch layer #53 \"Switch\" with 12 tiles (11 jump count (id 7), 1 add time \
         (id 79)): Teeworlds 0.7 has no switches; it draws the layer as an empty tile layer, and \
         converted back to DDNet the layer works again"
    );
    let (tele, _) = kept_about(&map, &conversion, 54);
    assert_eq!(tele, [(63, 4809), (29, 467), (30, 30)]);
    let (front, _) = kept_about(&map, &conversion, 56);
    assert_eq!(front.iter().map(|(_, n)| n).sum::<usize>(), 427);
    assert_eq!(front[0], (5, 332));
    // The game layer: its DDNet-only tiles are air to 0.7 and kept; its entities (a spawn,
    // armor, grenades) are 0.7's own, so no note names them.
    let (game, text) = kept_about(&map, &conversion, 55);
    assert_eq!(
        game,
        [
            (9, 1442),
            (62, 560),
            (11, 153),
            (34, 24),
            (22, 10),
            (21, 9),
            (33, 4),
            (60, 4),
            (190, 1),
            (191, 1)
        ]
    );
    assert!(text.starts_with(
        "kept 2208 tiles of the game layer #55 \"Game\" that Teeworlds 0.7 reads as air: 1442 \
         freeze (id 9), 560 all-way stopper (id 62), 153 unfreeze (id 11),"
    ));
    // Nothing dropped, no warning (one spawn, tilesets of 16x16 tiles), nothing changed but
    // the forms of tile layers and images.
    assert_eq!(conversion.of(NoteAction::Dropped).count(), 0);
    assert_eq!(conversion.of(NoteAction::Warning).count(), 0);
    let changed: Vec<&str> = (conversion.of(NoteAction::Changed))
        .map(|n| n.text.as_str())
        .collect();
    assert_eq!(
        changed,
        [
            "changed 25 tile layers and the game layer to tilemap version 4 (skip-compressed \
             tiles, as Teeworlds 0.7 writes them)",
            "changed 40 images to version 2 with a pixel format (RGBA)",
        ]
    );
    insta_settings().bind(|| {
        insta::assert_snapshot!("convert_07_ddnet_tutorial", rendered(&conversion));
    });

    // Written and read back: a 0.7 map, every tile where it was; tiles and game layers in
    // version 4, DDNet's physics layers still in version 3 (DDNet refuses skip compression
    // there), each with a zeroed `data` for 0.7.
    let seven = Map::parse(&map.to_bytes().unwrap()).unwrap();
    assert_eq!(seven.form(), MapForm::Teeworlds07);
    let after = tile_layers(&seven);
    assert_eq!(after.len(), before.len());
    for ((kind, version, tiles), (kind_before, _, tiles_before)) in after.iter().zip(&before) {
        assert_eq!((kind, tiles == tiles_before), (kind_before, true), "{kind}");
        let expected = if ["tiles", "game"].contains(kind) {
            4
        } else {
            3
        };
        assert_eq!(*version, expected, "{kind}");
    }
    assert_safe_physics_data(&seven, "ddnet_Tutorial in 0.7 form");

    // Back to DDNet: only the forms change back, and every tile is the original's.
    let mut back = seven;
    let conversion = back.convert(MapForm::Ddnet).unwrap();
    assert_eq!(
        rendered(&conversion),
        "Changed: changed 25 tile layers and the game layer to tilemap version 3 (plain tiles, \
         as DDNet reads them)\nChanged: changed 40 images to version 1 (RGBA)\n"
    );
    let ddnet = Map::parse(&back.to_bytes().unwrap()).unwrap();
    assert_eq!(tile_layers(&ddnet), before);
    assert!(ddnet.problems().is_empty(), "{:?}", ddnet.problems());
}

/// `resave --to 0.7` prints the library's notes, one line each, and nothing else.
#[test]
fn resave_to_07_prints_every_note() {
    let Some(corpus) = corpus_dir() else { return };
    let input = corpus.join("maps/ddnet_Tutorial.map");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tutorial07.map");
    let output = Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(["resave".as_ref(), input.as_os_str(), out.as_os_str()])
        .args(["--to", "0.7"])
        .env_remove("TWCODEC_MAPRES")
        .output()
        .unwrap();
    assert!(output.status.success());
    let mut map = Map::open(&input).unwrap();
    let conversion = map.convert(MapForm::Teeworlds07).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr, printed(&conversion, &input));
    assert_eq!(stderr.lines().count(), 9, "{stderr}");
    assert_eq!(Map::open(&out).unwrap().form(), MapForm::Teeworlds07);
}

/// ddnet_coverage has every physics layer kind and DDNet-only entities: each is kept and
/// named.
#[test]
fn ddnet_coverage_to_07_names_every_physics_layer_and_entity() {
    let Some(bytes) = corpus_map("ddnet_coverage.map") else {
        return;
    };
    let mut map = Map::parse(&bytes).unwrap();
    let before = tile_layers(&map);
    let conversion = map.convert(MapForm::Teeworlds07).unwrap();
    let kept: Vec<String> = (conversion.of(NoteAction::Kept))
        .filter_map(|n| match n.subject {
            NoteSubject::Layer(layer) => Some(map.get(layer).unwrap().kind_name().to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(
        kept,
        ["game", "game", "switch", "tele", "speedup", "front", "tune"]
    );
    let (entities, text) = {
        let game = map.refs::<Layer>().nth(1).unwrap();
        let note = conversion
            .about_layer(game)
            .find(|n| n.text.contains("does not place"))
            .unwrap();
        (note.tiles.clone(), note.text.clone())
    };
    assert_eq!(
        entities,
        [
            (222, 7),
            (224, 4),
            (220, 3),
            (233, 1),
            (235, 1),
            (236, 1),
            (237, 1),
            (238, 1)
        ]
    );
    assert_eq!(
        text,
        "kept 19 entities of the game layer #1 \"Game\" that Teeworlds 0.7 does not place: 10 \
         plasma turret (ids 220, 222), 5 dragger (ids 233 to 238), 4 crazy shotgun (id 224)"
    );
    insta_settings().bind(|| {
        insta::assert_snapshot!("convert_07_ddnet_coverage", rendered(&conversion));
    });
    let seven = Map::parse(&map.to_bytes().unwrap()).unwrap();
    let tiles: Vec<_> = tile_layers(&seven).into_iter().map(|t| t.2).collect();
    let tiles_before: Vec<_> = before.into_iter().map(|t| t.2).collect();
    assert_eq!(tiles, tiles_before);
}

/// pytwmap's HeyTux2 points its tele layer's `data` at 2 bytes per tile: a 0.7 server would
/// write past its end, so the conversion gives it a zeroed tile array. The tele tiles stay.
#[test]
fn a_physics_layer_data_too_small_for_07_becomes_a_zeroed_array() {
    let Some(bytes) = corpus_map("pytwmap_HeyTux2_saved.map") else {
        return;
    };
    let mut map = Map::parse(&bytes).unwrap();
    let before = tile_layers(&map);
    let conversion = map.convert(MapForm::Teeworlds07).unwrap();
    let tele = map.refs::<Layer>().nth(3).unwrap();
    let changed: Vec<&str> = (conversion.about_layer(tele))
        .filter(|n| n.action == NoteAction::Changed)
        .map(|n| n.text.as_str())
        .collect();
    assert_eq!(
        changed,
        [
            "changed the `data` of the tele layer #3 \"Tele\" to a zeroed array of 1130x440 \
             tiles: it held 994400 bytes, and Teeworlds 0.7 reads and writes 1988800 bytes there"
        ]
    );
    let seven = Map::parse(&map.to_bytes().unwrap()).unwrap();
    assert_safe_physics_data(&seven, "HeyTux2 in 0.7 form");
    let tiles = |map: &Map| -> Vec<Vec<u8>> { tile_layers(map).into_iter().map(|t| t.2).collect() };
    let tiles_before: Vec<_> = before.into_iter().map(|t| t.2).collect();
    assert_eq!(tiles(&seven), tiles_before);
    let mut back = seven;
    back.convert(MapForm::Ddnet).unwrap();
    assert_eq!(
        tiles(&Map::parse(&back.to_bytes().unwrap()).unwrap()),
        tiles_before
    );
}

/// The sample (every physics layer kind), edited: a tele layer whose `data` holds tiles, 70
/// spawns, then none.
#[test]
fn sample_with_every_physics_layer_to_07() {
    // The tele layer's `data` names the game layer's tiles, which 0.7 would draw.
    let df = Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap();
    let mut writer = DatafileWriter::from_datafile(&df);
    let layer_with = |writer: &DatafileWriter, flags: i32| {
        (writer.items().iter())
            .position(|i| i.type_id() == 5 && i.data[1] == 2 && i.data[6] == flags)
    };
    let game = layer_with(&writer, 1).unwrap();
    let tele = layer_with(&writer, 2).unwrap();
    let game_data = writer.items()[game].data[14];
    writer.items_mut()[tele].data[14] = game_data;
    let mut map = Map::parse(&writer.to_vec().unwrap()).unwrap();
    let before = tile_layers(&map);
    let conversion = map.convert(MapForm::Teeworlds07).unwrap();
    insta_settings().bind(|| {
        insta::assert_snapshot!("convert_07_sample", rendered(&conversion));
    });
    let kept: Vec<(String, Vec<(u8, usize)>)> = (conversion.of(NoteAction::Kept))
        .filter_map(|n| match n.subject {
            NoteSubject::Layer(layer) => {
                Some((map.get(layer)?.kind_name().to_string(), n.tiles.clone()))
            }
            _ => None,
        })
        .collect();
    let kinds: Vec<&str> = kept.iter().map(|(kind, _)| kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["game", "front", "tele", "speedup", "switch", "tune"],
        "{kept:?}"
    );
    assert_eq!(
        kept[0].1,
        [(9, 1), (33, 1), (34, 1)],
        "freeze, start, finish"
    );
    let changed: Vec<&str> = (conversion.of(NoteAction::Changed))
        .map(|n| n.text.as_str())
        .filter(|text| text.contains("`data`"))
        .collect();
    assert_eq!(
        changed,
        [
            "changed the `data` of the tele layer #5 \"Tele\" to a zeroed array of 12x8 tiles: \
             it held 42 non-empty tiles, which Teeworlds 0.7 would draw (DDNet reads nothing \
             there)"
        ]
    );
    let seven = Map::parse(&map.to_bytes().unwrap()).unwrap();
    assert_safe_physics_data(&seven, "the sample in 0.7 form");
    let mut back = seven;
    back.convert(MapForm::Ddnet).unwrap();
    let back = Map::parse(&back.to_bytes().unwrap()).unwrap();
    assert_eq!(tile_layers(&back), before);

    // 70 spawns: a 0.7 server stores 64; the six last in row order become air.
    let mut crowded = twcodec_testkit::sample::map().unwrap();
    let (game, _) = crowded.game_layer().unwrap();
    let LayerContent::Game(layer) = crowded.layer_mut(game).unwrap().content_mut() else {
        unreachable!()
    };
    let grid = layer.grid_mut().unwrap();
    for tile in grid.tiles_mut().iter_mut().take(70) {
        tile.id = 192;
    }
    let conversion = crowded.convert(MapForm::Teeworlds07).unwrap();
    let spawns: Vec<_> = (conversion.about_layer(game))
        .filter(|n| n.action == NoteAction::Changed)
        .collect();
    assert_eq!(spawns.len(), 1);
    assert_eq!(spawns[0].tiles, [(192, 6)]);
    assert_eq!(
        spawns[0].text,
        "changed 6 spawns past the 64th of their kind in the game layer #2 \"Game\" to air (6 \
         spawn (id 192)): a Teeworlds 0.7 server stores at most 64 of a kind and writes more \
         past the end of its array"
    );
    let seven = Map::parse(&crowded.to_bytes().unwrap()).unwrap();
    let (_, layer) = seven.game_layer().unwrap();
    let ids: Vec<u8> = layer.grid().unwrap().tiles().iter().map(|t| t.id).collect();
    assert!(ids[..64].iter().all(|&id| id == 192));
    assert!(ids[64..70].iter().all(|&id| id == 0));
    assert_eq!(ids.iter().filter(|&&id| id == 192).count(), 64);

    // No spawn: a warning, nothing changed.
    let mut empty = twcodec_testkit::sample::map().unwrap();
    let (game, _) = empty.game_layer().unwrap();
    let LayerContent::Game(layer) = empty.layer_mut(game).unwrap().content_mut() else {
        unreachable!()
    };
    for tile in layer.grid_mut().unwrap().tiles_mut() {
        if tile.id == 192 {
            *tile = Tile::default();
        }
    }
    let conversion = empty.convert(MapForm::Teeworlds07).unwrap();
    let warnings: Vec<&str> = (conversion.of(NoteAction::Warning))
        .map(|n| n.text.as_str())
        .collect();
    assert!(
        warnings.contains(
            &"the game layer #2 \"Game\" has no spawn (ids 192 to 194): players cannot spawn on \
              a Teeworlds 0.7 server"
        ),
        "{warnings:?}"
    );
}

/// Every corpus map converts to 0.7 into a map that 0.7 can load safely (every physics
/// layer's `data` zeroed and large enough, at most 64 spawns of a kind), with one-line notes,
/// and back to DDNet with every tile of the DDNet physics layers as it was. The external
/// images 0.7 has no picture of are the mod's and the old 0.6 one.
#[test]
fn every_corpus_map_converts_to_a_map_07_loads_safely() {
    let Some(paths) = corpus_maps() else { return };
    let mut missing_pictures = Vec::new();
    for path in &paths {
        let what = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut map = Map::open(path).unwrap();
        let before = tile_layers(&map);
        let conversion = map.convert(MapForm::Teeworlds07).unwrap();
        for note in &conversion.notes {
            assert!(!note.text.contains('\n'), "{what}: {note}");
            if let (NoteAction::Warning, NoteSubject::Image(image)) = (note.action, note.subject) {
                if note.text.contains("ships no picture") {
                    let name = map.get(image).unwrap().name(&map).unwrap();
                    missing_pictures.push(format!("{what}: {name}"));
                }
            }
        }
        let seven = Map::parse(&map.to_bytes().unwrap()).unwrap();
        assert_safe_physics_data(&seven, &what);
        if let Some((_, game)) = seven.game_layer() {
            for spawn in 192..=194u8 {
                let count = (game.grid().unwrap().tiles().iter())
                    .filter(|t| t.id == spawn)
                    .count();
                assert!(count <= 64, "{what}: {count} of {spawn}");
            }
        }
        let physics = |layers: Vec<(&'static str, i32, Vec<u8>)>| -> Vec<Vec<u8>> {
            (layers.into_iter())
                .filter(|(kind, _, _)| !["tiles", "game"].contains(kind))
                .map(|(_, _, tiles)| tiles)
                .collect()
        };
        let mut back = seven;
        back.convert(MapForm::Ddnet).unwrap();
        let back = Map::parse(&back.to_bytes().unwrap()).unwrap();
        assert_eq!(physics(tile_layers(&back)), physics(before), "{what}");
    }
    let ninslash = [
        "bg_stone1",
        "gray-bg-2",
        "metal_main",
        "path-bg1",
        "path-bg2",
        "path-bg4",
    ]
    .into_iter()
    .chain(["warehouse_background"])
    .map(|name| format!("ninslash_generate_small1_item9.map: {name}"));
    let expected: Vec<String> = ninslash
        .chain(["tw06_stock_ctf4.map: jungle_doodads_old".to_string()])
        .collect();
    assert_eq!(missing_pictures, expected);
}
