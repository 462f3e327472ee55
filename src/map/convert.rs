//! Converting a map between DDNet's and Teeworlds 0.7's form of storing the same things, and
//! saying what the conversion did ([`Conversion`]).
//!
//! | what | DDNet form | Teeworlds 0.7 form |
//! |---|---|---|
//! | tiles and game layers | tilemap version 3 | version 4, skip-compressed tiles |
//! | images | version 1 (RGBA) | version 2 with a format |
//! | envelopes | version 2, 6-int points, DDNet's bezier item | version 3 and 22-int points when a bezier curve is used, else version 2 |
//!
//! DDNet's other extensions have no 0.7 form. Teeworlds 0.7 ignores them harmlessly, so they are
//! kept, and converting back loses nothing (docs/format-notes.md, "Converting to Teeworlds
//! 0.7", says what 0.7 does with each):
//!
//! | DDNet's | in Teeworlds 0.7 | converted to 0.7 |
//! |---|---|---|
//! | front, tele, speedup, switch, tune layers | plain tile layers, drawn from their `data` | kept (version 3); a `data` too small for the layer, or holding tiles, becomes a zeroed tile array |
//! | game tiles 4 to 191 (freeze, start, ...) | air | kept |
//! | entities 203 to 255 (lasers, draggers, ...) | not placed | kept |
//! | more than 64 spawns of a kind | the server writes past its array | the spawns past the 64th become air |
//! | sounds, auto-mappers, group extensions, server settings, unknown items | skipped | kept |
//!
//! Every change, every kept extension and every warning is a [`ConversionNote`].

use std::fmt;

use twcodec_schema::map::envelope::CurveType;
use twcodec_schema::map::image::ImageFormat;
use twcodec_schema::map::layer::PhysicsKind;
use twcodec_schema::map::tile::{Tile, TileKind};

use super::layer::{LayerContent, TilesLayer};
use super::{DataItem, DataSlot, Image, ItemRef, Layer, Map, MapForm};
use crate::error::{Error, ErrorKind};

/// What [`Map::convert`] did: one note per change, per extension kept that the target game
/// does not use, and per warning about what the target game will make of the map.
///
/// ```
/// let mut map = twcodec_testkit::sample::map()?;
/// let conversion = map.convert(twcodec::MapForm::Teeworlds07)?;
/// let tele = conversion.notes.iter().find(|n| n.text.starts_with("kept the tele layer"));
/// assert!(tele.is_some());
/// # Ok::<(), twcodec::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Conversion {
    /// The notes: layers (versions, then each physics layer in map order), images,
    /// envelopes, then the other items.
    pub notes: Vec<ConversionNote>,
}

impl Conversion {
    /// The notes of one action.
    pub fn of(&self, action: NoteAction) -> impl Iterator<Item = &ConversionNote> {
        self.notes.iter().filter(move |n| n.action == action)
    }

    /// The notes about one layer.
    pub fn about_layer(&self, layer: ItemRef<Layer>) -> impl Iterator<Item = &ConversionNote> {
        (self.notes.iter()).filter(move |n| n.subject == NoteSubject::Layer(layer))
    }
}

/// One thing a conversion did or found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConversionNote {
    /// Changed, kept, dropped, or a warning.
    pub action: NoteAction,
    /// What it is about.
    pub subject: NoteSubject,
    /// For notes on tiles: how many tiles of each id the note counts, most first.
    pub tiles: Vec<(u8, usize)>,
    /// One line. A change, a kept thing or a drop begins with what was done ("changed ...",
    /// "kept ...", "dropped ..."); a warning says what the target game will do.
    pub text: String,
}

impl ConversionNote {
    fn new(action: NoteAction, subject: NoteSubject, text: String) -> ConversionNote {
        ConversionNote {
            action,
            subject,
            tiles: Vec::new(),
            text,
        }
    }

    fn with_tiles(mut self, tiles: Vec<(u8, usize)>) -> ConversionNote {
        self.tiles = tiles;
        self
    }
}

impl fmt::Display for ConversionNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// What a conversion did to a thing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NoteAction {
    /// Changed to the target's form, or to what the target can load safely.
    Changed,
    /// Kept as it was, though the target game does not use it.
    Kept,
    /// Left out of the converted map.
    Dropped,
    /// Kept, but the target game will not show or play it as the source game does.
    Warning,
}

/// What a [`ConversionNote`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NoteSubject {
    /// The tile layers as a whole (their tilemap version).
    Layers,
    /// One layer: a physics layer, or the game layer's tiles.
    Layer(ItemRef<Layer>),
    /// The images as a whole.
    Images,
    /// One image.
    Image(ItemRef<Image>),
    /// The envelopes and their points.
    Envelopes,
    /// Sounds and sounds layers.
    Sounds,
    /// Other items: auto-mapper configurations, group extensions, server settings, unknown
    /// items and layers.
    Items,
}

/// The pictures Teeworlds 0.7.5 ships in its `mapres` folder (Teeworlds `datasrc/mapres`
/// at tag 0.7.5), by name: what a 0.7 client finds for an external image.
pub const TEEWORLDS_07_MAPRES: [&str; 32] = [
    "bg_cloud1",
    "bg_cloud2",
    "bg_cloud3",
    "desert_doodads",
    "desert_main",
    "desert_mountains",
    "desert_mountains2",
    "desert_sun",
    "easter",
    "generic_deathtiles",
    "generic_lamps",
    "generic_shadows",
    "generic_unhookable",
    "grass_doodads",
    "grass_main",
    "jungle_background",
    "jungle_deathtiles",
    "jungle_doodads",
    "jungle_main",
    "jungle_midground",
    "jungle_unhookables",
    "light",
    "moon",
    "mountains",
    "snow",
    "stars",
    "sun",
    "winter_doodads",
    "winter_main",
    "winter_mountains",
    "winter_mountains2",
    "winter_mountains3",
];

/// The most spawns of one kind a Teeworlds 0.7 server stores (`m_aaSpawnPoints[3][64]`,
/// Teeworlds `src/game/server/gamecontroller.h`, with no bound check when it fills them).
pub const TEEWORLDS_07_MAX_SPAWNS: usize = 64;

/// The most images a Teeworlds 0.7 client loads (`MAX_TEXTURES`, Teeworlds
/// `src/game/client/components/mapimages.h`).
pub const TEEWORLDS_07_MAX_IMAGES: usize = 64;

/// The first game tile id that is an entity (`ENTITY_OFFSET` + 1: the spawn).
const FIRST_ENTITY: u8 = 192;
/// The last entity Teeworlds 0.7 places (the laser pickup, entity 11).
const LAST_07_ENTITY: u8 = 202;

/// How Teeworlds 0.7 reads a game tile id (Teeworlds `src/game/collision.cpp`, `CCollision::Init`;
/// `src/game/server/gamecontext.cpp`, `OnInit`, and `gamecontroller.cpp`, `OnEntity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seven {
    /// Air, solid, death, unhookable, or an entity 0.7 places: the same as in DDNet.
    Same,
    /// A DDNet tile that 0.7 reads as air (ids 4 to 191).
    Air,
    /// A DDNet entity that 0.7 does not place (ids 203 to 255).
    Unplaced,
}

fn seven(id: u8) -> Seven {
    match id {
        0..=3 | FIRST_ENTITY..=LAST_07_ENTITY => Seven::Same,
        4..=191 => Seven::Air,
        _ => Seven::Unplaced,
    }
}

/// What a tile id is on a layer of `kind` (DDNet `src/game/mapitems.h`, `TILE_*` and
/// `ENTITY_*`), for notes and messages; `None` for ids without a well-known name (and for
/// air).
pub fn tile_name(kind: PhysicsKind, id: u8) -> Option<&'static str> {
    let special = match (kind, id) {
        (PhysicsKind::Tele, 10) => "evil tele-in",
        (PhysicsKind::Tele, 14) => "weapon tele-in",
        (PhysicsKind::Tele, 15) => "hook tele-in",
        (PhysicsKind::Tele, 26) => "tele-in",
        (PhysicsKind::Tele, 27) => "tele-out",
        (PhysicsKind::Tele, 29) => "checkpoint tele",
        (PhysicsKind::Tele, 30) => "checkpoint tele-out",
        (PhysicsKind::Tele, 31) => "checkpoint tele-in",
        (PhysicsKind::Tele, 63) => "evil checkpoint tele-in",
        (PhysicsKind::Tele, _) => return None,
        (PhysicsKind::Speedup, 28) => "old speedup",
        (PhysicsKind::Speedup, 29) => "speedup",
        (PhysicsKind::Speedup, _) => return None,
        (PhysicsKind::Tune, 68) => "tune zone",
        (PhysicsKind::Tune, _) => return None,
        (PhysicsKind::Switch, 22) => "timed switch on",
        (PhysicsKind::Switch, 23) => "timed switch off",
        (PhysicsKind::Switch, 24) => "switch on",
        (PhysicsKind::Switch, 25) => "switch off",
        (PhysicsKind::Switch, 79) => "add time",
        (PhysicsKind::Switch, 95) => "subtract time",
        _ => "",
    };
    if !special.is_empty() {
        return Some(special);
    }
    // Game, front, and the game-like tiles of the switch layer.
    Some(match id {
        1 => "solid",
        2 => "death",
        3 => "unhookable",
        4 => "laser stopper",
        5 | 6 | 66 | 67 => "hook-through",
        7 => "jump count",
        9 => "freeze",
        11 => "unfreeze",
        12 => "deep freeze",
        13 => "deep unfreeze",
        16 => "wall jump",
        17 => "endless hook on",
        18 => "endless hook off",
        19 => "hitting on",
        20 => "hitting off",
        21 => "solo on",
        22 => "solo off",
        32 => "jump refill",
        33 => "start",
        34 => "finish",
        35..=59 => "time checkpoint",
        60 => "one-way stopper",
        61 => "two-way stopper",
        62 => "all-way stopper",
        140..=143 | 156..=159 => "credits",
        144 => "live freeze",
        145 => "live unfreeze",
        190 | 191 => "entities off",
        192 => "spawn",
        193 => "red spawn",
        194 => "blue spawn",
        195 => "red flag stand",
        196 => "blue flag stand",
        197 => "armor",
        198 => "health",
        199 => "shotgun",
        200 => "grenade launcher",
        201 => "ninja",
        202 => "laser rifle",
        203..=218 => "laser turret",
        220..=223 => "plasma turret",
        224 | 225 => "crazy shotgun",
        226..=229 => "shielded weapon",
        233..=238 => "dragger",
        240 => "door",
        _ => return None,
    })
}

/// `1442 freeze (id 9), 73 time checkpoint (ids 35 to 45), 3 of id 99`: the counts, most
/// first, ids of one name together, at most twelve entries.
fn tile_list(kind: PhysicsKind, counts: &[(u8, usize)]) -> String {
    const SHOWN: usize = 12;
    // (name, tiles, ids): unnamed ids stay apart.
    let mut entries: Vec<(Option<&str>, usize, Vec<u8>)> = Vec::new();
    for &(id, count) in counts {
        let name = tile_name(kind, id);
        match entries.iter_mut().find(|e| name.is_some() && e.0 == name) {
            Some(entry) => {
                entry.1 += count;
                entry.2.push(id);
            }
            None => entries.push((name, count, vec![id])),
        }
    }
    entries.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.iter().min().cmp(&b.2.iter().min())));
    let mut parts: Vec<String> = (entries.iter().take(SHOWN))
        .map(|(name, count, ids)| {
            let mut ids = ids.clone();
            ids.sort_unstable();
            let ids = match ids.as_slice() {
                [id] => format!("id {id}"),
                few if few.len() <= 4 => {
                    let list: Vec<String> = few.iter().map(u8::to_string).collect();
                    format!("ids {}", list.join(", "))
                }
                many => format!("ids {} to {}", many[0], many[many.len() - 1]),
            };
            match name {
                Some(name) => format!("{count} {name} ({ids})"),
                None => format!("{count} of {ids}"),
            }
        })
        .collect();
    if entries.len() > SHOWN {
        let rest = &entries[SHOWN..];
        let tiles: usize = rest.iter().map(|(_, n, _)| n).sum();
        let ids: usize = rest.iter().map(|(_, _, ids)| ids.len()).sum();
        parts.push(format!("{tiles} of {ids} other ids"));
    }
    parts.join(", ")
}

/// Tile counts by id, most first (ties by id), for the ids `keep` selects.
fn count_ids(ids: impl Iterator<Item = u8>, keep: impl Fn(u8) -> bool) -> Vec<(u8, usize)> {
    let mut counts = [0usize; 256];
    for id in ids {
        counts[usize::from(id)] += 1;
    }
    let mut list: Vec<(u8, usize)> = (0..=255u8)
        .zip(counts)
        .filter(|&(id, n)| n > 0 && keep(id))
        .collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    list
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// `layer #3 "Front"` (without a name when it has none).
fn layer_label(map: &Map, index: usize) -> String {
    match map.layers[index].name() {
        name if name.is_empty() => format!("layer #{index}"),
        name => format!("layer #{index} {name:?}"),
    }
}

/// The error for a conversion to Teeworlds 0.3, before anything changes.
pub fn check_target(form: MapForm) -> Result<(), Error> {
    if form == MapForm::Teeworlds03 {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "maps are not converted to Teeworlds 0.3 (a 0.3 map writes its own file while \
             unmodified)",
        ));
    }
    Ok(())
}

impl Map {
    /// Converts the map to `form` (DDNet or Teeworlds 0.7) and says what that did. A Teeworlds
    /// 0.3 map converts its upgraded model (docs/format-notes.md, "Teeworlds 0.3 maps") and
    /// then writes it in that form; nothing converts to Teeworlds 0.3.
    ///
    /// Converted to Teeworlds 0.7, DDNet's physics layers, tiles and items stay (0.7 ignores
    /// them, and converting back gives them back), except what would make a 0.7 server or
    /// client misbehave: a physics layer's `data` too small for the layer (or holding tiles)
    /// becomes a zeroed tile array, and spawns past the 64th of a kind become air. The notes
    /// say what was changed and kept, and warn about what 0.7 will show differently (module
    /// doc; docs/format-notes.md, "Converting to Teeworlds 0.7").
    ///
    /// Converted to DDNet, a map stores its skip-compressed 0.7 tile layers whole and widens
    /// RGB images to RGBA, so the written map can declare more data than the [`Limits`] its
    /// source was read under allow (up to [`Limits::max_layer_data`] more for the tiles): read
    /// it back under limits that leave room for that.
    ///
    /// External images stay external: a Teeworlds 0.7 client draws its own, redrawn pictures
    /// of their names. `twcodec_tools::assets::convert_embedding` embeds
    /// DDNet's pictures first, as DDNet's `map_convert_07` does.
    ///
    /// [`Limits`]: crate::Limits
    /// [`Limits::max_layer_data`]: crate::Limits::max_layer_data
    pub fn convert(&mut self, form: MapForm) -> Result<Conversion, Error> {
        check_target(form)?;
        let from = self.form;
        let teeworlds = form == MapForm::Teeworlds07;
        let mut notes = Vec::new();
        notes.extend(self.convert_tile_versions(teeworlds));
        if teeworlds {
            self.physics_for_07(&mut notes);
        }
        notes.extend(self.convert_images(teeworlds)?);
        if teeworlds {
            notes.extend(self.images_in_07(from != MapForm::Teeworlds07));
        }
        notes.extend(self.convert_envelopes(teeworlds));
        if teeworlds {
            notes.extend(self.kept_for_ddnet());
        }
        self.form = form;
        Ok(Conversion { notes })
    }

    /// Tiles and game layers to tilemap version 4 (0.7) or 3 (DDNet).
    fn convert_tile_versions(&mut self, teeworlds: bool) -> Option<ConversionNote> {
        let version = if teeworlds { 4 } else { 3 };
        let (mut tiles_layers, mut game_layers) = (0, 0);
        for layer in &mut self.layers {
            let (LayerContent::Tiles(tiles) | LayerContent::Game(tiles)) = &mut layer.content
            else {
                continue;
            };
            if tiles.item.version != version && tiles.grid().is_some() {
                tiles.item.version = version;
                // Version 3 and up have a name between the data and the physics indices.
                tiles.item.name.get_or_insert_with(Default::default);
                tiles.modified = true;
                match layer.content {
                    LayerContent::Game(_) => game_layers += 1,
                    _ => tiles_layers += 1,
                }
            }
        }
        let what = match (tiles_layers, game_layers) {
            (0, 0) => return None,
            (n, 0) => format!("{n} tile {}", plural(n, "layer", "layers")),
            (0, 1) => "the game layer".to_string(),
            (n, 1) => format!(
                "{n} tile {} and the game layer",
                plural(n, "layer", "layers")
            ),
            (n, g) => format!(
                "{n} tile {} and {g} game layers",
                plural(n, "layer", "layers")
            ),
        };
        let how = if teeworlds {
            "version 4 (skip-compressed tiles, as Teeworlds 0.7 writes them)"
        } else {
            "version 3 (plain tiles, as DDNet reads them)"
        };
        Some(ConversionNote::new(
            NoteAction::Changed,
            NoteSubject::Layers,
            format!("changed {what} to tilemap {how}"),
        ))
    }

    /// The notes on DDNet's physics layers and game tiles in a 0.7 map, in layer order, and
    /// the changes 0.7 needs: a `data` field large enough for the layer, at most 64 spawns of
    /// a kind.
    fn physics_for_07(&mut self, notes: &mut Vec<ConversionNote>) {
        for index in 0..self.layers.len() {
            let layer = self.mint::<Layer>(index);
            let subject = NoteSubject::Layer(layer);
            let (kind, ids, why) = match &self.layers[index].content {
                LayerContent::Game(_) => {
                    notes.extend(self.game_tiles_for_07(index));
                    continue;
                }
                LayerContent::Front(t) => (
                    PhysicsKind::Front,
                    ids(t, |t| t.id),
                    "Teeworlds 0.7 has no front layer",
                ),
                LayerContent::Tele(t) => (
                    PhysicsKind::Tele,
                    ids(t, |t| t.id),
                    "Teeworlds 0.7 has no teleporters",
                ),
                LayerContent::Speedup(t) => (
                    PhysicsKind::Speedup,
                    ids(t, |t| t.id),
                    "Teeworlds 0.7 has no speedups",
                ),
                LayerContent::Switch(t) => (
                    PhysicsKind::Switch,
                    ids(t, |t| t.id),
                    "Teeworlds 0.7 has no switches",
                ),
                LayerContent::Tune(t) => (
                    PhysicsKind::Tune,
                    ids(t, |t| t.id),
                    "Teeworlds 0.7 has no tune zones",
                ),
                _ => continue,
            };
            let label = layer_label(self, index);
            let kind_name = self.layers[index].kind_name();
            let counts = count_ids(ids.into_iter(), |id| id != 0);
            let total: usize = counts.iter().map(|(_, n)| n).sum();
            let tiles = match total {
                0 => "no tiles".to_string(),
                n => format!(
                    "{n} {} ({})",
                    plural(n, "tile", "tiles"),
                    tile_list(kind, &counts)
                ),
            };
            notes.extend(self.zeroed_data_for_07(index));
            notes.push(
                ConversionNote::new(
                    NoteAction::Kept,
                    subject,
                    format!(
                        "kept the {kind_name} {label} with {tiles}: {why}; it draws the layer \
                         as an empty tile layer, and converted back to DDNet the layer works \
                         again"
                    ),
                )
                .with_tiles(counts),
            );
        }
    }

    /// Points the `data` field of physics layer `index` at a zeroed tile array when it names
    /// no data item, one smaller than the layer, or one with tiles in it: Teeworlds 0.7 draws
    /// every layer with a physics flag other than game as a tile layer from `data`, and its
    /// `InitTilemapSkip` (`src/game/layers.cpp`) writes into `width * height` tiles there.
    /// DDNet reads nothing there (docs/format-notes.md, "Tile layers").
    fn zeroed_data_for_07(&mut self, index: usize) -> Option<ConversionNote> {
        let item = self.layers[index].tilemap()?;
        let (width, height) = (item.width.max(0) as usize, item.height.max(0) as usize);
        let needed = (width.checked_mul(height)).and_then(|n| n.checked_mul(4))?;
        let reads = format!("Teeworlds 0.7 reads and writes {needed} bytes there");
        let why = match self.item_ref::<DataItem>(item.data).get() {
            None => format!("it named no data item, and {reads}"),
            Some(data) => match self.data_size(data) {
                Some(size) if size < needed => format!("it held {size} bytes, and {reads}"),
                None => format!("its data does not load, and {reads}"),
                Some(_) => match self.data(data) {
                    Err(_) => format!("its data does not load, and {reads}"),
                    Ok(bytes) if bytes.len() < needed => {
                        format!("it held {} bytes, and {reads}", bytes.len())
                    }
                    Ok(bytes) => {
                        let tiles: &[Tile] = bytemuck::cast_slice(&bytes[..needed]);
                        match tiles.iter().filter(|t| t.id != 0).count() {
                            0 => return None,
                            n => format!(
                                "it held {n} non-empty {}, which Teeworlds 0.7 would draw (DDNet \
                                 reads nothing there)",
                                plural(n, "tile", "tiles")
                            ),
                        }
                    }
                },
            },
        };
        let label = layer_label(self, index);
        let kind_name = self.layers[index].kind_name();
        let subject = NoteSubject::Layer(self.mint(index));
        // Never write what the reader would refuse (a data item past the limit, an index past
        // i32): then the layer stays as it is, with a warning.
        let limit = self.limits().max_data_size();
        if needed > limit || i32::try_from(self.data.len()).is_err() {
            return Some(ConversionNote::new(
                NoteAction::Warning,
                subject,
                format!(
                    "left the `data` of the {kind_name} {label} as it is, though {why}: a zeroed \
                     array of {needed} bytes is past Limits::max_data_size ({limit}) or the \
                     data item count"
                ),
            ));
        }
        self.data.push(DataSlot::Owned(vec![0u8; needed].into()));
        let raw = (self.data.len() - 1) as i32;
        let layer = &mut self.layers[index];
        if let Some(tilemap) = layer.content.tilemap_mut() {
            tilemap.data = raw;
        }
        layer.verbatim = None;
        Some(ConversionNote::new(
            NoteAction::Changed,
            subject,
            format!(
                "changed the `data` of the {kind_name} {label} to a zeroed array of \
                 {width}x{height} tiles: {why}"
            ),
        ))
    }

    /// The notes on game layer `index` in a 0.7 map: tiles and entities 0.7 does not know
    /// (DDNet's, or a mod's) kept, spawns past the 64th of a kind cleared, no spawn at all.
    fn game_tiles_for_07(&mut self, index: usize) -> Vec<ConversionNote> {
        let mut notes = Vec::new();
        let subject = NoteSubject::Layer(self.mint(index));
        let label = layer_label(self, index);
        let LayerContent::Game(game) = &mut self.layers[index].content else {
            return notes;
        };
        let Some(grid) = game.grid() else {
            return notes;
        };
        let all = || grid.tiles().iter().map(|t| t.id);
        let air = count_ids(all(), |id| seven(id) == Seven::Air);
        let unplaced = count_ids(all(), |id| seven(id) == Seven::Unplaced);
        let spawns = count_ids(all(), |id| (FIRST_ENTITY..FIRST_ENTITY + 3).contains(&id));
        for (counts, one, many, what) in [
            (air, "tile", "tiles", "Teeworlds 0.7 reads as air"),
            (
                unplaced,
                "entity",
                "entities",
                "Teeworlds 0.7 does not place",
            ),
        ] {
            let total: usize = counts.iter().map(|(_, n)| n).sum();
            if total == 0 {
                continue;
            }
            let (things, list) = (
                plural(total, one, many),
                tile_list(PhysicsKind::Game, &counts),
            );
            notes.push(
                ConversionNote::new(
                    NoteAction::Kept,
                    subject,
                    format!("kept {total} {things} of the game {label} that {what}: {list}"),
                )
                .with_tiles(counts),
            );
        }
        if spawns.is_empty() {
            notes.push(ConversionNote::new(
                NoteAction::Warning,
                subject,
                format!(
                    "the game {label} has no spawn (ids 192 to 194): players cannot spawn on a \
                     Teeworlds 0.7 server"
                ),
            ));
        }
        let crowded: Vec<(u8, usize)> = (spawns.into_iter())
            .filter(|&(_, n)| n > TEEWORLDS_07_MAX_SPAWNS)
            .collect();
        if crowded.is_empty() {
            return notes;
        }
        // The server reads the game layer row by row and keeps the first 64 of each kind.
        let mut seen = [0usize; 3];
        let mut cleared = Vec::new();
        if let Some(grid) = game.grid_mut() {
            for tile in grid.tiles_mut() {
                let Some(kind) = tile.id.checked_sub(FIRST_ENTITY).filter(|&k| k < 3) else {
                    continue;
                };
                seen[usize::from(kind)] += 1;
                if seen[usize::from(kind)] > TEEWORLDS_07_MAX_SPAWNS {
                    cleared.push(tile.id);
                    *tile = Tile::default();
                }
            }
        }
        let counts = count_ids(cleared.into_iter(), |_| true);
        let total: usize = counts.iter().map(|(_, n)| n).sum();
        notes.push(
            ConversionNote::new(
                NoteAction::Changed,
                subject,
                format!(
                    "changed {total} spawns past the {TEEWORLDS_07_MAX_SPAWNS}th of their kind \
                     in the game {label} to air ({}): a Teeworlds 0.7 server stores at most \
                     {TEEWORLDS_07_MAX_SPAWNS} of a kind and writes more past the end of its \
                     array",
                    tile_list(PhysicsKind::Game, &counts)
                ),
            )
            .with_tiles(counts),
        );
        notes
    }

    /// Images to version 2 with a format (0.7) or version 1 with RGBA pixels (DDNet).
    fn convert_images(&mut self, teeworlds: bool) -> Result<Option<ConversionNote>, Error> {
        let (mut rgba, mut rgb) = (0usize, 0usize);
        for index in 0..self.images.len() {
            let image = &self.images[index];
            if image.verbatim.is_some() {
                continue;
            }
            let embedded = image.data(self).get().filter(|_| !image.is_external());
            // The declared size tells the format: nothing is inflated but RGB pixels to widen.
            let bytes_per_pixel = match embedded {
                Some(data) => image.bytes_per_pixel(self.data_size(data).unwrap_or(0)),
                None => Some(4),
            };
            let image = &mut self.images[index];
            if teeworlds {
                let format = match bytes_per_pixel {
                    Some(3) => ImageFormat::RGB,
                    _ => ImageFormat::RGBA,
                };
                if image.item.version != 2 || image.item.format != Some(format) {
                    match format {
                        ImageFormat::RGB => rgb += 1,
                        _ => rgba += 1,
                    }
                }
                image.item.version = 2;
                image.item.format = Some(format);
                continue;
            }
            if image.item.version != 1 || image.item.format.is_some() {
                rgba += 1;
            }
            image.item.version = 1;
            image.item.format = None;
            // DDNet loads RGBA only: RGB pixels get an opaque alpha.
            if let (Some(data), Some(3)) = (embedded, bytes_per_pixel) {
                let rgb_bytes = self.data(data)?.into_owned();
                let rgba_bytes: Vec<u8> = rgb_bytes
                    .chunks_exact(3)
                    .flat_map(|p| [p[0], p[1], p[2], 255])
                    .collect();
                self.data[data.index()] = DataSlot::Owned(rgba_bytes.into());
                rgb += 1;
            }
        }
        let n = rgba + rgb;
        let text = match (teeworlds, rgb) {
            _ if n == 0 => return Ok(None),
            (true, 0) => format!(
                "changed {n} {} to version 2 with a pixel format (RGBA)",
                plural(n, "image", "images")
            ),
            (true, _) => format!(
                "changed {n} {} to version 2 with a pixel format ({rgba} RGBA, {rgb} RGB)",
                plural(n, "image", "images")
            ),
            (false, 0) => format!(
                "changed {n} {} to version 1 (RGBA)",
                plural(n, "image", "images")
            ),
            (false, _) => format!(
                "changed {n} {} to version 1 (RGBA), widening the RGB pixels of {rgb} with an \
                 opaque alpha",
                plural(n, "image", "images")
            ),
        };
        Ok(Some(ConversionNote::new(
            NoteAction::Changed,
            NoteSubject::Images,
            text,
        )))
    }

    /// What a Teeworlds 0.7 client will draw for the map's images: external ones from its own
    /// pictures (`from_ddnet`: the map was made with DDNet's), names it has no picture of,
    /// images past the 64th, tilesets whose sides are no multiples of 16.
    fn images_in_07(&self, from_ddnet: bool) -> Vec<ConversionNote> {
        let mut notes = Vec::new();
        let mut redrawn = Vec::new();
        for (index, image) in self.images.iter().enumerate() {
            if !image.is_external() {
                continue;
            }
            let name = image.name(self).unwrap_or_default();
            if TEEWORLDS_07_MAPRES.contains(&name.as_str()) {
                redrawn.push(name);
                continue;
            }
            notes.push(ConversionNote::new(
                NoteAction::Warning,
                NoteSubject::Image(self.mint(index)),
                format!(
                    "image #{index} {name:?} stays external, and Teeworlds 0.7 ships no picture \
                     of that name: its clients draw a placeholder texture instead"
                ),
            ));
        }
        if from_ddnet && !redrawn.is_empty() {
            let n = redrawn.len();
            let named = quoted_list(&redrawn);
            notes.insert(
                0,
                ConversionNote::new(
                    NoteAction::Kept,
                    NoteSubject::Images,
                    format!(
                        "kept {n} external {} ({named}) external: Teeworlds 0.7 clients draw \
                         0.7's own {}, not DDNet's; embed DDNet's pictures to keep the map's \
                         look",
                        plural(n, "image", "images"),
                        plural(n, "picture of that name", "pictures of those names")
                    ),
                ),
            );
        }
        if self.images.len() > TEEWORLDS_07_MAX_IMAGES {
            notes.push(ConversionNote::new(
                NoteAction::Warning,
                NoteSubject::Images,
                format!(
                    "the map has {} images: a Teeworlds 0.7 client loads the first \
                     {TEEWORLDS_07_MAX_IMAGES}",
                    self.images.len()
                ),
            ));
        }
        for (index, warning) in tileset_warnings(self) {
            notes.push(ConversionNote::new(
                NoteAction::Warning,
                NoteSubject::Image(self.mint(index)),
                format!("{warning}; Teeworlds 0.7 does not support it"),
            ));
        }
        notes
    }

    /// Envelopes to version 3 with 22-int points when 0.7 needs the bezier tangents, else to
    /// version 2 (at most).
    fn convert_envelopes(&mut self, teeworlds: bool) -> Vec<ConversionNote> {
        let mut notes = Vec::new();
        let Some(points) = &mut self.points else {
            return notes;
        };
        let uses_bezier = points.points.iter().any(|p| p.curve() == CurveType::BEZIER);
        // 0.7 keeps 6-int points unless a bezier curve needs the tangents.
        let wide = teeworlds && uses_bezier;
        let mut changed = 0;
        for envelope in &mut self.envelopes {
            if envelope.verbatim.is_some() || envelope.item.name.is_none() {
                continue;
            }
            let version = match (wide, envelope.item.version) {
                (true, _) => 3,
                (false, v) if v >= 3 => 2,
                (false, v) => v,
            };
            if version >= 2 && envelope.item.synchronized.is_none() {
                // Before version 2, envelopes followed the server's clock (Teeworlds).
                envelope.item.synchronized = Some(1);
            }
            changed += usize::from(envelope.item.version != version);
            envelope.item.version = version;
        }
        if changed > 0 {
            let how = if wide {
                "version 3, whose 22-int points carry the bezier tangents in Teeworlds 0.7"
            } else if teeworlds {
                "version 2 (no bezier curve needs the 22-int points of version 3)"
            } else {
                "version 2 with 6-int points, the bezier tangents in DDNet's bezier item"
            };
            notes.push(ConversionNote::new(
                NoteAction::Changed,
                NoteSubject::Envelopes,
                format!(
                    "changed {changed} {} to {how}",
                    plural(changed, "envelope", "envelopes")
                ),
            ));
        }
        if points.wide != wide {
            points.wide = wide;
            points.modified = true;
            if wide && points.bezier_item.take().is_some() {
                // The tangents move into the 22-int points.
                notes.push(ConversionNote::new(
                    NoteAction::Dropped,
                    NoteSubject::Envelopes,
                    "dropped DDNet's bezier item (mapitemtype-envpoints-bezier@ddnet.tw): its \
                     tangents are in the 22-int points now"
                        .to_string(),
                ));
            }
        }
        notes
    }

    /// The notes on DDNet's items a 0.7 map keeps though 0.7 skips them.
    fn kept_for_ddnet(&self) -> Vec<ConversionNote> {
        let mut notes = Vec::new();
        let mut kept = |subject, text: String| {
            notes.push(ConversionNote::new(NoteAction::Kept, subject, text));
        };
        let sound_layers = (self.layers.iter())
            .filter(|l| matches!(l.content, LayerContent::Sounds(_)))
            .count();
        let sounds = self.sounds.len();
        let sounds = match (sounds, sound_layers) {
            (0, 0) => None,
            (n, 0) => Some(format!("{n} {}", plural(n, "sound", "sounds"))),
            (0, l) => Some(format!("{l} sounds {}", plural(l, "layer", "layers"))),
            (n, l) => Some(format!(
                "{n} {} and {l} sounds {}",
                plural(n, "sound", "sounds"),
                plural(l, "layer", "layers")
            )),
        };
        if let Some(sounds) = sounds {
            kept(
                NoteSubject::Sounds,
                format!("kept {sounds}: Teeworlds 0.7 plays no map sounds"),
            );
        }
        let automappers = self.automappers.len();
        if automappers > 0 {
            kept(
                NoteSubject::Items,
                format!(
                    "kept {automappers} auto-mapper {}: DDNet's editor uses {}, Teeworlds 0.7 \
                     skips the item type",
                    plural(automappers, "configuration", "configurations"),
                    plural(automappers, "it", "them")
                ),
            );
        }
        let zoomed = (self.group_ex.iter())
            .filter(|(_, ex)| ex.parallax_zoom != 100)
            .count();
        if !self.group_ex.is_empty() {
            let groups = self.group_ex.len();
            kept(
                NoteSubject::Items,
                format!(
                    "kept DDNet's group extensions of {groups} {} ({zoomed} with a parallax zoom \
                     other than 100%): Teeworlds 0.7 does not zoom parallax",
                    plural(groups, "group", "groups")
                ),
            );
        }
        let settings = (self.info.as_ref())
            .and_then(|info| info.settings(self).ok())
            .map_or(0, |s| s.len());
        if settings > 0 {
            kept(
                NoteSubject::Items,
                format!(
                    "kept {settings} server {} in the map info: a DDNet server runs them, a \
                     Teeworlds 0.7 server does not",
                    plural(settings, "setting", "settings")
                ),
            );
        }
        let unknown_layers = (self.layers.iter())
            .filter(|l| matches!(l.content, LayerContent::Unknown(_)))
            .count();
        if unknown_layers > 0 {
            kept(
                NoteSubject::Items,
                format!(
                    "kept {unknown_layers} {} of unknown types: Teeworlds 0.7 skips them",
                    plural(unknown_layers, "layer", "layers")
                ),
            );
        }
        let others = (self.others.iter())
            .filter(|o| o.type_id != twcodec_schema::uuid::UUID_INDEX_TYPE)
            .count();
        if others > 0 {
            kept(
                NoteSubject::Items,
                format!(
                    "kept {others} {} of types Teeworlds 0.7 does not know: it skips them",
                    plural(others, "item", "items")
                ),
            );
        }
        notes
    }
}

/// The ids of a physics layer's tiles (none when they do not decode).
fn ids<T: TileKind>(layer: &TilesLayer<T>, id: impl Fn(&T) -> u8) -> Vec<u8> {
    layer
        .grid()
        .map(|grid| grid.tiles().iter().map(id).collect())
        .unwrap_or_default()
}

/// `"a", "b", "c" and 2 more`: at most five names.
fn quoted_list(names: &[String]) -> String {
    const SHOWN: usize = 5;
    let shown: Vec<String> = names.iter().take(SHOWN).map(|n| format!("{n:?}")).collect();
    match names.len().saturating_sub(SHOWN) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// `WxH is not a multiple of 16 on each side, ...`: why a picture cannot be a tileset.
pub fn not_a_tileset(width: impl fmt::Display, height: impl fmt::Display) -> String {
    format!(
        "{width}x{height} is not a multiple of 16 on each side, so it cannot be a tileset of \
         16x16 tiles (DDNet's editor unsets such an image from tile layers)"
    )
}

/// The tiles layers drawn with image `image`: their indices and names.
pub fn tile_layers_drawn_with(map: &Map, image: usize) -> Vec<(usize, String)> {
    let raw = i32::try_from(image).unwrap_or(-1);
    (map.layers().iter().enumerate())
        .filter(|(_, layer)| {
            matches!(layer.content(), LayerContent::Tiles(_))
                && layer.tilemap().is_some_and(|t| t.image == raw)
        })
        .map(|(index, layer)| (index, layer.name()))
        .collect()
}

/// `tile layer #3 "Tiles"`, `tile layers #3 "Tiles", #5 "Doodads"`, at most five named.
pub fn list_layers(layers: &[(usize, String)]) -> String {
    const SHOWN: usize = 5;
    let named: Vec<String> = (layers.iter().take(SHOWN))
        .map(|(index, name)| format!("#{index} {name:?}"))
        .collect();
    let more = match layers.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let plural = if layers.len() == 1 { "" } else { "s" };
    format!("tile layer{plural} {}{more}", named.join(", "))
}

/// The images whose declared sides are not multiples of 16 and that tile layers are drawn
/// with, each with a line naming the layers: DDNet's editor unsets such images from tile
/// layers, and Teeworlds 0.7 cuts tilesets into 16x16 tiles of `width / 16` pixels
/// (`src/engine/client/backend_sdl.cpp`, `Cmd_Texture_Create`).
pub fn tileset_warnings(map: &Map) -> Vec<(usize, String)> {
    let mut warnings = Vec::new();
    for (index, image) in map.images().iter().enumerate() {
        let (width, height) = (image.item().width, image.item().height);
        if width % 16 == 0 && height % 16 == 0 && width > 0 && height > 0 {
            continue;
        }
        let layers = tile_layers_drawn_with(map, index);
        if layers.is_empty() {
            continue;
        }
        let name = image.name(map).unwrap_or_default();
        warnings.push((
            index,
            format!(
                "image #{index} {name:?} is drawn by {}: {}",
                list_layers(&layers),
                not_a_tileset(width, height)
            ),
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seven_reads_game_ids_as_collision_and_entities_do() {
        assert_eq!(seven(0), Seven::Same);
        assert_eq!(seven(3), Seven::Same);
        assert_eq!(seven(4), Seven::Air);
        assert_eq!(seven(9), Seven::Air);
        assert_eq!(seven(191), Seven::Air);
        assert_eq!(seven(192), Seven::Same);
        assert_eq!(seven(202), Seven::Same);
        assert_eq!(seven(203), Seven::Unplaced);
        assert_eq!(seven(255), Seven::Unplaced);
    }

    #[test]
    fn tile_lists_name_what_they_can_and_cut_long_lists() {
        let counts = count_ids([9, 9, 11, 99, 9, 35, 36, 37, 38, 40].into_iter(), |_| true);
        assert_eq!(counts[..3], [(9, 3), (11, 1), (35, 1)]);
        assert_eq!(
            tile_list(PhysicsKind::Game, &counts),
            "5 time checkpoint (ids 35 to 40), 3 freeze (id 9), 1 unfreeze (id 11), 1 of id 99"
        );
        assert_eq!(
            tile_list(PhysicsKind::Game, &[(190, 1), (191, 1)]),
            "2 entities off (ids 190, 191)"
        );
        assert_eq!(
            tile_list(PhysicsKind::Tele, &[(29, 2)]),
            "2 checkpoint tele (id 29)"
        );
        let many: Vec<(u8, usize)> = (100..115).map(|id| (id, 1)).collect();
        assert!(tile_list(PhysicsKind::Game, &many).ends_with(", 3 of 3 other ids"));
    }
}
