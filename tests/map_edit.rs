//! Editing maps beyond tiles (`src/map/edit/`): every add, remove, move and typed setter on
//! real corpus maps, checked by content rather than by index. A map's "print" describes every
//! item and every reference by what it names (an image by its name, size and data size, an
//! envelope by its name, channels and points, ...), so that after an edit, and after a save and
//! a reload, each reference is shown to name the same item as before, wherever it moved.

mod common;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use twcodec::map::DataItem;

use proptest::prelude::*;
use twcodec::map::{
    Envelope, Grid, Group, Image, ItemRef, Layer, LayerContent, NewEnvelope, NewGroup, QuadRefs,
    Ref, Severity, Sound, SourceRefs,
};
use twcodec::schema::map::envelope::{CurveType, EnvPoint, EnvPointBezier, EnvelopeKind};
use twcodec::schema::map::quad::Quad;
use twcodec::schema::map::sound::SoundSource;
use twcodec::schema::map::tile::{tiles_as_bytes, Speedup, Tele, Tile};
use twcodec::{ErrorKind, Map};

use common::corpus_map;

/// Removed and added items the print leaves out, so that the print of a map before an edit and
/// the one after it can be compared: references to a removed item print as none.
#[derive(Debug, Clone, Default)]
struct Skip {
    image: Option<usize>,
    envelope: Option<usize>,
    sound: Option<usize>,
    group: Option<usize>,
    layers: Vec<usize>,
    /// Leaves out the hashes of layer content (slow in debug builds), for the checks after
    /// each random edit: references are printed all the same.
    contents: bool,
}

/// What a map holds, every reference shown by what it names.
#[derive(Debug, Clone, PartialEq)]
struct Print {
    info: Vec<Option<String>>,
    settings: Vec<String>,
    images: Vec<String>,
    envelopes: Vec<String>,
    sounds: Vec<String>,
    groups: Vec<String>,
    layers: Vec<LayerPrint>,
}

#[derive(Debug, Clone, PartialEq)]
struct LayerPrint {
    group: Option<String>,
    kind: &'static str,
    name: String,
    image: Option<String>,
    color_envelope: Option<String>,
    sound: Option<String>,
    /// Each quad's (position, color) envelopes, or each source's (position, sound).
    envelopes: Vec<(Option<String>, Option<String>)>,
    /// A hash of the content without its references.
    content: u64,
    /// The auto-mapper configuration: config, seed, automatic.
    automapper: Option<(i32, i32, bool)>,
}

fn hash_of(value: impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

fn image_text(map: &Map, image: &Image) -> String {
    let item = image.item();
    let size = image.data(map).get().and_then(|d| map.data_size(d));
    format!(
        "{:?} external={} {}x{} data={size:?}",
        image.name(map),
        image.is_external(),
        item.width,
        item.height
    )
}

/// An envelope: its name, channels, points, and the tangents of its bezier points (the only
/// ones readers use).
fn envelope_text(map: &Map, envelope: &Envelope) -> String {
    let item = envelope.item();
    let points = envelope.points(map);
    let tangents: Vec<EnvPointBezier> = (points.iter().enumerate())
        .filter(|(_, p)| p.curve() == CurveType::BEZIER)
        .map(|(i, _)| {
            let tangents = envelope.bezier(map).and_then(|b| b.get(i).copied());
            tangents.unwrap_or_default()
        })
        .collect();
    format!(
        "{:?} channels={} sync={:?} points={points:?} tangents={tangents:?}",
        envelope.name(),
        item.channels,
        item.synchronized,
    )
}

fn sound_text(map: &Map, sound: &Sound) -> String {
    let size = map
        .item_ref::<DataItem>(sound.item().data)
        .get()
        .and_then(|d| map.data_size(d));
    format!("{:?} data={size:?}", sound.name(map))
}

fn group_text(group: &Group) -> String {
    let item = group.item();
    format!(
        "{:?} offset={:?} parallax={:?} clip={:?}",
        group.name(),
        item.offset,
        item.parallax,
        item.clip
    )
}

/// What a reference names, `None` for none or a skipped item.
fn named<T>(r: Ref<T>, skip: Option<usize>, text: impl Fn(ItemRef<T>) -> String) -> Option<String> {
    match r {
        Ref::None => None,
        Ref::To(r) if Some(r.index()) == skip => None,
        Ref::To(r) => Some(text(r)),
        Ref::Dangling(raw) => Some(format!("dangling {raw}")),
    }
}

fn print(map: &Map, skip: &Skip) -> Print {
    let image = |r: Ref<Image>| named(r, skip.image, |r| image_text(map, map.get(r).unwrap()));
    let envelope = |raw: i32| {
        named(map.item_ref::<Envelope>(raw), skip.envelope, |r| {
            envelope_text(map, map.get(r).unwrap())
        })
    };
    let info = map.info().map(|info| {
        vec![
            info.author(map),
            info.map_version(map),
            info.credits(map),
            info.license(map),
        ]
    });
    let settings = map
        .info()
        .and_then(|info| info.settings(map).ok())
        .map(|s| s.to_vec());
    let mut layers = Vec::new();
    for (r, layer) in map.refs::<Layer>().zip(map.layers()) {
        if skip.layers.contains(&r.index()) {
            continue;
        }
        let (mut color_envelope, mut sound, mut envelopes) = (None, None, Vec::new());
        let tiles = |bytes: Option<&[u8]>| if skip.contents { 0 } else { hash_of(bytes) };
        let content = match layer.content() {
            LayerContent::Quads(q) => {
                let quads = q.quads().unwrap_or_default();
                envelopes = quads
                    .iter()
                    .map(|q| (envelope(q.position_envelope), envelope(q.color_envelope)))
                    .collect();
                let bare: Vec<Quad> = quads
                    .iter()
                    .map(|q| Quad {
                        position_envelope: 0,
                        color_envelope: 0,
                        ..*q
                    })
                    .collect();
                hash_of(&bare)
            }
            LayerContent::Sounds(s) => {
                sound = named(s.sound(map), skip.sound, |r| {
                    sound_text(map, map.get(r).unwrap())
                });
                let sources = s.sources().unwrap_or_default();
                envelopes = sources
                    .iter()
                    .map(|s| (envelope(s.position_envelope), envelope(s.sound_envelope)))
                    .collect();
                let bare: Vec<SoundSource> = sources
                    .iter()
                    .map(|s| SoundSource {
                        position_envelope: 0,
                        sound_envelope: 0,
                        ..*s
                    })
                    .collect();
                hash_of(&bare)
            }
            LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => {
                color_envelope = envelope(t.item().color_envelope);
                tiles(t.grid().map(|g| tiles_as_bytes(g.tiles())))
            }
            LayerContent::Tele(t) => tiles(t.grid().map(|g| tiles_as_bytes(g.tiles()))),
            LayerContent::Speedup(t) => tiles(t.grid().map(|g| tiles_as_bytes(g.tiles()))),
            LayerContent::Switch(t) => tiles(t.grid().map(|g| tiles_as_bytes(g.tiles()))),
            LayerContent::Tune(t) => tiles(t.grid().map(|g| tiles_as_bytes(g.tiles()))),
            LayerContent::Unknown(ints) => hash_of(ints),
            other => panic!("a layer kind this test does not know: {other:?}"),
        };
        layers.push(LayerPrint {
            group: map.group_of(r).and_then(|g| map.get(g)).map(group_text),
            kind: layer.kind_name(),
            name: layer.name(),
            image: image(layer.image(map)),
            color_envelope,
            sound,
            envelopes,
            content,
            automapper: map.automapper_of(r).map(|a| {
                let item = a.item();
                (item.config, item.seed, item.flags.automatic())
            }),
        });
    }
    Print {
        info: info.unwrap_or_default(),
        settings: settings.unwrap_or_default(),
        images: except(map.images(), skip.image, |i| image_text(map, i)),
        envelopes: except(map.envelopes(), skip.envelope, |e| envelope_text(map, e)),
        sounds: except(map.sounds(), skip.sound, |s| sound_text(map, s)),
        groups: except(map.groups(), skip.group, group_text),
        layers,
    }
}

/// Asserts that two prints are equal, naming the first part that differs.
#[track_caller]
fn same(actual: &Print, expected: &Print, what: &str) {
    assert_eq!(actual.info, expected.info, "{what}: info");
    assert_eq!(actual.settings, expected.settings, "{what}: settings");
    assert_eq!(actual.images, expected.images, "{what}: images");
    assert_eq!(actual.envelopes, expected.envelopes, "{what}: envelopes");
    assert_eq!(actual.sounds, expected.sounds, "{what}: sounds");
    assert_eq!(actual.groups, expected.groups, "{what}: groups");
    for (index, (a, e)) in actual.layers.iter().zip(&expected.layers).enumerate() {
        assert_eq!(a, e, "{what}: layer #{index}");
    }
    assert_eq!(actual.layers.len(), expected.layers.len(), "{what}: layers");
}

/// Each item's text but the skipped one's.
fn except<T>(items: &[T], skip: Option<usize>, text: impl Fn(&T) -> String) -> Vec<String> {
    (items.iter().enumerate())
        .filter(|&(index, _)| Some(index) != skip)
        .map(|(_, item)| text(item))
        .collect()
}

/// Reference problems (dangling values, ranges outside their arenas or overlapping, layers in
/// no group, physics layers outside the game group): what an edit must not add. In a map
/// without a game layer (removed on purpose) no physics layer is in the game group.
fn reference_problems(map: &Map) -> Vec<String> {
    let no_game = map.game_layer().is_none();
    let mut found: Vec<String> = map
        .problems()
        .iter()
        .filter(|p| !(no_game && p.message.ends_with("outside the game group")))
        .filter(|p| {
            [
                "points past",
                "no such layer",
                "outside the",
                "overlap",
                "is in group #",
                "in no group",
            ]
            .iter()
            .any(|needle| p.message.contains(needle))
        })
        .map(|p| format!("{:?} {}", p.severity, p.message))
        .collect();
    found.sort();
    found
}

/// The map written and read back.
fn reload(map: &Map) -> Map {
    Map::parse(&map.to_bytes().expect("the edited map writes")).expect("the edited map reads")
}

/// Checks an edited map against the print it should have, in memory and reloaded, and that
/// the reload finds no reference problem the original did not have.
fn check(original: &Map, edited: &Map, expected: &Print) {
    same(&print(edited, &Skip::default()), expected, "in memory");
    let reloaded = reload(edited);
    same(&print(&reloaded, &Skip::default()), expected, "reloaded");
    let before = reference_problems(original);
    let after = reference_problems(&reloaded);
    assert!(
        after.len() <= before.len(),
        "new reference problems: {after:#?}\nbefore: {before:#?}"
    );
}

/// Castle Echos (sounds, bezier envelopes, auto-mappers, every physics layer), loaded once.
fn castle() -> Option<Map> {
    static MAP: std::sync::OnceLock<Option<Map>> = std::sync::OnceLock::new();
    MAP.get_or_init(|| {
        corpus_map("ddnet_Castle_Echos.map").map(|bytes| Map::parse(&bytes).unwrap())
    })
    .clone()
}

fn skip_image(index: usize) -> Skip {
    Skip {
        image: Some(index),
        ..Skip::default()
    }
}

#[test]
fn removing_an_image_renumbers_every_layer() {
    let Some(map) = castle() else { return };
    assert!(map.images().len() > 3);
    // An image in the middle, used by some layer, so that both kinds of renumbering happen.
    let used: Vec<usize> = (0..map.images().len())
        .filter(|&i| {
            map.layers()
                .iter()
                .any(|l| l.image(&map).get().map(|r| r.index()) == Some(i))
        })
        .collect();
    let index = used[used.len() / 2];
    let mut edited = map.clone();
    let image = edited.refs::<Image>().nth(index).unwrap();
    let data_before = edited.data_count();
    edited.remove_image(image).unwrap();
    // Its name and pixels go, and nothing else.
    assert_eq!(edited.data_count(), data_before - 2);
    check(&map, &edited, &print(&map, &skip_image(index)));
}

#[test]
fn removing_every_image_and_sound() {
    let Some(map) = castle() else { return };
    let mut edited = map.clone();
    while let Some(image) = edited.refs::<Image>().next() {
        edited.remove_image(image).unwrap();
    }
    while let Some(sound) = edited.refs::<Sound>().next() {
        edited.remove_sound(sound).unwrap();
    }
    let reloaded = reload(&edited);
    assert!(reloaded.images().is_empty() && reloaded.sounds().is_empty());
    assert!(reloaded
        .layers()
        .iter()
        .all(|l| l.image(&reloaded) == Ref::None));
    // Every layer keeps its content, and the info its texts and settings.
    let mut expected = print(&map, &Skip::default());
    expected.images.clear();
    expected.sounds.clear();
    for layer in &mut expected.layers {
        layer.image = None;
        layer.sound = None;
    }
    check(&map, &edited, &expected);
    save_for_ddnet("no_images_no_sounds", &edited);
}

#[test]
fn removing_a_sound() {
    let Some(map) = castle() else { return };
    assert_eq!(map.sounds().len(), 3);
    let mut edited = map.clone();
    let sound = edited.refs::<Sound>().nth(1).unwrap();
    edited.remove_sound(sound).unwrap();
    let skip = Skip {
        sound: Some(1),
        ..Skip::default()
    };
    check(&map, &edited, &print(&map, &skip));
}

#[test]
fn removing_an_envelope_shifts_the_points_and_keeps_tangents_in_step() {
    let Some(map) = castle() else { return };
    let tangents = map.envelope_points().unwrap().bezier().unwrap().len();
    assert_eq!(tangents, map.envelope_points().unwrap().points().len());
    // Every envelope in turn: first, middle and last points, shared or not.
    for index in [0, map.envelopes().len() / 2, map.envelopes().len() - 1] {
        let mut edited = map.clone();
        let envelope = edited.refs::<Envelope>().nth(index).unwrap();
        let gone = edited.get(envelope).unwrap().points(&edited).len();
        edited.remove_envelope(envelope).unwrap();
        let points = edited.envelope_points().unwrap();
        assert_eq!(points.points().len(), tangents - gone);
        assert_eq!(points.bezier().unwrap().len(), points.points().len());
        let skip = Skip {
            envelope: Some(index),
            ..Skip::default()
        };
        check(&map, &edited, &print(&map, &skip));
    }
}

#[test]
fn an_envelope_shared_by_many_quads_leaves_them_all() {
    let Some(map) = castle() else { return };
    // The envelope most quads use.
    let mut uses = vec![0usize; map.envelopes().len()];
    for layer in map.layers() {
        if let LayerContent::Quads(q) = layer.content() {
            for quad in q.quads().unwrap_or_default() {
                for r in [quad.position_envelope(&map), quad.color_envelope(&map)] {
                    if let Some(r) = r.get() {
                        uses[r.index()] += 1;
                    }
                }
            }
        }
    }
    let (index, &most) = uses.iter().enumerate().max_by_key(|(_, &n)| n).unwrap();
    assert!(most > 1, "an envelope shared by several quads");
    let mut edited = map.clone();
    let envelope = edited.refs::<Envelope>().nth(index).unwrap();
    edited.remove_envelope(envelope).unwrap();
    let skip = Skip {
        envelope: Some(index),
        ..Skip::default()
    };
    check(&map, &edited, &print(&map, &skip));
}

#[test]
fn removing_a_layer_closes_the_group_and_moves_auto_mappers() {
    let Some(map) = castle() else { return };
    // A tiles layer with an auto-mapper, not the last of its group, so that later auto-mappers
    // of the group shift.
    let layer = map
        .refs::<Layer>()
        .find(|&r| {
            let group = map.group_of(r).unwrap();
            let last = map.get(group).unwrap().layers(&map).last();
            map.automapper_of(r).is_some() && last != Some(r)
        })
        .unwrap();
    let mut edited = map.clone();
    let automappers = edited.automappers().len();
    let r = edited.refs::<Layer>().nth(layer.index()).unwrap();
    edited.remove_layer(r).unwrap();
    assert_eq!(edited.automappers().len(), automappers - 1);
    let skip = Skip {
        layers: vec![layer.index()],
        ..Skip::default()
    };
    check(&map, &edited, &print(&map, &skip));
}

#[test]
fn removing_a_group_removes_its_layers() {
    let Some(map) = castle() else { return };
    // Every group that is not the game group, one at a time.
    let (game, _) = map.game_layer().unwrap();
    let game_group = map.group_of(game).unwrap();
    for group in map.refs::<Group>().filter(|&g| g != game_group) {
        let mut edited = map.clone();
        let layers: Vec<usize> = map
            .get(group)
            .unwrap()
            .layers(&map)
            .map(|l| l.index())
            .collect();
        let r = edited.refs::<Group>().nth(group.index()).unwrap();
        edited.remove_group(r).unwrap();
        let skip = Skip {
            group: Some(group.index()),
            layers,
            ..Skip::default()
        };
        check(&map, &edited, &print(&map, &skip));
        if group.index() == 1 {
            save_for_ddnet("group_1_removed", &edited);
        }
    }
}

#[test]
fn removing_the_game_group_leaves_a_map_without_game_layer() {
    let Some(map) = castle() else { return };
    let (game, _) = map.game_layer().unwrap();
    let mut edited = map.clone();
    let group = edited.group_of(edited.refs::<Layer>().nth(game.index()).unwrap());
    edited.remove_group(group.unwrap()).unwrap();
    assert!(edited.game_layer().is_none());
    assert!(edited.physics_layers().next().is_none());
    save_for_ddnet("game_group_removed", &edited);
    let reloaded = reload(&edited);
    assert!(reloaded
        .problems()
        .iter()
        .any(|p| p.severity == Severity::Error && p.message == "the map has no game layer"));
}

#[test]
fn adding_layers_to_groups() {
    let Some(map) = castle() else { return };
    let mut edited = map.clone();
    let (game, tiles) = edited.game_layer().unwrap();
    let (width, height) = {
        let grid = tiles.grid().unwrap();
        (grid.width(), grid.height())
    };
    let game_group = edited.group_of(game).unwrap();
    let first = edited.refs::<Group>().next().unwrap();
    let image = edited.refs::<Image>().nth(2).unwrap();
    let color = (edited.refs::<Envelope>())
        .find(|&e| edited.get(e).unwrap().item().kind() == EnvelopeKind::Color)
        .unwrap();
    let position = (edited.refs::<Envelope>())
        .find(|&e| edited.get(e).unwrap().item().kind() == EnvelopeKind::Position)
        .unwrap();

    // A tiles layer at the front of the first group: every later layer moves.
    let mut grid = Grid::filled(8, 4, Tile::default()).unwrap();
    grid.get_mut(1, 1).unwrap().id = 5;
    let tiles = edited
        .insert_layer(first, 0, Layer::new_tiles("Added", grid).unwrap())
        .unwrap();
    assert!(
        edited.get(game).is_none(),
        "layers moved: older references are stale"
    );
    edited.set_layer_image(tiles, Some(image)).unwrap();
    edited.set_layer_color_envelope(tiles, Some(color)).unwrap();
    let quad = Quad {
        position_envelope: 12345, // reset: references are set with the typed setters
        ..Quad::default()
    };
    let quads = edited
        .add_layer(first, Layer::new_quads("Quads+", vec![quad; 3]).unwrap())
        .unwrap();
    edited
        .set_quad_position_envelope(quads, 1, Some(position))
        .unwrap();
    edited
        .set_quad_color_envelope(quads, 2, Some(color))
        .unwrap();

    let added = [tiles.index(), quads.index()];
    let expected = print(&map, &Skip::default());
    let skip = Skip {
        layers: added.to_vec(),
        ..Skip::default()
    };
    same(&print(&edited, &skip), &expected, "edited");
    let reloaded = reload(&edited);
    same(&print(&reloaded, &skip), &expected, "edited");
    assert_eq!(
        reference_problems(&reloaded).len(),
        reference_problems(&map).len()
    );
    // The added layers hold what was set.
    let tiles = reloaded.refs::<Layer>().nth(added[0]).unwrap();
    let quads = reloaded.refs::<Layer>().nth(added[1]).unwrap();
    let layer = reloaded.get(tiles).unwrap();
    assert_eq!(layer.name(), "Added");
    let name = |r: Ref<Image>| reloaded.get(r.get().unwrap()).unwrap().name(&reloaded);
    assert_eq!(name(layer.image(&reloaded)), map.images()[2].name(&map));
    let LayerContent::Tiles(t) = layer.content() else {
        panic!("a tiles layer")
    };
    assert_eq!(t.grid().unwrap().get(1, 1).unwrap().id, 5);
    let env = |r: Ref<Envelope>| reloaded.get(r.get().unwrap()).unwrap().name();
    assert_eq!(
        env(t.color_envelope(&reloaded)),
        map.envelopes()[color.index()].name()
    );
    let LayerContent::Quads(q) = reloaded.get(quads).unwrap().content() else {
        panic!("a quads layer")
    };
    let q = q.quads().unwrap();
    assert_eq!(q[0].position_envelope(&reloaded), Ref::None);
    assert_eq!(
        env(q[1].position_envelope(&reloaded)),
        map.envelopes()[position.index()].name()
    );
    assert_eq!(
        env(q[2].color_envelope(&reloaded)),
        map.envelopes()[color.index()].name()
    );
    save_for_ddnet("layers_added", &edited);

    // Physics layers: one of each kind, in the game group, as large as the game layer.
    let game_group = edited.refs::<Group>().nth(game_group.index()).unwrap();
    let tele = Layer::new_tele(Grid::filled(width, height, Tele::default()).unwrap()).unwrap();
    let error = edited.add_layer(game_group, tele.clone()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidEdit);
    assert!(error.to_string().contains("already"), "{error}");
    let small = Layer::new_speedup(Grid::filled(4, 4, Speedup::default()).unwrap()).unwrap();
    assert!(edited.add_layer(game_group, small).is_err());
    let game = Layer::new_game(Grid::filled(width, height, Tile::default()).unwrap()).unwrap();
    assert!(edited.add_layer(game_group, game).is_err());
    let elsewhere = edited.refs::<Group>().next().unwrap();
    let tele_ref = edited
        .physics_layers()
        .find(|(_, l)| l.kind_name() == "tele");
    let tele_ref = tele_ref.unwrap().0;
    edited.remove_layer(tele_ref).unwrap();
    assert!(edited.add_layer(elsewhere, tele.clone()).is_err());
    let tele = edited.add_layer(game_group, tele).unwrap();
    let reloaded = reload(&edited);
    let tele = reloaded.get(reloaded.refs::<Layer>().nth(tele.index()).unwrap());
    assert_eq!(tele.unwrap().kind_name(), "tele");
    assert_eq!(
        reference_problems(&reloaded).len(),
        reference_problems(&map).len()
    );
    save_for_ddnet("tele_replaced", &edited);
}

#[test]
fn adding_images_sounds_envelopes_and_groups() {
    let Some(map) = castle() else { return };
    let mut edited = map.clone();
    let external = edited.add_external_image("grass_doodads").unwrap();
    let pixels: Vec<u8> = (0..16 * 16 * 4).map(|i| i as u8).collect();
    assert!(edited
        .add_embedded_image("bad", 16, 16, pixels[..100].to_vec())
        .is_err());
    let embedded = edited
        .add_embedded_image("gradient", 16, 16, pixels.clone())
        .unwrap();
    let sound = edited
        .add_sound("click", b"OggS not really".to_vec())
        .unwrap();
    let point = |time, curve_type, value| EnvPoint {
        time,
        curve_type,
        values: [value; 4],
    };
    let tangent = EnvPointBezier {
        out_tangent_dx: [7; 4],
        ..EnvPointBezier::default()
    };
    let envelope = edited
        .add_envelope(NewEnvelope {
            points: vec![point(0, 5, 0), point(500, 1, 1024)],
            tangents: Some(vec![tangent, EnvPointBezier::default()]),
            ..NewEnvelope::new(EnvelopeKind::Sound, "swell")
        })
        .unwrap();
    let group = edited.add_group(NewGroup::new("Front")).unwrap();
    assert!(edited.add_group(NewGroup::new("a name too long")).is_err());
    let layer = edited
        .add_layer(group, Layer::new_quads("Q", vec![Quad::default()]).unwrap())
        .unwrap();
    edited.set_layer_image(layer, Some(embedded)).unwrap();
    let sounds = edited
        .add_layer(
            group,
            Layer::new_sounds("S", vec![SoundSource::default()]).unwrap(),
        )
        .unwrap();
    edited.set_layer_sound(sounds, Some(sound)).unwrap();
    edited
        .set_source_sound_envelope(sounds, 0, Some(envelope))
        .unwrap();
    // Wrong kinds are refused.
    assert!(edited
        .set_source_position_envelope(sounds, 0, Some(envelope))
        .is_err());
    assert!(edited.set_layer_sound(layer, Some(sound)).is_err());
    assert!(edited
        .set_source_sound_envelope(sounds, 1, Some(envelope))
        .is_err());
    // Nothing moved: every reference taken so far still holds.
    assert!(edited.get(external).is_some());

    let reloaded = reload(&edited);
    let skip = Skip {
        image: Some(map.images().len()),
        envelope: Some(map.envelopes().len()),
        sound: Some(map.sounds().len()),
        group: Some(map.groups().len()),
        layers: vec![layer.index(), sounds.index()],
        ..Skip::default()
    };
    let mut expected = print(&map, &Skip::default());
    expected
        .images
        .push(image_text(&edited, edited.get(embedded).unwrap()));
    same(&print(&reloaded, &skip), &expected, "edited");
    assert_eq!(
        reference_problems(&reloaded).len(),
        reference_problems(&map).len()
    );
    let images = reloaded.images();
    assert_eq!(
        images[images.len() - 1].pixels(&reloaded).unwrap().bytes,
        pixels
    );
    assert_eq!(
        images[images.len() - 2].name(&reloaded).unwrap(),
        "grass_doodads"
    );
    let sound = &reloaded.sounds()[map.sounds().len()];
    assert_eq!(&*sound.data(&reloaded).unwrap(), b"OggS not really");
    let envelope = reloaded.envelopes().last().unwrap();
    assert_eq!(envelope.name(), "swell");
    assert_eq!(envelope.bezier(&reloaded).unwrap()[0], tangent);
    let LayerContent::Sounds(s) = reloaded.layers()[sounds.index()].content() else {
        panic!("a sounds layer")
    };
    let volume = s.sources().unwrap()[0]
        .sound_envelope(&reloaded)
        .get()
        .unwrap();
    assert_eq!(reloaded.get(volume).unwrap().name(), "swell");
    assert_eq!(
        reloaded.group_of(reloaded.refs::<Layer>().nth(layer.index()).unwrap()),
        reloaded.refs::<Group>().last()
    );
    save_for_ddnet("items_added", &edited);
}

#[test]
fn moving_a_layer_takes_its_auto_mapper_along() {
    let Some(map) = castle() else { return };
    let layer = map
        .refs::<Layer>()
        .find(|&r| map.automapper_of(r).is_some())
        .unwrap();
    let target = map
        .refs::<Group>()
        .find(|&g| Some(g) != map.group_of(layer))
        .unwrap();
    let mut edited = map.clone();
    let moved = edited.move_layer(layer, target, 0).unwrap_err();
    assert_eq!(
        moved.kind(),
        ErrorKind::InvalidEdit,
        "a reference of the original"
    );
    let r = edited.refs::<Layer>().nth(layer.index()).unwrap();
    let g = edited.refs::<Group>().nth(target.index()).unwrap();
    let moved = edited.move_layer(r, g, 0).unwrap();
    assert_eq!(edited.group_of(moved), Some(g));
    let print_of = |m: &Map, r: ItemRef<Layer>| {
        let index = r.index();
        let mut p = print(m, &Skip::default()).layers.remove(index);
        p.group = None;
        p
    };
    assert_eq!(print_of(&edited, moved), print_of(&map, layer));
    let reloaded = reload(&edited);
    let again = reloaded.refs::<Layer>().nth(moved.index()).unwrap();
    assert_eq!(print_of(&reloaded, again), print_of(&map, layer));
    assert!(reloaded.automapper_of(again).is_some());
    assert_eq!(
        reference_problems(&reloaded).len(),
        reference_problems(&map).len()
    );
    // The other layers keep everything but their place.
    let others = |m: &Map, skip: usize| {
        let mut p = print(
            m,
            &Skip {
                layers: vec![skip],
                ..Skip::default()
            },
        );
        p.layers.sort_by_key(|l| format!("{l:?}"));
        p
    };
    same(
        &others(&reloaded, moved.index()),
        &others(&map, layer.index()),
        "others",
    );
    // Physics layers stay in the game group.
    let (game, _) = edited.game_layer().unwrap();
    assert!(edited.move_layer(game, g, 0).is_err());
}

#[test]
fn foreign_and_stale_references_are_refused() {
    let Some(map) = castle() else { return };
    let mut other = map.clone();
    let image = map.refs::<Image>().next().unwrap();
    let layer = map.refs::<Layer>().next().unwrap();
    let envelope = map.refs::<Envelope>().next().unwrap();
    let group = map.refs::<Group>().next().unwrap();
    assert_eq!(std::mem::size_of::<ItemRef<Image>>(), 16);
    // Another map (a clone is one) finds nothing.
    assert!(map.get(image).is_some() && other.get(image).is_none());
    assert!(other.get(layer).is_none() && other.layer_mut(layer).is_none());
    assert!(other.group_of(layer).is_none() && other.automapper_of(layer).is_none());
    let data = map.images()[0].data(&map).get().unwrap();
    assert!(other.data(data).is_err() && other.data_size(data).is_none());
    assert!(other.set_data(data, vec![1]).is_err());
    for error in [
        other.remove_image(image).unwrap_err(),
        other.remove_layer(layer).unwrap_err(),
        other.remove_envelope(envelope).unwrap_err(),
        other.remove_group(group).unwrap_err(),
        other
            .set_layer_image(other.refs::<Layer>().next().unwrap(), Some(image))
            .unwrap_err(),
        other
            .add_layer(group, Layer::new_quads("x", vec![]).unwrap())
            .unwrap_err(),
    ] {
        assert_eq!(error.kind(), ErrorKind::InvalidEdit);
        assert!(
            error
                .to_string()
                .contains("from another map or from before a removal"),
            "{error}"
        );
    }
    // A removal makes every earlier reference to its kind stale, even to items that did not
    // move.
    let own = other.refs::<Image>().last().unwrap();
    let first = other.refs::<Image>().next().unwrap();
    let before = other.refs::<Layer>().next().unwrap();
    other.remove_image(own).unwrap();
    assert!(other.get(first).is_none());
    // Only the kind that moved (and the data items): layers did not.
    assert!(other.get(before).is_some());
    assert!(other.remove_image(first).is_err());
    // References taken now work.
    let first = other.refs::<Image>().next().unwrap();
    assert!(other.get(first).is_some());
    // Resolved references carry the map's stamp too.
    let quads = (other.layers().iter()).find_map(|l| match l.content() {
        LayerContent::Quads(q) => q.quads().and_then(|q| q.first().copied()),
        _ => None,
    });
    let env = quads.unwrap().color_envelope(&other).get();
    assert!(env.is_none_or(|e| other.get(e).is_some() && map.get(e).is_none()));
}

/// Teeworlds 0.7 maps: new tile layers are skip-compressed version 4, bezier envelopes make the
/// points 22 ints, and removing the last version-3 envelope makes them 6 ints again.
#[test]
fn teeworlds_07_maps_stay_07_maps() {
    let Some(bytes) = corpus_map("tw07dev2018_dm1_envv3.map") else {
        return;
    };
    let map = Map::parse(&bytes).unwrap();
    let mut edited = map.clone();
    let group = edited.refs::<Group>().next().unwrap();
    let tiles = Layer::new_tiles("New", Grid::filled(3, 3, Tile::default()).unwrap()).unwrap();
    let layer = edited.add_layer(group, tiles).unwrap();
    let envelope = edited
        .add_envelope(NewEnvelope {
            points: vec![EnvPoint {
                time: 0,
                curve_type: 5,
                values: [1, 2, 3, 4],
            }],
            ..NewEnvelope::new(EnvelopeKind::Color, "curve")
        })
        .unwrap();
    edited
        .set_layer_color_envelope(layer, Some(envelope))
        .unwrap();
    let reloaded = reload(&edited);
    assert_eq!(reloaded.form(), twcodec::MapForm::Teeworlds07);
    let LayerContent::Tiles(t) = reloaded.layers()[layer.index()].content() else {
        panic!("a tiles layer")
    };
    assert_eq!(t.item().version, 4);
    assert_eq!(t.layout(), twcodec::map::TileLayout::Skip);
    let skip = Skip {
        envelope: Some(map.envelopes().len()),
        layers: vec![layer.index()],
        ..Skip::default()
    };
    same(
        &print(&reloaded, &skip),
        &print(&map, &Skip::default()),
        "reloaded",
    );

    let mut edited = map.clone();
    while let Some(envelope) = edited.refs::<Envelope>().next() {
        edited.remove_envelope(envelope).unwrap();
    }
    let reloaded = reload(&edited);
    assert!(reloaded.envelopes().is_empty());
    assert_eq!(
        reloaded.envelope_points().map_or(0, |p| p.points().len()),
        0
    );
    assert_eq!(
        reference_problems(&reloaded).len(),
        reference_problems(&map).len()
    );
}

#[test]
fn every_corpus_map_survives_removing_its_first_items() {
    let Some(maps) = common::corpus_maps() else {
        return;
    };
    for path in maps {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(map) = Map::open(&path) else { continue };
        let mut edited = map.clone();
        let mut skip = Skip::default();
        if let Some(image) = edited.refs::<Image>().next() {
            edited.remove_image(image).unwrap();
            skip.image = Some(0);
        }
        if let Some(envelope) = edited.refs::<Envelope>().next() {
            edited.remove_envelope(envelope).unwrap();
            skip.envelope = Some(0);
        }
        if let Some(sound) = edited.refs::<Sound>().next() {
            edited.remove_sound(sound).unwrap();
            skip.sound = Some(0);
        }
        let expected = print(&map, &skip);
        same(&print(&edited, &Skip::default()), &expected, "{name}");
        let reloaded = reload(&edited);
        same(
            &print(&reloaded, &Skip::default()),
            &expected,
            "{name} reloaded",
        );
        assert!(
            reference_problems(&reloaded).len() <= reference_problems(&map).len(),
            "{name}: {:#?}",
            reference_problems(&reloaded)
        );
    }
}

/// Envelopes sharing their points (a crafted map): removing one keeps the points the others
/// cover.
#[test]
fn points_another_envelope_covers_stay() {
    let map = Map::parse(&common::hostile::envelopes_sharing_points(2, 6)).unwrap();
    let mut edited = map.clone();
    let first = edited.refs::<Envelope>().next().unwrap();
    edited.remove_envelope(first).unwrap();
    assert_eq!(edited.envelope_points().unwrap().points().len(), 6);
    let skip = Skip {
        envelope: Some(0),
        ..Skip::default()
    };
    check(&map, &edited, &print(&map, &skip));
}

/// An item too short for its layout is kept verbatim; renumbered, it is written in full from
/// its fields, so that it names the same data items.
#[test]
fn a_verbatim_item_is_written_anew_when_renumbered() {
    let mut writer = common::hostile::sample_writer();
    // The sound item without its data_size field.
    common::hostile::item(&mut writer, 7, 0).truncate(4);
    let map = Map::parse(&writer.to_vec().unwrap()).unwrap();
    assert!(map
        .problems()
        .iter()
        .any(|p| p.message.contains("too short")));
    let mut edited = map.clone();
    // The embedded image's name and pixels come before the sound's name and data.
    let checker = edited.refs::<Image>().nth(1).unwrap();
    edited.remove_image(checker).unwrap();
    let reloaded = reload(&edited);
    let sound = &reloaded.sounds()[0];
    assert_eq!(sound.name(&reloaded).as_deref(), Some("chime"));
    assert_eq!(
        &*sound.data(&reloaded).unwrap(),
        b"OggS placeholder, not real audio"
    );
    assert!(!reloaded
        .problems()
        .iter()
        .any(|p| p.message.contains("too short")));
    check(&map, &edited, &print(&map, &skip_image(1)));
}

/// A layer added to the front of a group does not move an empty group drawn before it into
/// that group's layers, and a layer added to the empty group then stays out of them.
#[test]
fn empty_groups_keep_their_place() {
    let map = twcodec_testkit::sample::map().unwrap();
    let mut edited = map.clone();
    let game = edited.refs::<Group>().nth(1).unwrap();
    let empty = edited.insert_group(1, NewGroup::new("Empty")).unwrap();
    let game = edited.refs::<Group>().nth(game.index() + 1).unwrap();
    let tiles = || Layer::new_tiles("t", Grid::filled(2, 2, Tile::default()).unwrap()).unwrap();
    edited.insert_layer(game, 0, tiles()).unwrap();
    let added = edited.add_layer(empty, tiles()).unwrap();
    assert_eq!(edited.group_of(added), Some(empty));
    let reloaded = reload(&edited);
    assert!(
        reference_problems(&reloaded).is_empty(),
        "{:#?}",
        reloaded.problems()
    );
    let names: Vec<(String, usize)> = (reloaded.groups().iter())
        .map(|g| (g.name(), g.layers(&reloaded).count()))
        .collect();
    let expected = [("Background", 2), ("Empty", 1), ("Game", 8)];
    assert_eq!(names, expected.map(|(n, c)| (n.to_string(), c)));
}

/// Saves an edited map for a check with DDNet's own loader (`map_test`), when
/// `TWCODEC_EDIT_OUT` names a directory.
fn save_for_ddnet(name: &str, map: &Map) {
    if let Some(dir) = std::env::var_os("TWCODEC_EDIT_OUT") {
        let path = std::path::Path::new(&dir).join(format!("{name}.map"));
        std::fs::write(&path, map.to_bytes().unwrap()).unwrap();
    }
}

/// One random edit.
#[derive(Debug, Clone)]
enum Op {
    RemoveImage(usize),
    RemoveSound(usize),
    RemoveEnvelope(usize),
    RemoveLayer(usize),
    RemoveGroup(usize),
    MoveLayer(usize, usize, usize),
    AddImage,
    AddEnvelope(bool),
    AddGroup,
    InsertGroup(usize),
    AddSound,
    AddTiles(usize, usize),
    AddQuads(usize),
    SetImage(usize, usize),
    SetQuadEnvelope(usize, usize),
    SetColorEnvelope(usize, usize),
    SetSound(usize, usize),
    SetSourceEnvelope(usize, usize),
    UseStale(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let n = 0..64usize;
    prop_oneof![
        n.clone().prop_map(Op::RemoveImage),
        n.clone().prop_map(Op::RemoveSound),
        n.clone().prop_map(Op::RemoveEnvelope),
        n.clone().prop_map(Op::RemoveLayer),
        n.clone().prop_map(Op::RemoveGroup),
        (n.clone(), n.clone(), n.clone()).prop_map(|(a, b, c)| Op::MoveLayer(a, b, c)),
        Just(Op::AddImage),
        any::<bool>().prop_map(Op::AddEnvelope),
        Just(Op::AddGroup),
        n.clone().prop_map(Op::InsertGroup),
        Just(Op::AddSound),
        (n.clone(), n.clone()).prop_map(|(a, b)| Op::AddTiles(a, b)),
        n.clone().prop_map(Op::AddQuads),
        (n.clone(), n.clone()).prop_map(|(a, b)| Op::SetImage(a, b)),
        (n.clone(), n.clone()).prop_map(|(a, b)| Op::SetQuadEnvelope(a, b)),
        (n.clone(), n.clone()).prop_map(|(a, b)| Op::SetColorEnvelope(a, b)),
        (n.clone(), n.clone()).prop_map(|(a, b)| Op::SetSound(a, b)),
        (n.clone(), n.clone()).prop_map(|(a, b)| Op::SetSourceEnvelope(a, b)),
        n.prop_map(Op::UseStale),
    ]
}

fn pick<T>(refs: impl Iterator<Item = T>, n: usize) -> Option<T> {
    let refs: Vec<T> = refs.collect();
    let len = refs.len();
    refs.into_iter().nth(n.checked_rem(len)?)
}

/// A print without layer content, for the checks after each random edit.
fn fast() -> Skip {
    Skip {
        contents: true,
        ..Skip::default()
    }
}

/// Applies one edit, checking what it did to the print; an edit the map refuses must leave it
/// as it was.
fn apply(map: &mut Map, op: &Op, stale: &mut Vec<ItemRef<Layer>>) {
    let before = print(map, &fast());
    let untouched = |map: &Map, before: &Print| same(&print(map, &fast()), before, "refused");
    match *op {
        Op::RemoveImage(n) => {
            let Some(r) = pick(map.refs::<Image>(), n) else {
                return;
            };
            let expected = print(
                map,
                &Skip {
                    image: Some(r.index()),
                    ..fast()
                },
            );
            map.remove_image(r).unwrap();
            same(&print(map, &fast()), &expected, "edited");
        }
        Op::RemoveSound(n) => {
            let Some(r) = pick(map.refs::<Sound>(), n) else {
                return;
            };
            let expected = print(
                map,
                &Skip {
                    sound: Some(r.index()),
                    ..fast()
                },
            );
            map.remove_sound(r).unwrap();
            same(&print(map, &fast()), &expected, "edited");
        }
        Op::RemoveEnvelope(n) => {
            let Some(r) = pick(map.refs::<Envelope>(), n) else {
                return;
            };
            let expected = print(
                map,
                &Skip {
                    envelope: Some(r.index()),
                    ..fast()
                },
            );
            map.remove_envelope(r).unwrap();
            same(&print(map, &fast()), &expected, "edited");
        }
        Op::RemoveLayer(n) => {
            let Some(r) = pick(map.refs::<Layer>(), n) else {
                return;
            };
            stale.push(r);
            let expected = print(
                map,
                &Skip {
                    layers: vec![r.index()],
                    ..fast()
                },
            );
            map.remove_layer(r).unwrap();
            same(&print(map, &fast()), &expected, "edited");
        }
        Op::RemoveGroup(n) => {
            let Some(r) = pick(map.refs::<Group>(), n) else {
                return;
            };
            let layers = map.get(r).unwrap().layers(map).map(|l| l.index()).collect();
            let skip = Skip {
                group: Some(r.index()),
                layers,
                ..fast()
            };
            let expected = print(map, &skip);
            map.remove_group(r).unwrap();
            same(&print(map, &fast()), &expected, "edited");
        }
        Op::MoveLayer(l, g, p) => {
            let (Some(layer), Some(group)) =
                (pick(map.refs::<Layer>(), l), pick(map.refs::<Group>(), g))
            else {
                return;
            };
            let moving = print(map, &fast()).layers[layer.index()].clone();
            let position = p % (map.get(group).unwrap().item().num_layers.max(0) as usize + 1);
            match map.move_layer(layer, group, position) {
                Ok(moved) => {
                    let mut after = print(map, &fast());
                    let mut now = after.layers.remove(moved.index());
                    now.group = moving.group.clone();
                    assert_eq!(now, moving);
                    let mut was = before.clone();
                    was.layers.remove(layer.index());
                    let key = |p: &mut Print| {
                        p.layers.iter_mut().for_each(|l| l.group = None);
                        p.layers.sort_by_key(|l| format!("{l:?}"));
                    };
                    key(&mut after);
                    key(&mut was);
                    assert_eq!(after, was);
                }
                Err(_) => untouched(map, &before),
            }
        }
        Op::AddImage => {
            let r = map
                .add_embedded_image("tiny", 1, 1, vec![1, 2, 3, 4])
                .unwrap();
            let skip = Skip {
                image: Some(r.index()),
                ..fast()
            };
            same(&print(map, &skip), &before, "edited");
        }
        Op::AddEnvelope(bezier) => {
            let r = map
                .add_envelope(NewEnvelope {
                    points: vec![EnvPoint {
                        time: 10,
                        curve_type: if bezier { 5 } else { 1 },
                        values: [3; 4],
                    }],
                    ..NewEnvelope::new(EnvelopeKind::Color, "random")
                })
                .unwrap();
            let skip = Skip {
                envelope: Some(r.index()),
                ..fast()
            };
            same(&print(map, &skip), &before, "edited");
        }
        Op::AddGroup => {
            let r = map.add_group(NewGroup::new("random")).unwrap();
            let skip = Skip {
                group: Some(r.index()),
                ..fast()
            };
            same(&print(map, &skip), &before, "edited");
        }
        Op::InsertGroup(at) => {
            let at = at % (map.groups().len() + 1);
            let layer = map.refs::<Layer>().next();
            let image = map.refs::<Image>().next();
            let r = map.insert_group(at, NewGroup::new("inserted")).unwrap();
            let skip = Skip {
                group: Some(r.index()),
                ..fast()
            };
            same(&print(map, &skip), &before, "edited");
            // Layers and images did not move: their references hold.
            assert!(layer.is_none_or(|l| map.get(l).is_some()));
            assert!(image.is_none_or(|i| map.get(i).is_some()));
        }
        Op::AddSound => {
            let r = map.add_sound("random", vec![9u8; 20]).unwrap();
            let skip = Skip {
                sound: Some(r.index()),
                ..fast()
            };
            same(&print(map, &skip), &before, "edited");
        }
        Op::AddTiles(g, p) => {
            let Some(group) = pick(map.refs::<Group>(), g) else {
                return;
            };
            let layer = Layer::new_tiles("t", Grid::filled(2, 2, Tile::default()).unwrap());
            let position = p % (map.get(group).unwrap().item().num_layers.max(0) as usize + 1);
            match map.insert_layer(group, position, layer.unwrap()) {
                Ok(r) => {
                    let skip = Skip {
                        layers: vec![r.index()],
                        ..fast()
                    };
                    same(&print(map, &skip), &before, "edited");
                }
                Err(_) => untouched(map, &before),
            }
        }
        Op::AddQuads(g) => {
            let Some(group) = pick(map.refs::<Group>(), g) else {
                return;
            };
            let layer = Layer::new_quads("q", vec![Quad::default(); 2]).unwrap();
            match map.add_layer(group, layer) {
                Ok(r) => {
                    let skip = Skip {
                        layers: vec![r.index()],
                        ..fast()
                    };
                    same(&print(map, &skip), &before, "edited");
                }
                Err(_) => untouched(map, &before),
            }
        }
        Op::SetImage(l, i) => {
            let Some(layer) = pick(map.refs::<Layer>(), l) else {
                return;
            };
            let image = pick(map.refs::<Image>(), i);
            match map.set_layer_image(layer, image) {
                Ok(()) => {
                    let mut expected = before.clone();
                    expected.layers[layer.index()].image =
                        image.map(|r| image_text(map, map.get(r).unwrap()));
                    same(&print(map, &fast()), &expected, "edited");
                }
                Err(_) => untouched(map, &before),
            }
        }
        Op::SetQuadEnvelope(l, e) => {
            let Some(layer) = pick(map.refs::<Layer>(), l) else {
                return;
            };
            let envelope = pick(map.refs::<Envelope>(), e);
            match map.set_quad_color_envelope(layer, e % 3, envelope) {
                Ok(()) => {
                    let mut expected = before.clone();
                    expected.layers[layer.index()].envelopes[e % 3].1 =
                        envelope.map(|r| envelope_text(map, map.get(r).unwrap()));
                    same(&print(map, &fast()), &expected, "edited");
                }
                Err(_) => untouched(map, &before),
            }
        }
        Op::SetColorEnvelope(l, e) => {
            let Some(layer) = pick(map.refs::<Layer>(), l) else {
                return;
            };
            let envelope = pick(map.refs::<Envelope>(), e);
            match map.set_layer_color_envelope(layer, envelope) {
                Ok(()) => {
                    let mut expected = before.clone();
                    expected.layers[layer.index()].color_envelope =
                        envelope.map(|r| envelope_text(map, map.get(r).unwrap()));
                    same(&print(map, &fast()), &expected, "edited");
                }
                Err(_) => untouched(map, &before),
            }
        }
        Op::SetSound(l, n) => {
            let Some(layer) = pick(map.refs::<Layer>(), l) else {
                return;
            };
            let sound = pick(map.refs::<Sound>(), n);
            match map.set_layer_sound(layer, sound) {
                Ok(()) => {
                    let mut expected = before.clone();
                    expected.layers[layer.index()].sound =
                        sound.map(|r| sound_text(map, map.get(r).unwrap()));
                    same(&print(map, &fast()), &expected, "edited");
                }
                Err(_) => untouched(map, &before),
            }
        }
        Op::SetSourceEnvelope(l, e) => {
            let Some(layer) = pick(map.refs::<Layer>(), l) else {
                return;
            };
            let envelope = pick(map.refs::<Envelope>(), e);
            match map.set_source_position_envelope(layer, e % 3, envelope) {
                Ok(()) => {
                    let mut expected = before.clone();
                    expected.layers[layer.index()].envelopes[e % 3].0 =
                        envelope.map(|r| envelope_text(map, map.get(r).unwrap()));
                    same(&print(map, &fast()), &expected, "edited");
                }
                Err(_) => untouched(map, &before),
            }
        }
        Op::UseStale(n) => {
            let Some(&r) = pick(stale.iter(), n) else {
                return;
            };
            assert!(map.get(r).is_none());
            assert!(map.remove_layer(r).is_err());
            assert!(map.set_layer_image(r, None).is_err());
            untouched(map, &before);
        }
    }
}

fn random_edits(map: &Map, ops: &[Op]) {
    let mut edited = map.clone();
    let mut stale = vec![map.refs::<Layer>().next().unwrap()];
    for op in ops {
        apply(&mut edited, op, &mut stale);
    }
    let reloaded = reload(&edited);
    same(
        &print(&reloaded, &Skip::default()),
        &print(&edited, &Skip::default()),
        "reloaded",
    );
    save_for_ddnet(
        &format!("random_{:016x}", hash_of(format!("{ops:?}"))),
        &edited,
    );
    let before = reference_problems(map);
    let after = reference_problems(&reloaded);
    assert!(after.len() <= before.len(), "{after:#?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_edits_of_castle_echos_keep_every_reference(
        ops in prop::collection::vec(op(), 1..10)
    ) {
        if let Some(map) = castle() {
            random_edits(&map, &ops);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_edits_of_coverage_keep_every_reference(
        ops in prop::collection::vec(op(), 1..24)
    ) {
        if let Some(bytes) = corpus_map("ddnet_coverage.map") {
            random_edits(&Map::parse(&bytes).unwrap(), &ops);
        }
    }
}
