//! The lossless core of the map directory form (docs/mapdir.md): stored streams keyed by
//! decoded content.

mod common;

use twcodec::mapdir::Streams;
use twcodec::{Datafile, DatafileWriter};

/// Rebuilds `datafile` from its items and decoded data through `streams`, with data item
/// `skip` left out; how many streams were reused.
fn rebuild(datafile: &Datafile, streams: &Streams, skip: Option<usize>) -> (Vec<u8>, usize) {
    let mut writer: DatafileWriter = streams.layout().writer();
    for item in datafile.items() {
        writer.add_item(item.type_id(), item.id(), item.data.clone());
    }
    let mut reused = 0;
    for index in (0..datafile.data_count()).filter(|&i| Some(i) != skip) {
        let data = datafile.data(index).unwrap().into_owned();
        reused += usize::from(streams.add_data(&mut writer, index, data));
    }
    (writer.to_vec().unwrap(), reused)
}

#[test]
fn every_corpus_map_rebuilds_from_decoded_data_byte_for_byte() {
    let Some(maps) = common::corpus_maps() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for path in &maps {
        let original = std::fs::read(path).unwrap();
        let datafile = Datafile::parse(&original).unwrap();
        let streams = Streams::of(&datafile).unwrap();
        let (bytes, _) = rebuild(&datafile, &streams, None);
        assert!(bytes == original, "{}", path.display());
        // Through the files of a directory: the same.
        let out = dir.path().join(path.file_stem().unwrap());
        streams.save(&out).unwrap();
        let loaded = Streams::load(&out).unwrap();
        assert_eq!(loaded.layout(), streams.layout(), "{}", path.display());
        let (bytes, _) = rebuild(&datafile, &loaded, None);
        assert!(bytes == original, "{} through files", path.display());
    }
}

#[test]
fn streams_follow_content_not_position() {
    let original = twcodec::sample::datafile();
    let datafile = Datafile::parse(&original).unwrap();
    let streams = Streams::of(&datafile).unwrap();
    let count = datafile.data_count();
    // Data item 0 left out: every later one is one place earlier and still finds its stream.
    let (bytes, reused) = rebuild(&datafile, &streams, Some(0));
    assert_eq!(reused, count - 1);
    let rebuilt = Datafile::parse(&bytes).unwrap();
    for index in 1..count {
        assert_eq!(rebuilt.stored_data(index - 1), datafile.stored_data(index));
    }
    // New content is compressed anew.
    let mut writer = streams.layout().writer();
    assert!(!streams.add_data(&mut writer, 0, b"not in the map".to_vec()));
}

#[test]
fn a_tampered_layout_or_stream_is_not_trusted() {
    let original = twcodec::sample::datafile();
    let datafile = Datafile::parse(&original).unwrap();
    let streams = Streams::of(&datafile).unwrap();
    let dir = tempfile::tempdir().unwrap();
    streams.save(dir.path()).unwrap();
    let layout_path = dir.path().join(".twcodec/layout.toml");
    let text = std::fs::read_to_string(&layout_path).unwrap();
    // The first data item claims other content: its stream is dropped, the others are kept.
    let first = &streams.layout().data[0];
    let lying = text.replacen(&first.content, &"0".repeat(64), 1);
    std::fs::write(&layout_path, &lying).unwrap();
    let loaded = Streams::load(dir.path()).unwrap();
    assert_eq!(loaded.layout().data[0].stream, None);
    assert!(loaded.layout().data[1..].iter().all(|e| e.stream.is_some()));
    let (bytes, reused) = rebuild(&datafile, &loaded, None);
    assert_eq!(reused, datafile.data_count() - 1);
    // Compressed anew, the data still decodes to the same map content.
    let rebuilt = Datafile::parse(&bytes).unwrap();
    assert_eq!(rebuilt.data(0).unwrap(), datafile.data(0).unwrap());
    // A syntax error names the file and the line.
    std::fs::write(&layout_path, "version = 4\nmagic = \n").unwrap();
    let error = Streams::load(dir.path()).unwrap_err().to_string();
    assert!(error.contains("layout.toml:2"), "{error}");
}

#[test]
fn every_corpus_tile_layer_reads_back_from_its_text() {
    use twcodec::map::LayerContent;
    use twcodec::mapdir::tiles::{parse, write};
    let Some(maps) = common::corpus_maps() else {
        return;
    };
    use rayon::prelude::*;
    // In parallel: the corpus holds some 25 million tiles.
    let layers: usize = maps
        .par_iter()
        .map(|path| {
            let mut layers = 0;
            let map = twcodec::Map::load(path).unwrap();
            for layer in map.layers() {
                macro_rules! check {
                    ($tiles:expr, $ty:ty) => {{
                        let Some(grid) = $tiles.grid() else { continue };
                        let text = write(grid, layer.kind_name());
                        assert_eq!(text.lines().count(), grid.height() + 1);
                        let back = parse::<$ty>(&text)
                            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                        assert!(&back == grid, "{} layer {:?}", path.display(), layer.name());
                        layers += 1;
                    }};
                }
                use twcodec::schema::map::tile::{Speedup, Switch, Tele, Tile, Tune};
                match layer.content() {
                    LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => {
                        check!(t, Tile)
                    }
                    LayerContent::Tele(t) => check!(t, Tele),
                    LayerContent::Speedup(t) => check!(t, Speedup),
                    LayerContent::Switch(t) => check!(t, Switch),
                    LayerContent::Tune(t) => check!(t, Tune),
                    _ => {}
                }
            }
            layers
        })
        .sum();
    assert!(layers > 100, "{layers}");
}

#[test]
fn painting_one_tile_changes_one_line() {
    use twcodec::mapdir::tiles::write;
    let map = twcodec::sample::map().unwrap();
    let (_, game) = map.game_layer().unwrap();
    let mut grid = game.grid().unwrap().clone();
    let before = write(&grid, "game");
    grid.get_mut(5, 3).unwrap().id = 9;
    let after = write(&grid, "game");
    let changed: Vec<(&str, &str)> = (before.lines().zip(after.lines()))
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(before.lines().count(), after.lines().count());
}
