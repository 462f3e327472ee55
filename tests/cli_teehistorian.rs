//! `twcodec teehistorian info`, `dump` and `index` on the files DDNet's own writer made
//! (tests/fixtures/teehistorian): their output, exit codes and messages.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::insta_settings;

fn twcodec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .output()
        .expect("the twcodec binary runs")
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/teehistorian")
}

fn fixture(name: &str) -> String {
    fixtures()
        .join(format!("{name}.teehistorian"))
        .to_string_lossy()
        .into_owned()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn info_of_ddnets_files() {
    let output = twcodec(&["teehistorian", "info", &fixture("teams")]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    insta_settings()
        .bind(|| insta::assert_snapshot!("cli_teehistorian_info", text(&output.stdout)));
    let output = twcodec(&["teehistorian", "info", &fixture("players")]);
    let out = text(&output.stdout);
    assert!(out.contains("ticks             1 to 500\n"), "{out}");
    assert!(out.contains("players           3 (0 1 2)\n"), "{out}");
    assert!(out.contains("  player_new      4\n"), "{out}");
    let output = twcodec(&["teehistorian", "info", &fixture("antibot_unfinished")]);
    let out = text(&output.stdout);
    assert!(out.contains("    antibot       3\n"), "{out}");
    assert!(out.contains("finished          no\n"), "{out}");
}

#[test]
fn dump_is_one_json_object_per_line() {
    let output = twcodec(&["teehistorian", "dump", &fixture("join_drop")]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let out = text(&output.stdout);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["header"]["map_name"], "Kobra 3 Solo");
    // The header line, then the records, without the header (it is long: DDNet's UUID list).
    insta_settings().bind(|| {
        insta::assert_snapshot!(
            "cli_teehistorian_dump",
            out.lines().skip(1).collect::<Vec<_>>().join("\n")
        )
    });
    let output = twcodec(&["teehistorian", "dump", &fixture("server_econ")]);
    let out = text(&output.stdout);
    assert!(
        out.contains(r#""kind":"console_command","cid":-1,"flag_mask":36,"cmd":"tune","num_args":2,"args":["gravity","0.3"]}"#),
        "{out}"
    );
}

#[test]
fn index_over_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["teams", "players"] {
        std::fs::copy(
            fixture(name),
            dir.path().join(format!("{name}.teehistorian")),
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("broken.teehistorian"), b"not one").unwrap();
    std::fs::write(dir.path().join("other.txt"), b"not looked at").unwrap();
    let output = twcodec(&[
        "teehistorian",
        "index",
        "--format",
        "csv",
        &dir.path().to_string_lossy(),
    ]);
    assert_eq!(output.status.code(), Some(1), "one file failed");
    assert_eq!(text(&output.stderr), "twcodec: 1 of 3 files failed\n");
    let out = text(&output.stdout).replace(&*dir.path().to_string_lossy(), "DIR");
    insta_settings().bind(|| insta::assert_snapshot!("cli_teehistorian_index", out));
}

#[test]
fn a_teehistorian_file_given_to_another_command_is_named() {
    let file = fixture("finished");
    let output = twcodec(&["info", &file]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "twcodec: error: {file}: not a datafile (a map): the file is a teehistorian file, it \
             starts with the UUID of teehistorian@ddnet.tw; `twcodec teehistorian info {file}` \
             reads teehistorian files\n"
        )
    );
}

#[test]
fn errors_name_the_file_record_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(fixture("finished")).unwrap();
    bytes.truncate(bytes.len() - 1);
    bytes.extend([0x42, 0x01]);
    let path = dir.path().join("cut.teehistorian");
    std::fs::write(&path, &bytes).unwrap();
    let path = path.to_string_lossy().into_owned();
    let output = twcodec(&["teehistorian", "dump", &path]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "twcodec: error: {path}: record #0 (tick 0): the input ends inside the player_new \
             (at byte {:#x})\n",
            bytes.len() - 2
        )
    );
    assert_eq!(text(&output.stdout).lines().count(), 1, "the header line");
    let output = twcodec(&["teehistorian", "info", &path]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stdout).contains("error             record #0 (tick 0)"));
    let demo = dir.path().join("x.demo");
    std::fs::write(&demo, b"TWDEMO\0\x06").unwrap();
    let output = twcodec(&["teehistorian", "info", &demo.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("not a teehistorian file: the file is a demo"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn to_demo_puts_the_recorded_positions_in_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("sample.map");
    std::fs::write(&map, twcodec_testkit::sample::datafile()).unwrap();
    let demo_path = dir.path().join("players.demo");
    let output = twcodec(&[
        "teehistorian",
        "to-demo",
        &fixture("players"),
        "--map",
        &map.to_string_lossy(),
        "--player",
        "1",
        "-o",
        &demo_path.to_string_lossy(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        format!(
            "wrote {}: 5 snapshots, ticks 1 to 500, 3 players\n",
            demo_path.display()
        )
    );
    // The fixture's header names another map (DDNet's test values).
    assert!(
        text(&output.stderr).contains("the teehistorian's map_sha256 is 00112233"),
        "{}",
        text(&output.stderr)
    );
    let demo = twcodec::demo::Demo::open(&demo_path).unwrap();
    assert_eq!(demo.map_name(), "Kobra 3 Solo");
    assert_eq!(demo.map_bytes(), twcodec_testkit::sample::datafile());
    // (tick, client id) -> (x, y) of the character objects (type 9), as the records say.
    let mut positions = Vec::new();
    for frame in demo.replay() {
        let frame = frame.unwrap();
        let snapshot = frame.snapshot.unwrap();
        for item in snapshot.items() {
            if item.key.type_id() == 9 {
                positions.push((frame.tick, item.key.id(), item.data[1], item.data[2]));
            }
        }
        // Client 1 is the local player once it is there.
        if let Some(info) = snapshot.item(10, 1) {
            assert_eq!(&info[..2], &[1, 1]);
        }
    }
    positions.sort();
    assert_eq!(
        positions,
        [
            (1, 0, 1, 2),
            (2, 0, 2, 1),
            (3, 1, 2, 3),
            (4, 0, 4, 5),
            (4, 1, 2, 3),
            (4, 2, -7, 9),
            (500, 0, -1, -1),
            (500, 1, 2, 3),
            (500, 2, -7, 9),
        ]
    );
}

/// `scan` has a row per teehistorian file: the header's fields, and with `--deep` the records
/// (a file that does not end with FINISH is not an error; a record that does not read is).
#[test]
fn scan_has_a_row_per_teehistorian_file() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["server_econ", "antibot_unfinished"] {
        let to = dir.path().join(format!("{name}.teehistorian"));
        std::fs::copy(fixture(name), to).unwrap();
    }
    let mut cut = std::fs::read(fixture("teams")).unwrap();
    cut.truncate(cut.len() - 3);
    std::fs::write(dir.path().join("cut.teehistorian"), cut).unwrap();
    let folder = dir.path().to_string_lossy().into_owned();
    let scan = |args: &[&str]| -> (Output, Vec<serde_json::Value>) {
        let output = twcodec(args);
        let rows = (text(&output.stdout).lines())
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        (output, rows)
    };
    let (output, rows) = scan(&["scan", &folder]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        "3 files: 0 maps, 0 demos, 3 teehistorian files, 0 other; 0 maps with errors, 0 failed\n"
    );
    let econ = &rows[2];
    assert!(econ["path"]
        .as_str()
        .unwrap()
        .ends_with("server_econ.teehistorian"));
    assert_eq!(econ["kind"], "teehistorian");
    let th = &econ["teehistorian"];
    assert_eq!(th["map_name"], "th_ctf1");
    assert_eq!(th["game_type"], "TestDDraceNetwork");
    assert_eq!(th["records"], serde_json::Value::Null);

    let (output, rows) = scan(&["scan", "--deep", &folder]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).ends_with("0 maps with errors, 1 failed\n"));
    let [unfinished, cut, econ] = &rows[..] else {
        panic!("{rows:?}")
    };
    assert_eq!(unfinished["teehistorian"]["finished"], false);
    assert_eq!(unfinished["teehistorian"]["records"], 3);
    assert_eq!(unfinished["error"], serde_json::Value::Null);
    assert!(cut["error"].as_str().unwrap().contains("record #"), "{cut}");
    assert_eq!(econ["teehistorian"]["finished"], true);
    assert!(econ["teehistorian"]["records"].as_u64().unwrap() > 10);

    let output = twcodec(&["scan", "--deep", "--format", "csv", &fixture("server_econ")]);
    let out = text(&output.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].ends_with(
            ",characters,game_uuid,server_name,start_time,game_type,records,last_tick,finished,players"
        ),
        "{}",
        lines[0]
    );
    assert!(lines[1].contains(",th_ctf1,"), "{}", lines[1]);
}
