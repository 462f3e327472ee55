//! `twcodec scan`: every map and demo under some paths, a row each, in a stable order.

mod common;

use common::corpus_dir;
use twcodec::scan::{find, scan, Kind, Row, ScanOptions};

fn rows(paths: &[&std::path::Path], options: ScanOptions) -> Vec<Row> {
    let files = find(paths).unwrap();
    scan(&files, &options).unwrap().collect()
}

#[test]
fn the_sample_and_a_broken_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b sample.map"), twcodec::sample::datafile()).unwrap();
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
    // The sample, as `twcodec::sample` builds it.
    let sample = &rows[1];
    assert_eq!(sample.error, None);
    assert_eq!(sample.size, twcodec::sample::datafile().len() as u64);
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
    let mut csv = twcodec::scan::csv_writer(Vec::new());
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
    let one = rows(
        &[&corpus],
        ScanOptions {
            deep: true,
            jobs: Some(1),
        },
    );
    let two = rows(
        &[&corpus],
        ScanOptions {
            deep: true,
            jobs: Some(2),
        },
    );
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
