//! Snapshot objects (snapshot.md; docs/format-notes.md, "Snapshots"): what the items of a
//! snapshot hold, per protocol. Each object type is a binrw struct read from and written to
//! the item's ints; [`SnapObject`] picks the struct for an item, and [`SnapObjectKind`] names the
//! types, from the registry below: one line per type.
//!
//! | protocol | module |
//! |---|---|
//! | Teeworlds 0.6 and DDNet: types 0 to 20, and DDNet's extended (UUID) types | [`ddnet`] |
//! | Teeworlds 0.7: types 0 to 24 | [`seven`] (with the layouts it shares from [`ddnet`]) |
//! | shared enums, the character core, the event position, unit hints | [`common`] |
//!
//! The numbered objects have a fixed size: an item of another size stays ints
//! ([`ObjectError::Size`]), as Teeworlds 0.7 refuses it (DDNet reads a longer one and drops a
//! shorter one). Extended objects grew over DDNet's versions: an item holding fewer of the
//! appended fields reads them as `None`, and ints past the known fields land in
//! `unknown_tail`, so every item that decodes is written back as it was read.

pub mod common;
pub mod ddnet;
pub mod seven;

use std::borrow::Cow;
use std::sync::OnceLock;

use binrw::io::Cursor;
use binrw::{BinRead, BinResult, Endian};

use crate::map::common::encode_ints;
use crate::uuid::Uuid;

/// Which table of the registry a kind of object comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ObjectFamily {
    /// The numbered types of Teeworlds 0.6 and DDNet.
    Ddnet06,
    /// The numbered types of Teeworlds 0.7.
    Teeworlds07,
    /// DDNet's extended types, named by a UUID (in either protocol).
    Extended,
}

// The registry of snapshot object types: one line per type, in three sections.
//
// - `ddnet_06` and `teeworlds_07`: `Variant(Type) = type id, "name";`, ending in
//   `, not_pre_agreed` for a type whose size deltas carry (type 0, and 0.7's 23 and 24);
// - `extended`: `Variant(Type) = "name the UUID is derived from", "name";`.
//
// A line may carry `#[cfg(...)]`. Everything else follows from the line: the kind and object
// variants, decoding and encoding, the lookups by type id and UUID, the names and sizes the
// pre-agreed size tables of `crate::snapshot` are checked against, and so the dumps of the
// `twcodec` crate (docs/extending.md). `registry!` is in schema/src/registry.rs.
registry! {
    /// The kinds of snapshot object: the numbered types of Teeworlds 0.6/DDNet and of
    /// Teeworlds 0.7, and DDNet's extended types.
    kind SnapObjectKind, serde(rename_all = "snake_case") {
        /// Anything else: kept as ints.
        Unknown,
    }
    /// A decoded snapshot object. Serialized with its kind as `kind`, then its fields.
    value SnapObject, serde(tag = "kind", rename_all = "snake_case") {
        /// An item this library cannot decode: its ints.
        Unknown {
            /// The ints as stored.
            ints: Vec<i32>,
        },
    }
    methods {
        decode:
            /// Decodes the ints of an item of kind `kind`: an object of a numbered kind needs
            /// exactly its size, one of an extended kind at least the fields it cannot do
            /// without. [`SnapObjectKind::Unknown`] keeps the ints.
            pub fn decode(kind: SnapObjectKind, ints: &[i32]) -> Result<SnapObject, ObjectError> {
                |()| decode_object(kind, ints),
                _ => SnapObject::Unknown { ints: ints.to_vec() },
            }
        encode:
            /// The object's ints.
            pub fn encode(&self) -> BinResult<Vec<i32>> {
                |object| encode_ints(object, ()),
                SnapObject::Unknown { ints } => Ok(ints.clone()),
            }
        name:
            /// The name: the snake case of the protocol's name, `obj_` or `event_` first
            /// (snapshot.md's names for the numbered types).
            pub const fn name(self) -> &'static str;
        uuid:
            /// The name an extended kind's UUID is derived from.
            pub const fn uuid_name(self) -> Option<&'static str>;
        id:
            /// The type id of a numbered kind.
            pub const fn type_id(self) -> Option<u16>;
        flag:
            /// Whether items of this numbered kind have a pre-agreed size, so that deltas do
            /// not carry it (snapshot.md, "Pre-agreed item sizes").
            pub const fn pre_agreed(self) -> bool;
        group:
            /// The table this kind comes from; `None` for [`SnapObjectKind::Unknown`].
            pub const fn family(self) -> Option<ObjectFamily> = None;
    }
    /// The numbered kinds of Teeworlds 0.6 and DDNet, in type id order.
    ddnet_06: numbers => DDNET_06, group(Some(ObjectFamily::Ddnet06)),
        /// The kind of a Teeworlds 0.6/DDNet item of type `type_id` (below the extended
        /// types).
        pub fn of_ddnet_06(type_id: u16) -> Option<SnapObjectKind>
    {
        /// 0.6 type 0: announces an extended type (DDNet `NETOBJTYPE_EX`).
        ExtendedType(ddnet::ExtendedType) = 0, "obj_ex", not_pre_agreed;
        /// 0.6 type 1: a player's input.
        PlayerInput(ddnet::PlayerInput) = 1, "obj_player_input";
        /// 0.6 type 2: a projectile.
        Projectile(ddnet::Projectile) = 2, "obj_projectile";
        /// 0.6 type 3: a laser beam.
        Laser(ddnet::Laser) = 3, "obj_laser";
        /// 0.6 type 4: a pickup.
        Pickup(ddnet::Pickup) = 4, "obj_pickup";
        /// 0.6 type 5: a flag.
        Flag(ddnet::Flag) = 5, "obj_flag";
        /// 0.6 type 6: the game and round.
        GameInfo(ddnet::GameInfo) = 6, "obj_game_info";
        /// 0.6 type 7: team scores and flag carriers.
        GameData(ddnet::GameData) = 7, "obj_game_data";
        /// 0.6 type 8: a tee's movement.
        CharacterCore(common::CharacterCore) = 8, "obj_character_core";
        /// 0.6 type 9: a tee.
        Character(ddnet::Character) = 9, "obj_character";
        /// 0.6 type 10: a player's place in the game.
        PlayerInfo(ddnet::PlayerInfo) = 10, "obj_player_info";
        /// 0.6 type 11: a player's name and look.
        ClientInfo(ddnet::ClientInfo) = 11, "obj_client_info";
        /// 0.6 type 12: what a spectator watches.
        SpectatorInfo(ddnet::SpectatorInfo) = 12, "obj_spectator_info";
        /// 0.6 type 13: an event with a position only.
        Common(common::Common) = 13, "event_common";
        /// 0.6 type 14: an explosion.
        Explosion(common::Common) = 14, "event_explosion";
        /// 0.6 type 15: a tee spawns.
        Spawn(common::Common) = 15, "event_spawn";
        /// 0.6 type 16: a hammer hits.
        HammerHit(common::Common) = 16, "event_hammerhit";
        /// 0.6 type 17: a tee dies.
        Death(ddnet::Death) = 17, "event_death";
        /// 0.6 type 18: a sound everybody hears.
        SoundGlobal(ddnet::SoundEvent) = 18, "event_sound_global";
        /// 0.6 type 19: a sound in the world.
        SoundWorld(ddnet::SoundEvent) = 19, "event_sound_world";
        /// 0.6 type 20: damage taken.
        DamageIndicator(ddnet::DamageIndicator) = 20, "event_damage_indicator";
    }
    /// The numbered kinds of Teeworlds 0.7, in type id order.
    teeworlds_07: numbers => TEEWORLDS_07, group(Some(ObjectFamily::Teeworlds07)),
        /// The kind of a Teeworlds 0.7 item of type `type_id` (below the extended types).
        pub fn of_teeworlds_07(type_id: u16) -> Option<SnapObjectKind>
    {
        /// 0.7 type 0: announces an extended type, as DDNet servers send to 0.7 clients.
        ExtendedType7(ddnet::ExtendedType) = 0, "obj_ex", not_pre_agreed;
        /// 0.7 type 1: a player's input.
        PlayerInput7(seven::PlayerInput7) = 1, "obj_player_input";
        /// 0.7 type 2: a projectile.
        Projectile7(ddnet::Projectile) = 2, "obj_projectile";
        /// 0.7 type 3: a laser beam.
        Laser7(ddnet::Laser) = 3, "obj_laser";
        /// 0.7 type 4: a pickup.
        Pickup7(seven::Pickup7) = 4, "obj_pickup";
        /// 0.7 type 5: a flag.
        Flag7(ddnet::Flag) = 5, "obj_flag";
        /// 0.7 type 6: the state of the match.
        GameData7(seven::GameData7) = 6, "obj_game_data";
        /// 0.7 type 7: team scores.
        GameDataTeam7(seven::GameDataTeam) = 7, "obj_game_data_team";
        /// 0.7 type 8: the flags.
        GameDataFlag7(seven::GameDataFlag) = 8, "obj_game_data_flag";
        /// 0.7 type 9: a tee's movement.
        CharacterCore7(common::CharacterCore) = 9, "obj_character_core";
        /// 0.7 type 10: a tee.
        Character7(seven::Character7) = 10, "obj_character";
        /// 0.7 type 11: a player.
        PlayerInfo7(seven::PlayerInfo7) = 11, "obj_player_info";
        /// 0.7 type 12: what a spectator watches.
        SpectatorInfo7(seven::SpectatorInfo7) = 12, "obj_spectator_info";
        /// 0.7 type 13: a player's name and look, in demos (`De_ClientInfo`).
        DeClientInfo7(seven::DeClientInfo) = 13, "obj_de_client_info";
        /// 0.7 type 14: the game, in demos (`De_GameInfo`).
        DeGameInfo7(seven::DeGameInfo) = 14, "obj_de_game_info";
        /// 0.7 type 15: the tuning, in demos (`De_TuneParams`).
        DeTuneParams7(seven::DeTuneParams) = 15, "obj_de_tune_params";
        /// 0.7 type 16: an event with a position only.
        Common7(common::Common) = 16, "event_common";
        /// 0.7 type 17: an explosion.
        Explosion7(common::Common) = 17, "event_explosion";
        /// 0.7 type 18: a tee spawns.
        Spawn7(common::Common) = 18, "event_spawn";
        /// 0.7 type 19: a hammer hits.
        HammerHit7(common::Common) = 19, "event_hammerhit";
        /// 0.7 type 20: a tee dies.
        Death7(ddnet::Death) = 20, "event_death";
        /// 0.7 type 21: a sound in the world.
        SoundWorld7(ddnet::SoundEvent) = 21, "event_sound_world";
        /// 0.7 type 22: damage taken.
        Damage7(seven::Damage) = 22, "event_damage";
        /// 0.7 type 23: when a racer started.
        PlayerInfoRace7(seven::PlayerInfoRace) = 23, "obj_player_info_race", not_pre_agreed;
        /// 0.7 type 24: the race.
        GameDataRace7(seven::GameDataRace) = 24, "obj_game_data_race", not_pre_agreed;
    }
    /// DDNet's extended kinds.
    extended: uuids => EXTENDED, names EXTENDED_UUID_NAMES, group(Some(ObjectFamily::Extended)) {
        /// DDNet's test object.
        MyOwnObject(ddnet::MyOwnObject) = "my-own-object@heinrich5991.de", "obj_my_own_object";
        /// DDNet's part of a tee.
        DdnetCharacter(ddnet::DdnetCharacter) = "character@netobj.ddnet.tw",
            "obj_ddnet_character";
        /// DDNet's part of a player.
        DdnetPlayer(ddnet::DdnetPlayer) = "player@netobj.ddnet.tw", "obj_ddnet_player";
        /// What a DDNet server plays.
        GameInfoEx(ddnet::GameInfoEx) = "gameinfo@netobj.ddnet.tw", "obj_game_info_ex";
        /// A projectile as older DDNet sent it.
        DdraceProjectile(ddnet::DdraceProjectile) = "projectile@netobj.ddnet.tw",
            "obj_ddrace_projectile";
        /// A DDNet laser.
        DdnetLaser(ddnet::DdnetLaser) = "laser@netobj.ddnet.tw", "obj_ddnet_laser";
        /// A projectile as DDNet sends it now.
        DdnetProjectile(ddnet::DdnetProjectile) = "ddnet-projectile@netobj.ddnet.tw",
            "obj_ddnet_projectile";
        /// A DDNet pickup.
        DdnetPickup(ddnet::DdnetPickup) = "pickup@netobj.ddnet.tw", "obj_ddnet_pickup";
        /// The camera of the player a spectator watches.
        DdnetSpectatorInfo(ddnet::DdnetSpectatorInfo) = "spectator-info@netobj.ddnet.org",
            "obj_ddnet_spectator_info";
        /// How many spectators watch.
        SpectatorCount(ddnet::SpectatorCount) = "spectator-count@netobj.ddnet.org",
            "obj_spectator_count";
        /// A birthday.
        Birthday(ddnet::ExEvent) = "birthday@netevent.ddnet.org", "event_birthday";
        /// A finish.
        Finish(ddnet::ExEvent) = "finish@netevent.ddnet.org", "event_finish";
        /// DDNet's test event.
        MyOwnEvent(ddnet::MyOwnObject) = "my-own-event@heinrich5991.de", "obj_my_own_event";
        /// Where a spectating tee is.
        SpecChar(ddnet::SpecChar) = "spec-char@netobj.ddnet.tw", "obj_spec_char";
        /// The switches of a DDRace team.
        SwitchState(ddnet::SwitchState) = "switch-state@netobj.ddnet.tw", "obj_switch_state";
        /// DDNet's part of a map entity.
        EntityEx(ddnet::EntityEx) = "entity-ex@netobj.ddnet.tw", "obj_entity_ex";
        /// The best time on the map.
        MapBestTime(ddnet::MapBestTime) = "map-best-time@netobj.ddnet.org", "obj_map_best_time";
        /// A map sound in the world.
        MapSoundWorld(ddnet::MapSoundWorld) = "map-sound-world@netevent.ddnet.org",
            "event_map_sound_world";
        /// An object type that only this crate's tests know (`tests::ExampleObject`): the
        /// proof that a type is its struct plus this one line (docs/extending.md).
        #[cfg(test)]
        Example(tests::ExampleObject) = "example@twcodec.test", "obj_example";
    }
}

impl SnapObjectKind {
    /// The extended kind named by a UUID, if this crate knows it.
    pub fn of_extended(uuid: Uuid) -> Option<SnapObjectKind> {
        static UUIDS: OnceLock<Vec<(Uuid, SnapObjectKind)>> = OnceLock::new();
        let uuids = UUIDS.get_or_init(|| {
            (SnapObjectKind::EXTENDED.iter())
                .filter_map(|&kind| Some((kind.uuid()?, kind)))
                .collect()
        });
        (uuids.iter()).find_map(|&(known, kind)| (known == uuid).then_some(kind))
    }

    /// The number of ints of a kind of fixed size (every numbered kind): what its struct
    /// reads however many ints an item has.
    pub fn fixed_ints(self) -> Option<usize> {
        match SnapObject::decode(self, &[]) {
            Err(ObjectError::Size { expected, .. }) => Some(expected),
            _ => None,
        }
    }

    /// The fewest ints an item of this kind holds to decode: its fixed size, or the fields of
    /// an extended kind that are always there. Both come from reading the kind's struct (see
    /// [`ObjectError`]).
    pub fn min_ints(self) -> Option<usize> {
        match SnapObject::decode(self, &[]) {
            _ if self == SnapObjectKind::Unknown => None,
            Ok(_) => Some(0),
            Err(ObjectError::Size { expected, .. }) => Some(expected),
            Err(ObjectError::TooShort { min, .. }) => Some(min),
        }
    }

    /// The size of this kind's structure in the format reference (fixed for the numbered
    /// kinds).
    #[cfg(feature = "reference")]
    pub fn size(self) -> Option<crate::reference::Size> {
        Some(self.describe()?().size)
    }
}

/// Why the ints of an item do not decode as its kind: the item stays ints.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ObjectError {
    /// A numbered kind's item of another size.
    Size {
        /// The kind.
        kind: SnapObjectKind,
        /// Its fixed number of ints.
        expected: usize,
        /// The item's number of ints.
        found: usize,
    },
    /// An extended kind's item without the fields it cannot do without.
    TooShort {
        /// The kind.
        kind: SnapObjectKind,
        /// The fewest ints it decodes from.
        min: usize,
        /// The item's number of ints.
        found: usize,
    },
}

impl std::fmt::Display for ObjectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ObjectError::Size {
                kind,
                expected,
                found,
            } => write!(
                f,
                "{} has {expected} ints, this item has {found}",
                kind.name()
            ),
            ObjectError::TooShort { kind, min, found } => write!(
                f,
                "{} has at least {min} ints, this item has {found}",
                kind.name()
            ),
        }
    }
}

impl std::error::Error for ObjectError {}

impl ObjectError {
    /// The kind the item was read as.
    pub fn kind(&self) -> SnapObjectKind {
        match *self {
            ObjectError::Size { kind, .. } | ObjectError::TooShort { kind, .. } => kind,
        }
    }
}

/// The most ints an object type is tried with to find its size (0.7's `De_ClientInfo`, the
/// biggest, has 58).
const MAX_OBJECT_INTS: usize = 256;

/// Reads `T` from `ints`: what binrw gives, and how many ints it read.
fn read_object<T>(ints: &[i32]) -> (BinResult<T>, usize)
where
    T: for<'a> BinRead<Args<'a> = ()>,
{
    // The ints' own bytes where they are little-endian already: no copy.
    let bytes: Cow<'_, [u8]> = if cfg!(target_endian = "little") {
        Cow::Borrowed(bytemuck::cast_slice(ints))
    } else {
        Cow::Owned(ints.iter().flat_map(|int| int.to_le_bytes()).collect())
    };
    let mut cursor = Cursor::new(bytes);
    let read = T::read_options(&mut cursor, Endian::Little, ());
    (read, cursor.position() as usize / 4)
}

/// How `T` takes ints, from reading zeros: the fewest it reads from, and whether it then reads
/// no more however many follow (a fixed size); `None` when no count up to `MAX_OBJECT_INTS`
/// reads. The sizes in an [`ObjectError`] come from here, so they are what decoding does.
fn ints_of<T>() -> Option<(usize, bool)>
where
    T: for<'a> BinRead<Args<'a> = ()>,
{
    static ZEROS: [i32; MAX_OBJECT_INTS + 1] = [0; MAX_OBJECT_INTS + 1];
    let reads = |len: usize| read_object::<T>(&ZEROS[..len]).0.is_ok();
    if !reads(MAX_OBJECT_INTS) {
        return None;
    }
    // Reading fails only when the ints run out (see `decode_object`), so the counts that read
    // are those from the fewest on.
    let (mut low, mut high) = (0, MAX_OBJECT_INTS);
    while low < high {
        let middle = low + (high - low) / 2;
        if reads(middle) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    let fixed = read_object::<T>(&ZEROS[..low + 1]).1 == low;
    Some((low, fixed))
}

/// Decodes `ints` as `T`, the struct of `kind`, or says why they are not one.
fn decode_object<T>(kind: SnapObjectKind, ints: &[i32]) -> Result<T, ObjectError>
where
    T: for<'a> BinRead<Args<'a> = ()>,
{
    let found = ints.len();
    match read_object::<T>(ints) {
        // Only a kind of fixed size leaves ints unread: every other one ends in a tail.
        (Ok(_), used) if used < found => Err(ObjectError::Size {
            kind,
            expected: used,
            found,
        }),
        (Ok(object), _) => Ok(object),
        // The structs are made of i32 only, mapped by functions that cannot fail: reading
        // fails only when the ints run out.
        (Err(_), _) => Err(match ints_of::<T>() {
            Some((expected, true)) => ObjectError::Size {
                kind,
                expected,
                found,
            },
            Some((min, false)) => ObjectError::TooShort { kind, min, found },
            None => ObjectError::TooShort {
                kind,
                min: found + 1,
                found,
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    use binrw::binrw;
    use binrw::helpers::until_eof;
    use proptest::prelude::*;

    use crate::map::common::when;
    use crate::snapshot::SizeTable;
    use twcodec_schema_derive::describe;

    use super::*;
    use crate::uuid::uuid_from_name;

    /// An object type only these tests know, registered by its line in the registry:
    /// with its struct, the two places a new extended object type takes (docs/extending.md).
    #[describe]
    #[binrw]
    #[brw(little)]
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct ExampleObject {
        /// Position, in world units.
        #[cfg_attr(feature = "serde", serde(serialize_with = "common::unit::world"))]
        pub x: i32,
        /// Appended by a later version: a count.
        #[br(parse_with = when(true))]
        pub count: Option<i32>,
        /// Ints past what this object defines, kept so that writing is lossless.
        #[br(parse_with = until_eof)]
        #[cfg_attr(
            feature = "serde",
            serde(default, skip_serializing_if = "Vec::is_empty")
        )]
        pub unknown_tail: Vec<i32>,
    }

    #[test]
    fn a_new_object_type_is_its_struct_and_one_registry_line() {
        let uuid = uuid_from_name("example@twcodec.test");
        let kind = SnapObjectKind::of_extended(uuid).unwrap();
        assert_eq!(kind, SnapObjectKind::Example);
        assert_eq!(kind.name(), "obj_example");
        assert_eq!(kind.family(), Some(ObjectFamily::Extended));
        assert_eq!(kind.min_ints(), Some(1));
        assert!(SnapObjectKind::EXTENDED.contains(&kind));

        let object = SnapObject::decode(kind, &[1056, 7, 99]).unwrap();
        let expected = ExampleObject {
            x: 1056,
            count: Some(7),
            unknown_tail: vec![99],
        };
        assert_eq!(object, SnapObject::Example(expected));
        assert_eq!(object.kind(), kind);
        assert_eq!(object.encode().unwrap(), [1056, 7, 99]);
        // An item of an older version: without the appended field, left out of the JSON.
        let old = SnapObject::decode(kind, &[1056]).unwrap();
        #[cfg(feature = "serde")]
        {
            let json = serde_json::to_string(&old).unwrap();
            assert_eq!(json, r#"{"kind":"example","x":1056}"#);
            assert_eq!(serde_json::from_str::<SnapObject>(&json).unwrap(), old);
        }
        assert_eq!(old.encode().unwrap(), [1056]);
        let error = SnapObject::decode(kind, &[]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "obj_example has at least 1 ints, this item has 0"
        );
    }

    /// Every kind of the registry in one list.
    fn every_kind() -> impl Iterator<Item = SnapObjectKind> {
        (SnapObjectKind::DDNET_06.iter())
            .chain(SnapObjectKind::TEEWORLDS_07)
            .chain(SnapObjectKind::EXTENDED)
            .copied()
    }

    #[test]
    fn lookups_by_type_id_and_uuid() {
        for (&kind, id) in SnapObjectKind::DDNET_06.iter().zip(0..) {
            assert_eq!(kind.type_id(), Some(id), "{kind:?}");
            assert_eq!(SnapObjectKind::of_ddnet_06(id), Some(kind));
            assert_eq!(kind.family(), Some(ObjectFamily::Ddnet06));
        }
        for (&kind, id) in SnapObjectKind::TEEWORLDS_07.iter().zip(0..) {
            assert_eq!(kind.type_id(), Some(id), "{kind:?}");
            assert_eq!(SnapObjectKind::of_teeworlds_07(id), Some(kind));
        }
        for &kind in SnapObjectKind::EXTENDED {
            assert_eq!(
                SnapObjectKind::of_extended(kind.uuid().unwrap()),
                Some(kind)
            );
            assert_eq!(kind.type_id(), None);
            assert!(!kind.pre_agreed());
        }
        assert_eq!(SnapObjectKind::of_ddnet_06(21), None);
        assert_eq!(SnapObjectKind::of_teeworlds_07(25), None);
        assert_eq!(SnapObjectKind::of_extended(Uuid::nil()), None);
        // The UUIDs DDNet servers announced in the corpus demos (tests/snapshot_objects.rs).
        assert_eq!(
            SnapObjectKind::DdnetSpectatorInfo
                .uuid()
                .unwrap()
                .to_string(),
            "d13307b2-9a19-37cb-8f8c-07c718521883"
        );
        assert_eq!(
            SnapObjectKind::SpectatorCount.uuid().unwrap().to_string(),
            "5e5ca96f-c728-30fd-bfb3-155b07692556"
        );
    }

    /// The pre-agreed size tables of `crate::snapshot` are this registry: the same types, and
    /// each size the number of ints of the type's struct.
    #[test]
    fn the_pre_agreed_sizes_are_the_registered_structs() {
        for (kinds, table) in [
            (SnapObjectKind::DDNET_06, SizeTable::ddnet_06()),
            (SnapObjectKind::TEEWORLDS_07, SizeTable::teeworlds_07()),
        ] {
            for &kind in kinds {
                let id = kind.type_id().unwrap();
                let expected = kind.pre_agreed().then(|| kind.fixed_ints().unwrap());
                assert_eq!(table.size_of(id.into()), expected, "{kind:?}");
            }
            let registered = kinds.iter().filter(|kind| kind.pre_agreed()).count();
            let sized = (0..SizeTable::TYPES as i32)
                .filter(|&id| table.size_of(id).is_some())
                .count();
            assert_eq!(sized, registered);
        }
        // snapshot.md's tables, as the registry gives them.
        assert_eq!(SnapObjectKind::Character.fixed_ints(), Some(22));
        assert_eq!(SnapObjectKind::ClientInfo.fixed_ints(), Some(17));
        assert_eq!(SnapObjectKind::DeClientInfo7.fixed_ints(), Some(58));
        assert_eq!(SnapObjectKind::Damage7.fixed_ints(), Some(7));
        assert_eq!(SnapObjectKind::GameDataRace7.fixed_ints(), Some(3));
        assert!(!SnapObjectKind::GameDataRace7.pre_agreed());
    }

    #[test]
    fn every_numbered_kind_has_a_fixed_size_and_every_extended_kind_a_tail() {
        for kind in every_kind() {
            let min = kind.min_ints().unwrap();
            match kind.family() {
                Some(ObjectFamily::Extended) => assert_eq!(kind.fixed_ints(), None, "{kind:?}"),
                _ => assert_eq!(kind.fixed_ints(), Some(min), "{kind:?}"),
            }
        }
        assert_eq!(SnapObjectKind::DdnetCharacter.min_ints(), Some(0));
        assert_eq!(SnapObjectKind::DdnetPlayer.min_ints(), Some(2));
        assert_eq!(SnapObjectKind::DdnetLaser.min_ints(), Some(7));
        assert_eq!(SnapObjectKind::DdnetProjectile.min_ints(), Some(10));
        assert_eq!(SnapObjectKind::Unknown.min_ints(), None);
    }

    /// The sizes decoding finds (reading the structs) are those the format reference gives
    /// (from the structs' fields), and an extended kind's struct ends in its kept tail.
    #[cfg(feature = "reference")]
    #[test]
    fn the_sizes_are_those_of_the_format_reference() {
        for kind in every_kind() {
            let structure = kind.describe().unwrap()();
            assert!(structure.int_aligned(), "{kind:?}");
            let fixed = kind.size().unwrap().bytes().map(|bytes| bytes as usize / 4);
            assert_eq!(kind.fixed_ints(), fixed, "{kind:?}");
            let required = (structure.fields().iter())
                .filter(|field| !field.optional())
                .map(|field| field.size.bounds().map_or(0, |(low, _)| low))
                .sum::<u64>();
            assert_eq!(kind.min_ints(), Some(required as usize / 4), "{kind:?}");
            if kind.family() == Some(ObjectFamily::Extended) {
                assert!(structure.field("unknown_tail").is_some(), "{kind:?}");
            }
        }
        assert!(SnapObjectKind::Unknown.describe().is_none());
    }

    #[test]
    fn sizes_other_than_the_kinds_stay_ints() {
        let error = SnapObject::decode(SnapObjectKind::Character, &[0; 21]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "obj_character has 22 ints, this item has 21"
        );
        let error = SnapObject::decode(SnapObjectKind::Character, &[0; 23]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "obj_character has 22 ints, this item has 23"
        );
        let error = SnapObject::decode(SnapObjectKind::DdnetLaser, &[0; 6]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "obj_ddnet_laser has at least 7 ints, this item has 6"
        );
        let unknown = SnapObject::decode(SnapObjectKind::Unknown, &[1, 2]).unwrap();
        assert_eq!(unknown.encode().unwrap(), [1, 2]);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn a_character_reads_field_by_field() {
        let ints = [
            1000, // tick
            1056, // x: 33 tiles
            608,  // y
            256,  // vel_x: 1 world unit per tick
            0,    // vel_y
            402,  // angle: about pi/2
            1,    // direction: right
            0,    // jumped
            -1,   // hooked_player: none
            0,    // hook_state: idle
            0,    // hook_tick
            1056, // hook_x
            608,  // hook_y
            0,    // hook_dx
            0,    // hook_dy
            1,    // player_flags: playing
            10,   // health
            0,    // armor
            10,   // ammo_count
            1,    // weapon: gun
            0,    // emote: normal
            0,    // attack_tick
        ];
        let object = SnapObject::decode(SnapObjectKind::Character, &ints).unwrap();
        let SnapObject::Character(character) = &object else {
            panic!("{object:?}")
        };
        assert_eq!((character.core.x, character.core.y), (1056, 608));
        assert_eq!(character.core.hook_state, common::HookState::IDLE);
        assert!(character.player_flags.playing());
        assert_eq!(character.weapon, common::Weapon::GUN);
        assert_eq!(object.encode().unwrap(), ints);
        let json = serde_json::to_value(&object).unwrap();
        assert_eq!(json["kind"], "character");
        assert_eq!(json["x"], 1056);
        assert_eq!(json["player_flags"], serde_json::json!(["playing"]));
        assert_eq!(json["weapon"], "Gun");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Every kind reads random ints of its size (numbered kinds) or of any size from its
        /// fewest ints on (extended kinds), and writes them back; serde gives back the object.
        #[cfg(feature = "serde")]
        #[test]
        fn every_kind_round_trips(seed in proptest::collection::vec(any::<i32>(), 64)) {
            for kind in every_kind() {
                let min = kind.min_ints().unwrap();
                let lens = match kind.fixed_ints() {
                    Some(size) => size..size + 1,
                    None => min..min + 6,
                };
                for len in lens {
                    let ints = &seed[..len];
                    let object = SnapObject::decode(kind, ints).unwrap();
                    prop_assert_eq!(object.kind(), kind);
                    prop_assert_eq!(object.encode().unwrap(), ints);
                    let json = serde_json::to_string(&object).unwrap();
                    prop_assert_eq!(serde_json::from_str::<SnapObject>(&json).unwrap(), object);
                }
            }
        }

        /// Ints of a size a kind cannot take stay ints, with the sizes in the error.
        #[test]
        fn other_sizes_are_refused(
            index in 0..every_kind().count(),
            len in 0..64usize,
            fill in any::<i32>(),
        ) {
            let kind = every_kind().nth(index).unwrap();
            let ints = vec![fill; len];
            let fits = match kind.fixed_ints() {
                Some(size) => len == size,
                None => len >= kind.min_ints().unwrap(),
            };
            match SnapObject::decode(kind, &ints) {
                Ok(object) => {
                    prop_assert!(fits);
                    prop_assert_eq!(object.encode().unwrap(), ints);
                }
                Err(ObjectError::Size { expected, found, .. }) => {
                    prop_assert!(!fits);
                    prop_assert_eq!((Some(expected), found), (kind.fixed_ints(), len));
                }
                Err(ObjectError::TooShort { min, found, .. }) => {
                    prop_assert!(!fits);
                    prop_assert_eq!((Some(min), found), (kind.min_ints(), len));
                }
            }
        }
    }
}
