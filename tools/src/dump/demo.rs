//! Renderings of demos: `twcodec demo info` ([`demo_info`]), `twcodec demo ticks`
//! ([`demo_ticks`]) and the decoded messages ([`demo_messages`]).

use std::io::{self, Write};

use super::{hex, write_ints};
use twcodec::demo::{ChunkContent, Demo, Update};
use twcodec::snap::Protocol;
use twcodec::Error;

use twcodec::demo::TICKS_PER_SECOND;

/// A demo's header, map and chunk stream in a few lines: what `twcodec demo info` prints. Reads
/// every chunk, then replays the demo to check that every snapshot, delta and message decodes;
/// the first error is shown as an `error:` line and returned. The embedded map is read under
/// the default [`Limits`](twcodec::Limits).
pub fn demo_info(demo: &Demo, out: &mut dyn Write) -> io::Result<Option<Error>> {
    demo_info_with(demo, twcodec::Limits::DEFAULT, out)
}

/// [`demo_info`], reading the embedded map under `limits`.
pub fn demo_info_with(
    demo: &Demo,
    limits: twcodec::Limits,
    out: &mut dyn Write,
) -> io::Result<Option<Error>> {
    let header = demo.header();
    writeln!(
        out,
        "demo version {}, net version {} ({}), type {}",
        header.version,
        header.net_version.to_string_lossy(),
        match demo.protocol() {
            Protocol::Ddnet06 => "0.6/DDNet protocol",
            Protocol::Teeworlds07 => "Teeworlds 0.7 protocol",
        },
        header.kind.to_string_lossy()
    )?;
    writeln!(
        out,
        "recorded {}, length {} s (header)",
        header.timestamp.to_string_lossy(),
        header.length
    )?;
    let markers = demo.timeline_markers();
    write!(out, "timeline markers: ")?;
    write_ticks(out, markers)?;
    writeln!(out)?;
    let matches = |ok: bool| if ok { "matches" } else { "DOES NOT MATCH" };
    writeln!(
        out,
        "map: {}, {} bytes at byte {:#x}, crc {:08x} ({})",
        demo.map_name(),
        header.map_size,
        demo.map_offset(),
        header.map_crc,
        matches(demo.map_crc_matches())
    )?;
    match (demo.header_sha256(), demo.map_sha256_matches()) {
        (Some(sha256), Some(ok)) => {
            writeln!(out, "map sha256 {} ({})", hex(&sha256), matches(ok))?;
        }
        _ => {
            writeln!(
                out,
                "map sha256 {} (not in the header)",
                hex(&demo.map_sha256())
            )?;
        }
    }
    if header.map_size > 0 {
        match demo.map_with(limits) {
            Ok(map) => {
                write!(
                    out,
                    "map content: {} images, {} envelopes, {} groups, {} layers, {} sounds",
                    map.images().len(),
                    map.envelopes().len(),
                    map.groups().len(),
                    map.layers().len(),
                    map.sounds().len()
                )?;
                if let Some((_, tiles)) = map.game_layer() {
                    if let Some(grid) = tiles.grid() {
                        write!(out, ", game layer {}x{}", grid.width(), grid.height())?;
                    }
                }
                writeln!(out, ", {} problems", map.problems().len())?;
            }
            Err(error) => {
                writeln!(out, "map content: unreadable: {error}")?;
            }
        }
    }

    let (mut markers, mut keyframes, mut snapshots, mut deltas, mut messages, mut unknown) =
        (0, 0, 0, 0, 0, 0);
    let (mut first, mut last, mut payload) = (None, None, 0);
    let mut failure = None;
    for chunk in demo.chunks() {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(error) => {
                failure = Some(error);
                break;
            }
        };
        payload += chunk.payload().map_or(0, <[u8]>::len);
        match chunk.content {
            ChunkContent::TickMarker { keyframe } => {
                markers += 1;
                keyframes += usize::from(keyframe);
                first = first.or(chunk.tick);
                last = chunk.tick;
            }
            ChunkContent::Snapshot(_) => snapshots += 1,
            ChunkContent::Delta(_) => deltas += 1,
            ChunkContent::Message(_) => messages += 1,
            // Chunks of type 0, and kinds the codec adds later.
            _ => unknown += 1,
        }
    }
    let chunks = markers + snapshots + deltas + messages + unknown;
    writeln!(
        out,
        "chunks: {chunks} from byte {:#x} ({} ({}), {}, {}, {}{}), \
         {payload} bytes of payload",
        demo.chunks_offset(),
        count(markers, "tick marker"),
        count(keyframes, "keyframe"),
        count(snapshots, "snapshot"),
        count(deltas, "delta"),
        count(messages, "message"),
        if unknown > 0 {
            format!(", {unknown} of type 0")
        } else {
            String::new()
        }
    )?;
    if let (Some(first), Some(last)) = (first, last) {
        let ticks = last - first;
        writeln!(
            out,
            "ticks: {first} to {last}, {markers} with a tick marker, duration {}.{:02} s",
            ticks / TICKS_PER_SECOND,
            ticks % TICKS_PER_SECOND * 100 / TICKS_PER_SECOND
        )?;
    }
    if failure.is_none() {
        // The chunks read: replay them, checking every payload.
        failure = demo.replay().find_map(Result::err);
        if failure.is_none() {
            writeln!(out, "replay: every snapshot, delta and message decodes")?;
        }
    }
    if let Some(error) = &failure {
        writeln!(out, "error: {error}")?;
    }
    Ok(failure)
}

/// `1 tick marker`, `2 tick markers`.
fn count(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        _ => format!("{n} {what}s"),
    }
}

/// `none`, or the ticks separated by spaces.
fn write_ticks(out: &mut dyn Write, ticks: &[i32]) -> io::Result<()> {
    if ticks.is_empty() {
        out.write_all(b"none")
    } else {
        write_ints(out, ticks, " ")
    }
}

/// One line per tick of a replay: tick, how the snapshot came about, its items and checksum,
/// and the messages of the tick, counted and named (`?` for one that does not decode); what
/// `twcodec demo ticks` prints. A replay error ends the list with an `error:` line and is
/// returned.
pub fn demo_ticks(demo: &Demo, out: &mut dyn Write) -> io::Result<Option<Error>> {
    let protocol = demo.protocol();
    writeln!(out, "tick     update     items  checksum     messages")?;
    for frame in demo.replay() {
        let frame = match frame {
            Ok(frame) => frame,
            Err(error) => {
                writeln!(out, "error: {error}")?;
                return Ok(Some(error));
            }
        };
        let update = match (frame.update, frame.keyframe) {
            (Update::Full, true) => "full key",
            (Update::Full, false) => "full",
            (Update::Delta, _) => "delta",
            (Update::Unchanged, _) => "same",
        };
        write!(out, "{:<8} {update:<10}", frame.tick)?;
        match &frame.snapshot {
            Some(snapshot) => write!(out, " {:>5}  {:>11}", snapshot.len(), snapshot.checksum())?,
            None => write!(out, " {:>5}  {:>11}", "-", "-")?,
        }
        write!(out, "  {}", frame.messages.len())?;
        for (i, chunk) in frame.messages.iter().enumerate() {
            let name = chunk
                .message(protocol)
                .map_or("?", |message| message.name());
            write!(out, "{}{name}", if i == 0 { " " } else { ", " })?;
        }
        writeln!(out)?;
    }
    Ok(None)
}

/// One line per message of a demo, decoded: tick, chunk index, then the message's name and
/// fields ([`write_message`](super::write_message)). A message that does not decode gives an `error:` line and
/// the list goes on; a chunk that does not read ends it. Returns the first error.
pub fn demo_messages(demo: &Demo, out: &mut dyn Write) -> io::Result<Option<Error>> {
    writeln!(out, "tick     chunk   message")?;
    let mut first = None;
    for message in demo.messages() {
        match message {
            Ok(message) => {
                let tick = message
                    .chunk
                    .tick
                    .map_or("-".to_string(), |t| t.to_string());
                write!(out, "{tick:<8} #{:<6} ", message.chunk.index)?;
                super::write_message(&message.message, out)?;
                writeln!(out)?;
            }
            Err(error) => {
                writeln!(out, "error: {error}")?;
                first.get_or_insert(error);
            }
        }
    }
    Ok(first)
}
