//! Snapshot costs (issue "Snapshots and snapshot deltas"): create and apply on 300-item
//! snapshots of a busy DDNet server (`twcodec_testkit::sample::game_snapshot`, consecutive ticks),
//! against the published crate `pre-rfc3243-libtw2-snapshot` (libtw2), in the same run.
//! Target: twcodec at least 5x faster on both.
//!
//! Each arm does the whole job a server or client does, from and to the int form both
//! libraries read and write:
//!
//! - `create/*`: delta from two snapshots, written as ints (libtw2: `Delta::create_raw` and
//!   `write_to_ints`; twcodec: `SnapshotDelta::create` and `write_ints`).
//! - `apply/*`: the ints of the delta a DDNet server sends (unchanged items left out) read and
//!   applied to the old snapshot (libtw2: `Delta::read_from_ints` and
//!   `RawSnap::read_with_delta`; twcodec: `SnapshotDelta::from_ints` and `Snapshot::apply`).
//!   `apply/twcodec_read_only` and `apply/twcodec_apply_only` split twcodec's arm in two.
//! - `read/*`: a snapshot from its ints, for reference.
//!
//! `cargo bench --bench snapshot`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use libtw2_snapshot::snap::{Delta, RawBuilder, RawSnap};
use twcodec::snap::{SizeTable, Snapshot, SnapshotDelta};
use twcodec_testkit::sample::game_snapshot;

/// The same snapshot for libtw2.
fn to_libtw2(snapshot: &Snapshot) -> RawSnap {
    let mut builder = RawBuilder::new();
    for item in snapshot.items() {
        builder
            .add_item(item.type_id(), item.id(), item.data)
            .expect("a valid snapshot");
    }
    builder.finish()
}

/// libtw2's form of a size table.
fn libtw2_sizes(type_id: u16) -> Option<u32> {
    SizeTable::ddnet_06()
        .size_of(type_id.into())
        .map(|size| size as u32)
}

fn bench_snapshots(c: &mut Criterion) {
    let sizes = SizeTable::ddnet_06();
    let (old, new) = (game_snapshot(1000), game_snapshot(1001));
    assert_eq!(old.len(), 300);
    let (old2, new2) = (to_libtw2(&old), to_libtw2(&new));
    let delta = SnapshotDelta::create(&old, &new).unwrap();
    let delta_ints = delta.to_ints(&sizes).unwrap();
    eprintln!(
        "snapshot: {} items, {} ints; delta: {} removed, {} item deltas, {} ints",
        old.len(),
        old.size() / 4,
        delta.removed().len(),
        delta.updates().len(),
        delta_ints.len()
    );

    let mut group = c.benchmark_group("create");
    let mut out = Vec::new();
    group.bench_function("twcodec", |b| {
        b.iter(|| {
            let delta = SnapshotDelta::create(black_box(&old), black_box(&new)).unwrap();
            out.clear();
            delta.write_ints(&sizes, &mut out).unwrap();
            black_box(out.len())
        })
    });
    let mut libtw2_delta = Delta::new();
    let mut buf = vec![0; 64 * 1024];
    group.bench_function("libtw2", |b| {
        b.iter(|| {
            libtw2_delta.create_raw(black_box(&old2), black_box(&new2));
            let ints = libtw2_delta.write_to_ints(libtw2_sizes, &mut buf).unwrap();
            black_box(ints.len())
        })
    });
    group.finish();

    let mut group = c.benchmark_group("apply");
    group.bench_function("twcodec", |b| {
        b.iter(|| {
            let delta = SnapshotDelta::from_ints(black_box(&delta_ints), &sizes).unwrap();
            black_box(old.apply(&delta).unwrap())
        })
    });
    group.bench_function("twcodec_read_only", |b| {
        b.iter(|| black_box(SnapshotDelta::from_ints(black_box(&delta_ints), &sizes).unwrap()))
    });
    group.bench_function("twcodec_apply_only", |b| {
        b.iter(|| black_box(old.apply(black_box(&delta)).unwrap()))
    });
    group.bench_function("libtw2", |b| {
        b.iter(|| {
            let mut delta = Delta::new();
            let mut ints = libtw2_packer::IntUnpacker::new(black_box(&delta_ints));
            delta
                .read_from_ints(&mut libtw2_warn::Ignore, libtw2_sizes, &mut ints)
                .unwrap();
            let mut snap = RawSnap::empty();
            snap.read_with_delta(&mut libtw2_warn::Ignore, &old2, &delta)
                .unwrap();
            black_box(snap)
        })
    });
    group.finish();

    let snapshot_ints = old.to_ints();
    let mut group = c.benchmark_group("read");
    group.bench_function("twcodec", |b| {
        b.iter(|| black_box(Snapshot::from_ints(black_box(&snapshot_ints)).unwrap()))
    });
    group.bench_function("libtw2", |b| {
        b.iter(|| {
            let mut snap = RawSnap::empty();
            snap.read_from_ints(&mut libtw2_warn::Ignore, black_box(&snapshot_ints))
                .unwrap();
            black_box(snap)
        })
    });
    group.finish();

    // Both rebuild the same snapshot from the same delta.
    let ours = old.apply(&delta).unwrap();
    assert_eq!(ours, new);
    let mut theirs = RawSnap::empty();
    let mut libtw2_delta = Delta::new();
    libtw2_delta
        .read_from_ints(
            &mut libtw2_warn::Ignore,
            libtw2_sizes,
            &mut libtw2_packer::IntUnpacker::new(&delta_ints),
        )
        .unwrap();
    theirs
        .read_with_delta(&mut libtw2_warn::Ignore, &old2, &libtw2_delta)
        .unwrap();
    assert_eq!(theirs.crc(), ours.checksum());
}

criterion_group!(benches, bench_snapshots);
criterion_main!(benches);
