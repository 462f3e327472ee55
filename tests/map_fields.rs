//! A map from nothing (`Map::new`) and the field setters of `twcodec::map::edit`: each change
//! read back from the written file, the game group's fixed fields refused, limits named.

mod common;

use twcodec::map::edit::InfoField;
use twcodec::map::{Group, Layer, NewGroup};
use twcodec::schema::map::common::Color;
use twcodec::schema::map::Point;
use twcodec::{LoadMode, LoadOptions, Map};

fn reread(map: &Map) -> Map {
    let bytes = map.to_bytes().unwrap();
    Map::parse_with(&bytes, LoadOptions::default().mode(LoadMode::Strict)).unwrap()
}

#[test]
fn a_new_map_loads_strictly_with_its_game_layer() {
    let map = reread(&Map::new(60, 40).unwrap());
    assert!(map.problems().is_empty(), "{:?}", map.problems());
    let (game, tiles) = map.game_layer().unwrap();
    let grid = tiles.grid().unwrap();
    assert_eq!((grid.width(), grid.height()), (60, 40));
    assert!(grid.tiles().iter().all(|t| t.id == 0));
    let group = map.group_of(game).unwrap();
    assert_eq!(map.get(group).unwrap().name(), "Game");
    assert_eq!(map.version(), Some(1));
    assert!(map.info().is_some());
    // Too small or too large a game layer: an error naming the size.
    let e = Map::new(1, 10).unwrap_err().to_string();
    assert!(e.contains("1x10"), "{e}");
    assert!(Map::new(usize::MAX, 2).is_err());
}

#[test]
fn info_texts_are_set_removed_and_limited() {
    let mut map = Map::new(10, 10).unwrap();
    map.set_info(InfoField::Author, Some("Tee")).unwrap();
    map.set_info(InfoField::License, Some("CC0")).unwrap();
    map.set_info(InfoField::Credits, Some(&"c".repeat(127)))
        .unwrap();
    let read = reread(&map);
    let info = read.info().unwrap();
    assert_eq!(info.author(&read).as_deref(), Some("Tee"));
    assert_eq!(info.license(&read).as_deref(), Some("CC0"));
    assert_eq!(info.credits(&read).unwrap().len(), 127);
    assert_eq!(info.map_version(&read), None);
    // Replacing reuses the data item; removing drops it.
    let data = read.data_count();
    map.set_info(InfoField::Author, Some("Other")).unwrap();
    assert_eq!(reread(&map).data_count(), data);
    map.set_info(InfoField::Author, None).unwrap();
    map.set_info(InfoField::License, Some("")).unwrap();
    let read = reread(&map);
    assert_eq!(read.data_count(), data - 2);
    assert_eq!(read.info().unwrap().author(&read), None);
    // Too long, or a NUL: an error, nothing changed.
    let before = map.to_bytes().unwrap();
    let e = map
        .set_info(InfoField::Version, Some("1234567890123456"))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the info's version \"1234567890123456\" is 16 bytes; DDNet keeps at most 15"
    );
    assert!(map.set_info(InfoField::Author, Some("a\0b")).is_err());
    assert_eq!(map.to_bytes().unwrap(), before);
    assert_eq!(InfoField::from_name("credits"), Some(InfoField::Credits));
}

#[test]
fn settings_are_set_and_an_empty_list_leaves_no_data_item() {
    let mut map = Map::new(10, 10).unwrap();
    let data = reread(&map).data_count();
    map.set_settings(&["sv_team 1", "tune gravity 0.3"])
        .unwrap();
    let read = reread(&map);
    let settings = read.info().unwrap().settings(&read).unwrap().to_vec();
    assert_eq!(settings, ["sv_team 1", "tune gravity 0.3"]);
    assert_eq!(read.data_count(), data + 1);
    // No settings: no data item at all (one of 0 bytes is one DDNet refuses).
    map.set_settings::<&str>(&[]).unwrap();
    let read = reread(&map);
    assert_eq!(read.data_count(), data);
    assert!(read.info().unwrap().settings(&read).unwrap().is_empty());
    assert!(read.problems().is_empty(), "{:?}", read.problems());
    assert!(map.set_settings(&["a\0b"]).is_err());
}

#[test]
fn group_fields_and_the_game_groups_fixed_ones() {
    let mut map = Map::new(10, 10).unwrap();
    let game = map.refs::<Group>().next().unwrap();
    let back = map.insert_group(0, NewGroup::new("Back")).unwrap();
    map.set_group_name(back, "Far hills").unwrap();
    map.set_group_offset(back, Point { x: -64, y: 32 }).unwrap();
    map.set_group_parallax(back, Point { x: 50, y: 25 })
        .unwrap();
    map.set_group_clip(back, Some((0, 0, 320, 160))).unwrap();
    let read = reread(&map);
    let group = read.get(read.refs::<Group>().next().unwrap()).unwrap();
    assert_eq!(group.name(), "Far hills");
    assert_eq!(group.item().offset, Point { x: -64, y: 32 });
    assert_eq!(group.item().parallax, Point { x: 50, y: 25 });
    let clip = group.item().clip.unwrap();
    assert_eq!((clip.enabled, clip.width, clip.height), (1, 320, 160));
    map.set_group_clip(back, None).unwrap();
    assert_eq!(reread(&map).groups()[0].item().clip.unwrap().enabled, 0);
    // The game group: DDNet resets offset, parallax and clip.
    let game = map.refs::<Group>().nth(1).unwrap_or(game);
    assert!(map.set_group_offset(game, Point { x: 32, y: 0 }).is_err());
    assert!(map
        .set_group_parallax(game, Point { x: 50, y: 50 })
        .is_err());
    assert!(map.set_group_clip(game, Some((0, 0, 1, 1))).is_err());
    map.set_group_offset(game, Point::default()).unwrap();
    let e = map
        .set_group_name(back, "twelve bytes")
        .unwrap_err()
        .to_string();
    assert!(e.contains("at most 11"), "{e}");
    assert!(map.set_group_clip(back, Some((0, 0, -1, 5))).is_err());
}

#[test]
fn layer_fields() {
    let mut map = Map::new(10, 10).unwrap();
    let group = map.add_group(NewGroup::new("Front")).unwrap();
    let grid = twcodec::map::Grid::filled(4, 4, Default::default()).unwrap();
    let tiles = map
        .add_layer(group, Layer::new_tiles("Ground", grid).unwrap())
        .unwrap();
    let quads = map
        .add_layer(group, Layer::new_quads("Q", Vec::new()).unwrap())
        .unwrap();
    map.set_layer_name(tiles, "Walls").unwrap();
    map.set_layer_name(quads, "Clouds").unwrap();
    map.set_layer_detail(tiles, true).unwrap();
    let dark = Color {
        r: 60,
        g: 60,
        b: 80,
        a: 255,
    };
    map.set_layer_color(tiles, dark).unwrap();
    let read = reread(&map);
    let layers = read.layers();
    let walls = layers.iter().find(|l| l.name() == "Walls").unwrap();
    assert!(walls.header().flags.detail());
    assert_eq!(walls.tilemap().unwrap().color, dark);
    assert!(layers.iter().any(|l| l.name() == "Clouds"));
    // Wrong kinds and values.
    let game = map.game_layer().unwrap().0;
    assert!(map.set_layer_detail(game, true).is_err());
    assert!(map.set_layer_color(quads, dark).is_err());
    let e = map
        .set_layer_color(tiles, Color { r: 256, ..dark })
        .unwrap_err()
        .to_string();
    assert!(e.contains("r = 256"), "{e}");
}

/// The new map, written, loads in DDNet's `map_test` when the DDNet build is there
/// (`TWCODEC_DDNET_BUILD`), as every map twcodec writes must.
#[test]
fn a_new_map_is_one_ddnet_loads() {
    let Some(dir) = std::env::var_os("TWCODEC_DDNET_BUILD") else {
        eprintln!("skipped: set TWCODEC_DDNET_BUILD to a DDNet build folder to run map_test");
        return;
    };
    let map_test = std::path::Path::new(&dir).join("map_test");
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("new.map");
    let mut map = Map::new(30, 20).unwrap();
    map.set_settings(&["sv_team 1"]).unwrap();
    std::fs::write(&path, map.to_bytes().unwrap()).unwrap();
    let status = std::process::Command::new(map_test)
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
}
