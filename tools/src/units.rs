//! Values in the units people think in, shared by `twcodec diff` ([`crate::diff`]) and
//! `twcodec dump` ([`crate::dump`]).
//!
//! The conventions (docs/format-notes.md and map.md give the raw layouts):
//! - Fixed point 22.10 (1024 is 1) shows as the exact decimal it stands for.
//! - Positions stored as fixed point world units (quad points, sound sources, position
//!   envelopes) show in tiles: a tile is 32 world units, so 32768 raw is one tile. The tile
//!   value is exact (a power-of-two division), so the raw value can be read back from it.
//! - Positions stored as whole world units (group offsets and clips) show in world pixels
//!   with tiles beside them.
//! - Colors of 0..255 channels show as `rgba(...)` of 0..1 with three decimals (distinct
//!   channels stay distinct); a channel out of 0..255 shows as `raw N`.
//! - Times in milliseconds show in seconds (`1.5s`).
//! - References show as `#index "name"`, `none` (any negative raw value) or `dangling N`.

use twcodec_schema::map::common::{Color, Point};
use twcodec_schema::map::envelope::{EnvPoint, EnvelopeKind};
use twcodec_schema::map::sound::{Shape, SoundShape};

/// World units per tile.
pub(crate) const TILE: f64 = 32.0;

/// Text quoted with Rust's escapes.
pub(crate) fn quoted(text: &str) -> String {
    format!("{text:?}")
}

/// A number in fixed point 22.10 (1024 is 1), exactly.
pub(crate) fn fixed(raw: i32) -> String {
    number(f64::from(raw) / 1024.0)
}

/// A number as short as it reads back exactly.
pub(crate) fn number(value: f64) -> String {
    format!("{value}")
}

/// Fixed point world units (22.10) in tiles.
pub(crate) fn fixed_tiles(raw: i32) -> f64 {
    f64::from(raw) / 1024.0 / TILE
}

/// A position in fixed point world units, in tiles: `(0.5, -2)`.
pub(crate) fn tiles(p: Point) -> String {
    format!(
        "({}, {})",
        number(fixed_tiles(p.x)),
        number(fixed_tiles(p.y))
    )
}

/// A position in whole world units, in pixels and tiles: `(-64, 32) px (-2, 1) tiles`.
pub(crate) fn pixels(x: i32, y: i32) -> String {
    format!(
        "({x}, {y}) px ({}, {}) tiles",
        number(f64::from(x) / TILE),
        number(f64::from(y) / TILE)
    )
}

/// A color of 0..255 channels as 0..1: `rgba(1, 0.502, 0, 1)`.
pub(crate) fn color255(c: Color) -> String {
    let channel = |v: i32| match (0..=255).contains(&v) {
        true => format!("{:.3}", f64::from(v) / 255.0)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string(),
        false => format!("raw {v}"),
    };
    format!(
        "rgba({}, {}, {}, {})",
        channel(c.r),
        channel(c.g),
        channel(c.b),
        channel(c.a)
    )
}

/// Milliseconds as seconds.
pub(crate) fn in_seconds(ms: i32) -> f64 {
    f64::from(ms) / 1000.0
}

/// Milliseconds in seconds: `1.5s`.
pub(crate) fn seconds(ms: i32) -> String {
    format!("{}s", number(f64::from(ms) / 1000.0))
}

/// Ints as a list: `[1, 2]`.
pub(crate) fn ints(values: &[i32]) -> String {
    format!("{values:?}")
}

/// A reference: `#3 "grass_main"` when `target` names the item it points at (its index and
/// name), else `none` for a negative raw value and `dangling 7` for one that points at nothing.
pub(crate) fn reference(target: Option<(usize, &str)>, raw: i32) -> String {
    match target {
        Some((index, name)) => format!("#{index} {}", quoted(name)),
        None if raw < 0 => "none".into(),
        None => format!("dangling {raw}"),
    }
}

/// The values of an envelope point in the units of its envelope's kind: `volume 1`,
/// `(0, 0.5) tiles, rotation 90°`, `rgba(1, 1, 1, 0.5)`, or the raw ints of an unknown kind.
pub(crate) fn point_values(p: &EnvPoint, kind: EnvelopeKind) -> String {
    let [x, y, z, w] = p.values;
    match kind {
        EnvelopeKind::Sound => format!("volume {}", fixed(x)),
        EnvelopeKind::Position => {
            format!("{} tiles, rotation {}°", tiles(Point { x, y }), fixed(z))
        }
        EnvelopeKind::Color => format!(
            "rgba({}, {}, {}, {})",
            fixed(x),
            fixed(y),
            fixed(z),
            fixed(w)
        ),
        EnvelopeKind::Other(_) => ints(&p.values),
    }
}

/// The values of an envelope point in the units of its envelope's kind, for JSON beside the
/// raw values: `("tiles_degrees", [x, y, rotation])`, `("rgba", [r, g, b, a])` (1 is full),
/// `("volume", v)`; `None` for an unknown kind.
pub(crate) fn point_values_json(
    p: &EnvPoint,
    kind: EnvelopeKind,
) -> Option<(&'static str, serde_json::Value)> {
    let [x, y, z, w] = p.values;
    let fixed = |v: i32| f64::from(v) / 1024.0;
    match kind {
        EnvelopeKind::Sound => Some(("volume", serde_json::json!(fixed(x)))),
        EnvelopeKind::Position => Some((
            "tiles_degrees",
            serde_json::json!([fixed_tiles(x), fixed_tiles(y), fixed(z)]),
        )),
        EnvelopeKind::Color => Some((
            "rgba",
            serde_json::json!([fixed(x), fixed(y), fixed(z), fixed(w)]),
        )),
        EnvelopeKind::Other(_) => None,
    }
}

/// A sound source's shape: `rectangle 3 x 1.5 tiles`, `circle, radius 2 tiles`.
pub(crate) fn sound_shape(shape: &SoundShape) -> String {
    match shape.shape() {
        // Rectangle sides are fixed point world units, a circle's radius whole world units
        // (as the sample map and DDNet's editor write them).
        Shape::Rectangle { width, height } => format!(
            "rectangle {} x {} tiles",
            number(fixed_tiles(width)),
            number(fixed_tiles(height))
        ),
        Shape::Circle { radius } => {
            format!("circle, radius {} tiles", number(f64::from(radius) / TILE))
        }
        Shape::Unknown(kind) => {
            format!("unknown kind {kind} ({}, {})", shape.value1, shape.value2)
        }
    }
}

/// A snapshot object's field with a unit hint of the schema
/// ([`twcodec_schema::netobj::common::unit`]): the raw value, then the value in human units
/// (`1056 (33 tiles)`, `256 (1 px/tick)`, `402 (90.02°)`); `None` for a name that is no unit
/// hint, or a value that is not a whole number.
pub(crate) fn unit_hint<T: serde::Serialize + ?Sized>(name: &str, value: &T) -> Option<String> {
    use twcodec_schema::netobj::common::unit;
    if !name.starts_with(unit::PREFIX) {
        return None;
    }
    let raw = serde_json::to_value(value).ok()?.as_i64()?;
    let v = raw as f64;
    let human = match name {
        unit::WORLD => format!("{} tiles", number(v / TILE)),
        unit::CENTI_WORLD => format!("{} tiles", rounded(v / 100.0 / TILE, 3)),
        unit::VELOCITY_256 => format!("{} px/tick", number(v / 256.0)),
        unit::ANGLE_256 => format!("{}°", rounded((v / 256.0).to_degrees(), 2)),
        unit::MICRO_RADIANS => format!("{}°", rounded((v / 1e6).to_degrees(), 2)),
        _ => return None,
    };
    Some(format!("{raw} ({human})"))
}

/// A number rounded to `decimals` places, without trailing zeros.
fn rounded(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    let text = match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.'),
        false => &text,
    };
    match text {
        "-0" => "0".into(),
        text => text.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_units_beside_the_raw_value() {
        use twcodec_schema::netobj::common::unit;
        assert_eq!(unit_hint(unit::WORLD, &1056).unwrap(), "1056 (33 tiles)");
        assert_eq!(unit_hint(unit::WORLD, &-16).unwrap(), "-16 (-0.5 tiles)");
        assert_eq!(
            unit_hint(unit::CENTI_WORLD, &105601).unwrap(),
            "105601 (33 tiles)"
        );
        assert_eq!(
            unit_hint(unit::VELOCITY_256, &-384).unwrap(),
            "-384 (-1.5 px/tick)"
        );
        assert_eq!(unit_hint(unit::ANGLE_256, &402).unwrap(), "402 (89.97°)");
        assert_eq!(unit_hint(unit::ANGLE_256, &-1).unwrap(), "-1 (-0.22°)");
        assert_eq!(
            unit_hint(unit::MICRO_RADIANS, &-1570796).unwrap(),
            "-1570796 (-90°)"
        );
        assert_eq!(unit_hint("$twcodec::unit::other", &1), None);
        assert_eq!(unit_hint(unit::WORLD, &"text"), None);
    }

    #[test]
    fn fixed_point_positions_in_tiles_and_pixels() {
        // 32768 raw = 32 world units = 1 tile; -791040 raw = -772.5 px.
        assert_eq!(
            tiles(Point {
                x: 32768,
                y: -791040
            }),
            "(1, -24.140625)"
        );
        assert_eq!(fixed(1536), "1.5");
        assert_eq!(fixed(-512), "-0.5");
        assert_eq!(pixels(-64, 48), "(-64, 48) px (-2, 1.5) tiles");
        assert_eq!(seconds(1500), "1.5s");
        assert_eq!(seconds(0), "0s");
    }

    #[test]
    fn colors_in_one_line() {
        let c = |r, g, b, a| Color { r, g, b, a };
        assert_eq!(color255(c(255, 255, 255, 255)), "rgba(1, 1, 1, 1)");
        assert_eq!(color255(c(128, 0, 64, 255)), "rgba(0.502, 0, 0.251, 1)");
        assert_eq!(color255(c(256, -1, 0, 0)), "rgba(raw 256, raw -1, 0, 0)");
    }

    #[test]
    fn references_none_valid_dangling() {
        assert_eq!(reference(Some((3, "grass_main")), 3), "#3 \"grass_main\"");
        assert_eq!(reference(None, -1), "none");
        assert_eq!(reference(None, -2), "none");
        assert_eq!(reference(None, 7), "dangling 7");
    }

    #[test]
    fn envelope_values_by_kind() {
        let point = EnvPoint {
            values: [32768, -16384, 92160, 512],
            ..EnvPoint::default()
        };
        assert_eq!(
            point_values(&point, EnvelopeKind::Position),
            "(1, -0.5) tiles, rotation 90°"
        );
        assert_eq!(point_values(&point, EnvelopeKind::Sound), "volume 32");
        assert_eq!(
            point_values(&point, EnvelopeKind::Color),
            "rgba(32, -16, 90, 0.5)"
        );
        let json = |kind| point_values_json(&point, kind).unwrap();
        assert_eq!(
            json(EnvelopeKind::Position),
            ("tiles_degrees", serde_json::json!([1.0, -0.5, 90.0]))
        );
        assert_eq!(
            json(EnvelopeKind::Color),
            ("rgba", serde_json::json!([32.0, -16.0, 90.0, 0.5]))
        );
        assert_eq!(
            json(EnvelopeKind::Sound),
            ("volume", serde_json::json!(32.0))
        );
        assert_eq!(point_values_json(&point, EnvelopeKind::Other(9)), None);
    }
}
