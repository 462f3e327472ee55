//! Values packed as big-endian bytes into i32 arrays: UUIDs in UUID index items
//! (docs/format-notes.md, "UUID item types") and I32Strings (map.md, "Terminology"); and the
//! variable-length packed ints of the network and of demos (docs/format-notes.md, "Packed
//! ints"), used by snapshots and demo chunks (`twcodec::snap::packing`) and by message fields
//! ([`crate::netmsg::VarInt`]).
//!
//! A packed int's first byte holds a continuation bit (0x80), a sign bit (0x40) and 6 bits of
//! the value; each further byte a continuation bit and 7 bits; a fifth byte holds the last 4
//! bits. A negative value is stored as its complement with the sign bit set.

/// Most bytes one packed int takes.
pub const MAX_PACKED_INT: usize = 5;

/// Why a packed int does not unpack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackedIntError {
    /// The bytes end inside the int.
    Truncated,
    /// The int is longer than 5 bytes, or its fifth byte sets bits past the 32 an int has.
    Overlong,
}

/// Appends the packed form of `value` to `out` (its shortest form, as DDNet writes it).
#[inline]
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

/// The packed int at the start of `bytes`: its value and its length in bytes.
#[inline]
pub fn unpack_int(bytes: &[u8]) -> Result<(i32, usize), PackedIntError> {
    let first = *bytes.first().ok_or(PackedIntError::Truncated)?;
    let mut value = u32::from(first & 0x3F);
    let mut byte = first;
    let mut shift = 6;
    let mut len = 1;
    while byte & 0x80 != 0 {
        byte = *bytes.get(len).ok_or(PackedIntError::Truncated)?;
        len += 1;
        if len == MAX_PACKED_INT && byte & 0xF0 != 0 {
            // The fifth byte: only 4 bits of the value are left, no continuation.
            return Err(PackedIntError::Overlong);
        }
        value |= u32::from(byte & 0x7F) << shift;
        shift += 7;
    }
    let value = value as i32;
    Ok((if first & 0x40 != 0 { !value } else { value }, len))
}

/// The `N` ints whose big-endian bytes are `bytes`, in order; missing bytes count as 0 and
/// bytes past `4 * N` are ignored.
pub fn ints_from_be_bytes<const N: usize>(bytes: &[u8]) -> [i32; N] {
    std::array::from_fn(|i| {
        let mut quad = [0u8; 4];
        for (k, byte) in quad.iter_mut().enumerate() {
            *byte = bytes.get(4 * i + k).copied().unwrap_or(0);
        }
        i32::from_be_bytes(quad)
    })
}

/// The big-endian bytes of `ints`, in order.
pub fn be_bytes_of_ints(ints: &[i32]) -> impl Iterator<Item = u8> + '_ {
    ints.iter().flat_map(|int| int.to_be_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_and_unpacks() {
        let ints = ints_from_be_bytes::<2>(&[0x12, 0x34, 0x56, 0x78, 0xff, 0xfe, 0xfd, 0xfc]);
        assert_eq!(ints, [0x1234_5678, 0xfffe_fdfc_u32 as i32]);
        let bytes: Vec<u8> = be_bytes_of_ints(&ints).collect();
        assert_eq!(bytes, [0x12, 0x34, 0x56, 0x78, 0xff, 0xfe, 0xfd, 0xfc]);
        assert_eq!(ints_from_be_bytes::<2>(&[1]), [0x0100_0000, 0]);
    }
}
