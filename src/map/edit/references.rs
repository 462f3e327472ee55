//! Setting the references of layers, quads and sound sources with typed values.

use twcodec_schema::map::envelope::EnvelopeKind;
use twcodec_schema::map::quad::Quad;
use twcodec_schema::map::sound::SoundSource;

use super::*;
use crate::error::Error;
use crate::map::layer::{Layer, LayerContent};
use crate::map::{Arena, Envelope, Image, ItemRef, Map, Sound};

impl Map {
    /// Sets the image a tiles or quads layer is drawn with (`None`: no image); physics layers
    /// have none.
    pub fn set_layer_image(
        &mut self,
        layer: ItemRef<Layer>,
        image: Option<ItemRef<Image>>,
    ) -> Result<(), Error> {
        let raw = self.raw_of(image)?;
        let index = self.checked(layer)?;
        let target = &mut self.layers[index];
        let field = match target.content_mut() {
            LayerContent::Quads(q) => &mut q.item_mut().image,
            LayerContent::Tiles(t) => &mut t.item_mut().image,
            _ => return Err(wrong_kind(index, target, "tiles or quads")),
        };
        *field = raw;
        target.verbatim = None;
        Ok(())
    }

    /// Sets the color envelope of a tiles layer (`None`: no envelope); it must animate color.
    pub fn set_layer_color_envelope(
        &mut self,
        layer: ItemRef<Layer>,
        envelope: Option<ItemRef<Envelope>>,
    ) -> Result<(), Error> {
        let raw = self.envelope_of_kind(envelope, EnvelopeKind::Color)?;
        let index = self.checked(layer)?;
        let target = &mut self.layers[index];
        let LayerContent::Tiles(tiles) = target.content_mut() else {
            return Err(wrong_kind(index, target, "tiles"));
        };
        tiles.item_mut().color_envelope = raw;
        target.verbatim = None;
        Ok(())
    }

    /// Sets the time offset of a tiles layer's color envelope, in milliseconds (the envelope
    /// is evaluated `offset` ms later than the map's clock).
    pub fn set_layer_color_envelope_offset(
        &mut self,
        layer: ItemRef<Layer>,
        offset: i32,
    ) -> Result<(), Error> {
        let index = self.checked(layer)?;
        let target = &mut self.layers[index];
        let LayerContent::Tiles(tiles) = target.content_mut() else {
            return Err(wrong_kind(index, target, "tiles"));
        };
        tiles.item_mut().color_envelope_offset = offset;
        target.verbatim = None;
        Ok(())
    }

    /// Sets the sound a sounds layer plays (`None`: no sound).
    pub fn set_layer_sound(
        &mut self,
        layer: ItemRef<Layer>,
        sound: Option<ItemRef<Sound>>,
    ) -> Result<(), Error> {
        let raw = self.raw_of(sound)?;
        let index = self.checked(layer)?;
        let target = &mut self.layers[index];
        let LayerContent::Sounds(sounds) = target.content_mut() else {
            return Err(wrong_kind(index, target, "sounds"));
        };
        sounds.item_mut().sound = raw;
        target.verbatim = None;
        Ok(())
    }

    /// Sets the position envelope of quad `quad` of a quads layer; it must animate position.
    pub fn set_quad_position_envelope(
        &mut self,
        layer: ItemRef<Layer>,
        quad: usize,
        envelope: Option<ItemRef<Envelope>>,
    ) -> Result<(), Error> {
        let raw = self.envelope_of_kind(envelope, EnvelopeKind::Position)?;
        self.edit_quad(layer, quad, |q| q.position_envelope = raw)
    }

    /// Sets the color envelope of quad `quad` of a quads layer; it must animate color.
    pub fn set_quad_color_envelope(
        &mut self,
        layer: ItemRef<Layer>,
        quad: usize,
        envelope: Option<ItemRef<Envelope>>,
    ) -> Result<(), Error> {
        let raw = self.envelope_of_kind(envelope, EnvelopeKind::Color)?;
        self.edit_quad(layer, quad, |q| q.color_envelope = raw)
    }

    /// Sets the position envelope of source `source` of a sounds layer; it must animate
    /// position.
    pub fn set_source_position_envelope(
        &mut self,
        layer: ItemRef<Layer>,
        source: usize,
        envelope: Option<ItemRef<Envelope>>,
    ) -> Result<(), Error> {
        let raw = self.envelope_of_kind(envelope, EnvelopeKind::Position)?;
        self.edit_source(layer, source, |s| s.position_envelope = raw)
    }

    /// Sets the sound (volume) envelope of source `source` of a sounds layer; it must animate
    /// sound.
    pub fn set_source_sound_envelope(
        &mut self,
        layer: ItemRef<Layer>,
        source: usize,
        envelope: Option<ItemRef<Envelope>>,
    ) -> Result<(), Error> {
        let raw = self.envelope_of_kind(envelope, EnvelopeKind::Sound)?;
        self.edit_source(layer, source, |s| s.sound_envelope = raw)
    }

    /// Replaces a quads layer's quads (points, colors, texture coordinates, envelopes and
    /// their offsets), as many as given. Each envelope reference is -1 (none) or names an
    /// envelope of the kind it animates: position for `position_envelope`, color for
    /// `color_envelope`; a value the layer already holds at that quad is kept as it is, so
    /// that the quads read from a map go back unchanged. An error, changing nothing, names the
    /// quad and the field.
    ///
    /// ```
    /// use twcodec::map::{Layer, LayerContent};
    /// # let mut map = twcodec::Map::new(10, 10)?;
    /// let group = map.refs::<twcodec::map::Group>().next().expect("the game group");
    /// let layer = map.add_layer(group, Layer::new_quads("Quads", Vec::new())?)?;
    /// let mut quad = twcodec::schema::map::quad::Quad::default();
    /// (quad.position_envelope, quad.color_envelope) = (-1, 3);
    /// let error = map.set_quads(layer, vec![quad]).unwrap_err();
    /// assert!(error.to_string().contains("quad #0: field `color_envelope` = 3"), "{error}");
    /// quad.color_envelope = -1;
    /// map.set_quads(layer, vec![quad; 2])?;
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn set_quads(&mut self, layer: ItemRef<Layer>, quads: Vec<Quad>) -> Result<(), Error> {
        let index = self.checked(layer)?;
        let target = &self.layers[index];
        let LayerContent::Quads(current) = target.content() else {
            return Err(wrong_kind(index, target, "quads"));
        };
        let Some(old) = current.quads() else {
            return Err(no_such(index, "quad", 0, None));
        };
        for (n, quad) in quads.iter().enumerate() {
            let was = old.get(n);
            for (field, value, kept, kind) in [
                (
                    "position_envelope",
                    quad.position_envelope,
                    was.map(|q| q.position_envelope),
                    EnvelopeKind::Position,
                ),
                (
                    "color_envelope",
                    quad.color_envelope,
                    was.map(|q| q.color_envelope),
                    EnvelopeKind::Color,
                ),
            ] {
                if kept != Some(value) {
                    self.check_envelope_field("quad", n, field, value, kind)?;
                }
            }
        }
        self.check_layer_data(quads.len(), Quad::SIZE, "quads")?;
        let target = &mut self.layers[index];
        if let LayerContent::Quads(current) = target.content_mut() {
            if let Some(list) = current.quads_mut() {
                *list = quads;
            }
        }
        target.verbatim = None;
        Ok(())
    }

    /// Replaces a sounds layer's sources (position, looping, panning, delay, falloff, shape,
    /// envelopes and their offsets), as many as given. Each envelope reference is -1 (none)
    /// or names an envelope of the kind it animates (position for `position_envelope`, sound
    /// for `sound_envelope`); `looping` and `panning` are 0 or 1, `falloff` 0 to 255, `delay`
    /// 0 or more, the shape's `kind` 0 (rectangle) or 1 (circle). As for
    /// [`Map::set_quads`], a value the layer already holds at that source is kept as it is. An
    /// error, changing nothing, names the source and the field.
    pub fn set_sources(
        &mut self,
        layer: ItemRef<Layer>,
        sources: Vec<SoundSource>,
    ) -> Result<(), Error> {
        let index = self.checked(layer)?;
        let target = &self.layers[index];
        let LayerContent::Sounds(current) = target.content() else {
            return Err(wrong_kind(index, target, "sounds"));
        };
        let Some(old) = current.sources() else {
            return Err(no_such(index, "source", 0, None));
        };
        for (n, source) in sources.iter().enumerate() {
            let was = old.get(n);
            for (field, value, kept, kind) in [
                (
                    "position_envelope",
                    source.position_envelope,
                    was.map(|s| s.position_envelope),
                    EnvelopeKind::Position,
                ),
                (
                    "sound_envelope",
                    source.sound_envelope,
                    was.map(|s| s.sound_envelope),
                    EnvelopeKind::Sound,
                ),
            ] {
                if kept != Some(value) {
                    self.check_envelope_field("source", n, field, value, kind)?;
                }
            }
            for (field, value, kept, range, means) in [
                (
                    "looping",
                    source.looping,
                    was.map(|s| s.looping),
                    0..=1,
                    "0 or 1",
                ),
                (
                    "panning",
                    source.panning,
                    was.map(|s| s.panning),
                    0..=1,
                    "0 or 1",
                ),
                (
                    "falloff",
                    source.falloff,
                    was.map(|s| s.falloff),
                    0..=255,
                    "0 (none) to 255 (full)",
                ),
                (
                    "delay",
                    source.delay,
                    was.map(|s| s.delay),
                    0..=i32::MAX,
                    "0 or more seconds",
                ),
                (
                    "shape.kind",
                    source.shape.kind,
                    was.map(|s| s.shape.kind),
                    0..=1,
                    "0 (rectangle) or 1 (circle)",
                ),
            ] {
                if kept != Some(value) && !range.contains(&value) {
                    return Err(Error::invalid_edit(format!(
                        "source #{n}: field `{field}` = {value}; it is {means}"
                    )));
                }
            }
        }
        self.check_layer_data(sources.len(), SoundSource::SIZE, "sources")?;
        let target = &mut self.layers[index];
        if let LayerContent::Sounds(current) = target.content_mut() {
            if let Some(list) = current.sources_mut() {
                *list = sources;
            }
        }
        target.verbatim = None;
        Ok(())
    }

    /// An error unless `value`, field `field` of `what` #`n`, is -1 or names an envelope of
    /// `kind`.
    fn check_envelope_field(
        &self,
        what: &str,
        n: usize,
        field: &str,
        value: i32,
        kind: EnvelopeKind,
    ) -> Result<(), Error> {
        if value == -1 {
            return Ok(());
        }
        let envelopes = self.envelopes.len();
        let Some(envelope) = usize::try_from(value)
            .ok()
            .and_then(|e| self.envelopes.get(e))
        else {
            return Err(Error::invalid_edit(format!(
                "{what} #{n}: field `{field}` = {value}, but the map has {envelopes} envelopes \
                 (-1 for none)"
            )));
        };
        if envelope.item.kind() != kind {
            return Err(Error::invalid_edit(format!(
                "{what} #{n}: field `{field}` = {value} names a {:?} envelope, not a {kind:?} one",
                envelope.item.kind()
            )));
        }
        Ok(())
    }

    /// An error unless `len` records of `size` bytes fit in a layer's data and its count.
    fn check_layer_data(&self, len: usize, size: usize, what: &str) -> Result<(), Error> {
        let max = self.limits().max_layer_data();
        if len.saturating_mul(size) > max {
            return Err(Error::limit(format!(
                "{len} {what} of {size} bytes are more than the {max} bytes a layer's data may \
                 have (Limits::max_layer_data)"
            )));
        }
        count(len, what).map(|_| ())
    }

    pub(super) fn edit_quad(
        &mut self,
        layer: ItemRef<Layer>,
        quad: usize,
        edit: impl FnOnce(&mut Quad),
    ) -> Result<(), Error> {
        let index = self.checked(layer)?;
        let target = &mut self.layers[index];
        let LayerContent::Quads(quads) = target.content_mut() else {
            return Err(wrong_kind(index, target, "quads"));
        };
        let len = quads.quads().map(<[Quad]>::len);
        let quad = match (len, quads.quads_mut()) {
            (Some(len), Some(list)) if quad < len => &mut list[quad],
            (len, _) => return Err(no_such(index, "quad", quad, len)),
        };
        edit(quad);
        target.verbatim = None;
        Ok(())
    }

    pub(super) fn edit_source(
        &mut self,
        layer: ItemRef<Layer>,
        source: usize,
        edit: impl FnOnce(&mut SoundSource),
    ) -> Result<(), Error> {
        let index = self.checked(layer)?;
        let target = &mut self.layers[index];
        let LayerContent::Sounds(sounds) = target.content_mut() else {
            return Err(wrong_kind(index, target, "sounds"));
        };
        let len = sounds.sources().map(<[SoundSource]>::len);
        let source = match (len, sounds.sources_mut()) {
            (Some(len), Some(list)) if source < len => &mut list[source],
            (len, _) => return Err(no_such(index, "source", source, len)),
        };
        edit(source);
        target.verbatim = None;
        Ok(())
    }

    /// The index a reference names, or the error for a reference of another map.
    pub(super) fn checked<T: Arena>(&self, r: ItemRef<T>) -> Result<usize, Error> {
        self.index_of(r)
            .filter(|&index| index < T::arena(self).len())
            .ok_or_else(|| Error::stale_ref(T::KIND, r.index()))
    }

    /// The raw value of an optional reference: -1 for none.
    pub(super) fn raw_of<T: Arena>(&self, r: Option<ItemRef<T>>) -> Result<i32, Error> {
        match r {
            None => Ok(-1),
            Some(r) => count(self.checked(r)?, T::KIND),
        }
    }
}
