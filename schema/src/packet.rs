//! The framing of connection packets: the packet header and the chunk headers of Teeworlds
//! 0.6/DDNet and Teeworlds 0.7 (docs/format-notes.md, "0.7 network framing"; DDNet
//! `src/engine/shared/network.h` and `network.cpp`, `CNetBase::UnpackPacket`, `SendPacket`,
//! `CNetChunkHeader::Pack` and `Unpack`; Teeworlds 0.7 the same files).
//!
//! ```text
//! packet (0.6/DDNet)  flags:6 ack:10  num_chunks:8                     payload
//! packet (0.7)        flags:6 ack:10  num_chunks:8  token:32 (big-endian)  payload
//!                     payload Huffman-coded as a whole when the compression flag is set
//! chunk (0.6/DDNet)   resend:1 vital:1 size:6 (high)  seq:4 (high) size:4 (low)  [seq:8]  data
//! chunk (0.7)         resend:1 vital:1 size:6 (high)  seq:2 (high) size:6 (low)  [seq:8]  data
//!                     the third byte only for vital chunks
//! ```
//!
//! The headers are binrw structures ([`PacketHeader6`], [`PacketHeader7`], [`ChunkHeader6`],
//! [`ChunkHeader7`]) whose bits are laid out by `modular-bitfield` structures ([`PacketBits6`],
//! [`PacketBits7`], [`ChunkBits6`], [`ChunkBits7`]): each header's first two bytes are one
//! big-endian `u16`, and the bitfield names its bits from the lowest up. Every bit is kept, so
//! writing gives back the bytes read.
//!
//! The two versions differ in the meaning of the flag bits, in the 0.7 token, and in how the
//! chunk header splits its size: 0.7 has 12 bits (6 + 6), 0.6 10 (6 + 4). The 10-bit sequence
//! number of a vital chunk takes the bits of the second byte that the size leaves and all of
//! the third; in 0.6 the 4 bits of the second byte are the sequence's bits 6 to 9, so its bits
//! 6 and 7 are sent twice, and the game ORs them ([`ChunkHeader6::sequence`]).
//!
//! What follows the headers (the payload, its chunks' data, the messages in them) and what a
//! reader checks is the codec's business (`twcodec::packet`); the message header is
//! [`crate::netmsg::MessageHeader`]. Connectionless packets (the connless flag: server info,
//! the 0.7 token handshake) have headers of their own that this module does not describe.

use std::fmt;

use binrw::binrw;
use modular_bitfield::prelude::*;
#[cfg(feature = "serde")]
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[cfg(feature = "serde")]
use crate::map::common::deserialize_flags;
use crate::map::common::flag_names;
use crate::SchemaError;
use twcodec_schema_derive::describe;

/// Most bytes a packet can have, header included (`NET_MAX_PACKETSIZE`, both versions).
#[doc(alias = "NET_MAX_PACKETSIZE")]
pub const MAX_PACKET_SIZE: usize = 1400;

/// Sequence numbers and acks count modulo this (`NET_MAX_SEQUENCE`): they have 10 bits.
#[doc(alias = "NET_MAX_SEQUENCE")]
pub const MAX_SEQUENCE: u16 = 1 << 10;

/// Defines the helpers of a flags bitfield of one byte: `bits`, `from_bits`, `names`, and
/// serde as the list of set flag names (`["control", "compression"]`), with `unknown(0x..)`
/// for set bits that have no name.
macro_rules! flag_set {
    ($ty:ident, $width:literal, [$($name:ident),* $(,)?]) => {
        impl $ty {
            /// The names of the flags, bit 0 first.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            /// The flags as a number, bit 0 the first flag.
            pub fn bits(self) -> u8 {
                self.into_bytes()[0]
            }

            /// The flags of a number; bits past the width are dropped.
            pub fn from_bits(bits: u8) -> $ty {
                $ty::from_bytes([bits & ((1u16 << $width) - 1) as u8])
            }

            /// The names of the set flags, then `unknown(0x..)` with the mask of set bits that
            /// have no name.
            pub fn names(self) -> Vec<String> {
                let bits = u64::from(self.bits());
                let named = (1u64 << Self::NAMES.len()) - 1;
                let set: Vec<(bool, &str)> = Self::NAMES
                    .iter()
                    .enumerate()
                    .map(|(bit, &name)| (bits & (1 << bit) != 0, name))
                    .collect();
                flag_names(&set, bits & !named)
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.names() {
                    names if names.is_empty() => f.write_str("none"),
                    names => f.write_str(&names.join(", ")),
                }
            }
        }

        #[cfg(feature = "serde")]
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_seq(self.names())
            }
        }

        #[cfg(feature = "serde")]
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let bits = deserialize_flags(deserializer, Self::NAMES, $width)?;
                Ok($ty::from_bits(bits as u8))
            }
        }
    };
}

/// The flags of a 0.6/DDNet packet: the upper 6 bits of its first byte (DDNet
/// `NET_PACKETFLAG_*`).
#[bitfield(bits = 6)]
#[derive(Specifier, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[doc(alias = "NET_PACKETFLAG_CONTROL")]
#[doc(alias = "NET_PACKETFLAG_COMPRESSION")]
pub struct PacketFlags6 {
    /// 1 (`NET_PACKETFLAG_UNUSED`): no 0.6 sender sets it. It is 0.7's control flag, and DDNet
    /// takes a packet with it for a 0.7 one (`CNetBase::UnpackPacket`).
    pub unused: bool,
    /// 2 (`NET_PACKETFLAG_TOKEN`): DDNet's connect handshake with a security token.
    pub token: bool,
    /// 4 (`NET_PACKETFLAG_CONTROL`): a control message (keep-alive, connect, accept, close)
    /// instead of chunks.
    pub control: bool,
    /// 8 (`NET_PACKETFLAG_CONNLESS`): a connectionless packet, whose header is other bytes.
    pub connless: bool,
    /// 16 (`NET_PACKETFLAG_RESEND`): the sender asks for its vital chunks to be resent.
    pub resend: bool,
    /// 32 (`NET_PACKETFLAG_COMPRESSION`): the payload is Huffman-coded.
    pub compression: bool,
}

flag_set!(
    PacketFlags6,
    6,
    [unused, token, control, connless, resend, compression]
);

/// The flags of a 0.7 packet: the upper 6 bits of its first byte (Teeworlds 0.7
/// `NET_PACKETFLAG_*`; DDNet `protocol7::NET_PACKETFLAG_*`).
#[bitfield(bits = 6)]
#[derive(Specifier, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PacketFlags7 {
    /// 1: a control message (keep-alive, connect, accept, close, token) instead of chunks.
    pub control: bool,
    /// 2: the sender asks for its vital chunks to be resent.
    pub resend: bool,
    /// 4: the payload is Huffman-coded.
    pub compression: bool,
    /// 8: a connectionless packet (server info, the token handshake), whose header is other
    /// bytes.
    pub connless: bool,
    /// 16 and 32, which have no meaning; Teeworlds ignores them, DDNet drops a packet with
    /// them (`IsValidConnectionOrientedPacket`). Kept, so that writing is lossless.
    pub reserved: B2,
}

flag_set!(PacketFlags7, 6, [control, resend, compression, connless]);

/// The first two bytes of a 0.6/DDNet packet, as one big-endian `u16`, from the lowest bit up
/// (the table at [`PacketHeader6`]).
#[bitfield(bits = 16)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PacketBits6 {
    /// The sequence number of the last vital chunk the sender received.
    pub ack: B10,
    /// The flags.
    #[bits = 6]
    pub flags: PacketFlags6,
}

/// The first two bytes of a 0.7 packet, as one big-endian `u16`, from the lowest bit up (the
/// table at [`PacketHeader7`]).
#[bitfield(bits = 16)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PacketBits7 {
    /// The sequence number of the last vital chunk the sender received.
    pub ack: B10,
    /// The flags.
    #[bits = 6]
    pub flags: PacketFlags7,
}

/// `value` as the `what` of a bitfield of `bits` bits, or the error that it does not fit.
fn fits(what: &'static str, value: u16, bits: u32) -> Result<u16, SchemaError> {
    match u32::from(value) < 1 << bits {
        true => Ok(value),
        false => Err(SchemaError::OutOfRange {
            what,
            value: i32::from(value),
            max: (1 << bits) - 1,
        }),
    }
}

impl PacketBits6 {
    /// The bits of a raw `u16` (the first two bytes, big-endian).
    pub fn from_u16(raw: u16) -> PacketBits6 {
        PacketBits6::from_bytes(raw.to_le_bytes())
    }

    /// The raw `u16` of flags and an ack, or the error that the ack has more than 10 bits.
    pub fn pack(flags: PacketFlags6, ack: u16) -> Result<u16, SchemaError> {
        let bits = PacketBits6::new()
            .with_flags(flags)
            .with_ack(fits("ack", ack, 10)?);
        Ok(u16::from_le_bytes(bits.into_bytes()))
    }
}

impl PacketBits7 {
    /// The bits of a raw `u16` (the first two bytes, big-endian).
    pub fn from_u16(raw: u16) -> PacketBits7 {
        PacketBits7::from_bytes(raw.to_le_bytes())
    }

    /// The raw `u16` of flags and an ack, or the error that the ack has more than 10 bits.
    pub fn pack(flags: PacketFlags7, ack: u16) -> Result<u16, SchemaError> {
        let bits = PacketBits7::new()
            .with_flags(flags)
            .with_ack(fits("ack", ack, 10)?);
        Ok(u16::from_le_bytes(bits.into_bytes()))
    }
}

/// The header of a 0.6/DDNet connection packet (DDNet `CNetPacketConstruct`, written by
/// `CNetBase::SendPacket`): 3 bytes, then the payload. A DDNet peer that negotiated a security
/// token appends it, 4 big-endian bytes, to the payload after the chunks (before compression);
/// the header does not say so.
///
/// The bits of `bits` ([`PacketBits6`]), from the lowest up:
///
/// | bits | field | where |
/// |---|---|---|
/// | 0 to 9 | `ack` | byte 1, and the lowest 2 bits of byte 0 (bits 8 and 9) |
/// | 10 to 15 | `flags` ([`PacketFlags6`], bit 10 first) | the upper 6 bits of byte 0 |
#[describe]
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[doc(alias = "CNetPacketConstruct")]
#[doc(alias = "NET_PACKETHEADERSIZE")]
pub struct PacketHeader6 {
    /// Flags (upper 6 bits) and ack (lower 10 bits), laid out by [`PacketBits6`].
    #[br(temp)]
    #[bw(try_calc = PacketBits6::pack(*flags, *ack))]
    bits: u16,
    /// The flags.
    #[br(calc = PacketBits6::from_u16(bits).flags())]
    #[bw(ignore)]
    pub flags: PacketFlags6,
    /// The sequence number of the last vital chunk the sender received (10 bits).
    #[br(calc = PacketBits6::from_u16(bits).ack())]
    #[bw(ignore)]
    pub ack: u16,
    /// The number of chunks in the payload (0 for a control packet).
    pub num_chunks: u8,
}

impl PacketHeader6 {
    /// Bytes of the header (DDNet `NET_PACKETHEADERSIZE`).
    pub const SIZE: usize = 3;
}

/// The header of a 0.7 connection packet (Teeworlds 0.7 `CNetPacketConstruct`, written by
/// `CNetBase::SendPacket`): 7 bytes, then the payload.
///
/// The bits of `bits` ([`PacketBits7`]), from the lowest up:
///
/// | bits | field | where |
/// |---|---|---|
/// | 0 to 9 | `ack` | byte 1, and the lowest 2 bits of byte 0 (bits 8 and 9) |
/// | 10 to 15 | `flags` ([`PacketFlags7`], bit 10 first) | the upper 6 bits of byte 0 |
#[describe]
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct PacketHeader7 {
    /// Flags (upper 6 bits) and ack (lower 10 bits), laid out by [`PacketBits7`].
    #[br(temp)]
    #[bw(try_calc = PacketBits7::pack(*flags, *ack))]
    bits: u16,
    /// The flags.
    #[br(calc = PacketBits7::from_u16(bits).flags())]
    #[bw(ignore)]
    pub flags: PacketFlags7,
    /// The sequence number of the last vital chunk the sender received (10 bits).
    #[br(calc = PacketBits7::from_u16(bits).ack())]
    #[bw(ignore)]
    pub ack: u16,
    /// The number of chunks in the payload (0 for a control packet).
    pub num_chunks: u8,
    /// The token of the connection, agreed in the token handshake (Teeworlds writes it
    /// big-endian; DDNet `WriteSecurityToken` too).
    pub token: u32,
}

impl PacketHeader7 {
    /// Bytes of the header (Teeworlds 0.7 `NET_PACKETHEADERSIZE`).
    pub const SIZE: usize = 7;
}

/// The flags of a chunk header: its upper 2 bits (`NET_CHUNKFLAG_*`, both versions).
#[bitfield(bits = 2)]
#[derive(Specifier, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[doc(alias = "NET_CHUNKFLAG_VITAL")]
pub struct ChunkFlags {
    /// 1 (`NET_CHUNKFLAG_VITAL`): sent reliably, with a sequence number, and acknowledged.
    pub vital: bool,
    /// 2 (`NET_CHUNKFLAG_RESEND`): a vital chunk sent again.
    pub resend: bool,
}

flag_set!(ChunkFlags, 2, [vital, resend]);

/// The first two bytes of a 0.6/DDNet chunk header, as one big-endian `u16`, from the lowest
/// bit up (DDNet `CNetChunkHeader::Unpack` with a split of 4; the table at [`ChunkHeader6`]).
#[bitfield(bits = 16)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ChunkBits6 {
    /// The size's lowest 4 bits.
    pub size_low: B4,
    /// The sequence number's bits 6 to 9 (vital chunks; 0 in others).
    pub sequence_high: B4,
    /// The size's bits 4 to 9.
    pub size_high: B6,
    /// The flags.
    #[bits = 2]
    pub flags: ChunkFlags,
}

/// The first two bytes of a 0.7 chunk header, as one big-endian `u16`, from the lowest bit up
/// (Teeworlds 0.7 `CNetChunkHeader::Unpack`; DDNet's with a split of 6; the table at
/// [`ChunkHeader7`]).
#[bitfield(bits = 16)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ChunkBits7 {
    /// The size's lowest 6 bits.
    pub size_low: B6,
    /// The sequence number's bits 8 and 9 (vital chunks; 0 in others).
    pub sequence_high: B2,
    /// The size's bits 6 to 11.
    pub size_high: B6,
    /// The flags.
    #[bits = 2]
    pub flags: ChunkFlags,
}

impl ChunkBits6 {
    /// The bits of a raw `u16` (the first two bytes, big-endian).
    pub fn from_u16(raw: u16) -> ChunkBits6 {
        ChunkBits6::from_bytes(raw.to_le_bytes())
    }

    /// The size, 10 bits.
    pub fn size(self) -> u16 {
        u16::from(self.size_high()) << 4 | u16::from(self.size_low())
    }

    /// The raw `u16` of the fields, or the error that the size has more than 10 bits or
    /// `sequence_high` more than 4.
    pub fn pack(flags: ChunkFlags, size: u16, sequence_high: u8) -> Result<u16, SchemaError> {
        let size = fits("chunk size", size, 10)?;
        let sequence_high = fits("sequence_high", sequence_high.into(), 4)?;
        let bits = ChunkBits6::new()
            .with_flags(flags)
            .with_size_high((size >> 4) as u8)
            .with_size_low((size & 0xF) as u8)
            .with_sequence_high(sequence_high as u8);
        Ok(u16::from_le_bytes(bits.into_bytes()))
    }
}

impl ChunkBits7 {
    /// The bits of a raw `u16` (the first two bytes, big-endian).
    pub fn from_u16(raw: u16) -> ChunkBits7 {
        ChunkBits7::from_bytes(raw.to_le_bytes())
    }

    /// The size, 12 bits.
    pub fn size(self) -> u16 {
        u16::from(self.size_high()) << 6 | u16::from(self.size_low())
    }

    /// The raw `u16` of the fields, or the error that the size has more than 12 bits or
    /// `sequence_high` more than 2.
    pub fn pack(flags: ChunkFlags, size: u16, sequence_high: u8) -> Result<u16, SchemaError> {
        let size = fits("chunk size", size, 12)?;
        let sequence_high = fits("sequence_high", sequence_high.into(), 2)?;
        let bits = ChunkBits7::new()
            .with_flags(flags)
            .with_size_high((size >> 6) as u8)
            .with_size_low((size & 0x3F) as u8)
            .with_sequence_high(sequence_high as u8);
        Ok(u16::from_le_bytes(bits.into_bytes()))
    }
}

/// The header of a chunk of a 0.6/DDNet packet's payload (DDNet `CNetChunkHeader`, split 4):
/// 2 bytes, 3 for a vital chunk; the chunk's `size` bytes of data follow.
///
/// The bits of `bits` ([`ChunkBits6`]), from the lowest up:
///
/// | bits | field | where |
/// |---|---|---|
/// | 0 to 3 | `size`, bits 0 to 3 | the lower half of byte 1 |
/// | 4 to 7 | `sequence_high`: the sequence's bits 6 to 9 | the upper half of byte 1 |
/// | 8 to 13 | `size`, bits 4 to 9 | the lowest 6 bits of byte 0 |
/// | 14, 15 | `flags` ([`ChunkFlags`]: vital, resend) | the upper 2 bits of byte 0 |
///
/// The sequence's bits 6 and 7 are in `sequence_high` and in `sequence_low` both; DDNet ORs
/// them ([`ChunkHeader6::sequence`]).
#[describe]
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[doc(alias = "CNetChunkHeader")]
pub struct ChunkHeader6 {
    /// Flags, size and the sequence's bits 6 to 9, laid out by [`ChunkBits6`].
    #[br(temp)]
    #[bw(try_calc = ChunkBits6::pack(*flags, *size, *sequence_high))]
    bits: u16,
    /// The flags.
    #[br(calc = ChunkBits6::from_u16(bits).flags())]
    #[bw(ignore)]
    pub flags: ChunkFlags,
    /// Bytes of data after the header (10 bits: at most 1023).
    #[br(calc = ChunkBits6::from_u16(bits).size())]
    #[bw(ignore)]
    pub size: u16,
    /// The sequence number's bits 6 to 9, as sent (4 bits; senders leave them 0 in a chunk
    /// that is not vital, and readers ignore them there).
    #[br(calc = ChunkBits6::from_u16(bits).sequence_high())]
    #[bw(ignore)]
    pub sequence_high: u8,
    /// The sequence number's bits 0 to 7, for a vital chunk.
    #[br(if(flags.vital()))]
    #[bw(assert(
        sequence_low.is_some() == flags.vital(),
        "a vital chunk, and only a vital chunk, has a sequence byte"
    ))]
    pub sequence_low: Option<u8>,
}

impl ChunkHeader6 {
    /// Most bytes of data a chunk can have (DDNet `NET_MAX_CHUNK_SIZE`).
    pub const MAX_SIZE: u16 = (1 << 10) - 1;

    /// The header of a chunk of `size` bytes, vital with this sequence number when there is
    /// one; sequence numbers count modulo [`MAX_SEQUENCE`]. A size past [`Self::MAX_SIZE`] is
    /// refused when the header is written.
    pub fn new(size: u16, sequence: Option<u16>, resend: bool) -> ChunkHeader6 {
        let sequence = sequence.map(|sequence| sequence % MAX_SEQUENCE);
        ChunkHeader6 {
            flags: ChunkFlags::new()
                .with_vital(sequence.is_some())
                .with_resend(resend),
            size,
            sequence_high: sequence.map_or(0, |sequence| (sequence >> 6) as u8),
            sequence_low: sequence.map(|sequence| sequence as u8),
        }
    }

    /// The sequence number of a vital chunk, as DDNet reads it: bits 6 to 9 from the second
    /// byte ORed with bits 0 to 7 from the third, so bits 6 and 7 count when either byte sets
    /// them.
    pub fn sequence(&self) -> Option<u16> {
        let low = self.sequence_low?;
        Some(u16::from(self.sequence_high & 0xF) << 6 | u16::from(low))
    }

    /// Bytes of the header: 2, or 3 with the sequence byte.
    pub fn header_len(&self) -> usize {
        2 + usize::from(self.sequence_low.is_some())
    }
}

/// The header of a chunk of a 0.7 packet's payload (Teeworlds 0.7 `CNetChunkHeader`; DDNet's
/// with a split of 6): 2 bytes, 3 for a vital chunk; the chunk's `size` bytes of data follow.
///
/// The bits of `bits` ([`ChunkBits7`]), from the lowest up:
///
/// | bits | field | where |
/// |---|---|---|
/// | 0 to 5 | `size`, bits 0 to 5 | the lowest 6 bits of byte 1 |
/// | 6, 7 | `sequence_high`: the sequence's bits 8 and 9 | the upper 2 bits of byte 1 |
/// | 8 to 13 | `size`, bits 6 to 11 | the lowest 6 bits of byte 0 |
/// | 14, 15 | `flags` ([`ChunkFlags`]: vital, resend) | the upper 2 bits of byte 0 |
#[describe]
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct ChunkHeader7 {
    /// Flags, size and the sequence's bits 8 and 9, laid out by [`ChunkBits7`].
    #[br(temp)]
    #[bw(try_calc = ChunkBits7::pack(*flags, *size, *sequence_high))]
    bits: u16,
    /// The flags.
    #[br(calc = ChunkBits7::from_u16(bits).flags())]
    #[bw(ignore)]
    pub flags: ChunkFlags,
    /// Bytes of data after the header (12 bits: at most 4095).
    #[br(calc = ChunkBits7::from_u16(bits).size())]
    #[bw(ignore)]
    pub size: u16,
    /// The sequence number's bits 8 and 9, as sent (2 bits; senders leave them 0 in a chunk
    /// that is not vital, and readers ignore them there).
    #[br(calc = ChunkBits7::from_u16(bits).sequence_high())]
    #[bw(ignore)]
    pub sequence_high: u8,
    /// The sequence number's bits 0 to 7, for a vital chunk.
    #[br(if(flags.vital()))]
    #[bw(assert(
        sequence_low.is_some() == flags.vital(),
        "a vital chunk, and only a vital chunk, has a sequence byte"
    ))]
    pub sequence_low: Option<u8>,
}

impl ChunkHeader7 {
    /// Most bytes of data a chunk can have: what 12 bits hold.
    pub const MAX_SIZE: u16 = (1 << 12) - 1;

    /// The header of a chunk of `size` bytes, vital with this sequence number when there is
    /// one; sequence numbers count modulo [`MAX_SEQUENCE`]. A size past [`Self::MAX_SIZE`] is
    /// refused when the header is written.
    pub fn new(size: u16, sequence: Option<u16>, resend: bool) -> ChunkHeader7 {
        let sequence = sequence.map(|sequence| sequence % MAX_SEQUENCE);
        ChunkHeader7 {
            flags: ChunkFlags::new()
                .with_vital(sequence.is_some())
                .with_resend(resend),
            size,
            sequence_high: sequence.map_or(0, |sequence| (sequence >> 8) as u8),
            sequence_low: sequence.map(|sequence| sequence as u8),
        }
    }

    /// The sequence number of a vital chunk: bits 8 and 9 from the second byte, bits 0 to 7
    /// from the third.
    pub fn sequence(&self) -> Option<u16> {
        let low = self.sequence_low?;
        Some(u16::from(self.sequence_high & 0x3) << 8 | u16::from(low))
    }

    /// Bytes of the header: 2, or 3 with the sequence byte.
    pub fn header_len(&self) -> usize {
        2 + usize::from(self.sequence_low.is_some())
    }
}

#[cfg(test)]
mod tests {
    use binrw::io::Cursor;
    use binrw::{BinRead, BinWrite};
    use proptest::prelude::*;

    use super::*;

    /// Reads a `T` from `bytes` and checks that writing it gives the bytes it read.
    fn round_trip<T>(bytes: &[u8]) -> (T, usize)
    where
        T: for<'a> BinRead<Args<'a> = ()> + for<'a> BinWrite<Args<'a> = ()>,
    {
        let mut reader = Cursor::new(bytes);
        let value = T::read_options(&mut reader, binrw::Endian::Big, ()).unwrap();
        let len = reader.position() as usize;
        let mut out = Cursor::new(Vec::new());
        value
            .write_options(&mut out, binrw::Endian::Big, ())
            .unwrap();
        assert_eq!(out.into_inner(), &bytes[..len]);
        (value, len)
    }

    fn write<T>(value: &T) -> binrw::BinResult<Vec<u8>>
    where
        T: for<'a> BinWrite<Args<'a> = ()>,
    {
        let mut out = Cursor::new(Vec::new());
        value.write_options(&mut out, binrw::Endian::Big, ())?;
        Ok(out.into_inner())
    }

    #[test]
    fn packet_header_7_field_by_field() {
        let bytes = [
            0b0001_0001, // flags 0b000100 (compression), ack bits 8-9: 0b01
            0x23,        // ack bits 0-7
            0x02,        // 2 chunks
            0xDE,
            0xAD,
            0xBE,
            0xEF, // token, big-endian
            0x99, // the payload, not part of the header
        ];
        let (header, len) = round_trip::<PacketHeader7>(&bytes);
        assert_eq!(len, PacketHeader7::SIZE);
        assert!(header.flags.compression());
        assert_eq!(header.flags.names(), ["compression"]);
        assert_eq!(header.ack, 0x123);
        assert_eq!(header.num_chunks, 2);
        assert_eq!(header.token, 0xDEAD_BEEF);
        // The reserved bits are kept.
        let (header, _) = round_trip::<PacketHeader7>(&[0xC0 | 0x04, 0, 0, 0, 0, 0, 0]);
        assert!(header.flags.control());
        assert_eq!(header.flags.reserved(), 3);
        assert_eq!(header.flags.names(), ["control", "unknown(0x30)"]);
    }

    #[test]
    fn packet_header_6_field_by_field() {
        let bytes = [
            0b1000_0011, // flags 0b100000 (compression), ack bits 8-9: 0b11
            0xFF,        // ack bits 0-7
            0x05,        // 5 chunks
        ];
        let (header, len) = round_trip::<PacketHeader6>(&bytes);
        assert_eq!(len, PacketHeader6::SIZE);
        assert_eq!(header.flags.names(), ["compression"]);
        assert_eq!(header.ack, 1023);
        assert_eq!(header.num_chunks, 5);
        // The same first byte means other flags in 0.7: 0b100000 is a reserved bit there.
        let (seven, _) = round_trip::<PacketHeader7>(&[0b1000_0011, 0xFF, 5, 0, 0, 0, 0]);
        assert_eq!(seven.flags.names(), ["unknown(0x20)"]);
        // Control (4) and connless (8) of 0.6.
        let (header, _) = round_trip::<PacketHeader6>(&[(4 | 8) << 2, 0, 0]);
        assert!(header.flags.control() && header.flags.connless());
    }

    #[test]
    fn chunk_header_7_splits_the_size_six_six() {
        let bytes = [
            0b0100_0001, // vital (0x40), size bits 6-11: 1
            0b1000_0101, // sequence bits 8-9: 0b10, size bits 0-5: 5
            0x07,        // sequence bits 0-7
        ];
        let (header, len) = round_trip::<ChunkHeader7>(&bytes);
        assert_eq!(len, 3);
        assert_eq!(header.header_len(), 3);
        assert!(header.flags.vital() && !header.flags.resend());
        assert_eq!(header.size, 64 + 5);
        assert_eq!(header.sequence(), Some(0x207));
        assert_eq!(header, ChunkHeader7::new(69, Some(0x207), false));
        // Not vital: 2 bytes, no sequence; the largest size.
        let (header, len) = round_trip::<ChunkHeader7>(&[0b1011_1111, 0b0011_1111, 0x99]);
        assert_eq!(len, 2);
        assert_eq!(header.flags.names(), ["resend"]);
        assert_eq!(header.size, ChunkHeader7::MAX_SIZE);
        assert_eq!(header.sequence(), None);
    }

    #[test]
    fn chunk_header_6_splits_the_size_six_four() {
        let bytes = [
            0b0100_0010, // vital, size bits 4-9: 2
            0b1010_0011, // sequence bits 6-9: 0b1010, size bits 0-3: 3
            0xBF,        // sequence bits 0-7 (bits 6 and 7 again)
        ];
        let (header, len) = round_trip::<ChunkHeader6>(&bytes);
        assert_eq!(len, 3);
        assert_eq!(header.size, 2 * 16 + 3);
        assert_eq!(header.sequence(), Some(0x2BF));
        // What DDNet's CNetChunkHeader::Pack writes for these values.
        assert_eq!(header, ChunkHeader6::new(35, Some(0x2BF), false));
        // Bits 6 and 7 of the sequence are in both bytes; DDNet ORs them, and the bytes stay
        // as they were.
        let (header, _) = round_trip::<ChunkHeader6>(&[0x40, 0b0000_0000, 0xC1]);
        assert_eq!(header.sequence(), Some(0xC1));
        let (header, _) = round_trip::<ChunkHeader6>(&[0x40, 0b0011_0000, 0x01]);
        assert_eq!(header.sequence(), Some(0xC1));
        // The largest 0.6 size.
        let (header, _) = round_trip::<ChunkHeader6>(&[0x3F, 0x0F]);
        assert_eq!(header.size, ChunkHeader6::MAX_SIZE);
    }

    #[test]
    fn short_headers_are_errors() {
        for len in 0..PacketHeader7::SIZE {
            let bytes = vec![0xFF; len];
            assert!(
                PacketHeader7::read(&mut Cursor::new(&bytes)).is_err(),
                "{len}"
            );
        }
        for len in 0..PacketHeader6::SIZE {
            let bytes = vec![0xFF; len];
            assert!(
                PacketHeader6::read(&mut Cursor::new(&bytes)).is_err(),
                "{len}"
            );
        }
        // A vital chunk's third byte missing.
        assert!(ChunkHeader7::read(&mut Cursor::new(&[0x40, 0x01])).is_err());
        assert!(ChunkHeader6::read(&mut Cursor::new(&[0x40])).is_err());
    }

    #[test]
    fn values_that_do_not_fit_are_write_errors() {
        let header = PacketHeader7 {
            ack: MAX_SEQUENCE,
            ..PacketHeader7::default()
        };
        let error = write(&header).unwrap_err();
        let schema = error.custom_err::<SchemaError>().unwrap();
        assert_eq!(schema.to_string(), "ack 1024 is outside 0..=1023");
        let chunk = ChunkHeader6::new(ChunkHeader6::MAX_SIZE + 1, None, false);
        assert!(write(&chunk).is_err());
        let chunk = ChunkHeader7 {
            sequence_low: None,
            ..ChunkHeader7::new(1, Some(1), false)
        };
        assert!(write(&chunk).is_err());
    }

    proptest! {
        /// Whatever bytes read write back the same: every bit is kept.
        #[test]
        fn every_header_writes_back_its_bytes(bytes in prop::collection::vec(any::<u8>(), 0..9)) {
            fn check<T>(bytes: &[u8]) -> Result<(), TestCaseError>
            where
                T: for<'a> BinRead<Args<'a> = ()> + for<'a> BinWrite<Args<'a> = ()>,
            {
                let mut reader = Cursor::new(bytes);
                if let Ok(value) = T::read_options(&mut reader, binrw::Endian::Big, ()) {
                    let len = reader.position() as usize;
                    prop_assert_eq!(write(&value).unwrap(), &bytes[..len]);
                }
                Ok(())
            }
            check::<PacketHeader6>(&bytes)?;
            check::<PacketHeader7>(&bytes)?;
            check::<ChunkHeader6>(&bytes)?;
            check::<ChunkHeader7>(&bytes)?;
        }

        /// A header made from values reads back as those values.
        #[test]
        fn new_chunk_headers_read_back(
            size in 0u16..1024,
            sequence in prop::option::of(0u16..1024),
            resend: bool,
        ) {
            let six = ChunkHeader6::new(size, sequence, resend);
            let bytes = write(&six).unwrap();
            let read = ChunkHeader6::read(&mut Cursor::new(&bytes)).unwrap();
            prop_assert_eq!(read, six);
            prop_assert_eq!(read.sequence(), sequence);
            prop_assert_eq!(read.size, size);
            let seven = ChunkHeader7::new(size * 4, sequence, resend);
            let bytes = write(&seven).unwrap();
            let read = ChunkHeader7::read(&mut Cursor::new(&bytes)).unwrap();
            prop_assert_eq!(read, seven);
            prop_assert_eq!(read.sequence(), sequence);
            prop_assert_eq!(read.size, size * 4);
        }
    }
}
