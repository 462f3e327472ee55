//! Ghosts for people and tables: `twcodec ghost info` (the header, what the chunks hold, the
//! duration, and with a map whether it is the ghost's) and `twcodec ghost export` (one row per
//! tick). The reading is [`twcodec::ghost`]'s.

use std::io::{self, Write};

use serde::Serialize;
use twcodec::ghost::{Ghost, GhostData, TICKS_PER_SECOND};
use twcodec::schema::ghost::ItemType;
use twcodec::schema::netobj::common::{HookState, Weapon};
use twcodec::Error;

use crate::dump::hex;

/// A map to compare a ghost with: its name (the file name without `.map`, as DDNet names the
/// current map) and its bytes.
#[derive(Debug, Clone, Copy)]
pub struct MapFile<'a> {
    /// The map's name.
    pub name: &'a str,
    /// The map file's bytes.
    pub bytes: &'a [u8],
}

/// What `ghost info` found wrong, beyond what it printed: `None` when nothing.
#[derive(Debug)]
pub enum Problem {
    /// The items do not decode, or are not what DDNet's client accepts.
    Items(Error),
    /// The map given is not the ghost's (its name, or its SHA-256 or CRC-32).
    MapMismatch,
}

/// Writes `ghost info`: header, chunks and items, duration, skin; with `map`, whether it is the
/// ghost's map. Returns what is wrong (the text says it too).
pub fn info(
    ghost: &Ghost,
    map: Option<MapFile<'_>>,
    out: &mut dyn Write,
) -> io::Result<Option<Problem>> {
    let header = ghost.header();
    writeln!(
        out,
        "ghost version {}, owner {:?}, map {:?}",
        header.version,
        ghost.owner(),
        ghost.map_name()
    )?;
    match (ghost.map_sha256(), ghost.map_crc()) {
        (Some(sha256), _) => writeln!(out, "map sha256 {}", hex(&sha256))?,
        (None, Some(crc)) => writeln!(out, "map crc {crc:08x}")?,
        (None, None) => {}
    }
    writeln!(
        out,
        "time {} ({} ms), {} ticks in the header",
        race_time(header.time),
        header.time,
        header.num_ticks
    )?;
    // Per type: chunks and items, in the order of first appearance.
    let mut counts: Vec<(ItemType, usize, usize)> = Vec::new();
    for chunk in ghost.chunks() {
        let kind = chunk.item_type();
        match counts.iter_mut().find(|(k, _, _)| *k == kind) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 += chunk.items_read();
            }
            None => counts.push((kind, 1, chunk.items_read())),
        }
    }
    let counts: Vec<String> = counts
        .iter()
        .map(|(kind, _, items)| format!("{items} {}", type_name(*kind)))
        .collect();
    writeln!(
        out,
        "{} chunks from byte {:#x}, items: {}",
        ghost.chunks().len(),
        ghost.chunks_offset(),
        if counts.is_empty() {
            "(none)".to_string()
        } else {
            counts.join(", ")
        }
    )?;
    for problem in ghost.check_ddnet() {
        writeln!(out, "DDNet refuses it: {problem}")?;
    }
    let mut problem = None;
    match ghost.decode() {
        Ok(data) => write_data(&data, out)?,
        Err(error) => {
            writeln!(out, "items: {error}")?;
            problem = Some(Problem::Items(error));
        }
    }
    if let Some(map) = map {
        let matches = |ok: bool| if ok { "matches" } else { "DOES NOT MATCH" };
        let name_ok = map.name == ghost.map_name();
        let hash_ok = ghost.map_matches(map.bytes);
        writeln!(
            out,
            "map file: name {:?} ({}), {} ({})",
            map.name,
            matches(name_ok),
            if ghost.map_sha256().is_some() {
                "sha256"
            } else {
                "crc"
            },
            matches(hash_ok)
        )?;
        if !(name_ok && hash_ok) && problem.is_none() {
            problem = Some(Problem::MapMismatch);
        }
    }
    Ok(problem)
}

fn write_data(data: &GhostData, out: &mut dyn Write) -> io::Result<()> {
    let ticks = data.ticks();
    match (ticks.first(), ticks.last()) {
        (Some(first), Some(last)) => writeln!(
            out,
            "characters: {}, ticks {first} to {last}{} ({:.2} s at {TICKS_PER_SECOND} ticks per \
             second)",
            data.characters.len(),
            if data.has_ticks() { "" } else { " (estimated)" },
            f64::from(last.wrapping_sub(*first).wrapping_add(1)) / f64::from(TICKS_PER_SECOND),
        )?,
        _ => writeln!(out, "characters: 0")?,
    }
    match data.start_tick {
        Some(tick) => writeln!(out, "start tick {tick}")?,
        None => writeln!(out, "start tick: none (DDNet takes the first character's)")?,
    }
    match &data.skin {
        Some(skin) if skin.use_custom_color != 0 => writeln!(
            out,
            "skin {:?}, custom colours: body {:06x}, feet {:06x}",
            skin.name(),
            skin.color_body,
            skin.color_feet
        )?,
        Some(skin) => writeln!(out, "skin {:?}", skin.name())?,
        None => writeln!(out, "skin: none (DDNet shows `default`)")?,
    }
    if !data.other.is_empty() {
        writeln!(out, "{} other items, which DDNet skips", data.other.len())?;
    }
    Ok(())
}

/// `m:ss.mmm`.
fn race_time(ms: i32) -> String {
    let ms = i64::from(ms);
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.abs();
    format!(
        "{sign}{}:{:02}.{:03}",
        ms / 60_000,
        ms / 1000 % 60,
        ms % 1000
    )
}

fn type_name(kind: ItemType) -> String {
    kind.name()
        .map_or_else(|| format!("type {}", kind.0), str::to_string)
}

/// One row of `ghost export`: a character on one tick.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GhostRow {
    /// The tick (for ghosts without ticks, DDNet's estimate).
    pub tick: i32,
    /// Seconds since the first row's tick.
    pub time: f64,
    /// Position, in world units (32 to a tile).
    pub x: i32,
    /// Position, in world units, growing downward.
    pub y: i32,
    /// Velocity, in 1/256 world units per tick.
    pub vel_x: i32,
    /// Velocity, in 1/256 world units per tick (DDNet stores 0).
    pub vel_y: i32,
    /// Aim, in 1/256 radians.
    pub angle: i32,
    /// Walking direction: -1, 0, 1.
    pub direction: i32,
    /// The weapon held, as stored.
    pub weapon: i32,
    /// The weapon's name (`hammer`, ..., `ninja`), or the number.
    pub weapon_name: String,
    /// What the hook does, as stored.
    pub hook_state: i32,
    /// Its name (`idle`, `flying`, `grabbed`, ...), or the number.
    pub hook_state_name: String,
    /// Hook position, in world units.
    pub hook_x: i32,
    /// Hook position, in world units.
    pub hook_y: i32,
    /// The tick of the last attack.
    pub attack_tick: i32,
}

/// The columns of [`GhostRow`], in order.
pub const COLUMNS: [&str; 15] = [
    "tick",
    "time",
    "x",
    "y",
    "vel_x",
    "vel_y",
    "angle",
    "direction",
    "weapon",
    "weapon_name",
    "hook_state",
    "hook_state_name",
    "hook_x",
    "hook_y",
    "attack_tick",
];

impl GhostRow {
    /// Its cells, in the order of [`COLUMNS`].
    pub fn cells(&self) -> [String; 15] {
        [
            self.tick.to_string(),
            format!("{}", self.time),
            self.x.to_string(),
            self.y.to_string(),
            self.vel_x.to_string(),
            self.vel_y.to_string(),
            self.angle.to_string(),
            self.direction.to_string(),
            self.weapon.to_string(),
            self.weapon_name.clone(),
            self.hook_state.to_string(),
            self.hook_state_name.clone(),
            self.hook_x.to_string(),
            self.hook_y.to_string(),
            self.attack_tick.to_string(),
        ]
    }
}

/// The rows of a ghost, one per character, as DDNet's client reads them.
pub fn rows(ghost: &Ghost) -> Result<Vec<GhostRow>, Error> {
    let data = ghost.decode()?;
    let ticks = data.ticks();
    let first = ticks.first().copied().unwrap_or(0);
    Ok(data
        .characters
        .iter()
        .zip(ticks)
        .map(|(c, tick)| GhostRow {
            tick,
            time: f64::from(tick.wrapping_sub(first)) / f64::from(TICKS_PER_SECOND),
            x: c.x,
            y: c.y,
            vel_x: c.vel_x,
            vel_y: c.vel_y,
            angle: c.angle,
            direction: c.direction,
            weapon: c.weapon,
            weapon_name: name_of(format!("{:?}", Weapon(c.weapon)), c.weapon),
            hook_state: c.hook_state,
            hook_state_name: name_of(format!("{:?}", HookState(c.hook_state)), c.hook_state),
            hook_x: c.hook_x,
            hook_y: c.hook_y,
            attack_tick: c.attack_tick,
        })
        .collect())
}

/// A known value's name in snake case (`RetractStart` -> `retract_start`), else the number.
fn name_of(debug: String, value: i32) -> String {
    if debug.starts_with("Unknown") || debug.starts_with("Other") || debug.contains('(') {
        return value.to_string();
    }
    let mut name = String::new();
    for (i, c) in debug.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                name.push('_');
            }
            name.extend(c.to_lowercase());
        } else {
            name.push(c);
        }
    }
    name
}

/// `ghost export --format jsonl`: one JSON object per row.
pub fn export_jsonl(rows: &[GhostRow], out: &mut dyn Write) -> io::Result<()> {
    for row in rows {
        serde_json::to_writer(&mut *out, row).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// `ghost export --format csv`: a header line, then one line per row.
pub fn export_csv(rows: &[GhostRow], out: &mut dyn Write) -> io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    let into_io = |error: csv::Error| match error.into_kind() {
        csv::ErrorKind::Io(error) => error,
        other => io::Error::other(format!("{other:?}")),
    };
    writer.write_record(COLUMNS).map_err(into_io)?;
    for row in rows {
        writer.write_record(row.cells()).map_err(into_io)?;
    }
    writer.flush()
}
