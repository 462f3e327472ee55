//! Maps built to make loading or dumping cost far more than their size: many layers sharing
//! one data item, Teeworlds 0.7 layers expanding a few compressed tiles, thousands of groups
//! or envelopes all covering each other, a game layer one tile wide, thousands of images
//! sharing one long name. None of them is a 64 KiB fuzz input: each is built here from the
//! sample map (which loads strictly without a problem), a few generator lines each.
//!
//! The assertions are what the fixes guarantee: an error before anything is inflated, one
//! problem per object rather than one per pair, a dump as long as the map rather than its
//! square. `tests/memory_maps.rs` counts the bytes the same maps allocate; the builders are in
//! `tests/common/hostile.rs`.

mod common;

use common::hostile::*;
use common::*;
use serde_json::Value;
use twcodec::map::{Group, Layer};
use twcodec::{Datafile, ErrorKind, Limits, Map};
use twcodec_tools::dump::{self, DumpOptions};

#[test]
fn layer_data_is_limited_before_anything_is_inflated() {
    let mut report = String::new();
    for (name, bytes) in [
        ("ddnet layers sharing data", ddnet_layers_sharing_data()),
        ("0.7 layers expanding", teeworlds07_layers_expanding()),
    ] {
        assert!(bytes.len() < 64 << 10, "{name}: {} bytes", bytes.len());
        let datafile = Datafile::parse(&bytes).unwrap();
        let error = Map::from_datafile(&datafile).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{name}: {error}");
        report.push_str(&format!("{name} ({} bytes): {error}\n", bytes.len()));
    }
    insta_settings().bind(|| insta::assert_snapshot!("hostile_layer_data", report));
}

#[test]
fn layers_sharing_data_each_hold_their_tiles_within_the_limit() {
    // The sample's 12 x 8 tiles layer and 50 copies of it, sharing its data item.
    let mut writer = sample_writer();
    copies(&mut writer, (5, 3), 50, 100, |_| {});
    item(&mut writer, 4, 1)[NUM_LAYERS] += 50;
    let bytes = writer.to_vec().unwrap();

    let map = Map::parse(&bytes).unwrap();
    let grids: Vec<_> = map
        .layers()
        .iter()
        .filter(|layer| layer.id() == 3 || layer.id() >= 100)
        .map(|layer| match layer.content() {
            twcodec::map::LayerContent::Tiles(tiles) => tiles.grid().unwrap().clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(grids.len(), 51);
    assert!(grids.iter().all(|grid| *grid == grids[0]));
    // Each copy counts: 51 x 96 tiles of 4 bytes do not fit in 51 x 384 - 1 bytes with the
    // other layers.
    let tight = Limits::default().with_max_layer_data(51 * 384 - 1);
    let error = Map::from_datafile(&Datafile::parse_with(&bytes, tight).unwrap()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert!(
        error.to_string().contains("Limits::max_layer_data"),
        "{error}"
    );
}

#[test]
fn the_preview_of_a_tall_game_layer_is_bounded() {
    let map = Map::parse(&tall_game_layer()).unwrap();
    let text =
        dump::to_string(|out| dump::map_text(&map, DumpOptions::default().preview(true), out));
    let preview: Vec<&str> = text
        .lines()
        .skip_while(|line| *line != "game layer preview:")
        .skip(1)
        .take_while(|line| line.starts_with("  |"))
        .collect();
    // 100000 rows of one tile, 209 tiles to a character: 479 rows of one column.
    assert_eq!(preview.len(), 479);
    assert!(preview.iter().all(|row| *row == "  |#|"), "{preview:?}");
}

#[test]
fn envelopes_sharing_points_cost_their_points_once() {
    let (envelopes, points) = (3000, 3000);
    let map = Map::parse(&envelopes_sharing_points(envelopes, points)).unwrap();
    let count = |what: &str| {
        map.problems()
            .iter()
            .filter(|p| p.to_string().contains(what))
            .count()
    };
    // Every envelope after the first overlaps; the unknown curves are reported once, with the
    // envelope that has the points first.
    assert_eq!(count("overlap the points of envelope #0"), envelopes + 2);
    assert_eq!(count("unknown curve types"), 1);
    let unknown = map
        .problems()
        .into_iter()
        .find(|p| p.to_string().contains("unknown curve types"))
        .unwrap();
    assert_eq!(
        unknown.to_string(),
        "envelope #0 (type 3, id 0): has 3000 points of unknown curve types [99], drawn linear"
    );
    // The dump shows the points once: the others name the envelope they share them with.
    let json: Value = serde_json::from_str(&dump::to_string(|out| {
        dump::map_json(&map, DumpOptions::default(), out)
    }))
    .unwrap();
    let shown: Vec<&Value> = json["envelopes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e.get("points").is_some())
        .collect();
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0]["points"].as_array().unwrap().len(), points);
    assert_eq!(json["envelopes"][1]["points_overlap_envelope"], 0);
}

#[test]
fn groups_sharing_layers_give_one_problem_each() {
    let (groups, layers) = (3000, 2000);
    let map = Map::parse(&groups_sharing_layers(groups, layers)).unwrap();
    let overlaps: Vec<String> = map
        .problems()
        .iter()
        .map(ToString::to_string)
        .filter(|p| p.contains("is in group"))
        .collect();
    assert_eq!(overlaps.len(), groups + 1);
    assert_eq!(
        overlaps[0],
        "group #1 (type 4, id 1): field `start_layer` and num_layers = 0..+2009: layer #0 is in \
         group #0 too"
    );
    // Each layer belongs to the last group, as in DDNet, and is dumped once, under it.
    let last = map.refs::<Group>().last().unwrap();
    assert!(map.refs::<Layer>().all(|l| map.group_of(l) == Some(last)));
    let json: Value = serde_json::from_str(&dump::to_string(|out| {
        dump::map_json(&map, DumpOptions::default(), out)
    }))
    .unwrap();
    let dumped: usize = json["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["layers"].as_array().unwrap().len())
        .sum();
    assert_eq!(dumped, 9 + layers);
    assert_eq!(
        json["groups"][groups + 1]["layers"]
            .as_array()
            .unwrap()
            .len(),
        9 + layers
    );
}

#[test]
fn many_automappers_of_one_layer() {
    // The sample's auto-mapper (group 1, layer 1: layer #3) and 5000 more like it.
    let mut writer = sample_writer();
    copies(&mut writer, (0xFFFD, 0), 5000, 1, |_| {});
    let bytes = writer.to_vec().unwrap();
    let map = Map::parse(&bytes).unwrap();
    assert_eq!(map.automappers().len(), 5001);
    let layer = map.refs::<Layer>().nth(3).unwrap();
    assert_eq!(map.automapper_of(layer).unwrap().id(), 0);
    assert!(map
        .automappers()
        .iter()
        .all(|a| a.layer(&map) == Some(layer)));
    // Written back as read, the 5001 UUID items under one type id.
    assert_eq!(map.to_bytes().unwrap(), bytes);
}

#[test]
fn thousands_of_items_too_short_are_named_by_their_place() {
    let mut writer = sample_writer();
    for id in 0..30_000u16 {
        writer.add_item(2, 100 + id, vec![1]);
    }
    let map = Map::parse(&writer.to_vec().unwrap()).unwrap();
    let short: Vec<String> = map
        .problems()
        .iter()
        .map(ToString::to_string)
        .filter(|p| p.contains("too short"))
        .collect();
    assert_eq!(short.len(), 30_000);
    assert!(
        short[29_999].starts_with("image #30001 (type 2, id 30099): is too short"),
        "{}",
        short[29_999]
    );
}

#[test]
fn images_sharing_a_long_name_and_data_dump_it_once() {
    // 1000 images more, all embedded, sharing the sample's second image's pixels and one
    // name of 1 MiB.
    let mut writer = sample_writer();
    let name = writer.add_data([vec![b'n'; 1 << 20], vec![0]].concat()) as i32;
    copies(&mut writer, (2, 1), 1000, 100, |ints| ints[4] = name);
    let map = Map::parse(&writer.to_vec().unwrap()).unwrap();
    let text = dump::to_string(|out| dump::map_json(&map, DumpOptions::default(), out));
    assert!(text.len() < 2 << 20, "{} bytes", text.len());
    let json: Value = serde_json::from_str(&text).unwrap();
    let shown = json["images"][2]["name_text"].as_str().unwrap();
    assert_eq!(shown, format!("{}... (1048576 bytes)", "n".repeat(256)));
    assert_eq!(json["images"][1001]["pixels"], json["images"][1]["pixels"]);
}
