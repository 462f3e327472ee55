//! `twcodec::Error` as Python exceptions: `twcodec.Error` (a `ValueError`) for everything,
//! and `twcodec.IoError`, a subclass of both `twcodec.Error` and `OSError`, when a file could
//! not be read or written. `str()` of either is the Rust error's message exactly (what, where,
//! which: `data #1: zlib stream inflates past its declared size of 10 bytes (at byte 0xe7)`);
//! the attributes `kind`, `offset` and `path` hold what the Rust error knows apart.
//!
//! The bindings add `twcodec.BusyError`, a subclass of both `twcodec.Error` and
//! `RuntimeError` (kind 'busy'): a map used by another thread's call at the same time
//! ([`crate::shared`]).

use pyo3::create_exception;
use pyo3::exceptions::{PyBaseException, PyOSError, PyRuntimeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

create_exception!(
    twcodec,
    Error,
    PyValueError,
    "A twcodec error: str() is the library's message (what, where, which). Attributes: kind \
     ('malformed', 'unsupported', 'limit_exceeded', 'io', 'invalid_edit', 'invalid_options', \
     'busy'), offset (the byte offset in the input, or None), path (the file, or None)."
);

create_exception!(
    twcodec,
    RenderWarning,
    PyUserWarning,
    "Something a render drew differently from what the map asks: a missing external picture \
     (drawn as a placeholder), a picture that does not load, a missing entities tileset."
);

/// `twcodec.IoError(Error, OSError)` and `twcodec.BusyError(Error, RuntimeError)`, each made
/// once: two bases, which `create_exception!` does not take (the same pair of bases as
/// Python's own `io.UnsupportedOperation`).
static IO_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static BUSY_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// A subclass of `twcodec.Error` and `other` named `name`, made once in `cell`.
fn error_subclass<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    name: &str,
    doc: &str,
    other: Bound<'py, PyType>,
) -> PyResult<&'py Bound<'py, PyType>> {
    let ty = cell.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        let namespace = PyDict::new(py);
        namespace.set_item("__module__", "twcodec")?;
        namespace.set_item("__doc__", doc)?;
        // OSError's str() shows errno, strerror and filename when they are set; the message
        // is the one argument, so str() is BaseException's (as RuntimeError's already is).
        let base_str = py.get_type::<PyBaseException>().getattr("__str__")?;
        namespace.set_item("__str__", base_str)?;
        let bases = (py.get_type::<Error>(), other);
        let ty = py
            .import("builtins")?
            .getattr("type")?
            .call1((name, bases, namespace))?;
        Ok(ty.cast_into::<PyType>()?.unbind())
    })?;
    Ok(ty.bind(py))
}

fn io_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    let doc = "A file could not be read or written: a twcodec.Error and an OSError (errno and \
               filename set when known).";
    error_subclass(py, &IO_ERROR, "IoError", doc, py.get_type::<PyOSError>())
}

fn busy_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    let doc = "The object (a Map, a Replay) is in use by another call: another thread is inside \
               a call that released the GIL (Map.render, Map.save, Map.convert, ...), and this \
               call would read what it changes or change what it reads. Raised at once, never \
               waited for; a twcodec.Error (kind 'busy') and a RuntimeError. Share the object \
               between threads under a threading.Lock.";
    error_subclass(
        py,
        &BUSY_ERROR,
        "BusyError",
        doc,
        py.get_type::<PyRuntimeError>(),
    )
}

/// The exception class names and the warning class, added to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("IoError", io_error_type(py)?)?;
    m.add("BusyError", busy_error_type(py)?)?;
    m.add("RenderWarning", py.get_type::<RenderWarning>())?;
    Ok(())
}

/// The name of an error kind in Python (`kind` attribute).
fn kind_name(kind: twcodec::ErrorKind) -> &'static str {
    use twcodec::ErrorKind as K;
    match kind {
        K::Malformed => "malformed",
        K::Unsupported => "unsupported",
        K::LimitExceeded => "limit_exceeded",
        K::Io => "io",
        K::InvalidEdit => "invalid_edit",
        K::InvalidOptions => "invalid_options",
        _ => "other",
    }
}

/// The Python exception of a twcodec error.
pub(crate) fn to_pyerr(py: Python<'_>, error: &twcodec::Error) -> PyErr {
    let message = error.to_string();
    let kind = error.kind();
    let err = if kind == twcodec::ErrorKind::Io {
        match io_error_type(py) {
            Ok(ty) => PyErr::from_type(ty.clone(), (message,)),
            Err(e) => return e,
        }
    } else {
        Error::new_err(message)
    };
    let set = || -> PyResult<()> {
        let value = err.value(py);
        let path = error.path().map(|p| p.to_string_lossy().into_owned());
        value.setattr("kind", kind_name(kind))?;
        value.setattr("offset", error.offset())?;
        value.setattr("path", path.clone())?;
        if kind == twcodec::ErrorKind::Io {
            let errno = std::error::Error::source(error)
                .and_then(|s| s.downcast_ref::<std::io::Error>())
                .and_then(std::io::Error::raw_os_error);
            value.setattr("errno", errno)?;
            value.setattr("filename", path)?;
        }
        Ok(())
    };
    if let Err(e) = set() {
        return e;
    }
    err
}

/// `?` on a twcodec result in a method returning `PyResult`.
pub(crate) trait OrRaise<T> {
    /// The value, or the error raised as `twcodec.Error`.
    fn or_raise(self) -> PyResult<T>;
}

impl<T> OrRaise<T> for Result<T, twcodec::Error> {
    fn or_raise(self) -> PyResult<T> {
        self.map_err(|error| Python::attach(|py| to_pyerr(py, &error)))
    }
}

/// Shows `message` as a Python warning of `category`.
pub(crate) fn warn(py: Python<'_>, category: &Bound<'_, PyType>, message: &str) -> PyResult<()> {
    py.import("warnings")?
        .call_method1("warn", (message, category, 2))?;
    Ok(())
}

/// A `twcodec.Error` of kind `invalid_options` made by the bindings (an argument the library's
/// options cannot express).
pub(crate) fn invalid_options(py: Python<'_>, message: impl Into<String>) -> PyErr {
    with_kind(py, Error::new_err(message.into()), "invalid_options")
}

/// A `twcodec.BusyError` (kind `busy`): the object is in use by another call
/// ([`crate::shared`]).
pub(crate) fn busy(py: Python<'_>, message: String) -> PyErr {
    match busy_error_type(py) {
        Ok(ty) => with_kind(py, PyErr::from_type(ty.clone(), (message,)), "busy"),
        Err(e) => e,
    }
}

/// `err` with the attributes of an error the bindings make: `kind`, no offset, no path.
fn with_kind(py: Python<'_>, err: PyErr, kind: &str) -> PyErr {
    let value = err.value(py);
    let set = (value.setattr("kind", kind))
        .and_then(|()| value.setattr("offset", py.None()))
        .and_then(|()| value.setattr("path", py.None()));
    match set {
        Ok(()) => err,
        Err(e) => e,
    }
}
