//! The fields of map items that name another item or a data item by its position, so that
//! `pack` can make each follow its target through the moves, deletions and insertions of the
//! directory (docs/mapdir.md, "References").

use twcodec_schema::map::layer::LayerBody;
use twcodec_schema::map::MapItem;

/// What a reference field points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// A data item (`&` in the format documents).
    Data,
    /// An image item.
    Image,
    /// An envelope item.
    Envelope,
    /// A sound item.
    Sound,
}

/// Calls `visit` with each reference field of `item` and what it points into: the data
/// items of info, images, sounds and layers (as the map model counts them, so that `pack`
/// drops the data items a deleted item leaves unused as `Map::remove_*` does), a layer's
/// image, color envelope and sound. Quads and sound sources name envelopes from inside their
/// data items; auto-mappers name a group and a layer; `pack` follows those itself.
pub(crate) fn visit(item: &mut MapItem, mut visit: impl FnMut(Target, &mut i32)) {
    match item {
        MapItem::Info(info) => {
            for field in [
                &mut info.author,
                &mut info.map_version,
                &mut info.credits,
                &mut info.license,
            ] {
                visit(Target::Data, field);
            }
            if let Some(settings) = &mut info.settings {
                visit(Target::Data, settings);
            }
        }
        MapItem::Image(image) => {
            visit(Target::Data, &mut image.name);
            visit(Target::Data, &mut image.data);
        }
        MapItem::Sound(sound) => {
            visit(Target::Data, &mut sound.name);
            visit(Target::Data, &mut sound.data);
        }
        MapItem::Layer(layer) => match &mut layer.body {
            LayerBody::Tilemap(tilemap) => {
                visit(Target::Image, &mut tilemap.image);
                visit(Target::Envelope, &mut tilemap.color_envelope);
                visit(Target::Data, &mut tilemap.data);
                let physics = &mut tilemap.physics;
                for field in [
                    &mut physics.tele,
                    &mut physics.speedup,
                    &mut physics.front,
                    &mut physics.switch,
                    &mut physics.tune,
                ]
                .into_iter()
                .flatten()
                {
                    visit(Target::Data, field);
                }
            }
            LayerBody::Quads(quads) => {
                visit(Target::Image, &mut quads.image);
                visit(Target::Data, &mut quads.data);
            }
            LayerBody::Sounds(sounds) | LayerBody::DeprecatedSounds(sounds) => {
                visit(Target::Sound, &mut sounds.sound);
                visit(Target::Data, &mut sounds.data);
            }
            _ => {}
        },
        _ => {}
    }
}

/// The data items `item` names (see [`visit`]).
pub(crate) fn data_of(item: &MapItem) -> Vec<i32> {
    // Only these few-int items name data (points items can be large: not copied).
    if !matches!(
        item,
        MapItem::Info(_) | MapItem::Image(_) | MapItem::Sound(_) | MapItem::Layer(_)
    ) {
        return Vec::new();
    }
    let mut item = item.clone();
    let mut out = Vec::new();
    visit(&mut item, |target, field| {
        if target == Target::Data {
            out.push(*field);
        }
    });
    out
}

/// How the positions of one kind of item change from the directory's numbering (what the
/// files say) to the packed map's.
#[derive(Debug, Clone, Default)]
pub(crate) struct Renumber {
    /// The new position of each numbered item, `None` for one that was deleted.
    to: Vec<Option<usize>>,
}

impl Renumber {
    /// From the new position of each item of the directory's numbering.
    pub fn new(to: Vec<Option<usize>>) -> Renumber {
        Renumber { to }
    }

    /// Whether every item keeps its position.
    pub fn is_identity(&self) -> bool {
        self.to.iter().enumerate().all(|(i, to)| *to == Some(i))
    }

    /// The new value of a reference, as `Map::remove_*` renumbers: an item that is there moves
    /// with it, one that was deleted becomes -1 (none), and a value that names no item (none,
    /// or dangling) stays as it is. `Some(old)` when it named a deleted item.
    pub fn apply(&self, raw: &mut i32) -> Option<i32> {
        let index = usize::try_from(*raw).ok()?;
        match self.to.get(index)? {
            Some(new) => {
                *raw = i32::try_from(*new).unwrap_or(-1);
                None
            }
            None => {
                let old = *raw;
                *raw = -1;
                Some(old)
            }
        }
    }
}
