//! Textures: a picture as premultiplied RGBA8 with a chain of half-size levels (mipmaps), the
//! way the game's graphics card samples a picture drawn smaller than it is.

/// A premultiplied RGBA8 pixel.
pub(crate) type Px = [u8; 4];

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

    /// Bilinear sample at `(u, v)` (0..=1) of the `size` texels at `origin`, clamped to that
    /// cell's edge texels: a tile of a tileset, sampled as the game's texture arrays do.
    #[inline]
    pub fn bilinear_in_cell(
        &self,
        u: f32,
        v: f32,
        origin: (usize, usize),
        size: (usize, usize),
    ) -> Px {
        let axis = |t: f32, n: usize| {
            let x = (t * n as f32 - 0.5).clamp(0.0, (n - 1) as f32);
            let first = x as usize;
            let weight = ((x - first as f32) * 256.0) as u32;
            (first, (first + 1).min(n - 1), weight)
        };
        let (x0, x1, wx) = axis(u, size.0);
        let (y0, y1, wy) = axis(v, size.1);
        let (ox, oy) = origin;
        let p00 = self.at(ox + x0, oy + y0);
        let p10 = self.at(ox + x1, oy + y0);
        let p01 = self.at(ox + x0, oy + y1);
        let p11 = self.at(ox + x1, oy + y1);
        let mut out = [0; 4];
        for c in 0..4 {
            let top = u32::from(p00[c]) * (256 - wx) + u32::from(p10[c]) * wx;
            let bottom = u32::from(p01[c]) * (256 - wx) + u32::from(p11[c]) * wx;
            out[c] = ((top * (256 - wy) + bottom * wy + (1 << 15)) >> 16) as u8;
        }
        out
    }

    /// Bilinear sample at texel coordinates `(x, y)` (texel centres at `.5`), wrapping around
    /// the level's edges when `wrap`, clamped to them otherwise.
    pub fn bilinear(&self, x: f32, y: f32, wrap: bool) -> Px {
        let (w, h) = (self.width as i64, self.height as i64);
        let (fx, fy) = (x - 0.5, y - 0.5);
        let (x0, y0) = (fx.floor(), fy.floor());
        let (ax, ay) = (fx - x0, fy - y0);
        let index = |v: i64, n: i64| {
            if wrap {
                v.rem_euclid(n) as usize
            } else {
                v.clamp(0, n - 1) as usize
            }
        };
        let (x0, y0) = (x0 as i64, y0 as i64);
        let (xa, xb) = (index(x0, w), index(x0 + 1, w));
        let (ya, yb) = (index(y0, h), index(y0 + 1, h));
        let (p00, p10, p01, p11) = (
            self.at(xa, ya),
            self.at(xb, ya),
            self.at(xa, yb),
            self.at(xb, yb),
        );
        let mut out = [0; 4];
        for c in 0..4 {
            let top = f32::from(p00[c]) + (f32::from(p10[c]) - f32::from(p00[c])) * ax;
            let bottom = f32::from(p01[c]) + (f32::from(p11[c]) - f32::from(p01[c])) * ax;
            out[c] = (top + (bottom - top) * ay + 0.5) as u8;
        }
        out
    }
}

/// A picture with its mipmaps; level 0 is the picture itself.
#[derive(Debug)]
pub(crate) struct Texture {
    pub levels: Vec<Level>,
}

impl Texture {
    /// A texture from straight (not premultiplied) RGBA8 pixels; `None` when the sizes do not
    /// match the bytes or are 0.
    pub fn from_rgba(width: usize, height: usize, rgba: &[u8]) -> Option<Texture> {
        if width == 0 || height == 0 || width.checked_mul(height)?.checked_mul(4)? != rgba.len() {
            return None;
        }
        let pixels = (rgba.chunks_exact(4))
            .map(|p| premultiply([p[0], p[1], p[2], p[3]]))
            .collect();
        let mut levels = vec![Level {
            width,
            height,
            pixels,
        }];
        while let Some(next) = levels.last().and_then(half) {
            levels.push(next);
        }
        Some(Texture { levels })
    }

    /// The texture of a tileset whose tiles all show `tile(index)` (straight RGBA) as one color:
    /// 16 x 16 tiles of `size` pixels.
    pub fn tile_colors(size: usize, tile: impl Fn(usize, usize, usize) -> [u8; 4]) -> Texture {
        let side = size * 16;
        let mut rgba = Vec::with_capacity(side * side * 4);
        for y in 0..side {
            for x in 0..side {
                let index = (y / size) * 16 + x / size;
                rgba.extend_from_slice(&tile(index, x % size, y % size));
            }
        }
        Texture::from_rgba(side, side, &rgba).unwrap_or(Texture { levels: Vec::new() })
    }

    /// The level whose texels are closest to, and not smaller than, `texels_per_pixel` times
    /// smaller than level 0: the level to sample when one pixel covers that many texels.
    pub fn level_for(&self, texels_per_pixel: f32) -> Option<&Level> {
        let wanted = if texels_per_pixel > 1.0 {
            texels_per_pixel.log2().floor() as usize
        } else {
            0
        };
        self.levels
            .get(wanted.min(self.levels.len().saturating_sub(1)))
    }
}

impl Texture {
    /// [`Texture::level_for`] for a tileset: at most the level of 16 x 16 texels, where each
    /// of the 256 cells is one texel.
    pub fn level_for_cells(&self, texels_per_pixel: f32) -> Option<&Level> {
        let deepest = (self.levels.iter())
            .rposition(|level| level.width >= 16 && level.height >= 16)
            .unwrap_or(0);
        let level = self.level_for(texels_per_pixel)?;
        match self.levels.get(deepest) {
            Some(cells) if level.width < cells.width || level.height < cells.height => Some(cells),
            _ => Some(level),
        }
    }
}

/// The next mipmap level: each texel the mean of a 2 x 2 block (the odd last row or column
/// folded into the block before it), while both sides are at least 2.
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

    #[test]
    fn premultiplies_and_halves() {
        // 2x2: opaque red, transparent green (its color is dropped), half-transparent white x2.
        let rgba = [
            255, 0, 0, 255, 0, 255, 0, 0, 255, 255, 255, 128, 255, 255, 255, 128,
        ];
        let texture = Texture::from_rgba(2, 2, &rgba).unwrap();
        assert_eq!(texture.levels[0].at(1, 0), [0, 0, 0, 0]);
        assert_eq!(texture.levels[0].at(0, 1), [128, 128, 128, 128]);
        assert_eq!(texture.levels.len(), 2);
        // The mean of premultiplied texels: no green from the transparent texel.
        assert_eq!(texture.levels[1].at(0, 0), [128, 64, 64, 128]);
        assert!(Texture::from_rgba(2, 2, &rgba[..12]).is_none());
        assert!(Texture::from_rgba(0, 0, &[]).is_none());
    }

    #[test]
    fn levels_by_density() {
        let texture = Texture::from_rgba(8, 8, &[255; 256]).unwrap();
        assert_eq!(texture.levels.len(), 4);
        assert_eq!(texture.level_for(0.3).unwrap().width, 8);
        assert_eq!(texture.level_for(1.9).unwrap().width, 8);
        assert_eq!(texture.level_for(2.0).unwrap().width, 4);
        assert_eq!(texture.level_for(100.0).unwrap().width, 1);
        // A tileset goes no deeper than a texel per cell.
        let tileset = Texture::tile_colors(4, |_, _, _| [9, 9, 9, 255]);
        assert_eq!(tileset.levels[0].width, 64);
        assert_eq!(tileset.level_for_cells(2.0).unwrap().width, 32);
        assert_eq!(tileset.level_for_cells(100.0).unwrap().width, 16);
    }

    #[test]
    fn bilinear_wraps_or_clamps() {
        // A 2x1 texture: black, white.
        let rgba = [0, 0, 0, 255, 255, 255, 255, 255];
        let level = &Texture::from_rgba(2, 1, &rgba).unwrap().levels[0];
        assert_eq!(level.bilinear(0.5, 0.5, false), [0, 0, 0, 255]);
        assert_eq!(level.bilinear(1.0, 0.5, false), [128, 128, 128, 255]);
        assert_eq!(level.bilinear(0.0, 0.5, false), [0, 0, 0, 255]);
        assert_eq!(level.bilinear(0.0, 0.5, true), [128, 128, 128, 255]);
        // In a cell: clamped to the cell's own texels, never its neighbour's.
        assert_eq!(
            level.bilinear_in_cell(0.0, 0.5, (0, 0), (1, 1)),
            [0, 0, 0, 255]
        );
        assert_eq!(
            level.bilinear_in_cell(1.0, 0.5, (0, 0), (1, 1)),
            [0, 0, 0, 255]
        );
        assert_eq!(
            level.bilinear_in_cell(0.5, 0.5, (0, 0), (2, 1)),
            [128, 128, 128, 255]
        );
        assert_eq!(level.bilinear_in_cell(0.9, 0.5, (0, 0), (2, 1)), [255; 4]);
    }
}
