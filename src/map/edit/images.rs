//! Adding, removing, replacing and moving images.

use bytes::Bytes;
use twcodec_schema::map::image::{ImageFormat, ImageItem};

use super::*;
use crate::error::Error;
use crate::map::layer::LayerContent;
use crate::map::{Image, ItemRef, Map, MapForm, Stored};

/// The most bytes an image name may have: DDNet loads an external image from
/// `mapres/NAME.png` through a path buffer of 512 bytes (`IO_MAX_PATH_LENGTH`) with its NUL.
pub const MAX_IMAGE_NAME: usize = 512 - "mapres/".len() - ".png".len() - 1;

/// An error unless `name` fits the path the game loads an image by: at most
/// [`MAX_IMAGE_NAME`] bytes (a NUL is refused where the name is stored). An empty name is
/// allowed, as DDNet loads such a map, but it draws no picture for an external image of
/// that name.
fn check_image_name(name: &str) -> Result<(), Error> {
    if name.len() > MAX_IMAGE_NAME {
        return Err(Error::invalid_edit(format!(
            "the image name is {} bytes long; DDNet loads mapres/NAME.png through a path of at \
             most 511 bytes, so a name has at most {MAX_IMAGE_NAME}",
            name.len()
        )));
    }
    Ok(())
}

impl Map {
    /// Adds an image that clients load by name from their `mapres` folder (`grass_main` for
    /// `mapres/grass_main.png`), at most [`MAX_IMAGE_NAME`] bytes.
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
        check_image_name(name)?;
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

    pub(super) fn add_image(
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
            MapForm::Teeworlds07 => (2, Some(ImageFormat::RGBA)),
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
        self.renumber_image_refs(&renumber);
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
            item.format = Some(ImageFormat::RGBA);
        }
        stored.verbatim = None;
        Ok(true)
    }

    /// Renames an image. An external image's name is the picture the game loads,
    /// `mapres/NAME.png`, so it is at most [`MAX_IMAGE_NAME`] bytes (DDNet builds that path in
    /// a buffer of 512 bytes); embedded images keep the same rule, as DDNet's editor copies
    /// every name into such a buffer. The name data item is replaced in place
    /// when only the image names it.
    ///
    /// ```
    /// # let mut map = twcodec_testkit::sample::map()?;
    /// let image = map.refs::<twcodec::map::Image>().next().expect("an image");
    /// map.set_image_name(image, "grass_main")?;
    /// assert_eq!(map.get(image).and_then(|i| i.name(&map)).as_deref(), Some("grass_main"));
    /// assert!(map.set_image_name(image, &"n".repeat(501)).is_err());
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn set_image_name(&mut self, image: ItemRef<Image>, name: &str) -> Result<(), Error> {
        let index = self.checked(image)?;
        check_image_name(name)?;
        let bytes = self.text_data("the image name", name)?;
        let old = self.images[index].item.name;
        let new = self.replaced_data(old, bytes.into())?;
        let stored = &mut self.images[index];
        stored.item.name = new;
        touched(true, &mut stored.verbatim);
        if new != old {
            self.remove_unused_data([old]);
        }
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
        self.renumber_image_refs(&renumber);
        Ok(self.mint(to))
    }

    /// Renumbers the image of every tiles and quads layer; only the layers drawn with a moved
    /// image are changed (written anew).
    fn renumber_image_refs(&mut self, renumber: &Renumber) {
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
    }
}
