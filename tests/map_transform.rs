//! Whole-map edits (`src/map/edit/transform.rs`): mirroring, flipping and rotating, reframing
//! and scaling time. The direction rules are checked against a decoder written here from
//! DDNet's collision code (what a tile blocks or pushes), so that a mirrored map is shown to
//! play mirrored; the round trips run on every corpus map.

mod common;

use std::collections::BTreeSet;

use rayon::prelude::*;
use twcodec::map::{Grid, Group, Layer, LayerContent, Margins, NewGroup, Transform};
use twcodec::schema::map::envelope::{EnvPoint, EnvPointBezier};
use twcodec::schema::map::quad::Quad;
use twcodec::schema::map::sound::SoundSource;
use twcodec::schema::map::tile::{tiles_as_bytes, Speedup, Switch, Tile, TileKind};
use twcodec::schema::map::Point;
use twcodec::{ErrorKind, Map};

use common::corpus_maps;

// ---------------------------------------------------------------------------------------------
// The game's directions, decoded as DDNet's collision code reads tiles (src/game/collision.cpp).

/// A direction on screen (y down).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Dir {
    Up,
    Right,
    Down,
    Left,
}

impl Dir {
    fn turned(self, t: Transform) -> Dir {
        use Dir::*;
        let cw = |d: Dir| match d {
            Up => Right,
            Right => Down,
            Down => Left,
            Left => Up,
        };
        match t {
            Transform::MirrorX => match self {
                Left => Right,
                Right => Left,
                d => d,
            },
            Transform::FlipY => match self {
                Up => Down,
                Down => Up,
                d => d,
            },
            Transform::Rotate90 => cw(self),
            Transform::Rotate180 => cw(cw(self)),
            _ => cw(cw(cw(self))),
        }
    }
}

const STOP: u8 = 60;
const STOPS: u8 = 61;
const STOPA: u8 = 62;
const CP: u8 = 64;
const CP_F: u8 = 65;
const THROUGH_DIR: u8 = 67;

/// The directions a stopper forbids moving in (`GetMoveRestrictionsRaw`, flags masked to
/// X|Y|ROTATE).
fn blocks(index: u8, flags: u8) -> BTreeSet<Dir> {
    use Dir::*;
    let f = flags & 11;
    let set: &[Dir] = match index {
        STOP => match f {
            0 | 1 => &[Down],
            8 | 9 => &[Left],
            3 | 2 => &[Up],
            11 | 10 => &[Right],
            _ => &[],
        },
        STOPS => match f {
            0..=3 => &[Up, Down],
            _ => &[Left, Right],
        },
        STOPA => &[Up, Right, Down, Left],
        _ => &[],
    };
    set.iter().copied().collect()
}

/// The direction the tiles compared with `==` point in (`MoverSpeed`, `TileExistsNext`,
/// `IsThrough`): only the four pure rotations count.
fn exact_direction(flags: u8) -> Option<Dir> {
    match flags {
        0 => Some(Dir::Up),
        8 => Some(Dir::Right),
        3 => Some(Dir::Down),
        11 => Some(Dir::Left),
        _ => None,
    }
}

/// Every flags value the editor can give a tile: the rotate and flip bits with opaque.
fn all_flags() -> impl Iterator<Item = u8> {
    (0..16u8).filter(|f| f & 4 == 0 || *f == 4)
}

#[test]
fn stoppers_block_the_transformed_directions() {
    for t in Transform::ALL {
        for index in [STOP, STOPS, STOPA] {
            for flags in all_flags() {
                let before = blocks(index, flags);
                let after = blocks(index, t.physics_flags(index, flags));
                let want: BTreeSet<Dir> = before.iter().map(|d| d.turned(t)).collect();
                assert_eq!(after, want, "{t:?}: tile {index} flags {flags}");
            }
        }
    }
}

#[test]
fn exact_compared_tiles_stay_pure_rotations() {
    for t in Transform::ALL {
        for index in [STOP, CP, CP_F, THROUGH_DIR] {
            for flags in [0, 8, 3, 11] {
                let turned = t.physics_flags(index, flags);
                let dir = exact_direction(flags).map(|d| d.turned(t));
                assert_eq!(
                    exact_direction(turned),
                    dir,
                    "{t:?}: tile {index} flags {flags}"
                );
            }
        }
    }
    // A tiles layer keeps the editor's raw algebra: a mirrored up-arrow is x-flipped.
    assert_eq!(Transform::MirrorX.tile_flags(0), 1);
    assert_eq!(Transform::MirrorX.physics_flags(CP, 0), 0);
    assert_eq!(Transform::FlipY.physics_flags(CP, 0), 3);
}

#[test]
fn flag_algebra_matches_the_editor_table() {
    // layer_tiles.cpp: flip x toggles XFLIP, or YFLIP on a rotated tile; rotate 0->8->3->11.
    let table = [
        (
            Transform::MirrorX,
            [(0, 1), (1, 0), (2, 3), (8, 10), (11, 9), (4, 5)],
        ),
        (
            Transform::FlipY,
            [(0, 2), (1, 3), (2, 0), (8, 9), (11, 10), (4, 6)],
        ),
        (
            Transform::Rotate90,
            [(0, 8), (8, 3), (3, 11), (11, 0), (1, 9), (4, 12)],
        ),
        (
            Transform::Rotate180,
            [(0, 3), (8, 11), (3, 0), (11, 8), (1, 2), (4, 7)],
        ),
        (
            Transform::Rotate270,
            [(0, 11), (8, 0), (3, 8), (11, 3), (1, 10), (4, 15)],
        ),
    ];
    for (t, pairs) in table {
        for (from, to) in pairs {
            assert_eq!(t.tile_flags(from), to, "{t:?} {from}");
        }
    }
}

#[test]
fn speedups_point_the_transformed_way() {
    let dir = |a: i16| {
        let r = f64::from(a).to_radians();
        (r.cos(), r.sin())
    };
    for t in Transform::ALL {
        for angle in [0i16, 1, 45, 90, 135, 180, 270, 359, 400, -30] {
            let (x, y) = dir(angle);
            let want = match t {
                Transform::MirrorX => (-x, y),
                Transform::FlipY => (x, -y),
                Transform::Rotate90 => (-y, x),
                Transform::Rotate180 => (-x, -y),
                _ => (y, -x),
            };
            let new = t.speedup_angle(angle);
            assert!((0..360).contains(&new), "{t:?} {angle} -> {new}");
            let got = dir(new);
            assert!(
                (got.0 - want.0).abs() < 1e-9 && (got.1 - want.1).abs() < 1e-9,
                "{t:?}: {angle} -> {new}"
            );
        }
    }
    assert_eq!(Transform::MirrorX.speedup_angle(30), 150);
    assert_eq!(Transform::FlipY.speedup_angle(30), 330);
    assert_eq!(Transform::Rotate90.speedup_angle(300), 30);
}

// ---------------------------------------------------------------------------------------------
// A small map built here.

const W: usize = 6;
const H: usize = 4;

/// A map with a 6x4 game layer holding a one-way stopper, a checkpoint and a clockwise laser,
/// a speedup layer, a switch layer, a narrower background tiles layer in a parallax group, and
/// a quad.
fn small_map() -> Map {
    let mut map = twcodec_testkit::sample::empty_map().expect("the sample");
    let game_group = map.add_group(NewGroup::new("Game")).expect("a group");
    let mut game = vec![Tile::default(); W * H];
    game[1] = Tile {
        id: STOP,
        flags: 8,
        ..Tile::default()
    }; // (1, 0) blocks left
    game[W + 2] = Tile {
        id: CP,
        flags: 0,
        ..Tile::default()
    }; // (2, 1) pushes up
    game[2 * W + 3] = Tile {
        id: 191 + 16,
        ..Tile::default()
    }; // (3, 2) slow clockwise laser
    game[3 * W] = Tile {
        id: 1,
        ..Tile::default()
    };
    let grid = Grid::new(W, H, game).expect("a grid");
    map.add_layer(game_group, Layer::new_game(grid).expect("a game layer"))
        .expect("added");
    let mut speed = vec![Speedup::default(); W * H];
    speed[W + 1] = Speedup {
        force: 10,
        id: 29,
        ..Speedup::default()
    };
    speed[W + 1].set_angle(30);
    let grid = Grid::new(W, H, speed).expect("a grid");
    map.add_layer(game_group, Layer::new_speedup(grid).expect("a layer"))
        .expect("added");
    let mut switch = vec![Switch::default(); W * H];
    switch[2 * W + 4] = Switch {
        number: 3,
        id: STOP,
        flags: 3,
        delay: 0,
    };
    let grid = Grid::new(W, H, switch).expect("a grid");
    map.add_layer(game_group, Layer::new_switch(grid).expect("a layer"))
        .expect("added");
    let back = map
        .insert_group(
            0,
            NewGroup {
                offset: Point { x: 10, y: -20 },
                parallax: Point { x: 50, y: 30 },
                ..NewGroup::new("Back")
            },
        )
        .expect("a group");
    let tiles = |w: usize, h: usize, seed: u8| {
        let tiles = (0..w * h).map(|i| Tile {
            id: seed + i as u8,
            ..Tile::default()
        });
        Grid::new(w, h, tiles.collect()).expect("a grid")
    };
    map.add_layer(
        back,
        Layer::new_tiles("a", tiles(5, 3, 1)).expect("a layer"),
    )
    .expect("added");
    map.add_layer(
        back,
        Layer::new_tiles("b", tiles(3, 5, 100)).expect("a layer"),
    )
    .expect("added");
    let quad = twcodec_testkit::sample::quad(
        [
            (0, 0),
            (64 * 1024, 0),
            (0, 32 * 1024),
            (64 * 1024, 32 * 1024),
        ],
        [255, 255, 255, 255],
    );
    map.add_layer(back, Layer::new_quads("q", vec![quad]).expect("a layer"))
        .expect("added");
    // Written and read back, as a loaded map.
    Map::parse(&map.to_bytes().expect("written")).expect("read")
}

fn game(map: &Map) -> Grid<Tile> {
    map.game_layer()
        .expect("a game layer")
        .1
        .grid()
        .expect("tiles")
        .clone()
}

fn layer_of<'m>(map: &'m Map, kind: &str) -> &'m Layer {
    map.layers()
        .iter()
        .rev()
        .find(|l| l.kind_name() == kind)
        .expect("the layer")
}

#[test]
fn a_mirrored_map_plays_mirrored() {
    let before = small_map();
    for t in Transform::ALL {
        let mut map = before.clone();
        map.transform(t).expect("transformed");
        let map = Map::parse(&map.to_bytes().expect("written")).expect("read");
        let old = game(&before);
        let new = game(&map);
        let (nw, nh) = if t.swaps_axes() { (H, W) } else { (W, H) };
        assert_eq!((new.width(), new.height()), (nw, nh), "{t:?}");
        // Where each old cell went (cell centers through the transform).
        let place = |x: usize, y: usize| -> (usize, usize) {
            let (x, y) = (x as i64, y as i64);
            let (w, h) = (W as i64 - 1, H as i64 - 1);
            let (px, py) = match t {
                Transform::MirrorX => (w - x, y),
                Transform::FlipY => (x, h - y),
                Transform::Rotate90 => (h - y, x),
                Transform::Rotate180 => (w - x, h - y),
                _ => (y, w - x),
            };
            (px as usize, py as usize)
        };
        for y in 0..H {
            for x in 0..W {
                let a = old.get(x, y).expect("a tile");
                let (px, py) = place(x, y);
                let b = new.get(px, py).expect("a tile");
                let want: BTreeSet<Dir> =
                    blocks(a.id, a.flags).iter().map(|d| d.turned(t)).collect();
                assert_eq!(blocks(b.id, b.flags), want, "{t:?} at ({x}, {y})");
                if a.id == CP {
                    let dir = exact_direction(a.flags).map(|d| d.turned(t));
                    assert_eq!(exact_direction(b.flags), dir, "{t:?}");
                }
                if a.id == 191 + 16 {
                    let id = if t.is_reflection() {
                        191 + 14
                    } else {
                        191 + 16
                    };
                    assert_eq!(b.id, id, "{t:?}: the laser's sense");
                }
            }
        }
        // The speedup at (1, 1) with angle 30 moved and turned.
        let LayerContent::Speedup(speedups) = layer_of(&map, "speedup").content() else {
            panic!("a speedup layer");
        };
        let (px, py) = place(1, 1);
        let s = speedups.grid().expect("tiles").get(px, py).expect("a tile");
        assert_eq!((s.force, s.angle()), (10, t.speedup_angle(30)), "{t:?}");
        // The switch layer's stopper too.
        let LayerContent::Switch(switches) = layer_of(&map, "switch").content() else {
            panic!("a switch layer");
        };
        let (px, py) = place(4, 2);
        let s = switches.grid().expect("tiles").get(px, py).expect("a tile");
        let want: BTreeSet<Dir> = blocks(STOP, 3).iter().map(|d| d.turned(t)).collect();
        assert_eq!((s.number, blocks(s.id, s.flags)), (3, want), "{t:?}");
        assert!(map.problems().is_empty(), "{t:?}: {:?}", map.problems());
    }
}

/// Where a group point `p` (world units) shows relative to the screen center for a camera at
/// `c` in game coordinates: `p - offset - c * parallax / 100` (DDNet `MapScreenToWorld`).
fn on_screen(group: &Group, p: (f64, f64), c: (f64, f64)) -> (f64, f64) {
    let g = group.item();
    (
        p.0 - f64::from(g.offset.x) - c.0 * f64::from(g.parallax.x) / 100.0,
        p.1 - f64::from(g.offset.y) - c.1 * f64::from(g.parallax.y) / 100.0,
    )
}

#[test]
fn parallax_groups_show_where_the_transformed_camera_sees_them() {
    // The background group (tiles and a quad) and a group of a quad alone, whose offset and
    // points are free to choose.
    let mut before = small_map();
    let alone = before
        .add_group(NewGroup {
            offset: Point { x: 5, y: 7 },
            parallax: Point { x: 70, y: 40 },
            ..NewGroup::new("Clouds")
        })
        .expect("a group");
    let quad = twcodec_testkit::sample::quad(
        [
            (0, 0),
            (3 * 1024, 0),
            (0, 5 * 1024),
            (100 * 1024, 33 * 1024),
        ],
        [255, 255, 255, 255],
    );
    before
        .add_layer(alone, Layer::new_quads("c", vec![quad]).expect("a layer"))
        .expect("added");
    let quad_layers: Vec<usize> = (before.layers().iter().enumerate())
        .filter(|(_, l)| l.kind_name() == "quads")
        .map(|(i, _)| i)
        .collect();
    let corner = |m: &Map, layer: usize| -> (f64, f64) {
        let LayerContent::Quads(q) = m.layers()[layer].content() else {
            unreachable!()
        };
        let p = q.quads().expect("quads")[0].points[3];
        (f64::from(p.x) / 1024.0, f64::from(p.y) / 1024.0)
    };
    let (ww, wh) = (32.0 * W as f64, 32.0 * H as f64);
    for t in Transform::ALL {
        let mut map = before.clone();
        map.transform(t).expect("transformed");
        for (&layer, group) in quad_layers.iter().zip([0, 2]) {
            for camera in [(0.0, 0.0), (50.0, 70.0), (ww, wh)] {
                let moved_camera = match t {
                    Transform::MirrorX => (ww - camera.0, camera.1),
                    Transform::FlipY => (camera.0, wh - camera.1),
                    Transform::Rotate90 => (wh - camera.1, camera.0),
                    Transform::Rotate180 => (ww - camera.0, wh - camera.1),
                    _ => (camera.1, ww - camera.0),
                };
                let s = on_screen(&before.groups()[group], corner(&before, layer), camera);
                let want = match t {
                    Transform::MirrorX => (-s.0, s.1),
                    Transform::FlipY => (s.0, -s.1),
                    Transform::Rotate90 => (-s.1, s.0),
                    Transform::Rotate180 => (-s.0, -s.1),
                    _ => (s.1, -s.0),
                };
                let got = on_screen(&map.groups()[group], corner(&map, layer), moved_camera);
                // Offsets are whole pixels: at most half a pixel off per axis.
                assert!(
                    (got.0 - want.0).abs() <= 0.5 && (got.1 - want.1).abs() <= 0.5,
                    "{t:?} group {group} camera {camera:?}: {got:?} != {want:?}"
                );
            }
        }
    }
}

#[test]
fn narrower_layers_are_extended_with_their_edge() {
    let mut map = small_map();
    map.transform(Transform::MirrorX).expect("mirrored");
    let layer = map
        .layers()
        .iter()
        .find(|l| l.name() == "b")
        .expect("layer b");
    let LayerContent::Tiles(t) = layer.content() else {
        panic!("tiles")
    };
    let grid = t.grid().expect("tiles");
    // 3x5 extended to the group's 5 columns with copies of its last column, then mirrored.
    assert_eq!((grid.width(), grid.height()), (5, 5));
    let row: Vec<u8> = (0..5).map(|x| grid.get(x, 0).expect("a tile").id).collect();
    assert_eq!(row, [102, 102, 102, 101, 100]);
}

#[test]
fn rotating_needs_physics_layers_of_the_game_size() {
    let mut map = small_map();
    // A tiles layer in the game group taller than the game layer, between two physics layers:
    // flipping it has no place, and moving it out would change the draw order.
    let game_group = map.refs::<Group>().nth(1).expect("the game group");
    let tall = Grid::filled(W, H + 2, Tile::default()).expect("a grid");
    map.insert_layer(
        game_group,
        1,
        Layer::new_tiles("tall", tall).expect("a layer"),
    )
    .expect("added");
    let before = map.to_bytes().expect("written");
    let error = map.transform(Transform::FlipY).expect_err("refused");
    assert_eq!(error.kind(), ErrorKind::InvalidEdit);
    assert!(
        error
            .message()
            .contains("larger than the 6x4 game layer between two physics layers"),
        "{}",
        error.message()
    );
    assert_eq!(
        map.to_bytes().expect("written"),
        before,
        "the map is unchanged"
    );
    // Mirroring only needs the width.
    map.transform(Transform::MirrorX).expect("mirrored");
}

// ---------------------------------------------------------------------------------------------
// Reframing and time.

#[test]
fn extending_then_cropping_gives_the_map_back() {
    let before = small_map();
    for g in 0..2 {
        let mut map = before.clone();
        let group = map.refs::<Group>().nth(g).expect("a group");
        let margins = Margins {
            left: 2,
            top: 1,
            right: 3,
            bottom: 0,
        };
        map.reframe(group, margins).expect("extended");
        if g == 1 {
            // The game layer grew, with air; the world moved right by 2 tiles and down by 1.
            let grid = game(&map);
            assert_eq!((grid.width(), grid.height()), (W + 5, H + 1));
            assert_eq!(grid.get(3, 1).expect("a tile").id, STOP);
            assert_eq!(grid.get(0, 0).expect("a tile").id, 0);
            let back = &map.groups()[0].item();
            assert_eq!(
                back.offset,
                Point {
                    x: 10 - 32,
                    y: -20 - 10
                }
            );
        }
        let map = Map::parse(&map.to_bytes().expect("written")).expect("read");
        let mut map = map;
        let group = map.refs::<Group>().nth(g).expect("a group");
        map.reframe(group, margins.inverse()).expect("cropped");
        assert_eq!(print(&map), print(&before), "group {g}");
    }
}

#[test]
fn crop_and_shift() {
    let mut map = small_map();
    let game_group = map.refs::<Group>().nth(1).expect("the game group");
    assert_eq!(map.group_frame(game_group), Some((W as i32, H as i32)));
    let unchanged = map.to_bytes().expect("written");
    for (rect, message) in [
        (
            (4, 0, 3, 2),
            "the rectangle 3x2 at (4, 0) is not inside group #1's 6x4 tiles",
        ),
        (
            (-1, 0, 2, 2),
            "the rectangle 2x2 at (-1, 0) is not inside group #1's 6x4 tiles",
        ),
        (
            (0, 0, 1, 3),
            "the rectangle 1x3 is smaller than DDNet's 2x2 minimum",
        ),
    ] {
        let (x, y, w, h) = rect;
        let error = map.crop(game_group, x, y, w, h).expect_err("refused");
        assert_eq!(
            (error.kind(), error.message()),
            (ErrorKind::InvalidEdit, message)
        );
        assert_eq!(map.to_bytes().expect("written"), unchanged);
    }
    map.crop(game_group, 1, 0, 4, 3).expect("cropped");
    let grid = game(&map);
    assert_eq!((grid.width(), grid.height()), (4, 3));
    assert_eq!(grid.get(0, 0).expect("a tile").id, STOP);
    map.shift(game_group, 1, 0).expect("shifted");
    let grid = game(&map);
    assert_eq!((grid.width(), grid.height()), (4, 3));
    assert_eq!(grid.get(1, 0).expect("a tile").id, STOP);
    assert_eq!(grid.get(0, 0).expect("a tile").id, 0, "air comes in");
    let quads = map.add_group(NewGroup::new("Quads only")).expect("a group");
    let error = map
        .reframe(quads, Margins::uniform(1))
        .expect_err("refused");
    assert_eq!(error.message(), "group #2 has no tile layers to reframe");
}

#[test]
fn time_scales_and_scales_back() {
    let Some(paths) = corpus_maps() else { return };
    let path = paths
        .iter()
        .find(|p| p.ends_with("mrpg_rhythm_Lily_bezier.map"))
        .expect("the bezier map");
    let before = Map::open(path).expect("loaded");
    let mut map = before.clone();
    map.scale_time(2.0).expect("slower");
    let slow = Map::parse(&map.to_bytes().expect("written")).expect("read");
    let (a, b) = (
        before.envelope_points().expect("points"),
        slow.envelope_points().expect("points"),
    );
    let last = |p: &[EnvPoint]| p.iter().map(|p| p.time).max().unwrap_or(0);
    assert_eq!(last(b.points()), 2 * last(a.points()));
    let mut map = slow;
    map.scale_time(0.5).expect("faster");
    assert_eq!(print(&map), print(&before));
    for factor in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let error = map.scale_time(factor).expect_err("refused");
        assert_eq!(
            error.message(),
            format!("a time factor must be a finite number above 0, not {factor}")
        );
    }
    let error = map.scale_time(1e-9).expect_err("points would merge");
    assert!(
        error.message().contains("would both be at 0 ms"),
        "{}",
        error.message()
    );
    let error = map.scale_time(1e12).expect_err("too large");
    assert!(
        error.message().contains("beyond the ints a map stores"),
        "{}",
        error.message()
    );
    assert_eq!(print(&map), print(&before), "refused edits change nothing");
}

// ---------------------------------------------------------------------------------------------
// Round trips on every corpus map.

/// A layer's content and fields, its data indices left out.
#[derive(Debug, Clone, PartialEq)]
struct LayerPrint {
    header: String,
    item: String,
    size: (usize, usize),
    tile_size: usize,
    tiles: Vec<u8>,
    quads: Option<Vec<Quad>>,
    sources: Option<Vec<SoundSource>>,
}

/// What a map holds, for comparing maps edited different ways.
#[derive(Debug, Clone, PartialEq)]
struct Print {
    groups: Vec<String>,
    layers: Vec<LayerPrint>,
    envelopes: Vec<String>,
    points: Vec<EnvPoint>,
    bezier: Option<Vec<EnvPointBezier>>,
}

fn grid_print<T: TileKind>(grid: Option<&Grid<T>>) -> ((usize, usize), usize, Vec<u8>) {
    match grid {
        Some(g) => (
            (g.width(), g.height()),
            std::mem::size_of::<T>(),
            tiles_as_bytes(g.tiles()).to_vec(),
        ),
        None => ((0, 0), 0, Vec::new()),
    }
}

fn print(map: &Map) -> Print {
    let layers = map.layers().iter().map(|layer| {
        let item = layer.tilemap().map(|t| {
            let mut t = t.clone();
            (t.data, t.width, t.height) = (0, 0, 0);
            t.physics = Default::default();
            t.version = 0;
            format!("{t:?}")
        });
        let (size, tile_size, tiles) = match layer.content() {
            LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => {
                grid_print(t.grid())
            }
            LayerContent::Tele(t) => grid_print(t.grid()),
            LayerContent::Speedup(t) => {
                // Angles come back in 0..=359.
                let grid = t.grid().map(|g| {
                    let mut g = g.clone();
                    for s in g.tiles_mut() {
                        s.set_angle((i32::from(s.angle()).rem_euclid(360)) as i16);
                    }
                    g
                });
                grid_print(grid.as_ref())
            }
            LayerContent::Switch(t) => grid_print(t.grid()),
            LayerContent::Tune(t) => grid_print(t.grid()),
            _ => ((0, 0), 0, Vec::new()),
        };
        let (quads, sources) = match layer.content() {
            LayerContent::Quads(q) => (q.quads().map(<[Quad]>::to_vec), None),
            LayerContent::Sounds(s) => (None, s.sources().map(<[SoundSource]>::to_vec)),
            _ => (None, None),
        };
        LayerPrint {
            header: format!("{:?}", layer.header().flags),
            item: item.unwrap_or_else(|| layer.kind_name().to_string()),
            size,
            tile_size,
            tiles,
            quads,
            sources,
        }
    });
    let points = map.envelope_points();
    Print {
        groups: map
            .groups()
            .iter()
            .map(|g| format!("{:?}", g.item()))
            .collect(),
        layers: layers.collect(),
        envelopes: map
            .envelopes()
            .iter()
            .map(|e| format!("{:?}", e.item()))
            .collect(),
        points: points.map(|p| p.points().to_vec()).unwrap_or_default(),
        bezier: points.and_then(|p| p.bezier().map(<[EnvPointBezier]>::to_vec)),
    }
}

/// Whether `back` is `orig` with some tile layers extended at the right and bottom by copies
/// of their last column and row (what a transform does to the smaller layers of a group).
fn same_but_extended(orig: &Print, back: &Print) -> Result<(), String> {
    let strip = |p: &Print| Print {
        layers: p
            .layers
            .iter()
            .map(|l| LayerPrint {
                size: (0, 0),
                tiles: Vec::new(),
                ..l.clone()
            })
            .collect(),
        ..p.clone()
    };
    if strip(orig) != strip(back) {
        return Err("the maps differ beyond their tiles".into());
    }
    for (i, (a, b)) in orig.layers.iter().zip(&back.layers).enumerate() {
        if a.size == b.size {
            if a.tiles != b.tiles {
                return Err(format!("layer #{i}'s tiles differ"));
            }
            continue;
        }
        let ((w, h), (bw, bh), n) = (a.size, b.size, a.tile_size);
        if bw < w || bh < h || w == 0 || h == 0 {
            return Err(format!("layer #{i} is {bw}x{bh}, was {w}x{h}"));
        }
        for y in 0..bh {
            for x in 0..bw {
                let (sx, sy) = (x.min(w - 1), y.min(h - 1));
                let want = &a.tiles[(sy * w + sx) * n..][..n];
                let got = &b.tiles[(y * bw + x) * n..][..n];
                if want != got {
                    return Err(format!(
                        "layer #{i}'s tile ({x}, {y}) is not ({sx}, {sy})'s"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The problems of a map as text without numbers (item numbers and byte offsets change when
/// an edited map is written: a duplicate UUID index item of the input moves, for one).
fn problems(map: &Map) -> BTreeSet<String> {
    let problems = map.problems();
    problems
        .iter()
        .map(|p| {
            let message = p.message.split(" (at byte").next().unwrap_or_default();
            let text = format!("{:?} {:?} {message}", p.severity, p.field);
            text.chars().filter(|c| !c.is_ascii_digit()).collect()
        })
        .collect()
}

/// A print whose groups are, for each layer, how its group draws it (DDNet draws the game
/// group at offset 0, parallax 100, unclipped, whatever it stores), and the group's name.
fn as_drawn(map: &Map, mut print: Print) -> Print {
    let game = map.game_layer().and_then(|(l, _)| map.group_of(l));
    print.groups = (map.refs::<Layer>())
        .map(|layer| {
            let Some(group) = map.group_of(layer) else {
                return "none".to_string();
            };
            let item = map.get(group).expect("a group").item();
            if Some(group) == game {
                format!("offset 0,0 parallax 100,100 unclipped {:?}", item.name)
            } else {
                let clip = match item.clip.filter(|c| c.enabled != 0) {
                    Some(clip) => format!("{clip:?}"),
                    None => "unclipped".to_string(),
                };
                format!(
                    "offset {},{} parallax {},{} {clip} {:?}",
                    item.offset.x, item.offset.y, item.parallax.x, item.parallax.y, item.name
                )
            }
        })
        .collect();
    print
}

/// Transforms by each of `steps`, then writes and reads the map back.
fn run(map: &Map, steps: &[Transform]) -> Result<Map, twcodec::Error> {
    let mut map = map.clone();
    for &t in steps {
        map.transform(t)?;
    }
    Map::parse(&map.to_bytes()?)
}

/// On every corpus map: mirror twice, flip twice, rotate 90 four times and 180 twice give the
/// map back (tile layers a transform extended to their group's size, extended by their edge),
/// and a second round from the first result gives it back exactly; every output loads without
/// a problem the input did not have. A transform that refuses a map changes nothing, and only
/// the maps listed here are refused.
#[test]
fn corpus_round_trips() {
    let Some(paths) = corpus_maps() else { return };
    let rounds: [&[Transform]; 5] = [
        &[Transform::MirrorX, Transform::MirrorX],
        &[Transform::FlipY, Transform::FlipY],
        &[Transform::Rotate90; 4],
        &[Transform::Rotate180, Transform::Rotate180],
        &[Transform::Rotate270, Transform::Rotate90],
    ];
    let refused: Vec<String> = paths
        .par_iter()
        .flat_map_iter(|path| {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let map = Map::open(path).unwrap_or_else(|e| panic!("{name}: {e}"));
            let orig = print(&map);
            let orig_problems = problems(&Map::parse(&map.to_bytes().unwrap()).unwrap());
            let mut refused = Vec::new();
            for steps in rounds {
                let back = match run(&map, steps) {
                    Ok(back) => back,
                    Err(error) => {
                        assert_eq!(error.kind(), ErrorKind::InvalidEdit, "{name}: {error}");
                        let mut tried = map.clone();
                        if tried.transform(steps[0]).is_err() {
                            assert!(print(&tried) == orig, "{name}: a refused edit changed it");
                        }
                        let reason = if error.message().contains("between two physics layers") {
                            "a tiles layer larger than the game layer between physics layers"
                        } else if error.message().contains("beyond the ints a map stores") {
                            "a position leaves the i32 range"
                        } else {
                            panic!("{name} {steps:?}: {error}")
                        };
                        refused.push(format!("{name}: {reason}"));
                        continue;
                    }
                };
                // Layers of the game group larger than the game layer moved to groups of
                // their own, drawn as the game group is drawn.
                let (orig, got) = if back.groups().len() == map.groups().len() {
                    (orig.clone(), print(&back))
                } else {
                    (as_drawn(&map, orig.clone()), as_drawn(&back, print(&back)))
                };
                same_but_extended(&orig, &got).unwrap_or_else(|e| panic!("{name} {steps:?}: {e}"));
                let new = problems(&back);
                let extra: Vec<_> = new.difference(&orig_problems).collect();
                assert!(extra.is_empty(), "{name} {steps:?}: new problems {extra:?}");
                // After two steps every group's layers are extended to its size on both axes
                // a transform needs, so a round from there is exact (checked for one
                // reflection and the quarter turns; the others are their products).
                if matches!(steps[0], Transform::MirrorX | Transform::Rotate90) {
                    let first = run(&map, &steps[..2]).expect("the first steps");
                    let again = run(&first, steps).expect("a second round");
                    assert!(
                        print(&again) == print(&first),
                        "{name} {steps:?}: not exact"
                    );
                }
            }
            refused
        })
        .collect();
    let refused: BTreeSet<String> = refused.into_iter().collect();
    let expected: BTreeSet<String> = [
        // Tiles layers 650x460 between the 650x308 game layer and the front layer: they cannot
        // leave the game group without drawing in another order, so flipping is refused
        // (mirroring works).
        (
            "ddnetpp_survival_ext_sounds.map",
            "a tiles layer larger than the game layer between physics layers",
        ),
        // A quad at x = 2^31 - 2^21 (garbage): mirrored, it leaves the ints.
        (
            "infclass_half_provence_dup_env_ids.map",
            "a position leaves the i32 range",
        ),
    ]
    .iter()
    .filter(|(name, _)| paths.iter().any(|p| p.ends_with(name)))
    .map(|(name, reason)| format!("{name}: {reason}"))
    .collect();
    assert_eq!(refused, expected);
}

/// A corpus map whose game group holds tiles layers larger than the game layer after its
/// physics layers: transforming moves them, with the layers after them, to a group of their
/// own just after the game group, drawn as the game group is; mirroring back keeps that group.
#[test]
fn oversize_layers_of_a_corpus_game_group_move_to_a_group_of_their_own() {
    let Some(bytes) = common::corpus_map("ddnet_RaiNyMore2_from_demo.map") else {
        return;
    };
    let map = Map::parse(&bytes).expect("loaded");
    let game_group = |m: &Map| {
        let (layer, _) = m.game_layer().expect("a game layer");
        m.group_of(layer).expect("the game group").index()
    };
    let big = map.refs::<Layer>().nth(33).expect("layer #33");
    assert_eq!(map.group_of(big).map(|g| g.index()), Some(game_group(&map)));
    let mut mirrored = map.clone();
    mirrored.transform(Transform::MirrorX).expect("mirrored");
    assert_eq!(mirrored.groups().len(), map.groups().len() + 1);
    assert_eq!(game_group(&mirrored), game_group(&map));
    // Layers #33 (the first larger one, after the physics layers) to #38 (the last).
    let group_of = |m: &Map, i: usize| {
        let layer = m.refs::<Layer>().nth(i).expect("a layer");
        m.group_of(layer).expect("its group").index()
    };
    assert_eq!(group_of(&mirrored, 32), game_group(&map));
    for i in 33..=38 {
        assert_eq!(group_of(&mirrored, i), game_group(&map) + 1, "layer #{i}");
    }
    let big = mirrored.refs::<Layer>().nth(33).expect("layer #33");
    let group = mirrored.group_of(big).expect("its group");
    let item = mirrored.get(group).expect("a group").item();
    assert_eq!(item.parallax, Point { x: 100, y: 100 });
    assert_eq!(
        item.name,
        map.groups()[game_group(&map)].item().name,
        "named as the game group"
    );
    let back = run(&mirrored, &[Transform::MirrorX]).expect("mirrored back");
    assert_eq!(back.groups().len(), mirrored.groups().len());
    // The same picture, tile layers extended by their edge.
    same_but_extended(&as_drawn(&map, print(&map)), &as_drawn(&back, print(&back)))
        .unwrap_or_else(|e| panic!("{e}"));
}

// ---------------------------------------------------------------------------------------------
// Layers of the game group larger than the game layer, on a map built here.

/// A map whose game group holds a 30x20 tiles layer with content near its far corner, a 10x8
/// game layer and a 4x3 decoration tiles layer in front, behind a parallax group.
fn oversize_map() -> Map {
    let mut map = twcodec_testkit::sample::empty_map().expect("the sample");
    let back = map
        .add_group(NewGroup {
            parallax: Point { x: 50, y: 50 },
            ..NewGroup::new("Back")
        })
        .expect("a group");
    let sky = (0..25).map(|i| Tile {
        id: 200 + i as u8,
        ..Tile::default()
    });
    let sky = Grid::new(5, 5, sky.collect()).expect("a grid");
    map.add_layer(back, Layer::new_tiles("sky", sky).expect("a layer"))
        .expect("added");
    let game_group = map.add_group(NewGroup::new("Game")).expect("a group");
    let mut big = vec![Tile::default(); 30 * 20];
    for (n, (x, y)) in [(29, 19), (28, 19), (29, 17), (25, 18), (3, 2), (12, 9)]
        .into_iter()
        .enumerate()
    {
        big[y * 30 + x] = Tile {
            id: 10 + n as u8,
            flags: n as u8 % 4,
            ..Tile::default()
        };
    }
    let big = Grid::new(30, 20, big).expect("a grid");
    map.add_layer(game_group, Layer::new_tiles("big", big).expect("a layer"))
        .expect("added");
    let mut game = vec![Tile::default(); 10 * 8];
    game[2 * 10 + 1] = Tile {
        id: 1,
        ..Tile::default()
    };
    game[7 * 10 + 9] = Tile {
        id: 2,
        ..Tile::default()
    };
    let game = Grid::new(10, 8, game).expect("a grid");
    map.add_layer(game_group, Layer::new_game(game).expect("a layer"))
        .expect("added");
    let deco = (0..12).map(|i| Tile {
        id: 100 + i as u8,
        flags: 8,
        ..Tile::default()
    });
    let deco = Grid::new(4, 3, deco.collect()).expect("a grid");
    map.add_layer(game_group, Layer::new_tiles("deco", deco).expect("a layer"))
        .expect("added");
    Map::parse(&map.to_bytes().expect("written")).expect("read")
}

/// The tile layer `name` draws at world tile (x, y) (for a group of parallax 100): world pixel
/// p shows the group's pixel p + offset (0 in the game group), a tile layer's edge tiles
/// repeated outward.
fn drawn(map: &Map, name: &str, x: i64, y: i64) -> (u8, u8) {
    let (index, layer) = (map.layers().iter().enumerate())
        .find(|(_, l)| l.name() == name)
        .expect("the layer");
    let layer_ref = map.refs::<Layer>().nth(index).expect("a layer");
    let group = map.group_of(layer_ref).expect("its group");
    let game = map.game_layer().and_then(|(l, _)| map.group_of(l));
    let item = map.get(group).expect("a group").item();
    let offset = if Some(group) == game {
        (0, 0)
    } else {
        assert_eq!(item.parallax, Point { x: 100, y: 100 }, "{name}");
        (i64::from(item.offset.x), i64::from(item.offset.y))
    };
    let grid = match layer.content() {
        LayerContent::Tiles(t) | LayerContent::Game(t) => t.grid().expect("tiles"),
        _ => panic!("{name}: not a tiles or game layer"),
    };
    let cell =
        |p: i64, o: i64, len: usize| ((p * 32 + 16 + o).div_euclid(32)).clamp(0, len as i64 - 1);
    let (cx, cy) = (
        cell(x, offset.0, grid.width()),
        cell(y, offset.1, grid.height()),
    );
    let tile = grid.get(cx as usize, cy as usize).expect("a tile");
    (tile.id, tile.flags)
}

/// The layers' names in draw order (by group, then by place in the group).
fn draw_order(map: &Map) -> Vec<String> {
    let mut order: Vec<(usize, usize, String)> = (map.refs::<Layer>())
        .zip(map.layers())
        .map(|(r, l)| {
            let group = map.group_of(r).map_or(usize::MAX, |g| g.index());
            (group, r.index(), l.name())
        })
        .collect();
    order.sort();
    order.into_iter().map(|(_, _, name)| name).collect()
}

#[test]
fn oversize_layers_of_the_game_group_move_to_a_group_of_their_own() {
    let before = oversize_map();
    let names = ["big", "Game", "deco"];
    for (t, offset) in [
        // The big layer's frame minus the game layer's, along the turned-over axis.
        (Transform::MirrorX, Point { x: 32 * 20, y: 0 }),
        (Transform::Rotate90, Point { x: 32 * 12, y: 0 }),
    ] {
        let mut map = before.clone();
        map.transform(t).expect("transformed");
        let map = Map::parse(&map.to_bytes().expect("written")).expect("read");
        assert!(map.problems().is_empty(), "{t:?}: {:?}", map.problems());
        assert_eq!(draw_order(&map), draw_order(&before), "{t:?}");
        assert_eq!(map.groups().len(), 3, "{t:?}");
        let big = map.refs::<Layer>().nth(1).expect("the big layer");
        let group = map.group_of(big).expect("its group");
        assert_eq!(group.index(), 1, "{t:?}: just before the game group");
        let item = map.get(group).expect("a group").item();
        assert_eq!(
            (item.parallax, item.offset),
            (Point { x: 100, y: 100 }, offset),
            "{t:?}"
        );
        assert_eq!(item.clip.map(|c| c.enabled), Some(0), "{t:?}");
        let game = map.game_layer().expect("a game layer").0;
        assert_eq!(map.group_of(game).map(|g| g.index()), Some(2), "{t:?}");
        // Each world tile shows where the transform puts it, turned.
        let place = |x: i64, y: i64| match t {
            Transform::MirrorX => (9 - x, y),
            _ => (7 - y, x),
        };
        for name in names {
            for y in -12..40 {
                for x in -12..40 {
                    let (id, flags) = drawn(&before, name, x, y);
                    let flags = if name == "Game" {
                        t.physics_flags(id, flags)
                    } else {
                        t.tile_flags(flags)
                    };
                    let (px, py) = place(x, y);
                    assert_eq!(
                        drawn(&map, name, px, py),
                        (id, flags),
                        "{t:?}: {name} at ({x}, {y})"
                    );
                }
            }
        }
    }
    // Mirrored twice, every layer draws the world it drew.
    let twice = run(&before, &[Transform::MirrorX, Transform::MirrorX]).expect("mirrored twice");
    assert_eq!(draw_order(&twice), draw_order(&before));
    for name in names {
        for y in -12..40 {
            for x in -12..40 {
                assert_eq!(
                    drawn(&twice, name, x, y),
                    drawn(&before, name, x, y),
                    "{name} at ({x}, {y})"
                );
            }
        }
    }
}

/// On every corpus map: extending every group by a margin and cropping it off again, and
/// scaling time by 2 and by 0.5, give the map back.
#[test]
fn corpus_reframe_and_time_round_trips() {
    let Some(paths) = corpus_maps() else { return };
    paths.par_iter().for_each(|path| {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let map = Map::open(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let orig = print(&map);
        let mut edited = map.clone();
        if edited.scale_time(2.0).is_ok() {
            let mut back = Map::parse(&edited.to_bytes().unwrap()).unwrap();
            back.scale_time(0.5)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(print(&back), orig, "{name}: time");
        }
        let margins = Margins {
            left: 1,
            top: 2,
            right: 3,
            bottom: 1,
        };
        for g in 0..map.groups().len() {
            let mut edited = map.clone();
            let group = edited.refs::<Group>().nth(g).unwrap();
            match edited.reframe(group, margins) {
                Ok(()) => {}
                Err(error) => {
                    assert_eq!(print(&edited), orig, "{name}: refused, yet changed");
                    assert_eq!(error.kind(), ErrorKind::InvalidEdit, "{name}: {error}");
                    continue;
                }
            }
            let mut back = Map::parse(&edited.to_bytes().unwrap()).unwrap();
            let group = back.refs::<Group>().nth(g).unwrap();
            back.reframe(group, margins.inverse())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(print(&back) == orig, "{name} group {g}: not the map it was");
        }
    });
}
