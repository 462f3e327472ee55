//! Teeworlds 0.7 UDP packets, read far enough to get the snapshots out (docs/format-notes.md,
//! "0.7 network framing"; Teeworlds 0.7 `src/engine/shared/network.h` and `network.cpp`,
//! `CNetBase::UnpackPacket` and `CNetChunkHeader::Unpack`; DDNet `src/engine/shared/network.cpp`
//! for the same code with its 0.6 split, and `src/engine/shared/protocol7.h` for the message
//! ids).
//!
//! ```text
//! packet     flags:6 ack:10  num_chunks:8  token:32 (big-endian)  payload
//!            payload Huffman-coded as a whole when the compression flag is set
//! chunk      resend:1 vital:1 size:6 (high)  seq:2 size:6 (low)  [seq:8, vital chunks only]  data
//! message    packed int (id << 1) | system, then the message's fields
//! ```
//!
//! The packet header is 7 bytes: byte 0 holds the flags in its upper 6 bits (control 1, resend
//! 2, compression 4, connless 8, then 2 reserved bits that Teeworlds and DDNet ignore) and the
//! upper 2 bits of the 10-bit ack, byte 1 the rest of the ack, byte 2 the number of chunks,
//! bytes 3 to 6 the connection's token. The 0.7 chunk header splits its 12-bit size 6/6 over two
//! bytes (0.6 and DDNet split a 10-bit size 6/4); a vital chunk has a third byte, and its 10-bit
//! sequence takes the upper 2 bits of the second byte and all of the third. A non-vital chunk's
//! header is 2 bytes.
//!
//! Snapshot system messages ([`SnapMessage`]; 0.7 ids 6, 7 and 8) carry the tick, then
//! `tick - delta_tick` (not the delta tick itself: the libtw2 dissector prints this field as
//! "Delta tick"), and for `snap` and `snap_single` the CRC and a part of the delta, packed as
//! variable-length ints. A server cuts the packed delta every 900 bytes; [`AssembledSnap::join`]
//! puts the parts back together before anything is unpacked, since a cut can fall inside an int.
//!
//! ```no_run
//! use twcodec::packet::{AssembledSnap, Packet7, SnapMessage};
//! use twcodec::snap::Snapshot;
//!
//! # let bytes: Vec<u8> = Vec::new();
//! let packet = Packet7::parse(&bytes)?;
//! for chunk in packet.chunks() {
//!     if let Some(message) = SnapMessage::parse(&chunk?)? {
//!         if message.num_parts() == 1 && message.is_against_empty() {
//!             let snap = AssembledSnap::join(&[message])?;
//!             let snapshot = snap.rebuild(&Snapshot::empty())?; // checks the server's CRC
//!             println!("tick {}: {} items", snap.tick, snapshot.len());
//!         }
//!     }
//! }
//! # Ok::<(), twcodec::Error>(())
//! ```
//!
//! # Checks
//!
//! Errors say what is wrong and where: a byte offset in the packet, where offsets past the
//! header count in the decoded payload (for an uncompressed packet, the same thing).
//!
//! - packet ([`Packet7::parse`]): at least the 7 header bytes and at most [`MAX_PACKET_SIZE`];
//!   connectionless packets are not read (unsupported); a control packet is not compressed,
//!   has no chunks and at least the control message byte (DDNet `IsValidConnectionOrientedPacket`);
//!   a compressed payload decodes (the Huffman end symbol is there) to at most [`MAX_PAYLOAD`]
//!   bytes.
//! - chunks ([`Packet7::chunks`]): each header and its data within the payload, for the number
//!   of chunks the header gives. Bytes after the last chunk are allowed, as in Teeworlds, and
//!   counted by [`Packet7::trailing_bytes`].
//! - message ids ([`Chunk::message`]): a chunk holds at least its packed message id.
//! - snapshot messages ([`SnapMessage::parse`]): every field present and a whole packed int;
//!   `tick - delta_tick` does not overflow; `num_parts` 1 to [`MAX_PARTS`], `part` below it;
//!   the data size 0 to [`MAX_PART_SIZE`] and within the chunk; nothing after the data (the
//!   DDNet client's checks, with leftover bytes made an error).
//! - joining ([`AssembledSnap::join`]): one `snap_single` or `snap_empty` alone, or `snap`
//!   parts that agree on tick, delta tick, CRC and number of parts, each part once, all present,
//!   every part but the last exactly [`MAX_PART_SIZE`] bytes (clients place part `n` at byte
//!   `n * 900`).
//! - rebuilding ([`AssembledSnap::rebuild`]): the joined data unpacks to a valid snapshot delta
//!   in the 0.7 sizes ([`SnapshotDelta::from_packed`]), applies to the base, and the result's
//!   checksum is the CRC the server sent.

use std::fmt;

use crate::error::ErrorKind;
use crate::huffman::{self, HuffmanError};
use crate::snap::packing::{unpack_int, UnpackError};
use crate::snap::{SizeTable, Snapshot, SnapshotDelta};
use crate::Error;

/// Bytes of the packet header of a connection's packet (Teeworlds 0.7 `NET_PACKETHEADERSIZE`).
pub const HEADER_SIZE: usize = 7;

/// Most bytes a packet can have (`NET_MAX_PACKETSIZE`).
pub const MAX_PACKET_SIZE: usize = 1400;

/// Most bytes a decoded payload can have: DDNet's `NET_MAX_PAYLOAD` (Teeworlds 0.7 allows 1391,
/// leaving room for the longer connectionless header).
pub const MAX_PAYLOAD: usize = 1394;

/// Most parts a snapshot can be cut into (`CSnapshot::MAX_PARTS`).
pub const MAX_PARTS: i32 = 64;

/// Most bytes of packed delta one snapshot message carries (`MAX_SNAPSHOT_PACKSIZE`); every
/// part but the last of a multi-part snapshot has exactly this many.
pub const MAX_PART_SIZE: usize = 900;

/// 0.7 system message id of `snap`, one part of a snapshot cut into several (`NETMSG_SNAP`).
#[doc(alias = "NETMSG_SNAP")]
pub const MSG_SNAP: i32 = 6;

/// 0.7 system message id of `snap_empty`, a snapshot equal to its delta base
/// (`NETMSG_SNAPEMPTY`).
#[doc(alias = "NETMSG_SNAPEMPTY")]
pub const MSG_SNAP_EMPTY: i32 = 7;

/// 0.7 system message id of `snap_single`, a snapshot in one message (`NETMSG_SNAPSINGLE`).
#[doc(alias = "NETMSG_SNAPSINGLE")]
pub const MSG_SNAP_SINGLE: i32 = 8;

/// The flags of a packet header (Teeworlds 0.7 `NET_PACKETFLAG_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PacketFlags {
    /// A control message (keep-alive, connect, accept, close, token) instead of chunks.
    pub control: bool,
    /// The sender asks for its vital chunks to be resent.
    pub resend: bool,
    /// The payload is Huffman-coded.
    pub compression: bool,
    /// A connectionless packet (server info and the like), with a 9-byte header.
    pub connless: bool,
    /// The 2 upper bits of byte 0, unused; Teeworlds and DDNet ignore them.
    pub reserved: u8,
}

impl PacketFlags {
    /// The flags from byte 0 of a packet.
    fn from_byte(byte: u8) -> PacketFlags {
        let flags = byte >> 2;
        PacketFlags {
            control: flags & 1 != 0,
            resend: flags & 2 != 0,
            compression: flags & 4 != 0,
            connless: flags & 8 != 0,
            reserved: flags >> 4,
        }
    }
}

/// A Teeworlds 0.7 packet of a connection: the header and the decoded payload
/// (Teeworlds 0.7 `CNetPacketConstruct`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(alias = "CNetPacketConstruct")]
pub struct Packet7 {
    /// The header's flags.
    pub flags: PacketFlags,
    /// The sequence number of the last vital chunk the sender received (10 bits).
    pub ack: u16,
    /// The number of chunks in the payload (0 for a control packet).
    pub num_chunks: u8,
    /// The connection's token, read big-endian.
    pub token: u32,
    /// The payload, Huffman-decoded when the packet was compressed.
    payload: Vec<u8>,
}

impl Packet7 {
    /// Reads a packet (a whole UDP payload), decoding a compressed payload; see the
    /// [module docs](self) for the checks.
    pub fn parse(bytes: &[u8]) -> Result<Packet7, Error> {
        let header = match bytes.get(..HEADER_SIZE) {
            Some(header) if bytes.len() <= MAX_PACKET_SIZE => header,
            Some(_) => {
                return Err(Error::limit(format!(
                    "packet: {} bytes are more than the {MAX_PACKET_SIZE} a packet can have",
                    bytes.len()
                ))
                .at(MAX_PACKET_SIZE))
            }
            None => {
                return Err(Error::malformed(format!(
                    "packet: {} bytes are too short for the {HEADER_SIZE}-byte header",
                    bytes.len()
                ))
                .at(bytes.len()))
            }
        };
        let flags = PacketFlags::from_byte(header[0]);
        if flags.connless {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "packet: connectionless packets (flag connless) are not read",
            )
            .at(0));
        }
        let ack = u16::from(header[0] & 0x03) << 8 | u16::from(header[1]);
        let num_chunks = header[2];
        let token = u32::from_be_bytes([header[3], header[4], header[5], header[6]]);
        let body = &bytes[HEADER_SIZE..];
        if flags.control {
            if flags.compression {
                return Err(
                    Error::malformed("packet: a control packet cannot be compressed").at(0),
                );
            }
            if num_chunks != 0 {
                return Err(Error::malformed(format!(
                    "packet: a control packet has no chunks, the header says {num_chunks}"
                ))
                .at(2));
            }
            if body.is_empty() {
                return Err(
                    Error::malformed("packet: a control packet needs its message byte")
                        .at(HEADER_SIZE),
                );
            }
        }
        let payload = if flags.compression {
            huffman::decompress(body, MAX_PAYLOAD).map_err(|error| match error {
                HuffmanError::Truncated => Error::malformed(format!(
                    "packet: the compressed payload ({} bytes) ends before its end symbol",
                    body.len()
                ))
                .at(HEADER_SIZE),
                HuffmanError::TooLong { limit } => Error::limit(format!(
                    "packet: the compressed payload decodes to more than {limit} bytes"
                ))
                .at(HEADER_SIZE),
            })?
        } else {
            // At most MAX_PACKET_SIZE - HEADER_SIZE = 1393 bytes, within MAX_PAYLOAD.
            body.to_vec()
        };
        Ok(Packet7 {
            flags,
            ack,
            num_chunks,
            token,
            payload,
        })
    }

    /// The payload after the header, Huffman-decoded when the packet was compressed.
    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// The control message (`NET_CTRLMSG_*`: 0 keep-alive, 1 connect, 2 accept, 4 close,
    /// 5 token) of a control packet; `None` for a packet of chunks.
    pub fn control_message(&self) -> Option<u8> {
        match self.flags.control {
            true => self.payload.first().copied(),
            false => None,
        }
    }

    /// The chunks, in order; after an error, the iterator ends. A control packet has none.
    pub fn chunks(&self) -> Chunks<'_> {
        Chunks {
            payload: &self.payload,
            pos: 0,
            index: 0,
            count: if self.flags.control {
                0
            } else {
                self.num_chunks
            },
            failed: false,
        }
    }

    /// Bytes of the payload after the last chunk (Teeworlds ignores them), or `None` when the
    /// chunks do not parse.
    pub fn trailing_bytes(&self) -> Option<usize> {
        if self.flags.control {
            return Some(0);
        }
        let mut chunks = self.chunks();
        for chunk in chunks.by_ref() {
            chunk.ok()?;
        }
        Some(self.payload.len() - chunks.pos)
    }
}

/// The flags of a chunk header (Teeworlds `NET_CHUNKFLAG_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ChunkFlags {
    /// Sent reliably, with a sequence number, and acknowledged.
    pub vital: bool,
    /// A vital chunk sent again.
    pub resend: bool,
}

/// A chunk of a packet's payload: one message (Teeworlds `CNetChunkHeader` and the data after
/// it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "CNetChunkHeader")]
pub struct Chunk<'a> {
    /// Index of the chunk in its packet.
    pub index: usize,
    /// The header's flags.
    pub flags: ChunkFlags,
    /// The sequence number (10 bits) of a vital chunk.
    pub sequence: Option<u16>,
    /// The chunk's data (its size is the header's 12-bit size): a message.
    pub data: &'a [u8],
    /// Byte offset of the data, counted as in the [module docs](self): the header size plus
    /// the position in the payload.
    pub data_offset: usize,
}

impl<'a> Chunk<'a> {
    /// The message id at the start of the data, and where the message's fields start in the
    /// data.
    pub fn message(&self) -> Result<(MessageId, usize), Error> {
        let mut pos = 0;
        let packed = unpack_int(self.data, &mut pos)
            .map_err(|error| self.field_error("message id", error, self.data.len()))?;
        let id = MessageId {
            id: packed >> 1,
            system: packed & 1 != 0,
        };
        Ok((id, pos))
    }

    /// The error of a field of this chunk's message that does not unpack.
    fn field_error(&self, field: &str, error: UnpackError, data_len: usize) -> Error {
        let (what, at) = match error {
            UnpackError::Truncated(at) if at >= data_len => ("is missing: the chunk ends", at),
            UnpackError::Truncated(at) => ("is cut off by the end of the chunk", at),
            UnpackError::Overlong(at) => ("is a packed int longer than an int can be", at),
            // Fields are unpacked one by one (`unpack_int`), which never counts ints.
            UnpackError::TooMany { at, .. } => ("is one int too many", at),
        };
        Error::malformed(format!("chunk #{}: {field} {what}", self.index)).at(self.data_offset + at)
    }
}

/// The iterator of [`Packet7::chunks`].
#[derive(Debug, Clone)]
pub struct Chunks<'a> {
    payload: &'a [u8],
    /// Position of the next chunk header in the payload.
    pos: usize,
    index: usize,
    count: u8,
    failed: bool,
}

impl<'a> Chunks<'a> {
    fn next_chunk(&mut self) -> Result<Chunk<'a>, Error> {
        let index = self.index;
        let start = self.pos;
        let rest = self.payload.get(start..).unwrap_or_default();
        let at = |offset: usize| HEADER_SIZE + start + offset;
        let (&first, &second) = match rest {
            [first, second, ..] => (first, second),
            _ => {
                return Err(Error::malformed(format!(
                    "chunk #{index}: the header needs 2 bytes, the payload has {} left",
                    rest.len()
                ))
                .at(at(0)))
            }
        };
        let flags = ChunkFlags {
            vital: first & 0x40 != 0,
            resend: first & 0x80 != 0,
        };
        let size = usize::from(first & 0x3F) << 6 | usize::from(second & 0x3F);
        let (sequence, header_len) = if flags.vital {
            let third = *rest.get(2).ok_or_else(|| {
                Error::malformed(format!(
                    "chunk #{index}: a vital chunk's header needs 3 bytes, the payload has 2 left"
                ))
                .at(at(0))
            })?;
            let sequence = u16::from(second & 0xC0) << 2 | u16::from(third);
            (Some(sequence), 3)
        } else {
            (None, 2)
        };
        let data = rest.get(header_len..header_len + size).ok_or_else(|| {
            Error::malformed(format!(
                "chunk #{index}: size {size} runs past the payload ({} bytes left)",
                rest.len() - header_len
            ))
            .at(at(0))
        })?;
        self.pos = start + header_len + size;
        Ok(Chunk {
            index,
            flags,
            sequence,
            data,
            data_offset: at(header_len),
        })
    }
}

impl<'a> Iterator for Chunks<'a> {
    type Item = Result<Chunk<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.index >= usize::from(self.count) {
            return None;
        }
        let chunk = self.next_chunk();
        self.index += 1;
        self.failed = chunk.is_err();
        Some(chunk)
    }
}

/// A message id: the number and whether it is a system (engine) message or a game message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MessageId {
    /// The message number.
    pub id: i32,
    /// A system message (`NETMSG_*`) rather than a game message (`NETMSGTYPE_*`).
    pub system: bool,
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match (self.system, self.id) {
            (true, MSG_SNAP) => "sys.snap",
            (true, MSG_SNAP_EMPTY) => "sys.snap_empty",
            (true, MSG_SNAP_SINGLE) => "sys.snap_single",
            (true, _) => return write!(f, "sys {}", self.id),
            (false, _) => return write!(f, "game {}", self.id),
        };
        f.write_str(name)
    }
}

/// A snapshot system message of 0.7 (`NETMSG_SNAP`, `NETMSG_SNAPEMPTY`, `NETMSG_SNAPSINGLE`),
/// its fields as sent except `delta_tick`, which is derived: the message holds
/// `tick - delta_tick`, and a negative delta tick (the server sends -1, so the field is
/// `tick + 1`) means the delta is against the empty snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapMessage<'a> {
    /// One part of a snapshot delta cut into several (`sys.snap`).
    Snap {
        /// The snapshot's tick.
        tick: i32,
        /// The tick of the snapshot the delta is against; negative for the empty snapshot.
        delta_tick: i32,
        /// How many parts the delta is cut into.
        num_parts: i32,
        /// Which part this is, from 0.
        part: i32,
        /// The snapshot's checksum (the wrapping sum of its item data).
        crc: i32,
        /// This part of the packed delta.
        data: &'a [u8],
    },
    /// A whole snapshot delta in one message (`sys.snap_single`).
    Single {
        /// The snapshot's tick.
        tick: i32,
        /// The tick of the snapshot the delta is against; negative for the empty snapshot.
        delta_tick: i32,
        /// The snapshot's checksum (the wrapping sum of its item data).
        crc: i32,
        /// The packed delta.
        data: &'a [u8],
    },
    /// A snapshot equal to its delta base (`sys.snap_empty`).
    Empty {
        /// The snapshot's tick.
        tick: i32,
        /// The tick of the snapshot it equals; negative for the empty snapshot.
        delta_tick: i32,
    },
}

impl<'a> SnapMessage<'a> {
    /// Reads the snapshot message of a chunk; `None` when the chunk holds another message.
    pub fn parse(chunk: &Chunk<'a>) -> Result<Option<SnapMessage<'a>>, Error> {
        let (id, pos) = chunk.message()?;
        if !id.system || !matches!(id.id, MSG_SNAP | MSG_SNAP_EMPTY | MSG_SNAP_SINGLE) {
            return Ok(None);
        }
        let mut fields = Fields { chunk, id, pos };
        let (tick, _) = fields.next("tick")?;
        let (tick_minus_delta, at) = fields.next("tick - delta_tick")?;
        let delta_tick = tick.checked_sub(tick_minus_delta).ok_or_else(|| {
            fields.error(
                format!("delta_tick = {tick} - {tick_minus_delta} overflows an int"),
                at,
            )
        })?;
        if id.id == MSG_SNAP_EMPTY {
            fields.end()?;
            return Ok(Some(SnapMessage::Empty { tick, delta_tick }));
        }
        let (num_parts, part) = if id.id == MSG_SNAP {
            let (num_parts, at) = fields.next("num_parts")?;
            if !(1..=MAX_PARTS).contains(&num_parts) {
                let message = format!("num_parts {num_parts} is not 1 to {MAX_PARTS}");
                return Err(fields.error(message, at));
            }
            let (part, at) = fields.next("part")?;
            if !(0..num_parts).contains(&part) {
                let message = format!("part {part} is not 0 to num_parts - 1 = {}", num_parts - 1);
                return Err(fields.error(message, at));
            }
            (num_parts, part)
        } else {
            (1, 0)
        };
        let (crc, _) = fields.next("crc")?;
        let (part_size, at) = fields.next("part_size")?;
        let size = usize::try_from(part_size)
            .ok()
            .filter(|&size| size <= MAX_PART_SIZE)
            .ok_or_else(|| {
                let message = format!("part_size {part_size} is not 0 to {MAX_PART_SIZE}");
                fields.error(message, at)
            })?;
        let start = fields.pos;
        let part_data = chunk.data.get(start..start + size).ok_or_else(|| {
            let message = format!(
                "part_size {size} runs past the chunk ({} bytes left)",
                chunk.data.len() - start
            );
            fields.error(message, start)
        })?;
        fields.pos += size;
        fields.end()?;
        Ok(Some(match id.id {
            MSG_SNAP => SnapMessage::Snap {
                tick,
                delta_tick,
                num_parts,
                part,
                crc,
                data: part_data,
            },
            _ => SnapMessage::Single {
                tick,
                delta_tick,
                crc,
                data: part_data,
            },
        }))
    }

    /// The message's name on the wire (`sys.snap`, `sys.snap_single`, `sys.snap_empty`).
    pub fn name(&self) -> &'static str {
        match self {
            SnapMessage::Snap { .. } => "sys.snap",
            SnapMessage::Single { .. } => "sys.snap_single",
            SnapMessage::Empty { .. } => "sys.snap_empty",
        }
    }

    /// The snapshot's tick.
    pub fn tick(&self) -> i32 {
        match *self {
            SnapMessage::Snap { tick, .. }
            | SnapMessage::Single { tick, .. }
            | SnapMessage::Empty { tick, .. } => tick,
        }
    }

    /// The tick of the delta base; negative for the empty snapshot.
    pub fn delta_tick(&self) -> i32 {
        match *self {
            SnapMessage::Snap { delta_tick, .. }
            | SnapMessage::Single { delta_tick, .. }
            | SnapMessage::Empty { delta_tick, .. } => delta_tick,
        }
    }

    /// Whether the delta is against the empty snapshot (a negative delta tick, as clients
    /// read it: DDNet `CClient::ProcessServerPacket`).
    pub fn is_against_empty(&self) -> bool {
        self.delta_tick() < 0
    }

    /// The number of parts the snapshot is cut into (1 for `snap_single` and `snap_empty`).
    pub fn num_parts(&self) -> i32 {
        match *self {
            SnapMessage::Snap { num_parts, .. } => num_parts,
            _ => 1,
        }
    }

    /// Which part this is (0 for `snap_single` and `snap_empty`).
    pub fn part(&self) -> i32 {
        match *self {
            SnapMessage::Snap { part, .. } => part,
            _ => 0,
        }
    }

    /// The checksum the server sent; `None` for `snap_empty`, which has none.
    pub fn crc(&self) -> Option<i32> {
        match *self {
            SnapMessage::Snap { crc, .. } | SnapMessage::Single { crc, .. } => Some(crc),
            SnapMessage::Empty { .. } => None,
        }
    }

    /// This message's part of the packed delta (empty for `snap_empty`).
    pub fn data(&self) -> &'a [u8] {
        match *self {
            SnapMessage::Snap { data, .. } | SnapMessage::Single { data, .. } => data,
            SnapMessage::Empty { .. } => &[],
        }
    }
}

/// The fields of a message in a chunk, read in order.
struct Fields<'c, 'a> {
    chunk: &'c Chunk<'a>,
    id: MessageId,
    /// Position of the next field in the chunk's data.
    pos: usize,
}

impl Fields<'_, '_> {
    /// The next packed int, and where it starts in the chunk's data.
    fn next(&mut self, name: &str) -> Result<(i32, usize), Error> {
        let start = self.pos;
        let data = self.chunk.data;
        unpack_int(data, &mut self.pos)
            .map(|value| (value, start))
            .map_err(|error| {
                let field = format!("{}: {name}", self.id);
                self.chunk.field_error(&field, error, data.len())
            })
    }

    /// An error about the message at `at` in the chunk's data.
    fn error(&self, message: String, at: usize) -> Error {
        Error::malformed(format!(
            "chunk #{}: {}: {message}",
            self.chunk.index, self.id
        ))
        .at(self.chunk.data_offset + at)
    }

    /// Refuses bytes after the last field.
    fn end(&self) -> Result<(), Error> {
        match self.chunk.data.len() - self.pos {
            0 => Ok(()),
            1 => Err(self.error("1 byte after the message's last field".into(), self.pos)),
            left => Err(self.error(
                format!("{left} bytes after the message's last field"),
                self.pos,
            )),
        }
    }
}

/// A snapshot as received: its parts joined into the whole packed delta.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssembledSnap {
    /// The snapshot's tick.
    pub tick: i32,
    /// The tick of the delta base; negative for the empty snapshot.
    pub delta_tick: i32,
    /// The checksum the server sent; `None` for `snap_empty`.
    pub crc: Option<i32>,
    /// The number of parts joined.
    pub num_parts: i32,
    /// The packed delta, every part's data in part order.
    pub data: Vec<u8>,
}

impl AssembledSnap {
    /// Joins the messages of one snapshot, in any order: a `snap_single` or a `snap_empty`
    /// alone, or every part of a `snap`; see the [module docs](self) for the checks.
    pub fn join(messages: &[SnapMessage<'_>]) -> Result<AssembledSnap, Error> {
        let first = messages
            .first()
            .ok_or_else(|| Error::malformed("snapshot parts: no message to join"))?;
        let what = format!("snapshot of tick {}", first.tick());
        if messages.len() > 1 {
            if let Some(alone) = messages
                .iter()
                .find(|message| !matches!(message, SnapMessage::Snap { .. }))
            {
                return Err(Error::malformed(format!(
                    "{what}: a {} stands alone, but {} messages were given",
                    alone.name(),
                    messages.len()
                )));
            }
        }
        let num_parts = first.num_parts();
        let mut parts: Vec<Option<&[u8]>> = vec![None; num_parts.clamp(1, MAX_PARTS) as usize];
        for message in messages {
            let same = |a: i32, b: i32, field: &str| match a == b {
                true => Ok(()),
                false => Err(Error::malformed(format!(
                    "{what}: part {} has {field} {a}, the first message {b}",
                    message.part()
                ))),
            };
            same(message.tick(), first.tick(), "tick")?;
            same(message.delta_tick(), first.delta_tick(), "delta tick")?;
            same(message.num_parts(), num_parts, "num_parts")?;
            if message.crc() != first.crc() {
                return Err(Error::malformed(format!(
                    "{what}: part {} has crc {:?}, the first message {:?}",
                    message.part(),
                    message.crc(),
                    first.crc()
                )));
            }
            let slot = usize::try_from(message.part())
                .ok()
                .and_then(|part| parts.get_mut(part))
                .ok_or_else(|| {
                    Error::malformed(format!(
                        "{what}: part {} is not below num_parts {num_parts}",
                        message.part()
                    ))
                })?;
            if slot.replace(message.data()).is_some() {
                return Err(Error::malformed(format!(
                    "{what}: part {} is given twice",
                    message.part()
                )));
            }
        }
        let mut data = Vec::new();
        let last = parts.len() - 1;
        for (index, part) in parts.into_iter().enumerate() {
            let part = part.ok_or_else(|| {
                Error::malformed(format!(
                    "{what}: part {index} is missing (parts 0 to {last} make the snapshot)"
                ))
            })?;
            if index < last && part.len() != MAX_PART_SIZE {
                return Err(Error::malformed(format!(
                    "{what}: part {index} has {} bytes; every part but the last ({last}) has \
                     {MAX_PART_SIZE}",
                    part.len()
                )));
            }
            data.extend_from_slice(part);
        }
        Ok(AssembledSnap {
            tick: first.tick(),
            delta_tick: first.delta_tick(),
            crc: first.crc(),
            num_parts,
            data,
        })
    }

    /// Whether the delta is against the empty snapshot (a negative delta tick).
    pub fn is_against_empty(&self) -> bool {
        self.delta_tick < 0
    }

    /// The snapshot delta, unpacked in the 0.7 protocol's pre-agreed sizes. Errors end in
    /// ", in the delta data of the snapshot of tick N", and their offsets are byte offsets in
    /// [`data`](Self::data) (the parts joined). No data is the empty delta.
    pub fn delta(&self) -> Result<SnapshotDelta, Error> {
        SnapshotDelta::from_packed(&self.data, &SizeTable::teeworlds_07())
            .map_err(|error| self.context(error, "in the delta data"))
    }

    /// Applies the delta to its base (the snapshot of [`delta_tick`](Self::delta_tick), or
    /// [`Snapshot::empty`] when [`is_against_empty`](Self::is_against_empty)) and checks the
    /// result's checksum against the CRC the server sent.
    pub fn rebuild(&self, base: &Snapshot) -> Result<Snapshot, Error> {
        let snapshot = (base.apply(&self.delta()?))
            .map_err(|error| self.context(error, "applying the delta"))?;
        match self.crc {
            Some(crc) if snapshot.checksum() != crc => Err(Error::malformed(format!(
                "snapshot of tick {}: the rebuilt snapshot's checksum is {}, the server sent {crc}",
                self.tick,
                snapshot.checksum()
            ))),
            _ => Ok(snapshot),
        }
    }

    /// `error` of the snapshot layer, its message ending in what it was doing to which
    /// snapshot; kind, location and offset kept.
    fn context(&self, error: Error, doing: &str) -> Error {
        let message = format!(
            "{}, {doing} of the snapshot of tick {}",
            error.message(),
            self.tick
        );
        let mut out = Error::new(error.kind(), message);
        if let Some(location) = error.location() {
            out = out.located(location);
        }
        if let Some(offset) = error.offset() {
            out = out.at(offset);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snap::packing::pack_ints;

    /// A packet of the given chunks (header bytes and data), uncompressed.
    fn packet(flags: u8, chunks: &[(&[u8], &[u8])]) -> Vec<u8> {
        let mut bytes = vec![
            flags << 2 | 0x01, // flags, ack bits 8-9
            0x23,              // ack bits 0-7
            chunks.len() as u8,
            0xDE,
            0xAD,
            0xBE,
            0xEF, // token
        ];
        for (header, data) in chunks {
            bytes.extend_from_slice(header);
            bytes.extend_from_slice(data);
        }
        bytes
    }

    /// The ints of a message, packed after its id.
    fn message(id: i32, system: bool, fields: &[i32]) -> Vec<u8> {
        let mut ints = vec![id << 1 | i32::from(system)];
        ints.extend_from_slice(fields);
        pack_ints(&ints)
    }

    #[test]
    fn header_fields() {
        let bytes = packet(0, &[]);
        let packet = Packet7::parse(&bytes).unwrap();
        assert_eq!(packet.flags, PacketFlags::default());
        assert_eq!(packet.ack, 0x123);
        assert_eq!(packet.num_chunks, 0);
        assert_eq!(packet.token, 0xDEAD_BEEF);
        assert_eq!(packet.chunks().count(), 0);
        // The reserved bits are kept, not refused.
        let mut bytes = bytes;
        bytes[0] |= 0xC0;
        assert_eq!(Packet7::parse(&bytes).unwrap().flags.reserved, 3);
    }

    #[test]
    fn chunk_headers_split_the_size_six_six() {
        let data = message(MSG_SNAP_EMPTY, true, &[100, 101]);
        let size = data.len() as u8;
        let long = vec![0u8; 0x41]; // 65 bytes: needs the upper size bits
        let bytes = packet(
            0,
            &[
                (&[0x40, 0x80 | size, 0x05], &data), // vital, sequence 0x205
                (&[0x81, 0x01], &long),              // resend, not vital, size 64 + 1
            ],
        );
        let packet = Packet7::parse(&bytes).unwrap();
        let chunks: Vec<Chunk<'_>> = packet.chunks().map(Result::unwrap).collect();
        assert_eq!(chunks.len(), 2);
        assert!(chunks[0].flags.vital && !chunks[0].flags.resend);
        assert_eq!(chunks[0].sequence, Some(0x205));
        assert_eq!(chunks[0].data, data);
        assert_eq!(chunks[0].data_offset, HEADER_SIZE + 3);
        assert_eq!(
            chunks[1].flags,
            ChunkFlags {
                vital: false,
                resend: true
            }
        );
        assert_eq!(chunks[1].sequence, None);
        assert_eq!(chunks[1].data.len(), 65);
        assert_eq!(packet.trailing_bytes(), Some(0));
        let message = SnapMessage::parse(&chunks[0]).unwrap().unwrap();
        assert_eq!(
            message,
            SnapMessage::Empty {
                tick: 100,
                delta_tick: -1
            }
        );
        assert!(message.is_against_empty());
        // A game message with id 6 is not a snapshot.
        assert_eq!(SnapMessage::parse(&chunks[1]).unwrap(), None);
    }

    #[test]
    fn compressed_payload() {
        let data = message(MSG_SNAP_SINGLE, true, &[740, 741, 0, 0]);
        let mut payload = vec![0x00, data.len() as u8];
        payload.extend_from_slice(&data);
        let mut bytes = packet(4, &[]);
        bytes[2] = 1;
        bytes.extend(huffman::compress(&payload));
        let packet = Packet7::parse(&bytes).unwrap();
        assert!(packet.flags.compression);
        assert_eq!(packet.payload(), payload);
        let chunk = packet.chunks().next().unwrap().unwrap();
        let snap = AssembledSnap::join(&[SnapMessage::parse(&chunk).unwrap().unwrap()]).unwrap();
        assert_eq!((snap.tick, snap.delta_tick, snap.crc), (740, -1, Some(0)));
        // No data is the empty delta; the empty snapshot's checksum is 0.
        assert!(snap.rebuild(&Snapshot::empty()).unwrap().is_empty());
    }

    #[test]
    fn control_packets() {
        let bytes = [0x04, 0, 0, 1, 2, 3, 4, 4, b'b', b'y', b'e', 0];
        let packet = Packet7::parse(&bytes).unwrap();
        assert_eq!(packet.control_message(), Some(4));
        assert_eq!(packet.chunks().count(), 0);
        let with_chunks = [0x04, 0, 1, 1, 2, 3, 4, 4];
        assert_eq!(
            Packet7::parse(&with_chunks).unwrap_err().to_string(),
            "packet: a control packet has no chunks, the header says 1 (at byte 0x2)"
        );
        let connless = [0x21, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(
            Packet7::parse(&connless).unwrap_err().kind(),
            ErrorKind::Unsupported
        );
    }

    #[test]
    fn errors_name_chunk_and_offset() {
        let bytes = packet(0, &[(&[0x00, 0x05], &[1, 2])]);
        assert_eq!(
            Packet7::parse(&bytes)
                .unwrap()
                .chunks()
                .next()
                .unwrap()
                .unwrap_err()
                .to_string(),
            "chunk #0: size 5 runs past the payload (2 bytes left) (at byte 0x7)"
        );
        let data = message(MSG_SNAP, true, &[10, 11, 2, 2, 0, 0]);
        let header = [0x00, data.len() as u8];
        let bytes = packet(0, &[(&header, &data)]);
        let packet = Packet7::parse(&bytes).unwrap();
        let chunk = packet.chunks().next().unwrap().unwrap();
        assert_eq!(
            SnapMessage::parse(&chunk).unwrap_err().to_string(),
            "chunk #0: sys.snap: part 2 is not 0 to num_parts - 1 = 1 (at byte 0xd)"
        );
    }

    #[test]
    fn joining_checks_parts() {
        let full = [7u8; MAX_PART_SIZE];
        let part = |part: i32, data: &'static [u8]| SnapMessage::Snap {
            tick: 5,
            delta_tick: -1,
            num_parts: 3,
            part,
            crc: 9,
            data,
        };
        let full: &'static [u8] = Box::leak(Box::new(full));
        let joined = AssembledSnap::join(&[part(2, &[1, 2]), part(0, full), part(1, full)]);
        assert_eq!(joined.unwrap().data.len(), 2 * MAX_PART_SIZE + 2);
        let missing = AssembledSnap::join(&[part(2, &[1]), part(0, full)]).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "snapshot of tick 5: part 1 is missing (parts 0 to 2 make the snapshot)"
        );
        let twice = AssembledSnap::join(&[part(0, full), part(0, full)]).unwrap_err();
        assert_eq!(
            twice.to_string(),
            "snapshot of tick 5: part 0 is given twice"
        );
        let short = AssembledSnap::join(&[part(0, &[1]), part(1, full), part(2, &[1])]);
        assert!(short
            .unwrap_err()
            .to_string()
            .contains("every part but the last"));
        let mut other = part(1, full);
        if let SnapMessage::Snap { crc, .. } = &mut other {
            *crc = 10;
        }
        let mixed = AssembledSnap::join(&[part(0, full), other]).unwrap_err();
        assert!(mixed.to_string().contains("crc"), "{mixed}");
    }
}
