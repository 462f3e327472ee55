//! `twcodec diff`: semantic diffs of generated pairs (edits of the sample map and of corpus
//! maps, written and read back), reviewed as snapshots; empty diffs of every corpus map with
//! itself and its resave; one line for every single layer move, removal and insertion of every
//! corpus map; JSON; the CLI's exit codes; git's external diff driver.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;
use twcodec::map::{
    DataItem, Grid, Group, ItemRef, Layer, LayerContent, MapForm, NewEnvelope, NewGroup,
};
use twcodec::schema::map::envelope::{EnvPoint, EnvelopeKind};
use twcodec::schema::map::quad::Quad;
use twcodec::schema::map::tile::{Tele, Tile};
use twcodec::schema::map::{settings_data, Point};
use twcodec::Map;
use twcodec_tools::diff::{diff, Change, MapDiff};

fn sample() -> Map {
    twcodec_testkit::sample::map().unwrap()
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
    (map.refs::<Layer>())
        .find(|&l| map.get(l).unwrap().name() == name)
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
        let data = map.item_ref::<DataItem>(raw).get().unwrap();
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
fn an_edit_in_memory_is_compared() {
    // Not written: the tiles still say they come from the file's data item, which did not
    // change, and the diff compares them all the same (eager and lazy loads alike).
    let bytes = sample().to_bytes().unwrap();
    for old in [
        Map::parse(&bytes).unwrap(),
        Map::parse_with(&bytes, twcodec::Decode::Lazy).unwrap(),
    ] {
        let mut new = old.clone();
        tiles_of(&mut new, "Ground").get_mut(2, 1).unwrap().id = 9;
        let text = text(&diff(&old, &new));
        assert_eq!(
            text,
            "group #1 \"Game\" / layer #3 \"Ground\":\n  x 2, y 1: 0 -> 9\n"
        );
    }
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
    let group = old.refs::<Group>().next().unwrap();
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
        2 + twcodec_tools::diff::SECTION_LIMIT,
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
fn tiles_changed_counts_listed_and_unlisted_tiles() {
    let mut old = sample();
    let big = Grid::filled(40, 30, Tile::default()).unwrap();
    let group = old.refs::<Group>().next().unwrap();
    old.add_layer(group, Layer::new_tiles("Big", big).unwrap())
        .unwrap();
    let old = saved(&old);
    assert_eq!(diff(&old, &old).tiles_changed(), 0);
    // A 5 x 3 rectangle (one change) and a checkerboard of 600 lines (past the list).
    let mut new = old.clone();
    let grid = tiles_of(&mut new, "Big");
    for y in 0..30 {
        for x in 0..40 {
            grid.get_mut(x, y).unwrap().id = u8::from((x + y) % 2 == 0);
        }
    }
    let ground = tiles_of(&mut new, "Ground");
    for y in 1..=3 {
        for x in 2..=6 {
            ground.get_mut(x, y).unwrap().id = 17;
        }
    }
    let changes = diff(&old, &saved(&new));
    assert_eq!(changes.tiles_changed(), 600 + 15);
}

#[test]
fn an_image_replaced_by_changed_pixels() {
    let text = diff_of(&sample(), |map| {
        let checker = map.refs::<twcodec::map::Image>().nth(1).unwrap();
        let mut rgba = map.get(checker).unwrap().rgba8(map).unwrap().bytes.to_vec();
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
        let data = map.item_ref::<DataItem>(grass).get().unwrap();
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
    // One removal, its auto-mapper configuration listed with it; the layers after it and
    // their auto-mappers (which now name them by other indices) are not reported as changed.
    assert_eq!(text.lines().count(), 2, "{text}");
    snapshot("diff_layer_deleted", &text);
}

#[test]
fn a_layer_moved() {
    let text = diff_of(&sample(), |map| {
        let quads = layer_named(map, "Quads");
        let game = map.refs::<Group>().nth(1).unwrap();
        map.move_layer(quads, game, 1).unwrap();
    });
    assert!(text.contains("moved here from group #0 \"Background\" / layer #0 \"Quads\""));
    snapshot("diff_layer_moved", &text);
}

#[test]
fn a_layer_moved_and_edited() {
    let text = diff_of(&sample(), |map| {
        // Ground takes its auto-mapper configuration along; the layers after its old place
        // shift, and so do their references.
        let ground = layer_named(map, "Ground");
        let background = map.refs::<Group>().next().unwrap();
        map.move_layer(ground, background, 0).unwrap();
        tiles_of(map, "Ground").get_mut(1, 1).unwrap().id = 5;
    });
    assert!(!text.contains("automapper"), "{text}");
    assert_eq!(text.lines().count(), 3, "{text}");
    snapshot("diff_layer_moved_and_edited", &text);
}

#[test]
fn an_unnamed_layer_moved_and_edited_names_its_kind() {
    let mut old = sample();
    let background = old.refs::<Group>().next().unwrap();
    let grid = Grid::filled(4, 3, Tile::default()).unwrap();
    old.add_layer(background, Layer::new_tiles("", grid).unwrap())
        .unwrap();
    let text = diff_of(&old, |map| {
        let unnamed = layer_named(map, "");
        let game = map.refs::<Group>().nth(1).unwrap();
        map.move_layer(unnamed, game, 7).unwrap();
        tiles_of(map, "").get_mut(3, 2).unwrap().id = 1;
    });
    assert_eq!(
        text,
        "group #1 \"Game\" / layer #9 (tiles):\n  \
         moved here from group #0 \"Background\" / layer #2 (tiles)\n  \
         x 3, y 2: 0 -> 1\n"
    );
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
        let layer = map.refs::<Layer>().nth(2).unwrap();
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
        stderr.starts_with("twcodec: error: missing.map: cannot read"),
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

/// A place as the diff names it: `group #1 "Game" / layer #3 "Front"`, an unnamed group as
/// `group #2`, an unnamed layer by its kind, `layer #10 (game)`.
fn place_of(map: &Map, layer: usize) -> String {
    let r = map.refs::<Layer>().nth(layer).unwrap();
    let group = match map.group_of(r) {
        Some(g) => match map.get(g).unwrap().name() {
            name if name.is_empty() => format!("group #{}", g.index()),
            name => format!("group #{} {name:?}", g.index()),
        },
        None => "no group".to_string(),
    };
    let l = map.get(r).unwrap();
    match l.name() {
        name if name.is_empty() => format!("{group} / layer #{layer} ({})", l.kind_name()),
        name => format!("{group} / layer #{layer} {name:?}"),
    }
}

/// The number after `layer #` in a place.
fn layer_number(place: &str) -> usize {
    let (_, rest) = place.split_once("/ layer #").unwrap();
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().unwrap()
}

/// The group of layer `layer` and the layer's position in it.
fn group_and_position(map: &Map, layer: usize) -> Option<(usize, usize)> {
    let r = map.refs::<Layer>().nth(layer)?;
    let g = map.group_of(r)?;
    let first = map.get(g)?.layers(map).next()?.index();
    Some((g.index(), layer - first))
}

/// The map written and read back lazily: what a file gives, its layers decoded only when the
/// diff asks for them.
fn saved_lazy(map: &Map) -> Map {
    Map::parse_with(&map.to_bytes().unwrap(), twcodec::Decode::Lazy).unwrap()
}

/// One single-layer edit of a corpus map and what its diff must read as.
enum Expect {
    /// Layer `from` (old map) moved to layer `to` (new map).
    Moved { from: usize, to: usize },
    /// Layer `old` (old map) removed.
    Removed { old: usize },
    /// Layer `new` (new map) added.
    Added { new: usize },
}

/// Whether `changes`, the diff from `old` to `new`, is exactly one change line of the kind
/// `expect` says, of that layer: one section, named by the layer's place (the new place for a
/// move or an addition, the old one for a removal), holding one change: `moved here from <old
/// place>`, `removed (...)` or `added (...)`. Where the move or the removal is reported of
/// another layer (two neighbours trading places, two identical layers), what the line says is
/// checked instead: that edit made on `old` gives `new` (an empty diff); `Ok(false)` then.
/// `Err` holds the text of a diff that is not one such line.
fn one_line(old: &Map, new: &Map, changes: &MapDiff, expect: &Expect) -> Result<bool, String> {
    let fail = || Err(text(changes));
    let [section] = &changes.sections[..] else {
        return fail();
    };
    let [change] = &section.changes[..] else {
        return fail();
    };
    let mut again = old.clone();
    match (expect, change) {
        (Expect::Moved { from, to }, Change::Moved { from: said }) => {
            if section.place == place_of(new, *to) && *said == place_of(old, *from) {
                return Ok(true);
            }
            let (from, to) = (layer_number(said), layer_number(&section.place));
            let Some((group, position)) = group_and_position(new, to) else {
                return fail();
            };
            let layer = again.refs::<Layer>().nth(from).unwrap();
            let group = again.refs::<Group>().nth(group).unwrap();
            if again.move_layer(layer, group, position).is_err() {
                return fail();
            }
        }
        (Expect::Removed { old: index }, Change::Removed { .. }) => {
            if section.place == place_of(old, *index) {
                return Ok(true);
            }
            let layer = again
                .refs::<Layer>()
                .nth(layer_number(&section.place))
                .unwrap();
            again.remove_layer(layer).unwrap();
        }
        (Expect::Added { new: index }, Change::Added { .. })
            if section.place == place_of(new, *index) =>
        {
            return Ok(true);
        }
        _ => return fail(),
    }
    match diff(&saved_lazy(&again), new).is_empty() {
        true => Ok(false),
        false => fail(),
    }
}

/// What the single-layer edits of one map gave.
#[derive(Default)]
struct Edits {
    moves: usize,
    removals: usize,
    insertions: usize,
    /// Edits read as the same edit of another layer ([`one_line`]).
    others: usize,
    failures: Vec<String>,
}

/// Every single layer edit of the map at `path` ([`every_single_layer_edit_of_the_corpus_is_one_line`]).
fn edit_each_layer(path: &Path) -> Edits {
    let mut original = Map::parse(&std::fs::read(path).unwrap()).unwrap();
    if original.form() == MapForm::Teeworlds03 {
        original.convert(MapForm::Ddnet).unwrap();
    }
    let bytes = original.to_bytes().unwrap();
    // `base` is edited (a clone of a lazy map copies no tiles), `old` is compared.
    let base = Map::parse_with(&bytes, twcodec::Decode::Lazy).unwrap();
    let old = Map::parse_with(&bytes, twcodec::Decode::Lazy).unwrap();
    let file = path.file_name().unwrap().to_string_lossy().to_string();
    let groups = base.refs::<Group>().count();
    let mut edits = Edits::default();
    let check = |edits: &mut Edits, what: String, new: Map, expect: Expect| {
        let new = saved_lazy(&new);
        let changes = diff(&old, &new);
        match one_line(&base, &new, &changes, &expect) {
            Ok(same_layer) => edits.others += usize::from(!same_layer),
            Err(text) => edits.failures.push(format!("{file}: {what}:\n{text}")),
        }
    };
    for index in 0..base.layers().len() {
        let Some((group, position)) = group_and_position(&base, index) else {
            continue;
        };
        let physics = base.layers()[index].is_physics();
        let len = (base.get(base.refs::<Group>().nth(group).unwrap()).unwrap())
            .layers(&base)
            .count();
        // To each other group, at a place that varies with the layer and the group.
        for target in (0..groups).filter(|&g| g != group && !physics) {
            let mut new = base.clone();
            let to = new.refs::<Group>().nth(target).unwrap();
            let at = (index + target) % (new.get(to).unwrap().layers(&new).count() + 1);
            let layer = new.refs::<Layer>().nth(index).unwrap();
            let to = new.move_layer(layer, to, at).unwrap().index();
            let what = format!("layer #{index} moved to group #{target} at {at}");
            check(&mut edits, what, new, Expect::Moved { from: index, to });
            edits.moves += 1;
        }
        // Within its group: to its end, or the last layer to its start.
        if len >= 2 {
            let at = if position + 1 < len { len - 1 } else { 0 };
            let mut new = base.clone();
            let layer = new.refs::<Layer>().nth(index).unwrap();
            let g = new.refs::<Group>().nth(group).unwrap();
            let to = new.move_layer(layer, g, at).unwrap().index();
            let what = format!("layer #{index} moved within its group to {at}");
            check(&mut edits, what, new, Expect::Moved { from: index, to });
            edits.moves += 1;
        }
        let mut new = base.clone();
        new.remove_layer(new.refs::<Layer>().nth(index).unwrap())
            .unwrap();
        let what = format!("layer #{index} removed");
        check(&mut edits, what, new, Expect::Removed { old: index });
        edits.removals += 1;
    }
    for group in 0..groups {
        let mut new = base.clone();
        let g = new.refs::<Group>().nth(group).unwrap();
        let at = new.get(g).unwrap().layers(&new).count() / 2;
        let quads = Layer::new_quads("Inserted", vec![Quad::default()]).unwrap();
        let added = new.insert_layer(g, at, quads).unwrap().index();
        let what = format!("a layer inserted in group #{group} at {at}");
        check(&mut edits, what, new, Expect::Added { new: added });
        edits.insertions += 1;
    }
    edits
}

/// Every single layer edit of every corpus map reads as one line ([`one_line`]): each layer
/// moved to each other group (physics layers stay in the game group, as `move_layer`
/// requires) and to another place in its own, each layer removed, and a new quads layer
/// inserted in the middle of each group. Each edited map is written and read back, as a file
/// would give it (read lazily: the diff decodes only what it compares), and compared with the
/// unedited map written and read back the same way (a Teeworlds 0.3 map converted to DDNet's
/// form first, as any edit writes it). The maps are shared among two threads, largest first.
#[test]
fn every_single_layer_edit_of_the_corpus_is_one_line() {
    let Some(mut maps) = corpus_maps() else {
        return;
    };
    let started = std::time::Instant::now();
    maps.sort_by_key(|path| std::cmp::Reverse(std::fs::metadata(path).unwrap().len()));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let all = std::sync::Mutex::new(Edits::default());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(path) = maps.get(index) else { break };
                let edits = edit_each_layer(path);
                let mut all = all.lock().unwrap();
                all.moves += edits.moves;
                all.removals += edits.removals;
                all.insertions += edits.insertions;
                all.others += edits.others;
                all.failures.extend(edits.failures);
            });
        }
    });
    let all = all.into_inner().unwrap();
    eprintln!(
        "{} moves, {} removals and {} insertions over {} maps ({} read as the same edit of \
         another layer) in {:.1?}",
        all.moves,
        all.removals,
        all.insertions,
        maps.len(),
        all.others,
        started.elapsed()
    );
    assert!(
        all.failures.is_empty(),
        "{} of {} edits do not read as one line:\n{}",
        all.failures.len(),
        all.moves + all.removals + all.insertions,
        all.failures.join("\n")
    );
}

/// 60,000 envelopes sharing one million points (a 28 MB map): the diff against itself and
/// against a map whose envelopes all lost a point takes time linear in the points, not in
/// envelopes times points (it did not end within two minutes).
#[test]
fn envelopes_sharing_a_million_points_diff_in_linear_time() {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let a = Map::parse(&common::hostile::envelopes_sharing_points(
            60_000, 1_000_000,
        ))
        .unwrap();
        let b = Map::parse(&common::hostile::envelopes_sharing_points(60_000, 999_999)).unwrap();
        let same = twcodec_tools::diff::diff(&a, &a);
        let shorter = twcodec_tools::diff::diff(&a, &b);
        let _ = send.send((same, shorter));
    });
    let (same, shorter) = receive
        .recv_timeout(std::time::Duration::from_secs(300))
        .expect("the diffs end");
    assert!(same.is_empty());
    // Every envelope says it lost a point; the points of the first are compared, and past the
    // diff's budget the rest say they were not compared.
    let envelopes: Vec<_> = (shorter.sections.iter())
        .filter(|s| s.place.starts_with("envelope #"))
        .collect();
    assert_eq!(envelopes.len(), 60_003);
    let first = &envelopes[0].changes;
    assert!(
        first
            .iter()
            .any(|c| matches!(c, twcodec_tools::diff::Change::Removed { .. })),
        "{first:?}"
    );
    let last = &envelopes[60_002].changes;
    assert!(
        last.iter().any(|c| matches!(c, twcodec_tools::diff::Change::More { what, .. } if what.starts_with("points not compared"))),
        "{last:?}"
    );
}
