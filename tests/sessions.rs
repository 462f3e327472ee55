//! Demos against the traffic of the same sessions: the snapshot a demo replays at a tick, less
//! the items a 0.7 client adds for demos only, has the checksum the server sent for that tick
//! (the captures in `demos/traffic/`, DEMOS.md). This checks the demo reader, the Huffman
//! coding, the snapshot codec and its 0.7 size table on real data from two independent
//! sources: what the client recorded and what the server sent.

mod common;

use std::collections::BTreeMap;

use common::{corpus_dir, insta_settings};
use twcodec::demo::{Demo, Update};
use twcodec::packet::{Packet7, SnapMessage};

/// The 0.7 sessions: the traffic directory and the demo the same client recorded.
const SESSIONS: [(&str, &str); 5] = [
    (
        "075_ddnet_tinycave_other_player_join",
        "075_ddnet_tinycave_other_player_join__client_foo.demo",
    ),
    (
        "075_tw_dm1_join_chat_walk_disconnect",
        "075_tw_dm1_join_chat_walk_disconnect__client.demo",
    ),
    (
        "075_tw_tinycave_other_player_disconnect",
        "075_tw_tinycave_other_player_disconnect__client_bar.demo",
    ),
    (
        "075_tw_tinycave_other_player_join_round_start",
        "075_tw_tinycave_other_player_join_round_start__client_foo.demo",
    ),
    (
        "075_tw_tinycave_other_player_respawn",
        "075_tw_tinycave_other_player_respawn__client_bar.demo",
    ),
];

/// The Ethernet frames of a capture: a classic little-endian pcap file, or a little-endian
/// pcapng file (section header, interface description and enhanced packet blocks).
fn frames(capture: &[u8]) -> Vec<&[u8]> {
    let u32_at = |at: usize| u32::from_le_bytes(capture[at..at + 4].try_into().unwrap());
    let mut frames = Vec::new();
    if u32_at(0) == 0xA1B2_C3D4 {
        assert_eq!(u32_at(20), 1, "Ethernet frames");
        let mut pos = 24;
        while pos + 16 <= capture.len() {
            let len = u32_at(pos + 8) as usize;
            frames.push(&capture[pos + 16..pos + 16 + len]);
            pos += 16 + len;
        }
        return frames;
    }
    assert_eq!(u32_at(0), 0x0A0D_0D0A, "pcap or pcapng");
    assert_eq!(u32_at(8), 0x1A2B_3C4D, "little-endian pcapng");
    let mut pos = 0;
    while pos + 12 <= capture.len() {
        let (kind, len) = (u32_at(pos), u32_at(pos + 4) as usize);
        match kind {
            // Interface description: the link type.
            1 => assert_eq!(&capture[pos + 8..pos + 10], [1, 0], "Ethernet frames"),
            // Enhanced packet: interface, time (8 bytes), captured length, original length.
            6 => {
                let captured = u32_at(pos + 20) as usize;
                frames.push(&capture[pos + 28..pos + 28 + captured]);
            }
            _ => {}
        }
        pos += len;
    }
    frames
}

/// The UDP payloads (Ethernet, IPv4) from port 8303, the server.
fn server_payloads(capture: &[u8]) -> Vec<Vec<u8>> {
    let mut payloads = Vec::new();
    for frame in frames(capture) {
        if frame.len() < 14 + 20 || frame[12..14] != [0x08, 0x00] || frame[14 + 9] != 17 {
            continue;
        }
        let ip_header = usize::from(frame[14] & 0x0F) * 4;
        let udp = &frame[14 + ip_header..];
        let source = u16::from_be_bytes([udp[0], udp[1]]);
        let udp_len = usize::from(u16::from_be_bytes([udp[4], udp[5]]));
        if source == 8303 {
            payloads.push(udp[8..udp_len].to_vec());
        }
    }
    payloads
}

/// The CRC of the snapshot the server sent for each tick (for an empty delta, the CRC of its
/// base), by tick.
fn server_crcs(payloads: &[Vec<u8>]) -> BTreeMap<i32, i32> {
    let mut crcs = BTreeMap::new();
    for payload in payloads {
        // Connectionless and control packets carry no snapshots.
        let Ok(packet) = Packet7::parse(payload) else {
            continue;
        };
        for chunk in packet.chunks() {
            let Ok(chunk) = chunk else { break };
            if let Ok(Some(message)) = SnapMessage::parse(&chunk) {
                // An empty snapshot message says "the same as at the delta tick".
                let crc = message
                    .crc()
                    .or_else(|| crcs.get(&message.delta_tick()).copied());
                if let Some(crc) = crc {
                    let previous = crcs.insert(message.tick(), crc);
                    assert!(previous.is_none_or(|p| p == crc));
                }
            }
        }
    }
    crcs
}

#[test]
fn replayed_snapshots_have_the_checksums_the_server_sent() {
    let Some(corpus) = corpus_dir() else { return };
    let mut report = String::new();
    for (traffic, demo_name) in SESSIONS {
        let dir = corpus.join("demos").join("traffic").join(traffic);
        let pcap = std::fs::read(dir.join(format!("{traffic}.pcap"))).unwrap();
        let crcs = server_crcs(&server_payloads(&pcap));
        let demo = Demo::open(corpus.join("demos").join(demo_name)).unwrap();
        let (mut compared, mut recorded) = (0, 0);
        for frame in demo.replay() {
            let frame = frame.unwrap();
            let Some(snapshot) = frame.snapshot.as_ref() else {
                continue;
            };
            recorded += usize::from(frame.update != Update::Unchanged);
            // The server's snapshot is the recorded one without the items the 0.7 client adds
            // for the demo only: De_ClientInfo, De_GameInfo, De_TuneParams (types 13 to 15).
            let demo_only: i32 = (snapshot.items())
                .filter(|item| (13..=15).contains(&item.type_id()))
                .flat_map(|item| item.data)
                .fold(0, |sum, &int| sum.wrapping_add(int));
            let checksum = snapshot.checksum().wrapping_sub(demo_only);
            if let Some(&crc) = crcs.get(&frame.tick) {
                assert_eq!(checksum, crc, "{demo_name} tick {}", frame.tick);
                compared += 1;
            } else {
                // Every snapshot the demo records was received in the capture.
                assert_eq!(
                    frame.update,
                    Update::Unchanged,
                    "{demo_name} tick {}",
                    frame.tick
                );
            }
        }
        assert!(compared >= recorded && recorded > 0, "{demo_name}");
        report.push_str(&format!(
            "{demo_name}: {recorded} snapshots recorded, at {compared} ticks equal to the \
             server's CRC ({} ticks sent)\n",
            crcs.len()
        ));
    }
    insta_settings().bind(|| insta::assert_snapshot!("demo_sessions", report));
}
