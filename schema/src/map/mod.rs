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
use serde::Serialize;

pub use common::{
    cast_ints, cstring, cstring_data, decode_ints, encode_ints, ints_as_le_bytes, settings,
    settings_count, settings_data, Color, I32String, Point,
};

use crate::uuid::{uuid_from_name, Uuid, UuidIndexItem, UUID_INDEX_TYPE};
use automapper::{AutomapperItem, TestItem};
use envelope::{EnvPointsBezierItem, EnvPointsItem, EnvelopeItem};
use group::{GroupExItem, GroupItem};
use image::ImageItem;
use info::{InfoItem, VersionItem};
use layer::LayerItem;
use legacy::{LegacyCollision, LegacyEntity, LegacyImage, LegacyTheme, LegacyTilemap};
use sound::SoundItem;

/// The kinds of map item: the numbered types of map.md's "Item Type Overview" and DDNet's UUID
/// item types (docs/format-notes.md, "UUID item types").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub enum MapItemKind {
    /// 0: the map version item.
    Version,
    /// 1: author, version, credits, license, settings.
    Info,
    /// 2: an image, external or embedded.
    Image,
    /// 3: an envelope.
    Envelope,
    /// 4: a group of layers.
    Group,
    /// 5: a layer.
    Layer,
    /// 6: the envelope points of all envelopes.
    EnvPoints,
    /// 7: a sound (DDNet).
    Sound,
    /// 0xFFFF: a UUID index item (DDNet `ITEMTYPE_EX`).
    UuidIndex,
    /// UUID `mapitemtype-automapper-config@ddnet.tw`.
    Automapper,
    /// UUID `mapitemtype-group@ddnet.tw`: parallax zoom per group.
    GroupEx,
    /// UUID `mapitemtype-envpoints-bezier@ddnet.tw`: bezier tangents per point.
    EnvPointsBezier,
    /// UUID `mapitemtype-test@ddnet.tw`.
    Test,
    /// Teeworlds 0.3, types 1 to 6: an entity.
    LegacyEntity,
    /// Teeworlds 0.3, type `0x8001`: an image.
    LegacyImage,
    /// Teeworlds 0.3, type `0x8002`: a tilemap.
    LegacyTilemap,
    /// Teeworlds 0.3, type `0x8003`: the collision map.
    LegacyCollision,
    /// Teeworlds 0.3, type `0x8fff`: the theme.
    LegacyTheme,
    /// Anything else (Ninslash's type 9, pre-0.4 types, unknown UUIDs): kept as ints.
    Unknown,
}

impl MapItemKind {
    /// The numbered kinds, in type id order.
    pub const NUMBERED: [MapItemKind; 9] = [
        MapItemKind::Version,
        MapItemKind::Info,
        MapItemKind::Image,
        MapItemKind::Envelope,
        MapItemKind::Group,
        MapItemKind::Layer,
        MapItemKind::EnvPoints,
        MapItemKind::Sound,
        MapItemKind::UuidIndex,
    ];

    /// The kinds named by a UUID.
    pub const WITH_UUID: [MapItemKind; 4] = [
        MapItemKind::Automapper,
        MapItemKind::GroupEx,
        MapItemKind::EnvPointsBezier,
        MapItemKind::Test,
    ];

    /// The kind of an item of type `type_id` in a Teeworlds 0.3 map (one without a version
    /// item).
    pub fn of_legacy(type_id: u16) -> MapItemKind {
        match type_id {
            1..=6 => MapItemKind::LegacyEntity,
            0x8001 => MapItemKind::LegacyImage,
            0x8002 => MapItemKind::LegacyTilemap,
            0x8003 => MapItemKind::LegacyCollision,
            0x8fff => MapItemKind::LegacyTheme,
            _ => MapItemKind::Unknown,
        }
    }

    /// The kind of an item of type `type_id`, whose UUID is `uuid` when a UUID index item names
    /// one.
    pub fn of(type_id: u16, uuid: Option<Uuid>) -> MapItemKind {
        if let Some(uuid) = uuid {
            return MapItemKind::WITH_UUID
                .into_iter()
                .find(|kind| kind.uuid() == Some(uuid))
                .unwrap_or(MapItemKind::Unknown);
        }
        MapItemKind::NUMBERED
            .into_iter()
            .find(|kind| kind.type_id() == Some(type_id))
            .unwrap_or(MapItemKind::Unknown)
    }

    /// The type id of a numbered kind.
    pub const fn type_id(self) -> Option<u16> {
        Some(match self {
            MapItemKind::Version => 0,
            MapItemKind::Info => 1,
            MapItemKind::Image => 2,
            MapItemKind::Envelope => 3,
            MapItemKind::Group => 4,
            MapItemKind::Layer => 5,
            MapItemKind::EnvPoints => 6,
            MapItemKind::Sound => 7,
            MapItemKind::UuidIndex => UUID_INDEX_TYPE,
            _ => return None,
        })
    }

    /// The name a UUID kind's UUID is derived from.
    pub const fn uuid_name(self) -> Option<&'static str> {
        match self {
            MapItemKind::Automapper => Some("mapitemtype-automapper-config@ddnet.tw"),
            MapItemKind::GroupEx => Some("mapitemtype-group@ddnet.tw"),
            MapItemKind::EnvPointsBezier => Some("mapitemtype-envpoints-bezier@ddnet.tw"),
            MapItemKind::Test => Some("mapitemtype-test@ddnet.tw"),
            _ => None,
        }
    }

    /// The UUID of a UUID kind.
    pub fn uuid(self) -> Option<Uuid> {
        self.uuid_name().map(uuid_from_name)
    }

    /// A short lower-case name (`layer`, `uuid index`, `automapper`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            MapItemKind::Version => "version",
            MapItemKind::Info => "info",
            MapItemKind::Image => "image",
            MapItemKind::Envelope => "envelope",
            MapItemKind::Group => "group",
            MapItemKind::Layer => "layer",
            MapItemKind::EnvPoints => "envpoints",
            MapItemKind::Sound => "sound",
            MapItemKind::UuidIndex => "uuid index",
            MapItemKind::Automapper => "automapper",
            MapItemKind::GroupEx => "group ex",
            MapItemKind::EnvPointsBezier => "envpoints bezier",
            MapItemKind::Test => "test",
            MapItemKind::LegacyEntity => "0.3 entity",
            MapItemKind::LegacyImage => "0.3 image",
            MapItemKind::LegacyTilemap => "0.3 tilemap",
            MapItemKind::LegacyCollision => "0.3 collision",
            MapItemKind::LegacyTheme => "0.3 theme",
            MapItemKind::Unknown => "unknown",
        }
    }
}

/// What decoding an item needs to know about the rest of the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DecodeContext {
    /// Some envelope has version 3, so envelope points have 22 ints (DDNet's rule).
    pub bezier_points: bool,
}

/// A decoded map item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(missing_docs)] // each variant holds the item type of the same name
pub enum MapItem {
    Version(VersionItem),
    Info(InfoItem),
    Image(ImageItem),
    Envelope(EnvelopeItem),
    Group(GroupItem),
    Layer(LayerItem),
    EnvPoints(EnvPointsItem),
    Sound(SoundItem),
    UuidIndex(UuidIndexItem),
    Automapper(AutomapperItem),
    GroupEx(GroupExItem),
    EnvPointsBezier(EnvPointsBezierItem),
    Test(TestItem),
    LegacyEntity(LegacyEntity),
    LegacyImage(LegacyImage),
    LegacyTilemap(LegacyTilemap),
    LegacyCollision(LegacyCollision),
    LegacyTheme(LegacyTheme),
    /// An item of an unknown type: its ints.
    Unknown {
        /// The ints as stored.
        ints: Vec<i32>,
    },
}

impl MapItem {
    /// Decodes an item of kind `kind` from its ints.
    pub fn decode(kind: MapItemKind, ints: &[i32], context: DecodeContext) -> BinResult<MapItem> {
        Ok(match kind {
            MapItemKind::Version => MapItem::Version(decode_ints(ints, ())?),
            MapItemKind::Info => MapItem::Info(decode_ints(ints, ())?),
            MapItemKind::Image => MapItem::Image(decode_ints(ints, ())?),
            MapItemKind::Envelope => MapItem::Envelope(decode_ints(ints, ())?),
            MapItemKind::Group => MapItem::Group(decode_ints(ints, ())?),
            MapItemKind::Layer => MapItem::Layer(decode_ints(ints, ())?),
            MapItemKind::EnvPoints => MapItem::EnvPoints(decode_ints::<EnvPointsItem>(
                ints,
                binrw::args! { bezier: context.bezier_points },
            )?),
            MapItemKind::Sound => MapItem::Sound(decode_ints(ints, ())?),
            MapItemKind::UuidIndex => MapItem::UuidIndex(decode_ints(ints, ())?),
            MapItemKind::Automapper => MapItem::Automapper(decode_ints(ints, ())?),
            MapItemKind::GroupEx => MapItem::GroupEx(decode_ints(ints, ())?),
            MapItemKind::EnvPointsBezier => MapItem::EnvPointsBezier(decode_ints(ints, ())?),
            MapItemKind::Test => MapItem::Test(decode_ints(ints, ())?),
            MapItemKind::LegacyEntity => MapItem::LegacyEntity(decode_ints(ints, ())?),
            MapItemKind::LegacyImage => MapItem::LegacyImage(decode_ints(ints, ())?),
            MapItemKind::LegacyTilemap => MapItem::LegacyTilemap(decode_ints(ints, ())?),
            MapItemKind::LegacyCollision => MapItem::LegacyCollision(decode_ints(ints, ())?),
            MapItemKind::LegacyTheme => MapItem::LegacyTheme(decode_ints(ints, ())?),
            MapItemKind::Unknown => MapItem::Unknown {
                ints: ints.to_vec(),
            },
        })
    }

    /// The item's ints.
    pub fn encode(&self) -> BinResult<Vec<i32>> {
        match self {
            MapItem::Version(item) => encode_ints(item, ()),
            MapItem::Info(item) => encode_ints(item, ()),
            MapItem::Image(item) => encode_ints(item, ()),
            MapItem::Envelope(item) => encode_ints(item, ()),
            MapItem::Group(item) => encode_ints(item, ()),
            MapItem::Layer(item) => encode_ints(item, ()),
            MapItem::EnvPoints(item) => encode_ints(item, ()),
            MapItem::Sound(item) => encode_ints(item, ()),
            MapItem::UuidIndex(item) => encode_ints(item, ()),
            MapItem::Automapper(item) => encode_ints(item, ()),
            MapItem::GroupEx(item) => encode_ints(item, ()),
            MapItem::EnvPointsBezier(item) => encode_ints(item, ()),
            MapItem::Test(item) => encode_ints(item, ()),
            MapItem::LegacyEntity(item) => encode_ints(item, ()),
            MapItem::LegacyImage(item) => encode_ints(item, ()),
            MapItem::LegacyTilemap(item) => encode_ints(item, ()),
            MapItem::LegacyCollision(item) => encode_ints(item, ()),
            MapItem::LegacyTheme(item) => encode_ints(item, ()),
            MapItem::Unknown { ints } => Ok(ints.clone()),
        }
    }

    /// The kind of item.
    pub fn kind(&self) -> MapItemKind {
        match self {
            MapItem::Version(_) => MapItemKind::Version,
            MapItem::Info(_) => MapItemKind::Info,
            MapItem::Image(_) => MapItemKind::Image,
            MapItem::Envelope(_) => MapItemKind::Envelope,
            MapItem::Group(_) => MapItemKind::Group,
            MapItem::Layer(_) => MapItemKind::Layer,
            MapItem::EnvPoints(_) => MapItemKind::EnvPoints,
            MapItem::Sound(_) => MapItemKind::Sound,
            MapItem::UuidIndex(_) => MapItemKind::UuidIndex,
            MapItem::Automapper(_) => MapItemKind::Automapper,
            MapItem::GroupEx(_) => MapItemKind::GroupEx,
            MapItem::EnvPointsBezier(_) => MapItemKind::EnvPointsBezier,
            MapItem::Test(_) => MapItemKind::Test,
            MapItem::LegacyEntity(_) => MapItemKind::LegacyEntity,
            MapItem::LegacyImage(_) => MapItemKind::LegacyImage,
            MapItem::LegacyTilemap(_) => MapItemKind::LegacyTilemap,
            MapItem::LegacyCollision(_) => MapItemKind::LegacyCollision,
            MapItem::LegacyTheme(_) => MapItemKind::LegacyTheme,
            MapItem::Unknown { .. } => MapItemKind::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_type_id_and_uuid() {
        for kind in MapItemKind::NUMBERED {
            assert_eq!(MapItemKind::of(kind.type_id().unwrap(), None), kind);
        }
        for kind in MapItemKind::WITH_UUID {
            assert_eq!(MapItemKind::of(0xFFFE, kind.uuid()), kind);
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
