//! Layers (map.md, "Layers"; docs/format-notes.md, "Layers and groups"): the header every layer
//! starts with, then a body by layer type: tilemap, quads, sounds, deprecated sounds, or unknown
//! (kept as ints).

use binrw::binrw;
use binrw::helpers::until_eof;
use modular_bitfield::prelude::*;
#[cfg(feature = "serde")]
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[cfg(feature = "serde")]
use super::common::deserialize_flags;
#[cfg(feature = "serde")]
use super::common::flag_names;
use super::common::{when, Color, I32String};
use twcodec_schema_derive::describe;

/// A layer item (map.md, "Layers"; DDNet `CMapItemLayer` and the layer structs after it).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LayerItem {
    /// The three ints every layer starts with.
    pub header: LayerHeader,
    /// The rest, by layer type.
    #[br(args { kind: header.kind })]
    pub body: LayerBody,
}

/// The start of every layer item (map.md, "Layers"; DDNet `CMapItemLayer`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMapItemLayer")]
pub struct LayerHeader {
    /// Uninitialised in old maps, 0 in new ones: read as stored, written back unchanged, never
    /// interpreted (docs/format-notes.md, "Layers and groups").
    pub version: i32,
    /// 2 tilemap, 3 quads, 9 deprecated sounds, 10 sounds (see [`LayerKind`]).
    pub kind: i32,
    /// Layer flags: detail.
    #[br(map = |v: i32| LayerFlags::from_bytes(v.to_le_bytes()))]
    #[bw(map = |f: &LayerFlags| i32::from_le_bytes(f.into_bytes()))]
    pub flags: LayerFlags,
}

impl LayerHeader {
    /// The layer type.
    pub fn layer_kind(&self) -> LayerKind {
        LayerKind::from_i32(self.kind)
    }
}

// The registry of layer types: one line per type, `Variant(Type) = layer type number;`. The body
// is read by the header's layer type; any other number reads as `LayerBody::Unknown`, kept as
// ints (docs/extending.md). `registry!` is in schema/src/registry.rs.
registry! {
    /// The layer types found in files (DDNet `LAYERTYPE_*`; 4 to 8 exist only inside the
    /// editor).
    kind LayerKind {
        /// Anything else, kept.
        Other(i32),
    }
    /// A layer's body, picked by the header's layer type.
    value LayerBody, picked by kind {
        /// Any other layer type: the ints after the header, kept as they are.
        Unknown(#[br(parse_with = until_eof)] Vec<i32>),
    }
    methods {
        id:
            /// The number of this layer type.
            pub const fn to_i32(self) -> i32;
    }
    layers: numbers,
        /// The layer type with this number.
        pub fn from_i32(value: i32) -> LayerKind
    {
        /// 2: tiles, game, front, tele, speedup, switch or tune.
        Tilemap(TilemapLayer) = 2;
        /// 3: quads.
        Quads(QuadsLayer) = 3;
        /// 9: sounds with the 36-byte sources of early DDNet.
        DeprecatedSounds(SoundsLayer) = 9;
        /// 10: sounds.
        Sounds(SoundsLayer) = 10;
        /// A layer type only this crate's tests know: the proof that a layer type is its
        /// struct plus this one line (docs/extending.md).
        #[cfg(test)]
        Example(tests::ExampleLayer) = 99;
    }
}

/// Flags of every layer (DDNet `LAYERFLAG_*`); unknown bits are kept.
#[bitfield(bytes = 4)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct LayerFlags {
    /// Drawn only with the "high detail" client setting (DDNet `LAYERFLAG_DETAIL`).
    pub detail: bool,
    /// The other 31 bits.
    pub unknown: B31,
}

#[cfg(feature = "serde")]
impl Serialize for LayerFlags {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let unknown = u64::from(self.unknown()) << 1;
        flag_names(&[(self.detail(), "detail")], unknown).serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de> Deserialize<'de> for LayerFlags {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let bits = deserialize_flags(deserializer, &["detail"], 32)? as u32;
        Ok(LayerFlags::from_bytes(bits.to_le_bytes()))
    }
}

/// A tilemap layer (map.md, "Layers"; DDNet `CMapItemLayerTilemap`, Teeworlds
/// `CMapItemLayerTilemap_v2` to `_v4`). One struct reads every layout found in real maps:
///
/// | layout | ints | what follows `data` |
/// |---|---|---|
/// | version 2 | 15 | nothing |
/// | version 2, DDRace | 16 to 20 | a prefix of tele, speedup, front, switch, tune |
/// | version 3 (Teeworlds) and 4 (0.7, skip-compressed tiles) | 18 | name |
/// | version 3, DDNet | 23 | name, tele, speedup, front, switch, tune |
/// | version 3 with a 4-index prefix | 22 | name, tele, speedup, front, switch |
///
/// Versions past 4 (garbage in some maps) read like 3, as older DDNet read them (current
/// DDNet refuses them: docs/format-notes.md, "Tile layers"). The physics data indices are read
/// whenever the item holds them; only the one matching the layer's physics flag means anything
/// (some editors left garbage in the others).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMapItemLayerTilemap")]
pub struct TilemapLayer {
    /// 2, 3 (DDNet, Teeworlds 0.6) or 4 (Teeworlds 0.7: tiles are skip-compressed).
    pub version: i32,
    /// Width in tiles.
    pub width: i32,
    /// Height in tiles.
    pub height: i32,
    /// Which physics layer this is, if any.
    #[br(map = |v: i32| TilemapFlags::from_bytes(v.to_le_bytes()))]
    #[bw(map = |f: &TilemapFlags| i32::from_le_bytes(f.into_bytes()))]
    pub flags: TilemapFlags,
    /// Tint of the tiles.
    pub color: Color,
    /// `opt *envelope`: color envelope.
    pub color_envelope: i32,
    /// Time offset of the color envelope, in milliseconds.
    pub color_envelope_offset: i32,
    /// `opt *image`: the tileset.
    pub image: i32,
    /// `&data`: the tiles (`Tile`, 4 bytes each). Physics layers other than game keep an
    /// all-zero array here, for Teeworlds, and their tiles in their own index below.
    pub data: i32,
    /// Version 3 and up: the name.
    #[br(parse_with = when(version >= 3))]
    pub name: Option<I32String<3>>,
    /// DDNet's physics data indices, right after `data` in version 2, after the name in later
    /// versions.
    #[br(if(version < 3 || name.is_some()))]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "PhysicsData::is_empty")
    )]
    pub physics: PhysicsData,
    /// Ints past what this layout defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

impl TilemapLayer {
    /// Whether the tiles are skip-compressed (Teeworlds 0.7, version 4 and up; DDNet
    /// `VERSION_TEEWORLDS_TILESKIP`).
    pub fn uses_tile_skip(&self) -> bool {
        self.version >= 4
    }

    /// The data index holding this layer's own tiles, for its physics kind: `data` for tiles and
    /// game layers, the matching physics index otherwise (`None` when the item lacks it).
    pub fn tile_data(&self) -> Option<i32> {
        match self.flags.kind() {
            PhysicsKind::Tiles | PhysicsKind::Game | PhysicsKind::Several => Some(self.data),
            PhysicsKind::Tele => self.physics.tele,
            PhysicsKind::Speedup => self.physics.speedup,
            PhysicsKind::Front => self.physics.front,
            PhysicsKind::Switch => self.physics.switch,
            PhysicsKind::Tune => self.physics.tune,
        }
    }
}

/// DDNet's data indices of the physics layers, each `opt &data` (map.md, "Layers": DDNet only
/// content). Old maps hold only a prefix of them; each is `None` when the item ends before it.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PhysicsData {
    /// Tele tiles (`Tele`, 2 bytes each).
    #[br(parse_with = when(true))]
    pub tele: Option<i32>,
    /// Speedup tiles (`Speedup`, 6 bytes each; 4 in old maps).
    #[br(parse_with = when(true))]
    pub speedup: Option<i32>,
    /// Front tiles (`Tile`).
    #[br(parse_with = when(true))]
    pub front: Option<i32>,
    /// Switch tiles (`Switch`, 4 bytes each; 2 or 3 in old maps).
    #[br(parse_with = when(true))]
    pub switch: Option<i32>,
    /// Tune tiles (`Tune`, 2 bytes each).
    #[br(parse_with = when(true))]
    pub tune: Option<i32>,
}

impl PhysicsData {
    /// Whether the item holds none of the indices (a Teeworlds layer, or one cut short).
    pub fn is_empty(&self) -> bool {
        [self.tele, self.speedup, self.front, self.switch, self.tune]
            .iter()
            .all(Option::is_none)
    }
}

/// The physics flags of a tilemap (map.md, "Layers"; DDNet `TILESLAYERFLAG_*`); unknown bits are
/// kept. At most one should be set.
#[bitfield(bytes = 4)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct TilemapFlags {
    /// 1: the game layer.
    pub game: bool,
    /// 2: the tele layer (DDNet).
    pub tele: bool,
    /// 4: the speedup layer (DDNet).
    pub speedup: bool,
    /// 8: the front layer (DDNet).
    pub front: bool,
    /// 16: the switch layer (DDNet).
    pub switch: bool,
    /// 32: the tune layer (DDNet).
    pub tune: bool,
    /// The other 26 bits.
    pub unknown: B26,
}

impl TilemapFlags {
    /// Which kind of tilemap the flags make this.
    pub fn kind(&self) -> PhysicsKind {
        let set = [
            (self.game(), PhysicsKind::Game),
            (self.tele(), PhysicsKind::Tele),
            (self.speedup(), PhysicsKind::Speedup),
            (self.front(), PhysicsKind::Front),
            (self.switch(), PhysicsKind::Switch),
            (self.tune(), PhysicsKind::Tune),
        ];
        let mut kinds = set.iter().filter(|(on, _)| *on).map(|&(_, kind)| kind);
        match (kinds.next(), kinds.next()) {
            (None, _) => PhysicsKind::Tiles,
            (Some(kind), None) => kind,
            (Some(_), Some(_)) => PhysicsKind::Several,
        }
    }
}

#[cfg(feature = "serde")]
impl Serialize for TilemapFlags {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let flags = [
            (self.game(), "game"),
            (self.tele(), "tele"),
            (self.speedup(), "speedup"),
            (self.front(), "front"),
            (self.switch(), "switch"),
            (self.tune(), "tune"),
        ];
        flag_names(&flags, u64::from(self.unknown()) << 6).serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de> Deserialize<'de> for TilemapFlags {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let names = ["game", "tele", "speedup", "front", "switch", "tune"];
        let bits = deserialize_flags(deserializer, &names, 32)? as u32;
        Ok(TilemapFlags::from_bytes(bits.to_le_bytes()))
    }
}

/// What a tilemap is, from its flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PhysicsKind {
    /// No physics flag: a tiles layer, drawn with an image.
    Tiles,
    /// The game layer.
    Game,
    /// The tele layer.
    Tele,
    /// The speedup layer.
    Speedup,
    /// The front layer.
    Front,
    /// The switch layer.
    Switch,
    /// The tune layer.
    Tune,
    /// More than one physics flag (no writer makes this; DDNet refuses it).
    Several,
}

/// A quads layer (map.md, "Layers": Quads layer; DDNet `CMapItemLayerQuads`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMapItemLayerQuads")]
pub struct QuadsLayer {
    /// 1, or 2 (adds the name); Teeworlds and DDNet write 2.
    pub version: i32,
    /// Number of quads in `data`. Writers store one zeroed dummy quad when there are none.
    pub num_quads: i32,
    /// `&data`: the quads (`Quad`, 152 bytes each).
    pub data: i32,
    /// `opt *image`: the texture.
    pub image: i32,
    /// Version 2: the name.
    #[br(parse_with = when(version >= 2))]
    pub name: Option<I32String<3>>,
    /// Ints past what this version defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// A sounds layer (map.md, "Layers": Sounds layer; DDNet `CMapItemLayerSounds`); the same
/// item serves the deprecated sounds layer (layer type 9), whose sources are 36 bytes.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMapItemLayerSounds")]
pub struct SoundsLayer {
    /// 1 (deprecated layers) or 2.
    pub version: i32,
    /// Number of sources in `data`. Writers store one zeroed dummy source when there are none.
    pub num_sources: i32,
    /// `&data`: the sources (`SoundSource`, 52 bytes each; 36 in deprecated layers).
    pub data: i32,
    /// `opt *sound`: the sound item played.
    pub sound: i32,
    /// The name.
    #[br(parse_with = when(true))]
    pub name: Option<I32String<3>>,
    /// Ints past what this layout defines, kept so that writing is lossless.
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

    /// A layer type only these tests know, registered by its line in the registry: with its
    /// struct, the two places a new layer type takes in the schema (docs/extending.md).
    #[describe]
    #[binrw]
    #[brw(little)]
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct ExampleLayer {
        /// 1.
        pub version: i32,
        /// The data item of its content.
        pub data: i32,
        /// Ints past what this version defines, kept so that writing is lossless.
        #[br(parse_with = until_eof)]
        #[cfg_attr(
            feature = "serde",
            serde(default, skip_serializing_if = "Vec::is_empty")
        )]
        pub unknown_tail: Vec<i32>,
    }

    #[test]
    fn a_new_layer_type_is_its_struct_and_one_registry_line() {
        let ints = [0, 99, 0, 1, 4];
        let item: LayerItem = decode_ints(&ints, ()).unwrap();
        assert_eq!(item.header.layer_kind(), LayerKind::Example);
        assert_eq!(LayerKind::Example.to_i32(), 99);
        assert_eq!(
            item.body,
            LayerBody::Example(ExampleLayer {
                version: 1,
                data: 4,
                unknown_tail: Vec::new(),
            })
        );
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);
    }

    fn name(text: &str) -> [i32; 3] {
        I32String::<3>::new(text.as_bytes()).ints
    }

    /// The 15 ints every tilemap has: header, then version `version` up to `data`.
    fn tilemap_base(version: i32, flags: i32, data: i32) -> Vec<i32> {
        vec![
            0,       // layer version (garbage in old maps)
            2,       // layer type: tilemap
            1,       // layer flags: detail
            version, // tilemap version
            50,      // width
            30,      // height
            flags,   // tilemap flags
            255,     // color r
            255,     // color g
            255,     // color b
            255,     // color a
            -1,      // color envelope
            0,       // color envelope offset
            -1,      // image
            data,    // data
        ]
    }

    fn tilemap(ints: &[i32]) -> (LayerItem, TilemapLayer) {
        let item: LayerItem = decode_ints(ints, ()).unwrap();
        assert_eq!(
            encode_ints(&item, ()).unwrap(),
            ints,
            "writes back unchanged"
        );
        let LayerBody::Tilemap(tilemap) = item.body.clone() else {
            panic!("a tilemap expected, got {:?}", item.body);
        };
        (item, tilemap)
    }

    #[test]
    fn tilemap_version_2() {
        let (item, layer) = tilemap(&tilemap_base(2, 1, 7));
        assert!(item.header.flags.detail());
        assert_eq!(item.header.layer_kind(), LayerKind::Tilemap);
        assert_eq!((layer.width, layer.height, layer.data), (50, 30, 7));
        assert_eq!(layer.flags.kind(), PhysicsKind::Game);
        assert_eq!(layer.name, None);
        assert_eq!(layer.physics, PhysicsData::default());
        assert_eq!(layer.tile_data(), Some(7));
    }

    #[test]
    fn tilemap_version_2_ddrace_prefix() {
        let mut ints = tilemap_base(2, 4, 8);
        ints.extend([
            11, // tele
            9,  // speedup
            13, // front
            5,  // switch
        ]);
        let (_, layer) = tilemap(&ints);
        assert_eq!(layer.flags.kind(), PhysicsKind::Speedup);
        assert_eq!(layer.physics.tele, Some(11));
        assert_eq!(layer.physics.switch, Some(5));
        assert_eq!(layer.physics.tune, None);
        assert_eq!(layer.tile_data(), Some(9));
    }

    #[test]
    fn tilemap_teeworlds_3_and_0_7_version_4() {
        for version in [3, 4] {
            let mut ints = tilemap_base(version, 0, 3);
            ints.extend(name("Tiles"));
            let (_, layer) = tilemap(&ints);
            assert_eq!(layer.name.unwrap().to_string_lossy(), "Tiles");
            assert_eq!(layer.physics, PhysicsData::default());
            assert_eq!(layer.uses_tile_skip(), version == 4);
            assert_eq!(layer.flags.kind(), PhysicsKind::Tiles);
        }
    }

    #[test]
    fn tilemap_ddnet_3() {
        let mut ints = tilemap_base(3, 32, 4);
        ints.extend(name("Tune"));
        ints.extend([
            -1, // tele
            -1, // speedup
            -1, // front
            -1, // switch
            12, // tune
        ]);
        let (_, layer) = tilemap(&ints);
        assert_eq!(layer.flags.kind(), PhysicsKind::Tune);
        assert_eq!(layer.tile_data(), Some(12));
        assert!(layer.unknown_tail.is_empty());
    }

    #[test]
    fn tilemap_oddities_are_kept() {
        // A 22-int item: name and four garbage ints (infclass maps).
        let mut ints = tilemap_base(3, 0, 13);
        ints.extend(name("Tiles"));
        ints.extend([1044891068, 1065353216, 0, 1081610240]);
        let (_, layer) = tilemap(&ints);
        assert_eq!(layer.physics.switch, Some(1081610240));
        assert_eq!(layer.physics.tune, None);

        // A garbage version reads like 3; unknown flag bits and tail ints survive.
        let mut ints = tilemap_base(322, 0x41, 2);
        ints.extend(name("Game"));
        ints.extend([-1, -1, -1, -1, -1, 77]);
        let (_, layer) = tilemap(&ints);
        assert_eq!(layer.flags.kind(), PhysicsKind::Game);
        assert_eq!(layer.flags.unknown(), 1);
        assert_eq!(layer.unknown_tail, [77]);

        // A version-3 item cut inside its name: nothing is taken for a physics index.
        let mut ints = tilemap_base(3, 0, 2);
        ints.extend([5, 6]);
        let (_, layer) = tilemap(&ints);
        assert_eq!(layer.name, None);
        assert_eq!(layer.physics, PhysicsData::default());
        assert_eq!(layer.unknown_tail, [5, 6]);
    }

    #[test]
    fn quads_layer() {
        let mut ints = vec![
            0,  // layer version
            3,  // layer type: quads
            0,  // layer flags
            2,  // version
            4,  // quads
            9,  // data
            -1, // image
        ];
        ints.extend(name("Quads"));
        let item: LayerItem = decode_ints(&ints, ()).unwrap();
        let LayerBody::Quads(quads) = &item.body else {
            panic!("quads expected");
        };
        assert_eq!((quads.num_quads, quads.data, quads.image), (4, 9, -1));
        assert_eq!(quads.name.unwrap().to_string_lossy(), "Quads");
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);

        let v1 = &ints[..7];
        let item: LayerItem = decode_ints(v1, ()).unwrap();
        assert!(matches!(&item.body, LayerBody::Quads(q) if q.name.is_none()));
        assert_eq!(encode_ints(&item, ()).unwrap(), v1);
    }

    #[test]
    fn sounds_layers() {
        for (kind, deprecated) in [(10, false), (9, true)] {
            let mut ints = vec![
                0,    // layer version
                kind, // layer type
                0,    // layer flags
                2,    // version
                1,    // sources
                3,    // data
                0,    // sound
            ];
            ints.extend(name("Sounds"));
            let item: LayerItem = decode_ints(&ints, ()).unwrap();
            let layer = match (&item.body, deprecated) {
                (LayerBody::Sounds(layer), false) | (LayerBody::DeprecatedSounds(layer), true) => {
                    layer
                }
                (other, _) => panic!("wrong body {other:?}"),
            };
            assert_eq!((layer.num_sources, layer.data, layer.sound), (1, 3, 0));
            assert_eq!(encode_ints(&item, ()).unwrap(), ints);
        }
    }

    #[test]
    fn unknown_layer_types_are_kept() {
        let ints = [5, 7, 0, 1, 2, 3];
        let item: LayerItem = decode_ints(&ints, ()).unwrap();
        assert_eq!(item.header.layer_kind(), LayerKind::Other(7));
        assert_eq!(item.body, LayerBody::Unknown(vec![1, 2, 3]));
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);
    }

    #[test]
    fn a_truncated_tilemap_is_an_error_not_an_unknown_layer() {
        let ints = [0, 2, 0, 3, 50];
        assert!(decode_ints::<LayerItem>(&ints, ()).is_err());
    }

    #[test]
    fn flags_keep_unknown_bits() {
        for raw in [0, 1, 2, 0x40, -1, i32::MIN] {
            let flags = TilemapFlags::from_bytes(raw.to_le_bytes());
            assert_eq!(i32::from_le_bytes(flags.into_bytes()), raw);
            let flags = LayerFlags::from_bytes(raw.to_le_bytes());
            assert_eq!(i32::from_le_bytes(flags.into_bytes()), raw);
        }
        assert_eq!(
            TilemapFlags::from_bytes(6i32.to_le_bytes()).kind(),
            PhysicsKind::Several
        );
    }
}
