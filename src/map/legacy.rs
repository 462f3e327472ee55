//! Teeworlds 0.3 maps upgraded to the map model of Teeworlds 0.4 and later, in DDNet form
//! (docs/format-notes.md, "Teeworlds 0.3 maps").
//!
//! A 0.3 map has no version item, groups or layers: it holds RGBA images, tilemaps of 2-byte
//! tiles, a collision map of one byte per tile, entities with pixel positions and a theme (the
//! schema's [`legacy`](twcodec_schema::map::legacy) items). [`upgrade`] builds the map they
//! stand for as a datafile in DDNet form, which the resolver then reads like any other map:
//!
//! | 0.3 item | becomes |
//! |---|---|
//! | image (`0x8001`) number i | embedded version-1 image i, named `legacy_image_i`, with the same pixel data |
//! | tilemap (`0x8002`) | a version-3 tiles layer, in file order, each tile's index and mirror flags kept; a tilemap not marked `main` gets the detail flag |
//! | collision map (`0x8003`, id 0) | the game layer, of its size: a non-zero byte is a solid tile |
//! | spawn, pickup, team spawn and flag stand (types 1 to 6) | an entity tile of the game layer, on the tile holding its pixel position |
//! | theme (`0x8fff`) | nothing: the backdrop it chose was the 0.3 client's own drawing |
//!
//! Every layer is in one group, "Game" (no offset, parallax 100), and the game layer goes just
//! before the first main tilemap (last when there is none), so that the layers the 0.3 client
//! drew behind the players stay behind them and the rest in front.
//!
//! What does not carry over exactly becomes a note: a warning when the 0.3 game would have
//! shown or played something differently (an entity that moves or goes, a pickup 0.4+ games
//! do not have, ignored fields, the built-in backdrop), an error when the 0.3 game itself could
//! not have read it (items too short, data too small, no collision map).
//!
//! Every allocation is bounded: each grid by [`Limits::max_tiles`] and all of them together by
//! [`Limits::max_layer_data`], and a grid is only made for data of its size that is there.
//! Image pixels are not inflated: their stored bytes go into the upgraded datafile as they are.

use std::collections::HashMap;

use twcodec_schema::datafile::{Item, Version};
use twcodec_schema::map::group::{Clip, GroupItem};
use twcodec_schema::map::image::ImageItem;
use twcodec_schema::map::info::VersionItem;
use twcodec_schema::map::layer::{
    LayerBody, LayerFlags, LayerHeader, LayerItem, LayerKind, TilemapFlags, TilemapLayer,
};
use twcodec_schema::map::legacy::{
    LegacyCollision, LegacyEntity, LegacyEntityKind, LegacyImage, LegacyTheme, LegacyTilemap,
};
use twcodec_schema::map::tile::grid_len;
use twcodec_schema::map::{cstring_data, decode_ints, encode_ints, I32String, MapItemKind, Point};

use super::problem::{ItemPlace, Problem, Problems};
use crate::datafile::Datafile;
use crate::error::{Error, Location};
use crate::limits::Limits;
use crate::write::DatafileWriter;

/// Item types of a 0.3 map (Teeworlds 0.3 `MAPRES_IMAGE` and the rest).
const IMAGE: u16 = 0x8001;
const TILEMAP: u16 = 0x8002;
const COLLISION: u16 = 0x8003;
const THEME: u16 = 0x8fff;
/// Entity item types: spawn, pickup, red spawn, blue spawn, red and blue flag stand.
const ENTITIES: std::ops::RangeInclusive<u16> = 1..=6;

/// Pixels per tile, in 0.3 positions and in 0.4+ games alike.
const TILE_PIXELS: i32 = 32;
/// The game tile of solid ground (0.4+ `TILE_SOLID`).
const TILE_SOLID: u8 = 1;
/// The game tile of entity 0 (0.4+ `ENTITY_OFFSET`, 255 - 16 * 4).
const ENTITY_OFFSET: u8 = 191;
/// Bytes of a 0.3 tile (index, flags) and of a 0.4+ tile.
const OLD_TILE_BYTES: usize = 2;
const TILE_BYTES: usize = 4;
/// The tile flags 0.3 knew: the two mirrors (bits 0 and 1).
const MIRROR_FLAGS: u8 = 0b11;
/// Fields of a 0.3 tilemap that its editor always wrote this way and nothing read.
const UNUSED_XY_SCALE: (i32, i32, i32) = (0, 0, 1 << 16);

/// 0.3 pickup kinds (Teeworlds 0.3 `ITEM_*`): the data of a pickup entity.
const PICKUP_GUN: i32 = 0x0001_0001;
const PICKUP_SHOTGUN: i32 = 0x0001_0002;
const PICKUP_ROCKET: i32 = 0x0001_0003;
const PICKUP_SNIPER: i32 = 0x0001_0004;
const PICKUP_HAMMER: i32 = 0x0001_0005;
const PICKUP_HEALTH: i32 = 0x0002_0001;
const PICKUP_ARMOR: i32 = 0x0003_0001;
const PICKUP_NINJA: i32 = 0x0004_0001;

/// The entities of 0.4+ game layers that 0.3 entities become (0.4+ `ENTITY_*`); a tile holds
/// `ENTITY_OFFSET` plus the number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GameEntity {
    Spawn = 1,
    SpawnRed = 2,
    SpawnBlue = 3,
    FlagstandRed = 4,
    FlagstandBlue = 5,
    Armor = 6,
    Health = 7,
    Shotgun = 8,
    Grenade = 9,
    Ninja = 10,
}

impl GameEntity {
    fn tile(self) -> u8 {
        ENTITY_OFFSET + self as u8
    }
}

/// The game entity of a 0.3 pickup kind, or why there is none.
fn pickup(kind: i32) -> Result<GameEntity, &'static str> {
    match kind {
        PICKUP_HEALTH => Ok(GameEntity::Health),
        PICKUP_ARMOR => Ok(GameEntity::Armor),
        PICKUP_SHOTGUN => Ok(GameEntity::Shotgun),
        // The rocket launcher is 0.4's grenade launcher.
        PICKUP_ROCKET => Ok(GameEntity::Grenade),
        PICKUP_NINJA => Ok(GameEntity::Ninja),
        PICKUP_GUN => Err("a gun pickup, which 0.4+ maps cannot hold"),
        PICKUP_HAMMER => Err("a hammer pickup, which 0.4+ maps cannot hold"),
        PICKUP_SNIPER => Err("a sniper pickup, which no 0.3 server spawned"),
        _ => Err("a pickup of an unknown kind, which the 0.3 server did not spawn"),
    }
}

/// A 0.3 map upgraded: the datafile of its 0.4+ model and what did not carry over exactly.
pub(crate) struct Upgraded {
    pub(crate) datafile: Datafile,
    pub(crate) notes: Vec<Problem>,
}

/// Builds the 0.4+ map a Teeworlds 0.3 map stands for (see the module docs). An error only
/// when a limit of the datafile's [`Limits`] is exceeded; everything else is a note.
pub(crate) fn upgrade(df: &Datafile) -> Result<Upgraded, Error> {
    let limits = df.limits();
    let mut upgrade = Upgrade {
        df,
        limits,
        notes: Problems::default(),
        writer: DatafileWriter::new().limits(limits),
        layer_data: 0,
    };
    let images = upgrade.images();
    let tilemaps = upgrade.tilemaps(images.len())?;
    let game = upgrade.game_layer(&tilemaps)?;
    upgrade.theme();
    upgrade.unknown_items();
    upgrade.finish(images, tilemaps, game)
}

struct Upgrade<'a> {
    df: &'a Datafile,
    limits: Limits,
    notes: Problems,
    writer: DatafileWriter,
    /// Bytes of the tile grids made so far, against [`Limits::max_layer_data`].
    layer_data: usize,
}

/// A tiles layer of the upgraded map, its tiles already a data item of the writer.
struct UpgradedTiles {
    /// The 0.3 tilemap it comes from.
    place: ItemPlace,
    name: String,
    width: i32,
    height: i32,
    image: i32,
    data: i32,
    main: bool,
}

/// The game layer of the upgraded map.
struct GameLayer {
    width: i32,
    height: i32,
    data: i32,
}

impl Upgrade<'_> {
    /// The item's place for notes: its kind, index among the items of its type, type and id.
    fn place(item: &Item, index: usize) -> ItemPlace {
        ItemPlace {
            kind: MapItemKind::of_legacy(item.type_id()).name(),
            index,
            type_id: item.type_id(),
            id: item.id(),
        }
    }

    fn located(error: Error, place: ItemPlace) -> Error {
        error.located(Location::MapItem {
            kind: place.kind,
            index: place.index,
            type_id: place.type_id,
            id: place.id,
        })
    }

    /// Checks a grid of `width` x `height` tiles against the limits and counts its bytes.
    fn grid_fits(&mut self, width: i32, height: i32, place: ItemPlace) -> Result<(), Error> {
        let tiles = grid_len(width, height).unwrap_or(0);
        if tiles > self.limits.max_tiles() {
            let error = Error::limit(format!(
                "{width}x{height} = {tiles} tiles, more than the limit of {} (Limits::max_tiles)",
                self.limits.max_tiles()
            ));
            return Err(Self::located(error, place));
        }
        self.layer_data = self
            .layer_data
            .saturating_add(tiles.saturating_mul(TILE_BYTES));
        if self.layer_data > self.limits.max_layer_data() {
            let error = Error::limit(format!(
                "the layers up to this one hold {} bytes once upgraded, more than the limit of \
                 {} (Limits::max_layer_data)",
                self.layer_data,
                self.limits.max_layer_data()
            ));
            return Err(Self::located(error, place));
        }
        Ok(())
    }

    /// The bytes of data item `raw` when it exists, loads and holds at least `need` bytes;
    /// else an error note saying what became of the item (`outcome`).
    fn data_of(
        &mut self,
        raw: i32,
        need: usize,
        what: &str,
        place: ItemPlace,
        outcome: &str,
    ) -> Option<Vec<u8>> {
        let count = self.df.data_count();
        let Some(index) = usize::try_from(raw).ok().filter(|&i| i < count) else {
            let message = format!("= {raw} names none of the {count} data items; {outcome}");
            self.notes.error(Some(place), Some("data"), message);
            return None;
        };
        match self.df.data(index) {
            Ok(bytes) if bytes.len() >= need => Some(bytes.into_owned()),
            Ok(bytes) => {
                let message = format!(
                    "= {index} holds {} bytes, {what} need {need}; {outcome}",
                    bytes.len()
                );
                self.notes.error(Some(place), Some("data"), message);
                None
            }
            Err(error) => {
                let message = format!("= {index} does not load: {error}; {outcome}");
                self.notes.error(Some(place), Some("data"), message);
                None
            }
        }
    }

    /// The images, in file order (a tilemap names one by its index). An image whose pixels
    /// cannot be read becomes an external one of the same name, so that the indices stay.
    fn images(&mut self) -> Vec<ImageItem> {
        let df = self.df;
        let mut images = Vec::new();
        for (index, item) in df.items_of_type(IMAGE).iter().enumerate() {
            let place = Self::place(item, index);
            let name = format!("legacy_image_{index}");
            let name = self.writer.add_data(cstring_data(name.as_bytes())) as i32;
            let outcome = "written as an external image";
            let (width, height, data) = match decode_ints::<LegacyImage>(&item.data, ()) {
                Ok(image) => {
                    let data = self.pixels(&image, place, outcome);
                    (image.width, image.height, data)
                }
                Err(_) => {
                    let message = format!(
                        "is too short for its layout ({} ints of 3); {outcome}",
                        item.data.len()
                    );
                    self.notes.error(Some(place), None, message);
                    (0, 0, None)
                }
            };
            images.push(ImageItem {
                version: 1,
                width,
                height,
                external: i32::from(data.is_none()),
                name,
                data: data.unwrap_or(-1),
                format: None,
                unknown_tail: Vec::new(),
            });
        }
        images
    }

    /// The writer's data item of an image's RGBA pixels: the stored bytes as they are when
    /// they hold exactly the pixels, the pixels alone when they hold more.
    fn pixels(&mut self, image: &LegacyImage, place: ItemPlace, outcome: &str) -> Option<i32> {
        let (width, height) = (image.width, image.height);
        let need = usize::try_from(width)
            .ok()
            .zip(usize::try_from(height).ok())
            .filter(|&(w, h)| w > 0 && h > 0)
            .and_then(|(w, h)| w.checked_mul(h)?.checked_mul(4));
        let Some(need) = need else {
            let message = format!("{width}x{height} is no image size; {outcome}");
            self.notes.error(Some(place), Some("width"), message);
            return None;
        };
        let df = self.df;
        let stored = usize::try_from(image.data)
            .ok()
            .and_then(|index| Some((df.data_size(index)?, df.stored_data(index)?)));
        match stored {
            Some((size, stored)) if size == need => Some(match df.version() {
                Version::V4 => self.writer.add_zlib_data(stored, size),
                Version::V3 => self.writer.add_data(stored),
            } as i32),
            _ => {
                let what = format!("{width}x{height} RGBA pixels");
                let mut bytes = self.data_of(image.data, need, &what, place, outcome)?;
                if bytes.len() > need {
                    let message = format!(
                        "holds {} bytes, more than the {need} of {what}, which are all the 0.3 \
                         client read; the rest dropped",
                        bytes.len()
                    );
                    self.notes.warning(Some(place), Some("data"), message);
                    bytes.truncate(need);
                }
                Some(self.writer.add_data(bytes) as i32)
            }
        }
    }

    /// The tiles layers, in file order; a tilemap without a tile grid or its tiles is left out.
    fn tilemaps(&mut self, images: usize) -> Result<Vec<UpgradedTiles>, Error> {
        let df = self.df;
        let items = df.items_of_type(TILEMAP);
        let layers = items.len().saturating_add(1);
        if layers > self.limits.max_layers() {
            return Err(Error::limit(format!(
                "the map has {} tilemaps, which make {layers} layers, more than the limit of {} \
                 (Limits::max_layers)",
                items.len(),
                self.limits.max_layers()
            )));
        }
        let mut layers = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let place = Self::place(item, index);
            let outcome = "not carried over";
            let Ok(tilemap) = decode_ints::<LegacyTilemap>(&item.data, ()) else {
                let message = format!(
                    "is too short for its layout ({} ints of 8); {outcome}",
                    item.data.len()
                );
                self.notes.error(Some(place), None, message);
                continue;
            };
            let (width, height) = (tilemap.width, tilemap.height);
            let Ok(count) = grid_len(width, height) else {
                let message = format!("{width}x{height} is no tile grid; {outcome}");
                self.notes.error(Some(place), Some("width"), message);
                continue;
            };
            self.grid_fits(width, height, place)?;
            let need = count.saturating_mul(OLD_TILE_BYTES);
            let what = format!("{width}x{height} tiles of 2 bytes");
            let Some(old) = self.data_of(tilemap.data, need, &what, place, outcome) else {
                continue;
            };
            let mut tiles = vec![0u8; count.saturating_mul(TILE_BYTES)];
            let mut other_flags = 0usize;
            for (tile, old) in tiles
                .chunks_exact_mut(TILE_BYTES)
                .zip(old.chunks_exact(OLD_TILE_BYTES))
            {
                tile[0] = old[0];
                tile[1] = old[1] & MIRROR_FLAGS;
                other_flags += usize::from(old[1] & !MIRROR_FLAGS != 0);
            }
            if other_flags > 0 {
                let message = format!(
                    "has flag bits other than the two mirrors in {other_flags} of its tiles, \
                     which the 0.3 client ignored and 0.4+ clients read as opaque or rotated; \
                     cleared"
                );
                self.notes.warning(Some(place), Some("data"), message);
            }
            let image = if (0..images as i64).contains(&i64::from(tilemap.image)) {
                tilemap.image
            } else {
                let message = format!(
                    "= {} names none of the {images} images; the layer has no image",
                    tilemap.image
                );
                self.notes.warning(Some(place), Some("image"), message);
                -1
            };
            let xy_scale = (tilemap.x, tilemap.y, tilemap.scale);
            if xy_scale != UNUSED_XY_SCALE {
                let message = format!(
                    "x = {}, y = {}, scale = {}: the 0.3 client and editor ignored these \
                     fields, and so does the upgrade",
                    tilemap.x, tilemap.y, tilemap.scale
                );
                self.notes.warning(Some(place), None, message);
            }
            let main = tilemap.main != 0;
            layers.push(UpgradedTiles {
                place,
                name: format!("{} {index}", if main { "Main" } else { "Detail" }),
                width,
                height,
                image,
                data: self.writer.add_data(tiles) as i32,
                main,
            });
        }
        Ok(layers)
    }

    /// The game layer: the collision map's solid tiles with the entities on them. Without a
    /// collision map, the 0.4 editor's rule gives its size: the first main tilemap's (or the
    /// first tilemap's, when none is main).
    fn game_layer(&mut self, tilemaps: &[UpgradedTiles]) -> Result<Option<GameLayer>, Error> {
        let mut grid = match self.collision()? {
            Some(grid) => grid,
            None => {
                let Some(main) = tilemaps.iter().find(|t| t.main).or(tilemaps.first()) else {
                    return Ok(None);
                };
                let count = grid_len(main.width, main.height).unwrap_or(0);
                self.grid_fits(main.width, main.height, main.place)?;
                let tiles = vec![0u8; count.saturating_mul(TILE_BYTES)];
                Grid {
                    width: main.width,
                    height: main.height,
                    tiles,
                }
            }
        };
        self.entities(&mut grid);
        Ok(Some(GameLayer {
            width: grid.width,
            height: grid.height,
            data: self.writer.add_data(grid.tiles) as i32,
        }))
    }

    /// The collision map as game tiles: the one with id 0, which is the one the 0.3 game
    /// reads.
    fn collision(&mut self) -> Result<Option<Grid>, Error> {
        let df = self.df;
        let mut chosen = None;
        for (index, item) in df.items_of_type(COLLISION).iter().enumerate() {
            let place = Self::place(item, index);
            if item.id() == 0 && chosen.is_none() {
                chosen = Some((item, place));
            } else {
                let message = "a collision map other than the one with id 0, which the 0.3 \
                               game reads; ignored";
                self.notes.warning(Some(place), None, message);
            }
        }
        let outcome = "the game layer is all air";
        let Some((item, place)) = chosen else {
            let message = format!(
                "the map has no collision map with id 0, without which the 0.3 game cannot \
                 run it; {outcome}"
            );
            self.notes.error(None, None, message);
            return Ok(None);
        };
        let Ok(collision) = decode_ints::<LegacyCollision>(&item.data, ()) else {
            let message = format!(
                "is too short for its layout ({} ints of 3); {outcome}",
                item.data.len()
            );
            self.notes.error(Some(place), None, message);
            return Ok(None);
        };
        let (width, height) = (collision.width, collision.height);
        let Ok(count) = grid_len(width, height) else {
            let message = format!("{width}x{height} is no tile grid; {outcome}");
            self.notes.error(Some(place), Some("width"), message);
            return Ok(None);
        };
        self.grid_fits(width, height, place)?;
        let what = format!("{width}x{height} tiles of 1 byte");
        let Some(bytes) = self.data_of(collision.data, count, &what, place, outcome) else {
            return Ok(None);
        };
        let mut tiles = vec![0u8; count.saturating_mul(TILE_BYTES)];
        for (tile, &solid) in tiles.chunks_exact_mut(TILE_BYTES).zip(&bytes) {
            // The 0.3 game tests the byte for non-zero.
            tile[0] = if solid != 0 { TILE_SOLID } else { 0 };
        }
        let grid = Grid {
            width,
            height,
            tiles,
        };
        self.edges(&grid, place);
        Ok(Some(grid))
    }

    /// Notes where the map's edge behaves otherwise in 0.4+ games: the 0.3 game made all
    /// beyond the left, right and bottom edges solid and all above the top free, 0.4+ games
    /// extend the edge tiles outward.
    fn edges(&mut self, grid: &Grid, place: ItemPlace) {
        let (width, height) = (grid.width as usize, grid.height as usize);
        let solid = |x: usize, y: usize| grid.tile(x, y) == Some(TILE_SOLID);
        let sides = (0..height).flat_map(|y| [(0, y), (width - 1, y)]);
        let bottom = (0..width).map(|x| (x, height - 1));
        let mut edge: Vec<(usize, usize)> = sides.chain(bottom).collect();
        edge.sort_unstable();
        edge.dedup();
        let open = edge.iter().filter(|&&(x, y)| !solid(x, y)).count();
        let top_solid = (0..width).filter(|&x| solid(x, 0)).count();
        // Above a solid top row only a player already above the map notices the difference.
        let top_solid = if top_solid < width { top_solid } else { 0 };
        let mut parts = Vec::new();
        if open > 0 {
            parts.push(format!(
                "{open} air tiles on the left, right or bottom edge, beyond which the 0.3 game \
                 was solid"
            ));
        }
        if top_solid > 0 {
            parts.push(format!(
                "{top_solid} solid tiles on the top edge, which has air too, above which the \
                 0.3 game was open"
            ));
        }
        if !parts.is_empty() {
            let message = format!(
                "the map's edge is open: {}; 0.4+ games extend the edge tiles outward",
                parts.join(", and ")
            );
            self.notes.warning(Some(place), Some("data"), message);
        }
    }

    /// Puts the entities on the game layer, in the order the 0.4 editor did (by type, then
    /// file order), on the tile holding each one's pixel position.
    fn entities(&mut self, grid: &mut Grid) {
        let df = self.df;
        let mut placed: HashMap<(usize, usize), ItemPlace> = HashMap::new();
        for type_id in ENTITIES {
            let Some(kind) = LegacyEntityKind::from_type_id(type_id) else {
                continue;
            };
            for (index, item) in df.items_of_type(type_id).iter().enumerate() {
                let place = Self::place(item, index);
                let Ok(entity) = decode_ints::<LegacyEntity>(&item.data, ()) else {
                    let message = format!(
                        "is too short for its position ({} ints of 2); not carried over",
                        item.data.len()
                    );
                    self.notes.error(Some(place), None, message);
                    continue;
                };
                match game_entity(kind, item.id(), &entity) {
                    Ok(what) => self.place_entity(grid, &entity, what, place, &mut placed),
                    Err(Dropped { error, field, why }) => {
                        let message = format!("{why}; dropped");
                        match error {
                            true => self.notes.error(Some(place), field, message),
                            false => self.notes.warning(Some(place), field, message),
                        }
                    }
                }
            }
        }
    }

    fn place_entity(
        &mut self,
        grid: &mut Grid,
        entity: &LegacyEntity,
        what: GameEntity,
        place: ItemPlace,
        placed: &mut HashMap<(usize, usize), ItemPlace>,
    ) {
        let (x, y) = (entity.x, entity.y);
        let (tile_x, tile_y) = (x.div_euclid(TILE_PIXELS), y.div_euclid(TILE_PIXELS));
        let cell = usize::try_from(tile_x)
            .ok()
            .zip(usize::try_from(tile_y).ok())
            .filter(|&(cx, cy)| grid.tile(cx, cy).is_some());
        let Some((cell_x, cell_y)) = cell else {
            let message = format!(
                "at pixel ({x}, {y}), tile ({tile_x}, {tile_y}), outside the {}x{} game layer, \
                 which holds 0.4+ entities; dropped",
                grid.width, grid.height
            );
            return self.notes.warning(Some(place), None, message);
        };
        let half = TILE_PIXELS / 2;
        if x.rem_euclid(TILE_PIXELS) != half || y.rem_euclid(TILE_PIXELS) != half {
            let message = format!(
                "at pixel ({x}, {y}); moved to the center of its tile ({tile_x}, {tile_y}), \
                 pixel ({}, {}), where 0.4+ games put entities",
                tile_x * TILE_PIXELS + half,
                tile_y * TILE_PIXELS + half
            );
            self.notes.warning(Some(place), None, message);
        }
        if let Some(earlier) = placed.insert((cell_x, cell_y), place) {
            let message = format!(
                "on tile ({tile_x}, {tile_y}) with {earlier}, which it replaces: a game tile \
                 holds one entity"
            );
            self.notes.warning(Some(place), None, message);
        } else if grid.tile(cell_x, cell_y) == Some(TILE_SOLID) {
            let message = format!(
                "on tile ({tile_x}, {tile_y}), which the collision map makes solid; the tile \
                 holds the entity and is no longer solid"
            );
            self.notes.warning(Some(place), None, message);
        }
        grid.set(cell_x, cell_y, what.tile());
    }

    /// The theme: the 0.3 client drew a backdrop of its own behind every map, chosen by the
    /// theme item with id 0; 0.4+ maps draw their own backgrounds.
    fn theme(&mut self) {
        let df = self.df;
        let theme = df
            .items_of_type(THEME)
            .iter()
            .enumerate()
            .find_map(|(i, item)| {
                let theme = decode_ints::<LegacyTheme>(&item.data, ()).ok()?;
                (item.id() == 0).then_some((Self::place(item, i), theme.id))
            });
        let backdrop = match theme {
            Some((_, 1)) => "theme 1, a winter night (sky, stars, moon and snow)",
            _ => "the summer day of maps without theme 1 (sun, clouds and hills)",
        };
        let message = format!(
            "the 0.3 client drew {backdrop} behind the map from its own images; 0.4+ maps draw \
             their own background, so the upgraded map has none"
        );
        self.notes
            .warning(theme.map(|(place, _)| place), None, message);
    }

    /// Items of types 0.3 maps do not have.
    fn unknown_items(&mut self) {
        let df = self.df;
        let mut of_type: HashMap<u16, usize> = HashMap::new();
        for item in df.items() {
            let index = of_type.entry(item.type_id()).or_default();
            let place = Self::place(item, *index);
            *index += 1;
            if MapItemKind::of_legacy(item.type_id()) == MapItemKind::Unknown {
                let message = "an item of a type Teeworlds 0.3 maps do not have; not carried over";
                self.notes.warning(Some(place), None, message);
            }
        }
    }

    /// The upgraded datafile: version, images, the group, its layers.
    fn finish(
        mut self,
        images: Vec<ImageItem>,
        tilemaps: Vec<UpgradedTiles>,
        game: Option<GameLayer>,
    ) -> Result<Upgraded, Error> {
        let version = VersionItem {
            version: 1,
            unknown_tail: Vec::new(),
        };
        self.writer.add_item(0, 0, encode(&version)?);
        for (id, image) in images.iter().enumerate() {
            self.writer.add_item(2, id as u16, encode(image)?);
        }
        // The game layer goes before the first main tilemap: what follows it is drawn in front
        // of the players, as the 0.3 client drew the main tilemap and those after it.
        let at = tilemaps
            .iter()
            .position(|t| t.main)
            .unwrap_or(tilemaps.len());
        let mut layers: Vec<LayerItem> = tilemaps.iter().map(tiles_layer).collect();
        if let Some(game) = &game {
            layers.insert(at, game_layer(game));
        }
        let group = GroupItem {
            version: 3,
            offset: Point { x: 0, y: 0 },
            parallax: Point { x: 100, y: 100 },
            start_layer: 0,
            num_layers: layers.len() as i32,
            clip: Some(Clip::default()),
            name: Some(I32String::new(b"Game")),
            unknown_tail: Vec::new(),
        };
        self.writer.add_item(4, 0, encode(&group)?);
        for (id, layer) in layers.iter().enumerate() {
            self.writer.add_item(5, id as u16, encode(layer)?);
        }
        let bytes = self.writer.to_vec()?;
        let datafile = Datafile::from_bytes_with(bytes, self.limits)?;
        Ok(Upgraded {
            datafile,
            notes: self.notes.list,
        })
    }
}

fn encode<T>(item: &T) -> Result<Vec<i32>, Error>
where
    T: for<'a> binrw::BinWrite<Args<'a> = ()>,
{
    encode_ints(item, ()).map_err(|e| Error::from_binrw(e, "upgraded map item"))
}

/// Why a 0.3 entity becomes no game entity: an error when the 0.3 game could not read it
/// either, and the field that says.
struct Dropped {
    error: bool,
    field: Option<&'static str>,
    why: String,
}

/// The game entity a 0.3 entity becomes, or why it becomes none.
fn game_entity(
    kind: LegacyEntityKind,
    id: u16,
    entity: &LegacyEntity,
) -> Result<GameEntity, Dropped> {
    // The 0.3 server reads one flag stand per team: the item with id 0.
    let flag = |entity: GameEntity, team: &str| match id {
        0 => Ok(entity),
        _ => Err(Dropped {
            error: false,
            field: None,
            why: format!(
                "a {team} flag stand with id {id}, which the 0.3 server did not read (it reads \
                 the one with id 0)"
            ),
        }),
    };
    match kind {
        LegacyEntityKind::Spawn => Ok(GameEntity::Spawn),
        LegacyEntityKind::SpawnRed => Ok(GameEntity::SpawnRed),
        LegacyEntityKind::SpawnBlue => Ok(GameEntity::SpawnBlue),
        LegacyEntityKind::FlagstandRed => flag(GameEntity::FlagstandRed, "red"),
        LegacyEntityKind::FlagstandBlue => flag(GameEntity::FlagstandBlue, "blue"),
        LegacyEntityKind::Pickup => match entity.data.first() {
            Some(&kind) => pickup(kind).map_err(|why| Dropped {
                error: false,
                field: Some("data"),
                why: format!("= {kind:#010x}: {why}"),
            }),
            None => Err(Dropped {
                error: true,
                field: Some("data"),
                why: "is empty: a pickup without its kind, which the 0.3 server read from past \
                      the item"
                    .to_string(),
            }),
        },
    }
}

/// A grid of 0.4+ tiles as bytes, 4 per tile.
struct Grid {
    width: i32,
    height: i32,
    tiles: Vec<u8>,
}

impl Grid {
    fn offset(&self, x: usize, y: usize) -> Option<usize> {
        let (width, height) = (self.width as usize, self.height as usize);
        (x < width && y < height).then(|| (y * width + x) * TILE_BYTES)
    }

    /// The tile index at (x, y).
    fn tile(&self, x: usize, y: usize) -> Option<u8> {
        self.tiles.get(self.offset(x, y)?).copied()
    }

    fn set(&mut self, x: usize, y: usize, index: u8) {
        if let Some(tile) = self.offset(x, y).and_then(|at| self.tiles.get_mut(at)) {
            *tile = index;
        }
    }
}

fn layer(detail: bool, tilemap: TilemapLayer) -> LayerItem {
    LayerItem {
        header: LayerHeader {
            version: 0,
            kind: LayerKind::Tilemap.to_i32(),
            flags: LayerFlags::new().with_detail(detail),
        },
        body: LayerBody::Tilemap(tilemap),
    }
}

/// A 0.3 tilemap's layer: the 0.3 client drew tilemaps other than the main ones only in high
/// detail, which is what the detail flag means to 0.4+ clients.
fn tiles_layer(tiles: &UpgradedTiles) -> LayerItem {
    let item = ddnet_tilemap_named(
        tiles.width,
        tiles.height,
        TilemapFlags::new(),
        tiles.image,
        tiles.data,
        &tiles.name,
    );
    layer(!tiles.main, item)
}

fn game_layer(game: &GameLayer) -> LayerItem {
    let flags = TilemapFlags::new().with_game(true);
    let item = ddnet_tilemap_named(game.width, game.height, flags, -1, game.data, "Game");
    layer(false, item)
}

/// A DDNet tilemap item (`ddnet_tilemap`) named `name`.
fn ddnet_tilemap_named(
    width: i32,
    height: i32,
    flags: TilemapFlags,
    image: i32,
    data: i32,
    name: &str,
) -> TilemapLayer {
    let name = I32String::new(name.as_bytes());
    super::layer::ddnet_tilemap(width, height, flags, image, data, name)
}
