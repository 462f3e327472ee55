//! The items of a snapshot as objects of a protocol ([`Snapshot::objects`]): each item's ints
//! decoded into the struct the schema's registry gives its type
//! ([`twcodec_schema::netobj`]), numbered types by the protocol's table, extended types
//! (`0x4000` up) by the UUID the snapshot announces for them in its type 0 items.
//!
//! An item that does not decode stays ints, with a [`Note`] that says why: its type is not one
//! of the protocol, the snapshot announces no UUID for its extended type or one this library
//! does not know, or its size does not fit its type (a numbered object needs exactly its size;
//! docs/format-notes.md, "Snapshot objects"). [`ObjectItem::encode`] gives back the item's ints
//! exactly, decoded or not.
//!
//! ```
//! use twcodec::snap::{Protocol, SnapObject, SnapshotBuilder};
//!
//! let mut builder = SnapshotBuilder::new();
//! builder.add_item(4, 0, &[320, 96, 2, 3])?; // a pickup: a shotgun
//! builder.add_item(30, 1, &[7])?; // not a type of 0.6
//! let snapshot = builder.finish()?;
//! let objects: Vec<_> = snapshot.objects(Protocol::Ddnet06).collect();
//! let SnapObject::Pickup(pickup) = &objects[0].object else { panic!() };
//! assert_eq!((pickup.x, pickup.y, pickup.subtype), (320, 96, 3));
//! assert_eq!(objects[0].name(), Some("obj_pickup"));
//! assert_eq!(objects[1].note.as_ref().unwrap().to_string(), "type 30 is no object of 0.6/DDNet");
//! assert_eq!(objects[1].encode()?, [7]);
//! # Ok::<(), twcodec::Error>(())
//! ```

#[cfg(feature = "serde")]
use serde::ser::{Serialize, SerializeMap, Serializer};
use twcodec_schema::uuid::Uuid;

pub use twcodec_schema::netobj::{ObjectError, SnapObject, SnapObjectKind};

use super::{Protocol, SnapItem, SnapKey, Snapshot, OFFSET_EXTENDED_TYPE};
use crate::Error;

/// An item of a snapshot as an object of a protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectItem {
    /// Index of the item in the snapshot, in stored order.
    pub index: usize,
    /// Type and id.
    pub key: SnapKey,
    /// For an extended type, the UUID the snapshot announces for it.
    pub uuid: Option<Uuid>,
    /// The object, or [`SnapObject::Unknown`] with the item's ints.
    pub object: SnapObject,
    /// Why the item stayed ints, when it did.
    pub note: Option<Note>,
}

impl ObjectItem {
    /// The kind of object ([`SnapObjectKind::Unknown`] for an item that stayed ints).
    pub fn kind(&self) -> SnapObjectKind {
        self.object.kind()
    }

    /// The object's name (`obj_character`, `event_spawn`, `obj_ddnet_character`): its kind's,
    /// or for an item that stayed ints the name of the kind its type has, if any.
    pub fn name(&self) -> Option<&'static str> {
        match (self.object.kind(), &self.note) {
            (SnapObjectKind::Unknown, Some(Note::Mismatch(error))) => Some(error.kind().name()),
            (SnapObjectKind::Unknown, _) => None,
            (kind, _) => Some(kind.name()),
        }
    }

    /// The item's ints: the object encoded, exactly the ints it was decoded from.
    pub fn encode(&self) -> Result<Vec<i32>, Error> {
        (self.object.encode()).map_err(|error| Error::from_binrw(error, "snapshot object"))
    }
}

/// Why an item stayed ints.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Note {
    /// The protocol has no object of this type id.
    #[error("type {type_id} is no object of {protocol}")]
    UnknownType {
        /// The type id.
        type_id: u16,
        /// The protocol.
        protocol: Protocol,
    },
    /// An extended type that the snapshot does not announce.
    #[error("the snapshot announces no UUID for extended type {type_id:#x}")]
    NotAnnounced {
        /// The type id.
        type_id: u16,
    },
    /// An extended type whose UUID names no object type this library knows.
    #[error("UUID {uuid} names no object type twcodec knows")]
    UnknownUuid {
        /// The UUID the snapshot announces.
        uuid: Uuid,
    },
    /// The ints do not fit the type's object.
    #[error("{0}")]
    Mismatch(ObjectError),
}

impl Snapshot {
    /// The items in stored order as objects of `protocol`; extended types are resolved through
    /// the UUIDs this snapshot announces (the same table in both protocols: DDNet servers send
    /// their extended objects to 0.7 clients too). See the [module docs](self).
    pub fn objects(&self, protocol: Protocol) -> impl ExactSizeIterator<Item = ObjectItem> + '_ {
        let extended = self.announced_kinds();
        (self.items().enumerate()).map(move |(index, item)| {
            let (kind, uuid) = resolve(item, protocol, &extended);
            object_item(index, item, kind, uuid)
        })
    }

    /// The items whose kind `keep` accepts, as objects ([`Snapshot::objects`]); the other
    /// items, and those of no known kind, are left out without being decoded.
    pub fn objects_of<'s>(
        &'s self,
        protocol: Protocol,
        keep: impl Fn(SnapObjectKind) -> bool + 's,
    ) -> impl Iterator<Item = ObjectItem> + 's {
        let extended = self.announced_kinds();
        (self.items().enumerate()).filter_map(move |(index, item)| {
            let (kind, uuid) = resolve(item, protocol, &extended);
            let kind = kind.ok().filter(|&kind| keep(kind))?;
            Some(object_item(index, item, Ok(kind), uuid))
        })
    }

    /// Each announced extended type with its UUID and kind, resolved once, not once per item.
    fn announced_kinds(&self) -> Vec<(u16, Uuid, Option<SnapObjectKind>)> {
        (self.extended_types())
            .map(|(type_id, uuid)| (type_id, uuid, SnapObjectKind::of_extended(uuid)))
            .collect()
    }
}

/// The kind of an item (or why it has none) and, for an extended type, its UUID.
fn resolve(
    item: SnapItem<'_>,
    protocol: Protocol,
    extended: &[(u16, Uuid, Option<SnapObjectKind>)],
) -> (Result<SnapObjectKind, Note>, Option<Uuid>) {
    let type_id = item.type_id();
    if type_id < OFFSET_EXTENDED_TYPE {
        let kind = protocol.object_kind(type_id);
        return (kind.ok_or(Note::UnknownType { type_id, protocol }), None);
    }
    match extended
        .iter()
        .find(|(announced, ..)| *announced == type_id)
    {
        Some(&(_, uuid, Some(kind))) => (Ok(kind), Some(uuid)),
        Some(&(_, uuid, None)) => (Err(Note::UnknownUuid { uuid }), Some(uuid)),
        None => (Err(Note::NotAnnounced { type_id }), None),
    }
}

/// Decodes one item as `kind`.
fn object_item(
    index: usize,
    item: SnapItem<'_>,
    kind: Result<SnapObjectKind, Note>,
    uuid: Option<Uuid>,
) -> ObjectItem {
    let decoded = kind.and_then(|kind| SnapObject::decode(kind, item.data).map_err(Note::Mismatch));
    let (object, note) = match decoded {
        Ok(object) => (object, None),
        Err(note) => (
            SnapObject::Unknown {
                ints: item.data.to_vec(),
            },
            Some(note),
        ),
    };
    ObjectItem {
        index,
        key: item.key,
        uuid,
        object,
        note,
    }
}

#[cfg(feature = "serde")]
impl Serialize for ObjectItem {
    /// `index`, `type_id`, `id`, `name` (when known), `uuid` (of an extended type), `object`
    /// (its kind and fields), `note` (why it stayed ints).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("index", &self.index)?;
        map.serialize_entry("type_id", &self.key.type_id())?;
        map.serialize_entry("id", &self.key.id())?;
        if let Some(name) = self.name() {
            map.serialize_entry("name", name)?;
        }
        if let Some(uuid) = self.uuid {
            map.serialize_entry("uuid", &uuid)?;
        }
        map.serialize_entry("object", &self.object)?;
        if let Some(note) = &self.note {
            map.serialize_entry("note", &note.to_string())?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use twcodec_schema::uuid::uuid_from_name;

    use super::*;
    use crate::snap::SnapshotBuilder;

    #[test]
    fn extended_types_resolve_through_the_announcements() {
        let mut builder = SnapshotBuilder::new();
        let character = uuid_from_name("character@netobj.ddnet.tw");
        let unknown = uuid_from_name("not-a-ddnet-object@example.org");
        builder.add_extended_item(character, 3, &[1, 2]).unwrap();
        builder.add_extended_item(unknown, 0, &[5]).unwrap();
        builder.add_item(0x4000, 0, &[6]).unwrap();
        builder.add_item(9, 0, &[0; 21]).unwrap();
        let snapshot = builder.finish().unwrap();
        let objects: Vec<_> = snapshot.objects(Protocol::Teeworlds07).collect();
        // 0x7fff announced, the character, 0x7ffe announced, the unknown one, 0x4000, type 9.
        assert_eq!(objects.len(), 6);
        assert_eq!(objects[0].kind(), SnapObjectKind::ExtendedType7);
        assert_eq!(objects[1].kind(), SnapObjectKind::DdnetCharacter);
        assert_eq!(objects[1].uuid, Some(character));
        let SnapObject::DdnetCharacter(ddnet) = &objects[1].object else {
            panic!("{:?}", objects[1])
        };
        assert_eq!((ddnet.freeze_end, ddnet.jumps), (Some(2), None));
        assert_eq!(objects[3].note, Some(Note::UnknownUuid { uuid: unknown }));
        assert_eq!(objects[3].name(), None);
        assert_eq!(
            objects[4].note.as_ref().unwrap().to_string(),
            "the snapshot announces no UUID for extended type 0x4000"
        );
        // Type 9 of 0.7 is the character core, of 15 ints.
        assert_eq!(objects[5].name(), Some("obj_character_core"));
        assert_eq!(
            objects[5].note.as_ref().unwrap().to_string(),
            "obj_character_core has 15 ints, this item has 21"
        );
        for (object, item) in objects.iter().zip(snapshot.items()) {
            assert_eq!(object.key, item.key);
            assert_eq!(object.encode().unwrap(), item.data);
        }
    }
}
