//! The resolver: the only place that turns a datafile's items into the map graph and the only
//! place that checks references. Every check it makes, as a [`Problem`]:
//!
//! | check | severity |
//! |---|---|
//! | the datafile reader's warnings DDNet refuses a file for: header sizes that match neither the file nor old writers, bytes after the data, an item type table entry listing no items (DDNet `CDataFileReader::Open`) | error |
//! | the datafile reader's other warnings: old writers' size fields (DDNet fixes them), unsorted item types, duplicate UUID index items, short UUID index items, data declared empty | warning |
//! | an item too short for its layout (kept verbatim) | error |
//! | a second version, info or envelope points item (kept as another item) | warning |
//! | a version item whose version is not 1 (DDNet's `CMap::Load` refuses the map) | error |
//! | duplicate item ids within a type | error |
//! | dangling references: images, envelopes, sounds, data items, auto-mapper layers | error |
//! | an envelope used for the wrong channels (color on a tilemap, position on a quad, ...) | warning |
//! | group layer ranges out of range or overlapping | error |
//! | a layer in no group | warning |
//! | no game layer, or none in a group (DDNet looks for it in the groups only) | error |
//! | several physics layers of one kind (the last wins, as in DDNet) | warning |
//! | a tile layer of a version other than 2 to 4, a version-3 or 4 tile layer without its name, a tile layer name that is not UTF-8 as DDNet decodes it (an all-zero one included), fewer than 2 tiles across or down, more tiles than an `i32` counts, a color channel of a non-physics tile layer outside 0 to 255, a game tile with a nonzero skip or reserved byte in an uncompressed layer, a skip-compressed game layer entry with a nonzero reserved byte (DDNet's `CMap::Load` refuses each) | error |
//! | two tile layers of the groups keeping their tiles in one data item (the field their kind reads: `data`, `physics.tele`, ...), a front, tele, speedup, switch or tune layer of fewer tiles than the game layer (DDNet's `CMap::Load` refuses each, visiting the layers group by group) | error |
//! | bytes DDNet wants zero outside the game layer: the skip or reserved byte of tiles and front tiles in uncompressed layers, the reserved byte of speedup tiles and of skip-compressed tiles layer entries; skip compression (version 4) in a front, tele, speedup, switch or tune layer (DDNet loads the map without that layer's tiles) | warning |
//! | a physics layer outside the game group | error |
//! | a tilemap with several physics flags, or one whose item lacks its physics data index | error |
//! | tile data of the wrong size (old speedup/switch layouts are read and upgraded) | error |
//! | quad or sound source data smaller than its count | error |
//! | envelope point ranges out of range or overlapping | error |
//! | an envelope with a channel count other than 1, 3 or 4 (DDNet's editor resets it; Teeworlds 0.7.5 and older overflow a buffer on more than 4, CVE-2021-43518) | error |
//! | unknown curve types (drawn linear) | warning |
//! | DDNet's bezier item with another point count than the points (ignored, as DDNet does) | warning |
//! | embedded image data too small for its size and format | error |
//! | a version-2 image item without its format field (DDNet reads past the item) | error |
//! | an embedded version-2 image whose format is neither RGBA nor RGB (no reader reads its pixels: DDNet's client skips the image, Teeworlds reads it as external) | error |
//! | an external version-2 image whose format is not RGBA (the Teeworlds 0.7 editor writes -1; DDNet's client skips the image) | warning |
//! | a version-2 image of format RGB (0), external or embedded (DDNet's client skips a version-2 image whose format is not RGBA; Teeworlds 0.7.0 to 0.7.5 read it) | warning |
//! | a text data item (image and sound names, the info's author, version, credits and license) without its one terminating NUL, or not UTF-8 (DDNet's `GetDataString` reads no text from it) | error |
//! | settings whose last command has no terminating NUL (DDNet's server reads past the end of the data) | error |
//! | settings or texts beyond the string limits ([`Limits::max_strings`](crate::Limits::max_strings), [`Limits::max_string_bytes`](crate::Limits::max_string_bytes)); data past the byte limit is not inflated | warning |
//! | RGB-sized data in a version-1 image | warning |
//! | a sound's `data_size` field that differs from its data | warning |
//! | a Teeworlds 0.3 map (no version item, which DDNet refuses as it is: a warning): upgraded to the 0.4+ model, which is resolved like any map; what does not carry over exactly is noted (module `legacy`, `src/map/legacy.rs`) | warning, or error where the 0.3 game could not read it either |
//!
//! Strict loading refuses what DDNet's map loader refuses, as far as twcodec reads the map:
//! docs/format-notes.md, "What DDNet refuses at load", says what that is and where the two
//! differ.
//!
//! The checks of a layer's content (its tile data, quads and sound sources, the envelopes
//! quads and sources use, the tile bytes DDNet wants zero) are made where the content is decoded
//! (module `content`, `src/map/content.rs`): at load, in parallel (rayon), unless the map is
//! loaded lazily, then when each layer is first read. Inflated tile data becomes the layer's
//! tiles without a copy. Image and sound data is inflated when asked for (or at load with
//! [`Decode::All`](super::Decode::All)), its size checked from the datafile's declaration.
//!
//! Before any of it, the datafile's [`Limits`](crate::Limits) on the number of layers and on
//! the tiles of each tile layer are checked: exceeding one is an error in either mode.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use twcodec_schema::map::envelope::{EnvPointsItem, EnvelopeKind};
use twcodec_schema::map::image::ImageFormat;
use twcodec_schema::map::layer::{LayerBody, LayerItem, PhysicsKind, TilemapLayer};
use twcodec_schema::map::sound::{DeprecatedSoundSource, SoundSource};
use twcodec_schema::map::tile::{grid_len, Speedup, Switch, Tele, Tile, TileKind, Tune};
use twcodec_schema::map::{encode_ints, DecodeContext, MapItem, MapItemKind};

use super::claims::Claims;
use super::content::{self, effective_kind, Lazy, Source};
use super::layer::{Layer, LayerContent, QuadsLayer, SoundsLayer, TilesLayer};
use super::problem::{ItemPlace, Problems, Severity};
use super::{
    Automapper, DataItem, DataSlot, Decode, EnvelopePoints, Group, Image, LoadOptions, Map,
    MapForm, OtherItem, Ref, Sound, Stored,
};
use crate::datafile::Datafile;
use crate::error::{Error, WarningKind};
use crate::items::{decode_context, is_legacy, item_kind};

/// What loading does with an error the resolver finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum LoadMode {
    /// Keep the problem and go on, keeping what can be kept (every real map loads).
    #[default]
    Lenient,
    /// Stop at the first error; warnings are kept.
    Strict,
}

/// Items shorter than this many ints are padded with zeros to decode as their kind.
const PADDED_LEN: usize = 64;

pub(crate) fn resolve(df: Datafile, options: LoadOptions) -> Result<Map, Error> {
    let source = Arc::new(Source::new(df));
    let df = &source.df;
    let mut resolver = Resolver {
        df,
        source: &source,
        map: Map {
            stamp: super::MapStamp::new(),
            source: Some(Arc::clone(&source)),
            file_format: Some((
                df.version(),
                df.magic(),
                df.size_fields() == crate::datafile::SizeFields::OldVersion4,
            )),
            form: MapForm::Ddnet,
            version: None,
            info: None,
            images: Vec::new(),
            envelopes: Vec::new(),
            points: None,
            groups: Vec::new(),
            layers: Vec::new(),
            sounds: Vec::new(),
            automappers: Vec::new(),
            group_ex: Vec::new(),
            uuid_index: Vec::new(),
            others: Vec::new(),
            data: (0..df.data_count()).map(DataSlot::Source).collect(),
            layer_groups: Vec::new(),
            layer_automappers: Vec::new(),
            problems: Vec::new(),
            legacy: None,
        },
        problems: Problems::default(),
        layer_items: Vec::new(),
        places: HashMap::new(),
        texts: HashMap::new(),
    };
    if is_legacy(df) {
        resolver.check_datafile();
        resolver.upgrade_legacy()?;
    } else {
        resolver.sort_items();
        resolver.check_limits()?;
        resolver.build_layers();
        resolver.check();
    }
    let Resolver {
        mut map, problems, ..
    } = resolver;
    map.problems = problems.list;
    match options.decode {
        Decode::Lazy => {}
        Decode::Layers => map.decode_content(false),
        Decode::All => map.decode_content(true),
    }
    if options.mode == LoadMode::Strict {
        if let Some(error) = map
            .problems()
            .iter()
            .find(|p| p.severity == Severity::Error)
        {
            return Err(error.to_error());
        }
    }
    Ok(map)
}

struct Resolver<'a> {
    df: &'a Datafile,
    source: &'a Arc<Source>,
    map: Map,
    problems: Problems,
    /// Each layer's decoded item, until its content is built.
    layer_items: Vec<Option<LayerItem>>,
    /// Where each object came from, for problems: (kind, arena index) -> place.
    places: HashMap<(&'static str, usize), ItemPlace>,
    /// What is wrong with each text data item checked, if anything.
    texts: HashMap<usize, Option<String>>,
}

impl Resolver<'_> {
    fn place(&self, kind: &'static str, index: usize) -> Option<ItemPlace> {
        self.places.get(&(kind, index)).copied()
    }

    /// A Teeworlds 0.3 map: upgraded to the map model of 0.4 and later and resolved like any
    /// map, after the upgrade's notes; the map keeps the original file to write it back.
    fn upgrade_legacy(&mut self) -> Result<(), Error> {
        let upgraded = super::legacy::upgrade(self.df)?;
        // Lazy: the caller's options decide what is decoded, once the map is whole.
        let mut map = resolve(upgraded.datafile, LoadOptions::LAZY)?;
        // Not an error: reading 0.3 maps is what this path is for, and the 0.3 game read them.
        self.problems.warning(
            None,
            None,
            "a Teeworlds 0.3 map (no version item), which DDNet refuses as it is; \
             `resave --to ddnet` writes the upgraded map, which DDNet loads",
        );
        self.problems.list.extend(upgraded.notes);
        self.problems.list.append(&mut map.problems);
        map.form = MapForm::Teeworlds03;
        map.legacy = Some(self.df.clone());
        self.map = map;
        Ok(())
    }

    /// Decodes every item and puts it in its arena (file order within each kind).
    fn sort_items(&mut self) {
        let context = decode_context(self.df);
        let mut seen: HashSet<(u16, u16)> = HashSet::new();
        // How many items of each type came before, to name an item that does not decode.
        let mut of_type: HashMap<u16, usize> = HashMap::new();
        for (index, raw) in self.df.items().iter().enumerate() {
            let kind = item_kind(self.df, raw.type_id());
            let within_type = of_type.entry(raw.type_id()).or_default();
            let place = item_place(kind.name(), *within_type, raw.type_id(), raw.id());
            *within_type += 1;
            let (decoded, verbatim) = match self.decode(index, kind, place, context) {
                Some(decoded) => decoded,
                None => {
                    self.map.others.push(other_item(self.df)(raw));
                    continue;
                }
            };
            let (name, arena_index) = match decoded {
                MapItem::Version(item) if self.map.version.is_none() => {
                    if item.version != 1 {
                        self.problems.error(
                            None,
                            Some("version"),
                            format!(
                                "= {}: DDNet and Teeworlds load only version 1",
                                item.version
                            ),
                        );
                    }
                    self.map.version = Some((raw.id(), item));
                    ("version", 0)
                }
                MapItem::Info(item) if self.map.info.is_none() => {
                    self.map.info = Some(Stored::new(raw.id(), item, verbatim));
                    ("info", 0)
                }
                MapItem::Image(item) => {
                    self.map.images.push(Stored::new(raw.id(), item, verbatim));
                    ("image", self.map.images.len() - 1)
                }
                MapItem::Envelope(item) => {
                    self.map
                        .envelopes
                        .push(Stored::new(raw.id(), item, verbatim));
                    ("envelope", self.map.envelopes.len() - 1)
                }
                MapItem::Group(item) => {
                    self.map.groups.push(Stored::new(raw.id(), item, verbatim));
                    ("group", self.map.groups.len() - 1)
                }
                MapItem::Layer(item) => {
                    self.map.layers.push(Layer {
                        id: raw.id(),
                        header: item.header,
                        content: LayerContent::Unknown(Vec::new()),
                        verbatim,
                    });
                    self.layer_items.push(Some(item));
                    ("layer", self.map.layers.len() - 1)
                }
                MapItem::EnvPoints(item) if self.map.points.is_none() => {
                    self.map.points = Some(points(raw.id(), item));
                    ("envpoints", 0)
                }
                MapItem::Sound(item) => {
                    self.map.sounds.push(Stored::new(raw.id(), item, verbatim));
                    ("sound", self.map.sounds.len() - 1)
                }
                MapItem::UuidIndex(item) => {
                    self.map.uuid_index.push((raw.id(), item));
                    continue;
                }
                MapItem::Automapper(item) => {
                    self.map.automappers.push(Automapper {
                        id: raw.id(),
                        item,
                        verbatim,
                        layer: None,
                    });
                    ("automapper", self.map.automappers.len() - 1)
                }
                MapItem::GroupEx(item) => {
                    self.map.group_ex.push((raw.id(), item));
                    continue;
                }
                MapItem::EnvPointsBezier(item)
                    if self
                        .map
                        .points
                        .as_ref()
                        .is_some_and(|p| p.bezier_item.is_none()) =>
                {
                    if let Some(points) = &mut self.map.points {
                        points.bezier_item = Some((raw.id(), item));
                    }
                    continue;
                }
                MapItem::Version(_) | MapItem::Info(_) | MapItem::EnvPoints(_) => {
                    self.problems.warning(
                        Some(item_place(kind.name(), 1, raw.type_id(), raw.id())),
                        None,
                        "a second item of a kind a map has one of; kept, not used",
                    );
                    self.map.others.push(other_item(self.df)(raw));
                    continue;
                }
                _ => {
                    self.map.others.push(other_item(self.df)(raw));
                    continue;
                }
            };
            self.places.insert(
                (name, arena_index),
                item_place(name, arena_index, raw.type_id(), raw.id()),
            );
            if raw.type_id() != twcodec_schema::uuid::UUID_INDEX_TYPE
                && !seen.insert((raw.type_id(), raw.id()))
            {
                self.problems.error(
                    self.place(name, arena_index),
                    None,
                    "has the id of an earlier item of its type",
                );
            }
        }
        self.attach_bezier();
        self.map.form = if self
            .layer_items
            .iter()
            .flatten()
            .any(|l| matches!(&l.body, LayerBody::Tilemap(t) if t.uses_tile_skip()))
            || self.map.has_bezier_envelopes()
        {
            MapForm::Teeworlds07
        } else {
            MapForm::Ddnet
        };
    }

    /// Decodes an item, padding one too short for its layout (kept verbatim, with a problem).
    fn decode(
        &mut self,
        index: usize,
        kind: MapItemKind,
        place: ItemPlace,
        context: DecodeContext,
    ) -> Option<(MapItem, Option<Vec<i32>>)> {
        let ints = &self.df.items()[index].data;
        let error = match MapItem::decode(kind, ints, context) {
            Ok(item) => return Some((item, None)),
            Err(error) => error,
        };
        let mut padded = ints.to_vec();
        padded.resize(PADDED_LEN.max(ints.len()), 0);
        let message = crate::items::decode_item(self.df, index, context)
            .err()
            .map(|e| e.message().to_string())
            .unwrap_or_else(|| error.to_string());
        match MapItem::decode(kind, &padded, context) {
            Ok(item) => {
                self.problems.error(
                    Some(place),
                    None,
                    format!("is too short for its layout ({message}); kept as it is"),
                );
                Some((item, Some(ints.to_vec())))
            }
            Err(_) => {
                self.problems.error(
                    Some(place),
                    None,
                    format!("does not decode ({message}); kept as it is"),
                );
                None
            }
        }
    }

    /// DDNet's bezier item counts when it has a tangent set per point, as DDNet requires.
    fn attach_bezier(&mut self) {
        let Some(points) = &mut self.map.points else {
            return;
        };
        if points.bezier.is_some() {
            return;
        }
        if let Some((id, item)) = &points.bezier_item {
            if item.points.len() == points.points.len() {
                points.bezier = Some(item.points.clone());
            } else {
                self.problems.warning(
                    Some(item_place("envpoints bezier", 0, 0, *id)),
                    None,
                    format!(
                        "holds {} tangent sets for {} points; ignored, as DDNet does",
                        item.points.len(),
                        points.points.len()
                    ),
                );
            }
        }
    }

    /// The [`Limits`](crate::Limits) on layers, tiles and layer data, checked before any layer
    /// data is inflated or expanded.
    fn check_limits(&self) -> Result<(), Error> {
        let limits = self.df.limits();
        let layers = self.map.layers.len();
        if layers > limits.max_layers() {
            return Err(Error::limit(format!(
                "the map has {layers} layers, more than the limit of {} (Limits::max_layers)",
                limits.max_layers()
            )));
        }
        let located = |error: Error, index: usize| match self.place("layer", index) {
            Some(place) => error.located(crate::Location::MapItem {
                kind: place.kind,
                index: place.index,
                type_id: place.type_id,
                id: place.id,
            }),
            None => error,
        };
        // Each layer holds its own decoded content, even when layers share a data item.
        let mut layer_data = 0usize;
        for (index, item) in self.layer_items.iter().enumerate() {
            let bytes = match item.as_ref().map(|item| &item.body) {
                Some(LayerBody::Tilemap(tilemap)) => {
                    let Ok(tiles) = grid_len(tilemap.width, tilemap.height) else {
                        continue;
                    };
                    if tiles > limits.max_tiles() {
                        let error = Error::limit(format!(
                            "{}x{} = {tiles} tiles, more than the limit of {} (Limits::max_tiles)",
                            tilemap.width,
                            tilemap.height,
                            limits.max_tiles()
                        ));
                        return Err(located(error, index));
                    }
                    tiles.saturating_mul(tile_size(effective_kind(tilemap)))
                }
                Some(LayerBody::Quads(quads)) => self.data_size(quads.data),
                Some(LayerBody::Sounds(sounds)) => self.data_size(sounds.data),
                // Deprecated sources (36 bytes) are upgraded to 52.
                Some(LayerBody::DeprecatedSounds(sounds)) => {
                    self.data_size(sounds.data)
                        .saturating_mul(SoundSource::SIZE)
                        / DeprecatedSoundSource::SIZE
                }
                // Unknown and registered types the graph does not model: kept as ints.
                Some(_) | None => 0,
            };
            layer_data = layer_data.saturating_add(bytes);
            if layer_data > limits.max_layer_data() {
                let error = Error::limit(format!(
                    "the layers up to this one hold {layer_data} bytes once decoded, more than \
                     the limit of {} (Limits::max_layer_data)",
                    limits.max_layer_data()
                ));
                return Err(located(error, index));
            }
        }
        Ok(())
    }

    /// The declared uncompressed size of data item `raw`, 0 when there is no such item.
    fn data_size(&self, raw: i32) -> usize {
        usize::try_from(raw)
            .ok()
            .and_then(|index| self.df.data_size(index))
            .unwrap_or(0)
    }

    /// Builds each layer's content, decoded from its data item on first access, and reports
    /// what the layer's item alone shows wrong with it.
    fn build_layers(&mut self) {
        let places = (0..self.map.layers.len())
            .map(|index| self.place("layer", index))
            .collect();
        let kinds = (self.map.envelopes.iter())
            .map(|envelope| envelope.item.kind())
            .collect();
        self.source.set_layer_context(places, kinds);
        let items = std::mem::take(&mut self.layer_items);
        for (index, item) in items.into_iter().enumerate() {
            let Some(item) = item else { continue };
            let place = self.place("layer", index);
            let content = self.layer_content(item.body, index, place);
            self.map.layers[index].content = content;
        }
    }

    /// Content decoded on first access from the map's source, as layer `index`.
    fn lazy<V>(&self, index: usize) -> Lazy<V> {
        Lazy::pending(Arc::clone(self.source), index)
    }

    /// Checks a layer's data field: no data, or data past the data items, is an error.
    fn layer_data(&mut self, raw: i32, field: &'static str, place: Option<ItemPlace>) {
        match self.map.item_ref::<DataItem>(raw) {
            Ref::To(_) => {}
            Ref::None => self.problems.error(
                place,
                Some(field),
                format!("= {raw}: the layer has no data"),
            ),
            Ref::Dangling(raw) => self.problems.error(
                place,
                Some(field),
                format!(
                    "= {raw} points past the {} data items",
                    self.df.data_count()
                ),
            ),
        }
    }

    fn layer_content(
        &mut self,
        body: LayerBody,
        index: usize,
        place: Option<ItemPlace>,
    ) -> LayerContent {
        match body {
            LayerBody::Tilemap(item) => self.tilemap(item, index, place),
            LayerBody::Quads(item) => {
                self.layer_data(item.data, "data", place);
                LayerContent::Quads(QuadsLayer {
                    item,
                    quads: self.lazy(index),
                    modified: false,
                })
            }
            LayerBody::Sounds(item) => self.sounds(item, false, index, place),
            LayerBody::DeprecatedSounds(item) => self.sounds(item, true, index, place),
            LayerBody::Unknown(ints) => LayerContent::Unknown(ints),
            // A layer type registered in the schema that the graph does not model: its ints,
            // written back as read. Encoding into a vector fails only when it cannot grow.
            other => LayerContent::Unknown(encode_ints(&other, ()).unwrap_or_default()),
        }
    }

    fn sounds(
        &mut self,
        item: twcodec_schema::map::layer::SoundsLayer,
        deprecated: bool,
        index: usize,
        place: Option<ItemPlace>,
    ) -> LayerContent {
        self.layer_data(item.data, "data", place);
        LayerContent::Sounds(SoundsLayer {
            item,
            deprecated,
            sources: self.lazy(index),
            modified: false,
        })
    }

    fn tiles<T: TileKind>(&self, item: TilemapLayer, index: usize) -> TilesLayer<T> {
        TilesLayer {
            item,
            tiles: self.lazy(index),
            modified: false,
        }
    }

    fn tilemap(
        &mut self,
        item: TilemapLayer,
        index: usize,
        place: Option<ItemPlace>,
    ) -> LayerContent {
        let flagged = item.flags.kind();
        if flagged == PhysicsKind::Several {
            self.problems.error(
                place,
                Some("flags"),
                "set several physics flags; read as a tiles layer",
            );
        } else if item.tile_data().is_none() {
            let name = format!("{flagged:?}").to_lowercase();
            self.problems.error(
                place,
                Some("flags"),
                format!(
                    "= [\"{name}\"], but the item has no {name} data index (a mod's flag?); read \
                     as a tiles layer"
                ),
            );
        }
        if let Err(error) = grid_len(item.width, item.height) {
            self.problems.error(place, Some("width"), error.to_string());
        }
        let (field, raw) = content::tile_data_field(&item);
        self.layer_data(raw, field, place);
        match effective_kind(&item) {
            PhysicsKind::Tiles | PhysicsKind::Several => {
                LayerContent::Tiles(self.tiles::<Tile>(item, index))
            }
            PhysicsKind::Game => LayerContent::Game(self.tiles::<Tile>(item, index)),
            PhysicsKind::Front => LayerContent::Front(self.tiles::<Tile>(item, index)),
            PhysicsKind::Tele => LayerContent::Tele(self.tiles::<Tele>(item, index)),
            PhysicsKind::Tune => LayerContent::Tune(self.tiles::<Tune>(item, index)),
            PhysicsKind::Speedup => LayerContent::Speedup(self.tiles::<Speedup>(item, index)),
            PhysicsKind::Switch => LayerContent::Switch(self.tiles::<Switch>(item, index)),
        }
    }

    /// Every check that needs the whole map.
    fn check(&mut self) {
        self.check_datafile();
        self.check_info();
        self.check_images();
        self.check_envelopes();
        self.check_groups();
        self.check_layers();
        self.check_sounds();
        self.check_automappers();
    }

    fn data_ref(&mut self, raw: i32, field: &'static str, place: Option<ItemPlace>) {
        if let Ref::Dangling(raw) = self.map.item_ref::<DataItem>(raw) {
            self.problems.error(
                place,
                Some(field),
                format!(
                    "= {raw} points past the {} data items",
                    self.df.data_count()
                ),
            );
        }
    }

    /// The datafile reader's warnings, as problems: errors where DDNet refuses the file.
    fn check_datafile(&mut self) {
        for warning in self.df.warnings() {
            let severity = match warning.kind {
                // The resolver names the items itself.
                WarningKind::DuplicateItemId => continue,
                WarningKind::SizeFieldMismatch { .. }
                | WarningKind::TrailingBytes { .. }
                | WarningKind::EmptyItemType => Severity::Error,
                _ => Severity::Warning,
            };
            let message = format!("datafile: {warning}");
            match severity {
                Severity::Error => self.problems.error(None, None, message),
                Severity::Warning => self.problems.warning(None, None, message),
            }
        }
    }

    /// Checks a text data item as DDNet's `CDataFileReader::GetDataString` reads it: one NUL,
    /// at the end, and UTF-8 before it. Each data item is inflated once, however many items
    /// name it.
    fn text(&mut self, raw: i32, field: &'static str, place: Option<ItemPlace>) {
        let Ref::To(data) = self.map.item_ref::<DataItem>(raw) else {
            return self.data_ref(raw, field, place);
        };
        let df = self.df;
        let at = data.index();
        // Not inflated past the string limit: a text of megabytes is not one.
        let size = df.data_size(at).unwrap_or(0);
        if let Err(error) = df.limits().check_string_bytes("the text", size) {
            let message = format!("= {at}: {error}; not checked");
            return self.problems.warning(place, Some(field), message);
        }
        let problem = self
            .texts
            .entry(at)
            .or_insert_with(|| {
                let bytes = df.data(at).ok()?;
                match bytes.iter().position(|&b| b == 0) {
                    None => Some(format!("= {at}: the text has no terminating NUL")),
                    Some(nul) if nul + 1 < bytes.len() => Some(format!(
                        "= {at}: the text ends at a NUL at byte {nul} of {}",
                        bytes.len()
                    )),
                    Some(nul) => std::str::from_utf8(&bytes[..nul])
                        .err()
                        .map(|_| format!("= {at}: the text is not UTF-8")),
                }
            })
            .clone();
        if let Some(problem) = problem {
            self.problems.error(
                place,
                Some(field),
                format!("{problem} (DDNet reads no text from it)"),
            );
        }
    }

    fn check_info(&mut self) {
        let Some(info) = self.map.info.clone() else {
            return;
        };
        let place = self.place("info", 0);
        for (raw, field) in [
            (info.item.author, "author"),
            (info.item.map_version, "map_version"),
            (info.item.credits, "credits"),
            (info.item.license, "license"),
        ] {
            self.text(raw, field, place);
        }
        let Some(settings) = info.item.settings else {
            return;
        };
        self.data_ref(settings, "settings", place);
        let Ref::To(data) = self.map.item_ref::<DataItem>(settings) else {
            return;
        };
        let (limits, at) = (self.df.limits(), data.index());
        let size = self.df.data_size(at).unwrap_or(0);
        if let Err(error) = limits.check_string_bytes("the settings", size) {
            let message = format!("= {at}: {error}; not checked");
            return self.problems.warning(place, Some("settings"), message);
        }
        if let Ok(bytes) = self.df.data(at) {
            let count = twcodec_schema::map::settings_count(&bytes);
            if let Err(error) = limits.check_strings("the settings", count) {
                self.problems
                    .warning(place, Some("settings"), format!("= {at}: {error}"));
            }
            // Only the last byte matters: the list is read up to there.
            if bytes.last().is_some_and(|&b| b != 0) {
                self.problems.error(
                    place,
                    Some("settings"),
                    format!(
                        "= {}: the last command has no terminating NUL (DDNet's server reads \
                         past the end of the data)",
                        data.index()
                    ),
                );
            }
        }
    }

    fn check_images(&mut self) {
        for index in 0..self.map.images.len() {
            let item = self.map.images[index].item.clone();
            let place = self.place("image", index);
            self.text(item.name, "name", place);
            if item.version >= 2 && item.format.is_none() {
                self.problems.error(
                    place,
                    Some("format"),
                    format!(
                        "is missing from this version-{} item of 6 ints (DDNet reads the bytes \
                         after the item as the format)",
                        item.version
                    ),
                );
            }
            match item.format {
                Some(stored @ ImageFormat(format)) if !stored.is_known() && item.external == 0 => {
                    self.problems.error(
                        place,
                        Some("format"),
                        format!(
                            "= {format}: neither RGBA (1) nor RGB (0), so no reader reads the \
                         embedded pixels (DDNet's client skips the image, Teeworlds reads it as \
                         external)"
                        ),
                    )
                }
                // What the Teeworlds 0.7 editor writes for external images.
                Some(stored @ ImageFormat(format)) if !stored.is_known() => self.problems.warning(
                    place,
                    Some("format"),
                    format!(
                        "= {format}: not RGBA (1), so DDNet's client skips this external image \
                         (Teeworlds reads it by name; `resave --to ddnet` makes it version 1)"
                    ),
                ),
                // DDNet's client loads version-2 images of format 1 only ("invalid map image
                // type", D:src/game/client/components/mapimages.cpp); the map still loads.
                Some(ImageFormat::RGB) if item.version >= 2 => {
                    let (what, teeworlds) = match item.external {
                        0 => ("embedded", "Teeworlds 0.7.0 to 0.7.5 read its RGB pixels"),
                        _ => ("external", "Teeworlds reads it by name"),
                    };
                    self.problems.warning(
                        place,
                        Some("format"),
                        format!(
                            "= 0: RGB, not RGBA (1), so DDNet's client skips this {what} image \
                             ({teeworlds}; `resave --to ddnet` makes it version 1, RGBA)"
                        ),
                    )
                }
                _ => {}
            }
            if item.external != 0 {
                continue;
            }
            let data = match self.map.item_ref::<DataItem>(item.data) {
                Ref::To(r) => r.index(),
                Ref::None => {
                    self.problems
                        .error(place, Some("data"), "= -1, but the image is embedded");
                    continue;
                }
                Ref::Dangling(raw) => {
                    self.problems.error(
                        place,
                        Some("data"),
                        format!(
                            "= {raw} points past the {} data items",
                            self.df.data_count()
                        ),
                    );
                    continue;
                }
            };
            let len = self.df.data_size(data).unwrap_or(0);
            let image = &self.map.images[index];
            let pixels = (item.width.max(0) as usize).saturating_mul(item.height.max(0) as usize);
            match image.bytes_per_pixel(len) {
                Some(bpp) if len < pixels.saturating_mul(bpp) => self.problems.error(
                    place,
                    Some("data"),
                    format!(
                        "holds {len} bytes, {}x{} pixels of {bpp} bytes need {}",
                        item.width,
                        item.height,
                        pixels.saturating_mul(bpp)
                    ),
                ),
                Some(3) if item.format.is_none() => self.problems.warning(
                    place,
                    Some("data"),
                    "holds RGB pixels in a version-1 image (RGBA by the format)",
                ),
                _ => {}
            }
        }
    }

    fn check_envelopes(&mut self) {
        let point_count = self.map.points.as_ref().map_or(0, |p| p.points.len());
        let mut claims = Claims::default();
        for index in 0..self.map.envelopes.len() {
            let envelope = self.map.envelopes[index].clone();
            let place = self.place("envelope", index);
            if let EnvelopeKind::Other(channels) = envelope.item.kind() {
                self.problems.error(
                    place,
                    Some("channels"),
                    format!(
                        "= {channels}: not 1 (sound), 3 (position) or 4 (color); DDNet's editor \
                         resets it, Teeworlds 0.7.5 overflows a buffer on more than 4"
                    ),
                );
            }
            let Some(range) = envelope.range(point_count) else {
                self.problems.error(
                    place,
                    Some("start_point"),
                    format!(
                        "and num_points = {}..+{}: outside the {point_count} envelope points",
                        envelope.item.start_point, envelope.item.num_points
                    ),
                );
                continue;
            };
            let claim = claims.claim(range, index);
            if let Some((_, other)) = claim.taken {
                self.problems.error(
                    place,
                    Some("start_point"),
                    format!(
                        "and num_points = {}..+{}: overlap the points of envelope #{other}",
                        envelope.item.start_point, envelope.item.num_points
                    ),
                );
            }
            // Each point is looked at with the first envelope that has it, so that envelopes
            // sharing their points cost no more than the points.
            let points = self.map.points.as_ref().map_or(&[][..], |p| &p.points[..]);
            let mut unknown = std::collections::BTreeSet::new();
            let mut count = 0usize;
            for point in claim.new.into_iter().flat_map(|range| &points[range]) {
                if !point.curve().is_known() {
                    unknown.insert(point.curve().to_i32());
                    count += 1;
                }
            }
            if count > 0 {
                let points = if count == 1 {
                    "1 point".to_string()
                } else {
                    format!("{count} points")
                };
                let unknown: Vec<i32> = unknown.into_iter().collect();
                self.problems.warning(
                    place,
                    None,
                    format!("has {points} of unknown curve types {unknown:?}, drawn linear"),
                );
            }
        }
    }

    fn check_groups(&mut self) {
        let layer_count = self.map.layers.len();
        let ranges: Vec<_> = self
            .map
            .groups
            .iter()
            .map(|group| group.layer_range(layer_count))
            .collect();
        let mut claims = Claims::default();
        for (index, range) in ranges.iter().enumerate() {
            let item = &self.map.groups[index].item;
            let (start, num) = (item.start_layer, item.num_layers);
            let place = self.place("group", index);
            let in_range = start >= 0
                && num >= 0
                && (start as usize).saturating_add(num as usize) <= layer_count;
            if !in_range {
                self.problems.error(
                    place,
                    Some("start_layer"),
                    format!("and num_layers = {start}..+{num}: outside the {layer_count} layers"),
                );
            }
            if let Some((layer, other)) = claims.claim(range.clone(), index).taken {
                self.problems.error(
                    place,
                    Some("start_layer"),
                    format!(
                        "and num_layers = {start}..+{num}: layer #{layer} is in group #{other} too"
                    ),
                );
            }
        }
        // A layer belongs to the last group that lists it (DDNet takes the game group so):
        // claimed from the last group back, each layer is set once.
        let mut layer_groups: Vec<Option<usize>> = vec![None; layer_count];
        let mut claims = Claims::default();
        for (index, range) in ranges.into_iter().enumerate().rev() {
            for layer in claims.claim(range, index).new.into_iter().flatten() {
                layer_groups[layer] = Some(index);
            }
        }
        for (index, group) in layer_groups.iter().enumerate() {
            if group.is_none() {
                let place = self.place("layer", index);
                self.problems
                    .warning(place, None, "is in no group; no game draws it");
            }
        }
        self.map.layer_groups = layer_groups;
    }

    fn check_layers(&mut self) {
        let mut last_of_kind: HashMap<&'static str, usize> = HashMap::new();
        let game_group = self
            .map
            .game_layer()
            .and_then(|(r, _)| self.map.group_of(r));
        if self.map.game_layer().is_none() {
            self.problems.error(None, None, "the map has no game layer");
        }
        // Taken out for the loop rather than cloned: a layer holds its tiles.
        let layers = std::mem::take(&mut self.map.layers);
        for (index, layer) in layers.iter().enumerate() {
            let place = self.place("layer", index);
            if layer.is_physics() {
                if let Some(previous) = last_of_kind.insert(layer.kind_name(), index) {
                    self.problems.warning(
                        place,
                        None,
                        format!(
                            "is a second {} layer (after layer #{previous}); the last one counts, \
                             as in DDNet",
                            layer.kind_name()
                        ),
                    );
                }
                let group = self.map.group_of(self.map.mint(index));
                if group.is_some() && group != game_group {
                    self.problems.error(
                        place,
                        None,
                        format!("is a {} layer outside the game group", layer.kind_name()),
                    );
                }
            }
            match &layer.content {
                // The envelopes quads and sources use are checked with their content.
                LayerContent::Quads(quads) => self.image_ref(quads.item.image, place),
                LayerContent::Sounds(sounds) => {
                    if let Ref::Dangling(raw) = self.map.item_ref::<Sound>(sounds.item.sound) {
                        self.problems.error(
                            place,
                            Some("sound"),
                            format!("= {raw} points past the {} sounds", self.map.sounds.len()),
                        );
                    }
                }
                LayerContent::Unknown(_) => {}
                _ => {
                    if let Some(tilemap) = layer.tilemap() {
                        self.image_ref(tilemap.image, place);
                        let color = std::iter::once(tilemap.color_envelope);
                        self.envelope_uses(color, EnvelopeKind::Color, "color_envelope", place);
                        self.check_tilemap(layer, tilemap, place);
                    }
                }
            }
        }
        self.map.layers = layers;
        self.check_tile_layers_in_groups();
    }

    /// The tile layers of the groups as DDNet's `CMap::Load` visits them (group by group, each
    /// group's layers in order, each layer once), with what it checks across them: a game
    /// layer among them (the last one counts), tile data items used by one layer each, and
    /// physics layers of at least as many tiles as that game layer.
    fn check_tile_layers_in_groups(&mut self) {
        let layer_count = self.map.layers.len();
        // Claimed group by group, so that groups covering each other cost no more than the
        // layers; each group's new pieces come in layer order.
        let mut claims = Claims::default();
        let mut order = Vec::new();
        for (index, group) in self.map.groups.iter().enumerate() {
            let claim = claims.claim(group.layer_range(layer_count), index);
            order.extend(claim.new.into_iter().flatten());
        }
        let tilemaps: Vec<(usize, &Layer, &TilemapLayer)> = (order.iter())
            .filter_map(|&index| {
                let layer = self.map.layers.get(index)?;
                Some((index, layer, layer.tilemap()?))
            })
            .collect();
        let game = (tilemaps.iter().rev())
            .find(|(_, layer, _)| matches!(layer.content, LayerContent::Game(_)))
            .map(|&(index, _, tilemap)| (index, tilemap.width, tilemap.height));
        let mut found = Problems::default();
        if let (None, Some((r, _))) = (game, self.map.game_layer()) {
            found.error(
                self.place("layer", r.index()),
                None,
                "is a game layer in no group, and no group holds one; DDNet looks for the game \
                 layer in the groups and refuses the map",
            );
        }
        // Data item -> the first layer keeping its tiles there.
        let mut owners: HashMap<usize, usize> = HashMap::new();
        for &(index, layer, tilemap) in &tilemaps {
            let place = self.place("layer", index);
            let (field, raw) = content::tile_data_field(tilemap);
            if let Ref::To(data) = self.map.item_ref::<DataItem>(raw) {
                match owners.entry(data.index()) {
                    Entry::Occupied(first) => found.error(
                        place,
                        Some(field),
                        format!(
                            "= {raw}: layer #{} keeps its tiles in this data item too; DDNet \
                             refuses tile layers that share their tile data",
                            first.get()
                        ),
                    ),
                    Entry::Vacant(slot) => {
                        slot.insert(index);
                    }
                }
            }
            let Some((game, width, height)) = game else {
                continue;
            };
            let physics = layer.is_physics() && !matches!(layer.content, LayerContent::Game(_));
            let counts = (
                grid_len(tilemap.width, tilemap.height),
                grid_len(width, height),
            );
            let smaller = match counts {
                (Ok(count), Ok(game_count)) => count < game_count,
                _ => false,
            };
            if physics && smaller {
                found.error(
                    place,
                    Some("width"),
                    format!(
                        "and height = {}x{}: fewer tiles than the {width}x{height} game layer \
                         (layer #{game}), which DDNet refuses in a {} layer",
                        tilemap.width,
                        tilemap.height,
                        layer.kind_name()
                    ),
                );
            }
        }
        self.problems.list.append(&mut found.list);
    }

    /// What DDNet's `CMap::Load` refuses in a tile layer item alone: versions it does not know,
    /// a version-3 or 4 item without its name, a name that is not UTF-8, fewer than 2 tiles
    /// across or down, more tiles than an int counts, colors outside a byte; and, as a
    /// warning, skip compression in a layer whose tiles DDNet then drops (the map loads).
    fn check_tilemap(&mut self, layer: &Layer, tilemap: &TilemapLayer, place: Option<ItemPlace>) {
        let known = (2..=4).contains(&tilemap.version);
        if !known {
            self.problems.error(
                place,
                Some("version"),
                format!(
                    "= {}: DDNet refuses tile layers of versions other than 2 to 4 (older DDNet \
                     read them as 3, as twcodec does)",
                    tilemap.version
                ),
            );
        }
        match &tilemap.name {
            // Version 2 items have no name, DDNet reads no other versions, and the name of an
            // item too short for its layout is padding.
            _ if !known || tilemap.version == 2 || layer.verbatim.is_some() => {}
            None => self.problems.error(
                place,
                Some("name"),
                format!(
                    "is missing: this version-{} item has {} ints and its name needs 18, which \
                     DDNet refuses",
                    tilemap.version,
                    15 + tilemap.unknown_tail.len()
                ),
            ),
            Some(name) if name.ddnet_text().is_none() => self.problems.error(
                place,
                Some("name"),
                format!(
                    "= {:?}: the bytes DDNet decodes from it are not UTF-8, which DDNet refuses \
                     in a tile layer",
                    name.ints
                ),
            ),
            Some(_) => {}
        }
        for (field, value, across) in [
            ("width", tilemap.width, "across"),
            ("height", tilemap.height, "down"),
        ] {
            // Below 1, the dimensions are an error already (`tilemap`).
            if value == 1 {
                self.problems.error(
                    place,
                    Some(field),
                    format!("= 1: DDNet refuses tile layers of fewer than 2 tiles {across}"),
                );
            }
        }
        let count = grid_len(tilemap.width, tilemap.height).ok();
        if let Some(count) = count.filter(|&count| i32::try_from(count).is_err()) {
            self.problems.error(
                place,
                Some("width"),
                format!(
                    "and height = {}x{}: {count} tiles, more than DDNet counts in an int ({}), \
                     which it refuses",
                    tilemap.width,
                    tilemap.height,
                    i32::MAX
                ),
            );
        }
        let kind = effective_kind(tilemap);
        if known
            && tilemap.uses_tile_skip()
            && !matches!(kind, PhysicsKind::Tiles | PhysicsKind::Game)
        {
            self.problems.warning(
                place,
                Some("version"),
                format!(
                    "= {}: skip-compressed tiles, which DDNet reads only in tiles and game \
                     layers; it loads the map without this {} layer's tiles (twcodec reads them \
                     uncompressed)",
                    tilemap.version,
                    layer.kind_name()
                ),
            );
        }
        let color = tilemap.color;
        if !layer.is_physics()
            && [color.r, color.g, color.b, color.a]
                .iter()
                .any(|c| !(0..=255).contains(c))
        {
            self.problems.error(
                place,
                Some("color"),
                format!(
                    "= ({}, {}, {}, {}): a channel outside 0 to 255, which DDNet refuses",
                    color.r, color.g, color.b, color.a
                ),
            );
        }
    }

    fn image_ref(&mut self, raw: i32, place: Option<ItemPlace>) {
        match self.map.item_ref::<Image>(raw) {
            Ref::Dangling(raw) => self.problems.error(
                place,
                Some("image"),
                format!("= {raw} points past the {} images", self.map.images.len()),
            ),
            Ref::None if raw != -1 => self.problems.warning(
                place,
                Some("image"),
                format!("= {raw}: negative, read as none (as DDNet does)"),
            ),
            _ => {}
        }
    }

    /// References from a tilemap to envelopes that should animate `kind` channels.
    fn envelope_uses(
        &mut self,
        raws: impl Iterator<Item = i32>,
        kind: EnvelopeKind,
        field: &'static str,
        place: Option<ItemPlace>,
    ) {
        // The envelopes' kinds as loaded, which `build_layers` gave the source.
        let kinds = self.source.envelope_kinds();
        content::envelope_uses(&mut self.problems, kinds, raws, kind, field, place);
    }

    fn check_sounds(&mut self) {
        for index in 0..self.map.sounds.len() {
            let item = self.map.sounds[index].item.clone();
            let place = self.place("sound", index);
            self.text(item.name, "name", place);
            match self.map.item_ref::<DataItem>(item.data) {
                Ref::To(r) => {
                    let size = self.df.data_size(r.index()).unwrap_or(0);
                    if usize::try_from(item.data_size).ok() != Some(size) {
                        self.problems.warning(
                            place,
                            Some("data_size"),
                            format!("= {}, but the data holds {size} bytes", item.data_size),
                        );
                    }
                }
                Ref::None if item.external == 0 => {
                    self.problems
                        .error(place, Some("data"), "= -1, but the sound is embedded")
                }
                Ref::None => {}
                Ref::Dangling(raw) => self.problems.error(
                    place,
                    Some("data"),
                    format!(
                        "= {raw} points past the {} data items",
                        self.df.data_count()
                    ),
                ),
            }
        }
    }

    fn check_automappers(&mut self) {
        self.map.layer_automappers = vec![None; self.map.layers.len()];
        for index in 0..self.map.automappers.len() {
            let item = self.map.automappers[index].item.clone();
            let place = self.place("automapper", index);
            let group = self.map.item_ref::<Group>(item.group);
            let layer = group.get().and_then(|g| {
                let range = self.map.groups[g.index()].layer_range(self.map.layers.len());
                usize::try_from(item.layer)
                    .ok()
                    .and_then(|i| range.start.checked_add(i))
                    .filter(|&layer| layer < range.end)
            });
            match (group, layer) {
                (Ref::To(_), Some(layer)) => {
                    self.map.automappers[index].layer = Some(layer);
                    // The first auto-mapper of a layer is the one it has.
                    if let Some(slot @ None) = self.map.layer_automappers.get_mut(layer) {
                        *slot = Some(index);
                    }
                }
                (Ref::To(_), None) => self.problems.error(
                    place,
                    Some("layer"),
                    format!("= {}: the group has no such layer", item.layer),
                ),
                _ => self.problems.error(
                    place,
                    Some("group"),
                    format!(
                        "= {} points past the {} groups",
                        item.group,
                        self.map.groups.len()
                    ),
                ),
            }
        }
    }
}

fn points(id: u16, item: EnvPointsItem) -> EnvelopePoints {
    match item {
        EnvPointsItem::Points {
            points,
            unknown_tail,
        } => EnvelopePoints {
            id,
            points,
            bezier: None,
            wide: false,
            unknown_tail,
            bezier_item: None,
            modified: false,
        },
        EnvPointsItem::Points22 {
            points,
            unknown_tail,
        } => EnvelopePoints {
            id,
            points: points.iter().map(|p| p.point).collect(),
            bezier: Some(points.iter().map(|p| p.bezier).collect()),
            wide: true,
            unknown_tail,
            bezier_item: None,
            modified: false,
        },
    }
}

fn item_place(kind: &'static str, index: usize, type_id: u16, id: u16) -> ItemPlace {
    ItemPlace {
        kind,
        index,
        type_id,
        id,
    }
}

/// A datafile item kept as an [`OtherItem`].
fn other_item(df: &Datafile) -> impl Fn(&twcodec_schema::datafile::Item) -> OtherItem + '_ {
    move |item| OtherItem {
        type_id: item.type_id(),
        id: item.id(),
        uuid: df.uuid_of_type(item.type_id()),
        ints: item.data.clone(),
    }
}

/// Bytes per tile of a layer read as `kind`.
fn tile_size(kind: PhysicsKind) -> usize {
    match kind {
        PhysicsKind::Tiles | PhysicsKind::Game | PhysicsKind::Front | PhysicsKind::Several => {
            std::mem::size_of::<Tile>()
        }
        PhysicsKind::Tele => std::mem::size_of::<Tele>(),
        PhysicsKind::Speedup => std::mem::size_of::<Speedup>(),
        PhysicsKind::Switch => std::mem::size_of::<Switch>(),
        PhysicsKind::Tune => std::mem::size_of::<Tune>(),
    }
}
