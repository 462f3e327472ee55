//! Strict loading of broken maps: each map is one generator line away from the sample (which
//! loads strictly without a problem); each error names the item and the field.

mod common;

use common::*;
use twcodec::{Datafile, DatafileWriter, LoadMode, LoadOptions, Map};

/// The sample with one item's ints changed.
fn with_item(type_id: u16, id: u16, change: impl FnOnce(&mut Vec<i32>)) -> Vec<u8> {
    let sample = Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap();
    let mut writer = DatafileWriter::from_datafile(&sample);
    let item = writer
        .items_mut()
        .iter_mut()
        .find(|item| item.type_id() == type_id && item.id() == id)
        .unwrap();
    change(&mut item.data);
    writer.to_vec().unwrap()
}

/// A change of one item: type id, id, what to do to its ints.
type Change = (u16, u16, fn(&mut Vec<i32>));

/// The sample with several items' ints changed.
fn with_items(changes: &[Change]) -> Vec<u8> {
    let sample = Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap();
    let mut writer = DatafileWriter::from_datafile(&sample);
    for (type_id, id, change) in changes {
        let item = writer
            .items_mut()
            .iter_mut()
            .find(|item| item.type_id() == *type_id && item.id() == *id)
            .unwrap();
        change(&mut item.data);
    }
    writer.to_vec().unwrap()
}

/// The sample with one data item replaced.
fn with_data(index: usize, bytes: Vec<u8>) -> Vec<u8> {
    let sample = Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap();
    let mut writer = DatafileWriter::from_datafile(&sample);
    writer.replace_data(index, bytes).unwrap();
    writer.to_vec().unwrap()
}

/// The sample with an extra item.
fn with_extra(type_id: u16, id: u16, ints: Vec<i32>) -> Vec<u8> {
    let sample = Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap();
    let mut writer = DatafileWriter::from_datafile(&sample);
    writer.add_item(type_id, id, ints);
    writer.to_vec().unwrap()
}

/// The sample with items' ints changed and data items replaced.
fn edited(changes: &[Change], data: &[(usize, Vec<u8>)]) -> Vec<u8> {
    let sample = Datafile::parse(&with_items(changes)).unwrap();
    let mut writer = DatafileWriter::from_datafile(&sample);
    for (index, bytes) in data {
        writer.replace_data(*index, bytes.clone()).unwrap();
    }
    writer.to_vec().unwrap()
}

/// Sample data item `index` with one byte set.
fn data_with_byte(index: usize, at: usize, value: u8) -> (usize, Vec<u8>) {
    let sample = Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap();
    let mut bytes = sample.data(index).unwrap().to_vec();
    bytes[at] = value;
    (index, bytes)
}

/// The ints of a 3-int name holding `bytes` (not checked for UTF-8).
fn name_ints(bytes: &[u8]) -> [i32; 3] {
    twcodec::schema::map::I32String::<3>::new(bytes).ints
}

/// Saves a map for a check with DDNet's own loader (`map_test`), when `TWCODEC_STRICT_OUT`
/// names a directory.
fn save_for_ddnet(name: &str, bytes: &[u8]) {
    if let Some(dir) = std::env::var_os("TWCODEC_STRICT_OUT") {
        let file: String = (name.chars())
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let path = std::path::Path::new(&dir).join(format!("{file}.map"));
        std::fs::write(path, bytes).unwrap();
    }
}

/// Data indices in the sample: 12 game, 13 tiles ("Ground"), 14 front, 15 tele, 16 speedup,
/// 17 switch, 18 tune tiles; 19 to 23 the zeroed `data` of the front to tune layers.
///
/// What DDNet's `CMap::Load` refuses (checked with its `map_test`), each with the error strict
/// loading gives for it.
fn ddnet_refusals() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    vec![
        (
            "tile data shared by two tiles layers",
            with_item(5, 3, |i| i[14] = 12),
            "layer #3 (type 5, id 3): field `data` = 12: layer #2 keeps its tiles in this data \
             item too; DDNet refuses tile layers that share their tile data",
        ),
        // DDNet counts the data index the layer's kind reads: the front layer's `front`.
        (
            "front tiles in the data of the tiles layer",
            with_item(5, 4, |i| i[20] = 13),
            "layer #4 (type 5, id 4): field `physics.front` = 13: layer #3 keeps its tiles in \
             this data item too; DDNet refuses tile layers that share their tile data",
        ),
        // The game group starts after the game layer; its other layers lose their physics
        // flags, or they would be physics layers outside the game group (another error).
        (
            "game layer in no group",
            with_items(&[
                (4, 1, |i| {
                    i[5] = 3;
                    i[6] = 6
                }),
                (5, 4, |i| i[6] = 0),
                (5, 5, |i| i[6] = 0),
                (5, 6, |i| i[6] = 0),
                (5, 7, |i| i[6] = 0),
                (5, 8, |i| i[6] = 0),
            ]),
            "layer #2 (type 5, id 2): is a game layer in no group, and no group holds one; DDNet \
             looks for the game layer in the groups and refuses the map",
        ),
        (
            "front layer smaller than the game layer",
            edited(&[(5, 4, |i| i[4] = 6)], &[(14, vec![0; 6 * 8 * 4])]),
            "layer #4 (type 5, id 4): field `width` and height = 6x8: fewer tiles than the 12x8 \
             game layer (layer #2), which DDNet refuses in a front layer",
        ),
        (
            "tile layer 1 tile wide",
            edited(&[(5, 3, |i| i[4] = 1)], &[(13, vec![0; 8 * 4])]),
            "layer #3 (type 5, id 3): field `width` = 1: DDNet refuses tile layers of fewer than \
             2 tiles across",
        ),
        (
            "tile layer 1 tile high",
            edited(&[(5, 3, |i| i[5] = 1)], &[(13, vec![0; 12 * 4])]),
            "layer #3 (type 5, id 3): field `height` = 1: DDNet refuses tile layers of fewer \
             than 2 tiles down",
        ),
        (
            "version-3 tile layer without its name",
            with_item(5, 3, |i| i.truncate(16)),
            "layer #3 (type 5, id 3): field `name` is missing: this version-3 item has 16 ints \
             and its name needs 18, which DDNet refuses",
        ),
        (
            "tile layer name of zero ints",
            with_item(5, 3, |i| i[15..18].copy_from_slice(&[0; 3])),
            "layer #3 (type 5, id 3): field `name` = [0, 0, 0]: the bytes DDNet decodes from it \
             are not UTF-8, which DDNet refuses in a tile layer",
        ),
        (
            "game layer name not UTF-8",
            with_item(5, 2, |i| i[15..18].copy_from_slice(&name_ints(b"G\xffme"))),
            "layer #2 (type 5, id 2): field `name` = [-947917339, -2139062144, -2139062272]: the \
             bytes DDNet decodes from it are not UTF-8, which DDNet refuses in a tile layer",
        ),
        (
            "skip-compressed game layer entry with a reserved byte",
            edited(&[(5, 2, |i| i[3] = 4)], &[data_with_byte(12, 4 * 5 + 3, 1)]),
            "layer #2 (type 5, id 2): field `data` skip-compressed entry 5 has a nonzero \
             reserved byte, which DDNet refuses in the game layer",
        ),
        (
            "tile data index -5",
            with_item(5, 3, |i| i[14] = -5),
            "layer #3 (type 5, id 3): field `data` = -5: the layer has no data",
        ),
    ]
}

/// What DDNet loads the map with, but without one layer's tiles (`map_test` says "Data
/// erroneous"): warnings, each with its message.
fn ddnet_dropped_tiles() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    vec![
        (
            "tiles layer tile with a skip byte",
            edited(&[], &[data_with_byte(13, 4 * 5 + 2, 1)]),
            "layer #3 (type 5, id 3): field `data` tile 5 has a nonzero skip or reserved byte, \
             which DDNet allows in no uncompressed layer: it loads the map without this layer's \
             tiles",
        ),
        (
            "front tile with a reserved byte",
            edited(&[], &[data_with_byte(14, 4 * 5 + 3, 1)]),
            "layer #4 (type 5, id 4): field `physics.front` tile 5 has a nonzero skip or \
             reserved byte, which DDNet allows in no uncompressed layer: it loads the map \
             without this layer's tiles",
        ),
        (
            "speedup tile with a reserved byte",
            edited(&[], &[data_with_byte(16, 6 * 5 + 3, 1)]),
            "layer #6 (type 5, id 6): field `physics.speedup` tile 5 has a nonzero reserved \
             byte, which DDNet refuses in speedup tiles: it loads the map without this layer's \
             tiles",
        ),
        (
            "skip-compressed tiles layer entry with a reserved byte",
            edited(&[(5, 3, |i| i[3] = 4)], &[data_with_byte(13, 4 * 5 + 3, 1)]),
            "layer #3 (type 5, id 3): field `data` skip-compressed entry 5 has a nonzero \
             reserved byte, which DDNet refuses: it loads the map without this layer's tiles",
        ),
        (
            "skip-compressed front layer",
            with_item(5, 4, |i| i[3] = 4),
            "layer #4 (type 5, id 4): field `version` = 4: skip-compressed tiles, which DDNet \
             reads only in tiles and game layers; it loads the map without this front layer's \
             tiles (twcodec reads them uncompressed)",
        ),
    ]
}

/// Maps near those above that DDNet loads whole: no problem.
fn ddnet_loads() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("the sample", twcodec_testkit::sample::datafile()),
        // Only the data index of the layer's kind counts: the tele layer's `data` is not its.
        ("tiles layer in the zeroed data of the tele layer", {
            with_item(5, 3, |i| i[14] = 20)
        }),
        // Tiles are counted, not compared side by side.
        ("front layer of the game layer's tile count, turned", {
            with_item(5, 4, |i| {
                i[4] = 8;
                i[5] = 12
            })
        }),
        // DDNet checks no byte of tele, switch and tune tiles.
        ("switch tile with its last byte set", {
            edited(&[], &[data_with_byte(17, 4 * 5 + 3, 1)])
        }),
    ]
}

/// Layer ids in the sample: 0 quads, 1 sounds, 2 game, 3 tiles, 4 front, 5 tele, 6 speedup,
/// 7 switch, 8 tune. Groups: 0 background (layers 0..2), 1 game (2..9).
fn cases() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("dangling image reference", with_item(5, 3, |i| i[13] = 7)),
        ("dangling color envelope", with_item(5, 3, |i| i[11] = 9)),
        ("dangling tile data", with_item(5, 2, |i| i[14] = 99)),
        ("dangling sound", with_item(5, 1, |i| i[6] = 4)),
        ("dangling info string", with_item(1, 0, |i| i[1] = 77)),
        ("group range out of range", with_item(4, 1, |i| i[6] = 12)),
        ("overlapping groups", with_item(4, 0, |i| i[6] = 3)),
        ("no game layer", with_item(5, 2, |i| i[6] = 0)),
        (
            "switch tile data of the wrong size",
            with_data(17, vec![0; 40]),
        ),
        (
            "envelope points out of range",
            with_item(3, 2, |i| i[3] = 60),
        ),
        ("overlapping envelope points", with_item(3, 1, |i| i[2] = 3)),
        ("image data too small", with_data(7, vec![0; 20])),
        // Group 0 takes the game layer; group 1 keeps the other physics layers.
        (
            "physics layer outside the game group",
            with_items(&[
                (4, 0, |i| i[6] = 3),
                (4, 1, |i| {
                    i[5] = 3;
                    i[6] = 6
                }),
            ]),
        ),
        ("duplicate item ids", with_item(3, 2, |_| {}).then_dup()),
        (
            "physics flag without its data index",
            with_item(5, 5, |i| i.truncate(18)),
        ),
        ("several physics flags", with_item(5, 4, |i| i[6] = 8 | 2)),
        (
            "automapper of a missing layer",
            with_item(0xFFFD, 0, |i| i[2] = 30),
        ),
        (
            "item too short for its layout",
            with_item(2, 1, |i| i.truncate(4)),
        ),
        ("quad data too small", with_item(5, 0, |i| i[4] = 40)),
        // What DDNet's loaders refuse or misread (issue "Output paths", `check --strict`).
        (
            "envelope of 100 channels (CVE-2021-43518's class)",
            with_item(3, 0, |i| i[1] = 100),
        ),
        (
            "embedded image of format 99",
            with_item(2, 1, |i| {
                i[0] = 2;
                i.push(99)
            }),
        ),
        (
            "image name without its NUL",
            with_data(6, b"checker".to_vec()),
        ),
        (
            "image name with a NUL inside",
            with_data(6, b"check\0er\0".to_vec()),
        ),
        ("sound name not UTF-8", with_data(8, b"ch\xffme\0".to_vec())),
        (
            "info author without its NUL",
            with_data(0, b"twcodec".to_vec()),
        ),
        (
            "settings whose last command has no NUL",
            with_data(4, b"sv_team 1\0tune_zone 1 gravity 0.3".to_vec()),
        ),
        ("version item of version 2", with_item(0, 0, |i| i[0] = 2)),
        ("tile layer of version 5", with_item(5, 3, |i| i[3] = 5)),
        ("tile layer color of 300", with_item(5, 3, |i| i[7] = 300)),
        (
            "version-2 image without its format",
            with_item(2, 1, |i| i[0] = 2),
        ),
        ("game tile with a skip byte", {
            let sample = Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap();
            let mut tiles = sample.data(12).unwrap().to_vec();
            tiles[4 * 5 + 2] = 1;
            with_data(12, tiles)
        }),
    ]
}

trait ThenDup {
    fn then_dup(self) -> Vec<u8>;
}

impl ThenDup for Vec<u8> {
    /// A second envelope with id 0.
    fn then_dup(self) -> Vec<u8> {
        let df = Datafile::parse(&self).unwrap();
        let mut writer = DatafileWriter::from_datafile(&df);
        let mut copy = df.item(3, 0).unwrap().data.clone();
        copy[2] = 18;
        copy[3] = 0;
        writer.add_item(3, 0, copy);
        writer.to_vec().unwrap()
    }
}

#[test]
fn strict_mode_names_item_and_field() {
    let mut report = String::new();
    for (name, bytes) in cases() {
        save_for_ddnet(name, &bytes);
        let df = Datafile::parse(&bytes).unwrap();
        let error = Map::from_datafile_with(&df, LoadMode::Strict)
            .expect_err(name)
            .to_string();
        let lenient = Map::from_datafile(&df).expect("lenient loading keeps going");
        assert!(
            lenient.problems().iter().any(|p| p.to_string() == error),
            "{name}: the strict error is the lenient problem"
        );
        // Lenient maps write back unchanged.
        assert_eq!(lenient.to_bytes().unwrap(), bytes, "{name}: lossless");
        report.push_str(&format!("{name}:\n  {error}\n"));
    }
    insta_settings().bind(|| insta::assert_snapshot!("map_strict_errors", report));
}

/// Each map DDNet's `CMap::Load` refuses fails strict loading with the error that names its
/// fault, and only that error; lenient loading keeps it as a problem and writes the map back
/// unchanged.
#[test]
fn ddnet_refusals_are_errors() {
    for (name, bytes, expected) in ddnet_refusals() {
        save_for_ddnet(name, &bytes);
        let error = Map::parse_with(&bytes, LoadMode::Strict).expect_err(name);
        assert_eq!(error.to_string(), expected, "{name}");
        let lenient = Map::parse(&bytes).expect("lenient loading keeps going");
        let errors: Vec<String> = (lenient.problems().iter())
            .filter(|p| p.severity == twcodec::map::Severity::Error)
            .map(|p| p.to_string())
            .collect();
        assert_eq!(errors, [expected], "{name}: the one error");
        assert_eq!(lenient.to_bytes().unwrap(), bytes, "{name}: lossless");
    }
}

/// A tile layer of 2^31 tiles: more than DDNet counts in an int. Only with the limits raised,
/// which otherwise refuse it first; lazily, so that its tiles are never decoded.
#[test]
fn more_tiles_than_an_int_counts() {
    let bytes = with_item(5, 3, |i| {
        i[4] = 1 << 16;
        i[5] = 1 << 15
    });
    save_for_ddnet("tile layer of 2^31 tiles", &bytes);
    let df = Datafile::parse_with(&bytes, twcodec::Limits::UNLIMITED).unwrap();
    let error = Map::from_datafile_with(&df, LoadOptions::LAZY.strict()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "layer #3 (type 5, id 3): field `width` and height = 65536x32768: 2147483648 tiles, more \
         than DDNet counts in an int (2147483647), which it refuses"
    );
    assert!(Map::parse(&bytes).is_err(), "the default limits refuse it");
}

/// Tile bytes DDNet wants zero outside the game layer: DDNet loads the map and drops the
/// layer's tiles, so they are warnings, each the map's only problem.
#[test]
fn tiles_ddnet_drops_are_warnings() {
    for (name, bytes, expected) in ddnet_dropped_tiles() {
        save_for_ddnet(name, &bytes);
        let map = Map::parse_with(&bytes, LoadMode::Strict).expect(name);
        let problems: Vec<String> = map.problems().iter().map(|p| p.to_string()).collect();
        assert_eq!(problems, [expected], "{name}");
        assert_eq!(
            map.problems()[0].severity,
            twcodec::map::Severity::Warning,
            "{name}"
        );
    }
}

/// The maps beside the refused ones that DDNet loads whole have no problem.
#[test]
fn maps_ddnet_loads_have_no_problem() {
    for (name, bytes) in ddnet_loads() {
        save_for_ddnet(name, &bytes);
        let map = Map::parse_with(&bytes, LoadMode::Strict).expect(name);
        assert_eq!(map.problems(), &[], "{name}");
    }
}

/// A lazy map finds each broken map's problems too: those the items show at once (strict lazy
/// loading fails on the same error as strict eager loading when the items show it), those of
/// the content once it is decoded.
#[test]
fn lazy_loading_finds_the_same_problems() {
    let ddnet = ddnet_refusals()
        .into_iter()
        .map(|(name, bytes, _)| (name, bytes));
    for (name, bytes) in cases().into_iter().chain(ddnet) {
        let eager = Map::parse(&bytes).unwrap();
        let lazy = Map::parse_with(&bytes, twcodec::Decode::Lazy).unwrap();
        let at_open = lazy.problems();
        assert!(
            eager.problems().starts_with(&at_open),
            "{name}: what a lazy map reports at once comes first in the eager map"
        );
        lazy.decode_all();
        assert_eq!(lazy.problems(), eager.problems(), "{name}");
        let strict = Map::parse_with(&bytes, LoadMode::Strict).expect_err(name);
        match Map::parse_with(&bytes, LoadOptions::LAZY.strict()) {
            Err(error) => assert_eq!(error.to_string(), strict.to_string(), "{name}"),
            Ok(map) => {
                assert!(
                    at_open
                        .iter()
                        .all(|p| p.severity != twcodec::map::Severity::Error),
                    "{name}: strict lazy loading fails on errors the items show"
                );
                map.decode_all();
                let first = map
                    .problems()
                    .into_iter()
                    .find(|p| p.severity == twcodec::map::Severity::Error);
                assert_eq!(
                    first.map(|p| p.to_error().to_string()),
                    Some(strict.to_string()),
                    "{name}"
                );
            }
        }
    }
}

/// The datafile reader's warnings are the map's problems too (`check` showed none of them):
/// errors where DDNet refuses the file, warnings where it reads it.
#[test]
fn datafile_warnings_are_problems() {
    let mut trailing = twcodec_testkit::sample::datafile();
    trailing.extend_from_slice(b"junk");
    let df = Datafile::parse(&trailing).unwrap();
    let error = Map::from_datafile_with(&df, LoadMode::Strict).unwrap_err();
    assert_eq!(
        error.to_string(),
        "datafile: 4 trailing bytes after the data block (a re-save drops them) (at byte 0xf96)"
    );
    let lenient = Map::from_datafile(&df).unwrap();
    assert_eq!(lenient.problems().len(), 1);

    let df = Datafile::parse(&small_duplicate_uuid_index()).unwrap();
    let map = Map::from_datafile(&df).unwrap();
    let duplicate = map
        .problems()
        .into_iter()
        .find(|p| p.to_string().starts_with("datafile: item #"))
        .unwrap();
    assert!(duplicate
        .to_string()
        .contains("duplicate UUID index item for this type"));
    assert_eq!(duplicate.severity, twcodec::map::Severity::Warning);
}

#[test]
fn the_sample_loads_strictly() {
    let map = Map::parse(&twcodec_testkit::sample::datafile()).unwrap();
    assert!(map.problems().is_empty());
    let _ = with_extra(0, 1, vec![1]);
}

/// A version-2 image of format RGB (0), external (twmap found it) or embedded: DDNet's client
/// skips it ("invalid map image type", mapimages.cpp) but loads the map, so it is a warning,
/// also under strict loading; before, `check` said nothing.
#[test]
fn rgb_version_2_images_are_warnings() {
    use twcodec::schema::map::image::ImageFormat;
    use twcodec::{map::Severity, MapForm};

    // A map made through the editing API, in Teeworlds 0.7's form (version-2 images with a
    // format), then its images' format set to RGB.
    let mut map = Map::parse(&twcodec_testkit::sample::datafile()).unwrap();
    map.add_external_image("grass_main").unwrap();
    map.convert(MapForm::Teeworlds07).unwrap();
    let df = Datafile::parse(&map.to_bytes().unwrap()).unwrap();
    let mut writer = DatafileWriter::from_datafile(&df);
    let mut images = 0;
    for item in writer.items_mut().iter_mut().filter(|i| i.type_id() == 2) {
        assert_eq!(item.data[0], 2, "version 2");
        assert_eq!(item.data[6], ImageFormat::RGBA.to_i32());
        item.data[6] = ImageFormat::RGB.to_i32();
        images += 1;
    }
    assert_eq!(images, 3, "the sample's two and grass_main");
    let bytes = writer.to_vec().unwrap();

    let map = Map::parse_with(&bytes, LoadMode::Strict).expect("DDNet loads the map");
    let problems: Vec<String> = (map.problems().iter())
        .map(|p| {
            assert_eq!(p.severity, Severity::Warning, "{p}");
            p.to_string()
        })
        .collect();
    let external = (problems.iter())
        .filter(|p| p.contains("= 0: RGB, not RGBA (1), so DDNet's client skips this external"))
        .count();
    let embedded = (problems.iter())
        .filter(|p| p.contains("= 0: RGB, not RGBA (1), so DDNet's client skips this embedded"))
        .count();
    assert_eq!((external, embedded), (2, 1), "{problems:#?}");
    assert!(problems[0].starts_with("image #0 (type 2, id 0): field `format` = 0"));
}
