//! Snapshots and snapshot deltas (snapshot.md; docs/format-notes.md, "Snapshots"; DDNet
//! `src/engine/shared/snapshot.cpp`), as int arrays: the unpacked form. On the network and in
//! demos the ints are packed as variable-length ints, which `twcodec` handles.
//!
//! ```text
//! snapshot:        data_size, num_items, item_offsets[num_items], items (key, data...)
//! snapshot_delta:  num_removed_items, num_item_deltas, _zero, removed_keys[..], item deltas
//! item_delta:      type_id, id, [_size], data_delta[size]   (_size only without a pre-agreed size)
//! ```
//!
//! Int arrays are read and written in one copy each ([`read_run`], [`write_run`]), never int
//! by int, and a delta's item deltas into flat storage ([`ItemDeltas`]), not one allocation
//! per item. Counts from the input are checked against what the input holds before anything
//! is reserved for them. The layouts never follow an offset: that is the reader's job.

use std::borrow::Cow;

use binrw::io::{Read, Seek, SeekFrom, Write};
use binrw::{binrw, BinRead, BinResult, BinWrite, Endian};
use bytemuck::{Pod, Zeroable};

use crate::error::to_i32;
use crate::netobj::SnapObjectKind;
use crate::SchemaError;
use twcodec_schema_derive::describe;

/// Type and id of a snapshot item: `type_id << 16 | id` (snapshot.md, "Item key").
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[repr(transparent)]
pub struct SnapKey(pub u32);

impl SnapKey {
    /// The key of item `id` of type `type_id`.
    pub const fn new(type_id: u16, id: u16) -> SnapKey {
        SnapKey(((type_id as u32) << 16) | id as u32)
    }

    /// The type id.
    pub const fn type_id(self) -> u16 {
        (self.0 >> 16) as u16
    }

    /// The id.
    pub const fn id(self) -> u16 {
        self.0 as u16
    }
}

/// The two ints in front of a snapshot (snapshot.md, "Snapshots"; DDNet `CSnapshot`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[doc(alias = "CSnapshot")]
pub struct SnapshotHeader {
    /// Bytes of the items (keys and data), after the offsets.
    pub data_size: i32,
    /// Number of items.
    pub num_items: i32,
}

impl SnapshotHeader {
    /// Size in bytes.
    pub const SIZE: usize = 8;
    /// Byte offset of `data_size`.
    pub const DATA_SIZE_OFFSET: usize = 0;
    /// Byte offset of `num_items`.
    pub const NUM_ITEMS_OFFSET: usize = 4;
}

/// A snapshot as stored: header, item offsets, and the items as ints (snapshot.md,
/// "Snapshots"). Item `i` runs from `offsets[i]` to the next offset (or `data_size`), in bytes
/// from the start of `items`: its key, then its data. Following the offsets is the reader's
/// job, not the layout's.
///
/// Both arrays are read and written in one copy each ([`read_run`], [`write_run`]); a count
/// the input cannot hold is an error before anything is reserved for it.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SnapshotLayout {
    /// Bytes of `items`.
    #[br(temp)]
    #[bw(try_calc = to_i32("data_size", items.len() * 4))]
    data_size: i32,
    /// Number of items.
    #[br(temp)]
    #[bw(try_calc = to_i32("num_items", offsets.len()))]
    num_items: i32,
    /// Byte offset of each item in `items`.
    #[br(parse_with = read_run("num_items", num_items))]
    #[bw(write_with = write_run)]
    pub offsets: Vec<i32>,
    /// Every item: key, then data.
    #[br(parse_with = read_run("data_size / 4", data_size / 4))]
    #[bw(write_with = write_run)]
    pub items: Vec<i32>,
}

impl SnapshotLayout {
    /// Bytes this layout takes when written.
    pub fn size(&self) -> usize {
        SnapshotHeader::SIZE + 4 * (self.offsets.len() + self.items.len())
    }
}

/// The three ints in front of a snapshot delta (snapshot.md, "Snapshot deltas"; DDNet
/// `CSnapshotDelta::CData`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeltaHeader {
    /// Number of removed item keys.
    pub num_removed_items: i32,
    /// Number of item deltas.
    pub num_item_deltas: i32,
    /// Zero; writers write 0, readers ignore it (DDNet `m_NumTempItems`).
    pub zero: i32,
}

impl DeltaHeader {
    /// Size in bytes.
    pub const SIZE: usize = 12;
    /// Byte offset of `num_removed_items`.
    pub const NUM_REMOVED_ITEMS_OFFSET: usize = 0;
    /// Byte offset of `num_item_deltas`.
    pub const NUM_ITEM_DELTAS_OFFSET: usize = 4;
}

/// The ints of an item delta before its data (snapshot.md, "Item deltas"): type, id, and
/// `_size` only for types without a pre-agreed size in `sizes`. Type and id must make a key
/// (type 0 to [`MAX_TYPE`], id 0 to 65535), so that the type decides the layout of what
/// follows. A negative `_size` is refused by the reader of the data ([`read_item_deltas`]),
/// which knows the item's key by then.
#[describe]
#[binrw]
#[brw(little)]
#[br(import { sizes: &SizeTable })]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemDeltaHead {
    /// The item's type id (0..=0x7FFF).
    // `try_map` rather than `assert`: its error is placed at this field, an assertion's at the
    // start of the head.
    #[br(try_map = |type_id: i32| in_range("type id", type_id, MAX_TYPE.into()))]
    pub type_id: i32,
    /// The item's id (0..=0xFFFF).
    #[br(try_map = |id: i32| in_range("id", id, 0xFFFF))]
    pub id: i32,
    /// Number of ints, when the type has no pre-agreed size.
    #[br(if(sizes.size_of(type_id).is_none()))]
    pub size: Option<i32>,
}

impl ItemDeltaHead {
    /// Byte offset of `_size` in the head.
    const SIZE_OFFSET: u64 = 8;
}

/// An item delta (snapshot.md, "Item deltas"), as [`ItemDeltas::iter`] gives it: the new data
/// of an item the old snapshot lacks, or the wrapping difference to the old data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemDelta<'a> {
    /// The item's type id (0..=0x7FFF).
    pub type_id: i32,
    /// The item's id (0..=0xFFFF).
    pub id: i32,
    /// New data, or differences to the old data.
    pub data: &'a [i32],
}

impl ItemDelta<'_> {
    /// The item's key.
    pub fn key(&self) -> SnapKey {
        SnapKey::new(self.type_id as u16, self.id as u16)
    }
}

/// The item deltas of a snapshot delta, stored flat: a key per item delta and one array of
/// every item delta's data, so that reading allocates per delta, not per item. Whether an
/// item delta carries `_size` depends on `sizes`, the pre-agreed sizes of the protocol, kept
/// here so that the item deltas write back as they were read.
///
/// Borrowed parts ([`Cow`]) let a writer lay out data it keeps elsewhere without copying it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ItemDeltas<'a> {
    /// Type and id of each item delta.
    pub keys: Cow<'a, [SnapKey]>,
    /// Where each item delta's data starts in `data`, plus the end: one more than `keys`.
    pub starts: Cow<'a, [u32]>,
    /// Every item delta's data, in order.
    pub data: Cow<'a, [i32]>,
    /// The pre-agreed sizes: types without one carry `_size`.
    pub sizes: SizeTable,
}

impl ItemDeltas<'_> {
    /// Number of item deltas.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The item deltas in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = ItemDelta<'_>> + '_ {
        (self.keys.iter().zip(self.starts.windows(2))).map(|(key, bounds)| ItemDelta {
            type_id: key.type_id().into(),
            id: key.id().into(),
            data: &self.data[bounds[0] as usize..bounds[1] as usize],
        })
    }

    /// Bytes these item deltas take when written.
    pub fn size(&self) -> usize {
        self.offset(self.keys.len())
    }

    /// Byte offset of item delta `index` (at most `len()`) from the first: the heads and data
    /// before it.
    pub fn offset(&self, index: usize) -> usize {
        let heads: usize = (self.keys[..index].iter())
            .map(|key| 8 + 4 * usize::from(self.sizes.size_of(key.type_id().into()).is_none()))
            .sum();
        // No starts at all (a default value) is no data.
        heads + 4 * self.starts.get(index).map_or(0, |&start| start as usize)
    }
}

/// A whole snapshot delta as stored (snapshot.md, "Snapshot deltas"; DDNet
/// `CSnapshotDelta::CData`): the header, the removed keys, then the item deltas, whose layout
/// depends on the pre-agreed sizes of the protocol.
///
/// Counts and sizes are checked against the input before anything is reserved for them.
#[describe]
#[binrw]
#[brw(little)]
#[br(import { sizes: SizeTable })]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SnapshotDeltaLayout<'a> {
    /// Number of removed keys.
    #[br(temp, assert(num_removed_items >= 0, negative("num_removed_items", num_removed_items)))]
    #[bw(try_calc = to_i32("num_removed_items", removed_keys.len()))]
    num_removed_items: i32,
    /// Number of item deltas.
    #[br(temp, assert(num_item_deltas >= 0, negative("num_item_deltas", num_item_deltas)))]
    #[bw(try_calc = to_i32("num_item_deltas", item_deltas.len()))]
    num_item_deltas: i32,
    /// Zero; writers write 0, readers ignore it (kept so that writing is lossless).
    pub zero: i32,
    /// Keys of the items of the old snapshot that the new one lacks.
    #[br(parse_with = read_run("num_removed_items", num_removed_items))]
    #[bw(write_with = write_run)]
    pub removed_keys: Cow<'a, [SnapKey]>,
    /// New items and changed items: `num_item_deltas` times an [`ItemDeltaHead`], then that
    /// item's data, `size` ints or the pre-agreed size of its type.
    #[br(parse_with = read_item_deltas(num_item_deltas, sizes))]
    #[bw(write_with = write_item_deltas)]
    pub item_deltas: ItemDeltas<'a>,
}

impl SnapshotDeltaLayout<'_> {
    /// Bytes this layout takes when written.
    pub fn size(&self) -> usize {
        self.item_delta_offset(self.item_deltas.len())
    }

    /// Byte offset of item delta `index` (at most the number of item deltas) in the written
    /// layout.
    pub fn item_delta_offset(&self, index: usize) -> usize {
        DeltaHeader::SIZE + 4 * self.removed_keys.len() + self.item_deltas.offset(index)
    }
}

/// The error of a negative count or size.
fn negative(what: &'static str, value: i32) -> SchemaError {
    SchemaError::Negative { what, value }
}

/// `value` when it is 0 to `max`.
#[inline]
fn in_range(what: &'static str, value: i32, max: i32) -> Result<i32, SchemaError> {
    match (0..=max).contains(&value) {
        true => Ok(value),
        false => Err(SchemaError::OutOfRange { what, value, max }),
    }
}

/// A schema error at byte `pos`, as binrw carries it.
fn error_at(pos: u64, error: SchemaError) -> binrw::Error {
    binrw::Error::Custom {
        pos,
        err: Box::new(error),
    }
}

/// The position and schema error of a binrw error, when it carries one.
fn schema_error(error: &binrw::Error) -> Option<(u64, &SchemaError)> {
    match error.root_cause() {
        binrw::Error::Custom { pos, err } => Some((*pos, err.downcast_ref()?)),
        _ => None,
    }
}

/// Bytes from the reader's position to the end of the input.
fn bytes_left<R: Read + Seek>(reader: &mut R) -> BinResult<(u64, u64)> {
    let start = reader.stream_position()?;
    let end = reader.seek(SeekFrom::End(0))?;
    reader.seek(SeekFrom::Start(start))?;
    Ok((start, end.saturating_sub(start)))
}

/// A parser of `count` values of `T`, a type made of little-endian i32 only (`what` names
/// the count): all of them in one copy, never value by value, once the input is known to
/// hold them, so that a count from the input never reserves more than the input.
pub fn read_run<T, C, R>(
    what: &'static str,
    count: i32,
) -> impl FnOnce(&mut R, Endian, ()) -> BinResult<C>
where
    T: Pod,
    C: From<Vec<T>>,
    R: Read + Seek,
{
    move |reader, _endian, ()| {
        let (start, left) = bytes_left(reader)?;
        let count = usize::try_from(count).map_err(|_| error_at(start, negative(what, count)))?;
        let needed = (count as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        if needed > left {
            return Err(error_at(
                start,
                SchemaError::Truncated { what, needed, left },
            ));
        }
        let mut values = zeroed(count);
        read_into(reader, &mut values)?;
        Ok(values.into())
    }
}

/// `count` zeroed values, allocated with `malloc` and then zeroed: `vec![zero; count]` asks
/// for zeroed memory (`calloc`), which glibc serves outside its per-thread cache, and which made
/// a delta read and applied in a loop up to 1.3 times slower (`benches/snapshot.rs`,
/// `apply/twcodec`).
fn zeroed<T: Pod>(count: usize) -> Vec<T> {
    let mut values = Vec::with_capacity(count);
    values.resize(count, T::zeroed());
    values
}

/// Fills `values` (made of little-endian i32 only) from the reader in one copy.
fn read_into<T: Pod, R: Read>(reader: &mut R, values: &mut [T]) -> BinResult<()> {
    reader.read_exact(bytemuck::cast_slice_mut::<T, u8>(values))?;
    if cfg!(target_endian = "big") {
        for int in bytemuck::cast_slice_mut::<T, i32>(values) {
            *int = i32::from_le(*int);
        }
    }
    Ok(())
}

/// Writes values made of i32 only as little-endian bytes, in one write where the machine is
/// little-endian; the inverse of [`read_run`].
pub fn write_run<T, V, W>(values: &V, writer: &mut W, _endian: Endian, (): ()) -> BinResult<()>
where
    T: Pod,
    V: std::ops::Deref<Target = [T]>,
    W: Write + Seek,
{
    if cfg!(target_endian = "little") {
        writer.write_all(bytemuck::cast_slice::<T, u8>(values))?;
    } else {
        for int in bytemuck::cast_slice::<T, i32>(values) {
            writer.write_all(&int.to_le_bytes())?;
        }
    }
    Ok(())
}

/// A parser of `count` item deltas into [`ItemDeltas`]: each head through [`ItemDeltaHead`],
/// then its data in one copy. Every error is a [`SchemaError::ItemDelta`] naming the item
/// delta, at the field that breaks the rule, except for the input ending inside a head or
/// `_size`, which is at the start of the item delta.
pub fn read_item_deltas<R: Read + Seek>(
    count: i32,
    sizes: SizeTable,
) -> impl FnOnce(&mut R, Endian, ()) -> BinResult<ItemDeltas<'static>> {
    move |reader, endian, ()| {
        let (mut pos, left) = bytes_left(reader)?;
        let end = pos + left;
        let count = usize::try_from(count)
            .map_err(|_| error_at(pos, negative("num_item_deltas", count)))?;
        // Every item delta takes at least 2 ints: a count past that is an error below and
        // sizes no allocation, and the data is at most what is left.
        let capacity = count.min((left / 8) as usize);
        let mut keys = Vec::with_capacity(capacity);
        let mut starts = Vec::with_capacity(capacity + 1);
        // Zeroed once, filled run by run, cut to what the runs took.
        let mut data = zeroed((left / 4) as usize);
        let mut filled = 0;
        starts.push(0);
        for index in 0..count {
            let in_delta = |pos, key, error| {
                let error = Box::new(error);
                error_at(pos, SchemaError::ItemDelta { index, key, error })
            };
            let truncated = |what, needed, left| SchemaError::Truncated { what, needed, left };
            if end - pos < 8 {
                return Err(in_delta(pos, None, truncated("type and id", 8, end - pos)));
            }
            let head = ItemDeltaHead::read_options(reader, endian, binrw::args! { sizes: &sizes })
                .map_err(|error| match schema_error(&error) {
                    Some((at, schema)) => in_delta(at, None, schema.clone()),
                    // Type and id are there: the input ends inside `_size`.
                    None if error.is_eof() => {
                        in_delta(pos, None, truncated("_size", 4, end - pos - 8))
                    }
                    None => error,
                })?;
            let key = SnapKey::new(head.type_id as u16, head.id as u16);
            let size = match (head.size, sizes.size_of(head.type_id)) {
                (Some(size), _) => usize::try_from(size).map_err(|_| {
                    let at = pos + ItemDeltaHead::SIZE_OFFSET;
                    in_delta(at, Some(key), negative("_size", size))
                })?,
                (None, size) => size.unwrap_or_default(),
            };
            pos = reader.stream_position()?;
            let needed = 4 * size as u64;
            if needed > end - pos {
                return Err(in_delta(
                    pos,
                    Some(key),
                    truncated("data", needed, end - pos),
                ));
            }
            read_into(reader, &mut data[filled..filled + size])?;
            filled += size;
            pos += needed;
            keys.push(key);
            starts.push(filled as u32);
        }
        data.truncate(filled);
        Ok(ItemDeltas {
            keys: keys.into(),
            starts: starts.into(),
            data: data.into(),
            sizes,
        })
    }
}

/// Writes item deltas read by [`read_item_deltas`]: each head through [`ItemDeltaHead`], with
/// `_size` for types without a pre-agreed size, then the data in one write. An item delta of a
/// type with a pre-agreed size must have that size ([`SchemaError::PreAgreedSize`] in a
/// [`SchemaError::ItemDelta`]).
pub fn write_item_deltas<W: Write + Seek>(
    deltas: &ItemDeltas<'_>,
    writer: &mut W,
    endian: Endian,
    (): (),
) -> BinResult<()> {
    for (index, item) in deltas.iter().enumerate() {
        let len = item.data.len();
        let size = match deltas.sizes.size_of(item.type_id) {
            None => to_i32("_size", len).map(Some),
            Some(size) if size == len => Ok(None),
            Some(size) => Err(SchemaError::PreAgreedSize {
                type_id: item.key().type_id(),
                size,
                len,
            }),
        };
        let size = match size {
            Ok(size) => size,
            Err(error) => {
                let error = Box::new(error);
                let (pos, key) = (writer.stream_position()?, Some(item.key()));
                return Err(error_at(pos, SchemaError::ItemDelta { index, key, error }));
            }
        };
        let head = ItemDeltaHead {
            type_id: item.type_id,
            id: item.id,
            size,
        };
        head.write_options(writer, endian, ())?;
        write_run(&item.data, writer, endian, ())?;
    }
    Ok(())
}

/// The pre-agreed item sizes of a protocol (snapshot.md, "Pre-agreed item sizes";
/// docs/format-notes.md, "Snapshots"): for each type id below 64, its number of ints, or none
/// when deltas carry the size.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SizeTable {
    sizes: [u16; SizeTable::TYPES],
}

impl SizeTable {
    /// Type ids a table can give sizes for (DDNet `MAX_NETOBJSIZES`).
    pub const TYPES: usize = 64;

    /// No pre-agreed sizes: every delta carries its size.
    pub const fn none() -> SizeTable {
        SizeTable {
            sizes: [0; SizeTable::TYPES],
        }
    }

    /// Teeworlds 0.6 and DDNet: types 1 to 20. The sizes of the registered structs of
    /// [`crate::netobj`] (a test checks that they agree).
    pub const fn ddnet_06() -> SizeTable {
        SizeTable::from_list(&[
            10, 6, 5, 4, 3, 8, 4, 15, 22, 5, 17, 3, 2, 2, 2, 2, 3, 3, 3, 3,
        ])
    }

    /// Teeworlds 0.7: types 1 to 22 (`event_damage`, type 22, has 7 ints: docs/format-notes.md,
    /// "Snapshots"). The sizes of the registered structs of [`crate::netobj`] (a test checks
    /// that they agree).
    pub const fn teeworlds_07() -> SizeTable {
        SizeTable::from_list(&[
            10, 6, 5, 3, 3, 3, 2, 4, 15, 22, 3, 4, 58, 5, 32, 2, 2, 2, 2, 3, 3, 7,
        ])
    }

    /// Sizes of types 1, 2, ... in order.
    const fn from_list(list: &[u16]) -> SizeTable {
        let mut sizes = [0u16; SizeTable::TYPES];
        let mut i = 0;
        while i < list.len() {
            sizes[i + 1] = list[i];
            i += 1;
        }
        SizeTable { sizes }
    }

    /// A table of `(type id, ints)` pairs, for mods; types from 64 up cannot be pre-agreed.
    pub fn custom(entries: &[(u16, u16)]) -> Result<SizeTable, SchemaError> {
        let mut table = SizeTable::none();
        for &(type_id, size) in entries {
            let slot = table
                .sizes
                .get_mut(usize::from(type_id))
                .ok_or(SchemaError::TooLarge {
                    what: "pre-agreed type id",
                    value: u64::from(type_id),
                })?;
            *slot = size;
        }
        Ok(table)
    }

    /// The pre-agreed number of ints of `type_id`, if any.
    pub fn size_of(&self, type_id: i32) -> Option<usize> {
        let size = *self.sizes.get(usize::try_from(type_id).ok()?)?;
        (size > 0).then_some(usize::from(size))
    }
}

/// The name of a 0.6/DDNet snapshot type (snapshot.md, appendix; DDNet `datasrc/network.py`),
/// from the registry of [`crate::netobj`].
pub fn type_name_06(type_id: u16) -> Option<&'static str> {
    SnapObjectKind::of_ddnet_06(type_id).map(SnapObjectKind::name)
}

/// The name of a Teeworlds 0.7 snapshot type (snapshot.md, appendix; Teeworlds 0.7
/// `datasrc/network.py`), from the registry of [`crate::netobj`]. Types 13 to 15
/// (`De_ClientInfo`, `De_GameInfo`, `De_TuneParams`) are added by clients to the snapshots they
/// record in demos; servers never send them (the document calls them `obj_client_info`,
/// `obj_game_info`, `obj_tune_params`).
pub fn type_name_07(type_id: u16) -> Option<&'static str> {
    SnapObjectKind::of_teeworlds_07(type_id).map(SnapObjectKind::name)
}

/// Type id of the items that announce extended types (DDNet `NETOBJTYPE_EX`): the id of such
/// an item is the extended type id, its 4 ints the UUID (docs/format-notes.md, "Snapshots").
#[doc(alias = "NETOBJTYPE_EX")]
pub const EXTENDED_TYPE_ANNOUNCEMENT: u16 = 0;

/// The first extended (UUID) snapshot type id (DDNet `OFFSET_UUID_TYPE`); they run to
/// [`MAX_TYPE`], handed out from the top.
pub const OFFSET_EXTENDED_TYPE: u16 = 0x4000;

/// The largest snapshot type id (DDNet `CSnapshot::MAX_TYPE`).
pub const MAX_TYPE: u16 = 0x7FFF;

/// Names of the extended snapshot types DDNet registers (`datasrc/network.py`, `NetObjectEx`
/// and `NetEventEx`); their UUIDs are [`crate::uuid::uuid_from_name`] of the name. The extended
/// section of the registry in [`crate::netobj`].
pub const KNOWN_EXTENDED_TYPE_NAMES: &[&str] = SnapObjectKind::EXTENDED_UUID_NAMES;

/// The name of a known extended snapshot type.
pub fn known_extended_type_name(uuid: crate::uuid::Uuid) -> Option<&'static str> {
    SnapObjectKind::of_extended(uuid)?.uuid_name()
}

impl Default for SizeTable {
    fn default() -> Self {
        SizeTable::ddnet_06()
    }
}

impl std::fmt::Debug for SizeTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.sizes.iter().enumerate().filter(|(_, &size)| size > 0))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::{decode_ints, encode_ints};

    #[test]
    fn keys_split_type_and_id() {
        let key = SnapKey::new(9, 3);
        assert_eq!(key.0, 0x0009_0003);
        assert_eq!((key.type_id(), key.id()), (9, 3));
        assert_eq!(SnapKey(0x7FFF_FFFF).type_id(), 0x7FFF);
    }

    #[test]
    fn snapshot_layout_reads_and_writes() {
        let ints = [
            28,          // data_size: 7 ints of items
            2,           // num_items
            0,           // offset of item 0
            12,          // offset of item 1
            0x0004_0001, // item 0 key: type 4 (pickup), id 1
            100,         // item 0 data
            200,         // item 0 data
            0x0009_0000, // item 1 key: type 9, id 0
            1,           // item 1 data
            2,           // item 1 data
            3,           // item 1 data
        ];
        let layout: SnapshotLayout = decode_ints(&ints, ()).unwrap();
        assert_eq!(layout.offsets, [0, 12]);
        assert_eq!(layout.items.len(), 7);
        assert_eq!(encode_ints(&layout, ()).unwrap(), ints);
    }

    #[test]
    fn header_field_offsets() {
        let snapshot = SnapshotHeader {
            data_size: 1,
            num_items: 2,
        };
        let ints = encode_ints(&snapshot, ()).unwrap();
        assert_eq!(ints.len() * 4, SnapshotHeader::SIZE);
        assert_eq!(ints[SnapshotHeader::DATA_SIZE_OFFSET / 4], 1);
        assert_eq!(ints[SnapshotHeader::NUM_ITEMS_OFFSET / 4], 2);
        let delta = DeltaHeader {
            num_removed_items: 1,
            num_item_deltas: 2,
            zero: 3,
        };
        let ints = encode_ints(&delta, ()).unwrap();
        assert_eq!(ints.len() * 4, DeltaHeader::SIZE);
        assert_eq!(ints[DeltaHeader::NUM_REMOVED_ITEMS_OFFSET / 4], 1);
        assert_eq!(ints[DeltaHeader::NUM_ITEM_DELTAS_OFFSET / 4], 2);
    }

    #[test]
    fn delta_header_and_item_delta_heads_read_and_write() {
        let header: DeltaHeader = decode_ints(&[1, 2, 0], ()).unwrap();
        assert_eq!((header.num_removed_items, header.num_item_deltas), (1, 2));

        let sizes = SizeTable::ddnet_06();
        // Type 4 (pickup) has a pre-agreed size of 4: no _size on the wire.
        let known = [
            4, // type id
            7, // id
        ];
        let head = decode_ints::<ItemDeltaHead>(&known, binrw::args! { sizes: &sizes }).unwrap();
        assert_eq!((head.type_id, head.id, head.size), (4, 7, None));
        assert_eq!(encode_ints(&head, ()).unwrap(), known);

        // Type 30 has none: _size is there.
        let unknown = [
            30, // type id
            1,  // id
            2,  // _size
        ];
        let head = decode_ints::<ItemDeltaHead>(&unknown, binrw::args! { sizes: &sizes }).unwrap();
        assert_eq!(head.size, Some(2));
        assert_eq!(encode_ints(&head, ()).unwrap(), unknown);

        // Type and id must make a key; the error is at the field.
        for (ints, what, value, at) in [
            ([0x8000, 0], "type id", 0x8000, 0),
            ([-1, 0], "type id", -1, 0),
            ([1, 0x1_0000], "id", 0x1_0000, 4),
        ] {
            let error =
                decode_ints::<ItemDeltaHead>(&ints, binrw::args! { sizes: &sizes }).unwrap_err();
            let (pos, error) = schema_error(&error).unwrap();
            assert_eq!(pos, at);
            assert!(
                matches!(error, SchemaError::OutOfRange { what: w, value: v, .. } if *w == what && *v == value)
            );
        }
    }

    /// The ints of a delta with one removed key and two item deltas, in the 0.6 sizes.
    const DELTA: [i32; 14] = [
        1,           // num_removed_items
        2,           // num_item_deltas
        0,           // _zero
        0x0002_0005, // removed key: type 2 (projectile), id 5
        4,           // item delta 0: type 4 (pickup, pre-agreed 4 ints)
        1,           // id
        0,           // data delta
        0,           // data delta
        3,           // data delta
        0,           // data delta
        0x7FFF,      // item delta 1: type 0x7FFF (extended, no pre-agreed size)
        0,           // id
        1,           // _size
        -9,          // data delta
    ];

    #[test]
    fn whole_delta_reads_and_writes() {
        let sizes = SizeTable::ddnet_06();
        let delta = decode_ints::<SnapshotDeltaLayout>(&DELTA, binrw::args! { sizes }).unwrap();
        assert_eq!(delta.zero, 0);
        assert_eq!(SnapshotDeltaLayout::default().size(), DeltaHeader::SIZE);
        assert_eq!(&delta.removed_keys[..], [SnapKey::new(2, 5)]);
        assert_eq!(delta.item_deltas.len(), 2);
        let items: Vec<_> = delta.item_deltas.iter().collect();
        assert_eq!((items[0].type_id, items[0].id), (4, 1));
        assert_eq!(items[0].data, [0, 0, 3, 0]);
        assert_eq!((items[1].type_id, items[1].id), (0x7FFF, 0));
        assert_eq!(items[1].data, [-9]);
        // Flat: one data array, item deltas by their starts.
        assert_eq!(&delta.item_deltas.data[..], [0, 0, 3, 0, -9]);
        assert_eq!(&delta.item_deltas.starts[..], [0, 4, 5]);
        assert_eq!(delta.size(), 4 * DELTA.len());
        assert_eq!(delta.item_delta_offset(1), 4 * 10);
        assert_eq!(encode_ints(&delta, ()).unwrap(), DELTA);

        // Read with no pre-agreed sizes, the same ints mean something else: the first item
        // delta's size is its first int.
        let none = SizeTable::none();
        let other =
            decode_ints::<SnapshotDeltaLayout>(&DELTA, binrw::args! { sizes: none }).unwrap();
        let first = other.item_deltas.iter().next().unwrap();
        assert_eq!((first.type_id, first.id, first.data), (4, 1, &[][..]));

        let negative = [-1, 0, 0];
        let error = decode_ints::<SnapshotDeltaLayout>(&negative, binrw::args! { sizes });
        assert!(error
            .unwrap_err()
            .to_string()
            .contains("num_removed_items -1 is negative"));
    }

    #[test]
    fn item_delta_errors_name_the_item_and_the_field() {
        let sizes = SizeTable::ddnet_06();
        let error_of = |ints: &[i32]| {
            let error = decode_ints::<SnapshotDeltaLayout>(ints, binrw::args! { sizes });
            let error = error.unwrap_err();
            let (pos, error) = schema_error(&error).unwrap();
            (pos, error.clone())
        };
        let in_delta = |index, key, error| SchemaError::ItemDelta {
            index,
            key,
            error: Box::new(error),
        };
        let extended = Some(SnapKey::new(0x7FFF, 0));
        // Cut inside item delta 1's type and id, its _size, and its data.
        let truncated = |what, needed, left| SchemaError::Truncated { what, needed, left };
        assert_eq!(
            error_of(&DELTA[..11]),
            (40, in_delta(1, None, truncated("type and id", 8, 4)))
        );
        assert_eq!(
            error_of(&DELTA[..12]),
            (40, in_delta(1, None, truncated("_size", 4, 0)))
        );
        assert_eq!(
            error_of(&DELTA[..13]),
            (52, in_delta(1, extended, truncated("data", 4, 0)))
        );
        // A negative _size, at the _size.
        let mut ints = DELTA;
        ints[12] = -1;
        let negative = SchemaError::Negative {
            what: "_size",
            value: -1,
        };
        assert_eq!(error_of(&ints), (48, in_delta(1, extended, negative)));
        // An id past 65535, at the id.
        ints[11] = 0x1_0000;
        let range = SchemaError::OutOfRange {
            what: "id",
            value: 0x1_0000,
            max: 0xFFFF,
        };
        assert_eq!(error_of(&ints), (44, in_delta(1, None, range)));
        // More item deltas than the input holds: no more than it holds is reserved.
        let mut ints = DELTA.to_vec();
        ints[1] = i32::MAX;
        assert_eq!(
            error_of(&ints),
            (56, in_delta(2, None, truncated("type and id", 8, 0)))
        );

        // Writing: a type with a pre-agreed size needs that size.
        let mut delta = decode_ints::<SnapshotDeltaLayout>(&DELTA, binrw::args! { sizes }).unwrap();
        delta.item_deltas.data.to_mut().push(1);
        delta.item_deltas.starts.to_mut()[1] = 5;
        delta.item_deltas.starts.to_mut()[2] = 6;
        let error = encode_ints(&delta, ()).unwrap_err();
        let size = SchemaError::PreAgreedSize {
            type_id: 4,
            size: 4,
            len: 5,
        };
        let key = Some(SnapKey::new(4, 1));
        assert_eq!(schema_error(&error).unwrap(), (16, &in_delta(0, key, size)));
        assert_eq!(
            error.custom_err::<SchemaError>().unwrap().to_string(),
            "item delta #0: type 4 has a pre-agreed size of 4 ints, this item has 5"
        );
    }

    #[test]
    fn runs_are_checked_against_the_input_before_reading() {
        let error = decode_ints::<SnapshotLayout>(&[400, 2, 0], ()).unwrap_err();
        let (pos, error) = schema_error(&error).unwrap();
        assert_eq!(pos, 8);
        assert_eq!(
            error.to_string(),
            "the input ends inside num_items (8 bytes, 4 left)"
        );
        let error = decode_ints::<SnapshotLayout>(&[0, -2], ()).unwrap_err();
        assert_eq!(
            error.custom_err::<SchemaError>().unwrap().to_string(),
            "num_items -2 is negative"
        );
    }

    #[test]
    fn names() {
        assert_eq!(type_name_06(9), Some("obj_character"));
        assert_eq!(type_name_06(20), Some("event_damage_indicator"));
        assert_eq!(type_name_06(0), Some("obj_ex"));
        assert_eq!(type_name_06(21), None);
        assert_eq!(type_name_07(22), Some("event_damage"));
        assert_eq!(type_name_07(24), Some("obj_game_data_race"));
        assert_eq!(type_name_07(25), None);
        assert_eq!(type_name_07(13), Some("obj_de_client_info"));
        let character = crate::uuid::uuid_from_name("character@netobj.ddnet.tw");
        assert_eq!(
            known_extended_type_name(character),
            Some("character@netobj.ddnet.tw")
        );
        assert_eq!(known_extended_type_name(crate::uuid::Uuid::nil()), None);
    }

    #[test]
    fn size_tables() {
        let ddnet = SizeTable::ddnet_06();
        assert_eq!(ddnet.size_of(9), Some(22)); // obj_character
        assert_eq!(ddnet.size_of(20), Some(3));
        assert_eq!(ddnet.size_of(21), None);
        assert_eq!(ddnet.size_of(0), None);
        assert_eq!(ddnet.size_of(-1), None);
        let seven = SizeTable::teeworlds_07();
        assert_eq!(seven.size_of(13), Some(58)); // obj_de_client_info
        assert_eq!(seven.size_of(22), Some(7)); // event_damage, docs/format-notes.md, "Snapshots"
        assert_eq!(seven.size_of(23), None);
        let custom = SizeTable::custom(&[(40, 3)]).unwrap();
        assert_eq!(custom.size_of(40), Some(3));
        assert!(SizeTable::custom(&[(64, 1)]).is_err());
        assert_eq!(
            format!("{:?}", SizeTable::custom(&[(2, 6)]).unwrap()),
            "{2: 6}"
        );
    }
}
