//! Stable, readable text renderings: what the CLI prints and what snapshot tests review.

use std::fmt::Write;

use twcodec_schema::map::MapItemKind;
use twcodec_schema::uuid::{known_item_type_name, Uuid, OFFSET_UUID_TYPE};

use crate::datafile::Datafile;
use crate::items::decode_items;

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
