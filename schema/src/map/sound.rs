//! Sounds (map.md, "Sounds" and "Layers": Sounds layer; docs/format-notes.md, "Sounds"). A
//! sounds layer's data item is an array of 52-byte sources (36 bytes in deprecated layers),
//! decoded by casting the bytes.

use binrw::binrw;
use binrw::helpers::until_eof;
use bytemuck::{Pod, Zeroable};

use super::common::Point;
use twcodec_schema_derive::describe;

/// A sound (map.md, "Sounds"; DDNet `CMapItemSound`): opus data, embedded.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMapItemSound")]
pub struct SoundItem {
    /// 1.
    pub version: i32,
    /// 1 if external; no client loads external sounds, so DDNet writes 0.
    pub external: i32,
    /// `&name`: CString.
    pub name: i32,
    /// `&data`: the opus file.
    pub data: i32,
    /// The data's size as the writer saw it; may be wrong, trust the data item
    /// (docs/format-notes.md, "Sounds").
    pub data_size: i32,
    /// Ints past what this item defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// A sound source (map.md, "SoundSource"; DDNet `CSoundSource`), 13 ints.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CSoundSource")]
pub struct SoundSource {
    /// Position, 22.10 fixed point.
    pub position: Point,
    /// 1 if the sound loops.
    pub looping: i32,
    /// 1 if the sound pans with the listener's position.
    pub panning: i32,
    /// Delay before playing, in seconds.
    pub delay: i32,
    /// 0 (no falloff) to 255 (full).
    pub falloff: i32,
    /// `opt *envelope`: position envelope.
    pub position_envelope: i32,
    /// Time offset of the position envelope, in milliseconds.
    pub position_envelope_offset: i32,
    /// `opt *envelope`: sound (volume) envelope.
    pub sound_envelope: i32,
    /// Time offset of the sound envelope, in milliseconds.
    pub sound_envelope_offset: i32,
    /// Where the sound is heard.
    pub shape: SoundShape,
}

impl SoundSource {
    /// Size on disk in bytes.
    pub const SIZE: usize = 52;
}

/// The area of a sound source (map.md, "SoundShape"; DDNet `CSoundShape`), 3 ints.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CSoundShape")]
pub struct SoundShape {
    /// 0 rectangle, 1 circle.
    pub kind: i32,
    /// Rectangle: width, 22.10 fixed point. Circle: radius in plain world units
    /// (docs/format-notes.md, "Sounds").
    pub value1: i32,
    /// Rectangle: height, 22.10 fixed point. Circle: unused.
    pub value2: i32,
}

impl SoundShape {
    /// The shape by kind.
    pub fn shape(&self) -> Shape {
        match self.kind {
            0 => Shape::Rectangle {
                width: self.value1,
                height: self.value2,
            },
            1 => Shape::Circle {
                radius: self.value1,
            },
            other => Shape::Unknown(other),
        }
    }
}

/// A sound shape by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Shape {
    /// Centered on the source; width and height 22.10 fixed point.
    Rectangle {
        /// Width.
        width: i32,
        /// Height.
        height: i32,
    },
    /// Radius in world units.
    Circle {
        /// Radius.
        radius: i32,
    },
    /// Another kind, kept.
    Unknown(i32),
}

/// A sound source of a deprecated sounds layer (map.md, "Deprecated Sounds layer"; DDNet
/// `CSoundSource_DEPRECATED`), 9 ints.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CSoundSource_DEPRECATED")]
pub struct DeprecatedSoundSource {
    /// Position, 22.10 fixed point.
    pub position: Point,
    /// 1 if the sound loops.
    pub looping: i32,
    /// Delay before playing, in seconds.
    pub delay: i32,
    /// Radius of the circle it is heard in.
    pub radius: i32,
    /// `opt *envelope`: position envelope.
    pub position_envelope: i32,
    /// Time offset of the position envelope, in milliseconds.
    pub position_envelope_offset: i32,
    /// `opt *envelope`: sound envelope.
    pub sound_envelope: i32,
    /// Time offset of the sound envelope, in milliseconds.
    pub sound_envelope_offset: i32,
}

impl DeprecatedSoundSource {
    /// Size on disk in bytes.
    pub const SIZE: usize = 36;

    /// The source as a current sounds layer holds it (map.md's conversion, as DDNet loads
    /// them): panning on, no falloff, a circle of the same radius.
    pub fn upgrade(&self) -> SoundSource {
        SoundSource {
            position: self.position,
            looping: self.looping,
            panning: 1,
            delay: self.delay,
            falloff: 0,
            position_envelope: self.position_envelope,
            position_envelope_offset: self.position_envelope_offset,
            sound_envelope: self.sound_envelope,
            sound_envelope_offset: self.sound_envelope_offset,
            shape: SoundShape {
                kind: 1,
                value1: self.radius,
                value2: 0,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::common::{cast_ints, decode_ints, encode_ints};

    #[test]
    fn sound_item() {
        let ints = [
            1,    // version
            0,    // external
            4,    // name
            5,    // data
            9000, // data size
        ];
        let item: SoundItem = decode_ints(&ints, ()).unwrap();
        assert_eq!((item.name, item.data, item.data_size), (4, 5, 9000));
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);
    }

    #[test]
    fn sound_source() {
        assert_eq!(std::mem::size_of::<SoundSource>(), SoundSource::SIZE);
        let ints = [
            2048, 4096,  // position
            1,     // looping
            1,     // panning
            0,     // delay
            80,    // falloff
            -1,    // position envelope
            0,     // position envelope offset
            2,     // sound envelope
            250,   // sound envelope offset
            0,     // shape: rectangle
            51200, // width: 50 tiles of 1024
            10240, // height
        ];
        let source: SoundSource = decode_ints(&ints, ()).unwrap();
        assert_eq!(source.position, Point { x: 2048, y: 4096 });
        assert_eq!((source.falloff, source.sound_envelope), (80, 2));
        assert_eq!(
            source.shape.shape(),
            Shape::Rectangle {
                width: 51200,
                height: 10240
            }
        );
        assert_eq!(encode_ints(&source, ()).unwrap(), ints);
        let bytes: Vec<u8> = ints.iter().flat_map(|i| i.to_le_bytes()).collect();
        assert_eq!(cast_ints::<SoundSource>(&bytes), [source]);
    }

    #[test]
    fn deprecated_source_upgrades_to_a_circle() {
        assert_eq!(
            std::mem::size_of::<DeprecatedSoundSource>(),
            DeprecatedSoundSource::SIZE
        );
        let ints = [
            100, 200,  // position
            1,    // looping
            3,    // delay
            1500, // radius
            4,    // position envelope
            10,   // position envelope offset
            -1,   // sound envelope
            0,    // sound envelope offset
        ];
        let old: DeprecatedSoundSource = decode_ints(&ints, ()).unwrap();
        assert_eq!(encode_ints(&old, ()).unwrap(), ints);
        let new = old.upgrade();
        assert_eq!(new.shape.shape(), Shape::Circle { radius: 1500 });
        assert_eq!((new.panning, new.falloff, new.delay), (1, 0, 3));
        assert_eq!(
            (new.position_envelope, new.position_envelope_offset),
            (4, 10)
        );
        assert_eq!(new.sound_envelope, -1);
    }
}
