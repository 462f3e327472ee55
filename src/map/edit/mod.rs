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
//! | [`Map::set_envelope_points`] | nothing else: the envelope keeps its place; its points are replaced where they are (later envelopes' `start_point` shift by the difference) unless another envelope shares them, then the new ones go at the end; tangents follow their points |
//! | [`Map::set_quads`], [`Map::set_sources`] | nothing else: the layer's quads or sources are replaced, each envelope reference checked (a value the layer holds already is kept) |
//! | [`Map::set_image_name`], [`Map::set_sound_name`], [`Map::set_envelope_name`], [`Map::set_envelope_synchronized`] | nothing else: the item keeps its place; an image's or sound's name data item is replaced |
//! | [`Map::replace_area`] | the tiles of an area of every tile layer (physics layers with their own data) are replaced by another map's of the same structure; quads and sound sources in the area are replaced by the other map's, moved; envelopes they name come along (an identical one shared), appended at the end; nothing is renumbered |
//! | [`Map::append`] | another map's images, sounds, envelopes (identical ones shared, taken names numbered) and groups are added at the end, every reference of their layers, quads and sources renumbered; its physics layers are dropped, the other layers of its game group get a group of their own; auto-mapper configurations and new server settings come along |
//! | [`Map::optimize`] | each step says what it changed; see [`Step`] and docs/optimize.md |
//! | [`Map::transform`] | the whole map turns: every tile layer with its tiles' flags, physics with the game's directions (speedup angles, stoppers, one-ways, checkpoints, rotating lasers), quads, sources, group offsets, parallax and clips, position envelopes; smaller layers of a group are extended with copies of their edge (invisible, as DDNet draws the edge repeated); tiles layers of the game group larger than the game layer on an axis the transform turns over move first, with the layers up to the group's start or end, to new groups just before or after it drawn as the game group is (offset 0, parallax 100, unclipped), keeping the draw order (one between two physics layers is an error) |
//! | [`Map::reframe`], [`Map::crop`], [`Map::shift`] | every tile layer of the group together (physics with the game layer; added physics tiles are air, other added tiles copy the edge); the group's offset, quads and sources keep the world in place; for the game group, the other groups' offsets and every clip move instead |
//! | [`Map::fill_game_tiles`] | DDNet's "Game tiles" button: the game layer (or the tele layer, for check-teles) gets the op's tile under every non-empty tile of a tiles layer, at its group's offset; the physics layers grow together at their right and bottom to hold it; hookthrough also writes the front layer, other ops clear hookthrough there; a missing front or tele layer is added at the end of the game group |
//! | [`Map::replace_tiles`] | the tiles of one id (and orientation) become another in a tile layer of any kind, or a rectangle of it; tele numbers, speedup forces and angles, switch numbers and delays stay |
//! | [`Map::scale_time`] | envelope point times, bezier time tangents, every envelope time offset and sound sources' delays |
//!
//! Rules every edit follows:
//!
//! - **References.** An [`ItemRef`](crate::map::ItemRef) checks that the map made it
//!   ([`ItemRef::is_of`](crate::map::ItemRef::is_of)). An edit
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
//!
//! The edits live by subject: `images.rs`, `sounds.rs`, `envelopes.rs` (and [`NewEnvelope`]),
//! `groups.rs` (and [`NewGroup`]), `layers.rs` (the `Layer::new_*` constructors, adding,
//! moving and removing layers), `references.rs` (the `set_*` methods), `merge.rs` (between
//! maps: [`Map::replace_area`], [`Map::append`] and their reports), `tiles.rs` (tiles changed
//! in place: [`Map::fill_game_tiles`], [`Map::replace_tiles`]); `data.rs` and
//! `renumber.rs` hold what every edit shares: the data items behind it and how indices shift.

mod data;
mod envelopes;
mod fields;
mod groups;
mod images;
mod layers;
mod merge;
mod optimize;
mod pictures;
mod references;
mod renumber;
mod sounds;
mod tiles;
mod transform;

use twcodec_schema::map::{I32String, Point};

use super::claims::Claims;
use super::layer::{Layer, LayerContent};
use super::{Map, MapStamp};
use crate::error::Error;

use crate::map::layer::NO_PHYSICS;
pub use envelopes::NewEnvelope;
pub use fields::InfoField;
pub use groups::NewGroup;
pub use images::MAX_IMAGE_NAME;
pub use merge::{
    AppendReport, AppendedGroup, AreaLayer, DroppedLayer, Merge, Merged, ReplaceAreaReport,
    TileRect, MAX_IMAGES, MAX_SOUNDS,
};
pub use optimize::{OptimizeOptions, OptimizeReport, Step, StepReport};
use renumber::{renumber_envelopes, Renumber};
pub use tiles::{GameTileOp, GameTilesReport, ReplaceTilesReport, TileSpec, ORIENTATION_FLAGS};
pub use transform::{Margins, Transform};

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

impl Map {
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
