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
//! - `chillblock5/end_to_end_2048/paired` (printed, not a criterion arm): the same two arms
//!   run alternately, 30 pairs, and the median of the pairs' ratios with its quartiles: on a
//!   host whose speed drifts from minute to minute, the ratio of two arms measured one after
//!   the other drifts with it.
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
    paired(&one, &two, &end_to_end);
}

/// `chillblock5/end_to_end_2048/paired`: the two pools' runs interleaved, 30 pairs (the order
/// within a pair alternating), and the median of each pair's ratio. Criterion runs one arm's
/// samples after the other's, so a host whose speed drifts from minute to minute moves one
/// arm and not the other; a pair's two runs share the minute. Only under `cargo bench`, and
/// when the filter (if any) matches the name.
fn paired(
    one: &rayon::ThreadPool,
    two: &rayon::ThreadPool,
    end_to_end: &(dyn Fn() -> Vec<u8> + Sync),
) {
    const NAME: &str = "chillblock5/end_to_end_2048/paired";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let benching = args.iter().any(|a| a == "--bench");
    let filter = args.iter().find(|a| !a.starts_with('-'));
    let listing = args.iter().any(|a| a == "--list");
    if !benching || listing || filter.is_some_and(|f| !NAME.contains(f.as_str())) {
        return;
    }
    let time = |pool: &rayon::ThreadPool| {
        let start = std::time::Instant::now();
        black_box(pool.install(end_to_end));
        start.elapsed().as_secs_f64()
    };
    let (mut ones, mut twos, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for pair in 0..30 {
        let (a, b) = match pair % 2 {
            0 => (time(one), time(two)),
            _ => {
                let b = time(two);
                (time(one), b)
            }
        };
        ones.push(a);
        twos.push(b);
        ratios.push(b / a);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let quartiles = |v: &Vec<f64>| (v[v.len() / 4], v[v.len() * 3 / 4]);
    let (one_ms, two_ms) = (median(&mut ones) * 1e3, median(&mut twos) * 1e3);
    let ratio = median(&mut ratios);
    let (low, high) = quartiles(&ratios);
    println!(
        "{NAME}: one thread {one_ms:.1} ms, two threads {two_ms:.1} ms (medians of 30 pairs); \
         median ratio {ratio:.3} (quartiles {low:.3} to {high:.3})"
    );
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
