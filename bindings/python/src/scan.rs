//! `twcodec.find`, `twcodec.scan_file` and `twcodec.scan` (`twcodec_tools::scan`): one row per map
//! or demo, as a dict with the keys of `twcodec scan`'s JSONL.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyList;
use twcodec_tools::scan::ScanOptions;

use crate::errors::OrRaise;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(find, m)?)?;
    m.add_function(wrap_pyfunction!(scan_file, m)?)?;
    m.add_function(wrap_pyfunction!(scan, m)?)?;
    Ok(())
}

/// Every `.map` and `.demo` file under `paths` (recursively; a file given by name is taken
/// whatever its name), sorted within each path, paths in the order given; as strings.
#[pyfunction]
fn find(py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Vec<String>> {
    let files = py.detach(|| twcodec_tools::scan::find(&paths)).or_raise()?;
    Ok(files.iter().map(|f| f.display().to_string()).collect())
}

/// The row of one file, as `twcodec scan` prints it (a file that fails is a row with its
/// `error`). `deep`: inflate and check all content, replay demos.
#[pyfunction]
#[pyo3(signature = (path, *, deep = false))]
fn scan_file(py: Python<'_>, path: PathBuf, deep: bool) -> PyResult<Bound<'_, PyAny>> {
    let options = ScanOptions::default().deep(deep).jobs(None);
    let row = py.detach(|| twcodec_tools::scan::scan_file(&path, &options));
    crate::to_python(py, &row)
}

/// The rows of every map and demo under `paths`, in the files' order, computed on `jobs`
/// threads of this process (default: one per core).
#[pyfunction]
#[pyo3(signature = (paths, *, deep = false, jobs = None))]
fn scan(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    deep: bool,
    jobs: Option<usize>,
) -> PyResult<Bound<'_, PyList>> {
    let options = ScanOptions::default().deep(deep).jobs(jobs);
    let rows = py
        .detach(|| -> Result<Vec<_>, twcodec::Error> {
            let files = twcodec_tools::scan::find(&paths)?;
            let rows = twcodec_tools::scan::scan(&files, &options)?.collect();
            Ok(rows)
        })
        .or_raise()?;
    let list = PyList::empty(py);
    for row in &rows {
        list.append(crate::to_python(py, row)?)?;
    }
    Ok(list)
}
