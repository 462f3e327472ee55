//! Teehistorian files (`twcodec teehistorian info`, `dump`, `index`): a file's summary
//! ([`Summary`]), its records as JSON objects ([`record_json`]), and one [`IndexRow`] per file
//! over folders ([`index`]).
//!
//! ```
//! use twcodec::teehistorian::{Teehistorian, TeehistorianWriter};
//! use twcodec::schema::teehistorian::{Record, TickSkip};
//!
//! let mut writer = TeehistorianWriter::with_header_text(r#"{"map_name":"Kobra"}"#);
//! writer.record(&Record::TickSkip(TickSkip { dt: 4.into() }))?;
//! let th = Teehistorian::parse(&writer.finish())?;
//! let summary = twcodec_tools::teehistorian::summary(&th);
//! assert_eq!((summary.records, summary.last_tick, summary.finished), (2, Some(5), true));
//! # Ok::<(), twcodec::Error>(())
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Map, Value};
use twcodec::schema::teehistorian::{Ex, Record, RecordKind};
use twcodec::teehistorian::{RecordAt, Teehistorian};
use twcodec::Error;

use crate::dump::hex;
use crate::scan::{in_order, walk, Found};

/// What a file holds: its records counted by kind, its ticks and players.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Records read (up to an error).
    pub records: usize,
    /// Records by kind (`tick_skip: 3`).
    pub kinds: BTreeMap<&'static str, usize>,
    /// Extension records by name (`joinver6: 2`; an unknown one by its UUID).
    pub extensions: BTreeMap<String, usize>,
    /// Tick of the first record.
    pub first_tick: Option<i32>,
    /// Tick of the last record.
    pub last_tick: Option<i32>,
    /// Whether the file ends with `FINISH`.
    pub finished: bool,
    /// Extension records of UUIDs this library does not know.
    pub unknown_extensions: usize,
    /// Client ids that appear in a player, input, message, join or drop record.
    pub players: BTreeSet<i32>,
    /// The error that ended the records early.
    pub error: Option<String>,
}

/// The client id a record is about, when it is about one.
fn client_id(record: &Record) -> Option<i32> {
    Some(match record {
        Record::PlayerDiff { cid, .. } => *cid,
        Record::PlayerNew(p) => p.cid.0,
        Record::PlayerOld(c) | Record::Join(c) => c.cid.0,
        Record::InputDiff(i) | Record::InputNew(i) => i.cid.0,
        Record::Message(m) => m.cid.0,
        Record::Drop(d) => d.cid.0,
        _ => return None,
    })
}

/// The name of an extension record: its known name, or its UUID.
pub fn ex_name(ex: &Ex) -> String {
    ex.kind()
        .map_or_else(|| ex.uuid().to_string(), |kind| kind.name().to_string())
}

/// Reads every record of `th` into its summary; an error ends the records, in
/// [`Summary::error`].
pub fn summary(th: &Teehistorian) -> Summary {
    let mut summary = Summary::default();
    let mut records = th.records();
    for at in records.by_ref() {
        let at = match at {
            Ok(at) => at,
            Err(error) => {
                summary.error = Some(error.to_string());
                break;
            }
        };
        summary.records += 1;
        *summary.kinds.entry(at.record.kind().name()).or_default() += 1;
        if let Record::Ex(ex) = &at.record {
            *summary.extensions.entry(ex_name(ex)).or_default() += 1;
            summary.unknown_extensions += usize::from(ex.kind().is_none());
        }
        summary.first_tick.get_or_insert(at.tick);
        summary.last_tick = Some(at.tick);
        if let Some(cid) = client_id(&at.record) {
            summary.players.insert(cid);
        }
    }
    summary.finished = records.finished();
    summary
}

/// The header fields `info` shows, in DDNet's order.
const HEADER_FIELDS: [&str; 15] = [
    "comment",
    "version",
    "version_minor",
    "game_uuid",
    "prev_game_uuid",
    "server_version",
    "start_time",
    "server_name",
    "server_port",
    "game_type",
    "map_name",
    "map_size",
    "map_sha256",
    "map_crc",
    "prng_description",
];

/// `teehistorian info` as text: header fields, the numbers of config settings, tuning
/// changes and UUIDs, then the summary. Returns the error that ended the records, if any.
pub fn info(th: &Teehistorian, out: &mut dyn Write) -> io::Result<Option<String>> {
    let header = th.header();
    for key in HEADER_FIELDS {
        if let Some(value) = header.get(key) {
            writeln!(
                out,
                "{key:<17} {}",
                value.as_str().unwrap_or(&value.to_string())
            )?;
        }
    }
    for key in ["config", "tuning"] {
        if let Some(Value::Object(map)) = header.get(key) {
            let shown: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or(&v.to_string())))
                .collect();
            match shown.is_empty() {
                true => writeln!(out, "{key:<17} 0 changed")?,
                false => writeln!(out, "{key:<17} {} changed: {}", map.len(), shown.join(", "))?,
            }
        }
    }
    if let Some(Value::Array(uuids)) = header.get("uuids") {
        writeln!(out, "{:<17} {}", "uuids", uuids.len())?;
    }
    let s = summary(th);
    writeln!(out, "{:<17} {}", "records", s.records)?;
    for (kind, count) in &s.kinds {
        writeln!(out, "  {kind:<15} {count}")?;
    }
    for (name, count) in &s.extensions {
        writeln!(out, "    {name:<13} {count}")?;
    }
    let tick = |t: Option<i32>| t.map_or("-".to_string(), |t| t.to_string());
    writeln!(
        out,
        "{:<17} {} to {}",
        "ticks",
        tick(s.first_tick),
        tick(s.last_tick)
    )?;
    let players: Vec<String> = s.players.iter().map(i32::to_string).collect();
    writeln!(
        out,
        "{:<17} {} ({})",
        "players",
        s.players.len(),
        players.join(" ")
    )?;
    writeln!(
        out,
        "{:<17} {}",
        "finished",
        if s.finished { "yes" } else { "no" }
    )?;
    if let Some(error) = &s.error {
        writeln!(out, "{:<17} {error}", "error")?;
    }
    Ok(s.error)
}

/// A record as a JSON object: `index`, `offset`, `tick`, `kind`, then its fields (strings as
/// text when they are UTF-8; a message's and an extension's bytes in hex; an extension's
/// `name`, `uuid` and decoded `payload` when it is known and its bytes are its layout).
pub fn record_json(at: &RecordAt) -> Value {
    let mut object = Map::new();
    object.insert("index".into(), json!(at.index));
    object.insert("offset".into(), json!(at.offset));
    object.insert("tick".into(), json!(at.tick));
    match &at.record {
        Record::Message(message) => {
            object.insert("kind".into(), json!("message"));
            object.insert("cid".into(), json!(message.cid.0));
            object.insert("data".into(), json!(hex(&message.data.0)));
            // The message's first int: its id and whether it is a system message.
            if let Ok(ints) = twcodec::snap::packing::unpack_ints_at_most(&message.data.0, 1) {
                if let Some(&id) = ints.first() {
                    object.insert("msg_id".into(), json!(id >> 1));
                    object.insert("sys".into(), json!(id & 1 == 1));
                }
            }
        }
        Record::Ex(ex) => {
            object.insert("kind".into(), json!("ex"));
            object.insert("name".into(), json!(ex.kind().map(|k| k.name())));
            object.insert("uuid".into(), json!(ex.uuid().to_string()));
            match ex.payload() {
                Some(payload) if !matches!(payload, twcodec::teehistorian::ExPayload::Bytes(_)) => {
                    let mut value = serde_json::to_value(payload).unwrap_or(Value::Null);
                    uuid_fields_as_text(&mut value);
                    object.insert("payload".into(), value);
                }
                _ => {
                    object.insert("data".into(), json!(hex(&ex.data.0)));
                }
            }
        }
        record => {
            if let Ok(Value::Object(fields)) = serde_json::to_value(record) {
                object.extend(fields);
            }
        }
    }
    Value::Object(object)
}

/// The 16-byte arrays of a payload (connection and save ids) as UUID text.
fn uuid_fields_as_text(value: &mut Value) {
    if let Value::Object(map) = value {
        for field in ["connection_id", "save_id"] {
            if let Some(Value::Array(bytes)) = map.get(field) {
                let bytes: Vec<u8> = bytes
                    .iter()
                    .filter_map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                    .collect();
                if let Ok(bytes) = <[u8; 16]>::try_from(bytes) {
                    let text = twcodec::Uuid::from_bytes(bytes).to_string();
                    map.insert(field.into(), json!(text));
                }
            }
        }
    }
}

/// `teehistorian dump`: the header as the first line (`{"header": ...}`), then one line per
/// record. Returns the error that ended the records, if any (the lines before it are
/// written).
pub fn dump(th: &Teehistorian, out: &mut dyn Write) -> io::Result<Option<Error>> {
    serde_json::to_writer(&mut *out, &json!({ "header": th.header() }))?;
    out.write_all(b"\n")?;
    for at in th.records() {
        match at {
            Ok(at) => {
                serde_json::to_writer(&mut *out, &record_json(&at))?;
                out.write_all(b"\n")?;
            }
            Err(error) => return Ok(Some(error)),
        }
    }
    Ok(None)
}

/// One file of `teehistorian index`: where, the header's main fields and the summary.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct IndexRow {
    /// The file, as found.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// Why it could not be read, or the error that ended its records.
    pub error: Option<String>,
    /// The header's `game_uuid`.
    pub game_uuid: Option<String>,
    /// The header's `prev_game_uuid` (the game before on the same server).
    pub prev_game_uuid: Option<String>,
    /// `server_name`.
    pub server_name: Option<String>,
    /// `server_version`.
    pub server_version: Option<String>,
    /// `start_time`.
    pub start_time: Option<String>,
    /// `game_type`.
    pub game_type: Option<String>,
    /// `map_name`.
    pub map_name: Option<String>,
    /// `map_sha256`.
    pub map_sha256: Option<String>,
    /// Records read.
    pub records: usize,
    /// Tick of the last record.
    pub last_tick: Option<i32>,
    /// Whether the file ends with `FINISH`.
    pub finished: bool,
    /// Distinct client ids.
    pub players: usize,
    /// `join` records.
    pub joins: usize,
    /// `console_command` records.
    pub console_commands: usize,
    /// `message` records.
    pub messages: usize,
    /// Extension records of unknown UUIDs.
    pub unknown_extensions: usize,
}

/// The row of one file.
pub fn index_file(path: &Path) -> IndexRow {
    let mut row = IndexRow {
        path: path.display().to_string(),
        ..IndexRow::default()
    };
    row.size = std::fs::metadata(path).map_or(0, |m| m.len());
    let th = match Teehistorian::open(path) {
        Ok(th) => th,
        Err(error) => {
            row.error = Some(error.to_string());
            return row;
        }
    };
    let field = |key: &str| th.header_str(key).map(str::to_string);
    row.game_uuid = field("game_uuid");
    row.prev_game_uuid = field("prev_game_uuid");
    row.server_name = field("server_name");
    row.server_version = field("server_version");
    row.start_time = field("start_time");
    row.game_type = field("game_type");
    row.map_name = field("map_name");
    row.map_sha256 = field("map_sha256");
    let s = summary(&th);
    let kind = |k: RecordKind| s.kinds.get(k.name()).copied().unwrap_or(0);
    row.records = s.records;
    row.last_tick = s.last_tick;
    row.finished = s.finished;
    row.players = s.players.len();
    row.joins = kind(RecordKind::Join);
    row.console_commands = kind(RecordKind::ConsoleCommand);
    row.messages = kind(RecordKind::Message);
    row.unknown_extensions = s.unknown_extensions;
    row.error = s.error.map(|e| format!("{}: {e}", path.display()));
    row
}

/// Every `.teehistorian` file under `paths` (a file given by name whatever its name), one row
/// each, in order, read on `jobs` threads; a place that cannot be read is a row with its error.
pub fn index(paths: &[PathBuf], jobs: Option<usize>) -> Result<Vec<IndexRow>, Error> {
    let mut files = Vec::new();
    let mut rows_of_unreadable = Vec::new();
    for found in walk(paths, &["teehistorian"]) {
        match found {
            Found::File(path) => files.push(path),
            Found::Unreadable(path, error) => rows_of_unreadable.push((
                files.len(),
                IndexRow {
                    path: path.display().to_string(),
                    error: Some(error.to_string()),
                    ..IndexRow::default()
                },
            )),
        }
    }
    let mut rows: Vec<IndexRow> = in_order(&files, jobs, index_file)?.collect();
    for (at, row) in rows_of_unreadable.into_iter().rev() {
        rows.insert(at, row);
    }
    Ok(rows)
}

/// The SHA-256 of `bytes` in hex, as the header's `map_sha256` gives a map's.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes))
}

/// What [`to_demo`] did: snapshots written, ticks spanned, players seen.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ToDemoSummary {
    /// Snapshots recorded (one per tick that has records, from tick 1 on).
    pub snapshots: usize,
    /// First tick recorded.
    pub first_tick: Option<i32>,
    /// Last tick recorded.
    pub last_tick: Option<i32>,
    /// Client ids that have a player in the demo.
    pub players: BTreeSet<i32>,
}

/// A player as the teehistorian shows it: position while alive, input, name.
#[derive(Debug, Clone, Default)]
struct Tee {
    alive: bool,
    x: i32,
    y: i32,
    input: [i32; 10],
    name: Option<String>,
}

/// Object type ids of Teeworlds 0.6 / DDNet snapshots (`datasrc/network.py`).
const OBJ_GAME_INFO: u16 = 6;
const OBJ_CHARACTER: u16 = 9;
const OBJ_PLAYER_INFO: u16 = 10;
const OBJ_CLIENT_INFO: u16 = 11;

/// The snapshot of one tick: game info, then each player's client info, player info and,
/// while alive, character (position; direction and aim from the last input).
fn snapshot_of(
    tick: i32,
    tees: &BTreeMap<i32, Tee>,
    local: Option<i32>,
) -> Result<twcodec::snap::Snapshot, Error> {
    let mut builder = twcodec::snap::SnapshotBuilder::new();
    builder.add_item(OBJ_GAME_INFO, 0, &[0; 8])?;
    for (&cid, tee) in tees {
        let Ok(id) = u16::try_from(cid) else { continue };
        let name = tee.name.clone().unwrap_or_else(|| format!("#{cid}"));
        let mut info = Vec::with_capacity(17);
        info.extend(twcodec::schema::map::I32String::<4>::new(name.as_bytes()).ints);
        info.extend(twcodec::schema::map::I32String::<3>::new(b"").ints);
        info.push(-1); // country
        info.extend(twcodec::schema::map::I32String::<6>::new(b"default").ints);
        info.extend([0, 0, 0]); // no custom colors
        builder.add_item(OBJ_CLIENT_INFO, id, &info)?;
        let is_local = i32::from(local == Some(cid));
        builder.add_item(OBJ_PLAYER_INFO, id, &[is_local, cid, 0, 0, 0])?;
        if tee.alive {
            let [direction, target_x, target_y, ..] = tee.input;
            let angle = (f64::from(target_y).atan2(f64::from(target_x)) * 256.0) as i32;
            #[rustfmt::skip]
            let character = [
                tick, tee.x, tee.y, 0, 0, angle, direction.signum(), 0, -1, 0, 0, tee.x, tee.y, 0, 0,
                0, 10, 0, -1, 1, 0, 0, // flags, health, armor, ammo, weapon (gun), emote, attack tick
            ];
            builder.add_item(OBJ_CHARACTER, id, &character)?;
        }
    }
    builder.finish()
}

/// Writes a demo of the game in `th` on the map `map` (its bytes; a teehistorian file names
/// its map but does not hold it), as seen by `player` when given: one snapshot per tick that
/// has records, with every player that joined or moved (name from `player_name` records),
/// and characters at the recorded positions, facing as their last input says. Positions are
/// all the teehistorian keeps of a character: velocity, hook, weapon and health are not
/// recorded, so the demo shows tees moving, not playing. An error in the records ends the
/// demo there and is returned with what was written.
pub fn to_demo<W: Write + std::io::Seek>(
    th: &Teehistorian,
    map: &[u8],
    player: Option<i32>,
    out: W,
) -> Result<(W, ToDemoSummary, Option<Error>), Error> {
    let info = twcodec::demo::DemoInfo {
        map_name: th.header_str("map_name").unwrap_or_default().to_string(),
        timestamp: th
            .header_str("start_time")
            .unwrap_or_default()
            .chars()
            .take(19)
            .collect::<String>()
            .replace('T', "_")
            .replace(':', "-"),
        ..twcodec::demo::DemoInfo::default()
    };
    let mut writer = twcodec::demo::DemoWriter::new(out, &info, map)?;
    let mut summary = ToDemoSummary::default();
    let mut tees: BTreeMap<i32, Tee> = BTreeMap::new();
    let mut tick: Option<i32> = None;
    let mut failure = None;
    let flush = |tick: Option<i32>,
                 tees: &BTreeMap<i32, Tee>,
                 writer: &mut twcodec::demo::DemoWriter<W>,
                 summary: &mut ToDemoSummary|
     -> Result<(), Error> {
        if let Some(tick) = tick.filter(|&t| t >= 1) {
            writer.snapshot(tick, &snapshot_of(tick, tees, player)?)?;
            summary.snapshots += 1;
            summary.first_tick.get_or_insert(tick);
            summary.last_tick = Some(tick);
        }
        Ok(())
    };
    for at in th.records() {
        let at = match at {
            Ok(at) => at,
            Err(error) => {
                failure = Some(error);
                break;
            }
        };
        if tick != Some(at.tick) {
            flush(tick, &tees, &mut writer, &mut summary)?;
            tick = Some(at.tick);
        }
        match &at.record {
            Record::PlayerNew(p) => {
                let tee = tees.entry(p.cid.0).or_default();
                (tee.alive, tee.x, tee.y) = (true, p.x.0, p.y.0);
            }
            Record::PlayerDiff { cid, diff } => {
                let tee = tees.entry(*cid).or_default();
                tee.x = tee.x.wrapping_add(diff.dx.0);
                tee.y = tee.y.wrapping_add(diff.dy.0);
            }
            Record::PlayerOld(c) => tees.entry(c.cid.0).or_default().alive = false,
            Record::Join(c) => {
                tees.entry(c.cid.0).or_default();
            }
            Record::Drop(d) => {
                tees.remove(&d.cid.0);
            }
            Record::InputNew(i) => {
                tees.entry(i.cid.0).or_default().input = i.input.map(|v| v.0);
            }
            Record::InputDiff(i) => {
                let tee = tees.entry(i.cid.0).or_default();
                for (value, diff) in tee.input.iter_mut().zip(i.input) {
                    *value = value.wrapping_add(diff.0);
                }
            }
            Record::Ex(ex) => {
                if let Some(twcodec::teehistorian::ExPayload::PlayerName(p)) = ex.payload() {
                    tees.entry(p.cid.0).or_default().name =
                        Some(p.name.to_string_lossy().into_owned());
                }
            }
            _ => {}
        }
        summary
            .players
            .extend(tees.keys().copied().filter(|&cid| cid >= 0));
    }
    flush(tick, &tees, &mut writer, &mut summary)?;
    Ok((writer.finish()?, summary, failure))
}
