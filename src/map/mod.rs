//! The map graph: a map's items as typed arenas in file order, with checked references between
//! them.
//!
//! [`Map`] keeps every item with its id and its schema struct, and every data item in a store
//! indexed by its original data index, so writing an unmodified map gives back the same items and
//! data ([`Map::to_datafile`]). How much content loading decodes is a [`Decode`]: every layer's
//! tiles, quads and sound sources (the default), nothing until it is read (lazy), or that and
//! every image's pixels and sound's data too (all), in parallel (rayon). Saving compresses data
//! items in parallel.
//!
//! References are [`ItemRef`]s, which only this module makes and only for indices that exist;
//! a reference field reads as a [`Ref`]: none, a valid reference, or dangling (its raw value kept
//! so that writing stays lossless). The resolver (module `resolve`, `src/map/resolve.rs`) lists every check it makes.
//! An `ItemRef` names its map: used on another map, or after an edit moved items of its kind,
//! it finds nothing ([`Map::get`]) rather than a wrong item. The [`edit`] module adds and
//! removes items and renumbers every reference.

pub mod claims;
mod content;
pub mod convert;
pub mod edit;
pub mod envelope;
mod grid;
mod layer;
mod legacy;
mod problem;
mod resolve;
mod write;

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use twcodec_schema::map::automapper::AutomapperItem;
use twcodec_schema::map::envelope::{EnvPoint, EnvPointBezier, EnvPointsBezierItem, EnvelopeItem};
use twcodec_schema::map::group::{GroupExItem, GroupItem};
use twcodec_schema::map::image::{ImageFormat, ImageItem};
use twcodec_schema::map::info::{InfoItem, VersionItem};
use twcodec_schema::map::quad::Quad;
use twcodec_schema::map::sound::{SoundItem, SoundSource};
use twcodec_schema::map::{cstring, settings, settings_count, DecodeContext, MapItem, MapItemKind};
use twcodec_schema::uuid::{Uuid, UuidIndexItem};

use crate::datafile::Datafile;
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;

pub use claims::Claims;
pub use convert::{
    tile_name, Conversion, ConversionNote, NoteAction, NoteSubject, TEEWORLDS_07_MAPRES,
    TEEWORLDS_07_MAX_IMAGES, TEEWORLDS_07_MAX_SPAWNS,
};
pub use edit::{GameTileOp, Margins, NewEnvelope, NewGroup, TileSpec, Transform};
pub use grid::{Grid, TileLayout};
pub use layer::{Layer, LayerContent, QuadsLayer, SoundsLayer, TilesLayer};
pub use problem::{ItemPlace, Problem, Severity};
pub use resolve::LoadMode;

/// A checked reference to an item of kind `T` of one map: its index in the map's arena, and the
/// stamp of the map that made it.
///
/// Every map gets a process-unique identity when it is made (loaded, parsed, or cloned: a clone
/// is another map), and each kind of item a generation that an edit moving items of that kind
/// renews (removing an image renews the images', removing a layer the layers' and the data
/// items'; see the `edit` module, `src/map/edit/`). A lookup checks both, so a reference used
/// on another map, or kept across an edit that moved its kind, finds nothing ([`Map::get`] gives
/// `None`, an edit gives an error) instead of naming the wrong item.
pub struct ItemRef<T> {
    index: u32,
    // The stamp's fields side by side, so that a reference takes 16 bytes.
    generation: u32,
    map: u64,
    marker: PhantomData<fn() -> T>,
}

impl<T> ItemRef<T> {
    /// Made only by this crate, for indices it has checked, with the stamp of their map.
    pub(crate) fn new(index: usize, stamp: Stamp) -> ItemRef<T> {
        ItemRef {
            index: index as u32,
            generation: stamp.generation,
            map: stamp.map,
            marker: PhantomData,
        }
    }

    fn stamp(self) -> Stamp {
        Stamp {
            map: self.map,
            generation: self.generation,
        }
    }

    /// The index in the arena (and in the file's items of this kind).
    pub fn index(self) -> usize {
        self.index as usize
    }
}

impl<T: ItemKind> ItemRef<T> {
    /// Whether this reference was made by `map`, since the last edit that moved items of its
    /// kind.
    pub fn is_of(self, map: &Map) -> bool {
        self.stamp() == map.stamp.of::<T>()
    }
}

impl<T> Clone for ItemRef<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ItemRef<T> {}
impl<T> PartialEq for ItemRef<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.index, self.stamp()) == (other.index, other.stamp())
    }
}
impl<T> Eq for ItemRef<T> {}
impl<T> PartialOrd for ItemRef<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for ItemRef<T> {
    /// By index, then by stamp: references of one map sort in file order.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.index, self.stamp()).cmp(&(other.index, other.stamp()))
    }
}
impl<T> std::hash::Hash for ItemRef<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state);
        self.stamp().hash(state);
    }
}
impl<T> fmt::Debug for ItemRef<T> {
    /// `Image#3`: the kind and the index (the stamp differs from run to run, so it is left out).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = std::any::type_name::<T>()
            .rsplit("::")
            .next()
            .unwrap_or("?");
        write!(f, "{name}#{}", self.index)
    }
}

/// What an [`ItemRef`] carries of its map: the map's identity and its kind's generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Stamp {
    map: u64,
    generation: u32,
}

/// A map's identity for its [`ItemRef`]s: a process-unique number, and a generation per kind of
/// item, renewed by every edit that moves items of that kind. Cloning makes a new identity, so
/// a cloned map is another map.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct MapStamp {
    map: u64,
    generations: [u32; KINDS],
}

/// How many kinds of items [`ItemRef`]s name.
const KINDS: usize = 6;

impl MapStamp {
    /// A stamp no map had before in this process.
    pub(crate) fn new() -> MapStamp {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        MapStamp {
            map: NEXT.fetch_add(1, Ordering::Relaxed),
            generations: [0; KINDS],
        }
    }

    /// The stamp of references to items of kind `T`.
    pub(crate) fn of<T: ItemKind>(&self) -> Stamp {
        Stamp {
            map: self.map,
            generation: self.generations.get(T::SLOT).copied().unwrap_or(0),
        }
    }

    /// Refuses every reference to items of kind `T` made so far.
    pub(crate) fn renew<T: ItemKind>(&mut self) {
        match self.generations.get_mut(T::SLOT) {
            Some(generation) if *generation < u32::MAX => *generation += 1,
            // A generation never comes back: past the last one, the map changes its identity.
            _ => *self = MapStamp::new(),
        }
    }
}

impl Clone for MapStamp {
    fn clone(&self) -> Self {
        MapStamp::new()
    }
}

/// The kinds of items an [`ItemRef`] names.
pub trait ItemKind: sealed::Sealed {
    /// The kind's name in messages (`image`, `layer`, ...).
    const KIND: &'static str;
    /// Its generation in [`MapStamp`].
    #[doc(hidden)]
    const SLOT: usize;
    /// How many items of the kind a map has.
    #[doc(hidden)]
    fn count(map: &Map) -> usize;
}

/// The kinds of items a map keeps in an arena, for [`Map::get`] and [`Map::refs`].
pub trait Arena: ItemKind + Sized {
    /// The map's items of this kind, in file order.
    fn arena(map: &Map) -> &[Self];
    /// The same, to edit.
    #[doc(hidden)]
    fn arena_mut(map: &mut Map) -> &mut Vec<Self>;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! item_kinds {
    (@count $map:ident $field:ident) => { $map.$field.len() };
    (@count $map:ident) => { $map.data.len() };
    ($($kind:ty => $slot:literal, $name:literal $(, $field:ident)?;)*) => {$(
        impl sealed::Sealed for $kind {}
        impl ItemKind for $kind {
            const KIND: &'static str = $name;
            const SLOT: usize = $slot;
            fn count(map: &Map) -> usize {
                item_kinds!(@count map $($field)?)
            }
        }
        $(impl Arena for $kind {
            fn arena(map: &Map) -> &[$kind] {
                &map.$field
            }
            fn arena_mut(map: &mut Map) -> &mut Vec<$kind> {
                &mut map.$field
            }
        })?
    )*};
}

item_kinds! {
    Image => 0, "image", images;
    Envelope => 1, "envelope", envelopes;
    Group => 2, "group", groups;
    Layer => 3, "layer", layers;
    Sound => 4, "sound", sounds;
    DataItem => 5, "data item";
}

/// A reference field as stored: -1, an item that exists, or a dangling value.
pub enum Ref<T> {
    /// No reference: -1, or any negative value.
    None,
    /// An item that exists.
    To(ItemRef<T>),
    /// A value that names no item; kept so that writing is lossless.
    Dangling(i32),
}

impl<T> Ref<T> {
    /// Checks a raw index against the number of items it points into, and makes a reference
    /// of the map with `stamp`. Any negative value means none, as DDNet and Teeworlds test
    /// `index >= 0` (some editors wrote -2).
    pub(crate) fn resolve(raw: i32, count: usize, stamp: Stamp) -> Ref<T> {
        match raw {
            index if index < 0 => Ref::None,
            index if (index as usize) < count => Ref::To(ItemRef::new(index as usize, stamp)),
            other => Ref::Dangling(other),
        }
    }

    /// The reference, if it names an item.
    pub fn get(self) -> Option<ItemRef<T>> {
        match self {
            Ref::To(r) => Some(r),
            _ => None,
        }
    }

    /// The value stored in the file.
    pub fn raw(self) -> i32 {
        match self {
            Ref::None => -1,
            Ref::To(r) => r.index() as i32,
            Ref::Dangling(raw) => raw,
        }
    }
}

impl<T> Clone for Ref<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Ref<T> {}
impl<T> PartialEq for Ref<T> {
    /// Equal when they store the same value (references of one map).
    fn eq(&self, other: &Self) -> bool {
        self.raw() == other.raw()
    }
}
impl<T> Eq for Ref<T> {}
impl<T> fmt::Debug for Ref<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ref::None => f.write_str("None"),
            Ref::To(r) => write!(f, "{r:?}"),
            Ref::Dangling(raw) => write!(f, "Dangling({raw})"),
        }
    }
}

/// Which game a map is written for: how tiles, images and envelope points are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum MapForm {
    /// DDNet and Teeworlds 0.6: tilemap version 3, image version 1, 6-int envelope points with
    /// DDNet's bezier item.
    Ddnet,
    /// Teeworlds 0.7: tilemap version 4 with skip-compressed tiles, image version 2, envelope
    /// version 3 with 22-int points when bezier curves are used.
    Teeworlds07,
    /// Teeworlds 0.3 (no version item): upgraded at load to the map model of 0.4 and later
    /// (module `legacy`, `src/map/legacy.rs`). Written back as the original file while
    /// unmodified, as the upgraded model in DDNet form once anything is modified; converting
    /// to DDNet or 0.7 writes the model in that form.
    Teeworlds03,
}

/// A map item as the graph keeps it: its id, its schema struct, and, for an item too short for
/// its layout, the ints it was read from (written back as they are).
#[derive(Debug, Clone, PartialEq)]
pub struct Stored<T> {
    pub(crate) id: u16,
    pub(crate) item: T,
    pub(crate) verbatim: Option<Vec<i32>>,
}

impl<T> Stored<T> {
    pub(crate) fn new(id: u16, item: T, verbatim: Option<Vec<i32>>) -> Stored<T> {
        Stored { id, item, verbatim }
    }

    /// The item's id.
    pub fn id(&self) -> u16 {
        self.id
    }

    /// The item as stored.
    pub fn item(&self) -> &T {
        &self.item
    }
}

/// The map info (map.md, "Info").
pub type Info = Stored<InfoItem>;
/// An image (map.md, "Images").
pub type Image = Stored<ImageItem>;
/// An envelope (map.md, "Envelopes").
pub type Envelope = Stored<EnvelopeItem>;
/// A group of layers (map.md, "Groups").
pub type Group = Stored<GroupItem>;
/// A sound (map.md, "Sounds").
pub type Sound = Stored<SoundItem>;

/// DDNet's auto-mapper configuration of a tiles layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Automapper {
    pub(crate) id: u16,
    pub(crate) item: AutomapperItem,
    /// The ints of an item too short for its layout, written back as they are.
    pub(crate) verbatim: Option<Vec<i32>>,
    /// The index of the layer it configures.
    pub(crate) layer: Option<usize>,
}

/// A marker for data items: `ItemRef<DataItem>` names one.
#[derive(Debug)]
pub enum DataItem {}

/// A data item of the map: the source file's, or one set since.
#[derive(Debug, Clone)]
pub(crate) enum DataSlot {
    /// Data item `index` of the source datafile, unchanged.
    Source(usize),
    /// Uncompressed bytes set after loading.
    Owned(Bytes),
}

/// All envelope points of the map (map.md, "Envelope Points"), with bezier tangents from either
/// form: Teeworlds 0.7's 22-int points, or DDNet's bezier item when it matches the points.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EnvelopePoints {
    pub(crate) id: u16,
    pub(crate) points: Vec<EnvPoint>,
    pub(crate) bezier: Option<Vec<EnvPointBezier>>,
    /// The points were 22 ints each.
    pub(crate) wide: bool,
    pub(crate) unknown_tail: Vec<i32>,
    /// DDNet's bezier item as read, with its id.
    pub(crate) bezier_item: Option<(u16, EnvPointsBezierItem)>,
    pub(crate) modified: bool,
}

/// An item the graph does not model, kept as read: unknown types, unknown UUID types, the UUID
/// index, DDNet's test and group extension items.
#[derive(Debug, Clone, PartialEq)]
pub struct OtherItem {
    /// Type id as stored.
    pub type_id: u16,
    /// Id.
    pub id: u16,
    /// The UUID of its type, when the UUID index names one.
    pub uuid: Option<Uuid>,
    /// The ints.
    pub ints: Vec<i32>,
}

/// How much of a map's content loading decodes ([`LoadOptions::decode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Decode {
    /// Nothing: groups, layers, references and every check that needs no content are there at
    /// once; each layer's tiles, quads or sources are inflated, decoded and checked when first
    /// read (once, whichever thread reads first), their problems then joining
    /// [`Map::problems`]. Image and sound data is inflated when asked for.
    Lazy,
    /// Every layer's tiles, quads and sound sources, in parallel; image and sound data is
    /// inflated when asked for.
    #[default]
    Layers,
    /// Everything: every layer's content, every embedded image's pixels and every sound's data,
    /// in parallel.
    All,
}

/// How to load a map: what to do with errors, and how much content to decode.
///
/// A [`LoadMode`] converts into options with the default decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Strict loading fails on the first error found while loading; lenient loading keeps
    /// every problem. A lazy map's content is checked when it is read, so strict lazy loading
    /// fails only on what the items show.
    pub mode: LoadMode,
    /// How much content is decoded at load.
    pub decode: Decode,
}

impl LoadOptions {
    /// Lenient, decoding nothing at load.
    pub const LAZY: LoadOptions = LoadOptions {
        mode: LoadMode::Lenient,
        decode: Decode::Lazy,
    };

    /// Lenient, decoding everything at load.
    pub const ALL: LoadOptions = LoadOptions {
        mode: LoadMode::Lenient,
        decode: Decode::All,
    };

    /// These options in strict mode.
    pub fn strict(self) -> LoadOptions {
        self.mode(LoadMode::Strict)
    }

    /// These options with another mode.
    pub fn mode(self, mode: LoadMode) -> LoadOptions {
        LoadOptions { mode, ..self }
    }

    /// These options decoding another amount of content at load.
    pub fn decode(self, decode: Decode) -> LoadOptions {
        LoadOptions { decode, ..self }
    }
}

impl From<LoadMode> for LoadOptions {
    fn from(mode: LoadMode) -> LoadOptions {
        LoadOptions {
            mode,
            ..LoadOptions::default()
        }
    }
}

impl From<Decode> for LoadOptions {
    fn from(decode: Decode) -> LoadOptions {
        LoadOptions {
            decode,
            ..LoadOptions::default()
        }
    }
}

/// A map: every item and data item of a map file, resolved into typed arenas.
#[derive(Clone)]
pub struct Map {
    /// The map's identity for its references ([`ItemRef`]).
    pub(crate) stamp: MapStamp,
    /// The file the map was read from, with what decoding its content needs.
    pub(crate) source: Option<Arc<content::Source>>,
    /// How the source file was written (version, magic, old size fields), to write it the same.
    pub(crate) file_format: Option<(
        twcodec_schema::datafile::Version,
        twcodec_schema::datafile::Magic,
        bool,
    )>,
    pub(crate) form: MapForm,
    pub(crate) version: Option<(u16, VersionItem)>,
    pub(crate) info: Option<Info>,
    pub(crate) images: Vec<Image>,
    pub(crate) envelopes: Vec<Envelope>,
    pub(crate) points: Option<EnvelopePoints>,
    pub(crate) groups: Vec<Group>,
    pub(crate) layers: Vec<Layer>,
    pub(crate) sounds: Vec<Sound>,
    pub(crate) automappers: Vec<Automapper>,
    pub(crate) group_ex: Vec<(u16, GroupExItem)>,
    pub(crate) uuid_index: Vec<(u16, UuidIndexItem)>,
    pub(crate) others: Vec<OtherItem>,
    pub(crate) data: Vec<DataSlot>,
    /// Group of each layer (the last group whose range holds it), an index into `groups`.
    pub(crate) layer_groups: Vec<Option<usize>>,
    /// Auto-mapper of each layer (the first one naming it), an index into `automappers`.
    pub(crate) layer_automappers: Vec<Option<usize>>,
    /// What the resolver found without decoding content; each layer keeps what decoding its
    /// content found.
    pub(crate) problems: Vec<Problem>,
    /// The Teeworlds 0.3 file a map of that form was upgraded from (the arenas hold its
    /// upgrade), written back while the map is unmodified.
    pub(crate) legacy: Option<Datafile>,
}

/// The map's structure: its form, version, info, images, envelopes, groups holding their
/// layers (tile grids shown by their size), sounds, and problems; counts of the rest.
impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Groups<'m>(&'m Map);
        impl fmt::Debug for Groups<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let map = self.0;
                let groups = map.groups.iter().map(|group| {
                    let range = group.layer_range(map.layers.len());
                    (group, &map.layers[range])
                });
                f.debug_list()
                    .entries(groups.map(|(group, layers)| GroupDebug(group, layers)))
                    .finish()
            }
        }
        struct GroupDebug<'m>(&'m Group, &'m [Layer]);
        impl fmt::Debug for GroupDebug<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct("Group")
                    .field("id", &self.0.id)
                    .field("item", &self.0.item)
                    .field("layers", &self.1)
                    .finish()
            }
        }
        f.debug_struct("Map")
            .field("form", &self.form)
            .field("version", &self.version())
            .field("info", &self.info)
            .field("images", &self.images)
            .field("envelopes", &self.envelopes)
            .field(
                "envelope_points",
                &self.points.as_ref().map_or(0, |p| p.points.len()),
            )
            .field("groups", &Groups(self))
            .field("sounds", &self.sounds)
            .field("automappers", &self.automappers.len())
            .field("other_items", &self.others.len())
            .field("data_items", &self.data.len())
            .field("problems", &self.problems())
            .finish_non_exhaustive()
    }
}

impl Map {
    /// Reads and resolves the map at `path`, leniently: every problem becomes a warning.
    pub fn open(path: impl AsRef<Path>) -> Result<Map, Error> {
        Map::open_with(path, LoadOptions::default())
    }

    /// Reads and resolves the map at `path` with the given options (or a [`LoadMode`], or a
    /// [`Decode`]: `Decode::Lazy` decodes no content until it is asked for).
    pub fn open_with(
        path: impl AsRef<Path>,
        options: impl Into<LoadOptions>,
    ) -> Result<Map, Error> {
        let path = path.as_ref();
        let datafile = Datafile::open(path)?;
        resolve::resolve(datafile, options.into()).map_err(|e| e.with_path(path))
    }

    /// Parses and resolves a map held in memory, leniently; the map keeps a copy of the bytes.
    pub fn parse(bytes: &[u8]) -> Result<Map, Error> {
        Map::parse_with(bytes, LoadOptions::default())
    }

    /// Parses and resolves a map held in memory with the given options (or a [`LoadMode`], or
    /// a [`Decode`]).
    ///
    /// ```
    /// use twcodec::{Decode, Map};
    /// let map = Map::parse_with(&twcodec_testkit::sample::datafile(), Decode::Lazy)?;
    /// assert!(map.layers().iter().all(|layer| !layer.is_decoded()));
    /// let (_, game) = map.game_layer().expect("a game layer");
    /// assert!(game.grid().is_some()); // decoded now, once
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn parse_with(bytes: &[u8], options: impl Into<LoadOptions>) -> Result<Map, Error> {
        resolve::resolve(Datafile::parse(bytes)?, options.into())
    }

    /// Resolves a map from bytes it takes over, without copying them, leniently.
    pub fn from_bytes(bytes: impl Into<Bytes>) -> Result<Map, Error> {
        Map::from_bytes_with(bytes, LoadOptions::default())
    }

    /// Resolves a map from bytes it takes over, without copying them, with the given options.
    pub fn from_bytes_with(
        bytes: impl Into<Bytes>,
        options: impl Into<LoadOptions>,
    ) -> Result<Map, Error> {
        resolve::resolve(Datafile::from_bytes(bytes)?, options.into())
    }

    /// Resolves a parsed datafile, leniently.
    pub fn from_datafile(datafile: &Datafile) -> Result<Map, Error> {
        Map::from_datafile_with(datafile, LoadOptions::default())
    }

    /// Resolves a parsed datafile with the given options (or a [`LoadMode`], or a [`Decode`]);
    /// strict mode fails on the first error.
    pub fn from_datafile_with(
        datafile: &Datafile,
        options: impl Into<LoadOptions>,
    ) -> Result<Map, Error> {
        resolve::resolve(datafile.clone(), options.into())
    }

    /// Resolves a parsed datafile, taking it over (no copy of its items).
    pub fn from_datafile_owned(
        datafile: Datafile,
        options: impl Into<LoadOptions>,
    ) -> Result<Map, Error> {
        resolve::resolve(datafile, options.into())
    }

    /// Decodes every layer's content, every embedded image's pixels and every sound's data
    /// that is not decoded yet, in parallel: what a lazy map needs to become a fully loaded
    /// one. Problems decoding finds join [`Map::problems`]; image or sound data that does not
    /// load is left to fail when it is read.
    pub fn decode_all(&self) {
        self.decode_content(true);
    }

    /// Decodes what is not decoded yet: every layer's content, and with `data` every embedded
    /// image's and sound's data item. The costliest first, so that two threads end together;
    /// small maps on the calling thread, where a thread pool costs more than it saves.
    pub(crate) fn decode_content(&self, data: bool) {
        enum Job {
            Layer(usize),
            Data(usize),
        }
        let source = self.source.as_deref();
        // The source data item a data field names, and what inflating it costs: its declared
        // size (the pages it fills) and its stored size 8 times over (the symbols decoded: a
        // tile layer of runs of air inflates many times faster per byte than a picture).
        let declared = |raw: i32| -> Option<(usize, usize)> {
            let slot = usize::try_from(raw).ok().and_then(|raw| self.data.get(raw));
            let DataSlot::Source(index) = slot? else {
                return None;
            };
            let df = &source?.df;
            let stored = df.stored_data(*index).map_or(0, |bytes| bytes.len());
            Some((
                *index,
                df.data_size(*index)?
                    .saturating_add(stored.saturating_mul(8)),
            ))
        };
        let mut jobs: Vec<(usize, Job)> = Vec::new();
        for (index, layer) in self.layers.iter().enumerate() {
            if layer.is_decoded() {
                continue;
            }
            let size = (layer.content_data())
                .and_then(declared)
                .map_or(0, |(_, size)| size);
            jobs.push((size, Job::Layer(index)));
        }
        if data {
            let images = (self.images.iter())
                .filter(|image| !image.is_external())
                .map(|image| image.item.data);
            let sounds = self.sounds.iter().map(|sound| sound.item.data);
            let mut seen = std::collections::HashSet::new();
            for (index, size) in images.chain(sounds).filter_map(declared) {
                if seen.insert(index) && source.is_some_and(|s| !s.is_cached(index)) {
                    jobs.push((size, Job::Data(index)));
                }
            }
        }
        let run = |(_, job): &(usize, Job)| match *job {
            Job::Layer(index) => self.layers[index].decode(),
            Job::Data(index) => {
                if let Some(source) = source {
                    // Data that does not load fails again, with its error, when it is read.
                    let _ = source.cached(index);
                }
            }
        };
        // Below this cost (about this many bytes to inflate), a map decodes on the calling
        // thread.
        const PARALLEL_FROM: usize = 256 << 10;
        let total: usize = jobs.iter().map(|(size, _)| size).sum();
        #[cfg(feature = "parallel")]
        let workers = rayon::current_num_threads().min(jobs.len());
        #[cfg(not(feature = "parallel"))]
        let workers = 1;
        if total < PARALLEL_FROM || workers < 2 {
            jobs.iter().for_each(run);
            return;
        }
        // Largest first, each worker taking the next job when it is free: the longest jobs
        // start at once and the short ones fill in around them.
        jobs.sort_unstable_by_key(|&(size, _)| std::cmp::Reverse(size));
        let next = std::sync::atomic::AtomicUsize::new(0);
        let work = || {
            while let Some(job) = jobs.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
            {
                run(job);
            }
        };
        #[cfg(feature = "parallel")]
        rayon::scope(|scope| {
            for _ in 1..workers {
                scope.spawn(|_| work());
            }
            work();
        });
        #[cfg(not(feature = "parallel"))]
        work();
    }

    /// Which game the map is written for.
    pub fn form(&self) -> MapForm {
        self.form
    }

    /// What the resolver found: warnings, and errors when loaded leniently. First what the
    /// items show, then what decoding each layer's content found, in layer order (in a lazy
    /// map, only of the layers decoded so far: [`Map::decode_all`] decodes the rest).
    pub fn problems(&self) -> Vec<Problem> {
        let content = self.layers.iter().flat_map(Layer::content_problems);
        self.problems.iter().chain(content).cloned().collect()
    }

    /// The version item's version (1 in every loadable map).
    pub fn version(&self) -> Option<i32> {
        self.version.as_ref().map(|(_, v)| v.version)
    }

    /// The info item.
    pub fn info(&self) -> Option<&Info> {
        self.info.as_ref()
    }

    /// The images, in file order.
    pub fn images(&self) -> &[Image] {
        &self.images
    }

    /// The envelopes, in file order.
    pub fn envelopes(&self) -> &[Envelope] {
        &self.envelopes
    }

    /// The groups, in file order.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The layers, in file order.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Mutable access to a layer (for its tiles, quads or sources); `None` for a reference of
    /// another map or from before an edit that moved items.
    pub fn layer_mut(&mut self, layer: ItemRef<Layer>) -> Option<&mut Layer> {
        let index = self.index_of(layer)?;
        self.layers.get_mut(index)
    }

    /// The sounds, in file order.
    pub fn sounds(&self) -> &[Sound] {
        &self.sounds
    }

    /// DDNet's auto-mapper configurations, in file order.
    pub fn automappers(&self) -> &[Automapper] {
        &self.automappers
    }

    /// Every envelope point, with bezier tangents when the map has them.
    pub fn envelope_points(&self) -> Option<&EnvelopePoints> {
        self.points.as_ref()
    }

    /// Items the graph keeps without modelling them (see [`OtherItem`]).
    pub fn other_items(&self) -> &[OtherItem] {
        &self.others
    }

    /// The Teeworlds 0.3 file a map of that form was upgraded from: its items are the 0.3
    /// ones ([`twcodec_schema::map::legacy`]), which [`crate::items::decode_item`] decodes.
    pub fn legacy_datafile(&self) -> Option<&Datafile> {
        self.legacy.as_ref()
    }

    /// Whether an envelope has Teeworlds 0.7's bezier version, which makes the envelope points
    /// 22 ints each and the map a 0.7 one.
    pub(crate) fn has_bezier_envelopes(&self) -> bool {
        (self.envelopes.iter())
            .any(|envelope| envelope.item.version >= EnvelopeItem::VERSION_BEZIER)
    }

    /// An item the graph keeps without modelling it, decoded as the registered item type its
    /// type id or UUID names (`None` for unknown types and items that do not decode): how
    /// `dump` shows items of types the graph has no arena for, such as DDNet's test item or
    /// any type added to the schema's registry later. The items of a Teeworlds 0.3 map's
    /// original file are not other items: see [`Map::legacy_datafile`].
    pub fn decode_other(&self, other: &OtherItem) -> Option<MapItem> {
        let kind = MapItemKind::of(other.type_id, other.uuid);
        if kind == MapItemKind::Unknown {
            return None;
        }
        let context = DecodeContext {
            bezier_points: self.has_bezier_envelopes(),
        };
        MapItem::decode(kind, &other.ints, context).ok()
    }

    /// The limits the map was read under (its datafile's), or the defaults for a map that
    /// was not read from a file.
    pub fn limits(&self) -> Limits {
        self.source
            .as_ref()
            .map_or(Limits::DEFAULT, |source| source.df.limits())
    }

    /// The item a reference names: `None` for a reference of another map or from before an
    /// edit that moved items (see [`ItemRef`]).
    ///
    /// ```
    /// # let map = twcodec_testkit::sample::map()?;
    /// use twcodec::map::Image;
    /// let first = map.refs::<Image>().next().expect("an image");
    /// assert!(map.get(first).is_some());
    /// assert!(map.clone().get(first).is_none()); // a clone is another map
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn get<T: Arena>(&self, r: ItemRef<T>) -> Option<&T> {
        T::arena(self).get(self.index_of(r)?)
    }

    /// The index a reference of this map names, when it is one.
    pub(crate) fn index_of<T: ItemKind>(&self, r: ItemRef<T>) -> Option<usize> {
        r.is_of(self).then_some(r.index())
    }

    /// A reference of this map to index `index`; the caller has checked it.
    pub(crate) fn mint<T: ItemKind>(&self, index: usize) -> ItemRef<T> {
        ItemRef::new(index, self.stamp.of::<T>())
    }

    /// References to every item of a kind, in file order.
    pub fn refs<T: ItemKind>(&self) -> impl DoubleEndedIterator<Item = ItemRef<T>> {
        let stamp = self.stamp.of::<T>();
        (0..T::count(self)).map(move |index| ItemRef::new(index, stamp))
    }

    /// The game layer: the last one, as DDNet uses the last of several.
    pub fn game_layer(
        &self,
    ) -> Option<(ItemRef<Layer>, &TilesLayer<twcodec_schema::map::tile::Tile>)> {
        self.refs::<Layer>()
            .rev()
            .find_map(|r| match self.get(r)?.content() {
                LayerContent::Game(tiles) => Some((r, tiles)),
                _ => None,
            })
    }

    /// The physics layers (game, front, tele, speedup, switch, tune), in file order.
    pub fn physics_layers(&self) -> impl Iterator<Item = (ItemRef<Layer>, &Layer)> {
        (self.refs::<Layer>().zip(&self.layers)).filter(|(_, layer)| layer.is_physics())
    }

    /// The layer `spec` names: its index as `twcodec dump` shows it (counted over every layer
    /// of the map from 0), or else its name (the first layer of that name). An error of kind
    /// [`ErrorKind::InvalidOptions`] listing the layers when there is none.
    ///
    /// ```
    /// # let map = twcodec_testkit::sample::map()?;
    /// assert_eq!(map.find_layer("Game")?, map.find_layer("2")?);
    /// assert!(map.find_layer("Nope").is_err());
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn find_layer(&self, spec: &str) -> Result<ItemRef<Layer>, Error> {
        let index = match spec.parse::<usize>() {
            Ok(index) if index < self.layers.len() => Some(index),
            _ => self.layers.iter().position(|l| l.name() == spec),
        };
        if let Some(index) = index {
            return Ok(self.mint(index));
        }
        let names: Vec<String> = (self.layers.iter().enumerate())
            .take(40)
            .map(|(i, layer)| format!("#{i} {:?}", layer.name()))
            .collect();
        let more = if self.layers.len() > names.len() {
            ", ..."
        } else {
            ""
        };
        Err(Error::new(
            ErrorKind::InvalidOptions,
            format!(
                "the map has no layer {spec:?} (by index or name; it has {} layers: {}{more})",
                self.layers.len(),
                names.join(", ")
            ),
        ))
    }

    /// The group holding a layer.
    pub fn group_of(&self, layer: ItemRef<Layer>) -> Option<ItemRef<Group>> {
        let group = self
            .layer_groups
            .get(self.index_of(layer)?)
            .copied()
            .flatten()?;
        Some(self.mint(group))
    }

    /// The auto-mapper configuration attached to a layer.
    pub fn automapper_of(&self, layer: ItemRef<Layer>) -> Option<&Automapper> {
        let index = self
            .layer_automappers
            .get(self.index_of(layer)?)
            .copied()
            .flatten()?;
        self.automappers.get(index)
    }

    /// Resolves a raw index of an item of kind `T`.
    pub fn item_ref<T: ItemKind>(&self, raw: i32) -> Ref<T> {
        Ref::resolve(raw, T::count(self), self.stamp.of::<T>())
    }

    /// The slot a data reference of this map names.
    fn data_slot(&self, data: ItemRef<DataItem>) -> Result<&DataSlot, Error> {
        self.index_of(data)
            .and_then(|index| self.data.get(index))
            .ok_or_else(|| Error::stale_ref(DataItem::KIND, data.index()))
    }

    /// Number of data items.
    pub fn data_count(&self) -> usize {
        self.data.len()
    }

    /// The bytes of a data item, uncompressed (inflated now when it comes from the file).
    pub fn data(&self, data: ItemRef<DataItem>) -> Result<Cow<'_, [u8]>, Error> {
        match self.data_slot(data)? {
            DataSlot::Owned(bytes) => Ok(Cow::Borrowed(bytes)),
            DataSlot::Source(index) => match &self.source {
                Some(source) => source.data(*index),
                None => Err(Error::new(
                    ErrorKind::Malformed,
                    "the map has no source file for its data",
                )),
            },
        }
    }

    /// The uncompressed size of a data item, without inflating it: as the source file declares
    /// it, or of the bytes set since.
    pub fn data_size(&self, data: ItemRef<DataItem>) -> Option<usize> {
        match self.data_slot(data).ok()? {
            DataSlot::Owned(bytes) => Some(bytes.len()),
            DataSlot::Source(index) => self.source.as_ref()?.df.data_size(*index),
        }
    }

    /// Whether data item `a` of this map and `b` of `other` are known to be equal without
    /// inflating either: both unchanged from their files, files of one datafile version, and
    /// equal stored bytes. `false` says nothing (for the diff, to skip comparing pixels).
    pub fn same_stored_data(
        &self,
        a: ItemRef<DataItem>,
        other: &Map,
        b: ItemRef<DataItem>,
    ) -> bool {
        let stored = |map: &Map, data: ItemRef<DataItem>| match map.data_slot(data).ok()? {
            DataSlot::Source(index) => {
                let df = &map.source.as_ref()?.df;
                Some((df.version(), df.stored_data(*index)?))
            }
            DataSlot::Owned(_) => None,
        };
        match (stored(self, a), stored(other, b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// A data item read as a CString (bytes before the first NUL), with invalid UTF-8 replaced.
    pub fn text(&self, data: Ref<DataItem>) -> Option<String> {
        let bytes = self.data(data.get()?).ok()?;
        Some(String::from_utf8_lossy(cstring(&bytes)).into_owned())
    }

    /// Replaces a data item's bytes (uncompressed); an error for a reference of another map or
    /// from before an edit that moved items. Layers that read their content from it and are
    /// not decoded yet (in a lazy map) are decoded first, from the file, as an eager load would
    /// have.
    pub fn set_data(
        &mut self,
        data: ItemRef<DataItem>,
        bytes: impl Into<Bytes>,
    ) -> Result<(), Error> {
        let index = (self.index_of(data))
            .filter(|&index| index < self.data.len())
            .ok_or_else(|| Error::stale_ref(DataItem::KIND, data.index()))?;
        for layer in &self.layers {
            if layer.content_data() == Some(index as i32) {
                layer.decode();
            }
        }
        self.data[index] = DataSlot::Owned(bytes.into());
        Ok(())
    }

    /// The bytes of a data item, uncompressed, inflated once and kept: image and sound data.
    pub(crate) fn data_kept(&self, data: ItemRef<DataItem>) -> Result<Cow<'_, [u8]>, Error> {
        match &self.data[data.index()] {
            DataSlot::Owned(bytes) => Ok(Cow::Borrowed(bytes)),
            DataSlot::Source(index) => match &self.source {
                Some(source) => source.cached(*index).map(|bytes| Cow::Borrowed(&bytes[..])),
                None => Err(Error::new(
                    ErrorKind::Malformed,
                    "the map has no source file for its data",
                )),
            },
        }
    }

    /// Takes every data item still in the source file into the map (in parallel), so that
    /// the map no longer holds the file and every data item is compressed anew when written.
    /// Layers are decoded first; the data their content holds exactly (plain tiles, quads,
    /// sources) is taken from it rather than inflated again, and data already inflated (image
    /// and sound data that was read) is not inflated again either.
    pub fn detach_data(&mut self) -> Result<(), Error> {
        #[cfg(feature = "parallel")]
        use rayon::prelude::*;
        let Some(source) = self.source.clone() else {
            return Ok(());
        };
        self.decode_content(false);
        // Source data index -> the layer content that holds its bytes exactly.
        let mut held: std::collections::HashMap<usize, &Layer> = Default::default();
        for layer in &self.layers {
            // Only current sources hold their data's bytes; deprecated ones were upgraded.
            let current = !matches!(&layer.content, LayerContent::Sounds(s) if s.deprecated);
            let Some(raw) = layer.content_data().filter(|_| current) else {
                continue;
            };
            let slot = usize::try_from(raw).ok().and_then(|raw| self.data.get(raw));
            if let Some(DataSlot::Source(index)) = slot {
                held.entry(*index).or_insert(layer);
            }
        }
        #[cfg(feature = "parallel")]
        let slots = self.data.par_iter();
        #[cfg(not(feature = "parallel"))]
        let slots = self.data.iter();
        let result: Result<Vec<DataSlot>, Error> = slots
            .map(|slot| match slot {
                DataSlot::Source(index) => {
                    let size = source.df.data_size(*index);
                    let bytes = held
                        .get(index)
                        .and_then(|layer| layer.content_bytes())
                        .filter(|bytes| Some(bytes.len()) == size);
                    match bytes {
                        Some(bytes) => Ok(DataSlot::Owned(Bytes::from(bytes))),
                        None => source
                            .data(*index)
                            .map(|bytes| DataSlot::Owned(Bytes::from(bytes.into_owned()))),
                    }
                }
                owned => Ok(owned.clone()),
            })
            .collect();
        self.data = result?;
        self.source = None;
        for layer in &mut self.layers {
            layer.forget_source();
        }
        Ok(())
    }

    /// Adds a data item; returns its reference.
    pub fn add_data(&mut self, bytes: impl Into<Bytes>) -> ItemRef<DataItem> {
        self.data.push(DataSlot::Owned(bytes.into()));
        self.mint(self.data.len() - 1)
    }
}

impl Info {
    /// The author.
    pub fn author(&self, map: &Map) -> Option<String> {
        map.text(map.item_ref::<DataItem>(self.item.author))
    }

    /// The map's own version string.
    pub fn map_version(&self, map: &Map) -> Option<String> {
        map.text(map.item_ref::<DataItem>(self.item.map_version))
    }

    /// The credits.
    pub fn credits(&self, map: &Map) -> Option<String> {
        map.text(map.item_ref::<DataItem>(self.item.credits))
    }

    /// The license.
    pub fn license(&self, map: &Map) -> Option<String> {
        map.text(map.item_ref::<DataItem>(self.item.license))
    }

    /// DDNet's server settings (commands run when the map loads), read from their data item
    /// now. An error when the data item does not load, or when the list holds more strings or
    /// bytes than the map's [`Limits`] allow
    /// ([`max_strings`](crate::Limits::max_strings),
    /// [`max_string_bytes`](crate::Limits::max_string_bytes)); no settings is an empty list.
    pub fn settings<'m>(&self, map: &'m Map) -> Result<Settings<'m>, Error> {
        let Some(data) = self
            .item
            .settings
            .and_then(|raw| map.item_ref::<DataItem>(raw).get())
        else {
            return Ok(Settings::default());
        };
        let limits = map.limits();
        if let Some(size) = map.data_size(data) {
            limits.check_string_bytes("the settings", size)?;
        }
        let data = map.data(data)?;
        let len = settings_count(&data);
        limits.check_strings("the settings", len)?;
        Ok(Settings { data, len })
    }
}

/// DDNet's server settings of a map ([`Info::settings`]): NUL-separated commands, kept as the
/// bytes of their data item and split as they are read, so that a list costs its bytes and
/// nothing per string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings<'m> {
    data: Cow<'m, [u8]>,
    len: usize,
}

impl Settings<'_> {
    /// How many settings there are.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Each setting's bytes, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + Clone {
        settings(&self.data)
    }

    /// Each setting as text, invalid UTF-8 replaced.
    pub fn strings(&self) -> impl Iterator<Item = Cow<'_, str>> + Clone {
        self.iter().map(String::from_utf8_lossy)
    }

    /// The settings as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.strings().map(Cow::into_owned).collect()
    }
}

/// An image's pixels, as found in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pixels<'a> {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// 3 (RGB) or 4 (RGBA) bytes per pixel.
    pub bytes_per_pixel: usize,
    /// Row by row, exactly `width * height * bytes_per_pixel` bytes.
    pub bytes: Cow<'a, [u8]>,
}

impl Image {
    /// The name (the file name in `mapres` for external images).
    pub fn name(&self, map: &Map) -> Option<String> {
        map.text(map.item_ref::<DataItem>(self.item.name))
    }

    /// Whether the image is loaded from the client's `mapres` by name.
    pub fn is_external(&self) -> bool {
        self.item.external != 0
    }

    /// The embedded pixel data reference.
    pub fn data(&self, map: &Map) -> Ref<DataItem> {
        map.item_ref::<DataItem>(self.item.data)
    }

    /// Bytes per pixel of embedded data of `len` bytes: the format of a version-2 image, else 4,
    /// or 3 when the data holds exactly RGB pixels (a real version-1 map does;
    /// docs/format-notes.md, "Images").
    pub fn bytes_per_pixel(&self, len: usize) -> Option<usize> {
        let pixels =
            (self.item.width.max(0) as usize).checked_mul(self.item.height.max(0) as usize)?;
        match self.item.format {
            Some(ImageFormat::RGB) => Some(3),
            Some(ImageFormat::RGBA) => Some(4),
            Some(ImageFormat(_)) => None,
            None if pixels.checked_mul(3) == Some(len) && pixels.checked_mul(4) != Some(len) => {
                Some(3)
            }
            None => Some(4),
        }
    }

    /// The embedded pixels as stored (RGB or RGBA), inflated on first access and kept; an
    /// error for external images or data too small.
    pub fn pixels<'m>(&self, map: &'m Map) -> Result<Pixels<'m>, Error> {
        if self.is_external() {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "the image is external: its pixels are the client's mapres file of its name",
            ));
        }
        let data = self
            .data(map)
            .get()
            .ok_or_else(|| Error::new(ErrorKind::Malformed, "the image has no embedded data"))?;
        let bytes = map.data_kept(data)?;
        let width = self.item.width.max(0) as usize;
        let height = self.item.height.max(0) as usize;
        let bytes_per_pixel = self.bytes_per_pixel(bytes.len()).ok_or_else(|| {
            Error::new(
                ErrorKind::Unsupported,
                format!("image format {:?}", self.item.format),
            )
        })?;
        let need = width
            .checked_mul(height)
            .and_then(|n| n.checked_mul(bytes_per_pixel))
            .ok_or_else(|| Error::limit("image dimensions overflow"))?;
        if bytes.len() < need {
            return Err(Error::malformed(format!(
                "image data has {} bytes, {width}x{height} pixels need {need}",
                bytes.len()
            )));
        }
        let bytes = match bytes {
            Cow::Borrowed(b) => Cow::Borrowed(&b[..need]),
            Cow::Owned(mut v) => {
                v.truncate(need);
                Cow::Owned(v)
            }
        };
        Ok(Pixels {
            width,
            height,
            bytes_per_pixel,
            bytes,
        })
    }
}

impl Pixels<'_> {
    /// The pixels as RGBA8, 4 bytes per pixel: borrowed when they are stored so, RGB pixels
    /// widened with an opaque alpha.
    pub fn into_rgba8(self) -> Pixels<'static> {
        let bytes = match (self.bytes_per_pixel, self.bytes) {
            (4, bytes) => Cow::Owned(bytes.into_owned()),
            (_, bytes) => Cow::Owned(
                bytes
                    .chunks_exact(3)
                    .flat_map(|p| [p[0], p[1], p[2], 255])
                    .collect(),
            ),
        };
        Pixels {
            width: self.width,
            height: self.height,
            bytes_per_pixel: 4,
            bytes,
        }
    }
}

impl Image {
    /// The embedded pixels as RGBA8 (4 bytes per pixel) whatever the stored format: borrowed
    /// from the map for RGBA images, RGB ones widened with an opaque alpha.
    ///
    /// ```
    /// let map = twcodec::Map::parse(&twcodec_testkit::sample::datafile())?;
    /// for image in map.images().iter().filter(|image| !image.is_external()) {
    ///     let rgba = image.rgba8(&map)?;
    ///     assert_eq!(rgba.bytes.len(), rgba.width * rgba.height * 4);
    /// }
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn rgba8<'m>(&self, map: &'m Map) -> Result<Pixels<'m>, Error> {
        let pixels = self.pixels(map)?;
        if pixels.bytes_per_pixel == 4 {
            return Ok(pixels);
        }
        Ok(pixels.into_rgba8())
    }
}

impl Envelope {
    /// The name.
    pub fn name(&self) -> String {
        self.item
            .name
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    }

    /// The envelope's points (empty when its range lies outside the points).
    pub fn points<'m>(&self, map: &'m Map) -> &'m [EnvPoint] {
        let Some(points) = &map.points else {
            return &[];
        };
        self.range(points.points.len())
            .map_or(&[], |range| &points.points[range])
    }

    /// The bezier tangents of the envelope's points, when the map has them.
    pub fn bezier<'m>(&self, map: &'m Map) -> Option<&'m [EnvPointBezier]> {
        let points = map.points.as_ref()?;
        let bezier = points.bezier.as_ref()?;
        self.range(bezier.len()).map(|range| &bezier[range])
    }

    /// The envelope's point range, if it lies inside `len` points.
    pub fn range(&self, len: usize) -> Option<std::ops::Range<usize>> {
        let start = usize::try_from(self.item.start_point).ok()?;
        let end = start.checked_add(usize::try_from(self.item.num_points).ok()?)?;
        (end <= len).then_some(start..end)
    }
}

impl EnvelopePoints {
    /// Every point.
    pub fn points(&self) -> &[EnvPoint] {
        &self.points
    }

    /// Bezier tangents per point, when the map has them.
    pub fn bezier(&self) -> Option<&[EnvPointBezier]> {
        self.bezier.as_deref()
    }

    /// Whether the points are 22 ints each, tangents inside (Teeworlds 0.7's form, which any
    /// envelope of version 3 asks for), rather than 6.
    pub fn wide(&self) -> bool {
        self.wide
    }
}

impl Group {
    /// The name.
    pub fn name(&self) -> String {
        self.item
            .name
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    }

    /// The group's layers: its range, clamped to the layers that exist.
    pub fn layers(&self, map: &Map) -> impl Iterator<Item = ItemRef<Layer>> {
        let stamp = map.stamp.of::<Layer>();
        (self.layer_range(map.layers.len())).map(move |index| ItemRef::new(index, stamp))
    }

    /// The group's range of layer indices, clamped to `layers` layers.
    pub(crate) fn layer_range(&self, layers: usize) -> std::ops::Range<usize> {
        let start = (self.item.start_layer.max(0) as usize).min(layers);
        let end = start
            .saturating_add(self.item.num_layers.max(0) as usize)
            .min(layers);
        start..end
    }
}

impl Sound {
    /// The name.
    pub fn name(&self, map: &Map) -> Option<String> {
        map.text(map.item_ref::<DataItem>(self.item.name))
    }

    /// The opus data, inflated on first access and kept.
    pub fn data<'m>(&self, map: &'m Map) -> Result<Cow<'m, [u8]>, Error> {
        let data = map
            .item_ref::<DataItem>(self.item.data)
            .get()
            .ok_or_else(|| Error::new(ErrorKind::Malformed, "the sound has no data"))?;
        map.data_kept(data)
    }
}

impl Automapper {
    /// The item's id.
    pub fn id(&self) -> u16 {
        self.id
    }

    /// The item as stored.
    pub fn item(&self) -> &AutomapperItem {
        &self.item
    }

    /// The layer it configures, in `map` (the map holding it).
    pub fn layer(&self, map: &Map) -> Option<ItemRef<Layer>> {
        self.layer
            .filter(|&index| index < map.layers.len())
            .map(|index| map.mint(index))
    }
}

/// References of a quad (an extension of the schema's [`Quad`]).
pub trait QuadRefs {
    /// The position envelope.
    fn position_envelope(&self, map: &Map) -> Ref<Envelope>;
    /// The color envelope.
    fn color_envelope(&self, map: &Map) -> Ref<Envelope>;
}

impl QuadRefs for Quad {
    fn position_envelope(&self, map: &Map) -> Ref<Envelope> {
        map.item_ref::<Envelope>(self.position_envelope)
    }

    fn color_envelope(&self, map: &Map) -> Ref<Envelope> {
        map.item_ref::<Envelope>(self.color_envelope)
    }
}

/// References of a sound source (an extension of the schema's [`SoundSource`]).
pub trait SourceRefs {
    /// The position envelope.
    fn position_envelope(&self, map: &Map) -> Ref<Envelope>;
    /// The sound (volume) envelope.
    fn sound_envelope(&self, map: &Map) -> Ref<Envelope>;
}

impl SourceRefs for SoundSource {
    fn position_envelope(&self, map: &Map) -> Ref<Envelope> {
        map.item_ref::<Envelope>(self.position_envelope)
    }

    fn sound_envelope(&self, map: &Map) -> Ref<Envelope> {
        map.item_ref::<Envelope>(self.sound_envelope)
    }
}
