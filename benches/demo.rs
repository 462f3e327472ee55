//! Demo replay (issue "Demo reader"): the largest corpus demo read and replayed tick by tick
//! (every chunk Huffman-decoded and unpacked, every snapshot and delta applied, every message
//! decoded). Criterion reports ticks per second.
//!
//! Demo export (issue "Game-level decoding"): `demo/export_jsonl` and `demo/export_csv` are
//! `twcodec demo export` of the same demo (every object of every tick, JSONL; CSV with its
//! column pass; `export_jsonl_characters` only the characters, `--objects character`) into
//! a sink, against `demo/replay` in the same run. The target, a 2-minute
//! demo in well under a second, is checked by scaling: the demo's length is printed.
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
        "{name}: {} bytes, {chunks} chunks, {ticks} ticks, {} s long",
        bytes.len(),
        demo.header().length
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
    let filter = twcodec_tools::export::ObjectFilter::all();
    group.bench_function("export_jsonl", |b| {
        b.iter(|| {
            let demo = Demo::from_bytes(black_box(bytes.clone())).unwrap();
            let mut out = std::io::sink();
            for row in twcodec_tools::export::ObjectRows::new(&demo, &filter) {
                serde_json::to_writer(&mut out, &row.unwrap().to_json()).unwrap();
            }
        })
    });
    let characters = twcodec_tools::export::ObjectFilter::parse(&["character"]).unwrap();
    group.bench_function("export_jsonl_characters", |b| {
        b.iter(|| {
            let demo = Demo::from_bytes(black_box(bytes.clone())).unwrap();
            let mut out = std::io::sink();
            for row in twcodec_tools::export::ObjectRows::new(&demo, &characters) {
                serde_json::to_writer(&mut out, &row.unwrap().to_json()).unwrap();
            }
        })
    });
    group.bench_function("export_csv", |b| {
        b.iter(|| {
            let demo = Demo::from_bytes(black_box(bytes.clone())).unwrap();
            let columns = twcodec_tools::export::columns(&demo, &filter).unwrap();
            let mut out = csv::Writer::from_writer(std::io::sink());
            out.write_record(&columns).unwrap();
            for row in twcodec_tools::export::ObjectRows::new(&demo, &filter) {
                out.write_record(twcodec_tools::export::cells(&row.unwrap(), &columns))
                    .unwrap();
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_replay);
criterion_main!(benches);
