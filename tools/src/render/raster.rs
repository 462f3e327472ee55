//! Drawing into a band of the picture: tile grids sampled pixel by pixel, and triangles with
//! interpolated colors and texture coordinates. Textures are filtered as the game's graphics
//! card filters them (straight texels, two mipmap levels mixed), times the color, and blended
//! onto premultiplied RGBA8 pixels "over": on an opaque picture exactly the game's
//! `SRC_ALPHA, ONE_MINUS_SRC_ALPHA` (docs/format-notes.md, "Drawing a map", "Sampling and
//! blending").

use super::texture::{cell_tap, mix, premultiply, round, Alpha, Level, Lod, Px, Tap, Texture};
use super::Filtering;

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

/// The length of `(x, y)`, in f64 so that no square overflows (not `hypot`: its symbol in
/// glibc 2.35 would keep the Python wheel from the manylinux_2_34 policy).
#[inline]
fn length(x: f32, y: f32) -> f32 {
    let (x, y) = (f64::from(x), f64::from(y));
    (x * x + y * y).sqrt() as f32
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

/// A straight texel times a straight color (as [`factors`]), premultiplied by the alpha that
/// gives: what the game's blending adds of it.
#[inline(always)]
fn shade(texel: Px, factors: [u32; 4]) -> Px {
    // Each product at most 255 * 256; their product over 255 * 256 * 256, rounded.
    let alpha = u32::from(texel[3]) * factors[3];
    let channel = |c: usize| {
        let color = u64::from(u32::from(texel[c]) * factors[c]);
        ((color * u64::from(alpha) + 8_355_840) / 16_711_680) as u8
    };
    [
        channel(0),
        channel(1),
        channel(2),
        ((alpha + 128) >> 8) as u8,
    ]
}

/// A straight color in 0..=1 as multipliers scaled to 0..=256.
pub(crate) fn factors(color: [f32; 4]) -> [u32; 4] {
    color.map(|c| (c.clamp(0.0, 1.0) * 256.0 + 0.5) as u32)
}

/// A texel of a texture kept as `alpha` says, times a straight color, premultiplied.
#[inline]
fn colored(texel: Px, color: [f32; 4], alpha: Alpha) -> Px {
    match alpha {
        Alpha::Straight => shade(texel, factors(color)),
        Alpha::Premultiplied => tint(texel, tint_factors(color)),
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
    pub filtering: Filtering,
    /// Where each column of `clip` samples, worked out by the first band drawn.
    pub columns: &'a TileColumns,
}

/// The columns of a tile layer's pixels: the tile column, the position inside the tile (0..1),
/// and where samples at that position fall in the cells of the levels sampled. The same for
/// every band, so made once per layer.
#[derive(Default)]
pub(crate) struct TileColumns(std::sync::OnceLock<Vec<(usize, f32, Taps)>>);

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

/// Draws a tile layer into `band`: for each pixel, the tile under its centre (edge tiles
/// repeated outside the layer, as the game does) and the texel of that tile's cell.
pub(crate) fn draw_tiles<F: Fn(usize) -> TileLook>(band: &mut Band<'_>, draw: &TileDraw<'_, F>) {
    if draw.width == 0 || draw.height == 0 {
        return;
    }
    let alpha = draw.texture.map_or(Alpha::Straight, |t| t.alpha);
    let factors = match alpha {
        Alpha::Straight => factors(draw.color),
        Alpha::Premultiplied => tint_factors(draw.color),
    };
    if factors[3] == 0 {
        return;
    }
    let white = factors == [256; 4];
    let (ux, uy) = draw.units_per_pixel;
    // The game gives each cell a mipmap chain of its own (a 2D array texture), so cells never
    // blend into each other, and a cell's last level is one texel of its mean. A tile of `cw`
    // texels covers 32 world units: a pixel covers `cw * ux / 32` texels of level 0 across.
    let sampler = draw.texture.and_then(|texture| {
        let base = texture.levels.first()?;
        let (cw, ch) = texture.cell(base);
        let lod = match draw.filtering {
            Filtering::Game => {
                let rho = (cw as f64 * ux).max(ch as f64 * uy) / 32.0;
                texture.lod(rho as f32)
            }
            Filtering::Level0 => Lod::BASE,
            Filtering::Issue17 => {
                let level = texture.level_for_cells((base.width as f64 / 16.0 * ux / 32.0) as f32);
                Lod::single(level)
            }
        };
        let near = texture.levels.get(lod.near)?;
        let far = texture.levels.get(lod.far)?;
        Some(CellSampler {
            near: (near, texture.cell(near)),
            far: (far, texture.cell(far)),
            weight: lod.weight,
        })
    });
    let (x0, x1) = (draw.clip.x0, draw.clip.x1.min(band.width));
    let y0 = draw.clip.y0.max(band.top);
    let y1 = draw.clip.y1.min(band.top + band.height());
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    // The columns are the same for every band (x0 and x1 are the clip's and the picture's).
    let columns = draw.columns.0.get_or_init(|| {
        (x0..x1)
            .map(|px| {
                let (column, s) = tile_at(draw.origin.0, ux, px, draw.width);
                let taps = sampler.as_ref().map_or_else(Taps::default, |c| c.taps(s));
                (column, s, taps)
            })
            .collect()
    });
    for py in y0..y1 {
        let (row, t) = tile_at(draw.origin.1, uy, py, draw.height);
        let row_taps = sampler.as_ref().map_or_else(Taps::default, |c| c.taps(t));
        let line = &mut band.pixels[(py - band.top) * band.width..][..band.width];
        let row_start = row * draw.width;
        let mut last = (usize::MAX, TileLook::default());
        for (&(column, s, ref column_taps), dst) in columns.iter().zip(&mut line[x0..x1]) {
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
            let texel = match &sampler {
                Some(sampler) if look.angle == 0 => sampler.sample_at(look, column_taps, &row_taps),
                Some(sampler) => sampler.sample(look, s, t),
                None => [255; 4],
            };
            let src = match (alpha, white) {
                (Alpha::Straight, true) => premultiply(texel),
                (Alpha::Straight, false) => shade(texel, factors),
                (Alpha::Premultiplied, true) => texel,
                (Alpha::Premultiplied, false) => tint(texel, factors),
            };
            if src[3] != 0 {
                over(dst, src);
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

/// The two levels of a tileset a tile layer samples, each with its cells' size, and the weight
/// of the second (0..=256).
struct CellSampler<'t> {
    near: (&'t Level, (usize, usize)),
    far: (&'t Level, (usize, usize)),
    weight: u32,
}

impl CellSampler<'_> {
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
            0 => near,
            _ => level(self.far),
        };
        Taps([near, far])
    }

    /// [`CellSampler::sample`] of a tile not turned by an angle, from the taps of its pixel's
    /// column and row: as `sample` turns and mirrors the position, the column's and row's
    /// taps swap and mirror.
    #[inline]
    fn sample_at(&self, look: TileLook, column: &Taps, row: &Taps) -> Px {
        let flip_x = usize::from(look.flags & 1 != 0);
        let flip_y = usize::from(look.flags & 2 != 0);
        let rotate = look.flags & 8 != 0;
        let (cx, cy) = (usize::from(look.index) % 16, usize::from(look.index) / 16);
        let at = |(level, cell): (&Level, (usize, usize)), i: usize| {
            let (column, row) = (&column.0[i], &row.0[i]);
            // docs/format-notes.md, "Drawing a map": rotate takes (s, t) to (t, 1 - s), then
            // the flips mirror.
            let (u, v) = match rotate {
                false => (column[flip_x], row[2 + flip_y]),
                true => (row[flip_x], column[3 - flip_y]),
            };
            let (ox, oy) = (cx * cell.0, cy * cell.1);
            level.blend(
                (ox + u.0 as usize, ox + u.1 as usize, u.2),
                (oy + v.0 as usize, oy + v.1 as usize, v.2),
            )
        };
        match self.weight {
            0 => round(at(self.near, 0)),
            weight => mix(at(self.near, 0), at(self.far, 1), weight),
        }
    }

    /// The texel of `look`'s cell at screen position `(s, t)` inside the tile.
    #[inline]
    fn sample(&self, look: TileLook, s: f32, t: f32) -> Px {
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
            0 => round(at(self.near)),
            weight => mix(at(self.near), at(self.far), weight),
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
            Some((near, far, lod.weight))
        });
        // One color for the whole triangle (as most quads' corners have): not mixed per pixel.
        let uniform = (a.color == b.color && b.color == c.color).then_some(a.color);
        for py in rows {
            let y = py as f32 + 0.5;
            let (x0, x1) = setup.span(py);
            let line = &mut band.pixels[(py - band.top) * band.width..][..band.width];
            for (px, dst) in (x0..x1).zip(&mut line[x0..x1]) {
                let x = px as f32 + 0.5;
                let Some([w0, w1, w2]) = tests.weights(triangle, x, y) else {
                    continue;
                };
                let color = match uniform {
                    Some(color) => color,
                    None => {
                        let lerp = |i: usize| a.color[i] * w0 + b.color[i] * w1 + c.color[i] * w2;
                        [lerp(0), lerp(1), lerp(2), lerp(3)]
                    }
                };
                let texel = match sampler {
                    Some((near, far, weight)) => {
                        let u = a.uv[0] * w0 + b.uv[0] * w1 + c.uv[0] * w2;
                        let v = a.uv[1] * w0 + b.uv[1] * w1 + c.uv[1] * w2;
                        let at = |level: &Level| {
                            level.bilinear(u * level.width as f32, v * level.height as f32, true)
                        };
                        match weight {
                            0 => round(at(near)),
                            weight => mix(at(near), at(far), weight),
                        }
                    }
                    None => [255; 4],
                };
                let src = colored(texel, color, alpha);
                if src[3] != 0 {
                    over(dst, src);
                }
            }
        }
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
            };
            Triangle::new(clip, corners)
                .unwrap()
                .draw(&mut band, Some(&texture), filtering);
            assert_eq!(pixels[0], expected, "{filtering:?}");
        }
        // The color multiplies the straight texel before its alpha is used.
        assert_eq!(
            shade([255, 128, 0, 128], factors([1.0, 0.5, 1.0, 0.5])),
            [64, 16, 0, 64]
        );
        assert_eq!(
            shade([200, 100, 50, 255], [256; 4]),
            premultiply([200, 100, 50, 255])
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
        };
        Triangle::new(clip, corners)
            .unwrap()
            .draw(&mut band, None, Filtering::Game);
        let half_blue = pixels.iter().filter(|p| **p == [0, 0, 128, 128]).count();
        assert_eq!(half_blue, 10, "{pixels:?}");
    }
}
