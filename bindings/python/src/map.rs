//! `twcodec.Map` and its parts: `Group`, `Layer`, `Image`, `Envelope`, `Sound`.
//!
//! A part is a handle (the `Map` object and an index), not a copy: it reads the map each time,
//! and arrays it gives view the map's memory ([`crate::views`]).
//!
//! Every access goes through the map's lock ([`crate::shared`]), named after the Python method
//! that asks (`Layer.set_tiles`), so that a thread that finds the map in use by another gets a
//! `twcodec.BusyError` saying by what.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use numpy::{PyArray2, PyArray3, PyArrayMethods};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use twcodec::map::{Group, ItemRef, Layer, LayerContent, Margins, Severity, TilesLayer, Transform};
use twcodec::schema::map::tile::{cast_tiles, tiles_as_bytes, TileKind};
use twcodec::{Decode, LoadMode, LoadOptions, Map, MapForm};

use crate::edit;
use crate::errors::{field, invalid_options, OrRaise};
use crate::shared::Shared;
use crate::views::{borrowed, owned, Views};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMap>()?;
    m.add_class::<PyGroup>()?;
    m.add_class::<PyLayer>()?;
    m.add_class::<PyImage>()?;
    m.add_class::<PyEnvelope>()?;
    m.add_class::<PySound>()?;
    m.add_function(wrap_pyfunction!(tile_name, m)?)?;
    m.add_function(wrap_pyfunction!(tile_ids, m)?)?;
    Ok(())
}

/// The physics kind of a layer kind's name.
fn physics_kind(kind: &str) -> PyResult<twcodec::schema::map::layer::PhysicsKind> {
    use twcodec::schema::map::layer::PhysicsKind;
    Ok(match kind {
        "game" => PhysicsKind::Game,
        "front" => PhysicsKind::Front,
        "tele" => PhysicsKind::Tele,
        "speedup" => PhysicsKind::Speedup,
        "switch" => PhysicsKind::Switch,
        "tune" => PhysicsKind::Tune,
        other => {
            return Err(PyValueError::new_err(format!(
                "kind is one of 'game', 'front', 'tele', 'speedup', 'switch', 'tune', not \
                 {other:?}"
            )))
        }
    })
}

/// The name twcodec gives tile `id` in a layer of `kind` ('game', 'front', 'tele',
/// 'speedup', 'switch', 'tune'), as `twcodec check` and the conversion notes name it
/// ('freeze', 'start', 'tele-in', ...); None for air and ids without a name.
#[pyfunction]
#[pyo3(signature = (id, kind = "game"))]
fn tile_name(id: u8, kind: &str) -> PyResult<Option<&'static str>> {
    Ok(twcodec::map::tile_name(physics_kind(kind)?, id).filter(|_| id != 0))
}

/// The ids of the tiles named `name` in a layer of `kind` (several for some names:
/// 'hook-through' is 5, 6, 66 and 67); an empty list for a name no tile has.
#[pyfunction]
#[pyo3(signature = (name, kind = "game"))]
fn tile_ids(name: &str, kind: &str) -> PyResult<Vec<u32>> {
    let kind = physics_kind(kind)?;
    // u32, not u8: PyO3 turns a Vec<u8> into bytes.
    Ok((1..=255u8)
        .filter(|&id| twcodec::map::tile_name(kind, id) == Some(name))
        .map(u32::from)
        .collect())
}

/// A map (`twcodec::Map`): every item resolved into groups, layers, images, envelopes and
/// sounds, references checked, problems collected.
///
/// Frozen: the map sits behind its own lock, which threads share for reading and one takes
/// to change the map, and which raises `twcodec.BusyError` rather than wait
/// ([`crate::shared`]).
#[pyclass(name = "Map", module = "twcodec", frozen)]
pub(crate) struct PyMap {
    pub(crate) map: Shared<Map>,
    /// Counted without the lock, so that `views` answers while the map is in use.
    views: Views,
    /// Per kind of item, counts the edits that may remove or move items of that kind (under
    /// the write lock): a handle (`Group`, `Layer`, ...) made before one raises instead of
    /// reading another item.
    generations: [AtomicU64; 5],
}

/// The kinds of item a handle names, indexing [`PyMap::generations`].
#[derive(Clone, Copy)]
enum Kind {
    Group,
    Layer,
    Image,
    Envelope,
    Sound,
}

impl PyMap {
    pub(crate) fn new(map: Map) -> PyMap {
        PyMap {
            map: Shared::new(map, "map"),
            views: Views::default(),
            generations: Default::default(),
        }
    }

    /// The last physics layer of `kind` ('front', 'tele', ...), as DDNet plays the last one.
    fn last_layer(slf: &Bound<'_, Self>, kind: &str) -> PyResult<Option<PyLayer>> {
        let map = slf.get().map.read(slf.py(), "Map.physics_layer")?;
        let index = (map.physics_layers())
            .filter(|(_, layer)| layer.kind_name() == kind)
            .last()
            .map(|(r, _)| r.index());
        Ok(index.map(|index| PyLayer::at(slf, index)))
    }

    /// The count of edits so far that moved items of `kind`.
    fn generation(&self, kind: Kind) -> u64 {
        self.generations[kind as usize].load(Ordering::Acquire)
    }

    /// Marks an edit that may remove or move items of `kinds`: their handles made before it
    /// are gone.
    fn moved(&self, kinds: &[Kind]) {
        for &kind in kinds {
            self.generations[kind as usize].fetch_add(1, Ordering::AcqRel);
        }
    }

    /// Marks a whole-map edit: every handle made before it is gone.
    fn moved_items(&self) {
        self.moved(&[
            Kind::Group,
            Kind::Layer,
            Kind::Image,
            Kind::Envelope,
            Kind::Sound,
        ]);
    }

    /// The map as `twcodec dump --format json` prints it, for the Python method `what`.
    fn json(&self, py: Python<'_>, what: &'static str) -> PyResult<String> {
        let map = self.map.read(py, what)?;
        let view =
            twcodec_tools::dump::MapView::new(&map, twcodec_tools::dump::DumpOptions::default());
        serde_json::to_string(&view).map_err(|e| PyValueError::new_err(e.to_string()))
    }
}

/// The name of a map form in Python.
fn form_name(form: MapForm) -> &'static str {
    match form {
        MapForm::Ddnet => "ddnet",
        MapForm::Teeworlds07 => "teeworlds07",
        MapForm::Teeworlds03 => "teeworlds03",
        // A form the codec adds later, until the bindings name it.
        _ => "other",
    }
}

fn load_options(py: Python<'_>, strict: bool, decode: &str) -> PyResult<LoadOptions> {
    let decode = match decode {
        "lazy" => Decode::Lazy,
        "layers" => Decode::Layers,
        "all" => Decode::All,
        other => {
            return Err(invalid_options(
                py,
                format!("decode is 'lazy', 'layers' or 'all', not {other:?}"),
            ))
        }
    };
    let mode = match strict {
        true => LoadMode::Strict,
        false => LoadMode::Lenient,
    };
    Ok(LoadOptions::default().mode(mode).decode(decode))
}

/// A zlib level for saving, checked by the library (0 to 9).
fn save_bytes(map: &Map, level: Option<u32>) -> Result<Vec<u8>, twcodec::Error> {
    match level {
        None => map.to_bytes(),
        Some(level) => map.to_bytes_with(level),
    }
}

/// What became of each image, sound or envelope of another map, as dicts: 'from', 'to',
/// 'name', 'how' ('added', 'shared' or 'renamed') and 'new_name' (None unless renamed).
fn merged_list<'py>(
    py: Python<'py>,
    merged: &[twcodec::map::edit::Merged],
) -> PyResult<Bound<'py, PyList>> {
    use twcodec::map::edit::Merge;
    let list = PyList::empty(py);
    for item in merged {
        let entry = PyDict::new(py);
        entry.set_item("from", item.from)?;
        entry.set_item("to", item.to)?;
        entry.set_item("name", &item.name)?;
        let (how, new_name) = match &item.how {
            Merge::Added => ("added", None),
            Merge::Shared => ("shared", None),
            Merge::Renamed(name) => ("renamed", Some(name.as_str())),
            // A way the library adds later.
            _ => ("other", None),
        };
        entry.set_item("how", how)?;
        entry.set_item("new_name", new_name)?;
        list.append(entry)?;
    }
    Ok(list)
}

#[pymethods]
impl PyMap {
    /// Reads a map file. `strict`: fail on the first error rather than keep it as a problem.
    /// `decode`: 'layers' (tiles, quads and sources at load, the default), 'lazy' (on first
    /// access) or 'all' (also image pixels and sound data).
    #[staticmethod]
    #[pyo3(signature = (path, *, strict = false, decode = "layers"))]
    fn load(py: Python<'_>, path: PathBuf, strict: bool, decode: &str) -> PyResult<PyMap> {
        let options = load_options(py, strict, decode)?;
        let map = py.detach(|| Map::open_with(&path, options)).or_raise()?;
        Ok(PyMap::new(map))
    }

    /// Reads a map from its bytes; the same options as `load`.
    #[staticmethod]
    #[pyo3(signature = (data, *, strict = false, decode = "layers"))]
    fn parse(py: Python<'_>, data: &[u8], strict: bool, decode: &str) -> PyResult<PyMap> {
        let options = load_options(py, strict, decode)?;
        let map = py.detach(|| Map::parse_with(data, options)).or_raise()?;
        Ok(PyMap::new(map))
    }

    /// The built-in sample map (`twcodec.sample()` parsed).
    #[staticmethod]
    fn sample() -> PyResult<PyMap> {
        Ok(PyMap::new(twcodec_testkit::sample::map().or_raise()?))
    }

    /// A copy of the map, with no arrays viewing it.
    fn copy(&self, py: Python<'_>) -> PyResult<PyMap> {
        let map = self.map.read(py, "Map.copy")?;
        Ok(PyMap::new(map.clone()))
    }

    /// 'ddnet', 'teeworlds07' or 'teeworlds03'.
    #[getter]
    fn form(&self, py: Python<'_>) -> PyResult<&'static str> {
        Ok(form_name(self.map.read(py, "Map.form")?.form()))
    }

    /// The version item's version (1), or None without one.
    #[getter]
    fn version(&self, py: Python<'_>) -> PyResult<Option<i32>> {
        Ok(self.map.read(py, "Map.version")?.version())
    }

    /// Author, version, credits, license and settings (DDNet), or None without an info item.
    #[getter]
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let (author, version, credits, license, settings) = {
            let map = self.map.read(py, "Map.info")?;
            let Some(info) = map.info() else {
                return Ok(None);
            };
            let settings = info.settings(&map).map(|s| s.to_vec());
            let (author, version) = (info.author(&map), info.map_version(&map));
            (
                author,
                version,
                info.credits(&map),
                info.license(&map),
                settings,
            )
        };
        let dict = PyDict::new(py);
        dict.set_item("author", author)?;
        dict.set_item("version", version)?;
        dict.set_item("credits", credits)?;
        dict.set_item("license", license)?;
        dict.set_item("settings", settings.or_raise()?)?;
        Ok(Some(dict))
    }

    /// What the resolver found: dicts with 'severity' ('warning' or 'error') and 'text'
    /// (`layer #3 (type 5, id 3): field `image` = 7 points past the 2 image items`).
    #[getter]
    fn problems<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let problems: Vec<(&str, String)> = (self.map.read(py, "Map.problems")?.problems())
            .iter()
            .map(|problem| match problem.severity {
                Severity::Warning => ("warning", problem.to_string()),
                Severity::Error => ("error", problem.to_string()),
            })
            .collect();
        let list = PyList::empty(py);
        for (severity, text) in problems {
            let dict = PyDict::new(py);
            dict.set_item("severity", severity)?;
            dict.set_item("text", text)?;
            list.append(dict)?;
        }
        Ok(list)
    }

    /// The groups, in file order.
    #[getter]
    fn groups(slf: &Bound<'_, Self>) -> PyResult<Vec<PyGroup>> {
        let count = (slf.get().map.read(slf.py(), "Map.groups")?).groups().len();
        Ok((0..count).map(|index| PyGroup::at(slf, index)).collect())
    }

    /// The layers, in file order (`twcodec dump` numbers them so).
    #[getter]
    fn layers(slf: &Bound<'_, Self>) -> PyResult<Vec<PyLayer>> {
        let count = (slf.get().map.read(slf.py(), "Map.layers")?).layers().len();
        Ok((0..count).map(|index| PyLayer::at(slf, index)).collect())
    }

    /// The game layer, or None.
    #[getter]
    fn game_layer(slf: &Bound<'_, Self>) -> PyResult<Option<PyLayer>> {
        let map = slf.get().map.read(slf.py(), "Map.game_layer")?;
        let index = map.game_layer().map(|(r, _)| r.index());
        Ok(index.map(|index| PyLayer::at(slf, index)))
    }

    /// The front layer (the last one, as the game layer), or None.
    #[getter]
    fn front_layer(slf: &Bound<'_, Self>) -> PyResult<Option<PyLayer>> {
        Self::last_layer(slf, "front")
    }

    /// The tele layer (the last one), or None.
    #[getter]
    fn tele_layer(slf: &Bound<'_, Self>) -> PyResult<Option<PyLayer>> {
        Self::last_layer(slf, "tele")
    }

    /// The speedup layer (the last one), or None.
    #[getter]
    fn speedup_layer(slf: &Bound<'_, Self>) -> PyResult<Option<PyLayer>> {
        Self::last_layer(slf, "speedup")
    }

    /// The switch layer (the last one), or None.
    #[getter]
    fn switch_layer(slf: &Bound<'_, Self>) -> PyResult<Option<PyLayer>> {
        Self::last_layer(slf, "switch")
    }

    /// The tune layer (the last one), or None.
    #[getter]
    fn tune_layer(slf: &Bound<'_, Self>) -> PyResult<Option<PyLayer>> {
        Self::last_layer(slf, "tune")
    }

    /// The images, in file order.
    #[getter]
    fn images(slf: &Bound<'_, Self>) -> PyResult<Vec<PyImage>> {
        let count = (slf.get().map.read(slf.py(), "Map.images")?).images().len();
        Ok((0..count).map(|index| PyImage::at(slf, index)).collect())
    }

    /// The envelopes, in file order.
    #[getter]
    fn envelopes(slf: &Bound<'_, Self>) -> PyResult<Vec<PyEnvelope>> {
        let count = (slf.get().map.read(slf.py(), "Map.envelopes")?)
            .envelopes()
            .len();
        Ok((0..count).map(|index| PyEnvelope::at(slf, index)).collect())
    }

    /// The sounds, in file order.
    #[getter]
    fn sounds(slf: &Bound<'_, Self>) -> PyResult<Vec<PySound>> {
        let count = (slf.get().map.read(slf.py(), "Map.sounds")?).sounds().len();
        Ok((0..count).map(|index| PySound::at(slf, index)).collect())
    }

    /// How many numpy arrays view the map's memory now (the map cannot be modified while any
    /// does). Answers while another thread uses the map.
    #[getter]
    fn views(&self) -> usize {
        self.views.count()
    }

    /// The map file's bytes. Unmodified, they are the bytes read; `level` (0 to 9) compresses
    /// every data item anew at that zlib level.
    #[pyo3(signature = (level = None))]
    fn to_bytes<'py>(&self, py: Python<'py>, level: Option<u32>) -> PyResult<Bound<'py, PyBytes>> {
        let map = self.map.read(py, "Map.to_bytes")?;
        let map = &*map;
        let bytes = py.detach(|| save_bytes(map, level)).or_raise()?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Writes the map file atomically; `level` as for `to_bytes`.
    #[pyo3(signature = (path, level = None))]
    fn save(&self, py: Python<'_>, path: PathBuf, level: Option<u32>) -> PyResult<()> {
        let map = self.map.read(py, "Map.save")?;
        let map = &*map;
        py.detach(|| match level {
            None => map.save(&path),
            Some(level) => map.save_with(&path, level),
        })
        .or_raise()
    }

    /// Makes the map smaller without changing how it looks or plays, as `twcodec optimize`
    /// does: the steps 'unused', 'shrink', 'cells', 'transparent', 'dilate', 'recompress'
    /// in order, all but those in `skip` (`keep_images` skips the three picture steps).
    /// Returns the report as a dict: 'bytes_before', 'bytes_after' and 'steps' (each 'step',
    /// 'changes' (lines), 'bytes' (the size after it)). With `dry_run` the map is left as it
    /// was. Save the result with `save(path, level=9)` (the recompress step is the saving). An
    /// unknown step or a level past 9 raises `twcodec.Error` and changes nothing.
    #[pyo3(signature = (*, skip = Vec::new(), keep_images = false, level = 9, dry_run = false))]
    fn optimize<'py>(
        &self,
        py: Python<'py>,
        skip: Vec<String>,
        keep_images: bool,
        level: u32,
        dry_run: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        use twcodec::map::edit::{OptimizeOptions, Step};
        let what = "Map.optimize";
        let mut options = OptimizeOptions::default().level(level).measure(true);
        if keep_images {
            options = options.keep_images();
        }
        for name in &skip {
            let Some(step) = Step::from_name(name) else {
                let names: Vec<&str> = Step::ALL.iter().map(|s| s.name()).collect();
                return Err(invalid_options(
                    py,
                    format!("skip names steps of {names:?}, not {name:?}"),
                ));
            };
            options = options.skip(step);
        }
        let report = if dry_run {
            let mut copy = self.map.read(py, what)?.clone();
            py.detach(|| copy.optimize(&options)).or_raise()?
        } else {
            let mut map = self.map.write(py, what)?;
            self.views.check_none("optimize the map")?;
            self.moved_items();
            let map = &mut *map;
            py.detach(|| map.optimize(&options)).or_raise()?
        };
        let dict = PyDict::new(py);
        dict.set_item("bytes_before", report.bytes_before)?;
        dict.set_item("bytes_after", report.bytes_after())?;
        let steps = PyList::empty(py);
        for step in &report.steps {
            let entry = PyDict::new(py);
            entry.set_item("step", step.step.name())?;
            entry.set_item("changes", &step.changes)?;
            entry.set_item("bytes", step.bytes)?;
            steps.append(entry)?;
        }
        dict.set_item("steps", steps)?;
        Ok(dict)
    }

    /// Converts the map in place to 'ddnet' or 'teeworlds07' (tilemap, image and envelope
    /// versions, skip-compressed tiles, bezier points); '0.7' is 'teeworlds07', as
    /// `twcodec resave --to` spells it. Other threads' calls on the map raise
    /// `twcodec.BusyError` until it is done.
    fn convert(&self, py: Python<'_>, form: &str) -> PyResult<()> {
        let form = match form {
            "ddnet" => MapForm::Ddnet,
            // `0.7`: the CLI's name (`resave --to`, cli/src/maps.rs `Target`).
            "teeworlds07" | "0.7" => MapForm::Teeworlds07,
            "teeworlds03" => MapForm::Teeworlds03,
            other => {
                return Err(invalid_options(
                    py,
                    format!("form is 'ddnet' or 'teeworlds07', not {other:?}"),
                ))
            }
        };
        let mut map = self.map.write(py, "Map.convert")?;
        self.views.check_none("convert the map")?;
        self.moved_items();
        let map = &mut *map;
        // The conversion notes are the CLI's to print; Python gets the converted map.
        py.detach(|| map.convert(form).map(drop)).or_raise()
    }

    /// Mirrors left-right (`mirror`), flips top-bottom (`flip`) and rotates clockwise by
    /// `rotate` degrees (0, 90, 180 or 270), in that order: every tile layer, the physics
    /// layers with the game's directions, quads, sound sources, group offsets, parallax and
    /// clips, and position envelopes. A step the map cannot take raises `twcodec.Error`
    /// (kind 'invalid_edit') and changes nothing.
    #[pyo3(signature = (mirror = false, flip = false, rotate = 0))]
    fn transform(&self, py: Python<'_>, mirror: bool, flip: bool, rotate: i32) -> PyResult<()> {
        let Some(rotation) = Transform::rotation(rotate) else {
            return Err(invalid_options(
                py,
                format!("rotate is 0, 90, 180 or 270 degrees, not {rotate}"),
            ));
        };
        let steps: Vec<Transform> = [
            mirror.then_some(Transform::MirrorX),
            flip.then_some(Transform::FlipY),
            rotation,
        ]
        .into_iter()
        .flatten()
        .collect();
        self.edit_whole(py, "Map.transform", |map| {
            steps.iter().try_for_each(|&step| map.transform(step))
        })
    }

    /// Crops or extends every tile layer of group `group` (default: the game group) by
    /// margins in tiles, positive adding and negative removing, keeping the world in place;
    /// see `twcodec::Map::reframe`.
    #[pyo3(signature = (left = 0, top = 0, right = 0, bottom = 0, *, group = None))]
    fn reframe(
        &self,
        py: Python<'_>,
        left: i32,
        top: i32,
        right: i32,
        bottom: i32,
        group: Option<usize>,
    ) -> PyResult<()> {
        let margins = Margins {
            left,
            top,
            right,
            bottom,
        };
        self.edit_whole(py, "Map.reframe", |map| {
            let group = chosen_group(map, group)?;
            map.reframe(group, margins)
        })
    }

    /// Crops every tile layer of group `group` (default: the game group) to `width` x
    /// `height` tiles from column `x`, row `y` of the group's frame, keeping the world in
    /// place.
    #[pyo3(signature = (x, y, width, height, *, group = None))]
    fn crop(
        &self,
        py: Python<'_>,
        x: i32,
        y: i32,
        width: i32,
        height: i32,
        group: Option<usize>,
    ) -> PyResult<()> {
        self.edit_whole(py, "Map.crop", |map| {
            let group = chosen_group(map, group)?;
            map.crop(group, x, y, width, height)
        })
    }

    /// Moves the tiles of group `group` (default: the game group) `dx` columns right and
    /// `dy` rows down inside their layers, which keep their size and place in the world.
    #[pyo3(signature = (dx, dy, *, group = None))]
    fn shift(&self, py: Python<'_>, dx: i32, dy: i32, group: Option<usize>) -> PyResult<()> {
        self.edit_whole(py, "Map.shift", |map| {
            let group = chosen_group(map, group)?;
            map.shift(group, dx, dy)
        })
    }

    /// Multiplies every envelope time by `factor` (2 plays them half as fast): point times,
    /// bezier time tangents, every envelope time offset and sound source delays.
    fn scale_time(&self, py: Python<'_>, factor: f64) -> PyResult<()> {
        self.edit_whole(py, "Map.scale_time", |map| map.scale_time(factor))
    }

    /// Draws the map as the game does, as an (height, width, 4) uint8 RGBA array; with
    /// `png=True` the PNG file's bytes instead. `path` also writes the PNG there. The options
    /// are `twcodec render`'s, in its units.
    ///
    /// Size: one of `width` (pixels; the default, 1920), `scale` (pixels per tile) or
    /// `size` ((width, height), the view fitted inside). View: the whole game layer, or
    /// `camera` = (x, y, zoom): the center in tiles and the zoom (1.0 sees what the game
    /// shows by default). `time` (seconds, as `--time`) or `time_ms` (milliseconds) evaluates
    /// envelopes; `entities` is True for the physics layers alone (`--entities`) or the
    /// percent of their opacity over the map (0 to 100, `--entities-overlay`); `layers` picks
    /// layers by index or name; `mapres` is the folder of external images,
    /// `entities_tileset` a 16x16 tile PNG; `background` is (r, g, b, a). A bad option raises
    /// an error that names it (`TypeError` for a wrong type, `twcodec.Error` for a wrong
    /// value). What could not be drawn as asked is a `twcodec.RenderWarning`. Each call
    /// reads and decodes its pictures anew; a `twcodec.Renderer` keeps them between renders.
    #[pyo3(signature = (*, width = None, scale = None, size = None, camera = None,
        time = None, time_ms = None, entities = None, detail = true, layers = None,
        mapres = None, entities_tileset = None, background = None, png = false, path = None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, one per render option.
    fn render<'py>(
        &self,
        py: Python<'py>,
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
        let args = crate::tools::RenderArgs {
            width,
            scale,
            size,
            camera,
            time,
            time_ms,
            entities,
            detail,
            layers,
            mapres,
            entities_tileset,
            background,
            png,
            path,
        };
        crate::tools::render(py, None, &self.map, "Map.render", args)
    }

    /// Writes the embedded images (PNG) and sounds (Opus) into `directory` (created when
    /// missing), each file atomically. `only`: 'all', 'images' or 'sounds'. Returns every
    /// asset as a dict: 'kind', 'index', 'name', 'file' (None for external ones, not written).
    #[pyo3(signature = (directory, only = "all"))]
    fn extract<'py>(
        &self,
        py: Python<'py>,
        directory: PathBuf,
        only: &str,
    ) -> PyResult<Bound<'py, PyList>> {
        use twcodec_tools::assets::{AssetKind, Only};
        let only = match only {
            "all" => Only::All,
            "images" => Only::Images,
            "sounds" => Only::Sounds,
            other => {
                return Err(invalid_options(
                    py,
                    format!("only is 'all', 'images' or 'sounds', not {other:?}"),
                ))
            }
        };
        let guard = self.map.read(py, "Map.extract")?;
        let map = &*guard;
        let assets = py
            .detach(|| twcodec_tools::assets::extract(map, &directory, only))
            .or_raise()?;
        drop(guard);
        let list = PyList::empty(py);
        for asset in assets {
            let dict = PyDict::new(py);
            let kind = match asset.kind {
                AssetKind::Image => "image",
                AssetKind::Sound => "sound",
            };
            dict.set_item("kind", kind)?;
            dict.set_item("index", asset.index)?;
            dict.set_item("name", asset.name)?;
            dict.set_item("file", asset.file)?;
            list.append(dict)?;
        }
        Ok(list)
    }

    /// Copies the area `from_area` = (x, y, width, height), in game-layer tiles, of `source`
    /// (a map of the same structure) into this map with its top-left tile at `to` = (x, y),
    /// as `twcodec replace-area` does: every tile layer (physics layers with their data),
    /// quads and sound sources in the area, and the envelopes they name. Returns the report
    /// as a dict: 'layers' (per layer: 'layer', 'kind', 'tiles', 'removed', 'added',
    /// 'changed'), 'envelopes' (see `append`) and 'facts' (the lines the CLI prints). An
    /// error (another structure, an area outside either map) changes nothing.
    fn replace_area<'py>(
        &self,
        py: Python<'py>,
        source: &Bound<'py, PyMap>,
        from_area: (u32, u32, u32, u32),
        to: (u32, u32),
    ) -> PyResult<Bound<'py, PyDict>> {
        let what = "Map.replace_area";
        // The same map as its own source: a copy of it, since the change locks it.
        let (copy, guard);
        let from: &Map = match std::ptr::eq(self, source.get()) {
            true => {
                copy = self.map.read(py, what)?.clone();
                &copy
            }
            false => {
                guard = source.get().map.read(py, what)?;
                &guard
            }
        };
        let mut map = self.map.write(py, what)?;
        self.views.check_none("replace an area of the map")?;
        self.moved_items();
        let map = &mut *map;
        let (x, y, width, height) = from_area;
        let area = twcodec::map::edit::TileRect::new(x, y, width, height);
        let report = py.detach(|| map.replace_area(from, area, to)).or_raise()?;
        let dict = PyDict::new(py);
        let layers = PyList::empty(py);
        for layer in &report.layers {
            let entry = PyDict::new(py);
            entry.set_item("layer", layer.layer)?;
            entry.set_item("kind", layer.kind)?;
            entry.set_item("tiles", layer.tiles)?;
            entry.set_item("removed", layer.removed)?;
            entry.set_item("added", layer.added)?;
            entry.set_item("changed", layer.changed)?;
            layers.append(entry)?;
        }
        dict.set_item("layers", layers)?;
        dict.set_item("envelopes", merged_list(py, &report.envelopes)?)?;
        dict.set_item("facts", report.facts())?;
        Ok(dict)
    }

    /// Appends `other` into this map, as `twcodec append` (and DDNet's editor) does: its
    /// images, sounds, envelopes and groups after this map's, identical ones shared, every
    /// reference renumbered; its physics layers dropped. Returns the report as a dict:
    /// 'images', 'sounds', 'envelopes' (each item of `other`: 'from', 'to', 'name', 'how' =
    /// 'added', 'shared' or 'renamed', 'new_name'), 'groups' ('from', 'to', 'name',
    /// 'layers', 'from_game_group'), 'dropped' ('layer', 'kind', 'name', 'reason'),
    /// 'automappers', 'settings_added', 'settings_present' and 'facts' (the lines the CLI
    /// prints). An error (more than 64 images or sounds) changes nothing.
    fn append<'py>(
        &self,
        py: Python<'py>,
        other: &Bound<'py, PyMap>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let what = "Map.append";
        // The same map appended to itself: a copy of it, since the change locks it.
        let (copy, guard);
        let other: &Map = match std::ptr::eq(self, other.get()) {
            true => {
                copy = self.map.read(py, what)?.clone();
                &copy
            }
            false => {
                guard = other.get().map.read(py, what)?;
                &guard
            }
        };
        let mut map = self.map.write(py, what)?;
        self.views.check_none("append to the map")?;
        self.moved_items();
        let map = &mut *map;
        let report = py.detach(|| map.append(other)).or_raise()?;
        let dict = PyDict::new(py);
        dict.set_item("images", merged_list(py, &report.images)?)?;
        dict.set_item("sounds", merged_list(py, &report.sounds)?)?;
        dict.set_item("envelopes", merged_list(py, &report.envelopes)?)?;
        let groups = PyList::empty(py);
        for group in &report.groups {
            let entry = PyDict::new(py);
            entry.set_item("from", group.from)?;
            entry.set_item("to", group.to)?;
            entry.set_item("name", &group.name)?;
            entry.set_item("layers", group.layers)?;
            entry.set_item("from_game_group", group.from_game_group)?;
            groups.append(entry)?;
        }
        dict.set_item("groups", groups)?;
        let dropped = PyList::empty(py);
        for layer in &report.dropped {
            let entry = PyDict::new(py);
            entry.set_item("layer", layer.layer)?;
            entry.set_item("kind", layer.kind)?;
            entry.set_item("name", &layer.name)?;
            entry.set_item("reason", &layer.reason)?;
            dropped.append(entry)?;
        }
        dict.set_item("dropped", dropped)?;
        dict.set_item("automappers", report.automappers)?;
        dict.set_item("settings_added", &report.settings_added)?;
        dict.set_item("settings_present", report.settings_present)?;
        dict.set_item("facts", report.facts())?;
        Ok(dict)
    }

    /// Runs DDNet's automapper as `twcodec automap` does: on layer `layer` (index or name)
    /// with configuration `config` (name or number) and `seed`, each from the layer's
    /// automapper item unless given, or without `layer` on every tiles layer whose automapper
    /// item is automatic with a seed. A layer drawn with image NAME runs
    /// `rules_dir/NAME.rules`. Returns a dict per layer: 'layer', 'name', 'config', 'seed',
    /// 'changed' (tiles), and 'skipped' (None, or the rules file that is missing, running
    /// every automatic layer). An error (a layer, configuration or rules file that is not
    /// there, a bad rules line, seed 0) changes nothing.
    #[pyo3(signature = (rules_dir, layer = None, config = None, seed = None))]
    fn automap<'py>(
        &self,
        py: Python<'py>,
        rules_dir: PathBuf,
        layer: Option<Bound<'py, PyAny>>,
        config: Option<Bound<'py, PyAny>>,
        seed: Option<u32>,
    ) -> PyResult<Bound<'py, PyList>> {
        use twcodec_tools::automap::{automap, AutomapOptions, Outcome};
        // Python objects are read before the map is locked: `__index__` runs Python code.
        let mut options = AutomapOptions::new(rules_dir);
        options.layer = layer.map(|l| spec(py, &l, "a layer")).transpose()?;
        options.config = config
            .map(|c| spec(py, &c, "a configuration"))
            .transpose()?;
        options.seed = seed;
        let mut map = self.map.write(py, "Map.automap")?;
        self.views.check_none("automap the map")?;
        let map = &mut *map;
        let outcomes = py.detach(|| automap(map, &options)).or_raise()?;
        let list = PyList::empty(py);
        for outcome in &outcomes {
            let entry = PyDict::new(py);
            entry.set_item("layer", outcome.layer)?;
            entry.set_item("name", &outcome.name)?;
            let (config, seed, changed, skipped) = match &outcome.outcome {
                Outcome::Ran(run) => (Some(run.config.as_str()), Some(run.seed), run.changed, None),
                Outcome::NoRules(path) => (None, None, 0, Some(path.display().to_string())),
                // An outcome the library adds later.
                _ => (None, None, 0, None),
            };
            entry.set_item("config", config)?;
            entry.set_item("seed", seed)?;
            entry.set_item("changed", changed)?;
            entry.set_item("skipped", skipped)?;
            list.append(entry)?;
        }
        Ok(list)
    }

    /// Makes game tiles from tiles layer `layer` (index or name) as DDNet's "Game tiles"
    /// button does: `op` ('air', 'hookable', 'death', 'unhookable', 'hookthrough',
    /// 'freeze', 'unfreeze', 'deep-freeze', 'deep-unfreeze', 'blue-check-tele',
    /// 'red-check-tele', 'live-freeze', 'live-unfreeze') under every non-empty tile, at the
    /// group's offset (see `twcodec::Map::fill_game_tiles`). Returns the report as a dict:
    /// 'layer', 'name', 'op', 'target' (the layer written, or None), 'target_kind',
    /// 'tiles', 'changed', 'front', 'enlarged' (((w, h), (new_w, new_h)) or None), 'added'
    /// ([(index, kind)]) and 'fact' (the line the CLI prints). An error changes nothing.
    fn fill_game_tiles<'py>(
        &self,
        py: Python<'py>,
        layer: Bound<'py, PyAny>,
        op: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let Some(op) = twcodec::map::GameTileOp::from_name(op) else {
            let names: Vec<&str> = (twcodec::map::GameTileOp::ALL.iter())
                .map(|op| op.name())
                .collect();
            return Err(invalid_options(
                py,
                format!("{op:?} is not a game tile op; one of {}", names.join(", ")),
            ));
        };
        let spec = spec(py, &layer, "a layer")?;
        let mut map = self.map.write(py, "Map.fill_game_tiles")?;
        self.views.check_none("make game tiles in the map")?;
        self.moved_items();
        let map = &mut *map;
        let report = py
            .detach(|| {
                let layer = map.find_layer(&spec)?;
                map.fill_game_tiles(layer, op)
            })
            .or_raise()?;
        let dict = PyDict::new(py);
        dict.set_item("layer", report.layer)?;
        dict.set_item("name", &report.name)?;
        dict.set_item("op", report.op.name())?;
        dict.set_item("target", report.target)?;
        dict.set_item("target_kind", report.target_kind)?;
        dict.set_item("tiles", report.tiles)?;
        dict.set_item("changed", report.changed)?;
        dict.set_item("front", report.front)?;
        dict.set_item("enlarged", report.enlarged)?;
        dict.set_item("added", &report.added)?;
        dict.set_item("fact", report.fact())?;
        Ok(dict)
    }

    /// Replaces tile `from_` by `to` in layer `layer` (index or name), or in `area` = (x, y,
    /// width, height) of its tiles, as `twcodec replace-tiles` does. `from_` and `to` are an
    /// id or (id, flags): `from_` without flags matches any flags, with flags that
    /// orientation only (x flip 1, y flip 2, rotate 8); `to` without flags keeps each
    /// tile's orientation, and air (0) without flags empties the tile. Tele, speedup, switch
    /// and tune layers match their type and keep numbers, forces and delays. Returns the
    /// report as a dict: 'layer', 'name', 'kind', 'area', 'replaced' and 'fact'. An error (a
    /// quads layer, an area out of the layer, flags on a layer without them) changes
    /// nothing.
    #[pyo3(signature = (layer, from_, to, area = None))]
    fn replace_tiles<'py>(
        &self,
        py: Python<'py>,
        layer: Bound<'py, PyAny>,
        from_: Bound<'py, PyAny>,
        to: Bound<'py, PyAny>,
        area: Option<(u32, u32, u32, u32)>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let spec = spec(py, &layer, "a layer")?;
        let (from, to) = (tile_spec(py, &from_, "from_")?, tile_spec(py, &to, "to")?);
        let area = area.map(|(x, y, w, h)| twcodec::map::edit::TileRect::new(x, y, w, h));
        let mut map = self.map.write(py, "Map.replace_tiles")?;
        self.views.check_none("replace tiles of the map")?;
        let map = &mut *map;
        let report = py
            .detach(|| {
                let layer = map.find_layer(&spec)?;
                map.replace_tiles(layer, from, to, area)
            })
            .or_raise()?;
        let dict = PyDict::new(py);
        dict.set_item("layer", report.layer)?;
        dict.set_item("name", &report.name)?;
        dict.set_item("kind", report.kind)?;
        let a = report.area;
        dict.set_item("area", (a.x, a.y, a.width, a.height))?;
        dict.set_item("replaced", report.replaced)?;
        dict.set_item("fact", report.fact())?;
        Ok(dict)
    }

    /// The map as `twcodec dump --format json` prints it, as a JSON string.
    fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        self.json(py, "Map.to_json")
    }

    /// The map as `twcodec dump --format json` prints it, as Python dicts and lists.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // JSON text under the lock, Python objects after it.
        let json = self.json(py, "Map.to_dict")?;
        crate::json_to_python(py, &json)
    }

    /// What `twcodec check` finds, as a list of dicts ('check', 'severity', 'message', and
    /// 'layer' and 'tiles' when it is about them): what the reader finds (check 'load'), with
    /// `ddnet` the gameplay checks, with `rules` (a TOML rules file's path) the project's rules
    /// and severities (docs/checks.md; `max-file-size` is not checked on a map in memory). A
    /// bad rules file raises `twcodec.Error`.
    #[pyo3(signature = (*, ddnet = true, rules = None))]
    fn check<'py>(
        &self,
        py: Python<'py>,
        ddnet: bool,
        rules: Option<PathBuf>,
    ) -> PyResult<Bound<'py, PyAny>> {
        use twcodec_tools::check;
        let rules = match rules {
            Some(path) => {
                let max = twcodec::Limits::default().max_file_size();
                let bytes =
                    twcodec::input::read_file(&path, max, "Limits::max_file_size").or_raise()?;
                let text = String::from_utf8_lossy(&bytes);
                Some(check::rules::RuleSet::parse(&text, &path.display().to_string()).or_raise()?)
            }
            None => None,
        };
        let guard = self.map.read(py, "Map.check")?;
        let map = &*guard;
        let findings = py.detach(|| {
            let mut findings = check::load_findings(map);
            if ddnet || rules.as_ref().is_some_and(check::rules::RuleSet::ddnet) {
                findings.extend(check::ddnet::check(map));
            }
            if let Some(rules) = &rules {
                findings = rules.apply_severity(findings);
                findings.extend(rules.check(map, None));
            }
            findings
        });
        drop(guard);
        crate::to_python(py, &findings)
    }

    /// A DDNet map from nothing: an empty info and a group "Game" holding a `width` x `height`
    /// game layer of air (at least 2 x 2). Add groups, layers, images and a spawn, then save.
    #[staticmethod]
    #[pyo3(name = "new", signature = (width = 100, height = 50))]
    fn new_map(py: Python<'_>, width: usize, height: usize) -> PyResult<PyMap> {
        let map = py.detach(|| Map::new(width, height)).or_raise()?;
        Ok(PyMap::new(map))
    }

    /// Sets the info texts given ('' removes one; a field not given is kept): `author`,
    /// `version`, `credits`, `license`. Longer than DDNet keeps (31, 15, 127, 31 bytes) raises
    /// `twcodec.Error` naming the field, and changes nothing.
    #[pyo3(signature = (*, author = None, version = None, credits = None, license = None))]
    fn set_info(
        &self,
        py: Python<'_>,
        author: Option<String>,
        version: Option<String>,
        credits: Option<String>,
        license: Option<String>,
    ) -> PyResult<()> {
        use twcodec::map::edit::InfoField;
        let fields = [
            (InfoField::Author, author),
            (InfoField::Version, version),
            (InfoField::Credits, credits),
            (InfoField::License, license),
        ];
        self.edit_fields(py, "Map.set_info", move |map| {
            for (field, text) in fields {
                if let Some(text) = text {
                    map.set_info(field, Some(&text))?;
                }
            }
            Ok(())
        })
    }

    /// Sets DDNet's server settings (a list of commands, as `info['settings']` lists them); an
    /// empty list removes them.
    fn set_settings(&self, py: Python<'_>, settings: Vec<String>) -> PyResult<()> {
        self.edit_fields(py, "Map.set_settings", move |map| {
            map.set_settings(&settings)
        })
    }

    /// Adds a group (at the end, drawn in front, or at position `at`): the new `Group`.
    /// Handles made before it are gone (get them from the map again).
    #[pyo3(signature = (name, *, offset = (0, 0), parallax = (100, 100), clip = None, at = None))]
    fn add_group(
        slf: &Bound<'_, Self>,
        name: String,
        offset: (i32, i32),
        parallax: (i32, i32),
        clip: Option<(i32, i32, i32, i32)>,
        at: Option<usize>,
    ) -> PyResult<PyGroup> {
        use twcodec::map::NewGroup;
        use twcodec::schema::map::Point;
        let this = slf.get();
        let index = this.edit_items(
            slf.py(),
            "Map.add_group",
            if at.is_some() { &[Kind::Group] } else { &[] },
            move |map| {
                let mut group = NewGroup::new(name);
                group.offset = Point {
                    x: offset.0,
                    y: offset.1,
                };
                group.parallax = Point {
                    x: parallax.0,
                    y: parallax.1,
                };
                let at = at.unwrap_or(map.groups().len());
                let r = map.insert_group(at, group)?;
                // A clip the map cannot hold takes the new group out again: a failed call
                // changes nothing.
                if let Err(error) = clip.map_or(Ok(()), |_| map.set_group_clip(r, clip)) {
                    map.remove_group(r)?;
                    return Err(error);
                }
                Ok(r.index())
            },
        )?;
        Ok(PyGroup::at(slf, index))
    }

    /// Removes a group with its layers, renumbering every reference.
    fn remove_group(slf: &Bound<'_, Self>, group: &Bound<'_, PyGroup>) -> PyResult<()> {
        let index = handle_index(slf, group)?;
        slf.get().edit_items(
            slf.py(),
            "Map.remove_group",
            &[Kind::Group, Kind::Layer],
            move |map| {
                let r = item_at::<Group>(map, index)?;
                map.remove_group(r)
            },
        )
    }

    /// Adds a layer at the end of `group`: `kind` one of 'tiles', 'game', 'front', 'tele',
    /// 'speedup', 'switch', 'tune', 'quads', 'sounds'. A tiles layer is `width` x `height`
    /// tiles of air (default: the game layer's size); physics layers are the game layer's
    /// size and go in the game group, as DDNet needs. The new `Layer`.
    #[pyo3(signature = (group, kind, name = None, *, width = None, height = None))]
    fn add_layer(
        slf: &Bound<'_, Self>,
        group: &Bound<'_, PyGroup>,
        kind: &str,
        name: Option<String>,
        width: Option<usize>,
        height: Option<usize>,
    ) -> PyResult<PyLayer> {
        let py = slf.py();
        let group_index = handle_index(slf, group)?;
        let kind = kind.to_string();
        let this = slf.get();
        let index = this.edit_items(py, "Map.add_layer", &[Kind::Layer], move |map| {
            let group = item_at::<Group>(map, group_index)?;
            let layer = new_layer(map, &kind, name.as_deref(), width, height)?;
            Ok(map.add_layer(group, layer)?.index())
        })?;
        Ok(PyLayer::at(slf, index))
    }

    /// Removes a layer, renumbering every reference (auto-mapper configurations too).
    fn remove_layer(slf: &Bound<'_, Self>, layer: &Bound<'_, PyLayer>) -> PyResult<()> {
        let index = handle_index(slf, layer)?;
        slf.get()
            .edit_items(slf.py(), "Map.remove_layer", &[Kind::Layer], move |map| {
                let r = item_at::<Layer>(map, index)?;
                map.remove_layer(r)
            })
    }

    /// Adds an external image (one of the client's own pictures, by name): the new `Image`.
    fn add_external_image(slf: &Bound<'_, Self>, name: String) -> PyResult<PyImage> {
        let this = slf.get();
        let index = this.edit_items(slf.py(), "Map.add_external_image", &[], move |map| {
            Ok(map.add_external_image(&name)?.index())
        })?;
        Ok(PyImage::at(slf, index))
    }

    /// Adds an embedded image: the new `Image`. `pixels` is a uint8 RGBA array of shape
    /// (height, width, 4), a PNG file's bytes, or a PNG file's path (any PNG color type, read
    /// as RGBA).
    fn add_embedded_image(
        slf: &Bound<'_, Self>,
        name: String,
        pixels: Bound<'_, PyAny>,
    ) -> PyResult<PyImage> {
        let (width, height, rgba) = edit::picture(slf.py(), &pixels)?;
        let this = slf.get();
        let index = this.edit_items(slf.py(), "Map.add_embedded_image", &[], move |map| {
            Ok(map.add_embedded_image(&name, width, height, rgba)?.index())
        })?;
        Ok(PyImage::at(slf, index))
    }

    /// Removes an image; layers drawn with it are drawn without one.
    fn remove_image(slf: &Bound<'_, Self>, image: &Bound<'_, PyImage>) -> PyResult<()> {
        let index = handle_index(slf, image)?;
        slf.get()
            .edit_items(slf.py(), "Map.remove_image", &[Kind::Image], move |map| {
                let r = item_at::<twcodec::map::Image>(map, index)?;
                map.remove_image(r)
            })
    }

    /// Moves a group to position `to` among the groups (0 is drawn first), its layers with
    /// it: the moved `Group`. Group and layer handles made before are gone.
    fn move_group(
        slf: &Bound<'_, Self>,
        group: &Bound<'_, PyGroup>,
        to: usize,
    ) -> PyResult<PyGroup> {
        let index = handle_index(slf, group)?;
        let this = slf.get();
        let len = this.map.read(slf.py(), "Map.move_group")?.groups().len();
        past_the_end(len, to, "group").or_raise()?;
        let index = this.edit_items(
            slf.py(),
            "Map.move_group",
            &[Kind::Group, Kind::Layer],
            move |map| {
                let r = item_at::<Group>(map, index)?;
                Ok(map.move_group(r, to)?.index())
            },
        )?;
        Ok(PyGroup::at(slf, index))
    }

    /// Moves a layer to position `at` among the layers of `group` (counted without it; None:
    /// the end), its auto-mapper configuration with it: the moved `Layer`. Physics layers stay
    /// in the game group. Layer handles made before are gone.
    #[pyo3(signature = (layer, group, at = None))]
    fn move_layer(
        slf: &Bound<'_, Self>,
        layer: &Bound<'_, PyLayer>,
        group: &Bound<'_, PyGroup>,
        at: Option<usize>,
    ) -> PyResult<PyLayer> {
        let py = slf.py();
        let layer_index = handle_index(slf, layer)?;
        let group_index = handle_index(slf, group)?;
        let this = slf.get();
        let index = this.edit_items(py, "Map.move_layer", &[Kind::Layer], move |map| {
            let layer = item_at::<Layer>(map, layer_index)?;
            let group = item_at::<Group>(map, group_index)?;
            let at = at.unwrap_or_else(|| {
                (map.refs::<Layer>())
                    .filter(|&other| other.index() != layer_index)
                    .filter(|&other| map.group_of(other).map(|g| g.index()) == Some(group_index))
                    .count()
            });
            Ok(map.move_layer(layer, group, at)?.index())
        })?;
        Ok(PyLayer::at(slf, index))
    }

    /// Moves an image to position `to` among the images; every layer drawn with an image
    /// keeps drawing it: the moved `Image`. Image handles made before are gone.
    fn move_image(
        slf: &Bound<'_, Self>,
        image: &Bound<'_, PyImage>,
        to: usize,
    ) -> PyResult<PyImage> {
        let index = handle_index(slf, image)?;
        let this = slf.get();
        let len = this.map.read(slf.py(), "Map.move_image")?.images().len();
        past_the_end(len, to, "image").or_raise()?;
        let index = this.edit_items(slf.py(), "Map.move_image", &[Kind::Image], move |map| {
            let r = item_at::<twcodec::map::Image>(map, index)?;
            Ok(map.move_image(r, to)?.index())
        })?;
        Ok(PyImage::at(slf, index))
    }

    /// Adds an envelope of `kind` ('position', 'color' or 'sound') named `name` (at most 31
    /// bytes): the new `Envelope`. `points` and `bezier` as `Envelope.set_points` takes them;
    /// `synchronized`: whether it follows the server's clock. `at` puts it at that position
    /// among the envelopes (every reference follows its envelope; envelope handles made
    /// before are gone), else it goes at the end. Bad points raise `twcodec.Error` naming the
    /// point and field, and change nothing.
    #[pyo3(signature = (kind, name = String::new(), points = None, *, bezier = None, synchronized = false, at = None))]
    #[allow(clippy::too_many_arguments)]
    fn add_envelope(
        slf: &Bound<'_, Self>,
        kind: &str,
        name: String,
        points: Option<Bound<'_, PyAny>>,
        bezier: Option<Bound<'_, PyAny>>,
        synchronized: bool,
        at: Option<usize>,
    ) -> PyResult<PyEnvelope> {
        use twcodec::map::NewEnvelope;
        let py = slf.py();
        let kind = edit::envelope_kind(py, kind)?;
        let points = match points {
            Some(points) => edit::points(py, kind, &points)?,
            None => Vec::new(),
        };
        let tangents = bezier.map(|b| edit::tangents(py, &b)).transpose()?;
        let this = slf.get();
        // A position past the end is refused before the edit, which would make the handles
        // of envelopes stale even when it fails.
        let check = |len: usize| match at {
            Some(at) if at > len => Err(twcodec::Error::invalid_edit(format!(
                "field `at` = {at}: the map has {len} envelopes"
            ))),
            _ => Ok(()),
        };
        check(this.map.read(py, "Map.add_envelope")?.envelopes().len()).or_raise()?;
        let moves: &[Kind] = if at.is_some() { &[Kind::Envelope] } else { &[] };
        let index = this.edit_items(py, "Map.add_envelope", moves, move |map| {
            let len = map.envelopes().len();
            check(len)?;
            let r = map.add_envelope(NewEnvelope {
                kind,
                name,
                points,
                tangents,
                synchronized,
            })?;
            match at {
                Some(at) if at < len => Ok(map.move_envelope(r, at)?.index()),
                _ => Ok(r.index()),
            }
        })?;
        Ok(PyEnvelope::at(slf, index))
    }

    /// Removes an envelope: every reference to it (layers, quads, sources) becomes none, later
    /// envelopes' references shift down. Envelope handles made before are gone.
    fn remove_envelope(slf: &Bound<'_, Self>, envelope: &Bound<'_, PyEnvelope>) -> PyResult<()> {
        let index = handle_index(slf, envelope)?;
        slf.get().edit_items(
            slf.py(),
            "Map.remove_envelope",
            &[Kind::Envelope],
            move |map| {
                let r = item_at::<twcodec::map::Envelope>(map, index)?;
                map.remove_envelope(r)
            },
        )
    }

    /// Moves an envelope to position `to` among the envelopes; every reference follows it:
    /// the moved `Envelope`. Envelope handles made before are gone.
    fn move_envelope(
        slf: &Bound<'_, Self>,
        envelope: &Bound<'_, PyEnvelope>,
        to: usize,
    ) -> PyResult<PyEnvelope> {
        let index = handle_index(slf, envelope)?;
        let this = slf.get();
        let len = this
            .map
            .read(slf.py(), "Map.move_envelope")?
            .envelopes()
            .len();
        past_the_end(len, to, "envelope").or_raise()?;
        let index = this.edit_items(
            slf.py(),
            "Map.move_envelope",
            &[Kind::Envelope],
            move |map| {
                let r = item_at::<twcodec::map::Envelope>(map, index)?;
                Ok(map.move_envelope(r, to)?.index())
            },
        )?;
        Ok(PyEnvelope::at(slf, index))
    }

    /// Adds a sound (DDNet) named `name` from an Ogg Opus file's bytes, checked as the game
    /// plays them: the new `Sound`. Play it with a sounds layer (`Layer.sound`).
    fn add_sound(slf: &Bound<'_, Self>, name: String, data: Vec<u8>) -> PyResult<PySound> {
        let py = slf.py();
        py.detach(|| twcodec_tools::assets::check_opus(&data))
            .or_raise()?;
        let this = slf.get();
        let index = this.edit_items(py, "Map.add_sound", &[], move |map| {
            Ok(map.add_sound(&name, data)?.index())
        })?;
        Ok(PySound::at(slf, index))
    }

    /// Removes a sound: sounds layers playing it play none, later sounds' references shift
    /// down. Sound handles made before are gone.
    fn remove_sound(slf: &Bound<'_, Self>, sound: &Bound<'_, PySound>) -> PyResult<()> {
        let index = handle_index(slf, sound)?;
        slf.get()
            .edit_items(slf.py(), "Map.remove_sound", &[Kind::Sound], move |map| {
                let r = item_at::<twcodec::map::Sound>(map, index)?;
                map.remove_sound(r)
            })
    }

    /// Moves a sound to position `to` among the sounds; sounds layers keep playing it: the
    /// moved `Sound`. Sound handles made before are gone.
    fn move_sound(
        slf: &Bound<'_, Self>,
        sound: &Bound<'_, PySound>,
        to: usize,
    ) -> PyResult<PySound> {
        let index = handle_index(slf, sound)?;
        let this = slf.get();
        let len = this.map.read(slf.py(), "Map.move_sound")?.sounds().len();
        past_the_end(len, to, "sound").or_raise()?;
        let index = this.edit_items(slf.py(), "Map.move_sound", &[Kind::Sound], move |map| {
            let r = item_at::<twcodec::map::Sound>(map, index)?;
            Ok(map.move_sound(r, to)?.index())
        })?;
        Ok(PySound::at(slf, index))
    }

    /// What the map holds; while another thread changes it, who does (a repr does not raise).
    fn __repr__(&self) -> String {
        let Some(map) = self.map.try_read("Map.__repr__") else {
            return format!("<twcodec.Map ({})>", self.map.in_use());
        };
        format!(
            "<twcodec.Map {}: {} groups, {} layers, {} images, {} envelopes, {} sounds>",
            form_name(map.form()),
            map.groups().len(),
            map.layers().len(),
            map.images().len(),
            map.envelopes().len(),
            map.sounds().len()
        )
    }

    /// The differences from this map (old) to `other` (new), as `twcodec diff` finds them:
    /// a `twcodec.Diff`. `other` is a Map, or the path of a map file or of a directory
    /// `unpack` wrote (read lazily, as the command reads either).
    fn diff(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<crate::tools::PyDiff> {
        if let Ok(other) = other.cast::<PyMap>() {
            let other = other.get();
            let same = std::ptr::eq(self, other);
            let new = (!same).then_some(&other.map);
            return crate::tools::diff(py, &self.map, new, None);
        }
        let path: PathBuf =
            other.extract().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err(format!(
                "other is a twcodec.Map or the path of a map file or unpacked directory, not {}",
                other.get_type().name().map(|n| n.to_string()).unwrap_or_default()
            ))
            })?;
        crate::tools::diff(py, &self.map, None, Some(path))
    }

    /// Writes the map as a directory to read, edit and review, as `twcodec unpack` does
    /// (docs/mapdir.md): items as TOML, pictures as PNG, sounds as Opus, tiles as text.
    /// `directory` must be new or empty. `Map.pack` builds the map back, the same bytes as
    /// `to_bytes()` when nothing was changed. Returns what was written, as a dict: 'items',
    /// 'data' (files) and 'raw' (data files kept as raw bytes).
    fn unpack<'py>(&self, py: Python<'py>, directory: PathBuf) -> PyResult<Bound<'py, PyDict>> {
        crate::tools::unpack(py, &self.map, directory)
    }

    /// Builds the map a directory describes, as `twcodec pack` does: one `unpack` wrote (and
    /// someone edited). An error in the directory names the file (and the line) and builds
    /// nothing. What followed from a deletion (a reference that became none) is a
    /// `twcodec.PackWarning`. `strict` and `decode` as `Map.load`.
    #[staticmethod]
    #[pyo3(signature = (directory, *, strict = false, decode = "layers"))]
    fn pack(py: Python<'_>, directory: PathBuf, strict: bool, decode: &str) -> PyResult<PyMap> {
        let options = load_options(py, strict, decode)?;
        crate::tools::pack(py, directory, options)
    }

    /// Embeds every external image from the picture of its name in `mapres` (`NAME.png`;
    /// default `$TWCODEC_MAPRES`), as `twcodec embed` does: the image keeps its name and
    /// place, so the map draws the same everywhere. An image whose picture is missing or does
    /// not load stays external; with `strict`, that is an error and nothing changes. Returns
    /// a dict: 'embedded' ('index', 'name', 'file', 'width', 'height'), 'left_external'
    /// ('index', 'name', 'reason') and 'warnings'.
    #[pyo3(signature = (mapres = None, *, strict = false))]
    fn embed<'py>(
        &self,
        py: Python<'py>,
        mapres: Option<PathBuf>,
        strict: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mapres = crate::tools::mapres_dir(py, mapres)?;
        let mut report = None;
        self.edit_fields(py, "Map.embed", |map| {
            let embedding = twcodec_tools::assets::embed(map, &mapres)?;
            if strict {
                embedding.require_all()?;
            }
            report = Some(embedding);
            Ok(())
        })?;
        match report {
            Some(embedding) => crate::tools::embedding_dict(py, &embedding),
            None => Err(PyValueError::new_err("Map.embed: no report")),
        }
    }
}

/// A layer or configuration given by index (0 or more) or by name, as the library's text.
fn spec(py: Python<'_>, value: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    match (value.extract::<usize>(), value.extract::<String>()) {
        (Ok(index), _) => Ok(index.to_string()),
        (_, Ok(name)) => Ok(name),
        _ => Err(invalid_options(
            py,
            format!("{what} is given by index (0 or more) or by name, not {value:?}"),
        )),
    }
}

/// A tile to look for or write: an id, or (id, flags).
fn tile_spec(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    what: &str,
) -> PyResult<twcodec::map::TileSpec> {
    use twcodec::map::TileSpec;
    match (value.extract::<u8>(), value.extract::<(u8, u8)>()) {
        (Ok(id), _) => Ok(TileSpec::new(id)),
        (_, Ok((id, flags))) => Ok(TileSpec::new(id).with_flags(flags)),
        _ => Err(invalid_options(
            py,
            format!("{what} is a tile id (0 to 255) or (id, flags), not {value:?}"),
        )),
    }
}

/// The repr of a part while another thread changes its map (a repr does not raise), or None
/// when the map is free.
fn busy_repr(map: &Py<PyMap>, kind: &str, index: usize) -> Option<String> {
    let shared = &map.get().map;
    match shared.try_read("__repr__") {
        Some(_) => None,
        None => Some(format!("<twcodec.{kind} #{index} ({})>", shared.in_use())),
    }
}

/// The error of a handle whose item is gone (cannot happen while the bindings remove
/// nothing; kept so that no index is trusted).
fn gone(what: &str, index: usize) -> PyErr {
    PyIndexError::new_err(format!(
        "{what} #{index} is gone: the map's items were added, removed or moved since this \
         object was made (get it from the map again)"
    ))
}

/// What `Group.offset` and `Group.parallax` take.
const POINT: &str = "(x, y), two ints of 32 bits";

/// A handle of one item of a map: whether it was made since the map's last edit that moved
/// items of its kind, and the item it names.
trait Fresh {
    /// The item's kind in messages: "group", "layer", ...
    const WHAT: &'static str;
    fn fresh(&self) -> bool;
    fn owner(&self) -> &Py<PyMap>;
    fn position(&self) -> usize;
}

macro_rules! fresh {
    ($($handle:ty: $what:literal),*) => {$(
        impl Fresh for $handle {
            const WHAT: &'static str = $what;
            fn fresh(&self) -> bool {
                self.map.get().generation(<$handle>::KIND) == self.generation
            }
            fn owner(&self) -> &Py<PyMap> {
                &self.map
            }
            fn position(&self) -> usize {
                self.index
            }
        }
    )*};
}

fresh!(PyGroup: "group", PyLayer: "layer", PyImage: "image", PyEnvelope: "envelope", PySound: "sound");

/// Each handle's kind, and its constructor: item `index` of `map`, as of the map's last edit
/// that moved items of that kind.
macro_rules! handle {
    ($($handle:ident: $kind:ident),*) => {$(
        impl $handle {
            const KIND: Kind = Kind::$kind;

            fn at(map: &Bound<'_, PyMap>, index: usize) -> $handle {
                $handle {
                    map: map.clone().unbind(),
                    generation: map.get().generation(Kind::$kind),
                    index,
                }
            }
        }
    )*};
}

handle!(PyGroup: Group, PyLayer: Layer, PyImage: Image, PyEnvelope: Envelope, PySound: Sound);

/// A group of layers (`twcodec::map::Group`).
#[pyclass(name = "Group", module = "twcodec", frozen)]
pub(crate) struct PyGroup {
    map: Py<PyMap>,
    /// The map\'s generation when the handle was made ([`PyMap::moved_items`]).
    generation: u64,
    /// Index among the map's groups.
    #[pyo3(get)]
    index: usize,
}

impl PyGroup {
    /// Changes a field of the group (through the map's lock; handles stay valid).
    fn edit(
        &self,
        py: Python<'_>,
        what: &'static str,
        f: impl FnOnce(&mut Map, ItemRef<Group>) -> Result<(), twcodec::Error> + Send,
    ) -> PyResult<()> {
        if !self.fresh() {
            return Err(gone("group", self.index));
        }
        let index = self.index;
        self.map.get().edit_fields(py, what, move |map| {
            let r = item_at::<Group>(map, index)?;
            f(map, r)
        })
    }

    fn with<R>(
        &self,
        py: Python<'_>,
        what: &'static str,
        f: impl FnOnce(&Map, &twcodec::map::Group) -> R,
    ) -> PyResult<R> {
        let map = self.map.get().map.read(py, what)?;
        let group = (map.groups().get(self.index).filter(|_| self.fresh()))
            .ok_or_else(|| gone("group", self.index))?;
        Ok(f(&map, group))
    }
}

#[pymethods]
impl PyGroup {
    /// The name ('' when the group has none).
    #[getter]
    fn name(&self, py: Python<'_>) -> PyResult<String> {
        self.with(py, "Group.name", |_, g| g.name())
    }

    /// Offset in world units, (x, y).
    #[getter]
    fn offset(&self, py: Python<'_>) -> PyResult<(i32, i32)> {
        self.with(py, "Group.offset", |_, g| {
            (g.item().offset.x, g.item().offset.y)
        })
    }

    /// Parallax in percent, (x, y).
    #[getter]
    fn parallax(&self, py: Python<'_>) -> PyResult<(i32, i32)> {
        self.with(py, "Group.parallax", |_, g| {
            (g.item().parallax.x, g.item().parallax.y)
        })
    }

    /// The clipping rectangle (x, y, width, height) when clipping is on, else None.
    #[getter]
    fn clip(&self, py: Python<'_>) -> PyResult<Option<(i32, i32, i32, i32)>> {
        self.with(py, "Group.clip", |_, g| {
            (g.item().clip)
                .filter(|c| c.enabled != 0)
                .map(|c| (c.x, c.y, c.width, c.height))
        })
    }

    #[setter]
    fn set_name(&self, py: Python<'_>, name: Bound<'_, PyAny>) -> PyResult<()> {
        let name: String = field(&name, "Group.name", "a str")?;
        self.edit(py, "Group.name", move |map, r| map.set_group_name(r, &name))
    }

    #[setter]
    fn set_offset(&self, py: Python<'_>, offset: Bound<'_, PyAny>) -> PyResult<()> {
        let offset: (i32, i32) = field(&offset, "Group.offset", POINT)?;
        let offset = twcodec::schema::map::Point {
            x: offset.0,
            y: offset.1,
        };
        self.edit(py, "Group.offset", move |map, r| {
            map.set_group_offset(r, offset)
        })
    }

    #[setter]
    fn set_parallax(&self, py: Python<'_>, parallax: Bound<'_, PyAny>) -> PyResult<()> {
        let parallax: (i32, i32) = field(&parallax, "Group.parallax", POINT)?;
        let parallax = twcodec::schema::map::Point {
            x: parallax.0,
            y: parallax.1,
        };
        self.edit(py, "Group.parallax", move |map, r| {
            map.set_group_parallax(r, parallax)
        })
    }

    #[setter]
    fn set_clip(&self, py: Python<'_>, clip: Bound<'_, PyAny>) -> PyResult<()> {
        let clip: Option<(i32, i32, i32, i32)> = field(
            &clip,
            "Group.clip",
            "(x, y, width, height), four ints of 32 bits, or None",
        )?;
        self.edit(py, "Group.clip", move |map, r| map.set_group_clip(r, clip))
    }

    /// The group's layers.
    #[getter]
    fn layers(&self, py: Python<'_>) -> PyResult<Vec<PyLayer>> {
        let indices: Vec<usize> = self.with(py, "Group.layers", |map, g| {
            g.layers(map).map(|r| r.index()).collect()
        })?;
        let map = self.map.bind(py);
        Ok(indices.into_iter().map(|i| PyLayer::at(map, i)).collect())
    }

    /// The group item as stored (`twcodec dump` field names).
    #[getter]
    fn item<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let item = self.with(py, "Group.item", |_, g| g.item().clone())?;
        crate::to_python(py, &item)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        if let Some(repr) = busy_repr(&self.map, "Group", self.index) {
            return Ok(repr);
        }
        let name = self.name(py)?;
        Ok(format!("<twcodec.Group #{} {name:?}>", self.index))
    }
}

/// The field names and numpy types of each tile kind's bytes (`twcodec::schema::map::tile`).
type Fields = &'static [(&'static str, &'static str)];
const TILE: Fields = &[
    ("id", "u1"),
    ("flags", "u1"),
    ("skip", "u1"),
    ("reserved", "u1"),
];
const TELE: Fields = &[("number", "u1"), ("id", "u1")];
const SPEEDUP: Fields = &[
    ("force", "u1"),
    ("max_speed", "u1"),
    ("id", "u1"),
    ("reserved", "u1"),
    ("angle", "<i2"),
];
const SWITCH: Fields = &[
    ("number", "u1"),
    ("id", "u1"),
    ("flags", "u1"),
    ("delay", "u1"),
];
const TUNE: Fields = &[("number", "u1"), ("id", "u1")];

/// A tile layer's grid as bytes.
struct TileBytes<'m> {
    bytes: &'m [u8],
    height: usize,
    width: usize,
    tile_size: usize,
    fields: Fields,
}

/// The grid of a tile layer of any kind: `None` for other layers, `Some(None)` when its data
/// is missing or the wrong size (a problem says which).
fn tile_bytes(content: &LayerContent) -> Option<Option<TileBytes<'_>>> {
    fn of<T: TileKind>(tiles: &TilesLayer<T>, fields: Fields) -> Option<TileBytes<'_>> {
        tiles.grid().map(|grid| TileBytes {
            bytes: tiles_as_bytes(grid.tiles()),
            height: grid.height(),
            width: grid.width(),
            tile_size: std::mem::size_of::<T>(),
            fields,
        })
    }
    Some(match content {
        LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => of(t, TILE),
        LayerContent::Tele(t) => of(t, TELE),
        LayerContent::Speedup(t) => of(t, SPEEDUP),
        LayerContent::Switch(t) => of(t, SWITCH),
        LayerContent::Tune(t) => of(t, TUNE),
        _ => return None,
    })
}

/// Copies `bytes` (whole tiles of the layer's kind, as many as the grid has) over the grid.
fn set_tile_bytes(content: &mut LayerContent, bytes: &[u8]) -> Result<(), String> {
    fn set<T: TileKind>(tiles: &mut TilesLayer<T>, bytes: &[u8]) -> Result<(), String> {
        let new: &[T] = cast_tiles(bytes).map_err(|e| e.to_string())?;
        let grid = tiles
            .grid_mut()
            .ok_or("the layer has no tiles to replace (its data is missing or broken)")?;
        if new.len() != grid.tiles().len() {
            return Err(format!(
                "{} tiles given, the layer has {}",
                new.len(),
                grid.tiles().len()
            ));
        }
        grid.tiles_mut().copy_from_slice(new);
        Ok(())
    }
    match content {
        LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => set(t, bytes),
        LayerContent::Tele(t) => set(t, bytes),
        LayerContent::Speedup(t) => set(t, bytes),
        LayerContent::Switch(t) => set(t, bytes),
        LayerContent::Tune(t) => set(t, bytes),
        _ => Err("not a tile layer".to_string()),
    }
}

/// A numpy structured dtype of `fields`.
fn dtype<'py>(py: Python<'py>, fields: &[(&str, &str)]) -> PyResult<Bound<'py, PyAny>> {
    py.import("numpy")?
        .call_method1("dtype", (fields.to_vec(),))
}

/// The structured dtype of quads (`twcodec::schema::map::quad::Quad`, 38 ints).
fn quad_dtype(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let fields: Vec<(&str, &str, Vec<usize>)> = vec![
        ("points", "<i4", vec![5, 2]),
        ("colors", "<i4", vec![4, 4]),
        ("texture_coords", "<i4", vec![4, 2]),
        ("position_envelope", "<i4", vec![]),
        ("position_envelope_offset", "<i4", vec![]),
        ("color_envelope", "<i4", vec![]),
        ("color_envelope_offset", "<i4", vec![]),
    ];
    let fields: Vec<Bound<'_, PyAny>> = (fields.into_iter())
        .map(|(name, ty, shape)| match shape.is_empty() {
            true => (name, ty).into_pyobject(py).map(|t| t.into_any()),
            false => (name, ty, shape).into_pyobject(py).map(|t| t.into_any()),
        })
        .collect::<PyResult<_>>()?;
    py.import("numpy")?.call_method1("dtype", (fields,))
}

/// The structured dtype of sound sources (`twcodec::schema::map::sound::SoundSource`, 13
/// ints), with the field names of `Layer.sources()`'s dicts.
fn source_dtype(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let int = "<i4";
    let fields = PyList::empty(py);
    fields.append(("position", vec![("x", int), ("y", int)]))?;
    for name in [
        "looping",
        "panning",
        "delay",
        "falloff",
        "position_envelope",
        "position_envelope_offset",
        "sound_envelope",
        "sound_envelope_offset",
    ] {
        fields.append((name, int))?;
    }
    fields.append((
        "shape",
        vec![("kind", int), ("value1", int), ("value2", int)],
    ))?;
    py.import("numpy")?.call_method1("dtype", (fields,))
}

/// A layer (`twcodec::map::Layer`): tiles of one of seven kinds, quads, sound sources, or a
/// kind twcodec does not know.
#[pyclass(name = "Layer", module = "twcodec", frozen)]
pub(crate) struct PyLayer {
    map: Py<PyMap>,
    /// The map\'s generation when the handle was made ([`PyMap::moved_items`]).
    generation: u64,
    /// Index among the map's layers (as `twcodec dump` numbers them).
    #[pyo3(get)]
    index: usize,
}

impl PyLayer {
    /// Changes a field of the layer (through the map's lock; handles stay valid).
    fn edit(
        &self,
        py: Python<'_>,
        what: &'static str,
        f: impl FnOnce(&mut Map, ItemRef<Layer>) -> Result<(), twcodec::Error> + Send,
    ) -> PyResult<()> {
        if !self.fresh() {
            return Err(gone("layer", self.index));
        }
        let index = self.index;
        self.map.get().edit_fields(py, what, move |map| {
            let r = item_at::<Layer>(map, index)?;
            f(map, r)
        })
    }

    fn with<R>(
        &self,
        py: Python<'_>,
        what: &'static str,
        f: impl FnOnce(&Map, &Layer) -> R,
    ) -> PyResult<R> {
        let map = self.map.get().map.read(py, what)?;
        let layer = (map.layers().get(self.index).filter(|_| self.fresh()))
            .ok_or_else(|| gone("layer", self.index))?;
        Ok(f(&map, layer))
    }

    /// The tiles as (height, width, bytes per tile) uint8, viewing the map's memory, with the
    /// fields of the tile kind.
    fn tile_array<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<(Bound<'py, PyArray3<u8>>, Fields)>> {
        let owner = self.map.bind(py).get();
        let map = owner.map.read(py, "Layer.tiles")?;
        let layer = (map.layers().get(self.index).filter(|_| self.fresh()))
            .ok_or_else(|| gone("layer", self.index))?;
        match tile_bytes(layer.content()) {
            None => Err(PyValueError::new_err(format!(
                "layer #{} is a {} layer, not a tile layer",
                self.index,
                layer.kind_name()
            ))),
            Some(None) => Ok(None),
            Some(Some(t)) => {
                let shape = [t.height, t.width, t.tile_size];
                let array = borrowed(self.map.bind(py).as_any(), &owner.views, t.bytes, shape)?;
                Ok(Some((array, t.fields)))
            }
        }
    }
}

#[pymethods]
impl PyLayer {
    /// The name ('' when the layer has none).
    #[getter]
    fn name(&self, py: Python<'_>) -> PyResult<String> {
        self.with(py, "Layer.name", |_, l| l.name())
    }

    #[setter]
    fn set_name(&self, py: Python<'_>, name: Bound<'_, PyAny>) -> PyResult<()> {
        let name: String = field(&name, "Layer.name", "a str")?;
        self.edit(py, "Layer.name", move |map, r| map.set_layer_name(r, &name))
    }

    #[setter]
    fn set_detail(&self, py: Python<'_>, detail: Bound<'_, PyAny>) -> PyResult<()> {
        let detail: bool = field(&detail, "Layer.detail", "True or False")?;
        self.edit(py, "Layer.detail", move |map, r| {
            map.set_layer_detail(r, detail)
        })
    }

    /// A tiles layer's color, (r, g, b, a) each 0 to 255; None for other layers. Settable.
    #[getter]
    fn color(&self, py: Python<'_>) -> PyResult<Option<(i32, i32, i32, i32)>> {
        self.with(py, "Layer.color", |_, l| match l.content() {
            LayerContent::Tiles(t) => {
                let c = t.item().color;
                Some((c.r, c.g, c.b, c.a))
            }
            _ => None,
        })
    }

    #[setter]
    fn set_color(&self, py: Python<'_>, color: Bound<'_, PyAny>) -> PyResult<()> {
        let color: (i32, i32, i32, i32) = field(
            &color,
            "Layer.color",
            "(r, g, b, a), four ints from 0 to 255",
        )?;
        let color = twcodec::schema::map::common::Color {
            r: color.0,
            g: color.1,
            b: color.2,
            a: color.3,
        };
        self.edit(py, "Layer.color", move |map, r| {
            map.set_layer_color(r, color)
        })
    }

    #[setter]
    fn set_image(&self, py: Python<'_>, image: Bound<'_, PyAny>) -> PyResult<()> {
        let image: Option<Bound<'_, PyImage>> =
            field(&image, "Layer.image", "an Image of this map, or None")?;
        let image = (image.as_ref())
            .map(|handle| handle_index(self.map.bind(py), handle))
            .transpose()?;
        self.edit(py, "Layer.image", move |map, r| {
            let image = match image {
                Some(index) => Some(item_at::<twcodec::map::Image>(map, index)?),
                None => None,
            };
            map.set_layer_image(r, image)
        })
    }

    /// 'tiles', 'game', 'front', 'tele', 'speedup', 'switch', 'tune', 'quads', 'sounds' or
    /// 'unknown'.
    #[getter]
    fn kind(&self, py: Python<'_>) -> PyResult<&'static str> {
        self.with(py, "Layer.kind", |_, l| l.kind_name())
    }

    /// Whether this is a physics layer (game, front, tele, speedup, switch, tune).
    #[getter]
    fn is_physics(&self, py: Python<'_>) -> PyResult<bool> {
        self.with(py, "Layer.is_physics", |_, l| l.is_physics())
    }

    /// Drawn only with high detail.
    #[getter]
    fn detail(&self, py: Python<'_>) -> PyResult<bool> {
        self.with(py, "Layer.detail", |_, l| l.is_detail())
    }

    /// Index of the group holding the layer, or None.
    #[getter]
    fn group(&self, py: Python<'_>) -> PyResult<Option<usize>> {
        self.with(py, "Layer.group", |map, _| {
            let r = map.refs::<Layer>().nth(self.index)?;
            map.group_of(r).map(|g| g.index())
        })
    }

    /// The image a tiles or quads layer is drawn with, or None.
    #[getter]
    fn image(&self, py: Python<'_>) -> PyResult<Option<PyImage>> {
        let index = self.with(py, "Layer.image", |map, l| {
            l.image(map).get().map(|r| r.index())
        })?;
        Ok(index.map(|index| PyImage::at(self.map.bind(py), index)))
    }

    /// Width in tiles of a tile layer, else None.
    #[getter]
    fn width(&self, py: Python<'_>) -> PyResult<Option<i32>> {
        self.with(py, "Layer.width", |_, l| l.tilemap().map(|t| t.width))
    }

    /// Height in tiles of a tile layer, else None.
    #[getter]
    fn height(&self, py: Python<'_>) -> PyResult<Option<i32>> {
        self.with(py, "Layer.height", |_, l| l.tilemap().map(|t| t.height))
    }

    /// The layer item as stored, after its header (`twcodec dump` field names), or None for
    /// an unknown kind.
    #[getter]
    fn item<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let item = self
            .with(py, "Layer.item", |_, l| match l.content() {
                LayerContent::Quads(q) => serde_json::to_value(q.item()),
                LayerContent::Sounds(s) => serde_json::to_value(s.item()),
                LayerContent::Unknown(_) => Ok(serde_json::Value::Null),
                _ => serde_json::to_value(l.tilemap()),
            })?
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        crate::to_python(py, &item)
    }

    /// The tiles, without a copy: a read-only numpy array of (height, width, bytes per tile)
    /// uint8 (4 bytes for tiles, game, front and switch, 2 for tele and tune, 6 for speedup),
    /// or with `structured=True` of (height, width) records whose fields are the tile's
    /// (`id`, `flags`, ...). None when the layer's data is missing or broken; a ValueError
    /// for layers without tiles.
    #[pyo3(signature = (*, structured = false))]
    fn tiles<'py>(&self, py: Python<'py>, structured: bool) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some((array, fields)) = self.tile_array(py)? else {
            return Ok(None);
        };
        if !structured {
            return Ok(Some(array.into_any()));
        }
        let (height, width) = (array.dims()[0], array.dims()[1]);
        let records = (array.call_method1("view", (dtype(py, fields)?,))?)
            .call_method1("reshape", ((height, width),))?;
        Ok(Some(records))
    }

    /// Replaces every tile: `tiles` is an array of the shape `tiles()` gives ((height, width,
    /// bytes per tile) uint8, or the structured form), copied into the map. The layer is
    /// written anew when the map is saved. Fails while arrays view the map (`BufferError`),
    /// and while another thread uses it (`twcodec.BusyError`).
    fn set_tiles(&self, py: Python<'_>, tiles: Bound<'_, PyAny>) -> PyResult<()> {
        // numpy first, before the map is locked: it may run Python code (`__array__`).
        let numpy = py.import("numpy")?;
        let bytes = numpy.call_method1("ascontiguousarray", (tiles,))?;
        let (ndim, shape): (usize, Vec<usize>) = (
            bytes.getattr("ndim")?.extract()?,
            bytes.getattr("shape")?.extract()?,
        );
        let itemsize: usize = bytes.getattr("itemsize")?.extract()?;
        if bytes.getattr("dtype")?.getattr("hasobject")?.extract()? {
            // tobytes() of Python objects is their addresses.
            return Err(PyValueError::new_err(
                "tiles are numbers (uint8) or records of numbers, not Python objects",
            ));
        }
        let flat = bytes.call_method0("tobytes")?;
        let flat = flat.cast::<PyBytes>()?.as_bytes();
        let owner = self.map.get();
        let mut map = owner.map.write(py, "Layer.set_tiles")?;
        owner.views.check_none("set tiles")?;
        let index = self.index;
        let layer = (map.layers().get(index).filter(|_| self.fresh()))
            .ok_or_else(|| gone("layer", index))?;
        let expected = match tile_bytes(layer.content()) {
            Some(Some(t)) => (t.height, t.width, t.tile_size),
            Some(None) => {
                return Err(PyValueError::new_err(format!(
                    "layer #{index} has no tiles to replace (its data is missing or broken)"
                )))
            }
            None => {
                return Err(PyValueError::new_err(format!(
                    "layer #{index} is a {} layer, not a tile layer",
                    layer.kind_name()
                )))
            }
        };
        let given = match (ndim, shape.as_slice()) {
            (3, &[h, w, n]) if itemsize == 1 => (h, w, n),
            (2, &[h, w]) => (h, w, itemsize),
            _ => (0, 0, 0),
        };
        if given != expected {
            return Err(PyValueError::new_err(format!(
                "layer #{index} takes tiles of shape {:?} as uint8 (or {:?} records of {} \
                 bytes), not an array of shape {shape:?} with {itemsize}-byte items",
                [expected.0, expected.1, expected.2],
                [expected.0, expected.1],
                expected.2
            )));
        }
        let layer = (map.refs::<Layer>().nth(index)).ok_or_else(|| gone("layer", index))?;
        let layer = (map.layer_mut(layer)).ok_or_else(|| gone("layer", index))?;
        set_tile_bytes(layer.content_mut(), flat).map_err(PyValueError::new_err)
    }

    /// The quads of a quads layer, without a copy: a read-only structured numpy array, one
    /// record per quad with the fields `points` (5, 2: corners then pivot, 22.10 fixed
    /// point), `colors` (4, 4), `texture_coords` (4, 2), `position_envelope`,
    /// `position_envelope_offset`, `color_envelope`, `color_envelope_offset`. None when the
    /// data is missing or broken.
    fn quads<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let owner = self.map.bind(py);
        let map = owner.get().map.read(py, "Layer.quads")?;
        let layer = (map.layers().get(self.index).filter(|_| self.fresh()))
            .ok_or_else(|| gone("layer", self.index))?;
        let LayerContent::Quads(quads) = layer.content() else {
            return Err(PyValueError::new_err(format!(
                "layer #{} is a {} layer, not a quads layer",
                self.index,
                layer.kind_name()
            )));
        };
        let Some(quads) = quads.quads() else {
            return Ok(None);
        };
        let ints: &[i32] = bytemuck::cast_slice(quads);
        let count = quads.len();
        let array: Bound<'py, PyArray2<i32>> =
            borrowed(owner.as_any(), &owner.get().views, ints, [count, 38])?;
        // The array counts as a view now; the map's lock is not needed for the dtype.
        drop(map);
        let records = (array.call_method1("view", (quad_dtype(py)?,))?)
            .call_method1("reshape", ((count,),))?;
        Ok(Some(records))
    }

    /// Replaces a quads layer's quads: `quads` is an array like `quads()` gives (records of
    /// the quad dtype, or int32 of shape (n, 38)), copied into the map: points, colors,
    /// texture coordinates and envelopes, as many quads as given. To change some fields, take
    /// a copy (`q = layer.quads().copy()`), change it (`q['color_envelope'][0] = 2`) and set
    /// it back (`layer.set_quads(q)`). An envelope index that names no envelope, or one of
    /// another kind (position for `position_envelope`, color for `color_envelope`), raises
    /// `twcodec.Error` naming the quad and field (a value the quad has already is kept);
    /// arrays viewing the map raise `BufferError`.
    fn set_quads(&self, py: Python<'_>, quads: Bound<'_, PyAny>) -> PyResult<()> {
        use twcodec::schema::map::quad::Quad;
        let numpy = py.import("numpy")?;
        let array = numpy.call_method1("ascontiguousarray", (quads,))?;
        let itemsize: usize = array.getattr("itemsize")?.extract()?;
        let size: usize = array.getattr("size")?.extract()?;
        let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
        let bytes_len = itemsize.saturating_mul(size);
        if kind == "O" || bytes_len % Quad::SIZE != 0 {
            return Err(edit::edit_error(
                py,
                format!(
                "quads are records of the quad dtype (152 bytes each) or int32 of shape (n, 38), \
                 not {size} items of {itemsize} bytes"
            ),
            ));
        }
        let flat = array.call_method0("tobytes")?;
        let flat = flat.cast::<PyBytes>()?.as_bytes();
        let quads: Vec<Quad> = bytemuck::pod_collect_to_vec(flat);
        self.edit(py, "Layer.set_quads", move |map, r| map.set_quads(r, quads))
    }

    /// Adds a quad to a quads layer as DDNet's editor makes one: a rectangle with its top-left
    /// corner at (x, y) and its size, in tiles (floats; 1 tile is 32 world pixels), the
    /// pivot in its middle, the whole image across it, corners of `color`, no envelopes.
    /// Returns the new quad's index in `quads()`. Other shapes: change its record (a copy
    /// from `quads()`) and give the array to `set_quads`.
    #[pyo3(signature = (x, y, width = 2.0, height = 2.0, *, color = (255, 255, 255, 255)))]
    fn add_quad(
        &self,
        py: Python<'_>,
        x: f64,
        y: f64,
        width: f64,
        height: f64,
        color: (i32, i32, i32, i32),
    ) -> PyResult<usize> {
        use twcodec::schema::map::common::{Color, Point};
        use twcodec::schema::map::quad::Quad;
        // Tiles to 22.10 fixed-point world pixels, within what the file holds.
        let fixed = |name: &str, tiles: f64| {
            let value = (tiles * 32.0 * 1024.0).round();
            match value.is_finite() && value.abs() <= f64::from(i32::MAX) {
                true => Ok(value as i32),
                false => Err(edit::edit_error(
                    py,
                    format!(
                        "Layer.add_quad: {name} = {} tiles is past what a quad's point holds \
                         (65535 tiles)",
                        match tiles.abs() < 1e9 {
                            true => tiles.to_string(),
                            false => format!("{tiles:e}"),
                        }
                    ),
                )),
            }
        };
        let (left, top) = (fixed("x", x)?, fixed("y", y)?);
        let (right, bottom) = (
            fixed("x + width", x + width)?,
            fixed("y + height", y + height)?,
        );
        let middle = |a: i32, b: i32| ((i64::from(a) + i64::from(b)) / 2) as i32;
        let point = |x, y| Point { x, y };
        let (r, g, b, a) = color;
        let quad = Quad {
            points: [
                point(left, top),
                point(right, top),
                point(left, bottom),
                point(right, bottom),
                point(middle(left, right), middle(top, bottom)),
            ],
            colors: [Color { r, g, b, a }; 4],
            texture_coords: [
                point(0, 0),
                point(1024, 0),
                point(0, 1024),
                point(1024, 1024),
            ],
            position_envelope: -1,
            position_envelope_offset: 0,
            color_envelope: -1,
            color_envelope_offset: 0,
        };
        let mut at = 0;
        self.edit(py, "Layer.add_quad", |map, r| {
            let mut quads = match map.get(r).map(Layer::content) {
                Some(LayerContent::Quads(q)) => q.quads().map(<[Quad]>::to_vec).unwrap_or_default(),
                _ => Vec::new(),
            };
            quads.push(quad);
            at = quads.len() - 1;
            map.set_quads(r, quads)
        })?;
        Ok(at)
    }

    /// Replaces a sounds layer's sources: dicts as `sources()` gives them (a key left out
    /// takes the value DDNet's editor gives a new source: looping, panning, falloff 80, a
    /// circle of radius 1500, no envelopes), or int32 of shape (n, 13) in the file's order.
    /// Envelope indices must name envelopes of the right kind (position, sound); `looping`
    /// and `panning` are 0 or 1, `falloff` 0 to 255, `delay` 0 or more, `shape['kind']` 0
    /// (rectangle) or 1 (circle). An error raises `twcodec.Error` naming the source and
    /// field, and changes nothing.
    fn set_sources(&self, py: Python<'_>, sources: Bound<'_, PyAny>) -> PyResult<()> {
        let sources = edit::sources(py, &sources)?;
        self.edit(py, "Layer.set_sources", move |map, r| {
            map.set_sources(r, sources)
        })
    }

    /// A tiles layer's color envelope, or None (also for other kinds).
    #[getter]
    fn color_envelope(&self, py: Python<'_>) -> PyResult<Option<PyEnvelope>> {
        let index = self.with(py, "Layer.color_envelope", |map, l| match l.content() {
            LayerContent::Tiles(t) => map
                .item_ref::<twcodec::map::Envelope>(t.item().color_envelope)
                .get()
                .map(|r| r.index()),
            _ => None,
        })?;
        Ok(index.map(|index| PyEnvelope::at(self.map.bind(py), index)))
    }

    /// A tiles layer's color envelope's time offset in milliseconds, or None for other kinds.
    #[getter]
    fn color_envelope_offset(&self, py: Python<'_>) -> PyResult<Option<i32>> {
        self.with(py, "Layer.color_envelope_offset", |_, l| {
            match l.content() {
                LayerContent::Tiles(t) => Some(t.item().color_envelope_offset),
                _ => None,
            }
        })
    }

    /// Sets a tiles layer's color envelope (a color `Envelope`, or None for none) and its time
    /// offset in milliseconds.
    #[pyo3(signature = (envelope, offset = 0))]
    fn set_color_envelope(
        &self,
        py: Python<'_>,
        envelope: Option<Bound<'_, PyEnvelope>>,
        offset: i32,
    ) -> PyResult<()> {
        let envelope = (envelope.as_ref())
            .map(|handle| handle_index(self.map.bind(py), handle))
            .transpose()?;
        self.edit(py, "Layer.set_color_envelope", move |map, r| {
            let envelope = match envelope {
                Some(index) => Some(item_at::<twcodec::map::Envelope>(map, index)?),
                None => None,
            };
            map.set_layer_color_envelope(r, envelope)?;
            map.set_layer_color_envelope_offset(r, offset)
        })
    }

    /// The sound a sounds layer plays, or None (also for other kinds). Settable (a `Sound` or
    /// None).
    #[getter]
    fn sound(&self, py: Python<'_>) -> PyResult<Option<PySound>> {
        let index = self.with(py, "Layer.sound", |map, l| match l.content() {
            LayerContent::Sounds(s) => s.sound(map).get().map(|r| r.index()),
            _ => None,
        })?;
        Ok(index.map(|index| PySound::at(self.map.bind(py), index)))
    }

    #[setter]
    fn set_sound(&self, py: Python<'_>, sound: Bound<'_, PyAny>) -> PyResult<()> {
        let sound: Option<Bound<'_, PySound>> =
            field(&sound, "Layer.sound", "a Sound of this map, or None")?;
        let sound = (sound.as_ref())
            .map(|handle| handle_index(self.map.bind(py), handle))
            .transpose()?;
        self.edit(py, "Layer.sound", move |map, r| {
            let sound = match sound {
                Some(index) => Some(item_at::<twcodec::map::Sound>(map, index)?),
                None => None,
            };
            map.set_layer_sound(r, sound)
        })
    }

    /// The sound sources of a sounds layer as dicts (`twcodec dump` field names), or with
    /// `structured=True` as a numpy array of records with the same fields (`position` with
    /// `x` and `y`, `shape` with `kind`, `value1` and `value2`); None when the data is missing
    /// or broken. A copy either way: change it and give it to `set_sources`.
    #[pyo3(signature = (*, structured = false))]
    fn sources<'py>(
        &self,
        py: Python<'py>,
        structured: bool,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let sources = self.with(py, "Layer.sources", |_, l| match l.content() {
            LayerContent::Sounds(s) => Ok(s.sources().map(<[_]>::to_vec)),
            _ => Err(l.kind_name()),
        })?;
        match sources {
            Err(kind) => Err(PyValueError::new_err(format!(
                "layer #{} is a {kind} layer, not a sounds layer",
                self.index
            ))),
            Ok(None) => Ok(None),
            Ok(Some(sources)) if structured => {
                let bytes = PyBytes::new(py, bytemuck::cast_slice(&sources));
                let records = (py.import("numpy")?)
                    .call_method1("frombuffer", (bytes, source_dtype(py)?))?
                    .call_method0("copy")?;
                Ok(Some(records))
            }
            Ok(Some(sources)) => crate::to_python(py, &sources).map(Some),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        if let Some(repr) = busy_repr(&self.map, "Layer", self.index) {
            return Ok(repr);
        }
        let (kind, name) = self.with(py, "Layer.__repr__", |_, l| (l.kind_name(), l.name()))?;
        Ok(format!("<twcodec.Layer #{} {kind} {name:?}>", self.index))
    }
}

/// An image (`twcodec::map::Image`): embedded pixels, or a name the game loads from `mapres`.
#[pyclass(name = "Image", module = "twcodec", frozen)]
pub(crate) struct PyImage {
    map: Py<PyMap>,
    /// The map\'s generation when the handle was made ([`PyMap::moved_items`]).
    generation: u64,
    /// Index among the map's images.
    #[pyo3(get)]
    index: usize,
}

impl PyImage {
    /// Changes the image (through the map's lock; handles stay valid).
    fn edit(
        &self,
        py: Python<'_>,
        what: &'static str,
        f: impl FnOnce(&mut Map, ItemRef<twcodec::map::Image>) -> Result<(), twcodec::Error> + Send,
    ) -> PyResult<()> {
        if !self.fresh() {
            return Err(gone("image", self.index));
        }
        let index = self.index;
        self.map.get().edit_fields(py, what, move |map| {
            let r = item_at::<twcodec::map::Image>(map, index)?;
            f(map, r)
        })
    }

    fn with<R>(
        &self,
        py: Python<'_>,
        what: &'static str,
        f: impl FnOnce(&Map, &twcodec::map::Image) -> R,
    ) -> PyResult<R> {
        let map = self.map.get().map.read(py, what)?;
        let image = (map.images().get(self.index).filter(|_| self.fresh()))
            .ok_or_else(|| gone("image", self.index))?;
        Ok(f(&map, image))
    }
}

#[pymethods]
impl PyImage {
    /// The name (the file name in `mapres` for external images), or None. Settable: at most
    /// 500 bytes (DDNet loads `mapres/NAME.png`).
    #[getter]
    fn name(&self, py: Python<'_>) -> PyResult<Option<String>> {
        self.with(py, "Image.name", |map, i| i.name(map))
    }

    #[setter]
    fn set_name(&self, py: Python<'_>, name: Bound<'_, PyAny>) -> PyResult<()> {
        let name: String = field(&name, "Image.name", "a str")?;
        self.edit(py, "Image.name", move |map, r| map.set_image_name(r, &name))
    }

    /// Replaces the pixels: a uint8 RGBA array of shape (height, width, 4), a PNG file's
    /// bytes or a PNG file's path, as `Map.add_embedded_image` takes them. An external image
    /// becomes embedded; the image keeps its name and place, so every layer drawn with it
    /// draws the new pixels. Arrays viewing the map raise `BufferError`.
    fn set_pixels(&self, py: Python<'_>, pixels: Bound<'_, PyAny>) -> PyResult<()> {
        let (width, height, rgba) = edit::picture(py, &pixels)?;
        self.edit(py, "Image.set_pixels", move |map, r| {
            map.replace_image(r, width, height, rgba).map(|_| ())
        })
    }

    /// Whether the game loads the image from its `mapres` by name.
    #[getter]
    fn external(&self, py: Python<'_>) -> PyResult<bool> {
        self.with(py, "Image.external", |_, i| i.is_external())
    }

    /// Width in pixels, as the item says.
    #[getter]
    fn width(&self, py: Python<'_>) -> PyResult<i32> {
        self.with(py, "Image.width", |_, i| i.item().width)
    }

    /// Height in pixels, as the item says.
    #[getter]
    fn height(&self, py: Python<'_>) -> PyResult<i32> {
        self.with(py, "Image.height", |_, i| i.item().height)
    }

    /// The image item as stored (`twcodec dump` field names).
    #[getter]
    fn item<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let item = self.with(py, "Image.item", |_, i| i.item().clone())?;
        crate::to_python(py, &item)
    }

    /// The embedded pixels as a read-only (height, width, 4) uint8 RGBA array: a view of the
    /// map's inflated data for RGBA images (no copy), RGB images widened with opaque alpha (a
    /// new array). An error for external images.
    fn rgba<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray3<u8>>> {
        let owner = self.map.bind(py);
        let map = owner.get().map.read(py, "Image.rgba")?;
        let image = (map.images().get(self.index).filter(|_| self.fresh()))
            .ok_or_else(|| gone("image", self.index))?;
        let pixels = image.rgba8(&map).or_raise()?;
        let shape = [pixels.height, pixels.width, 4];
        match pixels.bytes {
            std::borrow::Cow::Borrowed(bytes) => {
                borrowed(owner.as_any(), &owner.get().views, bytes, shape)
            }
            std::borrow::Cow::Owned(bytes) => {
                drop(map);
                let array = owned(py, bytes, shape)?;
                crate::views::read_only(&array)?;
                Ok(array)
            }
        }
    }

    /// The embedded image as a PNG file's bytes.
    fn png<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let png = self.with(py, "Image.png", twcodec_tools::assets::image_png)?;
        Ok(PyBytes::new(py, &png.or_raise()?))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        if let Some(repr) = busy_repr(&self.map, "Image", self.index) {
            return Ok(repr);
        }
        let (name, external, w, h) = self.with(py, "Image.__repr__", |map, i| {
            (
                i.name(map),
                i.is_external(),
                i.item().width,
                i.item().height,
            )
        })?;
        let how = if external { "external" } else { "embedded" };
        let name = name.unwrap_or_default();
        Ok(format!(
            "<twcodec.Image #{} {name:?} {w}x{h} {how}>",
            self.index
        ))
    }
}

/// An envelope (`twcodec::map::Envelope`): points animating a position, a color or a volume.
#[pyclass(name = "Envelope", module = "twcodec", frozen)]
pub(crate) struct PyEnvelope {
    map: Py<PyMap>,
    /// The map\'s generation when the handle was made ([`PyMap::moved_items`]).
    generation: u64,
    /// Index among the map's envelopes.
    #[pyo3(get)]
    index: usize,
}

impl PyEnvelope {
    /// Changes the envelope (through the map's lock; handles stay valid).
    fn edit(
        &self,
        py: Python<'_>,
        what: &'static str,
        f: impl FnOnce(&mut Map, ItemRef<twcodec::map::Envelope>) -> Result<(), twcodec::Error> + Send,
    ) -> PyResult<()> {
        if !self.fresh() {
            return Err(gone("envelope", self.index));
        }
        let index = self.index;
        self.map.get().edit_fields(py, what, move |map| {
            let r = item_at::<twcodec::map::Envelope>(map, index)?;
            f(map, r)
        })
    }

    fn with<R>(
        &self,
        py: Python<'_>,
        what: &'static str,
        f: impl FnOnce(&Map, &twcodec::map::Envelope) -> R,
    ) -> PyResult<R> {
        let map = self.map.get().map.read(py, what)?;
        let envelope = (map.envelopes().get(self.index).filter(|_| self.fresh()))
            .ok_or_else(|| gone("envelope", self.index))?;
        Ok(f(&map, envelope))
    }
}

#[pymethods]
impl PyEnvelope {
    /// The name ('' when the envelope has none). Settable (at most 31 bytes).
    #[getter]
    fn name(&self, py: Python<'_>) -> PyResult<String> {
        self.with(py, "Envelope.name", |_, e| e.name())
    }

    #[setter]
    fn set_name(&self, py: Python<'_>, name: Bound<'_, PyAny>) -> PyResult<()> {
        let name: String = field(&name, "Envelope.name", "a str")?;
        self.edit(py, "Envelope.name", move |map, r| {
            map.set_envelope_name(r, &name)
        })
    }

    #[setter]
    fn set_synchronized(&self, py: Python<'_>, synchronized: Bound<'_, PyAny>) -> PyResult<()> {
        let synchronized: bool = field(&synchronized, "Envelope.synchronized", "True or False")?;
        self.edit(py, "Envelope.synchronized", move |map, r| {
            map.set_envelope_synchronized(r, synchronized)
        })
    }

    /// Replaces the points. Each point is a dict as `points` gives it ('time' in ms,
    /// 'curve_type', 'values'), a record of a numpy structured array with those fields, or a
    /// tuple (time_ms, values) or (time_ms, values, curve). Values are 22.10 fixed point
    /// (1024 is 1.0; position: x and y in world units and rotation in degrees; color: r, g, b,
    /// a; sound: the volume), as many as the envelope has channels (or 4, as `points` gives
    /// them); the curve is 0 to 5 or 'step', 'linear' (when left out), 'slow', 'fast',
    /// 'smooth', 'bezier'. `bezier`: tangents per point as `bezier` gives
    /// them (None: zero tangents where the map keeps any), so that
    /// `e.set_points(e.points, e.bezier)` changes nothing. Times start at 0 and do not
    /// decrease. An error raises `twcodec.Error` naming the point and field, and changes
    /// nothing.
    #[pyo3(signature = (points, bezier = None))]
    fn set_points(
        &self,
        py: Python<'_>,
        points: Bound<'_, PyAny>,
        bezier: Option<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let kind = self.with(py, "Envelope.set_points", |_, e| e.item().kind())?;
        let points = edit::points(py, kind, &points)?;
        let tangents = bezier.map(|b| edit::tangents(py, &b)).transpose()?;
        self.edit(py, "Envelope.set_points", move |map, r| {
            map.set_envelope_points(r, points, tangents)
        })
    }

    /// Values per point: 1 (sound), 3 (position) or 4 (color).
    #[getter]
    fn channels(&self, py: Python<'_>) -> PyResult<i32> {
        self.with(py, "Envelope.channels", |_, e| e.item().channels)
    }

    /// 'position', 'color', 'sound' or 'other'.
    #[getter]
    fn kind(&self, py: Python<'_>) -> PyResult<&'static str> {
        use twcodec::schema::map::envelope::EnvelopeKind;
        self.with(py, "Envelope.kind", |_, e| match e.item().kind() {
            EnvelopeKind::Position => "position",
            EnvelopeKind::Color => "color",
            EnvelopeKind::Sound => "sound",
            EnvelopeKind::Other(_) => "other",
        })
    }

    /// Whether the envelope follows the server's clock (DDNet), None when the item does not
    /// say. Settable.
    #[getter]
    fn synchronized(&self, py: Python<'_>) -> PyResult<Option<bool>> {
        self.with(py, "Envelope.synchronized", |_, e| {
            e.item().synchronized.map(|s| s != 0)
        })
    }

    /// The points as dicts: 'time' (ms), 'curve_type' (0 step, 1 linear, 2 slow, 3 fast, 4
    /// smooth, 5 bezier) and 'values' (4 ints, 22.10 fixed point). A copy: change it and give
    /// it to `set_points`.
    #[getter]
    fn points<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let points = self.with(py, "Envelope.points", |map, e| e.points(map).to_vec())?;
        crate::to_python(py, &points)
    }

    /// The bezier tangents of the points (Teeworlds 0.7 and DDNet), or None.
    #[getter]
    fn bezier<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let bezier = self.with(py, "Envelope.bezier", |map, e| {
            e.bezier(map).map(<[_]>::to_vec)
        })?;
        bezier.map(|b| crate::to_python(py, &b)).transpose()
    }

    /// The envelope item as stored (`twcodec dump` field names).
    #[getter]
    fn item<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let item = self.with(py, "Envelope.item", |_, e| e.item().clone())?;
        crate::to_python(py, &item)
    }

    /// The four channels at `time_ms` as floats, as the game computes them ((x, y, rotation
    /// in degrees, _) for position, (r, g, b, a) with 1.0 full for color, (volume, ...) for
    /// sound); None when the envelope has no points.
    fn eval(&self, py: Python<'_>, time_ms: f64) -> PyResult<Option<(f64, f64, f64, f64)>> {
        let value = self.with(py, "Envelope.eval", |map, e| e.eval(map, time_ms))?;
        Ok(value.map(|[a, b, c, d]| (a, b, c, d)))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        if let Some(repr) = busy_repr(&self.map, "Envelope", self.index) {
            return Ok(repr);
        }
        let (name, points) = self.with(py, "Envelope.__repr__", |map, e| {
            (e.name(), e.points(map).len())
        })?;
        Ok(format!(
            "<twcodec.Envelope #{} {name:?} {} points>",
            self.index, points
        ))
    }
}

/// A sound (`twcodec::map::Sound`): Opus data embedded in the map.
#[pyclass(name = "Sound", module = "twcodec", frozen)]
pub(crate) struct PySound {
    map: Py<PyMap>,
    /// The map\'s generation when the handle was made ([`PyMap::moved_items`]).
    generation: u64,
    /// Index among the map's sounds.
    #[pyo3(get)]
    index: usize,
}

impl PySound {
    /// Changes the sound (through the map's lock; handles stay valid).
    fn edit(
        &self,
        py: Python<'_>,
        what: &'static str,
        f: impl FnOnce(&mut Map, ItemRef<twcodec::map::Sound>) -> Result<(), twcodec::Error> + Send,
    ) -> PyResult<()> {
        if !self.fresh() {
            return Err(gone("sound", self.index));
        }
        let index = self.index;
        self.map.get().edit_fields(py, what, move |map| {
            let r = item_at::<twcodec::map::Sound>(map, index)?;
            f(map, r)
        })
    }

    fn with<R>(
        &self,
        py: Python<'_>,
        what: &'static str,
        f: impl FnOnce(&Map, &twcodec::map::Sound) -> R,
    ) -> PyResult<R> {
        let map = self.map.get().map.read(py, what)?;
        let sound = (map.sounds().get(self.index).filter(|_| self.fresh()))
            .ok_or_else(|| gone("sound", self.index))?;
        Ok(f(&map, sound))
    }
}

#[pymethods]
impl PySound {
    /// The name, or None. Settable (at most 511 bytes).
    #[getter]
    fn name(&self, py: Python<'_>) -> PyResult<Option<String>> {
        self.with(py, "Sound.name", |map, s| s.name(map))
    }

    #[setter]
    fn set_name(&self, py: Python<'_>, name: Bound<'_, PyAny>) -> PyResult<()> {
        let name: String = field(&name, "Sound.name", "a str")?;
        self.edit(py, "Sound.name", move |map, r| map.set_sound_name(r, &name))
    }

    /// Replaces the sound's data with an Ogg Opus file's bytes (checked as the game plays
    /// them); the sound keeps its name and place, so sounds layers play the new one.
    fn set_data(&self, py: Python<'_>, data: Vec<u8>) -> PyResult<()> {
        py.detach(|| twcodec_tools::assets::check_opus(&data))
            .or_raise()?;
        self.edit(py, "Sound.set_data", move |map, r| {
            map.replace_sound(r, data).map(|_| ())
        })
    }

    /// Whether the sound has no embedded data.
    #[getter]
    fn external(&self, py: Python<'_>) -> PyResult<bool> {
        self.with(py, "Sound.external", |_, s| s.item().data < 0)
    }

    /// The embedded sound file's bytes (Opus).
    fn data<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let data = self.with(py, "Sound.data", |map, s| {
            s.data(map).map(|d| d.into_owned())
        })?;
        Ok(PyBytes::new(py, &data.or_raise()?))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        if let Some(repr) = busy_repr(&self.map, "Sound", self.index) {
            return Ok(repr);
        }
        let (name, external) = self.with(py, "Sound.__repr__", |map, s| {
            (s.name(map).unwrap_or_default(), s.item().data < 0)
        })?;
        let how = if external { "external" } else { "embedded" };
        Ok(format!("<twcodec.Sound #{} {name:?} {how}>", self.index))
    }
}

impl PyMap {
    /// Runs a whole-map edit on a copy of the map and keeps the copy when it succeeds, so that
    /// a failing edit of several steps changes nothing.
    fn edit_whole(
        &self,
        py: Python<'_>,
        what: &'static str,
        edit: impl FnOnce(&mut Map) -> Result<(), twcodec::Error> + Send,
    ) -> PyResult<()> {
        let mut map = self.map.write(py, what)?;
        self.views.check_none("edit the map")?;
        self.moved_items();
        let map = &mut *map;
        py.detach(|| {
            let mut work = map.clone();
            edit(&mut work)?;
            *map = work;
            Ok(())
        })
        .or_raise()
    }
}

impl PyMap {
    /// An edit of fields (no item added, removed or moved): handles stay valid.
    fn edit_fields(
        &self,
        py: Python<'_>,
        what: &'static str,
        edit: impl FnOnce(&mut Map) -> Result<(), twcodec::Error> + Send,
    ) -> PyResult<()> {
        let mut map = self.map.write(py, what)?;
        self.views.check_none("edit the map")?;
        let map = &mut *map;
        py.detach(|| {
            let mut work = map.clone();
            edit(&mut work)?;
            *map = work;
            Ok(())
        })
        .or_raise()
    }

    /// An edit that may remove or move items of `kinds`: when it succeeds, their handles
    /// made before it are gone (adding at the end moves nothing). A failed edit changes
    /// nothing (each `twcodec::map::edit` call checks before it changes, and a closure of
    /// several calls undoes the first when a later one fails), so handles stay valid.
    fn edit_items<R: Send>(
        &self,
        py: Python<'_>,
        what: &'static str,
        kinds: &[Kind],
        edit: impl FnOnce(&mut Map) -> Result<R, twcodec::Error> + Send,
    ) -> PyResult<R> {
        let mut map = self.map.write(py, what)?;
        self.views.check_none("edit the map")?;
        let map = &mut *map;
        let done = py.detach(|| edit(map)).or_raise()?;
        // Under the map's lock still: no other thread makes a handle between the edit and
        // the bump.
        self.moved(kinds);
        Ok(done)
    }
}

/// The index of a handle given to `map`'s method: an error for a handle of another map or
/// one made before the map's items moved.
fn handle_index<H>(map: &Bound<'_, PyMap>, handle: &Bound<'_, H>) -> PyResult<usize>
where
    H: Fresh + pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync,
{
    let handle = handle.get();
    let index = handle.position();
    if !handle.owner().bind(map.py()).is(map) {
        return Err(PyValueError::new_err(format!(
            "{} #{index} is of another map",
            H::WHAT
        )));
    }
    if !handle.fresh() {
        return Err(gone(H::WHAT, index));
    }
    Ok(index)
}

/// The error of a move to position `to` among `len` items of a kind, checked before the
/// edit, which would make the handles of that kind stale even when it fails.
fn past_the_end(len: usize, to: usize, what: &str) -> Result<(), twcodec::Error> {
    match to >= len {
        true => Err(twcodec::Error::invalid_edit(format!(
            "{what} position {to} is past the {len} {what}s"
        ))),
        false => Ok(()),
    }
}

/// The reference of item `index` of a kind.
fn item_at<T: twcodec::map::ItemKind>(
    map: &Map,
    index: usize,
) -> Result<ItemRef<T>, twcodec::Error> {
    map.refs::<T>()
        .nth(index)
        .ok_or_else(|| twcodec::Error::invalid_edit(format!("no item #{index}")))
}

/// A new layer of `kind` for `Map.add_layer`.
fn new_layer(
    map: &Map,
    kind: &str,
    name: Option<&str>,
    width: Option<usize>,
    height: Option<usize>,
) -> Result<Layer, twcodec::Error> {
    use twcodec::map::Grid;
    let (gw, gh) = map
        .game_layer()
        .and_then(|(_, g)| g.grid())
        .map_or((100, 50), |g| (g.width(), g.height()));
    let (w, h) = (width.unwrap_or(gw), height.unwrap_or(gh));
    let physics = !matches!(kind, "tiles" | "quads" | "sounds");
    if physics && (w, h) != (gw, gh) {
        return Err(twcodec::Error::invalid_edit(format!(
            "a {kind} layer is as large as the game layer, {gw}x{gh}, not {w}x{h}"
        )));
    }
    fn grid<T: Copy + Default>(w: usize, h: usize) -> Result<Grid<T>, twcodec::Error> {
        Grid::filled(w, h, T::default())
            .ok_or_else(|| twcodec::Error::invalid_edit(format!("a layer of {w}x{h} tiles")))
    }
    let layer = match kind {
        "tiles" => Layer::new_tiles(name.unwrap_or("Tiles"), grid(w, h)?)?,
        "quads" => Layer::new_quads(name.unwrap_or("Quads"), Vec::new())?,
        "sounds" => Layer::new_sounds(name.unwrap_or("Sounds"), Vec::new())?,
        "game" => Layer::new_game(grid(w, h)?)?,
        "front" => Layer::new_front(grid(w, h)?)?,
        "tele" => Layer::new_tele(grid(w, h)?)?,
        "speedup" => Layer::new_speedup(grid(w, h)?)?,
        "switch" => Layer::new_switch(grid(w, h)?)?,
        "tune" => Layer::new_tune(grid(w, h)?)?,
        other => {
            return Err(twcodec::Error::new(
                twcodec::ErrorKind::InvalidOptions,
                format!(
                "kind is one of 'tiles', 'game', 'front', 'tele', 'speedup', 'switch', 'tune', \
                 'quads', 'sounds', not {other:?}"
            ),
            ))
        }
    };
    Ok(layer)
}

/// Group `n`, or the game group.
fn chosen_group(map: &Map, group: Option<usize>) -> Result<ItemRef<Group>, twcodec::Error> {
    match group {
        Some(n) => map.refs::<Group>().nth(n).ok_or_else(|| {
            twcodec::Error::invalid_edit(format!(
                "group {n}: the map has {} groups",
                map.groups().len()
            ))
        }),
        None => (map.game_layer())
            .and_then(|(layer, _)| map.group_of(layer))
            .ok_or_else(|| twcodec::Error::invalid_edit("the map has no game group")),
    }
}
