//! Layers of the map graph: typed by what they are (tiles, game, front, tele, speedup, switch,
//! tune, quads, sounds, unknown), with their decoded content.

use twcodec_schema::map::layer::{self as item, LayerHeader, TilemapLayer};
use twcodec_schema::map::quad::Quad;
use twcodec_schema::map::sound::SoundSource;
use twcodec_schema::map::tile::{Speedup, Switch, Tele, Tile, TileKind, Tune};

use super::{Envelope, Image, Map, Ref, Sound};

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
        Some(match &self.content {
            LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => &t.item,
            LayerContent::Tele(t) => &t.item,
            LayerContent::Speedup(t) => &t.item,
            LayerContent::Switch(t) => &t.item,
            LayerContent::Tune(t) => &t.item,
            _ => return None,
        })
    }

    /// The image a tiles or quads layer is drawn with.
    pub fn image(&self, map: &Map) -> Ref<Image> {
        match &self.content {
            LayerContent::Quads(q) => map.image_ref(q.item.image),
            _ => match self.tilemap() {
                Some(t) => map.image_ref(t.image),
                None => Ref::None,
            },
        }
    }
}

impl LayerContent {
    /// The tilemap item of a tile layer of any kind, to change its fields.
    pub(crate) fn tilemap_mut(&mut self) -> Option<&mut TilemapLayer> {
        Some(match self {
            LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => &mut t.item,
            LayerContent::Tele(t) => &mut t.item,
            LayerContent::Speedup(t) => &mut t.item,
            LayerContent::Switch(t) => &mut t.item,
            LayerContent::Tune(t) => &mut t.item,
            _ => return None,
        })
    }
}

/// How a tile layer's data was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum TileLayout {
    /// One tile per cell, in the current layout.
    Plain,
    /// Teeworlds 0.7 skip compression.
    Skip,
    /// Old DDRace speedup tiles of 4 bytes, upgraded.
    OldSpeedup,
    /// Old DDRace switch tiles of 2 bytes, upgraded.
    OldSwitch2,
    /// Old switch tiles of 3 bytes, upgraded.
    OldSwitch3,
}

/// A tile layer of any kind: its tilemap item and its tiles as a grid.
#[derive(Debug, Clone, PartialEq)]
pub struct TilesLayer<T> {
    pub(crate) item: TilemapLayer,
    pub(crate) grid: Option<Grid<T>>,
    pub(crate) layout: TileLayout,
    pub(crate) modified: bool,
}

impl<T: TileKind> TilesLayer<T> {
    /// A tile layer made by an edit: its tiles are written anew.
    pub(crate) fn new(item: TilemapLayer, grid: Grid<T>) -> TilesLayer<T> {
        TilesLayer {
            item,
            grid: Some(grid),
            layout: TileLayout::Plain,
            modified: true,
        }
    }

    /// The tilemap item as stored.
    pub fn item(&self) -> &TilemapLayer {
        &self.item
    }

    /// The tilemap item, to change its fields (they are written from it).
    pub(crate) fn item_mut(&mut self) -> &mut TilemapLayer {
        &mut self.item
    }

    /// The tiles, `None` when the data is missing or the wrong size (a problem says which).
    pub fn grid(&self) -> Option<&Grid<T>> {
        self.grid.as_ref()
    }

    /// The tiles, to change them; the layer is written anew.
    pub fn grid_mut(&mut self) -> Option<&mut Grid<T>> {
        self.modified = true;
        self.grid.as_mut()
    }

    /// How the tiles were stored.
    pub fn layout(&self) -> TileLayout {
        self.layout
    }

    /// The color envelope.
    pub fn color_envelope(&self, map: &Map) -> Ref<Envelope> {
        map.envelope_ref(self.item.color_envelope)
    }
}

/// Tiles as a `width` x `height` grid, row by row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid<T> {
    width: usize,
    height: usize,
    tiles: Vec<T>,
}

impl<T: Copy> Grid<T> {
    /// A grid of `width * height` tiles; `None` when the count differs.
    pub fn new(width: usize, height: usize, tiles: Vec<T>) -> Option<Grid<T>> {
        (width.checked_mul(height) == Some(tiles.len())).then_some(Grid {
            width,
            height,
            tiles,
        })
    }

    /// A grid filled with one tile.
    pub fn filled(width: usize, height: usize, tile: T) -> Option<Grid<T>> {
        Grid::new(width, height, vec![tile; width.checked_mul(height)?])
    }

    /// Width in tiles.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in tiles.
    pub fn height(&self) -> usize {
        self.height
    }

    /// All tiles, row by row.
    pub fn tiles(&self) -> &[T] {
        &self.tiles
    }

    /// All tiles, row by row, to change them.
    pub fn tiles_mut(&mut self) -> &mut [T] {
        &mut self.tiles
    }

    /// The tile at column `x`, row `y`.
    pub fn get(&self, x: usize, y: usize) -> Option<&T> {
        if x < self.width {
            self.tiles.get(y.checked_mul(self.width)?.checked_add(x)?)
        } else {
            None
        }
    }

    /// The tile at column `x`, row `y`, to change it.
    pub fn get_mut(&mut self, x: usize, y: usize) -> Option<&mut T> {
        if x < self.width {
            self.tiles
                .get_mut(y.checked_mul(self.width)?.checked_add(x)?)
        } else {
            None
        }
    }

    /// The rows, top to bottom.
    pub fn rows(&self) -> impl Iterator<Item = &[T]> {
        self.tiles.chunks_exact(self.width.max(1))
    }
}

/// A quads layer: its item and its quads.
#[derive(Debug, Clone, PartialEq)]
pub struct QuadsLayer {
    pub(crate) item: item::QuadsLayer,
    pub(crate) quads: Option<Vec<Quad>>,
    pub(crate) modified: bool,
}

impl QuadsLayer {
    /// A quads layer made by an edit: its quads are written anew.
    pub(crate) fn new(item: item::QuadsLayer, quads: Vec<Quad>) -> QuadsLayer {
        QuadsLayer {
            item,
            quads: Some(quads),
            modified: true,
        }
    }

    /// The item as stored.
    pub fn item(&self) -> &item::QuadsLayer {
        &self.item
    }

    /// The item, to change its fields (they are written from it).
    pub(crate) fn item_mut(&mut self) -> &mut item::QuadsLayer {
        &mut self.item
    }

    /// The quads (`num_quads` of them), `None` when the data is missing or too small.
    pub fn quads(&self) -> Option<&[Quad]> {
        self.quads.as_deref()
    }

    /// The quads, to change them; the layer is written anew.
    pub fn quads_mut(&mut self) -> Option<&mut Vec<Quad>> {
        self.modified = true;
        self.quads.as_mut()
    }
}

/// A sounds layer: its item and its sources (sources of deprecated layers upgraded).
#[derive(Debug, Clone, PartialEq)]
pub struct SoundsLayer {
    pub(crate) item: item::SoundsLayer,
    pub(crate) deprecated: bool,
    pub(crate) sources: Option<Vec<SoundSource>>,
    pub(crate) modified: bool,
}

impl SoundsLayer {
    /// A sounds layer made by an edit: its sources are written anew (as a current one).
    pub(crate) fn new(item: item::SoundsLayer, sources: Vec<SoundSource>) -> SoundsLayer {
        SoundsLayer {
            item,
            deprecated: false,
            sources: Some(sources),
            modified: true,
        }
    }

    /// The item as stored.
    pub fn item(&self) -> &item::SoundsLayer {
        &self.item
    }

    /// The item, to change its fields (they are written from it).
    pub(crate) fn item_mut(&mut self) -> &mut item::SoundsLayer {
        &mut self.item
    }

    /// Whether the layer is of the deprecated type with 36-byte sources.
    pub fn is_deprecated(&self) -> bool {
        self.deprecated
    }

    /// The sources (`num_sources` of them), `None` when the data is missing or too small.
    pub fn sources(&self) -> Option<&[SoundSource]> {
        self.sources.as_deref()
    }

    /// The sources, to change them; the layer is written anew (as a current sounds layer).
    pub fn sources_mut(&mut self) -> Option<&mut Vec<SoundSource>> {
        self.modified = true;
        self.sources.as_mut()
    }

    /// The sound played.
    pub fn sound(&self, map: &Map) -> Ref<Sound> {
        map.sound_ref(self.item.sound)
    }
}
