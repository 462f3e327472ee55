//! Drawing a map to a picture, the way the game draws it (docs/format-notes.md, "Drawing a
//! map"): groups in order with their offset, parallax and clipping relative to a camera; tile
//! layers from their tilesets with the tile flags, layer color and color envelope; quads
//! with their corner colors, texture coordinates and position and color envelopes at a time;
//! with `entities`, the physics layers drawn with an entities tileset.
//!
//! Pure Rust and on the CPU: tiles are sampled pixel by pixel from mipmapped tilesets (the
//! grid, not a triangle per tile, is what makes a whole big map fast), quads are rasterised as
//! the game's two triangles each, and horizontal bands of the picture are drawn in parallel.
//!
//! A map from a stranger cannot make a render run away: what is drawn is first clipped to the
//! picture (a quad outside it, or a tile layer's empty part, costs nothing; a quad over it costs
//! its pixels, however far its corners are) and its work counted against the map's
//! [`Limits::max_render_work`](twcodec::Limits::max_render_work). A map that needs more is an
//! error of kind [`LimitExceeded`](twcodec::ErrorKind::LimitExceeded) naming the limit and the
//! layer where it was passed, before any pixel is drawn.
//!
//! ```
//! use twcodec_tools::render::{render, RenderOptions, Size};
//!
//! let map = twcodec_testkit::sample::map()?;
//! let options = RenderOptions::default().size(Size::Width(320));
//! let rendered = render(&map, &options)?;
//! assert_eq!(rendered.picture.width, 320);
//! let png = rendered.picture.to_png()?;
//! assert!(png.starts_with(b"\x89PNG"));
//! # Ok::<(), twcodec::Error>(())
//! ```

mod entities;
mod pictures;
mod raster;
pub mod text;
mod texture;
pub mod thumbnail;
pub mod world;

use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;

use crate::assets::Picture;
use pictures::{FileCache, Textures, Use};
use raster::{Band, Rect, TileColumns, TileDraw, TileLook, Triangle, Vertex};
use texture::{Px, Texture};
use twcodec::map::{Envelope, Group, ItemRef, Layer, LayerContent, Map, Ref};
use twcodec::Error;

/// How big the picture is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Size {
    /// This many pixels wide; the height follows the view's shape (16:9 for a camera view).
    Width(u32),
    /// This many pixels per tile of the game layer (32 for the game's full resolution).
    Scale(f64),
    /// Exactly this size; the view keeps its center and fits inside.
    Pixels {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
}

/// What part of the map is shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum View {
    /// The whole game layer (or, without one, every tile layer) fills the picture.
    Whole,
    /// A camera as in the game: centered on `(x, y)` in tiles, seeing `zoom` times the
    /// game's default screen (1500 x 843.75 world units at 16:9).
    Camera {
        /// Horizontal center, in tiles.
        x: f64,
        /// Vertical center, in tiles.
        y: f64,
        /// 1.0 sees what the game shows by default; 2.0 twice as much.
        zoom: f64,
    },
    /// A rectangle of tiles of the game layer (`x`, `y` its top-left corner, `width` x `height`
    /// tiles) fills the picture; with [`Size::Pixels`] of another shape it keeps its center
    /// and fits inside.
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

/// What to draw, and how.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RenderOptions {
    /// The picture's size.
    pub size: Size,
    /// The part of the map shown.
    pub view: View,
    /// The time in milliseconds at which envelopes are evaluated (0 = the start of a round).
    pub time_ms: f64,
    /// The entities view in percent, as the game's `cl_overlay_entities`: the physics layers
    /// (game, front, tele, speedup, switch, tune) are drawn with an entities tileset at this
    /// opacity, where they are in the layer order, and the other layers at the rest. 0 (the
    /// default) draws the map as players see it, 100 only its physics.
    pub entities: u8,
    /// Draw detail layers (the game's "high detail", on by default).
    pub detail: bool,
    /// Only these layers; `None` draws every layer.
    pub layers: Option<Vec<ItemRef<Layer>>>,
    /// The folder of the game's pictures (`mapres`) where external images are found by name.
    pub mapres: Option<PathBuf>,
    /// The entities tileset (a 16 x 16 tile picture, as DDNet's
    /// `data/assets/entities/comfort/ddnet.png`); `None` looks next to `mapres`, else draws
    /// tiles in plain colors.
    pub entities_tileset: Option<PathBuf>,
    /// The color behind everything (straight RGBA); the game clears to opaque gray 128.
    pub background: [u8; 4],
    /// How pictures are sampled: the game's way unless measuring (`examples/render_psnr.rs`).
    #[doc(hidden)]
    pub filtering: Filtering,
}

/// How a render samples pictures (docs/format-notes.md, "Drawing a map", "Sampling and
/// blending"). Only [`Filtering::Game`] is meant for use; the others are there to measure it
/// (`examples/render_psnr.rs`, docs/performance.md).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Filtering {
    /// As the game: straight texels filtered bilinearly, the two mipmap levels nearest the
    /// footprint of a pixel mixed (trilinear), then times the color and blended.
    #[default]
    Game,
    /// Level 0 alone, bilinearly: a reference, drawn larger and reduced.
    Level0,
    /// As the renderer did before issue 34: premultiplied texels, one mipmap level for a whole
    /// triangle or tile layer, bilinear within it.
    Issue17,
}

impl Filtering {
    /// How the textures keep their texels for this sampling.
    fn alpha(self) -> texture::Alpha {
        match self {
            Filtering::Game | Filtering::Level0 => texture::Alpha::Straight,
            Filtering::Issue17 => texture::Alpha::Premultiplied,
        }
    }
}

/// Builder methods: `RenderOptions::default().size(..)`, each setting the field of its name.
impl RenderOptions {
    /// Sets [`RenderOptions::size`].
    pub fn size(self, size: Size) -> RenderOptions {
        RenderOptions { size, ..self }
    }

    /// Sets [`RenderOptions::view`].
    pub fn view(self, view: View) -> RenderOptions {
        RenderOptions { view, ..self }
    }

    /// Sets [`RenderOptions::time_ms`].
    pub fn time_ms(self, time_ms: f64) -> RenderOptions {
        RenderOptions { time_ms, ..self }
    }

    /// Sets [`RenderOptions::entities`].
    pub fn entities(self, entities: u8) -> RenderOptions {
        RenderOptions { entities, ..self }
    }

    /// Sets [`RenderOptions::detail`].
    pub fn detail(self, detail: bool) -> RenderOptions {
        RenderOptions { detail, ..self }
    }

    /// Sets [`RenderOptions::layers`] (a `Vec`, or `None` for every layer).
    pub fn layers(self, layers: impl Into<Option<Vec<ItemRef<Layer>>>>) -> RenderOptions {
        RenderOptions {
            layers: layers.into(),
            ..self
        }
    }

    /// Sets [`RenderOptions::mapres`] (a path, or `None`).
    pub fn mapres(self, mapres: impl Into<Option<PathBuf>>) -> RenderOptions {
        RenderOptions {
            mapres: mapres.into(),
            ..self
        }
    }

    /// Sets [`RenderOptions::entities_tileset`] (a path, or `None`).
    pub fn entities_tileset(self, entities_tileset: impl Into<Option<PathBuf>>) -> RenderOptions {
        RenderOptions {
            entities_tileset: entities_tileset.into(),
            ..self
        }
    }

    /// Sets [`RenderOptions::background`].
    pub fn background(self, background: [u8; 4]) -> RenderOptions {
        RenderOptions { background, ..self }
    }

    /// Sets [`RenderOptions::filtering`].
    #[doc(hidden)]
    pub fn filtering(self, filtering: Filtering) -> RenderOptions {
        RenderOptions { filtering, ..self }
    }
}

impl Default for RenderOptions {
    fn default() -> RenderOptions {
        RenderOptions {
            size: Size::Width(1920),
            view: View::Whole,
            time_ms: 0.0,
            entities: 0,
            detail: true,
            layers: None,
            mapres: crate::assets::default_mapres(),
            entities_tileset: None,
            background: [128, 128, 128, 255],
            filtering: Filtering::Game,
        }
    }
}

/// A rendered picture, with what could not be drawn as the map asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The picture, straight RGBA8.
    pub picture: Picture,
    /// What was drawn differently: missing external pictures (drawn as placeholders),
    /// pictures that do not load, a missing entities tileset.
    pub warnings: Vec<String>,
    /// The steps of work the render took, as
    /// [`Limits::max_render_work`](twcodec::Limits::max_render_work) counts them: what to set
    /// that limit from, for maps like this one at this size.
    pub work: u64,
}

/// A rendered picture as a PNG file ([`render_png`]), with what could not be drawn as the map
/// asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedPng {
    /// The PNG file (straight RGBA8).
    pub png: Vec<u8>,
    /// The picture's width in pixels.
    pub width: u32,
    /// The picture's height in pixels.
    pub height: u32,
    /// As [`Rendered::warnings`].
    pub warnings: Vec<String>,
    /// As [`Rendered::work`].
    pub work: u64,
}

/// The largest picture drawn, in pixels (400 MB of RGBA).
pub const MAX_PIXELS: u64 = 100_000_000;

/// World units per tile.
const TILE: f64 = 32.0;

/// Rows of the picture drawn together, each band on a thread of its own.
const ROWS: usize = 16;

/// The steps of work of a pixel drawn, about as it costs to draw (measured on the hostile maps
/// of `tests/common/hostile_render.rs`: 2 to 5 ns a step on a loaded 2-core machine): a tile
/// looked up and a plain color; a tile's cell of a picture sampled; a triangle's edge tests
/// and interpolated colors (also each row of a triangle, whose span is looked for); those and
/// a picture sampled.
const TILE_PIXEL: u64 = 1;
const TILE_PICTURE_PIXEL: u64 = 8;
const QUAD_PIXEL: u64 = 8;
const QUAD_PICTURE_PIXEL: u64 = 16;

/// The layers named by `specs`: each a layer index (as `twcodec dump` numbers them) or a
/// layer name (compared without case; every layer of that name).
pub fn select_layers(map: &Map, specs: &[impl AsRef<str>]) -> Result<Vec<ItemRef<Layer>>, Error> {
    let mut selected = Vec::new();
    for spec in specs {
        let spec = spec.as_ref().trim();
        let found: Vec<ItemRef<Layer>> = match spec.parse::<usize>() {
            Ok(index) => map.refs::<Layer>().filter(|r| r.index() == index).collect(),
            Err(_) => (map.refs::<Layer>())
                .filter(|&r| {
                    map.get(r)
                        .is_some_and(|l| l.name().eq_ignore_ascii_case(spec))
                })
                .collect(),
        };
        if found.is_empty() {
            let names: Vec<String> = (map.layers().iter().enumerate())
                .take(40)
                .map(|(i, layer)| format!("{i} {:?}", layer.name()))
                .collect();
            return Err(Error::new(
                twcodec::ErrorKind::InvalidOptions,
                format!(
                    "no layer {spec:?}; the map has {} layers: {}",
                    map.layers().len(),
                    names.join(", ")
                ),
            ));
        }
        selected.extend(found);
    }
    Ok(selected)
}

/// Draws `map` as `options` say (a [`Renderer`] of its own: the game's pictures are read
/// for this render alone), within the map's
/// [`Limits::max_render_work`](twcodec::Limits::max_render_work).
pub fn render(map: &Map, options: &RenderOptions) -> Result<Rendered, Error> {
    render_with(&FileCache::default(), map, options, None)
}

/// Draws `map` as `options` say, as a PNG file: the bytes that [`render`]'s picture makes
/// with [`Picture::to_png`], made without the whole picture. Each piece of the PNG's rows is
/// drawn into room of its own and compressed while it is at hand, on the thread that drew it:
/// no pass waits for the last band, the rows are not read from memory again, and what is held
/// is a piece per thread and the compressed pieces, not the picture.
pub fn render_png(map: &Map, options: &RenderOptions) -> Result<RenderedPng, Error> {
    render_png_with(&FileCache::default(), map, options, None)
}

/// Draws maps, keeping the pictures it reads and decodes for the next render: the files of
/// external images and the entities tileset, and the textures made of embedded images (found
/// again by their pixels, so an edited picture is made anew). Many maps, or one map at many
/// times, read each file and make each texture once. Files are not read again when they
/// change; [`Renderer::clear`] or a new `Renderer` does that. What is kept is bounded (1 GiB
/// of pixels, 1024 pictures): past that, the pictures used longest ago are dropped and made
/// again when needed.
///
/// ```
/// use twcodec_tools::render::{RenderOptions, Renderer, Size};
///
/// let map = twcodec_testkit::sample::map()?;
/// let renderer = Renderer::new();
/// for time_ms in [0.0, 250.0, 500.0] {
///     let options = RenderOptions::default().size(Size::Width(64)).time_ms(time_ms);
///     let frame = renderer.render(&map, &options)?;
///     assert_eq!(frame.picture.width, 64);
/// }
/// # Ok::<(), twcodec::Error>(())
/// ```
#[derive(Debug)]
pub struct Renderer {
    files: FileCache,
}

impl Default for Renderer {
    fn default() -> Renderer {
        Renderer {
            files: FileCache::keeping_embedded(),
        }
    }
}

impl Renderer {
    /// A renderer that has read nothing yet.
    pub fn new() -> Renderer {
        Renderer::default()
    }

    /// How many pictures the renderer keeps now: files read (or found unreadable) and
    /// textures of embedded images.
    pub fn cached_files(&self) -> usize {
        self.files.len()
    }

    /// Drops every picture kept: the next render reads and makes them again.
    pub fn clear(&self) {
        self.files.clear();
    }

    /// Draws `map` as `options` say.
    pub fn render(&self, map: &Map, options: &RenderOptions) -> Result<Rendered, Error> {
        render_with(&self.files, map, options, None)
    }

    /// [`Renderer::render`], calling `progress(done, total)` from the drawing threads as bands
    /// of rows are finished (for a progress bar).
    pub fn render_with_progress(
        &self,
        map: &Map,
        options: &RenderOptions,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Rendered, Error> {
        render_with(&self.files, map, options, Some(progress))
    }

    /// Draws `map` as `options` say, as a PNG file: see [`render_png`].
    pub fn render_png(&self, map: &Map, options: &RenderOptions) -> Result<RenderedPng, Error> {
        render_png_with(&self.files, map, options, None)
    }

    /// [`Renderer::render_png`], calling `progress(done, total)` as
    /// [`Renderer::render_with_progress`] does.
    pub fn render_png_with_progress(
        &self,
        map: &Map,
        options: &RenderOptions,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<RenderedPng, Error> {
        render_png_with(&self.files, map, options, Some(progress))
    }
}

fn render_with(
    files: &FileCache,
    map: &Map,
    options: &RenderOptions,
    progress: Option<&(dyn Fn(usize, usize) + Sync)>,
) -> Result<Rendered, Error> {
    let (picture, warnings, work) = lay_out_and(files, map, options, |ops, frame| {
        Ok(paint(ops, options, frame, progress))
    })?;
    Ok(Rendered {
        picture,
        warnings,
        work,
    })
}

fn render_png_with(
    files: &FileCache,
    map: &Map,
    options: &RenderOptions,
    progress: Option<&(dyn Fn(usize, usize) + Sync)>,
) -> Result<RenderedPng, Error> {
    let mut size = (0, 0);
    let (png, warnings, work) = lay_out_and(files, map, options, |ops, frame| {
        size = (frame.width as u32, frame.height as u32);
        paint_png(ops, options, frame, progress)
    })?;
    Ok(RenderedPng {
        png,
        width: size.0,
        height: size.1,
        warnings,
        work,
    })
}

/// Reads the pictures `map` draws, lays it out as `options` say, and has `paint` draw it:
/// what `paint` makes, the warnings and the work.
fn lay_out_and<T>(
    files: &FileCache,
    map: &Map,
    options: &RenderOptions,
    paint: impl FnOnce(&[Op<'_>], &Frame) -> Result<T, Error>,
) -> Result<(T, Vec<String>, u64), Error> {
    if options.entities > 100 {
        return Err(Error::new(
            twcodec::ErrorKind::InvalidOptions,
            format!("an entities view of {}%: at most 100", options.entities),
        ));
    }
    let frame = Frame::new(map, options)?;
    let mut warnings = Vec::new();
    // The pictures read and made into textures, and the layers drawn decoded (a lazy map's),
    // all at once: each is parallel, and together neither waits for the other's last job.
    let (textures, occupied) = rayon::join(
        || Textures::load(files, map, options, &mut warnings),
        || occupied_layers(map, options),
    );
    let (ops, work) = lay_out(map, options, &frame, &textures, &occupied, None)?;
    Ok((paint(&ops, &frame)?, warnings, work))
}

/// What is drawn among the map's layers (the game world of a demo): its operations, given
/// where the world lands in the picture, each counted in the budget.
type WorldOps<'w> = dyn FnMut(&Mapping, &mut Budget<'_>) -> Result<Vec<Op<'static>>, Error> + 'w;

/// Lays out `map` (and `world` before its first game layer) in `frame`: what to draw, in
/// order ([`paint`] or [`paint_png`] draws it), and the work it takes. `occupied` is what
/// [`occupied_layers`] finds for `options`.
fn lay_out<'m>(
    map: &'m Map,
    options: &RenderOptions,
    frame: &Frame,
    textures: &Textures,
    occupied: &[Option<Occupied>],
    world: Option<&mut WorldOps<'_>>,
) -> Result<(Vec<Op<'m>>, u64), Error> {
    let mut budget = Budget {
        limit: map.limits().max_render_work(),
        spent: 0,
        frame,
    };
    let ops = scene(map, options, frame, textures, occupied, world, &mut budget)?;
    Ok((ops, budget.spent))
}

/// Draws `ops` over the background in `frame`, bands of [`ROWS`] rows in parallel: the
/// picture.
fn paint(
    ops: &[Op<'_>],
    options: &RenderOptions,
    frame: &Frame,
    progress: Option<&(dyn Fn(usize, usize) + Sync)>,
) -> Picture {
    let background = texture::premultiply(options.background);
    let (width, height) = (frame.width, frame.height);
    // The background, written in parallel: zeroed memory would be cleared on one thread
    // when the allocator reuses it.
    let mut pixels: Vec<Px> = Vec::new();
    pixels.par_extend(rayon::iter::repeat_n(background, width * height));
    let bands = frame.bands();
    let done = std::sync::atomic::AtomicUsize::new(0);
    pixels
        .par_chunks_mut(width * ROWS)
        .enumerate()
        .for_each_init(Vec::new, |hidden, (i, rows)| {
            paint_band(ops, options, i * ROWS, width, rows, hidden);
            if let Some(progress) = progress {
                let finished = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                progress(finished, bands);
            }
        });
    // [u8; 4] to u8 keeps alignment and bytes, so the cast reuses the buffer; the copy is
    // never taken.
    let rgba: Vec<u8> = bytemuck::allocation::try_cast_vec(pixels)
        .unwrap_or_else(|(_, pixels)| pixels.into_iter().flatten().collect());
    Picture {
        width: width as u32,
        height: height as u32,
        rgba,
    }
}

/// [`paint`] as a PNG file, the bytes of [`Picture::to_png`]: each piece of the PNG's rows
/// drawn, band after band, into room of its own, then filtered and compressed while it is
/// at hand; no picture is kept whole.
fn paint_png(
    ops: &[Op<'_>],
    options: &RenderOptions,
    frame: &Frame,
    progress: Option<&(dyn Fn(usize, usize) + Sync)>,
) -> Result<Vec<u8>, Error> {
    const _: () = assert!(crate::assets::PNG_PIECE_ROW_STEP % ROWS == 0);
    let background = texture::premultiply(options.background);
    let (width, height) = (frame.width, frame.height);
    let (png_width, png_height) = (width as u32, height as u32);
    let per_piece = crate::assets::png_piece_rows(png_width);
    let pieces = height.div_ceil(per_piece);
    let bands = frame.bands();
    let done = std::sync::atomic::AtomicUsize::new(0);
    #[derive(Default)]
    struct Room {
        pixels: Vec<Px>,
        hidden: Vec<u32>,
        png: crate::assets::PngScratch,
    }
    let pieces = (0..pieces)
        .into_par_iter()
        .map_init(Room::default, |room, piece| {
            let top = piece * per_piece;
            let rows = per_piece.min(height - top);
            room.pixels.clear();
            room.pixels.resize(rows * width, background);
            for (i, band) in room.pixels.chunks_mut(width * ROWS).enumerate() {
                paint_band(ops, options, top + i * ROWS, width, band, &mut room.hidden);
                if let Some(progress) = progress {
                    let finished = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    progress(finished, bands);
                }
            }
            let rgba: &[u8] = bytemuck::cast_slice(&room.pixels);
            let last = top + rows == height;
            crate::assets::png_piece(rgba, width * 4, piece == 0, last, &mut room.png)
        })
        .collect::<Result<Vec<_>, Error>>()?;
    crate::assets::png_file(png_width, png_height, pieces)
}

/// Draws `ops` into `rows` (filled with the background), the band of the picture whose first
/// row is `top`, and turns its pixels to straight alpha as PNG stores them; `hidden` is room
/// for the cover pass.
fn paint_band(
    ops: &[Op<'_>],
    options: &RenderOptions,
    top: usize,
    width: usize,
    rows: &mut [Px],
    hidden: &mut Vec<u32>,
) {
    // First the pixels each step leaves to later ones that cover them whole, from the last
    // step to the first; then the steps, drawing only what stays in sight.
    hidden.clear();
    hidden.resize(rows.len(), 0);
    let mut band = Band {
        top,
        width,
        pixels: rows,
        hidden: &[],
        step: 0,
    };
    // (Steps past u32::MAX share its number: they hide nothing from each other.)
    let number = |i: usize| u32::try_from(i + 1).unwrap_or(u32::MAX);
    for (i, op) in ops.iter().enumerate().rev() {
        let step = number(i);
        op.run(&mut band, options.filtering, Action::Cover(hidden, step));
    }
    let mut band = Band { hidden, ..band };
    for (i, op) in ops.iter().enumerate() {
        band.step = number(i);
        op.run(&mut band, options.filtering, Action::Draw);
    }
    // Back to straight alpha, as PNG stores it, while the band is at hand.
    for pixel in band.pixels.iter_mut() {
        *pixel = texture::straight(*pixel);
    }
}

/// Where a group's world lands in the picture: the world position of the picture's left and
/// top edges, the world units per pixel, and the pixels the group may draw.
#[derive(Debug, Clone, Copy)]
struct Mapping {
    left: f64,
    top: f64,
    units_per_pixel: (f64, f64),
    clip: Rect,
}

impl Mapping {
    /// The picture position of a world position.
    fn pixel(&self, x: f64, y: f64) -> (f32, f32) {
        (
            ((x - self.left) / self.units_per_pixel.0) as f32,
            ((y - self.top) / self.units_per_pixel.1) as f32,
        )
    }
}

/// The work a render may do ([`Limits::max_render_work`]), counted while the scene is laid
/// out, before any pixel is drawn.
///
/// [`Limits::max_render_work`]: twcodec::Limits::max_render_work
struct Budget<'f> {
    limit: u64,
    spent: u64,
    frame: &'f Frame,
}

impl Budget<'_> {
    /// Counts `steps` more; past the limit, the error saying so, `at` the place named (`quad
    /// #3`, or nothing).
    fn spend(&mut self, steps: u64, at: impl FnOnce() -> String) -> Result<(), Error> {
        self.spent = self.spent.saturating_add(steps);
        if self.spent <= self.limit {
            return Ok(());
        }
        let at = at();
        let at = match at.is_empty() {
            true => at,
            false => format!(" at {at}"),
        };
        Err(Error::limit(format!(
            "drawing this map passes the limit of {} steps of work (Limits::max_render_work){at}, \
             in a picture of {}x{} pixels",
            self.limit, self.frame.width, self.frame.height
        )))
    }
}

/// Layer `index`, as errors name it.
fn layer_location(index: usize, layer: &Layer) -> twcodec::Location {
    twcodec::Location::MapItem {
        kind: "layer",
        index,
        type_id: 5,
        id: layer.id(),
    }
}

/// Where the map's points land in a picture drawn with some options ([`camera`]): for
/// drawing over a render (outlines, labels) exactly where the renderer drew.
///
/// ```
/// use twcodec_tools::render::{camera, GroupView, RenderOptions, Size, View};
///
/// let map = twcodec_testkit::sample::map()?;
/// let view = View::Tiles { x: 10.0, y: 5.0, width: 20.0, height: 10.0 };
/// let options = RenderOptions::default().size(Size::Width(200)).view(view);
/// let camera = camera(&map, &options)?;
/// assert_eq!((camera.width(), camera.height()), (200, 100));
/// // The top-left corner of tile (10, 5) is the picture's top-left corner.
/// let (x, y) = camera.to_pixel(GroupView::GAME, 10.0 * 32.0, 5.0 * 32.0);
/// assert!(x.abs() < 1e-6 && y.abs() < 1e-6);
/// # Ok::<(), twcodec::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Camera {
    frame: Frame,
}

/// How a group moves its layers against the camera (its parallax, parallax zoom and offset):
/// what [`Camera::to_pixel`] needs to place a point of one of its layers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupView {
    /// Parallax in percent, horizontal and vertical (100: moves with the game layer).
    pub parallax: (f64, f64),
    /// Parallax zoom in percent (DDNet; 100: zooms with the game layer).
    pub parallax_zoom: f64,
    /// Offset in world units (32 a tile).
    pub offset: (f64, f64),
}

impl GroupView {
    /// The game group's: parallax 100, no offset.
    pub const GAME: GroupView = GroupView {
        parallax: (100.0, 100.0),
        parallax_zoom: 100.0,
        offset: (0.0, 0.0),
    };

    /// The view of `group`, as the renderer draws it.
    pub fn of(group: &Group) -> GroupView {
        let item = group.item();
        GroupView {
            parallax: (f64::from(item.parallax.x), f64::from(item.parallax.y)),
            parallax_zoom: f64::from(twcodec::map::edit::parallax_zoom(item.parallax)),
            offset: (f64::from(item.offset.x), f64::from(item.offset.y)),
        }
    }
}

/// The camera of a render of `map` with `options`, without drawing anything: the picture's
/// size and where points land. An error for the options [`render`] refuses for their size or
/// view.
pub fn camera(map: &Map, options: &RenderOptions) -> Result<Camera, Error> {
    Ok(Camera {
        frame: Frame::new(map, options)?,
    })
}

impl Camera {
    /// The picture's width in pixels.
    pub fn width(&self) -> u32 {
        self.frame.width as u32
    }

    /// The picture's height in pixels.
    pub fn height(&self) -> u32 {
        self.frame.height as u32
    }

    /// Where the world point `(x, y)` (world units, 32 a tile) of a layer in a group seen as
    /// `group` lands in the picture, in pixels from its top-left corner (fractions kept).
    pub fn to_pixel(&self, group: GroupView, x: f64, y: f64) -> (f64, f64) {
        let f = &self.frame;
        let [left, top, w, h] = f.window(group.parallax, group.parallax_zoom, group.offset);
        (
            (x - left) * f.width as f64 / w,
            (y - top) * f.height as f64 / h,
        )
    }
}

/// The picture's size and the camera.
#[derive(Debug, Clone, PartialEq)]
struct Frame {
    width: usize,
    height: usize,
    /// Camera center in world units.
    center: (f64, f64),
    zoom: f64,
    aspect: f64,
}

/// The game's screen size in world units at `zoom` (DDNet `CalcScreenParams`).
fn screen_size(aspect: f64, zoom: f64) -> (f64, f64) {
    const AMOUNT: f64 = 1150.0 * 1000.0;
    const MAX_WIDTH: f64 = 1500.0;
    const MAX_HEIGHT: f64 = 1050.0;
    let f = AMOUNT.sqrt() / aspect.sqrt();
    let (mut w, mut h) = (f * aspect, f);
    if w > MAX_WIDTH {
        w = MAX_WIDTH;
        h = w / aspect;
    }
    if h > MAX_HEIGHT {
        h = MAX_HEIGHT;
        w = h * aspect;
    }
    (w * zoom, h * zoom)
}

impl Frame {
    /// The bands of [`ROWS`] rows the picture is drawn in.
    fn bands(&self) -> usize {
        self.height.div_ceil(ROWS)
    }

    fn new(map: &Map, options: &RenderOptions) -> Result<Frame, Error> {
        let (tiles_w, tiles_h) = extent(map);
        let bad = |what: String| Err(Error::new(twcodec::ErrorKind::InvalidOptions, what));
        let (tiles_x, tiles_y, tiles_w, tiles_h) = match options.view {
            View::Tiles {
                x,
                y,
                width,
                height,
            } => {
                let finite = [x, y, width, height].iter().all(|v| v.is_finite());
                if !(finite && width > 0.0 && height > 0.0) {
                    return bad(format!(
                        "a view of {width}x{height} tiles at {x},{y}: the numbers must be \
                         finite and the sides positive"
                    ));
                }
                (x, y, width, height)
            }
            _ => (0.0, 0.0, tiles_w, tiles_h),
        };
        let (width, height, center, zoom) = match options.view {
            View::Whole | View::Tiles { .. } => {
                let (world_w, world_h) = (tiles_w * TILE, tiles_h * TILE);
                let (width, height) = match options.size {
                    Size::Width(w) => (f64::from(w), (f64::from(w) * world_h / world_w).round()),
                    Size::Scale(s) => ((tiles_w * s).round(), (tiles_h * s).round()),
                    Size::Pixels { width, height } => (f64::from(width), f64::from(height)),
                };
                let (base_w, base_h) = screen_size(width / height.max(1.0), 1.0);
                let zoom = (world_w / base_w).max(world_h / base_h);
                let center = (
                    tiles_x * TILE + world_w / 2.0,
                    tiles_y * TILE + world_h / 2.0,
                );
                (width, height, center, zoom)
            }
            View::Camera { x, y, zoom } => {
                if !(zoom.is_finite() && zoom > 0.0 && x.is_finite() && y.is_finite()) {
                    return bad(format!(
                        "a camera at {x},{y} with zoom {zoom}: the position must be finite and \
                         the zoom a positive number"
                    ));
                }
                let (width, height) = match options.size {
                    Size::Width(w) => (f64::from(w), (f64::from(w) * 9.0 / 16.0).round()),
                    Size::Scale(s) => {
                        let (w, h) = screen_size(16.0 / 9.0, zoom);
                        ((w / TILE * s).round(), (h / TILE * s).round())
                    }
                    Size::Pixels { width, height } => (f64::from(width), f64::from(height)),
                };
                (width, height, (x * TILE, y * TILE), zoom)
            }
        };
        if !(width >= 1.0 && height >= 1.0) {
            return bad(format!(
                "a picture of {width}x{height} pixels: each side must be at least 1"
            ));
        }
        if width * height > MAX_PIXELS as f64 {
            return Err(Error::limit(format!(
                "a picture of {width}x{height} pixels: at most {MAX_PIXELS} pixels in all"
            )));
        }
        Ok(Frame {
            width: width as usize,
            height: height as usize,
            center,
            zoom,
            aspect: width / height,
        })
    }

    /// Where the world lands in the picture as the screen shows it: no parallax, no offset,
    /// every pixel.
    fn screen(&self) -> Mapping {
        let [left, top, w, h] = self.window((100.0, 100.0), 100.0, (0.0, 0.0));
        Mapping {
            left,
            top,
            units_per_pixel: (w / self.width as f64, h / self.height as f64),
            clip: Rect {
                x0: 0,
                y0: 0,
                x1: self.width,
                y1: self.height,
            },
        }
    }

    /// The world rectangle a group shows: left, top, width, height (DDNet
    /// `MapScreenToWorld`).
    fn window(&self, parallax: (f64, f64), parallax_zoom: f64, offset: (f64, f64)) -> [f64; 4] {
        let (mut w, mut h) = screen_size(self.aspect, self.zoom);
        let scale = (parallax_zoom * (self.zoom - 1.0) + 100.0) / 100.0 / self.zoom;
        w *= scale;
        h *= scale;
        let cx = self.center.0 * parallax.0 / 100.0;
        let cy = self.center.1 * parallax.1 / 100.0;
        [offset.0 + cx - w / 2.0, offset.1 + cy - h / 2.0, w, h]
    }

    /// A group's window: its parallax, parallax zoom and offset.
    fn group_window(&self, group: &Group) -> [f64; 4] {
        let item = group.item();
        let (px, py) = (item.parallax.x, item.parallax.y);
        let parallax_zoom = f64::from(twcodec::map::edit::parallax_zoom(item.parallax));
        let offset = (f64::from(item.offset.x), f64::from(item.offset.y));
        self.window((f64::from(px), f64::from(py)), parallax_zoom, offset)
    }

    /// The picture's pixels inside a group's clip rectangle, given in the game group's
    /// coordinates; the whole picture for groups without clipping; `None` when nothing shows.
    fn clip(&self, group: &Group) -> Option<Rect> {
        let all = Rect {
            x0: 0,
            y0: 0,
            x1: self.width,
            y1: self.height,
        };
        let item = group.item();
        let clip = match item.clip {
            Some(clip) if item.version >= 2 && clip.enabled != 0 => clip,
            _ => return Some(all),
        };
        let [left, top, w, h] = self.window((100.0, 100.0), 100.0, (0.0, 0.0));
        let to_x = |x: f64| ((x - left) * self.width as f64 / w).round();
        let to_y = |y: f64| ((y - top) * self.height as f64 / h).round();
        let (x0, x1) = (
            to_x(f64::from(clip.x)),
            to_x(f64::from(clip.x) + f64::from(clip.width)),
        );
        let (y0, y1) = (
            to_y(f64::from(clip.y)),
            to_y(f64::from(clip.y) + f64::from(clip.height)),
        );
        let fit = |v: f64, max: usize| v.clamp(0.0, max as f64) as usize;
        let rect = Rect {
            x0: fit(x0, self.width),
            y0: fit(y0, self.height),
            x1: fit(x1, self.width),
            y1: fit(y1, self.height),
        };
        (rect.x0 < rect.x1 && rect.y0 < rect.y1).then_some(rect)
    }
}

/// The tiles shown by a whole view: the game layer's size, else the largest tile layer's, else
/// the game's screen at the origin.
fn extent(map: &Map) -> (f64, f64) {
    if let Some((_, game)) = map.game_layer() {
        let item = game.item();
        if item.width > 0 && item.height > 0 {
            return (f64::from(item.width), f64::from(item.height));
        }
    }
    let largest = (map.layers().iter())
        .filter_map(|layer| layer.tilemap())
        .map(|item| (item.width.max(0), item.height.max(0)))
        .max_by_key(|&(w, h)| i64::from(w) * i64::from(h));
    match largest {
        Some((w, h)) if w > 0 && h > 0 => (f64::from(w), f64::from(h)),
        _ => (1500.0 / TILE, 843.75 / TILE),
    }
}

/// Whether layer `index` is drawn with `options`.
fn drawn(map: &Map, options: &RenderOptions, index: usize, layer: &Layer) -> bool {
    if let Some(only) = &options.layers {
        if !only.iter().any(|r| r.index() == index && r.is_of(map)) {
            return false;
        }
    }
    if layer.is_detail() && !options.detail {
        return false;
    }
    match layer.content() {
        LayerContent::Tiles(_) | LayerContent::Quads(_) => options.entities < 100,
        LayerContent::Sounds(_) | LayerContent::Unknown(_) => false,
        _ => options.entities > 0,
    }
}

/// What a tile layer's tiles show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Look {
    /// The tile itself.
    Tile,
    /// A tele tile's number.
    TeleNumber,
    /// A switch tile's number.
    SwitchNumber,
    /// A timed switch tile's delay.
    SwitchDelay,
    /// A speedup tile's force.
    SpeedupForce,
    /// A speedup tile's speed limit.
    SpeedupMaxSpeed,
}

/// Whether a speedup tile pushes, and so is drawn: type 28 with a force, type 29 with a force
/// or a speed limit.
fn speedup_shown(tile: &twcodec_schema::map::tile::Speedup) -> bool {
    match tile.id {
        28 => tile.force != 0,
        29 => tile.force != 0 || tile.max_speed != 0,
        _ => false,
    }
}

/// One thing to draw, in order.
enum Op<'m> {
    Tiles {
        layer: &'m Layer,
        look: Look,
        /// Tune layers: the color (cell) of each tune zone.
        zones: Option<Arc<[u8; 256]>>,
        texture: Option<Arc<Texture>>,
        color: [f32; 4],
        origin: (f64, f64),
        units_per_pixel: (f64, f64),
        clip: Rect,
        /// Where the layer's columns sample, made by the first band drawn.
        columns: TileColumns,
    },
    Triangles {
        texture: Option<Arc<Texture>>,
        /// Each set up within the group's clip.
        triangles: Vec<Triangle>,
    },
}

/// Every layer to draw, in the game's order, with its mapping, colors and geometry at the
/// time asked for.
///
/// Every step is counted in `budget` first: the groups and layers visited, each quad and the
/// envelope points its envelopes look at, and what each layer and quad will draw, clipped to
/// the picture (see [`Limits::max_render_work`](twcodec::Limits::max_render_work)). What draws
/// nothing (quads outside the picture or of no area, tile layers with nothing in view) is
/// left out.
fn scene<'m>(
    map: &'m Map,
    options: &RenderOptions,
    frame: &Frame,
    textures: &Textures,
    occupied: &[Option<Occupied>],
    mut world: Option<&mut WorldOps<'_>>,
    budget: &mut Budget<'_>,
) -> Result<Vec<Op<'m>>, Error> {
    // An envelope gives the channels it has, at most `wanted`; the others keep `default` (a
    // color layer animated by a position envelope keeps alpha 1, as in the game).
    let envelope = |raw: i32, offset: i32, default: [f64; 4], wanted: usize| -> [f64; 4] {
        let Ref::To(r) = map.item_ref::<Envelope>(raw) else {
            return default;
        };
        let Some(envelope) = map.get(r) else {
            return default;
        };
        let Some(values) = envelope.eval(map, options.time_ms + f64::from(offset)) else {
            return default;
        };
        let channels = usize::try_from(envelope.item().channels).map_or(0, |c| c.min(wanted));
        let mut result = default;
        result[..channels].copy_from_slice(&values[..channels]);
        result
    };
    // The points an envelope looks at to be evaluated (the segment of a time is looked for
    // one point after another): counted before it is.
    let points = |raw: i32| -> u64 {
        match map.item_ref::<Envelope>(raw) {
            Ref::To(r) => map.get(r).map_or(0, |e| e.points(map).len() as u64),
            _ => 0,
        }
    };
    let bands = frame.bands() as u64;
    // The entities view fades the map's own layers and shows the physics ones.
    let design_alpha = f64::from(100 - options.entities.min(100)) / 100.0;
    let physics_alpha = f32::from(options.entities.min(100)) / 100.0;
    let mut ops = Vec::new();
    // The game world is drawn before the first game layer (the game's background and
    // foreground split there), or after everything when the map has none, mapped as the
    // screen is, without parallax.
    let screen = frame.screen();
    let mut world_drawn = world.is_none();
    for (index, group) in map.groups().iter().enumerate() {
        budget.spend(1, String::new).map_err(|e| {
            e.located(twcodec::Location::MapItem {
                kind: "group",
                index,
                type_id: 4,
                id: group.id(),
            })
        })?;
        let Some(clip) = frame.clip(group) else {
            continue;
        };
        let [left, top, w, h] = frame.group_window(group);
        let units_per_pixel = (w / frame.width as f64, h / frame.height as f64);
        let to_pixel = |x: f64, y: f64| {
            (
                ((x - left) / units_per_pixel.0) as f32,
                ((y - top) / units_per_pixel.1) as f32,
            )
        };
        for r in group.layers(map) {
            let Some(layer) = map.get(r) else {
                continue;
            };
            if !world_drawn && matches!(layer.content(), LayerContent::Game(_)) {
                if let Some(world) = world.as_mut() {
                    ops.extend(world(&screen, budget)?);
                }
                world_drawn = true;
            }
            let located = |e: Error| e.located(layer_location(r.index(), layer));
            // Groups may share layers: each visit counts.
            budget.spend(1, String::new).map_err(located)?;
            if !drawn(map, options, r.index(), layer) {
                continue;
            }
            let image = match layer.image(map) {
                Ref::To(image) => textures
                    .images
                    .get(&(image.index(), Use::of(layer)))
                    .cloned(),
                _ => None,
            };
            match layer.content() {
                LayerContent::Quads(quads) => {
                    let pixel = match image {
                        Some(_) => QUAD_PICTURE_PIXEL,
                        None => QUAD_PIXEL,
                    };
                    let mut triangles = Vec::new();
                    for (i, quad) in quads.quads().unwrap_or_default().iter().enumerate() {
                        let looked_at =
                            points(quad.position_envelope) + points(quad.color_envelope);
                        budget
                            .spend(1 + looked_at, || format!("quad #{i}"))
                            .map_err(located)?;
                        let offset = quad.position_envelope_offset;
                        let position = envelope(quad.position_envelope, offset, [0.0; 4], 3);
                        let offset = quad.color_envelope_offset;
                        let color = envelope(quad.color_envelope, offset, [1.0; 4], 4);
                        if color[3] <= 0.0 {
                            continue;
                        }
                        let [dx, dy, degrees, _] = position;
                        let (sin, cos) = degrees.to_radians().sin_cos();
                        let fixed = |v: i32| f64::from(v) / 1024.0;
                        let pivot = quad.points[4];
                        let (pivot_x, pivot_y) = (fixed(pivot.x), fixed(pivot.y));
                        let corner = |i: usize| {
                            let p = quad.points[i];
                            let (x, y) = (fixed(p.x) - pivot_x, fixed(p.y) - pivot_y);
                            let world_x = pivot_x + x * cos - y * sin + dx;
                            let world_y = pivot_y + x * sin + y * cos + dy;
                            let (x, y) = to_pixel(world_x, world_y);
                            let c = quad.colors[i];
                            let channel = |v: i32, e: f64| (f64::from(v) / 255.0 * e) as f32;
                            let uv = quad.texture_coords[i];
                            Vertex {
                                x,
                                y,
                                color: [
                                    channel(c.r, color[0]),
                                    channel(c.g, color[1]),
                                    channel(c.b, color[2]),
                                    channel(c.a, color[3] * design_alpha),
                                ],
                                uv: [
                                    (f64::from(uv.x) / 1024.0) as f32,
                                    (f64::from(uv.y) / 1024.0) as f32,
                                ],
                            }
                        };
                        // The game's two triangles: corners 0, 1, 3 and 0, 3, 2; each drawn
                        // only where it covers part of the picture.
                        let [c0, c1, c2, c3] = [corner(0), corner(1), corner(2), corner(3)];
                        for corners in [[c0, c1, c3], [c0, c3, c2]] {
                            let Some(triangle) = Triangle::new(clip, corners) else {
                                continue;
                            };
                            // Every band looks at the triangle; the pixels it tests, each
                            // row of them looked for.
                            let work = triangle.work().saturating_mul(pixel);
                            let steps = bands.saturating_add(work);
                            budget
                                .spend(steps, || format!("quad #{i}"))
                                .map_err(located)?;
                            triangles.push(triangle);
                        }
                    }
                    if triangles.is_empty() {
                        continue;
                    }
                    budget.spend(bands, String::new).map_err(located)?;
                    ops.push(Op::Triangles {
                        texture: image,
                        triangles,
                    });
                }
                content => {
                    let Some(item) = layer.tilemap() else {
                        continue;
                    };
                    // Only the pixels whose tiles hold anything.
                    let shown = occupied.get(r.index()).copied().flatten().and_then(|o| {
                        raster::tile_pixels(o.tiles, o.size, (left, top), units_per_pixel, clip)
                    });
                    let Some(shown) = shown else {
                        continue;
                    };
                    let (texture, color) = match content {
                        LayerContent::Tiles(tiles) => {
                            let c = item.color;
                            let base = [c.r, c.g, c.b, c.a].map(|v| f64::from(v) / 255.0);
                            let offset = item.color_envelope_offset;
                            let raw = tiles.item().color_envelope;
                            budget.spend(points(raw), String::new).map_err(located)?;
                            let e = envelope(raw, offset, [1.0; 4], 4);
                            let mut color = [0, 1, 2, 3].map(|i| (base[i] * e[i]) as f32);
                            color[3] *= design_alpha as f32;
                            (image, color)
                        }
                        LayerContent::Speedup(_) => {
                            (textures.arrow.clone(), [1.0, 1.0, 1.0, physics_alpha])
                        }
                        LayerContent::Tune(_) => {
                            (textures.tunes.clone(), [1.0, 1.0, 1.0, physics_alpha])
                        }
                        _ => (textures.entities.clone(), [1.0, 1.0, 1.0, physics_alpha]),
                    };
                    // Tune zones take colors in the order they first appear, row by row.
                    let zones = match content {
                        LayerContent::Tune(tiles) => {
                            let mut zones = [0u8; 256];
                            let mut next = 1u8;
                            let grid = tiles.grid().map(|g| g.tiles()).unwrap_or_default();
                            for tile in grid.iter().filter(|t| t.number != 0) {
                                let zone = &mut zones[usize::from(tile.number)];
                                if *zone == 0 {
                                    *zone = next;
                                    next = next.saturating_add(1);
                                }
                            }
                            Some(Arc::new(zones))
                        }
                        _ => None,
                    };
                    let overlays: &[(Look, usize)] = match content {
                        LayerContent::Tele(_) => &[(Look::TeleNumber, 0)],
                        LayerContent::Switch(_) => {
                            &[(Look::SwitchNumber, 1), (Look::SwitchDelay, 2)]
                        }
                        LayerContent::Speedup(_) => {
                            &[(Look::SpeedupMaxSpeed, 1), (Look::SpeedupForce, 2)]
                        }
                        _ => &[],
                    };
                    // Every band looks at the layer and works out the tile columns of its
                    // pixels once; each pixel shown is drawn.
                    let (columns, rows) = ((shown.x1 - shown.x0) as u64, shown.y1 - shown.y0);
                    let bands_shown = ((shown.y1 - 1) / ROWS - shown.y0 / ROWS + 1) as u64;
                    let mut spend = |texture: &Option<Arc<Texture>>| {
                        let pixel = match texture {
                            Some(_) => TILE_PICTURE_PIXEL,
                            None => TILE_PIXEL,
                        };
                        let steps = bands
                            .saturating_add(columns.saturating_mul(bands_shown))
                            .saturating_add(
                                columns.saturating_mul(rows as u64).saturating_mul(pixel),
                            );
                        budget.spend(steps, String::new).map_err(located)
                    };
                    spend(&texture)?;
                    for &(_, place) in overlays {
                        spend(&textures.numbers.as_ref().map(|n| n[place].clone()))?;
                    }
                    let clip = shown;
                    ops.push(Op::Tiles {
                        layer,
                        look: Look::Tile,
                        zones,
                        texture,
                        color,
                        origin: (left, top),
                        units_per_pixel,
                        clip,
                        columns: TileColumns::default(),
                    });
                    for &(look, place) in overlays {
                        let texture = textures.numbers.as_ref().map(|n| n[place].clone());
                        ops.push(Op::Tiles {
                            layer,
                            look,
                            zones: None,
                            texture,
                            color: [1.0, 1.0, 1.0, physics_alpha],
                            origin: (left, top),
                            units_per_pixel,
                            clip,
                            columns: TileColumns::default(),
                        });
                    }
                }
            }
        }
    }
    if let Some(world) = world.filter(|_| !world_drawn) {
        ops.extend(world(&screen, budget)?);
    }
    Ok(ops)
}

/// Decodes the content of the layers `options` draw, in parallel, and finds the tiles of each
/// tile layer that hold anything (by layer index).
fn occupied_layers(map: &Map, options: &RenderOptions) -> Vec<Option<Occupied>> {
    (map.layers().par_iter().enumerate())
        .map(|(index, layer)| {
            if !drawn(map, options, index, layer) {
                return None;
            }
            layer.decode();
            occupied(layer)
        })
        .collect()
}

/// The tiles of a tile layer that hold anything, and its grid's size.
#[derive(Debug, Clone, Copy)]
struct Occupied {
    /// Columns `x0..x1` and rows `y0..y1`.
    tiles: Rect,
    size: (usize, usize),
}

/// The [`Occupied`] tiles of `layer`; `None` for a layer that is not a tile layer, that has
/// no grid, or whose tiles are all empty. A tile whose bytes are all 0 draws nothing in any
/// look: tile, tele, speedup, switch and tune tiles of id 0 and number 0.
fn occupied(layer: &Layer) -> Option<Occupied> {
    fn of<T: bytemuck::Pod>(grid: Option<&twcodec::map::Grid<T>>) -> Option<Occupied> {
        let grid = grid?;
        let (width, height) = (grid.width(), grid.height());
        let empty = |tile: &T| bytemuck::bytes_of(tile).iter().all(|&b| b == 0);
        let full = |row: &[T]| !row.iter().all(empty);
        if width == 0 || height == 0 {
            return None;
        }
        let rows = grid.tiles().chunks_exact(width);
        let y0 = rows.clone().position(full)?;
        let y1 = height - rows.clone().rev().position(full)?;
        // Each row is looked at only left of the columns found so far and right of them.
        let (mut x0, mut x1) = (width, 0);
        for row in rows.take(y1).skip(y0) {
            if let Some(x) = row[..x0].iter().position(|t| !empty(t)) {
                x0 = x;
            }
            if let Some(x) = row[x1..].iter().rposition(|t| !empty(t)) {
                x1 += x + 1;
            }
            if x0 == 0 && x1 == width {
                break;
            }
        }
        Some(Occupied {
            tiles: Rect { x0, y0, x1, y1 },
            size: (width, height),
        })
    }
    match layer.content() {
        LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => of(t.grid()),
        LayerContent::Tele(t) => of(t.grid()),
        LayerContent::Speedup(t) => of(t.grid()),
        LayerContent::Switch(t) => of(t.grid()),
        LayerContent::Tune(t) => of(t.grid()),
        // Quads, sounds, unknown layers, and kinds the codec adds later: no tiles.
        _ => None,
    }
}

/// What [`Op::run`] does in a band.
enum Action<'h> {
    /// Draw.
    Draw,
    /// Mark the pixels the step covers with opaque pixels, in this band's `hidden` (see
    /// [`raster::cover_tiles`]), as step number `.1`.
    Cover(&'h mut [u32], u32),
}

impl Op<'_> {
    fn run(&self, band: &mut Band<'_>, filtering: Filtering, action: Action<'_>) {
        match self {
            Op::Triangles { texture, triangles } => {
                if let Action::Draw = action {
                    for triangle in triangles {
                        triangle.draw(band, texture.as_deref(), filtering);
                    }
                }
            }
            Op::Tiles {
                layer,
                look,
                zones,
                texture,
                color,
                origin,
                units_per_pixel,
                clip,
                columns,
            } => {
                macro_rules! tiles {
                    ($tiles:expr, |$tile:ident| $look:expr) => {{
                        let Some(grid) = $tiles.grid() else { return };
                        let tiles = grid.tiles();
                        let draw = TileDraw {
                            width: grid.width(),
                            height: grid.height(),
                            look: |i: usize| match tiles.get(i) {
                                Some($tile) => $look,
                                None => TileLook::default(),
                            },
                            texture: texture.as_deref(),
                            color: *color,
                            units_per_pixel: *units_per_pixel,
                            origin: *origin,
                            clip: *clip,
                            filtering,
                            columns,
                        };
                        match action {
                            Action::Draw => raster::draw_tiles(band, &draw),
                            Action::Cover(hidden, step) => {
                                raster::cover_tiles(band, hidden, step, &draw)
                            }
                        }
                    }};
                }
                let plain = |index: u8, flags: u8| TileLook {
                    index,
                    flags,
                    angle: 0,
                };
                let number = |shown: bool, n: u8| plain(if shown { n } else { 0 }, 0);
                match (layer.content(), look) {
                    (
                        LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t),
                        Look::Tile,
                    ) => tiles!(t, |tile| plain(tile.id, tile.flags)),
                    (LayerContent::Tele(t), Look::Tile) => tiles!(t, |tile| plain(tile.id, 0)),
                    // Check-in teles (31, 63) have no number of their own.
                    (LayerContent::Tele(t), Look::TeleNumber) => tiles!(t, |tile| number(
                        !matches!(tile.id, 0 | 31 | 63),
                        tile.number
                    )),
                    // An arrow along the push, where the tile pushes.
                    (LayerContent::Speedup(t), Look::Tile) => tiles!(t, |tile| TileLook {
                        index: u8::from(speedup_shown(tile)),
                        flags: 0,
                        angle: tile.angle(),
                    }),
                    (LayerContent::Speedup(t), Look::SpeedupForce) => {
                        tiles!(t, |tile| number(speedup_shown(tile), tile.force))
                    }
                    (LayerContent::Speedup(t), Look::SpeedupMaxSpeed) => {
                        tiles!(t, |tile| number(speedup_shown(tile), tile.max_speed))
                    }
                    // Timed open switches show the cell of a plain door switch.
                    (LayerContent::Switch(t), Look::Tile) => tiles!(t, |tile| match tile.id {
                        22 => plain(8, tile.flags),
                        id => plain(id, tile.flags),
                    }),
                    // Switch tiles whose number or delay means nothing do not show it.
                    (LayerContent::Switch(t), Look::SwitchNumber) => tiles!(t, |tile| number(
                        !matches!(tile.id, 0 | 7 | 19 | 20 | 98 | 99),
                        tile.number
                    )),
                    (LayerContent::Switch(t), Look::SwitchDelay) => tiles!(t, |tile| number(
                        !matches!(tile.id, 0 | 12 | 13),
                        tile.delay
                    )),
                    // Every tile of a tune zone, whatever its id, in the zone's color.
                    (LayerContent::Tune(t), Look::Tile) => {
                        let zones = zones.as_deref().unwrap_or(&[0; 256]);
                        tiles!(t, |tile| plain(zones[usize::from(tile.number)], 0))
                    }
                    _ => {}
                }
            }
        }
    }
}
