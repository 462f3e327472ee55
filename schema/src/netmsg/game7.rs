//! Game messages of the Teeworlds 0.7 protocol whose layout 0.6 does not share (Teeworlds
//! `datasrc/network.py` at tag 0.7.5, the same as DDNet's `datasrc/seven/network.py`). 0.7
//! game snapshots carry no player names: the server sends them in [`SvClientInfo7`], which a
//! DDNet client records in its demos; a vanilla 0.7 client records the demo-only
//! [`DeClientEnter7`] / [`DeClientLeave7`] instead (docs/format-notes.md, "Messages").

use binrw::binrw;
use binrw::helpers::until_eof;

use twcodec_schema_derive::describe;

use super::fields::{counted_strings, ints_counted_or_rest, optional_int, NetString, VarInt};

/// `Sv_Chat` (0.7): a chat line.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_Chat")]
pub struct SvChat7 {
    /// 0 to 3: none, all, team, whisper.
    pub mode: VarInt,
    /// -1 to 63: the speaker; -1 for the server.
    pub client_id: VarInt,
    /// -1 to 63: the addressee of a whisper, else -1.
    pub target_id: VarInt,
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

/// `Sv_Team` (0.7): a player changes team.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_Team")]
pub struct SvTeam7 {
    /// -1 to 63: the player.
    pub client_id: VarInt,
    /// -1 spectators, 0 red (or the game), 1 blue.
    pub team: VarInt,
    /// 0 or 1: whether the client shows no chat line for it.
    pub silent: VarInt,
    /// The tick until which the player cannot change team again.
    pub cooldown_tick: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_VoteOptionListAdd` (0.7): vote options at once; the generator lists no fields, the
/// server sends the number, then that many strings.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_VoteOptionListAdd")]
pub struct SvVoteOptionListAdd7 {
    /// How many descriptions follow (kept as sent: a negative count reads none).
    pub num_options: VarInt,
    /// The options' descriptions; writing writes them all, whatever `num_options` says.
    #[br(parse_with = counted_strings, args(num_options.0))]
    pub descriptions: Vec<NetString>,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_VoteSet` (0.7): a vote starts or ends.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_VoteSet")]
pub struct SvVoteSet7 {
    /// -1 to 63: who started it; -1 the server.
    pub client_id: VarInt,
    /// 0 to 6: unknown, start option, start kick, start spectate, end abort, end pass,
    /// end fail.
    pub vote_type: VarInt,
    /// 0 to 60: seconds the vote runs.
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

/// `Sv_ServerSettings` (0.7): what the server allows.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_ServerSettings")]
pub struct SvServerSettings7 {
    /// 0 or 1: kick votes allowed.
    pub kick_vote: VarInt,
    /// 0 to 64: players needed for a kick vote.
    pub kick_min: VarInt,
    /// 0 or 1: spectate votes allowed.
    pub spec_vote: VarInt,
    /// 0 or 1: teams locked.
    pub team_lock: VarInt,
    /// 0 or 1: teams balanced automatically.
    pub team_balance: VarInt,
    /// 0 to 64: player slots.
    pub player_slots: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_ClientInfo` (0.7): a player's name, clan, country and skin, sent when the player
/// joins (and for every player to one who joins).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_ClientInfo")]
pub struct SvClientInfo7 {
    /// 0 to 63: the player.
    pub client_id: VarInt,
    /// 0 or 1: the player is the receiving client.
    pub local: VarInt,
    /// -1 spectators, 0 red (or the game), 1 blue.
    pub team: VarInt,
    /// The name.
    pub name: NetString,
    /// The clan.
    pub clan: NetString,
    /// ISO 3166-1 numeric country code; -1 none.
    pub country: VarInt,
    /// Skin part names: body, marking, decoration, hands, feet, eyes.
    pub skin_part_names: [NetString; 6],
    /// 0 or 1 per skin part: whether it is coloured.
    pub use_custom_colors: [VarInt; 6],
    /// Colour per skin part (HSL with alpha, packed).
    pub skin_part_colors: [VarInt; 6],
    /// 0 or 1: whether the client shows no chat line for the join.
    pub silent: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_GameInfo` (0.7): the game's rules.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_GameInfo")]
pub struct SvGameInfo7 {
    /// Flags: 1 teams, 2 flags, 4 survival, 8 race.
    pub game_flags: VarInt,
    /// The score that ends a match; 0 none.
    pub score_limit: VarInt,
    /// Minutes a match lasts; 0 no limit.
    pub time_limit: VarInt,
    /// Matches per map rotation step; 0 no limit.
    pub match_num: VarInt,
    /// The current match.
    pub match_current: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_ClientDrop` (0.7): a player leaves.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_ClientDrop")]
pub struct SvClientDrop7 {
    /// 0 to 63: the player.
    pub client_id: VarInt,
    /// Why; empty when the player quit.
    pub reason: NetString,
    /// 0 or 1: whether the client shows no chat line for it.
    pub silent: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_GameMsg` (0.7): a message the client words itself (teams swapped, flag captured, ...);
/// its generator lists no fields, the server sends the message id and 0 to 3 ints, as many as
/// the id takes (Teeworlds `gs_GameMsgList`).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_GameMsg")]
pub struct SvGameMsg7 {
    /// 0 to 10: team swap, invalid spectator id, team shuffle, team balance, flag drop, flag
    /// return, team all (1 int: the team), team balance victim (1 int: the team), flag grab (1
    /// int: the team), flag capture (3 ints: the flag's team, the carrier, the time in
    /// hundredths), game paused (1 int: who paused).
    pub game_msg_id: VarInt,
    /// The ints the id takes; for an id this table does not know, every int to the end.
    #[br(parse_with = ints_counted_or_rest, args(game_msg_params(game_msg_id.0)))]
    pub params: Vec<VarInt>,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// How many ints a 0.7 game message id takes (Teeworlds `src/game/client/gameclient.cpp`,
/// `gs_GameMsgList`), or `None` for an id it does not list.
pub fn game_msg_params(id: i32) -> Option<usize> {
    match id {
        0..=5 => Some(0),
        6..=8 | 10 => Some(1),
        9 => Some(3),
        _ => None,
    }
}

/// `De_ClientEnter` (0.7, demos only): a player joins; the vanilla client records it in place
/// of the client info message it receives.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_De_ClientEnter")]
pub struct DeClientEnter7 {
    /// The name.
    pub name: NetString,
    /// -1 to 63: the player.
    pub client_id: VarInt,
    /// -1 spectators, 0 red (or the game), 1 blue.
    pub team: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `De_ClientLeave` (0.7, demos only): a player leaves.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_De_ClientLeave")]
pub struct DeClientLeave7 {
    /// The name.
    pub name: NetString,
    /// -1 to 63: the player.
    pub client_id: VarInt,
    /// Why; empty when the player quit.
    pub reason: NetString,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_SkinChange` (0.7): a player's new skin.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_SkinChange")]
pub struct SvSkinChange7 {
    /// 0 to 63: the player.
    pub client_id: VarInt,
    /// Skin part names: body, marking, decoration, hands, feet, eyes.
    pub skin_part_names: [NetString; 6],
    /// 0 or 1 per skin part: whether it is coloured.
    pub use_custom_colors: [VarInt; 6],
    /// Colour per skin part.
    pub skin_part_colors: [VarInt; 6],
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_RaceFinish` (0.7; DDNet's UUID message `Sv_RaceFinish` has the same fields): a player
/// finishes the race.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_RaceFinish")]
#[doc(alias = "CNetMsg_Sv_RaceFinish")]
pub struct SvRaceFinish {
    /// 0 to 63: the player.
    pub client_id: VarInt,
    /// The time in milliseconds; -1 unknown.
    pub time: VarInt,
    /// The difference to the player's best time, in milliseconds.
    pub diff: VarInt,
    /// 0 or 1: a new personal record.
    pub record_personal: VarInt,
    /// 0 or 1: a new server record; newer senders append it (read as 0 when absent).
    #[br(parse_with = optional_int)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub record_server: Option<VarInt>,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_Checkpoint` (0.7): the difference at a race checkpoint.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_Checkpoint")]
pub struct SvCheckpoint7 {
    /// The difference to the best time, in milliseconds.
    pub diff: VarInt,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_CommandInfo` (0.7; DDNet's UUID message `Sv_CommandInfo` has the same fields): a chat
/// command the server offers.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_CommandInfo")]
#[doc(alias = "CNetMsg_Sv_CommandInfo")]
pub struct SvCommandInfo {
    /// The command.
    pub name: NetString,
    /// Its arguments, in the console's format.
    pub args_format: NetString,
    /// Its help text.
    pub help_text: NetString,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}

/// `Sv_CommandInfoRemove` (0.7; also DDNet's UUID message): a chat command goes.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "protocol7::CNetMsg_Sv_CommandInfoRemove")]
#[doc(alias = "CNetMsg_Sv_CommandInfoRemove")]
pub struct SvCommandInfoRemove {
    /// The command.
    pub name: NetString,
    /// Bytes after the fields, kept.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<u8>,
}
