//! DDNet's auto-mapper configurations (UUID item `mapitemtype-automapper-config@ddnet.tw`;
//! map.md, "Auto Mappers", whose UUID is garbled: docs/format-notes.md, "Auto-mappers").

use binrw::binrw;
use binrw::helpers::until_eof;
use modular_bitfield::prelude::*;
#[cfg(feature = "serde")]
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[cfg(feature = "serde")]
use super::common::deserialize_flags;
#[cfg(feature = "serde")]
use super::common::flag_names;
use twcodec_schema_derive::describe;

/// The auto-mapper settings of one tiles layer (DDNet `CMapItemAutoMapperConfig`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMapItemAutoMapperConfig")]
pub struct AutomapperItem {
    /// 1 (uninitialised in some old maps).
    pub version: i32,
    /// `*group`: the group of the layer.
    pub group: i32,
    /// Index of the layer inside its group.
    pub layer: i32,
    /// `opt` rule set of the image's auto-mapper file; -1 for none.
    pub config: i32,
    /// Random seed; 0 picks a new one each time.
    pub seed: i32,
    /// Flags: automatic.
    #[br(map = |v: i32| AutomapperFlags::from_bytes(v.to_le_bytes()))]
    #[bw(map = |f: &AutomapperFlags| i32::from_le_bytes(f.into_bytes()))]
    pub flags: AutomapperFlags,
    /// Ints past what this item defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// Auto-mapper flags (DDNet `CMapItemAutoMapperConfig::FLAG_*`); unknown bits are kept.
#[bitfield(bytes = 4)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct AutomapperFlags {
    /// Map again after every change in the editor.
    pub automatic: bool,
    /// The other 31 bits.
    pub unknown: B31,
}

#[cfg(feature = "serde")]
impl Serialize for AutomapperFlags {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let unknown = u64::from(self.unknown()) << 1;
        flag_names(&[(self.automatic(), "automatic")], unknown).serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de> Deserialize<'de> for AutomapperFlags {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let bits = deserialize_flags(deserializer, &["automatic"], 32)? as u32;
        Ok(AutomapperFlags::from_bytes(bits.to_le_bytes()))
    }
}

/// DDNet's test item type (`mapitemtype-test@ddnet.tw`, `CMapItemTest`), kept for completeness.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMapItemTest")]
pub struct TestItem {
    /// 1.
    pub version: i32,
    /// Two test fields.
    pub fields: [i32; 2],
    /// A third.
    pub field3: i32,
    /// A fourth.
    pub field4: i32,
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
    fn automapper_item() {
        let ints = [
            1,  // version
            3,  // group
            1,  // layer inside the group
            0,  // config
            42, // seed
            1,  // flags: automatic
        ];
        let item: AutomapperItem = decode_ints(&ints, ()).unwrap();
        assert_eq!(
            (item.group, item.layer, item.config, item.seed),
            (3, 1, 0, 42)
        );
        assert!(item.flags.automatic());
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);
    }

    #[test]
    fn test_item() {
        let ints = [1, 2, 3, 4, 5];
        let item: TestItem = decode_ints(&ints, ()).unwrap();
        assert_eq!(item.fields, [2, 3]);
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);
    }
}
