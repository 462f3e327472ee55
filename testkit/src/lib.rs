//! What twcodec's tests, benchmarks, examples and fuzz targets share: the built-in sample
//! map, snapshots and demo ([`sample`]), and with the `fuzz` feature the bodies of the fuzz
//! targets ([`fuzz`]), so that `cargo test` runs them too.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "fuzz")]
pub mod fuzz;
pub mod sample;
