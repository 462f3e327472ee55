//! How the indices of an arena change in an edit, and the references that follow them.

use std::collections::BTreeSet;

use crate::error::Error;
use crate::map::layer::{Layer, LayerContent};
use crate::map::{Arena, Map};

/// How the indices of one arena change in an edit.
pub(super) struct Renumber {
    /// The arena's length before the edit.
    pub(super) len: usize,
    pub(super) change: Change,
}

pub(super) enum Change {
    /// These indices (sorted) are removed; later ones shift down.
    Remove(Vec<usize>),
    /// An item is inserted at this index; it and later ones shift up.
    Insert(usize),
    /// The item at the first index moves to the second; those between shift.
    Move(usize, usize),
}

impl Renumber {
    pub(super) fn removing(len: usize, removed: impl IntoIterator<Item = usize>) -> Renumber {
        let removed: BTreeSet<usize> = removed.into_iter().collect();
        Renumber {
            len,
            change: Change::Remove(removed.into_iter().collect()),
        }
    }

    pub(super) fn inserting(len: usize, at: usize) -> Renumber {
        Renumber {
            len,
            change: Change::Insert(at),
        }
    }

    pub(super) fn moving(len: usize, from: usize, to: usize) -> Renumber {
        Renumber {
            len,
            change: Change::Move(from, to),
        }
    }

    /// The new index of item `index` (below `len`), `None` for a removed one.
    pub(super) fn index(&self, index: usize) -> Option<usize> {
        match &self.change {
            Change::Remove(removed) => match removed.binary_search(&index) {
                Ok(_) => None,
                Err(before) => Some(index - before),
            },
            Change::Insert(at) if index >= *at => Some(index + 1),
            Change::Insert(_) => Some(index),
            Change::Move(from, to) => Some(match index {
                i if i == *from => *to,
                i if from < to && *from < i && i <= *to => i - 1,
                i if to < from && *to <= i && i < *from => i + 1,
                i => i,
            }),
        }
    }

    /// The new value of a raw reference: an item that exists moves or becomes -1; none and
    /// dangling values stay.
    pub(super) fn raw(&self, raw: i32) -> i32 {
        match usize::try_from(raw).ok().filter(|&index| index < self.len) {
            Some(index) => self
                .index(index)
                .and_then(|new| i32::try_from(new).ok())
                .unwrap_or(-1),
            None => raw,
        }
    }

    /// Renumbers a raw reference in place; whether it changed.
    pub(super) fn apply(&self, raw: &mut i32) -> bool {
        let new = self.raw(*raw);
        let changed = new != *raw;
        *raw = new;
        changed
    }
}

/// Renumbers a layer's envelope references (a tile layer's color envelope, its quads' or its
/// sources'); whether any changed. A layer is changed (and its quads or sources written anew)
/// only when one of its references names a moved envelope.
pub(super) fn renumber_envelopes(layer: &mut Layer, renumber: &Renumber) -> bool {
    let moves = |raw: i32| renumber.raw(raw) != raw;
    let any = match layer.content() {
        LayerContent::Quads(q) => (q.quads().unwrap_or_default())
            .iter()
            .any(|quad| moves(quad.position_envelope) || moves(quad.color_envelope)),
        LayerContent::Sounds(s) => (s.sources().unwrap_or_default())
            .iter()
            .any(|source| moves(source.position_envelope) || moves(source.sound_envelope)),
        _ => layer.tilemap().is_some_and(|t| moves(t.color_envelope)),
    };
    if !any {
        return false;
    }
    match layer.content_mut() {
        LayerContent::Quads(q) => {
            for quad in q.quads_mut().into_iter().flatten() {
                renumber.apply(&mut quad.position_envelope);
                renumber.apply(&mut quad.color_envelope);
            }
        }
        LayerContent::Sounds(s) => {
            for source in s.sources_mut().into_iter().flatten() {
                renumber.apply(&mut source.position_envelope);
                renumber.apply(&mut source.sound_envelope);
            }
        }
        content => {
            if let Some(tilemap) = content.tilemap_mut() {
                renumber.apply(&mut tilemap.color_envelope);
            }
        }
    }
    true
}

impl Map {
    /// Moves item `from` of an arena to `to` (counted without it), renewing the arena's
    /// references when anything moved; the renumbering for the references into it.
    pub(super) fn moved_in_arena<T: Arena>(
        &mut self,
        from: usize,
        to: usize,
    ) -> Result<Renumber, Error> {
        let arena = T::arena_mut(self);
        let len = arena.len();
        if to >= len {
            return Err(Error::invalid_edit(format!(
                "{} position {to} is past the {len} {}s",
                T::KIND,
                T::KIND
            )));
        }
        let item = arena.remove(from);
        arena.insert(to, item);
        if from != to {
            self.stamp.renew::<T>();
        }
        Ok(Renumber::moving(len, from, to))
    }
}
