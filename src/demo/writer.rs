//! Writing demos: [`Demo::write_to`] writes a demo back as it was read, and [`DemoWriter`]
//! records a new one (snapshots, deltas, messages, markers) as DDNet's recorder does
//! (`src/engine/shared/demo.cpp`, `CDemoRecorder`). Both go through the schema's types
//! ([`DemoStart`], [`ChunkHeader`]); docs/format-notes.md, "Demos", has the rules.

use std::io::{Seek, SeekFrom, Write};

use binrw::BinWrite;
use twcodec_schema::demo::{
    ChunkHeader, ChunkKind, DemoHeader, DemoStart, FixedString, Sha256Extension, TimelineMarkers,
    MAX_TIMELINE_MARKERS, SHA256_VERSION, TIMELINE_VERSION, VERSIONS,
};

use super::{Chunk, ChunkContent, Demo, MAX_CHUNK_DATA, TICKS_PER_SECOND};
use crate::snap::{packing, SizeTable, Snapshot, SnapshotDelta};
use crate::{Error, ErrorKind};

/// Ticks between keyframes: DDNet's recorder writes a full snapshot when the last one is more
/// than 5 seconds old (`CDemoRecorder::RecordSnapshot`).
pub const KEYFRAME_INTERVAL: i32 = 5 * TICKS_PER_SECOND;

/// An error of the output.
pub(crate) fn write_error(error: std::io::Error) -> Error {
    Error::new(ErrorKind::Io, format!("cannot write the demo: {error}")).caused_by(error)
}

/// A schema value written to `out`.
fn put<T>(out: &mut (impl Write + Seek), value: &T, args: T::Args<'_>) -> Result<(), Error>
where
    T: BinWrite,
{
    value
        .write_options(out, binrw::Endian::Big, args)
        .map_err(|error| match error {
            binrw::Error::Io(io) => write_error(io),
            other => Error::invalid_edit(format!("demo: {other}")),
        })
}

impl Demo {
    /// Writes the demo as it was read, through the schema's types: the header, markers and
    /// SHA-256 extension ([`DemoStart`]), the map, then every chunk's header
    /// ([`ChunkHeader`], every bit as read) and payload; bytes after the last chunk that
    /// reads (a recording cut short) follow as they are. An unmodified demo gives back its
    /// bytes.
    pub fn write_to(&self, out: &mut (impl Write + Seek)) -> Result<(), Error> {
        put(out, &self.start, ())?;
        out.write_all(&self.map_bytes()).map_err(write_error)?;
        let mut end = self.chunks_offset();
        for chunk in self.chunks().map_while(Result::ok) {
            write_chunk(out, self.version(), &chunk)?;
            end = chunk_end(&chunk);
        }
        out.write_all(&self.bytes[end..]).map_err(write_error)
    }

    /// The demo's bytes, written by [`Demo::write_to`].
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        let mut out = std::io::Cursor::new(Vec::with_capacity(self.bytes.len()));
        self.write_to(&mut out)?;
        Ok(out.into_inner())
    }

    /// The bytes after the last chunk that reads: empty for a demo whose recording ended
    /// normally; what a crash left of a chunk otherwise.
    pub fn tail(&self) -> &[u8] {
        let last = self.chunks().map_while(Result::ok).last();
        &self.bytes[last.map_or(self.chunks_offset(), |chunk| chunk_end(&chunk))..]
    }
}

/// Where a chunk ends in its demo.
fn chunk_end(chunk: &Chunk<'_>) -> usize {
    chunk.offset + chunk.header.size_in_bytes() + chunk.payload().map_or(0, <[u8]>::len)
}

/// A chunk as it was read.
fn write_chunk(out: &mut (impl Write + Seek), version: u8, chunk: &Chunk<'_>) -> Result<(), Error> {
    put(out, &chunk.header, (version,))?;
    if let Some(payload) = chunk.payload() {
        out.write_all(payload).map_err(write_error)?;
    }
    Ok(())
}

/// What a new demo's header says ([`DemoWriter::new`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoInfo {
    /// Demo version, 3 to 6 (DDNet writes 6; Teeworlds 0.7 writes 4 or 5).
    pub version: u8,
    /// The network protocol of the recording (`0.6 626fce9a778df4d4` for DDNet,
    /// `0.7 802f1be60a05665f` for Teeworlds 0.7); it decides how readers decode messages and
    /// which pre-agreed item sizes deltas use.
    pub net_version: String,
    /// Name of the map.
    pub map_name: String,
    /// `client` or `server`.
    pub kind: String,
    /// When recording started, as text (DDNet: `2026-11-28_10-42-00`).
    pub timestamp: String,
}

impl Default for DemoInfo {
    /// A DDNet client demo of version 6.
    fn default() -> DemoInfo {
        DemoInfo {
            version: 6,
            net_version: "0.6 626fce9a778df4d4".into(),
            map_name: String::new(),
            kind: "client".into(),
            timestamp: String::new(),
        }
    }
}

/// `text` in a fixed-size field with room for its NUL.
pub(crate) fn fixed<const N: usize>(field: &str, text: &str) -> Result<FixedString<N>, Error> {
    let bytes = text.as_bytes();
    if bytes.len() >= N || bytes.contains(&0) {
        return Err(Error::invalid_edit(format!(
            "demo header: the {field} {text:?} does not fit its {N}-byte field with its NUL \
             (at most {} bytes, no NUL)",
            N - 1
        )));
    }
    let mut field = [0u8; N];
    field[..bytes.len()].copy_from_slice(bytes);
    Ok(FixedString(field))
}

impl DemoInfo {
    /// The header of a demo of `map` (its size and CRC-32), length 0 until the recording
    /// stops.
    fn start(&self, map: &[u8], sha256: Option<[u8; 32]>) -> Result<DemoStart, Error> {
        if !VERSIONS.contains(&self.version) {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!("demo version {} (twcodec writes 3 to 6)", self.version),
            ));
        }
        let map_size = u32::try_from(map.len())
            .map_err(|_| Error::limit("a map of 4 GiB or more does not fit a demo"))?;
        let header = DemoHeader {
            version: self.version,
            net_version: fixed("net version", &self.net_version)?,
            map_name: fixed("map name", &self.map_name)?,
            map_size,
            map_crc: crc32fast::hash(map),
            kind: fixed("type", &self.kind)?,
            length: 0,
            timestamp: fixed("timestamp", &self.timestamp)?,
        };
        Ok(DemoStart {
            timeline: (self.version >= TIMELINE_VERSION).then_some(TimelineMarkers {
                count: 0,
                ticks: [0; MAX_TIMELINE_MARKERS],
            }),
            sha256: (self.version >= SHA256_VERSION)
                .then(|| sha256.map(|sha256| Sha256Extension { sha256 }))
                .flatten(),
            header,
        })
    }
}

/// Records a demo, as DDNet's recorder does (`CDemoRecorder`): a tick marker before each
/// tick's snapshot, a full snapshot (a keyframe) first and every 5 seconds, deltas against
/// the last snapshot in between (none when nothing changed), messages as they come, and at
/// [`DemoWriter::finish`] the length and timeline markers written into the header.
///
/// ```
/// use twcodec::demo::{Demo, DemoInfo, DemoWriter};
/// use twcodec::snap::Snapshot;
///
/// let map = twcodec_testkit::sample::datafile();
/// let info = DemoInfo { map_name: "sample".into(), ..DemoInfo::default() };
/// let mut writer = DemoWriter::new(std::io::Cursor::new(Vec::new()), &info, &map)?;
/// let snapshot = Snapshot::from_ints(&[8, 1, 0, (9 << 16) | 1, 42])?;
/// for tick in 100..200 {
///     writer.snapshot(tick, &snapshot)?;
/// }
/// writer.marker(150)?;
/// let demo = Demo::from_bytes(writer.finish()?.into_inner())?;
/// assert_eq!((demo.header().length, demo.timeline_markers()), (1, &[150][..]));
/// assert_eq!(demo.replay().count(), 100);
/// # Ok::<(), twcodec::Error>(())
/// ```
#[derive(Debug)]
pub struct DemoWriter<W: Write + Seek> {
    out: W,
    /// Where the header starts in `out`.
    base: u64,
    start: DemoStart,
    sizes: SizeTable,
    first_tick: Option<i32>,
    last_tick: Option<i32>,
    last_keyframe: Option<i32>,
    /// The snapshot the next delta is made against.
    last_snapshot: Option<Snapshot>,
    markers: Vec<i32>,
}

impl<W: Write + Seek> DemoWriter<W> {
    /// Starts a demo of the map `map` (its bytes, embedded; empty to embed none) with the
    /// header `info`, writing to `out` from where it is. With feature `hashing`, a version-6
    /// demo gets the map's SHA-256.
    pub fn new(out: W, info: &DemoInfo, map: &[u8]) -> Result<DemoWriter<W>, Error> {
        #[cfg(feature = "hashing")]
        let sha256 = Some(super::sha256(map));
        #[cfg(not(feature = "hashing"))]
        let sha256 = None;
        let start = info.start(map, sha256)?;
        DemoWriter::with_start(out, start, map)
    }

    /// Starts a demo with the header and map of `demo`; the length and markers start
    /// empty, and deltas use the pre-agreed sizes of its protocol.
    pub fn like(out: W, demo: &Demo) -> Result<DemoWriter<W>, Error> {
        let mut start = demo.start.clone();
        start.header.length = 0;
        if let Some(timeline) = &mut start.timeline {
            *timeline = TimelineMarkers {
                count: 0,
                ticks: [0; MAX_TIMELINE_MARKERS],
            };
        }
        DemoWriter::with_start(out, start, &demo.map_bytes())
    }

    /// Starts a demo with the header `start` (whose map size is `map`'s) and the map `map`.
    pub(crate) fn with_start(
        mut out: W,
        start: DemoStart,
        map: &[u8],
    ) -> Result<DemoWriter<W>, Error> {
        let base = out.stream_position().map_err(write_error)?;
        let protocol = super::protocol_of(&start.header);
        put(&mut out, &start, ())?;
        out.write_all(map).map_err(write_error)?;
        Ok(DemoWriter {
            out,
            base,
            start,
            sizes: protocol.sizes(),
            first_tick: None,
            last_tick: None,
            last_keyframe: None,
            last_snapshot: None,
            markers: Vec::new(),
        })
    }

    /// Uses `sizes` (a mod's pre-agreed item sizes) for the deltas [`DemoWriter::snapshot`]
    /// makes, instead of those of the net version's protocol.
    pub fn sizes(mut self, sizes: SizeTable) -> DemoWriter<W> {
        self.sizes = sizes;
        self
    }

    /// The demo's version.
    pub fn version(&self) -> u8 {
        self.start.header.version
    }

    /// The tick of the last tick marker written.
    pub fn last_tick(&self) -> Option<i32> {
        self.last_tick
    }

    /// Writes a tick marker, as DDNet does (`CDemoRecorder::WriteTickMarker`): the
    /// difference to the last marker in one byte when it fits and this is no keyframe, else
    /// the tick. Ticks are not negative and never go back.
    pub fn tick(&mut self, tick: i32, keyframe: bool) -> Result<(), Error> {
        if tick < 0 {
            return Err(Error::invalid_edit(format!(
                "demo: tick {tick} is negative"
            )));
        }
        if let Some(last) = self.last_tick.filter(|&last| tick < last) {
            return Err(Error::invalid_edit(format!(
                "demo: tick {tick} comes after tick {last}: ticks never go back"
            )));
        }
        let header = ChunkHeader::tick(self.version(), tick, self.last_tick, keyframe);
        let version = self.version();
        put(&mut self.out, &header, (version,))?;
        self.last_tick = Some(tick);
        self.first_tick.get_or_insert(tick);
        Ok(())
    }

    /// Writes a data chunk of `kind` whose payload is `payload` as it is (Huffman-coded
    /// packed ints); a data chunk before the first tick marker is refused, as readers could
    /// not place it.
    pub fn raw_chunk(&mut self, kind: ChunkKind, payload: &[u8]) -> Result<(), Error> {
        if self.last_tick.is_none() {
            return Err(Error::invalid_edit(
                "demo: a data chunk before the first tick marker",
            ));
        }
        let size = u16::try_from(payload.len()).map_err(|_| {
            Error::limit(format!(
                "demo: a chunk of {} bytes (a chunk holds at most 65535)",
                payload.len()
            ))
        })?;
        let version = self.version();
        put(&mut self.out, &ChunkHeader::data(kind, size), (version,))?;
        self.out.write_all(payload).map_err(write_error)
    }

    /// Writes a data chunk of `kind` holding `ints`: packed, then Huffman-coded, as DDNet's
    /// recorder does (`CDemoRecorder::Write`), within the 64 KiB a reader's buffer holds.
    pub fn chunk(&mut self, kind: ChunkKind, ints: &[i32]) -> Result<(), Error> {
        let packed = packing::pack_ints(ints);
        if packed.len() > MAX_CHUNK_DATA || ints.len() * 4 > MAX_CHUNK_DATA {
            return Err(Error::limit(format!(
                "demo: a chunk of {} ints ({} bytes packed) is more than the 64 KiB a reader \
                 holds",
                ints.len(),
                packed.len()
            )));
        }
        self.raw_chunk(kind, &crate::huffman::compress(&packed))
    }

    /// Records the snapshot of `tick` (`CDemoRecorder::RecordSnapshot`): a keyframe tick
    /// marker and the full snapshot when there is no keyframe yet or the last is more than
    /// [`KEYFRAME_INTERVAL`] ticks old; otherwise a tick marker and the delta against the
    /// last snapshot, left out when nothing changed.
    pub fn snapshot(&mut self, tick: i32, snapshot: &Snapshot) -> Result<(), Error> {
        let keyframe = match (self.last_keyframe, &self.last_snapshot) {
            (Some(last), Some(_)) => {
                i64::from(tick) - i64::from(last) > i64::from(KEYFRAME_INTERVAL)
            }
            _ => true,
        };
        if keyframe {
            self.keyframe(tick, snapshot)
        } else {
            let base = self.last_snapshot.as_ref().expect("checked above");
            let delta = SnapshotDelta::create(base, snapshot)?;
            self.tick(tick, false)?;
            if !delta.is_empty() {
                self.chunk(ChunkKind::Delta, &delta.to_ints(&self.sizes)?)?;
                self.last_snapshot = Some(snapshot.clone());
            }
            Ok(())
        }
    }

    /// Records a delta made elsewhere (a server's, a network capture's) for `tick`: a tick
    /// marker and the delta, which must apply to the last snapshot written (it is applied,
    /// so that the writer knows the snapshot the next delta starts from). An empty delta
    /// writes the marker alone, as DDNet's recorder does.
    pub fn delta(&mut self, tick: i32, delta: &SnapshotDelta) -> Result<(), Error> {
        let Some(base) = &self.last_snapshot else {
            return Err(Error::invalid_edit(
                "demo: a delta with no snapshot written before it to apply it to",
            ));
        };
        let snapshot = base.apply(delta)?;
        self.tick(tick, false)?;
        if !delta.is_empty() {
            self.chunk(ChunkKind::Delta, &delta.to_ints(&self.sizes)?)?;
            self.last_snapshot = Some(snapshot);
        }
        Ok(())
    }

    /// Records the snapshot of `tick` as a keyframe: a keyframe tick marker and the full
    /// snapshot, whatever the time since the last.
    pub fn keyframe(&mut self, tick: i32, snapshot: &Snapshot) -> Result<(), Error> {
        self.tick(tick, true)?;
        self.chunk(ChunkKind::Snapshot, &snapshot.to_ints())?;
        self.last_keyframe = Some(tick);
        self.last_snapshot = Some(snapshot.clone());
        Ok(())
    }

    /// Records a message the client received, as its bytes (the message header and fields,
    /// as [`crate::netmsg::encode`] makes them); padded with zeros to whole ints, as DDNet
    /// does.
    pub fn message_bytes(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let mut padded = bytes.to_vec();
        padded.resize(bytes.len().next_multiple_of(4), 0);
        let ints = crate::snap::ints_from_bytes(&padded)?;
        self.chunk(ChunkKind::Message, &ints)
    }

    /// Records a message, encoded in `protocol`.
    pub fn message(
        &mut self,
        message: &crate::netmsg::NetMessage,
        protocol: impl Into<crate::netmsg::Protocol>,
    ) -> Result<(), Error> {
        let bytes = crate::netmsg::encode(message, protocol.into())?;
        self.message_bytes(&bytes)
    }

    /// Copies a chunk of another demo of the same version as it is: its header (with a tick
    /// difference counted from the last marker written, as it was in its demo), its payload.
    /// A tick marker that gives a difference needs the marker before it written; after a
    /// snapshot or delta copied, the next [`DemoWriter::snapshot`] writes a keyframe.
    pub fn copy_chunk(&mut self, chunk: &Chunk<'_>) -> Result<(), Error> {
        if let ChunkContent::TickMarker { .. } = chunk.content {
            let tick = chunk.tick.unwrap_or_default();
            let relative = matches!(
                chunk.header,
                ChunkHeader::TickMarker {
                    tick: twcodec_schema::demo::TickValue::Delta(_),
                    ..
                }
            );
            if relative && self.last_tick.is_none() {
                return Err(Error::invalid_edit(
                    "demo: a tick marker that gives a difference, before any tick",
                ));
            }
            let version = self.version();
            put(&mut self.out, &chunk.header, (version,))?;
            self.last_tick = Some(tick);
            self.first_tick.get_or_insert(tick);
            if let ChunkHeader::TickMarker { keyframe: true, .. } = chunk.header {
                self.last_keyframe = Some(tick);
            }
            return Ok(());
        }
        if self.last_tick.is_none() {
            return Err(Error::invalid_edit(
                "demo: a data chunk before the first tick marker",
            ));
        }
        if let ChunkContent::Snapshot(_) | ChunkContent::Delta(_) = chunk.content {
            // The snapshot it makes is not decoded here: the next DemoWriter::snapshot
            // starts from a keyframe.
            self.last_snapshot = None;
            self.last_keyframe = None;
        }
        let version = self.version();
        write_chunk(&mut self.out, version, chunk)
    }

    /// Adds a timeline marker at `tick` (versions 4 on). As DDNet's recorder does
    /// (`CDemoRecorder::AddDemoMarker`), at most 64, and a marker less than a second after
    /// the last is refused.
    pub fn marker(&mut self, tick: i32) -> Result<(), Error> {
        if self.start.timeline.is_none() {
            return Err(Error::invalid_edit(format!(
                "demo: a version-{} demo has no timeline markers",
                self.version()
            )));
        }
        if tick < 0 {
            return Err(Error::invalid_edit(format!(
                "demo: a marker at tick {tick}, which is negative"
            )));
        }
        if self.markers.len() >= MAX_TIMELINE_MARKERS {
            return Err(Error::limit(format!(
                "demo: a demo holds at most {MAX_TIMELINE_MARKERS} timeline markers"
            )));
        }
        if let Some(&last) = self.markers.last() {
            if i64::from(tick) - i64::from(last) < i64::from(TICKS_PER_SECOND) {
                return Err(Error::invalid_edit(format!(
                    "demo: a marker at tick {tick}, less than a second after the one at {last}"
                )));
            }
        }
        self.markers.push(tick);
        Ok(())
    }

    /// Sets the timeline markers as they are (at most 64), without the checks of
    /// [`DemoWriter::marker`]: those of another demo.
    pub(crate) fn set_markers(&mut self, markers: &[i32]) {
        self.markers = markers[..markers.len().min(MAX_TIMELINE_MARKERS)].to_vec();
    }

    /// Ends the recording (`CDemoRecorder::Stop`): writes the length (whole seconds from
    /// the first tick marker to the last) and the timeline markers into the header, and
    /// gives back the output, positioned at the demo's end.
    pub fn finish(mut self) -> Result<W, Error> {
        let (first, last) = (self.first_tick.unwrap_or(0), self.last_tick.unwrap_or(0));
        self.start.header.length =
            ((i64::from(last) - i64::from(first)) / i64::from(TICKS_PER_SECOND)) as i32;
        if let Some(timeline) = &mut self.start.timeline {
            timeline.count = self.markers.len() as i32;
            timeline.ticks[..self.markers.len()].copy_from_slice(&self.markers);
        }
        let end = self.out.stream_position().map_err(write_error)?;
        self.out
            .seek(SeekFrom::Start(self.base))
            .map_err(write_error)?;
        put(&mut self.out, &self.start, ())?;
        self.out.seek(SeekFrom::Start(end)).map_err(write_error)?;
        self.out.flush().map_err(write_error)?;
        Ok(self.out)
    }
}
