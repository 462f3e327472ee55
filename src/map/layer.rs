//! Layers of the map graph: typed by what they are (tiles, game, front, tele, speedup, switch,
//! tune, quads, sounds, unknown), with their decoded content.

use twcodec_schema::map::layer::{self as item, LayerHeader, TilemapLayer};
use twcodec_schema::map::quad::Quad;
use twcodec_schema::map::sound::SoundSource;
use twcodec_schema::map::tile::{Speedup, Switch, Tele, Tile, TileKind, Tune};

use super::content::{self, Lazy, Tiles};
use super::grid::{Grid, TileLayout};
use super::problem::Problem;
use super::{Envelope, Image, Map, Ref, Sound};

/// Matches a layer's content: `$t => $tiles` for a tile layer of any kind (`$t` is its
/// `TilesLayer<T>`, of whichever tile type), the remaining arms for the other kinds.
macro_rules! on_tiles {
    ($content:expr, $t:ident => $tiles:expr, $($rest:tt)*) => {
        match $content {
            LayerContent::Tiles($t) | LayerContent::Game($t) | LayerContent::Front($t) => $tiles,
            LayerContent::Tele($t) => $tiles,
            LayerContent::Speedup($t) => $tiles,
            LayerContent::Switch($t) => $tiles,
            LayerContent::Tune($t) => $tiles,
            $($rest)*
        }
    };
}

/// A layer (map.md, "Layers").
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub(crate) id: u16,
    pub(crate) header: LayerHeader,
    pub(crate) content: LayerContent,
    /// The ints of an item too short for its layout, written back as they are.
    pub(crate) verbatim: Option<Vec<i32>>,
}

/// What a layer is, with its content.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum LayerContent {
    /// A tiles layer, drawn with an image.
    Tiles(TilesLayer<Tile>),
    /// The game layer.
    Game(TilesLayer<Tile>),
    /// DDNet's front layer.
    Front(TilesLayer<Tile>),
    /// DDNet's tele layer.
    Tele(TilesLayer<Tele>),
    /// DDNet's speedup layer.
    Speedup(TilesLayer<Speedup>),
    /// DDNet's switch layer.
    Switch(TilesLayer<Switch>),
    /// DDNet's tune layer.
    Tune(TilesLayer<Tune>),
    /// Quads.
    Quads(QuadsLayer),
    /// Sound sources (DDNet).
    Sounds(SoundsLayer),
    /// A layer type this library does not know: the ints after the header.
    Unknown(Vec<i32>),
}

impl Layer {
    /// A layer made by an edit (module `edit`), with content that is written anew.
    pub(crate) fn new(id: u16, header: LayerHeader, content: LayerContent) -> Layer {
        Layer {
            id,
            header,
            content,
            verbatim: None,
        }
    }

    /// The item's id.
    pub fn id(&self) -> u16 {
        self.id
    }

    /// The three ints every layer starts with.
    pub fn header(&self) -> &LayerHeader {
        &self.header
    }

    /// What the layer is.
    pub fn content(&self) -> &LayerContent {
        &self.content
    }

    /// What the layer is, to change its tiles, quads or sources.
    pub fn content_mut(&mut self) -> &mut LayerContent {
        &mut self.content
    }

    /// Whether the layer's content (tiles, quads or sources) is decoded: always in a map loaded
    /// eagerly, after first access in a lazy one.
    pub fn is_decoded(&self) -> bool {
        on_tiles!(&self.content, t => t.tiles.is_loaded(),
            LayerContent::Quads(q) => q.quads.is_loaded(),
            LayerContent::Sounds(s) => s.sources.is_loaded(),
            LayerContent::Unknown(_) => true,
        )
    }

    /// Whether the content loads (tiles, quads or sources; never for an unknown layer type),
    /// decoding it in a lazy map.
    pub(crate) fn content_loads(&self) -> bool {
        on_tiles!(&self.content, t => t.grid().is_some(),
            LayerContent::Quads(q) => q.quads().is_some(),
            LayerContent::Sounds(s) => s.sources().is_some(),
            LayerContent::Unknown(_) => false,
        )
    }

    /// Decodes the layer's content now if it is not yet.
    pub fn decode(&self) {
        on_tiles!(&self.content, t => {
                t.grid();
            },
            LayerContent::Quads(q) => {
                q.quads();
            }
            LayerContent::Sounds(s) => {
                s.sources();
            }
            LayerContent::Unknown(_) => {}
        )
    }

    /// The problems decoding the content found (none before it is decoded).
    pub(crate) fn content_problems(&self) -> &[Problem] {
        on_tiles!(&self.content, t => t.tiles.problems(),
            LayerContent::Quads(q) => q.quads.problems(),
            LayerContent::Sounds(s) => s.sources.problems(),
            LayerContent::Unknown(_) => &[],
        )
    }

    /// Whether the content was changed (or made) since it was read, so that it is written anew
    /// rather than as the data item it was read from.
    pub fn content_modified(&self) -> bool {
        on_tiles!(&self.content, t => t.modified,
            LayerContent::Quads(q) => q.modified,
            LayerContent::Sounds(s) => s.modified,
            LayerContent::Unknown(_) => false,
        )
    }

    /// The bytes of the data item the decoded content was read from, when the content holds
    /// them exactly (tiles in the plain layout, quads, current sound sources) and is unmodified.
    pub(crate) fn content_bytes(&self) -> Option<Vec<u8>> {
        fn plain<T: TileKind>(t: &TilesLayer<T>) -> Option<Vec<u8>> {
            let tiles = t.tiles.loaded().filter(|_| !t.modified)?;
            let grid = tiles
                .grid
                .as_ref()
                .filter(|_| tiles.layout == TileLayout::Plain)?;
            Some(twcodec_schema::map::tile::tiles_as_bytes(grid.tiles()).to_vec())
        }
        on_tiles!(&self.content, t => plain(t),
            LayerContent::Quads(q) => {
                let quads = q.quads.loaded().filter(|_| !q.modified)?.as_ref()?;
                Some(twcodec_schema::map::ints_as_le_bytes(quads))
            }
            LayerContent::Sounds(s) if !s.deprecated => {
                let sources = s.sources.loaded().filter(|_| !s.modified)?.as_ref()?;
                Some(twcodec_schema::map::ints_as_le_bytes(sources))
            }
            LayerContent::Sounds(_) | LayerContent::Unknown(_) => None,
        )
    }

    /// The data field the layer's content is read from (tile data of its kind, quads, sources).
    pub fn content_data(&self) -> Option<i32> {
        match &self.content {
            LayerContent::Quads(q) => Some(q.item.data),
            LayerContent::Sounds(s) => Some(s.item.data),
            _ => Some(content::tile_data_field(self.tilemap()?).1),
        }
    }

    /// Lets go of the map's source once the content is decoded.
    pub(crate) fn forget_source(&mut self) {
        on_tiles!(&mut self.content, t => t.tiles.forget_source(),
            LayerContent::Quads(q) => q.quads.forget_source(),
            LayerContent::Sounds(s) => s.sources.forget_source(),
            LayerContent::Unknown(_) => {}
        )
    }

    /// Drawn only with high detail.
    pub fn is_detail(&self) -> bool {
        self.header.flags.detail()
    }

    /// A short name of the layer's kind (`tiles`, `game`, `quads`, ...).
    pub fn kind_name(&self) -> &'static str {
        match self.content {
            LayerContent::Tiles(_) => "tiles",
            LayerContent::Game(_) => "game",
            LayerContent::Front(_) => "front",
            LayerContent::Tele(_) => "tele",
            LayerContent::Speedup(_) => "speedup",
            LayerContent::Switch(_) => "switch",
            LayerContent::Tune(_) => "tune",
            LayerContent::Quads(_) => "quads",
            LayerContent::Sounds(_) => "sounds",
            LayerContent::Unknown(_) => "unknown",
        }
    }

    /// Whether this is a physics layer (game, front, tele, speedup, switch, tune).
    pub fn is_physics(&self) -> bool {
        !matches!(
            self.content,
            LayerContent::Tiles(_)
                | LayerContent::Quads(_)
                | LayerContent::Sounds(_)
                | LayerContent::Unknown(_)
        )
    }

    /// The layer's name.
    pub fn name(&self) -> String {
        let name = match &self.content {
            LayerContent::Quads(q) => q.item.name,
            LayerContent::Sounds(s) => s.item.name,
            LayerContent::Unknown(_) => None,
            _ => self.tilemap().and_then(|t| t.name),
        };
        name.map(|n| n.to_string_lossy()).unwrap_or_default()
    }

    /// The tilemap item of a tile layer of any kind.
    pub fn tilemap(&self) -> Option<&TilemapLayer> {
        Some(on_tiles!(&self.content, t => &t.item, _ => return None))
    }

    /// The image a tiles or quads layer is drawn with.
    pub fn image(&self, map: &Map) -> Ref<Image> {
        match &self.content {
            LayerContent::Quads(q) => map.item_ref::<Image>(q.item.image),
            _ => match self.tilemap() {
                Some(t) => map.item_ref::<Image>(t.image),
                None => Ref::None,
            },
        }
    }
}

impl LayerContent {
    /// The tilemap item of a tile layer of any kind, to change its fields.
    pub(crate) fn tilemap_mut(&mut self) -> Option<&mut TilemapLayer> {
        Some(on_tiles!(self, t => t.item_mut(), _ => return None))
    }
}

/// A tile layer of any kind: its tilemap item and its tiles as a grid, decoded on first access
/// in a lazy map.
#[derive(Debug, Clone)]
pub struct TilesLayer<T> {
    pub(crate) item: TilemapLayer,
    pub(crate) tiles: Lazy<Tiles<T>>,
    pub(crate) modified: bool,
}

impl<T: TileKind> TilesLayer<T> {
    /// A tile layer made by an edit: its tiles are written anew.
    pub(crate) fn new(item: TilemapLayer, grid: Grid<T>) -> TilesLayer<T> {
        TilesLayer {
            item,
            tiles: Lazy::ready(Tiles {
                grid: Some(grid),
                layout: TileLayout::Plain,
            }),
            modified: true,
        }
    }

    /// The tilemap item as stored.
    pub fn item(&self) -> &TilemapLayer {
        &self.item
    }

    fn decoded(&self) -> &Tiles<T> {
        let item = &self.item;
        self.tiles
            .get(|source, place| content::decode_tiles(source, place, item))
    }

    /// The tilemap item, to change its fields (they are written from it). The tiles are
    /// decoded first, while the item still says where they are.
    pub(crate) fn item_mut(&mut self) -> &mut TilemapLayer {
        self.decoded();
        &mut self.item
    }

    /// The tiles, `None` when the data is missing or the wrong size (a problem says which).
    /// Decoded now in a lazy map, once.
    pub fn grid(&self) -> Option<&Grid<T>> {
        self.decoded().grid.as_ref()
    }

    /// The tiles, to change them; the layer is written anew.
    pub fn grid_mut(&mut self) -> Option<&mut Grid<T>> {
        self.modified = true;
        let item = &self.item;
        self.tiles
            .get_mut(|source, place| content::decode_tiles(source, place, item))?
            .grid
            .as_mut()
    }

    /// Replaces the tiles with a grid of any size, setting the item's width and height to
    /// match; the layer is written anew. Does nothing to a layer whose tiles did not load (the
    /// caller checks [`TilesLayer::grid`] first) or to a size beyond an item's ints.
    pub(crate) fn set_grid(&mut self, grid: Grid<T>) {
        let (Ok(width), Ok(height)) = (i32::try_from(grid.width()), i32::try_from(grid.height()))
        else {
            return;
        };
        let item = &self.item;
        let Some(tiles) = self
            .tiles
            .get_mut(|source, place| content::decode_tiles(source, place, item))
        else {
            return;
        };
        if tiles.grid.is_none() {
            return;
        }
        tiles.grid = Some(grid);
        self.item.width = width;
        self.item.height = height;
        self.modified = true;
    }

    /// How the tiles were stored.
    pub fn layout(&self) -> TileLayout {
        self.decoded().layout
    }

    /// The color envelope.
    pub fn color_envelope(&self, map: &Map) -> Ref<Envelope> {
        map.item_ref::<Envelope>(self.item.color_envelope)
    }
}

impl<T: TileKind> PartialEq for TilesLayer<T> {
    fn eq(&self, other: &Self) -> bool {
        /// Size and bytes of the grid, and the layout.
        type Compared<'a> = (Option<(usize, usize, &'a [u8])>, TileLayout);
        fn tiles<T: TileKind>(layer: &TilesLayer<T>) -> Compared<'_> {
            let grid = layer.grid().map(|grid| {
                let bytes = twcodec_schema::map::tile::tiles_as_bytes(grid.tiles());
                (grid.width(), grid.height(), bytes)
            });
            (grid, layer.layout())
        }
        self.item == other.item && self.modified == other.modified && tiles(self) == tiles(other)
    }
}

/// A quads layer: its item and its quads, decoded on first access in a lazy map.
#[derive(Debug, Clone)]
pub struct QuadsLayer {
    pub(crate) item: item::QuadsLayer,
    pub(crate) quads: Lazy<Option<Vec<Quad>>>,
    pub(crate) modified: bool,
}

impl QuadsLayer {
    /// A quads layer made by an edit: its quads are written anew.
    pub(crate) fn new(item: item::QuadsLayer, quads: Vec<Quad>) -> QuadsLayer {
        QuadsLayer {
            item,
            quads: Lazy::ready(Some(quads)),
            modified: true,
        }
    }

    /// The item as stored.
    pub fn item(&self) -> &item::QuadsLayer {
        &self.item
    }

    /// The item, to change its fields (they are written from it). The quads are decoded
    /// first, while the item still says where they are.
    pub(crate) fn item_mut(&mut self) -> &mut item::QuadsLayer {
        self.quads();
        &mut self.item
    }

    /// The quads (`num_quads` of them), `None` when the data is missing or too small.
    /// Decoded now in a lazy map, once.
    pub fn quads(&self) -> Option<&[Quad]> {
        let item = &self.item;
        self.quads
            .get(|source, place| content::decode_quads(source, place, item))
            .as_deref()
    }

    /// The quads, to change them; the layer is written anew.
    pub fn quads_mut(&mut self) -> Option<&mut Vec<Quad>> {
        self.modified = true;
        let item = &self.item;
        self.quads
            .get_mut(|source, place| content::decode_quads(source, place, item))?
            .as_mut()
    }
}

impl PartialEq for QuadsLayer {
    fn eq(&self, other: &Self) -> bool {
        self.item == other.item && self.quads() == other.quads() && self.modified == other.modified
    }
}

/// A sounds layer: its item and its sources (sources of deprecated layers upgraded), decoded
/// on first access in a lazy map.
#[derive(Debug, Clone)]
pub struct SoundsLayer {
    pub(crate) item: item::SoundsLayer,
    pub(crate) deprecated: bool,
    pub(crate) sources: Lazy<Option<Vec<SoundSource>>>,
    pub(crate) modified: bool,
}

impl SoundsLayer {
    /// A sounds layer made by an edit: its sources are written anew (as a current one).
    pub(crate) fn new(item: item::SoundsLayer, sources: Vec<SoundSource>) -> SoundsLayer {
        SoundsLayer {
            item,
            deprecated: false,
            sources: Lazy::ready(Some(sources)),
            modified: true,
        }
    }

    /// The item as stored.
    pub fn item(&self) -> &item::SoundsLayer {
        &self.item
    }

    /// The item, to change its fields (they are written from it). The sources are decoded
    /// first, while the item still says where they are.
    pub(crate) fn item_mut(&mut self) -> &mut item::SoundsLayer {
        self.sources();
        &mut self.item
    }

    /// Whether the layer is of the deprecated type with 36-byte sources.
    pub fn is_deprecated(&self) -> bool {
        self.deprecated
    }

    /// The sources (`num_sources` of them), `None` when the data is missing or too small.
    /// Decoded now in a lazy map, once.
    pub fn sources(&self) -> Option<&[SoundSource]> {
        let (item, deprecated) = (&self.item, self.deprecated);
        self.sources
            .get(|source, place| content::decode_sources(source, place, item, deprecated))
            .as_deref()
    }

    /// The sources, to change them; the layer is written anew (as a current sounds layer).
    pub fn sources_mut(&mut self) -> Option<&mut Vec<SoundSource>> {
        self.modified = true;
        let (item, deprecated) = (&self.item, self.deprecated);
        self.sources
            .get_mut(|source, place| content::decode_sources(source, place, item, deprecated))?
            .as_mut()
    }

    /// The sound played.
    pub fn sound(&self, map: &Map) -> Ref<Sound> {
        map.item_ref::<Sound>(self.item.sound)
    }
}

impl PartialEq for SoundsLayer {
    fn eq(&self, other: &Self) -> bool {
        self.item == other.item
            && self.deprecated == other.deprecated
            && self.sources() == other.sources()
            && self.modified == other.modified
    }
}

/// A version-3 tilemap item as DDNet's editor writes one: white, no envelope, no physics data.
pub(crate) fn ddnet_tilemap(
    width: i32,
    height: i32,
    flags: twcodec_schema::map::layer::TilemapFlags,
    image: i32,
    data: i32,
    name: twcodec_schema::map::I32String<3>,
) -> TilemapLayer {
    TilemapLayer {
        version: 3,
        width,
        height,
        flags,
        color: twcodec_schema::map::Color {
            r: 255,
            g: 255,
            b: 255,
            a: 255,
        },
        color_envelope: -1,
        color_envelope_offset: 0,
        image,
        data,
        name: Some(name),
        physics: NO_PHYSICS,
        unknown_tail: Vec::new(),
    }
}

/// DDNet's physics data indices of a tilemap, each none.
pub(crate) const NO_PHYSICS: item::PhysicsData = item::PhysicsData {
    tele: Some(-1),
    speedup: Some(-1),
    front: Some(-1),
    switch: Some(-1),
    tune: Some(-1),
};
