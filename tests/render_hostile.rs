//! Renders of maps built to cost far more than their size (issue 28, untrusted input; the maps
//! are made in `tests/common/hostile_render.rs`): what is outside the picture costs nothing,
//! what covers it costs its pixels, and a map that asks for more than
//! [`Limits::max_render_work`] ends with the error naming that limit, before anything is drawn.
//! Each finishes at once; before the render had a budget, the maps here drawn at 1920 pixels
//! took from 8 s (a million quads outside the picture) to 431 s (quads with a long envelope),
//! and 200,000 quads over the picture hours (by extrapolation from 1000: 101 s).

#[path = "common/hostile_render.rs"]
#[allow(dead_code)]
mod hostile_render;

use hostile_render::*;
use twcodec::{Datafile, ErrorKind, Limits, Location, Map};
use twcodec_tools::render::{render, RenderOptions, Rendered, Size, View};

/// The game's gray, behind everything.
const GRAY: [u8; 4] = [128, 128, 128, 255];

/// `bytes` read as a map under `limits`.
fn load(bytes: &[u8], limits: Limits) -> Map {
    Map::from_datafile(&Datafile::parse_with(bytes, limits).unwrap()).unwrap()
}

/// The whole map, `width` pixels wide (the height follows: 1920 x 1080 for 1920).
fn wide(width: u32) -> RenderOptions {
    RenderOptions::default()
        .size(Size::Width(width))
        .mapres(None)
        .entities_tileset(None)
}

/// Renders `bytes` read under `limits`, expecting a picture.
#[track_caller]
fn draw(bytes: &[u8], limits: Limits, options: &RenderOptions) -> Rendered {
    let map = load(bytes, limits);
    let rendered = render(&map, options).unwrap_or_else(|e| panic!("{e}"));
    assert!(rendered.warnings.is_empty(), "{:?}", rendered.warnings);
    rendered
}

/// Renders `bytes` read under `limits`, expecting the work limit's error; its message, after
/// checking that it names the limit, its value and the layer it was reached at.
#[track_caller]
fn over_budget(bytes: &[u8], limits: Limits, options: &RenderOptions, layer: usize) -> String {
    let map = load(bytes, limits);
    let error = match render(&map, options) {
        Ok(rendered) => panic!("a picture, in {} steps", rendered.work),
        Err(error) => error,
    };
    assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{error}");
    let message = error.to_string();
    let limit = limits.max_render_work().to_string();
    assert!(message.contains("Limits::max_render_work"), "{message}");
    assert!(message.contains(&limit), "{message}");
    match error.location() {
        Some(Location::MapItem { kind, index, .. }) => {
            assert_eq!((kind, index), ("layer", layer), "{message}")
        }
        other => panic!("{other:?}: {message}"),
    }
    message
}

/// Whether every pixel of `rendered` is `color`.
fn all(rendered: &Rendered, color: [u8; 4]) -> bool {
    rendered.picture.rgba.chunks_exact(4).all(|p| p == color)
}

/// The quad number in a message `... at quad #N, ...`.
fn quad_number(message: &str) -> usize {
    let (_, after) = message.split_once("at quad #").expect(message);
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap()
}

/// 1000 quads from one end of the 22.10 range to the other (a 2 KB file): each covers the
/// whole picture. At 1920 x 1080 that is more than the default budget (before, 100 s of
/// drawing), and the render stops at the quad that passes it, having drawn nothing; at 64
/// pixels wide the picture is drawn, all white.
#[test]
fn quads_over_everything_end_at_the_budget() {
    let bytes = quads_layer(vec![everywhere(WHITE); 1000]);
    assert!(bytes.len() < 4096, "{} bytes", bytes.len());
    let message = over_budget(&bytes, Limits::DEFAULT, &wide(1920), 1);
    assert!(message.contains("1920x1080"), "{message}");
    // A quad of two triangles over 1920 x 1080 pixels, 8 steps each: about 16.6 million.
    let stopped = quad_number(&message);
    assert!((250..260).contains(&stopped), "{message}");

    let rendered = draw(&bytes, Limits::DEFAULT, &wide(64));
    assert_eq!((rendered.picture.width, rendered.picture.height), (64, 36));
    assert!(all(&rendered, [255; 4]));
    // Each quad costs its pixels (and rows, and bands) once: within 8 steps a pixel, 1000
    // times over, and a little.
    let pixels = 64 * 36;
    assert!(rendered.work >= 1000 * 8 * pixels, "{}", rendered.work);
    assert!(
        rendered.work <= 1000 * 8 * (pixels * 3 / 2),
        "{}",
        rendered.work
    );
}

/// 200,000 such quads: the render ends at the same quad, not after looking at all of them.
#[test]
fn two_hundred_thousand_quads_end_at_the_same_quad() {
    let bytes = quads_layer(vec![everywhere(WHITE); 200_000]);
    let message = over_budget(&bytes, Limits::DEFAULT, &wide(1920), 1);
    assert!((250..260).contains(&quad_number(&message)), "{message}");
}

/// One quad over everything costs at most the picture's pixels, however far its corners are:
/// 8 steps a pixel and 8 a row with a few pixels more each side, and a step a band.
#[test]
fn a_quad_over_everything_costs_the_picture() {
    let bytes = quads_layer(vec![everywhere(RED)]);
    let rendered = draw(&bytes, Limits::DEFAULT, &wide(1920));
    let (pixels, rows) = (1920 * 1080, 1080);
    assert!(rendered.work >= 8 * pixels, "{}", rendered.work);
    assert!(
        rendered.work <= 8 * (pixels + 2 * rows * 8) + 1000,
        "{}",
        rendered.work
    );
    // Red at half alpha over the gray: every pixel the same.
    let first: [u8; 4] = rendered.picture.rgba[..4].try_into().unwrap();
    assert_ne!(first, GRAY);
    assert!(all(&rendered, first));
}

/// A million quads outside the picture (at the four corners of the range) cost a step each,
/// and leave the picture as it was (before: 8 s at 1920 pixels).
#[test]
fn a_million_quads_outside_the_picture_cost_a_step_each() {
    let bytes = quads_layer((0..1_000_000).map(far_away).collect());
    let rendered = draw(&bytes, Limits::DEFAULT, &wide(1920));
    assert!(all(&rendered, GRAY));
    // Two groups, two layers, the quads.
    assert_eq!(rendered.work, 1_000_004);
}

/// A quad across the picture, 2 pixels thick, costs about the pixels it covers, not its
/// bounding box (the whole picture); and draws them, a few pixels in every row.
#[test]
fn a_needle_costs_its_pixels() {
    let bytes = quads_layer(vec![needle(WHITE)]);
    let rendered = draw(&bytes, Limits::DEFAULT, &wide(1920));
    let (width, height) = (1920, 1080);
    // Two triangles, each row of each: a step and its pixels, 8 each.
    assert!(rendered.work < 2 * height * 8 * 10, "{}", rendered.work);
    for (y, row) in rendered.picture.rgba.chunks_exact(width * 4).enumerate() {
        let drawn = row.chunks_exact(4).filter(|p| *p != GRAY).count();
        assert!((1..=4).contains(&drawn), "row {y}: {drawn} pixels drawn");
        // Where the diagonal is.
        let x = row.chunks_exact(4).position(|p| p != GRAY).unwrap();
        let diagonal = (y as f64 + 0.5) * width as f64 / height as f64;
        assert!((x as f64 - diagonal).abs() < 4.0, "row {y}: at {x}");
    }
}

/// 16,000 layers of one quad over everything (nearly `Limits::max_layers`): the render ends at
/// the layer that passes the budget. The same with quads outside the picture costs a few steps
/// a layer.
#[test]
fn sixteen_thousand_quad_layers() {
    let bytes = quad_layers(16_000, everywhere(WHITE));
    // Layer 0 is the game layer; 257 quads fit in the budget, as above.
    let message = over_budget(&bytes, Limits::DEFAULT, &wide(1920), 258);
    assert!(message.contains("at quad #0"), "{message}");

    let bytes = quad_layers(16_000, far_away(0));
    let rendered = draw(&bytes, Limits::DEFAULT, &wide(1920));
    assert!(all(&rendered, GRAY));
    // Two groups, and a step for each layer and its quad.
    assert_eq!(rendered.work, 2 + 1 + 16_000 * 2);
}

/// 16,000 tile layers of one tile (which the game repeats over the whole picture): the render
/// ends at the layer that passes the budget (before: 141 s at 1920 pixels). Layers whose one
/// tile is empty draw nothing and cost a step each (before: 97 s).
#[test]
fn sixteen_thousand_tile_layers() {
    let bytes = tile_layers(16_000, 1);
    // A step a pixel, one for each pixel column in each band, one a band: 2,204,229 steps a
    // layer, of which 1948 fit (layer 0 is the game layer).
    let message = over_budget(&bytes, Limits::DEFAULT, &wide(1920), 1949);
    assert!(!message.contains("quad"), "{message}");
    // Within the budget at 64 pixels: white squares (no image) all over.
    let rendered = draw(&bytes, Limits::DEFAULT, &wide(64));
    assert!(all(&rendered, [255; 4]));

    let bytes = tile_layers(16_000, 0);
    let rendered = draw(&bytes, Limits::DEFAULT, &wide(1920));
    assert!(all(&rendered, GRAY));
    assert_eq!(rendered.work, 2 + 1 + 16_000);
}

/// The points an envelope looks at count: 10,000 quads sharing an envelope of 100,000 points
/// (all at one time, so that finding the time's segment looks at every one) look at a billion
/// points (before: 431 s at 1920 pixels). Under a budget of 10 million steps the render ends
/// at the hundredth quad.
#[test]
fn envelope_points_count() {
    let bytes = enveloped_quads(10_000, 100_000, needle(WHITE));
    let limits = Limits::DEFAULT.with_max_render_work(10_000_000);
    let message = over_budget(&bytes, limits, &wide(16), 1);
    assert_eq!(quad_number(&message), 99, "{message}");

    let bytes = enveloped_quads(10, 1000, needle(WHITE));
    let rendered = draw(&bytes, Limits::DEFAULT, &wide(16));
    assert!(rendered.work > 10 * 1000, "{}", rendered.work);
    assert!(rendered.work < 10 * 1000 + 10_000, "{}", rendered.work);
}

/// The budget is exactly what a render counts: the work a render reports passes under a
/// limit of that much and fails under one step less; counting is the same every time.
#[test]
fn the_budget_is_the_work_counted() {
    let map = twcodec_testkit::sample::map().unwrap();
    let bytes = hostile_render::bytes(&map);
    for options in [
        wide(200),
        wide(300).entities(50),
        wide(320)
            .view(View::Camera {
                x: 10.0,
                y: 10.0,
                zoom: 0.5,
            })
            .time_ms(700.0),
    ] {
        let work = render(&load(&bytes, Limits::DEFAULT), &options)
            .unwrap()
            .work;
        assert!(work > 0);
        let exact = render(
            &load(&bytes, Limits::DEFAULT.with_max_render_work(work)),
            &options,
        );
        assert_eq!(exact.unwrap().work, work);
        let less = Limits::DEFAULT.with_max_render_work(work - 1);
        let error = render(&load(&bytes, less), &options).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{error}");
    }
    // A limit of 0 stops at the first group, which the error names.
    let none = Limits::DEFAULT.with_max_render_work(0);
    let error = render(&load(&bytes, none), &wide(200)).unwrap_err();
    assert!(
        error.to_string().starts_with("group #0 (type 4, id 0): "),
        "{error}"
    );
}

/// Every corner at the ends of the range, with groups of extreme parallax and offsets, seen
/// by cameras far away, zoomed in and out: each render ends, with a picture or the budget's
/// error, never a panic or a hang.
#[test]
fn extreme_coordinates_end() {
    use twcodec::map::{Layer, NewGroup};
    use twcodec::schema::map::Point;
    let (mut map, _) = base();
    let quads = vec![
        everywhere(RED),
        far_away(0),
        far_away(3),
        quad([(MIN, MIN), (MIN, MAX), (MAX, MIN), (MAX, MAX)], WHITE),
        quad([(MAX, MAX), (MIN, MIN), (MAX, MAX), (MIN, MIN)], WHITE),
        needle(RED),
    ];
    for (parallax, offset) in [
        ((MAX, MAX), (MIN, MIN)),
        ((MIN, MAX), (MAX, MIN)),
        ((0, 0), (0, 0)),
        ((1, -1), (MAX, MAX)),
    ] {
        let group = map
            .add_group(NewGroup {
                parallax: Point {
                    x: parallax.0,
                    y: parallax.1,
                },
                offset: Point {
                    x: offset.0,
                    y: offset.1,
                },
                ..NewGroup::new("Far")
            })
            .unwrap();
        map.add_layer(group, Layer::new_quads("Quads", quads.clone()).unwrap())
            .unwrap();
    }
    let bytes = hostile_render::bytes(&map);
    let map = load(&bytes, Limits::DEFAULT.with_max_render_work(50_000_000));
    for (x, y, zoom) in [
        (0.0, 0.0, 1.0),
        (1e12, -1e12, 1.0),
        (-3e9, 3e9, 1e-9),
        (32.0, 18.0, 1e9),
        (f64::from(MAX), f64::from(MIN), 1e-3),
    ] {
        let options = wide(160).view(View::Camera { x, y, zoom });
        match render(&map, &options) {
            Ok(rendered) => assert_eq!(rendered.picture.width, 160),
            Err(e) => assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}"),
        }
    }
}
