//! Every input that fuzzing (`fuzz/`) found to crash, hang or over-allocate, written out as
//! bytes, run through its target's body and checked for the behaviour that fixed it.
//! The smoke test (`tests/fuzz_smoke.rs`) runs the same bodies over seeds and mutations.

use twcodec::fuzz::Target;
use twcodec::snap::Snapshot;
use twcodec::ErrorKind;

/// `snapshot`: a snapshot without items declaring 4 bytes of data read without error, and
/// writing it back dropped the data int (`[4, 0, x]` came back as `[0, 0]`). Now an error.
#[test]
fn snapshot_without_items_but_with_data() {
    let bytes = [
        0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0x60, 0x60, 0x60,
    ];
    Target::Snapshot.run(&bytes);
    let error = Snapshot::from_ints(&[4, 0, 0x6060_ffff]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Malformed);
    assert_eq!(
        error.to_string(),
        "data_size 4 without items: a snapshot without items has no data (at byte 0x0)"
    );
    // Without data the empty snapshot still reads.
    assert_eq!(Snapshot::from_ints(&[0, 0]).unwrap(), Snapshot::empty());
}
