//! Making a map smaller without changing how it looks or plays: [`Map::optimize`] and its
//! steps, each of which can be left out (docs/optimize.md).

use std::collections::BTreeSet;

use twcodec_schema::map::tile::Tile;

use super::pictures::{self, Rect};
use super::*;
use crate::error::Error;
use crate::map::layer::{LayerContent, TilesLayer};
use crate::map::{DataItem, Envelope, Grid, Image, Sound};
use crate::write::DatafileWriter;

/// A step of [`Map::optimize`], in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum Step {
    /// Remove what nothing uses: tile layers all air, quads layers without quads, sounds
    /// layers without sources, layers in no group, then groups left empty, then images,
    /// envelopes and sounds nothing refers to, then data items no item names. Physics layers,
    /// the game group and layers an auto-mapper configures are kept.
    Unused,
    /// Cut the rows and columns of air at the sides of tile layers down to one (DDNet draws
    /// a tile layer's edge repeated outward, so one row of air must stay), moving the group
    /// offset for cuts at the left and top so that nothing moves in the world. Physics layers
    /// keep the game layer's size, and the game group's offset cannot move.
    Shrink,
    /// Clear the cells (the 256 tiles of a 16 by 16 tileset) of embedded images that no tile
    /// layer drawn with the image uses; for images no layer draws at all, every pixel.
    Cells,
    /// Set the color of fully transparent pixels of embedded images to black.
    Transparent,
    /// Spread the colors of opaque pixels into the fully transparent pixels around them (up
    /// to 11 pixels, within each tileset cell), so that mipmapped drawing does not bleed.
    Dilate,
    /// Compress every data item again at the options' level.
    Recompress,
}

impl Step {
    /// Every step, in order.
    pub const ALL: [Step; 6] = [
        Step::Unused,
        Step::Shrink,
        Step::Cells,
        Step::Transparent,
        Step::Dilate,
        Step::Recompress,
    ];

    /// The picture steps (those that change pixels of embedded images).
    pub const PICTURES: [Step; 3] = [Step::Cells, Step::Transparent, Step::Dilate];

    /// The step's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Step::Unused => "unused",
            Step::Shrink => "shrink",
            Step::Cells => "cells",
            Step::Transparent => "transparent",
            Step::Dilate => "dilate",
            Step::Recompress => "recompress",
        }
    }

    /// The step of a name.
    pub fn from_name(name: &str) -> Option<Step> {
        Step::ALL.into_iter().find(|step| step.name() == name)
    }
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What [`Map::optimize`] does: every step by default, at zlib level 9.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OptimizeOptions {
    /// The steps to run.
    pub steps: BTreeSet<Step>,
    /// The zlib level of new and recompressed data (0 to 9).
    pub level: u32,
    /// Write the map after each step to report its size (a write per step).
    pub measure: bool,
}

impl Default for OptimizeOptions {
    fn default() -> OptimizeOptions {
        OptimizeOptions {
            steps: Step::ALL.into_iter().collect(),
            level: 9,
            measure: false,
        }
    }
}

impl OptimizeOptions {
    /// Leaves a step out.
    pub fn skip(mut self, step: Step) -> OptimizeOptions {
        self.steps.remove(&step);
        self
    }

    /// Leaves the picture steps out: embedded images keep every pixel.
    pub fn keep_images(mut self) -> OptimizeOptions {
        for step in Step::PICTURES {
            self.steps.remove(&step);
        }
        self
    }

    /// The zlib level of new and recompressed data.
    pub fn level(mut self, level: u32) -> OptimizeOptions {
        self.level = level;
        self
    }

    /// Whether to measure the map's size after each step.
    pub fn measure(mut self, measure: bool) -> OptimizeOptions {
        self.measure = measure;
        self
    }

    /// Whether a step runs.
    pub fn runs(&self, step: Step) -> bool {
        self.steps.contains(&step)
    }

    /// The writer for the optimized map: new data at the options' level, and every data
    /// item compressed anew when the recompress step runs.
    pub fn writer(&self, map: &Map) -> Result<DatafileWriter, Error> {
        Ok(map
            .to_datafile()?
            .compression_level(self.level)
            .recompress(self.runs(Step::Recompress)))
    }
}

/// What one step of [`Map::optimize`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct StepReport {
    /// The step.
    pub step: Step,
    /// What it changed, a line each ("image \"grass\" (unused)"); empty when nothing.
    pub changes: Vec<String>,
    /// The map's size in bytes after the step, when measured.
    pub bytes: Option<u64>,
}

/// What [`Map::optimize`] did, step by step.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct OptimizeReport {
    /// The map's size in bytes before, written as it was, when measured.
    pub bytes_before: Option<u64>,
    /// The steps that ran, in order.
    pub steps: Vec<StepReport>,
}

impl OptimizeReport {
    /// The size after the last step, when measured.
    pub fn bytes_after(&self) -> Option<u64> {
        self.steps
            .last()
            .and_then(|s| s.bytes)
            .or(self.bytes_before)
    }
}

impl Map {
    /// Makes the map smaller without changing how it looks or plays: the steps of `options`
    /// (every [`Step`] by default), in order. Write the result with
    /// [`OptimizeOptions::writer`] (or [`Map::to_bytes_with`] at the options' level), which
    /// compresses every data item anew when the recompress step runs. On an error the map is
    /// left as it was.
    ///
    /// ```
    /// use twcodec::map::edit::{OptimizeOptions, Step};
    /// let mut map = twcodec_testkit::sample::map()?;
    /// let options = OptimizeOptions::default().measure(true);
    /// let report = map.optimize(&options)?;
    /// assert_eq!(report.steps.len(), Step::ALL.len());
    /// assert!(report.bytes_after() <= report.bytes_before);
    /// let bytes = options.writer(&map)?.to_vec()?;
    /// assert_eq!(bytes.len() as u64, report.bytes_after().unwrap());
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn optimize(&mut self, options: &OptimizeOptions) -> Result<OptimizeReport, Error> {
        if options.level > 9 {
            return Err(Error::invalid_edit(format!(
                "zlib level {} is past 9",
                options.level
            )));
        }
        let mut work = self.clone();
        work.decode_content(false);
        let measure = |map: &Map, recompress: bool| -> Result<Option<u64>, Error> {
            if !options.measure {
                return Ok(None);
            }
            let writer = map
                .to_datafile()?
                .compression_level(options.level)
                .recompress(recompress);
            Ok(Some(writer.to_vec()?.len() as u64))
        };
        let bytes_before = match options.measure {
            true => Some(self.to_bytes()?.len() as u64),
            false => None,
        };
        let mut steps = Vec::new();
        for step in Step::ALL.into_iter().filter(|&s| options.runs(s)) {
            let changes = match step {
                Step::Unused => work.remove_unused()?,
                Step::Shrink => work.shrink_tile_layers()?,
                Step::Cells | Step::Transparent | Step::Dilate => work.picture_step(step)?,
                Step::Recompress => Vec::new(),
            };
            let bytes = measure(&work, step == Step::Recompress)?;
            steps.push(StepReport {
                step,
                changes,
                bytes,
            });
        }
        *self = work;
        Ok(OptimizeReport {
            bytes_before,
            steps,
        })
    }

    /// A layer named for a report: `layer #3 "Doodads" in group "Back"`.
    fn layer_label(&self, index: usize) -> String {
        let layer = &self.layers[index];
        let group = self.layer_groups.get(index).copied().flatten();
        match group.and_then(|g| self.groups.get(g)) {
            Some(group) => format!(
                "{} layer #{index} {:?} in group {:?}",
                layer.kind_name(),
                layer.name(),
                group.name()
            ),
            None => format!("{} layer #{index} {:?}", layer.kind_name(), layer.name()),
        }
    }

    /// The unused step (see [`Step::Unused`]).
    fn remove_unused(&mut self) -> Result<Vec<String>, Error> {
        let mut changes = Vec::new();
        // Layers, last first so that the indices of those still to go stay.
        let game_group = self
            .game_layer()
            .and_then(|(layer, _)| self.group_of(layer));
        for index in (0..self.layers.len()).rev() {
            let layer = &self.layers[index];
            let in_group = self.layer_groups.get(index).copied().flatten().is_some();
            let why = if layer.is_physics() || self.layer_automappers[index].is_some() {
                None
            } else if !in_group {
                Some("in no group: no client draws it")
            } else {
                match layer.content() {
                    LayerContent::Tiles(t) => t
                        .grid()
                        .filter(|grid| grid.tiles().iter().all(|tile| tile.id == 0))
                        .map(|_| "all air"),
                    LayerContent::Quads(q) => {
                        q.quads().filter(|q| q.is_empty()).map(|_| "no quads")
                    }
                    LayerContent::Sounds(s) => {
                        s.sources().filter(|s| s.is_empty()).map(|_| "no sources")
                    }
                    _ => None,
                }
            };
            if let Some(why) = why {
                changes.push(format!("{} ({why})", self.layer_label(index)));
                self.remove_layer(self.mint(index))?;
            }
        }
        // Groups left without layers, but the game group.
        for index in (0..self.groups.len()).rev() {
            let group = &self.groups[index];
            let empty = group.layer_range(self.layers.len()).is_empty();
            let game = game_group.is_some_and(|g| g.index() == index);
            if empty && !game {
                changes.push(format!("group #{index} {:?} (no layers)", group.name()));
                self.remove_group(self.mint(index))?;
            }
        }
        // Images no tiles or quads layer draws with (physics layers count, as in DDNet's
        // editor: their image is kept).
        let drawn: BTreeSet<i32> = (self.layers.iter())
            .filter_map(|layer| match layer.content() {
                LayerContent::Quads(q) => Some(q.item().image),
                _ => layer.tilemap().map(|t| t.image),
            })
            .collect();
        for index in (0..self.images.len()).rev() {
            if !drawn.contains(&(index as i32)) {
                let image = &self.images[index];
                let name = image.name(self).unwrap_or_default();
                let kind = if image.is_external() {
                    "external"
                } else {
                    "embedded"
                };
                changes.push(format!(
                    "{kind} image #{index} {name:?} (no layer draws it)"
                ));
                self.remove_image(self.mint::<Image>(index))?;
            }
        }
        // Envelopes nothing refers to.
        let mut used = BTreeSet::new();
        for layer in &self.layers {
            match layer.content() {
                LayerContent::Quads(q) => {
                    for quad in q.quads().unwrap_or_default() {
                        used.extend([quad.position_envelope, quad.color_envelope]);
                    }
                }
                LayerContent::Sounds(s) => {
                    for source in s.sources().unwrap_or_default() {
                        used.extend([source.position_envelope, source.sound_envelope]);
                    }
                }
                _ => used.extend(layer.tilemap().map(|t| t.color_envelope)),
            }
        }
        for index in (0..self.envelopes.len()).rev() {
            if !used.contains(&(index as i32)) {
                let name = self.envelopes[index].name();
                changes.push(format!("envelope #{index} {name:?} (nothing refers to it)"));
                self.remove_envelope(self.mint::<Envelope>(index))?;
            }
        }
        // Sounds no sounds layer plays.
        let played: BTreeSet<i32> = (self.layers.iter())
            .filter_map(|layer| match layer.content() {
                LayerContent::Sounds(s) => Some(s.item().sound),
                _ => None,
            })
            .collect();
        for index in (0..self.sounds.len()).rev() {
            if !played.contains(&(index as i32)) {
                let name = self.sounds[index].name(self).unwrap_or_default();
                changes.push(format!(
                    "sound #{index} {name:?} (no sounds layer plays it)"
                ));
                self.remove_sound(self.mint::<Sound>(index))?;
            }
        }
        // Data items no item names. Items the map graph does not model might name data, so
        // with any of them the data items are kept.
        let uses = self.data_uses();
        let orphans: Vec<i32> = (0..uses.len())
            .filter(|&i| uses[i] == 0)
            .map(|i| i as i32)
            .collect();
        if !orphans.is_empty() {
            if self.others.is_empty() {
                for &raw in &orphans {
                    let size = self.data_size(self.mint::<DataItem>(raw as usize));
                    let size = size.map_or_else(String::new, |s| format!(", {s} bytes"));
                    changes.push(format!("data item #{raw} (no item names it{size})"));
                }
                self.remove_unused_data(orphans);
            } else {
                changes.push(format!(
                    "kept {} data items no known item names: the map has items twcodec does \
                     not model, which may name them",
                    orphans.len()
                ));
            }
        }
        Ok(changes)
    }

    /// The shrink step (see [`Step::Shrink`]).
    fn shrink_tile_layers(&mut self) -> Result<Vec<String>, Error> {
        let mut changes = Vec::new();
        let game_group = self
            .game_layer()
            .and_then(|(layer, _)| self.group_of(layer))
            .map(|g| g.index());
        let layers = self.layers.len();
        for g in 0..self.groups.len() {
            let range = self.groups[g].layer_range(layers);
            // Only layers this group draws (the last group holding a layer draws it).
            let members: Vec<usize> = range
                .filter(|&i| self.layer_groups.get(i).copied().flatten() == Some(g))
                .collect();
            // The air at each side of each plain tile layer that may shrink.
            let mut plans = Vec::new();
            let mut movable = Some(game_group != Some(g));
            for &i in &members {
                let layer = &self.layers[i];
                let margins = match layer.content() {
                    LayerContent::Tiles(t) if self.layer_automappers[i].is_none() => {
                        t.grid().map(air_margins)
                    }
                    LayerContent::Quads(_) | LayerContent::Sounds(_) => continue,
                    // Physics, auto-mapped, unknown or undecodable layers cannot move.
                    _ => None,
                };
                match margins {
                    Some(m) => plans.push((i, m)),
                    None => movable = Some(false),
                }
            }
            let movable = movable.unwrap_or(false) && !plans.is_empty();
            // One air line stays at each side (the edge is drawn repeated outward); at the
            // left and top, the cut is the same for every tile layer of the group, as the
            // group offset moves for all of them. Every layer keeps at least 2 x 2 tiles.
            let cuts: Vec<(usize, usize, usize, usize, usize)> = (plans.iter())
                .map(|&(i, m)| {
                    let (w, h) = self.tile_size(i);
                    let right = m.right.saturating_sub(1).min(w.saturating_sub(2));
                    let bottom = m.bottom.saturating_sub(1).min(h.saturating_sub(2));
                    let left = m.left.saturating_sub(1).min(w.saturating_sub(2 + right));
                    let top = m.top.saturating_sub(1).min(h.saturating_sub(2 + bottom));
                    (i, left, top, right, bottom)
                })
                .collect();
            let shared = |side: fn(&(usize, usize, usize, usize, usize)) -> usize| match movable {
                true => cuts.iter().map(side).min().unwrap_or(0),
                false => 0,
            };
            let (mut left, mut top) = (shared(|c| c.1), shared(|c| c.2));
            let shift = |tiles: usize| {
                i32::try_from(tiles)
                    .ok()
                    .and_then(|t| t.checked_mul(32 * 1024))
            };
            let offset = self.groups[g].item.offset;
            let moved = shift(left).zip(shift(top)).and_then(|(sx, sy)| {
                let new = (
                    offset.x.checked_sub(sx / 1024)?,
                    offset.y.checked_sub(sy / 1024)?,
                );
                self.shift_group_content(&members, -sx, -sy, true)
                    .then_some((sx, sy, new))
            });
            let (shift_x, shift_y, (ox, oy)) = moved.unwrap_or_else(|| {
                (left, top) = (0, 0);
                (0, 0, (offset.x, offset.y))
            });
            for &(i, _, _, right, bottom) in &cuts {
                let (w, h) = self.tile_size(i);
                let (new_w, new_h) = (w - left - right, h - top - bottom);
                if (new_w, new_h) == (w, h) {
                    continue;
                }
                changes.push(format!(
                    "{}: {w}x{h} -> {new_w}x{new_h}",
                    self.layer_label(i)
                ));
                if let LayerContent::Tiles(t) = self.layers[i].content_mut() {
                    crop(t, left, top, new_w, new_h);
                }
            }
            if (left, top) != (0, 0) {
                self.shift_group_content(&members, -shift_x, -shift_y, false);
                let stored = &mut self.groups[g];
                stored.item.offset.x = ox;
                stored.item.offset.y = oy;
                stored.verbatim = None;
                changes.push(format!(
                    "group #{g} {:?}: offset ({}, {}) -> ({ox}, {oy}), its quads and sources \
                     moved with it",
                    stored.name(),
                    offset.x,
                    offset.y
                ));
            }
        }
        Ok(changes)
    }

    /// A tile layer's width and height.
    fn tile_size(&self, index: usize) -> (usize, usize) {
        match self.layers[index].content() {
            LayerContent::Tiles(t) => t.grid().map_or((0, 0), |g| (g.width(), g.height())),
            _ => (0, 0),
        }
    }

    /// Moves the quads and sound sources of the group's layers by `dx`, `dy` (22.10 fixed
    /// point). With `check`, only says whether every point can move; otherwise moves them.
    fn shift_group_content(&mut self, members: &[usize], dx: i32, dy: i32, check: bool) -> bool {
        if (dx, dy) == (0, 0) {
            return true;
        }
        let moved = |p: &Point| Some((p.x.checked_add(dx)?, p.y.checked_add(dy)?));
        for &i in members {
            let layer = &mut self.layers[i];
            match layer.content_mut() {
                LayerContent::Quads(q) if check => {
                    let quads = q.quads().unwrap_or_default();
                    if !quads
                        .iter()
                        .all(|quad| quad.points.iter().all(|p| moved(p).is_some()))
                    {
                        return false;
                    }
                }
                LayerContent::Sounds(s) if check => {
                    let sources = s.sources().unwrap_or_default();
                    if !sources
                        .iter()
                        .all(|source| moved(&source.position).is_some())
                    {
                        return false;
                    }
                }
                LayerContent::Quads(q) => {
                    for quad in q.quads_mut().into_iter().flatten() {
                        for p in &mut quad.points {
                            (p.x, p.y) = moved(p).unwrap_or((p.x, p.y));
                        }
                    }
                }
                LayerContent::Sounds(s) => {
                    for source in s.sources_mut().into_iter().flatten() {
                        let p = &mut source.position;
                        (p.x, p.y) = moved(p).unwrap_or((p.x, p.y));
                    }
                }
                _ => {}
            }
        }
        true
    }

    /// One picture step on every embedded RGBA image.
    fn picture_step(&mut self, step: Step) -> Result<Vec<String>, Error> {
        // Which images layers draw, and the cells the tile layers use.
        let mut quads = vec![false; self.images.len()];
        let mut tiles = vec![false; self.images.len()];
        let mut cells = vec![[false; 256]; self.images.len()];
        for layer in &self.layers {
            let image = |raw: i32| usize::try_from(raw).ok().filter(|&i| i < quads.len());
            match layer.content() {
                LayerContent::Quads(q) => {
                    if let Some(i) = image(q.item().image) {
                        quads[i] = true;
                    }
                }
                LayerContent::Tiles(t) => {
                    let Some(i) = image(t.item().image) else {
                        continue;
                    };
                    tiles[i] = true;
                    match t.grid() {
                        Some(grid) => {
                            for tile in grid.tiles() {
                                cells[i][tile.id as usize] = true;
                            }
                        }
                        // Tiles that cannot be read: keep every cell.
                        None => cells[i] = [true; 256],
                    }
                }
                _ => {}
            }
        }
        // Index 0 is air: no tile draws cell 0.
        for used in &mut cells {
            used[0] = false;
        }
        let mut changes = Vec::new();
        for index in 0..self.images.len() {
            let image = &self.images[index];
            if image.is_external() {
                continue;
            }
            let Ok(pixels) = image.pixels(self) else {
                continue;
            };
            if pixels.bytes_per_pixel != 4 {
                continue;
            }
            let (width, height) = (pixels.width, pixels.height);
            let mut rgba = pixels.bytes.into_owned();
            let grid = pictures::cells(width, height);
            let whole = Rect {
                x: 0,
                y: 0,
                w: width,
                h: height,
            };
            let (changed, what) = match step {
                Step::Cells if quads[index] => continue,
                Step::Cells if !tiles[index] => (
                    pictures::clear(&mut rgba, width, whole),
                    "pixels cleared (no layer draws it)",
                ),
                Step::Cells => match &grid {
                    Some(grid) => {
                        let mut n = 0;
                        for (cell, rect) in grid.iter().enumerate() {
                            if !cells[index][cell] {
                                n += pictures::clear(&mut rgba, width, *rect);
                            }
                        }
                        (n, "pixels cleared in cells no tile uses")
                    }
                    None => continue,
                },
                Step::Transparent => (
                    pictures::zero_transparent(&mut rgba),
                    "transparent pixels made black",
                ),
                Step::Dilate => {
                    // Tilesets dilate cell by cell (a cell's edge must not take its
                    // neighbor's colors); images quads draw, as a whole.
                    let rects = match (&grid, quads[index]) {
                        (Some(grid), false) => grid.clone(),
                        _ => vec![whole],
                    };
                    let n = rects
                        .into_iter()
                        .map(|rect| pictures::dilate(&mut rgba, width, rect))
                        .sum();
                    (n, "transparent pixels colored from their neighbors")
                }
                _ => continue,
            };
            if changed == 0 {
                continue;
            }
            let name = image.name(self).unwrap_or_default();
            changes.push(format!("image #{index} {name:?}: {changed} {what}"));
            self.replace_image(self.mint::<Image>(index), width as u32, height as u32, rgba)?;
        }
        Ok(changes)
    }
}

/// How many whole rows or columns of air a tile layer has at each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Margins {
    left: usize,
    top: usize,
    right: usize,
    bottom: usize,
}

/// The air margins of a grid (all four the full size when every tile is air).
fn air_margins(grid: &Grid<Tile>) -> Margins {
    let (w, h) = (grid.width(), grid.height());
    let tiles = grid.tiles();
    let air_row = |y: usize| tiles[y * w..(y + 1) * w].iter().all(|t| t.id == 0);
    let air_column = |x: usize| (0..h).all(|y| tiles[y * w + x].id == 0);
    let top = (0..h).take_while(|&y| air_row(y)).count();
    if top == h {
        return Margins {
            left: w,
            top: h,
            right: w,
            bottom: h,
        };
    }
    Margins {
        left: (0..w).take_while(|&x| air_column(x)).count(),
        top,
        right: (0..w).rev().take_while(|&x| air_column(x)).count(),
        bottom: (0..h).rev().take_while(|&y| air_row(y)).count(),
    }
}

/// Crops a tile layer to `width` x `height` tiles from column `left`, row `top`.
fn crop(layer: &mut TilesLayer<Tile>, left: usize, top: usize, width: usize, height: usize) {
    let Some(grid) = layer.grid() else {
        return;
    };
    let tiles: Vec<Tile> = (top..top + height)
        .flat_map(|y| {
            let row = y * grid.width();
            grid.tiles()[row + left..row + left + width].iter().copied()
        })
        .collect();
    if let Some(grid) = Grid::new(width, height, tiles) {
        layer.set_grid(grid);
    }
}
