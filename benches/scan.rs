//! Batch costs (issue 20, "Batch commands"): `twcodec_tools::scan` over the whole corpus (every
//! map and demo), files per second.
//!
//! - `corpus/scan/metadata/{1,2}_threads`: the metadata scan (lazy map open, demo headers,
//!   file hashes) on one and two threads.
//! - `corpus/scan/deep/{1,2}_threads`: the deep scan (every data item inflated, every tile
//!   decoded, every demo replayed).
//! - `corpus/scan/read_baseline`: reading every file and hashing it (SHA-256), one thread, in
//!   the same run: the scans are quoted as ratios of it.
//!
//! Throughput is reported in files (criterion's elements). `cargo bench --bench scan`.

mod common;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sha2::Digest;
use twcodec_tools::scan::{find, scan, ScanOptions};

fn bench_scan(c: &mut Criterion) {
    let corpus = common::maps_dir().join("..");
    if !corpus.join("maps").is_dir() {
        return;
    }
    let files = find(&[&corpus]).unwrap();
    let mut group = c.benchmark_group("corpus/scan");
    group.sample_size(10);
    group.throughput(Throughput::Elements(files.len() as u64));
    group.bench_function("read_baseline", |b| {
        b.iter(|| {
            for file in &files {
                let bytes = std::fs::read(file).unwrap();
                black_box(sha2::Sha256::digest(&bytes));
            }
        })
    });
    for deep in [false, true] {
        for jobs in [1, 2] {
            let options = ScanOptions::default().deep(deep).jobs(Some(jobs));
            let name = format!("{}/{jobs}_threads", if deep { "deep" } else { "metadata" });
            group.bench_function(name, |b| {
                b.iter(|| black_box(scan(&files, &options).unwrap().count()))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_scan);
criterion_main!(benches);
