//! `twcodec scan`: every map and demo under some paths, a row each, in a stable order.

mod common;

use common::corpus_dir;
use twcodec_tools::scan::{find, scan, Kind, Row, ScanOptions};

fn rows(paths: &[&std::path::Path], options: ScanOptions) -> Vec<Row> {
    let files = find(paths).unwrap();
    scan(&files, &options).unwrap().collect()
}

#[test]
fn the_sample_and_a_broken_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("b sample.map"),
        twcodec_testkit::sample::datafile(),
    )
    .unwrap();
    std::fs::write(dir.path().join("a broken.map"), b"DATA\x04\0\0\0 cut short").unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"not scanned").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/c.demo"), b"TWDEMO\0 cut short").unwrap();
    let rows = rows(&[dir.path()], ScanOptions::default());
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r.path.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(names, ["a broken.map", "b sample.map", "c.demo"]);
    // A file that fails is a row with its error.
    let broken = &rows[0];
    assert_eq!(broken.kind, Kind::Map);
    assert!(broken.failed() && broken.map.is_none());
    assert!(
        broken.error.as_ref().unwrap().contains("header"),
        "{:?}",
        broken.error
    );
    assert!(rows[2].error.is_some() && rows[2].kind == Kind::Demo);
    // The sample, as `twcodec_testkit::sample` builds it.
    let sample = &rows[1];
    assert_eq!(sample.error, None);
    assert_eq!(
        sample.size,
        twcodec_testkit::sample::datafile().len() as u64
    );
    let map = sample.map.as_ref().unwrap();
    assert_eq!((map.game_width, map.game_height), (Some(12), Some(8)));
    assert_eq!(map.form, "ddnet");
    assert_eq!(map.groups, 2);
    let layers: Vec<(&str, usize)> = map.layer_kinds.iter().map(|(k, n)| (*k, *n)).collect();
    assert_eq!(
        layers,
        [
            ("front", 1),
            ("game", 1),
            ("quads", 1),
            ("sounds", 1),
            ("speedup", 1),
            ("switch", 1),
            ("tele", 1),
            ("tiles", 1),
            ("tune", 1)
        ]
    );
    assert_eq!(map.item_kinds["layer"], 9);
    assert_eq!((map.images_embedded, map.images_external), (1, 1));
    assert_eq!((map.sounds_embedded, map.sounds_external), (1, 0));
    assert_eq!((map.errors, map.warnings), (0, 0));
    // CSV: a header and a record per row, the censuses as `kind=count`.
    let mut csv = twcodec_tools::scan::csv_writer(Vec::new());
    for row in &rows {
        row.write_csv(&mut csv).unwrap();
    }
    let text = String::from_utf8(csv.into_inner().unwrap()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4);
    assert!(lines[0].starts_with("path,kind,size,sha256,crc32,error,datafile_version"));
    assert!(
        lines[2].contains(",front=1;game=1;quads=1;"),
        "{}",
        lines[2]
    );
}

#[test]
fn the_corpus_in_a_stable_order_on_any_number_of_threads() {
    let Some(corpus) = corpus_dir() else { return };
    let one = rows(&[&corpus], ScanOptions::default().deep(true).jobs(Some(1)));
    let two = rows(&[&corpus], ScanOptions::default().deep(true).jobs(Some(2)));
    assert_eq!(one, two);
    let maps = one.iter().filter(|r| r.kind == Kind::Map).count();
    let demos = one.iter().filter(|r| r.kind == Kind::Demo).count();
    assert!(maps >= 40 && demos >= 6, "{maps} maps, {demos} demos");
    // Every corpus file reads; the maps DDNet refuses are the ones with errors.
    assert!(one.iter().all(|r| r.error.is_none()), "{one:#?}");
    // A demo's row says what DEMOS.md says of it, and the deep scan replays it.
    let demo = one
        .iter()
        .find(|r| {
            r.path
                .ends_with("075_tw_dm1_join_chat_walk_disconnect__client.demo")
        })
        .and_then(|r| r.demo.as_ref())
        .unwrap();
    assert_eq!(demo.demo_version, 4);
    assert_eq!(demo.net_version, "0.7 802f1be60a05665f");
    assert_eq!((demo.map_name.as_str(), demo.map_size), ("dm1", 6793));
    assert_eq!(demo.map_crc32, "64548818");
    assert!(demo.ticks.unwrap() > 0 && demo.messages.unwrap() > 0);
    // A metadata scan gives the same census as the deep one.
    let shallow = rows(&[&corpus], ScanOptions::default());
    for (a, b) in shallow.iter().zip(&one) {
        let (Some(a), Some(b)) = (&a.map, &b.map) else {
            continue;
        };
        assert_eq!(
            (&a.item_kinds, &a.layer_kinds, a.game_width, a.game_height),
            (&b.item_kinds, &b.layer_kinds, b.game_width, b.game_height)
        );
    }
}

/// A folder with a map, a link to a map, a dangling link and a loop of links: as root (which
/// reads any folder) the ways a walk meets a place it cannot read.
#[cfg(unix)]
fn awkward_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("maps/sub")).unwrap();
    std::fs::write(root.join("real.map"), twcodec_testkit::sample::datafile()).unwrap();
    std::fs::write(root.join("maps/a.map"), twcodec_testkit::sample::datafile()).unwrap();
    std::os::unix::fs::symlink(root.join("real.map"), root.join("maps/b linked.map")).unwrap();
    std::os::unix::fs::symlink(root.join("nowhere.map"), root.join("maps/c dangling.map")).unwrap();
    std::os::unix::fs::symlink(root.join("maps"), root.join("maps/sub/loop")).unwrap();
    dir
}

#[cfg(unix)]
#[test]
fn places_that_cannot_be_read_are_rows_not_the_end() {
    let dir = awkward_tree();
    let maps = dir.path().join("maps");
    let found = twcodec_tools::scan::walk(&[&maps], &["map"]);
    let described: Vec<String> = (found.iter())
        .map(|f| match f {
            twcodec_tools::scan::Found::File(p) => {
                format!("file {}", p.strip_prefix(&maps).unwrap().display())
            }
            twcodec_tools::scan::Found::Unreadable(p, e) => {
                format!(
                    "unreadable {}: {e}",
                    p.strip_prefix(&maps).unwrap().display()
                )
            }
        })
        .collect();
    assert_eq!(described.len(), 4, "{described:#?}");
    assert_eq!(described[0], "file a.map");
    // A link to a map is followed.
    assert_eq!(described[1], "file b linked.map");
    assert!(
        described[2].starts_with("unreadable c dangling.map:"),
        "{described:#?}"
    );
    assert!(
        described[3].starts_with("unreadable sub/loop:") && described[3].contains("a loop"),
        "{described:#?}"
    );
    // The CLI: a row each, and exit 1 since some failed.
    let bin = env!("CARGO_BIN_EXE_twcodec");
    let output = std::process::Command::new(bin)
        .args(["scan", maps.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.lines().count(), 4, "{stdout}");
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    // check and resave --out-dir name them and go on.
    let output = std::process::Command::new(bin)
        .args(["check", maps.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("c dangling.map: cannot be read"),
        "{stdout}"
    );
    assert!(stdout.contains("loop: cannot be read"), "{stdout}");
    assert!(stdout.contains("4 maps: 2 ok"), "{stdout}");
    let out = dir.path().join("out");
    let output = std::process::Command::new(bin)
        .args([
            "resave",
            "--out-dir",
            out.to_str().unwrap(),
            maps.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("4 maps: 2 done, 2 failed"), "{stdout}");
    assert!(out.join("a.map").is_file() && out.join("b linked.map").is_file());
}
