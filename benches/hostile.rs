//! Hostile inputs (issue "Hostile input"): maps and datafiles whose objects all refer to each
//! other, at sizes N and 2N, so that a cost growing with N squared shows as a ratio of 4 where
//! a linear one shows 2. Each is built in `tests/common/hostile.rs` or here.
//!
//! - `envelopes/N`: N envelopes all covering the same N points of an unknown curve type,
//!   loaded and dumped (JSON).
//! - `groups/N`: N groups all holding the same N layers, loaded and dumped.
//! - `short_items/N`: N image items too short for their layout, loaded.
//! - `item_types/N`: a datafile of N item types, one item each: parsed and `dump::info`.
//! - `uuid_index/N`: a datafile of N UUID index items: parsed.
//! - `automappers/N`: a map of N auto-mappers of one layer, written.
//! - `dump_text/N`, `dump_json/N`: the dump of a loaded map with N envelope points, written to
//!   a sink: the time of streaming output, linear in N (issue "Output paths").
//!
//! `cargo bench --bench hostile`.

#[path = "../tests/common/hostile.rs"]
#[allow(dead_code)]
mod hostile;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use twcodec::{Datafile, DatafileWriter, Map};
use twcodec_tools::dump::{self, DumpOptions};

use hostile::*;

/// Loads a map and dumps it as JSON into a sink.
fn load_and_dump(bytes: &[u8]) {
    let map = Map::parse(bytes).unwrap();
    dump::map_json(&map, DumpOptions::default(), &mut std::io::sink()).unwrap();
}

/// A datafile of `n` item types with one one-int item each.
fn item_types(n: u16) -> Vec<u8> {
    let mut writer = DatafileWriter::new();
    for type_id in 0..n {
        writer.add_item(type_id, 0, vec![1]);
    }
    writer.to_vec().unwrap()
}

/// A datafile of `n` UUID index items naming different UUIDs under different type ids.
fn uuid_index(n: u16) -> Vec<u8> {
    let mut writer = DatafileWriter::new();
    for id in 0..n {
        writer.add_item(0xFFFF, id, vec![1, 2, 3, i32::from(id)]);
    }
    writer.to_vec().unwrap()
}

/// The sample map with `n` more auto-mappers of one layer.
fn automappers(n: usize) -> Vec<u8> {
    let mut writer = sample_writer();
    copies(&mut writer, (0xFFFD, 0), n, 1, |_| {});
    writer.to_vec().unwrap()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("envelopes");
    group.sample_size(10);
    for n in [1000, 2000] {
        let bytes = envelopes_sharing_points(n, n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &bytes, |b, bytes| {
            b.iter(|| load_and_dump(black_box(bytes)))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("groups");
    group.sample_size(10);
    for n in [1000, 2000] {
        let bytes = groups_sharing_layers(n, n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &bytes, |b, bytes| {
            b.iter(|| load_and_dump(black_box(bytes)))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("short_items");
    group.sample_size(10);
    for n in [16_000u16, 32_000] {
        let mut writer = sample_writer();
        for id in 0..n {
            writer.add_item(2, 100 + id, vec![1]);
        }
        let bytes = writer.to_vec().unwrap();
        group.bench_with_input(BenchmarkId::from_parameter(n), &bytes, |b, bytes| {
            b.iter(|| Map::parse(black_box(bytes)).unwrap().problems().len())
        });
    }
    group.finish();

    let mut group = c.benchmark_group("item_types");
    group.sample_size(10);
    for n in [16_000, 32_000] {
        let bytes = item_types(n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &bytes, |b, bytes| {
            b.iter(|| {
                dump::to_string(|out| dump::info(&Datafile::parse(black_box(bytes)).unwrap(), out))
                    .len()
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("uuid_index");
    group.sample_size(10);
    for n in [16_000, 32_000] {
        let bytes = uuid_index(n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &bytes, |b, bytes| {
            b.iter(|| {
                Datafile::parse(black_box(bytes))
                    .unwrap()
                    .uuid_types()
                    .len()
            })
        });
    }
    group.finish();

    for (name, json) in [("dump_text", false), ("dump_json", true)] {
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        for n in [500_000, 1_000_000] {
            let map = Map::parse(&envelopes_sharing_points(0, n)).unwrap();
            group.bench_with_input(BenchmarkId::from_parameter(n), &map, |b, map| {
                b.iter(|| {
                    let out = &mut std::io::sink();
                    if json {
                        dump::map_json(map, DumpOptions::default(), out).unwrap();
                    } else {
                        dump::map_text(map, DumpOptions::default(), out).unwrap();
                    }
                })
            });
        }
        group.finish();
    }

    let mut group = c.benchmark_group("automappers");
    group.sample_size(10);
    for n in [16_000, 32_000] {
        let map = Map::parse(&automappers(n)).unwrap();
        group.bench_with_input(BenchmarkId::from_parameter(n), &map, |b, map| {
            b.iter(|| map.to_datafile().unwrap().to_vec().unwrap().len())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
