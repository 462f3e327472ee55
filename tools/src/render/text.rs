//! Text on a picture: a line of characters from an 8 x 8 bitmap font (the `font8x8` crate, a
//! public-domain font), each font pixel drawn as `scale` x `scale` pixels, blended over a
//! straight-RGBA [`Picture`]. For legends and labels over renders (the visual diff's legend,
//! and names over tees).
//!
//! Characters the font lacks are drawn as `?`; what falls outside the picture is left out, so
//! a line costs at most the pixels it covers, whatever its length or position.
//!
//! ```
//! use twcodec_tools::assets::Picture;
//! use twcodec_tools::render::text::{draw_text, text_size};
//!
//! let mut picture = Picture { width: 64, height: 16, rgba: vec![0; 64 * 16 * 4] };
//! assert_eq!(text_size("Hi", 2), (32, 16));
//! draw_text(&mut picture, 0, 0, "Hi", [255, 255, 255, 255], 2);
//! assert!(picture.rgba.chunks(4).any(|p| p == [255, 255, 255, 255]));
//! ```

use font8x8::UnicodeFonts;

use crate::assets::Picture;

/// The side of a glyph in font pixels.
pub const GLYPH: u32 = 8;

/// The largest scale drawn (a glyph of 512 x 512 pixels); larger ones are drawn at this.
pub const MAX_SCALE: u32 = 64;

/// The 8 rows of `c`'s glyph, bit 0 the leftmost pixel; `?` for a character the font lacks.
fn glyph(c: char) -> [u8; 8] {
    let found = (font8x8::BASIC_FONTS.get(c))
        .or_else(|| font8x8::LATIN_FONTS.get(c))
        .or_else(|| font8x8::GREEK_FONTS.get(c))
        .or_else(|| font8x8::BOX_FONTS.get(c))
        .or_else(|| font8x8::BLOCK_FONTS.get(c))
        .or_else(|| font8x8::HIRAGANA_FONTS.get(c));
    match found {
        // Control characters have empty glyphs in the font: shown as `?` too.
        Some(rows) if c == ' ' || rows != [0; 8] => rows,
        _ => font8x8::BASIC_FONTS.get('?').unwrap_or([0; 8]),
    }
}

/// The size in pixels of `text` drawn at `scale` (one line; every character is one glyph
/// wide): width, height.
pub fn text_size(text: &str, scale: u32) -> (u32, u32) {
    let scale = scale.clamp(1, MAX_SCALE);
    let chars = u32::try_from(text.chars().count()).unwrap_or(u32::MAX);
    (
        chars.saturating_mul(GLYPH * scale),
        GLYPH.saturating_mul(scale),
    )
}

/// Draws `text` on one line with its top-left corner at pixel `(x, y)` (anywhere, also
/// outside the picture), in `color` (straight RGBA, blended over what is there), each font
/// pixel `scale` x `scale` pixels (1 to [`MAX_SCALE`]). Returns the width drawn, as
/// [`text_size`] gives it.
pub fn draw_text(
    picture: &mut Picture,
    x: i64,
    y: i64,
    text: &str,
    color: [u8; 4],
    scale: u32,
) -> u32 {
    let scale = scale.clamp(1, MAX_SCALE);
    let (width, height) = (i64::from(picture.width), i64::from(picture.height));
    let step = i64::from(GLYPH * scale);
    let size = text_size(text, scale);
    if y >= height || y.saturating_add(step) <= 0 {
        return size.0;
    }
    for (i, c) in text.chars().enumerate() {
        let left = x.saturating_add((i as i64).saturating_mul(step));
        if left >= width {
            break;
        }
        if left.saturating_add(step) <= 0 {
            continue;
        }
        for (row, bits) in glyph(c).iter().enumerate() {
            for column in 0..GLYPH {
                if bits >> column & 1 == 0 {
                    continue;
                }
                let px = left + i64::from(column * scale);
                let py = y + row as i64 * i64::from(scale);
                fill(picture, px, py, i64::from(scale), i64::from(scale), color);
            }
        }
    }
    size.0
}

/// Blends `color` (straight RGBA) over the pixels of the rectangle at `(x, y)` of `w` x `h`
/// pixels, clipped to the picture.
pub fn fill(picture: &mut Picture, x: i64, y: i64, w: i64, h: i64, color: [u8; 4]) {
    let (width, height) = (i64::from(picture.width), i64::from(picture.height));
    let (x0, x1) = (x.clamp(0, width), x.saturating_add(w).clamp(0, width));
    let (y0, y1) = (y.clamp(0, height), y.saturating_add(h).clamp(0, height));
    if color[3] == 0 || x0 >= x1 || y0 >= y1 {
        return;
    }
    for row in y0..y1 {
        let start = ((row * width + x0) * 4) as usize;
        let end = ((row * width + x1) * 4) as usize;
        let Some(pixels) = picture.rgba.get_mut(start..end) else {
            return;
        };
        for pixel in pixels.chunks_exact_mut(4) {
            blend(pixel, color);
        }
    }
}

/// `color` (straight RGBA) over the straight-RGBA `pixel`, rounded to the nearest.
fn blend(pixel: &mut [u8], color: [u8; 4]) {
    let a = u32::from(color[3]);
    if a == 255 {
        pixel.copy_from_slice(&color);
        return;
    }
    let below = u32::from(pixel[3]);
    // Alphas out of 255 * 255.
    let kept = below * (255 - a);
    let out = a * 255 + kept;
    if out == 0 {
        pixel.copy_from_slice(&[0; 4]);
        return;
    }
    for c in 0..3 {
        let value = u32::from(color[c]) * a * 255 + u32::from(pixel[c]) * kept;
        pixel[c] = ((value + out / 2) / out) as u8;
    }
    pixel[3] = ((out + 127) / 255) as u8;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blank(width: u32, height: u32) -> Picture {
        Picture {
            width,
            height,
            rgba: vec![0; (width * height * 4) as usize],
        }
    }

    fn lit(picture: &Picture) -> Vec<(u32, u32)> {
        (0..picture.height)
            .flat_map(|y| (0..picture.width).map(move |x| (x, y)))
            .filter(|&(x, y)| picture.rgba[((y * picture.width + x) * 4 + 3) as usize] != 0)
            .collect()
    }

    #[test]
    fn a_glyph_is_its_font_rows_scaled() {
        let mut picture = blank(16, 16);
        draw_text(&mut picture, 0, 0, "T", [9, 8, 7, 255], 2);
        let rows = font8x8::BASIC_FONTS.get('T').unwrap();
        for y in 0..16u32 {
            for x in 0..16u32 {
                let on = rows[(y / 2) as usize] >> (x / 2) & 1 == 1;
                let at = ((y * 16 + x) * 4) as usize;
                let expected = if on { [9, 8, 7, 255] } else { [0; 4] };
                assert_eq!(picture.rgba[at..at + 4], expected, "({x}, {y})");
            }
        }
    }

    #[test]
    fn text_is_clipped_and_costs_nothing_outside() {
        let mut picture = blank(10, 10);
        draw_text(&mut picture, -1_000_000, 0, &"W".repeat(1000), [255; 4], 1);
        draw_text(&mut picture, i64::MAX, i64::MAX, "W", [255; 4], MAX_SCALE);
        draw_text(&mut picture, i64::MIN, i64::MIN, "W", [255; 4], u32::MAX);
        assert!(lit(&picture).is_empty());
        draw_text(&mut picture, 6, 6, "W", [255; 4], 1);
        assert!(!lit(&picture).is_empty());
        assert!(lit(&picture).iter().all(|&(x, y)| x >= 6 && y >= 6));
    }

    #[test]
    fn unknown_characters_are_question_marks() {
        let (mut a, mut b) = (blank(8, 8), blank(8, 8));
        draw_text(&mut a, 0, 0, "\u{1F600}", [255; 4], 1);
        draw_text(&mut b, 0, 0, "?", [255; 4], 1);
        assert_eq!(a, b);
        assert_eq!(text_size("\u{1F600}x", 3), (48, 24));
    }

    #[test]
    fn colors_blend_over() {
        let mut picture = blank(1, 1);
        picture.rgba.copy_from_slice(&[0, 0, 255, 255]);
        fill(&mut picture, 0, 0, 1, 1, [255, 0, 0, 128]);
        assert_eq!(picture.rgba, [128, 0, 127, 255]);
        let mut clear = blank(1, 1);
        fill(&mut clear, 0, 0, 1, 1, [255, 0, 0, 128]);
        assert_eq!(clear.rgba, [255, 0, 0, 128]);
    }
}
