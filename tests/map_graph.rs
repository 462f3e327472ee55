//! The map graph: every corpus map loads leniently with its problems reviewed; writing it back
//! keeps every item and data item; DDNet -> 0.7 -> DDNet keeps every tile.

mod common;

use std::path::Path;

use common::*;
use twcodec::map::{Layer, LayerContent};
use twcodec::{Datafile, Map, MapForm};

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_corpus_map_loads_and_its_problems_are_reviewed() {
    let Some(maps) = corpus_maps() else { return };
    let mut report = String::new();
    for path in &maps {
        let map = Map::open(path).unwrap_or_else(|e| panic!("{e}"));
        report.push_str(&format!("{} ({:?}):\n", name(path), map.form()));
        for problem in map.problems() {
            report.push_str(&format!("  {:?}: {problem}\n", problem.severity));
        }
    }
    insta_settings().bind(|| insta::assert_snapshot!("map_graph_corpus_problems", report));
}

/// Items and uncompressed data of two datafiles are equal.
fn assert_same(original: &Datafile, written: &Datafile, what: &str) {
    assert_eq!(written.items(), original.items(), "{what}: items");
    assert_eq!(
        written.data_count(),
        original.data_count(),
        "{what}: data count"
    );
    for index in 0..original.data_count() {
        assert!(
            written.data(index).unwrap() == original.data(index).unwrap(),
            "{what}: data #{index}"
        );
    }
}

#[test]
fn unmodified_maps_write_back_every_item_and_data_item() {
    let Some(maps) = corpus_maps() else { return };
    for path in &maps {
        let bytes = std::fs::read(path).unwrap();
        let original = Datafile::parse(&bytes).unwrap();
        let map = Map::from_datafile(&original).unwrap();
        let written = map.to_bytes().unwrap();
        let reread = Datafile::parse(&written).unwrap();
        assert_same(&original, &reread, &name(path));
        // Unchanged data keeps its stored bytes, so the file comes back byte for byte.
        assert!(written == bytes, "{}: not byte-identical", name(path));
    }
}

/// Every tile of every tile layer, by layer.
fn tiles(map: &Map) -> Vec<Vec<u8>> {
    use twcodec::schema::map::tile::tiles_as_bytes;
    map.layers()
        .iter()
        .filter_map(|layer: &Layer| {
            Some(match layer.content() {
                LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => {
                    tiles_as_bytes(t.grid()?.tiles()).to_vec()
                }
                LayerContent::Tele(t) => tiles_as_bytes(t.grid()?.tiles()).to_vec(),
                LayerContent::Speedup(t) => tiles_as_bytes(t.grid()?.tiles()).to_vec(),
                LayerContent::Switch(t) => tiles_as_bytes(t.grid()?.tiles()).to_vec(),
                LayerContent::Tune(t) => tiles_as_bytes(t.grid()?.tiles()).to_vec(),
                _ => return None,
            })
        })
        .collect()
}

#[test]
fn ddnet_to_07_and_back_keeps_every_tile() {
    let Some(maps) = corpus_maps() else { return };
    for path in &maps {
        let mut map = Map::open(path).unwrap();
        if map.form() == MapForm::Teeworlds03 {
            continue;
        }
        let before = tiles(&map);
        map.convert(MapForm::Teeworlds07).unwrap();
        let seven = Map::parse(&map.to_bytes().unwrap()).unwrap();
        assert_eq!(
            tiles(&seven),
            before,
            "{}: tiles in the 0.7 form",
            name(path)
        );
        let mut back = seven;
        back.convert(MapForm::Ddnet).unwrap();
        let ddnet = Map::parse(&back.to_bytes().unwrap()).unwrap();
        assert_eq!(
            tiles(&ddnet),
            before,
            "{}: tiles back in the DDNet form",
            name(path)
        );
        assert_eq!(ddnet.layers().len(), map.layers().len());
        assert_eq!(ddnet.envelopes().len(), map.envelopes().len());
    }
}

#[test]
fn detached_maps_compress_everything_anew_and_keep_the_content() {
    for name in [
        "ddnet_coverage.map",
        "tw07dev2018_dm1_envv3.map",
        "tw05era_dm1_2008.map",
    ] {
        let Some(bytes) = corpus_map(name) else {
            return;
        };
        let original = Datafile::parse(&bytes).unwrap();
        let mut map = Map::from_datafile(&original).unwrap();
        map.detach_data().unwrap();
        let written = Datafile::parse(&map.to_bytes().unwrap()).unwrap();
        assert_same(&original, &written, name);
        assert_eq!(written.version(), original.version());
        assert_eq!(
            written.size_fields(),
            original.size_fields(),
            "{name}: size fields kept"
        );
    }
}

#[test]
fn edited_tiles_are_written_and_the_rest_is_kept() {
    let Some(bytes) = corpus_map("tw07dev2018_dm1_envv3.map") else {
        return;
    };
    let original = Datafile::parse(&bytes).unwrap();
    let mut map = Map::from_datafile(&original).unwrap();
    let (game, _) = map.game_layer().unwrap();
    let LayerContent::Game(tiles) = map.layer_mut(game).unwrap().content_mut() else {
        unreachable!()
    };
    tiles.grid_mut().unwrap().get_mut(3, 3).unwrap().id = 2;
    let written = Map::parse(&map.to_bytes().unwrap()).unwrap();
    let (_, tiles) = written.game_layer().unwrap();
    assert_eq!(tiles.grid().unwrap().get(3, 3).unwrap().id, 2);
    // The 0.7 layer is skip-compressed again; every other layer's data is untouched.
    assert_eq!(tiles.layout(), twcodec::map::TileLayout::Skip);
    let reread = Datafile::parse(&map.to_bytes().unwrap()).unwrap();
    assert_eq!(reread.items(), original.items());
    let changed: Vec<usize> = (0..original.data_count())
        .filter(|&i| reread.stored_data(i) != original.stored_data(i))
        .collect();
    assert_eq!(changed.len(), 1, "only the game layer's data changes");
}

/// Layers sharing one data item (editors never write that; crafted maps do): an edited layer
/// writes its tiles to a data item of its own and the layers not edited keep the shared one;
/// when every sharer is edited, the last takes the shared item over, so none is left unused.
#[test]
fn an_edit_of_a_layer_sharing_its_data_stays_in_that_layer() {
    use twcodec::schema::map::tile::{tiles_as_bytes, Tile};
    let mut tiles = vec![Tile::default(); 16];
    tiles[5].id = 7; // (1, 1)
    let bytes = hostile::shared_tiles(4, 4, tiles_as_bytes(&tiles).to_vec(), 3, 2);
    let source = Datafile::parse(&bytes).unwrap();
    let mut map = Map::from_datafile(&source).unwrap();
    let shared = source.data_count() as i32 - 1;
    let sharing: Vec<_> = map
        .refs::<Layer>()
        .filter(|&layer| {
            let LayerContent::Tiles(tiles) = map.layers()[layer.index()].content() else {
                return false;
            };
            tiles.item().data == shared
        })
        .collect();
    assert_eq!(sharing.len(), 3);
    let set = |map: &mut Map, layer, x, y, id| {
        let LayerContent::Tiles(tiles) = map.layer_mut(layer).unwrap().content_mut() else {
            unreachable!()
        };
        tiles.grid_mut().unwrap().get_mut(x, y).unwrap().id = id;
    };
    let ids = |map: &Map, layer: twcodec::map::ItemRef<Layer>| -> Vec<u8> {
        let LayerContent::Tiles(tiles) = map.layers()[layer.index()].content() else {
            unreachable!()
        };
        tiles.grid().unwrap().tiles().iter().map(|t| t.id).collect()
    };
    let with = |changes: &[(usize, u8)]| {
        let mut ids: Vec<u8> = tiles.iter().map(|t| t.id).collect();
        for &(at, id) in changes {
            ids[at] = id;
        }
        ids
    };

    // The first and the last sharer edited, the middle one not: it keeps the shared item.
    set(&mut map, sharing[0], 2, 2, 3);
    set(&mut map, sharing[2], 0, 0, 4);
    let written = Datafile::parse(&map.to_bytes().unwrap()).unwrap();
    assert_eq!(written.data_count(), source.data_count() + 2);
    let again = Map::from_datafile(&written).unwrap();
    assert_eq!(ids(&again, sharing[0]), with(&[(10, 3)]));
    assert_eq!(ids(&again, sharing[1]), with(&[]));
    assert_eq!(ids(&again, sharing[2]), with(&[(0, 4)]));

    // Every sharer edited: one new data item each but the last, which takes the shared one.
    set(&mut map, sharing[1], 3, 3, 5);
    let written = Datafile::parse(&map.to_bytes().unwrap()).unwrap();
    assert_eq!(written.data_count(), source.data_count() + 2);
    let again = Map::from_datafile(&written).unwrap();
    assert_eq!(ids(&again, sharing[0]), with(&[(10, 3)]));
    assert_eq!(ids(&again, sharing[1]), with(&[(15, 5)]));
    assert_eq!(ids(&again, sharing[2]), with(&[(0, 4)]));
}
