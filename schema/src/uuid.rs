//! UUID item types (docs/format-notes.md, "UUID item types"; DDNet
//! `src/engine/shared/uuid_manager.cpp` and `CItemEx` in `src/engine/shared/datafile.cpp`).
//!
//! Item types that DDNet added after 0.6 are named by a UUID instead of a number. In a datafile
//! such a type gets an internal type id from [`OFFSET_UUID_TYPE`] up (writers hand them out from
//! `0xFFFE` downward), and one UUID index item of type [`UUID_INDEX_TYPE`] whose id is that
//! internal type id holds the UUID as 4 ints.

pub use ::uuid::Uuid;

use binrw::binrw;
use binrw::helpers::until_eof;

use crate::packing::{be_bytes_of_ints, ints_from_be_bytes};
use twcodec_schema_derive::describe;

/// Type id of the UUID index items (DDNet `ITEMTYPE_EX`).
#[doc(alias = "ITEMTYPE_EX")]
pub const UUID_INDEX_TYPE: u16 = 0xFFFF;

/// Internal type ids above this one are UUID item types (DDNet `OFFSET_UUID_TYPE`).
pub const OFFSET_UUID_TYPE: u16 = 0x8000;

/// The namespace of every Teeworlds/DDNet UUID (DDNet `TEEWORLDS_NAMESPACE`).
pub const TEEWORLDS_NAMESPACE: Uuid = ::uuid::uuid!("e05ddaaa-c4e6-4cfb-b642-5d48e80c0029");

/// The UUID DDNet derives from a name: MD5 (version 3) of [`TEEWORLDS_NAMESPACE`] and the name
/// (DDNet `CalculateUuid`).
pub fn uuid_from_name(name: &str) -> Uuid {
    let mut hash = md5::Context::new();
    hash.consume(TEEWORLDS_NAMESPACE.as_bytes());
    hash.consume(name.as_bytes());
    ::uuid::Builder::from_md5_bytes(hash.finalize().0).into_uuid()
}

/// Names of the map item types DDNet registers (`src/game/mapitems_ex_types.h`) plus the group
/// extension seen in real maps (docs/format-notes.md, "UUID item types"): the UUID section of
/// the registry in [`crate::map`].
pub const KNOWN_ITEM_TYPE_NAMES: &[&str] = crate::map::MapItemKind::UUID_NAMES;

/// The name of a known item type UUID.
pub fn known_item_type_name(uuid: Uuid) -> Option<&'static str> {
    crate::map::MapItemKind::of_uuid(uuid)?.uuid_name()
}

/// A UUID index item (docs/format-notes.md, "UUID item types"; DDNet `CItemEx`): type
/// [`UUID_INDEX_TYPE`], id = the internal type id it names, 4 ints = the UUID.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CItemEx")]
pub struct UuidIndexItem {
    /// The UUID of the item type.
    #[br(map = uuid_from_ints)]
    #[bw(map = |uuid: &Uuid| uuid_to_ints(*uuid))]
    pub uuid: Uuid,
    /// Ints past the UUID, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

impl UuidIndexItem {
    /// The index item naming `uuid`.
    pub fn new(uuid: Uuid) -> UuidIndexItem {
        UuidIndexItem {
            uuid,
            unknown_tail: Vec::new(),
        }
    }

    /// Decodes a UUID index item from its ints, or `None` when it holds fewer than the 4 ints
    /// of a UUID.
    pub fn decode(ints: &[i32]) -> Option<UuidIndexItem> {
        crate::map::decode_ints(ints, ()).ok()
    }

    /// The item's ints.
    pub fn encode(&self) -> Vec<i32> {
        // Writing ints into a vector fails only when it cannot grow, which aborts first.
        crate::map::encode_ints(self, ()).unwrap_or_default()
    }
}

/// The UUID stored in the 4 ints of a UUID index item: byte `4*i+k` of the UUID is byte `k` of
/// int `i` read big-endian (docs/format-notes.md, "UUID item types").
pub fn uuid_from_ints(ints: [i32; 4]) -> Uuid {
    let mut bytes = [0u8; 16];
    for (slot, byte) in bytes.iter_mut().zip(be_bytes_of_ints(&ints)) {
        *slot = byte;
    }
    Uuid::from_bytes(bytes)
}

/// The 4 ints of a UUID index item for `uuid`; the inverse of [`uuid_from_ints`].
pub fn uuid_to_ints(uuid: Uuid) -> [i32; 4] {
    ints_from_be_bytes(uuid.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_give_the_uuids_found_in_real_maps() {
        // docs/format-notes.md, "UUID item types": the automapper UUID as found in every real
        // map that has one.
        assert_eq!(
            uuid_from_name("mapitemtype-automapper-config@ddnet.tw").to_string(),
            "3e1b2716-178c-3978-9bd9-b11ae0410dd8"
        );
        let uuid = uuid_from_name("mapitemtype-envpoints-bezier@ddnet.tw");
        assert_eq!(uuid.get_version_num(), 3);
        assert_eq!(
            known_item_type_name(uuid),
            Some("mapitemtype-envpoints-bezier@ddnet.tw")
        );
        assert_eq!(known_item_type_name(Uuid::nil()), None);
    }

    #[test]
    fn uuid_index_item() {
        let uuid = uuid_from_name("mapitemtype-automapper-config@ddnet.tw");
        let ints = uuid_to_ints(uuid);
        let item: UuidIndexItem = crate::map::decode_ints(&ints, ()).unwrap();
        assert_eq!(item.uuid, uuid);
        assert_eq!(UuidIndexItem::decode(&ints), Some(item.clone()));
        assert_eq!(UuidIndexItem::decode(&ints[..3]), None);
        assert_eq!(UuidIndexItem::new(uuid).encode(), ints);
        assert_eq!(crate::map::encode_ints(&item, ()).unwrap(), ints);
    }

    #[test]
    fn index_ints_are_big_endian_quarters() {
        let uuid = ::uuid::uuid!("3e1b2716-178c-3978-9bd9-b11ae0410dd8");
        let ints = uuid_to_ints(uuid);
        assert_eq!(ints[0], 0x3e1b2716);
        assert_eq!(ints[1], 0x178c3978);
        assert_eq!(ints[2] as u32, 0x9bd9b11a);
        assert_eq!(ints[3] as u32, 0xe0410dd8);
        assert_eq!(uuid_from_ints(ints), uuid);
    }
}
