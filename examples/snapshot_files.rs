//! Writes the sample game snapshots of two consecutive ticks and the delta between them, in
//! both forms, for trying `twcodec snap` on:
//!
//! ```text
//! cargo run --example snapshot_files -- /tmp/snaps
//! cargo run -- snap decode /tmp/snaps/delta.bin
//! cargo run -- snap apply /tmp/snaps/old.bin /tmp/snaps/delta.bin
//! ```
//!
//! Without a directory, the files go to a new temporary directory, which is named.

use std::path::PathBuf;

use twcodec::snap::{Form, SizeTable, SnapshotDelta};
use twcodec_testkit::sample::game_snapshot;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = match std::env::args_os().nth(1) {
        Some(dir) => PathBuf::from(dir),
        None => tempfile::Builder::new()
            .prefix("twcodec-snapshots-")
            .tempdir()?
            .keep(),
    };
    let (old, new) = (game_snapshot(1000), game_snapshot(1001));
    let delta = SnapshotDelta::create(&old, &new)?;
    let sizes = SizeTable::ddnet_06();
    for (form, suffix) in [(Form::Ints, "bin"), (Form::Packed, "packed")] {
        old.save(dir.join(format!("old.{suffix}")), form)?;
        new.save(dir.join(format!("new.{suffix}")), form)?;
        delta.save(dir.join(format!("delta.{suffix}")), form, &sizes)?;
    }
    println!(
        "wrote old, new and delta (.bin: 4-byte ints, .packed: packed ints) to {}",
        dir.display()
    );
    Ok(())
}
