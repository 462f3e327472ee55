//! A demo as rows for analysis (`twcodec demo export`): one row per snapshot object per tick,
//! with the tick, the time since the first tick, the object's type and id, and its fields.
//!
//! ```no_run
//! use twcodec::demo::Demo;
//! use twcodec_tools::export::{ObjectFilter, ObjectRows};
//!
//! let demo = Demo::open("race.demo")?;
//! let filter = ObjectFilter::parse(&["character"])?;
//! for row in ObjectRows::new(&demo, &filter) {
//!     let row = row?;
//!     println!("{} {} {:?}", row.tick, row.id, row.fields.get("x"));
//! }
//! # Ok::<(), twcodec::Error>(())
//! ```
//!
//! Rows stream: the demo is replayed tick by tick ([`Demo::replay`]) and each tick's objects
//! are decoded as the rows are asked for, so memory stays that of one snapshot whatever the
//! demo's length. Fields are the objects' schema fields (`twcodec_schema::netobj`),
//! flattened: a nested structure's fields as `outer.inner`, an array's elements as
//! `field.0`, `field.1`, ...; enums by name, a set of flags as its names joined by `|`; a field named as a row column gets the prefix
//! `obj_` (a character's `obj_tick`); an item that does not decode as its type has its ints
//! as `ints.0`, `ints.1`, ...

use serde_json::{Map as JsonMap, Value};

use twcodec::demo::{ticks_to_seconds, Demo, Frame, Replay};
use twcodec::snap::objects::ObjectItem;
use twcodec::snap::objects::SnapObjectKind;
use twcodec::snap::Protocol;
use twcodec::{Error, ErrorKind};

/// Which object types to export: all, or those named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectFilter {
    /// The kinds' names as the registry has them (`obj_character`); empty: every kind,
    /// and the items that stayed ints.
    names: Vec<&'static str>,
}

impl ObjectFilter {
    /// Every object.
    pub fn all() -> ObjectFilter {
        ObjectFilter::default()
    }

    /// The kinds named, each as the registry names it (`obj_character`, `event_spawn`,
    /// `obj_ddnet_character`) or without its `obj_` / `event_` prefix (`character`,
    /// `player_info`, `ddnet_character`); a name may match a kind of each protocol. An
    /// unknown name is an error listing the names there are.
    pub fn parse(names: &[impl AsRef<str>]) -> Result<ObjectFilter, Error> {
        let kinds: Vec<SnapObjectKind> = [
            SnapObjectKind::DDNET_06,
            SnapObjectKind::TEEWORLDS_07,
            SnapObjectKind::EXTENDED,
        ]
        .concat();
        let mut chosen = Vec::new();
        for name in names {
            let name = name.as_ref().trim().to_ascii_lowercase();
            let matching: Vec<&'static str> = (kinds.iter())
                .map(|kind| kind.name())
                .filter(|full| {
                    *full == name
                        || full.strip_prefix("obj_") == Some(name.as_str())
                        || full.strip_prefix("event_") == Some(name.as_str())
                })
                .collect();
            if matching.is_empty() {
                let mut known: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
                known.sort_unstable();
                known.dedup();
                // The nearest name, short or full: a typo's likely meaning.
                let names: Vec<&str> = (known.iter())
                    .flat_map(|full| {
                        let short = (full.strip_prefix("obj_"))
                            .or_else(|| full.strip_prefix("event_"))
                            .unwrap_or(full);
                        [short, *full]
                    })
                    .collect();
                let hint = crate::nearest(&name, &names)
                    .map_or(String::new(), |near| format!(" (did you mean {near:?}?)"));
                return Err(Error::new(
                    ErrorKind::InvalidOptions,
                    format!(
                        "no snapshot object is called {name:?}{hint}; there are {}",
                        known.join(", ")
                    ),
                ));
            }
            chosen.extend(matching);
        }
        chosen.sort_unstable();
        chosen.dedup();
        Ok(ObjectFilter { names: chosen })
    }

    /// Whether `item` is exported.
    pub fn matches(&self, item: &ObjectItem) -> bool {
        self.names.is_empty() || item.name().is_some_and(|name| self.names.contains(&name))
    }
}

/// One object at one tick.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectRow {
    /// The tick.
    pub tick: i32,
    /// Seconds since the demo's first tick.
    pub time: f64,
    /// The object's type name (`obj_character`), or `type_N` for an item that is no known
    /// object.
    pub kind: String,
    /// The item's id (for characters and players, the client id).
    pub id: u16,
    /// Its fields, flattened (see the [module docs](self)).
    pub fields: JsonMap<String, Value>,
}

impl ObjectRow {
    /// The row as one JSON object: `tick`, `time`, `type`, `id`, then the fields.
    pub fn to_json(&self) -> Value {
        let mut object = JsonMap::with_capacity(self.fields.len() + 4);
        object.insert("tick".into(), self.tick.into());
        object.insert("time".into(), self.time.into());
        object.insert("type".into(), self.kind.clone().into());
        object.insert("id".into(), self.id.into());
        for (key, value) in &self.fields {
            object.insert(key.clone(), value.clone());
        }
        Value::Object(object)
    }
}

/// The rows of a demo, tick by tick ([`ObjectRows::new`]); after an error the iterator ends.
pub struct ObjectRows<'d> {
    replay: Replay<'d>,
    protocol: Protocol,
    filter: &'d ObjectFilter,
    first_tick: Option<i32>,
    pending: std::vec::IntoIter<ObjectRow>,
    done: bool,
}

impl<'d> ObjectRows<'d> {
    /// The rows of `demo`'s objects that `filter` lets through.
    pub fn new(demo: &'d Demo, filter: &'d ObjectFilter) -> ObjectRows<'d> {
        ObjectRows {
            replay: demo.replay(),
            protocol: demo.protocol(),
            filter,
            first_tick: None,
            pending: Vec::new().into_iter(),
            done: false,
        }
    }

    /// The rows of one tick.
    fn rows(&mut self, frame: &Frame<'_>) -> Vec<ObjectRow> {
        let first = *self.first_tick.get_or_insert(frame.tick);
        let Some(snapshot) = &frame.snapshot else {
            return Vec::new();
        };
        let time = ticks_to_seconds(frame.tick.saturating_sub(first));
        let objects: Box<dyn Iterator<Item = ObjectItem>> = match self.filter.names.is_empty() {
            true => Box::new(snapshot.objects(self.protocol)),
            // Only the kinds asked for are decoded.
            false => Box::new(snapshot.objects_of(self.protocol, |kind| {
                self.filter.names.contains(&kind.name())
            })),
        };
        objects
            .map(|item| ObjectRow {
                tick: frame.tick,
                time,
                kind: item
                    .name()
                    .map_or_else(|| format!("type_{}", item.key.type_id()), str::to_string),
                id: item.key.id(),
                fields: fields(&item),
            })
            .collect()
    }
}

impl Iterator for ObjectRows<'_> {
    type Item = Result<ObjectRow, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(row) = self.pending.next() {
                return Some(Ok(row));
            }
            if self.done {
                return None;
            }
            match self.replay.next() {
                None => self.done = true,
                Some(Err(error)) => {
                    self.done = true;
                    return Some(Err(error));
                }
                Some(Ok(frame)) => self.pending = self.rows(&frame).into_iter(),
            }
        }
    }
}

/// The columns every row has, first.
const ROW_COLUMNS: [&str; 4] = ["tick", "time", "type", "id"];

/// The fields of an object, flattened; a field named as a row column (a character's `tick`,
/// a projectile's `type`) gets the prefix `obj_`.
fn fields(item: &ObjectItem) -> JsonMap<String, Value> {
    let mut out = JsonMap::new();
    // Serializing a schema type to a JSON value cannot fail: its keys are strings.
    let value = serde_json::to_value(&item.object).unwrap_or(Value::Null);
    let Value::Object(object) = value else {
        return out;
    };
    // The first `kind` is the enum's tag; a field named `kind` would come after it.
    let mut tag = true;
    for (key, value) in object {
        if key == "kind" && std::mem::take(&mut tag) {
            continue;
        }
        let key = match ROW_COLUMNS.contains(&key.as_str()) {
            true => format!("obj_{key}"),
            false => key,
        };
        flatten(&key, value, &mut out);
    }
    out
}

/// `value` under `key`: structures and arrays spread out as `key.field` and `key.N`, a list
/// of names (flags) joined by `|`.
fn flatten(key: &str, value: Value, out: &mut JsonMap<String, Value>) {
    match value {
        Value::Object(object) => {
            for (inner, value) in object {
                flatten(&format!("{key}.{inner}"), value, out);
            }
        }
        // A set of flags (names): one cell, `a|b`.
        Value::Array(values) if values.iter().all(Value::is_string) => {
            let names: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
            out.insert(key.to_string(), Value::String(names.join("|")));
        }
        Value::Array(values) => {
            for (i, value) in values.into_iter().enumerate() {
                flatten(&format!("{key}.{i}"), value, out);
            }
        }
        value => {
            out.insert(key.to_string(), value);
        }
    }
}

/// The columns a CSV export of `demo` needs: `tick`, `time`, `type`, `id`, then every field
/// any exported object has, in the order they first appear. Replays the demo once.
pub fn columns(demo: &Demo, filter: &ObjectFilter) -> Result<Vec<String>, Error> {
    let mut columns: Vec<String> = ROW_COLUMNS.map(String::from).to_vec();
    let mut seen: std::collections::HashSet<String> = columns.iter().cloned().collect();
    let mut kinds_seen = std::collections::HashSet::new();
    for row in ObjectRows::new(demo, filter) {
        let row = row?;
        // Objects of one kind have the same fields, but for optional ones and tails.
        if !kinds_seen.insert((row.kind.clone(), row.fields.len())) {
            continue;
        }
        for key in row.fields.keys() {
            if seen.insert(key.clone()) {
                columns.push(key.clone());
            }
        }
    }
    Ok(columns)
}

/// The row's cells for `columns` (empty where the object has no such field).
pub fn cells(row: &ObjectRow, columns: &[String]) -> Vec<String> {
    let text = |value: &Value| match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    (columns.iter())
        .map(|column| match column.as_str() {
            "tick" => row.tick.to_string(),
            "time" => row.time.to_string(),
            "type" => row.kind.clone(),
            "id" => row.id.to_string(),
            field => row.fields.get(field).map(text).unwrap_or_default(),
        })
        .collect()
}
