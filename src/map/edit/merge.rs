//! Between maps: copying an area of one map into another of the same structure (DDNet's
//! `map_replace_area`), and appending a map into another (the editor's "Append map").
//!
//! Both edits work on a copy of the map and put it in place only once every step worked, so an
//! edit that fails changes nothing; references taken before either edit stay valid, since both
//! only add items at the end and change layer content in place.

use std::collections::HashMap;
use std::fmt;

use bytes::Bytes;
use twcodec_schema::map::envelope::EnvPointBezier;
use twcodec_schema::map::group::GroupExItem;
use twcodec_schema::map::info::InfoItem;
use twcodec_schema::map::settings_data;
use twcodec_schema::map::sound::{SoundItem, SoundSource};
use twcodec_schema::map::tile::TileKind;
use twcodec_schema::map::Point;

use super::*;
use crate::error::Error;
use crate::map::layer::{LayerContent, TilesLayer};
use crate::map::{Automapper, Envelope, Group, ItemRef, Map, MapStamp, Stored};

/// DDNet's most images a map can have (`MAX_MAPIMAGES`); the client loads no more.
pub const MAX_IMAGES: usize = 64;
/// DDNet's most sounds a map can have (`MAX_MAPSOUNDS`).
pub const MAX_SOUNDS: usize = 64;

/// A rectangle of tiles: column `x`, row `y`, `width` tiles across and `height` down. The
/// area [`Map::replace_area`] copies (in game-layer tiles) and the one
/// [`Map::replace_tiles`] looks in (in the layer's own tiles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileRect {
    /// The left column.
    pub x: u32,
    /// The top row.
    pub y: u32,
    /// Width in tiles.
    pub width: u32,
    /// Height in tiles.
    pub height: u32,
}

impl TileRect {
    /// The rectangle at column `x`, row `y`, `width` x `height` tiles.
    pub fn new(x: u32, y: u32, width: u32, height: u32) -> TileRect {
        TileRect {
            x,
            y,
            width,
            height,
        }
    }
}

impl fmt::Display for TileRect {
    /// `x,y WxH`, in tiles.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{} {}x{}", self.x, self.y, self.width, self.height)
    }
}

/// How an image, sound or envelope of the other map came into this one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Merge {
    /// Added at the end, under its own name.
    Added,
    /// An identical item of this map serves instead: nothing was added.
    Shared,
    /// Added at the end under this new name, since this map has another item of its name.
    Renamed(String),
}

/// What became of one image, sound or envelope of the other map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// Its index in the other map.
    pub from: usize,
    /// The index of the item that serves for it in this map, after the edit.
    pub to: usize,
    /// Its name in the other map.
    pub name: String,
    /// Added, shared or renamed.
    pub how: Merge,
}

impl Merged {
    /// One line: `image #0 "grass": added as #3, renamed "grass (1)"`.
    fn fact(&self, kind: &str) -> String {
        let Merged {
            from,
            to,
            name,
            how,
        } = self;
        match how {
            Merge::Added => format!("{kind} #{from} {name:?}: added as #{to}"),
            Merge::Shared => format!("{kind} #{from} {name:?}: shared with #{to}"),
            Merge::Renamed(new) => {
                format!("{kind} #{from} {name:?}: added as #{to}, renamed {new:?}")
            }
        }
    }
}

/// What [`Map::replace_area`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ReplaceAreaReport {
    /// One entry per layer, in layer order.
    pub layers: Vec<AreaLayer>,
    /// The envelopes of the source that copied quads and sources name, and which envelope of
    /// this map serves for each.
    pub envelopes: Vec<Merged>,
}

/// What [`Map::replace_area`] did to one layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AreaLayer {
    /// The layer's index (the same in both maps).
    pub layer: usize,
    /// Its kind (`tiles`, `game`, `tele`, `quads`, ...).
    pub kind: &'static str,
    /// The tiles of this map's area that were cleared and filled from the source's area
    /// (0 for quads and sounds layers, and where the area lies outside the layer).
    pub tiles: usize,
    /// Quads or sound sources of this map whose pivot or position lay in the area: removed.
    pub removed: usize,
    /// Quads or sound sources of the source's area: added, moved to this map's area.
    pub added: usize,
    /// Whether the layer's content changed.
    pub changed: bool,
}

impl ReplaceAreaReport {
    /// The report as lines of text, one per fact, as the command line prints them.
    pub fn facts(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for layer in &self.layers {
            let AreaLayer {
                layer: index,
                kind,
                tiles,
                removed,
                added,
                changed,
            } = layer;
            let what = match *kind {
                "quads" => Some("quads"),
                "sounds" => Some("sources"),
                _ => None,
            };
            let mut line = match what {
                Some(what) => {
                    format!("layer #{index} ({kind}): {removed} {what} removed, {added} added")
                }
                None => format!("layer #{index} ({kind}): {tiles} tiles replaced"),
            };
            if !changed {
                line.push_str(" (unchanged)");
            }
            lines.push(line);
        }
        lines.extend(self.envelopes.iter().map(|e| e.fact("envelope")));
        lines
    }
}

/// What [`Map::append`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct AppendReport {
    /// Each image of the other map, in its order: added, shared or renamed.
    pub images: Vec<Merged>,
    /// Each sound of the other map.
    pub sounds: Vec<Merged>,
    /// Each envelope of the other map.
    pub envelopes: Vec<Merged>,
    /// The groups added, in order.
    pub groups: Vec<AppendedGroup>,
    /// The layers of the other map that were not appended, with the reason.
    pub dropped: Vec<DroppedLayer>,
    /// How many auto-mapper configurations came along with their layers.
    pub automappers: usize,
    /// The other map's server settings that were added.
    pub settings_added: Vec<String>,
    /// How many of the other map's server settings this map had already.
    pub settings_present: usize,
}

/// A group [`Map::append`] added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppendedGroup {
    /// The group's index in the other map.
    pub from: usize,
    /// Its index in this map.
    pub to: usize,
    /// Its name.
    pub name: String,
    /// How many layers it holds.
    pub layers: usize,
    /// Whether it holds the layers of the other map's game group other than its physics
    /// layers.
    pub from_game_group: bool,
}

/// A layer of the other map [`Map::append`] left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedLayer {
    /// Its index in the other map.
    pub layer: usize,
    /// Its kind (`game`, `tele`, ...).
    pub kind: &'static str,
    /// Its name.
    pub name: String,
    /// Why it was left out.
    pub reason: String,
}

impl AppendReport {
    /// The report as lines of text, one per fact, as the command line prints them.
    pub fn facts(&self) -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        lines.extend(self.images.iter().map(|m| m.fact("image")));
        lines.extend(self.sounds.iter().map(|m| m.fact("sound")));
        lines.extend(self.envelopes.iter().map(|m| m.fact("envelope")));
        for g in &self.groups {
            let plural = if g.layers == 1 { "" } else { "s" };
            lines.push(if g.from_game_group {
                format!(
                    "game group #{} {:?}: its {} other layer{plural} appended as group #{}",
                    g.from, g.name, g.layers, g.to
                )
            } else {
                format!(
                    "group #{} {:?}: appended as #{} with {} layer{plural}",
                    g.from, g.name, g.to, g.layers
                )
            });
        }
        for d in &self.dropped {
            lines.push(format!(
                "layer #{} ({}) {:?} dropped: {}",
                d.layer, d.kind, d.name, d.reason
            ));
        }
        if self.automappers > 0 {
            lines.push(format!(
                "auto-mapper configurations carried along: {}",
                self.automappers
            ));
        }
        for setting in &self.settings_added {
            lines.push(format!("setting added: {setting}"));
        }
        if self.settings_present > 0 {
            lines.push(format!(
                "settings present already: {}",
                self.settings_present
            ));
        }
        lines
    }
}

/// Where an area lies in one group, on one axis: its start and length in the group's pixels
/// times 100 (so that a parallax in percent divides exactly).
#[derive(Debug, Clone, Copy)]
struct Span {
    /// The start, in pixels x 100.
    start: i128,
    /// The length, in pixels x 100; 0 on an axis the group does not scroll on.
    len: i128,
    /// The length in whole tiles, the same for every area of this size in this group.
    tiles: i128,
}

impl Span {
    /// The place in a group of parallax `parallax` (percent) and offset `offset` (pixels) of
    /// the game tiles `start..start + len`: the group's points drawn at the middle of the
    /// screen while the camera passes over them. The camera at game pixel `c` shows the
    /// group's point `c * parallax / 100 + offset` there (DDNet's `MapScreenToWorld`).
    fn of(start: u32, len: u32, parallax: i32, offset: i32) -> Span {
        let p = i128::from(parallax);
        let a = i128::from(start) * 32 * p + i128::from(offset) * 100;
        let b = (i128::from(start) + i128::from(len)) * 32 * p + i128::from(offset) * 100;
        Span {
            start: a.min(b),
            len: (b - a).abs(),
            tiles: round_div(i128::from(len) * p.abs(), 100),
        }
    }

    /// The first tile, rounded to the nearest.
    fn first_tile(&self) -> i128 {
        round_div(self.start, 3200)
    }

    /// The span in 22.10 fixed point (quad points, source positions): start and end.
    fn fixed(&self) -> (i128, i128) {
        let start = (self.start * 1024).div_euclid(100);
        (start, start + (self.len * 1024).div_euclid(100))
    }
}

/// `n / d` rounded to the nearest, halves up (`d` > 0).
fn round_div(n: i128, d: i128) -> i128 {
    (2 * n + d).div_euclid(2 * d)
}

/// The area of one layer: its place on each axis, in the source and in this map.
struct Place {
    from: [Span; 2],
    to: [Span; 2],
}

impl Place {
    /// Whether a point (22.10) lies in the source's area.
    fn in_from(&self, p: Point) -> bool {
        inside(&self.from, p)
    }

    /// Whether a point (22.10) lies in this map's area.
    fn in_to(&self, p: Point) -> bool {
        inside(&self.to, p)
    }

    /// How far (22.10) a point moves from the source's area to this map's.
    fn shift(&self) -> [i128; 2] {
        [0, 1].map(|axis| self.to[axis].fixed().0 - self.from[axis].fixed().0)
    }
}

/// Whether a point (22.10) lies in an area: from its start, up to its end.
fn inside(spans: &[Span; 2], p: Point) -> bool {
    let within = |span: &Span, v: i32| {
        let (start, end) = span.fixed();
        start <= i128::from(v) && i128::from(v) < end
    };
    within(&spans[0], p.x) && within(&spans[1], p.y)
}

/// Moves a point (22.10) by `shift`; `None` when it leaves the i32 range.
fn moved(p: Point, shift: [i128; 2]) -> Option<Point> {
    let x = i32::try_from(i128::from(p.x) + shift[0]).ok()?;
    let y = i32::try_from(i128::from(p.y) + shift[1]).ok()?;
    Some(Point { x, y })
}

/// Whether two envelopes, of two maps, are the same: kind, name, synchronization, points and
/// bezier tangents (none counts as zero tangents).
fn same_envelope(a: &Envelope, a_map: &Map, b: &Envelope, b_map: &Map) -> bool {
    let synchronized = |e: &Envelope| e.item.synchronized.is_none_or(|s| s != 0);
    let tangents = |e: &Envelope, map: &Map| -> Vec<EnvPointBezier> {
        let len = e.points(map).len();
        e.bezier(map)
            .filter(|t| t.len() == len)
            .map_or_else(|| vec![EnvPointBezier::default(); len], <[_]>::to_vec)
    };
    a.item.channels == b.item.channels
        && a.item.name == b.item.name
        && synchronized(a) == synchronized(b)
        && a.points(a_map) == b.points(b_map)
        && tangents(a, a_map) == tangents(b, b_map)
}

/// How the references of copied content follow: each envelope of the other map already
/// brought over, and the image and sound plans of an append.
#[derive(Default)]
struct Follow {
    envelopes: HashMap<usize, usize>,
    report: Vec<Merged>,
    images: Vec<usize>,
    sounds: Vec<usize>,
}

impl Map {
    /// The envelope of this map that serves for envelope `raw` of `other`: an identical one
    /// (the one at the same index first, when `same_index_first`), else a copy added at the
    /// end. A dangling value becomes -1, so that no reference names an envelope of this
    /// map by chance; none (any negative value) stays as it is.
    fn follow_envelope(
        &mut self,
        other: &Map,
        raw: i32,
        follow: &mut Follow,
        same_index_first: bool,
    ) -> Result<i32, Error> {
        // None stays as stored (some editors wrote -2); a dangling value becomes -1.
        let Ok(index) = usize::try_from(raw) else {
            return Ok(raw);
        };
        if index >= other.envelopes.len() {
            return Ok(-1);
        }
        if let Some(&to) = follow.envelopes.get(&index) {
            return count(to, "envelopes");
        }
        let theirs = &other.envelopes[index];
        let same = |to: &usize| same_envelope(&self.envelopes[*to], self, theirs, other);
        let found = match same_index_first && index < self.envelopes.len() && same(&index) {
            true => Some(index),
            false => (0..self.envelopes.len()).find(same),
        };
        let name = theirs.name();
        let (to, how) = match found {
            Some(to) => (to, Merge::Shared),
            None => {
                let tangents = theirs
                    .bezier(other)
                    .filter(|t| t.len() == theirs.points(other).len())
                    .map(<[_]>::to_vec);
                let added = self
                    .add_envelope_as_is(NewEnvelope {
                        kind: theirs.item.kind(),
                        name: String::new(),
                        points: theirs.points(other).to_vec(),
                        tangents,
                        synchronized: theirs.item.synchronized.is_none_or(|s| s != 0),
                    })
                    .map_err(|e| {
                        Error::invalid_edit(format!(
                            "envelope #{index} {name:?} of the other map: {}",
                            e.message()
                        ))
                    })?;
                // The name as stored, byte for byte.
                let to = added.index();
                self.envelopes[to].item.name = theirs.item.name;
                (to, Merge::Added)
            }
        };
        follow.envelopes.insert(index, to);
        follow.report.push(Merged {
            from: index,
            to,
            name,
            how,
        });
        count(to, "envelopes")
    }

    /// Puts an edited copy of this map in its place, keeping this map's identity: references
    /// taken before stay valid for the kinds the edit did not move.
    fn swap_in(&mut self, mut work: Map) {
        let mut stamp = std::mem::replace(&mut self.stamp, MapStamp::new());
        for (slot, &moved) in work.stamp.generations.iter().enumerate() {
            if moved == 0 {
                continue;
            }
            match stamp.generations.get_mut(slot) {
                Some(generation) if *generation < u32::MAX => *generation += 1,
                _ => stamp = MapStamp::new(),
            }
        }
        work.stamp = stamp;
        *self = work;
    }

    /// The error unless `other` has the structure of this map: the same layers, of the same
    /// kinds (physics kinds included), in the same groups.
    fn check_same_structure(&self, other: &Map) -> Result<(), Error> {
        for (index, (ours, theirs)) in self.layers.iter().zip(&other.layers).enumerate() {
            if ours.kind_name() != theirs.kind_name() {
                return Err(Error::invalid_edit(format!(
                    "the maps differ in structure: layer #{index} is a {} layer in the source \
                     map and a {} layer in this one",
                    theirs.kind_name(),
                    ours.kind_name()
                )));
            }
        }
        if self.layers.len() != other.layers.len() {
            let first = self.layers.len().min(other.layers.len());
            return Err(Error::invalid_edit(format!(
                "the maps differ in structure: the source map has {} layers and this one {}, \
                 from layer #{first} on",
                other.layers.len(),
                self.layers.len()
            )));
        }
        if self.groups.len() != other.groups.len() {
            return Err(Error::invalid_edit(format!(
                "the maps differ in structure: the source map has {} groups and this one {}",
                other.groups.len(),
                self.groups.len()
            )));
        }
        for (index, (ours, theirs)) in self
            .layer_groups
            .iter()
            .zip(&other.layer_groups)
            .enumerate()
        {
            if ours != theirs {
                let group =
                    |g: &Option<usize>| g.map_or("no group".to_string(), |g| format!("group #{g}"));
                return Err(Error::invalid_edit(format!(
                    "the maps differ in structure: layer #{index} is in {} in the source map \
                     and in {} in this one",
                    group(theirs),
                    group(ours)
                )));
            }
        }
        Ok(())
    }

    /// The game layer's width and height, or the error naming `which` map has none.
    fn game_size(&self, which: &str) -> Result<(u64, u64), Error> {
        let (_, game) = self
            .game_layer()
            .ok_or_else(|| Error::invalid_edit(format!("{which} has no game layer")))?;
        let item = game.item();
        Ok((item.width.max(0) as u64, item.height.max(0) as u64))
    }

    /// Copies an area of game-layer tiles of `from`, a map of the same structure, into this
    /// map at `to` (the area's new top-left tile), as DDNet's `map_replace_area` does, in
    /// every layer:
    ///
    /// - **Same structure.** Both maps have the same layers, of the same kinds (a tele layer
    ///   where the other has a tele layer), in the same groups; otherwise an error names the
    ///   first layer that differs. Groups may differ in parallax and offset.
    /// - **Tile layers**, physics layers included with their own data (tele numbers, speedup
    ///   forces and angles, switch numbers and delays, tune zones, front tiles), are cleared
    ///   in this map's area, then filled from the source's area. The layer's own settings
    ///   (image, color, color envelope) stay this map's.
    /// - **Quads** whose pivot lies in this map's area are removed; the source's quads whose
    ///   pivot lies in its area come in their places (in order; any more go at the end of the
    ///   layer), moved by the distance between the two areas. **Sound sources** the same, by
    ///   their position.
    /// - **Envelopes** that copied quads and sources name come along: an identical envelope of
    ///   this map serves when there is one (the one at the same index first), else a copy is
    ///   added at the end; references to no envelope of the source become none. Images and
    ///   sounds are layer settings, which stay this map's.
    /// - **Groups that scroll differently** (parallax other than 100, or an offset): the area
    ///   of a layer is the part of its group drawn at the middle of the screen while the
    ///   camera passes over the game area, that is game pixels `p` map to group pixels
    ///   `p * parallax / 100 + offset`; tiles are counted from the nearest tile edge, and an
    ///   area is as many tiles as `width * parallax / 100` rounded, in either map. A group
    ///   with parallax 0 on an axis shows the same whatever the camera does, so nothing of it
    ///   is copied. (DDNet's tool widens the area by a 1430 x 1050 screen scaled by the
    ///   parallax, so that two copies side by side overlap; a screen's size depends on the
    ///   player, so it is left out here.) Clipping is not considered.
    ///
    /// An area of no tiles, or one reaching out of either map's game layer, is an error, and
    /// so is content that does not load (the tiles, quads or sources of a layer). Layers in
    /// no group are left as they are. Copying an area of a map into itself at the same place
    /// changes nothing; a layer whose content comes out the same is not changed.
    ///
    /// ```
    /// use twcodec::map::edit::TileRect;
    /// let from = twcodec_testkit::sample::map()?;
    /// let mut map = twcodec_testkit::sample::map()?;
    /// // The 3 x 2 tiles at column 4, row 1 of `from`, to column 1, row 4.
    /// let report = map.replace_area(&from, TileRect::new(4, 1, 3, 2), (1, 4))?;
    /// assert!(report.layers.iter().any(|layer| layer.changed));
    /// let reloaded = twcodec::Map::parse(&map.to_bytes()?)?;
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn replace_area(
        &mut self,
        from: &Map,
        from_area: TileRect,
        to: (u32, u32),
    ) -> Result<ReplaceAreaReport, Error> {
        let to_area = TileRect::new(to.0, to.1, from_area.width, from_area.height);
        if from_area.width == 0 || from_area.height == 0 {
            return Err(Error::invalid_edit(format!(
                "the area {from_area} holds no tiles"
            )));
        }
        self.check_same_structure(from)?;
        for (map, area, which, area_name) in [
            (from, from_area, "the source map", "the area"),
            (&*self, to_area, "this map", "the target area"),
        ] {
            let (width, height) = map.game_size(which)?;
            let right = u64::from(area.x) + u64::from(area.width);
            let bottom = u64::from(area.y) + u64::from(area.height);
            if right > width || bottom > height {
                return Err(Error::invalid_edit(format!(
                    "{area_name} {area} reaches out of {which}'s {width}x{height} game layer"
                )));
            }
        }
        let mut work = self.clone();
        let mut follow = Follow::default();
        let mut report = ReplaceAreaReport::default();
        for index in 0..work.layers.len() {
            let kind = work.layers[index].kind_name();
            // Layers in no group are not drawn, and are left as they are.
            let groups = (group_index(from, index).and_then(|g| from.groups.get(g)))
                .zip(group_index(&work, index).and_then(|g| work.groups.get(g)));
            let Some((gs, gd)) = groups else {
                continue;
            };
            let spans = |group: &Group, area: TileRect| {
                let item = &group.item;
                [
                    Span::of(area.x, area.width, item.parallax.x, item.offset.x),
                    Span::of(area.y, area.height, item.parallax.y, item.offset.y),
                ]
            };
            let place = Place {
                from: spans(gs, from_area),
                to: spans(gd, to_area),
            };
            let mut entry = AreaLayer {
                layer: index,
                kind,
                tiles: 0,
                removed: 0,
                added: 0,
                changed: false,
            };
            let source = &from.layers[index];
            match source.content() {
                LayerContent::Quads(q) => {
                    let theirs = q
                        .quads()
                        .ok_or_else(|| not_loaded(index, "quads", "the source map"))?;
                    let LayerContent::Quads(ours) = work.layers[index].content() else {
                        continue;
                    };
                    let ours = ours
                        .quads()
                        .ok_or_else(|| not_loaded(index, "quads", "this map"))?
                        .to_vec();
                    let mut added = Vec::new();
                    for quad in theirs.iter().filter(|q| place.in_from(q.pivot())) {
                        let mut quad = *quad;
                        let shift = place.shift();
                        let points = quad.points.map(|p| moved(p, shift));
                        if points.iter().any(Option::is_none) {
                            return Err(Error::invalid_edit(format!(
                                "layer #{index}: a quad moved to the target area leaves the world's coordinates"
                            )));
                        }
                        quad.points = points.map(Option::unwrap_or_default);
                        if !place.in_to(quad.pivot()) {
                            continue;
                        }
                        quad.position_envelope =
                            work.follow_envelope(from, quad.position_envelope, &mut follow, true)?;
                        quad.color_envelope =
                            work.follow_envelope(from, quad.color_envelope, &mut follow, true)?;
                        added.push(quad);
                    }
                    let (result, removed) = fill_slots(&ours, &added, |q| place.in_to(q.pivot()));
                    entry.removed = removed;
                    entry.added = added.len();
                    if result != ours {
                        let layer = &mut work.layers[index];
                        if let LayerContent::Quads(q) = layer.content_mut() {
                            q.item_mut().num_quads = count(result.len(), "quads")?;
                            if let Some(list) = q.quads_mut() {
                                *list = result;
                            }
                        }
                        layer.verbatim = None;
                        entry.changed = true;
                    }
                }
                LayerContent::Sounds(s) => {
                    let theirs = s
                        .sources()
                        .ok_or_else(|| not_loaded(index, "sources", "the source map"))?;
                    let LayerContent::Sounds(ours) = work.layers[index].content() else {
                        continue;
                    };
                    let ours = ours
                        .sources()
                        .ok_or_else(|| not_loaded(index, "sources", "this map"))?
                        .to_vec();
                    let mut added = Vec::new();
                    for source in theirs.iter().filter(|s| place.in_from(s.position)) {
                        let mut source: SoundSource = *source;
                        source.position = moved(source.position, place.shift()).ok_or_else(|| {
                            Error::invalid_edit(format!(
                                "layer #{index}: a sound source moved to the target area leaves the world's coordinates"
                            ))
                        })?;
                        if !place.in_to(source.position) {
                            continue;
                        }
                        source.position_envelope = work.follow_envelope(
                            from,
                            source.position_envelope,
                            &mut follow,
                            true,
                        )?;
                        source.sound_envelope =
                            work.follow_envelope(from, source.sound_envelope, &mut follow, true)?;
                        added.push(source);
                    }
                    let (result, removed) = fill_slots(&ours, &added, |s| place.in_to(s.position));
                    entry.removed = removed;
                    entry.added = added.len();
                    if result != ours {
                        let layer = &mut work.layers[index];
                        if let LayerContent::Sounds(s) = layer.content_mut() {
                            s.item_mut().num_sources = count(result.len(), "sources")?;
                            if let Some(list) = s.sources_mut() {
                                *list = result;
                            }
                        }
                        layer.verbatim = None;
                        entry.changed = true;
                    }
                }
                LayerContent::Unknown(_) => {}
                theirs => {
                    let target = &mut work.layers[index];
                    let (tiles, changed) = match (target.content_mut(), theirs) {
                        (LayerContent::Tiles(t), LayerContent::Tiles(s))
                        | (LayerContent::Game(t), LayerContent::Game(s))
                        | (LayerContent::Front(t), LayerContent::Front(s)) => {
                            copy_tiles(index, t, s, &place)?
                        }
                        (LayerContent::Tele(t), LayerContent::Tele(s)) => {
                            copy_tiles(index, t, s, &place)?
                        }
                        (LayerContent::Speedup(t), LayerContent::Speedup(s)) => {
                            copy_tiles(index, t, s, &place)?
                        }
                        (LayerContent::Switch(t), LayerContent::Switch(s)) => {
                            copy_tiles(index, t, s, &place)?
                        }
                        (LayerContent::Tune(t), LayerContent::Tune(s)) => {
                            copy_tiles(index, t, s, &place)?
                        }
                        _ => (0, false),
                    };
                    if changed {
                        target.verbatim = None;
                    }
                    entry.tiles = tiles;
                    entry.changed = changed;
                }
            }
            report.layers.push(entry);
        }
        report.envelopes = follow.report;
        self.swap_in(work);
        Ok(report)
    }
}

/// The group holding layer `index`, as the resolver found it.
fn group_index(map: &Map, index: usize) -> Option<usize> {
    map.layer_groups.get(index).copied().flatten()
}

/// The error for an added item the plan does not hold (a bug: plans and additions go in step).
fn planned() -> Error {
    Error::invalid_edit("an appended item missing from the plan")
}

/// The error for layer content that did not load.
fn not_loaded(index: usize, what: &str, which: &str) -> Error {
    Error::invalid_edit(format!("layer #{index}'s {what} did not load in {which}"))
}

/// The list `ours` with the items `remove` picks replaced by `added`: each added item takes
/// the place of the next removed one, in order; any more go at the end. The list, and how many
/// were removed.
fn fill_slots<T: Copy>(ours: &[T], added: &[T], remove: impl Fn(&T) -> bool) -> (Vec<T>, usize) {
    let mut result = Vec::with_capacity(ours.len() + added.len());
    let mut next = added.iter();
    let mut removed = 0;
    for item in ours {
        if remove(item) {
            removed += 1;
            if let Some(new) = next.next() {
                result.push(*new);
            }
        } else {
            result.push(*item);
        }
    }
    result.extend(next);
    (result, removed)
}

/// Clears this map's area of a tile layer and fills it from the source's: the tiles of the
/// area, and whether any changed. The grid is changed (and so written anew) only then.
fn copy_tiles<T: TileKind + PartialEq>(
    index: usize,
    ours: &mut TilesLayer<T>,
    theirs: &TilesLayer<T>,
    place: &Place,
) -> Result<(usize, bool), Error> {
    let source = theirs
        .grid()
        .ok_or_else(|| not_loaded(index, "tiles", "the source map"))?;
    let target = ours
        .grid()
        .ok_or_else(|| not_loaded(index, "tiles", "this map"))?;
    let (width, height) = (target.width() as i128, target.height() as i128);
    let (from_x, from_y) = (place.from[0].first_tile(), place.from[1].first_tile());
    let (to_x, to_y) = (place.to[0].first_tile(), place.to[1].first_tile());
    let (across, down) = (
        place.to[0].tiles.min(place.from[0].tiles),
        place.to[1].tiles.min(place.from[1].tiles),
    );
    // The target cells within the layer, each with the source tile or air.
    let mut cells = Vec::new();
    let clamp = |v: i128, end: i128| v.clamp(0, end);
    let (x0, x1) = (clamp(to_x, width), clamp(to_x + place.to[0].tiles, width));
    let (y0, y1) = (clamp(to_y, height), clamp(to_y + place.to[1].tiles, height));
    for y in y0..y1 {
        for x in x0..x1 {
            let (dx, dy) = (x - to_x, y - to_y);
            let tile = if dx < across && dy < down {
                let (sx, sy) = (from_x + dx, from_y + dy);
                usize::try_from(sx)
                    .ok()
                    .zip(usize::try_from(sy).ok())
                    .and_then(|(sx, sy)| source.get(sx, sy))
                    .copied()
            } else {
                None
            };
            cells.push((x as usize, y as usize, tile.unwrap_or_else(T::zeroed)));
        }
    }
    let changed = cells
        .iter()
        .any(|&(x, y, tile)| target.get(x, y) != Some(&tile));
    if changed {
        if let Some(grid) = ours.grid_mut() {
            for (x, y, tile) in &cells {
                if let Some(cell) = grid.get_mut(*x, *y) {
                    *cell = *tile;
                }
            }
        }
    }
    Ok((cells.len(), changed))
}

/// The name for an item named `name` among `taken` names: itself when free, else the first
/// free of `name (1)`, `name (2)`, ... (the editor's rule).
fn free_name(name: &str, taken: &[String]) -> String {
    if !taken.iter().any(|t| t == name) {
        return name.to_string();
    }
    (1..)
        .map(|n| format!("{name} ({n})"))
        .find(|candidate| !taken.iter().any(|t| t == candidate))
        .unwrap_or_default()
}

/// An image as the append compares it: its name, and its pixels (RGBA) when embedded.
struct ImageKey {
    name: String,
    pixels: Option<(u32, u32, Bytes)>,
}

impl ImageKey {
    /// The key of image `index` of `map`; the error when embedded pixels do not load.
    fn of(map: &Map, index: usize, which: &str) -> Result<ImageKey, Error> {
        let image = &map.images[index];
        let name = image.name(map).unwrap_or_default();
        if image.is_external() {
            return Ok(ImageKey { name, pixels: None });
        }
        let rgba = image.rgba8(map).map_err(|e| {
            Error::invalid_edit(format!(
                "image #{index} {name:?} of {which}: {}",
                e.message()
            ))
        })?;
        let size = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        Ok(ImageKey {
            name,
            pixels: Some((
                size(rgba.width),
                size(rgba.height),
                Bytes::from(rgba.bytes.into_owned()),
            )),
        })
    }
}

/// A sound as the append compares it: its name, whether external, and its data.
struct SoundKey {
    name: String,
    external: bool,
    data: Option<Bytes>,
}

impl SoundKey {
    fn of(map: &Map, index: usize) -> SoundKey {
        let sound = &map.sounds[index];
        SoundKey {
            name: sound.name(map).unwrap_or_default(),
            external: sound.item.external != 0,
            data: sound.data(map).ok().map(|d| Bytes::from(d.into_owned())),
        }
    }
}

/// What to do with one image or sound of the other map.
enum Plan {
    Share(usize),
    Add(String),
}

impl Map {
    /// Appends `other` into this map, as DDNet's editor does with "Append map":
    ///
    /// - **Images** come first. An image of the same name and the same content (both
    ///   external, or both embedded with the same size and RGBA pixels) is shared: references
    ///   go to this map's image. So is an embedded image with the same pixels under another
    ///   name (the editor shares by name only). An image of a name this map has with other
    ///   content is added as `name (1)` (`(2)`, ... when taken); the others are added as
    ///   they are. More than DDNet's 64 images is an error, before anything changes.
    /// - **Sounds** the same way: the same data (or, external, the same name) is shared; a
    ///   taken name gets a number; more than 64 is an error.
    /// - **Envelopes** are all appended, except that one identical to an envelope of this map
    ///   (kind, name, synchronization, points and tangents) is shared.
    /// - **Groups**: every group of `other` is appended at the end, in order, except its game
    ///   group (the one holding its game layer). The layers of that group that are not
    ///   physics layers are not lost: in its place they form a new group named like it,
    ///   with parallax 100, offset 0 and no clipping, which is how DDNet draws the game group
    ///   whatever its item says (in maps the editor writes, these are its values anyway).
    /// - **Physics layers** of `other` (game, front, tele, speedup, switch, tune) are dropped,
    ///   as the editor drops them: this map keeps its own. So are layers of unknown types and
    ///   layers whose content does not load; the report lists each.
    /// - **References** of appended layers, quads and sources (image, color envelope, position
    ///   and color envelopes, sound, position and sound envelopes) are renumbered to the items
    ///   that serve for them here; a dangling one becomes none.
    /// - **Auto-mapper configurations** of appended layers come along.
    /// - **Server settings** of `other` that this map does not have (the same command, byte
    ///   for byte) are added after this map's. Map info (author, credits, ...) stays this
    ///   map's.
    ///
    /// An error (a limit, content of an image or sound that does not load) changes nothing.
    ///
    /// ```
    /// let mut map = twcodec_testkit::sample::empty_map()?;
    /// let report = map.append(&twcodec_testkit::sample::map()?)?;
    /// assert_eq!(map.images().len(), 2);
    /// // The sample's game layer and its other physics layers stay out.
    /// assert_eq!(report.dropped.len(), 6);
    /// for fact in report.facts() {
    ///     println!("{fact}");
    /// }
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn append(&mut self, other: &Map) -> Result<AppendReport, Error> {
        let mut report = AppendReport::default();
        // Plans first, so that the limits are checked before anything changes.
        let mut image_keys: Vec<ImageKey> = (0..self.images.len())
            .map(|i| {
                ImageKey::of(self, i, "this map").unwrap_or_else(|_| ImageKey {
                    name: self.images[i].name(self).unwrap_or_default(),
                    // Pixels that do not load are shared with nothing.
                    pixels: None,
                })
            })
            .collect();
        let ours_external: Vec<bool> = self.images.iter().map(|i| i.is_external()).collect();
        let mut external = ours_external.clone();
        let mut image_plans = Vec::new();
        for index in 0..other.images.len() {
            let key = ImageKey::of(other, index, "the other map")?;
            let same = |k: &ImageKey, ext: bool| match (&key.pixels, &k.pixels) {
                (None, None) => ext && other.images[index].is_external() && k.name == key.name,
                (Some(a), Some(b)) => a == b,
                _ => false,
            };
            let by_name = (0..image_keys.len())
                .find(|&i| image_keys[i].name == key.name && same(&image_keys[i], external[i]));
            let any = by_name.or_else(|| {
                (0..image_keys.len())
                    .find(|&i| key.pixels.is_some() && same(&image_keys[i], external[i]))
            });
            match any {
                Some(to) => image_plans.push(Plan::Share(to)),
                None => {
                    let names: Vec<String> = image_keys.iter().map(|k| k.name.clone()).collect();
                    let name = free_name(&key.name, &names);
                    image_plans.push(Plan::Add(name.clone()));
                    external.push(other.images[index].is_external());
                    image_keys.push(ImageKey { name, ..key });
                }
            }
        }
        let new_images = image_keys.len() - self.images.len();
        if new_images > 0 && image_keys.len() > MAX_IMAGES {
            return Err(Error::limit(format!(
                "appending gives {} images ({} here, {new_images} new); DDNet loads at most {MAX_IMAGES}",
                image_keys.len(),
                self.images.len()
            )));
        }
        let mut sound_keys: Vec<SoundKey> = (0..self.sounds.len())
            .map(|i| SoundKey::of(self, i))
            .collect();
        let mut sound_plans = Vec::new();
        for index in 0..other.sounds.len() {
            let key = SoundKey::of(other, index);
            if key.data.is_none() && !key.external {
                return Err(Error::invalid_edit(format!(
                    "sound #{index} {:?} of the other map: its data does not load",
                    key.name
                )));
            }
            let same = |k: &SoundKey| match (key.external, k.external) {
                (true, true) => k.name == key.name,
                (false, false) => k.data.is_some() && k.data == key.data,
                _ => false,
            };
            let found = (0..sound_keys.len())
                .find(|&i| sound_keys[i].name == key.name && same(&sound_keys[i]))
                .or_else(|| (0..sound_keys.len()).find(|&i| same(&sound_keys[i])));
            match found {
                Some(to) => sound_plans.push(Plan::Share(to)),
                None => {
                    let names: Vec<String> = sound_keys.iter().map(|k| k.name.clone()).collect();
                    let name = free_name(&key.name, &names);
                    sound_plans.push(Plan::Add(name.clone()));
                    sound_keys.push(SoundKey { name, ..key });
                }
            }
        }
        let new_sounds = sound_keys.len() - self.sounds.len();
        if new_sounds > 0 && sound_keys.len() > MAX_SOUNDS {
            return Err(Error::limit(format!(
                "appending gives {} sounds ({} here, {new_sounds} new); DDNet loads at most {MAX_SOUNDS}",
                sound_keys.len(),
                self.sounds.len()
            )));
        }

        let mut work = self.clone();
        let mut follow = Follow::default();
        for (index, plan) in image_plans.into_iter().enumerate() {
            let theirs = &other.images[index];
            let name = theirs.name(other).unwrap_or_default();
            let (to, how) = match plan {
                Plan::Share(to) => (to, Merge::Shared),
                Plan::Add(new_name) => {
                    let key = image_keys.get(work.images.len()).ok_or_else(planned)?;
                    let added = match &key.pixels {
                        None => {
                            let size = |v: i32| u32::try_from(v).unwrap_or(0);
                            work.add_image(
                                &new_name,
                                size(theirs.item.width),
                                size(theirs.item.height),
                                None,
                            )?
                        }
                        Some((w, h, rgba)) => {
                            work.add_embedded_image(&new_name, *w, *h, rgba.clone())?
                        }
                    };
                    let how = match new_name == name {
                        true => Merge::Added,
                        false => Merge::Renamed(new_name),
                    };
                    (added.index(), how)
                }
            };
            follow.images.push(to);
            report.images.push(Merged {
                from: index,
                to,
                name,
                how,
            });
        }
        for (index, plan) in sound_plans.into_iter().enumerate() {
            let theirs = &other.sounds[index];
            let name = theirs.name(other).unwrap_or_default();
            let (to, how) = match plan {
                Plan::Share(to) => (to, Merge::Shared),
                Plan::Add(new_name) => {
                    let key = sound_keys.get(work.sounds.len()).ok_or_else(planned)?;
                    let to = match (&key.data, key.external) {
                        (Some(data), false) => work.add_sound(&new_name, data.clone())?.index(),
                        // External: the name, and the data only when there is some, as
                        // DDNet refuses a data item of no bytes.
                        (data, _) => work.add_external_sound(
                            &new_name,
                            theirs.item.external,
                            data.clone().filter(|d| !d.is_empty()),
                        )?,
                    };
                    let how = match new_name == name {
                        true => Merge::Added,
                        false => Merge::Renamed(new_name),
                    };
                    (to, how)
                }
            };
            follow.sounds.push(to);
            report.sounds.push(Merged {
                from: index,
                to,
                name,
                how,
            });
        }
        for index in 0..other.envelopes.len() {
            work.follow_envelope(other, count(index, "envelopes")?, &mut follow, false)?;
        }
        report.envelopes = std::mem::take(&mut follow.report);

        let game_group = other
            .game_layer()
            .and_then(|(layer, _)| other.group_of(layer))
            .and_then(|group| other.index_of(group));
        for (g, group) in other.groups.iter().enumerate() {
            let is_game = Some(g) == game_group;
            let mut layers = Vec::new();
            for l in (0..other.layers.len()).filter(|&l| group_index(other, l) == Some(g)) {
                let layer = &other.layers[l];
                let reason = if layer.is_physics() {
                    Some("the other map's physics layers are dropped: this map keeps its own")
                } else if matches!(layer.content(), LayerContent::Unknown(_)) {
                    Some("a layer of an unknown type")
                } else if !layer.content_loads() {
                    Some("its content does not load")
                } else {
                    None
                };
                match reason {
                    Some(reason) => report.dropped.push(DroppedLayer {
                        layer: l,
                        kind: layer.kind_name(),
                        name: layer.name(),
                        reason: reason.to_string(),
                    }),
                    None => layers.push(l),
                }
            }
            if is_game && layers.is_empty() {
                continue;
            }
            let added = work.add_group(NewGroup::new(""))?;
            let to = added.index();
            let stored = &mut work.groups[to];
            stored.item.name = group.item.name;
            if !is_game {
                stored.item.offset = group.item.offset;
                stored.item.parallax = group.item.parallax;
                stored.item.clip = Some(group.item.clip.unwrap_or_default());
                if let Some((_, ex)) = work.group_ex.get_mut(to) {
                    *ex = GroupExItem {
                        version: 1,
                        parallax_zoom: parallax_zoom(group.item.parallax),
                        unknown_tail: Vec::new(),
                    };
                }
            }
            let group_ref: ItemRef<Group> = work.mint(to);
            for (position, &l) in layers.iter().enumerate() {
                let added = work.add_layer(group_ref, other.layers[l].clone())?;
                work.follow_layer(other, added.index(), l, &mut follow)?;
                if let Some(automapper) =
                    other.layer_automappers[l].and_then(|a| other.automappers.get(a))
                {
                    let id = free_id(work.automappers.iter().map(|a| a.id), "auto-mapper")?;
                    let mut item = automapper.item.clone();
                    item.group = count(to, "groups")?;
                    item.layer = count(position, "layers")?;
                    work.automappers.push(Automapper {
                        id,
                        item,
                        verbatim: None,
                        layer: None,
                    });
                    report.automappers += 1;
                }
            }
            report.groups.push(AppendedGroup {
                from: g,
                to,
                name: group.name(),
                layers: layers.len(),
                from_game_group: is_game,
            });
        }
        // Envelopes only layers name (none here: every envelope came above) are in the report.
        report.envelopes.append(&mut follow.report);
        work.rebuild_tables();
        work.merge_settings(other, &mut report)?;
        self.swap_in(work);
        Ok(report)
    }

    /// Sets the references of layer `index`, a copy of layer `from_index` of `other`, to the
    /// items that serve for those it named there.
    fn follow_layer(
        &mut self,
        other: &Map,
        index: usize,
        from_index: usize,
        follow: &mut Follow,
    ) -> Result<(), Error> {
        let theirs = &other.layers[from_index];
        let lookup = |list: &[usize], raw: i32| -> Result<i32, Error> {
            match usize::try_from(raw).map(|i| list.get(i)) {
                Ok(Some(&to)) => count(to, "items"),
                // None stays as stored; a dangling value becomes -1.
                Ok(None) => Ok(-1),
                Err(_) => Ok(raw),
            }
        };
        match theirs.content() {
            LayerContent::Quads(q) => {
                let image = lookup(&follow.images, q.item().image)?;
                let mut quads = q.quads().unwrap_or_default().to_vec();
                for quad in &mut quads {
                    quad.position_envelope =
                        self.follow_envelope(other, quad.position_envelope, follow, false)?;
                    quad.color_envelope =
                        self.follow_envelope(other, quad.color_envelope, follow, false)?;
                }
                if let LayerContent::Quads(ours) = self.layers[index].content_mut() {
                    ours.item_mut().image = image;
                    if let Some(list) = ours.quads_mut() {
                        *list = quads;
                    }
                }
            }
            LayerContent::Sounds(s) => {
                let sound = lookup(&follow.sounds, s.item().sound)?;
                let mut sources = s.sources().unwrap_or_default().to_vec();
                for source in &mut sources {
                    source.position_envelope =
                        self.follow_envelope(other, source.position_envelope, follow, false)?;
                    source.sound_envelope =
                        self.follow_envelope(other, source.sound_envelope, follow, false)?;
                }
                if let LayerContent::Sounds(ours) = self.layers[index].content_mut() {
                    ours.item_mut().sound = sound;
                    if let Some(list) = ours.sources_mut() {
                        *list = sources;
                    }
                }
            }
            _ => {
                if let Some(tilemap) = theirs.tilemap() {
                    let image = lookup(&follow.images, tilemap.image)?;
                    let envelope =
                        self.follow_envelope(other, tilemap.color_envelope, follow, false)?;
                    if let Some(ours) = self.layers[index].content_mut().tilemap_mut() {
                        ours.image = image;
                        ours.color_envelope = envelope;
                        // A tiles layer keeps no physics flag (a mod's, read as tiles): written
                        // with DDNet's physics indices, it would read back as a physics layer.
                        ours.flags = (ours.flags)
                            .with_game(false)
                            .with_tele(false)
                            .with_speedup(false)
                            .with_front(false)
                            .with_switch(false)
                            .with_tune(false);
                    }
                }
            }
        }
        self.layers[index].verbatim = None;
        Ok(())
    }

    /// Adds an external sound (a mod's: DDNet plays embedded ones only), with its data when
    /// it has some; its index.
    fn add_external_sound(
        &mut self,
        name: &str,
        external: i32,
        data: Option<Bytes>,
    ) -> Result<usize, Error> {
        let data_size = count(data.as_ref().map_or(0, Bytes::len), "bytes")?;
        let name = self.text_data("the sound name", name)?;
        let id = free_id(self.sounds.iter().map(|s| s.id), "sound")?;
        self.data_room(2)?;
        let name = self.push_data(name);
        let data = data.map_or(-1, |data| self.push_data(data));
        self.sounds.push(Stored::new(
            id,
            SoundItem {
                version: 1,
                external,
                name,
                data,
                data_size,
                unknown_tail: Vec::new(),
            },
            None,
        ));
        Ok(self.sounds.len() - 1)
    }

    /// Adds the server settings of `other` this map does not have, after its own.
    fn merge_settings(&mut self, other: &Map, report: &mut AppendReport) -> Result<(), Error> {
        let theirs = match other.info() {
            Some(info) => info.settings(other)?.iter().map(<[u8]>::to_vec).collect(),
            None => Vec::new(),
        };
        let mut all: Vec<Vec<u8>> = match self.info() {
            Some(info) => info.settings(self)?.iter().map(<[u8]>::to_vec).collect(),
            None => Vec::new(),
        };
        for setting in theirs {
            if all.contains(&setting) {
                report.settings_present += 1;
            } else {
                report
                    .settings_added
                    .push(String::from_utf8_lossy(&setting).into_owned());
                all.push(setting);
            }
        }
        if report.settings_added.is_empty() {
            return Ok(());
        }
        let bytes = settings_data(&all);
        self.limits()
            .check_string_bytes("the settings", bytes.len())?;
        let current = self.info.as_ref().and_then(|info| info.item.settings);
        let data = match current {
            Some(raw) if raw >= 0 => self.replaced_data(raw, Bytes::from(bytes))?,
            _ => {
                self.data_room(1)?;
                self.push_data(bytes)
            }
        };
        match &mut self.info {
            Some(info) => {
                info.item.settings = Some(data);
                info.verbatim = None;
            }
            None => {
                self.info = Some(Stored::new(
                    0,
                    InfoItem {
                        version: 1,
                        author: -1,
                        map_version: -1,
                        credits: -1,
                        license: -1,
                        settings: Some(data),
                        unknown_tail: Vec::new(),
                    },
                    None,
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_follow_parallax_and_offset() {
        // Parallax 100, offset 0: the game tiles themselves.
        let s = Span::of(10, 4, 100, 0);
        assert_eq!((s.first_tile(), s.tiles), (10, 4));
        // Offset 64 px: two tiles further in the group.
        let s = Span::of(10, 4, 100, 64);
        assert_eq!((s.first_tile(), s.tiles), (12, 4));
        // Parallax 50: half as far and half as large.
        let s = Span::of(10, 4, 50, 0);
        assert_eq!((s.first_tile(), s.tiles), (5, 2));
        // Parallax 0: nothing scrolls, nothing is copied.
        let s = Span::of(10, 4, 0, 0);
        assert_eq!((s.tiles, s.len), (0, 0));
        // Negative parallax: the area is mirrored, its start the lower end.
        let s = Span::of(10, 4, -100, 0);
        assert_eq!((s.first_tile(), s.tiles), (-14, 4));
        assert_eq!(Span::of(1, 1, 100, 0).fixed(), (32 * 1024, 64 * 1024));
    }

    #[test]
    fn slots_take_the_new_items_in_order() {
        let (list, removed) = fill_slots(&[1, 10, 2, 11, 3], &[20, 21, 22], |&v| v >= 10);
        assert_eq!((list, removed), (vec![1, 20, 2, 21, 3, 22], 2));
        let (list, removed) = fill_slots(&[10, 1, 11], &[20], |&v| v >= 10);
        assert_eq!((list, removed), (vec![20, 1], 2));
    }

    #[test]
    fn taken_names_get_numbers() {
        let taken = ["a".to_string(), "a (1)".to_string()];
        assert_eq!(free_name("b", &taken), "b");
        assert_eq!(free_name("a", &taken), "a (2)");
    }
}
