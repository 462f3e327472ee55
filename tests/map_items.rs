//! Map items: every item of every corpus map decodes as its type and re-encodes to the same
//! ints; the census of kinds and layouts is reviewed; generated fixtures show every type and
//! version, including those no corpus map has.

mod common;

use std::collections::BTreeMap;

use common::*;
use twcodec::items::{decode_item, decode_items, item_kind};
use twcodec::schema::map::envelope::EnvPointsItem;
use twcodec::schema::map::layer::{LayerBody, PhysicsData, PhysicsKind, TilemapLayer};
use twcodec::schema::map::tile::{
    cast_tiles, expand_skip, grid_len, LegacyTile, OldSpeedup, OldSwitch2, Speedup, Switch, Tele,
    Tile, Tune,
};
use twcodec::schema::map::{MapItem, MapItemKind};
use twcodec::Datafile;
use twcodec_tools::dump;

/// A short description of an item's layout, for the census.
fn layout(item: &MapItem, ints: usize) -> String {
    let tail = |tail: &[i32]| {
        if tail.is_empty() {
            String::new()
        } else {
            format!(" +{} unknown ints", tail.len())
        }
    };
    match item {
        MapItem::Version(i) => format!("version v{}{}", i.version, tail(&i.unknown_tail)),
        MapItem::Info(i) => format!(
            "info v{} {}{}",
            i.version,
            if i.settings.is_some() {
                "with settings"
            } else {
                "without settings"
            },
            tail(&i.unknown_tail)
        ),
        MapItem::Image(i) => format!(
            "image v{} {} format {:?}{}",
            i.version,
            if i.external == 1 {
                "external"
            } else {
                "embedded"
            },
            i.format,
            tail(&i.unknown_tail)
        ),
        MapItem::Envelope(i) => format!(
            "envelope v{} {:?}{}{}",
            i.version,
            i.kind(),
            if i.name.is_some() {
                ""
            } else {
                " without name"
            },
            tail(&i.unknown_tail)
        ),
        MapItem::EnvPoints(EnvPointsItem::Points { unknown_tail, .. }) => {
            format!("envpoints 6 ints{}", tail(unknown_tail))
        }
        MapItem::EnvPoints(EnvPointsItem::Points22 { unknown_tail, .. }) => {
            format!("envpoints 22 ints{}", tail(unknown_tail))
        }
        MapItem::Group(i) => format!("group v{}{}", i.version, tail(&i.unknown_tail)),
        MapItem::Layer(layer) => match &layer.body {
            LayerBody::Tilemap(t) => {
                let physics = physics_prefix(&t.physics);
                format!(
                    "layer tilemap v{} {} ints, {:?}{}{}",
                    t.version,
                    ints,
                    t.flags.kind(),
                    if physics > 0 {
                        format!(", {physics} physics indices")
                    } else {
                        String::new()
                    },
                    tail(&t.unknown_tail)
                )
            }
            LayerBody::Quads(q) => format!("layer quads v{}{}", q.version, tail(&q.unknown_tail)),
            LayerBody::Sounds(s) => format!("layer sounds v{}{}", s.version, tail(&s.unknown_tail)),
            LayerBody::DeprecatedSounds(s) => format!("layer deprecated sounds v{}", s.version),
            _ => format!("layer of unknown type {}", layer.header.kind),
        },
        MapItem::Sound(i) => format!("sound v{}", i.version),
        MapItem::Automapper(i) => format!("automapper v{}", i.version),
        MapItem::GroupEx(i) => format!("group ex v{}", i.version),
        MapItem::LegacyEntity(e) => format!("0.3 entity with {} data ints", e.data.len()),
        MapItem::LegacyTilemap(t) => format!("0.3 tilemap main {}", t.main),
        // Every other kind, and any kind registered later, by its registry name.
        other => other.kind().name().to_string(),
    }
}

fn physics_prefix(physics: &PhysicsData) -> usize {
    [
        physics.tele,
        physics.speedup,
        physics.front,
        physics.switch,
        physics.tune,
    ]
    .iter()
    .take_while(|index| index.is_some())
    .count()
}

#[test]
fn every_corpus_item_decodes_and_reencodes_identically() {
    let Some(maps) = corpus_maps() else { return };
    // layout -> (items, maps)
    let mut census: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for path in &maps {
        let map = path.file_name().unwrap().to_string_lossy();
        let df = Datafile::open(path).unwrap();
        let mut seen_here = std::collections::BTreeSet::new();
        for (index, decoded) in decode_items(&df).into_iter().enumerate() {
            let raw = &df.items()[index];
            let decoded = decoded.unwrap_or_else(|e| panic!("{map}: {e}"));
            assert_eq!(
                decoded.kind(),
                item_kind(&df, raw.type_id()),
                "{map}: item #{index} decodes as its type"
            );
            assert_eq!(
                decoded.encode().unwrap(),
                raw.data,
                "{map}: item #{index} re-encodes to the same ints"
            );
            let key = format!("{:?}: {}", decoded.kind(), layout(&decoded, raw.data.len()));
            let entry = census.entry(key.clone()).or_default();
            entry.0 += 1;
            if seen_here.insert(key) {
                entry.1 += 1;
            }
        }
    }
    let report: String = census
        .iter()
        .map(|(key, (items, maps))| format!("{key}: {items} items in {maps} maps\n"))
        .collect();
    insta_settings().bind(|| insta::assert_snapshot!("map_items_corpus_census", report));
}

#[test]
fn corpus_layouts_named_by_the_manifest() {
    // MANIFEST.md and the research notes name these maps for these layouts.
    let Some(bytes) = corpus_map("ddrace_Test_old_tile_layouts.map") else {
        return;
    };
    let df = Datafile::parse(&bytes).unwrap();
    let context = twcodec::items::decode_context(&df);
    let layers: Vec<_> = df
        .items()
        .iter()
        .enumerate()
        .filter(|(_, item)| item.type_id() == 5)
        .map(|(index, _)| decode_item(&df, index, context).unwrap())
        .collect();
    for layer in &layers {
        let MapItem::Layer(layer) = layer else {
            unreachable!()
        };
        let LayerBody::Tilemap(t) = &layer.body else {
            continue;
        };
        // Version 2 with tele, speedup, front, switch right after data.
        assert_eq!(t.version, 2);
        assert_eq!(
            (
                t.physics.tele,
                t.physics.speedup,
                t.physics.front,
                t.physics.switch,
                t.physics.tune
            ),
            (Some(11), Some(9), Some(13), Some(5), None)
        );
    }

    // A Teeworlds 0.3 map: 2-byte tiles, a 1-byte collision map, RGBA images.
    let Some(bytes) = corpus_map("legacy03_ctf1_old.map") else {
        return;
    };
    let df = Datafile::parse(&bytes).unwrap();
    assert!(twcodec::items::is_legacy(&df));
    let data_len = |index: i32| df.data(index as usize).unwrap().len();
    for item in decode_items(&df) {
        match item.unwrap() {
            MapItem::LegacyTilemap(t) => {
                let data = df.data(t.data as usize).unwrap();
                let tiles = cast_tiles::<LegacyTile>(&data).unwrap();
                assert_eq!(tiles.len(), (t.width * t.height) as usize);
            }
            MapItem::LegacyCollision(c) => {
                assert_eq!(data_len(c.data), (c.width * c.height) as usize);
            }
            MapItem::LegacyImage(i) => {
                assert_eq!(data_len(i.data), (i.width * i.height * 4) as usize);
            }
            MapItem::LegacyEntity(_) => {}
            other => panic!("not a 0.3 item: {other:?}"),
        }
    }

    let Some(bytes) = corpus_map("tw07dev2018_ctf8_bad_curvetypes.map") else {
        return;
    };
    let df = Datafile::parse(&bytes).unwrap();
    assert!(twcodec::items::decode_context(&df).bezier_points);
    let points = decode_items(&df)
        .into_iter()
        .find_map(|item| match item.unwrap() {
            MapItem::EnvPoints(points) => Some(points),
            _ => None,
        })
        .unwrap();
    let curves: std::collections::BTreeSet<i32> = (0..points.len())
        .map(|i| points.point(i).unwrap().curve_type)
        .collect();
    assert!(
        curves.contains(&527) && curves.contains(&2752512),
        "{curves:?}"
    );
}

#[test]
fn generated_items_of_every_type_and_version() {
    insta_settings().bind(|| {
        for (name, teeworlds_07) in [("ddnet", false), ("teeworlds_07", true)] {
            let bytes = every_item_writer(teeworlds_07).to_vec().unwrap();
            let df = Datafile::parse(&bytes).unwrap();
            for (index, decoded) in decode_items(&df).into_iter().enumerate() {
                let decoded = decoded.unwrap();
                assert_eq!(decoded.encode().unwrap(), df.items()[index].data);
            }
            insta::assert_snapshot!(
                format!("map_items_every_kind_{name}"),
                dump::to_string(|out| dump::decoded_items(&df, None, out))
            );
        }
    });
}

#[test]
fn every_kind_appears_in_the_generated_fixtures() {
    let mut kinds = std::collections::BTreeSet::new();
    for teeworlds_07 in [false, true] {
        let df = Datafile::parse(&every_item_writer(teeworlds_07).to_vec().unwrap()).unwrap();
        for item in decode_items(&df) {
            kinds.insert(format!("{:?}", item.unwrap().kind()));
        }
    }
    for kind in MapItemKind::NUMBERED.iter().chain(MapItemKind::WITH_UUID) {
        assert!(kinds.contains(&format!("{kind:?}")), "{kind:?} missing");
    }
    assert!(kinds.contains("Unknown"));
}

#[test]
fn a_broken_item_reports_item_and_offset() {
    let mut w = twcodec::DatafileWriter::new();
    w.add_item(0, 0, vec![1]);
    w.add_item(5, 3, vec![0, 2, 0, 3, 50]); // a tilemap cut after its width
    let df = Datafile::parse(&w.to_vec().unwrap()).unwrap();
    let error = decode_items(&df).remove(1).unwrap_err();
    let item_start = df.item_offset(1).unwrap();
    assert_eq!(
        error.location(),
        Some(twcodec::Location::Item {
            index: 1,
            type_id: 5,
            id: 3
        })
    );
    assert_eq!(
        error.to_string(),
        format!(
            "item #1 (type 5, id 3): the input ends inside the layer item (at byte {:#x})",
            item_start + 8
        )
    );
}

/// How one tilemap's own tiles decode: the tile type by physics kind, from the data index the
/// kind uses; old layouts by their size; 0.7 layers expanded. `Err` says why not.
fn decode_tile_layer(df: &Datafile, t: &TilemapLayer) -> Result<String, String> {
    let count = grid_len(t.width, t.height).map_err(|e| e.to_string())?;
    let kind = t.flags.kind();
    let index = t.tile_data().ok_or("no data index for its kind")?;
    let data = usize::try_from(index)
        .ok()
        .and_then(|i| df.data(i).ok())
        .ok_or_else(|| format!("data index {index} does not load"))?;
    let len = data.len();
    let exact = |size: usize, name: &str| -> Result<String, String> {
        if len == count * size {
            Ok(name.to_string())
        } else {
            Err(format!("{len} bytes for {count} {name} tiles"))
        }
    };
    match kind {
        PhysicsKind::Tiles | PhysicsKind::Game | PhysicsKind::Front if t.uses_tile_skip() => {
            let compressed = cast_tiles::<Tile>(&data).map_err(|e| e.to_string())?;
            let tiles = expand_skip(compressed, count).map_err(|e| e.to_string())?;
            assert_eq!(tiles.len(), count);
            Ok(format!(
                "Tile, 0.7 skip ({} entries)",
                if compressed.len() < count {
                    "fewer"
                } else {
                    "as many"
                }
            ))
        }
        PhysicsKind::Tiles | PhysicsKind::Game | PhysicsKind::Front => {
            cast_tiles::<Tile>(&data).map_err(|e| e.to_string())?;
            exact(4, "Tile")
        }
        PhysicsKind::Tele => {
            cast_tiles::<Tele>(&data).map_err(|e| e.to_string())?;
            exact(2, "Tele")
        }
        PhysicsKind::Tune => {
            cast_tiles::<Tune>(&data).map_err(|e| e.to_string())?;
            exact(2, "Tune")
        }
        PhysicsKind::Speedup if len == count * 4 => {
            let old = cast_tiles::<OldSpeedup>(&data).map_err(|e| e.to_string())?;
            assert!(old.iter().all(|tile| tile.reserved == 0));
            Ok("OldSpeedup (4 bytes)".to_string())
        }
        PhysicsKind::Speedup => {
            cast_tiles::<Speedup>(&data).map_err(|e| e.to_string())?;
            exact(6, "Speedup")
        }
        PhysicsKind::Switch if len == count * 2 => {
            cast_tiles::<OldSwitch2>(&data).map_err(|e| e.to_string())?;
            Ok("OldSwitch2 (2 bytes)".to_string())
        }
        PhysicsKind::Switch => {
            cast_tiles::<Switch>(&data).map_err(|e| e.to_string())?;
            exact(4, "Switch")
        }
        PhysicsKind::Several => Err("several physics flags".to_string()),
    }
}

#[test]
fn every_corpus_tile_layer_decodes_by_casting() {
    let Some(maps) = corpus_maps() else { return };
    let mut census: BTreeMap<String, usize> = BTreeMap::new();
    for path in &maps {
        let map = path.file_name().unwrap().to_string_lossy().into_owned();
        let df = Datafile::open(path).unwrap();
        for decoded in decode_items(&df) {
            let Ok(MapItem::Layer(layer)) = decoded else {
                continue;
            };
            let LayerBody::Tilemap(t) = &layer.body else {
                continue;
            };
            let line = match decode_tile_layer(&df, t) {
                Ok(how) => format!("{:?} v{}: {how}", t.flags.kind(), t.version.min(4)),
                Err(why) => format!(
                    "{map}: {:?} v{}: cannot decode: {why}",
                    t.flags.kind(),
                    t.version
                ),
            };
            *census.entry(line).or_default() += 1;
        }
    }
    let report: String = census
        .iter()
        .map(|(line, count)| format!("{line}: {count} layers\n"))
        .collect();
    insta_settings().bind(|| insta::assert_snapshot!("map_items_corpus_tile_layers", report));
}
