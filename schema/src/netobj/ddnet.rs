//! The snapshot objects of Teeworlds 0.6 and DDNet (DDNet `datasrc/network.py`: `NetObject`,
//! `NetEvent`; type ids as DDNet's generated `protocol.h` numbers them), and DDNet's extended
//! objects, named by a UUID (`NetObjectEx`, `NetEventEx`), which DDNet servers also send to
//! 0.7 clients.
//!
//! The numbered objects have a fixed size, pre-agreed for types 1 to 20. DDNet appended fields
//! to its extended objects over its versions, and reads each appended field when an item holds
//! it: those fields are `Option`s here, read when the item holds them, and ints past the known
//! fields are kept in `unknown_tail`, so an item of an older or a newer server reads and writes
//! back as it was.

use binrw::binrw;
use binrw::helpers::until_eof;
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

#[cfg(feature = "serde")]
use super::common::unit;
use super::common::{net_flags, CharacterCore, Common, Emote, Team, Weapon};
use crate::map::common::{when, I32String};
use crate::open_enum::open_enum;
use crate::uuid::{uuid_from_ints, uuid_to_ints, Uuid};
use twcodec_schema_derive::describe;

/// Type 0 (DDNet `NETOBJTYPE_EX`): announces the extended type whose id is this item's id, by
/// its UUID (docs/format-notes.md, "Snapshots"). DDNet servers send these to 0.7 clients too.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "NETOBJTYPE_EX")]
pub struct ExtendedType {
    /// The UUID that names the type, packed as in a map's UUID index items.
    #[br(map = uuid_from_ints)]
    #[bw(map = |uuid: &Uuid| uuid_to_ints(*uuid))]
    pub uuid: Uuid,
}

net_flags! {
    /// What a player is doing (DDNet `PLAYERFLAG_*`).
    #[unknown(B24)]
    pub struct PlayerFlags {
        /// In the game.
        playing,
        /// In a menu.
        in_menu,
        /// Typing in the chat.
        chatting,
        /// Looking at the scoreboard.
        scoreboard,
        /// Aiming (DDNet: showing the aim line to others).
        aim,
        /// Spectating with the camera.
        spec_cam,
        /// The aim is absolute, not relative to the tee (DDNet).
        input_absolute,
        /// The input was made by hand, not by a script (DDNet).
        input_manual,
    }
}

net_flags! {
    /// The game type (DDNet `GAMEFLAG_*`).
    #[unknown(B30)]
    pub struct GameFlags {
        /// Players play in two teams.
        teams,
        /// There are flags to capture.
        flags,
    }
}

net_flags! {
    /// The state of the round (DDNet `GAMESTATEFLAG_*`).
    #[unknown(B28)]
    pub struct GameStateFlags {
        /// The round is over.
        gameover,
        /// Sudden death.
        suddendeath,
        /// The game is paused.
        paused,
        /// The round timer counts race time (DDNet).
        racetime,
    }
}

open_enum! {
    /// What a pickup gives (DDNet `POWERUP_*`).
    [described]
    pub struct Powerup(i32) {
        /// 0: a heart.
        HEALTH = 0 as Health;
        /// 1: a shield.
        ARMOR = 1 as Armor;
        /// 2: the weapon of the subtype.
        WEAPON = 2 as Weapon;
        /// 3: the ninja sword.
        NINJA = 3 as Ninja;
        /// 4: a shield taking away the shotgun (DDNet).
        ARMOR_SHOTGUN = 4 as ArmorShotgun;
        /// 5: a shield taking away the grenade launcher (DDNet).
        ARMOR_GRENADE = 5 as ArmorGrenade;
        /// 6: a shield taking away the ninja sword (DDNet).
        ARMOR_NINJA = 6 as ArmorNinja;
        /// 7: a shield taking away the laser (DDNet).
        ARMOR_LASER = 7 as ArmorLaser;
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
pub struct PlayerInput {
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
    pub player_flags: PlayerFlags,
    /// The weapon to switch to, plus one; 0 for no switch.
    pub wanted_weapon: i32,
    /// Count of "next weapon" presses.
    pub next_weapon: i32,
    /// Count of "previous weapon" presses.
    pub prev_weapon: i32,
}

/// Type 2: a flying bullet, grenade or shotgun pellet (`CNetObj_Projectile`; the same in 0.7).
/// Clients compute where it is now from where it started.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_Projectile")]
pub struct Projectile {
    /// Where it started, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub x: i32,
    /// Where it started, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub y: i32,
    /// Its direction times 100.
    pub vel_x: i32,
    /// Its direction times 100.
    pub vel_y: i32,
    /// The weapon that fired it.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub kind: Weapon,
    /// The server tick it started at.
    pub start_tick: i32,
}

/// Type 3: a laser beam (`CNetObj_Laser`; the same in 0.7).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_Laser")]
pub struct Laser {
    /// Where the beam ends, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub x: i32,
    /// Where the beam ends, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub y: i32,
    /// Where the beam starts, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub from_x: i32,
    /// Where the beam starts, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub from_y: i32,
    /// The server tick it was fired at.
    pub start_tick: i32,
}

/// Type 4: a pickup (`CNetObj_Pickup`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_Pickup")]
pub struct Pickup {
    /// Position, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub x: i32,
    /// Position, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub y: i32,
    /// What it gives.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub kind: Powerup,
    /// For a weapon, which (a [`Weapon`] number); else 0.
    pub subtype: i32,
}

/// Type 5: a flag of capture the flag (`CNetObj_Flag`; the same in 0.7).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_Flag")]
pub struct Flag {
    /// Position, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub x: i32,
    /// Position, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub y: i32,
    /// Whose flag.
    pub team: Team,
}

/// Type 6: the game and round (`CNetObj_GameInfo`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_GameInfo")]
pub struct GameInfo {
    /// The game type.
    pub game_flags: GameFlags,
    /// The state of the round.
    pub game_state_flags: GameStateFlags,
    /// The server tick the round started at.
    pub round_start_tick: i32,
    /// Ticks of warmup left, 0 for none (DDNet's race: minus the tick the player's race
    /// started at).
    pub warmup_timer: i32,
    /// Score to win, 0 for none.
    pub score_limit: i32,
    /// Minutes per round, 0 for none.
    pub time_limit: i32,
    /// Rounds per map, 0 for no limit.
    pub round_num: i32,
    /// The round being played, from 1.
    pub round_current: i32,
}

/// Type 7: team scores and flag carriers (`CNetObj_GameData`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_GameData")]
pub struct GameData {
    /// The red team's score.
    pub teamscore_red: i32,
    /// The blue team's score.
    pub teamscore_blue: i32,
    /// The red flag: the client id of its carrier, or -3 missing, -2 at its stand, -1 taken
    /// (DDNet `FLAG_MISSING`, `FLAG_ATSTAND`, `FLAG_TAKEN`).
    pub flag_carrier_red: i32,
    /// The blue flag, as `flag_carrier_red`.
    pub flag_carrier_blue: i32,
}

/// Type 9: a tee (`CNetObj_Character`): its movement, then what the player sees of it.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_Character")]
pub struct Character {
    /// Its movement (the 15 ints of type 8).
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub core: CharacterCore,
    /// What the player is doing.
    pub player_flags: PlayerFlags,
    /// Health, 0 to 10 (sent to the player and to those watching it; 0 for the others).
    pub health: i32,
    /// Armor, 0 to 10.
    pub armor: i32,
    /// Ammunition of the weapon, -1 for unlimited.
    pub ammo_count: i32,
    /// The weapon in hand (-1, `Other(-1)`, for none).
    pub weapon: Weapon,
    /// The eyes.
    pub emote: Emote,
    /// The server tick of its last attack.
    pub attack_tick: i32,
}

/// Type 10: a player's place in the game (`CNetObj_PlayerInfo`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_PlayerInfo")]
pub struct PlayerInfo {
    /// 1 for the player of the client this snapshot is for, else 0.
    pub local: i32,
    /// The player's client id.
    pub client_id: i32,
    /// The player's team.
    pub team: Team,
    /// Score (DDNet with time score: minus the best time in seconds, -9999 for none).
    pub score: i32,
    /// Ping, in milliseconds.
    pub latency: i32,
}

/// Type 11: a player's name and look (`CNetObj_ClientInfo`); the item's id is the client id.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_ClientInfo")]
pub struct ClientInfo {
    /// The name, at most 15 bytes (DDNet `StrToInts`: docs/format-notes.md, "Strings
    /// (I32String)").
    pub name: I32String<4>,
    /// The clan, at most 11 bytes.
    pub clan: I32String<3>,
    /// Country, ISO 3166-1 numeric; -1 for none.
    pub country: i32,
    /// The skin's name, at most 23 bytes.
    pub skin: I32String<6>,
    /// 1 when the colors below apply, 0 for the skin's own.
    pub use_custom_color: i32,
    /// Body color, HSL packed as `0xHHSSLL`.
    pub color_body: i32,
    /// Feet color, HSL packed as `0xHHSSLL`.
    pub color_feet: i32,
}

/// Type 12: what a spectator watches (`CNetObj_SpectatorInfo`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_SpectatorInfo")]
pub struct SpectatorInfo {
    /// The client id of the watched player, -1 free view, -2 following several (DDNet
    /// `SPEC_FREEVIEW`, `SPEC_FOLLOW`).
    pub spectator_id: i32,
    /// The camera, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub x: i32,
    /// The camera, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub y: i32,
}

/// Type 17: a death (`CNetEvent_Death`; the same in 0.7).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetEvent_Death")]
pub struct Death {
    /// Where.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub common: Common,
    /// The client id of who died.
    pub client_id: i32,
}

/// Types 18 and 19: a sound (`CNetEvent_SoundGlobal`, `CNetEvent_SoundWorld`; 0.7's
/// `SoundWorld` is the same).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetEvent_SoundWorld")]
pub struct SoundEvent {
    /// Where.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub common: Common,
    /// The sound, an index into the game's sound list (`datasrc/content.py`).
    pub sound_id: i32,
}

/// Type 20: damage taken, one star (`CNetEvent_DamageInd`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetEvent_DamageInd")]
pub struct DamageIndicator {
    /// Where.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub common: Common,
    /// The star's direction, in 1/256 radians.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::angle_256"))]
    pub angle: i32,
}

// Extended objects.

net_flags! {
    /// DDNet's state of a tee (`CHARACTERFLAG_*`).
    #[unknown(B6)]
    pub struct CharacterFlags {
        /// In solo mode.
        solo,
        /// Has a jetpack.
        jetpack,
        /// Passes through other tees.
        collision_disabled,
        /// Its hook never retracts by itself.
        endless_hook,
        /// Can jump in the air without limit.
        endless_jump,
        /// Super mode.
        super_mode = "super",
        /// Its hammer does not hit others.
        hammer_hit_disabled,
        /// Its shotgun does not hit others.
        shotgun_hit_disabled,
        /// Its grenades do not hit others.
        grenade_hit_disabled,
        /// Its laser does not hit others.
        laser_hit_disabled,
        /// Its hook does not grab others.
        hook_hit_disabled,
        /// Its gun teleports.
        telegun_gun,
        /// Its grenades teleport.
        telegun_grenade,
        /// Its laser teleports.
        telegun_laser,
        /// Has the hammer.
        weapon_hammer,
        /// Has the gun.
        weapon_gun,
        /// Has the shotgun.
        weapon_shotgun,
        /// Has the grenade launcher.
        weapon_grenade,
        /// Has the laser.
        weapon_laser,
        /// Has the ninja sword.
        weapon_ninja,
        /// Cannot move.
        movements_disabled,
        /// Frozen.
        in_freeze,
        /// In practice mode.
        practice_mode,
        /// Its team is locked.
        lock_mode,
        /// In team 0 mode.
        team0_mode,
        /// Cannot be frozen or killed.
        invincible,
    }
}

net_flags! {
    /// What a DDNet server plays and what its clients may predict (`GAMEINFOFLAG_*`); all 32
    /// bits are named, the next ones are in [`GameInfoFlags2`].
    pub struct GameInfoFlags {
        /// The score is a time.
        timescore,
        /// A race game type.
        gametype_race,
        /// The fastcap game type.
        gametype_fastcap,
        /// The FNG game type.
        gametype_fng,
        /// The DDRace game type.
        gametype_ddrace,
        /// The DDNet game type.
        gametype_ddnet,
        /// The BlockWorlds game type.
        gametype_block_worlds,
        /// A vanilla game type.
        gametype_vanilla,
        /// The Plus game type.
        gametype_plus,
        /// Taking the flag starts the race.
        flag_starts_race,
        /// Race rules.
        race,
        /// Weapons never run out.
        unlimited_ammo,
        /// Record messages as DDRace sends them.
        ddrace_record_message,
        /// Record messages as race mods send them.
        race_record_message,
        /// The emote wheel is allowed.
        allow_eye_wheel,
        /// Hook collision lines are allowed.
        allow_hook_coll,
        /// Zooming is allowed.
        allow_zoom,
        /// Emulate an old DDRace bug: ghosts.
        bug_ddrace_ghost,
        /// Emulate an old DDRace bug: input.
        bug_ddrace_input,
        /// Emulate an FNG bug: laser range.
        bug_fng_laser_range,
        /// Emulate a vanilla bug: bounces.
        bug_vanilla_bounce,
        /// Predict FNG.
        predict_fng,
        /// Predict DDRace.
        predict_ddrace,
        /// Predict DDRace tiles.
        predict_ddrace_tiles,
        /// Predict vanilla.
        predict_vanilla,
        /// Show DDNet entities.
        entities_ddnet,
        /// Show DDRace entities.
        entities_ddrace,
        /// Show race entities.
        entities_race,
        /// Show FNG entities.
        entities_fng,
        /// Show vanilla entities.
        entities_vanilla,
        /// Do not mask entities.
        dont_mask_entities,
        /// Show BlockWorlds entities.
        entities_bw,
    }
}

net_flags! {
    /// More of what a DDNet server plays (`GAMEINFOFLAG2_*`).
    #[unknown(B20)]
    pub struct GameInfoFlags2 {
        /// Skins of the `x_` prefix are allowed.
        allow_x_skins,
        /// The City game type.
        gametype_city,
        /// The F-DDrace game type.
        gametype_fddrace,
        /// Show F-DDrace entities.
        entities_fddrace,
        /// Show health and armor in the HUD.
        hud_health_armor,
        /// Show ammunition in the HUD.
        hud_ammo,
        /// Show DDRace information in the HUD.
        hud_ddrace,
        /// No weak hook.
        no_weak_hook,
        /// Frozen tees keep their skin.
        no_skin_change_for_frozen,
        /// DDRace teams.
        ddrace_team,
        /// Predict events.
        predict_events,
        /// Up to 128 teams.
        supports_128_teams,
    }
}

net_flags! {
    /// DDNet's state of a player (`EXPLAYERFLAG_*`).
    #[unknown(B29)]
    pub struct ExPlayerFlags {
        /// Away from keyboard.
        afk,
        /// Paused.
        paused,
        /// Spectating.
        spec,
    }
}

net_flags! {
    /// How a DDNet projectile flies (`PROJECTILEFLAG_*`).
    #[unknown(B27)]
    pub struct ProjectileFlags {
        /// Bounces off walls horizontally.
        bounce_horizontal,
        /// Bounces off walls vertically.
        bounce_vertical,
        /// Explodes.
        explosive,
        /// Freezes.
        freeze,
        /// `vel_x` and `vel_y` are the unnormalized direction of the shot (else its direction
        /// in millionths).
        normalize_vel,
    }
}

net_flags! {
    /// DDNet laser flags (`LASERFLAG_*`).
    #[unknown(B31)]
    pub struct LaserFlags {
        /// Clients must not predict it.
        no_predict,
    }
}

net_flags! {
    /// How a DDNet pickup is drawn (`PICKUPFLAG_*`).
    #[unknown(B28)]
    pub struct PickupFlags {
        /// Mirrored horizontally.
        xflip,
        /// Mirrored vertically.
        yflip,
        /// Rotated.
        rotate,
        /// Clients must not predict it.
        no_predict,
    }
}

open_enum! {
    /// A player's rights on a DDNet server (`AUTHED_*`).
    [described]
    pub struct AuthLevel(i32) {
        /// 0.
        NO = 0 as No;
        /// 1.
        HELPER = 1 as Helper;
        /// 2: moderator.
        MOD = 2 as Mod;
        /// 3.
        ADMIN = 3 as Admin;
    }
    /// Any other value, kept.
    else Other;
}

open_enum! {
    /// What a DDNet laser is (`LASERTYPE_*`).
    [described]
    pub struct LaserType(i32) {
        /// 0: a laser shot (`RIFLE`).
        RIFLE = 0 as Rifle;
        /// 1: a shotgun shot.
        SHOTGUN = 1 as Shotgun;
        /// 2: a door.
        DOOR = 2 as Door;
        /// 3: a freezing laser.
        FREEZE = 3 as Freeze;
        /// 4: a dragger.
        DRAGGER = 4 as Dragger;
        /// 5: a turret.
        GUN = 5 as Gun;
        /// 6: a turret's plasma shot.
        PLASMA = 6 as Plasma;
    }
    /// Any other value, kept.
    else Other;
}

open_enum! {
    /// What a map entity of DDNet is (`ENTITYCLASS_*`).
    [described]
    pub struct EntityClass(i32) {
        /// 0.
        PROJECTILE = 0 as Projectile;
        /// 1.
        DOOR = 1 as Door;
        /// 2.
        DRAGGER_WEAK = 2 as DraggerWeak;
        /// 3.
        DRAGGER_NORMAL = 3 as DraggerNormal;
        /// 4.
        DRAGGER_STRONG = 4 as DraggerStrong;
        /// 5.
        GUN_NORMAL = 5 as GunNormal;
        /// 6.
        GUN_EXPLOSIVE = 6 as GunExplosive;
        /// 7.
        GUN_FREEZE = 7 as GunFreeze;
        /// 8.
        GUN_UNFREEZE = 8 as GunUnfreeze;
        /// 9.
        LIGHT = 9 as Light;
        /// 10.
        PICKUP = 10 as Pickup;
    }
    /// Any other value, kept.
    else Other;
}

/// `my-own-object@heinrich5991.de` and `my-own-event@heinrich5991.de`: DDNet's test objects
/// (`CNetObj_MyOwnObject`, `CNetObj_MyOwnEvent`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_MyOwnObject")]
pub struct MyOwnObject {
    /// A test value.
    pub test: i32,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `character@netobj.ddnet.tw`: DDNet's part of a tee (`CNetObj_DDNetCharacter`), beside its
/// type 9 item of the same id. Every field was appended by some DDNet version and is read when
/// the item holds it.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_DDNetCharacter")]
pub struct DdnetCharacter {
    /// DDNet's state of the tee.
    #[br(parse_with = when(true))]
    pub flags: Option<CharacterFlags>,
    /// The server tick its freeze ends at; 0 not frozen, -1 deep frozen.
    #[br(parse_with = when(true))]
    pub freeze_end: Option<i32>,
    /// Jumps it has, -1 for unlimited.
    #[br(parse_with = when(true))]
    pub jumps: Option<i32>,
    /// The last tele checkpoint it passed, -1 for none.
    #[br(parse_with = when(true))]
    pub tele_checkpoint: Option<i32>,
    /// Of the player it hooks: the client id that wins a tie (who is strong and weak).
    #[br(parse_with = when(true))]
    pub strong_weak_id: Option<i32>,
    /// Jumps made since it touched the ground, -1 unknown.
    #[br(parse_with = when(true))]
    pub jumped_total: Option<i32>,
    /// The server tick its ninja sword was taken, -1 unknown.
    #[br(parse_with = when(true))]
    pub ninja_activation_tick: Option<i32>,
    /// The server tick its freeze started, -1 unknown.
    #[br(parse_with = when(true))]
    pub freeze_start: Option<i32>,
    /// Aim, relative to the tee, in world units (more exact than type 9's angle).
    #[br(parse_with = when(true))]
    pub target_x: Option<i32>,
    /// Aim, relative to the tee, in world units.
    #[br(parse_with = when(true))]
    pub target_y: Option<i32>,
    /// The tune zone it is in, -1 for the one of the map tile under it.
    #[br(parse_with = when(true))]
    pub tune_zone_override: Option<i32>,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `player@netobj.ddnet.tw`: DDNet's part of a player (`CNetObj_DDNetPlayer`), beside its type
/// 10 item.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_DDNetPlayer")]
pub struct DdnetPlayer {
    /// DDNet's state of the player.
    pub flags: ExPlayerFlags,
    /// The player's rights.
    pub auth_level: AuthLevel,
    /// Appended later: the best time, whole seconds; -2 unset, -1 not finished (DDNet
    /// `FinishTime`).
    #[br(parse_with = when(true))]
    pub finish_time_seconds: Option<i32>,
    /// Appended later: the milliseconds of the best time, 0 to 999.
    #[br(parse_with = when(true))]
    pub finish_time_millis: Option<i32>,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `gameinfo@netobj.ddnet.tw`: what a DDNet server plays (`CNetObj_GameInfoEx`). Every field
/// was appended by some DDNet version and is read when the item holds it.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_GameInfoEx")]
pub struct GameInfoEx {
    /// What it plays and what clients may predict.
    #[br(parse_with = when(true))]
    pub flags: Option<GameInfoFlags>,
    /// The version of this object's meaning (DDNet `GAMEINFO_CURVERSION`).
    #[br(parse_with = when(true))]
    pub version: Option<i32>,
    /// More of what it plays.
    #[br(parse_with = when(true))]
    pub flags2: Option<GameInfoFlags2>,
    /// Fewest players a DDRace team needs.
    #[br(parse_with = when(true))]
    pub min_team_size: Option<i32>,
    /// Most players a DDRace team takes.
    #[br(parse_with = when(true))]
    pub max_team_size: Option<i32>,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `projectile@netobj.ddnet.tw`: a projectile as older DDNet sent it (`CNetObj_DDRaceProjectile`,
/// laid out like type 2).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_DDRaceProjectile")]
pub struct DdraceProjectile {
    /// Where it started, in hundredths of world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::centi_world"))]
    pub x: i32,
    /// Where it started, in hundredths of world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::centi_world"))]
    pub y: i32,
    /// Its direction, in millionths of radians.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::micro_radians"))]
    pub angle: i32,
    /// Bits 0 to 7 the owner's client id, then the flags DDNet names `LEGACYPROJECTILEFLAG_*`:
    /// bit 8 no owner, 9 sent by DDNet, 10 and 11 bounces horizontally and vertically, 12
    /// explosive, 13 freezes.
    pub data: i32,
    /// The weapon that fired it.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub kind: Weapon,
    /// The server tick it started at.
    pub start_tick: i32,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `laser@netobj.ddnet.tw`: a DDNet laser: shots, doors, draggers, turrets
/// (`CNetObj_DDNetLaser`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_DDNetLaser")]
pub struct DdnetLaser {
    /// Where the beam ends, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub to_x: i32,
    /// Where the beam ends, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub to_y: i32,
    /// Where the beam starts, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub from_x: i32,
    /// Where the beam starts, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub from_y: i32,
    /// The server tick it was fired at.
    pub start_tick: i32,
    /// The client id of who fired it, -1 for none.
    pub owner: i32,
    /// What it is.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub kind: LaserType,
    /// Appended later: the switch number that turns it on, -1 for none.
    #[br(parse_with = when(true))]
    pub switch_number: Option<i32>,
    /// Appended later: for draggers and turrets, which kind (`LASERDRAGGERTYPE_*`,
    /// `LASERGUNTYPE_*`), else -1.
    #[br(parse_with = when(true))]
    pub subtype: Option<i32>,
    /// Appended later.
    #[br(parse_with = when(true))]
    pub flags: Option<LaserFlags>,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `ddnet-projectile@netobj.ddnet.tw`: a projectile as DDNet sends it now
/// (`CNetObj_DDNetProjectile`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_DDNetProjectile")]
pub struct DdnetProjectile {
    /// Where it started, in hundredths of world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::centi_world"))]
    pub x: i32,
    /// Where it started, in hundredths of world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::centi_world"))]
    pub y: i32,
    /// Its direction: in millionths, or unnormalized with the `normalize_vel` flag.
    pub vel_x: i32,
    /// Its direction, as `vel_x`.
    pub vel_y: i32,
    /// The weapon that fired it.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub kind: Weapon,
    /// The server tick it started at.
    pub start_tick: i32,
    /// The client id of who fired it, -1 for none.
    pub owner: i32,
    /// The switch number that turns it on, 0 for none.
    pub switch_number: i32,
    /// The tune zone it flies in.
    pub tune_zone: i32,
    /// How it flies.
    pub flags: ProjectileFlags,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `pickup@netobj.ddnet.tw`: a DDNet pickup (`CNetObj_DDNetPickup`), sent instead of type 4.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_DDNetPickup")]
pub struct DdnetPickup {
    /// Position, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub x: i32,
    /// Position, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub y: i32,
    /// What it gives.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub kind: Powerup,
    /// For a weapon, which (a [`Weapon`] number); else 0.
    pub subtype: i32,
    /// The switch number that turns it on, 0 for none.
    pub switch_number: i32,
    /// Appended later: how it is drawn.
    #[br(parse_with = when(true))]
    pub flags: Option<PickupFlags>,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `spectator-info@netobj.ddnet.org`: the camera of the player a spectator watches
/// (`CNetObj_DDNetSpectatorInfo`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_DDNetSpectatorInfo")]
pub struct DdnetSpectatorInfo {
    /// 1 when the fields below are known.
    pub has_camera_info: i32,
    /// The watched player's zoom, in thousandths.
    pub zoom: i32,
    /// The watched player's dynamic camera dead zone (DDNet `cl_dyncam_deadzone`).
    pub deadzone: i32,
    /// The watched player's dynamic camera follow factor (DDNet `cl_dyncam_follow_factor`).
    pub follow_factor: i32,
    /// Appended later: how many spectators watch.
    #[br(parse_with = when(true))]
    pub spectator_count: Option<i32>,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `spectator-count@netobj.ddnet.org`: how many spectators watch the player
/// (`CNetObj_SpectatorCount`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_SpectatorCount")]
pub struct SpectatorCount {
    /// How many.
    pub num_spectators: i32,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `birthday@netevent.ddnet.org` and `finish@netevent.ddnet.org`: DDNet events with a position
/// only (`CNetEvent_Birthday`, `CNetEvent_Finish`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ExEvent {
    /// Where.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub common: Common,
    /// Ints past what this event defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `spec-char@netobj.ddnet.tw`: where a spectating (paused) tee is (`CNetObj_SpecChar`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_SpecChar")]
pub struct SpecChar {
    /// Position, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub x: i32,
    /// Position, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub y: i32,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `switch-state@netobj.ddnet.tw`: the switches of the player's DDRace team
/// (`CNetObj_SwitchState`). Each part is read when the item holds all of it (a part cut short
/// stays in `unknown_tail`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_SwitchState")]
pub struct SwitchState {
    /// The highest switch number of the map.
    #[br(parse_with = when(true))]
    pub highest_switch_number: Option<i32>,
    /// Which of switches 0 to 255 are on, one bit each, 32 per int.
    #[br(parse_with = when(highest_switch_number.is_some()))]
    pub status: Option<[i32; 8]>,
    /// Up to 4 switches that turn off by themselves (0 for none)...
    #[br(parse_with = when(status.is_some()))]
    pub switch_numbers: Option<[i32; 4]>,
    /// ...and the server tick each turns off at.
    #[br(parse_with = when(switch_numbers.is_some()))]
    pub end_ticks: Option<[i32; 4]>,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `entity-ex@netobj.ddnet.tw`: DDNet's part of a map entity (`CNetObj_EntityEx`), beside the
/// laser, pickup or projectile item of the same id.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_EntityEx")]
pub struct EntityEx {
    /// The switch number that turns it on, 0 for none.
    pub switch_number: i32,
    /// The map layer it comes from (DDNet `LAYER_*`).
    pub layer: i32,
    /// What it is.
    pub entity_class: EntityClass,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `map-best-time@netobj.ddnet.org`: the best time on the map (`CNetObj_MapBestTime`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_MapBestTime")]
pub struct MapBestTime {
    /// Whole seconds; -1 when nobody finished.
    pub map_best_time_seconds: i32,
    /// The milliseconds, 0 to 999.
    pub map_best_time_millis: i32,
    /// Ints past what this object defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}

/// `map-sound-world@netevent.ddnet.org`: a sound of the map played in the world
/// (`CNetEvent_MapSoundWorld`).
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetEvent_MapSoundWorld")]
pub struct MapSoundWorld {
    /// Where.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub common: Common,
    /// The sound, an index among the map's sounds.
    pub sound_id: i32,
    /// Ints past what this event defines, kept so that writing is lossless.
    #[br(parse_with = until_eof)]
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub unknown_tail: Vec<i32>,
}
