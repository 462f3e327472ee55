//! Writing demos: every corpus demo written back byte for byte, and crafted demos in every
//! form a chunk header can take; a demo recorded anew with `DemoWriter` from a corpus demo's
//! replay replays the same; cuts replay as the original over their ticks; another map or
//! none embedded; what the writer refuses. libtw2's demo reader (the crate on the registry)
//! sees in every demo twcodec writes what it sees in the original; DDNet's
//! `demo_extract_chat` reads them when `TWCODEC_DDNET_BUILD` names a DDNet build folder.

mod common;

use std::io::Cursor;
use std::path::PathBuf;

use common::corpus_dir;
use twcodec::demo::{ChunkContent, Demo, DemoInfo, DemoTime, DemoWriter, KEYFRAME_INTERVAL};
use twcodec::snap::Snapshot;
use twcodec::ErrorKind;
use twcodec_schema::demo::{ChunkHeader, ChunkKind, DemoHeader, SizeForm, TickValue};

fn corpus_demos() -> Option<Vec<PathBuf>> {
    let dir = corpus_dir()?.join("demos");
    let mut demos: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "demo"))
        .collect();
    demos.sort();
    assert_eq!(demos.len(), 6);
    Some(demos)
}

/// One tick of a replay: tick, the snapshot's ints, the messages' bytes.
type Tick = (i32, Option<Vec<i32>>, Vec<Vec<u8>>);

fn ticks(demo: &Demo) -> Vec<Tick> {
    demo.replay()
        .map(|frame| {
            let frame = frame.unwrap();
            let messages = (frame.messages.iter())
                .map(|chunk| chunk.message_bytes().unwrap())
                .collect();
            (
                frame.tick,
                frame.snapshot.as_ref().map(|s| s.to_ints()),
                messages,
            )
        })
        .collect()
}

#[test]
fn every_corpus_demo_is_written_back_byte_for_byte() {
    let Some(demos) = corpus_demos() else {
        return;
    };
    for path in demos {
        let bytes = std::fs::read(&path).unwrap();
        let demo = Demo::parse(&bytes).unwrap();
        assert!(demo.tail().is_empty(), "{}", path.display());
        assert!(demo.to_bytes().unwrap() == bytes, "{}", path.display());
    }
}

/// A small demo by hand: the headers `headers`, each data chunk holding the first `size` bytes
/// of `payload`, then `tail`.
fn crafted(version: u8, headers: &[ChunkHeader], payload: &[u8], tail: &[u8]) -> Vec<u8> {
    let info = DemoInfo {
        version,
        map_name: "sample".into(),
        ..DemoInfo::default()
    };
    let map = twcodec_testkit::sample::datafile();
    let writer = DemoWriter::new(Cursor::new(Vec::new()), &info, &map).unwrap();
    let mut bytes = writer.finish().unwrap().into_inner();
    for header in headers {
        let mut out = Cursor::new(Vec::new());
        binrw::BinWrite::write_args(header, &mut out, (version,)).unwrap();
        bytes.extend(out.into_inner());
        if let ChunkHeader::Data { size, .. } = header {
            bytes.extend(&payload[..usize::from(*size)]);
        }
    }
    bytes.extend(tail);
    bytes
}

#[test]
fn every_form_of_a_chunk_header_is_written_back() {
    // A message: SV_MOTD ("" ) as DDNet packs it, Huffman-coded.
    let message = twcodec::huffman::compress(&twcodec::snap::packing::pack_ints(&[3, 0]));
    let len = message.len() as u16;
    let mut padded = message.clone();
    padded.resize(300, 0);
    let marker = |tick, keyframe, spare| ChunkHeader::TickMarker {
        keyframe,
        tick,
        spare,
    };
    for version in 3..=6u8 {
        let compressed = version >= 5;
        let mut headers = vec![
            marker(TickValue::Absolute(100), true, 0),
            ChunkHeader::Data {
                kind: ChunkKind::Message,
                size: len,
                form: SizeForm::Inline,
            },
            marker(TickValue::Delta(1), false, 0),
            // The same size in the two longer forms DDNet never writes but reads.
            ChunkHeader::Data {
                kind: ChunkKind::Message,
                size: len,
                form: SizeForm::Byte,
            },
            ChunkHeader::Data {
                kind: ChunkKind::Message,
                size: len,
                form: SizeForm::Short,
            },
            // Type 0, which no writer uses.
            ChunkHeader::Data {
                kind: ChunkKind::Unknown,
                size: 2,
                form: SizeForm::Inline,
            },
            marker(TickValue::Absolute(500), false, 0),
        ];
        if compressed {
            // The 5 bits an uncompressed marker does not read, and a marker of +0.
            headers.push(marker(TickValue::Absolute(600), false, 0x15));
            headers.push(marker(TickValue::Delta(0), false, 0));
        }
        let bytes = crafted(version, &headers, &padded, &[]);
        let demo = Demo::parse(&bytes).unwrap();
        let read: Vec<ChunkHeader> = demo.chunks().map(|c| c.unwrap().header).collect();
        assert_eq!(read, headers, "version {version}");
        assert_eq!(demo.to_bytes().unwrap(), bytes, "version {version}");
        let ticks: Vec<i32> = (demo.chunks().map(|c| c.unwrap()))
            .filter(|c| c.header.is_tick_marker())
            .map(|c| c.tick.unwrap())
            .collect();
        let expected: &[i32] = if compressed {
            &[100, 101, 500, 600, 600]
        } else {
            &[100, 101, 500]
        };
        assert_eq!(ticks, expected, "version {version}");

        // A recording cut short: half a chunk header, or a payload past the end.
        for tail in [&[0x5F, 0x10][..], &[0x45, 1, 2][..], &[0x80, 0, 0][..]] {
            let bytes = crafted(version, &headers, &padded, tail);
            let demo = Demo::parse(&bytes).unwrap();
            assert_eq!(demo.tail(), tail);
            assert_eq!(
                demo.to_bytes().unwrap(),
                bytes,
                "version {version} {tail:?}"
            );
        }
    }
}

/// The corpus demo `name`.
fn corpus_demo(name: &str) -> Option<Demo> {
    Some(Demo::open(corpus_dir()?.join("demos").join(name)).unwrap())
}

const TUTORIAL: &str = "064_ddnet_join_chat_walk_disconnect__client.demo";
const DM1: &str = "075_tw_dm1_join_chat_walk_disconnect__client.demo";

/// A corpus demo recorded again: every frame's snapshot with `DemoWriter::snapshot`, every
/// message as its bytes.
fn rerecord(demo: &Demo) -> Vec<u8> {
    let mut info = DemoInfo {
        version: demo.version(),
        net_version: demo.header().net_version.to_string_lossy(),
        map_name: demo.map_name(),
        kind: demo.header().kind.to_string_lossy(),
        timestamp: demo.header().timestamp.to_string_lossy(),
    };
    info.version = info.version.max(4);
    let mut writer = DemoWriter::new(Cursor::new(Vec::new()), &info, &demo.map_bytes()).unwrap();
    for frame in demo.replay() {
        let frame = frame.unwrap();
        match &frame.snapshot {
            Some(snapshot) => writer.snapshot(frame.tick, snapshot).unwrap(),
            None => writer.tick(frame.tick, false).unwrap(),
        }
        for message in &frame.messages {
            writer
                .message_bytes(&message.message_bytes().unwrap())
                .unwrap();
        }
    }
    writer.finish().unwrap().into_inner()
}

#[test]
fn a_demo_recorded_again_replays_the_same() {
    let Some(demos) = corpus_demos() else {
        return;
    };
    for path in demos {
        let demo = Demo::open(&path).unwrap();
        let bytes = rerecord(&demo);
        let again = Demo::parse(&bytes).unwrap();
        assert_eq!(ticks(&again), ticks(&demo), "{}", path.display());
        assert_eq!(
            again.header().length,
            demo.header().length,
            "{}",
            path.display()
        );
        assert_eq!(again.map_bytes(), demo.map_bytes());
        assert_eq!(again.header().map_crc, demo.header().map_crc);
        if demo.version() == 6 {
            assert_eq!(again.header_sha256(), demo.header_sha256());
        }
        // DDNet's rules: a keyframe first, then one when the last is more than 5 seconds old.
        let keyframes: Vec<i32> = (again.chunks().map(|c| c.unwrap()))
            .filter(|c| matches!(c.content, ChunkContent::TickMarker { keyframe: true }))
            .map(|c| c.tick.unwrap())
            .collect();
        let first = again.tick_range().unwrap().unwrap().0;
        assert_eq!(keyframes.first(), Some(&first));
        for pair in keyframes.windows(2) {
            assert!(pair[1] - pair[0] > KEYFRAME_INTERVAL, "{keyframes:?}");
        }
    }
}

#[test]
fn a_cut_replays_as_the_original_over_its_ticks() {
    let Some(demos) = corpus_demos() else {
        return;
    };
    for path in demos {
        let demo = Demo::open(&path).unwrap();
        let all = ticks(&demo);
        let with_snapshot: Vec<&Tick> = all.iter().filter(|t| t.1.is_some()).collect();
        let (first, last) = (with_snapshot[0].0, all.last().unwrap().0);
        // Ranges that start on a delta, on a keyframe's neighbour, at the ends.
        let ranges = [
            (first, last),
            (first + 7, last - 3),
            ((first + last) / 2, last),
            (first + 1, first + 40),
        ];
        for (from, to) in ranges {
            let (bytes, summary) = demo.cut(from, to).unwrap();
            let cut = Demo::parse(&bytes).unwrap();
            let expected: Vec<Tick> = (all.iter())
                .filter(|t| t.0 >= summary.first_tick && t.0 <= to)
                .cloned()
                .collect();
            let got = ticks(&cut);
            assert_eq!(
                got.len(),
                expected.len(),
                "{} {from}..={to}",
                path.display()
            );
            assert!(got == expected, "{} {from}..={to}", path.display());
            assert!(summary.first_tick >= from);
            assert_eq!(summary.last_tick, expected.last().unwrap().0);
            assert_eq!(
                cut.header().length,
                (summary.last_tick - summary.first_tick) / 50
            );
            assert_eq!(cut.version(), demo.version());
            assert_eq!(cut.header().kind, demo.header().kind);
            assert_eq!(cut.header().net_version, demo.header().net_version);
            assert_eq!(cut.map_bytes(), demo.map_bytes());
            assert_eq!(cut.header_sha256(), demo.header_sha256());
            // It starts with a keyframe and its full snapshot.
            let chunks: Vec<_> = cut.chunks().take(2).map(|c| c.unwrap()).collect();
            assert!(matches!(
                chunks[0].content,
                ChunkContent::TickMarker { keyframe: true }
            ));
            assert!(matches!(chunks[1].content, ChunkContent::Snapshot(_)));
        }
    }
}

#[test]
fn a_cut_keeps_the_markers_in_its_range() {
    let Some(demo) = corpus_demo(TUTORIAL) else {
        return;
    };
    // The corpus demos have no markers: give the Tutorial demo three by recording it again.
    let (first, last) = demo.tick_range().unwrap().unwrap();
    let mut writer = DemoWriter::like(Cursor::new(Vec::new()), &demo).unwrap();
    for chunk in demo.chunks() {
        writer.copy_chunk(&chunk.unwrap()).unwrap();
    }
    for tick in [first + 10, first + 100, last - 5] {
        writer.marker(tick).unwrap();
    }
    let marked = Demo::from_bytes(writer.finish().unwrap().into_inner()).unwrap();
    assert_eq!(
        marked.timeline_markers(),
        [first + 10, first + 100, last - 5]
    );
    assert_eq!(ticks(&marked), ticks(&demo));

    let from = marked.resolve_time("m1".parse().unwrap()).unwrap();
    let to = marked.resolve_time("marker:2".parse().unwrap()).unwrap();
    let (bytes, summary) = marked.cut(from, to).unwrap();
    assert_eq!(summary.markers, [first + 10, first + 100]);
    let cut = Demo::parse(&bytes).unwrap();
    assert_eq!(cut.timeline_markers(), [first + 10, first + 100]);
    assert_eq!(cut.tick_range().unwrap(), Some((first + 10, first + 100)));
    assert_eq!(cut.header().length, 90 / 50);
}

#[test]
fn points_in_a_demo() {
    let parse = |text: &str| text.parse::<DemoTime>();
    assert_eq!(parse("123456").unwrap(), DemoTime::Tick(123456));
    assert_eq!(parse("12.5s").unwrap(), DemoTime::Seconds(12.5));
    assert_eq!(parse("1:02.5").unwrap(), DemoTime::Seconds(62.5));
    assert_eq!(parse("m3").unwrap(), DemoTime::Marker(3));
    assert_eq!(parse("marker:1").unwrap(), DemoTime::Marker(1));
    assert_eq!(parse("start").unwrap(), DemoTime::Start);
    assert_eq!(parse("end").unwrap(), DemoTime::End);
    for bad in [
        "", "-5", "m0", "1:75", "xs", "nan s", "infs", "marker:", "1e99", "12x",
    ] {
        let error = parse(bad).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidOptions, "{bad}");
        assert!(
            error.message().contains("is not a point in a demo"),
            "{bad}"
        );
    }
    let Some(demo) = corpus_demo(DM1) else {
        return;
    };
    let (first, last) = demo.tick_range().unwrap().unwrap();
    assert_eq!(demo.resolve_time(DemoTime::Start).unwrap(), first);
    assert_eq!(demo.resolve_time(DemoTime::End).unwrap(), last);
    assert_eq!(
        demo.resolve_time(DemoTime::Seconds(2.0)).unwrap(),
        first + 100
    );
    assert_eq!(
        demo.resolve_time(DemoTime::Seconds(0.013)).unwrap(),
        first + 1
    );
    let error = demo.resolve_time(DemoTime::Marker(1)).unwrap_err();
    assert_eq!(error.message(), "marker 1: the demo has 0 timeline markers");
}

#[test]
fn cuts_that_cannot_be_made_say_why() {
    let Some(demo) = corpus_demo(DM1) else {
        return;
    };
    let (first, last) = demo.tick_range().unwrap().unwrap();
    let error = demo.cut(first + 10, first).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidOptions);
    assert_eq!(
        error.message(),
        format!(
            "the cut starts at tick {}, after its end at tick {first} (the demo has ticks {first} to {last})",
            first + 10
        )
    );
    for (from, to) in [(last + 1, last + 100), (0, first - 1)] {
        let error = demo.cut(from, to).unwrap_err();
        assert_eq!(
            error.message(),
            format!(
                "no tick from {from} to {to} has a snapshot (the demo has ticks {first} to {last})"
            )
        );
    }
}

#[test]
fn another_map_or_none() {
    let Some(demo) = corpus_demo(DM1) else {
        return;
    };
    let map = twcodec_testkit::sample::datafile();
    let bytes = demo.replace_map(&map, Some("sample")).unwrap();
    let replaced = Demo::parse(&bytes).unwrap();
    assert_eq!(replaced.map_bytes(), map);
    assert_eq!(replaced.map_name(), "sample");
    assert!(replaced.map_crc_matches());
    assert_eq!(replaced.header().map_size as usize, map.len());
    assert_eq!(ticks(&replaced), ticks(&demo));
    assert_eq!(
        &bytes[replaced.chunks_offset()..],
        &demo.to_bytes().unwrap()[demo.chunks_offset()..]
    );

    // Version 6 carries the map's SHA-256: it follows the new map.
    let Some(tutorial) = corpus_demo(TUTORIAL) else {
        return;
    };
    let replaced = Demo::parse(&tutorial.replace_map(&map, None).unwrap()).unwrap();
    assert_eq!(replaced.map_name(), "Tutorial");
    assert_eq!(replaced.map_sha256_matches(), Some(true));

    let stripped = Demo::parse(&tutorial.strip_map().unwrap()).unwrap();
    assert_eq!(stripped.header().map_size, 0);
    assert!(stripped.map_bytes().is_empty());
    assert_eq!(stripped.header().map_crc, tutorial.header().map_crc);
    assert_eq!(stripped.header_sha256(), tutorial.header_sha256());
    assert_eq!(stripped.map_name(), "Tutorial");
    assert_eq!(ticks(&stripped), ticks(&tutorial));

    let error = tutorial.replace_map(b"not a map", None).unwrap_err();
    assert!(
        error
            .message()
            .starts_with("the new map does not read as a map: "),
        "{error}"
    );
    let error = tutorial
        .replace_map(&map, Some(&"x".repeat(64)))
        .unwrap_err();
    assert!(
        error.message().contains("does not fit its 64-byte field"),
        "{error}"
    );
}

#[test]
fn the_writer_refuses_what_readers_could_not_read() {
    let map = twcodec_testkit::sample::datafile();
    let new = |version| {
        let info = DemoInfo {
            version,
            ..DemoInfo::default()
        };
        DemoWriter::new(Cursor::new(Vec::new()), &info, &map)
    };
    let error = new(7).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Unsupported);
    assert_eq!(error.message(), "demo version 7 (twcodec writes 3 to 6)");
    let info = DemoInfo {
        map_name: "a".repeat(64),
        ..DemoInfo::default()
    };
    let error = DemoWriter::new(Cursor::new(Vec::new()), &info, &map).unwrap_err();
    assert!(error.message().contains("the map name"), "{error}");

    let mut writer = new(6).unwrap();
    let error = writer.message_bytes(&[0, 0, 0, 0]).unwrap_err();
    assert_eq!(
        error.message(),
        "demo: a data chunk before the first tick marker"
    );
    writer.tick(100, false).unwrap();
    let error = writer.tick(99, false).unwrap_err();
    assert_eq!(
        error.message(),
        "demo: tick 99 comes after tick 100: ticks never go back"
    );
    assert!(writer.tick(-1, false).is_err());
    let error = writer
        .chunk(ChunkKind::Message, &[i32::MIN; 20000])
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    let error = writer
        .raw_chunk(ChunkKind::Message, &[0; 70000])
        .unwrap_err();
    assert_eq!(
        error.message(),
        "demo: a chunk of 70000 bytes (a chunk holds at most 65535)"
    );
    writer.marker(100).unwrap();
    let error = writer.marker(149).unwrap_err();
    assert_eq!(
        error.message(),
        "demo: a marker at tick 149, less than a second after the one at 100"
    );
    for tick in 1..64 {
        writer.marker(100 + 50 * tick).unwrap();
    }
    assert_eq!(
        writer.marker(100_000).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    let demo = Demo::from_bytes(writer.finish().unwrap().into_inner()).unwrap();
    assert_eq!(demo.timeline_markers().len(), 64);

    let mut old = new(3).unwrap();
    assert_eq!(
        old.marker(5).unwrap_err().message(),
        "demo: a version-3 demo has no timeline markers"
    );
    old.tick(5, false).unwrap();
    let demo = Demo::from_bytes(old.finish().unwrap().into_inner()).unwrap();
    assert_eq!(demo.version(), 3);
    assert_eq!(demo.header().length, 0);
    assert_eq!(
        DemoHeader::SIZE + map.len() + 5,
        demo.to_bytes().unwrap().len()
    );
}

#[test]
fn snapshots_become_keyframes_and_deltas_as_in_ddnet() {
    let map = twcodec_testkit::sample::datafile();
    let mut writer = DemoWriter::new(Cursor::new(Vec::new()), &DemoInfo::default(), &map).unwrap();
    // Type 0x4000 is in no protocol's size table: its deltas carry the size.
    let snapshot = |value: i32| Snapshot::from_ints(&[8, 1, 0, 0x4000 << 16 | 1, value]).unwrap();
    for tick in 0..=600 {
        writer.snapshot(tick, &snapshot(tick / 100)).unwrap();
    }
    let demo = Demo::from_bytes(writer.finish().unwrap().into_inner()).unwrap();
    let mut kinds = String::new();
    for chunk in demo.chunks() {
        let chunk = chunk.unwrap();
        let tick = chunk.tick.unwrap();
        match chunk.content {
            ChunkContent::TickMarker { keyframe: true } => kinds += &format!(" K{tick}"),
            ChunkContent::Snapshot(_) => kinds += "S",
            ChunkContent::Delta(_) => kinds += &format!(" D{tick}"),
            _ => {}
        }
    }
    // Keyframes at 0, 251 and 502; a delta where the value changes; no empty delta.
    assert_eq!(kinds, " K0S D100 D200 K251S D300 D400 D500 K502S D600");
    let frames: Vec<_> = demo.replay().map(|f| f.unwrap()).collect();
    assert_eq!(frames.len(), 601);
    for frame in frames {
        assert_eq!(
            frame.snapshot.unwrap().item(0x4000, 1),
            Some(&[frame.tick / 100][..])
        );
    }
    assert_eq!(demo.header().length, 12);
}

/// DDNet's demo player (`demo_extract_chat`) reads the demos twcodec writes: a cut prints
/// the chat of its range, a demo recorded again the original's chat.
#[test]
fn ddnet_reads_what_twcodec_writes() {
    let Some(dir) = std::env::var_os("TWCODEC_DDNET_BUILD") else {
        eprintln!(
            "skipped: set TWCODEC_DDNET_BUILD to a DDNet build folder to run demo_extract_chat"
        );
        return;
    };
    let Some(demo) = corpus_demo(TUTORIAL) else {
        return;
    };
    let tool = PathBuf::from(dir).join("demo_extract_chat");
    let scratch = tempfile::tempdir().unwrap();
    let chat = |bytes: &[u8], name: &str| {
        let path = scratch.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let output = std::process::Command::new(&tool)
            .arg(&path)
            .output()
            .unwrap();
        assert!(output.status.success(), "{name}: {output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let original = chat(&demo.to_bytes().unwrap(), "original.demo");
    assert_eq!(original, "[00:01] chat: nameless tee: hello\n");
    assert_eq!(chat(&rerecord(&demo), "again.demo"), original);
    // The hello is at 1.92 s (tick 1528): a cut from 1 s keeps it, at 0.92 s of the cut's
    // clock (DDNet counts from the first tick), one from 2 s does not.
    let from = demo.resolve_time(DemoTime::Seconds(1.0)).unwrap();
    let (cut, _) = demo
        .cut(from, demo.resolve_time(DemoTime::End).unwrap())
        .unwrap();
    assert_eq!(
        chat(&cut, "cut.demo"),
        "[00:00] chat: nameless tee: hello\n"
    );
    let from = demo.resolve_time(DemoTime::Seconds(2.0)).unwrap();
    let (cut, _) = demo
        .cut(from, demo.resolve_time(DemoTime::End).unwrap())
        .unwrap();
    assert_eq!(chat(&cut, "late.demo"), "");
    assert_eq!(chat(&demo.strip_map().unwrap(), "stripped.demo"), original);
}

/// What libtw2's demo reader sees, tick by tick: the tick, the objects of the snapshot at
/// the end of the tick (hashed, with their ids), the messages (as libtw2 prints them); then
/// the header's length, markers, map size and CRC, and libtw2's warnings.
#[derive(Debug, PartialEq, Eq)]
struct Libtw2View {
    ticks: Vec<(i32, Option<u64>, Vec<String>)>,
    header: (i32, Vec<i32>, u32, u32),
    warnings: Vec<String>,
}

fn libtw2_view_with<P>(bytes: &[u8]) -> Libtw2View
where
    P: for<'p> libtw2_gamenet_common::traits::Protocol<'p>,
    <P as libtw2_gamenet_common::traits::ProtocolStatic>::SnapObj: std::fmt::Debug,
    for<'p> <P as libtw2_gamenet_common::traits::Protocol<'p>>::Game: std::fmt::Debug,
{
    use libtw2_demo::ddnet::{Chunk, DemoReader, Warning};
    use std::hash::{Hash, Hasher};
    let mut warnings: Vec<Warning> = Vec::new();
    let mut reader = DemoReader::<P>::new(Cursor::new(bytes), &mut warnings).unwrap();
    let header = (
        reader.length(),
        reader.timeline_markers().to_vec(),
        reader.map_size(),
        reader.map_crc(),
    );
    let mut ticks: Vec<(i32, Option<u64>, Vec<String>)> = Vec::new();
    let mut snapshot = None;
    while let Some(chunk) = reader.next_chunk(&mut warnings).unwrap() {
        match chunk {
            Chunk::Tick { tick, .. } => ticks.push((tick, snapshot, Vec::new())),
            Chunk::Snapshot(objects) => {
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                for (object, id) in objects {
                    format!("{object:?}").hash(&mut hasher);
                    id.hash(&mut hasher);
                }
                snapshot = Some(hasher.finish());
                ticks.last_mut().unwrap().1 = snapshot;
            }
            Chunk::Message(message) => ticks.last_mut().unwrap().2.push(format!("{message:?}")),
            Chunk::Invalid => ticks.last_mut().unwrap().2.push("invalid".into()),
        }
    }
    Libtw2View {
        ticks,
        header,
        warnings: warnings.iter().map(|w| format!("{w:?}")).collect(),
    }
}

fn libtw2_view(bytes: &[u8]) -> Libtw2View {
    if bytes[8..11] == *b"0.7" {
        libtw2_view_with::<libtw2_gamenet_teeworlds_0_7::Protocol>(bytes)
    } else {
        libtw2_view_with::<libtw2_gamenet_ddnet::Protocol>(bytes)
    }
}

#[test]
fn libtw2_sees_in_what_twcodec_writes_what_it_sees_in_the_original() {
    let Some(demos) = corpus_demos() else {
        return;
    };
    for path in demos {
        let bytes = std::fs::read(&path).unwrap();
        let demo = Demo::parse(&bytes).unwrap();
        let original = libtw2_view(&bytes);
        let name = path.display();
        assert!(!original.ticks.is_empty(), "{name}");
        // Recorded again: the same ticks, snapshots, messages and header.
        assert_eq!(libtw2_view(&rerecord(&demo)), original, "{name}");
        // Without the map, or with another: only the header's map changes.
        let stripped = libtw2_view(&demo.strip_map().unwrap());
        assert_eq!(stripped.ticks, original.ticks, "{name}");
        assert_eq!(stripped.header.2, 0, "{name}");
        let map = twcodec_testkit::sample::datafile();
        let replaced = libtw2_view(&demo.replace_map(&map, None).unwrap());
        assert_eq!(replaced.ticks, original.ticks, "{name}");
        assert_eq!(replaced.header.3, crc32fast::hash(&map), "{name}");
        // A cut: the original's ticks from its start to its end.
        let (first, last) = demo.tick_range().unwrap().unwrap();
        let (from, to) = (first + (last - first) / 3, last - (last - first) / 4);
        let (cut_bytes, summary) = demo.cut(from, to).unwrap();
        let cut = libtw2_view(&cut_bytes);
        let expected: Vec<_> = (original.ticks.iter())
            .filter(|t| (summary.first_tick..=summary.last_tick).contains(&t.0))
            .cloned()
            .collect();
        assert_eq!(cut.ticks.len(), expected.len(), "{name}");
        assert!(cut.ticks == expected, "{name}: {from}..={to}");
        assert_eq!(cut.header.0, summary.length, "{name}");
        // libtw2 warns of nothing new (the DDNet 0.7 demo's extended objects are unknown to
        // its 0.7 protocol in both).
        for warning in &cut.warnings {
            assert!(original.warnings.contains(warning), "{name}: {warning}");
        }
    }
}

#[test]
fn deltas_made_elsewhere_are_recorded_as_they_are() {
    let Some(demo) = corpus_demo(DM1) else {
        return;
    };
    // The demo's own deltas, decoded and written again: the same payloads' ints.
    let sizes = demo.protocol().sizes();
    let info = DemoInfo {
        version: demo.version(),
        net_version: demo.header().net_version.to_string_lossy(),
        ..DemoInfo::default()
    };
    let mut writer = DemoWriter::new(Cursor::new(Vec::new()), &info, &[]).unwrap();
    let error = writer
        .delta(1, &twcodec::snap::SnapshotDelta::empty())
        .unwrap_err();
    assert_eq!(
        error.message(),
        "demo: a delta with no snapshot written before it to apply it to"
    );
    let mut deltas = 0;
    for chunk in demo.chunks() {
        let chunk = chunk.unwrap();
        let tick = chunk.tick.unwrap_or(0);
        match chunk.content {
            ChunkContent::Snapshot(_) => writer
                .keyframe(tick, &Snapshot::from_ints(&chunk.ints().unwrap()).unwrap())
                .unwrap(),
            ChunkContent::Delta(_) => {
                let delta = twcodec::snap::SnapshotDelta::from_ints(&chunk.ints().unwrap(), &sizes)
                    .unwrap();
                writer.delta(tick, &delta).unwrap();
                deltas += 1;
            }
            _ => {}
        }
    }
    assert!(deltas > 10, "{deltas}");
    let again = Demo::from_bytes(writer.finish().unwrap().into_inner()).unwrap();
    let snapshots = |demo: &Demo| -> Vec<(i32, Vec<i32>)> {
        (demo.replay().map(|f| f.unwrap()))
            .filter(|f| f.update != twcodec::demo::Update::Unchanged)
            .map(|f| (f.tick, f.snapshot.unwrap().to_ints()))
            .collect()
    };
    assert_eq!(snapshots(&again), snapshots(&demo));
}
