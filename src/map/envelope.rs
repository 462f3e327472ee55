//! Envelope evaluation: an envelope's value at a point in time, the way the game computes it
//! (docs/format-notes.md, "Envelopes at a time").

use twcodec_schema::map::envelope::{CurveType, EnvPoint, EnvPointBezier};

use super::{Envelope, Map};

/// 22.10 fixed point to a float.
fn fixed(value: i32) -> f64 {
    f64::from(value) / 1024.0
}

impl Envelope {
    /// The envelope's four channels at `time_ms` milliseconds, as floats (22.10 values divided
    /// by 1024): `[x, y, rotation in degrees, _]` for position envelopes, `[r, g, b, a]` for color
    /// envelopes (1.0 = full), `[volume, ..]` for sound envelopes. `None` when the envelope has
    /// no points.
    ///
    /// Time loops over the last point's time; a single point is constant; between two points
    /// the first one's curve type decides the shape (step, linear, slow, fast, smooth, bezier;
    /// unknown curve types are linear). A time before the first point, or a negative one,
    /// shows the last point, as in the game.
    ///
    /// ```
    /// let map = twcodec_testkit::sample::map()?;
    /// for envelope in map.envelopes() {
    ///     let at_start = envelope.eval(&map, 0.0);
    ///     assert!(at_start.is_some() || envelope.points(&map).is_empty());
    /// }
    /// # Ok::<(), twcodec::Error>(())
    /// ```
    pub fn eval(&self, map: &Map, time_ms: f64) -> Option<[f64; 4]> {
        eval_points(self.points(map), self.bezier(map), time_ms)
    }
}

/// The value of `points` (with their bezier tangents, when the map has them) at `time_ms`.
pub fn eval_points(
    points: &[EnvPoint],
    bezier: Option<&[EnvPointBezier]>,
    time_ms: f64,
) -> Option<[f64; 4]> {
    let first = points.first()?;
    let last = points.last()?;
    if points.len() == 1 {
        return Some(first.values.map(fixed));
    }
    // The game takes the time modulo the last point's time with C's `%`: a negative time stays
    // negative, finds no segment and shows the last point.
    let period = f64::from(last.time);
    let time = if period > 0.0 && time_ms.is_finite() {
        time_ms % period
    } else {
        0.0
    };
    // The segment is found by the whole milliseconds; the shape within it uses the fraction.
    let key = time.trunc();
    for (i, pair) in points.windows(2).enumerate() {
        let (a, b) = (&pair[0], &pair[1]);
        let (t0, t1) = (f64::from(a.time), f64::from(b.time));
        if !(t0 <= key && key < t1) {
            continue;
        }
        let x = (time - t0) / (t1 - t0);
        let factor = match a.curve() {
            CurveType::STEP => 0.0,
            CurveType::SLOW => x * x * x,
            CurveType::FAST => 1.0 - (1.0 - x).powi(3),
            CurveType::SMOOTH => x * x * (3.0 - 2.0 * x),
            CurveType::BEZIER => {
                let tangents = bezier.and_then(|b| Some((b.get(i)?, b.get(i + 1)?)));
                if let Some((out, into)) = tangents {
                    return Some(bezier_values(a, b, out, into, time));
                }
                x
            }
            _ => x,
        };
        let mut values = [0.0; 4];
        for (c, value) in values.iter_mut().enumerate() {
            let (v0, v1) = (fixed(a.values[c]), fixed(b.values[c]));
            *value = v0 + (v1 - v0) * factor;
        }
        return Some(values);
    }
    Some(last.values.map(fixed))
}

/// Each channel of a bezier segment from `a` to `b` at `time`: the curve through
/// `(time, value)` control points, the outgoing tangent of `a` and the incoming one of `b`
/// (times in ms, values 22.10), their times clamped into the segment so that time is a
/// function of the curve parameter, which is solved for by bisection.
fn bezier_values(
    a: &EnvPoint,
    b: &EnvPoint,
    out: &EnvPointBezier,
    into: &EnvPointBezier,
    time: f64,
) -> [f64; 4] {
    let (t0, t3) = (f64::from(a.time), f64::from(b.time));
    let mut values = [0.0; 4];
    for (c, value) in values.iter_mut().enumerate() {
        let (v0, v3) = (fixed(a.values[c]), fixed(b.values[c]));
        let t1 = (t0 + f64::from(out.out_tangent_dx[c])).clamp(t0, t3);
        let v1 = v0 + fixed(out.out_tangent_dy[c]);
        let t2 = (t3 + f64::from(into.in_tangent_dx[c])).clamp(t0, t3);
        let v2 = v3 + fixed(into.in_tangent_dy[c]);
        let s = solve_monotonic(|s| cubic(t0, t1, t2, t3, s), time);
        *value = cubic(v0, v1, v2, v3, s);
    }
    values
}

/// The cubic bezier of `p0..p3` at `s` in 0..=1.
fn cubic(p0: f64, p1: f64, p2: f64, p3: f64, s: f64) -> f64 {
    let r = 1.0 - s;
    r * r * r * p0 + 3.0 * r * r * s * p1 + 3.0 * r * s * s * p2 + s * s * s * p3
}

/// The `s` in 0..=1 where the non-decreasing `f` reaches `target` (clamped to the ends).
fn solve_monotonic(f: impl Fn(f64) -> f64, target: f64) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    if f(lo) >= target {
        return lo;
    }
    if f(hi) <= target {
        return hi;
    }
    for _ in 0..48 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(time: i32, curve: CurveType, value: i32) -> EnvPoint {
        EnvPoint {
            time,
            curve_type: curve.to_i32(),
            values: [value, 0, 0, 0],
        }
    }

    fn at(points: &[EnvPoint], time: f64) -> f64 {
        eval_points(points, None, time).unwrap()[0]
    }

    #[test]
    fn curves_follow_the_game() {
        let k = 1024;
        for (curve, quarter) in [
            (CurveType::STEP, 0.0),
            (CurveType::LINEAR, 0.25),
            (CurveType::SLOW, 0.25 * 0.25 * 0.25),
            (CurveType::FAST, 1.0 - 0.75 * 0.75 * 0.75),
            (CurveType::SMOOTH, 0.25 * 0.25 * (3.0 - 0.5)),
        ] {
            let points = [point(0, curve, 0), point(1000, curve, k)];
            assert_eq!(at(&points, 250.0), quarter, "{curve:?}");
            assert_eq!(at(&points, 0.0), 0.0, "{curve:?}");
            // Time loops over the last point's time.
            assert_eq!(at(&points, 1250.0), quarter, "{curve:?}");
            // A negative time stays negative and shows the last point.
            assert_eq!(at(&points, -750.0), 1.0, "{curve:?}");
        }
        assert_eq!(at(&[point(500, CurveType::LINEAR, 3 * k)], 9.0), 3.0);
        assert_eq!(eval_points(&[], None, 0.0), None);
        // Before the first point's time (a first point after 0): the last value.
        let late = [
            point(100, CurveType::LINEAR, k),
            point(200, CurveType::LINEAR, 2 * k),
        ];
        assert_eq!(at(&late, 50.0), 2.0);
        assert_eq!(at(&late, 150.0), 1.5);
        // Zero duration: time 0, which no segment holds: the last point.
        let flat = [
            point(0, CurveType::LINEAR, k),
            point(0, CurveType::LINEAR, 2 * k),
        ];
        assert_eq!(at(&flat, 77.0), 2.0);
        // A segment holds its start, not its end; the fraction of a millisecond counts.
        let steps = [
            point(0, CurveType::LINEAR, 0),
            point(10, CurveType::STEP, k),
            point(20, CurveType::LINEAR, 0),
        ];
        assert_eq!(at(&steps, 10.0), 1.0);
        assert_eq!(at(&steps, 9.5), 0.95);
    }

    #[test]
    fn bezier_uses_tangents() {
        let k = 1024;
        let points = [
            point(0, CurveType::BEZIER, 0),
            point(1000, CurveType::LINEAR, k),
        ];
        // Zero tangents: a smooth S from 0 to 1, a half at the middle.
        let zero = [EnvPointBezier::default(); 2];
        let mid = eval_points(&points, Some(&zero), 500.0).unwrap()[0];
        assert!((mid - 0.5).abs() < 1e-9, "{mid}");
        let early = eval_points(&points, Some(&zero), 100.0).unwrap()[0];
        assert!(early < 0.1 && early > 0.0, "{early}");
        // An outgoing tangent that rises fast lifts the start of the curve.
        let mut steep = zero;
        steep[0].out_tangent_dx[0] = 300;
        steep[0].out_tangent_dy[0] = 2 * k;
        let lifted = eval_points(&points, Some(&steep), 100.0).unwrap()[0];
        assert!(lifted > 0.3, "{lifted}");
        // Without tangents a bezier point is linear.
        assert_eq!(at(&points, 250.0), 0.25);
    }
}
