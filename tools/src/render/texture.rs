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

/// Two [`Fixed`] texels mixed, `weight` (0..=256) of the second, rounded to RGBA8: the step
/// between two mipmap levels.
#[inline(always)]
pub(crate) fn mix(near: Fixed, far: Fixed, weight: u32) -> Px {
    let keep = 256 - weight;
    // At most 255 * 65536 * 256 + 2^23, within u32.
    let one = |c: usize| ((near[c] * keep + far[c] * weight + (1 << 23)) >> 24).min(255) as u8;
    [one(0), one(1), one(2), one(3)]
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

/// Where a bilinear sample at `t` (0..=1) across `n` texels of a cell falls: the two texels
/// (clamped to the cell's edge) and the weight of the second (0..=256).
pub(crate) type Tap = (u32, u32, u32);

/// The [`Tap`] of position `t` (0..=1) across a cell of `n` texels.
#[inline]
pub(crate) fn cell_tap(t: f32, n: usize) -> Tap {
    let (first, second, weight) = axis(t * n as f32, n, false);
    (first as u32, second as u32, weight)
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

    /// Bilinear sample at `(u, v)` (0..=1) of the `size` texels at `origin`, clamped to that
    /// cell's edge texels: a tile of a tileset, sampled as the game's texture arrays do.
    #[inline]
    pub fn bilinear_in_cell(
        &self,
        u: f32,
        v: f32,
        origin: (usize, usize),
        size: (usize, usize),
    ) -> Fixed {
        let (x0, x1, wx) = axis(u * size.0 as f32, size.0, false);
        let (y0, y1, wy) = axis(v * size.1 as f32, size.1, false);
        let (ox, oy) = origin;
        self.blend((ox + x0, ox + x1, wx), (oy + y0, oy + y1, wy))
    }

    /// Bilinear sample at texel coordinates `(x, y)` (texel centres at `.5`), wrapping around
    /// the level's edges when `wrap`, clamped to them otherwise.
    #[inline]
    pub fn bilinear(&self, x: f32, y: f32, wrap: bool) -> Fixed {
        let ax = axis(x, self.width, wrap);
        let ay = axis(y, self.height, wrap);
        self.blend(ax, ay)
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
}

impl Texture {
    /// A texture of no level (draws nothing).
    pub fn empty(alpha: Alpha) -> Texture {
        Texture {
            levels: Vec::new(),
            grid: 1,
            alpha,
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
        if width == 0 || height == 0 || width.checked_mul(height)?.checked_mul(4)? != rgba.len() {
            return None;
        }
        let grid = match grid {
            16 if width % 16 == 0 && height % 16 == 0 => 16,
            _ => 1,
        };
        let pixels: Vec<Px> = match alpha {
            Alpha::Straight => bytemuck::cast_slice::<u8, Px>(rgba).to_vec(),
            Alpha::Premultiplied => (rgba.par_chunks_exact(4).with_min_len(4096))
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
        Some(Texture {
            levels,
            grid,
            alpha,
        })
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
fn reduce(level: &Level, grid: usize) -> Option<Level> {
    let (cw, ch) = (level.width / grid, level.height / grid);
    if (cw <= 1 && ch <= 1) || cw == 0 || ch == 0 {
        return None;
    }
    let (nw, nh) = ((cw / 2).max(1), (ch / 2).max(1));
    let (width, height) = (nw * grid, nh * grid);
    // Along one axis: texel `i` of `m` samples at `(i + 0.5) * n / m` of the cell's `n`.
    let along =
        |i: usize, n: usize, m: usize| axis((i as f32 + 0.5) * n as f32 / m as f32, n, false);
    let mut pixels = vec![[0u8; 4]; width * height];
    pixels
        .par_chunks_mut(width)
        .with_min_len((16384 / width).max(1))
        .enumerate()
        .for_each(|(y, row)| {
            let (cy, iy) = (y / nh, y % nh);
            let (y0, y1, wy) = along(iy, ch, nh);
            let ys = (cy * ch + y0, cy * ch + y1, wy);
            for (x, out) in row.iter_mut().enumerate() {
                let (cx, ix) = (x / nw, x % nw);
                let (x0, x1, wx) = along(ix, cw, nw);
                *out = round(level.blend((cx * cw + x0, cx * cw + x1, wx), ys));
            }
        });
    Some(Level {
        width,
        height,
        pixels,
    })
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

    #[test]
    fn bilinear_wraps_or_clamps() {
        // A 2x1 texture: black, white.
        let rgba = [0, 0, 0, 255, 255, 255, 255, 255];
        let level = &Texture::from_rgba(2, 1, &rgba, 1, Alpha::Straight)
            .unwrap()
            .levels[0];
        assert_eq!(round(level.bilinear(0.5, 0.5, false)), [0, 0, 0, 255]);
        assert_eq!(round(level.bilinear(1.0, 0.5, false)), [128, 128, 128, 255]);
        assert_eq!(round(level.bilinear(0.0, 0.5, false)), [0, 0, 0, 255]);
        assert_eq!(round(level.bilinear(0.0, 0.5, true)), [128, 128, 128, 255]);
        assert_eq!(round(level.bilinear(-7.5, 1e30, true))[3], 255);
        // In a cell: clamped to the cell's own texels, never its neighbour's.
        let cell = |u, v, size| round(level.bilinear_in_cell(u, v, (0, 0), size));
        assert_eq!(cell(0.0, 0.5, (1, 1)), [0, 0, 0, 255]);
        assert_eq!(cell(1.0, 0.5, (1, 1)), [0, 0, 0, 255]);
        assert_eq!(cell(0.5, 0.5, (2, 1)), [128, 128, 128, 255]);
        assert_eq!(cell(0.9, 0.5, (2, 1)), [255; 4]);
        // Two levels mixed.
        let (black, white) = (
            level.bilinear(0.5, 0.5, false),
            level.bilinear(1.5, 0.5, false),
        );
        assert_eq!(mix(black, white, 64), [64, 64, 64, 255]);
        assert_eq!(mix(black, white, 256), [255; 4]);
    }
}
