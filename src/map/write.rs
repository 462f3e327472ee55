//! The map writer: a map graph back into a datafile.
//!
//! Every item is written from its arena in file order with its id; unchanged data keeps its
//! stored bytes; modified tiles, quads and sound sources are encoded anew (tiles of version-4
//! tiles and game layers skip-compressed). UUID item types keep the internal type ids of the
//! source file; new ones get free ids from `0xFFFE` down. A Teeworlds 0.3 map writes its original
//! file while its upgraded model is unmodified, the model in DDNet form once it is modified.

#[cfg(feature = "fs")]
use std::path::Path;

use bytes::Bytes;
use twcodec_schema::datafile::Version;
use twcodec_schema::map::envelope::{
    EnvPoint22, EnvPointBezier, EnvPointsBezierItem, EnvPointsItem,
};
use twcodec_schema::map::layer::{LayerBody, LayerItem, PhysicsKind, TilemapLayer};
use twcodec_schema::map::quad::Quad;
use twcodec_schema::map::sound::SoundSource;
use twcodec_schema::map::tile::{compress_skip, tiles_as_bytes, Tile, TileKind};
use twcodec_schema::map::{encode_ints, ints_as_le_bytes, MapItemKind};

use super::layer::{Layer, LayerContent, TilesLayer};
use super::{DataSlot, EnvelopePoints, Map, MapForm};
use crate::datafile::Datafile;
use crate::error::Error;
use crate::write::DatafileWriter;

impl Map {
    /// A datafile writer holding this map, in its current form (see [`Map::convert`]): write it
    /// with [`DatafileWriter::write`], [`DatafileWriter::to_vec`] or [`DatafileWriter::save`].
    /// An unmodified map gives back the items and data it was read from.
    pub fn to_datafile(&self) -> Result<DatafileWriter, Error> {
        let mut writer = match self.file_format {
            Some((version, magic, old_size_fields)) => DatafileWriter::new()
                .version(version)
                .magic(magic)
                .old_size_fields(old_size_fields),
            None => DatafileWriter::new(),
        };
        if let Some(source) = &self.source {
            writer = writer.limits(source.df.limits());
        }
        let mut data = self.data.clone();
        let mut uses = self.data_uses();

        if let Some((id, version)) = &self.version {
            writer.add_item(0, *id, encode(version)?);
        }
        if let Some(info) = &self.info {
            writer.add_item(1, info.id, verbatim_or(&info.verbatim, &info.item)?);
        }
        for image in &self.images {
            writer.add_item(2, image.id, verbatim_or(&image.verbatim, &image.item)?);
        }
        for envelope in &self.envelopes {
            writer.add_item(
                3,
                envelope.id,
                verbatim_or(&envelope.verbatim, &envelope.item)?,
            );
        }
        for group in &self.groups {
            writer.add_item(4, group.id, verbatim_or(&group.verbatim, &group.item)?);
        }
        for layer in &self.layers {
            let ints = match &layer.verbatim {
                Some(ints) => ints.clone(),
                None => encode(&layer_item(layer, &mut data, &mut uses)?)?,
            };
            writer.add_item(5, layer.id, ints);
        }
        let mut bezier_item = None;
        if let Some(points) = &self.points {
            let (item, bezier) = points_items(points);
            writer.add_item(6, points.id, encode_with(&item)?);
            bezier_item = bezier;
        }
        for sound in &self.sounds {
            writer.add_item(7, sound.id, verbatim_or(&sound.verbatim, &sound.item)?);
        }
        for other in &self.others {
            writer.add_item(other.type_id, other.id, other.ints.clone());
        }
        for (id, index) in &self.uuid_index {
            writer.add_item(twcodec_schema::uuid::UUID_INDEX_TYPE, *id, encode(index)?);
        }
        // Each UUID type is looked up (or given its index item) once, by its first item: a
        // lookup scans the items written so far.
        let mut uuid_types: Vec<(MapItemKind, u16)> = Vec::new();
        let mut add_uuid_item = |writer: &mut DatafileWriter, kind: MapItemKind, id, ints| {
            match uuid_types.iter().find(|(k, _)| *k == kind) {
                Some(&(_, type_id)) => {
                    writer.add_item(type_id, id, ints);
                }
                None => {
                    let uuid = kind.uuid().unwrap_or_default();
                    uuid_types.push((kind, writer.add_uuid_item(uuid, id, ints)?));
                }
            }
            Ok::<(), Error>(())
        };
        for automapper in &self.automappers {
            let ints = verbatim_or(&automapper.verbatim, &automapper.item)?;
            add_uuid_item(&mut writer, MapItemKind::Automapper, automapper.id, ints)?;
        }
        for (id, item) in &self.group_ex {
            add_uuid_item(&mut writer, MapItemKind::GroupEx, *id, encode(item)?)?;
        }
        if let Some((id, item)) = bezier_item {
            add_uuid_item(
                &mut writer,
                MapItemKind::EnvPointsBezier,
                id,
                encode(&item)?,
            )?;
        }

        if let Some(original) = self.unmodified_legacy(&writer, &data) {
            return Ok(DatafileWriter::from_datafile(original));
        }
        let source_version = self.source.as_ref().map(|s| s.df.version());
        for slot in &data {
            match slot {
                DataSlot::Owned(bytes) => writer.add_data(bytes.clone()),
                DataSlot::Source(index) => {
                    let source = self.source.as_ref().ok_or_else(|| {
                        Error::malformed("the map has no source file for its data")
                    })?;
                    let stored = source.df.stored_data(*index).unwrap_or_default();
                    match source_version {
                        Some(Version::V3) => writer.add_data(stored),
                        _ => writer.add_zlib_data(stored, source.df.data_size(*index).unwrap_or(0)),
                    }
                }
            };
        }
        Ok(writer)
    }

    /// The Teeworlds 0.3 file of a map still in that form whose model writes exactly the items
    /// and data of its upgrade (docs/format-notes.md, "Teeworlds 0.3 maps"): unmodified, so
    /// the original is written. Any change to an item or a data item shows as a difference.
    fn unmodified_legacy(&self, writer: &DatafileWriter, data: &[DataSlot]) -> Option<&Datafile> {
        let original = self
            .legacy
            .as_ref()
            .filter(|_| self.form == MapForm::Teeworlds03)?;
        let upgraded = self.source.as_ref()?;
        let same_data = data.len() == upgraded.df.data_count()
            && (data.iter().enumerate())
                .all(|(i, slot)| matches!(slot, DataSlot::Source(s) if *s == i));
        (same_data && writer.items() == upgraded.df.items()).then_some(original)
    }

    /// How many item fields refer to each data item, for [`store`]: info texts, image and
    /// sound names and data, and every data field of every layer.
    pub(super) fn data_uses(&self) -> Vec<u32> {
        let mut uses = vec![0u32; self.data.len()];
        let mut count = |raw: i32| {
            if let Some(n) = usize::try_from(raw).ok().and_then(|i| uses.get_mut(i)) {
                *n += 1;
            }
        };
        if let Some(info) = &self.info {
            let info = &info.item;
            for raw in [info.author, info.map_version, info.credits, info.license] {
                count(raw);
            }
            if let Some(settings) = info.settings {
                count(settings);
            }
        }
        for image in &self.images {
            count(image.item.name);
            count(image.item.data);
        }
        for sound in &self.sounds {
            count(sound.item.name);
            count(sound.item.data);
        }
        for layer in &self.layers {
            match &layer.content {
                LayerContent::Quads(q) => count(q.item.data),
                LayerContent::Sounds(s) => count(s.item.data),
                _ => {
                    // A tilemap: its tiles and DDNet's physics data.
                    if let Some(item) = layer.tilemap() {
                        let physics = &item.physics;
                        let fields = [
                            physics.tele,
                            physics.speedup,
                            physics.front,
                            physics.switch,
                            physics.tune,
                        ];
                        count(item.data);
                        fields.into_iter().flatten().for_each(&mut count);
                    }
                }
            }
        }
        uses
    }

    /// The map as datafile bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        self.to_datafile()?.to_vec()
    }

    /// Writes the map to `path` atomically (a temporary file, then a rename).
    #[cfg(feature = "fs")]
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        self.to_datafile()?.save(path)
    }

    /// The map as datafile bytes with every data item compressed anew at zlib `level`: 0 (stored)
    /// to 9 (smallest); DDNet and Teeworlds write 6. An error for a level past 9.
    ///
    /// ```
    /// let map = twcodec::Map::parse(&twcodec_testkit::sample::datafile())?;
    /// let small = map.to_bytes_with(9)?;
    /// let fast = map.to_bytes_with(1)?;
    /// assert!(small.len() <= fast.len());
    /// assert_eq!(twcodec::Map::parse(&small)?.layers().len(), map.layers().len());
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn to_bytes_with(&self, level: u32) -> Result<Vec<u8>, Error> {
        self.to_datafile()?
            .compression_level(level)
            .recompress(true)
            .to_vec()
    }

    /// Writes the map to `path` atomically with every data item compressed anew at zlib
    /// `level` (see [`Map::to_bytes_with`]).
    #[cfg(feature = "fs")]
    pub fn save_with(&self, path: impl AsRef<Path>, level: u32) -> Result<(), Error> {
        self.to_datafile()?
            .compression_level(level)
            .recompress(true)
            .save(path)
    }
}

fn encode<T>(item: &T) -> Result<Vec<i32>, Error>
where
    T: for<'a> binrw::BinWrite<Args<'a> = ()>,
{
    encode_ints(item, ()).map_err(|e| Error::from_binrw(e, "map item"))
}

fn encode_with(item: &EnvPointsItem) -> Result<Vec<i32>, Error> {
    encode_ints(item, ()).map_err(|e| Error::from_binrw(e, "envelope points"))
}

fn verbatim_or<T>(verbatim: &Option<Vec<i32>>, item: &T) -> Result<Vec<i32>, Error>
where
    T: for<'a> binrw::BinWrite<Args<'a> = ()>,
{
    match verbatim {
        Some(ints) => Ok(ints.clone()),
        None => encode(item),
    }
}

/// Stores the new content of a layer's data field `raw`: in its slot when nothing else refers
/// to it, else in a new slot, so that the other items sharing the data keep theirs (crafted
/// maps share one data item between layers, and an edit of one must not show in the others).
/// The last of several sharers to be written takes the slot over.
fn store(data: &mut Vec<DataSlot>, uses: &mut [u32], raw: i32, bytes: Vec<u8>) -> i32 {
    let slot = DataSlot::Owned(Bytes::from(bytes));
    let index = usize::try_from(raw).ok().filter(|&i| i < data.len());
    // Slots past `uses` are the writer's own new ones: nothing else refers to them.
    match index.map(|index| (index, uses.get_mut(index))) {
        Some((index, None | Some(0 | 1))) => {
            data[index] = slot;
            raw
        }
        shared => {
            if let Some((_, Some(sharers))) = shared {
                *sharers -= 1;
            }
            data.push(slot);
            (data.len() - 1) as i32
        }
    }
}

/// The layer's item, with new data for modified content.
fn layer_item(
    layer: &Layer,
    data: &mut Vec<DataSlot>,
    uses: &mut [u32],
) -> Result<LayerItem, Error> {
    let mut header = layer.header;
    let body = match &layer.content {
        LayerContent::Tiles(t) | LayerContent::Game(t) => {
            LayerBody::Tilemap(tilemap(t, data, uses, t.item.uses_tile_skip(), true))
        }
        LayerContent::Front(t) => LayerBody::Tilemap(tilemap(t, data, uses, false, false)),
        LayerContent::Tele(t) => LayerBody::Tilemap(tilemap(t, data, uses, false, false)),
        LayerContent::Speedup(t) => LayerBody::Tilemap(tilemap(t, data, uses, false, false)),
        LayerContent::Switch(t) => LayerBody::Tilemap(tilemap(t, data, uses, false, false)),
        LayerContent::Tune(t) => LayerBody::Tilemap(tilemap(t, data, uses, false, false)),
        LayerContent::Quads(q) => {
            let mut item = q.item.clone();
            if let (true, Some(quads)) = (q.modified, q.quads.loaded().and_then(Option::as_ref)) {
                // An empty layer keeps one zeroed dummy quad, as the editors write it.
                let bytes = if quads.is_empty() {
                    ints_as_le_bytes(&[Quad::default()])
                } else {
                    ints_as_le_bytes(quads)
                };
                item.num_quads = quads.len() as i32;
                item.data = store(data, uses, item.data, bytes);
            }
            LayerBody::Quads(item)
        }
        LayerContent::Sounds(s) => {
            let mut item = s.item.clone();
            if let (true, Some(sources)) = (s.modified, s.sources.loaded().and_then(Option::as_ref))
            {
                let bytes = if sources.is_empty() {
                    ints_as_le_bytes(&[SoundSource::default()])
                } else {
                    ints_as_le_bytes(sources)
                };
                item.num_sources = sources.len() as i32;
                item.data = store(data, uses, item.data, bytes);
                // The sources are written in the current layout.
                header.kind = 10;
                item.version = item.version.max(2);
                LayerBody::Sounds(item)
            } else if s.deprecated {
                LayerBody::DeprecatedSounds(item)
            } else {
                LayerBody::Sounds(item)
            }
        }
        LayerContent::Unknown(ints) => LayerBody::Unknown(ints.clone()),
    };
    Ok(LayerItem { header, body })
}

/// The tilemap item, storing the tiles anew when they were modified.
fn tilemap<T: TileKind>(
    layer: &TilesLayer<T>,
    data: &mut Vec<DataSlot>,
    uses: &mut [u32],
    skip: bool,
    main: bool,
) -> TilemapLayer {
    let mut item = layer.item.clone();
    let Some(grid) = (layer.tiles.loaded())
        .and_then(|tiles| tiles.grid.as_ref())
        .filter(|_| layer.modified)
    else {
        return item;
    };
    let bytes = if skip {
        // Tiles and game layers are the only `T = Tile` layers written with skip compression.
        let tiles: &[Tile] = bytemuck::cast_slice(tiles_as_bytes(grid.tiles()));
        tiles_as_bytes(&compress_skip(tiles)).to_vec()
    } else {
        tiles_as_bytes(grid.tiles()).to_vec()
    };
    if main {
        item.data = store(data, uses, item.data, bytes);
        return item;
    }
    let slot = match item.flags.kind() {
        PhysicsKind::Tele => &mut item.physics.tele,
        PhysicsKind::Speedup => &mut item.physics.speedup,
        PhysicsKind::Front => &mut item.physics.front,
        PhysicsKind::Switch => &mut item.physics.switch,
        PhysicsKind::Tune => &mut item.physics.tune,
        _ => {
            item.data = store(data, uses, item.data, bytes);
            return item;
        }
    };
    *slot = Some(store(data, uses, slot.unwrap_or(-1), bytes));
    item
}

/// The envelope points item in the points' form, and DDNet's bezier item when it goes along.
fn points_items(points: &EnvelopePoints) -> (EnvPointsItem, Option<(u16, EnvPointsBezierItem)>) {
    let unknown_tail = points.unknown_tail.clone();
    if points.wide {
        let zero = EnvPointBezier::default();
        let wide = points
            .points
            .iter()
            .enumerate()
            .map(|(i, &point)| EnvPoint22 {
                point,
                bezier: points
                    .bezier
                    .as_ref()
                    .and_then(|b| b.get(i).copied())
                    .unwrap_or(zero),
            })
            .collect();
        return (
            EnvPointsItem::Points22 {
                points: wide,
                unknown_tail,
            },
            None,
        );
    }
    let item = EnvPointsItem::Points {
        points: points.points.clone(),
        unknown_tail,
    };
    if !points.modified {
        return (item, points.bezier_item.clone());
    }
    // DDNet writes its bezier item only when some point is a bezier curve.
    let bezier = points.bezier.as_ref().filter(|_| {
        points
            .points
            .iter()
            .any(|p| p.curve() == twcodec_schema::map::envelope::CurveType::BEZIER)
    });
    let bezier_item = bezier.map(|tangents| {
        let id = points.bezier_item.as_ref().map_or(0, |(id, _)| *id);
        (
            id,
            EnvPointsBezierItem {
                points: tangents.clone(),
                unknown_tail: Vec::new(),
            },
        )
    });
    (item, bezier_item)
}
