//! Python bindings of twcodec: the extension module `twcodec._twcodec`, which the package's
//! `twcodec/__init__.py` re-exports (README, "Python").
//!
//! The bindings stay thin: each class wraps a twcodec type (`Map`, `Datafile`, `Snapshot`,
//! `SnapshotDelta`, `Demo`) and each method calls one library function. What they add:
//!
//! - Errors: every `twcodec::Error` becomes `twcodec.Error` (a `ValueError`), or
//!   `twcodec.IoError` (also an `OSError`) for I/O, whose `str()` is the Rust message; a
//!   missing file, a permission refused and a directory where a file belongs are also
//!   `FileNotFoundError`, `PermissionError` and `IsADirectoryError` ([`errors`]).
//! - Arrays: tiles, quads and RGBA image pixels are numpy arrays over the map's own memory,
//!   without a copy; rendered pictures and widened RGB images are moved into numpy, also
//!   without a copy ([`views`]).
//! - Edits take back what reading gives (`Envelope.points`, `Layer.sources()`, `Layer.quads()`
//!   records) and shorter hand-written forms, checked into the library's types with errors
//!   naming the point or source and the field; the library's edit calls check the rest
//!   ([`edit`]).
//! - Rows and items that the library serializes with serde (scan rows, on-disk items, the map
//!   dump) reach Python as dicts through JSON, with the keys the CLI prints.
//! - The tool layer in the command line's words ([`tools`]): `Map.diff` and `twcodec.Diff`
//!   (`twcodec diff`), `Map.unpack` and `Map.pack`, `Map.embed`, and `twcodec.Renderer`, which
//!   keeps the pictures it decodes between renders; render options in the CLI's units, with
//!   errors that name the option.
//! - Long calls (loading, saving, rendering, scanning, replaying) release the GIL. Other
//!   threads may then call the same map: reading calls share it, changes hold it alone, and
//!   a call that cannot share it with another thread's raises `twcodec.BusyError` at once,
//!   never pyo3's `PanicException` and never a wait ([`shared`]).

mod datafile;
mod demo;
mod edit;
mod errors;
mod ghost;
mod map;
mod scan;
mod shared;
mod snap;
mod teehistorian;
mod tools;
mod views;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The built-in sample map's bytes: a small DDNet map with every feature the map graph knows
/// (`twcodec_testkit::sample`).
#[pyfunction]
fn sample(py: Python<'_>) -> Bound<'_, PyBytes> {
    PyBytes::new(py, &twcodec_testkit::sample::datafile())
}

/// A value the library serializes with serde, as Python objects (dicts, lists, numbers,
/// strings), through JSON: the keys are the ones `twcodec` prints as JSON.
pub(crate) fn to_python<'py>(
    py: Python<'py>,
    value: &impl serde::Serialize,
) -> PyResult<Bound<'py, PyAny>> {
    let json = serde_json::to_string(value)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("to JSON: {e}")))?;
    json_to_python(py, &json)
}

/// JSON text as Python objects (`json.loads`).
pub(crate) fn json_to_python<'py>(py: Python<'py>, json: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (json,))
}

#[pymodule]
fn _twcodec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_function(wrap_pyfunction!(sample, m)?)?;
    map::register(m)?;
    datafile::register(m)?;
    snap::register(m)?;
    demo::register(m)?;
    teehistorian::register(m)?;
    ghost::register(m)?;
    scan::register(m)?;
    tools::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
