//! `twcodec.Demo` and its replay, tick by tick (`twcodec::demo`).

use std::io::Cursor;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use twcodec::demo::{Demo, DemoInfo, DemoTime, DemoWriter, Replay, Update};

use crate::errors::OrRaise;
use crate::map::PyMap;
use crate::shared::Shared;
use crate::snap::PySnapshot;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDemo>()?;
    m.add_class::<PyReplay>()?;
    m.add_class::<PyTick>()?;
    m.add_class::<PyDemoWriter>()?;
    m.add_class::<PyDemoFrames>()?;
    Ok(())
}

/// A point in a demo from Python: an int is a tick, a str what `DemoTime` reads (`12.5s`,
/// `1:02`, `m2`, `start`, `end`).
#[derive(FromPyObject)]
enum Point {
    Tick(i32),
    Text(String),
}

impl Point {
    fn resolve(self, demo: &Demo) -> Result<i32, twcodec::Error> {
        match self {
            Point::Tick(tick) => Ok(tick),
            Point::Text(text) => demo.resolve_time(text.parse::<DemoTime>()?),
        }
    }
}

/// A demo file (`twcodec::demo::Demo`): its header, the map it embeds, and its chunks, read
/// lazily.
#[pyclass(name = "Demo", module = "twcodec", frozen)]
pub(crate) struct PyDemo {
    demo: Demo,
}

use twcodec_tools::dump::hex;

#[pymethods]
impl PyDemo {
    /// Reads a demo file, checking its header.
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<PyDemo> {
        let demo = py.detach(|| Demo::open(&path)).or_raise()?;
        Ok(PyDemo { demo })
    }

    /// Reads a demo from its bytes, checking its header.
    #[staticmethod]
    fn parse(data: &[u8]) -> PyResult<PyDemo> {
        Ok(PyDemo {
            demo: Demo::parse(data).or_raise()?,
        })
    }

    /// The demo version (3 to 6).
    #[getter]
    fn version(&self) -> u8 {
        self.demo.version()
    }

    /// The network protocol of the recording (`0.6 626fce9a778df4d4`).
    #[getter]
    fn net_version(&self) -> String {
        self.demo.header().net_version.to_string_lossy()
    }

    /// 'ddnet' (Teeworlds 0.6 and DDNet) or 'teeworlds07', from the net version.
    #[getter]
    fn protocol(&self) -> &'static str {
        match self.demo.protocol() {
            twcodec::snap::Protocol::Ddnet06 => "ddnet",
            twcodec::snap::Protocol::Teeworlds07 => "teeworlds07",
        }
    }

    /// The map's name.
    #[getter]
    fn map_name(&self) -> String {
        self.demo.map_name()
    }

    /// The embedded map's size in bytes, as the header says.
    #[getter]
    fn map_size(&self) -> u32 {
        self.demo.header().map_size
    }

    /// The map's CRC-32 from the header.
    #[getter]
    fn map_crc(&self) -> u32 {
        self.demo.header().map_crc
    }

    /// Whether the embedded map's CRC-32 is the header's.
    #[getter]
    fn map_crc_matches(&self) -> bool {
        self.demo.map_crc_matches()
    }

    /// The embedded map's SHA-256, in hex.
    #[getter]
    fn map_sha256(&self) -> String {
        hex(&self.demo.map_sha256())
    }

    /// Whether the embedded map's SHA-256 is the header's (DDNet's version 6), or None when
    /// the header gives none.
    #[getter]
    fn map_sha256_matches(&self) -> Option<bool> {
        self.demo.map_sha256_matches()
    }

    /// `client` or `server`.
    #[getter]
    fn recorded_by(&self) -> String {
        self.demo.header().kind.to_string_lossy()
    }

    /// Length in seconds, from the header.
    #[getter]
    fn length(&self) -> i32 {
        self.demo.header().length
    }

    /// When recording started, as the header's text.
    #[getter]
    fn timestamp(&self) -> String {
        self.demo.header().timestamp.to_string_lossy()
    }

    /// The ticks of the timeline markers.
    #[getter]
    fn timeline_markers(&self) -> Vec<i32> {
        self.demo.timeline_markers().to_vec()
    }

    /// The embedded map file's bytes.
    fn map_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.demo.map_bytes())
    }

    /// The embedded map, through the map graph.
    fn map(&self, py: Python<'_>) -> PyResult<PyMap> {
        let map = py.detach(|| self.demo.map()).or_raise()?;
        Ok(PyMap::new(map))
    }

    /// The replay: an iterator of `Tick`s, one per tick marker, each with the snapshot at that
    /// tick and the messages recorded in it. An error in the chunk stream is raised when the
    /// replay reaches it, naming the chunk, its tick and its byte offset.
    /// The chat (`twcodec demo chat`): dicts with tick, time, kind, client_id, name, target,
    /// text, and `line` (`[mm:ss.cc] name: text`); with events, joins, leaves and kills too.
    #[pyo3(signature = (*, events = false))]
    fn chat<'py>(&self, py: Python<'py>, events: bool) -> PyResult<Bound<'py, PyAny>> {
        let options = twcodec_tools::chat::ChatOptions::default().events(events);
        let lines = py.detach(|| {
            (twcodec_tools::chat::lines_with(&self.demo, options))
                .map(|line| {
                    line.map(|line| {
                        let text = line.to_string();
                        let mut value = serde_json::to_value(&line).unwrap_or_default();
                        if let Some(object) = value.as_object_mut() {
                            object.insert("line".into(), text.into());
                        }
                        value
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        });
        crate::to_python(py, &lines.or_raise()?)
    }

    /// Rows of `twcodec demo export`: one dict per snapshot object per tick (tick, time,
    /// type, id, the fields flattened), for the object types named (all when None), e.g.
    /// `pandas.DataFrame(demo.export(["character"]))`.
    #[pyo3(signature = (objects = None))]
    fn export<'py>(
        &self,
        py: Python<'py>,
        objects: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let filter =
            twcodec_tools::export::ObjectFilter::parse(&objects.unwrap_or_default()).or_raise()?;
        let rows = py.detach(|| {
            (twcodec_tools::export::ObjectRows::new(&self.demo, &filter))
                .map(|row| row.map(|row| row.to_json()))
                .collect::<Result<Vec<_>, _>>()
        });
        crate::to_python(py, &rows.or_raise()?)
    }

    /// Every message of the demo, decoded: dicts with tick, chunk, and the message (its kind
    /// and fields by name). A message that does not decode raises twcodec.Error naming its
    /// chunk, tick and offset.
    fn messages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let messages = py.detach(|| {
            (self.demo.messages())
                .map(|m| {
                    m.map(|m| {
                        serde_json::json!({
                            "tick": m.chunk.tick,
                            "chunk": m.chunk.index,
                            "message": m.message,
                        })
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        });
        crate::to_python(py, &messages.or_raise()?)
    }

    /// The demo's bytes, written back through the format's types: an unmodified demo gives
    /// back the bytes it was read from.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py.detach(|| self.demo.to_bytes()).or_raise()?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Writes the demo to a file, atomically.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| twcodec::fs::save(&path, &self.demo.to_bytes()?))
            .or_raise()
    }

    /// The ticks of the first and last tick marker, or None for a demo without ticks.
    #[getter]
    fn tick_range(&self, py: Python<'_>) -> PyResult<Option<(i32, i32)>> {
        py.detach(|| self.demo.tick_range()).or_raise()
    }

    /// The tick of a point: an int is a tick, a str seconds from the first tick (`12.5s`,
    /// `1:02.5`), a timeline marker from 1 (`m2`, `marker:2`), `start` or `end`.
    fn resolve(&self, point: Point) -> PyResult<i32> {
        point.resolve(&self.demo).or_raise()
    }

    /// The ticks from `start` to `end` (points as `resolve` reads them, both included) as a
    /// demo of their own: it starts with a keyframe (the first tick in the range with a
    /// snapshot, written in full), then every chunk as it is, so that it replays as this
    /// demo does over those ticks; the header gets its length and the markers within it.
    #[pyo3(signature = (start = Point::Text("start".into()), end = Point::Text("end".into())))]
    fn cut(&self, py: Python<'_>, start: Point, end: Point) -> PyResult<PyDemo> {
        let demo = &self.demo;
        let cut = py.detach(|| {
            let (from, to) = (start.resolve(demo)?, end.resolve(demo)?);
            let (bytes, _) = demo.cut(from, to)?;
            Demo::from_bytes(bytes)
        });
        Ok(PyDemo {
            demo: cut.or_raise()?,
        })
    }

    /// This demo with another map embedded (`map`: the map file's bytes): the header's size,
    /// CRC-32 and SHA-256 follow it, and its name when `name` is given; the chunks stay.
    #[pyo3(signature = (map, name = None))]
    fn replace_map(&self, py: Python<'_>, map: &[u8], name: Option<&str>) -> PyResult<PyDemo> {
        let demo = py.detach(|| Demo::from_bytes(self.demo.replace_map(map, name)?));
        Ok(PyDemo {
            demo: demo.or_raise()?,
        })
    }

    /// This demo without its map: the header keeps the map's name, CRC-32 and SHA-256, for a
    /// player to find it in its maps folder.
    fn strip_map(&self, py: Python<'_>) -> PyResult<PyDemo> {
        let demo = py.detach(|| Demo::from_bytes(self.demo.strip_map()?));
        Ok(PyDemo {
            demo: demo.or_raise()?,
        })
    }

    /// The replay, one `Tick` per tick marker: an iterator that reads the demo's chunks as
    /// it goes, each `next()` without the GIL.
    fn ticks(&self) -> PyReplay {
        let cell = ReplayCell::new(self.demo.clone(), |demo| demo.replay());
        PyReplay {
            cell: Shared::new(cell, "replay"),
        }
    }

    /// Draws the game at the instant `at` (a tick, or a point as `resolve` reads it) as the
    /// client shows it: the map and over it the tees, weapons, hooks, projectiles, lasers,
    /// pickups, flags, names and emoticons (docs/demo-render.md). `data` is a DDNet `data/`
    /// folder (`game.png`, `emoticons.png`, `particles.png`, `skins/`; default
    /// `$TWCODEC_DATA`), `mapres` its `data/mapres`; `follow` a client id to follow instead of
    /// the recording player, `camera` a fixed `(x, y)` in tiles. Returns the picture as a
    /// numpy array of shape (height, width, 4), straight RGBA; with `png=True` PNG bytes;
    /// with `path` writes the PNG there (atomically) and returns None.
    #[pyo3(signature = (at = Point::Text("start".into()), *, width = 1280, height = 720,
        zoom = 1.0, follow = None, camera = None, data = None, mapres = None, names = true,
        entities = 0, png = false, path = None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, one per option.
    fn render<'py>(
        &self,
        py: Python<'py>,
        at: Point,
        width: u32,
        height: u32,
        zoom: f64,
        follow: Option<i32>,
        camera: Option<(f64, f64)>,
        data: Option<PathBuf>,
        mapres: Option<PathBuf>,
        names: bool,
        entities: u8,
        png: bool,
        path: Option<PathBuf>,
    ) -> PyResult<Bound<'py, PyAny>> {
        use twcodec_tools::render::world::{DemoRenderer, Timeline};
        let options = render_options(
            width, height, zoom, follow, camera, data, mapres, names, entities,
        );
        let demo = &self.demo;
        let drawn = py.detach(|| {
            let at = at.resolve(demo)?;
            let mut renderer = DemoRenderer::new(demo, &options)?;
            let world = Timeline::new(demo, 50.0)?
                .with_map(renderer.map())
                .from_tick(f64::from(at))
                .next()
                .transpose()?
                .ok_or_else(|| {
                    twcodec::Error::new(
                        twcodec::ErrorKind::InvalidOptions,
                        format!("nothing to draw at tick {at}"),
                    )
                })?;
            let picture = renderer.render(&world)?.picture;
            let bytes = match png || path.is_some() {
                true => Some(picture.to_png()?),
                false => None,
            };
            if let (Some(path), Some(bytes)) = (&path, &bytes) {
                twcodec::fs::save(path, bytes)?;
            }
            Ok((picture, bytes, renderer.warnings().to_vec()))
        });
        let (picture, bytes, warnings) = drawn.or_raise()?;
        let category = py.get_type::<crate::errors::RenderWarning>();
        for warning in &warnings {
            crate::errors::warn(py, &category, warning)?;
        }
        match (path, bytes) {
            (Some(_), _) => Ok(py.None().into_bound(py)),
            (None, Some(bytes)) if png => Ok(PyBytes::new(py, &bytes).into_any()),
            _ => {
                let shape = [picture.height as usize, picture.width as usize, 4];
                Ok(crate::views::owned(py, picture.rgba, shape)?.into_any())
            }
        }
    }

    /// The frames from `start` to `end` (ticks or points, both included) at `fps` frames a
    /// second of game: an iterator of `(tick, frame)` pairs, `tick` a float (instants
    /// between ticks have a fraction), `frame` a numpy array of shape (height, width, 4),
    /// drawn as `render` draws. Two snapshots and one frame are held at a time.
    #[pyo3(signature = (fps = 50.0, start = Point::Text("start".into()),
        end = Point::Text("end".into()), *, width = 1280, height = 720, zoom = 1.0,
        follow = None, camera = None, data = None, mapres = None, names = true, entities = 0))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, one per option.
    fn frames(
        &self,
        py: Python<'_>,
        fps: f64,
        start: Point,
        end: Point,
        width: u32,
        height: u32,
        zoom: f64,
        follow: Option<i32>,
        camera: Option<(f64, f64)>,
        data: Option<PathBuf>,
        mapres: Option<PathBuf>,
        names: bool,
        entities: u8,
    ) -> PyResult<PyDemoFrames> {
        use twcodec_tools::render::world::{DemoRenderer, Timeline};
        let options = render_options(
            width, height, zoom, follow, camera, data, mapres, names, entities,
        );
        let demo = &self.demo;
        let made = py.detach(|| {
            let (from, to) = (start.resolve(demo)?, end.resolve(demo)?);
            Timeline::new(demo, fps)?;
            let renderer = DemoRenderer::new(demo, &options)?;
            let collision =
                std::sync::Arc::new(twcodec_tools::render::world::Collision::new(renderer.map()));
            let cell = TimelineCell::new(demo.clone(), |demo| {
                (Timeline::new(demo, fps).ok()).map(|timeline| {
                    (timeline.with_collision(collision))
                        .from_tick(f64::from(from))
                        .to_tick(f64::from(to))
                })
            });
            Ok::<_, twcodec::Error>((cell, renderer))
        });
        let (cell, renderer) = made.or_raise()?;
        Ok(PyDemoFrames {
            state: Shared::new((cell, renderer), "frames"),
        })
    }

    /// `<twcodec.Demo version 5 "0.6 626fce9a778df4d4" on "Sunny Side Up">`.
    fn __repr__(&self) -> String {
        format!(
            "<twcodec.Demo version {} {:?} on {:?}>",
            self.demo.version(),
            self.demo.header().net_version.to_string_lossy(),
            self.demo.map_name()
        )
    }
}

/// A replay borrowing the demo it reads.
type ReplayOf<'a> = Replay<'a>;

self_cell::self_cell!(
    struct ReplayCell {
        owner: Demo,
        #[covariant]
        dependent: ReplayOf,
    }
);

/// A demo replayed tick by tick (`Demo.ticks()`). Frozen, the replay behind a lock: a
/// `next()` while another thread's `next()` reads the demo without the GIL raises
/// `twcodec.BusyError` ([`crate::shared`]), as a generator raises "already executing".
#[pyclass(name = "Replay", module = "twcodec", frozen)]
pub(crate) struct PyReplay {
    cell: Shared<ReplayCell>,
}

#[pymethods]
impl PyReplay {
    /// The replay itself: it is its own iterator.
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next `Tick`, read without the GIL; `StopIteration` at the end of the demo.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<PyTick>> {
        let mut cell = self.cell.write(py, "Replay.__next__")?;
        let cell = &mut *cell;
        let next = py.detach(|| {
            cell.with_dependent_mut(|_, replay| {
                let frame = match replay.next() {
                    None => return Ok(None),
                    Some(frame) => frame?,
                };
                let messages = (frame.messages.iter())
                    .map(|chunk| chunk.message_bytes())
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Some(PyTick {
                    tick: frame.tick,
                    keyframe: frame.keyframe,
                    update: match frame.update {
                        Update::Full => "full",
                        Update::Delta => "delta",
                        Update::Unchanged => "unchanged",
                    },
                    snapshot: frame.snapshot,
                    messages,
                    chunk: frame.chunk,
                }))
            })
        });
        next.or_raise()
    }
}

/// The options of `Demo.render` and `Demo.frames`.
#[allow(clippy::too_many_arguments)] // One per Python keyword argument.
fn render_options(
    width: u32,
    height: u32,
    zoom: f64,
    follow: Option<i32>,
    camera: Option<(f64, f64)>,
    data: Option<PathBuf>,
    mapres: Option<PathBuf>,
    names: bool,
    entities: u8,
) -> twcodec_tools::render::world::DemoRenderOptions {
    use twcodec_tools::render::world::{Camera, DemoRenderOptions};
    let defaults = DemoRenderOptions::default();
    let camera = match (follow, camera) {
        (Some(id), _) => Camera::Player(id),
        (None, Some((x, y))) => Camera::Fixed { x, y },
        (None, None) => Camera::Local,
    };
    let mut options = defaults
        .clone()
        .size(width, height)
        .zoom(zoom)
        .camera(camera)
        .mapres(mapres.or(defaults.mapres))
        .names(names)
        .entities(entities);
    options.data = data.or(defaults.data);
    options
}

/// A timeline borrowing the demo it reads (`None` for a rate it refuses, which `Demo.frames`
/// reports before making one).
type TimelineOf<'a> = Option<twcodec_tools::render::world::Timeline<'a>>;

self_cell::self_cell!(
    struct TimelineCell {
        owner: Demo,
        #[not_covariant]
        dependent: TimelineOf,
    }
);

/// The frames of a demo (`Demo.frames()`): an iterator of `(tick, frame)`, each drawn without
/// the GIL.
#[pyclass(name = "DemoFrames", module = "twcodec", frozen)]
pub(crate) struct PyDemoFrames {
    state: Shared<(TimelineCell, twcodec_tools::render::world::DemoRenderer)>,
}

#[pymethods]
impl PyDemoFrames {
    /// The iterator itself.
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next `(tick, frame)`; `StopIteration` after the last.
    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<(f64, Bound<'py, PyAny>)>> {
        let mut state = self.state.write(py, "DemoFrames.__next__")?;
        let (cell, renderer) = &mut *state;
        let next = py.detach(|| {
            let world = cell.with_dependent_mut(|_, timeline| timeline.as_mut()?.next());
            match world {
                None => Ok(None),
                Some(world) => {
                    let world = world?;
                    let picture = renderer.render(&world)?.picture;
                    Ok(Some((world.tick, picture)))
                }
            }
        });
        match next.or_raise()? {
            None => Ok(None),
            Some((tick, picture)) => {
                let shape = [picture.height as usize, picture.width as usize, 4];
                let frame = crate::views::owned(py, picture.rgba, shape)?.into_any();
                Ok(Some((tick, frame)))
            }
        }
    }
}

/// One tick of a replay.
#[pyclass(name = "Tick", module = "twcodec", frozen)]
pub(crate) struct PyTick {
    /// The tick.
    #[pyo3(get)]
    tick: i32,
    /// Whether the tick marker flags a keyframe.
    #[pyo3(get)]
    keyframe: bool,
    /// How the snapshot came: 'full', 'delta' or 'unchanged'.
    #[pyo3(get)]
    update: &'static str,
    snapshot: Option<Arc<twcodec::snap::Snapshot>>,
    messages: Vec<Vec<u8>>,
    /// Index of the tick marker chunk.
    #[pyo3(get)]
    chunk: usize,
}

#[pymethods]
impl PyTick {
    /// The snapshot at this tick (shared with the ticks it did not change), or None before the
    /// first snapshot.
    #[getter]
    fn snapshot(&self) -> Option<PySnapshot> {
        (self.snapshot.clone()).map(|snap| PySnapshot { snap })
    }

    /// The messages recorded in this tick, each the bytes of one network message (its packed
    /// id and fields), in order.
    #[getter]
    fn messages<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyBytes>> {
        (self.messages.iter())
            .map(|m| PyBytes::new(py, m))
            .collect()
    }

    /// `<twcodec.Tick 120 delta: 14 items, 2 messages>`.
    fn __repr__(&self) -> String {
        format!(
            "<twcodec.Tick {} {}: {} items, {} messages>",
            self.tick,
            self.update,
            self.snapshot.as_ref().map_or(0, |s| s.len()),
            self.messages.len()
        )
    }
}

/// Records a demo as DDNet's recorder does (`twcodec::demo::DemoWriter`): a tick marker before
/// each tick's snapshot, a full snapshot first and every 5 seconds, deltas in between (none
/// when nothing changed), messages as they come; `finish()` writes the length and markers into
/// the header and gives the demo.
#[pyclass(name = "DemoWriter", module = "twcodec", frozen)]
pub(crate) struct PyDemoWriter {
    writer: Shared<Option<DemoWriter<Cursor<Vec<u8>>>>>,
}

impl PyDemoWriter {
    /// The writer for the method `what`, or `twcodec.Error` once finished.
    fn with<T>(
        &self,
        py: Python<'_>,
        what: &'static str,
        f: impl FnOnce(&mut DemoWriter<Cursor<Vec<u8>>>) -> Result<T, twcodec::Error>,
    ) -> PyResult<T> {
        let mut writer = self.writer.write(py, what)?;
        let Some(writer) = writer.as_mut() else {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{what}: the demo is finished"
            )));
        };
        f(writer).or_raise()
    }
}

#[pymethods]
impl PyDemoWriter {
    /// A new demo of the map `map` (the map file's bytes, embedded; empty for none), whose
    /// header says `map_name`, `net_version` (DDNet's `0.6 626fce9a778df4d4` by default, or
    /// `0.7 802f1be60a05665f`), `version` (3 to 6), `kind` (`client` or `server`) and
    /// `timestamp`.
    #[new]
    #[pyo3(signature = (map = None, *, map_name = String::new(), net_version = None, version = 6, kind = None, timestamp = String::new()))]
    fn new(
        map: Option<&[u8]>,
        map_name: String,
        net_version: Option<String>,
        version: u8,
        kind: Option<String>,
        timestamp: String,
    ) -> PyResult<PyDemoWriter> {
        let defaults = DemoInfo::default();
        let info = DemoInfo {
            version,
            net_version: net_version.unwrap_or(defaults.net_version),
            map_name,
            kind: kind.unwrap_or(defaults.kind),
            timestamp,
        };
        let writer =
            DemoWriter::new(Cursor::new(Vec::new()), &info, map.unwrap_or_default()).or_raise()?;
        Ok(PyDemoWriter {
            writer: Shared::new(Some(writer), "demo writer"),
        })
    }

    /// Records the snapshot of `tick`: a keyframe when the last is more than 5 seconds old
    /// (or there is none), else the delta against the last snapshot.
    fn snapshot(&self, py: Python<'_>, tick: i32, snapshot: PyRef<'_, PySnapshot>) -> PyResult<()> {
        let snap = snapshot.snap.clone();
        self.with(py, "DemoWriter.snapshot", |writer| {
            writer.snapshot(tick, &snap)
        })
    }

    /// Records the snapshot of `tick` as a keyframe, in full.
    fn keyframe(&self, py: Python<'_>, tick: i32, snapshot: PyRef<'_, PySnapshot>) -> PyResult<()> {
        let snap = snapshot.snap.clone();
        self.with(py, "DemoWriter.keyframe", |writer| {
            writer.keyframe(tick, &snap)
        })
    }

    /// Writes a tick marker alone (a tick without a snapshot).
    #[pyo3(signature = (tick, keyframe = false))]
    fn tick(&self, py: Python<'_>, tick: i32, keyframe: bool) -> PyResult<()> {
        self.with(py, "DemoWriter.tick", |writer| writer.tick(tick, keyframe))
    }

    /// Records a message the client received: its bytes (packed id and fields, as
    /// `Tick.messages` gives them).
    fn message(&self, py: Python<'_>, data: &[u8]) -> PyResult<()> {
        self.with(py, "DemoWriter.message", |writer| {
            writer.message_bytes(data)
        })
    }

    /// Adds a timeline marker at `tick` (version 4 on; at most 64, a second apart).
    fn marker(&self, py: Python<'_>, tick: i32) -> PyResult<()> {
        self.with(py, "DemoWriter.marker", |writer| writer.marker(tick))
    }

    /// Ends the recording: the header gets the length and markers; gives the demo.
    fn finish(&self, py: Python<'_>) -> PyResult<PyDemo> {
        let mut slot = self.writer.write(py, "DemoWriter.finish")?;
        let Some(writer) = slot.take() else {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "DemoWriter.finish: the demo is finished",
            ));
        };
        let bytes = writer.finish().or_raise()?.into_inner();
        Ok(PyDemo {
            demo: Demo::from_bytes(bytes).or_raise()?,
        })
    }

    /// `<twcodec.DemoWriter version 6, last tick 120>`.
    fn __repr__(&self) -> String {
        match self.writer.try_read("DemoWriter.__repr__") {
            None => format!("<twcodec.DemoWriter: {}>", self.writer.in_use()),
            Some(writer) => match writer.as_ref() {
                None => "<twcodec.DemoWriter finished>".into(),
                Some(writer) => format!(
                    "<twcodec.DemoWriter version {}, last tick {}>",
                    writer.version(),
                    writer.last_tick().map_or("none".into(), |t| t.to_string())
                ),
            },
        }
    }
}
