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
//! Int arrays are read and written in bulk (binrw's integer fast path), never int by int.

use binrw::binrw;
use serde::Serialize;

use crate::error::to_i32;
use crate::reference::describe;
use crate::SchemaError;

/// Type and id of a snapshot item: `type_id << 16 | id` (snapshot.md, "Item key").
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize)]
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
}

/// A snapshot as stored: header, item offsets, and the items as ints (snapshot.md,
/// "Snapshots"). Item `i` runs from `offsets[i]` to the next offset (or `data_size`), in bytes
/// from the start of `items`: its key, then its data.
///
/// The caller checks `num_items` and `data_size` against the input before reading.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SnapshotLayout {
    /// Bytes of `items`.
    #[bw(try_calc = to_i32("data_size", items.len() * 4))]
    pub data_size: i32,
    /// Number of items.
    #[bw(try_calc = to_i32("num_items", offsets.len()))]
    pub num_items: i32,
    /// Byte offset of each item in `items`.
    #[br(count = num_items)]
    pub offsets: Vec<i32>,
    /// Every item: key, then data.
    #[br(count = data_size / 4)]
    pub items: Vec<i32>,
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
}

/// An item delta (snapshot.md, "Item deltas"): the new data of an item the old snapshot lacks,
/// or the wrapping difference to the old data. `_size` is on the wire only for types without a
/// pre-agreed size in `sizes`.
#[describe]
#[binrw]
#[brw(little)]
#[br(import { sizes: SizeTable })]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemDelta {
    /// The item's type id (0..=0x7FFF).
    pub type_id: i32,
    /// The item's id (0..=0xFFFF).
    pub id: i32,
    /// Number of ints, when the type has no pre-agreed size.
    #[br(if(sizes.size_of(type_id).is_none()))]
    #[br(assert(size.is_none_or(|s| s >= 0), negative("_size", size)))]
    pub size: Option<i32>,
    /// New data, or differences to the old data.
    #[br(count = size.map_or_else(|| sizes.size_of(type_id).unwrap_or(0), |s| s as usize))]
    pub data: Vec<i32>,
}

/// A whole snapshot delta as stored (snapshot.md, "Snapshot deltas"; DDNet
/// `CSnapshotDelta::CData`): the header, the removed keys, then the item deltas, whose layout
/// depends on the pre-agreed sizes of the protocol.
///
/// The caller checks the counts against the input before reading.
#[describe]
#[binrw]
#[brw(little)]
#[br(import { sizes: SizeTable })]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SnapshotDeltaLayout {
    /// Number of removed keys.
    #[bw(try_calc = to_i32("num_removed_items", removed_keys.len()))]
    #[br(assert(num_removed_items >= 0, negative("num_removed_items", Some(num_removed_items))))]
    pub num_removed_items: i32,
    /// Number of item deltas.
    #[bw(try_calc = to_i32("num_item_deltas", item_deltas.len()))]
    #[br(assert(num_item_deltas >= 0, negative("num_item_deltas", Some(num_item_deltas))))]
    pub num_item_deltas: i32,
    /// Zero; writers write 0, readers ignore it (kept so that writing is lossless).
    pub zero: i32,
    /// Keys of the items of the old snapshot that the new one lacks.
    #[br(count = num_removed_items)]
    pub removed_keys: Vec<SnapKey>,
    /// New items and changed items.
    #[br(count = num_item_deltas, args { inner: binrw::args! { sizes } })]
    pub item_deltas: Vec<ItemDelta>,
}

/// The error of a negative count or size.
fn negative(what: &'static str, value: Option<i32>) -> SchemaError {
    SchemaError::Negative {
        what,
        value: value.unwrap_or(-1),
    }
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

    /// Teeworlds 0.6 and DDNet: types 1 to 20.
    pub const fn ddnet_06() -> SizeTable {
        SizeTable::from_list(&[
            10, 6, 5, 4, 3, 8, 4, 15, 22, 5, 17, 3, 2, 2, 2, 2, 3, 3, 3, 3,
        ])
    }

    /// Teeworlds 0.7: types 1 to 22 (`event_damage`, type 22, has 7 ints: docs/format-notes.md,
    /// "Snapshots").
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

/// Names of the 0.6/DDNet snapshot types 1 to 20 (snapshot.md, appendix; DDNet
/// `datasrc/network.py`).
const NAMES_06: [&str; 20] = [
    "obj_player_input",
    "obj_projectile",
    "obj_laser",
    "obj_pickup",
    "obj_flag",
    "obj_game_info",
    "obj_game_data",
    "obj_character_core",
    "obj_character",
    "obj_player_info",
    "obj_client_info",
    "obj_spectator_info",
    "event_common",
    "event_explosion",
    "event_spawn",
    "event_hammerhit",
    "event_death",
    "event_sound_global",
    "event_sound_world",
    "event_damage_indicator",
];

/// Names of the Teeworlds 0.7 snapshot types 1 to 22 (snapshot.md, appendix; Teeworlds 0.7
/// `datasrc/network.py`). Types 13 to 15 (`De_ClientInfo`, `De_GameInfo`, `De_TuneParams`) are
/// added by clients to the snapshots they record in demos; servers never send them (the
/// document calls them `obj_client_info`, `obj_game_info`, `obj_tune_params`).
const NAMES_07: [&str; 22] = [
    "obj_player_input",
    "obj_projectile",
    "obj_laser",
    "obj_pickup",
    "obj_flag",
    "obj_game_data",
    "obj_game_data_team",
    "obj_game_data_flag",
    "obj_character_core",
    "obj_character",
    "obj_player_info",
    "obj_spectator_info",
    "obj_de_client_info",
    "obj_de_game_info",
    "obj_de_tune_params",
    "event_common",
    "event_explosion",
    "event_spawn",
    "event_hammerhit",
    "event_death",
    "event_sound_world",
    "event_damage",
];

/// The name of a 0.6/DDNet snapshot type.
pub fn type_name_06(type_id: u16) -> Option<&'static str> {
    NAMES_06.get(usize::from(type_id).checked_sub(1)?).copied()
}

/// The name of a Teeworlds 0.7 snapshot type.
pub fn type_name_07(type_id: u16) -> Option<&'static str> {
    NAMES_07.get(usize::from(type_id).checked_sub(1)?).copied()
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
/// and `NetEventEx`); their UUIDs are [`crate::uuid::uuid_from_name`] of the name.
pub const KNOWN_EXTENDED_TYPE_NAMES: &[&str] = &[
    "my-own-object@heinrich5991.de",
    "character@netobj.ddnet.tw",
    "player@netobj.ddnet.tw",
    "gameinfo@netobj.ddnet.tw",
    "projectile@netobj.ddnet.tw",
    "laser@netobj.ddnet.tw",
    "ddnet-projectile@netobj.ddnet.tw",
    "pickup@netobj.ddnet.tw",
    "birthday@netevent.ddnet.org",
    "finish@netevent.ddnet.org",
    "my-own-event@heinrich5991.de",
    "spec-char@netobj.ddnet.tw",
    "switch-state@netobj.ddnet.tw",
    "entity-ex@netobj.ddnet.tw",
    "map-sound-world@netevent.ddnet.org",
];

/// The name of a known extended snapshot type.
pub fn known_extended_type_name(uuid: crate::uuid::Uuid) -> Option<&'static str> {
    KNOWN_EXTENDED_TYPE_NAMES
        .iter()
        .copied()
        .find(|name| crate::uuid::uuid_from_name(name) == uuid)
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
    fn delta_header_and_item_deltas_read_and_write() {
        let header: DeltaHeader = decode_ints(&[1, 2, 0], ()).unwrap();
        assert_eq!((header.num_removed_items, header.num_item_deltas), (1, 2));

        let sizes = SizeTable::ddnet_06();
        // Type 4 (pickup) has a pre-agreed size of 4: no _size on the wire.
        let known = [
            4,  // type id
            7,  // id
            1,  // data delta
            -1, // data delta
            0,  // data delta
            5,  // data delta
        ];
        let delta: ItemDelta = decode_ints::<ItemDelta>(&known, binrw::args! { sizes }).unwrap();
        assert_eq!((delta.type_id, delta.id, delta.size), (4, 7, None));
        assert_eq!(delta.data, [1, -1, 0, 5]);
        assert_eq!(encode_ints(&delta, ()).unwrap(), known);

        // Type 30 has none: _size is there.
        let unknown = [
            30, // type id
            1,  // id
            2,  // _size
            9,  // data
            8,  // data
        ];
        let delta: ItemDelta = decode_ints::<ItemDelta>(&unknown, binrw::args! { sizes }).unwrap();
        assert_eq!((delta.size, delta.data.as_slice()), (Some(2), &[9, 8][..]));
        assert_eq!(encode_ints(&delta, ()).unwrap(), unknown);

        let negative = [30, 1, -2];
        assert!(decode_ints::<ItemDelta>(&negative, binrw::args! { sizes }).is_err());
    }

    #[test]
    fn whole_delta_reads_and_writes() {
        let ints = [
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
        let sizes = SizeTable::ddnet_06();
        let delta = decode_ints::<SnapshotDeltaLayout>(&ints, binrw::args! { sizes }).unwrap();
        assert_eq!(delta.zero, 0);
        assert_eq!(delta.removed_keys, [SnapKey::new(2, 5)]);
        assert_eq!(delta.item_deltas.len(), 2);
        assert_eq!(delta.item_deltas[0].data, [0, 0, 3, 0]);
        assert_eq!(delta.item_deltas[1].size, Some(1));
        assert_eq!(encode_ints(&delta, ()).unwrap(), ints);

        // Read with no pre-agreed sizes, the same ints mean something else: the first item
        // delta's size is its first int.
        let none = SizeTable::none();
        let other =
            decode_ints::<SnapshotDeltaLayout>(&ints, binrw::args! { sizes: none }).unwrap();
        assert_eq!(other.item_deltas[0].size, Some(0));

        let negative = [-1, 0, 0];
        let error = decode_ints::<SnapshotDeltaLayout>(&negative, binrw::args! { sizes });
        assert!(error
            .unwrap_err()
            .to_string()
            .contains("num_removed_items -1 is negative"));
    }

    #[test]
    fn names() {
        assert_eq!(type_name_06(9), Some("obj_character"));
        assert_eq!(type_name_06(20), Some("event_damage_indicator"));
        assert_eq!(type_name_06(0), None);
        assert_eq!(type_name_06(21), None);
        assert_eq!(type_name_07(22), Some("event_damage"));
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
