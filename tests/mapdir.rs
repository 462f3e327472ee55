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
