//! The variable-length int packing of the network and of demos (docs/format-notes.md,
//! "Packed ints"; DDNet `src/engine/shared/compression.cpp`, `CVariableInt`).
//!
//! The first byte holds a continuation bit (0x80), a sign bit (0x40) and 6 bits of the value;
//! each further byte a continuation bit and 7 bits; a fifth byte holds the last 4 bits. A
//! negative value is stored as its complement with the sign bit set.

use std::fmt;

/// Most bytes one packed int takes.
pub const MAX_PACKED_INT: usize = 5;

/// Why packed ints do not unpack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnpackError {
    /// The input ends inside the int starting at this byte.
    Truncated(usize),
    /// The int starting at this byte is longer than 5 bytes, or its fifth byte sets bits past
    /// the 32 an int has.
    Overlong(usize),
    /// The input holds more than `max` ints; the first one past them starts at byte `at`
    /// ([`unpack_ints_at_most`]).
    TooMany {
        /// Byte offset of int number `max` (counting from 0), the first one too many.
        at: usize,
        /// Most ints the input may hold.
        max: usize,
    },
}

impl fmt::Display for UnpackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnpackError::Truncated(at) => write!(f, "the packed int at byte {at} is cut off"),
            UnpackError::Overlong(at) => {
                write!(
                    f,
                    "the packed int at byte {at} is longer than an int can be"
                )
            }
            UnpackError::TooMany { at, max } => {
                write!(
                    f,
                    "more than {max} packed ints: one more starts at byte {at}"
                )
            }
        }
    }
}

/// Appends the packed form of `value` to `out`.
pub fn pack_int(value: i32, out: &mut Vec<u8>) {
    let sign = if value < 0 { 0x40 } else { 0 };
    let mut rest = (if value < 0 { !value } else { value }) as u32;
    let mut byte = sign | (rest & 0x3F) as u8;
    rest >>= 6;
    while rest != 0 {
        out.push(byte | 0x80);
        byte = (rest & 0x7F) as u8;
        rest >>= 7;
    }
    out.push(byte);
}

/// Packs ints.
pub fn pack_ints(values: &[i32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 2);
    for &value in values {
        pack_int(value, &mut out);
    }
    out
}

/// Unpacks the int at `*pos`, advancing `*pos` past it.
pub fn unpack_int(bytes: &[u8], pos: &mut usize) -> Result<i32, UnpackError> {
    let start = *pos;
    let first = *bytes.get(start).ok_or(UnpackError::Truncated(start))?;
    let mut value = u32::from(first & 0x3F);
    let mut byte = first;
    let mut shift = 6;
    let mut index = start;
    while byte & 0x80 != 0 {
        index += 1;
        byte = *bytes.get(index).ok_or(UnpackError::Truncated(start))?;
        if shift == 27 && byte & 0xF0 != 0 {
            // The fifth byte: only 4 bits of the value are left, no continuation.
            return Err(UnpackError::Overlong(start));
        }
        value |= u32::from(byte & 0x7F) << shift;
        shift += 7;
    }
    *pos = index + 1;
    let value = value as i32;
    Ok(if first & 0x40 != 0 { !value } else { value })
}

/// Unpacks every int of `bytes`. Each int takes at least one byte, so the output is never
/// longer than the input.
pub fn unpack_ints(bytes: &[u8]) -> Result<Vec<i32>, UnpackError> {
    unpack_ints_at_most(bytes, usize::MAX)
}

/// Unpacks the ints of `bytes` when they are at most `max`, else stops at the first int past
/// them ([`UnpackError::TooMany`]), without reading the rest: what the ints are for bounds
/// them (a snapshot takes at most [`MAX_SIZE`](super::MAX_SIZE) bytes), so that much input
/// never becomes 4 bytes per byte of memory.
pub fn unpack_ints_at_most(bytes: &[u8], max: usize) -> Result<Vec<i32>, UnpackError> {
    let mut out = Vec::with_capacity(bytes.len().min(max));
    let mut pos = 0;
    while pos < bytes.len() {
        if out.len() == max {
            return Err(UnpackError::TooMany { at: pos, max });
        }
        out.push(unpack_int(bytes, &mut pos)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_encodings() {
        // Values and bytes as DDNet's CVariableInt::Pack writes them.
        let cases: [(i32, &[u8]); 9] = [
            (0, &[0x00]),
            (1, &[0x01]),
            (63, &[0x3F]),
            (64, &[0x80, 0x01]),
            (-1, &[0x40]),
            (-64, &[0x7F]),
            (-65, &[0xC0, 0x01]),
            (i32::MAX, &[0xBF, 0xFF, 0xFF, 0xFF, 0x0F]),
            (i32::MIN, &[0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
        ];
        for (value, bytes) in cases {
            assert_eq!(pack_ints(&[value]), bytes, "{value}");
            assert_eq!(unpack_ints(bytes).unwrap(), [value], "{value}");
        }
    }

    #[test]
    fn errors_name_the_int() {
        assert_eq!(unpack_ints(&[0x05, 0x80]), Err(UnpackError::Truncated(1)));
        assert_eq!(
            unpack_ints(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
            Err(UnpackError::Overlong(0))
        );
        assert_eq!(
            unpack_ints(&[0x80, 0x80, 0x80, 0x80, 0x10]),
            Err(UnpackError::Overlong(0))
        );
        assert_eq!(
            UnpackError::Truncated(7).to_string(),
            "the packed int at byte 7 is cut off"
        );
    }

    #[test]
    fn at_most_stops_at_the_first_int_too_many() {
        // 3 ints of 1, 2 and 1 bytes: the third starts at byte 3.
        let packed = pack_ints(&[5, 64, 7]);
        assert_eq!(unpack_ints_at_most(&packed, 3).unwrap(), [5, 64, 7]);
        let error = unpack_ints_at_most(&packed, 2).unwrap_err();
        assert_eq!(error, UnpackError::TooMany { at: 3, max: 2 });
        assert_eq!(
            error.to_string(),
            "more than 2 packed ints: one more starts at byte 3"
        );
        // Broken ints past the limit are not read.
        assert_eq!(
            unpack_ints_at_most(&[1, 2, 0x80], 2),
            Err(UnpackError::TooMany { at: 2, max: 2 })
        );
        assert_eq!(unpack_ints_at_most(&[], 0).unwrap(), Vec::<i32>::new());
    }

    #[test]
    fn every_edge_value_round_trips() {
        let mut edges = vec![0, 1, -1, i32::MIN, i32::MAX, i32::MIN + 1, i32::MAX - 1];
        for bits in [6, 13, 20, 27] {
            let edge = 1i32 << bits;
            edges.extend([edge - 1, edge, edge + 1, -edge - 1, -edge, -edge + 1]);
        }
        let packed = pack_ints(&edges);
        assert_eq!(unpack_ints(&packed).unwrap(), edges);
    }

    proptest! {
        #[test]
        fn random_ints_round_trip(values in prop::collection::vec(any::<i32>(), 0..200)) {
            let packed = pack_ints(&values);
            prop_assert!(packed.len() <= values.len() * MAX_PACKED_INT);
            prop_assert_eq!(unpack_ints(&packed).unwrap(), values);
        }

        #[test]
        fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            if let Ok(ints) = unpack_ints(&bytes) {
                prop_assert!(ints.len() <= bytes.len());
            }
        }
    }
}
