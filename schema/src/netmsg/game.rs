//! Game messages of the 0.6/DDNet protocol, and those whose layout 0.7 shares (DDNet
//! `datasrc/network.py` and `datasrc/seven/network.py`, `Messages`). Each struct is one
//! message's fields after its id; the registry in [`super`] gives its ids.
//!
//! Field docs give the values the senders use; a value outside them is kept, not an error
//! (see [`super::NetMessage::check`]).

use binrw::binrw;
use binrw::helpers::until_eof;

use twcodec_schema_derive::describe;

use super::fields::{NetString, VarInt};

/// `Sv_Motd` (both protocols): the message of the day, shown until dismissed.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_Motd")]
pub struct SvMotd {
    /// The text; empty clears it.
    pub message: NetString,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_Broadcast` (both protocols): a text shown in the middle of the screen.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_Broadcast")]
pub struct SvBroadcast {
    /// The text.
    pub message: NetString,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_Chat` (0.6/DDNet): a chat line.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_Chat")]
pub struct SvChat {
    /// -2 to 3: 0 said to everyone, 1 to the speaker's team; DDNet sends 2 for a whisper the
    /// client sent and 3 for one it received.
    pub team: VarInt,
    /// -1 to 63: the speaker; -1 for the server.
    pub client_id: VarInt,
    /// The text.
    pub message: NetString,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_KillMsg` (both protocols, the same fields): a line of the kill feed.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_KillMsg")]
pub struct SvKillMsg {
    /// 0 to 63 (0.7: from -2): who killed.
    pub killer: VarInt,
    /// 0 to 63: who died.
    pub victim: VarInt,
    /// The weapon (0 hammer to 5 ninja), or -1 the world (a kill tile), -2 self (the kill
    /// command), -3 the game (leaving, a team change).
    pub weapon: VarInt,
    /// Game-mode flags (the flag carrier's death in CTF).
    pub mode_special: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_SoundGlobal` (0.6/DDNet): a sound heard everywhere.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_SoundGlobal")]
pub struct SvSoundGlobal {
    /// The sound (an index into the game's sound list).
    pub sound_id: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// A message without fields (`Sv_ReadyToEnter`, `Sv_VoteClearOptions`, DDNet's group start
/// and end messages, ...): the registry line names it.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NoFields {
    /// Bytes after the id, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_TuneParams` (both protocols): the physics tuning, one int per parameter in the order
/// of the game's tuning list (floats times 100); its generator lists no fields, the game reads
/// as many ints as it knows. A DDNet client also records one when a demo starts.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_TuneParams")]
pub struct SvTuneParams {
    /// Every int of the message.
    #[br(parse_with = until_eof)]
    pub params: Vec<VarInt>,
}

/// `Sv_WeaponPickup` (both protocols): the client's tee picked up a weapon.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_WeaponPickup")]
pub struct SvWeaponPickup {
    /// 0 hammer to 5 ninja.
    pub weapon: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_Emoticon` (both protocols): a player shows an emoticon.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_Emoticon")]
pub struct SvEmoticon {
    /// 0 to 63: the player.
    pub client_id: VarInt,
    /// 0 to 15: oop, exclamation, hearts, drop, dotdot, music, sorry, ghost, sushi,
    /// splattee, deviltee, zomg, zzz, wtf, eyes, question.
    pub emoticon: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_VoteOptionListAdd` (0.6/DDNet): up to 15 vote options at once; all 15 strings are
/// always sent, the unused ones empty.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_VoteOptionListAdd")]
pub struct SvVoteOptionListAdd {
    /// 1 to 15: how many of the descriptions are options.
    pub num_options: VarInt,
    /// The options' descriptions.
    pub descriptions: [NetString; 15],
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_VoteOptionAdd` (both protocols): one more vote option.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_VoteOptionAdd")]
pub struct SvVoteOptionAdd {
    /// The option's description.
    pub description: NetString,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_VoteOptionRemove` (both protocols): a vote option goes.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_VoteOptionRemove")]
pub struct SvVoteOptionRemove {
    /// The option's description.
    pub description: NetString,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_VoteSet` (0.6/DDNet): a vote starts (timeout above 0) or ends (0).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_VoteSet")]
pub struct SvVoteSet {
    /// Seconds the vote runs; 0 ends it.
    pub timeout: VarInt,
    /// What is voted on.
    pub description: NetString,
    /// Why.
    pub reason: NetString,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_VoteStatus` (both protocols): the votes so far.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_VoteStatus")]
pub struct SvVoteStatus {
    /// 0 to 64: yes votes.
    pub yes: VarInt,
    /// 0 to 64: no votes.
    pub no: VarInt,
    /// 0 to 64: players who do not vote.
    pub pass: VarInt,
    /// 0 to 64: players who may vote.
    pub total: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_DDRaceTimeLegacy` (DDNet, numbered; also as the UUID message `Sv_DDRaceTime`): the
/// race clock.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_DDRaceTime")]
#[doc(alias = "CNetMsg_Sv_DDRaceTimeLegacy")]
pub struct SvDDRaceTime {
    /// The race time in hundredths of a second.
    pub time: VarInt,
    /// The difference to the best time at the last checkpoint, in hundredths.
    pub check: VarInt,
    /// 0 or 1: whether the race is finished.
    pub finish: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_RecordLegacy` (DDNet, numbered; also as the UUID message `Sv_Record`): the best
/// times, in hundredths of a second (0: none). A DDNet client records one when a demo
/// starts.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_Record")]
#[doc(alias = "CNetMsg_Sv_RecordLegacy")]
pub struct SvRecord {
    /// The server's best time.
    pub server_time_best: VarInt,
    /// The player's best time.
    pub player_time_best: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_TeamsStateLegacy` (DDNet, numbered; also as the UUID message `Sv_TeamsState`): the
/// DDRace team of every client; its generator lists no fields, the server sends one int per
/// client slot.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_TeamsState")]
#[doc(alias = "CNetMsg_Sv_TeamsStateLegacy")]
pub struct SvTeamsState {
    /// The team of client 0, 1, ...: 0 none, 1 to 63 a team, 64 the super team.
    #[br(parse_with = until_eof)]
    pub teams: Vec<VarInt>,
}
