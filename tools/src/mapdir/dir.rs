//! `unpack`: a map file to a directory (docs/mapdir.md); [`pack`](super::pack) builds it
//! back.
//!
//! Each item of the file is an item file, its schema type as TOML (or its ints, when the
//! schema cannot give them back exactly): groups as folders holding their layers, envelopes
//! holding their points, the rest under `items/`. Each data item is `data/NNN.EXT` in the form
//! that suits it (text, settings, PNG, Opus, tiles as text, quads and sound sources as TOML,
//! raw bytes otherwise). Items refer to data items and to each other by index, as the file
//! does, with comments naming what they point at. File names need no quoting in a shell and
//! say the kind of each item ([`super::names`]).

use std::collections::HashMap;
use std::path::Path;

use twcodec_schema::map::envelope::{CurveType, EnvPoint, EnvelopeKind};
use twcodec_schema::map::layer::LayerBody;
use twcodec_schema::map::{MapItem, MapItemKind};

use super::data::{self, Holds, TileType};
use super::names::{self, number, toml_file, width};
use super::points;
use super::{ItemEntry, Streams};
use twcodec::datafile::Datafile;
use twcodec::items::{decode_context, decode_item, item_kind};
use twcodec::Error;

/// What [`unpack`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpacked {
    /// Item files written.
    pub items: usize,
    /// Data files written, and how many of them are raw bytes (no better form gives back the
    /// same bytes).
    pub data: usize,
    /// Data files of raw bytes.
    pub raw: usize,
}

/// The form of the directory `unpack` writes (`form` in `.twcodec/layout.toml`): 2 names files
/// by kind without spaces and writes the `id` of groups, layers, images, envelopes and sounds
/// in their files. `pack` reads form 1 (no `form` line) too.
pub const FORM: u32 = 2;

/// Writes the map (or any datafile) `bytes` as a directory at `dir`, which must not exist or
/// be empty.
pub fn unpack(bytes: &[u8], dir: &Path) -> Result<Unpacked, Error> {
    let datafile = Datafile::parse(bytes)?;
    if dir.exists() {
        let mut entries =
            std::fs::read_dir(dir).map_err(|e| Error::io("read the directory", dir, e))?;
        if entries.next().is_some() {
            return Err(Error::new(
                twcodec::ErrorKind::InvalidOptions,
                format!(
                    "{} is not empty: unpack writes into a new directory",
                    dir.display()
                ),
            ));
        }
    }
    let context = decode_context(&datafile);
    // Each item decoded, when the schema gives back exactly its ints.
    let decoded: Vec<Option<MapItem>> = (datafile.items().iter().enumerate())
        .map(|(index, item)| {
            decode_item(&datafile, index, context)
                .ok()
                .filter(|decoded| decoded.encode().ok().as_ref() == Some(&item.data))
        })
        .collect();
    let mut holds: Vec<Option<Holds>> = vec![None; datafile.data_count()];
    let mut owned = vec![false; datafile.data_count()];
    for item in decoded.iter().flatten() {
        classify(item, &mut holds);
        for raw in super::refs::data_of(item) {
            if let Some(slot) = usize::try_from(raw).ok().and_then(|i| owned.get_mut(i)) {
                *slot = true;
            }
        }
    }
    // The data files first: item files name them. Each data item is inflated once, for its
    // stream's content hash and its file.
    let data_dir = dir.join("data");
    create(&data_dir)?;
    let mut raw = 0;
    let data_width = width(datafile.data_count(), 3);
    let mut files = Vec::with_capacity(datafile.data_count());
    let mut streams = Streams::of_visiting(&datafile, |index, bytes| {
        let bytes = match bytes {
            Ok(bytes) => bytes,
            // A data item that does not inflate: kept as its stored bytes.
            Err(stored) => {
                raw += 1;
                let name = format!("data/{}.stored", number(index, data_width));
                files.push((name, stored.to_vec()));
                return Ok(());
            }
        };
        let holds = holds.get(index).copied().flatten();
        let file = holds.and_then(|holds| data::to_file(&bytes, holds));
        let (ext, contents) = match file {
            Some(file) => (file.ext, file.bytes),
            None => {
                raw += 1;
                ("bin", bytes.into_owned())
            }
        };
        files.push((
            format!("data/{}.{ext}", number(index, data_width)),
            contents,
        ));
        Ok(())
    })?;
    for (index, (entry, (name, _))) in streams.layout.data.iter_mut().zip(&files).enumerate() {
        entry.file = Some(name.clone());
        entry.owned = Some(owned[index]);
    }
    let labels: Vec<Option<String>> = (decoded.iter())
        .map(|d| d.as_ref().and_then(|d| label(&datafile, d)))
        .collect();
    let names = Names::of(
        &decoded,
        &labels,
        files.iter().map(|f| f.0.clone()).collect(),
    );
    for (name, contents) in &files {
        // Quads and sound sources say what their envelopes are, like the items.
        let contents = match name.ends_with(".toml") {
            true => names
                .annotate(&String::from_utf8_lossy(contents))
                .into_bytes(),
            false => contents.clone(),
        };
        write_new(&dir.join(name), &contents)?;
    }
    // Where each group's folder is, and which group holds each layer, when the groups' ranges
    // cover the layers in order.
    let folders = group_folders(&datafile, &decoded);
    // Each envelope's points, when the envelopes hold them in order.
    let split = points::split(&datafile, &decoded);
    let mut envelope = 0;
    let mut items = Vec::new();
    let items_dir = dir.join("items");
    create(&items_dir)?;
    if folders.is_some() {
        create(&dir.join("groups"))?;
    }
    let (mut group, mut layer) = (0, 0);
    // Items under items/ are numbered within their kind; layers by their layer index.
    let kind_words: Vec<String> = (datafile.items().iter())
        .map(|item| match item_kind(&datafile, item.type_id()) {
            MapItemKind::Unknown => format!("unknown-{}", item.type_id()),
            kind => names::kind_word(kind.name()),
        })
        .collect();
    let mut of_kind: HashMap<&str, (usize, usize)> = HashMap::new();
    for word in &kind_words {
        of_kind.entry(word).or_default().1 += 1;
    }
    // Ids that two items of a type share (real maps have them) are told apart by `nth`.
    let mut ids: HashMap<(u16, u16), usize> = HashMap::new();
    for item in datafile.items() {
        *ids.entry((item.type_id(), item.id())).or_default() += 1;
    }
    let mut seen: HashMap<(u16, u16), usize> = HashMap::new();
    let layer_count = names.layers.len();
    for (index, (item, decoded)) in datafile.items().iter().zip(&decoded).enumerate() {
        let text = match decoded {
            Some(decoded) => toml::to_string(decoded).ok(),
            None => None,
        };
        // What the schema cannot give back exactly is kept as its ints.
        let text = match text {
            Some(text) => match decoded {
                Some(MapItem::EnvPoints(_) | MapItem::EnvPointsBezier(_)) => {
                    names.mark_envelopes(&names.annotate(&text))
                }
                Some(MapItem::Automapper(_)) => names.annotate_automapper(&text),
                _ => names.annotate(&text),
            },
            None => {
                let raw = MapItem::Unknown {
                    ints: item.data.clone(),
                };
                toml::to_string(&raw).map_err(|e| Error::malformed(format!("TOML: {e}")))?
            }
        };
        // Groups and layers in the group folders: the group's layer range is the folder's.
        let folder = match (&folders, decoded) {
            (Some(folders), Some(MapItem::Group(_))) => {
                group += 1;
                folders.groups.get(group - 1)
            }
            (Some(folders), Some(MapItem::Layer(_))) => {
                layer += 1;
                (folders.layer_group.get(layer - 1)).and_then(|&g| folders.groups.get(g))
            }
            _ => None,
        };
        let text = match (folder, decoded) {
            (Some(_), Some(MapItem::Group(_))) => (text.lines())
                .filter(|l| !l.starts_with("start_layer =") && !l.starts_with("num_layers ="))
                .map(|l| format!("{l}\n"))
                .collect(),
            _ => text,
        };
        // Envelopes with their points; the points items are rebuilt from them.
        let text = match (&split, decoded) {
            (Some(split), Some(MapItem::Envelope(env))) => {
                envelope += 1;
                let section = split
                    .sections
                    .get(envelope - 1)
                    .cloned()
                    .unwrap_or_default();
                let own: String = (text.lines())
                    .filter(|l| !l.starts_with("start_point =") && !l.starts_with("num_points ="))
                    .map(|l| format!("{l}\n"))
                    .collect();
                format!("{own}\n{}", in_units(&section, env.kind()))
            }
            (Some(split), _) if split.layout.rebuilds(item.type_id(), item.id()) => {
                items.push(ItemEntry {
                    type_id: item.type_id(),
                    id: item.id(),
                    file: String::new(),
                });
                continue;
            }
            _ => text,
        };
        // Groups, layers, images, envelopes and sounds say their id: `pack` finds them by it
        // wherever their files are, under whatever name.
        let key = (item.type_id(), item.id());
        let nth = seen.entry(key).or_default();
        *nth += 1;
        let nth = match ids.get(&key) {
            Some(&count) if count > 1 => Some(*nth - 1),
            _ => None,
        };
        let identified = matches!(
            decoded,
            Some(
                MapItem::Group(_)
                    | MapItem::Layer(_)
                    | MapItem::Image(_)
                    | MapItem::Envelope(_)
                    | MapItem::Sound(_)
            )
        );
        let text = match (identified, text.split_once('\n'), nth) {
            (true, Some((first, rest)), None) => format!("{first}\nid = {}\n{rest}", item.id()),
            (true, Some((first, rest)), Some(nth)) => format!(
                "{first}\nid = {}\nnth = {nth} # the item of this id after {nth} others: ids \
                 repeat in this map\n{rest}",
                item.id()
            ),
            _ => text,
        };
        let (position, count) = of_kind
            .get_mut(kind_words[index].as_str())
            .map_or((0, 0), |c| {
                c.0 += 1;
                (c.0 - 1, c.1)
            });
        let label = labels[index].as_deref();
        let file = match (folder, decoded) {
            (Some(folder), Some(MapItem::Group(_))) => format!("groups/{folder}/group.toml"),
            (Some(folder), Some(MapItem::Layer(decoded))) => format!(
                "groups/{folder}/{}",
                toml_file(
                    &[
                        &number(layer - 1, width(layer_count, 3)),
                        names::layer_kind(decoded)
                    ],
                    label
                )
            ),
            _ => {
                let numbered = number(position, width(count, 2));
                let kind_word = &kind_words[index];
                let layer_kind = match decoded {
                    Some(MapItem::Layer(layer)) => names::layer_kind(layer),
                    _ => "",
                };
                let parts: Vec<&str> = [kind_word.as_str(), &numbered, layer_kind]
                    .into_iter()
                    .filter(|p| !p.is_empty())
                    .collect();
                format!("items/{}", toml_file(&parts, label))
            }
        };
        if let Some(parent) = dir.join(&file).parent() {
            create(parent)?;
        }
        write_new(&dir.join(&file), text.as_bytes())?;
        items.push(ItemEntry {
            type_id: item.type_id(),
            id: item.id(),
            file,
        });
    }
    streams.layout.form = FORM;
    streams.layout.groups_hold_layers = folders.is_some();
    streams.layout.envelope_points = split.map(|split| split.layout);
    streams.layout.items = items;
    streams.layout.problems = twcodec::Map::parse(bytes)
        .ok()
        .map(|map| super::pack::errors_of(&map));
    streams.save_new(dir)?;
    Ok(Unpacked {
        items: datafile.items().len(),
        data: datafile.data_count(),
        raw,
    })
}

/// [`unpack`] of the file at `file`; errors name it.
pub fn unpack_file(file: &Path, dir: &Path) -> Result<Unpacked, Error> {
    let max = twcodec::Limits::DEFAULT.max_file_size();
    let bytes = twcodec::input::read_file(file, max, "Limits::max_file_size")?;
    unpack(&bytes, dir).map_err(|e| e.with_path(file))
}

/// The group folders of a map whose groups' layer ranges cover its layers in order.
struct Folders {
    /// Each group's folder name, `NN-NAME`.
    groups: Vec<String>,
    /// The group of each layer.
    layer_group: Vec<usize>,
}

/// The [`Folders`] of the items, when every group and layer decodes and the groups' ranges
/// run one after another over all the layers.
fn group_folders(datafile: &Datafile, decoded: &[Option<MapItem>]) -> Option<Folders> {
    let group_type = MapItemKind::Group.type_id()?;
    let layer_type = MapItemKind::Layer.type_id()?;
    let mut groups = Vec::new();
    let mut layer_group = Vec::new();
    let mut layers = 0usize;
    let count = datafile.items_of_type(group_type).len();
    for (item, decoded) in datafile.items().iter().zip(decoded) {
        match (item.type_id(), decoded) {
            (t, Some(MapItem::Group(group))) if t == group_type => {
                if usize::try_from(group.start_layer).ok()? != layer_group.len() {
                    return None;
                }
                let layer_count = usize::try_from(group.num_layers).ok()?;
                // Checked against the layers there are before anything is allocated.
                let total = datafile.items_of_type(layer_type).len();
                if layer_group.len().checked_add(layer_count)? > total {
                    return None;
                }
                let index = groups.len();
                layer_group.extend(std::iter::repeat_n(index, layer_count));
                let name = group.name.as_ref().map(|n| n.to_string_lossy());
                let numbered = number(index, width(count, 2));
                groups.push(match name.as_deref().and_then(names::word) {
                    Some(word) => format!("{numbered}-{word}"),
                    None => numbered,
                });
            }
            (t, Some(MapItem::Layer(_))) if t == layer_type => layers += 1,
            (t, _) if t == group_type || t == layer_type => return None,
            _ => {}
        }
    }
    // A map without groups and layers holds them vacuously: new groups are new folders.
    (layers == layer_group.len()).then_some(Folders {
        groups,
        layer_group,
    })
}

/// What reference fields point at, to say so beside them in the item files.
struct Names {
    /// Each data item's file, and its text when it is a short text.
    data: Vec<String>,
    images: Vec<String>,
    envelopes: Vec<String>,
    sounds: Vec<String>,
    /// Each layer's name and kind.
    layers: Vec<(String, &'static str)>,
    /// Each group's name, first layer and layer count.
    groups: Vec<(String, i32, i32)>,
    /// Each envelope's first point and point count, to mark its points.
    envelope_points: Vec<(i32, i32)>,
}

impl Names {
    fn of(
        decoded: &[Option<MapItem>],
        labels: &[Option<String>],
        data_files: Vec<String>,
    ) -> Names {
        let mut names = Names {
            data: data_files,
            images: Vec::new(),
            envelopes: Vec::new(),
            sounds: Vec::new(),
            layers: Vec::new(),
            groups: Vec::new(),
            envelope_points: Vec::new(),
        };
        for (item, label) in decoded.iter().zip(labels) {
            let Some(item) = item else { continue };
            let name = label.clone().unwrap_or_default();
            match item {
                MapItem::Image(_) => names.images.push(name),
                MapItem::Envelope(envelope) => {
                    names.envelopes.push(name);
                    (names.envelope_points).push((envelope.start_point, envelope.num_points));
                }
                MapItem::Sound(_) => names.sounds.push(name),
                MapItem::Layer(layer) => names.layers.push((name, names::layer_kind(layer))),
                MapItem::Group(group) => {
                    (names.groups).push((name, group.start_layer, group.num_layers))
                }
                _ => {}
            }
        }
        names
    }

    /// `text` with a comment after each reference field saying what it points at:
    /// `image = 3 # image #3 "grass_main"`, `data = 17 # data/017.tiles`, `... # none`.
    fn annotate(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 256);
        for line in text.lines() {
            out.push_str(line);
            if let Some(comment) = self.comment(line) {
                out.push_str(" # ");
                out.push_str(&comment);
            }
            out.push('\n');
        }
        out
    }

    /// `layer #10 "Ground" (tiles)`, `layer #12 (game)`.
    fn layer(&self, index: usize) -> Option<String> {
        let (name, kind) = self.layers.get(index)?;
        Some(match name.is_empty() {
            true => format!("layer #{index} ({kind})"),
            false => format!("layer #{index} {name:?} ({kind})"),
        })
    }

    /// `text` (an auto-mapper item) with comments naming its group and its layer: `group = 6
    /// # group #6 "Cave BG"`, `layer = 0 # layer #40 "Tiles" (tiles), the first of the group`.
    fn annotate_automapper(&self, text: &str) -> String {
        let mut group = None;
        let mut out = String::with_capacity(text.len() + 128);
        for line in text.lines() {
            out.push_str(line);
            let value = |key: &str| {
                (line.strip_prefix(key))
                    .and_then(|v| v.strip_prefix(" = "))
                    .and_then(|v| v.trim().parse::<i64>().ok())
            };
            if let Some(g) = value("group") {
                let found = usize::try_from(g).ok().and_then(|g| self.groups.get(g));
                out.push_str(&match found {
                    Some((name, ..)) if name.is_empty() => format!(" # group #{g}"),
                    Some((name, ..)) => format!(" # group #{g} {name:?}"),
                    None => format!(" # no group #{g}"),
                });
                group = found;
            }
            if let Some(l) = value("layer") {
                let layer = group.and_then(|&(_, start, count)| {
                    (0..i64::from(count))
                        .contains(&l)
                        .then(|| i64::from(start) + l)
                });
                let layer = layer.and_then(|i| usize::try_from(i).ok());
                out.push_str(&match layer.and_then(|i| self.layer(i)) {
                    Some(layer) => format!(" # {layer}"),
                    None => format!(" # no layer #{l} in the group"),
                });
            }
            out.push('\n');
        }
        out
    }

    /// `text` (an envelope points item) with a comment line before the first point of each
    /// envelope, and point times in seconds.
    fn mark_envelopes(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 1024);
        let mut point = 0i32;
        for line in text.lines() {
            if line == "[[points]]" {
                for (i, &(start, count)) in self.envelope_points.iter().enumerate() {
                    if start == point && count > 0 {
                        let name = self.envelopes.get(i).map(String::as_str).unwrap_or("");
                        out.push_str(&format!(
                            "# envelope #{i} {name:?}: {count} points from #{start}\n"
                        ));
                    }
                }
                point = point.saturating_add(1);
            }
            out.push_str(line);
            out.push_str(&in_seconds(line));
            out.push('\n');
        }
        out
    }

    fn comment(&self, line: &str) -> Option<String> {
        let (key, value) = line.split_once(" = ")?;
        if key == "points" {
            return points_in_tiles(value);
        }
        let value: i64 = value.trim().parse().ok()?;
        let (list, what): (&[String], &str) = match key.trim() {
            "data" | "name" | "author" | "map_version" | "credits" | "license" | "settings"
            | "tele" | "speedup" | "front" | "switch" | "tune" => (&self.data, "data"),
            "image" => (&self.images, "image"),
            "color_envelope" | "position_envelope" | "sound_envelope" => {
                (&self.envelopes, "envelope")
            }
            "sound" => (&self.sounds, "sound"),
            "start_layer" => {
                let layer = usize::try_from(value).ok().and_then(|i| self.layer(i));
                return Some(layer.unwrap_or_else(|| format!("no layer #{value}")));
            }
            _ => return None,
        };
        if value < 0 {
            return Some("none".to_string());
        }
        let found = usize::try_from(value).ok().and_then(|i| list.get(i));
        Some(match (found, what) {
            (None, _) => format!("no {what} #{value}"),
            (Some(file), "data") => file.clone(),
            (Some(name), _) if name.is_empty() => format!("{what} #{value}"),
            (Some(name), _) => format!("{what} #{value} {name:?}"),
        })
    }
}

/// `text` (an envelope's points) with each `time = MS` line followed by its time in seconds,
/// each `curve_type` by the curve's name, and each `values = [...]` line by the values in the units of the envelope's kind
/// (`# (1, 0.5) tiles, rotation 90°`, `# rgba(1, 1, 1, 0.5)`, `# volume 1`).
fn in_units(text: &str, kind: EnvelopeKind) -> String {
    let mut out = String::with_capacity(text.len() + 256);
    for line in text.lines() {
        out.push_str(line);
        out.push_str(&in_seconds(line));
        let curve = (line.strip_prefix("curve_type = ")).and_then(|v| v.parse::<i32>().ok());
        if let Some(curve) = curve {
            let name = format!("{:?}", CurveType::from_i32(curve)).to_lowercase();
            out.push_str(&format!(" # {name}"));
        }
        if let Some(values) = line.strip_prefix("values = ") {
            let ints: Vec<i32> = (values.trim_matches(|c| c == '[' || c == ']').split(','))
                .filter_map(|v| v.trim().parse().ok())
                .collect();
            let known = !matches!(kind, EnvelopeKind::Other(_));
            if let (Ok(values), true) = (<[i32; 4]>::try_from(ints), known) {
                let point = EnvPoint {
                    values,
                    ..EnvPoint::default()
                };
                out.push_str(" # ");
                out.push_str(&crate::units::point_values(&point, kind));
            }
        }
        out.push('\n');
    }
    out
}

/// ` # S s` for a `time = MS` line, else nothing.
fn in_seconds(line: &str) -> String {
    (line.strip_prefix("time = "))
        .and_then(|v| v.parse::<f64>().ok())
        .map(|ms| format!(" # {} s", round(ms / 1000.0)))
        .unwrap_or_default()
}

/// Quad points `[[x, y], ...]` (22.10 world pixels) in tiles: `tiles (0, 1) (2, 1) ...,
/// pivot (1, 2)`.
fn points_in_tiles(value: &str) -> Option<String> {
    let numbers: Vec<f64> = value
        .split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .filter(|n| !n.is_empty())
        .map(|n| n.parse::<f64>().ok().map(|v| v / 1024.0 / 32.0))
        .collect::<Option<_>>()?;
    if numbers.len() != 10 {
        return None;
    }
    let point = |i: usize| format!("({}, {})", round(numbers[2 * i]), round(numbers[2 * i + 1]));
    Some(format!(
        "tiles {} {} {} {}, pivot {}",
        point(0),
        point(1),
        point(2),
        point(3),
        point(4)
    ))
}

/// A number of tiles to at most three decimals.
fn round(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The name of an item that has one (groups, layers, envelopes, images, sounds).
fn label(datafile: &Datafile, item: &MapItem) -> Option<String> {
    let text = |index: i32| {
        let bytes = datafile.data(usize::try_from(index).ok()?).ok()?;
        let text = String::from_utf8_lossy(bytes.split(|&b| b == 0).next()?).into_owned();
        Some(text)
    };
    let name = match item {
        MapItem::Group(group) => group.name.as_ref()?.to_string_lossy(),
        MapItem::Envelope(envelope) => envelope.name.as_ref()?.to_string_lossy(),
        MapItem::Layer(layer) => match &layer.body {
            LayerBody::Tilemap(t) => t.name.as_ref()?.to_string_lossy(),
            LayerBody::Quads(q) => q.name.as_ref()?.to_string_lossy(),
            LayerBody::Sounds(s) => s.name.as_ref()?.to_string_lossy(),
            _ => return None,
        },
        MapItem::Image(image) => text(image.name)?,
        MapItem::Sound(sound) => text(sound.name)?,
        _ => return None,
    };
    (!name.trim().is_empty()).then_some(name)
}

/// Records what `item` says its data items hold.
fn classify(item: &MapItem, holds: &mut [Option<Holds>]) {
    let mut set = |index: i32, what: Holds| {
        if let Some(slot) = usize::try_from(index).ok().and_then(|i| holds.get_mut(i)) {
            // The first item to say wins; `to_file` checks the bytes fit.
            slot.get_or_insert(what);
        }
    };
    match item {
        MapItem::Info(info) => {
            for field in [info.author, info.map_version, info.credits, info.license] {
                set(field, Holds::Text);
            }
            if let Some(settings) = info.settings {
                set(settings, Holds::Settings);
            }
        }
        MapItem::Image(image) => {
            set(image.name, Holds::Text);
            if image.external == 0 {
                let size = |v: i32| u32::try_from(v).unwrap_or(0);
                set(
                    image.data,
                    Holds::Pixels {
                        width: size(image.width),
                        height: size(image.height),
                    },
                );
            }
        }
        MapItem::Sound(sound) => {
            set(sound.name, Holds::Text);
            set(sound.data, Holds::Opus);
        }
        MapItem::Layer(layer) => match &layer.body {
            LayerBody::Tilemap(tilemap) => {
                let (width, height) = (
                    usize::try_from(tilemap.width).unwrap_or(0),
                    usize::try_from(tilemap.height).unwrap_or(0),
                );
                let tiles = |kind, skip| Holds::Tiles {
                    kind,
                    width,
                    height,
                    skip,
                };
                set(
                    tilemap.data,
                    tiles(TileType::Tile, tilemap.uses_tile_skip()),
                );
                let physics = &tilemap.physics;
                for (field, kind) in [
                    (physics.tele, TileType::Tele),
                    (physics.speedup, TileType::Speedup),
                    (physics.front, TileType::Tile),
                    (physics.switch, TileType::Switch),
                    (physics.tune, TileType::Tune),
                ] {
                    if let Some(field) = field {
                        set(field, tiles(kind, false));
                    }
                }
            }
            LayerBody::Quads(quads) => set(quads.data, Holds::Quads),
            LayerBody::Sounds(sounds) => set(sounds.data, Holds::Sources),
            _ => {}
        },
        _ => {}
    }
}

/// Writes a new file of the new directory: never over a file or through a link that is there
/// (`create_new`), and without a sync per file (the directory is new: an interrupted unpack
/// is run again).
pub(crate) fn write_new(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::io("create", path, e))?;
    file.write_all(bytes)
        .map_err(|e| Error::io("write", path, e))
}

fn create(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create the directory", dir, e))
}
