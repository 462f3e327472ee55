//! The datafile container (datafile.md; DDNet `src/engine/shared/datafile.cpp`).
//!
//! ```text
//! datafile:
//!     [  8] version_header   VersionHeader
//!     [ 28] header           Header
//!     [*12] item_types       ItemType × num_item_types
//!     [* 4] item_offsets     i32 × num_items
//!     [* 4] data_offsets     i32 × num_data
//!     [* 4] data_sizes       i32 × num_data (version 4 only)
//!     [   ] items            Item × num_items (item_size bytes)
//!     [   ] data             data items (data_size bytes, zlib streams in version 4)
//! ```
//!
//! Reading goes piece by piece ([`VersionHeader`], [`Header`], [`Tables`], then each [`Item`])
//! because every count must be checked against the length of the file before it sizes an
//! allocation; that check is policy and lives in the `twcodec` crate. Writing goes through
//! [`DatafileLayout`], which calculates every count, size and offset from the items and data it
//! is given.

use binrw::{binrw, binwrite, BinResult};

use crate::error::{to_i32, SchemaError};
use twcodec_schema_derive::describe;

/// The first four bytes of a datafile (datafile.md, "Version header").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Magic {
    /// `DATA`, written by every known writer.
    #[default]
    Data,
    /// `ATAD`: a bug made big-endian machines write the magic reversed. The payload is still
    /// little-endian in every known file (docs/format-notes.md, "Datafile container").
    Atad,
}

impl Magic {
    /// The bytes as they appear in the file.
    pub const fn bytes(self) -> [u8; 4] {
        match self {
            Magic::Data => *b"DATA",
            Magic::Atad => *b"ATAD",
        }
    }

    /// Recognises the magic, or `None` for anything that is not a datafile.
    pub fn from_bytes(bytes: [u8; 4]) -> Option<Magic> {
        match &bytes {
            b"DATA" => Some(Magic::Data),
            b"ATAD" => Some(Magic::Atad),
            _ => None,
        }
    }

    /// The magic as text (`DATA` or `ATAD`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Magic::Data => "DATA",
            Magic::Atad => "ATAD",
        }
    }
}

impl std::fmt::Display for Magic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The datafile versions that exist (datafile.md, "Version header"), stored as an i32.
#[describe]
#[binrw]
#[brw(little, repr = i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Version {
    /// Data items stored as they are.
    V3 = 3,
    /// Data items zlib-compressed, with a table of their uncompressed sizes.
    V4 = 4,
}

impl Version {
    /// The version number in the file.
    pub const fn number(self) -> i32 {
        match self {
            Version::V3 => 3,
            Version::V4 => 4,
        }
    }

    /// The version with this number.
    pub const fn from_number(number: i32) -> Option<Version> {
        match number {
            3 => Some(Version::V3),
            4 => Some(Version::V4),
            _ => None,
        }
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// Version header (datafile.md, "Version header"; DDNet `CDatafileHeader::m_aId`,
/// `m_Version`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionHeader {
    /// `DATA` or `ATAD`.
    #[br(try_map = |bytes: [u8; 4]| Magic::from_bytes(bytes).ok_or(SchemaError::BadMagic(bytes)))]
    #[bw(map = |magic: &Magic| magic.bytes())]
    pub magic: Magic,
    /// 3 or 4.
    #[br(try_map = |number: i32| Version::from_number(number).ok_or(SchemaError::UnsupportedVersion(number)))]
    pub version: Version,
}

impl VersionHeader {
    /// Size on disk in bytes.
    pub const SIZE: usize = 8;
}

/// The header after the version header (datafile.md, "Header"; DDNet `CDatafileHeader`).
///
/// Kept exactly as read; [`DatafileLayout`] calculates every field when writing.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[doc(alias = "CDatafileHeader")]
pub struct Header {
    /// Bytes after `size` and `swaplen` to the end of the data: file size - 16. Old version-4
    /// writers left out the data-size table, `4 * num_data` bytes (docs/format-notes.md,
    /// "Datafile container").
    pub size: i32,
    /// Bytes of integers after `size` and `swaplen`, up to the data: `size - data_size`. Same
    /// old-writer variant as `size`.
    pub swaplen: i32,
    /// Number of entries in the item type table.
    pub num_item_types: i32,
    /// Number of items.
    pub num_items: i32,
    /// Number of data items (DDNet `m_NumRawData`).
    pub num_data: i32,
    /// Size of the item block in bytes, a multiple of 4.
    pub item_size: i32,
    /// Size of the data block in bytes.
    pub data_size: i32,
}

impl Header {
    /// Size on disk in bytes.
    pub const SIZE: usize = 28;
}

/// One entry of the item type table (datafile.md, "Item types"; DDNet `CDatafileItemType`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "CDatafileItemType")]
pub struct ItemType {
    /// The type id, 0..=0xFFFF; ids from 0x8000 up name UUID item types (see [`crate::uuid`]).
    pub type_id: i32,
    /// `*item`: index of the first item of this type.
    pub start: i32,
    /// Number of items of this type; they follow each other from `start`.
    pub num: i32,
}

impl ItemType {
    /// Size on disk in bytes.
    pub const SIZE: usize = 12;
}

/// `type_id__id`: the type in the upper 16 bits, the id in the lower 16 (datafile.md, "Items").
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ItemKey {
    // A little-endian u32 stores its low half first: the id, then the type.
    /// The id, unique among the items of one type (UUID index items excepted,
    /// docs/format-notes.md, "UUID item types").
    pub id: u16,
    /// The item's type id.
    pub type_id: u16,
}

/// The key and size in front of an item's integers (datafile.md, "Items"; DDNet
/// `CDatafileItem`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "CDatafileItem")]
pub struct ItemHeader {
    /// Type and id.
    pub key: ItemKey,
    /// Size of the item's data in bytes, a multiple of 4.
    #[br(assert(valid_item_size(size), SchemaError::ItemSize(size)))]
    pub size: i32,
}

impl ItemHeader {
    /// Size on disk in bytes.
    pub const SIZE: usize = 8;
}

fn valid_item_size(size: i32) -> bool {
    size >= 0 && size % 4 == 0
}

/// An item: a key and an array of i32 (datafile.md, "Items").
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Type and id.
    pub key: ItemKey,
    /// Size of `data` in bytes.
    #[br(temp, assert(valid_item_size(size), SchemaError::ItemSize(size)))]
    #[bw(try_calc = to_i32("item size", data.len().saturating_mul(4)))]
    size: i32,
    /// The item's integers (`item_data`).
    #[br(count = size / 4)]
    pub data: Vec<i32>,
}

impl Item {
    /// An item of type `type_id` with id `id`.
    pub fn new(type_id: u16, id: u16, data: Vec<i32>) -> Item {
        Item {
            key: ItemKey { id, type_id },
            data,
        }
    }

    /// The item's type id as stored (UUID types have their internal id, >= 0x8000).
    pub fn type_id(&self) -> u16 {
        self.key.type_id
    }

    /// The item's id.
    pub fn id(&self) -> u16 {
        self.key.id
    }

    /// Size on disk in bytes, key and size field included.
    pub fn stored_size(&self) -> usize {
        ItemHeader::SIZE + self.data.len() * 4
    }
}

/// The tables between the header and the items (datafile.md, "Item types" and "Item offsets,
/// data offsets and data sizes"). The counts come from the [`Header`], which the caller has
/// checked against the length of the file.
#[describe]
#[binrw]
#[brw(little)]
#[br(import { version: Version, header: Header })]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tables {
    /// One entry per item type.
    #[br(count = header.num_item_types)]
    pub item_types: Vec<ItemType>,
    /// Offset of each item, relative to the start of the item block.
    #[br(count = header.num_items)]
    pub item_offsets: Vec<i32>,
    /// Offset of each data item, relative to the start of the data block.
    #[br(count = header.num_data)]
    pub data_offsets: Vec<i32>,
    /// Uncompressed size of each data item; version 4 only.
    #[br(if(version == Version::V4), count = header.num_data)]
    pub data_sizes: Option<Vec<i32>>,
}

/// A data item as stored in the data block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataBlock<'a> {
    /// The bytes in the file: a zlib stream in version 4, the data itself in version 3.
    pub stored: &'a [u8],
    /// Uncompressed size (the `data_sizes` entry of version 4).
    pub size: usize,
}

/// A whole datafile as written (datafile.md, "Datafile"). Every count, size, offset and the
/// item type table are calculated from `items` and `data`.
///
/// `items` must be grouped by type, in the order the item type table should list the types
/// (ascending, as DDNet and Teeworlds write it).
#[describe]
#[binwrite]
#[bw(little)]
#[derive(Debug, Clone)]
pub struct DatafileLayout<'a> {
    /// `DATA` or `ATAD`.
    #[bw(map = |magic: &Magic| magic.bytes())]
    pub magic: Magic,
    /// 3 or 4.
    pub version: Version,
    /// Compute `size` and `swaplen` the way old version-4 writers did, without the data-size
    /// table (docs/format-notes.md, "Datafile container"; libtw2's "V4Crude"). Only for
    /// reproducing such files.
    #[bw(ignore)]
    pub old_size_fields: bool,
    /// `size`, then `swaplen`.
    #[bw(try_calc = size_fields(*version, *old_size_fields, items, data))]
    size_and_swaplen: (i32, i32),
    #[bw(try_calc = item_type_table(items).and_then(|t| to_i32("num_item_types", t.len())))]
    num_item_types: i32,
    #[bw(try_calc = to_i32("num_items", items.len()))]
    num_items: i32,
    #[bw(try_calc = to_i32("num_data", data.len()))]
    num_data: i32,
    #[bw(try_calc = to_i32("item_size", item_block_size(items)))]
    item_size: i32,
    #[bw(try_calc = to_i32("data_size", data_block_size(data)))]
    data_size: i32,
    #[bw(try_calc = item_type_table(items))]
    item_types: Vec<ItemType>,
    #[bw(try_calc = running_offsets("item offset", items.iter().map(Item::stored_size)))]
    item_offsets: Vec<i32>,
    #[bw(try_calc = running_offsets("data offset", data.iter().map(|d| d.stored.len())))]
    data_offsets: Vec<i32>,
    #[bw(try_calc = data_size_table(*version, data))]
    data_sizes: Option<Vec<i32>>,
    /// The items, grouped by type.
    pub items: &'a [Item],
    /// The data items, in index order.
    #[bw(write_with = write_data_blocks)]
    pub data: &'a [DataBlock<'a>],
}

fn item_block_size(items: &[Item]) -> usize {
    items.iter().map(Item::stored_size).sum()
}

fn data_block_size(data: &[DataBlock<'_>]) -> usize {
    data.iter().map(|d| d.stored.len()).sum()
}

/// `size` and `swaplen` for a file holding `items` and `data`.
fn size_fields(
    version: Version,
    old_size_fields: bool,
    items: &[Item],
    data: &[DataBlock<'_>],
) -> Result<(i32, i32), SchemaError> {
    let num_types = item_type_table(items)?.len();
    let data_sizes_table = if version == Version::V4 && !old_size_fields {
        data.len() * 4
    } else {
        0
    };
    let swaplen = Header::SIZE - 8
        + num_types * ItemType::SIZE
        + items.len() * 4
        + data.len() * 4
        + data_sizes_table
        + item_block_size(items);
    let size = swaplen + data_block_size(data);
    Ok((to_i32("size", size)?, to_i32("swaplen", swaplen)?))
}

/// The item type table for items grouped by type.
pub fn item_type_table(items: &[Item]) -> Result<Vec<ItemType>, SchemaError> {
    let mut table: Vec<ItemType> = Vec::new();
    for (index, item) in items.iter().enumerate() {
        match table.last_mut() {
            Some(last) if last.type_id == i32::from(item.type_id()) => last.num += 1,
            _ => table.push(ItemType {
                type_id: i32::from(item.type_id()),
                start: to_i32("num_items", index)?,
                num: 1,
            }),
        }
    }
    Ok(table)
}

/// Offsets of consecutive blocks of the given sizes, starting at 0.
fn running_offsets(
    what: &'static str,
    sizes: impl Iterator<Item = usize>,
) -> Result<Vec<i32>, SchemaError> {
    let mut offset = 0usize;
    sizes
        .map(|size| {
            let this = to_i32(what, offset)?;
            offset += size;
            Ok(this)
        })
        .collect()
}

fn data_size_table(
    version: Version,
    data: &[DataBlock<'_>],
) -> Result<Option<Vec<i32>>, SchemaError> {
    if version == Version::V3 {
        return Ok(None);
    }
    data.iter()
        .map(|d| to_i32("data size", d.size))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

#[binrw::writer(writer)]
fn write_data_blocks(data: &&[DataBlock<'_>]) -> BinResult<()> {
    for block in data.iter() {
        writer.write_all(block.stored)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use binrw::{io::Cursor, BinRead, BinWrite};

    fn write<T: BinWrite>(value: &T) -> Vec<u8>
    where
        for<'a> T::Args<'a>: Default,
    {
        let mut out = Cursor::new(Vec::new());
        value.write_le(&mut out).unwrap();
        out.into_inner()
    }

    fn ints(values: &[i32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn version_header_reads_and_writes() {
        let bytes = [b"DATA".as_slice(), &4i32.to_le_bytes()].concat();
        let header = VersionHeader::read(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!(header.magic, Magic::Data);
        assert_eq!(header.version, Version::V4);
        assert_eq!(write(&header), bytes);

        let bytes = [b"ATAD".as_slice(), &3i32.to_le_bytes()].concat();
        let header = VersionHeader::read(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!(header.magic, Magic::Atad);
        assert_eq!(header.version, Version::V3);
        assert_eq!(write(&header), bytes);
    }

    #[test]
    fn version_header_rejects_bad_magic_and_version() {
        let bytes = [b"PNG!".as_slice(), &4i32.to_le_bytes()].concat();
        let err = VersionHeader::read(&mut Cursor::new(&bytes)).unwrap_err();
        assert_eq!(
            err.custom_err::<SchemaError>(),
            Some(&SchemaError::BadMagic(*b"PNG!"))
        );

        let bytes = [b"DATA".as_slice(), &5i32.to_le_bytes()].concat();
        let err = VersionHeader::read(&mut Cursor::new(&bytes)).unwrap_err();
        assert_eq!(
            err.custom_err::<SchemaError>(),
            Some(&SchemaError::UnsupportedVersion(5))
        );
    }

    #[test]
    fn header_reads_and_writes() {
        let bytes = ints(&[
            100, // size
            80,  // swaplen
            2,   // num_item_types
            3,   // num_items
            1,   // num_data
            40,  // item_size
            20,  // data_size
        ]);
        let header = Header::read_le(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!(
            header,
            Header {
                size: 100,
                swaplen: 80,
                num_item_types: 2,
                num_items: 3,
                num_data: 1,
                item_size: 40,
                data_size: 20,
            }
        );
        assert_eq!(write(&header), bytes);
    }

    #[test]
    fn item_type_reads_and_writes() {
        let bytes = ints(&[
            0xFFFF, // type_id
            7,      // start
            2,      // num
        ]);
        let entry = ItemType::read_le(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!(
            entry,
            ItemType {
                type_id: 0xFFFF,
                start: 7,
                num: 2
            }
        );
        assert_eq!(write(&entry), bytes);
    }

    #[test]
    fn item_key_splits_type_and_id() {
        let bytes = 0x0005_0003u32.to_le_bytes(); // type 5, id 3
        let key = ItemKey::read_le(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!(key.type_id, 5);
        assert_eq!(key.id, 3);
        assert_eq!(write(&key), bytes);

        let bytes = 0xFFFE_FFFFu32.to_le_bytes();
        let key = ItemKey::read_le(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!((key.type_id, key.id), (0xFFFE, 0xFFFF));
    }

    #[test]
    fn item_header_reads_and_writes() {
        let bytes = ints(&[
            0x0005_0003, // key: type 5, id 3
            60,          // size
        ]);
        let header = ItemHeader::read_le(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!(header.key, ItemKey { id: 3, type_id: 5 });
        assert_eq!(header.size, 60);
        assert_eq!(write(&header), bytes);
    }

    #[test]
    fn item_reads_and_writes() {
        let bytes = ints(&[
            0x0002_0001, // key: type 2, id 1
            12,          // size in bytes
            1,           // data[0]
            -1,          // data[1]
            i32::MIN,    // data[2]
        ]);
        let item = Item::read_le(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!(item.type_id(), 2);
        assert_eq!(item.id(), 1);
        assert_eq!(item.data, vec![1, -1, i32::MIN]);
        assert_eq!(item.stored_size(), 20);
        assert_eq!(write(&item), bytes);
    }

    #[test]
    fn empty_item_reads_and_writes() {
        let bytes = ints(&[
            0x0006_0000, // key: type 6, id 0
            0,           // size
        ]);
        let item = Item::read_le(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!(item, Item::new(6, 0, vec![]));
        assert_eq!(write(&item), bytes);
    }

    #[test]
    fn item_rejects_bad_size() {
        for size in [-4, 6] {
            let bytes = ints(&[0x0001_0000, size, 0, 0]);
            let err = Item::read_le(&mut Cursor::new(&bytes)).unwrap_err();
            assert_eq!(
                err.custom_err::<SchemaError>(),
                Some(&SchemaError::ItemSize(size))
            );
        }
    }

    #[test]
    fn tables_read_per_version() {
        let header = Header {
            num_item_types: 1,
            num_items: 2,
            num_data: 2,
            ..Header::default()
        };
        let v4 = ints(&[
            0, 0, 2, // item type 0: type 0, start 0, num 2
            0, 12, // item offsets
            0, 30, // data offsets
            100, 200, // data sizes
        ]);
        let tables = Tables::read_le_args(
            &mut Cursor::new(&v4),
            binrw::args! { version: Version::V4, header },
        )
        .unwrap();
        assert_eq!(
            tables.item_types,
            vec![ItemType {
                type_id: 0,
                start: 0,
                num: 2
            }]
        );
        assert_eq!(tables.item_offsets, vec![0, 12]);
        assert_eq!(tables.data_offsets, vec![0, 30]);
        assert_eq!(tables.data_sizes, Some(vec![100, 200]));
        assert_eq!(write(&tables), v4);

        let v3 = &v4[..v4.len() - 8];
        let tables = Tables::read_le_args(
            &mut Cursor::new(v3),
            binrw::args! { version: Version::V3, header },
        )
        .unwrap();
        assert_eq!(tables.data_sizes, None);
        assert_eq!(write(&tables), v3);
    }

    #[test]
    fn layout_calculates_every_count_size_and_offset() {
        let items = [
            Item::new(0, 0, vec![1]),
            Item::new(2, 0, vec![7, 8]),
            Item::new(2, 1, vec![]),
        ];
        let data = [
            DataBlock {
                stored: b"abc",
                size: 10,
            },
            DataBlock {
                stored: b"de",
                size: 20,
            },
        ];
        let layout = DatafileLayout {
            magic: Magic::Data,
            version: Version::V4,
            old_size_fields: false,
            items: &items,
            data: &data,
        };
        let bytes = write(&layout);
        let expected = [
            b"DATA".to_vec(),
            ints(&[
                4,   // version
                113, // size: file size (129) - 16
                108, // swaplen: size - data_size
                2,   // num_item_types
                3,   // num_items
                2,   // num_data
                36,  // item_size: 12 + 16 + 8
                5,   // data_size
                0,
                0,
                1, // item type 0: start 0, num 1
                2,
                1,
                2, // item type 2: start 1, num 2
                0,
                12,
                28, // item offsets
                0,
                3, // data offsets
                10,
                20, // data sizes
                0x0000_0000,
                4,
                1, // item (0, 0)
                0x0002_0000,
                8,
                7,
                8, // item (2, 0)
                0x0002_0001,
                0, // item (2, 1)
            ]),
            b"abcde".to_vec(),
        ]
        .concat();
        assert_eq!(bytes, expected);

        let old = DatafileLayout {
            old_size_fields: true,
            ..layout.clone()
        };
        let bytes = write(&old);
        let header = Header::read_le(&mut Cursor::new(&bytes[8..])).unwrap();
        assert_eq!((header.size, header.swaplen), (113 - 8, 108 - 8));

        let v3 = DatafileLayout {
            version: Version::V3,
            ..layout
        };
        let bytes = write(&v3);
        assert_eq!(bytes.len(), expected.len() - 8);
        let header = Header::read_le(&mut Cursor::new(&bytes[8..])).unwrap();
        assert_eq!((header.size, header.swaplen), (113 - 8, 108 - 8));
    }
}
