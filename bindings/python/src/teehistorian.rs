//! `twcodec.Teehistorian`: DDNet teehistorian files, their header and their records as dicts
//! (`twcodec::teehistorian`, the JSON of `twcodec teehistorian dump`).

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use twcodec::teehistorian::{Records, Teehistorian};

use crate::errors::OrRaise;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTeehistorian>()?;
    m.add_class::<PyTeehistorianRecords>()?;
    Ok(())
}

/// A teehistorian file (`twcodec::teehistorian::Teehistorian`): DDNet's server-side record of
/// a game; its header, and its records read lazily.
#[pyclass(name = "Teehistorian", module = "twcodec", frozen)]
pub(crate) struct PyTeehistorian {
    th: Teehistorian,
}

#[pymethods]
impl PyTeehistorian {
    /// Reads a teehistorian file, checking its magic and header.
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<PyTeehistorian> {
        let th = py.detach(|| Teehistorian::open(&path)).or_raise()?;
        Ok(PyTeehistorian { th })
    }

    /// Reads a teehistorian file from its bytes, checking its magic and header.
    #[staticmethod]
    fn parse(data: &[u8]) -> PyResult<PyTeehistorian> {
        Ok(PyTeehistorian {
            th: Teehistorian::parse(data).or_raise()?,
        })
    }

    /// The header, a dict (`game_uuid`, `map_name`, `config`, `tuning`, `uuids`...; DDNet
    /// writes numbers as strings).
    #[getter]
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::to_python(py, self.th.header())
    }

    /// The header's `map_name`, or None.
    #[getter]
    fn map_name(&self) -> Option<&str> {
        self.th.header_str("map_name")
    }

    /// The header's `game_uuid`, or None.
    #[getter]
    fn game_uuid(&self) -> Option<&str> {
        self.th.header_str("game_uuid")
    }

    /// The file's bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.th.bytes())
    }

    /// The records, lazily, each a dict: index, offset, tick, kind and its fields (as
    /// `twcodec teehistorian dump` prints them). A record that does not read raises
    /// `twcodec.Error` naming it and its offset.
    fn records(&self) -> PyTeehistorianRecords {
        PyTeehistorianRecords {
            records: Mutex::new(self.th.records()),
        }
    }

    /// Same as `records()`.
    fn __iter__(&self) -> PyTeehistorianRecords {
        self.records()
    }

    /// Counts of the records by kind and extension, first and last tick, client ids seen,
    /// whether the file ends with FINISH, and the error that ended the records, if any.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let summary = py.detach(|| twcodec_tools::teehistorian::summary(&self.th));
        crate::to_python(py, &summary)
    }

    /// A demo of the game on the map `map` (its bytes), as `twcodec teehistorian to-demo`
    /// writes it: one snapshot per tick that has records, characters at the recorded
    /// positions; `player` is the demo's local player.
    #[pyo3(signature = (map, player=None))]
    fn to_demo<'py>(
        &self,
        py: Python<'py>,
        map: &[u8],
        player: Option<i32>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (out, _, failure) = py
            .detach(|| {
                twcodec_tools::teehistorian::to_demo(
                    &self.th,
                    map,
                    player,
                    std::io::Cursor::new(Vec::new()),
                )
            })
            .or_raise()?;
        if let Some(error) = failure {
            return Err(crate::errors::to_pyerr(py, &error));
        }
        Ok(PyBytes::new(py, out.get_ref()))
    }

    fn __repr__(&self) -> String {
        format!(
            "Teehistorian(map_name={:?}, game_uuid={:?})",
            self.th.header_str("map_name").unwrap_or(""),
            self.th.header_str("game_uuid").unwrap_or("")
        )
    }
}

/// The records of a `Teehistorian`, an iterator of dicts.
#[pyclass(name = "TeehistorianRecords", module = "twcodec", frozen)]
pub(crate) struct PyTeehistorianRecords {
    records: Mutex<Records>,
}

#[pymethods]
impl PyTeehistorianRecords {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next record as a dict; `StopIteration` at the end.
    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let next = {
            let mut records = self
                .records
                .lock()
                .map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("records poisoned"))?;
            records.next()
        };
        match next {
            None => Ok(None),
            Some(record) => {
                let record = record.or_raise()?;
                let json = twcodec_tools::teehistorian::record_json(&record);
                crate::to_python(py, &json).map(Some)
            }
        }
    }
}
