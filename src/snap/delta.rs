//! [`SnapshotDelta`]: read, write, create, and apply to a [`Snapshot`].

use std::borrow::Cow;
use std::fmt;

use twcodec_schema::map::decode_ints;
use twcodec_schema::snapshot::{DeltaHeader, ItemDeltas, SnapshotDeltaLayout, SnapshotHeader};
use twcodec_schema::SchemaError;

use super::{
    entry_index, entry_key, key_entry, packed_offset, read_layout, unpack, write_layout, SizeTable,
    SnapItem, SnapKey, Snapshot, MAX_INTS, MAX_ITEMS, MAX_SIZE, MAX_TYPE,
};
use crate::{Error, Location};

/// No index: an item of the new snapshot without an old one, an old item without update.
const NONE: u32 = u32::MAX;
/// An item of the old snapshot that the delta removes.
const REMOVED: u32 = u32::MAX - 1;

/// The difference between two snapshots (snapshot.md, "Snapshot deltas"; DDNet
/// `CSnapshotDelta`): keys the new snapshot lacks, and the items it adds or changes, as their
/// data or as the wrapping difference to the old data.
///
/// Whether an item delta carries its size depends on the protocol's pre-agreed sizes, so
/// reading and writing take a [`SizeTable`].
#[derive(Clone, PartialEq, Eq)]
#[doc(alias = "CSnapshotDelta")]
pub struct SnapshotDelta {
    /// The header's zero field as read (writers write 0).
    zero: i32,
    /// Removed keys, in stored order.
    removed: Vec<SnapKey>,
    /// Keys of the item deltas, in stored order.
    keys: Vec<SnapKey>,
    /// Where each item delta's ints start in `data`, plus the end.
    starts: Vec<u32>,
    /// Every item delta's ints.
    data: Vec<i32>,
    /// `key_entry(key, index)` of every item delta, sorted.
    by_key: Vec<u64>,
}

impl SnapshotDelta {
    /// The delta that changes nothing (DDNet `CSnapshotDelta::EmptyDelta`).
    pub fn empty() -> SnapshotDelta {
        SnapshotDelta {
            zero: 0,
            removed: Vec::new(),
            keys: Vec::new(),
            starts: vec![0],
            data: Vec::new(),
            by_key: Vec::new(),
        }
    }

    /// Reads a delta from its unpacked ints, for a protocol with pre-agreed `sizes`, checking
    /// every rule of the module docs. No ints at all is the empty delta (DDNet sends an
    /// unchanged snapshot as `snap_empty`, without data).
    pub fn from_ints(ints: &[i32], sizes: &SizeTable) -> Result<SnapshotDelta, Error> {
        if ints.is_empty() {
            return Ok(SnapshotDelta::empty());
        }
        // The bound also keeps every offset and count within the u32 and i32 they are kept and
        // written as.
        if ints.len() > MAX_INTS {
            return Err(Error::limit(format!(
                "the delta has {} ({} bytes), more than the {MAX_SIZE} bytes a snapshot delta \
                 can take",
                super::ints(ints.len()),
                4 * ints.len() as u64
            ))
            .at(MAX_SIZE));
        }
        const HEADER_INTS: usize = DeltaHeader::SIZE / 4;
        let header = ints.get(..HEADER_INTS).ok_or_else(|| {
            Error::malformed(format!(
                "a snapshot delta starts with {HEADER_INTS} header ints, the input has {}",
                ints.len()
            ))
        })?;
        let header: DeltaHeader =
            decode_ints(header, ()).map_err(|error| Error::from_binrw(error, "delta header"))?;
        let after_header = ints.len() - HEADER_INTS;
        let num_removed = header.num_removed_items;
        if num_removed < 0 || num_removed as usize > after_header {
            return Err(Error::malformed(format!(
                "num_removed_items {num_removed} is not a count of the {after_header} ints \
                 after the header"
            ))
            .at(DeltaHeader::NUM_REMOVED_ITEMS_OFFSET));
        }
        let num_updates = header.num_item_deltas;
        if num_updates < 0 {
            return Err(
                Error::malformed(format!("num_item_deltas {num_updates} is negative"))
                    .at(DeltaHeader::NUM_ITEM_DELTAS_OFFSET),
            );
        }
        let (layout, end) =
            read_layout::<SnapshotDeltaLayout>(ints, binrw::args! { sizes: *sizes })
                .map_err(|error| item_delta_error(error, num_updates))?;
        if end < 4 * ints.len() {
            return Err(Error::malformed(format!(
                "{} after the last of the {num_updates} item deltas",
                super::ints(ints.len() - end / 4)
            ))
            .at(end));
        }
        // Read into owned parts, which become the delta's without a copy.
        let mut delta = SnapshotDelta {
            zero: layout.zero,
            removed: layout.removed_keys.into_owned(),
            keys: layout.item_deltas.keys.into_owned(),
            starts: layout.item_deltas.starts.into_owned(),
            data: layout.item_deltas.data.into_owned(),
            by_key: Vec::new(),
        };
        delta.index_keys().map_err(|(index, key)| {
            Error::malformed("another item delta has this key")
                .located(Location::ItemDelta {
                    index,
                    key: Some(key),
                })
                .at(delta.layout(sizes).item_delta_offset(index))
        })?;
        Ok(delta)
    }

    /// Reads a delta from packed ints (the network and demo form). Error offsets are byte
    /// offsets in `bytes`. Unpacking stops at the first int past the [`MAX_SIZE`] bytes a
    /// delta can take.
    pub fn from_packed(bytes: &[u8], sizes: &SizeTable) -> Result<SnapshotDelta, Error> {
        let ints = unpack(bytes, "a snapshot delta")?;
        SnapshotDelta::from_ints(&ints, sizes)
            .map_err(|error| error.map_offset(|at| packed_offset(bytes, at)))
    }

    /// The stored form of this delta for a protocol with pre-agreed `sizes`, borrowing its
    /// parts.
    fn layout(&self, sizes: &SizeTable) -> SnapshotDeltaLayout<'_> {
        SnapshotDeltaLayout {
            zero: self.zero,
            removed_keys: Cow::Borrowed(&self.removed),
            item_deltas: ItemDeltas {
                keys: Cow::Borrowed(&self.keys),
                starts: Cow::Borrowed(&self.starts),
                data: Cow::Borrowed(&self.data),
                sizes: *sizes,
            },
        }
    }

    /// Where item delta `index`'s ints are in `data`.
    fn range(&self, index: usize) -> std::ops::Range<usize> {
        self.starts[index] as usize..self.starts[index + 1] as usize
    }

    /// Builds `by_key`, or names the later of two item deltas with the same key.
    fn index_keys(&mut self) -> Result<(), (usize, SnapKey)> {
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

    /// The ints of this delta, for a protocol with pre-agreed `sizes`.
    pub fn to_ints(&self, sizes: &SizeTable) -> Result<Vec<i32>, Error> {
        let mut out = Vec::new();
        self.write_ints(sizes, &mut out)?;
        Ok(out)
    }

    /// Appends the ints of this delta to `out`, for a protocol with pre-agreed `sizes`.
    pub fn write_ints(&self, sizes: &SizeTable, out: &mut Vec<i32>) -> Result<(), Error> {
        // Room for the most it can take: every item delta with `_size`.
        let room = 4 * (3 + self.removed.len() + 3 * self.keys.len() + self.data.len());
        write_layout(&self.layout(sizes), room, out).map_err(|error| {
            match error.custom_err::<SchemaError>() {
                Some(SchemaError::ItemDelta { index, key, error }) => {
                    Error::malformed(error.to_string()).located(Location::ItemDelta {
                        index: *index,
                        key: *key,
                    })
                }
                _ => Error::from_binrw(error, "snapshot delta"),
            }
        })
    }

    /// The packed ints of this delta (the network and demo form).
    pub fn to_packed(&self, sizes: &SizeTable) -> Result<Vec<u8>, Error> {
        Ok(super::packing::pack_ints(&self.to_ints(sizes)?))
    }

    /// Whether the delta changes nothing.
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.keys.is_empty()
    }

    /// The keys of the removed items.
    pub fn removed(&self) -> &[SnapKey] {
        &self.removed
    }

    /// The header's zero field, as read (0 unless the writer broke the rule).
    pub fn zero(&self) -> i32 {
        self.zero
    }

    /// The item deltas in stored order: for an item the old snapshot lacks, its data; for one
    /// it has, the wrapping differences to its data.
    pub fn updates(&self) -> impl ExactSizeIterator<Item = SnapItem<'_>> + '_ {
        (0..self.keys.len()).map(|index| SnapItem {
            key: self.keys[index],
            data: &self.data[self.starts[index] as usize..self.starts[index + 1] as usize],
        })
    }

    /// The delta from `old` to `new`: the keys `new` lacks, the items `old` lacks, and the
    /// changed items; unchanged items are left out, as DDNet does
    /// (`CSnapshotDelta::CreateDelta`). An item whose size changes cannot be described by a
    /// delta, and is an error.
    pub fn create(old: &Snapshot, new: &Snapshot) -> Result<SnapshotDelta, Error> {
        let (old_by_key, new_by_key) = (old.by_key(), new.by_key());
        let mut old_of_new = vec![NONE; new.len()];
        let mut kept = vec![false; old.len()];
        let (mut i, mut j) = (0, 0);
        while i < old_by_key.len() && j < new_by_key.len() {
            let (a, b) = (old_by_key[i], new_by_key[j]);
            match entry_key(a).cmp(&entry_key(b)) {
                std::cmp::Ordering::Equal => {
                    old_of_new[entry_index(b)] = entry_index(a) as u32;
                    kept[entry_index(a)] = true;
                    i += 1;
                    j += 1;
                }
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
            }
        }

        let mut delta = SnapshotDelta::empty();
        delta
            .removed
            .reserve(kept.iter().filter(|&&kept| !kept).count());
        delta.removed.extend(
            (old.keys().iter().zip(&kept))
                .filter(|(_, &kept)| !kept)
                .map(|(&key, _)| key),
        );
        let (old_starts, old_data) = (old.starts(), old.data());
        let (new_starts, new_data) = (new.starts(), new.data());
        delta.keys.reserve(new.len());
        delta.starts.reserve(new.len());
        delta.data.reserve(new_data.len());
        let mut update_of_new = vec![NONE; new.len()];
        let items = new.keys().iter().zip(new_starts.windows(2));
        for (index, (&key, bounds)) in items.enumerate() {
            let now = &new_data[bounds[0] as usize..bounds[1] as usize];
            match old_of_new[index] {
                NONE => delta.data.extend_from_slice(now),
                old => {
                    let old = old as usize;
                    let past = &old_data[old_starts[old] as usize..old_starts[old + 1] as usize];
                    if past.len() != now.len() {
                        return Err(Error::malformed(format!(
                            "the item changes size from {} to {} ints, which a delta cannot \
                             describe (remove it in one delta, add it in the next)",
                            past.len(),
                            now.len()
                        ))
                        .located(Location::SnapItem {
                            index,
                            key: Some(key),
                        }));
                    }
                    if past == now {
                        continue;
                    }
                    let diff = now.iter().zip(past).map(|(&a, &b)| a.wrapping_sub(b));
                    delta.data.extend(diff);
                }
            }
            update_of_new[index] = delta.keys.len() as u32;
            delta.keys.push(key);
            delta.starts.push(delta.data.len() as u32);
        }
        delta.by_key.reserve(delta.keys.len());
        delta.by_key.extend(new_by_key.iter().filter_map(|&entry| {
            match update_of_new[entry_index(entry)] {
                NONE => None,
                update => Some(key_entry(entry_key(entry), update as usize)),
            }
        }));
        Ok(delta)
    }
}

impl Snapshot {
    /// The snapshot that `delta` makes of this one (DDNet `CSnapshotDelta::UnpackDelta`):
    /// removed items dropped, changed items added to (wrapping), new items appended in the
    /// order of the delta. Checks the rules of the module docs.
    #[doc(alias = "UnpackDelta")]
    pub fn apply(&self, delta: &SnapshotDelta) -> Result<Snapshot, Error> {
        let (old_keys, old_starts, old_data, old_by_key) =
            (self.keys(), self.starts(), self.data(), self.by_key());
        // What becomes of each old item: NONE kept, REMOVED, or the index of its update.
        let mut state = vec![NONE; self.len()];
        // The old indices of the removed items. Deltas list them in the order of the old
        // snapshot (DDNet), so each is looked for just after the one before.
        let mut removed = Vec::with_capacity(delta.removed.len());
        let mut next = 0;
        for (index, &key) in delta.removed.iter().enumerate() {
            let located = |message: &str| {
                Error::malformed(message).located(Location::RemovedKey { index, key })
            };
            let old = (self.find_near(key, next))
                .ok_or_else(|| located("the old snapshot has no item with this key"))?;
            if state[old] == REMOVED {
                return Err(located("this key is removed twice"));
            }
            state[old] = REMOVED;
            removed.push(old);
            next = old + 1;
        }
        if !removed.is_sorted() {
            removed.sort_unstable();
        }

        // Updates of old items, and the new items (entries of `delta.by_key`, sorted).
        let mut changes = Vec::with_capacity(delta.keys.len());
        let mut fresh = Vec::with_capacity(delta.keys.len());
        let mut rest = old_by_key;
        for &entry in &delta.by_key {
            let key = entry_key(entry);
            rest = &rest[gallop(rest, |old| entry_key(old) < key)..];
            match rest.first() {
                Some(&old) if entry_key(old) == key => {
                    let (old, update) = (entry_index(old), entry_index(entry));
                    let located = |message: String| {
                        Error::malformed(message).located(Location::ItemDelta {
                            index: update,
                            key: Some(key),
                        })
                    };
                    if state[old] == REMOVED {
                        return Err(located("this key is also removed".into()));
                    }
                    let old_range = old_starts[old] as usize..old_starts[old + 1] as usize;
                    let range = delta.range(update);
                    if range.len() != old_range.len() {
                        return Err(located(format!(
                            "the update has {} ints, the item it changes has {}",
                            range.len(),
                            old_range.len()
                        )));
                    }
                    state[old] = update as u32;
                    changes.push((old, range));
                }
                _ => fresh.push(entry),
            }
        }

        let items = self.len() - delta.removed.len() + fresh.len();
        if items > MAX_ITEMS {
            return Err(Error::limit(format!(
                "the result would have {items} items, more than the {MAX_ITEMS} a snapshot can have"
            )));
        }
        let fresh_ints: usize = fresh
            .iter()
            .map(|&entry| delta.range(entry_index(entry)).len())
            .sum();
        let removed_ints: usize = removed
            .iter()
            .map(|&old| (old_starts[old + 1] - old_starts[old]) as usize)
            .sum();
        // Checked before the result is allocated: a delta's new items are bounded by the delta
        // alone, not by what a snapshot can take.
        let size =
            SnapshotHeader::SIZE + 4 * (2 * items + old_data.len() - removed_ints + fresh_ints);
        if size > MAX_SIZE {
            return Err(Error::limit(format!(
                "the result would take {size} bytes, more than the {MAX_SIZE} a snapshot can take"
            )));
        }

        // The kept old items, then the changes added to them.
        let mut keys = Vec::with_capacity(items);
        let mut starts = Vec::with_capacity(items + 1);
        let mut data = Vec::with_capacity(old_data.len() + fresh_ints);
        let mut by_key = Vec::with_capacity(items);
        if delta.removed.is_empty() {
            keys.extend_from_slice(old_keys);
            starts.extend_from_slice(old_starts);
            data.extend_from_slice(old_data);
            by_key.extend_from_slice(old_by_key);
        } else {
            // The kept items between two removed ones are copied together: keys and data in
            // one copy, offsets and indices in one pass that the compiler vectorizes.
            // Where each old item ends up (reusing `state`, which is read no more).
            let mut new_of_old = state;
            starts.push(0);
            let (mut shift, mut run) = (0, 0);
            let runs = (removed.iter()).map(|&r| (r, old_starts[r + 1] - old_starts[r]));
            for (gone, (end, size)) in runs.chain([(self.len(), 0)]).enumerate() {
                data.extend_from_slice(
                    &old_data[old_starts[run] as usize..old_starts[end] as usize],
                );
                keys.extend_from_slice(&old_keys[run..end]);
                starts.extend(old_starts[run + 1..=end].iter().map(|&start| start - shift));
                for (slot, new) in new_of_old[run..end].iter_mut().zip(run - gone..) {
                    *slot = new as u32;
                }
                if let Some(slot) = new_of_old.get_mut(end) {
                    *slot = NONE;
                }
                shift += size;
                run = end + 1;
            }
            for (old, _) in &mut changes {
                *old = new_of_old[*old] as usize;
            }
            // The sorted entries of the kept items, renumbered; written without a branch, one
            // spare slot for the entries of removed items to land on.
            by_key.resize(keys.len() + 1, 0);
            let mut len = 0;
            for &entry in old_by_key {
                let new = new_of_old[entry_index(entry)];
                by_key[len] = key_entry(entry_key(entry), new as usize);
                len += usize::from(new != NONE);
            }
            by_key.truncate(len);
        }
        for (item, range) in changes {
            let target = starts[item] as usize..starts[item + 1] as usize;
            for (value, &change) in data[target].iter_mut().zip(&delta.data[range]) {
                *value = value.wrapping_add(change);
            }
        }

        // The new items, in the order of the delta; their entries merged into `by_key`.
        if !fresh.is_empty() {
            let mut new_of_update = vec![NONE; delta.keys.len()];
            for &entry in &fresh {
                new_of_update[entry_index(entry)] = 0;
            }
            for (update, slot) in new_of_update.iter_mut().enumerate() {
                if *slot == NONE {
                    continue;
                }
                *slot = keys.len() as u32;
                keys.push(delta.keys[update]);
                data.extend_from_slice(&delta.data[delta.range(update)]);
                starts.push(data.len() as u32);
            }
            for entry in &mut fresh {
                *entry = key_entry(
                    entry_key(*entry),
                    new_of_update[entry_index(*entry)] as usize,
                );
            }
            by_key = merge_sorted(&by_key, &fresh);
        }

        debug_assert_eq!(
            size,
            SnapshotHeader::SIZE + 4 * (2 * keys.len() + data.len())
        );
        Ok(Snapshot::from_parts(keys, starts, data, by_key))
    }
}

/// The first index of sorted `items` where `before` is false, searched from the front in
/// growing steps: cheap when it is near, as the next key of a sorted list usually is.
fn gallop(items: &[u64], before: impl Fn(u64) -> bool) -> usize {
    let mut bound = 1;
    while bound < items.len() && before(items[bound - 1]) {
        bound *= 2;
    }
    let low = bound / 2;
    let high = bound.min(items.len());
    low + items[low..high].partition_point(|&item| before(item))
}

/// Merges `few` into `many`, both sorted, by searching where each of `few` goes and copying
/// the runs of `many` between.
fn merge_sorted(many: &[u64], few: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(many.len() + few.len());
    let mut rest = many;
    for &entry in few {
        let slot = gallop(rest, |other| other < entry);
        out.extend_from_slice(&rest[..slot]);
        out.push(entry);
        rest = &rest[slot..];
    }
    out.extend_from_slice(rest);
    out
}

/// The error of an item delta that does not read ([`read_item_deltas`]), in the words of
/// the module docs; `num_updates` is the header's count.
fn item_delta_error(error: binrw::Error, num_updates: i32) -> Error {
    let (pos, index, key, rule) = match error.root_cause() {
        binrw::Error::Custom { pos, err } => match err.downcast_ref::<SchemaError>() {
            Some(SchemaError::ItemDelta { index, key, error }) => (*pos, *index, *key, error),
            _ => return Error::from_binrw(error, "snapshot delta"),
        },
        _ => return Error::from_binrw(error, "snapshot delta"),
    };
    let message = match **rule {
        SchemaError::Truncated {
            what: "data",
            needed,
            left,
        } => format!(
            "its {} run past the end of the input ({} left)",
            super::ints(needed as usize / 4),
            super::ints(left as usize / 4)
        ),
        SchemaError::Truncated { what, .. } => format!(
            "the input ends inside the item delta's {what} (num_item_deltas is {num_updates})"
        ),
        SchemaError::OutOfRange {
            what: "type id",
            value,
            ..
        } => format!("type id {value} is outside 0..={MAX_TYPE:#x}"),
        SchemaError::OutOfRange { what, value, max } => {
            format!("{what} {value} is outside 0..={max}")
        }
        ref other => other.to_string(),
    };
    Error::malformed(message)
        .located(Location::ItemDelta { index, key })
        .at(pos)
}

impl Default for SnapshotDelta {
    fn default() -> Self {
        SnapshotDelta::empty()
    }
}

impl fmt::Debug for SnapshotDelta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let removed: Vec<_> = self
            .removed
            .iter()
            .map(|key| (key.type_id(), key.id()))
            .collect();
        let updates: Vec<_> = self
            .updates()
            .map(|item| ((item.type_id(), item.id()), item.data))
            .collect();
        f.debug_struct("SnapshotDelta")
            .field("removed", &removed)
            .field("updates", &updates)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snap::SnapshotBuilder;

    fn snapshot(items: &[(u16, u16, &[i32])]) -> Snapshot {
        let mut builder = SnapshotBuilder::new();
        for &(type_id, id, data) in items {
            builder.add_item(type_id, id, data).unwrap();
        }
        builder.finish().unwrap()
    }

    #[test]
    fn reads_every_field_and_writes_the_same_ints() {
        let ints = [
            1,           // num_removed_items
            2,           // num_item_deltas
            0,           // _zero
            0x0002_0005, // removed key: type 2, id 5
            4,           // item delta 0: type 4 (pre-agreed size 4)
            1,           // id
            0,           // data delta
            0,           // data delta
            3,           // data delta
            0,           // data delta
            30,          // item delta 1: type 30 (no pre-agreed size)
            2,           // id
            1,           // _size
            -9,          // data
        ];
        let sizes = SizeTable::ddnet_06();
        let delta = SnapshotDelta::from_ints(&ints, &sizes).unwrap();
        assert_eq!(delta.removed(), [SnapKey::new(2, 5)]);
        let updates: Vec<_> = delta.updates().collect();
        assert_eq!(updates.len(), 2);
        assert_eq!((updates[0].type_id(), updates[0].id()), (4, 1));
        assert_eq!(updates[0].data, [0, 0, 3, 0]);
        assert_eq!((updates[1].type_id(), updates[1].id()), (30, 2));
        assert_eq!(updates[1].data, [-9]);
        assert_eq!(delta.zero(), 0);
        assert_eq!(delta.to_ints(&sizes).unwrap(), ints);
        let packed = delta.to_packed(&sizes).unwrap();
        assert_eq!(SnapshotDelta::from_packed(&packed, &sizes).unwrap(), delta);
    }

    #[test]
    fn applies_removals_updates_and_new_items_in_ddnet_order() {
        let old = snapshot(&[
            (4, 1, &[10, 20, 30, 40]),
            (2, 5, &[1; 6]),
            (9, 0, &[i32::MAX]),
        ]);
        let ints = [
            1,           // num_removed_items
            2,           // num_item_deltas
            0,           // _zero
            0x0002_0005, // removed: type 2, id 5
            30,          // new item: type 30
            2,           // id
            1,           // _size
            -9,          // data
            9,           // update: type 9 (no pre-agreed size in this table)
            0,           // id
            1,           // _size
            1,           // data delta: wraps
        ];
        let delta = SnapshotDelta::from_ints(&ints, &SizeTable::none()).unwrap();
        let new = old.apply(&delta).unwrap();
        let items: Vec<_> = new
            .items()
            .map(|item| (item.key, item.data.to_vec()))
            .collect();
        assert_eq!(
            items,
            [
                (SnapKey::new(4, 1), vec![10, 20, 30, 40]),
                (SnapKey::new(9, 0), vec![i32::MIN]),
                (SnapKey::new(30, 2), vec![-9]),
            ]
        );
        assert_eq!(new.index_of(SnapKey::new(30, 2)), Some(2));
        assert_eq!(
            new.checksum(),
            100i32.wrapping_add(i32::MIN).wrapping_sub(9)
        );
    }

    #[test]
    fn create_leaves_out_unchanged_items_and_follows_ddnet_order() {
        let old = snapshot(&[(9, 0, &[1, 2]), (4, 1, &[5]), (2, 5, &[7]), (2, 6, &[8])]);
        let new = snapshot(&[
            (3, 0, &[4]),
            (2, 6, &[8]),
            (4, 1, &[6]),
            (9, 0, &[1, i32::MIN]),
        ]);
        let delta = SnapshotDelta::create(&old, &new).unwrap();
        assert_eq!(delta.removed(), [SnapKey::new(2, 5)]);
        let updates: Vec<_> = delta.updates().map(|item| (item.key, item.data)).collect();
        assert_eq!(
            updates,
            [
                (SnapKey::new(3, 0), &[4][..]),
                (SnapKey::new(4, 1), &[1][..]),
                (SnapKey::new(9, 0), &[0, i32::MIN.wrapping_sub(2)][..]),
            ]
        );
        assert_eq!(old.apply(&delta).unwrap(), new);
        assert!(SnapshotDelta::create(&new, &new).unwrap().is_empty());
        assert_eq!(
            SnapshotDelta::create(&new, &new)
                .unwrap()
                .to_ints(&SizeTable::none())
                .unwrap(),
            [0, 0, 0]
        );
    }

    #[test]
    fn no_ints_is_the_empty_delta() {
        let delta = SnapshotDelta::from_ints(&[], &SizeTable::ddnet_06()).unwrap();
        assert!(delta.is_empty());
        let old = snapshot(&[(4, 1, &[1])]);
        assert_eq!(old.apply(&delta).unwrap(), old);
    }

    #[test]
    fn size_changes_cannot_be_created_or_written() {
        let old = snapshot(&[(9, 0, &[1, 2])]);
        let new = snapshot(&[(9, 0, &[1, 2, 3])]);
        let error = SnapshotDelta::create(&old, &new).unwrap_err();
        assert_eq!(
            error.to_string(),
            "snapshot item #0 (type 9, id 0): the item changes size from 2 to 3 ints, which a \
             delta cannot describe (remove it in one delta, add it in the next)"
        );
        let delta = SnapshotDelta::create(&Snapshot::empty(), &new).unwrap();
        let error = delta.to_ints(&SizeTable::ddnet_06()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "item delta #0 (type 9, id 0): type 9 has a pre-agreed size of 22 ints, this item \
             has 3"
        );
    }

    #[test]
    fn gallop_finds_the_first_not_before() {
        let items: Vec<u64> = (0..100).map(|i| 2 * i).collect();
        for wanted in 0..=200 {
            let expected = items.partition_point(|&item| item < wanted);
            assert_eq!(gallop(&items, |item| item < wanted), expected, "{wanted}");
        }
        assert_eq!(gallop(&[], |_| true), 0);
    }

    #[test]
    fn merge_keeps_order() {
        assert_eq!(merge_sorted(&[1, 4, 9], &[2, 3, 10]), [1, 2, 3, 4, 9, 10]);
        assert_eq!(merge_sorted(&[], &[2]), [2]);
        assert_eq!(merge_sorted(&[5], &[]), [5]);
    }
}
