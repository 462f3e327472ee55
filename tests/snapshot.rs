//! Snapshots and deltas: decoded output, round trips, random pairs, agreement with the binrw
//! layouts and with libtw2, and every validation rule's error.

mod common;

use common::insta_settings;
use proptest::prelude::*;
use twcodec::schema::map::decode_ints;
use twcodec::schema::snapshot::{SnapshotDeltaLayout, SnapshotLayout};
use twcodec::schema::uuid::uuid_from_name;
use twcodec::snap::{
    packing, Form, Protocol, SizeTable, SnapKey, Snapshot, SnapshotBuilder, SnapshotDelta,
    MAX_ITEMS, MAX_SIZE,
};
use twcodec::ErrorKind;
use twcodec_tools::dump;

/// A snapshot of these items, in this order.
fn snapshot(items: &[(u16, u16, &[i32])]) -> Snapshot {
    let mut builder = SnapshotBuilder::new();
    for &(type_id, id, data) in items {
        builder.add_item(type_id, id, data).unwrap();
    }
    builder.finish().unwrap()
}

/// A snapshot with one item of every kind the text form shows: a pre-agreed type, an empty
/// item, an extended type with its announcement, one whose type is not announced, a type
/// without a name, and values at the ends of i32.
fn every_kind() -> Snapshot {
    let mut builder = SnapshotBuilder::new();
    builder.add_item(9, 0, &[1; 22]).unwrap();
    builder.add_item(15, 3, &[-64, 64]).unwrap();
    let character = uuid_from_name("character@netobj.ddnet.tw");
    builder.add_extended_item(character, 0, &[4, 5]).unwrap();
    let unknown = uuid_from_name("not-a-ddnet-object@example.org");
    builder.add_extended_item(unknown, 1, &[]).unwrap();
    builder.add_item(0x4000, 2, &[7]).unwrap();
    builder.add_item(30, 1, &[i32::MIN, i32::MAX]).unwrap();
    builder.finish().unwrap()
}

#[test]
fn decoded_snapshot_and_delta() {
    let old = every_kind();
    let new = snapshot(&[
        (9, 0, &[2; 22]),
        (15, 3, &[-64, 64]),
        (30, 1, &[i32::MAX, i32::MIN]),
        (4, 7, &[1, 2, 3, 4]),
    ]);
    let delta = SnapshotDelta::create(&old, &new).unwrap();
    let sizes = SizeTable::ddnet_06();
    let protocol = Some(Protocol::Ddnet06);
    let mut text = dump::to_string(|out| dump::snapshot_text(&old, protocol, out));
    text += &dump::to_string(|out| dump::snapshot_text(&new, Some(Protocol::Teeworlds07), out));
    text += &dump::to_string(|out| dump::delta_text(&delta, &sizes, protocol, out));
    text += &dump::to_string(|out| dump::snapshot_text(&old.apply(&delta).unwrap(), protocol, out));
    insta_settings().bind(|| insta::assert_snapshot!("snapshot_decoded", text));
}

#[test]
fn decoded_sample_delta() {
    let (old, new) = (
        twcodec_testkit::sample::game_snapshot(1000),
        twcodec_testkit::sample::game_snapshot(1001),
    );
    let delta = SnapshotDelta::create(&old, &new).unwrap();
    let text = dump::to_string(|out| {
        dump::delta_text(&delta, &SizeTable::ddnet_06(), Some(Protocol::Ddnet06), out)
    });
    insta_settings().bind(|| insta::assert_snapshot!("snapshot_sample_delta", text));
}

#[test]
fn the_sample_is_a_busy_server() {
    let old = twcodec_testkit::sample::game_snapshot(1000);
    let new = twcodec_testkit::sample::game_snapshot(1001);
    assert_eq!((old.len(), new.len()), (300, 300));
    let delta = SnapshotDelta::create(&old, &new).unwrap();
    // 4 projectiles, 5 lasers and 14 events go; 32 characters, a few infos and the
    // newcomers change or come.
    assert_eq!(delta.removed().len(), 23);
    let new_items = delta
        .updates()
        .filter(|item| old.get(item.key).is_none())
        .count();
    assert_eq!(new_items, 23);
    assert_eq!(old.apply(&delta).unwrap(), new);
}

#[test]
fn hand_built_files_read_and_write_identically() {
    let snapshot_ints = [
        20,          // data_size
        2,           // num_items
        0,           // offset of item 0
        8,           // offset of item 1
        0x000A_0002, // item 0: type 10, id 2
        -1,          // its data
        0x0000_4000, // item 1: type 0, id 0x4000 (announcement)
        1,           // data
        2,           // data
    ];
    let bytes = twcodec::snap::ints_to_bytes(&snapshot_ints);
    let snap = Snapshot::parse(&bytes, Form::Ints).unwrap();
    assert_eq!(snap.item(10, 2), Some(&[-1][..]));
    assert_eq!(snap.item(0, 0x4000), Some(&[1, 2][..]));
    // Two ints are too few for a UUID.
    assert_eq!(snap.type_uuid(0x4000), None);
    assert_eq!(snap.to_bytes(Form::Ints), bytes);
    let packed = snap.to_bytes(Form::Packed);
    assert_eq!(packed, packing::pack_ints(&snapshot_ints));
    assert_eq!(Snapshot::parse(&packed, Form::Packed).unwrap(), snap);

    let delta_ints = [
        0,  // num_removed_items
        1,  // num_item_deltas
        7,  // _zero, not zero: kept as read
        10, // type 10: obj_player_info, 5 pre-agreed ints in 0.6
        2,  // id
        1,  // data
        2,  // data
        3,  // data
        4,  // data
        5,  // data
    ];
    let sizes = SizeTable::ddnet_06();
    let delta = SnapshotDelta::from_ints(&delta_ints, &sizes).unwrap();
    assert_eq!(delta.zero(), 7);
    assert_eq!(delta.to_ints(&sizes).unwrap(), delta_ints);
    // In 0.7, type 10 has 22 pre-agreed ints: the same ints do not fit.
    assert!(SnapshotDelta::from_ints(&delta_ints, &SizeTable::teeworlds_07()).is_err());
}

/// Every validation rule, one input each, and the error it gives.
#[test]
fn every_rule_has_its_error() {
    let sizes = SizeTable::ddnet_06();
    let snapshot_cases: Vec<(&str, Vec<i32>)> = vec![
        ("one int", vec![0]),
        ("negative num_items", vec![0, -1]),
        ("too many items", vec![0, 1025]),
        ("negative data_size", vec![-4, 0]),
        ("unaligned data_size", vec![6, 0]),
        ("larger than 64 KiB", vec![65536, 1, 0]),
        (
            "counts larger than the data",
            vec![16, 2, 0, 4, 0x0001_0000],
        ),
        ("ints after the items", vec![4, 1, 0, 0x0001_0000, 9]),
        ("first offset not 0", vec![8, 1, 4, 0x0001_0000, 0]),
        ("negative offset", vec![8, 2, 0, -4, 0x0001_0000, 0]),
        ("unaligned offset", vec![8, 2, 0, 2, 0x0001_0000, 0]),
        (
            "offset not increasing",
            vec![12, 3, 0, 8, 4, 0x0001_0000, 0, 0x0001_0001],
        ),
        (
            "offset leaves no room for a key",
            vec![4, 2, 0, 4, 0x0001_0000],
        ),
        ("type past 0x7fff", vec![4, 1, 0, 0x8000_0000u32 as i32]),
        (
            "duplicate key",
            vec![12, 2, 0, 4, 0x0001_0000, 0x0001_0000, 5],
        ),
    ];
    let removed_missing = vec![1, 0, 0, 0x0004_0009];
    let delta_cases: Vec<(&str, Vec<i32>)> = vec![
        ("two ints", vec![0, 0]),
        ("negative num_removed_items", vec![-1, 0, 0]),
        ("num_removed_items past the data", vec![2, 0, 0, 1]),
        ("negative num_item_deltas", vec![0, -1, 0]),
        (
            "num_item_deltas past the data",
            vec![0, 2, 0, 4, 1, 0, 0, 0, 0],
        ),
        ("cut inside an item delta", vec![0, 1, 0, 4]),
        ("missing _size", vec![0, 1, 0, 30, 1]),
        ("negative type", vec![0, 1, 0, -1, 0, 0]),
        ("type past 0x7fff", vec![0, 1, 0, 0x8000, 0, 0]),
        ("id past 65535", vec![0, 1, 0, 30, 65536, 0]),
        ("negative _size", vec![0, 1, 0, 30, 1, -1]),
        ("data past the end", vec![0, 1, 0, 30, 1, 5, 1, 2]),
        ("ints after the item deltas", vec![0, 0, 0, 9]),
        ("key updated twice", vec![0, 2, 0, 30, 1, 1, 5, 30, 1, 1, 6]),
    ];
    let old = snapshot(&[(4, 1, &[1, 2, 3, 4]), (30, 1, &[5])]);
    let apply_cases: Vec<(&str, Vec<i32>)> = vec![
        ("removal of a missing key", removed_missing),
        ("key removed twice", vec![2, 0, 0, 0x0004_0001, 0x0004_0001]),
        (
            "key removed and updated",
            vec![1, 1, 0, 0x001E_0001, 30, 1, 1, 5],
        ),
        ("update of another size", vec![0, 1, 0, 30, 1, 2, 5, 6]),
    ];

    let mut text = String::new();
    let mut line = |rule: &str, result: String| text.push_str(&format!("{rule}: {result}\n"));
    for (rule, ints) in &snapshot_cases {
        let error = Snapshot::from_ints(ints).unwrap_err();
        line(&format!("snapshot, {rule}"), error.to_string());
    }
    for (rule, ints) in &delta_cases {
        let error = SnapshotDelta::from_ints(ints, &sizes).unwrap_err();
        line(&format!("delta, {rule}"), error.to_string());
    }
    for (rule, ints) in &apply_cases {
        let delta = SnapshotDelta::from_ints(ints, &SizeTable::none()).unwrap();
        let error = old.apply(&delta).unwrap_err();
        line(&format!("apply, {rule}"), error.to_string());
    }

    // Results past the limits.
    let big = vec![0; 4000];
    let mut builder = SnapshotBuilder::new();
    for id in 0..4 {
        builder.add_item(30, id, &big).unwrap();
    }
    let four = builder.finish().unwrap();
    let grow = snapshot(&[(31, 0, &big)]);
    let delta = SnapshotDelta::create(&Snapshot::empty(), &grow).unwrap();
    line(
        "apply, result larger than 64 KiB",
        four.apply(&delta).unwrap_err().to_string(),
    );
    let mut builder = SnapshotBuilder::new();
    for id in 0..MAX_ITEMS as u16 {
        builder.add_item(1, id, &[]).unwrap();
    }
    let full = builder.finish().unwrap();
    let delta = SnapshotDelta::create(&Snapshot::empty(), &snapshot(&[(2, 0, &[])])).unwrap();
    line(
        "apply, more than 1024 items",
        full.apply(&delta).unwrap_err().to_string(),
    );

    // Packed input: errors of the packing itself, and offsets in the packed bytes.
    let cut = Snapshot::from_packed(&[0x08, 0x01, 0x80]).unwrap_err();
    line("packed, cut inside an int", cut.to_string());
    let overlong = SnapshotDelta::from_packed(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01], &sizes);
    line("packed, overlong int", overlong.unwrap_err().to_string());
    // The third int (packed at byte 3, after the 2 bytes of 68 and the 1 of 1) is the first
    // offset, 4.
    let mut ints = vec![68, 1, 4];
    ints.extend([0; 17]);
    let packed = packing::pack_ints(&ints);
    let error = Snapshot::from_packed(&packed).unwrap_err();
    line("packed, first offset not 0", error.to_string());
    // More ints than 64 KiB holds: unpacking stops at the first one too many (1 byte each).
    let zeros = vec![0u8; MAX_SIZE / 4 + 10];
    let error = Snapshot::from_packed(&zeros).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    line("packed, more ints than 64 KiB", error.to_string());
    let error = SnapshotDelta::from_packed(&zeros, &sizes).unwrap_err();
    line("packed delta, more ints than 64 KiB", error.to_string());
    let error = SnapshotDelta::from_ints(&vec![0; MAX_SIZE / 4 + 1], &sizes).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    line("delta, more ints than 64 KiB", error.to_string());
    let odd = twcodec::snap::ints_from_bytes(&[0; 7]).unwrap_err();
    line("file, not whole ints", odd.to_string());
    let bytes = twcodec::snap::ints_to_bytes(&[1, 0, 0]);
    let neither = twcodec::snap::decode(&bytes, Form::Ints, &sizes).unwrap_err();
    line("decode, neither", neither.to_string());
    let wrong_size = snapshot(&[(9, 0, &[1])]);
    let delta = SnapshotDelta::create(&Snapshot::empty(), &wrong_size).unwrap();
    line(
        "write, not the pre-agreed size",
        delta.to_ints(&sizes).unwrap_err().to_string(),
    );
    let resized = snapshot(&[(9, 0, &[1, 2])]);
    line(
        "create, size change",
        SnapshotDelta::create(&wrong_size, &resized)
            .unwrap_err()
            .to_string(),
    );

    insta_settings().bind(|| insta::assert_snapshot!("snapshot_errors", text));
}

/// A snapshot pair for the property tests: keys from a small pool so that old and new share
/// many; each key's size fixed by its type (pre-agreed sizes where the table has them), so
/// that shared items keep their size as in a real protocol; values anywhere in i32; about a
/// third of the shared items unchanged; random stored order.
fn pair() -> impl Strategy<Value = (Snapshot, Snapshot)> {
    let types = prop::sample::select(vec![0u16, 1, 2, 4, 9, 13, 20, 21, 40, 0x4000, 0x7FFF]);
    let key = (types, 0u16..6);
    let item = (key, prop::collection::vec(any::<i32>(), 22), 0u8..3);
    let items = prop::collection::vec(item, 0..40);
    (items.clone(), items, any::<u64>()).prop_map(|(old_items, new_items, seed)| {
        let size = |type_id: u16| {
            SizeTable::ddnet_06()
                .size_of(type_id.into())
                .unwrap_or(usize::from(type_id % 5))
        };
        let mut old = Vec::<(SnapKey, Vec<i32>)>::new();
        for ((type_id, id), values, _) in old_items {
            let key = SnapKey::new(type_id, id);
            if old.iter().all(|(k, _)| *k != key) {
                old.push((key, values[..size(type_id)].to_vec()));
            }
        }
        let mut new = Vec::<(SnapKey, Vec<i32>)>::new();
        for ((type_id, id), values, keep) in new_items {
            let key = SnapKey::new(type_id, id);
            if new.iter().any(|(k, _)| *k == key) {
                continue;
            }
            let data = match old.iter().find(|(k, _)| *k == key) {
                Some((_, past)) if keep == 0 => past.clone(),
                _ => values[..size(type_id)].to_vec(),
            };
            new.push((key, data));
        }
        // A cheap shuffle of the new snapshot's order, from the seed.
        let len = new.len();
        for i in 0..len {
            let j = ((seed >> (i % 60)) as usize ^ i.wrapping_mul(7)) % len;
            new.swap(i, j);
        }
        let build = |items: &[(SnapKey, Vec<i32>)]| {
            let mut builder = SnapshotBuilder::new();
            for (key, data) in items {
                builder.add_item(key.type_id(), key.id(), data).unwrap();
            }
            builder.finish().unwrap()
        };
        (build(&old), build(&new))
    })
}

/// The items of a libtw2 snapshot, by key.
fn libtw2_items(snap: &libtw2_snapshot::snap::RawSnap) -> Vec<(u32, Vec<i32>)> {
    let mut items: Vec<_> = snap
        .items()
        .map(|item| (item.key() as u32, item.data.to_vec()))
        .collect();
    items.sort();
    items
}

/// Our items, by key.
fn items(snap: &Snapshot) -> Vec<(u32, Vec<i32>)> {
    snap.items_by_key()
        .map(|item| (item.key.0, item.data.to_vec()))
        .collect()
}

fn libtw2_sizes(type_id: u16) -> Option<u32> {
    SizeTable::ddnet_06()
        .size_of(type_id.into())
        .map(|size| size as u32)
}

fn to_libtw2(snapshot: &Snapshot) -> libtw2_snapshot::snap::RawSnap {
    let mut builder = libtw2_snapshot::snap::RawBuilder::new();
    for item in snapshot.items() {
        builder
            .add_item(item.type_id(), item.id(), item.data)
            .unwrap();
    }
    builder.finish()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn apply_of_create_gives_the_new_snapshot((old, new) in pair()) {
        let delta = SnapshotDelta::create(&old, &new).unwrap();
        let applied = old.apply(&delta).unwrap();
        prop_assert_eq!(&applied, &new);
        prop_assert_eq!(applied.checksum(), new.checksum());
        prop_assert_eq!(items(&applied), items(&new));
        // No item delta is all zeros: unchanged items are left out.
        for item in delta.updates() {
            let unchanged = old.get(item.key).is_some() && item.data.iter().all(|&d| d == 0);
            prop_assert!(!unchanged);
        }
        // DDNet's order: the old items kept, then the new ones in the order of the delta.
        let kept: Vec<SnapKey> = old.items().map(|i| i.key).filter(|k| new.get(*k).is_some()).collect();
        let added: Vec<SnapKey> = delta.updates().map(|i| i.key).filter(|k| old.get(*k).is_none()).collect();
        let order: Vec<SnapKey> = applied.items().map(|i| i.key).collect();
        prop_assert_eq!(order, [kept, added].concat());

        // Through both wire forms.
        let sizes = SizeTable::ddnet_06();
        for form in [Form::Ints, Form::Packed] {
            let bytes = delta.to_bytes(form, &sizes).unwrap();
            let read = SnapshotDelta::parse(&bytes, form, &sizes).unwrap();
            prop_assert_eq!(&read, &delta);
            prop_assert_eq!(read.to_bytes(form, &sizes).unwrap(), bytes);
            let snapshot_bytes = new.to_bytes(form);
            let snapshot = Snapshot::parse(&snapshot_bytes, form).unwrap();
            prop_assert_eq!(snapshot.to_bytes(form), snapshot_bytes);
            prop_assert_eq!(&snapshot, &new);
        }
    }

    #[test]
    fn libtw2_agrees((old, new) in pair()) {
        let sizes = SizeTable::ddnet_06();
        let (old2, new2) = (to_libtw2(&old), to_libtw2(&new));
        prop_assert_eq!(old.checksum(), old2.crc());

        // Our delta, applied by libtw2.
        let ours = SnapshotDelta::create(&old, &new).unwrap().to_ints(&sizes).unwrap();
        let mut delta = libtw2_snapshot::snap::Delta::new();
        delta.read_from_ints(
            &mut libtw2_warn::Ignore,
            libtw2_sizes,
            &mut libtw2_packer::IntUnpacker::new(&ours),
        ).unwrap();
        let mut theirs = libtw2_snapshot::snap::RawSnap::empty();
        theirs.read_with_delta(&mut libtw2_warn::Ignore, &old2, &delta).unwrap();
        prop_assert_eq!(libtw2_items(&theirs), items(&new));

        // libtw2's delta (unchanged items as zeros), applied by us.
        let mut delta = libtw2_snapshot::snap::Delta::new();
        delta.create_raw(&old2, &new2);
        let mut buffer = vec![0; 1 << 16];
        let theirs = delta.write_to_ints(libtw2_sizes, &mut buffer).unwrap();
        let applied = old.apply(&SnapshotDelta::from_ints(theirs, &sizes).unwrap()).unwrap();
        prop_assert_eq!(&applied, &new);

        // The same snapshot ints, read by both.
        let ints = new.to_ints();
        let mut read = libtw2_snapshot::snap::RawSnap::empty();
        read.read_from_ints(&mut libtw2_warn::Ignore, &ints).unwrap();
        prop_assert_eq!(libtw2_items(&read), items(&new));
    }

    #[test]
    fn the_walks_agree_with_the_binrw_layouts((old, new) in pair(), cut in any::<prop::sample::Index>(), poke in any::<(prop::sample::Index, i32)>()) {
        let sizes = SizeTable::ddnet_06();
        let mut ints = SnapshotDelta::create(&old, &new).unwrap().to_ints(&sizes).unwrap();
        // Sometimes broken: cut short, or one int changed.
        match cut.index(4) {
            0 => ints.truncate(cut.index(ints.len() + 1)),
            1 => { let i = poke.0.index(ints.len()); ints[i] = poke.1; }
            _ => {}
        }
        if let Ok(delta) = SnapshotDelta::from_ints(&ints, &sizes) {
            if !ints.is_empty() {
                let layout = decode_ints::<SnapshotDeltaLayout>(&ints, binrw::args! { sizes }).unwrap();
                prop_assert_eq!(layout.zero, delta.zero());
                prop_assert_eq!(&layout.removed_keys[..], delta.removed());
                prop_assert_eq!(layout.item_deltas.len(), delta.updates().len());
                for (item, ours) in layout.item_deltas.iter().zip(delta.updates()) {
                    prop_assert_eq!(SnapKey::new(item.type_id as u16, item.id as u16), ours.key);
                    prop_assert_eq!(item.data, ours.data);
                }
                prop_assert_eq!(twcodec::schema::map::encode_ints(&layout, ()).unwrap(), ints);
            }
        }

        let mut ints = new.to_ints();
        if cut.index(3) == 0 {
            let i = poke.0.index(ints.len());
            ints[i] = poke.1;
        }
        if let Ok(snapshot) = Snapshot::from_ints(&ints) {
            let layout = decode_ints::<SnapshotLayout>(&ints, ()).unwrap();
            prop_assert_eq!(layout.offsets.len(), snapshot.len());
            for (offset, item) in layout.offsets.iter().zip(snapshot.items()) {
                let start = *offset as usize / 4;
                prop_assert_eq!(layout.items[start] as u32, item.key.0);
                prop_assert_eq!(&layout.items[start + 1..start + 1 + item.data.len()], item.data);
            }
            prop_assert_eq!(twcodec::schema::map::encode_ints(&layout, ()).unwrap(), ints);
        }
    }

    #[test]
    fn hostile_ints_never_panic(ints in prop::collection::vec(prop_oneof![any::<i32>(), -4i32..70], 0..64), bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let old = twcodec_testkit::sample::game_snapshot(5);
        for sizes in [SizeTable::ddnet_06(), SizeTable::none()] {
            if let Ok(delta) = SnapshotDelta::from_ints(&ints, &sizes) {
                let _ = old.apply(&delta);
                let _ = Snapshot::empty().apply(&delta);
            }
            let _ = SnapshotDelta::from_packed(&bytes, &sizes);
        }
        let _ = Snapshot::from_ints(&ints);
        let _ = Snapshot::from_packed(&bytes);
    }
}
