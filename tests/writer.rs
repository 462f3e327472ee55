//! The writer: type order, UUID type ids, lossless and changed data, levels, atomic saves, and
//! a property test that random datafiles read back as written.

mod common;

use common::*;
use proptest::prelude::*;
use twcodec::schema::datafile::Item;
use twcodec::schema::uuid::{uuid_from_name, uuid_to_ints};
use twcodec::{Datafile, DatafileWriter, ErrorKind, Version};

#[test]
fn item_types_are_sorted_and_items_keep_their_order() {
    let mut w = DatafileWriter::new();
    w.add_item(5, 1, vec![51]);
    w.add_item(2, 0, vec![20]);
    w.add_item(5, 0, vec![50]);
    w.add_item(0, 0, vec![1]);
    let df = Datafile::parse(&w.to_vec().unwrap()).unwrap();
    assert!(df.warnings().is_empty());
    assert_eq!(df.type_ids().collect::<Vec<_>>(), [0, 2, 5]);
    let keys: Vec<(u16, u16)> = df.items().iter().map(|i| (i.type_id(), i.id())).collect();
    assert_eq!(keys, [(0, 0), (2, 0), (5, 1), (5, 0)]);
}

#[test]
fn uuid_types_are_numbered_from_0xfffe_down_with_index_items() {
    let a = uuid_from_name("mapitemtype-automapper-config@ddnet.tw");
    let b = uuid_from_name("mapitemtype-envpoints-bezier@ddnet.tw");
    let mut w = DatafileWriter::new();
    assert_eq!(w.add_uuid_item(a, 0, vec![1]).unwrap(), 0xFFFE);
    assert_eq!(w.add_uuid_item(b, 0, vec![2]).unwrap(), 0xFFFD);
    assert_eq!(w.add_uuid_item(a, 1, vec![3]).unwrap(), 0xFFFE, "reused");
    let df = Datafile::parse(&w.to_vec().unwrap()).unwrap();
    assert_eq!(df.uuid_types(), [(0xFFFD, b), (0xFFFE, a)]);
    assert_eq!(df.items_of_uuid(a).len(), 2);
    assert_eq!(df.items_of_uuid(b)[0].data, [2]);
    let index = df.item(0xFFFF, 0xFFFE).unwrap();
    assert_eq!(index.data, uuid_to_ints(a));
}

#[test]
fn uuid_types_skip_ids_in_use() {
    let mut w = DatafileWriter::new();
    w.add_item(0xFFFE, 0, vec![]);
    let uuid = uuid_from_name("example@twcodec");
    assert_eq!(w.add_uuid_item(uuid, 0, vec![]).unwrap(), 0xFFFD);

    // A writer made from a file reuses the file's UUID type ids.
    let df = Datafile::parse(&small_v4()).unwrap();
    let mut w = DatafileWriter::from_datafile(&df);
    assert_eq!(w.uuid_type(automapper_uuid()), Some(0xFFFE));
    assert_eq!(
        w.add_uuid_item(automapper_uuid(), 1, vec![]).unwrap(),
        0xFFFE
    );
    assert_eq!(w.add_uuid_item(uuid, 0, vec![]).unwrap(), 0xFFFD);
}

#[test]
fn unchanged_data_keeps_its_bytes_and_changed_data_is_compressed() {
    let df = Datafile::parse(&small_v4()).unwrap();
    let mut w = DatafileWriter::from_datafile(&df);
    w.replace_data(0, &b"someone else\0"[..]).unwrap();
    assert!(w.replace_data(2, Vec::new()).is_err());
    let out = Datafile::parse(&w.to_vec().unwrap()).unwrap();
    assert_eq!(&*out.data(0).unwrap(), b"someone else\0");
    assert_eq!(
        out.stored_data(1),
        df.stored_data(1),
        "untouched data keeps its bytes"
    );
    assert_eq!(out.items(), df.items());
}

#[test]
fn compression_levels() {
    let data: Vec<u8> = (0..50_000u32).map(|i| (i * 7 % 13) as u8).collect();
    let stored_len = |level| {
        let mut w = DatafileWriter::new().compression_level(level);
        w.add_data(data.clone());
        let df = Datafile::parse(&w.to_vec().unwrap()).unwrap();
        assert_eq!(*df.data(0).unwrap(), data);
        df.stored_data(0).unwrap().len()
    };
    assert!(stored_len(0) > data.len(), "level 0 stores");
    assert!(stored_len(9) < stored_len(1));

    let error = DatafileWriter::new()
        .compression_level(10)
        .to_vec()
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Unsupported);
    assert_eq!(error.to_string(), "compression level 10 is not in 0..=9");
}

#[test]
fn recompress_changes_bytes_not_content() {
    let df = Datafile::parse(&small_v4()).unwrap();
    let out = DatafileWriter::from_datafile(&df)
        .recompress(true)
        .compression_level(0)
        .to_vec()
        .unwrap();
    let out = Datafile::parse(&out).unwrap();
    assert_ne!(out.stored_data(1), df.stored_data(1));
    assert_eq!(out.data(1).unwrap(), df.data(1).unwrap());
}

#[cfg(feature = "fs")]
#[test]
fn save_writes_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map.map");
    std::fs::write(&path, b"old").unwrap();
    small_writer().save(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), small_v4());
    let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(leftovers, 1, "no temporary file is left behind");

    let error = small_writer()
        .save(dir.path().join("missing/dir/map.map"))
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Io);
}

fn item_strategy() -> impl Strategy<Value = Item> {
    (
        0u16..12,
        any::<u16>(),
        prop::collection::vec(any::<i32>(), 0..8),
    )
        .prop_map(|(type_id, id, data)| Item::new(type_id, id, data))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Any items and data, written as version 3 or 4, read back as written (items grouped by
    /// type in ascending order), and a second write gives the same bytes.
    #[test]
    fn random_datafiles_round_trip(
        items in prop::collection::vec(item_strategy(), 0..20),
        data in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..300), 0..5),
        v3 in any::<bool>(),
    ) {
        let version = if v3 { Version::V3 } else { Version::V4 };
        let mut w = DatafileWriter::new().version(version);
        for item in &items {
            w.add_item(item.type_id(), item.id(), item.data.clone());
        }
        for bytes in &data {
            w.add_data(bytes.clone());
        }
        let bytes = w.to_vec().unwrap();
        let df = Datafile::parse(&bytes).unwrap();
        let mut expected = items.clone();
        expected.sort_by_key(Item::type_id);
        prop_assert_eq!(df.items(), &expected[..]);
        prop_assert_eq!(df.data_count(), data.len());
        for (index, bytes) in data.iter().enumerate() {
            prop_assert_eq!(&*df.data(index).unwrap(), &bytes[..]);
        }
        let mut again = Vec::new();
        df.write(&mut again).unwrap();
        prop_assert_eq!(again, bytes);
    }
}
