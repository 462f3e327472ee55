//! `twcodec replace-area` (alias `copy-area`) and `twcodec append`: their reports on standard
//! output, the written maps, and errors that write nothing.

use std::path::Path;
use std::process::{Command, Output};

use twcodec::map::LayerContent;
use twcodec::Map;

fn twcodec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .expect("the twcodec binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The sample map in a fresh temporary directory, and its path.
fn sample(dir: &tempfile::TempDir, name: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, twcodec_testkit::sample::datafile()).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn append_prints_a_line_per_fact_and_writes_the_map() {
    let dir = tempfile::tempdir().unwrap();
    let map = sample(&dir, "a.map");
    let out = dir.path().join("out.map");
    let output = twcodec(&["append", &map, &map, "-o", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "image #0 \"grass_main\": shared with #0");
    assert!(lines.contains(&"group #0 \"Background\": appended as #2 with 2 layers"));
    assert!(lines.contains(&"game group #1 \"Game\": its 1 other layer appended as group #3"));
    assert!(lines.contains(
        &"layer #5 (tele) \"Tele\" dropped: the other map's physics layers are dropped: this \
          map keeps its own"
    ));
    assert_eq!(
        lines.last(),
        Some(&format!("wrote {}", out.display()).as_str())
    );
    let written = Map::open(&out).unwrap();
    assert_eq!(written.groups().len(), 4);
    assert_eq!(written.layers().len(), 9 + 3);
}

#[test]
fn copy_area_copies_physics_and_says_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let map = sample(&dir, "a.map");
    let out = dir.path().join("out.map");
    // The tele tiles at (5,2) and (8,2) go to (2,5) and (5,5).
    for command in ["replace-area", "copy-area"] {
        let output = twcodec(&[
            command,
            &map,
            "4,1,5,2",
            &map,
            "1,4",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(
            stdout(&output).contains("layer #5 (tele): 10 tiles replaced\n"),
            "{}",
            stdout(&output)
        );
        let written = Map::open(&out).unwrap();
        let LayerContent::Tele(tele) = written.layers()[5].content() else {
            panic!("layer #5 is not the tele layer");
        };
        let tile = tele.grid().unwrap().get(2, 5).unwrap();
        assert_eq!((tile.number, tile.id), (1, 26));
    }
}

#[test]
fn errors_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let map = sample(&dir, "a.map");
    let out = dir.path().join("out.map");
    let out = out.to_str().unwrap();
    let output = twcodec(&["replace-area", &map, "10,1,3,2", &map, "0,0", "-o", out]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output)
            .contains("the area 10,1 3x2 reaches out of the source map's 12x8 game layer"),
        "{}",
        stderr(&output)
    );
    assert!(!Path::new(out).exists());
    // A map of another structure.
    let mut other = Map::open(&map).unwrap();
    other.remove_layer(other.refs().nth(8).unwrap()).unwrap();
    let other_path = dir.path().join("other.map");
    other.save(&other_path).unwrap();
    let output = twcodec(&[
        "replace-area",
        other_path.to_str().unwrap(),
        "0,0,2,2",
        &map,
        "0,0",
        "-o",
        out,
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("the maps differ in structure"),
        "{}",
        stderr(&output)
    );
    assert!(!Path::new(out).exists());
    // Bad arguments: a usage error.
    let output = twcodec(&["copy-area", &map, "1,2,3", &map, "0,0", "-o", out]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("is not X,Y,W,H"),
        "{}",
        stderr(&output)
    );
    // A file that is not a map.
    let output = twcodec(&["append", &map, out, "-o", out]);
    assert_eq!(output.status.code(), Some(1));
    assert!(!Path::new(out).exists());
}
