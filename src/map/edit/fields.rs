//! A map from nothing, and the fields people change: the info texts and server settings, a
//! group's name, offset, parallax and clip, a layer's name, detail flag and color.

use twcodec_schema::map::common::Color;
use twcodec_schema::map::group::Clip;
use twcodec_schema::map::info::InfoItem;
use twcodec_schema::map::tile::Tile;
use twcodec_schema::map::{settings_data, Point};

use super::*;
use crate::error::Error;
use crate::map::layer::{Layer, LayerContent};
use crate::map::{Grid, Group, ItemRef, LoadMode, Map, NewGroup, Stored};
use crate::DatafileWriter;

/// A text field of the map info (DDNet's "Map details"): each a NUL-terminated string of at
/// most its capacity with the NUL (`CMapItemInfo`; DDNet's editor cuts longer ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InfoField {
    /// The author, at most 31 bytes.
    Author,
    /// The map's version, at most 15 bytes.
    Version,
    /// Credits, at most 127 bytes.
    Credits,
    /// The license, at most 31 bytes.
    License,
}

impl InfoField {
    /// Every field, in the item's order.
    pub const ALL: [InfoField; 4] = [
        InfoField::Author,
        InfoField::Version,
        InfoField::Credits,
        InfoField::License,
    ];

    /// `author`, `version`, `credits` or `license`.
    pub fn name(self) -> &'static str {
        match self {
            InfoField::Author => "author",
            InfoField::Version => "version",
            InfoField::Credits => "credits",
            InfoField::License => "license",
        }
    }

    /// The field of that name.
    pub fn from_name(name: &str) -> Option<InfoField> {
        InfoField::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The most bytes the text may have (without its NUL), as DDNet's buffers hold them.
    pub fn capacity(self) -> usize {
        match self {
            InfoField::Author | InfoField::License => 31,
            InfoField::Version => 15,
            InfoField::Credits => 127,
        }
    }

    fn slot(self, item: &mut InfoItem) -> &mut i32 {
        match self {
            InfoField::Author => &mut item.author,
            InfoField::Version => &mut item.map_version,
            InfoField::Credits => &mut item.credits,
            InfoField::License => &mut item.license,
        }
    }
}

impl Map {
    /// A DDNet map from nothing: a version item, an empty info item, and a group "Game" holding
    /// a `width` x `height` game layer of air. It writes a file DDNet loads (add a spawn to
    /// play it).
    ///
    /// ```
    /// use twcodec::Map;
    /// let map = Map::new(100, 50)?;
    /// assert_eq!(map.game_layer().unwrap().1.grid().unwrap().width(), 100);
    /// assert!(map.problems().is_empty());
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn new(width: usize, height: usize) -> Result<Map, Error> {
        let grid = Grid::filled(width, height, Tile::default())
            .filter(|_| width >= 2 && height >= 2)
            .ok_or_else(|| {
                Error::invalid_edit(format!(
                    "a game layer of {width}x{height} tiles: at least 2x2, within memory"
                ))
            })?;
        // The version item (type 0, version 1), read as a map: no game layer yet.
        let mut writer = DatafileWriter::new();
        writer.add_item(0, 0, vec![1]);
        let mut map = Map::parse_with(&writer.to_vec()?, LoadMode::Lenient)?;
        let group = map.add_group(NewGroup::new("Game"))?;
        map.add_layer(group, Layer::new_game(grid)?)?;
        let item = InfoItem {
            version: 1,
            author: -1,
            map_version: -1,
            credits: -1,
            license: -1,
            settings: Some(-1),
            unknown_tail: Vec::new(),
        };
        map.info = Some(Stored::new(0, item, None));
        // What the resolver said of the version item alone (no game layer) is no longer so.
        map.problems.clear();
        Ok(map)
    }

    /// The info item, made empty when the map has none.
    fn info_mut(&mut self) -> &mut Stored<InfoItem> {
        self.info.get_or_insert_with(|| {
            let item = InfoItem {
                version: 1,
                author: -1,
                map_version: -1,
                credits: -1,
                license: -1,
                settings: Some(-1),
                unknown_tail: Vec::new(),
            };
            Stored::new(0, item, None)
        })
    }

    /// Sets an info text (`None` or `""` removes it). An error, changing nothing, for a text
    /// longer than the field holds or holding a NUL.
    ///
    /// ```
    /// use twcodec::map::edit::InfoField;
    /// # let mut map = twcodec::Map::new(10, 10)?;
    /// map.set_info(InfoField::Author, Some("Tee"))?;
    /// assert_eq!(map.info().unwrap().author(&map).as_deref(), Some("Tee"));
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn set_info(&mut self, field: InfoField, text: Option<&str>) -> Result<(), Error> {
        let text = text.filter(|t| !t.is_empty());
        let what = format!("the info's {}", field.name());
        let bytes = match text {
            Some(text) => {
                if text.len() > field.capacity() {
                    return Err(Error::invalid_edit(format!(
                        "{what} {text:?} is {} bytes; DDNet keeps at most {}",
                        text.len(),
                        field.capacity()
                    )));
                }
                Some(self.text_data(&what, text)?)
            }
            None => None,
        };
        let old = *field.slot(&mut self.info_mut().item);
        let new = match bytes {
            Some(bytes) => self.replaced_data(old, bytes.into())?,
            None => -1,
        };
        let info = self.info_mut();
        *field.slot(&mut info.item) = new;
        touched(true, &mut info.verbatim);
        if new != old {
            self.remove_unused_data([old]);
        }
        Ok(())
    }

    /// Sets DDNet's server settings (commands run when the map loads); an empty list removes
    /// them (no data item, as DDNet's editor saves a map without settings).
    pub fn set_settings<S: AsRef<str>>(&mut self, settings: &[S]) -> Result<(), Error> {
        let limits = self.limits();
        limits.check_strings("the settings", settings.len())?;
        for (n, setting) in settings.iter().enumerate() {
            let setting = setting.as_ref();
            if setting.contains('\0') {
                return Err(Error::invalid_edit(format!(
                    "setting #{n} {setting:?} holds a NUL"
                )));
            }
        }
        let strings: Vec<&str> = settings.iter().map(AsRef::as_ref).collect();
        let old = self.info_mut().item.settings.unwrap_or(-1);
        let new = if strings.is_empty() {
            -1
        } else {
            let bytes = settings_data(&strings);
            limits.check_string_bytes("the settings", bytes.len())?;
            self.replaced_data(old, bytes.into())?
        };
        let info = self.info_mut();
        info.item.settings = Some(new);
        touched(true, &mut info.verbatim);
        if new != old {
            self.remove_unused_data([old]);
        }
        Ok(())
    }

    /// The group's item, to change, and whether it holds the game layer.
    fn group_for_edit(&mut self, group: ItemRef<Group>) -> Result<(usize, bool), Error> {
        let index = self.checked(group)?;
        let game = self
            .game_layer()
            .and_then(|(r, _)| self.group_of(r))
            .is_some_and(|g| g.index() == index);
        Ok((index, game))
    }

    /// Renames a group (at most 11 bytes).
    pub fn set_group_name(&mut self, group: ItemRef<Group>, name: &str) -> Result<(), Error> {
        let (index, _) = self.group_for_edit(group)?;
        let name = item_name("the group name", name)?;
        let group = &mut self.groups[index];
        group.item.name = Some(name);
        touched(true, &mut group.verbatim);
        Ok(())
    }

    /// Sets a group's offset, in world pixels. The game group's offset is 0: DDNet resets it
    /// at load, so changing it is an error.
    pub fn set_group_offset(&mut self, group: ItemRef<Group>, offset: Point) -> Result<(), Error> {
        let (index, game) = self.group_for_edit(group)?;
        if game && offset != Point::default() {
            return Err(Error::invalid_edit(
                "the game group's offset is 0,0: DDNet resets it when it loads the map",
            ));
        }
        let group = &mut self.groups[index];
        group.item.offset = offset;
        touched(true, &mut group.verbatim);
        Ok(())
    }

    /// Sets a group's parallax, in percent (100 moves with the game layer), and its DDNet
    /// parallax zoom when that followed the parallax. The game group's parallax is 100,100.
    pub fn set_group_parallax(
        &mut self,
        group: ItemRef<Group>,
        parallax: Point,
    ) -> Result<(), Error> {
        let (index, game) = self.group_for_edit(group)?;
        if game && parallax != (Point { x: 100, y: 100 }) {
            return Err(Error::invalid_edit(
                "the game group's parallax is 100,100: DDNet resets it when it loads the map",
            ));
        }
        let old = self.groups[index].item.parallax;
        if self.group_ex.len() == self.groups.len() {
            if let Some((_, ex)) = self.group_ex.get_mut(index) {
                if ex.parallax_zoom == parallax_zoom(old) {
                    ex.parallax_zoom = parallax_zoom(parallax);
                }
            }
        }
        let group = &mut self.groups[index];
        group.item.parallax = parallax;
        touched(true, &mut group.verbatim);
        Ok(())
    }

    /// Sets a group's clipping rectangle (x, y, width, height in world pixels), or `None` to
    /// draw everywhere. The game group is not clipped: DDNet resets its clip.
    pub fn set_group_clip(
        &mut self,
        group: ItemRef<Group>,
        clip: Option<(i32, i32, i32, i32)>,
    ) -> Result<(), Error> {
        let (index, game) = self.group_for_edit(group)?;
        if game && clip.is_some() {
            return Err(Error::invalid_edit(
                "the game group is not clipped: DDNet resets its clip when it loads the map",
            ));
        }
        if let Some((_, _, w, h)) = clip {
            if w < 0 || h < 0 {
                return Err(Error::invalid_edit(format!(
                    "a clip of {w}x{h}: width and height are at least 0"
                )));
            }
        }
        let group = &mut self.groups[index];
        let kept = group.item.clip.unwrap_or_default();
        group.item.clip = Some(match clip {
            Some((x, y, width, height)) => Clip {
                enabled: 1,
                x,
                y,
                width,
                height,
            },
            None => Clip { enabled: 0, ..kept },
        });
        touched(true, &mut group.verbatim);
        Ok(())
    }

    /// The layer, to change, by reference.
    fn layer_for_edit(&mut self, layer: ItemRef<Layer>) -> Result<(usize, &mut Layer), Error> {
        let index = self.checked(layer)?;
        Ok((index, &mut self.layers[index]))
    }

    /// Renames a layer (at most 11 bytes). Physics layers keep DDNet's names by convention
    /// ("Game", "Front", ...), but any name loads.
    pub fn set_layer_name(&mut self, layer: ItemRef<Layer>, name: &str) -> Result<(), Error> {
        let name = item_name("the layer name", name)?;
        let (index, target) = self.layer_for_edit(layer)?;
        match &mut target.content {
            LayerContent::Quads(q) => q.item_mut().name = Some(name),
            LayerContent::Sounds(s) => s.item_mut().name = Some(name),
            LayerContent::Unknown(_) => {
                return Err(Error::invalid_edit(format!(
                    "layer #{index} is of a type this library does not know; it has no name \
                     field to set"
                )))
            }
            content => {
                if let Some(item) = content.tilemap_mut() {
                    item.name = Some(name);
                }
            }
        }
        target.verbatim = None;
        Ok(())
    }

    /// Sets a layer's detail flag (drawn only with the client's "high detail" setting).
    pub fn set_layer_detail(&mut self, layer: ItemRef<Layer>, detail: bool) -> Result<(), Error> {
        let (index, target) = self.layer_for_edit(layer)?;
        if target.is_physics() && detail {
            return Err(Error::invalid_edit(format!(
                "layer #{index} is a {} layer; physics layers are never detail",
                target.kind_name()
            )));
        }
        target.header.flags.set_detail(detail);
        target.verbatim = None;
        Ok(())
    }

    /// Sets a tiles layer's color (each channel 0 to 255; 255,255,255,255 draws the tileset as
    /// it is).
    pub fn set_layer_color(&mut self, layer: ItemRef<Layer>, color: Color) -> Result<(), Error> {
        for (channel, value) in [
            ("r", color.r),
            ("g", color.g),
            ("b", color.b),
            ("a", color.a),
        ] {
            if !(0..=255).contains(&value) {
                return Err(Error::invalid_edit(format!(
                    "color channel {channel} = {value}: each channel is 0 to 255"
                )));
            }
        }
        let (index, target) = self.layer_for_edit(layer)?;
        let LayerContent::Tiles(tiles) = &mut target.content else {
            return Err(wrong_kind(index, target, "tiles"));
        };
        tiles.item_mut().color = color;
        target.verbatim = None;
        Ok(())
    }
}
