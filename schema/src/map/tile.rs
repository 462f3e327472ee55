//! Tile types of tilemap layers and the 0.7 tile skip compression (map.md, "Layers").
//!
//! # Which layer uses which tile type
//!
//! Every tilemap layer stores a row-major `width * height` array of one tile type; all tile types
//! consist of bytes only (map.md, "Layers"; DDNet `src/game/mapitems.h`):
//!
//! | layer (tilemap `flags`) | tile type | size | DDNet |
//! |---|---|---|---|
//! | tiles (0), game (1), front (8) | [`Tile`] | 4 bytes | `CTile` |
//! | tele (2) | [`Tele`] | 2 bytes | `CTeleTile` |
//! | speedup (4) | [`Speedup`] | 6 bytes, `angle` an `i16` LE at offset 4 | `CSpeedupTile` |
//! | switch (16) | [`Switch`] | 4 bytes | `CSwitchTile` |
//! | tune (32) | [`Tune`] | 2 bytes | `CTuneTile` |
//!
//! The non-game physics layers keep their tiles in their own data index; their `data` field points
//! to a zeroed [`Tile`] array for vanilla clients (docs/format-notes.md, "Tile layers").
//!
//! # Tile flags
//!
//! The `flags` byte of [`Tile`] and [`Switch`] is a [`TileFlags`] bit field: bit 0 mirrors the tile
//! horizontally (x flip; map.md calls it "vertical flip", see docs/format-notes.md,
//! "Tile layers"), bit 1 mirrors it vertically (y flip), bit 2 marks it opaque, bit 3 rotates it
//! 90° clockwise after the flips. The upper four bits have no meaning and are kept as
//! [`TileFlags::unknown`] so that writing is lossless.
//!
//! # Old layouts
//!
//! Old DDRace maps store speedup tiles in 4 bytes ([`OldSpeedup`]: force, padding, `i16` angle) and
//! switch tiles in 2 ([`OldSwitch2`]: number, id) or 3 bytes ([`OldSwitch3`]: number, id, flags).
//! The layout shows only in the data size: `width * height * 4` bytes of speedup data, or
//! `width * height * 2` or `* 3` bytes of switch data. Each old type has an `upgrade` to the
//! current one, the way twmap reads such maps; DDNet refuses to load them.
//!
//! # 0.7 skip compression
//!
//! In tilemap version 4 and later (Teeworlds 0.7; tiles and game layers), `data` holds a shorter
//! array of [`Tile`]s in which a tile with `skip = n` stands for `n + 1` copies of itself with
//! `skip = 0`. [`expand_skip`] undoes it and checks that the entries fill the layer exactly;
//! [`compress_skip`] produces the canonical greedy encoding of the Teeworlds editor (at most 256
//! tiles per entry). [`grid_len`] computes the tile count of a layer without overflow.
//!
//! # Decoding arrays
//!
//! Tile arrays are decoded by casting bytes ([`cast_tiles`], [`tiles_as_bytes`]; bytemuck), never
//! element by element: every tile type has alignment 1 and no padding, so a cast can only fail on
//! the length. The binrw derives are there for single tiles and tests.

use binrw::binrw;
use bytemuck::{Pod, Zeroable};
use modular_bitfield::prelude::*;
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

#[cfg(feature = "serde")]
use super::common::deserialize_flags;
use super::common::flag_names;
use twcodec_schema_derive::describe;

/// The tile id an upgraded [`OldSpeedup`] tile gets (map.md, "Layers"; DDNet `TILE_SPEED_BOOST_OLD`).
///
/// The old 4-byte speedup layout has no id byte: when it was in use the only speedup tile was the
/// boost tile, id 28 in DDNet's `mapitems.h` (`TILE_BOOST`, today `TILE_SPEED_BOOST_OLD`). twmap
/// upgrades old speedup tiles to this id, and so do we.
#[doc(alias = "TILE_SPEED_BOOST_OLD")]
#[doc(alias = "TILE_BOOST")]
pub const OLD_SPEEDUP_TILE_ID: u8 = 28;

/// The most tiles one skip-compressed entry can stand for (`skip = 255`).
const MAX_RUN: usize = u8::MAX as usize + 1;

/// The largest tile size, for the overflow check of [`grid_len`].
const MAX_TILE_SIZE: usize = 6;

/// An error in tile data: a length, a layer size or a skip encoding that does not fit
/// (map.md, "Layers").
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TileError {
    /// The data is not a whole number of tiles of the expected type.
    Length {
        /// The tile type expected, [`TileKind::NAME`].
        kind: &'static str,
        /// The length of the data in bytes.
        len: usize,
        /// The size of one tile in bytes.
        tile_size: usize,
    },
    /// The layer's width or height is not positive, or its tiles would not fit in memory.
    Dimensions {
        /// The layer's `width`.
        width: i32,
        /// The layer's `height`.
        height: i32,
    },
    /// A skip-compressed entry stands for tiles past the end of the layer.
    SkipOverflow {
        /// The index of the entry in the compressed array.
        entry: usize,
        /// The number of tiles of the layer (`width * height`).
        count: usize,
    },
    /// The skip-compressed entries end before the layer is full.
    SkipShort {
        /// The number of tiles all entries together stand for.
        produced: usize,
        /// The number of tiles of the layer (`width * height`).
        count: usize,
    },
}

impl std::fmt::Display for TileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TileError::Length {
                kind,
                len,
                tile_size,
            } => write!(
                f,
                "tile data of {len} bytes is not a whole number of {tile_size}-byte {kind} tiles"
            ),
            TileError::Dimensions { width, height } => write!(
                f,
                "layer dimensions {width}x{height} {}",
                dimensions_problem(*width, *height)
            ),
            TileError::SkipOverflow { entry, count } => write!(
                f,
                "skip entry {entry} runs past the {count} tiles of the layer"
            ),
            TileError::SkipShort { produced, count } => write!(
                f,
                "skip entries expand to {produced} tiles, the layer has {count}"
            ),
        }
    }
}

impl std::error::Error for TileError {}

/// Says what is wrong with layer dimensions, for [`TileError::Dimensions`].
fn dimensions_problem(width: i32, height: i32) -> &'static str {
    if width < 1 || height < 1 {
        "are not positive"
    } else {
        "are too large: their tiles would not fit in memory"
    }
}

/// The flags byte of a [`Tile`] or [`Switch`] (map.md, "Layers"; DDNet `TILEFLAG_*`).
///
/// map.md names bit 0 "vertical flip" and bit 1 "horizontal flip", but bit 0 mirrors the tile
/// horizontally (its x coordinates) and bit 1 vertically (docs/format-notes.md, "Tile layers";
/// DDNet `TILEFLAG_XFLIP`, `TILEFLAG_YFLIP`, older `TILEFLAG_VFLIP`, `TILEFLAG_HFLIP`). Rotation
/// applies after the flips. Use [`TileFlags::from_byte`] and [`TileFlags::to_byte`]; every byte
/// round-trips.
#[bitfield(bytes = 1)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[doc(alias = "TILEFLAG_XFLIP")]
#[doc(alias = "TILEFLAG_YFLIP")]
#[doc(alias = "TILEFLAG_VFLIP")]
#[doc(alias = "TILEFLAG_HFLIP")]
#[doc(alias = "TILEFLAG_OPAQUE")]
#[doc(alias = "TILEFLAG_ROTATE")]
pub struct TileFlags {
    /// Bit 0: mirror horizontally (DDNet `TILEFLAG_XFLIP`, map.md's "vertical flip").
    pub x_flip: bool,
    /// Bit 1: mirror vertically (DDNet `TILEFLAG_YFLIP`, map.md's "horizontal flip").
    pub y_flip: bool,
    /// Bit 2: the tile has no transparent pixels (DDNet `TILEFLAG_OPAQUE`).
    pub opaque: bool,
    /// Bit 3: rotate 90° clockwise after the flips (DDNet `TILEFLAG_ROTATE`).
    pub rotate: bool,
    /// Bits 4 to 7, which have no meaning; kept so that writing is lossless. Set them with
    /// [`TileFlags::from_byte`].
    #[skip(setters)]
    pub unknown: B4,
}

impl TileFlags {
    /// The flags of a `flags` byte; unknown bits are kept (map.md, "Layers").
    pub fn from_byte(byte: u8) -> TileFlags {
        TileFlags::from_bytes([byte])
    }

    /// The `flags` byte of these flags (map.md, "Layers").
    pub fn to_byte(self) -> u8 {
        let [byte] = self.into_bytes();
        byte
    }

    /// The names of the set flags, then `unknown(0x..)` with the mask of bits 4 to 7 when any is
    /// set.
    pub fn names(self) -> Vec<String> {
        flag_names(
            &[
                (self.x_flip(), "x_flip"),
                (self.y_flip(), "y_flip"),
                (self.opaque(), "opaque"),
                (self.rotate(), "rotate"),
            ],
            u64::from(self.unknown()) << 4,
        )
    }
}

#[cfg(feature = "serde")]
impl Serialize for TileFlags {
    /// Serializes as the list of set flag names, e.g. `["x_flip", "rotate"]`, plus
    /// `"unknown(0x..)"` when unknown bits are set.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.names())
    }
}

#[cfg(feature = "serde")]
impl<'de> Deserialize<'de> for TileFlags {
    /// Reads the list [`Serialize`] writes.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let names = ["x_flip", "y_flip", "opaque", "rotate"];
        let bits = deserialize_flags(deserializer, &names, 8)? as u8;
        Ok(TileFlags::from_byte(bits))
    }
}

/// A tile of a tiles, game or front layer (map.md, "Layers", 'Tile'; DDNet `CTile`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CTile")]
pub struct Tile {
    /// What the tile is: an index into the layer's image, or a game tile id (DDNet `m_Index`).
    pub id: u8,
    /// The [`TileFlags`] byte (DDNet `m_Flags`).
    pub flags: u8,
    /// 0.7 skip compression: the number of copies that follow this entry; 0 in expanded arrays
    /// (DDNet `m_Skip`).
    pub skip: u8,
    /// Unused, 0 in real maps (DDNet `m_Reserved`, newer `m_MustBe0`).
    pub reserved: u8,
}

impl Tile {
    /// The flags byte as [`TileFlags`] (map.md, "Layers").
    pub fn tile_flags(&self) -> TileFlags {
        TileFlags::from_byte(self.flags)
    }

    /// Sets the flags byte from [`TileFlags`] (map.md, "Layers").
    pub fn set_tile_flags(&mut self, flags: TileFlags) {
        self.flags = flags.to_byte();
    }

    /// Whether two tiles may share one skip-compressed entry: the same id, flags and reserved
    /// byte; the skip byte is ignored.
    fn same_run(&self, other: &Tile) -> bool {
        self.id == other.id && self.flags == other.flags && self.reserved == other.reserved
    }
}

/// A tile of a tele layer (map.md, "Layers", 'Tele'; DDNet `CTeleTile`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CTeleTile")]
pub struct Tele {
    /// The teleporter number that groups entries and exits (DDNet `m_Number`).
    pub number: u8,
    /// The tile id (DDNet `m_Type`).
    pub id: u8,
}

/// A tile of a speedup layer (map.md, "Layers", 'Speedup'; DDNet `CSpeedupTile`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CSpeedupTile")]
pub struct Speedup {
    /// The strength of the push (DDNet `m_Force`).
    pub force: u8,
    /// The speed up to which the tile pushes; 0 = no limit (DDNet `m_MaxSpeed`).
    pub max_speed: u8,
    /// The tile id (DDNet `m_Type`).
    pub id: u8,
    /// Padding, 0 in real maps (DDNet `m_MustBe0`).
    pub reserved: u8,
    /// The direction in degrees, an `i16` little-endian and unaligned at offset 4; use
    /// [`Speedup::angle`] (DDNet `m_Angle`).
    pub angle: [u8; 2],
}

impl Speedup {
    /// The direction in degrees (map.md, "Layers": "angle is LE").
    pub fn angle(&self) -> i16 {
        i16::from_le_bytes(self.angle)
    }

    /// Sets the direction in degrees (map.md, "Layers").
    pub fn set_angle(&mut self, angle: i16) {
        self.angle = angle.to_le_bytes();
    }
}

/// A tile of a switch layer (map.md, "Layers", 'Switch'; DDNet `CSwitchTile`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CSwitchTile")]
pub struct Switch {
    /// The switch number that groups tiles acting on each other (DDNet `m_Number`).
    pub number: u8,
    /// The tile id (DDNet `m_Type`).
    pub id: u8,
    /// The [`TileFlags`] byte (DDNet `m_Flags`).
    pub flags: u8,
    /// The delay in seconds of timed switches (DDNet `m_Delay`).
    pub delay: u8,
}

impl Switch {
    /// The flags byte as [`TileFlags`] (map.md, "Layers").
    pub fn tile_flags(&self) -> TileFlags {
        TileFlags::from_byte(self.flags)
    }

    /// Sets the flags byte from [`TileFlags`] (map.md, "Layers").
    pub fn set_tile_flags(&mut self, flags: TileFlags) {
        self.flags = flags.to_byte();
    }
}

/// A tile of a tune layer (map.md, "Layers", 'Tune'; DDNet `CTuneTile`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CTuneTile")]
pub struct Tune {
    /// The tune zone, defined in the map settings (DDNet `m_Number`).
    pub number: u8,
    /// The tile id (DDNet `m_Type`).
    pub id: u8,
}

/// An old 4-byte speedup tile of early DDRace maps (map.md, "Layers"; old DDRace `CSpeedupTile`).
///
/// Recognised by speedup data of `width * height * 4` bytes. C++ laid out
/// `{ unsigned char m_Force; short m_Angle; }` with a padding byte after the force.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CSpeedupTile")]
pub struct OldSpeedup {
    /// The strength of the push (DDRace `m_Force`).
    pub force: u8,
    /// Alignment padding of the C++ struct, 0 in real maps; dropped by [`OldSpeedup::upgrade`].
    pub reserved: u8,
    /// The direction in degrees, an `i16` little-endian at offset 2; use [`OldSpeedup::angle`]
    /// (DDRace `m_Angle`).
    pub angle: [u8; 2],
}

impl OldSpeedup {
    /// The direction in degrees (map.md, "Layers").
    pub fn angle(&self) -> i16 {
        i16::from_le_bytes(self.angle)
    }

    /// The current speedup tile (map.md, "Layers"): same force and angle, no speed limit, id
    /// [`OLD_SPEEDUP_TILE_ID`], padding 0.
    pub fn upgrade(&self) -> Speedup {
        Speedup {
            force: self.force,
            max_speed: 0,
            id: OLD_SPEEDUP_TILE_ID,
            reserved: 0,
            angle: self.angle,
        }
    }
}

/// An old 2-byte switch tile of early DDRace maps, laid out like [`Tele`] (map.md, "Layers";
/// twmap's `convert_tele_to_switch`).
///
/// Recognised by switch data of `width * height * 2` bytes.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CSwitchTile")]
pub struct OldSwitch2 {
    /// The switch number (DDRace `m_Number`).
    pub number: u8,
    /// The tile id (DDRace `m_Type`).
    pub id: u8,
}

impl OldSwitch2 {
    /// The current switch tile (map.md, "Layers"): same number and id, flags 0, delay 0.
    pub fn upgrade(&self) -> Switch {
        Switch {
            number: self.number,
            id: self.id,
            flags: 0,
            delay: 0,
        }
    }
}

/// An old 3-byte switch tile (map.md, "Layers"; known from twmap's `convert_old_switch`, no
/// C++ source or real map found).
///
/// Recognised by switch data of `width * height * 3` bytes.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CSwitchTile")]
pub struct OldSwitch3 {
    /// The switch number (DDRace `m_Number`).
    pub number: u8,
    /// The tile id (DDRace `m_Type`).
    pub id: u8,
    /// The [`TileFlags`] byte (DDRace `m_Flags`).
    pub flags: u8,
}

impl OldSwitch3 {
    /// The current switch tile (map.md, "Layers"): same number, id and flags, delay 0.
    pub fn upgrade(&self) -> Switch {
        Switch {
            number: self.number,
            id: self.id,
            flags: self.flags,
            delay: 0,
        }
    }
}

/// A tile of a Teeworlds 0.3 tilemap (`mapres_tilemap` data, see [`super::legacy`]): index and
/// flags, 2 bytes; the Teeworlds 0.4/0.5 editor reads it that way when importing such maps.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
pub struct LegacyTile {
    /// The tile index.
    pub id: u8,
    /// The [`TileFlags`] byte.
    pub flags: u8,
}

impl LegacyTile {
    /// The tile as a current tilemap holds it: same id and flags, skip and reserved 0.
    pub fn upgrade(&self) -> Tile {
        Tile {
            id: self.id,
            flags: self.flags,
            skip: 0,
            reserved: 0,
        }
    }
}

/// A tile type that arrays of tiles can be cast to and from (map.md, "Layers").
///
/// Implementors must have alignment 1 (only `u8` and `[u8; N]` fields), so that a cast from bytes
/// can fail only on the length. Implemented for every tile type of this module.
pub trait TileKind: bytemuck::Pod {
    /// The name of the tile type in error messages, as in map.md (`"Tile"`, `"Speedup"`, ...).
    const NAME: &'static str;
}

/// Implements [`TileKind`] and checks size and alignment at compile time.
macro_rules! tile_kind {
    ($($ty:ident = $size:literal),* $(,)?) => {$(
        impl TileKind for $ty {
            const NAME: &'static str = stringify!($ty);
        }
        const _: () = assert!(core::mem::size_of::<$ty>() == $size);
        const _: () = assert!(core::mem::align_of::<$ty>() == 1);
    )*};
}

tile_kind!(
    Tile = 4,
    Tele = 2,
    Speedup = 6,
    Switch = 4,
    Tune = 2,
    OldSpeedup = 4,
    OldSwitch2 = 2,
    OldSwitch3 = 3,
    LegacyTile = 2,
);

/// Views tile data as an array of tiles of type `T`, without copying (map.md, "Layers").
///
/// Fails with [`TileError::Length`] when `bytes.len()` is not a multiple of the tile size. The
/// number of tiles is not checked against the layer; compare it with [`grid_len`].
pub fn cast_tiles<T: TileKind>(bytes: &[u8]) -> Result<&[T], TileError> {
    let tile_size = core::mem::size_of::<T>();
    let length_error = || TileError::Length {
        kind: T::NAME,
        len: bytes.len(),
        tile_size,
    };
    // checked_rem: a zero-sized implementor gets an error, not a division by zero.
    match bytes.len().checked_rem(tile_size) {
        Some(0) => bytemuck::try_cast_slice(bytes).map_err(|_| length_error()),
        _ => Err(length_error()),
    }
}

/// The bytes of an array of tiles, without copying (map.md, "Layers").
pub fn tiles_as_bytes<T: TileKind>(tiles: &[T]) -> &[u8] {
    // A cast to bytes fails only for zero-sized types, whose bytes are indeed empty.
    bytemuck::try_cast_slice(tiles).unwrap_or(&[])
}

/// The number of tiles of a `width` x `height` layer (map.md, "Layers").
///
/// Fails with [`TileError::Dimensions`] unless both are at least 1 and the largest tile array of
/// that size (`width * height * 6` bytes) can be addressed.
pub fn grid_len(width: i32, height: i32) -> Result<usize, TileError> {
    let error = TileError::Dimensions { width, height };
    if width < 1 || height < 1 {
        return Err(error);
    }
    let w = usize::try_from(width).map_err(|_| error.clone())?;
    let h = usize::try_from(height).map_err(|_| error.clone())?;
    let count = w.checked_mul(h).ok_or_else(|| error.clone())?;
    match count.checked_mul(MAX_TILE_SIZE) {
        Some(_) => Ok(count),
        None => Err(error),
    }
}

/// Expands 0.7 skip-compressed tiles to the `count` tiles of a layer (map.md, "Layers").
///
/// Each entry with `skip = n` becomes `n + 1` copies of itself with `skip = 0` (id, flags and
/// reserved byte kept), as in Teeworlds' map loader. The entries must fill exactly `count` tiles:
/// [`TileError::SkipOverflow`] names the first entry that runs past the end,
/// [`TileError::SkipShort`] says how many tiles the entries make. Nothing is allocated for a
/// `count` that the entries cannot reach (more than 256 per entry); otherwise exactly `count`
/// tiles are.
#[doc(alias = "ExtractTiles")]
pub fn expand_skip(compressed: &[Tile], count: usize) -> Result<Vec<Tile>, TileError> {
    if count > compressed.len().saturating_mul(MAX_RUN) {
        // Every entry makes at most 256 tiles, so the total is below `count` and cannot overflow.
        let produced = compressed.iter().map(|t| usize::from(t.skip) + 1).sum();
        return Err(TileError::SkipShort { produced, count });
    }
    let mut tiles = Vec::with_capacity(count);
    // What is left of `count` after the entries so far; a run longer than that overflows.
    let mut left = count;
    let mut entry = 0;
    while let Some(tile) = compressed.get(entry) {
        if tile.skip == 0 {
            // A stretch of single tiles is its own expansion: copy it at once.
            let stretch = compressed[entry..]
                .iter()
                .take(left)
                .take_while(|t| t.skip == 0)
                .count();
            if stretch == 0 {
                return Err(TileError::SkipOverflow { entry, count });
            }
            tiles.extend_from_slice(&compressed[entry..entry + stretch]);
            left -= stretch;
            entry += stretch;
            continue;
        }
        let run = usize::from(tile.skip) + 1;
        left = match left.checked_sub(run) {
            Some(left) => left,
            None => return Err(TileError::SkipOverflow { entry, count }),
        };
        // A bulk fill per entry; `run` fits, as `left` just showed.
        tiles.resize(tiles.len() + run, Tile { skip: 0, ..*tile });
        entry += 1;
    }
    if left != 0 {
        return Err(TileError::SkipShort {
            produced: tiles.len(),
            count,
        });
    }
    Ok(tiles)
}

/// Compresses tiles with the 0.7 skip compression (map.md, "Layers").
///
/// Greedy over the linear array (runs cross row ends): a run of tiles with equal id, flags and
/// reserved byte becomes its first tile with `skip = run length - 1`, at most 256 tiles per
/// entry. The input's skip bytes are ignored (taken as 0). This is the Teeworlds editor's encoding,
/// except that it also keeps the reserved byte of every tile.
#[doc(alias = "PrepareForSave")]
pub fn compress_skip(tiles: &[Tile]) -> Vec<Tile> {
    let mut compressed: Vec<Tile> = Vec::new();
    for tile in tiles {
        match compressed.last_mut() {
            Some(last) if last.skip < u8::MAX && last.same_run(tile) => last.skip += 1,
            _ => compressed.push(Tile { skip: 0, ..*tile }),
        }
    }
    compressed
}

#[cfg(test)]
mod legacy_tests {
    use super::*;

    #[test]
    fn legacy_tile_upgrades() {
        let bytes = [
            5, // id
            2, // flags: y flip
        ];
        let tiles = cast_tiles::<LegacyTile>(&bytes).unwrap();
        assert_eq!(tiles, [LegacyTile { id: 5, flags: 2 }]);
        let tile = tiles[0].upgrade();
        assert_eq!((tile.id, tile.skip, tile.reserved), (5, 0, 0));
        assert!(tile.tile_flags().y_flip());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use binrw::{BinRead, BinWrite};
    use proptest::prelude::*;
    use std::fmt::Debug;
    use std::io::Cursor;

    /// Reads `bytes` as one `T` with binrw and with a cast, checks both give `expected`, and that
    /// binrw writes the same bytes back.
    fn check_layout<T>(bytes: &[u8], expected: T)
    where
        T: TileKind + Debug + PartialEq,
        T: for<'a> BinRead<Args<'a> = ()> + for<'a> BinWrite<Args<'a> = ()>,
    {
        assert_eq!(bytes.len(), core::mem::size_of::<T>());
        let read = T::read_le(&mut Cursor::new(bytes)).unwrap();
        assert_eq!(read, expected);
        let mut written = Cursor::new(Vec::new());
        read.write_le(&mut written).unwrap();
        assert_eq!(written.into_inner(), bytes);
        assert_eq!(cast_tiles::<T>(bytes).unwrap(), &[expected]);
        assert_eq!(tiles_as_bytes(&[expected]), bytes);
    }

    fn tile(id: u8, flags: u8, skip: u8) -> Tile {
        Tile {
            id,
            flags,
            skip,
            reserved: 0,
        }
    }

    #[test]
    fn tile_layout() {
        let bytes = [
            0x05, // id
            0x09, // flags: x_flip | rotate
            0x03, // skip
            0x00, // reserved
        ];
        let t = Tile {
            id: 5,
            flags: 9,
            skip: 3,
            reserved: 0,
        };
        check_layout(&bytes, t);
        let flags = t.tile_flags();
        assert!(flags.x_flip() && !flags.y_flip() && !flags.opaque() && flags.rotate());
        assert_eq!(flags.unknown(), 0);
    }

    #[test]
    fn tele_layout() {
        let bytes = [
            0x01, // number
            0x1a, // id: 26, tele in
        ];
        check_layout(&bytes, Tele { number: 1, id: 26 });
    }

    #[test]
    fn speedup_layout() {
        let bytes = [
            0x32, // force: 50
            0x0a, // max_speed: 10
            0x1c, // id: 28
            0x00, // reserved
            0xd3, 0xfe, // angle: -301 (0xfed3)
        ];
        let s = Speedup {
            force: 50,
            max_speed: 10,
            id: 28,
            reserved: 0,
            angle: [0xd3, 0xfe],
        };
        check_layout(&bytes, s);
        assert_eq!(s.angle(), -301);
        let mut t = s;
        t.set_angle(270);
        assert_eq!(t.angle, [0x0e, 0x01]);
        assert_eq!(t.angle(), 270);
    }

    #[test]
    fn switch_layout() {
        let bytes = [
            0x07, // number
            0xf0, // id: 240
            0x06, // flags: y_flip | opaque
            0x02, // delay
        ];
        let s = Switch {
            number: 7,
            id: 240,
            flags: 6,
            delay: 2,
        };
        check_layout(&bytes, s);
        let flags = s.tile_flags();
        assert!(!flags.x_flip() && flags.y_flip() && flags.opaque() && !flags.rotate());
    }

    #[test]
    fn tune_layout() {
        let bytes = [
            0x03, // number
            0x44, // id: 68
        ];
        check_layout(&bytes, Tune { number: 3, id: 68 });
    }

    #[test]
    fn old_speedup_layout_and_upgrade() {
        // From ddrace_Test_old_tile_layouts.map (research §3.2).
        let bytes = [
            0x05, // force
            0x00, // reserved (C++ padding)
            0x31, 0x01, // angle: 305
        ];
        let old = OldSpeedup {
            force: 5,
            reserved: 0,
            angle: [0x31, 0x01],
        };
        check_layout(&bytes, old);
        assert_eq!(old.angle(), 305);
        let new = OldSpeedup { reserved: 9, ..old }.upgrade();
        assert_eq!(
            new,
            Speedup {
                force: 5,
                max_speed: 0,
                id: OLD_SPEEDUP_TILE_ID,
                reserved: 0,
                angle: [0x31, 0x01],
            }
        );
        assert_eq!(new.angle(), 305);
        assert_eq!(new.id, 28);
    }

    #[test]
    fn old_switch2_layout_and_upgrade() {
        let bytes = [
            0x02, // number
            0xf0, // id: 240, door
        ];
        let old = OldSwitch2 { number: 2, id: 240 };
        check_layout(&bytes, old);
        assert_eq!(
            old.upgrade(),
            Switch {
                number: 2,
                id: 240,
                flags: 0,
                delay: 0,
            }
        );
    }

    #[test]
    fn old_switch3_layout_and_upgrade() {
        let bytes = [
            0x04, // number
            0xd3, // id: 211
            0x08, // flags: rotate
        ];
        let old = OldSwitch3 {
            number: 4,
            id: 211,
            flags: 8,
        };
        check_layout(&bytes, old);
        assert_eq!(
            old.upgrade(),
            Switch {
                number: 4,
                id: 211,
                flags: 8,
                delay: 0,
            }
        );
    }

    #[test]
    fn names_and_sizes() {
        assert_eq!(Tile::NAME, "Tile");
        assert_eq!(Tele::NAME, "Tele");
        assert_eq!(Speedup::NAME, "Speedup");
        assert_eq!(Switch::NAME, "Switch");
        assert_eq!(Tune::NAME, "Tune");
        assert_eq!(OldSpeedup::NAME, "OldSpeedup");
        assert_eq!(OldSwitch2::NAME, "OldSwitch2");
        assert_eq!(OldSwitch3::NAME, "OldSwitch3");
    }

    #[test]
    fn flags_round_trip_every_byte() {
        for byte in 0..=u8::MAX {
            let flags = TileFlags::from_byte(byte);
            assert_eq!(flags.to_byte(), byte);
            assert_eq!(flags.x_flip(), byte & 1 != 0);
            assert_eq!(flags.y_flip(), byte & 2 != 0);
            assert_eq!(flags.opaque(), byte & 4 != 0);
            assert_eq!(flags.rotate(), byte & 8 != 0);
            assert_eq!(flags.unknown(), byte >> 4);
            let mut t = Tile::default();
            t.set_tile_flags(flags);
            assert_eq!(t.flags, byte);
            assert_eq!(t.tile_flags(), flags);
            let mut s = Switch::default();
            s.set_tile_flags(flags);
            assert_eq!(s.flags, byte);
        }
        let built = TileFlags::new().with_x_flip(true).with_rotate(true);
        assert_eq!(built.to_byte(), 0b1001);
    }

    #[test]
    fn flag_names() {
        assert!(TileFlags::from_byte(0).names().is_empty());
        assert_eq!(TileFlags::from_byte(0b1001).names(), ["x_flip", "rotate"]);
        assert_eq!(TileFlags::from_byte(0b0110).names(), ["y_flip", "opaque"]);
        assert_eq!(
            TileFlags::from_byte(0xff).names(),
            ["x_flip", "y_flip", "opaque", "rotate", "unknown(0xf0)"]
        );
        assert_eq!(TileFlags::from_byte(0x20).names(), ["unknown(0x20)"]);
    }

    #[test]
    fn cast_checks_length() {
        let bytes = [0u8; 10];
        assert_eq!(cast_tiles::<Tele>(&bytes).unwrap().len(), 5);
        assert_eq!(cast_tiles::<Tune>(&bytes).unwrap().len(), 5);
        assert!(cast_tiles::<Tile>(&[]).unwrap().is_empty());
        let err = cast_tiles::<Tile>(&bytes).unwrap_err();
        assert_eq!(
            err,
            TileError::Length {
                kind: "Tile",
                len: 10,
                tile_size: 4
            }
        );
        assert_eq!(
            err.to_string(),
            "tile data of 10 bytes is not a whole number of 4-byte Tile tiles"
        );
        assert_eq!(
            cast_tiles::<Speedup>(&bytes).unwrap_err().to_string(),
            "tile data of 10 bytes is not a whole number of 6-byte Speedup tiles"
        );
        // Unaligned input: a cast of align-1 types never fails on alignment.
        let bytes = [0u8; 13];
        assert_eq!(cast_tiles::<Tile>(&bytes[1..]).unwrap().len(), 3);
        assert_eq!(cast_tiles::<Speedup>(&bytes[1..]).unwrap().len(), 2);
    }

    #[test]
    fn grid_len_checks_dimensions() {
        assert_eq!(grid_len(1, 1), Ok(1));
        assert_eq!(grid_len(110, 117), Ok(12870));
        let err = grid_len(0, 5).unwrap_err();
        assert_eq!(
            err,
            TileError::Dimensions {
                width: 0,
                height: 5
            }
        );
        assert_eq!(err.to_string(), "layer dimensions 0x5 are not positive");
        assert_eq!(
            grid_len(7, -1).unwrap_err().to_string(),
            "layer dimensions 7x-1 are not positive"
        );
        assert!(grid_len(i32::MIN, i32::MIN).is_err());
        // (2^31 - 1)^2 * 6 overflows even a 64-bit usize.
        assert_eq!(
            grid_len(i32::MAX, i32::MAX).unwrap_err().to_string(),
            "layer dimensions 2147483647x2147483647 are too large: their tiles would not fit in memory"
        );
    }

    #[test]
    fn compress_300_equal_tiles_into_two_entries() {
        let tiles = vec![tile(1, 0, 0); 300];
        let compressed = compress_skip(&tiles);
        assert_eq!(compressed, [tile(1, 0, 255), tile(1, 0, 43)]);
        assert_eq!(expand_skip(&compressed, 300).unwrap(), tiles);
    }

    #[test]
    fn compress_ignores_input_skip_and_splits_on_reserved() {
        let a = tile(1, 2, 0);
        let a_reserved = Tile { reserved: 1, ..a };
        let tiles = [Tile { skip: 7, ..a }, a, a_reserved, a];
        assert_eq!(
            compress_skip(&tiles),
            [
                tile(1, 2, 1),
                Tile {
                    skip: 0,
                    ..a_reserved
                },
                a
            ]
        );
        assert!(compress_skip(&[]).is_empty());
    }

    #[test]
    fn expand_runs() {
        let a = Tile {
            id: 3,
            flags: 1,
            skip: 2,
            reserved: 5,
        };
        let b = tile(4, 0, 0);
        let a0 = Tile { skip: 0, ..a };
        assert_eq!(expand_skip(&[a, b], 4).unwrap(), [a0, a0, a0, b]);
        assert_eq!(expand_skip(&[], 0).unwrap(), []);
    }

    #[test]
    fn expand_overflow() {
        let err = expand_skip(&[tile(1, 0, 2), tile(2, 0, 0)], 3).unwrap_err();
        assert_eq!(err, TileError::SkipOverflow { entry: 1, count: 3 });
        assert_eq!(
            err.to_string(),
            "skip entry 1 runs past the 3 tiles of the layer"
        );
        // Entries 0 to 4 make 10 tiles, entry 5 would make 3 more.
        let mut entries = vec![tile(0, 0, 1); 5];
        entries.push(tile(1, 0, 2));
        assert_eq!(
            expand_skip(&entries, 12).unwrap_err().to_string(),
            "skip entry 5 runs past the 12 tiles of the layer"
        );
        assert_eq!(expand_skip(&entries, 13).unwrap().len(), 13);
        // All tiles made, but an entry is left over.
        assert_eq!(
            expand_skip(&entries, 10),
            Err(TileError::SkipOverflow {
                entry: 5,
                count: 10
            })
        );
        assert_eq!(
            expand_skip(&[tile(0, 0, 0)], 0),
            Err(TileError::SkipOverflow { entry: 0, count: 0 })
        );
    }

    #[test]
    fn expand_short() {
        let entries = [tile(1, 0, 2); 3];
        let err = expand_skip(&entries, 12).unwrap_err();
        assert_eq!(
            err,
            TileError::SkipShort {
                produced: 9,
                count: 12
            }
        );
        assert_eq!(
            err.to_string(),
            "skip entries expand to 9 tiles, the layer has 12"
        );
        // Refused before allocating: 3 entries make at most 768 tiles.
        assert_eq!(
            expand_skip(&entries, usize::MAX),
            Err(TileError::SkipShort {
                produced: 9,
                count: usize::MAX
            })
        );
        assert_eq!(
            expand_skip(&[], 1),
            Err(TileError::SkipShort {
                produced: 0,
                count: 1
            })
        );
    }

    /// Tiles in runs of 1..600 equal tiles; ids and flags often from a tiny set, so that
    /// neighbouring runs are often equal too.
    fn runs_of_tiles() -> impl Strategy<Value = Vec<Tile>> {
        let byte = || prop_oneof![0u8..2, any::<u8>()];
        let tile = (byte(), byte(), byte()).prop_map(|(id, flags, reserved)| Tile {
            id,
            flags,
            skip: 0,
            reserved,
        });
        prop::collection::vec((tile, 1usize..600), 0..12).prop_map(|runs| {
            runs.into_iter()
                .flat_map(|(t, n)| std::iter::repeat_n(t, n))
                .collect()
        })
    }

    /// Tiles with arbitrary bytes in every field, including skip.
    fn any_tiles() -> impl Strategy<Value = Vec<Tile>> {
        prop::collection::vec(any::<[u8; 4]>(), 0..300).prop_map(|raw| {
            raw.into_iter()
                .map(|[id, flags, skip, reserved]| Tile {
                    id,
                    flags,
                    skip,
                    reserved,
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn skip_round_trip(tiles in runs_of_tiles()) {
            let compressed = compress_skip(&tiles);
            prop_assert_eq!(expand_skip(&compressed, tiles.len()), Ok(tiles.clone()));
            // skip <= 255 (at most 256 tiles per entry) holds by type; the runs cover the input.
            let covered: usize = compressed.iter().map(|t| usize::from(t.skip) + 1).sum();
            prop_assert_eq!(covered, tiles.len());
            for pair in compressed.windows(2) {
                prop_assert!(
                    !(pair[0].skip < u8::MAX && pair[0].same_run(&pair[1])),
                    "mergeable neighbours {:?}", pair
                );
            }
        }

        #[test]
        fn compress_ignores_skip(tiles in any_tiles()) {
            let zeroed: Vec<Tile> = tiles.iter().map(|t| Tile { skip: 0, ..*t }).collect();
            let compressed = compress_skip(&tiles);
            prop_assert_eq!(&compressed, &compress_skip(&zeroed));
            prop_assert_eq!(expand_skip(&compressed, zeroed.len()), Ok(zeroed));
        }

        #[test]
        fn expand_arbitrary_bytes(
            mut bytes in prop::collection::vec(any::<u8>(), 0..2048),
            count in prop_oneof![0usize..20_000, any::<usize>()],
        ) {
            bytes.truncate(bytes.len() / 4 * 4);
            let entries = cast_tiles::<Tile>(&bytes).unwrap();
            let total: usize = entries.iter().map(|t| usize::from(t.skip) + 1).sum();
            match expand_skip(entries, count) {
                Ok(tiles) => {
                    prop_assert_eq!(tiles.len(), count);
                    prop_assert_eq!(total, count);
                    prop_assert!(tiles.iter().all(|t| t.skip == 0));
                }
                Err(TileError::SkipShort { produced, count: c }) => {
                    prop_assert_eq!(c, count);
                    prop_assert_eq!(produced, total);
                    prop_assert!(total < count);
                }
                Err(TileError::SkipOverflow { entry, count: c }) => {
                    prop_assert_eq!(c, count);
                    prop_assert!(total > count);
                    let before: usize =
                        entries[..entry].iter().map(|t| usize::from(t.skip) + 1).sum();
                    prop_assert!(before <= count);
                    prop_assert!(before + usize::from(entries[entry].skip) + 1 > count);
                }
                Err(other) => prop_assert!(false, "unexpected error {other}"),
            }
        }

        #[test]
        fn cast_any_length(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            fn check<T: TileKind + Debug>(bytes: &[u8]) -> Result<(), TestCaseError> {
                let size = core::mem::size_of::<T>();
                match cast_tiles::<T>(bytes) {
                    Ok(tiles) => {
                        prop_assert_eq!(bytes.len() % size, 0);
                        prop_assert_eq!(tiles.len(), bytes.len() / size);
                        prop_assert_eq!(tiles_as_bytes(tiles), bytes);
                    }
                    Err(err) => {
                        prop_assert_ne!(bytes.len() % size, 0);
                        prop_assert_eq!(
                            err,
                            TileError::Length { kind: T::NAME, len: bytes.len(), tile_size: size }
                        );
                    }
                }
                Ok(())
            }
            check::<Tile>(&bytes)?;
            check::<Tele>(&bytes)?;
            check::<Speedup>(&bytes)?;
            check::<Switch>(&bytes)?;
            check::<Tune>(&bytes)?;
            check::<OldSpeedup>(&bytes)?;
            check::<OldSwitch2>(&bytes)?;
            check::<OldSwitch3>(&bytes)?;
        }
    }
}
