//! The version and info items (map.md, "Version" and "Info").

use binrw::binrw;
use binrw::helpers::until_eof;

use super::common::when;
use twcodec_schema_derive::describe;

/// The map version item (map.md, "Version"; DDNet `CMapItemVersion`): exactly one, version 1.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMapItemVersion")]
pub struct VersionItem {
    /// 1 in every map DDNet and Teeworlds load.
    pub version: i32,
    /// Ints past what this item defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// The info item (map.md, "Info"; DDNet `CMapItemInfoSettings`): at most one, version 1.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMapItemInfo")]
#[doc(alias = "CMapItemInfoSettings")]
pub struct InfoItem {
    /// 1 for both Teeworlds and DDNet.
    pub version: i32,
    /// `opt &author`: CString, at most 32 bytes with the NUL.
    pub author: i32,
    /// `opt &version`: CString, at most 16 bytes with the NUL.
    pub map_version: i32,
    /// `opt &credits`: CString, at most 128 bytes with the NUL.
    pub credits: i32,
    /// `opt &license`: CString, at most 32 bytes with the NUL.
    pub license: i32,
    /// `opt &settings` (DDNet, added without a version change): CStrings one after another, see
    /// [`super::settings`]. Present when the item holds it.
    #[br(parse_with = when(true))]
    pub settings: Option<i32>,
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
    fn version_item() {
        let ints = [
            1, // version
        ];
        let item: VersionItem = decode_ints(&ints, ()).unwrap();
        assert_eq!(item.version, 1);
        assert!(item.unknown_tail.is_empty());
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);
    }

    #[test]
    fn info_item_with_and_without_settings() {
        let ints = [
            1,  // version
            0,  // author
            -1, // map version
            1,  // credits
            -1, // license
            2,  // settings (DDNet)
        ];
        let item: InfoItem = decode_ints(&ints, ()).unwrap();
        assert_eq!((item.author, item.map_version, item.credits), (0, -1, 1));
        assert_eq!((item.license, item.settings), (-1, Some(2)));
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);

        let vanilla = &ints[..5];
        let item: InfoItem = decode_ints(vanilla, ()).unwrap();
        assert_eq!(item.settings, None);
        assert_eq!(encode_ints(&item, ()).unwrap(), vanilla);
    }
}
