//! Strict loading of broken maps: each map is one generator line away from the sample (which
//! loads strictly without a problem); each error names the item and the field.

mod common;

use common::*;
use twcodec::{Datafile, DatafileWriter, LoadMode, LoadOptions, Map};

/// The sample with one item's ints changed.
fn with_item(type_id: u16, id: u16, change: impl FnOnce(&mut Vec<i32>)) -> Vec<u8> {
    let sample = Datafile::parse(&twcodec::sample::datafile()).unwrap();
    let mut writer = DatafileWriter::from_datafile(&sample);
    let item = writer
        .items_mut()
        .iter_mut()
        .find(|item| item.type_id() == type_id && item.id() == id)
        .unwrap();
    change(&mut item.data);
    writer.to_vec().unwrap()
}

/// A change of one item: type id, id, what to do to its ints.
type Change = (u16, u16, fn(&mut Vec<i32>));

/// The sample with several items' ints changed.
fn with_items(changes: &[Change]) -> Vec<u8> {
    let sample = Datafile::parse(&twcodec::sample::datafile()).unwrap();
    let mut writer = DatafileWriter::from_datafile(&sample);
    for (type_id, id, change) in changes {
        let item = writer
            .items_mut()
            .iter_mut()
            .find(|item| item.type_id() == *type_id && item.id() == *id)
            .unwrap();
        change(&mut item.data);
    }
    writer.to_vec().unwrap()
}

/// The sample with one data item replaced.
fn with_data(index: usize, bytes: Vec<u8>) -> Vec<u8> {
    let sample = Datafile::parse(&twcodec::sample::datafile()).unwrap();
    let mut writer = DatafileWriter::from_datafile(&sample);
    writer.replace_data(index, bytes).unwrap();
    writer.to_vec().unwrap()
}

/// The sample with an extra item.
fn with_extra(type_id: u16, id: u16, ints: Vec<i32>) -> Vec<u8> {
    let sample = Datafile::parse(&twcodec::sample::datafile()).unwrap();
    let mut writer = DatafileWriter::from_datafile(&sample);
    writer.add_item(type_id, id, ints);
    writer.to_vec().unwrap()
}

/// Layer ids in the sample: 0 quads, 1 sounds, 2 game, 3 tiles, 4 front, 5 tele, 6 speedup,
/// 7 switch, 8 tune. Groups: 0 background (layers 0..2), 1 game (2..9).
fn cases() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("dangling image reference", with_item(5, 3, |i| i[13] = 7)),
        ("dangling color envelope", with_item(5, 3, |i| i[11] = 9)),
        ("dangling tile data", with_item(5, 2, |i| i[14] = 99)),
        ("dangling sound", with_item(5, 1, |i| i[6] = 4)),
        ("dangling info string", with_item(1, 0, |i| i[1] = 77)),
        ("group range out of range", with_item(4, 1, |i| i[6] = 12)),
        ("overlapping groups", with_item(4, 0, |i| i[6] = 3)),
        ("no game layer", with_item(5, 2, |i| i[6] = 0)),
        (
            "switch tile data of the wrong size",
            with_data(17, vec![0; 40]),
        ),
        (
            "envelope points out of range",
            with_item(3, 2, |i| i[3] = 60),
        ),
        ("overlapping envelope points", with_item(3, 1, |i| i[2] = 3)),
        ("image data too small", with_data(7, vec![0; 20])),
        // Group 0 takes the game layer; group 1 keeps the other physics layers.
        (
            "physics layer outside the game group",
            with_items(&[
                (4, 0, |i| i[6] = 3),
                (4, 1, |i| {
                    i[5] = 3;
                    i[6] = 6
                }),
            ]),
        ),
        ("duplicate item ids", with_item(3, 2, |_| {}).then_dup()),
        (
            "physics flag without its data index",
            with_item(5, 5, |i| i.truncate(18)),
        ),
        ("several physics flags", with_item(5, 4, |i| i[6] = 8 | 2)),
        (
            "automapper of a missing layer",
            with_item(0xFFFD, 0, |i| i[2] = 30),
        ),
        (
            "item too short for its layout",
            with_item(2, 1, |i| i.truncate(4)),
        ),
        ("quad data too small", with_item(5, 0, |i| i[4] = 40)),
        // What DDNet's loaders refuse or misread (issue "Output paths", `check --strict`).
        (
            "envelope of 100 channels (CVE-2021-43518's class)",
            with_item(3, 0, |i| i[1] = 100),
        ),
        (
            "embedded image of format 99",
            with_item(2, 1, |i| {
                i[0] = 2;
                i.push(99)
            }),
        ),
        (
            "image name without its NUL",
            with_data(6, b"checker".to_vec()),
        ),
        (
            "image name with a NUL inside",
            with_data(6, b"check\0er\0".to_vec()),
        ),
        ("sound name not UTF-8", with_data(8, b"ch\xffme\0".to_vec())),
        (
            "info author without its NUL",
            with_data(0, b"twcodec".to_vec()),
        ),
        (
            "settings whose last command has no NUL",
            with_data(4, b"sv_team 1\0tune_zone 1 gravity 0.3".to_vec()),
        ),
        ("version item of version 2", with_item(0, 0, |i| i[0] = 2)),
        ("tile layer of version 5", with_item(5, 3, |i| i[3] = 5)),
        ("tile layer color of 300", with_item(5, 3, |i| i[7] = 300)),
        (
            "version-2 image without its format",
            with_item(2, 1, |i| i[0] = 2),
        ),
        ("game tile with a skip byte", {
            let sample = Datafile::parse(&twcodec::sample::datafile()).unwrap();
            let mut tiles = sample.data(12).unwrap().to_vec();
            tiles[4 * 5 + 2] = 1;
            with_data(12, tiles)
        }),
    ]
}

trait ThenDup {
    fn then_dup(self) -> Vec<u8>;
}

impl ThenDup for Vec<u8> {
    /// A second envelope with id 0.
    fn then_dup(self) -> Vec<u8> {
        let df = Datafile::parse(&self).unwrap();
        let mut writer = DatafileWriter::from_datafile(&df);
        let mut copy = df.item(3, 0).unwrap().data.clone();
        copy[2] = 18;
        copy[3] = 0;
        writer.add_item(3, 0, copy);
        writer.to_vec().unwrap()
    }
}

#[test]
fn strict_mode_names_item_and_field() {
    let mut report = String::new();
    for (name, bytes) in cases() {
        let df = Datafile::parse(&bytes).unwrap();
        let error = Map::from_datafile_with(&df, LoadMode::Strict)
            .expect_err(name)
            .to_string();
        let lenient = Map::from_datafile(&df).expect("lenient loading keeps going");
        assert!(
            lenient.problems().iter().any(|p| p.to_string() == error),
            "{name}: the strict error is the lenient problem"
        );
        // Lenient maps write back unchanged.
        assert_eq!(lenient.to_bytes().unwrap(), bytes, "{name}: lossless");
        report.push_str(&format!("{name}:\n  {error}\n"));
    }
    insta_settings().bind(|| insta::assert_snapshot!("map_strict_errors", report));
}

/// A lazy map finds each broken map's problems too: those the items show at once (strict lazy
/// loading fails on the same error as strict eager loading when the items show it), those of
/// the content once it is decoded.
#[test]
fn lazy_loading_finds_the_same_problems() {
    for (name, bytes) in cases() {
        let eager = Map::parse(&bytes).unwrap();
        let lazy = Map::parse_lazy(&bytes).unwrap();
        let at_open = lazy.problems();
        assert!(
            eager.problems().starts_with(&at_open),
            "{name}: what a lazy map reports at once comes first in the eager map"
        );
        lazy.decode_all();
        assert_eq!(lazy.problems(), eager.problems(), "{name}");
        let strict = Map::parse_with(&bytes, LoadMode::Strict).expect_err(name);
        match Map::parse_with(&bytes, LoadOptions::LAZY.strict()) {
            Err(error) => assert_eq!(error.to_string(), strict.to_string(), "{name}"),
            Ok(map) => {
                assert!(
                    at_open
                        .iter()
                        .all(|p| p.severity != twcodec::map::Severity::Error),
                    "{name}: strict lazy loading fails on errors the items show"
                );
                map.decode_all();
                let first = map
                    .problems()
                    .into_iter()
                    .find(|p| p.severity == twcodec::map::Severity::Error);
                assert_eq!(
                    first.map(|p| p.to_error().to_string()),
                    Some(strict.to_string()),
                    "{name}"
                );
            }
        }
    }
}

/// The datafile reader's warnings are the map's problems too (`check` showed none of them):
/// errors where DDNet refuses the file, warnings where it reads it.
#[test]
fn datafile_warnings_are_problems() {
    let mut trailing = twcodec::sample::datafile();
    trailing.extend_from_slice(b"junk");
    let df = Datafile::parse(&trailing).unwrap();
    let error = Map::from_datafile_with(&df, LoadMode::Strict).unwrap_err();
    assert_eq!(
        error.to_string(),
        "datafile: 4 trailing bytes after the data block (a re-save drops them) (at byte 0xf96)"
    );
    let lenient = Map::from_datafile(&df).unwrap();
    assert_eq!(lenient.problems().len(), 1);

    let df = Datafile::parse(&small_duplicate_uuid_index()).unwrap();
    let map = Map::from_datafile(&df).unwrap();
    let duplicate = map
        .problems()
        .into_iter()
        .find(|p| p.to_string().starts_with("datafile: item #"))
        .unwrap();
    assert!(duplicate
        .to_string()
        .contains("duplicate UUID index item for this type"));
    assert_eq!(duplicate.severity, twcodec::map::Severity::Warning);
}

#[test]
fn the_sample_loads_strictly() {
    let map = Map::parse(&twcodec::sample::datafile()).unwrap();
    assert!(map.problems().is_empty());
    let _ = with_extra(0, 1, vec![1]);
}
