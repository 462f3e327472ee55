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
    /// envelope with bezier curves makes the points 22 ints each (tangents included).
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
        if let Some(tangents) = &envelope.tangents {
            if tangents.len() != envelope.points.len() {
                return Err(Error::invalid_edit(format!(
                    "{} tangent sets for {} points",
                    tangents.len(),
                    envelope.points.len()
                )));
            }
        }
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
