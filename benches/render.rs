//! Rendering costs (issue 17, "Rendering"):
//!
//! - `chillblock5/render_2048/one_thread`: drawing the whole of `fddrace_ChillBlock5_big.map`
//!   (943 x 1075 tiles, 20 tile layers) to a 2048-pixel-wide picture in a one-thread pool,
//!   external pictures read from the corpus `mapres/ddnet` folder (PNG decoding included), the
//!   map already loaded. Target: at most 1 s.
//! - `.../two_threads`: the same in a two-thread pool.
//! - `.../with_png`: the render plus encoding the picture as PNG, one thread.
//! - `.../load_baseline`: loading the map (`Map::parse`, every layer decoded) in the same run,
//!   one thread: the render is quoted as a ratio of it.
//!
//! `cargo bench --bench render`.

mod common;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use twcodec::render::{render, RenderOptions, Size};
use twcodec::Map;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn bench_render(c: &mut Criterion) {
    let Some(bytes) = common::map_bytes("fddrace_ChillBlock5_big.map") else {
        return;
    };
    let mapres = common::maps_dir().join("../mapres/ddnet");
    let one = pool(1);
    let two = pool(2);
    let map = one.install(|| Map::parse(&bytes)).unwrap();
    let options = RenderOptions {
        size: Size::Width(2048),
        mapres: Some(mapres),
        ..RenderOptions::default()
    };
    // The picture the arms draw: the whole map, no placeholders.
    let rendered = render(&map, &options).unwrap();
    assert_eq!(rendered.picture.width, 2048);
    assert!(rendered.warnings.is_empty(), "{:?}", rendered.warnings);

    let mut group = c.benchmark_group("chillblock5/render_2048");
    group.sample_size(10);
    group.bench_function("load_baseline", |b| {
        b.iter(|| one.install(|| black_box(Map::parse(&bytes).unwrap())))
    });
    group.bench_function("one_thread", |b| {
        b.iter(|| one.install(|| black_box(render(&map, &options).unwrap())))
    });
    group.bench_function("two_threads", |b| {
        b.iter(|| two.install(|| black_box(render(&map, &options).unwrap())))
    });
    group.bench_function("with_png", |b| {
        b.iter(|| {
            one.install(|| {
                let rendered = render(&map, &options).unwrap();
                black_box(rendered.picture.to_png().unwrap())
            })
        })
    });
    group.finish();
}

criterion_group!(benches, bench_render);
criterion_main!(benches);
