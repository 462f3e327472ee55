//! DDNet's extended game messages, named by a UUID instead of an id (DDNet
//! `datasrc/network.py`, `NetMessageEx`; docs/format-notes.md, "Messages"). Those with the
//! fields of a numbered message reuse its struct ([`super::game::SvRecord`],
//! [`super::game7::SvRaceFinish`], ...); the rest are here.

use binrw::binrw;
use binrw::helpers::until_eof;

use twcodec_schema_derive::describe;

use super::fields::{NetString, VarInt};

/// `Sv_KillMsgTeam` (DDNet): a whole DDRace team died.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_KillMsgTeam")]
pub struct SvKillMsgTeam {
    /// 0 to 63: the team.
    pub team: VarInt,
    /// -1 to 63: who died first; -1 none.
    pub first: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_YourVote` (DDNet): the client's vote as the server counts it.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_YourVote")]
pub struct SvYourVote {
    /// -1 no, 0 none, 1 yes.
    pub voted: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_ChangeInfoCooldown` (DDNet): when the client may change its name or skin again.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_ChangeInfoCooldown")]
pub struct SvChangeInfoCooldown {
    /// The tick.
    pub wait_until: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_MapSoundGlobal` (DDNet): a sound of the map's own, heard everywhere.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_MapSoundGlobal")]
pub struct SvMapSoundGlobal {
    /// The sound (an index among the map's sounds).
    pub sound_id: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_PreInput` (DDNet): another player's input ahead of the snapshot, for prediction.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_PreInput")]
pub struct SvPreInput {
    /// -1, 0 or 1: walking left, still, right.
    pub direction: VarInt,
    /// Aim, relative to the tee.
    pub target_x: VarInt,
    /// Aim, relative to the tee.
    pub target_y: VarInt,
    /// Jump held.
    pub jump: VarInt,
    /// Fire presses counted.
    pub fire: VarInt,
    /// Hook held.
    pub hook: VarInt,
    /// The weapon wanted.
    pub wanted_weapon: VarInt,
    /// Next-weapon presses counted.
    pub next_weapon: VarInt,
    /// Previous-weapon presses counted.
    pub prev_weapon: VarInt,
    /// 0 to 63: whose input.
    pub owner: VarInt,
    /// The tick the input is for.
    pub intended_tick: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_SaveCode` (DDNet): the state of a team save.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetMsg_Sv_SaveCode")]
pub struct SvSaveCode {
    /// 0 to 4: pending, done, fallback file, warning, error.
    pub state: VarInt,
    /// The error.
    pub error: NetString,
    /// Who asked for the save.
    pub save_requester: NetString,
    /// The server.
    pub server_name: NetString,
    /// The code the server made up.
    pub generated_code: NetString,
    /// The code to load the save with.
    pub code: NetString,
    /// The team's players.
    pub team_members: NetString,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// A message that is one text (`Sv_ServerAlert`, `Sv_ModeratorAlert`, `Sv_MapInfo` of DDNet):
/// the registry line names it.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TextMessage {
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
