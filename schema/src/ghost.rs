//! Ghost files, `.gho` (DDNet `src/engine/client/ghost.h`, `src/engine/client/ghost.cpp`; the
//! item types of `src/game/client/components/ghost.h`): a race recorded by the client, drawn as a
//! see-through tee on later tries.
//!
//! ```text
//! ghost:    header (101 bytes; 133 in version 6, which adds the map's SHA-256),
//!           then chunks until the end of the file
//! chunk:    type (u8), item count (u8), payload size (u16, big-endian, 1 to 6400),
//!           payload: Huffman-coded packed ints (the network's code), at most 6400 bytes
//!           decoded, holding `count` items of the chunk's type, each item after the first
//!           stored as its difference to the one before (int by int, wrapping)
//! ```
//!
//! Numbers in the header are big-endian; strings are NUL-terminated in fixed-size fields. The
//! file does not say how big an item is: the reader knows it by the type ([`ItemType::ints`]).
//! Versions 4 and 5 store the map's CRC-32 where version 6 has zeroes; version 4 also carries
//! the difference base from one chunk to the next when the type stays (DDNet's
//! `CGhostLoader::ReadChunk` resets it for every other version).

use binrw::binrw;

use crate::demo::FixedString;
use crate::map::common::I32String;
use crate::SchemaError;
use twcodec_schema_derive::describe;

/// The first 8 bytes of every ghost (DDNet `gs_aHeaderMarker`).
pub const MAGIC: [u8; 8] = *b"TWGHOST\0";

/// The versions DDNet's client reads (`CGhostLoader::ValidateHeader`: 4 to `gs_CurVersion`).
pub const VERSIONS: std::ops::RangeInclusive<u8> = 4..=6;

/// The version DDNet's recorder writes (`gs_CurVersion`), the first with the map's SHA-256.
pub const SHA256_VERSION: u8 = 6;

/// The only version whose difference base carries over from one chunk to the next.
pub const CARRY_VERSION: u8 = 4;

/// Most bytes one item holds (DDNet `MAX_ITEM_SIZE`).
pub const MAX_ITEM_SIZE: usize = 128;

/// Most items DDNet's recorder puts in one chunk (`NUM_ITEMS_PER_CHUNK`); the count is a byte,
/// so a reader sees at most 255.
pub const ITEMS_PER_CHUNK: usize = 50;

/// Most bytes a chunk's payload holds, stored and decoded (DDNet `MAX_CHUNK_SIZE`).
pub const MAX_CHUNK_SIZE: usize = MAX_ITEM_SIZE * ITEMS_PER_CHUNK;

/// The ghost header (DDNet `CGhostHeader`), 101 bytes, 133 in version 6.
#[describe]
#[binrw]
#[brw(big, magic = b"TWGHOST\0")]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[doc(alias = "CGhostHeader")]
pub struct GhostHeader {
    /// Ghost version, 4 to 6.
    #[br(assert(VERSIONS.contains(&version), SchemaError::UnsupportedGhostVersion(version)))]
    pub version: u8,
    /// The player's name (DDNet `MAX_NAME_LENGTH`, 16 bytes with the NUL).
    pub owner: FixedString<16>,
    /// Name of the map.
    pub map_name: FixedString<64>,
    /// CRC-32 of the map in versions 4 and 5; zeroes from version 6 on.
    pub map_crc: u32,
    /// How many character items the ghost holds, written when recording stops.
    pub num_ticks: i32,
    /// The race time in milliseconds, written when recording stops.
    pub time: i32,
    /// SHA-256 of the map, version 6.
    #[br(if(version >= SHA256_VERSION))]
    pub map_sha256: Option<[u8; 32]>,
}

impl GhostHeader {
    /// Size in bytes of a version 4 or 5 header, magic included.
    pub const SIZE_V5: usize = 101;
    /// Size in bytes of a version 6 header, magic included.
    pub const SIZE_V6: usize = 133;
    /// Byte offset of `version`, after the magic.
    pub const VERSION_OFFSET: usize = MAGIC.len();
    /// Byte offset of `owner`.
    pub const OWNER_OFFSET: usize = GhostHeader::VERSION_OFFSET + 1;
    /// Byte offset of `map_name`.
    pub const MAP_NAME_OFFSET: usize = GhostHeader::OWNER_OFFSET + 16;
    /// Byte offset of `map_crc`.
    pub const MAP_CRC_OFFSET: usize = GhostHeader::MAP_NAME_OFFSET + 64;
    /// Byte offset of `num_ticks`.
    pub const NUM_TICKS_OFFSET: usize = GhostHeader::MAP_CRC_OFFSET + 4;
    /// Byte offset of `time`.
    pub const TIME_OFFSET: usize = GhostHeader::NUM_TICKS_OFFSET + 4;
    /// Byte offset of `map_sha256` (version 6).
    pub const SHA256_OFFSET: usize = GhostHeader::TIME_OFFSET + 4;

    /// Size in bytes of the header of `version`.
    pub fn size_of(version: u8) -> usize {
        if version >= SHA256_VERSION {
            GhostHeader::SIZE_V6
        } else {
            GhostHeader::SIZE_V5
        }
    }

    /// The string fields: name, byte offset, and whether the field holds its NUL.
    pub fn strings(&self) -> [(&'static str, usize, bool); 2] {
        [
            (
                "owner",
                GhostHeader::OWNER_OFFSET,
                self.owner.is_terminated(),
            ),
            (
                "map_name",
                GhostHeader::MAP_NAME_OFFSET,
                self.map_name.is_terminated(),
            ),
        ]
    }
}

/// The magic and the version, the first 9 bytes of every ghost: what a reader looks at before
/// it knows how long the header is.
#[describe]
#[binrw]
#[brw(big, magic = b"TWGHOST\0")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GhostVersion {
    /// Ghost version, as stored (any value: [`GhostHeader`] refuses those outside 4 to 6).
    pub version: u8,
}

/// A chunk header (DDNet `CGhostRecorder::FlushChunk`, `CGhostLoader::ReadChunk`), 4 bytes.
#[describe]
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ChunkHeader {
    /// The type of every item in the chunk ([`ItemType`]).
    pub item_type: u8,
    /// How many items the chunk holds (DDNet's recorder: 1 to 50).
    pub num_items: u8,
    /// Bytes of the payload after this header; DDNet reads 1 to 6400.
    pub size: u16,
}

impl ChunkHeader {
    /// Size in bytes.
    pub const SIZE: usize = 4;
}

/// The type of a chunk's items (DDNet `GHOSTDATA_TYPE_*`). Other values are kept; DDNet's
/// client skips them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ItemType(pub u8);

impl ItemType {
    /// 0: the tee's skin and colours ([`GhostSkin`]).
    pub const SKIN: ItemType = ItemType(0);
    /// 1: a character without its tick ([`GhostCharacter`] without `tick`), older ghosts.
    pub const CHARACTER_NO_TICK: ItemType = ItemType(1);
    /// 2: a character with its tick ([`GhostCharacter`]).
    pub const CHARACTER: ItemType = ItemType(2);
    /// 3: the tick the race started at, one int.
    pub const START_TICK: ItemType = ItemType(3);

    /// Its name (`skin`, `character_no_tick`, `character`, `start_tick`), `None` when unknown.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            ItemType::SKIN => "skin",
            ItemType::CHARACTER_NO_TICK => "character_no_tick",
            ItemType::CHARACTER => "character",
            ItemType::START_TICK => "start_tick",
            _ => return None,
        })
    }

    /// The ints of one item of this type, `None` when unknown.
    pub fn ints(self) -> Option<usize> {
        Some(match self {
            ItemType::SKIN => GhostSkin::INTS,
            ItemType::CHARACTER_NO_TICK => GhostCharacter::INTS_NO_TICK,
            ItemType::CHARACTER => GhostCharacter::INTS,
            ItemType::START_TICK => 1,
            _ => return None,
        })
    }

    /// Whether its items are characters, with or without tick.
    pub fn is_character(self) -> bool {
        self == ItemType::CHARACTER || self == ItemType::CHARACTER_NO_TICK
    }
}

/// A skin item, type 0 (DDNet `CGhostSkin`), 9 ints.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[doc(alias = "CGhostSkin")]
pub struct GhostSkin {
    /// The skin's name, at most 23 bytes (DDNet `StrToInts`).
    pub skin: I32String<6>,
    /// 1 when the colours below apply.
    pub use_custom_color: i32,
    /// Body colour, HSL packed in an int.
    pub color_body: i32,
    /// Feet colour, HSL packed in an int.
    pub color_feet: i32,
}

impl GhostSkin {
    /// Ints of one item.
    pub const INTS: usize = 9;
}

/// A character item (DDNet `CGhostCharacter`, type 2, 12 ints; `CGhostCharacter_NoTick`, type
/// 1, the first 11): where the tee was on one tick. It is not the snapshot's character object:
/// DDNet copies these fields out of `CNetObj_Character` (`CGhost::GetGhostCharacter`) in its own
/// order.
#[describe]
#[binrw]
#[brw(little)]
#[br(import(with_tick: bool))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[doc(alias = "CGhostCharacter")]
pub struct GhostCharacter {
    /// Position, in world units (32 to a tile).
    pub x: i32,
    /// Position, in world units, growing downward.
    pub y: i32,
    /// Velocity, in 1/256 world units per tick.
    pub vel_x: i32,
    /// Velocity, in 1/256 world units per tick; DDNet's client always stores 0.
    pub vel_y: i32,
    /// Aim direction, in 1/256 radians.
    pub angle: i32,
    /// Walking direction: -1 left, 0 none, 1 right.
    pub direction: i32,
    /// The weapon held (DDNet stores the ninja while the tee is frozen).
    pub weapon: i32,
    /// What the hook is doing (`HOOK_*`).
    pub hook_state: i32,
    /// Hook position, in world units.
    pub hook_x: i32,
    /// Hook position, in world units.
    pub hook_y: i32,
    /// The tick of the last attack.
    pub attack_tick: i32,
    /// The server tick of this state; type 2 only.
    #[br(if(with_tick))]
    pub tick: Option<i32>,
}

impl GhostCharacter {
    /// Ints of a type 2 item.
    pub const INTS: usize = 12;
    /// Ints of a type 1 item.
    pub const INTS_NO_TICK: usize = 11;

    /// The character of `ints`: 12 ints with the tick, 11 without; `None` for other lengths.
    pub fn from_ints(ints: &[i32]) -> Option<GhostCharacter> {
        let &[x, y, vel_x, vel_y, angle, direction, weapon, hook_state, hook_x, hook_y, attack_tick, ref rest @ ..] =
            ints
        else {
            return None;
        };
        let tick = match rest {
            [] => None,
            [tick] => Some(*tick),
            _ => return None,
        };
        Some(GhostCharacter {
            x,
            y,
            vel_x,
            vel_y,
            angle,
            direction,
            weapon,
            hook_state,
            hook_x,
            hook_y,
            attack_tick,
            tick,
        })
    }

    /// Its ints: 12 with the tick, 11 without.
    pub fn to_ints(&self) -> Vec<i32> {
        let mut ints = vec![
            self.x,
            self.y,
            self.vel_x,
            self.vel_y,
            self.angle,
            self.direction,
            self.weapon,
            self.hook_state,
            self.hook_x,
            self.hook_y,
            self.attack_tick,
        ];
        ints.extend(self.tick);
        ints
    }
}

impl GhostSkin {
    /// The skin of 9 ints; `None` for another length.
    pub fn from_ints(ints: &[i32]) -> Option<GhostSkin> {
        let &[a, b, c, d, e, f, use_custom_color, color_body, color_feet] = ints else {
            return None;
        };
        Some(GhostSkin {
            skin: I32String {
                ints: [a, b, c, d, e, f],
            },
            use_custom_color,
            color_body,
            color_feet,
        })
    }

    /// Its 9 ints.
    pub fn to_ints(&self) -> Vec<i32> {
        let mut ints = self.skin.ints.to_vec();
        ints.extend([self.use_custom_color, self.color_body, self.color_feet]);
        ints
    }

    /// A skin named `name` (DDNet `StrToInts`; at most 23 bytes), not custom-coloured.
    pub fn with_name(name: &str) -> GhostSkin {
        GhostSkin {
            skin: I32String::new(name.as_bytes()),
            ..GhostSkin::default()
        }
    }

    /// The skin's name, invalid UTF-8 replaced.
    pub fn name(&self) -> String {
        self.skin.to_string_lossy()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use binrw::io::Cursor;
    use binrw::{BinRead, BinWrite};

    fn header_bytes(version: u8) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.push(version); // version
        let mut owner = [0u8; 16];
        owner[..3].copy_from_slice(b"tee"); // owner
        bytes.extend(owner);
        let mut map = [0u8; 64];
        map[..8].copy_from_slice(b"ghostmap"); // map_name
        bytes.extend(map);
        bytes.extend(0xDEAD_BEEFu32.to_be_bytes()); // map_crc
        bytes.extend(100i32.to_be_bytes()); // num_ticks
        bytes.extend(2000i32.to_be_bytes()); // time
        if version >= 6 {
            bytes.extend([7u8; 32]); // map_sha256
        }
        bytes
    }

    #[test]
    fn header_reads_every_field_and_writes_the_same_bytes() {
        for version in VERSIONS {
            let bytes = header_bytes(version);
            assert_eq!(bytes.len(), GhostHeader::size_of(version));
            let header = GhostHeader::read(&mut Cursor::new(&bytes)).unwrap();
            assert_eq!(header.version, version);
            assert_eq!(header.owner.to_string_lossy(), "tee");
            assert_eq!(header.map_name.to_string_lossy(), "ghostmap");
            assert_eq!(header.map_crc, 0xDEAD_BEEF);
            assert_eq!((header.num_ticks, header.time), (100, 2000));
            assert_eq!(header.map_sha256, (version >= 6).then_some([7; 32]));
            let mut out = Cursor::new(Vec::new());
            header.write(&mut out).unwrap();
            assert_eq!(out.into_inner(), bytes);
            assert_eq!(
                bytes[GhostHeader::NUM_TICKS_OFFSET..][..4],
                100i32.to_be_bytes()
            );
            assert_eq!(
                bytes[GhostHeader::TIME_OFFSET..][..4],
                2000i32.to_be_bytes()
            );
        }
        let error = GhostHeader::read(&mut Cursor::new(&header_bytes(3))).unwrap_err();
        assert!(error.to_string().contains("unsupported ghost version 3"));
    }

    #[test]
    fn items_and_chunk_headers() {
        let bytes = [2u8, 50, 0x01, 0x02]; // type, count, size (big-endian)
        let header = ChunkHeader::read(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!(
            header,
            ChunkHeader {
                item_type: 2,
                num_items: 50,
                size: 0x102
            }
        );
        let ints: Vec<i32> = (1..=12).collect();
        let bytes: Vec<u8> = ints.iter().flat_map(|i| i.to_le_bytes()).collect();
        let with = GhostCharacter::read_args(&mut Cursor::new(&bytes), (true,)).unwrap();
        assert_eq!(with, GhostCharacter::from_ints(&ints).unwrap());
        assert_eq!(with.to_ints(), ints);
        let without = GhostCharacter::read_args(&mut Cursor::new(&bytes), (false,)).unwrap();
        assert_eq!(without.tick, None);
        assert_eq!(without.to_ints(), ints[..11]);
        let skin = GhostSkin::with_name("santa_limekitty");
        assert_eq!(skin.name(), "santa_limekitty");
        assert_eq!(GhostSkin::from_ints(&skin.to_ints()), Some(skin));
        assert_eq!(ItemType(2).ints(), Some(12));
        assert_eq!(ItemType(9).name(), None);
    }
}
