//! Adding, removing, replacing and moving sounds.

use bytes::Bytes;
use twcodec_schema::map::sound::SoundItem;

use super::*;
use crate::error::Error;
use crate::map::layer::LayerContent;
use crate::map::{ItemRef, Map, Sound, Stored};

impl Map {
    /// Replaces a sound's data with an Opus file's bytes; an external sound becomes
    /// embedded. The sound keeps its name, id and place, so every sounds layer playing it
    /// plays the new one. Whether anything changed: `false` when the sound is embedded with
    /// these bytes already (the map is then left as it was). The bytes are not checked here;
    /// `twcodec_tools::assets::check_opus` checks that they are Ogg Opus.
    pub fn replace_sound(
        &mut self,
        sound: ItemRef<Sound>,
        opus: impl Into<Bytes>,
    ) -> Result<bool, Error> {
        let index = self.checked(sound)?;
        let opus = opus.into();
        let data_size = count(opus.len(), "bytes")?;
        let current = &self.sounds[index];
        if current.item.external == 0 && current.data(self).is_ok_and(|data| *data == *opus) {
            return Ok(false);
        }
        let data = self.replaced_data(current.item.data, opus)?;
        let stored = &mut self.sounds[index];
        stored.item.external = 0;
        stored.item.data = data;
        stored.item.data_size = data_size;
        stored.verbatim = None;
        Ok(true)
    }

    /// Renames a sound: at most 511 bytes, as DDNet's editor keeps a sound's name in a buffer
    /// of 512 bytes with its NUL. The name data item is replaced in place when only the sound
    /// names it.
    pub fn set_sound_name(&mut self, sound: ItemRef<Sound>, name: &str) -> Result<(), Error> {
        let index = self.checked(sound)?;
        if name.len() > 511 {
            return Err(Error::invalid_edit(format!(
                "the sound name is {} bytes long; DDNet's editor keeps at most 511",
                name.len()
            )));
        }
        let bytes = self.text_data("the sound name", name)?;
        let old = self.sounds[index].item.name;
        let new = self.replaced_data(old, bytes.into())?;
        let stored = &mut self.sounds[index];
        stored.item.name = new;
        touched(true, &mut stored.verbatim);
        if new != old {
            self.remove_unused_data([old]);
        }
        Ok(())
    }

    /// Adds a sound (DDNet): `opus` is the Opus file's bytes.
    pub fn add_sound(
        &mut self,
        name: &str,
        opus: impl Into<Bytes>,
    ) -> Result<ItemRef<Sound>, Error> {
        let opus = opus.into();
        let data_size = count(opus.len(), "bytes")?;
        let name = self.text_data("the sound name", name)?;
        let id = free_id(self.sounds.iter().map(|s| s.id), "sound")?;
        self.data_room(2)?;
        let name = self.push_data(name);
        let data = self.push_data(opus);
        self.sounds.push(Stored::new(
            id,
            SoundItem {
                version: 1,
                external: 0,
                name,
                data,
                data_size,
                unknown_tail: Vec::new(),
            },
            None,
        ));
        Ok(self.mint(self.sounds.len() - 1))
    }

    /// Removes a sound: sounds layers playing it play none, later sounds' references shift
    /// down, and its name and data items go when nothing else names them.
    pub fn remove_sound(&mut self, sound: ItemRef<Sound>) -> Result<(), Error> {
        let index = self.checked(sound)?;
        let renumber = Renumber::removing(self.sounds.len(), [index]);
        let removed = self.sounds.remove(index);
        self.renumber_sound_refs(&renumber);
        self.remove_unused_data([removed.item.name, removed.item.data]);
        self.stamp.renew::<Sound>();
        Ok(())
    }

    /// Moves a sound to position `to` among the sounds (counted without it); sounds layers
    /// keep playing the same sound.
    pub fn move_sound(
        &mut self,
        sound: ItemRef<Sound>,
        to: usize,
    ) -> Result<ItemRef<Sound>, Error> {
        let from = self.checked(sound)?;
        let renumber = self.moved_in_arena::<Sound>(from, to)?;
        self.renumber_sound_refs(&renumber);
        Ok(self.mint(to))
    }

    /// Renumbers the sound of every sounds layer; only the layers playing a moved sound are
    /// changed (written anew).
    fn renumber_sound_refs(&mut self, renumber: &Renumber) {
        for layer in &mut self.layers {
            let LayerContent::Sounds(s) = layer.content() else {
                continue;
            };
            if renumber.raw(s.item().sound) == s.item().sound {
                continue;
            }
            if let LayerContent::Sounds(s) = layer.content_mut() {
                renumber.apply(&mut s.item_mut().sound);
            }
            layer.verbatim = None;
        }
    }
}
