//! The setters of `twcodec::map::edit` for what an item holds beyond its references: envelope
//! points (with curve types and bezier tangents), names and the synchronized flag, a layer's
//! quads and sound sources as a whole, an image's name. Each change is read back from the
//! written file, loaded strictly; each refusal names the field and changes nothing.

mod common;

use twcodec::map::{Envelope, ItemRef, Layer, NewEnvelope, NewGroup};
use twcodec::schema::map::envelope::{EnvPoint, EnvPointBezier, EnvelopeKind};
use twcodec::schema::map::quad::Quad;
use twcodec::schema::map::sound::SoundSource;
use twcodec::{LoadMode, LoadOptions, Map};

fn reread(map: &Map) -> Map {
    let bytes = map.to_bytes().unwrap();
    Map::parse_with(&bytes, LoadOptions::default().mode(LoadMode::Strict)).unwrap()
}

fn point(time: i32, curve_type: i32, values: [i32; 4]) -> EnvPoint {
    EnvPoint {
        time,
        curve_type,
        values,
    }
}

/// A map with three envelopes (color, position, sound) of 2, 1 and 2 points.
fn three_envelopes() -> (Map, [ItemRef<Envelope>; 3]) {
    let mut map = Map::new(10, 10).unwrap();
    let full = [1024; 4];
    let color = map
        .add_envelope(NewEnvelope {
            points: vec![point(0, 1, full), point(1000, 1, [0, 0, 0, 1024])],
            ..NewEnvelope::new(EnvelopeKind::Color, "fade")
        })
        .unwrap();
    let position = map
        .add_envelope(NewEnvelope {
            points: vec![point(0, 0, [0; 4])],
            ..NewEnvelope::new(EnvelopeKind::Position, "still")
        })
        .unwrap();
    let sound = map
        .add_envelope(NewEnvelope {
            points: vec![point(0, 4, [0; 4]), point(500, 4, [1024, 0, 0, 0])],
            ..NewEnvelope::new(EnvelopeKind::Sound, "swell")
        })
        .unwrap();
    (map, [color, position, sound])
}

fn points_of(map: &Map, index: usize) -> Vec<EnvPoint> {
    map.envelopes()[index].points(map).to_vec()
}

#[test]
fn envelope_points_are_replaced_in_place_and_the_later_ones_shift() {
    let (mut map, [color, _, _]) = three_envelopes();
    let (position, sound) = (points_of(&map, 1), points_of(&map, 2));
    let new = vec![
        point(0, 0, [1024; 4]),
        point(100, 2, [0, 1024, 0, 1024]),
        point(100, 3, [512; 4]),
        point(900, 1, [0; 4]),
    ];
    map.set_envelope_points(color, new.clone(), None).unwrap();
    let read = reread(&map);
    assert!(read.problems().is_empty(), "{:?}", read.problems());
    assert_eq!(points_of(&read, 0), new);
    assert_eq!(points_of(&read, 1), position);
    assert_eq!(points_of(&read, 2), sound);
    assert_eq!(read.envelope_points().unwrap().points().len(), 7);
    // Fewer points: the points shrink, the others still follow.
    map.set_envelope_points(color, vec![point(0, 1, [7; 4])], None)
        .unwrap();
    let read = reread(&map);
    assert_eq!(points_of(&read, 0), [point(0, 1, [7; 4])]);
    assert_eq!(points_of(&read, 2), sound);
    assert_eq!(read.envelope_points().unwrap().points().len(), 4);
    // No points at all is an envelope the game keeps at 0.
    map.set_envelope_points(color, Vec::new(), None).unwrap();
    let read = reread(&map);
    assert!(points_of(&read, 0).is_empty());
    assert_eq!(points_of(&read, 1), position);
}

#[test]
fn bad_points_name_the_point_and_field_and_change_nothing() {
    let (mut map, [color, _, sound]) = three_envelopes();
    let before = map.to_bytes().unwrap();
    for (points, tangents, says) in [
        (
            vec![point(10, 1, [0; 4]), point(5, 1, [0; 4])],
            None,
            "point #1: field `time` = 5 ms is before point #0's 10 ms",
        ),
        (
            vec![point(-1, 1, [0; 4])],
            None,
            "point #0: field `time` = -1 ms is negative",
        ),
        (
            vec![point(0, 1, [0; 4]), point(5, 9, [0; 4])],
            None,
            "point #1: field `curve_type` = 9 is not a curve type",
        ),
        (
            vec![point(0, 5, [0; 4])],
            Some(vec![EnvPointBezier::default(); 2]),
            "2 tangent sets for 1 points",
        ),
    ] {
        let e = map
            .set_envelope_points(color, points.clone(), tangents.clone())
            .unwrap_err()
            .to_string();
        assert!(e.contains(says), "{e}");
        // Adding checks the same way.
        let e = map
            .add_envelope(NewEnvelope {
                points,
                tangents,
                ..NewEnvelope::new(EnvelopeKind::Color, "bad")
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains(says), "{e}");
    }
    let e = map
        .set_envelope_name(sound, &"n".repeat(32))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("envelope name") && e.contains("at most 31"),
        "{e}"
    );
    assert_eq!(map.to_bytes().unwrap(), before);
}

#[test]
fn bezier_tangents_go_with_their_points() {
    let (mut map, [_, position, _]) = three_envelopes();
    let out = EnvPointBezier {
        out_tangent_dx: [100, 100, 0, 0],
        out_tangent_dy: [2048, 0, 0, 0],
        ..EnvPointBezier::default()
    };
    let into = EnvPointBezier {
        in_tangent_dx: [-100, -100, 0, 0],
        ..EnvPointBezier::default()
    };
    let points = vec![point(0, 5, [0; 4]), point(1000, 1, [4096, 0, 0, 0])];
    map.set_envelope_points(position, points.clone(), Some(vec![out, into]))
        .unwrap();
    let read = reread(&map);
    assert!(read.problems().is_empty(), "{:?}", read.problems());
    let envelope = &read.envelopes()[1];
    assert_eq!(envelope.points(&read), points);
    assert_eq!(envelope.bezier(&read).unwrap(), [out, into]);
    // Every point has its tangent set (zero for the others), as DDNet's bezier item needs.
    let all = read.envelope_points().unwrap();
    assert_eq!(all.bezier().unwrap().len(), all.points().len());
    assert_eq!(points_of(&read, 0).len(), 2);
    // The curve follows the tangents: above the straight line at a quarter.
    let at = envelope.eval(&read, 250.0).unwrap()[0];
    assert!(at > 1.0, "{at}");
}

#[test]
fn envelope_name_and_synchronized_flag() {
    let (mut map, [color, position, _]) = three_envelopes();
    map.set_envelope_name(color, "sunset").unwrap();
    map.set_envelope_synchronized(color, false).unwrap();
    map.set_envelope_synchronized(position, true).unwrap();
    let read = reread(&map);
    let envelopes = read.envelopes();
    assert_eq!(envelopes[0].name(), "sunset");
    assert_eq!(envelopes[0].item().synchronized, Some(0));
    assert_eq!(envelopes[1].item().synchronized, Some(1));
    assert_eq!(envelopes[1].name(), "still");
}

/// A map with a quads layer and a sounds layer in a new group, and the three envelopes.
fn with_layers() -> (Map, [ItemRef<Envelope>; 3], ItemRef<Layer>, ItemRef<Layer>) {
    let (mut map, envelopes) = three_envelopes();
    let group = map.add_group(NewGroup::new("Things")).unwrap();
    let quads = map
        .add_layer(group, Layer::new_quads("Quads", Vec::new()).unwrap())
        .unwrap();
    let sounds = map
        .add_layer(group, Layer::new_sounds("Sounds", Vec::new()).unwrap())
        .unwrap();
    (map, envelopes, quads, sounds)
}

/// A quad without envelopes (a zeroed one names envelope 0 twice).
fn plain_quad() -> Quad {
    Quad {
        position_envelope: -1,
        color_envelope: -1,
        ..Quad::default()
    }
}

#[test]
fn quads_are_replaced_with_their_envelopes_checked() {
    let (mut map, _, layer, _) = with_layers();
    let mut quad = plain_quad();
    quad.points[4].x = 5 * 1024;
    quad.color_envelope = 0;
    quad.position_envelope = 1;
    quad.color_envelope_offset = 250;
    map.set_quads(layer, vec![quad, plain_quad()]).unwrap();
    let read = reread(&map);
    assert!(read.problems().is_empty(), "{:?}", read.problems());
    let twcodec::map::LayerContent::Quads(q) = read.layers()[1].content() else {
        panic!("not a quads layer");
    };
    assert_eq!(q.quads().unwrap(), [quad, plain_quad()]);
    let before = map.to_bytes().unwrap();
    for (bad, says) in [
        (
            Quad {
                color_envelope: 3,
                ..quad
            },
            "quad #0: field `color_envelope` = 3, but the map has 3 envelopes",
        ),
        (
            Quad {
                color_envelope: 1,
                ..quad
            },
            "quad #0: field `color_envelope` = 1 names a Position envelope, not a Color one",
        ),
        (
            Quad {
                position_envelope: -2,
                ..quad
            },
            "quad #0: field `position_envelope` = -2",
        ),
    ] {
        let e = map.set_quads(layer, vec![bad]).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    }
    assert_eq!(map.to_bytes().unwrap(), before);
    // Not a quads layer.
    let game = map.game_layer().unwrap().0;
    let e = map.set_quads(game, Vec::new()).unwrap_err().to_string();
    assert!(e.contains("not a quads layer"), "{e}");
}

#[test]
fn sources_are_replaced_with_their_fields_checked() {
    let (mut map, _, _, layer) = with_layers();
    let mut source = SoundSource::default();
    source.position.x = 64 * 1024;
    source.looping = 1;
    source.falloff = 80;
    source.sound_envelope = 2;
    source.position_envelope = 1;
    source.shape.kind = 1;
    source.shape.value1 = 300;
    map.set_sources(layer, vec![source]).unwrap();
    let read = reread(&map);
    assert!(read.problems().is_empty(), "{:?}", read.problems());
    let twcodec::map::LayerContent::Sounds(s) = read.layers()[2].content() else {
        panic!("not a sounds layer");
    };
    assert_eq!(s.sources().unwrap(), [source]);
    let before = map.to_bytes().unwrap();
    for (bad, says) in [
        (
            SoundSource {
                sound_envelope: 0,
                ..source
            },
            "source #0: field `sound_envelope` = 0 names a Color envelope, not a Sound one",
        ),
        (
            SoundSource {
                looping: 2,
                ..source
            },
            "source #0: field `looping` = 2; it is 0 or 1",
        ),
        (
            SoundSource {
                falloff: 256,
                ..source
            },
            "field `falloff` = 256",
        ),
        (
            SoundSource {
                delay: -1,
                ..source
            },
            "field `delay` = -1",
        ),
        (
            SoundSource {
                shape: twcodec::schema::map::sound::SoundShape {
                    kind: 2,
                    ..source.shape
                },
                ..source
            },
            "field `shape.kind` = 2",
        ),
    ] {
        let e = map.set_sources(layer, vec![bad]).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    }
    assert_eq!(map.to_bytes().unwrap(), before);
}

#[test]
fn images_are_renamed_within_what_the_game_loads() {
    let mut map = Map::new(10, 10).unwrap();
    let grass = map.add_external_image("grass_main").unwrap();
    let red = [255u8, 0, 0, 255].repeat(4);
    let own = map.add_embedded_image("own", 2, 2, red).unwrap();
    map.set_image_name(grass, "winter_main").unwrap();
    map.set_image_name(own, "mine").unwrap();
    let data = reread(&map).data_count();
    let read = reread(&map);
    let names: Vec<_> = (read.images().iter())
        .map(|i| i.name(&read).unwrap())
        .collect();
    assert_eq!(names, ["winter_main", "mine"]);
    // The name's data item is replaced, not added.
    map.set_image_name(own, "mine2").unwrap();
    assert_eq!(reread(&map).data_count(), data);
    let before = map.to_bytes().unwrap();
    let long = "n".repeat(twcodec::map::edit::MAX_IMAGE_NAME + 1);
    let e = map.set_image_name(grass, &long).unwrap_err().to_string();
    assert!(e.contains("at most 500"), "{e}");
    assert!(map.set_image_name(grass, "a\0b").is_err());
    assert!(map.add_external_image(&long).is_err());
    map.set_image_name(grass, &"n".repeat(500)).unwrap();
    map.set_image_name(grass, "winter_main").unwrap();
    assert_eq!(map.to_bytes().unwrap(), before);
}

/// Every corpus map's quads, sources and envelope points set to themselves read back equal:
/// what a map holds is accepted as it is.
#[test]
fn corpus_layers_and_points_set_to_themselves() {
    let Some(paths) = common::corpus_maps() else {
        eprintln!("skipped: no corpus (set TWCODEC_CORPUS)");
        return;
    };
    for path in paths {
        let Ok(mut map) = Map::open(&path) else {
            continue;
        };
        let layers: Vec<ItemRef<Layer>> = map.refs::<Layer>().collect();
        for layer in layers {
            let content = map.get(layer).unwrap().content();
            match content {
                twcodec::map::LayerContent::Quads(q) => {
                    if let Some(quads) = q.quads().map(<[Quad]>::to_vec) {
                        map.set_quads(layer, quads).unwrap();
                    }
                }
                twcodec::map::LayerContent::Sounds(s) => {
                    if let Some(sources) = s.sources().map(<[SoundSource]>::to_vec) {
                        map.set_sources(layer, sources).unwrap();
                    }
                }
                _ => {}
            }
        }
        let envelopes: Vec<ItemRef<Envelope>> = map.refs::<Envelope>().collect();
        let mut expected = Vec::new();
        for envelope in envelopes {
            let e = map.get(envelope).unwrap();
            let points = e.points(&map).to_vec();
            let tangents = e.bezier(&map).map(<[_]>::to_vec);
            // A map's own points go back even where they break the rules (out of order,
            // unknown curves).
            map.set_envelope_points(envelope, points.clone(), tangents.clone())
                .unwrap_or_else(|e| {
                    panic!("{}: envelope #{}: {e}", path.display(), envelope.index())
                });
            expected.push((envelope.index(), points, tangents));
        }
        let bytes = map.to_bytes().unwrap();
        let read = Map::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (index, points, tangents) in expected {
            let e = &read.envelopes()[index];
            assert_eq!(e.points(&read), points, "{}", path.display());
            if let Some(tangents) = tangents {
                if points.iter().any(|p| p.curve_type == 5) {
                    assert_eq!(e.bezier(&read).unwrap(), tangents, "{}", path.display());
                }
            }
        }
    }
}

#[test]
fn a_tiles_layer_color_envelope_and_its_offset() {
    let (mut map, [color, position, _]) = three_envelopes();
    let group = map.add_group(NewGroup::new("Back")).unwrap();
    let grid = twcodec::map::Grid::filled(4, 4, Default::default()).unwrap();
    let tiles = map
        .add_layer(group, Layer::new_tiles("Sky", grid).unwrap())
        .unwrap();
    map.set_layer_color_envelope(tiles, Some(color)).unwrap();
    map.set_layer_color_envelope_offset(tiles, 300).unwrap();
    let read = reread(&map);
    let item = read.layers()[1].tilemap().unwrap();
    assert_eq!((item.color_envelope, item.color_envelope_offset), (0, 300));
    let e = map
        .set_layer_color_envelope(tiles, Some(position))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not Color"), "{e}");
    let game = map.game_layer().unwrap().0;
    assert!(map.set_layer_color_envelope_offset(game, 1).is_err());
}

/// In a Teeworlds 0.7 map, bezier curves make the envelope version 3 and the points 22 ints
/// each, tangents inside them.
#[test]
fn bezier_points_in_a_teeworlds_07_map() {
    let mut map = Map::new(10, 10).unwrap();
    map.convert(twcodec::MapForm::Teeworlds07).unwrap();
    let plain = map
        .add_envelope(NewEnvelope {
            points: vec![point(0, 1, [0; 4])],
            ..NewEnvelope::new(EnvelopeKind::Color, "plain")
        })
        .unwrap();
    let curve = map
        .add_envelope(NewEnvelope::new(EnvelopeKind::Position, "curve"))
        .unwrap();
    assert!(!map.envelope_points().unwrap().wide());
    let out = EnvPointBezier {
        out_tangent_dx: [50, 0, 0, 0],
        out_tangent_dy: [512, 0, 0, 0],
        ..EnvPointBezier::default()
    };
    let points = vec![point(0, 5, [0; 4]), point(800, 1, [1024, 0, 0, 0])];
    map.set_envelope_points(curve, points.clone(), Some(vec![out, out]))
        .unwrap();
    let read = reread(&map);
    assert_eq!(read.form(), twcodec::MapForm::Teeworlds07);
    assert!(read.envelope_points().unwrap().wide());
    assert_eq!(read.envelopes()[1].item().version, 3);
    assert_eq!(read.envelopes()[1].points(&read), points);
    assert_eq!(read.envelopes()[1].bezier(&read).unwrap(), [out, out]);
    let plain = &read.envelopes()[plain.index()];
    assert_eq!(plain.points(&read), [point(0, 1, [0; 4])]);
}

#[test]
fn sounds_are_renamed() {
    let mut map = Map::new(10, 10).unwrap();
    let sound = map.add_sound("hum", b"OggS".to_vec()).unwrap();
    let data = reread(&map).data_count();
    map.set_sound_name(sound, "drone").unwrap();
    let read = reread(&map);
    assert_eq!(read.sounds()[0].name(&read).as_deref(), Some("drone"));
    assert_eq!(read.data_count(), data);
    let e = map
        .set_sound_name(sound, &"n".repeat(512))
        .unwrap_err()
        .to_string();
    assert!(e.contains("at most 511"), "{e}");
}
