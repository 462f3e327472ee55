//! Teeworlds 0.7 UDP packets, read far enough to get the snapshots out (docs/format/packet.md;
//! docs/format-notes.md, "0.7 network framing"; Teeworlds 0.7 `src/engine/shared/network.h`
//! and `network.cpp`, `CNetBase::UnpackPacket` and `CNetChunkHeader::Unpack`; DDNet
//! `src/engine/shared/network.cpp` for the same code with its 0.6 split, and
//! `src/engine/shared/protocol7.h` for the message ids).
//!
//! The layouts are the schema's, and this module reads through them and adds the checks:
//! the packet header is [`PacketHeader7`], each chunk header a [`ChunkHeader7`] (the schema's
//! `packet` module, which has the 0.6/DDNet headers too), each message starts with a
//! [`MessageHeader`], and the snapshot messages are the schema's system message types
//! ([`Snap`](twcodec_schema::netmsg::system::Snap), `SnapEmpty`, `SnapSingle`, read through
//! the message registry).
//!
//! ```text
//! packet     flags:6 ack:10  num_chunks:8  token:32 (big-endian)  payload
//!            payload Huffman-coded as a whole when the compression flag is set
//! chunk      resend:1 vital:1 size:6 (high)  seq:2 size:6 (low)  [seq:8, vital chunks only]  data
//! message    packed int (id << 1) | system, [UUID for id 0], then the message's fields
//! ```
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
//!   bytes. The 2 reserved flag bits are kept, not refused (Teeworlds ignores them).
//! - chunks ([`Packet7::chunks`]): each header and its data within the payload, for the number
//!   of chunks the header gives. Bytes after the last chunk are allowed, as in Teeworlds, and
//!   counted by [`Packet7::trailing_bytes`].
//! - message headers ([`Chunk::message`]): a chunk holds at least its packed message id, a
//!   whole packed int in its shortest form, and after id 0 a whole 16-byte UUID.
//! - snapshot messages ([`SnapMessage::parse`]): every field present, each a whole packed int
//!   in its shortest form (the schema's rule for every message field: DDNet reads longer forms,
//!   which no sender writes); `tick - delta_tick` does not overflow; `num_parts` 1 to
//!   [`MAX_PARTS`], `part` below it; the data size 0 to [`MAX_PART_SIZE`] and within the chunk
//!   (the DDNet client's checks, `CClient::ProcessServerPacket`).
//! - joining ([`AssembledSnap::join`]): one `snap_single` or `snap_empty` alone, or `snap`
//!   parts that agree on tick, delta tick, CRC and number of parts, each part once, all present,
//!   every part but the last exactly [`MAX_PART_SIZE`] bytes (clients place part `n` at byte
//!   `n * 900`).
//! - rebuilding ([`AssembledSnap::rebuild`]): the joined data unpacks to a valid snapshot delta
//!   in the 0.7 sizes ([`SnapshotDelta::from_packed`]), applies to the base, and the result's
//!   checksum is the CRC the server sent.
//!
//! # Bytes after a snapshot message's data
//!
//! A snapshot message may hold bytes after its data; [`SnapMessage::parse`] allows them and
//! leaves them out of the message. Both games' clients read the fields they need and never
//! look at what follows (DDNet `CClient::ProcessServerPacket`, Teeworlds 0.7 the same
//! function: `Unpacker.GetRaw(PartSize)`, then only `Unpacker.Error()` and the ranges are
//! checked), so a snapshot that a client takes is one this module takes. The schema's
//! message types read the same way and keep those bytes in `unknown_tail`
//! ([`crate::netmsg::decode`] gives them, and writes them back).

use twcodec_schema::netmsg::{
    FieldError, MessageError, MessageKind, MessageProblem, NetMessage, Protocol, VarInt,
};
use twcodec_schema::packet::{ChunkHeader7, PacketFlags7, PacketHeader7};

use crate::error::ErrorKind;
use crate::huffman::{self, HuffmanError};
use crate::snap::{SizeTable, Snapshot, SnapshotDelta};
use crate::Error;

pub use twcodec_schema::netmsg::{MessageHeader, MessageId};

/// Bytes of the packet header of a connection's packet (Teeworlds 0.7 `NET_PACKETHEADERSIZE`,
/// [`PacketHeader7::SIZE`]).
pub const HEADER_SIZE: usize = PacketHeader7::SIZE;

/// Most bytes a packet can have (`NET_MAX_PACKETSIZE`).
pub const MAX_PACKET_SIZE: usize = twcodec_schema::packet::MAX_PACKET_SIZE;

/// Most bytes a decoded payload can have: DDNet's `NET_MAX_PAYLOAD` (Teeworlds 0.7 allows 1391,
/// leaving room for the longer connectionless header).
pub const MAX_PAYLOAD: usize = 1394;

/// Most parts a snapshot can be cut into (`CSnapshot::MAX_PARTS`).
pub const MAX_PARTS: i32 = 64;

/// Most bytes of packed delta one snapshot message carries (`MAX_SNAPSHOT_PACKSIZE`); every
/// part but the last of a multi-part snapshot has exactly this many.
pub const MAX_PART_SIZE: usize = 900;

/// The 0.7 id of a system message kind, from the schema's registry (at compile time).
const fn id_07(kind: MessageKind) -> i32 {
    match kind.number(Protocol::Teeworlds07) {
        Some(id) => id,
        None => panic!("the registry has no 0.7 id for a snapshot message"),
    }
}

/// 0.7 system message id of `snap`, one part of a snapshot cut into several (`NETMSG_SNAP`).
#[doc(alias = "NETMSG_SNAP")]
pub const MSG_SNAP: i32 = id_07(MessageKind::Snap);

/// 0.7 system message id of `snap_empty`, a snapshot equal to its delta base
/// (`NETMSG_SNAPEMPTY`).
#[doc(alias = "NETMSG_SNAPEMPTY")]
pub const MSG_SNAP_EMPTY: i32 = id_07(MessageKind::SnapEmpty);

/// 0.7 system message id of `snap_single`, a snapshot in one message (`NETMSG_SNAPSINGLE`).
#[doc(alias = "NETMSG_SNAPSINGLE")]
pub const MSG_SNAP_SINGLE: i32 = id_07(MessageKind::SnapSingle);

/// The flags of a packet header (Teeworlds 0.7 `NET_PACKETFLAG_*`), as the schema's
/// [`PacketFlags7`] reads them.
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
    /// The 2 upper bits of byte 0, unused; Teeworlds ignores them.
    pub reserved: u8,
}

impl From<PacketFlags7> for PacketFlags {
    fn from(flags: PacketFlags7) -> PacketFlags {
        PacketFlags {
            control: flags.control(),
            resend: flags.resend(),
            compression: flags.compression(),
            connless: flags.connless(),
            reserved: flags.reserved(),
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
    /// The header as the schema reads it (every bit, for writing it back).
    header: PacketHeader7,
    /// The payload, Huffman-decoded when the packet was compressed.
    payload: Vec<u8>,
}

impl Packet7 {
    /// Reads a packet (a whole UDP payload), decoding a compressed payload; see the
    /// [module docs](self) for the checks.
    pub fn parse(bytes: &[u8]) -> Result<Packet7, Error> {
        if bytes.len() < HEADER_SIZE {
            return Err(Error::malformed(format!(
                "packet: {} bytes are too short for the {HEADER_SIZE}-byte header",
                bytes.len()
            ))
            .at(bytes.len()));
        }
        if bytes.len() > MAX_PACKET_SIZE {
            return Err(Error::limit(format!(
                "packet: {} bytes are more than the {MAX_PACKET_SIZE} a packet can have",
                bytes.len()
            ))
            .at(MAX_PACKET_SIZE));
        }
        let mut reader = binrw::io::Cursor::new(bytes);
        let header = <PacketHeader7 as binrw::BinRead>::read(&mut reader)
            .map_err(|error| Error::from_binrw(error, "packet header"))?;
        let flags = PacketFlags::from(header.flags);
        if flags.connless {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "packet: connectionless packets (flag connless) are not read",
            )
            .at(0));
        }
        let body = bytes.get(HEADER_SIZE..).unwrap_or_default();
        if flags.control {
            if flags.compression {
                return Err(
                    Error::malformed("packet: a control packet cannot be compressed").at(0),
                );
            }
            if header.num_chunks != 0 {
                return Err(Error::malformed(format!(
                    "packet: a control packet has no chunks, the header says {}",
                    header.num_chunks
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
            ack: header.ack,
            num_chunks: header.num_chunks,
            token: header.token,
            header,
            payload,
        })
    }

    /// The header as the schema reads it: writing it gives back the packet's first
    /// [`HEADER_SIZE`] bytes.
    pub fn header(&self) -> PacketHeader7 {
        self.header
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
        Some(self.payload.len().saturating_sub(chunks.pos))
    }
}

/// The flags of a chunk header (Teeworlds `NET_CHUNKFLAG_*`), as the schema's
/// [`ChunkFlags`](twcodec_schema::packet::ChunkFlags) reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ChunkFlags {
    /// Sent reliably, with a sequence number, and acknowledged.
    pub vital: bool,
    /// A vital chunk sent again.
    pub resend: bool,
}

impl From<twcodec_schema::packet::ChunkFlags> for ChunkFlags {
    fn from(flags: twcodec_schema::packet::ChunkFlags) -> ChunkFlags {
        ChunkFlags {
            vital: flags.vital(),
            resend: flags.resend(),
        }
    }
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
    /// The message header at the start of the data (the schema's [`MessageHeader`]: system
    /// flag and id, and for id 0 the UUID), and where the message's fields start in the data.
    pub fn message(&self) -> Result<(MessageHeader, usize), Error> {
        MessageHeader::parse(self.data).map_err(|error| self.message_error("message id", error))
    }

    /// The error of a message of this chunk that does not read; `what` names the field.
    fn message_error(&self, what: &str, error: MessageError) -> Error {
        let at = usize::try_from(error.at).unwrap_or(usize::MAX);
        let (what, problem) = match &error.problem {
            MessageProblem::Missing => (what, "is missing: the chunk ends".to_string()),
            MessageProblem::Field(FieldError::IntCutOff(_)) => {
                (what, "is cut off by the end of the chunk".to_string())
            }
            MessageProblem::Field(FieldError::IntOverlong(_)) => (
                what,
                "is a packed int longer than an int can be".to_string(),
            ),
            MessageProblem::Field(FieldError::IntNotShortest(_)) => (
                what,
                "is a packed int with more bytes than its value needs".to_string(),
            ),
            MessageProblem::UuidCutOff { left } => (
                "message id 0 (an extended message)",
                format!("needs a 16-byte UUID, the chunk has {left} bytes left"),
            ),
            _ => (what, format!("does not read: {error}")),
        };
        Error::malformed(format!("chunk #{}: {what} {problem}", self.index))
            .at(self.data_offset.saturating_add(at))
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
        let mut reader = binrw::io::Cursor::new(rest);
        let header = <ChunkHeader7 as binrw::BinRead>::read(&mut reader).map_err(|_| {
            // The schema's header reads 2 bytes, and a third when they say vital: a header
            // that does not read is one cut off by the end of the payload.
            let message = match rest.len() {
                0 | 1 => format!(
                    "chunk #{index}: the header needs 2 bytes, the payload has {} left",
                    rest.len()
                ),
                left => format!(
                    "chunk #{index}: a vital chunk's header needs 3 bytes, the payload has \
                     {left} left"
                ),
            };
            Error::malformed(message).at(at(0))
        })?;
        let header_len = header.header_len();
        let size = usize::from(header.size);
        let data = rest.get(header_len..header_len + size).ok_or_else(|| {
            Error::malformed(format!(
                "chunk #{index}: size {size} runs past the payload ({} bytes left)",
                rest.len().saturating_sub(header_len)
            ))
            .at(at(0))
        })?;
        self.pos = start + header_len + size;
        Ok(Chunk {
            index,
            flags: header.flags.into(),
            sequence: header.sequence(),
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
    /// Reads the snapshot message of a chunk through the schema's message types; `None` when
    /// the chunk holds another message. Bytes after the data are allowed and left out (see
    /// [the module docs](self#bytes-after-a-snapshot-messages-data)).
    pub fn parse(chunk: &Chunk<'a>) -> Result<Option<SnapMessage<'a>>, Error> {
        let (header, start) = chunk.message()?;
        let name = match header.kind(Protocol::Teeworlds07) {
            MessageKind::Snap => "sys.snap",
            MessageKind::SnapEmpty => "sys.snap_empty",
            MessageKind::SnapSingle => "sys.snap_single",
            _ => return Ok(None),
        };
        let fields = Fields { chunk, name };
        let message = NetMessage::read(chunk.data, Protocol::Teeworlds07)
            .map_err(|error| fields.read_error(error))?;
        // Where each field starts: packed ints are read in their shortest form only, so the
        // values give their lengths.
        let mut at = start;
        let mut next = |value: VarInt| {
            let field = at;
            at += packed_len(value);
            field
        };
        match message {
            NetMessage::SnapEmpty(empty) => {
                next(empty.tick);
                let delta_tick =
                    fields.delta_tick(empty.tick, empty.delta_tick, next(empty.delta_tick))?;
                Ok(Some(SnapMessage::Empty {
                    tick: empty.tick.0,
                    delta_tick,
                }))
            }
            NetMessage::SnapSingle(single) => {
                next(single.tick);
                let delta_tick =
                    fields.delta_tick(single.tick, single.delta_tick, next(single.delta_tick))?;
                next(single.crc);
                let data = fields.data(&single.data.0, next(VarInt(data_size(&single.data.0))))?;
                Ok(Some(SnapMessage::Single {
                    tick: single.tick.0,
                    delta_tick,
                    crc: single.crc.0,
                    data,
                }))
            }
            NetMessage::Snap(snap) => {
                next(snap.tick);
                let delta_tick =
                    fields.delta_tick(snap.tick, snap.delta_tick, next(snap.delta_tick))?;
                let num_parts = snap.num_parts.0;
                let num_parts_at = next(snap.num_parts);
                if !(1..=MAX_PARTS).contains(&num_parts) {
                    let message = format!("num_parts {num_parts} is not 1 to {MAX_PARTS}");
                    return Err(fields.error(message, num_parts_at));
                }
                let part = snap.part.0;
                let part_at = next(snap.part);
                if !(0..num_parts).contains(&part) {
                    let message =
                        format!("part {part} is not 0 to num_parts - 1 = {}", num_parts - 1);
                    return Err(fields.error(message, part_at));
                }
                next(snap.crc);
                let data = fields.data(&snap.data.0, next(VarInt(data_size(&snap.data.0))))?;
                Ok(Some(SnapMessage::Snap {
                    tick: snap.tick.0,
                    delta_tick,
                    num_parts,
                    part,
                    crc: snap.crc.0,
                    data,
                }))
            }
            // The kinds above are the only ones read here.
            _ => Ok(None),
        }
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

/// Bytes of the shortest packed form of `value`, the only form the schema reads.
fn packed_len(value: VarInt) -> usize {
    let mut bytes = Vec::with_capacity(VarInt::MAX_SIZE);
    value.pack(&mut bytes);
    bytes.len()
}

/// The size field of data of `len` bytes (at most a chunk's size, so it fits).
fn data_size(data: &[u8]) -> i32 {
    i32::try_from(data.len()).unwrap_or(i32::MAX)
}

/// A snapshot message of a chunk, for its errors.
struct Fields<'c, 'a> {
    chunk: &'c Chunk<'a>,
    /// The message's name (`sys.snap`).
    name: &'static str,
}

impl<'a> Fields<'_, 'a> {
    /// An error about the message at `at` in the chunk's data.
    fn error(&self, message: String, at: usize) -> Error {
        Error::malformed(format!(
            "chunk #{}: {}: {message}",
            self.chunk.index, self.name
        ))
        .at(self.chunk.data_offset.saturating_add(at))
    }

    /// The error of a message the schema does not read, its field named as this module's
    /// docs name it (`tick - delta_tick`, `part_size`).
    fn read_error(&self, error: MessageError) -> Error {
        let field = match error.field.as_deref() {
            Some("delta_tick") => "tick - delta_tick",
            Some("data") => "part_size",
            Some(field) => field,
            None => "message",
        };
        match error.problem {
            // The data's size: out of range, or more than the chunk has left.
            MessageProblem::Field(FieldError::DataSize { at, size, left }) => {
                let at = usize::try_from(at).unwrap_or(usize::MAX);
                match usize::try_from(size) {
                    Ok(size) if size <= MAX_PART_SIZE => self.error(
                        format!("part_size {size} runs past the chunk ({left} bytes left)"),
                        at,
                    ),
                    _ => self.error(
                        format!("part_size {size} is not 0 to {MAX_PART_SIZE}"),
                        at.saturating_sub(packed_len(VarInt(size))),
                    ),
                }
            }
            _ => self
                .chunk
                .message_error(&format!("{}: {field}", self.name), error),
        }
    }

    /// The delta tick, `tick - (tick - delta_tick)`, when it does not overflow; `at` is where
    /// the field starts.
    fn delta_tick(&self, tick: VarInt, tick_minus_delta: VarInt, at: usize) -> Result<i32, Error> {
        tick.0.checked_sub(tick_minus_delta.0).ok_or_else(|| {
            self.error(
                format!("delta_tick = {tick} - {tick_minus_delta} overflows an int"),
                at,
            )
        })
    }

    /// The message's data as a slice of the chunk, its size field starting at `at`: at most
    /// [`MAX_PART_SIZE`] bytes.
    fn data(&self, read: &[u8], at: usize) -> Result<&'a [u8], Error> {
        let size = read.len();
        if size > MAX_PART_SIZE {
            let message = format!("part_size {size} is not 0 to {MAX_PART_SIZE}");
            return Err(self.error(message, at));
        }
        let start = at + packed_len(VarInt(data_size(read)));
        let chunk: &'a [u8] = self.chunk.data;
        (chunk.get(start..).and_then(|rest| rest.get(..size)))
            .ok_or_else(|| self.error(format!("part_size {size} runs past the chunk"), at))
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
    fn short_and_hostile_headers_say_what_and_where() {
        for len in 0..HEADER_SIZE {
            let bytes = vec![0xFF; len];
            assert_eq!(
                Packet7::parse(&bytes).unwrap_err().to_string(),
                format!(
                    "packet: {len} bytes are too short for the 7-byte header (at byte {len:#x})"
                )
            );
        }
        // The header read is the header written: every bit, the reserved ones too.
        let mut bytes = packet(0, &[(&[0x00, 0x01], &[0x00])]);
        bytes[0] |= 0xC0;
        let packet = Packet7::parse(&bytes).unwrap();
        let mut written = binrw::io::Cursor::new(Vec::new());
        binrw::BinWrite::write(&packet.header(), &mut written).unwrap();
        assert_eq!(written.into_inner(), bytes[..HEADER_SIZE]);
        // A vital chunk whose sequence byte is missing.
        let bytes = self::packet(0, &[(&[0x40, 0x00], &[])]);
        assert_eq!(
            Packet7::parse(&bytes)
                .unwrap()
                .chunks()
                .next()
                .unwrap()
                .unwrap_err()
                .to_string(),
            "chunk #0: a vital chunk's header needs 3 bytes, the payload has 2 left (at byte 0x7)"
        );
    }

    #[test]
    fn message_headers_through_the_schema() {
        let chunk = |data: &'static [u8]| Chunk {
            index: 3,
            flags: ChunkFlags::default(),
            sequence: None,
            data,
            data_offset: 20,
        };
        let (header, at) = chunk(&[0x0D, 0x01]).message().unwrap();
        assert_eq!(
            (header.system(), header.id(), at),
            (true, MessageId::Number(6), 1)
        );
        assert_eq!(header.to_string(), "sys 6");
        let error = |data: &'static [u8]| chunk(data).message().unwrap_err().to_string();
        assert_eq!(
            error(&[]),
            "chunk #3: message id is missing: the chunk ends (at byte 0x14)"
        );
        assert_eq!(
            error(&[0x80]),
            "chunk #3: message id is cut off by the end of the chunk (at byte 0x14)"
        );
        assert_eq!(
            error(&[0x8D, 0x00]),
            "chunk #3: message id is a packed int with more bytes than its value needs (at byte \
             0x14)"
        );
        // Id 0 is an extended message: the UUID must follow.
        assert_eq!(
            error(&[0x00, 1, 2, 3]),
            "chunk #3: message id 0 (an extended message) needs a 16-byte UUID, the chunk has 3 \
             bytes left (at byte 0x15)"
        );
        // Not a snapshot message, and a snapshot message cut short.
        assert_eq!(SnapMessage::parse(&chunk(&[0x06, 0x01])).unwrap(), None);
        assert_eq!(
            SnapMessage::parse(&chunk(&[0x11, 0x05, 0x06, 0x00]))
                .unwrap_err()
                .to_string(),
            "chunk #3: sys.snap_single: part_size is missing: the chunk ends (at byte 0x18)"
        );
    }

    /// DDNet's and Teeworlds' clients ignore bytes after a snapshot message's data; so does
    /// `SnapMessage::parse`, and the schema's message keeps them.
    #[test]
    fn bytes_after_a_snapshot_messages_data_are_allowed() {
        let mut data = message(MSG_SNAP_SINGLE, true, &[10, 11, 0, 2]);
        data.extend_from_slice(&[0x00, 0x00]); // the 2 bytes of packed delta: no changes
        data.extend_from_slice(&[0xAA, 0xBB]); // 2 bytes more
        let bytes = packet(0, &[(&[0x00, data.len() as u8], &data)]);
        let packet = Packet7::parse(&bytes).unwrap();
        let chunk = packet.chunks().next().unwrap().unwrap();
        let single = SnapMessage::parse(&chunk).unwrap().unwrap();
        assert_eq!(
            single,
            SnapMessage::Single {
                tick: 10,
                delta_tick: -1,
                crc: 0,
                data: &[0x00, 0x00]
            }
        );
        let decoded = crate::netmsg::decode(chunk.data, Protocol::Teeworlds07).unwrap();
        let NetMessage::SnapSingle(single) = decoded else {
            panic!("{decoded:?}")
        };
        assert_eq!(single.unknown_tail, [0xAA, 0xBB]);
        // The same for the other two.
        let mut empty = message(MSG_SNAP_EMPTY, true, &[10, 11]);
        empty.push(0x01);
        let mut snap = message(MSG_SNAP, true, &[10, 11, 1, 0, 0, 0]);
        snap.push(0x01);
        for data in [empty, snap] {
            let bytes = self::packet(0, &[(&[0x00, data.len() as u8], &data)]);
            let packet = Packet7::parse(&bytes).unwrap();
            let chunk = packet.chunks().next().unwrap().unwrap();
            assert_eq!(SnapMessage::parse(&chunk).unwrap().unwrap().tick(), 10);
        }
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
