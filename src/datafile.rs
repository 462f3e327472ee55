//! The datafile reader: a validated view of a version 3 or 4 datafile.
//!
//! [`Datafile::parse`] reads the layout through the schema ([`twcodec_schema::datafile`]) and
//! checks, in this order, before anything is allocated from a count:
//!
//! 1. the magic (`DATA` or `ATAD`) and the version (3 or 4);
//! 2. header counts and sizes: none negative, `item_size` a multiple of 4, at most 65536 item
//!    types, and every table and block they imply fits in the file;
//! 3. the item type table: type ids in 0..=0xFFFF and unique, `num` not negative, each `start`
//!    right after the previous entry's items, all entries together listing `num_items` items;
//! 4. item offsets: the first 0, each after the previous one, inside the item block; each item
//!    at least its 8-byte header, its `size` field equal to the space up to the next item, its
//!    key's type equal to the type the table puts it under;
//! 5. data offsets: the first 0, none before the previous one, none past the data block; version 4
//!    uncompressed sizes not negative.
//!
//! What real files contain is accepted with a [`Warning`]: the old version-4 `size`/`swaplen`
//! variant, other wrong size fields, trailing bytes, unsorted item types, empty item types,
//! duplicate item ids, duplicate or short UUID index items, data declared empty.
//!
//! Data items are only read on request: [`Datafile::data`] inflates a version-4 data item into
//! exactly its declared size, refusing a declaration its stored bytes cannot reach, and grows
//! its buffer only as the stream delivers, so a lying declaration allocates nothing.
//!
//! [`Limits`] bound the rest: items (`num_items`), the data declared in all (checked by
//! [`Datafile::parse_with`]) and each data item (checked by [`Datafile::data`]).

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::path::Path;

use binrw::io::Cursor;
use binrw::BinRead;
use bytes::Bytes;
use twcodec_schema::datafile::{
    Header, Item, ItemHeader, ItemType, Magic, Tables, Version, VersionHeader,
};
use twcodec_schema::uuid::{Uuid, UuidIndexItem, UUID_INDEX_TYPE};
use twcodec_schema::SchemaError;

use crate::error::{Error, ErrorKind, Location, Warning, WarningKind};
use crate::limits::Limits;
use crate::sniff::FileKind;
use crate::zlib;

/// How the header's `size` and `swaplen` were computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SizeFields {
    /// As the format document and every current writer compute them.
    Standard,
    /// Without the data-size table, as old version-4 writers computed them
    /// (docs/format-notes.md, "Datafile container").
    OldVersion4,
    /// Neither; a re-save writes standard values.
    Inconsistent,
}

/// Where a data item lies in the file.
#[derive(Debug, Clone, Copy)]
struct DataSpan {
    /// Absolute offset of its stored bytes.
    start: usize,
    /// Number of stored bytes.
    len: usize,
    /// Uncompressed size: declared (version 4) or stored length (version 3).
    size: usize,
}

/// A datafile: its items and lazily decompressed data items, after every check of the module
/// documentation.
#[derive(Clone)]
pub struct Datafile {
    bytes: Bytes,
    magic: Magic,
    version: Version,
    header: Header,
    tables: Tables,
    items: Vec<Item>,
    item_starts: Vec<usize>,
    data: Vec<DataSpan>,
    uuid_types: Vec<(u16, Uuid)>,
    /// The UUID item types sorted by UUID (then type id), for lookups by UUID.
    uuid_lookup: Vec<(Uuid, u16)>,
    /// The item type table's entries sorted by type id: (type id, table index).
    type_index: Vec<(u16, usize)>,
    size_fields: SizeFields,
    end: usize,
    warnings: Vec<Warning>,
    limits: Limits,
}

/// Where each part of the file starts, from the header.
struct Sections {
    item_offsets: usize,
    data_offsets: usize,
    data_sizes: usize,
    items: usize,
    data: usize,
    end: usize,
}

/// Offsets of the header fields, for errors that point at them.
mod field {
    pub const VERSION: u64 = 4;
    pub const SIZE: u64 = 8;
    pub const SWAPLEN: u64 = 12;
    pub const NUM_ITEM_TYPES: u64 = 16;
    pub const NUM_ITEMS: u64 = 20;
    pub const NUM_DATA: u64 = 24;
    pub const ITEM_SIZE: u64 = 28;
    pub const DATA_SIZE: u64 = 32;
}

/// Number of item type ids that exist (0..=0xFFFF).
const NUM_TYPE_IDS: i64 = 0x1_0000;

impl Datafile {
    /// Parses and checks a datafile held in memory; the bytes are copied once.
    pub fn parse(bytes: &[u8]) -> Result<Datafile, Error> {
        Datafile::parse_with(bytes, Limits::DEFAULT)
    }

    /// [`Datafile::parse`] under other [`Limits`].
    pub fn parse_with(bytes: &[u8], limits: Limits) -> Result<Datafile, Error> {
        Datafile::from_bytes_with(Bytes::copy_from_slice(bytes), limits)
    }

    /// Parses and checks a datafile, taking ownership of its bytes without copying them.
    pub fn from_bytes(bytes: impl Into<Bytes>) -> Result<Datafile, Error> {
        Datafile::from_bytes_with(bytes, Limits::DEFAULT)
    }

    /// [`Datafile::from_bytes`] under other [`Limits`].
    pub fn from_bytes_with(bytes: impl Into<Bytes>, limits: Limits) -> Result<Datafile, Error> {
        parse(bytes.into(), limits)
    }

    /// Reads, parses and checks the datafile at `path`. Errors name the path.
    pub fn open(path: impl AsRef<Path>) -> Result<Datafile, Error> {
        Datafile::open_with(path, Limits::DEFAULT)
    }

    /// [`Datafile::open`] under other [`Limits`].
    pub fn open_with(path: impl AsRef<Path>, limits: Limits) -> Result<Datafile, Error> {
        let path = path.as_ref();
        let bytes = crate::input::read_file(path, limits.max_file_size(), "Limits::max_file_size")?;
        Datafile::from_bytes_with(bytes, limits).map_err(|e| e.with_path(path))
    }

    /// The limits this datafile was read under; a map resolved from it keeps them.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// `DATA` or `ATAD`.
    pub fn magic(&self) -> Magic {
        self.magic
    }

    /// Version 3 or 4.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The header as read.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The tables between the header and the items, as read.
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// How the header's `size` and `swaplen` were computed.
    pub fn size_fields(&self) -> SizeFields {
        self.size_fields
    }

    /// Length of the file in bytes, trailing bytes included.
    pub fn file_len(&self) -> usize {
        self.bytes.len()
    }

    /// Number of bytes after the data block.
    pub fn trailing_len(&self) -> usize {
        self.bytes.len() - self.end
    }

    /// What was unusual but did not stop loading.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Every item, in file order (grouped by type, in item type table order).
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// The type ids of the item type table, in table order.
    pub fn type_ids(&self) -> impl Iterator<Item = u16> + '_ {
        // The parser checked every type id to be in 0..=0xFFFF.
        self.tables.item_types.iter().map(|t| t.type_id as u16)
    }

    /// The items of the given (internal) type id, in file order. A binary search of the type
    /// table.
    pub fn items_of_type(&self, type_id: u16) -> &[Item] {
        self.type_index
            .binary_search_by_key(&type_id, |&(t, _)| t)
            .ok()
            .and_then(|i| self.tables.item_types.get(self.type_index[i].1))
            .map_or(&[], |t| {
                // The parser checked start and num against the item count.
                let start = t.start as usize;
                &self.items[start..start + t.num as usize]
            })
    }

    /// The first item with this type id and id: a search of the items of that type (to look
    /// up many items, walk [`Datafile::items_of_type`] once instead).
    pub fn item(&self, type_id: u16, id: u16) -> Option<&Item> {
        self.items_of_type(type_id).iter().find(|i| i.id() == id)
    }

    /// Absolute byte offset of the item with this index in [`Datafile::items`].
    pub fn item_offset(&self, index: usize) -> Option<usize> {
        self.item_starts.get(index).copied()
    }

    /// The UUID item types: internal type id and UUID, from the UUID index items, sorted by
    /// type id. A type id with several index items gets the first one's UUID.
    pub fn uuid_types(&self) -> &[(u16, Uuid)] {
        &self.uuid_types
    }

    /// The UUID of an internal type id, if a UUID index item names one.
    pub fn uuid_of_type(&self, type_id: u16) -> Option<Uuid> {
        self.uuid_types
            .binary_search_by_key(&type_id, |&(t, _)| t)
            .ok()
            .map(|i| self.uuid_types[i].1)
    }

    /// The internal type id of a UUID item type (the lowest, if several index items name it).
    pub fn type_of_uuid(&self, uuid: Uuid) -> Option<u16> {
        let first = self.uuid_lookup.partition_point(|&(u, _)| u < uuid);
        self.uuid_lookup
            .get(first)
            .filter(|&&(u, _)| u == uuid)
            .map(|&(_, t)| t)
    }

    /// The items of a UUID item type.
    pub fn items_of_uuid(&self, uuid: Uuid) -> &[Item] {
        self.type_of_uuid(uuid)
            .map_or(&[], |type_id| self.items_of_type(type_id))
    }

    /// Number of data items.
    pub fn data_count(&self) -> usize {
        self.data.len()
    }

    /// The uncompressed size of a data item: declared in version 4, stored in version 3.
    pub fn data_size(&self, index: usize) -> Option<usize> {
        self.data.get(index).map(|d| d.size)
    }

    /// The bytes of a data item as stored in the file: a zlib stream in version 4.
    pub fn stored_data(&self, index: usize) -> Option<Bytes> {
        self.data
            .get(index)
            .map(|d| self.bytes.slice(d.start..d.start + d.len))
    }

    /// The uncompressed bytes of a data item, inflated now (version 4) or borrowed (version 3).
    ///
    /// Version-4 data must inflate to exactly its declared size; the output buffer is that size
    /// and nothing beyond it is ever produced.
    pub fn data(&self, index: usize) -> Result<Cow<'_, [u8]>, Error> {
        let span = self.data.get(index).ok_or_else(|| {
            Error::new(
                ErrorKind::Malformed,
                format!(
                    "data index {index} does not exist (the file has {} data items)",
                    self.data.len()
                ),
            )
        })?;
        if span.size > self.limits.max_data_size() {
            return Err(Error::limit(format!(
                "declares {} uncompressed bytes, more than the limit of {} (Limits::max_data_size)",
                span.size,
                self.limits.max_data_size()
            ))
            .located(Location::Data { index })
            .at(span.start));
        }
        let stored = &self.bytes[span.start..span.start + span.len];
        match self.version {
            Version::V3 => Ok(Cow::Borrowed(stored)),
            Version::V4 => zlib::inflate(stored, span.size)
                .map(Cow::Owned)
                .map_err(|e| data_error(index, Some(span.start), e)),
        }
    }
}

impl fmt::Debug for Datafile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Datafile")
            .field("magic", &self.magic)
            .field("version", &self.version)
            .field("header", &self.header)
            .field("items", &self.items.len())
            .field("data", &self.data.len())
            .field("warnings", &self.warnings)
            .finish_non_exhaustive()
    }
}

/// Turns an inflate failure into an error about data item `index`.
pub(crate) fn data_error(index: usize, offset: Option<usize>, error: zlib::InflateError) -> Error {
    let kind = match error {
        zlib::InflateError::Alloc { .. } => ErrorKind::LimitExceeded,
        _ => ErrorKind::Malformed,
    };
    let error = Error::new(kind, error.to_string()).located(Location::Data { index });
    match offset {
        Some(offset) => error.at(offset),
        None => error,
    }
}

fn parse(bytes: Bytes, limits: Limits) -> Result<Datafile, Error> {
    let file_len = bytes.len();
    FileKind::check(&bytes, FileKind::Datafile, "a datafile (a map)")?;
    let mut cursor = Cursor::new(&bytes[..]);
    let version_header = VersionHeader::read(&mut cursor).map_err(|e| {
        let unsupported = e
            .custom_err::<SchemaError>()
            .is_some_and(|e| matches!(e, SchemaError::UnsupportedVersion(_)));
        let error = truncated_or(e, file_len, "version header");
        // binrw places field errors at the start of the struct; point at the field.
        if unsupported {
            error.at(field::VERSION)
        } else {
            error
        }
    })?;
    let header = Header::read_le(&mut cursor).map_err(|e| truncated_or(e, file_len, "header"))?;
    let version = version_header.version;

    let sections = sections(&header, version, file_len)?;
    if header.num_items as usize > limits.max_items() {
        return Err(Error::limit(format!(
            "num_items {} is more than the limit of {} (Limits::max_items)",
            header.num_items,
            limits.max_items()
        ))
        .located(Location::Header)
        .at(field::NUM_ITEMS));
    }
    let tables = Tables::read_le_args(&mut cursor, binrw::args! { version, header })
        .map_err(|e| Error::from_binrw(e, "tables").located(Location::Header))?;

    let mut warnings = Vec::new();
    check_item_types(&tables.item_types, &header, &mut warnings)?;
    let (items, item_starts) = read_items(&bytes, &tables, &header, &sections)?;
    check_item_ids(&items, &item_starts, &mut warnings);
    let uuid_types = uuid_types(&items, &item_starts, &mut warnings);
    let mut uuid_lookup: Vec<(Uuid, u16)> = uuid_types.iter().map(|&(t, u)| (u, t)).collect();
    uuid_lookup.sort_unstable();
    let mut type_index: Vec<(u16, usize)> = tables
        .item_types
        .iter()
        .enumerate()
        .map(|(index, t)| (t.type_id as u16, index))
        .collect();
    type_index.sort_unstable();
    let data = data_spans(&tables, &header, &sections, &mut warnings)?;
    let total = data
        .iter()
        .fold(0usize, |sum, span| sum.saturating_add(span.size));
    if total > limits.max_total_data() {
        return Err(Error::limit(format!(
            "the data items declare {total} uncompressed bytes in all, more than the limit of \
             {} (Limits::max_total_data)",
            limits.max_total_data()
        ))
        .located(Location::Header)
        .at(sections.data_sizes as u64));
    }
    let size_fields = check_size_fields(&header, version, &sections, &mut warnings);
    if sections.end < file_len {
        warnings.push(Warning {
            kind: WarningKind::TrailingBytes {
                len: (file_len - sections.end) as u64,
            },
            location: None,
            offset: Some(sections.end as u64),
        });
    }

    Ok(Datafile {
        magic: version_header.magic,
        version,
        header,
        tables,
        items,
        item_starts,
        data,
        uuid_types,
        uuid_lookup,
        type_index,
        size_fields,
        end: sections.end,
        warnings,
        bytes,
        limits,
    })
}

/// A header read error: the file being too short says so, anything else is the schema's error.
fn truncated_or(error: binrw::Error, file_len: usize, what: &str) -> Error {
    let error = Error::from_binrw(error, what).located(Location::Header);
    if error.offset().is_none() {
        Error::malformed(format!(
            "the file is {file_len} bytes long, too short for the 36 bytes of the version header and header"
        ))
        .located(Location::Header)
    } else {
        error
    }
}

/// Checks the header's counts and sizes and finds where each part of the file starts.
fn sections(header: &Header, version: Version, file_len: usize) -> Result<Sections, Error> {
    let header_error = |offset: u64, message: String| {
        Error::malformed(message)
            .located(Location::Header)
            .at(offset)
    };
    let fields = [
        (
            "num_item_types",
            field::NUM_ITEM_TYPES,
            header.num_item_types,
        ),
        ("num_items", field::NUM_ITEMS, header.num_items),
        ("num_data", field::NUM_DATA, header.num_data),
        ("item_size", field::ITEM_SIZE, header.item_size),
        ("data_size", field::DATA_SIZE, header.data_size),
    ];
    for (name, offset, value) in fields {
        if value < 0 {
            return Err(header_error(
                offset,
                format!("{name} is {value}, a negative count"),
            ));
        }
    }
    if i64::from(header.num_item_types) > NUM_TYPE_IDS {
        return Err(header_error(
            field::NUM_ITEM_TYPES,
            format!(
                "num_item_types {} is more than the {NUM_TYPE_IDS} type ids that exist",
                header.num_item_types
            ),
        ));
    }
    if header.item_size % 4 != 0 {
        return Err(header_error(
            field::ITEM_SIZE,
            format!("item_size {} is not a multiple of 4", header.item_size),
        ));
    }

    // Every count is a non-negative i32 now, so these products fit in u64.
    let count = |value: i32| value as u64;
    let data_tables = if version == Version::V4 { 8 } else { 4 };
    let parts = [
        (
            "num_item_types",
            field::NUM_ITEM_TYPES,
            count(header.num_item_types) * 12,
            "of item types",
        ),
        (
            "num_items",
            field::NUM_ITEMS,
            count(header.num_items) * 4,
            "of item offsets",
        ),
        (
            "num_data",
            field::NUM_DATA,
            count(header.num_data) * data_tables,
            "of data offsets and sizes",
        ),
        (
            "item_size",
            field::ITEM_SIZE,
            count(header.item_size),
            "of items",
        ),
        (
            "data_size",
            field::DATA_SIZE,
            count(header.data_size),
            "of data",
        ),
    ];
    let file_len = file_len as u64;
    let mut starts = [0usize; 6];
    let mut position = (VersionHeader::SIZE + Header::SIZE) as u64;
    for (i, (name, offset, needed, what)) in parts.into_iter().enumerate() {
        starts[i] = position as usize;
        let left = file_len.saturating_sub(position);
        if needed > left {
            let value = [
                header.num_item_types,
                header.num_items,
                header.num_data,
                header.item_size,
                header.data_size,
            ][i];
            let message = if name.ends_with("_size") {
                format!("{name} {value} is larger than the file ({left} bytes left)")
            } else {
                format!("{name} {value} needs {needed} bytes {what}, but the file has {left} bytes left")
            };
            return Err(header_error(offset, message));
        }
        position += needed;
    }
    starts[5] = position as usize;
    let data_offsets = starts[2];
    Ok(Sections {
        item_offsets: starts[1],
        data_offsets,
        data_sizes: data_offsets + header.num_data as usize * 4,
        items: starts[3],
        data: starts[4],
        end: starts[5],
    })
}

/// Checks the item type table (step 3 of the module documentation).
fn check_item_types(
    item_types: &[ItemType],
    header: &Header,
    warnings: &mut Vec<Warning>,
) -> Result<(), Error> {
    let table_start = (VersionHeader::SIZE + Header::SIZE) as u64;
    let mut seen = HashSet::new();
    let mut listed: i64 = 0;
    let mut sorted = true;
    for (index, entry) in item_types.iter().enumerate() {
        let location = Location::ItemType {
            index,
            type_id: entry.type_id,
        };
        let at = table_start + index as u64 * ItemType::SIZE as u64;
        let error = |offset: u64, message: String| {
            Error::malformed(message).located(location).at(at + offset)
        };
        if !(0..NUM_TYPE_IDS).contains(&i64::from(entry.type_id)) {
            return Err(error(
                0,
                format!("type id {} is not in 0..=65535", entry.type_id),
            ));
        }
        if !seen.insert(entry.type_id) {
            return Err(error(
                0,
                "the type appears twice in the item type table".into(),
            ));
        }
        if i64::from(entry.start) != listed {
            return Err(error(
                4,
                format!(
                    "start is {}, but the entries before it end at item {listed}",
                    entry.start
                ),
            ));
        }
        if entry.num < 0 {
            return Err(error(8, format!("num is {}, a negative count", entry.num)));
        }
        if entry.num == 0 {
            warnings.push(Warning {
                kind: WarningKind::EmptyItemType,
                location: Some(location),
                offset: Some(at + 8),
            });
        }
        if index > 0 && entry.type_id < item_types[index - 1].type_id {
            sorted = false;
        }
        listed += i64::from(entry.num);
        if listed > i64::from(header.num_items) {
            return Err(error(
                8,
                format!(
                    "num {} lists items past the {} the header declares",
                    entry.num, header.num_items
                ),
            ));
        }
    }
    if listed != i64::from(header.num_items) {
        return Err(Error::malformed(format!(
            "num_items is {}, but the item type table lists {listed} items",
            header.num_items
        ))
        .located(Location::Header)
        .at(field::NUM_ITEMS));
    }
    if !sorted {
        warnings.push(Warning {
            kind: WarningKind::UnsortedItemTypes,
            location: None,
            offset: Some(table_start),
        });
    }
    Ok(())
}

/// Checks the item offsets: the first 0, each after the previous one, all inside the item
/// block (step 4 of the module documentation).
fn check_item_offsets(tables: &Tables, header: &Header, sections: &Sections) -> Result<(), Error> {
    let offsets = &tables.item_offsets;
    for (index, &offset) in offsets.iter().enumerate() {
        let error = |message: String| {
            Error::malformed(message)
                .located(Location::ItemIndex { index })
                .at(sections.item_offsets + 4 * index)
        };
        if index == 0 && offset != 0 {
            return Err(error(format!("first item offset is {offset}, must be 0")));
        }
        if index > 0 && offset <= offsets[index - 1] {
            return Err(error(format!(
                "item offset {offset} is not after the previous one ({})",
                offsets[index - 1]
            )));
        }
        if offset >= header.item_size {
            return Err(error(format!(
                "item offset {offset} is past the end of the item block (item_size {})",
                header.item_size
            )));
        }
    }
    Ok(())
}

/// Reads every item, checking its size and type (step 4 of the module documentation). The
/// offsets are checked already: increasing, inside the item block.
fn read_items(
    bytes: &[u8],
    tables: &Tables,
    header: &Header,
    sections: &Sections,
) -> Result<(Vec<Item>, Vec<usize>), Error> {
    check_item_offsets(tables, header, sections)?;
    let offsets = &tables.item_offsets;
    let mut items = Vec::with_capacity(offsets.len());
    let mut starts = Vec::with_capacity(offsets.len());
    let types = tables
        .item_types
        .iter()
        .flat_map(|t| std::iter::repeat_n(t.type_id, t.num as usize));
    for (index, (&offset, table_type)) in offsets.iter().zip(types).enumerate() {
        let start = offset as usize;
        let end = offsets
            .get(index + 1)
            .map_or(header.item_size, |&next| next) as usize;
        let span = end - start;
        let absolute = sections.items + start;
        if span < ItemHeader::SIZE {
            return Err(Error::malformed(format!(
                "item is {span} bytes, too small for its 8-byte header"
            ))
            .located(Location::ItemIndex { index })
            .at(absolute));
        }

        // The cursor ends with the item, so no field can reach into the next one.
        let mut cursor = Cursor::new(&bytes[..sections.items + end]);
        cursor.set_position(absolute as u64);
        let item_header = ItemHeader::read(&mut cursor).map_err(|e| {
            Error::from_binrw(e, "item")
                .located(Location::ItemIndex { index })
                .at(absolute + 4)
        })?;
        let location = Location::Item {
            index,
            type_id: item_header.key.type_id,
            id: item_header.key.id,
        };
        if i32::from(item_header.key.type_id) != table_type {
            return Err(Error::malformed(format!(
                "the item type table puts this item among type {table_type}"
            ))
            .located(location)
            .at(absolute));
        }
        if item_header.size as usize != span - ItemHeader::SIZE {
            return Err(Error::malformed(format!(
                "size field says {} bytes, but the item has {} bytes up to {}",
                item_header.size,
                span - ItemHeader::SIZE,
                if index + 1 < offsets.len() {
                    "the next item"
                } else {
                    "the end of the item block"
                }
            ))
            .located(location)
            .at(absolute + 4));
        }
        cursor.set_position(absolute as u64);
        let item =
            Item::read(&mut cursor).map_err(|e| Error::from_binrw(e, "item").located(location))?;
        items.push(item);
        starts.push(absolute);
    }
    Ok((items, starts))
}

/// Warns about duplicate ids within a type.
fn check_item_ids(items: &[Item], starts: &[usize], warnings: &mut Vec<Warning>) {
    let mut seen = HashSet::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        if !seen.insert(item.key) {
            let kind = if item.type_id() == UUID_INDEX_TYPE {
                WarningKind::DuplicateUuidIndexItem
            } else {
                WarningKind::DuplicateItemId
            };
            warnings.push(Warning {
                kind,
                location: Some(item_location(index, item)),
                offset: Some(starts[index] as u64),
            });
        }
    }
}

/// The UUID item types named by the UUID index items, sorted by internal type id.
fn uuid_types(items: &[Item], starts: &[usize], warnings: &mut Vec<Warning>) -> Vec<(u16, Uuid)> {
    let mut types: Vec<(u16, Uuid)> = Vec::new();
    let mut seen: HashSet<u16> = HashSet::new();
    for (index, item) in items.iter().enumerate() {
        if item.type_id() != UUID_INDEX_TYPE {
            continue;
        }
        match UuidIndexItem::decode(&item.data) {
            Some(index_item) => {
                if seen.insert(item.id()) {
                    types.push((item.id(), index_item.uuid));
                }
            }
            None => warnings.push(Warning {
                kind: WarningKind::ShortUuidIndexItem {
                    len: item.data.len(),
                },
                location: Some(item_location(index, item)),
                offset: Some(starts[index] as u64),
            }),
        }
    }
    types.sort_by_key(|&(t, _)| t);
    types
}

fn item_location(index: usize, item: &Item) -> Location {
    Location::Item {
        index,
        type_id: item.type_id(),
        id: item.id(),
    }
}

/// Finds each data item's bytes (step 5 of the module documentation).
fn data_spans(
    tables: &Tables,
    header: &Header,
    sections: &Sections,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<DataSpan>, Error> {
    let data_size = header.data_size as usize;
    let offsets = &tables.data_offsets;
    let mut spans = Vec::with_capacity(offsets.len());
    for (index, &offset) in offsets.iter().enumerate() {
        let location = Location::Data { index };
        let error = |message: String| {
            Error::malformed(message)
                .located(location)
                .at(sections.data_offsets + 4 * index)
        };
        if index == 0 && offset != 0 {
            return Err(error(format!("first data offset is {offset}, must be 0")));
        }
        if index > 0 && offset < offsets[index - 1] {
            return Err(error(format!(
                "data offset {offset} is before the previous one ({})",
                offsets[index - 1]
            )));
        }
        if offset as usize > data_size {
            return Err(error(format!(
                "data offset {offset} is past the end of the data block (data_size {data_size})"
            )));
        }
        let start = offset as usize;
        let end = offsets.get(index + 1).map_or(data_size, |&next| {
            (next.max(offset) as usize).min(data_size)
        });
        let len = end - start;
        let size = match &tables.data_sizes {
            Some(sizes) => {
                let size = sizes[index];
                let at = sections.data_sizes + 4 * index;
                if size < 0 {
                    return Err(
                        Error::malformed(format!("uncompressed size {size} is negative"))
                            .located(location)
                            .at(at),
                    );
                }
                if size == 0 {
                    warnings.push(Warning {
                        kind: WarningKind::EmptyData,
                        location: Some(location),
                        offset: Some(at as u64),
                    });
                }
                size as usize
            }
            None => len,
        };
        spans.push(DataSpan {
            start: sections.data + start,
            len,
            size,
        });
    }
    Ok(spans)
}

/// Classifies `size` and `swaplen` against what the rest of the file implies.
fn check_size_fields(
    header: &Header,
    version: Version,
    sections: &Sections,
    warnings: &mut Vec<Warning>,
) -> SizeFields {
    let size = sections.end as i64 - 16;
    let swaplen = size - i64::from(header.data_size);
    let found = (i64::from(header.size), i64::from(header.swaplen));
    if found == (size, swaplen) {
        return SizeFields::Standard;
    }
    let table = 4 * i64::from(header.num_data);
    if version == Version::V4 && table > 0 && found == (size - table, swaplen - table) {
        warnings.push(Warning {
            kind: WarningKind::OldSizeFields,
            location: Some(Location::Header),
            offset: Some(field::SIZE),
        });
        return SizeFields::OldVersion4;
    }
    for (field, offset, found, expected) in [
        ("size", field::SIZE, header.size, size),
        ("swaplen", field::SWAPLEN, header.swaplen, swaplen),
    ] {
        if i64::from(found) != expected {
            warnings.push(Warning {
                kind: WarningKind::SizeFieldMismatch {
                    field,
                    found,
                    expected,
                },
                location: Some(Location::Header),
                offset: Some(offset),
            });
        }
    }
    SizeFields::Inconsistent
}
