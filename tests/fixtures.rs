//! Generated fixtures for what no real file has: version 3, `ATAD`, the old version-4 size
//! fields, duplicate UUID index items, unsorted item types. Fields are asserted, `info` is
//! snapshotted, and each one round-trips.

mod common;

use common::*;
use twcodec::schema::datafile::Magic;
use twcodec::schema::uuid::uuid_to_ints;
use twcodec::{Datafile, DatafileWriter, SizeFields, Version, WarningKind};
use twcodec_tools::dump;

fn kinds(df: &Datafile) -> Vec<WarningKind> {
    df.warnings().iter().map(|w| w.kind.clone()).collect()
}

/// What `Datafile::write` gives.
fn resave(df: &Datafile) -> Vec<u8> {
    let mut out = Vec::new();
    df.write(&mut out).unwrap();
    out
}

#[test]
fn small_v4_decodes_as_written() {
    let bytes = small_v4();
    let df = Datafile::parse(&bytes).unwrap();
    assert_eq!(df.version(), Version::V4);
    assert_eq!(df.magic(), Magic::Data);
    assert_eq!(df.size_fields(), SizeFields::Standard);
    assert!(df.warnings().is_empty());
    let header = df.header();
    assert_eq!(header.size as usize, bytes.len() - 16);
    assert_eq!(header.swaplen, header.size - header.data_size);
    assert_eq!(
        (header.num_item_types, header.num_items, header.num_data),
        (4, 4, 2)
    );
    assert_eq!(df.type_ids().collect::<Vec<_>>(), [0, 1, 0xFFFE, 0xFFFF]);
    assert_eq!(df.item(1, 0).unwrap().data, [1, 0, -1, -1, -1, 1]);
    assert_eq!(df.uuid_of_type(0xFFFE), Some(automapper_uuid()));
    assert_eq!(df.type_of_uuid(automapper_uuid()), Some(0xFFFE));
    assert_eq!(
        df.items_of_uuid(automapper_uuid())[0].data,
        [1, 0, 0, -1, 0, 0]
    );
    assert_eq!(&*df.data(0).unwrap(), b"author\0");
    assert_eq!(&*df.data(1).unwrap(), [1u8; 64]);
    assert_eq!(df.data_size(1), Some(64));
    assert!(df.data(2).is_err());
    assert_eq!(resave(&df), bytes);
}

#[test]
fn version_3_stores_data_as_is() {
    let bytes = small_v3();
    let df = Datafile::parse(&bytes).unwrap();
    assert_eq!(df.version(), Version::V3);
    assert!(df.tables().data_sizes.is_none());
    assert_eq!(df.header().size as usize, bytes.len() - 16);
    assert!(df.warnings().is_empty());
    // The raw data block holds the author string verbatim.
    assert_eq!(&df.stored_data(0).unwrap()[..], b"author\0");
    assert_eq!(df.data_size(1), Some(64));
    common::assert_same_content(&df, &Datafile::parse(&small_v4()).unwrap());

    assert_eq!(
        resave(&df),
        bytes,
        "a version-3 file re-saves byte for byte"
    );
    let v4 = DatafileWriter::from_datafile(&df)
        .version(Version::V4)
        .to_vec()
        .unwrap();
    assert_eq!(
        v4,
        small_v4(),
        "v3 -> v4 gives what the writer writes as v4"
    );
}

#[test]
fn atad_magic_reads_little_endian_and_is_kept() {
    let bytes = small_atad();
    assert_eq!(&bytes[..4], b"ATAD");
    let df = Datafile::parse(&bytes).unwrap();
    assert_eq!(df.magic(), Magic::Atad);
    common::assert_same_content(&df, &Datafile::parse(&small_v4()).unwrap());
    assert_eq!(resave(&df), bytes);
}

#[test]
fn old_size_fields_are_a_warning_and_are_kept() {
    let bytes = small_old_size_fields();
    let df = Datafile::parse(&bytes).unwrap();
    assert_eq!(df.size_fields(), SizeFields::OldVersion4);
    assert_eq!(kinds(&df), [WarningKind::OldSizeFields]);
    let table = 4 * df.header().num_data;
    assert_eq!(df.header().size as usize, bytes.len() - 16 - table as usize);
    common::assert_same_content(&df, &Datafile::parse(&small_v4()).unwrap());
    assert_eq!(
        resave(&df),
        bytes,
        "the old size fields are reproduced on re-save"
    );
    let standard = DatafileWriter::from_datafile(&df)
        .old_size_fields(false)
        .to_vec()
        .unwrap();
    assert_eq!(standard, small_v4());
}

#[test]
fn duplicate_uuid_index_items_are_tolerated_and_kept() {
    let bytes = small_duplicate_uuid_index();
    let df = Datafile::parse(&bytes).unwrap();
    assert_eq!(kinds(&df), [WarningKind::DuplicateUuidIndexItem]);
    assert_eq!(df.items_of_type(0xFFFF).len(), 2);
    assert_eq!(df.uuid_types(), [(0xFFFE, automapper_uuid())]);
    assert_eq!(df.items_of_uuid(automapper_uuid()).len(), 1);
    assert_eq!(resave(&df), bytes);
}

#[test]
fn a_uuid_named_by_two_type_ids_is_found_under_the_lower() {
    let mut w = small_writer();
    w.add_item(0xFFFF, 0xF000, uuid_to_ints(automapper_uuid()).to_vec());
    w.add_item(0xF000, 0, vec![5]);
    let df = Datafile::parse(&w.to_vec().unwrap()).unwrap();
    assert_eq!(
        df.uuid_types(),
        [(0xF000, automapper_uuid()), (0xFFFE, automapper_uuid())]
    );
    assert_eq!(df.type_of_uuid(automapper_uuid()), Some(0xF000));
    assert_eq!(df.items_of_uuid(automapper_uuid())[0].data, [5]);
    assert_eq!(df.type_of_uuid(twcodec::Uuid::nil()), None);
}

#[test]
fn unsorted_item_types_are_a_warning_and_a_resave_sorts_them() {
    let bytes = unsorted_types();
    let df = Datafile::parse(&bytes).unwrap();
    assert_eq!(kinds(&df), [WarningKind::UnsortedItemTypes]);
    assert_eq!(df.type_ids().collect::<Vec<_>>(), [1, 0]);
    assert_eq!(df.item(1, 0).unwrap().data, [7]);
    assert_eq!(df.item(0, 0).unwrap().data, [8]);

    let resaved = Datafile::parse(&resave(&df)).unwrap();
    assert!(resaved.warnings().is_empty());
    assert_eq!(resaved.type_ids().collect::<Vec<_>>(), [0, 1]);
    assert_eq!(resaved.item(1, 0).unwrap().data, [7]);
    assert_eq!(resaved.item(0, 0).unwrap().data, [8]);
}

#[test]
fn trailing_bytes_are_a_warning_and_dropped_on_resave() {
    let mut bytes = small_v4();
    bytes.extend_from_slice(b"garbage");
    let df = Datafile::parse(&bytes).unwrap();
    assert_eq!(kinds(&df), [WarningKind::TrailingBytes { len: 7 }]);
    assert_eq!(df.trailing_len(), 7);
    assert_eq!(resave(&df), small_v4());
}

#[test]
fn info_of_generated_fixtures() {
    let fixtures: [(&str, Vec<u8>); 7] = [
        ("small_v4", small_v4()),
        ("small_v3", small_v3()),
        ("small_atad", small_atad()),
        ("small_old_size_fields", small_old_size_fields()),
        ("small_duplicate_uuid_index", small_duplicate_uuid_index()),
        ("unsorted_types", unsorted_types()),
        ("sample", twcodec_testkit::sample::datafile()),
    ];
    let settings = insta_settings();
    settings.bind(|| {
        for (name, bytes) in fixtures {
            let df = Datafile::parse(&bytes).unwrap();
            insta::assert_snapshot!(
                format!("info_{name}"),
                dump::to_string(|out| dump::info(&df, out))
            );
        }
    });
}

#[test]
fn items_of_the_sample() {
    let df = Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap();
    insta_settings().bind(|| {
        insta::assert_snapshot!(
            "items_sample",
            dump::to_string(|out| dump::items(&df, None, out))
        );
        insta::assert_snapshot!(
            "items_sample_automapper",
            dump::to_string(|out| dump::items(
                &df,
                Some("mapitemtype-automapper-config@ddnet.tw".parse().unwrap()),
                out
            ))
        );
    });
}
