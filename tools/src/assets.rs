//! A map's pictures and sounds as files: embedded images as PNG (RGBA8, whatever the stored
//! format), embedded sounds as the Opus files they are, each under a name made from the item's
//! name that is safe on any file system and unique within the map.
//!
//! And the other way: PNGs of any color type read as RGBA8 ([`read_png`]) to add or replace an
//! image ([`Map::add_embedded_image`], [`replace_image`] by name), external images embedded
//! from a folder of the game's pictures ([`embed`], [`convert_embedding`] for Teeworlds 0.7,
//! [`default_mapres`]), Ogg Opus files checked ([`check_opus`], [`read_opus`]) to add or
//! replace a sound ([`Map::add_sound`], [`Map::replace_sound`], [`find_sound`]).
//!
//! ```
//! let map = twcodec::Map::parse(&twcodec_testkit::sample::datafile())?;
//! let assets = twcodec_tools::assets::list(&map);
//! for asset in &assets {
//!     if let Some(file) = &asset.file {
//!         let bytes = twcodec_tools::assets::encode(&map, asset)?; // PNG or Opus
//!         assert!(!bytes.is_empty());
//!         println!("{file}: {} bytes", bytes.len());
//!     } else {
//!         println!("{:?} {:?} is external", asset.kind, asset.name);
//!     }
//! }
//! # Ok::<(), twcodec::Error>(())
//! ```

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use twcodec::map::convert::{list_layers, not_a_tileset, tile_layers_drawn_with};
use twcodec::map::{Conversion, DataItem, Image, ItemRef, Map, MapForm, Sound};
use twcodec::sniff::FileKind;
use twcodec::{Error, ErrorKind};

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
                .and_then(|r| map.get(r))
                .ok_or_else(|| no_such("image", asset.index))?;
            image_png(map, image)
        }
        AssetKind::Sound => {
            let sound = map
                .refs::<Sound>()
                .nth(asset.index)
                .and_then(|r: ItemRef<Sound>| map.get(r))
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
    encode_png(width, height, &pixels.bytes, png::ColorType::Rgba, None)
}

/// RGBA8 pixels as a PNG file.
/// 8-bit pixels of `color` (RGBA or RGB) as a PNG file, at zlib `level` with adaptive
/// filters, or at the png crate's default.
pub(crate) fn encode_png(
    width: u32,
    height: u32,
    pixels: &[u8],
    color: png::ColorType,
    level: Option<u8>,
) -> Result<Vec<u8>, Error> {
    if width == 0 || height == 0 {
        return Err(Error::malformed(format!(
            "an image of {width}x{height} pixels has no PNG form"
        )));
    }
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width, height);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    if let Some(level) = level {
        encoder.set_deflate_compression(png::DeflateCompression::Level(level));
        encoder.set_filter(png::Filter::Adaptive);
    }
    let png_error = |e: png::EncodingError| Error::new(ErrorKind::Io, format!("PNG: {e}"));
    let mut writer = encoder.write_header().map_err(png_error)?;
    writer.write_image_data(pixels).map_err(png_error)?;
    writer.finish().map_err(png_error)?;
    Ok(png)
}

/// Writes every embedded asset of `only` into `dir` (created when missing), each file
/// atomically; the list of all assets, external ones with no file.
///
/// The files' names come from the map: a symbolic link in `dir` where one of them goes is an
/// error, checked for every file before any is written ([`check_output`](twcodec::fs::check_output)).
pub fn extract(map: &Map, dir: &Path, only: Only) -> Result<Vec<Asset>, Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create the directory", dir, e))?;
    let assets = list_only(map, only);
    for file in assets.iter().filter_map(|a| a.file.as_ref()) {
        twcodec::fs::check_output(dir, &dir.join(file))?;
    }
    for asset in &assets {
        if let Some(file) = &asset.file {
            let bytes = encode(map, asset)?;
            twcodec::fs::save(dir.join(file), &bytes)?;
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
    /// The picture as a PNG file (RGBA8), compressed at zlib level 2 with adaptive filters
    /// (each row the filter whose bytes add up least), in pieces of rows (about 256 KiB of
    /// them, a multiple of 16 rows) compressed in parallel on the current rayon pool: each
    /// piece a deflate stream
    /// of its own ended by a sync flush, so that they join into one zlib stream (as `pigz`
    /// does), the Adler-32 checksums of the pieces combined. A piece's first row is filtered
    /// without the row above (no filter, or `Sub`), so that a piece needs no other piece's
    /// rows: the renderer encodes each piece as soon as its rows are drawn
    /// ([`render_png`](crate::render::render_png)), and makes these same bytes. The bytes
    /// are the same on any number of threads. On a 2048 x 2335 render of a big map, level 2
    /// is 4x quicker than the png crate's default for a file 1.45x larger; pieces that start
    /// without the window of the one before cost little (zlib at level 2 on that render's
    /// filtered rows: 444 bytes more in 2.86 MB).
    pub fn to_png(&self) -> Result<Vec<u8>, Error> {
        use rayon::prelude::*;
        let row = (self.width as usize).saturating_mul(4);
        let rows = self.height as usize;
        if self.width == 0 || self.height == 0 || Some(self.rgba.len()) != row.checked_mul(rows) {
            return Err(Error::malformed(format!(
                "a picture of {}x{} pixels and {} bytes has no PNG form",
                self.width,
                self.height,
                self.rgba.len()
            )));
        }
        let per_piece = png_piece_rows(self.width);
        let pieces = (self.rgba.par_chunks(row * per_piece).enumerate())
            .map_init(PngScratch::default, |scratch, (i, rows)| {
                let last = (i + 1) * per_piece >= self.height as usize;
                png_piece(rows, row, i == 0, last, scratch)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        png_file(self.width, self.height, pieces)
    }

    /// Whether the picture can be a tileset: the editor draws tiles from a 16 x 16 grid, and
    /// warns about pictures whose sides are not multiples of 16.
    pub fn fits_tile_grid(&self) -> bool {
        self.width % 16 == 0 && self.height % 16 == 0
    }
}

/// Bytes of filtered rows compressed as one piece by [`Picture::to_png`], about.
const PNG_PIECE: usize = 256 * 1024;

/// The rows of a piece of [`Picture::to_png`] are a multiple of these: the renderer's bands,
/// so that it encodes whole pieces from the bands it draws.
pub(crate) const PNG_PIECE_ROW_STEP: usize = 16;

/// The rows of each piece of a PNG of pictures `width` pixels wide that [`Picture::to_png`]
/// compresses on its own (the last piece may have fewer): about [`PNG_PIECE`] bytes of
/// filtered rows, a multiple of [`PNG_PIECE_ROW_STEP`].
pub(crate) fn png_piece_rows(width: u32) -> usize {
    let row = (width as usize).saturating_mul(4).saturating_add(1);
    let steps = PNG_PIECE / row.saturating_mul(PNG_PIECE_ROW_STEP);
    steps.max(1) * PNG_PIECE_ROW_STEP
}

/// One piece of a PNG's zlib stream ([`png_piece`]).
#[derive(Debug)]
pub(crate) struct PngPiece {
    /// The raw deflate stream of the piece's filtered rows.
    deflated: Vec<u8>,
    /// The Adler-32 of the filtered rows, and their length.
    adler: u32,
    len: usize,
}

/// Room [`png_piece`] uses again from piece to piece.
#[derive(Debug, Default)]
pub(crate) struct PngScratch {
    filtered: Vec<u8>,
    row: Vec<u8>,
}

/// The piece of a PNG of RGBA8 rows `rows` (`row` bytes each; a piece of [`png_piece_rows`]
/// rows but the last), filtered and compressed: the first row of the picture when `first`,
/// its last rows when `last`.
pub(crate) fn png_piece(
    rows: &[u8],
    row: usize,
    first: bool,
    last: bool,
    scratch: &mut PngScratch,
) -> Result<PngPiece, Error> {
    let PngScratch {
        filtered,
        row: line,
    } = scratch;
    filtered.clear();
    filtered.reserve(rows.len() + rows.len() / row.max(1));
    line.clear();
    line.resize(row, 0);
    let mut above: Option<&[u8]> = None;
    for (y, this) in rows.chunks_exact(row.max(1)).enumerate() {
        // The picture's first row filters against zeros, as PNG has it; the first row of any
        // other piece with no row at all (no filter, or `Sub`).
        let kinds = match (y, first) {
            (0, false) => 1,
            _ => 4,
        };
        filter_row(this, above, kinds, filtered, line);
        above = Some(this);
    }
    Ok(PngPiece {
        adler: zlib_rs::adler32::adler32(1, filtered),
        len: filtered.len(),
        deflated: deflate_piece(filtered, last)?,
    })
}

/// A PNG file of RGBA8 pixels from the pieces of its zlib stream ([`png_piece`]), in order.
pub(crate) fn png_file(width: u32, height: u32, pieces: Vec<PngPiece>) -> Result<Vec<u8>, Error> {
    let png_error = |e: png::EncodingError| Error::new(ErrorKind::Io, format!("PNG: {e}"));
    // The signature, header and end (57 bytes), and 12 bytes around each chunk.
    let size = (pieces.iter()).fold(128, |size, piece| size + piece.deflated.len() + 12);
    let mut png = Vec::with_capacity(size);
    let mut encoder = png::Encoder::new(&mut png, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(png_error)?;
    // The zlib header: deflate with a 32 KiB window, "fast" level, its check bits.
    writer
        .write_chunk(png::chunk::IDAT, &[0x78, 0x5e])
        .map_err(png_error)?;
    let mut adler = 1u32;
    for piece in pieces {
        adler = zlib_rs::adler32::adler32_combine(adler, piece.adler, piece.len as u64);
        writer
            .write_chunk(png::chunk::IDAT, &piece.deflated)
            .map_err(png_error)?;
    }
    writer
        .write_chunk(png::chunk::IDAT, &adler.to_be_bytes())
        .map_err(png_error)?;
    writer.finish().map_err(png_error)?;
    Ok(png)
}

/// `data` as raw deflate at level 2, ended by a sync flush (byte-aligned, not final: another
/// piece may follow) or, when `last`, by the final block.
fn deflate_piece(data: &[u8], last: bool) -> Result<Vec<u8>, Error> {
    use flate2::{Compress, Compression, FlushCompress, Status};
    let mut compress = Compress::new(Compression::new(2), false);
    let mut out = Vec::with_capacity(data.len() / 2 + 1024);
    let flush = match last {
        true => FlushCompress::Finish,
        false => FlushCompress::Sync,
    };
    loop {
        if out.capacity() - out.len() < 1024 {
            out.reserve(out.capacity().max(4096));
        }
        let consumed = compress.total_in() as usize;
        let status = compress
            .compress_vec(&data[consumed.min(data.len())..], &mut out, flush)
            .map_err(|e| Error::new(ErrorKind::Io, format!("PNG: deflate: {e}")))?;
        let all_in = compress.total_in() as usize >= data.len();
        let done = match status {
            Status::StreamEnd => true,
            // A sync flush is done when everything went in and the output was not filled.
            _ => !last && all_in && out.len() < out.capacity(),
        };
        if done {
            // The room reserved is for data that compresses badly: the pieces of a picture
            // are kept until the file is put together.
            out.shrink_to_fit();
            return Ok(out);
        }
    }
}

/// Appends PNG row `line` (RGBA8) filtered as the PNG adaptive heuristic chooses: of the five
/// filters, the one whose bytes, read as signed, add up to the least in absolute value; of
/// the filters up to `kinds` (1: none or `Sub`, 4: all five). `above` is the row before
/// (none for the first); `scratch` a row's room.
fn filter_row(line: &[u8], above: Option<&[u8]>, kinds: u8, out: &mut Vec<u8>, scratch: &mut [u8]) {
    let cost = |bytes: &[u8]| -> u64 {
        bytes
            .iter()
            .map(|&v| u64::from((v as i8).unsigned_abs()))
            .sum()
    };
    let mut best = (cost(line), 0u8);
    for kind in 1..=kinds.min(4) {
        filter(kind, line, above, scratch);
        let total = cost(scratch);
        if total < best.0 {
            best = (total, kind);
        }
    }
    out.push(best.1);
    if best.1 == 0 {
        out.extend_from_slice(line);
    } else {
        filter(best.1, line, above, scratch);
        out.extend_from_slice(scratch);
    }
}

/// PNG filter `kind` (1 sub, 2 up, 3 average, 4 Paeth) of RGBA8 row `line` into `to`, with
/// `above` the row before (none: zeros).
fn filter(kind: u8, line: &[u8], above: Option<&[u8]>, to: &mut [u8]) {
    const BPP: usize = 4;
    let n = line.len().min(to.len());
    let (line, to) = (&line[..n], &mut to[..n]);
    let left = BPP.min(n);
    // The first pixel has no left neighbour (0); a first row none above (0).
    match (kind, above) {
        (1, _) | (4, None) => {
            to[..left].copy_from_slice(&line[..left]);
            for ((t, &x), &a) in to[left..].iter_mut().zip(&line[left..]).zip(line) {
                *t = x.wrapping_sub(a);
            }
        }
        (2, None) => to.copy_from_slice(line),
        (2, Some(above)) => {
            for ((t, &x), &b) in to.iter_mut().zip(line).zip(above) {
                *t = x.wrapping_sub(b);
            }
        }
        (3, above) => {
            let b = |i: usize| above.map_or(0, |above| above[i]);
            for i in 0..left {
                to[i] = line[i].wrapping_sub(b(i) / 2);
            }
            match above {
                Some(above) => {
                    let rest = to[left..].iter_mut().zip(&line[left..]);
                    for (((t, &x), &a), &b) in rest.zip(line).zip(&above[left..]) {
                        *t = x.wrapping_sub(((u16::from(a) + u16::from(b)) / 2) as u8);
                    }
                }
                None => {
                    for ((t, &x), &a) in to[left..].iter_mut().zip(&line[left..]).zip(line) {
                        *t = x.wrapping_sub(a / 2);
                    }
                }
            }
        }
        (4, Some(above)) => {
            // Paeth of no left neighbour is the byte above.
            for i in 0..left {
                to[i] = line[i].wrapping_sub(above[i]);
            }
            let rest = to[left..].iter_mut().zip(&line[left..]);
            for ((((t, &x), &a), &b), &c) in rest.zip(line).zip(&above[left..]).zip(above) {
                let (a, b, c) = (i16::from(a), i16::from(b), i16::from(c));
                let (pa, pb, pc) = ((b - c).abs(), (a - c).abs(), (a + b - 2 * c).abs());
                let predictor = if pa <= pb && pa <= pc {
                    a
                } else if pb <= pc {
                    b
                } else {
                    c
                };
                *t = x.wrapping_sub(predictor as u8);
            }
        }
        _ => to.copy_from_slice(line),
    }
}

/// Reads a PNG file of any color type and bit depth (gray, gray with alpha, RGB, RGBA,
/// palette; 1 to 16 bits) as RGBA8: palettes and low bit depths expanded, 16-bit samples cut
/// to their high byte, gray copied to red, green and blue, opaque alpha added where there is
/// none. Its size is bounded by `limits`' largest data item.
pub fn decode_png(bytes: &[u8], limits: twcodec::Limits) -> Result<Picture, Error> {
    decode_png_as(bytes, limits, false)
}

/// The pixels of a PNG as a map stores them: RGB pictures as RGB (3 bytes a pixel),
/// anything else as RGBA8.
pub(crate) fn decode_png_stored(bytes: &[u8], limits: twcodec::Limits) -> Result<Vec<u8>, Error> {
    decode_png_as(bytes, limits, true).map(|picture| picture.rgba)
}

/// [`decode_png`]; with `keep_rgb`, RGB pictures keep 3 bytes a pixel in `Picture::rgba`.
fn decode_png_as(bytes: &[u8], limits: twcodec::Limits, keep_rgb: bool) -> Result<Picture, Error> {
    FileKind::check(bytes, FileKind::Png, "a PNG picture")?;
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
    if keep_rgb && frame.color_type == png::ColorType::Rgb {
        let rgb_len = rgba_len / 4 * 3;
        if buffer.len() != rgb_len {
            return Err(Error::malformed(format!(
                "PNG: {} bytes of pixels for {width}x{height}",
                buffer.len()
            )));
        }
        return Ok(Picture {
            width,
            height,
            rgba: buffer,
        });
    }
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

/// Reads the PNG file at `path` as RGBA8 (see [`decode_png`]); errors name the path.
pub fn read_png(path: &Path, limits: twcodec::Limits) -> Result<Picture, Error> {
    let bytes =
        twcodec::input::read_file(path, limits.max_picture_file(), "Limits::max_picture_file")?;
    decode_png(&bytes, limits).map_err(|e| e.with_path(path))
}

/// The mapres directory named by `$TWCODEC_MAPRES`, when it is set and not empty: where the
/// game's own pictures are (DDNet's `data/mapres`), for [`embed`] and for drawing external
/// images.
pub fn default_mapres() -> Option<PathBuf> {
    std::env::var_os("TWCODEC_MAPRES")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
}

/// The game's picture of an external image named `name`: `mapres/NAME.png`, when the name is
/// a plain file name (not empty, `.` or `..`, without `/`, `\\`, `:` or NUL), so that it
/// cannot name a file outside `mapres`.
pub fn mapres_png(mapres: &Path, name: &str) -> Option<std::path::PathBuf> {
    let plain =
        !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', ':', '\0']);
    plain.then(|| mapres.join(format!("{name}.png")))
}

/// The first image of the map named `name`; an error listing the names it has (at most
/// twelve) when none is.
///
/// ```
/// let map = twcodec::Map::parse(&twcodec_testkit::sample::datafile())?;
/// let image = twcodec_tools::assets::find_image(&map, "checker")?;
/// let error = twcodec_tools::assets::find_image(&map, "grass").unwrap_err();
/// assert!(error.to_string().contains(r#"its 2 images are "grass_main", "checker""#), "{error}");
/// # let _ = image;
/// # Ok::<(), twcodec::Error>(())
/// ```
pub fn find_image(map: &Map, name: &str) -> Result<ItemRef<Image>, Error> {
    let named = map.refs::<Image>().map(|r| {
        let name = map.get(r).and_then(|image| image.name(map));
        (r, name)
    });
    find_named(named.collect(), "image", name)
}

/// The first sound of the map named `name`; an error listing the names it has (at most
/// twelve) when none is.
pub fn find_sound(map: &Map, name: &str) -> Result<ItemRef<Sound>, Error> {
    let named = map.refs::<Sound>().map(|r| {
        let name = map.get(r).and_then(|sound| sound.name(map));
        (r, name)
    });
    find_named(named.collect(), "sound", name)
}

fn find_named<T>(
    named: Vec<(ItemRef<T>, Option<String>)>,
    kind: &str,
    name: &str,
) -> Result<ItemRef<T>, Error> {
    if let Some((r, _)) = named.iter().find(|(_, n)| n.as_deref() == Some(name)) {
        return Ok(*r);
    }
    const SHOWN: usize = 12;
    let names: Vec<String> = (named.iter().take(SHOWN))
        .map(|(_, n)| {
            n.as_deref()
                .map_or("(no name)".to_string(), |n| format!("{n:?}"))
        })
        .collect();
    let list = match named.len() {
        0 => format!("it has no {kind}s"),
        1 => format!("its one {kind} is {}", names.join(", ")),
        n if n <= SHOWN => format!("its {n} {kind}s are {}", names.join(", ")),
        n => format!(
            "its {n} {kind}s include {} and {} more",
            names.join(", "),
            n - SHOWN
        ),
    };
    Err(Error::invalid_edit(format!(
        "the map has no {kind} named {name:?}; {list}"
    )))
}

/// What [`replace_image`] did.
#[derive(Debug, Clone)]
pub struct Replaced {
    /// The image, at its place among the images.
    pub image: ItemRef<Image>,
    /// Whether the map changed: `false` when the image held these pixels already.
    pub changed: bool,
    /// Whether the image was external before (it is embedded now).
    pub was_external: bool,
    /// Its width and height before, as the map declared them.
    pub old_size: (i32, i32),
    /// What the new picture means for the tile layers drawn with it: a picture whose sides
    /// are not multiples of 16, a change of size. Empty when no tile layer uses the image.
    pub warnings: Vec<String>,
}

/// Replaces the pixels of the first image named `name` (embedded or external: an external
/// image becomes embedded) with `picture`; the image keeps its name and its place among the
/// images, so every layer drawn with it draws the new pixels (see [`Map::replace_image`]).
/// When the image already holds these pixels, nothing changes and the map writes back as it
/// was read. An error naming the map's images when none is named `name`.
///
/// ```
/// use twcodec_tools::assets::{self, Picture};
/// # let mut map = twcodec_testkit::sample::map()?;
/// let blue = Picture { width: 32, height: 32, rgba: [0u8, 0, 255, 255].repeat(32 * 32) };
/// let replaced = assets::replace_image(&mut map, "grass_main", blue)?;
/// assert!(replaced.changed && replaced.was_external);
/// # Ok::<(), twcodec::Error>(())
/// ```
pub fn replace_image(map: &mut Map, name: &str, picture: Picture) -> Result<Replaced, Error> {
    let image = find_image(map, name)?;
    let before = map.get(image).map(|i| i.item().clone());
    let (was_external, old_size) = before
        .as_ref()
        .map_or((false, (0, 0)), |i| (i.external != 0, (i.width, i.height)));
    let (width, height) = (picture.width, picture.height);
    let changed = map.replace_image(image, width, height, picture.rgba)?;
    let mut warnings = Vec::new();
    let layers = tile_layers_drawn_with(map, image.index());
    if !layers.is_empty() {
        let used = format!("image {name:?} is drawn by {}", list_layers(&layers));
        if width % 16 != 0 || height % 16 != 0 {
            warnings.push(format!("{used}: {}", not_a_tileset(width, height)));
        }
        let new_size = (i64::from(width), i64::from(height));
        let old = (i64::from(old_size.0), i64::from(old_size.1));
        if !was_external && old != new_size {
            warnings.push(format!(
                "{used}: it was {}x{} and is {width}x{height} now, so each of their tiles \
                 takes a 16th of the new picture's width and height",
                old_size.0, old_size.1
            ));
        }
    }
    Ok(Replaced {
        image,
        changed,
        was_external,
        old_size,
        warnings,
    })
}

/// The tile layers of the map drawn with an image whose declared sides are not multiples of
/// 16, one line per image: DDNet's editor unsets such images from tile layers, and DDNet's
/// `map_convert_07` refuses them for Teeworlds 0.7.
pub fn tileset_warnings(map: &Map) -> Vec<String> {
    (twcodec::map::convert::tileset_warnings(map).into_iter())
        .map(|(_, warning)| warning)
        .collect()
}

/// The largest side of a picture [`embed`] embeds, as DDNet's `map_convert_07` allows.
pub const MAX_EMBEDDED_SIDE: u32 = 8192;

/// What [`embed`] did.
#[derive(Debug, Clone, Default)]
pub struct Embedding {
    /// The images now embedded, in map order.
    pub embedded: Vec<Embedded>,
    /// The external images left external, in map order, each with the reason.
    pub left_external: Vec<LeftExternal>,
    /// Tile layers drawn with an embedded picture that cannot be a tileset (empty after
    /// [`convert_embedding`] to Teeworlds 0.7, whose conversion notes name every such
    /// picture).
    pub warnings: Vec<String>,
    /// What the conversion did, after [`convert_embedding`] (empty after [`embed`]).
    pub conversion: Conversion,
}

impl Embedding {
    /// An error naming the images left external (at most twelve), when any is: for callers
    /// that need every picture in the map.
    pub fn require_all(&self) -> Result<(), Error> {
        const SHOWN: usize = 12;
        let Some(first) = self.left_external.first() else {
            return Ok(());
        };
        let left = self.left_external.len();
        let named: Vec<String> = (self.left_external.iter().take(SHOWN))
            .map(|l| format!("#{} {:?}", l.image.index(), l.name.as_deref().unwrap_or("")))
            .collect();
        let more = match left.saturating_sub(SHOWN) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        Err(Error::new(
            ErrorKind::Io,
            format!(
                "{left} of {} external images stay external: {}{more} (the first: {})",
                left + self.embedded.len(),
                named.join(", "),
                first.reason
            ),
        ))
    }
}

/// An external image [`embed`] embedded.
#[derive(Debug, Clone)]
pub struct Embedded {
    /// The image.
    pub image: ItemRef<Image>,
    /// Its name.
    pub name: String,
    /// The picture it now holds.
    pub path: PathBuf,
    /// The picture's width.
    pub width: u32,
    /// The picture's height.
    pub height: u32,
}

/// An external image [`embed`] left external, and why.
#[derive(Debug, Clone)]
pub struct LeftExternal {
    /// The image.
    pub image: ItemRef<Image>,
    /// Its name, when it has a readable one.
    pub name: Option<String>,
    /// Why: no such file, a name that is no file name, a picture that does not load.
    pub reason: String,
}

/// Embeds every external image of the map from the picture of its name in `mapres`
/// (`mapres/NAME.png`, as the game loads it from its own `mapres` folder): the image keeps
/// its name and place, so every layer draws the same picture, now from the map. An image
/// whose picture is missing, does not load, is larger than [`MAX_EMBEDDED_SIDE`] on a side,
/// or whose name is no plain file name (empty, `.`, `..`, or holding `/`, `\`, `:` or NUL)
/// stays external and is listed with the reason. An error only when `mapres` cannot be read
/// as a directory.
///
/// Teeworlds 0.7 ships redrawn pictures under DDNet's names, so a map meant to look as it
/// does in DDNet embeds DDNet's pictures before it goes to a 0.7 client
/// ([`convert_embedding`]; docs/format-notes.md, "Images", on what DDNet's `map_convert_07`
/// does).
pub fn embed(map: &mut Map, mapres: &Path) -> Result<Embedding, Error> {
    std::fs::read_dir(mapres).map_err(|e| Error::io("read the mapres directory", mapres, e))?;
    let mut embedding = Embedding::default();
    let refs: Vec<ItemRef<Image>> = map.refs::<Image>().collect();
    for image in refs {
        let Some(current) = map.get(image).filter(|i| i.is_external()) else {
            continue;
        };
        let name = current.name(map);
        let mut leave = |reason: String| {
            embedding.left_external.push(LeftExternal {
                image,
                name: name.clone(),
                reason,
            })
        };
        let Some(file) = name.as_deref() else {
            leave("it has no name".to_string());
            continue;
        };
        let Some(path) = mapres_png(mapres, file) else {
            leave("its name is not a plain file name".to_string());
            continue;
        };
        let limits = map.limits();
        let read =
            twcodec::input::read_file(&path, limits.max_picture_file(), "Limits::max_picture_file");
        let picture = match read {
            Err(_) if !path.exists() => {
                leave(format!("no {}", path.display()));
                continue;
            }
            Err(e) => {
                leave(e.to_string());
                continue;
            }
            Ok(bytes) => match decode_png(&bytes, map.limits()) {
                Ok(picture) => picture,
                Err(e) => {
                    leave(e.with_path(&path).to_string());
                    continue;
                }
            },
        };
        let (width, height) = (picture.width, picture.height);
        if width > MAX_EMBEDDED_SIDE || height > MAX_EMBEDDED_SIDE {
            leave(format!(
                "{}: {width}x{height} is larger than {MAX_EMBEDDED_SIDE} pixels on a side",
                path.display()
            ));
            continue;
        }
        // Never a map that the reader would refuse: the data a map declares stays within
        // Limits::max_total_data (and memory with it: one picture at a time on top).
        let total = map_data_total(map);
        let limit = map.limits().max_total_data();
        let adding = picture.rgba.len();
        if total.saturating_add(adding) > limit {
            leave(format!(
                "{}: embedding its {adding} bytes of pixels would give the map {} bytes of data, \
                 more than the {limit} a map may hold (Limits::max_total_data): the map would \
                 not load",
                path.display(),
                total.saturating_add(adding)
            ));
            continue;
        }
        let file = file.to_string();
        map.replace_image(image, width, height, picture.rgba)?;
        if width % 16 != 0 || height % 16 != 0 {
            let layers = tile_layers_drawn_with(map, image.index());
            if !layers.is_empty() {
                embedding.warnings.push(format!(
                    "image {file:?} is drawn by {}: {}",
                    list_layers(&layers),
                    not_a_tileset(width, height)
                ));
            }
        }
        embedding.embedded.push(Embedded {
            image,
            name: file,
            path,
            width,
            height,
        });
    }
    Ok(embedding)
}

/// The bytes the data items of `map` declare, uncompressed, in all.
fn map_data_total(map: &Map) -> usize {
    (0..map.data_count())
        .filter_map(|i| map.item_ref::<DataItem>(i32::try_from(i).ok()?).get())
        .filter_map(|data| map.data_size(data))
        .fold(0usize, usize::saturating_add)
}

/// Embeds every external image from `mapres` ([`embed`]) and then converts the map to `form`
/// ([`Map::convert`]), as DDNet's `map_convert_07` does for Teeworlds 0.7: 0.7 ships redrawn
/// pictures under DDNet's names (`grass_main`, `winter_main`, ...), so a converted map that
/// names them looks different in a 0.7 client; embedded, it keeps DDNet's look. The
/// conversion's notes ([`Embedding::conversion`]) describe the map as it is once embedded:
/// converted to 0.7, they name the images still external and every tile layer drawn with an
/// image whose sides are not multiples of 16, which 0.7 does not support. Nothing changes
/// when `mapres` cannot be read or `form` is Teeworlds 0.3.
///
/// ```no_run
/// # let mut map = twcodec_testkit::sample::map()?;
/// let mapres = twcodec_tools::assets::default_mapres().expect("$TWCODEC_MAPRES");
/// let embedding = twcodec_tools::assets::convert_embedding(
///     &mut map,
///     twcodec::MapForm::Teeworlds07,
///     &mapres,
/// )?;
/// for left in &embedding.left_external {
///     eprintln!("{:?} stays external: {}", left.name, left.reason);
/// }
/// for note in &embedding.conversion.notes {
///     eprintln!("{note}");
/// }
/// map.save("out.map")?;
/// # Ok::<(), twcodec::Error>(())
/// ```
pub fn convert_embedding(map: &mut Map, form: MapForm, mapres: &Path) -> Result<Embedding, Error> {
    std::fs::read_dir(mapres).map_err(|e| Error::io("read the mapres directory", mapres, e))?;
    twcodec::map::convert::check_target(form)?;
    let mut embedding = embed(map, mapres)?;
    embedding.conversion = map.convert(form)?;
    if form == MapForm::Teeworlds07 {
        embedding.warnings.clear();
    }
    Ok(embedding)
}

/// What the identification header of an Ogg Opus file says (RFC 7845, "ID Header").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpusHead {
    /// Output channels: 1 or 2.
    pub channels: u8,
    /// Samples (at 48 kHz) to drop at the start.
    pub pre_skip: u16,
    /// The sample rate of the original input, in Hz (0: not known); Opus plays at 48 kHz.
    pub input_sample_rate: u32,
    /// How many Ogg pages the file has.
    pub pages: usize,
}

/// Checks that `bytes` are a whole Ogg Opus file, as the game plays it (RFC 3533 for the
/// pages, RFC 7845 for Opus in them): Ogg pages from the first byte to the last, each with
/// the `OggS` pattern, version 0, its segment table and body whole and its checksum right;
/// the first page begins the stream and holds one packet, the Opus identification header
/// (`OpusHead`, version 0 to 15, one or two channels); the second packet is the comment
/// header (`OpusTags`); the last page ends the stream (docs/format-notes.md, "Sounds"). An
/// error says what was found instead and where: another kind of file, an Ogg file of another
/// codec (Vorbis, FLAC, Speex), a file cut short.
///
/// ```
/// let error = twcodec_tools::assets::check_opus(b"OggS\0").unwrap_err();
/// assert!(error.to_string().contains("ends inside Ogg page #0"), "{error}");
/// ```
pub fn check_opus(bytes: &[u8]) -> Result<OpusHead, Error> {
    FileKind::check(bytes, FileKind::Ogg, "an Ogg Opus file")?;
    if bytes.is_empty() {
        return Err(Error::malformed("not an Ogg Opus file: the file is empty"));
    }
    let mut head = None;
    let (mut offset, mut pages, mut last_type) = (0, 0, 0);
    while offset < bytes.len() {
        let page = OggPage::read(bytes, offset, pages)?;
        match pages {
            0 => head = Some(opus_head(&page, offset)?),
            1 if !page.body.starts_with(b"OpusTags") => {
                return Err(Error::malformed(format!(
                    "Ogg page #1 begins \"{}\", not \"OpusTags\" (Opus's comment header)",
                    page.body[..page.body.len().min(8)].escape_ascii()
                ))
                .at(offset + page.header_len));
            }
            _ => {}
        }
        last_type = page.header_type;
        offset += page.header_len + page.body.len();
        pages += 1;
    }
    if pages < 2 {
        return Err(Error::malformed(
            "the file ends after its first Ogg page: no comment header and no audio (cut short)",
        ));
    }
    if last_type & 0x04 == 0 {
        return Err(Error::malformed(format!(
            "the last Ogg page (#{}) does not end the stream (no end-of-stream flag): the file \
             is cut short",
            pages - 1
        )));
    }
    head.map(|head| OpusHead { pages, ..head })
        .ok_or_else(|| Error::malformed("no Ogg page"))
}

/// One Ogg page (RFC 3533, "The Ogg page format").
struct OggPage<'a> {
    /// Bit 0x01: continues a packet; 0x02: begins the stream; 0x04: ends it.
    header_type: u8,
    /// The 27 bytes of the fixed header and the segment table.
    header_len: usize,
    /// The lacing values: the body's segment lengths.
    segments: &'a [u8],
    body: &'a [u8],
}

impl<'a> OggPage<'a> {
    const HEADER: usize = 27;

    /// The page at `offset`, page number `number` of the file, with its checksum checked.
    fn read(bytes: &'a [u8], offset: usize, number: usize) -> Result<OggPage<'a>, Error> {
        let rest = &bytes[offset..];
        let cut = |what: &str, need: usize| {
            Error::malformed(format!(
                "the file ends inside Ogg page #{number} ({what} needs {need} bytes, {} are \
                 left): it is cut short",
                rest.len()
            ))
            .at(offset)
        };
        if !rest.starts_with(b"OggS") && !b"OggS".starts_with(rest) {
            let begins = rest[..rest.len().min(8)].escape_ascii();
            let message = match number {
                0 => format!(
                    "not an Ogg Opus file: it begins \"{begins}\", not \"OggS\" (an Ogg page)"
                ),
                _ => format!("Ogg page #{number} begins \"{begins}\", not \"OggS\""),
            };
            return Err(Error::malformed(message).at(offset));
        }
        let header = rest
            .get(..Self::HEADER)
            .ok_or_else(|| cut("its header", Self::HEADER))?;
        let (version, header_type) = (header[4], header[5]);
        if version != 0 {
            return Err(Error::malformed(format!(
                "Ogg page #{number} has version {version}, not 0 (the only one there is)"
            ))
            .at(offset + 4));
        }
        let header_len = Self::HEADER + usize::from(header[26]);
        let segments = rest
            .get(Self::HEADER..header_len)
            .ok_or_else(|| cut("its segment table", header_len))?;
        let page_len = header_len + segments.iter().map(|&n| usize::from(n)).sum::<usize>();
        let page = rest
            .get(..page_len)
            .ok_or_else(|| cut("the page", page_len))?;
        let stored = u32::from_le_bytes([header[22], header[23], header[24], header[25]]);
        let computed = ogg_crc(page);
        if stored != computed {
            return Err(Error::malformed(format!(
                "Ogg page #{number}'s checksum is {stored:#010x}, its bytes give \
                 {computed:#010x}: the file is damaged"
            ))
            .at(offset + 22));
        }
        Ok(OggPage {
            header_type,
            header_len,
            segments,
            body: &page[header_len..],
        })
    }
}

/// The Opus identification header, from the first page at `offset`.
fn opus_head(page: &OggPage<'_>, offset: usize) -> Result<OpusHead, Error> {
    if page.header_type & 0x02 == 0 || page.header_type & 0x01 != 0 {
        return Err(Error::malformed(format!(
            "Ogg page #0 has header type {:#04x}: it does not begin a stream (0x02 set, 0x01 \
             clear)",
            page.header_type
        ))
        .at(offset + 5));
    }
    // The first packet: the lacing values up to and with the first below 255.
    let Some(last) = page.segments.iter().position(|&n| n < 255) else {
        return Err(Error::malformed(
            "the first packet goes on past Ogg page #0 (an Opus file's first page holds its \
             identification header alone)",
        )
        .at(offset));
    };
    let packet_len: usize = page.segments[..=last].iter().map(|&n| usize::from(n)).sum();
    let packet = &page.body[..packet_len];
    let start = offset + page.header_len;
    if !packet.starts_with(b"OpusHead") {
        let codec = [
            (&b"\x01vorbis"[..], "Ogg Vorbis"),
            (b"\x7fFLAC", "Ogg FLAC"),
            (b"Speex   ", "Ogg Speex"),
            (b"\x80theora", "Ogg Theora"),
        ]
        .iter()
        .find(|(magic, _)| packet.starts_with(magic))
        .map_or(String::new(), |(_, codec)| format!(": an {codec} file"));
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!(
                "not an Ogg Opus file: the first packet begins \"{}\", not \"OpusHead\"{codec}; \
                 the game plays Opus only",
                packet[..packet.len().min(8)].escape_ascii()
            ),
        )
        .at(start));
    }
    if packet.len() < 19 {
        return Err(Error::malformed(format!(
            "the Opus identification header is {} bytes, less than 19",
            packet.len()
        ))
        .at(start));
    }
    if page.segments.len() != last + 1 {
        return Err(Error::malformed(
            "Ogg page #0 holds more than the Opus identification header (an Opus file's first \
             page holds it alone)",
        )
        .at(start + packet_len));
    }
    let (version, channels) = (packet[8], packet[9]);
    if version > 15 {
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!("Opus header version {version} (versions 0 to 15 read alike)"),
        )
        .at(start + 8));
    }
    if channels == 0 {
        return Err(
            Error::malformed("the Opus identification header has 0 channels").at(start + 9),
        );
    }
    if channels > 2 {
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!("the Opus file has {channels} channels: the game plays mono and stereo only"),
        )
        .at(start + 9));
    }
    Ok(OpusHead {
        channels,
        pre_skip: u16::from_le_bytes([packet[10], packet[11]]),
        input_sample_rate: u32::from_le_bytes([packet[12], packet[13], packet[14], packet[15]]),
        pages: 1,
    })
}

/// The CRC-32 of an Ogg page (polynomial 0x04c11db7, not reflected, starting at 0) with its
/// checksum field (bytes 22 to 25) taken as zeros.
fn ogg_crc(page: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut crc = (i as u32) << 24;
            let mut bit = 0;
            while bit < 8 {
                crc = if crc & 0x8000_0000 != 0 {
                    (crc << 1) ^ 0x04c1_1db7
                } else {
                    crc << 1
                };
                bit += 1;
            }
            table[i] = crc;
            i += 1;
        }
        table
    };
    let mut crc = 0u32;
    for (index, &byte) in page.iter().enumerate() {
        let byte = if (22..26).contains(&index) { 0 } else { byte };
        crc = (crc << 8) ^ TABLE[usize::from((crc >> 24) as u8 ^ byte)];
    }
    crc
}

/// Reads the file at `path` and checks that it is Ogg Opus ([`check_opus`]); its bytes and
/// its header. Errors name the path; a file larger than `limits`' largest data item is one.
pub fn read_opus(path: &Path, limits: twcodec::Limits) -> Result<(Vec<u8>, OpusHead), Error> {
    let max = limits.max_data_size() as u64;
    let bytes = twcodec::input::read_file(path, max, "Limits::max_data_size")?;
    if bytes.len() > limits.max_data_size() {
        return Err(Error::limit(format!(
            "{} bytes, more than the limit of {} (Limits::max_data_size)",
            bytes.len(),
            limits.max_data_size()
        ))
        .with_path(path));
    }
    let head = check_opus(&bytes).map_err(|e| e.with_path(path))?;
    Ok((bytes, head))
}

fn no_such(what: &str, index: usize) -> Error {
    Error::malformed(format!("the map has no {what} #{index}"))
}

/// A file stem from an item's name: letters, digits, `-`, `_`, `.` and spaces kept, anything
/// else (path separators, control characters, reserved punctuation) as `_`, no leading dot or
/// trailing dot or space, at most 100 characters, never a name Windows reserves; `KIND_INDEX`
/// when nothing is left.
pub fn safe_name(name: Option<&str>, kind: &str, index: usize) -> String {
    // At most 200 bytes (on a character boundary): a file name takes 255 at most, with room
    // for a number, an extension and the temporary file's affixes.
    let mut cleaned = String::new();
    for c in name.unwrap_or_default().chars() {
        let c = match c {
            c if c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ' ') => c,
            _ => '_',
        };
        if cleaned.len() + c.len_utf8() > 200 {
            break;
        }
        cleaned.push(c);
    }
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

    /// The filter each row of `png` (RGBA8, `width` pixels wide) chose, read from its zlib
    /// stream (whose Adler-32 is checked on the way).
    fn row_filters(png: &[u8], width: usize) -> Vec<u8> {
        use std::io::Read;
        let mut idat = Vec::new();
        let mut at = 8;
        while at + 8 <= png.len() {
            let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
            if &png[at + 4..at + 8] == b"IDAT" {
                idat.extend_from_slice(&png[at + 8..at + 8 + len]);
            }
            at += 12 + len;
        }
        let mut raw = Vec::new();
        flate2::read::ZlibDecoder::new(&idat[..])
            .read_to_end(&mut raw)
            .unwrap();
        raw.chunks_exact(width * 4 + 1).map(|row| row[0]).collect()
    }

    /// Pictures compressed in parallel pieces decode, with the png crate, to the same pixels:
    /// sizes of one pixel, one row, rows of odd lengths, many pieces; smooth, noisy and
    /// see-through pixels (every filter chosen somewhere); the same bytes on 1 and 3 threads.
    #[test]
    fn pictures_compressed_in_pieces_decode_to_their_pixels() {
        let mut seed = 7u64;
        let mut noise = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) as u8
        };
        let sizes = [
            (1, 1),
            (5, 1),
            (1, 300),
            (3, 7),
            (129, 65),
            (700, 300),
            (2048, 40),
        ];
        let mut filters = [0usize; 5];
        for (width, height) in sizes {
            let mut rgba = Vec::with_capacity(width * height * 4);
            for y in 0..height {
                for x in 0..width {
                    let pixel = match (x / 16 + y / 16) % 3 {
                        0 => [(x * 3) as u8, (y * 5) as u8, (x + y) as u8, 255],
                        1 => [noise(), noise(), noise(), noise()],
                        _ => [0, 0, 0, 0],
                    };
                    rgba.extend_from_slice(&pixel);
                }
            }
            let picture = Picture {
                width: width as u32,
                height: height as u32,
                rgba,
            };
            let pool = |n| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .unwrap()
            };
            let png = pool(1).install(|| picture.to_png()).unwrap();
            assert_eq!(png, pool(3).install(|| picture.to_png()).unwrap());
            let decoded = decode_png(&png, twcodec::Limits::default()).unwrap();
            assert_eq!(
                (decoded.width, decoded.height),
                (picture.width, picture.height)
            );
            assert!(decoded.rgba == picture.rgba, "{width}x{height}");
            for kind in row_filters(&png, width) {
                filters[usize::from(kind)] += 1;
            }
        }
        assert!(filters.iter().all(|&n| n > 0), "{filters:?}");
        assert!(Picture {
            width: 2,
            height: 2,
            rgba: vec![0; 15]
        }
        .to_png()
        .is_err());
    }

    /// The first row of a piece that is not the picture's first is filtered without the row
    /// above (the piece is compressed before that row is at hand, or on another thread): no
    /// filter or `Sub`, never `Average`, though on its own (the row above taken as zeros)
    /// `Average` would cost least. Rows of every channel halving from pixel to pixel, 128 to
    /// 0 over nine pixels, all alike: `Up` for each but the first rows; no filter for the
    /// head of every piece.
    #[test]
    fn pieces_start_with_filters_that_need_no_row_above() {
        let (width, height) = (270usize, 500usize);
        let rgba: Vec<u8> = (0..width * height)
            .flat_map(|i| [(128u16 >> (i % width % 9)) as u8; 4])
            .collect();
        let picture = Picture {
            width: width as u32,
            height: height as u32,
            rgba,
        };
        let png = picture.to_png().unwrap();
        let decoded = decode_png(&png, twcodec::Limits::default()).unwrap();
        assert!(decoded.rgba == picture.rgba);
        let per_piece = png_piece_rows(picture.width);
        assert_eq!(per_piece, 240);
        let kinds = row_filters(&png, width);
        assert_eq!(kinds.len(), height);
        // The first row: `Average` (against zeros) wins.
        assert_eq!(kinds[0], 3);
        for (y, &kind) in kinds.iter().enumerate().skip(1) {
            match y % per_piece {
                // (No filter, 255 a channel over nine pixels, beats `Sub` by one.)
                0 => assert_eq!(kind, 0, "row {y}"),
                _ => assert_eq!(kind, 2, "row {y}"),
            }
        }
    }

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
        assert_eq!(safe_name(Some(&"x".repeat(300)), "image", 8).len(), 200);
        // Cut by bytes on a character boundary: 66 characters of three bytes.
        assert_eq!(
            safe_name(Some(&"洞".repeat(80)), "image", 9),
            "洞".repeat(66)
        );
        let mut taken = HashSet::new();
        assert_eq!(unique(&mut taken, "a", "png"), "a.png");
        assert_eq!(unique(&mut taken, "A", "png"), "A_2.png");
        assert_eq!(unique(&mut taken, "a", "png"), "a_3.png");
        assert_eq!(unique(&mut taken, "a", "opus"), "a.opus");
    }
}
