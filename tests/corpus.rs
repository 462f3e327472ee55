//! The real maps of `../shared/corpus/maps` (or `TWCODEC_CORPUS`): every map parses, re-saves
//! byte for byte, and survives version 4 -> 3 -> 4 with every item and data item equal.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use twcodec::{Datafile, DatafileWriter, Version};
use twcodec_tools::dump;

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// Runs `check` on every corpus map, spread over the available cores.
fn each_map(check: impl Fn(&Path, &[u8]) + Sync) {
    let Some(maps) = corpus_maps() else { return };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunks: Vec<&[PathBuf]> = maps.chunks(maps.len().div_ceil(threads)).collect();
    std::thread::scope(|scope| {
        for chunk in chunks {
            let check = &check;
            scope.spawn(move || {
                for path in chunk {
                    let bytes = std::fs::read(path).unwrap();
                    check(path, &bytes);
                }
            });
        }
    });
}

#[test]
fn every_map_parses_and_its_warnings_are_reviewed() {
    let Some(maps) = corpus_maps() else { return };
    let mut report = String::new();
    for path in &maps {
        let df = Datafile::open(path).unwrap_or_else(|e| panic!("{e}"));
        for warning in df.warnings() {
            report.push_str(&format!("{}: {warning}\n", name(path)));
        }
    }
    report.push_str(&format!("{} maps parsed\n", maps.len()));
    insta_settings().bind(|| insta::assert_snapshot!("corpus_warnings", report));
}

#[test]
fn every_map_resaves_byte_for_byte() {
    each_map(|path, bytes| {
        let df = Datafile::parse(bytes).unwrap();
        let mut out = Vec::with_capacity(bytes.len());
        df.write(&mut out).unwrap();
        assert!(
            out == bytes[..bytes.len() - df.trailing_len()],
            "{}: re-save differs",
            name(path)
        );
    });
}

#[test]
fn every_map_survives_version_3_and_back() {
    each_map(|path, bytes| {
        let original = Datafile::parse(bytes).unwrap();
        let v3 = DatafileWriter::from_datafile(&original)
            .version(Version::V3)
            .to_vec()
            .unwrap();
        let v3 = Datafile::from_bytes(v3).unwrap();
        assert_eq!(v3.version(), Version::V3);
        // Level 1 keeps the test quick; equality is about content, not compression.
        let v4 = DatafileWriter::from_datafile(&v3)
            .version(Version::V4)
            .compression_level(1)
            .to_vec()
            .unwrap();
        let v4 = Datafile::from_bytes(v4).unwrap();
        let map = name(path);
        assert_eq!(v4.items(), original.items(), "{map}: items");
        assert_eq!(v4.data_count(), original.data_count(), "{map}: data count");
        for index in 0..original.data_count() {
            let data = original.data(index).unwrap();
            assert!(v3.data(index).unwrap() == data, "{map}: v3 data #{index}");
            assert!(v4.data(index).unwrap() == data, "{map}: v4 data #{index}");
        }
    });
}

#[test]
fn info_of_corpus_maps() {
    // Chosen for what they show: a stock 0.6 map, the old size fields, duplicate UUID index
    // items, an unknown item type, pre-0.4 UUID-range types without index items, 0.7 maps.
    let maps = [
        "tw06_stock_dm1.map",
        "tw05era_dm1_2008.map",
        "ddnet_maps7_Tsunami.map",
        "ninslash_generate_small1_item9.map",
        "legacy03_ctf1_old.map",
        "tinycave_1094b.map",
        "tw07dev2018_dm1_envv3.map",
        "pytwmap_version_only_64b.map",
    ];
    insta_settings().bind(|| {
        for map in maps {
            let Some(bytes) = corpus_map(map) else { return };
            let df = Datafile::parse(&bytes).unwrap();
            let snapshot = format!("info_corpus_{}", map.trim_end_matches(".map"));
            insta::assert_snapshot!(snapshot, dump::to_string(|out| dump::info(&df, out)));
        }
    });
}

#[test]
fn corpus_facts_from_the_manifest() {
    // Facts MANIFEST.md states about particular maps, checked against what the reader sees.
    let Some(bytes) = corpus_map("ninslash_generate_small1_item9.map") else {
        return;
    };
    let df = Datafile::parse(&bytes).unwrap();
    assert_eq!(df.items_of_type(9).len(), 1, "unknown item type 9 is kept");

    let Some(bytes) = corpus_map("ddnet_maps7_Tsunami.map") else {
        return;
    };
    let df = Datafile::parse(&bytes).unwrap();
    assert_eq!(
        df.items_of_type(0xFFFF).len(),
        2,
        "duplicate UUID index item"
    );
    assert_eq!(df.items_of_uuid(automapper_uuid()).len(), 19);

    let Some(bytes) = corpus_map("tw05era_dm1_2008.map") else {
        return;
    };
    let df = Datafile::parse(&bytes).unwrap();
    assert_eq!(df.size_fields(), twcodec::SizeFields::OldVersion4);

    let Some(bytes) = corpus_map("legacy03_ctf1_old.map") else {
        return;
    };
    let df = Datafile::parse(&bytes).unwrap();
    assert!(df.type_ids().any(|t| t == 0x8001));
    assert_eq!(df.uuid_of_type(0x8001), None, "pre-0.4 types have no UUID");
}

#[test]
fn lookups_by_type_and_uuid_agree_with_a_scan_of_every_corpus_map() {
    let Some(maps) = corpus_maps() else { return };
    for path in maps {
        let df = Datafile::parse(&std::fs::read(&path).unwrap()).unwrap();
        let name = path.display();
        let present: Vec<u16> = df.type_ids().collect();
        for type_id in present.iter().copied().chain([2000, 0x7FFF, 0xFFFB]) {
            let scan: Vec<_> = df
                .items()
                .iter()
                .filter(|item| item.type_id() == type_id)
                .collect();
            let found: Vec<_> = df.items_of_type(type_id).iter().collect();
            assert_eq!(found, scan, "{name}: type {type_id}");
        }
        for &(type_id, uuid) in df.uuid_types() {
            let first = df.uuid_types().iter().find(|&&(_, u)| u == uuid).unwrap().0;
            assert_eq!(df.type_of_uuid(uuid), Some(first), "{name}: type {type_id}");
        }
    }
}
