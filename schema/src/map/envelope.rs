//! Envelopes and their points (map.md, "Envelopes" and "Envelope Points"; docs/format-notes.md,
//! "Envelopes").
//!
//! One envelope points item holds the points of every envelope. Its points have 6 ints, or 22
//! when any envelope has version 3 (Teeworlds 0.7 bezier curves). DDNet keeps 6-int points and
//! stores bezier tangents in a UUID item of 16 ints per point instead. Point arrays are decoded by
//! casting, never point by point.

use binrw::binrw;
use binrw::helpers::until_eof;
use bytemuck::{Pod, Zeroable};

use super::common::{cast_rest, when, write_cast, I32String};
use crate::open_enum::open_enum;
use crate::SchemaError;
use twcodec_schema_derive::describe;

/// An envelope (map.md, "Envelopes"; DDNet `CMapItemEnvelope`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMapItemEnvelope")]
pub struct EnvelopeItem {
    /// 1, 2 (adds `synchronized`; DDNet), or 3 (Teeworlds 0.7: the points have bezier
    /// tangents; see [`EnvelopeItem::bezier_points`]).
    pub version: i32,
    /// Values per point: 1 sound, 3 position, 4 color (see [`EnvelopeKind`]).
    pub channels: i32,
    /// `*envpoint`: index of the first point in the envelope points item.
    pub start_point: i32,
    /// Number of points.
    pub num_points: i32,
    /// The name, 8 ints. `None` in the 0.4/0.5 form `[1, channels, start, num, -1]`, whose -1
    /// then stays in the tail.
    #[br(parse_with = when(true))]
    pub name: Option<I32String<8>>,
    /// Version 2: 1 if the envelope follows the server's clock rather than the player's.
    #[br(parse_with = when(version >= 2 && name.is_some()))]
    pub synchronized: Option<i32>,
    /// Ints past what this version defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// The version every envelope item starts with, read alone: what decides the layout of the
/// envelope points ([`EnvelopeItem::VERSION_BEZIER`]) before the envelopes are decoded.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvelopeVersion {
    /// [`EnvelopeItem::version`].
    pub version: i32,
}

impl EnvelopeItem {
    /// The envelope version from which the envelope points of the whole map have 22 ints:
    /// Teeworlds 0.7's bezier tangents (DDNet `CMapItemEnvelope::VERSION_TEEWORLDS_BEZIER`).
    pub const VERSION_BEZIER: i32 = 3;

    /// Whether any of these envelope items (as ints) makes the envelope points 22 ints each:
    /// DDNet's rule, any one of version [`VERSION_BEZIER`](Self::VERSION_BEZIER) or more.
    pub fn bezier_points<'a>(items: impl IntoIterator<Item = &'a [i32]>) -> bool {
        items.into_iter().any(|ints| {
            super::decode_ints::<EnvelopeVersion>(ints, ())
                .is_ok_and(|header| header.version >= Self::VERSION_BEZIER)
        })
    }

    /// What the envelope animates.
    pub fn kind(&self) -> EnvelopeKind {
        EnvelopeKind::from_channels(self.channels)
    }
}

/// What an envelope animates, from its channel count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum EnvelopeKind {
    /// 1 channel: volume.
    Sound,
    /// 3 channels: x, y, rotation.
    Position,
    /// 4 channels: r, g, b, a.
    Color,
    /// Any other channel count, kept.
    Other(i32),
}

impl EnvelopeKind {
    /// The kind of an envelope with `channels` channels.
    pub fn from_channels(channels: i32) -> EnvelopeKind {
        match channels {
            1 => EnvelopeKind::Sound,
            3 => EnvelopeKind::Position,
            4 => EnvelopeKind::Color,
            other => EnvelopeKind::Other(other),
        }
    }
}

open_enum! {
    /// How a value moves from one point to the next (map.md, "Envelope Points"; DDNet
    /// `CURVETYPE_*`). Unknown values are kept; DDNet draws them linear.
    pub struct CurveType(i32) {
        /// 0: jump to the next value at the next point.
        STEP = 0 as Step;
        /// 1: straight line.
        LINEAR = 1 as Linear;
        /// 2: slow start, fast end.
        SLOW = 2 as Slow;
        /// 3: fast start, slow end.
        FAST = 3 as Fast;
        /// 4: slow, fast, slow.
        SMOOTH = 4 as Smooth;
        /// 5: bezier curve with tangents (Teeworlds 0.7 points, or DDNet's bezier item).
        BEZIER = 5 as Bezier;
    }
    /// Any other value, kept.
    else Unknown;
}

/// An envelope point of 6 ints (map.md, "Envelope Points"; DDNet `CEnvPoint`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CEnvPoint")]
pub struct EnvPoint {
    /// Time in milliseconds from the start of the envelope.
    pub time: i32,
    /// How the value moves to the next point (see [`CurveType`]); kept as stored.
    pub curve_type: i32,
    /// One value per channel, 22.10 fixed point (color channels: 1024 = full); see
    /// [`EnvPoint::values`].
    pub values: [i32; 4],
}

impl EnvPoint {
    /// The curve type.
    pub fn curve(&self) -> CurveType {
        CurveType::from_i32(self.curve_type)
    }

    /// The values as the envelope's kind lays them out.
    pub fn values(&self, kind: EnvelopeKind) -> EnvValues {
        let [a, b, c, d] = self.values;
        match kind {
            EnvelopeKind::Sound => EnvValues::Sound { volume: a },
            EnvelopeKind::Position => EnvValues::Position {
                x: a,
                y: b,
                rotation: c,
            },
            EnvelopeKind::Color => EnvValues::Color {
                r: a,
                g: b,
                b: c,
                a: d,
            },
            EnvelopeKind::Other(_) => EnvValues::Raw(self.values),
        }
    }
}

/// A point's values by envelope kind (map.md, "Envelope Points"), 22.10 fixed point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum EnvValues {
    /// Sound envelope: volume (1024 = full).
    Sound {
        /// Volume.
        volume: i32,
    },
    /// Position envelope: offset and rotation.
    Position {
        /// Horizontal offset.
        x: i32,
        /// Vertical offset.
        y: i32,
        /// Rotation in degrees, 22.10.
        rotation: i32,
    },
    /// Color envelope: multipliers (1024 = 1.0).
    Color {
        /// Red.
        r: i32,
        /// Green.
        g: i32,
        /// Blue.
        b: i32,
        /// Alpha.
        a: i32,
    },
    /// An envelope of another channel count: the four values as stored.
    Raw([i32; 4]),
}

/// Bezier tangents of one point, one value per channel (Teeworlds `CEnvPoint_v2` extension,
/// DDNet `CEnvPointBezier`): dx in milliseconds, dy in 22.10 fixed point.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CEnvPointBezier")]
pub struct EnvPointBezier {
    /// Incoming tangent, time delta.
    pub in_tangent_dx: [i32; 4],
    /// Incoming tangent, value delta.
    pub in_tangent_dy: [i32; 4],
    /// Outgoing tangent, time delta.
    pub out_tangent_dx: [i32; 4],
    /// Outgoing tangent, value delta.
    pub out_tangent_dy: [i32; 4],
}

/// An envelope point of 22 ints: the 6 ints and bezier tangents (Teeworlds 0.7 `CEnvPoint_v2`,
/// DDNet `CEnvPointBezier_upstream`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CEnvPointBezier_upstream")]
pub struct EnvPoint22 {
    /// Time, curve type and values.
    pub point: EnvPoint,
    /// Tangents; zero unless the curve type is bezier.
    pub bezier: EnvPointBezier,
}

/// The envelope points item (map.md, "Envelope Points"; DDNet `MAPITEMTYPE_ENVPOINTS`): every
/// point of every envelope. Which form it has depends on the envelopes: `bezier` is true when
/// any envelope has version 3 (DDNet's rule; Teeworlds requires all to agree).
#[describe]
#[binrw]
#[brw(little)]
#[br(import { bezier: bool })]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
// Serialized as its fields alone (the points say which form they have), which also lets a
// decoded item stream: serde buffers the whole of an enum inside an internally tagged one.
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum EnvPointsItem {
    /// 6 ints per point.
    #[br(pre_assert(!bezier, SchemaError::OtherLayout))]
    Points {
        /// The points.
        #[br(parse_with = cast_rest)]
        #[bw(write_with = write_cast)]
        points: Vec<EnvPoint>,
        /// Ints after the last whole point, kept so that writing is lossless.
        #[br(parse_with = until_eof)]
        #[cfg_attr(
            feature = "serde",
            serde(default, skip_serializing_if = "Vec::is_empty")
        )]
        unknown_tail: Vec<i32>,
    },
    /// 22 ints per point (Teeworlds 0.7 bezier).
    #[br(pre_assert(bezier, SchemaError::OtherLayout))]
    Points22 {
        /// The points.
        #[br(parse_with = cast_rest)]
        #[bw(write_with = write_cast)]
        points: Vec<EnvPoint22>,
        /// Ints after the last whole point, kept so that writing is lossless.
        #[br(parse_with = until_eof)]
        #[cfg_attr(
            feature = "serde",
            serde(default, skip_serializing_if = "Vec::is_empty")
        )]
        unknown_tail: Vec<i32>,
    },
}

impl EnvPointsItem {
    /// Number of points.
    pub fn len(&self) -> usize {
        match self {
            EnvPointsItem::Points { points, .. } => points.len(),
            EnvPointsItem::Points22 { points, .. } => points.len(),
        }
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// This item in the form the map's envelopes call for (`bezier`: 22 ints per point, as
    /// [`DecodeContext::bezier_points`](super::DecodeContext::bezier_points) says). Serialized,
    /// the two forms differ by their points only, so an item without points reads back as
    /// [`EnvPointsItem::Points`]; this gives it its form back. Both forms of an item without
    /// points encode to the same ints (its tail), so only equality depends on it.
    pub fn in_form(self, bezier: bool) -> EnvPointsItem {
        match self {
            EnvPointsItem::Points {
                points,
                unknown_tail,
            } if bezier && points.is_empty() => EnvPointsItem::Points22 {
                points: Vec::new(),
                unknown_tail,
            },
            EnvPointsItem::Points22 {
                points,
                unknown_tail,
            } if !bezier && points.is_empty() => EnvPointsItem::Points {
                points: Vec::new(),
                unknown_tail,
            },
            other => other,
        }
    }

    /// The 6-int part of point `index`.
    pub fn point(&self, index: usize) -> Option<&EnvPoint> {
        match self {
            EnvPointsItem::Points { points, .. } => points.get(index),
            EnvPointsItem::Points22 { points, .. } => points.get(index).map(|p| &p.point),
        }
    }
}

/// DDNet's bezier tangents (UUID item `mapitemtype-envpoints-bezier@ddnet.tw`,
/// docs/format-notes.md, "Envelopes"): 16 ints per point of the envelope points item, in the
/// same order. DDNet uses it only when it has as many points as the envelope points item.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct EnvPointsBezierItem {
    /// One entry per envelope point.
    #[br(parse_with = cast_rest)]
    #[bw(write_with = write_cast)]
    pub points: Vec<EnvPointBezier>,
    /// Ints after the last whole entry, kept so that writing is lossless.
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

    #[test]
    fn any_envelope_of_version_3_makes_22_int_points() {
        let v2: &[i32] = &[2, 4, 0, 1];
        let v3: &[i32] = &[3, 4, 1, 1];
        assert!(!EnvelopeItem::bezier_points([v2, v2]));
        assert!(EnvelopeItem::bezier_points([v2, v3]));
        // Version 322 (garbage) is past 3 too; an empty item has no version.
        assert!(EnvelopeItem::bezier_points([&[322][..]]));
        assert!(!EnvelopeItem::bezier_points([&[][..]]));
        assert!(!EnvelopeItem::bezier_points(std::iter::empty()));
    }
    use crate::map::common::{decode_ints, encode_ints};

    #[cfg(feature = "serde")]
    #[test]
    fn points_read_back_in_their_form() {
        let point = EnvPoint22 {
            point: EnvPoint {
                time: 5,
                curve_type: 5,
                values: [1, 2, 3, 4],
            },
            bezier: EnvPointBezier {
                in_tangent_dx: [-1; 4],
                ..EnvPointBezier::default()
            },
        };
        let bezier = EnvPointsItem::Points22 {
            points: vec![point],
            unknown_tail: vec![7],
        };
        let json = serde_json::to_string(&bezier).unwrap();
        assert_eq!(
            serde_json::from_str::<EnvPointsItem>(&json).unwrap(),
            bezier
        );

        // Without points the forms look alike; `in_form` tells them apart again.
        let empty = EnvPointsItem::Points22 {
            points: vec![],
            unknown_tail: vec![1, 2],
        };
        let json = serde_json::to_string(&empty).unwrap();
        let back: EnvPointsItem = serde_json::from_str(&json).unwrap();
        assert!(matches!(back, EnvPointsItem::Points { .. }));
        assert_eq!(
            encode_ints(&back, ()).unwrap(),
            encode_ints(&empty, ()).unwrap()
        );
        assert_eq!(back.clone().in_form(true), empty);
        assert_eq!(back.clone().in_form(false), back);
    }

    fn name_ints(text: &str) -> [i32; 8] {
        I32String::<8>::new(text.as_bytes()).ints
    }

    #[test]
    fn envelope_versions() {
        let mut v2 = vec![
            2,  // version
            4,  // channels: color
            10, // start point
            3,  // points
        ];
        v2.extend(name_ints("sky")); // name
        v2.push(1); // synchronized
        let item: EnvelopeItem = decode_ints(&v2, ()).unwrap();
        assert_eq!(item.kind(), EnvelopeKind::Color);
        assert_eq!((item.start_point, item.num_points), (10, 3));
        assert_eq!(item.name.unwrap().to_string_lossy(), "sky");
        assert_eq!(item.synchronized, Some(1));
        assert_eq!(encode_ints(&item, ()).unwrap(), v2);

        let mut v1 = v2.clone();
        v1[0] = 1;
        v1.pop();
        let item: EnvelopeItem = decode_ints(&v1, ()).unwrap();
        assert_eq!(item.synchronized, None);
        assert_eq!(encode_ints(&item, ()).unwrap(), v1);

        let mut v3 = v2.clone();
        v3[0] = 3;
        let item: EnvelopeItem = decode_ints(&v3, ()).unwrap();
        assert_eq!(item.synchronized, Some(1));
        assert_eq!(encode_ints(&item, ()).unwrap(), v3);
    }

    #[test]
    fn the_old_envelope_form_without_a_name() {
        let ints = [
            1,  // version
            3,  // channels: position
            0,  // start point
            2,  // points
            -1, // the 0.4/0.5 name field
        ];
        let item: EnvelopeItem = decode_ints(&ints, ()).unwrap();
        assert_eq!(item.kind(), EnvelopeKind::Position);
        assert_eq!(item.name, None);
        assert_eq!(item.unknown_tail, [-1]);
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);
    }

    #[test]
    fn curve_types_keep_unknown_values() {
        for value in [0, 1, 2, 3, 4, 5, 527, 2752512, -1] {
            assert_eq!(CurveType::from_i32(value).to_i32(), value);
        }
        assert_eq!(CurveType::from_i32(5), CurveType::BEZIER);
        assert_eq!(CurveType::from_i32(527), CurveType(527));
    }

    #[test]
    fn point_values_by_kind() {
        let point: EnvPoint = decode_ints(
            &[
                500,  // time
                4,    // curve type: smooth
                1024, // value 0
                512,  // value 1
                -90,  // value 2
                7,    // value 3
            ],
            (),
        )
        .unwrap();
        assert_eq!(point.curve(), CurveType::SMOOTH);
        assert_eq!(
            point.values(EnvelopeKind::Sound),
            EnvValues::Sound { volume: 1024 }
        );
        assert_eq!(
            point.values(EnvelopeKind::Position),
            EnvValues::Position {
                x: 1024,
                y: 512,
                rotation: -90
            }
        );
        assert_eq!(
            point.values(EnvelopeKind::Color),
            EnvValues::Color {
                r: 1024,
                g: 512,
                b: -90,
                a: 7
            }
        );
    }

    #[test]
    fn points_of_6_and_22_ints() {
        let six: Vec<i32> = (0..6 * 3).collect();
        let item = decode_ints::<EnvPointsItem>(&six, binrw::args! { bezier: false }).unwrap();
        assert_eq!(item.len(), 3);
        assert_eq!(item.point(1).unwrap().time, 6);
        assert_eq!(item.point(2).unwrap().values, [14, 15, 16, 17]);
        assert_eq!(encode_ints(&item, ()).unwrap(), six);

        let mut twenty_two: Vec<i32> = (0..22 * 2).collect();
        twenty_two.push(-5); // a stray int after the last point
        let item: EnvPointsItem =
            decode_ints::<EnvPointsItem>(&twenty_two, binrw::args! { bezier: true }).unwrap();
        let EnvPointsItem::Points22 {
            points,
            unknown_tail,
        } = &item
        else {
            panic!("22-int points expected");
        };
        assert_eq!(points[1].point.time, 22);
        assert_eq!(points[1].bezier.in_tangent_dx, [28, 29, 30, 31]);
        assert_eq!(points[1].bezier.out_tangent_dy, [40, 41, 42, 43]);
        assert_eq!(unknown_tail, &[-5]);
        assert_eq!(encode_ints(&item, ()).unwrap(), twenty_two);

        let empty = decode_ints::<EnvPointsItem>(&[], binrw::args! { bezier: false }).unwrap();
        assert!(empty.is_empty());
    }

    #[test]
    fn ddnet_bezier_item() {
        let ints: Vec<i32> = (100..100 + 32).collect();
        let item: EnvPointsBezierItem = decode_ints(&ints, ()).unwrap();
        assert_eq!(item.points.len(), 2);
        assert_eq!(item.points[0].in_tangent_dy, [104, 105, 106, 107]);
        assert_eq!(item.points[1].out_tangent_dx, [124, 125, 126, 127]);
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);
    }
}
