//! Limits on what reading a file may allocate, and on what drawing it may take: a setting for
//! input from strangers.
//!
//! Every size and count in a file is checked against the file itself (an item table cannot be
//! longer than the file, a zlib stream cannot inflate past 1032 times its size); limits bound
//! what a small file may still legitimately ask for. Exceeding one is an error of kind
//! [`ErrorKind::LimitExceeded`](crate::ErrorKind::LimitExceeded), raised before anything is
//! allocated for it.
//!
//! ```
//! use twcodec::{Datafile, Limits, Map};
//!
//! # let bytes = twcodec_testkit::sample::datafile();
//! // A server that takes maps from players: tighter than the defaults.
//! let limits = Limits::default()
//!     .with_max_data_size(64 << 20)
//!     .with_max_total_data(256 << 20)
//!     .with_max_tiles(4 << 20);
//! let map = Map::from_datafile(&Datafile::parse_with(&bytes, limits)?)?;
//! # Ok::<(), twcodec::Error>(())
//! ```
//!
//! | limit | default | checked by |
//! |---|---|---|
//! | [`max_data_size`](Limits::max_data_size): bytes one data item inflates to | 256 MiB | [`Datafile::data`](crate::Datafile::data) |
//! | [`max_total_data`](Limits::max_total_data): bytes all data items declare together; bytes a ghost's chunks decode to | 1 GiB | [`Datafile::parse_with`](crate::Datafile::parse_with), [`Ghost::items`](crate::ghost::Ghost::items) |
//! | [`max_items`](Limits::max_items): items in a datafile; chunks in a ghost | 65536 | [`Datafile::parse_with`](crate::Datafile::parse_with), [`Ghost::from_bytes_with`](crate::ghost::Ghost::from_bytes_with) |
//! | [`max_layers`](Limits::max_layers): layers in a map | 16384 | [`Map::from_datafile`](crate::Map::from_datafile) |
//! | [`max_tiles`](Limits::max_tiles): width x height of a tile layer | 64 Mi tiles (8192 x 8192) | [`Map::from_datafile`](crate::Map::from_datafile) |
//! | [`max_layer_data`](Limits::max_layer_data): bytes all layers hold once decoded | 1 GiB | [`Map::from_datafile`](crate::Map::from_datafile) |
//! | [`max_strings`](Limits::max_strings): strings in a NUL-separated list (a map's settings) | 65536 | [`Info::settings`](crate::map::Info::settings) |
//! | [`max_string_bytes`](Limits::max_string_bytes): bytes of such a list | 16 MiB | [`Info::settings`](crate::map::Info::settings) |
//! | [`max_file_size`](Limits::max_file_size): bytes of a map, datafile, demo, ghost or snapshot file | 1 GiB | [`read_file`](crate::input::read_file): [`Datafile::open`](crate::Datafile::open), [`Map::open`](crate::Map::open), [`Demo::open`](crate::demo::Demo::open), [`Ghost::open`](crate::ghost::Ghost::open), `snap decode`, `scan` |
//! | [`max_picture_file`](Limits::max_picture_file): bytes of a PNG file | 256 MiB | `twcodec_tools::assets::read_png` (`embed`, `replace-image`, `add-image`, the pictures `render` draws with) |
//! | [`max_data_size`](Limits::max_data_size), again: bytes of an Opus file, and of each file of an unpacked map directory | 256 MiB | `twcodec_tools::assets::read_opus`, `twcodec_tools::mapdir::pack` |
//! | [`max_render_work`](Limits::max_render_work): steps of work (a few nanoseconds each) one render of the map may take | 2^32 (4.3 billion) | `twcodec_tools::render::render` |
//!
//! Files are read through one reader, [`input::read_file`](crate::input::read_file): only
//! regular files (a FIFO, a device or a directory is refused at once, before it is opened for
//! reading, so nothing blocks), and never more than the limit, however large the file claims
//! or grows to be.
//!
//! `max_layer_data` bounds what the other limits cannot: a data item is inflated once, but
//! every layer holds its own decoded copy, so layers sharing one data item, or Teeworlds 0.7
//! tile layers whose few compressed tiles expand to a whole grid, could otherwise turn a small
//! file into many times `max_total_data`. It counts, per layer and before anything is
//! inflated, the grid of a tile layer (width x height x the tile size of its kind) and the data
//! item of a quads or sounds layer.
//!
//! The string list limits keep what reading a list costs in proportion to its text: a data
//! item of 64 MiB of NULs is 64 Mi empty settings, which a dump would otherwise print one by
//! one.
//!
//! `max_render_work` bounds time rather than memory: what a render costs grows with the
//! picture times how often it is drawn over, which a small file can make enormous (a 2 KB map
//! of 1000 quads from one end of the coordinate range to the other covers a 1920 x 1080
//! picture 1000 times over: 100 s of drawing). A render lays out what it draws, leaving out
//! what falls outside the picture or covers no pixel, and counts the work of the rest before
//! it draws anything; past the limit it ends with the error, having allocated no picture. A
//! step is a few nanoseconds of drawing (about 1 to 5 on a loaded 2-core machine, drawing on
//! both):
//!
//! - 1 for each group and layer visited (groups may share layers), quad looked at and point of
//!   an envelope evaluated;
//! - for each pixel a tile layer may draw (its tiles that hold anything, clipped to the picture
//!   and the group's clip), 1, or 8 with a tileset to sample; and 1 for each column of them in
//!   each band of 16 rows;
//! - for each pixel a quad's triangle may draw (row by row, where its edges cross the row,
//!   clipped) and each of its rows, 8, or 16 with a picture to sample;
//! - for each layer and each quad's triangle drawn, 1 for each band of 16 rows of the picture.
//!
//! Decoding the layers and pictures drawn is not counted: the other limits bound it.
//!
//! Ordinary renders take far less than the default of 2^32: `fddrace_ChillBlock5_big` (943 x
//! 1075 tiles, 20 tile layers) drawn 2048 pixels wide takes 378 million steps (an eleventh of
//! it), and the costliest corpus map there 881 million. A map built to use the whole default
//! draws for 10 to 23 s on that machine (the slowest: 256 layers of a see-through tileset over
//! a 1920 x 1080 picture); a server that draws maps from players can set a lower limit.
//! `twcodec_tools::render::Rendered::work` says what a render took, to set it from.
//!
//! The defaults are far above every real map (the largest corpus map declares 36 MB of data in
//! all, 1 million tiles per layer and 33 MB of layer content) and keep a hostile file within a
//! few GiB of memory. A map takes its limits from the [`Datafile`](crate::Datafile) it is
//! resolved from.

use crate::error::Error;

/// Limits on what reading may allocate and drawing may take; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    max_data_size: usize,
    max_total_data: usize,
    max_items: usize,
    max_layers: usize,
    max_tiles: usize,
    max_layer_data: usize,
    max_strings: usize,
    max_string_bytes: usize,
    max_file_size: u64,
    max_picture_file: u64,
    max_render_work: u64,
}

impl Limits {
    /// The defaults (see the module docs).
    pub const DEFAULT: Limits = Limits {
        max_data_size: 256 << 20,
        max_total_data: 1 << 30,
        max_items: 1 << 16,
        max_layers: 1 << 14,
        max_tiles: 1 << 26,
        max_layer_data: 1 << 30,
        max_strings: 1 << 16,
        max_string_bytes: 16 << 20,
        max_file_size: 1 << 30,
        max_picture_file: 256 << 20,
        max_render_work: 1 << 32,
    };

    /// No limits beyond what the files themselves allow.
    pub const UNLIMITED: Limits = Limits {
        max_data_size: usize::MAX,
        max_total_data: usize::MAX,
        max_items: usize::MAX,
        max_layers: usize::MAX,
        max_tiles: usize::MAX,
        max_layer_data: usize::MAX,
        max_strings: usize::MAX,
        max_string_bytes: usize::MAX,
        max_file_size: u64::MAX,
        max_picture_file: u64::MAX,
        max_render_work: u64::MAX,
    };

    /// Most bytes one data item may inflate to.
    pub const fn max_data_size(&self) -> usize {
        self.max_data_size
    }

    /// Most bytes the data items of a datafile may declare together.
    pub const fn max_total_data(&self) -> usize {
        self.max_total_data
    }

    /// Most items a datafile may have.
    pub const fn max_items(&self) -> usize {
        self.max_items
    }

    /// Most layers a map may have.
    pub const fn max_layers(&self) -> usize {
        self.max_layers
    }

    /// Most tiles (width x height) a tile layer may have.
    pub const fn max_tiles(&self) -> usize {
        self.max_tiles
    }

    /// Most bytes the layers of a map may hold together once decoded: tile grids (after 0.7
    /// expansion), quads and sound sources, each layer counted on its own.
    pub const fn max_layer_data(&self) -> usize {
        self.max_layer_data
    }

    /// Most strings a NUL-separated string list (a map's settings) may hold.
    pub const fn max_strings(&self) -> usize {
        self.max_strings
    }

    /// Most bytes a NUL-separated string list may take, NULs included.
    pub const fn max_string_bytes(&self) -> usize {
        self.max_string_bytes
    }

    /// Most bytes a map, datafile, demo or snapshot file may have to be read.
    pub const fn max_file_size(&self) -> u64 {
        self.max_file_size
    }

    /// Most bytes a PNG file may have to be read.
    pub const fn max_picture_file(&self) -> u64 {
        self.max_picture_file
    }

    /// These limits with another [`max_file_size`](Limits::max_file_size).
    pub const fn with_max_file_size(mut self, bytes: u64) -> Limits {
        self.max_file_size = bytes;
        self
    }

    /// These limits with another [`max_picture_file`](Limits::max_picture_file).
    pub const fn with_max_picture_file(mut self, bytes: u64) -> Limits {
        self.max_picture_file = bytes;
        self
    }

    /// Most steps of work one render of a map may take (see the [module docs](self)): the
    /// pixels each layer and quad may cover once clipped to the picture, weighted by what each
    /// costs to draw, and each group, layer, quad and envelope point visited.
    pub const fn max_render_work(&self) -> u64 {
        self.max_render_work
    }

    /// These limits with another [`max_data_size`](Limits::max_data_size).
    pub const fn with_max_data_size(mut self, bytes: usize) -> Limits {
        self.max_data_size = bytes;
        self
    }

    /// These limits with another [`max_total_data`](Limits::max_total_data).
    pub const fn with_max_total_data(mut self, bytes: usize) -> Limits {
        self.max_total_data = bytes;
        self
    }

    /// These limits with another [`max_items`](Limits::max_items).
    pub const fn with_max_items(mut self, items: usize) -> Limits {
        self.max_items = items;
        self
    }

    /// These limits with another [`max_layers`](Limits::max_layers).
    pub const fn with_max_layers(mut self, layers: usize) -> Limits {
        self.max_layers = layers;
        self
    }

    /// These limits with another [`max_tiles`](Limits::max_tiles).
    pub const fn with_max_tiles(mut self, tiles: usize) -> Limits {
        self.max_tiles = tiles;
        self
    }

    /// These limits with another [`max_layer_data`](Limits::max_layer_data).
    pub const fn with_max_layer_data(mut self, bytes: usize) -> Limits {
        self.max_layer_data = bytes;
        self
    }

    /// These limits with another [`max_strings`](Limits::max_strings).
    pub const fn with_max_strings(mut self, strings: usize) -> Limits {
        self.max_strings = strings;
        self
    }

    /// These limits with another [`max_string_bytes`](Limits::max_string_bytes).
    pub const fn with_max_string_bytes(mut self, bytes: usize) -> Limits {
        self.max_string_bytes = bytes;
        self
    }

    /// These limits with another [`max_render_work`](Limits::max_render_work).
    pub const fn with_max_render_work(mut self, steps: u64) -> Limits {
        self.max_render_work = steps;
        self
    }
}

impl Limits {
    /// Whether `what` (`the settings`, `the text`) of `bytes` bytes is within
    /// [`max_string_bytes`](Limits::max_string_bytes); checked before it is inflated.
    pub(crate) fn check_string_bytes(&self, what: &str, bytes: usize) -> Result<(), Error> {
        match bytes > self.max_string_bytes {
            true => Err(Error::limit(format!(
                "{what} take {bytes} bytes, more than the limit of {} (Limits::max_string_bytes)",
                self.max_string_bytes
            ))),
            false => Ok(()),
        }
    }

    /// Whether a list `what` of `count` strings is within [`max_strings`](Limits::max_strings).
    pub(crate) fn check_strings(&self, what: &str, count: usize) -> Result<(), Error> {
        match count > self.max_strings {
            true => Err(Error::limit(format!(
                "{what} hold {count} strings, more than the limit of {} (Limits::max_strings)",
                self.max_strings
            ))),
            false => Ok(()),
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}
