//! A map's data items as files (docs/mapdir.md): each in the form that suits what the items
//! say it holds, checked at unpack to give back exactly its bytes, else kept as raw bytes.

use twcodec_schema::map::quad::Quad;
use twcodec_schema::map::sound::SoundSource;
use twcodec_schema::map::tile::{
    cast_tiles, compress_skip, expand_skip, tiles_as_bytes, Speedup, Switch, Tele, Tile, TileKind,
    Tune,
};

use super::tiles::{self, TileText};
use twcodec::map::Grid;
use twcodec::Error;

/// What a data item holds, as the items that refer to it say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holds {
    /// A NUL-terminated string.
    Text,
    /// Server settings: NUL-terminated strings one after another.
    Settings,
    /// Pixels of a `width` x `height` image.
    Pixels { width: u32, height: u32 },
    /// An Opus file.
    Opus,
    /// A tile layer's tiles of kind `tiles` (a layer kind name), `width` x `height`,
    /// skip-compressed when `skip` (Teeworlds 0.7).
    Tiles {
        kind: TileType,
        width: usize,
        height: usize,
        skip: bool,
    },
    /// Quads.
    Quads,
    /// Sound sources.
    Sources,
}

/// The tile type of a tile data item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TileType {
    Tile,
    Tele,
    Speedup,
    Switch,
    Tune,
}

impl TileType {
    fn name(self) -> &'static str {
        match self {
            TileType::Tile => "tiles",
            TileType::Tele => "tele",
            TileType::Speedup => "speedup",
            TileType::Switch => "switch",
            TileType::Tune => "tune",
        }
    }

    fn of_name(name: &str) -> Option<TileType> {
        Some(match name {
            "tiles" => TileType::Tile,
            "tele" => TileType::Tele,
            "speedup" => TileType::Speedup,
            "switch" => TileType::Switch,
            "tune" => TileType::Tune,
            _ => return None,
        })
    }
}

/// A data item's file: its extension and its bytes.
pub(crate) struct DataFile {
    pub ext: &'static str,
    pub bytes: Vec<u8>,
}

/// The file of a data item holding `holds`, when that form gives back exactly `data`.
pub(crate) fn to_file(data: &[u8], holds: Holds) -> Option<DataFile> {
    let file = match holds {
        Holds::Text => {
            let text = data.strip_suffix(&[0])?;
            let text = std::str::from_utf8(text).ok()?;
            (!text.contains('\0')).then_some(())?;
            // A line break at the end, as editors write one.
            DataFile {
                ext: "txt",
                bytes: format!("{text}\n").into_bytes(),
            }
        }
        Holds::Settings => {
            let body = data.strip_suffix(&[0])?;
            let text = std::str::from_utf8(body).ok()?;
            // One setting per line: none may hold a line break or be empty.
            let lines: Vec<&str> = text.split('\0').collect();
            lines
                .iter()
                .all(|l| !l.is_empty() && !l.contains(['\n', '\r']))
                .then_some(())?;
            let mut bytes = lines.join("\n").into_bytes();
            bytes.push(b'\n');
            DataFile {
                ext: "settings",
                bytes,
            }
        }
        Holds::Pixels { width, height } => DataFile {
            ext: "png",
            bytes: pixels_png(data, width, height)?,
        },
        Holds::Opus => DataFile {
            ext: "opus",
            bytes: data.to_vec(),
        },
        Holds::Tiles {
            kind,
            width,
            height,
            skip,
        } => {
            let text = match kind {
                TileType::Tile => tile_text::<Tile>(data, width, height, skip, kind)?,
                TileType::Tele => tile_text::<Tele>(data, width, height, false, kind)?,
                TileType::Speedup => tile_text::<Speedup>(data, width, height, false, kind)?,
                TileType::Switch => tile_text::<Switch>(data, width, height, false, kind)?,
                TileType::Tune => tile_text::<Tune>(data, width, height, false, kind)?,
            };
            DataFile {
                ext: "tiles",
                bytes: text.into_bytes(),
            }
        }
        Holds::Quads => DataFile {
            ext: "quads.toml",
            bytes: records::<Quad, QuadText>(data, "quad")?.into_bytes(),
        },
        Holds::Sources => DataFile {
            ext: "sources.toml",
            bytes: records::<SoundSource, SoundSource>(data, "source")?.into_bytes(),
        },
    };
    // Only a form that gives back the same bytes is used.
    (from_file(file.ext, &file.bytes).ok()?.as_slice() == data).then_some(file)
}

/// The data item a file of extension `ext` holds.
pub(crate) fn from_file(ext: &str, bytes: &[u8]) -> Result<Vec<u8>, Error> {
    let text =
        || std::str::from_utf8(bytes).map_err(|e| Error::malformed(format!("not UTF-8 text: {e}")));
    Ok(match ext {
        "txt" => {
            let text = text()?;
            let mut data = text.strip_suffix('\n').unwrap_or(text).as_bytes().to_vec();
            data.push(0);
            data
        }
        "settings" => {
            let mut data = Vec::new();
            for line in text()?.lines() {
                data.extend_from_slice(line.as_bytes());
                data.push(0);
            }
            data
        }
        "png" => png_pixels(bytes)?,
        "opus" | "bin" => bytes.to_vec(),
        "tiles" => tiles_data(text()?)?,
        "quads.toml" => records_data::<Quad, QuadText>(text()?, "quad")?,
        "sources.toml" => records_data::<SoundSource, SoundSource>(text()?, "source")?,
        other => return Err(Error::malformed(format!("no data file is .{other}"))),
    })
}

/// RGBA or RGB pixels as a PNG of that color type.
fn pixels_png(data: &[u8], width: u32, height: u32) -> Option<Vec<u8>> {
    let pixels = (width as usize).checked_mul(height as usize)?;
    let color = match data.len() {
        n if Some(n) == pixels.checked_mul(4) => png::ColorType::Rgba,
        n if Some(n) == pixels.checked_mul(3) => png::ColorType::Rgb,
        _ => return None,
    };
    crate::assets::encode_png(width, height, data, color, None).ok()
}

/// The pixels of a PNG as stored: RGB stays RGB, anything else becomes RGBA.
fn png_pixels(bytes: &[u8]) -> Result<Vec<u8>, Error> {
    crate::assets::decode_png_stored(bytes, twcodec::Limits::default())
}

/// Tiles as text, when `data` is exactly a grid (or, with `skip`, its canonical compression).
fn tile_text<T: TileKind + TileText>(
    data: &[u8],
    width: usize,
    height: usize,
    skip: bool,
    kind: TileType,
) -> Option<String> {
    let tiles: &[T] = cast_tiles(data).ok()?;
    let grid = if skip {
        let tiles: &[Tile] = cast_tiles(data).ok()?;
        let expanded = expand_skip(tiles, width.checked_mul(height)?).ok()?;
        let bytes = tiles_as_bytes(&expanded).to_vec();
        let expanded: &[T] = cast_tiles(&bytes).ok()?;
        Grid::new(width, height, expanded.to_vec())?
    } else {
        Grid::new(width, height, tiles.to_vec())?
    };
    let name = if skip {
        format!("{} skip", kind.name())
    } else {
        kind.name().to_string()
    };
    Some(tiles::write(&grid, &name))
}

/// The data of a `.tiles` file: its grid, compressed again when the header says `skip`.
fn tiles_data(text: &str) -> Result<Vec<u8>, Error> {
    let header = text.lines().next().unwrap_or_default();
    let mut words = header.split_whitespace().skip(2);
    let kind = words.next().and_then(TileType::of_name).ok_or_else(|| {
        Error::malformed(format!(
            "1: {header:?} does not name a tile kind (tiles, tele, speedup, switch, tune)"
        ))
    })?;
    let skip = words.next() == Some("skip");
    Ok(match kind {
        TileType::Tile => {
            let grid = tiles::parse::<Tile>(text)?;
            if skip {
                tiles_as_bytes(&compress_skip(grid.tiles())).to_vec()
            } else {
                tiles_as_bytes(grid.tiles()).to_vec()
            }
        }
        TileType::Tele => tiles_as_bytes(tiles::parse::<Tele>(text)?.tiles()).to_vec(),
        TileType::Speedup => tiles_as_bytes(tiles::parse::<Speedup>(text)?.tiles()).to_vec(),
        TileType::Switch => tiles_as_bytes(tiles::parse::<Switch>(text)?.tiles()).to_vec(),
        TileType::Tune => tiles_as_bytes(tiles::parse::<Tune>(text)?.tiles()).to_vec(),
    })
}

/// A quad as its file shows it: each point, color and texture coordinate an inline array, so
/// that a quad is a few lines.
#[derive(serde::Serialize, serde::Deserialize)]
struct QuadText {
    /// Corners top-left, top-right, bottom-left, bottom-right, then the pivot: `[x, y]` in
    /// 1/1024 world pixels.
    points: [[i32; 2]; 5],
    /// Corner colors `[r, g, b, a]`, 0..=255.
    colors: [[i32; 4]; 4],
    /// Corner texture coordinates `[u, v]`, 1024 = the whole picture.
    texture_coords: [[i32; 2]; 4],
    position_envelope: i32,
    position_envelope_offset: i32,
    color_envelope: i32,
    color_envelope_offset: i32,
}

impl From<Quad> for QuadText {
    fn from(quad: Quad) -> QuadText {
        QuadText {
            points: quad.points.map(|p| [p.x, p.y]),
            colors: quad.colors.map(|c| [c.r, c.g, c.b, c.a]),
            texture_coords: quad.texture_coords.map(|p| [p.x, p.y]),
            position_envelope: quad.position_envelope,
            position_envelope_offset: quad.position_envelope_offset,
            color_envelope: quad.color_envelope,
            color_envelope_offset: quad.color_envelope_offset,
        }
    }
}

impl From<QuadText> for Quad {
    fn from(text: QuadText) -> Quad {
        use twcodec_schema::map::{Color, Point};
        Quad {
            points: text.points.map(|[x, y]| Point { x, y }),
            colors: text.colors.map(|[r, g, b, a]| Color { r, g, b, a }),
            texture_coords: text.texture_coords.map(|[x, y]| Point { x, y }),
            position_envelope: text.position_envelope,
            position_envelope_offset: text.position_envelope_offset,
            color_envelope: text.color_envelope,
            color_envelope_offset: text.color_envelope_offset,
        }
    }
}

/// `data` as `[[NAME]]` tables, each record of `T` in its file form `F`, when it is a whole
/// number of them.
fn records<T, F>(data: &[u8], name: &str) -> Option<String>
where
    T: bytemuck::Pod,
    F: From<T> + serde::Serialize,
{
    let records: &[T] = bytemuck::try_cast_slice(data).ok()?;
    let forms: Vec<F> = records.iter().map(|&r| F::from(r)).collect();
    let mut table = toml::Table::new();
    table.insert(name.to_string(), toml::Value::try_from(forms).ok()?);
    toml::to_string(&table).ok()
}

/// The bytes of the `[[NAME]]` tables of `text`.
fn records_data<T, F>(text: &str, name: &str) -> Result<Vec<u8>, Error>
where
    T: bytemuck::Pod,
    F: serde::de::DeserializeOwned + Into<T>,
{
    let table: toml::Table = toml::from_str(text).map_err(|e| super::toml_error(text, &e))?;
    let records: Vec<F> = match table.get(name) {
        Some(value) => value
            .clone()
            .try_into()
            .map_err(|e: toml::de::Error| Error::malformed(format!("[[{name}]]: {e}")))?,
        None => Vec::new(),
    };
    let records: Vec<T> = records.into_iter().map(Into::into).collect();
    Ok(bytemuck::cast_slice(&records).to_vec())
}
