//! Stable, readable renderings: what the CLI prints and what snapshot tests review.
//!
//! Every rendering writes to a writer as it goes (`&mut dyn Write`; give it a buffered one)
//! and returns the writer's error, if any: nothing is collected before it is printed, so the
//! dump of a map with a million envelope points holds one point at a time. [`to_string`]
//! collects a rendering into a string, for tests and small inputs.
//!
//! ```
//! use twcodec_tools::dump;
//!
//! let datafile = twcodec::Datafile::parse(&twcodec_testkit::sample::datafile())?;
//! let text = dump::to_string(|out| dump::info(&datafile, out));
//! assert!(text.starts_with("datafile version 4"));
//! // Or straight to standard output:
//! dump::info(&datafile, &mut std::io::stdout().lock())?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod datafile;
mod demo;
mod for_diff;
mod map;
mod map_view;
mod message;
mod schema;
mod snapshot;
mod text;

use std::io::{self, Write};

use serde::ser::{Serialize, SerializeSeq, Serializer};

pub use datafile::{decoded_items, info, items, type_name, TypeFilter};
pub use demo::{demo_info, demo_info_with, demo_messages, demo_ticks};
pub use for_diff::map_for_diff;
pub use map::{map_json, map_text, DumpOptions};
pub use map_view::MapView;
pub use message::{message_line, write_message};
pub use schema::{schema, schema_files, SchemaFormat, SchemaSelection, SCHEMA_COMMAND};
pub use snapshot::{delta_json, delta_text, snapshot_json, snapshot_text};

/// A rendering collected into a string (invalid UTF-8, which no rendering writes, replaced).
pub fn to_string<T>(render: impl FnOnce(&mut dyn Write) -> io::Result<T>) -> String {
    let mut out = Vec::new();
    // Writing into a vector fails only when it cannot grow, which aborts first.
    let _ = render(&mut out);
    match String::from_utf8(out) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    }
}

/// Ints separated by `separator`.
pub(super) fn write_ints(out: &mut dyn Write, ints: &[i32], separator: &str) -> io::Result<()> {
    for (i, int) in ints.iter().enumerate() {
        if i > 0 {
            out.write_all(separator.as_bytes())?;
        }
        write!(out, "{int}")?;
    }
    Ok(())
}

/// Ints separated by spaces, or `(empty)`.
pub(super) fn write_ints_line(out: &mut dyn Write, ints: &[i32]) -> io::Result<()> {
    if ints.is_empty() {
        return out.write_all(b"(empty)");
    }
    write_ints(out, ints, " ")
}

/// Hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A sequence serialized from a fresh iterator each time it is asked for.
pub(super) struct Lazy<F>(pub(super) F);

impl<F, I> Serialize for Lazy<F>
where
    F: Fn() -> I,
    I: Iterator,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for element in (self.0)() {
            seq.serialize_element(&element)?;
        }
        seq.end()
    }
}
