//! Demos: the header, the embedded map, the chunk stream, and its replay through the snapshot
//! codec (DDNet `src/engine/shared/demo.cpp`; the layouts are in [`crate::schema::demo`]).
//!
//! ```no_run
//! use twcodec::demo::Demo;
//!
//! let demo = Demo::open("match.demo")?;
//! println!("{} on {}", demo.header().net_version.to_string_lossy(), demo.map_name());
//! let map = demo.map()?; // the embedded map, through the map graph
//! for frame in demo.replay() {
//!     let frame = frame?;
//!     if let Some(snapshot) = &frame.snapshot {
//!         println!("tick {}: {} items, checksum {}", frame.tick, snapshot.len(), snapshot.checksum());
//!     }
//! }
//! # Ok::<(), twcodec::Error>(())
//! ```
//!
//! # Checks
//!
//! - [`Demo::from_bytes`]: the magic; versions 3 to 6 (others are unsupported); the header's
//!   strings NUL-terminated (DDNet's `CDemoHeader::Valid`); the timeline markers (version 4
//!   on) within the file; the map (`map_size` bytes) within the file. The map's CRC-32 and
//!   SHA-256 are compared with the header on request ([`Demo::map_crc_matches`],
//!   [`Demo::map_sha256_matches`]).
//! - [`Demo::chunks`]: every chunk header and payload within the file; a tick given as a
//!   difference only after a tick to add it to; ticks not negative.
//! - [`Chunk::ints`]: Huffman data that ends with its end symbol and decodes to at most 64 KiB,
//!   then whole packed ints (the checks of [`crate::huffman`] and [`crate::snap::packing`]).
//! - [`Demo::replay`]: a delta only after a snapshot to apply it to; every snapshot and delta
//!   valid and every delta applicable (the checks of [`crate::snap`]); every message chunk's
//!   payload decodes ([`Chunk::ints`]), as DDNet's demo player stops at one that does not.
//! - [`Chunk::message`] and [`Demo::messages`]: the message's header and fields
//!   (the checks of [`crate::netmsg`]); a message that does not decode is an error of its
//!   chunk, which [`Demo::messages`] reports before it goes on.
//!
//! Errors name the chunk (index and tick) and its byte offset in the file.

mod edit;
mod writer;

use std::path::Path;
use std::sync::Arc;

use binrw::io::Cursor;
use binrw::BinRead;
use bytes::Bytes;
use twcodec_schema::demo::{
    ChunkHeader, ChunkKind, DemoHeader, DemoStart, DemoVersion, TickValue, TimelineMarkers, MAGIC,
    TIMELINE_VERSION,
};

use crate::map::Map;
use crate::snap::{packing, Protocol, SizeTable, Snapshot, SnapshotDelta};
use crate::sniff::FileKind;
use crate::{Datafile, Error, ErrorKind, Limits, Location};

pub use edit::{CutSummary, DemoTime};
pub use writer::{DemoInfo, DemoWriter, KEYFRAME_INTERVAL};

/// Most bytes a chunk's payload decodes to (DDNet's buffers hold one snapshot, 64 KiB).
pub const MAX_CHUNK_DATA: usize = 64 * 1024;

/// Ticks per second of the game, in both protocols (DDNet `SERVER_TICK_SPEED`).
pub const TICKS_PER_SECOND: i32 = 50;

/// `ticks` in seconds.
pub fn ticks_to_seconds(ticks: i32) -> f64 {
    f64::from(ticks) / f64::from(TICKS_PER_SECOND)
}

/// A demo file: its header and markers, the map it embeds, and its chunks, read lazily.
#[derive(Debug, Clone)]
pub struct Demo {
    bytes: Bytes,
    start: DemoStart,
    /// Where the map is.
    map: std::ops::Range<usize>,
}

impl Demo {
    /// Reads a demo, copying the bytes.
    pub fn parse(bytes: &[u8]) -> Result<Demo, Error> {
        Demo::from_bytes(Bytes::copy_from_slice(bytes))
    }

    /// Reads a demo file; errors name the file.
    pub fn open(path: impl AsRef<Path>) -> Result<Demo, Error> {
        let path = path.as_ref();
        let limits = crate::Limits::DEFAULT;
        let bytes = crate::input::read_file(path, limits.max_file_size(), "Limits::max_file_size")?;
        Demo::from_bytes(bytes).map_err(|error| error.with_path(path))
    }

    /// Reads a demo from its bytes, checking its header (see the module docs).
    pub fn from_bytes(bytes: impl Into<Bytes>) -> Result<Demo, Error> {
        let bytes: Bytes = bytes.into();
        FileKind::check(&bytes, FileKind::Demo, "a demo")?;
        if !bytes.starts_with(&MAGIC[..bytes.len().min(MAGIC.len())]) || bytes.is_empty() {
            return Err(
                Error::malformed("not a demo: the file does not start with \"TWDEMO\\0\"").at(0),
            );
        }
        // The parts before the map, by version, so that a short file says which it cuts.
        let version = DemoVersion::read(&mut Cursor::new(&bytes[..])).map_or(0, |v| v.version);
        let mut end = 0;
        for (part, size, present) in [
            ("header", DemoHeader::SIZE, true),
            (
                "timeline markers",
                TimelineMarkers::SIZE,
                version >= TIMELINE_VERSION,
            ),
        ] {
            end += if present { size } else { 0 };
            if present && bytes.len() < end {
                return Err(Error::malformed(format!(
                    "the file ends inside the demo's {part} (bytes {:#x} to {end:#x}; the file \
                     has {})",
                    end - size,
                    bytes.len()
                ))
                .at(bytes.len()));
            }
        }
        let mut cursor = Cursor::new(&bytes[..]);
        let start = DemoStart::read(&mut cursor).map_err(|error| {
            let error = Error::from_binrw(error, "demo header");
            if error.kind() == ErrorKind::Unsupported {
                error.map_offset(|_| DemoHeader::VERSION_OFFSET as u64)
            } else {
                error
            }
        })?;
        let header = &start.header;
        for (name, at, terminated) in header.strings() {
            if !terminated {
                return Err(
                    Error::malformed(format!("demo header: {name} is not NUL-terminated")).at(at),
                );
            }
        }
        let map_start = cursor.position() as usize;
        let left = bytes.len() - map_start;
        let map_size = header.map_size as usize;
        if map_size > left {
            return Err(Error::malformed(format!(
                "demo header: map_size {map_size} is larger than the {left} bytes after the header"
            ))
            .at(DemoHeader::MAP_SIZE_OFFSET));
        }
        let map = map_start..map_start + map_size;
        Ok(Demo { bytes, start, map })
    }

    /// The header.
    pub fn header(&self) -> &DemoHeader {
        &self.start.header
    }

    /// The demo version (3 to 6).
    pub fn version(&self) -> u8 {
        self.start.header.version
    }

    /// The map's name.
    pub fn map_name(&self) -> String {
        self.start.header.map_name.to_string_lossy()
    }

    /// The ticks of the timeline markers (version 4 on; none before).
    pub fn timeline_markers(&self) -> &[i32] {
        self.start
            .timeline
            .as_ref()
            .map_or(&[], |markers| markers.used())
    }

    /// The map's SHA-256 as the header gives it (DDNet's extension, version 6).
    pub fn header_sha256(&self) -> Option<[u8; 32]> {
        self.start.sha256.map(|extension| extension.sha256)
    }

    /// The protocol of the recording, from the net version: Teeworlds 0.7 when it starts with
    /// `0.7`, else 0.6/DDNet.
    pub fn protocol(&self) -> Protocol {
        protocol_of(&self.start.header)
    }

    /// The embedded map's bytes (empty when the demo embeds none).
    pub fn map_bytes(&self) -> Bytes {
        self.bytes.slice(self.map.clone())
    }

    /// Writes the embedded map's bytes to a file, as [`crate::fs::save`] does (feature `fs`).
    #[cfg(feature = "fs")]
    pub fn save_map(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        crate::fs::save(path, &self.map_bytes())
    }

    /// Byte offset of the map in the file.
    pub fn map_offset(&self) -> usize {
        self.map.start
    }

    /// The embedded map as a datafile, under the default [`Limits`].
    pub fn map_datafile(&self) -> Result<Datafile, Error> {
        self.map_datafile_with(Limits::DEFAULT)
    }

    /// The embedded map as a datafile, under `limits`; error offsets are in the demo file.
    pub fn map_datafile_with(&self, limits: Limits) -> Result<Datafile, Error> {
        Datafile::from_bytes_with(self.map_bytes(), limits)
            .map_err(|error| error.map_offset(|at| at + self.map.start as u64))
    }

    /// The embedded map, through the map graph, under the default [`Limits`].
    pub fn map(&self) -> Result<Map, Error> {
        self.map_with(Limits::DEFAULT)
    }

    /// The embedded map, through the map graph, under `limits`: what a demo from a stranger
    /// can make the resolver inflate.
    pub fn map_with(&self, limits: Limits) -> Result<Map, Error> {
        Map::from_datafile(&self.map_datafile_with(limits)?)
    }

    /// Whether the map's CRC-32 is the one in the header.
    pub fn map_crc_matches(&self) -> bool {
        crc32fast::hash(&self.bytes[self.map.clone()]) == self.start.header.map_crc
    }

    /// The map's SHA-256 (feature `hashing`).
    #[cfg(feature = "hashing")]
    pub fn map_sha256(&self) -> [u8; 32] {
        sha256(&self.bytes[self.map.clone()])
    }

    /// Whether the map's SHA-256 is the one in the header, when the header gives one (feature
    /// `hashing`).
    #[cfg(feature = "hashing")]
    pub fn map_sha256_matches(&self) -> Option<bool> {
        self.header_sha256()
            .map(|sha256| sha256 == self.map_sha256())
    }

    /// Byte offset of the first chunk.
    pub fn chunks_offset(&self) -> usize {
        self.map.end
    }

    /// The chunks, read one by one; after an error the iterator ends.
    pub fn chunks(&self) -> Chunks<'_> {
        Chunks {
            demo: self,
            pos: self.map.end,
            index: 0,
            tick: None,
            failed: false,
        }
    }

    /// The messages the demo recorded, decoded in the protocol the net version names, with the
    /// chunk of each; a message that does not decode gives its error and the next one follows
    /// ([`DemoMessages`]).
    pub fn messages(&self) -> DemoMessages<'_> {
        DemoMessages::new(self.chunks(), self.protocol().into())
    }

    /// The snapshot at every tick, in the protocol the net version names.
    pub fn replay(&self) -> Replay<'_> {
        self.replay_with(self.protocol().sizes())
    }

    /// The snapshot at every tick, for a protocol with pre-agreed `sizes` (mods).
    pub fn replay_with(&self, sizes: SizeTable) -> Replay<'_> {
        Replay {
            chunks: self.chunks(),
            sizes,
            snapshot: None,
            frame: None,
            done: false,
        }
    }
}

/// The protocol a header's net version names: Teeworlds 0.7 when it starts with `0.7`, else
/// 0.6/DDNet.
pub(crate) fn protocol_of(header: &DemoHeader) -> Protocol {
    if header.net_version.bytes().starts_with(b"0.7") {
        Protocol::Teeworlds07
    } else {
        Protocol::Ddnet06
    }
}

/// SHA-256 of a map's bytes (feature `hashing`).
#[cfg(feature = "hashing")]
pub(crate) fn sha256(map: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(map).into()
}

/// A chunk of a demo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// Index among the demo's chunks.
    pub index: usize,
    /// Byte offset in the file.
    pub offset: usize,
    /// The tick of the last tick marker (this one's, for a tick marker); none before the first.
    pub tick: Option<i32>,
    /// The chunk's header, as stored.
    pub header: ChunkHeader,
    /// What the chunk is.
    pub content: ChunkContent<'a>,
}

/// What a chunk is, with its payload (Huffman-coded packed ints) for the data chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChunkContent<'a> {
    /// The start of a tick.
    TickMarker {
        /// Whether a full snapshot follows.
        keyframe: bool,
    },
    /// A full snapshot.
    Snapshot(&'a [u8]),
    /// A delta against the snapshot before.
    Delta(&'a [u8]),
    /// A message the client received.
    Message(&'a [u8]),
    /// A chunk of type 0, which no writer uses.
    Unknown(&'a [u8]),
}

impl<'a> Chunk<'a> {
    /// The payload of a data chunk.
    pub fn payload(&self) -> Option<&'a [u8]> {
        match self.content {
            ChunkContent::TickMarker { .. } => None,
            ChunkContent::Snapshot(payload)
            | ChunkContent::Delta(payload)
            | ChunkContent::Message(payload)
            | ChunkContent::Unknown(payload) => Some(payload),
        }
    }

    /// The ints of a data chunk: its payload Huffman-decoded, then unpacked (empty for a tick
    /// marker).
    pub fn ints(&self) -> Result<Vec<i32>, Error> {
        let Some(payload) = self.payload() else {
            return Ok(Vec::new());
        };
        let what = self.kind_name();
        let packed = crate::huffman::decompress(payload, MAX_CHUNK_DATA)
            .map_err(|error| self.error(format!("{what}: {error}")))?;
        packing::unpack_ints(&packed).map_err(|error| self.error(format!("{what}: {error}")))
    }

    /// What the chunk is, in words: `tick marker`, `snapshot`, `delta`, `message`, `chunk of
    /// type 0`.
    pub fn kind_name(&self) -> &'static str {
        match self.content {
            ChunkContent::TickMarker { .. } => "tick marker",
            ChunkContent::Snapshot(_) => "snapshot",
            ChunkContent::Delta(_) => "delta",
            ChunkContent::Message(_) => "message",
            ChunkContent::Unknown(_) => "chunk of type 0",
        }
    }

    /// A message's bytes: the payload's ints as 4 little-endian bytes each, as the client
    /// wrote them (padded with zeros to a multiple of 4).
    pub fn message_bytes(&self) -> Result<Vec<u8>, Error> {
        Ok(crate::snap::ints_to_bytes(&self.ints()?))
    }

    /// The message of a message chunk, decoded in `protocol` ([`Demo::protocol`]) from its
    /// [`Chunk::message_bytes`], padding and all ([`crate::netmsg::decode_padded`]). Errors
    /// name the chunk, its tick and byte offset, and the message's field and byte.
    pub fn message(
        &self,
        protocol: impl Into<crate::netmsg::Protocol>,
    ) -> Result<crate::netmsg::NetMessage, Error> {
        if !matches!(self.content, ChunkContent::Message(_)) {
            return Err(self.error(format!("a {} is not a message", self.kind_name())));
        }
        crate::netmsg::decode_padded(&self.message_bytes()?, protocol.into())
            .map_err(|error| self.error(format!("message: {}", error.message())))
    }

    /// An error about this chunk.
    fn error(&self, message: impl Into<String>) -> Error {
        Error::malformed(message)
            .located(Location::Chunk {
                index: self.index,
                tick: self.tick,
            })
            .at(self.offset)
    }
}

/// The chunks of a demo ([`Demo::chunks`]).
#[derive(Debug, Clone)]
pub struct Chunks<'a> {
    demo: &'a Demo,
    pos: usize,
    index: usize,
    tick: Option<i32>,
    failed: bool,
}

impl<'a> Chunks<'a> {
    fn read(&mut self) -> Result<Chunk<'a>, Error> {
        let bytes = &self.demo.bytes[..];
        let offset = self.pos;
        let located = |message: String, tick| {
            Error::malformed(message)
                .located(Location::Chunk {
                    index: self.index,
                    tick,
                })
                .at(offset)
        };
        let mut cursor = Cursor::new(&bytes[offset..]);
        let version = self.demo.version();
        let header = ChunkHeader::read_options(&mut cursor, binrw::Endian::Big, (version,))
            .map_err(|_| located("the file ends inside the chunk header".into(), self.tick))?;
        let mut pos = offset + cursor.position() as usize;
        let content = match header {
            ChunkHeader::TickMarker { keyframe, tick, .. } => {
                let tick = match tick {
                    TickValue::Absolute(tick) => tick,
                    TickValue::Delta(delta) => match self.tick {
                        Some(last) => last.saturating_add(i32::from(delta)),
                        None => {
                            return Err(located(
                                format!("a tick marker adds {delta} to a tick before any tick"),
                                None,
                            ))
                        }
                    },
                };
                if tick < 0 {
                    return Err(located(format!("tick {tick} is negative"), self.tick));
                }
                self.tick = Some(tick);
                ChunkContent::TickMarker { keyframe }
            }
            ChunkHeader::Data { kind, size, .. } => {
                let size = usize::from(size);
                let left = bytes.len() - pos;
                let payload = bytes.get(pos..pos + size).ok_or_else(|| {
                    located(
                        format!(
                            "the chunk's {size} bytes run past the end of the file ({left} left)"
                        ),
                        self.tick,
                    )
                })?;
                pos += size;
                match kind {
                    ChunkKind::Snapshot => ChunkContent::Snapshot(payload),
                    ChunkKind::Delta => ChunkContent::Delta(payload),
                    ChunkKind::Message => ChunkContent::Message(payload),
                    ChunkKind::Unknown => ChunkContent::Unknown(payload),
                }
            }
        };
        self.pos = pos;
        let chunk = Chunk {
            index: self.index,
            offset,
            tick: self.tick,
            header,
            content,
        };
        self.index += 1;
        Ok(chunk)
    }
}

impl<'a> Iterator for Chunks<'a> {
    type Item = Result<Chunk<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.demo.bytes.len() {
            return None;
        }
        let chunk = self.read();
        self.failed = chunk.is_err();
        Some(chunk)
    }
}

impl std::iter::FusedIterator for Chunks<'_> {}

/// How a tick's snapshot came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Update {
    /// A full snapshot chunk.
    Full,
    /// A delta against the snapshot before.
    Delta,
    /// No snapshot chunk: the snapshot before still holds (DDNet records no empty deltas).
    Unchanged,
}

/// One tick of a replay: its snapshot and the messages recorded in it.
#[derive(Debug, Clone)]
pub struct Frame<'a> {
    /// The tick.
    pub tick: i32,
    /// Whether the tick marker flags a keyframe.
    pub keyframe: bool,
    /// How the snapshot came about.
    pub update: Update,
    /// The snapshot at this tick (none before the first snapshot).
    pub snapshot: Option<Arc<Snapshot>>,
    /// The message chunks recorded in this tick, not decoded: [`Chunk::message`] decodes one,
    /// [`Chunk::message_bytes`] gives its bytes. (Decoded, a message can take 32 times its chunk, and a tick can hold any
    /// number of them.)
    pub messages: Vec<Chunk<'a>>,
    /// Index of the tick marker chunk.
    pub chunk: usize,
}

/// A demo replayed tick by tick ([`Demo::replay`]); after an error the iterator ends.
#[derive(Debug)]
pub struct Replay<'a> {
    chunks: Chunks<'a>,
    sizes: SizeTable,
    snapshot: Option<Arc<Snapshot>>,
    /// The tick being read.
    frame: Option<Frame<'a>>,
    done: bool,
}

impl<'a> Replay<'a> {
    /// Reads chunks until a tick is complete.
    fn advance(&mut self) -> Result<Option<Frame<'a>>, Error> {
        for chunk in self.chunks.by_ref() {
            let chunk = chunk?;
            if let ChunkContent::TickMarker { keyframe } = chunk.content {
                let next = Frame {
                    tick: chunk.tick.unwrap_or_default(),
                    keyframe,
                    update: Update::Unchanged,
                    snapshot: self.snapshot.clone(),
                    messages: Vec::new(),
                    chunk: chunk.index,
                };
                if let Some(done) = self.frame.replace(next) {
                    return Ok(Some(done));
                }
                continue;
            }
            let Some(frame) = self.frame.as_mut() else {
                return Err(chunk.error("a data chunk before the first tick marker"));
            };
            match chunk.content {
                ChunkContent::Snapshot(_) => {
                    let snapshot = Snapshot::from_ints(&chunk.ints()?)
                        .map_err(|error| chunk_error(&chunk, "snapshot", error))?;
                    frame.update = Update::Full;
                    self.snapshot = Some(Arc::new(snapshot));
                }
                ChunkContent::Delta(_) => {
                    let Some(base) = &self.snapshot else {
                        return Err(
                            chunk.error("a delta with no snapshot before it to apply it to")
                        );
                    };
                    let delta = SnapshotDelta::from_ints(&chunk.ints()?, &self.sizes)
                        .map_err(|error| chunk_error(&chunk, "delta", error))?;
                    frame.update = Update::Delta;
                    // An empty delta (3 bytes in a file) keeps the snapshot it applies to:
                    // shared, not rebuilt.
                    if !delta.is_empty() {
                        let snapshot = base
                            .apply(&delta)
                            .map_err(|error| chunk_error(&chunk, "delta", error))?;
                        self.snapshot = Some(Arc::new(snapshot));
                    }
                }
                ChunkContent::Message(_) => {
                    // Decoded to check it (as DDNet's player does, which stops at a message
                    // that does not decode), then dropped: frames keep messages undecoded.
                    chunk.ints()?;
                    frame.messages.push(chunk);
                }
                ChunkContent::Unknown(_) | ChunkContent::TickMarker { .. } => {}
            }
            frame.snapshot.clone_from(&self.snapshot);
        }
        Ok(self.frame.take())
    }
}

/// An error of the snapshot codec about a chunk's contents, placed at the chunk.
fn chunk_error(chunk: &Chunk<'_>, what: &str, error: Error) -> Error {
    let kind = error.kind();
    // The inner offset counts bytes of the payload's ints, not of the file.
    let inner = match error.offset() {
        Some(at) => format!("{} (byte {at:#x} of its ints)", error.message()),
        None => error.message().to_string(),
    };
    let error = chunk.error(format!("{what}: {inner}"));
    if kind == ErrorKind::LimitExceeded {
        Error::limit(error.message())
            .located(Location::Chunk {
                index: chunk.index,
                tick: chunk.tick,
            })
            .at(chunk.offset)
    } else {
        error
    }
}

impl<'a> Iterator for Replay<'a> {
    type Item = Result<Frame<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let frame = self.advance().transpose();
        self.done = !matches!(frame, Some(Ok(_)));
        frame
    }
}

impl std::iter::FusedIterator for Replay<'_> {}

/// A message of a demo ([`Demo::messages`]): the chunk it was recorded in
/// (index, tick, byte offset) and the message.
#[derive(Debug, Clone)]
pub struct DemoMessage<'a> {
    /// The message chunk.
    pub chunk: Chunk<'a>,
    /// The message.
    pub message: crate::netmsg::NetMessage,
}

/// The messages of a demo, decoded ([`Demo::messages`]).
///
/// Lenient: a message chunk that does not decode gives its error and the iterator goes on
/// with the next chunk; a chunk that does not read (a broken chunk header or a payload past
/// the end of the file) gives its error and ends it, as the chunks after it cannot be found.
/// Collect into a `Result` to stop at the first error instead.
#[derive(Debug, Clone)]
pub struct DemoMessages<'a> {
    chunks: Chunks<'a>,
    protocol: crate::netmsg::Protocol,
}

impl<'a> DemoMessages<'a> {
    pub(crate) fn new(chunks: Chunks<'a>, protocol: crate::netmsg::Protocol) -> DemoMessages<'a> {
        DemoMessages { chunks, protocol }
    }
}

impl<'a> Iterator for DemoMessages<'a> {
    type Item = Result<DemoMessage<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        for chunk in self.chunks.by_ref() {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(error) => return Some(Err(error)),
            };
            if let ChunkContent::Message(_) = chunk.content {
                return Some(
                    chunk
                        .message(self.protocol)
                        .map(|message| DemoMessage { chunk, message }),
                );
            }
        }
        None
    }
}

impl std::iter::FusedIterator for DemoMessages<'_> {}
