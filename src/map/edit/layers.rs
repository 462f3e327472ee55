//! Making layers, and adding, inserting, moving and removing them.

use twcodec_schema::map::layer::{
    self as item, LayerFlags, LayerHeader, PhysicsData, TilemapFlags, TilemapLayer,
};
use twcodec_schema::map::quad::Quad;
use twcodec_schema::map::sound::SoundSource;
use twcodec_schema::map::tile::{Speedup, Switch, Tele, Tile, TileKind, Tune};

use super::*;
use crate::error::Error;
use crate::map::grid::Grid;
use crate::map::layer::{Layer, LayerContent, QuadsLayer, SoundsLayer, TilesLayer};
use crate::map::{Group, ItemRef, Map, MapForm};

/// The physics kinds of layers, for the rules on adding them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Physics {
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
    pub(super) fn data_fields(&self) -> Vec<i32> {
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
pub(super) fn header(kind: i32) -> LayerHeader {
    LayerHeader {
        version: 0,
        kind,
        flags: LayerFlags::new(),
    }
}

/// A tile layer with its content.
pub(super) fn tile_layer(content: LayerContent) -> Layer {
    Layer::new(0, header(2), content)
}

/// A version-3 tilemap item as DDNet's editor writes it, for a grid of `T`.
pub(super) fn tilemap_item<T: TileKind>(
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
    Ok(crate::map::layer::ddnet_tilemap(
        width, height, flags, -1, -1, name,
    ))
}

/// Makes a layer ready to be added: a new item (not verbatim), its references none, its data
/// indices none with its content written anew, and its tilemap version the map form's.
pub(super) fn prepare_layer(layer: &mut Layer, form: MapForm) -> Result<(), Error> {
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

impl Map {
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

    /// The file index a layer inserted at `position` in group `group` gets: an error when the
    /// group's range lies outside the layers or the position past its end.
    pub(super) fn layer_slot(&self, group: usize, position: usize) -> Result<usize, Error> {
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

    /// The rules a new layer follows: physics layers in the game group, one of each kind, as
    /// large as the others; tile layers within the tile limit; content to write.
    pub(super) fn check_new_layer(&self, group: usize, layer: &Layer) -> Result<(), Error> {
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
        let has_content = layer.content_loads();
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
    pub(super) fn place_layer(&mut self, group: usize, at: usize, layer: Layer) {
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
    pub(super) fn take_layer(&mut self, index: usize) -> (Layer, Vec<crate::map::Automapper>) {
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
}
