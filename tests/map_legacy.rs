//! Teeworlds 0.3 maps load upgraded to the 0.4+ map model (docs/format-notes.md, "Teeworlds 0.3
//! maps"): the corpus map and crafted ones. The expected game tiles come from the game's rules
//! as that section states them (entity tile = 191 + the 0.4 entity number, at pixel / 32;
//! solid = 1), not from the upgrade's output.

mod common;

use common::*;
use twcodec::map::{DataItem, Layer, LayerContent, Severity};
use twcodec::schema::map::tile::Tile;
use twcodec::schema::map::MapItem;
use twcodec::{Datafile, DatafileWriter, ErrorKind, Limits, Map, MapForm};
use twcodec_tools::dump::{self, DumpOptions};

const IMAGE: u16 = 0x8001;
const TILEMAP: u16 = 0x8002;
const COLLISION: u16 = 0x8003;
const THEME: u16 = 0x8fff;

/// 0.4+ game layer tiles: solid, and 191 (`ENTITY_OFFSET`) plus the entity number.
const SOLID: u8 = 1;
const SPAWN: u8 = 192;
const SPAWN_RED: u8 = 193;
const SPAWN_BLUE: u8 = 194;
const FLAG_RED: u8 = 195;
const FLAG_BLUE: u8 = 196;
const ARMOR: u8 = 197;
const HEALTH: u8 = 198;
const SHOTGUN: u8 = 199;
const GRENADE: u8 = 200;
const NINJA: u8 = 201;

/// 0.3 pickup kinds (the data int of a type-2 entity).
const P_GUN: i32 = 0x0001_0001;
const P_SHOTGUN: i32 = 0x0001_0002;
const P_ROCKET: i32 = 0x0001_0003;
const P_SNIPER: i32 = 0x0001_0004;
const P_HAMMER: i32 = 0x0001_0005;
const P_HEALTH: i32 = 0x0002_0001;
const P_ARMOR: i32 = 0x0003_0001;
const P_NINJA: i32 = 0x0004_0001;

/// The game tile a 0.3 entity of item type `type_id` becomes, by the rules of the 0.4 editor's
/// conversion and the 0.3 server (which entities it spawned).
fn expected_entity(type_id: u16, data: &[i32]) -> Option<u8> {
    match (type_id, data.first()) {
        (1, _) => Some(SPAWN),
        (3, _) => Some(SPAWN_RED),
        (4, _) => Some(SPAWN_BLUE),
        (5, _) => Some(FLAG_RED),
        (6, _) => Some(FLAG_BLUE),
        (2, Some(&P_HEALTH)) => Some(HEALTH),
        (2, Some(&P_ARMOR)) => Some(ARMOR),
        (2, Some(&P_SHOTGUN)) => Some(SHOTGUN),
        (2, Some(&P_ROCKET)) => Some(GRENADE),
        (2, Some(&P_NINJA)) => Some(NINJA),
        _ => None,
    }
}

fn game_tiles(map: &Map) -> (usize, usize, Vec<Tile>) {
    let (_, game) = map.game_layer().expect("a game layer");
    let grid = game.grid().expect("game tiles");
    (grid.width(), grid.height(), grid.tiles().to_vec())
}

fn tiles_of(layer: &Layer) -> Vec<Tile> {
    match layer.content() {
        LayerContent::Tiles(t) | LayerContent::Game(t) => t.grid().unwrap().tiles().to_vec(),
        other => panic!("not a tile layer: {other:?}"),
    }
}

fn report(map: &Map) -> String {
    let mut out = format!("{:?}\n", map.form());
    for problem in map.problems() {
        out.push_str(&format!("{:?}: {problem}\n", problem.severity));
    }
    out
}

fn errors(map: &Map) -> Vec<String> {
    (map.problems().iter())
        .filter(|p| p.severity == Severity::Error)
        .map(|p| p.to_string())
        .collect()
}

#[test]
fn the_corpus_map_upgrades() {
    let Some(bytes) = corpus_map("legacy03_ctf1_old.map") else {
        return;
    };
    let df = Datafile::parse(&bytes).unwrap();
    let map = Map::from_datafile(&df).unwrap();
    assert_eq!(map.form(), MapForm::Teeworlds03);
    assert_eq!(errors(&map), Vec::<String>::new(), "upgrades cleanly");
    assert!(map.other_items().is_empty(), "every 0.3 item is modelled");
    assert_eq!(map.version(), Some(1));
    assert_eq!(map.images().len(), df.items_of_type(IMAGE).len());
    assert_eq!(map.groups().len(), 1);
    // Six tilemaps and the game layer.
    assert_eq!(map.layers().len(), df.items_of_type(TILEMAP).len() + 1);
    assert_eq!(map.groups()[0].layers(&map).count(), map.layers().len());

    let decoded: Vec<MapItem> = twcodec::items::decode_items(&df)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let items = df.items();

    // The game layer is the collision map: a non-zero byte is solid.
    let collision = decoded
        .iter()
        .find_map(|item| match item {
            MapItem::LegacyCollision(c) => Some(c.clone()),
            _ => None,
        })
        .unwrap();
    let (width, height, game) = game_tiles(&map);
    assert_eq!((width, height), (70, 50));
    assert_eq!(
        (width, height),
        (collision.width as usize, collision.height as usize)
    );
    let solid = df.data(collision.data as usize).unwrap();

    // Entities on the tile holding their pixel position.
    let mut entity_tiles = std::collections::HashMap::new();
    for (item, decoded) in items.iter().zip(&decoded) {
        if let MapItem::LegacyEntity(entity) = decoded {
            let (x, y) = ((entity.x / 32) as usize, (entity.y / 32) as usize);
            let expected = expected_entity(item.type_id(), &entity.data).unwrap();
            entity_tiles.insert(y * width + x, expected);
        }
    }
    assert_eq!(entity_tiles.len(), 38, "4 + 4 spawns, 2 flags, 28 pickups");
    for (at, tile) in game.iter().enumerate() {
        let expected = match entity_tiles.get(&at) {
            Some(&entity) => entity,
            None if solid[at] != 0 => SOLID,
            None => 0,
        };
        assert_eq!(
            tile.id,
            expected,
            "game tile ({}, {})",
            at % width,
            at / width
        );
        assert_eq!((tile.flags, tile.skip, tile.reserved), (0, 0, 0));
    }
    // Two read off the item list by hand: the red flag stand (type 5) at pixel (464, 432) and
    // the first pickup, health (0x20001) at (112, 112).
    assert_eq!(game[13 * width + 14].id, FLAG_RED);
    assert_eq!(game[3 * width + 3].id, HEALTH);

    // The tilemaps in file order, the game layer before the main one (0.3 tilemap #2); the
    // others are detail layers; tiles keep index and flags.
    let tilemaps: Vec<_> = decoded
        .iter()
        .filter_map(|item| match item {
            MapItem::LegacyTilemap(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    let layers = map.layers();
    assert!(matches!(layers[2].content(), LayerContent::Game(_)));
    let tile_layers: Vec<&Layer> = (layers.iter())
        .filter(|l| matches!(l.content(), LayerContent::Tiles(_)))
        .collect();
    assert_eq!(tile_layers.len(), tilemaps.len());
    for (layer, tilemap) in tile_layers.iter().zip(&tilemaps) {
        assert_eq!(layer.is_detail(), tilemap.main == 0);
        assert_eq!(layer.tilemap().unwrap().image, tilemap.image);
        let old = df.data(tilemap.data as usize).unwrap();
        let upgraded: Vec<(u8, u8)> = tiles_of(layer).iter().map(|t| (t.id, t.flags)).collect();
        let expected: Vec<(u8, u8)> = old.chunks(2).map(|t| (t[0], t[1])).collect();
        assert_eq!(upgraded, expected);
    }
    assert_eq!(layers[3].name(), "Main 2");

    // Images: the same pixels.
    let images: Vec<_> = decoded
        .iter()
        .filter_map(|item| match item {
            MapItem::LegacyImage(i) => Some(i.clone()),
            _ => None,
        })
        .collect();
    for (image, old) in map.images().iter().zip(&images) {
        assert!(!image.is_external());
        let pixels = image.pixels(&map).unwrap();
        assert_eq!((pixels.width, pixels.height), (1024, 1024));
        assert_eq!(pixels.bytes_per_pixel, 4);
        assert!(pixels.bytes[..] == df.data(old.data as usize).unwrap()[..]);
    }
    assert_eq!(
        map.images()[1].name(&map).as_deref(),
        Some("legacy_image_1")
    );

    // The original items stay reachable.
    let original = map.legacy_datafile().unwrap();
    assert_eq!(original.items(), df.items());
    assert!(Map::open_with(
        corpus_dir().unwrap().join("maps/legacy03_ctf1_old.map"),
        twcodec::LoadMode::Strict
    )
    .is_ok());
}

#[test]
fn the_corpus_map_writes_back_unchanged_and_converts() {
    let Some(bytes) = corpus_map("legacy03_ctf1_old.map") else {
        return;
    };
    let map = Map::parse(&bytes).unwrap();
    assert!(map.to_bytes().unwrap() == bytes, "byte-identical");
    let (width, height, game) = game_tiles(&map);

    for form in [MapForm::Ddnet, MapForm::Teeworlds07] {
        let mut converted = map.clone();
        converted.convert(form).unwrap();
        let written = converted.to_bytes().unwrap();
        let again = Map::parse(&written).unwrap();
        assert_eq!(again.form(), form);
        assert_eq!(again.problems(), &[], "{form:?}");
        assert_eq!(
            game_tiles(&again),
            (width, height, game.clone()),
            "{form:?}"
        );
        for (a, b) in again.layers().iter().zip(map.layers()) {
            assert_eq!(tiles_of(a), tiles_of(b), "{form:?}");
            assert_eq!(a.is_detail(), b.is_detail());
        }
        for (a, b) in again.images().iter().zip(map.images()) {
            assert!(a.pixels(&again).unwrap().bytes == b.pixels(&map).unwrap().bytes);
        }
    }
    assert!(map
        .clone()
        .convert(MapForm::Teeworlds03)
        .is_err_and(|e| e.kind() == ErrorKind::Unsupported));
}

#[test]
fn an_edited_0_3_map_writes_its_model() {
    // Edits must not be lost: once anything differs from the upgrade, the model is written
    // (DDNet form) instead of the original file.
    let Some(bytes) = corpus_map("legacy03_ctf1_old.map") else {
        return;
    };
    let mut map = Map::parse(&bytes).unwrap();
    let (game, _) = map.game_layer().unwrap();
    if let LayerContent::Game(tiles) = map.layer_mut(game).unwrap().content_mut() {
        tiles.grid_mut().unwrap().get_mut(5, 5).unwrap().id = SPAWN;
    }
    let written = map.to_bytes().unwrap();
    assert!(written != bytes);
    let again = Map::parse(&written).unwrap();
    assert_eq!(again.form(), MapForm::Ddnet);
    assert_eq!(again.problems(), &[]);
    let (width, _, tiles) = game_tiles(&again);
    assert_eq!(tiles[5 * width + 5].id, SPAWN);
    assert_eq!(again.layers().len(), map.layers().len());

    // A changed data item (an image's name) shows too.
    let mut map = Map::parse(&bytes).unwrap();
    let name = map.images()[0].item().name;
    let name = map.item_ref::<DataItem>(name).get().unwrap();
    map.set_data(name, &b"grass_main\0"[..]).unwrap();
    let again = Map::parse(&map.to_bytes().unwrap()).unwrap();
    assert_eq!(
        again.images()[0].name(&again).as_deref(),
        Some("grass_main")
    );
}

/// Items as (type, id, ints).
type Items = Vec<(u16, u16, Vec<i32>)>;

/// A Teeworlds 0.3 map file from its items and data items.
fn legacy_file(items: &[(u16, u16, Vec<i32>)], data: &[Vec<u8>]) -> Vec<u8> {
    let mut writer = DatafileWriter::new();
    for bytes in data {
        writer.add_data(bytes.clone());
    }
    for (type_id, id, ints) in items {
        writer.add_item(*type_id, *id, ints.clone());
    }
    writer.to_vec().unwrap()
}

const W: usize = 8;
const H: usize = 6;

/// Pixel position of the center of tile (x, y).
fn center(x: i32, y: i32) -> Vec<i32> {
    vec![x * 32 + 16, y * 32 + 16]
}

fn with(mut ints: Vec<i32>, more: &[i32]) -> Vec<i32> {
    ints.extend_from_slice(more);
    ints
}

/// The crafted map's parts: an 8x6 map with a closed solid border (and a solid byte 7 at
/// (3, 4)), one 2x2 image, a detail, a main and a second detail tilemap, every entity kind and
/// the cases that do not carry over, theme 1 and an item of an unknown type.
fn crafted() -> (Items, Vec<Vec<u8>>) {
    let pixels: Vec<u8> = (0..16).collect();
    let mut main = vec![0u8; W * H * 2];
    let mut collision = vec![0u8; W * H];
    for y in 0..H {
        for x in 0..W {
            if x == 0 || y == 0 || x == W - 1 || y == H - 1 {
                main[(y * W + x) * 2] = 1;
                collision[y * W + x] = 1;
            }
        }
    }
    collision[4 * W + 3] = 7;
    main[(4 * W + 3) * 2] = 9;
    main[(4 * W + 1) * 2..][..2].copy_from_slice(&[5, 1]); // mirrored in x
    main[(4 * W + 2) * 2..][..2].copy_from_slice(&[6, 2]); // mirrored in y
    main[(4 * W + 3) * 2 + 1] = 0x0A; // y mirror and the rotation bit 0.3 did not know
    let mut detail = vec![0u8; W * H * 2];
    detail[(2 * W + 2) * 2] = 17;
    let data = vec![pixels, main, detail, collision];
    let (w, h) = (W as i32, H as i32);
    let items = vec![
        // spawns: at a tile center, off-center, left of the map, below the map
        (1, 0, center(1, 1)),
        (1, 1, vec![5 * 32 + 3, 3 * 32 + 30]),
        (1, 2, vec![-5, 48]),
        (1, 3, center(1, 6)),
        // pickups: the five kinds 0.4+ maps hold, then those they do not
        (2, 0, with(center(1, 2), &[P_HEALTH])),
        (2, 1, with(center(2, 2), &[P_ARMOR])),
        (2, 2, with(center(3, 2), &[P_SHOTGUN])),
        (2, 3, with(center(4, 2), &[P_ROCKET])),
        (2, 4, with(center(5, 2), &[P_NINJA])),
        (2, 5, with(center(6, 2), &[P_GUN])),
        (2, 6, with(center(1, 3), &[P_HAMMER])),
        (2, 7, with(center(2, 3), &[P_SNIPER])),
        (2, 8, with(center(3, 3), &[0x0005_0001])),
        (2, 9, center(4, 3)),
        // a health pickup on the solid byte 7
        (2, 10, with(center(3, 4), &[P_HEALTH])),
        // team spawns; the second pair shares tile (6, 3): the blue one (later type) wins
        (3, 0, center(2, 1)),
        (3, 1, center(6, 3)),
        (4, 0, center(3, 1)),
        (4, 1, center(6, 3)),
        // flag stands: the server read the one with id 0
        (5, 0, center(4, 1)),
        (5, 1, center(5, 1)),
        (6, 0, center(6, 1)),
        (IMAGE, 0, vec![2, 2, 0]),
        (TILEMAP, 0, vec![0, w, h, 0, 0, 65536, 2, 0]),
        (TILEMAP, 1, vec![0, w, h, 0, 0, 65536, 1, 1]),
        (TILEMAP, 2, vec![5, w, h, 32, 0, 65536, 2, 0]),
        (COLLISION, 0, vec![w, h, 3]),
        (THEME, 0, vec![1]),
        (0x8004, 0, vec![1, 2, 3]),
    ];
    (items, data)
}

#[test]
fn a_crafted_map_with_every_entity_kind() {
    let (items, data) = crafted();
    let bytes = legacy_file(&items, &data);
    let map = Map::parse(&bytes).unwrap();
    assert_eq!(map.form(), MapForm::Teeworlds03);
    // The one error: a pickup item too short to hold its kind.
    let errors = errors(&map);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].starts_with("0.3 entity #9 (type 2, id 9): field `data` is empty"));

    let (width, height, game) = game_tiles(&map);
    assert_eq!((width, height), (W, H));
    let at = |x: usize, y: usize| game[y * W + x].id;
    let expected = [
        ((1, 1), SPAWN),
        ((5, 3), SPAWN), // moved to the center of the tile holding (163, 126)
        ((1, 2), HEALTH),
        ((2, 2), ARMOR),
        ((3, 2), SHOTGUN),
        ((4, 2), GRENADE),
        ((5, 2), NINJA),
        ((6, 2), 0), // gun
        ((1, 3), 0), // hammer
        ((2, 3), 0), // sniper
        ((3, 3), 0), // unknown kind
        ((4, 3), 0), // no kind
        ((3, 4), HEALTH),
        ((2, 1), SPAWN_RED),
        ((6, 3), SPAWN_BLUE),
        ((3, 1), SPAWN_BLUE),
        ((4, 1), FLAG_RED),
        ((5, 1), 0), // a second red flag stand
        ((6, 1), FLAG_BLUE),
        ((0, 0), SOLID),
        ((7, 5), SOLID),
        ((0, 1), SOLID),
    ];
    for ((x, y), tile) in expected {
        assert_eq!(at(x, y), tile, "game tile ({x}, {y})");
    }
    let entities = game.iter().filter(|t| t.id > 191).count();
    assert_eq!(entities, 13);
    let solid = game.iter().filter(|t| t.id == SOLID).count();
    assert_eq!(
        solid,
        2 * W + 2 * (H - 2),
        "the border; (3, 4) holds the pickup"
    );

    // Layers: detail 0, the game layer, main 1, detail 2 (whose image 5 does not exist).
    let layers = map.layers();
    let names: Vec<String> = layers.iter().map(Layer::name).collect();
    assert_eq!(names, ["Detail 0", "Game", "Main 1", "Detail 2"]);
    let detail: Vec<bool> = layers.iter().map(Layer::is_detail).collect();
    assert_eq!(detail, [true, false, false, true]);
    assert_eq!(layers[3].tilemap().unwrap().image, -1);
    let main = tiles_of(&layers[2]);
    let tile = |x: usize, y: usize| (main[y * W + x].id, main[y * W + x].flags);
    assert_eq!(tile(0, 0), (1, 0));
    assert_eq!(tile(1, 4), (5, 1));
    assert_eq!(tile(2, 4), (6, 2));
    assert_eq!(tile(3, 4), (9, 2), "the unknown flag bit cleared");
    assert_eq!(tiles_of(&layers[0])[2 * W + 2].id, 17);

    let pixels = map.images()[0].pixels(&map).unwrap();
    assert_eq!((pixels.width, pixels.height), (2, 2));
    assert_eq!(&pixels.bytes[..], &data[0][..]);

    assert!(map.to_bytes().unwrap() == bytes, "byte-identical");
    insta_settings().bind(|| insta::assert_snapshot!("legacy_crafted_notes", report(&map)));
}

#[test]
fn open_edges_are_noted() {
    // A 4x3 map: the left edge has an air tile at (0, 1) and the top row air at (2, 0).
    let collision = vec![1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1];
    let items = vec![
        (1, 0, center(1, 1)),
        (TILEMAP, 0, vec![0, 4, 3, 0, 0, 65536, 0, 1]),
        (COLLISION, 0, vec![4, 3, 1]),
    ];
    let map = Map::parse(&legacy_file(&items, &[vec![0; 24], collision])).unwrap();
    let edge: Vec<String> = (map.problems().iter())
        .filter(|p| p.message.contains("edge"))
        .map(|p| p.to_string())
        .collect();
    assert_eq!(edge.len(), 1, "{edge:?}");
    assert!(edge[0].contains("1 air tiles on the left, right or bottom edge"));
    assert!(edge[0].contains("3 solid tiles on the top edge"));
    assert!(map.images().is_empty());
    assert_eq!(errors(&map), Vec::<String>::new());
}

#[test]
fn broken_0_3_maps_load_with_errors_and_never_panic() {
    let (items, data) = crafted();
    let replace = |type_id: u16, ints: Vec<i32>| {
        let mut items = items.clone();
        let item = items.iter_mut().find(|(t, _, _)| *t == type_id).unwrap();
        item.2 = ints;
        Map::parse(&legacy_file(&items, &data))
    };
    let first_error = |map: &Map| errors(map).first().cloned().unwrap_or_default();

    // No collision map (none with id 0): an all-air game layer the size of the main tilemap.
    let mut no_collision = items.clone();
    no_collision.retain(|(t, _, _)| *t != COLLISION);
    let map = Map::parse(&legacy_file(&no_collision, &data)).unwrap();
    assert!(first_error(&map).contains("no collision map with id 0"));
    let (w, h, game) = game_tiles(&map);
    assert_eq!((w, h), (W, H));
    assert!(game.iter().all(|t| t.id == 0 || t.id > 191));

    // Truncated items.
    let map = replace(COLLISION, vec![8]).unwrap();
    assert!(
        first_error(&map).contains("too short"),
        "{}",
        first_error(&map)
    );
    let map = replace(TILEMAP, vec![0, 8, 6]).unwrap();
    assert!(first_error(&map).contains("too short"));
    assert_eq!(map.layers().len(), 3);
    let map = replace(IMAGE, vec![2]).unwrap();
    assert!(first_error(&map).contains("written as an external image"));
    assert!(map.images()[0].is_external());
    let map = replace(1, vec![48]).unwrap();
    assert!(first_error(&map).contains("too short for its position"));

    // Missing and short data.
    let map = replace(COLLISION, vec![W as i32, H as i32, 99]).unwrap();
    assert!(first_error(&map).contains("names none of the 4 data items"));
    let map = replace(COLLISION, vec![W as i32 + 1, H as i32, 3]).unwrap();
    assert!(first_error(&map).contains("holds 48 bytes, 9x6 tiles of 1 byte need 54"));
    let map = replace(IMAGE, vec![4, 4, 0]).unwrap();
    assert!(first_error(&map).contains("holds 16 bytes, 4x4 RGBA pixels need 64"));
    let map = replace(TILEMAP, vec![0, -8, 6, 0, 0, 65536, 2, 0]).unwrap();
    assert!(first_error(&map).contains("-8x6 is no tile grid"));

    // Sizes beyond the limits are errors of the load, before anything is allocated.
    let error = replace(COLLISION, vec![100_000, 100_000, 3]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{error}");
    let error = replace(TILEMAP, vec![0, 1 << 20, 1 << 10, 0, 0, 65536, 2, 0]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{error}");
    let bytes = legacy_file(&items, &data);
    let limits = [
        Limits::default().with_max_tiles(W * H - 1),
        Limits::default().with_max_layers(3),
        Limits::default().with_max_layer_data(3 * W * H * 4),
    ];
    for limits in limits {
        let df = Datafile::parse_with(&bytes, limits).unwrap();
        let error = Map::from_datafile(&df).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{error}");
    }

    // A datafile without items is a 0.3 map too: it has no game layer.
    let map = Map::parse(&legacy_file(&[], &[])).unwrap();
    assert!(errors(&map).iter().any(|e| e.contains("no game layer")));
}

#[test]
fn every_truncation_and_wild_value_loads_without_panic() {
    let (items, data) = crafted();
    // Every item cut to every shorter length.
    for (index, (_, _, ints)) in items.iter().enumerate() {
        for len in 0..ints.len() {
            let mut cut = items.clone();
            cut[index].2.truncate(len);
            let map = Map::parse(&legacy_file(&cut, &data)).unwrap();
            map.to_bytes().unwrap();
        }
    }
    // Every int of every item set to values that matter at the edges, each map written back
    // and converted.
    let wild = [-1, 0, 1, 3, 4, 31, 32, 65536, 4096, i32::MAX, i32::MIN];
    for (index, (_, _, ints)) in items.iter().enumerate() {
        for at in 0..ints.len() {
            for value in wild {
                let mut changed = items.clone();
                changed[index].2[at] = value;
                let Ok(mut map) = Map::parse(&legacy_file(&changed, &data)) else {
                    continue;
                };
                map.to_bytes().unwrap();
                if map.convert(MapForm::Ddnet).is_ok() {
                    Map::parse(&map.to_bytes().unwrap()).unwrap();
                }
            }
        }
    }
}

#[test]
fn the_dump_shows_the_upgraded_map_and_the_original_items() {
    let Some(bytes) = corpus_map("legacy03_ctf1_old.map") else {
        return;
    };
    let map = Map::parse(&bytes).unwrap();
    let text =
        dump::to_string(|out| dump::map_text(&map, DumpOptions::default().preview(true), out));
    insta_settings().bind(|| insta::assert_snapshot!("dump_corpus_legacy03_ctf1_old", text));
}
