//! Editing a map beyond its tiles: adding and removing images, sounds, envelopes, groups and
//! layers with every reference renumbered, and setting references with typed values.
//!
//! | edit | what else changes |
//! |---|---|
//! | [`Map::remove_image`] | tiles and quads layers drawn with it draw none (-1); later images' references shift down; its name and pixel data items go |
//! | [`Map::remove_sound`] | sounds layers playing it play none; later sounds shift; its name and data items go |
//! | [`Map::replace_image`], [`Map::replace_sound`] | nothing else: the item keeps its place, name and id, so every reference stays; its data item is replaced (or added, for an external one); the same pixels or bytes change nothing |
//! | [`Map::remove_envelope`] | every reference to it becomes none: a tile layer's color envelope, each quad's and each source's, however many share it; later envelopes shift; its points leave the envelope points (with their bezier tangents), except points another envelope also covers, and the later envelopes' `start_point` shift |
//! | [`Map::remove_group`] | its layers go too (as [`Map::remove_layer`] each); later groups shift, in auto-mapper configurations too; auto-mapper configurations of the group go; DDNet's group extension items stay in step |
//! | [`Map::remove_layer`] | the groups' layer ranges close up; its auto-mapper configuration goes (it configures that layer only); the others of its group shift; its data items go |
//! | [`Map::insert_layer`], [`Map::move_layer`] | the groups' ranges open up; auto-mapper configurations after the new place shift; a moved layer takes its configuration along |
//! | [`Map::move_image`], [`Map::move_envelope`], [`Map::move_sound`] | every reference to the items between the old and the new place follows its item (layers, quads, sources) |
//! | [`Map::move_group`] | its layers move with it (when the groups hold their layers in order, as every editor writes them), auto-mapper configurations follow their groups, DDNet's group extension items stay in step |
//!
//! Rules every edit follows:
//!
//! - **References.** An [`ItemRef`] checks that the map made it ([`ItemRef::is_of`]). An edit
//!   that moves existing items of a kind (a removal, an insertion before the last item, a move)
//!   renews that kind's generation, so references to that kind taken before it are refused (an
//!   error here, `None` from [`Map::get`]) rather than naming another item: removing a layer
//!   makes older layer and data item references stale, not image references. Adding an item
//!   at the end keeps every reference valid.
//! - **Renumbering.** A raw reference to a removed item becomes -1 (none); one to a later item
//!   shifts down. A dangling value (naming no item before the edit) or a negative one is kept
//!   as it is, so the edit adds no reference problem; an item added later can come to be named
//!   by a dangling value.
//! - **Data items.** The data items only a removed item named (an image's name and pixels, a
//!   sound's name and data, a layer's tiles, quads or sources) are removed too, and every data
//!   index of the map (info texts and settings included) is renumbered. Items the graph does not
//!   model ([`OtherItem`](super::OtherItem)) are not looked into: a data item only they name
//!   counts as unused.
//! - **Writing.** An item whose fields an edit changes is encoded anew from them (an item too
//!   short for its layout, kept verbatim, is written in full); quads and sources whose envelope
//!   references change are written anew, as are envelope points that change.
//! - **The game layer.** Removing the game layer, or its group, is allowed: the map then has no
//!   game layer, the writer still writes it, and loading it again reports "the map has no game
//!   layer" (DDNet refuses such a map). Physics layers are added only to the game group, one of
//!   each kind, and as large as the game layer, as DDNet requires.
//! - **Problems.** [`Map::problems`] keeps what loading found (its indices are the file's);
//!   write the map and load it again to check the edited map.
//! - **Teeworlds 0.3 maps** are upgraded at load and edited like any map; an edited one writes
//!   the upgraded model in DDNet form (docs/format-notes.md, "Teeworlds 0.3 maps").
//! - An edit that fails changes nothing.

use std::collections::BTreeSet;

use bytes::Bytes;
use twcodec_schema::map::envelope::{
    CurveType, EnvPoint, EnvPointBezier, EnvelopeItem, EnvelopeKind,
};
use twcodec_schema::map::group::{Clip, GroupExItem, GroupItem};
use twcodec_schema::map::image::{ImageFormat, ImageItem};
use twcodec_schema::map::layer::{
    self as item, LayerFlags, LayerHeader, PhysicsData, TilemapFlags, TilemapLayer,
};
use twcodec_schema::map::quad::Quad;
use twcodec_schema::map::sound::{SoundItem, SoundSource};
use twcodec_schema::map::tile::{Speedup, Switch, Tele, Tile, TileKind, Tune};
use twcodec_schema::map::{cstring_data, I32String, Point};

use super::claims::Claims;
use super::layer::{Grid, Layer, LayerContent, QuadsLayer, SoundsLayer, TilesLayer};
use super::{
    Arena, DataItem, DataSlot, Envelope, EnvelopePoints, Group, Image, ItemRef, Map, MapForm,
    MapStamp, Sound, Stored,
};
use crate::error::Error;

/// An envelope to add with [`Map::add_envelope`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEnvelope {
    /// What it animates: sound volume, position or color (its channel count).
    pub kind: EnvelopeKind,
    /// The name, at most 31 bytes.
    pub name: String,
    /// The points, in time order.
    pub points: Vec<EnvPoint>,
    /// Bezier tangents, one set per point; `None` gives zero tangents where the map keeps any.
    pub tangents: Option<Vec<EnvPointBezier>>,
    /// Whether it follows the server's clock (DDNet's "synchronized").
    pub synchronized: bool,
}

impl NewEnvelope {
    /// An envelope of `kind` named `name` without points, synchronized.
    pub fn new(kind: EnvelopeKind, name: impl Into<String>) -> NewEnvelope {
        NewEnvelope {
            kind,
            name: name.into(),
            points: Vec::new(),
            tangents: None,
            synchronized: true,
        }
    }
}

/// A group to add with [`Map::add_group`] or [`Map::insert_group`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGroup {
    /// The name, at most 11 bytes.
    pub name: String,
    /// Offset in world pixels.
    pub offset: Point,
    /// Parallax in percent (100 moves with the game layer).
    pub parallax: Point,
    /// The clipping rectangle; `enabled` 0 (the default) draws everywhere.
    pub clip: Clip,
}

impl NewGroup {
    /// A group named `name` at offset 0 with parallax 100, not clipped.
    pub fn new(name: impl Into<String>) -> NewGroup {
        NewGroup {
            name: name.into(),
            offset: Point::default(),
            parallax: Point { x: 100, y: 100 },
            clip: Clip::default(),
        }
    }
}

/// How the indices of one arena change in an edit.
struct Renumber {
    /// The arena's length before the edit.
    len: usize,
    change: Change,
}

enum Change {
    /// These indices (sorted) are removed; later ones shift down.
    Remove(Vec<usize>),
    /// An item is inserted at this index; it and later ones shift up.
    Insert(usize),
    /// The item at the first index moves to the second; those between shift.
    Move(usize, usize),
}

impl Renumber {
    fn removing(len: usize, removed: impl IntoIterator<Item = usize>) -> Renumber {
        let removed: BTreeSet<usize> = removed.into_iter().collect();
        Renumber {
            len,
            change: Change::Remove(removed.into_iter().collect()),
        }
    }

    fn inserting(len: usize, at: usize) -> Renumber {
        Renumber {
            len,
            change: Change::Insert(at),
        }
    }

    fn moving(len: usize, from: usize, to: usize) -> Renumber {
        Renumber {
            len,
            change: Change::Move(from, to),
        }
    }

    /// The new index of item `index` (below `len`), `None` for a removed one.
    fn index(&self, index: usize) -> Option<usize> {
        match &self.change {
            Change::Remove(removed) => match removed.binary_search(&index) {
                Ok(_) => None,
                Err(before) => Some(index - before),
            },
            Change::Insert(at) if index >= *at => Some(index + 1),
            Change::Insert(_) => Some(index),
            Change::Move(from, to) => Some(match index {
                i if i == *from => *to,
                i if from < to && *from < i && i <= *to => i - 1,
                i if to < from && *to <= i && i < *from => i + 1,
                i => i,
            }),
        }
    }

    /// The new value of a raw reference: an item that exists moves or becomes -1; none and
    /// dangling values stay.
    fn raw(&self, raw: i32) -> i32 {
        match usize::try_from(raw).ok().filter(|&index| index < self.len) {
            Some(index) => self
                .index(index)
                .and_then(|new| i32::try_from(new).ok())
                .unwrap_or(-1),
            None => raw,
        }
    }

    /// Renumbers a raw reference in place; whether it changed.
    fn apply(&self, raw: &mut i32) -> bool {
        let new = self.raw(*raw);
        let changed = new != *raw;
        *raw = new;
        changed
    }
}

/// The physics kinds of layers, for the rules on adding them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Physics {
    Game,
    Other(&'static str),
}

impl Layer {
    /// A tiles layer named `name` (at most 11 bytes) with these tiles, drawn with no image
    /// until [`Map::set_layer_image`] sets one.
    pub fn new_tiles(name: &str, grid: Grid<Tile>) -> Result<Layer, Error> {
        let item = tilemap_item(name, &grid, TilemapFlags::new())?;
        Ok(tile_layer(LayerContent::Tiles(TilesLayer::new(item, grid))))
    }

    /// A quads layer named `name` with these quads. Their envelope references are reset to
    /// none when the layer is added; set them with [`Map::set_quad_position_envelope`] and
    /// [`Map::set_quad_color_envelope`].
    pub fn new_quads(name: &str, quads: Vec<Quad>) -> Result<Layer, Error> {
        let item = item::QuadsLayer {
            version: 2,
            num_quads: count(quads.len(), "quads")?,
            data: -1,
            image: -1,
            name: Some(item_name("the layer name", name)?),
            unknown_tail: Vec::new(),
        };
        let header = header(3);
        Ok(Layer::new(
            0,
            header,
            LayerContent::Quads(QuadsLayer::new(item, quads)),
        ))
    }

    /// A sounds layer (DDNet) named `name` with these sources. Their envelope references are
    /// reset to none when the layer is added.
    pub fn new_sounds(name: &str, sources: Vec<SoundSource>) -> Result<Layer, Error> {
        let item = item::SoundsLayer {
            version: 2,
            num_sources: count(sources.len(), "sources")?,
            data: -1,
            sound: -1,
            name: Some(item_name("the layer name", name)?),
            unknown_tail: Vec::new(),
        };
        Ok(Layer::new(
            0,
            header(10),
            LayerContent::Sounds(SoundsLayer::new(item, sources)),
        ))
    }

    /// The game layer.
    pub fn new_game(grid: Grid<Tile>) -> Result<Layer, Error> {
        let item = tilemap_item("Game", &grid, TilemapFlags::new().with_game(true))?;
        Ok(tile_layer(LayerContent::Game(TilesLayer::new(item, grid))))
    }

    /// DDNet's front layer.
    pub fn new_front(grid: Grid<Tile>) -> Result<Layer, Error> {
        let item = tilemap_item("Front", &grid, TilemapFlags::new().with_front(true))?;
        Ok(tile_layer(LayerContent::Front(TilesLayer::new(item, grid))))
    }

    /// DDNet's tele layer.
    pub fn new_tele(grid: Grid<Tele>) -> Result<Layer, Error> {
        let item = tilemap_item("Tele", &grid, TilemapFlags::new().with_tele(true))?;
        Ok(tile_layer(LayerContent::Tele(TilesLayer::new(item, grid))))
    }

    /// DDNet's speedup layer.
    pub fn new_speedup(grid: Grid<Speedup>) -> Result<Layer, Error> {
        let item = tilemap_item("Speedup", &grid, TilemapFlags::new().with_speedup(true))?;
        Ok(tile_layer(LayerContent::Speedup(TilesLayer::new(
            item, grid,
        ))))
    }

    /// DDNet's switch layer.
    pub fn new_switch(grid: Grid<Switch>) -> Result<Layer, Error> {
        let item = tilemap_item("Switch", &grid, TilemapFlags::new().with_switch(true))?;
        Ok(tile_layer(LayerContent::Switch(TilesLayer::new(
            item, grid,
        ))))
    }

    /// DDNet's tune layer.
    pub fn new_tune(grid: Grid<Tune>) -> Result<Layer, Error> {
        let item = tilemap_item("Tune", &grid, TilemapFlags::new().with_tune(true))?;
        Ok(tile_layer(LayerContent::Tune(TilesLayer::new(item, grid))))
    }

    /// The physics kind, for the rules on adding physics layers.
    fn physics(&self) -> Option<Physics> {
        match self.content() {
            LayerContent::Game(_) => Some(Physics::Game),
            _ if self.is_physics() => Some(Physics::Other(self.kind_name())),
            _ => None,
        }
    }

    /// The width and height of a tile layer of any kind.
    fn size(&self) -> Option<(i32, i32)> {
        self.tilemap().map(|t| (t.width, t.height))
    }

    /// The data indices the layer's item names: its tiles (and DDNet's physics tiles), quads
    /// or sources.
    fn data_fields(&self) -> Vec<i32> {
        match self.content() {
            LayerContent::Quads(q) => vec![q.item().data],
            LayerContent::Sounds(s) => vec![s.item().data],
            _ => match self.tilemap() {
                Some(t) => {
                    let p = &t.physics;
                    let physics = [p.tele, p.speedup, p.front, p.switch, p.tune];
                    std::iter::once(t.data)
                        .chain(physics.into_iter().flatten())
                        .collect()
                }
                None => Vec::new(),
            },
        }
    }
}

/// A layer header of `kind`.
fn header(kind: i32) -> LayerHeader {
    LayerHeader {
        version: 0,
        kind,
        flags: LayerFlags::new(),
    }
}

/// A tile layer with its content.
fn tile_layer(content: LayerContent) -> Layer {
    Layer::new(0, header(2), content)
}

/// A version-3 tilemap item as DDNet's editor writes it, for a grid of `T`.
fn tilemap_item<T: TileKind>(
    name: &str,
    grid: &Grid<T>,
    flags: TilemapFlags,
) -> Result<TilemapLayer, Error> {
    let (width, height) = (grid.width(), grid.height());
    let size = |value: usize, what: &str| {
        i32::try_from(value)
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| Error::invalid_edit(format!("a tile layer {what} of {value} tiles")))
    };
    let (width, height) = (size(width, "width")?, size(height, "height")?);
    let name = item_name("the layer name", name)?;
    Ok(super::layer::ddnet_tilemap(
        width, height, flags, -1, -1, name,
    ))
}

/// DDNet's physics data indices of a tilemap, each none.
pub(crate) const NO_PHYSICS: PhysicsData = PhysicsData {
    tele: Some(-1),
    speedup: Some(-1),
    front: Some(-1),
    switch: Some(-1),
    tune: Some(-1),
};

/// A count as the i32 an item stores.
fn count(len: usize, what: &str) -> Result<i32, Error> {
    i32::try_from(len).map_err(|_| Error::limit(format!("{len} {what} do not fit in an item")))
}

/// A name stored in the item's ints (layers, groups, envelopes): no NUL, and short enough.
fn item_name<const N: usize>(what: &str, name: &str) -> Result<I32String<N>, Error> {
    if name.contains('\0') {
        return Err(Error::invalid_edit(format!("{what} {name:?} holds a NUL")));
    }
    if name.len() > I32String::<N>::CAPACITY {
        return Err(Error::invalid_edit(format!(
            "{what} {name:?} is {} bytes long; the item holds at most {}",
            name.len(),
            I32String::<N>::CAPACITY
        )));
    }
    Ok(I32String::new(name.as_bytes()))
}

/// An error unless `len` bytes are `width` x `height` RGBA pixels, at least one.
fn check_rgba(width: u32, height: u32, len: usize) -> Result<(), Error> {
    let need = (width as usize)
        .checked_mul(height as usize)
        .and_then(|n| n.checked_mul(4));
    if width == 0 || height == 0 || need != Some(len) {
        return Err(Error::invalid_edit(format!(
            "{width}x{height} RGBA pixels are {} bytes, not {len}",
            need.map_or_else(|| "too many".to_string(), |n| n.to_string()),
        )));
    }
    Ok(())
}

/// A free item id: one past the largest in use, else the smallest free one.
fn free_id(used: impl Iterator<Item = u16>, what: &str) -> Result<u16, Error> {
    let mut ids: Vec<u16> = used.collect();
    match ids.iter().max() {
        None => return Ok(0),
        Some(&max) if max < u16::MAX => return Ok(max + 1),
        Some(_) => {}
    }
    ids.sort_unstable();
    ids.dedup();
    (0..=u16::MAX)
        .zip(ids.iter().copied().chain(std::iter::repeat(u16::MAX)))
        .find(|(want, have)| want != have)
        .map(|(id, _)| id)
        .ok_or_else(|| Error::limit(format!("every id of {what} items is taken")))
}

/// Drops an item's verbatim ints when an edit changed its fields, so that it is encoded anew.
fn touched(changed: bool, verbatim: &mut Option<Vec<i32>>) {
    if changed {
        *verbatim = None;
    }
}

/// Adds 1 to a raw index field; whether it changed.
fn bump(raw: &mut i32, by: i32) -> bool {
    let new = raw.saturating_add(by);
    let changed = new != *raw;
    *raw = new;
    changed
}

/// DDNet's parallax zoom of a group (0..=100): the larger parallax, within 0..=100. The
/// default of its group extension item when written, and what the client uses whatever the
/// item says (docs/format-notes.md, "Drawing a map").
pub fn parallax_zoom(parallax: Point) -> i32 {
    parallax.x.max(parallax.y).clamp(0, 100)
}

impl Map {
    /// Adds an image that clients load by name from their `mapres` folder (`grass_main` for
    /// `mapres/grass_main.png`).
    ///
    /// ```
    /// # let mut map = twcodec_testkit::sample::map()?;
    /// let grass = map.add_external_image("grass_doodads")?;
    /// let (layer, _) = map.game_layer().expect("a game layer");
    /// let group = map.group_of(layer).expect("the game group");
    /// let grid = twcodec::map::Grid::filled(4, 4, Default::default()).expect("4x4 tiles");
    /// let tiles = map.add_layer(group, twcodec::map::Layer::new_tiles("Doodads", grid)?)?;
    /// map.set_layer_image(tiles, Some(grass))?;
    /// let reloaded = twcodec::Map::parse(&map.to_bytes()?)?;
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn add_external_image(&mut self, name: &str) -> Result<ItemRef<Image>, Error> {
        self.add_image(name, 1024, 1024, None)
    }

    /// Adds an image embedded in the map: `width` x `height` RGBA pixels, row by row
    /// (`width * height * 4` bytes).
    pub fn add_embedded_image(
        &mut self,
        name: &str,
        width: u32,
        height: u32,
        rgba: impl Into<Bytes>,
    ) -> Result<ItemRef<Image>, Error> {
        let rgba = rgba.into();
        check_rgba(width, height, rgba.len())?;
        self.add_image(name, width, height, Some(rgba))
    }

    fn add_image(
        &mut self,
        name: &str,
        width: u32,
        height: u32,
        rgba: Option<Bytes>,
    ) -> Result<ItemRef<Image>, Error> {
        let size = |value: u32| {
            i32::try_from(value).map_err(|_| Error::invalid_edit(format!("an image of {value}")))
        };
        let (width, height) = (size(width)?, size(height)?);
        let name = self.text_data("the image name", name)?;
        let id = free_id(self.images.iter().map(|i| i.id), "image")?;
        self.data_room(2)?;
        let (version, format) = match self.form {
            MapForm::Teeworlds07 => (2, Some(ImageFormat::Rgba)),
            _ => (1, None),
        };
        let external = rgba.is_none();
        let name = self.push_data(name);
        let data = rgba.map_or(-1, |rgba| self.push_data(rgba));
        self.images.push(Stored::new(
            id,
            ImageItem {
                version,
                width,
                height,
                external: i32::from(external),
                name,
                data,
                format,
                unknown_tail: Vec::new(),
            },
            None,
        ));
        Ok(self.mint(self.images.len() - 1))
    }

    /// Removes an image: layers drawn with it draw none, later images' references shift down,
    /// and its name and pixel data items go when nothing else names them.
    pub fn remove_image(&mut self, image: ItemRef<Image>) -> Result<(), Error> {
        let index = self.checked(image)?;
        let renumber = Renumber::removing(self.images.len(), [index]);
        let removed = self.images.remove(index);
        // Only the layers drawn with a moved image are changed.
        for layer in &mut self.layers {
            let image = match layer.content() {
                LayerContent::Quads(q) => Some(q.item().image),
                _ => layer.tilemap().map(|t| t.image),
            };
            if image.is_none_or(|raw| renumber.raw(raw) == raw) {
                continue;
            }
            match layer.content_mut() {
                LayerContent::Quads(q) => renumber.apply(&mut q.item_mut().image),
                content => content
                    .tilemap_mut()
                    .is_some_and(|tilemap| renumber.apply(&mut tilemap.image)),
            };
            layer.verbatim = None;
        }
        self.remove_unused_data([removed.item.name, removed.item.data]);
        self.stamp.renew::<Image>();
        Ok(())
    }

    /// Replaces the pixels of an image with `width` x `height` RGBA pixels, row by row
    /// (`width * height * 4` bytes). An external image becomes embedded. The image keeps its
    /// name, id and place among the images, so every layer drawn with it draws the new
    /// pixels; the size may change (the layers then draw from the new picture as it is).
    ///
    /// Whether anything changed: `false` when the image is embedded with these very pixels
    /// already (RGB pixels count as the same RGBA pixels with an opaque alpha), and then the
    /// map is left as it was, to be written byte for byte as read. Otherwise the image's
    /// data item is replaced in place when only the image names it, else a new one is added;
    /// `twcodec_tools::assets::replace_image` does the same by name, from a
    /// PNG, and says which tile layers a change of size or shape concerns.
    ///
    /// ```
    /// # let mut map = twcodec_testkit::sample::map()?;
    /// let external = map.refs::<twcodec::map::Image>().next().expect("an image");
    /// let red = [255u8, 0, 0, 255].repeat(16 * 16);
    /// assert!(map.replace_image(external, 16, 16, red.clone())?);
    /// assert!(!map.replace_image(external, 16, 16, red)?); // the same pixels: no change
    /// let reloaded = twcodec::Map::parse(&map.to_bytes()?)?;
    /// let image = &reloaded.images()[0];
    /// assert!(!image.is_external());
    /// assert_eq!(image.rgba8(&reloaded)?.bytes[..4], [255, 0, 0, 255]);
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn replace_image(
        &mut self,
        image: ItemRef<Image>,
        width: u32,
        height: u32,
        rgba: impl Into<Bytes>,
    ) -> Result<bool, Error> {
        let index = self.checked(image)?;
        let rgba = rgba.into();
        check_rgba(width, height, rgba.len())?;
        let size = |value: u32| {
            i32::try_from(value).map_err(|_| Error::invalid_edit(format!("an image of {value}")))
        };
        let (w, h) = (size(width)?, size(height)?);
        let current = &self.images[index];
        if !current.is_external() {
            let same = current.rgba8(self).is_ok_and(|pixels| {
                (pixels.width, pixels.height) == (width as usize, height as usize)
                    && *pixels.bytes == *rgba
            });
            if same {
                return Ok(false);
            }
        }
        let data = self.replaced_data(current.item.data, rgba)?;
        let stored = &mut self.images[index];
        let item = &mut stored.item;
        item.width = w;
        item.height = h;
        item.external = 0;
        item.data = data;
        if item.format.is_some() {
            item.format = Some(ImageFormat::Rgba);
        }
        stored.verbatim = None;
        Ok(true)
    }

    /// Replaces a sound's data with an Opus file's bytes; an external sound becomes
    /// embedded. The sound keeps its name, id and place, so every sounds layer playing it
    /// plays the new one. Whether anything changed: `false` when the sound is embedded with
    /// these bytes already (the map is then left as it was). The bytes are not checked here;
    /// `twcodec_tools::assets::check_opus` checks that they are Ogg Opus.
    pub fn replace_sound(
        &mut self,
        sound: ItemRef<Sound>,
        opus: impl Into<Bytes>,
    ) -> Result<bool, Error> {
        let index = self.checked(sound)?;
        let opus = opus.into();
        let data_size = count(opus.len(), "bytes")?;
        let current = &self.sounds[index];
        if current.item.external == 0 && current.data(self).is_ok_and(|data| *data == *opus) {
            return Ok(false);
        }
        let data = self.replaced_data(current.item.data, opus)?;
        let stored = &mut self.sounds[index];
        stored.item.external = 0;
        stored.item.data = data;
        stored.item.data_size = data_size;
        stored.verbatim = None;
        Ok(true)
    }

    /// The data index that holds `bytes` in place of data item `raw`: the same index with
    /// the bytes set when `raw` names a data item nothing else names, else a new data item.
    fn replaced_data(&mut self, raw: i32, bytes: Bytes) -> Result<i32, Error> {
        let own = usize::try_from(raw)
            .ok()
            .filter(|&index| self.data_uses().get(index) == Some(&1));
        match own {
            Some(index) => {
                self.data[index] = DataSlot::Owned(bytes);
                Ok(raw)
            }
            None => {
                self.data_room(1)?;
                Ok(self.push_data(bytes))
            }
        }
    }

    /// Adds a sound (DDNet): `opus` is the Opus file's bytes.
    pub fn add_sound(
        &mut self,
        name: &str,
        opus: impl Into<Bytes>,
    ) -> Result<ItemRef<Sound>, Error> {
        let opus = opus.into();
        let data_size = count(opus.len(), "bytes")?;
        let name = self.text_data("the sound name", name)?;
        let id = free_id(self.sounds.iter().map(|s| s.id), "sound")?;
        self.data_room(2)?;
        let name = self.push_data(name);
        let data = self.push_data(opus);
        self.sounds.push(Stored::new(
            id,
            SoundItem {
                version: 1,
                external: 0,
                name,
                data,
                data_size,
                unknown_tail: Vec::new(),
            },
            None,
        ));
        Ok(self.mint(self.sounds.len() - 1))
    }

    /// Removes a sound: sounds layers playing it play none, later sounds' references shift
    /// down, and its name and data items go when nothing else names them.
    pub fn remove_sound(&mut self, sound: ItemRef<Sound>) -> Result<(), Error> {
        let index = self.checked(sound)?;
        let renumber = Renumber::removing(self.sounds.len(), [index]);
        let removed = self.sounds.remove(index);
        for layer in &mut self.layers {
            let LayerContent::Sounds(s) = layer.content() else {
                continue;
            };
            if renumber.raw(s.item().sound) == s.item().sound {
                continue;
            }
            if let LayerContent::Sounds(s) = layer.content_mut() {
                renumber.apply(&mut s.item_mut().sound);
            }
            layer.verbatim = None;
        }
        self.remove_unused_data([removed.item.name, removed.item.data]);
        self.stamp.renew::<Sound>();
        Ok(())
    }

    /// Adds an envelope; its points go after every other envelope's. In a Teeworlds 0.7 map, an
    /// envelope with bezier curves makes the points 22 ints each (tangents included).
    ///
    /// ```
    /// use twcodec::map::NewEnvelope;
    /// use twcodec::schema::map::envelope::{EnvPoint, EnvelopeKind};
    /// # let mut map = twcodec_testkit::sample::map()?;
    /// let fade = map.add_envelope(NewEnvelope {
    ///     points: vec![
    ///         EnvPoint { time: 0, curve_type: 1, values: [1024, 1024, 1024, 1024] },
    ///         EnvPoint { time: 1000, curve_type: 1, values: [1024, 1024, 1024, 0] },
    ///     ],
    ///     ..NewEnvelope::new(EnvelopeKind::Color, "fade")
    /// })?;
    /// assert_eq!(map.envelope(fade).map(|e| e.points(&map).len()), Some(2));
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn add_envelope(&mut self, envelope: NewEnvelope) -> Result<ItemRef<Envelope>, Error> {
        let channels = match envelope.kind {
            EnvelopeKind::Sound => 1,
            EnvelopeKind::Position => 3,
            EnvelopeKind::Color => 4,
            EnvelopeKind::Other(channels) => {
                return Err(Error::invalid_edit(format!(
                    "an envelope of {channels} channels (1, 3 or 4 are known)"
                )))
            }
        };
        let name = item_name("the envelope name", &envelope.name)?;
        if let Some(tangents) = &envelope.tangents {
            if tangents.len() != envelope.points.len() {
                return Err(Error::invalid_edit(format!(
                    "{} tangent sets for {} points",
                    tangents.len(),
                    envelope.points.len()
                )));
            }
        }
        let id = free_id(self.envelopes.iter().map(|e| e.id), "envelope")?;
        let start = self.points.as_ref().map_or(0, |p| p.points.len());
        let start_point = count(start, "points")?;
        let num_points = count(envelope.points.len(), "points")?;
        count(start.saturating_add(envelope.points.len()), "points")?;
        let bezier_curves = (envelope.points.iter()).any(|p| p.curve() == CurveType::Bezier);
        let wide = self.points.as_ref().is_some_and(|p| p.wide);
        // 0.7 keeps tangents only in 22-int points, which any envelope of version 3 asks for.
        let version = match (wide, self.form) {
            (true, _) => EnvelopeItem::VERSION_BEZIER,
            (false, MapForm::Teeworlds07) if bezier_curves => EnvelopeItem::VERSION_BEZIER,
            _ => 2,
        };
        let points = self.points.get_or_insert_with(|| EnvelopePoints {
            wide,
            ..EnvelopePoints::default()
        });
        if envelope.tangents.is_some() || bezier_curves || points.bezier.is_some() {
            let zero = EnvPointBezier::default();
            let bezier = points.bezier.get_or_insert_with(Vec::new);
            bezier.resize(start, zero);
            match &envelope.tangents {
                Some(tangents) => bezier.extend_from_slice(tangents),
                None => bezier.resize(start + envelope.points.len(), zero),
            }
        }
        points.points.extend_from_slice(&envelope.points);
        points.modified = true;
        self.envelopes.push(Stored::new(
            id,
            EnvelopeItem {
                version,
                channels,
                start_point,
                num_points,
                name: Some(name),
                synchronized: Some(i32::from(envelope.synchronized)),
                unknown_tail: Vec::new(),
            },
            None,
        ));
        self.settle_points();
        Ok(self.mint(self.envelopes.len() - 1))
    }

    /// Removes an envelope: every reference to it (a tile layer's color envelope, each quad's
    /// and each source's, however many share it) becomes none, later envelopes' references
    /// shift down, and its points leave the envelope points with their tangents (points another
    /// envelope also covers stay).
    pub fn remove_envelope(&mut self, envelope: ItemRef<Envelope>) -> Result<(), Error> {
        let index = self.checked(envelope)?;
        let renumber = Renumber::removing(self.envelopes.len(), [index]);
        let removed = self.envelopes.remove(index);
        for layer in &mut self.layers {
            if renumber_envelopes(layer, &renumber) {
                layer.verbatim = None;
            }
        }
        self.remove_points(&removed);
        self.settle_points();
        self.stamp.renew::<Envelope>();
        Ok(())
    }

    /// Takes the points only `removed` covered out of the envelope points, and moves the later
    /// envelopes' ranges to match.
    fn remove_points(&mut self, removed: &Envelope) {
        let Some(points) = &mut self.points else {
            return;
        };
        let len = points.points.len();
        let Some(range) = removed.range(len) else {
            return;
        };
        let mut kept = vec![false; range.len()];
        for other in &self.envelopes {
            if let Some(other) = other.range(len) {
                let (start, end) = (other.start.max(range.start), other.end.min(range.end));
                for keep in kept
                    .iter_mut()
                    .take(end.saturating_sub(range.start))
                    .skip(start.saturating_sub(range.start))
                {
                    *keep = true;
                }
            }
        }
        let gone: Vec<usize> = (range.clone())
            .zip(&kept)
            .filter(|(_, &kept)| !kept)
            .map(|(index, _)| index)
            .collect();
        if gone.is_empty() {
            return;
        }
        let mut position = 0;
        points.points.retain(|_| {
            position += 1;
            gone.binary_search(&(position - 1)).is_err()
        });
        if let Some(bezier) = &mut points.bezier {
            let mut position = 0;
            bezier.retain(|_| {
                position += 1;
                gone.binary_search(&(position - 1)).is_err()
            });
        }
        points.modified = true;
        for envelope in &mut self.envelopes {
            let Ok(start) = usize::try_from(envelope.item.start_point) else {
                continue;
            };
            let before = gone.partition_point(|&g| g < start) as i32;
            let changed = bump(&mut envelope.item.start_point, -before);
            touched(changed, &mut envelope.verbatim);
        }
    }

    /// Keeps the envelope points' width in step with the envelopes: 22 ints each when any
    /// envelope has the bezier version, as readers decide.
    fn settle_points(&mut self) {
        let wide = self.has_bezier_envelopes();
        let Some(points) = &mut self.points else {
            return;
        };
        if points.wide == wide {
            return;
        }
        points.wide = wide;
        points.modified = true;
        if wide {
            let len = points.points.len();
            (points.bezier.get_or_insert_with(Vec::new)).resize(len, EnvPointBezier::default());
            points.bezier_item = None;
        }
    }

    /// Adds a group after the others (drawn last, in front of them).
    ///
    /// ```
    /// use twcodec::map::{Layer, NewGroup};
    /// # let mut map = twcodec_testkit::sample::map()?;
    /// let front = map.add_group(NewGroup::new("Foreground"))?;
    /// let quads = map.add_layer(front, Layer::new_quads("Clouds", Vec::new())?)?;
    /// assert_eq!(map.group_of(quads), Some(front));
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn add_group(&mut self, group: NewGroup) -> Result<ItemRef<Group>, Error> {
        let at = self.groups.len();
        self.insert_group(at, group)
    }

    /// Inserts a group at position `at` among the groups (0 is drawn first, behind the
    /// others); groups from `at` on shift up, in auto-mapper configurations too.
    pub fn insert_group(&mut self, at: usize, group: NewGroup) -> Result<ItemRef<Group>, Error> {
        let len = self.groups.len();
        if at > len {
            return Err(Error::invalid_edit(format!(
                "group position {at} is past the {len} groups"
            )));
        }
        let name = item_name("the group name", &group.name)?;
        let id = free_id(self.groups.iter().map(|g| g.id), "group")?;
        let ex_id = free_id(self.group_ex.iter().map(|(id, _)| *id), "group extension")?;
        // An empty group starts where the group before it ends, so layers added to it keep
        // the file's order.
        let start = match at.checked_sub(1).and_then(|before| self.groups.get(before)) {
            Some(before) => before.layer_range(self.layers.len()).end,
            None => 0,
        };
        let item = GroupItem {
            version: 3,
            offset: group.offset,
            parallax: group.parallax,
            start_layer: count(start, "layers")?,
            num_layers: 0,
            clip: Some(group.clip),
            name: Some(name),
            unknown_tail: Vec::new(),
        };
        // DDNet reads its group extensions by position, only when there is one per group.
        if self.group_ex.len() == len {
            let ex = GroupExItem {
                version: 1,
                parallax_zoom: parallax_zoom(group.parallax),
                unknown_tail: Vec::new(),
            };
            self.group_ex.insert(at, (ex_id, ex));
        }
        self.groups.insert(at, Stored::new(id, item, None));
        let renumber = Renumber::inserting(len, at);
        for automapper in &mut self.automappers {
            let changed = renumber.apply(&mut automapper.item.group);
            touched(changed, &mut automapper.verbatim);
        }
        if at < len {
            self.stamp.renew::<Group>();
        }
        self.rebuild_tables();
        Ok(self.mint(at))
    }

    /// Removes a group with its layers (each as [`Map::remove_layer`] removes it); later
    /// groups shift down, and the auto-mapper configurations of the group go.
    pub fn remove_group(&mut self, group: ItemRef<Group>) -> Result<(), Error> {
        let index = self.checked(group)?;
        let range = self.groups[index].layer_range(self.layers.len());
        let mut data = Vec::new();
        for layer in range.rev() {
            let (layer, _) = self.take_layer(layer);
            data.extend(layer.data_fields());
        }
        let len = self.groups.len();
        self.groups.remove(index);
        if self.group_ex.len() == len {
            self.group_ex.remove(index);
        }
        let renumber = Renumber::removing(len, [index]);
        // The group's own configurations go; the others follow their groups.
        let group = count(index, "groups")?;
        self.automappers
            .retain(|automapper| automapper.item.group != group);
        for automapper in &mut self.automappers {
            let changed = renumber.apply(&mut automapper.item.group);
            touched(changed, &mut automapper.verbatim);
        }
        self.remove_unused_data(data);
        self.stamp.renew::<Group>();
        self.stamp.renew::<Layer>();
        self.rebuild_tables();
        Ok(())
    }

    /// Adds a layer at the end of a group (drawn after the group's other layers).
    ///
    /// The layer's references (image, envelopes, sound) start as none, and its content is
    /// written anew, whatever map it came from: set references with the typed setters
    /// ([`Map::set_layer_image`], ...). Physics layers (game, front, tele, speedup, switch,
    /// tune) go in the game group, one of each kind, each as large as the game layer; the game
    /// layer goes first.
    pub fn add_layer(
        &mut self,
        group: ItemRef<Group>,
        layer: Layer,
    ) -> Result<ItemRef<Layer>, Error> {
        let index = self.checked(group)?;
        let position = self.groups[index].item.num_layers.max(0) as usize;
        self.insert_layer(group, position, layer)
    }

    /// Inserts a layer at `position` among a group's layers (0 is drawn first); see
    /// [`Map::add_layer`].
    pub fn insert_layer(
        &mut self,
        group: ItemRef<Group>,
        position: usize,
        mut layer: Layer,
    ) -> Result<ItemRef<Layer>, Error> {
        let group = self.checked(group)?;
        let at = self.layer_slot(group, position)?;
        if self.layers.len() >= self.limits().max_layers() {
            return Err(Error::limit(format!(
                "the map has {} layers, the limit (Limits::max_layers)",
                self.layers.len()
            )));
        }
        self.check_new_layer(group, &layer)?;
        let id = free_id(self.layers.iter().map(|l| l.id), "layer")?;
        // Physics layers other than game keep an empty tile array in `data`, as DDNet's
        // editor writes them.
        let empty_tiles = match (layer.physics(), layer.size()) {
            (Some(Physics::Other(_)), Some((width, height))) => {
                self.data_room(1)?;
                let bytes = (width.max(0) as usize)
                    .saturating_mul(height.max(0) as usize)
                    .saturating_mul(4);
                Some(vec![0u8; bytes])
            }
            _ => None,
        };
        prepare_layer(&mut layer, self.form)?;
        layer.id = id;
        if let Some(zeros) = empty_tiles {
            let data = self.push_data(zeros);
            if let Some(tilemap) = layer.content_mut().tilemap_mut() {
                tilemap.data = data;
            }
        }
        self.place_layer(group, at, layer);
        Ok(self.mint(at))
    }

    /// Moves a layer to `position` among the layers of `group` (counted without the layer
    /// itself), taking its auto-mapper configuration along. Physics layers stay in the game
    /// group.
    pub fn move_layer(
        &mut self,
        layer: ItemRef<Layer>,
        group: ItemRef<Group>,
        position: usize,
    ) -> Result<ItemRef<Layer>, Error> {
        let from = self.checked(layer)?;
        let to = self.checked(group)?;
        let current = self.layer_groups.get(from).copied().flatten();
        if self.layers[from].is_physics() && current != Some(to) {
            return Err(Error::invalid_edit(format!(
                "layer #{from} is a {} layer; physics layers stay in the game group",
                self.layers[from].kind_name()
            )));
        }
        // Checked on a copy of the groups as they are once the layer is out.
        let mut trial = self.clone_layout();
        trial.take_layer(from);
        let at = trial.layer_slot(to, position)?;
        let (moved, mut automappers) = self.take_layer(from);
        self.place_layer(to, at, moved);
        for automapper in &mut automappers {
            automapper.item.group = to as i32;
            automapper.item.layer = position as i32;
            automapper.verbatim = None;
        }
        self.automappers.extend(automappers);
        self.stamp.renew::<Layer>();
        self.rebuild_tables();
        Ok(self.mint(at))
    }

    /// Removes a layer: the groups' ranges close up, its auto-mapper configuration goes, and
    /// its data items go when nothing else names them.
    pub fn remove_layer(&mut self, layer: ItemRef<Layer>) -> Result<(), Error> {
        let index = self.checked(layer)?;
        let (layer, _) = self.take_layer(index);
        self.remove_unused_data(layer.data_fields());
        self.stamp.renew::<Layer>();
        self.rebuild_tables();
        Ok(())
    }

    /// Moves an image to position `to` among the images (counted without it): every layer
    /// drawn with an image between the two places is drawn with the same image at its new
    /// index.
    pub fn move_image(
        &mut self,
        image: ItemRef<Image>,
        to: usize,
    ) -> Result<ItemRef<Image>, Error> {
        let from = self.checked(image)?;
        let renumber = self.moved_in_arena::<Image>(from, to)?;
        for layer in &mut self.layers {
            let image = match layer.content() {
                LayerContent::Quads(q) => Some(q.item().image),
                _ => layer.tilemap().map(|t| t.image),
            };
            if image.is_none_or(|raw| renumber.raw(raw) == raw) {
                continue;
            }
            match layer.content_mut() {
                LayerContent::Quads(q) => renumber.apply(&mut q.item_mut().image),
                content => content
                    .tilemap_mut()
                    .is_some_and(|tilemap| renumber.apply(&mut tilemap.image)),
            };
            layer.verbatim = None;
        }
        Ok(self.mint(to))
    }

    /// Moves an envelope to position `to` among the envelopes (counted without it); every
    /// reference follows its envelope (tile layers' color envelopes, quads', sources'). The
    /// points stay where they are: each envelope keeps its range.
    pub fn move_envelope(
        &mut self,
        envelope: ItemRef<Envelope>,
        to: usize,
    ) -> Result<ItemRef<Envelope>, Error> {
        let from = self.checked(envelope)?;
        let renumber = self.moved_in_arena::<Envelope>(from, to)?;
        for layer in &mut self.layers {
            if renumber_envelopes(layer, &renumber) {
                layer.verbatim = None;
            }
        }
        Ok(self.mint(to))
    }

    /// Moves a sound to position `to` among the sounds (counted without it); sounds layers
    /// keep playing the same sound.
    pub fn move_sound(
        &mut self,
        sound: ItemRef<Sound>,
        to: usize,
    ) -> Result<ItemRef<Sound>, Error> {
        let from = self.checked(sound)?;
        let renumber = self.moved_in_arena::<Sound>(from, to)?;
        for layer in &mut self.layers {
            let LayerContent::Sounds(s) = layer.content() else {
                continue;
            };
            if renumber.raw(s.item().sound) == s.item().sound {
                continue;
            }
            if let LayerContent::Sounds(s) = layer.content_mut() {
                renumber.apply(&mut s.item_mut().sound);
            }
            layer.verbatim = None;
        }
        Ok(self.mint(to))
    }

    /// Moves item `from` of an arena to `to` (counted without it), renewing the arena's
    /// references when anything moved; the renumbering for the references into it.
    fn moved_in_arena<T: Arena>(&mut self, from: usize, to: usize) -> Result<Renumber, Error> {
        let arena = T::arena_mut(self);
        let len = arena.len();
        if to >= len {
            return Err(Error::invalid_edit(format!(
                "{} position {to} is past the {len} {}s",
                T::KIND,
                T::KIND
            )));
        }
        let item = arena.remove(from);
        arena.insert(to, item);
        if from != to {
            self.stamp.renew::<T>();
        }
        Ok(Renumber::moving(len, from, to))
    }

    /// Moves a group to position `to` among the groups (counted without it; 0 is drawn first).
    /// When the groups hold their layers one after another, as every editor writes them, its
    /// layers move with it so that they stay in group order; auto-mapper configurations follow
    /// their groups, and DDNet's group extension items (one per group) stay in step.
    pub fn move_group(
        &mut self,
        group: ItemRef<Group>,
        to: usize,
    ) -> Result<ItemRef<Group>, Error> {
        let from = self.checked(group)?;
        let len = self.groups.len();
        if to >= len {
            return Err(Error::invalid_edit(format!(
                "group position {to} is past the {len} groups"
            )));
        }
        if from == to {
            return Ok(group);
        }
        let mut order: Vec<usize> = (0..len).collect();
        let moved = order.remove(from);
        order.insert(to, moved);
        if self.groups_in_order() {
            // Every start fits: checked before anything changes.
            count(self.layers.len(), "layers")?;
            let ranges: Vec<std::ops::Range<usize>> = (self.groups.iter())
                .map(|g| g.layer_range(self.layers.len()))
                .collect();
            let mut taken: Vec<Option<Layer>> = self.layers.drain(..).map(Some).collect();
            let mut start = 0usize;
            for &g in &order {
                for index in ranges[g].clone() {
                    if let Some(layer) = taken[index].take() {
                        self.layers.push(layer);
                    }
                }
                let stored = &mut self.groups[g];
                let start_layer = start as i32;
                let changed = stored.item.start_layer != start_layer;
                stored.item.start_layer = start_layer;
                touched(changed, &mut stored.verbatim);
                start += ranges[g].len();
            }
            self.stamp.renew::<Layer>();
        }
        let mut groups: Vec<Option<Group>> = self.groups.drain(..).map(Some).collect();
        self.groups = order.iter().filter_map(|&g| groups[g].take()).collect();
        if self.group_ex.len() == len {
            let ex = self.group_ex.remove(from);
            self.group_ex.insert(to, ex);
        }
        let renumber = Renumber::moving(len, from, to);
        for automapper in &mut self.automappers {
            let changed = renumber.apply(&mut automapper.item.group);
            touched(changed, &mut automapper.verbatim);
        }
        self.stamp.renew::<Group>();
        self.rebuild_tables();
        Ok(self.mint(to))
    }

    /// Whether the groups' layer ranges run one after another over all the layers.
    fn groups_in_order(&self) -> bool {
        let mut next = 0i64;
        for group in &self.groups {
            let (start, num) = (
                i64::from(group.item.start_layer),
                i64::from(group.item.num_layers),
            );
            if start != next || num < 0 {
                return false;
            }
            next += num;
        }
        next == self.layers.len() as i64
    }

    /// Sets the image a tiles or quads layer is drawn with (`None`: no image); physics layers
    /// have none.
    pub fn set_layer_image(
        &mut self,
        layer: ItemRef<Layer>,
        image: Option<ItemRef<Image>>,
    ) -> Result<(), Error> {
        let raw = self.raw_of(image)?;
        let index = self.checked(layer)?;
        let target = &mut self.layers[index];
        let field = match target.content_mut() {
            LayerContent::Quads(q) => &mut q.item_mut().image,
            LayerContent::Tiles(t) => &mut t.item_mut().image,
            _ => return Err(wrong_kind(index, target, "tiles or quads")),
        };
        *field = raw;
        target.verbatim = None;
        Ok(())
    }

    /// Sets the color envelope of a tiles layer (`None`: no envelope); it must animate color.
    pub fn set_layer_color_envelope(
        &mut self,
        layer: ItemRef<Layer>,
        envelope: Option<ItemRef<Envelope>>,
    ) -> Result<(), Error> {
        let raw = self.envelope_of_kind(envelope, EnvelopeKind::Color)?;
        let index = self.checked(layer)?;
        let target = &mut self.layers[index];
        let LayerContent::Tiles(tiles) = target.content_mut() else {
            return Err(wrong_kind(index, target, "tiles"));
        };
        tiles.item_mut().color_envelope = raw;
        target.verbatim = None;
        Ok(())
    }

    /// Sets the sound a sounds layer plays (`None`: no sound).
    pub fn set_layer_sound(
        &mut self,
        layer: ItemRef<Layer>,
        sound: Option<ItemRef<Sound>>,
    ) -> Result<(), Error> {
        let raw = self.raw_of(sound)?;
        let index = self.checked(layer)?;
        let target = &mut self.layers[index];
        let LayerContent::Sounds(sounds) = target.content_mut() else {
            return Err(wrong_kind(index, target, "sounds"));
        };
        sounds.item_mut().sound = raw;
        target.verbatim = None;
        Ok(())
    }

    /// Sets the position envelope of quad `quad` of a quads layer; it must animate position.
    pub fn set_quad_position_envelope(
        &mut self,
        layer: ItemRef<Layer>,
        quad: usize,
        envelope: Option<ItemRef<Envelope>>,
    ) -> Result<(), Error> {
        let raw = self.envelope_of_kind(envelope, EnvelopeKind::Position)?;
        self.edit_quad(layer, quad, |q| q.position_envelope = raw)
    }

    /// Sets the color envelope of quad `quad` of a quads layer; it must animate color.
    pub fn set_quad_color_envelope(
        &mut self,
        layer: ItemRef<Layer>,
        quad: usize,
        envelope: Option<ItemRef<Envelope>>,
    ) -> Result<(), Error> {
        let raw = self.envelope_of_kind(envelope, EnvelopeKind::Color)?;
        self.edit_quad(layer, quad, |q| q.color_envelope = raw)
    }

    /// Sets the position envelope of source `source` of a sounds layer; it must animate
    /// position.
    pub fn set_source_position_envelope(
        &mut self,
        layer: ItemRef<Layer>,
        source: usize,
        envelope: Option<ItemRef<Envelope>>,
    ) -> Result<(), Error> {
        let raw = self.envelope_of_kind(envelope, EnvelopeKind::Position)?;
        self.edit_source(layer, source, |s| s.position_envelope = raw)
    }

    /// Sets the sound (volume) envelope of source `source` of a sounds layer; it must animate
    /// sound.
    pub fn set_source_sound_envelope(
        &mut self,
        layer: ItemRef<Layer>,
        source: usize,
        envelope: Option<ItemRef<Envelope>>,
    ) -> Result<(), Error> {
        let raw = self.envelope_of_kind(envelope, EnvelopeKind::Sound)?;
        self.edit_source(layer, source, |s| s.sound_envelope = raw)
    }

    fn edit_quad(
        &mut self,
        layer: ItemRef<Layer>,
        quad: usize,
        edit: impl FnOnce(&mut Quad),
    ) -> Result<(), Error> {
        let index = self.checked(layer)?;
        let target = &mut self.layers[index];
        let LayerContent::Quads(quads) = target.content_mut() else {
            return Err(wrong_kind(index, target, "quads"));
        };
        let len = quads.quads().map(<[Quad]>::len);
        let quad = match (len, quads.quads_mut()) {
            (Some(len), Some(list)) if quad < len => &mut list[quad],
            (len, _) => return Err(no_such(index, "quad", quad, len)),
        };
        edit(quad);
        target.verbatim = None;
        Ok(())
    }

    fn edit_source(
        &mut self,
        layer: ItemRef<Layer>,
        source: usize,
        edit: impl FnOnce(&mut SoundSource),
    ) -> Result<(), Error> {
        let index = self.checked(layer)?;
        let target = &mut self.layers[index];
        let LayerContent::Sounds(sounds) = target.content_mut() else {
            return Err(wrong_kind(index, target, "sounds"));
        };
        let len = sounds.sources().map(<[SoundSource]>::len);
        let source = match (len, sounds.sources_mut()) {
            (Some(len), Some(list)) if source < len => &mut list[source],
            (len, _) => return Err(no_such(index, "source", source, len)),
        };
        edit(source);
        target.verbatim = None;
        Ok(())
    }

    /// The index a reference names, or the error for a reference of another map.
    fn checked<T: Arena>(&self, r: ItemRef<T>) -> Result<usize, Error> {
        self.index_of(r)
            .filter(|&index| index < T::arena(self).len())
            .ok_or_else(|| Error::stale_ref(T::KIND, r.index()))
    }

    /// The raw value of an optional reference: -1 for none.
    fn raw_of<T: Arena>(&self, r: Option<ItemRef<T>>) -> Result<i32, Error> {
        match r {
            None => Ok(-1),
            Some(r) => count(self.checked(r)?, T::KIND),
        }
    }

    /// The raw value of an envelope reference that must animate `kind`.
    fn envelope_of_kind(
        &self,
        envelope: Option<ItemRef<Envelope>>,
        kind: EnvelopeKind,
    ) -> Result<i32, Error> {
        let raw = self.raw_of(envelope)?;
        if let Some(found) = envelope.and_then(|e| self.get(e)) {
            if found.item.kind() != kind {
                return Err(Error::invalid_edit(format!(
                    "envelope #{raw} animates {:?}, not {kind:?}",
                    found.item.kind()
                )));
            }
        }
        Ok(raw)
    }

    /// A text data item: the text and its NUL.
    fn text_data(&self, what: &str, text: &str) -> Result<Vec<u8>, Error> {
        if text.contains('\0') {
            return Err(Error::invalid_edit(format!("{what} {text:?} holds a NUL")));
        }
        self.limits().check_string_bytes(what, text.len() + 1)?;
        Ok(cstring_data(text.as_bytes()))
    }

    /// An error unless `count` more data items keep every data index an i32.
    fn data_room(&self, count: usize) -> Result<(), Error> {
        match self.data.len().checked_add(count) {
            Some(total) if i32::try_from(total).is_ok() => Ok(()),
            _ => Err(Error::limit(
                "the map has as many data items as an index can name",
            )),
        }
    }

    /// Adds a data item (after [`Map::data_room`]); its raw index.
    fn push_data(&mut self, bytes: impl Into<Bytes>) -> i32 {
        self.data.push(DataSlot::Owned(bytes.into()));
        i32::try_from(self.data.len() - 1).unwrap_or(-1)
    }

    /// The file index a layer inserted at `position` in group `group` gets: an error when the
    /// group's range lies outside the layers or the position past its end.
    fn layer_slot(&self, group: usize, position: usize) -> Result<usize, Error> {
        let item = &self.groups[group].item;
        let (start, num) = (i64::from(item.start_layer), i64::from(item.num_layers));
        let len = self.layers.len() as i64;
        let start = if num == 0 {
            self.empty_group_start(group, start.clamp(0, len))
        } else if start >= 0 && num > 0 && start + num <= len {
            start
        } else {
            return Err(Error::invalid_edit(format!(
                "group #{group} holds layers {start}..+{num}, outside the {len} layers"
            )));
        };
        if position as u64 > num as u64 {
            return Err(Error::invalid_edit(format!(
                "layer position {position} is past the {num} layers of group #{group}"
            )));
        }
        Ok((start as usize) + position)
    }

    /// Where an empty group's first layer goes: at its start, unless that lies inside another
    /// group's layers, then after them.
    fn empty_group_start(&self, group: usize, mut start: i64) -> i64 {
        let ranges: Vec<(i64, i64)> = (self.groups.iter().enumerate())
            .filter(|&(index, _)| index != group)
            .map(|(_, g)| {
                let item = &g.item;
                let start = i64::from(item.start_layer);
                (start, start + i64::from(item.num_layers))
            })
            .collect();
        while let Some(&(_, end)) = ranges.iter().find(|&&(s, e)| s < start && start < e) {
            start = end;
        }
        start
    }

    /// The rules a new layer follows: physics layers in the game group, one of each kind, as
    /// large as the others; tile layers within the tile limit; content to write.
    fn check_new_layer(&self, group: usize, layer: &Layer) -> Result<(), Error> {
        if let Some((width, height)) = layer.size() {
            let tiles = (width.max(0) as usize).saturating_mul(height.max(0) as usize);
            if tiles > self.limits().max_tiles() {
                return Err(Error::limit(format!(
                    "{width}x{height} = {tiles} tiles, more than the limit of {} \
                     (Limits::max_tiles)",
                    self.limits().max_tiles()
                )));
            }
        }
        let has_content = match layer.content() {
            LayerContent::Quads(q) => q.quads().is_some(),
            LayerContent::Sounds(s) => s.sources().is_some(),
            LayerContent::Unknown(_) => false,
            LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => {
                t.grid().is_some()
            }
            LayerContent::Tele(t) => t.grid().is_some(),
            LayerContent::Speedup(t) => t.grid().is_some(),
            LayerContent::Switch(t) => t.grid().is_some(),
            LayerContent::Tune(t) => t.grid().is_some(),
        };
        if !has_content {
            return Err(Error::invalid_edit(format!(
                "a {} layer without content to write",
                layer.kind_name()
            )));
        }
        let Some(physics) = layer.physics() else {
            return Ok(());
        };
        let game = self.game_layer().map(|(r, _)| r);
        let physics_group = (game
            .into_iter()
            .chain(self.physics_layers().map(|(r, _)| r)))
        .find_map(|r| self.group_of(r));
        if let Some(home) = physics_group.and_then(|g| self.index_of(g)) {
            if home != group {
                return Err(Error::invalid_edit(format!(
                    "a {} layer goes in the game group (#{home}), not in group #{group}",
                    layer.kind_name()
                )));
            }
        }
        for (_, other) in self.physics_layers() {
            if other.physics() == Some(physics) {
                return Err(Error::invalid_edit(format!(
                    "the map has a {} layer already",
                    layer.kind_name()
                )));
            }
            if other.size() != layer.size() {
                let (w, h) = layer.size().unwrap_or_default();
                let (ow, oh) = other.size().unwrap_or_default();
                return Err(Error::invalid_edit(format!(
                    "a {w}x{h} {} layer beside a {ow}x{oh} {} layer: physics layers are as \
                     large as the game layer",
                    layer.kind_name(),
                    other.kind_name()
                )));
            }
        }
        if physics != Physics::Game && game.is_none() {
            return Err(Error::invalid_edit(format!(
                "a {} layer in a map without a game layer: add the game layer first",
                layer.kind_name()
            )));
        }
        Ok(())
    }

    /// Puts a layer at file index `at` in group `group` (from [`Map::layer_slot`]): the
    /// group's range grows, later ranges shift, auto-mapper configurations after it shift.
    fn place_layer(&mut self, group: usize, at: usize, layer: Layer) {
        let p = at as i64;
        let mut within = Vec::new();
        for (index, stored) in self.groups.iter_mut().enumerate() {
            let item = &mut stored.item;
            let (start, num) = (i64::from(item.start_layer), i64::from(item.num_layers));
            let changed = if index == group {
                if num == 0 {
                    item.start_layer = p as i32;
                }
                within.push((index, p - i64::from(item.start_layer)));
                bump(&mut item.num_layers, 1) | (num == 0 && start != p)
            } else if start > p || (start == p && (num > 0 || index > group)) {
                // Its layers come after the new one; an empty group at the same place moves
                // after it when it comes after the group in drawing order.
                bump(&mut item.start_layer, 1)
            } else if p < start + num {
                // Overlapping groups (an error already): the layer lands in this one too.
                within.push((index, p - start));
                bump(&mut item.num_layers, 1)
            } else {
                false
            };
            touched(changed, &mut stored.verbatim);
        }
        for automapper in &mut self.automappers {
            let item = &mut automapper.item;
            let shifted = within
                .iter()
                .any(|&(g, k)| i64::from(item.group) == g as i64 && i64::from(item.layer) >= k);
            if shifted {
                let changed = bump(&mut item.layer, 1);
                touched(changed, &mut automapper.verbatim);
            }
        }
        self.layers.insert(at, layer);
        if at + 1 < self.layers.len() {
            self.stamp.renew::<Layer>();
        }
        self.rebuild_tables();
    }

    /// Takes layer `index` out: the groups' ranges close up and the auto-mapper
    /// configurations of its groups after it shift; its own configurations are returned.
    /// The caller renews the tables.
    fn take_layer(&mut self, index: usize) -> (Layer, Vec<super::Automapper>) {
        let i = index as i64;
        let mut within = Vec::new();
        for (g, stored) in self.groups.iter_mut().enumerate() {
            let item = &mut stored.item;
            let (start, num) = (i64::from(item.start_layer), i64::from(item.num_layers));
            let changed = if start <= i && i < start + num {
                within.push((g as i64, i - start));
                bump(&mut item.num_layers, -1)
            } else if start > i {
                bump(&mut item.start_layer, -1)
            } else {
                false
            };
            touched(changed, &mut stored.verbatim);
        }
        let mut own = Vec::new();
        let mut kept = Vec::with_capacity(self.automappers.len());
        for mut automapper in std::mem::take(&mut self.automappers) {
            let item = &mut automapper.item;
            let place = within
                .iter()
                .find(|&&(g, _)| i64::from(item.group) == g)
                .map(|&(_, k)| k);
            match place {
                Some(k) if i64::from(item.layer) == k => {
                    own.push(automapper);
                    continue;
                }
                Some(k) if i64::from(item.layer) > k => {
                    let changed = bump(&mut item.layer, -1);
                    touched(changed, &mut automapper.verbatim);
                }
                _ => {}
            }
            kept.push(automapper);
        }
        self.automappers = kept;
        (self.layers.remove(index), own)
    }

    /// A map with the groups, layer count and auto-mappers of this one but no layer content,
    /// to try an edit of the layout on.
    fn clone_layout(&self) -> Map {
        Map {
            stamp: MapStamp::new(),
            source: None,
            file_format: None,
            form: self.form,
            version: None,
            info: None,
            images: Vec::new(),
            envelopes: Vec::new(),
            points: None,
            groups: self.groups.clone(),
            layers: (self.layers.iter())
                .map(|l| Layer::new(l.id, l.header, LayerContent::Unknown(Vec::new())))
                .collect(),
            sounds: Vec::new(),
            automappers: self.automappers.clone(),
            legacy: None,
            group_ex: Vec::new(),
            uuid_index: Vec::new(),
            others: Vec::new(),
            data: Vec::new(),
            layer_groups: Vec::new(),
            layer_automappers: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// Renumbers every data index field: those the writer's `data_uses` counts.
    fn renumber_data(&mut self, renumber: &Renumber) {
        if let Some(info) = &mut self.info {
            let item = &mut info.item;
            let mut changed = false;
            for field in [
                &mut item.author,
                &mut item.map_version,
                &mut item.credits,
                &mut item.license,
            ]
            .into_iter()
            .chain(&mut item.settings)
            {
                changed |= renumber.apply(field);
            }
            touched(changed, &mut info.verbatim);
        }
        for image in &mut self.images {
            let changed =
                renumber.apply(&mut image.item.name) | renumber.apply(&mut image.item.data);
            touched(changed, &mut image.verbatim);
        }
        for sound in &mut self.sounds {
            let changed =
                renumber.apply(&mut sound.item.name) | renumber.apply(&mut sound.item.data);
            touched(changed, &mut sound.verbatim);
        }
        for layer in &mut self.layers {
            // Only the layers whose data moved are changed.
            if (layer.data_fields().into_iter()).all(|raw| renumber.raw(raw) == raw) {
                continue;
            }
            match layer.content_mut() {
                LayerContent::Quads(q) => {
                    renumber.apply(&mut q.item_mut().data);
                }
                LayerContent::Sounds(s) => {
                    renumber.apply(&mut s.item_mut().data);
                }
                content => {
                    if let Some(t) = content.tilemap_mut() {
                        renumber.apply(&mut t.data);
                        let p = &mut t.physics;
                        let physics = [
                            &mut p.tele,
                            &mut p.speedup,
                            &mut p.front,
                            &mut p.switch,
                            &mut p.tune,
                        ];
                        for field in physics.into_iter().flatten() {
                            renumber.apply(field);
                        }
                    }
                }
            }
            layer.verbatim = None;
        }
    }

    /// Removes the data items among `candidates` that no field of the map names any more, and
    /// renumbers every data index.
    fn remove_unused_data(&mut self, candidates: impl IntoIterator<Item = i32>) {
        let uses = self.data_uses();
        let unused: BTreeSet<usize> = candidates
            .into_iter()
            .filter_map(|raw| usize::try_from(raw).ok())
            .filter(|&index| uses.get(index) == Some(&0))
            .collect();
        if unused.is_empty() {
            return;
        }
        self.renumber_data(&Renumber::removing(self.data.len(), unused.iter().copied()));
        let mut index = 0;
        self.data.retain(|_| {
            index += 1;
            !unused.contains(&(index - 1))
        });
        self.stamp.renew::<DataItem>();
    }

    /// The group and auto-mapper of each layer, as the resolver finds them: a layer belongs to
    /// the last group whose range holds it, and has the first auto-mapper naming it.
    fn rebuild_tables(&mut self) {
        let len = self.layers.len();
        let mut layer_groups = vec![None; len];
        let mut claims = Claims::default();
        for (index, group) in self.groups.iter().enumerate().rev() {
            let range = group.layer_range(len);
            for layer in claims.claim(range, index).new.into_iter().flatten() {
                if let Some(slot) = layer_groups.get_mut(layer) {
                    *slot = Some(index);
                }
            }
        }
        self.layer_groups = layer_groups;
        let mut layer_automappers = vec![None; len];
        for (index, automapper) in self.automappers.iter_mut().enumerate() {
            let item = &automapper.item;
            let group = usize::try_from(item.group)
                .ok()
                .and_then(|g| self.groups.get(g));
            automapper.layer = group.and_then(|group| {
                let range = group.layer_range(len);
                usize::try_from(item.layer)
                    .ok()
                    .and_then(|i| range.start.checked_add(i))
                    .filter(|&layer| layer < range.end)
            });
            if let Some(slot @ None) = automapper.layer.and_then(|l| layer_automappers.get_mut(l)) {
                *slot = Some(index);
            }
        }
        self.layer_automappers = layer_automappers;
    }
}

/// Renumbers a layer's envelope references (a tile layer's color envelope, its quads' or its
/// sources'); whether any changed. A layer is changed (and its quads or sources written anew)
/// only when one of its references names a moved envelope.
fn renumber_envelopes(layer: &mut Layer, renumber: &Renumber) -> bool {
    let moves = |raw: i32| renumber.raw(raw) != raw;
    let any = match layer.content() {
        LayerContent::Quads(q) => (q.quads().unwrap_or_default())
            .iter()
            .any(|quad| moves(quad.position_envelope) || moves(quad.color_envelope)),
        LayerContent::Sounds(s) => (s.sources().unwrap_or_default())
            .iter()
            .any(|source| moves(source.position_envelope) || moves(source.sound_envelope)),
        _ => layer.tilemap().is_some_and(|t| moves(t.color_envelope)),
    };
    if !any {
        return false;
    }
    match layer.content_mut() {
        LayerContent::Quads(q) => {
            for quad in q.quads_mut().into_iter().flatten() {
                renumber.apply(&mut quad.position_envelope);
                renumber.apply(&mut quad.color_envelope);
            }
        }
        LayerContent::Sounds(s) => {
            for source in s.sources_mut().into_iter().flatten() {
                renumber.apply(&mut source.position_envelope);
                renumber.apply(&mut source.sound_envelope);
            }
        }
        content => {
            if let Some(tilemap) = content.tilemap_mut() {
                renumber.apply(&mut tilemap.color_envelope);
            }
        }
    }
    true
}

/// Makes a layer ready to be added: a new item (not verbatim), its references none, its data
/// indices none with its content written anew, and its tilemap version the map form's.
fn prepare_layer(layer: &mut Layer, form: MapForm) -> Result<(), Error> {
    layer.verbatim = None;
    let physics = layer.physics();
    match layer.content_mut() {
        LayerContent::Quads(q) => {
            let item = q.item_mut();
            item.image = -1;
            item.data = -1;
            for quad in q.quads_mut().into_iter().flatten() {
                quad.position_envelope = -1;
                quad.color_envelope = -1;
            }
        }
        LayerContent::Sounds(s) => {
            let item = s.item_mut();
            item.sound = -1;
            item.data = -1;
            for source in s.sources_mut().into_iter().flatten() {
                source.position_envelope = -1;
                source.sound_envelope = -1;
            }
        }
        LayerContent::Unknown(_) => {
            return Err(Error::invalid_edit("a layer of an unknown type"));
        }
        content => {
            // Marks the tiles as written anew.
            match content {
                LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => {
                    t.grid_mut();
                }
                LayerContent::Tele(t) => {
                    t.grid_mut();
                }
                LayerContent::Speedup(t) => {
                    t.grid_mut();
                }
                LayerContent::Switch(t) => {
                    t.grid_mut();
                }
                LayerContent::Tune(t) => {
                    t.grid_mut();
                }
                _ => {}
            }
            if let Some(tilemap) = content.tilemap_mut() {
                tilemap.image = -1;
                tilemap.color_envelope = -1;
                tilemap.data = -1;
                // Teeworlds 0.7 stores tiles and game layers skip-compressed, without DDNet's
                // physics indices; everything else is version 3 with all five, as DDNet's
                // editor writes it (the writer fills in the one of a physics layer).
                let main = matches!(physics, None | Some(Physics::Game));
                let (version, physics) = match form {
                    MapForm::Teeworlds07 if main => (4, PhysicsData::default()),
                    _ => (3, NO_PHYSICS),
                };
                tilemap.version = version;
                tilemap.physics = physics;
            }
        }
    }
    Ok(())
}

/// The error for a layer of another kind than an edit needs.
fn wrong_kind(index: usize, layer: &Layer, need: &str) -> Error {
    Error::invalid_edit(format!(
        "layer #{index} is a {} layer, not a {need} layer",
        layer.kind_name()
    ))
}

/// The error for a quad or source a layer does not have.
fn no_such(layer: usize, what: &str, index: usize, len: Option<usize>) -> Error {
    match len {
        Some(len) => Error::invalid_edit(format!(
            "layer #{layer} has {len} {what}s, no {what} #{index}"
        )),
        None => Error::invalid_edit(format!("layer #{layer}'s {what}s did not load")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renumbering_removes_shifts_and_keeps_dangling_values() {
        let r = Renumber::removing(5, [1, 3]);
        let raws: Vec<i32> = [-2, -1, 0, 1, 2, 3, 4, 5, 99]
            .map(|raw| r.raw(raw))
            .to_vec();
        assert_eq!(raws, [-2, -1, 0, -1, 1, -1, 2, 5, 99]);
        let r = Renumber::inserting(3, 1);
        let raws: Vec<i32> = [-1, 0, 1, 2, 3].map(|raw| r.raw(raw)).to_vec();
        assert_eq!(raws, [-1, 0, 2, 3, 3]);
    }

    #[test]
    fn free_ids_follow_the_largest_or_fill_a_gap() {
        assert_eq!(free_id([].into_iter(), "x").unwrap(), 0);
        assert_eq!(free_id([0, 5, 2].into_iter(), "x").unwrap(), 6);
        assert_eq!(free_id([0, 1, u16::MAX].into_iter(), "x").unwrap(), 2);
        assert!(free_id(0..=u16::MAX, "x").is_err());
    }

    #[test]
    fn names_are_checked_not_cut() {
        assert!(item_name::<3>("name", "Game").is_ok());
        assert!(item_name::<3>("name", "twelve bytes").is_err());
        assert!(item_name::<3>("name", "a\0b").is_err());
        assert_eq!(parallax_zoom(Point { x: 150, y: 20 }), 100);
    }
}
