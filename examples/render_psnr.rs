//! How close the renderer's sampling comes to the picture it stands for (issue 34): corpus maps
//! drawn zoomed out, where mipmaps and the fringes of see-through texels matter, each compared
//! with a reference, the same view drawn 4 times wider and 4 times taller from level 0 of
//! every picture alone and reduced by the mean of each 4 x 4 block. Prints the PSNR (red,
//! green and blue; the pictures are opaque) of the game's sampling (straight texels, two
//! mipmap levels mixed per pixel) and of the renderer's sampling before issue 34
//! (premultiplied texels, one level per triangle or tile layer), and the time each took.
//!
//! ```text
//! cargo run --release -p twcodec-tools --example render_psnr
//! ```
//!
//! The maps are read from `$TWCODEC_CORPUS/maps` (default `../shared/corpus` beside the
//! repository), their external pictures from `$TWCODEC_CORPUS/mapres/ddnet`. The table in
//! docs/performance.md ("Sampling") is its output.

use std::path::PathBuf;
use std::time::Instant;

use twcodec::{Datafile, Limits, Map};
use twcodec_tools::render::{render, Filtering, RenderOptions, Size, View};

/// Maps and views: the whole map at a width, or a camera at a zoom over the middle of the game
/// layer (a picture of 1024 x 576; the game's screen at zoom 1 shows 22 pixels a tile there).
/// Views where a pixel covers up to about 16 texels of a 64-texel tile: the reference, 4 x 4
/// samples of level 0, stands for such a pixel well; far more (a whole big map on a small
/// picture) and the reference itself aliases.
const CASES: [(&str, Case); 8] = [
    ("fddrace_ChillBlock5_big", Case::Camera(4.0)),
    ("ddnet_Castle_Echos", Case::Whole(1024)),
    ("ddnet_theme_winter_night", Case::Whole(768)),
    ("tw06_stock_ctf5", Case::Whole(768)),
    ("trace_Nature", Case::Whole(1024)),
    ("ddnet_Sunny_Side_Up", Case::Camera(4.0)),
    ("ddnet_LearnToPlay", Case::Camera(3.0)),
    ("tw07_ctf5", Case::Camera(2.0)),
];

#[derive(Clone, Copy)]
enum Case {
    Whole(u32),
    Camera(f64),
}

/// How many times larger the reference is drawn, along each side.
const SUPER: u32 = 4;

fn main() {
    let corpus = std::env::var_os("TWCODEC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    println!(
        "| map | view | pixels | game's sampling | before issue 34 | render ms (game / before) |"
    );
    println!("|---|---|---|---:|---:|---:|");
    for (name, case) in CASES {
        let path = corpus.join("maps").join(format!("{name}.map"));
        // Room for the reference, 16 times the pixels.
        let limits = Limits::default().with_max_render_work(u64::MAX / 4);
        let map = match Datafile::open_with(&path, limits)
            .and_then(|df| Map::from_datafile_owned(df, twcodec::LoadOptions::LAZY))
        {
            Ok(map) => map,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                continue;
            }
        };
        let (view, width, height, label) = match case {
            Case::Whole(width) => {
                let (w, h) = whole_size(&map, width);
                (View::Whole, w, h, "whole map".to_string())
            }
            Case::Camera(zoom) => {
                let (x, y) = middle(&map);
                let view = View::Camera { x, y, zoom };
                (view, 1024, 576, format!("camera, zoom {zoom}"))
            }
        };
        let options = |scale: u32, filtering: Filtering| {
            RenderOptions::default()
                .size(Size::Pixels {
                    width: width * scale,
                    height: height * scale,
                })
                .view(view)
                .mapres(Some(corpus.join("mapres/ddnet")))
                .filtering(filtering)
        };
        let draw = |scale: u32, filtering: Filtering| {
            let started = Instant::now();
            let rendered = render(&map, &options(scale, filtering)).expect("render");
            for warning in &rendered.warnings {
                eprintln!("{name}: {warning}");
            }
            (
                rendered.picture.rgba,
                started.elapsed().as_secs_f64() * 1000.0,
            )
        };
        let (large, _) = draw(SUPER, Filtering::Level0);
        let reference = reduce(&large, width as usize, height as usize);
        let (game, game_ms) = draw(1, Filtering::Game);
        let (before, before_ms) = draw(1, Filtering::Issue17);
        println!(
            "| {name} | {label} | {width} x {height} | {:.2} dB | {:.2} dB | {game_ms:.0} / {before_ms:.0} |",
            psnr(&game, &reference),
            psnr(&before, &reference),
        );
    }
}

/// The picture size of a whole-map view `width` pixels wide, as `Size::Width` makes it.
fn whole_size(map: &Map, width: u32) -> (u32, u32) {
    let options = RenderOptions::default()
        .size(Size::Width(width))
        .mapres(None)
        .layers(Some(Vec::new()));
    let picture = render(map, &options).expect("render").picture;
    (picture.width, picture.height)
}

/// The middle of the game layer, in tiles.
fn middle(map: &Map) -> (f64, f64) {
    match map.game_layer() {
        Some((_, game)) => {
            let item = game.item();
            (f64::from(item.width) / 2.0, f64::from(item.height) / 2.0)
        }
        None => (0.0, 0.0),
    }
}

/// An RGBA picture `SUPER` times `width` x `height`, reduced to `width` x `height` by the
/// mean of each block (as floats).
fn reduce(large: &[u8], width: usize, height: usize) -> Vec<f64> {
    let n = SUPER as usize;
    let stride = width * n * 4;
    let mut out = vec![0.0; width * height * 4];
    for y in 0..height {
        for x in 0..width {
            for c in 0..4 {
                let mut sum = 0u32;
                for dy in 0..n {
                    for dx in 0..n {
                        sum += u32::from(large[(y * n + dy) * stride + (x * n + dx) * 4 + c]);
                    }
                }
                out[(y * width + x) * 4 + c] = f64::from(sum) / (n * n) as f64;
            }
        }
    }
    out
}

/// Peak signal to noise ratio of `picture` against `reference` over red, green and blue.
fn psnr(picture: &[u8], reference: &[f64]) -> f64 {
    let (mut sum, mut count) = (0.0, 0usize);
    for (p, r) in picture.chunks_exact(4).zip(reference.chunks_exact(4)) {
        for c in 0..3 {
            let d = f64::from(p[c]) - r[c];
            sum += d * d;
            count += 1;
        }
    }
    let mse = sum / count.max(1) as f64;
    10.0 * (255.0 * 255.0 / mse.max(1e-12)).log10()
}
