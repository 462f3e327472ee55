//! Teehistorian files: DDNet's server-side record of a whole game (docs/format-notes.md,
//! "Teehistorian"; DDNet `src/game/server/teehistorian.cpp`, `teehistorian.h`,
//! `src/engine/shared/teehistorian_ex_chunks.h`).
//!
//! ```text
//! teehistorian: MAGIC (16 bytes: the UUID of "teehistorian@ddnet.tw"),
//!               the header (JSON text, then a NUL),
//!               records until FINISH or the end of the file
//! record:       a packed int; >= 0: a player diff whose client id it is;
//!               -1 to -11: the record kind (RecordKind), then its fields
//! EX record:    a UUID naming the extension, a packed size, that many bytes
//! ```
//!
//! Every number of a record is a packed int (docs/format-notes.md, "Packed ints"), written by
//! DDNet's `CPacker` in its shortest form; strings are NUL-terminated. The fields of each kind
//! are the structures below. The extension payloads (`ExPayload`) are laid out the same way
//! inside the EX record's bytes.

use std::fmt;

use binrw::io::Cursor;
use binrw::{binrw, BinRead, BinWrite, Endian};

use crate::netmsg::fields::{counted_strings, NetString, SizedData, UuidBytes, VarInt};
use crate::uuid::{uuid_from_name, Uuid};
use twcodec_schema_derive::describe;

/// The name the magic UUID is derived from (DDNet `TEEHISTORIAN_NAME`), also the header's
/// `comment`.
pub const NAME: &str = "teehistorian@ddnet.tw";

/// The first 16 bytes of every teehistorian file: the UUID of [`NAME`],
/// `699db17b-8efb-34ff-b1d8-da6f60c15dd1` (DDNet `TEEHISTORIAN_UUID`).
pub const MAGIC: [u8; 16] = [
    0x69, 0x9d, 0xb1, 0x7b, 0x8e, 0xfb, 0x34, 0xff, 0xb1, 0xd8, 0xda, 0x6f, 0x60, 0xc1, 0x5d, 0xd1,
];

/// The header version DDNet writes (`TEEHISTORIAN_VERSION`); the header's `version` field.
pub const VERSION: &str = "2";

/// The kinds of records, by the negated packed int that starts them (DDNet's unnamed enum of
/// `TEEHISTORIAN_*` in `teehistorian.cpp`). A record that starts with an int of 0 or more is a
/// player diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum RecordKind {
    /// Starts with the client id (0 or more): the player's move since the last tick.
    PlayerDiff,
    /// -1: the end of the game.
    Finish,
    /// -2: ticks without a record.
    TickSkip,
    /// -3: a player's character appears.
    PlayerNew,
    /// -4: a player's character is gone.
    PlayerOld,
    /// -5: a change of a player's input.
    InputDiff,
    /// -6: a player's whole input.
    InputNew,
    /// -7: a message a client sent.
    Message,
    /// -8: a client joins.
    Join,
    /// -9: a client leaves.
    Drop,
    /// -10: a console command.
    ConsoleCommand,
    /// -11: an extension record named by a UUID.
    Ex,
}

impl RecordKind {
    /// Every kind, in the order of their codes (player diff first).
    pub const ALL: [RecordKind; 12] = [
        RecordKind::PlayerDiff,
        RecordKind::Finish,
        RecordKind::TickSkip,
        RecordKind::PlayerNew,
        RecordKind::PlayerOld,
        RecordKind::InputDiff,
        RecordKind::InputNew,
        RecordKind::Message,
        RecordKind::Join,
        RecordKind::Drop,
        RecordKind::ConsoleCommand,
        RecordKind::Ex,
    ];

    /// The kind of the int that starts a record, or `None` for a negative int past -11.
    pub fn of_head(head: i32) -> Option<RecordKind> {
        if head >= 0 {
            return Some(RecordKind::PlayerDiff);
        }
        let code = usize::try_from(head.checked_neg()?).ok()?;
        RecordKind::ALL.get(code).copied()
    }

    /// The code a record of this kind starts with, negated (`None` for a player diff, which
    /// starts with its client id).
    pub fn code(self) -> Option<i32> {
        match self {
            RecordKind::PlayerDiff => None,
            kind => Some(-(RecordKind::ALL.iter().position(|&k| k == kind).unwrap_or(0) as i32)),
        }
    }

    /// Its name, in snake case (`tick_skip`).
    pub fn name(self) -> &'static str {
        match self {
            RecordKind::PlayerDiff => "player_diff",
            RecordKind::Finish => "finish",
            RecordKind::TickSkip => "tick_skip",
            RecordKind::PlayerNew => "player_new",
            RecordKind::PlayerOld => "player_old",
            RecordKind::InputDiff => "input_diff",
            RecordKind::InputNew => "input_new",
            RecordKind::Message => "message",
            RecordKind::Join => "join",
            RecordKind::Drop => "drop",
            RecordKind::ConsoleCommand => "console_command",
            RecordKind::Ex => "ex",
        }
    }
}

impl fmt::Display for RecordKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A player diff, after the client id that starts it: how far the character moved since the
/// last tick that recorded it (DDNet `RecordPlayer`, when the player was alive before).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlayerDiff {
    /// Change of x.
    pub dx: VarInt,
    /// Change of y.
    pub dy: VarInt,
}

/// `TICK_SKIP` (-2): the ticks before the next record that have no record; 0 makes the
/// record's tick the one after the last (DDNet `WriteTick`). Without it, a tick is implicit: a
/// player record for a client id not above the previous one starts the next tick.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TickSkip {
    /// Ticks skipped.
    pub dt: VarInt,
}

/// `PLAYER_NEW` (-3): a character appears at a position.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlayerNew {
    /// Client id.
    pub cid: VarInt,
    /// Position x.
    pub x: VarInt,
    /// Position y.
    pub y: VarInt,
}

/// A record of one client id: `PLAYER_OLD` (-4, the character is gone), `JOIN` (-8), and the
/// extension payloads `joinver6`, `joinver7`, `rejoinver6`, `player-ready`, `auth-logout`.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClientId {
    /// Client id.
    pub cid: VarInt,
}

/// `INPUT_NEW` (-6) and `INPUT_DIFF` (-5): a player's input (`CNetObj_PlayerInput`, 10
/// ints), whole, or as the difference of each int from the player's last input (DDNet
/// `RecordPlayerInput`, `CSnapshotDelta::DiffItem`).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Input {
    /// Client id.
    pub cid: VarInt,
    /// direction, target_x, target_y, jump, fire, hook, player_flags, wanted_weapon,
    /// next_weapon, prev_weapon (or their changes).
    pub input: [VarInt; 10],
}

/// `MESSAGE` (-7): a message a client sent, as it arrived (its message header included).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Message {
    /// Client id.
    pub cid: VarInt,
    /// The message's bytes, after their size.
    pub data: SizedData,
}

/// `DROP` (-9): a client leaves.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlayerDrop {
    /// Client id.
    pub cid: VarInt,
    /// Why.
    pub reason: NetString,
}

/// `CONSOLE_COMMAND` (-10): a console command run (DDNet `RecordConsoleCommand`).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConsoleCommand {
    /// The client that ran it, -1 for the server (its console, econ, config).
    pub cid: VarInt,
    /// The command's flags (`CFGFLAG_*`).
    pub flag_mask: VarInt,
    /// The command's name.
    pub cmd: NetString,
    /// How many arguments follow.
    pub num_args: VarInt,
    /// The arguments; writing writes them all, whatever `num_args` says.
    #[br(parse_with = counted_strings, args(num_args.0))]
    pub args: Vec<NetString>,
}

/// `EX` (-11): an extension record, named by a UUID ([`ExKind`]); its bytes hold an
/// [`ExPayload`].
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ex {
    /// The UUID naming the extension.
    pub uuid: UuidBytes,
    /// Its payload, after its size.
    pub data: SizedData,
}

impl Ex {
    /// The UUID.
    pub fn uuid(&self) -> Uuid {
        Uuid::from_bytes(self.uuid.0)
    }

    /// The known extension it is.
    pub fn kind(&self) -> Option<ExKind> {
        ExKind::of_uuid(self.uuid())
    }

    /// Its payload, decoded when the extension is known and its bytes are exactly the known
    /// layout (every byte read, every int in its shortest form); else `None`, and the bytes
    /// stay as they are.
    pub fn payload(&self) -> Option<ExPayload> {
        ExPayload::decode(self.kind()?, &self.data.0)
    }
}

/// A record: its kind, and the fields after the int that starts it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum Record {
    /// A player diff; the client id is the int that starts it.
    PlayerDiff {
        /// Client id.
        cid: i32,
        /// The move.
        #[cfg_attr(feature = "serde", serde(flatten))]
        diff: PlayerDiff,
    },
    /// The end of the game.
    Finish,
    /// Ticks without records.
    TickSkip(TickSkip),
    /// A character appears.
    PlayerNew(PlayerNew),
    /// A character is gone.
    PlayerOld(ClientId),
    /// A change of input.
    InputDiff(Input),
    /// A whole input.
    InputNew(Input),
    /// A message from a client.
    Message(Message),
    /// A client joins.
    Join(ClientId),
    /// A client leaves.
    Drop(PlayerDrop),
    /// A console command.
    ConsoleCommand(ConsoleCommand),
    /// An extension record.
    Ex(Ex),
}

impl Record {
    /// Its kind.
    pub fn kind(&self) -> RecordKind {
        match self {
            Record::PlayerDiff { .. } => RecordKind::PlayerDiff,
            Record::Finish => RecordKind::Finish,
            Record::TickSkip(_) => RecordKind::TickSkip,
            Record::PlayerNew(_) => RecordKind::PlayerNew,
            Record::PlayerOld(_) => RecordKind::PlayerOld,
            Record::InputDiff(_) => RecordKind::InputDiff,
            Record::InputNew(_) => RecordKind::InputNew,
            Record::Message(_) => RecordKind::Message,
            Record::Join(_) => RecordKind::Join,
            Record::Drop(_) => RecordKind::Drop,
            Record::ConsoleCommand(_) => RecordKind::ConsoleCommand,
            Record::Ex(_) => RecordKind::Ex,
        }
    }

    /// Reads the fields of a record of `kind` (started by `head`) at the reader's position.
    pub fn read_fields<R: binrw::io::Read + binrw::io::Seek>(
        kind: RecordKind,
        head: i32,
        reader: &mut R,
    ) -> binrw::BinResult<Record> {
        let e = Endian::Little;
        Ok(match kind {
            RecordKind::PlayerDiff => Record::PlayerDiff {
                cid: head,
                diff: PlayerDiff::read_options(reader, e, ())?,
            },
            RecordKind::Finish => Record::Finish,
            RecordKind::TickSkip => Record::TickSkip(TickSkip::read_options(reader, e, ())?),
            RecordKind::PlayerNew => Record::PlayerNew(PlayerNew::read_options(reader, e, ())?),
            RecordKind::PlayerOld => Record::PlayerOld(ClientId::read_options(reader, e, ())?),
            RecordKind::InputDiff => Record::InputDiff(Input::read_options(reader, e, ())?),
            RecordKind::InputNew => Record::InputNew(Input::read_options(reader, e, ())?),
            RecordKind::Message => Record::Message(Message::read_options(reader, e, ())?),
            RecordKind::Join => Record::Join(ClientId::read_options(reader, e, ())?),
            RecordKind::Drop => Record::Drop(PlayerDrop::read_options(reader, e, ())?),
            RecordKind::ConsoleCommand => {
                Record::ConsoleCommand(ConsoleCommand::read_options(reader, e, ())?)
            }
            RecordKind::Ex => Record::Ex(Ex::read_options(reader, e, ())?),
        })
    }

    /// Appends the record's bytes: the int that starts it, then its fields.
    pub fn write(&self, out: &mut Vec<u8>) -> binrw::BinResult<()> {
        let head = match self {
            Record::PlayerDiff { cid, .. } => *cid,
            other => other.kind().code().unwrap_or(0),
        };
        VarInt(head).pack(out);
        let mut cursor = Cursor::new(std::mem::take(out));
        cursor.set_position(cursor.get_ref().len() as u64);
        let e = Endian::Little;
        let written = match self {
            Record::PlayerDiff { diff, .. } => diff.write_options(&mut cursor, e, ()),
            Record::Finish => Ok(()),
            Record::TickSkip(fields) => fields.write_options(&mut cursor, e, ()),
            Record::PlayerNew(fields) => fields.write_options(&mut cursor, e, ()),
            Record::PlayerOld(fields) | Record::Join(fields) => {
                fields.write_options(&mut cursor, e, ())
            }
            Record::InputDiff(fields) | Record::InputNew(fields) => {
                fields.write_options(&mut cursor, e, ())
            }
            Record::Message(fields) => fields.write_options(&mut cursor, e, ()),
            Record::Drop(fields) => fields.write_options(&mut cursor, e, ()),
            Record::ConsoleCommand(fields) => fields.write_options(&mut cursor, e, ()),
            Record::Ex(fields) => fields.write_options(&mut cursor, e, ()),
        };
        *out = cursor.into_inner();
        written
    }
}

/// Defines the known extensions: variant, UUID name, short name.
macro_rules! ex_kinds {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal, $short:literal;)*) => {
        /// The extension records DDNet defines (`src/engine/shared/teehistorian_ex_chunks.h`),
        /// each named by the UUID of a name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum ExKind {
            $($(#[doc = $doc])* $variant,)*
        }

        impl ExKind {
            /// Every known extension, in DDNet's order.
            pub const ALL: &'static [ExKind] = &[$(ExKind::$variant,)*];

            /// The name its UUID is derived from (`teehistorian-joinver6@ddnet.tw`).
            pub fn uuid_name(self) -> &'static str {
                match self {
                    $(ExKind::$variant => $name,)*
                }
            }

            /// A short name (`joinver6`).
            pub fn name(self) -> &'static str {
                match self {
                    $(ExKind::$variant => $short,)*
                }
            }
        }
    };
}

ex_kinds! {
    /// `teehistorian-test@ddnet.tw`: DDNet's tests; no payload.
    Test = "teehistorian-test@ddnet.tw", "test";
    /// `teehistorian-ddnetver-old@ddnet.tw`: a client's DDNet version number, old style.
    DdnetVersionOld = "teehistorian-ddnetver-old@ddnet.tw", "ddnetver_old";
    /// `teehistorian-ddnetver@ddnet.tw`: a client's connection id and DDNet version.
    DdnetVersion = "teehistorian-ddnetver@ddnet.tw", "ddnetver";
    /// `teehistorian-auth-init@ddnet.tw`: a client authenticated when the game starts.
    AuthInit = "teehistorian-auth-init@ddnet.tw", "auth_init";
    /// `teehistorian-auth-login@ddnet.tw`: a client logs in.
    AuthLogin = "teehistorian-auth-login@ddnet.tw", "auth_login";
    /// `teehistorian-auth-logout@ddnet.tw`: a client logs out.
    AuthLogout = "teehistorian-auth-logout@ddnet.tw", "auth_logout";
    /// `teehistorian-joinver6@ddnet.tw`: the next join is a 0.6 client.
    JoinVer6 = "teehistorian-joinver6@ddnet.tw", "joinver6";
    /// `teehistorian-joinver7@ddnet.tw`: the next join is a 0.7 client.
    JoinVer7 = "teehistorian-joinver7@ddnet.tw", "joinver7";
    /// `teehistorian-player-swap@ddnet.tw`: two players swap places (DDNet
    /// `TEEHISTORIAN_PLAYER_SWITCH`).
    PlayerSwap = "teehistorian-player-swap@ddnet.tw", "player_swap";
    /// `teehistorian-save-success@ddnet.tw`: a team saved.
    SaveSuccess = "teehistorian-save-success@ddnet.tw", "save_success";
    /// `teehistorian-save-failure@ddnet.tw`: a team's save failed.
    SaveFailure = "teehistorian-save-failure@ddnet.tw", "save_failure";
    /// `teehistorian-load-success@ddnet.tw`: a team loaded a save.
    LoadSuccess = "teehistorian-load-success@ddnet.tw", "load_success";
    /// `teehistorian-load-failure@ddnet.tw`: a team's load failed.
    LoadFailure = "teehistorian-load-failure@ddnet.tw", "load_failure";
    /// `teehistorian-player-team@ddnet.tw`: a player's DDRace team changes.
    PlayerTeam = "teehistorian-player-team@ddnet.tw", "player_team";
    /// `teehistorian-team-practice@ddnet.tw`: a team's practice mode changes.
    TeamPractice = "teehistorian-team-practice@ddnet.tw", "team_practice";
    /// `teehistorian-player-ready@ddnet.tw`: a client is ready to enter the game.
    PlayerReady = "teehistorian-player-ready@ddnet.tw", "player_ready";
    /// `teehistorian-rejoinver6@ddnet.org`: a 0.6 client stays across a map change.
    PlayerRejoin = "teehistorian-rejoinver6@ddnet.org", "player_rejoin";
    /// `teehistorian-antibot@ddnet.org`: data of the antibot module, opaque.
    Antibot = "teehistorian-antibot@ddnet.org", "antibot";
    /// `teehistorian-player-name@ddnet.org`: a player's name.
    PlayerName = "teehistorian-player-name@ddnet.org", "player_name";
    /// `teehistorian-player-finish@ddnet.org`: a player finishes the race.
    PlayerFinish = "teehistorian-player-finish@ddnet.org", "player_finish";
    /// `teehistorian-team-finish@ddnet.org`: a team finishes the race.
    TeamFinish = "teehistorian-team-finish@ddnet.org", "team_finish";
}

impl ExKind {
    /// Its UUID.
    pub fn uuid(self) -> Uuid {
        uuid_from_name(self.uuid_name())
    }

    /// The known extension a UUID names.
    pub fn of_uuid(uuid: Uuid) -> Option<ExKind> {
        static TABLE: std::sync::OnceLock<Vec<(Uuid, ExKind)>> = std::sync::OnceLock::new();
        let table = TABLE.get_or_init(|| {
            ExKind::ALL
                .iter()
                .map(|&kind| (kind.uuid(), kind))
                .collect()
        });
        table
            .iter()
            .find(|(known, _)| *known == uuid)
            .map(|&(_, kind)| kind)
    }
}

impl fmt::Display for ExKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `ddnetver-old`: a client's DDNet version number (DDNet `RecordDDNetVersionOld`).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DdnetVersionOld {
    /// Client id.
    pub cid: VarInt,
    /// Version number (`13010` for 13.1).
    pub ddnet_version: VarInt,
}

/// `ddnetver`: a client's connection id and DDNet version (DDNet `RecordDDNetVersion`).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DdnetVersion {
    /// Client id.
    pub cid: VarInt,
    /// The connection's id, a UUID.
    pub connection_id: UuidBytes,
    /// Version number.
    pub ddnet_version: VarInt,
    /// Version text (`DDNet 13.1 (3623f5e4cd184556)`).
    pub ddnet_version_str: NetString,
}

/// `auth-init` and `auth-login`: a client's authentication (DDNet `RecordAuthInitial`,
/// `RecordAuthLogin`).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Auth {
    /// Client id.
    pub cid: VarInt,
    /// Level: 1 helper, 2 moderator, 3 admin (DDNet `AUTHED_*`).
    pub level: VarInt,
    /// The account's name.
    pub auth_name: NetString,
}

/// `player-swap`: two players swap (DDNet `RecordPlayerSwap`).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlayerSwap {
    /// One client id.
    pub cid1: VarInt,
    /// The other.
    pub cid2: VarInt,
}

/// `save-success` and `load-success`: a team's save (DDNet `RecordTeamSaveSuccess`,
/// `RecordTeamLoadSuccess`).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TeamSave {
    /// DDRace team.
    pub team: VarInt,
    /// The save's id, a UUID.
    pub save_id: UuidBytes,
    /// The save, as text.
    pub team_save: NetString,
}

/// `save-failure` and `load-failure`: a team's save or load failed.
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TeamOnly {
    /// DDRace team.
    pub team: VarInt,
}

/// `player-team`: a player's DDRace team (DDNet `RecordPlayerTeam`, written when it changes).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlayerTeam {
    /// Client id.
    pub cid: VarInt,
    /// DDRace team.
    pub team: VarInt,
}

/// `team-practice`: a team's practice mode (DDNet `RecordTeamPractice`).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TeamPractice {
    /// DDRace team.
    pub team: VarInt,
    /// 1 in practice mode, 0 not.
    pub practice: VarInt,
}

/// `player-name`: a player's name (DDNet `RecordPlayerName`).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlayerName {
    /// Client id.
    pub cid: VarInt,
    /// The name.
    pub name: NetString,
}

/// `player-finish`: a player's finish time (DDNet `RecordPlayerFinish`).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlayerFinish {
    /// Client id.
    pub cid: VarInt,
    /// Race time in ticks.
    pub time: VarInt,
}

/// `team-finish`: a team's finish time (DDNet `RecordTeamFinish`).
#[describe]
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TeamFinish {
    /// DDRace team.
    pub team: VarInt,
    /// Race time in ticks.
    pub time: VarInt,
}

/// The decoded payload of a known extension record.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[non_exhaustive]
pub enum ExPayload {
    /// `test`, `antibot`: bytes with no layout (none for `test`).
    Bytes(#[cfg_attr(feature = "serde", serde(skip))] Vec<u8>),
    /// `ddnetver_old`.
    DdnetVersionOld(DdnetVersionOld),
    /// `ddnetver`.
    DdnetVersion(DdnetVersion),
    /// `auth_init`, `auth_login`.
    Auth(Auth),
    /// `auth_logout`, `joinver6`, `joinver7`, `player_ready`, `player_rejoin`.
    ClientId(ClientId),
    /// `player_swap`.
    PlayerSwap(PlayerSwap),
    /// `save_success`, `load_success`.
    TeamSave(TeamSave),
    /// `save_failure`, `load_failure`.
    Team(TeamOnly),
    /// `player_team`.
    PlayerTeam(PlayerTeam),
    /// `team_practice`.
    TeamPractice(TeamPractice),
    /// `player_name`.
    PlayerName(PlayerName),
    /// `player_finish`.
    PlayerFinish(PlayerFinish),
    /// `team_finish`.
    TeamFinish(TeamFinish),
}

/// Reads `T` from all of `data`, or `None` when it does not read, leaves bytes, or would not
/// write back the same bytes.
fn exact<T>(data: &[u8]) -> Option<T>
where
    T: for<'a> BinRead<Args<'a> = ()> + for<'a> BinWrite<Args<'a> = ()>,
{
    let mut cursor = Cursor::new(data);
    let value = T::read_options(&mut cursor, Endian::Little, ()).ok()?;
    if cursor.position() != data.len() as u64 {
        return None;
    }
    let mut out = Cursor::new(Vec::with_capacity(data.len()));
    value.write_options(&mut out, Endian::Little, ()).ok()?;
    (out.into_inner() == data).then_some(value)
}

impl ExPayload {
    /// The payload of an extension of `kind` whose bytes are `data`; `None` when they are not
    /// exactly its layout.
    pub fn decode(kind: ExKind, data: &[u8]) -> Option<ExPayload> {
        Some(match kind {
            ExKind::Test if data.is_empty() => ExPayload::Bytes(Vec::new()),
            ExKind::Test => return None,
            ExKind::Antibot => ExPayload::Bytes(data.to_vec()),
            ExKind::DdnetVersionOld => ExPayload::DdnetVersionOld(exact(data)?),
            ExKind::DdnetVersion => ExPayload::DdnetVersion(exact(data)?),
            ExKind::AuthInit | ExKind::AuthLogin => ExPayload::Auth(exact(data)?),
            ExKind::AuthLogout
            | ExKind::JoinVer6
            | ExKind::JoinVer7
            | ExKind::PlayerReady
            | ExKind::PlayerRejoin => ExPayload::ClientId(exact(data)?),
            ExKind::PlayerSwap => ExPayload::PlayerSwap(exact(data)?),
            ExKind::SaveSuccess | ExKind::LoadSuccess => ExPayload::TeamSave(exact(data)?),
            ExKind::SaveFailure | ExKind::LoadFailure => ExPayload::Team(exact(data)?),
            ExKind::PlayerTeam => ExPayload::PlayerTeam(exact(data)?),
            ExKind::TeamPractice => ExPayload::TeamPractice(exact(data)?),
            ExKind::PlayerName => ExPayload::PlayerName(exact(data)?),
            ExKind::PlayerFinish => ExPayload::PlayerFinish(exact(data)?),
            ExKind::TeamFinish => ExPayload::TeamFinish(exact(data)?),
        })
    }

    /// The payload's bytes.
    pub fn encode(&self) -> Vec<u8> {
        fn bytes<T: for<'a> BinWrite<Args<'a> = ()>>(value: &T) -> Vec<u8> {
            let mut out = Cursor::new(Vec::new());
            // Writing into a vector fails only when a size does not fit an int.
            let _ = value.write_options(&mut out, Endian::Little, ());
            out.into_inner()
        }
        match self {
            ExPayload::Bytes(data) => data.clone(),
            ExPayload::DdnetVersionOld(p) => bytes(p),
            ExPayload::DdnetVersion(p) => bytes(p),
            ExPayload::Auth(p) => bytes(p),
            ExPayload::ClientId(p) => bytes(p),
            ExPayload::PlayerSwap(p) => bytes(p),
            ExPayload::TeamSave(p) => bytes(p),
            ExPayload::Team(p) => bytes(p),
            ExPayload::PlayerTeam(p) => bytes(p),
            ExPayload::TeamPractice(p) => bytes(p),
            ExPayload::PlayerName(p) => bytes(p),
            ExPayload::PlayerFinish(p) => bytes(p),
            ExPayload::TeamFinish(p) => bytes(p),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_is_the_uuid_of_the_name() {
        assert_eq!(uuid_from_name(NAME).as_bytes(), &MAGIC);
        assert_eq!(
            Uuid::from_bytes(MAGIC).to_string(),
            "699db17b-8efb-34ff-b1d8-da6f60c15dd1"
        );
    }

    #[test]
    fn kinds_and_codes() {
        for kind in RecordKind::ALL {
            match kind.code() {
                Some(code) => assert_eq!(RecordKind::of_head(code), Some(kind)),
                None => assert_eq!(RecordKind::of_head(0), Some(kind)),
            }
        }
        assert_eq!(RecordKind::Ex.code(), Some(-11));
        assert_eq!(RecordKind::of_head(-12), None);
        assert_eq!(RecordKind::of_head(i32::MIN), None);
        // DDNet's test of the test extension: 6bb8ba88-0f0b-382e-8dae-dbf4052b8b7d.
        assert_eq!(
            ExKind::Test.uuid().to_string(),
            "6bb8ba88-0f0b-382e-8dae-dbf4052b8b7d"
        );
        assert_eq!(
            ExKind::of_uuid(ExKind::TeamFinish.uuid()),
            Some(ExKind::TeamFinish)
        );
    }
}
