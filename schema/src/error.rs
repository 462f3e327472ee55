//! Errors raised by the schema itself: layout facts that bytes can violate.
//!
//! They reach binrw as assertion errors (`binrw::Error::Custom`), and the `twcodec` crate turns
//! them into its own error with a byte offset and the item they belong to.

/// A layout rule of a format document that the bytes (or the values to write) break.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaError {
    /// The first four bytes are neither `DATA` nor `ATAD`.
    BadMagic([u8; 4]),
    /// A datafile version other than 3 or 4.
    UnsupportedVersion(i32),
    /// A demo version other than 3 to 6.
    UnsupportedDemoVersion(u8),
    /// A ghost version other than 4 to 6.
    UnsupportedGhostVersion(u8),
    /// An item's `size` field is negative or not a multiple of 4.
    ItemSize(i32),
    /// A count or size that cannot be negative is.
    Negative {
        /// What, as named in the spec (`_size`, `num_removed_items`, ...).
        what: &'static str,
        /// The value read.
        value: i32,
    },
    /// An enum variant's layout does not apply to these bytes (a `pre_assert` of a variant other
    /// than the one an earlier field picks); never the error of a whole item.
    OtherLayout,
    /// A count, size or offset to be written does not fit into the i32 the format stores it in.
    TooLarge {
        /// What overflowed, as named in the spec (`item_size`, `data_size`, ...).
        what: &'static str,
        /// The value that does not fit.
        value: u64,
    },
    /// A value outside the range the format gives it room for (a snapshot item's type id and
    /// id, which make its key).
    OutOfRange {
        /// What, as named in the spec (`type id`, `id`).
        what: &'static str,
        /// The value read.
        value: i32,
        /// The largest value allowed.
        max: i32,
    },
    /// The input ends inside a field or a run of values.
    Truncated {
        /// What, as named in the spec (`type and id`, `_size`, `data`, a count).
        what: &'static str,
        /// Bytes it takes.
        needed: u64,
        /// Bytes the input has left.
        left: u64,
    },
    /// A snapshot item delta to be written has a type with a pre-agreed size and another size.
    PreAgreedSize {
        /// The item's type id.
        type_id: u16,
        /// The pre-agreed number of ints.
        size: usize,
        /// The item's number of ints.
        len: usize,
    },
    /// A rule that an item delta of a snapshot delta breaks (snapshot.md, "Item deltas").
    ItemDelta {
        /// Index of the item delta.
        index: usize,
        /// Its key, once its type and id are read and valid.
        key: Option<crate::snapshot::SnapKey>,
        /// The rule.
        error: Box<SchemaError>,
    },
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SchemaError::BadMagic(magic) => write!(
                f,
                "not a datafile: magic is {} (expected \"DATA\" or \"ATAD\")",
                show_bytes(magic)
            ),
            SchemaError::UnsupportedVersion(version) => {
                write!(
                    f,
                    "unsupported datafile version {version} (only 3 and 4 exist)"
                )
            }
            SchemaError::UnsupportedDemoVersion(version) => {
                write!(
                    f,
                    "unsupported demo version {version} (versions 3 to 6 exist)"
                )
            }
            SchemaError::UnsupportedGhostVersion(version) => {
                write!(
                    f,
                    "unsupported ghost version {version} (DDNet reads versions 4 to 6)"
                )
            }
            SchemaError::ItemSize(size) => {
                write!(f, "item size {size} is negative or not a multiple of 4")
            }
            SchemaError::Negative { what, value } => write!(f, "{what} {value} is negative"),
            SchemaError::OtherLayout => write!(f, "another layout applies"),
            SchemaError::TooLarge { what, value } => write!(
                f,
                "{what} {value} does not fit into the 32-bit field of the format"
            ),
            SchemaError::OutOfRange { what, value, max } => {
                write!(f, "{what} {value} is outside 0..={max}")
            }
            SchemaError::Truncated { what, needed, left } => write!(
                f,
                "the input ends inside {what} ({needed} bytes, {left} left)"
            ),
            SchemaError::PreAgreedSize { type_id, size, len } => write!(
                f,
                "type {type_id} has a pre-agreed size of {size} ints, this item has {len}"
            ),
            SchemaError::ItemDelta { index, error, .. } => {
                write!(f, "item delta #{index}: {error}")
            }
        }
    }
}

impl std::error::Error for SchemaError {}

/// Renders bytes as a quoted string when printable, as hex otherwise.
fn show_bytes(bytes: &[u8]) -> String {
    if bytes.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        format!("\"{}\"", String::from_utf8_lossy(bytes))
    } else {
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("0x{}", hex.join(""))
    }
}

/// Converts a size or count to the i32 the format stores, or explains why it cannot.
pub(crate) fn to_i32(what: &'static str, value: usize) -> Result<i32, SchemaError> {
    i32::try_from(value).map_err(|_| SchemaError::TooLarge {
        what,
        value: value as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_problem() {
        assert_eq!(
            SchemaError::BadMagic(*b"PK\x03\x04").to_string(),
            "not a datafile: magic is 0x504b0304 (expected \"DATA\" or \"ATAD\")"
        );
        assert_eq!(
            SchemaError::BadMagic(*b"MAPS").to_string(),
            "not a datafile: magic is \"MAPS\" (expected \"DATA\" or \"ATAD\")"
        );
        assert_eq!(
            SchemaError::UnsupportedVersion(5).to_string(),
            "unsupported datafile version 5 (only 3 and 4 exist)"
        );
    }

    #[test]
    fn to_i32_rejects_overflow() {
        assert_eq!(to_i32("item_size", 12), Ok(12));
        assert_eq!(
            to_i32("item_size", 1 << 31),
            Err(SchemaError::TooLarge {
                what: "item_size",
                value: 1 << 31
            })
        );
    }
}
