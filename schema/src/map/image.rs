//! Image items (map.md, "Images").

use binrw::binrw;
use binrw::helpers::until_eof;

use super::common::when;
use crate::open_enum::open_enum;
use twcodec_schema_derive::describe;

/// An image, external (loaded by name from the client's `mapres`) or embedded (map.md, "Images";
/// DDNet `CMapItemImage`, Teeworlds 0.7 `CMapItemImage_v2`).
///
/// DDNet writes version 1 (RGBA pixels); Teeworlds 0.7 writes version 2 with a `format`. A real
/// map (`infclass_normandie_rgb_in_v1_image`) has a version-1 image whose data holds RGB pixels,
/// 3 bytes each: the data size, not the version, tells them apart.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMapItemImage")]
pub struct ImageItem {
    /// 1 (DDNet) or 2 (Teeworlds 0.7, adds `format`).
    pub version: i32,
    /// Width in pixels.
    pub width: i32,
    /// Height in pixels.
    pub height: i32,
    /// 1: external, loaded from `mapres/<name>.png`; 0: embedded in `data`.
    pub external: i32,
    /// `&name`: CString, at most 128 bytes with the NUL.
    pub name: i32,
    /// `opt &data`: the pixels, row by row; -1 for external images.
    pub data: i32,
    /// Version 2: the pixel format (Teeworlds `m_Format`, DDNet `m_MustBe1`). DDNet refuses a
    /// version-2 image whose format is not RGBA (older DDNet loads it as external).
    #[br(parse_with = when(version >= 2))]
    pub format: Option<ImageFormat>,
    /// Ints past what this version defines, kept so that writing is lossless (version-1 images
    /// of some maps carry a stray 7th int).
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

impl ImageItem {
    /// Bytes per pixel of the embedded data as the item declares it: 4 for version 1 (RGBA),
    /// else by format; `None` for a format this library does not know.
    pub fn declared_pixel_size(&self) -> Option<usize> {
        match self.format {
            None | Some(ImageFormat::RGBA) => Some(4),
            Some(ImageFormat::RGB) => Some(3),
            Some(_) => None,
        }
    }
}

open_enum! {
    /// The pixel format of a version-2 image (Teeworlds `CImageInfo::FORMAT_*`).
    [described]
    pub struct ImageFormat(i32) {
        /// 0: 3 bytes per pixel.
        RGB = 0 as Rgb;
        /// 1: 4 bytes per pixel.
        RGBA = 1 as Rgba;
    }
    /// Anything else, kept (`tw07_editor_grass_template` has -1, "auto", on external images).
    else Other;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::common::{decode_ints, encode_ints};

    #[test]
    fn version_1_embedded() {
        let ints = [
            1,   // version
            128, // width
            64,  // height
            0,   // external: no
            3,   // name
            4,   // data
        ];
        let item: ImageItem = decode_ints(&ints, ()).unwrap();
        assert_eq!((item.width, item.height, item.external), (128, 64, 0));
        assert_eq!((item.name, item.data), (3, 4));
        assert_eq!(item.format, None);
        assert_eq!(item.declared_pixel_size(), Some(4));
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);
    }

    #[test]
    fn version_2_formats() {
        for (format, expected, size) in [
            (0, ImageFormat::RGB, Some(3)),
            (1, ImageFormat::RGBA, Some(4)),
            (-1, ImageFormat(-1), None),
        ] {
            let ints = [
                2,      // version
                1024,   // width
                1024,   // height
                1,      // external
                0,      // name
                -1,     // data
                format, // format
            ];
            let item: ImageItem = decode_ints(&ints, ()).unwrap();
            assert_eq!(item.format, Some(expected));
            assert_eq!(item.declared_pixel_size(), size);
            assert_eq!(encode_ints(&item, ()).unwrap(), ints);
        }
    }

    #[test]
    fn stray_int_of_a_version_1_image_is_kept() {
        let ints = [1, 1024, 1024, 1, 0, -1, 55566072];
        let item: ImageItem = decode_ints(&ints, ()).unwrap();
        assert_eq!(item.format, None);
        assert_eq!(item.unknown_tail, [55566072]);
        assert_eq!(encode_ints(&item, ()).unwrap(), ints);
    }
}
