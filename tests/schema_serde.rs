//! The schema's map item types read back what they serialize, exactly: every item of every
//! corpus map goes through JSON and through TOML (each item struct as a top-level table, as the
//! map directory form writes it) and comes back equal, and so encodes to the same ints. Hand-made
//! cases cover what the corpus may lack: strings with bytes after the NUL, flags with unknown
//! bits, unknown curve types and image formats, kept tails.

mod common;

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::Serialize;

use common::*;
use twcodec::items::decode_items;
use twcodec::schema::map::automapper::{AutomapperFlags, AutomapperItem};
use twcodec::schema::map::envelope::{CurveType, EnvPoint, EnvPointsItem, EnvelopeItem};
use twcodec::schema::map::group::GroupItem;
use twcodec::schema::map::image::{ImageFormat, ImageItem};
use twcodec::schema::map::layer::{
    LayerBody, LayerFlags, LayerHeader, LayerItem, PhysicsData, TilemapFlags, TilemapLayer,
};
use twcodec::schema::map::quad::Quad;
use twcodec::schema::map::sound::SoundSource;
use twcodec::schema::map::tile::TileFlags;
use twcodec::schema::map::{cast_ints, Color, I32String, MapItem};
use twcodec::Datafile;

/// A value as a JSON string and back.
fn through_json<T: Serialize + DeserializeOwned>(value: &T) -> Result<T, String> {
    let text = serde_json::to_string(value).map_err(|e| format!("to JSON: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("from JSON {text}: {e}"))
}

/// A value as a TOML document (a top-level table) and back.
fn through_toml<T: Serialize + DeserializeOwned>(value: &T) -> Result<T, String> {
    let text = toml::to_string(value).map_err(|e| format!("to TOML: {e}"))?;
    toml::from_str(&text).map_err(|e| format!("from TOML:\n{text}\n{e}"))
}

/// Checks that `value` comes back equal through JSON and through TOML.
fn round_trips<T>(what: &str, value: &T)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let json = through_json(value).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(&json, value, "{what}: back from JSON");
    let toml = through_toml(value).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(&toml, value, "{what}: back from TOML");
}

/// Checks a value that TOML cannot hold at the top level (an array, a string) through JSON,
/// and through TOML as the one field of a table.
fn round_trips_as_field<T>(what: &str, value: &T)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug + Clone,
{
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Field<T> {
        value: T,
    }
    let json = through_json(value).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(&json, value, "{what}: back from JSON");
    let field = Field {
        value: value.clone(),
    };
    let toml = through_toml(&field).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(toml, field, "{what}: back from TOML");
}

/// Checks the item struct inside `item` as a top-level table, then the whole `MapItem` (an
/// internally tagged table), and that it still encodes to `ints`.
fn item_round_trips(what: &str, item: &MapItem, ints: &[i32]) {
    match item {
        MapItem::Version(x) => round_trips(what, x),
        MapItem::Info(x) => round_trips(what, x),
        MapItem::Image(x) => round_trips(what, x),
        MapItem::Envelope(x) => round_trips(what, x),
        MapItem::Group(x) => round_trips(what, x),
        MapItem::Layer(x) => round_trips(what, x),
        MapItem::EnvPoints(x) => round_trips(what, x),
        MapItem::Sound(x) => round_trips(what, x),
        MapItem::UuidIndex(x) => round_trips(what, x),
        MapItem::Automapper(x) => round_trips(what, x),
        MapItem::GroupEx(x) => round_trips(what, x),
        MapItem::EnvPointsBezier(x) => round_trips(what, x),
        MapItem::Test(x) => round_trips(what, x),
        MapItem::LegacyEntity(x) => round_trips(what, x),
        MapItem::LegacyImage(x) => round_trips(what, x),
        MapItem::LegacyTilemap(x) => round_trips(what, x),
        MapItem::LegacyCollision(x) => round_trips(what, x),
        MapItem::LegacyTheme(x) => round_trips(what, x),
        MapItem::Unknown { .. } => {}
        other => panic!("{what}: a kind this test does not know: {:?}", other.kind()),
    }
    round_trips(what, item);
    let back = through_toml(item).unwrap();
    assert_eq!(back.encode().unwrap(), ints, "{what}: encodes to its ints");
}

#[test]
fn every_corpus_item_round_trips_through_json_and_toml() {
    let Some(maps) = corpus_maps() else { return };
    let (mut items, mut quads, mut sources) = (0, 0, 0);
    for path in &maps {
        let map = path.file_name().unwrap().to_string_lossy();
        let df = Datafile::open(path).unwrap();
        for (index, decoded) in decode_items(&df).into_iter().enumerate() {
            let what = format!("{map}: item #{index}");
            let item = decoded.unwrap_or_else(|e| panic!("{what}: {e}"));
            item_round_trips(&what, &item, &df.items()[index].data);
            items += 1;
            // The arrays of quads and sound sources that layers point at, each element a table.
            let MapItem::Layer(layer) = &item else {
                continue;
            };
            let data = match &layer.body {
                LayerBody::Quads(q) => Some((q.data, true)),
                LayerBody::Sounds(s) => Some((s.data, false)),
                _ => None,
            };
            let Some((data, is_quads)) = data else {
                continue;
            };
            let Some(Ok(bytes)) = usize::try_from(data).ok().map(|i| df.data(i)) else {
                continue;
            };
            if is_quads {
                for (q, quad) in cast_ints::<Quad>(&bytes).iter().enumerate() {
                    round_trips(&format!("{what}: quad {q}"), quad);
                    quads += 1;
                }
            } else {
                for (s, source) in cast_ints::<SoundSource>(&bytes).iter().enumerate() {
                    round_trips(&format!("{what}: source {s}"), source);
                    sources += 1;
                }
            }
        }
    }
    assert!(items > 0);
    eprintln!(
        "{} maps: {items} items, {quads} quads, {sources} sound sources round-trip",
        maps.len()
    );
}

/// A string as stored, with `f` applied to its ints.
fn tweaked<const N: usize>(text: &str, f: impl FnOnce(&mut [i32; N])) -> I32String<N> {
    let mut string = I32String::<N>::new(text.as_bytes());
    f(&mut string.ints);
    string
}

#[test]
fn strings_use_text_only_when_it_gives_the_same_ints() {
    let plain = I32String::<3>::new(b"Game");
    assert_eq!(serde_json::to_string(&plain).unwrap(), r#""Game""#);
    assert_eq!(
        serde_json::to_string(&I32String::<3>::new(b"")).unwrap(),
        r#""""#
    );
    round_trips_as_field("plain", &plain);
    round_trips_as_field("full", &I32String::<8>::new(&[b'x'; 31]));
    round_trips_as_field("utf-8", &I32String::<3>::new("Grüße".as_bytes()));

    // Garbage after the NUL: the text would lose it, so the ints are written.
    let garbage = tweaked::<3>("ab", |ints| ints[2] = 0x1234_5600);
    assert_eq!(garbage.to_string_lossy(), "ab");
    let json = serde_json::to_string(&garbage).unwrap();
    assert!(json.starts_with('['), "{json}");
    round_trips_as_field("bytes after the NUL", &garbage);

    // A last byte other than 0, an all-zero array, invalid UTF-8.
    round_trips_as_field("terminator", &tweaked::<3>("ab", |ints| ints[2] |= 0x7f));
    round_trips_as_field("all zero", &I32String::<3> { ints: [0; 3] });
    round_trips_as_field("invalid utf-8", &I32String::<3>::new(&[0xff, 0xfe, b'a']));
    assert!(serde_json::to_string(&I32String::<3> { ints: [0; 3] })
        .unwrap()
        .starts_with('['));

    // Text that does not fit, or holds a NUL, is refused rather than cut.
    let long = serde_json::from_str::<I32String<3>>(r#""twelve bytes""#).unwrap_err();
    assert!(long.to_string().contains("more than the 11"), "{long}");
    assert!(serde_json::from_str::<I32String<3>>(r#""a\u0000b""#).is_err());
    assert!(serde_json::from_str::<I32String<3>>("[1, 2]").is_err());
    assert!(serde_json::from_str::<I32String<3>>("[1, 2, 3, 4]").is_err());
}

#[test]
fn flags_with_unknown_bits_round_trip() {
    let tile = TileFlags::from_byte(0b1010_0101);
    assert_eq!(
        serde_json::to_string(&tile).unwrap(),
        r#"["x_flip","opaque","unknown(0xa0)"]"#
    );
    round_trips_as_field("tile flags", &tile);
    for byte in 0..=255 {
        assert_eq!(
            through_json(&TileFlags::from_byte(byte)).unwrap().to_byte(),
            byte
        );
    }
    let layer = LayerFlags::from_bytes((-1i32).to_le_bytes());
    round_trips_as_field("layer flags", &layer);
    let tilemap = TilemapFlags::from_bytes(0x8000_0041u32.to_le_bytes());
    assert_eq!(
        serde_json::to_string(&tilemap).unwrap(),
        r#"["game","unknown(0x80000040)"]"#
    );
    round_trips_as_field("tilemap flags", &tilemap);
    let automapper = AutomapperFlags::from_bytes(7u32.to_le_bytes());
    round_trips_as_field("automapper flags", &automapper);

    // Names it does not know, unknown masks over named bits or past the width are refused.
    for bad in [
        r#"["mirror"]"#,
        r#"["unknown(0x1)"]"#,
        r#"["unknown(0x0)"]"#,
        r#"["unknown(0x100)"]"#,
        r#"["unknown(ff)"]"#,
    ] {
        assert!(
            serde_json::from_str::<TileFlags>(bad).is_err(),
            "{bad} is refused"
        );
    }
}

#[test]
fn unknown_values_and_tails_round_trip() {
    for curve in [CurveType::BEZIER, CurveType(-7)] {
        round_trips_as_field("curve type", &curve);
    }
    let points = EnvPointsItem::Points {
        points: vec![EnvPoint {
            time: 10,
            curve_type: 99,
            values: [1, -2, 3, i32::MIN],
        }],
        unknown_tail: vec![5, 6],
    };
    round_trips("points with an unknown curve type and a tail", &points);

    let image = ImageItem {
        version: 2,
        width: 64,
        height: 32,
        external: 1,
        name: 0,
        data: -1,
        format: Some(ImageFormat(-1)),
        unknown_tail: vec![42],
    };
    round_trips("image with an unknown format", &image);
    round_trips(
        "image version 1",
        &ImageItem {
            version: 1,
            format: None,
            unknown_tail: vec![],
            ..image.clone()
        },
    );

    let envelope = EnvelopeItem {
        version: 1,
        channels: 3,
        start_point: 0,
        num_points: 2,
        name: None,
        synchronized: None,
        unknown_tail: vec![-1],
    };
    round_trips("0.4 envelope", &envelope);

    let group = GroupItem {
        version: 3,
        offset: Default::default(),
        parallax: Default::default(),
        start_layer: 0,
        num_layers: 1,
        clip: None,
        name: Some(tweaked::<3>("Game", |ints| ints[2] = 7)),
        unknown_tail: vec![1, 2, 3],
    };
    round_trips("group with a garbled name and a tail", &group);

    // Physics indices: a prefix of them, none, and a garbled layer.
    let tilemap = TilemapLayer {
        version: 3,
        width: 2,
        height: 2,
        flags: TilemapFlags::from_bytes(0x102u32.to_le_bytes()),
        color: Color {
            r: 255,
            g: 255,
            b: 255,
            a: 255,
        },
        color_envelope: -1,
        color_envelope_offset: 0,
        image: -1,
        data: 1,
        name: Some(I32String::new(b"Tele")),
        physics: PhysicsData {
            tele: Some(2),
            speedup: Some(-1),
            front: None,
            switch: None,
            tune: None,
        },
        unknown_tail: vec![9],
    };
    let layer = |body| LayerItem {
        header: LayerHeader {
            version: 0,
            kind: 2,
            flags: LayerFlags::from_bytes(3u32.to_le_bytes()),
        },
        body,
    };
    round_trips("tele layer", &layer(LayerBody::Tilemap(tilemap.clone())));
    round_trips(
        "teeworlds layer",
        &layer(LayerBody::Tilemap(TilemapLayer {
            physics: PhysicsData::default(),
            unknown_tail: vec![],
            ..tilemap
        })),
    );
    round_trips("unknown layer type", &layer(LayerBody::Unknown(vec![1, 2])));

    let automapper = AutomapperItem {
        version: 1,
        group: 0,
        layer: 1,
        config: -1,
        seed: 0,
        flags: AutomapperFlags::from_bytes(0x11u32.to_le_bytes()),
        unknown_tail: vec![8],
    };
    round_trips("automapper", &automapper);
    round_trips("automapper as a map item", &MapItem::Automapper(automapper));
    round_trips(
        "unknown item",
        &MapItem::Unknown {
            ints: vec![1, -1, 0],
        },
    );
}
