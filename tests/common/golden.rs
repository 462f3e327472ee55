//! Golden pictures: a rendered picture compared with a committed PNG in `tests/golden/`, with a
//! small tolerance (see `tests/golden/README.md`).
//!
//! On a difference, or a missing golden, the actual picture and a picture of the differences
//! are written to `target/render-diffs/` and the test fails naming them. `TWCODEC_BLESS=1`
//! writes the actual pictures as the new goldens instead; under `CI=true` a missing golden
//! fails whatever `TWCODEC_BLESS` says, so that none is ever created unseen.

use std::path::{Path, PathBuf};

use twcodec_tools::assets::Picture;

/// Each channel of a pixel may differ by this much.
pub const CHANNEL_TOLERANCE: u8 = 2;

/// At most one pixel in this many may differ by more (rounding at the edges of triangles).
pub const OUTLIERS_PER: usize = 2000;

/// Where the goldens live.
pub fn golden_dir() -> PathBuf {
    super::common::root().join("tests/golden")
}

/// Where the actual and difference pictures of failed comparisons go.
pub fn diff_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| super::common::root().join("target"));
    target.join("render-diffs")
}

/// How two pictures of the same size differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Difference {
    /// Pixels with a channel off by more than [`CHANNEL_TOLERANCE`].
    pub pixels: usize,
    /// The largest difference of any channel.
    pub largest: u8,
}

impl Difference {
    /// Whether the difference is within the tolerance.
    pub fn is_within_tolerance(&self, total_pixels: usize) -> bool {
        self.pixels <= total_pixels / OUTLIERS_PER
    }
}

/// How `actual` differs from `expected` (same size), and a picture that shows it: each pixel
/// within the tolerance as a faded gray of the expected one, each other one in red, brighter
/// the larger the difference.
pub fn compare(expected: &Picture, actual: &Picture) -> (Difference, Picture) {
    assert_eq!(
        (expected.width, expected.height),
        (actual.width, actual.height)
    );
    let mut difference = Difference {
        pixels: 0,
        largest: 0,
    };
    let mut rgba = Vec::with_capacity(actual.rgba.len());
    for (e, a) in expected
        .rgba
        .chunks_exact(4)
        .zip(actual.rgba.chunks_exact(4))
    {
        let largest = (0..4).map(|c| e[c].abs_diff(a[c])).max().unwrap_or(0);
        difference.largest = difference.largest.max(largest);
        if largest > CHANNEL_TOLERANCE {
            difference.pixels += 1;
            rgba.extend([128 + largest / 2, 0, 0, 255]);
        } else {
            let gray = (u16::from(e[0]) + u16::from(e[1]) + u16::from(e[2])) / 3;
            let faded = (gray / 3 + 170) as u8;
            rgba.extend([faded, faded, faded, 255]);
        }
    }
    let picture = Picture {
        width: actual.width,
        height: actual.height,
        rgba,
    };
    (difference, picture)
}

/// Checks `actual` against `tests/golden/NAME.png`; see the module doc.
#[track_caller]
pub fn assert_golden(name: &str, actual: &Picture) {
    if let Err(message) = check_golden(name, actual) {
        panic!("{message}");
    }
}

/// [`assert_golden`], returning the failure message instead of panicking.
pub fn check_golden(name: &str, actual: &Picture) -> Result<(), String> {
    check_golden_file(&golden_dir().join(format!("{name}.png")), name, actual)
}

/// [`check_golden`] against the PNG at `path` (a picture kept elsewhere, such as the README's).
pub fn check_golden_file(path: &Path, name: &str, actual: &Picture) -> Result<(), String> {
    let bless = std::env::var("TWCODEC_BLESS").as_deref() == Ok("1");
    let ci = std::env::var("CI").as_deref() == Ok("true");
    let expected = match std::fs::read(path) {
        Ok(bytes) => Some(
            twcodec_tools::assets::decode_png(&bytes, twcodec::Limits::default())
                .map_err(|e| format!("golden {}: {e}", path.display()))?,
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("golden {}: {e}", path.display())),
    };
    let problem = match &expected {
        None if ci => format!(
            "golden {} is missing (CI=true: never created here)",
            path.display()
        ),
        None if bless => return write_golden(path, actual),
        None => format!("golden {} is missing", path.display()),
        Some(expected) if (expected.width, expected.height) != (actual.width, actual.height) => {
            if bless {
                return write_golden(path, actual);
            }
            // Pictures of different sizes cannot be laid over each other: the render itself.
            write_png(&diff_dir().join(format!("{name}.diff.png")), actual)?;
            format!(
                "{name}: the golden is {}x{}, the render {}x{}",
                expected.width, expected.height, actual.width, actual.height
            )
        }
        Some(expected) => {
            let (difference, diff) = compare(expected, actual);
            let total = (actual.width * actual.height) as usize;
            if bless && expected.rgba != actual.rgba {
                return write_golden(path, actual);
            }
            if difference.is_within_tolerance(total) {
                return Ok(());
            }
            write_png(&diff_dir().join(format!("{name}.diff.png")), &diff)?;
            format!(
                "{name}: {} of {total} pixels differ from the golden by more than {} \
                 (largest difference {}; at most {} may)",
                difference.pixels,
                CHANNEL_TOLERANCE,
                difference.largest,
                total / OUTLIERS_PER
            )
        }
    };
    let actual_path = diff_dir().join(format!("{name}.actual.png"));
    write_png(&actual_path, actual)?;
    if expected.is_none() {
        // The differences from nothing: the render itself.
        write_png(&diff_dir().join(format!("{name}.diff.png")), actual)?;
    }
    Err(format!(
        "{problem}\n  actual: {}\n  differences: {}\n  look at them; to accept the render as \
         the golden: TWCODEC_BLESS=1 cargo test --test render",
        actual_path.display(),
        diff_dir().join(format!("{name}.diff.png")).display()
    ))
}

fn write_golden(path: &Path, picture: &Picture) -> Result<(), String> {
    write_png(path, picture)?;
    eprintln!("blessed {}", path.display());
    Ok(())
}

fn write_png(path: &Path, picture: &Picture) -> Result<(), String> {
    let png = picture
        .to_png()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, png).map_err(|e| format!("{}: {e}", path.display()))
}
