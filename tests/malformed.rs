//! Malformed datafiles: each case is a one-line generator from a small valid file, and each
//! gives a specific error (the messages are snapshotted), never a panic. Memory bounds are
//! checked in `tests/memory.rs`.

mod common;

use common::*;
use proptest::prelude::*;
use twcodec::{Datafile, ErrorKind};

/// Parses and, when that succeeds, inflates every data item: the first error, rendered with
/// its kind, or `ok`.
fn outcome(bytes: &[u8]) -> String {
    let result = Datafile::parse(bytes)
        .and_then(|df| (0..df.data_count()).try_for_each(|index| df.data(index).map(drop)));
    match result {
        Ok(()) => "ok".to_string(),
        Err(error) => format!("[{:?}] {error}", error.kind()),
    }
}

/// The cases: name and bytes. Offsets refer to [`layout`] of [`small_v4`].
fn cases() -> Vec<(&'static str, Vec<u8>)> {
    let base = small_v4();
    let at = layout(&base);
    let types = at.item_types;
    let item = |index: usize| at.items + get_i32(&base, at.item_offsets + 4 * index) as usize;
    let mut cases = vec![
        ("empty file", vec![]),
        ("bad magic", [b"PNG!".as_slice(), &base[4..]].concat()),
        ("version 5", with_i32(&base, 4, 5)),
        ("version -1", with_i32(&base, 4, -1)),
        ("header cut short", base[..20].to_vec()),
        ("negative num_item_types", with_i32(&base, 16, -1)),
        ("negative num_items", with_i32(&base, 20, -1)),
        ("negative num_data", with_i32(&base, 24, -1)),
        ("negative item_size", with_i32(&base, 28, -4)),
        ("negative data_size", with_i32(&base, 32, -1)),
        (
            "num_item_types beyond the type ids",
            with_i32(&base, 16, 65537),
        ),
        ("huge num_item_types", with_i32(&base, 16, 65536)),
        ("huge num_items", with_i32(&base, 20, i32::MAX)),
        ("huge num_data", with_i32(&base, 24, i32::MAX)),
        ("huge item_size", with_i32(&base, 28, 0x7FFF_FFFC)),
        ("huge data_size", with_i32(&base, 32, i32::MAX)),
        ("item_size not a multiple of 4", with_i32(&base, 28, 102)),
        (
            "item type id out of range",
            with_i32(&base, types, 0x1_0000),
        ),
        ("item type listed twice", with_i32(&base, types + 12, 0)),
        (
            "item type start mismatch",
            with_i32(&base, types + 12 + 4, 5),
        ),
        ("item type negative num", with_i32(&base, types + 8, -1)),
        (
            "item type num past num_items",
            with_i32(&base, types + 8, 10),
        ),
        (
            "item types list too few items",
            with_i32(&base, types + 36 + 8, 0),
        ),
        (
            "first item offset not zero",
            with_i32(&base, at.item_offsets, 4),
        ),
        (
            "decreasing item offsets",
            with_i32(&base, at.item_offsets + 8, 4),
        ),
        (
            "item offset past the item block",
            with_i32(&base, at.item_offsets + 12, 100),
        ),
        (
            "item smaller than its header",
            with_i32(&base, at.item_offsets + 4, 4),
        ),
        (
            "item size not a multiple of 4",
            with_i32(&base, item(0) + 4, 6),
        ),
        (
            "item size larger than its space",
            with_i32(&base, item(1) + 4, 28),
        ),
        (
            "item size overruns the item block",
            with_i32(&base, item(3) + 4, 100),
        ),
        (
            "item type differs from its table entry",
            with_i32(&base, item(0), 3 << 16),
        ),
        (
            "first data offset not zero",
            with_i32(&base, at.data_offsets, 1),
        ),
        (
            "decreasing data offsets",
            with_i32(&base, at.data_offsets + 4, -1),
        ),
        (
            "data offset past the data block",
            with_i32(&base, at.data_offsets + 4, 1000),
        ),
        (
            "negative uncompressed size",
            with_i32(&base, at.data_sizes + 4, -1),
        ),
        (
            "data declaring 200 MiB",
            with_i32(&base, at.data_sizes + 4, 200 << 20),
        ),
        (
            "data inflating past its declared size",
            with_i32(&base, at.data_sizes + 4, 10),
        ),
        (
            "data inflating short of its declared size",
            with_i32(&base, at.data_sizes + 4, 100),
        ),
        ("file cut inside the data", base[..base.len() - 1].to_vec()),
    ];
    let mut corrupt = base.clone();
    let second = at.data + get_i32(&base, at.data_offsets + 4) as usize;
    corrupt[second + 2..second + 6].copy_from_slice(b"\xff\xff\xff\xff");
    cases.push(("corrupt zlib stream", corrupt));
    let mut checksum = base.clone();
    let last = checksum.len() - 1;
    checksum[last] ^= 0x55;
    cases.push(("zlib checksum mismatch", checksum));
    cases
}

#[test]
fn every_case_gives_its_error() {
    let mut report = String::new();
    for (name, bytes) in cases() {
        let outcome = outcome(&bytes);
        assert_ne!(outcome, "ok", "{name} must be rejected");
        report.push_str(&format!("{name}:\n  {outcome}\n"));
    }
    insta_settings().bind(|| insta::assert_snapshot!("malformed_errors", report));
}

#[test]
fn kinds_sort_by_fault() {
    let base = small_v4();
    let kind = |bytes: &[u8]| Datafile::parse(bytes).unwrap_err().kind();
    assert_eq!(kind(&with_i32(&base, 4, 5)), ErrorKind::Unsupported);
    assert_eq!(kind(&with_i32(&base, 20, -1)), ErrorKind::Malformed);
    assert_eq!(kind(b"PNG!\x04\0\0\0"), ErrorKind::Malformed);
}

#[test]
fn errors_carry_offset_and_location() {
    let base = small_v4();
    let at = layout(&base);
    let error = Datafile::parse(&with_i32(&base, at.item_offsets + 8, 4)).unwrap_err();
    assert_eq!(error.offset(), Some(at.item_offsets as u64 + 8));
    assert_eq!(
        error.location(),
        Some(twcodec::Location::ItemIndex { index: 2 })
    );

    let sizes = with_i32(&base, at.data_sizes + 4, 10);
    let df = Datafile::parse(&sizes).unwrap();
    let error = df.data(1).unwrap_err();
    assert_eq!(error.location(), Some(twcodec::Location::Data { index: 1 }));
    let second = at.data + get_i32(&base, at.data_offsets + 4) as usize;
    assert_eq!(error.offset(), Some(second as u64));
}

#[test]
fn truncated_at_every_byte_offset() {
    let base = small_v4();
    let mut report = String::new();
    for len in 0..base.len() {
        let outcome = outcome(&base[..len]);
        assert_ne!(outcome, "ok", "a file cut to {len} bytes must be rejected");
        report.push_str(&format!("{len}: {outcome}\n"));
    }
    insta_settings().bind(|| insta::assert_snapshot!("malformed_truncated", report));

    let v3 = small_v3();
    for len in 0..v3.len() {
        assert!(
            Datafile::parse(&v3[..len]).is_err(),
            "v3 cut to {len} bytes"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Random byte changes never panic, and whatever parses can be inflated and written back.
    #[test]
    fn mutated_files_never_panic(
        changes in prop::collection::vec((0usize..243, any::<u8>()), 1..6),
        cut in 0usize..300,
    ) {
        let mut bytes = small_v4();
        prop_assume!(bytes.len() == 243);
        for (offset, value) in changes {
            bytes[offset] = value;
        }
        bytes.truncate(cut.max(1));
        if let Ok(df) = Datafile::parse(&bytes) {
            for index in 0..df.data_count() {
                let _ = df.data(index);
            }
            let _ = df.write(std::io::sink());
        }
    }
}
