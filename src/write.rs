//! The datafile writer: a builder of items and data items that writes version 4 (default) or 3.
//!
//! Item types are written sorted ascending, items of one type in the order they were added,
//! data items in index order. UUID item types get internal type ids from `0xFFFE` downward with
//! their UUID index items. `size`, `swaplen` and every count and offset are calculated by the
//! schema's [`DatafileLayout`].
//!
//! **Lossless re-save:** [`DatafileWriter::from_datafile`] keeps every data item's stored bytes,
//! the magic and the kind of size fields, so writing an unmodified version-4 file gives the same
//! bytes (trailing bytes after the data block aside, which the reader reports). Data that is new
//! or replaced is compressed at the configured level (default 6, as DDNet and Teeworlds write).
//!
//! **Files** are written by [`DatafileWriter::save`] through [`crate::fs`], as every `save`
//! method of the crate: atomically, the replaced file's mode kept.

use std::borrow::Cow;
use std::io::{BufWriter, Write};
#[cfg(feature = "fs")]
use std::path::Path;

use binrw::io::NoSeek;
use binrw::BinWrite;
use bytes::Bytes;
use twcodec_schema::datafile::{DataBlock, DatafileLayout, Item, Magic, Version};
use twcodec_schema::uuid::{Uuid, UuidIndexItem, OFFSET_UUID_TYPE, UUID_INDEX_TYPE};

use crate::datafile::{data_error, Datafile, SizeFields};
use crate::error::{Error, ErrorKind, Location};
use crate::limits::Limits;
use crate::zlib;

/// The zlib level DDNet and Teeworlds write with (zlib's default).
pub const DEFAULT_COMPRESSION_LEVEL: u32 = 6;

/// A data item's bytes as the file stores them, and its uncompressed size.
struct StoredData<'a> {
    bytes: Cow<'a, [u8]>,
    size: usize,
}

/// A data item to be written.
#[derive(Debug, Clone)]
enum DataSource {
    /// Uncompressed bytes; compressed when writing version 4.
    Plain(Bytes),
    /// A zlib stream as a version-4 file stores it, and its uncompressed size.
    Zlib { stored: Bytes, size: usize },
}

/// Builds a datafile from items and data items, then writes it.
///
/// ```
/// use twcodec::{Datafile, DatafileWriter};
///
/// let mut writer = DatafileWriter::new();
/// let text = writer.add_data(&b"hello\0"[..]);
/// writer.add_item(1, 0, vec![1, text as i32]);
/// let bytes = writer.to_vec()?;
///
/// let df = Datafile::parse(&bytes)?;
/// assert_eq!(df.item(1, 0).unwrap().data, [1, 0]);
/// assert_eq!(&*df.data(0)?, b"hello\0");
/// # Ok::<(), twcodec::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct DatafileWriter {
    version: Version,
    magic: Magic,
    old_size_fields: bool,
    level: u32,
    recompress: bool,
    limits: Limits,
    items: Vec<Item>,
    data: Vec<DataSource>,
}

impl Default for DatafileWriter {
    fn default() -> Self {
        DatafileWriter::new()
    }
}

impl DatafileWriter {
    /// An empty version-4 datafile with magic `DATA`, compressing at level 6.
    pub fn new() -> DatafileWriter {
        DatafileWriter {
            version: Version::V4,
            magic: Magic::Data,
            old_size_fields: false,
            level: DEFAULT_COMPRESSION_LEVEL,
            recompress: false,
            limits: Limits::DEFAULT,
            items: Vec::new(),
            data: Vec::new(),
        }
    }

    /// Everything `datafile` holds, to write it back losslessly: its items (UUID index items
    /// included, with their internal type ids), its data items' stored bytes, its version,
    /// magic and kind of size fields, and the [`Limits`] it was read under.
    pub fn from_datafile(datafile: &Datafile) -> DatafileWriter {
        let data = (0..datafile.data_count())
            .filter_map(|index| {
                let stored = datafile.stored_data(index)?;
                Some(match datafile.version() {
                    Version::V3 => DataSource::Plain(stored),
                    Version::V4 => DataSource::Zlib {
                        stored,
                        size: datafile.data_size(index)?,
                    },
                })
            })
            .collect();
        DatafileWriter {
            version: datafile.version(),
            magic: datafile.magic(),
            old_size_fields: datafile.size_fields() == SizeFields::OldVersion4,
            level: DEFAULT_COMPRESSION_LEVEL,
            recompress: false,
            limits: datafile.limits(),
            items: datafile.items().to_vec(),
            data,
        }
    }

    /// Writes version 3 (data stored as is) or 4 (zlib-compressed data).
    pub fn version(mut self, version: Version) -> DatafileWriter {
        self.version = version;
        self
    }

    /// Writes `DATA` (the default) or `ATAD`.
    pub fn magic(mut self, magic: Magic) -> DatafileWriter {
        self.magic = magic;
        self
    }

    /// Computes `size` and `swaplen` like old version-4 writers (only to reproduce such files).
    pub fn old_size_fields(mut self, old: bool) -> DatafileWriter {
        self.old_size_fields = old;
        self
    }

    /// The zlib level for new or changed data, 0..=9 (default 6).
    pub fn compression_level(mut self, level: u32) -> DatafileWriter {
        self.level = level;
        self
    }

    /// Compresses every data item again, not only new and changed ones.
    pub fn recompress(mut self, recompress: bool) -> DatafileWriter {
        self.recompress = recompress;
        self
    }

    /// The [`Limits`] a stored data item is inflated under, when writing it needs its bytes
    /// (recompressing, or writing version 3 from version-4 data): its
    /// [`max_data_size`](Limits::max_data_size). The defaults, or the source's.
    pub fn limits(mut self, limits: Limits) -> DatafileWriter {
        self.limits = limits;
        self
    }

    /// The items so far, in the order they were added.
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// The items so far, to change their ints.
    pub fn items_mut(&mut self) -> &mut [Item] {
        &mut self.items
    }

    /// Adds an item with a plain (internal) type id; returns its position in [`Self::items`].
    pub fn add_item(&mut self, type_id: u16, id: u16, data: Vec<i32>) -> usize {
        self.items.push(Item::new(type_id, id, data));
        self.items.len() - 1
    }

    /// The internal type id of `uuid`, if a UUID index item names it already. Scans the items.
    pub fn uuid_type(&self, uuid: Uuid) -> Option<u16> {
        self.items
            .iter()
            .filter(|item| item.type_id() == UUID_INDEX_TYPE)
            .find(|item| UuidIndexItem::decode(&item.data).is_some_and(|index| index.uuid == uuid))
            .map(Item::id)
    }

    /// Adds an item of a UUID item type, giving the type an internal type id (from `0xFFFE`
    /// downward) and a UUID index item the first time; returns the internal type id. Each call
    /// scans the items: to add many items of one UUID type, add the first one here and the rest
    /// with [`add_item`](Self::add_item) and the type id it returned.
    pub fn add_uuid_item(&mut self, uuid: Uuid, id: u16, data: Vec<i32>) -> Result<u16, Error> {
        let type_id = match self.uuid_type(uuid) {
            Some(type_id) => type_id,
            None => {
                let type_id = self.free_uuid_type()?;
                self.add_item(UUID_INDEX_TYPE, type_id, UuidIndexItem::new(uuid).encode());
                type_id
            }
        };
        self.add_item(type_id, id, data);
        Ok(type_id)
    }

    /// The highest internal type id below `0xFFFF` that no item or UUID index item uses.
    fn free_uuid_type(&self) -> Result<u16, Error> {
        // One pass over the items marks the used type ids.
        let mut used = vec![false; usize::from(u16::MAX) + 1];
        for item in &self.items {
            used[usize::from(item.type_id())] = true;
            if item.type_id() == UUID_INDEX_TYPE {
                used[usize::from(item.id())] = true;
            }
        }
        (OFFSET_UUID_TYPE + 1..UUID_INDEX_TYPE)
            .rev()
            .find(|&type_id| !used[usize::from(type_id)])
            .ok_or_else(|| Error::limit("every internal UUID type id is taken"))
    }

    /// Adds a data item of uncompressed bytes; returns its index.
    pub fn add_data(&mut self, data: impl Into<Bytes>) -> usize {
        self.data.push(DataSource::Plain(data.into()));
        self.data.len() - 1
    }

    /// Adds a data item already compressed as a zlib stream, with its uncompressed size; it is
    /// written as it is in version 4. Returns its index.
    pub fn add_zlib_data(&mut self, stored: impl Into<Bytes>, size: usize) -> usize {
        self.data.push(DataSource::Zlib {
            stored: stored.into(),
            size,
        });
        self.data.len() - 1
    }

    /// Replaces the data item at `index` with new uncompressed bytes.
    pub fn replace_data(&mut self, index: usize, data: impl Into<Bytes>) -> Result<(), Error> {
        let count = self.data.len();
        let slot = self.data.get_mut(index).ok_or_else(|| {
            Error::new(
                ErrorKind::Malformed,
                format!("data index {index} does not exist (the writer has {count} data items)"),
            )
        })?;
        *slot = DataSource::Plain(data.into());
        Ok(())
    }

    /// Number of data items so far.
    pub fn data_count(&self) -> usize {
        self.data.len()
    }

    /// Writes the datafile.
    pub fn write(&self, writer: impl Write) -> Result<(), Error> {
        if self.level > 9 {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!("compression level {} is not in 0..=9", self.level),
            ));
        }
        let stored = self.stored_data()?;
        let blocks: Vec<DataBlock<'_>> = stored
            .iter()
            .map(|data| DataBlock {
                stored: &data.bytes,
                size: data.size,
            })
            .collect();
        let items = self.sorted_items();
        let layout = DatafileLayout {
            magic: self.magic,
            version: self.version,
            old_size_fields: self.old_size_fields && self.version == Version::V4,
            items: &items,
            data: &blocks,
        };
        let mut out = NoSeek::new(BufWriter::new(writer));
        layout
            .write(&mut out)
            .map_err(|e| Error::from_binrw(e, "datafile"))?;
        out.into_inner().flush().map_err(|e| {
            Error::new(ErrorKind::Io, format!("cannot write the datafile: {e}")).caused_by(e)
        })
    }

    /// Writes the datafile into a new vector.
    pub fn to_vec(&self) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        self.write(&mut out)?;
        Ok(out)
    }

    /// Writes the datafile to `path` atomically: into a temporary file beside it, then renamed
    /// over it, so a crash never leaves a half-written file.
    #[cfg(feature = "fs")]
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        crate::fs::save_with(path.as_ref(), |file| self.write(file))
    }

    /// The items grouped by type in ascending order, each type's items in insertion order.
    fn sorted_items(&self) -> Cow<'_, [Item]> {
        if self.items.is_sorted_by_key(Item::type_id) {
            Cow::Borrowed(&self.items)
        } else {
            let mut items = self.items.clone();
            items.sort_by_key(Item::type_id);
            Cow::Owned(items)
        }
    }

    /// Each data item's bytes as this version stores them, with its uncompressed size. Data is
    /// compressed and inflated in parallel (rayon's pool; run inside a one-thread pool to write
    /// sequentially).
    fn stored_data(&self) -> Result<Vec<StoredData<'_>>, Error> {
        #[cfg(feature = "parallel")]
        use rayon::prelude::*;
        #[cfg(feature = "parallel")]
        let items = self.data.par_iter();
        #[cfg(not(feature = "parallel"))]
        let items = self.data.iter();
        items
            .enumerate()
            .map(|(index, source)| {
                let (bytes, size) = match (source, self.version) {
                    (DataSource::Plain(data), Version::V3) => {
                        (Cow::Borrowed(&data[..]), data.len())
                    }
                    (DataSource::Plain(data), Version::V4) => {
                        (Cow::Owned(zlib::deflate(data, self.level)), data.len())
                    }
                    (DataSource::Zlib { stored, size }, Version::V4) if !self.recompress => {
                        (Cow::Borrowed(&stored[..]), *size)
                    }
                    (DataSource::Zlib { stored, size }, Version::V4) => {
                        let data = self.inflate(index, stored, *size)?;
                        (Cow::Owned(zlib::deflate(&data, self.level)), *size)
                    }
                    (DataSource::Zlib { stored, size }, Version::V3) => {
                        (Cow::Owned(self.inflate(index, stored, *size)?), *size)
                    }
                };
                Ok(StoredData { bytes, size })
            })
            .collect()
    }

    /// Inflates a stored data item under the [`Limits::max_data_size`] of the writer.
    fn inflate(&self, index: usize, stored: &[u8], size: usize) -> Result<Vec<u8>, Error> {
        if size > self.limits.max_data_size() {
            return Err(Error::limit(format!(
                "declares {size} uncompressed bytes, more than the limit of {} \
                 (Limits::max_data_size)",
                self.limits.max_data_size()
            ))
            .located(Location::Data { index }));
        }
        zlib::inflate(stored, size).map_err(|e| data_error(index, None, e))
    }
}

impl Datafile {
    /// Writes this datafile back, losslessly: unchanged data keeps its stored bytes, so an
    /// unmodified version-4 file comes out byte for byte (trailing bytes aside).
    pub fn write(&self, writer: impl Write) -> Result<(), Error> {
        DatafileWriter::from_datafile(self).write(writer)
    }
}
