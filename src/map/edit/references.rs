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
