//! What the `twcodec` command does, as a library, built on the codec ([`twcodec`]): each
//! module is a tool a program can call as the command line does.
//!
//! | module | what it does |
//! |---|---|
//! | [`automap`] | DDNet's automapper rules read and applied to a tile layer, tile for tile as the editor does |
//! | [`check`] | how a map plays in DDNet (gameplay checks) and a project's rules for its maps (a TOML file), as findings in text, JSON or GitHub annotations |
//! | [`dump`] | what `twcodec` prints: datafiles, maps (a lazy serde tree, [`dump::MapView`], as text or JSON), snapshots, demos, messages, the format reference, `--for-diff` |
//! | [`diff`] | a semantic diff of two maps, by place, in the units people think in |
//! | [`render`] | draws a map as the game does, on the CPU, within a work budget |
//! | [`assets`] | a map's images and sounds as files (PNG, Opus) and back: extract, add, replace, embed |
//! | [`mapdir`] | the map directory form: `unpack` and `pack` (docs/mapdir.md) |
//! | [`scan`] | many files at once: a row per map, demo or ghost |
//! | [`export`] | a demo's snapshot objects as rows (JSONL, CSV) |
//! | [`ghost`] | a DDNet ghost's header and its characters as rows (JSONL, CSV) |
//! | [`chat`] | a demo's chat, joins, leaves and kills |
//! | [`teehistorian`] | DDNet teehistorian files: summary, records as JSON, an index over folders |
//!
//! The codec never names this crate: data flows from the codec to the tools, and from the
//! tools to the command line (`cli/`) and the Python bindings.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod assets;
pub mod automap;
pub mod chat;
pub mod check;
pub mod diff;
pub mod dump;
pub mod export;
pub mod ghost;
pub mod mapdir;
pub mod render;
pub mod scan;
pub mod teehistorian;
mod units;
pub mod visual_diff;

/// The name of `names` closest to `word`, for "did you mean" hints: by Jaro similarity above
/// 0.7, clap's own rule for its subcommands and flags. The command line uses it for the names
/// it takes as values.
pub fn nearest<'a, S: AsRef<str>>(word: &str, names: &'a [S]) -> Option<&'a str> {
    (names.iter())
        .map(|name| (strsim::jaro(word, name.as_ref()), name.as_ref()))
        .filter(|(similarity, _)| *similarity > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, name)| name)
}
