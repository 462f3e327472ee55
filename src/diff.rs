//! A semantic diff of two maps: what was added, removed and changed, named by its place in the
//! map, in the units people think in.
//!
//! [`diff`] compares two [`Map`]s (any source: files, resaves, edits) and gives a [`MapDiff`]:
//! sections named by place (`info`, `image #1 "checker"`, `group #1 "Game" / layer #3
//! "Front"`), each with its [`Change`]s. [`MapDiff::write_text`] renders it as the CLI's
//! `twcodec diff` prints it; it serializes as JSON with serde.
//!
//! # Matching
//! Settings, images, sounds, envelopes, envelope points, groups and the layers of a matched
//! group are matched by a longest common subsequence of their keys (text, name, name and kind,
//! time), and what is left between two matched items is paired by position: an insertion in the
//! middle is one addition, a rename is a change of name, and a list with one item replaced at
//! each position reads as changes. A layer removed in one place and added with the same kind
//! and name in another is reported as moved. Quads, sound sources, auto-mappers and tiles are
//! matched by index (position); items twcodec does not model by type and id.
//!
//! # Units
//! Positions of quads, sound sources and position envelopes are shown in tiles (the raw value
//! is fixed point 22.10 in world units, a tile is 32 world units), group offsets and clips in
//! world units, colors as 0..1 (quad and layer colors are stored 0..255, envelope colors 22.10),
//! rotations in degrees, times and time offsets in seconds, texture coordinates as 0..1 of the
//! image; references by the index and name of what they point at. Where a value is shown in a
//! unit that could hide a difference (a color out of 0..255), the raw value follows.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use serde::Serialize;
use twcodec_schema::map::common::Point;
use twcodec_schema::map::envelope::{EnvPoint, EnvPointBezier, EnvelopeKind};
use twcodec_schema::map::quad::Quad;
use twcodec_schema::map::sound::SoundSource;
use twcodec_schema::map::tile::{Speedup, Switch, Tele, Tile, TileFlags, Tune};

use crate::map::{Envelope, Grid, Group, Image, Layer, LayerContent, Ref, Sound};
use crate::units::{self, color255, fixed, ints, number, point_values, quoted, seconds, tiles};
use crate::Map;

/// How many changes a section lists before it says how many more there are.
pub const SECTION_LIMIT: usize = 200;

/// The differences between two maps, by place ([`diff`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MapDiff {
    /// The places that changed, in map order: the map, info, images, sounds, envelopes,
    /// groups each followed by its layers, auto-mappers, other items.
    pub sections: Vec<Section>,
}

/// The changes at one place of the map.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    /// Where: `image #1 "checker"`, `group #1 "Game" / layer #3 "Front"`. For a matched item,
    /// its place in the old map; for an added item, in the new map.
    pub place: String,
    /// What changed there.
    pub changes: Vec<Change>,
}

/// One change.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum Change {
    /// Something was added: the whole item of the section, or a part named in `what`.
    Added {
        /// What it is.
        what: String,
    },
    /// Something was removed.
    Removed {
        /// What it was.
        what: String,
    },
    /// The section's layer was moved here from another place.
    Moved {
        /// Its place in the old map.
        from: String,
    },
    /// A field changed.
    Field {
        /// Which (`name`, `quad #2 color[0]`, `point #3 time`).
        field: String,
        /// Before.
        old: String,
        /// After.
        new: String,
    },
    /// Tiles changed from `old` to `new` in the rectangle `x` by `y` (inclusive ranges): a
    /// single tile, a run in a row, or a rectangle of the same change.
    Tiles {
        /// First and last column.
        x: [usize; 2],
        /// First and last row.
        y: [usize; 2],
        /// The tile before.
        old: String,
        /// The tile after.
        new: String,
    },
    /// Pixels of an embedded image changed.
    Pixels {
        /// How many pixels differ.
        changed: usize,
        /// Of how many.
        of: usize,
        /// First and last column of the changed pixels.
        x: [usize; 2],
        /// First and last row of the changed pixels.
        y: [usize; 2],
    },
    /// More changes than the section lists.
    More {
        /// How many.
        count: usize,
        /// Of what (`changes`, `changed tiles`).
        what: String,
    },
    /// Something that could not be compared (content that does not decode).
    Note {
        /// What.
        text: String,
    },
}

impl MapDiff {
    /// Whether the maps are the same.
    pub fn is_empty(&self) -> bool {
        self.sections.is_empty()
    }

    /// The number of changes listed in every section.
    pub fn change_count(&self) -> usize {
        self.sections.iter().map(|s| s.changes.len()).sum()
    }

    /// Writes the diff as text: each place on a line, its changes indented below it. Nothing
    /// for two equal maps.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        for section in &self.sections {
            writeln!(out, "{}:", section.place)?;
            for change in &section.changes {
                writeln!(out, "  {change}")?;
            }
        }
        Ok(())
    }
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let range = |[a, b]: [usize; 2]| match a == b {
            true => a.to_string(),
            false => format!("{a}..={b}"),
        };
        match self {
            Change::Added { what } => write!(f, "added {what}"),
            Change::Removed { what } => write!(f, "removed {what}"),
            Change::Moved { from } => write!(f, "moved here from {from}"),
            Change::Field { field, old, new } => write!(f, "{field}: {old} -> {new}"),
            Change::Tiles { x, y, old, new } => {
                write!(f, "x {}, y {}: {old} -> {new}", range(*x), range(*y))
            }
            Change::Pixels { changed, of, x, y } => write!(
                f,
                "pixels: {changed} of {of} changed, in x {}, y {}",
                range(*x),
                range(*y)
            ),
            Change::More { count, what } => write!(f, "... and {count} more {what}"),
            Change::Note { text } => f.write_str(text),
        }
    }
}

/// The differences from map `a` (old) to map `b` (new). Content that does not decode (tiles,
/// pixels, sound data) is reported as a note rather than compared.
pub fn diff(a: &Map, b: &Map) -> MapDiff {
    let mut d = Differ {
        a,
        b,
        matched: Matched::default(),
        out: MapDiff::default(),
    };
    d.map();
    d.info();
    d.images();
    d.sounds();
    d.envelopes();
    d.groups_and_layers();
    d.automappers();
    d.others();
    d.out
}

struct Differ<'m> {
    a: &'m Map,
    b: &'m Map,
    matched: Matched,
    out: MapDiff,
}

/// The new index of each old image, envelope and sound matched with one.
#[derive(Default)]
struct Matched {
    images: Vec<Option<usize>>,
    envelopes: Vec<Option<usize>>,
    sounds: Vec<Option<usize>>,
}

/// References of one map as text: `image #3 "grass_main"`, `none`, `dangling image 7`.
struct Names<'m> {
    map: &'m Map,
    /// For the old map: the new map and the matches into it.
    other: Option<(&'m Map, &'m Matched)>,
}

impl Names<'_> {
    fn reference(
        &self,
        kind: &str,
        index: Option<usize>,
        raw: i32,
        matched: fn(&Matched) -> &[Option<usize>],
        name: fn(&Map, usize) -> Option<String>,
    ) -> String {
        let Some(index) = index else {
            return match raw < 0 {
                true => "none".into(),
                false => format!("dangling {kind} {raw}"),
            };
        };
        let (map, index) = match self.other {
            Some((other, m)) => match matched(m).get(index).copied().flatten() {
                Some(new) => (other, new),
                None => (self.map, index),
            },
            None => (self.map, index),
        };
        let name = name(map, index).unwrap_or_default();
        format!("{kind} {}", units::reference(Some((index, &name)), raw))
    }

    fn image(&self, r: Ref<Image>, raw: i32) -> String {
        let index = match r {
            Ref::To(r) => Some(r.index()),
            _ => None,
        };
        self.reference(
            "image",
            index,
            raw,
            |m| &m.images,
            |map, i| map.images().get(i).and_then(|image| image.name(map)),
        )
    }

    fn envelope(&self, raw: i32) -> String {
        let index = match self.map.envelope_ref(raw) {
            Ref::To(r) => Some(r.index()),
            _ => None,
        };
        self.reference(
            "envelope",
            index,
            raw,
            |m| &m.envelopes,
            |map, i| map.envelopes().get(i).map(|e| e.name()),
        )
    }

    fn sound(&self, r: Ref<Sound>, raw: i32) -> String {
        let index = match r {
            Ref::To(r) => Some(r.index()),
            _ => None,
        };
        self.reference(
            "sound",
            index,
            raw,
            |m| &m.sounds,
            |map, i| map.sounds().get(i).and_then(|sound| sound.name(map)),
        )
    }
}

/// A section being built, capped at [`SECTION_LIMIT`] changes.
struct SectionBuilder {
    place: String,
    changes: Vec<Change>,
    more: usize,
}

impl SectionBuilder {
    fn new(place: impl Into<String>) -> SectionBuilder {
        SectionBuilder {
            place: place.into(),
            changes: Vec::new(),
            more: 0,
        }
    }

    fn push(&mut self, change: Change) {
        if self.changes.len() < SECTION_LIMIT {
            self.changes.push(change);
        } else {
            self.more += 1;
        }
    }

    fn field(&mut self, field: impl Into<String>, old: String, new: String) {
        if old != new {
            self.push(Change::Field {
                field: field.into(),
                old,
                new,
            });
        }
    }

    /// Field changes between two lists of (name, value) pairs; a name in one list only is a
    /// change from or to `none`.
    fn fields(&mut self, prefix: &str, a: &[(&str, String)], b: &[(&str, String)]) {
        let none = || "none".to_string();
        for (name, old) in a {
            let new = b.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
            self.field(
                format!("{prefix}{name}"),
                old.clone(),
                new.unwrap_or_else(none),
            );
        }
        for (name, new) in b {
            if !a.iter().any(|(n, _)| n == name) {
                self.field(format!("{prefix}{name}"), none(), new.clone());
            }
        }
    }

    fn finish(mut self, out: &mut MapDiff) {
        if self.more > 0 {
            self.changes.push(Change::More {
                count: self.more,
                what: "changes".into(),
            });
        }
        if !self.changes.is_empty() {
            out.sections.push(Section {
                place: self.place,
                changes: self.changes,
            });
        }
    }
}

/// One step of an alignment of two lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pair {
    Both(usize, usize),
    Old(usize),
    New(usize),
}

/// Above this many key comparisons, lists are matched by position instead of by a longest
/// common subsequence.
const LCS_LIMIT: usize = 4_000_000;

/// Aligns two lists by a longest common subsequence of their keys, then pairs what is left
/// between two matches by position (see the module doc).
fn align<K: PartialEq>(a: &[K], b: &[K]) -> Vec<Pair> {
    let (n, m) = (a.len(), b.len());
    let matches: Vec<(usize, usize)> = if n.saturating_mul(m) > LCS_LIMIT {
        (0..n.min(m)).map(|i| (i, i)).collect()
    } else {
        // lcs[i][j]: the length of the LCS of a[i..] and b[j..].
        let width = m + 1;
        let mut lcs = vec![0u32; (n + 1) * width];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i * width + j] = if a[i] == b[j] {
                    lcs[(i + 1) * width + j + 1] + 1
                } else {
                    lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
                };
            }
        }
        let (mut i, mut j, mut matches) = (0, 0, Vec::new());
        while i < n && j < m {
            if a[i] == b[j] {
                matches.push((i, j));
                i += 1;
                j += 1;
            } else if lcs[(i + 1) * width + j] >= lcs[i * width + j + 1] {
                i += 1;
            } else {
                j += 1;
            }
        }
        matches
    };
    let mut pairs = Vec::new();
    let (mut i, mut j) = (0, 0);
    for (mi, mj) in matches.into_iter().chain([(n, m)]) {
        // The gap a[i..mi] / b[j..mj]: paired by position, the rest removed or added.
        let common = (mi - i).min(mj - j);
        pairs.extend((0..common).map(|k| Pair::Both(i + k, j + k)));
        pairs.extend((i + common..mi).map(Pair::Old));
        pairs.extend((j + common..mj).map(Pair::New));
        if mi < n && mj < m {
            pairs.push(Pair::Both(mi, mj));
        }
        (i, j) = (mi + 1, mj + 1);
    }
    pairs
}

/// Ints past what an item's version defines: `none` when there are none.
fn tail(values: &[i32]) -> String {
    match values.is_empty() {
        true => "none".into(),
        false => ints(values),
    }
}

/// An optional field: its value, or `none`.
fn opt<T: std::fmt::Debug>(value: Option<T>) -> String {
    value.map_or("none".into(), |v| format!("{v:?}"))
}

impl<'m> Differ<'m> {
    /// How the old map's references read: by the new map's index and name of the item each
    /// was matched with, so that a reference to the same item compares equal.
    fn old_names(&self) -> Names<'_> {
        Names {
            map: self.a,
            other: Some((self.b, &self.matched)),
        }
    }

    fn new_names(&self) -> Names<'_> {
        Names {
            map: self.b,
            other: None,
        }
    }

    fn map(&mut self) {
        let mut s = SectionBuilder::new("map");
        s.field(
            "form",
            format!("{:?}", self.a.form()),
            format!("{:?}", self.b.form()),
        );
        s.field("version item", opt(self.a.version()), opt(self.b.version()));
        s.finish(&mut self.out);
    }

    fn info(&mut self) {
        let mut s = SectionBuilder::new("info");
        let text = |t: Option<String>| t.map_or("none".into(), |t| quoted(&t));
        let fields = |map: &Map| -> Vec<(&str, String)> {
            let Some(info) = map.info() else {
                return Vec::new();
            };
            let item = info.item();
            vec![
                ("author", text(info.author(map))),
                ("map version", text(info.map_version(map))),
                ("credits", text(info.credits(map))),
                ("license", text(info.license(map))),
                ("item version", item.version.to_string()),
                ("unknown tail", tail(&item.unknown_tail)),
            ]
        };
        match (self.a.info().is_some(), self.b.info().is_some()) {
            (true, false) => s.push(Change::Removed {
                what: "the info item".into(),
            }),
            (false, true) => s.push(Change::Added {
                what: "the info item".into(),
            }),
            _ => {}
        }
        s.fields("", &fields(self.a), &fields(self.b));
        let settings = |map: &Map| -> Result<Vec<String>, String> {
            match map.info() {
                None => Ok(Vec::new()),
                Some(info) => (info.settings(map).map(|s| s.to_vec())).map_err(|e| e.to_string()),
            }
        };
        match (settings(self.a), settings(self.b)) {
            (Ok(a), Ok(b)) => {
                for pair in align(&a, &b) {
                    match pair {
                        Pair::Both(i, j) => {
                            let field = match i == j {
                                true => format!("setting #{i}"),
                                false => format!("setting #{i} (now #{j})"),
                            };
                            s.field(field, quoted(&a[i]), quoted(&b[j]));
                        }
                        Pair::Old(i) => s.push(Change::Removed {
                            what: format!("setting #{i} {}", quoted(&a[i])),
                        }),
                        Pair::New(j) => s.push(Change::Added {
                            what: format!("setting #{j} {}", quoted(&b[j])),
                        }),
                    }
                }
            }
            (a, b) if a != b => s.push(Change::Note {
                text: format!(
                    "settings cannot be compared: {}",
                    a.err().or(b.err()).unwrap_or_default()
                ),
            }),
            _ => {}
        }
        s.finish(&mut self.out);
    }

    fn image_fields(map: &Map, image: &Image) -> Vec<(&'static str, String)> {
        let item = image.item();
        let kind = match image.is_external() {
            true => "external",
            false => "embedded",
        };
        vec![
            ("name", quoted(&image.name(map).unwrap_or_default())),
            ("kind", kind.to_string()),
            ("size", format!("{}x{}", item.width, item.height)),
            ("format", opt(item.format)),
            ("item version", item.version.to_string()),
            ("unknown tail", tail(&item.unknown_tail)),
        ]
    }

    /// The fields that say what an added or removed item is.
    fn summary(fields: &[(&str, String)]) -> String {
        const SUMMARY: [&str; 16] = [
            "kind",
            "size",
            "data",
            "points",
            "offset",
            "parallax",
            "clip",
            "image",
            "quads",
            "sources",
            "sound",
            "color envelope",
            "layer",
            "config",
            "seed",
            "ints",
        ];
        let mut text = String::new();
        for (name, value) in fields {
            if SUMMARY.contains(name) && value != "none" {
                if !text.is_empty() {
                    text.push_str(", ");
                }
                // A reference names its kind once: `color envelope #2 "pulse"`.
                let kind = value.split(' ').next().unwrap_or_default();
                match name.ends_with(kind) && value.contains('#') {
                    true => {
                        let _ = write!(text, "{name}{}", &value[kind.len()..]);
                    }
                    false => {
                        let _ = write!(text, "{name} {value}");
                    }
                }
            }
        }
        text
    }

    fn images(&mut self) {
        let (a, b) = (self.a, self.b);
        let keys = |map: &Map| -> Vec<String> {
            (map.images().iter())
                .map(|i| i.name(map).unwrap_or_default())
                .collect()
        };
        for pair in align(&keys(a), &keys(b)) {
            let place = |map: &Map, i: usize| {
                let name = map.images().get(i).and_then(|img| img.name(map));
                format!("image #{i} {}", quoted(&name.unwrap_or_default()))
            };
            match pair {
                Pair::Old(i) => self.whole(place(a, i), false, || {
                    a.images().get(i).map(|img| Self::image_fields(a, img))
                }),
                Pair::New(j) => self.whole(place(b, j), true, || {
                    b.images().get(j).map(|img| Self::image_fields(b, img))
                }),
                Pair::Both(i, j) => {
                    set(&mut self.matched.images, i, j);
                    let (Some(old), Some(new)) = (a.images().get(i), b.images().get(j)) else {
                        continue;
                    };
                    let mut s = SectionBuilder::new(place(a, i));
                    s.fields("", &Self::image_fields(a, old), &Self::image_fields(b, new));
                    if !old.is_external() && !new.is_external() {
                        pixels(&mut s, a, old, b, new);
                    }
                    s.finish(&mut self.out);
                }
            }
        }
    }

    /// A section for a whole item added or removed, with a summary of its first fields.
    fn whole(
        &mut self,
        place: String,
        added: bool,
        fields: impl FnOnce() -> Option<Vec<(&'static str, String)>>,
    ) {
        let what = fields().map_or_else(String::new, |f| Self::summary(&f));
        let what = match what.is_empty() {
            true => "this".to_string(),
            false => format!("({what})"),
        };
        let change = match added {
            true => Change::Added { what },
            false => Change::Removed { what },
        };
        let mut s = SectionBuilder::new(place);
        s.push(change);
        s.finish(&mut self.out);
    }

    fn sound_fields(map: &Map, sound: &Sound) -> Vec<(&'static str, String)> {
        let item = sound.item();
        let data = match item.external != 0 {
            true => "external".to_string(),
            false => match sound.data(map) {
                Ok(bytes) => format!(
                    "{} bytes, crc32 {:08x}",
                    bytes.len(),
                    crc32fast::hash(&bytes)
                ),
                Err(error) => format!("unreadable ({error})"),
            },
        };
        vec![
            ("name", quoted(&sound.name(map).unwrap_or_default())),
            ("data", data),
            ("item version", item.version.to_string()),
            ("data size field", item.data_size.to_string()),
            ("unknown tail", tail(&item.unknown_tail)),
        ]
    }

    fn sounds(&mut self) {
        let (a, b) = (self.a, self.b);
        let keys = |map: &Map| -> Vec<String> {
            (map.sounds().iter())
                .map(|s| s.name(map).unwrap_or_default())
                .collect()
        };
        for pair in align(&keys(a), &keys(b)) {
            let place = |map: &Map, i: usize| {
                let name = map.sounds().get(i).and_then(|s| s.name(map));
                format!("sound #{i} {}", quoted(&name.unwrap_or_default()))
            };
            match pair {
                Pair::Old(i) => self.whole(place(a, i), false, || {
                    a.sounds().get(i).map(|s| Self::sound_fields(a, s))
                }),
                Pair::New(j) => self.whole(place(b, j), true, || {
                    b.sounds().get(j).map(|s| Self::sound_fields(b, s))
                }),
                Pair::Both(i, j) => {
                    set(&mut self.matched.sounds, i, j);
                    let (Some(old), Some(new)) = (a.sounds().get(i), b.sounds().get(j)) else {
                        continue;
                    };
                    let mut s = SectionBuilder::new(place(a, i));
                    s.fields("", &Self::sound_fields(a, old), &Self::sound_fields(b, new));
                    s.finish(&mut self.out);
                }
            }
        }
    }

    fn envelope_fields(env: &Envelope) -> Vec<(&'static str, String)> {
        let item = env.item();
        vec![
            ("name", quoted(&env.name())),
            ("kind", format!("{:?}", item.kind())),
            ("points", item.num_points.to_string()),
            ("synchronized", opt(item.synchronized.map(|s| s != 0))),
            ("item version", item.version.to_string()),
            ("unknown tail", tail(&item.unknown_tail)),
        ]
    }

    fn envelopes(&mut self) {
        let (a, b) = (self.a, self.b);
        let keys = |map: &Map| -> Vec<(String, EnvelopeKind)> {
            (map.envelopes().iter())
                .map(|e| (e.name(), e.item().kind()))
                .collect()
        };
        for pair in align(&keys(a), &keys(b)) {
            let place = |map: &Map, i: usize| {
                let name = map.envelopes().get(i).map(|e| e.name());
                format!("envelope #{i} {}", quoted(&name.unwrap_or_default()))
            };
            match pair {
                Pair::Old(i) => self.whole(place(a, i), false, || {
                    a.envelopes().get(i).map(Self::envelope_fields)
                }),
                Pair::New(j) => self.whole(place(b, j), true, || {
                    b.envelopes().get(j).map(Self::envelope_fields)
                }),
                Pair::Both(i, j) => {
                    set(&mut self.matched.envelopes, i, j);
                    let (Some(old), Some(new)) = (a.envelopes().get(i), b.envelopes().get(j))
                    else {
                        continue;
                    };
                    let mut s = SectionBuilder::new(place(a, i));
                    s.fields("", &Self::envelope_fields(old), &Self::envelope_fields(new));
                    let kind = new.item().kind();
                    let (pa, pb) = (old.points(a), new.points(b));
                    let (ba, bb) = (old.bezier(a), new.bezier(b));
                    let times = |points: &[EnvPoint]| -> Vec<i32> {
                        points.iter().map(|p| p.time).collect()
                    };
                    for pair in align(&times(pa), &times(pb)) {
                        match pair {
                            Pair::Both(i, j) => {
                                let (Some(p), Some(q)) = (pa.get(i), pb.get(j)) else {
                                    continue;
                                };
                                let fa = point_fields(p, ba.and_then(|b| b.get(i)), kind);
                                let fb = point_fields(q, bb.and_then(|b| b.get(j)), kind);
                                s.fields(&format!("point #{i} "), &fa, &fb);
                            }
                            Pair::Old(i) => {
                                if let Some(p) = pa.get(i) {
                                    let what = point_summary(i, p, kind);
                                    s.push(Change::Removed { what });
                                }
                            }
                            Pair::New(j) => {
                                if let Some(p) = pb.get(j) {
                                    let what = point_summary(j, p, kind);
                                    s.push(Change::Added { what });
                                }
                            }
                        }
                    }
                    s.finish(&mut self.out);
                }
            }
        }
    }

    fn group_fields(group: &Group) -> Vec<(&'static str, String)> {
        let item = group.item();
        let px = |p: Point| {
            format!(
                "({}, {}) world units ({}, {} tiles)",
                p.x,
                p.y,
                number(f64::from(p.x) / 32.0),
                number(f64::from(p.y) / 32.0)
            )
        };
        let clip = match item.clip {
            None => "none".to_string(),
            Some(c) if c.enabled == 0 && (c.x, c.y, c.width, c.height) == (0, 0, 0, 0) => {
                "off".to_string()
            }
            Some(c) => format!(
                "{}x {}, y {}, {}x{} world units",
                if c.enabled != 0 { "" } else { "off, " },
                c.x,
                c.y,
                c.width,
                c.height
            ),
        };
        vec![
            ("name", quoted(&group.name())),
            ("offset", px(item.offset)),
            (
                "parallax",
                format!("({}%, {}%)", item.parallax.x, item.parallax.y),
            ),
            ("clip", clip),
            ("item version", item.version.to_string()),
            ("unknown tail", tail(&item.unknown_tail)),
        ]
    }

    fn group_place(map: &Map, index: Option<usize>) -> String {
        match index {
            Some(g) => {
                let name = map.groups().get(g).map(|g| g.name()).unwrap_or_default();
                format!("group #{g} {}", quoted(&name))
            }
            None => "no group".to_string(),
        }
    }

    fn layer_place(map: &Map, group: Option<usize>, layer: usize) -> String {
        let name = map
            .layers()
            .get(layer)
            .map(|l| l.name())
            .unwrap_or_default();
        format!(
            "{} / layer #{layer} {}",
            Self::group_place(map, group),
            quoted(&name)
        )
    }

    /// Each group's layers (indices), then the layers of no group as a last list.
    fn group_layers(map: &Map) -> Vec<(Option<usize>, Vec<usize>)> {
        let mut lists: Vec<(Option<usize>, Vec<usize>)> = (map.group_refs())
            .map(|g| {
                let layers = map
                    .group(g)
                    .map(|group| group.layers(map).map(|l| l.index()));
                (Some(g.index()), layers.into_iter().flatten().collect())
            })
            .collect();
        let orphans: Vec<usize> = (map.layer_refs())
            .filter(|&l| map.group_of(l).is_none())
            .map(|l| l.index())
            .collect();
        if !orphans.is_empty() {
            lists.push((None, orphans));
        }
        lists
    }

    fn groups_and_layers(&mut self) {
        let (a, b) = (self.a, self.b);
        let (ga, gb) = (Self::group_layers(a), Self::group_layers(b));
        let group_key = |map: &Map, g: Option<usize>| -> Option<String> {
            g.map(|g| map.groups().get(g).map(|g| g.name()).unwrap_or_default())
        };
        let ka: Vec<_> = ga.iter().map(|(g, _)| group_key(a, *g)).collect();
        let kb: Vec<_> = gb.iter().map(|(g, _)| group_key(b, *g)).collect();
        let layer_key = |map: &Map, l: usize| -> (&'static str, String) {
            map.layers()
                .get(l)
                .map_or(("", String::new()), |l| (l.kind_name(), l.name()))
        };
        let groups = align(&ka, &kb);
        // Layer alignment within each pair of groups, before moves are found.
        let mut plans: Vec<(Pair, Vec<Pair>)> = Vec::new();
        for &pair in &groups {
            let layers = match pair {
                Pair::Both(i, j) => {
                    let la: Vec<_> = ga[i].1.iter().map(|&l| layer_key(a, l)).collect();
                    let lb: Vec<_> = gb[j].1.iter().map(|&l| layer_key(b, l)).collect();
                    align(&la, &lb)
                }
                Pair::Old(i) => (0..ga[i].1.len()).map(Pair::Old).collect(),
                Pair::New(j) => (0..gb[j].1.len()).map(Pair::New).collect(),
            };
            plans.push((pair, layers));
        }
        // Moves: a layer removed in one place and added with the same kind and name in another.
        let group_of = |pair: Pair| match pair {
            Pair::Both(i, j) => (Some(i), Some(j)),
            Pair::Old(i) => (Some(i), None),
            Pair::New(j) => (None, Some(j)),
        };
        let mut removed: Vec<usize> = Vec::new();
        let mut added: Vec<usize> = Vec::new();
        for (pair, layers) in &plans {
            let (gi, gj) = group_of(*pair);
            for layer in layers {
                match *layer {
                    Pair::Old(k) => removed.extend(gi.and_then(|g| ga[g].1.get(k)).copied()),
                    Pair::New(k) => added.extend(gj.and_then(|g| gb[g].1.get(k)).copied()),
                    Pair::Both(..) => {}
                }
            }
        }
        let mut moved_from: HashMap<usize, usize> = HashMap::new();
        let mut moved_away: Vec<bool> = vec![false; a.layers().len()];
        for &new in &added {
            let key = layer_key(b, new);
            if let Some(&old) = (removed.iter()).find(|&&old| {
                // An unnamed layer counts as moved only with the same content.
                let same = || match (a.layers().get(old), b.layers().get(new)) {
                    (Some(x), Some(y)) => !key.1.is_empty() || x.content() == y.content(),
                    _ => false,
                };
                !moved_away.get(old).copied().unwrap_or(true) && layer_key(a, old) == key && same()
            }) {
                if let Some(flag) = moved_away.get_mut(old) {
                    *flag = true;
                }
                moved_from.insert(new, old);
            }
        }
        let group_index_a = |l: usize| a.layer_refs().nth(l).and_then(|r| a.group_of(r));
        for (pair, layers) in plans {
            let (gi, gj) = group_of(pair);
            let (group_a, group_b) = (gi.and_then(|i| ga[i].0), gj.and_then(|j| gb[j].0));
            match pair {
                Pair::Both(..) => {
                    if let (Some(x), Some(y)) = (group_a, group_b) {
                        if let (Some(old), Some(new)) = (a.groups().get(x), b.groups().get(y)) {
                            let mut s = SectionBuilder::new(Self::group_place(a, group_a));
                            s.fields("", &Self::group_fields(old), &Self::group_fields(new));
                            s.finish(&mut self.out);
                        }
                    }
                }
                Pair::Old(_) => self.whole(Self::group_place(a, group_a), false, || {
                    group_a.and_then(|g| a.groups().get(g).map(Self::group_fields))
                }),
                Pair::New(_) => self.whole(Self::group_place(b, group_b), true, || {
                    group_b.and_then(|g| b.groups().get(g).map(Self::group_fields))
                }),
            }
            for layer in layers {
                let old = |k: usize| gi.and_then(|g| ga[g].1.get(k)).copied();
                let new = |k: usize| gj.and_then(|g| gb[g].1.get(k)).copied();
                match layer {
                    Pair::Both(k, l) => {
                        if let (Some(la), Some(lb)) = (old(k), new(l)) {
                            let place = Self::layer_place(a, group_a, la);
                            self.layer(place, la, lb, None);
                        }
                    }
                    Pair::Old(k) => {
                        if let Some(la) = old(k).filter(|&la| !moved_away[la]) {
                            let place = Self::layer_place(a, group_a, la);
                            self.whole(place, false, || {
                                a.layers().get(la).map(|l| {
                                    layer_fields(
                                        &Names {
                                            map: a,
                                            other: None,
                                        },
                                        l,
                                    )
                                })
                            });
                        }
                    }
                    Pair::New(l) => {
                        let Some(lb) = new(l) else { continue };
                        let place = Self::layer_place(b, group_b, lb);
                        match moved_from.get(&lb) {
                            Some(&la) => {
                                let from = (group_index_a(la)).map(|g| g.index());
                                let from = Self::layer_place(a, from, la);
                                self.layer(place, la, lb, Some(from));
                            }
                            None => self.whole(place, true, || {
                                b.layers().get(lb).map(|l| {
                                    layer_fields(
                                        &Names {
                                            map: b,
                                            other: None,
                                        },
                                        l,
                                    )
                                })
                            }),
                        }
                    }
                }
            }
        }
    }

    /// The changes of a matched (or moved) layer.
    fn layer(&mut self, place: String, la: usize, lb: usize, moved: Option<String>) {
        let (a, b) = (self.a, self.b);
        let (Some(old), Some(new)) = (a.layers().get(la), b.layers().get(lb)) else {
            return;
        };
        let mut s = SectionBuilder::new(place);
        if let Some(from) = moved {
            s.push(Change::Moved { from });
        }
        s.fields(
            "",
            &layer_fields(&self.old_names(), old),
            &layer_fields(&self.new_names(), new),
        );
        match (old.content(), new.content()) {
            (LayerContent::Tiles(x), LayerContent::Tiles(y))
            | (LayerContent::Game(x), LayerContent::Game(y))
            | (LayerContent::Front(x), LayerContent::Front(y)) => {
                grid_diff(&mut s, x.grid(), y.grid())
            }
            (LayerContent::Tele(x), LayerContent::Tele(y)) => grid_diff(&mut s, x.grid(), y.grid()),
            (LayerContent::Speedup(x), LayerContent::Speedup(y)) => {
                grid_diff(&mut s, x.grid(), y.grid())
            }
            (LayerContent::Switch(x), LayerContent::Switch(y)) => {
                grid_diff(&mut s, x.grid(), y.grid())
            }
            (LayerContent::Tune(x), LayerContent::Tune(y)) => grid_diff(&mut s, x.grid(), y.grid()),
            (LayerContent::Quads(x), LayerContent::Quads(y)) => match (x.quads(), y.quads()) {
                (Some(qa), Some(qb)) => self.quads(&mut s, qa, qb),
                (qa, qb) => undecoded(&mut s, "quads", qa.is_some(), qb.is_some()),
            },
            (LayerContent::Sounds(x), LayerContent::Sounds(y)) => {
                match (x.sources(), y.sources()) {
                    (Some(sa), Some(sb)) => self.sources(&mut s, sa, sb),
                    (sa, sb) => undecoded(&mut s, "sound sources", sa.is_some(), sb.is_some()),
                }
            }
            (LayerContent::Unknown(x), LayerContent::Unknown(y)) => int_diff(&mut s, "int", x, y),
            // Another kind: the `kind` field says so; the contents are not compared.
            _ => {}
        }
        s.finish(&mut self.out);
    }

    fn quads(&self, s: &mut SectionBuilder, qa: &[Quad], qb: &[Quad]) {
        for index in 0..qa.len().max(qb.len()) {
            match (qa.get(index), qb.get(index)) {
                (Some(p), Some(q)) if p == q => {}
                (Some(p), Some(q)) => {
                    let prefix = format!("quad #{index} ");
                    let (pa, pb) = (&p.points, &q.points);
                    let dx = pb[4].x.wrapping_sub(pa[4].x);
                    let dy = pb[4].y.wrapping_sub(pa[4].y);
                    let shifted = (pa.iter().zip(pb.iter()))
                        .all(|(u, v)| v.x.wrapping_sub(u.x) == dx && v.y.wrapping_sub(u.y) == dy);
                    if shifted && (dx, dy) != (0, 0) {
                        s.push(Change::Field {
                            field: format!("{prefix}position"),
                            old: format!("pivot {} tiles", tiles(pa[4])),
                            new: format!(
                                "pivot {} tiles (moved by {} tiles)",
                                tiles(pb[4]),
                                tiles(Point { x: dx, y: dy })
                            ),
                        });
                    }
                    let fa = quad_fields(&self.old_names(), p, shifted);
                    let fb = quad_fields(&self.new_names(), q, shifted);
                    s.fields(&prefix, &fa, &fb);
                }
                (Some(p), None) => s.push(Change::Removed {
                    what: format!("quad #{index} {}", quad_summary(p)),
                }),
                (None, Some(q)) => s.push(Change::Added {
                    what: format!("quad #{index} {}", quad_summary(q)),
                }),
                (None, None) => {}
            }
        }
    }

    fn sources(&self, s: &mut SectionBuilder, sa: &[SoundSource], sb: &[SoundSource]) {
        for index in 0..sa.len().max(sb.len()) {
            match (sa.get(index), sb.get(index)) {
                (Some(p), Some(q)) if p == q => {}
                (Some(p), Some(q)) => {
                    let fa = source_fields(&self.old_names(), p);
                    let fb = source_fields(&self.new_names(), q);
                    s.fields(&format!("source #{index} "), &fa, &fb);
                }
                (Some(p), None) => s.push(Change::Removed {
                    what: format!("source #{index} at {} tiles", tiles(p.position)),
                }),
                (None, Some(q)) => s.push(Change::Added {
                    what: format!("source #{index} at {} tiles", tiles(q.position)),
                }),
                (None, None) => {}
            }
        }
    }

    fn automappers(&mut self) {
        let (a, b) = (self.a, self.b);
        let (ma, mb) = (a.automappers(), b.automappers());
        let fields = |map: &Map, i: usize| -> Vec<(&'static str, String)> {
            let Some(am) = map.automappers().get(i) else {
                return Vec::new();
            };
            let item = am.item();
            let layer = match am.layer(map) {
                Some(l) => {
                    let group = map.group_of(l).map(|g| g.index());
                    Self::layer_place(map, group, l.index())
                }
                None => format!("group {} layer {} (none there)", item.group, item.layer),
            };
            vec![
                ("layer", layer),
                ("config", item.config.to_string()),
                ("seed", item.seed.to_string()),
                ("automatic", item.flags.automatic().to_string()),
                ("item version", item.version.to_string()),
                ("unknown tail", tail(&item.unknown_tail)),
            ]
        };
        for index in 0..ma.len().max(mb.len()) {
            let place = format!("automapper #{index}");
            match (index < ma.len(), index < mb.len()) {
                (true, true) => {
                    let mut s = SectionBuilder::new(place);
                    s.fields("", &fields(a, index), &fields(b, index));
                    s.finish(&mut self.out);
                }
                (true, false) => self.whole(place, false, || Some(fields(a, index))),
                (false, true) => self.whole(place, true, || Some(fields(b, index))),
                (false, false) => {}
            }
        }
    }

    fn others(&mut self) {
        let (a, b) = (self.a, self.b);
        let key = |o: &crate::map::OtherItem| (o.type_id, o.id, o.uuid);
        let place = |o: &crate::map::OtherItem| match o.uuid {
            Some(uuid) => format!("item type {} ({uuid}) id {}", o.type_id, o.id),
            None => format!("item type {} id {}", o.type_id, o.id),
        };
        for o in a.other_items() {
            match b.other_items().iter().find(|p| key(p) == key(o)) {
                Some(p) => {
                    let mut s = SectionBuilder::new(place(o));
                    int_diff(&mut s, "int", &o.ints, &p.ints);
                    s.finish(&mut self.out);
                }
                None => self.whole(place(o), false, || {
                    Some(vec![("ints", o.ints.len().to_string())])
                }),
            }
        }
        for p in b.other_items() {
            if !a.other_items().iter().any(|o| key(o) == key(p)) {
                self.whole(place(p), true, || {
                    Some(vec![("ints", p.ints.len().to_string())])
                });
            }
        }
    }
}

/// Records that old item `i` is new item `j`.
fn set(matched: &mut Vec<Option<usize>>, i: usize, j: usize) {
    if matched.len() <= i {
        matched.resize(i + 1, None);
    }
    matched[i] = Some(j);
}

fn undecoded(s: &mut SectionBuilder, what: &str, a: bool, b: bool) {
    let which = match (a, b) {
        (false, false) => "either map",
        (false, true) => "the old map",
        _ => "the new map",
    };
    s.push(Change::Note {
        text: format!("{what} cannot be compared: they do not decode in {which}"),
    });
}

/// Changed ints by position, and a change of length.
fn int_diff(s: &mut SectionBuilder, what: &str, a: &[i32], b: &[i32]) {
    if a.len() != b.len() {
        s.field(format!("{what}s"), a.len().to_string(), b.len().to_string());
    }
    for (index, (x, y)) in a.iter().zip(b).enumerate() {
        s.field(format!("{what} #{index}"), x.to_string(), y.to_string());
    }
}

fn point_fields(
    p: &EnvPoint,
    bezier: Option<&EnvPointBezier>,
    kind: EnvelopeKind,
) -> Vec<(&'static str, String)> {
    let mut fields = vec![
        ("time", seconds(p.time)),
        ("curve", format!("{:?}", p.curve())),
        ("values", point_values(p, kind)),
    ];
    if let Some(t) = bezier {
        fields.push((
            "bezier tangents (in dx, in dy, out dx, out dy; raw)",
            format!(
                "{} {} {} {}",
                ints(&t.in_tangent_dx),
                ints(&t.in_tangent_dy),
                ints(&t.out_tangent_dx),
                ints(&t.out_tangent_dy)
            ),
        ));
    }
    fields
}

fn point_summary(index: usize, p: &EnvPoint, kind: EnvelopeKind) -> String {
    format!(
        "point #{index} at {} ({:?}): {}",
        seconds(p.time),
        p.curve(),
        point_values(p, kind)
    )
}

/// Fields every layer has, and those of its kind (not its content).
fn layer_fields(names: &Names, layer: &Layer) -> Vec<(&'static str, String)> {
    let map = names.map;
    let header = layer.header();
    let mut fields = vec![
        ("kind", layer.kind_name().to_string()),
        ("name", quoted(&layer.name())),
        ("detail", layer.is_detail().to_string()),
        ("layer version", header.version.to_string()),
        ("flags (raw)", format!("{:#x}", header.flags.unknown() << 1)),
    ];
    if let Some(t) = layer.tilemap() {
        fields.extend([
            ("size", format!("{}x{} tiles", t.width, t.height)),
            ("color", color255(t.color)),
            ("color envelope", names.envelope(t.color_envelope)),
            ("color envelope offset", seconds(t.color_envelope_offset)),
            ("tilemap version", t.version.to_string()),
            ("unknown tail", tail(&t.unknown_tail)),
        ]);
        if !layer.is_physics() {
            fields.push(("image", names.image(layer.image(map), t.image)));
        }
    }
    match layer.content() {
        LayerContent::Quads(q) => {
            let item = q.item();
            fields.extend([
                ("image", names.image(layer.image(map), item.image)),
                (
                    "quads",
                    q.quads()
                        .map_or(item.num_quads, |q| q.len() as i32)
                        .to_string(),
                ),
                ("quads version", item.version.to_string()),
                ("unknown tail", tail(&item.unknown_tail)),
            ]);
        }
        LayerContent::Sounds(x) => {
            let item = x.item();
            fields.extend([
                ("sound", names.sound(x.sound(map), item.sound)),
                (
                    "sources",
                    x.sources()
                        .map_or(item.num_sources, |s| s.len() as i32)
                        .to_string(),
                ),
                ("sounds version", item.version.to_string()),
                ("unknown tail", tail(&item.unknown_tail)),
            ]);
        }
        _ => {}
    }
    fields
}

fn quad_summary(q: &Quad) -> String {
    format!("at {} tiles", tiles(q.points[4]))
}

fn quad_fields(names: &Names, q: &Quad, skip_position: bool) -> Vec<(&'static str, String)> {
    const CORNERS: [&str; 4] = ["corner 0", "corner 1", "corner 2", "corner 3"];
    const COLORS: [&str; 4] = ["color 0", "color 1", "color 2", "color 3"];
    const UV: [&str; 4] = [
        "texture coords 0",
        "texture coords 1",
        "texture coords 2",
        "texture coords 3",
    ];
    let mut fields = Vec::new();
    if !skip_position {
        for (name, p) in CORNERS.iter().zip(q.corners()) {
            fields.push((*name, format!("{} tiles", tiles(*p))));
        }
        fields.push(("pivot", format!("{} tiles", tiles(q.pivot()))));
    }
    for (name, c) in COLORS.iter().zip(&q.colors) {
        fields.push((*name, color255(*c)));
    }
    for (name, p) in UV.iter().zip(&q.texture_coords) {
        fields.push((*name, format!("({}, {})", fixed(p.x), fixed(p.y))));
    }
    fields.extend([
        ("position envelope", names.envelope(q.position_envelope)),
        (
            "position envelope offset",
            seconds(q.position_envelope_offset),
        ),
        ("color envelope", names.envelope(q.color_envelope)),
        ("color envelope offset", seconds(q.color_envelope_offset)),
    ]);
    fields
}

fn source_fields(names: &Names, s: &SoundSource) -> Vec<(&'static str, String)> {
    let shape = units::sound_shape(&s.shape);
    vec![
        ("position", format!("{} tiles", tiles(s.position))),
        ("looping", (s.looping != 0).to_string()),
        ("panning", (s.panning != 0).to_string()),
        ("delay", seconds(s.delay)),
        ("falloff", format!("{} of 255", s.falloff)),
        ("position envelope", names.envelope(s.position_envelope)),
        (
            "position envelope offset",
            seconds(s.position_envelope_offset),
        ),
        ("sound envelope", names.envelope(s.sound_envelope)),
        ("sound envelope offset", seconds(s.sound_envelope_offset)),
        ("shape", shape),
    ]
}

/// Pixels of two embedded images: the number changed and their bounding box, or a note.
fn pixels(s: &mut SectionBuilder, a: &Map, old: &Image, b: &Map, new: &Image) {
    let (pa, pb) = match (old.rgba8(a), new.rgba8(b)) {
        (Ok(pa), Ok(pb)) => (pa, pb),
        (pa, pb) => {
            if let Some(error) = pa.err().or(pb.err()) {
                s.push(Change::Note {
                    text: format!("pixels cannot be compared: {error}"),
                });
            }
            return;
        }
    };
    if (pa.width, pa.height) != (pb.width, pb.height) {
        // The size field says so (or the data's size does, below).
        if (old.item().width, old.item().height) == (new.item().width, new.item().height) {
            s.push(Change::Note {
                text: format!(
                    "pixels: {}x{} -> {}x{}",
                    pa.width, pa.height, pb.width, pb.height
                ),
            });
        }
        return;
    }
    let width = pa.width.max(1);
    let (mut changed, mut x0, mut y0, mut x1, mut y1) = (0, usize::MAX, usize::MAX, 0, 0);
    for (index, (p, q)) in (pa.bytes.chunks_exact(4))
        .zip(pb.bytes.chunks_exact(4))
        .enumerate()
    {
        if p != q {
            let (x, y) = (index % width, index / width);
            changed += 1;
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
    }
    if changed > 0 {
        s.push(Change::Pixels {
            changed,
            of: pa.width * pa.height,
            x: [x0, x1],
            y: [y0, y1],
        });
    }
}

/// How a tile of a kind reads in a diff.
trait TileText: Copy + PartialEq + bytemuck::Pod {
    fn text(&self) -> String;
}

/// A tile's flags by name, as the dump shows them (`x_flip|rotate`).
fn flags_text(flags: u8) -> String {
    TileFlags::from_byte(flags).names().join("|")
}

impl TileText for Tile {
    fn text(&self) -> String {
        let mut text = self.id.to_string();
        if self.flags != 0 {
            let _ = write!(text, " [{}]", flags_text(self.flags));
        }
        if self.skip != 0 {
            let _ = write!(text, " skip {}", self.skip);
        }
        if self.reserved != 0 {
            let _ = write!(text, " reserved {}", self.reserved);
        }
        text
    }
}

impl TileText for Tele {
    fn text(&self) -> String {
        format!("{} (tele {})", self.id, self.number)
    }
}

impl TileText for Speedup {
    fn text(&self) -> String {
        let mut text = format!(
            "{} (force {}, max speed {}, angle {}°)",
            self.id,
            self.force,
            self.max_speed,
            self.angle()
        );
        if self.reserved != 0 {
            let _ = write!(text, " reserved {}", self.reserved);
        }
        text
    }
}

impl TileText for Switch {
    fn text(&self) -> String {
        let mut text = format!("{} (switch {}, delay {})", self.id, self.number, self.delay);
        if self.flags != 0 {
            let _ = write!(text, " [{}]", flags_text(self.flags));
        }
        text
    }
}

impl TileText for Tune {
    fn text(&self) -> String {
        format!("{} (tune zone {})", self.id, self.number)
    }
}

/// Row `y` of a grid, its first `width` tiles.
fn row<T: Copy>(grid: &Grid<T>, y: usize, width: usize) -> &[T] {
    let start = y * grid.width();
    grid.tiles().get(start..start + width).unwrap_or(&[])
}

/// A rectangle of the same change.
struct Rect<T> {
    x: [usize; 2],
    y: [usize; 2],
    old: T,
    new: T,
}

/// Changed tiles of two grids (over the area both cover; a size change is a field change),
/// as runs and rectangles of the same change, the first [`SECTION_LIMIT`] listed.
fn grid_diff<T: TileText>(s: &mut SectionBuilder, a: Option<&Grid<T>>, b: Option<&Grid<T>>) {
    let (Some(a), Some(b)) = (a, b) else {
        undecoded(s, "tiles", a.is_some(), b.is_some());
        return;
    };
    if a.tiles() == b.tiles() {
        return;
    }
    let width = a.width().min(b.width());
    let height = a.height().min(b.height());
    let mut done: Vec<Rect<T>> = Vec::new();
    // Rectangles reaching the previous row, by their columns (which do not overlap).
    let mut open: HashMap<[usize; 2], Rect<T>> = HashMap::new();
    for y in 0..height {
        let (ra, rb) = (row(a, y, width), row(b, y, width));
        let len = ra.len().min(rb.len());
        let mut still_open = HashMap::new();
        let mut x = 0;
        while x < len {
            let (old, new) = (ra[x], rb[x]);
            if old == new {
                x += 1;
                continue;
            }
            let start = x;
            while x < len && ra[x] == old && rb[x] == new {
                x += 1;
            }
            let mut run = Rect {
                x: [start, x - 1],
                y: [y, y],
                old,
                new,
            };
            if let Some(rect) = open.remove(&run.x) {
                if rect.old == old && rect.new == new {
                    run.y[0] = rect.y[0];
                } else {
                    done.push(rect);
                }
            }
            still_open.insert(run.x, run);
        }
        done.extend(open.into_values());
        open = still_open;
    }
    done.extend(open.into_values());
    done.sort_by_key(|r| (r.y[0], r.x[0]));
    let mut more = (0, 0);
    for rect in done {
        if s.changes.len() < SECTION_LIMIT {
            s.changes.push(Change::Tiles {
                x: rect.x,
                y: rect.y,
                old: rect.old.text(),
                new: rect.new.text(),
            });
        } else {
            more.0 += (rect.x[1] - rect.x[0] + 1) * (rect.y[1] - rect.y[0] + 1);
            more.1 += 1;
        }
    }
    if more.0 > 0 {
        s.changes.push(Change::More {
            count: more.0,
            what: format!("changed tiles (in {} more lines)", more.1),
        });
    }
}
