//! Quads (map.md, "Layers": Quads layer; docs/format-notes.md, "Quads"). A quads layer's data
//! item is an array of 152-byte quads, decoded by casting the bytes ([`super::cast_ints`]).

use binrw::binrw;
use bytemuck::{Pod, Zeroable};

use super::common::{Color, Point};
use twcodec_schema_derive::describe;

/// A quad: a textured, colored four-cornered shape (map.md, "Quad"; DDNet `CQuad`), 38 ints.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CQuad")]
pub struct Quad {
    /// The corners (top-left, top-right, bottom-left, bottom-right), then the pivot
    /// (docs/format-notes.md, "Quads"; an old map.md put the pivot first); 22.10 fixed point,
    /// divide by 1024 for world pixels.
    pub points: [Point; 5],
    /// Color of each corner, in corner order.
    pub colors: [Color; 4],
    /// Texture coordinates of each corner, 0..=1024 across the image.
    pub texture_coords: [Point; 4],
    /// `opt *envelope`: position envelope.
    pub position_envelope: i32,
    /// Time offset of the position envelope, in milliseconds.
    pub position_envelope_offset: i32,
    /// `opt *envelope`: color envelope.
    pub color_envelope: i32,
    /// Time offset of the color envelope, in milliseconds.
    pub color_envelope_offset: i32,
}

impl Quad {
    /// Size on disk in bytes.
    pub const SIZE: usize = 152;

    /// The four corners.
    pub fn corners(&self) -> &[Point] {
        &self.points[..4]
    }

    /// The point the quad rotates around.
    pub fn pivot(&self) -> Point {
        self.points[4]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::common::{cast_ints, decode_ints, encode_ints, ints_as_le_bytes};

    #[test]
    fn quad_layout() {
        assert_eq!(std::mem::size_of::<Quad>(), Quad::SIZE);
        let ints: Vec<i32> = vec![
            0, 0, // corner top-left
            1024, 0, // corner top-right
            0, 1024, // corner bottom-left
            1024, 1024, // corner bottom-right
            512, 512, // pivot
            255, 0, 0, 255, // color top-left
            0, 255, 0, 255, // color top-right
            0, 0, 255, 255, // color bottom-left
            255, 255, 255, 128, // color bottom-right
            0, 0, // texture top-left
            1024, 0, // texture top-right
            0, 1024, // texture bottom-left
            1024, 1024, // texture bottom-right
            3,    // position envelope
            100,  // position envelope offset
            -1,   // color envelope
            0,    // color envelope offset
        ];
        let quad: Quad = decode_ints(&ints, ()).unwrap();
        assert_eq!(quad.pivot(), Point { x: 512, y: 512 });
        assert_eq!(quad.corners()[1], Point { x: 1024, y: 0 });
        assert_eq!(quad.colors[3].a, 128);
        assert_eq!(quad.texture_coords[3], Point { x: 1024, y: 1024 });
        assert_eq!(
            (quad.position_envelope, quad.position_envelope_offset),
            (3, 100)
        );
        assert_eq!(quad.color_envelope, -1);
        assert_eq!(encode_ints(&quad, ()).unwrap(), ints);

        // Casting the data bytes gives the same quad, twice over for two quads.
        let bytes: Vec<u8> = ints
            .iter()
            .chain(&ints)
            .flat_map(|i| i.to_le_bytes())
            .collect();
        let quads: Vec<Quad> = cast_ints(&bytes);
        assert_eq!(quads, [quad, quad]);
        assert_eq!(ints_as_le_bytes(&quads), bytes);
    }
}
