//! Whole-map edits: mirroring, flipping and rotating a map ([`Map::transform`]), cropping,
//! extending and shifting a group's tile layers ([`Map::reframe`], [`Map::crop`],
//! [`Map::shift`]), and scaling envelope time ([`Map::scale_time`]).
//!
//! # Coordinates
//!
//! World y points down, and DDNet draws a group with offset `o` and parallax `k` (percent) so
//! that a point `p` of the group shows `p - o - c * k / 100` away from the screen's center when
//! the camera is at `c` in the game layer's coordinates. The game group is drawn with offset 0
//! and parallax 100 whatever it stores. A transform moves the game layer's world onto itself
//! (mirroring about its middle, rotating it so that it starts at 0 again), moves the camera with
//! it, and then gives every other group the offset and the point positions that show it where
//! the transformed camera sees it: the picture on screen is the transformed picture.
//!
//! A group's tile layers all start at the group's origin, so a group whose tile layers differ
//! in size cannot be mirrored exactly as it is. The smaller layers are first extended to the
//! group's largest size with copies of their last column or row: DDNet draws a tile layer's edge
//! tiles repeated outward forever (`TILERENDERFLAG_EXTEND`, the tile border of
//! `CRenderLayerTile`), so the copies change nothing on screen. A parallax that puts the new
//! offset between two pixels is rounded (half away from zero), at most half a pixel off; the
//! rounding is the same both ways, so mirroring twice gives the offset back.
//!
//! # Tiles layers of the game group larger than the game layer
//!
//! The game group's tile layers start at the game layer's origin, which the transform keeps at
//! 0, so the part of a tiles layer of the game group beyond the game layer, along an axis the
//! transform turns over, would have to start before 0. Such layers first move to groups of
//! their own that DDNet draws exactly as it draws the game group (offset 0, parallax 100, no
//! clip, and the game group's version, name and parallax zoom), where the offsets above place
//! them: the run of the game group's layers from its first up to the last such layer before
//! its first physics layer goes to a new group just before the game group, and the run from
//! the first such layer after its last physics layer to its end goes to a new group just after
//! it. The draw order stays; the groups stay split once transformed (transforming back gives
//! the same picture, not the same groups). Such a layer between two physics layers cannot move
//! without changing the draw order, and the map is refused.

use twcodec_schema::map::envelope::EnvPointBezier;
use twcodec_schema::map::quad::Quad;
use twcodec_schema::map::sound::SoundSource;
use twcodec_schema::map::tile::{Speedup, Switch, Tele, Tile, TileKind, Tune};
use twcodec_schema::map::Point;

use super::*;
use crate::error::Error;
use crate::map::grid::Grid;
use crate::map::layer::{LayerContent, TilesLayer};
use crate::map::{DataSlot, Group, ItemRef, Map};

/// A mirror, flip or rotation of a whole map, for [`Map::transform`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Transform {
    /// Left becomes right (x ↦ width - x), as the editor's "flip x".
    MirrorX,
    /// Top becomes bottom (y ↦ height - y), as the editor's "flip y".
    FlipY,
    /// A quarter turn clockwise on screen, as the editor's "T" key.
    Rotate90,
    /// A half turn.
    Rotate180,
    /// A quarter turn counter-clockwise (three clockwise), as the editor's "R" key.
    Rotate270,
}

/// The editor's primitive tile edits, of which each transform is a sequence.
#[derive(Debug, Clone, Copy)]
enum Step {
    FlipX,
    FlipY,
    Rotate,
}

/// DDNet's tile flags (src/game/mapitems.h `TILEFLAG_*`).
const XFLIP: u8 = 1;
const YFLIP: u8 = 2;
const ROTATE: u8 = 8;

/// Game tiles whose direction is read with an exact compare against the four pure rotations
/// (0, 8, 3, 11): stoppers (`TileExistsNext`), checkpoints (`MoverSpeed`), directed
/// hook-through, and the crazy shotgun entities (`OnEntity`).
fn compares_rotation(index: u8) -> bool {
    const STOP: u8 = 60;
    const CP: u8 = 64;
    const CP_F: u8 = 65;
    const THROUGH_DIR: u8 = 67;
    const CRAZY_SHOTGUN_EX: u8 = ENTITY_OFFSET + 33;
    const CRAZY_SHOTGUN: u8 = ENTITY_OFFSET + 34;
    matches!(
        index,
        STOP | CP | CP_F | THROUGH_DIR | CRAZY_SHOTGUN_EX | CRAZY_SHOTGUN
    )
}

/// DDNet's `ENTITY_OFFSET`: a game layer entity's tile index is this plus its entity number.
const ENTITY_OFFSET: u8 = 255 - 64;

/// The rotating laser entity of the other sense: a reflection turns a clockwise laser into a
/// counter-clockwise one (`ENTITY_LASER_*_CCW` 12..=14, `_CW` 16..=18, in mirrored order).
fn mirrored_laser(index: u8) -> u8 {
    match index.checked_sub(ENTITY_OFFSET) {
        Some(entity @ (12..=14 | 16..=18)) => ENTITY_OFFSET + 30 - entity,
        _ => index,
    }
}

impl Transform {
    /// Every transform.
    pub const ALL: [Transform; 5] = [
        Transform::MirrorX,
        Transform::FlipY,
        Transform::Rotate90,
        Transform::Rotate180,
        Transform::Rotate270,
    ];

    /// The transform that undoes this one.
    pub fn inverse(self) -> Transform {
        match self {
            Transform::Rotate90 => Transform::Rotate270,
            Transform::Rotate270 => Transform::Rotate90,
            other => other,
        }
    }

    /// The rotation clockwise by `degrees` (0 is none, `None` for angles not a multiple of 90).
    pub fn rotation(degrees: i32) -> Option<Option<Transform>> {
        match degrees.rem_euclid(360) {
            0 => Some(None),
            90 => Some(Some(Transform::Rotate90)),
            180 => Some(Some(Transform::Rotate180)),
            270 => Some(Some(Transform::Rotate270)),
            _ => None,
        }
    }

    /// The linear part, rows of a 2x2 matrix acting on (x, y) with y down.
    fn matrix(self) -> [[i64; 2]; 2] {
        match self {
            Transform::MirrorX => [[-1, 0], [0, 1]],
            Transform::FlipY => [[1, 0], [0, -1]],
            Transform::Rotate90 => [[0, -1], [1, 0]],
            Transform::Rotate180 => [[-1, 0], [0, -1]],
            Transform::Rotate270 => [[0, 1], [-1, 0]],
        }
    }

    /// Whether x and y trade places (a quarter turn).
    pub fn swaps_axes(self) -> bool {
        matches!(self, Transform::Rotate90 | Transform::Rotate270)
    }

    /// Whether it is a reflection (mirror or flip), which turns clockwise into
    /// counter-clockwise.
    pub fn is_reflection(self) -> bool {
        matches!(self, Transform::MirrorX | Transform::FlipY)
    }

    /// The editor's steps that make it.
    fn steps(self) -> &'static [Step] {
        match self {
            Transform::MirrorX => &[Step::FlipX],
            Transform::FlipY => &[Step::FlipY],
            Transform::Rotate90 => &[Step::Rotate],
            Transform::Rotate180 => &[Step::FlipX, Step::FlipY],
            Transform::Rotate270 => &[Step::Rotate, Step::FlipX, Step::FlipY],
        }
    }

    /// A vector through the linear part.
    fn apply(self, (x, y): (i64, i64)) -> (i64, i64) {
        let [[a, b], [c, d]] = self.matrix();
        (a * x + b * y, c * x + d * y)
    }

    /// A vector through the inverse of the linear part (its transpose).
    fn apply_inverse(self, (x, y): (i64, i64)) -> (i64, i64) {
        let [[a, b], [c, d]] = self.matrix();
        (a * x + c * y, b * x + d * y)
    }

    /// The translation that puts the box (0, 0)..(width, height), once through the linear
    /// part, back at (0, 0).
    fn shift(self, width: i64, height: i64) -> (i64, i64) {
        let [[a, b], [c, d]] = self.matrix();
        (
            (-a).max(0) * width + (-b).max(0) * height,
            (-c).max(0) * width + (-d).max(0) * height,
        )
    }

    /// Whether the translation depends on the box's width, and on its height.
    fn needs(self) -> (bool, bool) {
        (self.shift(1, 0) != (0, 0), self.shift(0, 1) != (0, 0))
    }

    /// A tile's flags as the editor turns them (layer_tiles.cpp `BrushFlipX`, `BrushFlipY`,
    /// `BrushRotate`): the flip bits follow the tile's own rotation, and the opaque bit and
    /// the unknown bits stay.
    pub fn tile_flags(self, mut flags: u8) -> u8 {
        for step in self.steps() {
            let rotated = flags & ROTATE != 0;
            match step {
                Step::FlipX => flags ^= if rotated { YFLIP } else { XFLIP },
                Step::FlipY => flags ^= if rotated { XFLIP } else { YFLIP },
                Step::Rotate => {
                    if rotated {
                        flags ^= XFLIP | YFLIP;
                    }
                    flags ^= ROTATE;
                }
            }
        }
        flags
    }

    /// The flags of a game, front or switch tile: the editor's, and for the tiles the game
    /// reads with an exact compare (stoppers, checkpoints, directed hook-through, crazy
    /// shotguns) the pure rotation with the same direction. A flip of an arrow along itself
    /// changes nothing, so a single flip bit is cleared by toggling XFLIP (1 to 0, 2 to 3, 9 to
    /// 8, 10 to 11), as `GetMoveRestrictionsRaw` reads the one-way stopper.
    pub fn physics_flags(self, index: u8, flags: u8) -> u8 {
        let turned = self.tile_flags(flags);
        if compares_rotation(index) && (turned & XFLIP != 0) != (turned & YFLIP != 0) {
            turned ^ XFLIP
        } else {
            turned
        }
    }

    /// A speedup's angle in degrees (0 right, 90 down) pointing the transformed way, in
    /// 0..=359 as the editor keeps it (layer_speedup.cpp).
    pub fn speedup_angle(self, angle: i16) -> i16 {
        let a = i32::from(angle);
        let turned = match self {
            Transform::MirrorX => 180 - a,
            Transform::FlipY => -a,
            Transform::Rotate90 => a + 90,
            Transform::Rotate180 => a + 180,
            Transform::Rotate270 => a + 270,
        };
        // 0..=359 always fits.
        i16::try_from(turned.rem_euclid(360)).unwrap_or(0)
    }

    /// A tile index of a game, front or switch layer: rotating lasers change their sense in
    /// a reflection.
    fn physics_index(self, index: u8) -> u8 {
        if self.is_reflection() {
            mirrored_laser(index)
        } else {
            index
        }
    }
}

/// How a tile of each kind turns, by the layer it is in.
trait Turn: TileKind + Copy + Default {
    /// Turns the tile; `entities` is set in game and front layers (tiles layers draw only).
    fn turn(&mut self, transform: Transform, entities: bool);
}

impl Turn for Tile {
    fn turn(&mut self, transform: Transform, entities: bool) {
        if entities {
            self.flags = transform.physics_flags(self.id, self.flags);
            self.id = transform.physics_index(self.id);
        } else {
            self.flags = transform.tile_flags(self.flags);
        }
    }
}

impl Turn for Switch {
    fn turn(&mut self, transform: Transform, _: bool) {
        self.flags = transform.physics_flags(self.id, self.flags);
        self.id = transform.physics_index(self.id);
    }
}

impl Turn for Speedup {
    fn turn(&mut self, transform: Transform, _: bool) {
        let angle = transform.speedup_angle(self.angle());
        self.set_angle(angle);
    }
}

impl Turn for Tele {
    fn turn(&mut self, _: Transform, _: bool) {}
}

impl Turn for Tune {
    fn turn(&mut self, _: Transform, _: bool) {}
}

/// Crop, extend or shift margins for [`Map::reframe`], in tiles: a positive margin adds that
/// many columns or rows on its side, a negative one removes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Margins {
    /// Columns added at the left.
    pub left: i32,
    /// Rows added at the top.
    pub top: i32,
    /// Columns added at the right.
    pub right: i32,
    /// Rows added at the bottom.
    pub bottom: i32,
}

impl Margins {
    /// The same margin on every side.
    pub fn uniform(tiles: i32) -> Margins {
        Margins {
            left: tiles,
            top: tiles,
            right: tiles,
            bottom: tiles,
        }
    }

    /// The margins that undo these (for the same group frame afterwards).
    pub fn inverse(self) -> Margins {
        Margins {
            left: self.left.saturating_neg(),
            top: self.top.saturating_neg(),
            right: self.right.saturating_neg(),
            bottom: self.bottom.saturating_neg(),
        }
    }
}

/// The new grid of a tile layer, of its kind.
enum NewGrid {
    Tile(Grid<Tile>),
    Tele(Grid<Tele>),
    Speedup(Grid<Speedup>),
    Switch(Grid<Switch>),
    Tune(Grid<Tune>),
}

/// What an edit gives a layer.
enum NewContent {
    Tiles(NewGrid, Option<Vec<u8>>),
    Quads(Vec<Quad>),
    Sources(Vec<SoundSource>),
}

/// Every change of a whole-map edit, computed and checked before any is made.
#[derive(Default)]
struct Plan {
    layers: Vec<(usize, NewContent)>,
    groups: Vec<(
        usize,
        Point,
        Point,
        Option<twcodec_schema::map::group::Clip>,
    )>,
}

/// `numerator / denominator` rounded half away from zero (the same both ways of a sign).
fn round_div(numerator: i64, denominator: i64) -> i64 {
    let q = (numerator.abs().saturating_mul(2) + denominator) / (2 * denominator);
    q * numerator.signum()
}

/// A value as the i32 an item stores, or the error saying which.
fn fit(value: i64, what: impl FnOnce() -> String) -> Result<i32, Error> {
    i32::try_from(value).map_err(|_| {
        Error::invalid_edit(format!(
            "{} would be {value}, beyond the ints a map stores",
            what()
        ))
    })
}

/// A point moved by `f`, checked.
fn moved(
    point: Point,
    f: impl Fn((i64, i64)) -> (i64, i64),
    what: impl Fn() -> String,
) -> Result<Point, Error> {
    let (x, y) = f((i64::from(point.x), i64::from(point.y)));
    Ok(Point {
        x: fit(x, &what)?,
        y: fit(y, &what)?,
    })
}

/// A tile layer's grid, or the error for one that did not load.
fn grid_of<T: TileKind>(index: usize, layer: &TilesLayer<T>) -> Result<&Grid<T>, Error> {
    layer.grid().ok_or_else(|| {
        Error::invalid_edit(format!(
            "layer #{index}'s tiles did not load; remove or repair the layer first"
        ))
    })
}

/// A grid extended to `target` with copies of its edge (`edge`) or `T::default()` (air), then
/// transformed, each tile turned.
fn transformed<T: Turn>(
    grid: &Grid<T>,
    target: (usize, usize),
    transform: Transform,
    entities: bool,
) -> Option<Grid<T>> {
    let (w, h) = (grid.width(), grid.height());
    let (ew, eh) = (target.0.max(w), target.1.max(h));
    let (nw, nh) = if transform.swaps_axes() {
        (eh, ew)
    } else {
        (ew, eh)
    };
    let (tx, ty) = transform.shift(ew as i64, eh as i64);
    let last =
        |v: i64, len: usize| -> Option<usize> { usize::try_from(v.min(len as i64 - 1)).ok() };
    let mut out = grid.remapped(
        nw,
        nh,
        |x, y| {
            // Cell centers, doubled to stay in integers.
            let (cx, cy) = (2 * x as i64 + 1 - 2 * tx, 2 * y as i64 + 1 - 2 * ty);
            let (ox, oy) = transform.apply_inverse((cx, cy));
            Some((last((ox - 1) / 2, w)?, last((oy - 1) / 2, h)?))
        },
        T::default(),
    )?;
    for tile in out.tiles_mut() {
        tile.turn(transform, entities);
    }
    Some(out)
}

/// A grid cut or extended by `margins` to `size`: outside the old grid, air (`air`) or copies
/// of the nearest edge tile.
fn reframed<T: TileKind + Copy + Default>(
    grid: &Grid<T>,
    size: (usize, usize),
    margins: Margins,
    air: bool,
) -> Option<Grid<T>> {
    let (w, h) = (grid.width() as i64, grid.height() as i64);
    let (left, top) = (i64::from(margins.left), i64::from(margins.top));
    grid.remapped(
        size.0,
        size.1,
        |x, y| {
            let (ox, oy) = (x as i64 - left, y as i64 - top);
            if air {
                Some((usize::try_from(ox).ok()?, usize::try_from(oy).ok()?))
            } else {
                Some((
                    usize::try_from(ox.clamp(0, w - 1)).ok()?,
                    usize::try_from(oy.clamp(0, h - 1)).ok()?,
                ))
            }
        },
        T::default(),
    )
}

impl Map {
    /// The game layer's index and size in tiles, and its group.
    fn game_frame(&self) -> (Option<usize>, i64, i64, Option<usize>) {
        match self.game_layer() {
            Some((r, tiles)) => {
                let index = r.index();
                let item = tiles.item();
                (
                    Some(index),
                    i64::from(item.width.max(0)),
                    i64::from(item.height.max(0)),
                    self.layer_groups.get(index).copied().flatten(),
                )
            }
            None => (None, 0, 0, None),
        }
    }

    /// An error unless every physics layer of the game group is as large as the game layer,
    /// as DDNet reads them all with the game layer's size.
    fn check_physics_sizes(&self, game_group: Option<usize>, w: i64, h: i64) -> Result<(), Error> {
        for (index, layer) in self.layers.iter().enumerate() {
            if !layer.is_physics() || self.layer_groups.get(index).copied().flatten() != game_group
            {
                continue;
            }
            let Some(item) = layer.tilemap() else {
                continue;
            };
            if (i64::from(item.width), i64::from(item.height)) != (w, h) {
                return Err(Error::invalid_edit(format!(
                    "the {} layer #{index} is {}x{} tiles and the game layer {w}x{h}; DDNet \
                     reads every physics layer with the game layer's size, so the map cannot \
                     be transformed as it is",
                    layer.kind_name(),
                    item.width,
                    item.height
                )));
            }
        }
        Ok(())
    }

    /// The layers of each group (by the resolver's table), and the layers of none.
    fn layers_by_group(&self) -> (Vec<Vec<usize>>, Vec<usize>) {
        let mut groups = vec![Vec::new(); self.groups.len()];
        let mut loose = Vec::new();
        for (index, group) in self.layer_groups.iter().enumerate() {
            match group.and_then(|g| groups.get_mut(g)) {
                Some(layers) => layers.push(index),
                None => loose.push(index),
            }
        }
        (groups, loose)
    }

    /// Mirrors, flips or rotates the whole map: every tile layer (tiles with their flip and
    /// rotate flags, as DDNet's editor turns them), the physics layers with the game's meaning
    /// of direction, quads with their pivots, sound sources, group offsets, parallax and clips,
    /// and the position envelopes. See the module docs of [`crate::map::edit`] for the rules.
    ///
    /// Tiles layers of the game group larger than the game layer along an axis the transform
    /// turns over move first, with the layers between them and the group's start or end, to
    /// new groups just before or after the game group that draw as it draws (see the module
    /// docs), keeping the draw order.
    ///
    /// Errors, changing nothing, when a physics layer of the game group differs in size from
    /// the game layer, when such a larger tiles layer lies between two physics layers of the
    /// game group (moving it out would change the draw order), when a tile layer did not
    /// load, or when a position leaves the range of an item's ints.
    ///
    /// ```
    /// use twcodec::map::Transform;
    /// # let mut map = twcodec_testkit::sample::map()?;
    /// let before = map.to_bytes()?;
    /// map.transform(Transform::MirrorX)?;
    /// map.transform(Transform::MirrorX)?;
    /// assert_eq!(twcodec::Map::parse(&map.to_bytes()?)?.to_bytes()?.len(), before.len());
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn transform(&mut self, transform: Transform) -> Result<(), Error> {
        let (before, after) = self.game_group_split(transform)?;
        if before == 0 && after == 0 {
            let plan = self.plan_transform(transform)?;
            self.apply_plan(plan);
            self.transform_envelopes(transform);
            return Ok(());
        }
        // The split and the transform are tried on a copy, so that a refusal changes nothing.
        let mut map = self.clone();
        map.split_game_group(before, after)?;
        let plan = map.plan_transform(transform)?;
        map.apply_plan(plan);
        map.transform_envelopes(transform);
        *self = map;
        Ok(())
    }

    /// How many layers at the start and at the end of the game group go to groups of their
    /// own before `transform`: the runs up to the last tiles layer before the first physics
    /// layer, and from the first after the last physics layer, that is larger than the game
    /// layer on an axis the transform turns over. An error, changing nothing, for such a layer
    /// between two physics layers (moving it out would change the draw order), for physics
    /// layers of another size than the game layer, and when the game group's layers do not
    /// follow the other groups' in order.
    fn game_group_split(&self, transform: Transform) -> Result<(usize, usize), Error> {
        let (game, gw, gh, game_group) = self.game_frame();
        let (Some(_), Some(g)) = (game, game_group) else {
            return Ok((0, 0));
        };
        self.check_physics_sizes(game_group, gw, gh)?;
        let (need_w, need_h) = transform.needs();
        let (by_group, _) = self.layers_by_group();
        let layers = by_group.get(g).map(Vec::as_slice).unwrap_or_default();
        let oversize = |i: usize| {
            self.layers[i].tilemap().and_then(|item| {
                let (w, h) = (i64::from(item.width), i64::from(item.height));
                ((need_w && w > gw) || (need_h && h > gh)).then_some((w, h))
            })
        };
        let physics: Vec<usize> = (0..layers.len())
            .filter(|&k| self.layers[layers[k]].is_physics())
            .collect();
        let (Some(&first), Some(&last)) = (physics.first(), physics.last()) else {
            return Ok((0, 0));
        };
        if let Some((i, (w, h))) =
            (layers[first..=last].iter()).find_map(|&i| oversize(i).map(|size| (i, size)))
        {
            return Err(oversize_error(
                i,
                (w, h),
                (gw, gh),
                " between two physics layers",
            ));
        }
        let before = (layers[..first].iter())
            .rposition(|&i| oversize(i).is_some())
            .map_or(0, |k| k + 1);
        let after = (layers[last + 1..].iter())
            .position(|&i| oversize(i).is_some())
            .map_or(0, |k| layers.len() - (last + 1 + k));
        if (before > 0 || after > 0) && !self.groups_in_order() {
            let k = if before > 0 { 0 } else { layers.len() - after };
            let i = layers[k];
            let size = oversize(i).unwrap_or_default();
            return Err(oversize_error(
                i,
                size,
                (gw, gh),
                " and the groups do not hold their layers in order",
            ));
        }
        Ok((before, after))
    }

    /// Moves the first `before` layers of the game group to a new group just before it, and
    /// its last `after` layers to a new group just after it, both drawn as DDNet draws the
    /// game group: offset 0, parallax 100, no clip, the game group's version, name and
    /// parallax zoom. The draw order stays; the groups hold their layers in order.
    fn split_game_group(&mut self, before: usize, after: usize) -> Result<(), Error> {
        let Some(mut g) = self.game_frame().3 else {
            return Ok(());
        };
        let split = |map: &mut Map, at: usize, g: usize| -> Result<usize, Error> {
            let new = map.insert_group(at, NewGroup::new(""))?;
            let game = if at <= g { g + 1 } else { g };
            let index = map.checked(new)?;
            let template = map.groups[game].item.clone();
            let item = &mut map.groups[index].item;
            item.version = template.version;
            item.clip = template.clip.map(|_| Default::default());
            item.name = template.name;
            if map.group_ex.len() == map.groups.len() {
                map.group_ex[index].1.parallax_zoom = map.group_ex[game].1.parallax_zoom;
            }
            Ok(index)
        };
        if after > 0 {
            let new = split(self, g + 1, g)?;
            let (by_group, _) = self.layers_by_group();
            let first = by_group[g].len() - after;
            let start = by_group[g][first];
            for position in 0..after {
                let layer = self.mint(start);
                self.move_layer(layer, self.mint(new), position)?;
            }
        }
        if before > 0 {
            let new = split(self, g, g)?;
            g += 1;
            let start = self.groups[g].layer_range(self.layers.len()).start;
            for position in 0..before {
                let layer = self.mint(start + position);
                self.move_layer(layer, self.mint(new), position)?;
            }
        }
        Ok(())
    }

    /// Everything [`Map::transform`] changes in the layers and groups, checked.
    fn plan_transform(&self, transform: Transform) -> Result<Plan, Error> {
        let (game, gw, gh, game_group) = self.game_frame();
        if game.is_some() {
            self.check_physics_sizes(game_group, gw, gh)?;
        }
        let world = transform.shift(32 * gw, 32 * gh);
        let (need_w, need_h) = transform.needs();
        let (by_group, loose) = self.layers_by_group();
        let mut plan = Plan::default();
        for (g, layers) in by_group.iter().enumerate() {
            let group = &self.groups[g].item;
            let is_game = Some(g) == game_group;
            // The group's frame: its largest tile layer, or the game layer for the game group.
            let sizes: Vec<(usize, i64, i64)> = (layers.iter())
                .filter_map(|&i| {
                    let item = self.layers[i].tilemap()?;
                    Some((i, i64::from(item.width), i64::from(item.height)))
                })
                .collect();
            let frame = if is_game {
                Some((gw, gh))
            } else {
                (!sizes.is_empty()).then(|| {
                    (
                        sizes.iter().map(|s| s.1).max().unwrap_or(0),
                        sizes.iter().map(|s| s.2).max().unwrap_or(0),
                    )
                })
            };
            if let Some((fw, fh)) = frame.filter(|_| is_game) {
                for &(i, w, h) in &sizes {
                    if (need_w && w > fw) || (need_h && h > fh) {
                        return Err(oversize_error(i, (w, h), (fw, fh), ""));
                    }
                }
            }
            let parallax = if transform.swaps_axes() {
                Point {
                    x: group.parallax.y,
                    y: group.parallax.x,
                }
            } else {
                group.parallax
            };
            let (px, py) = (i64::from(parallax.x), i64::from(parallax.y));
            let rotated = transform.apply((i64::from(group.offset.x), i64::from(group.offset.y)));
            let what = || format!("group #{g}'s offset");
            let (offset, shift) = match frame {
                Some((fw, fh)) => {
                    let (tx, ty) = transform.shift(32 * fw, 32 * fh);
                    let offset = Point {
                        x: fit(tx + rotated.0 - round_div(px * world.0, 100), what)?,
                        y: fit(ty + rotated.1 - round_div(py * world.1, 100), what)?,
                    };
                    (offset, (tx * 1024, ty * 1024))
                }
                None => {
                    let offset = Point {
                        x: fit(rotated.0, what)?,
                        y: fit(rotated.1, what)?,
                    };
                    let shift = (
                        round_div(px * world.0 * 1024, 100),
                        round_div(py * world.1 * 1024, 100),
                    );
                    (offset, shift)
                }
            };
            let clip = match group.clip {
                Some(clip) => Some(self.transformed_clip(g, clip, transform, world)?),
                None => None,
            };
            plan.groups.push((g, offset, parallax, clip));
            let target = frame.map_or((0, 0), |(w, h)| (w.max(0) as usize, h.max(0) as usize));
            let target = (
                if need_w { target.0 } else { 0 },
                if need_h { target.1 } else { 0 },
            );
            for &i in layers {
                self.plan_layer(&mut plan, i, transform, target, shift)?;
            }
        }
        for &i in &loose {
            self.plan_layer(&mut plan, i, transform, (0, 0), (0, 0))?;
        }
        Ok(plan)
    }

    /// A group's clipping rectangle (in the game layer's coordinates) transformed.
    fn transformed_clip(
        &self,
        g: usize,
        clip: twcodec_schema::map::group::Clip,
        transform: Transform,
        world: (i64, i64),
    ) -> Result<twcodec_schema::map::group::Clip, Error> {
        let (x0, y0) = (i64::from(clip.x), i64::from(clip.y));
        let (x1, y1) = (x0 + i64::from(clip.width), y0 + i64::from(clip.height));
        let a = transform.apply((x0, y0));
        let b = transform.apply((x1, y1));
        let what = || format!("group #{g}'s clip");
        Ok(twcodec_schema::map::group::Clip {
            x: fit(a.0.min(b.0) + world.0, what)?,
            y: fit(a.1.min(b.1) + world.1, what)?,
            width: fit((a.0 - b.0).abs(), what)?,
            height: fit((a.1 - b.1).abs(), what)?,
            ..clip
        })
    }

    /// The new content of one layer under a transform: tiles extended to `target` (0 for an
    /// axis that keeps each layer's own size) then turned; quads and sources through the
    /// linear part and `shift` (1/1024 world units).
    fn plan_layer(
        &self,
        plan: &mut Plan,
        index: usize,
        transform: Transform,
        target: (usize, usize),
        shift: (i64, i64),
    ) -> Result<(), Error> {
        fn tiles<T: Turn>(
            index: usize,
            layer: &TilesLayer<T>,
            target: (usize, usize),
            transform: Transform,
            entities: bool,
        ) -> Result<Grid<T>, Error> {
            transformed(grid_of(index, layer)?, target, transform, entities).ok_or_else(|| {
                Error::limit(format!("layer #{index}'s tiles would not fit in memory"))
            })
        }
        let f = |p| {
            let (x, y) = transform.apply(p);
            (x + shift.0, y + shift.1)
        };
        let content = match self.layers[index].content() {
            LayerContent::Tiles(t) => {
                NewGrid::Tile(tiles(index, t, target, transform, false)?).into()
            }
            LayerContent::Game(t) | LayerContent::Front(t) => {
                NewGrid::Tile(tiles(index, t, target, transform, true)?).into()
            }
            LayerContent::Tele(t) => {
                NewGrid::Tele(tiles(index, t, target, transform, true)?).into()
            }
            LayerContent::Speedup(t) => {
                NewGrid::Speedup(tiles(index, t, target, transform, true)?).into()
            }
            LayerContent::Switch(t) => {
                NewGrid::Switch(tiles(index, t, target, transform, true)?).into()
            }
            LayerContent::Tune(t) => {
                NewGrid::Tune(tiles(index, t, target, transform, true)?).into()
            }
            LayerContent::Quads(q) => {
                let Some(quads) = q.quads() else {
                    return Ok(());
                };
                let mut new = quads.to_vec();
                for (n, quad) in new.iter_mut().enumerate() {
                    for point in &mut quad.points {
                        *point = moved(*point, f, || format!("layer #{index}'s quad #{n}"))?;
                    }
                }
                NewContent::Quads(new)
            }
            LayerContent::Sounds(s) => {
                let Some(sources) = s.sources() else {
                    return Ok(());
                };
                let mut new = sources.to_vec();
                for (n, source) in new.iter_mut().enumerate() {
                    source.position = moved(source.position, f, || {
                        format!("layer #{index}'s source #{n}")
                    })?;
                    if transform.swaps_axes() && source.shape.kind == 0 {
                        let shape = &mut source.shape;
                        std::mem::swap(&mut shape.value1, &mut shape.value2);
                    }
                }
                NewContent::Sources(new)
            }
            LayerContent::Unknown(_) => return Ok(()),
        };
        plan.layers.push((index, content));
        Ok(())
    }

    /// Makes the changes of a plan.
    fn apply_plan(&mut self, plan: Plan) {
        for (g, offset, parallax, clip) in plan.groups {
            let Some(group) = self.groups.get_mut(g) else {
                continue;
            };
            let item = &mut group.item;
            let changed = item.offset != offset || item.parallax != parallax || item.clip != clip;
            item.offset = offset;
            item.parallax = parallax;
            item.clip = clip;
            touched(changed, &mut group.verbatim);
        }
        for (index, content) in plan.layers {
            let Some(layer) = self.layers.get_mut(index) else {
                continue;
            };
            layer.verbatim = None;
            let dummy = match (layer.content_mut(), content) {
                (
                    LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t),
                    NewContent::Tiles(NewGrid::Tile(grid), dummy),
                ) => {
                    t.set_grid(grid);
                    dummy
                }
                (LayerContent::Tele(t), NewContent::Tiles(NewGrid::Tele(grid), dummy)) => {
                    t.set_grid(grid);
                    dummy
                }
                (LayerContent::Speedup(t), NewContent::Tiles(NewGrid::Speedup(grid), dummy)) => {
                    t.set_grid(grid);
                    dummy
                }
                (LayerContent::Switch(t), NewContent::Tiles(NewGrid::Switch(grid), dummy)) => {
                    t.set_grid(grid);
                    dummy
                }
                (LayerContent::Tune(t), NewContent::Tiles(NewGrid::Tune(grid), dummy)) => {
                    t.set_grid(grid);
                    dummy
                }
                (LayerContent::Quads(q), NewContent::Quads(quads)) => {
                    if let Some(old) = q.quads_mut() {
                        *old = quads;
                    }
                    None
                }
                (LayerContent::Sounds(s), NewContent::Sources(sources)) => {
                    if let Some(old) = s.sources_mut() {
                        *old = sources;
                    }
                    None
                }
                _ => None,
            };
            if let Some(zeros) = dummy {
                self.set_dummy_tiles(index, zeros);
            }
        }
    }

    /// Gives a non-game physics layer a new zeroed `data` block of its new size (DDNet's
    /// editor writes one; the game does not read it): in place when nothing else names the
    /// old one, else as a new data item.
    pub(super) fn set_dummy_tiles(&mut self, index: usize, zeros: Vec<u8>) {
        let uses = self.data_uses();
        let Some(raw) = self.layers[index].tilemap().map(|t| t.data) else {
            return;
        };
        let slot = usize::try_from(raw).ok().filter(|&i| i < self.data.len());
        let raw = match slot {
            Some(slot) if uses.get(slot) == Some(&1) => {
                self.data[slot] = DataSlot::Owned(zeros.into());
                raw
            }
            _ if self.data_room(1).is_ok() => self.push_data(zeros),
            _ => return,
        };
        if let Some(tilemap) = self.layers[index].content_mut().tilemap_mut() {
            tilemap.data = raw;
        }
    }

    /// Turns the position envelopes' x and y channels (values and bezier tangents) with the
    /// transform, and negates their rotation in a reflection. Each point is turned once, even
    /// when several envelopes cover it.
    fn transform_envelopes(&mut self, transform: Transform) {
        let Some(points) = &mut self.points else {
            return;
        };
        let len = points.points.len();
        let mut turn = vec![false; len];
        for envelope in &self.envelopes {
            if envelope.item.channels != 3 {
                continue;
            }
            for i in envelope.range(len).into_iter().flatten() {
                turn[i] = true;
            }
        }
        if !turn.contains(&true) {
            return;
        }
        // Channel i of the result is `sign` times channel `from` of the old point.
        let [[a, b], [c, d]] = transform.matrix();
        let row = |p: i64, q: i64| if p != 0 { (0, p) } else { (1, q) };
        let channels = [row(a, b), row(c, d)];
        let det = a * d - b * c;
        let values = |v: &mut [i32; 4]| {
            let old = *v;
            for (i, &(from, sign)) in channels.iter().enumerate() {
                v[i] = if sign < 0 {
                    old[from].wrapping_neg()
                } else {
                    old[from]
                };
            }
            if det < 0 {
                v[2] = old[2].wrapping_neg();
            }
        };
        let times = |v: &mut [i32; 4]| {
            let old = *v;
            for (i, &(from, _)) in channels.iter().enumerate() {
                v[i] = old[from];
            }
        };
        for (i, point) in points.points.iter_mut().enumerate() {
            if turn[i] {
                values(&mut point.values);
            }
        }
        if let Some(bezier) = &mut points.bezier {
            for (i, tangent) in bezier.iter_mut().enumerate() {
                if turn.get(i) == Some(&true) {
                    let EnvPointBezier {
                        in_tangent_dx,
                        in_tangent_dy,
                        out_tangent_dx,
                        out_tangent_dy,
                    } = tangent;
                    values(in_tangent_dy);
                    values(out_tangent_dy);
                    times(in_tangent_dx);
                    times(out_tangent_dx);
                }
            }
        }
        points.modified = true;
    }

    /// Crops or extends every tile layer of a group together by `margins` (tiles; positive
    /// adds, negative removes), keeping the world where it was.
    ///
    /// The left and top margins move the group's shared origin; the right and bottom ones
    /// apply at each layer's own right and bottom edge, so layers of different sizes keep their
    /// difference and the margins with opposite signs undo the edit exactly. Added tiles are
    /// air in physics layers (DDNet's collision reads the edge tiles beyond a map's border, so
    /// extending a map whose edge is solid opens it, as resizing in DDNet's editor does), and
    /// copies of the edge in the other tile layers (which DDNet draws repeated outward, so
    /// nothing shows). Quads and sound sources of the group keep their world places.
    ///
    /// For a group other than the game group, its offset changes with the layers' origin. The
    /// game group's offset is fixed at 0, so reframing it moves the game world's origin: its
    /// quads and sources, every group's clip (in game coordinates), and every other group's
    /// offset (by the margin times its parallax, rounded half away from zero to a whole pixel)
    /// move with it, so that everything keeps its place relative to the game layer. Errors,
    /// changing nothing, when the group has no tile layer, a layer would be under DDNet's 2x2
    /// minimum, or a physics layer of the game group differs in size from the game layer.
    pub fn reframe(&mut self, group: ItemRef<Group>, margins: Margins) -> Result<(), Error> {
        let g = self.checked(group)?;
        let plan = self.plan_reframe(g, (margins.left, margins.top), |_, _| {
            (i64::from(margins.right), i64::from(margins.bottom))
        })?;
        self.apply_plan(plan);
        Ok(())
    }

    /// The tile size of a group's frame: the game layer's for the game group, else its
    /// largest tile layer's; `None` for a group without tile layers.
    pub fn group_frame(&self, group: ItemRef<Group>) -> Option<(i32, i32)> {
        let g = self.index_of(group)?;
        if let Some((r, game)) = self.game_layer() {
            if self.layer_groups.get(r.index()).copied().flatten() == Some(g) {
                return Some((game.item().width, game.item().height));
            }
        }
        let (by_group, _) = self.layers_by_group();
        let sizes: Vec<(i32, i32)> = (by_group.get(g)?.iter())
            .filter_map(|&i| self.layers[i].tilemap().map(|t| (t.width, t.height)))
            .collect();
        Some((
            sizes.iter().map(|s| s.0).max()?,
            sizes.iter().map(|s| s.1).max()?,
        ))
    }

    /// Crops a group's tile layers to the rectangle of `width` x `height` tiles whose top
    /// left tile is column `x`, row `y` of the group's frame ([`Map::group_frame`]): every
    /// tile layer of the group becomes that rectangle (a smaller layer filled as
    /// [`Map::reframe`] fills), keeping the world where it was. Errors, changing nothing, when
    /// the rectangle is not inside the frame or is under 2x2 tiles.
    pub fn crop(
        &mut self,
        group: ItemRef<Group>,
        x: i32,
        y: i32,
        width: i32,
        height: i32,
    ) -> Result<(), Error> {
        let g = self.checked(group)?;
        let (fw, fh) = self.group_frame(group).ok_or_else(|| no_tiles(g))?;
        let (x, y, w, h) = (
            i64::from(x),
            i64::from(y),
            i64::from(width),
            i64::from(height),
        );
        if x < 0 || y < 0 || w < 1 || h < 1 || x + w > i64::from(fw) || y + h > i64::from(fh) {
            return Err(Error::invalid_edit(format!(
                "the rectangle {w}x{h} at ({x}, {y}) is not inside group #{g}'s {fw}x{fh} tiles"
            )));
        }
        if w < 2 || h < 2 {
            return Err(Error::invalid_edit(format!(
                "the rectangle {w}x{h} is smaller than DDNet's 2x2 minimum"
            )));
        }
        // 0 <= x, y < 2^31 here.
        let plan = self.plan_reframe(g, (-(x as i32), -(y as i32)), |lw, lh| {
            (x + w - lw, y + h - lh)
        })?;
        self.apply_plan(plan);
        Ok(())
    }

    /// Moves a group's tile content by `dx` columns right and `dy` rows down within its
    /// layers' bounds, which keep their size: the bounds move the other way in the world, so
    /// the world stays where it was (as [`Map::reframe`] with `dx` added on the left and
    /// taken on the right). Content moved past the far edge is cut off; the near edge gets air
    /// in physics layers and copies of the edge elsewhere.
    pub fn shift(&mut self, group: ItemRef<Group>, dx: i32, dy: i32) -> Result<(), Error> {
        let margins = Margins {
            left: dx,
            top: dy,
            right: dx.saturating_neg(),
            bottom: dy.saturating_neg(),
        };
        self.reframe(group, margins)
    }

    /// Everything [`Map::reframe`] changes, checked: the group's origin moves by `origin`
    /// (left and top margins), and each tile layer of width and height `(w, h)` gets the
    /// right and bottom margins `far(w, h)`.
    fn plan_reframe(
        &self,
        g: usize,
        origin: (i32, i32),
        far: impl Fn(i64, i64) -> (i64, i64),
    ) -> Result<Plan, Error> {
        let (game, gw, gh, game_group) = self.game_frame();
        let is_game = game.is_some() && game_group == Some(g);
        if is_game {
            self.check_physics_sizes(game_group, gw, gh)?;
        }
        let (by_group, _) = self.layers_by_group();
        let layers = by_group.get(g).cloned().unwrap_or_default();
        self.group_frame(self.mint(g)).ok_or_else(|| no_tiles(g))?;
        let (l, t) = (i64::from(origin.0), i64::from(origin.1));
        let max = self.limits().max_tiles();
        // Each tile layer's new size and margins.
        let mut sizes = Vec::new();
        for &i in &layers {
            let Some(item) = self.layers[i].tilemap() else {
                continue;
            };
            let (w, h) = (i64::from(item.width), i64::from(item.height));
            let (r, b) = far(w, h);
            let (nw, nh) = (w + l + r, h + t + b);
            if nw < 2 || nh < 2 {
                return Err(Error::invalid_edit(format!(
                    "layer #{i} of group #{g} would be {nw}x{nh} tiles; DDNet needs at least 2x2"
                )));
            }
            let size = (
                usize::try_from(nw).unwrap_or(usize::MAX),
                usize::try_from(nh).unwrap_or(usize::MAX),
            );
            if i32::try_from(nw).is_err()
                || i32::try_from(nh).is_err()
                || size.0.checked_mul(size.1).is_none_or(|n| n > max)
            {
                return Err(Error::limit(format!(
                    "layer #{i} of group #{g} would be {nw}x{nh} tiles, more than the {max} \
                     tiles a layer may have (Limits::max_tiles)"
                )));
            }
            sizes.push((i, size));
        }
        let size_of = |i: usize| sizes.iter().find(|s| s.0 == i).map_or((0, 0), |s| s.1);
        let margins = Margins {
            left: origin.0,
            top: origin.1,
            ..Margins::default()
        };
        let mut plan = Plan::default();
        let shift = (32 * l, 32 * t);
        let fixed = (shift.0 * 1024, shift.1 * 1024);
        let f = |p: (i64, i64)| (p.0 + fixed.0, p.1 + fixed.1);
        for &i in &layers {
            fn tiles<T: TileKind + Copy + Default>(
                i: usize,
                layer: &TilesLayer<T>,
                size: (usize, usize),
                margins: Margins,
                air: bool,
            ) -> Result<Grid<T>, Error> {
                reframed(grid_of(i, layer)?, size, margins, air)
                    .ok_or_else(|| Error::limit(format!("layer #{i}'s tiles would not fit")))
            }
            let size = size_of(i);
            let dummy = || Some(vec![0u8; size.0 * size.1 * std::mem::size_of::<Tile>()]);
            let content = match self.layers[i].content() {
                LayerContent::Tiles(x) => {
                    NewContent::Tiles(NewGrid::Tile(tiles(i, x, size, margins, false)?), None)
                }
                LayerContent::Game(x) => {
                    NewContent::Tiles(NewGrid::Tile(tiles(i, x, size, margins, true)?), None)
                }
                LayerContent::Front(x) => {
                    NewContent::Tiles(NewGrid::Tile(tiles(i, x, size, margins, true)?), dummy())
                }
                LayerContent::Tele(x) => {
                    NewContent::Tiles(NewGrid::Tele(tiles(i, x, size, margins, true)?), dummy())
                }
                LayerContent::Speedup(x) => {
                    NewContent::Tiles(NewGrid::Speedup(tiles(i, x, size, margins, true)?), dummy())
                }
                LayerContent::Switch(x) => {
                    NewContent::Tiles(NewGrid::Switch(tiles(i, x, size, margins, true)?), dummy())
                }
                LayerContent::Tune(x) => {
                    NewContent::Tiles(NewGrid::Tune(tiles(i, x, size, margins, true)?), dummy())
                }
                LayerContent::Quads(q) => match q.quads() {
                    Some(quads) => {
                        let mut new = quads.to_vec();
                        for (n, quad) in new.iter_mut().enumerate() {
                            for point in &mut quad.points {
                                *point = moved(*point, f, || format!("layer #{i}'s quad #{n}"))?;
                            }
                        }
                        NewContent::Quads(new)
                    }
                    None => continue,
                },
                LayerContent::Sounds(s) => match s.sources() {
                    Some(sources) => {
                        let mut new = sources.to_vec();
                        for (n, source) in new.iter_mut().enumerate() {
                            source.position =
                                moved(source.position, f, || format!("layer #{i}'s source #{n}"))?;
                        }
                        NewContent::Sources(new)
                    }
                    None => continue,
                },
                LayerContent::Unknown(_) => continue,
            };
            plan.layers.push((i, content));
        }
        for (index, group) in self.groups.iter().enumerate() {
            let item = &group.item;
            let what = || format!("group #{index}'s offset");
            let offset = if index == g && !is_game {
                Point {
                    x: fit(i64::from(item.offset.x) + shift.0, what)?,
                    y: fit(i64::from(item.offset.y) + shift.1, what)?,
                }
            } else if is_game && index != g {
                let (px, py) = (i64::from(item.parallax.x), i64::from(item.parallax.y));
                Point {
                    x: fit(
                        i64::from(item.offset.x) - round_div(shift.0 * px, 100),
                        what,
                    )?,
                    y: fit(
                        i64::from(item.offset.y) - round_div(shift.1 * py, 100),
                        what,
                    )?,
                }
            } else {
                item.offset
            };
            let clip = match item.clip {
                Some(clip) if is_game => {
                    let what = || format!("group #{index}'s clip");
                    Some(twcodec_schema::map::group::Clip {
                        x: fit(i64::from(clip.x) + shift.0, what)?,
                        y: fit(i64::from(clip.y) + shift.1, what)?,
                        ..clip
                    })
                }
                clip => clip,
            };
            plan.groups.push((index, offset, item.parallax, clip));
        }
        Ok(plan)
    }

    /// Scales every envelope's time by `factor` (2 plays every envelope half as fast):
    /// point times and DDNet's bezier tangents' time deltas (milliseconds), every reference's
    /// time offset (tile layers' color envelope offsets, quads' and sound sources' position
    /// and color or sound offsets), and sound sources' start delay (seconds since the round
    /// started, which is what envelope time counts too). Results are rounded to whole
    /// milliseconds (seconds for the delays); synchronized flags stay.
    ///
    /// Errors, changing nothing, when `factor` is not a finite number above 0, when a value
    /// leaves the ints a map stores, or when rounding would put two points of an envelope
    /// that were apart at the same millisecond.
    pub fn scale_time(&mut self, factor: f64) -> Result<(), Error> {
        if !factor.is_finite() || factor <= 0.0 {
            return Err(Error::invalid_edit(format!(
                "a time factor must be a finite number above 0, not {factor}"
            )));
        }
        let scale = |value: i32, what: &dyn Fn() -> String| -> Result<i32, Error> {
            let scaled = (f64::from(value) * factor).round();
            if scaled >= f64::from(i32::MIN) && scaled <= f64::from(i32::MAX) {
                Ok(scaled as i32)
            } else {
                Err(Error::invalid_edit(format!(
                    "{} {value} times {factor} is beyond the ints a map stores",
                    what()
                )))
            }
        };
        // Points, checked per envelope.
        let mut times = Vec::new();
        let mut tangents = None;
        if let Some(points) = &self.points {
            for (n, point) in points.points.iter().enumerate() {
                times.push(scale(point.time, &|| {
                    format!("envelope point #{n}'s time")
                })?);
            }
            for envelope in &self.envelopes {
                let Some(range) = envelope.range(points.points.len()) else {
                    continue;
                };
                for i in range.start + 1..range.end {
                    let (before, after) = (points.points[i - 1].time, points.points[i].time);
                    if after > before && times[i] <= times[i - 1] {
                        return Err(Error::invalid_edit(format!(
                            "envelope {:?}: points at {before} and {after} ms would both be at \
                             {} ms",
                            envelope.name(),
                            times[i]
                        )));
                    }
                }
            }
            if let Some(bezier) = &points.bezier {
                let mut new = bezier.clone();
                for (n, tangent) in new.iter_mut().enumerate() {
                    for dx in (tangent.in_tangent_dx.iter_mut()).chain(&mut tangent.out_tangent_dx)
                    {
                        *dx = scale(*dx, &|| format!("envelope point #{n}'s tangent"))?;
                    }
                }
                tangents = Some(new);
            }
        }
        let mut layers = Vec::new();
        for (index, layer) in self.layers.iter().enumerate() {
            let content = match layer.content() {
                LayerContent::Quads(q) => match q.quads() {
                    Some(quads) => {
                        let mut new = quads.to_vec();
                        for (n, quad) in new.iter_mut().enumerate() {
                            let what = || format!("layer #{index}'s quad #{n}'s envelope offset");
                            quad.position_envelope_offset =
                                scale(quad.position_envelope_offset, &what)?;
                            quad.color_envelope_offset = scale(quad.color_envelope_offset, &what)?;
                        }
                        Some(NewContent::Quads(new))
                    }
                    None => None,
                },
                LayerContent::Sounds(s) => match s.sources() {
                    Some(sources) => {
                        let mut new = sources.to_vec();
                        for (n, source) in new.iter_mut().enumerate() {
                            let what = || format!("layer #{index}'s source #{n}'s time");
                            source.position_envelope_offset =
                                scale(source.position_envelope_offset, &what)?;
                            source.sound_envelope_offset =
                                scale(source.sound_envelope_offset, &what)?;
                            source.delay = scale(source.delay, &what)?;
                        }
                        Some(NewContent::Sources(new))
                    }
                    None => None,
                },
                _ => None,
            };
            let offset = match layer.tilemap() {
                Some(item) => Some(scale(item.color_envelope_offset, &|| {
                    format!("layer #{index}'s color envelope offset")
                })?),
                None => None,
            };
            layers.push((index, content, offset));
        }
        // Everything checked: apply.
        if let Some(points) = &mut self.points {
            for (point, time) in points.points.iter_mut().zip(times) {
                point.time = time;
            }
            if tangents.is_some() {
                points.bezier = tangents;
            }
            points.modified = true;
        }
        for (index, content, offset) in layers {
            let layer = &mut self.layers[index];
            if let Some(offset) = offset {
                if let Some(item) = layer.content_mut().tilemap_mut() {
                    let changed = item.color_envelope_offset != offset;
                    item.color_envelope_offset = offset;
                    touched(changed, &mut layer.verbatim);
                }
            }
            match (layer.content_mut(), content) {
                (LayerContent::Quads(q), Some(NewContent::Quads(quads))) => {
                    if let Some(old) = q.quads_mut() {
                        *old = quads;
                    }
                    layer.verbatim = None;
                }
                (LayerContent::Sounds(s), Some(NewContent::Sources(sources))) => {
                    if let Some(old) = s.sources_mut() {
                        *old = sources;
                    }
                    layer.verbatim = None;
                }
                _ => {}
            }
        }
        Ok(())
    }
}

impl From<NewGrid> for NewContent {
    fn from(grid: NewGrid) -> NewContent {
        NewContent::Tiles(grid, None)
    }
}

/// The error for tiles layer `i` of the game group, larger than the game layer on an axis a
/// transform turns over, that cannot move to a group of its own (`why`).
fn oversize_error(i: usize, (w, h): (i64, i64), (gw, gh): (i64, i64), why: &str) -> Error {
    Error::invalid_edit(format!(
        "layer #{i} of the game group is {w}x{h} tiles, larger than the {gw}x{gh} game \
         layer{why}: its part beyond the game layer has no place once transformed (crop it, \
         or move it to a group of its own)"
    ))
}

/// The error for a group without tile layers to reframe.
fn no_tiles(g: usize) -> Error {
    Error::invalid_edit(format!("group #{g} has no tile layers to reframe"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_follow_the_editor() {
        // Rotating clockwise: 0 -> 8 -> 3 -> 11 -> 0.
        let r = Transform::Rotate90;
        assert_eq!([0, 8, 3, 11].map(|f| r.tile_flags(f)), [8, 3, 11, 0]);
        // Flip X toggles YFLIP on rotated tiles.
        assert_eq!(Transform::MirrorX.tile_flags(8), 8 | YFLIP);
        assert_eq!(Transform::MirrorX.tile_flags(4), 4 | XFLIP);
        for t in Transform::ALL {
            for f in 0..=255u8 {
                assert_eq!(t.inverse().tile_flags(t.tile_flags(f)), f, "{t:?} {f}");
            }
        }
    }

    #[test]
    fn shifts_put_the_box_back_at_the_origin() {
        assert_eq!(Transform::MirrorX.shift(10, 5), (10, 0));
        assert_eq!(Transform::Rotate90.shift(10, 5), (5, 0));
        assert_eq!(Transform::Rotate270.shift(10, 5), (0, 10));
        assert_eq!(Transform::Rotate180.needs(), (true, true));
        assert_eq!(Transform::Rotate90.needs(), (false, true));
        assert_eq!(round_div(-150, 100), -2);
        assert_eq!(round_div(150, 100), 2);
        assert_eq!(round_div(149, 100), 1);
    }

    #[test]
    fn grids_turn_like_the_editor() {
        // 3x2: a b c / d e f; rotated clockwise: d a / e b / f c.
        let grid = Grid::new(
            3,
            2,
            (1..=6u8)
                .map(|id| Tile {
                    id,
                    ..Tile::default()
                })
                .collect(),
        );
        let grid = grid.expect("a grid");
        let ids = |g: &Grid<Tile>| g.tiles().iter().map(|t| t.id).collect::<Vec<_>>();
        let turned = transformed(&grid, (0, 0), Transform::Rotate90, false).expect("turned");
        assert_eq!((turned.width(), turned.height()), (2, 3));
        assert_eq!(ids(&turned), [4, 1, 5, 2, 6, 3]);
        let mirrored = transformed(&grid, (0, 0), Transform::MirrorX, false).expect("mirrored");
        assert_eq!(ids(&mirrored), [3, 2, 1, 6, 5, 4]);
        let extended = transformed(&grid, (4, 0), Transform::MirrorX, false).expect("extended");
        assert_eq!(ids(&extended), [3, 3, 2, 1, 6, 6, 5, 4]);
    }
}
