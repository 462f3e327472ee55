//! The format reference (`twcodec schema`, `docs/format/`): the committed Markdown is what the
//! code renders, every binrw structure of the schema is described and listed, and the
//! reference's layout of each map item kind agrees with every item of the corpus.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;

use twcodec::items::{decode_context, item_kind};
use twcodec::schema::map::{MapItem, MapItemKind};
use twcodec::schema::reference::{self, Structure};
use twcodec::Datafile;
use twcodec_tools::dump::{self, SchemaFormat, SchemaSelection};

fn root() -> &'static Path {
    common::root()
}

#[test]
fn the_committed_reference_is_what_the_code_renders() {
    let dir = root().join("docs/format");
    let files = dump::schema_files();
    let mut stale = Vec::new();
    for (name, text) in &files {
        let path = dir.join(name);
        match std::fs::read_to_string(&path) {
            Ok(committed) if committed == *text => {}
            Ok(committed) => {
                let line = committed
                    .lines()
                    .zip(text.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or_else(|| committed.lines().count().min(text.lines().count()));
                stale.push(format!(
                    "docs/format/{name} differs from the code from line {}:\n  committed: {}\n  \
                     code:      {}",
                    line + 1,
                    committed.lines().nth(line).unwrap_or("(end)"),
                    text.lines().nth(line).unwrap_or("(end)")
                ));
            }
            Err(error) => stale.push(format!("docs/format/{name}: {error}")),
        }
    }
    let expected: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !expected.contains(&name.as_str()) {
            stale.push(format!("docs/format/{name} is not generated: remove it"));
        }
    }
    assert!(
        stale.is_empty(),
        "{}\nregenerate with `cargo run -- schema --out-dir docs/format` and review the diff",
        stale.join("\n")
    );
}

/// The names of the structures a schema source file gives to binrw, and whether `#[describe]`
/// sits on each.
fn binrw_structures(text: &str) -> Vec<(String, bool)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        if !matches!(*line, "#[binrw]" | "#[binread]" | "#[binwrite]") {
            continue;
        }
        let described = at > 0 && lines[at - 1] == "#[describe]";
        let name = lines[at..]
            .iter()
            .find_map(|l| {
                let rest = l
                    .strip_prefix("pub struct ")
                    .or_else(|| l.strip_prefix("pub enum "))
                    .or_else(|| l.strip_prefix("struct "))
                    .or_else(|| l.strip_prefix("enum "))?;
                Some(
                    rest.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect::<String>(),
                )
            })
            .unwrap_or_default();
        found.push((name, described));
    }
    found
}

#[test]
fn every_binrw_structure_of_the_schema_is_described_and_listed() {
    let listed: Vec<String> = reference::documents()
        .iter()
        .flat_map(|document| {
            document
                .entries()
                .map(|e| (e.describe)().ident)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut problems = Vec::new();
    let mut count = 0;
    let mut dirs = vec![root().join("schema/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (name, described) in binrw_structures(&text) {
                count += 1;
                if !described {
                    problems.push(format!(
                        "{}: {name} has no #[describe] above #[binrw]",
                        path.display()
                    ));
                } else if !listed.contains(&name) {
                    problems.push(format!(
                        "{}: {name} is not in reference::documents()",
                        path.display()
                    ));
                }
            }
        }
    }
    assert!(count > 60, "{count} binrw structures found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn json_of_a_structure() {
    let selection = SchemaSelection::find("GroupItem").unwrap();
    let text = dump::to_string(|out| dump::schema(&selection, SchemaFormat::Json, out));
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["structure"]["name"], "GroupItem");
    common::insta_settings().bind(|| insta::assert_snapshot!("schema_json_group_item", text));

    // The whole reference is one JSON document.
    let all = dump::to_string(|out| dump::schema(&SchemaSelection::All, SchemaFormat::Json, out));
    let value: serde_json::Value = serde_json::from_str(&all).unwrap();
    assert_eq!(value["documents"].as_array().unwrap().len(), 8);
}

/// The `unknown_tail` ints of a decoded item, wherever its structure keeps them.
fn decoded_tail(value: &serde_json::Value) -> usize {
    match value {
        serde_json::Value::Object(map) => map
            .iter()
            .map(|(key, value)| match (key.as_str(), value) {
                ("unknown_tail", serde_json::Value::Array(ints)) => ints.len(),
                _ => decoded_tail(value),
            })
            .sum(),
        serde_json::Value::Array(values) => values.iter().map(decoded_tail).sum(),
        _ => 0,
    }
}

/// What the corpus check found for one map item kind.
#[derive(Default)]
struct Tally {
    items: usize,
    exact: usize,
    with_tail: usize,
    tail_ints: BTreeMap<u64, usize>,
    refused: usize,
    missing: BTreeMap<String, usize>,
}

#[test]
fn the_reference_predicts_every_corpus_item() {
    let Some(maps) = common::corpus_maps() else {
        return;
    };
    let mut structures: HashMap<MapItemKind, Option<Structure>> = HashMap::new();
    let mut tallies: BTreeMap<&'static str, Tally> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let mut unreadable = Vec::new();
    for path in &maps {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let datafile = match Datafile::open(path) {
            Ok(datafile) => datafile,
            Err(error) => {
                unreadable.push(format!("{name}: {error}"));
                continue;
            }
        };
        let context = decode_context(&datafile);
        for (index, item) in datafile.items().iter().enumerate() {
            let kind = item_kind(&datafile, item.type_id());
            let tally = tallies.entry(kind.name()).or_default();
            tally.items += 1;
            let structure = structures
                .entry(kind)
                .or_insert_with(|| reference::map_item(kind));
            let Some(structure) = structure else {
                // No layout: an unknown type is kept as ints.
                continue;
            };
            let label = format!(
                "{name}: item #{index} ({} id {}, {} ints)",
                kind.name(),
                item.id(),
                item.data.len()
            );
            let bytes: Vec<u8> = item.data.iter().flat_map(|i| i.to_le_bytes()).collect();
            let imports = [("bezier", i64::from(context.bezier_points))];
            let placed = structure.place(&bytes, &imports);
            let decoded = MapItem::decode(kind, &item.data, context);
            let (placed, decoded) = match (placed, decoded) {
                (Ok(placed), Ok(decoded)) => (placed, decoded),
                (Err(_), Err(_)) => {
                    tally.refused += 1;
                    continue;
                }
                (Ok(_), Err(error)) => {
                    disagreements.push(format!(
                        "{label}: the reference places it, binrw refuses it: {error}"
                    ));
                    continue;
                }
                (Err(error), Ok(_)) => {
                    disagreements.push(format!(
                        "{label}: binrw reads it, the reference cannot place it: {error}"
                    ));
                    continue;
                }
            };
            let stored = bytes.len() as u64;
            let tail: u64 = placed
                .fields
                .iter()
                .filter(|field| field.path.rsplit('.').next() == Some("unknown_tail"))
                .map(|field| field.size)
                .sum();
            let predicted = placed.end - tail;
            let decoded_tail = decoded_tail(&serde_json::to_value(&decoded).unwrap()) as u64 * 4;
            if placed.end != stored {
                disagreements.push(format!(
                    "{label}: the reference places {} of its {stored} bytes",
                    placed.end
                ));
            } else if decoded_tail != stored - predicted {
                disagreements.push(format!(
                    "{label}: the reference predicts {predicted} bytes and a tail of {}, binrw \
                     keeps a tail of {decoded_tail}",
                    stored - predicted
                ));
            } else if tail == 0 {
                tally.exact += 1;
            } else {
                tally.with_tail += 1;
                *tally.tail_ints.entry(tail / 4).or_default() += 1;
            }
            for path in placed.missing {
                *tally.missing.entry(path).or_default() += 1;
            }
        }
    }

    let mut summary = format!(
        "format reference vs {} corpus maps ({} not datafiles):\n",
        maps.len() - unreadable.len(),
        unreadable.len()
    );
    for (kind, tally) in &tallies {
        let mut line = format!("  {kind}: {} items", tally.items);
        if tally.exact + tally.with_tail + tally.refused > 0 {
            line += &format!(", {} exactly the predicted size", tally.exact);
        }
        if tally.with_tail > 0 {
            let tails: Vec<String> = tally
                .tail_ints
                .iter()
                .map(|(ints, n)| format!("{ints} int{} ×{n}", if *ints == 1 { "" } else { "s" }))
                .collect();
            line += &format!(
                ", {} longer with the extra ints in the kept tail ({})",
                tally.with_tail,
                tails.join(", ")
            );
        }
        if tally.refused > 0 {
            line += &format!(", {} refused by both", tally.refused);
        }
        if !tally.missing.is_empty() {
            let missing: Vec<String> = tally
                .missing
                .iter()
                .map(|(path, n)| format!("{path} ×{n}"))
                .collect();
            line += &format!("; absent where the item ends first: {}", missing.join(", "));
        }
        if tally.exact + tally.with_tail + tally.refused == 0 {
            line += " (no layout: kept as ints)";
        }
        summary += &line;
        summary.push('\n');
    }
    for map in &unreadable {
        summary += &format!("  not read: {map}\n");
    }
    // On standard error itself: the summary is part of the test's ordinary output.
    let _ = std::io::stderr().write_all(summary.as_bytes());
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    assert!(
        tallies.values().map(|t| t.exact).sum::<usize>() > 100,
        "{summary}"
    );
}
