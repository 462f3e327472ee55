//! Parse + inflate every data item of each corpus map, against a plain flate2 inflate loop over
//! the same data items (issue "Foundation": target at most 1.05x in total).
//!
//! `cargo bench --bench datafile`; the corpus comes from `TWCODEC_CORPUS` (default
//! `../shared/corpus`). Compare the medians of `inflate_all/twcodec` and `inflate_all/flate2`.

mod common;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use twcodec::Datafile;

struct Map {
    name: String,
    bytes: Vec<u8>,
    /// Each data item's stored zlib stream and declared size, for the baseline.
    streams: Vec<(Vec<u8>, usize)>,
}

fn corpus() -> Vec<Map> {
    common::map_paths()
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            let df = Datafile::parse(&bytes).unwrap();
            let streams = (0..df.data_count())
                .map(|i| {
                    (
                        df.stored_data(i).unwrap().to_vec(),
                        df.data_size(i).unwrap(),
                    )
                })
                .collect();
            Map {
                name: path.file_stem().unwrap().to_string_lossy().into_owned(),
                bytes,
                streams,
            }
        })
        .collect()
}

/// twcodec: parse and check the whole file, then inflate every data item.
fn twcodec_inflate(bytes: &[u8]) -> usize {
    let df = Datafile::parse(bytes).unwrap();
    let mut total = 0;
    for index in 0..df.data_count() {
        total += black_box(df.data(index).unwrap()).len();
    }
    total
}

fn bench(c: &mut Criterion) {
    let maps = corpus();
    if maps.is_empty() {
        return;
    }
    let uncompressed: usize = maps
        .iter()
        .flat_map(|m| m.streams.iter().map(|s| s.1))
        .sum();

    let mut group = c.benchmark_group("inflate_all");
    group.throughput(Throughput::Bytes(uncompressed as u64));
    group.sample_size(30);
    group.bench_function("flate2", |b| {
        b.iter(|| {
            maps.iter()
                .map(|m| common::flate2_inflate(&m.streams))
                .sum::<usize>()
        })
    });
    group.bench_function("twcodec", |b| {
        b.iter(|| {
            maps.iter()
                .map(|m| twcodec_inflate(&m.bytes))
                .sum::<usize>()
        })
    });
    group.finish();

    // The three largest maps on their own, to see the ratio where inflating dominates.
    let mut largest: Vec<&Map> = maps.iter().collect();
    largest.sort_by_key(|m| std::cmp::Reverse(m.bytes.len()));
    for map in largest.into_iter().take(3) {
        let mut group = c.benchmark_group(format!("inflate_{}", map.name));
        group.sample_size(30);
        group.bench_function("flate2", |b| {
            b.iter(|| common::flate2_inflate(&map.streams))
        });
        group.bench_function("twcodec", |b| b.iter(|| twcodec_inflate(&map.bytes)));
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
