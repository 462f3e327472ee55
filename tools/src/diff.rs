//! A semantic diff of two maps: what was added, removed and changed, named by its place in the
//! map, in the units people think in.
//!
//! [`diff`] compares two [`Map`]s (any source: files, resaves, edits) and gives a [`MapDiff`]:
//! sections named by place (`info`, `image #1 "checker"`, `group #1 "Game" / layer #3
//! "Front"`), each with its [`Change`]s. [`MapDiff::write_text`] renders it as the CLI's
//! `twcodec diff` prints it; it serializes as JSON with serde.
//!
//! # Matching
//! Settings, images, sounds, envelopes, envelope points and groups are matched by a longest
//! common subsequence of their keys (text, name, name and kind, time), and what is left between
//! two matched items is paired by position: an insertion in the middle is one addition, a
//! rename is a change of name, and a list with one item replaced at each position reads as
//! changes.
//!
//! Layers are matched over the whole map, so that a layer moved to another group, or to
//! another place in its own, reads as one move ([`Change::Moved`]) and nothing else:
//!
//! 1. **Unchanged, in place.** Within each pair of matched groups, a longest common
//!    subsequence of exact keys: kind, name, every field and the whole content (tiles, quads,
//!    sources), with references compared through the matching of images, envelopes and sounds,
//!    as the changes are shown. Tiles stored as the same bytes are equal without being
//!    decoded (first every layer is matched so, then the rest decoded), so that a diff of lazily
//!    loaded maps decodes the layers that may have changed only; content that does not decode
//!    and is not stored the same equals nothing.
//! 2. **Unchanged, moved.** A layer left over in the old map with the exact key of one left
//!    over in the new map, in any group, moved there (a reorder within a group too).
//! 3. **Changed, in place.** Between two layers of step 1 in a pair of groups, the layers left
//!    are aligned by kind and name, and paired by position (as the other lists are).
//! 4. **Changed and moved.** A layer still left over in the old map and one in the new map
//!    with the same kind and name moved, with its changes, when they are named, or, unnamed,
//!    when their fields or their contents are the same.
//!
//! What is left was removed or added. Auto-mapper configurations are matched through the layer
//! they configure (the first configuration of a layer with the first of its match, and so on;
//! those of no layer by their order), so that one that follows its layer is no change; one that
//! goes or comes with its layer is part of that layer's removal or addition. Quads, sound
//! sources and tiles are matched by index (position); items twcodec does not model by type and
//! id.
//!
//! A place names an item by index and name; an unnamed layer by its kind instead
//! (`group #1 "Game" / layer #10 (game)`), an unnamed group by its index alone (`group #2`).
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

use crate::units::{self, color255, fixed, ints, number, point_values, quoted, seconds, tiles};
use twcodec::map::{DataItem, Envelope, Grid, Group, Image, Layer, LayerContent, Ref, Sound};
use twcodec::Map;

/// How many changes a section lists before it says how many more there are.
pub const SECTION_LIMIT: usize = 200;

/// What a [`Change::More`] of tiles counts (its `what` starts so).
const MORE_TILES: &str = "changed tiles";

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

    /// The number of tiles that changed, in every tile layer compared: those of the listed
    /// [`Change::Tiles`] rectangles and those past a section's limit ([`Change::More`] of
    /// changed tiles).
    pub fn tiles_changed(&self) -> usize {
        (self.sections.iter().flat_map(|s| &s.changes))
            .map(|change| match change {
                Change::Tiles { x, y, .. } => (x[1] - x[0] + 1) * (y[1] - y[0] + 1),
                Change::More { count, what } if what.starts_with(MORE_TILES) => *count,
                _ => 0,
            })
            .sum()
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
    diff_matching(a, b).0
}

/// How [`diff_matching`] paired the images, envelopes and layers of two maps: what a picture of
/// the changes ([`crate::visual_diff`]) compares, item by item.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Matching {
    /// For each old image, the index of the new image matched with it.
    pub images: Vec<Option<usize>>,
    /// For each old envelope, the index of the new envelope matched with it.
    pub envelopes: Vec<Option<usize>>,
    /// For each old layer, the new layer matched with it.
    pub layers: Vec<Option<LayerMatch>>,
}

/// The new layer an old layer was matched with ([`Matching::layers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerMatch {
    /// The new layer's index.
    pub new: usize,
    /// Whether the two are equal: the same fields and content, references read through the
    /// matching (an image or envelope whose own content changed still reads equal here).
    pub equal: bool,
    /// Whether the layer moved: to another group, or to another place in its own.
    pub moved: bool,
}

/// [`diff`], and how it paired the items of the two maps.
pub fn diff_matching(a: &Map, b: &Map) -> (MapDiff, Matching) {
    let mut d = Differ {
        a,
        b,
        names: [ItemNames::of(a), ItemNames::of(b)],
        matched: Matched::default(),
        links: Vec::new(),
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
    let layers = (d.links.iter())
        .map(|link| {
            link.map(|(new, how)| match how {
                Link::InPlace { exact, .. } => LayerMatch {
                    new,
                    equal: exact,
                    moved: false,
                },
                Link::Moved { exact } => LayerMatch {
                    new,
                    equal: exact,
                    moved: true,
                },
            })
        })
        .collect();
    let matching = Matching {
        images: d.matched.images,
        envelopes: d.matched.envelopes,
        layers,
    };
    (d.out, matching)
}

struct Differ<'m> {
    a: &'m Map,
    b: &'m Map,
    /// The names of `a`'s images and sounds, then of `b`'s.
    names: [ItemNames; 2],
    matched: Matched,
    /// For each old layer, its match and how ([`Differ::groups_and_layers`]).
    links: Vec<Option<(usize, Link)>>,
    out: MapDiff,
}

/// The new index of each old image, envelope, sound and layer matched with one.
#[derive(Default)]
struct Matched {
    images: Vec<Option<usize>>,
    envelopes: Vec<Option<usize>>,
    sounds: Vec<Option<usize>>,
    layers: Vec<Option<usize>>,
}

/// The names of a map's images and sounds, read once (each is a data item, inflated when
/// read); an empty name for one that has none.
struct ItemNames {
    images: Vec<String>,
    sounds: Vec<String>,
}

impl ItemNames {
    fn of(map: &Map) -> ItemNames {
        ItemNames {
            images: (map.images().iter())
                .map(|i| i.name(map).unwrap_or_default())
                .collect(),
            sounds: (map.sounds().iter())
                .map(|s| s.name(map).unwrap_or_default())
                .collect(),
        }
    }
}

/// References of one map as text: `image #3 "grass_main"`, `none`, `dangling image 7`.
struct Names<'m> {
    map: &'m Map,
    names: &'m ItemNames,
    /// For the old map: the new map, its names, and the matches into it.
    other: Option<(&'m Map, &'m ItemNames, &'m Matched)>,
}

impl Names<'_> {
    fn reference(
        &self,
        kind: &str,
        index: Option<usize>,
        raw: i32,
        matched: fn(&Matched) -> &[Option<usize>],
        name: fn(&Map, &ItemNames, usize) -> Option<String>,
    ) -> String {
        let Some(index) = index else {
            return match raw < 0 {
                true => "none".into(),
                false => format!("dangling {kind} {raw}"),
            };
        };
        let (map, names, index) = match self.other {
            Some((other, names, m)) => match matched(m).get(index).copied().flatten() {
                Some(new) => (other, names, new),
                None => (self.map, self.names, index),
            },
            None => (self.map, self.names, index),
        };
        let name = name(map, names, index).unwrap_or_default();
        format!("{kind} {}", units::reference(Some((index, &name)), raw))
    }

    /// An envelope reference as bytes, equal for two references that read the same (an old
    /// one through the matching; an old envelope matched with none equals nothing new), for
    /// the exact keys of layers.
    fn envelope_key(&self, raw: i32) -> [u8; 5] {
        let (tag, value) = match self.map.item_ref::<Envelope>(raw) {
            Ref::To(r) => match self.other {
                Some((_, _, m)) => match m.envelopes.get(r.index()).copied().flatten() {
                    Some(new) => (1, new),
                    None => (2, r.index()),
                },
                None => (1, r.index()),
            },
            Ref::None => (0, 0),
            Ref::Dangling(raw) => (3, raw as u32 as usize),
        };
        let mut key = [tag; 5];
        key[1..].copy_from_slice(&(value as u32).to_le_bytes());
        key
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
            |_, names, i| names.images.get(i).cloned(),
        )
    }

    fn envelope(&self, raw: i32) -> String {
        let index = match self.map.item_ref::<Envelope>(raw) {
            Ref::To(r) => Some(r.index()),
            _ => None,
        };
        self.reference(
            "envelope",
            index,
            raw,
            |m| &m.envelopes,
            |map, _, i| map.envelopes().get(i).map(|e| e.name()),
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
            |_, names, i| names.sounds.get(i).cloned(),
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

/// The index pairs of a longest common subsequence of two lists' keys, in order; above
/// [`LCS_LIMIT`] comparisons, the equal keys at the same positions.
fn lcs<K: PartialEq>(a: &[K], b: &[K]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > LCS_LIMIT {
        return (0..n.min(m))
            .filter(|&i| a[i] == b[i])
            .map(|i| (i, i))
            .collect();
    }
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
}

/// Aligns two lists by a longest common subsequence of their keys, then pairs what is left
/// between two matches by position (see the module doc).
fn align<K: PartialEq>(a: &[K], b: &[K]) -> Vec<Pair> {
    let (n, m) = (a.len(), b.len());
    let mut pairs = Vec::new();
    let (mut i, mut j) = (0, 0);
    for (mi, mj) in lcs(a, b).into_iter().chain([(n, m)]) {
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
            names: &self.names[0],
            other: Some((self.b, &self.names[1], &self.matched)),
        }
    }

    fn new_names(&self) -> Names<'_> {
        Names {
            map: self.b,
            names: &self.names[1],
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
        const SUMMARY: [&str; 17] = [
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
            "automapper",
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
        let (ka, kb) = (&self.names[0].images, &self.names[1].images);
        for pair in align(ka, kb) {
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
        Self::whole_section(place, added, what).finish(&mut self.out);
    }

    /// The section of a whole item added or removed, `what` its summary.
    fn whole_section(place: String, added: bool, what: String) -> SectionBuilder {
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
        s
    }

    /// A sound's fields; with `data` false, its data is shown as `unchanged` without reading
    /// it (the two sounds compared hold the same stored data).
    fn sound_fields(map: &Map, sound: &Sound, data: bool) -> Vec<(&'static str, String)> {
        let item = sound.item();
        let data = match (item.external != 0, data) {
            (true, _) => "external".to_string(),
            (false, false) => "unchanged".to_string(),
            (false, true) => match sound.data(map) {
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
        let (ka, kb) = (&self.names[0].sounds, &self.names[1].sounds);
        for pair in align(ka, kb) {
            let place = |map: &Map, i: usize| {
                let name = map.sounds().get(i).and_then(|s| s.name(map));
                format!("sound #{i} {}", quoted(&name.unwrap_or_default()))
            };
            match pair {
                Pair::Old(i) => self.whole(place(a, i), false, || {
                    a.sounds().get(i).map(|s| Self::sound_fields(a, s, true))
                }),
                Pair::New(j) => self.whole(place(b, j), true, || {
                    b.sounds().get(j).map(|s| Self::sound_fields(b, s, true))
                }),
                Pair::Both(i, j) => {
                    set(&mut self.matched.sounds, i, j);
                    let (Some(old), Some(new)) = (a.sounds().get(i), b.sounds().get(j)) else {
                        continue;
                    };
                    let data = |map: &Map, s: &Sound| map.item_ref::<DataItem>(s.item().data).get();
                    let same = match (data(a, old), data(b, new)) {
                        (Some(x), Some(y)) => a.same_stored_data(x, b, y),
                        _ => false,
                    };
                    let (fa, fb) = (
                        Self::sound_fields(a, old, !same),
                        Self::sound_fields(b, new, !same),
                    );
                    let mut s = SectionBuilder::new(place(a, i));
                    s.fields("", &fa, &fb);
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
        let mut points = PointsCompare::new(a, b);
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
                    // The same points show no change (the same values read the same).
                    let same = points.same(old, new);
                    // Aligning costs up to the product of the lengths (a longest common
                    // subsequence), within LCS_LIMIT: from the same budget.
                    let cost = (pa.len().saturating_mul(pb.len()))
                        .min(LCS_LIMIT)
                        .max(pa.len() + pb.len());
                    let same = match same {
                        Some(false) if !points.spend(cost) => None,
                        same => same,
                    };
                    let pairs = match same {
                        Some(true) => Vec::new(),
                        Some(false) => align(&times(pa), &times(pb)),
                        None => {
                            s.push(Change::More {
                                count: pa.len().max(pb.len()),
                                what: "points not compared (past the work a diff of maps this \
                                       size may take)"
                                    .into(),
                            });
                            Vec::new()
                        }
                    };
                    for pair in pairs {
                        match pair {
                            Pair::Both(i, j) => {
                                let (Some(p), Some(q)) = (pa.get(i), pb.get(j)) else {
                                    continue;
                                };
                                let same_tangents =
                                    ba.and_then(|b| b.get(i)) == bb.and_then(|b| b.get(j));
                                if p == q && same_tangents {
                                    continue;
                                }
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

    /// `group #1 "Game"`; an unnamed group by its index alone, `group #2`.
    fn group_place(map: &Map, index: Option<usize>) -> String {
        let Some(g) = index else {
            return "no group".to_string();
        };
        match map.groups().get(g).map(|g| g.name()).unwrap_or_default() {
            name if name.is_empty() => format!("group #{g}"),
            name => format!("group #{g} {}", quoted(&name)),
        }
    }

    /// `group #1 "Game" / layer #3 "Front"`; an unnamed layer by its kind,
    /// `group #1 "Game" / layer #10 (game)`.
    fn layer_place(map: &Map, group: Option<usize>, layer: usize) -> String {
        let group = Self::group_place(map, group);
        match map.layers().get(layer) {
            Some(l) if l.name().is_empty() => {
                format!("{group} / layer #{layer} ({})", l.kind_name())
            }
            Some(l) => format!("{group} / layer #{layer} {}", quoted(&l.name())),
            None => format!("{group} / layer #{layer}"),
        }
    }

    /// A layer's place, in the group that holds it.
    fn layer_place_in(map: &Map, layer: usize) -> String {
        let group = (map.refs::<Layer>().nth(layer)).and_then(|l| map.group_of(l));
        Self::layer_place(map, group.map(|g| g.index()), layer)
    }

    /// Each group's layers (indices), then the layers of no group as a last list.
    fn group_layers(map: &Map) -> Vec<(Option<usize>, Vec<usize>)> {
        let mut lists: Vec<(Option<usize>, Vec<usize>)> = (map.refs::<Group>())
            .map(|g| {
                let layers = map.get(g).map(|group| group.layers(map).map(|l| l.index()));
                (Some(g.index()), layers.into_iter().flatten().collect())
            })
            .collect();
        let orphans: Vec<usize> = (map.refs::<Layer>())
            .filter(|&l| map.group_of(l).is_none())
            .map(|l| l.index())
            .collect();
        if !orphans.is_empty() {
            lists.push((None, orphans));
        }
        lists
    }

    /// Matches the layers of the two maps in the four steps of the module doc. `groups` is the
    /// alignment of the lists of [`Differ::group_layers`].
    fn match_layers(&self, ga: &[GroupLayers], gb: &[GroupLayers], groups: &[Pair]) -> Links {
        let (a, b) = (self.a, self.b);
        let (old_names, new_names) = (self.old_names(), self.new_names());
        let ka: Vec<LayerKey> = (a.layers().iter())
            .map(|l| LayerKey::new(&old_names, a, l))
            .collect();
        let kb: Vec<LayerKey> = (b.layers().iter())
            .map(|l| LayerKey::new(&new_names, b, l))
            .collect();
        let mut links = Links {
            old: vec![None; ka.len()],
            new: vec![None; kb.len()],
        };
        // Steps 1 and 2, first with tiles equal only as the same stored data, which decodes
        // nothing, then for the layers left with tiles decoded.
        for full in [false, true] {
            // 1. Unchanged, in place.
            for (p, &pair) in groups.iter().enumerate() {
                let Pair::Both(i, j) = pair else { continue };
                for (old, new) in gaps(&ga[i].1, &gb[j].1, &links, p) {
                    let key = |key| Compare { key, full };
                    let xa: Vec<Compare> = old.iter().map(|&l| key(&ka[l])).collect();
                    let xb: Vec<Compare> = new.iter().map(|&l| key(&kb[l])).collect();
                    for (k, l) in lcs(&xa, &xb) {
                        let how = Link::InPlace {
                            pair: p,
                            exact: true,
                        };
                        links.link(old[k], new[l], how);
                    }
                }
            }
            // 2. Unchanged, moved.
            for (lb, new) in kb.iter().enumerate() {
                if links.new[lb].is_some() {
                    continue;
                }
                let found =
                    (0..ka.len()).find(|&la| links.old[la].is_none() && ka[la].equal(new, full));
                if let Some(la) = found {
                    links.link(la, lb, Link::Moved { exact: true });
                }
            }
        }
        // 3. Changed, in place: in the gaps between the layers of step 1.
        let kind_name = |map: &Map, l: usize| {
            (map.layers().get(l)).map_or(("", String::new()), |l| (l.kind_name(), l.name()))
        };
        for (p, &pair) in groups.iter().enumerate() {
            let Pair::Both(i, j) = pair else { continue };
            for (old, new) in gaps(&ga[i].1, &gb[j].1, &links, p) {
                let xa: Vec<_> = old.iter().map(|&l| kind_name(a, l)).collect();
                let xb: Vec<_> = new.iter().map(|&l| kind_name(b, l)).collect();
                for pair in align(&xa, &xb) {
                    if let Pair::Both(x, y) = pair {
                        let how = Link::InPlace {
                            pair: p,
                            exact: false,
                        };
                        links.link(old[x], new[y], how);
                    }
                }
            }
        }
        // 4. Changed and moved.
        for (lb, y) in kb.iter().enumerate() {
            if links.new[lb].is_some() {
                continue;
            }
            let key = kind_name(b, lb);
            let same = |la: usize| {
                let x = &ka[la];
                !key.1.is_empty() || x.fields == y.fields || x.same_content(y, true)
            };
            let found = (0..ka.len())
                .find(|&la| links.old[la].is_none() && kind_name(a, la) == key && same(la));
            if let Some(la) = found {
                links.link(la, lb, Link::Moved { exact: false });
            }
        }
        links
    }

    fn groups_and_layers(&mut self) {
        let (a, b) = (self.a, self.b);
        let (ga, gb) = (Self::group_layers(a), Self::group_layers(b));
        let group_key = |map: &Map, g: Option<usize>| -> Option<String> {
            g.map(|g| map.groups().get(g).map(|g| g.name()).unwrap_or_default())
        };
        let ka: Vec<_> = ga.iter().map(|(g, _)| group_key(a, *g)).collect();
        let kb: Vec<_> = gb.iter().map(|(g, _)| group_key(b, *g)).collect();
        let groups = align(&ka, &kb);
        let links = self.match_layers(&ga, &gb, &groups);
        self.matched.layers = links.old.iter().map(|l| l.map(|(lb, _)| lb)).collect();
        self.links = links.old.clone();
        for (p, &pair) in groups.iter().enumerate() {
            let (gi, gj) = match pair {
                Pair::Both(i, j) => (Some(i), Some(j)),
                Pair::Old(i) => (Some(i), None),
                Pair::New(j) => (None, Some(j)),
            };
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
            // The two lists in step: a layer that stays in place waits for the new layers
            // before its match; removed layers come before added ones.
            let old_list: &[usize] = gi.map_or(&[], |i| &ga[i].1);
            let new_list: &[usize] = gj.map_or(&[], |j| &gb[j].1);
            let (mut i, mut j) = (0, 0);
            while i < old_list.len() || j < new_list.len() {
                if let Some(&la) = old_list.get(i) {
                    match links.old[la] {
                        Some((lb, Link::InPlace { pair, exact })) if pair == p => {
                            if new_list.get(j) == Some(&lb) {
                                if !exact {
                                    self.layer(Self::layer_place(a, group_a, la), la, lb, None);
                                }
                                (i, j) = (i + 1, j + 1);
                                continue;
                            }
                            if j >= new_list.len() {
                                // Not reached: a match in place lies ahead in the new list.
                                i += 1;
                                continue;
                            }
                        }
                        // Reported where it went.
                        Some(_) => {
                            i += 1;
                            continue;
                        }
                        None => {
                            self.whole_layer(false, group_a, la);
                            i += 1;
                            continue;
                        }
                    }
                }
                let Some(&lb) = new_list.get(j) else { break };
                j += 1;
                match links.new[lb] {
                    Some((la, Link::Moved { exact })) => {
                        let place = Self::layer_place(b, group_b, lb);
                        let from = Self::layer_place_in(a, la);
                        match exact {
                            // Nothing else to compare.
                            true => {
                                let mut s = SectionBuilder::new(place);
                                s.push(Change::Moved { from });
                                s.finish(&mut self.out);
                            }
                            false => self.layer(place, la, lb, Some(from)),
                        }
                    }
                    // In place here (not reached: its match comes first) or in another pair of
                    // groups (overlapping groups).
                    Some(_) => {}
                    None => self.whole_layer(true, group_b, lb),
                }
            }
        }
    }

    /// A layer removed or added as a whole, with the auto-mapper configurations that went or
    /// came with it.
    fn whole_layer(&mut self, added: bool, group: Option<usize>, layer: usize) {
        let (map, names) = match added {
            true => (self.b, &self.names[1]),
            false => (self.a, &self.names[0]),
        };
        let names = Names {
            map,
            names,
            other: None,
        };
        let place = Self::layer_place(map, group, layer);
        let what = (map.layers().get(layer)).map(|l| {
            let mut fields = layer_fields(&names, l);
            for am in map.automappers() {
                if am.layer(map).map(|l| l.index()) == Some(layer) {
                    let item = am.item();
                    let automatic = match item.flags.automatic() {
                        true => ", automatic",
                        false => "",
                    };
                    let what = format!("(config {}, seed {}{automatic})", item.config, item.seed);
                    fields.push(("automapper", what));
                }
            }
            Self::summary(&fields)
        });
        Self::whole_section(place, added, what.unwrap_or_default()).finish(&mut self.out);
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
        let layer_of = |map: &Map, i: usize| {
            (map.automappers().get(i)).and_then(|am| am.layer(map).map(|l| l.index()))
        };
        // The configurations of each layer, and those of no layer (`None`), in order.
        let by_layer = |map: &Map| -> HashMap<Option<usize>, Vec<usize>> {
            let mut lists: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
            for i in 0..map.automappers().len() {
                lists.entry(layer_of(map, i)).or_default().push(i);
            }
            lists
        };
        let (ca, cb) = (by_layer(a), by_layer(b));
        let matched = &self.matched.layers;
        let kept: Vec<bool> = {
            let mut kept = vec![false; b.layers().len()];
            for &lb in matched.iter().flatten() {
                if let Some(k) = kept.get_mut(lb) {
                    *k = true;
                }
            }
            kept
        };
        let mut pairs = Vec::new();
        let mut paired = vec![false; b.automappers().len()];
        for i in 0..a.automappers().len() {
            let key = match layer_of(a, i) {
                Some(la) => match matched.get(la).copied().flatten() {
                    Some(lb) => Some(lb),
                    // Its layer's removal lists it.
                    None => continue,
                },
                None => None,
            };
            let nth = (ca.get(&layer_of(a, i)).into_iter().flatten()).position(|&x| x == i);
            match nth.and_then(|n| cb.get(&key).and_then(|list| list.get(n))) {
                Some(&j) => {
                    paired[j] = true;
                    pairs.push(Pair::Both(i, j));
                }
                None => pairs.push(Pair::Old(i)),
            }
        }
        for (j, &paired) in paired.iter().enumerate() {
            match layer_of(b, j) {
                _ if paired => {}
                // Its layer's addition lists it.
                Some(lb) if !kept.get(lb).copied().unwrap_or(true) => {}
                _ => pairs.push(Pair::New(j)),
            }
        }
        // The fields of configuration `i` of `map`: its layer by its place there or, with
        // `through`, by the place of the layer's match in the new map.
        let fields = |map: &Map, i: usize, through: bool| -> Vec<(&'static str, String)> {
            let Some(am) = map.automappers().get(i) else {
                return Vec::new();
            };
            let item = am.item();
            let layer = match layer_of(map, i) {
                Some(l) => match matched.get(l).copied().flatten() {
                    Some(lb) if through => Self::layer_place_in(b, lb),
                    _ => Self::layer_place_in(map, l),
                },
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
        let mut sections = Vec::new();
        for pair in pairs {
            match pair {
                Pair::Both(i, j) => {
                    let mut s = SectionBuilder::new(format!("automapper #{i}"));
                    s.fields("", &fields(a, i, true), &fields(b, j, false));
                    sections.push(s);
                }
                Pair::Old(i) => {
                    let what = Self::summary(&fields(a, i, false));
                    sections.push(Self::whole_section(format!("automapper #{i}"), false, what));
                }
                Pair::New(j) => {
                    let what = Self::summary(&fields(b, j, false));
                    sections.push(Self::whole_section(format!("automapper #{j}"), true, what));
                }
            }
        }
        for s in sections {
            s.finish(&mut self.out);
        }
    }

    fn others(&mut self) {
        let (a, b) = (self.a, self.b);
        let key = |o: &twcodec::map::OtherItem| (o.type_id, o.id, o.uuid);
        let place = |o: &twcodec::map::OtherItem| match o.uuid {
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

/// Whether the points of two envelopes are the same, in time linear in the maps' points
/// however many envelopes share or overlap them (a hostile map gives 60,000 envelopes the same
/// million points): envelopes over the same range of both maps' points are told by a prefix
/// count of the points that differ, other pairs of ranges are compared once each, within a
/// budget of a few times the points there are.
struct PointsCompare<'m> {
    a: &'m Map,
    b: &'m Map,
    /// `differ[k]`: how many of the first `k` points (with their tangents) differ between
    /// the two maps, over the points both have.
    differ: Vec<u32>,
    /// Pairs of ranges compared already.
    seen: HashMap<(Option<Range>, Option<Range>), bool>,
    /// Points that may still be compared.
    budget: usize,
}

type Range = std::ops::Range<usize>;

impl<'m> PointsCompare<'m> {
    fn new(a: &'m Map, b: &'m Map) -> PointsCompare<'m> {
        let points = |map: &'m Map| map.envelope_points().map(|p| (p.points(), p.bezier()));
        let (pa, pb) = (points(a), points(b));
        let mut differ = vec![0u32];
        if let (Some((xa, ba)), Some((xb, bb))) = (pa, pb) {
            let common = xa.len().min(xb.len());
            differ.reserve(common);
            let mut count = 0u32;
            for k in 0..common {
                let tangents = ba.and_then(|b| b.get(k)) == bb.and_then(|b| b.get(k));
                count += u32::from(xa[k] != xb[k] || !tangents);
                differ.push(count);
            }
        }
        let total = pa.map_or(0, |p| p.0.len()) + pb.map_or(0, |p| p.0.len());
        PointsCompare {
            a,
            b,
            differ,
            seen: HashMap::new(),
            budget: total.saturating_mul(4).saturating_add(1 << 20),
        }
    }

    /// Takes `cost` from the budget; whether there was that much.
    fn spend(&mut self, cost: usize) -> bool {
        match self.budget.checked_sub(cost) {
            Some(left) => {
                self.budget = left;
                true
            }
            None => false,
        }
    }

    /// Whether `old`'s points (in `a`) are `new`'s (in `b`); `None` past the budget.
    fn same(&mut self, old: &Envelope, new: &Envelope) -> Option<bool> {
        let len = |map: &Map| map.envelope_points().map_or(0, |p| p.points().len());
        let (ra, rb) = (old.range(len(self.a)), new.range(len(self.b)));
        if let (Some(x), Some(y)) = (&ra, &rb) {
            if x == y && x.end < self.differ.len() {
                return Some(self.differ[x.end] == self.differ[x.start]);
            }
        }
        let key = (ra, rb);
        if let Some(&same) = self.seen.get(&key) {
            return Some(same);
        }
        let (pa, pb) = (old.points(self.a), new.points(self.b));
        let cost = pa.len().min(pb.len());
        self.budget = self.budget.checked_sub(cost)?;
        let same = pa == pb && old.bezier(self.a) == new.bezier(self.b);
        self.seen.insert(key, same);
        Some(same)
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

/// A group's index (`None`: the layers of no group) and its layers' indices.
type GroupLayers = (Option<usize>, Vec<usize>);

/// How a layer was matched with one of the other map.
#[derive(Debug, Clone, Copy)]
enum Link {
    /// In place: in pair `pair` of the groups' alignment, in order; `exact` when unchanged.
    InPlace { pair: usize, exact: bool },
    /// Moved: to another group, or to another place in its own; `exact` when unchanged.
    Moved { exact: bool },
}

/// The layer matching: for each old layer its new match, and for each new one its old.
struct Links {
    old: Vec<Option<(usize, Link)>>,
    new: Vec<Option<(usize, Link)>>,
}

impl Links {
    /// Matches old layer `la` with new layer `lb`, unless either is matched (a layer that
    /// overlapping groups both hold).
    fn link(&mut self, la: usize, lb: usize, how: Link) -> bool {
        if self.old[la].is_some() || self.new[lb].is_some() {
            return false;
        }
        self.old[la] = Some((lb, how));
        self.new[lb] = Some((la, how));
        true
    }
}

/// A layer as the diff compares it, to find the layers that did not change: equal when the
/// fields read the same (references through the matching of images, envelopes and sounds)
/// and the contents are equal. Content that does not decode equals nothing, unless it is the
/// same stored data.
struct LayerKey<'m> {
    /// A digest of the fields, compared first.
    digest: u32,
    fields: Vec<(&'static str, String)>,
    map: &'m Map,
    layer: &'m Layer,
    /// The content of a layer of quads, sources or unknown ints, as bytes
    /// ([`reference_content`]); `None` for tiles, compared as they are.
    content: Option<Option<Vec<u8>>>,
}

impl<'m> LayerKey<'m> {
    fn new(names: &Names, map: &'m Map, layer: &'m Layer) -> LayerKey<'m> {
        let fields = layer_fields(names, layer);
        let mut digest = crc32fast::Hasher::new();
        for (name, value) in &fields {
            digest.update(name.as_bytes());
            digest.update(&[0]);
            digest.update(value.as_bytes());
            digest.update(&[0]);
        }
        LayerKey {
            digest: digest.finalize(),
            fields,
            map,
            layer,
            content: reference_content(names, layer),
        }
    }

    /// Whether the layers are equal: the same fields and contents ([`LayerKey::same_content`]).
    fn equal(&self, other: &LayerKey, full: bool) -> bool {
        self.digest == other.digest && self.fields == other.fields && self.same_content(other, full)
    }

    /// Whether the contents are equal. Tiles whose data items are the same stored bytes are
    /// equal without decoding either; other tiles are decoded and compared when `full`, else
    /// unequal.
    fn same_content(&self, other: &LayerKey, full: bool) -> bool {
        match (&self.content, &other.content) {
            (Some(x), Some(y)) => x.is_some() && x == y,
            (None, None) => {
                // The data item the tiles were read from, unless they changed since.
                let data = |key: &LayerKey| {
                    let raw = key.layer.content_data()?;
                    (key.map.item_ref::<DataItem>(raw).get())
                        .filter(|_| !key.layer.content_modified())
                };
                if let (Some(x), Some(y)) = (data(self), data(other)) {
                    if self.map.same_stored_data(x, other.map, y) {
                        return true;
                    }
                }
                if !full {
                    return false;
                }
                match (tile_bytes(self.layer), tile_bytes(other.layer)) {
                    (Some(x), Some(y)) => x == y,
                    _ => false,
                }
            }
            _ => false,
        }
    }
}

/// A layer key to compare as [`LayerKey::equal`] does, in a longest common subsequence.
#[derive(Clone, Copy)]
struct Compare<'k, 'm> {
    key: &'k LayerKey<'m>,
    full: bool,
}

impl PartialEq for Compare<'_, '_> {
    fn eq(&self, other: &Self) -> bool {
        self.key.equal(other.key, self.full)
    }
}

/// The layers of two lists (pair `pair` of the groups' alignment) not matched yet, gap by
/// gap: the layers before the first matched in place, between two, and after the last.
fn gaps(old: &[usize], new: &[usize], links: &Links, pair: usize) -> Vec<(Vec<usize>, Vec<usize>)> {
    let mut gaps = Vec::new();
    let mut gap: (Vec<usize>, Vec<usize>) = Default::default();
    let mut j = 0;
    for &la in old {
        match links.old[la] {
            Some((lb, Link::InPlace { pair: p, .. })) if p == pair => {
                while let Some(&l) = new.get(j) {
                    j += 1;
                    if l == lb {
                        break;
                    }
                    if links.new[l].is_none() {
                        gap.1.push(l);
                    }
                }
                gaps.push(std::mem::take(&mut gap));
            }
            Some(_) => {}
            None => gap.0.push(la),
        }
    }
    gap.1
        .extend((new[j.min(new.len())..].iter()).filter(|&&l| links.new[l].is_none()));
    gaps.push(gap);
    gaps
}

/// The tiles of a tile layer of any kind as bytes; `None` for other kinds and tiles that do
/// not decode.
fn tile_bytes(layer: &Layer) -> Option<&[u8]> {
    fn bytes<T: bytemuck::Pod>(grid: Option<&Grid<T>>) -> Option<&[u8]> {
        grid.map(|g| bytemuck::cast_slice(g.tiles()))
    }
    match layer.content() {
        LayerContent::Tiles(x) | LayerContent::Game(x) | LayerContent::Front(x) => bytes(x.grid()),
        LayerContent::Tele(x) => bytes(x.grid()),
        LayerContent::Speedup(x) => bytes(x.grid()),
        LayerContent::Switch(x) => bytes(x.grid()),
        LayerContent::Tune(x) => bytes(x.grid()),
        _ => None,
    }
}

/// The content of a layer of quads, sources or unknown ints as bytes, equal for two layers
/// whose contents show no change: envelope references through the matching
/// ([`Names::envelope_key`]). `None` for tile layers, `Some(None)` for content that does not
/// decode.
fn reference_content(names: &Names, layer: &Layer) -> Option<Option<Vec<u8>>> {
    Some(match layer.content() {
        LayerContent::Quads(q) => q.quads().map(|quads| {
            let mut bytes = Vec::with_capacity(quads.len() * (Quad::SIZE + 10));
            for quad in quads {
                let plain = Quad {
                    position_envelope: 0,
                    color_envelope: 0,
                    ..*quad
                };
                bytes.extend_from_slice(bytemuck::bytes_of(&plain));
                bytes.extend(names.envelope_key(quad.position_envelope));
                bytes.extend(names.envelope_key(quad.color_envelope));
            }
            bytes
        }),
        LayerContent::Sounds(s) => s.sources().map(|sources| {
            let mut bytes = Vec::with_capacity(sources.len() * (SoundSource::SIZE + 10));
            for source in sources {
                let plain = SoundSource {
                    position_envelope: 0,
                    sound_envelope: 0,
                    ..*source
                };
                bytes.extend_from_slice(bytemuck::bytes_of(&plain));
                bytes.extend(names.envelope_key(source.position_envelope));
                bytes.extend(names.envelope_key(source.sound_envelope));
            }
            bytes
        }),
        LayerContent::Unknown(ints) => Some(bytemuck::cast_slice(ints).to_vec()),
        _ => return None,
    })
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
    let fields = |i: &Image| (i.item().width, i.item().height, i.item().format);
    if let (Some(x), Some(y)) = (old.data(a).get(), new.data(b).get()) {
        if fields(old) == fields(new) && a.same_stored_data(x, b, y) {
            return;
        }
    }
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
    if (pa.width, pa.height, &pa.bytes) == (pb.width, pb.height, &pb.bytes) {
        return;
    }
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
    // As bytes: one comparison of memory rather than one per tile.
    if bytemuck::cast_slice::<T, u8>(a.tiles()) == bytemuck::cast_slice::<T, u8>(b.tiles()) {
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
            what: format!("{MORE_TILES} (in {} more lines)", more.1),
        });
    }
}
