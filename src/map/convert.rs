//! Converting a map between DDNet's and Teeworlds 0.7's form of storing the same things.
//!
//! | what | DDNet form | Teeworlds 0.7 form |
//! |---|---|---|
//! | tiles and game layers | tilemap version 3 | version 4, skip-compressed tiles |
//! | images | version 1 (RGBA) | version 2 with a format |
//! | envelopes | version 2, 6-int points, DDNet's bezier item | version 3 and 22-int points when a bezier curve is used, else version 2 |
//!
//! DDNet's other extensions (physics layers other than game, sounds, auto-mappers, settings)
//! have no 0.7 form and are kept as they are, so converting back loses nothing: every tile,
//! point and item survives DDNet -> 0.7 -> DDNet.

use twcodec_schema::map::envelope::CurveType;
use twcodec_schema::map::image::ImageFormat;

use super::layer::LayerContent;
use super::{DataSlot, Map, MapForm};
use crate::error::{Error, ErrorKind};

impl Map {
    /// Converts the map to `form` (DDNet or Teeworlds 0.7). A Teeworlds 0.3 map converts its
    /// upgraded model (docs/format-notes.md, "Teeworlds 0.3 maps") and then writes it in that
    /// form; nothing converts to Teeworlds 0.3.
    ///
    /// Converted to DDNet, a map stores its skip-compressed 0.7 tile layers whole and widens
    /// RGB images to RGBA, so the written map can declare more data than the [`Limits`] its
    /// source was read under allow (up to [`Limits::max_layer_data`] more for the tiles): read
    /// it back under limits that leave room for that.
    ///
    /// External images stay external: a Teeworlds 0.7 client draws its own, redrawn pictures
    /// of their names. [`assets::convert_embedding`](crate::assets::convert_embedding) embeds
    /// DDNet's pictures first, as DDNet's `map_convert_07` does.
    ///
    /// [`Limits`]: crate::Limits
    /// [`Limits::max_layer_data`]: crate::Limits::max_layer_data
    pub fn convert(&mut self, form: MapForm) -> Result<(), Error> {
        if form == MapForm::Teeworlds03 {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "maps are not converted to Teeworlds 0.3 (a 0.3 map writes its own file while \
                 unmodified)",
            ));
        }
        let teeworlds = form == MapForm::Teeworlds07;
        for layer in &mut self.layers {
            if let LayerContent::Tiles(tiles) | LayerContent::Game(tiles) = &mut layer.content {
                let version = if teeworlds { 4 } else { 3 };
                if tiles.item.version != version && tiles.grid().is_some() {
                    tiles.item.version = version;
                    // Version 3 and up have a name between the data and the physics indices.
                    tiles.item.name.get_or_insert_with(Default::default);
                    tiles.modified = true;
                }
            }
        }
        self.convert_images(teeworlds)?;
        self.convert_envelopes(teeworlds);
        self.form = form;
        Ok(())
    }

    fn convert_images(&mut self, teeworlds: bool) -> Result<(), Error> {
        for index in 0..self.images.len() {
            let image = &self.images[index];
            if image.verbatim.is_some() {
                continue;
            }
            let embedded = image.data(self).get().filter(|_| !image.is_external());
            // The declared size tells the format: nothing is inflated but RGB pixels to widen.
            let bytes_per_pixel = match embedded {
                Some(data) => image.bytes_per_pixel(self.data_size(data).unwrap_or(0)),
                None => Some(4),
            };
            let image = &mut self.images[index];
            if teeworlds {
                image.item.version = 2;
                image.item.format = Some(match bytes_per_pixel {
                    Some(3) => ImageFormat::Rgb,
                    _ => ImageFormat::Rgba,
                });
                continue;
            }
            image.item.version = 1;
            image.item.format = None;
            // DDNet loads RGBA only: RGB pixels get an opaque alpha.
            if let (Some(data), Some(3)) = (embedded, bytes_per_pixel) {
                let rgb = self.data(data)?.into_owned();
                let rgba: Vec<u8> = rgb
                    .chunks_exact(3)
                    .flat_map(|p| [p[0], p[1], p[2], 255])
                    .collect();
                self.data[data.index()] = DataSlot::Owned(rgba.into());
            }
        }
        Ok(())
    }

    fn convert_envelopes(&mut self, teeworlds: bool) {
        let Some(points) = &mut self.points else {
            return;
        };
        let uses_bezier = points.points.iter().any(|p| p.curve() == CurveType::Bezier);
        // 0.7 keeps 6-int points unless a bezier curve needs the tangents.
        let wide = teeworlds && uses_bezier;
        for envelope in &mut self.envelopes {
            if envelope.verbatim.is_some() || envelope.item.name.is_none() {
                continue;
            }
            let version = match (wide, envelope.item.version) {
                (true, _) => 3,
                (false, v) if v >= 3 => 2,
                (false, v) => v,
            };
            if version >= 2 && envelope.item.synchronized.is_none() {
                // Before version 2, envelopes followed the server's clock (Teeworlds).
                envelope.item.synchronized = Some(1);
            }
            envelope.item.version = version;
        }
        if points.wide != wide {
            points.wide = wide;
            points.modified = true;
            if wide {
                // The tangents move into the 22-int points.
                points.bezier_item = None;
            }
        }
    }
}
