//! What the editing methods of `twcodec.Map` and its parts take from Python, turned into the
//! library's types: envelope points and their bezier tangents, sound sources, pictures.
//!
//! Each takes what the matching reading method gives (`Envelope.points`, `Envelope.bezier`,
//! `Layer.sources()`), so that reading, changing and setting back is a round trip, and the
//! shorter forms people write by hand (a tuple per point, a dict with only some keys of a
//! source). A value of the wrong type or out of range raises `twcodec.Error` naming the point
//! or source and the field; the library checks the rest (times in order, envelope kinds).

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyMemoryView, PyString};
use twcodec::schema::map::envelope::{CurveType, EnvPoint, EnvPointBezier, EnvelopeKind};
use twcodec::schema::map::sound::{SoundShape, SoundSource};
use twcodec::schema::map::Point;

use crate::errors::{to_pyerr, OrRaise};

/// `twcodec.Error` of the invalid-edit kind with `message`.
pub(crate) fn edit_error(py: Python<'_>, message: impl Into<String>) -> PyErr {
    to_pyerr(py, &twcodec::Error::invalid_edit(message.into()))
}

/// The envelope kind of its Python name.
pub(crate) fn envelope_kind(py: Python<'_>, kind: &str) -> PyResult<EnvelopeKind> {
    match kind {
        "position" => Ok(EnvelopeKind::Position),
        "color" => Ok(EnvelopeKind::Color),
        "sound" => Ok(EnvelopeKind::Sound),
        other => Err(edit_error(
            py,
            format!("field `kind` is 'position', 'color' or 'sound', not {other:?}"),
        )),
    }
}

/// The number of values a point of `kind` has.
fn channels(kind: EnvelopeKind) -> Option<usize> {
    match kind {
        EnvelopeKind::Sound => Some(1),
        EnvelopeKind::Position => Some(3),
        EnvelopeKind::Color => Some(4),
        EnvelopeKind::Other(_) => None,
    }
}

/// The curve types by name, as `CurveType` names them.
const CURVES: [(&str, CurveType); 6] = [
    ("step", CurveType::STEP),
    ("linear", CurveType::LINEAR),
    ("slow", CurveType::SLOW),
    ("fast", CurveType::FAST),
    ("smooth", CurveType::SMOOTH),
    ("bezier", CurveType::BEZIER),
];

/// An int field, or the error naming `what` and `field`.
fn int(py: Python<'_>, value: &Bound<'_, PyAny>, what: &str, field: &str) -> PyResult<i32> {
    // A bool is an int in Python, but never a number here.
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(edit_error(
            py,
            format!("{what}: field `{field}` = {value} is not a whole number"),
        ));
    }
    value.extract::<i32>().map_err(|_| {
        edit_error(
            py,
            format!("{what}: field `{field}` = {value} is not a whole number that fits in 32 bits"),
        )
    })
}

/// A sequence of ints, `want` of them or 4 (1 to 4 when `want` is None), padded with zeros
/// to 4; an error names `what` and `field`.
fn ints(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    what: &str,
    field: &str,
    want: Option<usize>,
) -> PyResult<[i32; 4]> {
    let items: Vec<Bound<'_, PyAny>> = match value.try_iter() {
        Ok(iter) if !value.is_instance_of::<PyString>() => iter.collect::<PyResult<_>>()?,
        _ => {
            return Err(edit_error(
                py,
                format!("{what}: field `{field}` = {value} is not a sequence of numbers"),
            ))
        }
    };
    let fits = match want {
        Some(n) => items.len() == n || items.len() == 4,
        None => (1..=4).contains(&items.len()),
    };
    if !fits {
        let need = match want {
            Some(n) if n != 4 => format!("{n} (or 4, as `points` gives them)"),
            Some(n) => n.to_string(),
            None => "1 to 4".to_string(),
        };
        return Err(edit_error(
            py,
            format!(
                "{what}: field `{field}` has {} values; the envelope's points have {need}",
                items.len()
            ),
        ));
    }
    let mut out = [0; 4];
    for (slot, item) in out.iter_mut().zip(&items) {
        *slot = int(py, item, what, field)?;
    }
    Ok(out)
}

/// A curve type given by number or by name.
fn curve(py: Python<'_>, value: &Bound<'_, PyAny>, what: &str) -> PyResult<i32> {
    if let Ok(name) = value.extract::<String>() {
        return CURVES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c.to_i32())
            .ok_or_else(|| {
                edit_error(
                    py,
                    format!(
                        "{what}: field `curve_type` = {name:?} is not one of 'step', 'linear', \
                         'slow', 'fast', 'smooth', 'bezier' (or 0 to 5)"
                    ),
                )
            });
    }
    int(py, value, what, "curve_type")
}

/// A required key of a dict.
fn key<'py>(
    py: Python<'py>,
    dict: &Bound<'py, PyDict>,
    what: &str,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    dict.get_item(name)?
        .ok_or_else(|| edit_error(py, format!("{what}: field `{name}` is missing")))
}

/// A point given by field names: a dict, or a numpy record (of a structured array with the
/// fields 'time', 'curve_type', 'values') as a dict of its fields; None for anything else.
fn record<'py>(item: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyDict>>> {
    if let Ok(dict) = item.cast::<PyDict>() {
        return Ok(Some(dict.clone()));
    }
    let Ok(names) = item.getattr("dtype").and_then(|d| d.getattr("names")) else {
        return Ok(None);
    };
    if names.is_none() {
        return Ok(None);
    }
    let dict = PyDict::new(item.py());
    for name in names.try_iter()? {
        let name = name?;
        dict.set_item(&name, item.get_item(&name)?)?;
    }
    Ok(Some(dict))
}

/// Envelope points for an envelope of `kind`: each a dict as `Envelope.points` gives it
/// ('time', 'curve_type', 'values') or a record of a structured array with those fields,
/// or a tuple (time_ms, values) or (time_ms, values,
/// curve); values 22.10 fixed point, as many as the kind has channels or 4; the curve a
/// number (0 to 5) or a name ('step', 'linear', 'slow', 'fast', 'smooth', 'bezier'),
/// 'linear' when left out.
pub(crate) fn points(
    py: Python<'_>,
    kind: EnvelopeKind,
    value: &Bound<'_, PyAny>,
) -> PyResult<Vec<EnvPoint>> {
    let want = channels(kind);
    let mut points = Vec::new();
    let iter = value
        .try_iter()
        .map_err(|_| edit_error(py, "points are a sequence of dicts or tuples"))?;
    for (n, item) in iter.enumerate() {
        let item = item?;
        let what = format!("point #{n}");
        let (time, values, curve_type) = if let Some(dict) = &record(&item)? {
            let curve_type = match dict.get_item("curve_type")? {
                Some(c) => curve(py, &c, &what)?,
                None => CurveType::LINEAR.to_i32(),
            };
            (
                int(py, &key(py, dict, &what, "time")?, &what, "time")?,
                ints(py, &key(py, dict, &what, "values")?, &what, "values", want)?,
                curve_type,
            )
        } else {
            let parts: Vec<Bound<'_, PyAny>> = match item.try_iter() {
                Ok(iter) if !item.is_instance_of::<PyString>() => iter.collect::<PyResult<_>>()?,
                _ => Vec::new(),
            };
            if !(2..=3).contains(&parts.len()) {
                return Err(edit_error(
                    py,
                    format!(
                        "{what} = {item} is not a dict ('time', 'curve_type', 'values') or a \
                         tuple (time_ms, values) or (time_ms, values, curve)"
                    ),
                ));
            }
            let curve_type = match parts.get(2) {
                Some(c) => curve(py, c, &what)?,
                None => CurveType::LINEAR.to_i32(),
            };
            (
                int(py, &parts[0], &what, "time")?,
                ints(py, &parts[1], &what, "values", want)?,
                curve_type,
            )
        };
        points.push(EnvPoint {
            time,
            curve_type,
            values,
        });
    }
    Ok(points)
}

/// Bezier tangents, one dict per point as `Envelope.bezier` gives them: 'in_tangent_dx',
/// 'in_tangent_dy', 'out_tangent_dx', 'out_tangent_dy', each up to 4 ints (left-out keys are
/// zero).
pub(crate) fn tangents(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Vec<EnvPointBezier>> {
    let mut tangents = Vec::new();
    let iter = value
        .try_iter()
        .map_err(|_| edit_error(py, "bezier tangents are a sequence of dicts"))?;
    for (n, item) in iter.enumerate() {
        let item = item?;
        let what = format!("tangents of point #{n}");
        let dict = item.cast::<PyDict>().map_err(|_| {
            edit_error(
                py,
                format!("{what} = {item} is not a dict as `Envelope.bezier` gives"),
            )
        })?;
        let mut set = EnvPointBezier::default();
        for (name, slot) in [
            ("in_tangent_dx", &mut set.in_tangent_dx),
            ("in_tangent_dy", &mut set.in_tangent_dy),
            ("out_tangent_dx", &mut set.out_tangent_dx),
            ("out_tangent_dy", &mut set.out_tangent_dy),
        ] {
            if let Some(v) = dict.get_item(name)? {
                *slot = ints(py, &v, &what, name, None)?;
            }
        }
        tangents.push(set);
    }
    Ok(tangents)
}

/// A sound source as DDNet's editor makes one: looping, panning, falloff 80, a circle of
/// 1500 units, no envelopes.
fn new_source() -> SoundSource {
    SoundSource {
        position: Point::default(),
        looping: 1,
        panning: 1,
        delay: 0,
        falloff: 80,
        position_envelope: -1,
        position_envelope_offset: 0,
        sound_envelope: -1,
        sound_envelope_offset: 0,
        shape: SoundShape {
            kind: 1,
            value1: 1500,
            value2: 0,
        },
    }
}

/// Sound sources: dicts as `Layer.sources()` gives them (a key left out takes the value
/// DDNet's editor gives a new source), or an array of int32 of shape (n, 13) or records of
/// 52 bytes, in the file's order of fields.
pub(crate) fn sources(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Vec<SoundSource>> {
    let numpy = py.import("numpy")?;
    if value.is_instance(&numpy.getattr("ndarray")?)? {
        let array = numpy.call_method1("ascontiguousarray", (value,))?;
        let itemsize: usize = array.getattr("itemsize")?.extract()?;
        let size: usize = array.getattr("size")?.extract()?;
        let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
        let len = itemsize.saturating_mul(size);
        if kind == "O" || len % SoundSource::SIZE != 0 {
            return Err(edit_error(
                py,
                format!(
                    "sources are dicts as `sources()` gives, int32 of shape (n, 13) or records \
                     of 52 bytes, not {size} items of {itemsize} bytes"
                ),
            ));
        }
        let flat = array.call_method0("tobytes")?;
        return Ok(bytemuck::pod_collect_to_vec(
            flat.cast::<PyBytes>()?.as_bytes(),
        ));
    }
    let iter = value
        .try_iter()
        .map_err(|_| edit_error(py, "sources are a sequence of dicts or an array"))?;
    let mut sources = Vec::new();
    for (n, item) in iter.enumerate() {
        let item = item?;
        let what = format!("source #{n}");
        let dict = item.cast::<PyDict>().map_err(|_| {
            edit_error(
                py,
                format!("{what} = {item} is not a dict as `sources()` gives"),
            )
        })?;
        let mut source = new_source();
        if let Some(position) = dict.get_item("position")? {
            let (x, y) = match position.cast::<PyDict>() {
                Ok(p) => {
                    let get = |name: &str| -> PyResult<Bound<'_, PyAny>> {
                        p.get_item(name)?.ok_or_else(|| {
                            edit_error(py, format!("{what}: field `position.{name}` is missing"))
                        })
                    };
                    (get("x")?, get("y")?)
                }
                Err(_) => {
                    let parts: Vec<Bound<'_, PyAny>> = match position.try_iter() {
                        Ok(iter) => iter.collect::<PyResult<_>>()?,
                        Err(_) => Vec::new(),
                    };
                    let [x, y] = <[_; 2]>::try_from(parts).map_err(|_| {
                        edit_error(
                            py,
                            format!("{what}: field `position` = {position} is not (x, y)"),
                        )
                    })?;
                    (x, y)
                }
            };
            source.position = Point {
                x: int(py, &x, &what, "position.x")?,
                y: int(py, &y, &what, "position.y")?,
            };
        }
        for (name, slot) in [
            ("looping", &mut source.looping),
            ("panning", &mut source.panning),
            ("delay", &mut source.delay),
            ("falloff", &mut source.falloff),
            ("position_envelope", &mut source.position_envelope),
            (
                "position_envelope_offset",
                &mut source.position_envelope_offset,
            ),
            ("sound_envelope", &mut source.sound_envelope),
            ("sound_envelope_offset", &mut source.sound_envelope_offset),
        ] {
            if let Some(v) = dict.get_item(name)? {
                *slot = match v.is_instance_of::<pyo3::types::PyBool>() {
                    // `looping=True` reads as it is meant.
                    true => i32::from(v.extract::<bool>()?),
                    false => int(py, &v, &what, name)?,
                };
            }
        }
        if let Some(shape) = dict.get_item("shape")? {
            let shape = shape.cast::<PyDict>().map_err(|_| {
                edit_error(
                    py,
                    format!("{what}: field `shape` = {shape} is not a dict ('kind', 'value1', 'value2')"),
                )
            })?;
            for (name, slot) in [
                ("kind", &mut source.shape.kind),
                ("value1", &mut source.shape.value1),
                ("value2", &mut source.shape.value2),
            ] {
                if let Some(v) = shape.get_item(name)? {
                    *slot = int(py, &v, &what, &format!("shape.{name}"))?;
                }
            }
        }
        sources.push(source);
    }
    Ok(sources)
}

/// A picture: a uint8 array of shape (height, width, 4) (RGBA), a PNG file's bytes, or the
/// path of a PNG file. Its width, height and RGBA bytes.
pub(crate) fn picture(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<(u32, u32, Vec<u8>)> {
    let limits = twcodec::Limits::DEFAULT;
    let png = if value.is_instance_of::<PyBytes>()
        || value.is_instance_of::<PyByteArray>()
        || value.is_instance_of::<PyMemoryView>()
    {
        let bytes: Vec<u8> = py
            .import("builtins")?
            .getattr("bytes")?
            .call1((value,))?
            .extract()?;
        Some(py.detach(|| twcodec_tools::assets::decode_png(&bytes, limits)))
    } else if value.is_instance_of::<PyString>()
        || value.is_instance(&py.import("os")?.getattr("PathLike")?)?
    {
        let path: std::path::PathBuf = value.extract()?;
        Some(py.detach(|| twcodec_tools::assets::read_png(&path, limits)))
    } else {
        None
    };
    if let Some(png) = png {
        let picture = png.or_raise()?;
        return Ok((picture.width, picture.height, picture.rgba));
    }
    let numpy = py.import("numpy")?;
    let array = numpy.call_method1("asarray", (value,))?;
    let dtype: String = array.getattr("dtype")?.getattr("name")?.extract()?;
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    let [height, width, 4] = shape[..] else {
        return Err(edit_error(
            py,
            format!(
                "pixels are a uint8 array of shape (height, width, 4), PNG bytes or a PNG \
                 file's path, not an array of shape {shape:?}"
            ),
        ));
    };
    if dtype != "uint8" {
        return Err(edit_error(
            py,
            format!("pixels are uint8 (0 to 255 per channel), not {dtype}"),
        ));
    }
    let (Ok(width), Ok(height)) = (u32::try_from(width), u32::try_from(height)) else {
        return Err(edit_error(
            py,
            format!("an image of {width}x{height} pixels"),
        ));
    };
    let flat = numpy
        .call_method1("ascontiguousarray", (array,))?
        .call_method0("tobytes")?;
    let rgba = flat.cast::<PyBytes>()?.as_bytes().to_vec();
    Ok((width, height, rgba))
}
