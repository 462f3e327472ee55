//! What a render holds: `render_png` draws and compresses the PNG piece by piece, so that its
//! heap peak is a few pieces, not the picture; `render` holds the whole picture.
//!
//! `peak_alloc` measures the heap's peak while each case runs, above what was allocated before
//! it. One test only, because the allocator's counters are global to the test binary.

use peak_alloc::PeakAlloc;
use twcodec_tools::render::{render, render_png, RenderOptions, Size, View};

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

const MIB: u64 = 1 << 20;

/// What `f` returns, and the bytes the heap grew by at its peak while `f` ran.
fn peak_above_start<R>(name: &str, f: impl FnOnce() -> R) -> (R, u64) {
    let start = ALLOC.current_usage();
    ALLOC.reset_peak_usage();
    let result = f();
    let peak = (ALLOC.peak_usage().saturating_sub(start)) as u64;
    eprintln!("{name}: peak {:.2} MiB", peak as f64 / MIB as f64);
    (result, peak)
}

#[test]
fn png_renders_hold_pieces_not_the_picture() {
    let map = twcodec_testkit::sample::map().unwrap();
    let (width, height) = (2048, 2048);
    let options = RenderOptions::default()
        .mapres(None)
        .size(Size::Pixels { width, height })
        .view(View::Whole);
    let picture = u64::from(width) * u64::from(height) * 4;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let (rendered, whole) = peak_above_start("render", || {
        pool.install(|| render(&map, &options).unwrap())
    });
    let (drawn, pieces) = peak_above_start("render_png", || {
        pool.install(|| render_png(&map, &options).unwrap())
    });
    // The picture is 16 MiB: `render` holds it; `render_png` (1.3 MiB when written) a piece
    // of 32 rows (256 KiB of pixels) with its filtered rows and compressor per thread, and
    // the pieces compressed (before their room was trimmed to what they hold, 64 pieces of
    // this picture held 8.9 MiB).
    assert!(whole >= picture, "render: {whole} bytes");
    assert!(
        pieces < 4 * MIB,
        "render_png: {pieces} bytes at its peak, the picture {picture}"
    );
    assert!(drawn.png == rendered.picture.to_png().unwrap());
}
