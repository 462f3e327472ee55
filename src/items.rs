//! A datafile's items decoded as map items: the schema's struct for each item's type (numbered,
//! or by UUID through the datafile's UUID index), with the context some items need.

use twcodec_schema::map::envelope::EnvelopeItem;
use twcodec_schema::map::{DecodeContext, MapItem, MapItemKind};

use crate::datafile::Datafile;
use crate::error::{Error, Location};

/// Whether the datafile is a Teeworlds 0.3 map: one without a version item (the 0.4/0.5 editor's
/// test; see [`twcodec_schema::map::legacy`]).
pub fn is_legacy(datafile: &Datafile) -> bool {
    let version = MapItemKind::Version.type_id().unwrap_or_default();
    datafile.items_of_type(version).is_empty()
}

/// The kind of map item a type id stands for in this datafile.
pub fn item_kind(datafile: &Datafile, type_id: u16) -> MapItemKind {
    if is_legacy(datafile) {
        MapItemKind::of_legacy(type_id)
    } else {
        MapItemKind::of(type_id, datafile.uuid_of_type(type_id))
    }
}

/// What decoding needs to know about the map as a whole: envelope points have 22 ints when
/// any envelope has version 3 or more (DDNet `VERSION_TEEWORLDS_BEZIER`).
pub fn decode_context(datafile: &Datafile) -> DecodeContext {
    let envelope = MapItemKind::Envelope.type_id().unwrap_or_default();
    let envelopes = datafile.items_of_type(envelope).iter();
    DecodeContext {
        bezier_points: EnvelopeItem::bezier_points(envelopes.map(|item| &item.data[..])),
    }
}

/// Decodes item `index` of the datafile (its index in [`Datafile::items`]).
pub fn decode_item(
    datafile: &Datafile,
    index: usize,
    context: DecodeContext,
) -> Result<MapItem, Error> {
    let item = datafile.items().get(index).ok_or_else(|| {
        Error::malformed(format!(
            "item index {index} does not exist (the file has {} items)",
            datafile.items().len()
        ))
    })?;
    let kind = item_kind(datafile, item.type_id());
    let location = Location::Item {
        index,
        type_id: item.type_id(),
        id: item.id(),
    };
    // The item's data starts after its 8-byte key and size.
    let data_start = datafile.item_offset(index).unwrap_or_default() + 8;
    MapItem::decode(kind, &item.data, context).map_err(|e| {
        Error::from_binrw(e, &format!("{} item", kind.name()))
            .located(location)
            .offset_by(data_start as u64)
    })
}

/// Decodes every item; each gets its own result, so one broken item does not hide the others.
pub fn decode_items(datafile: &Datafile) -> Vec<Result<MapItem, Error>> {
    let context = decode_context(datafile);
    (0..datafile.items().len())
        .map(|index| decode_item(datafile, index, context))
        .collect()
}
