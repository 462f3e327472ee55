//! The variable-length int packing of the network and of demos (docs/format-notes.md,
//! "Packed ints"; DDNet `src/engine/shared/compression.cpp`, `CVariableInt`), over runs of
//! ints. One int's layout is [`twcodec_schema::packing`]'s, which message fields share.

use std::fmt;

use twcodec_schema::packing::PackedIntError;
pub use twcodec_schema::packing::{pack_int, MAX_PACKED_INT};

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

/// Packs ints.
pub fn pack_ints(values: &[i32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 2);
    for &value in values {
        pack_int(value, &mut out);
    }
    out
}

/// Unpacks the int at `*pos`, advancing `*pos` past it.
#[inline]
pub fn unpack_int(bytes: &[u8], pos: &mut usize) -> Result<i32, UnpackError> {
    let start = *pos;
    let rest = bytes.get(start..).unwrap_or_default();
    match twcodec_schema::packing::unpack_int(rest) {
        Ok((value, len)) => {
            *pos = start + len;
            Ok(value)
        }
        Err(PackedIntError::Truncated) => Err(UnpackError::Truncated(start)),
        Err(PackedIntError::Overlong) => Err(UnpackError::Overlong(start)),
    }
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
