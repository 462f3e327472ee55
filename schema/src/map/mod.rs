//! Map items (map.md; docs/format-notes.md, "Layers and groups" to "Strings (I32String)"). Each
//! item type is a binrw struct read from and written to the item's ints ([`decode_ints`],
//! [`encode_ints`]); [`MapItem`] picks the struct for an item.
//!
//! Every item keeps what it does not understand: an extension a version appended is read when the
//! version defines it and the item holds it (else `None`, its ints left for the tail), and ints
//! past what a version defines land in `unknown_tail`. Writing an item therefore gives back the
//! ints it was read from.
//!
//! | map.md section | module |
//! |---|---|
//! | Terminology: Point, Color, I32String, CString | [`common`] (re-exported here) |
//! | Version, Info | [`info`] |
//! | Images | [`image`] |
//! | Envelopes, Envelope Points | [`envelope`] |
//! | Groups | [`group`] |
//! | Layers: header, tilemap, quads, sounds | [`layer`] |
//! | Layers: tile types, 0.7 compression | [`tile`] |
//! | Quad | [`quad`] |
//! | Sounds, SoundSource, SoundShape | [`sound`] |
//! | Auto Mappers (DDNet UUID item) | [`automapper`] |
//! | (not in map.md) Teeworlds 0.3 items, in maps without a version item | [`legacy`] |

pub mod automapper;
pub mod common;
pub mod envelope;
pub mod group;
pub mod image;
pub mod info;
pub mod layer;
pub mod legacy;
pub mod quad;
pub mod sound;
pub mod tile;

use binrw::BinResult;

pub use common::{
    cast_ints, cstring, cstring_data, decode_ints, encode_ints, ints_as_le_bytes, settings,
    settings_count, settings_data, Color, I32String, Point,
};

use crate::uuid::{Uuid, UuidIndexItem, UUID_INDEX_TYPE};
use automapper::{AutomapperItem, TestItem};
use envelope::{EnvPointsBezierItem, EnvPointsItem, EnvelopeItem};
use group::{GroupExItem, GroupItem};
use image::ImageItem;
use info::{InfoItem, VersionItem};
use layer::LayerItem;
use legacy::{LegacyCollision, LegacyEntity, LegacyImage, LegacyTheme, LegacyTilemap};
use sound::SoundItem;

/// What decoding an item needs to know about the rest of the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DecodeContext {
    /// Some envelope has version 3, so envelope points have 22 ints (DDNet's rule).
    pub bezier_points: bool,
}

// The registry of map item types: one line per type, in three sections.
//
// - `numbered`: `Variant(Type) = type id, "name";`
// - `uuid`: `Variant(Type) = "name the UUID is derived from", "name";`
// - `legacy` (Teeworlds 0.3 maps, without a version item): `Variant(Type) = type id pattern,
//   "name";`
//
// A line may end in `, args |context| expression` for a type whose binrw arguments come from the
// `DecodeContext`, and may carry `#[cfg(...)]`. Everything else follows from the line: the kind,
// the item variant, decoding and encoding, the type id, UUID and name lookups, and so the `info`,
// `items --decode` and `dump` renderings and the census (docs/extending.md). `registry!` is in
// schema/src/registry.rs.
registry! {
    /// The kinds of map item: the numbered types of map.md's "Item Type Overview", DDNet's
    /// UUID item types (docs/format-notes.md, "UUID item types") and the items of
    /// Teeworlds 0.3 maps.
    kind MapItemKind {
        /// Anything else (Ninslash's type 9, pre-0.4 types, unknown UUIDs): kept as ints.
        Unknown,
    }
    /// A decoded map item.
    value MapItem, serde(tag = "kind", rename_all = "snake_case") {
        /// An item of an unknown type: its ints.
        Unknown {
            /// The ints as stored.
            ints: Vec<i32>,
        },
    }
    methods {
        decode:
            /// Decodes an item of kind `kind` from its ints.
            pub fn decode(kind: MapItemKind, ints: &[i32], context: DecodeContext)
                -> BinResult<MapItem>
            {
                |args| decode_ints(ints, args),
                _ => MapItem::Unknown { ints: ints.to_vec() },
            }
        encode:
            /// The item's ints.
            pub fn encode(&self) -> BinResult<Vec<i32>> {
                |item| encode_ints(item, ()),
                MapItem::Unknown { ints } => Ok(ints.clone()),
            }
        name:
            /// A short lower-case name (`layer`, `uuid index`, `automapper`, ...).
            pub const fn name(self) -> &'static str;
        uuid:
            /// The name a UUID kind's UUID is derived from.
            pub const fn uuid_name(self) -> Option<&'static str>;
        id:
            /// The type id of a numbered kind.
            pub const fn type_id(self) -> Option<u16>;
    }
    /// The numbered kinds, in type id order.
    numbered: numbers => NUMBERED {
        /// 0: the map version item.
        Version(VersionItem) = 0, "version";
        /// 1: author, version, credits, license, settings.
        Info(InfoItem) = 1, "info";
        /// 2: an image, external or embedded.
        Image(ImageItem) = 2, "image";
        /// 3: an envelope.
        Envelope(EnvelopeItem) = 3, "envelope";
        /// 4: a group of layers.
        Group(GroupItem) = 4, "group";
        /// 5: a layer.
        Layer(LayerItem) = 5, "layer";
        /// 6: the envelope points of all envelopes.
        EnvPoints(EnvPointsItem) = 6, "envpoints",
            args |context| binrw::args! { bezier: context.bezier_points };
        /// 7: a sound (DDNet).
        Sound(SoundItem) = 7, "sound";
        /// 0xFFFF: a UUID index item (DDNet `ITEMTYPE_EX`).
        UuidIndex(UuidIndexItem) = UUID_INDEX_TYPE, "uuid index";
    }
    /// The kinds named by a UUID.
    uuid: uuids => WITH_UUID, names UUID_NAMES {
        /// UUID `mapitemtype-automapper-config@ddnet.tw`.
        Automapper(AutomapperItem) = "mapitemtype-automapper-config@ddnet.tw", "automapper";
        /// UUID `mapitemtype-group@ddnet.tw`: parallax zoom per group.
        GroupEx(GroupExItem) = "mapitemtype-group@ddnet.tw", "group ex";
        /// UUID `mapitemtype-envpoints-bezier@ddnet.tw`: bezier tangents per point.
        EnvPointsBezier(EnvPointsBezierItem) = "mapitemtype-envpoints-bezier@ddnet.tw",
            "envpoints bezier";
        /// UUID `mapitemtype-test@ddnet.tw`.
        Test(TestItem) = "mapitemtype-test@ddnet.tw", "test";
        /// An item type that only this crate's tests know (`tests::ExampleItem`): the proof
        /// that a type is its struct plus this one line (docs/extending.md).
        #[cfg(test)]
        Example(tests::ExampleItem) = "example@twcodec.test", "example";
    }
    /// The kinds of Teeworlds 0.3 maps.
    legacy: patterns => LEGACY,
        /// The kind of an item of type `type_id` in a Teeworlds 0.3 map (one without a
        /// version item).
        pub fn of_legacy(type_id: u16) -> MapItemKind
    {
        /// Teeworlds 0.3, types 1 to 6: an entity.
        LegacyEntity(LegacyEntity) = 1..=6, "0.3 entity";
        /// Teeworlds 0.3, type `0x8001`: an image.
        LegacyImage(LegacyImage) = 0x8001, "0.3 image";
        /// Teeworlds 0.3, type `0x8002`: a tilemap.
        LegacyTilemap(LegacyTilemap) = 0x8002, "0.3 tilemap";
        /// Teeworlds 0.3, type `0x8003`: the collision map.
        LegacyCollision(LegacyCollision) = 0x8003, "0.3 collision";
        /// Teeworlds 0.3, type `0x8fff`: the theme.
        LegacyTheme(LegacyTheme) = 0x8fff, "0.3 theme";
    }
}

impl MapItemKind {
    /// The kind of an item of type `type_id`, whose UUID is `uuid` when a UUID index item names
    /// one.
    pub fn of(type_id: u16, uuid: Option<Uuid>) -> MapItemKind {
        let kinds = match uuid {
            Some(_) => MapItemKind::WITH_UUID,
            None => MapItemKind::NUMBERED,
        };
        kinds
            .iter()
            .copied()
            .find(|kind| match uuid {
                Some(uuid) => kind.uuid() == Some(uuid),
                None => kind.type_id() == Some(type_id),
            })
            .unwrap_or(MapItemKind::Unknown)
    }

    /// The kind named by a UUID, if this crate knows it.
    pub fn of_uuid(uuid: Uuid) -> Option<MapItemKind> {
        (MapItemKind::WITH_UUID.iter().copied()).find(|kind| kind.uuid() == Some(uuid))
    }
}

#[cfg(test)]
mod tests {
    use binrw::binrw;

    use twcodec_schema_derive::describe;

    use super::*;
    use crate::uuid::uuid_from_name;

    /// An item type only these tests know, registered by its line in the registry: with
    /// its struct, the two places a new UUID item type takes (docs/extending.md).
    #[describe]
    #[binrw]
    #[brw(little)]
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct ExampleItem {
        /// 1.
        pub version: i32,
        /// Version 2: a count.
        #[br(parse_with = common::when(version >= 2))]
        pub count: Option<i32>,
        /// Ints past what this item defines, kept so that writing is lossless.
        #[br(parse_with = binrw::helpers::until_eof)]
        #[cfg_attr(
            feature = "serde",
            serde(default, skip_serializing_if = "Vec::is_empty")
        )]
        pub unknown_tail: Vec<i32>,
    }

    #[test]
    fn a_new_item_type_is_its_struct_and_one_registry_line() {
        let uuid = uuid_from_name("example@twcodec.test");
        let kind = MapItemKind::of(0xFFF0, Some(uuid));
        assert_eq!(kind, MapItemKind::Example);
        assert_eq!(MapItemKind::of_uuid(uuid), Some(kind));
        assert_eq!(kind.name(), "example");
        assert_eq!(kind.type_id(), None);
        assert_eq!(
            crate::uuid::known_item_type_name(uuid),
            Some("example@twcodec.test")
        );
        assert!(MapItemKind::WITH_UUID.contains(&kind));

        let ints = [2, 7, 99];
        let item = MapItem::decode(kind, &ints, DecodeContext::default()).unwrap();
        assert_eq!(
            item,
            MapItem::Example(ExampleItem {
                version: 2,
                count: Some(7),
                unknown_tail: vec![99],
            })
        );
        assert_eq!(item.kind(), kind);
        assert_eq!(item.encode().unwrap(), ints);
        // Rendered by serde like every registered item, without the field version 1 lacks.
        let one = MapItem::decode(kind, &[1], DecodeContext::default()).unwrap();
        #[cfg(feature = "serde")]
        assert_eq!(
            serde_json::to_string(&one).unwrap(),
            r#"{"kind":"example","version":1}"#
        );
        assert_eq!(one.encode().unwrap(), [1]);
    }

    #[test]
    fn kinds_by_type_id_and_uuid() {
        for &kind in MapItemKind::NUMBERED {
            assert_eq!(MapItemKind::of(kind.type_id().unwrap(), None), kind);
        }
        for &kind in MapItemKind::WITH_UUID {
            assert_eq!(MapItemKind::of(0xFFFE, kind.uuid()), kind);
        }
        for &kind in MapItemKind::LEGACY {
            assert_ne!(kind.name(), "unknown");
        }
        assert_eq!(MapItemKind::of(9, None), MapItemKind::Unknown);
        assert_eq!(MapItemKind::of(0x8001, None), MapItemKind::Unknown);
        assert_eq!(
            MapItemKind::of(0xFFFE, Some(Uuid::nil())),
            MapItemKind::Unknown
        );
        assert_eq!(MapItemKind::of_legacy(2), MapItemKind::LegacyEntity);
        assert_eq!(MapItemKind::of_legacy(0x8002), MapItemKind::LegacyTilemap);
        assert_eq!(MapItemKind::of_legacy(0), MapItemKind::Unknown);
        // docs/format-notes.md, "UUID item types": the UUIDs found in real maps.
        assert_eq!(
            MapItemKind::Automapper.uuid().unwrap().to_string(),
            "3e1b2716-178c-3978-9bd9-b11ae0410dd8"
        );
        assert_eq!(
            MapItemKind::GroupEx.uuid().unwrap().to_string(),
            "4a26ca1f-64bd-30e3-907a-707eacd1f080"
        );
        assert_eq!(
            MapItemKind::EnvPointsBezier.uuid().unwrap().to_string(),
            "3ab4f84d-d9cc-3c78-b585-0d6ccdb2e25c"
        );
    }

    #[test]
    fn decode_then_encode_gives_the_ints_back() {
        let cases: [(MapItemKind, &[i32]); 4] = [
            (MapItemKind::Version, &[1]),
            (MapItemKind::Unknown, &[9, 8, 7]),
            (MapItemKind::GroupEx, &[1, 100]),
            (MapItemKind::EnvPoints, &[0, 1, 0, 0, 0, 0]),
        ];
        for (kind, ints) in cases {
            let item = MapItem::decode(kind, ints, DecodeContext::default()).unwrap();
            assert_eq!(item.kind(), kind);
            assert_eq!(item.encode().unwrap(), ints);
        }
    }
}
