//! Adding, removing and moving envelopes, and their points.

use twcodec_schema::map::envelope::{
    CurveType, EnvPoint, EnvPointBezier, EnvelopeItem, EnvelopeKind,
};

use super::*;
use crate::error::Error;
use crate::map::{Envelope, EnvelopePoints, ItemRef, Map, MapForm, Stored};

/// An envelope to add with [`Map::add_envelope`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEnvelope {
    /// What it animates: sound volume, position or color (its channel count).
    pub kind: EnvelopeKind,
    /// The name, at most 31 bytes.
    pub name: String,
    /// The points, in time order.
    pub points: Vec<EnvPoint>,
    /// Bezier tangents, one set per point; `None` gives zero tangents where the map keeps any.
    pub tangents: Option<Vec<EnvPointBezier>>,
    /// Whether it follows the server's clock (DDNet's "synchronized").
    pub synchronized: bool,
}

impl NewEnvelope {
    /// An envelope of `kind` named `name` without points, synchronized.
    pub fn new(kind: EnvelopeKind, name: impl Into<String>) -> NewEnvelope {
        NewEnvelope {
            kind,
            name: name.into(),
            points: Vec::new(),
            tangents: None,
            synchronized: true,
        }
    }
}

impl Map {
    /// Adds an envelope; its points go after every other envelope's. In a Teeworlds 0.7 map, an
    /// envelope with bezier curves makes the points 22 ints each (tangents included). The
    /// points are checked as [`Map::set_envelope_points`] checks them.
    ///
    /// ```
    /// use twcodec::map::NewEnvelope;
    /// use twcodec::schema::map::envelope::{EnvPoint, EnvelopeKind};
    /// # let mut map = twcodec_testkit::sample::map()?;
    /// let fade = map.add_envelope(NewEnvelope {
    ///     points: vec![
    ///         EnvPoint { time: 0, curve_type: 1, values: [1024, 1024, 1024, 1024] },
    ///         EnvPoint { time: 1000, curve_type: 1, values: [1024, 1024, 1024, 0] },
    ///     ],
    ///     ..NewEnvelope::new(EnvelopeKind::Color, "fade")
    /// })?;
    /// assert_eq!(map.get(fade).map(|e| e.points(&map).len()), Some(2));
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn add_envelope(&mut self, envelope: NewEnvelope) -> Result<ItemRef<Envelope>, Error> {
        check_points(&envelope.points, envelope.tangents.as_deref(), &[])?;
        self.add_envelope_as_is(envelope)
    }

    /// [`Map::add_envelope`] for points another map holds: kept as they are (a curve type the
    /// game does not know is a warning at load, not an error), only the tangents counted.
    pub(super) fn add_envelope_as_is(
        &mut self,
        envelope: NewEnvelope,
    ) -> Result<ItemRef<Envelope>, Error> {
        if let Some(tangents) = &envelope.tangents {
            if tangents.len() != envelope.points.len() {
                return Err(Error::invalid_edit(format!(
                    "{} tangent sets for {} points: one set per point",
                    tangents.len(),
                    envelope.points.len()
                )));
            }
        }
        let channels = match envelope.kind {
            EnvelopeKind::Sound => 1,
            EnvelopeKind::Position => 3,
            EnvelopeKind::Color => 4,
            EnvelopeKind::Other(channels) => {
                return Err(Error::invalid_edit(format!(
                    "an envelope of {channels} channels (1, 3 or 4 are known)"
                )))
            }
        };
        let name = item_name("the envelope name", &envelope.name)?;
        let id = free_id(self.envelopes.iter().map(|e| e.id), "envelope")?;
        let start = self.points.as_ref().map_or(0, |p| p.points.len());
        let start_point = count(start, "points")?;
        let num_points = count(envelope.points.len(), "points")?;
        count(start.saturating_add(envelope.points.len()), "points")?;
        let bezier_curves = (envelope.points.iter()).any(|p| p.curve() == CurveType::BEZIER);
        let wide = self.points.as_ref().is_some_and(|p| p.wide);
        // 0.7 keeps tangents only in 22-int points, which any envelope of version 3 asks for.
        let version = match (wide, self.form) {
            (true, _) => EnvelopeItem::VERSION_BEZIER,
            (false, MapForm::Teeworlds07) if bezier_curves => EnvelopeItem::VERSION_BEZIER,
            _ => 2,
        };
        let points = self.points.get_or_insert_with(|| EnvelopePoints {
            wide,
            ..EnvelopePoints::default()
        });
        if envelope.tangents.is_some() || bezier_curves || points.bezier.is_some() {
            let zero = EnvPointBezier::default();
            let bezier = points.bezier.get_or_insert_with(Vec::new);
            bezier.resize(start, zero);
            match &envelope.tangents {
                Some(tangents) => bezier.extend_from_slice(tangents),
                None => bezier.resize(start + envelope.points.len(), zero),
            }
        }
        points.points.extend_from_slice(&envelope.points);
        points.modified = true;
        self.envelopes.push(Stored::new(
            id,
            EnvelopeItem {
                version,
                channels,
                start_point,
                num_points,
                name: Some(name),
                synchronized: Some(i32::from(envelope.synchronized)),
                unknown_tail: Vec::new(),
            },
            None,
        ));
        self.settle_points();
        Ok(self.mint(self.envelopes.len() - 1))
    }

    /// Removes an envelope: every reference to it (a tile layer's color envelope, each quad's
    /// and each source's, however many share it) becomes none, later envelopes' references
    /// shift down, and its points leave the envelope points with their tangents (points another
    /// envelope also covers stay).
    pub fn remove_envelope(&mut self, envelope: ItemRef<Envelope>) -> Result<(), Error> {
        let index = self.checked(envelope)?;
        let renumber = Renumber::removing(self.envelopes.len(), [index]);
        let removed = self.envelopes.remove(index);
        for layer in &mut self.layers {
            if renumber_envelopes(layer, &renumber) {
                layer.verbatim = None;
            }
        }
        self.remove_points(&removed);
        self.settle_points();
        self.stamp.renew::<Envelope>();
        Ok(())
    }

    /// Takes the points only `removed` covered out of the envelope points, and moves the later
    /// envelopes' ranges to match.
    pub(super) fn remove_points(&mut self, removed: &Envelope) {
        let Some(points) = &mut self.points else {
            return;
        };
        let len = points.points.len();
        let Some(range) = removed.range(len) else {
            return;
        };
        let mut kept = vec![false; range.len()];
        for other in &self.envelopes {
            if let Some(other) = other.range(len) {
                let (start, end) = (other.start.max(range.start), other.end.min(range.end));
                for keep in kept
                    .iter_mut()
                    .take(end.saturating_sub(range.start))
                    .skip(start.saturating_sub(range.start))
                {
                    *keep = true;
                }
            }
        }
        let gone: Vec<usize> = (range.clone())
            .zip(&kept)
            .filter(|(_, &kept)| !kept)
            .map(|(index, _)| index)
            .collect();
        if gone.is_empty() {
            return;
        }
        let mut position = 0;
        points.points.retain(|_| {
            position += 1;
            gone.binary_search(&(position - 1)).is_err()
        });
        if let Some(bezier) = &mut points.bezier {
            let mut position = 0;
            bezier.retain(|_| {
                position += 1;
                gone.binary_search(&(position - 1)).is_err()
            });
        }
        points.modified = true;
        for envelope in &mut self.envelopes {
            let Ok(start) = usize::try_from(envelope.item.start_point) else {
                continue;
            };
            let before = gone.partition_point(|&g| g < start) as i32;
            let changed = bump(&mut envelope.item.start_point, -before);
            touched(changed, &mut envelope.verbatim);
        }
    }

    /// Keeps the envelope points' width in step with the envelopes: 22 ints each when any
    /// envelope has the bezier version, as readers decide.
    pub(super) fn settle_points(&mut self) {
        let wide = self.has_bezier_envelopes();
        let Some(points) = &mut self.points else {
            return;
        };
        if points.wide == wide {
            return;
        }
        points.wide = wide;
        points.modified = true;
        if wide {
            let len = points.points.len();
            (points.bezier.get_or_insert_with(Vec::new)).resize(len, EnvPointBezier::default());
            points.bezier_item = None;
        }
    }

    /// Moves an envelope to position `to` among the envelopes (counted without it); every
    /// reference follows its envelope (tile layers' color envelopes, quads', sources'). The
    /// points stay where they are: each envelope keeps its range.
    pub fn move_envelope(
        &mut self,
        envelope: ItemRef<Envelope>,
        to: usize,
    ) -> Result<ItemRef<Envelope>, Error> {
        let from = self.checked(envelope)?;
        let renumber = self.moved_in_arena::<Envelope>(from, to)?;
        for layer in &mut self.layers {
            if renumber_envelopes(layer, &renumber) {
                layer.verbatim = None;
            }
        }
        Ok(self.mint(to))
    }

    /// The raw value of an envelope reference that must animate `kind`.
    pub(super) fn envelope_of_kind(
        &self,
        envelope: Option<ItemRef<Envelope>>,
        kind: EnvelopeKind,
    ) -> Result<i32, Error> {
        let raw = self.raw_of(envelope)?;
        if let Some(found) = envelope.and_then(|e| self.get(e)) {
            if found.item.kind() != kind {
                return Err(Error::invalid_edit(format!(
                    "envelope #{raw} animates {:?}, not {kind:?}",
                    found.item.kind()
                )));
            }
        }
        Ok(raw)
    }
}

/// The names of the curve types the game knows, by value.
const CURVES: &str = "0 step, 1 linear, 2 slow, 3 fast, 4 smooth or 5 bezier";

/// An error unless `points` are in time order (from 0 on), each with a curve type the game
/// knows, except where a point's time or curve type is the one point `n` of `old` has (a
/// map's own points go back as they are), and `tangents` (when given) have one set per point. Errors name the point and field.
fn check_points(
    points: &[EnvPoint],
    tangents: Option<&[EnvPointBezier]>,
    old: &[EnvPoint],
) -> Result<(), Error> {
    let mut before: Option<i32> = None;
    for (n, point) in points.iter().enumerate() {
        // A time the envelope already holds at that point goes back as it is (a map's own
        // points, out of order or not, set again are a round trip).
        let kept_time = old.get(n).is_some_and(|old| old.time == point.time);
        if !kept_time && point.time < 0 {
            return Err(Error::invalid_edit(format!(
                "point #{n}: field `time` = {} ms is negative; times start at 0",
                point.time
            )));
        }
        if let Some(before) = before.filter(|&before| !kept_time && point.time < before) {
            return Err(Error::invalid_edit(format!(
                "point #{n}: field `time` = {} ms is before point #{}'s {before} ms; times do \
                 not decrease",
                point.time,
                n - 1
            )));
        }
        before = Some(point.time);
        let known = CurveType::STEP.to_i32()..=CurveType::BEZIER.to_i32();
        let kept = old
            .get(n)
            .is_some_and(|old| old.curve_type == point.curve_type);
        if !known.contains(&point.curve_type) && !kept {
            return Err(Error::invalid_edit(format!(
                "point #{n}: field `curve_type` = {} is not a curve type the game knows ({CURVES})",
                point.curve_type
            )));
        }
    }
    if let Some(tangents) = tangents {
        if tangents.len() != points.len() {
            return Err(Error::invalid_edit(format!(
                "{} tangent sets for {} points: one set per point",
                tangents.len(),
                points.len()
            )));
        }
    }
    Ok(())
}

impl Map {
    /// Replaces an envelope's points (in time order, from 0 ms; curve types 0 to 5), with
    /// their bezier tangents (one set per point; `None` gives zero tangents where the map
    /// keeps any). The envelope keeps its place, so every reference to it stays.
    ///
    /// The new points take the place of the old ones when the envelope alone covers them
    /// (the later envelopes' `start_point` shift by the difference in length), else (shared
    /// points, or none) they go after every other envelope's. A Teeworlds 0.7 map whose new points use bezier curves
    /// gets 22-int points, as [`Map::add_envelope`] does; a DDNet map keeps its tangents in
    /// its bezier item. An error, changing nothing, names the first point out of order or
    /// with an unknown curve type (other than the one the envelope's point at that place has
    /// already, so that a map's points go back as they are).
    ///
    /// ```
    /// use twcodec::map::NewEnvelope;
    /// use twcodec::schema::map::envelope::{EnvPoint, EnvelopeKind};
    /// # let mut map = twcodec::Map::new(10, 10)?;
    /// let pulse = map.add_envelope(NewEnvelope::new(EnvelopeKind::Sound, "pulse"))?;
    /// let points = vec![
    ///     EnvPoint { time: 0, curve_type: 4, values: [0, 0, 0, 0] },
    ///     EnvPoint { time: 500, curve_type: 4, values: [1024, 0, 0, 0] },
    /// ];
    /// map.set_envelope_points(pulse, points, None)?;
    /// assert_eq!(map.get(pulse).map(|e| e.points(&map).len()), Some(2));
    /// let backwards = vec![EnvPoint { time: 9, ..EnvPoint::default() }, EnvPoint::default()];
    /// let error = map.set_envelope_points(pulse, backwards, None).unwrap_err();
    /// assert!(error.to_string().contains("point #1: field `time`"), "{error}");
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn set_envelope_points(
        &mut self,
        envelope: ItemRef<Envelope>,
        points: Vec<EnvPoint>,
        tangents: Option<Vec<EnvPointBezier>>,
    ) -> Result<(), Error> {
        let index = self.checked(envelope)?;
        let old = self.envelopes[index].points(self);
        check_points(&points, tangents.as_deref(), old)?;
        let len = self.points.as_ref().map_or(0, |p| p.points.len());
        let range = self.envelopes[index].range(len);
        // Points another envelope also covers stay where they are, for it.
        let shared = range.as_ref().is_some_and(|range| {
            (self.envelopes.iter().enumerate())
                .filter(|&(other, _)| other != index)
                .filter_map(|(_, other)| other.range(len))
                .any(|other| other.start.max(range.start) < other.end.min(range.end))
        });
        // An empty range has no place of its own: another envelope's points may start there.
        let (start, old) = match range {
            Some(range) if !shared && !range.is_empty() => (range.start, range.len()),
            _ => (len, 0),
        };
        let new = points.len();
        count(start, "points")?;
        count(new, "points")?;
        count((len - old).saturating_add(new), "points")?;
        let bezier_curves = points.iter().any(|p| p.curve() == CurveType::BEZIER);
        let wide = self.points.as_ref().is_some_and(|p| p.wide);
        let store = self.points.get_or_insert_with(|| EnvelopePoints {
            wide,
            ..EnvelopePoints::default()
        });
        if tangents.is_some() || bezier_curves || store.bezier.is_some() {
            let zero = EnvPointBezier::default();
            let bezier = store.bezier.get_or_insert_with(Vec::new);
            bezier.resize(len, zero);
            let tangents = tangents.unwrap_or_else(|| vec![zero; new]);
            bezier.splice(start..start + old, tangents);
        }
        store.points.splice(start..start + old, points);
        store.modified = true;
        let (old_end, shift) = (start + old, new as i64 - old as i64);
        for (n, other) in self.envelopes.iter_mut().enumerate() {
            let item = &mut other.item;
            let changed = if n == index {
                item.start_point = start as i32;
                item.num_points = new as i32;
                // 0.7 keeps tangents only in 22-int points, which version 3 asks for.
                if bezier_curves && !wide && self.form == MapForm::Teeworlds07 {
                    item.version = item.version.max(EnvelopeItem::VERSION_BEZIER);
                }
                true
            } else {
                match usize::try_from(item.start_point) {
                    Ok(s) if old > 0 && s >= old_end => bump(&mut item.start_point, shift as i32),
                    // An empty envelope inside the old range moves to its start.
                    Ok(s) if s > start && s < old_end && item.num_points == 0 => {
                        bump(&mut item.start_point, start as i32 - s as i32)
                    }
                    _ => false,
                }
            };
            touched(changed, &mut other.verbatim);
        }
        self.settle_points();
        Ok(())
    }

    /// Renames an envelope (at most 31 bytes).
    pub fn set_envelope_name(
        &mut self,
        envelope: ItemRef<Envelope>,
        name: &str,
    ) -> Result<(), Error> {
        let index = self.checked(envelope)?;
        let name = item_name("the envelope name", name)?;
        let stored = &mut self.envelopes[index];
        if stored.item.name.is_none() {
            // The 0.4/0.5 form `[1, channels, start, num, -1]`: its -1 is where the name goes.
            stored.item.unknown_tail.clear();
        }
        stored.item.name = Some(name);
        touched(true, &mut stored.verbatim);
        Ok(())
    }

    /// Sets whether an envelope follows the server's clock (DDNet's "synchronized"); an
    /// envelope item of version 1 becomes version 2, which has the field.
    pub fn set_envelope_synchronized(
        &mut self,
        envelope: ItemRef<Envelope>,
        synchronized: bool,
    ) -> Result<(), Error> {
        let index = self.checked(envelope)?;
        let stored = &mut self.envelopes[index];
        let item = &mut stored.item;
        if item.name.is_none() {
            item.unknown_tail.clear();
            item.name = Some(I32String::new(b""));
        }
        item.version = item.version.max(2);
        item.synchronized = Some(i32::from(synchronized));
        touched(true, &mut stored.verbatim);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(time: i32, value: i32) -> EnvPoint {
        EnvPoint {
            time,
            curve_type: 1,
            values: [value; 4],
        }
    }

    /// Points two envelopes share stay for the other one; the new ones go at the end.
    #[test]
    fn shared_points_stay_for_the_other_envelope() {
        let mut map = Map::new(10, 10).unwrap();
        let points = vec![point(0, 1), point(10, 2)];
        let a = map
            .add_envelope(NewEnvelope {
                points: points.clone(),
                ..NewEnvelope::new(EnvelopeKind::Color, "a")
            })
            .unwrap();
        let b = map
            .add_envelope(NewEnvelope::new(EnvelopeKind::Color, "b"))
            .unwrap();
        // "b" covers "a"'s points too, as some editors write identical envelopes.
        map.envelopes[1].item.start_point = 0;
        map.envelopes[1].item.num_points = 2;
        map.set_envelope_points(a, vec![point(0, 7)], None).unwrap();
        let (a, b) = (map.get(a).unwrap(), map.get(b).unwrap());
        assert_eq!(a.points(&map), [point(0, 7)]);
        assert_eq!(b.points(&map), points);
        assert_eq!((a.item.start_point, a.item.num_points), (2, 1));
        assert_eq!(map.envelope_points().unwrap().points().len(), 3);
    }

    /// An envelope without points whose start is another's first point takes nothing from it.
    #[test]
    fn an_empty_envelope_gets_points_at_the_end() {
        let mut map = Map::new(10, 10).unwrap();
        let empty = map
            .add_envelope(NewEnvelope::new(EnvelopeKind::Color, "empty"))
            .unwrap();
        let points = vec![point(0, 1), point(10, 2)];
        let full = map
            .add_envelope(NewEnvelope {
                points: points.clone(),
                ..NewEnvelope::new(EnvelopeKind::Color, "full")
            })
            .unwrap();
        assert_eq!(map.envelopes[0].item.start_point, 0);
        assert_eq!(map.envelopes[1].item.start_point, 0);
        map.set_envelope_points(empty, vec![point(0, 5)], None)
            .unwrap();
        assert_eq!(map.get(full).unwrap().points(&map), points);
        assert_eq!(map.get(empty).unwrap().points(&map), [point(0, 5)]);
    }
}
