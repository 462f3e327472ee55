//! Teehistorian files: every record of the files DDNet's own writer made
//! (tests/fixtures/teehistorian, see its generate/regenerate.sh) read as DDNet's calls wrote
//! it, with its tick; every file written back byte for byte; files made with
//! `TeehistorianWriter`; hostile inputs refused with messages that say what and where.

use std::path::PathBuf;

use twcodec::schema::netmsg::{NetString, SizedData, UuidBytes, VarInt};
use twcodec::schema::teehistorian::{self as th, Ex, ExKind, ExPayload, Record, RecordKind};
use twcodec::sniff::{sniff, FileKind};
use twcodec::teehistorian::{RecordAt, Teehistorian, TeehistorianWriter, MAGIC};
use twcodec::{ErrorKind, Limits, Location};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/teehistorian")
        .join(format!("{name}.teehistorian"))
}

fn records(th: &Teehistorian) -> Vec<RecordAt> {
    th.records().collect::<Result<_, _>>().unwrap()
}

/// A record in one line: `tick kind fields`.
fn line(at: &RecordAt) -> String {
    let fields = match &at.record {
        Record::PlayerDiff { cid, diff } => format!("cid={cid} dx={} dy={}", diff.dx, diff.dy),
        Record::Finish => String::new(),
        Record::TickSkip(skip) => format!("dt={}", skip.dt),
        Record::PlayerNew(p) => format!("cid={} x={} y={}", p.cid, p.x, p.y),
        Record::PlayerOld(c) | Record::Join(c) => format!("cid={}", c.cid),
        Record::InputDiff(i) | Record::InputNew(i) => format!("cid={} {:?}", i.cid, i.input),
        Record::Message(m) => format!("cid={} {:02x?}", m.cid, m.data.0),
        Record::Drop(d) => format!("cid={} reason={:?}", d.cid, d.reason),
        Record::ConsoleCommand(c) => format!(
            "cid={} flags={} {:?} {:?}",
            c.cid, c.flag_mask, c.cmd, c.args
        ),
        Record::Ex(ex) => match (ex.kind(), ex.payload()) {
            (Some(kind), Some(payload)) => format!("{kind} {payload:?}"),
            (Some(kind), None) => format!("{kind} (not its layout) {:02x?}", ex.data.0),
            (None, _) => format!("{} {:02x?}", ex.uuid(), ex.data.0),
        },
    };
    format!("{} {} {fields}", at.tick, at.record.kind())
        .trim_end()
        .to_string()
}

fn lines(name: &str) -> Vec<String> {
    let th = Teehistorian::open(fixture(name)).unwrap();
    records(&th).iter().map(line).collect()
}

/// The bytes of a file written back: magic, header, NUL, every record re-encoded.
fn written_back(th: &Teehistorian) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend(th.header_text().bytes());
    out.push(0);
    for at in records(th) {
        let start = out.len();
        at.record.write(&mut out).unwrap();
        assert_eq!(
            &out[start..],
            &th.bytes()[at.offset..at.offset + at.len],
            "record #{}",
            at.index
        );
    }
    out
}

const FIXTURES: [&str; 20] = [
    "empty",
    "tick_explicit_ascending",
    "tick_explicit_start",
    "extra_message",
    "player_team",
    "team_practice",
    "player_ready_multiple",
    "finished",
    "players",
    "tick_implicit_empty",
    "input",
    "message_and_test_extra",
    "ddnet_version",
    "auth",
    "join_drop",
    "save_load",
    "teams",
    "antibot_unfinished",
    "prev_game_uuid",
    "server_econ",
];

#[test]
fn every_fixture_reads_and_writes_back_byte_for_byte() {
    for name in FIXTURES {
        let bytes = std::fs::read(fixture(name)).unwrap();
        assert_eq!(sniff(&bytes), Some(FileKind::Teehistorian), "{name}");
        let th = Teehistorian::parse(&bytes).unwrap();
        assert_eq!(written_back(&th), bytes, "{name}");
        // Every extension record of DDNet's is its known layout.
        for at in records(&th) {
            if let Record::Ex(ex) = &at.record {
                let kind = ex.kind().unwrap_or_else(|| panic!("{name}: {}", ex.uuid()));
                let payload = ex.payload().unwrap();
                assert_eq!(payload.encode(), ex.data.0, "{name}: {kind}");
            }
        }
    }
}

#[test]
fn header_of_ddnets_writer() {
    let th = Teehistorian::open(fixture("players")).unwrap();
    assert_eq!(th.header_str("comment"), Some("teehistorian@ddnet.tw"));
    assert_eq!(th.header_str("version"), Some("2"));
    assert_eq!(th.header_str("version_minor"), Some("22"));
    // The UUID of "test@ddnet.tw", as DDNet's test expects.
    assert_eq!(
        th.header_str("game_uuid"),
        Some("a1eb7182-796e-3b3e-941d-38ca71b2a4a8")
    );
    assert_eq!(
        th.header_str("start_time"),
        Some("2023-11-14T22:13:20+0000")
    );
    assert_eq!(th.header_str("server_port"), Some("8303"));
    assert_eq!(th.header_str("map_name"), Some("Kobra 3 Solo"));
    assert_eq!(th.header_str("map_size"), Some("903514"));
    assert_eq!(th.header_str("map_crc"), Some("eceaf25c"));
    assert_eq!(th.header()["config"], serde_json::json!({}));
    let uuids = th.header()["uuids"].as_array().unwrap();
    assert_eq!(uuids[0], "what-is@ddnet.tw");
    for kind in ExKind::ALL {
        assert!(
            uuids.iter().any(|name| name == kind.uuid_name()),
            "{kind} is in DDNet's list"
        );
    }
    assert_eq!(th.header().get("prev_game_uuid"), None);
    let th = Teehistorian::open(fixture("prev_game_uuid")).unwrap();
    assert_eq!(
        th.header_str("prev_game_uuid").map(str::len),
        Some(36),
        "written after game_uuid when the server had a game before"
    );
    assert_eq!(lines("empty"), Vec::<String>::new());
    assert_eq!(lines("finished"), ["0 finish"]);
}

#[test]
fn player_records_and_implicit_ticks() {
    assert_eq!(
        lines("players"),
        [
            "1 player_new cid=0 x=1 y=2",
            // Tick 2: a client id not above the last one starts the next tick.
            "2 player_diff cid=0 dx=1 dy=-1",
            "3 player_old cid=0",
            "3 player_new cid=1 x=2 y=3",
            // Tick 4 starts with client id 0, not above 1.
            "4 player_new cid=0 x=4 y=5",
            "4 player_new cid=2 x=-7 y=9",
            // 495 ticks without records.
            "500 tick_skip dt=495",
            "500 player_diff cid=0 dx=-5 dy=-6",
            "500 finish",
        ]
    );
    assert_eq!(lines("tick_implicit_empty"), ["0 finish"]);
    // Client 1 after client 0 in the next tick: not implicit, a TICK_SKIP of 0.
    assert_eq!(
        lines("tick_explicit_ascending"),
        [
            "1 player_new cid=0 x=4 y=5",
            "2 tick_skip dt=0",
            "2 player_new cid=1 x=2 y=3",
            "2 finish",
        ]
    );
    assert_eq!(
        lines("tick_explicit_start"),
        [
            "500 tick_skip dt=499",
            "500 player_new cid=0 x=-1 y=-1",
            "500 finish",
        ]
    );
}

#[test]
fn inputs_messages_and_the_test_extension() {
    assert_eq!(
        lines("input"),
        [
            "1 tick_skip dt=0",
            "1 input_new cid=0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]",
            "1 input_diff cid=0 [-1, 0, 0, 0, 0, 0, 0, 0, 0, 0]",
            "1 input_new cid=0 [0, 2, 3, 4, 5, 6, 7, 8, 9, 10]",
            "1 input_diff cid=0 [0, -302, 0, 0, 6, 0, 0, 0, 0, 0]",
            "1 finish",
        ]
    );
    assert_eq!(
        lines("message_and_test_extra"),
        [
            "1 tick_skip dt=0",
            "1 message cid=63 [00]",
            "1 message cid=5 [22, 00, 68, 69, 00]",
            "1 ex test Bytes([])",
            "1 finish",
        ]
    );
}

#[test]
fn extension_records() {
    assert_eq!(
        lines("ddnet_version"),
        [
            "0 ex ddnetver DdnetVersion(DdnetVersion { cid: 0, connection_id: fb13a576d35f4893b815eedc6d98015b, ddnet_version: 13010, ddnet_version_str: \"DDNet 13.1 (3623f5e4cd184556)\" })",
            "0 ex ddnetver_old DdnetVersionOld(DdnetVersionOld { cid: 1, ddnet_version: 13010 })",
            "0 finish",
        ]
    );
    assert_eq!(
        lines("auth"),
        [
            "0 ex auth_init Auth(Auth { cid: 0, level: 3, auth_name: \"default_admin\" })",
            "0 ex auth_login Auth(Auth { cid: 1, level: 2, auth_name: \"foobar\" })",
            "0 ex auth_login Auth(Auth { cid: 2, level: 1, auth_name: \"help\" })",
            "0 ex auth_logout ClientId(ClientId { cid: 1 })",
            "0 finish",
        ]
    );
    assert_eq!(
        lines("join_drop"),
        [
            "0 ex joinver6 ClientId(ClientId { cid: 6 })",
            "0 join cid=6",
            "0 ex joinver7 ClientId(ClientId { cid: 7 })",
            "0 join cid=7",
            "0 drop cid=6 reason=\"too many pancakes\"",
            "0 ex player_rejoin ClientId(ClientId { cid: 2 })",
            "0 ex player_name PlayerName(PlayerName { cid: 21, name: \"nameless tee\" })",
            "0 finish",
        ]
    );
    let save = "TeamSave { team: 21, save_id: fb13a576d35f4893b815eedc6d98015b, team_save: \"2\\tH.\\nll0\" }";
    assert_eq!(
        lines("save_load"),
        [
            format!("0 ex save_success TeamSave({save})"),
            "0 ex save_failure Team(TeamOnly { team: 12 })".into(),
            format!("0 ex load_success TeamSave({save})"),
            "0 ex load_failure Team(TeamOnly { team: 12 })".into(),
            "0 finish".into(),
        ]
    );
    assert_eq!(
        lines("teams"),
        [
            "1 tick_skip dt=0",
            "1 ex player_swap PlayerSwap(PlayerSwap { cid1: 11, cid2: 21 })",
            // Team 0 for client 3 is no change: not written.
            "1 ex player_team PlayerTeam(PlayerTeam { cid: 33, team: 54 })",
            "1 ex team_practice TeamPractice(TeamPractice { team: 23, practice: 1 })",
            "1 ex player_ready ClientId(ClientId { cid: 0 })",
            "2 tick_skip dt=0",
            "2 ex player_team PlayerTeam(PlayerTeam { cid: 33, team: 0 })",
            "2 ex team_practice TeamPractice(TeamPractice { team: 23, practice: 0 })",
            "2 ex player_ready ClientId(ClientId { cid: 63 })",
            "2 ex player_finish PlayerFinish(PlayerFinish { cid: 1, time: 1000000 })",
            "2 ex team_finish TeamFinish(TeamFinish { team: 63, time: 1000 })",
            "2 finish",
        ]
    );
    assert_eq!(
        lines("extra_message"),
        ["1 tick_skip dt=0", "1 ex test Bytes([])", "1 finish"]
    );
    // Only changes are written: team 0 for clients 3 and 45 at first, 45 again later.
    assert_eq!(
        lines("player_team"),
        [
            "1 tick_skip dt=0",
            "1 ex player_team PlayerTeam(PlayerTeam { cid: 33, team: 54 })",
            "2 tick_skip dt=0",
            "2 ex player_team PlayerTeam(PlayerTeam { cid: 3, team: 12 })",
            "2 ex player_team PlayerTeam(PlayerTeam { cid: 33, team: 0 })",
            "2 finish",
        ]
    );
    assert_eq!(
        lines("team_practice"),
        [
            "1 tick_skip dt=0",
            "1 ex team_practice TeamPractice(TeamPractice { team: 23, practice: 1 })",
            "2 tick_skip dt=0",
            "2 ex team_practice TeamPractice(TeamPractice { team: 1, practice: 1 })",
            "2 ex team_practice TeamPractice(TeamPractice { team: 23, practice: 0 })",
            "2 finish",
        ]
    );
    assert_eq!(
        lines("player_ready_multiple"),
        [
            "1 tick_skip dt=0",
            "1 ex player_ready ClientId(ClientId { cid: 0 })",
            "1 ex player_ready ClientId(ClientId { cid: 11 })",
            "2 tick_skip dt=0",
            "2 ex player_ready ClientId(ClientId { cid: 63 })",
            "2 finish",
        ]
    );
    // Antibot data is opaque; a file that ends without FINISH ends its records there.
    let th = Teehistorian::open(fixture("antibot_unfinished")).unwrap();
    let mut iter = th.records();
    let data: Vec<Vec<u8>> = iter
        .by_ref()
        .map(|at| match at.unwrap().record {
            Record::Ex(ex) => {
                assert_eq!(ex.kind(), Some(ExKind::Antibot));
                ex.data.0
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(data, [vec![], vec![0; 4], "🤖".as_bytes().to_vec()]);
    assert!(!iter.finished());
}

#[test]
fn a_real_server_recording() {
    let th = Teehistorian::open(fixture("server_econ")).unwrap();
    assert_eq!(th.header_str("map_name"), Some("th_ctf1"));
    assert_eq!(th.header_str("server_name"), Some("twcodec fixture"));
    assert_eq!(th.header()["config"]["sv_tee_historian"], "1");
    let all = records(&th);
    let commands: Vec<(String, Vec<String>)> = all
        .iter()
        .filter_map(|at| match &at.record {
            Record::ConsoleCommand(c) => {
                assert_eq!(c.cid.0, -1, "the server's console");
                assert_eq!(c.num_args.0 as usize, c.args.len());
                Some((
                    c.cmd.to_string_lossy().into_owned(),
                    c.args
                        .iter()
                        .map(|a| a.to_string_lossy().into_owned())
                        .collect(),
                ))
            }
            _ => None,
        })
        .collect();
    let names: Vec<&str> = commands.iter().map(|(cmd, _)| cmd.as_str()).collect();
    for cmd in ["say", "tune", "tune_reset", "broadcast", "shutdown"] {
        assert!(names.contains(&cmd), "{cmd} in {names:?}");
    }
    assert!(commands.contains(&("tune".into(), vec!["gravity".into(), "0.3".into()])));
    // Ticks only go forward, and the file ends with FINISH.
    assert!(all.windows(2).all(|w| w[0].tick <= w[1].tick));
    assert_eq!(all.last().unwrap().record, Record::Finish);
    assert!(all.last().unwrap().tick > 50, "a few seconds of ticks");
}

fn header() -> serde_json::Map<String, serde_json::Value> {
    let value = serde_json::json!({"comment": "teehistorian@ddnet.tw", "version": "2"});
    value.as_object().unwrap().clone()
}

fn vi(value: i32) -> VarInt {
    VarInt(value)
}

#[test]
fn writer_makes_files_the_reader_reads_back() {
    let unknown = Ex {
        uuid: UuidBytes([0xab; 16]),
        data: SizedData(vec![1, 2, 3]),
    };
    // A known extension whose bytes are not its layout: kept as bytes.
    let odd = Ex {
        uuid: UuidBytes(*ExKind::JoinVer6.uuid().as_bytes()),
        data: SizedData(vec![0x01, 0x02]),
    };
    let written = [
        Record::TickSkip(th::TickSkip { dt: vi(9) }),
        Record::PlayerNew(th::PlayerNew {
            cid: vi(3),
            x: vi(-100_000),
            y: vi(i32::MAX),
        }),
        Record::PlayerDiff {
            cid: 3,
            diff: th::PlayerDiff {
                dx: vi(i32::MIN),
                dy: vi(0),
            },
        },
        Record::ConsoleCommand(th::ConsoleCommand {
            cid: vi(2),
            flag_mask: vi(4),
            cmd: NetString::from("kill"),
            num_args: vi(2),
            args: vec![NetString::from("a"), NetString(vec![0xff, 0xfe])],
        }),
        Record::Ex(unknown.clone()),
        Record::Ex(odd.clone()),
        Record::PlayerDiff {
            cid: 1,
            diff: th::PlayerDiff {
                dx: vi(1),
                dy: vi(1),
            },
        },
    ];
    let mut writer = TeehistorianWriter::new(&header());
    for record in &written {
        writer.record(record).unwrap();
    }
    let bytes = writer.finish();
    let th = Teehistorian::parse(&bytes).unwrap();
    assert_eq!(
        th.header_text(),
        r#"{"comment":"teehistorian@ddnet.tw","version":"2"}"#
    );
    let read = records(&th);
    let read_records: Vec<Record> = read.iter().map(|at| at.record.clone()).collect();
    assert_eq!(read_records[..written.len()], written);
    assert_eq!(read_records[written.len()], Record::Finish);
    assert_eq!(written_back(&th), bytes);
    assert_eq!(unknown.kind(), None);
    assert_eq!(odd.kind(), Some(ExKind::JoinVer6));
    assert_eq!(odd.payload(), None, "two ints where joinver6 has one");
    // Ticks: the skip makes tick 10, client 1 after client 3 starts tick 11.
    let ticks: Vec<i32> = read.iter().map(|at| at.tick).collect();
    assert_eq!(ticks, [10, 10, 11, 11, 11, 11, 12, 12]);
    assert_eq!(
        ExPayload::decode(ExKind::PlayerName, &[0x05, b'a', 0]),
        Some(ExPayload::PlayerName(th::PlayerName {
            cid: vi(5),
            name: NetString::from("a")
        }))
    );
    assert_eq!(RecordKind::ALL.len(), 12);
}

/// The error of reading `bytes` or its records.
fn error(bytes: &[u8]) -> twcodec::Error {
    match Teehistorian::parse(bytes) {
        Err(error) => error,
        Ok(th) => th
            .records()
            .find_map(Result::err)
            .unwrap_or_else(|| panic!("no error in {bytes:02x?}")),
    }
}

/// A file of the header `{}` and then `records`.
fn file(records: &[u8]) -> Vec<u8> {
    let mut bytes = TeehistorianWriter::with_header_text("{}").bytes().to_vec();
    bytes.extend_from_slice(records);
    bytes
}

#[test]
fn hostile_inputs() {
    let records_at = MAGIC.len() + 3;
    let cases: Vec<(Vec<u8>, &str, Option<usize>)> = vec![
        (
            b"TWDEMO\0\x06".to_vec(),
            "not a teehistorian file: the file is a demo, it starts with \"TWDEMO\\0\"",
            None,
        ),
        (
            vec![0x69, 0x9d, 0xb1],
            "not a teehistorian file: the file ends inside the magic (3 bytes)",
            Some(0),
        ),
        (
            [&[0u8; 16][..], b"{}\0"].concat(),
            "not a teehistorian file: the file does not start with the UUID of \
             teehistorian@ddnet.tw (699db17b-8efb-34ff-b1d8-da6f60c15dd1)",
            Some(0),
        ),
        (
            [&MAGIC[..], b"{\"version\":\"2\""].concat(),
            "teehistorian header: no NUL ends the JSON header before the end of the file (30 \
             bytes)",
            Some(16),
        ),
        (
            [&MAGIC[..], b"{\"version\":2,}\0"].concat(),
            "teehistorian header: invalid JSON: trailing comma at line 1 column 14",
            Some(16 + 13),
        ),
        (
            [&MAGIC[..], b"[1]\0"].concat(),
            "teehistorian header: the JSON is an array, not an object",
            Some(16),
        ),
        (
            file(&[0x4c]),
            "record #0 (tick 0): unknown record kind -13 (DDNet writes -1 to -11, or a client \
             id)",
            Some(records_at),
        ),
        (
            file(&[0x42, 0x01, 0x02]),
            "record #0 (tick 0): the input ends inside the player_new",
            Some(records_at),
        ),
        (
            file(&[0x42, 0x01, 0x82]),
            "record #0 (tick 0): player_new: the packed int at byte 21 is cut off",
            Some(records_at + 2),
        ),
        (
            file(&[0x41, 0x80, 0x00]),
            "record #0 (tick 0): tick_skip: the packed int at byte 20 has more bytes than its \
             value needs",
            Some(records_at + 1),
        ),
        (
            file(&[0x41, 0x41]),
            "record #0 (tick 0): tick_skip: dt -2 is negative",
            Some(records_at),
        ),
        (
            file(&[0x41, 0xbe, 0xff, 0xff, 0xff, 0x0f, 0x41, 0x00]),
            "record #1 (tick 2147483647): tick_skip: dt 0 takes the tick past 2147483647",
            Some(records_at + 6),
        ),
        // A message of 2^31-1 bytes in a file of 24.
        (
            file(&[0x46, 0x00, 0xbf, 0xff, 0xff, 0xff, 0x0f, 0x00]),
            "record #0 (tick 0): message: the data at byte 26 is 2147483647 bytes long, the \
             file has 1 left",
            Some(records_at + 7),
        ),
        // An extension of a huge size.
        (
            file(&[&[0x4a][..], &[0xab; 16], &[0xbf, 0xff, 0xff, 0xff, 0x0f]].concat()),
            "record #0 (tick 0): ex: the data at byte 41 is 2147483647 bytes long, the \
             file has 0 left",
            Some(records_at + 22),
        ),
        // An extension UUID cut off.
        (
            file(&[0x4a, 0x01, 0x02]),
            "record #0 (tick 0): ex: the 16 bytes at byte 20 are cut off (2 left)",
            Some(records_at + 1),
        ),
        // A console command that claims 2^31-1 arguments.
        (
            file(&[
                0x49, 0x40, 0x00, b'x', 0x00, 0xbf, 0xff, 0xff, 0xff, 0x0f, 0x00,
            ]),
            "record #0 (tick 0): console_command: the count 2147483647 is more than the 1 \
             bytes left can hold",
            Some(records_at + 10),
        ),
        (
            file(&[0x48, 0x01, b'b', b'y', b'e']),
            "record #0 (tick 0): drop: the string at byte 21 has no NUL before the end of the \
             file",
            Some(records_at + 2),
        ),
        (
            file(&[0x40, 0x40]),
            "record #1 (tick 0): 1 bytes after the finish record (DDNet writes nothing after \
             it)",
            Some(records_at + 1),
        ),
    ];
    for (bytes, message, offset) in cases {
        let error = error(&bytes);
        let shown = match offset {
            Some(at) => format!("{message} (at byte {at:#x})"),
            None => message.to_string(),
        };
        assert_eq!(error.to_string(), shown, "{bytes:02x?}");
        assert_eq!(error.offset(), offset.map(|o| o as u64), "{message}");
        if message.starts_with("record #") {
            assert!(matches!(error.location(), Some(Location::Record { .. })));
        }
    }
}

#[test]
fn limits_and_long_inputs() {
    // A header longer than the limit.
    let mut bytes = MAGIC.to_vec();
    bytes.extend(std::iter::repeat_n(b' ', 100));
    bytes.extend(b"{}\0");
    let error =
        Teehistorian::from_bytes_with(bytes.clone(), Limits::DEFAULT.with_max_string_bytes(64))
            .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert_eq!(
        error.to_string(),
        "teehistorian header: no NUL ends it within 64 bytes (Limits::max_string_bytes) (at \
         byte 0x10)"
    );
    assert!(Teehistorian::parse(&bytes).is_ok());
    // A million records read lazily, one at a time.
    let mut records = Vec::new();
    for _ in 0..1_000_000 {
        records.extend([0x41, 0x00]);
    }
    let th = Teehistorian::parse(&file(&records)).unwrap();
    let (count, last) = th
        .records()
        .fold((0, 0), |(n, _), at| (n + 1, at.unwrap().tick));
    assert_eq!((count, last), (1_000_000, 1_000_000));
}

#[test]
fn every_truncation_of_a_real_file_is_an_error_or_fewer_records() {
    let bytes = std::fs::read(fixture("server_econ")).unwrap();
    let th = Teehistorian::parse(&bytes).unwrap();
    let full = records(&th);
    for cut in 0..bytes.len() {
        match Teehistorian::parse(&bytes[..cut]) {
            Err(error) => assert!(cut < th.records_offset(), "{cut}: {error}"),
            Ok(short) => {
                let mut n = 0;
                for at in short.records() {
                    match at {
                        Ok(at) => {
                            assert_eq!(at, full[n]);
                            n += 1;
                        }
                        Err(error) => {
                            assert!(error.offset().unwrap() <= cut as u64, "{error}");
                        }
                    }
                }
            }
        }
    }
}
