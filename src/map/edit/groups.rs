//! Adding, inserting, removing and moving groups.

use twcodec_schema::map::group::{Clip, GroupExItem, GroupItem};
use twcodec_schema::map::Point;

use super::*;
use crate::error::Error;
use crate::map::layer::Layer;
use crate::map::{Group, ItemRef, Map, Stored};

/// A group to add with [`Map::add_group`] or [`Map::insert_group`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGroup {
    /// The name, at most 11 bytes.
    pub name: String,
    /// Offset in world pixels.
    pub offset: Point,
    /// Parallax in percent (100 moves with the game layer).
    pub parallax: Point,
    /// The clipping rectangle; `enabled` 0 (the default) draws everywhere.
    pub clip: Clip,
}

impl NewGroup {
    /// A group named `name` at offset 0 with parallax 100, not clipped.
    pub fn new(name: impl Into<String>) -> NewGroup {
        NewGroup {
            name: name.into(),
            offset: Point::default(),
            parallax: Point { x: 100, y: 100 },
            clip: Clip::default(),
        }
    }
}

impl Map {
    /// Adds a group after the others (drawn last, in front of them).
    ///
    /// ```
    /// use twcodec::map::{Layer, NewGroup};
    /// # let mut map = twcodec_testkit::sample::map()?;
    /// let front = map.add_group(NewGroup::new("Foreground"))?;
    /// let quads = map.add_layer(front, Layer::new_quads("Clouds", Vec::new())?)?;
    /// assert_eq!(map.group_of(quads), Some(front));
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn add_group(&mut self, group: NewGroup) -> Result<ItemRef<Group>, Error> {
        let at = self.groups.len();
        self.insert_group(at, group)
    }

    /// Inserts a group at position `at` among the groups (0 is drawn first, behind the
    /// others); groups from `at` on shift up, in auto-mapper configurations too.
    pub fn insert_group(&mut self, at: usize, group: NewGroup) -> Result<ItemRef<Group>, Error> {
        let len = self.groups.len();
        if at > len {
            return Err(Error::invalid_edit(format!(
                "group position {at} is past the {len} groups"
            )));
        }
        let name = item_name("the group name", &group.name)?;
        let id = free_id(self.groups.iter().map(|g| g.id), "group")?;
        let ex_id = free_id(self.group_ex.iter().map(|(id, _)| *id), "group extension")?;
        // An empty group starts where the group before it ends, so layers added to it keep
        // the file's order.
        let start = match at.checked_sub(1).and_then(|before| self.groups.get(before)) {
            Some(before) => before.layer_range(self.layers.len()).end,
            None => 0,
        };
        let item = GroupItem {
            version: 3,
            offset: group.offset,
            parallax: group.parallax,
            start_layer: count(start, "layers")?,
            num_layers: 0,
            clip: Some(group.clip),
            name: Some(name),
            unknown_tail: Vec::new(),
        };
        // DDNet reads its group extensions by position, only when there is one per group.
        if self.group_ex.len() == len {
            let ex = GroupExItem {
                version: 1,
                parallax_zoom: parallax_zoom(group.parallax),
                unknown_tail: Vec::new(),
            };
            self.group_ex.insert(at, (ex_id, ex));
        }
        self.groups.insert(at, Stored::new(id, item, None));
        let renumber = Renumber::inserting(len, at);
        for automapper in &mut self.automappers {
            let changed = renumber.apply(&mut automapper.item.group);
            touched(changed, &mut automapper.verbatim);
        }
        if at < len {
            self.stamp.renew::<Group>();
        }
        self.rebuild_tables();
        Ok(self.mint(at))
    }

    /// Removes a group with its layers (each as [`Map::remove_layer`] removes it); later
    /// groups shift down, and the auto-mapper configurations of the group go.
    pub fn remove_group(&mut self, group: ItemRef<Group>) -> Result<(), Error> {
        let index = self.checked(group)?;
        let range = self.groups[index].layer_range(self.layers.len());
        let mut data = Vec::new();
        for layer in range.rev() {
            let (layer, _) = self.take_layer(layer);
            data.extend(layer.data_fields());
        }
        let len = self.groups.len();
        self.groups.remove(index);
        if self.group_ex.len() == len {
            self.group_ex.remove(index);
        }
        let renumber = Renumber::removing(len, [index]);
        // The group's own configurations go; the others follow their groups.
        let group = count(index, "groups")?;
        self.automappers
            .retain(|automapper| automapper.item.group != group);
        for automapper in &mut self.automappers {
            let changed = renumber.apply(&mut automapper.item.group);
            touched(changed, &mut automapper.verbatim);
        }
        self.remove_unused_data(data);
        self.stamp.renew::<Group>();
        self.stamp.renew::<Layer>();
        self.rebuild_tables();
        Ok(())
    }

    /// Moves a group to position `to` among the groups (counted without it; 0 is drawn first).
    /// When the groups hold their layers one after another, as every editor writes them, its
    /// layers move with it so that they stay in group order; auto-mapper configurations follow
    /// their groups, and DDNet's group extension items (one per group) stay in step.
    pub fn move_group(
        &mut self,
        group: ItemRef<Group>,
        to: usize,
    ) -> Result<ItemRef<Group>, Error> {
        let from = self.checked(group)?;
        let len = self.groups.len();
        if to >= len {
            return Err(Error::invalid_edit(format!(
                "group position {to} is past the {len} groups"
            )));
        }
        if from == to {
            return Ok(group);
        }
        let mut order: Vec<usize> = (0..len).collect();
        let moved = order.remove(from);
        order.insert(to, moved);
        if self.groups_in_order() {
            // Every start fits: checked before anything changes.
            count(self.layers.len(), "layers")?;
            let ranges: Vec<std::ops::Range<usize>> = (self.groups.iter())
                .map(|g| g.layer_range(self.layers.len()))
                .collect();
            let mut taken: Vec<Option<Layer>> = self.layers.drain(..).map(Some).collect();
            let mut start = 0usize;
            for &g in &order {
                for index in ranges[g].clone() {
                    if let Some(layer) = taken[index].take() {
                        self.layers.push(layer);
                    }
                }
                let stored = &mut self.groups[g];
                let start_layer = start as i32;
                let changed = stored.item.start_layer != start_layer;
                stored.item.start_layer = start_layer;
                touched(changed, &mut stored.verbatim);
                start += ranges[g].len();
            }
            self.stamp.renew::<Layer>();
        }
        let mut groups: Vec<Option<Group>> = self.groups.drain(..).map(Some).collect();
        self.groups = order.iter().filter_map(|&g| groups[g].take()).collect();
        if self.group_ex.len() == len {
            let ex = self.group_ex.remove(from);
            self.group_ex.insert(to, ex);
        }
        let renumber = Renumber::moving(len, from, to);
        for automapper in &mut self.automappers {
            let changed = renumber.apply(&mut automapper.item.group);
            touched(changed, &mut automapper.verbatim);
        }
        self.stamp.renew::<Group>();
        self.rebuild_tables();
        Ok(self.mint(to))
    }

    /// Whether the groups' layer ranges run one after another over all the layers.
    pub(super) fn groups_in_order(&self) -> bool {
        let mut next = 0i64;
        for group in &self.groups {
            let (start, num) = (
                i64::from(group.item.start_layer),
                i64::from(group.item.num_layers),
            );
            if start != next || num < 0 {
                return false;
            }
            next += num;
        }
        next == self.layers.len() as i64
    }

    /// Where an empty group's first layer goes: at its start, unless that lies inside another
    /// group's layers, then after them.
    pub(super) fn empty_group_start(&self, group: usize, mut start: i64) -> i64 {
        let ranges: Vec<(i64, i64)> = (self.groups.iter().enumerate())
            .filter(|&(index, _)| index != group)
            .map(|(_, g)| {
                let item = &g.item;
                let start = i64::from(item.start_layer);
                (start, start + i64::from(item.num_layers))
            })
            .collect();
        while let Some(&(_, end)) = ranges.iter().find(|&&(s, e)| s < start && start < e) {
            start = end;
        }
        start
    }
}
