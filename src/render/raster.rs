//! Drawing into a band of the picture: tile grids sampled pixel by pixel, and triangles with
//! interpolated colors and texture coordinates. Pixels are premultiplied RGBA8 blended "over",
//! as the game's normal alpha blending does.

use super::texture::{Level, Px, Texture};

/// Rows `top..top + height` of the picture, `width` pixels each.
pub(crate) struct Band<'a> {
    pub top: usize,
    pub width: usize,
    pub pixels: &'a mut [Px],
}

impl Band<'_> {
    fn height(&self) -> usize {
        self.pixels.len() / self.width.max(1)
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

/// `src` over `dst`, both premultiplied.
#[inline]
fn over(dst: &mut Px, src: Px) {
    let keep = 255 - u32::from(src[3]);
    if keep == 0 {
        *dst = src;
        return;
    }
    for c in 0..4 {
        let blended = u32::from(src[c]) + (u32::from(dst[c]) * keep + 127) / 255;
        dst[c] = blended.min(255) as u8;
    }
}

/// A premultiplied texel times a straight color in 0..=1 (as multipliers scaled to 0..=256).
#[inline]
fn tint(texel: Px, color: [u32; 4]) -> Px {
    [
        ((u32::from(texel[0]) * color[0] + 128) >> 8) as u8,
        ((u32::from(texel[1]) * color[1] + 128) >> 8) as u8,
        ((u32::from(texel[2]) * color[2] + 128) >> 8) as u8,
        ((u32::from(texel[3]) * color[3] + 128) >> 8) as u8,
    ]
}

/// A straight color in 0..=1 as the multipliers of [`tint`] (premultiplied by its alpha).
pub(crate) fn tint_factors(color: [f32; 4]) -> [u32; 4] {
    let a = color[3].clamp(0.0, 1.0);
    let scale = |c: f32| ((c.clamp(0.0, 1.0) * a) * 256.0 + 0.5) as u32;
    [
        scale(color[0]),
        scale(color[1]),
        scale(color[2]),
        (a * 256.0 + 0.5) as u32,
    ]
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
}

/// Draws a tile layer into `band`: for each pixel, the tile under its centre (edge tiles
/// repeated outside the layer, as the game does) and the texel of that tile's cell.
pub(crate) fn draw_tiles<F: Fn(usize) -> TileLook>(band: &mut Band<'_>, draw: &TileDraw<'_, F>) {
    if draw.width == 0 || draw.height == 0 {
        return;
    }
    let factors = tint_factors(draw.color);
    if factors[3] == 0 {
        return;
    }
    let white = factors == [256; 4];
    let (ux, uy) = draw.units_per_pixel;
    // Tiles this many texels wide are sampled; the level whose cells are close to the pixels.
    let level = draw.texture.and_then(|texture| {
        let cell = texture.levels.first()?.width as f64 / 16.0;
        let pixels_per_tile = 32.0 / ux;
        texture.level_for((cell / pixels_per_tile) as f32)
    });
    let cell = level.map_or((1, 1), |l| ((l.width / 16).max(1), (l.height / 16).max(1)));
    let (x0, x1) = (draw.clip.x0, draw.clip.x1.min(band.width));
    let y0 = draw.clip.y0.max(band.top);
    let y1 = draw.clip.y1.min(band.top + band.height());
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    // Per column: the tile column and the position inside the tile (0..1).
    let columns: Vec<(usize, f32)> = (x0..x1)
        .map(|px| {
            let world = draw.origin.0 + (px as f64 + 0.5) * ux;
            let tile = world / 32.0;
            let column = (tile.floor().max(0.0) as usize).min(draw.width - 1);
            (column, (tile - tile.floor()) as f32)
        })
        .collect();
    for py in y0..y1 {
        let world = draw.origin.1 + (py as f64 + 0.5) * uy;
        let tile = world / 32.0;
        let row = (tile.floor().max(0.0) as usize).min(draw.height - 1);
        let t = (tile - tile.floor()) as f32;
        let line = &mut band.pixels[(py - band.top) * band.width..][..band.width];
        let row_start = row * draw.width;
        let mut last = (usize::MAX, TileLook::default());
        for (&(column, s), dst) in columns.iter().zip(&mut line[x0..x1]) {
            let look = if last.0 == column {
                last.1
            } else {
                let look = (draw.look)(row_start + column);
                last = (column, look);
                look
            };
            if look.index == 0 {
                continue;
            }
            let texel = match level {
                Some(level) => sample_cell(level, cell, look, s, t),
                None => [255; 4],
            };
            let texel = if white { texel } else { tint(texel, factors) };
            if texel[3] != 0 {
                over(dst, texel);
            }
        }
    }
}

/// The texel of `look`'s cell at screen position `(s, t)` inside the tile.
#[inline]
fn sample_cell(level: &Level, cell: (usize, usize), look: TileLook, s: f32, t: f32) -> Px {
    let (mut s, mut t) = (s, t);
    if look.angle != 0 {
        // Turn the sampling point against the clockwise turn of the tile, around its centre.
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
    level.bilinear_in_cell(u, v, (cx * cell.0, cy * cell.1), cell)
}

/// A corner of a triangle: picture position, straight color 0..=1, texture position 0..=1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Vertex {
    pub x: f32,
    pub y: f32,
    pub color: [f32; 4],
    pub uv: [f32; 2],
}

/// Draws a triangle into `band` within `clip`: colors and texture positions interpolated
/// linearly, the texture repeated and sampled bilinearly at the level that suits the
/// triangle's texel density.
pub(crate) fn draw_triangle(
    band: &mut Band<'_>,
    clip: Rect,
    texture: Option<&Texture>,
    [a, b, c]: [Vertex; 3],
) {
    let area = (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y);
    if area.abs() < 1e-6 || !area.is_finite() {
        return;
    }
    let min_x = a.x.min(b.x).min(c.x).floor().max(clip.x0 as f32);
    let max_x =
        a.x.max(b.x)
            .max(c.x)
            .ceil()
            .min(clip.x1.min(band.width) as f32);
    let min_y = (a.y.min(b.y).min(c.y).floor()).max(clip.y0.max(band.top) as f32);
    let max_y = (a.y.max(b.y).max(c.y).ceil()).min(clip.y1.min(band.top + band.height()) as f32);
    if min_x >= max_x || min_y >= max_y {
        return;
    }
    let level = texture.and_then(|texture| {
        let base = texture.levels.first()?;
        let (w, h) = (base.width as f32, base.height as f32);
        let uv_area =
            (b.uv[0] - a.uv[0]) * (c.uv[1] - a.uv[1]) - (c.uv[0] - a.uv[0]) * (b.uv[1] - a.uv[1]);
        let texels_per_pixel = (uv_area.abs() * w * h / area.abs()).sqrt();
        let level = texture.level_for(texels_per_pixel)?;
        Some((level, level.width as f32, level.height as f32))
    });
    // Edge functions: a pixel centre is inside when all three have the sign of the area.
    let inv = 1.0 / area;
    // A pixel centre on an edge belongs to the triangle on the edge's right, or below it when
    // it is level, so that a quad's two triangles draw their shared diagonal once (a graphics
    // card's fill rule), not twice over (which doubles a see-through quad's alpha there).
    let owns = |p: Vertex, q: Vertex, r: Vertex| {
        let (mut nx, mut ny) = (p.y - q.y, q.x - p.x);
        if nx * (r.x - p.x) + ny * (r.y - p.y) < 0.0 {
            (nx, ny) = (-nx, -ny);
        }
        nx > 0.0 || (nx == 0.0 && ny > 0.0)
    };
    let owned = [owns(b, c, a), owns(c, a, b), owns(a, b, c)];
    for py in (min_y as usize)..(max_y as usize) {
        let y = py as f32 + 0.5;
        let line = &mut band.pixels[(py - band.top) * band.width..][..band.width];
        for (px, dst) in line
            .iter_mut()
            .enumerate()
            .take(max_x as usize)
            .skip(min_x as usize)
        {
            let x = px as f32 + 0.5;
            let w0 = ((b.x - x) * (c.y - y) - (c.x - x) * (b.y - y)) * inv;
            let w1 = ((c.x - x) * (a.y - y) - (a.x - x) * (c.y - y)) * inv;
            // Each edge's own function (not 1 - w0 - w1), so that a shared edge gives exactly 0
            // in both triangles.
            let w2 = ((a.x - x) * (b.y - y) - (b.x - x) * (a.y - y)) * inv;
            if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                continue;
            }
            if (w0 == 0.0 && !owned[0]) || (w1 == 0.0 && !owned[1]) || (w2 == 0.0 && !owned[2]) {
                continue;
            }
            let mix = |i: usize| a.color[i] * w0 + b.color[i] * w1 + c.color[i] * w2;
            let color = [mix(0), mix(1), mix(2), mix(3)];
            let texel = match level {
                Some((level, w, h)) => {
                    let u = a.uv[0] * w0 + b.uv[0] * w1 + c.uv[0] * w2;
                    let v = a.uv[1] * w0 + b.uv[1] * w1 + c.uv[1] * w2;
                    level.bilinear(u * w, v * h, true)
                }
                None => [255; 4],
            };
            let src = tint(texel, tint_factors(color));
            if src[3] != 0 {
                over(dst, src);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blending_is_premultiplied_over() {
        let mut dst = [0, 0, 255, 255];
        over(&mut dst, [128, 0, 0, 128]);
        assert_eq!(dst, [128, 0, 127, 255]);
        let mut dst = [10, 20, 30, 40];
        over(&mut dst, [1, 2, 3, 255]);
        assert_eq!(dst, [1, 2, 3, 255]);
        assert_eq!(
            tint([200, 100, 50, 200], tint_factors([1.0; 4])),
            [200, 100, 50, 200]
        );
        assert_eq!(
            tint([255; 4], tint_factors([1.0, 0.5, 0.0, 0.5])),
            [128, 64, 0, 128]
        );
    }

    #[test]
    fn a_triangle_covers_half_a_square() {
        let mut pixels = vec![[0; 4]; 16];
        let mut band = Band {
            top: 0,
            width: 4,
            pixels: &mut pixels,
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
        draw_triangle(
            &mut band,
            clip,
            None,
            [vertex(0.0, 0.0), vertex(4.0, 0.0), vertex(0.0, 4.0)],
        );
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
        draw_triangle(
            &mut Band {
                top: 0,
                width: 4,
                pixels: &mut pixels,
            },
            clip,
            None,
            [blue(4.0, 0.0), blue(4.0, 4.0), blue(0.0, 4.0)],
        );
        let half_blue = pixels.iter().filter(|p| **p == [0, 0, 128, 128]).count();
        assert_eq!(half_blue, 10, "{pixels:?}");
    }
}
