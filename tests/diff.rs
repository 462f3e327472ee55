//! `twcodec diff`: semantic diffs of generated pairs (edits of the sample map and of corpus
//! maps, written and read back), reviewed as snapshots; empty diffs of every corpus map with
//! itself and its resave; JSON; the CLI's exit codes; git's external diff driver.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;
use twcodec::diff::{diff, Change, MapDiff};
use twcodec::map::{Grid, ItemRef, Layer, LayerContent, NewEnvelope, NewGroup};
use twcodec::schema::map::envelope::{EnvPoint, EnvelopeKind};
use twcodec::schema::map::quad::Quad;
use twcodec::schema::map::tile::{Tele, Tile};
use twcodec::schema::map::{settings_data, Point};
use twcodec::Map;

fn sample() -> Map {
    twcodec::sample::map().unwrap()
}

/// The map written and read back: a diff sees what a file holds.
fn saved(map: &Map) -> Map {
    Map::parse(&map.to_bytes().unwrap()).unwrap()
}

fn text(changes: &MapDiff) -> String {
    let mut out = Vec::new();
    changes.write_text(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The diff from `old` to `edit(old)`, as text, after checking that the JSON form lists the
/// same changes.
fn diff_of(old: &Map, edit: impl FnOnce(&mut Map)) -> String {
    let mut new = old.clone();
    edit(&mut new);
    let new = saved(&new);
    let changes = diff(&saved(old), &new);
    assert!(!changes.is_empty(), "the edit changed nothing");
    json_agrees(&changes);
    text(&changes)
}

/// The JSON form has the same places and as many changes, each tagged with its kind.
fn json_agrees(changes: &MapDiff) {
    let json = serde_json::to_string(changes).unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let sections = value["sections"].as_array().unwrap();
    assert_eq!(sections.len(), changes.sections.len());
    for (section, expected) in sections.iter().zip(&changes.sections) {
        assert_eq!(section["place"], expected.place.as_str());
        let listed = section["changes"].as_array().unwrap();
        assert_eq!(listed.len(), expected.changes.len());
        assert!(listed.iter().all(|c| c["change"].is_string()), "{section}");
    }
}

fn snapshot(name: &str, text: &str) {
    insta_settings().bind(|| insta::assert_snapshot!(name, text));
}

fn layer_named(map: &Map, name: &str) -> ItemRef<Layer> {
    (map.layer_refs())
        .find(|&l| map.layer(l).unwrap().name() == name)
        .unwrap_or_else(|| panic!("no layer {name:?}"))
}

fn tiles_of<'m>(map: &'m mut Map, name: &str) -> &'m mut Grid<Tile> {
    let layer = layer_named(map, name);
    match map.layer_mut(layer).unwrap().content_mut() {
        LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => {
            t.grid_mut().unwrap()
        }
        _ => panic!("{name} is not a tile layer"),
    }
}

fn quads_of<'m>(map: &'m mut Map, name: &str) -> &'m mut Vec<Quad> {
    let layer = layer_named(map, name);
    match map.layer_mut(layer).unwrap().content_mut() {
        LayerContent::Quads(q) => q.quads_mut().unwrap(),
        _ => panic!("{name} is not a quads layer"),
    }
}

#[test]
fn a_setting_changed() {
    let text = diff_of(&sample(), |map| {
        let raw = map.info().unwrap().item().settings.unwrap();
        let data = map.data_ref(raw).get().unwrap();
        let settings = settings_data(&["sv_team 1", "tune_zone 1 gravity 0.5", "sv_solo 1"]);
        map.set_data(data, settings).unwrap();
    });
    snapshot("diff_setting_changed", &text);
}

#[test]
fn a_tile_painted_is_one_line() {
    let text = diff_of(&sample(), |map| {
        tiles_of(map, "Game").get_mut(3, 2).unwrap().id = 1;
    });
    assert_eq!(text.lines().count(), 2, "{text}");
    snapshot("diff_tile_painted", &text);
}

#[test]
fn a_rectangle_painted_is_one_line() {
    let text = diff_of(&sample(), |map| {
        let grid = tiles_of(map, "Ground");
        for y in 1..=3 {
            for x in 2..=6 {
                let tile = grid.get_mut(x, y).unwrap();
                (tile.id, tile.flags) = (17, 1);
            }
        }
    });
    assert_eq!(
        text.lines().filter(|l| l.contains("->")).count(),
        1,
        "{text}"
    );
    snapshot("diff_rectangle_painted", &text);
}

#[test]
fn runs_rectangles_and_a_cap_summarise_a_large_change() {
    let mut old = sample();
    let big = Grid::filled(400, 300, Tile::default()).unwrap();
    let group = old.group_refs().next().unwrap();
    old.add_layer(group, Layer::new_tiles("Big", big).unwrap())
        .unwrap();
    let text = diff_of(&old, |map| {
        let grid = tiles_of(map, "Big");
        // A checkerboard: no two neighbours share a change, every tile is its own line.
        for y in 0..300 {
            for x in 0..400 {
                grid.get_mut(x, y).unwrap().id = if (x + y) % 2 == 0 { 1 } else { 0 };
            }
        }
    });
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        2 + twcodec::diff::SECTION_LIMIT,
        "{}",
        lines[..5].join("\n")
    );
    assert_eq!(
        lines.last().unwrap().trim(),
        format!(
            "... and {} more changed tiles (in {} more lines)",
            200 * 300 - 200,
            200 * 300 - 200
        )
    );
}

#[test]
fn an_image_replaced_by_changed_pixels() {
    let text = diff_of(&sample(), |map| {
        let checker = map.refs::<twcodec::map::Image>().nth(1).unwrap();
        let mut rgba = map
            .image(checker)
            .unwrap()
            .rgba8(map)
            .unwrap()
            .bytes
            .to_vec();
        // Pixels (1, 1) and (2, 3) of the 4x4 picture turn red.
        for (x, y) in [(1, 1), (2, 3)] {
            let at = (y * 4 + x) * 4;
            rgba[at..at + 4].copy_from_slice(&[255, 0, 0, 255]);
        }
        assert!(map.replace_image(checker, 4, 4, rgba).unwrap());
    });
    snapshot("diff_image_replaced", &text);
}

#[test]
fn an_image_renamed() {
    let text = diff_of(&sample(), |map| {
        let grass = map.images()[0].item().name;
        let data = map.data_ref(grass).get().unwrap();
        map.set_data(data, &b"jungle_main\0"[..]).unwrap();
    });
    snapshot("diff_image_renamed", &text);
}

#[test]
fn a_layer_deleted() {
    let text = diff_of(&sample(), |map| {
        let ground = layer_named(map, "Ground");
        map.remove_layer(ground).unwrap();
    });
    // One removal (with its auto-mapper); the layers after it are not reported as changed.
    assert_eq!(text.lines().count(), 4, "{text}");
    snapshot("diff_layer_deleted", &text);
}

#[test]
fn a_layer_moved() {
    let text = diff_of(&sample(), |map| {
        let quads = layer_named(map, "Quads");
        let game = map.group_refs().nth(1).unwrap();
        map.move_layer(quads, game, 1).unwrap();
    });
    assert!(text.contains("moved here from group #0 \"Background\" / layer #0 \"Quads\""));
    snapshot("diff_layer_moved", &text);
}

#[test]
fn a_group_added() {
    let text = diff_of(&sample(), |map| {
        let mut group = NewGroup::new("Foreground");
        group.parallax = Point { x: 120, y: 120 };
        let front = map.add_group(group).unwrap();
        let grid = Grid::filled(4, 3, Tile::default()).unwrap();
        map.add_layer(front, Layer::new_tiles("Bushes", grid).unwrap())
            .unwrap();
    });
    snapshot("diff_group_added", &text);
}

#[test]
fn a_quad_added_and_a_quad_moved() {
    let text = diff_of(&sample(), |map| {
        let quads = quads_of(map, "Quads");
        // Quad #0 moves 2 tiles right and half a tile up.
        for point in &mut quads[0].points {
            point.x += 2 * 32 * 1024;
            point.y -= 16 * 1024;
        }
        let mut added = quads[1];
        added.colors[0].a = 128;
        quads.push(added);
    });
    snapshot("diff_quads", &text);
}

#[test]
fn an_envelope_point_changed() {
    let wave = |last: EnvPoint| {
        let mut envelope = NewEnvelope::new(EnvelopeKind::Color, "wave");
        envelope.points = vec![
            EnvPoint {
                time: 0,
                curve_type: 1,
                values: [1024, 1024, 1024, 1024],
            },
            last,
        ];
        envelope
    };
    let last = EnvPoint {
        time: 1500,
        curve_type: 1,
        values: [0, 512, 1024, 1024],
    };
    let mut old = sample();
    old.add_envelope(wave(last)).unwrap();
    let text = diff_of(&old, |map| {
        *map = sample();
        let changed = EnvPoint {
            time: 2000,
            curve_type: 4,
            values: [0, 256, 1024, 1024],
        };
        map.add_envelope(wave(changed)).unwrap();
    });
    snapshot("diff_envelope_point", &text);
}

#[test]
fn a_tele_tile_of_a_corpus_map() {
    let Some(bytes) = corpus_map("ddnet_coverage.map") else {
        return;
    };
    let old = Map::parse(&bytes).unwrap();
    let text = diff_of(&old, |map| {
        let (tele, _) = map
            .physics_layers()
            .find(|(_, l)| l.kind_name() == "tele")
            .unwrap();
        match map.layer_mut(tele).unwrap().content_mut() {
            LayerContent::Tele(t) => {
                *t.grid_mut().unwrap().get_mut(5, 7).unwrap() = Tele { number: 3, id: 26 };
            }
            _ => unreachable!(),
        }
    });
    snapshot("diff_corpus_tele_tile", &text);
}

#[test]
fn a_layer_deleted_from_a_corpus_map() {
    let Some(bytes) = corpus_map("tw06_stock_dm1.map") else {
        return;
    };
    let old = Map::parse(&bytes).unwrap();
    let text = diff_of(&old, |map| {
        let layer = map.layer_refs().nth(2).unwrap();
        map.remove_layer(layer).unwrap();
    });
    assert_eq!(text.lines().count(), 2, "{text}");
    snapshot("diff_corpus_layer_deleted", &text);
}

#[test]
fn every_corpus_map_equals_itself_and_its_resave() {
    let Some(maps) = corpus_maps() else {
        return;
    };
    for path in maps {
        let bytes = std::fs::read(&path).unwrap();
        let map = Map::parse(&bytes).unwrap();
        let again = Map::parse(&bytes).unwrap();
        let changes = diff(&map, &again);
        assert!(
            changes.is_empty(),
            "{}:\n{}",
            path.display(),
            text(&changes)
        );
        let resaved = Map::parse(&map.to_bytes().unwrap()).unwrap();
        let changes = diff(&map, &resaved);
        assert!(
            changes.is_empty(),
            "{}:\n{}",
            path.display(),
            text(&changes)
        );
    }
}

#[test]
fn changes_serialize_with_their_kind() {
    let change = Change::Tiles {
        x: [10, 14],
        y: [3, 3],
        old: "0".into(),
        new: "1".into(),
    };
    assert_eq!(change.to_string(), "x 10..=14, y 3: 0 -> 1");
    assert_eq!(
        serde_json::to_string(&change).unwrap(),
        r#"{"change":"tiles","x":[10,14],"y":[3,3],"old":"0","new":"1"}"#
    );
}

fn twcodec(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the twcodec binary runs")
}

fn write_maps(dir: &Path) {
    let old = sample();
    let mut new = old.clone();
    tiles_of(&mut new, "Game").get_mut(3, 2).unwrap().id = 1;
    std::fs::write(dir.join("old.map"), old.to_bytes().unwrap()).unwrap();
    std::fs::write(dir.join("new.map"), new.to_bytes().unwrap()).unwrap();
    std::fs::write(dir.join("not-a-map.txt"), "hello").unwrap();
}

#[test]
fn cli_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    write_maps(path);
    let same = twcodec(&["diff", "old.map", "old.map"], path);
    assert_eq!((same.status.code(), same.stdout.len()), (Some(0), 0));

    let changed = twcodec(&["diff", "old.map", "new.map"], path);
    assert_eq!(changed.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&changed.stdout);
    assert!(stdout.contains("  x 3, y 2: 0 -> 1"), "{stdout}");

    let json = twcodec(&["diff", "old.map", "new.map", "--format", "json"], path);
    assert_eq!(json.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["sections"][0]["changes"][0]["change"], "tiles");

    let missing = twcodec(&["diff", "old.map", "missing.map"], path);
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr.starts_with("twcodec: missing.map: cannot read"),
        "{stderr}"
    );

    let not_a_map = twcodec(&["diff", "not-a-map.txt", "old.map"], path);
    let stderr = String::from_utf8_lossy(&not_a_map.stderr);
    assert_eq!(not_a_map.status.code(), Some(2));
    assert!(
        stderr.contains("not-a-map.txt: datafile header: not a datafile"),
        "{stderr}"
    );

    let three = twcodec(&["diff", "old.map", "new.map", "old.map"], path);
    assert_eq!(three.status.code(), Some(2));
}

/// git, run in `dir` with no user or system configuration.
fn git(dir: &Path, args: &[&str]) -> Output {
    let output = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {output:?}");
    output
}

#[test]
fn git_external_diff_driver() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("skipped: git is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    write_maps(repo);
    git(repo, &["init", "-q"]);
    let driver = format!("{} diff --git", env!("CARGO_BIN_EXE_twcodec"));
    git(repo, &["config", "diff.twmap.command", &driver]);
    std::fs::write(repo.join(".gitattributes"), "*.map diff=twmap\n").unwrap();
    std::fs::copy(repo.join("old.map"), repo.join("level.map")).unwrap();
    git(repo, &["add", "level.map", ".gitattributes"]);
    git(repo, &["commit", "-q", "-m", "a map"]);
    std::fs::copy(repo.join("new.map"), repo.join("level.map")).unwrap();
    let output = git(repo, &["diff"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        stdout,
        "twcodec diff a/level.map b/level.map\n\
         group #1 \"Game\" / layer #2 \"Game\":\n  x 3, y 2: 0 -> 1\n"
    );
    // A new map.
    std::fs::copy(repo.join("old.map"), repo.join("other.map")).unwrap();
    git(repo, &["add", "-N", "other.map"]);
    let output = git(repo, &["diff", "--", "other.map"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("new map"), "{stdout}");
}
