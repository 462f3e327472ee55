//! Limits: each one, when exceeded, is a "limit exceeded" error naming the limit; the defaults
//! load every real map.

mod common;

use common::*;
use twcodec::{Datafile, DatafileWriter, ErrorKind, Limits, Map, Version};

/// The sample with one item's ints changed.
fn with_item(type_id: u16, id: u16, change: impl FnOnce(&mut Vec<i32>)) -> Vec<u8> {
    let sample = Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap();
    let mut writer = DatafileWriter::from_datafile(&sample);
    let item = writer
        .items_mut()
        .iter_mut()
        .find(|item| item.type_id() == type_id && item.id() == id)
        .unwrap();
    change(&mut item.data);
    writer.to_vec().unwrap()
}

/// Loads `bytes` as a map under `limits`, reading every data item too.
fn load(bytes: &[u8], limits: Limits) -> Result<(), twcodec::Error> {
    let datafile = Datafile::parse_with(bytes, limits)?;
    for index in 0..datafile.data_count() {
        datafile.data(index)?;
    }
    Map::from_datafile(&datafile).map(drop)
}

#[test]
fn every_limit_is_an_error_of_its_own() {
    let sample = twcodec_testkit::sample::datafile();
    assert!(load(&sample, Limits::default()).is_ok());
    // The game layer (layer id 2) claims 100000 x 100000 tiles over its small data.
    let huge_grid = with_item(5, 2, |ints| {
        ints[4] = 100_000;
        ints[5] = 100_000;
    });
    let cases = [
        (
            "max_data_size",
            &sample,
            Limits::default().with_max_data_size(100),
        ),
        (
            "max_total_data",
            &sample,
            Limits::default().with_max_total_data(1000),
        ),
        ("max_items", &sample, Limits::default().with_max_items(5)),
        ("max_layers", &sample, Limits::default().with_max_layers(3)),
        ("max_tiles", &sample, Limits::default().with_max_tiles(10)),
        ("max_tiles (default)", &huge_grid, Limits::default()),
    ];
    let mut report = String::new();
    for (limit, bytes, limits) in cases {
        let error = load(bytes, limits).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{limit}: {error}");
        assert!(error.to_string().contains("Limits::max_"), "{error}");
        report.push_str(&format!("{limit}: {error}\n"));
    }
    // Without limits the huge grid is what it is: tile data of the wrong size.
    let map = Map::from_datafile(&Datafile::parse_with(&huge_grid, Limits::UNLIMITED).unwrap());
    assert!(map
        .unwrap()
        .problems()
        .iter()
        .any(|p| p.to_string().contains("100000x100000")));
    insta_settings().bind(|| insta::assert_snapshot!("limits_errors", report));
}

#[test]
fn the_defaults_load_every_corpus_map() {
    let Some(maps) = corpus_maps() else { return };
    for path in maps {
        let bytes = std::fs::read(&path).unwrap();
        load(&bytes, Limits::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let map = Map::parse(&bytes).unwrap();
        if let Some(info) = map.info() {
            info.settings(&map)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}

/// The settings list is bounded by a count and a total, each an error of its own.
#[test]
fn the_string_limits_bound_the_settings() {
    let sample = twcodec_testkit::sample::datafile();
    let settings = |limits: Limits| {
        let map = Map::from_datafile(&Datafile::parse_with(&sample, limits).unwrap()).unwrap();
        let info = map.info().unwrap();
        info.settings(&map).map(|s| s.to_vec())
    };
    assert_eq!(
        settings(Limits::default()).unwrap(),
        ["sv_team 1", "tune_zone 1 gravity 0.3"]
    );
    let error = settings(Limits::default().with_max_strings(1)).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert_eq!(
        error.to_string(),
        "the settings hold 2 strings, more than the limit of 1 (Limits::max_strings)"
    );
    let error = settings(Limits::default().with_max_string_bytes(10)).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert_eq!(
        error.to_string(),
        "the settings take 34 bytes, more than the limit of 10 (Limits::max_string_bytes)"
    );
    assert_eq!(
        settings(Limits::default().with_max_strings(2))
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn the_writer_inflates_under_the_limits_of_its_source() {
    let sample = twcodec_testkit::sample::datafile();
    let tight = Limits::default().with_max_data_size(100);
    let df = Datafile::parse_with(&sample, tight).unwrap();
    // Written as stored, nothing is inflated.
    assert_eq!(DatafileWriter::from_datafile(&df).to_vec().unwrap(), sample);
    // Recompressing or writing version 3 inflates, under the source's limits.
    for writer in [
        DatafileWriter::from_datafile(&df).recompress(true),
        DatafileWriter::from_datafile(&df).version(Version::V3),
    ] {
        let error = writer.to_vec().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{error}");
        assert!(
            error.to_string().starts_with("data #")
                && error.to_string().contains("(Limits::max_data_size)"),
            "{error}"
        );
    }
    let relaxed = DatafileWriter::from_datafile(&df).limits(Limits::default());
    assert!(relaxed.recompress(true).to_vec().is_ok());
}
