//! Demo files (DDNet `src/engine/demo.h`, `src/engine/shared/demo.cpp`; Teeworlds 0.7 the
//! same up to version 5).
//!
//! ```text
//! demo:     header (176 bytes), timeline markers (version >= 4, 260 bytes),
//!           SHA-256 extension (version >= 6, DDNet: 16-byte UUID + 32-byte digest),
//!           the map (map_size bytes), then chunks until the end of the file
//! chunk:    a tick marker, or a snapshot, delta or message chunk whose payload is Huffman
//!           coded packed ints
//! ```
//!
//! Numbers in the header are big-endian; strings are NUL-terminated in fixed-size fields.

use std::fmt;

use binrw::{binrw, BinRead, BinResult, BinWrite, Endian};
#[cfg(feature = "serde")]
use serde::Serialize;

use crate::SchemaError;
use twcodec_schema_derive::describe;

/// The first 7 bytes of every demo (DDNet `gs_aHeaderMarker`).
pub const MAGIC: [u8; 7] = *b"TWDEMO\0";

/// The UUID that starts DDNet's SHA-256 extension (`demoitem-sha256@ddnet.tw`, DDNet
/// `SHA256_EXTENSION`).
pub const SHA256_EXTENSION: [u8; 16] = [
    0x6b, 0xe6, 0xda, 0x4a, 0xce, 0xbd, 0x38, 0x0c, 0x9b, 0x5b, 0x12, 0x89, 0xc8, 0x42, 0xd7, 0x80,
];

/// Most timeline markers a demo holds (DDNet `MAX_TIMELINE_MARKERS`).
pub const MAX_TIMELINE_MARKERS: usize = 64;

/// The oldest and newest demo versions (DDNet `gs_OldVersion`, `gs_CurVersion`).
pub const VERSIONS: std::ops::RangeInclusive<u8> = 3..=6;

/// Versions from this one on store timeline markers after the header (DDNet reads them past
/// `gs_OldVersion`, 3).
pub const TIMELINE_VERSION: u8 = 4;

/// Versions from this one on write compressed tick markers (DDNet `gs_VersionTickCompression`).
pub const TICK_COMPRESSION_VERSION: u8 = 5;

/// The version from which DDNet writes the SHA-256 extension (DDNet `gs_Sha256Version`).
pub const SHA256_VERSION: u8 = 6;

/// A NUL-terminated string in a fixed-size field; the bytes are kept as they are.
#[describe]
#[binrw]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct FixedString<const N: usize>(pub [u8; N]);

impl<const N: usize> FixedString<N> {
    /// The bytes up to the first NUL.
    pub fn bytes(&self) -> &[u8] {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(N);
        &self.0[..end]
    }

    /// The text up to the first NUL, invalid UTF-8 replaced.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(self.bytes()).into_owned()
    }

    /// Whether the field holds a NUL, as DDNet requires (`CDemoHeader::Valid`).
    pub fn is_terminated(&self) -> bool {
        self.0.contains(&0)
    }
}

impl<const N: usize> fmt::Debug for FixedString<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_string_lossy())
    }
}

#[cfg(feature = "serde")]
impl<const N: usize> Serialize for FixedString<N> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string_lossy())
    }
}

/// The demo header (DDNet `CDemoHeader`), 176 bytes.
#[describe]
#[binrw]
#[brw(big, magic = b"TWDEMO\0")]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[doc(alias = "CDemoHeader")]
pub struct DemoHeader {
    /// Demo version, 3 to 6.
    #[br(assert(VERSIONS.contains(&version), SchemaError::UnsupportedDemoVersion(version)))]
    pub version: u8,
    /// The network protocol version of the recording client (`0.6 626fce9a778df4d4`,
    /// `0.7 802f1be60a05665f`).
    pub net_version: FixedString<64>,
    /// Name of the map.
    pub map_name: FixedString<64>,
    /// Bytes of the map stored after the header.
    pub map_size: u32,
    /// CRC-32 of the map.
    pub map_crc: u32,
    /// `client` or `server`.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub kind: FixedString<8>,
    /// Length in seconds, written when recording stops.
    pub length: i32,
    /// When recording started, as text.
    pub timestamp: FixedString<20>,
}

impl DemoHeader {
    /// Size in bytes, magic included.
    pub const SIZE: usize = 176;
    /// Byte offset of `version`, after the magic.
    pub const VERSION_OFFSET: usize = MAGIC.len();
    /// Byte offset of `net_version`.
    pub const NET_VERSION_OFFSET: usize = DemoHeader::VERSION_OFFSET + 1;
    /// Byte offset of `map_name`.
    pub const MAP_NAME_OFFSET: usize = DemoHeader::NET_VERSION_OFFSET + 64;
    /// Byte offset of `map_size`.
    pub const MAP_SIZE_OFFSET: usize = DemoHeader::MAP_NAME_OFFSET + 64;
    /// Byte offset of `map_crc`.
    pub const MAP_CRC_OFFSET: usize = DemoHeader::MAP_SIZE_OFFSET + 4;
    /// Byte offset of `type` (`kind`).
    pub const KIND_OFFSET: usize = DemoHeader::MAP_CRC_OFFSET + 4;
    /// Byte offset of `length`.
    pub const LENGTH_OFFSET: usize = DemoHeader::KIND_OFFSET + 8;
    /// Byte offset of `timestamp`.
    pub const TIMESTAMP_OFFSET: usize = DemoHeader::LENGTH_OFFSET + 4;

    /// The fixed-size string fields, in order, by their names in DDNet's header: name, byte
    /// offset, and whether the field holds its NUL.
    pub fn strings(&self) -> [(&'static str, usize, bool); 4] {
        [
            (
                "net_version",
                DemoHeader::NET_VERSION_OFFSET,
                self.net_version.is_terminated(),
            ),
            (
                "map_name",
                DemoHeader::MAP_NAME_OFFSET,
                self.map_name.is_terminated(),
            ),
            ("type", DemoHeader::KIND_OFFSET, self.kind.is_terminated()),
            (
                "timestamp",
                DemoHeader::TIMESTAMP_OFFSET,
                self.timestamp.is_terminated(),
            ),
        ]
    }
}

/// The magic and the version, the first 8 bytes of every demo: what a reader looks at before
/// it knows which parts follow the header, or whether the file holds them all.
#[describe]
#[binrw]
#[brw(big, magic = b"TWDEMO\0")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DemoVersion {
    /// Demo version, as stored (any value: [`DemoHeader`] refuses those outside 3 to 6).
    pub version: u8,
}

/// The timeline markers (DDNet `CTimelineMarkers`), versions 4 and later: a count, then 64
/// ticks of which the first `count` are used.
#[describe]
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[doc(alias = "CTimelineMarkers")]
pub struct TimelineMarkers {
    /// Number of markers used; DDNet clamps it to 0..=64.
    pub count: i32,
    /// Ticks of the markers.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub ticks: [i32; MAX_TIMELINE_MARKERS],
}

impl TimelineMarkers {
    /// Size in bytes.
    pub const SIZE: usize = 4 + 4 * MAX_TIMELINE_MARKERS;

    /// The ticks of the markers in use (the count clamped to 0..=64, as DDNet does).
    pub fn used(&self) -> &[i32] {
        let count = self.count.clamp(0, MAX_TIMELINE_MARKERS as i32) as usize;
        &self.ticks[..count]
    }
}

/// DDNet's SHA-256 extension, version 6 (docs/format-notes.md, "Demos"; DDNet `GetDemoInfo`):
/// the extension UUID, then the map's SHA-256.
#[describe]
#[binrw]
#[brw(
    big,
    magic = b"\x6b\xe6\xda\x4a\xce\xbd\x38\x0c\x9b\x5b\x12\x89\xc8\x42\xd7\x80"
)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sha256Extension {
    /// SHA-256 of the map.
    pub sha256: [u8; 32],
}

impl Sha256Extension {
    /// Size in bytes, UUID included.
    pub const SIZE: usize = 16 + 32;
}

/// Everything before the map: header, timeline markers (version 4 on) and the SHA-256
/// extension (version 6, when its UUID is there: DDNet reads on without it).
#[describe]
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoStart {
    /// The header.
    pub header: DemoHeader,
    /// Timeline markers, versions 4 and later.
    #[br(if(header.version >= TIMELINE_VERSION))]
    pub timeline: Option<TimelineMarkers>,
    /// The map's SHA-256, version 6 when the extension UUID is there.
    #[br(if(header.version >= SHA256_VERSION), try)]
    pub sha256: Option<Sha256Extension>,
}

/// What a chunk's payload holds (DDNet `CHUNKTYPE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum ChunkKind {
    /// A full snapshot.
    Snapshot,
    /// A message the client received.
    Message,
    /// A snapshot delta against the previous snapshot.
    Delta,
    /// Type 0, which no writer uses; kept as is.
    Unknown,
}

impl ChunkKind {
    /// The kind of type bits 0 to 3.
    pub fn from_bits(bits: u8) -> ChunkKind {
        match bits & 3 {
            1 => ChunkKind::Snapshot,
            2 => ChunkKind::Message,
            3 => ChunkKind::Delta,
            _ => ChunkKind::Unknown,
        }
    }

    /// The type bits.
    pub fn bits(self) -> u8 {
        match self {
            ChunkKind::Snapshot => 1,
            ChunkKind::Message => 2,
            ChunkKind::Delta => 3,
            ChunkKind::Unknown => 0,
        }
    }
}

/// How a tick marker gives its tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum TickValue {
    /// The tick itself (4 bytes, big-endian).
    Absolute(i32),
    /// The difference to the previous tick marker's tick, in the marker byte: 1 to 31 with the
    /// compressed flag (version 5 on), 1 to 63 in older versions.
    Delta(u8),
}

/// How a data chunk's header stores its payload's size (DDNet `CDemoRecorder::Write` writes
/// the shortest; `CDemoPlayer::ReadChunkHeader` reads any).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum SizeForm {
    /// In the header byte's 5 size bits: 0 to 29.
    Inline,
    /// Size bits 30, then one byte: 0 to 255.
    Byte,
    /// Size bits 31, then two bytes, little-endian: 0 to 65535.
    Short,
}

impl SizeForm {
    /// The form DDNet writes for `size`: the shortest.
    pub fn shortest(size: u16) -> SizeForm {
        match size {
            0..30 => SizeForm::Inline,
            30..256 => SizeForm::Byte,
            _ => SizeForm::Short,
        }
    }

    /// Whether the form can hold `size`.
    pub fn fits(self, size: u16) -> bool {
        match self {
            SizeForm::Inline => size < 30,
            SizeForm::Byte => size < 256,
            SizeForm::Short => true,
        }
    }
}

/// A chunk header (DDNet `CDemoPlayer::ReadChunkHeader`):
///
/// ```text
/// tick marker: 1 K C d d d d d   K keyframe, C compressed (version >= 5): d = tick delta,
///              else 4 more bytes: the tick (big-endian). Before version 5: 6 delta bits,
///              and a delta of 0 means the 4 bytes follow.
/// data chunk:  0 t t s s s s s   t type, s size; s = 30: 1 more size byte,
///              s = 31: 2 more size bytes (little-endian)
/// ```
///
/// Every bit is kept: the 5 bits an uncompressed tick marker of version 5 on does not read
/// (`spare`), and the form of a size (a size under 30 may be written in 2 or 3 bytes), so
/// that writing gives back the bytes read. Writers use [`ChunkHeader::tick`] and
/// [`ChunkHeader::data`], which make what DDNet's recorder makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum ChunkHeader {
    /// The start of a tick.
    TickMarker {
        /// Whether a full snapshot follows (a point to seek to).
        keyframe: bool,
        /// The tick, or how far it is from the last.
        tick: TickValue,
        /// The low 5 bits of an uncompressed tick marker, version 5 on, which no reader uses
        /// (0 from every writer; libtw2 warns of others); 0 in other markers.
        spare: u8,
    },
    /// A snapshot, delta or message, with the size of its payload.
    Data {
        /// What the payload holds.
        kind: ChunkKind,
        /// Bytes of the payload.
        size: u16,
        /// How the header stores the size.
        form: SizeForm,
    },
}

impl ChunkHeader {
    /// The tick marker flag.
    const TICK_MARKER: u8 = 0x80;
    /// The keyframe flag of a tick marker.
    const KEYFRAME: u8 = 0x40;
    /// The compressed-tick flag of a tick marker, version 5 on.
    const COMPRESSED: u8 = 0x20;

    /// The largest tick difference a tick marker of `version` holds in its first byte (DDNet
    /// `CHUNKMASK_TICK`, and `CHUNKMASK_TICK_LEGACY` before version 5).
    pub fn max_delta(version: u8) -> i32 {
        if version < TICK_COMPRESSION_VERSION {
            0x3F
        } else {
            0x1F
        }
    }

    /// The tick marker DDNet's recorder writes for `tick` after the marker of `last`
    /// (`CDemoRecorder::WriteTickMarker`): the difference in one byte when there is a last
    /// tick, the marker is no keyframe, and the difference fits; else the tick itself. Before
    /// version 5, whose markers DDNet no longer writes, the difference takes 6 bits.
    pub fn tick(version: u8, tick: i32, last: Option<i32>, keyframe: bool) -> ChunkHeader {
        let delta = last.map(|last| i64::from(tick) - i64::from(last));
        let tick = match delta {
            Some(delta)
                if !keyframe
                    && (1..=i64::from(ChunkHeader::max_delta(version))).contains(&delta) =>
            {
                TickValue::Delta(delta as u8)
            }
            // Version 5 on, a marker of the same tick is a compressed 0.
            Some(0) if !keyframe && version >= TICK_COMPRESSION_VERSION => TickValue::Delta(0),
            _ => TickValue::Absolute(tick),
        };
        ChunkHeader::TickMarker {
            keyframe,
            tick,
            spare: 0,
        }
    }

    /// The header of a data chunk of `size` bytes, its size in the shortest form.
    pub fn data(kind: ChunkKind, size: u16) -> ChunkHeader {
        ChunkHeader::Data {
            kind,
            size,
            form: SizeForm::shortest(size),
        }
    }

    /// Bytes of the header.
    pub fn size_in_bytes(&self) -> usize {
        match *self {
            ChunkHeader::TickMarker {
                tick: TickValue::Absolute(_),
                ..
            } => 5,
            ChunkHeader::TickMarker { .. } => 1,
            ChunkHeader::Data { form, .. } => match form {
                SizeForm::Inline => 1,
                SizeForm::Byte => 2,
                SizeForm::Short => 3,
            },
        }
    }

    /// Whether the header is a tick marker.
    pub fn is_tick_marker(&self) -> bool {
        matches!(self, ChunkHeader::TickMarker { .. })
    }
}

// The layout fixes its byte order (big-endian ticks, little-endian sizes).
impl binrw::meta::ReadEndian for ChunkHeader {
    const ENDIAN: binrw::meta::EndianKind = binrw::meta::EndianKind::None;
}

impl binrw::meta::WriteEndian for ChunkHeader {
    const ENDIAN: binrw::meta::EndianKind = binrw::meta::EndianKind::None;
}

impl BinRead for ChunkHeader {
    /// The demo version, which decides how tick markers give their tick.
    type Args<'a> = (u8,);

    fn read_options<R: binrw::io::Read + binrw::io::Seek>(
        reader: &mut R,
        _endian: Endian,
        (version,): Self::Args<'_>,
    ) -> BinResult<Self> {
        let first = u8::read_options(reader, Endian::Big, ())?;
        if first & ChunkHeader::TICK_MARKER != 0 {
            let keyframe = first & ChunkHeader::KEYFRAME != 0;
            let (tick, spare) = if version < TICK_COMPRESSION_VERSION {
                match first & 0x3F {
                    0 => (
                        TickValue::Absolute(i32::read_options(reader, Endian::Big, ())?),
                        0,
                    ),
                    delta => (TickValue::Delta(delta), 0),
                }
            } else if first & ChunkHeader::COMPRESSED != 0 {
                (TickValue::Delta(first & 0x1F), 0)
            } else {
                (
                    TickValue::Absolute(i32::read_options(reader, Endian::Big, ())?),
                    first & 0x1F,
                )
            };
            return Ok(ChunkHeader::TickMarker {
                keyframe,
                tick,
                spare,
            });
        }
        let kind = ChunkKind::from_bits(first >> 5);
        let (size, form) = match first & 0x1F {
            30 => (
                u16::from(u8::read_options(reader, Endian::Little, ())?),
                SizeForm::Byte,
            ),
            31 => (
                u16::read_options(reader, Endian::Little, ())?,
                SizeForm::Short,
            ),
            size => (u16::from(size), SizeForm::Inline),
        };
        Ok(ChunkHeader::Data { kind, size, form })
    }
}

impl BinWrite for ChunkHeader {
    /// The demo version, which decides how tick markers give their tick.
    type Args<'a> = (u8,);

    fn write_options<W: binrw::io::Write + binrw::io::Seek>(
        &self,
        writer: &mut W,
        _endian: Endian,
        (version,): Self::Args<'_>,
    ) -> BinResult<()> {
        let refuse = |writer: &mut W, message: String| -> BinResult<()> {
            Err(binrw::Error::AssertFail {
                pos: writer.stream_position()?,
                message,
            })
        };
        match *self {
            ChunkHeader::TickMarker {
                keyframe,
                tick,
                spare,
            } => {
                let mut first = ChunkHeader::TICK_MARKER;
                if keyframe {
                    first |= ChunkHeader::KEYFRAME;
                }
                let legacy = version < TICK_COMPRESSION_VERSION;
                match tick {
                    TickValue::Absolute(tick) => {
                        if spare > 0x1F || (legacy && spare != 0) {
                            return refuse(
                                writer,
                                format!("a version-{version} tick marker has no room for spare bits {spare:#x}"),
                            );
                        }
                        (first | spare).write_options(writer, Endian::Big, ())?;
                        tick.write_options(writer, Endian::Big, ())
                    }
                    TickValue::Delta(delta) => {
                        let max = ChunkHeader::max_delta(version) as u8;
                        if delta > max || (legacy && delta == 0) || spare != 0 {
                            return refuse(
                                writer,
                                format!(
                                    "a version-{version} tick marker holds a difference of {} to {max}, not {delta}",
                                    u8::from(legacy)
                                ),
                            );
                        }
                        let flag = if legacy { 0 } else { ChunkHeader::COMPRESSED };
                        (first | flag | delta).write_options(writer, Endian::Big, ())
                    }
                }
            }
            ChunkHeader::Data { kind, size, form } => {
                if !form.fits(size) {
                    return refuse(writer, format!("a size of {size} does not fit {form:?}"));
                }
                let first = kind.bits() << 5;
                match form {
                    SizeForm::Inline => (first | size as u8).write_options(writer, Endian::Big, ()),
                    SizeForm::Byte => {
                        [first | 30, size as u8].write_options(writer, Endian::Big, ())
                    }
                    SizeForm::Short => {
                        (first | 31).write_options(writer, Endian::Big, ())?;
                        size.write_options(writer, Endian::Little, ())
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use binrw::io::Cursor;

    fn start_bytes(version: u8, sha: bool) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.push(version); // version
        let mut net = [0u8; 64];
        net[..3].copy_from_slice(b"0.6"); // net_version
        bytes.extend(net);
        let mut map = [0u8; 64];
        map[..4].copy_from_slice(b"dm1\0"); // map_name
        bytes.extend(map);
        bytes.extend(1000u32.to_be_bytes()); // map_size
        bytes.extend(0xDEAD_BEEFu32.to_be_bytes()); // map_crc
        bytes.extend(*b"client\0\0"); // type
        bytes.extend(42i32.to_be_bytes()); // length
        bytes.extend(*b"2026-11-22_12-00-00\0"); // timestamp
        if version >= 4 {
            bytes.extend(2i32.to_be_bytes()); // count
            for tick in 0..64i32 {
                bytes.extend((tick * 100).to_be_bytes()); // marker ticks
            }
        }
        if sha {
            bytes.extend(SHA256_EXTENSION); // extension UUID
            bytes.extend([7u8; 32]); // SHA-256
        }
        bytes
    }

    #[test]
    fn start_reads_every_field_and_writes_the_same_bytes() {
        let bytes = start_bytes(6, true);
        let start = DemoStart::read(&mut Cursor::new(&bytes)).unwrap();
        let header = &start.header;
        assert_eq!(header.version, 6);
        assert_eq!(header.net_version.to_string_lossy(), "0.6");
        assert_eq!(header.map_name.to_string_lossy(), "dm1");
        assert_eq!((header.map_size, header.map_crc), (1000, 0xDEAD_BEEF));
        assert_eq!(header.kind.to_string_lossy(), "client");
        assert_eq!(header.length, 42);
        assert_eq!(header.timestamp.to_string_lossy(), "2026-11-22_12-00-00");
        assert_eq!(start.timeline.as_ref().unwrap().used(), [0, 100]);
        assert_eq!(start.sha256.unwrap().sha256, [7; 32]);
        let mut out = Cursor::new(Vec::new());
        start.write(&mut out).unwrap();
        assert_eq!(out.into_inner(), bytes);
        assert_eq!(
            bytes.len(),
            DemoHeader::SIZE + TimelineMarkers::SIZE + Sha256Extension::SIZE
        );
    }

    #[test]
    fn field_offsets_are_where_the_fields_are() {
        let bytes = start_bytes(4, false);
        assert_eq!(bytes[DemoHeader::VERSION_OFFSET], 4);
        let at = |offset: usize, len: usize| &bytes[offset..offset + len];
        assert_eq!(at(DemoHeader::NET_VERSION_OFFSET, 4), b"0.6\0");
        assert_eq!(at(DemoHeader::MAP_NAME_OFFSET, 4), b"dm1\0");
        assert_eq!(at(DemoHeader::MAP_SIZE_OFFSET, 4), 1000u32.to_be_bytes());
        assert_eq!(
            at(DemoHeader::MAP_CRC_OFFSET, 4),
            0xDEAD_BEEFu32.to_be_bytes()
        );
        assert_eq!(at(DemoHeader::KIND_OFFSET, 8), b"client\0\0");
        assert_eq!(at(DemoHeader::LENGTH_OFFSET, 4), 42i32.to_be_bytes());
        assert_eq!(
            at(DemoHeader::TIMESTAMP_OFFSET, 20),
            b"2026-11-22_12-00-00\0"
        );
        assert_eq!(DemoHeader::TIMESTAMP_OFFSET + 20, DemoHeader::SIZE);

        let mut unterminated = bytes.clone();
        unterminated[DemoHeader::KIND_OFFSET + 6..DemoHeader::LENGTH_OFFSET].fill(b'x');
        let header = DemoHeader::read(&mut Cursor::new(&unterminated)).unwrap();
        let strings = header.strings();
        assert_eq!(
            strings.map(|(name, _, _)| name),
            ["net_version", "map_name", "type", "timestamp"]
        );
        assert_eq!(
            strings.map(|(_, _, terminated)| terminated),
            [true, true, false, true]
        );
        assert_eq!(strings[2].1, DemoHeader::KIND_OFFSET);

        let version = DemoVersion::read(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!(version.version, 4);
        assert!(DemoVersion::read(&mut Cursor::new(&bytes[..7])).is_err());
        assert!(DemoVersion::read(&mut Cursor::new(b"TWDEMX\0\x04")).is_err());
    }

    #[test]
    fn versions_decide_what_follows_the_header() {
        // Version 6 without the extension UUID: DDNet reads on, so do we, where we were.
        let mut bytes = start_bytes(6, false);
        bytes.extend([1u8; 16]);
        let mut cursor = Cursor::new(&bytes);
        let start = DemoStart::read(&mut cursor).unwrap();
        assert!(start.sha256.is_none());
        assert_eq!(
            cursor.position() as usize,
            DemoHeader::SIZE + TimelineMarkers::SIZE
        );

        let bytes = start_bytes(3, false);
        let start = DemoStart::read(&mut Cursor::new(&bytes)).unwrap();
        assert!(start.timeline.is_none());

        let error = DemoStart::read(&mut Cursor::new(&start_bytes(7, false))).unwrap_err();
        assert!(error.to_string().contains("unsupported demo version 7"));
        let mut bad = start_bytes(4, false);
        bad[0] = b'X';
        assert!(DemoStart::read(&mut Cursor::new(&bad)).is_err());
    }

    #[test]
    fn chunk_headers() {
        let tick = |keyframe, tick, spare| ChunkHeader::TickMarker {
            keyframe,
            tick,
            spare,
        };
        let data = |kind, size, form| ChunkHeader::Data { kind, size, form };
        let cases: [(u8, &[u8], ChunkHeader); 12] = [
            (
                5,
                &[0xC0, 0, 0, 1, 0],
                tick(true, TickValue::Absolute(256), 0),
            ), // keyframe, tick 256
            (5, &[0xA2], tick(false, TickValue::Delta(2), 0)), // compressed tick marker, +2
            (6, &[0xA0], tick(false, TickValue::Delta(0), 0)), // compressed, +0
            (
                6,
                &[0x85, 0, 0, 0, 7],
                tick(false, TickValue::Absolute(7), 5),
            ), // spare bits 5
            (4, &[0xA2], tick(false, TickValue::Delta(34), 0)), // version 4: 6 delta bits, +34
            (
                4,
                &[0x80, 0, 0, 0, 9],
                tick(false, TickValue::Absolute(9), 0),
            ), // v4, 0: tick follows
            (6, &[0x7D], data(ChunkKind::Delta, 29, SizeForm::Inline)), // delta chunk, 29 bytes
            (6, &[0x7E, 200], data(ChunkKind::Delta, 200, SizeForm::Byte)), // 200 bytes
            (
                6,
                &[0x5F, 0x34, 0x12],
                data(ChunkKind::Message, 0x1234, SizeForm::Short),
            ),
            (6, &[0x3E, 5], data(ChunkKind::Snapshot, 5, SizeForm::Byte)), // 5 in 2 bytes
            (
                6,
                &[0x5F, 5, 0],
                data(ChunkKind::Message, 5, SizeForm::Short),
            ), // 5 in 3 bytes
            (6, &[0x01], data(ChunkKind::Unknown, 1, SizeForm::Inline)),   // type 0
        ];
        for (version, bytes, expected) in cases {
            let header = ChunkHeader::read_args(&mut Cursor::new(bytes), (version,)).unwrap();
            assert_eq!(header, expected, "{bytes:02x?}");
            assert_eq!(header.size_in_bytes(), bytes.len(), "{bytes:02x?}");
            let mut out = Cursor::new(Vec::new());
            header.write_args(&mut out, (version,)).unwrap();
            assert_eq!(out.into_inner(), bytes, "{bytes:02x?}");
        }
        assert!(ChunkHeader::read_args(&mut Cursor::new(&[0x80, 0, 0]), (6,)).is_err());
        assert!(ChunkHeader::read_args(&mut Cursor::new(&[0x5F, 1]), (6,)).is_err());
    }

    #[test]
    fn writers_make_what_ddnet_makes_and_refuse_what_does_not_fit() {
        // CDemoRecorder::WriteTickMarker: absolute first, for keyframes and for big steps.
        let cases = [
            (6, 100, None, false, TickValue::Absolute(100)),
            (6, 101, Some(100), false, TickValue::Delta(1)),
            (6, 131, Some(100), false, TickValue::Delta(31)),
            (6, 132, Some(100), false, TickValue::Absolute(132)),
            (6, 101, Some(100), true, TickValue::Absolute(101)),
            (6, 100, Some(100), false, TickValue::Delta(0)),
            (6, 99, Some(100), false, TickValue::Absolute(99)),
            (4, 163, Some(100), false, TickValue::Delta(63)),
            (4, 100, Some(100), false, TickValue::Absolute(100)),
        ];
        for (version, at, last, keyframe, expected) in cases {
            assert_eq!(
                ChunkHeader::tick(version, at, last, keyframe),
                ChunkHeader::TickMarker {
                    keyframe,
                    tick: expected,
                    spare: 0
                },
                "{version} {at} {last:?} {keyframe}"
            );
        }
        for (size, form) in [
            (29, SizeForm::Inline),
            (30, SizeForm::Byte),
            (256, SizeForm::Short),
        ] {
            assert_eq!(
                ChunkHeader::data(ChunkKind::Delta, size),
                ChunkHeader::Data {
                    kind: ChunkKind::Delta,
                    size,
                    form
                }
            );
        }
        let refused = [
            (
                6,
                ChunkHeader::TickMarker {
                    keyframe: false,
                    tick: TickValue::Delta(32),
                    spare: 0,
                },
            ),
            (
                4,
                ChunkHeader::TickMarker {
                    keyframe: false,
                    tick: TickValue::Delta(0),
                    spare: 0,
                },
            ),
            (
                4,
                ChunkHeader::TickMarker {
                    keyframe: false,
                    tick: TickValue::Absolute(1),
                    spare: 1,
                },
            ),
            (
                6,
                ChunkHeader::TickMarker {
                    keyframe: false,
                    tick: TickValue::Absolute(1),
                    spare: 0x20,
                },
            ),
            (
                6,
                ChunkHeader::Data {
                    kind: ChunkKind::Delta,
                    size: 30,
                    form: SizeForm::Inline,
                },
            ),
            (
                6,
                ChunkHeader::Data {
                    kind: ChunkKind::Delta,
                    size: 256,
                    form: SizeForm::Byte,
                },
            ),
        ];
        for (version, header) in refused {
            assert!(
                header
                    .write_args(&mut Cursor::new(Vec::new()), (version,))
                    .is_err(),
                "{header:?}"
            );
        }
    }
}
