//! Types shared by map items (map.md, "Terminology"), and the parsers every item uses.

use std::fmt;

use binrw::io::{Read, Seek, SeekFrom};
use binrw::{binrw, BinRead, BinResult, BinWrite, Endian};
use bytemuck::{Pod, Zeroable};
#[cfg(feature = "serde")]
use serde::de::{self, SeqAccess, Visitor};
#[cfg(feature = "serde")]
use serde::{Deserialize, Deserializer, Serialize};

use crate::packing::{be_bytes_of_ints, ints_from_be_bytes};
use twcodec_schema_derive::describe;

/// Two i32 (map.md, "Terminology": Point). Quad corners and sound source positions are 22.10
/// fixed point (divide by 1024 for world pixels, 32 to a tile); group offsets are plain pixels
/// and group parallax is in percent.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CPoint")]
pub struct Point {
    /// Horizontal, growing to the right.
    pub x: i32,
    /// Vertical, growing downward.
    pub y: i32,
}

/// A color (map.md, "Terminology": Color): four i32 that should each be 0..=255. Kept as i32
/// so that any value in a file is written back unchanged.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
#[doc(alias = "CColor")]
pub struct Color {
    /// Red.
    pub r: i32,
    /// Green.
    pub g: i32,
    /// Blue.
    pub b: i32,
    /// Alpha (255 opaque).
    pub a: i32,
}

/// A string stored in `N` ints (map.md, "Terminology": I32String; DDNet `StrToInts`): the
/// big-endian bytes of the ints, each byte plus 128 (wrapping), the last byte 0. Holds at most
/// `4 * N - 1` bytes. The ints are kept as read, so writing is lossless whatever they hold.
///
/// An all-zero array, which some writers leave, reads as the empty string
/// (docs/format-notes.md, "Strings (I32String)").
#[describe]
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct I32String<const N: usize> {
    /// The ints as stored.
    pub ints: [i32; N],
}

impl<const N: usize> I32String<N> {
    /// How many bytes of text fit (the last of the `4 * N` bytes is the terminator).
    pub const CAPACITY: usize = 4 * N - 1;

    /// Encodes `text`: the bytes before its first NUL, at most [`Self::CAPACITY`] of them.
    pub fn new(text: &[u8]) -> I32String<N> {
        let mut bytes = vec![0u8; 4 * N];
        let text = text.split(|&b| b == 0).next().unwrap_or_default();
        for (slot, &byte) in bytes.iter_mut().zip(text.iter().take(Self::CAPACITY)) {
            *slot = byte;
        }
        for byte in &mut bytes[..Self::CAPACITY] {
            *byte = byte.wrapping_add(128);
        }
        // The terminator stays 0 (DDNet forces the last byte to 0, not to 0 + 128).
        I32String {
            ints: ints_from_be_bytes(&bytes),
        }
    }

    /// The text's bytes: up to the first NUL, never the final terminator byte.
    pub fn bytes(&self) -> Vec<u8> {
        if self.ints.iter().all(|&i| i == 0) {
            return Vec::new();
        }
        be_bytes_of_ints(&self.ints)
            .take(Self::CAPACITY)
            .map(|b| b.wrapping_sub(128))
            .take_while(|&b| b != 0)
            .collect()
    }

    /// The text as DDNet's `IntsToStr` reads it, or `None` where DDNet finds no text: the bytes
    /// up to the first NUL must be UTF-8. Unlike [`I32String::bytes`], an all-zero array is
    /// not the empty string here: it reads as bytes 0x80, which are not UTF-8
    /// (docs/format-notes.md, "Strings (I32String)").
    pub fn ddnet_text(&self) -> Option<String> {
        let bytes: Vec<u8> = be_bytes_of_ints(&self.ints)
            .take(Self::CAPACITY)
            .map(|b| b.wrapping_sub(128))
            .take_while(|&b| b != 0)
            .collect();
        String::from_utf8(bytes).ok()
    }

    /// The text, with invalid UTF-8 replaced.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(&self.bytes()).into_owned()
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.bytes().is_empty()
    }
}

impl<const N: usize> Default for I32String<N> {
    /// The empty string as DDNet writes it.
    fn default() -> Self {
        I32String::new(b"")
    }
}

impl<const N: usize> fmt::Debug for I32String<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "I32String({:?})", self.to_string_lossy())
    }
}

impl<const N: usize> I32String<N> {
    /// The text, when it encodes back to exactly these ints: `I32String::new(text) == self`.
    /// `None` for ints [`I32String::new`] would not write: bytes after the NUL, a terminator
    /// other than 0, invalid UTF-8, an all-zero array.
    pub fn exact_text(&self) -> Option<String> {
        let text = String::from_utf8(self.bytes()).ok()?;
        (I32String::<N>::new(text.as_bytes()) == *self).then_some(text)
    }
}

#[cfg(feature = "serde")]
impl<const N: usize> Serialize for I32String<N> {
    /// The text when it gives back these ints exactly ([`I32String::exact_text`]), otherwise
    /// the ints as stored, so that every value round-trips.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.exact_text() {
            Some(text) => serializer.serialize_str(&text),
            None => self.ints.serialize(serializer),
        }
    }
}

#[cfg(feature = "serde")]
impl<'de, const N: usize> Deserialize<'de> for I32String<N> {
    /// Reads what [`Serialize`] writes: a text of at most [`I32String::CAPACITY`] bytes without
    /// NUL, or an array of exactly `N` ints.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(I32StringVisitor::<N>)
    }
}

/// Reads an [`I32String`] from its text or its ints.
#[cfg(feature = "serde")]
struct I32StringVisitor<const N: usize>;

#[cfg(feature = "serde")]
impl<'de, const N: usize> Visitor<'de> for I32StringVisitor<N> {
    type Value = I32String<N>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a string of at most {} bytes without NUL, or an array of {N} i32",
            I32String::<N>::CAPACITY
        )
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        if text.contains('\0') {
            return Err(E::custom(format_args!("string {text:?} holds a NUL")));
        }
        if text.len() > I32String::<N>::CAPACITY {
            return Err(E::custom(format_args!(
                "string {text:?} is {} bytes long, more than the {} that fit",
                text.len(),
                I32String::<N>::CAPACITY
            )));
        }
        Ok(I32String::new(text.as_bytes()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut ints = [0; N];
        for (index, int) in ints.iter_mut().enumerate() {
            *int = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(index, &self))?;
        }
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(N + 1, &self));
        }
        Ok(I32String { ints })
    }
}

/// The names of the set flags of a bit field, then `unknown(0x..)` with the mask of any other
/// set bits: how every flags type of the schema serializes.
pub fn flag_names(flags: &[(bool, &str)], unknown_mask: u64) -> Vec<String> {
    let mut names: Vec<String> = flags
        .iter()
        .filter(|(set, _)| *set)
        .map(|(_, name)| name.to_string())
        .collect();
    if unknown_mask != 0 {
        names.push(format!("unknown({unknown_mask:#x})"));
    }
    names
}

/// Reads a flags value as [`flag_names`] writes it: `names[i]` is bit `i`, `unknown(0x..)` adds
/// the bits of its mask, which must be none of the named ones. The inverse of [`flag_names`] for
/// a bit field of `width` bits; how every flags type of the schema deserializes.
#[cfg(feature = "serde")]
pub fn deserialize_flags<'de, D: Deserializer<'de>>(
    deserializer: D,
    names: &[&str],
    width: u32,
) -> Result<u64, D::Error> {
    let list = Vec::<String>::deserialize(deserializer)?;
    flag_bits(&list, names, width).map_err(de::Error::custom)
}

/// The bits of the flag names `list` ([`deserialize_flags`]), or what is wrong with them.
#[cfg(feature = "serde")]
fn flag_bits(list: &[String], names: &[&str], width: u32) -> Result<u64, String> {
    let known = (1u64 << names.len()) - 1;
    let all = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let mut bits = 0u64;
    for entry in list {
        if let Some(bit) = names.iter().position(|name| name == entry) {
            bits |= 1 << bit;
            continue;
        }
        let mask = entry
            .strip_prefix("unknown(0x")
            .and_then(|rest| rest.strip_suffix(')'))
            .and_then(|hex| u64::from_str_radix(hex, 16).ok())
            .ok_or_else(|| {
                format!("unknown flag {entry:?} (expected one of {names:?} or \"unknown(0x..)\")")
            })?;
        if mask == 0 || mask & known != 0 || mask & !all != 0 {
            return Err(format!(
                "{entry:?}: the unknown bits must be set, outside the named flags {names:?} \
                 and within {width} bits"
            ));
        }
        bits |= mask;
    }
    Ok(bits)
}

/// The text of a CString data item (map.md, "Terminology": CString): the bytes before the first
/// NUL, or all of them when there is none.
pub fn cstring(data: &[u8]) -> &[u8] {
    data.split(|&b| b == 0).next().unwrap_or_default()
}

/// A CString data item holding `text` (up to its first NUL) and a terminating NUL.
pub fn cstring_data(text: &[u8]) -> Vec<u8> {
    let mut data = cstring(text).to_vec();
    data.push(0);
    data
}

/// The server settings of a DDNet info item (map.md, "Info"): CStrings one after another, each
/// ended by a NUL. Text after the last NUL counts as one more setting. Nothing is allocated:
/// each setting is a slice of `data`.
pub fn settings(data: &[u8]) -> impl Iterator<Item = &[u8]> + Clone {
    // No data is no settings (splitting nothing would give one empty one).
    let list = (!data.is_empty()).then(|| data.strip_suffix(&[0]).unwrap_or(data));
    list.into_iter().flat_map(|list| list.split(|&b| b == 0))
}

/// How many settings [`settings`] finds in `data`, without slicing them.
pub fn settings_count(data: &[u8]) -> usize {
    if data.is_empty() {
        return 0;
    }
    let list = data.strip_suffix(&[0]).unwrap_or(data);
    list.iter().filter(|&&b| b == 0).count() + 1
}

/// The settings data item for `settings`; the inverse of [`settings`] for data ending in NUL.
pub fn settings_data<S: AsRef<[u8]>>(settings: &[S]) -> Vec<u8> {
    settings
        .iter()
        .flat_map(|s| cstring_data(s.as_ref()))
        .collect()
}

/// A parser for an extension a version appended: reads `T` when `present` and the item still
/// holds all of it; otherwise `None`, consuming nothing, so that what is there stays for the
/// kept tail. Items shorter than their version implies therefore still read and write back
/// unchanged; the resolver reports them.
pub(crate) fn when<T, R>(present: bool) -> impl FnOnce(&mut R, Endian, ()) -> BinResult<Option<T>>
where
    T: for<'a> BinRead<Args<'a> = ()>,
    R: Read + Seek,
{
    move |reader, endian, ()| {
        if !present {
            return Ok(None);
        }
        let start = reader.stream_position()?;
        match T::read_options(reader, endian, ()) {
            Ok(value) => Ok(Some(value)),
            Err(error) if error.is_eof() => {
                reader.seek(SeekFrom::Start(start))?;
                Ok(None)
            }
            Err(error) => Err(error),
        }
    }
}

/// Reads the rest of the input as an array of `T`, by casting the bytes, never element by
/// element; a remainder too short for one more `T` is left for the kept tail.
///
/// `T` must consist of little-endian i32 only (points, quads, sound sources).
pub(crate) fn cast_rest<T: Pod, R: Read + Seek>(
    reader: &mut R,
    _endian: Endian,
    _args: (),
) -> BinResult<Vec<T>> {
    let start = reader.stream_position()?;
    let end = reader.seek(SeekFrom::End(0))?;
    let size = std::mem::size_of::<T>() as u64;
    let whole = (end - start) / size * size;
    reader.seek(SeekFrom::Start(start))?;
    // Read straight into the values: a fresh Vec<T> is aligned for T.
    let mut values = vec![T::zeroed(); (whole / size) as usize];
    reader.read_exact(bytemuck::cast_slice_mut::<T, u8>(&mut values))?;
    if cfg!(target_endian = "big") {
        for int in bytemuck::cast_slice_mut::<T, i32>(&mut values) {
            *int = i32::from_le(*int);
        }
    }
    Ok(values)
}

/// Writes an array of `T` written by [`cast_rest`].
// binrw hands `write_with` functions a reference to the field itself, a `Vec`.
#[allow(clippy::ptr_arg)]
#[binrw::writer(writer)]
pub(crate) fn write_cast<T: Pod>(values: &Vec<T>) -> BinResult<()> {
    writer.write_all(&ints_as_le_bytes(values))?;
    Ok(())
}

/// Copies little-endian bytes into a vector of `T`, a type made of i32 only; whole values only.
pub fn cast_ints<T: Pod>(bytes: &[u8]) -> Vec<T> {
    let size = std::mem::size_of::<T>();
    let whole = &bytes[..bytes.len() / size * size];
    // A fresh Vec<T> is aligned for T whatever the alignment of the input bytes.
    let mut values = vec![T::zeroed(); whole.len() / size];
    bytemuck::cast_slice_mut::<T, u8>(&mut values).copy_from_slice(whole);
    if cfg!(target_endian = "big") {
        for int in bytemuck::cast_slice_mut::<T, i32>(&mut values) {
            *int = i32::from_le(*int);
        }
    }
    values
}

/// The little-endian bytes of values made of i32 only; the inverse of [`cast_ints`].
pub fn ints_as_le_bytes<T: Pod>(values: &[T]) -> Vec<u8> {
    bytemuck::cast_slice::<T, i32>(values)
        .iter()
        .flat_map(|int| int.to_le_bytes())
        .collect()
}

/// Decodes an item's ints as `T` (a map item type of this module's family).
pub fn decode_ints<T>(ints: &[i32], args: T::Args<'_>) -> BinResult<T>
where
    T: BinRead,
{
    // The ints' own bytes where they are little-endian already: no copy of a big item.
    let bytes: std::borrow::Cow<'_, [u8]> = if cfg!(target_endian = "little") {
        std::borrow::Cow::Borrowed(bytemuck::cast_slice(ints))
    } else {
        ints.iter().flat_map(|i| i.to_le_bytes()).collect()
    };
    T::read_options(&mut binrw::io::Cursor::new(bytes), Endian::Little, args)
}

/// Encodes a map item into its ints.
pub fn encode_ints<T>(item: &T, args: T::Args<'_>) -> BinResult<Vec<i32>>
where
    T: BinWrite,
{
    let mut out = binrw::io::Cursor::new(Vec::new());
    item.write_options(&mut out, Endian::Little, args)?;
    let bytes = out.into_inner();
    Ok(bytes
        .chunks(4)
        .map(|chunk| {
            let mut quad = [0u8; 4];
            quad[..chunk.len()].copy_from_slice(chunk);
            i32::from_le_bytes(quad)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn i32_string_decodes_like_ddnet() {
        // "Game": 'G' + 128 = 0xc7 ..., padding 0 + 128 = 0x80, the last byte 0.
        let name = I32String::<3> {
            ints: [
                0xc7e1_ede5_u32 as i32,
                0x8080_8080_u32 as i32,
                0x8080_8000_u32 as i32,
            ],
        };
        assert_eq!(name.bytes(), b"Game");
        assert_eq!(name.to_string_lossy(), "Game");
        assert_eq!(I32String::<3>::new(b"Game"), name);
        assert_eq!(format!("{name:?}"), "I32String(\"Game\")");
    }

    #[test]
    fn i32_string_quirks() {
        // An all-zero array is the empty string, not eleven 0x80 bytes; DDNet reads no text
        // from it.
        assert!(I32String::<3> { ints: [0; 3] }.is_empty());
        assert_eq!(I32String::<3> { ints: [0; 3] }.ddnet_text(), None);
        assert_eq!(
            I32String::<3>::new(b"Game").ddnet_text().as_deref(),
            Some("Game")
        );
        assert_eq!(I32String::<3>::default().ddnet_text().as_deref(), Some(""));
        assert_eq!(I32String::<3>::new(b"a\xffb").ddnet_text(), None);
        // The empty string as DDNet writes it.
        assert_eq!(
            I32String::<3>::default().ints,
            [
                0x8080_8080_u32 as i32,
                0x8080_8080_u32 as i32,
                0x8080_8000_u32 as i32
            ]
        );
        // Too long: cut at the capacity; the terminator is always 0.
        let long = I32String::<2>::new(b"abcdefghijk");
        assert_eq!(long.bytes(), b"abcdefg");
        assert_eq!(long.ints[1] & 0xff, 0);
        // Text after a NUL is not encoded.
        assert_eq!(I32String::<2>::new(b"ab\0cd").bytes(), b"ab");
        // A garbage final byte is ignored on reading.
        let mut garbage = I32String::<1>::new(b"abc");
        garbage.ints[0] |= 0x7f;
        assert_eq!(garbage.bytes(), b"abc");
    }

    #[test]
    fn i32_string_reads_and_writes() {
        let bytes: Vec<u8> = [-941494811i32, -2139062144, -2139062272]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        let name = I32String::<3>::read_le(&mut binrw::io::Cursor::new(&bytes)).unwrap();
        assert_eq!(name.to_string_lossy(), "Game");
        let mut out = binrw::io::Cursor::new(Vec::new());
        name.write_le(&mut out).unwrap();
        assert_eq!(out.into_inner(), bytes);
    }

    proptest! {
        /// Every byte value except NUL survives encoding and decoding.
        #[test]
        fn i32_string_round_trips(text in prop::collection::vec(1u8..=255, 0..=31)) {
            prop_assert_eq!(I32String::<8>::new(&text).bytes(), text);
        }

        /// Any ints are kept as they are.
        #[test]
        fn i32_string_keeps_raw_ints(ints in any::<[i32; 3]>()) {
            let value = I32String::<3> { ints };
            let encoded = encode_ints(&value, ()).unwrap();
            prop_assert_eq!(decode_ints::<I32String<3>>(&encoded, ()).unwrap(), value);
        }
    }

    #[test]
    fn points_and_colors_read_and_write() {
        let ints = [
            -512, // x
            1024, // y
        ];
        let point: Point = decode_ints(&ints, ()).unwrap();
        assert_eq!(point, Point { x: -512, y: 1024 });
        assert_eq!(encode_ints(&point, ()).unwrap(), ints);

        let ints = [
            255, // r
            128, // g
            0,   // b
            300, // a: out of range, kept
        ];
        let color: Color = decode_ints(&ints, ()).unwrap();
        assert_eq!(
            color,
            Color {
                r: 255,
                g: 128,
                b: 0,
                a: 300
            }
        );
        assert_eq!(encode_ints(&color, ()).unwrap(), ints);
    }

    #[test]
    fn flag_names_list_set_flags_and_unknown_bits() {
        assert_eq!(
            flag_names(&[(true, "a"), (false, "b"), (true, "c")], 0),
            ["a", "c"]
        );
        assert_eq!(flag_names(&[(false, "a")], 0x40), ["unknown(0x40)"]);
        assert!(flag_names(&[], 0).is_empty());
    }

    #[test]
    fn cstrings_and_settings() {
        assert_eq!(cstring(b"grass_main\0"), b"grass_main");
        assert_eq!(cstring(b"no terminator"), b"no terminator");
        assert_eq!(cstring_data(b"sun"), b"sun\0");
        let data = b"sv_team 1\0\0sv_deepfly 0\0";
        let parts: Vec<&[u8]> = settings(data).collect();
        assert_eq!(settings_count(data), parts.len());
        assert_eq!(parts, [&b"sv_team 1"[..], b"", b"sv_deepfly 0"]);
        assert_eq!(settings_data(&parts), data);
        assert_eq!(settings(b"").count(), 0);
        assert_eq!(settings_count(b""), 0);
        // A lone NUL is one empty setting; text after the last NUL is one more.
        assert_eq!(settings(b"\0").collect::<Vec<_>>(), [b""]);
        assert_eq!(settings_count(b"\0\0"), 2);
        assert_eq!(settings(b"a\0b").collect::<Vec<_>>(), [b"a", b"b"]);
        assert_eq!(settings_count(b"a\0b"), 2);
        assert_eq!(
            settings(b"unterminated").collect::<Vec<_>>(),
            [&b"unterminated"[..]]
        );
    }

    #[test]
    fn cast_ints_reads_little_endian_whole_values() {
        let bytes: Vec<u8> = [1i32, -2, 3, 4, 5]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .chain([9u8, 9])
            .collect();
        let points: Vec<Point> = cast_ints(&bytes);
        assert_eq!(points, [Point { x: 1, y: -2 }, Point { x: 3, y: 4 }]);
        assert_eq!(ints_as_le_bytes(&points), bytes[..16]);
    }
}
