//! Demo rendering speed (issue 34, "`twcodec demo render`"): frames per second of game drawn.
//!
//! - `ddnet_064/1280x720/one_thread`: the corpus demo `064_ddnet_join_chat_walk_disconnect`
//!   (DDNet's Tutorial map, 71 layers, one player), one second of game (ticks 1600 to 1649 at
//!   50 frames a second) replayed and drawn at 1280 x 720, following the player, with the
//!   corpus' game pictures and mapres, in a one-thread pool: frames a second = 50 / the
//!   median. Target (two threads): faster than the game, 50 frames a second.
//! - `.../two_threads`: the same in a two-thread pool.
//! - `.../replay_baseline`: the same second replayed into worlds without drawing, one thread.
//!
//! `cargo bench --bench demo_render`.

mod common;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use twcodec::demo::Demo;
use twcodec_tools::render::world::{DemoRenderOptions, DemoRenderer, Timeline};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// Replays ticks 1600 to 1649 and draws each instant; the frames drawn.
fn second(demo: &Demo, renderer: Option<&mut DemoRenderer>) -> usize {
    let timeline = Timeline::new(demo, 50.0)
        .unwrap()
        .from_tick(1600.0)
        .to_tick(1649.0);
    let mut frames = 0;
    match renderer {
        Some(renderer) => {
            for world in timeline {
                black_box(renderer.render(&world.unwrap()).unwrap());
                frames += 1;
            }
        }
        None => {
            for world in timeline {
                black_box(world.unwrap());
                frames += 1;
            }
        }
    }
    frames
}

fn bench_demo_render(c: &mut Criterion) {
    let corpus = common::corpus_dir();
    let path = corpus.join("demos/064_ddnet_join_chat_walk_disconnect__client.demo");
    let Ok(demo) = Demo::open(&path) else {
        eprintln!("skipped: no corpus demo at {}", path.display());
        return;
    };
    let options = DemoRenderOptions::default()
        .size(1280, 720)
        .data(corpus.join("gamedata/teeworlds06"))
        .mapres(Some(corpus.join("mapres/ddnet")));
    let mut renderer = DemoRenderer::new(&demo, &options).unwrap();
    assert!(renderer.warnings().is_empty(), "{:?}", renderer.warnings());
    assert_eq!(second(&demo, Some(&mut renderer)), 50);
    let one = pool(1);
    let two = pool(2);
    let mut group = c.benchmark_group("ddnet_064/1280x720");
    group.sample_size(10);
    group.bench_function("replay_baseline", |b| {
        b.iter(|| one.install(|| second(&demo, None)))
    });
    group.bench_function("one_thread", |b| {
        b.iter(|| one.install(|| second(&demo, Some(&mut renderer))))
    });
    group.bench_function("two_threads", |b| {
        b.iter(|| two.install(|| second(&demo, Some(&mut renderer))))
    });
    group.finish();
}

criterion_group!(benches, bench_demo_render);
criterion_main!(benches);
