//! Loading modes of the map graph on the real maps: lazy (content decoded on first access),
//! by layer (the default), everything; the RGBA8 view of images; detaching data without a
//! second inflate; saving at a compression level; `Debug` and `Serialize` of a map.

mod common;

use std::borrow::Cow;

use common::*;
use twcodec::map::{DataItem, LayerContent};
use twcodec::{Datafile, Decode, Map};

/// A map is shared between threads: its lazy content is decoded once, whoever asks first.
#[test]
fn a_map_is_send_and_sync() {
    fn shared<T: Send + Sync>() {}
    shared::<Map>();
}

/// On every corpus map, a lazy map decoded from two threads at once, in opposite orders, ends
/// with the same layers and the same problems as an eager load, and before it is decoded it
/// reports exactly the eager map's problems that need no content.
#[test]
fn lazy_maps_report_what_eager_maps_report() {
    let Some(paths) = corpus_maps() else { return };
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let eager = Map::parse(&bytes).unwrap();
        let lazy = Map::parse_with(&bytes, twcodec::Decode::Lazy).unwrap();
        assert!(
            lazy.layers().iter().all(|layer| match layer.content() {
                LayerContent::Unknown(_) => layer.is_decoded(),
                _ => !layer.is_decoded(),
            }),
            "{name}: nothing decoded at open"
        );
        let at_open = lazy.problems();
        let eager_problems = eager.problems();
        assert!(
            eager_problems.starts_with(&at_open),
            "{name}: the problems found at open come first in the eager map"
        );
        let content: usize = eager.layers().iter().map(|l| l.is_decoded() as usize).sum();
        assert_eq!(
            content,
            eager.layers().len(),
            "{name}: eager maps decode every layer"
        );
        std::thread::scope(|scope| {
            scope.spawn(|| lazy.layers().iter().for_each(|layer| layer.decode()));
            scope.spawn(|| lazy.layers().iter().rev().for_each(|layer| layer.decode()));
        });
        assert_eq!(lazy.problems(), eager_problems, "{name}");
        assert_eq!(lazy.layers(), eager.layers(), "{name}: the same content");
        // Unmodified, a lazy map writes the same file without decoding anything.
        let untouched = Map::parse_with(&bytes, twcodec::Decode::Lazy).unwrap();
        assert_eq!(
            untouched.to_bytes().unwrap(),
            eager.to_bytes().unwrap(),
            "{name}"
        );
        assert!(untouched.layers().iter().all(|l| match l.content() {
            LayerContent::Unknown(_) => true,
            _ => !l.is_decoded(),
        }));
    }
}

/// A layer's content is decoded once: the second read gives the same allocation.
#[test]
fn lazy_content_is_decoded_once() {
    let Some(bytes) = corpus_map("ddnet_Castle_Echos.map") else {
        return;
    };
    let map = Map::parse_with(&bytes, twcodec::Decode::Lazy).unwrap();
    let (_, game) = map.game_layer().unwrap();
    let first = game.grid().unwrap().tiles().as_ptr();
    let second = game.grid().unwrap().tiles().as_ptr();
    assert_eq!(first, second);
    let (_, layer) = map
        .physics_layers()
        .find(|(_, l)| l.kind_name() == "tele")
        .unwrap();
    assert!(
        !layer.is_decoded(),
        "reading the game layer decodes no other"
    );
}

/// `Decode::All` inflates every embedded image's pixels and sound's data at load: reading
/// them afterwards borrows what the map holds, and equals what the datafile inflates.
#[test]
fn decode_all_loads_images_and_sounds() {
    let Some(bytes) = corpus_map("ddnet_Castle_Echos.map") else {
        return;
    };
    let df = Datafile::parse(&bytes).unwrap();
    let map = Map::parse_with(&bytes, Decode::All).unwrap();
    assert!(map.layers().iter().all(|layer| layer.is_decoded()));
    let embedded: Vec<_> = map.images().iter().filter(|i| !i.is_external()).collect();
    assert_eq!(embedded.len(), 11);
    for image in embedded {
        let pixels = image.pixels(&map).unwrap();
        assert!(
            matches!(pixels.bytes, Cow::Borrowed(_)),
            "kept, not inflated again"
        );
        let index = image.item().data as usize;
        assert_eq!(
            &pixels.bytes[..],
            &df.data(index).unwrap()[..pixels.bytes.len()]
        );
    }
    assert_eq!(map.sounds().len(), 3);
    for sound in map.sounds() {
        let data = sound.data(&map).unwrap();
        assert!(matches!(data, Cow::Borrowed(_)));
        assert_eq!(&data[..], &df.data(sound.item().data as usize).unwrap()[..]);
    }
    // A lazy map keeps image data once it is read.
    let lazy = Map::parse_with(&bytes, twcodec::Decode::Lazy).unwrap();
    let image = lazy.images().iter().find(|i| !i.is_external()).unwrap();
    image.pixels(&lazy).unwrap();
    assert!(matches!(
        image.pixels(&lazy).unwrap().bytes,
        Cow::Borrowed(_)
    ));
}

/// Every image has an RGBA8 view: the RGB image of a real map is widened with opaque alpha,
/// RGBA images are borrowed as they are.
#[test]
fn images_have_an_rgba8_view() {
    let Some(bytes) = corpus_map("infclass_normandie_rgb_in_v1_image.map") else {
        return;
    };
    let map = Map::parse(&bytes).unwrap();
    let image = &map.images()[0];
    let stored = image.pixels(&map).unwrap();
    assert_eq!(
        (stored.width, stored.height, stored.bytes_per_pixel),
        (128, 128, 3)
    );
    let rgba = image.rgba8(&map).unwrap();
    assert_eq!(
        (rgba.width, rgba.height, rgba.bytes_per_pixel),
        (128, 128, 4)
    );
    assert_eq!(rgba.bytes.len(), 128 * 128 * 4);
    for (rgb, rgba) in stored.bytes.chunks_exact(3).zip(rgba.bytes.chunks_exact(4)) {
        assert_eq!(&rgba[..3], rgb);
        assert_eq!(rgba[3], 255);
    }
    let Some(bytes) = corpus_map("ddnet_Castle_Echos.map") else {
        return;
    };
    let map = Map::parse(&bytes).unwrap();
    let image = map.images().iter().find(|i| !i.is_external()).unwrap();
    let rgba = image.rgba8(&map).unwrap();
    assert!(matches!(rgba.bytes, Cow::Borrowed(_)));
    assert_eq!(rgba.bytes, image.pixels(&map).unwrap().bytes);
    // External images have no pixels in the map.
    let Some(bytes) = corpus_map("tw06_stock_dm1.map") else {
        return;
    };
    let map = Map::parse(&bytes).unwrap();
    let error = map.images()[0].rgba8(&map).unwrap_err();
    assert!(error.to_string().contains("external"), "{error}");
}

/// Detaching data takes what the decoded layers hold instead of inflating it again, and the
/// bytes are the file's.
#[test]
fn detached_data_is_the_files_data() {
    for name in [
        "ddnet_Castle_Echos.map",
        "tw07_ctf5.map",
        "ddrace_Test_old_tile_layouts.map",
    ] {
        let Some(bytes) = corpus_map(name) else {
            return;
        };
        let df = Datafile::parse(&bytes).unwrap();
        let mut map = Map::parse(&bytes).unwrap();
        map.detach_data().unwrap();
        for index in 0..df.data_count() {
            let data = map
                .data(map.item_ref::<DataItem>(index as i32).get().unwrap())
                .unwrap();
            assert_eq!(
                &data[..],
                &df.data(index).unwrap()[..],
                "{name}: data {index}"
            );
        }
        // The map holds no file any more; it writes and reloads to the same graph.
        let again = Map::parse(&map.to_bytes().unwrap()).unwrap();
        assert_eq!(again.layers(), map.layers(), "{name}");
    }
}

/// Saving at a level compresses every data item anew at that level.
#[test]
fn maps_save_at_a_compression_level() {
    let Some(bytes) = corpus_map("ddnet_Tutorial.map") else {
        return;
    };
    let map = Map::parse(&bytes).unwrap();
    let stored = map.to_bytes_with(0).unwrap();
    let fast = map.to_bytes_with(1).unwrap();
    let small = map.to_bytes_with(9).unwrap();
    assert!(stored.len() > fast.len() && fast.len() > small.len());
    assert!(
        stored.len() > 4 * bytes.len(),
        "level 0 stores the data uncompressed"
    );
    for written in [&stored, &fast, &small] {
        let again = Map::parse(written).unwrap();
        assert_eq!(again.layers(), map.layers());
        assert_eq!(again.problems(), map.problems());
    }
    let error = map.to_bytes_with(10).unwrap_err();
    assert!(
        error.to_string().contains("compression level 10"),
        "{error}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.map");
    map.save_with(&path, 9).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), small);
}

/// `Debug` shows a map's structure (groups holding their layers, tile grids by their size), not
/// its tiles; `Serialize` is the JSON dump.
#[test]
fn maps_debug_and_serialize() {
    let Some(bytes) = corpus_map("fddrace_ChillBlock5_big.map") else {
        return;
    };
    let map = Map::parse(&bytes).unwrap();
    let debug = format!("{map:?}");
    assert!(debug.len() < 100_000, "{} bytes", debug.len());
    assert!(debug.contains("Grid { width: 943, height: 1075, .. }"));
    assert!(debug.starts_with("Map { form: Ddnet, version: Some(1), info:"));
    let lazy = Map::parse_with(&bytes, twcodec::Decode::Lazy).unwrap();
    assert!(format!("{lazy:?}").contains("<not decoded yet>"));

    let sample = Map::parse(&twcodec_testkit::sample::datafile()).unwrap();
    let view =
        twcodec_tools::dump::MapView::new(&sample, twcodec_tools::dump::DumpOptions::default());
    let json = serde_json::to_string(&view).unwrap();
    let mut dump = Vec::new();
    twcodec_tools::dump::map_json(
        &sample,
        twcodec_tools::dump::DumpOptions::default(),
        &mut dump,
    )
    .unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&json).unwrap(),
        serde_json::from_slice::<serde_json::Value>(&dump).unwrap()
    );
    insta_settings().bind(|| insta::assert_snapshot!("map_debug_sample", format!("{sample:#?}")));
}

/// Edits of a lazy map give what the same edits of an eager map give: a layer is decoded from
/// the file before an edit renumbers its item, so it never reads another item's data.
#[test]
fn lazy_maps_edit_like_eager_ones() {
    use twcodec::map::{Envelope, Group, Image, Layer, Sound};
    let Some(paths) = corpus_maps() else { return };
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let edit = |mut map: Map| {
            if let Some(r) = map.refs::<Image>().next() {
                map.remove_image(r).unwrap();
            }
            if let Some(r) = map.refs::<Sound>().next() {
                map.remove_sound(r).unwrap();
            }
            if let Some(r) = map.refs::<Envelope>().next() {
                map.remove_envelope(r).unwrap();
            }
            if let Some(r) = map.refs::<Layer>().next() {
                map.remove_layer(r).unwrap();
            }
            if let Some(r) = map.refs::<Group>().next_back() {
                map.remove_group(r).unwrap();
            }
            map
        };
        let eager = edit(Map::parse(&bytes).unwrap());
        let lazy = edit(Map::parse_with(&bytes, twcodec::Decode::Lazy).unwrap());
        assert_eq!(
            lazy.to_bytes().unwrap(),
            eager.to_bytes().unwrap(),
            "{name}"
        );
        lazy.decode_all();
        assert_eq!(lazy.layers(), eager.layers(), "{name}");
    }
}
