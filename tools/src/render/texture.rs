//! Textures: a picture's texels with a chain of smaller levels (mipmaps), as the game uploads
//! a picture and its graphics card samples it (docs/format-notes.md, "Drawing a map",
//! "Sampling and blending").
//!
//! The game filters straight (not premultiplied) RGBA8: each level is made from the one before
//! by its graphics driver (Vulkan's linear blit at half size; a 2 x 2 mean where the sides are
//! even), down to one texel, and a tileset is 256 cells each with a chain of its own (a 2D
//! array texture). [`Alpha::Premultiplied`] keeps the way this renderer sampled before (issue
//! 17: premultiplied texels, a 2 x 2 mean of the whole picture while both sides are at least
//! 2), only to measure the two against each other.

use std::borrow::Cow;

use rayon::prelude::*;

/// An RGBA8 pixel: straight in a texture of [`Alpha::Straight`], premultiplied in a texture of
/// [`Alpha::Premultiplied`] and in the picture being drawn.
pub(crate) type Px = [u8; 4];

/// A texel bilinearly filtered, each channel times 65536 (0..=255 * 65536).
pub(crate) type Fixed = [u32; 4];

/// How a texture keeps its texels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) enum Alpha {
    /// As the picture stores them, and the game filters them.
    #[default]
    Straight,
    /// Premultiplied by their alpha (the renderer before issue 34).
    Premultiplied,
}

/// A straight RGBA8 color, premultiplied by its alpha.
pub(crate) fn premultiply([r, g, b, a]: [u8; 4]) -> Px {
    let mul = |c: u8| ((u16::from(c) * u16::from(a) + 127) / 255) as u8;
    [mul(r), mul(g), mul(b), a]
}

/// A premultiplied pixel back to straight RGBA8.
pub(crate) fn straight([r, g, b, a]: Px) -> [u8; 4] {
    let div = |c: u8| match a {
        0 => 0,
        255 => c,
        a => ((u32::from(c) * 255 + u32::from(a) / 2) / u32::from(a)).min(255) as u8,
    };
    [div(r), div(g), div(b), a]
}

/// A [`Fixed`] texel rounded to RGBA8.
#[inline(always)]
pub(crate) fn round(texel: Fixed) -> Px {
    let one = |c: u32| ((c + (1 << 15)) >> 16).min(255) as u8;
    [one(texel[0]), one(texel[1]), one(texel[2]), one(texel[3])]
}

/// Where a bilinear sample falls along one axis of `n` texels: the two texels and the weight
/// of the second (0..=256), for texel coordinate `x` (centres at `.5`); clamped to the edge
/// texels, or wrapping around with `wrap`.
#[inline]
fn axis(x: f32, n: usize, wrap: bool) -> (usize, usize, u32) {
    // (`floor` is a library call on the baseline x86-64: conversions instead.)
    let f = x - 0.5;
    if !wrap {
        let last = n.saturating_sub(1) as f32;
        if f <= 0.0 || f.is_nan() {
            return (0, 0, 0);
        }
        if f >= last {
            return (n - 1, n - 1, 0);
        }
        let i = f as usize;
        let weight = ((f - i as f32) * 256.0) as u32;
        return (i, (i + 1).min(n - 1), weight.min(256));
    }
    // A coordinate far outside the picture (a huge texture repeat) is still a number of
    // texels: `as` saturates, and `rem_euclid` brings it back (only when needed: it divides).
    let truncated = f as i64;
    let first = if truncated as f32 > f {
        truncated - 1
    } else {
        truncated
    };
    let weight = ((f - first as f32) * 256.0) as u32;
    let n = n as i64;
    let i = if (0..n).contains(&first) {
        first
    } else {
        first.rem_euclid(n)
    };
    let next = if i + 1 == n { 0 } else { i + 1 };
    (i as usize, next as usize, weight.min(256))
}

/// A texel as the filters, the colors and the blending work on it: each channel 0..=255, in
/// f32 (four lanes a processor computes at once).
pub(crate) type Texel = [f32; 4];

/// 2^23: a number 0..2^23 added to it is the low bits of the sum's mantissa, rounded to the
/// nearest whole number (how the conversions below stay in the processor's vector lanes).
const MAGIC: f32 = 8_388_608.0;

/// An RGBA8 pixel as a [`Texel`].
#[inline(always)]
pub(crate) fn texel(p: Px) -> Texel {
    let one = |c: u8| f32::from_bits(MAGIC.to_bits() | u32::from(c)) - MAGIC;
    [one(p[0]), one(p[1]), one(p[2]), one(p[3])]
}

/// A [`Texel`] rounded to RGBA8 (halves to even), each channel clamped into 0..=255.
#[inline(always)]
pub(crate) fn pixel(t: Texel) -> Px {
    let one = |c: f32| (c.clamp(0.0, 255.0) + MAGIC).to_bits() as u8;
    [one(t[0]), one(t[1]), one(t[2]), one(t[3])]
}

/// `a` moved the fraction `t` of the way to `b`.
#[inline(always)]
pub(crate) fn lerp(a: Texel, b: Texel, t: f32) -> Texel {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
        a[3] + (b[3] - a[3]) * t,
    ]
}

/// Where a bilinear sample falls along one axis: the two texels and the weight of the second
/// (0..=1, in steps of 1/256: a graphics card's 8 bits of position between texels).
pub(crate) type Tap = (u32, u32, f32);

/// The [`Tap`] of texel coordinate `x` (centres at `.5`) along `n` texels, clamped to the edge
/// texels, or wrapping around with `wrap`.
#[inline(always)]
pub(crate) fn tap(x: f32, n: usize, wrap: bool) -> Tap {
    let (first, second, weight) = axis(x, n, wrap);
    // Indices of a level's texels, whose sides are at most `i32::MAX`.
    (first as u32, second as u32, weight as f32 * (1.0 / 256.0))
}

/// The [`Tap`] of position `t` (0..=1) across a cell of `n` texels, clamped to the cell's edge.
#[inline]
pub(crate) fn cell_tap(t: f32, n: usize) -> Tap {
    tap(t * n as f32, n, false)
}

/// One level of a texture.
#[derive(Debug)]
pub(crate) struct Level {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<Px>,
}

impl Level {
    /// The pixel at `(x, y)`, which the caller keeps inside the level.
    #[inline]
    pub fn at(&self, x: usize, y: usize) -> Px {
        self.pixels
            .get(y * self.width + x)
            .copied()
            .unwrap_or_default()
    }

    /// The texels `(x0, y0)`, `(x1, y0)`, `(x0, y1)`, `(x1, y1)` weighted bilinearly.
    #[inline(always)]
    pub(crate) fn blend(
        &self,
        (x0, x1, wx): (usize, usize, u32),
        (y0, y1, wy): (usize, usize, u32),
    ) -> Fixed {
        let p00 = self.at(x0, y0);
        let p10 = self.at(x1, y0);
        let p01 = self.at(x0, y1);
        let p11 = self.at(x1, y1);
        let mut out = [0; 4];
        for c in 0..4 {
            let top = u32::from(p00[c]) * (256 - wx) + u32::from(p10[c]) * wx;
            let bottom = u32::from(p01[c]) * (256 - wx) + u32::from(p11[c]) * wx;
            out[c] = top * (256 - wy) + bottom * wy;
        }
        out
    }

    /// The bilinear sample of the texels where `x` and `y` fall.
    #[inline(always)]
    pub(crate) fn sample(&self, x: Tap, y: Tap) -> Texel {
        self.sample_from(0, x, y)
    }

    /// [`Level::sample`] with the taps counted from texel index `origin` (a cell's first
    /// texel).
    #[inline(always)]
    pub(crate) fn sample_from(&self, origin: usize, (x0, x1, wx): Tap, (y0, y1, wy): Tap) -> Texel {
        let (row0, row1) = (
            origin + y0 as usize * self.width,
            origin + y1 as usize * self.width,
        );
        let at = |i: usize| texel(self.pixels.get(i).copied().unwrap_or_default());
        let top = lerp(at(row0 + x0 as usize), at(row0 + x1 as usize), wx);
        let bottom = lerp(at(row1 + x0 as usize), at(row1 + x1 as usize), wx);
        lerp(top, bottom, wy)
    }

    /// Bilinear sample at `(u, v)` (0..=1) of the `size` texels at `origin`, clamped to that
    /// cell's edge texels: a tile of a tileset, sampled as the game's texture arrays do.
    #[inline]
    pub fn bilinear_in_cell(
        &self,
        u: f32,
        v: f32,
        origin: (usize, usize),
        size: (usize, usize),
    ) -> Texel {
        let (x0, x1, wx) = cell_tap(u, size.0);
        let (y0, y1, wy) = cell_tap(v, size.1);
        let (ox, oy) = (origin.0 as u32, origin.1 as u32);
        self.sample((ox + x0, ox + x1, wx), (oy + y0, oy + y1, wy))
    }

    /// Bilinear sample at texel coordinates `(x, y)` (texel centres at `.5`), clamped to the
    /// level's edges, in whole numbers and rounded (for resizing pictures).
    pub fn bilinear_px(&self, x: f32, y: f32) -> Px {
        round(self.blend(axis(x, self.width, false), axis(y, self.height, false)))
    }

    /// Bilinear sample at texel coordinates `(x, y)` (texel centres at `.5`), wrapping around
    /// the level's edges when `wrap`, clamped to them otherwise.
    #[inline(always)]
    pub fn bilinear(&self, x: f32, y: f32, wrap: bool) -> Texel {
        self.sample(tap(x, self.width, wrap), tap(y, self.height, wrap))
    }
}

/// The two mipmap levels a sample mixes, and the weight of the second (0..=256).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Lod {
    pub near: usize,
    pub far: usize,
    pub weight: u32,
}

impl Lod {
    /// Level `level` alone.
    pub fn single(level: usize) -> Lod {
        Lod {
            near: level,
            far: level,
            weight: 0,
        }
    }

    /// The weight of the second level, 0..=1.
    pub fn fraction(&self) -> f32 {
        self.weight as f32 / 256.0
    }

    /// Level 0 alone.
    pub const BASE: Lod = Lod {
        near: 0,
        far: 0,
        weight: 0,
    };
}

/// The game's level of detail bias: its `gfx_gl_texture_lod_bias` setting, -500 thousandths
/// by default, given to the graphics card as is (Vulkan's `mipLodBias`, OpenGL's
/// `GL_TEXTURE_LOD_BIAS`). It samples half a level sharper than the footprint alone asks.
pub(crate) const LOD_BIAS: f32 = -0.5;

/// A picture with its mipmaps; level 0 is the picture itself.
#[derive(Debug)]
pub(crate) struct Texture {
    pub levels: Vec<Level>,
    /// Cells along each side: 16 for a tileset (each cell has a mipmap chain of its own), 1
    /// for a picture.
    pub grid: usize,
    pub alpha: Alpha,
    /// What each cell (by index: 16 x 16 of a tileset, the one of a picture) is made of.
    cells: Vec<Cell>,
    /// For each level of a tileset, which lines of texels of each cell are see-through.
    lines: Vec<Lines>,
    /// For each level of a picture, each row's first and last texel that is not see-through
    /// (first past last where the whole row is).
    spans: Vec<Vec<(u32, u32)>>,
}

/// The see-through lines of texels of a level's cells (alpha 0 all along): rows at `cell *
/// height + y`, columns at `cell * width + x`, in the cell's own texels.
#[derive(Debug, Default)]
struct Lines {
    width: usize,
    height: usize,
    rows: Vec<bool>,
    columns: Vec<bool>,
}

/// What a cell of a texture is made of, in all its levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cell {
    /// Texels of more than one color, some not opaque.
    Mixed,
    /// Opaque texels: every sample is opaque, wherever it falls (a filter only mixes texels
    /// of the cell).
    Opaque,
    /// Texels all of one color: every sample is that color.
    Uniform(Px),
    /// Texels all see-through (alpha 0), of any colors: every sample is see-through.
    Clear,
}

impl Texture {
    /// A texture of no level (draws nothing).
    pub fn empty(alpha: Alpha) -> Texture {
        Texture {
            levels: Vec::new(),
            grid: 1,
            alpha,
            cells: Vec::new(),
            lines: Vec::new(),
            spans: Vec::new(),
        }
    }

    /// A texture from straight RGBA8 pixels, of `grid` x `grid` cells (1 or 16, whose sides
    /// divide the picture's), kept as `alpha` says; `None` when the sizes do not match the
    /// bytes or are 0.
    pub fn from_rgba(
        width: usize,
        height: usize,
        rgba: &[u8],
        grid: usize,
        alpha: Alpha,
    ) -> Option<Texture> {
        Texture::from_pixels(width, height, Cow::Borrowed(rgba), grid, alpha)
    }

    /// [`Texture::from_rgba`], keeping pixels given as a `Vec` as the first level (straight
    /// alpha) instead of copying them.
    pub fn from_pixels(
        width: usize,
        height: usize,
        rgba: Cow<'_, [u8]>,
        grid: usize,
        alpha: Alpha,
    ) -> Option<Texture> {
        if width == 0 || height == 0 || width.checked_mul(height)?.checked_mul(4)? != rgba.len() {
            return None;
        }
        let grid = match grid {
            16 if width % 16 == 0 && height % 16 == 0 => 16,
            _ => 1,
        };
        let pixels: Vec<Px> = match (alpha, rgba) {
            (Alpha::Straight, Cow::Owned(rgba)) => bytemuck::allocation::try_cast_vec(rgba)
                .unwrap_or_else(|(_, rgba)| bytemuck::cast_slice::<u8, Px>(&rgba).to_vec()),
            (Alpha::Straight, Cow::Borrowed(rgba)) => bytemuck::cast_slice::<u8, Px>(rgba).to_vec(),
            (Alpha::Premultiplied, rgba) => (rgba.par_chunks_exact(4).with_min_len(4096))
                .map(|p| premultiply([p[0], p[1], p[2], p[3]]))
                .collect(),
        };
        let mut levels = vec![Level {
            width,
            height,
            pixels,
        }];
        while let Some(last) = levels.last() {
            let next = match alpha {
                Alpha::Straight => reduce(last, grid),
                Alpha::Premultiplied => half(last),
            };
            match next {
                Some(next) => levels.push(next),
                None => break,
            }
        }
        let cells = cells(&levels, grid);
        let lines = match grid {
            16 => levels.par_iter().map(|level| lines(level, grid)).collect(),
            _ => Vec::new(),
        };
        let spans = match grid {
            1 => levels.par_iter().map(spans).collect(),
            _ => Vec::new(),
        };
        Some(Texture {
            levels,
            grid,
            alpha,
            cells,
            lines,
            spans,
        })
    }

    /// Whether the texel rows (`columns` false) or columns (`columns` true) `first` and
    /// `second` of cell `index` in level `level` are see-through all along.
    #[inline]
    pub fn clear_lines(
        &self,
        level: usize,
        index: u8,
        columns: bool,
        (first, second): (u32, u32),
    ) -> bool {
        let Some(lines) = self.lines.get(level) else {
            return false;
        };
        let (all, size) = match columns {
            false => (&lines.rows, lines.height),
            true => (&lines.columns, lines.width),
        };
        let clear = |i: u32| {
            let at = usize::from(index) * size + i as usize;
            (i as usize) < size && all.get(at).copied().unwrap_or(false)
        };
        clear(first) && clear(second)
    }

    /// Whether the four texels of taps `u` and `v` in level `level` of a picture are all
    /// see-through (each outside its row's span of texels that are not).
    #[inline(always)]
    pub fn clear_texels(&self, level: usize, u: Tap, v: Tap) -> bool {
        let Some(spans) = self.spans.get(level) else {
            return false;
        };
        let outside = |row: u32| {
            spans.get(row as usize).is_some_and(|&(first, last)| {
                let out = |x: u32| x < first || x > last;
                out(u.0) && out(u.1)
            })
        };
        outside(v.0) && outside(v.1)
    }

    /// The same texture without what it knows of its cells and rows: every sample drawn in
    /// full, as a test's reference.
    #[cfg(test)]
    pub fn without_shortcuts(mut self) -> Texture {
        self.cells.clear();
        self.lines.clear();
        self.spans.clear();
        self
    }

    /// What cell `index` is made of ([`Cell::Mixed`] past the last).
    #[inline]
    pub fn cell_kind(&self, index: u8) -> Cell {
        self.cells
            .get(usize::from(index))
            .copied()
            .unwrap_or(Cell::Mixed)
    }

    /// The texture of a tileset whose tiles all show `tile(index)` (straight RGBA) as one color:
    /// 16 x 16 tiles of `size` pixels.
    pub fn tile_colors(
        size: usize,
        alpha: Alpha,
        tile: impl Fn(usize, usize, usize) -> [u8; 4],
    ) -> Texture {
        let side = size * 16;
        let mut rgba = Vec::with_capacity(side * side * 4);
        for y in 0..side {
            for x in 0..side {
                let index = (y / size) * 16 + x / size;
                rgba.extend_from_slice(&tile(index, x % size, y % size));
            }
        }
        Texture::from_rgba(side, side, &rgba, 16, alpha).unwrap_or(Texture::empty(alpha))
    }

    /// The size of a cell of `level` (the whole level for a picture).
    pub fn cell(&self, level: &Level) -> (usize, usize) {
        (
            (level.width / self.grid).max(1),
            (level.height / self.grid).max(1),
        )
    }

    /// The levels the game mixes where a pixel covers `rho` texels of level 0 along its longer
    /// side (OpenGL's and Vulkan's scale factor ρ): λ = log2 ρ + [`LOD_BIAS`]; at λ ≤ 0 level 0
    /// alone (the picture magnified), past the last level the last alone, else the levels
    /// ⌊λ⌋ and ⌊λ⌋ + 1, mixed by the fraction of λ (`GL_LINEAR_MIPMAP_LINEAR`).
    pub fn lod(&self, rho: f32) -> Lod {
        let last = self.levels.len().saturating_sub(1);
        let lambda = rho.log2() + LOD_BIAS;
        // Also NaN (a footprint of no size or not a number): level 0.
        if lambda.is_nan() || lambda <= 0.0 {
            return Lod::BASE;
        }
        if lambda >= last as f32 {
            return Lod {
                near: last,
                far: last,
                weight: 0,
            };
        }
        let near = lambda.floor();
        let weight = ((lambda - near) * 256.0).round() as u32;
        let near = near as usize;
        match weight {
            0 => Lod {
                near,
                far: near,
                weight: 0,
            },
            256.. => Lod {
                near: near + 1,
                far: near + 1,
                weight: 0,
            },
            weight => Lod {
                near,
                far: near + 1,
                weight,
            },
        }
    }

    /// The level whose texels are closest to, and not smaller than, `texels_per_pixel` times
    /// smaller than level 0: the one level the renderer before issue 34 sampled.
    pub fn level_for(&self, texels_per_pixel: f32) -> usize {
        let wanted = if texels_per_pixel > 1.0 {
            texels_per_pixel.log2().floor() as usize
        } else {
            0
        };
        wanted.min(self.levels.len().saturating_sub(1))
    }

    /// [`Texture::level_for`] for a tileset: at most the level of 16 x 16 texels, where each
    /// of the 256 cells is one texel.
    pub fn level_for_cells(&self, texels_per_pixel: f32) -> usize {
        let deepest = (self.levels.iter())
            .rposition(|level| level.width >= 16 && level.height >= 16)
            .unwrap_or(0);
        self.level_for(texels_per_pixel).min(deepest)
    }
}

/// The next level of a straight texture of `grid` x `grid` cells: each cell's sides halved
/// (at least 1), each texel sampled bilinearly at the middle of the texels it stands for,
/// within its cell (Vulkan's `vkCmdBlitImage` with a linear filter, as the game makes its
/// mipmaps; where a side is even that is the mean of a 2 x 2 block). `None` once every cell
/// is one texel.
/// What each cell of `grid` x `grid` is made of in all of `levels`, by index; none for a
/// picture (a grid of 1).
fn cells(levels: &[Level], grid: usize) -> Vec<Cell> {
    // Only the cells of tilesets are looked up (tile layers).
    if grid != 16 {
        return Vec::new();
    }
    (0..grid * grid)
        .into_par_iter()
        .map(|index| {
            let (cx, cy) = (index % grid, index / grid);
            // The cell's rows in every level.
            let rows = || {
                levels.iter().flat_map(move |level| {
                    let (cw, ch) = (level.width / grid, level.height / grid);
                    (cy * ch..(cy + 1) * ch).map(move |y| {
                        let start = y * level.width + cx * cw;
                        level.pixels.get(start..start + cw).unwrap_or(&[])
                    })
                })
            };
            let all = |test: &dyn Fn(&Px) -> bool| rows().all(|row| row.iter().all(test));
            let Some(&first) = rows().find_map(|row| row.first()) else {
                return Cell::Mixed;
            };
            if all(&|p| p[3] == 0) {
                Cell::Clear
            } else if all(&|p| *p == first) {
                Cell::Uniform(first)
            } else if all(&|p| p[3] == 255) {
                Cell::Opaque
            } else {
                Cell::Mixed
            }
        })
        .collect()
}

/// The see-through lines of the cells of `level`, a tileset's of `grid` x `grid` cells.
fn lines(level: &Level, grid: usize) -> Lines {
    let (cw, ch) = (level.width / grid, level.height / grid);
    let cells = grid * grid;
    let mut lines = Lines {
        width: cw,
        height: ch,
        rows: vec![true; cells * ch],
        columns: vec![true; cells * cw],
    };
    // A row of cells at a time, in parallel: its texel rows and its cells' lines are each
    // one piece of the level and of `rows` and `columns`.
    let (cw, ch) = (cw.max(1), ch.max(1));
    let texels = level.pixels.par_chunks(ch * level.width.max(1));
    let rows = lines.rows.par_chunks_mut(grid * ch);
    let columns = lines.columns.par_chunks_mut(grid * cw);
    texels
        .zip(rows)
        .zip(columns)
        .for_each(|((texels, rows), columns)| {
            for (ty, row) in texels.chunks_exact(level.width.max(1)).enumerate() {
                for (x, texel) in row.iter().enumerate() {
                    if texel[3] != 0 {
                        let (cx, tx) = (x / cw, x % cw);
                        if let Some(r) = rows.get_mut(cx * ch + ty) {
                            *r = false;
                        }
                        if let Some(c) = columns.get_mut(cx * cw + tx) {
                            *c = false;
                        }
                    }
                }
            }
        });
    lines
}

/// Each row's first and last texel of `level` that is not see-through (`(1, 0)` for a row
/// that is all see-through).
fn spans(level: &Level) -> Vec<(u32, u32)> {
    level
        .pixels
        .par_chunks(level.width.max(1))
        .map(|row| {
            let first = row.iter().position(|p| p[3] != 0);
            let last = row.iter().rposition(|p| p[3] != 0);
            match (first, last) {
                // Sides of a level are at most `i32::MAX`.
                (Some(first), Some(last)) => (first as u32, last as u32),
                _ => (1, 0),
            }
        })
        .collect()
}

fn reduce(level: &Level, grid: usize) -> Option<Level> {
    let (cw, ch) = (level.width / grid, level.height / grid);
    if (cw <= 1 && ch <= 1) || cw == 0 || ch == 0 {
        return None;
    }
    let (nw, nh) = ((cw / 2).max(1), (ch / 2).max(1));
    let (width, height) = (nw * grid, nh * grid);
    let mut pixels = vec![[0u8; 4]; width * height];
    let rows = pixels
        .par_chunks_mut(width)
        .with_min_len((16384 / width).max(1))
        .enumerate();
    if cw == 2 * nw && ch == 2 * nh {
        // Even cells: each texel samples the middle of a 2 x 2 block, weights of one half,
        // which [`reduce_sampled`] rounds to the same `(sum + 2) / 4`.
        rows.for_each(|(y, row)| {
            let above = &level.pixels[2 * y * level.width..][..2 * width];
            let below = &level.pixels[(2 * y + 1) * level.width..][..2 * width];
            let pairs = above.chunks_exact(2).zip(below.chunks_exact(2));
            for (out, (a, b)) in row.iter_mut().zip(pairs) {
                for c in 0..4 {
                    let sum = u16::from(a[0][c])
                        + u16::from(a[1][c])
                        + u16::from(b[0][c])
                        + u16::from(b[1][c]);
                    out[c] = ((sum + 2) >> 2) as u8;
                }
            }
        });
    } else {
        reduce_sampled(level, grid, width, rows);
    }
    Some(Level {
        width,
        height,
        pixels,
    })
}

/// [`reduce`] of any cells: texel `i` of `m` samples a cell of `n` at `(i + 0.5) * n / m`,
/// bilinearly, in each axis (the columns' samples worked out once for every row).
fn reduce_sampled<'a>(
    level: &Level,
    grid: usize,
    width: usize,
    rows: impl IndexedParallelIterator<Item = (usize, &'a mut [Px])>,
) {
    let (cw, ch) = (level.width / grid, level.height / grid);
    let (nw, nh) = ((cw / 2).max(1), (ch / 2).max(1));
    let along =
        |i: usize, n: usize, m: usize| axis((i as f32 + 0.5) * n as f32 / m as f32, n, false);
    let columns: Vec<_> = (0..width)
        .map(|x| {
            let (cx, ix) = (x / nw, x % nw);
            let (x0, x1, wx) = along(ix, cw, nw);
            (cx * cw + x0, cx * cw + x1, wx)
        })
        .collect();
    rows.for_each(|(y, row)| {
        let (cy, iy) = (y / nh, y % nh);
        let (y0, y1, wy) = along(iy, ch, nh);
        let ys = (cy * ch + y0, cy * ch + y1, wy);
        for (out, &xs) in row.iter_mut().zip(&columns) {
            *out = round(level.blend(xs, ys));
        }
    });
}

/// The next level as the renderer made it before issue 34: each texel the mean of a 2 x 2
/// block of premultiplied texels (an odd last row or column left out), while both sides are
/// at least 2.
fn half(level: &Level) -> Option<Level> {
    if level.width < 2 || level.height < 2 {
        return None;
    }
    let (width, height) = (level.width / 2, level.height / 2);
    let mut pixels = Vec::with_capacity(width * height);
    for y in 0..height {
        for x in 0..width {
            let mut sum = [0u32; 4];
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let p = level.at(2 * x + dx, 2 * y + dy);
                for c in 0..4 {
                    sum[c] += u32::from(p[c]);
                }
            }
            pixels.push(sum.map(|s| ((s + 2) / 4) as u8));
        }
    }
    Some(Level {
        width,
        height,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2x2: opaque red, transparent green, half-transparent white twice.
    const RGBA: [u8; 16] = [
        255, 0, 0, 255, 0, 255, 0, 0, 255, 255, 255, 128, 255, 255, 255, 128,
    ];

    #[test]
    fn straight_levels_are_the_mean_of_straight_texels() {
        let texture = Texture::from_rgba(2, 2, &RGBA, 1, Alpha::Straight).unwrap();
        assert_eq!(texture.levels[0].at(1, 0), [0, 255, 0, 0]);
        assert_eq!(texture.levels.len(), 2);
        // The game's mean of straight texels: the transparent texel's green counts.
        assert_eq!(texture.levels[1].at(0, 0), [191, 191, 128, 128]);
        assert!(Texture::from_rgba(2, 2, &RGBA[..12], 1, Alpha::Straight).is_none());
        assert!(Texture::from_rgba(0, 0, &[], 1, Alpha::Straight).is_none());
    }

    #[test]
    fn premultiplied_levels_as_before() {
        let texture = Texture::from_rgba(2, 2, &RGBA, 1, Alpha::Premultiplied).unwrap();
        assert_eq!(texture.levels[0].at(1, 0), [0, 0, 0, 0]);
        assert_eq!(texture.levels[0].at(0, 1), [128, 128, 128, 128]);
        // The mean of premultiplied texels: no green from the transparent texel.
        assert_eq!(texture.levels[1].at(0, 0), [128, 64, 64, 128]);
    }

    #[test]
    fn chains_go_down_to_a_texel_per_cell() {
        // A picture: every side halved, at least 1, to 1 x 1 (Vulkan's level count).
        let picture = Texture::from_rgba(8, 2, &[255; 64], 1, Alpha::Straight).unwrap();
        let sizes: Vec<_> = (picture.levels.iter())
            .map(|l| (l.width, l.height))
            .collect();
        assert_eq!(sizes, [(8, 2), (4, 1), (2, 1), (1, 1)]);
        // A tileset of 16 x 16 cells of 3 x 3 texels: cells of 1 texel next, each the middle
        // texel of its cell (a linear blit from 3 to 1 samples the middle).
        let tileset = Texture::tile_colors(3, Alpha::Straight, |index, x, y| {
            let v = (index + 3 * y + x) as u8;
            [v, v, v, 255]
        });
        assert_eq!(tileset.levels.len(), 2);
        assert_eq!(
            (tileset.levels[1].width, tileset.levels[1].height),
            (16, 16)
        );
        assert_eq!(tileset.levels[1].at(5, 2)[0], (2 * 16 + 5 + 4) as u8);
        // Cells of 4: 2 then 1, each cell alone (no neighbour mixed in).
        let tileset =
            Texture::tile_colors(4, Alpha::Straight, |index, _, _| [index as u8, 0, 0, 255]);
        assert_eq!(tileset.levels.len(), 3);
        for level in &tileset.levels {
            let (cw, ch) = tileset.cell(level);
            assert_eq!(level.at(7 * cw + cw - 1, 9 * ch)[0], 9 * 16 + 7);
        }
        // A premultiplied texture stops where a side is 1, as before.
        let old = Texture::from_rgba(8, 2, &[255; 64], 1, Alpha::Premultiplied).unwrap();
        assert_eq!(old.levels.len(), 2);
    }

    #[test]
    fn levels_of_detail() {
        let texture = Texture::from_rgba(8, 8, &[255; 256], 1, Alpha::Straight).unwrap();
        assert_eq!(texture.levels.len(), 4);
        // λ = log2 ρ - 0.5.
        assert_eq!(texture.lod(0.3), Lod::BASE);
        assert_eq!(texture.lod(1.4), Lod::BASE);
        let lod = texture.lod(2.0);
        assert_eq!((lod.near, lod.far, lod.weight), (0, 1, 128));
        let lod = texture.lod(2f32.powf(2.75));
        assert_eq!((lod.near, lod.far, lod.weight), (2, 3, 64));
        assert_eq!(texture.lod(2f32.powf(1.5)).far, 1);
        assert_eq!(
            texture.lod(100.0),
            Lod {
                near: 3,
                far: 3,
                weight: 0
            }
        );
        assert_eq!(texture.lod(f32::NAN), Lod::BASE);
        assert_eq!(texture.lod(f32::INFINITY).near, 3);
        assert_eq!(texture.lod(0.0), Lod::BASE);
        // The one level of before.
        assert_eq!(texture.level_for(1.9), 0);
        assert_eq!(texture.level_for(2.0), 1);
        assert_eq!(texture.level_for(100.0), 3);
        let tileset = Texture::tile_colors(4, Alpha::Premultiplied, |_, _, _| [9, 9, 9, 255]);
        assert_eq!(tileset.levels[0].width, 64);
        assert_eq!(tileset.level_for_cells(2.0), 1);
        assert_eq!(tileset.level_for_cells(100.0), 2);
    }

    /// A tileset's cells sorted by what they are made of in every level, and the see-through
    /// lines and spans found.
    #[test]
    fn cells_lines_and_spans() {
        let tileset = Texture::tile_colors(8, Alpha::Straight, |index, x, y| match index {
            1 => [10, 20, 30, 255],
            2 => [(x * 30) as u8, 0, 0, 255],
            3 => [5, 5, 5, 0],
            // See-through but for one texel: mixed, whose mean shows in every level.
            4 if (x, y) == (7, 7) => [1, 2, 3, 4],
            4 => [0; 4],
            // The top half see-through, texels of any color.
            5 if y < 4 => [x as u8, y as u8, 9, 0],
            5 => [200, 0, 0, 255],
            _ => [(x * 30) as u8, 0, 0, 128],
        });
        let kinds: Vec<Cell> = (0..7).map(|i| tileset.cell_kind(i)).collect();
        assert_eq!(
            kinds,
            [
                Cell::Mixed,
                Cell::Uniform([10, 20, 30, 255]),
                Cell::Opaque,
                Cell::Clear,
                Cell::Mixed,
                Cell::Mixed,
                Cell::Mixed
            ]
        );
        assert_eq!(tileset.cell_kind(255), Cell::Mixed);
        // Cell 5, level 0 (8 texels a side): rows 0..4 see-through, no column is; level 1
        // (4 a side): rows 0 and 1.
        assert!(tileset.clear_lines(0, 5, false, (0, 3)));
        assert!(!tileset.clear_lines(0, 5, false, (3, 4)));
        assert!(!tileset.clear_lines(0, 5, true, (0, 0)));
        assert!(tileset.clear_lines(1, 5, false, (1, 1)));
        assert!(!tileset.clear_lines(1, 5, false, (1, 2)));
        assert!(!tileset.clear_lines(0, 5, false, (8, 8)), "past the cell");
        assert!(tileset.clear_lines(0, 3, true, (0, 7)));
        // A picture: row 0 see-through, row 1 from texel 1 to 2.
        let rgba = [[9, 9, 9, 0]; 4]
            .into_iter()
            .chain([[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [0, 0, 0, 0]])
            .flatten()
            .collect::<Vec<u8>>();
        let picture = Texture::from_rgba(4, 2, &rgba, 1, Alpha::Straight).unwrap();
        assert!(picture.clear_texels(0, (0, 3, 0.5), (0, 0, 0.0)));
        assert!(picture.clear_texels(0, (3, 0, 0.5), (0, 1, 0.5)));
        assert!(!picture.clear_texels(0, (2, 3, 0.5), (0, 1, 0.5)));
        assert!(
            !picture.clear_texels(0, (0, 0, 0.0), (2, 2, 0.0)),
            "past the last row"
        );
    }

    #[test]
    fn bilinear_wraps_or_clamps() {
        // A 2x1 texture: black, white.
        let rgba = [0, 0, 0, 255, 255, 255, 255, 255];
        let level = &Texture::from_rgba(2, 1, &rgba, 1, Alpha::Straight)
            .unwrap()
            .levels[0];
        let to_px = |t: Texel| t.map(|c| (c + 0.5) as u8);
        assert_eq!(to_px(level.bilinear(0.5, 0.5, false)), [0, 0, 0, 255]);
        assert_eq!(to_px(level.bilinear(1.0, 0.5, false)), [128, 128, 128, 255]);
        assert_eq!(to_px(level.bilinear(0.0, 0.5, false)), [0, 0, 0, 255]);
        assert_eq!(to_px(level.bilinear(0.0, 0.5, true)), [128, 128, 128, 255]);
        assert_eq!(to_px(level.bilinear(-7.5, 1e30, true))[3], 255);
        // In a cell: clamped to the cell's own texels, never its neighbour's.
        let cell = |u, v, size| to_px(level.bilinear_in_cell(u, v, (0, 0), size));
        assert_eq!(cell(0.0, 0.5, (1, 1)), [0, 0, 0, 255]);
        assert_eq!(cell(1.0, 0.5, (1, 1)), [0, 0, 0, 255]);
        assert_eq!(cell(0.5, 0.5, (2, 1)), [128, 128, 128, 255]);
        assert_eq!(cell(0.9, 0.5, (2, 1)), [255; 4]);
        // Two levels mixed.
        let (black, white) = (
            level.bilinear(0.5, 0.5, false),
            level.bilinear(1.5, 0.5, false),
        );
        assert_eq!(to_px(lerp(black, white, 0.25)), [64, 64, 64, 255]);
        assert_eq!(to_px(lerp(black, white, 1.0)), [255; 4]);
    }

    #[test]
    fn even_cells_halve_as_sampling_does() {
        // Pictures and tilesets of even and odd cells, of random texels: the 2 x 2 mean that
        // even cells take must be the bilinear sample at each texel's middle, rounded alike.
        let mut state = 0x5EED_u32;
        let mut byte = || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 24) as u8
        };
        let mut halved = 0;
        for (width, height, grid) in [
            (8, 6, 1),
            (7, 6, 1),
            (8, 5, 1),
            (1, 8, 1),
            (64, 32, 16),
            (48, 96, 16),
            (16, 16, 16),
            (32, 16, 16),
            (64, 64, 1),
            (128, 48, 1),
            (256, 256, 16),
        ] {
            let pixels: Vec<Px> = (0..width * height)
                .map(|_| [byte(), byte(), byte(), byte()])
                .collect();
            let mut level = Level {
                width,
                height,
                pixels,
            };
            while let Some(next) = reduce(&level, grid) {
                let mut sampled = vec![[0u8; 4]; next.width * next.height];
                let rows = sampled.par_chunks_mut(next.width).enumerate();
                reduce_sampled(&level, grid, next.width, rows);
                assert_eq!(next.pixels, sampled, "{width}x{height} at {}", level.width);
                let (cw, ch) = (level.width / grid, level.height / grid);
                halved += usize::from(cw % 2 == 0 && ch % 2 == 0);
                level = next;
            }
        }
        assert!(halved > 10, "{halved} levels halved");
    }
}
