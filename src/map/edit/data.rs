//! The data items behind an edit: adding, replacing, renumbering and removing them.

use std::collections::BTreeSet;

use bytes::Bytes;
use twcodec_schema::map::cstring_data;

use super::*;
use crate::error::Error;
use crate::map::layer::LayerContent;
use crate::map::{DataItem, DataSlot, Map};

impl Map {
    /// The data index that holds `bytes` in place of data item `raw`: the same index with
    /// the bytes set when `raw` names a data item nothing else names, else a new data item.
    pub(super) fn replaced_data(&mut self, raw: i32, bytes: Bytes) -> Result<i32, Error> {
        let own = usize::try_from(raw)
            .ok()
            .filter(|&index| self.data_uses().get(index) == Some(&1));
        match own {
            Some(index) => {
                self.data[index] = DataSlot::Owned(bytes);
                Ok(raw)
            }
            None => {
                self.data_room(1)?;
                Ok(self.push_data(bytes))
            }
        }
    }

    /// A text data item: the text and its NUL.
    pub(super) fn text_data(&self, what: &str, text: &str) -> Result<Vec<u8>, Error> {
        if text.contains('\0') {
            return Err(Error::invalid_edit(format!("{what} {text:?} holds a NUL")));
        }
        self.limits().check_string_bytes(what, text.len() + 1)?;
        Ok(cstring_data(text.as_bytes()))
    }

    /// An error unless `count` more data items keep every data index an i32.
    pub(super) fn data_room(&self, count: usize) -> Result<(), Error> {
        match self.data.len().checked_add(count) {
            Some(total) if i32::try_from(total).is_ok() => Ok(()),
            _ => Err(Error::limit(
                "the map has as many data items as an index can name",
            )),
        }
    }

    /// Adds a data item (after [`Map::data_room`]); its raw index.
    pub(super) fn push_data(&mut self, bytes: impl Into<Bytes>) -> i32 {
        self.data.push(DataSlot::Owned(bytes.into()));
        i32::try_from(self.data.len() - 1).unwrap_or(-1)
    }

    /// Renumbers every data index field: those the writer's `data_uses` counts.
    pub(super) fn renumber_data(&mut self, renumber: &Renumber) {
        if let Some(info) = &mut self.info {
            let item = &mut info.item;
            let mut changed = false;
            for field in [
                &mut item.author,
                &mut item.map_version,
                &mut item.credits,
                &mut item.license,
            ]
            .into_iter()
            .chain(&mut item.settings)
            {
                changed |= renumber.apply(field);
            }
            touched(changed, &mut info.verbatim);
        }
        for image in &mut self.images {
            let changed =
                renumber.apply(&mut image.item.name) | renumber.apply(&mut image.item.data);
            touched(changed, &mut image.verbatim);
        }
        for sound in &mut self.sounds {
            let changed =
                renumber.apply(&mut sound.item.name) | renumber.apply(&mut sound.item.data);
            touched(changed, &mut sound.verbatim);
        }
        for layer in &mut self.layers {
            // Only the layers whose data moved are changed.
            if (layer.data_fields().into_iter()).all(|raw| renumber.raw(raw) == raw) {
                continue;
            }
            match layer.content_mut() {
                LayerContent::Quads(q) => {
                    renumber.apply(&mut q.item_mut().data);
                }
                LayerContent::Sounds(s) => {
                    renumber.apply(&mut s.item_mut().data);
                }
                content => {
                    if let Some(t) = content.tilemap_mut() {
                        renumber.apply(&mut t.data);
                        let p = &mut t.physics;
                        let physics = [
                            &mut p.tele,
                            &mut p.speedup,
                            &mut p.front,
                            &mut p.switch,
                            &mut p.tune,
                        ];
                        for field in physics.into_iter().flatten() {
                            renumber.apply(field);
                        }
                    }
                }
            }
            layer.verbatim = None;
        }
    }

    /// Removes the data items among `candidates` that no field of the map names any more, and
    /// renumbers every data index.
    pub(super) fn remove_unused_data(&mut self, candidates: impl IntoIterator<Item = i32>) {
        let uses = self.data_uses();
        let unused: BTreeSet<usize> = candidates
            .into_iter()
            .filter_map(|raw| usize::try_from(raw).ok())
            .filter(|&index| uses.get(index) == Some(&0))
            .collect();
        if unused.is_empty() {
            return;
        }
        self.renumber_data(&Renumber::removing(self.data.len(), unused.iter().copied()));
        let mut index = 0;
        self.data.retain(|_| {
            index += 1;
            !unused.contains(&(index - 1))
        });
        self.stamp.renew::<DataItem>();
    }
}
