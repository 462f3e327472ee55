//! What `twcodec check` finds beyond what the reader refuses: how a map plays in DDNet
//! ([`ddnet`], `check --ddnet`) and the rules a project sets for its maps ([`rules`],
//! `check --rules FILE`), as [`Finding`]s, written as text, JSON or GitHub annotations
//! ([`Format`]).
//!
//! A finding is one kind of thing in one place: a check (its id, such as `speedup-force-0`),
//! a severity, a message naming the rule (for the gameplay checks, the DDNet source that
//! decides it), the layer when it is about one, and every tile it is about (`x`, `y` in tiles
//! of that layer). Tiles of one kind in one layer are one finding, so a map with 300 speedups
//! of force 0 gets one line, not 300.

pub mod ddnet;
pub mod rules;

use std::fmt::{self, Write as _};
use std::io::{self, Write};

use serde::{Deserialize, Serialize};
use twcodec::map::{ItemRef, Layer};
use twcodec::schema::map::layer::PhysicsKind;
use twcodec::Map;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; the map plays as meant.
    Note,
    /// Probably not what the mapper meant: something without effect, or misread.
    Warning,
    /// The map is broken for players (no spawn), or a project rule says so.
    Error,
}

impl Severity {
    /// `note`, `warning` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The layer a finding is about, as `twcodec dump` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerPlace {
    /// The layer's index among the map's layers (`layer #N`).
    pub index: usize,
    /// Its name.
    pub name: String,
    /// Its kind (`game`, `front`, `tele`, ...).
    pub kind: &'static str,
}

impl LayerPlace {
    /// The place of layer `layer` of `map`.
    pub fn of(map: &Map, layer: ItemRef<Layer>) -> Option<LayerPlace> {
        let l = map.get(layer)?;
        Some(LayerPlace {
            index: layer.index(),
            name: l.name(),
            kind: l.kind_name(),
        })
    }
}

impl fmt::Display for LayerPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} layer #{} {:?}", self.kind, self.index, self.name)
    }
}

/// One kind of thing found in one place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Finding {
    /// The check's id (`speedup-force-0`, `limits.max-width`, `load`).
    pub check: String,
    /// How much it matters.
    pub severity: Severity,
    /// What is wrong and the rule that says so.
    pub message: String,
    /// The layer, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer: Option<LayerPlace>,
    /// The tiles it is about, `[x, y]` in the layer's tiles, row by row.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tiles: Vec<[u32; 2]>,
}

impl Finding {
    /// A finding about the whole map.
    pub fn new(check: impl Into<String>, severity: Severity, message: impl Into<String>) -> Self {
        Finding {
            check: check.into(),
            severity,
            message: message.into(),
            layer: None,
            tiles: Vec::new(),
        }
    }

    /// The same finding about `layer`.
    pub fn in_layer(mut self, layer: Option<LayerPlace>) -> Self {
        self.layer = layer;
        self
    }

    /// The same finding about `tiles`.
    pub fn at(mut self, tiles: Vec<[u32; 2]>) -> Self {
        self.tiles = tiles;
        self
    }

    /// The finding as one line of text (without the file): `warning: tele layer #5 "Tele":
    /// 3 tiles at 4,5 6,7 9,9: MESSAGE [CHECK]`, the first [`SHOWN_TILES`] tiles named.
    pub fn text(&self) -> String {
        let mut line = format!("{}: ", self.severity);
        if let Some(layer) = &self.layer {
            let _ = write!(line, "{layer}: ");
        }
        if !self.tiles.is_empty() {
            let n = self.tiles.len();
            let _ = write!(
                line,
                "{} at",
                if n == 1 {
                    "1 tile".into()
                } else {
                    format!("{n} tiles")
                }
            );
            for [x, y] in self.tiles.iter().take(SHOWN_TILES) {
                let _ = write!(line, " {x},{y}");
            }
            if n > SHOWN_TILES {
                let _ = write!(line, " (+{} more)", n - SHOWN_TILES);
            }
            line.push_str(": ");
        }
        line.push_str(&self.message);
        // What the reader finds reads as plain `check` always wrote it.
        if self.check != "load" {
            let _ = write!(line, " [{}]", self.check);
        }
        line
    }

    /// The finding as a GitHub Actions workflow command (`::warning file=F,title=T::MESSAGE`),
    /// a note as `::notice`, escaped as GitHub asks.
    pub fn github(&self, file: &str) -> String {
        let command = match self.severity {
            Severity::Note => "notice",
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        let text = self.text();
        let text = text
            .split_once(": ")
            .map_or(text.as_str(), |(_, rest)| rest);
        format!(
            "::{command} file={},title={}::{}",
            escape_property(file),
            escape_property(&format!("twcodec check {}", self.check)),
            escape_data(text)
        )
    }
}

/// How many tiles a text line names before `(+N more)`.
pub const SHOWN_TILES: usize = 8;

fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The findings of a map that the reader and resolver report (what plain `check` shows), as
/// findings of check `load`: DDNet refuses the errors.
pub fn load_findings(map: &Map) -> Vec<Finding> {
    (map.problems().iter())
        .map(|problem| {
            let severity = match problem.severity {
                twcodec::map::Severity::Error => Severity::Error,
                twcodec::map::Severity::Warning => Severity::Warning,
            };
            Finding::new("load", severity, problem.to_string())
        })
        .collect()
}

/// How `twcodec check` writes what it found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// A line per finding, naming the file, as compilers write.
    #[default]
    Text,
    /// One JSON document: `{"maps": [{"file", "errors", "warnings", "notes", "findings"}]}`.
    Json,
    /// GitHub Actions annotations, a workflow command per finding.
    Github,
}

/// What was found in one map, for [`write_json`].
#[derive(Debug, Clone, Serialize)]
pub struct MapFindings {
    /// The map's path, as given.
    pub file: String,
    /// Why it could not be read, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
    /// Findings of severity error.
    pub errors: usize,
    /// Findings of severity warning.
    pub warnings: usize,
    /// Findings of severity note.
    pub notes: usize,
    /// What was found, in the order the checks ran.
    pub findings: Vec<Finding>,
}

impl MapFindings {
    /// The findings of `file`, counted.
    pub fn new(file: impl Into<String>, findings: Vec<Finding>) -> MapFindings {
        let count = |s| findings.iter().filter(|f| f.severity == s).count();
        MapFindings {
            file: file.into(),
            unreadable: None,
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            notes: count(Severity::Note),
            findings,
        }
    }

    /// A map that could not be read, and why.
    pub fn unreadable(file: impl Into<String>, why: impl Into<String>) -> MapFindings {
        MapFindings {
            file: file.into(),
            unreadable: Some(why.into()),
            errors: 1,
            warnings: 0,
            notes: 0,
            findings: Vec::new(),
        }
    }
}

/// Writes every map's findings as one JSON document.
pub fn write_json(maps: &[MapFindings], out: &mut dyn Write) -> io::Result<()> {
    #[derive(Serialize)]
    struct Document<'a> {
        maps: &'a [MapFindings],
    }
    serde_json::to_writer_pretty(&mut *out, &Document { maps })?;
    writeln!(out)
}

/// The physics layers DDNet plays with: the last of each kind in the groups, as
/// `CLayers::Init` visits them (group by group, a layer of several groups once per group). Found
/// from the end, so that groups sharing thousands of layers cost one look at each (group,
/// layer) pair and nothing more.
pub(crate) fn played_layers(map: &Map) -> Vec<(PhysicsKind, ItemRef<Layer>)> {
    use twcodec::map::{Group, LayerContent};
    let mut found: Vec<(PhysicsKind, ItemRef<Layer>)> = Vec::new();
    for group in map.refs::<Group>().rev() {
        let Some(group) = map.get(group) else {
            continue;
        };
        let layers: Vec<ItemRef<Layer>> = group.layers(map).collect();
        for r in layers.into_iter().rev() {
            let kind = match map.get(r).map(Layer::content) {
                Some(LayerContent::Game(_)) => PhysicsKind::Game,
                Some(LayerContent::Front(_)) => PhysicsKind::Front,
                Some(LayerContent::Tele(_)) => PhysicsKind::Tele,
                Some(LayerContent::Speedup(_)) => PhysicsKind::Speedup,
                Some(LayerContent::Switch(_)) => PhysicsKind::Switch,
                Some(LayerContent::Tune(_)) => PhysicsKind::Tune,
                _ => continue,
            };
            if !found.iter().any(|(k, _)| *k == kind) {
                found.push((kind, r));
                if found.len() == 6 {
                    return found;
                }
            }
        }
    }
    found
}

/// Tiles of a grid for which `keep(x, y, tile)` holds, as `[x, y]`, row by row.
pub(crate) fn tiles_where<T: Copy>(
    grid: &twcodec::map::Grid<T>,
    mut keep: impl FnMut(usize, usize, &T) -> bool,
) -> Vec<[u32; 2]> {
    let width = grid.width().max(1);
    (grid.tiles().iter().enumerate())
        .filter(|(i, t)| keep(i % width, i / width, t))
        .map(|(i, _)| [(i % width) as u32, (i / width) as u32])
        .collect()
}

/// The tiles of a grid for which `keep(x, y, tile)` holds, grouped by `key(tile)` (an id, a
/// number), each group row by row: one finding per key.
pub(crate) fn tiles_by<T: Copy, K: Ord>(
    grid: &twcodec::map::Grid<T>,
    mut keep: impl FnMut(usize, usize, &T) -> bool,
    key: impl Fn(&T) -> K,
) -> std::collections::BTreeMap<K, Vec<[u32; 2]>> {
    let width = grid.width().max(1);
    let mut groups = std::collections::BTreeMap::<K, Vec<[u32; 2]>>::new();
    for (i, tile) in grid.tiles().iter().enumerate() {
        let (x, y) = (i % width, i / width);
        if keep(x, y, tile) {
            groups
                .entry(key(tile))
                .or_default()
                .push([x as u32, y as u32]);
        }
    }
    groups
}
