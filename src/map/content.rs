//! Layer content (tiles, quads, sound sources) decoded from its data item on first access: all
//! of it at load for an eager map, each layer when it is first asked for in a lazy one
//! ([`Map::parse_with`](super::Map::parse_with) with `Decode::Lazy`). Either way one function
//! per kind of content decodes it and reports its problems, so a lazy map reports what an
//! eager one does.
//!
//! Content is decoded at most once, whichever thread asks first ([`OnceLock`]); the others wait
//! for it. What a layer needs to decode its content (the datafile, where the layer came from,
//! the envelopes as loaded) is shared by every layer of a map in one [`Source`].

use std::fmt;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use twcodec_schema::map::cast_ints;
use twcodec_schema::map::envelope::EnvelopeKind;
use twcodec_schema::map::layer::{self as item, PhysicsKind, TilemapLayer};
use twcodec_schema::map::quad::Quad;
use twcodec_schema::map::sound::{DeprecatedSoundSource, SoundSource};
use twcodec_schema::map::tile::{
    cast_tiles, expand_skip, grid_len, OldSpeedup, OldSwitch2, OldSwitch3, Speedup, Switch, Tile,
    TileKind,
};

use super::grid::{Grid, TileLayout};
use super::problem::{ItemPlace, Problem, Problems};
use crate::datafile::Datafile;
use crate::error::Error;

/// What the layers of a map read from its file need: the datafile, a cache of the data items
/// images and sounds have asked for, where each layer came from, and the envelopes' kinds as
/// loaded (to check the envelopes quads and sources use).
pub(crate) struct Source {
    pub(crate) df: Datafile,
    /// Inflated data items, by index in `df`: filled for image and sound data when it is first
    /// asked for, or by [`Map::decode_all`](super::Map::decode_all).
    cache: Vec<OnceLock<Bytes>>,
    /// Each layer's place at load, by its index at load (set once the resolver knows them).
    places: OnceLock<Vec<Option<ItemPlace>>>,
    envelope_kinds: OnceLock<Vec<EnvelopeKind>>,
}

impl Source {
    pub(crate) fn new(df: Datafile) -> Source {
        let cache = (0..df.data_count()).map(|_| OnceLock::new()).collect();
        Source {
            df,
            cache,
            places: OnceLock::new(),
            envelope_kinds: OnceLock::new(),
        }
    }

    /// Sets what the layers' content checks need: each layer's place and the envelopes'
    /// kinds, as loaded (once; later calls change nothing).
    pub(crate) fn set_layer_context(
        &self,
        places: Vec<Option<ItemPlace>>,
        envelope_kinds: Vec<EnvelopeKind>,
    ) {
        let _ = self.places.set(places);
        let _ = self.envelope_kinds.set(envelope_kinds);
    }

    fn place(&self, layer: usize) -> Option<ItemPlace> {
        self.places.get()?.get(layer).copied().flatten()
    }

    pub(crate) fn envelope_kinds(&self) -> &[EnvelopeKind] {
        self.envelope_kinds.get().map_or(&[], Vec::as_slice)
    }

    /// Data item `index`, inflated: from the cache when it is there, else now.
    pub(crate) fn data(&self, index: usize) -> Result<std::borrow::Cow<'_, [u8]>, Error> {
        match self.cache.get(index).and_then(OnceLock::get) {
            Some(bytes) => Ok(std::borrow::Cow::Borrowed(bytes)),
            None => self.df.data(index),
        }
    }

    /// Data item `index`, inflated once and kept.
    pub(crate) fn cached(&self, index: usize) -> Result<&Bytes, Error> {
        let slot = self.cache.get(index);
        if let Some(bytes) = slot.and_then(OnceLock::get) {
            return Ok(bytes);
        }
        let bytes = Bytes::from(self.df.data(index)?.into_owned());
        match slot {
            // Another thread may have set it meanwhile: the bytes are the same.
            Some(slot) => Ok(slot.get_or_init(|| bytes)),
            None => Err(Error::malformed(format!(
                "data index {index} does not exist (the file has {} data items)",
                self.df.data_count()
            ))),
        }
    }

    /// Whether data item `index` is in the cache.
    pub(crate) fn is_cached(&self, index: usize) -> bool {
        self.cache
            .get(index)
            .is_some_and(|slot| slot.get().is_some())
    }
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Source")
            .field("df", &self.df)
            .finish_non_exhaustive()
    }
}

/// Content and the problems decoding it found.
#[derive(Debug, Clone)]
pub(crate) struct Decoded<V> {
    pub(crate) value: V,
    pub(crate) problems: Vec<Problem>,
}

/// Content decoded on first access: set when the layer was made with it, else decoded from the
/// map's [`Source`] as the layer at index `layer` at load.
pub(crate) struct Lazy<V> {
    cell: OnceLock<Decoded<V>>,
    source: Option<(Arc<Source>, usize)>,
}

impl<V> Lazy<V> {
    /// Content there from the start (a layer made in code).
    #[allow(dead_code)] // For the layer constructors of map editing.
    pub(crate) fn ready(value: V) -> Lazy<V> {
        Lazy {
            cell: OnceLock::from(Decoded {
                value,
                problems: Vec::new(),
            }),
            source: None,
        }
    }

    /// Content decoded from `source` on first access, for the layer at index `layer` at load.
    pub(crate) fn pending(source: Arc<Source>, layer: usize) -> Lazy<V> {
        Lazy {
            cell: OnceLock::new(),
            source: Some((source, layer)),
        }
    }

    /// The content, decoded now if it was not yet (`decode` gets the source and the layer's
    /// place; a lazy value always has a source, so `None` is not reached in practice and gives
    /// the empty content).
    pub(crate) fn get(&self, decode: impl FnOnce(&Source, Option<ItemPlace>) -> Decoded<V>) -> &V
    where
        V: Default,
    {
        &self
            .cell
            .get_or_init(|| match &self.source {
                Some((source, layer)) => decode(source, source.place(*layer)),
                None => Decoded {
                    value: V::default(),
                    problems: Vec::new(),
                },
            })
            .value
    }

    /// The content to change it, decoded now if it was not yet (`None` is not reached in
    /// practice: the cell is set just before).
    pub(crate) fn get_mut(
        &mut self,
        decode: impl FnOnce(&Source, Option<ItemPlace>) -> Decoded<V>,
    ) -> Option<&mut V>
    where
        V: Default,
    {
        self.get(decode);
        self.cell.get_mut().map(|decoded| &mut decoded.value)
    }

    /// The content, if it has been decoded.
    pub(crate) fn loaded(&self) -> Option<&V> {
        self.cell.get().map(|decoded| &decoded.value)
    }

    /// The problems decoding found (none before it is decoded).
    pub(crate) fn problems(&self) -> &[Problem] {
        self.cell
            .get()
            .map_or(&[][..], |decoded| &decoded.problems[..])
    }

    /// Whether the content is decoded.
    pub(crate) fn is_loaded(&self) -> bool {
        self.cell.get().is_some()
    }

    /// Lets go of the source once the content is decoded (see `Map::detach_data`).
    pub(crate) fn forget_source(&mut self) {
        if self.is_loaded() {
            self.source = None;
        }
    }
}

impl<V: Clone> Clone for Lazy<V> {
    fn clone(&self) -> Self {
        Lazy {
            cell: self.cell.clone(),
            source: self.source.clone(),
        }
    }
}

impl<V: fmt::Debug> fmt::Debug for Lazy<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.cell.get() {
            Some(decoded) => decoded.value.fmt(f),
            None => f.write_str("<not decoded yet>"),
        }
    }
}

/// A tile layer's decoded tiles.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tiles<T> {
    pub(crate) grid: Option<Grid<T>>,
    pub(crate) layout: TileLayout,
}

impl<T> Default for Tiles<T> {
    fn default() -> Self {
        Tiles {
            grid: None,
            layout: TileLayout::Plain,
        }
    }
}

/// The kind a tilemap is read as: its physics flag, or a tiles layer when it sets several or
/// its item lacks the flag's data index.
pub(crate) fn effective_kind(item: &TilemapLayer) -> PhysicsKind {
    match item.flags.kind() {
        PhysicsKind::Several => PhysicsKind::Tiles,
        _ if item.tile_data().is_none() => PhysicsKind::Tiles,
        kind => kind,
    }
}

/// The field holding a tilemap's tile data, and its value.
pub(crate) fn tile_data_field(item: &TilemapLayer) -> (&'static str, i32) {
    match effective_kind(item) {
        PhysicsKind::Tiles | PhysicsKind::Game | PhysicsKind::Several => ("data", item.data),
        kind => {
            let field = match kind {
                PhysicsKind::Tele => "physics.tele",
                PhysicsKind::Speedup => "physics.speedup",
                PhysicsKind::Front => "physics.front",
                PhysicsKind::Switch => "physics.switch",
                _ => "physics.tune",
            };
            (field, item.tile_data().unwrap_or(item.data))
        }
    }
}

/// Inflates data item `raw` for decoding; `None` for a reference that names no data item
/// (checked at load) or data that does not load (a problem says why).
fn inflate(
    source: &Source,
    raw: i32,
    field: &'static str,
    place: Option<ItemPlace>,
    problems: &mut Problems,
) -> Option<Vec<u8>> {
    let index = usize::try_from(raw)
        .ok()
        .filter(|&index| index < source.df.data_count())?;
    match source.data(index) {
        Ok(bytes) => Some(bytes.into_owned()),
        Err(error) => {
            problems.error(place, Some(field), format!("data does not load: {error}"));
            None
        }
    }
}

/// Decodes a tile layer's data as tiles of one type: plain, or in the older layouts the type
/// has; the bytes DDNet wants zero are checked where DDNet checks them (tiles, game and front
/// tiles, skip-compressed entries, speedup tiles).
fn decode_as<T: TileKind>(decoder: &mut TileDecoder<'_>, item: &TilemapLayer) -> Tiles<T> {
    use std::any::Any;
    let mut out: Option<Tiles<T>> = None;
    let slot: &mut dyn Any = &mut out;
    if let Some(slot) = slot.downcast_mut::<Option<Tiles<Tile>>>() {
        let kind = effective_kind(item);
        let skip = item.uses_tile_skip() && matches!(kind, PhysicsKind::Tiles | PhysicsKind::Game);
        if skip {
            decoder.check_skip_entries(kind == PhysicsKind::Game);
        }
        let tiles = decoder.tiles(skip);
        match kind {
            _ if item.uses_tile_skip() => {}
            PhysicsKind::Game => decoder.check_game_tiles(tiles.grid.as_ref()),
            PhysicsKind::Tiles | PhysicsKind::Front => decoder.check_plain_tiles(&tiles),
            _ => {}
        }
        *slot = Some(tiles);
    } else if let Some(slot) = slot.downcast_mut::<Option<Tiles<Speedup>>>() {
        *slot = Some(decoder.speedup());
    } else if let Some(slot) = slot.downcast_mut::<Option<Tiles<Switch>>>() {
        *slot = Some(decoder.switch());
    }
    // Tele, tune, and any other tile type: plain.
    out.unwrap_or_else(|| decoder.plain())
}

/// Decodes the tiles of a tilemap.
pub(crate) fn decode_tiles<T: TileKind>(
    source: &Source,
    place: Option<ItemPlace>,
    item: &TilemapLayer,
) -> Decoded<Tiles<T>> {
    let mut problems = Problems::default();
    let (field, raw) = tile_data_field(item);
    let bytes = inflate(source, raw, field, place, &mut problems);
    let mut decoder = TileDecoder {
        problems: &mut problems,
        place,
        field,
        width: item.width.max(0) as usize,
        height: item.height.max(0) as usize,
        count: grid_len(item.width, item.height).ok(),
        bytes,
    };
    let value = decode_as::<T>(&mut decoder, item);
    Decoded {
        value,
        problems: problems.list,
    }
}

/// Decodes the quads of a quads layer and checks the envelopes they use.
pub(crate) fn decode_quads(
    source: &Source,
    place: Option<ItemPlace>,
    item: &item::QuadsLayer,
) -> Decoded<Option<Vec<Quad>>> {
    let mut problems = Problems::default();
    let quads = inflate(source, item.data, "data", place, &mut problems)
        .and_then(|bytes| records::<Quad>(&bytes, item.num_quads, "quads", place, &mut problems));
    let list = quads.as_deref().unwrap_or_default();
    check_envelopes(
        &mut problems,
        source.envelope_kinds(),
        place,
        list,
        [
            (
                |q: &Quad| q.position_envelope,
                EnvelopeKind::Position,
                "quad.position_envelope",
            ),
            (
                |q: &Quad| q.color_envelope,
                EnvelopeKind::Color,
                "quad.color_envelope",
            ),
        ],
    );
    Decoded {
        value: quads,
        problems: problems.list,
    }
}

/// Decodes the sources of a sounds layer (upgrading those of the deprecated layer type) and
/// checks the envelopes they use.
pub(crate) fn decode_sources(
    source: &Source,
    place: Option<ItemPlace>,
    item: &item::SoundsLayer,
    deprecated: bool,
) -> Decoded<Option<Vec<SoundSource>>> {
    let mut problems = Problems::default();
    let count = item.num_sources;
    let sources = inflate(source, item.data, "data", place, &mut problems).and_then(|bytes| {
        if deprecated {
            records::<DeprecatedSoundSource>(&bytes, count, "sources", place, &mut problems)
                .map(|old| old.iter().map(DeprecatedSoundSource::upgrade).collect())
        } else {
            records::<SoundSource>(&bytes, count, "sources", place, &mut problems)
        }
    });
    let list = sources.as_deref().unwrap_or_default();
    check_envelopes(
        &mut problems,
        source.envelope_kinds(),
        place,
        list,
        [
            (
                |s: &SoundSource| s.position_envelope,
                EnvelopeKind::Position,
                "source.position_envelope",
            ),
            (
                |s: &SoundSource| s.sound_envelope,
                EnvelopeKind::Sound,
                "source.sound_envelope",
            ),
        ],
    );
    Decoded {
        value: sources,
        problems: problems.list,
    }
}

/// The envelopes a layer's quads or sources use, one field at a time: the field's value of
/// each record, the kind of envelope it should name, and the field's name.
type EnvelopeField<T> = (fn(&T) -> i32, EnvelopeKind, &'static str);

fn check_envelopes<T, const N: usize>(
    problems: &mut Problems,
    kinds: &[EnvelopeKind],
    place: Option<ItemPlace>,
    records: &[T],
    fields: [EnvelopeField<T>; N],
) {
    for (value, kind, field) in fields {
        envelope_uses(
            problems,
            kinds,
            records.iter().map(value),
            kind,
            field,
            place,
        );
    }
}

/// `count` records of type `T` from the start of `bytes`.
fn records<T: bytemuck::Pod>(
    bytes: &[u8],
    count: i32,
    what: &str,
    place: Option<ItemPlace>,
    problems: &mut Problems,
) -> Option<Vec<T>> {
    let size = std::mem::size_of::<T>();
    let need = usize::try_from(count)
        .ok()
        .and_then(|n| n.checked_mul(size));
    match need.and_then(|need| bytes.get(..need)) {
        Some(bytes) => Some(cast_ints(bytes)),
        None => {
            problems.error(
                place,
                Some("data"),
                format!(
                    "holds {} bytes, too few for {count} {what} of {size} bytes",
                    bytes.len()
                ),
            );
            None
        }
    }
}

/// References from a layer (its tilemap, or its quads or sources) to envelopes that should
/// animate `kind` channels, checked against the envelopes' kinds: one problem per field and
/// value, with how many use it.
pub(crate) fn envelope_uses(
    problems: &mut Problems,
    kinds: &[EnvelopeKind],
    raws: impl Iterator<Item = i32>,
    kind: EnvelopeKind,
    field: &'static str,
    place: Option<ItemPlace>,
) {
    let mut counts: std::collections::BTreeMap<i32, usize> = Default::default();
    for raw in raws {
        *counts.entry(raw).or_default() += 1;
    }
    let envelopes = kinds.len();
    for (raw, count) in counts {
        let uses = if count == 1 {
            String::new()
        } else {
            format!(" in {count} places")
        };
        // As `Ref` reads it: negative is none, past the envelopes is dangling.
        match usize::try_from(raw).map(|index| kinds.get(index)) {
            Ok(None) => problems.error(
                place,
                Some(field),
                format!("= {raw}{uses} points past the {envelopes} envelopes"),
            ),
            Err(_) if raw != -1 => problems.warning(
                place,
                Some(field),
                format!("= {raw}{uses}: negative, read as none (as DDNet does)"),
            ),
            Ok(Some(&found)) if found != kind => problems.warning(
                place,
                Some(field),
                format!("= {raw}{uses}: a {found:?} envelope where a {kind:?} one belongs"),
            ),
            _ => {}
        }
    }
}

/// Decodes tile data into a layer's grid, reporting what does not fit.
pub(crate) struct TileDecoder<'p> {
    problems: &'p mut Problems,
    place: Option<ItemPlace>,
    field: &'static str,
    width: usize,
    height: usize,
    count: Option<usize>,
    bytes: Option<Vec<u8>>,
}

impl TileDecoder<'_> {
    fn wrong_size(&mut self, name: &str, size: usize) {
        let (Some(bytes), Some(count)) = (&self.bytes, self.count) else {
            return;
        };
        self.problems.error(
            self.place,
            Some(self.field),
            format!(
                "holds {} bytes, {}x{} {name} tiles of {size} bytes need {}",
                bytes.len(),
                self.width,
                self.height,
                count.saturating_mul(size)
            ),
        );
    }

    /// Tiles of exactly `T`'s size: the inflated bytes themselves, cast without copying.
    fn cast<T: TileKind>(&mut self) -> Option<Vec<T>> {
        let fits = |bytes: &Vec<u8>, count: usize| {
            count.checked_mul(std::mem::size_of::<T>()) == Some(bytes.len())
        };
        if !fits(self.bytes.as_ref()?, self.count?) {
            return None;
        }
        let bytes = self.bytes.take()?;
        match bytemuck::allocation::try_cast_vec::<u8, T>(bytes) {
            Ok(tiles) => Some(tiles),
            // A capacity that is not a whole number of tiles: copy.
            Err((_, bytes)) => cast_tiles::<T>(&bytes).ok().map(<[T]>::to_vec),
        }
    }

    fn grid<T: TileKind>(&self, tiles: Vec<T>, layout: TileLayout) -> Tiles<T> {
        Tiles {
            grid: Grid::new(self.width, self.height, tiles),
            layout,
        }
    }

    fn plain<T: TileKind>(&mut self) -> Tiles<T> {
        match self.cast::<T>() {
            Some(tiles) => self.grid(tiles, TileLayout::Plain),
            None => {
                self.wrong_size(T::NAME, std::mem::size_of::<T>());
                Tiles::default()
            }
        }
    }

    fn tiles(&mut self, skip: bool) -> Tiles<Tile> {
        if !skip {
            return self.plain();
        }
        let expanded = match (self.bytes.as_deref(), self.count) {
            (Some(bytes), Some(count)) => match cast_tiles::<Tile>(bytes) {
                Ok(compressed) => expand_skip(compressed, count).map_err(|e| e.to_string()),
                Err(error) => Err(error.to_string()),
            },
            _ => Err(String::new()),
        };
        match expanded {
            Ok(tiles) => self.grid(tiles, TileLayout::Skip),
            Err(message) => {
                if !message.is_empty() {
                    self.problems.error(self.place, Some(self.field), message);
                }
                Tiles {
                    grid: None,
                    layout: TileLayout::Skip,
                }
            }
        }
    }

    /// DDNet's `CMap::Load` refuses game tiles with the bytes only 0.7 compression uses.
    fn check_game_tiles(&mut self, grid: Option<&Grid<Tile>>) {
        let odd = grid
            .and_then(|grid| (grid.tiles().iter()).position(|t| t.skip != 0 || t.reserved != 0));
        if let Some(at) = odd {
            self.problems.error(
                self.place,
                Some("data"),
                format!(
                    "tile {at} has a nonzero skip or reserved byte, which DDNet refuses in the \
                     game layer of an uncompressed map"
                ),
            );
        }
    }

    /// DDNet drops the tiles of a tiles or front layer with a nonzero skip or reserved byte
    /// outside skip compression, though it loads the map (the game layer's are an error,
    /// [`TileDecoder::check_game_tiles`]).
    fn check_plain_tiles(&mut self, tiles: &Tiles<Tile>) {
        let odd = (tiles.grid.as_ref())
            .and_then(|grid| (grid.tiles().iter()).position(|t| t.skip != 0 || t.reserved != 0));
        if let Some(at) = odd {
            self.problems.warning(
                self.place,
                Some(self.field),
                format!(
                    "tile {at} has a nonzero skip or reserved byte, which DDNet allows in no \
                     uncompressed layer: it loads the map without this layer's tiles"
                ),
            );
        }
    }

    /// DDNet refuses skip-compressed entries with a nonzero reserved byte: in the game layer
    /// it refuses the map (an error), in a tiles layer it drops the layer's tiles (a warning).
    fn check_skip_entries(&mut self, game: bool) {
        let entries = self
            .bytes
            .as_deref()
            .and_then(|b| cast_tiles::<Tile>(b).ok());
        let Some(at) = entries.and_then(|e| e.iter().position(|t| t.reserved != 0)) else {
            return;
        };
        let message = format!("skip-compressed entry {at} has a nonzero reserved byte");
        if game {
            let message = format!("{message}, which DDNet refuses in the game layer");
            self.problems.error(self.place, Some(self.field), message);
        } else {
            let message = format!(
                "{message}, which DDNet refuses: it loads the map without this layer's tiles"
            );
            self.problems.warning(self.place, Some(self.field), message);
        }
    }

    fn old_layout(&mut self, what: &str) {
        self.problems.warning(
            self.place,
            Some(self.field),
            format!("holds {what} of old DDRace maps; read as current ones (DDNet refuses them)"),
        );
    }

    fn speedup(&mut self) -> Tiles<Speedup> {
        if let Some(tiles) = self.cast::<Speedup>() {
            if let Some(at) = tiles.iter().position(|t| t.reserved != 0) {
                self.problems.warning(
                    self.place,
                    Some(self.field),
                    format!(
                        "tile {at} has a nonzero reserved byte, which DDNet refuses in speedup \
                         tiles: it loads the map without this layer's tiles"
                    ),
                );
            }
            return self.grid(tiles, TileLayout::Plain);
        }
        if let Some(old) = self.cast::<OldSpeedup>() {
            self.old_layout("4-byte speedup tiles");
            let tiles = old.iter().map(OldSpeedup::upgrade).collect();
            return self.grid(tiles, TileLayout::OldSpeedup);
        }
        self.wrong_size("Speedup", 6);
        Tiles::default()
    }

    fn switch(&mut self) -> Tiles<Switch> {
        if let Some(tiles) = self.cast::<Switch>() {
            return self.grid(tiles, TileLayout::Plain);
        }
        if let Some(old) = self.cast::<OldSwitch2>() {
            self.old_layout("2-byte switch tiles");
            let tiles = old.iter().map(OldSwitch2::upgrade).collect();
            return self.grid(tiles, TileLayout::OldSwitch2);
        }
        if let Some(old) = self.cast::<OldSwitch3>() {
            self.old_layout("3-byte switch tiles");
            let tiles = old.iter().map(OldSwitch3::upgrade).collect();
            return self.grid(tiles, TileLayout::OldSwitch3);
        }
        self.wrong_size("Switch", 4);
        Tiles::default()
    }
}
