//! `twcodec schema`: the format reference ([`twcodec_schema::reference`]) as Markdown or JSON.
//!
//! Everything here renders what `#[describe]` read from the schema's binrw attributes; nothing
//! about the formats is written down in this file. The Markdown of every document is committed
//! under `docs/format/` ([`schema_files`]), and a test fails when it differs from the code.

use std::collections::HashMap;
use std::io::{self, Write};

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;
use twcodec_schema::map::MapItemKind;
use twcodec_schema::reference::{
    documents, Body, Document, Entry, Field, Size, Structure, Unit, Variant,
};

/// The command that writes `docs/format/`.
pub const SCHEMA_COMMAND: &str = "twcodec schema --out-dir docs/format";

/// Output formats of [`schema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaFormat {
    /// Markdown, as committed under `docs/format/`.
    Markdown,
    /// JSON: the description itself (serde).
    Json,
}

/// What [`schema`] renders.
#[derive(Debug, Clone)]
pub enum SchemaSelection {
    /// Every document.
    All,
    /// One document (`map-items`).
    Document(Document),
    /// One structure, with the document it belongs to.
    Structure(Document, Entry),
}

impl SchemaSelection {
    /// The document or structure named `name` (a document name, or a structure's Rust name in
    /// any case); the error names close matches.
    pub fn find(name: &str) -> Result<SchemaSelection, String> {
        let wanted = name.trim().to_ascii_lowercase();
        let documents = documents();
        let mut names = Vec::new();
        for document in &documents {
            if document.name == wanted {
                return Ok(SchemaSelection::Document(document.clone()));
            }
            names.push(document.name.to_string());
        }
        for document in &documents {
            for entry in document.entries() {
                let structure = (entry.describe)();
                if structure.ident.to_ascii_lowercase() == wanted
                    || structure.name.to_ascii_lowercase() == wanted
                {
                    return Ok(SchemaSelection::Structure(document.clone(), *entry));
                }
                names.push(structure.ident);
            }
        }
        let mut close: Vec<(usize, &String)> = names
            .iter()
            .map(|candidate| {
                (
                    closeness(&wanted, &candidate.to_ascii_lowercase()),
                    candidate,
                )
            })
            .filter(|(distance, _)| *distance <= (wanted.len() / 3).max(1))
            .collect();
        close.sort();
        let close: Vec<&str> = close.iter().take(5).map(|(_, n)| n.as_str()).collect();
        let documents: Vec<&str> = documents.iter().map(|d| d.name).collect();
        let hint = if close.is_empty() {
            String::new()
        } else {
            format!(" (close: {})", close.join(", "))
        };
        Err(format!(
            "no structure or document `{name}` in the format reference{hint}; documents: {}, \
             and `twcodec schema` lists every structure",
            documents.join(", ")
        ))
    }
}

/// How far the name `b` is from what was asked, `a`: 0 when it contains it, else the edit
/// distance.
fn closeness(a: &str, b: &str) -> usize {
    if a.is_empty() {
        return usize::MAX;
    }
    if b.contains(a) {
        return 0;
    }
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

/// Renders `selection` in `format` to `out`, structure by structure.
pub fn schema(
    selection: &SchemaSelection,
    format: SchemaFormat,
    out: &mut dyn Write,
) -> io::Result<()> {
    let links = Links::new();
    match (selection, format) {
        (SchemaSelection::All, SchemaFormat::Markdown) => {
            for (index, document) in documents().iter().enumerate() {
                if index > 0 {
                    writeln!(out)?;
                }
                markdown_document(document, &links, out)?;
            }
            Ok(())
        }
        (SchemaSelection::Document(document), SchemaFormat::Markdown) => {
            markdown_document(document, &links, out)
        }
        (SchemaSelection::Structure(document, entry), SchemaFormat::Markdown) => {
            markdown_structure(document, entry, "#", &links, out)
        }
        (SchemaSelection::All, SchemaFormat::Json) => json(&JsonDocuments(documents()), out),
        (SchemaSelection::Document(document), SchemaFormat::Json) => {
            json(&JsonDocument(document), out)
        }
        (SchemaSelection::Structure(document, entry), SchemaFormat::Json) => {
            json(&JsonEntry { document, entry }, out)
        }
    }
}

fn json(value: &impl Serialize, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::from)?;
    writeln!(out)
}

/// The files of `docs/format/`: `README.md`, then one Markdown file per document.
pub fn schema_files() -> Vec<(String, String)> {
    let links = Links::new();
    let documents = documents();
    let mut files = vec![(
        "README.md".to_string(),
        super::to_string(|out| index(&documents, out)),
    )];
    for document in &documents {
        let text = super::to_string(|out| markdown_document(document, &links, out));
        files.push((format!("{}.md", document.name), text));
    }
    files
}

/// The banner of every generated file.
fn banner(out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "<!-- Generated by `{SCHEMA_COMMAND}` from the binrw attributes of schema/src \
         (#[describe]); do not edit by hand. -->"
    )
}

/// `docs/format/README.md`: what the files are and what each holds.
fn index(documents: &[Document], out: &mut dyn Write) -> io::Result<()> {
    banner(out)?;
    writeln!(out)?;
    writeln!(out, "# Format reference")?;
    writeln!(out)?;
    writeln!(
        out,
        "Every on-disk structure twcodec reads and writes, as its schema defines it: each \
         field's position, size, type and the condition (version, kind, flag) under which it \
         is present, and each structure's documentation. These files are generated from the \
         schema code itself: the `#[describe]` attribute (crate `twcodec-schema-derive`) reads \
         the same `#[br]`/`#[bw]`/`#[brw]` attributes that binrw compiles. Do not edit them by \
         hand: run `{SCHEMA_COMMAND}` (from a checkout: `cargo run -- schema --out-dir \
         docs/format`); `cargo test` fails when they differ from the code."
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "`twcodec schema NAME` prints one document or structure (`twcodec schema GroupItem`), \
         `--format json` the description as JSON."
    )?;
    writeln!(out)?;
    writeln!(out, "| document | structures |")?;
    writeln!(out, "|---|---|")?;
    for document in documents {
        let names: Vec<String> = document
            .entries()
            .map(|entry| {
                let structure = (entry.describe)();
                format!(
                    "[`{}`]({}.md#{})",
                    structure.name,
                    document.name,
                    anchor(&structure.name)
                )
            })
            .collect();
        writeln!(
            out,
            "| [{}]({}.md) | {} |",
            document.title,
            document.name,
            cell(&names.join(", "))
        )?;
    }
    Ok(())
}

/// Where each structure is documented, for links: Rust name to (document, anchor).
struct Links(HashMap<String, (&'static str, String)>);

impl Links {
    fn new() -> Links {
        let mut links = HashMap::new();
        for document in documents() {
            for entry in document.entries() {
                let structure = (entry.describe)();
                links.insert(structure.ident, (document.name, anchor(&structure.name)));
            }
        }
        Links(links)
    }

    /// `text` linked to the section of structure `ident`, from a file of document `from`.
    fn link(&self, text: &str, ident: Option<&str>, from: &str) -> String {
        match ident.and_then(|ident| self.0.get(ident)) {
            Some((document, anchor)) if *document == from => format!("[{text}](#{anchor})"),
            Some((document, anchor)) => format!("[{text}]({document}.md#{anchor})"),
            None => text.to_string(),
        }
    }
}

/// GitHub's anchor of a heading.
fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// Text for a table cell: one line, pipes escaped.
fn cell(text: &str) -> String {
    text.replace("\n\n", "<br><br>")
        .replace('\n', " ")
        .replace('|', "\\|")
}

/// A doc comment as plain Markdown: rustdoc's intra-doc links (`` [`Tile`] ``,
/// `` [`x`](Self::x) ``) become their text.
fn prose(doc: &str) -> String {
    let mut out = String::new();
    let mut rest = doc;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let text = &after[..close];
        let tail = &after[close + 1..];
        if let Some(target) = tail.strip_prefix('(') {
            if let Some(end) = target.find(')') {
                if !target[..end].contains("://") && !target[..end].contains(".md") {
                    out.push_str(text);
                    rest = &target[end + 1..];
                    continue;
                }
            }
        } else if text.len() > 1 && text.starts_with('`') && text.ends_with('`') {
            out.push_str(text);
            rest = tail;
            continue;
        }
        out.push('[');
        rest = after;
    }
    out.push_str(rest);
    out
}

fn markdown_document(document: &Document, links: &Links, out: &mut dyn Write) -> io::Result<()> {
    banner(out)?;
    writeln!(out)?;
    writeln!(out, "# {}", document.title)?;
    writeln!(out)?;
    writeln!(out, "{}", document.intro)?;
    for section in &document.sections {
        writeln!(out)?;
        writeln!(out, "## {}", section.title)?;
        if !section.intro.is_empty() {
            writeln!(out)?;
            writeln!(out, "{}", section.intro)?;
        }
        for entry in &section.entries {
            writeln!(out)?;
            markdown_structure(document, entry, "###", links, out)?;
        }
    }
    Ok(())
}

/// What kind of map item a structure is the layout of: `Item type 4 (group).`
fn item_line(kind: MapItemKind) -> String {
    if let Some(type_id) = kind.type_id() {
        return format!("Map item type {type_id} (`{}`).", kind.name());
    }
    if let (Some(name), Some(uuid)) = (kind.uuid_name(), kind.uuid()) {
        return format!("Map item of the UUID type `{name}` ({uuid}).");
    }
    // Teeworlds 0.3 kinds: the type ids that map to this kind.
    let ids: Vec<u16> = (0..=u16::MAX)
        .filter(|&id| MapItemKind::of_legacy(id) == kind)
        .collect();
    let ids = match (ids.first(), ids.last()) {
        (Some(first), Some(last)) if first != last => format!("types {first} to {last}"),
        (Some(only), _) => format!("type {only:#x}"),
        _ => "no type".to_string(),
    };
    format!("Teeworlds 0.3 map item, {ids} (`{}`).", kind.name())
}

fn size_words(size: &Size) -> Option<String> {
    match size {
        Size::Fixed { bytes } => Some(format!("{bytes} bytes")),
        Size::Range { min, max } => Some(format!("{min} to {max} bytes")),
        _ => None,
    }
}

fn markdown_structure(
    document: &Document,
    entry: &Entry,
    heading: &str,
    links: &Links,
    out: &mut dyn Write,
) -> io::Result<()> {
    let structure = (entry.describe)();
    let unit = document.unit.for_structure(&structure);
    writeln!(out, "{heading} {}", structure.name)?;
    writeln!(out)?;
    if let Some(kind) = entry.item {
        writeln!(out, "{}", item_line(kind))?;
        writeln!(out)?;
    }
    if !structure.doc.is_empty() {
        writeln!(out, "{}", prose(&structure.doc))?;
        writeln!(out)?;
    }
    let mut facts = Vec::new();
    match structure.endian.as_deref() {
        Some("little") => facts.push("Little-endian.".to_string()),
        Some("big") => facts.push("Big-endian.".to_string()),
        _ => facts.push("Byte order of the enclosing structure.".to_string()),
    }
    if let Some(size) = size_words(&structure.size) {
        facts.push(format!("Size: {size}."));
    }
    if !structure.imports.is_empty() {
        let imports: Vec<String> = structure
            .imports
            .iter()
            .map(|i| format!("`{}: {}`", i.name, i.ty))
            .collect();
        facts.push(format!("Takes {} from outside.", imports.join(", ")));
    }
    for assert in &structure.asserts {
        facts.push(format!("Checked: `{assert}`."));
    }
    if let Some(magic) = &structure.magic {
        facts.push(format!(
            "Starts with the magic `{}`.",
            magic.magic.as_deref().unwrap_or_default()
        ));
    }
    writeln!(out, "{}", facts.join(" "))?;
    writeln!(out)?;
    match &structure.body {
        Body::Fields { fields } => field_table(fields, unit, document.name, links, out),
        Body::Variants { variants } => {
            variant_table(variants, unit, document.name, links, out)?;
            for variant in variants {
                if single_value(variant).is_none() && !variant.fields.is_empty() {
                    writeln!(out)?;
                    writeln!(out, "Variant `{}`:", variant.name)?;
                    writeln!(out)?;
                    field_table(&variant.fields, unit, document.name, links, out)?;
                }
            }
            Ok(())
        }
        Body::Mapped { read_as, variants } | Body::Repr { read_as, variants } => {
            let repr = matches!(structure.body, Body::Repr { .. });
            if repr {
                writeln!(
                    out,
                    "Stored as `{}`, whose values are the variants:",
                    read_as.disk.type_name
                )?;
            } else {
                writeln!(
                    out,
                    "Stored as `{}` and mapped by `{}` to one of:",
                    read_as.disk.type_name,
                    cell(&read_as.via)
                )?;
            }
            writeln!(out)?;
            if repr {
                writeln!(out, "| value | variant | description |")?;
                writeln!(out, "|---|---|---|")?;
            } else {
                writeln!(out, "| variant | description |")?;
                writeln!(out, "|---|---|")?;
            }
            for variant in variants {
                let description = cell(&prose(&variant.doc));
                match (&variant.discriminant, repr) {
                    (Some(value), true) => {
                        writeln!(out, "| {value} | `{}` | {description} |", variant.name)?
                    }
                    _ => writeln!(out, "| `{}` | {description} |", variant.name)?,
                }
            }
            Ok(())
        }
    }
}

/// The field of a variant that holds one value (`Tilemap(TilemapLayer)`).
fn single_value(variant: &Variant) -> Option<&Field> {
    match variant.fields.as_slice() {
        [field] if field.name == "0" => Some(field),
        _ => None,
    }
}

fn type_cell(field: &Field, document: &str, links: &Links) -> String {
    let rust = links.link(&format!("`{}`", field.rust_type), field.structure, document);
    if field.magic.is_some() {
        return "magic".to_string();
    }
    match &field.read_via {
        Some(_) => format!("{rust} from `{}`", field.disk_type),
        None => rust,
    }
}

/// What a field's description adds to its doc comment: how binrw reads and writes it.
fn notes(field: &Field) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(via) = &field.read_via {
        if !via.starts_with('|') {
            notes.push(format!("Mapped by `{via}`."));
        }
    }
    match (&field.written_as, field.temp) {
        (Some(written), true) => notes.push(format!("Read, not kept; written as `{written}`.")),
        (None, true) => notes.push("Read, not kept.".to_string()),
        (Some(written), false) => notes.push(format!("Written as `{written}`.")),
        (None, false) => {}
    }
    for assert in &field.asserts {
        notes.push(format!("Checked: `{assert}`."));
    }
    if !field.args.is_empty() {
        let args: Vec<String> = field
            .args
            .iter()
            .map(|arg| format!("`{}: {}`", arg.name, arg.text))
            .collect();
        notes.push(format!("Passes {}.", args.join(", ")));
    }
    match field.endian.as_deref() {
        Some("big") => notes.push("Big-endian.".to_string()),
        Some("little") => notes.push("Little-endian.".to_string()),
        _ => {}
    }
    if let Some(magic) = &field.magic {
        notes.push(format!("The magic `{magic}`."));
    }
    notes
}

fn description(doc: &str, notes: &[String]) -> String {
    let mut text = prose(doc);
    for note in notes {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(note);
    }
    cell(&text)
}

fn field_table(
    fields: &[Field],
    unit: Unit,
    document: &str,
    links: &Links,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(
        out,
        "| {} | field | type | {} | present when | description |",
        unit.position_heading(),
        unit.size_heading()
    )?;
    writeln!(out, "|---|---|---|---|---|---|")?;
    for field in fields {
        let present = field
            .condition
            .as_ref()
            .map_or(String::new(), |c| c.describe(field.try_read));
        writeln!(
            out,
            "| {} | `{}` | {} | {} | {} | {} |",
            cell(&unit.position(&field.offset, &field.size)),
            field.name,
            cell(&type_cell(field, document, links)),
            cell(&unit.size(&field.size)),
            cell(&present),
            description(&field.doc, &notes(field)),
        )?;
    }
    Ok(())
}

fn variant_table(
    variants: &[Variant],
    unit: Unit,
    document: &str,
    links: &Links,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(
        out,
        "One of these variants: binrw tries them in order and keeps the first whose condition \
         holds and which reads."
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "| variant | when | holds | {} | description |",
        unit.size_heading()
    )?;
    writeln!(out, "|---|---|---|---|---|")?;
    for variant in variants {
        let when = variant
            .condition
            .as_ref()
            .map_or("always".to_string(), |c| c.describe(false));
        let (holds, size, notes) = match single_value(variant) {
            Some(field) => (
                type_cell(field, document, links),
                unit.size(&field.size),
                notes(field),
            ),
            None if variant.fields.is_empty() => ("nothing".to_string(), "0".to_string(), vec![]),
            None => (
                "the fields below".to_string(),
                unit.size(&variant.size),
                vec![],
            ),
        };
        writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            variant.name,
            cell(&when),
            cell(&holds),
            cell(&size),
            description(&variant.doc, &notes),
        )?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// JSON: the documents, their sections and structures, each structure described only when it
// is serialized.

struct JsonDocuments(Vec<Document>);

impl Serialize for JsonDocuments {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("Reference", 2)?;
        map.serialize_field("generated_by", SCHEMA_COMMAND)?;
        map.serialize_field(
            "documents",
            &self.0.iter().map(JsonDocument).collect::<Vec<_>>(),
        )?;
        map.end()
    }
}

struct JsonDocument<'a>(&'a Document);

impl Serialize for JsonDocument<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let document = self.0;
        let mut map = serializer.serialize_struct("Document", 5)?;
        map.serialize_field("name", document.name)?;
        map.serialize_field("title", document.title)?;
        map.serialize_field("intro", document.intro)?;
        map.serialize_field("unit", &document.unit)?;
        let sections: Vec<JsonSection<'_>> = document
            .sections
            .iter()
            .map(|section| JsonSection { document, section })
            .collect();
        map.serialize_field("sections", &sections)?;
        map.end()
    }
}

struct JsonSection<'a> {
    document: &'a Document,
    section: &'a twcodec_schema::reference::Section,
}

impl Serialize for JsonSection<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("Section", 3)?;
        map.serialize_field("title", self.section.title)?;
        map.serialize_field("intro", self.section.intro)?;
        let entries: Vec<JsonEntry<'_>> = self
            .section
            .entries
            .iter()
            .map(|entry| JsonEntry {
                document: self.document,
                entry,
            })
            .collect();
        map.serialize_field("structures", &entries)?;
        map.end()
    }
}

struct JsonEntry<'a> {
    document: &'a Document,
    entry: &'a Entry,
}

/// The map item kind a structure is the layout of.
#[derive(Serialize)]
struct JsonItem {
    kind: &'static str,
    type_id: Option<u16>,
    uuid_name: Option<&'static str>,
}

impl Serialize for JsonEntry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let structure: Structure = (self.entry.describe)();
        let unit = self.document.unit.for_structure(&structure);
        let mut map = serializer.serialize_struct("Entry", 4)?;
        map.serialize_field("document", self.document.name)?;
        map.serialize_field("unit", &unit)?;
        map.serialize_field(
            "map_item",
            &self.entry.item.map(|kind| JsonItem {
                kind: kind.name(),
                type_id: kind.type_id(),
                uuid_name: kind.uuid_name(),
            }),
        )?;
        map.serialize_field("structure", &structure)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intra_doc_links_become_text() {
        assert_eq!(
            prose("see [`Tile`] and [`x`](Self::x)."),
            "see `Tile` and `x`."
        );
        assert_eq!(
            prose("the form `[1, channels, start, num, -1]` stays"),
            "the form `[1, channels, start, num, -1]` stays"
        );
        assert_eq!(
            prose("[docs](https://ddnet.org) and [a] b"),
            "[docs](https://ddnet.org) and [a] b"
        );
    }

    #[test]
    fn anchors_are_githubs() {
        assert_eq!(anchor("GroupItem"), "groupitem");
        assert_eq!(anchor("I32String<N>"), "i32stringn");
        assert_eq!(anchor("Header and tables"), "header-and-tables");
    }

    #[test]
    fn names_are_found_in_any_case_and_misses_name_close_ones() {
        assert!(matches!(
            SchemaSelection::find("groupitem"),
            Ok(SchemaSelection::Structure(_, _))
        ));
        assert!(matches!(
            SchemaSelection::find("map-items"),
            Ok(SchemaSelection::Document(_))
        ));
        let error = SchemaSelection::find("GropItem").unwrap_err();
        assert!(error.contains("close: GroupItem"), "{error}");
    }
}
