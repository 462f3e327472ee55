//! Stable, readable text renderings: what the CLI prints and what snapshot tests review.

use std::fmt::Write;

use twcodec_schema::map::MapItemKind;
use twcodec_schema::uuid::{known_item_type_name, Uuid, OFFSET_UUID_TYPE};

use crate::datafile::Datafile;
use crate::demo::{ChunkContent, Demo, Update};
use crate::items::decode_items;
use crate::snap::{self, Protocol, SizeTable, Snapshot, SnapshotDelta};

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

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// `twcodec info`: version, magic, header, item types with counts, data totals, warnings.
pub fn info(datafile: &Datafile) -> String {
    let mut out = String::new();
    let header = datafile.header();
    let _ = writeln!(
        out,
        "datafile version {}, magic {}, {} bytes",
        datafile.version(),
        datafile.magic(),
        datafile.file_len()
    );
    let _ = writeln!(
        out,
        "header: size {}, swaplen {}, num_item_types {}, num_items {}, num_data {}, item_size {}, data_size {}",
        header.size,
        header.swaplen,
        header.num_item_types,
        header.num_items,
        header.num_data,
        header.item_size,
        header.data_size
    );
    let _ = writeln!(
        out,
        "item types: {}, items: {}",
        datafile.type_ids().count(),
        datafile.items().len()
    );
    for type_id in datafile.type_ids() {
        let count = datafile.items_of_type(type_id).len();
        let _ = writeln!(
            out,
            "  type {type_id:>5}  {:>10}  {}",
            plural(count, "item", "items"),
            type_name(datafile, type_id)
        );
    }
    let (stored, size) = (0..datafile.data_count()).fold((0usize, 0usize), |(s, u), i| {
        (
            s + datafile.stored_data(i).map_or(0, |d| d.len()),
            u + datafile.data_size(i).unwrap_or(0),
        )
    });
    let _ = writeln!(
        out,
        "data: {}, {stored} bytes stored, {size} bytes uncompressed",
        plural(datafile.data_count(), "item", "items")
    );
    if datafile.warnings().is_empty() {
        let _ = writeln!(out, "warnings: none");
    } else {
        let _ = writeln!(out, "warnings: {}", datafile.warnings().len());
        for warning in datafile.warnings() {
            let _ = writeln!(out, "  {warning}");
        }
    }
    out
}

/// `twcodec items`: every item (or those of one type) as index, type, id and ints.
pub fn items(datafile: &Datafile, filter: Option<TypeFilter>) -> String {
    let type_id = match filter {
        None => None,
        Some(TypeFilter::Id(type_id)) => Some(Some(type_id)),
        Some(TypeFilter::Uuid(uuid)) => Some(datafile.type_of_uuid(uuid)),
    };
    let mut out = String::new();
    for (index, item) in datafile.items().iter().enumerate() {
        if type_id.is_some_and(|t| t != Some(item.type_id())) {
            continue;
        }
        let ints: Vec<String> = item.data.iter().map(i32::to_string).collect();
        let _ = writeln!(
            out,
            "#{index} type {} ({}) id {}: [{}]",
            item.type_id(),
            type_name(datafile, item.type_id()),
            item.id(),
            ints.join(", ")
        );
    }
    out
}

/// `twcodec items --decode`: every item (or those of one type) decoded as its map item type, one
/// field per line. Items that do not decode show their error and their ints.
pub fn decoded_items(datafile: &Datafile, filter: Option<TypeFilter>) -> String {
    let type_id = filter.map(|filter| match filter {
        TypeFilter::Id(type_id) => Some(type_id),
        TypeFilter::Uuid(uuid) => datafile.type_of_uuid(uuid),
    });
    let mut out = String::new();
    for (index, (item, decoded)) in datafile
        .items()
        .iter()
        .zip(decode_items(datafile))
        .enumerate()
    {
        if type_id.is_some_and(|t| t != Some(item.type_id())) {
            continue;
        }
        let _ = writeln!(
            out,
            "#{index} type {} ({}) id {}",
            item.type_id(),
            type_name(datafile, item.type_id()),
            item.id()
        );
        match decoded {
            Ok(decoded) => match serde_json::to_value(&decoded) {
                Ok(mut value) => {
                    // The line above names the kind already.
                    if let Some(fields) = value.as_object_mut() {
                        fields.shift_remove("kind");
                    }
                    render_value(&value, 1, &mut out)
                }
                Err(error) => {
                    let _ = writeln!(out, "  cannot render: {error}");
                }
            },
            Err(error) => {
                let ints: Vec<String> = item.data.iter().map(i32::to_string).collect();
                let _ = writeln!(out, "  error: {error}");
                let _ = writeln!(out, "  ints: [{}]", ints.join(", "));
            }
        }
    }
    out
}

/// Longest line an inline structure may take.
const INLINE_WIDTH: usize = 100;

/// A scalar, an array of scalars, or a small structure of those (a point, a color, an envelope
/// point) on one line; `None` for what needs several lines.
fn inline_value(value: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    match value {
        Value::Object(fields) => {
            let parts: Option<Vec<String>> = fields
                .iter()
                .map(|(key, field)| match field {
                    Value::Object(_) => None,
                    other => inline_value(other).map(|text| format!("{key}: {text}")),
                })
                .collect();
            parts
                .map(|parts| format!("{{{}}}", parts.join(", ")))
                .filter(|text| text.len() <= INLINE_WIDTH)
        }
        Value::Null => Some("none".to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(format!("{s:?}")),
        Value::Array(items) => {
            let parts: Option<Vec<String>> = items
                .iter()
                .map(|item| match item {
                    Value::Array(_) | Value::Object(_) => None,
                    scalar => inline_value(scalar),
                })
                .collect();
            parts.map(|parts| format!("[{}]", parts.join(", ")))
        }
    }
}

/// Renders a value as `key: value` lines, nesting by indentation; arrays of structures list
/// their elements as `- ` entries.
fn render_value(value: &serde_json::Value, depth: usize, out: &mut String) {
    use serde_json::Value;
    let indent = "  ".repeat(depth);
    match value {
        Value::Object(fields) => {
            for (key, field) in fields {
                match inline_value(field) {
                    Some(text) => {
                        let _ = writeln!(out, "{indent}{key}: {text}");
                    }
                    None => {
                        let _ = writeln!(out, "{indent}{key}:");
                        render_value(field, depth + 1, out);
                    }
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                match inline_value(item) {
                    Some(text) => {
                        let _ = writeln!(out, "{indent}- {text}");
                    }
                    None => {
                        let _ = writeln!(out, "{indent}- #{index}");
                        render_value(item, depth + 1, out);
                    }
                }
            }
        }
        scalar => {
            let _ = writeln!(out, "{indent}{}", inline_value(scalar).unwrap_or_default());
        }
    }
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

/// Ints separated by spaces, or `(empty)`.
fn ints_line(ints: &[i32]) -> String {
    if ints.is_empty() {
        return "(empty)".into();
    }
    let mut line = String::with_capacity(ints.len() * 4);
    for (i, int) in ints.iter().enumerate() {
        if i > 0 {
            line.push(' ');
        }
        let _ = write!(line, "{int}");
    }
    line
}

/// A snapshot: a summary line with the checksum, then one line per item in stored order,
/// named after `protocol` and the extended types the snapshot announces.
pub fn snapshot_text(snapshot: &Snapshot, protocol: Option<Protocol>) -> String {
    let mut out = String::new();
    let checksum = snapshot.checksum();
    let _ = writeln!(
        out,
        "snapshot: {} items, {} bytes, checksum {checksum} ({:#010x})",
        snapshot.len(),
        snapshot.size(),
        checksum as u32
    );
    for (index, item) in snapshot.items().enumerate() {
        let label = snap_type_label(item.type_id(), protocol, Some(snapshot));
        let _ = write!(out, "#{index} type {label} id {}: ", item.id());
        out += &ints_line(item.data);
        if item.type_id() == snap::EXTENDED_TYPE_ANNOUNCEMENT {
            if let Some(uuid) = snapshot.type_uuid(item.id()) {
                let name = snap::known_extended_type_name(uuid).unwrap_or("unknown name");
                let _ = write!(out, " = type {:#x} is {uuid} ({name})", item.id());
            }
        }
        out.push('\n');
    }
    out
}

/// A snapshot delta: a summary line, the removed keys, then the item deltas in stored order,
/// marking those that carry their size on the wire under `sizes`.
pub fn delta_text(delta: &SnapshotDelta, sizes: &SizeTable, protocol: Option<Protocol>) -> String {
    let mut out = String::new();
    let ints = delta.to_ints(sizes).map_or(0, |ints| ints.len());
    let _ = writeln!(
        out,
        "snapshot delta: {} removed, {} item deltas, {ints} ints",
        delta.removed().len(),
        delta.updates().len()
    );
    if delta.zero() != 0 {
        let _ = writeln!(out, "zero field: {} (writers write 0)", delta.zero());
    }
    for (index, key) in delta.removed().iter().enumerate() {
        let label = snap_type_label(key.type_id(), protocol, None);
        let _ = writeln!(out, "removed #{index} type {label} id {}", key.id());
    }
    for (index, item) in delta.updates().enumerate() {
        let label = snap_type_label(item.type_id(), protocol, None);
        let size = match sizes.size_of(item.type_id().into()) {
            Some(_) => "",
            None => " (size on the wire)",
        };
        let _ = write!(out, "delta #{index} type {label} id {}{size}: ", item.id());
        out += &ints_line(item.data);
        out.push('\n');
    }
    out
}

/// Hex of bytes.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Ticks per second of the game (DDNet `SERVER_TICK_SPEED`).
const TICKS_PER_SECOND: i32 = 50;

/// A demo's header, map and chunk stream in a few lines: what `twcodec demo info` prints.
/// Reads every chunk header (not the payloads); an error in the chunk stream is shown, not
/// returned. The embedded map is read under the default [`Limits`](crate::Limits).
pub fn demo_info(demo: &Demo) -> String {
    demo_info_with(demo, crate::Limits::DEFAULT)
}

/// [`demo_info`], reading the embedded map under `limits`.
pub fn demo_info_with(demo: &Demo, limits: crate::Limits) -> String {
    let mut out = String::new();
    let header = demo.header();
    let _ = writeln!(
        out,
        "demo version {}, net version {} ({}), type {}",
        header.version,
        header.net_version.to_string_lossy(),
        match demo.protocol() {
            Protocol::Ddnet06 => "0.6/DDNet protocol",
            Protocol::Teeworlds07 => "Teeworlds 0.7 protocol",
        },
        header.kind.to_string_lossy()
    );
    let _ = writeln!(
        out,
        "recorded {}, length {} s (header)",
        header.timestamp.to_string_lossy(),
        header.length
    );
    let markers = demo.timeline_markers();
    let _ = writeln!(out, "timeline markers: {}", ticks_list(markers));
    let matches = |ok: bool| if ok { "matches" } else { "DOES NOT MATCH" };
    let _ = writeln!(
        out,
        "map: {}, {} bytes at byte {:#x}, crc {:08x} ({})",
        demo.map_name(),
        header.map_size,
        demo.map_offset(),
        header.map_crc,
        matches(demo.map_crc_matches())
    );
    match (demo.header_sha256(), demo.map_sha256_matches()) {
        (Some(sha256), Some(ok)) => {
            let _ = writeln!(out, "map sha256 {} ({})", hex(&sha256), matches(ok));
        }
        _ => {
            let _ = writeln!(
                out,
                "map sha256 {} (not in the header)",
                hex(&demo.map_sha256())
            );
        }
    }
    if header.map_size > 0 {
        match demo.map_with(limits) {
            Ok(map) => {
                let _ = write!(
                    out,
                    "map content: {} images, {} envelopes, {} groups, {} layers, {} sounds",
                    map.images().len(),
                    map.envelopes().len(),
                    map.groups().len(),
                    map.layers().len(),
                    map.sounds().len()
                );
                if let Some((_, tiles)) = map.game_layer() {
                    if let Some(grid) = tiles.grid() {
                        let _ = write!(out, ", game layer {}x{}", grid.width(), grid.height());
                    }
                }
                let _ = writeln!(out, ", {} problems", map.problems().len());
            }
            Err(error) => {
                let _ = writeln!(out, "map content: unreadable: {error}");
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
    let _ = writeln!(
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
    );
    if let (Some(first), Some(last)) = (first, last) {
        let ticks = last - first;
        let _ = writeln!(
            out,
            "ticks: {first} to {last}, {markers} with a tick marker, duration {}.{:02} s",
            ticks / TICKS_PER_SECOND,
            ticks % TICKS_PER_SECOND * 100 / TICKS_PER_SECOND
        );
    }
    if let Some(error) = failure {
        let _ = writeln!(out, "error: {error}");
    }
    out
}

/// `1 tick marker`, `2 tick markers`.
fn count(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        _ => format!("{n} {what}s"),
    }
}

/// `none`, or the ticks separated by spaces.
fn ticks_list(ticks: &[i32]) -> String {
    if ticks.is_empty() {
        "none".into()
    } else {
        ints_line(ticks)
    }
}

/// One line per tick of a replay: tick, how the snapshot came about, its items and checksum,
/// and the messages of the tick; what `twcodec demo ticks` prints. A replay error ends the
/// list with an `error:` line.
pub fn demo_ticks(demo: &Demo) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "tick     update     items  checksum     messages");
    for frame in demo.replay() {
        let frame = match frame {
            Ok(frame) => frame,
            Err(error) => {
                let _ = writeln!(out, "error: {error}");
                break;
            }
        };
        let update = match (frame.update, frame.keyframe) {
            (Update::Full, true) => "full key",
            (Update::Full, false) => "full",
            (Update::Delta, _) => "delta",
            (Update::Unchanged, _) => "same",
        };
        let _ = write!(out, "{:<8} {update:<10}", frame.tick);
        match &frame.snapshot {
            Some(snapshot) => {
                let _ = write!(out, " {:>5}  {:>11}", snapshot.len(), snapshot.checksum());
            }
            None => {
                let _ = write!(out, " {:>5}  {:>11}", "-", "-");
            }
        }
        let _ = writeln!(out, "  {}", frame.messages.len());
    }
    out
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

/// What [`map_dump`] includes besides the items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DumpOptions {
    /// An ASCII preview of the game layer.
    pub preview: bool,
}

/// The whole map as a serializable tree: what `twcodec dump` prints as text or JSON.
pub fn map_dump(map: &crate::Map, options: DumpOptions) -> serde_json::Value {
    map_view::dump(map, options)
}

/// `twcodec dump --format text`: the map, one field per line, groups holding their layers.
pub fn map_text(map: &crate::Map, options: DumpOptions) -> String {
    let mut value = map_dump(map, options);
    let preview = value
        .as_object_mut()
        .and_then(|fields| fields.shift_remove("game_layer_preview"));
    let mut out = String::new();
    render_value(&value, 0, &mut out);
    if let Some(serde_json::Value::Array(lines)) = preview {
        let _ = writeln!(out, "game layer preview:");
        for line in lines {
            let _ = writeln!(out, "  |{}|", line.as_str().unwrap_or_default());
        }
        let _ = writeln!(out, "  {}", map_view::PREVIEW_LEGEND);
    }
    out
}

/// `twcodec dump --format json`: the map as pretty JSON.
pub fn map_json(map: &crate::Map, options: DumpOptions) -> String {
    serde_json::to_string_pretty(&map_dump(map, options)).unwrap_or_default()
}

mod map_view {
    //! The serializable view of a map behind [`super::map_dump`].

    use serde::Serialize;
    use serde_json::{json, Value};
    use twcodec_schema::map::envelope::EnvPoint;
    use twcodec_schema::map::tile::{tiles_as_bytes, TileKind};

    use std::collections::HashMap;

    use super::DumpOptions;
    use crate::map::{DataItem, Grid, Layer, LayerContent, Map, Ref, TilesLayer};

    pub(super) const PREVIEW_LEGEND: &str = "legend: # solid, % unhookable, x death, ~ freeze, \
        + unfreeze, [ start, ] finish, S spawn, F flag, o pickup, ? other";

    fn to_value(value: impl Serialize) -> Value {
        serde_json::to_value(value).unwrap_or(Value::Null)
    }

    /// Longest name the dump shows whole, in characters.
    const MAX_NAME: usize = 256;

    /// The data items the dump shows, each inflated once however many images or sounds share
    /// it: a hostile map's thousands of images naming one big data item cost one inflate.
    struct DataCache<'m> {
        map: &'m Map,
        /// Length and CRC-32 of each data item looked at, or why it does not load.
        summaries: HashMap<usize, Result<(usize, u32), String>>,
        /// Each name looked at, cut to [`MAX_NAME`] characters.
        names: HashMap<usize, Option<String>>,
    }

    impl<'m> DataCache<'m> {
        fn new(map: &'m Map) -> Self {
            DataCache {
                map,
                summaries: HashMap::new(),
                names: HashMap::new(),
            }
        }

        fn summary(&mut self, data: Ref<DataItem>) -> Option<Result<(usize, u32), String>> {
            let data = data.get()?;
            let map = self.map;
            let summary = self.summaries.entry(data.index()).or_insert_with(|| {
                map.data(data)
                    .map(|bytes| (bytes.len(), crc32fast::hash(&bytes)))
                    .map_err(|error| error.to_string())
            });
            Some(summary.clone())
        }

        fn name(&mut self, data: Ref<DataItem>) -> Option<String> {
            let index = data.get()?.index();
            let map = self.map;
            let name = self.names.entry(index).or_insert_with(|| {
                let text = map.text(data)?;
                Some(match text.char_indices().nth(MAX_NAME) {
                    Some((cut, _)) => format!("{}... ({} bytes)", &text[..cut], text.len()),
                    None => text,
                })
            });
            name.clone()
        }
    }

    /// An object's own fields followed by its schema item's fields.
    fn with_item(mut head: Value, item: impl Serialize) -> Value {
        if let (Some(head), Value::Object(fields)) = (head.as_object_mut(), to_value(item)) {
            for (key, value) in fields {
                head.insert(key, value);
            }
        }
        head
    }

    pub(super) fn dump(map: &Map, options: DumpOptions) -> Value {
        let mut root = json!({
            "form": to_value(map.form()),
            "version": map.version(),
        });
        let fields = root.as_object_mut().expect("a json! object");
        if let Some(info) = map.info() {
            fields.insert(
                "info".into(),
                with_item(
                    json!({
                        "author_text": info.author(map),
                        "map_version_text": info.map_version(map),
                        "credits_text": info.credits(map),
                        "license_text": info.license(map),
                        "settings_text": info.settings(map),
                    }),
                    info.item(),
                ),
            );
        }
        let mut cache = DataCache::new(map);
        fields.insert("images".into(), images(map, &mut cache));
        fields.insert("sounds".into(), sounds(map, &mut cache));
        fields.insert("envelopes".into(), envelopes(map));
        fields.insert("groups".into(), groups(map));
        let orphans: Vec<Value> = map
            .layer_refs()
            .filter(|&r| map.group_of(r).is_none())
            .map(|r| layer(map, r.index(), &map[r]))
            .collect();
        if !orphans.is_empty() {
            fields.insert("layers_in_no_group".into(), Value::Array(orphans));
        }
        if !map.other_items().is_empty() {
            fields.insert(
                "other_items".into(),
                Value::Array(
                    map.other_items()
                        .iter()
                        .map(|o| {
                            json!({"type": o.type_id, "id": o.id, "uuid": o.uuid.map(|u| u.to_string()), "ints": o.ints})
                        })
                        .collect(),
                ),
            );
        }
        let problems: Vec<String> = map
            .problems()
            .iter()
            .map(|p| format!("{:?}: {p}", p.severity).to_lowercase_first())
            .collect();
        fields.insert("problems".into(), to_value(problems));
        if options.preview {
            if let Some((_, game)) = map.game_layer() {
                fields.insert("game_layer_preview".into(), to_value(preview(game)));
            }
        }
        root
    }

    trait LowercaseFirst {
        fn to_lowercase_first(self) -> String;
    }

    impl LowercaseFirst for String {
        fn to_lowercase_first(self) -> String {
            let mut chars = self.chars();
            match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => self,
            }
        }
    }

    fn images(map: &Map, cache: &mut DataCache) -> Value {
        Value::Array(
            map.images()
                .iter()
                .enumerate()
                .map(|(index, image)| {
                    let pixels = if image.is_external() {
                        "external".to_string()
                    } else {
                        match cache.summary(image.data(map)) {
                            Some(Ok((len, crc))) => match image.bytes_per_pixel(len) {
                                Some(bpp) => format!(
                                    "embedded {}, {len} bytes, crc32 {crc:08x}",
                                    if bpp == 3 { "RGB" } else { "RGBA" },
                                ),
                                None => format!("embedded, {len} bytes, unknown format"),
                            },
                            Some(Err(error)) => format!("embedded, data does not load: {error}"),
                            None => "embedded, no data".to_string(),
                        }
                    };
                    let name = cache.name(map.data_ref(image.item().name));
                    with_item(
                        json!({"index": index, "id": image.id(), "name_text": name, "pixels": pixels}),
                        image.item(),
                    )
                })
                .collect(),
        )
    }

    fn sounds(map: &Map, cache: &mut DataCache) -> Value {
        Value::Array(
            map.sounds()
                .iter()
                .enumerate()
                .map(|(index, sound)| {
                    let data = match cache.summary(map.data_ref(sound.item().data)) {
                        Some(Ok((len, crc))) => format!("{len} bytes, crc32 {crc:08x}"),
                        Some(Err(error)) => format!("none: {error}"),
                        None => "none: the sound has no data".to_string(),
                    };
                    let name = cache.name(map.data_ref(sound.item().name));
                    with_item(
                        json!({"index": index, "id": sound.id(), "name_text": name, "opus": data}),
                        sound.item(),
                    )
                })
                .collect(),
        )
    }

    fn point(
        point: &EnvPoint,
        bezier: Option<&twcodec_schema::map::envelope::EnvPointBezier>,
    ) -> Value {
        let mut value = json!({
            "time": point.time,
            "curve": format!("{:?}", point.curve()),
            "values": point.values,
        });
        if let (Some(bezier), Some(fields)) = (bezier, value.as_object_mut()) {
            if *bezier != Default::default() {
                fields.insert("bezier".into(), to_value(bezier));
            }
        }
        value
    }

    /// Each envelope with its points; an envelope whose points overlap an earlier one's (an
    /// error the problems name) shows whose instead, so that the dump of envelopes sharing
    /// their points stays as long as the points.
    fn envelopes(map: &Map) -> Value {
        let count = map.envelope_points().map_or(0, |p| p.points().len());
        let mut claims = crate::map::Claims::default();
        Value::Array(
            map.envelopes()
                .iter()
                .enumerate()
                .map(|(index, envelope)| {
                    let taken = envelope
                        .range(count)
                        .and_then(|range| claims.claim(range, index).taken);
                    let mut value = with_item(
                        json!({"index": index, "id": envelope.id(), "kind": format!("{:?}", envelope.item().kind())}),
                        envelope.item(),
                    );
                    let Some(fields) = value.as_object_mut() else {
                        return value;
                    };
                    if let Some((_, other)) = taken {
                        fields.insert("points_overlap_envelope".into(), Value::from(other));
                    } else {
                        let bezier = envelope.bezier(map);
                        let points: Vec<Value> = envelope
                            .points(map)
                            .iter()
                            .enumerate()
                            .map(|(i, p)| point(p, bezier.and_then(|b| b.get(i))))
                            .collect();
                        fields.insert("points".into(), Value::Array(points));
                    }
                    value
                })
                .collect(),
        )
    }

    fn groups(map: &Map) -> Value {
        // Each layer under the group it belongs to, in one pass over the layers.
        let mut members: Vec<Vec<Value>> = vec![Vec::new(); map.groups().len()];
        for l in map.layer_refs() {
            if let Some(list) = map.group_of(l).and_then(|g| members.get_mut(g.index())) {
                list.push(layer(map, l.index(), &map[l]));
            }
        }
        Value::Array(
            map.group_refs()
                .zip(members)
                .map(|(r, layers)| {
                    let group = &map[r];
                    let mut value =
                        with_item(json!({"index": r.index(), "id": group.id()}), group.item());
                    if let Some(fields) = value.as_object_mut() {
                        fields.insert("layers".into(), Value::Array(layers));
                    }
                    value
                })
                .collect(),
        )
    }

    fn layer(map: &Map, index: usize, layer: &Layer) -> Value {
        let mut value = json!({
            "index": index,
            "id": layer.id(),
            "kind": layer.kind_name(),
            "name": layer.name(),
            "header": to_value(layer.header()),
        });
        let Some(fields) = value.as_object_mut() else {
            return value;
        };
        let r = crate::map::ItemRef::new(index);
        if let Some(automapper) = map.automapper_of(r) {
            fields.insert("automapper".into(), to_value(automapper.item()));
        }
        let (item, content) = match layer.content() {
            LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => tiles(t),
            LayerContent::Tele(t) => tiles(t),
            LayerContent::Speedup(t) => tiles(t),
            LayerContent::Switch(t) => tiles(t),
            LayerContent::Tune(t) => tiles(t),
            LayerContent::Quads(q) => (
                to_value(q.item()),
                ("quads", q.quads().map_or(Value::Null, to_value)),
            ),
            LayerContent::Sounds(s) => (
                to_value(s.item()),
                ("sources", s.sources().map_or(Value::Null, to_value)),
            ),
            LayerContent::Unknown(ints) => (json!({}), ("ints", to_value(ints))),
        };
        if let Value::Object(item) = item {
            for (key, field) in item {
                fields.insert(key, field);
            }
        }
        fields.insert(content.0.into(), content.1);
        value
    }

    /// A tile layer's item and the summary of its tiles: counts per tile id, a hash.
    fn tiles<T: TileKind + TileId>(layer: &TilesLayer<T>) -> (Value, (&'static str, Value)) {
        let summary = match layer.grid() {
            Some(grid) => summary(grid, layer),
            None => Value::Null,
        };
        (to_value(layer.item()), ("tiles", summary))
    }

    fn summary<T: TileKind + TileId>(grid: &Grid<T>, layer: &TilesLayer<T>) -> Value {
        let mut counts = [0usize; 256];
        for tile in grid.tiles() {
            counts[usize::from(tile.tile_id())] += 1;
        }
        let counts: serde_json::Map<String, Value> = counts
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(id, &n)| (id.to_string(), Value::from(n)))
            .collect();
        json!({
            "size": format!("{}x{}", grid.width(), grid.height()),
            "layout": to_value(layer.layout()),
            "counts_by_id": Value::Object(counts),
            "crc32": format!("{:08x}", crc32fast::hash(tiles_as_bytes(grid.tiles()))),
        })
    }

    /// The byte of a tile that says what it is.
    pub(super) trait TileId {
        fn tile_id(&self) -> u8;
    }

    macro_rules! tile_id {
        ($($ty:ty),*) => {$(
            impl TileId for $ty {
                fn tile_id(&self) -> u8 {
                    self.id
                }
            }
        )*};
    }

    use twcodec_schema::map::tile::{Speedup, Switch, Tele, Tile, Tune};
    tile_id!(Tile, Tele, Speedup, Switch, Tune);

    /// What a game tile id looks like in the preview, and how much it matters when a block of
    /// tiles shares one character (DDNet game tile ids; entities from 192).
    fn glyph(id: u8) -> (char, u8) {
        match id {
            0 => (' ', 0),
            1 => ('#', 5),
            2 => ('x', 6),
            3 => ('%', 4),
            9 | 12 => ('~', 3),
            11 | 13 => ('+', 2),
            33 => ('[', 7),
            34 => (']', 7),
            192..=194 => ('S', 9),
            195 | 196 => ('F', 9),
            197..=255 => ('o', 8),
            _ => ('?', 1),
        }
    }

    /// The game layer as text, at most 120 columns and 480 rows: each character stands for a
    /// square block of tiles and shows its most important tile.
    fn preview(game: &TilesLayer<Tile>) -> Vec<String> {
        let Some(grid) = game.grid() else {
            return Vec::new();
        };
        let scale = grid
            .width()
            .div_ceil(120)
            .max(grid.height().div_ceil(480))
            .max(1);
        (0..grid.height().div_ceil(scale))
            .map(|by| {
                (0..grid.width().div_ceil(scale))
                    .map(|bx| {
                        let mut best = (' ', 0);
                        for y in by * scale..((by + 1) * scale).min(grid.height()) {
                            for x in bx * scale..((bx + 1) * scale).min(grid.width()) {
                                let g = glyph(grid.get(x, y).map_or(0, |t| t.id));
                                if g.1 > best.1 {
                                    best = g;
                                }
                            }
                        }
                        best.0
                    })
                    .collect()
            })
            .collect()
    }
}
