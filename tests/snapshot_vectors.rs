//! The captured Teeworlds 0.7 packets of `demos/snapshot_vectors/teeworlds-go/` in the corpus
//! (see DEMOS.md there): every packet reads, every snapshot sent against the empty snapshot
//! rebuilds to the CRC the server sent, and broken packets give errors, never panics.

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use binrw::io::Cursor;
use binrw::BinWrite;
use common::insta_settings;
use twcodec::huffman;
use twcodec::packet::{AssembledSnap, Packet7, SnapMessage, HEADER_SIZE, MAX_PART_SIZE};
use twcodec::schema::packet::{ChunkHeader7, PacketHeader7};
use twcodec::snap::packing::{pack_ints, unpack_int};
use twcodec::snap::Snapshot;

/// One vector of `index.json`: its file, bytes, and the numbers its dissector comment gives.
struct Vector {
    file: String,
    bytes: Vec<u8>,
    comment: Comment,
}

/// The snapshot message the libtw2 dissector comment (or the twnet_parser JSON) before a
/// vector describes. The two-packet test's comments hold both packets' text, the file's own
/// last, so the last value of each field counts.
#[derive(Debug, Default, Clone, Copy)]
struct Comment {
    tick: Option<i32>,
    /// What the dissector prints as "Delta tick": the message's second field, tick - delta_tick.
    delta_field: Option<i32>,
    num_parts: Option<i32>,
    part: Option<i32>,
    crc: Option<i32>,
    data_size: Option<usize>,
}

impl Comment {
    fn parse(lines: &[serde_json::Value]) -> Comment {
        let mut comment = Comment::default();
        for line in lines {
            let line = line.as_str().unwrap().trim_start_matches("//").trim();
            let int = |prefix: &str| {
                let value = line.strip_prefix(prefix)?.trim().trim_end_matches(',');
                value.parse::<i32>().ok()
            };
            if let Some(n) = int("Tick:").or_else(|| int("\"tick\":")) {
                comment.tick = Some(n);
            }
            if let Some(n) = int("Delta tick:").or_else(|| int("\"delta_tick\":")) {
                comment.delta_field = Some(n);
            }
            if let Some(n) = int("Num parts:") {
                comment.num_parts = Some(n);
            }
            if let Some(n) = int("Part:") {
                comment.part = Some(n);
            }
            if let Some(n) = int("Crc:").or_else(|| int("\"crc\":")) {
                comment.crc = Some(n);
            }
            if let Some(rest) = line.strip_prefix("Data (") {
                comment.data_size = rest.strip_suffix(" bytes)").and_then(|n| n.parse().ok());
            }
        }
        comment
    }
}

/// The vectors in `index.json` order, or `None` (skipped) without a corpus.
fn vectors() -> Option<Vec<Vector>> {
    let dir = common::corpus_dir()?.join("demos/snapshot_vectors/teeworlds-go");
    let index: serde_json::Value = serde_json::from_slice(&read(&dir.join("index.json"))).unwrap();
    let vectors: Vec<Vector> = (index.as_array().unwrap().iter())
        .map(|entry| {
            let file = entry["file"].as_str().unwrap().to_owned();
            let bytes = read(&dir.join(&file));
            assert_eq!(bytes.len() as u64, entry["bytes"], "{file}");
            let comment = Comment::parse(entry["comment"].as_array().unwrap());
            Vector {
                file,
                bytes,
                comment,
            }
        })
        .collect();
    assert_eq!(vectors.len(), 23);
    Some(vectors)
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every snapshot message of a packet, each chunk's header and message id read on the way.
fn snap_messages(packet: &Packet7) -> Result<Vec<SnapMessage<'_>>, twcodec::Error> {
    let mut messages = Vec::new();
    for chunk in packet.chunks() {
        let chunk = chunk?;
        chunk.message()?;
        messages.extend(SnapMessage::parse(&chunk)?);
    }
    Ok(messages)
}

/// What identifies one snapshot among the vectors' messages: tick, delta tick and CRC.
type SnapId = (i32, i32, Option<i32>);

fn snap_id(message: &SnapMessage<'_>) -> SnapId {
    (message.tick(), message.delta_tick(), message.crc())
}

/// The whole way from packets to snapshots: parse each packet, read every chunk and snapshot
/// message, join the messages of each snapshot, and rebuild those against the empty snapshot
/// (checking the CRC). Returns each snapshot's id and, when rebuilt, its item count.
fn read_all(packets: &[&[u8]]) -> Result<Vec<(SnapId, Option<usize>)>, twcodec::Error> {
    let packets = (packets.iter())
        .map(|bytes| Packet7::parse(bytes))
        .collect::<Result<Vec<_>, _>>()?;
    let mut snapshots: BTreeMap<SnapId, Vec<SnapMessage<'_>>> = BTreeMap::new();
    for packet in &packets {
        for message in snap_messages(packet)? {
            snapshots
                .entry(snap_id(&message))
                .or_default()
                .push(message);
        }
    }
    let mut out = Vec::new();
    for (id, messages) in snapshots {
        let snap = AssembledSnap::join(&messages)?;
        snap.delta()?;
        let items = match snap.is_against_empty() {
            true => Some(snap.rebuild(&Snapshot::empty())?.len()),
            false => None,
        };
        out.push((id, items));
    }
    Ok(out)
}

/// One line about a snapshot message.
fn describe(message: &SnapMessage<'_>) -> String {
    let parts = match message {
        SnapMessage::Snap { .. } => format!(" part {}/{}", message.part(), message.num_parts()),
        _ => String::new(),
    };
    let crc = message
        .crc()
        .map_or(String::new(), |crc| format!(" crc {crc}"));
    format!(
        "{} tick {} delta_tick {} (sent as {}){parts}{crc}, data {} bytes",
        message.name(),
        message.tick(),
        message.delta_tick(),
        message.tick() - message.delta_tick(),
        message.data().len()
    )
}

/// Where the server's cuts (every 900 bytes) fall in a joined delta: at the start of a packed
/// int, or inside one.
fn cuts(data: &[u8]) -> String {
    let mut starts = vec![];
    let mut pos = 0;
    while pos < data.len() {
        starts.push(pos);
        unpack_int(data, &mut pos).unwrap();
    }
    (1..data.len().div_ceil(MAX_PART_SIZE))
        .map(|part| {
            let cut = part * MAX_PART_SIZE;
            match starts.binary_search(&cut) {
                Ok(_) => format!("{cut} between ints"),
                Err(_) => format!("{cut} inside an int"),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn every_vector_reads_and_every_snapshot_against_empty_rebuilds_to_its_crc() {
    let Some(vectors) = vectors() else { return };
    let packets: Vec<Packet7> = (vectors.iter())
        .map(|v| Packet7::parse(&v.bytes).unwrap_or_else(|e| panic!("{}: {e}", v.file)))
        .collect();
    let mut text = String::new();
    // The messages of each snapshot (by token too: ticks of different sessions may meet),
    // with their files.
    let mut snapshots: BTreeMap<(u32, SnapId), Vec<(SnapMessage<'_>, &str)>> = BTreeMap::new();
    let mut with_snapshots = 0;
    for (vector, packet) in vectors.iter().zip(&packets) {
        let flags = packet.flags;
        assert!(!flags.control && !flags.resend && flags.reserved == 0);
        writeln!(
            text,
            "{}: {} bytes, {}ack {}, chunks {}, token {:08x}, payload {} bytes",
            vector.file,
            vector.bytes.len(),
            if flags.compression {
                "compressed, "
            } else {
                ""
            },
            packet.ack,
            packet.num_chunks,
            packet.token,
            packet.payload().len(),
        )
        .unwrap();
        assert_eq!(packet.trailing_bytes(), Some(0), "{}", vector.file);
        let mut found = Vec::new();
        for chunk in packet.chunks() {
            let chunk = chunk.unwrap_or_else(|e| panic!("{}: {e}", vector.file));
            let (id, _) = chunk.message().unwrap();
            let message =
                SnapMessage::parse(&chunk).unwrap_or_else(|e| panic!("{}: {e}", vector.file));
            let header = match chunk.sequence {
                Some(sequence) => format!("vital, seq {sequence}"),
                None => "non-vital".into(),
            };
            let what = match &message {
                Some(message) => describe(message),
                None => format!("{id}, {} bytes", chunk.data.len()),
            };
            writeln!(text, "  chunk #{} ({header}): {what}", chunk.index).unwrap();
            if let Some(message) = message {
                found.push(message);
                let key = (packet.token, snap_id(&message));
                snapshots
                    .entry(key)
                    .or_default()
                    .push((message, &vector.file));
            }
        }
        with_snapshots += usize::from(!found.is_empty());
        // The numbers the dissector comment gives are the ones read.
        let comment = vector.comment;
        if let Some(tick) = comment.tick {
            let [message] = found[..] else {
                panic!(
                    "{}: {} snapshot messages, the comment names one",
                    vector.file,
                    found.len()
                )
            };
            let sent = message.tick() - message.delta_tick();
            assert_eq!(message.tick(), tick, "{}", vector.file);
            assert_eq!(Some(sent), comment.delta_field, "{}", vector.file);
            assert_eq!(message.crc(), comment.crc, "{}", vector.file);
            if let Some(part) = comment.part {
                assert_eq!(message.part(), part, "{}", vector.file);
                assert_eq!(
                    Some(message.num_parts()),
                    comment.num_parts,
                    "{}",
                    vector.file
                );
            }
            if let Some(size) = comment.data_size {
                assert_eq!(message.data().len(), size, "{}", vector.file);
            }
            // The comment's "Delta tick" is tick + 1 exactly when the delta is against the
            // empty snapshot.
            assert_eq!(
                sent == tick + 1,
                message.is_against_empty(),
                "{}",
                vector.file
            );
        }
    }

    writeln!(
        text,
        "\nsnapshots (messages joined by token, tick, delta tick and crc)"
    )
    .unwrap();
    let (mut against_empty, mut rebuilt, mut chained) = (0, 0, 0);
    let mut built: BTreeMap<(u32, i32), Snapshot> = BTreeMap::new();
    for (&(token, _), messages) in &snapshots {
        let files: Vec<&str> = messages.iter().map(|(_, file)| *file).collect();
        let messages: Vec<SnapMessage<'_>> = messages.iter().map(|(m, _)| *m).collect();
        let snap = AssembledSnap::join(&messages).unwrap_or_else(|e| panic!("{files:?}: {e}"));
        let delta = snap.delta().unwrap_or_else(|e| panic!("{files:?}: {e}"));
        let crc = snap.crc.unwrap();
        let mut line = format!(
            "  tick {}, {} part{}, crc {crc}, {} bytes",
            snap.tick,
            snap.num_parts,
            if snap.num_parts == 1 { "" } else { "s" },
            snap.data.len()
        );
        if snap.num_parts > 1 {
            write!(line, " (cut at {})", cuts(&snap.data)).unwrap();
        }
        write!(
            line,
            "; delta: removed {}, updated {}",
            delta.removed().len(),
            delta.updates().count()
        )
        .unwrap();
        let base = match snap.is_against_empty() {
            true => {
                against_empty += 1;
                write!(line, "; against the empty snapshot").unwrap();
                Some(Snapshot::empty())
            }
            false => {
                let base = built.get(&(token, snap.delta_tick)).cloned();
                let captured = if base.is_some() {
                    "captured"
                } else {
                    "not captured"
                };
                write!(line, "; against tick {} ({captured})", snap.delta_tick).unwrap();
                base
            }
        };
        if let Some(base) = base {
            let snapshot = base
                .apply(&delta)
                .unwrap_or_else(|e| panic!("{files:?}: {e}"));
            assert_eq!(snapshot.checksum(), crc, "{files:?}");
            let checked = snap
                .rebuild(&base)
                .unwrap_or_else(|e| panic!("{files:?}: {e}"));
            assert_eq!(checked, snapshot);
            match snap.is_against_empty() {
                true => rebuilt += 1,
                false => chained += 1,
            }
            write!(
                line,
                " -> {} items, checksum {} ok",
                snapshot.len(),
                snapshot.checksum()
            )
            .unwrap();
            // Every item is an object of the 0.7 protocol (or a DDNet extended one).
            let mut census: BTreeMap<&str, usize> = BTreeMap::new();
            for item in snapshot.objects(twcodec::snap::Protocol::Teeworlds07) {
                assert_eq!(item.note, None, "{files:?}: item {}", item.index);
                *census.entry(item.name().unwrap_or("?")).or_default() += 1;
            }
            let census: Vec<String> = census.iter().map(|(k, n)| format!("{k} {n}")).collect();
            write!(line, "\n    objects: {}", census.join(", ")).unwrap();
            built.insert((token, snap.tick), snapshot);
        }
        writeln!(text, "{line}\n    from {}", files.join(", ")).unwrap();
    }
    writeln!(
        text,
        "\n{} of 23 vectors carry snapshot messages: {} snapshots, {rebuilt} of {against_empty} \
         against the empty snapshot rebuild to their crc, {chained} more against a captured one",
        with_snapshots,
        snapshots.len()
    )
    .unwrap();
    assert_eq!(rebuilt, against_empty);
    assert_eq!(against_empty, 11);
    insta_settings().bind(|| insta::assert_snapshot!("snapshot_vectors_crc", text));
}

/// The bytes of a header, written by the schema.
fn written(header: &impl for<'a> BinWrite<Args<'a> = ()>) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    header.write_be(&mut out).unwrap();
    out.into_inner()
}

/// The packet with its payload stored uncompressed, as a sender may send it.
fn uncompressed(bytes: &[u8]) -> Vec<u8> {
    let packet = Packet7::parse(bytes).unwrap();
    let mut header: PacketHeader7 = packet.header();
    header.flags.set_compression(false);
    let mut out = written(&header);
    out.extend_from_slice(packet.payload());
    out
}

/// The packet, compressed again after `edit` changed its payload.
fn edited(bytes: &[u8], edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let packet = Packet7::parse(bytes).unwrap();
    let mut payload = packet.payload().to_vec();
    edit(&mut payload);
    let mut out = written(&packet.header());
    out.extend(huffman::compress(&payload));
    out
}

/// A packet of one non-vital chunk holding `message`, with the header of `like`.
fn one_chunk(like: &[u8], message: &[u8]) -> Vec<u8> {
    edited(like, |payload| {
        payload.clear();
        let size = u16::try_from(message.len()).unwrap();
        payload.extend(written(&ChunkHeader7::new(size, None, false)));
        payload.extend_from_slice(message);
    })
}

/// A `snap` or `snap_single` message with the given fields (after the message id) and data.
fn snap_message(id: i32, fields: &[i32], data: &[u8]) -> Vec<u8> {
    let mut ints = vec![id << 1 | 1];
    ints.extend_from_slice(fields);
    let mut bytes = pack_ints(&ints);
    bytes.extend_from_slice(data);
    bytes
}

#[test]
fn broken_packets_say_what_and_where() {
    let Some(vectors) = vectors() else { return };
    let file = |name: &str| {
        let vector = vectors.iter().find(|v| v.file.contains(name)).unwrap();
        vector.bytes.clone()
    };
    let single = file("simple_localhost_test__dump_L27");
    let single_data = {
        let packet = Packet7::parse(&single).unwrap();
        snap_messages(&packet).unwrap()[0].data().to_vec()
    };
    // Inside the first packed int of more than one byte.
    let cut = {
        let mut pos = 0;
        loop {
            let start = pos;
            unpack_int(&single_data, &mut pos).unwrap();
            if pos - start > 1 {
                break start + 1;
            }
        }
    };
    // A delta removing the key (type 9, id 3).
    let removal = pack_ints(&[1, 0, 0, 9 << 16 | 3]);
    assert_eq!(removal.len(), 6);
    let parts: Vec<Vec<u8>> = (1..=4)
        .map(|part| file(&format!("multi_part_test__dumpPart{part}")))
        .collect();
    let game = file("protocol7__packet_test");
    let mut connless = single.clone();
    connless[0] |= 8 << 2;
    let mut control = single.clone();
    control[0] |= 1 << 2;
    let mut more_chunks = uncompressed(&single);
    more_chunks[2] += 1;
    let mut fewer_chunks = game.clone();
    fewer_chunks[2] = 40;
    let mut longer_chunk = uncompressed(&single);
    longer_chunk[HEADER_SIZE + 1] += 1;

    let cases: Vec<(&str, Vec<&[u8]>)> = vec![
        ("5 bytes", vec![&single[..5]]),
        ("1401 bytes", vec![&[0u8; 1401][..]]),
        ("connless flag", vec![&connless]),
        ("control flag on a compressed packet", vec![&control]),
        (
            "compressed payload cut in half",
            vec![&single[..single.len() / 2]],
        ),
        ("one chunk more than the payload has", vec![&more_chunks]),
        ("40 chunks in a packet of 22", vec![&fewer_chunks]),
        ("chunk size 1 byte too long", vec![&longer_chunk]),
        (
            "uncompressed packet cut by 1 byte",
            vec![&game[..game.len() - 1]],
        ),
    ];
    let owned: Vec<(&str, Vec<Vec<u8>>)> = vec![
        ("chunk without a message id", vec![one_chunk(&single, &[])]),
        (
            "snap_single cut after the tick",
            vec![one_chunk(&single, &snap_message(8, &[1510], &[]))],
        ),
        (
            "snap_single with part_size 901",
            vec![one_chunk(
                &single,
                &snap_message(8, &[1510, 1511, 0, 901], &[]),
            )],
        ),
        (
            "snap_single with part_size -1",
            vec![one_chunk(
                &single,
                &snap_message(8, &[1510, 1511, 0, -1], &[]),
            )],
        ),
        (
            "snap_single with part_size past the chunk",
            vec![one_chunk(
                &single,
                &snap_message(8, &[1510, 1511, 0, 9], &[1, 2]),
            )],
        ),
        (
            "snap with num_parts 65",
            vec![one_chunk(
                &single,
                &snap_message(6, &[1, 2, 65, 0, 0, 0], &[]),
            )],
        ),
        (
            "snap with part 4 of 4",
            vec![one_chunk(
                &single,
                &snap_message(6, &[1, 2, 4, 4, 0, 0], &[]),
            )],
        ),
        (
            "tick - delta_tick overflows",
            vec![one_chunk(&single, &snap_message(7, &[-2, i32::MAX], &[]))],
        ),
        (
            "snap_single with a crc 1 too high",
            vec![one_chunk(
                &single,
                &snap_message(8, &[1510, 1511, 16270, 103], &single_data),
            )],
        ),
        (
            "snap_single whose data is cut inside a packed int",
            vec![one_chunk(
                &single,
                &snap_message(8, &[1510, 1511, 16269, cut as i32], &single_data[..cut]),
            )],
        ),
        (
            "snap_single against the empty snapshot removing a key",
            vec![one_chunk(
                &single,
                &snap_message(8, &[1510, 1511, 0, 6], &removal),
            )],
        ),
        (
            "4-part snap without part 2",
            vec![parts[0].clone(), parts[1].clone(), parts[3].clone()],
        ),
        (
            "4-part snap with part 1 twice",
            vec![
                parts[0].clone(),
                parts[1].clone(),
                parts[1].clone(),
                parts[3].clone(),
            ],
        ),
        ("part 0 of a 4-part snap alone", vec![parts[0].clone()]),
        (
            "snap_single and a snap part of the same tick and crc",
            vec![
                one_chunk(&single, &snap_message(8, &[1, 2, 3, 0], &[])),
                one_chunk(&single, &snap_message(6, &[1, 2, 2, 0, 3, 0], &[])),
            ],
        ),
    ];
    let mut report = String::new();
    let owned_cases = (owned.iter()).map(|(name, packets)| {
        let packets: Vec<&[u8]> = packets.iter().map(Vec::as_slice).collect();
        (*name, packets)
    });
    for (name, packets) in cases.into_iter().chain(owned_cases) {
        let error = read_all(&packets).expect_err(name);
        writeln!(report, "{name}: [{:?}] {error}", error.kind()).unwrap();
    }
    insta_settings().bind(|| insta::assert_snapshot!("snapshot_vectors_errors", report));
}

/// Bytes after a snapshot message's data are ignored, as DDNet's and Teeworlds' clients
/// ignore them (`twcodec::packet`, "Bytes after a snapshot message's data"): the snapshot
/// reads and rebuilds as it does without them.
#[test]
fn bytes_after_a_snapshot_messages_data_are_ignored() {
    let Some(vectors) = vectors() else { return };
    let vector = vectors
        .iter()
        .find(|v| v.file.contains("simple_localhost_test__dump_L27"));
    let single = vector.unwrap().bytes.clone();
    let packet = Packet7::parse(&single).unwrap();
    let data = snap_messages(&packet).unwrap()[0].data().to_vec();
    let message = snap_message(8, &[1510, 1511, 16269, data.len() as i32], &data);
    let without = one_chunk(&single, &message);
    let with = one_chunk(&single, &[message, vec![0xAA, 0xBB]].concat());
    let read = read_all(&[&with]).unwrap();
    assert_eq!(read, read_all(&[&without]).unwrap());
    assert_eq!(read, [((1510, -1, Some(16269)), Some(read[0].1.unwrap()))]);
}

/// The vectors holding the messages of the same snapshots as vector `index` (itself included),
/// so that a corrupted part is joined with the others.
fn partners(vectors: &[Vector], index: usize) -> Vec<usize> {
    let ids = |bytes: &[u8]| -> Vec<SnapId> {
        let packet = Packet7::parse(bytes).unwrap();
        snap_messages(&packet)
            .unwrap()
            .iter()
            .map(snap_id)
            .collect()
    };
    let own = ids(&vectors[index].bytes);
    (0..vectors.len())
        .filter(|&other| {
            other == index || ids(&vectors[other].bytes).iter().any(|id| own.contains(id))
        })
        .collect()
}

#[test]
fn truncated_at_every_byte_offset() {
    let Some(vectors) = vectors() else { return };
    for (index, vector) in vectors.iter().enumerate() {
        let others: Vec<&[u8]> = (partners(&vectors, index).into_iter())
            .filter(|&other| other != index)
            .map(|other| vectors[other].bytes.as_slice())
            .collect();
        let mut all = others.clone();
        all.push(&vector.bytes);
        let whole = read_all(&all).unwrap();
        for len in 0..vector.bytes.len() {
            let mut packets = others.clone();
            packets.push(&vector.bytes[..len]);
            // A prefix reads only when the bytes it drops are ones nobody reads (the Huffman
            // encoder's last byte can be padding), and then it reads the same.
            if let Ok(read) = read_all(&packets) {
                assert_eq!(read, whole, "{} cut at {len}", vector.file);
                assert!(
                    len + 1 == vector.bytes.len(),
                    "{} cut at {len}",
                    vector.file
                );
            }
        }
    }
}

#[test]
fn corrupted_bytes_never_panic() {
    let Some(vectors) = vectors() else { return };
    let (mut errors, mut runs) = (0, 0);
    for (index, vector) in vectors.iter().enumerate() {
        let others: Vec<&[u8]> = (partners(&vectors, index).into_iter())
            .filter(|&other| other != index)
            .map(|other| vectors[other].bytes.as_slice())
            .collect();
        for pos in 0..vector.bytes.len() {
            for mask in [0x01, 0x40, 0xFF] {
                let mut bytes = vector.bytes.clone();
                bytes[pos] ^= mask;
                let mut packets = others.clone();
                packets.push(&bytes);
                runs += 1;
                errors += usize::from(read_all(&packets).is_err());
            }
        }
    }
    // Most corruptions are caught somewhere (a flipped bit in a snapshot shows in its CRC).
    println!("{errors} errors in {runs} runs");
    assert!(errors * 2 > runs, "{errors} errors in {runs} runs");
}
