//! The pictures of the entities view: the entities tileset (the game's, found next to
//! `mapres`, or plain colors when there is none) and the speedup arrow.

use std::path::PathBuf;

use super::texture::Texture;
use super::RenderOptions;

/// Where DDNet keeps entities tilesets, relative to its `data/mapres` folder: the default
/// ("clear") set, then the "comfort" asset.
const NEXT_TO_MAPRES: [&str; 2] = [
    "../editor/entities_clear/ddnet.png",
    "../assets/entities/comfort/ddnet.png",
];

/// The entities tileset `options` name or imply, or plain colors and a warning saying why.
pub(super) fn tileset(options: &RenderOptions) -> (Texture, Option<String>) {
    let candidates: Vec<PathBuf> = match (&options.entities_tileset, &options.mapres) {
        (Some(path), _) => vec![path.clone()],
        (None, Some(mapres)) => NEXT_TO_MAPRES.iter().map(|p| mapres.join(p)).collect(),
        (None, None) => Vec::new(),
    };
    let explicit = options.entities_tileset.is_some();
    for path in &candidates {
        if !explicit && !path.is_file() {
            continue;
        }
        let loaded = crate::assets::read_png(path, crate::Limits::default()).and_then(|p| {
            Texture::from_rgba(p.width as usize, p.height as usize, &p.rgba)
                .ok_or_else(|| crate::Error::malformed("a picture of no pixels"))
        });
        match loaded {
            Ok(texture) => return (texture, None),
            Err(e) => {
                let why = format!(
                    "entities tileset {}: {e}; drawn in plain colors",
                    path.display()
                );
                return (plain(), Some(why));
            }
        }
    }
    let why = "no entities tileset (--entities-tileset, or DDNet's data folder around --mapres): \
               physics tiles drawn in plain colors";
    (plain(), Some(why.to_string()))
}

/// A tileset of plain squares: the main physics tiles in colors that say what they are
/// (solid gray, death red, unhookable dark, freeze blue), every other id a color of its own.
pub(super) fn plain() -> Texture {
    const CELL: usize = 16;
    Texture::tile_colors(CELL, |index, x, y| {
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
}

/// The speedup arrow in cell 1 of a tileset: white with a dark edge, pointing right (+x).
pub(super) fn arrow() -> Texture {
    const SIZE: usize = 32;
    Texture::tile_colors(SIZE, |index, x, y| {
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
pub(super) fn numbers(place: Place) -> Texture {
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
    Texture::tile_colors(CELL, |index, x, y| {
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
