//! Renders the hostile maps of `tests/common/hostile_render.rs` once each and prints the map's
//! size, how long the render took, and what it gave: the picture and the steps of work it took
//! ([`Rendered::work`](twcodec_tools::render::Rendered::work)), or the error. How the worst cases of
//! issue 28 ("render has no bound on quads times covered pixels") are measured.
//!
//! ```text
//! cargo run --release --example render_hostile      # every case at 1920 px, default limits
//! cargo run --release --example render_hostile -- quads_everywhere 1000 [WIDTH [MAX_WORK]]
//! ```
//!
//! A case is one of the names below and a count; the width (default 1920) sets the picture
//! of the whole 64 x 36 tile map, and `MAX_WORK` the map's
//! [`Limits::max_render_work`](twcodec::Limits::max_render_work) (`max` for no limit).

#[path = "../tests/common/hostile_render.rs"]
#[allow(dead_code)]
mod hostile_render;

use std::time::Instant;

use hostile_render::*;
use twcodec::{Datafile, Limits, Map};
use twcodec_tools::render::{render, RenderOptions, Size};

/// Every case and the counts it is measured at.
const CASES: [(&str, usize); 11] = [
    ("quads_everywhere", 1_000),
    ("quads_everywhere", 200_000),
    ("quads_far_away", 1_000_000),
    ("needles", 10_000),
    ("quad_layers_everywhere", 16_000),
    ("quad_layers_far_away", 16_000),
    ("tile_layers", 16_000),
    ("empty_tile_layers", 16_000),
    ("enveloped_quads", 10_000),
    ("textured_quads", 1_000),
    ("textured_tile_layers", 1_000),
];

/// The bytes of case `name` at `n`.
fn build(name: &str, n: usize) -> Option<Vec<u8>> {
    Some(match name {
        "quads_everywhere" => quads_layer(vec![everywhere(WHITE); n]),
        "quads_far_away" => quads_layer((0..n).map(far_away).collect()),
        "needles" => quads_layer(vec![needle(RED); n]),
        "quad_layers_everywhere" => quad_layers(n, everywhere(WHITE)),
        "quad_layers_far_away" => quad_layers(n, far_away(0)),
        "tile_layers" => tile_layers(n, 1),
        "empty_tile_layers" => tile_layers(n, 0),
        "enveloped_quads" => enveloped_quads(n, 100_000, needle(RED)),
        "textured_quads" => textured_quads(n),
        "textured_tile_layers" => textured_tile_layers(n),
        _ => return None,
    })
}

fn run(name: &str, n: usize, width: u32, limits: Limits) {
    let Some(bytes) = build(name, n) else {
        eprintln!("no case {name:?}; the cases: {CASES:?}");
        std::process::exit(2);
    };
    let map = Map::from_datafile(&Datafile::parse_with(&bytes, limits).unwrap()).unwrap();
    map.decode_all();
    let options = RenderOptions::default()
        .size(Size::Width(width))
        .mapres(None);
    let started = Instant::now();
    let result = render(&map, &options);
    let seconds = started.elapsed().as_secs_f64();
    let what = match result {
        Ok(rendered) => format!(
            "{}x{} in {} steps",
            rendered.picture.width, rendered.picture.height, rendered.work
        ),
        Err(e) => format!("error: {e}"),
    };
    println!(
        "{name} {n} ({} bytes) at {width} px: {seconds:.3} s, {what}",
        bytes.len()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let limits = match args.get(3).map(String::as_str) {
        None => Limits::DEFAULT,
        Some("max") => Limits::DEFAULT.with_max_render_work(u64::MAX),
        Some(steps) => Limits::DEFAULT.with_max_render_work(steps.parse().unwrap()),
    };
    match args.first() {
        Some(name) => {
            let n = args.get(1).map_or(1000, |n| n.parse().unwrap());
            let width = args.get(2).map_or(1920, |w| w.parse().unwrap());
            run(name, n, width, limits);
        }
        None => {
            for (name, n) in CASES {
                run(name, n, 1920, limits);
            }
        }
    }
}
