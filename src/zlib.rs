//! zlib streams of version-4 data items, through flate2 (pure-Rust zlib-rs backend).
//!
//! Inflating is capped by the declared size before anything is allocated: a declaration that
//! the stored bytes cannot possibly inflate to is refused, and the output buffer grows with what
//! the stream delivers, never past the declared size, so a zlib bomb stops there and a lying
//! declaration allocates little.

use std::io::Write;

use flate2::{Compression, Decompress, FlushDecompress, Status};

/// Deflate emits at most 258 bytes for 2 bits of input (a length and a distance code of one bit
/// each), so no stream inflates to more than 1032 times its size.
pub(crate) const MAX_INFLATE_RATIO: usize = 1032;

/// Why a zlib stream could not be inflated to its declared size.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum InflateError {
    /// The declared size is more than the stream can hold.
    #[error("declares {declared} uncompressed bytes, more than its {stored} stored bytes can inflate to")]
    Impossible { declared: usize, stored: usize },
    /// The declared size cannot be allocated.
    #[error("cannot allocate {declared} bytes for its uncompressed data")]
    Alloc { declared: usize },
    /// The stream is not valid zlib.
    #[error("zlib error: {0}")]
    Corrupt(String),
    /// The stream ends before producing the declared size.
    #[error("zlib stream inflates to {produced} bytes, but {declared} are declared")]
    Short { declared: usize, produced: usize },
    /// The stream produces more than the declared size.
    #[error("zlib stream inflates past its declared size of {declared} bytes")]
    Long { declared: usize },
    /// The stored bytes end before the stream does.
    #[error("zlib stream is cut off after {produced} of {declared} declared bytes")]
    Truncated { declared: usize, produced: usize },
}

/// Inflates `stored` (a zlib stream) into exactly `declared` bytes.
///
/// The buffer starts at what typical data inflates to and doubles as the stream delivers, never
/// past `declared`: a declaration that the stream does not back allocates little.
pub(crate) fn inflate(stored: &[u8], declared: usize) -> Result<Vec<u8>, InflateError> {
    if declared > stored.len().saturating_mul(MAX_INFLATE_RATIO) {
        return Err(InflateError::Impossible {
            declared,
            stored: stored.len(),
        });
    }
    let mut out = Vec::new();
    let initial = declared.min(stored.len().saturating_mul(8).max(1 << 16));
    out.try_reserve_exact(initial)
        .map_err(|_| InflateError::Alloc { declared })?;
    let mut inflater = Decompress::new(true);
    // `out` never grows past `declared`: decompress_vec writes into its spare capacity only.
    loop {
        let consumed = inflater.total_in() as usize;
        let before = (consumed, out.len());
        let status = inflater
            .decompress_vec(&stored[consumed..], &mut out, FlushDecompress::Finish)
            .map_err(|e| InflateError::Corrupt(e.to_string()))?;
        match status {
            Status::StreamEnd if out.len() == declared => return Ok(out),
            Status::StreamEnd => {
                return Err(InflateError::Short {
                    declared,
                    produced: out.len(),
                })
            }
            Status::Ok | Status::BufError if out.len() == declared => {
                return finish_at_capacity(&mut inflater, stored, declared).map(|()| out)
            }
            Status::Ok | Status::BufError if out.len() == out.capacity() => {
                let more = out.capacity().max(1).min(declared - out.len());
                out.try_reserve_exact(more)
                    .map_err(|_| InflateError::Alloc { declared })?;
            }
            Status::Ok | Status::BufError => {
                if (inflater.total_in() as usize, out.len()) == before {
                    return Err(InflateError::Truncated {
                        declared,
                        produced: out.len(),
                    });
                }
            }
        }
    }
}

/// The output is full: the stream must end without producing another byte.
fn finish_at_capacity(
    inflater: &mut Decompress,
    stored: &[u8],
    declared: usize,
) -> Result<(), InflateError> {
    let mut probe = [0u8; 1];
    loop {
        let consumed = inflater.total_in() as usize;
        let status = inflater
            .decompress(&stored[consumed..], &mut probe, FlushDecompress::Finish)
            .map_err(|e| InflateError::Corrupt(e.to_string()))?;
        let produced = inflater.total_out() as usize - declared;
        if produced > 0 {
            return Err(InflateError::Long { declared });
        }
        match status {
            Status::StreamEnd => return Ok(()),
            _ if inflater.total_in() as usize == consumed => {
                return Err(InflateError::Truncated {
                    declared,
                    produced: declared,
                })
            }
            _ => {}
        }
    }
}

/// Compresses `data` into a zlib stream at `level` (0..=9).
pub(crate) fn deflate(data: &[u8], level: u32) -> Vec<u8> {
    // A Vec sink cannot fail; the encoder only reports errors of its sink.
    let mut encoder = flate2::write::ZlibEncoder::new(
        Vec::with_capacity(data.len() / 4 + 64),
        Compression::new(level),
    );
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let stored = deflate(&data, 6);
        assert_eq!(inflate(&stored, data.len()).unwrap(), data);
        let empty = deflate(&[], 6);
        assert_eq!(inflate(&empty, 0).unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn the_buffer_grows_to_the_declared_size() {
        // 4 MiB of zeros stores in about 4 KiB: the buffer starts at 64 KiB and doubles.
        let zeros = vec![0u8; 4 << 20];
        let stored = deflate(&zeros, 9);
        let out = inflate(&stored, zeros.len()).unwrap();
        assert_eq!(out, zeros);
        // Declared 4 MiB but the stream holds 1 MiB (of noise, so that 4 MiB is possible): an
        // error, after a buffer of at most 2 MiB.
        let mut state = 1u32;
        let noise: Vec<u8> = (0..1 << 20)
            .map(|_| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (state >> 24) as u8
            })
            .collect();
        let short = deflate(&noise, 9);
        assert_eq!(
            inflate(&short, 4 << 20),
            Err(InflateError::Short {
                declared: 4 << 20,
                produced: 1 << 20
            })
        );
    }

    #[test]
    fn wrong_declared_sizes_are_refused() {
        let data = vec![7u8; 5000];
        let stored = deflate(&data, 6);
        assert_eq!(
            inflate(&stored, 4999),
            Err(InflateError::Long { declared: 4999 })
        );
        assert_eq!(
            inflate(&stored, 5001),
            Err(InflateError::Short {
                declared: 5001,
                produced: 5000
            })
        );
        assert_eq!(
            inflate(&stored, 1 << 30),
            Err(InflateError::Impossible {
                declared: 1 << 30,
                stored: stored.len()
            })
        );
        assert!(matches!(
            inflate(&stored[..stored.len() - 3], 5000),
            Err(InflateError::Truncated { .. })
        ));
        assert!(matches!(
            inflate(b"not zlib at all", 10),
            Err(InflateError::Corrupt(_))
        ));
    }
}
