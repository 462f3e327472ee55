//! The picture of a map's changes (`twcodec_tools::visual_diff`, `twcodec diff --png`) and the
//! render options it brought (`render --thumbnail`, `--crop`): edits made here to maps built
//! with the editing API, the outlines found in the pictures where the camera puts the changes,
//! a golden picture, hostile maps, and the CLI.

mod common;
#[path = "common/golden.rs"]
mod golden;

use std::process::{Command, Output};

use twcodec::map::{Grid, Group, ItemRef, Layer, LayerContent, NewGroup};
use twcodec::schema::map::quad::Quad;
use twcodec::schema::map::tile::Tile;
use twcodec::schema::map::{Color, Point};
use twcodec::{ErrorKind, Limits, Map};
use twcodec_tools::assets::Picture;
use twcodec_tools::render::thumbnail::Thumbnail;
use twcodec_tools::render::{GroupView, Size};
use twcodec_tools::visual_diff::{
    changes, visual_diff, Area, ChangeKind, Layout, Mark, MarkShape, Shape, Side, VisualDiff,
    VisualDiffOptions, MAX_REGIONS,
};

// ---------------------------------------------------------------------------------------------
// Maps

/// The generated tileset: 16 x 16 cells of 8 pixels, each a plain color of its own (none of
/// them an outline color).
fn tileset() -> Vec<u8> {
    let mut rgba = Vec::new();
    for y in 0..128usize {
        for x in 0..128usize {
            let cell = (y / 8) * 16 + x / 8;
            rgba.extend([
                (cell * 37 % 200 + 20) as u8,
                90,
                (cell * 11 % 100 + 120) as u8,
                255,
            ]);
        }
    }
    rgba
}

fn tile(id: u8) -> Tile {
    Tile {
        id,
        ..Tile::default()
    }
}

/// A map with a game group holding a game layer of 60 x 40 tiles (a floor along row 30), a
/// tiles layer "Design" drawn with the generated tileset (blocks at 10..14 x 8..11 and
/// 30..33 x 20..22, tile ids 1 and 2) and a quads layer "Quads" with one quad over tiles
/// (40, 5) to (44, 8).
fn base() -> Map {
    let mut map = twcodec_testkit::sample::empty_map().unwrap();
    let group = map.add_group(NewGroup::new("Game")).unwrap();
    let mut game = Grid::filled(60, 40, Tile::default()).unwrap();
    for x in 0..60 {
        *game.get_mut(x, 30).unwrap() = tile(1);
    }
    map.add_layer(group, Layer::new_game(game).unwrap())
        .unwrap();
    let mut design = Grid::filled(60, 40, Tile::default()).unwrap();
    for (x, y, id) in block(10, 8, 4, 3, 1).chain(block(30, 20, 3, 2, 2)) {
        *design.get_mut(x, y).unwrap() = tile(id);
    }
    let image = map
        .add_embedded_image("tileset", 128, 128, tileset())
        .unwrap();
    let layer = map
        .add_layer(group, Layer::new_tiles("Design", design).unwrap())
        .unwrap();
    map.set_layer_image(layer, Some(image)).unwrap();
    let quads = vec![quad(40.0, 5.0, 4.0, 3.0)];
    map.add_layer(group, Layer::new_quads("Quads", quads).unwrap())
        .unwrap();
    map
}

/// The tiles `(x, y, id)` of a `w` x `h` block at `(x, y)`.
fn block(
    x: usize,
    y: usize,
    w: usize,
    h: usize,
    id: u8,
) -> impl Iterator<Item = (usize, usize, u8)> {
    (y..y + h).flat_map(move |y| (x..x + w).map(move |x| (x, y, id)))
}

/// A quad over the tiles `x, y, w, h`, opaque white.
fn quad(x: f64, y: f64, w: f64, h: f64) -> Quad {
    let p = |x: f64, y: f64| Point {
        x: (x * 32.0 * 1024.0) as i32,
        y: (y * 32.0 * 1024.0) as i32,
    };
    let mut q = twcodec_testkit::sample::quad([(0, 0); 4], [255, 255, 255, 255]);
    q.points = [
        p(x, y),
        p(x + w, y),
        p(x, y + h),
        p(x + w, y + h),
        p(x + w / 2.0, y + h / 2.0),
    ];
    q
}

/// The layer named `name`.
fn layer(map: &Map, name: &str) -> ItemRef<Layer> {
    map.find_layer(name).unwrap()
}

/// Sets tile `(x, y)` of the tiles layer `name` to `id`.
fn set_tile(map: &mut Map, name: &str, x: usize, y: usize, id: u8) {
    let r = layer(map, name);
    match map.layer_mut(r).unwrap().content_mut() {
        LayerContent::Tiles(t) | LayerContent::Game(t) => {
            t.grid_mut().unwrap().get_mut(x, y).unwrap().id = id;
        }
        _ => panic!("{name} is not a tiles layer"),
    }
}

fn options() -> VisualDiffOptions {
    VisualDiffOptions::default()
        .width(800)
        .mapres(None)
        .entities_tileset(None)
}

#[track_caller]
fn draw(old: &Map, new: &Map, options: &VisualDiffOptions) -> VisualDiff {
    let drawn = visual_diff(old, new, options).unwrap();
    assert!(drawn.warnings.is_empty(), "{:?}", drawn.warnings);
    assert_eq!(
        drawn.picture.rgba.len(),
        (drawn.picture.width * drawn.picture.height * 4) as usize
    );
    drawn
}

// ---------------------------------------------------------------------------------------------
// Looking at the picture

/// The pixel box the tiles `x0..x1`, `y0..y1` (of the game group) cover in panel `panel`,
/// computed from the camera: left, top, right, bottom (ends excluded).
fn expected_box(drawn: &VisualDiff, panel: usize, [x0, y0, x1, y1]: [f64; 4]) -> [i64; 4] {
    let p = &drawn.panels[panel];
    let at = |x: f64, y: f64| {
        let (px, py) = p.camera.to_pixel(GroupView::GAME, x * 32.0, y * 32.0);
        [
            (px + f64::from(p.x)).round() as i64,
            (py + f64::from(p.y)).round() as i64,
        ]
    };
    let ([a, b], [c, d]) = (at(x0, y0), at(x1, y1));
    [a, b, c, d]
}

/// The pixels of `panel` that have `color` exactly.
fn pixels_of(
    picture: &Picture,
    drawn: &VisualDiff,
    panel: usize,
    color: [u8; 4],
) -> Vec<(i64, i64)> {
    let p = &drawn.panels[panel];
    let (w, h) = (p.camera.width(), p.camera.height());
    let mut found = Vec::new();
    for y in p.y..p.y + h {
        for x in p.x..p.x + w {
            let at = ((y * picture.width + x) * 4) as usize;
            if picture.rgba[at..at + 4] == color {
                found.push((i64::from(x), i64::from(y)));
            }
        }
    }
    found
}

/// The ring of width `t` just outside the box `[x0, y0, x1, y1]`.
fn ring([x0, y0, x1, y1]: [i64; 4], t: i64) -> Vec<(i64, i64)> {
    let mut ring = Vec::new();
    for y in y0 - t..y1 + t {
        for x in x0 - t..x1 + t {
            if !(x0..x1).contains(&x) || !(y0..y1).contains(&y) {
                ring.push((x, y));
            }
        }
    }
    ring
}

fn boxes(drawn: &VisualDiff, panel: usize, kind: ChangeKind) -> Vec<[i64; 4]> {
    let mut found: Vec<[i64; 4]> = (drawn.marks.iter())
        .filter(|m| m.panel == panel && m.kind == kind)
        .filter_map(|m| match m.shape {
            MarkShape::Box { x0, y0, x1, y1 } => Some([x0, y0, x1, y1]),
            _ => None,
        })
        .collect();
    found.sort();
    found
}

// ---------------------------------------------------------------------------------------------
// Tiles

#[test]
fn one_changed_tile_is_outlined_exactly_around_its_pixels() {
    let old = base();
    let mut new = old.clone();
    set_tile(&mut new, "Design", 11, 9, 5);
    let drawn = draw(&old, &new, &options());
    // Side by side, the same camera on both.
    assert_eq!(drawn.panels[0].camera, drawn.panels[1].camera);
    assert!(drawn.panels[1].x > drawn.panels[0].x + drawn.panels[0].camera.width() - 1);
    // The area: around the change, at least 20 x 12 tiles.
    let [x, y, w, h] = drawn.area;
    assert!(
        x < 11.0 && y < 9.0 && x + w > 12.0 && y + h > 10.0,
        "{:?}",
        drawn.area
    );
    assert!(w >= 20.0 && h >= 12.0, "{:?}", drawn.area);
    for panel in [0, 1] {
        let expected = expected_box(&drawn, panel, [11.0, 9.0, 12.0, 10.0]);
        // A tile is many pixels wide here: the box is the tile's pixels.
        assert!(expected[2] - expected[0] > 10, "{expected:?}");
        assert_eq!(boxes(&drawn, panel, ChangeKind::Changed), [expected]);
        assert!(boxes(&drawn, panel, ChangeKind::Added).is_empty());
        assert!(boxes(&drawn, panel, ChangeKind::Removed).is_empty());
        // The outline color lies exactly on the ring around those pixels.
        let mut found = pixels_of(&drawn.picture, &drawn, panel, ChangeKind::Changed.color());
        let mut ring = ring(expected, drawn.line);
        found.sort();
        ring.sort();
        assert_eq!(found, ring, "panel {panel}");
    }
    // In the text diff too.
    assert_eq!(drawn.changes.diff.tiles_changed(), 1);
}

#[test]
fn added_removed_and_changed_tiles_have_their_own_colors() {
    let old = base();
    let mut new = old.clone();
    set_tile(&mut new, "Design", 20, 12, 3); // added, in empty space
    for (x, y, _) in block(30, 20, 3, 2, 0) {
        set_tile(&mut new, "Design", x, y, 0); // the second block removed
    }
    set_tile(&mut new, "Design", 13, 10, 7); // changed
    let options = options().area(Area::Tiles {
        x: 5.0,
        y: 5.0,
        width: 32.0,
        height: 20.0,
    });
    let drawn = draw(&old, &new, &options);
    assert_eq!(drawn.area, [5.0, 5.0, 32.0, 20.0]);
    for panel in [0, 1] {
        let want = |tiles| vec![expected_box(&drawn, panel, tiles)];
        assert_eq!(
            boxes(&drawn, panel, ChangeKind::Added),
            want([20.0, 12.0, 21.0, 13.0])
        );
        assert_eq!(
            boxes(&drawn, panel, ChangeKind::Removed),
            want([30.0, 20.0, 33.0, 22.0])
        );
        assert_eq!(
            boxes(&drawn, panel, ChangeKind::Changed),
            want([13.0, 10.0, 14.0, 11.0])
        );
        for kind in [ChangeKind::Added, ChangeKind::Removed, ChangeKind::Changed] {
            let b = boxes(&drawn, panel, kind)[0];
            let mut found = pixels_of(&drawn.picture, &drawn, panel, kind.color());
            let mut ring = ring(b, drawn.line);
            found.sort();
            ring.sort();
            assert_eq!(found, ring, "{kind:?} in panel {panel}");
        }
    }
    // Tiles that changed in place are the same place in both maps: solid in both.
    assert!(drawn.changes.regions.iter().all(|r| r.side == Side::Both));
    assert!(drawn.marks.iter().all(|m| !m.dashed));
}

#[test]
fn a_recolored_layer_is_outlined_as_its_tiles() {
    let old = base();
    let mut new = old.clone();
    let design = layer(&new, "Design");
    new.set_layer_color(
        design,
        Color {
            r: 255,
            g: 0,
            b: 0,
            a: 255,
        },
    )
    .unwrap();
    let found = changes(&old, &new).unwrap();
    let mut tiles: Vec<[f64; 4]> = (found.regions.iter())
        .map(|r| {
            assert_eq!((r.kind, r.side), (ChangeKind::Changed, Side::Both));
            match r.shape {
                Shape::Tiles {
                    left,
                    top,
                    right,
                    bottom,
                } => [left / 32.0, top / 32.0, right / 32.0, bottom / 32.0],
                shape => panic!("{shape:?}"),
            }
        })
        .collect();
    tiles.sort_by(|a, b| a.partial_cmp(b).unwrap());
    // Exactly the two blocks of the layer.
    assert_eq!(tiles, [[10.0, 8.0, 14.0, 11.0], [30.0, 20.0, 33.0, 22.0]]);
    let drawn = draw(&old, &new, &options());
    for panel in [0, 1] {
        let mut want = vec![
            expected_box(&drawn, panel, [10.0, 8.0, 14.0, 11.0]),
            expected_box(&drawn, panel, [30.0, 20.0, 33.0, 22.0]),
        ];
        want.sort();
        assert_eq!(boxes(&drawn, panel, ChangeKind::Changed), want);
    }
    // The area holds both blocks.
    let [x, y, w, h] = drawn.area;
    assert!(
        x <= 10.0 && y <= 8.0 && x + w >= 33.0 && y + h >= 22.0,
        "{:?}",
        drawn.area
    );
}

// ---------------------------------------------------------------------------------------------
// Quads

#[test]
fn a_moved_quad_is_outlined_where_it_was_and_where_it_is() {
    let old = base();
    let mut new = old.clone();
    let r = layer(&new, "Quads");
    if let LayerContent::Quads(q) = new.layer_mut(r).unwrap().content_mut() {
        q.quads_mut().unwrap()[0] = quad(44.0, 9.0, 4.0, 3.0);
    }
    let drawn = draw(&old, &new, &options());
    let regions = &drawn.changes.regions;
    assert_eq!(regions.len(), 2, "{regions:?}");
    assert_eq!(
        (regions[0].kind, regions[0].side),
        (ChangeKind::Changed, Side::Old)
    );
    assert_eq!(
        (regions[1].kind, regions[1].side),
        (ChangeKind::Changed, Side::New)
    );
    // Both places in the area.
    let [x, y, w, h] = drawn.area;
    assert!(
        x <= 40.0 && y <= 5.0 && x + w >= 48.0 && y + h >= 12.0,
        "{:?}",
        drawn.area
    );
    // Each place in each picture: solid in its own map's, dashed in the other.
    let color = ChangeKind::Changed.color();
    for (panel, own, other) in [(0, (40.0, 5.0), (44.0, 9.0)), (1, (44.0, 9.0), (40.0, 5.0))] {
        let marks: Vec<&Mark> = drawn.marks.iter().filter(|m| m.panel == panel).collect();
        assert_eq!(marks.len(), 2);
        for ((qx, qy), dashed) in [(own, false), (other, true)] {
            let found = marks
                .iter()
                .find(|m| m.dashed == dashed)
                .unwrap_or_else(|| panic!("no {dashed} mark in panel {panel}"));
            let MarkShape::Quad { corners } = found.shape else {
                panic!("{found:?}");
            };
            let p = &drawn.panels[panel];
            let at = |x: f64, y: f64| {
                let (px, py) = p.camera.to_pixel(GroupView::GAME, x * 32.0, y * 32.0);
                [px + f64::from(p.x), py + f64::from(p.y)]
            };
            let expected = [
                at(qx, qy),
                at(qx + 4.0, qy),
                at(qx + 4.0, qy + 3.0),
                at(qx, qy + 3.0),
            ];
            for (c, e) in corners.iter().zip(expected) {
                assert!(
                    (c[0] - e[0]).abs() < 1e-6 && (c[1] - e[1]).abs() < 1e-6,
                    "{corners:?}"
                );
            }
            // Along the top edge: every pixel the outline color when solid, some when dashed.
            let (y0, xa, xb) = (
                expected[0][1].round() as u32,
                expected[0][0] as u32 + 2,
                expected[1][0] as u32 - 2,
            );
            let lit = (xa..xb)
                .filter(|&x| {
                    let at = ((y0 * drawn.picture.width + x) * 4) as usize;
                    drawn.picture.rgba[at..at + 4] == color
                })
                .count();
            let all = (xb - xa) as usize;
            match dashed {
                false => assert_eq!(lit, all, "solid top edge in panel {panel}"),
                true => assert!(lit > all / 4 && lit < all * 3 / 4, "dashed: {lit} of {all}"),
            }
        }
    }
}

#[test]
fn added_and_removed_layers_are_outlined_whole() {
    let old = base();
    let mut new = old.clone();
    let quads = layer(&new, "Quads");
    new.remove_layer(quads).unwrap();
    let group = new.refs::<Group>().next().unwrap();
    let mut grid = Grid::filled(60, 40, Tile::default()).unwrap();
    *grid.get_mut(2, 3).unwrap() = tile(4);
    new.add_layer(group, Layer::new_tiles("Added", grid).unwrap())
        .unwrap();
    let found = changes(&old, &new).unwrap();
    let kinds: Vec<(ChangeKind, Side)> = found.regions.iter().map(|r| (r.kind, r.side)).collect();
    assert_eq!(
        kinds,
        [
            (ChangeKind::Removed, Side::Old),
            (ChangeKind::Added, Side::New)
        ],
        "{:?}",
        found.regions
    );
    assert!(matches!(found.regions[0].shape, Shape::Quad { .. }));
    assert_eq!(
        found.regions[1].shape,
        Shape::Tiles {
            left: 64.0,
            top: 96.0,
            right: 96.0,
            bottom: 128.0
        }
    );
}

#[test]
fn equal_maps_have_no_outlines_and_show_the_whole_map() {
    let old = base();
    let drawn = draw(&old, &old.clone(), &options());
    assert!(drawn.marks.is_empty() && drawn.changes.regions.is_empty());
    assert!(drawn.changes.diff.is_empty());
    // 60 x 40 tiles: side by side at their own aspect.
    assert_eq!(drawn.area, [0.0, 0.0, 60.0, 40.0]);
}

#[test]
fn entities_view_outlines_physics_changes_only() {
    let old = base();
    let mut new = old.clone();
    set_tile(&mut new, "Game", 5, 30, 0);
    set_tile(&mut new, "Design", 11, 9, 5);
    let all = draw(&old, &new, &options());
    assert_eq!(all.marks.len(), 4);
    // Without an entities tileset: plain colors, and a warning saying so.
    let entities = visual_diff(&old, &new, &options().entities(true)).unwrap();
    assert_eq!(entities.warnings.len(), 2, "{:?}", entities.warnings);
    assert_eq!(entities.marks.len(), 2);
    assert!(entities.marks.iter().all(|m| m.kind == ChangeKind::Removed));
    for panel in [0, 1] {
        let want = expected_box(&entities, panel, [5.0, 30.0, 6.0, 31.0]);
        assert_eq!(boxes(&entities, panel, ChangeKind::Removed), [want]);
    }
}

#[test]
fn a_wide_area_is_stacked() {
    let old = base();
    let mut new = old.clone();
    set_tile(&mut new, "Design", 1, 2, 3);
    set_tile(&mut new, "Design", 58, 3, 3);
    let drawn = draw(&old, &new, &options());
    let [a, b] = &drawn.panels;
    assert_eq!(a.x, b.x);
    assert!(b.y > a.y + a.camera.height() - 1);
    assert_eq!(a.camera.width(), 800);
    let drawn = draw(&old, &new, &options().layout(Layout::SideBySide));
    assert!(drawn.panels[1].x > 0);
}

// ---------------------------------------------------------------------------------------------
// A golden picture

#[test]
fn visual_diff_golden() {
    let old = base();
    let mut new = old.clone();
    set_tile(&mut new, "Design", 20, 12, 3);
    set_tile(&mut new, "Design", 13, 10, 7);
    for (x, y, _) in block(30, 20, 3, 2, 0) {
        set_tile(&mut new, "Design", x, y, 0);
    }
    let r = layer(&new, "Quads");
    if let LayerContent::Quads(q) = new.layer_mut(r).unwrap().content_mut() {
        q.quads_mut().unwrap()[0] = quad(36.0, 9.0, 4.0, 3.0);
    }
    let drawn = draw(
        &old,
        &new,
        &options().width(960).labels("before.map", "after.map"),
    );
    golden::assert_golden("visual_diff", &drawn.picture);
}

// ---------------------------------------------------------------------------------------------
// Hostile maps

/// A map of one group with one tiles layer of `w` x `h` (its tiles `set`), no game layer.
fn tiles_only(w: usize, h: usize, set: &[(usize, usize)]) -> Map {
    let mut map = twcodec_testkit::sample::empty_map().unwrap();
    let group = map.add_group(NewGroup::new("Only")).unwrap();
    let mut grid = Grid::filled(w, h, Tile::default()).unwrap();
    for &(x, y) in set {
        *grid.get_mut(x, y).unwrap() = tile(1);
    }
    map.add_layer(group, Layer::new_tiles("T", grid).unwrap())
        .unwrap();
    map
}

#[test]
fn layers_of_different_sizes_and_no_game_layer() {
    let old = tiles_only(10, 10, &[(1, 1), (9, 9)]);
    let new = tiles_only(30, 5, &[(1, 1), (25, 4)]);
    let found = changes(&old, &new).unwrap();
    let mut kinds: Vec<(ChangeKind, [f64; 4])> = (found.regions.iter())
        .map(|r| match r.shape {
            Shape::Tiles {
                left,
                top,
                right,
                bottom,
            } => (
                r.kind,
                [left / 32.0, top / 32.0, right / 32.0, bottom / 32.0],
            ),
            shape => panic!("{shape:?}"),
        })
        .collect();
    kinds.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    assert_eq!(
        kinds,
        [
            (ChangeKind::Added, [25.0, 4.0, 26.0, 5.0]),
            (ChangeKind::Removed, [9.0, 9.0, 10.0, 10.0]),
        ]
    );
    for area in [Area::Changes, Area::Whole] {
        let drawn = draw(&old, &new, &options().area(area));
        assert_eq!(drawn.marks.len(), 4);
    }
    // Two maps with nothing at all.
    let empty = twcodec_testkit::sample::empty_map().unwrap();
    let drawn = draw(&empty, &empty.clone(), &options());
    assert!(drawn.marks.is_empty());
}

#[test]
fn scattered_changes_are_outlined_by_blocks() {
    // Every other tile of every other row: thousands of separate changes.
    let set: Vec<(usize, usize)> = (0..200)
        .step_by(2)
        .flat_map(|y| (0..200).step_by(2).map(move |x| (x, y)))
        .collect();
    let old = tiles_only(200, 200, &[]);
    let new = tiles_only(200, 200, &set);
    let found = changes(&old, &new).unwrap();
    assert!(!found.regions.is_empty() && found.regions.len() <= MAX_REGIONS);
    // Together they still cover every change.
    let covered = |x: f64, y: f64| {
        found.regions.iter().any(|r| match r.shape {
            Shape::Tiles {
                left,
                top,
                right,
                bottom,
            } => (left..right).contains(&(x * 32.0)) && (top..bottom).contains(&(y * 32.0)),
            _ => false,
        })
    };
    assert!(set.iter().all(|&(x, y)| covered(x as f64, y as f64)));
    draw(&old, &new, &options().width(200));
}

#[test]
fn hostile_quads_and_groups_stay_finite() {
    let old = base();
    let mut new = old.clone();
    let r = layer(&new, "Quads");
    if let LayerContent::Quads(q) = new.layer_mut(r).unwrap().content_mut() {
        let quads = q.quads_mut().unwrap();
        let mut far = quads[0];
        far.points = [
            Point {
                x: i32::MIN,
                y: i32::MIN,
            },
            Point {
                x: i32::MAX,
                y: i32::MIN,
            },
            Point {
                x: i32::MIN,
                y: i32::MAX,
            },
            Point {
                x: i32::MAX,
                y: i32::MAX,
            },
            Point { x: 0, y: 0 },
        ];
        quads.push(far);
        let mut point = quads[0];
        point.points = [Point { x: 7, y: 7 }; 5];
        quads.push(point);
    }
    // A group far away, its quad over the whole coordinate range.
    let group = new.add_group(NewGroup::new("Far")).unwrap();
    let far = quad(0.0, 0.0, 1.0, 1.0);
    new.add_layer(group, Layer::new_quads("Far", vec![far]).unwrap())
        .unwrap();
    new.set_group_offset(
        group,
        Point {
            x: i32::MAX,
            y: i32::MIN,
        },
    )
    .unwrap();
    for area in [Area::Changes, Area::Whole] {
        let drawn = draw(&old, &new, &options().area(area));
        assert!(drawn.area.iter().all(|v| v.is_finite()));
        assert!(!drawn.marks.is_empty());
    }
}

#[test]
fn big_maps_pass_the_work_limit_with_a_clear_error() {
    let old = tiles_only(2048, 2048, &[]);
    let new = tiles_only(2048, 2048, &[(2000, 2000)]);
    // Within the default limit.
    let found = changes(&old, &new).unwrap();
    assert_eq!(found.regions.len(), 1);
    assert!(found.work >= 2 * 2048 * 2048, "{}", found.work);
    // A lower limit, as a server drawing maps from strangers would set.
    let limits = Limits::default().with_max_render_work(1_000_000);
    let limited = |map: &Map| {
        let bytes = map.to_datafile().unwrap().to_vec().unwrap();
        let datafile = twcodec::Datafile::parse_with(&bytes, limits).unwrap();
        Map::from_datafile(&datafile).unwrap()
    };
    let error = visual_diff(&limited(&old), &limited(&new), &options()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert!(error.to_string().contains("max_render_work"), "{error}");
    // Pictures too big, or too small.
    let error = visual_diff(&old, &new, &options().width(200_000)).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{error}");
    let error = visual_diff(&old, &new, &options().width(10)).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidOptions, "{error}");
    let bad = Area::Tiles {
        x: f64::NAN,
        y: 0.0,
        width: 1.0,
        height: 1.0,
    };
    let error = visual_diff(&old, &new, &options().area(bad)).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidOptions, "{error}");
}

// ---------------------------------------------------------------------------------------------
// Thumbnails and crops (the library)

#[test]
fn thumbnail_presets_have_their_sizes_and_names() {
    let sizes: Vec<(String, Size)> = (Thumbnail::ALL.iter())
        .map(|t| (t.to_string(), t.size()))
        .collect();
    let pixels = |width, height| Size::Pixels { width, height };
    assert_eq!(
        sizes,
        [
            ("website".to_string(), pixels(360, 225)),
            ("screenshot".to_string(), pixels(1440, 900)),
            ("server-browser".to_string(), pixels(360, 225)),
            ("map-photography".to_string(), pixels(1920, 1080)),
        ]
    );
    for t in Thumbnail::ALL {
        assert_eq!(t.name().parse::<Thumbnail>(), Ok(t));
    }
    assert!("poster"
        .parse::<Thumbnail>()
        .unwrap_err()
        .contains("website"));
}

// ---------------------------------------------------------------------------------------------
// The CLI

fn twcodec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .env_remove("TWCODEC_MAPRES")
        .output()
        .expect("the twcodec binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn png_size(bytes: &[u8]) -> (u32, u32) {
    let picture = twcodec_tools::assets::decode_png(bytes, Limits::default()).unwrap();
    (picture.width, picture.height)
}

#[test]
fn cli_diff_png() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let old = base();
    let mut new = old.clone();
    set_tile(&mut new, "Design", 11, 9, 5);
    old.save(path("old.map")).unwrap();
    new.save(path("new.map")).unwrap();

    // The text diff as usual, the picture written, a note saying so.
    let output = twcodec(&[
        "diff",
        &path("old.map"),
        &path("new.map"),
        "--png",
        &path("d.png"),
        "--width",
        "640",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("layer #1 \"Design\""),
        "{}",
        text(&output.stdout)
    );
    assert!(
        text(&output.stderr).contains("drew the changes"),
        "{}",
        text(&output.stderr)
    );
    let bytes = std::fs::read(path("d.png")).unwrap();
    assert_eq!(png_size(&bytes).0, 640);

    // To standard output: the picture alone.
    let output = twcodec(&[
        "diff",
        &path("old.map"),
        &path("new.map"),
        "--png",
        "-",
        "--whole",
        "--width",
        "300",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(output.stdout.starts_with(b"\x89PNG"));
    assert_eq!(png_size(&output.stdout).0, 300);

    // Equal maps: exit 0, a picture all the same.
    let output = twcodec(&[
        "diff",
        &path("old.map"),
        &path("old.map"),
        "--png",
        &path("same.png"),
        "--entities",
        "--layout",
        "stacked",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(std::path::Path::new(&path("same.png")).is_file());

    // An area; usage errors.
    let output = twcodec(&[
        "diff",
        &path("old.map"),
        &path("new.map"),
        "--png",
        &path("a.png"),
        "--area",
        "0,0,30,20",
        "--width",
        "400",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    for bad in [
        vec!["--png", "x.png", "--area", "0,0,0,5"],
        vec!["--png", "x.png", "--area", "1,2,3"],
        vec!["--png", "x.png", "--area", "0,0,5,5", "--whole"],
        vec!["--whole"],
        vec!["--png", "x.png", "--layout", "diagonal"],
    ] {
        let mut args = vec!["diff", "a.map", "b.map"];
        args.extend(bad.iter().copied());
        let output = twcodec(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{bad:?}: {}",
            text(&output.stderr)
        );
    }
    let output = twcodec(&[
        "diff",
        &path("old.map"),
        &path("new.map"),
        "--png",
        &path("x.png"),
        "--width",
        "10",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(!std::path::Path::new(&path("x.png")).exists());
}

#[test]
fn cli_render_thumbnail_and_crop() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    base().save(path("m.map")).unwrap();
    for (preset, size) in [
        ("website", (360, 225)),
        ("server-browser", (360, 225)),
        ("screenshot", (1440, 900)),
        ("map-photography", (1920, 1080)),
    ] {
        let output = twcodec(&["render", &path("m.map"), "-o", "-", "--thumbnail", preset]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert_eq!(png_size(&output.stdout), size, "{preset}");
    }
    let output = twcodec(&[
        "render",
        &path("m.map"),
        "-o",
        "-",
        "--thumbnail",
        "website",
        "--camera",
        "30,20",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(png_size(&output.stdout), (360, 225));
    // A crop of 20 x 10 tiles at 10 pixels a tile; or at a width.
    let output = twcodec(&[
        "render",
        &path("m.map"),
        "-o",
        "-",
        "--crop",
        "10,8,20,10",
        "--scale",
        "10",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(png_size(&output.stdout), (200, 100));
    let output = twcodec(&[
        "render",
        &path("m.map"),
        "-o",
        "-",
        "--crop",
        "10,8,20,10",
        "--width",
        "100",
    ]);
    assert_eq!(png_size(&output.stdout), (100, 50));
    for bad in [
        vec!["--thumbnail", "poster"],
        vec!["--thumbnail", "website", "--width", "10"],
        vec!["--thumbnail", "website", "--scale", "2"],
        vec!["--crop", "0,0,-1,5"],
        vec!["--crop", "0,0,nan,5"],
        vec!["--crop", "0,0,5,5", "--camera", "1,1"],
    ] {
        let mut args = vec!["render", "m.map", "-o", "x.png"];
        args.extend(bad.iter().copied());
        let output = twcodec(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{bad:?}: {}",
            text(&output.stderr)
        );
    }
}

#[test]
fn a_crop_shows_exactly_its_tiles() {
    use twcodec_tools::render::{camera, render, RenderOptions, View};
    let map = base();
    let view = View::Tiles {
        x: 10.0,
        y: 8.0,
        width: 4.0,
        height: 3.0,
    };
    let options = RenderOptions::default()
        .mapres(None)
        .size(Size::Scale(8.0))
        .view(view);
    let rendered = render(&map, &options).unwrap();
    assert_eq!((rendered.picture.width, rendered.picture.height), (32, 24));
    // The crop is the first block: every pixel drawn from the tileset's cell 1.
    let cell = [37 + 20, 90, 11 + 120, 255];
    assert!(rendered.picture.rgba.chunks(4).all(|p| p == cell));
    let camera = camera(&map, &options).unwrap();
    let (x, y) = camera.to_pixel(GroupView::GAME, 14.0 * 32.0, 11.0 * 32.0);
    assert!(
        (x - 32.0).abs() < 1e-9 && (y - 24.0).abs() < 1e-9,
        "{x} {y}"
    );
}

/// The corpus: a real map and a copy with a game tile changed draw, outlined at the tile.
#[test]
fn a_corpus_map_with_a_changed_tile() {
    let Some(bytes) = common::corpus_map("ddnet_Sunny_Side_Up.map") else {
        return;
    };
    let old = Map::parse(&bytes).unwrap();
    let mut new = old.clone();
    let (game, _) = new.game_layer().unwrap();
    if let LayerContent::Game(t) = new.layer_mut(game).unwrap().content_mut() {
        let grid = t.grid_mut().unwrap();
        let tile = grid.get_mut(60, 20).unwrap();
        tile.id = if tile.id == 0 { 1 } else { 0 };
    }
    let drawn = visual_diff(&old, &new, &options().entities(true)).unwrap();
    assert_eq!(drawn.changes.regions.len(), 1);
    for panel in [0, 1] {
        let want = expected_box(&drawn, panel, [60.0, 20.0, 61.0, 21.0]);
        let found: Vec<[i64; 4]> = (drawn.marks.iter())
            .filter(|m| m.panel == panel)
            .map(|m| match m.shape {
                MarkShape::Box { x0, y0, x1, y1 } => [x0, y0, x1, y1],
                shape => panic!("{shape:?}"),
            })
            .collect();
        assert_eq!(found, [want]);
    }
}

/// The README's picture of a diff: Teeworlds' ctf5 from the corpus and an edit of it made with
/// `replace-area`, drawn by `twcodec diff --png` with the game's pictures, as the README says.
#[test]
fn the_readme_picture_is_a_diff_of_ctf5() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        corpus.join("maps/tw06_stock_ctf5.map"),
        dir.path().join("ctf5.map"),
    )
    .unwrap();
    let mapres = corpus.join("mapres/ddnet").to_string_lossy().into_owned();
    let commands = [
        "replace-area ctf5.map 84,55,10,7 ctf5.map 104,100 -o step.map",
        "replace-area ctf5.map 5,105,8,5 step.map 150,57 -o ctf5-edited.map",
        "diff ctf5.map ctf5-edited.map --png ctf5-diff.png --mapres DIR --width 1200",
    ];
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    for command in commands {
        assert!(readme.contains(&format!("twcodec {command}")), "{command}");
        let args: Vec<&str> = (command.split(' '))
            .map(|arg| if arg == "DIR" { mapres.as_str() } else { arg })
            .collect();
        let output = Command::new(env!("CARGO_BIN_EXE_twcodec"))
            .args(&args)
            .current_dir(dir.path())
            .env_remove("TWCODEC_MAPRES")
            .output()
            .unwrap();
        assert!(
            output.status.code() == Some(0) || args[0] == "diff",
            "{command}: {}",
            text(&output.stderr)
        );
        // Every external picture found: no placeholder in the README.
        assert!(
            !text(&output.stderr).contains("warning"),
            "{}",
            text(&output.stderr)
        );
    }
    let bytes = std::fs::read(dir.path().join("ctf5-diff.png")).unwrap();
    let picture = twcodec_tools::assets::decode_png(&bytes, Limits::default()).unwrap();
    let path = common::root().join("docs/pictures/ctf5-diff.png");
    if let Err(message) = golden::check_golden_file(&path, "readme_ctf5_diff", &picture) {
        panic!("{message}");
    }
    assert!(readme
        .contains("![A diff of Teeworlds' ctf5, drawn by twcodec](docs/pictures/ctf5-diff.png)"));
}
