//! On-disk types of the Teeworlds and DDNet binary formats, as [`binrw`] derives.
//!
//! This crate knows layouts and versions and nothing else: it never follows an index and never
//! decides what to do about a broken file. The `twcodec` crate builds the checked reader, the
//! map graph and the writers on top of it.
//!
//! | spec section | module |
//! |---|---|
//! | datafile.md: version header, header, item types, offsets, items, data | [`datafile`] |
//! | docs/format-notes.md, "UUID item types": UUID item types, UUID index items | [`uuid`] |
//! | map.md: every map item, tile and shared type | [`map`] and its modules |
//! | docs/format-notes.md, "UUID item types"; map.md: big-endian values in i32s | [`packing`] |
//! | snapshot.md: snapshots, deltas, pre-agreed sizes | [`snapshot`] |
//! | snapshot.md, appendix; DDNet and Teeworlds `datasrc/network.py`: snapshot objects | [`netobj`] |
//! | DDNet `demo.h`/`demo.cpp`: demo header, markers, SHA-256 extension, chunk headers | [`demo`] |
//! | docs/format-notes.md, "Teehistorian"; DDNet `teehistorian.cpp`: the magic, records, extension payloads | [`teehistorian`] |
//! | DDNet `src/engine/client/ghost.h`/`ghost.cpp`: ghost header, chunk headers, skin and character items | [`ghost`] |
//! | docs/format-notes.md, "Messages": game and system messages, their registry | [`netmsg`] |
//! | docs/format-notes.md, "0.7 network framing"; DDNet and Teeworlds `network.h`/`network.cpp`: 0.6/DDNet and 0.7 packet and chunk headers | [`packet`] |
//! | open value sets (curve types, image formats, weapons...): newtypes with a constant per known value | [`open_enum`] |
//! | the format reference (`docs/format/`), read from these modules' binrw attributes | [`reference`](mod@reference) |
//!
//! Two features, both on by default: `serde`, serde serialization of every type, for dumps and
//! JSON; and `reference`, the format reference ([`reference`](mod@reference), and the kinds'
//! `describe()`), which a program that only reads and writes does not need. Without them a
//! program that uses this crate builds 18 crates besides its own (binrw, bytemuck,
//! modular-bitfield, uuid, md5 and their macros).
//!
//! Errors that the layout itself defines (bad magic, unsupported version, item sizes) are
//! [`SchemaError`]s carried inside binrw's error.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The code #[describe] generates names this crate by its path, also from inside it.
extern crate self as twcodec_schema;

// The generator of the four registries of types; first, so that their modules see it.
#[macro_use]
mod registry;

pub mod datafile;
pub mod demo;
mod error;
pub mod ghost;
pub mod map;
pub mod netmsg;
pub mod netobj;
pub mod open_enum;
pub mod packet;
pub mod packing;
#[cfg(feature = "reference")]
pub mod reference;
pub mod snapshot;
pub mod teehistorian;
pub mod uuid;

pub use error::SchemaError;
