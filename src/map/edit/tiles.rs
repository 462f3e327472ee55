//! Tiles changed in place: DDNet's "Game tiles" button ([`Map::fill_game_tiles`]) and one tile
//! replaced by another in a layer or a rectangle of it ([`Map::replace_tiles`]).
//!
//! Both check everything before they change anything, so an edit that fails changes nothing,
//! and a layer none of whose tiles change is left as it was read (written back byte for
//! byte).

use std::fmt;

use twcodec_schema::map::tile::{Speedup, Switch, Tele, Tile, TileKind, Tune};

use super::merge::TileRect;
use crate::error::Error;
use crate::map::grid::Grid;
use crate::map::layer::{Layer, LayerContent, TilesLayer};
use crate::map::{ItemRef, Map};

/// DDNet's `TILE_NOHOOK`: what the game layer holds under a hookthrough tile.
const NOHOOK: u8 = 3;
/// DDNet's `TILE_THROUGH_CUT`: the front layer's hookthrough tile.
const THROUGH_CUT: u8 = 5;
/// The orientation bits of a tile's flags: `TILEFLAG_XFLIP` (1), `TILEFLAG_YFLIP` (2) and
/// `TILEFLAG_ROTATE` (8).
pub const ORIENTATION_FLAGS: u8 = 1 | 2 | 8;
/// DDNet's `TILEFLAG_OPAQUE` (4): the editor sets it on save for tiles whose picture is fully
/// opaque, and the client draws those in its opaque pass.
const OPAQUE: u8 = 4;

/// What DDNet's "Game tiles" button writes for each non-empty tile of a tiles layer
/// (`EGameTileOp`, src/game/editor/enums.h; the ids of `CLayerTiles::FillGameTiles`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[doc(alias = "EGameTileOp")]
pub enum GameTileOp {
    /// Air (0): clears the game tiles under the layer's tiles.
    Air,
    /// Hookable ground (`TILE_SOLID`, 1).
    Hookable,
    /// Death (2).
    Death,
    /// Unhookable ground (`TILE_NOHOOK`, 3).
    Unhookable,
    /// Hookthrough: unhookable ground (3) in the game layer and `TILE_THROUGH_CUT` (5) in the
    /// front layer, as the editor writes it with its default DDNet entities.
    Hookthrough,
    /// Freeze (9).
    Freeze,
    /// Unfreeze (11).
    Unfreeze,
    /// Deep freeze (`TILE_DFREEZE`, 12).
    DeepFreeze,
    /// Deep unfreeze (`TILE_DUNFREEZE`, 13).
    DeepUnfreeze,
    /// Blue check-tele (`TILE_TELECHECKIN`, 31) in the tele layer, number 1.
    BlueCheckTele,
    /// Red check-tele (`TILE_TELECHECKINEVIL`, 63) in the tele layer, number 1.
    RedCheckTele,
    /// Live freeze (`TILE_LFREEZE`, 144).
    LiveFreeze,
    /// Live unfreeze (`TILE_LUNFREEZE`, 145).
    LiveUnfreeze,
}

/// Every op with its name, the editor's name (`GAME_TILE_OP_NAMES`) and the tile id it writes;
/// the methods of [`GameTileOp`] read this table and nothing else lists the ops.
const OPS: [(GameTileOp, &str, &str, u8); 13] = [
    (GameTileOp::Air, "air", "Air", 0),
    (GameTileOp::Hookable, "hookable", "Hookable", 1),
    (GameTileOp::Death, "death", "Death", 2),
    (GameTileOp::Unhookable, "unhookable", "Unhookable", NOHOOK),
    (
        GameTileOp::Hookthrough,
        "hookthrough",
        "Hookthrough",
        THROUGH_CUT,
    ),
    (GameTileOp::Freeze, "freeze", "Freeze", 9),
    (GameTileOp::Unfreeze, "unfreeze", "Unfreeze", 11),
    (GameTileOp::DeepFreeze, "deep-freeze", "Deep Freeze", 12),
    (
        GameTileOp::DeepUnfreeze,
        "deep-unfreeze",
        "Deep Unfreeze",
        13,
    ),
    (
        GameTileOp::BlueCheckTele,
        "blue-check-tele",
        "Blue Check-Tele",
        31,
    ),
    (
        GameTileOp::RedCheckTele,
        "red-check-tele",
        "Red Check-Tele",
        63,
    ),
    (GameTileOp::LiveFreeze, "live-freeze", "Live Freeze", 144),
    (
        GameTileOp::LiveUnfreeze,
        "live-unfreeze",
        "Live Unfreeze",
        145,
    ),
];

impl GameTileOp {
    /// Every op, in the editor's order.
    pub const ALL: [GameTileOp; 13] = {
        let mut all = [GameTileOp::Air; 13];
        let mut i = 0;
        while i < OPS.len() {
            all[i] = OPS[i].0;
            i += 1;
        }
        all
    };

    /// The op's row of the table.
    fn row(self) -> (GameTileOp, &'static str, &'static str, u8) {
        OPS.into_iter().find(|row| row.0 == self).unwrap_or(OPS[0])
    }

    /// The name the command line and Python take: lower case, words joined by `-`
    /// (`deep-freeze`).
    pub fn name(self) -> &'static str {
        self.row().1
    }

    /// The name DDNet's editor shows (`Deep Freeze`).
    pub fn editor_name(self) -> &'static str {
        self.row().2
    }

    /// The tile id the op stands for: the game tile (5 for hookthrough, which the game layer
    /// holds as 3 under a 5 in the front layer), or the tele tile of the check-teles.
    pub fn tile_id(self) -> u8 {
        self.row().3
    }

    /// Whether the op writes the tele layer (the check-teles) rather than the game layer.
    pub fn is_tele(self) -> bool {
        matches!(self, GameTileOp::BlueCheckTele | GameTileOp::RedCheckTele)
    }

    /// The op a name gives: [`GameTileOp::name`] or [`GameTileOp::editor_name`] in any case,
    /// with `-`, `_` or a space between words (`deep-freeze`, `Deep Freeze`, `DEEP_FREEZE`).
    pub fn from_name(name: &str) -> Option<GameTileOp> {
        let key = |text: &str| -> String {
            text.chars()
                .filter(|c| !matches!(c, '-' | '_' | ' '))
                .flat_map(char::to_lowercase)
                .collect()
        };
        let wanted = key(name.trim());
        OPS.into_iter()
            .find(|row| key(row.1) == wanted)
            .map(|row| row.0)
    }
}

impl fmt::Display for GameTileOp {
    /// The op's [`name`](GameTileOp::name).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What [`Map::fill_game_tiles`] did. Layer indices are the map's after the edit (a layer
/// added to the game group moves the later ones up by one).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GameTilesReport {
    /// The tiles layer the game tiles were made from.
    pub layer: usize,
    /// Its name.
    pub name: String,
    /// The op.
    pub op: GameTileOp,
    /// The layer written: the game layer, or the tele layer for the check-teles (`None` when
    /// the map has none and no tile went into it).
    pub target: Option<usize>,
    /// The target's kind (`game` or `tele`).
    pub target_kind: &'static str,
    /// The layer's tiles that placed a tile: its non-empty tiles that land inside the game
    /// layer (DDNet's count, "x29" in the editor's history).
    pub tiles: usize,
    /// How many of those changed a tile of the target.
    pub changed: usize,
    /// Front layer tiles changed: hookthrough written there, or one cleared under another
    /// game tile.
    pub front: usize,
    /// The physics layers' size before and after, when they had to grow to hold the layer.
    pub enlarged: Option<((usize, usize), (usize, usize))>,
    /// Layers added to the game group, with their kind (`front`, `tele`).
    pub added: Vec<(usize, &'static str)>,
}

impl GameTilesReport {
    /// The report as one line, as the command line prints it.
    pub fn fact(&self) -> String {
        let written = match self.op {
            GameTileOp::Hookthrough => format!("{} (game {NOHOOK}, front {THROUGH_CUT})", self.op),
            op => format!("{op} ({})", op.tile_id()),
        };
        let mut line = format!(
            "layer #{} {:?}: {} tiles of {written} in {} layer{}, {} changed",
            self.layer,
            self.name,
            self.tiles,
            self.target_kind,
            self.target.map(|t| format!(" #{t}")).unwrap_or_default(),
            self.changed
        );
        if self.front > 0 {
            line.push_str(&format!(", {} front tiles changed", self.front));
        }
        if let Some(((w, h), (nw, nh))) = self.enlarged {
            line.push_str(&format!(
                "; physics layers enlarged from {w}x{h} to {nw}x{nh}"
            ));
        }
        for (index, kind) in &self.added {
            line.push_str(&format!("; {kind} layer #{index} added"));
        }
        line
    }
}

/// A tile id, with flags or not: what [`Map::replace_tiles`] looks for and what it writes.
///
/// To look for: `flags` `None` matches the id with any flags, `Some(f)` only with the
/// orientation `f` (x flip 1, y flip 2, rotate 8; the opaque bit 4, which DDNet's editor sets
/// on save, is not compared). To write: `None` keeps each tile's orientation, `Some(f)`
/// writes the flags byte `f`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileSpec {
    /// The tile id (a tiles layer's index into its image, a game tile, a tele, speedup,
    /// switch or tune type).
    pub id: u8,
    /// The flags, when they count.
    pub flags: Option<u8>,
}

impl TileSpec {
    /// The id with any flags (to look for) or the tile's own (to write).
    pub fn new(id: u8) -> TileSpec {
        TileSpec { id, flags: None }
    }

    /// The same id with these flags.
    pub fn with_flags(self, flags: u8) -> TileSpec {
        TileSpec {
            flags: Some(flags),
            ..self
        }
    }

    /// Whether a tile with this id and flags byte is one this spec looks for.
    fn matches(self, id: u8, flags: u8) -> bool {
        id == self.id
            && self
                .flags
                .is_none_or(|f| flags & ORIENTATION_FLAGS == f & ORIENTATION_FLAGS)
    }
}

impl From<u8> for TileSpec {
    fn from(id: u8) -> TileSpec {
        TileSpec::new(id)
    }
}

impl fmt::Display for TileSpec {
    /// `ID` or `ID,FLAGS`, as the command line takes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.flags {
            Some(flags) => write!(f, "{},{flags}", self.id),
            None => write!(f, "{}", self.id),
        }
    }
}

/// What [`Map::replace_tiles`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReplaceTilesReport {
    /// The layer.
    pub layer: usize,
    /// Its name.
    pub name: String,
    /// Its kind (`tiles`, `game`, `tele`, ...).
    pub kind: &'static str,
    /// The area looked in, in the layer's tiles (the whole layer when none was given).
    pub area: TileRect,
    /// What was looked for.
    pub from: TileSpec,
    /// What was written.
    pub to: TileSpec,
    /// How many tiles were replaced.
    pub replaced: usize,
}

impl ReplaceTilesReport {
    /// The report as one line, as the command line prints it.
    pub fn fact(&self) -> String {
        format!(
            "layer #{} {:?} ({}): {} tiles {} -> {} in {}",
            self.layer, self.name, self.kind, self.replaced, self.from, self.to, self.area
        )
    }
}

/// A tile of any kind, as [`Map::replace_tiles`] reads and writes it.
trait Replace: TileKind + Copy + Default + PartialEq {
    /// The tile id (type).
    fn id(&self) -> u8;
    /// The flags byte (0 for tiles without one).
    fn flags(&self) -> u8;
    /// The tile with id `id` and, for tiles with flags, flags `flags`; everything else kept.
    fn with(self, id: u8, flags: u8) -> Self;
}

impl Replace for Tile {
    fn id(&self) -> u8 {
        self.id
    }
    fn flags(&self) -> u8 {
        self.flags
    }
    fn with(self, id: u8, flags: u8) -> Tile {
        Tile { id, flags, ..self }
    }
}

impl Replace for Switch {
    fn id(&self) -> u8 {
        self.id
    }
    fn flags(&self) -> u8 {
        self.flags
    }
    fn with(self, id: u8, flags: u8) -> Switch {
        Switch { id, flags, ..self }
    }
}

impl Replace for Tele {
    fn id(&self) -> u8 {
        self.id
    }
    fn flags(&self) -> u8 {
        0
    }
    fn with(self, id: u8, _: u8) -> Tele {
        Tele { id, ..self }
    }
}

impl Replace for Speedup {
    fn id(&self) -> u8 {
        self.id
    }
    fn flags(&self) -> u8 {
        0
    }
    fn with(self, id: u8, _: u8) -> Speedup {
        Speedup { id, ..self }
    }
}

impl Replace for Tune {
    fn id(&self) -> u8 {
        self.id
    }
    fn flags(&self) -> u8 {
        0
    }
    fn with(self, id: u8, _: u8) -> Tune {
        Tune { id, ..self }
    }
}

/// The tile `to` makes of `tile`: air (id 0) without flags is an empty tile (number, force,
/// delay and flags 0, as the editor stores one); another id keeps the rest of the tile, its
/// orientation too unless `to` gives flags, and drops the opaque bit when the id changes (it
/// described the old tile's picture).
fn replaced<T: Replace>(tile: T, to: TileSpec) -> T {
    match to.flags {
        None if to.id == 0 => T::default(),
        Some(flags) if to.id == 0 => T::default().with(0, flags),
        Some(flags) => tile.with(to.id, flags),
        None if to.id == tile.id() => tile,
        None => tile.with(to.id, tile.flags() & !OPAQUE),
    }
}

/// Replaces `from` by `to` in `area` of a layer's tiles; how many. Counted first, so that a
/// layer with nothing to replace is not marked changed.
fn replace_in<T: Replace>(
    index: usize,
    layer: &mut TilesLayer<T>,
    area: TileRect,
    from: TileSpec,
    to: TileSpec,
) -> Result<usize, Error> {
    let grid = loaded(index, layer)?;
    let (x0, y0) = (area.x as usize, area.y as usize);
    let (x1, y1) = (x0 + area.width as usize, y0 + area.height as usize);
    let matches = |tile: &T| from.matches(tile.id(), tile.flags());
    let count = (grid.rows().skip(y0).take(y1 - y0))
        .map(|row| {
            row.get(x0..x1)
                .unwrap_or(&[])
                .iter()
                .filter(|t| matches(t))
                .count()
        })
        .sum();
    if count > 0 {
        if let Some(grid) = layer.grid_mut() {
            let width = grid.width();
            for (y, row) in grid.tiles_mut().chunks_exact_mut(width.max(1)).enumerate() {
                if !(y0..y1).contains(&y) {
                    continue;
                }
                for tile in row.get_mut(x0..x1).into_iter().flatten() {
                    if matches(tile) {
                        *tile = replaced(*tile, to);
                    }
                }
            }
        }
    }
    Ok(count)
}

/// A tile layer's grid, or the error for one whose tiles did not load.
fn loaded<T: TileKind>(index: usize, layer: &TilesLayer<T>) -> Result<&Grid<T>, Error> {
    layer.grid().ok_or_else(|| {
        Error::invalid_edit(format!(
            "layer #{index}'s tiles did not load; remove or repair the layer first"
        ))
    })
}

/// A grid grown to `w` x `h` at its right and bottom, the new tiles air (DDNet's
/// `CLayerTiles::Resize` keeps the top-left corner).
fn grown<T: TileKind + Copy + Default>(grid: &Grid<T>, w: usize, h: usize) -> Option<Grid<T>> {
    grid.remapped(w, h, |x, y| Some((x, y)), T::default())
}

impl Map {
    /// Makes game tiles from a tiles layer, as DDNet's editor does with the layer's "Game
    /// tiles" button (`CLayerTiles::FillGameTiles`): every tile of `layer` that is not empty
    /// puts the tile of `op` (flags 0) at its place in the game layer; empty tiles leave the
    /// game layer as it is.
    ///
    /// - **Where.** The layer's group must draw with the game layer: parallax 100 on both
    ///   axes and an offset of whole tiles (a multiple of 32 pixels), else the edit is an
    ///   error, as the editor offers no button then. The group's offset moves the tiles: a
    ///   group at offset (64, 0) px draws its column 0 at game column -2, so column 2 lands
    ///   on game column 0, and tiles that would land left of or above the game layer are
    ///   left out.
    /// - **Size.** The physics layers (game, front, tele, speedup, switch, tune) grow at
    ///   their right and bottom, with air, to hold the layer with its offset, as the editor
    ///   resizes the game layer, and all of them together, as every physics layer is as large
    ///   as the game layer (the editor's tele-layer path can make it otherwise; this edit
    ///   keeps them equal). The size is bounded by [`Limits::max_tiles`](crate::Limits).
    /// - **Hookthrough** writes unhookable ground (3) in the game layer and hookthrough (5)
    ///   in the front layer, as the editor does with its default DDNet entities; every other
    ///   op clears a hookthrough tile of the front layer where it writes, as the editor does.
    ///   A front layer is added at the end of the game group when there is none and a tile
    ///   goes into it.
    /// - **Check-teles** write the tele layer: tile 31 (blue) or 63 (red) with number 1. A
    ///   tele layer is added at the end of the game group when there is none and a tile goes
    ///   into it.
    ///
    /// Errors, changing nothing: `layer` is not a tiles layer or is in no group, its group
    /// scrolls otherwise than the game layer, the map has no game layer, a tile layer
    /// involved did not load, physics layers differ in size when they have to grow, or the
    /// size would pass the limits. Adding a layer before others renews layer references (see
    /// the module docs).
    ///
    /// ```
    /// use twcodec::map::{GameTileOp, LayerContent};
    /// # let mut map = twcodec_testkit::sample::map()?;
    /// let ground = map.find_layer("Ground")?;
    /// let report = map.fill_game_tiles(ground, GameTileOp::Freeze)?;
    /// println!("{}", report.fact()); // layer #3 "Ground": 29 tiles of freeze (9) in game layer #2, ...
    /// let LayerContent::Tiles(design) = map.get(ground).unwrap().content() else { panic!() };
    /// let (_, game) = map.game_layer().expect("a game layer");
    /// let (design, game) = (design.grid().unwrap(), game.grid().unwrap());
    /// for (d, g) in design.tiles().iter().zip(game.tiles()) {
    ///     assert!(d.id == 0 || g.id == 9);
    /// }
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn fill_game_tiles(
        &mut self,
        layer: ItemRef<Layer>,
        op: GameTileOp,
    ) -> Result<GameTilesReport, Error> {
        let d = self.checked(layer)?;
        let design = &self.layers[d];
        let name = design.name();
        let LayerContent::Tiles(tiles) = design.content() else {
            return Err(Error::invalid_edit(format!(
                "layer #{d} is a {} layer; game tiles are made from a tiles layer",
                design.kind_name()
            )));
        };
        let grid = loaded(d, tiles)?;
        let g = self.layer_groups.get(d).copied().flatten().ok_or_else(|| {
            Error::invalid_edit(format!("layer #{d} is in no group, so it has no place"))
        })?;
        let group = &self.groups[g].item;
        let (offset, parallax) = (group.offset, group.parallax);
        if (parallax.x, parallax.y) != (100, 100) {
            return Err(Error::invalid_edit(format!(
                "layer #{d}'s group #{g} has parallax ({}, {}); game tiles need parallax \
                 (100, 100), so that the layer scrolls with the game layer",
                parallax.x, parallax.y
            )));
        }
        if offset.x % 32 != 0 || offset.y % 32 != 0 {
            return Err(Error::invalid_edit(format!(
                "layer #{d}'s group #{g} has offset ({}, {}) px; game tiles need an offset \
                 of whole tiles (a multiple of 32 px on both axes)",
                offset.x, offset.y
            )));
        }
        // Game tile (x + ox, y + oy) is under the layer's tile (x, y).
        let (ox, oy) = (-i64::from(offset.x) / 32, -i64::from(offset.y) / 32);
        let (dw, dh) = (grid.width() as i64, grid.height() as i64);
        // The layer's tiles (a copy, as the layers change), and where they land.
        let design_grid = grid.clone();
        let places = Places {
            grid: &design_grid,
            ox,
            oy,
        };
        let tiles = places.iter().count();

        let Some((game_ref, game)) = self.game_layer() else {
            return Err(Error::invalid_edit(
                "the map has no game layer to make game tiles in",
            ));
        };
        let game_index = game_ref.index();
        let game_grid = loaded(game_index, game)?;
        let (gw, gh) = (game_grid.width(), game_grid.height());
        let game_group = self.layer_groups.get(game_index).copied().flatten();
        // The size that holds the layer, as the editor computes it (from the layer's size,
        // whatever its tiles).
        let need = |have: usize, len: i64, by: i64| -> i64 { (have as i64).max(len + by) };
        let (nw, nh) = (need(gw, dw, ox), need(gh, dh, oy));
        let enlarge = (nw, nh) != (gw as i64, gh as i64);
        if enlarge {
            let max = self.limits().max_tiles();
            let fits = i32::try_from(nw).is_ok()
                && i32::try_from(nh).is_ok()
                && (nw as usize)
                    .checked_mul(nh as usize)
                    .is_some_and(|n| n <= max);
            if !fits {
                return Err(Error::limit(format!(
                    "layer #{d} at its group's offset needs physics layers of {nw}x{nh} tiles, \
                     more than the {max} tiles a layer may have (Limits::max_tiles)"
                )));
            }
            for (r, other) in self.physics_layers() {
                let i = r.index();
                let size = other.tilemap().map(|t| (t.width, t.height));
                if size != Some((gw as i32, gh as i32)) || !other.content_loads() {
                    let (w, h) = size.unwrap_or_default();
                    return Err(Error::invalid_edit(format!(
                        "the {} layer #{i} is {w}x{h} tiles and the game layer {gw}x{gh} (or its \
                         tiles did not load); physics layers grow together, so game tiles \
                         cannot enlarge them",
                        other.kind_name()
                    )));
                }
            }
        }
        let (nw, nh) = (nw as usize, nh as usize);

        // The layer written into, and the front layer a hookthrough needs; each added when a
        // tile goes into it.
        let last = |map: &Map, kind: fn(&LayerContent) -> bool| {
            (map.layers.iter()).rposition(|layer| kind(layer.content()))
        };
        let is_tele: fn(&LayerContent) -> bool = |c| matches!(c, LayerContent::Tele(_));
        let is_front: fn(&LayerContent) -> bool = |c| matches!(c, LayerContent::Front(_));
        let mut missing: Option<Layer> = None;
        if tiles > 0 {
            if op.is_tele() && last(self, is_tele).is_none() {
                missing = Some(Layer::new_tele(
                    Grid::filled(gw, gh, Tele::default())
                        .ok_or_else(|| Error::limit(format!("a tele layer of {gw}x{gh} tiles")))?,
                )?);
            } else if op == GameTileOp::Hookthrough && last(self, is_front).is_none() {
                missing = Some(Layer::new_front(
                    Grid::filled(gw, gh, Tile::default())
                        .ok_or_else(|| Error::limit(format!("a front layer of {gw}x{gh} tiles")))?,
                )?);
            }
        }
        for (r, other) in self.physics_layers() {
            if (is_tele(other.content()) && op.is_tele())
                || (is_front(other.content()) && !op.is_tele())
            {
                loaded_any(r.index(), other)?;
            }
        }

        // Every check is made: the changes.
        let mut added = Vec::new();
        let mut design_index = d;
        if let Some(new) = missing {
            let kind = new.kind_name();
            let Some(g) = game_group else {
                return Err(Error::invalid_edit(format!(
                    "the game layer #{game_index} is in no group, so a {kind} layer has none to \
                     go in"
                )));
            };
            let at = self.add_layer(self.mint(g), new)?.index();
            if design_index >= at {
                design_index += 1;
            }
            added.push((at, kind));
        }
        if enlarge {
            self.grow_physics(nw, nh);
        }
        let target = if op.is_tele() {
            last(self, is_tele)
        } else {
            self.game_layer().map(|(r, _)| r.index())
        };
        let front = last(self, is_front);

        let (mut changed, mut front_changed) = (0, 0);
        let target_kind = if op.is_tele() { "tele" } else { "game" };
        let Some(target) = target else {
            // Nothing to write (no tiles, so no tele layer was added).
            return Ok(GameTilesReport {
                layer: design_index,
                name,
                op,
                target: None,
                target_kind,
                tiles: 0,
                changed: 0,
                front: 0,
                enlarged: enlarge.then_some(((gw, gh), (nw, nh))),
                added,
            });
        };
        match self.layers[target].content_mut() {
            LayerContent::Tele(t) => {
                let tile = Tele {
                    number: 1,
                    id: op.tile_id(),
                };
                changed = write_tiles(t, places, |_| tile);
            }
            LayerContent::Game(t) => {
                let id = match op {
                    GameTileOp::Hookthrough => NOHOOK,
                    op => op.tile_id(),
                };
                let tile = Tile {
                    id,
                    ..Tile::default()
                };
                changed = write_tiles(t, places, |_| tile);
            }
            _ => {}
        }
        if let Some(front) = front.filter(|_| !op.is_tele()) {
            if let LayerContent::Front(t) = self.layers[front].content_mut() {
                front_changed = if op == GameTileOp::Hookthrough {
                    let tile = Tile {
                        id: THROUGH_CUT,
                        ..Tile::default()
                    };
                    write_tiles(t, places, |_| tile)
                } else {
                    write_tiles(t, places, |old| match old.id {
                        THROUGH_CUT => Tile::default(),
                        _ => old,
                    })
                };
            }
        }
        Ok(GameTilesReport {
            layer: design_index,
            name,
            op,
            target: Some(target),
            target_kind,
            tiles,
            changed,
            front: front_changed,
            enlarged: enlarge.then_some(((gw, gh), (nw, nh))),
            added,
        })
    }

    /// Grows every physics layer to `w` x `h` tiles at its right and bottom, with air; the
    /// caller has checked that their tiles load and that the size is within the limits.
    fn grow_physics(&mut self, w: usize, h: usize) {
        fn grow<T: TileKind + Copy + Default>(t: &mut TilesLayer<T>, w: usize, h: usize) {
            if let Some(new) = t.grid().and_then(|grid| grown(grid, w, h)) {
                t.set_grid(new);
            }
        }
        for index in 0..self.layers.len() {
            let layer = &mut self.layers[index];
            if !layer.is_physics() {
                continue;
            }
            layer.verbatim = None;
            let dummy = match layer.content_mut() {
                LayerContent::Game(t) => {
                    grow(t, w, h);
                    false
                }
                LayerContent::Front(t) => {
                    grow(t, w, h);
                    true
                }
                LayerContent::Tele(t) => {
                    grow(t, w, h);
                    true
                }
                LayerContent::Speedup(t) => {
                    grow(t, w, h);
                    true
                }
                LayerContent::Switch(t) => {
                    grow(t, w, h);
                    true
                }
                LayerContent::Tune(t) => {
                    grow(t, w, h);
                    true
                }
                _ => false,
            };
            if dummy {
                let bytes = w
                    .saturating_mul(h)
                    .saturating_mul(std::mem::size_of::<Tile>());
                self.set_dummy_tiles(index, vec![0u8; bytes]);
            }
        }
    }

    /// Replaces every tile `from` names by `to` in a tile layer, or in `area` of it (in the
    /// layer's own tiles, from its top-left corner); how many.
    ///
    /// Works on every kind of tile layer: tiles, game and front layers by id and flags,
    /// switch layers by type and flags, tele, speedup and tune layers by type, keeping the
    /// rest of each tile (tele and switch numbers, speedup force and angle, switch delays).
    /// What a tile becomes:
    ///
    /// - `from` with flags matches only tiles of that orientation (x flip 1, y flip 2,
    ///   rotate 8); the opaque bit (4), which DDNet's editor sets on save, is not compared.
    /// - `to` without flags keeps each tile's orientation (and drops its opaque bit when the
    ///   id changes, as that bit described the old tile's picture); with flags, it writes
    ///   that flags byte.
    /// - `to` air (id 0) without flags empties the tile (number, force, delay and flags 0),
    ///   as the editor stores an empty tile.
    ///
    /// Ids are not checked against what DDNet's editor places in each layer (it does as
    /// much with "allow unused tiles").
    ///
    /// Errors, changing nothing: `layer` is not a tile layer or its tiles did not load,
    /// flags for a tele, speedup or tune layer (their tiles have none), `from` flags beyond
    /// the orientation bits, an area of no tiles or one reaching out of the layer.
    ///
    /// ```
    /// use twcodec::map::edit::{TileRect, TileSpec};
    /// # let mut map = twcodec_testkit::sample::map()?;
    /// let game = map.find_layer("Game")?;
    /// // Solid ground (1) becomes unhookable (3) in the 4 x 3 tiles at column 0, row 5.
    /// let area = TileRect::new(0, 5, 4, 3);
    /// let report = map.replace_tiles(game, TileSpec::new(1), TileSpec::new(3), Some(area))?;
    /// assert!(report.replaced > 0);
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn replace_tiles(
        &mut self,
        layer: ItemRef<Layer>,
        from: TileSpec,
        to: TileSpec,
        area: Option<TileRect>,
    ) -> Result<ReplaceTilesReport, Error> {
        let index = self.checked(layer)?;
        let target = &self.layers[index];
        let (name, kind) = (target.name(), target.kind_name());
        let Some((width, height)) = tile_layer_size(index, target)? else {
            return Err(Error::invalid_edit(format!(
                "layer #{index} is a {kind} layer; tiles are replaced in tile layers"
            )));
        };
        let flagged = matches!(
            target.content(),
            LayerContent::Tiles(_)
                | LayerContent::Game(_)
                | LayerContent::Front(_)
                | LayerContent::Switch(_)
        );
        if !flagged && (from.flags.is_some() || to.flags.is_some()) {
            return Err(Error::invalid_edit(format!(
                "layer #{index} is a {kind} layer, whose tiles have no flags"
            )));
        }
        if let Some(flags) = from.flags.filter(|f| f & !ORIENTATION_FLAGS != 0) {
            return Err(Error::invalid_edit(format!(
                "flags {flags} to look for: only the orientation is compared, x flip (1), \
                 y flip (2) and rotate (8)"
            )));
        }
        let whole = TileRect::new(0, 0, width as u32, height as u32);
        let area = area.unwrap_or(whole);
        let (x1, y1) = (
            u64::from(area.x) + u64::from(area.width),
            u64::from(area.y) + u64::from(area.height),
        );
        if area.width == 0 || area.height == 0 {
            return Err(Error::invalid_edit(format!(
                "the area {area} holds no tiles"
            )));
        }
        if x1 > width as u64 || y1 > height as u64 {
            return Err(Error::invalid_edit(format!(
                "the area {area} reaches out of layer #{index}'s {width}x{height} tiles"
            )));
        }
        let replaced = match self.layers[index].content_mut() {
            LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => {
                replace_in(index, t, area, from, to)?
            }
            LayerContent::Tele(t) => replace_in(index, t, area, from, to)?,
            LayerContent::Speedup(t) => replace_in(index, t, area, from, to)?,
            LayerContent::Switch(t) => replace_in(index, t, area, from, to)?,
            LayerContent::Tune(t) => replace_in(index, t, area, from, to)?,
            _ => 0,
        };
        Ok(ReplaceTilesReport {
            layer: index,
            name,
            kind,
            area,
            from,
            to,
            replaced,
        })
    }
}

/// The error for a physics layer of any kind whose tiles did not load.
fn loaded_any(index: usize, layer: &Layer) -> Result<(), Error> {
    match layer.content_loads() {
        true => Ok(()),
        false => Err(Error::invalid_edit(format!(
            "layer #{index}'s tiles did not load; remove or repair the layer first"
        ))),
    }
}

/// The size of a tile layer's grid of any kind (`None` for other layers), or the error for
/// one whose tiles did not load.
fn tile_layer_size(index: usize, layer: &Layer) -> Result<Option<(usize, usize)>, Error> {
    fn size<T: TileKind>(index: usize, t: &TilesLayer<T>) -> Result<Option<(usize, usize)>, Error> {
        loaded(index, t).map(|g| Some((g.width(), g.height())))
    }
    match layer.content() {
        LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => size(index, t),
        LayerContent::Tele(t) => size(index, t),
        LayerContent::Speedup(t) => size(index, t),
        LayerContent::Switch(t) => size(index, t),
        LayerContent::Tune(t) => size(index, t),
        _ => Ok(None),
    }
}

/// Where the non-empty tiles of a layer land in the game layer: tile (x, y) at (x + ox,
/// y + oy), those at negative places left out.
#[derive(Clone, Copy)]
struct Places<'a> {
    grid: &'a Grid<Tile>,
    ox: i64,
    oy: i64,
}

impl<'a> Places<'a> {
    fn iter(self) -> impl Iterator<Item = (usize, usize)> + 'a {
        let Places { grid, ox, oy } = self;
        grid.rows().enumerate().flat_map(move |(y, row)| {
            let gy = usize::try_from(y as i64 + oy).ok();
            row.iter().enumerate().filter_map(move |(x, tile)| {
                let gx = usize::try_from(x as i64 + ox).ok()?;
                (tile.id != 0).then_some((gx, gy?))
            })
        })
    }
}

/// Writes `tile(old)` at each of `places` (inside the grid; others are skipped); how many
/// tiles changed. Nothing is marked changed when none does.
fn write_tiles<T: TileKind + Copy + PartialEq>(
    layer: &mut TilesLayer<T>,
    places: Places<'_>,
    tile: impl Fn(T) -> T,
) -> usize {
    let Some(grid) = layer.grid() else {
        return 0;
    };
    let differs = |&(x, y): &(usize, usize)| grid.get(x, y).is_some_and(|old| tile(*old) != *old);
    let changed = places.iter().filter(differs).count();
    if changed > 0 {
        if let Some(grid) = layer.grid_mut() {
            for (x, y) in places.iter() {
                if let Some(old) = grid.get_mut(x, y) {
                    *old = tile(*old);
                }
            }
        }
    }
    changed
}
