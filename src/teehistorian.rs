//! Teehistorian files: DDNet's server-side record of a game (docs/format-notes.md,
//! "Teehistorian"; DDNet `src/game/server/teehistorian.cpp`; the layouts are in
//! [`crate::schema::teehistorian`]). Feature `serde`, as the header is JSON.
//!
//! ```no_run
//! use twcodec::teehistorian::Teehistorian;
//!
//! let th = Teehistorian::open("game.teehistorian")?;
//! println!("{:?} on {:?}", th.header_str("server_name"), th.header_str("map_name"));
//! for record in th.records() {
//!     let record = record?;
//!     println!("tick {} {}: {:?}", record.tick, record.record.kind(), record.record);
//! }
//! # Ok::<(), twcodec::Error>(())
//! ```
//!
//! # Checks
//!
//! - [`Teehistorian::from_bytes`]: the 16-byte magic (the UUID of `teehistorian@ddnet.tw`);
//!   a NUL that ends the header within [`Limits::max_string_bytes`] bytes; the header is a JSON
//!   object.
//! - [`Teehistorian::records`], lazily, record by record: the int that starts a record is 0 or
//!   more (a player diff) or one of the 11 kinds; every packed int whole, at most 5 bytes and
//!   in its shortest form (as DDNet writes it, so that every record writes back to its bytes);
//!   every string NUL-terminated within the file; every size (a message's, an extension's)
//!   and count (a console command's arguments) within what the file has left, so that nothing
//!   allocates more than the file's size; tick skips not negative and ticks within an `i32`;
//!   nothing after `FINISH`. A file may end without `FINISH` (a server that stopped
//!   recording abruptly leaves it so): the records end there.
//!
//! Errors name the record (index and tick) and its byte offset in the file. The records write
//! back to the same bytes ([`Record::write`]), extension records of unknown UUIDs and
//! payloads of known extensions that are not their known layout included: their bytes are
//! kept ([`Ex::data`](crate::schema::teehistorian::Ex)).

use std::path::Path;

use binrw::io::Cursor;
use binrw::{BinRead, Endian};
use bytes::Bytes;
use serde_json::{Map, Value};
use twcodec_schema::netmsg::VarInt;
use twcodec_schema::teehistorian::{ClientId, PlayerNew};
pub use twcodec_schema::teehistorian::{ExKind, ExPayload, Record, RecordKind, MAGIC, NAME};

use crate::sniff::FileKind;
use crate::{Error, Limits, Location};

/// A teehistorian file: its header, and its records, read lazily.
#[derive(Debug, Clone)]
pub struct Teehistorian {
    bytes: Bytes,
    /// Where the records start, after the header's NUL.
    records_start: usize,
    header: Map<String, Value>,
}

impl Teehistorian {
    /// Reads a teehistorian file, copying the bytes.
    pub fn parse(bytes: &[u8]) -> Result<Teehistorian, Error> {
        Teehistorian::from_bytes(Bytes::copy_from_slice(bytes))
    }

    /// Reads a teehistorian file from disk; errors name the file.
    pub fn open(path: impl AsRef<Path>) -> Result<Teehistorian, Error> {
        let path = path.as_ref();
        let limits = Limits::DEFAULT;
        let bytes = crate::input::read_file(path, limits.max_file_size(), "Limits::max_file_size")?;
        Teehistorian::from_bytes(bytes).map_err(|error| error.with_path(path))
    }

    /// Reads a teehistorian file from its bytes, checking its magic and header (see the
    /// module docs), with the default limits.
    pub fn from_bytes(bytes: impl Into<Bytes>) -> Result<Teehistorian, Error> {
        Teehistorian::from_bytes_with(bytes, Limits::DEFAULT)
    }

    /// Reads a teehistorian file from its bytes with `limits` (the header's length is held to
    /// [`Limits::max_string_bytes`]).
    pub fn from_bytes_with(bytes: impl Into<Bytes>, limits: Limits) -> Result<Teehistorian, Error> {
        let bytes: Bytes = bytes.into();
        FileKind::check(&bytes, FileKind::Teehistorian, "a teehistorian file")?;
        if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
            let what = if MAGIC.starts_with(&bytes) {
                format!("the file ends inside the magic ({} bytes)", bytes.len())
            } else {
                "the file does not start with the UUID of teehistorian@ddnet.tw \
                 (699db17b-8efb-34ff-b1d8-da6f60c15dd1)"
                    .to_string()
            };
            return Err(Error::malformed(format!("not a teehistorian file: {what}")).at(0));
        }
        let rest = &bytes[MAGIC.len()..];
        let max = limits.max_string_bytes();
        let nul = rest
            .iter()
            .take(max.saturating_add(1))
            .position(|&b| b == 0);
        let Some(len) = nul else {
            if rest.len() > max {
                return Err(Error::limit(format!(
                    "teehistorian header: no NUL ends it within {max} bytes \
                     (Limits::max_string_bytes)"
                ))
                .at(MAGIC.len()));
            }
            return Err(Error::malformed(format!(
                "teehistorian header: no NUL ends the JSON header before the end of the file \
                 ({} bytes)",
                bytes.len()
            ))
            .at(MAGIC.len()));
        };
        let text = &rest[..len];
        let header = match serde_json::from_slice::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(other) => {
                return Err(Error::malformed(format!(
                    "teehistorian header: the JSON is {}, not an object",
                    json_kind(&other)
                ))
                .at(MAGIC.len()))
            }
            Err(error) => {
                let at = line_column_offset(text, error.line(), error.column());
                return Err(Error::malformed(format!(
                    "teehistorian header: invalid JSON: {error}"
                ))
                .at(MAGIC.len() + at));
            }
        };
        Ok(Teehistorian {
            records_start: MAGIC.len() + len + 1,
            bytes,
            header,
        })
    }

    /// The whole file's bytes.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The header, a JSON object (DDNet `WriteHeader`: `comment`, `version`, `game_uuid`,
    /// `server_version`, `start_time`, `server_name`, `map_name`, `map_sha256`, `config`,
    /// `tuning`, `uuids`...; numbers are strings).
    pub fn header(&self) -> &Map<String, Value> {
        &self.header
    }

    /// The header's JSON text as stored.
    pub fn header_text(&self) -> &str {
        // Valid UTF-8: serde_json read it.
        std::str::from_utf8(&self.bytes[MAGIC.len()..self.records_start - 1]).unwrap_or("")
    }

    /// A string field of the header.
    pub fn header_str(&self, key: &str) -> Option<&str> {
        self.header.get(key)?.as_str()
    }

    /// Byte offset of the first record.
    pub fn records_offset(&self) -> usize {
        self.records_start
    }

    /// The records, lazily; an error ends them. The iterator shares the file's bytes (it
    /// holds no borrow of `self`).
    pub fn records(&self) -> Records {
        Records {
            bytes: self.bytes.clone(),
            pos: self.records_start,
            index: 0,
            tick: 0,
            last_cid: i32::MAX,
            done: false,
            finished: false,
        }
    }
}

/// What a JSON value is, in words.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The byte offset of serde_json's 1-based line and column in `text`.
fn line_column_offset(text: &[u8], line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].iter().position(|&b| b == b'\n') {
            Some(at) => start += at + 1,
            None => break,
        }
    }
    (start + column.saturating_sub(1)).min(text.len())
}

/// A record and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordAt {
    /// Index among the file's records.
    pub index: usize,
    /// Byte offset in the file.
    pub offset: usize,
    /// Its length in bytes.
    pub len: usize,
    /// The game tick it belongs to (0 before the first tick; see docs/format-notes.md,
    /// "Teehistorian", for how ticks are counted).
    pub tick: i32,
    /// The record.
    pub record: Record,
}

/// The records of a [`Teehistorian`], lazily; see the module docs for the checks.
#[derive(Debug, Clone)]
pub struct Records {
    bytes: Bytes,
    pos: usize,
    index: usize,
    tick: i32,
    /// The client id of the last player record of the current tick: a player record whose
    /// id is not above it starts the next tick. `i32::MAX` at the start (DDNet's writer lets
    /// the first player record start tick 1), -1 after a tick skip.
    last_cid: i32,
    done: bool,
    finished: bool,
}

impl Records {
    /// Whether a `FINISH` record was read.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// The tick of the last record read.
    pub fn tick(&self) -> i32 {
        self.tick
    }

    /// Byte offset of the next record.
    pub fn offset(&self) -> usize {
        self.pos
    }

    fn error(&self, error: Error) -> Error {
        error.located(Location::Record {
            index: self.index,
            tick: self.tick,
        })
    }

    fn next_record(&mut self) -> Result<RecordAt, Error> {
        let start = self.pos;
        let mut cursor = Cursor::new(&self.bytes[..]);
        cursor.set_position(start as u64);
        // The field readers are those of messages: here what they call the message is the
        // rest of the file.
        let located = |error: Error| {
            let message = error.message().replace("the message", "the file");
            Error::new(error.kind(), message).at(error.offset().unwrap_or(start as u64))
        };
        let VarInt(head) = VarInt::read_options(&mut cursor, Endian::Little, ())
            .map_err(|error| located(Error::from_binrw(error, "record")))?;
        let kind = RecordKind::of_head(head).ok_or_else(|| {
            Error::malformed(format!(
                "unknown record kind {head} (DDNet writes -1 to -11, or a client id)"
            ))
            .at(start)
        })?;
        let record = Record::read_fields(kind, head, &mut cursor)
            .map_err(|error| located(Error::from_binrw(error, kind.name())))?;
        let end = cursor.position() as usize;
        // Ticks: DDNet's `EnsureTickWrittenPlayerData` and `WriteTick`.
        match &record {
            Record::TickSkip(skip) => {
                let dt = skip.dt.0;
                if dt < 0 {
                    return Err(
                        Error::malformed(format!("tick_skip: dt {dt} is negative")).at(start)
                    );
                }
                self.tick = self
                    .tick
                    .checked_add(dt)
                    .and_then(|t| t.checked_add(1))
                    .ok_or_else(|| {
                        Error::malformed(format!(
                            "tick_skip: dt {dt} takes the tick past {}",
                            i32::MAX
                        ))
                        .at(start)
                    })?;
                self.last_cid = -1;
            }
            Record::PlayerDiff { cid, .. }
            | Record::PlayerNew(PlayerNew {
                cid: VarInt(cid), ..
            })
            | Record::PlayerOld(ClientId { cid: VarInt(cid) }) => {
                if *cid <= self.last_cid {
                    self.tick = self.tick.checked_add(1).ok_or_else(|| {
                        Error::malformed(format!("the tick passes {}", i32::MAX)).at(start)
                    })?;
                }
                self.last_cid = *cid;
            }
            _ => {}
        }
        Ok(RecordAt {
            index: self.index,
            offset: start,
            len: end - start,
            tick: self.tick,
            record,
        })
    }
}

impl Iterator for Records {
    type Item = Result<RecordAt, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.pos >= self.bytes.len() {
            self.done = true;
            return None;
        }
        if self.finished {
            self.done = true;
            let left = self.bytes.len() - self.pos;
            let error = Error::malformed(format!(
                "{left} bytes after the finish record (DDNet writes nothing after it)"
            ))
            .at(self.pos);
            return Some(Err(self.error(error)));
        }
        match self.next_record() {
            Ok(record) => {
                self.pos = record.offset + record.len;
                self.index += 1;
                self.finished = record.record.kind() == RecordKind::Finish;
                Some(Ok(record))
            }
            Err(error) => {
                self.done = true;
                Some(Err(self.error(error)))
            }
        }
    }
}

/// Writes teehistorian files: the magic and a header, then records (for tests and tools;
/// DDNet's own writer decides when to write which record, see docs/format-notes.md).
#[derive(Debug, Clone)]
pub struct TeehistorianWriter {
    out: Vec<u8>,
}

impl TeehistorianWriter {
    /// Starts a file with `header`, a JSON object (written compactly, as DDNet does).
    pub fn new(header: &Map<String, Value>) -> TeehistorianWriter {
        TeehistorianWriter::with_header_text(&Value::Object(header.clone()).to_string())
    }

    /// Starts a file with the header's JSON text as given (no NUL in it: the text is cut at
    /// one).
    pub fn with_header_text(text: &str) -> TeehistorianWriter {
        let mut out = MAGIC.to_vec();
        out.extend(text.bytes().take_while(|&b| b != 0));
        out.push(0);
        TeehistorianWriter { out }
    }

    /// Appends a record.
    pub fn record(&mut self, record: &Record) -> Result<&mut Self, Error> {
        record
            .write(&mut self.out)
            .map_err(|error| Error::from_binrw(error, record.kind().name()))?;
        Ok(self)
    }

    /// The bytes so far (a file without `FINISH`, as an unfinished recording is).
    pub fn bytes(&self) -> &[u8] {
        &self.out
    }

    /// Appends `FINISH` and gives the file's bytes.
    pub fn finish(mut self) -> Vec<u8> {
        // Writing a FINISH is one int.
        let _ = Record::Finish.write(&mut self.out);
        self.out
    }
}
