//! Demo replay (issue "Demo reader"): the largest corpus demo read and replayed tick by tick
//! (every chunk Huffman-decoded and unpacked, every snapshot and delta applied, every message
//! decoded). Criterion reports ticks per second.
//!
//! `cargo bench --bench demo`.

mod common;

use std::hint::black_box;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use twcodec::demo::Demo;

/// The largest demo of the corpus, or none (with a note) without a corpus.
fn largest_demo() -> Option<(String, Bytes)> {
    let dir = common::maps_dir().parent()?.join("demos");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: no demos at {}", dir.display());
        return None;
    };
    let path = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "demo"))
        .max_by_key(|path| path.metadata().map_or(0, |meta| meta.len()))?;
    let name = path.file_name()?.to_string_lossy().into_owned();
    Some((name, Bytes::from(std::fs::read(&path).ok()?)))
}

fn bench_replay(c: &mut Criterion) {
    let Some((name, bytes)) = largest_demo() else {
        return;
    };
    let demo = Demo::from_bytes(bytes.clone()).unwrap();
    let ticks = demo.replay().count() as u64;
    let chunks = demo.chunks().count();
    eprintln!(
        "{name}: {} bytes, {chunks} chunks, {ticks} ticks",
        bytes.len()
    );

    let mut group = c.benchmark_group("demo");
    group.throughput(Throughput::Elements(ticks));
    group.bench_function("replay", |b| {
        b.iter(|| {
            let demo = Demo::from_bytes(black_box(bytes.clone())).unwrap();
            let mut items = 0;
            for frame in demo.replay() {
                let frame = frame.unwrap();
                items += frame.snapshot.map_or(0, |snapshot| snapshot.len());
            }
            black_box(items)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_replay);
criterion_main!(benches);
