//! Reviewable dumps of whole maps: the generated sample (every feature) in both forms, and a
//! handful of small corpus maps.

mod common;

use common::*;
use twcodec::{Map, MapForm};
use twcodec_tools::dump::{self, DumpOptions};

fn preview() -> DumpOptions {
    DumpOptions::default().preview(true)
}

/// `twcodec dump` of a map.
fn text(map: &Map, options: DumpOptions) -> String {
    dump::to_string(|out| dump::map_text(map, options, out))
}

/// `twcodec dump --format json` of a map.
fn json(map: &Map, options: DumpOptions) -> String {
    dump::to_string(|out| dump::map_json(map, options, out))
}

#[test]
fn the_sample_map_in_both_forms() {
    let mut map = twcodec_testkit::sample::map().unwrap();
    insta_settings().bind(|| {
        insta::assert_snapshot!("dump_sample_ddnet", text(&map, preview()));
        insta::assert_snapshot!("dump_sample_json", json(&map, DumpOptions::default()));
    });
    map.convert(MapForm::Teeworlds07).unwrap();
    let seven = Map::parse(&map.to_bytes().unwrap()).unwrap();
    insta_settings().bind(|| {
        insta::assert_snapshot!(
            "dump_sample_teeworlds_07",
            text(&seven, DumpOptions::default())
        );
    });
}

#[test]
fn small_corpus_maps() {
    let maps = [
        "tinycave_1094b.map",
        "kog_tiny_finishable.map",
        "tw06_stock_dm1.map",
        "tw07dev2018_dm1_envv3.map",
        "ddnet_coverage.map",
    ];
    insta_settings().bind(|| {
        for name in maps {
            let Some(bytes) = corpus_map(name) else {
                return;
            };
            let map = Map::parse(&bytes).unwrap();
            let snapshot = format!("dump_corpus_{}", name.trim_end_matches(".map"));
            insta::assert_snapshot!(snapshot, text(&map, preview()));
        }
    });
}

#[test]
fn json_is_the_same_tree_as_text() {
    let map = twcodec_testkit::sample::map().unwrap();
    let json: serde_json::Value = serde_json::from_str(&json(&map, preview())).unwrap();
    assert_eq!(json["groups"][1]["layers"][0]["kind"], "game");
    assert_eq!(json["groups"][1]["layers"][0]["tiles"]["size"], "12x8");
    assert_eq!(json["envelopes"][2]["points"].as_array().unwrap().len(), 6);
    assert_eq!(json["info"]["author_text"], "twcodec");
    assert_eq!(json["game_layer_preview"].as_array().unwrap().len(), 8);
}

#[test]
fn the_view_serializes_to_any_serde_format() {
    // The JSON a caller makes of the view is the JSON the dump prints (pretty and compact are
    // the same tree).
    let map = twcodec_testkit::sample::map().unwrap();
    let view = dump::MapView::new(&map, preview());
    let value = serde_json::to_value(&view).unwrap();
    let printed: serde_json::Value = serde_json::from_str(&json(&map, preview())).unwrap();
    assert_eq!(value, printed);
    assert_eq!(
        value["info"]["settings_text"],
        serde_json::json!(["sv_team 1", "tune_zone 1 gravity 0.3"])
    );
}

/// Items of registered types that the map graph has no arena for (DDNet's test item, and any
/// type added to the schema's registry later) are shown decoded, by the registry alone;
/// unknown types stay ints.
#[test]
fn items_the_graph_does_not_model_are_shown_decoded_when_registered() {
    let bytes = every_item_writer(false).to_vec().unwrap();
    let map = Map::parse(&bytes).unwrap();
    let dump = text(&map, DumpOptions::default());
    let others = &dump[dump.find("other_items:").unwrap()..];
    let others = &others[..others.find("\nproblems:").unwrap_or(others.len())];
    insta_settings().bind(|| insta::assert_snapshot!("dump_other_items", others));
    let json = json(&map, DumpOptions::default());
    assert!(json.contains(r#""kind": "test""#), "{json}");
}
