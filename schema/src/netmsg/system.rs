//! System (engine) messages that servers send (DDNet `src/engine/server/server.cpp` and the
//! client's reading in `src/engine/client/client.cpp`; Teeworlds 0.7.5 `server.cpp`). Clients
//! do not record these in demos, DDNet's server-side recorder may; the network carries them
//! all. Messages without fields use [`super::game::NoFields`].

use binrw::binrw;
use binrw::helpers::until_eof;

use twcodec_schema_derive::describe;

use super::fields::{
    optional_int, optional_string, NetString, Sha256Bytes, SizedData, UuidBytes, VarInt,
};

/// `NETMSG_MAP_CHANGE` (0.6/DDNet): the map to load.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MapChange {
    /// The map's name.
    pub name: NetString,
    /// The map file's CRC-32.
    pub crc: VarInt,
    /// The map file's size in bytes.
    pub size: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `NETMSG_MAP_CHANGE` (0.7): the map to load and how it is sent.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MapChange7 {
    /// The map's name.
    pub name: NetString,
    /// The map file's CRC-32.
    pub crc: VarInt,
    /// The map file's size in bytes.
    pub size: VarInt,
    /// Chunks the client may ask for at once.
    pub chunk_num: VarInt,
    /// Bytes per chunk.
    pub chunk_size: VarInt,
    /// The map file's SHA-256.
    pub sha256: Sha256Bytes,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `NETMSG_MAP_DATA` (0.6/DDNet): a chunk of the map file.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MapData {
    /// 1 for the last chunk.
    pub last: VarInt,
    /// The map file's CRC-32.
    pub crc: VarInt,
    /// The chunk's number.
    pub chunk: VarInt,
    /// The chunk's bytes.
    pub data: SizedData,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `NETMSG_MAP_DATA` (0.7): a chunk of the map file, nothing else.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MapData7 {
    /// The chunk's bytes: the rest of the message.
    #[br(parse_with = until_eof)]
    pub data: Vec<u8>,
}

/// `NETMSG_SNAP` (both protocols): one part of a snapshot delta cut into several
/// (docs/format-notes.md, "0.7 network framing").
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Snap {
    /// The snapshot's tick.
    pub tick: VarInt,
    /// `tick` minus the tick of the snapshot the delta is against.
    pub delta_tick: VarInt,
    /// How many parts.
    pub num_parts: VarInt,
    /// This part's number.
    pub part: VarInt,
    /// The snapshot's checksum.
    pub crc: VarInt,
    /// This part of the packed delta.
    pub data: SizedData,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `NETMSG_SNAPEMPTY` (both protocols): the snapshot is the one it is a delta against.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SnapEmpty {
    /// The snapshot's tick.
    pub tick: VarInt,
    /// `tick` minus the tick of the snapshot the delta is against.
    pub delta_tick: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `NETMSG_SNAPSINGLE` (both protocols): a snapshot delta in one part.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SnapSingle {
    /// The snapshot's tick.
    pub tick: VarInt,
    /// `tick` minus the tick of the snapshot the delta is against.
    pub delta_tick: VarInt,
    /// The snapshot's checksum.
    pub crc: VarInt,
    /// The packed delta.
    pub data: SizedData,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `NETMSG_INPUTTIMING` (both protocols): how early the client's input arrived.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct InputTiming {
    /// The tick the input was for.
    pub intended_tick: VarInt,
    /// Milliseconds to spare (negative: late).
    pub time_left: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `NETMSG_RCON_AUTH_STATUS` (0.6/DDNet): the result of a remote console login.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RconAuthStatus {
    /// 0 or 1: logged in.
    pub authed: VarInt,
    /// 0 or 1: the server sends its command list; older servers leave it out.
    #[br(parse_with = optional_int)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub cmdlist: Option<VarInt>,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `NETMSG_RCON_LINE` (both protocols): a line of the remote console.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RconLine {
    /// The line.
    pub line: NetString,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `NETMSG_RCON_CMD_ADD` (both protocols): a remote console command the client may use.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RconCmdAdd {
    /// The command.
    pub name: NetString,
    /// Its help text.
    pub help: NetString,
    /// Its parameters, in the console's format.
    pub params: NetString,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// A system message that is one name (`NETMSG_RCON_CMD_REM`, 0.7's
/// `NETMSG_MAPLIST_ENTRY_ADD` and `_REM`): the registry line names it.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NameMessage {
    /// The name.
    pub name: NetString,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `NETMSG_CAPABILITIES` (DDNet, UUID `capabilities@ddnet.tw`): what the server supports.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Capabilities {
    /// The capabilities' version.
    pub version: VarInt,
    /// Flags: 1 DDNet, 2 chat timeout code, 4 any player flag, 8 ping ex, 16 allow dummy,
    /// 32 sync weapon input.
    pub flags: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `NETMSG_MAP_DETAILS` (DDNet, UUID `map-details@ddnet.tw`): the map to load, with its
/// SHA-256 and where to download it.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MapDetails {
    /// The map's name.
    pub name: NetString,
    /// The map file's SHA-256.
    pub sha256: Sha256Bytes,
    /// The map file's CRC-32.
    pub crc: VarInt,
    /// The map file's size in bytes.
    pub size: VarInt,
    /// Where to download the map; empty for the server itself; older servers leave it out.
    #[br(parse_with = optional_string)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub url: Option<NetString>,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// A system message that is one number (DDNet's `NETMSG_REDIRECT` port,
/// `NETMSG_RCON_CMD_GROUP_START` count, `NETMSG_RCONTYPE` flags): the registry line names it.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NumberMessage {
    /// The number.
    pub value: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `NETMSG_PINGEX` and `NETMSG_PONGEX` (DDNet, UUIDs `ping@ddnet.tw` and `pong@ddnet.tw`): a
/// ping, and its answer with the same id.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PingEx {
    /// The ping's id, a random UUID.
    pub id: UuidBytes,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}
