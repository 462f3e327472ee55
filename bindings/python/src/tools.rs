//! The tool layer (`twcodec_tools`) from Python, in the command line's words:
//!
//! | Python | command line |
//! |---|---|
//! | `Map.diff(other)`, `twcodec.Diff` | `twcodec diff OLD NEW` (`.text()`, `--format json`: `.to_json()`) |
//! | `Map.unpack(directory)`, `Map.pack(directory)` | `twcodec unpack`, `twcodec pack` |
//! | `Map.embed(mapres, strict=...)` | `twcodec embed --mapres DIR [--strict]` |
//! | `twcodec.Renderer`, `Map.render(...)` | `twcodec render` (`time` in seconds as `--time`) |
//!
//! `Map.render` is a one-shot render; a `twcodec.Renderer` keeps the pictures it reads and
//! decodes (external images, the entities tileset, embedded images) for its next render. Both read their
//! keyword options here ([`RenderArgs`]), before the map is locked, with errors that name
//! the option and say what it takes: `camera is (x, y, zoom): ...; (10, 10) has no zoom`.

use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyUserWarning};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyIterator, PyList, PyString};
use twcodec::Map;
use twcodec_tools::diff::MapDiff;
use twcodec_tools::render::{RenderOptions, Renderer, Size, View};

use crate::errors::{invalid_options, OrRaise, RenderWarning};
use crate::map::PyMap;
use crate::shared::Shared;
use crate::views::owned;

create_exception!(
    twcodec,
    PackWarning,
    PyUserWarning,
    "What Map.pack did because of a deletion in the directory, as `twcodec pack` notes it: a \
     reference to a deleted item that became none, an auto-mapper configuration that went with \
     its layer, a data item that no item names any more."
);

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDiff>()?;
    m.add_class::<PyRenderer>()?;
    m.add("PackWarning", m.py().get_type::<PackWarning>())?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// diff

/// The differences between two maps (`Map.diff`), as `twcodec diff` finds them: sections
/// named by place (`group #1 "Game" / layer #3 "Ground"`), each with its changes, in the
/// units people think in (tiles, seconds, colors as 0..1).
///
/// False when the maps are the same; `len()` is the number of changes listed, and iterating
/// gives each change as a dict: 'place', 'change' (its kind: 'added', 'removed', 'moved',
/// 'field', 'tiles', 'pixels', 'more', 'note') and the fields of that kind, with the keys
/// of `twcodec diff --format json`.
#[pyclass(name = "Diff", module = "twcodec", frozen)]
pub(crate) struct PyDiff {
    diff: MapDiff,
}

impl PyDiff {
    /// Every change, as JSON objects with their place.
    fn change_values(&self) -> PyResult<Vec<serde_json::Value>> {
        let mut values = Vec::new();
        for section in &self.diff.sections {
            for change in &section.changes {
                let mut value = serde_json::to_value(change)
                    .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
                if let serde_json::Value::Object(fields) = &mut value {
                    fields.insert("place".into(), section.place.clone().into());
                }
                values.push(value);
            }
        }
        Ok(values)
    }
}

#[pymethods]
impl PyDiff {
    /// The places that changed, in map order: 'map', 'info', images, sounds, envelopes,
    /// groups each followed by its layers, auto-mappers, other items.
    #[getter]
    fn places(&self) -> Vec<String> {
        (self.diff.sections.iter())
            .map(|s| s.place.clone())
            .collect()
    }

    /// The sections as `twcodec diff --format json` gives them: dicts of 'place' and
    /// 'changes' (a list of dicts, each with its kind in 'change').
    #[getter]
    fn sections<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::to_python(py, &self.diff.sections)
    }

    /// Every change listed, as dicts with their 'place' (what iterating gives).
    #[getter]
    fn changes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::to_python(py, &self.change_values()?)
    }

    /// How many changes of each kind are listed: a dict from 'added', 'removed', 'moved',
    /// 'field', 'tiles', 'pixels', 'more', 'note' to a count (kinds listed only).
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let counts = PyDict::new(py);
        for value in self.change_values()? {
            let kind = value["change"].as_str().unwrap_or("other").to_string();
            let before: usize = match counts.get_item(&kind)? {
                Some(count) => count.extract()?,
                None => 0,
            };
            counts.set_item(kind, before + 1)?;
        }
        Ok(counts)
    }

    /// The number of tiles that changed, in every tile layer compared (also those past a
    /// section's list of 200 changes).
    #[getter]
    fn tiles(&self) -> usize {
        self.diff.tiles_changed()
    }

    /// The diff as `twcodec diff` prints it: each place on a line ending in ':', its changes
    /// indented below it; '' for two equal maps.
    fn text(&self) -> PyResult<String> {
        let mut out = Vec::new();
        (self.diff.write_text(&mut out))
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// The diff as `twcodec diff --format json` prints it (indented, ending in a newline).
    fn to_json(&self) -> PyResult<String> {
        let mut json = serde_json::to_string_pretty(&self.diff)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        json.push('\n');
        Ok(json)
    }

    fn __bool__(&self) -> bool {
        !self.diff.is_empty()
    }

    fn __len__(&self) -> usize {
        self.diff.change_count()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyIterator>> {
        self.changes(py)?.try_iter()
    }

    fn __repr__(&self) -> String {
        match self.diff.is_empty() {
            true => "<twcodec.Diff: the same map>".to_string(),
            false => {
                let (changes, places) = (self.diff.change_count(), self.diff.sections.len());
                format!(
                    "<twcodec.Diff: {changes} change{} in {places} place{}>",
                    if changes == 1 { "" } else { "s" },
                    if places == 1 { "" } else { "s" }
                )
            }
        }
    }
}

/// `Map.diff`: from `old` to `new` (the same map when `new` is None), or to the map file or
/// unpacked directory at `path`.
pub(crate) fn diff(
    py: Python<'_>,
    old: &Shared<Map>,
    new: Option<&Shared<Map>>,
    path: Option<PathBuf>,
) -> PyResult<PyDiff> {
    let what = "Map.diff";
    // A file or directory is read before the map is locked, as `twcodec diff` reads either.
    let loaded = match path {
        Some(path) => Some(
            py.detach(|| twcodec_tools::mapdir::load(&path))
                .or_raise()?,
        ),
        None => None,
    };
    let a = old.read(py, what)?;
    let a = &*a;
    let diff = match (&loaded, new) {
        (Some(b), _) => py.detach(|| twcodec_tools::diff::diff(a, b)),
        (None, Some(new)) => {
            let b = new.read(py, what)?;
            let b = &*b;
            py.detach(|| twcodec_tools::diff::diff(a, b))
        }
        (None, None) => py.detach(|| twcodec_tools::diff::diff(a, a)),
    };
    Ok(PyDiff { diff })
}

// ---------------------------------------------------------------------------------------
// unpack, pack, embed

/// `Map.unpack`: the map's file written as a directory; what was written, as a dict.
pub(crate) fn unpack<'py>(
    py: Python<'py>,
    map: &Shared<Map>,
    directory: PathBuf,
) -> PyResult<Bound<'py, PyDict>> {
    let guard = map.read(py, "Map.unpack")?;
    let map = &*guard;
    let unpacked = py
        .detach(|| {
            let bytes = map.to_bytes()?;
            twcodec_tools::mapdir::unpack(&bytes, &directory)
        })
        .or_raise()?;
    drop(guard);
    let dict = PyDict::new(py);
    dict.set_item("items", unpacked.items)?;
    dict.set_item("data", unpacked.data)?;
    dict.set_item("raw", unpacked.raw)?;
    Ok(dict)
}

/// `Map.pack`: the map a directory describes, loaded with `options`; the notes of a deletion
/// as `twcodec.PackWarning`s.
pub(crate) fn pack(
    py: Python<'_>,
    directory: PathBuf,
    options: twcodec::LoadOptions,
) -> PyResult<PyMap> {
    let (map, notes) = py
        .detach(|| {
            // Errors name the directory, and the file and line in it.
            let packed = twcodec_tools::mapdir::pack_with_notes(&directory)
                .map_err(|e| e.with_path(&directory))?;
            let map =
                Map::parse_with(&packed.bytes, options).map_err(|e| e.with_path(&directory))?;
            Ok((map, packed.notes))
        })
        .or_raise()?;
    let category = py.get_type::<PackWarning>();
    for note in &notes {
        crate::errors::warn(py, &category, &format!("{}: {note}", directory.display()))?;
    }
    Ok(PyMap::new(map))
}

/// The folder `Map.embed` reads: `mapres`, else `$TWCODEC_MAPRES`, as `twcodec embed`.
pub(crate) fn mapres_dir(py: Python<'_>, mapres: Option<PathBuf>) -> PyResult<PathBuf> {
    mapres
        .or_else(twcodec_tools::assets::default_mapres)
        .ok_or_else(|| {
            invalid_options(
                py,
                "no folder of pictures: give mapres (DDNet's data/mapres) or set $TWCODEC_MAPRES",
            )
        })
}

/// What `Map.embed` did, as a dict: 'embedded' (each image embedded: 'index', 'name',
/// 'file', 'width', 'height'), 'left_external' ('index', 'name', 'reason') and 'warnings'.
pub(crate) fn embedding_dict<'py>(
    py: Python<'py>,
    embedding: &twcodec_tools::assets::Embedding,
) -> PyResult<Bound<'py, PyDict>> {
    let embedded = PyList::empty(py);
    for e in &embedding.embedded {
        let entry = PyDict::new(py);
        entry.set_item("index", e.image.index())?;
        entry.set_item("name", &e.name)?;
        entry.set_item("file", e.path.to_string_lossy())?;
        entry.set_item("width", e.width)?;
        entry.set_item("height", e.height)?;
        embedded.append(entry)?;
    }
    let left = PyList::empty(py);
    for l in &embedding.left_external {
        let entry = PyDict::new(py);
        entry.set_item("index", l.image.index())?;
        entry.set_item("name", &l.name)?;
        entry.set_item("reason", &l.reason)?;
        left.append(entry)?;
    }
    let dict = PyDict::new(py);
    dict.set_item("embedded", embedded)?;
    dict.set_item("left_external", left)?;
    dict.set_item("warnings", &embedding.warnings)?;
    Ok(dict)
}

// ---------------------------------------------------------------------------------------
// render

/// Draws maps as `twcodec render` does, keeping the pictures it reads and decodes for the
/// next render: the files of external images (from `mapres`) and of the entities tileset,
/// and the textures made of embedded images (found again by their pixels, so an edited
/// picture is made anew). Many frames of a map, or many maps, read and decode each once. `mapres` and `entities_tileset` are the
/// defaults of each render (`mapres` None: `$TWCODEC_MAPRES`). Files are not read again
/// when they change: `clear()` drops them. At most 1 GiB of pixels (1024 pictures) is kept;
/// past that, the pictures used longest ago are made again when needed.
///
/// `render(map, ...)` takes the keyword options of `Map.render`, which is a one-shot
/// Renderer, and gives the same pixels. A Renderer may be shared by threads.
#[pyclass(name = "Renderer", module = "twcodec", frozen)]
pub(crate) struct PyRenderer {
    renderer: Renderer,
    mapres: Option<PathBuf>,
    entities_tileset: Option<PathBuf>,
}

#[pymethods]
impl PyRenderer {
    #[new]
    #[pyo3(signature = (mapres = None, entities_tileset = None))]
    fn new(mapres: Option<PathBuf>, entities_tileset: Option<PathBuf>) -> PyRenderer {
        PyRenderer {
            renderer: Renderer::new(),
            mapres,
            entities_tileset,
        }
    }

    /// The folder of external images each render reads unless it names another; None:
    /// `$TWCODEC_MAPRES`.
    #[getter]
    fn mapres(&self) -> Option<String> {
        (self.mapres.as_ref()).map(|p| p.to_string_lossy().into_owned())
    }

    /// The entities tileset each render uses unless it names another; None: DDNet's, found
    /// around `mapres`.
    #[getter]
    fn entities_tileset(&self) -> Option<String> {
        (self.entities_tileset.as_ref()).map(|p| p.to_string_lossy().into_owned())
    }

    /// How many pictures the renderer keeps now: files read (or found unreadable) and
    /// textures of embedded images.
    #[getter]
    fn cached(&self) -> usize {
        self.renderer.cached_files()
    }

    /// Drops every picture kept: the next render reads and makes them again.
    fn clear(&self) {
        self.renderer.clear();
    }

    /// Draws `map` as `Map.render` does (the same keyword options), with the picture files
    /// this renderer keeps; `mapres` and `entities_tileset` default to the renderer's.
    #[pyo3(signature = (map, *, width = None, scale = None, size = None, camera = None,
        time = None, time_ms = None, entities = None, detail = true, layers = None,
        mapres = None, entities_tileset = None, background = None, png = false, path = None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, one per render option.
    fn render<'py>(
        &self,
        py: Python<'py>,
        map: &Bound<'py, PyMap>,
        width: Option<Bound<'py, PyAny>>,
        scale: Option<Bound<'py, PyAny>>,
        size: Option<Bound<'py, PyAny>>,
        camera: Option<Bound<'py, PyAny>>,
        time: Option<Bound<'py, PyAny>>,
        time_ms: Option<Bound<'py, PyAny>>,
        entities: Option<Bound<'py, PyAny>>,
        detail: bool,
        layers: Option<Vec<Bound<'py, PyAny>>>,
        mapres: Option<PathBuf>,
        entities_tileset: Option<PathBuf>,
        background: Option<Bound<'py, PyAny>>,
        png: bool,
        path: Option<PathBuf>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let args = RenderArgs {
            width,
            scale,
            size,
            camera,
            time,
            time_ms,
            entities,
            detail,
            layers,
            mapres: mapres.or_else(|| self.mapres.clone()),
            entities_tileset: entities_tileset.or_else(|| self.entities_tileset.clone()),
            background,
            png,
            path,
        };
        render(
            py,
            Some(&self.renderer),
            &map.get().map,
            "Renderer.render",
            args,
        )
    }

    fn __repr__(&self) -> String {
        let path = |p: &Option<PathBuf>| match p {
            Some(p) => format!("{:?}", p.display().to_string()),
            None => "None".to_string(),
        };
        format!(
            "<twcodec.Renderer mapres={} entities_tileset={}: {} pictures kept>",
            path(&self.mapres),
            path(&self.entities_tileset),
            self.renderer.cached_files()
        )
    }
}

/// The keyword options of `Map.render` and `Renderer.render`, as Python gave them: read and
/// checked by [`render`] before the map is locked (reading a Python object may run Python
/// code: `__index__`, `__float__`).
pub(crate) struct RenderArgs<'py> {
    pub width: Option<Bound<'py, PyAny>>,
    pub scale: Option<Bound<'py, PyAny>>,
    pub size: Option<Bound<'py, PyAny>>,
    pub camera: Option<Bound<'py, PyAny>>,
    pub time: Option<Bound<'py, PyAny>>,
    pub time_ms: Option<Bound<'py, PyAny>>,
    pub entities: Option<Bound<'py, PyAny>>,
    pub detail: bool,
    pub layers: Option<Vec<Bound<'py, PyAny>>>,
    pub mapres: Option<PathBuf>,
    pub entities_tileset: Option<PathBuf>,
    pub background: Option<Bound<'py, PyAny>>,
    pub png: bool,
    pub path: Option<PathBuf>,
}

/// What the camera is, in errors.
const CAMERA: &str = "camera is (x, y, zoom): the center in tiles, and the zoom (1.0 sees \
                      what the game shows by default, 2.0 twice as much)";
/// What the size is, in errors.
const SIZE: &str = "size is (width, height): the picture's size in pixels, each at least 1";
/// What the background is, in errors.
const BACKGROUND: &str = "background is (r, g, b, a): straight RGBA, each 0 to 255";

/// The name of a Python object's type, for errors.
fn type_name(value: &Bound<'_, PyAny>) -> String {
    (value.get_type().name())
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_string())
}

/// A number (int or float, not bool) for the option `name`; a `TypeError` saying `what` the
/// option is otherwise.
fn number(value: &Bound<'_, PyAny>, what: &str) -> PyResult<f64> {
    let wrong = || PyTypeError::new_err(format!("{what}, not {}", type_name(value)));
    if value.is_instance_of::<PyBool>() || value.is_instance_of::<PyString>() {
        return Err(wrong());
    }
    value.extract::<f64>().map_err(|_| wrong())
}

/// A whole number (int, not bool) for an option; a `TypeError` saying `what` it is
/// otherwise.
fn integer(value: &Bound<'_, PyAny>, what: &str) -> PyResult<i64> {
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!("{what}, not bool")));
    }
    value
        .extract::<i64>()
        .map_err(|_| PyTypeError::new_err(format!("{what}, not {}", type_name(value))))
}

/// The values of a tuple option `name` whose parts are `fields`: a `TypeError` when it is no
/// sequence, a `twcodec.Error` (kind 'invalid_options') naming what is missing or too much.
fn parts<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
    fields: &[&str],
    what: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let not_a_sequence = || {
        PyTypeError::new_err(format!(
            "{what}; a tuple of {} numbers, not {}",
            fields.len(),
            type_name(value)
        ))
    };
    if value.is_instance_of::<PyString>() || value.is_instance_of::<PyBytes>() {
        return Err(not_a_sequence());
    }
    let items: Vec<Bound<'py, PyAny>> = match value.try_iter() {
        Ok(iter) => iter.collect::<PyResult<_>>()?,
        Err(_) => return Err(not_a_sequence()),
    };
    let shown = value.repr().map(|r| r.to_string()).unwrap_or_default();
    if items.len() < fields.len() {
        let given = fields[..items.len()].join(", ");
        let missing = fields[items.len()..].join(" and ");
        let given = match items.len() {
            0 => "nothing".to_string(),
            _ => given,
        };
        let verb = if fields.len() - items.len() == 1 {
            "is"
        } else {
            "are"
        };
        return Err(invalid_options(
            py,
            format!("{what}; {shown} gives {given}: {missing} {verb} missing"),
        ));
    }
    if items.len() > fields.len() {
        return Err(invalid_options(
            py,
            format!(
                "{what}; {shown} has {} values, {} too many",
                items.len(),
                items.len() - fields.len()
            ),
        ));
    }
    Ok(items)
}

impl RenderArgs<'_> {
    /// The picture's size: one of `width`, `scale` and `size`.
    fn size(&self, py: Python<'_>) -> PyResult<Size> {
        let given = [&self.width, &self.scale, &self.size]
            .iter()
            .filter(|v| v.is_some())
            .count();
        if given > 1 {
            return Err(invalid_options(
                py,
                "give at most one of width, scale and size",
            ));
        }
        if let Some(width) = &self.width {
            let what = "width is the picture's width in pixels, an int of at least 1";
            let w = integer(width, what)?;
            return match u32::try_from(w).ok().filter(|&w| w >= 1) {
                Some(w) => Ok(Size::Width(w)),
                None => Err(invalid_options(py, format!("{what}, not {w}"))),
            };
        }
        if let Some(scale) = &self.scale {
            let what = "scale is pixels per tile (32 is the game's full size), a positive number";
            let s = number(scale, what)?;
            return match s.is_finite() && s > 0.0 {
                true => Ok(Size::Scale(s)),
                false => Err(invalid_options(py, format!("{what}, not {s}"))),
            };
        }
        if let Some(size) = &self.size {
            let items = parts(py, size, &["width", "height"], SIZE)?;
            let mut sides = [0u32; 2];
            for ((side, item), field) in sides.iter_mut().zip(&items).zip(["width", "height"]) {
                let n = integer(item, &format!("{SIZE}; its {field} is an int"))?;
                *side = match u32::try_from(n).ok().filter(|&n| n >= 1) {
                    Some(n) => n,
                    None => return Err(invalid_options(py, format!("{SIZE}; its {field} is {n}"))),
                };
            }
            return Ok(Size::Pixels {
                width: sides[0],
                height: sides[1],
            });
        }
        Ok(RenderOptions::default().size)
    }

    /// The view: the whole map, or `camera`.
    fn view(&self, py: Python<'_>) -> PyResult<View> {
        let Some(camera) = &self.camera else {
            return Ok(View::Whole);
        };
        let fields = ["x", "y", "zoom"];
        let items = parts(py, camera, &fields, CAMERA)?;
        let mut values = [0f64; 3];
        for ((value, item), field) in values.iter_mut().zip(&items).zip(fields) {
            *value = number(item, &format!("{CAMERA}; its {field} is a number"))?;
            if !value.is_finite() {
                return Err(invalid_options(
                    py,
                    format!("{CAMERA}; its {field} is {value}"),
                ));
            }
        }
        let [x, y, zoom] = values;
        if zoom <= 0.0 {
            return Err(invalid_options(
                py,
                format!("{CAMERA}; its zoom is {zoom}, not a positive number"),
            ));
        }
        Ok(View::Camera { x, y, zoom })
    }

    /// The time in milliseconds: `time` (seconds, as `twcodec render --time`) or `time_ms`.
    fn time_ms(&self, py: Python<'_>) -> PyResult<f64> {
        let finite = |value: &Bound<'_, PyAny>, what: &str| -> PyResult<f64> {
            let v = number(value, what)?;
            match v.is_finite() {
                true => Ok(v),
                false => Err(invalid_options(py, format!("{what}, not {v}"))),
            }
        };
        match (&self.time, &self.time_ms) {
            (Some(_), Some(_)) => Err(invalid_options(
                py,
                "give time (in seconds, as twcodec render --time) or time_ms (in \
                 milliseconds), not both",
            )),
            (Some(time), None) => Ok(finite(
                time,
                "time is when envelopes are drawn, in seconds (as twcodec render --time), a \
                 finite number",
            )? * 1000.0),
            (None, Some(ms)) => finite(
                ms,
                "time_ms is when envelopes are drawn, in milliseconds, a finite number",
            ),
            (None, None) => Ok(0.0),
        }
    }

    /// The entities view in percent: True is `twcodec render --entities` (100), an int
    /// `--entities-overlay`.
    fn entities(&self, py: Python<'_>) -> PyResult<u8> {
        let what = "entities is True (the physics layers alone, as twcodec render --entities), \
                    False, or the opacity of the physics layers over the map in percent, 0 to \
                    100 (as --entities-overlay)";
        let Some(entities) = &self.entities else {
            return Ok(0);
        };
        if let Ok(flag) = entities.cast::<PyBool>() {
            return Ok(if flag.is_true() { 100 } else { 0 });
        }
        let n = integer(entities, what)?;
        match u8::try_from(n).ok().filter(|&n| n <= 100) {
            Some(n) => Ok(n),
            None => Err(invalid_options(py, format!("{what}, not {n}"))),
        }
    }

    /// The background color.
    fn background(&self, py: Python<'_>) -> PyResult<[u8; 4]> {
        let Some(background) = &self.background else {
            return Ok(RenderOptions::default().background);
        };
        let fields = ["r", "g", "b", "a"];
        let items = parts(py, background, &fields, BACKGROUND)?;
        let mut color = [0u8; 4];
        for ((channel, item), field) in color.iter_mut().zip(&items).zip(fields) {
            let n = integer(item, &format!("{BACKGROUND}; its {field} is an int"))?;
            *channel = u8::try_from(n)
                .map_err(|_| invalid_options(py, format!("{BACKGROUND}; its {field} is {n}")))?;
        }
        Ok(color)
    }

    /// The layers asked for, as the library's text (an index or a name).
    fn layer_specs(&self, py: Python<'_>) -> PyResult<Option<Vec<String>>> {
        let Some(layers) = &self.layers else {
            return Ok(None);
        };
        (layers.iter())
            .map(|spec| {
                if spec.is_instance_of::<PyBool>() {
                    return Err(invalid_options(
                        py,
                        "layers are given by index (0 or more) or by name, not True or False",
                    ));
                }
                match (spec.extract::<usize>(), spec.extract::<String>()) {
                    (Ok(index), _) => Ok(index.to_string()),
                    (_, Ok(name)) => Ok(name),
                    _ => Err(invalid_options(
                        py,
                        format!("layers are given by index (0 or more) or by name, not {spec:?}"),
                    )),
                }
            })
            .collect::<PyResult<Vec<String>>>()
            .map(Some)
    }
}

/// `Map.render` and `Renderer.render`: `map` drawn by `renderer` (None: a one-shot render)
/// as `args` say, for the Python method `what`.
pub(crate) fn render<'py>(
    py: Python<'py>,
    renderer: Option<&Renderer>,
    map: &Shared<Map>,
    what: &'static str,
    args: RenderArgs<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    // Python objects are read before the map is locked.
    let size = args.size(py)?;
    let view = args.view(py)?;
    let time_ms = args.time_ms(py)?;
    let entities = args.entities(py)?;
    let background = args.background(py)?;
    let specs = args.layer_specs(py)?;
    let RenderArgs {
        detail,
        mapres,
        entities_tileset,
        png,
        path,
        ..
    } = args;
    let guard = map.read(py, what)?;
    let map = &*guard;
    let layers = match &specs {
        None => None,
        Some(specs) => Some(twcodec_tools::render::select_layers(map, specs).or_raise()?),
    };
    let defaults = RenderOptions::default();
    let options = RenderOptions::default()
        .size(size)
        .view(view)
        .time_ms(time_ms)
        .entities(entities)
        .detail(detail)
        .layers(layers)
        .mapres(mapres.or(defaults.mapres))
        .entities_tileset(entities_tileset)
        .background(background);
    // What the call returns: the PNG file alone (drawn and compressed piece by piece, without
    // the whole picture), or the picture.
    enum Drawn {
        Png(Vec<u8>),
        Picture(twcodec_tools::assets::Picture),
    }
    let (warnings, drawn) = py
        .detach(|| {
            if png {
                let rendered = match renderer {
                    Some(renderer) => renderer.render_png(map, &options)?,
                    None => twcodec_tools::render::render_png(map, &options)?,
                };
                if let Some(path) = &path {
                    twcodec::fs::save(path, &rendered.png)?;
                }
                return Ok((rendered.warnings, Drawn::Png(rendered.png)));
            }
            let rendered = match renderer {
                Some(renderer) => renderer.render(map, &options)?,
                None => twcodec_tools::render::render(map, &options)?,
            };
            if let Some(path) = &path {
                twcodec::fs::save(path, &rendered.picture.to_png()?)?;
            }
            Ok((rendered.warnings, Drawn::Picture(rendered.picture)))
        })
        .or_raise()?;
    // The map is free before the warnings: a filter or `showwarning` runs Python code.
    drop(guard);
    let category = py.get_type::<RenderWarning>();
    for warning in &warnings {
        crate::errors::warn(py, &category, warning)?;
    }
    let picture = match drawn {
        Drawn::Picture(picture) => picture,
        Drawn::Png(png) => return Ok(PyBytes::new(py, &png).into_any()),
    };
    let shape = [picture.height as usize, picture.width as usize, 4];
    Ok(owned(py, picture.rgba, shape)?.into_any())
}
