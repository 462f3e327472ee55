//! [`Snapshot`] and [`SnapshotBuilder`].

use std::fmt;
use std::sync::OnceLock;

use twcodec_schema::map::{decode_ints, encode_ints};
use twcodec_schema::netobj::ddnet::ExtendedType;
use twcodec_schema::snapshot::{SnapshotHeader, SnapshotLayout};
use twcodec_schema::uuid::Uuid;

use super::{
    entry_index, entry_key, key_entry, packed_offset, read_layout, unpack, write_layout, SnapKey,
    EXTENDED_TYPE_ANNOUNCEMENT, MAX_ITEMS, MAX_SIZE, MAX_TYPE, OFFSET_EXTENDED_TYPE,
};
use crate::{Error, Location};

/// An item of a snapshot (or a new or changed item of a delta): key and data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapItem<'a> {
    /// Type and id.
    pub key: SnapKey,
    /// The item's ints.
    pub data: &'a [i32],
}

impl SnapItem<'_> {
    /// The type id.
    pub fn type_id(&self) -> u16 {
        self.key.type_id()
    }

    /// The id.
    pub fn id(&self) -> u16 {
        self.key.id()
    }
}

/// A snapshot: items identified by key, in the order they are stored (snapshot.md,
/// "Snapshots"; DDNet `CSnapshot`). See the [module docs](super) for order and checks.
///
/// `==` compares items by key, whatever their order.
#[derive(Clone)]
#[doc(alias = "CSnapshot")]
pub struct Snapshot {
    /// Keys, in stored order.
    keys: Vec<SnapKey>,
    /// Where each item's data starts in `data`, plus the end: one more entry than items.
    starts: Vec<u32>,
    /// Every item's data, keys left out.
    data: Vec<i32>,
    /// `key_entry(key, index)` of every item, sorted: lookups and merges by key.
    by_key: Vec<u64>,
    /// The checksum, summed on the first call of [`Snapshot::checksum`]: a snapshot does not
    /// change, and a replay shares one among every tick it holds for.
    checksum: OnceLock<i32>,
}

impl Snapshot {
    /// The snapshot without items (DDNet `CSnapshot::ms_EmptySnapshot`), the base of the first
    /// delta a client receives.
    pub fn empty() -> Snapshot {
        Snapshot {
            keys: Vec::new(),
            starts: vec![0],
            data: Vec::new(),
            by_key: Vec::new(),
            checksum: OnceLock::new(),
        }
    }

    /// Reads a snapshot from its unpacked ints, checking every rule of the module docs.
    pub fn from_ints(ints: &[i32]) -> Result<Snapshot, Error> {
        const HEADER_INTS: usize = SnapshotHeader::SIZE / 4;
        let header = ints.get(..HEADER_INTS).ok_or_else(|| {
            Error::malformed(format!(
                "a snapshot starts with {HEADER_INTS} header ints, the input has {}",
                ints.len()
            ))
        })?;
        let header: SnapshotHeader =
            decode_ints(header, ()).map_err(|error| Error::from_binrw(error, "snapshot header"))?;
        let num_items = header.num_items;
        if num_items < 0 {
            return Err(
                Error::malformed(format!("num_items {num_items} is negative"))
                    .at(SnapshotHeader::NUM_ITEMS_OFFSET),
            );
        }
        if num_items as usize > MAX_ITEMS {
            return Err(Error::limit(format!(
                "num_items {num_items} is more than the {MAX_ITEMS} items a snapshot can have"
            ))
            .at(SnapshotHeader::NUM_ITEMS_OFFSET));
        }
        let data_size = header.data_size;
        if data_size < 0 || data_size % 4 != 0 {
            return Err(Error::malformed(format!(
                "data_size {data_size} is not a size of ints (negative or not a multiple of 4)"
            ))
            .at(SnapshotHeader::DATA_SIZE_OFFSET));
        }
        if num_items == 0 && data_size != 0 {
            // Items own the data from the first offset (0) to data_size; without items nothing
            // can own it, and it would be lost on writing.
            return Err(Error::malformed(format!(
                "data_size {data_size} without items: a snapshot without items has no data"
            ))
            .at(SnapshotHeader::DATA_SIZE_OFFSET));
        }
        let num_items = num_items as usize;
        let total = SnapshotHeader::SIZE as u64 + 4 * num_items as u64 + data_size as u64;
        if total > MAX_SIZE as u64 {
            return Err(Error::limit(format!(
                "the snapshot declares {total} bytes (num_items {num_items}, data_size \
                 {data_size}), more than the {MAX_SIZE} a snapshot can take"
            ))
            .at(SnapshotHeader::DATA_SIZE_OFFSET));
        }
        let input = 4 * ints.len() as u64;
        if total != input {
            let more = if total > input { "more" } else { "fewer" };
            return Err(Error::malformed(format!(
                "the snapshot declares {total} bytes (num_items {num_items}, data_size \
                 {data_size}), {more} than the {input} bytes of the input"
            ))
            .at(SnapshotHeader::DATA_SIZE_OFFSET));
        }
        let (layout, _) = read_layout::<SnapshotLayout>(ints, ())
            .map_err(|error| Error::from_binrw(error, "snapshot"))?;
        let SnapshotLayout { offsets, items } = layout;
        // Where the items start in the input: after the header and the offsets.
        let items_at = SnapshotHeader::SIZE + 4 * num_items;

        let mut keys = Vec::with_capacity(num_items);
        let mut starts = Vec::with_capacity(num_items + 1);
        starts.push(0);
        // The data is `items` with the keys left out, moved to the front in place: each item's
        // data moves over the keys before it, never past where the next item starts.
        let mut data = items;
        let len = data.len();
        let mut filled = 0;
        for (index, &offset) in offsets.iter().enumerate() {
            let at = SnapshotHeader::SIZE + 4 * index;
            let located = |message: String| {
                Error::malformed(message)
                    .located(Location::SnapItem { index, key: None })
                    .at(at)
            };
            if offset < 0 || offset % 4 != 0 {
                return Err(located(format!(
                    "offset {offset} is not an offset of an int (negative or not a multiple of 4)"
                )));
            }
            let start = offset as usize / 4;
            if index == 0 && start != 0 {
                return Err(located(format!(
                    "the first offset is {offset}, it must be 0"
                )));
            }
            if start < filled + keys.len() {
                let before = offsets[index - 1];
                return Err(located(format!(
                    "offset {offset} is not at least 4 past the offset before ({before}): \
                     no room for that item's key"
                )));
            }
            if start >= len {
                return Err(located(format!(
                    "offset {offset} leaves no room for a key in data_size {data_size}"
                )));
            }
            let end = offsets
                .get(index + 1)
                .map_or(len, |&next| (next.max(0) as usize / 4).min(len));
            let key = SnapKey(data[start] as u32);
            if key.type_id() > MAX_TYPE {
                return Err(Error::malformed(format!(
                    "type id {:#x} is past {MAX_TYPE:#x}, the largest snapshot type",
                    key.type_id()
                ))
                .located(Location::SnapItem {
                    index,
                    key: Some(key),
                })
                .at(items_at + 4 * start));
            }
            keys.push(key);
            // A too small `end` is the next offset's error, reported in the next round.
            let item = start + 1..end.max(start + 1);
            data.copy_within(item.clone(), filled);
            filled += item.len();
            starts.push(filled as u32);
        }
        data.truncate(filled);
        let mut snapshot = Snapshot::from_parts(keys, starts, data, Vec::with_capacity(num_items));
        snapshot.index_keys().map_err(|(index, key)| {
            Error::malformed("another item has this key")
                .located(Location::SnapItem {
                    index,
                    key: Some(key),
                })
                .at(items_at + 4 * (snapshot.starts[index] as usize + index))
        })?;
        Ok(snapshot)
    }

    /// Reads a snapshot from packed ints (the network and demo form). Error offsets are byte
    /// offsets in `bytes`. Unpacking stops at the first int past the [`MAX_SIZE`] bytes a
    /// snapshot can take.
    pub fn from_packed(bytes: &[u8]) -> Result<Snapshot, Error> {
        let ints = unpack(bytes, "a snapshot")?;
        Snapshot::from_ints(&ints).map_err(|error| error.map_offset(|at| packed_offset(bytes, at)))
    }

    /// Builds `by_key`, or names the later of two items with the same key.
    pub(super) fn index_keys(&mut self) -> Result<(), (usize, SnapKey)> {
        self.by_key.clear();
        self.by_key.extend(
            self.keys
                .iter()
                .enumerate()
                .map(|(i, &key)| key_entry(key, i)),
        );
        self.by_key.sort_unstable();
        match self
            .by_key
            .windows(2)
            .find(|pair| entry_key(pair[0]) == entry_key(pair[1]))
        {
            Some(pair) => Err((entry_index(pair[1]), entry_key(pair[1]))),
            None => Ok(()),
        }
    }

    /// Assembles a snapshot from parts whose `by_key` is already built.
    pub(super) fn from_parts(
        keys: Vec<SnapKey>,
        starts: Vec<u32>,
        data: Vec<i32>,
        by_key: Vec<u64>,
    ) -> Snapshot {
        Snapshot {
            keys,
            starts,
            data,
            by_key,
            checksum: OnceLock::new(),
        }
    }

    /// The ints of this snapshot, items in stored order.
    pub fn to_ints(&self) -> Vec<i32> {
        let mut out = Vec::with_capacity(self.size() / 4);
        self.write_ints(&mut out);
        out
    }

    /// Appends the ints of this snapshot to `out`.
    pub fn write_ints(&self, out: &mut Vec<i32>) {
        let layout = self.layout();
        // The limits keep a snapshot within 64 KiB, so its sizes fit the format's i32s.
        write_layout(&layout, layout.size(), out).expect("a snapshot within the limits");
    }

    /// The stored form: the offsets of the items, and their keys and data in one array.
    fn layout(&self) -> SnapshotLayout {
        let items = self.keys.len();
        let offsets = (self.starts[..items].iter().enumerate())
            .map(|(i, &start)| 4 * (start as i32 + i as i32))
            .collect();
        let mut ints = Vec::with_capacity(items + self.data.len());
        for item in self.items() {
            ints.push(item.key.0 as i32);
            ints.extend_from_slice(item.data);
        }
        SnapshotLayout {
            offsets,
            items: ints,
        }
    }

    /// The packed ints of this snapshot (the network and demo form).
    pub fn to_packed(&self) -> Vec<u8> {
        super::packing::pack_ints(&self.to_ints())
    }

    /// Bytes of the snapshot as ints: header, offsets, keys and data.
    pub fn size(&self) -> usize {
        SnapshotHeader::SIZE + 4 * (2 * self.keys.len() + self.data.len())
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the snapshot has no items.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The item at `index` in stored order.
    pub fn item_at(&self, index: usize) -> Option<SnapItem<'_>> {
        (index < self.keys.len()).then(|| self.item_unchecked(index))
    }

    /// The item at `index`, which is less than `len()` (else a panic: a bug of this module).
    fn item_unchecked(&self, index: usize) -> SnapItem<'_> {
        let range = self.starts[index] as usize..self.starts[index + 1] as usize;
        SnapItem {
            key: self.keys[index],
            data: &self.data[range],
        }
    }

    /// The items in stored order.
    pub fn items(&self) -> impl ExactSizeIterator<Item = SnapItem<'_>> + '_ {
        (0..self.keys.len()).map(|index| self.item_unchecked(index))
    }

    /// The items in key order.
    pub fn items_by_key(&self) -> impl ExactSizeIterator<Item = SnapItem<'_>> + '_ {
        self.by_key
            .iter()
            .map(|&entry| self.item_unchecked(entry_index(entry)))
    }

    /// Index in stored order of the item with `key`.
    pub fn index_of(&self, key: SnapKey) -> Option<usize> {
        let slot = self.by_key.partition_point(|&entry| entry_key(entry) < key);
        let &entry = self.by_key.get(slot)?;
        (entry_key(entry) == key).then_some(entry_index(entry))
    }

    /// Index of the item with `key`, looked for first among the few items from `hint` on
    /// (where lists in stored order usually have it next), then by binary search.
    pub(super) fn find_near(&self, key: SnapKey, hint: usize) -> Option<usize> {
        /// How far a hint is followed before searching.
        const NEAR: usize = 4;
        let near = self.keys.get(hint..).unwrap_or_default();
        match near.iter().take(NEAR).position(|&k| k == key) {
            Some(offset) => Some(hint + offset),
            None => self.index_of(key),
        }
    }

    /// The data of the item with `key`.
    pub fn get(&self, key: SnapKey) -> Option<&[i32]> {
        Some(self.item_at(self.index_of(key)?)?.data)
    }

    /// The data of item `id` of type `type_id`.
    pub fn item(&self, type_id: u16, id: u16) -> Option<&[i32]> {
        self.get(SnapKey::new(type_id, id))
    }

    /// The checksum: the wrapping sum of every item's data, keys left out (docs/format-notes.md,
    /// "Snapshots"; DDNet `CSnapshot::Crc`). The network sends it as a signed int. Summed once,
    /// on the first call; later calls, on this snapshot or on its clones, take no time.
    pub fn checksum(&self) -> i32 {
        *self.checksum.get_or_init(|| {
            self.data
                .iter()
                .fold(0i32, |sum, &int| sum.wrapping_add(int))
        })
    }

    /// The UUID that this snapshot announces for extended type `type_id`: item (0, `type_id`)
    /// read as the schema's [`ExtendedType`], its first 4 ints (DDNet
    /// `CSnapshot::GetExternalItemType`); `None` when there is no such item or it is shorter.
    pub fn type_uuid(&self, type_id: u16) -> Option<Uuid> {
        if type_id < OFFSET_EXTENDED_TYPE {
            return None;
        }
        let data = self.item(EXTENDED_TYPE_ANNOUNCEMENT, type_id)?;
        let announced: ExtendedType = decode_ints(data, ()).ok()?;
        Some(announced.uuid)
    }

    /// The extended type id that this snapshot announces for `uuid` (DDNet
    /// `CSnapshot::FindItem`).
    pub fn uuid_type(&self, uuid: Uuid) -> Option<u16> {
        self.extended_types()
            .find(|&(_, announced)| announced == uuid)
            .map(|(type_id, _)| type_id)
    }

    /// The data of item `id` of the extended type named by `uuid`, through the type id this
    /// snapshot announces for it.
    pub fn extended_item(&self, uuid: Uuid, id: u16) -> Option<&[i32]> {
        self.item(self.uuid_type(uuid)?, id)
    }

    /// Every extended type this snapshot announces, with its UUID, by type id.
    pub fn extended_types(&self) -> impl Iterator<Item = (u16, Uuid)> + '_ {
        self.items_by_key()
            .take_while(|item| item.type_id() == EXTENDED_TYPE_ANNOUNCEMENT)
            .filter(|item| item.id() >= OFFSET_EXTENDED_TYPE)
            .filter_map(|item| Some((item.id(), self.type_uuid(item.id())?)))
    }

    /// The same items in key order, the order `libtw2` and sorted tools use.
    pub fn sorted(&self) -> Snapshot {
        let mut builder = SnapshotBuilder::new();
        for item in self.items_by_key() {
            builder.push(item.key, item.data);
        }
        builder.into_snapshot_unchecked()
    }

    pub(super) fn keys(&self) -> &[SnapKey] {
        &self.keys
    }

    pub(super) fn starts(&self) -> &[u32] {
        &self.starts
    }

    pub(super) fn data(&self) -> &[i32] {
        &self.data
    }

    pub(super) fn by_key(&self) -> &[u64] {
        &self.by_key
    }
}

impl Default for Snapshot {
    fn default() -> Self {
        Snapshot::empty()
    }
}

impl PartialEq for Snapshot {
    fn eq(&self, other: &Snapshot) -> bool {
        self.len() == other.len()
            && self
                .items_by_key()
                .zip(other.items_by_key())
                .all(|(a, b)| a == b)
    }
}

impl Eq for Snapshot {}

impl fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                self.items()
                    .map(|item| ((item.type_id(), item.id()), item.data)),
            )
            .finish()
    }
}

/// Builds a snapshot item by item, as a server does (DDNet `CSnapshotBuilder`).
///
/// ```
/// use twcodec::snap::SnapshotBuilder;
/// use twcodec::schema::uuid::uuid_from_name;
///
/// let mut builder = SnapshotBuilder::new();
/// builder.add_item(9, 0, &[0; 22])?;
/// let ddnet_character = uuid_from_name("character@netobj.ddnet.tw");
/// let type_id = builder.add_extended_item(ddnet_character, 0, &[0; 10])?;
/// let snapshot = builder.finish()?;
/// assert_eq!(type_id, 0x7FFF); // handed out from the top, as DDNet does
/// assert_eq!(snapshot.type_uuid(type_id), Some(ddnet_character));
/// assert_eq!(snapshot.len(), 3); // the announcement item is one
/// # Ok::<(), twcodec::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
#[doc(alias = "CSnapshotBuilder")]
pub struct SnapshotBuilder {
    keys: Vec<SnapKey>,
    starts: Vec<u32>,
    data: Vec<i32>,
    extended: Vec<(Uuid, u16)>,
}

impl SnapshotBuilder {
    /// An empty builder.
    pub fn new() -> SnapshotBuilder {
        SnapshotBuilder {
            starts: vec![0],
            ..SnapshotBuilder::default()
        }
    }

    /// Adds item `id` of type `type_id`.
    pub fn add_item(&mut self, type_id: u16, id: u16, data: &[i32]) -> Result<(), Error> {
        if type_id > MAX_TYPE {
            return Err(Error::malformed(format!(
                "type id {type_id:#x} is past {MAX_TYPE:#x}, the largest snapshot type"
            )));
        }
        self.check_room(data.len())?;
        self.push(SnapKey::new(type_id, id), data);
        Ok(())
    }

    /// Adds item `id` of the extended type named by `uuid`, announcing the type first if it
    /// is new; returns the type id, handed out from [`MAX_TYPE`] down as DDNet does.
    pub fn add_extended_item(&mut self, uuid: Uuid, id: u16, data: &[i32]) -> Result<u16, Error> {
        let type_id = match self.extended.iter().find(|(known, _)| *known == uuid) {
            Some(&(_, type_id)) => type_id,
            None => {
                let type_id = MAX_TYPE - self.extended.len() as u16;
                if type_id < OFFSET_EXTENDED_TYPE {
                    return Err(Error::limit(format!(
                        "more than the {} extended types a snapshot can have",
                        MAX_TYPE - OFFSET_EXTENDED_TYPE + 1
                    )));
                }
                let announcement = encode_ints(&ExtendedType { uuid }, ())
                    .map_err(|error| Error::from_binrw(error, "extended type announcement"))?;
                self.add_item(EXTENDED_TYPE_ANNOUNCEMENT, type_id, &announcement)?;
                self.extended.push((uuid, type_id));
                type_id
            }
        };
        self.add_item(type_id, id, data)?;
        Ok(type_id)
    }

    /// Checks that one more item of `len` ints fits the limits.
    fn check_room(&self, len: usize) -> Result<(), Error> {
        if self.keys.len() >= MAX_ITEMS {
            return Err(Error::limit(format!(
                "a snapshot can have at most {MAX_ITEMS} items"
            )));
        }
        let size = SnapshotHeader::SIZE + 4 * (2 * (self.keys.len() + 1) + self.data.len() + len);
        if size > MAX_SIZE {
            return Err(Error::limit(format!(
                "the snapshot would take {size} bytes, more than the {MAX_SIZE} it can"
            )));
        }
        Ok(())
    }

    /// Adds an item without checks.
    fn push(&mut self, key: SnapKey, data: &[i32]) {
        self.keys.push(key);
        self.data.extend_from_slice(data);
        self.starts.push(self.data.len() as u32);
    }

    /// The snapshot, or an error naming a key that was added twice.
    pub fn finish(self) -> Result<Snapshot, Error> {
        let mut snapshot = Snapshot::from_parts(self.keys, self.starts, self.data, Vec::new());
        snapshot.index_keys().map_err(|(index, key)| {
            Error::malformed("another item has this key").located(Location::SnapItem {
                index,
                key: Some(key),
            })
        })?;
        Ok(snapshot)
    }

    /// The snapshot of items known to have distinct keys.
    fn into_snapshot_unchecked(self) -> Snapshot {
        let mut snapshot = Snapshot::from_parts(self.keys, self.starts, self.data, Vec::new());
        // The keys come from a snapshot, so they are distinct.
        let _ = snapshot.index_keys();
        snapshot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two items: a pickup (type 4, id 1) and a character (type 9, id 0), stored in that order.
    const TWO_ITEMS: [i32; 11] = [
        28,          // data_size: 7 ints of items
        2,           // num_items
        0,           // offset of item 0
        12,          // offset of item 1
        0x0004_0001, // item 0 key: type 4, id 1
        100,         // item 0 data
        -200,        // item 0 data
        0x0009_0000, // item 1 key: type 9, id 0
        1,           // item 1 data
        2,           // item 1 data
        i32::MAX,    // item 1 data
    ];

    #[test]
    fn the_checksum_is_summed_once_for_a_snapshot_and_its_clones() {
        let snapshot = Snapshot::from_ints(&TWO_ITEMS).unwrap();
        assert_eq!(snapshot.checksum.get(), None);
        let checksum = snapshot.checksum();
        // Summed once: the sum is kept, and a clone takes it along, so neither sums again.
        assert_eq!(snapshot.checksum.get(), Some(&checksum));
        let clone = snapshot.clone();
        assert_eq!(clone.checksum.get(), Some(&checksum));
        assert_eq!(snapshot.checksum(), checksum);
        assert_eq!(clone.checksum(), checksum);
        // Equal snapshots are equal whether or not their checksum was summed.
        assert_eq!(Snapshot::from_ints(&TWO_ITEMS).unwrap(), snapshot);
        // 100 - 200 + 1 + 2 + i32::MAX, keys left out.
        assert_eq!(checksum, i32::MAX - 97);
    }

    #[test]
    fn reads_every_field_and_writes_the_same_ints() {
        let snapshot = Snapshot::from_ints(&TWO_ITEMS).unwrap();
        assert_eq!(snapshot.len(), 2);
        let items: Vec<_> = snapshot.items().collect();
        assert_eq!((items[0].type_id(), items[0].id()), (4, 1));
        assert_eq!(items[0].data, [100, -200]);
        assert_eq!((items[1].type_id(), items[1].id()), (9, 0));
        assert_eq!(items[1].data, [1, 2, i32::MAX]);
        assert_eq!(snapshot.item(9, 0), Some(&[1, 2, i32::MAX][..]));
        assert_eq!(snapshot.item(9, 1), None);
        assert_eq!(snapshot.size(), 44);
        assert_eq!(snapshot.to_ints(), TWO_ITEMS);
        // 100 - 200 + 1 + 2 + i32::MAX, wrapping; keys are not summed.
        assert_eq!(snapshot.checksum(), i32::MAX.wrapping_add(-97));
    }

    #[test]
    fn stored_order_is_kept_and_ignored_by_eq() {
        let mut builder = SnapshotBuilder::new();
        builder.add_item(9, 0, &[1, 2, i32::MAX]).unwrap();
        builder.add_item(4, 1, &[100, -200]).unwrap();
        let reversed = builder.finish().unwrap();
        let snapshot = Snapshot::from_ints(&TWO_ITEMS).unwrap();
        assert_eq!(reversed, snapshot);
        assert_ne!(reversed.to_ints(), snapshot.to_ints());
        assert_eq!(reversed.sorted().to_ints(), snapshot.to_ints());
        let keys: Vec<_> = reversed.items_by_key().map(|item| item.key).collect();
        assert_eq!(keys, [SnapKey::new(4, 1), SnapKey::new(9, 0)]);
    }

    #[test]
    fn empty_items_and_the_empty_snapshot() {
        let ints = [8, 2, 0, 4, 0x0005_0000, 0x0005_0001];
        let snapshot = Snapshot::from_ints(&ints).unwrap();
        assert_eq!(snapshot.item(5, 0), Some(&[][..]));
        assert_eq!(snapshot.item(5, 1), Some(&[][..]));
        assert_eq!(snapshot.to_ints(), ints);
        let empty = Snapshot::from_ints(&[0, 0]).unwrap();
        assert_eq!(empty, Snapshot::empty());
        assert_eq!(Snapshot::empty().to_ints(), [0, 0]);
        assert_eq!(Snapshot::empty().checksum(), 0);
    }

    #[test]
    fn packed_form_round_trips() {
        let snapshot = Snapshot::from_ints(&TWO_ITEMS).unwrap();
        let packed = snapshot.to_packed();
        assert_eq!(Snapshot::from_packed(&packed).unwrap().to_ints(), TWO_ITEMS);
    }

    #[test]
    fn extended_types() {
        let character = twcodec_schema::uuid::uuid_from_name("character@netobj.ddnet.tw");
        let player = twcodec_schema::uuid::uuid_from_name("player@netobj.ddnet.tw");
        let mut builder = SnapshotBuilder::new();
        assert_eq!(
            builder.add_extended_item(character, 0, &[1]).unwrap(),
            0x7FFF
        );
        assert_eq!(builder.add_extended_item(player, 0, &[2]).unwrap(), 0x7FFE);
        assert_eq!(
            builder.add_extended_item(character, 1, &[3]).unwrap(),
            0x7FFF
        );
        let snapshot = builder.finish().unwrap();
        assert_eq!(snapshot.len(), 5);
        assert_eq!(snapshot.type_uuid(0x7FFE), Some(player));
        assert_eq!(snapshot.uuid_type(character), Some(0x7FFF));
        assert_eq!(snapshot.type_uuid(9), None);
        assert_eq!(snapshot.extended_item(character, 1), Some(&[3][..]));
        assert_eq!(snapshot.extended_item(player, 1), None);
        let types: Vec<_> = snapshot.extended_types().collect();
        assert_eq!(types, [(0x7FFE, player), (0x7FFF, character)]);
        // The announcement is item (0, type) holding the UUID as 4 big-endian ints.
        let be_ints: Vec<i32> = (character.as_bytes().chunks(4))
            .map(|int| i32::from_be_bytes([int[0], int[1], int[2], int[3]]))
            .collect();
        assert_eq!(snapshot.item(0, 0x7FFF), Some(&be_ints[..]));
        // An announcement is read as the schema's ExtendedType: the first 4 ints (more are
        // ignored, as DDNet does), none when it has fewer.
        let mut builder = SnapshotBuilder::new();
        builder
            .add_item(0, 0x7FFF, &[be_ints.clone(), vec![7]].concat())
            .unwrap();
        builder.add_item(0, 0x7FFE, &be_ints[..3]).unwrap();
        let snapshot = builder.finish().unwrap();
        assert_eq!(snapshot.type_uuid(0x7FFF), Some(character));
        assert_eq!(snapshot.type_uuid(0x7FFE), None);
        assert_eq!(snapshot.extended_types().count(), 1);
    }

    #[test]
    fn builder_enforces_the_rules() {
        let mut builder = SnapshotBuilder::new();
        assert!(builder.add_item(0x8000, 0, &[]).is_err());
        builder.add_item(1, 1, &[]).unwrap();
        builder.add_item(1, 1, &[]).unwrap();
        let error = builder.finish().unwrap_err();
        assert_eq!(
            error.to_string(),
            "snapshot item #1 (type 1, id 1): another item has this key"
        );

        let mut builder = SnapshotBuilder::new();
        for id in 0..1024 {
            builder.add_item(1, id, &[]).unwrap();
        }
        let error = builder.add_item(1, 1024, &[]).unwrap_err();
        assert_eq!(error.kind(), crate::ErrorKind::LimitExceeded);

        let mut builder = SnapshotBuilder::new();
        let big = vec![0; (MAX_SIZE - 16) / 4];
        builder.add_item(1, 0, &big).unwrap();
        assert!(builder.add_item(1, 1, &[]).is_err());
    }
}
