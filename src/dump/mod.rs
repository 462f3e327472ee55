//! Stable, readable renderings: what the CLI prints and what snapshot tests review.
//!
//! Every rendering writes to a writer as it goes (`&mut dyn Write`; give it a buffered one)
//! and returns the writer's error, if any: nothing is collected before it is printed, so the
//! dump of a map with a million envelope points holds one point at a time. [`to_string`]
//! collects a rendering into a string, for tests and small inputs.
//!
//! ```
//! use twcodec::dump;
//!
//! let datafile = twcodec::Datafile::parse(&twcodec::sample::datafile())?;
//! let text = dump::to_string(|out| dump::info(&datafile, out));
//! assert!(text.starts_with("datafile version 4"));
//! // Or straight to standard output:
//! dump::info(&datafile, &mut std::io::stdout().lock())?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod map_view;
mod schema;
mod text;

use std::io::{self, Write};

use twcodec_schema::map::MapItemKind;
use twcodec_schema::uuid::{known_item_type_name, Uuid, OFFSET_UUID_TYPE};

use crate::datafile::Datafile;
use crate::demo::{ChunkContent, Demo, Update};
use crate::error::Error;
use crate::items::{decode_context, decode_item};
use crate::snap::{self, Protocol, SizeTable, Snapshot, SnapshotDelta};

pub use map_view::MapView;
pub use schema::{schema, schema_files, SchemaFormat, SchemaSelection, SCHEMA_COMMAND};

/// A rendering collected into a string (invalid UTF-8, which no rendering writes, replaced).
pub fn to_string<T>(render: impl FnOnce(&mut dyn Write) -> io::Result<T>) -> String {
    let mut out = Vec::new();
    // Writing into a vector fails only when it cannot grow, which aborts first.
    let _ = render(&mut out);
    match String::from_utf8(out) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    }
}

/// Which items [`items`] lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeFilter {
    /// Items with this (internal) type id.
    Id(u16),
    /// Items of the UUID item type with this UUID.
    Uuid(Uuid),
}

impl std::str::FromStr for TypeFilter {
    type Err = String;

    /// A type id (`5`, `0xfffe`), a map item type name (`layer`, `uuid-index`, `automapper`,
    /// `group-ex`), a UUID, or the name a UUID is derived from
    /// (`mapitemtype-automapper-config@ddnet.tw`).
    fn from_str(text: &str) -> Result<TypeFilter, String> {
        let text = text.trim();
        let number = match text.strip_prefix("0x") {
            Some(hex) => u16::from_str_radix(hex, 16).ok(),
            None => text.parse::<u16>().ok(),
        };
        if let Some(type_id) = number {
            return Ok(TypeFilter::Id(type_id));
        }
        let name = text.replace('-', " ").to_ascii_lowercase();
        if let Some(type_id) = MapItemKind::NUMBERED
            .iter()
            .find(|kind| kind.name() == name)
            .and_then(|kind| kind.type_id())
        {
            return Ok(TypeFilter::Id(type_id));
        }
        if let Some(uuid) = MapItemKind::WITH_UUID
            .iter()
            .find(|kind| kind.name() == name)
            .and_then(|kind| kind.uuid())
        {
            return Ok(TypeFilter::Uuid(uuid));
        }
        if let Ok(uuid) = Uuid::parse_str(text) {
            return Ok(TypeFilter::Uuid(uuid));
        }
        if text.contains('@') {
            return Ok(TypeFilter::Uuid(twcodec_schema::uuid::uuid_from_name(text)));
        }
        Err(format!(
            "`{text}` is not a type id, a map item type name, a UUID or a UUID name"
        ))
    }
}

/// What a type id stands for in this datafile: a map item type, a UUID item type, or unknown.
pub fn type_name(datafile: &Datafile, type_id: u16) -> String {
    if let Some(uuid) = datafile.uuid_of_type(type_id) {
        return match known_item_type_name(uuid) {
            Some(name) => format!("{name} ({uuid})"),
            None => format!("uuid {uuid}"),
        };
    }
    match MapItemKind::of(type_id, None) {
        MapItemKind::Unknown if type_id > OFFSET_UUID_TYPE => {
            "unknown (no UUID index item)".to_string()
        }
        kind => kind.name().to_string(),
    }
}

/// `1 item`, `2 items`.
fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// `twcodec info`: version, magic, header, item types with counts, data totals, warnings.
pub fn info(datafile: &Datafile, out: &mut dyn Write) -> io::Result<()> {
    let header = datafile.header();
    writeln!(
        out,
        "datafile version {}, magic {}, {} bytes",
        datafile.version(),
        datafile.magic(),
        datafile.file_len()
    )?;
    writeln!(
        out,
        "header: size {}, swaplen {}, num_item_types {}, num_items {}, num_data {}, item_size {}, data_size {}",
        header.size,
        header.swaplen,
        header.num_item_types,
        header.num_items,
        header.num_data,
        header.item_size,
        header.data_size
    )?;
    writeln!(
        out,
        "item types: {}, items: {}",
        datafile.type_ids().count(),
        datafile.items().len()
    )?;
    for type_id in datafile.type_ids() {
        let count = datafile.items_of_type(type_id).len();
        let noun = if count == 1 { "item" } else { "items" };
        writeln!(
            out,
            "  type {type_id:>5}  {count:>5} {noun:<5}  {}",
            type_name(datafile, type_id)
        )?;
    }
    let (stored, size) = (0..datafile.data_count()).fold((0usize, 0usize), |(s, u), i| {
        (
            s + datafile.stored_data(i).map_or(0, |d| d.len()),
            u + datafile.data_size(i).unwrap_or(0),
        )
    });
    writeln!(
        out,
        "data: {}, {stored} bytes stored, {size} bytes uncompressed",
        plural(datafile.data_count(), "item", "items")
    )?;
    if datafile.warnings().is_empty() {
        writeln!(out, "warnings: none")?;
    } else {
        writeln!(out, "warnings: {}", datafile.warnings().len())?;
        for warning in datafile.warnings() {
            writeln!(out, "  {warning}")?;
        }
    }
    Ok(())
}

/// The items `filter` selects (every item without one), with their indices.
fn selected(
    datafile: &Datafile,
    filter: Option<TypeFilter>,
) -> impl Iterator<Item = (usize, &twcodec_schema::datafile::Item)> {
    // `Some(None)`: a UUID the datafile does not use, so no item.
    let type_id = filter.map(|filter| match filter {
        TypeFilter::Id(type_id) => Some(type_id),
        TypeFilter::Uuid(uuid) => datafile.type_of_uuid(uuid),
    });
    let items = datafile.items().iter().enumerate();
    items.filter(move |(_, item)| type_id.is_none_or(|t| t == Some(item.type_id())))
}

/// `#INDEX type TYPE (NAME) id ID`, the label of an item.
fn write_label(
    out: &mut dyn Write,
    datafile: &Datafile,
    index: usize,
    item: &twcodec_schema::datafile::Item,
) -> io::Result<()> {
    let name = type_name(datafile, item.type_id());
    write!(
        out,
        "#{index} type {} ({name}) id {}",
        item.type_id(),
        item.id()
    )
}

/// `twcodec items`: every item (or those of one type) as index, type, id and ints.
pub fn items(
    datafile: &Datafile,
    filter: Option<TypeFilter>,
    out: &mut dyn Write,
) -> io::Result<()> {
    for (index, item) in selected(datafile, filter) {
        write_label(out, datafile, index, item)?;
        write!(out, ": [")?;
        write_ints(out, &item.data, ", ")?;
        writeln!(out, "]")?;
    }
    Ok(())
}

/// `twcodec items --decode`: every item (or those of one type) decoded as its map item type, one
/// field per line. Items that do not decode show their error and their ints. Items are decoded
/// one at a time, as they are written.
pub fn decoded_items(
    datafile: &Datafile,
    filter: Option<TypeFilter>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let context = decode_context(datafile);
    for (index, item) in selected(datafile, filter) {
        write_label(out, datafile, index, item)?;
        writeln!(out)?;
        match decode_item(datafile, index, context) {
            // The line above names the kind already.
            Ok(decoded) => text::write_fields(out, &decoded, 1, &["kind"])?,
            Err(error) => {
                writeln!(out, "  error: {error}")?;
                write!(out, "  ints: [")?;
                write_ints(out, &item.data, ", ")?;
                writeln!(out, "]")?;
            }
        }
    }
    Ok(())
}

/// The label of a snapshot type: its number, and its name in `protocol` or, for an extended
/// type, the UUID (and name) that `snapshot` announces for it.
fn snap_type_label(
    type_id: u16,
    protocol: Option<Protocol>,
    snapshot: Option<&Snapshot>,
) -> String {
    if type_id >= snap::OFFSET_EXTENDED_TYPE {
        let announced = snapshot.and_then(|snapshot| snapshot.type_uuid(type_id));
        return match announced {
            Some(uuid) => match snap::known_extended_type_name(uuid) {
                Some(name) => format!("{type_id:#x} {name}"),
                None => format!("{type_id:#x} {uuid}"),
            },
            None if snapshot.is_some() => format!("{type_id:#x} (no UUID announced)"),
            None => format!("{type_id:#x} (extended)"),
        };
    }
    match protocol.and_then(|protocol| protocol.type_name(type_id)) {
        Some(name) => format!("{type_id} {name}"),
        None => type_id.to_string(),
    }
}

/// Ints separated by `separator`.
fn write_ints(out: &mut dyn Write, ints: &[i32], separator: &str) -> io::Result<()> {
    for (i, int) in ints.iter().enumerate() {
        if i > 0 {
            out.write_all(separator.as_bytes())?;
        }
        write!(out, "{int}")?;
    }
    Ok(())
}

/// Ints separated by spaces, or `(empty)`.
fn write_ints_line(out: &mut dyn Write, ints: &[i32]) -> io::Result<()> {
    if ints.is_empty() {
        return out.write_all(b"(empty)");
    }
    write_ints(out, ints, " ")
}

/// A snapshot: a summary line with the checksum, then one line per item in stored order,
/// named after `protocol` and the extended types the snapshot announces.
pub fn snapshot_text(
    snapshot: &Snapshot,
    protocol: Option<Protocol>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let checksum = snapshot.checksum();
    writeln!(
        out,
        "snapshot: {} items, {} bytes, checksum {checksum} ({:#010x})",
        snapshot.len(),
        snapshot.size(),
        checksum as u32
    )?;
    for (index, item) in snapshot.items().enumerate() {
        let label = snap_type_label(item.type_id(), protocol, Some(snapshot));
        write!(out, "#{index} type {label} id {}: ", item.id())?;
        write_ints_line(out, item.data)?;
        if item.type_id() == snap::EXTENDED_TYPE_ANNOUNCEMENT {
            if let Some(uuid) = snapshot.type_uuid(item.id()) {
                let name = snap::known_extended_type_name(uuid).unwrap_or("unknown name");
                write!(out, " = type {:#x} is {uuid} ({name})", item.id())?;
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

/// A snapshot delta: a summary line, the removed keys, then the item deltas in stored order,
/// marking those that carry their size on the wire under `sizes`.
pub fn delta_text(
    delta: &SnapshotDelta,
    sizes: &SizeTable,
    protocol: Option<Protocol>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let ints = delta.to_ints(sizes).map_or(0, |ints| ints.len());
    writeln!(
        out,
        "snapshot delta: {} removed, {} item deltas, {ints} ints",
        delta.removed().len(),
        delta.updates().len()
    )?;
    if delta.zero() != 0 {
        writeln!(out, "zero field: {} (writers write 0)", delta.zero())?;
    }
    for (index, key) in delta.removed().iter().enumerate() {
        let label = snap_type_label(key.type_id(), protocol, None);
        writeln!(out, "removed #{index} type {label} id {}", key.id())?;
    }
    for (index, item) in delta.updates().enumerate() {
        let label = snap_type_label(item.type_id(), protocol, None);
        let size = match sizes.size_of(item.type_id().into()) {
            Some(_) => "",
            None => " (size on the wire)",
        };
        write!(out, "delta #{index} type {label} id {}{size}: ", item.id())?;
        write_ints_line(out, item.data)?;
        writeln!(out)?;
    }
    Ok(())
}

/// Hex of bytes.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Ticks per second of the game (DDNet `SERVER_TICK_SPEED`).
const TICKS_PER_SECOND: i32 = 50;

/// A demo's header, map and chunk stream in a few lines: what `twcodec demo info` prints. Reads
/// every chunk, then replays the demo to check that every snapshot, delta and message decodes;
/// the first error is shown as an `error:` line and returned. The embedded map is read under
/// the default [`Limits`](crate::Limits).
pub fn demo_info(demo: &Demo, out: &mut dyn Write) -> io::Result<Option<Error>> {
    demo_info_with(demo, crate::Limits::DEFAULT, out)
}

/// [`demo_info`], reading the embedded map under `limits`.
pub fn demo_info_with(
    demo: &Demo,
    limits: crate::Limits,
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
            ChunkContent::Unknown(_) => unknown += 1,
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
/// and the messages of the tick; what `twcodec demo ticks` prints. A replay error ends the
/// list with an `error:` line and is returned.
pub fn demo_ticks(demo: &Demo, out: &mut dyn Write) -> io::Result<Option<Error>> {
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
        writeln!(out, "  {}", frame.messages.len())?;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_filters_parse() {
        assert_eq!("5".parse(), Ok(TypeFilter::Id(5)));
        assert_eq!("0xfffe".parse(), Ok(TypeFilter::Id(0xfffe)));
        assert_eq!("layer".parse(), Ok(TypeFilter::Id(5)));
        assert_eq!("uuid-index".parse(), Ok(TypeFilter::Id(0xffff)));
        assert_eq!(
            "3e1b2716-178c-3978-9bd9-b11ae0410dd8".parse(),
            Ok(TypeFilter::Uuid(uuid::uuid!(
                "3e1b2716-178c-3978-9bd9-b11ae0410dd8"
            )))
        );
        assert_eq!(
            "mapitemtype-automapper-config@ddnet.tw".parse(),
            Ok(TypeFilter::Uuid(uuid::uuid!(
                "3e1b2716-178c-3978-9bd9-b11ae0410dd8"
            )))
        );
        assert_eq!(
            "automapper".parse(),
            Ok(TypeFilter::Uuid(uuid::uuid!(
                "3e1b2716-178c-3978-9bd9-b11ae0410dd8"
            )))
        );
        assert!("layers".parse::<TypeFilter>().is_err());
        assert!("70000".parse::<TypeFilter>().is_err());
    }
}

/// What [`map_text`] and [`map_json`] include besides the items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DumpOptions {
    /// An ASCII preview of the game layer.
    pub preview: bool,
}

/// `twcodec dump --format text`: the map, one field per line, groups holding their layers
/// ([`MapView`] in the text form), then the game layer preview when asked for.
pub fn map_text(map: &crate::Map, options: DumpOptions, out: &mut dyn Write) -> io::Result<()> {
    let view = MapView::new(map, options);
    text::write_fields(out, &map_view::WithoutPreview(&view), 0, &[])?;
    if options.preview {
        if let Some(lines) = view.preview() {
            writeln!(out, "game layer preview:")?;
            for line in lines {
                writeln!(out, "  |{line}|")?;
            }
            writeln!(out, "  {}", map_view::PREVIEW_LEGEND)?;
        }
    }
    Ok(())
}

/// `twcodec dump --format json`: the map ([`MapView`]) as pretty JSON, and a final newline.
pub fn map_json(map: &crate::Map, options: DumpOptions, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &MapView::new(map, options)).map_err(io_error)?;
    writeln!(out)
}

/// The writer's error inside a serde_json error, or the serde_json error as an I/O error.
fn io_error(error: serde_json::Error) -> io::Error {
    if error.is_io() {
        io::Error::from(error)
    } else {
        io::Error::other(error)
    }
}
