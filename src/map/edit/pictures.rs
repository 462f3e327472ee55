//! The picture steps of `optimize` on RGBA8 pixels: clearing the cells of a tileset that no
//! tile uses, zeroing the color of fully transparent pixels, and dilating opaque edges into
//! transparent pixels so that filtered (mipmapped) drawing does not bleed black or stale colors
//! in. The rules are DDNet's `map_optimize` (docs/optimize.md says what they are and
//! why); the code is ours.

/// A pixel counts as opaque for dilation above this alpha (DDNet's threshold).
const DILATE_ALPHA: u8 = 10;

/// Dilation passes: the fill reaches this many pixels from opaque content.
const DILATE_PASSES: usize = 11;

/// A rectangle of pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Rect {
    pub x: usize,
    pub y: usize,
    pub w: usize,
    pub h: usize,
}

/// The 256 cells of a tileset image (16 by 16, row by row), `None` unless the sides divide
/// by 16: a tile layer draws tile `i` from cell `i`.
pub(super) fn cells(width: usize, height: usize) -> Option<Vec<Rect>> {
    if width == 0 || height == 0 || width % 16 != 0 || height % 16 != 0 {
        return None;
    }
    let (w, h) = (width / 16, height / 16);
    Some(
        (0..256)
            .map(|i| Rect {
                x: (i % 16) * w,
                y: (i / 16) * h,
                w,
                h,
            })
            .collect(),
    )
}

/// Sets every pixel of `rect` to transparent black; how many were not already.
pub(super) fn clear(rgba: &mut [u8], width: usize, rect: Rect) -> usize {
    let mut changed = 0;
    for y in rect.y..rect.y + rect.h {
        let start = (y * width + rect.x) * 4;
        if let Some(row) = rgba.get_mut(start..start + rect.w * 4) {
            changed += row.chunks_exact(4).filter(|p| *p != [0; 4]).count();
            row.fill(0);
        }
    }
    changed
}

/// Sets the color of every fully transparent pixel to black; how many changed.
pub(super) fn zero_transparent(rgba: &mut [u8]) -> usize {
    let mut changed = 0;
    for pixel in rgba.chunks_exact_mut(4) {
        if pixel[3] == 0 && pixel[..3] != [0, 0, 0] {
            pixel[..3].fill(0);
            changed += 1;
        }
    }
    changed
}

/// Dilates `rect` of the image: fully transparent pixels within [`DILATE_PASSES`] pixels of
/// opaque ones (alpha above [`DILATE_ALPHA`]) take the color of the nearest, found pass by
/// pass (up, left, right, down: the first opaque neighbor gives its color), and stay fully
/// transparent. Nothing outside `rect` is read or written, so the cells of a tileset do not
/// bleed into each other. How many pixels changed.
pub(super) fn dilate(rgba: &mut [u8], width: usize, rect: Rect) -> usize {
    let (w, h) = (rect.w, rect.h);
    if w == 0 || h == 0 {
        return 0;
    }
    let mut original = Vec::with_capacity(w * h * 4);
    for y in rect.y..rect.y + rect.h {
        let start = (y * width + rect.x) * 4;
        match rgba.get(start..start + w * 4) {
            Some(row) => original.extend_from_slice(row),
            None => return 0,
        }
    }
    // Nothing to fill, or nothing to fill from: the pixels stay as they are.
    let alphas = || original.chunks_exact(4).map(|p| p[3]);
    if !alphas().any(|a| a == 0) || !alphas().any(|a| a > DILATE_ALPHA) {
        return 0;
    }
    let mut current = original.clone();
    let mut next = vec![0u8; current.len()];
    for _ in 0..DILATE_PASSES {
        dilate_pass(&current, &mut next, w, h);
        std::mem::swap(&mut current, &mut next);
    }
    let mut changed = 0;
    for (i, (pixel, grown)) in original
        .chunks_exact(4)
        .zip(current.chunks_exact(4))
        .enumerate()
    {
        if pixel[3] != 0 || pixel[..3] == grown[..3] {
            continue;
        }
        let (x, y) = (rect.x + i % w, rect.y + i / w);
        let at = (y * width + x) * 4;
        rgba[at..at + 3].copy_from_slice(&grown[..3]);
        changed += 1;
    }
    changed
}

/// One pass: a pixel that is not opaque takes the color of its first opaque neighbor (up,
/// left, right, down; clamped at the edges) and becomes opaque for the next pass.
fn dilate_pass(from: &[u8], to: &mut [u8], w: usize, h: usize) {
    let opaque = |x: usize, y: usize| {
        let at = (y * w + x) * 4;
        (from[at + 3] > DILATE_ALPHA).then(|| &from[at..at + 3])
    };
    for y in 0..h {
        for x in 0..w {
            let at = (y * w + x) * 4;
            to[at..at + 4].copy_from_slice(&from[at..at + 4]);
            if from[at + 3] > DILATE_ALPHA {
                continue;
            }
            let neighbors = [
                (x, y.saturating_sub(1)),
                (x.saturating_sub(1), y),
                ((x + 1).min(w - 1), y),
                (x, (y + 1).min(h - 1)),
            ];
            if let Some(color) = neighbors.into_iter().find_map(|(nx, ny)| opaque(nx, ny)) {
                to[at..at + 3].copy_from_slice(color);
                to[at + 3] = 255;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(w: usize, h: usize, pixels: &[(usize, usize, [u8; 4])]) -> Vec<u8> {
        let mut rgba = vec![0u8; w * h * 4];
        for &(x, y, p) in pixels {
            rgba[(y * w + x) * 4..][..4].copy_from_slice(&p);
        }
        rgba
    }

    fn at(rgba: &[u8], w: usize, x: usize, y: usize) -> [u8; 4] {
        rgba[(y * w + x) * 4..][..4].try_into().unwrap()
    }

    #[test]
    fn cells_are_a_16_by_16_grid_of_the_image() {
        let cells = cells(1024, 512).unwrap();
        assert_eq!(cells.len(), 256);
        assert_eq!(
            cells[0],
            Rect {
                x: 0,
                y: 0,
                w: 64,
                h: 32
            }
        );
        assert_eq!(
            cells[17],
            Rect {
                x: 64,
                y: 32,
                w: 64,
                h: 32
            }
        );
        assert_eq!(
            cells[255],
            Rect {
                x: 960,
                y: 480,
                w: 64,
                h: 32
            }
        );
        assert!(super::cells(1000, 1024).is_none());
        assert!(super::cells(0, 0).is_none());
    }

    #[test]
    fn transparent_pixels_lose_their_color_and_others_keep_it() {
        let mut rgba = image(
            3,
            1,
            &[
                (0, 0, [9, 9, 9, 0]),
                (1, 0, [9, 9, 9, 1]),
                (2, 0, [0, 0, 0, 0]),
            ],
        );
        assert_eq!(zero_transparent(&mut rgba), 1);
        assert_eq!(rgba, [0, 0, 0, 0, 9, 9, 9, 1, 0, 0, 0, 0]);
    }

    #[test]
    fn dilation_spreads_the_nearest_opaque_color_and_keeps_alpha() {
        // A red pixel at the left, a green one at the right of a 30 px row: the pixels in
        // between take the nearer color up to 11 px away, and stay transparent.
        let mut rgba = image(
            30,
            1,
            &[(0, 0, [255, 0, 0, 255]), (29, 0, [0, 255, 0, 255])],
        );
        let changed = dilate(
            &mut rgba,
            30,
            Rect {
                x: 0,
                y: 0,
                w: 30,
                h: 1,
            },
        );
        assert_eq!(changed, 22);
        assert_eq!(at(&rgba, 30, 1, 0), [255, 0, 0, 0]);
        assert_eq!(at(&rgba, 30, 11, 0), [255, 0, 0, 0]);
        assert_eq!(
            at(&rgba, 30, 12, 0),
            [0, 0, 0, 0],
            "12 px away: not reached"
        );
        assert_eq!(at(&rgba, 30, 18, 0), [0, 255, 0, 0]);
        assert_eq!(at(&rgba, 30, 0, 0), [255, 0, 0, 255]);
    }

    #[test]
    fn dilation_prefers_up_then_left_then_right_then_down() {
        // The pixel at (1,1) has opaque neighbors left (blue) and down (green): left wins.
        let mut rgba = image(3, 3, &[(0, 1, [0, 0, 255, 255]), (1, 2, [0, 255, 0, 255])]);
        dilate(
            &mut rgba,
            3,
            Rect {
                x: 0,
                y: 0,
                w: 3,
                h: 3,
            },
        );
        assert_eq!(at(&rgba, 3, 1, 1), [0, 0, 255, 0]);
    }

    #[test]
    fn dilation_stays_inside_its_rectangle_and_skips_faint_pixels() {
        // Opaque at x=1 in the left half; the right half (x 2..4) is its own rectangle.
        let mut rgba = image(4, 1, &[(1, 0, [7, 7, 7, 255]), (3, 0, [5, 5, 5, 10])]);
        dilate(
            &mut rgba,
            4,
            Rect {
                x: 2,
                y: 0,
                w: 2,
                h: 1,
            },
        );
        assert_eq!(at(&rgba, 4, 2, 0), [0, 0, 0, 0], "alpha 10 is not a source");
        assert_eq!(
            at(&rgba, 4, 3, 0),
            [5, 5, 5, 10],
            "faint pixels keep their color"
        );
        dilate(
            &mut rgba,
            4,
            Rect {
                x: 0,
                y: 0,
                w: 2,
                h: 1,
            },
        );
        assert_eq!(at(&rgba, 4, 0, 0), [7, 7, 7, 0]);
    }

    #[test]
    fn clearing_a_rectangle_counts_what_was_not_clear() {
        let mut rgba = image(4, 2, &[(1, 0, [1, 2, 3, 4]), (3, 1, [1, 1, 1, 1])]);
        assert_eq!(
            clear(
                &mut rgba,
                4,
                Rect {
                    x: 0,
                    y: 0,
                    w: 2,
                    h: 2
                }
            ),
            1
        );
        assert_eq!(at(&rgba, 4, 1, 0), [0; 4]);
        assert_eq!(at(&rgba, 4, 3, 1), [1, 1, 1, 1]);
    }
}
