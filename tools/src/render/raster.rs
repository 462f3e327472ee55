//! Drawing into a band of the picture: tile grids sampled pixel by pixel, and triangles with
//! interpolated colors and texture coordinates. Textures are filtered as the game's graphics
//! card filters them (straight texels, two mipmap levels mixed), times the color, and blended
//! onto premultiplied RGBA8 pixels "over": on an opaque picture exactly the game's
//! `SRC_ALPHA, ONE_MINUS_SRC_ALPHA` (docs/format-notes.md, "Drawing a map", "Sampling and
//! blending").

use super::texture::{
    cell_tap, lerp, pixel, texel, Alpha, Cell, Level, Lod, Px, Tap, Texel, Texture,
};
use super::Filtering;

/// Rows `top..top + height` of the picture, `width` pixels each, drawn by the steps of a
/// scene in order.
pub(crate) struct Band<'a> {
    pub top: usize,
    pub width: usize,
    pub pixels: &'a mut [Px],
    /// For each pixel, the number of the last step that covers it with opaque pixels (as
    /// [`cover_tiles`] finds them; 0 for none, or an empty slice for no pixel): a step before
    /// it draws nothing there, as what it draws would be covered whole.
    pub hidden: &'a [u32],
    /// The number of the step drawing now (from 1).
    pub step: u32,
}

impl Band<'_> {
    fn height(&self) -> usize {
        self.pixels.len() / self.width.max(1)
    }

    /// Row `py` of the picture (within the band): its pixels, and for each whether the step
    /// drawing now shows there.
    #[inline]
    fn row(&mut self, py: usize) -> (&mut [Px], Shown<'_>) {
        let start = (py - self.top) * self.width;
        let hidden = self.hidden.get(start..start + self.width).unwrap_or(&[]);
        (
            &mut self.pixels[start..][..self.width],
            Shown {
                hidden,
                step: self.step,
            },
        )
    }
}

/// Which pixels of a row a step shows in: those no later step covers.
#[derive(Clone, Copy)]
struct Shown<'a> {
    hidden: &'a [u32],
    step: u32,
}

impl Shown<'_> {
    #[inline(always)]
    fn at(self, x: usize) -> bool {
        self.hidden.get(x).is_none_or(|&h| h <= self.step)
    }

    /// The pixels `from..to` of the row: each one's number of the step that covers it, or
    /// `None` when none is.
    #[inline]
    fn run(&self, from: usize, to: usize) -> Option<&[u32]> {
        self.hidden.get(from..to)
    }
}

/// A pixel rectangle `x0..x1`, `y0..y1` of the picture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rect {
    pub x0: usize,
    pub y0: usize,
    pub x1: usize,
    pub y1: usize,
}

/// The length of `(x, y)`, in f64 so that no square overflows (not `hypot`: its symbol in
/// glibc 2.35 would keep the Python wheel from the manylinux_2_34 policy).
#[inline]
fn length(x: f32, y: f32) -> f32 {
    let (x, y) = (f64::from(x), f64::from(y));
    (x * x + y * y).sqrt() as f32
}

/// How a step's texels reach the picture: times its straight color (each channel 0..=1),
/// then premultiplied by the alpha that gives (a texture of [`Alpha::Straight`]: the game's
/// `SRC_ALPHA, ONE_MINUS_SRC_ALPHA` blending) or kept premultiplied (a texture of
/// [`Alpha::Premultiplied`]), and blended over the pixel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Paint {
    /// What each channel of a texel is multiplied by.
    mul: [f32; 4],
    straight: bool,
}

impl Paint {
    pub fn new(color: [f32; 4], alpha: Alpha) -> Paint {
        // Clamped into 0..=1; not a number is 0.
        let c = color.map(|c| if c >= 0.0 { c.min(1.0) } else { 0.0 });
        match alpha {
            Alpha::Straight => Paint {
                mul: c,
                straight: true,
            },
            Alpha::Premultiplied => Paint {
                mul: [c[0] * c[3], c[1] * c[3], c[2] * c[3], c[3]],
                straight: false,
            },
        }
    }

    /// Whether its alpha is 0, so that it draws nothing.
    fn invisible(&self) -> bool {
        self.mul[3] <= 0.0
    }

    /// Whether its alpha is 1, so that an opaque texel stays opaque.
    fn keeps_opaque(&self) -> bool {
        self.mul[3] >= 1.0
    }

    /// `texel` colored and premultiplied: what the blending adds to the picture.
    #[inline(always)]
    fn apply(&self, texel: Texel) -> Texel {
        let m = self.mul;
        let s = [
            texel[0] * m[0],
            texel[1] * m[1],
            texel[2] * m[2],
            texel[3] * m[3],
        ];
        match self.straight {
            true => {
                let k = s[3] * (1.0 / 255.0);
                [s[0] * k, s[1] * k, s[2] * k, s[3]]
            }
            false => s,
        }
    }

    /// `texel` (white for `None`) painted over each of `pixels` that step `step` shows in (by
    /// `hidden`, theirs; all of them without it), as [`Paint::over`] paints each.
    #[inline]
    fn fill(&self, pixels: &mut [Px], hidden: Option<&[u32]>, step: u32, texel: Option<Texel>) {
        let src = self.apply(texel.unwrap_or([255.0; 4]));
        if src[3] < 0.5 {
            return;
        }
        let keep = 1.0 - src[3] * (1.0 / 255.0);
        let paint = |dst: &mut Px| *dst = blend(src, keep, *dst);
        match (keep == 0.0, hidden) {
            // Opaque: the same pixel everywhere.
            (true, None) => pixels.fill(pixel(src)),
            (true, Some(hidden)) => {
                let px = pixel(src);
                for (dst, &h) in pixels.iter_mut().zip(hidden) {
                    if h <= step {
                        *dst = px;
                    }
                }
            }
            (false, None) => pixels.iter_mut().for_each(paint),
            (false, Some(hidden)) => {
                for (dst, &h) in pixels.iter_mut().zip(hidden) {
                    if h <= step {
                        paint(dst);
                    }
                }
            }
        }
    }

    /// `texel` painted over `dst` (premultiplied): `src + dst * (1 - src alpha)`, rounded.
    /// Nothing changes where the painted alpha rounds to 0; an opaque one replaces `dst`.
    #[inline(always)]
    fn over(&self, dst: &mut Px, sample: Texel) {
        let src = self.apply(sample);
        if src[3] < 0.5 {
            return;
        }
        let keep = 1.0 - src[3] * (1.0 / 255.0);
        *dst = blend(src, keep, *dst);
    }
}

/// `src + dst * keep`, rounded.
#[inline(always)]
fn blend(src: Texel, keep: f32, dst: Px) -> Px {
    let d = texel(dst);
    let out = |c: usize| src[c] + d[c] * keep;
    pixel([out(0), out(1), out(2), out(3)])
}

/// How a tile's picture is found: the cell of a 16 x 16 tileset, turned by the tile's flags.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TileLook {
    /// Index into the tileset, 0 = not drawn.
    pub index: u8,
    /// DDNet tile flags: x flip 1, y flip 2, rotate 8.
    pub flags: u8,
    /// An extra rotation in degrees, clockwise (speedup arrows).
    pub angle: i16,
}

/// One tile layer, ready to draw.
pub(crate) struct TileDraw<'a, F> {
    /// Grid size in tiles.
    pub width: usize,
    pub height: usize,
    /// The look of the tile at index `y * width + x`.
    pub look: F,
    /// The tileset; `None` draws each tile as a square of `color`.
    pub texture: Option<&'a Texture>,
    /// Layer color times its envelope.
    pub color: [f32; 4],
    /// World units per picture pixel, and the world position of the picture's left and top
    /// edges (the group's mapping).
    pub units_per_pixel: (f64, f64),
    pub origin: (f64, f64),
    /// Pixels drawn, at most.
    pub clip: Rect,
    pub filtering: Filtering,
    /// Where each column of `clip` samples, worked out by the first band drawn.
    pub columns: &'a TileColumns,
}

/// The columns of a tile layer's pixels: for each, the tile column, the position inside the
/// tile (0..1), and where samples at that position fall in the cells of the levels sampled;
/// and the runs of neighbouring pixels in the same tile column. The same for every band, so
/// made once per layer.
#[derive(Default)]
pub(crate) struct TileColumns(std::sync::OnceLock<Columns>);

pub(crate) struct Columns {
    pixels: Vec<(usize, f32, Taps)>,
    /// Tile column, and the pixels `start..end` (counted from the clip's left edge) in it.
    runs: Vec<(usize, usize, usize)>,
    /// Every run: `[(0, runs.len())]`.
    all: [(u32, u32); 1],
    /// The tile rows the picture shows from the first (`first_row`), each with the runs
    /// whose tile is drawn (index not 0) in that row, as ranges of `runs`: found by the first
    /// band to look at the row, for both passes of every band. Empty where the picture shows
    /// far more tile rows than it has pixel rows (most are never looked at).
    shown: Vec<std::sync::OnceLock<Ranges>>,
    first_row: usize,
}

/// Ranges `start..end` of a [`Columns`]'s runs.
type Ranges = Box<[(u32, u32)]>;

impl Columns {
    /// Ranges of [`Columns::runs`] holding every run whose tile in tile row `row` is drawn
    /// (index not 0), given the layer's `look` of a tile index and its `width` in tiles.
    fn shown(&self, row: usize, width: usize, look: impl Fn(usize) -> TileLook) -> &[(u32, u32)] {
        let Some(shown) = row
            .checked_sub(self.first_row)
            .and_then(|i| self.shown.get(i))
        else {
            return &self.all;
        };
        shown.get_or_init(|| {
            let mut ranges: Vec<(u32, u32)> = Vec::new();
            for (i, &(column, _, _)) in self.runs.iter().enumerate() {
                if look(row * width + column).index == 0 {
                    continue;
                }
                // Runs are fewer than the picture's columns (at most u32::MAX).
                let i = i as u32;
                match ranges.last_mut() {
                    Some(range) if range.1 == i => range.1 = i + 1,
                    _ => ranges.push((i, i + 1)),
                }
            }
            ranges.into_boxed_slice()
        })
    }

    /// The runs of `ranges` (from [`Columns::shown`]).
    fn runs_in<'c>(
        &'c self,
        ranges: &'c [(u32, u32)],
    ) -> impl Iterator<Item = &'c (usize, usize, usize)> + 'c {
        ranges
            .iter()
            .flat_map(|&(a, b)| self.runs.get(a as usize..b as usize).unwrap_or(&[]))
    }
}

/// The pixels of `clip` that a tile layer may draw, given the columns `x0..x1` and rows
/// `y0..y1` of its `width` x `height` grid that hold anything (`occupied`): the pixels whose
/// tile, as [`draw_tiles`] finds it, is among them, and a pixel more each side. A range that
/// reaches an edge of the grid reaches the picture's edge, as edge tiles repeat. `None` when
/// no pixel is left.
pub(crate) fn tile_pixels(
    occupied: Rect,
    (width, height): (usize, usize),
    origin: (f64, f64),
    units_per_pixel: (f64, f64),
    clip: Rect,
) -> Option<Rect> {
    // One axis: tiles `first..end` of `n`, the world at the picture's edge, units per pixel,
    // and the clip's pixels.
    let axis =
        |first: usize, end: usize, n: usize, origin: f64, unit: f64, lo: usize, hi: usize| {
            let (mut from, mut to) = (lo as f64, hi as f64);
            if unit > 0.0 && unit.is_finite() && origin.is_finite() {
                // Pixel `p` shows the tile at world `origin + (p + 0.5) * unit`.
                let pixel = |tile: usize| (tile as f64 * 32.0 - origin) / unit - 0.5;
                if first > 0 {
                    from = from.max(pixel(first).floor() - 1.0);
                }
                if end < n {
                    to = to.min(pixel(end).ceil() + 1.0);
                }
            }
            let fit = |v: f64| v.clamp(lo as f64, hi as f64) as usize;
            (fit(from), fit(to))
        };
    let (x0, x1) = axis(
        occupied.x0,
        occupied.x1,
        width,
        origin.0,
        units_per_pixel.0,
        clip.x0,
        clip.x1,
    );
    let (y0, y1) = axis(
        occupied.y0,
        occupied.y1,
        height,
        origin.1,
        units_per_pixel.1,
        clip.y0,
        clip.y1,
    );
    (x0 < x1 && y0 < y1).then_some(Rect { x0, y0, x1, y1 })
}

/// The tile of `n` (along one axis) that pixel `p` shows, for a picture whose edge is at world
/// position `origin` with `unit` world units a pixel: the tile under the pixel's centre, the
/// edge tiles repeated outside the layer; and where in that tile the centre is (0..1).
#[inline]
fn tile_at(origin: f64, unit: f64, p: usize, n: usize) -> (usize, f32) {
    let world = origin + (p as f64 + 0.5) * unit;
    let tile = world / 32.0;
    let index = (tile.floor().max(0.0) as usize).min(n - 1);
    (index, (tile - tile.floor()) as f32)
}

/// What drawing a tile layer takes, the same in every band.
struct TilePlan<'d> {
    paint: Paint,
    sampler: Option<CellSampler<'d>>,
    /// Columns `x0..x1` of the picture.
    x0: usize,
    x1: usize,
    columns: &'d Columns,
}

impl<F: Fn(usize) -> TileLook> TileDraw<'_, F> {
    /// The plan of drawing the layer into pictures `width` pixels wide; `None` when it draws
    /// nothing.
    fn plan(&self, width: usize) -> Option<TilePlan<'_>> {
        if self.width == 0 || self.height == 0 {
            return None;
        }
        let paint = Paint::new(
            self.color,
            self.texture.map_or(Alpha::Straight, |t| t.alpha),
        );
        if paint.invisible() {
            return None;
        }
        let (ux, uy) = self.units_per_pixel;
        // The game gives each cell a mipmap chain of its own (a 2D array texture), so cells
        // never blend into each other, and a cell's last level is one texel of its mean. A
        // tile of `cw` texels covers 32 world units: a pixel covers `cw * ux / 32` texels of
        // level 0 across.
        let sampler = self.texture.and_then(|texture| {
            let base = texture.levels.first()?;
            let (cw, ch) = texture.cell(base);
            let lod = match self.filtering {
                Filtering::Game => {
                    let rho = (cw as f64 * ux).max(ch as f64 * uy) / 32.0;
                    texture.lod(rho as f32)
                }
                Filtering::Level0 => Lod::BASE,
                Filtering::Issue17 => {
                    let level =
                        texture.level_for_cells((base.width as f64 / 16.0 * ux / 32.0) as f32);
                    Lod::single(level)
                }
            };
            let near = texture.levels.get(lod.near)?;
            let far = texture.levels.get(lod.far)?;
            Some(CellSampler {
                texture,
                near: (near, texture.cell(near)),
                far: (far, texture.cell(far)),
                lod: (lod.near, lod.far),
                weight: lod.fraction(),
            })
        });
        let (x0, x1) = (self.clip.x0, self.clip.x1.min(width));
        if x0 >= x1 {
            return None;
        }
        // The columns are the same for every band (x0 and x1 are the clip's and the
        // picture's).
        let columns = self.columns.0.get_or_init(|| {
            let pixels: Vec<_> = (x0..x1)
                .map(|px| {
                    let (column, s) = tile_at(self.origin.0, ux, px, self.width);
                    let taps = sampler.as_ref().map_or_else(Taps::default, |c| c.taps(s));
                    (column, s, taps)
                })
                .collect();
            let mut runs: Vec<(usize, usize, usize)> = Vec::new();
            for (i, &(column, _, _)) in pixels.iter().enumerate() {
                match runs.last_mut() {
                    Some(run) if run.0 == column => run.2 = i + 1,
                    _ => runs.push((column, i, i + 1)),
                }
            }
            // The tile rows of the clip's first and last pixel rows, and all between.
            let row_of = |py: usize| tile_at(self.origin.1, uy, py, self.height).0;
            let (first, last) = (row_of(self.clip.y0), row_of(self.clip.y1.saturating_sub(1)));
            let (first_row, last_row) = (first.min(last), first.max(last));
            let rows = last_row - first_row + 1;
            let shown = match rows <= 2 * self.clip.y1.saturating_sub(self.clip.y0) + 2 {
                true => (0..rows).map(|_| std::sync::OnceLock::new()).collect(),
                false => Vec::new(),
            };
            Columns {
                all: [(0, runs.len() as u32)],
                pixels,
                runs,
                shown,
                first_row,
            }
        });
        Some(TilePlan {
            paint,
            sampler,
            x0,
            x1,
            columns,
        })
    }

    /// The rows of `band` the layer draws.
    fn rows(&self, band: &Band<'_>) -> std::ops::Range<usize> {
        self.clip.y0.max(band.top)..self.clip.y1.min(band.top + band.height())
    }
}

/// Marks in `hidden` (a band's, see [`Band::hidden`]) the pixels that the tile layer `draw`,
/// step number `step`, covers with opaque pixels and no later step covers: those of tiles
/// whose cell is opaque in every level, drawn at full alpha and not turned by an angle.
/// Called for the steps of a scene from the last to the first, before any is drawn.
pub(crate) fn cover_tiles<F: Fn(usize) -> TileLook>(
    band: &Band<'_>,
    hidden: &mut [u32],
    step: u32,
    draw: &TileDraw<'_, F>,
) {
    let Some(plan) = draw.plan(band.width) else {
        return;
    };
    let opaque = |look: TileLook| match draw.texture {
        _ if look.index == 0 || look.angle != 0 => false,
        Some(texture) => {
            plan.sampler.is_some()
                && match texture.cell_kind(look.index) {
                    Cell::Opaque => true,
                    Cell::Uniform(texel) => texel[3] == 255,
                    Cell::Mixed | Cell::Clear => false,
                }
        }
        None => true,
    };
    if !plan.paint.keeps_opaque() {
        return;
    }
    for py in draw.rows(band) {
        let (row, _) = tile_at(draw.origin.1, draw.units_per_pixel.1, py, draw.height);
        let start = (py - band.top) * band.width + plan.x0;
        let Some(line) = hidden.get_mut(start..start + (plan.x1 - plan.x0)) else {
            return;
        };
        let shown = plan.columns.shown(row, draw.width, &draw.look);
        for &(column, from, to) in plan.columns.runs_in(shown) {
            if opaque((draw.look)(row * draw.width + column)) {
                for h in &mut line[from..to] {
                    if *h == 0 {
                        *h = step;
                    }
                }
            }
        }
    }
}

/// Draws a tile layer into `band`: for each pixel, the tile under its centre (edge tiles
/// repeated outside the layer, as the game does) and the texel of that tile's cell.
pub(crate) fn draw_tiles<F: Fn(usize) -> TileLook>(band: &mut Band<'_>, draw: &TileDraw<'_, F>) {
    let Some(plan) = draw.plan(band.width) else {
        return;
    };
    let TilePlan {
        paint,
        ref sampler,
        x0,
        x1,
        columns,
    } = plan;
    for py in draw.rows(band) {
        let (row, t) = tile_at(draw.origin.1, draw.units_per_pixel.1, py, draw.height);
        let row_taps = sampler.as_ref().map_or_else(Taps::default, |c| c.taps(t));
        let (line, shown) = band.row(py);
        let line = &mut line[x0..x1];
        let row_start = row * draw.width;
        let drawn = columns.shown(row, draw.width, &draw.look);
        for &(column, from, to) in columns.runs_in(drawn) {
            let look = (draw.look)(row_start + column);
            if look.index == 0 {
                continue;
            }
            // A cell of one color is that color wherever it is sampled; one that is see-through
            // all over draws nothing.
            let uniform = match (sampler, draw.texture.map(|t| t.cell_kind(look.index))) {
                (Some(_), Some(Cell::Clear)) => continue,
                (Some(_), Some(Cell::Uniform(color))) => Some(texel(color)),
                (Some(_), _) => None,
                (None, _) => Some([255.0; 4]),
            };
            let Some(sampler) = sampler.as_ref().filter(|_| uniform.is_none()) else {
                // One color for the whole run.
                let hidden = shown.run(x0 + from, x0 + to);
                paint.fill(&mut line[from..to], hidden, shown.step, uniform);
                continue;
            };
            if look.angle == 0 && sampler.clear_run(look, &row_taps) {
                continue;
            }
            let pixels = (from..to).zip(columns.pixels[from..to].iter().zip(&mut line[from..to]));
            let cell = sampler.cell(look);
            for (i, (&(_, s, ref column_taps), dst)) in pixels {
                if !shown.at(x0 + i) {
                    continue;
                }
                let texel = match look.angle {
                    0 => sampler.sample_at(&cell, column_taps, &row_taps),
                    _ => sampler.sample(look, s, t),
                };
                paint.over(dst, texel);
            }
        }
    }
}

/// Where samples at one position across a tile (0..1) fall in the cells of the two levels a
/// tile layer samples: for each level, across the cell's width at the position and at its
/// mirror image (1 - it), then the same across its height. Worked out once per column and
/// row, so that a pixel only picks the ones its tile's flags ask for.
#[derive(Default)]
pub(crate) struct Taps([[Tap; 4]; 2]);

/// A tile's cell in the two levels a layer samples: the index of its first texel in each, and
/// the flags that pick its taps.
struct CellAt {
    origin: [usize; 2],
    flip_x: usize,
    flip_y: usize,
    rotate: bool,
}

/// The two levels of a tileset a tile layer samples, each with its cells' size, and the weight
/// of the second (0..=256).
struct CellSampler<'t> {
    texture: &'t Texture,
    near: (&'t Level, (usize, usize)),
    far: (&'t Level, (usize, usize)),
    /// The numbers of the two levels.
    lod: (usize, usize),
    weight: f32,
}

impl CellSampler<'_> {
    /// Whether every pixel of a run of `look`'s tile in a row of taps `row` samples see-through
    /// texels only: its two rows of texels (its two columns, for a tile turned by its flags)
    /// are see-through all along in each level sampled, whatever the columns.
    #[inline]
    fn clear_run(&self, look: TileLook, row: &Taps) -> bool {
        let flip_x = usize::from(look.flags & 1 != 0);
        let flip_y = usize::from(look.flags & 2 != 0);
        let rotate = look.flags & 8 != 0;
        let clear = |i: usize, level: usize| {
            // The taps `sample_at` takes from the row's (rotated: the columns').
            let (tap, columns) = match rotate {
                false => (row.0[i][2 + flip_y], false),
                true => (row.0[i][flip_x], true),
            };
            (self.texture).clear_lines(level, look.index, columns, (tap.0, tap.1))
        };
        clear(0, self.lod.0) && (self.weight == 0.0 || clear(1, self.lod.1))
    }

    /// The [`Taps`] of position `p` across a tile.
    fn taps(&self, p: f32) -> Taps {
        let level = |(_, (w, h)): (&Level, (usize, usize))| {
            [
                cell_tap(p, w),
                cell_tap(1.0 - p, w),
                cell_tap(p, h),
                cell_tap(1.0 - p, h),
            ]
        };
        let near = level(self.near);
        let far = match self.weight {
            0.0 => near,
            _ => level(self.far),
        };
        Taps([near, far])
    }

    /// Where `look`'s cell is in the two levels, and how its taps are picked: the same for
    /// the run of pixels of one tile.
    #[inline]
    fn cell(&self, look: TileLook) -> CellAt {
        let (cx, cy) = (usize::from(look.index) % 16, usize::from(look.index) / 16);
        let origin = |(level, (cw, ch)): (&Level, (usize, usize))| cy * ch * level.width + cx * cw;
        CellAt {
            origin: [origin(self.near), origin(self.far)],
            flip_x: usize::from(look.flags & 1 != 0),
            flip_y: usize::from(look.flags & 2 != 0),
            rotate: look.flags & 8 != 0,
        }
    }

    /// [`CellSampler::sample`] of a tile not turned by an angle, from the taps of its pixel's
    /// column and row: as `sample` turns and mirrors the position, the column's and row's
    /// taps swap and mirror.
    #[inline(always)]
    fn sample_at(&self, cell: &CellAt, column: &Taps, row: &Taps) -> Texel {
        // docs/format-notes.md, "Drawing a map": rotate takes (s, t) to (t, 1 - s), then the
        // flips mirror.
        let taps = |i: usize| match cell.rotate {
            false => (column.0[i][cell.flip_x], row.0[i][2 + cell.flip_y]),
            true => (row.0[i][cell.flip_x], column.0[i][3 - cell.flip_y]),
        };
        let (u, v) = taps(0);
        let near = self.near.0.sample_from(cell.origin[0], u, v);
        match self.weight {
            0.0 => near,
            weight => {
                let (u, v) = taps(1);
                lerp(near, self.far.0.sample_from(cell.origin[1], u, v), weight)
            }
        }
    }

    /// The texel of `look`'s cell at screen position `(s, t)` inside the tile.
    #[inline]
    fn sample(&self, look: TileLook, s: f32, t: f32) -> Texel {
        let (mut s, mut t) = (s, t);
        if look.angle != 0 {
            // Turn the sampling point against the clockwise turn of the tile, around its
            // centre.
            let (sin, cos) = (-f32::from(look.angle)).to_radians().sin_cos();
            let (ds, dt) = (s - 0.5, t - 0.5);
            s = (0.5 + ds * cos - dt * sin).clamp(0.0, 0.999);
            t = (0.5 + ds * sin + dt * cos).clamp(0.0, 0.999);
        }
        // docs/format-notes.md, "Drawing a map": rotate, then the flips, in texture space.
        let (s, t) = if look.flags & 8 != 0 {
            (t, 1.0 - s)
        } else {
            (s, t)
        };
        let u = if look.flags & 1 != 0 { 1.0 - s } else { s };
        let v = if look.flags & 2 != 0 { 1.0 - t } else { t };
        let (cx, cy) = (usize::from(look.index) % 16, usize::from(look.index) / 16);
        let at = |(level, cell): (&Level, (usize, usize))| {
            level.bilinear_in_cell(u, v, (cx * cell.0, cy * cell.1), cell)
        };
        match self.weight {
            0.0 => at(self.near),
            weight => lerp(at(self.near), at(self.far), weight),
        }
    }
}

/// A corner of a triangle: picture position, straight color 0..=1, texture position 0..=1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Vertex {
    pub x: f32,
    pub y: f32,
    pub color: [f32; 4],
    pub uv: [f32; 2],
}

/// A triangle set up to be drawn within a clip rectangle: the pixels it may cover, and its
/// edges' lines, to find where each row enters and leaves it.
struct Setup {
    /// Its bounding box, clipped.
    rect: Rect,
    edges: [Edge; 3],
}

/// An edge of a triangle as [`Triangle::draw`] tests it: `c + gx * x + gy * y` is the edge's
/// function at a pixel centre `(x, y)`, times the sign of the triangle's area, so at least 0
/// inside. `margin` is more than the rounding of the test in f32 can be off anywhere in the
/// triangle's rectangle: a few parts in 10^7 of the products it takes.
#[derive(Clone, Copy)]
struct Edge {
    c: f64,
    gx: f64,
    gy: f64,
    margin: f64,
}

impl Setup {
    /// The setup of the triangle of corners `a, b, c`, of twice `area` (signed); `None` when
    /// it covers no pixel of `clip` (outside it, no area, not finite).
    fn new(clip: Rect, [a, b, c]: &[Vertex; 3], area: f32) -> Option<Setup> {
        if area.abs() < 1e-6 || !area.is_finite() {
            return None;
        }
        let min_x = a.x.min(b.x).min(c.x).floor().max(clip.x0 as f32);
        let max_x = a.x.max(b.x).max(c.x).ceil().min(clip.x1 as f32);
        let min_y = a.y.min(b.y).min(c.y).floor().max(clip.y0 as f32);
        let max_y = a.y.max(b.y).max(c.y).ceil().min(clip.y1 as f32);
        if !(min_x < max_x && min_y < max_y) {
            return None;
        }
        // Each within 0..=the clip's far edge now: the casts are exact.
        let rect = Rect {
            x0: min_x as usize,
            y0: min_y as usize,
            x1: max_x as usize,
            y1: max_y as usize,
        };
        // The first and last pixel centres, where the products of the tests are largest.
        let xs = [rect.x0 as f64 + 0.5, rect.x1 as f64 - 0.5];
        let ys = [rect.y0 as f64 + 0.5, rect.y1 as f64 - 0.5];
        let sign = f64::from(area.signum());
        let edge = |p: Vertex, q: Vertex| {
            let (px, py, qx, qy) = (
                f64::from(p.x),
                f64::from(p.y),
                f64::from(q.x),
                f64::from(q.y),
            );
            // (px - x) * (qy - y) - (qx - x) * (py - y), multiplied out.
            let c = sign * (px * qy - qx * py);
            let size =
                |x: f64, y: f64| (px - x).abs() * (qy - y).abs() + (qx - x).abs() * (py - y).abs();
            let largest = xs
                .iter()
                .flat_map(|&x| ys.iter().map(move |&y| size(x, y)))
                .fold(0.0, f64::max);
            Edge {
                c,
                gx: sign * (py - qy),
                gy: sign * (qx - px),
                margin: 1e-6 * largest + 1e-12 * c.abs(),
            }
        };
        Some(Setup {
            rect,
            edges: [edge(*b, *c), edge(*c, *a), edge(*a, *b)],
        })
    }

    /// The columns `x0..x1` of row `py` whose pixels the edge tests may accept: where each
    /// edge's line, moved out by its margin, crosses the row, and a pixel more each side. The
    /// tests still decide every pixel; this only skips pixels they reject, so that a triangle
    /// costs the pixels it covers and not its bounding box (a needle across the picture, a
    /// huge quad's corner far outside it).
    fn span(&self, py: usize) -> (usize, usize) {
        let rect = self.rect;
        let y = py as f64 + 0.5;
        let (mut lo, mut hi) = (rect.x0 as f64 + 0.5, rect.x1 as f64 - 0.5);
        for edge in &self.edges {
            // The edge's function along the row is `at_zero + gx * x`, and at least
            // `-margin` where a test may accept.
            let at_zero = edge.c + edge.gy * y;
            if edge.gx == 0.0 {
                if at_zero < -edge.margin {
                    return (rect.x0, rect.x0);
                }
                continue;
            }
            let cross = (-edge.margin - at_zero) / edge.gx;
            if edge.gx > 0.0 {
                lo = lo.max(cross);
            } else {
                hi = hi.min(cross);
            }
        }
        if lo.is_nan() || hi.is_nan() || lo > hi {
            return (rect.x0, rect.x0);
        }
        // Pixel `x` has its centre at `x + 0.5`; clamped into `rect`, the casts are exact.
        let fit = |v: f64| v.clamp(rect.x0 as f64, rect.x1 as f64) as usize;
        let (x0, x1) = (fit((lo - 0.5).floor() - 1.0), fit((hi - 0.5).floor() + 2.0));
        (x0, x1.max(x0))
    }
}

/// A triangle ready to draw within a clip rectangle: set up once, drawn band by band.
pub(crate) struct Triangle {
    corners: [Vertex; 3],
    /// Twice its area, signed.
    area: f32,
    setup: Setup,
    tests: Tests,
}

impl Triangle {
    /// The triangle of `corners` within `clip`; `None` when it covers no pixel of it (outside
    /// it, no area, not finite), and so would draw nothing.
    pub fn new(clip: Rect, corners: [Vertex; 3]) -> Option<Triangle> {
        let [a, b, c] = corners;
        let area = (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y);
        let setup = Setup::new(clip, &corners, area)?;
        Some(Triangle {
            corners,
            area,
            setup,
            tests: Tests::new(&corners, area),
        })
    }

    /// The work of drawing it, as [`Triangle::draw`] does it over all bands: for each row it
    /// spans, one step and the pixels of the row that it tests.
    pub fn work(&self) -> u64 {
        let rect = self.setup.rect;
        let mut work = 0u64;
        for py in rect.y0..rect.y1 {
            let (x0, x1) = self.setup.span(py);
            work += 1 + (x1 - x0) as u64;
        }
        work
    }
}

/// Which pixels a triangle draws: those whose centres are inside, or on an edge it owns.
struct Tests {
    /// 1 / twice the area.
    inv: f32,
    /// Whether the edges opposite corners a, b and c are the triangle's own.
    owned: [bool; 3],
}

impl Tests {
    fn new(&[a, b, c]: &[Vertex; 3], area: f32) -> Tests {
        // A pixel centre on an edge belongs to the triangle on the edge's right, or below it
        // when it is level, so that a quad's two triangles draw their shared diagonal once (a
        // graphics card's fill rule), not twice over (which doubles a see-through quad's alpha
        // there).
        let owns = |p: Vertex, q: Vertex, r: Vertex| {
            let (mut nx, mut ny) = (p.y - q.y, q.x - p.x);
            if nx * (r.x - p.x) + ny * (r.y - p.y) < 0.0 {
                (nx, ny) = (-nx, -ny);
            }
            nx > 0.0 || (nx == 0.0 && ny > 0.0)
        };
        Tests {
            inv: 1.0 / area,
            owned: [owns(b, c, a), owns(c, a, b), owns(a, b, c)],
        }
    }

    /// The weights of corners a, b and c at the pixel centre `(x, y)`, when the triangle
    /// draws that pixel. Edge functions: a pixel centre is inside when all three have the
    /// sign of the area.
    #[inline]
    fn weights(&self, &[a, b, c]: &[Vertex; 3], x: f32, y: f32) -> Option<[f32; 3]> {
        let inv = self.inv;
        let w0 = ((b.x - x) * (c.y - y) - (c.x - x) * (b.y - y)) * inv;
        let w1 = ((c.x - x) * (a.y - y) - (a.x - x) * (c.y - y)) * inv;
        // Each edge's own function (not 1 - w0 - w1), so that a shared edge gives exactly 0
        // in both triangles.
        let w2 = ((a.x - x) * (b.y - y) - (b.x - x) * (a.y - y)) * inv;
        if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
            return None;
        }
        let owned = self.owned;
        if (w0 == 0.0 && !owned[0]) || (w1 == 0.0 && !owned[1]) || (w2 == 0.0 && !owned[2]) {
            return None;
        }
        Some([w0, w1, w2])
    }
}

impl Triangle {
    /// Draws the triangle's rows in `band`: colors and texture positions interpolated
    /// linearly, the texture repeated and sampled as `filtering` says (the game: two mipmap
    /// levels mixed by the triangle's texels per pixel, which an affine mapping keeps the same
    /// over the whole triangle).
    pub fn draw(&self, band: &mut Band<'_>, texture: Option<&Texture>, filtering: Filtering) {
        let setup = &self.setup;
        let rows = setup.rect.y0.max(band.top)..setup.rect.y1.min(band.top + band.height());
        if rows.is_empty() {
            return;
        }
        let (triangle, area, tests) = (&self.corners, self.area, &self.tests);
        let [a, b, c] = *triangle;
        let alpha = texture.map_or(Alpha::Straight, |t| t.alpha);
        let sampler = texture.and_then(|texture| {
            let base = texture.levels.first()?;
            let (w, h) = (base.width as f32, base.height as f32);
            let lod = match filtering {
                Filtering::Game => {
                    // The texel position's derivatives along x and y (the game's graphics card
                    // takes them per 2 x 2 pixels; here they are the same everywhere), and
                    // the longer of the two as the footprint.
                    let (dx1, dy1, dx2, dy2) = (b.x - a.x, b.y - a.y, c.x - a.x, c.y - a.y);
                    let du1 = (b.uv[0] - a.uv[0]) * w;
                    let dv1 = (b.uv[1] - a.uv[1]) * h;
                    let du2 = (c.uv[0] - a.uv[0]) * w;
                    let dv2 = (c.uv[1] - a.uv[1]) * h;
                    let dudx = (du1 * dy2 - du2 * dy1) / area;
                    let dvdx = (dv1 * dy2 - dv2 * dy1) / area;
                    let dudy = (du2 * dx1 - du1 * dx2) / area;
                    let dvdy = (dv2 * dx1 - dv1 * dx2) / area;
                    texture.lod(length(dudx, dvdx).max(length(dudy, dvdy)))
                }
                Filtering::Level0 => Lod::BASE,
                Filtering::Issue17 => {
                    let uv_area = (b.uv[0] - a.uv[0]) * (c.uv[1] - a.uv[1])
                        - (c.uv[0] - a.uv[0]) * (b.uv[1] - a.uv[1]);
                    let level = texture.level_for((uv_area.abs() * w * h / area.abs()).sqrt());
                    Lod::single(level)
                }
            };
            let near = texture.levels.get(lod.near)?;
            let far = texture.levels.get(lod.far)?;
            Some((near, far, lod.fraction(), (texture, lod.near, lod.far)))
        });
        // One color for the whole triangle (as most quads' corners have): not mixed per pixel.
        let uniform =
            (a.color == b.color && b.color == c.color).then(|| Paint::new(a.color, alpha));
        let planes = Planes::new(triangle);
        for py in rows {
            let y = py as f32 + 0.5;
            let (x0, x1) = setup.span(py);
            // The pixels the tests accept are one run (the triangle is convex): only its ends
            // are looked for.
            let inside = |px: usize| tests.weights(triangle, px as f32 + 0.5, y).is_some();
            let Some(first) = (x0..x1).find(|&px| inside(px)) else {
                continue;
            };
            let end = (first..x1)
                .rfind(|&px| inside(px))
                .map_or(first, |px| px + 1);
            let (line, shown) = band.row(py);
            let (x, y64) = (first as f64 + 0.5, f64::from(y));
            // Texture positions along the run, stepped from its first pixel, in each level.
            let walks = sampler.and_then(|(near, far, weight, _)| {
                let walk = |level: &Level| -> Option<[Walk; 2]> {
                    let (u, v) = (planes.at(&planes.u, x, y64), planes.at(&planes.v, x, y64));
                    let (w, h) = (level.width as f64, level.height as f64);
                    let count = end - first;
                    Some([
                        Walk::new(u * w, planes.u.0 * w, level.width, count)?,
                        Walk::new(v * h, planes.v.0 * h, level.height, count)?,
                    ])
                };
                Some((
                    walk(near)?,
                    (weight != 0.0).then(|| walk(far)).flatten(),
                    weight,
                ))
            });
            // The color along the run, where the corners' differ.
            let colors = planes.color.map(|plane| {
                let start = planes.at(&plane, x, y64) as f32;
                (start, plane.0 as f32)
            });
            // One color along the whole run: the triangle's, or the row's where the color
            // only changes from row to row (a sky's gradient).
            let row_paint = uniform.or_else(|| {
                (colors.iter().all(|&(_, step)| step == 0.0))
                    .then(|| Paint::new(colors.map(|(start, _)| start), alpha))
            });
            if let (None, Some(paint)) = (sampler, row_paint) {
                paint.fill(
                    &mut line[first..end],
                    shown.run(first, end),
                    shown.step,
                    None,
                );
                continue;
            }
            for (k, (px, dst)) in (first..end).zip(&mut line[first..end]).enumerate() {
                if !shown.at(px) {
                    continue;
                }
                let paint = match row_paint {
                    Some(paint) => paint,
                    None => {
                        let at = |(start, step): (f32, f32)| start + step * k as f32;
                        Paint::new(colors.map(at), alpha)
                    }
                };
                let texel = match (sampler, &walks) {
                    (
                        Some((near, far, weight, (texture, i, j))),
                        Some((near_walk, far_walk, _)),
                    ) => {
                        // Texels all see-through (a picture's clear parts) draw nothing.
                        let [u, v] = near_walk;
                        let (u, v) = (u.tap(k), v.tap(k));
                        let clear = texture.clear_texels(i, u, v);
                        match far_walk {
                            Some([fu, fv]) => {
                                let (fu, fv) = (fu.tap(k), fv.tap(k));
                                if clear && texture.clear_texels(j, fu, fv) {
                                    continue;
                                }
                                lerp(near.sample(u, v), far.sample(fu, fv), weight)
                            }
                            None if clear => continue,
                            None => near.sample(u, v),
                        }
                    }
                    // Texture positions too far out for the walks: each pixel's own.
                    (Some((near, far, weight, _)), None) => {
                        let x = px as f32 + 0.5;
                        let Some([w0, w1, w2]) = tests.weights(triangle, x, y) else {
                            continue;
                        };
                        let u = a.uv[0] * w0 + b.uv[0] * w1 + c.uv[0] * w2;
                        let v = a.uv[1] * w0 + b.uv[1] * w1 + c.uv[1] * w2;
                        let at = |level: &Level| {
                            level.bilinear(u * level.width as f32, v * level.height as f32, true)
                        };
                        match weight {
                            0.0 => at(near),
                            weight => lerp(at(near), at(far), weight),
                        }
                    }
                    (None, _) => [255.0; 4],
                };
                paint.over(dst, texel);
            }
        }
    }
}

/// The texture position (0..=1 of the picture) and the color over a triangle as planes: each
/// one's change per pixel along x and y, and its value at the first corner.
struct Planes {
    /// The first corner's position.
    origin: (f64, f64),
    u: (f64, f64, f64),
    v: (f64, f64, f64),
    color: [(f64, f64, f64); 4],
}

impl Planes {
    fn new(&[a, b, c]: &[Vertex; 3]) -> Planes {
        let (dx1, dy1) = (f64::from(b.x - a.x), f64::from(b.y - a.y));
        let (dx2, dy2) = (f64::from(c.x - a.x), f64::from(c.y - a.y));
        let area = dx1 * dy2 - dx2 * dy1;
        let plane = |va: f32, vb: f32, vc: f32| {
            let (va, vb, vc) = (f64::from(va), f64::from(vb), f64::from(vc));
            let (d1, d2) = (vb - va, vc - va);
            (
                (d1 * dy2 - d2 * dy1) / area,
                (d2 * dx1 - d1 * dx2) / area,
                va,
            )
        };
        Planes {
            origin: (f64::from(a.x), f64::from(a.y)),
            u: plane(a.uv[0], b.uv[0], c.uv[0]),
            v: plane(a.uv[1], b.uv[1], c.uv[1]),
            color: [0, 1, 2, 3].map(|i| plane(a.color[i], b.color[i], c.color[i])),
        }
    }

    /// The value of `plane` at picture position `(x, y)`.
    #[inline]
    fn at(&self, &(gx, gy, value): &(f64, f64, f64), x: f64, y: f64) -> f64 {
        value + gx * (x - self.origin.0) + gy * (y - self.origin.1)
    }
}

/// Texel positions along a row of pixels in one level, along one of its axes: 32.32 fixed
/// point from the first pixel, wrapping around the level's `n` texels (the texture
/// repeated), so that each pixel's [`Tap`] costs a multiplication and a few shifts.
struct Walk {
    start: i64,
    step: i64,
    n: i64,
    /// The tap of every pixel, where the position does not change along the row (the rows of
    /// a quad that is not turned).
    fixed: Option<Tap>,
}

impl Walk {
    /// For texel coordinate `at` (texel centres at .5) at the first pixel and `step` more at
    /// each next one, over `count` pixels; `None` where the numbers are too large for the
    /// fixed point, or not numbers.
    fn new(at: f64, step: f64, n: usize, count: usize) -> Option<Walk> {
        const ONE: f64 = (1u64 << 32) as f64;
        let limit = (1u64 << 24) as f64;
        let start = (at - 0.5).rem_euclid(n as f64);
        // Each product at most 2^56, and each position reached within 2^61.
        let fits = (n as f64) < limit && start.is_finite() && (step * count as f64).abs() < limit;
        if !fits {
            return None;
        }
        let mut walk = Walk {
            start: (start * ONE) as i64,
            step: (step * ONE) as i64,
            n: n as i64,
            fixed: None,
        };
        if walk.step == 0 {
            walk.fixed = Some(walk.tap(0));
        }
        Some(walk)
    }

    /// The [`Tap`] of pixel `k` of the row, as [`tap`](super::texture::tap) finds it.
    #[inline(always)]
    fn tap(&self, k: usize) -> Tap {
        if let Some(tap) = self.fixed {
            return tap;
        }
        let position = self.start.wrapping_add(self.step.wrapping_mul(k as i64));
        let first = position >> 32;
        let weight = ((position >> 24) & 0xFF) as f32 * (1.0 / 256.0);
        let n = self.n;
        let i = if (0..n).contains(&first) {
            first
        } else {
            first.rem_euclid(n)
        };
        let next = if i + 1 == n { 0 } else { i + 1 };
        (i as u32, next as u32, weight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (splitmix64).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        /// A number in `lo..hi`; a whole or half one one time in three (pixel centres and
        /// edges, where the tests tie).
        fn within(&mut self, lo: f64, hi: f64) -> f64 {
            let v = lo + (self.next() >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo);
            match self.next() % 3 {
                0 => (v * 2.0).round() / 2.0,
                _ => v,
            }
        }
    }

    fn corner(x: f64, y: f64) -> Vertex {
        Vertex {
            x: x as f32,
            y: y as f32,
            color: [1.0; 4],
            uv: [0.0; 2],
        }
    }

    /// Triangles of every size, near the picture and far outside it, with ties on pixel
    /// centres, needles and nearly level edges: every pixel the edge tests accept is in its
    /// row's span (so skipping the rest changes no pixel), and the work counted is the spans'.
    #[test]
    fn spans_hold_every_pixel_the_tests_accept() {
        let clip = Rect {
            x0: 3,
            y0: 2,
            x1: 97,
            y1: 61,
        };
        let mut rng = Rng(28);
        let (mut tested, mut accepted, mut skipped) = (0u64, 0u64, 0u64);
        for i in 0..20_000 {
            let scale = [60.0, 200.0, 1e4, 1e7, 3e9][i % 5];
            let point =
                |rng: &mut Rng| corner(rng.within(-scale, scale), rng.within(-scale, scale));
            let (mut a, mut b) = (point(&mut rng), point(&mut rng));
            if i % 7 == 2 {
                // An edge through the picture from corners far outside it: where the tests in
                // f32 round the most.
                let (x, y) = (rng.within(0.0, 100.0), rng.within(0.0, 60.0));
                let (dx, dy) = (rng.within(-1.0, 1.0), rng.within(-1.0, 1.0));
                a = corner(x + dx * scale, y + dy * scale);
                b = corner(x - dx * scale, y - dy * scale);
            }
            let c = match i % 7 {
                // A needle: the third corner close to the second.
                0 => corner(f64::from(b.x) + 0.01, f64::from(b.y) + 1.5),
                // A nearly level edge.
                1 => corner(f64::from(a.x) + 50.0, f64::from(a.y) + 1e-3),
                _ => point(&mut rng),
            };
            let Some(triangle) = Triangle::new(clip, [a, b, c]) else {
                continue;
            };
            let (setup, tests) = (&triangle.setup, &triangle.tests);
            let rect = setup.rect;
            let mut work = 0;
            for py in rect.y0..rect.y1 {
                let (x0, x1) = setup.span(py);
                assert!(rect.x0 <= x0 && x0 <= x1 && x1 <= rect.x1);
                work += 1 + (x1 - x0) as u64;
                for px in rect.x0..rect.x1 {
                    let (x, y) = (px as f32 + 0.5, py as f32 + 0.5);
                    let inside = tests.weights(&triangle.corners, x, y);
                    let in_span = (x0..x1).contains(&px);
                    assert!(
                        inside.is_none() || in_span,
                        "{:?}: pixel {px},{py} is drawn, the span is {x0}..{x1}",
                        triangle.corners
                    );
                    tested += 1;
                    accepted += u64::from(inside.is_some());
                    skipped += u64::from(!in_span);
                }
            }
            assert_eq!(triangle.work(), work);
        }
        // The cases are not trivial: pixels drawn, and pixels skipped.
        assert!(
            accepted > 100_000 && skipped > 1_000_000,
            "{tested} {accepted} {skipped}"
        );
    }

    /// Tile layers with something in a part of their grid, drawn at many scales and places:
    /// every pixel whose tile (as `draw_tiles` finds it) is in that part is in the pixels
    /// `tile_pixels` gives.
    #[test]
    fn tile_pixels_hold_every_pixel_of_the_tiles() {
        let clip = Rect {
            x0: 0,
            y0: 5,
            x1: 120,
            y1: 70,
        };
        let mut rng = Rng(17);
        let mut narrowed = 0;
        for i in 0..5_000 {
            let n = (1 + rng.next() % 40) as usize;
            let m = (1 + rng.next() % 40) as usize;
            let first = (rng.next() % n as u64) as usize;
            let end = first + 1 + (rng.next() % (n - first) as u64) as usize;
            let top = (rng.next() % m as u64) as usize;
            let bottom = top + 1 + (rng.next() % (m - top) as u64) as usize;
            let occupied = Rect {
                x0: first,
                y0: top,
                x1: end,
                y1: bottom,
            };
            let unit = [0.05, 0.5, 1.0, 3.3, 32.0, 1e3][i % 6] * rng.within(0.5, 2.0);
            let origin = (rng.within(-1500.0, 1500.0), rng.within(-1500.0, 1500.0));
            let shown = tile_pixels(occupied, (n, m), origin, (unit, unit), clip);
            let mut any = false;
            for py in clip.y0..clip.y1 {
                for px in clip.x0..clip.x1 {
                    let (column, _) = tile_at(origin.0, unit, px, n);
                    let (row, _) = tile_at(origin.1, unit, py, m);
                    if (first..end).contains(&column) && (top..bottom).contains(&row) {
                        any = true;
                        let shown = shown.unwrap_or_else(|| panic!("{i}: none shown"));
                        assert!(
                            (shown.x0..shown.x1).contains(&px)
                                && (shown.y0..shown.y1).contains(&py),
                            "{i}: pixel {px},{py} left out of {shown:?}"
                        );
                    }
                }
            }
            if let Some(shown) = shown {
                let area = (shown.x1 - shown.x0) * (shown.y1 - shown.y0);
                narrowed += usize::from(area < 120 * 65);
            }
            assert!(any || shown.is_none_or(|s| (s.x1 - s.x0) * (s.y1 - s.y0) < 120 * 65));
        }
        assert!(narrowed > 500, "{narrowed}");
    }

    #[test]
    fn blending_is_premultiplied_over() {
        let over = |dst: Px, texel: Px, color: [f32; 4], alpha: Alpha| {
            let mut dst = dst;
            Paint::new(color, alpha).over(&mut dst, super::texel(texel));
            dst
        };
        // Premultiplied texels: `src + dst * (1 - src alpha)`.
        let premultiplied = Alpha::Premultiplied;
        assert_eq!(
            over([0, 0, 255, 255], [128, 0, 0, 128], [1.0; 4], premultiplied),
            [128, 0, 127, 255]
        );
        assert_eq!(
            over([10, 20, 30, 40], [1, 2, 3, 255], [1.0; 4], premultiplied),
            [1, 2, 3, 255]
        );
        // The color multiplies a premultiplied texel, premultiplied by its own alpha.
        let color = [1.0, 0.5, 0.0, 0.5];
        assert_eq!(
            over([0; 4], [255; 4], color, premultiplied),
            [128, 64, 0, 128]
        );
        // A see-through result (alpha under a half) changes nothing.
        assert_eq!(
            over(
                [9, 9, 9, 9],
                [255, 255, 255, 1],
                [1.0, 1.0, 1.0, 0.4],
                premultiplied
            ),
            [9, 9, 9, 9]
        );
        // Colors out of 0..=1, and not numbers, are clamped: none draws out of range.
        let wild = [f32::NAN, 7.0, -3.0, f32::INFINITY];
        // (Straight: green 200 at alpha 200 is 157 premultiplied.)
        assert_eq!(
            over([0; 4], [200; 4], wild, Alpha::Straight),
            [0, 157, 0, 200]
        );
    }

    /// The game filters straight texels: halfway between an opaque white texel and a
    /// see-through red one, the color is half red, half white, at half alpha (the red fringe
    /// of the game's pictures), then blended `SRC_ALPHA, ONE_MINUS_SRC_ALPHA` over black.
    /// Filtering premultiplied texels (before issue 34) mixes in no red.
    #[test]
    fn straight_texels_are_filtered_then_blended() {
        let rgba = [255, 255, 255, 255, 255, 0, 0, 0];
        let clip = Rect {
            x0: 0,
            y0: 0,
            x1: 2,
            y1: 2,
        };
        // Texture position (0.5, 0.5) everywhere: between the two texels, level 0.
        let vertex = |x, y| Vertex {
            x,
            y,
            color: [1.0; 4],
            uv: [0.5, 0.5],
        };
        let corners = [vertex(0.0, 0.0), vertex(4.0, 0.0), vertex(0.0, 4.0)];
        for (alpha, filtering, expected) in [
            (Alpha::Straight, Filtering::Game, [128, 64, 64, 255]),
            (
                Alpha::Premultiplied,
                Filtering::Issue17,
                [128, 128, 128, 255],
            ),
        ] {
            let texture = Texture::from_rgba(2, 1, &rgba, 1, alpha).unwrap();
            let mut pixels = vec![[0, 0, 0, 255]; 4];
            let mut band = Band {
                top: 0,
                width: 2,
                pixels: &mut pixels,
                hidden: &[],
                step: 1,
            };
            Triangle::new(clip, corners)
                .unwrap()
                .draw(&mut band, Some(&texture), filtering);
            assert_eq!(pixels[0], expected, "{filtering:?}");
        }
        // The color multiplies the straight texel before its alpha is used.
        let paint = Paint::new([1.0, 0.5, 1.0, 0.5], Alpha::Straight);
        assert_eq!(
            pixel(paint.apply(texel([255, 128, 0, 128]))),
            [64, 16, 0, 64]
        );
        let white = Paint::new([1.0; 4], Alpha::Straight);
        assert_eq!(
            pixel(white.apply(texel([200, 100, 50, 255]))),
            super::super::texture::premultiply([200, 100, 50, 255])
        );
    }

    /// A tileset of 16 x 16 cells of 8 texels, each of a kind the drawing has a shortcut for:
    /// one color (opaque, see-through or between), see-through all over, see-through rows,
    /// opaque and mixed.
    fn kinds_tileset(rng: &mut Rng) -> Texture {
        let colors: Vec<[u8; 4]> = (0..256)
            .map(|_| {
                let v = rng.next();
                let alpha = [255, 0, (v >> 32) as u8][(v % 3) as usize];
                [(v >> 8) as u8, (v >> 16) as u8, (v >> 24) as u8, alpha]
            })
            .collect();
        Texture::tile_colors(8, Alpha::Straight, |index, x, y| {
            let color = colors[index];
            match index % 6 {
                0 => color,
                1 => [color[0], 0, 0, 0],
                2 if y < 3 || y == 7 => [x as u8, 0, 0, 0],
                3 if x > 4 => [0, 0, y as u8, 0],
                2..=4 => [(x * 31) as u8, (y * 31) as u8, color[2], 255],
                _ => [(x * 31) as u8, color[1], color[2], (y * 36) as u8],
            }
        })
    }

    /// Random tile layers over a textured quad, drawn with every shortcut (opaque tiles hiding
    /// what is under them, cells of one color, see-through cells, rows and texels skipped) and
    /// without any: the same pixels, at every scale and in every turn and flip.
    #[test]
    fn rows_list_the_runs_of_drawn_tiles() {
        let mut rng = Rng(35);
        let (width, rows) = (61, 37);
        let (mut cached, mut uncached) = (0, 0);
        for round in 0..300 {
            let n = 1 + rng.next() as usize % 40;
            let m = 1 + rng.next() as usize % [40, 400][round % 2];
            let tiles: Vec<TileLook> = (0..n * m)
                .map(|_| TileLook {
                    index: (rng.next() % 3).saturating_sub(1) as u8 * 7,
                    flags: 0,
                    angle: 0,
                })
                .collect();
            let look = |i: usize| tiles.get(i).copied().unwrap_or_default();
            let unit = [0.3, 1.0, 2.7, 9.0, 150.0][round % 5] * rng.within(0.8, 1.2);
            let top = rng.next() as usize % 10;
            let clip = Rect {
                x0: rng.next() as usize % 10,
                y0: top,
                x1: width,
                y1: rows,
            };
            let columns = TileColumns::default();
            let layer = TileDraw {
                width: n,
                height: m,
                look,
                texture: None,
                color: [1.0; 4],
                units_per_pixel: (unit, unit),
                origin: (rng.within(-900.0, 900.0), rng.within(-900.0, 900.0)),
                clip,
                filtering: Filtering::Game,
                columns: &columns,
            };
            let plan = layer.plan(width).unwrap();
            let all = &plan.columns.runs;
            for py in clip.y0..clip.y1 {
                let (row, _) = tile_at(layer.origin.1, unit, py, m);
                let listed: Vec<_> = (plan.columns)
                    .runs_in(plan.columns.shown(row, n, look))
                    .copied()
                    .collect();
                if plan.columns.shown.is_empty() {
                    // Far more tile rows than pixel rows: every run, each looked at.
                    assert_eq!(&listed, all);
                    uncached += 1;
                    continue;
                }
                let drawn: Vec<_> = (all.iter())
                    .filter(|&&(column, _, _)| look(row * n + column).index != 0)
                    .copied()
                    .collect();
                assert_eq!(listed, drawn, "round {round}, row {row}");
                cached += 1;
            }
        }
        assert!(cached > 1000 && uncached > 100, "{cached} {uncached}");
    }

    #[test]
    fn shortcuts_draw_the_same_pixels() {
        let mut rng = Rng(34);
        let (width, rows) = (61, 37);
        let clip = Rect {
            x0: 0,
            y0: 0,
            x1: width,
            y1: rows,
        };
        let mut compared = 0;
        for round in 0..200 {
            let seed = rng.next();
            let tileset = kinds_tileset(&mut Rng(seed));
            let reference_tileset = kinds_tileset(&mut Rng(seed)).without_shortcuts();
            // A picture with see-through rows and texels for the quad.
            let picture: Vec<u8> = (0..16 * 12)
                .flat_map(|i| {
                    let (x, y) = (i % 16, i / 16);
                    let alpha = if y < 4 || x > 12 {
                        0
                    } else {
                        40 + (x * 13) as u8
                    };
                    [(x * 16) as u8, (y * 20) as u8, 99, alpha]
                })
                .collect();
            let quad = Texture::from_rgba(16, 12, &picture, 1, Alpha::Straight).unwrap();
            let reference_quad = Texture::from_rgba(16, 12, &picture, 1, Alpha::Straight)
                .unwrap()
                .without_shortcuts();
            let (n, m) = (1 + rng.next() as usize % 9, 1 + rng.next() as usize % 9);
            let tiles: Vec<TileLook> = (0..n * m)
                .map(|_| {
                    let v = rng.next();
                    TileLook {
                        index: (v % 13) as u8,
                        flags: ((v >> 8) as u8) & 11,
                        angle: if (v >> 16) % 9 == 0 { 90 } else { 0 },
                    }
                })
                .collect();
            let unit = [0.3, 1.0, 2.7, 9.0][round % 4] * rng.within(0.8, 1.2);
            let origin = (rng.within(-100.0, 100.0), rng.within(-100.0, 100.0));
            let color = match round % 3 {
                0 => [1.0; 4],
                1 => [0.5, 1.0, 0.8, 1.0],
                _ => [1.0, 1.0, 1.0, 0.6],
            };
            let corner = |x: f32, y: f32, u: f32, v: f32| Vertex {
                x,
                y,
                color: [1.0, 0.9, 0.8, 1.0],
                uv: [u, v],
            };
            let (x0, x1) = (
                rng.within(-20.0, 30.0) as f32,
                rng.within(30.0, 80.0) as f32,
            );
            let corners = [
                corner(x0, 2.0, -0.3, -0.2),
                corner(x1, 5.0, 1.7, -0.2),
                corner(x0, 40.0, -0.3, 1.3),
            ];
            let Some(triangle) = Triangle::new(clip, corners) else {
                continue;
            };
            let draw = |tileset: &Texture, quad: &Texture, cover: bool| {
                let columns = TileColumns::default();
                let layer = TileDraw {
                    width: n,
                    height: m,
                    look: |i: usize| tiles.get(i).copied().unwrap_or_default(),
                    texture: Some(tileset),
                    color,
                    units_per_pixel: (unit, unit),
                    origin,
                    clip,
                    filtering: Filtering::Game,
                    columns: &columns,
                };
                let mut pixels = vec![[30, 60, 90, 255]; width * rows];
                let mut hidden = vec![0u32; width * rows];
                if cover {
                    let band = Band {
                        top: 0,
                        width,
                        pixels: &mut pixels,
                        hidden: &[],
                        step: 0,
                    };
                    cover_tiles(&band, &mut hidden, 2, &layer);
                }
                let mut band = Band {
                    top: 0,
                    width,
                    pixels: &mut pixels,
                    hidden: &hidden,
                    step: 1,
                };
                triangle.draw(&mut band, Some(quad), Filtering::Game);
                band.step = 2;
                draw_tiles(&mut band, &layer);
                (pixels, hidden.iter().filter(|h| **h != 0).count())
            };
            let (fast, covered) = draw(&tileset, &quad, true);
            let (slow, none) = draw(&reference_tileset, &reference_quad, false);
            assert_eq!(none, 0);
            let differ = fast.iter().zip(&slow).position(|(a, b)| a != b);
            assert!(
                differ.is_none(),
                "round {round}, pixel {differ:?}: {:?} against {:?}",
                differ.map(|i| fast[i]),
                differ.map(|i| slow[i])
            );
            compared += covered;
        }
        // Opaque tiles did hide pixels.
        assert!(compared > 1000, "{compared}");
    }

    /// The fixed point steps of a triangle's rows find the texels and weights that the texel
    /// position, worked out in f64 for each pixel, falls on.
    #[test]
    fn walks_find_each_pixels_texels() {
        let mut rng = Rng(7);
        for i in 0..20_000 {
            let n = [1, 2, 3, 16, 500, 2048][i % 6];
            let at = rng.within(-5000.0, 5000.0);
            let step = rng.within(-3.0, 3.0) * [1.0, 0.01, 40.0][i % 3];
            let count = 1 + (rng.next() % 1500) as usize;
            let walk = Walk::new(at, step, n, count).unwrap();
            for k in [0, count / 2, count - 1] {
                let x = at + step * k as f64 - 0.5;
                let first = x.floor();
                let weight = ((x - first) * 256.0).floor();
                // Where the position is a hair from a step of 1/256, either side will do.
                let edge = ((x - first) * 256.0 - weight).abs() < 1e-4
                    || ((x - first) * 256.0 - weight - 1.0).abs() < 1e-4;
                let (t0, t1, w) = walk.tap(k);
                let expected = first.rem_euclid(n as f64) as u32;
                if !edge {
                    assert_eq!(
                        (t0, w),
                        (expected, weight as f32 / 256.0),
                        "{at} {step} {n} {k}"
                    );
                }
                assert!(t0 < n as u32 && t1 == (t0 + 1) % n as u32);
            }
        }
        // Too far out for the fixed point, or not numbers: none.
        assert!(Walk::new(f64::INFINITY, 1.0, 16, 10).is_none());
        assert!(Walk::new(0.0, 1e9, 16, 10).is_none());
        assert!(Walk::new(f64::NAN, 1.0, 16, 10).is_none());
        assert!(Walk::new(0.0, 1.0, 1 << 25, 10).is_none());
    }

    #[test]
    fn a_triangle_covers_half_a_square() {
        let mut pixels = vec![[0; 4]; 16];
        let mut band = Band {
            top: 0,
            width: 4,
            pixels: &mut pixels,
            hidden: &[],
            step: 1,
        };
        let vertex = |x, y| Vertex {
            x,
            y,
            color: [1.0, 0.0, 0.0, 1.0],
            uv: [0.0, 0.0],
        };
        let clip = Rect {
            x0: 0,
            y0: 0,
            x1: 4,
            y1: 4,
        };
        let corners = [vertex(0.0, 0.0), vertex(4.0, 0.0), vertex(0.0, 4.0)];
        Triangle::new(clip, corners)
            .unwrap()
            .draw(&mut band, None, Filtering::Game);
        let red = pixels.iter().filter(|p| **p == [255, 0, 0, 255]).count();
        // Pixel centres strictly above the diagonal x + y = 4: 6; the 4 on it belong to the
        // triangle on its other side.
        assert_eq!(red, 6);
        assert_eq!(pixels[15], [0; 4]);
        // That triangle draws them, and the square is covered once.
        let blue = |x, y| Vertex {
            color: [0.0, 0.0, 1.0, 0.5],
            ..vertex(x, y)
        };
        let corners = [blue(4.0, 0.0), blue(4.0, 4.0), blue(0.0, 4.0)];
        let mut band = Band {
            top: 0,
            width: 4,
            pixels: &mut pixels,
            hidden: &[],
            step: 1,
        };
        Triangle::new(clip, corners)
            .unwrap()
            .draw(&mut band, None, Filtering::Game);
        let half_blue = pixels.iter().filter(|p| **p == [0, 0, 128, 128]).count();
        assert_eq!(half_blue, 10, "{pixels:?}");
    }
}
