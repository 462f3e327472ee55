//! Every input that fuzzing (`fuzz/`) found to crash, hang or over-allocate, written out as
//! bytes or built in code, run through its target's body and checked for the behaviour that
//! fixed it.
//! The smoke test (`tests/fuzz_smoke.rs`) runs the same bodies over seeds and mutations.

mod common;

use common::hostile;
use twcodec::snap::Snapshot;
use twcodec::ErrorKind;
use twcodec_testkit::fuzz::Target;

/// `snapshot`: a snapshot without items declaring 4 bytes of data read without error, and
/// writing it back dropped the data int (`[4, 0, x]` came back as `[0, 0]`). Now an error.
#[test]
fn snapshot_without_items_but_with_data() {
    let bytes = [
        0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0x60, 0x60, 0x60,
    ];
    Target::Snapshot.run(&bytes);
    let error = Snapshot::from_ints(&[4, 0, 0x6060_ffff]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Malformed);
    assert_eq!(
        error.to_string(),
        "data_size 4 without items: a snapshot without items has no data (at byte 0x0)"
    );
    // Without data the empty snapshot still reads.
    assert_eq!(Snapshot::from_ints(&[0, 0]).unwrap(), Snapshot::empty());
}

/// `map_roundtrip`: a Teeworlds 0.7 map converted to DDNet stores its skip-compressed tile
/// layers whole, so the written map declared more data in all than the fuzz limits it was read
/// under allow, and the target's read-back under those limits failed ("a written map parses").
/// Growing is right: the target now reads its own output back without limits after a
/// conversion (reading the writer's bytes allocates what writing them held), and under the
/// source's limits when nothing changed. Found as a 55 KB map of 35 data items whose 0.7 layers
/// took the declared total from 8.1 MB to 9.9 MB. Building this input showed a writer bug as
/// well: layers sharing a data item all wrote their tiles into it, so an edit of one showed in
/// the others (`map_graph.rs`, `an_edit_of_a_layer_sharing_its_data_stays_in_that_layer`).
#[test]
fn a_converted_map_outgrows_the_limits_of_its_source() {
    use hostile::{
        copies, item, sample_writer, HEIGHT, NUM_LAYERS, TILEMAP_VERSION, TILE_DATA, WIDTH,
    };
    use twcodec::schema::map::tile::{tiles_as_bytes, Tile};
    use twcodec::{Datafile, Map, MapForm};
    use twcodec_testkit::fuzz::FUZZ_LIMITS;

    // 6 tile layers of 256 x 1024 tiles (1 MiB each once expanded) sharing one data item of
    // 1024 runs of 256 empty tiles (4 KiB), and 6 unreferenced data items of 1 MiB of zeros.
    let mut writer = sample_writer();
    let run = Tile {
        skip: 255,
        ..Tile::default()
    };
    let index = writer.add_data(tiles_as_bytes(&vec![run; 1024]).to_vec()) as i32;
    let layer = item(&mut writer, 5, 3);
    layer[TILEMAP_VERSION] = 4;
    layer[WIDTH] = 256;
    layer[HEIGHT] = 1024;
    layer[TILE_DATA] = index;
    copies(&mut writer, (5, 3), 5, 100, |_| {});
    item(&mut writer, 4, 1)[NUM_LAYERS] += 5;
    for _ in 0..6 {
        writer.add_data(vec![0; 1 << 20]);
    }
    let bytes = writer.to_vec().unwrap();

    Target::MapRoundTrip.run(&bytes);

    let declared = |df: &Datafile| -> usize {
        (0..df.data_count())
            .map(|index| df.data_size(index).unwrap())
            .sum()
    };
    let source = Datafile::parse_with(&bytes, FUZZ_LIMITS).unwrap();
    assert!(declared(&source) < 7 << 20);
    let mut map = Map::from_datafile(&source).unwrap();
    map.convert(MapForm::Ddnet).unwrap();
    let written = map.to_bytes().unwrap();
    let error = Datafile::parse_with(&written, FUZZ_LIMITS).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert!(
        error.to_string().contains("(Limits::max_total_data)"),
        "{error}"
    );
    let again = Datafile::parse(&written).unwrap();
    assert!(declared(&again) > 12 << 20, "{}", declared(&again));
    let again = Map::from_datafile(&again).unwrap();
    assert_eq!(again.to_bytes().unwrap(), written);
}
