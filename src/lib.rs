//! Read, write and explain the binary formats of Teeworlds and DDNet.
//!
//! # Quick start
//!
//! ```
//! use twcodec::{Datafile, DatafileWriter};
//!
//! # let bytes = twcodec::sample::datafile();
//! // Parse a datafile (or `Datafile::open("map.map")`): every count, offset and size is checked.
//! let df = Datafile::parse(&bytes)?;
//! println!("version {} with {} items", df.version(), df.items().len());
//! for warning in df.warnings() {
//!     println!("warning: {warning}");
//! }
//!
//! // Items by type, by (type, id), or by UUID for DDNet's UUID item types.
//! let layers = df.items_of_type(5);
//! let info = df.item(1, 0);
//! # assert_eq!(layers.len(), 1);
//! # assert!(info.is_some());
//!
//! // Data items are inflated on request, to exactly their declared size.
//! let tiles = df.data(5)?;
//! # assert_eq!(tiles.len(), 8 * 5 * 4);
//!
//! // Write it back: unchanged data keeps its compressed bytes, so this is byte-identical.
//! let mut out = Vec::new();
//! df.write(&mut out)?;
//! assert_eq!(out, bytes);
//!
//! // Or build a datafile, here a version-3 copy.
//! let v3 = DatafileWriter::from_datafile(&df).version(twcodec::Version::V3).to_vec()?;
//! assert_eq!(Datafile::parse(&v3)?.data(5)?, tiles);
//! # Ok::<(), twcodec::Error>(())
//! ```
//!
//! # Design
//!
//! Data flows one way through two layers:
//!
//! ```text
//! bytes --schema (binrw)--> raw items --reader checks--> Datafile --DatafileWriter--> bytes
//! ```
//!
//! - [`schema`] (the `twcodec-schema` crate) describes every on-disk structure once, as binrw
//!   derives, for reading and writing. It knows layouts and versions, nothing else.
//! - [`Datafile`] reads through the schema piece by piece and checks every count against the
//!   length of the file before it sizes an allocation; its module doc lists every check.
//!   What real files contain (old size fields, trailing bytes, duplicate UUID index items) is
//!   accepted with a [`Warning`]. Data is decompressed lazily and capped by its declared size.
//! - [`DatafileWriter`] calculates every count, size and offset through the schema's
//!   `DatafileLayout`, and keeps unchanged data's stored bytes, so re-saving is lossless.
//! - [`dump`] renders what the CLI prints; the CLI (`src/bin/twcodec.rs`) is a thin shell.
//! - Every failure is one [`Error`]: a kind, a message, the byte offset and the item when known.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod datafile;
pub mod dump;
mod error;
pub mod items;
pub mod map;
pub mod sample;
pub mod write;
mod zlib;

pub use datafile::{Datafile, SizeFields};
pub use error::{Error, ErrorKind, Location, Warning, WarningKind};
pub use map::{LoadMode, Map, MapForm};
pub use twcodec_schema as schema;
pub use twcodec_schema::datafile::Version;
pub use twcodec_schema::uuid::Uuid;
pub use write::{DatafileWriter, DEFAULT_COMPRESSION_LEVEL};

/// The README's examples, compiled as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
