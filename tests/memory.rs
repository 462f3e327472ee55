//! Hostile inputs allocate little: data items declaring 1 GiB or 200 MiB, a zlib bomb, absurd
//! counts in datafiles and in snapshot deltas, a tile layer claiming 10^10 tiles, packed ints
//! past what a snapshot holds, demos of many message chunks or empty deltas.
//!
//! dhat counts every byte allocated while each case runs; the total is an upper bound on the
//! case's peak. One test only, because dhat's profiler is global to the test binary.

mod common;

use common::*;
use twcodec::{Datafile, DatafileWriter};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Parses, then inflates every data item, expecting some step to fail.
fn parse_and_inflate(bytes: &[u8]) {
    let result = Datafile::parse(bytes)
        .and_then(|df| (0..df.data_count()).try_for_each(|i| df.data(i).map(drop)));
    assert!(result.is_err());
}

#[test]
fn hostile_inputs_allocate_little() {
    // Inputs are made before profiling starts.
    let base = small_v4();
    let at = layout(&base);
    // Over the total limit (refused by the parser) and under it (refused before inflating).
    let gib = with_i32(&base, at.data_sizes + 4, 1 << 30);
    let mib200 = with_i32(&base, at.data_sizes + 4, 200 << 20);

    // A zlib bomb: 64 MiB of zeros (about 64 KiB stored) declared as 1000 bytes.
    let mut w = DatafileWriter::new();
    w.add_zlib_data(deflate_zeros(64 << 20), 1000);
    let bomb = w.to_vec().unwrap();

    // 1 MiB of zeros declared as 1 MiB: the legitimate neighbour of the bomb.
    let mut w = DatafileWriter::new();
    w.add_data(vec![0u8; 1 << 20]);
    let honest = w.to_vec().unwrap();

    let huge_counts = [
        with_i32(&base, 16, 65536),
        with_i32(&base, 20, i32::MAX),
        with_i32(&base, 24, i32::MAX),
        with_i32(&base, 28, 0x7FFF_FFFC),
        with_i32(&base, 32, i32::MAX),
    ];

    // Snapshot deltas whose counts promise far more than their few ints hold.
    let sizes = twcodec::snap::SizeTable::ddnet_06();
    let delta_counts = [
        vec![0, i32::MAX, 0, 9, 0],
        vec![0, i32::MAX, 0, 30, 0, i32::MAX],
        vec![i32::MAX, i32::MAX, 0],
    ];
    let packed_counts = twcodec::snap::packing::pack_ints(&[0, i32::MAX, 0, 30, 0, i32::MAX]);

    // The sample map whose game layer claims 100000 x 100000 tiles over its small data.
    let sample = Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap();
    let mut writer = DatafileWriter::from_datafile(&sample);
    let game = writer
        .items_mut()
        .iter_mut()
        .find(|item| item.type_id() == 5 && item.id() == 2)
        .unwrap();
    game.data[4] = 100_000;
    game.data[5] = 100_000;
    let huge_grid = writer.to_vec().unwrap();

    // Packed input of 1 MiB of zero ints: a snapshot or delta takes at most 16384.
    let packed_zeros = vec![0u8; 1 << 20];
    // A delta adding an item of 16000 ints to a snapshot that already holds about 60 KiB.
    let mut builder = twcodec::snap::SnapshotBuilder::new();
    builder.add_item(30, 0, &[1; 15_000]).unwrap();
    let full = builder.finish().unwrap();
    let mut builder = twcodec::snap::SnapshotBuilder::new();
    builder.add_item(31, 0, &[2; 16_000]).unwrap();
    let grow = twcodec::snap::SnapshotDelta::create(
        &twcodec::snap::Snapshot::empty(),
        &builder.finish().unwrap(),
    )
    .unwrap();
    // A demo tick of 40 message chunks, each 64 KiB of zeros in 8 KiB of Huffman code (256 KiB
    // each once unpacked into bytes of ints).
    use twcodec::schema::demo::ChunkKind;
    let zeros = twcodec::huffman::compress(&[0; 65536]);
    let mut chunks = vec![None];
    chunks.extend((0..40).map(|_| Some((ChunkKind::Message, zeros.clone()))));
    let messages_demo = hostile::demo(5, &[], &chunks);
    // A 64 KiB snapshot, then 2000 ticks of an empty delta (4 bytes each with their marker).
    let mut builder = twcodec::snap::SnapshotBuilder::new();
    builder.add_item(30, 0, &[0; 16_000]).unwrap();
    let snapshot = twcodec::huffman::compress(&builder.finish().unwrap().to_packed());
    let empty = twcodec::huffman::compress(&twcodec::snap::packing::pack_ints(&[0, 0, 0]));
    let mut chunks = vec![None, Some((ChunkKind::Snapshot, snapshot))];
    for _ in 0..2000 {
        chunks.extend([None, Some((ChunkKind::Delta, empty.clone()))]);
    }
    let deltas_demo = hostile::demo(5, &[], &chunks);

    let _profiler = dhat::Profiler::builder().testing().build();

    for (what, result) in [
        (
            "1 MiB of packed ints as a snapshot",
            allocated("packed snapshot", || {
                assert!(twcodec::snap::Snapshot::from_packed(&packed_zeros).is_err());
            }),
        ),
        (
            "1 MiB of packed ints as a delta",
            allocated("packed delta", || {
                assert!(twcodec::snap::SnapshotDelta::from_packed(&packed_zeros, &sizes).is_err());
            }),
        ),
    ] {
        assert!(result < 80 * 1024, "{what} allocated {result} bytes");
    }
    let bytes = allocated("apply past 64 KiB", || assert!(full.apply(&grow).is_err()));
    assert!(bytes < 4096, "apply past 64 KiB allocated {bytes} bytes");

    // The replay decodes each message to check it, one at a time, and keeps the chunks: what
    // the frames hold stays small (decoded, the 40 would take 10 MiB).
    let demo = twcodec::demo::Demo::parse(&messages_demo).unwrap();
    let before = dhat::HeapStats::get().curr_bytes;
    let frames: Vec<_> = demo.replay().collect::<Result<_, _>>().unwrap();
    let held = dhat::HeapStats::get().curr_bytes.saturating_sub(before) as u64;
    assert_eq!(frames[0].messages.len(), 40);
    eprintln!("a tick of 40 large messages: {held} bytes held");
    assert!(held < MIB, "a tick of 40 large messages holds {held} bytes");
    drop(frames);
    let bytes = allocated("2000 empty deltas", || {
        let demo = twcodec::demo::Demo::parse(&deltas_demo).unwrap();
        let frames: Vec<_> = demo.replay().collect::<Result<_, _>>().unwrap();
        assert_eq!(frames.len(), 2001);
        let _ = twcodec_tools::dump::to_string(|out| twcodec_tools::dump::demo_ticks(&demo, out));
    });
    assert!(bytes < 8 * MIB, "2000 empty deltas allocated {bytes} bytes");

    for limits in [twcodec::Limits::default(), twcodec::Limits::UNLIMITED] {
        let bytes = allocated("huge tile grid", || {
            let datafile = Datafile::parse_with(&huge_grid, limits).unwrap();
            // An error under the default limits, a problem reported without them.
            let _ = twcodec::Map::from_datafile(&datafile);
        });
        assert!(bytes < MIB, "huge tile grid allocated {bytes} bytes");
    }

    for ints in &delta_counts {
        let bytes = allocated("absurd delta count", || {
            assert!(twcodec::snap::SnapshotDelta::from_ints(ints, &sizes).is_err());
        });
        assert!(bytes < 4096, "absurd delta count allocated {bytes} bytes");
    }
    let bytes = allocated("absurd packed delta count", || {
        assert!(twcodec::snap::SnapshotDelta::from_packed(&packed_counts, &sizes).is_err());
    });
    assert!(
        bytes < 4096,
        "absurd packed delta count allocated {bytes} bytes"
    );

    let bytes = allocated("1 GiB declaration", || parse_and_inflate(&gib));
    assert!(bytes < MIB, "1 GiB declaration allocated {bytes} bytes");

    let bytes = allocated("200 MiB declaration", || parse_and_inflate(&mib200));
    assert!(bytes < MIB, "200 MiB declaration allocated {bytes} bytes");

    let bytes = allocated("zlib bomb", || parse_and_inflate(&bomb));
    assert!(bytes < MIB, "zlib bomb allocated {bytes} bytes");

    let bytes = allocated("1 MiB of honest data", || {
        let df = Datafile::parse(&honest).unwrap();
        assert_eq!(df.data(0).unwrap().len(), 1 << 20);
    });
    assert!(bytes < 2 * MIB, "1 MiB of data allocated {bytes} bytes");

    for input in &huge_counts {
        let bytes = allocated("absurd count", || parse_and_inflate(input));
        assert!(bytes < 64 * 1024, "absurd count allocated {bytes} bytes");
    }
}

fn deflate_zeros(len: usize) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(&vec![0u8; len]).unwrap();
    encoder.finish().unwrap()
}
