//! Game and system messages against the recorded sessions: every message of every corpus demo
//! and of every captured packet decodes and encodes back to its bytes; the chat lines, kills,
//! joins and leaves are the ones the sessions' server logs report; the decoded messages of the
//! demos are reviewed as a snapshot; a message that does not decode is an error that names its
//! chunk, and the lenient iterator goes on after it.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use binrw::io::Cursor;
use binrw::{BinRead, BinWrite};
use common::{corpus_dir, hostile, insta_settings};
use twcodec::demo::{ChunkContent, Demo};
use twcodec::huffman;
use twcodec::netmsg::{self, MessageKind, NetMessage, Protocol};
use twcodec::packet::Packet7;
use twcodec::schema::netmsg::game7::SvClientInfo7;
use twcodec::schema::packet::{ChunkHeader6, PacketHeader6};
use twcodec_tools::dump;

/// The sessions: demo file and traffic folder (corpus `demos/DEMOS.md`).
const SESSIONS: [(&str, &str); 6] = [
    (
        "064_ddnet_join_chat_walk_disconnect__client.demo",
        "064_ddnet_join_chat_walk_disconnect",
    ),
    (
        "075_ddnet_tinycave_other_player_join__client_foo.demo",
        "075_ddnet_tinycave_other_player_join",
    ),
    (
        "075_tw_dm1_join_chat_walk_disconnect__client.demo",
        "075_tw_dm1_join_chat_walk_disconnect",
    ),
    (
        "075_tw_tinycave_other_player_disconnect__client_bar.demo",
        "075_tw_tinycave_other_player_disconnect",
    ),
    (
        "075_tw_tinycave_other_player_join_round_start__client_foo.demo",
        "075_tw_tinycave_other_player_join_round_start",
    ),
    (
        "075_tw_tinycave_other_player_respawn__client_bar.demo",
        "075_tw_tinycave_other_player_respawn",
    ),
];

fn demo(corpus: &Path, name: &str) -> Demo {
    Demo::open(corpus.join("demos").join(name)).unwrap()
}

fn traffic(corpus: &Path, session: &str) -> PathBuf {
    corpus.join("demos/traffic").join(session)
}

/// Every message of a demo with its tick, decoded.
fn messages(demo: &Demo) -> Vec<(i32, NetMessage)> {
    demo.messages()
        .map(|message| {
            let message = message.unwrap();
            (message.chunk.tick.unwrap(), message.message)
        })
        .collect()
}

#[test]
fn every_demo_message_decodes_and_encodes_back() {
    let Some(corpus) = corpus_dir() else { return };
    let mut kinds = BTreeMap::new();
    for (name, _) in SESSIONS {
        let demo = demo(&corpus, name);
        let protocol = Protocol::from(demo.protocol());
        for chunk in demo.chunks() {
            let chunk = chunk.unwrap();
            if !matches!(chunk.content, ChunkContent::Message(_)) {
                continue;
            }
            // The bytes as the client recorded them: padded with zeros to whole ints.
            let bytes = chunk.message_bytes().unwrap();
            assert_eq!(bytes.len() % 4, 0);
            let message = chunk.message(protocol).unwrap();
            assert_ne!(message.kind(), MessageKind::Unknown, "{name}: {message:?}");
            assert!(message.check().is_empty(), "{name}: {message:?}");
            assert_eq!(
                netmsg::encode_padded(&message, protocol).unwrap(),
                bytes,
                "{name} chunk #{}",
                chunk.index
            );
            // Unpadded, the message is what the server sent: its bytes end within the last
            // 4, and re-reading them gives the same message.
            let exact = netmsg::encode(&message, protocol).unwrap();
            assert!(bytes.len() - exact.len() < 4 && bytes.starts_with(&exact));
            assert_eq!(netmsg::decode(&exact, protocol).unwrap(), message);
            *kinds.entry(message.name()).or_insert(0) += 1;
        }
    }
    assert_eq!(
        kinds,
        BTreeMap::from([
            ("de_client_enter", 1),
            ("de_client_leave", 2),
            ("sv_chat", 3),
            ("sv_client_drop", 1),
            ("sv_client_info", 1),
            ("sv_kill_msg", 5),
            ("sv_record", 2),
            ("sv_tune_params", 4),
        ])
    );
}

/// A chat line: tick, client id, team (0.6) or mode (0.7), whisper target (0.7), text.
type ChatRow = (i32, i32, Option<i32>, Option<i32>, String);

/// The chat lines of the sessions, as the server logs have them: DDNet logs
/// `chat: <client>:<team>:<name>: <text>`, with team -2 for "to everyone" (`TEAM_ALL`, which
/// the message sends as team 0); Teeworlds 0.7 logs `[chat]: <mode>:<client>:<name>: <text>`.
#[test]
fn chat_lines_are_what_the_sessions_said() {
    let Some(corpus) = corpus_dir() else { return };
    let chat = |name: &str| -> Vec<ChatRow> {
        messages(&demo(&corpus, name))
            .iter()
            .filter_map(|(tick, message)| {
                let chat = message.chat()?;
                Some((
                    *tick,
                    chat.client_id,
                    chat.team.or(chat.mode),
                    chat.target_id,
                    chat.text().into_owned(),
                ))
            })
            .collect()
    };
    let log = |session: &str| {
        std::fs::read_to_string(traffic(&corpus, session).join("server_log.txt")).unwrap()
    };

    // 0.6/DDNet: client 0 says "hello" to everyone.
    assert_eq!(
        chat(SESSIONS[0].0),
        [(1528, 0, Some(0), None, "hello".to_string())]
    );
    assert!(log(SESSIONS[0].1).contains("I chat: 0:-2:nameless tee: hello\n"));

    // 0.7: mode 1 (all), client 0, no whisper target.
    assert_eq!(
        chat(SESSIONS[2].0),
        [(518, 0, Some(1), Some(-1), "hello".to_string())]
    );
    assert!(log(SESSIONS[2].1).contains("[chat]: 1:0:nameless tee: hello\n"));

    // A DDNet server talking to a 0.7 client: a server line (client -1), in 0.7's layout.
    let lines = chat(SESSIONS[1].0);
    assert_eq!(lines.len(), 1);
    let (tick, client, mode, target, text) = &lines[0];
    assert_eq!(
        (*tick, *client, *mode, *target),
        (268, -1, Some(1), Some(-1))
    );
    assert!(
        text.starts_with("Your timeout code has been set."),
        "{text}"
    );

    // The other sessions chatted nothing.
    for (name, _) in &SESSIONS[3..] {
        assert!(chat(name).is_empty(), "{name}");
    }
}

/// Kills, joins and leaves: every one a demo recorded has its line in the server log.
#[test]
fn kills_joins_and_leaves_are_in_the_server_logs() {
    let Some(corpus) = corpus_dir() else { return };
    let mut checked = 0;
    for (name, session) in SESSIONS {
        let log =
            std::fs::read_to_string(traffic(&corpus, session).join("server_log.txt")).unwrap();
        let logged = |parts: &[String]| {
            log.lines()
                .any(|line| parts.iter().all(|part| line.contains(part.as_str())))
        };
        for (tick, message) in messages(&demo(&corpus, name)) {
            let parts: Vec<String> = match &message {
                // DDNet logs `killer='<id>:<name>'`, Teeworlds `killer='<id>:<team>:<name>'`.
                NetMessage::SvKillMsg(kill) => vec![
                    format!("kill killer='{}:", kill.killer),
                    format!("victim='{}:", kill.victim),
                    format!("weapon={} special={}", kill.weapon, kill.mode_special),
                ],
                NetMessage::DeClientEnter7(enter) => vec![format!(
                    "team_join player='{}:{}' team={}",
                    enter.client_id,
                    enter.name.to_string_lossy(),
                    enter.team
                )],
                NetMessage::DeClientLeave7(leave) => vec![format!(
                    "leave player='{}:{}'",
                    leave.client_id,
                    leave.name.to_string_lossy()
                )],
                NetMessage::SvClientInfo7(info) => vec![format!(
                    "chat: *** '{}' entered and joined the game",
                    info.name.to_string_lossy()
                )],
                NetMessage::SvClientDrop7(drop) => {
                    vec![format!("leave player='{}:", drop.client_id)]
                }
                _ => continue,
            };
            assert!(
                logged(&parts),
                "{name}, tick {tick}: {parts:?} not in the log"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 10);

    // What the sessions' READMEs describe: "foo" kills himself twice while "bar" records,
    // 3 seconds apart in the log (15:11:32 and 15:11:35), 184 ticks in the demo.
    let respawn = messages(&demo(&corpus, SESSIONS[5].0));
    let kills: Vec<(i32, i32, i32, i32)> = respawn
        .iter()
        .filter_map(|(tick, message)| match message {
            NetMessage::SvKillMsg(kill) => {
                Some((*tick, kill.killer.0, kill.victim.0, kill.weapon.0))
            }
            _ => None,
        })
        .collect();
    assert_eq!(kills, [(2572, 0, 0, -2), (2756, 0, 0, -2)]);
    // "bar" joins and leaves while "foo" records; the demo names him in its own messages.
    let round_start = messages(&demo(&corpus, SESSIONS[4].0));
    let names: Vec<String> = round_start
        .iter()
        .filter_map(|(_, message)| match message {
            NetMessage::DeClientEnter7(enter) => Some(format!("+{}", enter.name.to_string_lossy())),
            NetMessage::DeClientLeave7(leave) => Some(format!("-{}", leave.name.to_string_lossy())),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["+bar", "-bar"]);
}

/// The 0.7 client info that a DDNet client recorded: "bar" joining "foo"'s game, with the
/// default skin.
#[test]
fn a_07_demo_names_players_in_client_info() {
    let Some(corpus) = corpus_dir() else { return };
    let infos: Vec<SvClientInfo7> = messages(&demo(&corpus, SESSIONS[1].0))
        .into_iter()
        .filter_map(|(_, message)| match message {
            NetMessage::SvClientInfo7(info) => Some(info),
            _ => None,
        })
        .collect();
    assert_eq!(infos.len(), 1);
    let bar = &infos[0];
    assert_eq!(bar.name.to_string_lossy(), "bar");
    assert_eq!((bar.client_id.0, bar.local.0, bar.team.0), (1, 0, 0));
    assert_eq!(bar.clan.bytes(), b"");
    assert_eq!(bar.country.0, -1);
    let parts: Vec<_> = bar
        .skin_part_names
        .iter()
        .map(|p| p.to_string_lossy())
        .collect();
    assert_eq!(
        parts,
        ["standard", "", "", "standard", "standard", "standard"]
    );
}

#[test]
fn decoded_messages_are_reviewed() {
    let Some(corpus) = corpus_dir() else { return };
    let mut text = String::new();
    for (name, _) in SESSIONS {
        let demo = demo(&corpus, name);
        text += &format!("== {name} ({:?})\n", demo.protocol());
        let listing = dump::to_string(|out| dump::demo_messages(&demo, out));
        assert!(!listing.contains("error:"), "{listing}");
        text += &listing;
    }
    insta_settings().bind(|| insta::assert_snapshot!("demo_messages", text));
}

/// A message chunk whose message does not decode is an error naming the chunk, its tick and
/// byte offset, and the message's field and byte; the lenient iterator reports it and goes on.
#[test]
fn a_message_that_does_not_decode_is_reported_and_skipped() {
    use twcodec::schema::demo::ChunkKind;
    use twcodec::snap::packing::pack_ints;
    let chunk = |bytes: &[u8]| {
        let ints = twcodec::snap::ints_from_bytes(bytes).unwrap();
        Some((ChunkKind::Message, huffman::compress(&pack_ints(&ints))))
    };
    // 0.6 Sv_Chat (id 3): team 0, client 1, then a string without its NUL.
    let broken = chunk(b"\x06\x00\x01hello");
    // 0.6 Sv_KillMsg (id 4): 1 killed 2 with the hammer.
    let kill = chunk(&[0x08, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00]);
    let bytes = hostile::demo(5, &[], &[None, broken, kill]);
    let demo = Demo::parse(&bytes).unwrap();
    let results: Vec<_> = demo.messages().collect();
    assert_eq!(results.len(), 2);
    let error = results[0].as_ref().unwrap_err();
    insta_settings().bind(|| insta::assert_snapshot!("demo_message_error", error.to_string()));
    assert!(error
        .to_string()
        .starts_with("chunk #1 (tick 1): message: sv_chat, field `message`"));
    let kill = results[1].as_ref().unwrap();
    assert_eq!(kill.chunk.index, 2);
    assert_eq!(
        twcodec_tools::dump::message_line(&kill.message),
        "sv_kill_msg killer=1 victim=2 weapon=0 mode_special=0"
    );
    // Strict: the first error stops.
    assert!(demo.messages().collect::<Result<Vec<_>, _>>().is_err());
    let listing = dump::to_string(|out| dump::demo_messages(&demo, out));
    assert_eq!(listing.lines().count(), 3, "{listing}");
    // A chunk that is not a message says so.
    let marker = demo.chunks().next().unwrap().unwrap();
    assert_eq!(
        marker.message(Protocol::Ddnet06).unwrap_err().message(),
        "a tick marker is not a message"
    );
}

// --- Captured traffic ---------------------------------------------------------------------

/// The UDP payloads of a capture (pcap or pcapng, Ethernet frames of IPv4), with whether the
/// server (port 8303) sent them.
fn udp_payloads(path: &Path) -> Vec<(bool, Vec<u8>)> {
    let bytes = std::fs::read(path).unwrap();
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let mut frames = Vec::new();
    if bytes.starts_with(&[0xd4, 0xc3, 0xb2, 0xa1]) {
        // pcap: a 24-byte header, then records of a 16-byte header and the frame.
        assert_eq!(u32_at(20), 1, "Ethernet frames");
        let mut at = 24;
        while at < bytes.len() {
            let len = u32_at(at + 8);
            frames.push(&bytes[at + 16..at + 16 + len]);
            at += 16 + len;
        }
    } else {
        // pcapng: blocks of type, length, body, length; enhanced packet blocks (type 6) hold
        // the frames after 20 bytes of their own header.
        assert!(bytes.starts_with(&[0x0a, 0x0d, 0x0d, 0x0a]));
        let mut at = 0;
        while at < bytes.len() {
            let (kind, len) = (u32_at(at), u32_at(at + 4));
            if kind == 1 {
                assert_eq!(&bytes[at + 8..at + 10], &[1, 0], "Ethernet frames");
            }
            if kind == 6 {
                let captured = u32_at(at + 20);
                frames.push(&bytes[at + 28..at + 28 + captured]);
            }
            at += len;
        }
    }
    frames
        .into_iter()
        .filter(|frame| frame[12..14] == [0x08, 0x00] && frame[23] == 17)
        .map(|frame| {
            let ip = &frame[14..];
            let udp = &ip[usize::from(ip[0] & 0x0f) * 4..];
            let from_server = u16::from_be_bytes([udp[0], udp[1]]) == 8303;
            (from_server, udp[8..].to_vec())
        })
        .collect()
}

/// The messages of a 0.6/DDNet packet, read through the schema's 0.6 headers
/// (docs/format/packet.md; DDNet `src/engine/shared/network.cpp`, `CNetBase::UnpackPacket` and
/// `CNetChunkHeader::Unpack` with a split of 4): a `PacketHeader6`, then chunks of a
/// `ChunkHeader6` and data. Each header written back gives the bytes read; after the chunks,
/// a DDNet peer appends its 4-byte security token (every packet of chunks of the captured
/// DDNet session has one), a vanilla 0.6 peer nothing.
fn messages_06(packet: &[u8]) -> Vec<Vec<u8>> {
    fn written(header: &impl for<'a> BinWrite<Args<'a> = ()>) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        header.write_be(&mut out).unwrap();
        out.into_inner()
    }
    let header = PacketHeader6::read(&mut Cursor::new(packet)).unwrap();
    assert_eq!(written(&header), packet[..PacketHeader6::SIZE]);
    if header.flags.control() || header.flags.connless() {
        return Vec::new();
    }
    let body = &packet[PacketHeader6::SIZE..];
    let payload = if header.flags.compression() {
        huffman::decompress(body, 1 << 16).unwrap()
    } else {
        body.to_vec()
    };
    let mut reader = Cursor::new(&payload[..]);
    let mut out = Vec::new();
    for _ in 0..header.num_chunks {
        let start = reader.position() as usize;
        let chunk = ChunkHeader6::read(&mut reader).unwrap();
        let at = reader.position() as usize;
        assert_eq!(written(&chunk), payload[start..at]);
        let end = at + usize::from(chunk.size);
        out.push(payload[at..end].to_vec());
        reader.set_position(end as u64);
    }
    let left = payload.len() - reader.position() as usize;
    assert!(left == 0 || left == 4, "{left} bytes after the chunks");
    out
}

/// How often the libtw2 dissector's decode (`tshark_libtw2.txt`) names each message, without
/// its `game.` or `sys.` prefix.
fn dissected(path: &Path) -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut counts = BTreeMap::new();
    for word in text.split([' ', ',', '\n']) {
        if let Some(name) = word
            .strip_prefix("game.")
            .or_else(|| word.strip_prefix("sys."))
        {
            *counts.entry(name.to_string()).or_insert(0) += 1;
        }
    }
    counts
}

/// Every message of every captured session, both ways: it decodes (client messages, which
/// the registry leaves out, as unknown), and encodes back to the bytes sent.
#[test]
fn every_captured_message_decodes_and_encodes_back() {
    let Some(corpus) = corpus_dir() else { return };
    let mut infos = BTreeMap::new();
    for (_, session) in SESSIONS {
        let capture = traffic(&corpus, session).join(format!("{session}.pcap"));
        let protocol = match session.starts_with("064") {
            true => Protocol::Ddnet06,
            false => Protocol::Teeworlds07,
        };
        let mut kinds = BTreeMap::new();
        let mut unknown_ids = Vec::new();
        let mut known = BTreeMap::new();
        for (from_server, packet) in udp_payloads(&capture) {
            let chunks = match protocol {
                Protocol::Ddnet06 => messages_06(&packet),
                _ => match Packet7::parse(&packet) {
                    Ok(packet) => packet.chunks().map(|c| c.unwrap().data.to_vec()).collect(),
                    Err(e) if e.kind() == twcodec::ErrorKind::Unsupported => continue,
                    Err(e) => panic!("{session}: {e}"),
                },
            };
            for bytes in chunks {
                let message = netmsg::decode(&bytes, protocol)
                    .unwrap_or_else(|e| panic!("{session}: {e}: {bytes:02x?}"));
                assert_eq!(
                    netmsg::encode(&message, protocol).unwrap(),
                    bytes,
                    "{session}"
                );
                if message.kind() != MessageKind::Unknown {
                    let uuid = message.kind().uuid().map(|uuid| uuid.to_string());
                    *known.entry((message.name(), uuid)).or_insert(0) += 1;
                }
                if from_server {
                    *kinds.entry(message.name()).or_insert(0) += 1;
                    if let NetMessage::Unknown(unknown) = &message {
                        unknown_ids.push((unknown.system, unknown.id.to_string()));
                    }
                }
                if let NetMessage::SvClientInfo7(info) = &message {
                    let name = info.name.to_string_lossy().into_owned();
                    infos.entry(session).or_insert_with(Vec::new).push((
                        info.client_id.0,
                        name,
                        info.local.0,
                    ));
                }
            }
        }
        // Everything the servers sent is a registered message, but 0.7's server info
        // (system message 4), which a client receives once on connecting.
        let expected: &[(bool, &str)] = match protocol {
            Protocol::Ddnet06 => &[],
            _ => &[(true, "4")],
        };
        let expected: Vec<_> = expected
            .iter()
            .map(|&(s, id)| (s, id.to_string()))
            .collect();
        assert_eq!(unknown_ids, expected, "{session}: {kinds:?}");
        // The libtw2 dissector's decode of the same capture names every message these
        // decode to as often (by name, or by UUID for DDNet's extended messages it does not
        // know).
        let dissected = dissected(&traffic(&corpus, session).join("tshark_libtw2.txt"));
        for ((name, uuid), count) in &known {
            let theirs = dissected
                .get(*name)
                .or_else(|| uuid.as_ref().and_then(|uuid| dissected.get(uuid)));
            assert_eq!(theirs, Some(count), "{session}: {name}");
        }
        assert!(known.len() >= 12, "{session}: {known:?}");
    }
    // The 0.7 sessions' players as the client info messages name them (the sessions'
    // READMEs): each client learns of itself (local 1) and of the other player.
    let seen = |session: &str| infos.get(session).cloned().unwrap_or_default();
    let player = |id: i32, name: &str, local: i32| (id, name.to_string(), local);
    assert_eq!(
        seen("075_tw_tinycave_other_player_respawn"),
        [player(0, "foo", 0), player(1, "bar", 1)]
    );
    assert_eq!(
        seen("075_tw_tinycave_other_player_join_round_start"),
        [player(0, "foo", 1), player(1, "bar", 0)]
    );
    assert_eq!(
        seen("075_ddnet_tinycave_other_player_join"),
        [player(0, "foo", 1), player(1, "bar", 0)]
    );
}
