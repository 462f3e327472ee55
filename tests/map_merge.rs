//! Between maps (`src/map/edit/merge.rs`): copying an area ([`Map::replace_area`]) and
//! appending a map ([`Map::append`]), by their rules (every renumbered reference checked value
//! by value), as round trips, on the corpus, and against hostile input (exact errors, the map
//! left as it was).

mod common;

use twcodec::map::edit::{Merge, Merged, TileRect};
use twcodec::map::{
    DataItem, Envelope, Group, Image, Layer, LayerContent, NewEnvelope, Severity, Sound,
};
use twcodec::schema::map::envelope::{EnvPoint, EnvelopeKind};
use twcodec::schema::map::tile::{Tele, Tile};
use twcodec::Map;
use twcodec_testkit::sample;

fn bytes(map: &Map) -> Vec<u8> {
    map.to_bytes().expect("the map writes")
}

fn reload(map: &Map) -> Map {
    Map::parse(&bytes(map)).expect("the written map loads")
}

/// The error problems of a map, as text.
fn errors(map: &Map) -> Vec<String> {
    map.decode_all();
    (map.problems().into_iter())
        .filter(|p| p.severity == Severity::Error)
        .map(|p| p.to_string())
        .collect()
}

/// Every problem of a map, as text.
fn problems(map: &Map) -> Vec<String> {
    map.decode_all();
    map.problems().into_iter().map(|p| p.to_string()).collect()
}

fn merged(from: usize, to: usize, name: &str, how: Merge) -> Merged {
    Merged {
        from,
        to,
        name: name.to_string(),
        how,
    }
}

/// The raw references of a layer: image, color envelope, sound, and each quad's or source's
/// two envelopes.
fn raw_refs(layer: &Layer) -> Vec<i32> {
    match layer.content() {
        LayerContent::Quads(q) => std::iter::once(q.item().image)
            .chain(
                (q.quads().unwrap().iter())
                    .flat_map(|quad| [quad.position_envelope, quad.color_envelope]),
            )
            .collect(),
        LayerContent::Sounds(s) => std::iter::once(s.item().sound)
            .chain(
                (s.sources().unwrap().iter())
                    .flat_map(|source| [source.position_envelope, source.sound_envelope]),
            )
            .collect(),
        _ => layer
            .tilemap()
            .map(|t| vec![t.image, t.color_envelope])
            .unwrap_or_default(),
    }
}

/// A color envelope of two points, fading to `alpha`.
fn fade(name: &str, alpha: i32) -> NewEnvelope {
    NewEnvelope {
        points: vec![
            EnvPoint {
                time: 0,
                curve_type: 1,
                values: [1024; 4],
            },
            EnvPoint {
                time: 1000,
                curve_type: 1,
                values: [1024, 1024, 1024, alpha],
            },
        ],
        ..NewEnvelope::new(EnvelopeKind::Color, name)
    }
}

// ---------------------------------------------------------------------------------------------
// Append: rules

#[test]
fn appending_the_sample_into_an_empty_map_renumbers_every_reference() {
    let other = sample::map().unwrap();
    let mut map = sample::empty_map().unwrap();
    // Something before, so that every appended index shifts.
    map.add_external_image("first").unwrap();
    map.add_envelope(fade("first", 0)).unwrap();
    map.add_sound("first", vec![1u8, 2, 3]).unwrap();
    let report = map.append(&other).unwrap();
    assert_eq!(
        report.images,
        [
            merged(0, 1, "grass_main", Merge::Added),
            merged(1, 2, "checker", Merge::Added)
        ]
    );
    assert_eq!(report.sounds, [merged(0, 1, "chime", Merge::Added)]);
    let envelopes: Vec<(usize, usize)> = report.envelopes.iter().map(|m| (m.from, m.to)).collect();
    assert_eq!(envelopes, [(0, 1), (1, 2), (2, 3)]);
    // The background group, then the game group's tiles layer in a group of its own.
    let groups: Vec<(usize, usize, usize, bool)> = (report.groups.iter())
        .map(|g| (g.from, g.to, g.layers, g.from_game_group))
        .collect();
    assert_eq!(groups, [(0, 0, 2, false), (1, 1, 1, true)]);
    let dropped: Vec<&str> = report.dropped.iter().map(|d| d.kind).collect();
    assert_eq!(
        dropped,
        ["game", "front", "tele", "speedup", "switch", "tune"]
    );
    assert_eq!(report.automappers, 1);
    assert_eq!(map.layers().len(), 3);
    // Quads: image 1 (checker) -> 2; position envelope 1 -> 2, color envelope 2 -> 3.
    assert_eq!(raw_refs(&map.layers()[0]), [2, 2, 3, -1, 3]);
    // Sounds: sound 0 -> 1; position envelope 1 -> 2, sound envelope 0 -> 1.
    assert_eq!(raw_refs(&map.layers()[1]), [1, 2, 1, 2, 1]);
    // Ground: image 0 (grass_main) -> 1, color envelope 2 -> 3.
    assert_eq!(raw_refs(&map.layers()[2]), [1, 3]);
    // The group keeps the background's parallax, offset and clip; the game group's layers
    // are drawn as the game draws its group.
    let background = &other.groups()[0].item();
    let appended = map.groups()[0].item();
    assert_eq!(
        (appended.parallax, appended.offset, appended.clip),
        (background.parallax, background.offset, background.clip)
    );
    assert_eq!(map.groups()[1].name(), "Game");
    assert_eq!(
        (
            map.groups()[1].item().parallax.x,
            map.groups()[1].item().offset.x
        ),
        (100, 0)
    );
    // The auto-mapper names the ground layer in its new group.
    let automapper = &map.automappers()[0];
    assert_eq!((automapper.item().group, automapper.item().layer), (1, 0));
    let reloaded = reload(&map);
    assert_eq!(
        reloaded.automappers()[0]
            .layer(&reloaded)
            .map(|l| l.index()),
        Some(2)
    );
    // The empty map has no game layer: that is its one error.
    assert_eq!(errors(&reloaded), ["the map has no game layer"]);
    // Pixels came along.
    let checker = |m: &Map, i: usize| m.images()[i].rgba8(m).unwrap().bytes.into_owned();
    assert_eq!(checker(&reloaded, 2), checker(&other, 1));
}

#[test]
fn identical_images_sounds_and_envelopes_are_shared_and_others_renamed() {
    let mut map = sample::map().unwrap();
    let mut other = sample::map().unwrap();
    let checker = other.refs::<Image>().nth(1).unwrap();
    let pixels = other.images()[1].rgba8(&other).unwrap().bytes.into_owned();
    // The same name with other pixels: renamed.
    other
        .replace_image(checker, 4, 4, [9u8; 64].to_vec())
        .unwrap();
    // This map's checker pixels under another name: shared.
    other.add_embedded_image("copy", 4, 4, pixels).unwrap();
    // An envelope first shifts every envelope of the other map; a new one is added.
    let extra = other.add_envelope(fade("extra", 0)).unwrap();
    other.move_envelope(extra, 0).unwrap();
    let before_groups = map.groups().len();
    let report = map.append(&other).unwrap();
    assert_eq!(
        report.images,
        [
            merged(0, 0, "grass_main", Merge::Shared),
            merged(1, 2, "checker", Merge::Renamed("checker (1)".into())),
            merged(2, 1, "copy", Merge::Shared),
        ]
    );
    assert_eq!(map.images()[2].name(&map).as_deref(), Some("checker (1)"));
    assert_eq!(report.sounds, [merged(0, 0, "chime", Merge::Shared)]);
    let envelopes: Vec<(usize, usize, &Merge)> = (report.envelopes.iter())
        .map(|m| (m.from, m.to, &m.how))
        .collect();
    assert_eq!(
        envelopes,
        [
            (0, 3, &Merge::Added),
            (1, 0, &Merge::Shared),
            (2, 1, &Merge::Shared),
            (3, 2, &Merge::Shared)
        ]
    );
    assert_eq!(map.envelopes().len(), 4);
    // The appended quads layer: image checker (1) = 2, envelopes back to this map's 1 and 2.
    let quads = map.groups()[before_groups].layers(&map).next().unwrap();
    assert_eq!(raw_refs(map.get(quads).unwrap()), [2, 1, 2, -1, 2]);
    // Settings: the same ones, so none added.
    assert!(report.settings_added.is_empty());
    assert_eq!(report.settings_present, 2);
    assert!(errors(&reload(&map)).is_empty());
}

#[test]
fn settings_are_merged_without_duplicates() {
    let mut map = sample::empty_map().unwrap();
    let mut other = sample::empty_map().unwrap();
    let ours = map.info().unwrap().settings(&map).unwrap().to_vec();
    assert!(!ours.is_empty());
    // The other map: one of ours and a new one.
    let theirs = [ours[0].clone(), "sv_new_setting 1".to_string()];
    let settings = other.info().unwrap().item().settings.unwrap();
    let data = other.item_ref::<DataItem>(settings).get().unwrap();
    other
        .set_data(data, twcodec::schema::map::settings_data(&theirs))
        .unwrap();
    let report = map.append(&other).unwrap();
    assert_eq!(report.settings_added, ["sv_new_setting 1"]);
    assert_eq!(report.settings_present, 1);
    let reloaded = reload(&map);
    let mut expected = ours.clone();
    expected.push("sv_new_setting 1".into());
    assert_eq!(
        reloaded
            .info()
            .unwrap()
            .settings(&reloaded)
            .unwrap()
            .to_vec(),
        expected
    );
}

#[test]
fn appending_then_removing_what_came_gives_back_the_map() {
    let original = sample::map().unwrap();
    let mut other = sample::map().unwrap();
    // Nothing of the other map is shared.
    let checker = other.refs::<Image>().nth(1).unwrap();
    other
        .replace_image(checker, 2, 2, [7u8; 16].to_vec())
        .unwrap();
    let mut map = original.clone();
    let report = map.append(&other).unwrap();
    // Groups, then images, envelopes and sounds added, last first.
    for g in report.groups.iter().rev() {
        let group = map.refs::<Group>().nth(g.to).unwrap();
        map.remove_group(group).unwrap();
    }
    let added = |list: &[Merged]| -> Vec<usize> {
        let mut to: Vec<usize> = (list.iter())
            .filter(|m| m.how != Merge::Shared)
            .map(|m| m.to)
            .collect();
        to.sort_unstable();
        to.reverse();
        to
    };
    for to in added(&report.images) {
        map.remove_image(map.refs::<Image>().nth(to).unwrap())
            .unwrap();
    }
    for to in added(&report.envelopes) {
        let envelope = map.refs::<Envelope>().nth(to).unwrap();
        map.remove_envelope(envelope).unwrap();
    }
    for to in added(&report.sounds) {
        map.remove_sound(map.refs::<Sound>().nth(to).unwrap())
            .unwrap();
    }
    assert_eq!(
        format!("{:?}", reload(&map)),
        format!("{:?}", reload(&original))
    );
}

// ---------------------------------------------------------------------------------------------
// Append: hostile

#[test]
fn more_than_64_images_is_an_error_that_changes_nothing() {
    let mut map = sample::empty_map().unwrap();
    for i in 0..60u8 {
        map.add_embedded_image(&format!("own {i}"), 1, 1, vec![i, 0, 0, 255])
            .unwrap();
    }
    let mut other = sample::empty_map().unwrap();
    for i in 0..5u8 {
        other
            .add_embedded_image(&format!("new {i}"), 1, 1, vec![i, 1, 0, 255])
            .unwrap();
    }
    let before = bytes(&map);
    let error = map.append(&other).unwrap_err();
    assert_eq!(
        error.to_string(),
        "appending gives 65 images (60 here, 5 new); DDNet loads at most 64"
    );
    assert_eq!(bytes(&map), before);
    // Shared images count once: 4 new and one like an image here fit.
    let mut other = sample::empty_map().unwrap();
    for i in 0..4u8 {
        other
            .add_embedded_image(&format!("new {i}"), 1, 1, vec![i, 1, 0, 255])
            .unwrap();
    }
    other
        .add_embedded_image("like own 3", 1, 1, vec![3, 0, 0, 255])
        .unwrap();
    let report = map.append(&other).unwrap();
    assert_eq!(map.images().len(), 64);
    assert_eq!(report.images[4], merged(4, 3, "like own 3", Merge::Shared));
}

#[test]
fn references_stay_valid_across_an_append() {
    let mut map = sample::map().unwrap();
    let image = map.refs::<Image>().next().unwrap();
    let layer = map.refs::<Layer>().next().unwrap();
    map.append(&sample::map().unwrap()).unwrap();
    assert!(map.get(image).is_some());
    assert!(map.get(layer).is_some());
}

// ---------------------------------------------------------------------------------------------
// Replace an area: rules

/// The tele layer (#5) of a map.
fn tele(map: &Map) -> &twcodec::map::Grid<Tele> {
    match map.layers()[5].content() {
        LayerContent::Tele(t) => t.grid().unwrap(),
        _ => panic!("layer #5 is not the tele layer"),
    }
}

fn game(map: &Map) -> &twcodec::map::Grid<Tile> {
    map.game_layer().unwrap().1.grid().unwrap()
}

#[test]
fn an_area_copies_every_tile_layer_physics_included() {
    let from = sample::map().unwrap();
    let mut map = sample::map().unwrap();
    // Tele tiles at (5,2) and (8,2); copy 4,1 5x2 to 1,4.
    let report = map
        .replace_area(&from, TileRect::new(4, 1, 5, 2), (1, 4))
        .unwrap();
    let t = tele(&map);
    assert_eq!(t.get(2, 5).map(|t| (t.number, t.id)), Some((1, 26)));
    assert_eq!(t.get(5, 5).map(|t| (t.number, t.id)), Some((1, 27)));
    // The rest of the target area is cleared: its game border tiles too.
    for y in 4..6 {
        for x in 1..6 {
            let expected = *game(&from).get(x + 3, y - 3).unwrap();
            assert_eq!(game(&map).get(x, y), Some(&expected), "({x},{y})");
        }
    }
    // Outside, nothing changed.
    assert_eq!(game(&map).get(0, 5), game(&from).get(0, 5));
    assert_eq!(tele(&map).get(5, 2), tele(&from).get(5, 2));
    let game_entry = &report.layers[2];
    assert_eq!((game_entry.kind, game_entry.tiles), ("game", 10));
    assert!(game_entry.changed);
    assert!(report.envelopes.is_empty());
    let reloaded = reload(&map);
    assert_eq!(tele(&reloaded).get(2, 5), tele(&map).get(2, 5));
    assert!(errors(&reloaded).is_empty());
}

#[test]
fn quads_move_through_the_groups_parallax_and_bring_their_envelopes() {
    // The background group has parallax 50: game tile (2,4) is group pixel (32,64), the
    // pivot of the first quad.
    let mut from = sample::map().unwrap();
    let mut map = sample::map().unwrap();
    // In the source, the first quad's color envelope is a new one.
    let new = from.add_envelope(fade("new", 128)).unwrap();
    let quads = from.refs::<Layer>().next().unwrap();
    from.set_quad_color_envelope(quads, 0, Some(new)).unwrap();
    let report = map
        .replace_area(&from, TileRect::new(2, 4, 1, 1), (6, 4))
        .unwrap();
    let entry = &report.layers[0];
    assert_eq!((entry.removed, entry.added), (0, 1));
    let LayerContent::Quads(q) = map.layers()[0].content() else {
        panic!()
    };
    let list = q.quads().unwrap();
    assert_eq!(list.len(), 3);
    // Moved by 4 game tiles = 64 group pixels at parallax 50.
    let copied = list[2];
    let original = from_quads(&from)[0];
    assert_eq!(copied.pivot().x, original.pivot().x + 64 * 1024);
    assert_eq!(copied.pivot().y, original.pivot().y);
    // Envelopes: position envelope 1 is the same here (shared, same index); the new color
    // envelope is added as #3.
    assert_eq!((copied.position_envelope, copied.color_envelope), (1, 3));
    assert_eq!(
        report.envelopes,
        [
            merged(1, 1, "", Merge::Shared).with_name(&from, 1),
            merged(3, 3, "new", Merge::Added)
        ]
    );
    assert_eq!(map.envelopes()[3].points(&map), new_points(&from));
    // The sounds layer: its source at group pixel (200,64) is outside.
    assert_eq!((report.layers[1].removed, report.layers[1].added), (0, 0));
    // Copying back replaces the copied quad by the first one: quads are removed by pivot.
    let again = map.clone();
    let report = map
        .replace_area(&again, TileRect::new(6, 4, 1, 1), (2, 4))
        .unwrap();
    assert_eq!((report.layers[0].removed, report.layers[0].added), (1, 1));
}

trait WithName {
    fn with_name(self, map: &Map, envelope: usize) -> Merged;
}
impl WithName for Merged {
    fn with_name(mut self, map: &Map, envelope: usize) -> Merged {
        self.name = map.envelopes()[envelope].name();
        self
    }
}

fn from_quads(map: &Map) -> Vec<twcodec::schema::map::quad::Quad> {
    match map.layers()[0].content() {
        LayerContent::Quads(q) => q.quads().unwrap().to_vec(),
        _ => panic!("layer #0 is not a quads layer"),
    }
}

fn new_points(map: &Map) -> Vec<EnvPoint> {
    map.envelopes()[3].points(map).to_vec()
}

#[test]
fn an_area_copied_onto_itself_changes_nothing() {
    let mut map = sample::map().unwrap();
    let before = bytes(&map);
    let copy = map.clone();
    let report = map
        .replace_area(&copy, TileRect::new(0, 0, 12, 8), (0, 0))
        .unwrap();
    assert!(report.layers.iter().all(|l| !l.changed), "{report:?}");
    assert!(report.layers[0].added == 2 && report.layers[0].removed == 2);
    assert_eq!(bytes(&map), before);
    let report = map
        .replace_area(&copy, TileRect::new(3, 2, 4, 3), (3, 2))
        .unwrap();
    assert!(report.layers.iter().all(|l| !l.changed));
    assert_eq!(bytes(&map), before);
}

// ---------------------------------------------------------------------------------------------
// Replace an area: hostile

#[test]
fn maps_of_another_structure_are_refused_and_nothing_changes() {
    let mut map = sample::map().unwrap();
    let before = bytes(&map);
    let mut other = sample::map().unwrap();
    let tune = other.refs::<Layer>().nth(8).unwrap();
    let game_group = other.refs::<Group>().nth(1).unwrap();
    other.move_layer(tune, game_group, 0).unwrap();
    let error = map
        .replace_area(&other, TileRect::new(0, 0, 2, 2), (0, 0))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the maps differ in structure: layer #2 is a tune layer in the source map and a game \
         layer in this one"
    );
    let mut other = sample::map().unwrap();
    other
        .remove_layer(other.refs::<Layer>().nth(8).unwrap())
        .unwrap();
    let error = map
        .replace_area(&other, TileRect::new(0, 0, 2, 2), (0, 0))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the maps differ in structure: the source map has 8 layers and this one 9, from layer \
         #8 on"
    );
    let mut other = sample::map().unwrap();
    let sounds = other.refs::<Layer>().nth(1).unwrap();
    let game_group = other.refs::<Group>().nth(1).unwrap();
    other.move_layer(sounds, game_group, 7).unwrap();
    let error = map
        .replace_area(&other, TileRect::new(0, 0, 2, 2), (0, 0))
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("the maps differ in structure: layer #1"),
        "{error}"
    );
    assert_eq!(bytes(&map), before);
}

#[test]
fn areas_outside_either_map_or_empty_are_refused() {
    let mut map = sample::map().unwrap();
    let before = bytes(&map);
    let from = sample::map().unwrap();
    let cases = [
        (
            TileRect::new(10, 6, 3, 2),
            (0, 0),
            "the area 10,6 3x2 reaches out of the source map's 12x8 game layer",
        ),
        (
            TileRect::new(0, 0, 3, 2),
            (10, 0),
            "the target area 10,0 3x2 reaches out of this map's 12x8 game layer",
        ),
        (
            TileRect::new(u32::MAX, 0, 3, 2),
            (0, 0),
            "the area 4294967295,0 3x2 reaches out of the source map's 12x8 game layer",
        ),
        (
            TileRect::new(1, 1, 0, 3),
            (0, 0),
            "the area 1,1 0x3 holds no tiles",
        ),
    ];
    for (area, to, message) in cases {
        let error = map.replace_area(&from, area, to).unwrap_err();
        assert_eq!(error.to_string(), message);
    }
    assert_eq!(bytes(&map), before);
}

// ---------------------------------------------------------------------------------------------
// The corpus

#[test]
fn every_corpus_map_appends_into_a_small_map() {
    let Some(maps) = common::corpus_maps() else {
        return;
    };
    for path in maps {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(other) = Map::open(&path) else {
            continue;
        };
        let mut map = sample::map().unwrap();
        let groups_before = map.groups().len();
        let report = match map.append(&other) {
            Ok(report) => report,
            Err(error) => {
                // Only a limit may refuse a corpus map (a map of more than 64 images).
                assert!(
                    other.images().len() + 2 > 64 || other.sounds().len() + 1 > 64,
                    "{name}: {error}"
                );
                continue;
            }
        };
        let reloaded = reload(&map);
        assert!(
            errors(&reloaded).len() <= errors(&other).len(),
            "{name}: {:?}",
            errors(&reloaded)
        );
        // No new warnings either: the sample has none, so every one is the other map's.
        let base = problems(&sample::map().unwrap()).len();
        assert!(
            problems(&reloaded).len() <= problems(&other).len() + base,
            "{name}: {:#?}\nthe other map's: {:#?}",
            problems(&reloaded),
            problems(&other)
        );
        // Every image is there, with its pixels.
        assert_eq!(report.images.len(), other.images().len(), "{name}");
        for m in &report.images {
            let (ours, theirs) = (&reloaded.images()[m.to], &other.images()[m.from]);
            assert_eq!(ours.is_external(), theirs.is_external(), "{name}: {m:?}");
            if !theirs.is_external() {
                assert_eq!(
                    ours.rgba8(&reloaded).unwrap().bytes,
                    theirs.rgba8(&other).unwrap().bytes,
                    "{name}: {m:?}"
                );
            }
            if m.how == Merge::Added {
                assert_eq!(ours.name(&reloaded), theirs.name(&other), "{name}");
            }
        }
        // Every group but a game group holding only physics layers, every layer but the
        // dropped ones.
        assert_eq!(
            reloaded.groups().len(),
            groups_before + report.groups.len(),
            "{name}"
        );
        let grouped = (other.refs::<Layer>())
            .filter(|&l| other.group_of(l).is_some())
            .count();
        let appended: usize = report.groups.iter().map(|g| g.layers).sum();
        assert_eq!(appended + report.dropped.len(), grouped, "{name}");
        assert_eq!(
            reloaded.layers().len(),
            sample::map().unwrap().layers().len() + appended,
            "{name}"
        );
        // Each appended layer names what its original named, value by value through the
        // report, in the order of the other map's groups and layers.
        let dropped: Vec<usize> = report.dropped.iter().map(|d| d.layer).collect();
        let image_to = |raw: i32| to_index(&report.images, raw);
        let envelope_to = |raw: i32| to_index(&report.envelopes, raw);
        let sound_to = |raw: i32| to_index(&report.sounds, raw);
        let mut next = sample::map().unwrap().layers().len();
        for g in &report.groups {
            let layers = (other.refs::<Layer>())
                .filter(|&l| other.group_of(l).map(|g| g.index()) == Some(g.from))
                .filter(|l| !dropped.contains(&l.index()));
            for l in layers {
                let (theirs, ours) = (other.get(l).unwrap(), &reloaded.layers()[next]);
                assert_eq!(ours.kind_name(), theirs.kind_name(), "{name}");
                let raw = raw_refs(theirs);
                let expected: Vec<i32> = match theirs.content() {
                    LayerContent::Quads(_) => std::iter::once(image_to(raw[0]))
                        .chain(raw[1..].iter().map(|&r| envelope_to(r)))
                        .collect(),
                    LayerContent::Sounds(_) => std::iter::once(sound_to(raw[0]))
                        .chain(raw[1..].iter().map(|&r| envelope_to(r)))
                        .collect(),
                    _ => vec![image_to(raw[0]), envelope_to(raw[1])],
                };
                assert_eq!(raw_refs(ours), expected, "{name}: layer #{next}");
                next += 1;
            }
        }
        let _ = bytes(&reloaded);
    }
}

#[test]
fn corpus_maps_copy_areas_between_maps_of_one_structure_and_into_themselves() {
    let Some(maps) = common::corpus_maps() else {
        return;
    };
    let loaded: Vec<(String, Map)> = (maps.iter())
        .filter_map(|path| {
            let map = Map::open(path).ok()?;
            map.game_layer()?;
            Some((path.file_name()?.to_string_lossy().into_owned(), map))
        })
        .collect();
    let mut pairs = 0;
    for (a, from) in &loaded {
        for (b, to) in &loaded {
            if a == b {
                continue;
            }
            let mut map = to.clone();
            let (fw, fh) = size(from);
            let (tw, th) = size(to);
            let (w, h) = (fw.min(tw) / 2, fh.min(th) / 2);
            match map.replace_area(from, TileRect::new(0, 0, w.max(1), h.max(1)), (0, 0)) {
                Ok(_) => {
                    pairs += 1;
                    let reloaded = reload(&map);
                    assert!(
                        problems(&reloaded).len() <= problems(to).len(),
                        "{a} -> {b}: {:#?}",
                        problems(&reloaded)
                    );
                }
                Err(error) => assert!(
                    error
                        .to_string()
                        .starts_with("the maps differ in structure"),
                    "{a} -> {b}: {error}"
                ),
            }
        }
    }
    eprintln!("{pairs} pairs of corpus maps of the same structure");
    for (name, from) in &loaded {
        // The top-left quarter to the bottom-right one.
        let (w, h) = size(from);
        let (qw, qh) = ((w / 2).max(1), (h / 2).max(1));
        let mut map = from.clone();
        let report = map
            .replace_area(from, TileRect::new(0, 0, qw, qh), (w - qw, h - qh))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let reloaded = reload(&map);
        assert!(
            problems(&reloaded).len() <= problems(from).len(),
            "{name}: {:#?}",
            problems(&reloaded)
        );
        // The game layer's area is the source's, tile for tile.
        for y in 0..qh as usize {
            for x in 0..qw as usize {
                let to = (x + (w - qw) as usize, y + (h - qh) as usize);
                assert_eq!(
                    game(&reloaded).get(to.0, to.1),
                    game(from).get(x, y),
                    "{name}: ({x},{y})"
                );
            }
        }
        // Every other physics layer too (they are the game layer's size).
        for (index, layer) in from.layers().iter().enumerate() {
            if !layer.is_physics() || report.layers.iter().all(|l| l.layer != index) {
                continue;
            }
            if let (LayerContent::Tele(a), LayerContent::Tele(b)) =
                (layer.content(), reloaded.layers()[index].content())
            {
                let (a, b) = (a.grid().unwrap(), b.grid().unwrap());
                assert_eq!(
                    b.get((w - qw) as usize, (h - qh) as usize),
                    a.get(0, 0),
                    "{name}: tele"
                );
            }
        }
        // And the same area onto itself changes nothing.
        let mut same = from.clone();
        let before = bytes(&same);
        same.replace_area(from, TileRect::new(0, 0, qw, qh), (0, 0))
            .unwrap();
        // References to no envelope become none, the one change a copy onto itself makes.
        if !has_dangling_envelopes(from) {
            assert!(
                bytes(&same) == before,
                "{name}: a copy onto itself changed the map"
            );
        }
    }
}

/// The game layer's width and height.
fn size(map: &Map) -> (u32, u32) {
    let item = map.game_layer().unwrap().1.item();
    (item.width as u32, item.height as u32)
}

/// The index in this map that serves for item `raw` of the other map, -1 for none.
fn to_index(merged: &[Merged], raw: i32) -> i32 {
    match usize::try_from(raw) {
        Ok(raw) => (merged.iter())
            .find(|m| m.from == raw)
            .map_or(-1, |m| m.to as i32),
        // None stays as stored.
        Err(_) => raw,
    }
}

/// Whether a quad or source names an envelope the map does not have.
fn has_dangling_envelopes(map: &Map) -> bool {
    let dangling = |raw: i32| raw >= 0 && raw as usize >= map.envelopes().len();
    map.layers().iter().any(|layer| match layer.content() {
        LayerContent::Quads(_) | LayerContent::Sounds(_) => {
            raw_refs(layer)[1..].iter().any(|&raw| dangling(raw))
        }
        _ => false,
    })
}
