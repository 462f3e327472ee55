//! The item set of Teeworlds 0.3 maps, written before the version item existed (Teeworlds 0.4/0.5
//! editor, `editor_load_old`, which converts them). A datafile without a version item holds these
//! instead of the map items of map.md; the numbered types then mean entities, not images or
//! groups.

use binrw::binrw;
use binrw::helpers::until_eof;

use twcodec_schema_derive::describe;

/// An entity (Teeworlds 0.3 `mapres_entity`): item types 1 to 6, one item per entity.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "mapres_entity")]
pub struct LegacyEntity {
    /// Position in pixels.
    pub x: i32,
    /// Position in pixels.
    pub y: i32,
    /// Entity data: for pickups (type 2) the pickup kind, e.g. `0x00020001` health,
    /// `0x00030001` armor, `0x00010002` shotgun.
    #[br(parse_with = until_eof)]
    pub data: Vec<i32>,
}

/// What an entity item type stands for (Teeworlds 0.3 `MAPRES_SPAWNPOINT` and the rest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum LegacyEntityKind {
    /// 1: spawn point.
    Spawn,
    /// 2: pickup; its kind is the entity's data.
    Pickup,
    /// 3: red team spawn.
    SpawnRed,
    /// 4: blue team spawn.
    SpawnBlue,
    /// 5: red flag stand.
    FlagstandRed,
    /// 6: blue flag stand.
    FlagstandBlue,
}

impl LegacyEntityKind {
    /// The kind of entity items of type `type_id`.
    pub fn from_type_id(type_id: u16) -> Option<LegacyEntityKind> {
        Some(match type_id {
            1 => LegacyEntityKind::Spawn,
            2 => LegacyEntityKind::Pickup,
            3 => LegacyEntityKind::SpawnRed,
            4 => LegacyEntityKind::SpawnBlue,
            5 => LegacyEntityKind::FlagstandRed,
            6 => LegacyEntityKind::FlagstandBlue,
            _ => return None,
        })
    }
}

/// An image (Teeworlds 0.3 `mapres_image`, type `0x8001`): embedded RGBA pixels.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "mapres_image")]
pub struct LegacyImage {
    /// Width in pixels.
    pub width: i32,
    /// Height in pixels.
    pub height: i32,
    /// `&data`: RGBA pixels.
    pub data: i32,
    /// Ints past what this item defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// A tilemap (Teeworlds 0.3 `mapres_tilemap`, type `0x8002`): tiles of 2 bytes, index and flags.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "mapres_tilemap")]
pub struct LegacyTilemap {
    /// `*image` among the `0x8001` items.
    pub image: i32,
    /// Width in tiles.
    pub width: i32,
    /// Height in tiles.
    pub height: i32,
    /// Position.
    pub x: i32,
    /// Position.
    pub y: i32,
    /// Scale, 16.16 fixed point (65536 = 1).
    pub scale: i32,
    /// `&data`: tiles, 2 bytes each (index, flags).
    pub data: i32,
    /// 1 for the layer the game plays on.
    pub main: i32,
    /// Ints past what this item defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// The collision map (Teeworlds 0.3 `mapres_collision`, type `0x8003`): one byte per tile.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "mapres_collision")]
pub struct LegacyCollision {
    /// Width in tiles.
    pub width: i32,
    /// Height in tiles.
    pub height: i32,
    /// `&data`: one byte per tile, non-zero where solid.
    pub data: i32,
    /// Ints past what this item defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// The theme (Teeworlds 0.3 `mapres_theme`, type `0x8fff`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "mapres_theme")]
pub struct LegacyTheme {
    /// The theme id.
    pub id: i32,
    /// Ints past what this item defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::common::{decode_ints, encode_ints};

    #[test]
    fn entities() {
        let ints = [
            112,     // x
            208,     // y
            0x20001, // pickup kind: health
        ];
        let entity: LegacyEntity = decode_ints(&ints, ()).unwrap();
        assert_eq!(
            (entity.x, entity.y, entity.data.as_slice()),
            (112, 208, &[0x20001][..])
        );
        assert_eq!(encode_ints(&entity, ()).unwrap(), ints);
        assert_eq!(
            LegacyEntityKind::from_type_id(2),
            Some(LegacyEntityKind::Pickup)
        );
        assert_eq!(LegacyEntityKind::from_type_id(7), None);
    }

    #[test]
    fn image_tilemap_collision_theme() {
        let image: LegacyImage = decode_ints(&[1024, 512, 0], ()).unwrap();
        assert_eq!((image.width, image.height, image.data), (1024, 512, 0));

        let ints = [
            1,     // image
            70,    // width
            50,    // height
            0,     // x
            0,     // y
            65536, // scale 1.0
            4,     // data
            1,     // main
        ];
        let tilemap: LegacyTilemap = decode_ints(&ints, ()).unwrap();
        assert_eq!(
            (tilemap.width, tilemap.height, tilemap.scale),
            (70, 50, 65536)
        );
        assert_eq!((tilemap.data, tilemap.main), (4, 1));
        assert_eq!(encode_ints(&tilemap, ()).unwrap(), ints);

        let collision: LegacyCollision = decode_ints(&[70, 50, 8], ()).unwrap();
        assert_eq!(
            (collision.width, collision.height, collision.data),
            (70, 50, 8)
        );
        let theme: LegacyTheme = decode_ints(&[3], ()).unwrap();
        assert_eq!(theme.id, 3);
    }
}
