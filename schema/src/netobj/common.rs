//! What the object types of both protocols share: the macros that define their enums and flag
//! sets, the enums both protocols number alike (weapons, emotes, teams, hook states), and the
//! unit hints of their fields.

use binrw::binrw;
#[cfg(feature = "serde")]
use serde::Serializer;

use crate::open_enum::open_enum;
use twcodec_schema_derive::describe;

/// Defines a set of flags of an object field: a `modular-bitfield` struct of one i32, a bool
/// per flag from bit 0 up (named as in the protocol, lower case; `flag = "name"` where the
/// name is a Rust keyword), and `unknown` for the bits
/// above them, kept. Read and written as one i32; serialized as the names of the set flags
/// ([`crate::map::common::flag_names`], like the map's layer flags).
///
/// ```text
/// net_flags! {
///     /// doc
///     #[unknown(B30)]   // the bits left: 32 minus the number of flags; none when there are 32
///     pub struct Name {
///         /// doc
///         flag,
///     }
/// }
/// ```
macro_rules! net_flags {
    (
        $(#[doc = $doc:literal])*
        $(#[unknown($unknown:ident)])?
        pub struct $name:ident {
            $(
                $(#[doc = $fdoc:literal])*
                $flag:ident $(= $fname:literal)?,
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[::modular_bitfield::bitfield(bytes = 4)]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
        pub struct $name {
            $($(#[doc = $fdoc])* pub $flag: bool,)*
            $(
                /// The bits above the named flags, kept.
                pub unknown: ::modular_bitfield::specifiers::$unknown,
            )?
        }

        impl $name {
            /// The names of the flags, bit 0 first.
            pub const NAMES: &'static [&'static str] = &[$(net_flags!(@name $flag $($fname)?)),*];

            /// The flags of this i32.
            pub fn from_i32(value: i32) -> $name {
                $name::from_bytes(value.to_le_bytes())
            }

            /// The i32 stored in the object.
            pub fn to_i32(self) -> i32 {
                i32::from_le_bytes(self.into_bytes())
            }
        }

        #[cfg(feature = "serde")]
        impl Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let unknown = 0u64 $(+ {
                    let _: ::modular_bitfield::specifiers::$unknown;
                    u64::from(self.unknown()) << $name::NAMES.len()
                })?;
                let names = crate::map::common::flag_names(
                    &[$((self.$flag(), net_flags!(@name $flag $($fname)?))),*],
                    unknown,
                );
                names.serialize(serializer)
            }
        }

        #[cfg(feature = "serde")]
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let bits = crate::map::common::deserialize_flags(deserializer, $name::NAMES, 32)?;
                Ok($name::from_i32(bits as u32 as i32))
            }
        }

        impl ::binrw::BinRead for $name {
            type Args<'a> = ();

            fn read_options<R: ::binrw::io::Read + ::binrw::io::Seek>(
                reader: &mut R,
                endian: ::binrw::Endian,
                args: (),
            ) -> ::binrw::BinResult<Self> {
                Ok($name::from_i32(i32::read_options(reader, endian, args)?))
            }
        }

        impl ::binrw::BinWrite for $name {
            type Args<'a> = ();

            fn write_options<W: ::binrw::io::Write + ::binrw::io::Seek>(
                &self,
                writer: &mut W,
                endian: ::binrw::Endian,
                args: (),
            ) -> ::binrw::BinResult<()> {
                self.to_i32().write_options(writer, endian, args)
            }
        }

        #[cfg(feature = "reference")]
        impl crate::reference::OnDisk for $name {
            fn size() -> crate::reference::Size {
                crate::reference::Size::fixed(4)
            }
        }
    };
    (@name $flag:ident) => {
        stringify!($flag)
    };
    (@name $flag:ident $name:literal) => {
        $name
    };
}
pub(crate) use net_flags;

open_enum! {
    /// A weapon (DDNet and Teeworlds `WEAPON_*`, numbered alike in 0.6 and 0.7).
    [described]
    pub struct Weapon(i32) {
        /// 0.
        HAMMER = 0 as Hammer;
        /// 1: the pistol.
        GUN = 1 as Gun;
        /// 2.
        SHOTGUN = 2 as Shotgun;
        /// 3: the grenade launcher.
        GRENADE = 3 as Grenade;
        /// 4: the laser (0.6 `WEAPON_RIFLE`).
        LASER = 4 as Laser;
        /// 5.
        NINJA = 5 as Ninja;
    }
    /// Any other value, kept.
    else Other;
}

open_enum! {
    /// A tee's eye expression (`EMOTE_*`, numbered alike in 0.6 and 0.7).
    [described]
    pub struct Emote(i32) {
        /// 0.
        NORMAL = 0 as Normal;
        /// 1.
        PAIN = 1 as Pain;
        /// 2.
        HAPPY = 2 as Happy;
        /// 3.
        SURPRISE = 3 as Surprise;
        /// 4.
        ANGRY = 4 as Angry;
        /// 5.
        BLINK = 5 as Blink;
    }
    /// Any other value, kept.
    else Other;
}

open_enum! {
    /// A team (`TEAM_*`, numbered alike in 0.6 and 0.7).
    [described]
    pub struct Team(i32) {
        /// -1: watching.
        SPECTATORS = -1 as Spectators;
        /// 0: red, and every player of a game without teams.
        RED = 0 as Red;
        /// 1.
        BLUE = 1 as Blue;
    }
    /// Any other value, kept.
    else Other;
}

open_enum! {
    /// What a tee's hook is doing (DDNet `src/game/gamecore.h`, `HOOK_*`; the same in 0.7).
    [described]
    pub struct HookState(i32) {
        /// -1: retracted.
        RETRACTED = -1 as Retracted;
        /// 0: not in use.
        IDLE = 0 as Idle;
        /// 1: starting to retract.
        RETRACT_START = 1 as RetractStart;
        /// 2: retracting (`HOOK_RETRACT_START + 1`).
        RETRACTING = 2 as Retracting;
        /// 3: done retracting.
        RETRACT_END = 3 as RetractEnd;
        /// 4: flying out.
        FLYING = 4 as Flying;
        /// 5: attached to a wall or a player.
        GRABBED = 5 as Grabbed;
    }
    /// Any other value, kept.
    else Other;
}

/// Unit hints: serializers for fields whose raw value is in a unit other than the plain
/// number, as `serialize_with` functions. Each writes its value as a newtype struct of a name
/// below, which serializers of data (JSON) see through, and which the text dumps of the
/// `twcodec` crate show in human units beside the raw value (`x: 1056 (33 tiles)`).
pub mod unit {
    #[cfg(feature = "serde")]
    use super::Serializer;

    /// The prefix of every unit name.
    pub const PREFIX: &str = "$twcodec::unit::";
    /// Whole world units: a tile is 32.
    pub const WORLD: &str = "$twcodec::unit::world";
    /// Hundredths of world units (DDNet's projectiles).
    pub const CENTI_WORLD: &str = "$twcodec::unit::centi_world";
    /// 1/256 world units per tick (velocities).
    pub const VELOCITY_256: &str = "$twcodec::unit::velocity_256";
    /// 1/256 radians (angles).
    pub const ANGLE_256: &str = "$twcodec::unit::angle_256";
    /// Millionths of radians (DDNet's legacy projectiles).
    pub const MICRO_RADIANS: &str = "$twcodec::unit::micro_radians";

    /// Whole world units ([`WORLD`]).
    #[cfg(feature = "serde")]
    pub fn world<S: Serializer>(value: &i32, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(WORLD, value)
    }

    /// Hundredths of world units ([`CENTI_WORLD`]).
    #[cfg(feature = "serde")]
    pub fn centi_world<S: Serializer>(value: &i32, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(CENTI_WORLD, value)
    }

    /// 1/256 world units per tick ([`VELOCITY_256`]).
    #[cfg(feature = "serde")]
    pub fn velocity_256<S: Serializer>(value: &i32, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(VELOCITY_256, value)
    }

    /// 1/256 radians ([`ANGLE_256`]).
    #[cfg(feature = "serde")]
    pub fn angle_256<S: Serializer>(value: &i32, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(ANGLE_256, value)
    }

    /// Millionths of radians ([`MICRO_RADIANS`]).
    #[cfg(feature = "serde")]
    pub fn micro_radians<S: Serializer>(value: &i32, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(MICRO_RADIANS, value)
    }
}

/// The two ints every event starts with (`CNetEvent_Common`): where it happens.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetEvent_Common")]
pub struct Common {
    /// Position, in world units (32 to a tile).
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub x: i32,
    /// Position, in world units, growing downward.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub y: i32,
}

/// A tee's movement (`CNetObj_CharacterCore`; the same 15 ints in 0.6 and 0.7): what both
/// sides simulate, so that clients can predict it.
#[describe]
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[doc(alias = "CNetObj_CharacterCore")]
pub struct CharacterCore {
    /// The server tick this state is of.
    pub tick: i32,
    /// Position, in world units (32 to a tile).
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub x: i32,
    /// Position, in world units, growing downward.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub y: i32,
    /// Velocity, in 1/256 world units per tick.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::velocity_256"))]
    pub vel_x: i32,
    /// Velocity, in 1/256 world units per tick.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::velocity_256"))]
    pub vel_y: i32,
    /// Aim direction, in 1/256 radians (0 is right, growing clockwise).
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::angle_256"))]
    pub angle: i32,
    /// Walking direction: -1 left, 0 none, 1 right.
    pub direction: i32,
    /// Jump state: bit 0 jumped (the key is still held), bit 1 the air jump is used.
    pub jumped: i32,
    /// The client id of the player it hooks, -1 for none.
    pub hooked_player: i32,
    /// What the hook is doing.
    pub hook_state: HookState,
    /// Ticks since the hook was fired.
    pub hook_tick: i32,
    /// Hook position, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub hook_x: i32,
    /// Hook position, in world units.
    #[cfg_attr(feature = "serde", serde(serialize_with = "unit::world"))]
    pub hook_y: i32,
    /// Hook direction, a unit vector in 1/256.
    pub hook_dx: i32,
    /// Hook direction, a unit vector in 1/256.
    pub hook_dy: i32,
}
