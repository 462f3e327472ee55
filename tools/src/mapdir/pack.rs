//! `pack`: a directory that [`unpack`](super::unpack) wrote, and people edited, built back into
//! a map (docs/mapdir.md).
//!
//! Files are found by what they are, not where they are: an item file that says `id = N` is
//! the item of its kind with that id in `.twcodec/layout.toml`, wherever it lies and whatever
//! its name; a file without an `id` line is the listed item of its path, else a new item. The
//! order of groups (folders), layers (files in a folder), images, envelopes and sounds is the
//! order of their file names compared as people sort them (numbers by value). Every reference
//! follows its target ([`super::refs`]): the files name items by the directory's numbering (the
//! unpacked map's positions, new items numbered on after them), and `pack` renumbers them into
//! the packed map's, as `Map::move_*`, `Map::remove_*` and `Map::insert_*` do.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use twcodec_schema::map::group::GroupExItem;
use twcodec_schema::map::quad::Quad;
use twcodec_schema::map::sound::SoundSource;
use twcodec_schema::map::{MapItem, MapItemKind};

use super::names::natural_cmp;
use super::points::{Gather, PointsLayout};
use super::refs::{self, Renumber, Target};
use super::{data, ItemEntry, Layout, Streams};
use twcodec::Error;

/// What [`pack_with_notes`] built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    /// The map file.
    pub bytes: Vec<u8>,
    /// What followed from a deletion and a reader may want to know: references to deleted
    /// items that became none, auto-mapper configurations that went with their layer, data
    /// items that no item names any more.
    pub notes: Vec<String>,
}

/// Builds the datafile the directory at `dir` describes: the original bytes when nothing was
/// changed. Errors name the file (and the line, for text files); nothing is written.
///
/// Item files the layout does not list are new items (docs/mapdir.md, "New items"); a new
/// layer takes its place among its folder's layers, a new folder with a group file is a new
/// group.
pub fn pack(dir: &Path) -> Result<Vec<u8>, Error> {
    pack_with_notes(dir).map(|packed| packed.bytes)
}

/// [`pack`], with what followed from deletions.
pub fn pack_with_notes(dir: &Path) -> Result<Packed, Error> {
    let streams = Streams::load(dir)?;
    let layout = streams.layout();
    let tree = Tree::read(dir, layout)?;
    let mut packing = Packing::new(dir, layout, tree);
    packing.order()?;
    packing.decode()?;
    let data = packing.read_data()?;
    let data = packing.renumber(data)?;
    packing.follow_automappers();
    packing.follow_group_extensions();
    let (bytes, placed) = packing.write(&streams, data)?;
    let texts: HashMap<&str, &str> = (packing.tree.files.iter())
        .map(|f| (f.file.as_str(), f.text.as_str()))
        .collect();
    check(dir, layout, &placed, &texts, &bytes)?;
    Ok(Packed {
        bytes,
        notes: packing.notes,
    })
}

/// The map at `path`: a map file, or a directory `unpack` wrote, packed in memory (so that
/// `diff` and other readers take either). Loaded lazily: content is decoded when asked for
/// (the diff decodes only what changed).
pub fn load(path: &Path) -> Result<twcodec::Map, Error> {
    if path.is_dir() {
        let bytes = pack(path).map_err(|e| e.with_path(path))?;
        twcodec::Map::parse_with(&bytes, twcodec::Decode::Lazy).map_err(|e| e.with_path(path))
    } else {
        twcodec::Map::open_with(path, twcodec::Decode::Lazy)
    }
}

/// The kinds whose files say their `id`, and that `pack` orders by file name.
const IDENTIFIED: [MapItemKind; 5] = [
    MapItemKind::Group,
    MapItemKind::Layer,
    MapItemKind::Image,
    MapItemKind::Envelope,
    MapItemKind::Sound,
];

/// The `kind` tag of `kind` in an item file (serde's name of the `MapItem` variant).
fn tag(kind: MapItemKind) -> &'static str {
    match kind {
        MapItemKind::Group => "group",
        MapItemKind::Layer => "layer",
        MapItemKind::Image => "image",
        MapItemKind::Envelope => "envelope",
        MapItemKind::Sound => "sound",
        _ => "",
    }
}

fn type_of(kind: MapItemKind) -> u16 {
    kind.type_id().unwrap_or_default()
}

/// An item file of the directory.
struct ItemFile {
    /// Its path relative to the directory, with `/`.
    file: String,
    /// Its text, for the lines of errors.
    text: String,
    /// Its fields (without `id`), until decoded.
    table: toml::Table,
    /// Its `kind`.
    kind: String,
    /// The layout entry it is (an index into `layout.items`); `None` for a new item.
    entry: Option<usize>,
    /// The item, once decoded.
    item: Option<MapItem>,
}

impl ItemFile {
    fn is(&self, kind: MapItemKind) -> bool {
        self.kind == tag(kind)
    }

    /// An error about this file at the line `error` points at.
    fn toml_error(&self, error: &toml::de::Error) -> Error {
        Error::malformed(format!(
            "{}{}",
            self.file,
            super::toml_at(&self.text, error)
        ))
    }
}

/// A group folder: its group file and its layer files, in order (indices into the files).
struct Folder {
    group: usize,
    layers: Vec<usize>,
}

/// The item files of a directory, identified.
struct Tree {
    files: Vec<ItemFile>,
    /// The group folders in order, when the groups hold their layers.
    folders: Vec<Folder>,
    /// The files under `items/`, in name order.
    items: Vec<usize>,
}

impl Tree {
    fn read(dir: &Path, layout: &Layout) -> Result<Tree, Error> {
        let mut files = Vec::new();
        let mut budget = Budget::default();
        let mut folders = Vec::new();
        if layout.groups_hold_layers {
            for (name, path) in listing(&dir.join("groups"), true)? {
                let folder_path = format!("groups/{name}");
                let mut group = None;
                let mut layers = Vec::new();
                for (file_name, _) in listing(&path, false)? {
                    let file = read_file(dir, format!("{folder_path}/{file_name}"), &mut budget)?;
                    let index = files.len();
                    match file.kind.as_str() {
                        "layer" => layers.push(index),
                        "group" => {
                            if let Some(first) = group {
                                let first: &ItemFile = &files[first];
                                return Err(Error::malformed(format!(
                                    "{}: a second group file in the folder of {}",
                                    file.file, first.file
                                )));
                            }
                            group = Some(index);
                        }
                        other => {
                            return Err(Error::malformed(format!(
                                "{}: kind = {other:?}, but a group folder holds only its \
                                 group and layers (other items go under items/)",
                                file.file
                            )))
                        }
                    }
                    files.push(file);
                }
                let group = group.ok_or_else(|| {
                    Error::malformed(format!(
                        "{folder_path}: a group folder without its group file"
                    ))
                })?;
                folders.push(Folder { group, layers });
            }
        }
        let mut items = Vec::new();
        let items_dir = dir.join("items");
        {
            for (name, _) in listing(&items_dir, false)? {
                let file = read_file(dir, format!("items/{name}"), &mut budget)?;
                if layout.groups_hold_layers && (file.kind == "group" || file.kind == "layer") {
                    return Err(Error::malformed(format!(
                        "{}: groups and layers of this directory live in the folders under \
                         groups/ (a new layer file in its group's folder, a new group as a new \
                         folder with its group file)",
                        file.file
                    )));
                }
                items.push(files.len());
                files.push(file);
            }
        }
        let mut tree = Tree {
            files,
            folders,
            items,
        };
        tree.identify(layout)?;
        Ok(tree)
    }

    /// Finds the layout entry of each file: by its `id` line, else by its path (or, for a
    /// group or layer file of an older directory moved to another folder, its file name).
    fn identify(&mut self, layout: &Layout) -> Result<(), Error> {
        // By type, id and how many items of the same id come before it (`nth`: ids repeat in
        // some real maps).
        let mut by_id: HashMap<(u16, u16, i64), usize> = HashMap::new();
        let mut seen: HashMap<(u16, u16), i64> = HashMap::new();
        for (i, entry) in layout.items.iter().enumerate() {
            let nth = seen.entry((entry.type_id, entry.id)).or_default();
            by_id.insert((entry.type_id, entry.id, *nth), i);
            *nth += 1;
        }
        let by_path: HashMap<&str, usize> = (layout.items.iter().enumerate())
            .filter(|(_, e)| !e.file.is_empty())
            .map(|(i, e)| (e.file.as_str(), i))
            .collect();
        let base = |file: &str| file.rsplit('/').next().unwrap_or(file).to_string();
        let mut by_name: HashMap<String, Option<usize>> = HashMap::new();
        for (i, entry) in layout.items.iter().enumerate() {
            let grouped = [type_of(MapItemKind::Group), type_of(MapItemKind::Layer)];
            if grouped.contains(&entry.type_id) && entry.file.starts_with("groups/") {
                by_name
                    .entry(base(&entry.file))
                    .and_modify(|e| *e = None)
                    .or_insert(Some(i));
            }
        }
        let mut claimed: HashMap<usize, usize> = HashMap::new();
        for index in 0..self.files.len() {
            let file = &mut self.files[index];
            let kind = IDENTIFIED.iter().copied().find(|&k| file.kind == tag(k));
            let (id, nth) = match kind {
                Some(_) => (file.table.remove("id"), file.table.remove("nth")),
                None => (None, None),
            };
            let entry = match (kind, id) {
                (Some(kind), Some(id)) => {
                    let id = id.as_integer().and_then(|id| u16::try_from(id).ok());
                    let nth = nth.map_or(Some(0), |n| n.as_integer());
                    let key = id.zip(nth).map(|(id, nth)| (type_of(kind), id, nth));
                    let found = key.and_then(|key| by_id.get(&key).copied());
                    match found {
                        Some(entry) => Some(entry),
                        None => {
                            return Err(Error::malformed(format!(
                                "{}: `id` names no {} of this directory (.twcodec/layout.toml \
                                 lists each item's id): a new item has no `id` line",
                                file.file,
                                tag(kind)
                            )))
                        }
                    }
                }
                _ => by_path.get(file.file.as_str()).copied().or_else(|| {
                    // Directories of the first form have no `id` lines: a group or layer file
                    // moved to another folder is found by its name, unique there.
                    let moved =
                        layout.form < 2 && file.file.starts_with("groups/") && kind.is_some();
                    moved
                        .then(|| by_name.get(&base(&file.file)).copied().flatten())
                        .flatten()
                }),
            };
            let Some(entry) = entry else { continue };
            let listed = &layout.items[entry];
            let kind_matches = kind.is_none_or(|kind| type_of(kind) == listed.type_id);
            if !kind_matches {
                return Err(Error::malformed(format!(
                    "{}: kind = {:?}, but this file is item {} of type {} in \
                     .twcodec/layout.toml (a new item needs a file of its own)",
                    file.file, file.kind, listed.id, listed.type_id
                )));
            }
            if let Some(&other) = claimed.get(&entry) {
                return Err(Error::malformed(format!(
                    "{}: the same item as {} (each item has one file; a copy is a new item: \
                     remove its `id` line)",
                    self.files[index].file, self.files[other].file
                )));
            }
            claimed.insert(entry, index);
            self.files[index].entry = Some(entry);
        }
        Ok(())
    }
}

/// The entries of `dir` that `pack` reads, sorted by name as people sort (numbers by value):
/// folders when `folders`, else `.toml` files; names starting with `.` are left out.
///
/// Nothing is read through a link: a symbolic link among them (or as the folder itself) is an
/// error, so that a directory someone else made cannot make `pack` read a file outside it.
fn listing(dir: &Path, folders: bool) -> Result<Vec<(String, PathBuf)>, Error> {
    // git keeps no empty folders: a missing `groups/` or `data/` is an empty one.
    if !super::own_folder(dir)? {
        return Ok(Vec::new());
    }
    let read = std::fs::read_dir(dir).map_err(|e| Error::io("read the directory", dir, e))?;
    let mut out = Vec::new();
    for entry in read {
        let entry = entry.map_err(|e| Error::io("read the directory", dir, e))?;
        too_many(dir, out.len())?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(|e| Error::io("read the directory", dir, e))?;
        if kind.is_symlink() {
            return Err(twcodec::input::a_link(&path));
        }
        let wanted = match folders {
            true => kind.is_dir(),
            false => !kind.is_dir() && name.ends_with(".toml"),
        };
        if wanted {
            out.push((name, path));
        }
    }
    out.sort_by(|a, b| natural_cmp(&a.0, &b.0));
    Ok(out)
}

/// What reading the item files may take: as many files as a map may have items, and as many
/// bytes as its data may have in all.
#[derive(Default)]
struct Budget {
    files: usize,
    bytes: usize,
}

/// An error when a folder holds more entries than a map may have items.
fn too_many(dir: &Path, count: usize) -> Result<(), Error> {
    let max = twcodec::Limits::DEFAULT.max_items();
    match count > max {
        true => Err(Error::limit(format!(
            "{} holds more than {max} entries, more than a map may have items (Limits::max_items)",
            dir.display()
        ))),
        false => Ok(()),
    }
}

/// The item file at `file` (relative to `dir`), parsed.
fn read_file(dir: &Path, file: String, budget: &mut Budget) -> Result<ItemFile, Error> {
    let limits = twcodec::Limits::DEFAULT;
    budget.files += 1;
    if budget.files > limits.max_items() {
        return Err(Error::limit(format!(
            "{file}: more item files than a map may have items (Limits::max_items {})",
            limits.max_items()
        )));
    }
    let path = dir.join(&file);
    let max = limits.max_data_size() as u64;
    let text = twcodec::input::read_own_text(&path, max, "Limits::max_data_size")?;
    budget.bytes = budget.bytes.saturating_add(text.len());
    if budget.bytes > limits.max_total_data() {
        return Err(Error::limit(format!(
            "{file}: the item files hold more than the {} bytes a map's data may (Limits::max_total_data)",
            limits.max_total_data()
        )));
    }
    let table: toml::Table = toml::from_str(&text)
        .map_err(|e| Error::malformed(format!("{file}{}", super::toml_at(&text, &e))))?;
    let kind = match table.get("kind").and_then(toml::Value::as_str) {
        Some(kind) => kind.to_string(),
        None => {
            return Err(Error::malformed(format!(
                "{file}: an item file says what it is with `kind = \"...\"` (layer, group, \
                 image, envelope, sound, ...)"
            )))
        }
    };
    Ok(ItemFile {
        file,
        text,
        table,
        kind,
        entry: None,
        item: None,
    })
}

/// One kind of item in the packed order, with its renumbering.
#[derive(Default)]
struct Arena {
    /// The files in the packed order.
    order: Vec<usize>,
    /// From the directory's numbering to the packed map's.
    renumber: Renumber,
    /// The file of each deleted item of the directory's numbering (its layout file).
    deleted: HashMap<usize, String>,
}

/// The new data items and what they became.
struct DataItems {
    /// The bytes of each data file (the directory's numbering).
    bytes: Vec<Vec<u8>>,
    /// For a data item kept as its stored bytes (`.stored`), its declared size.
    stored: Vec<Option<usize>>,
    /// Whether each is written.
    kept: Vec<bool>,
}

/// The state of one `pack`.
struct Packing<'d> {
    dir: &'d Path,
    layout: &'d Layout,
    tree: Tree,
    /// Each layout entry's position among the entries of its type.
    rank: Vec<usize>,
    /// How many entries each type has in the layout.
    counts: HashMap<u16, usize>,
    images: Arena,
    envelopes: Arena,
    sounds: Arena,
    /// Items under `items/` of the other kinds: listed ones in layout order, then new ones.
    others: Vec<usize>,
    /// Where each layer of the directory's numbering (group, position in the group) is in the
    /// packed map; `None` for a deleted one.
    layers: HashMap<(i64, i64), Option<(usize, usize)>>,
    /// The group of the directory's numbering of each folder.
    folder_groups: Vec<usize>,
    /// Auto-mappers left out because their layer was deleted (indices into the files).
    dropped: HashSet<usize>,
    /// Group extension items in the packed order, with the new ones to make.
    group_ex: Option<Vec<GroupEx>>,
    /// How the envelope points items are rebuilt, and the points gathered from the envelopes.
    points: Option<PointsLayout>,
    gathered: Option<Gather>,
    notes: Vec<String>,
}

/// A group extension item in the packed order.
enum GroupEx {
    File(usize),
    New(GroupExItem),
}

impl<'d> Packing<'d> {
    fn new(dir: &'d Path, layout: &'d Layout, tree: Tree) -> Packing<'d> {
        let mut counts: HashMap<u16, usize> = HashMap::new();
        let rank = (layout.items.iter())
            .map(|entry| {
                let count = counts.entry(entry.type_id).or_default();
                *count += 1;
                *count - 1
            })
            .collect();
        Packing {
            dir,
            layout,
            tree,
            rank,
            counts,
            images: Arena::default(),
            envelopes: Arena::default(),
            sounds: Arena::default(),
            others: Vec::new(),
            layers: HashMap::new(),
            folder_groups: Vec::new(),
            dropped: HashSet::new(),
            group_ex: None,
            points: None,
            gathered: None,
            notes: Vec::new(),
        }
    }

    /// The item's position in the directory's numbering: a listed one's in the layout, a new
    /// one's after every listed one of its kind (`new` new ones before it).
    fn numbered(&self, file: usize, kind: MapItemKind, new: &mut usize) -> usize {
        match self.tree.files[file].entry {
            Some(entry) => self.rank[entry],
            None => {
                *new += 1;
                self.count(kind) + *new - 1
            }
        }
    }

    fn count(&self, kind: MapItemKind) -> usize {
        self.counts.get(&type_of(kind)).copied().unwrap_or(0)
    }

    /// The arena of `kind` among the files under `items/`, in name order.
    fn arena(&self, kind: MapItemKind) -> Arena {
        let order: Vec<usize> = (self.tree.items.iter().copied())
            .filter(|&f| self.tree.files[f].is(kind))
            .collect();
        self.arena_of(kind, order)
    }

    fn arena_of(&self, kind: MapItemKind, order: Vec<usize>) -> Arena {
        let mut new = 0;
        let numbers: Vec<usize> = (order.iter())
            .map(|&f| self.numbered(f, kind, &mut new))
            .collect();
        let mut to = vec![None; self.count(kind) + new];
        for (position, &number) in numbers.iter().enumerate() {
            to[number] = Some(position);
        }
        let type_id = type_of(kind);
        let deleted = (self.layout.items.iter().enumerate())
            .filter(|(i, e)| e.type_id == type_id && to[self.rank[*i]].is_none())
            .map(|(i, e)| (self.rank[i], e.file.clone()))
            .collect();
        Arena {
            order,
            renumber: Renumber::new(to),
            deleted,
        }
    }

    /// Puts every item in its packed order.
    fn order(&mut self) -> Result<(), Error> {
        self.images = self.arena(MapItemKind::Image);
        self.envelopes = self.arena(MapItemKind::Envelope);
        self.sounds = self.arena(MapItemKind::Sound);
        let identified = |f: &ItemFile| IDENTIFIED.iter().any(|&k| f.is(k));
        let items = &self.tree.items;
        let files = &self.tree.files;
        let mut listed: Vec<usize> = (items.iter().copied())
            .filter(|&f| !identified(&files[f]) && files[f].entry.is_some())
            .collect();
        listed.sort_by_key(|&f| files[f].entry);
        let new =
            (items.iter().copied()).filter(|&f| !identified(&files[f]) && files[f].entry.is_none());
        self.others = listed.into_iter().chain(new).collect();
        if self.layout.groups_hold_layers {
            self.order_layers();
        }
        Ok(())
    }

    /// The packed place of each layer of the directory's numbering (for auto-mappers): the
    /// layout's layers by the folders they were unpacked in, new layers after them.
    fn order_layers(&mut self) {
        let layout = self.layout;
        let folder_of = |file: &str| file.rsplit_once('/').map(|(f, _)| f.to_string());
        let (group_type, layer_type) = (type_of(MapItemKind::Group), type_of(MapItemKind::Layer));
        let mut group_of_folder: HashMap<String, usize> = HashMap::new();
        for (i, entry) in layout.items.iter().enumerate() {
            if entry.type_id == group_type {
                if let Some(folder) = folder_of(&entry.file) {
                    group_of_folder.insert(folder, self.rank[i]);
                }
            }
        }
        // Each listed layer's (group, position) as unpacked.
        let mut in_group: HashMap<usize, usize> = HashMap::new();
        let mut origin: HashMap<usize, (usize, usize)> = HashMap::new();
        for (i, entry) in layout.items.iter().enumerate() {
            if entry.type_id != layer_type {
                continue;
            }
            let group = folder_of(&entry.file).and_then(|f| group_of_folder.get(&f).copied());
            if let Some(group) = group {
                let position = in_group.entry(group).or_default();
                origin.insert(i, (group, *position));
                self.layers.insert((group as i64, *position as i64), None);
                *position += 1;
            }
        }
        let mut new_groups = 0;
        let mut folder_groups = Vec::new();
        for (g, folder) in self.tree.folders.iter().enumerate() {
            let group = self.numbered(folder.group, MapItemKind::Group, &mut new_groups);
            folder_groups.push(group);
            let mut new_layers = 0;
            for (position, &layer) in folder.layers.iter().enumerate() {
                let numbered = match self.tree.files[layer].entry {
                    Some(entry) => origin.get(&entry).copied(),
                    None => {
                        new_layers += 1;
                        let listed = in_group.get(&group).copied().unwrap_or(0);
                        Some((group, listed + new_layers - 1))
                    }
                };
                if let Some((group, at)) = numbered {
                    self.layers
                        .insert((group as i64, at as i64), Some((g, position)));
                }
            }
        }
        self.folder_groups = folder_groups;
    }

    /// Decodes every item file into its item: group ranges from the folders, envelope points
    /// gathered in the packed order of the envelopes.
    fn decode(&mut self) -> Result<(), Error> {
        let points = points_layout(self.layout);
        let mut gather = points.as_ref().map(Gather::new);
        // Groups get their layer ranges from the folders.
        let mut start = 0usize;
        for folder in &self.tree.folders {
            let count = folder.layers.len();
            let int = |n: usize| toml::Value::Integer(i64::try_from(n).unwrap_or(i64::MAX));
            let table = &mut self.tree.files[folder.group].table;
            table.insert("start_layer".into(), int(start));
            table.insert("num_layers".into(), int(count));
            start += count;
        }
        let envelopes = self.envelopes.order.clone();
        for &file in &envelopes {
            let file = &mut self.tree.files[file];
            if let Some(gather) = &mut gather {
                let error = gather.take(&mut file.table).err();
                if let Some(error) = error {
                    return Err(file.toml_error(&error));
                }
            }
        }
        for file in &mut self.tree.files {
            let table = std::mem::take(&mut file.table);
            let item: MapItem = table.try_into().map_err(|e| file.toml_error(&e))?;
            file.item = Some(item);
        }
        self.gathered =
            gather.filter(|g| self.layout.envelope_points.is_some() || g.envelopes() > 0);
        self.points = points;
        Ok(())
    }

    /// The data files in order of their numbers, which run 0, 1, 2, ... without gaps, each as
    /// the bytes it stands for.
    fn read_data(&self) -> Result<DataItems, Error> {
        let data_dir = self.dir.join("data");
        let mut files: Vec<(usize, PathBuf, String)> = Vec::new();
        let mut listing = Vec::new();
        // git keeps no empty folders: none is an empty one.
        if super::own_folder(&data_dir)? {
            let read = std::fs::read_dir(&data_dir)
                .map_err(|e| Error::io("read the directory", &data_dir, e))?;
            for entry in read {
                let entry = entry.map_err(|e| Error::io("read the directory", &data_dir, e))?;
                too_many(&data_dir, listing.len())?;
                let kind = (entry.file_type())
                    .map_err(|e| Error::io("read the directory", &data_dir, e))?;
                if kind.is_symlink() {
                    return Err(twcodec::input::a_link(&entry.path()));
                }
                listing.push(entry.path());
            }
        }
        for path in listing {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let split = name.as_deref().and_then(|n| n.split_once('.'));
            let index = split.and_then(|(number, _)| number.parse::<usize>().ok());
            match (index, split) {
                (Some(index), Some((_, ext))) => files.push((index, path.clone(), ext.to_string())),
                _ => {
                    return Err(Error::malformed(format!(
                        "{}: a data file is named NNN.EXT (its index, then its form)",
                        path.display()
                    )))
                }
            }
        }
        files.sort();
        let limits = twcodec::Limits::DEFAULT;
        if files.len() > limits.max_items() {
            return Err(Error::limit(format!(
                "data/ holds {} files, more data items than a map may have (Limits::max_items {})",
                files.len(),
                limits.max_items()
            )));
        }
        // What the data files stand for, in all: within what a map may hold.
        let mut total = 0usize;
        let mut bytes = Vec::with_capacity(files.len());
        let mut stored = Vec::with_capacity(files.len());
        for (expected, (index, path, ext)) in files.iter().enumerate() {
            if *index != expected {
                return Err(Error::malformed(format!(
                    "{}: data item {index} where {expected} comes next (data files are \
                     numbered 0, 1, 2, ... without gaps)",
                    path.display()
                )));
            }
            let max = limits.max_data_size() as u64;
            let raw = twcodec::input::read_own_file(path, max, "Limits::max_data_size")?;
            total = total.saturating_add(raw.len());
            if ext == "stored" {
                // Stored bytes that do not inflate, written back as they are.
                let size = (self.layout.data.get(*index))
                    .filter(|entry| entry.stored)
                    .map(|entry| entry.size)
                    .ok_or_else(|| {
                        Error::malformed(format!(
                            "data/{}: .stored files hold the stored bytes of a data item that \
                             did not inflate when unpacked; this one is not such an item",
                            file_name(path)
                        ))
                    })?;
                stored.push(Some(size));
                bytes.push(raw);
                continue;
            }
            let data = data::from_file(ext, &raw).map_err(|e| {
                // `FILE:LINE: ...` when the message starts with its line.
                let message = e.message();
                let at_line = (message.split_once(": "))
                    .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
                let colon = if at_line { ":" } else { ": " };
                Error::malformed(format!("data/{}{colon}{message}", file_name(path)))
            })?;
            total = total.saturating_add(data.len()).saturating_sub(raw.len());
            if data.len() > limits.max_data_size() || total > limits.max_total_data() {
                return Err(Error::limit(format!(
                    "data/{}: the data files stand for {total} bytes so far, more than a map may \
                     hold (Limits::max_data_size {} per data item, Limits::max_total_data {} in all)",
                    file_name(path),
                    limits.max_data_size(),
                    limits.max_total_data()
                )));
            }
            bytes.push(data);
            stored.push(None);
        }
        let kept = vec![true; bytes.len()];
        Ok(DataItems {
            bytes,
            stored,
            kept,
        })
    }

    /// Renumbers every reference from the directory's numbering to the packed map's: images,
    /// envelopes (in layers, quads and sound sources), sounds and data items. Data items that
    /// an item named in the unpacked map and none names now are left out, as `Map::remove_*`
    /// leaves them.
    fn renumber(&mut self, mut data: DataItems) -> Result<DataItems, Error> {
        let mut used = vec![false; data.bytes.len()];
        for file in &self.tree.files {
            for raw in file.item.iter().flat_map(refs::data_of) {
                if let Some(slot) = usize::try_from(raw).ok().and_then(|i| used.get_mut(i)) {
                    *slot = true;
                }
            }
        }
        let mut to = Vec::with_capacity(used.len());
        let mut next = 0;
        for (index, used) in used.iter().enumerate() {
            // Data items the unpacked map's items named, and new ones: no item names them.
            let owned = (self.layout.data.get(index)).map_or(Some(true), |e| e.owned);
            if owned == Some(true) && !used {
                data.kept[index] = false;
                let file = (self.layout.data.get(index))
                    .and_then(|e| e.file.clone())
                    .unwrap_or_else(|| format!("data file {index}"));
                self.notes
                    .push(format!("{file}: no item names it (any more): left out"));
                to.push(None);
            } else {
                to.push(Some(next));
                next += 1;
            }
        }
        let data_renumber = Renumber::new(to);
        // Quads and sound sources name envelopes inside their data items.
        if !self.envelopes.renumber.is_identity() {
            let mut done = HashSet::new();
            for file in &self.tree.files {
                let Some(MapItem::Layer(layer)) = &file.item else {
                    continue;
                };
                use twcodec_schema::map::layer::LayerBody;
                let (index, count, quads) = match &layer.body {
                    LayerBody::Quads(q) => (q.data, q.num_quads, true),
                    LayerBody::Sounds(s) | LayerBody::DeprecatedSounds(s) => {
                        (s.data, s.num_sources, false)
                    }
                    _ => continue,
                };
                let count = usize::try_from(count).unwrap_or(0);
                let Some(index) = usize::try_from(index)
                    .ok()
                    .filter(|&i| i < data.bytes.len() && data.stored[i].is_none())
                else {
                    continue;
                };
                if !done.insert(index) {
                    continue;
                }
                let envelopes = &self.envelopes;
                let mut lost = Vec::new();
                let bytes = &mut data.bytes[index];
                let mut follow = |raw: &mut i32| lost.extend(envelopes.renumber.apply(raw));
                if quads {
                    renumber_records::<Quad>(bytes, count, |q| {
                        follow(&mut q.position_envelope);
                        follow(&mut q.color_envelope);
                    });
                } else {
                    renumber_records::<SoundSource>(bytes, count, |s| {
                        follow(&mut s.position_envelope);
                        follow(&mut s.sound_envelope);
                    });
                }
                for old in lost {
                    let what = if quads { "a quad" } else { "a sound source" };
                    let gone = envelopes
                        .deleted
                        .get(&(old as usize))
                        .cloned()
                        .unwrap_or_default();
                    self.notes.push(format!(
                        "{}: {what} named envelope #{old}, which was deleted ({gone}): it has \
                         none now",
                        file.file
                    ));
                }
            }
        }
        let mut notes = Vec::new();
        for file in &mut self.tree.files {
            let Some(item) = &mut file.item else { continue };
            let arenas = [
                (Target::Image, &self.images, "image"),
                (Target::Envelope, &self.envelopes, "envelope"),
                (Target::Sound, &self.sounds, "sound"),
            ];
            refs::visit(item, |target, raw| {
                if target == Target::Data {
                    data_renumber.apply(raw);
                    return;
                }
                for (kind, arena, what) in &arenas {
                    if *kind == target {
                        if let Some(old) = arena.renumber.apply(raw) {
                            let gone = arena
                                .deleted
                                .get(&(old as usize))
                                .cloned()
                                .unwrap_or_default();
                            notes.push(format!(
                                "{}: {what} #{old} was deleted ({gone}): the reference is none now",
                                file.file
                            ));
                        }
                    }
                }
            });
        }
        self.notes.extend(notes);
        Ok(data)
    }

    /// Auto-mapper configurations name their layer by its group and its position in the
    /// group: each follows its layer, and goes when its layer was deleted (as
    /// `Map::remove_layer` does).
    fn follow_automappers(&mut self) {
        if !self.layout.groups_hold_layers {
            return;
        }
        for &index in &self.others {
            let file = &mut self.tree.files[index];
            let Some(MapItem::Automapper(automapper)) = &mut file.item else {
                continue;
            };
            let key = (i64::from(automapper.group), i64::from(automapper.layer));
            match self.layers.get(&key) {
                Some(Some((group, layer))) => {
                    automapper.group = i32::try_from(*group).unwrap_or(-1);
                    automapper.layer = i32::try_from(*layer).unwrap_or(-1);
                }
                Some(None) => {
                    self.dropped.insert(index);
                    self.notes.push(format!(
                        "{}: configures layer #{} of group #{}, which was deleted: left out",
                        file.file, key.1, key.0
                    ));
                }
                None => {}
            }
        }
    }

    /// DDNet's group extension items are read by position, one per group: when the unpacked
    /// map had one per group, they follow their groups, go with a deleted group, and a new
    /// group gets one (as `Map::insert_group` gives it).
    fn follow_group_extensions(&mut self) {
        if !self.layout.groups_hold_layers {
            return;
        }
        let files = &self.tree.files;
        let extensions: Vec<usize> = (self.others.iter().copied())
            .filter(|&f| files[f].kind == "group_ex")
            .collect();
        let listed: Vec<usize> = (extensions.iter().copied())
            .filter(|&f| files[f].entry.is_some())
            .collect();
        let type_id = (listed.first())
            .and_then(|&f| files[f].entry)
            .map(|e| self.layout.items[e].type_id);
        let groups = self.count(MapItemKind::Group);
        let extensions_listed = type_id.map_or(0, |t| self.counts.get(&t).copied().unwrap_or(0));
        if extensions_listed != groups {
            return;
        }
        let by_rank: HashMap<usize, usize> = (listed.iter())
            .filter_map(|&f| files[f].entry.map(|e| (self.rank[e], f)))
            .collect();
        let mut order = Vec::new();
        for (folder, &group) in self.tree.folders.iter().zip(&self.folder_groups) {
            match by_rank.get(&group) {
                Some(&file) => order.push(GroupEx::File(file)),
                None if group >= groups => {
                    let parallax = match &files[folder.group].item {
                        Some(MapItem::Group(g)) => g.parallax,
                        _ => Default::default(),
                    };
                    order.push(GroupEx::New(GroupExItem {
                        version: 1,
                        parallax_zoom: twcodec::map::edit::parallax_zoom(parallax),
                        unknown_tail: Vec::new(),
                    }));
                }
                None => {}
            }
        }
        let placed: HashSet<usize> = (order.iter())
            .filter_map(|g| match g {
                GroupEx::File(f) => Some(*f),
                GroupEx::New(_) => None,
            })
            .collect();
        // New extension files of the directory come after.
        for &file in &extensions {
            if files[file].entry.is_none() {
                order.push(GroupEx::File(file));
            }
        }
        self.others.retain(|f| !extensions.contains(f));
        let _ = placed;
        self.group_ex = Some(order);
    }

    /// Writes the items in the packed order (listed items with their ids, new ones with the
    /// next free id of their type) and the data items kept, reusing the stored streams.
    fn write(
        &mut self,
        streams: &Streams,
        data: DataItems,
    ) -> Result<(Vec<u8>, Vec<ItemEntry>), Error> {
        let layout = self.layout;
        let mut writer = layout.writer();
        let mut placed = Vec::new();
        // The next free id of each type: after the largest a listed item that is still there
        // has (the id `Map::add_*` gives).
        let mut next: HashMap<u16, u32> = HashMap::new();
        for file in &self.tree.files {
            if let Some(entry) = file.entry.map(|e| &layout.items[e]) {
                let slot = next.entry(entry.type_id).or_default();
                *slot = (*slot).max(u32::from(entry.id) + 1);
            }
        }
        // The type id each UUID kind has in this map.
        let mut uuid_types: HashMap<&'static str, u16> = HashMap::new();
        for file in &self.tree.files {
            if let (Some(entry), Some(item)) = (file.entry, &file.item) {
                (uuid_types.entry(item.kind().name())).or_insert(layout.items[entry].type_id);
            }
        }
        let mut order: Vec<usize> = Vec::new();
        // UUID index items first: new items of UUID types look their type up there.
        let (index_items, rest): (Vec<usize>, Vec<usize>) = (self.others.iter().copied())
            .filter(|f| !self.dropped.contains(f))
            .partition(|&f| self.tree.files[f].kind == "uuid_index");
        order.extend(index_items);
        order.extend(rest);
        order.extend(&self.images.order);
        order.extend(&self.envelopes.order);
        order.extend(&self.sounds.order);
        if self.layout.groups_hold_layers {
            order.extend(self.tree.folders.iter().map(|f| f.group));
            order.extend(
                self.tree
                    .folders
                    .iter()
                    .flat_map(|f| f.layers.iter().copied()),
            );
        } else {
            for kind in [MapItemKind::Group, MapItemKind::Layer] {
                order.extend(
                    (self.tree.items.iter().copied()).filter(|&f| self.tree.files[f].is(kind)),
                );
            }
        }
        let mut add = |writer: &mut twcodec::DatafileWriter,
                       file: String,
                       entry: Option<&ItemEntry>,
                       item: &MapItem|
         -> Result<(), Error> {
            let ints = item
                .encode()
                .map_err(|e| Error::from_binrw(e, "item").with_path(Path::new(&file)))?;
            let (type_id, id) = match entry {
                Some(entry) => {
                    writer.add_item(entry.type_id, entry.id, ints);
                    (entry.type_id, entry.id)
                }
                None => {
                    let kind = item.kind();
                    let known = kind
                        .type_id()
                        .or_else(|| uuid_types.get(kind.name()).copied());
                    let type_id = known.unwrap_or(0);
                    let slot = next.entry(type_id).or_default();
                    let id = u16::try_from(*slot).map_err(|_| {
                        Error::malformed(format!("{file}: every id of its item type is taken"))
                    })?;
                    *slot += 1;
                    let type_id = match (known, kind.uuid()) {
                        (Some(type_id), _) => {
                            writer.add_item(type_id, id, ints);
                            type_id
                        }
                        (None, Some(uuid)) => {
                            let type_id = writer.add_uuid_item(uuid, id, ints)?;
                            uuid_types.insert(kind.name(), type_id);
                            next.insert(type_id, u32::from(id) + 1);
                            type_id
                        }
                        (None, None) => {
                            return Err(Error::malformed(format!(
                                "{file}: a new item of kind {:?} has no type id to be written with",
                                kind.name()
                            )))
                        }
                    };
                    (type_id, id)
                }
            };
            placed.push(ItemEntry { type_id, id, file });
            Ok(())
        };
        for &index in &order {
            let file = &self.tree.files[index];
            let entry = file.entry.map(|e| &layout.items[e]);
            if let Some(item) = &file.item {
                add(&mut writer, file.file.clone(), entry, item)?;
            }
        }
        for extension in self.group_ex.iter().flatten() {
            match extension {
                GroupEx::File(index) => {
                    let file = &self.tree.files[*index];
                    let entry = file.entry.map(|e| &layout.items[e]);
                    if let Some(item) = &file.item {
                        add(&mut writer, file.file.clone(), entry, item)?;
                    }
                }
                GroupEx::New(item) => {
                    add(
                        &mut writer,
                        "a new group's extension".into(),
                        None,
                        &MapItem::GroupEx(item.clone()),
                    )?;
                }
            }
        }
        if let (Some(gather), Some(points)) = (self.gathered.take(), &self.points) {
            let (items, bezier) = gather.items(points)?;
            let encode = |item: &MapItem| {
                item.encode()
                    .map_err(|e| Error::from_binrw(e, "envelope points").with_path(self.dir))
            };
            writer.add_item(points.points_item.0, points.points_item.1, encode(&items)?);
            if let (Some((type_id, id)), Some(bezier)) = (points.bezier_item, bezier) {
                writer.add_item(type_id, id, encode(&bezier)?);
            }
        }
        let items = data.bytes.into_iter().zip(data.stored).zip(data.kept);
        for (index, ((bytes, stored), kept)) in items.enumerate() {
            match (kept, stored) {
                (false, _) => {}
                (true, Some(size)) => {
                    writer.add_zlib_data(bytes, size);
                }
                (true, None) => {
                    streams.add_data(&mut writer, index, bytes);
                }
            }
        }
        Ok((writer.to_vec()?, placed))
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Calls `edit` on each of the first `count` records of `bytes` (the records the layer says
/// it has), writing them back, without what follows them, when one changed: as the map model
/// reads and writes them. Data too short for them is left as it is.
fn renumber_records<T: bytemuck::Pod + PartialEq>(
    bytes: &mut Vec<u8>,
    count: usize,
    mut edit: impl FnMut(&mut T),
) {
    let size = std::mem::size_of::<T>();
    let Some(records) = count.checked_mul(size).and_then(|n| bytes.get(..n)) else {
        return;
    };
    let mut records: Vec<T> = bytemuck::pod_collect_to_vec(records);
    let before = records.clone();
    records.iter_mut().for_each(&mut edit);
    if records != before {
        *bytes = bytemuck::cast_slice(&records).to_vec();
    }
}

/// How `pack` rebuilds the envelope points: the layout's way, or, for a map that had no
/// envelopes, DDNet's (six-int points, no bezier item) so that new envelopes can list theirs.
/// `None` when the map's envelopes keep their points item as a file of its own.
fn points_layout(layout: &Layout) -> Option<PointsLayout> {
    if let Some(points) = &layout.envelope_points {
        return Some(points.clone());
    }
    let points_type = type_of(MapItemKind::EnvPoints);
    let envelope = type_of(MapItemKind::Envelope);
    let has_envelopes =
        (layout.items.iter()).any(|e| e.type_id == envelope || e.type_id == points_type);
    (!has_envelopes).then_some(PointsLayout {
        form22: false,
        points_item: (points_type, 0),
        bezier_item: None,
    })
}

/// The errors of `map`'s problems, as text.
pub(crate) fn errors_of(map: &twcodec::Map) -> Vec<String> {
    (map.problems().iter())
        .filter(|p| p.severity == twcodec::map::Severity::Error)
        .map(|p| p.to_string())
        .collect()
}

/// A problem's text without its item's index: `layer (type 5, id 3): ...` for `layer #3
/// (type 5, id 3): ...`.
fn without_index(text: &str) -> String {
    let Some((place, rest)) = text.split_once(" (type ") else {
        return text.to_string();
    };
    match place.rsplit_once(" #") {
        Some((kind, index)) if index.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{kind} (type {rest}")
        }
        _ => text.to_string(),
    }
}

/// Refuses a packed map with errors the original did not have (a reference to an image that
/// is not there, ...), naming the item's file and the field's line.
fn check(
    dir: &Path,
    layout: &Layout,
    placed: &[ItemEntry],
    texts: &HashMap<&str, &str>,
    bytes: &[u8],
) -> Result<(), Error> {
    let Some(known) = &layout.problems else {
        return Ok(());
    };
    let map = twcodec::Map::parse(bytes).map_err(|e| {
        Error::malformed(format!(
            "{}: the directory makes a map that does not load: {e}",
            dir.display()
        ))
    })?;
    // Known by their item's kind, type and id, not its index, which moves with every edit.
    let known: HashSet<String> = known.iter().map(|p| without_index(p)).collect();
    let mut new = Vec::new();
    for problem in map.problems() {
        let text = problem.to_string();
        if problem.severity != twcodec::map::Severity::Error
            || known.contains(&without_index(&text))
        {
            continue;
        }
        let entry = problem.item.and_then(|place| {
            (placed.iter()).find(|e| e.type_id == place.type_id && e.id == place.id)
        });
        let at = match entry {
            Some(entry) => {
                let text = texts.get(entry.file.as_str()).copied().unwrap_or_default();
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
        new.push(format!("{at}{text}"));
    }
    if new.is_empty() {
        return Ok(());
    }
    Err(Error::malformed(format!(
        "the directory makes a map with errors (nothing written): {}",
        new.join("; ")
    )))
}
