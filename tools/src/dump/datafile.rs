//! Renderings of a datafile's structure: `twcodec info` ([`info`]) and `twcodec items`
//! ([`items`], [`decoded_items`]).

use std::io::{self, Write};

use twcodec_schema::map::MapItemKind;
use twcodec_schema::uuid::{known_item_type_name, Uuid, OFFSET_UUID_TYPE};

use super::{text, write_ints};
use twcodec::datafile::Datafile;
use twcodec::items::{decode_context, decode_item};

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
