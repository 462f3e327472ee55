//! The Huffman coding of Teeworlds network packets and demo chunks (docs/format-notes.md,
//! "Huffman coding"; DDNet `src/engine/shared/huffman.cpp`).
//!
//! The tree is fixed: built once from Teeworlds' published table of 256 byte frequencies plus
//! an end symbol of frequency 1. Building it the way Teeworlds does matters, since ties decide
//! the codes: the nodes are stably sorted by descending frequency, the last one becomes leaf 0
//! and the second to last leaf 1 of a new node, which takes the second to last slot. A leaf's
//! code is the path from the root, the first step in the lowest bit. Coded data is a stream of
//! codes, least significant bit first, ended by the end symbol, then one byte holding the bits
//! left over. Teeworlds writes that byte even when no bits are left, and so does this encoder
//! (DDNet has left it out since its commit 4354f8c664; a decoder reads both).

use std::fmt;
use std::sync::OnceLock;

/// Teeworlds' byte frequencies (DDNet `CHuffman::ms_aFreqTable`), then a 257th entry that the
/// tree ignores: the end symbol's frequency is 1.
#[rustfmt::skip]
const FREQUENCIES: [u32; 257] = [
    1 << 30, 4545, 2657, 431, 1950, 919, 444, 482, 2244, 617, 838, 542, 715, 1814, 304, 240, 754, 212, 647, 186,
    283, 131, 146, 166, 543, 164, 167, 136, 179, 859, 363, 113, 157, 154, 204, 108, 137, 180, 202, 176,
    872, 404, 168, 134, 151, 111, 113, 109, 120, 126, 129, 100, 41, 20, 16, 22, 18, 18, 17, 19,
    16, 37, 13, 21, 362, 166, 99, 78, 95, 88, 81, 70, 83, 284, 91, 187, 77, 68, 52, 68,
    59, 66, 61, 638, 71, 157, 50, 46, 69, 43, 11, 24, 13, 19, 10, 12, 12, 20, 14, 9,
    20, 20, 10, 10, 15, 15, 12, 12, 7, 19, 15, 14, 13, 18, 35, 19, 17, 14, 8, 5,
    15, 17, 9, 15, 14, 18, 8, 10, 2173, 134, 157, 68, 188, 60, 170, 60, 194, 62, 175, 71,
    148, 67, 167, 78, 211, 67, 156, 69, 1674, 90, 174, 53, 147, 89, 181, 51, 174, 63, 163, 80,
    167, 94, 128, 122, 223, 153, 218, 77, 200, 110, 190, 73, 174, 69, 145, 66, 277, 143, 141, 60,
    136, 53, 180, 57, 142, 57, 158, 61, 166, 112, 152, 92, 26, 22, 21, 28, 20, 26, 30, 21,
    32, 27, 20, 17, 23, 21, 30, 22, 22, 21, 27, 25, 17, 27, 23, 18, 39, 26, 15, 21,
    12, 18, 18, 27, 20, 18, 15, 19, 11, 17, 33, 12, 18, 15, 19, 18, 16, 26, 17, 18,
    9, 10, 25, 22, 22, 17, 20, 16, 6, 16, 15, 20, 14, 18, 24, 335, 1517,
];

/// The end symbol.
const EOF: usize = 256;
/// Symbols: 256 bytes and the end symbol.
const SYMBOLS: usize = 257;
/// No child.
const NONE: u16 = u16::MAX;
/// Bits the decoding table looks at once.
const TABLE_BITS: u32 = 10;

/// A node of the tree: a leaf (a symbol with its code) or an inner node with two children.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// Children for bit 0 and bit 1; `NONE` for a leaf.
    children: [u16; 2],
    /// A leaf's code, first bit lowest.
    code: u32,
    /// A leaf's code length; 0 for an inner node.
    len: u32,
}

/// What the first `TABLE_BITS` bits of the input lead to.
#[derive(Debug, Clone, Copy)]
enum Entry {
    /// A symbol whose code takes this many of the bits.
    Symbol { symbol: u16, len: u32 },
    /// An inner node, reached after all `TABLE_BITS` bits.
    Inner(u16),
}

/// The tree and its decoding table.
struct Tree {
    /// The leaves (the symbols) first, then the inner nodes; the root last.
    nodes: Vec<Node>,
    table: Vec<Entry>,
}

/// The one tree, built on first use.
fn tree() -> &'static Tree {
    static TREE: OnceLock<Tree> = OnceLock::new();
    TREE.get_or_init(Tree::build)
}

impl Tree {
    fn build() -> Tree {
        let leaf = Node {
            children: [NONE; 2],
            code: 0,
            len: 0,
        };
        let mut nodes = vec![leaf; SYMBOLS];
        // (node, frequency) of the nodes not yet in the tree.
        let mut left: Vec<(u16, u64)> = (0..SYMBOLS)
            .map(|symbol| {
                let frequency = if symbol == EOF {
                    1
                } else {
                    FREQUENCIES[symbol]
                };
                (symbol as u16, u64::from(frequency))
            })
            .collect();
        while left.len() > 1 {
            // Stable, so that equal frequencies keep their order, as in Teeworlds.
            left.sort_by_key(|&(_, frequency)| std::cmp::Reverse(frequency));
            let (last, second) = (left[left.len() - 1], left[left.len() - 2]);
            let id = nodes.len() as u16;
            nodes.push(Node {
                children: [last.0, second.0],
                code: 0,
                len: 0,
            });
            left.pop();
            if let Some(slot) = left.last_mut() {
                *slot = (id, last.1 + second.1);
            }
        }
        let root = (nodes.len() - 1) as u16;
        // Codes: the path from the root, depth first.
        let mut stack = vec![(root, 0u32, 0u32)];
        while let Some((id, code, depth)) = stack.pop() {
            let node = &mut nodes[usize::from(id)];
            if usize::from(id) < SYMBOLS {
                node.code = code;
                node.len = depth;
                continue;
            }
            let [zero, one] = node.children;
            stack.push((zero, code, depth + 1));
            stack.push((one, code | (1 << depth), depth + 1));
        }
        let table = (0..1u32 << TABLE_BITS)
            .map(|bits| {
                let mut id = root;
                for depth in 0..TABLE_BITS {
                    id = nodes[usize::from(id)].children[((bits >> depth) & 1) as usize];
                    if usize::from(id) < SYMBOLS {
                        return Entry::Symbol {
                            symbol: id,
                            len: depth + 1,
                        };
                    }
                }
                Entry::Inner(id)
            })
            .collect();
        Tree { nodes, table }
    }
}

/// Why Huffman-coded data does not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HuffmanError {
    /// The input ends before the end symbol.
    Truncated,
    /// The decoded data would be longer than allowed.
    TooLong {
        /// The limit.
        limit: usize,
    },
}

impl fmt::Display for HuffmanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HuffmanError::Truncated => f.write_str("the Huffman data ends before its end symbol"),
            HuffmanError::TooLong { limit } => {
                write!(f, "the Huffman data decodes to more than {limit} bytes")
            }
        }
    }
}

impl std::error::Error for HuffmanError {}

/// Codes `input`, as Teeworlds does (DDNet `CHuffman::Compress`).
pub fn compress(input: &[u8]) -> Vec<u8> {
    compress_with(input, true)
}

/// Codes `input` as DDNet does since 2026-05 (ddnet/ddnet 4354f8c664, "Avoid sometimes writing
/// trailing zero byte in huffman compression"): like [`compress`], without the last byte when
/// no bits are left over for it. Both decode alike.
pub fn compress_trimmed(input: &[u8]) -> Vec<u8> {
    compress_with(input, false)
}

fn compress_with(input: &[u8], pad: bool) -> Vec<u8> {
    let nodes = &tree().nodes;
    let mut out = Vec::with_capacity(input.len() / 2 + 4);
    let (mut bits, mut count) = (0u64, 0u32);
    let symbols = input.iter().map(|&byte| usize::from(byte)).chain([EOF]);
    for symbol in symbols {
        let node = nodes[symbol];
        bits |= u64::from(node.code) << count;
        count += node.len;
        while count >= 8 {
            out.push(bits as u8);
            bits >>= 8;
            count -= 8;
        }
    }
    // The bits left over, in one byte, even when there are none (unless trimmed).
    if pad || count != 0 {
        out.push(bits as u8);
    }
    out
}

/// Decodes `input` up to its end symbol, refusing to produce more than `limit` bytes; bytes
/// after the end symbol are ignored (DDNet `CHuffman::Decompress`).
pub fn decompress(input: &[u8], limit: usize) -> Result<Vec<u8>, HuffmanError> {
    let tree = tree();
    let mut out = Vec::with_capacity((input.len() * 2).min(limit));
    // Bits not used yet, lowest first, and how many.
    let (mut bits, mut count) = (0u64, 0u32);
    let mut bytes = input.iter();
    loop {
        while count <= 56 {
            match bytes.next() {
                Some(&byte) => {
                    bits |= u64::from(byte) << count;
                    count += 8;
                }
                None => break,
            }
        }
        let entry = tree.table[(bits & ((1 << TABLE_BITS) - 1)) as usize];
        let symbol = match entry {
            Entry::Symbol { symbol, len } => {
                if len > count {
                    return Err(HuffmanError::Truncated);
                }
                bits >>= len;
                count -= len;
                symbol
            }
            Entry::Inner(mut id) => {
                if count < TABLE_BITS {
                    return Err(HuffmanError::Truncated);
                }
                bits >>= TABLE_BITS;
                count -= TABLE_BITS;
                loop {
                    if count == 0 {
                        return Err(HuffmanError::Truncated);
                    }
                    id = tree.nodes[usize::from(id)].children[(bits & 1) as usize];
                    bits >>= 1;
                    count -= 1;
                    if usize::from(id) < SYMBOLS {
                        break id;
                    }
                }
            }
        };
        if usize::from(symbol) == EOF {
            return Ok(out);
        }
        if out.len() == limit {
            return Err(HuffmanError::TooLong { limit });
        }
        out.push(symbol as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_tree_is_complete() {
        let tree = tree();
        assert_eq!(tree.nodes.len(), 2 * SYMBOLS - 1);
        // Every code fits the 32 bits Teeworlds keeps it in, and the codes are a prefix code:
        // Kraft's sum of a full binary tree is exactly 1.
        let lens: Vec<u32> = tree.nodes[..SYMBOLS].iter().map(|node| node.len).collect();
        assert!(lens.iter().all(|&len| (1..=32).contains(&len)));
        let kraft: f64 = lens.iter().map(|&len| 0.5f64.powi(len as i32)).sum();
        assert!((kraft - 1.0).abs() < 1e-12);
        // Byte 0 (frequency 2^30) gets the shortest code.
        assert_eq!(lens[0], 1);
    }

    #[test]
    fn known_codes() {
        // Byte 0 is a single bit; the empty input is the end symbol and the byte of leftovers.
        let empty = compress(&[]);
        assert_eq!(decompress(&empty, 0).unwrap(), b"");
        let zeros = compress(&[0; 16]);
        // 16 one-bit codes and the end symbol fit a few bytes.
        assert!(zeros.len() <= 2 + empty.len());
        assert_eq!(decompress(&zeros, 16).unwrap(), [0; 16]);
    }

    #[test]
    fn errors() {
        let coded = compress(b"hello, teeworlds");
        assert_eq!(
            decompress(&coded[..coded.len() - 3], 100),
            Err(HuffmanError::Truncated)
        );
        assert_eq!(
            decompress(&coded, 4),
            Err(HuffmanError::TooLong { limit: 4 })
        );
        assert_eq!(decompress(&[], 4), Err(HuffmanError::Truncated));
        // Bytes after the end symbol do not matter.
        let mut longer = coded.clone();
        longer.extend([0xFF; 8]);
        assert_eq!(decompress(&longer, 100).unwrap(), b"hello, teeworlds");
    }

    proptest! {
        #[test]
        fn round_trip(input in prop::collection::vec(any::<u8>(), 0..2000)) {
            let coded = compress(&input);
            prop_assert_eq!(decompress(&coded, input.len()).unwrap(), input);
        }

        #[test]
        fn random_input_never_panics(input in prop::collection::vec(any::<u8>(), 0..200)) {
            if let Ok(out) = decompress(&input, 1000) {
                prop_assert!(out.len() <= 1000);
            }
        }
    }
}
