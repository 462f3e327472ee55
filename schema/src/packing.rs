//! Values packed as big-endian bytes into i32 arrays: UUIDs in UUID index items
//! (docs/format-notes.md, "UUID item types") and I32Strings (map.md, "Terminology").

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
