//! Game and system messages: what a server tells its clients, and what demos record of it
//! (docs/format-notes.md, "Messages"; DDNet `src/engine/shared/packer.cpp`,
//! `src/engine/shared/protocol_ex.cpp`, `datasrc/network.py` and `datasrc/seven/network.py`).
//!
//! ```text
//! message   packed int (id << 1) | system
//!           [16 bytes: a UUID, when the id is 0 (DDNet's extended messages)]
//!           fields: packed ints, NUL-terminated strings, raw bytes (sized by an int before them)
//! ```
//!
//! Each message type is a binrw struct of its fields ([`fields`]: [`VarInt`], [`NetString`],
//! [`SizedData`]) ending, where fields can follow, in `unknown_tail`: bytes after the fields are
//! kept and written back. The registry below (a `registry!` call) gives each type one line:
//! its ids in the 0.6/DDNet and the 0.7 protocol (or the name its UUID is derived from), whether
//! it is a system message, and a short name. From it follow [`MessageKind`], [`NetMessage`],
//! reading and writing. Every other message is kept whole as [`UnknownMessage`].
//!
//! Values are kept as sent: DDNet's receivers range-check fields and sanitise strings, this
//! module does neither; [`NetMessage::check`] lists the values outside the ranges the
//! generators give.
//!
//! | messages | module |
//! |---|---|
//! | field types, and where they fail | [`fields`] |
//! | game messages of 0.6/DDNet, and those 0.7 shares | [`game`] |
//! | game messages of 0.7 only (client info, demo-only enter and leave, race) | [`game7`] |
//! | DDNet's extended (UUID) game messages | [`ddnet`] |
//! | system messages | [`system`] |

pub mod ddnet;
pub mod fields;
pub mod game;
pub mod game7;
pub mod system;

use std::borrow::Cow;
use std::fmt;

use binrw::io::{Cursor, Write};
use binrw::{binrw, BinRead, BinWrite, Endian};

pub use fields::{FieldError, NetString, Sha256Bytes, SizedData, UuidBytes, VarInt};

use crate::uuid::Uuid;
use ddnet::{
    SvChangeInfoCooldown, SvKillMsgTeam, SvMapSoundGlobal, SvPreInput, SvSaveCode, SvYourVote,
    TextMessage,
};
use game::{
    NoFields, SvBroadcast, SvChat, SvDDRaceTime, SvEmoticon, SvKillMsg, SvMotd, SvRecord,
    SvSoundGlobal, SvTeamsState, SvTuneParams, SvVoteOptionAdd, SvVoteOptionListAdd,
    SvVoteOptionRemove, SvVoteSet, SvVoteStatus, SvWeaponPickup,
};
use game7::{
    DeClientEnter7, DeClientLeave7, SvChat7, SvCheckpoint7, SvClientDrop7, SvClientInfo7,
    SvCommandInfo, SvCommandInfoRemove, SvGameInfo7, SvGameMsg7, SvRaceFinish, SvServerSettings7,
    SvSkinChange7, SvTeam7, SvVoteOptionListAdd7, SvVoteSet7,
};
use system::{
    Capabilities, InputTiming, MapChange, MapChange7, MapData, MapData7, MapDetails, NameMessage,
    NumberMessage, PingEx, RconAuthStatus, RconCmdAdd, RconLine, Snap, SnapEmpty, SnapSingle,
};
use twcodec_schema_derive::describe;

/// The message protocol: message ids and some layouts differ between Teeworlds 0.6 (which
/// DDNet extends) and Teeworlds 0.7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Protocol {
    /// Teeworlds 0.6 and DDNet.
    Ddnet06,
    /// Teeworlds 0.7.
    Teeworlds07,
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Protocol::Ddnet06 => "0.6/DDNet",
            Protocol::Teeworlds07 => "0.7",
        })
    }
}

/// The id part of a message header: a number, or for number 0 the UUID after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum MessageId {
    /// A numbered message (never 0).
    Number(i32),
    /// An extended message: id 0, then this UUID (DDNet `NETMSG_EX` / `NETMSGTYPE_EX`).
    Uuid(Uuid),
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageId::Number(id) => write!(f, "{id}"),
            MessageId::Uuid(uuid) => write!(f, "{uuid}"),
        }
    }
}

/// The header every message starts with (docs/format-notes.md, "Messages"; DDNet
/// `CMsgPacker`, `UnpackMessageId` in `src/engine/shared/protocol_ex.cpp`): the packed int
/// `(id << 1) | system`, and for id 0 (DDNet's extended messages) the 16 bytes of a UUID.
/// Both fields are kept as sent; [`MessageHeader::system`] and [`MessageHeader::id`] read them.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CMsgPacker")]
pub struct MessageHeader {
    /// `(id << 1) | system`: the id shifted left (an arithmetic shift takes it back, so a
    /// negative id reads as sent) and the system bit.
    pub packed: VarInt,
    /// The UUID of an extended message, after id 0.
    #[br(if(packed.0 >> 1 == 0))]
    pub uuid: Option<UuidBytes>,
}

impl MessageHeader {
    /// The header of a message with this id: for [`MessageId::Uuid`], id 0 and the UUID.
    /// (`MessageId::Number(0)` gives id 0 without a UUID, which does not read back.)
    pub fn new(system: bool, id: MessageId) -> MessageHeader {
        let (number, uuid) = match id {
            MessageId::Number(number) => (number, None),
            MessageId::Uuid(uuid) => (0, Some(UuidBytes(*uuid.as_bytes()))),
        };
        MessageHeader {
            // `number << 1` wraps as the C++ does: reading takes the arithmetic shift back.
            packed: VarInt(number.wrapping_shl(1) | i32::from(system)),
            uuid,
        }
    }

    /// Whether it is a system (engine) message rather than a game message.
    pub fn system(&self) -> bool {
        self.packed.0 & 1 != 0
    }

    /// The id: the number, or for number 0 the UUID after it.
    pub fn id(&self) -> MessageId {
        match (self.packed.0 >> 1, self.uuid) {
            (0, Some(UuidBytes(bytes))) => MessageId::Uuid(Uuid::from_bytes(bytes)),
            (number, _) => MessageId::Number(number),
        }
    }

    /// The kind of message with this header in `protocol` ([`MessageKind::of`]).
    pub fn kind(&self, protocol: Protocol) -> MessageKind {
        MessageKind::of(protocol, self.system(), self.id())
    }

    /// Reads the header at the start of a message's `bytes`; returns it and where the fields
    /// start. Errors name the byte: a packed int that is missing, cut off, too long or longer
    /// than its value needs; id 0 without the 16 bytes of a UUID.
    pub fn parse(bytes: &[u8]) -> Result<(MessageHeader, usize), MessageError> {
        let mut reader = Cursor::new(bytes);
        let header = read_header(&mut reader, bytes.len() as u64)?;
        Ok((header, reader.position() as usize))
    }
}

impl fmt::Display for MessageHeader {
    /// `sys 6`, `game 3`, `game 804f149f-...`: the id, after what kind of message it is.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = if self.system() { "sys" } else { "game" };
        write!(f, "{side} {}", self.id())
    }
}

/// A message of a type the registry does not know (or not for its protocol): its id and
/// everything after the header, kept as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UnknownMessage {
    /// A system message rather than a game message.
    pub system: bool,
    /// The id.
    pub id: MessageId,
    /// The bytes after the header.
    pub payload: Vec<u8>,
}

// The registry of message types: one line per type, in four sections (game and system
// messages, numbered or named by a UUID).
//
// - numbered: `Variant(Type) = id in 0.6/DDNet / id in 0.7, "name";`, `_` for a protocol
//   without the message;
// - UUID: `Variant(Type) = "name the UUID is derived from", "name";` (the same in both
//   protocols: DDNet sends them over 0.7 connections too).
//
// A line may carry `#[cfg(...)]`. Everything else follows from the line: the kind, the message
// variant, reading and writing, the id and UUID lookups, the names in dumps
// (docs/extending.md). `registry!` is in schema/src/registry.rs.
registry! {
    /// The kinds of message the registry knows, and [`MessageKind::Unknown`].
    kind MessageKind {
        /// Any other message.
        Unknown,
    }
    /// A decoded message: one variant per registry line, each holding its type.
    value NetMessage, serde(tag = "kind", rename_all = "snake_case") {
        /// A message of a kind the registry does not know.
        Unknown(UnknownMessage),
    }
    methods {
        decode:
            /// Reads the fields of a message of kind `kind` with this header; for
            /// [`MessageKind::Unknown`], keeps the bytes after the header.
            fn read_fields(kind: MessageKind, reader: &mut Cursor<&[u8]>, header: MessageHeader)
                -> binrw::BinResult<NetMessage>
            {
                |()| BinRead::read_options(reader, Endian::Little, ()),
                _ => NetMessage::Unknown(UnknownMessage {
                    system: header.system(),
                    id: header.id(),
                    payload: (reader.get_ref().get(reader.position() as usize..))
                        .unwrap_or_default()
                        .to_vec(),
                }),
            }
        encode:
            /// Writes the fields (for an unknown message, its payload).
            fn write_fields(&self, writer: &mut Cursor<Vec<u8>>) -> binrw::BinResult<()> {
                |message| BinWrite::write_options(message, writer, Endian::Little, ()),
                NetMessage::Unknown(message) => Ok(writer.write_all(&message.payload)?),
            }
        all:
            /// Every kind the registry knows, in its order.
            pub const ALL;
        name:
            /// A short lower-case name (`sv_chat`, `snap_single`), as the libtw2 dissector
            /// names messages; the same for a message's 0.6 and 0.7 forms.
            pub const fn name(self) -> &'static str;
        uuid:
            /// The name its UUID is derived from, for a kind named by a UUID.
            pub const fn uuid_name(self) -> Option<&'static str>;
        pair:
            /// Its number in `protocol`, for a numbered kind that the protocol has.
            pub const fn number(self, protocol: Protocol) -> Option<i32>
                = [Protocol::Ddnet06, Protocol::Teeworlds07];
        group:
            /// Whether it is a system (engine) message rather than a game message.
            pub const fn is_system(self) -> bool = false;
    }
    game: pairs, group(false) {
        /// `Sv_Motd`: the message of the day.
        SvMotd(SvMotd) = 1 / 1, "sv_motd";
        /// `Sv_Broadcast`: a text in the middle of the screen.
        SvBroadcast(SvBroadcast) = 2 / 2, "sv_broadcast";
        /// `Sv_Chat` of 0.6/DDNet: team, client id, text.
        SvChat(SvChat) = 3 / _, "sv_chat";
        /// `Sv_Chat` of 0.7: mode, client id, target id, text.
        SvChat7(SvChat7) = _ / 3, "sv_chat";
        /// `Sv_Team` (0.7): a team change.
        SvTeam7(SvTeam7) = _ / 4, "sv_team";
        /// `Sv_KillMsg`: killer, victim, weapon.
        SvKillMsg(SvKillMsg) = 4 / 5, "sv_kill_msg";
        /// `Sv_SoundGlobal` (0.6/DDNet).
        SvSoundGlobal(SvSoundGlobal) = 5 / _, "sv_sound_global";
        /// `Sv_TuneParams`: the physics tuning.
        SvTuneParams(SvTuneParams) = 6 / 6, "sv_tune_params";
        /// `Sv_ReadyToEnter`: no fields.
        SvReadyToEnter(NoFields) = 8 / 8, "sv_ready_to_enter";
        /// `Sv_WeaponPickup`.
        SvWeaponPickup(SvWeaponPickup) = 9 / 9, "sv_weapon_pickup";
        /// `Sv_Emoticon`.
        SvEmoticon(SvEmoticon) = 10 / 10, "sv_emoticon";
        /// `Sv_VoteClearOptions`: no fields.
        SvVoteClearOptions(NoFields) = 11 / 11, "sv_vote_clear_options";
        /// `Sv_VoteOptionListAdd` of 0.6/DDNet: a count and 15 strings.
        SvVoteOptionListAdd(SvVoteOptionListAdd) = 12 / _, "sv_vote_option_list_add";
        /// `Sv_VoteOptionListAdd` of 0.7: a count and that many strings.
        SvVoteOptionListAdd7(SvVoteOptionListAdd7) = _ / 12, "sv_vote_option_list_add";
        /// `Sv_VoteOptionAdd`.
        SvVoteOptionAdd(SvVoteOptionAdd) = 13 / 13, "sv_vote_option_add";
        /// `Sv_VoteOptionRemove`.
        SvVoteOptionRemove(SvVoteOptionRemove) = 14 / 14, "sv_vote_option_remove";
        /// `Sv_VoteSet` of 0.6/DDNet.
        SvVoteSet(SvVoteSet) = 15 / _, "sv_vote_set";
        /// `Sv_VoteSet` of 0.7.
        SvVoteSet7(SvVoteSet7) = _ / 15, "sv_vote_set";
        /// `Sv_VoteStatus`.
        SvVoteStatus(SvVoteStatus) = 16 / 16, "sv_vote_status";
        /// `Sv_ServerSettings` (0.7).
        SvServerSettings7(SvServerSettings7) = _ / 17, "sv_server_settings";
        /// `Sv_ClientInfo` (0.7): a player's name, clan, country and skin.
        SvClientInfo7(SvClientInfo7) = _ / 18, "sv_client_info";
        /// `Sv_GameInfo` (0.7).
        SvGameInfo7(SvGameInfo7) = _ / 19, "sv_game_info";
        /// `Sv_ClientDrop` (0.7): a player leaves.
        SvClientDrop7(SvClientDrop7) = _ / 20, "sv_client_drop";
        /// `Sv_GameMsg` (0.7).
        SvGameMsg7(SvGameMsg7) = _ / 21, "sv_game_msg";
        /// `De_ClientEnter` (0.7, demos only).
        DeClientEnter7(DeClientEnter7) = _ / 22, "de_client_enter";
        /// `De_ClientLeave` (0.7, demos only).
        DeClientLeave7(DeClientLeave7) = _ / 23, "de_client_leave";
        /// `Sv_DDRaceTimeLegacy` (DDNet).
        SvDDRaceTimeLegacy(SvDDRaceTime) = 27 / _, "sv_ddrace_time_legacy";
        /// `Sv_RecordLegacy` (DDNet).
        SvRecordLegacy(SvRecord) = 28 / _, "sv_record_legacy";
        /// `Sv_TeamsStateLegacy` (DDNet).
        SvTeamsStateLegacy(SvTeamsState) = 30 / _, "sv_teams_state_legacy";
        /// `Sv_SkinChange` (0.7).
        SvSkinChange7(SvSkinChange7) = _ / 33, "sv_skin_change";
        /// `Sv_RaceFinish` (0.7).
        SvRaceFinish7(SvRaceFinish) = _ / 35, "sv_race_finish";
        /// `Sv_Checkpoint` (0.7).
        SvCheckpoint7(SvCheckpoint7) = _ / 36, "sv_checkpoint";
        /// `Sv_CommandInfo` (0.7).
        SvCommandInfo7(SvCommandInfo) = _ / 37, "sv_command_info";
        /// `Sv_CommandInfoRemove` (0.7).
        SvCommandInfoRemove7(SvCommandInfoRemove) = _ / 38, "sv_command_info_remove";
    }
    game_uuid: uuids, group(false) {
        /// `Sv_TeamsState` (DDNet).
        SvTeamsState(SvTeamsState) = "teamsstate@netmsg.ddnet.tw", "sv_teams_state";
        /// `Sv_DDRaceTime` (DDNet).
        SvDDRaceTime(SvDDRaceTime) = "ddrace-time@netmsg.ddnet.tw", "sv_ddrace_time";
        /// `Sv_Record` (DDNet).
        SvRecord(SvRecord) = "record@netmsg.ddnet.tw", "sv_record";
        /// `Sv_KillMsgTeam` (DDNet).
        SvKillMsgTeam(SvKillMsgTeam) = "killmsgteam@netmsg.ddnet.tw", "sv_kill_msg_team";
        /// `Sv_YourVote` (DDNet).
        SvYourVote(SvYourVote) = "yourvote@netmsg.ddnet.org", "sv_your_vote";
        /// `Sv_RaceFinish` (DDNet).
        SvRaceFinish(SvRaceFinish) = "racefinish@netmsg.ddnet.org", "sv_race_finish";
        /// `Sv_CommandInfo` (DDNet).
        SvCommandInfo(SvCommandInfo) = "commandinfo@netmsg.ddnet.org", "sv_command_info";
        /// `Sv_CommandInfoRemove` (DDNet).
        SvCommandInfoRemove(SvCommandInfoRemove) = "commandinfo-remove@netmsg.ddnet.org",
            "sv_command_info_remove";
        /// `Sv_VoteOptionGroupStart` (DDNet): no fields.
        SvVoteOptionGroupStart(NoFields) = "sv-vote-option-group-start@netmsg.ddnet.org",
            "sv_vote_option_group_start";
        /// `Sv_VoteOptionGroupEnd` (DDNet): no fields.
        SvVoteOptionGroupEnd(NoFields) = "sv-vote-option-group-end@netmsg.ddnet.org",
            "sv_vote_option_group_end";
        /// `Sv_CommandInfoGroupStart` (DDNet): no fields.
        SvCommandInfoGroupStart(NoFields) = "sv-commandinfo-group-start@netmsg.ddnet.org",
            "sv_command_info_group_start";
        /// `Sv_CommandInfoGroupEnd` (DDNet): no fields.
        SvCommandInfoGroupEnd(NoFields) = "sv-commandinfo-group-end@netmsg.ddnet.org",
            "sv_command_info_group_end";
        /// `Sv_ChangeInfoCooldown` (DDNet).
        SvChangeInfoCooldown(SvChangeInfoCooldown) = "change-info-cooldown@netmsg.ddnet.org",
            "sv_change_info_cooldown";
        /// `Sv_MapSoundGlobal` (DDNet).
        SvMapSoundGlobal(SvMapSoundGlobal) = "map-sound-global@netmsg.ddnet.org",
            "sv_map_sound_global";
        /// `Sv_PreInput` (DDNet).
        SvPreInput(SvPreInput) = "preinput@netmsg.ddnet.org", "sv_pre_input";
        /// `Sv_SaveCode` (DDNet).
        SvSaveCode(SvSaveCode) = "save-code@netmsg.ddnet.org", "sv_save_code";
        /// `Sv_ServerAlert` (DDNet): one text.
        SvServerAlert(TextMessage) = "server-alert@netmsg.ddnet.org", "sv_server_alert";
        /// `Sv_ModeratorAlert` (DDNet): one text.
        SvModeratorAlert(TextMessage) = "moderator-alert@netmsg.ddnet.org",
            "sv_moderator_alert";
        /// `Sv_MapInfo` (DDNet): one text, the map's description.
        SvMapInfo(TextMessage) = "map-info@netmsg.ddnet.org", "sv_map_info";
        /// A message type that only this crate's tests know (`tests::ExampleMessage`): the
        /// proof that a type is its struct plus this one line (docs/extending.md).
        #[cfg(test)]
        Example(tests::ExampleMessage) = "example@twcodec.test", "example";
    }
    system: pairs, group(true) {
        /// `NETMSG_MAP_CHANGE` of 0.6/DDNet.
        MapChange(MapChange) = 2 / _, "map_change";
        /// `NETMSG_MAP_CHANGE` of 0.7.
        MapChange7(MapChange7) = _ / 2, "map_change";
        /// `NETMSG_MAP_DATA` of 0.6/DDNet.
        MapData(MapData) = 3 / _, "map_data";
        /// `NETMSG_MAP_DATA` of 0.7.
        MapData7(MapData7) = _ / 3, "map_data";
        /// `NETMSG_CON_READY`: no fields.
        ConReady(NoFields) = 4 / 5, "con_ready";
        /// `NETMSG_SNAP`.
        Snap(Snap) = 5 / 6, "snap";
        /// `NETMSG_SNAPEMPTY`.
        SnapEmpty(SnapEmpty) = 6 / 7, "snap_empty";
        /// `NETMSG_SNAPSINGLE`.
        SnapSingle(SnapSingle) = 7 / 8, "snap_single";
        /// `NETMSG_INPUTTIMING`.
        InputTiming(InputTiming) = 9 / 10, "input_timing";
        /// `NETMSG_RCON_AUTH_STATUS` (0.6/DDNet).
        RconAuthStatus(RconAuthStatus) = 10 / _, "rcon_auth_status";
        /// `NETMSG_RCON_AUTH_ON` (0.7): no fields.
        RconAuthOn7(NoFields) = _ / 11, "rcon_auth_on";
        /// `NETMSG_RCON_AUTH_OFF` (0.7): no fields.
        RconAuthOff7(NoFields) = _ / 12, "rcon_auth_off";
        /// `NETMSG_RCON_LINE`.
        RconLine(RconLine) = 11 / 13, "rcon_line";
        /// `NETMSG_PING`: no fields.
        Ping(NoFields) = 22 / 26, "ping";
        /// `NETMSG_PING_REPLY`: no fields.
        PingReply(NoFields) = 23 / 27, "ping_reply";
        /// `NETMSG_RCON_CMD_ADD`.
        RconCmdAdd(RconCmdAdd) = 25 / 14, "rcon_cmd_add";
        /// `NETMSG_RCON_CMD_REM`: the command's name.
        RconCmdRem(NameMessage) = 26 / 15, "rcon_cmd_rem";
        /// `NETMSG_MAPLIST_ENTRY_ADD` (0.7): a map's name.
        MaplistEntryAdd7(NameMessage) = _ / 29, "maplist_entry_add";
        /// `NETMSG_MAPLIST_ENTRY_REM` (0.7): a map's name.
        MaplistEntryRem7(NameMessage) = _ / 30, "maplist_entry_rem";
    }
    system_uuid: uuids, group(true) {
        /// `NETMSG_MAP_DETAILS` (DDNet).
        MapDetails(MapDetails) = "map-details@ddnet.tw", "map_details";
        /// `NETMSG_CAPABILITIES` (DDNet).
        Capabilities(Capabilities) = "capabilities@ddnet.tw", "capabilities";
        /// `NETMSG_REDIRECT` (DDNet): the port to connect to.
        Redirect(NumberMessage) = "redirect@ddnet.org", "redirect";
        /// `NETMSG_RCON_CMD_GROUP_START` (DDNet): how many commands follow.
        RconCmdGroupStart(NumberMessage) = "rcon-cmd-group-start@ddnet.org",
            "rcon_cmd_group_start";
        /// `NETMSG_RCON_CMD_GROUP_END` (DDNet): no fields.
        RconCmdGroupEnd(NoFields) = "rcon-cmd-group-end@ddnet.org", "rcon_cmd_group_end";
        /// `NETMSG_MAP_RELOAD` (DDNet): no fields.
        MapReload(NoFields) = "map-reload@ddnet.org", "map_reload";
        /// `NETMSG_RECONNECT` (DDNet): no fields.
        Reconnect(NoFields) = "reconnect@ddnet.org", "reconnect";
        /// `NETMSG_RCONTYPE` (DDNet): 1 when the remote console asks for a user name.
        RconType(NumberMessage) = "rcon-type@ddnet.tw", "rcon_type";
        /// `NETMSG_PINGEX` (DDNet): a ping with an id.
        PingEx(PingEx) = "ping@ddnet.tw", "ping_ex";
        /// `NETMSG_PONGEX` (DDNet): the answer to a ping, with its id.
        PongEx(PingEx) = "pong@ddnet.tw", "pong_ex";
    }
}

impl MessageKind {
    /// The kind of a message with this header in `protocol`, or [`MessageKind::Unknown`].
    pub fn of(protocol: Protocol, system: bool, id: MessageId) -> MessageKind {
        MessageKind::ALL
            .iter()
            .copied()
            .find(|kind| {
                kind.is_system() == system
                    && match id {
                        MessageId::Number(number) => kind.number(protocol) == Some(number),
                        MessageId::Uuid(uuid) => kind.uuid() == Some(uuid),
                    }
            })
            .unwrap_or(MessageKind::Unknown)
    }

    /// Its id in `protocol`: its number there, or its UUID; `None` for a numbered kind the
    /// protocol does not have, and for [`MessageKind::Unknown`].
    pub fn id(self, protocol: Protocol) -> Option<MessageId> {
        match self.uuid() {
            Some(uuid) => Some(MessageId::Uuid(uuid)),
            None => self.number(protocol).map(MessageId::Number),
        }
    }
}

/// Why a message does not read, or cannot be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageError {
    /// The message's name, once its id is read.
    pub message: Option<&'static str>,
    /// The field, when the problem is in one.
    pub field: Option<String>,
    /// Byte offset in the message.
    pub at: u64,
    /// The problem.
    pub problem: MessageProblem,
}

/// What is wrong with a message ([`MessageError`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MessageProblem {
    /// The message ends where a field starts.
    Missing,
    /// A field does not read.
    Field(FieldError),
    /// Id 0 (an extended message) without the 16 bytes of a UUID after it.
    UuidCutOff {
        /// Bytes left after the id.
        left: u64,
    },
    /// Anything else binrw reports (no field type of this module fails so).
    Other(String),
    /// Writing: the message has no id in the protocol it is written for.
    NotInProtocol(Protocol),
    /// Writing: a value the layout cannot hold, or the writer failed.
    Write(String),
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.message.unwrap_or("message id");
        match (&self.problem, &self.field) {
            (MessageProblem::Missing, Some(field)) => write!(
                f,
                "{name}: the message ends before field `{field}` (byte {})",
                self.at
            ),
            (MessageProblem::Missing, None) => {
                write!(f, "{name}: the message ends at byte {}", self.at)
            }
            (MessageProblem::Field(error), Some(field)) => {
                write!(f, "{name}, field `{field}`: {error}")
            }
            (MessageProblem::Field(error), None) => write!(f, "{name}: {error}"),
            (MessageProblem::UuidCutOff { left }, _) => write!(
                f,
                "message id 0 (an extended message) needs a 16-byte UUID at byte {}, the \
                 message has {left} bytes left",
                self.at
            ),
            (MessageProblem::NotInProtocol(protocol), _) => {
                write!(f, "{name} has no id in the {protocol} protocol")
            }
            (MessageProblem::Other(reason) | MessageProblem::Write(reason), _) => {
                write!(f, "{name}: {reason}")
            }
        }
    }
}

impl std::error::Error for MessageError {}

impl MessageError {
    /// The error of a binrw read of the header or of the fields of `message`; `end` is the
    /// length of the message.
    fn from_binrw(error: binrw::Error, message: Option<&'static str>, end: u64) -> MessageError {
        let field = match &error {
            binrw::Error::Backtrace(backtrace) => backtrace.frames.iter().find_map(|frame| {
                let message = match frame {
                    binrw::error::BacktraceFrame::Full { message, .. }
                    | binrw::error::BacktraceFrame::Message(message) => message,
                    _ => return None,
                };
                // binrw's derive names the field it was reading in this form.
                message
                    .strip_prefix("While parsing field '")
                    .and_then(|rest| rest.split('\'').next())
                    .map(str::to_string)
            }),
            _ => None,
        };
        let (at, problem) = match error.root_cause() {
            binrw::Error::Custom { pos, err } => match err.downcast_ref::<FieldError>() {
                Some(field) => (*pos, MessageProblem::Field(field.clone())),
                None => (*pos, MessageProblem::Other(err.to_string())),
            },
            root if root.is_eof() => (end, MessageProblem::Missing),
            binrw::Error::AssertFail { pos, message } => {
                (*pos, MessageProblem::Other(message.clone()))
            }
            // The field types fail only in the ways above; binrw's own text is not shown.
            _ => (end, MessageProblem::Other("the bytes do not read".into())),
        };
        MessageError {
            message,
            field,
            at,
            problem,
        }
    }
}

impl NetMessage {
    /// Reads a message from exactly its bytes, as a packet chunk carries it: the header, then
    /// the fields of its kind in `protocol` (bytes after them are kept in the message's
    /// `unknown_tail`), or for a kind the registry does not know, the payload.
    pub fn read(bytes: &[u8], protocol: Protocol) -> Result<NetMessage, MessageError> {
        let end = bytes.len() as u64;
        let mut reader = Cursor::new(bytes);
        let header = read_header(&mut reader, end)?;
        let kind = header.kind(protocol);
        NetMessage::read_fields(kind, &mut reader, header)
            .map_err(|error| MessageError::from_binrw(error, Some(kind.name()), end))
    }

    /// The message's bytes in `protocol`: the header, then the fields.
    pub fn write(&self, protocol: Protocol) -> Result<Vec<u8>, MessageError> {
        let kind = self.kind();
        let (system, id) = match self {
            NetMessage::Unknown(unknown) => (unknown.system, Some(unknown.id)),
            _ => (kind.is_system(), kind.id(protocol)),
        };
        let error = |problem| MessageError {
            message: Some(kind.name()),
            field: None,
            at: 0,
            problem,
        };
        let id = id.ok_or_else(|| error(MessageProblem::NotInProtocol(protocol)))?;
        let mut writer = Cursor::new(Vec::new());
        let written = MessageHeader::new(system, id).write_options(&mut writer, Endian::Little, ());
        written
            .and_then(|()| self.write_fields(&mut writer))
            .map_err(|e| {
                error(MessageProblem::Write(match e.root_cause() {
                    binrw::Error::AssertFail { message, .. } => message.clone(),
                    _ => "the writer failed".into(),
                }))
            })?;
        Ok(writer.into_inner())
    }

    /// A short lower-case name (see [`MessageKind::name`]).
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The chat line of a chat message of either protocol.
    pub fn chat(&self) -> Option<ChatLine<'_>> {
        match self {
            NetMessage::SvChat(chat) => Some(ChatLine {
                client_id: chat.client_id.0,
                team: Some(chat.team.0),
                mode: None,
                target_id: None,
                message: &chat.message,
            }),
            NetMessage::SvChat7(chat) => Some(ChatLine {
                client_id: chat.client_id.0,
                team: None,
                mode: Some(chat.mode.0),
                target_id: Some(chat.target_id.0),
                message: &chat.message,
            }),
            _ => None,
        }
    }

    /// The text of a message that shows one: chat, broadcast, message of the day, DDNet's
    /// alerts and map info.
    pub fn text(&self) -> Option<&NetString> {
        match self {
            NetMessage::SvChat(SvChat { message, .. })
            | NetMessage::SvChat7(SvChat7 { message, .. })
            | NetMessage::SvBroadcast(SvBroadcast { message, .. })
            | NetMessage::SvMotd(SvMotd { message, .. })
            | NetMessage::SvServerAlert(TextMessage { message, .. })
            | NetMessage::SvModeratorAlert(TextMessage { message, .. })
            | NetMessage::SvMapInfo(TextMessage { message, .. }) => Some(message),
            _ => None,
        }
    }

    /// Values outside the ranges DDNet's generators give their fields (DDNet's receivers drop
    /// such a message; this module keeps it). Checks the client ids, teams and enumerations of
    /// the messages demos record; other fields are not checked.
    pub fn check(&self) -> Vec<RangeWarning> {
        let mut warnings = Vec::new();
        let mut range = |field: &'static str, value: VarInt, min: i32, max: i32| {
            if !(min..=max).contains(&value.0) {
                warnings.push(RangeWarning {
                    field,
                    value: value.0,
                    min,
                    max,
                });
            }
        };
        const LAST_CLIENT: i32 = 63;
        match self {
            NetMessage::SvChat(m) => {
                range("team", m.team, -2, 3);
                range("client_id", m.client_id, -1, LAST_CLIENT);
            }
            NetMessage::SvChat7(m) => {
                range("mode", m.mode, 0, 3);
                range("client_id", m.client_id, -1, LAST_CLIENT);
                range("target_id", m.target_id, -1, LAST_CLIENT);
            }
            NetMessage::SvKillMsg(m) => {
                range("killer", m.killer, -2, LAST_CLIENT);
                range("victim", m.victim, 0, LAST_CLIENT);
                range("weapon", m.weapon, -3, 5);
            }
            NetMessage::SvEmoticon(m) => {
                range("client_id", m.client_id, 0, LAST_CLIENT);
                range("emoticon", m.emoticon, 0, 15);
            }
            NetMessage::SvClientInfo7(m) => {
                range("client_id", m.client_id, 0, LAST_CLIENT);
                range("team", m.team, -1, 1);
            }
            NetMessage::SvClientDrop7(m) => range("client_id", m.client_id, 0, LAST_CLIENT),
            NetMessage::DeClientEnter7(m) => {
                range("client_id", m.client_id, -1, LAST_CLIENT);
                range("team", m.team, -1, 1);
            }
            NetMessage::DeClientLeave7(m) => range("client_id", m.client_id, -1, LAST_CLIENT),
            NetMessage::SvRaceFinish(m) | NetMessage::SvRaceFinish7(m) => {
                range("client_id", m.client_id, 0, LAST_CLIENT);
            }
            _ => {}
        }
        warnings
    }
}

/// A field value outside the range its generator gives ([`NetMessage::check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangeWarning {
    /// The field.
    pub field: &'static str,
    /// The value sent.
    pub value: i32,
    /// The smallest value allowed.
    pub min: i32,
    /// The largest value allowed.
    pub max: i32,
}

impl fmt::Display for RangeWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "field `{}` = {} is outside {}..={}",
            self.field, self.value, self.min, self.max
        )
    }
}

/// A chat line of either protocol ([`NetMessage::chat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChatLine<'a> {
    /// The speaker; -1 for the server.
    pub client_id: i32,
    /// 0.6/DDNet: 0 to everyone, 1 to the team (DDNet: 2 and 3 whispers).
    pub team: Option<i32>,
    /// 0.7: 1 to everyone, 2 to the team, 3 a whisper.
    pub mode: Option<i32>,
    /// 0.7: the addressee of a whisper, else -1.
    pub target_id: Option<i32>,
    /// The text as sent.
    pub message: &'a NetString,
}

impl ChatLine<'_> {
    /// The text, with invalid UTF-8 replaced.
    pub fn text(&self) -> Cow<'_, str> {
        self.message.to_string_lossy()
    }

    /// Whether the server said it (client id -1).
    pub fn is_from_server(&self) -> bool {
        self.client_id == -1
    }

    /// Whether it went to the speaker's team only.
    pub fn is_team(&self) -> bool {
        self.team == Some(1) || self.mode == Some(2)
    }
}

/// Reads the header ([`MessageHeader`]); an id 0 without a whole UUID after it is
/// [`MessageProblem::UuidCutOff`].
fn read_header(reader: &mut Cursor<&[u8]>, end: u64) -> Result<MessageHeader, MessageError> {
    MessageHeader::read_options(reader, Endian::Little, ()).map_err(|error| {
        let error = MessageError::from_binrw(error, None, end);
        match error.field.as_deref() {
            // Missing (at the end) or cut off: either way the UUID starts at `at`.
            Some("uuid") => MessageError {
                message: None,
                field: None,
                at: error.at,
                problem: MessageProblem::UuidCutOff {
                    left: end.saturating_sub(error.at),
                },
            },
            // The packed int is the message id.
            _ => MessageError {
                field: None,
                ..error
            },
        }
    })
}

#[cfg(test)]
mod tests {
    use binrw::binrw;
    use binrw::helpers::until_eof;

    use super::*;
    use crate::uuid::uuid_from_name;
    use twcodec_schema_derive::describe;

    /// A message type only these tests know, registered by its line in the registry: with
    /// its struct, the two places a new message takes
    /// (docs/extending.md).
    #[describe]
    #[binrw]
    #[derive(Debug, Clone, PartialEq, Eq, Default)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct ExampleMessage {
        /// A number.
        pub count: VarInt,
        /// A text.
        pub label: NetString,
        /// Bytes after the fields, kept.
        #[br(parse_with = until_eof)]
        #[cfg_attr(
            feature = "serde",
            serde(default, skip_serializing_if = "Vec::is_empty")
        )]
        pub unknown_tail: Vec<u8>,
    }

    #[test]
    fn a_new_message_type_is_its_struct_and_one_registry_line() {
        let uuid = uuid_from_name("example@twcodec.test");
        let kind = MessageKind::of(Protocol::Ddnet06, false, MessageId::Uuid(uuid));
        assert_eq!(kind, MessageKind::Example);
        assert_eq!(kind.name(), "example");
        assert_eq!(kind.id(Protocol::Teeworlds07), Some(MessageId::Uuid(uuid)));
        // Id 0, the UUID, then the fields: 5 and "hi".
        let mut bytes = vec![0x00];
        bytes.extend_from_slice(uuid.as_bytes());
        bytes.extend_from_slice(&[0x05, b'h', b'i', 0]);
        let message = NetMessage::read(&bytes, Protocol::Ddnet06).unwrap();
        assert_eq!(
            message,
            NetMessage::Example(ExampleMessage {
                count: VarInt(5),
                label: NetString::from("hi"),
                unknown_tail: Vec::new(),
            })
        );
        assert_eq!(message.write(Protocol::Ddnet06).unwrap(), bytes);
    }

    #[test]
    fn a_chat_line_field_by_field() {
        let bytes = [
            0x06, // id 3 << 1, a game message: Sv_Chat
            0x00, // team 0
            0x40, // client id -1 (sign bit, complement of 0)
            b'h', b'i', 0x00, // "hi"
        ];
        let message = NetMessage::read(&bytes, Protocol::Ddnet06).unwrap();
        let chat = message.chat().unwrap();
        assert_eq!((chat.client_id, chat.team, chat.mode), (-1, Some(0), None));
        assert_eq!(chat.text(), "hi");
        assert!(chat.is_from_server() && !chat.is_team());
        assert_eq!(message.write(Protocol::Ddnet06).unwrap(), bytes);
        // The same bytes in 0.7, where the chat has one more int: 'h' (0x68) reads as the
        // target id -41 (sign bit, complement of 40), the text is "i".
        let seven = NetMessage::read(&bytes, Protocol::Teeworlds07).unwrap();
        let chat = seven.chat().unwrap();
        assert_eq!((chat.mode, chat.target_id), (Some(0), Some(-41)));
        assert_eq!(chat.text(), "i");
    }

    #[test]
    fn message_headers_read_and_write() {
        let header = |bytes: &[u8]| MessageHeader::parse(bytes).unwrap();
        // 0x11: packed int 17 = id 8 << 1 | 1, a system message; then a field.
        let (snap_single, at) = header(&[0x11, 0x05]);
        assert_eq!(at, 1);
        assert!(snap_single.system());
        assert_eq!(snap_single.id(), MessageId::Number(8));
        assert_eq!(
            snap_single.kind(Protocol::Teeworlds07),
            MessageKind::SnapSingle
        );
        assert_eq!(snap_single.kind(Protocol::Ddnet06), MessageKind::Unknown);
        assert_eq!(snap_single.to_string(), "sys 8");
        assert_eq!(snap_single, MessageHeader::new(true, MessageId::Number(8)));
        // Id 0, then the UUID.
        let record = uuid_from_name("record@netmsg.ddnet.tw");
        let mut bytes = vec![0x00];
        bytes.extend_from_slice(record.as_bytes());
        let (extended, at) = header(&bytes);
        assert_eq!(at, 17);
        assert_eq!(extended.id(), MessageId::Uuid(record));
        assert_eq!(extended.kind(Protocol::Teeworlds07), MessageKind::SvRecord);
        assert_eq!(extended.to_string(), format!("game {record}"));
        // Written back: the same bytes, from the header read or made.
        for (made, bytes) in [
            (MessageHeader::new(true, MessageId::Number(8)), vec![0x11]),
            (MessageHeader::new(false, MessageId::Uuid(record)), bytes),
            // A negative id (DDNet refuses it; kept as sent): -32 << 1 = -64.
            (
                MessageHeader::new(false, MessageId::Number(-32)),
                vec![0x7F],
            ),
        ] {
            let mut out = Cursor::new(Vec::new());
            made.write_options(&mut out, Endian::Little, ()).unwrap();
            assert_eq!(out.into_inner(), bytes);
            assert_eq!(header(&bytes).0, made);
        }
        // A UUID cut off; a packed int longer than its value needs.
        assert_eq!(
            MessageHeader::parse(&[0x01, 0xAA]).unwrap_err().to_string(),
            "message id 0 (an extended message) needs a 16-byte UUID at byte 1, the message \
             has 1 bytes left"
        );
        assert_eq!(
            MessageHeader::parse(&[0x91, 0x00]).unwrap_err().to_string(),
            "message id: the packed int at byte 0 has more bytes than its value needs"
        );
    }

    #[test]
    fn trailing_bytes_are_kept() {
        // Sv_Emoticon with two fields and 2 bytes more.
        let bytes = [0x14, 0x03, 0x02, 0xAA, 0xBB];
        let message = NetMessage::read(&bytes, Protocol::Teeworlds07).unwrap();
        let NetMessage::SvEmoticon(emoticon) = &message else {
            panic!("{message:?}")
        };
        assert_eq!(emoticon.client_id, VarInt(3));
        assert_eq!(emoticon.unknown_tail, [0xAA, 0xBB]);
        assert_eq!(message.write(Protocol::Teeworlds07).unwrap(), bytes);
    }

    #[test]
    fn unknown_messages_keep_their_id_and_payload() {
        for bytes in [
            &[0x41, 0x01, 0x02][..], // system message 32 in 0.6
            &[0x7F, 0x09][..],       // id -32
        ] {
            let message = NetMessage::read(bytes, Protocol::Ddnet06).unwrap();
            assert_eq!(message.kind(), MessageKind::Unknown);
            assert_eq!(message.write(Protocol::Ddnet06).unwrap(), bytes);
        }
        let mut bytes = vec![0x01];
        bytes.extend_from_slice(uuid_from_name("what-is@ddnet.tw").as_bytes());
        bytes.push(0x07);
        let message = NetMessage::read(&bytes, Protocol::Ddnet06).unwrap();
        assert_eq!(
            message,
            NetMessage::Unknown(UnknownMessage {
                system: true,
                id: MessageId::Uuid(uuid_from_name("what-is@ddnet.tw")),
                payload: vec![0x07],
            })
        );
        assert_eq!(message.write(Protocol::Teeworlds07).unwrap(), bytes);
    }

    #[test]
    fn errors_name_the_message_the_field_and_the_byte() {
        let error =
            |bytes: &[u8], protocol| NetMessage::read(bytes, protocol).unwrap_err().to_string();
        assert_eq!(
            error(&[], Protocol::Ddnet06),
            "message id: the message ends at byte 0"
        );
        assert_eq!(
            error(&[0x80], Protocol::Ddnet06),
            "message id: the packed int at byte 0 is cut off"
        );
        assert_eq!(
            error(&[0x00, 1, 2, 3], Protocol::Ddnet06),
            "message id 0 (an extended message) needs a 16-byte UUID at byte 1, the message \
             has 3 bytes left"
        );
        // Sv_KillMsg (0.6 id 4) with 2 of its 4 ints.
        assert_eq!(
            error(&[0x08, 0x01, 0x02], Protocol::Ddnet06),
            "sv_kill_msg: the message ends before field `weapon` (byte 3)"
        );
        assert_eq!(
            error(&[0x08, 0x01, 0x02, 0x80], Protocol::Ddnet06),
            "sv_kill_msg, field `weapon`: the packed int at byte 3 is cut off"
        );
        // 0.7 client info: the third of its six skin part names has no NUL.
        let mut info = vec![0x24, 0x00, 0x01, 0x00];
        info.extend_from_slice(b"name\0clan\0\x40a\0b\0c");
        assert_eq!(
            error(&info, Protocol::Teeworlds07),
            "sv_client_info, field `skin_part_names`: the string at byte 19 has no NUL before \
             the end of the message"
        );
        let chat7 = NetMessage::SvChat7(SvChat7::default());
        assert_eq!(
            chat7.write(Protocol::Ddnet06).unwrap_err().to_string(),
            "sv_chat has no id in the 0.6/DDNet protocol"
        );
    }

    #[test]
    fn every_kind_has_an_id_and_a_unique_header() {
        for protocol in [Protocol::Ddnet06, Protocol::Teeworlds07] {
            let mut seen = std::collections::HashSet::new();
            for &kind in MessageKind::ALL {
                let Some(id) = kind.id(protocol) else {
                    continue;
                };
                assert_ne!(id, MessageId::Number(0), "{kind:?}");
                assert!(seen.insert((kind.is_system(), id)), "{kind:?} twice");
                assert_eq!(MessageKind::of(protocol, kind.is_system(), id), kind);
            }
        }
        // docs/format-notes.md, "Messages in demos": the UUID of the record message that
        // both DDNet demos of the corpus hold at their first tick.
        assert_eq!(
            MessageKind::SvRecord.uuid().unwrap().to_string(),
            "804f149f-9b53-3b0a-897f-59663a1c4eb9"
        );
    }

    #[test]
    fn range_checks_are_warnings() {
        let kill = NetMessage::SvKillMsg(SvKillMsg {
            killer: VarInt(0),
            victim: VarInt(64),
            weapon: VarInt(-3),
            ..SvKillMsg::default()
        });
        let warnings = kill.check();
        assert_eq!(warnings.len(), 1);
        assert_eq!(
            warnings[0].to_string(),
            "field `victim` = 64 is outside 0..=63"
        );
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        fn protocol() -> impl Strategy<Value = Protocol> {
            prop_oneof![Just(Protocol::Ddnet06), Just(Protocol::Teeworlds07)]
        }

        fn text() -> impl Strategy<Value = NetString> {
            prop::collection::vec(1u8..=255, 0..12).prop_map(NetString)
        }

        fn int() -> impl Strategy<Value = VarInt> {
            any::<i32>().prop_map(VarInt)
        }

        /// Messages with random field values, of the kinds demos record most.
        fn message() -> impl Strategy<Value = NetMessage> {
            prop_oneof![
                (int(), int(), text()).prop_map(|(team, client_id, message)| {
                    NetMessage::SvChat(SvChat {
                        team,
                        client_id,
                        message,
                        unknown_tail: Vec::new(),
                    })
                }),
                (int(), int(), int(), text()).prop_map(|(mode, client_id, target_id, message)| {
                    NetMessage::SvChat7(SvChat7 {
                        mode,
                        client_id,
                        target_id,
                        message,
                        unknown_tail: Vec::new(),
                    })
                }),
                (int(), int(), int(), int()).prop_map(|(killer, victim, weapon, mode_special)| {
                    NetMessage::SvKillMsg(SvKillMsg {
                        killer,
                        victim,
                        weapon,
                        mode_special,
                        unknown_tail: Vec::new(),
                    })
                }),
                (
                    (int(), int(), int(), text(), text(), int()),
                    prop::array::uniform6(text()),
                    prop::array::uniform6(int()),
                    prop::array::uniform6(int()),
                    int(),
                )
                    .prop_map(
                        |(
                            (client_id, local, team, name, clan, country),
                            names,
                            use_custom,
                            colors,
                            silent,
                        )| {
                            NetMessage::SvClientInfo7(SvClientInfo7 {
                                client_id,
                                local,
                                team,
                                name,
                                clan,
                                country,
                                skin_part_names: names,
                                use_custom_colors: use_custom,
                                skin_part_colors: colors,
                                silent,
                                unknown_tail: Vec::new(),
                            })
                        }
                    ),
                (int(), int(), int(), int(), prop::option::of(int())).prop_map(
                    |(client_id, time, diff, record_personal, record_server)| {
                        NetMessage::SvRaceFinish(SvRaceFinish {
                            client_id,
                            time,
                            diff,
                            record_personal,
                            record_server,
                            unknown_tail: Vec::new(),
                        })
                    }
                ),
                prop::collection::vec(int(), 0..40)
                    .prop_map(|params| NetMessage::SvTuneParams(SvTuneParams { params })),
                (int(), prop::collection::vec(int(), 0..4)).prop_map(|(game_msg_id, params)| {
                    // As many ints as the id takes, so that reading finds them all.
                    let count = game7::game_msg_params(game_msg_id.0).unwrap_or(params.len());
                    let params = (0..count).map(|i| params.get(i).copied().unwrap_or_default());
                    NetMessage::SvGameMsg7(SvGameMsg7 {
                        game_msg_id,
                        params: params.collect(),
                        unknown_tail: Vec::new(),
                    })
                }),
                (text(), int(), text()).prop_map(|(name, client_id, reason)| {
                    NetMessage::DeClientLeave7(DeClientLeave7 {
                        name,
                        client_id,
                        reason,
                        unknown_tail: Vec::new(),
                    })
                }),
            ]
        }

        /// A field as bytes: a packed int or a string.
        fn field() -> impl Strategy<Value = Vec<u8>> {
            prop_oneof![
                any::<i32>().prop_map(|value| {
                    let mut out = Vec::new();
                    VarInt(value).pack(&mut out);
                    out
                }),
                prop::collection::vec(1u8..=255, 0..6).prop_map(|mut bytes| {
                    bytes.push(0);
                    bytes
                }),
                prop::collection::vec(any::<u8>(), 0..3),
            ]
        }

        proptest! {
            #[test]
            fn random_field_values_round_trip(message in message()) {
                let protocol = if message.kind().number(Protocol::Ddnet06).is_some()
                    || message.kind().uuid().is_some()
                {
                    Protocol::Ddnet06
                } else {
                    Protocol::Teeworlds07
                };
                let bytes = message.write(protocol).unwrap();
                prop_assert_eq!(NetMessage::read(&bytes, protocol).unwrap(), message);
            }

            /// Whatever reads writes back the same bytes: a header of every registered kind,
            /// then random ints, strings and bytes.
            #[test]
            fn whatever_reads_writes_back_the_same_bytes(
                protocol in protocol(),
                kind in 0..MessageKind::ALL.len(),
                fields in prop::collection::vec(field(), 0..40),
            ) {
                let kind = MessageKind::ALL[kind];
                let Some(id) = kind.id(protocol) else { return Ok(()) };
                let header = NetMessage::Unknown(UnknownMessage {
                    system: kind.is_system(),
                    id,
                    payload: fields.concat(),
                });
                let bytes = header.write(protocol).unwrap();
                if let Ok(message) = NetMessage::read(&bytes, protocol) {
                    prop_assert_eq!(message.kind(), kind);
                    prop_assert_eq!(message.write(protocol).unwrap(), bytes);
                }
            }

            #[test]
            fn random_bytes_never_panic(
                protocol in protocol(),
                bytes in prop::collection::vec(any::<u8>(), 0..64),
            ) {
                if let Ok(message) = NetMessage::read(&bytes, protocol) {
                    prop_assert_eq!(message.write(protocol).unwrap(), bytes);
                }
            }
        }
    }
}
