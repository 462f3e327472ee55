//! `twcodec game-tiles` and `twcodec replace-tiles` on the built-in sample: the line they
//! print, the map they write (to a file or standard output), and errors that write nothing.

use std::path::Path;
use std::process::{Command, Output};

use twcodec::map::LayerContent;
use twcodec::Map;

fn twcodec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .output()
        .expect("twcodec runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The sample map in a new folder.
fn sample(dir: &Path) -> String {
    let path = dir.join("sample.map");
    std::fs::write(&path, twcodec_testkit::sample::datafile()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn game_tiles_writes_the_map_and_says_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let map = sample(dir.path());
    let out = dir.path().join("out.map");
    let run = twcodec(&[
        "game-tiles",
        &map,
        "-o",
        out.to_str().unwrap(),
        "--layer",
        "Ground",
        "--op",
        "Deep Freeze",
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with("layer #3 \"Ground\": ")
            && lines[0].contains("tiles of deep-freeze (12) in game layer #2"),
        "{stdout}"
    );
    assert_eq!(lines[1], format!("wrote {}", out.display()));
    let edited = Map::open(&out).unwrap();
    let (_, game) = edited.game_layer().unwrap();
    assert!(game.grid().unwrap().tiles().iter().any(|t| t.id == 12));

    // To standard output: the map there, the line on standard error.
    let run = twcodec(&[
        "game-tiles",
        &map,
        "-o",
        "-",
        "--layer",
        "3",
        "--op",
        "deep-freeze",
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(run.stdout, std::fs::read(&out).unwrap());
    assert_eq!(text(&run.stderr).lines().next(), Some(lines[0]));
}

#[test]
fn replace_tiles_replaces_in_an_area_and_keeps_tele_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let map = sample(dir.path());
    let out = dir.path().join("out.map");
    let run = twcodec(&[
        "replace-tiles",
        &map,
        "-o",
        out.to_str().unwrap(),
        "--layer",
        "Game",
        "--from",
        "1",
        "--to",
        "3,none",
        "--area",
        "0,5,4,3",
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    assert!(
        stdout.starts_with("layer #2 \"Game\" (game): ")
            && stdout.contains(" tiles 1 -> 3,0 in 0,5 4x3\nwrote "),
        "{stdout}"
    );
    let before = Map::open(&map).unwrap();
    let after = Map::open(&out).unwrap();
    let grid = |m: &Map| m.game_layer().unwrap().1.grid().unwrap().clone();
    let (b, a) = (grid(&before), grid(&after));
    for y in 0..b.height() {
        for x in 0..b.width() {
            let inside = x < 4 && (5..8).contains(&y);
            let (bt, at) = (b.get(x, y).unwrap(), a.get(x, y).unwrap());
            match inside && bt.id == 1 {
                true => assert_eq!((at.id, at.flags), (3, 0)),
                false => assert_eq!(at, bt),
            }
        }
    }

    // The tele layer's type changes, its numbers stay.
    let tele = |m: &Map| {
        m.layers()
            .iter()
            .find_map(|l| match l.content() {
                LayerContent::Tele(t) => t.grid().cloned(),
                _ => None,
            })
            .unwrap()
    };
    let from = tele(&before)
        .tiles()
        .iter()
        .find(|t| t.id != 0)
        .copied()
        .expect("the sample has a teleporter");
    let to = if from.id == 26 { 10 } else { 26 };
    let run = twcodec(&[
        "replace-tiles",
        &map,
        "-o",
        out.to_str().unwrap(),
        "--layer",
        "Tele",
        "--from",
        &from.id.to_string(),
        "--to",
        &to.to_string(),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let after = Map::open(&out).unwrap();
    for (b, a) in tele(&before).tiles().iter().zip(tele(&after).tiles()) {
        assert_eq!(a.number, b.number);
        assert_eq!(a.id, if b.id == from.id { to } else { b.id });
    }
}

#[test]
fn errors_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let map = sample(dir.path());
    let out = dir.path().join("out.map");
    let o = out.to_str().unwrap();
    let cases: [(&[&str], i32, &str); 7] = [
        (
            &[
                "game-tiles",
                &map,
                "-o",
                o,
                "--layer",
                "Nope",
                "--op",
                "freeze",
            ],
            2,
            "the map has no layer \"Nope\"",
        ),
        (
            &[
                "game-tiles",
                &map,
                "-o",
                o,
                "--layer",
                "0",
                "--op",
                "freeze",
            ],
            1,
            "layer #0 is a quads layer",
        ),
        (
            &["game-tiles", &map, "-o", o, "--layer", "3", "--op", "frost"],
            2,
            "is not a game tile op; one of air, hookable",
        ),
        (
            &[
                "replace-tiles",
                &map,
                "-o",
                o,
                "--layer",
                "Game",
                "--from",
                "1",
                "--to",
                "2",
                "--area",
                "4294967295,0,1,1",
            ],
            1,
            "the area 4294967295,0 1x1 reaches out of layer #2's 12x8 tiles",
        ),
        (
            &[
                "replace-tiles",
                &map,
                "-o",
                o,
                "--layer",
                "Tele",
                "--from",
                "26,xflip",
                "--to",
                "2",
            ],
            1,
            "layer #5 is a tele layer, whose tiles have no flags",
        ),
        (
            &[
                "replace-tiles",
                &map,
                "-o",
                o,
                "--layer",
                "Sounds",
                "--from",
                "1",
                "--to",
                "2",
            ],
            1,
            "layer #1 is a sounds layer; tiles are replaced in tile layers",
        ),
        (
            &[
                "replace-tiles",
                &map,
                "-o",
                o,
                "--layer",
                "Game",
                "--from",
                "1,spin",
                "--to",
                "2",
            ],
            2,
            "\"spin\" in \"1,spin\" is not a flag",
        ),
    ];
    for (args, code, message) in cases {
        let run = twcodec(args);
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(run.stdout.is_empty());
        assert!(!out.exists(), "{args:?} wrote the map");
    }
}

#[test]
fn help_explains_the_syntax() {
    let help = text(&twcodec(&["game-tiles", "--help"]).stdout);
    assert!(help.contains("deep-freeze") && help.contains("multiple of 32 px"));
    let help = text(&twcodec(&["replace-tiles", "--help"]).stdout);
    assert!(help.contains("xflip (1), yflip (2), opaque (4), rotate (8)"));
    assert!(help.contains("--area <X,Y,W,H>"));
}
