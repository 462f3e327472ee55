//! `twcodec ghost info` and `twcodec ghost export` on the ghosts DDNet's recorder wrote
//! (`tests/fixtures/ghosts`), and their exits: a map that is not the ghost's, a broken ghost,
//! a ghost given where a map goes, a closed pipe, a full disk.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use twcodec::ghost::GhostWriter;
use twcodec::schema::ghost::GhostCharacter;

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/ghosts")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn twcodec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .output()
        .expect("the twcodec binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn info_says_the_header_items_duration_and_skin() {
    let output = twcodec(&["ghost", "info", &fixture("short.gho")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "ghost version 6, owner \"nameless tee\", map \"ghostmap\"\n\
         map sha256 a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf\n\
         time 0:00.480 (480 ms), 12 ticks in the header\n\
         3 chunks from byte 0x85, items: 1 start_tick, 1 skin, 12 character\n\
         characters: 12, ticks 5000 to 5011 (0.24 s at 50 ticks per second)\n\
         start tick 5000\n\
         skin \"santa_limekitty\", custom colours: body 1b6f74, feet ff00ff\n"
    );
    let output = twcodec(&["ghost", "info", &fixture("notick.gho")]);
    let text = stdout(&output);
    assert!(
        text.contains("items: 1 skin, 75 character_no_tick\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "characters: 75, ticks 5000 to 5074 (estimated) (1.50 s at 50 ticks per second)"
        ),
        "{text}"
    );
    assert!(
        text.contains("start tick: none (DDNet takes the first character's)"),
        "{text}"
    );
    let text = stdout(&twcodec(&["ghost", "info", &fixture("unknown_type.gho")]));
    assert!(text.contains("1 other items, which DDNet skips"), "{text}");
    let text = stdout(&twcodec(&["ghost", "info", &fixture("written_v5.gho")]));
    assert!(
        text.contains("ghost version 5, owner \"twcodec\""),
        "{text}"
    );
    assert!(text.contains("map crc 12345678\n"), "{text}");
}

#[test]
fn info_with_a_map_says_whether_it_is_the_ghosts() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("ghostmap.map");
    std::fs::write(&map, b"a map's bytes").unwrap();
    let map = map.to_string_lossy().into_owned();
    // The fixture's SHA-256 is made up: the name matches, the hash does not.
    let output = twcodec(&["ghost", "info", &fixture("short.gho"), "--map", &map]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output)
        .ends_with("map file: name \"ghostmap\" (matches), sha256 (DOES NOT MATCH)\n"));
    // A version 5 ghost of this map, by its CRC.
    let mut writer = GhostWriter::new("tee", "ghostmap");
    writer
        .version(5)
        .map_crc(crc32fast::hash(b"a map's bytes"))
        .time_ms(20);
    writer.character(GhostCharacter {
        tick: Some(1),
        ..Default::default()
    });
    let ghost = dir.path().join("tee.gho");
    std::fs::write(&ghost, writer.finish().unwrap()).unwrap();
    let ghost = ghost.to_string_lossy().into_owned();
    let output = twcodec(&["ghost", "info", &ghost, "--map", &map]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(stdout(&output).ends_with("map file: name \"ghostmap\" (matches), crc (matches)\n"));
}

#[test]
fn export_writes_a_row_per_tick() {
    let output = twcodec(&["ghost", "export", &fixture("short.gho")]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert_eq!(text.lines().count(), 12);
    assert_eq!(
        text.lines().next().unwrap(),
        "{\"tick\":5000,\"time\":0.0,\"x\":1000,\"y\":1999,\"vel_x\":-1999,\"vel_y\":0,\
         \"angle\":-804,\"direction\":-1,\"weapon\":0,\"weapon_name\":\"hammer\",\
         \"hook_state\":-1,\"hook_state_name\":\"retracted\",\"hook_x\":1000,\"hook_y\":1999,\
         \"attack_tick\":5000}"
    );
    let output = twcodec(&["ghost", "export", "--format", "csv", &fixture("long.gho")]);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1201);
    assert_eq!(
        lines[0],
        "tick,time,x,y,vel_x,vel_y,angle,direction,weapon,weapon_name,hook_state,\
         hook_state_name,hook_x,hook_y,attack_tick"
    );
    // Row(1199, 2) of the harness: weapon (1199 / 40) % 6 = 5, the ninja; hook state 1
    assert!(lines[1200].starts_with("6199,23.98,"), "{}", lines[1200]);
    assert!(lines[1200].contains(",5,ninja,"), "{}", lines[1200]);
}

#[test]
fn broken_ghosts_and_wrong_kinds_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(fixture("short.gho")).unwrap();
    let cut = dir.path().join("cut.gho");
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    let cut = cut.to_string_lossy().into_owned();
    for command in ["info", "export"] {
        let output = twcodec(&["ghost", command, &cut]);
        assert_eq!(output.status.code(), Some(1));
        let err = stderr(&output);
        assert!(
            err.starts_with(&format!("twcodec: error: {cut}: chunk #2: the chunk's ")),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // A ghost given to the map reader says what it is and what reads it.
    let short = fixture("short.gho");
    let output = twcodec(&["info", &short]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!(
            "twcodec: error: {short}: not a datafile (a map): the file is a ghost, it starts with \
             \"TWGHOST\\0\"; `twcodec ghost info {short}` reads ghosts\n"
        )
    );
    // A map given to the ghost reader.
    let map = dir.path().join("a.map");
    std::fs::write(&map, twcodec_testkit::sample::datafile()).unwrap();
    let output = twcodec(&["ghost", "info", &map.to_string_lossy()]);
    assert!(
        stderr(&output).contains("not a ghost: the file is a map (a datafile)"),
        "{}",
        stderr(&output)
    );
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_quietly_and_a_full_disk_is_one_line() {
    for format in ["jsonl", "csv"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_twcodec"))
            .args(["ghost", "export", "--format", format, &fixture("long.gho")])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let output = child.wait_with_output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{format}: {}",
            stderr(&output)
        );
        assert_eq!(stderr(&output), "", "{format}");
    }
    if let Ok(full) = std::fs::File::create("/dev/full") {
        for command in ["info", "export"] {
            let output = Command::new(env!("CARGO_BIN_EXE_twcodec"))
                .args(["ghost", command, &fixture("long.gho")])
                .stdout(full.try_clone().unwrap())
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(1), "{command}");
            assert_eq!(
                stderr(&output),
                "twcodec: error: writing standard output: No space left on device (os error 28)\n"
            );
        }
    }
}

#[test]
fn scan_has_a_row_per_ghost() {
    let dir = fixture("");
    let output = twcodec(&["scan", &dir]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rows: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(rows.len(), 9);
    let short = rows
        .iter()
        .find(|row| row["path"].as_str().unwrap().ends_with("short.gho"))
        .unwrap();
    assert_eq!(short["kind"], "ghost");
    assert_eq!(
        short["ghost"],
        serde_json::json!({
            "ghost_version": 6,
            "owner": "nameless tee",
            "map_name": "ghostmap",
            "time_ms": 480,
            "num_ticks": 12,
            "characters": null,
        })
    );
    assert_eq!(
        stderr(&output),
        "9 files: 0 maps, 0 demos, 9 ghosts, 0 other; 0 maps with errors, 0 failed\n"
    );
    // --deep reads the characters; CSV has the ghost's columns at the end.
    let output = twcodec(&["scan", "--deep", "--format", "csv", &fixture("long.gho")]);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains(",map_name,map_size,map_crc32,length,recorded_by,ticks,messages,ghost_version,owner,time_ms,num_ticks,characters,"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].ends_with(",ghostmap,,,,,,,6,brainless tee,24016,1200,1200,,,,,,,,"),
        "{}",
        lines[1]
    );
}
