//! A map's pictures and sounds as files: embedded images as PNG (RGBA8, whatever the stored
//! format), embedded sounds as the Opus files they are, each under a name made from the item's
//! name that is safe on any file system and unique within the map.
//!
//! ```
//! let map = twcodec::Map::parse(&twcodec::sample::datafile())?;
//! let assets = twcodec::assets::list(&map);
//! for asset in &assets {
//!     if let Some(file) = &asset.file {
//!         let bytes = twcodec::assets::encode(&map, asset)?; // PNG or Opus
//!         assert!(!bytes.is_empty());
//!         println!("{file}: {} bytes", bytes.len());
//!     } else {
//!         println!("{:?} {:?} is external", asset.kind, asset.name);
//!     }
//! }
//! # Ok::<(), twcodec::Error>(())
//! ```

use std::collections::HashSet;
use std::path::Path;

use crate::error::{Error, ErrorKind};
use crate::map::{Image, ItemRef, Map, Sound};

/// Which assets to take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Only {
    /// Images and sounds.
    #[default]
    All,
    /// Images only.
    Images,
    /// Sounds only.
    Sounds,
}

/// What an asset is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum AssetKind {
    /// An image: a PNG file.
    Image,
    /// A sound: an Opus file.
    Sound,
}

/// One image or sound of a map.
#[derive(Debug, Clone)]
pub struct Asset {
    /// Image or sound.
    pub kind: AssetKind,
    /// Its index among the map's images or sounds.
    pub index: usize,
    /// Its name in the map, when it has a readable one.
    pub name: Option<String>,
    /// The file name it is written under (`NAME.png`, `NAME.opus`): `None` for external
    /// assets, which the map names but does not hold.
    pub file: Option<String>,
}

/// The map's images and sounds, in file order, with the file names embedded ones get.
pub fn list(map: &Map) -> Vec<Asset> {
    list_only(map, Only::All)
}

/// The map's images, sounds or both, in file order, with the file names embedded ones get.
pub fn list_only(map: &Map, only: Only) -> Vec<Asset> {
    let mut taken = HashSet::new();
    let mut assets = Vec::new();
    if only != Only::Sounds {
        for (index, image) in map.images().iter().enumerate() {
            let name = image.name(map);
            let file = (!image.is_external()).then(|| {
                unique(
                    &mut taken,
                    &safe_name(name.as_deref(), "image", index),
                    "png",
                )
            });
            assets.push(Asset {
                kind: AssetKind::Image,
                index,
                name,
                file,
            });
        }
    }
    if only != Only::Images {
        for (index, sound) in map.sounds().iter().enumerate() {
            let name = sound.name(map);
            let external = sound.item().external != 0;
            let file = (!external).then(|| {
                unique(
                    &mut taken,
                    &safe_name(name.as_deref(), "sound", index),
                    "opus",
                )
            });
            assets.push(Asset {
                kind: AssetKind::Sound,
                index,
                name,
                file,
            });
        }
    }
    assets
}

/// An embedded asset's file: the image as an RGBA8 PNG, the sound's Opus data as stored. An
/// error for external assets and for data that does not load.
pub fn encode(map: &Map, asset: &Asset) -> Result<Vec<u8>, Error> {
    match asset.kind {
        AssetKind::Image => {
            let image = map
                .refs::<Image>()
                .nth(asset.index)
                .and_then(|r| map.image(r))
                .ok_or_else(|| no_such("image", asset.index))?;
            image_png(map, image)
        }
        AssetKind::Sound => {
            let sound = map
                .refs::<Sound>()
                .nth(asset.index)
                .and_then(|r: ItemRef<Sound>| map.sound(r))
                .ok_or_else(|| no_such("sound", asset.index))?;
            if sound.item().external != 0 {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    "the sound is external: the map holds only its name",
                ));
            }
            Ok(sound.data(map)?.into_owned())
        }
    }
}

/// An embedded image as a PNG file of RGBA8 pixels.
pub fn image_png(map: &Map, image: &Image) -> Result<Vec<u8>, Error> {
    let pixels = image.rgba8(map)?;
    let (width, height) = match (u32::try_from(pixels.width), u32::try_from(pixels.height)) {
        (Ok(width), Ok(height)) => (width, height),
        _ => (0, 0),
    };
    png_rgba(width, height, &pixels.bytes, None)
}

/// RGBA8 pixels as a PNG file.
fn png_rgba(
    width: u32,
    height: u32,
    rgba: &[u8],
    level: Option<u8>,
) -> Result<Vec<u8>, Error> {
    if width == 0 || height == 0 {
        return Err(Error::malformed(format!(
            "an image of {width}x{height} pixels has no PNG form"
        )));
    }
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    if let Some(level) = level {
        encoder.set_deflate_compression(png::DeflateCompression::Level(level));
        encoder.set_filter(png::Filter::Adaptive);
    }
    let png_error = |e: png::EncodingError| Error::new(ErrorKind::Io, format!("PNG: {e}"));
    let mut writer = encoder.write_header().map_err(png_error)?;
    writer.write_image_data(rgba).map_err(png_error)?;
    writer.finish().map_err(png_error)?;
    Ok(png)
}

/// Writes every embedded asset of `only` into `dir` (created when missing), each file
/// atomically; the list of all assets, external ones with no file.
pub fn extract(map: &Map, dir: &Path, only: Only) -> Result<Vec<Asset>, Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create the directory", dir, e))?;
    let assets = list_only(map, only);
    for asset in &assets {
        if let Some(file) = &asset.file {
            let bytes = encode(map, asset)?;
            crate::write::save(dir.join(file), &bytes)?;
        }
    }
    Ok(assets)
}

/// A picture read from a PNG file, as RGBA8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes, row by row.
    pub rgba: Vec<u8>,
}

impl Picture {
    /// The picture as a PNG file (RGBA8), compressed at zlib level 2 with adaptive filters: on
    /// a 2048 x 2335 render of a big map, 4x quicker than the png crate's default for a file
    /// 1.45x larger (76 ms and 3.0 MB against 300 ms and 2.1 MB).
    pub fn to_png(&self) -> Result<Vec<u8>, Error> {
        png_rgba(self.width, self.height, &self.rgba, Some(2))
    }

    /// Whether the picture can be a tileset: the editor draws tiles from a 16 x 16 grid, and
    /// warns about pictures whose sides are not multiples of 16.
    pub fn fits_tile_grid(&self) -> bool {
        self.width % 16 == 0 && self.height % 16 == 0
    }
}

/// Reads a PNG file of any color type and bit depth (gray, gray with alpha, RGB, RGBA,
/// palette; 1 to 16 bits) as RGBA8: palettes and low bit depths expanded, 16-bit samples cut
/// to their high byte, gray copied to red, green and blue, opaque alpha added where there is
/// none. Its size is bounded by `limits`' largest data item.
pub fn decode_png(bytes: &[u8], limits: crate::Limits) -> Result<Picture, Error> {
    let png_error = |e: png::DecodingError| Error::malformed(format!("PNG: {e}"));
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(png_error)?;
    let (width, height) = (reader.info().width, reader.info().height);
    let rgba_len = (width as usize)
        .checked_mul(height as usize)
        .and_then(|n| n.checked_mul(4))
        .filter(|&n| n <= limits.max_data_size())
        .ok_or_else(|| {
            Error::limit(format!(
                "a {width}x{height} picture is more than the limit of {} bytes \
                 (Limits::max_data_size)",
                limits.max_data_size()
            ))
        })?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| Error::limit(format!("a {width}x{height} picture is too large")))?;
    let mut buffer = vec![0; size];
    let frame = reader.next_frame(&mut buffer).map_err(png_error)?;
    buffer.truncate(frame.buffer_size());
    let rgba: Vec<u8> = match frame.color_type {
        png::ColorType::Rgba => buffer,
        png::ColorType::Rgb => (buffer.chunks_exact(3))
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => (buffer.chunks_exact(2))
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => buffer.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => {
            return Err(Error::malformed("PNG: a palette picture was not expanded"))
        }
    };
    if rgba.len() != rgba_len {
        return Err(Error::malformed(format!(
            "PNG: {} bytes of pixels for {width}x{height}",
            rgba.len()
        )));
    }
    Ok(Picture {
        width,
        height,
        rgba,
    })
}

/// The folder of the game's pictures named by `$TWCODEC_MAPRES`, when set.
pub fn default_mapres() -> Option<std::path::PathBuf> {
    std::env::var_os("TWCODEC_MAPRES")
        .filter(|dir| !dir.is_empty())
        .map(Into::into)
}

/// Reads the PNG file at `path` as RGBA8 (see [`decode_png`]); errors name the path.
pub fn read_png(path: &Path, limits: crate::Limits) -> Result<Picture, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::io("read", path, e))?;
    decode_png(&bytes, limits).map_err(|e| e.with_path(path))
}

fn no_such(what: &str, index: usize) -> Error {
    Error::malformed(format!("the map has no {what} #{index}"))
}

/// A file stem from an item's name: letters, digits, `-`, `_`, `.` and spaces kept, anything
/// else (path separators, control characters, reserved punctuation) as `_`, no leading dot or
/// trailing dot or space, at most 100 characters, never a name Windows reserves; `KIND_INDEX`
/// when nothing is left.
pub fn safe_name(name: Option<&str>, kind: &str, index: usize) -> String {
    let cleaned: String = name
        .unwrap_or_default()
        .chars()
        .map(|c| match c {
            c if c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ' ') => c,
            _ => '_',
        })
        .take(100)
        .collect();
    let trimmed = cleaned
        .trim_start_matches(['.', ' '])
        .trim_end_matches(['.', ' ']);
    const RESERVED: [&str; 22] = [
        "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
        "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
    ];
    let stem = trimmed.split('.').next().unwrap_or_default();
    if trimmed.is_empty() || RESERVED.iter().any(|r| r.eq_ignore_ascii_case(stem)) {
        format!("{kind}_{index}")
    } else {
        trimmed.to_string()
    }
}

/// `stem.ext`, or `stem_2.ext`, `stem_3.ext`, ... when taken (compared without case, as some
/// file systems do).
fn unique(taken: &mut HashSet<String>, stem: &str, ext: &str) -> String {
    let mut file = format!("{stem}.{ext}");
    let mut n = 2;
    while !taken.insert(file.to_lowercase()) {
        file = format!("{stem}_{n}.{ext}");
        n += 1;
    }
    file
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_safe_and_unique() {
        assert_eq!(safe_name(Some("grass_main"), "image", 0), "grass_main");
        assert_eq!(
            safe_name(Some("../../etc/passwd"), "image", 0),
            "_.._etc_passwd"
        );
        assert_eq!(
            safe_name(Some("a/b\\c:d*e?\"f<g>h|\n"), "image", 1),
            "a_b_c_d_e__f_g_h__"
        );
        assert_eq!(safe_name(Some("..."), "image", 2), "image_2");
        assert_eq!(safe_name(Some(""), "sound", 3), "sound_3");
        assert_eq!(safe_name(None, "sound", 4), "sound_4");
        assert_eq!(safe_name(Some("con"), "image", 5), "image_5");
        assert_eq!(safe_name(Some("Lpt1.txt"), "image", 6), "image_6");
        assert_eq!(safe_name(Some(" trailing. "), "image", 7), "trailing");
        assert_eq!(safe_name(Some(&"x".repeat(300)), "image", 8).len(), 100);
        let mut taken = HashSet::new();
        assert_eq!(unique(&mut taken, "a", "png"), "a.png");
        assert_eq!(unique(&mut taken, "A", "png"), "A_2.png");
        assert_eq!(unique(&mut taken, "a", "png"), "a_3.png");
        assert_eq!(unique(&mut taken, "a", "opus"), "a.opus");
    }
}
