//! `twcodec.Ghost`: a DDNet ghost (`.gho`), read, its rows, and written (`twcodec::ghost`).

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use twcodec::ghost::{Ghost, GhostWriter};
use twcodec::schema::ghost::{GhostCharacter, GhostSkin};

use crate::errors::OrRaise;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGhost>()?;
    Ok(())
}

/// A DDNet ghost file (`twcodec::ghost::Ghost`): a race the client recorded, one character
/// state per tick. Reading checks the header and the chunk headers; the items are decoded
/// when asked for.
#[pyclass(name = "Ghost", module = "twcodec", frozen)]
pub(crate) struct PyGhost {
    ghost: Ghost,
}

use twcodec_tools::dump::hex;

/// The fields of a character row, in the order of `CGhostCharacter` (the tick apart).
const FIELDS: [&str; 11] = [
    "x",
    "y",
    "vel_x",
    "vel_y",
    "angle",
    "direction",
    "weapon",
    "hook_state",
    "hook_x",
    "hook_y",
    "attack_tick",
];

/// A character from a dict of `rows()`' keys: missing fields are 0, a missing or None `tick`
/// makes a character without tick; other keys (`time`, `weapon_name`, ...) are ignored.
fn character(row: &Bound<'_, PyDict>) -> PyResult<GhostCharacter> {
    let mut ints = [0i32; 11];
    for (slot, field) in ints.iter_mut().zip(FIELDS) {
        if let Some(value) = row.get_item(field)? {
            *slot = value.extract()?;
        }
    }
    let mut all = ints.to_vec();
    if let Some(tick) = row.get_item("tick")? {
        if !tick.is_none() {
            all.push(tick.extract()?);
        }
    }
    GhostCharacter::from_ints(&all).ok_or_else(|| PyValueError::new_err("not a character"))
}

fn sha256_from_hex(text: &str) -> PyResult<[u8; 32]> {
    let bad = || PyValueError::new_err(format!("map_sha256 {text:?} is not 64 hex digits"));
    if text.len() != 64 || !text.is_ascii() {
        return Err(bad());
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
    }
    Ok(out)
}

#[pymethods]
impl PyGhost {
    /// Reads a ghost file, checking its header and chunk headers.
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<PyGhost> {
        let ghost = py.detach(|| Ghost::open(&path)).or_raise()?;
        Ok(PyGhost { ghost })
    }

    /// Reads a ghost from its bytes.
    #[staticmethod]
    fn parse(data: &[u8]) -> PyResult<PyGhost> {
        Ok(PyGhost {
            ghost: Ghost::parse(data).or_raise()?,
        })
    }

    /// Writes a ghost as DDNet's recorder does and reads it back. `characters`: dicts with
    /// the keys of `rows()` (`tick` None or missing: a character without tick, as older
    /// clients wrote). `skin`: a skin name, or a dict with name, use_custom_color, color_body
    /// and color_feet. Version 6 takes `map_sha256` (hex), versions 4 and 5 `map_crc`.
    /// Raises twcodec.Error for what DDNet refuses (no characters, time not above 0, names
    /// too long).
    #[staticmethod]
    #[pyo3(signature = (owner, map_name, characters, *, time_ms, version = 6, start_tick = None,
        skin = None, map_sha256 = None, map_crc = None))]
    #[allow(clippy::too_many_arguments)]
    fn write(
        owner: &str,
        map_name: &str,
        characters: Vec<Bound<'_, PyDict>>,
        time_ms: i32,
        version: u8,
        start_tick: Option<i32>,
        skin: Option<Bound<'_, PyAny>>,
        map_sha256: Option<&str>,
        map_crc: Option<u32>,
    ) -> PyResult<PyGhost> {
        let mut writer = GhostWriter::new(owner, map_name);
        writer.version(version).time_ms(time_ms);
        if let Some(sha256) = map_sha256 {
            writer.map_sha256(sha256_from_hex(sha256)?);
        }
        if let Some(crc) = map_crc {
            writer.map_crc(crc);
        }
        if let Some(tick) = start_tick {
            writer.start_tick(tick);
        }
        if let Some(skin) = skin {
            let ghost_skin = match skin.extract::<String>() {
                Ok(name) => GhostSkin::with_name(&name),
                Err(_) => {
                    let dict = skin.cast::<PyDict>()?;
                    let name: String = match dict.get_item("name")? {
                        Some(name) => name.extract()?,
                        None => "default".into(),
                    };
                    let get = |key: &str| -> PyResult<i32> {
                        dict.get_item(key)?.map_or(Ok(0), |v| v.extract())
                    };
                    GhostSkin {
                        use_custom_color: get("use_custom_color")?,
                        color_body: get("color_body")?,
                        color_feet: get("color_feet")?,
                        ..GhostSkin::with_name(&name)
                    }
                }
            };
            writer.skin(ghost_skin);
        }
        for row in &characters {
            writer.character(character(row)?);
        }
        let bytes = writer.finish().or_raise()?;
        Ok(PyGhost {
            ghost: Ghost::from_bytes(bytes).or_raise()?,
        })
    }

    /// The ghost version (4 to 6).
    #[getter]
    fn version(&self) -> u8 {
        self.ghost.version()
    }

    /// The player's name.
    #[getter]
    fn owner(&self) -> String {
        self.ghost.owner()
    }

    /// The map's name.
    #[getter]
    fn map_name(&self) -> String {
        self.ghost.map_name()
    }

    /// The map's SHA-256 in hex (version 6), else None.
    #[getter]
    fn map_sha256(&self) -> Option<String> {
        self.ghost.map_sha256().map(|sha| hex(&sha))
    }

    /// The map's CRC-32 (versions 4 and 5), else None.
    #[getter]
    fn map_crc(&self) -> Option<u32> {
        self.ghost.map_crc()
    }

    /// The race time in milliseconds.
    #[getter]
    fn time_ms(&self) -> i32 {
        self.ghost.time_ms()
    }

    /// How many characters the header says the ghost holds.
    #[getter]
    fn num_ticks(&self) -> i32 {
        self.ghost.header().num_ticks
    }

    /// The tick the race started, when the ghost gives it.
    #[getter]
    fn start_tick(&self) -> PyResult<Option<i32>> {
        Ok(self.ghost.decode().or_raise()?.start_tick)
    }

    /// The skin (name, use_custom_color, color_body, color_feet), or None.
    #[getter]
    fn skin<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(skin) = self.ghost.decode().or_raise()?.skin else {
            return Ok(None);
        };
        let dict = PyDict::new(py);
        dict.set_item("name", skin.name())?;
        dict.set_item("use_custom_color", skin.use_custom_color)?;
        dict.set_item("color_body", skin.color_body)?;
        dict.set_item("color_feet", skin.color_feet)?;
        Ok(Some(dict))
    }

    /// The tick of each character (for a ghost without ticks, DDNet's estimate).
    #[getter]
    fn ticks(&self) -> PyResult<Vec<i32>> {
        Ok(self.ghost.decode().or_raise()?.ticks())
    }

    /// One dict per tick, the columns of `twcodec ghost export`: tick, time, x, y, vel_x,
    /// vel_y, angle, direction, weapon, weapon_name, hook_state, hook_state_name, hook_x,
    /// hook_y, attack_tick. `pandas.DataFrame(ghost.rows())`.
    fn rows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rows = py.detach(|| twcodec_tools::ghost::rows(&self.ghost));
        crate::to_python(py, &rows.or_raise()?)
    }

    /// Every item as stored, its difference coding undone: dicts of chunk, type, ints.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let items: Vec<serde_json::Value> = (self.ghost.items())
            .map(|item| {
                item.map(|item| {
                    serde_json::json!({
                        "chunk": item.chunk,
                        "type": item.item_type.0,
                        "ints": item.ints,
                    })
                })
            })
            .collect::<Result<_, _>>()
            .or_raise()?;
        crate::to_python(py, &items)
    }

    /// Whether `data` (a map file's bytes) is the ghost's map, by SHA-256 (version 6) or
    /// CRC-32.
    fn map_matches(&self, data: &[u8]) -> bool {
        self.ghost.map_matches(data)
    }

    /// The ghost's bytes: those read, unchanged.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.ghost.to_bytes())
    }

    /// Writes the ghost's bytes to a file (atomically).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| self.ghost.save(&path)).or_raise()
    }

    /// The rows, one per tick (`for row in ghost`).
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.rows(py)?.try_iter()?.into_any())
    }

    fn __len__(&self) -> usize {
        self.ghost.header().num_ticks.max(0) as usize
    }

    fn __repr__(&self) -> String {
        format!(
            "Ghost(version {}, {:?} on {:?}, {} ticks, {} ms)",
            self.ghost.version(),
            self.ghost.owner(),
            self.ghost.map_name(),
            self.ghost.header().num_ticks,
            self.ghost.time_ms()
        )
    }
}
