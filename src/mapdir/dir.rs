//! `unpack` and `pack`: a map file to a directory and back (docs/mapdir.md).
//!
//! Each item of the file is an item file, its schema type as TOML (or its ints, when the
//! schema cannot give them back exactly): groups as folders holding their layers, envelopes
//! holding their points, the rest under `items/`. Each data item is `data/NNN.EXT` in the form
//! that suits it (text, settings, PNG, Opus, tiles as text, quads and sound sources as TOML,
//! raw bytes otherwise). Items refer to data items and to each other by index, as the file
//! does, with comments naming what they point at.

use std::path::{Path, PathBuf};

use twcodec_schema::map::envelope::{CurveType, EnvPoint, EnvelopeKind};
use twcodec_schema::map::layer::LayerBody;
use twcodec_schema::map::{MapItem, MapItemKind};

use super::data::{self, Holds, TileType};
use super::points::{self, Gather, PointsLayout};
use super::{ItemEntry, Streams};
use crate::datafile::Datafile;
use crate::error::Error;
use crate::items::{decode_context, decode_item, item_kind};

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

/// Writes the map (or any datafile) `bytes` as a directory at `dir`, which must not exist or
/// be empty.
pub fn unpack(bytes: &[u8], dir: &Path) -> Result<Unpacked, Error> {
    let datafile = Datafile::parse(bytes)?;
    if dir.exists() {
        let mut entries =
            std::fs::read_dir(dir).map_err(|e| Error::io("read the directory", dir, e))?;
        if entries.next().is_some() {
            return Err(Error::new(
                crate::ErrorKind::InvalidOptions,
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
    for item in decoded.iter().flatten() {
        classify(item, &mut holds);
    }
    // The data files first: item files name them. Each data item is inflated once, for its
    // stream's content hash and its file.
    let data_dir = dir.join("data");
    create(&data_dir)?;
    let mut raw = 0;
    let mut files = Vec::with_capacity(datafile.data_count());
    let mut streams = Streams::of_visiting(&datafile, |index, bytes| {
        let holds = holds.get(index).copied().flatten();
        let file = holds.and_then(|holds| data::to_file(&bytes, holds));
        let (ext, contents) = match file {
            Some(file) => (file.ext, file.bytes),
            None => {
                raw += 1;
                ("bin", bytes.into_owned())
            }
        };
        files.push((format!("data/{index:03}.{ext}"), contents));
        Ok(())
    })?;
    for (entry, (name, _)) in streams.layout.data.iter_mut().zip(&files) {
        entry.file = Some(name.clone());
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
        crate::write::save(dir.join(name), &contents)?;
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
    let (mut group, mut layer) = (0, 0);
    for (index, (item, decoded)) in datafile.items().iter().zip(&decoded).enumerate() {
        let kind = item_kind(&datafile, item.type_id());
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
                _ => names.annotate(&text),
            },
            None => {
                let raw = MapItem::Unknown {
                    ints: item.data.clone(),
                };
                toml::to_string(&raw).map_err(|e| Error::malformed(format!("TOML: {e}")))?
            }
        };
        // The item's own name, when it has one, makes the file easy to find.
        let name = match &labels[index] {
            Some(label) => format!(
                "{index:03} {} {}.toml",
                kind.name(),
                crate::assets::safe_name(Some(label), "", index)
            ),
            None => format!("{index:03} {}.toml", kind.name()),
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
        let file = match folder {
            Some(folder) => format!("groups/{folder}/{name}"),
            None => format!("items/{name}"),
        };
        if let Some(parent) = dir.join(&file).parent() {
            create(parent)?;
        }
        crate::write::save(dir.join(&file), text.as_bytes())?;
        items.push(ItemEntry {
            type_id: item.type_id(),
            id: item.id(),
            file,
        });
    }
    streams.layout.groups_hold_layers = folders.is_some();
    streams.layout.envelope_points = split.map(|split| split.layout);
    streams.layout.items = items;
    streams.layout.problems = crate::Map::parse(bytes).ok().map(|map| errors_of(&map));
    streams.save(dir)?;
    Ok(Unpacked {
        items: datafile.items().len(),
        data: datafile.data_count(),
        raw,
    })
}

/// [`unpack`] of the file at `file`; errors name it.
pub fn unpack_file(file: &Path, dir: &Path) -> Result<Unpacked, Error> {
    let bytes = std::fs::read(file).map_err(|e| Error::io("read", file, e))?;
    unpack(&bytes, dir).map_err(|e| e.with_path(file))
}

/// The group folders of a map whose groups' layer ranges cover its layers in order.
struct Folders {
    /// Each group's folder name, `NN NAME`.
    groups: Vec<String>,
    /// The group of each layer.
    layer_group: Vec<usize>,
}

/// The [`Folders`] of the items, when every group and layer decodes and the groups' ranges
/// run one after another over all the layers.
fn group_folders(datafile: &Datafile, decoded: &[Option<MapItem>]) -> Option<Folders> {
    let group_type = twcodec_schema::map::MapItemKind::Group.type_id()?;
    let layer_type = twcodec_schema::map::MapItemKind::Layer.type_id()?;
    let mut groups = Vec::new();
    let mut layer_group = Vec::new();
    let mut layers = 0usize;
    for (item, decoded) in datafile.items().iter().zip(decoded) {
        match (item.type_id(), decoded) {
            (t, Some(MapItem::Group(group))) if t == group_type => {
                if usize::try_from(group.start_layer).ok()? != layer_group.len() {
                    return None;
                }
                let count = usize::try_from(group.num_layers).ok()?;
                let index = groups.len();
                layer_group.extend(std::iter::repeat_n(index, count));
                let name = group.name.as_ref().map(|n| n.to_string_lossy());
                groups.push(format!(
                    "{index:02} {}",
                    crate::assets::safe_name(name.as_deref(), "group", index)
                ));
            }
            (t, Some(MapItem::Layer(_))) if t == layer_type => layers += 1,
            (t, _) if t == group_type || t == layer_type => return None,
            _ => {}
        }
    }
    (layers == layer_group.len() && !groups.is_empty()).then_some(Folders {
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
    layers: Vec<String>,
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
                MapItem::Layer(_) => names.layers.push(name),
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
            "start_layer" => (&self.layers, "layer"),
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

fn create(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create the directory", dir, e))
}

/// Builds the datafile the directory at `dir` describes: the original bytes when nothing was
/// changed. Errors name the file (and the line, for text files); nothing is written.
///
/// Item files the layout does not list are new items (docs/mapdir.md, "New items"): each gets
/// the next free id of its type and comes after the items of its type the layout lists; a new
/// layer takes its place among its folder's layers, a new folder with a group file is a new
/// group.
pub fn pack(dir: &Path) -> Result<Vec<u8>, Error> {
    let streams = Streams::load(dir)?;
    let layout = streams.layout();
    let points_layout = points_layout(layout);
    let mut packing = Packing {
        dir,
        layout,
        writer: layout.writer(),
        gather: points_layout.as_ref().map(Gather::new),
        placed: Vec::new(),
    };
    if layout.groups_hold_layers {
        packing.add_grouped_items()?;
    } else {
        // Items in the layout's order; a deleted file removes its item.
        for entry in &layout.items {
            if rebuilt(layout, entry) {
                continue;
            }
            let path = inside(dir, &entry.file)?;
            if let Some(item) = read_item(&path, None, &mut packing.gather)? {
                packing.place(entry.clone(), item.ints);
            }
        }
    }
    packing.add_new_items()?;
    let Packing {
        mut writer,
        gather,
        placed,
        ..
    } = packing;
    let gathered = gather.filter(|g| layout.envelope_points.is_some() || g.envelopes() > 0);
    if let (Some(gather), Some(points)) = (gathered, &points_layout) {
        let (items, bezier) = gather.items(points)?;
        let encode = |item: &MapItem| {
            item.encode()
                .map_err(|e| Error::from_binrw(e, "envelope points").with_path(dir))
        };
        writer.add_item(points.points_item.0, points.points_item.1, encode(&items)?);
        if let (Some((type_id, id)), Some(bezier)) = (points.bezier_item, bezier) {
            writer.add_item(type_id, id, encode(&bezier)?);
        }
    }
    // Data items in order of their file names' numbers, which must run 0, 1, 2, ...
    let data_dir = dir.join("data");
    let mut files: Vec<(usize, PathBuf)> = Vec::new();
    let listing =
        std::fs::read_dir(&data_dir).map_err(|e| Error::io("read the directory", &data_dir, e))?;
    for entry in listing {
        let path = entry
            .map_err(|e| Error::io("read the directory", &data_dir, e))?
            .path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let index = name
            .as_deref()
            .and_then(|n| n.split_once('.'))
            .and_then(|(number, _)| number.parse::<usize>().ok());
        match index {
            Some(index) => files.push((index, path)),
            None => {
                return Err(Error::malformed(format!(
                    "{}: a data file is named NNN.EXT (its index, then its form)",
                    path.display()
                )))
            }
        }
    }
    files.sort();
    for (expected, (index, path)) in files.iter().enumerate() {
        if *index != expected {
            return Err(Error::malformed(format!(
                "{}: data item {index} where {expected} comes next (data files are numbered \
                 0, 1, 2, ... without gaps)",
                path.display()
            )));
        }
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let ext = name
            .as_deref()
            .and_then(|n| n.split_once('.'))
            .map(|(_, ext)| ext.to_string())
            .unwrap_or_default();
        let bytes = std::fs::read(path).map_err(|e| Error::io("read", path, e))?;
        let data = data::from_file(&ext, &bytes)
            .map_err(|e| Error::malformed(format!("{}: {}", path.display(), e.message())))?;
        streams.add_data(&mut writer, *index, data);
    }
    let bytes = writer.to_vec()?;
    check(dir, layout, &placed, &bytes)?;
    Ok(bytes)
}

/// The map at `path`: a map file, or a directory `unpack` wrote, packed in memory (so that
/// `diff` and other readers take either).
pub fn load(path: &Path) -> Result<crate::Map, Error> {
    if path.is_dir() {
        let bytes = pack(path).map_err(|e| e.with_path(path))?;
        crate::Map::parse(&bytes).map_err(|e| e.with_path(path))
    } else {
        crate::Map::load(path)
    }
}

/// The errors of `map`'s problems, as text.
fn errors_of(map: &crate::Map) -> Vec<String> {
    (map.problems().iter())
        .filter(|p| p.severity == crate::map::Severity::Error)
        .map(|p| p.to_string())
        .collect()
}

/// Refuses a packed map with errors the original did not have (a reference to an image that
/// is not there, ...), naming the item's file and the field's line.
fn check(
    dir: &Path,
    layout: &super::Layout,
    placed: &[ItemEntry],
    bytes: &[u8],
) -> Result<(), Error> {
    let Some(known) = &layout.problems else {
        return Ok(());
    };
    let map = crate::Map::parse(bytes).map_err(|e| {
        Error::malformed(format!(
            "{}: the directory makes a map that does not load: {e}",
            dir.display()
        ))
    })?;
    let mut new = Vec::new();
    for problem in map.problems() {
        if problem.severity != crate::map::Severity::Error || known.contains(&problem.to_string()) {
            continue;
        }
        let entry = problem.item.and_then(|place| {
            (placed.iter()).find(|e| e.type_id == place.type_id && e.id == place.id)
        });
        let at = match entry {
            Some(entry) => {
                let text = std::fs::read_to_string(dir.join(&entry.file)).unwrap_or_default();
                let line = problem.field.and_then(|field| {
                    let key = format!("{field} =");
                    text.lines().position(|l| l.trim_start().starts_with(&key))
                });
                match line {
                    Some(line) => format!("{}:{}: ", entry.file, line + 1),
                    None => format!("{}: ", entry.file),
                }
            }
            None => String::new(),
        };
        new.push(format!("{at}{problem}"));
    }
    if new.is_empty() {
        return Ok(());
    }
    Err(Error::malformed(format!(
        "the directory makes a map with errors (nothing written): {}",
        new.join("; ")
    )))
}

/// An item read from its file.
struct ReadItem {
    kind: MapItemKind,
    ints: Vec<i32>,
}

/// The item in the file at `path`, `None` when there is no such file; `range` sets a group's
/// `start_layer` and `num_layers`; `gather` takes an envelope's points.
fn read_item(
    path: &Path,
    range: Option<(usize, usize)>,
    gather: &mut Option<Gather>,
) -> Result<Option<ReadItem>, Error> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("read", path, e)),
    };
    let at = |e: &toml::de::Error| {
        Error::malformed(format!("{}{}", path.display(), super::toml_at(&text, e)))
    };
    let mut table: toml::Table = toml::from_str(&text).map_err(|e| at(&e))?;
    if let Some((start, count)) = range {
        let int = |n: usize| toml::Value::Integer(i64::try_from(n).unwrap_or(i64::MAX));
        table.insert("start_layer".into(), int(start));
        table.insert("num_layers".into(), int(count));
    }
    let envelope = table.get("kind").and_then(toml::Value::as_str) == Some("envelope");
    if let Some(gather) = gather.as_mut().filter(|_| envelope) {
        gather.take(&mut table).map_err(|e| at(&e))?;
    }
    let item: MapItem = table.try_into().map_err(|e| at(&e))?;
    let ints = item
        .encode()
        .map_err(|e| Error::from_binrw(e, "item").with_path(path))?;
    Ok(Some(ReadItem {
        kind: item.kind(),
        ints,
    }))
}

/// The `kind` of the item file at `path` (`"layer"`, `"group"`, ...), for a file the layout
/// does not list.
fn kind_of(path: &Path) -> Result<String, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| {
        Error::malformed(format!("{}{}", path.display(), super::toml_at(&text, &e)))
    })?;
    match table.get("kind").and_then(toml::Value::as_str) {
        Some(kind) => Ok(kind.to_string()),
        None => Err(Error::malformed(format!(
            "{}: a new item file says what it is with `kind = \"...\"` (layer, group, image, \
             envelope, sound, ...)",
            path.display()
        ))),
    }
}

/// How `pack` rebuilds the envelope points: the layout's way, or, for a map that had no
/// envelopes, DDNet's (six-int points, no bezier item) so that new envelopes can list theirs.
/// `None` when the map's envelopes keep their points item as a file of its own.
fn points_layout(layout: &super::Layout) -> Option<PointsLayout> {
    if let Some(points) = &layout.envelope_points {
        return Some(points.clone());
    }
    let points_type = MapItemKind::EnvPoints.type_id().unwrap_or(6);
    let has_envelopes =
        (layout.items.iter()).any(|e| e.type_id == ENVELOPE || e.type_id == points_type);
    (!has_envelopes).then_some(PointsLayout {
        form22: false,
        points_item: (points_type, 0),
        bezier_item: None,
    })
}

/// What `pack` builds: the items written so far, the envelope points gathered from the
/// envelope files, and the file of each item written (to name it in errors).
struct Packing<'d> {
    dir: &'d Path,
    layout: &'d super::Layout,
    writer: crate::DatafileWriter,
    gather: Option<Gather>,
    placed: Vec<ItemEntry>,
}

impl Packing<'_> {
    /// Writes the item of `entry` with `ints`.
    fn place(&mut self, entry: ItemEntry, ints: Vec<i32>) {
        self.writer.add_item(entry.type_id, entry.id, ints);
        self.placed.push(entry);
    }

    /// Adds `item`, read from the new file `file`, with the next free id of its type (a UUID
    /// type gets its internal type id, and its UUID index item, when the map has none yet).
    fn add_new_item(&mut self, file: String, item: ReadItem) -> Result<(), Error> {
        let writer = &mut self.writer;
        let known = match (item.kind.type_id(), item.kind.uuid()) {
            (Some(type_id), _) => Some(type_id),
            (None, Some(uuid)) => writer.uuid_type(uuid),
            (None, None) => {
                return Err(Error::malformed(format!(
                    "{file}: a new item of kind {:?} has no type id to be written with",
                    item.kind.name()
                )))
            }
        };
        let next = known.map_or(0, |type_id| {
            (writer.items().iter())
                .filter(|i| i.type_id() == type_id)
                .map(|i| u32::from(i.id()) + 1)
                .max()
                .unwrap_or(0)
        });
        let id = u16::try_from(next)
            .map_err(|_| Error::malformed(format!("{file}: every id of its item type is taken")))?;
        let type_id = match (known, item.kind.uuid()) {
            (None, Some(uuid)) => writer.add_uuid_item(uuid, id, item.ints)?,
            (type_id, _) => {
                let type_id = type_id.unwrap_or_default();
                writer.add_item(type_id, id, item.ints);
                type_id
            }
        };
        self.placed.push(ItemEntry { type_id, id, file });
        Ok(())
    }

    /// Adds the items of the files under `items/` the layout does not list, in name order.
    /// Groups and layers belong in group folders when the directory has them.
    fn add_new_items(&mut self) -> Result<(), Error> {
        let (dir, layout) = (self.dir, self.layout);
        let items_dir = dir.join("items");
        if !items_dir.is_dir() {
            return Ok(());
        }
        let listed: std::collections::HashSet<&str> =
            layout.items.iter().map(|e| e.file.as_str()).collect();
        for path in sorted_entries(&items_dir)? {
            let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
                continue;
            };
            let file = format!("items/{name}");
            if listed.contains(file.as_str()) || !name.ends_with(".toml") {
                continue;
            }
            if layout.groups_hold_layers && matches!(kind_of(&path)?.as_str(), "group" | "layer") {
                return Err(Error::malformed(format!(
                    "{}: groups and layers of this directory live in the folders under groups/ \
                 (a new layer file in its group's folder, a new group as a new folder with \
                 its group file)",
                    path.display()
                )));
            }
            if let Some(item) = read_item(&path, None, &mut self.gather)? {
                self.add_new_item(file, item)?;
            }
        }
        Ok(())
    }

    /// The items of a directory whose group folders hold their layers: groups in folder order,
    /// each with the range of the layers in its folder, layers in that order, the other items as
    /// the layout lists them. A layer file moved to another folder moves the layer; a deleted
    /// one deletes it; a new one (a file the layout does not list, saying `kind = "layer"`) is
    /// a new layer, and a new folder with a new group file a new group.
    fn add_grouped_items(&mut self) -> Result<(), Error> {
        let (dir, layout) = (self.dir, self.layout);
        let group_type = MapItemKind::Group.type_id().unwrap_or(4);
        let layer_type = MapItemKind::Layer.type_id().unwrap_or(5);
        // Each layout entry by its file name, wherever the file is now.
        let file_name = |file: &str| file.rsplit('/').next().unwrap_or(file).to_string();
        let by_name: std::collections::HashMap<String, &ItemEntry> = (layout.items.iter())
            .map(|entry| (file_name(&entry.file), entry))
            .collect();
        for entry in &layout.items {
            if entry.type_id != group_type && entry.type_id != layer_type && !rebuilt(layout, entry)
            {
                let path = inside(dir, &entry.file)?;
                if let Some(item) = read_item(&path, None, &mut self.gather)? {
                    self.place(entry.clone(), item.ints);
                }
            }
        }
        // New groups and layers take ids after the highest their type has in the layout.
        let next_id = |type_id: u16| {
            (layout.items.iter())
                .filter(|e| e.type_id == type_id)
                .map(|e| u32::from(e.id) + 1)
                .max()
                .unwrap_or(0)
        };
        let mut next = [next_id(group_type), next_id(layer_type)];
        let mut new_entry = |type_id: u16, path: &Path| -> Result<ItemEntry, Error> {
            let slot = usize::from(type_id == layer_type);
            let id = u16::try_from(next[slot]).map_err(|_| {
                Error::malformed(format!(
                    "{}: every id of its item type is taken",
                    path.display()
                ))
            })?;
            next[slot] += 1;
            let file = path.strip_prefix(dir).unwrap_or(path);
            let file = file.to_string_lossy().replace('\\', "/");
            Ok(ItemEntry { type_id, id, file })
        };
        let groups_dir = dir.join("groups");
        let mut folders = sorted_entries(&groups_dir)?;
        folders.retain(|p| p.is_dir());
        let mut seen = std::collections::HashSet::new();
        let mut layers: Vec<(ItemEntry, PathBuf)> = Vec::new();
        let mut groups: Vec<(ItemEntry, PathBuf, usize, usize)> = Vec::new();
        for folder in &folders {
            let mut group: Option<(ItemEntry, PathBuf)> = None;
            let start = layers.len();
            for path in sorted_entries(folder)? {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                let entry = name.as_deref().and_then(|n| by_name.get(n));
                let entry = match entry {
                    Some(entry) if entry.type_id == layer_type || entry.type_id == group_type => {
                        if !seen.insert(*entry as *const ItemEntry) {
                            return Err(Error::malformed(format!(
                                "{}: a second file named {:?}: each item file is kept once, \
                             so a new item needs a name of its own",
                                path.display(),
                                name.unwrap_or_default()
                            )));
                        }
                        (*entry).clone()
                    }
                    Some(_) => {
                        return Err(Error::malformed(format!(
                            "{}: not a group or layer file: only those live in group folders",
                            path.display()
                        )))
                    }
                    None => match kind_of(&path)?.as_str() {
                        "layer" => new_entry(layer_type, &path)?,
                        "group" => new_entry(group_type, &path)?,
                        other => {
                            return Err(Error::malformed(format!(
                                "{}: a new {other:?} item in a group folder, which holds only \
                             its group and layers (other new items go under items/)",
                                path.display()
                            )))
                        }
                    },
                };
                if entry.type_id == layer_type {
                    layers.push((entry, path));
                } else if let Some((_, first)) = &group {
                    return Err(Error::malformed(format!(
                        "{}: a second group file in the folder of {}",
                        path.display(),
                        first.display()
                    )));
                } else {
                    group = Some((entry, path));
                }
            }
            let (entry, path) = group.ok_or_else(|| {
                Error::malformed(format!(
                    "{}: a group folder without its group file",
                    folder.display()
                ))
            })?;
            groups.push((entry, path, start, layers.len() - start));
        }
        for (entry, path, start, count) in groups {
            if let Some(item) = read_item(&path, Some((start, count)), &mut None)? {
                self.place(entry, item.ints);
            }
        }
        for (entry, path) in layers {
            if let Some(item) = read_item(&path, None, &mut None)? {
                self.place(entry, item.ints);
            }
        }
        Ok(())
    }
}

/// The envelope item type.
const ENVELOPE: u16 = 3;

/// Whether `pack` rebuilds this item from the envelope files rather than reading a file.
fn rebuilt(layout: &super::Layout, entry: &ItemEntry) -> bool {
    (layout.envelope_points.as_ref()).is_some_and(|p| p.rebuilds(entry.type_id, entry.id))
}

/// The entries of `dir`, sorted by name.
fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let listing = std::fs::read_dir(dir).map_err(|e| Error::io("read the directory", dir, e))?;
    let mut paths = Vec::new();
    for entry in listing {
        paths.push(
            entry
                .map_err(|e| Error::io("read the directory", dir, e))?
                .path(),
        );
    }
    paths.sort();
    Ok(paths)
}

/// `dir/relative`, refusing paths that leave `dir`.
fn inside(dir: &Path, relative: &str) -> Result<PathBuf, Error> {
    let path = Path::new(relative);
    let plain = path
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !plain {
        return Err(Error::malformed(format!(
            ".twcodec/layout.toml names {relative:?}, which is not a path inside the directory"
        )));
    }
    Ok(dir.join(path))
}
