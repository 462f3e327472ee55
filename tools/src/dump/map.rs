//! Renderings of a map: `twcodec dump` in text ([`map_text`]) and JSON ([`map_json`]), both
//! from [`MapView`] (`map_view.rs`).

use std::io::{self, Write};

use super::map_view::{self, MapView};
use super::text;

/// What [`map_text`] and [`map_json`] include besides the items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct DumpOptions {
    /// An ASCII preview of the game layer.
    pub preview: bool,
}

/// Builder methods: `DumpOptions::default().preview(..)`, each setting the field of its name.
impl DumpOptions {
    /// Sets [`DumpOptions::preview`].
    pub fn preview(self, preview: bool) -> DumpOptions {
        DumpOptions { preview, ..self }
    }
}

/// `twcodec dump --format text`: the map, one field per line, groups holding their layers
/// ([`MapView`] in the text form), then the game layer preview when asked for.
pub fn map_text(map: &twcodec::Map, options: DumpOptions, out: &mut dyn Write) -> io::Result<()> {
    let view = MapView::text(map, options);
    text::write_fields(out, &map_view::WithoutPreview(&view), 0, &[])?;
    if options.preview {
        if let Some(lines) = view.preview() {
            writeln!(out, "game layer preview:")?;
            for line in lines {
                writeln!(out, "  |{line}|")?;
            }
            writeln!(out, "  {}", map_view::PREVIEW_LEGEND)?;
        }
    }
    Ok(())
}

/// `twcodec dump --format json`: the map ([`MapView`]) as pretty JSON, and a final newline.
pub fn map_json(map: &twcodec::Map, options: DumpOptions, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &MapView::new(map, options)).map_err(io_error)?;
    writeln!(out)
}

/// The writer's error inside a serde_json error, or the serde_json error as an I/O error.
pub(super) fn io_error(error: serde_json::Error) -> io::Error {
    if error.is_io() {
        io::Error::from(error)
    } else {
        io::Error::other(error)
    }
}
