//! The renderer (`src/render/`) held to the game's drawing rules (docs/format-notes.md,
//! "Drawing a map"): golden pictures of small maps built here with the editing API (their
//! tilesets generated, never the game's pictures), pixels the rules fix exactly, every corpus
//! map, hostile maps, and `twcodec render`.
//!
//! Goldens: `tests/golden/` (see its README); a changed render fails with the actual picture
//! and a picture of the differences in `target/render-diffs/`, and `TWCODEC_BLESS=1 cargo test
//! --test render` accepts it.

mod common;
#[path = "common/golden.rs"]
mod golden;

use std::path::Path;
use std::process::{Command, Output};

use twcodec::map::{Envelope, Grid, ItemRef, Layer, NewEnvelope, NewGroup};
use twcodec::schema::map::envelope::{CurveType, EnvPoint, EnvPointBezier, EnvelopeKind};
use twcodec::schema::map::group::Clip;
use twcodec::schema::map::quad::Quad;
use twcodec::schema::map::tile::{Speedup, Switch, Tele, Tile, Tune};
use twcodec::schema::map::{Color, Point};
use twcodec::{ErrorKind, Map, MapForm};
use twcodec_tools::assets::Picture;
use twcodec_tools::render::{render, RenderOptions, Rendered, Size, View, MAX_PIXELS};

use golden::assert_golden;

// ---------------------------------------------------------------------------------------------
// Building maps

/// Pixels per cell of the generated tilesets (16 x 16 cells: a 256 x 256 picture).
const CELL: usize = 16;

/// The corner marks of every patterned cell, 4 x 4 texels each: top-left red, top-right green,
/// bottom-left blue, bottom-right yellow.
const CORNERS: [[u8; 4]; 4] = [
    [255, 0, 0, 255],
    [0, 255, 0, 255],
    [0, 0, 255, 255],
    [255, 255, 0, 255],
];

/// Cells of the tileset that are not patterned: plain opaque white, and white at half alpha.
const WHITE: u8 = 2;
const HALF_WHITE: u8 = 3;

/// The background color of patterned cell `index`.
fn cell_color(index: usize) -> [u8; 4] {
    [
        (index * 53 % 200 + 40) as u8,
        (index * 101 % 180 + 60) as u8,
        (255 - index * 29 % 160) as u8,
        255,
    ]
}

/// Texel `(x, y)` (0..16) of cell `index`: a cell color, the four corner marks, and a black
/// "F" (asymmetric both ways, so that every flip and turn shows).
fn cell_texel(index: usize, x: usize, y: usize) -> [u8; 4] {
    match index as u8 {
        WHITE => return [255; 4],
        HALF_WHITE => return [255, 255, 255, 128],
        _ => {}
    }
    let (left, top) = (x < 4, y < 4);
    let (right, bottom) = (x >= CELL - 4, y >= CELL - 4);
    match (left, top, right, bottom) {
        (true, true, _, _) => return CORNERS[0],
        (_, true, true, _) => return CORNERS[1],
        (true, _, _, true) => return CORNERS[2],
        (_, _, true, true) => return CORNERS[3],
        _ => {}
    }
    let stem = (5..7).contains(&x) && (4..12).contains(&y);
    let top_bar = (5..11).contains(&x) && (4..6).contains(&y);
    let middle_bar = (5..9).contains(&x) && (7..9).contains(&y);
    if stem || top_bar || middle_bar {
        return [0, 0, 0, 255];
    }
    cell_color(index)
}

/// The generated tileset's RGBA pixels: 16 x 16 cells of [`CELL`] pixels.
fn tileset() -> Vec<u8> {
    let side = CELL * 16;
    let mut rgba = Vec::with_capacity(side * side * 4);
    for y in 0..side {
        for x in 0..side {
            rgba.extend(cell_texel((y / CELL) * 16 + x / CELL, x % CELL, y % CELL));
        }
    }
    rgba
}

/// A picture of `width` x `height` pixels, each `pixel(x, y)`.
fn picture(width: usize, height: usize, pixel: impl Fn(usize, usize) -> [u8; 4]) -> Vec<u8> {
    let mut rgba = Vec::with_capacity(width * height * 4);
    for y in 0..height {
        for x in 0..width {
            rgba.extend(pixel(x, y));
        }
    }
    rgba
}

/// A map with nothing in it: the sample with its groups, images, envelopes and sounds removed.
fn blank() -> Map {
    let map = twcodec_testkit::sample::empty_map().unwrap();
    assert!(map.layers().is_empty() && map.images().is_empty());
    map
}

/// A grid of `width` x `height` default tiles with the cells `set` changed.
fn grid<T: Copy + Default>(width: usize, height: usize, set: &[(usize, usize, T)]) -> Grid<T> {
    let mut grid = Grid::filled(width, height, T::default()).unwrap();
    for &(x, y, tile) in set {
        *grid.get_mut(x, y).unwrap() = tile;
    }
    grid
}

fn tile(id: u8, flags: u8) -> Tile {
    Tile {
        id,
        flags,
        ..Tile::default()
    }
}

/// A map whose game group holds an empty game layer of `width` x `height` (so that a whole
/// view shows those tiles), and the generated tileset as image 0.
fn game_map(width: usize, height: usize) -> (Map, ItemRef<twcodec::map::Group>) {
    let mut map = blank();
    let game = map.add_group(NewGroup::new("Game")).unwrap();
    let layer = Layer::new_game(grid::<Tile>(width, height, &[])).unwrap();
    map.add_layer(game, layer).unwrap();
    let side = (CELL * 16) as u32;
    map.add_embedded_image("tileset", side, side, tileset())
        .unwrap();
    (map, game)
}

/// Adds a tiles layer of `tiles` drawn with image `image` (`None`: no image).
fn add_tiles(
    map: &mut Map,
    group: ItemRef<twcodec::map::Group>,
    name: &str,
    tiles: Grid<Tile>,
    image: Option<usize>,
) -> ItemRef<Layer> {
    let layer = map
        .add_layer(group, Layer::new_tiles(name, tiles).unwrap())
        .unwrap();
    let image = image.map(|i| map.refs().nth(i).unwrap());
    map.set_layer_image(layer, image).unwrap();
    layer
}

/// Changes what the editing API has no setter for (a tile layer's color and color envelope
/// offset, a layer's detail flag) in the written items of `map`, and loads the result.
/// `change` gets each layer item's id and ints: the layer header (version, kind, flags: 1 is
/// detail), then the tilemap's fields (`TILEMAP_*`).
fn patch_layers(map: &Map, mut change: impl FnMut(u16, &mut Vec<i32>)) -> Map {
    let mut writer = map.to_datafile().unwrap();
    for item in writer.items_mut() {
        if item.type_id() == 5 {
            change(item.id(), &mut item.data);
        }
    }
    Map::parse(&writer.to_vec().unwrap()).unwrap()
}

/// Int positions in a layer item (header first): layer flags, tilemap color (4 ints), color
/// envelope offset, image.
const LAYER_FLAGS: usize = 2;
const TILEMAP_COLOR: usize = 7;
const TILEMAP_COLOR_ENVELOPE: usize = 11;
const TILEMAP_COLOR_ENVELOPE_OFFSET: usize = 12;
const TILEMAP_IMAGE: usize = 13;

/// The item id of `layer`.
fn layer_id(map: &Map, layer: ItemRef<Layer>) -> u16 {
    map.get(layer).unwrap().id()
}

/// Sets the color of the tile layer whose item has id `id` (in `patch_layers`).
fn set_color(ints: &mut [i32], [r, g, b, a]: [i32; 4]) {
    ints[TILEMAP_COLOR..TILEMAP_COLOR + 4].copy_from_slice(&[r, g, b, a]);
}

/// An envelope point: `time` in ms, its curve, four values in units (1.0 = 1024).
fn point(time: i32, curve: CurveType, values: [f64; 4]) -> EnvPoint {
    EnvPoint {
        time,
        curve_type: curve.to_i32(),
        values: values.map(|v| (v * 1024.0).round() as i32),
    }
}

fn add_envelope(map: &mut Map, kind: EnvelopeKind, name: &str, points: Vec<EnvPoint>) -> i32 {
    let envelope = map
        .add_envelope(NewEnvelope {
            points,
            ..NewEnvelope::new(kind, name)
        })
        .unwrap();
    envelope.index() as i32
}

/// A quad over the world rectangle `x, y, w, h` (world units), pivot at its centre, corner
/// colors `colors` (top-left, top-right, bottom-left, bottom-right), the whole image once.
fn quad(x: f64, y: f64, w: f64, h: f64, colors: [[i32; 4]; 4]) -> Quad {
    let p = |x: f64, y: f64| Point {
        x: (x * 1024.0).round() as i32,
        y: (y * 1024.0).round() as i32,
    };
    let color = |[r, g, b, a]: [i32; 4]| Color { r, g, b, a };
    Quad {
        points: [
            p(x, y),
            p(x + w, y),
            p(x, y + h),
            p(x + w, y + h),
            p(x + w / 2.0, y + h / 2.0),
        ],
        colors: colors.map(color),
        texture_coords: [p(0.0, 0.0), p(1.0, 0.0), p(0.0, 1.0), p(1.0, 1.0)],
        position_envelope: -1,
        position_envelope_offset: 0,
        color_envelope: -1,
        color_envelope_offset: 0,
    }
}

// ---------------------------------------------------------------------------------------------
// Rendering and looking at pixels

/// Options for the tests: no mapres folder or entities tileset from the environment.
fn options() -> RenderOptions {
    RenderOptions::default().mapres(None).entities_tileset(None)
}

/// The whole game layer at `scale` pixels per tile.
fn whole(scale: f64) -> RenderOptions {
    options().size(Size::Scale(scale)).view(View::Whole)
}

/// Renders without warnings.
#[track_caller]
fn draw(map: &Map, options: &RenderOptions) -> Picture {
    let Rendered {
        picture, warnings, ..
    } = render(map, options).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    picture
}

/// The pixel at `(x, y)`.
#[track_caller]
fn px(picture: &Picture, x: usize, y: usize) -> [u8; 4] {
    assert!(
        x < picture.width as usize && y < picture.height as usize,
        "({x}, {y}) outside {}x{}",
        picture.width,
        picture.height
    );
    let at = (y * picture.width as usize + x) * 4;
    picture.rgba[at..at + 4].try_into().unwrap()
}

/// Whether two colors are within `tolerance` in every channel.
fn near(a: [u8; 4], b: [u8; 4], tolerance: u8) -> bool {
    (0..4).all(|c| a[c].abs_diff(b[c]) <= tolerance)
}

#[track_caller]
fn assert_near(actual: [u8; 4], expected: [u8; 4], tolerance: u8, what: &str) {
    assert!(
        near(actual, expected, tolerance),
        "{what}: {actual:?}, expected {expected:?} (within {tolerance})"
    );
}

/// `top` (straight RGBA, as floats 0..=1 for the color) blended over an opaque `bottom`.
fn over(bottom: [u8; 3], top: [f64; 4]) -> [u8; 4] {
    let mix = |b: u8, t: f64| (t * 255.0 * top[3] + f64::from(b) * (1.0 - top[3])).round() as u8;
    [
        mix(bottom[0], top[0]),
        mix(bottom[1], top[1]),
        mix(bottom[2], top[2]),
        255,
    ]
}

/// The game's clear color: opaque gray 128.
const GRAY: [u8; 4] = [128, 128, 128, 255];

/// Where the texel shown at screen position `(s, t)` of a tile (0..1 each, `s` right, `t`
/// down) is in its cell, by the game's rule for the tile flags (x flip 1, y flip 2, rotate 8;
/// the opaque bit 4 changes nothing): rotate, then the flips, in texture space.
fn texture_position(flags: u8, s: f64, t: f64) -> (f64, f64) {
    let (s, t) = if flags & 8 != 0 { (t, 1.0 - s) } else { (s, t) };
    let u = if flags & 1 != 0 { 1.0 - s } else { s };
    let v = if flags & 2 != 0 { 1.0 - t } else { t };
    (u, v)
}

// ---------------------------------------------------------------------------------------------
// Tile flags

/// A 4 x 4 tile layer showing tile 1 with each of the 16 combinations of the flags (tile
/// `(x, y)` has flags `4 * y + x`: x flip 1, y flip 2, opaque 4, rotate 8).
fn flags_map() -> Map {
    let (mut map, game) = game_map(4, 4);
    let set: Vec<(usize, usize, Tile)> = (0..16u8)
        .map(|flags| {
            (
                usize::from(flags % 4),
                usize::from(flags / 4),
                tile(1, flags),
            )
        })
        .collect();
    add_tiles(&mut map, game, "Flags", grid(4, 4, &set), Some(0));
    map
}

#[test]
fn tile_flags_golden() {
    let map = flags_map();
    assert_golden("tile_flags_32px", &draw(&map, &whole(32.0)));
    assert_golden("tile_flags_4px", &draw(&map, &whole(4.0)));
}

/// At 16 pixels per tile one pixel is one texel: every pixel of every flagged tile is the
/// texel the rule names.
#[test]
fn tile_flags_move_every_texel_where_the_rule_says() {
    let picture = draw(&flags_map(), &whole(16.0));
    assert_eq!((picture.width, picture.height), (64, 64));
    for flags in 0..16u8 {
        let (tx, ty) = (usize::from(flags % 4), usize::from(flags / 4));
        for dy in 0..CELL {
            for dx in 0..CELL {
                let s = (dx as f64 + 0.5) / CELL as f64;
                let t = (dy as f64 + 0.5) / CELL as f64;
                let (u, v) = texture_position(flags, s, t);
                let texel = cell_texel(1, (u * CELL as f64) as usize, (v * CELL as f64) as usize);
                let actual = px(&picture, tx * CELL + dx, ty * CELL + dy);
                assert_near(
                    actual,
                    texel,
                    2,
                    &format!("flags {flags}, pixel ({dx}, {dy})"),
                );
            }
        }
    }
}

/// Magnified (32 px per tile) and minified (4 px per tile: the cell's mipmap of 4 x 4 texels,
/// whose corners are the corner marks): each corner of each tile shows the corner mark the
/// rule names. Named cases: x flip shows the top-right mark at the top left; rotate turns
/// clockwise (the texture's top left at the screen's top right).
#[test]
fn tile_flags_corners_magnified_and_minified() {
    let map = flags_map();
    for scale in [32usize, 4] {
        let picture = draw(&map, &whole(scale as f64));
        for flags in 0..16u8 {
            let (tx, ty) = (usize::from(flags % 4), usize::from(flags / 4));
            // The corner pixels, inset by 3 at 32 px (still inside the 4-texel marks).
            let inset = if scale == 32 { 3 } else { 0 };
            for (corner, (cx, cy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
                let dx = if cx == 0 { inset } else { scale - 1 - inset };
                let dy = if cy == 0 { inset } else { scale - 1 - inset };
                let s = (dx as f64 + 0.5) / scale as f64;
                let t = (dy as f64 + 0.5) / scale as f64;
                let (u, v) = texture_position(flags, s, t);
                let shown = usize::from(u >= 0.5) + 2 * usize::from(v >= 0.5);
                let actual = px(&picture, tx * scale + dx, ty * scale + dy);
                assert_near(
                    actual,
                    CORNERS[shown],
                    2,
                    &format!("{scale} px, flags {flags}, corner {corner}"),
                );
            }
        }
        let at = |tx: usize, x: usize, y: usize| px(&picture, tx * scale + x, y);
        let last = scale - 1;
        // x flip (tile 1): the top-right mark (green) at the top left.
        assert_near(at(1, 0, 0), CORNERS[1], 2, "x flip, top left");
        // rotate (tile 8 = (0, 2)): the texture's top left (red) at the screen's top right.
        let rotated = px(&picture, last, 2 * scale);
        assert_near(rotated, CORNERS[0], 2, "rotate, top right");
        // opaque (tile 4 = (0, 1)) looks as no flags (tile 0).
        assert_eq!(px(&picture, 1, scale + 1), px(&picture, 1, 1));
    }
}

// ---------------------------------------------------------------------------------------------
// Layer color and color envelopes

/// A 4 x 6 map whose rows are each drawn by a layer of its own (every layer is the map's size,
/// with only its row filled, so that repeated edge rows are empty): columns 0 to 2 show the
/// white cell, the patterned cell 1 and the half-transparent white cell.
///
/// - row 0: layer color (255, 128, 0), no envelope;
/// - rows 1 to 4: the color envelope [`color_points`] with offsets 0, 1000, 2000 and -1000 ms,
///   row 1 also with layer color (128, 255, 255);
/// - row 5: no image, layer color (255, 0, 0, 128), tiles in columns 0 and 2 (a square of the
///   layer color each).
fn colors_map() -> Map {
    let (mut map, game) = game_map(4, 6);
    let envelope = add_envelope(&mut map, EnvelopeKind::Color, "colors", color_points());
    let row = |y: usize, ids: &[u8]| -> Grid<Tile> {
        let set: Vec<(usize, usize, Tile)> = (ids.iter().enumerate())
            .map(|(x, &id)| (x, y, tile(id, 0)))
            .collect();
        grid(4, 6, &set)
    };
    let cells = [WHITE, 1, HALF_WHITE];
    let mut layers = Vec::new();
    for y in 0..5 {
        layers.push(add_tiles(
            &mut map,
            game,
            &format!("Row {y}"),
            row(y, &cells),
            Some(0),
        ));
    }
    let plain = add_tiles(&mut map, game, "Plain", row(5, &[1, 0, 77]), None);
    for &layer in &layers[1..5] {
        let envelope = map.item_ref::<Envelope>(envelope).get();
        map.set_layer_color_envelope(layer, envelope).unwrap();
    }
    let ids: Vec<u16> = layers.iter().map(|&l| layer_id(&map, l)).collect();
    let plain = layer_id(&map, plain);
    patch_layers(&map, |id, ints| {
        if id == ids[0] {
            set_color(ints, [255, 128, 0, 255]);
        } else if id == ids[1] {
            set_color(ints, [128, 255, 255, 255]);
        } else if id == plain {
            set_color(ints, [255, 0, 0, 128]);
        }
        for (row, offset) in [(2, 1000), (3, 2000), (4, -1000)] {
            if id == ids[row] {
                ints[TILEMAP_COLOR_ENVELOPE_OFFSET] = offset;
            }
        }
    })
}

/// A color envelope with a step, a linear and a smooth segment: red (step) at 0 ms, green
/// (linear) at 1000, blue (smooth) at 2000, white at half alpha at 3000 (the loop's length).
fn color_points() -> Vec<EnvPoint> {
    vec![
        point(0, CurveType::STEP, [1.0, 0.0, 0.0, 1.0]),
        point(1000, CurveType::LINEAR, [0.0, 1.0, 0.0, 1.0]),
        point(2000, CurveType::SMOOTH, [0.0, 0.0, 1.0, 1.0]),
        point(3000, CurveType::LINEAR, [1.0, 1.0, 1.0, 0.5]),
    ]
}

/// The envelope's value at `time` ms by the game's rules, worked out by hand for
/// [`color_points`]: loops over 3000 ms; a negative time shows the last point.
fn color_at(time: f64) -> [f64; 4] {
    let mix = |a: [f64; 4], b: [f64; 4], f: f64| [0, 1, 2, 3].map(|c| a[c] + (b[c] - a[c]) * f);
    let (red, green, blue, white) = (
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 0.5],
    );
    if time < 0.0 {
        return white;
    }
    let t = time % 3000.0;
    match t {
        t if t < 1000.0 => red,
        t if t < 2000.0 => mix(green, blue, (t - 1000.0) / 1000.0),
        t => {
            let x = (t - 2000.0) / 1000.0;
            mix(blue, white, -2.0 * x * x * x + 3.0 * x * x)
        }
    }
}

#[test]
fn layer_colors_and_envelopes_golden() {
    let map = colors_map();
    for time in [250.0, 750.0] {
        let picture = draw(&map, &whole(32.0).time_ms(time));
        assert_golden(&format!("colors_{time}ms"), &picture);
    }
}

/// Texel times layer color times envelope, blended over the gray background; the
/// envelope's offset is added to the time; no image draws squares of the layer color; tile 0
/// is not drawn.
#[test]
fn layer_color_times_envelope_at_two_times() {
    let map = colors_map();
    let gray = [128, 128, 128];
    for time in [250.0, 750.0] {
        let picture = draw(&map, &whole(32.0).time_ms(time));
        // The centre of the white cell (column 0) and of the half white cell (column 2).
        let white = |row: usize| px(&picture, 16, row * 32 + 16);
        let half = |row: usize| px(&picture, 2 * 32 + 16, row * 32 + 16);
        let orange = [1.0, 128.0 / 255.0, 0.0, 1.0];
        assert_near(white(0), over(gray, orange), 2, "layer color");
        assert_near(
            half(0),
            over(gray, [1.0, 128.0 / 255.0, 0.0, 0.5]),
            2,
            "half white",
        );
        let tinted = |color: [f64; 4], alpha: f64| [color[0], color[1], color[2], color[3] * alpha];
        for (row, offset) in [(1, 0.0), (2, 1000.0), (3, 2000.0), (4, -1000.0)] {
            let mut color = color_at(time + offset);
            if row == 1 {
                color[0] *= 128.0 / 255.0;
            }
            let what = format!("row {row} at {time} ms");
            assert_near(white(row), over(gray, color), 2, &what);
            assert_near(
                half(row),
                over(gray, tinted(color, 128.0 / 255.0)),
                2,
                &what,
            );
        }
        // No image: the layer color, over the whole tile, for any tile but 0.
        let red = over(gray, [1.0, 0.0, 0.0, 128.0 / 255.0]);
        for (x, y) in [(0, 160), (31, 191), (64, 160), (95, 191)] {
            assert_near(px(&picture, x, y), red, 2, "untextured");
        }
        assert_eq!(
            px(&picture, 48, 176),
            GRAY,
            "tile 0 of the untextured layer"
        );
        // Nothing in column 3; the empty game layer is not drawn.
        assert_eq!(px(&picture, 3 * 32 + 16, 16), GRAY);
    }
    // The step segment holds its first value to its end; the linear one at a quarter.
    assert_eq!(color_at(999.0), [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(color_at(1250.0), [0.0, 0.75, 0.25, 1.0]);
}

/// An envelope gives only the channels it has (at most those asked for); the others keep
/// their defaults (color 1, position 0): a tile layer whose color envelope is a position
/// envelope (3 channels) keeps alpha 1, a quad whose color envelope is a sound envelope (1
/// channel) keeps green, blue and alpha 1, whatever the points store past their channels.
#[test]
fn envelopes_give_only_their_channels() {
    let (mut map, game) = game_map(2, 1);
    let position = add_envelope(
        &mut map,
        EnvelopeKind::Position,
        "position",
        vec![point(0, CurveType::LINEAR, [0.5, 0.25, 1.0, 0.0])],
    );
    let sound = add_envelope(
        &mut map,
        EnvelopeKind::Sound,
        "sound",
        vec![point(0, CurveType::LINEAR, [0.5, 0.0, 0.0, 0.0])],
    );
    let layer = add_tiles(
        &mut map,
        game,
        "Tiles",
        grid(2, 1, &[(0, 0, tile(1, 0))]),
        None,
    );
    let quads = map
        .add_layer(
            game,
            Layer::new_quads("Quad", vec![quad(32.0, 0.0, 32.0, 32.0, WHITE_QUAD)]).unwrap(),
        )
        .unwrap();
    // Past the setters, which refuse envelopes of the wrong kind.
    if let twcodec::map::LayerContent::Quads(q) = map.layer_mut(quads).unwrap().content_mut() {
        q.quads_mut().unwrap()[0].color_envelope = sound;
    }
    let id = layer_id(&map, layer);
    let map = patch_layers(&map, |item, ints| {
        if item == id {
            ints[TILEMAP_COLOR_ENVELOPE] = position;
        }
    });
    let picture = draw(&map, &whole(32.0));
    assert_eq!(
        px(&picture, 16, 16),
        [128, 64, 255, 255],
        "tiles: alpha kept"
    );
    assert_eq!(
        px(&picture, 48, 16),
        [128, 255, 255, 255],
        "quad: green, blue, alpha kept"
    );
}

// ---------------------------------------------------------------------------------------------
// Edge tiles

/// A 4 x 4 layer of 16 different cells (with a flag here and there), seen by a camera centred
/// on the map's top-left corner: the left half and the top half of the picture are outside
/// the layer.
fn edges_map() -> (Map, RenderOptions) {
    let (mut map, game) = game_map(4, 4);
    let set: Vec<(usize, usize, Tile)> = (0..16u8)
        .map(|i| {
            (
                usize::from(i % 4),
                usize::from(i / 4),
                tile(16 + i * 7, i % 3),
            )
        })
        .collect();
    add_tiles(&mut map, game, "Edges", grid(4, 4, &set), Some(0));
    // 1050 world units is the game's square screen at zoom 1: one unit per pixel.
    let options = options()
        .size(Size::Pixels {
            width: 256,
            height: 256,
        })
        .view(View::Camera {
            x: 0.0,
            y: 0.0,
            zoom: 256.0 / 1050.0,
        });
    (map, options)
}

#[test]
fn edge_tiles_golden() {
    let (map, options) = edges_map();
    assert_golden("edges", &draw(&map, &options));
}

/// Outside a layer its outermost rows and columns repeat without end, its corner tiles in the
/// corners (one world unit is one pixel here, the map's top-left corner at pixel (128, 128)).
#[test]
fn edge_tiles_repeat_outside_the_layer() {
    let (map, options) = edges_map();
    let picture = draw(&map, &options);
    let at = |x: i32, y: i32| px(&picture, (x + 128) as usize, (y + 128) as usize);
    for k in 0..4 {
        for inside in [3, 16, 29] {
            // Left of the map: the left column; above it: the top row.
            let row = 32 * k + inside;
            for out in [1, 2, 3] {
                assert_eq!(at(inside - 32 * out, row), at(inside, row), "left, row {k}");
                assert_eq!(
                    at(row, inside - 32 * out),
                    at(row, inside),
                    "above, column {k}"
                );
                // The top-left corner: the corner tile.
                let (x, y) = (inside - 32 * out, 29 - 32 * k - 32);
                assert_eq!(at(x, y), at(inside, 29), "corner");
            }
        }
    }
    // Texel (2, 6) of a cell shows its own color.
    assert_ne!(at(5, 13), at(37, 13), "the tiles differ");
}

// ---------------------------------------------------------------------------------------------
// Quads

const RED: [i32; 4] = [255, 0, 0, 255];
const GREEN: [i32; 4] = [0, 255, 0, 255];
const BLUE: [i32; 4] = [0, 0, 255, 255];
const YELLOW: [i32; 4] = [255, 255, 0, 255];
const WHITE_QUAD: [[i32; 4]; 4] = [[255; 4]; 4];
/// Corner colors: top-left red, top-right green, bottom-left blue, bottom-right yellow.
const GRADIENT: [[i32; 4]; 4] = [RED, GREEN, BLUE, YELLOW];

/// An 8 x 8 map (256 x 256 world units) with two quads layers. "Plain" (no image):
/// - a gradient quad at (16, 16), 64 units square;
/// - a quad at (176, 16) turning about its centre: 0 degrees at 0 ms, 90 at 1000 ms (clockwise);
/// - a gradient quad at (16, 96) that moves by (64, 0) and turns by 90 degrees over 1000 ms;
/// - a white quad at (176, 96) whose color envelope goes from red to blue at half alpha;
/// - a gradient quad at (16, 176) whose color envelope has alpha 0 (never drawn).
///
/// "Textured" (a 16 x 16 picture of cell 1 of the tileset, image 1): a white quad at (96, 16)
/// whose texture coordinates run to 2 (2048): the picture twice across and down.
fn quads_map() -> Map {
    let (mut map, game) = game_map(8, 8);
    let side = CELL as u32;
    map.add_embedded_image(
        "mark",
        side,
        side,
        picture(CELL, CELL, |x, y| cell_texel(1, x, y)),
    )
    .unwrap();
    let turn = add_envelope(
        &mut map,
        EnvelopeKind::Position,
        "turn",
        vec![
            point(0, CurveType::LINEAR, [0.0; 4]),
            point(1000, CurveType::LINEAR, [0.0, 0.0, 90.0, 0.0]),
            point(2000, CurveType::LINEAR, [0.0, 0.0, 90.0, 0.0]),
        ],
    );
    let travel = add_envelope(
        &mut map,
        EnvelopeKind::Position,
        "travel",
        vec![
            point(0, CurveType::LINEAR, [0.0; 4]),
            point(1000, CurveType::LINEAR, [64.0, 0.0, 90.0, 0.0]),
            point(2000, CurveType::LINEAR, [64.0, 0.0, 90.0, 0.0]),
        ],
    );
    let fade = add_envelope(
        &mut map,
        EnvelopeKind::Color,
        "fade",
        vec![
            point(0, CurveType::LINEAR, [1.0, 0.0, 0.0, 1.0]),
            point(1000, CurveType::LINEAR, [0.0, 0.0, 1.0, 0.5]),
            point(2000, CurveType::LINEAR, [0.0, 0.0, 1.0, 0.5]),
        ],
    );
    let invisible = add_envelope(
        &mut map,
        EnvelopeKind::Color,
        "invisible",
        vec![point(0, CurveType::LINEAR, [1.0, 1.0, 1.0, 0.0])],
    );
    let plain = vec![
        quad(16.0, 16.0, 64.0, 64.0, GRADIENT),
        quad(176.0, 16.0, 64.0, 64.0, GRADIENT),
        quad(16.0, 96.0, 64.0, 64.0, GRADIENT),
        quad(176.0, 96.0, 64.0, 64.0, WHITE_QUAD),
        quad(16.0, 176.0, 64.0, 64.0, GRADIENT),
    ];
    let layer = map
        .add_layer(game, Layer::new_quads("Plain", plain).unwrap())
        .unwrap();
    let envelope = |map: &Map, raw: i32| map.item_ref::<Envelope>(raw).get();
    map.set_quad_position_envelope(layer, 1, envelope(&map, turn))
        .unwrap();
    map.set_quad_position_envelope(layer, 2, envelope(&map, travel))
        .unwrap();
    map.set_quad_color_envelope(layer, 3, envelope(&map, fade))
        .unwrap();
    map.set_quad_color_envelope(layer, 4, envelope(&map, invisible))
        .unwrap();
    let mut repeated = quad(96.0, 16.0, 64.0, 64.0, WHITE_QUAD);
    for (corner, uv) in repeated.texture_coords.iter_mut().enumerate() {
        uv.x = if corner % 2 == 1 { 2048 } else { 0 };
        uv.y = if corner >= 2 { 2048 } else { 0 };
    }
    let textured = map
        .add_layer(game, Layer::new_quads("Textured", vec![repeated]).unwrap())
        .unwrap();
    let mark = map.refs().nth(1);
    map.set_layer_image(textured, mark).unwrap();
    map
}

#[test]
fn quads_golden() {
    let map = quads_map();
    for time in [500.0, 1000.0] {
        let picture = draw(&map, &whole(32.0).time_ms(time));
        assert_golden(&format!("quads_{time}ms"), &picture);
    }
}

/// Of the four corner colors, the index of the one closest to `color`.
fn closest_corner(color: [u8; 4]) -> usize {
    let distance =
        |c: [i32; 4]| -> i32 { (0..3).map(|i| (c[i] - i32::from(color[i])).abs()).sum() };
    (0..4).min_by_key(|&i| distance(GRADIENT[i])).unwrap()
}

#[test]
fn quads_follow_the_game() {
    let map = quads_map();
    let gray = [128, 128, 128];
    let at = |time: f64| draw(&map, &whole(32.0).time_ms(time));
    let (start, half, end) = (at(0.0), at(500.0), at(1000.0));

    // Two triangles (corners 0, 1, 3 and 0, 3, 2), colors interpolated in each: on the diagonal
    // from the top-left to the bottom-right corner only those two corners' colors mix.
    let centre = px(&start, 47, 47);
    let t: f64 = 31.5 / 64.0;
    let expected = [255, (255.0 * t).round() as u8, 0, 255];
    assert_near(centre, expected, 2, "gradient on the diagonal");
    // Off the diagonal, the third corner of that triangle comes in: green above, blue below.
    let above = px(&start, 60, 30);
    let below = px(&start, 30, 60);
    assert!(
        above[1] > above[2] && below[2] > below[1],
        "{above:?} {below:?}"
    );

    // Turning: unturned at 0 ms, 90 degrees clockwise at 1000 ms: the top-left corner's color
    // at the top right, the top-right one's at the bottom right.
    let corners = [(177, 17), (238, 17), (177, 78), (238, 78)];
    for (corner, &(x, y)) in corners.iter().enumerate() {
        assert_eq!(
            closest_corner(px(&start, x, y)),
            corner,
            "unturned, corner {corner}"
        );
    }
    let turned = [2, 0, 3, 1];
    for (corner, &(x, y)) in corners.iter().enumerate() {
        let shown = closest_corner(px(&end, x, y));
        assert_eq!(shown, turned[corner], "turned, corner {corner}");
    }
    // At 45 degrees a diamond about the centre (208, 48): its corners beyond the square.
    assert_eq!(
        px(&half, 177, 17),
        GRAY,
        "45 degrees: the square's corner is empty"
    );
    assert_ne!(
        px(&half, 208, 48 - 40),
        GRAY,
        "45 degrees: the diamond's top"
    );
    assert_eq!(
        closest_corner(px(&half, 208 + 42, 48)),
        1,
        "45 degrees: top right goes right"
    );

    // Turned about its own pivot, then moved by (64, 0): the square at (80, 96), the top-left
    // color at its top right, nothing left where it was.
    assert_eq!(closest_corner(px(&end, 142, 97)), 0, "moved and turned");
    assert_eq!(closest_corner(px(&end, 81, 97)), 2, "moved and turned");
    assert_eq!(px(&end, 20, 100), GRAY, "moved away");
    assert_eq!(px(&start, 100, 100), GRAY, "not there yet");

    // Color envelope: corner color times envelope color (at the quad's centre, on the diagonal
    // its two triangles share: drawn once, not blended twice).
    for (picture, time) in [(&start, 0.0), (&half, 500.0), (&end, 1000.0)] {
        let f = time / 1000.0;
        let color = [1.0 - f, 0.0, f, 1.0 - 0.5 * f];
        assert_near(
            px(picture, 208, 128),
            over(gray, color),
            2,
            "color envelope",
        );
        // Envelope alpha 0: the quad is not drawn at all.
        assert_eq!(px(picture, 48, 208), GRAY, "envelope alpha 0");
    }

    // Texture coordinates up to 2: the picture twice across, each 32 pixels; the corner marks
    // (4 texels, 8 pixels) at the start of each repeat.
    for x in [97, 129] {
        assert_near(px(&start, x, 17), CORNERS[0], 2, "repeat, top left");
        assert_near(px(&start, x + 28, 17), CORNERS[1], 2, "repeat, top right");
        assert_near(px(&start, x, 17 + 32), CORNERS[0], 2, "repeat, second row");
    }
}

// ---------------------------------------------------------------------------------------------
// Groups: parallax, offset, clipping

/// The picture of the group tests: 16:9, small.
const GROUP_PICTURE: (u32, u32) = (256, 144);

/// Camera positions, in tiles.
const CAMERA_A: (f64, f64) = (30.0, 17.0);
const CAMERA_B: (f64, f64) = (36.0, 20.0);

/// A square block of 4 x 4 tiles of one color in a group: the group's parallax and offset, the
/// block's top-left tile, its color.
struct Block {
    parallax: (i32, i32),
    offset: (i32, i32),
    tile: (usize, usize),
    color: [i32; 4],
}

const BLOCKS: [Block; 3] = [
    Block {
        parallax: (50, 50),
        offset: (0, 0),
        tile: (1, 1),
        color: BLUE,
    },
    Block {
        parallax: (200, 200),
        offset: (64, -64),
        tile: (73, 26),
        color: RED,
    },
    Block {
        parallax: (100, 100),
        offset: (0, 0),
        tile: (28, 20),
        color: GREEN,
    },
];

/// The clipped group: parallax 50, clip rectangle in the game group's world units.
const CLIP: Clip = Clip {
    enabled: 1,
    x: 256,
    y: 640,
    width: 256,
    height: 160,
};
const MAGENTA: [i32; 4] = [255, 0, 255, 255];

/// Groups: blue (parallax 50), red (parallax 200, offset (64, -64)), the game group with a
/// green block, then a clipped group (parallax 50) whose 2 x 2 layer is all magenta: its edge
/// tiles cover the whole world, the clip rectangle keeps them in. Blocks are drawn without an
/// image, as squares of the layer color.
fn groups_map() -> Map {
    let mut map = blank();
    let mut ids = Vec::new();
    for (i, block) in BLOCKS.iter().enumerate() {
        let group = map
            .add_group(NewGroup {
                parallax: Point {
                    x: block.parallax.0,
                    y: block.parallax.1,
                },
                offset: Point {
                    x: block.offset.0,
                    y: block.offset.1,
                },
                ..NewGroup::new(format!("Block {i}"))
            })
            .unwrap();
        if block.parallax == (100, 100) {
            let game = Layer::new_game(grid::<Tile>(60, 34, &[])).unwrap();
            map.add_layer(group, game).unwrap();
        }
        let (x0, y0) = block.tile;
        let mut set = Vec::new();
        for y in y0..y0 + 4 {
            for x in x0..x0 + 4 {
                set.push((x, y, tile(1, 0)));
            }
        }
        let layer = add_tiles(&mut map, group, "Block", grid(x0 + 5, y0 + 5, &set), None);
        ids.push((layer_id(&map, layer), block.color));
    }
    let clipped = map
        .add_group(NewGroup {
            parallax: Point { x: 50, y: 50 },
            clip: CLIP,
            ..NewGroup::new("Clipped")
        })
        .unwrap();
    let all = grid(
        2,
        2,
        &[
            (0, 0, tile(1, 0)),
            (1, 0, tile(1, 0)),
            (0, 1, tile(1, 0)),
            (1, 1, tile(1, 0)),
        ],
    );
    let layer = add_tiles(&mut map, clipped, "All", all, None);
    ids.push((layer_id(&map, layer), MAGENTA));
    patch_layers(&map, |id, ints| {
        for &(layer, color) in &ids {
            if id == layer {
                set_color(ints, color);
            }
        }
    })
}

fn camera(at: (f64, f64), zoom: f64) -> RenderOptions {
    let (width, height) = GROUP_PICTURE;
    options()
        .size(Size::Pixels { width, height })
        .view(View::Camera {
            x: at.0,
            y: at.1,
            zoom,
        })
}

/// The game's screen in world units for a picture of this shape at `zoom` (DDNet
/// `CalcScreenParams`, docs/format-notes.md "Drawing a map").
fn screen_size(aspect: f64, zoom: f64) -> (f64, f64) {
    let f = (1150.0 * 1000.0f64).sqrt() / aspect.sqrt();
    let (mut w, mut h) = (f * aspect, f);
    if w > 1500.0 {
        w = 1500.0;
        h = w / aspect;
    }
    if h > 1050.0 {
        h = 1050.0;
        w = h * aspect;
    }
    (w * zoom, h * zoom)
}

/// Where world point `(x, y)` of a group with `parallax` and `offset` shows in the picture,
/// with the camera at `centre` (tiles) and `zoom`: the group sees the rectangle of the game's
/// screen size, scaled by its parallax zoom (its larger parallax, at most 100), centred on the
/// camera times its parallax plus its offset.
fn to_picture(
    (x, y): (f64, f64),
    parallax: (i32, i32),
    offset: (i32, i32),
    centre: (f64, f64),
    zoom: f64,
) -> (f64, f64) {
    let (pw, ph) = (f64::from(GROUP_PICTURE.0), f64::from(GROUP_PICTURE.1));
    let (mut w, mut h) = screen_size(pw / ph, zoom);
    let parallax_zoom = f64::from(parallax.0.max(parallax.1).clamp(0, 100));
    let scale = (parallax_zoom * (zoom - 1.0) + 100.0) / 100.0 / zoom;
    w *= scale;
    h *= scale;
    let left = f64::from(offset.0) + centre.0 * 32.0 * f64::from(parallax.0) / 100.0 - w / 2.0;
    let top = f64::from(offset.1) + centre.1 * 32.0 * f64::from(parallax.1) / 100.0 - h / 2.0;
    ((x - left) * pw / w, (y - top) * ph / h)
}

#[test]
fn groups_golden() {
    let map = groups_map();
    assert_golden("groups_camera_a", &draw(&map, &camera(CAMERA_A, 1.0)));
    assert_golden("groups_camera_b", &draw(&map, &camera(CAMERA_B, 1.0)));
}

/// Each block shows where its group's parallax and offset put it, for two camera positions
/// and a zoomed-out camera (where parallax zoom shrinks the far group less); the clipped group
/// draws exactly inside its clip rectangle, placed by the game group's mapping.
#[test]
fn groups_follow_parallax_offset_and_clip() {
    let map = groups_map();
    let color = |c: [i32; 4]| c.map(|v| v as u8);
    for (centre, zoom) in [(CAMERA_A, 1.0), (CAMERA_B, 1.0), (CAMERA_A, 2.0)] {
        let picture = draw(&map, &camera(centre, zoom));
        let what = format!("camera {centre:?} zoom {zoom}");
        for block in &BLOCKS {
            let corner = |dx: f64, dy: f64| {
                let x = (block.tile.0 as f64 + dx) * 32.0;
                let y = (block.tile.1 as f64 + dy) * 32.0;
                to_picture((x, y), block.parallax, block.offset, centre, zoom)
            };
            let (x0, y0) = corner(0.0, 0.0);
            let (x1, y1) = corner(4.0, 4.0);
            let inside = [
                ((x0 + x1) / 2.0, (y0 + y1) / 2.0),
                (x0 + 1.5, y0 + 1.5),
                (x1 - 1.5, y1 - 1.5),
            ];
            for (x, y) in inside {
                assert!(
                    x >= 0.0 && y >= 0.0 && x < 256.0 && y < 144.0,
                    "{what}: off the picture"
                );
                let shown = px(&picture, x as usize, y as usize);
                assert_eq!(
                    shown,
                    color(block.color),
                    "{what}: block {:?} at ({x}, {y})",
                    block.parallax
                );
            }
            for (x, y) in [
                (x0 - 1.5, y0 + 3.0),
                (x1 + 1.5, y0 + 3.0),
                (x0 + 3.0, y0 - 1.5),
                (x0 + 3.0, y1 + 1.5),
            ] {
                if x >= 0.0 && y >= 0.0 && x < 256.0 && y < 144.0 {
                    let shown = px(&picture, x as usize, y as usize);
                    assert_ne!(
                        shown,
                        color(block.color),
                        "{what}: beside block {:?}",
                        block.parallax
                    );
                }
            }
        }
        // The clip rectangle in the game group's mapping, rounded to whole pixels.
        let (cx0, cy0) = to_picture(
            (f64::from(CLIP.x), f64::from(CLIP.y)),
            (100, 100),
            (0, 0),
            centre,
            zoom,
        );
        let (cx1, cy1) = to_picture(
            (
                f64::from(CLIP.x + CLIP.width),
                f64::from(CLIP.y + CLIP.height),
            ),
            (100, 100),
            (0, 0),
            centre,
            zoom,
        );
        let (cx0, cy0, cx1, cy1) = (cx0.round(), cy0.round(), cx1.round(), cy1.round());
        let mut inside = 0;
        for y in 0..144usize {
            for x in 0..256usize {
                let (fx, fy) = (x as f64, y as f64);
                let clipped = fx >= cx0 && fx < cx1 && fy >= cy0 && fy < cy1;
                let magenta = px(&picture, x, y) == color(MAGENTA);
                assert_eq!(
                    magenta, clipped,
                    "{what}: pixel ({x}, {y}), clip {cx0} {cy0} {cx1} {cy1}"
                );
                inside += usize::from(clipped);
            }
        }
        assert!(inside > 100, "{what}: the clip rectangle is on the picture");
    }
}

// ---------------------------------------------------------------------------------------------
// The entities view

/// An 8 x 6 map with every physics layer:
/// - game, row 0: ids 1, 2, 3, 9, then 1 plain, x-flipped, rotated, and 27;
/// - front, row 1: ids 9 and 12 in columns 0 and 1;
/// - tele, row 1: type 26 number 3, type 27 number 0 in columns 2 and 3;
/// - switch, row 1: id 22 alone, id 22 (number 1, delay 5), id 8 (number 1, delay 5), id 22
///   x-flipped alone, in columns 4 to 7;
/// - speedup, row 2: type 28 of force 10 at 0, 45, 90, 135, 180, 225, 270 and 315 degrees;
///   row 4: type 28 of force 0, type 29 of force 0 and speed limit 0 (neither drawn), type 29
///   of force 0 and speed limit 5 (drawn), type 27 (not a speedup, not drawn); row 5: type
///   29 of speed limit 10 at the angles of row 2;
/// - tune, row 3: numbers 1 and 2 (type 68) in columns 0 and 1;
/// - a design tiles layer: the white cell in row 3, columns 2 to 7.
fn entities_map() -> Map {
    let (mut map, game) = game_map(8, 6);
    let (w, h) = (8, 6);
    let mut game_tiles = Vec::new();
    for (x, (id, flags)) in [
        (1, 0),
        (2, 0),
        (3, 0),
        (9, 0),
        (1, 0),
        (1, 1),
        (1, 8),
        (27, 0),
    ]
    .into_iter()
    .enumerate()
    {
        game_tiles.push((x, 0, tile(id, flags)));
    }
    let game_layer = map.refs::<Layer>().next().unwrap();
    map.remove_layer(game_layer).unwrap();
    map.add_layer(game, Layer::new_game(grid(w, h, &game_tiles)).unwrap())
        .unwrap();
    let front = grid(w, h, &[(0, 1, tile(9, 0)), (1, 1, tile(12, 0))]);
    map.add_layer(game, Layer::new_front(front).unwrap())
        .unwrap();
    let tele = |number, id| Tele { number, id };
    let teles = grid(w, h, &[(2, 1, tele(3, 26)), (3, 1, tele(0, 27))]);
    map.add_layer(game, Layer::new_tele(teles).unwrap())
        .unwrap();
    let switch = |id, flags, number, delay| Switch {
        number,
        id,
        flags,
        delay,
    };
    let switches = grid(
        w,
        h,
        &[
            (4, 1, switch(22, 0, 0, 0)),
            (5, 1, switch(22, 0, 1, 5)),
            (6, 1, switch(8, 0, 1, 5)),
            (7, 1, switch(22, 1, 0, 0)),
        ],
    );
    map.add_layer(game, Layer::new_switch(switches).unwrap())
        .unwrap();
    let mut speedups = Vec::new();
    for (x, angle) in SPEEDUP_ANGLES.iter().enumerate() {
        let mut s = Speedup {
            force: 10,
            max_speed: 0,
            id: 28,
            ..Speedup::default()
        };
        s.set_angle(*angle);
        speedups.push((x, 2, s));
        let mut s = Speedup {
            force: 0,
            max_speed: 10,
            id: 29,
            ..Speedup::default()
        };
        s.set_angle(*angle);
        speedups.push((x, 5, s));
    }
    let speedup = |id, force, max_speed| Speedup {
        force,
        max_speed,
        id,
        ..Speedup::default()
    };
    speedups.extend([
        (0, 4, speedup(28, 0, 5)),
        (1, 4, speedup(29, 0, 0)),
        (2, 4, speedup(29, 0, 5)),
        (3, 4, speedup(27, 10, 5)),
    ]);
    map.add_layer(game, Layer::new_speedup(grid(w, h, &speedups)).unwrap())
        .unwrap();
    let tune = |number| Tune { number, id: 68 };
    let tunes = grid(w, h, &[(0, 3, tune(1)), (1, 3, tune(2))]);
    map.add_layer(game, Layer::new_tune(tunes).unwrap())
        .unwrap();
    let design: Vec<(usize, usize, Tile)> = (2..8).map(|x| (x, 3, tile(WHITE, 0))).collect();
    add_tiles(&mut map, game, "Design", grid(w, h, &design), Some(0));
    map
}

const SPEEDUP_ANGLES: [i16; 8] = [0, 45, 90, 135, 180, 225, 270, 315];

fn entities(percent: u8, background: [u8; 4]) -> RenderOptions {
    whole(32.0).entities(percent).background(background)
}

/// Renders with the plain entities palette: one warning, saying so.
fn draw_entities(map: &Map, options: &RenderOptions) -> Picture {
    let Rendered {
        picture, warnings, ..
    } = render(map, options).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("no entities tileset"), "{warnings:?}");
    picture
}

#[test]
fn entities_golden() {
    let map = entities_map();
    assert_golden("entities_100", &draw_entities(&map, &entities(100, GRAY)));
    assert_golden(
        "entities_overlay_50",
        &draw_entities(&map, &entities(50, GRAY)),
    );
}

/// The pixels of tile `(x, y)` at 32 pixels per tile.
fn tile_pixels(picture: &Picture, (x, y): (usize, usize)) -> Vec<[u8; 4]> {
    let mut pixels = Vec::new();
    for dy in 0..32 {
        for dx in 0..32 {
            pixels.push(px(picture, x * 32 + dx, y * 32 + dy));
        }
    }
    pixels
}

#[test]
fn entities_follow_the_game() {
    let map = entities_map();
    let clear = [0; 4];
    let full = draw_entities(&map, &entities(100, clear));
    let half = draw_entities(&map, &entities(50, clear));
    let tile_at = |picture: &Picture, at: (usize, usize)| tile_pixels(picture, at);

    // Physics tiles are drawn in white times E/100: the same colors, half the alpha at 50
    // (tiles without numbers over them: each number is a layer of its own).
    for at in [(0, 0), (3, 0), (0, 1), (3, 1), (4, 1), (0, 3)] {
        for (a, b) in tile_at(&full, at).into_iter().zip(tile_at(&half, at)) {
            assert!(a[3] > 0, "{at:?} drawn");
            assert!(
                b[3].abs_diff(a[3].div_ceil(2)) <= 1,
                "{at:?}: alpha {} at 100, {} at 50",
                a[3],
                b[3]
            );
            assert!(
                near([a[0], a[1], a[2], 0], [b[0], b[1], b[2], 0], 3),
                "{at:?}: {a:?} {b:?}"
            );
        }
    }
    // A tele tile shows the cell of its type, as a game tile of that id does.
    assert_eq!(
        tile_at(&full, (3, 1)),
        tile_at(&full, (7, 0)),
        "tele type 27 = game 27"
    );
    // Switch id 22 (timed open) shows the cell of id 8.
    assert_eq!(
        tile_at(&full, (5, 1)),
        tile_at(&full, (6, 1)),
        "switch 22 = switch 8"
    );
    // Tune tiles take a color per zone, in the order zones first appear: zone 1 the first hue
    // (red), zone 2 the next, 137.5 degrees on (green); the same lightness.
    let mean = |pixels: Vec<[u8; 4]>| {
        let n = pixels.len() as u32;
        let sum = pixels.iter().fold([0u32; 3], |s, p| {
            [
                s[0] + u32::from(p[0]),
                s[1] + u32::from(p[1]),
                s[2] + u32::from(p[2]),
            ]
        });
        sum.map(|c| c / n)
    };
    let (zone1, zone2) = (mean(tile_at(&full, (0, 3))), mean(tile_at(&full, (1, 3))));
    assert!(
        zone1[0] > 2 * zone1[1] && zone1[0] > 2 * zone1[2],
        "{zone1:?}"
    );
    assert!(zone2[1] > 2 * zone2[0] && zone2[1] > zone2[2], "{zone2:?}");
    // Speedups: type 28 without force, type 29 without force or speed limit, and other types
    // are not drawn; type 29 with a speed limit is.
    for x in [0, 1, 3] {
        assert!(
            tile_at(&full, (x, 4)).iter().all(|p| p[3] == 0),
            "speedup ({x}, 4)"
        );
    }
    assert!(
        tile_at(&full, (2, 4)).iter().any(|p| p[3] != 0),
        "speedup (2, 4)"
    );
    // Speedup arrows point along their angle, clockwise from +x (y down): more of the arrow
    // (its head) ahead of the tile's centre than behind, as much left as right of its axis.
    // Numbers are drawn in the lower half of a tile (the force, row 2) or the upper half (the
    // speed limit, row 5): the arrow alone is the upper half of one and the lower of the other.
    for (x, &angle) in SPEEDUP_ANGLES.iter().enumerate() {
        let (force, limit) = (tile_at(&full, (x, 2)), tile_at(&full, (x, 5)));
        let arrow: Vec<[u8; 4]> = (force[..16 * 32].iter())
            .chain(&limit[16 * 32..])
            .copied()
            .collect();
        let (sin, cos) = f64::from(angle).to_radians().sin_cos();
        let (mut ahead, mut behind, mut left, mut right) = (0.0, 0.0, 0.0, 0.0);
        for (i, p) in arrow.iter().enumerate() {
            let (dx, dy) = ((i % 32) as f64 + 0.5 - 16.0, (i / 32) as f64 + 0.5 - 16.0);
            let weight = f64::from(p[3]);
            let along = dx * cos + dy * sin;
            let across = -dx * sin + dy * cos;
            *(if along > 0.0 { &mut ahead } else { &mut behind }) += weight;
            *(if across > 0.0 { &mut right } else { &mut left }) += weight;
        }
        let what = format!("speedup at {angle} degrees");
        assert!(
            ahead > 1.5 * behind,
            "{what}: {ahead} ahead, {behind} behind"
        );
        assert!(
            left < 1.25 * right && right < 1.25 * left,
            "{what}: {left} / {right}"
        );
    }
    // The design layer: hidden at 100, at half alpha at 50 (over gray), whole without entities.
    let gray = [128, 128, 128];
    let design = (3 * 32 + 16, 3 * 32 + 16);
    let with_gray = draw_entities(&map, &entities(100, GRAY));
    assert_eq!(px(&with_gray, design.0, design.1), GRAY, "design at 100");
    let overlay = draw_entities(&map, &entities(50, GRAY));
    assert_near(
        px(&overlay, design.0, design.1),
        over(gray, [1.0, 1.0, 1.0, 0.5]),
        2,
        "design at 50",
    );
    let normal = draw(&map, &entities(0, GRAY));
    assert_eq!(
        px(&normal, design.0, design.1),
        [255; 4],
        "design without entities"
    );
    // Physics layers repeat their edge tiles outside too: left of the map, row 0 shows the game
    // tile at (0, 0), row 2 the speedup arrow at (0, 2) (one world unit per pixel, the map's
    // top-left corner at pixel (128, 128)).
    let outside = draw_entities(
        &map,
        &(entities(100, clear))
            .size(Size::Pixels {
                width: 256,
                height: 256,
            })
            .view(View::Camera {
                x: 0.0,
                y: 0.0,
                zoom: 256.0 / 1050.0,
            }),
    );
    for (x, y) in [(5, 5), (16, 16), (20, 80), (12, 79)] {
        let inside = px(&outside, 128 + x, 128 + y);
        assert_ne!(inside[3], 0, "({x}, {y}) drawn");
        for k in [1, 2, 3] {
            assert_eq!(
                px(&outside, 128 + x - 32 * k, 128 + y),
                inside,
                "({x}, {y}) repeated"
            );
        }
    }
    // Without the entities view no physics layer is drawn.
    for y in 0..3 {
        for x in 0..8 {
            assert!(
                tile_at(&normal, (x, y)).iter().all(|&p| p == GRAY),
                "physics ({x}, {y}) at 0"
            );
        }
    }
}

/// Game and switch tiles keep their flags in the entities view (tele tiles have none): drawn
/// with the generated tileset as the entities tileset, x flip mirrors and rotate turns
/// clockwise, as in tile layers.
#[test]
fn entities_keep_tile_flags() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("entities.png");
    let side = (CELL * 16) as u32;
    let png = Picture {
        width: side,
        height: side,
        rgba: tileset(),
    }
    .to_png()
    .unwrap();
    std::fs::write(&path, png).unwrap();
    let options = (entities(100, [0; 4])).entities_tileset(Some(path));
    let map = entities_map();
    let picture = draw(&map, &options);
    let tile_at = |at: (usize, usize)| tile_pixels(&picture, at);
    let at = |pixels: &[[u8; 4]], x: usize, y: usize| pixels[y * 32 + x];
    // Game: tile 1 plain, x-flipped, rotated; switch: 22 plain and x-flipped.
    let (plain, flipped, rotated) = (tile_at((4, 0)), tile_at((5, 0)), tile_at((6, 0)));
    let (switch, switch_flipped) = (tile_at((4, 1)), tile_at((7, 1)));
    assert_near(at(&plain, 2, 2), CORNERS[0], 2, "game tile 1, top left");
    for dy in 0..32 {
        for dx in 0..32 {
            let mirrored = at(&plain, 31 - dx, dy);
            assert!(
                near(at(&flipped, dx, dy), mirrored, 2),
                "x flip ({dx}, {dy})"
            );
            // Rotated: screen (s, t) shows texture (t, 1 - s).
            let turned = at(&plain, dy, 31 - dx);
            assert!(near(at(&rotated, dx, dy), turned, 2), "rotate ({dx}, {dy})");
            let mirrored = at(&switch, 31 - dx, dy);
            assert!(
                near(at(&switch_flipped, dx, dy), mirrored, 2),
                "switch x flip ({dx}, {dy})"
            );
        }
    }
    // Switch 22 shows cell 8 of the tileset: its color at texel (2, 6).
    assert_near(at(&switch, 5, 13), cell_color(8), 2, "switch 22 as cell 8");
}

// ---------------------------------------------------------------------------------------------
// Detail layers and a selection of layers

/// A 4 x 3 map: "Base" (white cells, row 0), "Detail" (a detail layer, cell 1, row 1), "Other"
/// (half white cells, row 2).
fn detail_map() -> Map {
    let (mut map, game) = game_map(4, 3);
    let row = |y: usize, id: u8| -> Grid<Tile> {
        let set: Vec<(usize, usize, Tile)> = (0..4).map(|x| (x, y, tile(id, 0))).collect();
        grid(4, 3, &set)
    };
    add_tiles(&mut map, game, "Base", row(0, WHITE), Some(0));
    let detail = add_tiles(&mut map, game, "Detail", row(1, 1), Some(0));
    add_tiles(&mut map, game, "Other", row(2, HALF_WHITE), Some(0));
    let id = layer_id(&map, detail);
    patch_layers(&map, |item, ints| {
        if item == id {
            ints[LAYER_FLAGS] = 1;
        }
    })
}

#[test]
fn detail_and_layer_selection_golden() {
    let map = detail_map();
    let no_detail = whole(16.0).detail(false);
    assert_golden("detail_off", &draw(&map, &no_detail));
    let layers = twcodec_tools::render::select_layers(&map, &["detail", "3"]).unwrap();
    let only = whole(16.0).layers(Some(layers));
    assert_golden("layers_selected", &draw(&map, &only));
}

#[test]
fn detail_layers_and_selections_leave_out_what_they_say() {
    let map = detail_map();
    assert!(map.layers()[2].is_detail() && !map.layers()[1].is_detail());
    let centre = |picture: &Picture, row: usize| px(picture, 32, row * 16 + 8);
    let all = draw(&map, &whole(16.0));
    assert_eq!(centre(&all, 0), [255; 4]);
    assert_ne!(centre(&all, 1), GRAY);
    let no_detail = draw(&map, &whole(16.0).detail(false));
    assert_eq!(centre(&no_detail, 0), [255; 4]);
    assert_eq!(centre(&no_detail, 1), GRAY, "the detail layer is left out");
    assert_eq!(centre(&no_detail, 2), centre(&all, 2));
    // By name (any case) and by index (as `twcodec dump` numbers layers; 0 is the game
    // layer): "Detail" and layer 3 ("Other"), not "Base".
    let layers = twcodec_tools::render::select_layers(&map, &["detail", "3"]).unwrap();
    assert_eq!(layers.len(), 2);
    let only = draw(&map, &whole(16.0).layers(Some(layers)));
    assert_eq!(centre(&only, 0), GRAY);
    assert_eq!(centre(&only, 1), centre(&all, 1));
    assert_eq!(centre(&only, 2), centre(&all, 2));
    let error = twcodec_tools::render::select_layers(&map, &["nosuchlayer"]).unwrap_err();
    assert!(
        error.to_string().contains("no layer \"nosuchlayer\""),
        "{error}"
    );
}

// ---------------------------------------------------------------------------------------------
// Every corpus map

/// Every corpus map renders at 256 pixels wide, without the entities view and with an overlay
/// of 50, with the game's pictures from the corpus (DDNet's for DDNet and 0.6 maps, Teeworlds
/// 0.7's for 0.7 maps) and DDNet's entities tileset. The only warnings are for external
/// pictures missing from that folder, each naming the picture, and every such picture a drawn
/// layer uses gets one.
/// `render_png` draws and compresses each piece of the PNG on its own, without the whole
/// picture; `render` draws the whole picture and `Picture::to_png` compresses it. The two
/// paths make the same file, byte for byte, on one thread and on three: pictures of one
/// pixel, of fewer rows than a band, of rows of 300 and 2048 pixels (pieces of 208 and 32
/// rows: three each) ending within a band, and of a thousand rows of 64 pixels (pieces of
/// 1008 rows: one). And the file holds the picture's pixels, as the png crate reads them.
#[test]
fn png_renders_are_the_pictures_png_made_piece_by_piece() {
    use twcodec_tools::render::{render_png, Renderer};
    let map = quads_map();
    let pool = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    };
    for (width, height) in [(1, 1), (5, 3), (300, 500), (2048, 70), (64, 1000)] {
        let options = options().size(Size::Pixels { width, height });
        let rendered = render(&map, &options).unwrap();
        assert_eq!(
            (rendered.picture.width, rendered.picture.height),
            (width, height)
        );
        let expected = rendered.picture.to_png().unwrap();
        for threads in [1, 3] {
            let drawn = pool(threads).install(|| render_png(&map, &options).unwrap());
            assert_eq!((drawn.width, drawn.height), (width, height));
            assert_eq!(
                (&drawn.warnings, drawn.work),
                (&rendered.warnings, rendered.work)
            );
            assert!(
                drawn.png == expected,
                "{width}x{height} on {threads} threads: {} bytes, to_png {}",
                drawn.png.len(),
                expected.len()
            );
        }
        let decoded = twcodec_tools::assets::decode_png(&expected, Default::default()).unwrap();
        assert!(decoded == rendered.picture, "{width}x{height}");
    }
    // Progress: every band of 16 rows once, the last call saying all are done.
    let calls = std::sync::Mutex::new(Vec::new());
    let options = options().size(Size::Pixels {
        width: 300,
        height: 101,
    });
    Renderer::new()
        .render_png_with_progress(&map, &options, &|done, total| {
            calls.lock().unwrap().push((done, total));
        })
        .unwrap();
    let mut calls = calls.into_inner().unwrap();
    calls.sort();
    assert_eq!(calls, (1..=7).map(|done| (done, 7)).collect::<Vec<_>>());
}

#[test]
fn every_corpus_map_renders() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let maps = common::corpus_maps().unwrap();
    let entities_tileset = dir.join("mapres/entities/ddnet_comfort.png");
    assert!(entities_tileset.is_file(), "{}", entities_tileset.display());
    let mut summary = Vec::new();
    // One renderer: the game's pictures are read once for all maps.
    let renderer = twcodec_tools::render::Renderer::new();
    for path in &maps {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let started = std::time::Instant::now();
        let map = Map::open(path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let set = if map.form() == MapForm::Teeworlds07 {
            "teeworlds07"
        } else {
            "ddnet"
        };
        let mapres = dir.join("mapres").join(set);
        // External pictures of the map's design layers that the folder lacks.
        let mut missing: Vec<String> = Vec::new();
        for layer in map.layers() {
            if layer.is_physics() {
                continue;
            }
            if let twcodec::map::Ref::To(image) = layer.image(&map) {
                let image = map.get(image).unwrap();
                let name = image.name(&map).unwrap_or_default();
                let file = mapres.join(format!("{name}.png"));
                if image.is_external() && !file.is_file() && !missing.contains(&name) {
                    missing.push(name);
                }
            }
        }
        for percent in [0, 50] {
            let options = options()
                .size(Size::Width(256))
                .entities(percent)
                .mapres(Some(mapres.clone()))
                .entities_tileset(Some(entities_tileset.clone()));
            let Rendered {
                picture, warnings, ..
            } = (renderer.render(&map, &options))
                .unwrap_or_else(|e| panic!("{file} at {percent}: {e}"));
            // The PNG drawn piece by piece is the picture's (as its own test shows on
            // generated maps; here on every real one).
            let png = renderer.render_png(&map, &options).unwrap();
            assert!(
                png.png == picture.to_png().unwrap() && png.warnings == warnings,
                "{file} at {percent}: render_png differs"
            );
            if let Some(out) = std::env::var_os("TWCODEC_RENDER_DIR") {
                // To look at: never committed (the pictures are the game's, CC BY-SA).
                let name = format!("{file}.entities{percent}.png");
                std::fs::write(Path::new(&out).join(name), picture.to_png().unwrap()).unwrap();
            }
            assert_eq!(picture.width, 256, "{file}");
            assert!(picture.height >= 1, "{file}");
            assert_eq!(picture.rgba.len(), 256 * picture.height as usize * 4);
            for warning in &warnings {
                let named = missing.iter().any(|name| {
                    warning.contains(&format!("external image {name:?}"))
                        && warning.contains("drawn as a placeholder")
                });
                assert!(
                    named,
                    "{file}: a warning not about a missing picture: {warning}"
                );
            }
            for name in &missing {
                let warned = warnings.iter().any(|w| w.contains(&format!("{name:?}")));
                assert!(
                    warned,
                    "{file}: no warning for the missing picture {name:?}"
                );
            }
            // A game layer with anything in it shows in the entities view.
            let game_has_tiles = (map.game_layer())
                .and_then(|(_, game)| game.grid())
                .is_some_and(|grid| grid.tiles().iter().any(|t| t.id != 0));
            if percent == 50 && game_has_tiles {
                let first = &picture.rgba[..4];
                let uniform = picture.rgba.chunks_exact(4).all(|p| p == first);
                assert!(!uniform, "{file}: the entities view shows nothing");
            }
            if percent == 0 {
                summary.push(format!(
                    "{file}: {}x{}, {} missing pictures, {:.1} s",
                    picture.width,
                    picture.height,
                    missing.len(),
                    started.elapsed().as_secs_f64()
                ));
            }
        }
    }
    eprintln!("{}", summary.join("\n"));
    assert_eq!(summary.len(), maps.len());
}

// ---------------------------------------------------------------------------------------------
// Hostile input

/// Extreme corners, texture coordinates and colors of a quad.
fn extreme_quads() -> Vec<Quad> {
    let (min, max) = (i32::MIN, i32::MAX);
    let at = |x: i32, y: i32| Point { x, y };
    let base = quad(0.0, 0.0, 64.0, 64.0, GRADIENT);
    let corners = |points: [Point; 5]| Quad { points, ..base };
    vec![
        corners([at(min, min); 5]),
        corners([at(max, max); 5]),
        // Larger than any screen, in every direction.
        corners([
            at(min, min),
            at(max, min),
            at(min, max),
            at(max, max),
            at(0, 0),
        ]),
        corners([
            at(max, max),
            at(min, max),
            at(max, min),
            at(min, min),
            at(max, min),
        ]),
        // Degenerate: a point, a line, a bow tie.
        corners([at(4096, 4096); 5]),
        corners([at(0, 0), at(32768, 0), at(65536, 0), at(98304, 0), at(0, 0)]),
        corners([
            at(0, 0),
            at(65536, 65536),
            at(65536, 0),
            at(0, 65536),
            at(32768, 32768),
        ]),
        Quad {
            texture_coords: [at(max, min), at(min, max), at(max, max), at(min, min)],
            colors: [Color {
                r: max,
                g: min,
                b: -1,
                a: max,
            }; 4],
            ..base
        },
        Quad {
            colors: [Color {
                r: 255,
                g: 255,
                b: 255,
                a: min,
            }; 4],
            ..base
        },
    ]
}

/// A map with what a renderer might trip over: tilesets of 1 x 1, 17 x 5 and 100 x 100
/// pixels with every tile 255 and every flag; the extreme quads, drawn with and without the
/// odd picture, with envelopes of extreme values, times and rotations; groups of extreme
/// parallax, offsets and clip rectangles; a tile layer and a quads layer whose image index
/// points past the images; an embedded image whose size does not match its pixels.
fn hostile_map() -> Map {
    let (mut map, game) = game_map(4, 4);
    let (min, max) = (i32::MIN, i32::MAX);
    map.add_embedded_image("one", 1, 1, vec![9, 99, 199, 255])
        .unwrap();
    map.add_embedded_image(
        "odd",
        17,
        5,
        picture(17, 5, |x, y| [x as u8 * 15, y as u8 * 50, 7, 200]),
    )
    .unwrap();
    map.add_embedded_image(
        "hundred",
        100,
        100,
        picture(100, 100, |x, y| [x as u8, y as u8, 0, 255]),
    )
    .unwrap();
    map.add_embedded_image("liar", 4, 4, vec![255; 64]).unwrap();
    let mut everything: Grid<Tile> = grid(4, 4, &[]);
    for (i, t) in everything.tiles_mut().iter_mut().enumerate() {
        *t = tile(255 - i as u8 % 2, 15);
    }
    for image in 0..5 {
        add_tiles(
            &mut map,
            game,
            "Odd tileset",
            everything.clone(),
            Some(image),
        );
    }
    let extremes = [
        point(min, CurveType::LINEAR, [0.0; 4]),
        EnvPoint {
            time: 0,
            curve_type: 1,
            values: [max, min, max, min],
        },
        EnvPoint {
            time: 1,
            curve_type: 99,
            values: [min, max, min, max],
        },
        EnvPoint {
            time: -5,
            curve_type: CurveType::SMOOTH.to_i32(),
            values: [max; 4],
        },
        EnvPoint {
            time: max,
            curve_type: CurveType::BEZIER.to_i32(),
            values: [min; 4],
        },
    ];
    // The edit API refuses these points (times below 0 or falling, an unknown curve), as a
    // hostile file may hold them: the envelopes get placeholders, written over at the end.
    let placeholders: Vec<EnvPoint> = (0..extremes.len() as i32)
        .map(|time| point(time, CurveType::LINEAR, [0.0; 4]))
        .collect();
    let position = add_envelope(
        &mut map,
        EnvelopeKind::Position,
        "wild",
        placeholders.clone(),
    );
    let color = add_envelope(&mut map, EnvelopeKind::Color, "wild", placeholders);
    let spin = add_envelope(
        &mut map,
        EnvelopeKind::Position,
        "spin",
        vec![
            point(0, CurveType::LINEAR, [0.0, 0.0, 0.0, 0.0]),
            point(1, CurveType::LINEAR, [0.0, 0.0, 2_000_000.0, 0.0]),
        ],
    );
    let quads = extreme_quads();
    for image in [None, Some(2)] {
        let layer = map
            .add_layer(game, Layer::new_quads("Extreme", quads.clone()).unwrap())
            .unwrap();
        map.set_layer_image(layer, image.map(|i| map.refs().nth(i).unwrap()))
            .unwrap();
        for i in 0..quads.len() {
            let envelope = |raw: i32| map.item_ref::<Envelope>(raw).get();
            let (p, c) = (
                envelope(if i % 2 == 0 { position } else { spin }),
                envelope(color),
            );
            map.set_quad_position_envelope(layer, i, p).unwrap();
            if i % 3 != 0 {
                map.set_quad_color_envelope(layer, i, c).unwrap();
            }
        }
    }
    let colored = add_tiles(&mut map, game, "Wild color", everything.clone(), Some(0));
    map.set_layer_color_envelope(colored, map.item_ref::<Envelope>(color).get())
        .unwrap();
    // Bezier points with tangents of extreme times and values.
    let wild = |v: i32| EnvPointBezier {
        in_tangent_dx: [v; 4],
        in_tangent_dy: [v.wrapping_neg(); 4],
        out_tangent_dx: [v.wrapping_neg(); 4],
        out_tangent_dy: [v; 4],
    };
    let bezier = map
        .add_envelope(NewEnvelope {
            points: vec![
                EnvPoint {
                    time: 0,
                    curve_type: CurveType::BEZIER.to_i32(),
                    values: [0, max, min, 1024],
                },
                EnvPoint {
                    time: 3,
                    curve_type: CurveType::BEZIER.to_i32(),
                    values: [max, 0, 1024, min],
                },
                point(1000, CurveType::LINEAR, [1.0; 4]),
            ],
            tangents: Some(vec![wild(max), wild(min), wild(0)]),
            ..NewEnvelope::new(EnvelopeKind::Color, "bezier")
        })
        .unwrap();
    let curved = add_tiles(&mut map, game, "Bezier", everything.clone(), Some(0));
    map.set_layer_color_envelope(curved, Some(bezier)).unwrap();
    for (parallax, offset, clip) in [
        (
            (max, min),
            (max, min),
            Clip {
                enabled: 1,
                x: min,
                y: min,
                width: max,
                height: max,
            },
        ),
        (
            (min, max),
            (min, max),
            Clip {
                enabled: 1,
                x: max,
                y: max,
                width: min,
                height: -5,
            },
        ),
        (
            (0, 0),
            (0, 0),
            Clip {
                enabled: 1,
                x: 0,
                y: 0,
                width: 0,
                height: 0,
            },
        ),
        ((-100, 100_000), (-1, 1), Clip::default()),
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
                clip,
                ..NewGroup::new("Wild")
            })
            .unwrap();
        add_tiles(&mut map, group, "Tiles", everything.clone(), Some(0));
        map.add_layer(group, Layer::new_quads("Quads", quads.clone()).unwrap())
            .unwrap();
    }
    // Dangling images: a tile layer (a square of its color for each tile, as with no image)
    // over the whole map, and a quads layer; the lying image is 4 x 4 with 64 bytes of pixels,
    // then said to be 1000 wide.
    // (Adding a layer to a group before others renumbers the later layers: ids are taken at
    // once.)
    let dangling_tiles = add_tiles(&mut map, game, "Dangling", everything.clone(), None);
    let tiles_id = layer_id(&map, dangling_tiles);
    let dangling_quads = map
        .add_layer(
            game,
            Layer::new_quads("Dangling", vec![quad(0.0, 0.0, 8.0, 8.0, GRADIENT)]).unwrap(),
        )
        .unwrap();
    let quads_id = layer_id(&map, dangling_quads);
    let map = patch_layers(&map, |id, ints| {
        if id == tiles_id {
            ints[TILEMAP_IMAGE] = 99;
        } else if id == quads_id {
            ints[QUADS_IMAGE] = 7;
        }
    });
    let mut writer = map.to_datafile().unwrap();
    let mut starts = Vec::new();
    for item in writer.items_mut() {
        if item.type_id() == 2 && item.id() == 4 {
            item.data[IMAGE_WIDTH] = 1000;
        }
        if item.type_id() == ENVELOPE && [position, color].contains(&i32::from(item.id())) {
            starts.push(item.data[ENVELOPE_START] as usize);
        }
    }
    let points = (writer.items_mut().iter_mut())
        .find(|item| item.type_id() == ENVELOPE_POINTS)
        .unwrap();
    for start in starts {
        for (n, p) in extremes.iter().enumerate() {
            let at = (start + n) * 6;
            points.data[at..at + 6].copy_from_slice(&[
                p.time,
                p.curve_type,
                p.values[0],
                p.values[1],
                p.values[2],
                p.values[3],
            ]);
        }
    }
    let map = Map::parse(&writer.to_vec().unwrap()).unwrap();
    for index in [position, color] {
        let envelope = map
            .get(map.item_ref::<Envelope>(index).get().unwrap())
            .unwrap();
        assert_eq!(envelope.points(&map), &extremes[..]);
    }
    map
}

/// The item types of envelopes and of their points, and an envelope item's first point
/// (after its version and channels).
const ENVELOPE: u16 = 3;
const ENVELOPE_POINTS: u16 = 6;
const ENVELOPE_START: usize = 2;

/// A quads layer item's image, after the layer header: version, quad count, data, image.
const QUADS_IMAGE: usize = 6;
/// An image item's width: after its version.
const IMAGE_WIDTH: usize = 1;

#[test]
fn hostile_maps_render_without_panicking() {
    let map = hostile_map();
    let images: Vec<String> = map.images().iter().map(|i| i.name(&map).unwrap()).collect();
    assert_eq!(images, ["tileset", "one", "odd", "hundred", "liar"]);
    let views = [
        View::Whole,
        View::Camera {
            x: 0.0,
            y: 0.0,
            zoom: 1.0,
        },
        View::Camera {
            x: 1e12,
            y: -1e12,
            zoom: 1.0,
        },
        View::Camera {
            x: 2.0,
            y: 2.0,
            zoom: 1e-9,
        },
        View::Camera {
            x: 2.0,
            y: 2.0,
            zoom: 1e9,
        },
    ];
    for view in views {
        // Every time without the entities view; the entities view (whose layers have no
        // envelopes) at one.
        let times = [0.5, -1.0, 1e18, f64::NAN, f64::NEG_INFINITY].map(|t| (t, 0));
        for (time_ms, entities) in times.into_iter().chain([(0.0, 50), (0.0, 100)]) {
            let options = options()
                .size(Size::Pixels {
                    width: 48,
                    height: 32,
                })
                .view(view)
                .time_ms(time_ms)
                .entities(entities);
            let what = format!("{view:?} at {time_ms} ms, entities {entities}");
            let rendered = render(&map, &options).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(
                (rendered.picture.width, rendered.picture.height),
                (48, 32),
                "{what}"
            );
            // The lying image is drawn as a placeholder, with a warning naming it.
            if entities < 100 {
                let liar = rendered
                    .warnings
                    .iter()
                    .filter(|w| w.contains("\"liar\""))
                    .count();
                assert_eq!(liar, 1, "{what}: {:?}", rendered.warnings);
            }
        }
    }
    // A dangling image index draws no texture: squares of the layer color (white) over the
    // whole map; only that layer drawn.
    let dangling = twcodec_tools::render::select_layers(&map, &["Dangling"]).unwrap();
    assert_eq!(dangling.len(), 2);
    let tiles_only = vec![dangling[0]];
    let picture = draw(&map, &whole(8.0).layers(Some(tiles_only)));
    assert!(
        picture.rgba.chunks_exact(4).all(|p| p == [255; 4]),
        "dangling image"
    );
    let picture = draw(&map, &whole(8.0).layers(Some(dangling)));
    assert!(
        picture.rgba.chunks_exact(4).any(|p| p != [255; 4]),
        "the dangling quad draws"
    );
}

/// Sizes and views that cannot be drawn are errors that say so, before any picture is made.
#[test]
fn impossible_pictures_are_errors() {
    let (map, _) = game_map(4, 4);
    let error = |size: Size, view: View| {
        let options = options().size(size).view(view);
        match render(&map, &options) {
            Ok(r) => panic!(
                "{size:?} {view:?}: a {}x{} picture",
                r.picture.width, r.picture.height
            ),
            Err(e) => e,
        }
    };
    let camera = View::Camera {
        x: 0.0,
        y: 0.0,
        zoom: 1.0,
    };
    let huge = error(
        Size::Pixels {
            width: 100_000,
            height: 100_000,
        },
        camera,
    );
    assert_eq!(huge.kind(), ErrorKind::LimitExceeded);
    assert!(huge.to_string().contains(&MAX_PIXELS.to_string()), "{huge}");
    for size in [
        Size::Width(u32::MAX),
        Size::Scale(1e9),
        Size::Scale(f64::NAN),
        Size::Scale(f64::INFINITY),
        Size::Scale(0.0),
        Size::Scale(-4.0),
        Size::Scale(1e-300),
        Size::Width(0),
        Size::Pixels {
            width: 0,
            height: 10,
        },
        Size::Pixels {
            width: 10,
            height: 0,
        },
    ] {
        error(size, View::Whole);
        error(size, camera);
    }
    for (x, y, zoom) in [
        (0.0, 0.0, 0.0),
        (0.0, 0.0, f64::NAN),
        (0.0, 0.0, -1.0),
        (0.0, 0.0, f64::INFINITY),
        (f64::NAN, 0.0, 1.0),
        (0.0, f64::NEG_INFINITY, 1.0),
    ] {
        let e = error(Size::Width(64), View::Camera { x, y, zoom });
        assert_eq!(e.kind(), ErrorKind::InvalidOptions, "{e}");
        assert!(e.to_string().contains("camera"), "{e}");
    }
    let too_many = options().entities(101);
    let e = render(&map, &too_many).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidOptions, "{e}");
    // The smallest picture, and a long thin one.
    for (width, height) in [(1, 1), (1, 100_000), (100_000, 1)] {
        let picture = draw(&map, &options().size(Size::Pixels { width, height }));
        assert_eq!((picture.width, picture.height), (width, height));
    }
}

// ---------------------------------------------------------------------------------------------
// twcodec render

fn twcodec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .env_remove("TWCODEC_MAPRES")
        .output()
        .expect("the twcodec binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn cli_render_writes_a_png_and_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let sample = dir.path().join("sample.map");
    std::fs::write(&sample, twcodec_testkit::sample::datafile()).unwrap();
    let sample = sample.to_string_lossy().into_owned();
    let png = dir.path().join("sample.png");
    let png_arg = png.to_string_lossy().into_owned();
    let mapres = dir.path().join("mapres");
    std::fs::create_dir(&mapres).unwrap();
    let mapres_arg = mapres.to_string_lossy().into_owned();

    // The sample's game layer is 12 x 8 tiles: 240 wide is 160 high.
    let output = twcodec(&[
        "render",
        &sample,
        "-o",
        &png_arg,
        "--width",
        "240",
        "--mapres",
        &mapres_arg,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let picture = twcodec_tools::assets::decode_png(
        &std::fs::read(&png).unwrap(),
        twcodec::Limits::default(),
    )
    .unwrap();
    assert_eq!((picture.width, picture.height), (240, 160));
    // The same picture as the library's.
    let map = Map::parse(&twcodec_testkit::sample::datafile()).unwrap();
    let options = options()
        .size(Size::Width(240))
        .mapres(Some(mapres.clone()));
    assert_eq!(render(&map, &options).unwrap().picture, picture);

    let mut report = String::new();
    let clean = |text: String| {
        text.replace(&sample, "sample.map")
            .replace(&png_arg, "sample.png")
            .replace(&mapres_arg, "MAPRES")
    };
    report.push_str(&format!(
        "$ twcodec render sample.map -o sample.png --width 240 --mapres MAPRES\n{}{}",
        clean(stdout(&output)),
        clean(stderr(&output))
    ));

    let cases: [&[&str]; 5] = [
        &["--scale", "4"],
        &["--layers", "nosuchlayer"],
        &["--camera", "1"],
        &["--camera", "1,2", "--zoom", "0"],
        &["--max-work", "1000"],
    ];
    for extra in cases {
        let mut args = vec!["render", sample.as_str(), "-o", png_arg.as_str()];
        args.extend_from_slice(extra);
        let output = twcodec(&args);
        let code = output.status.code();
        let err = stderr(&output);
        assert!(!err.contains("panicked"), "{err}");
        report.push_str(&format!(
            "\n$ twcodec render sample.map -o sample.png {}\nexit {code:?}\n{}{}",
            extra.join(" "),
            clean(stdout(&output)),
            clean(err)
        ));
    }
    common::insta_settings().bind(|| insta::assert_snapshot!("render_cli", report));
}

/// The README's picture is the built-in sample drawn by the command the README shows
/// (`render sample.map -o sample.png --width 640 --entities-overlay 60 --time 0.3`, none of
/// the game's files): re-bless it with `TWCODEC_BLESS=1` when the renderer changes.
#[test]
fn the_readme_picture_is_the_sample_rendered() {
    let map = twcodec_testkit::sample::map().unwrap();
    let options = RenderOptions::default()
        .size(Size::Width(640))
        .entities(60)
        .time_ms(300.0)
        .mapres(None)
        .entities_tileset(None);
    let Rendered {
        picture, warnings, ..
    } = render(&map, &options).unwrap();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    let readme = common::root().join("docs/sample.png");
    if let Err(message) = golden::check_golden_file(&readme, "readme_sample", &picture) {
        panic!("{message}");
    }
    let text = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    assert!(text
        .contains("render sample.map -o sample.png --width 640 --entities-overlay 60 --time 0.3"));
    assert!(text.contains("![The built-in sample map, rendered by twcodec](docs/sample.png)"));
}

/// The README's first picture: Teeworlds' ctf5 from the corpus, drawn with the game's own
/// pictures, as `twcodec render` draws it with the options the README names.
#[test]
fn the_readme_picture_is_ctf5_rendered() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let map = Map::open(dir.join("maps/tw06_stock_ctf5.map")).unwrap();
    let options = RenderOptions::default()
        .size(Size::Width(1200))
        .mapres(Some(dir.join("mapres/ddnet")))
        .entities_tileset(None);
    let Rendered {
        picture, warnings, ..
    } = render(&map, &options).unwrap();
    // Every external picture found: no placeholder in the README.
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!((picture.width, picture.height), (1200, 533));
    let readme = common::root().join("docs/pictures/ctf5.png");
    if let Err(message) = golden::check_golden_file(&readme, "readme_ctf5", &picture) {
        panic!("{message}");
    }
    let text = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    assert!(text.contains("twcodec render ctf5.map --mapres DIR --width 1200 -o ctf5.png"));
    assert!(text.contains("![Teeworlds' ctf5, drawn by twcodec](docs/pictures/ctf5.png)"));
}

#[test]
fn progress_reaches_every_band() {
    let map = twcodec_testkit::sample::map().unwrap();
    let options = whole(8.0);
    let calls = std::sync::Mutex::new(Vec::new());
    let rendered = twcodec_tools::render::Renderer::new()
        .render_with_progress(&map, &options, &|done, total| {
            calls.lock().unwrap().push((done, total))
        })
        .unwrap();
    let calls = calls.into_inner().unwrap();
    // One call per band of 16 rows; the last says all are done.
    let bands = (rendered.picture.height as usize).div_ceil(16);
    assert_eq!(calls.len(), bands);
    assert!(calls.iter().all(|&(_, total)| total == bands));
    assert_eq!(calls.iter().map(|&(done, _)| done).max(), Some(bands));
    // The same picture as without progress.
    assert_eq!(
        rendered.picture,
        twcodec_tools::render::render(&map, &options)
            .unwrap()
            .picture
    );
}
