//! Renderings of snapshots and snapshot deltas: [`snapshot_text`], [`snapshot_json`],
//! [`delta_text`] and [`delta_json`].

use std::io::{self, Write};

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::{text, write_ints_line, Lazy};
use twcodec::snap::{self, ObjectItem, Protocol, SizeTable, SnapObject, Snapshot, SnapshotDelta};

/// Longest line the fields of an object are laid out on (a longer field gets a line alone).
const WIDTH: usize = 100;

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

/// A snapshot: a summary line with the checksum, then its items in stored order, named after
/// `protocol` and the extended types the snapshot announces. With a protocol, each item is
/// shown as its object ([`Snapshot::objects`]): `name: value` fields, positions also in
/// tiles, velocities in world units (px) per tick and angles in degrees, laid out on lines of
/// at most 100 characters; an item that stays ints says why. Without one, each item is a
/// line of ints.
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
    let Some(protocol) = protocol else {
        for (index, item) in snapshot.items().enumerate() {
            let label = snap_type_label(item.type_id(), None, Some(snapshot));
            write!(out, "#{index} type {label} id {}: ", item.id())?;
            write_ints_line(out, item.data)?;
            writeln!(out)?;
        }
        return Ok(());
    };
    for object in snapshot.objects(protocol) {
        object_text(snapshot, protocol, &object, out)?;
    }
    Ok(())
}

/// One object of [`snapshot_text`].
fn object_text(
    snapshot: &Snapshot,
    protocol: Protocol,
    object: &ObjectItem,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (type_id, id) = (object.key.type_id(), object.key.id());
    let label = snap_type_label(type_id, Some(protocol), Some(snapshot));
    let head = format!("#{} type {label} id {id}:", object.index);
    if let (SnapObject::Unknown { ints }, Some(note)) = (&object.object, &object.note) {
        write!(out, "{head} ")?;
        write_ints_line(out, ints)?;
        return writeln!(out, " (kept as ints: {note})");
    }
    let Some(mut fields) = text::field_texts(&object.object, &["kind"]) else {
        // Every object renders as fields; the ints, should one not.
        write!(out, "{head} ")?;
        write_ints_line(out, &object.object.encode().unwrap_or_default())?;
        return writeln!(out);
    };
    if let SnapObject::ExtendedType(announced) | SnapObject::ExtendedType7(announced) =
        &object.object
    {
        let name = snap::known_extended_type_name(announced.uuid).unwrap_or("unknown name");
        fields.push(format!("announces type {id:#x}: {name}"));
    }
    if fields.is_empty() {
        return writeln!(out, "{head} (no fields)");
    }
    let one_line = head.len() + fields.iter().map(|field| field.len() + 2).sum::<usize>();
    if one_line <= WIDTH {
        return writeln!(out, "{head} {}", fields.join(", "));
    }
    writeln!(out, "{head}")?;
    let mut line = String::new();
    for field in fields {
        // A line that continues ends in a comma.
        if !line.is_empty() && line.len() + 2 + field.len() + 1 > WIDTH {
            writeln!(out, "{line},")?;
            line.clear();
        }
        match line.is_empty() {
            true => line.push_str("  "),
            false => line.push_str(", "),
        }
        line.push_str(&field);
    }
    writeln!(out, "{line}")
}

/// A snapshot as JSON: `items`, `bytes`, `checksum`, and `objects`, each an [`ObjectItem`]
/// (index, type id, id, name, the object's kind and fields, and why it stayed ints if it
/// did). Without a protocol, `items_ints` lists each item's type id, id and ints instead of
/// `objects`. Objects are written one by one as they are decoded.
pub fn snapshot_json(
    snapshot: &Snapshot,
    protocol: Option<Protocol>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let json = SnapshotJson { snapshot, protocol };
    serde_json::to_writer_pretty(&mut *out, &json).map_err(super::map::io_error)?;
    writeln!(out)
}

/// See [`snapshot_json`].
struct SnapshotJson<'s> {
    snapshot: &'s Snapshot,
    protocol: Option<Protocol>,
}

impl Serialize for SnapshotJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let snapshot = self.snapshot;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("items", &snapshot.len())?;
        map.serialize_entry("bytes", &snapshot.size())?;
        map.serialize_entry("checksum", &snapshot.checksum())?;
        match self.protocol {
            Some(protocol) => {
                map.serialize_entry("protocol", &protocol.to_string())?;
                map.serialize_entry("objects", &Objects(snapshot, protocol))?;
            }
            None => map.serialize_entry("items_ints", &ItemsInts(snapshot))?,
        }
        map.end()
    }
}

/// The objects of a snapshot, decoded as they are written.
struct Objects<'s>(&'s Snapshot, Protocol);

impl Serialize for Objects<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.objects(self.1))
    }
}

/// The items of a snapshot as ints.
struct ItemsInts<'s>(&'s Snapshot);

impl Serialize for ItemsInts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.items().map(|item| KeyedInts {
            type_id: item.type_id(),
            id: item.id(),
            size_on_wire: None,
            ints: item.data,
        }))
    }
}

/// An item, or an item delta, as ints.
#[derive(serde::Serialize)]
struct KeyedInts<'d> {
    type_id: u16,
    id: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    size_on_wire: Option<bool>,
    ints: &'d [i32],
}

/// A snapshot delta: a summary line, the removed keys, then the item deltas in stored order,
/// marking those that carry their size on the wire under `sizes`. Item deltas stay ints: they
/// are new data or differences, which only the snapshot they apply to tells apart.
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

/// A snapshot delta as JSON: `removed` (type id and id of each removed key) and
/// `item_deltas` (type id, id, whether the size is on the wire under `sizes`, and the ints).
pub fn delta_json(delta: &SnapshotDelta, sizes: &SizeTable, out: &mut dyn Write) -> io::Result<()> {
    let json = DeltaJson { delta, sizes };
    serde_json::to_writer_pretty(&mut *out, &json).map_err(super::map::io_error)?;
    writeln!(out)
}

/// See [`delta_json`].
struct DeltaJson<'d> {
    delta: &'d SnapshotDelta,
    sizes: &'d SizeTable,
}

impl Serialize for DeltaJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (delta, sizes) = (self.delta, self.sizes);
        let mut map = serializer.serialize_map(None)?;
        let removed = || (delta.removed().iter()).map(|key| [key.type_id(), key.id()]);
        map.serialize_entry("removed", &Lazy(removed))?;
        let updates = || {
            delta.updates().map(|item| KeyedInts {
                type_id: item.type_id(),
                id: item.id(),
                size_on_wire: Some(sizes.size_of(item.type_id().into()).is_none()),
                ints: item.data,
            })
        };
        map.serialize_entry("item_deltas", &Lazy(updates))?;
        map.end()
    }
}
