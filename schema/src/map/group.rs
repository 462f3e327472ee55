//! Groups of layers (map.md, "Groups") and DDNet's group extension.

use binrw::binrw;
use binrw::helpers::until_eof;

use super::common::{when, I32String, Point};
use twcodec_schema_derive::describe;

/// A layer group (map.md, "Groups"; DDNet `CMapItemGroup`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMapItemGroup")]
pub struct GroupItem {
    /// 1, 2 (adds clipping) or 3 (adds the name); Teeworlds and DDNet write 3.
    pub version: i32,
    /// Offset of the group in world units.
    pub offset: Point,
    /// Parallax in percent (100: moves with the camera).
    pub parallax: Point,
    /// `*layer`: first layer of this group.
    pub start_layer: i32,
    /// Number of layers, following `start_layer`.
    pub num_layers: i32,
    /// Version 2: clipping rectangle.
    #[br(parse_with = when(version >= 2))]
    pub clip: Option<Clip>,
    /// Version 3: the name, 3 ints.
    #[br(parse_with = when(version >= 3 && clip.is_some()))]
    pub name: Option<I32String<3>>,
    /// Ints past what this version defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// The clipping rectangle of a version-2 group (map.md, "Groups").
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Clip {
    /// 1 if the group is clipped to the rectangle.
    pub enabled: i32,
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Width.
    pub width: i32,
    /// Height.
    pub height: i32,
}

/// DDNet's group extension (UUID item `mapitemtype-group@ddnet.tw`, DDNet `CMapItemGroupEx`):
/// one per group, matched to groups by position. DDNet stopped writing it in 2023 and derives
/// the zoom from the parallax instead.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMapItemGroupEx")]
pub struct GroupExItem {
    /// 1.
    pub version: i32,
    /// How far the group seems from the camera when zooming, in percent.
    pub parallax_zoom: i32,
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
    fn group_versions() {
        let mut v3 = vec![
            3,   // version
            18,  // offset x
            -4,  // offset y
            10,  // parallax x
            20,  // parallax y
            2,   // start layer
            5,   // layers
            1,   // clipping on
            0,   // clip x
            32,  // clip y
            640, // clip width
            480, // clip height
        ];
        v3.extend(I32String::<3>::new(b"Game").ints);
        let item: GroupItem = decode_ints(&v3, ()).unwrap();
        assert_eq!(item.offset, Point { x: 18, y: -4 });
        assert_eq!(item.parallax, Point { x: 10, y: 20 });
        assert_eq!((item.start_layer, item.num_layers), (2, 5));
        assert_eq!(item.clip.unwrap().height, 480);
        assert_eq!(item.name.unwrap().to_string_lossy(), "Game");
        assert_eq!(encode_ints(&item, ()).unwrap(), v3);

        let mut v2 = v3[..12].to_vec();
        v2[0] = 2;
        let item: GroupItem = decode_ints(&v2, ()).unwrap();
        assert!(item.clip.is_some() && item.name.is_none());
        assert_eq!(encode_ints(&item, ()).unwrap(), v2);

        let mut v1 = v3[..7].to_vec();
        v1[0] = 1;
        let item: GroupItem = decode_ints(&v1, ()).unwrap();
        assert!(item.clip.is_none() && item.name.is_none());
        assert_eq!(encode_ints(&item, ()).unwrap(), v1);
    }

    #[test]
    fn a_short_group_keeps_what_it_has() {
        // Version 3 but cut inside the clip rectangle: nothing is lost, nothing invented.
        let ints = [3, 0, 0, 100, 100, 0, 1, 1, 2, 3];
        let item: GroupItem = decode_ints(&ints, ()).unwrap();
        assert!(item.clip.is_none() && item.name.is_none());
        assert_eq!(item.unknown_tail, [1, 2, 3]);
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);
    }

    #[test]
    fn group_ex() {
        let ints = [
            1,  // version
            20, // parallax zoom
        ];
        let item: GroupExItem = decode_ints(&ints, ()).unwrap();
        assert_eq!(item.parallax_zoom, 20);
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);
    }
}
