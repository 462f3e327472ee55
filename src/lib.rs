//! Read, write and explain the binary formats of Teeworlds and DDNet: datafiles, maps,
//! snapshots and snapshot deltas, demos, DDNet ghosts.
//!
//! # Quick start
//!
//! ```
//! use twcodec::map::LayerContent;
//! use twcodec::{Datafile, Map, MapForm};
//!
//! # let bytes = twcodec_testkit::sample::datafile();
//! // A map graph (or `Map::open("map.map")`): every item typed, every reference checked.
//! let mut map = Map::parse(&bytes)?;
//! for problem in map.problems() {
//!     println!("{:?}: {problem}", problem.severity);
//! }
//! let (game, tiles) = map.game_layer().expect("a game layer");
//! let grid = tiles.grid().expect("its tiles");
//! println!("game layer {}x{} in group {:?}", grid.width(), grid.height(), map.group_of(game));
//! for layer in map.layers() {
//!     if let LayerContent::Quads(quads) = layer.content() {
//!         println!("{} quads, image {:?}", quads.quads().map_or(0, |q| q.len()), layer.image(&map));
//!     }
//! }
//!
//! // Written back unmodified, it is the same file; converted, it is a Teeworlds 0.7 map.
//! assert_eq!(map.to_bytes()?, bytes);
//! map.convert(MapForm::Teeworlds07)?;
//! let seven = map.to_bytes()?;
//!
//! // The datafile layer underneath: items as ints, data inflated on request.
//! let df = Datafile::parse(&seven)?;
//! println!("version {} with {} items", df.version(), df.items().len());
//! # assert!(Map::parse(&seven)?.game_layer().is_some());
//! # Ok::<(), twcodec::Error>(())
//! ```
//!
//! # Loading: lazily, by layer, or everything
//!
//! ```
//! use twcodec::{Decode, LoadOptions, Map};
//!
//! # let bytes = twcodec_testkit::sample::datafile();
//! // Groups, layers, references and every check that needs no content, without inflating
//! // any tile data: for listing layers, reading settings, checking references.
//! let lazy = Map::parse_with(&bytes, Decode::Lazy)?;
//! let names: Vec<String> = lazy.layers().iter().map(|layer| layer.name()).collect();
//! // A layer's tiles are inflated, decoded and checked when first read (once, thread-safe).
//! let (_, game) = lazy.game_layer().expect("a game layer");
//! assert!(game.grid().is_some());
//! lazy.decode_all(); // the rest, in parallel; its problems join `lazy.problems()`
//! assert_eq!(lazy.problems(), Map::parse(&bytes)?.problems());
//!
//! // Everything at once, in parallel: tiles, quads, sources, image pixels and sound data.
//! let full = Map::parse_with(&bytes, Decode::All)?;
//! for image in full.images().iter().filter(|image| !image.is_external()) {
//!     let rgba = image.rgba8(&full)?; // RGBA8 whatever the stored format
//!     assert_eq!(rgba.bytes.len(), rgba.width * rgba.height * 4);
//! }
//! // Strict: the first error fails the load.
//! assert!(Map::parse_with(&bytes, LoadOptions::ALL.strict()).is_ok());
//! // Saved at a zlib level, every data item compressed anew.
//! let smallest = full.to_bytes_with(9)?;
//! # assert_eq!(Map::parse(&smallest)?.layers().len(), names.len());
//! # Ok::<(), twcodec::Error>(())
//! ```
//!
//! # Reading: one vocabulary
//!
//! Every type that reads says the same act with the same verb:
//!
//! | from | verb | [`Datafile`] | [`Map`] | [`demo::Demo`] | [`ghost::Ghost`] | [`snap::Snapshot`], [`snap::SnapshotDelta`] | [`packet::Packet7`] |
//! |---|---|---|---|---|---|---|---|
//! | a path (a regular file, read with a bound; errors name it) | `open` | yes | yes | yes | yes | yes (and a [`snap::Form`]) | |
//! | a borrowed slice (what it keeps, it copies) | `parse` | yes | yes | yes | yes | yes (and a form) | yes (borrows) |
//! | owned bytes, taken over without a copy | `from_bytes` | yes | yes | yes | yes | | |
//! | any of those with options | `…_with` | [`Limits`] | [`LoadOptions`] | | [`Limits`] | | |
//! | a lower layer's value or one encoding | `from_…` | | `from_datafile` | | | `from_ints`, `from_packed` | |
//!
//! Writing mirrors it: `to_bytes` (and `to_bytes_with`), `save(path)` (feature `fs`). Options
//! are structs with `Default`, constants for the common sets ([`LoadOptions::LAZY`],
//! [`Limits::DEFAULT`]) and builder methods ([`LoadOptions::strict`]); they are
//! `#[non_exhaustive]`, so that an option added later breaks no caller. Every fallible call
//! returns [`Result`], this crate's alias for `Result<T, Error>`.
//!
//! # Design
//!
//! Data flows one way through two layers:
//!
//! ```text
//! bytes --schema (binrw)--> raw items --reader checks--> Datafile --resolver--> Map
//! Map --map writer--> DatafileWriter --schema--> bytes
//! ```
//!
//! - [`schema`] (the `twcodec-schema` crate) describes every on-disk structure once, as binrw
//!   derives, for reading and writing. It knows layouts and versions, nothing else. Each
//!   map item type and layer type is its struct plus one registry line; the guide
//!   `docs/extending.md` works through adding an item version, a UUID item type and a layer
//!   type.
//! - [`Map`] is the map graph: the resolver ([`map`]'s `resolve` module, which lists every
//!   check) turns items into typed arenas with checked references ([`map::ItemRef`], which
//!   also check that they belong to the map); the map writer turns them back, losslessly, or
//!   converted between DDNet's and Teeworlds 0.7's form. [`map::edit`] adds and removes
//!   images, sounds, envelopes, groups and layers with every reference renumbered.
//! - [`Datafile`] reads through the schema piece by piece and checks every count against the
//!   length of the file before it sizes an allocation; its module doc lists every check.
//!   What real files contain (old size fields, trailing bytes, duplicate UUID index items) is
//!   accepted with a [`Warning`]. Data is decompressed lazily and capped by its declared size.
//! - [`DatafileWriter`] calculates every count, size and offset through the schema's
//!   `DatafileLayout`, and keeps unchanged data's stored bytes, so re-saving is lossless.
//! - [`snap`] reads and writes snapshots and snapshot deltas (unpacked ints, or the packed ints
//!   of the network and demos), creates and applies deltas as DDNet does, and checks DDNet's
//!   rules; the schema's snapshot layouts take the protocol's pre-agreed sizes as binrw args.
//!   `Snapshot::objects` decodes the items into the schema's object types (`netobj`).
//! - [`demo`] reads demos: the header and markers (schema), the embedded map (through
//!   [`Datafile`] and [`Map`]), the chunk stream (Huffman coding in [`huffman`]) and a replay
//!   of every tick through [`snap`]. [`packet`] reads Teeworlds 0.7 packets through the
//!   schema's packet, chunk and message headers, and their snapshot messages through the
//!   schema's message types. [`netmsg`] decodes game and system messages (chat, kills, 0.7 client info, ...)
//!   of both protocols, each type a schema struct plus one registry line.
//! - [`teehistorian`] (feature `serde`) reads DDNet's teehistorian files: the JSON header, then
//!   the records lazily, each checked against the file and written back to the same bytes.
//! - [`ghost`] reads DDNet ghosts (`.gho`): the header and chunk headers (schema), the items
//!   undone from their difference coding, and what DDNet's client makes of them; its
//!   [`ghost::GhostWriter`] writes them as DDNet's recorder does.
//! - Every failure is one [`Error`]: a kind, a message, the byte offset and the item when known.
//! - Nothing panics on any input. Every count and size is checked against the file before it
//!   sizes an allocation, and [`Limits`] bound what a small file may still ask for (a
//!   `LimitExceeded` error). Every entry point is fuzzed (the `fuzz/` targets).
//!
//! # The workspace
//!
//! This crate is the codec. What is built on it lives in crates of its own, so that a program
//! that reads maps compiles none of it, and so that the compiler keeps the layers apart (a
//! crate cannot name the crates that depend on it):
//!
//! - `twcodec-schema`: the format, and nothing else (re-exported here as [`schema`]).
//! - `twcodec` (this crate): datafile, map graph, resolver, writer, editor, snapshots, demos,
//!   packets, messages.
//! - `twcodec-tools`: the tools made of the codec: `dump` (what the command line prints, the
//!   map as a lazy serde tree), `diff`, `render` (a map drawn as the game does, on the CPU),
//!   `assets` (images and sounds as files), `mapdir` (a map as a directory of text files),
//!   `scan` (many files in parallel), `export`, `chat`, `units`.
//! - `twcodec-cli`: the `twcodec` command.
//! - `twcodec-testkit`: the built-in `sample` map, demo and snapshots, and the fuzz targets'
//!   bodies (which `cargo test` also runs over seeds and deterministic mutations).
//!
//! # Features
//!
//! All on by default; a parser needs none of them (`default-features = false`):
//!
//! - `parallel`: decoding, inflating and compressing in parallel (rayon).
//! - `libdeflate`: inflating data items of a known size with C libdeflate (a C compiler at
//!   build time); without it, zlib-rs alone.
//! - `fs`: saving files atomically, through a temporary file beside the target (module `fs` and the
//!   `save` methods).
//! - `hashing`: the SHA-256 of a demo's embedded map (`Demo::map_sha256`).
//! - `serde`: serde serialization of problems, snapshot objects and the schema's types.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod datafile;
pub mod demo;
mod error;
#[cfg(feature = "fs")]
pub mod fs;
pub mod ghost;
pub mod huffman;
pub mod input;
pub mod items;
pub mod limits;
pub mod map;
pub mod netmsg;
pub mod packet;
pub mod snap;
pub mod sniff;
#[cfg(feature = "serde")]
pub mod teehistorian;
pub mod write;
pub mod zlib;

pub use datafile::{Datafile, SizeFields};
pub use error::{Error, ErrorKind, Location, Warning, WarningKind};
pub use limits::Limits;
pub use map::{Decode, LoadMode, LoadOptions, Map, MapForm};
pub use twcodec_schema as schema;
pub use twcodec_schema::datafile::Version;
pub use twcodec_schema::uuid::Uuid;
pub use write::{DatafileWriter, DEFAULT_COMPRESSION_LEVEL};

/// What every fallible call of the crate returns: a value or an [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The examples of the README and of the reference it links (`docs/library.md`,
/// `docs/reading.md`), compiled as doc tests (they use the default features: saving files, a
/// demo's map hash).
#[cfg(all(
    doctest,
    feature = "parallel",
    feature = "libdeflate",
    feature = "fs",
    feature = "hashing",
    feature = "serde"
))]
#[doc = include_str!("../README.md")]
#[doc = include_str!("../docs/library.md")]
#[doc = include_str!("../docs/reading.md")]
pub struct ReadmeDoctests;
