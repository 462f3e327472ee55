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
//! - `chillblock5/end_to_end_2048/{one_thread,two_threads}` (issue 34): what `twcodec render
//!   MAP --width 2048` does after reading the file, on a rayon pool of 1 and of 2 threads:
//!   loading the map lazily (`Decode::Lazy`; the render decodes the layers it draws, in
//!   parallel, while the pictures are read), reading and decoding the pictures and making
//!   their mipmaps, drawing, and encoding the PNG (in parallel pieces). Target: the two-thread
//!   median at most 0.55 times the one-thread median. `TWCODEC_BENCH_THREADS=N` adds an arm
//!   on a pool of N threads (`N_threads`), for machines with more cores.
//!
//! - `hostile_1920/...`: maps built to cost far more than their size (issue 28,
//!   `tests/common/hostile_render.rs`), the whole map drawn 1920 x 1080, under the default
//!   [`Limits`]: `quads_everywhere_1000` (1000 quads over the whole picture, a 2 KB file: the
//!   work limit's error at the 258th), `tile_layers_16000` (16,000 layers of one tile, repeated
//!   over the picture: the error at the 1949th), `quads_far_away_1000000` (a million quads
//!   outside the picture: drawn, a step each), `needles_1000` (1000 quads across the picture, 2
//!   pixels thick: drawn, their pixels each). Before the render had a budget they took 101 s,
//!   141 s, 7.8 s and 24 s.
//!
//! `cargo bench --bench render`.

mod common;
#[path = "../tests/common/hostile_render.rs"]
#[allow(dead_code)]
mod hostile_render;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use twcodec::{Datafile, ErrorKind, Limits, Map};
use twcodec_tools::render::{render, RenderOptions, Size};

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
    let options = RenderOptions::default()
        .size(Size::Width(2048))
        .mapres(Some(mapres));
    // The picture the arms draw: the whole map, no placeholders, well within the default work
    // limit.
    let rendered = render(&map, &options).unwrap();
    assert_eq!(rendered.picture.width, 2048);
    assert!(rendered.warnings.is_empty(), "{:?}", rendered.warnings);
    let limit = Limits::DEFAULT.max_render_work();
    assert!(rendered.work < limit / 8, "{} steps", rendered.work);
    eprintln!("chillblock5 at 2048: {} steps of work", rendered.work);

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

    let end_to_end = || {
        let map = Map::parse_with(&bytes, twcodec::Decode::Lazy).unwrap();
        let rendered = render(&map, &options).unwrap();
        rendered.picture.to_png().unwrap()
    };
    let png = one.install(end_to_end);
    assert_eq!(png, two.install(end_to_end));
    let mut group = c.benchmark_group("chillblock5/end_to_end_2048");
    group.sample_size(20);
    group.bench_function("one_thread", |b| {
        b.iter(|| one.install(|| black_box(end_to_end())))
    });
    group.bench_function("two_threads", |b| {
        b.iter(|| two.install(|| black_box(end_to_end())))
    });
    // More threads where the machine has the cores: `TWCODEC_BENCH_THREADS=16`.
    let more = std::env::var("TWCODEC_BENCH_THREADS").ok();
    if let Some(n) = more
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        let many = pool(n);
        group.bench_function(format!("{n}_threads"), |b| {
            b.iter(|| many.install(|| black_box(end_to_end())))
        });
    }
    group.finish();
}

fn bench_hostile(c: &mut Criterion) {
    use hostile_render::*;
    let options = RenderOptions::default()
        .size(Size::Width(1920))
        .mapres(None);
    let cases: [(&str, Vec<u8>, bool); 4] = [
        (
            "quads_everywhere_1000",
            quads_layer(vec![everywhere(WHITE); 1000]),
            false,
        ),
        ("tile_layers_16000", tile_layers(16_000, 1), false),
        (
            "quads_far_away_1000000",
            quads_layer((0..1_000_000).map(far_away).collect()),
            true,
        ),
        ("needles_1000", quads_layer(vec![needle(RED); 1000]), true),
    ];
    let mut group = c.benchmark_group("hostile_1920");
    group.sample_size(10);
    for (name, bytes, drawn) in cases {
        let map = Map::from_datafile(&Datafile::parse(&bytes).unwrap()).unwrap();
        map.decode_all();
        let result = render(&map, &options);
        match drawn {
            true => assert!(result.is_ok(), "{name}"),
            false => assert_eq!(result.unwrap_err().kind(), ErrorKind::LimitExceeded),
        }
        group.bench_function(name, |b| b.iter(|| black_box(render(&map, &options))));
    }
    group.finish();
}

criterion_group!(benches, bench_render, bench_hostile);
criterion_main!(benches);
