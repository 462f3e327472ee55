//! Snapshots and snapshot deltas: read, write, apply, create, checksum (snapshot.md;
//! docs/format-notes.md, "Snapshots"; DDNet `src/engine/shared/snapshot.cpp`).
//!
//! ```
//! use twcodec::snap::{SizeTable, Snapshot, SnapshotBuilder, SnapshotDelta};
//!
//! let mut old = SnapshotBuilder::new();
//! old.add_item(4, 0, &[320, 96, 0, 0])?; // a pickup
//! old.add_item(9, 0, &[0; 22])?; // a character
//! let old = old.finish()?;
//!
//! let mut new = SnapshotBuilder::new();
//! new.add_item(4, 0, &[320, 96, 0, 0])?; // unchanged: left out of the delta
//! let mut character = [0; 22];
//! character[2] = 33; // moved
//! new.add_item(9, 0, &character)?;
//! new.add_item(2, 7, &[1, 2, 3, 4, 5, 6])?; // a new projectile
//! let new = new.finish()?;
//!
//! let delta = SnapshotDelta::create(&old, &new)?;
//! assert_eq!(delta.updates().count(), 2);
//! let sizes = SizeTable::ddnet_06();
//! let wire = delta.to_packed(&sizes)?; // what a server sends
//! let received = SnapshotDelta::from_packed(&wire, &sizes)?;
//! let rebuilt = old.apply(&received)?;
//! assert_eq!(rebuilt, new);
//! assert_eq!(rebuilt.checksum(), new.checksum());
//! # Ok::<(), twcodec::Error>(())
//! ```
//!
//! Snapshots and deltas are int arrays; on the network and in demos the ints are packed as
//! variable-length ints ([`packing`]). The layouts are the schema's
//! [`SnapshotLayout`](crate::schema::snapshot::SnapshotLayout) and
//! [`SnapshotDeltaLayout`](crate::schema::snapshot::SnapshotDeltaLayout), and reading and
//! writing go through them: the header checks below come first (they bound every count by
//! the input), then binrw reads the layout, its int runs in one copy each and the item deltas
//! into flat storage that the delta keeps without copying, and writing lays a delta's parts
//! out through the same layout, borrowed, straight into the output. The schema's errors
//! (an item delta's type, id, `_size` or data) are turned into the messages below; what
//! follows an offset or needs a limit is checked here, on the layout read.
//!
//! # Order
//!
//! Items keep the order they are stored in, so reading then writing gives the same ints.
//! The order carries no meaning (DDNet looks items up by key), so `==` compares the items by
//! key. [`Snapshot::apply`] orders its result as DDNet does: the kept items of the old
//! snapshot in their order, then the new items in the order of the delta. [`SnapshotDelta::create`]
//! lists removed keys in the order of the old snapshot and item deltas in the order of the new
//! one, as DDNet does, so both give DDNet's ints.
//!
//! # Checks
//!
//! Errors name the rule, the item, and the byte offset in the input (for packed input, in the
//! packed bytes). Following DDNet (`CSnapshot::IsValid`, `CSnapshotDelta::UnpackDelta`), with
//! the rules DDNet leaves to chance made errors too:
//!
//! - snapshot ([`Snapshot::from_ints`]): the 2 header ints; `num_items` 0 to [`MAX_ITEMS`];
//!   `data_size` not negative and a multiple of 4, and 0 without items; the whole snapshot at most [`MAX_SIZE`] bytes
//!   and exactly as long as the input; the first offset 0, every offset aligned, each at least
//!   4 bytes (a key) past the one before, the last leaving room for a key; type ids at most
//!   [`MAX_TYPE`]; no key twice.
//! - delta ([`SnapshotDelta::from_ints`]): no ints at all is the empty delta, otherwise the 3
//!   header ints; the whole delta at most [`MAX_SIZE`] bytes (DDNet unpacks deltas into
//!   buffers of `CSnapshot::MAX_SIZE`, on the network and in demos); counts not negative; the
//!   removed keys within the input; each item delta's type id 0 to [`MAX_TYPE`], id 0 to
//!   65535, `_size` not negative, its data within the input; nothing after the last item
//!   delta; no key updated twice.
//! - apply ([`Snapshot::apply`]): every removed key is in the old snapshot, once; no key both
//!   removed and updated; an update of an existing item has that item's size; the result within
//!   [`MAX_ITEMS`] and [`MAX_SIZE`], checked before anything is allocated for it.
//! - packed input ([`Snapshot::from_packed`], [`SnapshotDelta::from_packed`], [`decode`]): at
//!   most [`MAX_SIZE`] bytes of ints; unpacking stops at the first int past them.
//! - create ([`SnapshotDelta::create`]): an item that changes size cannot be described by a
//!   delta. (A delta between two snapshots near [`MAX_SIZE`] can be up to about 8 KiB larger
//!   than that, and then does not read back, as DDNet could not receive it.) Write ([`SnapshotDelta::to_ints`]): an item delta of a type with a pre-agreed size
//!   must have that size.
//! - building ([`SnapshotBuilder`]): type ids at most [`MAX_TYPE`], the limits, no key twice.
//!
//! # Extended types
//!
//! Types from [`OFFSET_EXTENDED_TYPE`] to [`MAX_TYPE`] are named by a UUID that the snapshot
//! announces in an item of type 0 whose id is the type and whose 4 ints are the UUID
//! ([`Snapshot::type_uuid`], [`Snapshot::uuid_type`], [`SnapshotBuilder::add_extended_item`]).
//!
//! # Objects
//!
//! [`Snapshot::objects`] gives the items as the objects of a protocol (characters, players,
//! events, DDNet's extended objects), typed by the schema's registry; see [`ObjectItem`].

mod delta;
pub mod objects;
pub mod packing;
mod snapshot;

pub use delta::SnapshotDelta;
pub use objects::{Note, ObjectError, ObjectItem, SnapObject, SnapObjectKind};
pub use snapshot::{SnapItem, Snapshot, SnapshotBuilder};
pub use twcodec_schema::snapshot::{
    known_extended_type_name, type_name_06, type_name_07, SizeTable, SnapKey,
    EXTENDED_TYPE_ANNOUNCEMENT, MAX_TYPE, OFFSET_EXTENDED_TYPE,
};

use std::borrow::Cow;
use std::path::Path;

use binrw::io::Cursor;
use binrw::{BinRead, BinResult, BinWrite, Endian};

use crate::Error;

/// Most items a snapshot can have (DDNet `CSnapshot::MAX_ITEMS`).
pub const MAX_ITEMS: usize = 1024;

/// Most bytes a snapshot can take, header and offsets included (DDNet `CSnapshot::MAX_SIZE`);
/// also the most a delta can take as ints, since DDNet unpacks deltas into buffers of this
/// size.
pub const MAX_SIZE: usize = 64 * 1024;

/// The protocols whose pre-agreed sizes and type names twcodec knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// Teeworlds 0.6 and DDNet: types 1 to 20 pre-agreed.
    Ddnet06,
    /// Teeworlds 0.7: types 1 to 22 pre-agreed.
    Teeworlds07,
}

impl Protocol {
    /// The protocol's pre-agreed item sizes.
    pub fn sizes(self) -> SizeTable {
        match self {
            Protocol::Ddnet06 => SizeTable::ddnet_06(),
            Protocol::Teeworlds07 => SizeTable::teeworlds_07(),
        }
    }

    /// The name of a type of the protocol (`obj_character`, `event_death`, ...).
    pub fn type_name(self, type_id: u16) -> Option<&'static str> {
        match self {
            Protocol::Ddnet06 => type_name_06(type_id),
            Protocol::Teeworlds07 => type_name_07(type_id),
        }
    }

    /// The kind of object of a numbered type of the protocol (below
    /// [`OFFSET_EXTENDED_TYPE`]), from the schema's registry
    /// ([`twcodec_schema::netobj`]).
    pub fn object_kind(self, type_id: u16) -> Option<SnapObjectKind> {
        match self {
            Protocol::Ddnet06 => SnapObjectKind::of_ddnet_06(type_id),
            Protocol::Teeworlds07 => SnapObjectKind::of_teeworlds_07(type_id),
        }
    }
}

impl std::fmt::Display for Protocol {
    /// `0.6/DDNet` or `0.7`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Protocol::Ddnet06 => "0.6/DDNet",
            Protocol::Teeworlds07 => "0.7",
        })
    }
}

/// The ints of the unpacked form stored as bytes (4 little-endian bytes each), as a file holds
/// them; the inverse of [`ints_to_bytes`].
pub fn ints_from_bytes(bytes: &[u8]) -> Result<Vec<i32>, Error> {
    if bytes.len() % 4 != 0 {
        return Err(Error::malformed(format!(
            "{} bytes are not a whole number of 4-byte ints",
            bytes.len()
        ))
        .at(bytes.len() / 4 * 4));
    }
    Ok(twcodec_schema::map::cast_ints(bytes))
}

/// The bytes of ints, 4 little-endian bytes each.
pub fn ints_to_bytes(ints: &[i32]) -> Vec<u8> {
    twcodec_schema::map::ints_as_le_bytes(ints)
}

/// How a file or buffer stores the ints of a snapshot or delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Form {
    /// 4 little-endian bytes per int, the unpacked form; error offsets are byte offsets.
    #[default]
    Ints,
    /// Variable-length packed ints, as on the network and in demos; error offsets are byte
    /// offsets in the packed bytes.
    Packed,
}

/// A snapshot or a delta, as [`decode`] found the bytes to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// A snapshot.
    Snapshot(Snapshot),
    /// A snapshot delta.
    Delta(SnapshotDelta),
}

/// Reads `bytes` as a snapshot when they are one, else as a delta under `sizes`; when they
/// are neither, the error says why for both. The two rarely both fit: a snapshot's sizes must
/// add up to the input exactly, and a delta's item deltas must end exactly at its end.
pub fn decode(bytes: &[u8], form: Form, sizes: &SizeTable) -> Result<Decoded, Error> {
    let ints = match form {
        Form::Ints => ints_from_bytes(bytes)?,
        Form::Packed => unpack(bytes, "a snapshot or a snapshot delta")?,
    };
    let locate = |error: Error| match form {
        Form::Ints => error,
        Form::Packed => error.map_offset(|at| packed_offset(bytes, at)),
    };
    let as_snapshot = match Snapshot::from_ints(&ints) {
        Ok(snapshot) => return Ok(Decoded::Snapshot(snapshot)),
        Err(error) => locate(error),
    };
    SnapshotDelta::from_ints(&ints, sizes)
        .map(Decoded::Delta)
        .map_err(|as_delta| {
            let as_delta = locate(as_delta);
            Error::malformed(format!(
                "neither a snapshot ({as_snapshot}) nor a snapshot delta ({as_delta})"
            ))
        })
}

/// Reads a file with [`decode`]; errors name the file.
pub fn load(path: impl AsRef<Path>, form: Form, sizes: &SizeTable) -> Result<Decoded, Error> {
    let path = path.as_ref();
    decode(&read_file(path)?, form, sizes).map_err(|error| error.with_path(path))
}

/// Reads a whole file.
fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    let limits = crate::Limits::DEFAULT;
    crate::input::read_file(path, limits.max_file_size(), "Limits::max_file_size")
}

impl Snapshot {
    /// Reads a snapshot from bytes in `form`.
    pub fn parse(bytes: &[u8], form: Form) -> Result<Snapshot, Error> {
        match form {
            Form::Ints => Snapshot::from_ints(&ints_from_bytes(bytes)?),
            Form::Packed => Snapshot::from_packed(bytes),
        }
    }

    /// The bytes of this snapshot in `form`.
    pub fn to_bytes(&self, form: Form) -> Vec<u8> {
        match form {
            Form::Ints => ints_to_bytes(&self.to_ints()),
            Form::Packed => self.to_packed(),
        }
    }

    /// Reads a snapshot file; errors name the file.
    pub fn open(path: impl AsRef<Path>, form: Form) -> Result<Snapshot, Error> {
        let path = path.as_ref();
        Snapshot::parse(&read_file(path)?, form).map_err(|error| error.with_path(path))
    }

    /// Writes this snapshot to a file, as [`crate::fs::save`] does (feature `fs`).
    #[cfg(feature = "fs")]
    pub fn save(&self, path: impl AsRef<Path>, form: Form) -> Result<(), Error> {
        crate::fs::save(path, &self.to_bytes(form))
    }
}

impl SnapshotDelta {
    /// Reads a delta from bytes in `form`, for a protocol with pre-agreed `sizes`.
    pub fn parse(bytes: &[u8], form: Form, sizes: &SizeTable) -> Result<SnapshotDelta, Error> {
        match form {
            Form::Ints => SnapshotDelta::from_ints(&ints_from_bytes(bytes)?, sizes),
            Form::Packed => SnapshotDelta::from_packed(bytes, sizes),
        }
    }

    /// The bytes of this delta in `form`, for a protocol with pre-agreed `sizes`.
    pub fn to_bytes(&self, form: Form, sizes: &SizeTable) -> Result<Vec<u8>, Error> {
        Ok(match form {
            Form::Ints => ints_to_bytes(&self.to_ints(sizes)?),
            Form::Packed => self.to_packed(sizes)?,
        })
    }

    /// Reads a delta file; errors name the file.
    pub fn open(
        path: impl AsRef<Path>,
        form: Form,
        sizes: &SizeTable,
    ) -> Result<SnapshotDelta, Error> {
        let path = path.as_ref();
        SnapshotDelta::parse(&read_file(path)?, form, sizes).map_err(|error| error.with_path(path))
    }

    /// Writes this delta to a file, as [`crate::fs::save`] does (feature `fs`).
    #[cfg(feature = "fs")]
    pub fn save(&self, path: impl AsRef<Path>, form: Form, sizes: &SizeTable) -> Result<(), Error> {
        crate::fs::save(path, &self.to_bytes(form, sizes)?)
    }
}

/// `1 int`, `2 ints`.
fn ints(count: usize) -> String {
    match count {
        1 => "1 int".into(),
        _ => format!("{count} ints"),
    }
}

/// Most ints a snapshot or a delta can have: [`MAX_SIZE`] bytes of them.
const MAX_INTS: usize = MAX_SIZE / 4;

/// Unpacks the packed ints of `what` (a snapshot, a delta, or either), at most [`MAX_INTS`]
/// of them, or says where they break.
fn unpack(bytes: &[u8], what: &str) -> Result<Vec<i32>, Error> {
    packing::unpack_ints_at_most(bytes, MAX_INTS).map_err(|error| match error {
        packing::UnpackError::Truncated(at) => {
            Error::malformed("the input ends inside a packed int").at(at)
        }
        packing::UnpackError::Overlong(at) => {
            Error::malformed("a packed int is longer than an int can be").at(at)
        }
        packing::UnpackError::TooMany { at, max } => Error::limit(format!(
            "the packed input holds more than the {max} ints ({MAX_SIZE} bytes) that {what} \
             can take"
        ))
        .at(at),
    })
}

/// Turns the byte offset of an error about unpacked ints (4 bytes per int) into the offset of
/// that int in the packed bytes.
fn packed_offset(packed: &[u8], unpacked_offset: u64) -> u64 {
    let wanted = unpacked_offset / 4;
    let mut pos = 0;
    let mut index = 0;
    while index < wanted && pos < packed.len() {
        if packing::unpack_int(packed, &mut pos).is_err() {
            break;
        }
        index += 1;
    }
    pos as u64
}

/// Reads `T` through binrw from unpacked ints, and how many bytes of them it took.
fn read_layout<T: BinRead>(ints: &[i32], args: T::Args<'_>) -> BinResult<(T, usize)> {
    // The ints' own bytes where they are little-endian already: no copy.
    let bytes: Cow<'_, [u8]> = if cfg!(target_endian = "little") {
        Cow::Borrowed(bytemuck::cast_slice(ints))
    } else {
        Cow::Owned(ints_to_bytes(ints))
    };
    let mut cursor = Cursor::new(bytes);
    let value = T::read_options(&mut cursor, Endian::Little, args)?;
    Ok((value, cursor.position() as usize))
}

/// Appends `value`, written through binrw, to `out` as ints; `room` bytes (at least what it
/// takes) are reserved beforehand. On an error, `out` is left as it was.
fn write_layout<T>(value: &T, room: usize, out: &mut Vec<i32>) -> BinResult<()>
where
    T: for<'a> BinWrite<Args<'a> = ()>,
{
    let start = out.len();
    out.reserve(room / 4);
    let written = value.write_options(&mut IntWriter { out, start }, Endian::Little, ());
    if written.is_err() {
        out.truncate(start);
    }
    written
}

/// A binrw writer that appends to ints: every write is whole little-endian ints (the layouts
/// written through it are made of i32 only), so that an int's 4 bytes become one push and a
/// run one copy, with no byte buffer in between. (`Cursor<&mut [u8]>` would make every int a
/// call to `memcpy`, clamped to the room left.)
struct IntWriter<'a> {
    out: &'a mut Vec<i32>,
    /// Where the layout starts in `out`.
    start: usize,
}

impl binrw::io::Write for IntWriter<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        // One int (binrw writes a field's 4 bytes at once): one push.
        if let Ok(&int) = <&[u8; 4]>::try_from(bytes) {
            self.out.push(i32::from_le_bytes(int));
            return Ok(());
        }
        if bytes.len() % 4 != 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a write of part of an int",
            ));
        }
        // A run, cast from ints (so aligned): one copy where ints are little-endian.
        match bytemuck::try_cast_slice::<u8, i32>(bytes) {
            Ok(ints) if cfg!(target_endian = "little") => self.out.extend_from_slice(ints),
            _ => (self.out).extend(
                (bytes.chunks_exact(4))
                    .map(|int| i32::from_le_bytes([int[0], int[1], int[2], int[3]])),
            ),
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl binrw::io::Seek for IntWriter<'_> {
    /// Only where the writer is: binrw asks for the position, and writes in order.
    fn seek(&mut self, pos: binrw::io::SeekFrom) -> std::io::Result<u64> {
        let here = 4 * (self.out.len() - self.start) as u64;
        match pos {
            binrw::io::SeekFrom::Current(0) => Ok(here),
            binrw::io::SeekFrom::Start(to) if to == here => Ok(here),
            _ => Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "an int writer only appends",
            )),
        }
    }

    #[inline]
    fn stream_position(&mut self) -> std::io::Result<u64> {
        Ok(4 * (self.out.len() - self.start) as u64)
    }
}

/// Sorts `(key, index)` pairs packed into one u64 each, key in the high half, so that a sort of
/// plain integers orders them by key.
fn key_entry(key: SnapKey, index: usize) -> u64 {
    (u64::from(key.0) << 32) | index as u64
}

/// The key of a [`key_entry`].
fn entry_key(entry: u64) -> SnapKey {
    SnapKey((entry >> 32) as u32)
}

/// The index of a [`key_entry`].
fn entry_index(entry: u64) -> usize {
    (entry & 0xFFFF_FFFF) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_offsets_point_at_the_int() {
        // Ints 0, 64 (2 bytes), 1: int #2 starts at packed byte 3.
        let packed = packing::pack_ints(&[0, 64, 1]);
        assert_eq!(packed_offset(&packed, 8), 3);
        assert_eq!(packed_offset(&packed, 0), 0);
        assert_eq!(packed_offset(&packed, 400), 4);
    }

    #[test]
    fn layouts_append_whole_ints_or_nothing() {
        use binrw::io::Write;
        let mut out = vec![7];
        let mut writer = IntWriter {
            out: &mut out,
            start: 1,
        };
        writer.write_all(&(-2i32).to_le_bytes()).unwrap();
        assert!(writer.write_all(&[1, 2]).is_err());
        // A run, aligned or not.
        let run: Vec<u8> = [3i32, 4].iter().flat_map(|int| int.to_le_bytes()).collect();
        writer.write_all(bytemuck::cast_slice(&[3i32, 4])).unwrap();
        assert!(writer.write_all(&[0; 9]).is_err());
        let mut unaligned = vec![0u8];
        unaligned.extend_from_slice(&run);
        writer.write_all(&unaligned[1..]).unwrap();
        assert_eq!(out, [7, -2, 3, 4, 3, 4]);

        // A delta that does not write (a pre-agreed type of another size) appends nothing.
        let mut builder = SnapshotBuilder::new();
        builder.add_item(9, 0, &[1]).unwrap();
        let new = builder.finish().unwrap();
        let delta = SnapshotDelta::create(&Snapshot::empty(), &new).unwrap();
        let mut out = vec![1, 2, 3];
        assert!(delta.write_ints(&SizeTable::ddnet_06(), &mut out).is_err());
        assert_eq!(out, [1, 2, 3]);
        delta.write_ints(&SizeTable::none(), &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 0, 1, 0, 9, 0, 1, 1]);
    }

    #[test]
    fn key_entries_sort_by_key() {
        let mut entries = [
            key_entry(SnapKey::new(9, 0), 0),
            key_entry(SnapKey::new(2, 5), 1),
        ];
        entries.sort_unstable();
        assert_eq!(entry_key(entries[0]), SnapKey::new(2, 5));
        assert_eq!(entry_index(entries[0]), 1);
    }
}
