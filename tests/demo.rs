//! Demos: every corpus demo reads, embeds the map DEMOS.md names and replays; per-tick
//! checksums and `demo info` reviewed as snapshots; Huffman coding reproduces every real
//! chunk; malformed demos give clear errors; demos built to cost more than their size do not.

mod common;

use std::path::PathBuf;

use common::{corpus_dir, hostile, insta_settings};
use twcodec::demo::{ChunkContent, Demo, Update};
use twcodec::huffman;
use twcodec_tools::dump;

/// Every corpus demo with the corpus map DEMOS.md says it embeds.
const DEMOS: [(&str, &str); 6] = [
    (
        "064_ddnet_join_chat_walk_disconnect__client.demo",
        "ddnet_Tutorial.map",
    ),
    (
        "075_ddnet_tinycave_other_player_join__client_foo.demo",
        "tinycave_1094b.map",
    ),
    (
        "075_tw_dm1_join_chat_walk_disconnect__client.demo",
        "tw07dev2018_dm1_envv3.map",
    ),
    (
        "075_tw_tinycave_other_player_disconnect__client_bar.demo",
        "tinycave_1094b.map",
    ),
    (
        "075_tw_tinycave_other_player_join_round_start__client_foo.demo",
        "tinycave_1094b.map",
    ),
    (
        "075_tw_tinycave_other_player_respawn__client_bar.demo",
        "tinycave_1094b.map",
    ),
];

fn demo_path(corpus: &std::path::Path, name: &str) -> PathBuf {
    corpus.join("demos").join(name)
}

/// A short name for snapshot files.
fn short(name: &str) -> String {
    name.trim_end_matches(".demo").replace("__", "_")
}

#[test]
fn every_demo_reads_embeds_its_map_and_replays() {
    let Some(corpus) = corpus_dir() else { return };
    for (name, map_name) in DEMOS {
        let demo = Demo::open(demo_path(&corpus, name)).unwrap();
        let map = std::fs::read(corpus.join("maps").join(map_name)).unwrap();
        assert_eq!(&demo.map_bytes()[..], &map[..], "{name} embeds {map_name}");
        assert!(demo.map_crc_matches(), "{name}");
        assert_ne!(demo.map_sha256_matches(), Some(false), "{name}");
        assert_eq!(demo.map_sha256_matches().is_some(), demo.version() >= 6);
        assert!(demo.map().unwrap().problems().is_empty(), "{name}");

        let mut frames = 0;
        let mut last_tick = -1;
        let mut snapshots = 0;
        for frame in demo.replay() {
            let frame = frame.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(frame.tick > last_tick, "{name}: ticks increase");
            last_tick = frame.tick;
            frames += 1;
            snapshots += usize::from(frame.update != Update::Unchanged);
            // Every tick after the first snapshot has one.
            assert!(frame.snapshot.is_some() || snapshots == 0, "{name}");
        }
        let markers = demo
            .chunks()
            .filter(|chunk| {
                matches!(
                    chunk.as_ref().unwrap().content,
                    ChunkContent::TickMarker { .. }
                )
            })
            .count();
        assert_eq!(frames, markers, "{name}: one frame per tick marker");
        assert!(snapshots > 0, "{name}");
    }
}

#[test]
fn per_tick_checksums_and_info_are_reviewed() {
    let Some(corpus) = corpus_dir() else { return };
    for (name, _) in DEMOS {
        let demo = Demo::open(demo_path(&corpus, name)).unwrap();
        let info = dump::to_string(|out| dump::demo_info(&demo, out));
        assert!(!info.contains("error:"), "{info}");
        let ticks = dump::to_string(|out| dump::demo_ticks(&demo, out));
        assert!(!ticks.contains("error:"), "{ticks}");
        insta_settings().bind(|| {
            insta::assert_snapshot!(format!("demo_info_{}", short(name)), info);
            insta::assert_snapshot!(format!("demo_ticks_{}", short(name)), ticks);
        });
    }
}

/// The coding is Teeworlds' own: re-encoding every decoded chunk of every demo gives back the
/// bytes the client wrote, and the ints pack back to the same bytes.
#[test]
fn huffman_and_packing_reproduce_every_real_chunk() {
    let Some(corpus) = corpus_dir() else { return };
    let mut chunks = 0;
    for (name, _) in DEMOS {
        let demo = Demo::open(demo_path(&corpus, name)).unwrap();
        for chunk in demo.chunks() {
            let chunk = chunk.unwrap();
            let Some(payload) = chunk.payload() else {
                continue;
            };
            let packed = huffman::decompress(payload, 1 << 16).unwrap();
            assert_eq!(
                huffman::compress(&packed),
                payload,
                "{name} chunk {}",
                chunk.index
            );
            let ints = chunk.ints().unwrap();
            assert_eq!(twcodec::snap::packing::pack_ints(&ints), packed);
            chunks += 1;
        }
    }
    assert!(chunks > 300, "{chunks} data chunks");
}

/// The first snapshot of a 0.7 demo, decoded by hand from the file: a known vector.
#[test]
fn a_known_snapshot_chunk() {
    let Some(corpus) = corpus_dir() else { return };
    let demo = Demo::open(demo_path(
        &corpus,
        "075_tw_tinycave_other_player_respawn__client_bar.demo",
    ))
    .unwrap();
    let chunk = demo
        .chunks()
        .map(Result::unwrap)
        .find(|chunk| matches!(chunk.content, ChunkContent::Snapshot(_)))
        .unwrap();
    assert_eq!(
        (chunk.index, chunk.offset, chunk.tick),
        (1, 0x5ff, Some(2470))
    );
    assert_eq!(chunk.payload().unwrap().len(), 704);
    let ints = chunk.ints().unwrap();
    // data_size 728, 8 items, offsets 0, 16, 108, ...
    assert_eq!(ints[..6], [728, 8, 0, 16, 108, 200]);
    let snapshot = twcodec::snap::Snapshot::from_ints(&ints).unwrap();
    assert_eq!(snapshot.len(), 8);
    assert_eq!(snapshot.checksum(), -1316455805);
}

/// Malformed demos: each case made by a one-line change of a real demo.
#[test]
fn malformed_demos_give_clear_errors() {
    let Some(corpus) = corpus_dir() else { return };
    let path = demo_path(
        &corpus,
        "075_tw_tinycave_other_player_respawn__client_bar.demo",
    );
    let good = std::fs::read(path).unwrap();
    let demo = Demo::parse(&good).unwrap();
    let chunks: Vec<_> = demo.chunks().map(Result::unwrap).collect();
    let first_snapshot = chunks
        .iter()
        .find(|chunk| matches!(chunk.content, ChunkContent::Snapshot(_)))
        .unwrap();
    let payload_at = first_snapshot.offset + 3; // 2 size bytes after the chunk byte

    let with = |at: usize, byte: u8| {
        let mut bytes = good.clone();
        bytes[at] = byte;
        bytes
    };
    let mut without_snapshot = good.clone();
    // Drop the first snapshot chunk (header and payload): its deltas lose their base.
    without_snapshot.drain(first_snapshot.offset..payload_at + 704);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("bad magic", with(0, b'X')),
        ("version 7", with(7, 7)),
        ("version 2", with(7, 2)),
        ("net version without NUL", {
            let mut bytes = good.clone();
            bytes[8..72].fill(b'a');
            bytes
        }),
        ("map larger than the file", with(136, 0x7F)),
        ("cut inside the header", good[..100].to_vec()),
        ("cut inside the timeline markers", good[..300].to_vec()),
        ("cut inside the map", good[..1000].to_vec()),
        (
            "cut inside a snapshot chunk",
            good[..payload_at + 100].to_vec(),
        ),
        ("corrupt Huffman data", {
            let mut bytes = good.clone();
            bytes[payload_at..payload_at + 704].fill(0xFF);
            bytes
        }),
        ("a delta against a missing tick", without_snapshot),
    ];
    let mut report = String::new();
    for (case, bytes) in &cases {
        let result = Demo::parse(bytes).and_then(|demo| {
            let replayed: Result<Vec<_>, _> = demo.replay().collect();
            replayed.map(drop)
        });
        let error = result.expect_err(case);
        report.push_str(&format!("{case}: {error}\n"));
    }
    insta_settings().bind(|| insta::assert_snapshot!("demo_errors", report));
}

/// Truncated anywhere, a demo gives an error or a shorter replay, never a panic.
#[test]
fn truncated_anywhere_never_panics() {
    let Some(corpus) = corpus_dir() else { return };
    let path = demo_path(
        &corpus,
        "075_tw_tinycave_other_player_disconnect__client_bar.demo",
    );
    let good = std::fs::read(path).unwrap();
    let full_frames = Demo::parse(&good).unwrap().replay().count();
    for len in 0..good.len() {
        let Ok(demo) = Demo::parse(&good[..len]) else {
            continue;
        };
        let frames = demo.replay().take_while(Result::is_ok).count();
        assert!(frames <= full_frames);
        let _ = dump::to_string(|out| dump::demo_info(&demo, out));
    }
}

/// Random bytes after a real header and map never panic.
#[test]
fn random_chunks_never_panic() {
    use proptest::prelude::*;
    let Some(corpus) = corpus_dir() else { return };
    let path = demo_path(
        &corpus,
        "075_tw_tinycave_other_player_disconnect__client_bar.demo",
    );
    let good = std::fs::read(path).unwrap();
    let start = Demo::parse(&good).unwrap().chunks_offset();
    proptest!(|(tail in prop::collection::vec(any::<u8>(), 0..300))| {
        let mut bytes = good[..start].to_vec();
        bytes.extend(&tail);
        let demo = Demo::parse(&bytes).unwrap();
        for frame in demo.replay() {
            if frame.is_err() {
                break;
            }
        }
        let _ = dump::to_string(|out| dump::demo_info(&demo, out));
    });
}

/// A tick of many message chunks keeps the chunks, not their decoded bytes (32 times as many
/// at worst: about 8 KiB of Huffman code for 64 KiB of zeros, unpacked into an int per byte).
#[test]
fn a_tick_keeps_its_message_chunks_undecoded() {
    use twcodec::schema::demo::ChunkKind;
    let zeros = huffman::compress(&[0; 65536]);
    let mut chunks = vec![None];
    chunks.extend((0..8).map(|_| Some((ChunkKind::Message, zeros.clone()))));
    let bytes = hostile::demo(5, &[], &chunks);
    assert!(bytes.len() < 70_000, "{} bytes", bytes.len());
    let demo = Demo::parse(&bytes).unwrap();
    let frames: Vec<_> = demo.replay().collect::<Result<_, _>>().unwrap();
    assert_eq!(frames.len(), 1);
    let messages = &frames[0].messages;
    assert_eq!(messages.len(), 8);
    assert_eq!(messages[0].payload(), Some(&zeros[..]));
    let decoded = messages[0].message_bytes().unwrap();
    assert_eq!(decoded.len(), 4 * 65536);
    assert!(decoded.iter().all(|&byte| byte == 0));
    // All zeros: id 0 and the nil UUID, a message no registry line names.
    let ticks = dump::to_string(|out| dump::demo_ticks(&demo, out));
    assert!(ticks.ends_with(&format!("  8 {}\n", ["unknown"; 8].join(", "))));
}

/// An empty delta (3 bytes in a file) leaves the snapshot it applies to shared, not rebuilt;
/// its tick still says it came from a delta.
#[test]
fn empty_deltas_share_their_snapshot() {
    use std::sync::Arc;
    use twcodec::schema::demo::ChunkKind;
    use twcodec::snap::{packing, SnapshotBuilder};
    let mut builder = SnapshotBuilder::new();
    builder.add_item(9, 0, &[7; 100]).unwrap();
    let snapshot = builder.finish().unwrap();
    let full = huffman::compress(&snapshot.to_packed());
    let empty = huffman::compress(&packing::pack_ints(&[0, 0, 0]));
    let mut chunks = vec![None, Some((ChunkKind::Snapshot, full))];
    for _ in 0..5 {
        chunks.extend([None, Some((ChunkKind::Delta, empty.clone()))]);
    }
    let bytes = hostile::demo(5, &[], &chunks);
    let demo = Demo::parse(&bytes).unwrap();
    let frames: Vec<_> = demo.replay().collect::<Result<_, _>>().unwrap();
    assert_eq!(frames.len(), 6);
    let first = frames[0].snapshot.clone().unwrap();
    assert_eq!(*first, snapshot);
    assert_eq!(frames[0].update, Update::Full);
    for frame in &frames[1..] {
        assert_eq!(frame.update, Update::Delta);
        assert!(Arc::ptr_eq(frame.snapshot.as_ref().unwrap(), &first));
    }
    assert_eq!(frames[5].tick, 6);
}

/// The embedded map reads under the caller's limits; `demo info` says why it did not.
#[test]
fn the_embedded_map_reads_under_the_callers_limits() {
    let map = hostile::tall_game_layer();
    let bytes = hostile::demo(5, &map, &[None]);
    let demo = Demo::parse(&bytes).unwrap();
    demo.map().unwrap();
    let tight = twcodec::Limits::default().with_max_layer_data(64 << 10);
    let error = demo.map_with(tight).unwrap_err();
    assert_eq!(error.kind(), twcodec::ErrorKind::LimitExceeded);
    let info = dump::to_string(|out| dump::demo_info_with(&demo, tight, out));
    let line = info
        .lines()
        .find(|line| line.starts_with("map content"))
        .unwrap();
    assert_eq!(line, format!("map content: unreadable: {error}"));
    let info = dump::to_string(|out| dump::demo_info(&demo, out));
    assert!(!info.contains("unreadable"), "{info}");
}

/// A message chunk whose Huffman code is broken (here zeroed, so that it never reaches the end
/// symbol) stops the replay there, as DDNet's player stops; `demo info` and `demo ticks` name
/// the chunk, its tick and its byte offset (they printed the same as for the intact demo).
#[test]
fn a_corrupt_message_chunk_is_reported_with_its_tick_and_offset() {
    let Some(corpus) = corpus_dir() else { return };
    let path = demo_path(&corpus, "064_ddnet_join_chat_walk_disconnect__client.demo");
    let mut bytes = std::fs::read(&path).unwrap();
    let intact = Demo::parse(&bytes).unwrap();
    let chunk = intact
        .chunks()
        .map(Result::unwrap)
        .filter(|chunk| matches!(chunk.content, ChunkContent::Message(_)))
        .nth(3)
        .unwrap();
    let (index, offset, tick) = (chunk.index, chunk.offset, chunk.tick.unwrap());
    let payload = chunk.payload().unwrap().to_vec();
    let at = offset
        + bytes[offset..]
            .windows(payload.len())
            .position(|window| window == payload)
            .unwrap();
    bytes[at..at + payload.len()].fill(0);

    let demo = Demo::parse(&bytes).unwrap();
    let error = demo.replay().find_map(Result::err).unwrap();
    let expected = format!("chunk #{index} (tick {tick}): message: ");
    assert!(error.to_string().starts_with(&expected), "{error}");
    assert!(
        error
            .to_string()
            .ends_with(&format!("(at byte {offset:#x})")),
        "{error}"
    );
    let info = dump::to_string(|out| dump::demo_info(&demo, out));
    assert!(info.ends_with(&format!("error: {error}\n")), "{info}");
    assert!(dump::demo_info(&demo, &mut std::io::sink())
        .unwrap()
        .is_some());
    let ticks = dump::to_string(|out| dump::demo_ticks(&demo, out));
    assert!(ticks.ends_with(&format!("error: {error}\n")), "{ticks}");
    // The ticks before the broken chunk replay as in the intact demo.
    let intact_ticks = dump::to_string(|out| dump::demo_ticks(&intact, out));
    let replayed = ticks.lines().count() - 1;
    assert!(replayed > 1);
    assert!(intact_ticks.starts_with(&ticks[..ticks.len() - error.to_string().len() - 8]));
    assert!(replayed < intact_ticks.lines().count());
}

/// A message chunk that cannot be Huffman-decoded in a demo built here: the same report.
#[test]
fn a_truncated_message_chunk_is_reported() {
    use twcodec::schema::demo::ChunkKind;
    let good = huffman::compress(b"hello");
    let cut = good[..good.len() - 1].to_vec();
    let chunks = [
        None,
        Some((ChunkKind::Message, good)),
        None,
        Some((ChunkKind::Message, cut)),
    ];
    let demo = Demo::parse(&hostile::demo(5, &[], &chunks)).unwrap();
    let frames: Vec<_> = demo.replay().collect();
    assert!(frames[0].is_ok());
    let error = frames[1].as_ref().unwrap_err().to_string();
    assert!(error.starts_with("chunk #3 (tick "), "{error}");
    assert!(error.contains("): message: "), "{error}");
}
