//! Envelopes holding their points (docs/mapdir.md): when the envelopes' point ranges run one
//! after another over all the points, each envelope's file lists its own points (and bezier
//! tangents), and `pack` rebuilds the shared points items and every `start_point` /
//! `num_points` from them.

use serde::{Deserialize, Serialize};
use twcodec_schema::map::envelope::{
    EnvPoint, EnvPoint22, EnvPointBezier, EnvPointsBezierItem, EnvPointsItem,
};
use twcodec_schema::map::MapItem;

use twcodec::datafile::Datafile;
use twcodec::Error;

/// Where the points items are, and their form (`.twcodec/layout.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointsLayout {
    /// 22 ints per point (Teeworlds 0.7 bezier) rather than 6.
    pub form22: bool,
    /// Type id and id of the points item.
    pub points_item: (u16, u16),
    /// Type id and id of DDNet's bezier item, when the map has one.
    pub bezier_item: Option<(u16, u16)>,
}

impl PointsLayout {
    /// Whether the item `type_id`/`id` is one `pack` rebuilds from the envelope files.
    pub fn rebuilds(&self, type_id: u16, id: u16) -> bool {
        self.points_item == (type_id, id) || self.bezier_item == Some((type_id, id))
    }
}

/// The points of each envelope, when the map's envelopes hold them in order.
pub(crate) struct Split {
    pub layout: PointsLayout,
    /// Per envelope (in item order): its points as TOML `[[points]]` (and `[[bezier]]`)
    /// tables.
    pub sections: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct Points6 {
    points: Vec<EnvPoint>,
}

#[derive(Serialize, Deserialize)]
struct Points22 {
    points: Vec<EnvPoint22>,
}

#[derive(Serialize, Deserialize)]
struct Bezier {
    bezier: Vec<EnvPointBezier>,
}

/// The [`Split`] of the decoded items, or `None` when the envelopes do not cover the points
/// in order, or an item does not decode or has a tail.
pub(crate) fn split(datafile: &Datafile, decoded: &[Option<MapItem>]) -> Option<Split> {
    let mut ranges = Vec::new();
    let mut points = None;
    let mut bezier = None;
    for (item, decoded) in datafile.items().iter().zip(decoded) {
        let key = (item.type_id(), item.id());
        match decoded.as_ref()? {
            MapItem::Envelope(envelope) => ranges.push((
                usize::try_from(envelope.start_point).ok()?,
                usize::try_from(envelope.num_points).ok()?,
            )),
            MapItem::EnvPoints(item) if points.is_none() => points = Some((key, item)),
            MapItem::EnvPointsBezier(item) if bezier.is_none() => bezier = Some((key, item)),
            MapItem::EnvPoints(_) | MapItem::EnvPointsBezier(_) => return None,
            _ => {}
        }
    }
    let (points_key, points) = points?;
    let (form22, total) = match points {
        EnvPointsItem::Points {
            points,
            unknown_tail,
        } if unknown_tail.is_empty() => (false, points.len()),
        EnvPointsItem::Points22 {
            points,
            unknown_tail,
        } if unknown_tail.is_empty() => (true, points.len()),
        _ => return None,
    };
    if let Some((_, item)) = bezier {
        (item.unknown_tail.is_empty() && item.points.len() == total).then_some(())?;
    }
    // The ranges run one after another over all the points (none for a points item without
    // envelopes, which `pack` rebuilds empty, so that new envelopes can list their points).
    let mut next = 0;
    for &(start, count) in &ranges {
        (start == next).then_some(())?;
        next = start.checked_add(count)?;
    }
    (next == total).then_some(())?;
    let mut sections = Vec::with_capacity(ranges.len());
    for &(start, count) in &ranges {
        let range = start..start + count;
        let mut text = match points {
            EnvPointsItem::Points { points, .. } => toml::to_string(&Points6 {
                points: points.get(range.clone())?.to_vec(),
            }),
            EnvPointsItem::Points22 { points, .. } => toml::to_string(&Points22 {
                points: points.get(range.clone())?.to_vec(),
            }),
        }
        .ok()?;
        if let Some((_, item)) = bezier {
            // Zero tangents at the end are left out: `pack` gives points without tangents
            // zero ones.
            let mut tangents = item.points.get(range)?.to_vec();
            while tangents.last() == Some(&EnvPointBezier::default()) {
                tangents.pop();
            }
            if !tangents.is_empty() {
                text.push('\n');
                text.push_str(&toml::to_string(&Bezier { bezier: tangents }).ok()?);
            }
        }
        sections.push(text);
    }
    Some(Split {
        layout: PointsLayout {
            form22,
            points_item: points_key,
            bezier_item: bezier.map(|(key, _)| key),
        },
        sections,
    })
}

/// Gathers the points of envelope files as `pack` reads them.
pub(crate) struct Gather {
    form22: bool,
    has_bezier: bool,
    points6: Vec<EnvPoint>,
    points22: Vec<EnvPoint22>,
    bezier: Vec<EnvPointBezier>,
    envelopes: usize,
}

impl Gather {
    pub fn new(layout: &PointsLayout) -> Gather {
        Gather {
            form22: layout.form22,
            has_bezier: layout.bezier_item.is_some(),
            points6: Vec::new(),
            points22: Vec::new(),
            bezier: Vec::new(),
            envelopes: 0,
        }
    }

    /// How many envelopes gave their points.
    pub fn envelopes(&self) -> usize {
        self.envelopes
    }

    /// Takes the `points` and `bezier` arrays out of an envelope's table and sets its
    /// `start_point` and `num_points`.
    pub fn take(&mut self, table: &mut toml::Table) -> Result<(), toml::de::Error> {
        let start = self.len();
        self.envelopes += 1;
        let points = table
            .remove("points")
            .unwrap_or(toml::Value::Array(Vec::new()));
        if self.form22 {
            let points: Vec<EnvPoint22> = points.try_into()?;
            self.points22.extend(points);
        } else {
            let points: Vec<EnvPoint> = points.try_into()?;
            self.points6.extend(points);
        }
        if let Some(bezier) = table.remove("bezier") {
            let bezier: Vec<EnvPointBezier> = bezier.try_into()?;
            self.bezier.extend(bezier);
        }
        // Points without tangents where the map keeps them get zero tangents, as the editor
        // gives them; extra tangents are an error (`items`).
        if self.has_bezier && self.bezier.len() < self.len() {
            self.bezier.resize(self.len(), EnvPointBezier::default());
        }
        let int = |n: usize| toml::Value::Integer(i64::try_from(n).unwrap_or(i64::MAX));
        table.insert("start_point".into(), int(start));
        table.insert("num_points".into(), int(self.len() - start));
        Ok(())
    }

    fn len(&self) -> usize {
        if self.form22 {
            self.points22.len()
        } else {
            self.points6.len()
        }
    }

    /// The points item and, when the map has one, the bezier item.
    pub fn items(self, layout: &PointsLayout) -> Result<(MapItem, Option<MapItem>), Error> {
        if layout.bezier_item.is_some() && self.bezier.len() != self.len() {
            return Err(Error::malformed(format!(
                "the envelopes list {} points but {} sets of bezier tangents: an envelope \
                 has more tangents than points",
                self.len(),
                self.bezier.len()
            )));
        }
        let points = if self.form22 {
            EnvPointsItem::Points22 {
                points: self.points22,
                unknown_tail: Vec::new(),
            }
        } else {
            EnvPointsItem::Points {
                points: self.points6,
                unknown_tail: Vec::new(),
            }
        };
        let bezier = layout.bezier_item.map(|_| {
            MapItem::EnvPointsBezier(EnvPointsBezierItem {
                points: self.bezier,
                unknown_tail: Vec::new(),
            })
        });
        Ok((MapItem::EnvPoints(points), bezier))
    }
}
