//! Map items (map.md). The item type ids are those of map.md, "Item Type Overview".

/// The item types of a map (map.md, "Item Type Overview"; DDNet `MAPITEMTYPE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MapItemType {
    /// 0: the map version item.
    Version,
    /// 1: author, version, credits, license, settings.
    Info,
    /// 2: an image, external or embedded.
    Image,
    /// 3: an envelope.
    Envelope,
    /// 4: a group of layers.
    Group,
    /// 5: a layer.
    Layer,
    /// 6: the envelope points of all envelopes.
    EnvPoints,
    /// 7: a sound (DDNet).
    Sound,
    /// 0xFFFF: a UUID index item (DDNet `ITEMTYPE_EX`).
    UuidIndex,
}

impl MapItemType {
    /// Every map item type, in type id order.
    pub const ALL: [MapItemType; 9] = [
        MapItemType::Version,
        MapItemType::Info,
        MapItemType::Image,
        MapItemType::Envelope,
        MapItemType::Group,
        MapItemType::Layer,
        MapItemType::EnvPoints,
        MapItemType::Sound,
        MapItemType::UuidIndex,
    ];

    /// The type id stored in the datafile.
    pub const fn type_id(self) -> u16 {
        match self {
            MapItemType::Version => 0,
            MapItemType::Info => 1,
            MapItemType::Image => 2,
            MapItemType::Envelope => 3,
            MapItemType::Group => 4,
            MapItemType::Layer => 5,
            MapItemType::EnvPoints => 6,
            MapItemType::Sound => 7,
            MapItemType::UuidIndex => crate::uuid::UUID_INDEX_TYPE,
        }
    }

    /// The map item type with this type id.
    pub fn from_type_id(type_id: u16) -> Option<MapItemType> {
        MapItemType::ALL
            .into_iter()
            .find(|t| t.type_id() == type_id)
    }

    /// A short lower-case name (`version`, `image`, `uuid index`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            MapItemType::Version => "version",
            MapItemType::Info => "info",
            MapItemType::Image => "image",
            MapItemType::Envelope => "envelope",
            MapItemType::Group => "group",
            MapItemType::Layer => "layer",
            MapItemType::EnvPoints => "envpoints",
            MapItemType::Sound => "sound",
            MapItemType::UuidIndex => "uuid index",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_ids_round_trip() {
        for kind in MapItemType::ALL {
            assert_eq!(MapItemType::from_type_id(kind.type_id()), Some(kind));
        }
        assert_eq!(MapItemType::Sound.type_id(), 7);
        assert_eq!(MapItemType::from_type_id(9), None);
    }
}
