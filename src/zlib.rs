//! zlib streams of version-4 data items.
//!
//! A data item declares its uncompressed size, so it is inflated in one shot into a buffer of
//! exactly that size, by libdeflate (`libdeflater`, C built with `cc`). Measured on every data
//! item of the corpus, one thread, each decoder into a buffer of the declared size, libdeflate
//! alone took 1.35-1.5x less time than zlib-rs (flate2, with AVX2) and miniz_oxide, 1.7x less
//! than zune-inflate and fdeflate; `benches/map.rs` (`load_all/*`, `per_map/*`) keeps the
//! comparison with flate2. Anything libdeflate refuses is inflated again by zlib (flate2,
//! zlib-rs backend), which names what is wrong, so errors read as zlib's; flate2 also
//! compresses.
//!
//! libdeflate accepts a little more than zlib: a distance code of a single one-bit codeword may
//! use either bit (zlib refuses `1`). The Adler-32 checksum still holds, so the data is what was
//! compressed; no zlib writer emits such a code.
//!
//! Before anything is allocated, a declaration that the stored bytes cannot possibly inflate to
//! is refused (at most 1032 bytes per stored byte). The buffer is allocated zeroed (calloc),
//! which maps a large buffer fresh: a lying declaration costs address space but little memory,
//! since pages the stream never writes are never touched, and nothing is written past the
//! declared size.

#[cfg(feature = "libdeflate")]
use std::cell::RefCell;
use std::io::Write;

use flate2::{Compression, Decompress, FlushDecompress, Status};

/// Deflate emits at most 258 bytes for 2 bits of input (a length and a distance code of one bit
/// each), so no stream inflates to more than 1032 times its size.
pub const MAX_INFLATE_RATIO: usize = 1032;

/// Why a zlib stream could not be inflated to its declared size.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)]
pub enum InflateError {
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
/// One zeroed allocation of `declared` bytes, filled by libdeflate; when libdeflate refuses the
/// stream, zlib inflates it again into the same buffer and says why.
pub fn inflate(stored: &[u8], declared: usize) -> Result<Vec<u8>, InflateError> {
    if declared > stored.len().saturating_mul(MAX_INFLATE_RATIO) {
        return Err(InflateError::Impossible {
            declared,
            stored: stored.len(),
        });
    }
    // calloc: a large buffer is mapped fresh, its pages untouched until the stream writes them.
    let mut out = bytemuck::allocation::try_zeroed_vec::<u8>(declared)
        .map_err(|()| InflateError::Alloc { declared })?;
    if !inflate_fast(stored, &mut out) {
        inflate_zlib(stored, &mut out)?;
    }
    Ok(out)
}

/// Padding after the stored bytes: libdeflate decodes with its fast loop only while at least 25
/// bytes of input remain (one refill of every field of a match), and runs the rest of the
/// stream through a loop that copies byte by byte. Map data ends in long runs of empty tiles
/// coded in the last few bytes, which that loop took up to 70 us per data item to write.
#[cfg(feature = "libdeflate")]
const PADDING: usize = 32;

/// Stored streams up to this size are padded, in a buffer kept per thread. Past it, the end of
/// the stream is a small part of the work, not worth copying the stream for.
#[cfg(feature = "libdeflate")]
const MAX_PADDED: usize = 64 << 10;

#[cfg(feature = "libdeflate")]
thread_local! {
    /// libdeflate's decompressor (about 10 KiB of tables) and the buffer for padded streams,
    /// kept for the next data item.
    static LIBDEFLATE: RefCell<(libdeflater::Decompressor, Vec<u8>)> =
        RefCell::new((libdeflater::Decompressor::new(), Vec::new()));
}

/// Inflates `stored` into `out` with libdeflate: true when the stream inflates to exactly
/// `out.len()` bytes and is valid zlib, false for anything else (then [`inflate_zlib`] says
/// what).
///
/// Streams up to [`MAX_PADDED`] are read followed by [`PADDING`] bytes of `0xFF`, which gives
/// the same answer as the stored bytes alone. Where the deflate data ends at byte `e`, the
/// 4-byte Adler-32 checksum follows at `e`:
/// - `e + 4 <= len`: the stream and its checksum lie within the stored bytes, and libdeflate
///   reads the same bytes either way;
/// - `e + 4 >= len + 2`: the checksum's low half reads as `0xFFFF`, which no Adler-32 sum has
///   (each half is below 65521), so the stream is refused as it would be without padding;
/// - `e + 4 == len + 1`, a checksum cut by one byte: it would match if the missing byte were
///   `0xFF`. Then the sum of `out` is the stored bytes' last three followed by `0xFF`: that is
///   checked here, and sent to zlib.
///
/// The copy and the second sum cost far less than the byte-by-byte loop: on the corpus, all
/// data items inflate in about 0.85x the time of libdeflate reading the stored bytes alone.
#[cfg(feature = "libdeflate")]
fn inflate_fast(stored: &[u8], out: &mut [u8]) -> bool {
    // A thread being torn down has no thread-locals left: zlib inflates instead.
    LIBDEFLATE
        .try_with(|cell| {
            let Ok(mut state) = cell.try_borrow_mut() else {
                return false;
            };
            let (decompressor, padded) = &mut *state;
            let declared = out.len();
            let [.., b0, b1, a0] = *stored else {
                return false;
            };
            if stored.len() > MAX_PADDED {
                return decompressor.zlib_decompress(stored, out) == Ok(declared);
            }
            padded.clear();
            padded.extend_from_slice(stored);
            padded.resize(stored.len() + PADDING, 0xFF);
            decompressor.zlib_decompress(padded, out) == Ok(declared)
                && libdeflater::adler32(out) != u32::from_be_bytes([b0, b1, a0, 0xFF])
        })
        .unwrap_or(false)
}

/// Without libdeflate (feature `libdeflate` off), zlib inflates every stream.
#[cfg(not(feature = "libdeflate"))]
fn inflate_fast(_stored: &[u8], _out: &mut [u8]) -> bool {
    false
}

/// Inflates `stored` into `out` with zlib, and says what is wrong with the stream.
fn inflate_zlib(stored: &[u8], out: &mut [u8]) -> Result<(), InflateError> {
    let declared = out.len();
    let mut inflater = Decompress::new(true);
    loop {
        let (consumed, produced) = (inflater.total_in() as usize, inflater.total_out() as usize);
        let status = inflater
            .decompress(
                stored.get(consumed..).unwrap_or_default(),
                out.get_mut(produced..).unwrap_or_default(),
                FlushDecompress::Finish,
            )
            .map_err(|e| InflateError::Corrupt(e.to_string()))?;
        let now = inflater.total_out() as usize;
        match status {
            Status::StreamEnd if now == declared => return Ok(()),
            Status::StreamEnd => {
                return Err(InflateError::Short {
                    declared,
                    produced: now,
                })
            }
            Status::Ok | Status::BufError if now == declared => {
                return finish_at_capacity(&mut inflater, stored, declared)
            }
            Status::Ok | Status::BufError => {
                if (inflater.total_in() as usize, now) == (consumed, produced) {
                    return Err(InflateError::Truncated {
                        declared,
                        produced: now,
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
            .decompress(
                stored.get(consumed..).unwrap_or_default(),
                &mut probe,
                FlushDecompress::Finish,
            )
            .map_err(|e| InflateError::Corrupt(e.to_string()))?;
        if inflater.total_out() as usize > declared {
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

    /// 1 MiB of noise, so that 4 MiB is a possible declaration for it.
    fn noise(len: usize, seed: u32) -> Vec<u8> {
        let mut state = seed;
        (0..len)
            .map(|_| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (state >> 24) as u8
            })
            .collect()
    }

    /// What zlib alone says about `stored` declared as `declared` bytes.
    fn zlib_alone(stored: &[u8], declared: usize) -> Result<Vec<u8>, InflateError> {
        let mut out = vec![0; declared];
        inflate_zlib(stored, &mut out).map(|()| out)
    }

    #[test]
    fn round_trip() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let stored = deflate(&data, 6);
        // libdeflate reads it when it is there; zlib alone otherwise.
        assert_eq!(
            inflate_fast(&stored, &mut vec![0; data.len()]),
            cfg!(feature = "libdeflate")
        );
        assert_eq!(inflate(&stored, data.len()).unwrap(), data);
        let empty = deflate(&[], 6);
        assert_eq!(inflate(&empty, 0).unwrap(), Vec::<u8>::new());
        // 4 MiB of zeros in about 4 KiB: what the padding is for.
        let zeros = vec![0u8; 4 << 20];
        assert_eq!(inflate(&deflate(&zeros, 9), zeros.len()).unwrap(), zeros);
    }

    #[cfg(feature = "libdeflate")]
    #[test]
    fn long_streams_are_read_as_stored() {
        let data = noise(100_000, 3);
        let stored = deflate(&data, 6);
        assert!(stored.len() > MAX_PADDED);
        assert!(inflate_fast(&stored, &mut vec![0; data.len()]));
        assert_eq!(inflate(&stored, data.len()).unwrap(), data);
        for cut in [1, 4, 5, 1000] {
            let cut = &stored[..stored.len() - cut];
            assert_eq!(inflate(cut, data.len()), zlib_alone(cut, data.len()));
            assert!(inflate(cut, data.len()).is_err());
        }
    }

    #[test]
    fn a_declaration_the_stream_does_not_fill_is_refused() {
        let stored = deflate(&noise(1 << 20, 1), 9);
        assert_eq!(
            inflate(&stored, 4 << 20),
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

    #[test]
    fn a_checksum_cut_by_its_last_byte_is_refused() {
        // Data whose Adler-32 ends in 0xFF: cut by one byte, its stream followed by the padding
        // reads as whole. The sum check sends it to zlib, which finds it cut off.
        let data = (0..)
            .map(|seed| noise(3000, seed))
            .find(|data| libdeflater::adler32(data) & 0xFF == 0xFF)
            .unwrap();
        let stored = deflate(&data, 6);
        let cut = &stored[..stored.len() - 1];
        assert!(!inflate_fast(cut, &mut vec![0; data.len()]));
        assert_eq!(
            inflate(cut, data.len()),
            Err(InflateError::Truncated {
                declared: data.len(),
                produced: data.len()
            })
        );
    }

    #[test]
    fn libdeflate_and_zlib_agree_on_damaged_streams() {
        // Every cut, every flipped byte and a trailing byte after streams of literals, of
        // matches and of runs: inflate refuses what zlib alone refuses, with zlib's error, and
        // gives what zlib gives. Except where libdeflate accepts a little more than zlib: a
        // distance code of one codeword, which zlib reads only as `0` and libdeflate as `0` or
        // `1`; the checksum still holds, so the data is what was compressed.
        let mut data = noise(700, 7);
        data.extend(std::iter::repeat_n(0u8, 3000));
        data.extend((0..1200u32).map(|i| (i % 40) as u8));
        let mut more = 0;
        for (stored, original) in [
            (deflate(&data, 1), &data[..]),
            (deflate(&data, 9), &data[..]),
            (deflate(&data[..40], 6), &data[..40]),
        ] {
            let mut cases: Vec<Vec<u8>> = (0..stored.len())
                .map(|len| stored[..len].to_vec())
                .collect();
            for at in 0..stored.len() {
                for flip in [0x01, 0x80, 0xFF] {
                    let mut damaged = stored.clone();
                    damaged[at] ^= flip;
                    cases.push(damaged);
                }
            }
            cases.push([&stored[..], &[0]].concat());
            for case in &cases {
                let declared = original.len();
                for size in [declared - 1, declared, declared + 1] {
                    if size > case.len() * MAX_INFLATE_RATIO {
                        continue;
                    }
                    let (got, want) = (inflate(case, size), zlib_alone(case, size));
                    if got.is_ok() && want.is_err() {
                        assert_eq!(got.as_deref(), Ok(original));
                        more += 1;
                    } else {
                        assert!(
                            got == want,
                            "{} bytes declared as {size}: {:?}, zlib alone {:?}",
                            case.len(),
                            got.map(|out| out.len()),
                            want.map(|out| out.len())
                        );
                    }
                }
            }
        }
        assert!(more < 10, "libdeflate accepted {more} streams zlib refuses");
    }
}
