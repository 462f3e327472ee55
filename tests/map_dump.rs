//! Reviewable dumps of whole maps: the generated sample (every feature) in both forms, and a
//! handful of small corpus maps.

mod common;

use common::*;
use twcodec::dump::{map_json, map_text, DumpOptions};
use twcodec::{Map, MapForm};

const PREVIEW: DumpOptions = DumpOptions { preview: true };

#[test]
fn the_sample_map_in_both_forms() {
    let mut map = twcodec::sample::map().unwrap();
    insta_settings().bind(|| {
        insta::assert_snapshot!("dump_sample_ddnet", map_text(&map, PREVIEW));
        insta::assert_snapshot!("dump_sample_json", map_json(&map, DumpOptions::default()));
    });
    map.convert(MapForm::Teeworlds07).unwrap();
    let seven = Map::parse(&map.to_bytes().unwrap()).unwrap();
    insta_settings().bind(|| {
        insta::assert_snapshot!(
            "dump_sample_teeworlds_07",
            map_text(&seven, DumpOptions::default())
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
            insta::assert_snapshot!(snapshot, map_text(&map, PREVIEW));
        }
    });
}

#[test]
fn json_is_the_same_tree_as_text() {
    let map = twcodec::sample::map().unwrap();
    let json: serde_json::Value = serde_json::from_str(&map_json(&map, PREVIEW)).unwrap();
    assert_eq!(json["groups"][1]["layers"][0]["kind"], "game");
    assert_eq!(json["groups"][1]["layers"][0]["tiles"]["size"], "12x8");
    assert_eq!(json["envelopes"][2]["points"].as_array().unwrap().len(), 6);
    assert_eq!(json["info"]["author_text"], "twcodec");
    assert_eq!(json["game_layer_preview"].as_array().unwrap().len(), 8);
}
