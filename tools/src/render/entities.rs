//! The pictures of the entities view: the entities tileset (the game's, found next to
//! `mapres`, or plain colors when there is none) and the speedup arrow.

use std::sync::{Arc, OnceLock};

use super::texture::{straight, Alpha, Texture};

/// A texture made once per [`Alpha`].
pub(super) type Once = [OnceLock<Arc<Texture>>; 2];

/// The texture `once` keeps for `alpha`, made by `make` the first time. Made outside the
/// `OnceLock`: making a texture uses the rayon pool, whose thread, waiting inside an
/// initializer, could take a job that waits on the same initializer, and never return.
pub(super) fn made_once(once: &Once, alpha: Alpha, make: impl FnOnce() -> Texture) -> Arc<Texture> {
    let slot = &once[usize::from(alpha == Alpha::Premultiplied)];
    if let Some(made) = slot.get() {
        return made.clone();
    }
    let made = Arc::new(make());
    slot.get_or_init(|| made).clone()
}

/// A tileset of plain squares: the main physics tiles in colors that say what they are
/// (solid gray, death red, unhookable dark, freeze blue), every other id a color of its own.
pub(super) fn plain(alpha: Alpha) -> Arc<Texture> {
    static PLAIN: Once = [OnceLock::new(), OnceLock::new()];
    const CELL: usize = 16;
    let make = || {
        Texture::tile_colors(CELL, alpha, |index, x, y| {
            let edge = x == 0 || y == 0 || x == CELL - 1 || y == CELL - 1;
            let [r, g, b] = match index {
                1 => [110, 110, 110],
                2 => [220, 40, 40],
                3 => [45, 45, 60],
                9 | 12 => [120, 170, 255],
                _ => {
                    let hash = (index as u32).wrapping_mul(2_654_435_761);
                    [(hash >> 8) as u8, (hash >> 16) as u8, (hash >> 24) as u8]
                }
            };
            let shade = |c: u8| if edge { c / 2 } else { c };
            [
                shade(r),
                shade(g),
                shade(b),
                if index == 0 { 0 } else { 230 },
            ]
        })
    };
    made_once(&PLAIN, alpha, make)
}

/// The speedup arrow in cell 1 of a tileset: white with a dark edge, pointing right (+x).
pub(super) fn arrow(alpha: Alpha) -> Arc<Texture> {
    static ARROW: Once = [OnceLock::new(), OnceLock::new()];
    const SIZE: usize = 32;
    let make = || {
        Texture::tile_colors(SIZE, alpha, |index, x, y| {
            if index != 1 {
                return [0; 4];
            }
            let (fx, fy) = (x as f32 + 0.5, (y as f32 + 0.5 - SIZE as f32 / 2.0).abs());
            // A shaft from 4 to 20 of height 6, a head from 16 to 28 narrowing to its tip.
            let shaft = (4.0..20.0).contains(&fx) && fy < 3.0;
            let head = (16.0..28.0).contains(&fx) && fy < (28.0 - fx) * 0.9;
            let inner_shaft = (5.0..20.0).contains(&fx) && fy < 2.0;
            let inner_head = (17.0..26.5).contains(&fx) && fy < (26.5 - fx) * 0.9;
            match (inner_shaft || inner_head, shaft || head) {
                (true, _) => [255, 255, 255, 255],
                (false, true) => [30, 30, 30, 255],
                _ => [0; 4],
            }
        })
    };
    made_once(&ARROW, alpha, make)
}

/// Where a number sits in its tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Place {
    /// Large, in the middle (tele numbers).
    Center,
    /// Small, in the upper half (switch numbers, speedup speed limits).
    Top,
    /// Small, in the lower half (switch delays, speedup forces).
    Bottom,
}

/// Digits 0 to 9, 3 x 5 pixels each, one row per 3 bits (high bit left).
const DIGITS: [[u8; 5]; 10] = [
    [0b111, 0b101, 0b101, 0b101, 0b111],
    [0b010, 0b110, 0b010, 0b010, 0b111],
    [0b111, 0b001, 0b111, 0b100, 0b111],
    [0b111, 0b001, 0b111, 0b001, 0b111],
    [0b101, 0b101, 0b111, 0b001, 0b001],
    [0b111, 0b100, 0b111, 0b001, 0b111],
    [0b111, 0b100, 0b111, 0b101, 0b111],
    [0b111, 0b001, 0b001, 0b001, 0b001],
    [0b111, 0b101, 0b111, 0b101, 0b111],
    [0b111, 0b101, 0b111, 0b001, 0b111],
];

/// A tileset whose cell `n` shows the number `n` (1 to 255) in white with a dark outline, at
/// `place`, as the game's entity number overlays do.
pub(super) fn numbers(place: Place, alpha: Alpha) -> Arc<Texture> {
    static NUMBERS: [Once; 3] = [
        [OnceLock::new(), OnceLock::new()],
        [OnceLock::new(), OnceLock::new()],
        [OnceLock::new(), OnceLock::new()],
    ];
    let once = match place {
        Place::Center => &NUMBERS[0],
        Place::Top => &NUMBERS[1],
        Place::Bottom => &NUMBERS[2],
    };
    made_once(once, alpha, || number_cells(place, alpha))
}

/// The cells of [`numbers`].
fn number_cells(place: Place, alpha: Alpha) -> Texture {
    const CELL: usize = 32;
    // Each cell's mask: which pixels the digits cover.
    let masks: Vec<Vec<bool>> = (0..256)
        .map(|n| {
            let mut mask = vec![false; CELL * CELL];
            if n == 0 {
                return mask;
            }
            let text = n.to_string();
            let scale = if place == Place::Center { 2 } else { 1 };
            let (w, h) = ((4 * text.len() - 1) * scale, 5 * scale);
            let x0 = (CELL - w) / 2;
            let y0 = match place {
                Place::Center => (CELL - h) / 2,
                Place::Top => (CELL / 2 - h) / 2,
                Place::Bottom => CELL / 2 + (CELL / 2 - h) / 2,
            };
            for (i, digit) in text.bytes().enumerate() {
                let rows = DIGITS[usize::from(digit - b'0') % 10];
                for (row, bits) in rows.iter().enumerate() {
                    for column in 0..3 {
                        if bits & (0b100 >> column) == 0 {
                            continue;
                        }
                        for dy in 0..scale {
                            for dx in 0..scale {
                                let x = x0 + (i * 4 + column) * scale + dx;
                                let y = y0 + row * scale + dy;
                                mask[y * CELL + x] = true;
                            }
                        }
                    }
                }
            }
            mask
        })
        .collect();
    Texture::tile_colors(CELL, alpha, |index, x, y| {
        let mask = &masks[index];
        let at = |x: usize, y: usize| mask[y * CELL + x];
        if at(x, y) {
            return [255, 255, 255, 255];
        }
        let near = (y.saturating_sub(1)..(y + 2).min(CELL))
            .any(|ny| (x.saturating_sub(1)..(x + 2).min(CELL)).any(|nx| at(nx, ny)));
        if near {
            [20, 20, 20, 255]
        } else {
            [0; 4]
        }
    })
}

/// The tune zone colors: cell `n` (1 to 255) is the entities tileset's tune tile (id 68) in
/// gray, colored with the `n`-th hue of the golden angle at saturation 0.75, keeping its
/// lightness, as the game colors tune zones (docs/format-notes.md, "Drawing a map").
pub(super) fn tunes(tileset: &Texture) -> Texture {
    const TUNE: usize = 68;
    // The level whose cells are at most 32 texels: enough for an entities view.
    let Some(level) = (tileset.levels.iter()).find(|l| l.width / 16 <= 32) else {
        return Texture::empty(tileset.alpha);
    };
    let (cw, ch) = ((level.width / 16).max(1), (level.height / 16).max(1));
    let (ox, oy) = ((TUNE % 16) * cw, (TUNE / 16) * ch);
    let size = cw.max(ch);
    Texture::tile_colors(size, tileset.alpha, |index, x, y| {
        if index == 0 || x >= cw || y >= ch {
            return [0; 4];
        }
        let texel = level.at(ox + x, oy + y);
        let [r, g, b, a] = match tileset.alpha {
            Alpha::Straight => texel,
            Alpha::Premultiplied => straight(texel),
        };
        if a == 0 {
            return [0; 4];
        }
        // Gray lightness.
        let gray = (u32::from(r) + u32::from(g) + u32::from(b)) as f32 / 3.0 / 255.0;
        let hue = ((index - 1) as f32 * 137.507_76 / 360.0).fract();
        let [r, g, b] = hsl(hue, 0.75, gray.min(1.0));
        [r, g, b, a]
    })
}

/// HSL (each 0..=1) to RGB.
fn hsl(h: f32, s: f32, l: f32) -> [u8; 3] {
    let q = if l < 0.5 {
        l * (1.0 + s)
    } else {
        l + s - l * s
    };
    let p = 2.0 * l - q;
    let channel = |t: f32| {
        let t = t.rem_euclid(1.0);
        let v = if t < 1.0 / 6.0 {
            p + (q - p) * 6.0 * t
        } else if t < 0.5 {
            q
        } else if t < 2.0 / 3.0 {
            p + (q - p) * (2.0 / 3.0 - t) * 6.0
        } else {
            p
        };
        (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
    };
    [channel(h + 1.0 / 3.0), channel(h), channel(h - 1.0 / 3.0)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hsl_primaries() {
        assert_eq!(hsl(0.0, 1.0, 0.5), [255, 0, 0]);
        assert_eq!(hsl(1.0 / 3.0, 1.0, 0.5), [0, 255, 0]);
        assert_eq!(hsl(2.0 / 3.0, 1.0, 0.5), [0, 0, 255]);
        assert_eq!(hsl(0.5, 0.0, 0.25), [64, 64, 64]);
    }
}
