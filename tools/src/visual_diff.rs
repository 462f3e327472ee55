//! A picture of what changed between two maps, to post in a review: both maps drawn by the
//! renderer ([`crate::render`]) at the same camera, side by side (or one above the other for a
//! wide area), with what changed outlined on both, a label over each and a legend below.
//!
//! What changed is found as [`crate::diff`] matches the two maps (its layer matching, images
//! and envelopes), then compared where it shows:
//!
//! - **Tiles** of every tile layer kind (tiles, game, front, tele, speedup, switch, tune),
//!   tile by tile: a tile that holds something where there was nothing is *added*, nothing
//!   where there was something *removed*, another tile *changed*. Neighbouring tiles of one
//!   kind of change are outlined together, as the rectangle around them.
//! - **Quads**, by index: a quad that moved or changed is outlined where it was and where it
//!   is; one only in the old map is removed, only in the new one added.
//! - **Whole layers**: a layer that was added or removed is outlined as its tiles or quads; one
//!   whose look changed (its color, color envelope, image, detail flag, its group's offset or
//!   parallax, or the content of its image or envelope) or that moved in the layer order is
//!   outlined as all its tiles or quads, changed.
//!
//! Changes with no place in the map (info, settings, sounds, names) are in the text diff only;
//! the legend counts them. Quads are outlined at their corners as stored (position envelopes
//! are not applied), tiles and quads through their group's offset and parallax.
//!
//! Each region is outlined solid in the picture of the map it comes from and dashed in the
//! other: a removed tile is solid in the old map's picture and dashed where it would be in the
//! new one; a moved quad shows its old place solid on the left, dashed on the right, and its
//! new place the other way round. Colors: [`ChangeKind::color`].
//!
//! The camera shows the area of the changes ([`Area::Changes`]: their bounding box, padded,
//! made at least 20 x 12 tiles and to an aspect that suits the layout), the whole map, or a
//! rectangle of tiles. With `entities`, both maps are drawn in the entities view and only the
//! changes of physics layers are outlined.
//!
//! Work is bounded as a render's: comparing tiles and finding their regions counts against
//! the maps' [`Limits::max_render_work`](twcodec::Limits::max_render_work) (the smaller of
//! the two), and each of the two renders against its own map's; a comparison that passes it is
//! an error of kind [`LimitExceeded`](twcodec::ErrorKind::LimitExceeded) before anything is
//! drawn. Regions are found on a grid of at most [`MAX_CELLS`] cells per layer (a tile layer
//! larger than that is compared tile by tile and outlined by blocks of tiles), and a layer
//! with more than [`MAX_REGIONS`] separate regions is outlined by coarser blocks.
//!
//! ```
//! use twcodec::map::Layer;
//! use twcodec_tools::visual_diff::{visual_diff, ChangeKind, VisualDiffOptions};
//!
//! let old = twcodec_testkit::sample::map()?;
//! let mut new = old.clone();
//! // One more tile in the game layer.
//! let (game, _) = new.game_layer().expect("a game layer");
//! if let twcodec::map::LayerContent::Game(tiles) = new.layer_mut(game).unwrap().content_mut() {
//!     tiles.grid_mut().unwrap().get_mut(3, 3).unwrap().id = 1;
//! }
//! let options = VisualDiffOptions::default().width(400).mapres(None);
//! let picture = visual_diff(&old, &new, &options)?;
//! assert_eq!(picture.picture.width, 400);
//! assert!(picture.marks.iter().any(|m| m.kind == ChangeKind::Added));
//! # Ok::<(), twcodec::Error>(())
//! ```

use std::path::PathBuf;

use serde::Serialize;
use twcodec::map::{Envelope, Image, Layer, LayerContent, Map, Ref};
use twcodec::{Error, ErrorKind};
use twcodec_schema::map::quad::Quad;

use crate::assets::Picture;
use crate::diff::{diff_matching, MapDiff, Matching};
use crate::render::text::{draw_text, fill};
use crate::render::{self, Camera, GroupView, RenderOptions, Renderer, Size, View};

/// The most cells of the grid on which one layer's changed tiles are grouped into regions
/// (4 Mi: a layer of up to 2048 x 2048 tiles, or any of up to 4 Mi tiles, tile by tile).
pub const MAX_CELLS: u64 = 1 << 22;

/// The most regions one kind of change of one layer is outlined as; past that, coarser blocks.
pub const MAX_REGIONS: usize = 256;

/// The smallest side of an outlined box in pixels: smaller changes are outlined as a box of
/// this size around their center.
pub const MIN_BOX: i64 = 6;

/// What happened at a place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// Something is there that was not.
    Added,
    /// Something was there that is not.
    Removed,
    /// Something is there, and different.
    Changed,
}

impl ChangeKind {
    /// The outline color (straight RGBA): green, red, amber.
    pub fn color(self) -> [u8; 4] {
        match self {
            ChangeKind::Added => [40, 230, 70, 255],
            ChangeKind::Removed => [250, 45, 45, 255],
            ChangeKind::Changed => [255, 190, 0, 255],
        }
    }

    /// `added`, `removed`, `changed`.
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Changed => "changed",
        }
    }

    const ALL: [ChangeKind; 3] = [ChangeKind::Added, ChangeKind::Removed, ChangeKind::Changed];

    fn bit(self) -> u8 {
        match self {
            ChangeKind::Added => 1,
            ChangeKind::Removed => 2,
            ChangeKind::Changed => 4,
        }
    }
}

/// Which map a region is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The old map's: outlined solid in its picture, dashed in the new one's.
    Old,
    /// The new map's: solid in its picture, dashed in the old one's.
    New,
    /// The same place in both (tiles that changed in a layer that stayed where it was).
    Both,
}

/// The shape of a region, in world units (32 a tile) of its layer's group.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum Shape {
    /// A rectangle of tiles: left, top, right and bottom edges.
    Tiles {
        /// Left edge.
        left: f64,
        /// Top edge.
        top: f64,
        /// Right edge.
        right: f64,
        /// Bottom edge.
        bottom: f64,
    },
    /// A quad: its four corners in drawing order (top-left, top-right, bottom-right,
    /// bottom-left for a quad as the editor makes it).
    Quad {
        /// The corners, x and y.
        corners: [[f64; 2]; 4],
    },
}

/// One place that changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Region {
    /// What happened there.
    pub kind: ChangeKind,
    /// Which map it is of.
    pub side: Side,
    /// The layer's index in that map (for [`Side::Both`], in the old map).
    pub layer: usize,
    /// Whether the layer is a physics layer (drawn by the entities view).
    pub physics: bool,
    /// How the layer's group moves against the camera.
    #[serde(skip)]
    pub group: GroupView,
    /// Where.
    #[serde(flatten)]
    pub shape: Shape,
}

/// What changed between two maps, by place ([`changes`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Changes {
    /// The places, in layer order (old layers first, then the layers only in the new map).
    pub regions: Vec<Region>,
    /// The text diff the regions were found from.
    pub diff: MapDiff,
    /// The steps of work the comparison took.
    pub work: u64,
}

/// The part of the maps shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Area {
    /// The bounding box of the changes, padded and made to an aspect that suits the layout
    /// (the whole map when nothing that has a place changed).
    Changes,
    /// The whole game layer (of the larger map).
    Whole,
    /// This rectangle of tiles: left, top, width, height.
    Tiles {
        /// Left edge, in tiles.
        x: f64,
        /// Top edge, in tiles.
        y: f64,
        /// Width, in tiles.
        width: f64,
        /// Height, in tiles.
        height: f64,
    },
}

/// How the two pictures are placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Side by side, or one above the other when the area is more than twice as wide as it is
    /// high.
    Auto,
    /// Old left, new right.
    SideBySide,
    /// Old above, new below.
    Stacked,
}

/// What to draw ([`visual_diff`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct VisualDiffOptions {
    /// The whole picture's width in pixels (default 1600).
    pub width: u32,
    /// The part of the maps shown.
    pub area: Area,
    /// The layout.
    pub layout: Layout,
    /// Draw both maps in the entities view and outline only the changes of physics layers.
    pub entities: bool,
    /// The names written over the two pictures (default `old` and `new`; the CLI gives the
    /// files' names).
    pub labels: [String; 2],
    /// As [`RenderOptions::mapres`].
    pub mapres: Option<PathBuf>,
    /// As [`RenderOptions::entities_tileset`].
    pub entities_tileset: Option<PathBuf>,
}

impl Default for VisualDiffOptions {
    fn default() -> VisualDiffOptions {
        VisualDiffOptions {
            width: 1600,
            area: Area::Changes,
            layout: Layout::Auto,
            entities: false,
            labels: ["old".into(), "new".into()],
            mapres: crate::assets::default_mapres(),
            entities_tileset: None,
        }
    }
}

/// Builder methods, each setting the field of its name.
impl VisualDiffOptions {
    /// Sets [`VisualDiffOptions::width`].
    pub fn width(self, width: u32) -> VisualDiffOptions {
        VisualDiffOptions { width, ..self }
    }

    /// Sets [`VisualDiffOptions::area`].
    pub fn area(self, area: Area) -> VisualDiffOptions {
        VisualDiffOptions { area, ..self }
    }

    /// Sets [`VisualDiffOptions::layout`].
    pub fn layout(self, layout: Layout) -> VisualDiffOptions {
        VisualDiffOptions { layout, ..self }
    }

    /// Sets [`VisualDiffOptions::entities`].
    pub fn entities(self, entities: bool) -> VisualDiffOptions {
        VisualDiffOptions { entities, ..self }
    }

    /// Sets [`VisualDiffOptions::labels`].
    pub fn labels(self, old: impl Into<String>, new: impl Into<String>) -> VisualDiffOptions {
        VisualDiffOptions {
            labels: [old.into(), new.into()],
            ..self
        }
    }

    /// Sets [`VisualDiffOptions::mapres`] (a path, or `None`).
    pub fn mapres(self, mapres: impl Into<Option<PathBuf>>) -> VisualDiffOptions {
        VisualDiffOptions {
            mapres: mapres.into(),
            ..self
        }
    }

    /// Sets [`VisualDiffOptions::entities_tileset`] (a path, or `None`).
    pub fn entities_tileset(self, tileset: impl Into<Option<PathBuf>>) -> VisualDiffOptions {
        VisualDiffOptions {
            entities_tileset: tileset.into(),
            ..self
        }
    }
}

/// One of the two pictures in the whole picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// Its left edge in the whole picture.
    pub x: u32,
    /// Its top edge in the whole picture.
    pub y: u32,
    /// Where the map's points land in it (add `x` and `y` for the whole picture).
    pub camera: Camera,
}

/// An outline drawn, in pixels of the whole picture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    /// Its color's meaning.
    pub kind: ChangeKind,
    /// 0 in the old map's picture, 1 in the new map's.
    pub panel: usize,
    /// Dashed: a region of the other map.
    pub dashed: bool,
    /// What was drawn.
    pub shape: MarkShape,
}

/// The shape of a [`Mark`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MarkShape {
    /// A box: the outline lies outside the pixels `x0..x1`, `y0..y1`, [`VisualDiff::line`]
    /// pixels wide (with a dark pixel beyond, for contrast). What it outlines covers those
    /// pixels exactly, unless it is smaller than [`MIN_BOX`].
    Box {
        /// First column inside.
        x0: i64,
        /// First row inside.
        y0: i64,
        /// Column after the last inside.
        x1: i64,
        /// Row after the last inside.
        y1: i64,
    },
    /// A quad's four corners, joined by lines [`VisualDiff::line`] pixels wide.
    Quad {
        /// The corners, x and y, in drawing order.
        corners: [[f64; 2]; 4],
    },
}

/// The picture of the changes between two maps ([`visual_diff`]).
#[derive(Debug, Clone, PartialEq)]
pub struct VisualDiff {
    /// The picture, straight RGBA8.
    pub picture: Picture,
    /// The tiles shown: left, top, width, height.
    pub area: [f64; 4],
    /// The old map's picture and the new map's.
    pub panels: [Panel; 2],
    /// The outlines drawn, in order (old map's picture first), each once (the same outline of
    /// several layers is one mark).
    pub marks: Vec<Mark>,
    /// The width of the outlines in pixels.
    pub line: i64,
    /// What changed.
    pub changes: Changes,
    /// The renderer's warnings for the two maps (`old: ` or `new: ` first).
    pub warnings: Vec<String>,
    /// The steps of work taken: the comparison and both renders.
    pub work: u64,
}

/// Finds what changed between `old` and `new`, by place (see the [module docs](self)).
pub fn changes(old: &Map, new: &Map) -> Result<Changes, Error> {
    let (diff, matching) = diff_matching(old, new);
    let limit = (old.limits().max_render_work()).min(new.limits().max_render_work());
    let mut finder = Finder {
        maps: [old, new],
        matching: &matching,
        owners: [owners(old), owners(new)],
        images: vec![None; old.images().len()],
        envelopes: vec![None; old.envelopes().len()],
        budget: Budget { limit, spent: 0 },
        regions: Vec::new(),
    };
    let mut matched_new = vec![false; new.layers().len()];
    for (la, layer) in old.layers().iter().enumerate() {
        finder.budget.spend(1)?;
        match matching.layers.get(la).copied().flatten() {
            None => finder.whole(0, la, layer, ChangeKind::Removed)?,
            Some(m) => {
                if let Some(seen) = matched_new.get_mut(m.new) {
                    *seen = true;
                }
                let Some(other) = new.layers().get(m.new) else {
                    continue;
                };
                finder.pair(la, layer, m.new, other, m.equal, m.moved)?;
            }
        }
    }
    for (lb, layer) in new.layers().iter().enumerate() {
        finder.budget.spend(1)?;
        if !matched_new[lb] {
            finder.whole(1, lb, layer, ChangeKind::Added)?;
        }
    }
    Ok(Changes {
        regions: finder.regions,
        diff,
        work: finder.budget.spent,
    })
}

/// Draws the changes between `old` and `new` (see the [module docs](self)).
pub fn visual_diff(old: &Map, new: &Map, options: &VisualDiffOptions) -> Result<VisualDiff, Error> {
    let bad = |what: String| Error::new(ErrorKind::InvalidOptions, what);
    if options.width < 64 {
        return Err(bad(format!(
            "a picture {} pixels wide: at least 64",
            options.width
        )));
    }
    let changes = changes(old, new)?;
    let shown: Vec<&Region> = (changes.regions.iter())
        .filter(|r| !options.entities || r.physics)
        .collect();
    let (area, layout) = choose_area(old, new, &shown, options)?;
    let scale = if options.width >= 800 { 2 } else { 1 };
    let line = i64::from(scale) + 1;
    let gap = 4 * scale;
    let text_h = 8 * scale;
    let header = text_h + 4 * scale;
    let panel_w = match layout {
        Layout::Stacked => options.width,
        _ => (options.width - gap) / 2,
    };
    let view = View::Tiles {
        x: area[0],
        y: area[1],
        width: area[2],
        height: area[3],
    };
    let render_options = RenderOptions::default()
        .size(Size::Width(panel_w))
        .view(view)
        .entities(if options.entities { 100 } else { 0 })
        .mapres(options.mapres.clone())
        .entities_tileset(options.entities_tileset.clone());
    let cameras = [
        render::camera(old, &render_options)?,
        render::camera(new, &render_options)?,
    ];
    let panel_h = cameras[0].height();
    let lines = legend_text(&changes, &shown, area, options.entities);
    let legend = (lines.len() as u32 + 1) * (text_h + 2 * scale) + 4 * scale;
    let height = match layout {
        Layout::Stacked => 2 * (header + panel_h) + gap + legend,
        _ => header + panel_h + legend,
    };
    if u64::from(options.width) * u64::from(height) > render::MAX_PIXELS {
        return Err(Error::limit(format!(
            "a picture of {}x{height} pixels: at most {} pixels in all",
            options.width,
            render::MAX_PIXELS
        )));
    }
    let places = match layout {
        Layout::Stacked => [(0, header), (0, 2 * header + panel_h + gap)],
        _ => [(0, header), (panel_w + gap, header)],
    };
    // Both renders first (each bounded by its own map's limit), then the picture.
    let renderer = Renderer::new();
    let mut warnings = Vec::new();
    let mut work = changes.work;
    let mut rendered = Vec::new();
    for (side, map) in [(0, old), (1, new)] {
        let r = renderer.render(map, &render_options)?;
        let name = ["old", "new"][side];
        warnings.extend(r.warnings.iter().map(|w| format!("{name}: {w}")));
        work = work.saturating_add(r.work);
        rendered.push(r.picture);
    }
    let mut picture = Picture {
        width: options.width,
        height,
        rgba: [24, 24, 28, 255].repeat(options.width as usize * height as usize),
    };
    for (panel, (x, y)) in rendered.iter().zip(places) {
        blit(&mut picture, panel, x, y);
    }
    let panels = [0, 1].map(|i| Panel {
        x: places[i].0,
        y: places[i].1,
        camera: cameras[i].clone(),
    });
    // Outlines: every region in both pictures, solid in its own map's.
    let mut marks = Vec::new();
    // The same outline of several layers (a rectangle copied into each) is drawn once.
    let mut seen = std::collections::HashSet::new();
    for (i, panel) in panels.iter().enumerate() {
        let clip = [
            i64::from(panel.x),
            i64::from(panel.y),
            i64::from(panel.x + panel_w),
            i64::from(panel.y + panel_h),
        ];
        for region in &shown {
            let own = match region.side {
                Side::Both => true,
                Side::Old => i == 0,
                Side::New => i == 1,
            };
            let mark = mark(panel, i, region, !own);
            let shape = match mark.shape {
                MarkShape::Box { x0, y0, x1, y1 } => [x0, y0, x1, y1].map(|v| v as u64),
                MarkShape::Quad { corners } => {
                    let bits = corners.map(|[x, y]| x.to_bits() ^ y.to_bits().rotate_left(17));
                    [bits[0], bits[1], bits[2], bits[3] | 1 << 63]
                }
            };
            if !seen.insert((i, mark.kind, mark.dashed, shape)) {
                continue;
            }
            draw_mark(&mut picture, &mark, clip, line);
            marks.push(mark);
        }
    }
    // Labels over the pictures, the legend below.
    for (i, panel) in panels.iter().enumerate() {
        let label = format!("{}: {}", ["OLD", "NEW"][i], options.labels[i]);
        let y = i64::from(panel.y) - i64::from(header) + i64::from(2 * scale);
        let x = i64::from(panel.x) + i64::from(2 * scale);
        draw_text(&mut picture, x, y, &label, [235, 235, 235, 255], scale);
    }
    let top = i64::from(height - legend) + i64::from(4 * scale);
    let mut x = i64::from(2 * scale);
    let step = i64::from(text_h + 2 * scale);
    for kind in ChangeKind::ALL {
        fill(
            &mut picture,
            x,
            top,
            i64::from(text_h),
            i64::from(text_h),
            kind.color(),
        );
        x += i64::from(text_h + 3 * scale);
        let w = draw_text(&mut picture, x, top, kind.name(), [235; 4], scale);
        x += i64::from(w + 6 * scale);
    }
    // A dashed sample: the other map's place.
    for k in 0..3 {
        let dx = x + i64::from(k * 4 * scale);
        fill(
            &mut picture,
            dx,
            top + i64::from(3 * scale),
            i64::from(2 * scale),
            line,
            [235; 4],
        );
    }
    x += i64::from(12 * scale + 2 * scale);
    draw_text(
        &mut picture,
        x,
        top,
        "the other map's place",
        [235; 4],
        scale,
    );
    for (n, text) in lines.iter().enumerate() {
        let y = top + step * (n as i64 + 1);
        draw_text(&mut picture, i64::from(2 * scale), y, text, [200; 4], scale);
    }
    Ok(VisualDiff {
        picture,
        area,
        panels,
        marks,
        line,
        changes,
        warnings,
        work,
    })
}

/// The legend's lines under the colors: what is outlined, where, and what is not.
fn legend_text(
    changes: &Changes,
    shown: &[&Region],
    area: [f64; 4],
    entities: bool,
) -> Vec<String> {
    let count = |kind: ChangeKind| shown.iter().filter(|r| r.kind == kind).count();
    let plural = |n: usize, what: &str| match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    };
    let view = if entities { " (entities view)" } else { "" };
    let mut lines = vec![
        format!(
            "outlines: {} added, {} removed, {} changed{view}",
            count(ChangeKind::Added),
            count(ChangeKind::Removed),
            count(ChangeKind::Changed),
        ),
        format!(
            "tiles x {:.0}..{:.0}, y {:.0}..{:.0}; text diff: {}, {}",
            area[0],
            area[0] + area[2],
            area[1],
            area[1] + area[3],
            plural(changes.diff.change_count(), "change"),
            plural(changes.diff.tiles_changed(), "tile"),
        ),
    ];
    let hidden = changes.regions.len() - shown.len();
    if hidden > 0 {
        lines.push(format!(
            "{} of design layers not shown",
            plural(hidden, "outline")
        ));
    }
    lines
}

/// The area and the layout to use.
fn choose_area(
    old: &Map,
    new: &Map,
    shown: &[&Region],
    options: &VisualDiffOptions,
) -> Result<([f64; 4], Layout), Error> {
    let whole = || {
        let (a, b) = (extent(old), extent(new));
        [0.0, 0.0, a.0.max(b.0), a.1.max(b.1)]
    };
    let (area, fit) = match options.area {
        Area::Whole => (whole(), false),
        Area::Tiles {
            x,
            y,
            width,
            height,
        } => {
            let finite = [x, y, width, height].iter().all(|v| v.is_finite());
            if !(finite && width > 0.0 && height > 0.0) {
                return Err(Error::new(
                    ErrorKind::InvalidOptions,
                    format!(
                        "an area of {width}x{height} tiles at {x},{y}: the numbers must be \
                         finite and the sides positive"
                    ),
                ));
            }
            ([x, y, width, height], false)
        }
        Area::Changes => match bounds(shown) {
            Some(b) => (b, true),
            None => (whole(), false),
        },
    };
    let aspect = area[2] / area[3];
    let layout = match options.layout {
        Layout::Auto if aspect > 2.0 => Layout::Stacked,
        Layout::Auto => Layout::SideBySide,
        layout => layout,
    };
    if !fit {
        return Ok((area, layout));
    }
    // Padded, at least 20 x 12 tiles, and of an aspect that suits the layout.
    let [x, y, w, h] = area;
    let pad = (w.max(h) * 0.15).max(3.0);
    let (mut w2, mut h2) = ((w + 2.0 * pad).max(20.0), (h + 2.0 * pad).max(12.0));
    let (low, high) = match layout {
        Layout::Stacked => (1.6, 3.0),
        _ => (0.8, 1.6),
    };
    if w2 / h2 < low {
        w2 = h2 * low;
    } else if w2 / h2 > high {
        h2 = w2 / high;
    }
    let (cx, cy) = (x + w / 2.0, y + h / 2.0);
    Ok(([cx - w2 / 2.0, cy - h2 / 2.0, w2, h2], layout))
}

/// The bounding box of regions in tiles (through their groups' offsets): left, top, width,
/// height; `None` for none.
fn bounds(regions: &[&Region]) -> Option<[f64; 4]> {
    let mut b = [
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    ];
    for region in regions {
        let (ox, oy) = region.group.offset;
        let mut add = |x: f64, y: f64| {
            let (x, y) = ((x + ox) / 32.0, (y + oy) / 32.0);
            b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
        };
        match region.shape {
            Shape::Tiles {
                left,
                top,
                right,
                bottom,
            } => {
                add(left, top);
                add(right, bottom);
            }
            Shape::Quad { corners } => corners.iter().for_each(|&[x, y]| add(x, y)),
        }
    }
    (b.iter().all(|v| v.is_finite())).then(|| [b[0], b[1], b[2] - b[0], b[3] - b[1]])
}

/// The tiles a map's whole view shows: its game layer's size, else its largest tile layer's.
fn extent(map: &Map) -> (f64, f64) {
    if let Some((_, game)) = map.game_layer() {
        let item = game.item();
        if item.width > 0 && item.height > 0 {
            return (f64::from(item.width), f64::from(item.height));
        }
    }
    (map.layers().iter())
        .filter_map(|layer| layer.tilemap())
        .map(|t| (t.width.max(0), t.height.max(0)))
        .filter(|&(w, h)| w > 0 && h > 0)
        .max_by_key(|&(w, h)| i64::from(w) * i64::from(h))
        .map_or((50.0, 30.0), |(w, h)| (f64::from(w), f64::from(h)))
}

/// Copies `panel` into `picture` at `(x, y)`.
fn blit(picture: &mut Picture, panel: &Picture, x: u32, y: u32) {
    let (pw, w) = (panel.width as usize, picture.width as usize);
    for row in 0..panel.height as usize {
        let to = ((y as usize + row) * w + x as usize) * 4;
        let from = row * pw * 4;
        let (Some(dst), Some(src)) = (
            picture.rgba.get_mut(to..to + pw * 4),
            panel.rgba.get(from..from + pw * 4),
        ) else {
            return;
        };
        dst.copy_from_slice(src);
    }
}

/// The mark of `region` in `panel` (number `index`: 0 old, 1 new).
fn mark(panel: &Panel, index: usize, region: &Region, dashed: bool) -> Mark {
    let (ox, oy) = (f64::from(panel.x), f64::from(panel.y));
    let at = |x: f64, y: f64| {
        let (px, py) = panel.camera.to_pixel(region.group, x, y);
        [px + ox, py + oy]
    };
    let shape = match region.shape {
        Shape::Tiles {
            left,
            top,
            right,
            bottom,
        } => {
            let [x0, y0] = at(left, top);
            let [x1, y1] = at(right, bottom);
            let round = |v: f64| v.round().clamp(-1e12, 1e12) as i64;
            let (mut x0, mut y0, mut x1, mut y1) = (round(x0), round(y0), round(x1), round(y1));
            let grow = |a: &mut i64, b: &mut i64| {
                if *b - *a < MIN_BOX {
                    let center = (*a + *b) / 2;
                    *a = center - MIN_BOX / 2;
                    *b = *a + MIN_BOX;
                }
            };
            grow(&mut x0, &mut x1);
            grow(&mut y0, &mut y1);
            MarkShape::Box { x0, y0, x1, y1 }
        }
        Shape::Quad { corners } => MarkShape::Quad {
            corners: corners.map(|[x, y]| at(x, y)),
        },
    };
    Mark {
        kind: region.kind,
        panel: index,
        dashed,
        shape,
    }
}

/// The length of a dash and of the gap after it, in pixels.
const DASH: i64 = 6;

/// Draws `mark` within `clip` (x0, y0, x1, y1).
fn draw_mark(picture: &mut Picture, mark: &Mark, clip: [i64; 4], line: i64) {
    let color = mark.kind.color();
    const DARK: [u8; 4] = [0, 0, 0, 255];
    let mut put = |x: i64, y: i64, w: i64, h: i64, color: [u8; 4]| {
        let (x0, y0) = (x.max(clip[0]), y.max(clip[1]));
        let (x1, y1) = ((x + w).min(clip[2]), (y + h).min(clip[3]));
        if x0 < x1 && y0 < y1 {
            fill(picture, x0, y0, x1 - x0, y1 - y0, color);
        }
    };
    match mark.shape {
        MarkShape::Box { x0, y0, x1, y1 } => {
            let (w, h) = (x1 - x0, y1 - y0);
            let t = line;
            // The dark edge beyond the ring, then the ring: four sides, each a run of dashes
            // or one piece.
            for (width, c) in [(t + 1, DARK), (t, color)] {
                let (ox0, oy0) = (x0 - width, y0 - width);
                let (ow, oh) = (w + 2 * width, h + 2 * width);
                if !mark.dashed {
                    put(ox0, oy0, ow, width, c);
                    put(ox0, y1, ow, width, c);
                    put(ox0, y0, width, h, c);
                    put(x1, y0, width, h, c);
                    continue;
                }
                // Only what lies in the clip is walked.
                let (cx0, cx1) = ((ox0).max(clip[0] - DASH), (ox0 + ow).min(clip[2] + DASH));
                let mut x = ox0 + ((cx0 - ox0).max(0) / (2 * DASH)) * 2 * DASH;
                while x < cx1 {
                    put(x, oy0, DASH.min(ox0 + ow - x), width, c);
                    put(x, y1, DASH.min(ox0 + ow - x), width, c);
                    x += 2 * DASH;
                }
                let (cy0, cy1) = ((oy0).max(clip[1] - DASH), (oy0 + oh).min(clip[3] + DASH));
                let mut y = oy0 + ((cy0 - oy0).max(0) / (2 * DASH)) * 2 * DASH;
                while y < cy1 {
                    put(ox0, y, width, DASH.min(oy0 + oh - y), c);
                    put(x1, y, width, DASH.min(oy0 + oh - y), c);
                    y += 2 * DASH;
                }
            }
        }
        MarkShape::Quad { corners } => {
            let order = [0, 1, 2, 3, 0];
            for (width, c) in [(line + 2, DARK), (line, color)] {
                for k in 0..4 {
                    let (a, b) = (corners[order[k]], corners[order[k + 1]]);
                    segment(a, b, width, mark.dashed, clip, &mut |x, y, s| {
                        put(x, y, s, s, c)
                    });
                }
            }
        }
    }
}

/// Stamps squares of side `width` along the segment from `a` to `b`, one a pixel, only where
/// they touch `clip`; every other [`DASH`] pixels when `dashed`.
fn segment(
    a: [f64; 2],
    b: [f64; 2],
    width: i64,
    dashed: bool,
    clip: [i64; 4],
    stamp: &mut dyn FnMut(i64, i64, i64),
) {
    // The part of the segment inside the clip (grown by the width): Liang-Barsky.
    let grow = width as f64;
    let (lo_x, hi_x) = (clip[0] as f64 - grow, clip[2] as f64 + grow);
    let (lo_y, hi_y) = (clip[1] as f64 - grow, clip[3] as f64 + grow);
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, a[0] - lo_x),
        (dx, hi_x - a[0]),
        (-dy, a[1] - lo_y),
        (dy, hi_y - a[1]),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
        }
    }
    if t0.is_nan() || t1.is_nan() || t0 > t1 {
        return;
    }
    let length = (dx * dx + dy * dy).sqrt();
    // Steps of a pixel, counted from the segment's start so that dashes stay in place.
    let (first, last) = ((t0 * length).floor(), (t1 * length).ceil());
    if !(first.is_finite() && last.is_finite()) {
        return;
    }
    let half = width / 2;
    let mut s = first;
    while s <= last {
        let on = !dashed || (s as i64 / DASH) % 2 == 0;
        if on {
            let t = if length > 0.0 { s / length } else { 0.0 };
            let x = (a[0] + dx * t).round() as i64;
            let y = (a[1] + dy * t).round() as i64;
            stamp(x - half, y - half, width);
        }
        s += 1.0;
    }
}

// ---------------------------------------------------------------------------------------------
// Finding the changes

/// The work of the comparison, as [`Limits::max_render_work`](twcodec::Limits) counts it.
struct Budget {
    limit: u64,
    spent: u64,
}

impl Budget {
    fn spend(&mut self, steps: u64) -> Result<(), Error> {
        self.spent = self.spent.saturating_add(steps);
        if self.spent <= self.limit {
            return Ok(());
        }
        Err(Error::limit(format!(
            "comparing these maps passes the limit of {} steps of work \
             (Limits::max_render_work)",
            self.limit
        )))
    }
}

/// For each layer of `map`, the group that holds it (the first, if several do).
fn owners(map: &Map) -> Vec<Option<usize>> {
    let mut owners = vec![None; map.layers().len()];
    for (index, group) in map.groups().iter().enumerate() {
        for r in group.layers(map) {
            if let Some(owner) = owners.get_mut(r.index()) {
                owner.get_or_insert(index);
            }
        }
    }
    owners
}

/// A tile layer's tiles as bytes: width, height, bytes per tile, bytes.
#[derive(Clone, Copy)]
struct Tiles<'m> {
    width: usize,
    height: usize,
    size: usize,
    bytes: &'m [u8],
}

impl<'m> Tiles<'m> {
    /// The tile at `(x, y)`, `None` outside the layer.
    fn at(&self, x: usize, y: usize) -> Option<&'m [u8]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let at = (y * self.width + x) * self.size;
        self.bytes.get(at..at + self.size)
    }
}

/// The tiles of a tile layer of any kind, and a number for its kind (layers of different kinds
/// are not compared tile by tile); `None` for other layers and tiles that do not decode.
fn tiles(layer: &Layer) -> Option<(u8, Tiles<'_>)> {
    fn of<T: bytemuck::Pod>(
        kind: u8,
        grid: Option<&twcodec::map::Grid<T>>,
    ) -> Option<(u8, Tiles<'_>)> {
        let grid = grid?;
        Some((
            kind,
            Tiles {
                width: grid.width(),
                height: grid.height(),
                size: std::mem::size_of::<T>(),
                bytes: bytemuck::cast_slice(grid.tiles()),
            },
        ))
    }
    layer.decode();
    match layer.content() {
        LayerContent::Tiles(t) => of(0, t.grid()),
        LayerContent::Game(t) => of(1, t.grid()),
        LayerContent::Front(t) => of(2, t.grid()),
        LayerContent::Tele(t) => of(3, t.grid()),
        LayerContent::Speedup(t) => of(4, t.grid()),
        LayerContent::Switch(t) => of(5, t.grid()),
        LayerContent::Tune(t) => of(6, t.grid()),
        _ => None,
    }
}

/// Whether a tile is empty (all its bytes 0: draws nothing in any view).
fn empty(tile: Option<&[u8]>) -> bool {
    tile.is_none_or(|t| t.iter().all(|&b| b == 0))
}

struct Finder<'a> {
    maps: [&'a Map; 2],
    matching: &'a Matching,
    owners: [Vec<Option<usize>>; 2],
    /// For each old image and envelope, once known: whether it is the same as its match.
    images: Vec<Option<bool>>,
    envelopes: Vec<Option<bool>>,
    budget: Budget,
    regions: Vec<Region>,
}

impl Finder<'_> {
    /// How layer `index` of map `side` (0 old, 1 new) moves against the camera.
    fn group_view(&self, side: usize, index: usize) -> GroupView {
        let map = self.maps[side];
        (self.owners[side].get(index).copied().flatten())
            .and_then(|g| map.groups().get(g))
            .map_or(GroupView::GAME, GroupView::of)
    }

    /// A layer added or removed as a whole: its tiles or quads.
    fn whole(
        &mut self,
        side: usize,
        index: usize,
        layer: &Layer,
        kind: ChangeKind,
    ) -> Result<(), Error> {
        let view = self.group_view(side, index);
        let which = [Side::Old, Side::New][side];
        if let Some((_, t)) = tiles(layer) {
            let (old, new) = match side {
                0 => (Some(t), None),
                _ => (None, Some(t)),
            };
            let all = kind == ChangeKind::Changed;
            return self.tile_regions(old, new, all, which, index, layer.is_physics(), view);
        }
        if let LayerContent::Quads(q) = layer.content() {
            for quad in q.quads().unwrap_or_default() {
                self.budget.spend(1)?;
                self.quad(kind, which, index, view, quad);
            }
        }
        Ok(())
    }

    fn quad(&mut self, kind: ChangeKind, side: Side, layer: usize, group: GroupView, quad: &Quad) {
        let point = |i: usize| {
            let p = quad.points[i];
            [f64::from(p.x) / 1024.0, f64::from(p.y) / 1024.0]
        };
        self.regions.push(Region {
            kind,
            side,
            layer,
            physics: false,
            group,
            // The game draws corners 0, 1, 3 and 0, 3, 2: the outline goes 0, 1, 3, 2.
            shape: Shape::Quad {
                corners: [point(0), point(1), point(3), point(2)],
            },
        });
    }

    /// Two matched layers.
    fn pair(
        &mut self,
        la: usize,
        old: &Layer,
        lb: usize,
        new: &Layer,
        equal: bool,
        moved: bool,
    ) -> Result<(), Error> {
        let (va, vb) = (self.group_view(0, la), self.group_view(1, lb));
        let look = !moved && self.same_look(old, new)?;
        if va != vb {
            // Elsewhere on the screen: where it was and where it is, changed.
            self.whole(0, la, old, ChangeKind::Changed)?;
            return self.whole(1, lb, new, ChangeKind::Changed);
        }
        let physics = old.is_physics();
        if let (Some((ka, ta)), Some((kb, tb))) = (tiles(old), tiles(new)) {
            if ka != kb {
                self.whole(0, la, old, ChangeKind::Removed)?;
                return self.whole(1, lb, new, ChangeKind::Added);
            }
            if equal && look {
                return Ok(());
            }
            return self.tile_regions(Some(ta), Some(tb), !look, Side::Both, la, physics, va);
        }
        match (old.content(), new.content()) {
            (LayerContent::Quads(qa), LayerContent::Quads(qb)) => {
                if equal && look {
                    return Ok(());
                }
                let (qa, qb) = (
                    qa.quads().unwrap_or_default(),
                    qb.quads().unwrap_or_default(),
                );
                for i in 0..qa.len().max(qb.len()) {
                    self.budget.spend(1)?;
                    match (qa.get(i), qb.get(i)) {
                        (Some(a), Some(b)) => {
                            if look && self.same_quad(a, b)? {
                                continue;
                            }
                            self.quad(ChangeKind::Changed, Side::Old, la, va, a);
                            self.quad(ChangeKind::Changed, Side::New, lb, vb, b);
                        }
                        (Some(a), None) => self.quad(ChangeKind::Removed, Side::Old, la, va, a),
                        (None, Some(b)) => self.quad(ChangeKind::Added, Side::New, lb, vb, b),
                        (None, None) => {}
                    }
                }
                Ok(())
            }
            // Sounds and unknown layers show nothing; other pairs of kinds are two layers.
            (LayerContent::Sounds(_), LayerContent::Sounds(_)) => Ok(()),
            _ => {
                self.whole(0, la, old, ChangeKind::Removed)?;
                self.whole(1, lb, new, ChangeKind::Added)
            }
        }
    }

    /// Whether two quads are drawn the same: the same fields, their envelopes the same.
    fn same_quad(&mut self, a: &Quad, b: &Quad) -> Result<bool, Error> {
        let plain = |q: &Quad| Quad {
            position_envelope: 0,
            color_envelope: 0,
            ..*q
        };
        if bytemuck::bytes_of(&plain(a)) != bytemuck::bytes_of(&plain(b)) {
            return Ok(false);
        }
        Ok(
            self.same_envelope(a.position_envelope, b.position_envelope)?
                && self.same_envelope(a.color_envelope, b.color_envelope)?,
        )
    }

    /// Whether two matched layers look the same apart from their content: detail flag, color,
    /// color envelope and its offset, image (and the image's and envelope's own content).
    fn same_look(&mut self, a: &Layer, b: &Layer) -> Result<bool, Error> {
        if a.is_detail() != b.is_detail() {
            return Ok(false);
        }
        if let (Some(ta), Some(tb)) = (a.tilemap(), b.tilemap()) {
            if ta.color != tb.color
                || ta.color_envelope_offset != tb.color_envelope_offset
                || !self.same_envelope(ta.color_envelope, tb.color_envelope)?
            {
                return Ok(false);
            }
        }
        let [ma, mb] = self.maps;
        let index = |r: Ref<Image>| match r {
            Ref::To(r) => Some(r.index()),
            _ => None,
        };
        let (ia, ib) = (index(a.image(ma)), index(b.image(mb)));
        match (ia, ib) {
            (None, None) => Ok(true),
            (Some(i), Some(j)) => self.same_image(i, j),
            _ => Ok(false),
        }
    }

    /// Whether old image `i` is new image `j`: matched, and of the same name, kind, size and
    /// pixels.
    fn same_image(&mut self, i: usize, j: usize) -> Result<bool, Error> {
        if self.matching.images.get(i).copied().flatten() != Some(j) {
            return Ok(false);
        }
        if let Some(known) = self.images.get(i).copied().flatten() {
            return Ok(known);
        }
        let [ma, mb] = self.maps;
        let (Some(a), Some(b)) = (ma.images().get(i), mb.images().get(j)) else {
            return Ok(false);
        };
        let (x, y) = (a.item(), b.item());
        let mut same = a.name(ma) == b.name(mb)
            && a.is_external() == b.is_external()
            && (x.width, x.height) == (y.width, y.height);
        if same && !a.is_external() {
            let stored = match (a.data(ma).get(), b.data(mb).get()) {
                (Some(da), Some(db)) => ma.same_stored_data(da, mb, db),
                _ => false,
            };
            if !stored {
                same = match (a.pixels(ma), b.pixels(mb)) {
                    (Ok(pa), Ok(pb)) => {
                        self.budget.spend(pa.bytes.len() as u64 / 16)?;
                        pa == pb
                    }
                    _ => false,
                };
            }
        }
        if let Some(slot) = self.images.get_mut(i) {
            *slot = Some(same);
        }
        Ok(same)
    }

    /// Whether two raw envelope references (old, new) name the same envelope, unchanged.
    fn same_envelope(&mut self, raw_a: i32, raw_b: i32) -> Result<bool, Error> {
        let [ma, mb] = self.maps;
        let index = |map: &Map, raw: i32| match map.item_ref::<Envelope>(raw) {
            Ref::To(r) => Some(r.index()),
            _ => None,
        };
        let (i, j) = match (index(ma, raw_a), index(mb, raw_b)) {
            (None, None) => return Ok(true),
            (Some(i), Some(j)) => (i, j),
            _ => return Ok(false),
        };
        if self.matching.envelopes.get(i).copied().flatten() != Some(j) {
            return Ok(false);
        }
        if let Some(known) = self.envelopes.get(i).copied().flatten() {
            return Ok(known);
        }
        let (Some(a), Some(b)) = (ma.envelopes().get(i), mb.envelopes().get(j)) else {
            return Ok(false);
        };
        let (pa, pb) = (a.points(ma), b.points(mb));
        self.budget.spend(pa.len().min(pb.len()) as u64)?;
        let (x, y) = (a.item(), b.item());
        let same = x.channels == y.channels
            && x.synchronized == y.synchronized
            && pa == pb
            && a.bezier(ma) == b.bezier(mb);
        if let Some(slot) = self.envelopes.get_mut(i) {
            *slot = Some(same);
        }
        Ok(same)
    }

    /// The regions of the tiles that differ between `old` and `new` (either may be missing:
    /// a layer removed or added), all of them changed when `all`.
    #[allow(clippy::too_many_arguments)]
    fn tile_regions(
        &mut self,
        old: Option<Tiles<'_>>,
        new: Option<Tiles<'_>>,
        all: bool,
        side: Side,
        layer: usize,
        physics: bool,
        group: GroupView,
    ) -> Result<(), Error> {
        let size = |t: Option<Tiles>| t.map_or((0, 0), |t| (t.width, t.height));
        let ((wa, ha), (wb, hb)) = (size(old), size(new));
        let (width, height) = (wa.max(wb), ha.max(hb));
        if width == 0 || height == 0 {
            return Ok(());
        }
        // Each tile of each layer is looked at once.
        let tiles = (wa as u64 * ha as u64).saturating_add(wb as u64 * hb as u64);
        self.budget.spend(tiles)?;
        // Cells of k x k tiles, at most MAX_CELLS of them.
        let mut k = 1usize;
        while (width.div_ceil(k) as u64) * (height.div_ceil(k) as u64) > MAX_CELLS {
            k *= 2;
        }
        let (cw, ch) = (width.div_ceil(k), height.div_ceil(k));
        let mut cells = vec![0u8; cw * ch];
        for y in 0..height {
            let row_width = match (y < ha, y < hb) {
                (true, true) => width,
                (true, false) => wa,
                (false, true) => wb,
                (false, false) => 0,
            };
            for x in 0..row_width {
                let a = old.and_then(|t| t.at(x, y));
                let b = new.and_then(|t| t.at(x, y));
                let kind = match (empty(a), empty(b)) {
                    (true, true) => continue,
                    (false, true) if side == Side::Both || !all => ChangeKind::Removed,
                    (true, false) if side == Side::Both || !all => ChangeKind::Added,
                    (false, false) if !all && a == b => continue,
                    _ => ChangeKind::Changed,
                };
                cells[(y / k) * cw + x / k] |= kind.bit();
            }
        }
        for kind in ChangeKind::ALL {
            let (boxes, k) = components(&mut self.budget, &cells, cw, ch, k, kind.bit())?;
            for [x0, y0, x1, y1] in boxes {
                let tile = |v: usize, max: usize| ((v * k).min(max) as f64) * 32.0;
                self.regions.push(Region {
                    kind,
                    side,
                    layer,
                    physics,
                    group,
                    shape: Shape::Tiles {
                        left: tile(x0, width),
                        top: tile(y0, height),
                        right: tile(x1, width),
                        bottom: tile(y1, height),
                    },
                });
            }
        }
        Ok(())
    }
}

/// The bounding boxes (cells x0, y0, x1, y1, ends excluded) of the groups of touching cells
/// (also at a corner) that have `bit`, with the cell size they are in: `k`, or coarser (cells
/// of 2 x 2 cells, again and again) until there are at most [`MAX_REGIONS`].
fn components(
    budget: &mut Budget,
    cells: &[u8],
    width: usize,
    height: usize,
    k: usize,
    bit: u8,
) -> Result<(Vec<[usize; 4]>, usize), Error> {
    let mut grid: Vec<bool> = cells.iter().map(|&c| c & bit != 0).collect();
    let (mut w, mut h, mut k) = (width, height, k);
    loop {
        budget.spend(grid.len() as u64)?;
        let boxes = flood(&mut grid.clone(), w, h);
        if boxes.len() <= MAX_REGIONS || (w <= 1 && h <= 1) {
            return Ok((boxes, k));
        }
        // Coarser: a cell has the bit when any of its 2 x 2 had it.
        let (w2, h2) = (w.div_ceil(2), h.div_ceil(2));
        let mut coarse = vec![false; w2 * h2];
        for y in 0..h {
            for x in 0..w {
                if grid[y * w + x] {
                    coarse[(y / 2) * w2 + x / 2] = true;
                }
            }
        }
        (grid, w, h, k) = (coarse, w2, h2, k * 2);
    }
}

/// The bounding boxes of the 8-connected groups of `true` cells, clearing them; at most
/// [`MAX_REGIONS`] + 1 (enough to know there are more).
fn flood(grid: &mut [bool], w: usize, h: usize) -> Vec<[usize; 4]> {
    let mut boxes = Vec::new();
    let mut stack = Vec::new();
    for start in 0..grid.len() {
        if !grid[start] {
            continue;
        }
        if boxes.len() > MAX_REGIONS {
            break;
        }
        grid[start] = false;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1));
            for ny in y.saturating_sub(1)..(y + 2).min(h) {
                for nx in x.saturating_sub(1)..(x + 2).min(w) {
                    let n = ny * w + nx;
                    if grid[n] {
                        grid[n] = false;
                        stack.push(n);
                    }
                }
            }
        }
        boxes.push([x0, y0, x1, y1]);
    }
    boxes
}
