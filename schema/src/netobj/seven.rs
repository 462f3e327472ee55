//! The snapshot objects of Teeworlds 0.7 (Teeworlds `datasrc/network.py`, as DDNet keeps it in
//! `datasrc/seven/network.py`; type ids as DDNet's generated `protocol7.h` numbers them).
//!
//! Projectiles, lasers, flags, character cores and the events that are a position or a
//! position and a client id or sound are laid out as in 0.6 and use the types of
//! [`super::ddnet`] and [`super::common`]. Types 1 to 22 have pre-agreed sizes; types 23 and
//! 24, added with the race features, do not (docs/format-notes.md, "Snapshots"). Every type has
//! a fixed size. Types whose 0.6 namesake is laid out otherwise end in `7`.

use binrw::binrw;
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

#[cfg(feature = "serde")]
use super::common::unit;
use super::common::{net_flags, CharacterCore, Common, Emote, Team, Weapon};
use crate::map::common::I32String;
use crate::open_enum::open_enum;
use twcodec_schema_derive::describe;

net_flags! {
    /// What a player is doing (Teeworlds 0.7 `PLAYERFLAG_*`).
    #[unknown(B24)]
    pub struct PlayerFlags7 {
        /// Logged in as administrator.
        admin,
        /// Typing in the chat.
        chatting,
        /// Looking at the scoreboard.
        scoreboard,
        /// Ready for the next round.
        ready,
        /// Dead.
        dead,
        /// Watching (spectating).
        watching,
        /// A bot.
        bot,
        /// Aiming (DDNet's 0.7 code adds this bit).
        aim,
    }
}

net_flags! {
    /// The game type (Teeworlds 0.7 `GAMEFLAG_*`).
    #[unknown(B28)]
    pub struct GameFlags7 {
        /// Players play in two teams.
        teams,
        /// There are flags to capture.
        flags,
        /// Dead players wait for the next round.
        survival,
        /// A race.
        race,
    }
}

net_flags! {
    /// The state of the match (Teeworlds 0.7 `GAMESTATEFLAG_*`).
    #[unknown(B26)]
    pub struct GameStateFlags7 {
        /// Warmup.
        warmup,
        /// Sudden death.
        suddendeath,
        /// The round is over.
        roundover,
        /// The match is over.
        gameover,
        /// Paused.
        paused,
        /// Counting down to the start.
        startcountdown,
    }
}

net_flags! {
    /// What happened to a tee's movement this tick (Teeworlds 0.7 `COREEVENTFLAG_*`), for
    /// sounds and effects.
    #[unknown(B27)]
    pub struct CoreEventFlags {
        /// Jumped off the ground.
        ground_jump,
        /// Jumped in the air.
        air_jump,
        /// The hook grabbed a player.
        hook_attach_player,
        /// The hook grabbed the ground.
        hook_attach_ground,
        /// The hook hit unhookable ground.
        hook_hit_nohook,
    }
}

net_flags! {
    /// Race settings (Teeworlds 0.7 `RACEFLAG_*`).
    #[unknown(B29)]
    pub struct RaceFlags {
        /// No kill messages.
        hide_killmsg,
        /// Finish messages go to the chat.
        finishmsg_as_chat,
        /// The wanted weapon is kept.
        keep_wanted_weapon,
    }
}

open_enum! {
    /// What a 0.7 pickup gives (Teeworlds 0.7 `PICKUP_*`).
    [described]
    pub struct PickupKind(i32) {
        /// 0: a heart.
        HEALTH = 0 as Health;
        /// 1: a shield.
        ARMOR = 1 as Armor;
        /// 2: the grenade launcher.
        GRENADE = 2 as Grenade;
        /// 3: the shotgun.
        SHOTGUN = 3 as Shotgun;
        /// 4: the laser.
        LASER = 4 as Laser;
        /// 5: the ninja sword.
        NINJA = 5 as Ninja;
        /// 6: the gun.
        GUN = 6 as Gun;
        /// 7: the hammer.
        HAMMER = 7 as Hammer;
    }
    /// Any other value, kept.
    else Other;
}

open_enum! {
    /// What a 0.7 spectator watches (Teeworlds 0.7 `SPEC_*`).
    [described]
    pub struct SpecMode(i32) {
        /// 0: free view.
        FREEVIEW = 0 as Freeview;
        /// 1: a player.
        PLAYER = 1 as Player;
        /// 2: the red flag.
        FLAG_RED = 2 as FlagRed;
        /// 3: the blue flag.
        FLAG_BLUE = 3 as FlagBlue;
    }
    /// Any other value, kept.
    else Other;
}

/// Type 1: a player's input (`CNetObj_PlayerInput`). Clients send it in input messages;
/// snapshots hold it only in demos and tools.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_PlayerInput")]
pub struct PlayerInput7 {
    /// Walking direction: -1 left, 0 none, 1 right.
    pub direction: i32,
    /// Aim, relative to the tee, in world units.
    pub target_x: i32,
    /// Aim, relative to the tee, in world units.
    pub target_y: i32,
    /// 1 while the jump key is held.
    pub jump: i32,
    /// Count of fire key presses and releases (odd: held); only its changes matter.
    pub fire: i32,
    /// 1 while the hook key is held.
    pub hook: i32,
    /// What the player is doing.
    pub player_flags: PlayerFlags7,
    /// The weapon to switch to, plus one; 0 for no switch.
    pub wanted_weapon: i32,
    /// Count of "next weapon" presses.
    pub next_weapon: i32,
    /// Count of "previous weapon" presses.
    pub prev_weapon: i32,
}

/// Type 4: a pickup (`CNetObj_Pickup`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_Pickup")]
pub struct Pickup7 {
    /// Position, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub x: i32,
    /// Position, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub y: i32,
    /// What it gives.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub kind: PickupKind,
}

/// Type 6: the state of the match (`CNetObj_GameData`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_GameData")]
pub struct GameData7 {
    /// The server tick the match started at.
    pub game_start_tick: i32,
    /// The state of the match.
    pub game_state_flags: GameStateFlags7,
    /// The server tick the current state (warmup, pause, ...) ends at, 0 for none.
    pub game_state_end_tick: i32,
}

/// Type 7: team scores (`CNetObj_GameDataTeam`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_GameDataTeam")]
pub struct GameDataTeam {
    /// The red team's score.
    pub teamscore_red: i32,
    /// The blue team's score.
    pub teamscore_blue: i32,
}

/// Type 8: the flags of capture the flag (`CNetObj_GameDataFlag`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_GameDataFlag")]
pub struct GameDataFlag {
    /// The red flag: the client id of its carrier, or -3 missing, -2 at its stand, -1 taken.
    pub flag_carrier_red: i32,
    /// The blue flag, as `flag_carrier_red`.
    pub flag_carrier_blue: i32,
    /// The server tick the red flag was dropped at.
    pub flag_drop_tick_red: i32,
    /// The server tick the blue flag was dropped at.
    pub flag_drop_tick_blue: i32,
}

/// Type 10: a tee (`CNetObj_Character`): its movement, then what the player sees of it.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_Character")]
pub struct Character7 {
    /// Its movement (the 15 ints of type 9).
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub core: CharacterCore,
    /// Health, 0 to 10 (sent to the player and to those watching it; 0 for the others).
    pub health: i32,
    /// Armor, 0 to 10.
    pub armor: i32,
    /// Ammunition of the weapon, -1 for unlimited.
    pub ammo_count: i32,
    /// The weapon in hand.
    pub weapon: Weapon,
    /// The eyes.
    pub emote: Emote,
    /// The server tick of its last attack.
    pub attack_tick: i32,
    /// What happened to its movement this tick.
    pub triggered_events: CoreEventFlags,
}

/// Type 11: a player (`CNetObj_PlayerInfo`); the item's id is the client id.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_PlayerInfo")]
pub struct PlayerInfo7 {
    /// What the player is doing.
    pub player_flags: PlayerFlags7,
    /// Score.
    pub score: i32,
    /// Ping, in milliseconds.
    pub latency: i32,
}

/// Type 12: what a spectator watches (`CNetObj_SpectatorInfo`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_SpectatorInfo")]
pub struct SpectatorInfo7 {
    /// What it watches.
    pub spec_mode: SpecMode,
    /// The client id of the watched player, -1 for none.
    pub spectator_id: i32,
    /// The camera, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub x: i32,
    /// The camera, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub y: i32,
}

/// Type 13: a player's name and look as a demo records it (`CNetObj_De_ClientInfo`): clients
/// add it to the snapshots they record; servers never send it. The item's id is the client id.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_De_ClientInfo")]
pub struct DeClientInfo {
    /// 1 for the player who recorded the demo, else 0.
    pub local: i32,
    /// The player's team.
    pub team: Team,
    /// The name, at most 15 bytes (docs/format-notes.md, "Strings (I32String)").
    pub name: I32String<4>,
    /// The clan, at most 11 bytes.
    pub clan: I32String<3>,
    /// Country, ISO 3166-1 numeric; -1 for none.
    pub country: i32,
    /// The skin parts' names (body, marking, decoration, hands, feet, eyes), at most 23
    /// bytes each.
    pub skin_part_names: [I32String<6>; 6],
    /// For each part, 1 when its color below applies.
    pub use_custom_colors: [i32; 6],
    /// For each part, its color, HSLA packed as `0xAAHHSSLL`.
    pub skin_part_colors: [i32; 6],
}

/// Type 14: the game as a demo records it (`CNetObj_De_GameInfo`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_De_GameInfo")]
pub struct DeGameInfo {
    /// The game type.
    pub game_flags: GameFlags7,
    /// Score to win, 0 for none.
    pub score_limit: i32,
    /// Minutes per match, 0 for none.
    pub time_limit: i32,
    /// Matches per map, 0 for no limit.
    pub match_num: i32,
    /// The match being played, from 1.
    pub match_current: i32,
}

/// Type 15: the tuning as a demo records it (`CNetObj_De_TuneParams`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_De_TuneParams")]
pub struct DeTuneParams {
    /// The tuning values in their order in the game's tuning list, each times 100.
    pub tune_params: [i32; 32],
}

/// Type 22: damage taken (`CNetEvent_Damage`): 7 ints, not the 5 of snapshot.md's table
/// (docs/format-notes.md, "Snapshots").
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetEvent_Damage")]
pub struct Damage {
    /// Where.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub common: Common,
    /// The client id of who took it.
    pub client_id: i32,
    /// The direction it came from, in 1/256 radians.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::angle_256"))]
    pub angle: i32,
    /// Health lost, 0 to 9.
    pub health_amount: i32,
    /// Armor lost, 0 to 9.
    pub armor_amount: i32,
    /// 1 when self-inflicted.
    pub self_damage: i32,
}

/// Type 23: when a racer started (`CNetObj_PlayerInfoRace`); no pre-agreed size.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_PlayerInfoRace")]
pub struct PlayerInfoRace {
    /// The server tick the player's race started at, -1 for none.
    pub race_start_tick: i32,
}

/// Type 24: the race (`CNetObj_GameDataRace`); no pre-agreed size.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_GameDataRace")]
pub struct GameDataRace {
    /// The best time, in milliseconds; -1 for none.
    pub best_time: i32,
    /// Decimals of times shown, 0 to 3.
    pub precision: i32,
    /// Race settings.
    pub race_flags: RaceFlags,
}
