//! Hostile maps allocate what the map holds, not what its references multiply it to: layers
//! sharing one data item or expanding a few 0.7 tiles are refused before anything is inflated;
//! a dump inflates a data item shared by a thousand images once, converting them inflates
//! nothing, and a dump shows the points of envelopes that all share them once. The maps are
//! built in `tests/common/hostile.rs`.
//!
//! dhat counts every byte allocated while each case runs; the total is an upper bound on the
//! case's peak. One test only, because dhat's profiler is global to the test binary (the
//! datafile and snapshot cases are in `tests/memory.rs`).

mod common;

use common::hostile::*;
use common::{allocated, MIB};
use twcodec::{Datafile, Map, MapForm};
use twcodec_tools::dump::{self, DumpOptions};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// The sample with 1000 more images sharing one data item of 8 MiB of pixels.
fn images_sharing_pixels() -> Vec<u8> {
    let mut writer = sample_writer();
    let pixels = writer.add_data(vec![7u8; 8 << 20]) as i32;
    copies(&mut writer, (2, 1), 1000, 100, |ints| {
        ints[1] = 1024;
        ints[2] = 2048;
        ints[5] = pixels;
    });
    writer.to_vec().unwrap()
}

#[test]
fn hostile_maps_allocate_what_they_hold() {
    // Inputs are made before profiling starts.
    let sharing = ddnet_layers_sharing_data();
    let expanding = teeworlds07_layers_expanding();
    let images = images_sharing_pixels();
    let envelopes = envelopes_sharing_points(1000, 1000);

    let _profiler = dhat::Profiler::builder().testing().build();

    for (name, bytes) in [
        ("100 layers sharing 16 MiB of tiles", &sharing),
        ("10 0.7 layers expanding to 256 MiB each", &expanding),
    ] {
        let total = allocated(name, || {
            let datafile = Datafile::parse(bytes).unwrap();
            assert!(Map::from_datafile(&datafile).is_err());
        });
        assert!(total < MIB, "{name}: {total} bytes allocated");
    }

    // The images' map loads lazily (pixels are inflated on request): the dump inflates the
    // shared 8 MiB once (into one buffer of that size), not 1000 times.
    let map = Map::parse(&images).unwrap();
    let total = allocated("dump of 1000 images sharing 8 MiB", || {
        drop(dump::to_string(|out| {
            dump::map_json(&map, DumpOptions::default(), out)
        }));
    });
    assert!(
        total < 32 * MIB,
        "dump of shared images: {total} bytes allocated"
    );

    // Converting the images' map to 0.7 and back reads their format from the declared size:
    // nothing is inflated.
    let mut map = Map::parse(&images).unwrap();
    let total = allocated("converting 1000 images sharing 8 MiB", || {
        map.convert(MapForm::Teeworlds07).unwrap();
        map.convert(MapForm::Ddnet).unwrap();
    });
    assert!(
        total < MIB,
        "converting shared images: {total} bytes allocated"
    );

    // 1000 envelopes sharing 1000 points: one list of points in the dump, not a million.
    let map = Map::parse(&envelopes).unwrap();
    let total = allocated("dump of 1000 envelopes sharing 1000 points", || {
        drop(dump::to_string(|out| {
            dump::map_json(&map, DumpOptions::default(), out)
        }));
    });
    assert!(
        total < 16 * MIB,
        "dump of shared points: {total} bytes allocated"
    );
}
