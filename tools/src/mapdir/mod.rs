//! The map directory form (docs/mapdir.md): a map as files that people read, edit and
//! review, built back into the same bytes.
//!
//! [`unpack`] writes the directory and [`pack`] builds the map back; [`tiles`] is the text
//! form of tile layers. [`Streams`] keeps the stored zlib stream of each data item keyed by
//! the SHA-256 of what it decodes to, so that a map rebuilt from decoded content reuses the
//! original streams for data that did not change, and compresses only what did. [`Layout`] is
//! what the files cannot say (the container's version and size fields, item ids, the data
//! order) and is written as `.twcodec/layout.toml`, the streams beside it.
//!
//! ```
//! use twcodec_tools::mapdir::Streams;
//! use twcodec::{Datafile, DatafileWriter};
//!
//! let original = twcodec_testkit::sample::datafile();
//! let datafile = Datafile::parse(&original)?;
//! let streams = Streams::of(&datafile)?;
//! // Rebuild the file from its items and its decoded data: the streams come back.
//! let mut writer = streams.layout().writer();
//! for item in datafile.items() {
//!     writer.add_item(item.type_id(), item.id(), item.data.clone());
//! }
//! for index in 0..datafile.data_count() {
//!     streams.add_data(&mut writer, index, datafile.data(index)?.into_owned());
//! }
//! assert_eq!(writer.to_vec()?, original);
//! # Ok::<(), twcodec::Error>(())
//! ```

mod data;
mod dir;
mod names;
mod pack;
mod points;
mod refs;
pub mod tiles;

pub use points::PointsLayout;

pub use dir::{unpack, unpack_file, Unpacked, FORM};
pub use pack::{load, pack, pack_with_notes, Packed};

use std::path::Path;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use twcodec::datafile::{Datafile, SizeFields};
use twcodec::write::DatafileWriter;
use twcodec::{Error, ErrorKind};
use twcodec_schema::datafile::{Magic, Version};

/// `:LINE: message` of a TOML error in `text`.
fn toml_at(text: &str, error: &toml::de::Error) -> String {
    let line = (error.span()).map(|span| {
        let before = text.as_bytes().get(..span.start).unwrap_or(text.as_bytes());
        before.iter().filter(|&&b| b == b'\n').count() + 1
    });
    let at = line.map(|l| format!(":{l}")).unwrap_or_default();
    format!("{at}: {}", error.message())
}

/// A TOML error in `text` (without the file name).
pub(crate) fn toml_error(text: &str, error: &toml::de::Error) -> Error {
    Error::malformed(toml_at(text, error).trim_start_matches(':').to_string())
}

/// The SHA-256 of `bytes`, in hex.
fn sha256_hex(bytes: &[u8]) -> String {
    crate::dump::hex(&Sha256::digest(bytes))
}

/// Whether `path` is a folder of the directory itself (not a link); `false` when there is
/// none, an error for a link or another kind of file.
pub(crate) fn own_folder(path: &Path) -> Result<bool, Error> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io("read", path, e)),
        Ok(meta) if meta.file_type().is_symlink() => Err(twcodec::input::a_link(path)),
        Ok(meta) if meta.is_dir() => Ok(true),
        Ok(meta) => Err(Error::new(
            ErrorKind::Io,
            format!(
                "{}: {}, where a folder belongs",
                path.display(),
                twcodec::input::what_it_is(&meta)
            ),
        )),
    }
}

/// What the directory's files cannot say about the container (`.twcodec/layout.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// The form of the directory ([`FORM`] for what `unpack` writes now; 1, the first, when
    /// the file has no `form` line).
    #[serde(default = "first_form")]
    pub form: u32,
    /// Datafile version, 3 or 4.
    pub version: u32,
    /// `DATA` or `ATAD`.
    pub magic: String,
    /// Whether the header has the old version-4 size fields (docs/format-notes.md,
    /// "Datafile container").
    pub old_size_fields: bool,
    /// Whether each group's folder holds its layers (`groups/NN NAME/`): the groups' layer
    /// ranges cover the layers in order, so `pack` derives them from the folders.
    #[serde(default)]
    pub groups_hold_layers: bool,
    /// Where the envelope points items are when each envelope's file holds its points.
    #[serde(default)]
    pub envelope_points: Option<PointsLayout>,
    /// The problems the original map has (`Map::problems`, errors only), which `pack`
    /// accepts again; `None` when the file is not a map that loads.
    #[serde(default)]
    pub problems: Option<Vec<String>>,
    /// The items in file order.
    #[serde(default)]
    pub items: Vec<ItemEntry>,
    /// The data items in file order.
    pub data: Vec<DataEntry>,
}

/// One item of the original file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemEntry {
    /// Its type id as stored (UUID types by their internal id).
    pub type_id: u16,
    /// Its id.
    pub id: u16,
    /// Its file in the directory, relative to it.
    pub file: String,
}

/// One data item of the original file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataEntry {
    /// SHA-256 (hex) of its decoded bytes.
    pub content: String,
    /// Its decoded size.
    pub size: usize,
    /// The file of its stored stream under `.twcodec/streams/` (named by the SHA-256 of the
    /// stored bytes); none in version-3 files, which store data as it is.
    pub stream: Option<String>,
    /// Its file in the directory, relative to it.
    #[serde(default)]
    pub file: Option<String>,
    /// Whether an item of the unpacked map named it (as the map model counts: info, images,
    /// sounds and layers), so that `pack` leaves it out once no item names it (its item was
    /// deleted), as `Map::remove_*` does; `None` in older layouts (never left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owned: Option<bool>,
    /// A version-4 data item that does not inflate to its declared `size` (a damaged or
    /// hostile map): its file (`data/NNN.stored`) holds its stored bytes, which `pack` writes
    /// back as they are, as `resave` keeps them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stored: bool,
}

fn first_form() -> u32 {
    1
}

impl Layout {
    /// A writer with this layout's version, magic and size fields.
    pub fn writer(&self) -> DatafileWriter {
        let version = if self.version == 3 {
            Version::V3
        } else {
            Version::V4
        };
        let magic = if self.magic == "ATAD" {
            Magic::Atad
        } else {
            Magic::Data
        };
        DatafileWriter::new()
            .version(version)
            .magic(magic)
            .old_size_fields(self.old_size_fields)
    }
}

/// The stored streams of a file's data items, keyed by what they decode to.
#[derive(Debug, Clone)]
pub struct Streams {
    layout: Layout,
    /// The stored bytes of each entry of `layout.data`, in order (empty for version 3).
    stored: Vec<Bytes>,
}

impl Streams {
    /// Every data item of `datafile`, decoded once to be hashed.
    pub fn of(datafile: &Datafile) -> Result<Streams, Error> {
        Streams::of_visiting(datafile, |_, _| Ok(()))
    }

    /// [`Streams::of`], showing each data item's decoded bytes to `visit` as it goes, so that a
    /// caller that needs them too (`unpack`) inflates each data item once. A version-4 data
    /// item that does not inflate (as its declared size says, within the datafile's limits) is
    /// shown as its stored bytes (`Err`), and kept as they are ([`DataEntry::stored`]).
    pub(crate) fn of_visiting(
        datafile: &Datafile,
        mut visit: impl FnMut(usize, Result<std::borrow::Cow<'_, [u8]>, Bytes>) -> Result<(), Error>,
    ) -> Result<Streams, Error> {
        let v4 = datafile.version() == Version::V4;
        let mut data = Vec::with_capacity(datafile.data_count());
        let mut stored = Vec::with_capacity(datafile.data_count());
        for index in 0..datafile.data_count() {
            let bytes = datafile.stored_data(index).unwrap_or_default();
            let decoded = match datafile.data(index) {
                Ok(decoded) => decoded,
                Err(_) if v4 => {
                    data.push(DataEntry {
                        content: String::new(),
                        size: datafile.data_size(index).unwrap_or(0),
                        stream: None,
                        file: None,
                        owned: None,
                        stored: true,
                    });
                    stored.push(Bytes::new());
                    visit(index, Err(bytes))?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            data.push(DataEntry {
                content: sha256_hex(&decoded),
                size: decoded.len(),
                stream: v4.then(|| format!("{}.zz", sha256_hex(&bytes))),
                file: None,
                owned: None,
                stored: false,
            });
            stored.push(if v4 { bytes } else { Bytes::new() });
            visit(index, Ok(decoded))?;
        }
        let layout = Layout {
            form: FORM,
            version: if v4 { 4 } else { 3 },
            magic: match datafile.magic() {
                Magic::Atad => "ATAD".to_string(),
                _ => "DATA".to_string(),
            },
            old_size_fields: datafile.size_fields() == SizeFields::OldVersion4,
            groups_hold_layers: false,
            envelope_points: None,
            problems: None,
            items: Vec::new(),
            data,
        };
        Ok(Streams { layout, stored })
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Adds `bytes` as the next data item of `writer`: the original stored stream when
    /// `bytes` decodes from one (the one at `index` first, then any other), else `bytes` to
    /// be compressed anew. Returns whether a stream was reused.
    pub fn add_data(&self, writer: &mut DatafileWriter, index: usize, bytes: Vec<u8>) -> bool {
        let content = sha256_hex(&bytes);
        let reusable =
            |e: &DataEntry| e.size == bytes.len() && e.stream.is_some() && e.content == content;
        let hint = self.layout.data.get(index).filter(|e| reusable(e));
        let found = match hint {
            Some(_) => Some(index),
            None => self.layout.data.iter().position(reusable),
        };
        match found.and_then(|i| self.stored.get(i)) {
            Some(stored) => {
                writer.add_zlib_data(stored.clone(), bytes.len());
                true
            }
            None => {
                writer.add_data(bytes);
                false
            }
        }
    }

    /// Writes `.twcodec/layout.toml` and `.twcodec/streams/` under `dir`.
    pub fn save(&self, dir: &Path) -> Result<(), Error> {
        self.save_with(dir, |path, bytes| twcodec::fs::save(path, bytes))
    }

    /// [`Streams::save`] into the new directory `unpack` writes.
    pub(crate) fn save_new(&self, dir: &Path) -> Result<(), Error> {
        self.save_with(dir, dir::write_new)
    }

    fn save_with(
        &self,
        dir: &Path,
        save: impl Fn(&Path, &[u8]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let hidden = dir.join(".twcodec");
        let streams = hidden.join("streams");
        std::fs::create_dir_all(&streams)
            .map_err(|e| Error::io("create the directory", &streams, e))?;
        let text = toml::to_string(&self.layout)
            .map_err(|e| Error::new(ErrorKind::Io, format!("layout.toml: {e}")))?;
        save(&hidden.join("layout.toml"), text.as_bytes())?;
        for (entry, stored) in self.layout.data.iter().zip(&self.stored) {
            if let Some(name) = &entry.stream {
                let path = streams.join(name);
                if !path.exists() {
                    save(&path, stored)?;
                }
            }
        }
        Ok(())
    }

    /// Reads what [`Streams::save`] wrote under `dir`. A stream file that is missing, does not
    /// match its name or does not inflate to the content the layout gives is left out (its
    /// data is compressed anew): the layout is a cache, never trusted over the content.
    ///
    /// Each stream file is read and inflated once, however many entries name it, and no more
    /// than [`Limits::max_total_data`](twcodec::Limits::max_total_data) bytes are inflated in
    /// all (past that the streams are not reused). A symbolic link in `.twcodec/` is an error:
    /// nothing is read through one.
    pub fn load(dir: &Path) -> Result<Streams, Error> {
        let limits = twcodec::Limits::DEFAULT;
        let hidden = dir.join(".twcodec");
        own_folder(&hidden)?;
        let path = hidden.join("layout.toml");
        let max = limits.max_data_size() as u64;
        let text = twcodec::input::read_own_text(&path, max, "Limits::max_data_size")?;
        let mut layout: Layout = toml::from_str(&text)
            .map_err(|e| Error::malformed(format!("{}{}", path.display(), toml_at(&text, &e))))?;
        let streams_dir = hidden.join("streams");
        let have_streams = own_folder(&streams_dir)?;
        // Each stream file once: its bytes when they hash to its name, and what it inflates
        // to (its size and content hash), once asked for a size.
        type Read = Option<(Bytes, Option<(usize, String)>)>;
        let mut read: std::collections::HashMap<String, Read> = Default::default();
        let mut budget = limits.max_total_data();
        let mut stored = Vec::with_capacity(layout.data.len());
        for entry in &mut layout.data {
            let mut reuse = None;
            if let (Some(name), true) = (&entry.stream, have_streams) {
                if !read.contains_key(name) {
                    let plain = !name.contains(['/', '\\']) && !name.starts_with('.');
                    let path = streams_dir.join(name);
                    let bytes = match plain && path.exists() {
                        true => Some(twcodec::input::read_own_file(
                            &path,
                            limits.max_file_size(),
                            "Limits::max_file_size",
                        )?),
                        false => None,
                    };
                    let bytes = bytes.filter(|b| format!("{}.zz", sha256_hex(b)) == *name);
                    read.insert(name.clone(), bytes.map(|b| (Bytes::from(b), None)));
                }
                if let Some(Some((bytes, inflated))) = read.get_mut(name) {
                    if inflated.is_none()
                        && entry.size <= limits.max_data_size()
                        && entry.size <= budget
                    {
                        budget -= entry.size;
                        *inflated = twcodec::zlib::inflate(bytes, entry.size)
                            .ok()
                            .map(|data| (data.len(), sha256_hex(&data)));
                    }
                    if inflated.as_ref() == Some(&(entry.size, entry.content.clone())) {
                        reuse = Some(bytes.clone());
                    }
                }
            }
            if reuse.is_none() {
                entry.stream = None;
            }
            stored.push(reuse.unwrap_or_default());
        }
        Ok(Streams { layout, stored })
    }
}
