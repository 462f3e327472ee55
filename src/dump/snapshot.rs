//! Renderings of snapshots and snapshot deltas: [`snapshot_text`] and [`delta_text`].

use std::io::{self, Write};

use super::write_ints_line;
use crate::snap::{self, Protocol, SizeTable, Snapshot, SnapshotDelta};

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
