//! `twcodec::Error` as Python exceptions: `twcodec.Error` (a `ValueError`) for everything,
//! and `twcodec.IoError`, a subclass of both `twcodec.Error` and `OSError`, when a file could
//! not be read or written. `str()` of either is the Rust error's message exactly (what, where,
//! which: `data #1: zlib stream inflates past its declared size of 10 bytes (at byte 0xe7)`);
//! the attributes `kind`, `offset` and `path` hold what the Rust error knows apart.
//!
//! An I/O error whose kind the library knows ([`twcodec::Error::io_kind`]) is raised as a
//! subclass of `twcodec.IoError` and of the builtin that Python itself raises for it, so that
//! `except FileNotFoundError` works as with `open()`:
//!
//! | Rust `io::ErrorKind` | Python class                                     |
//! |----------------------|--------------------------------------------------|
//! | `NotFound`           | `NotFoundError(IoError, FileNotFoundError)`      |
//! | `PermissionDenied`   | `PermissionDeniedError(IoError, PermissionError)`|
//! | `IsADirectory`       | `IsDirectoryError(IoError, IsADirectoryError)`   |
//! | any other            | `IoError(Error, OSError)`                        |
//!
//! (`IsDirectoryError`, not `IsADirectoryError`, so that `from twcodec import *` does not
//! hide the builtin.) `errno` is the operating system's error code, or the one Python uses for
//! that class (`ENOENT`, `EACCES`, `EISDIR`) where the library found the problem itself;
//! `strerror` is its text, and `filename` the path when the error names one.
//!
//! The bindings add `twcodec.BusyError`, a subclass of both `twcodec.Error` and
//! `RuntimeError` (kind 'busy'): a map used by another thread's call at the same time
//! ([`crate::shared`]).

use pyo3::create_exception;
use pyo3::exceptions::{
    PyBaseException, PyFileNotFoundError, PyIsADirectoryError, PyOSError, PyPermissionError,
    PyRuntimeError, PyUserWarning, PyValueError,
};
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

/// `twcodec.IoError(Error, OSError)`, its subclasses per I/O error kind and
/// `twcodec.BusyError(Error, RuntimeError)`, each made once: two bases, which
/// `create_exception!` does not take (the same pair of bases as Python's own
/// `io.UnsupportedOperation`).
static IO_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static NOT_FOUND_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static PERMISSION_DENIED_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static IS_DIRECTORY_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static BUSY_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// A class named `name` of the two `bases`, made once in `cell`.
fn error_subclass<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    name: &str,
    doc: &str,
    bases: (Bound<'py, PyType>, Bound<'py, PyType>),
) -> PyResult<&'py Bound<'py, PyType>> {
    let ty = cell.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        let namespace = PyDict::new(py);
        namespace.set_item("__module__", "twcodec")?;
        namespace.set_item("__doc__", doc)?;
        // OSError's str() shows errno, strerror and filename when they are set; the message
        // is the one argument, so str() is BaseException's (as RuntimeError's already is).
        let base_str = py.get_type::<PyBaseException>().getattr("__str__")?;
        namespace.set_item("__str__", base_str)?;
        let ty = py
            .import("builtins")?
            .getattr("type")?
            .call1((name, bases, namespace))?;
        Ok(ty.cast_into::<PyType>()?.unbind())
    })?;
    Ok(ty.bind(py))
}

fn io_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    let doc = "A file could not be read or written: a twcodec.Error and an OSError (errno, \
               strerror and filename set when known). NotFoundError, PermissionDeniedError \
               and IsDirectoryError are the kinds that Python's builtins tell apart.";
    let bases = (py.get_type::<Error>(), py.get_type::<PyOSError>());
    error_subclass(py, &IO_ERROR, "IoError", doc, bases)
}

/// The subclass of `twcodec.IoError` for an I/O error of `kind`, if it has one.
fn io_kind_type(py: Python<'_>, kind: std::io::ErrorKind) -> PyResult<Option<&Bound<'_, PyType>>> {
    use std::io::ErrorKind as K;
    let (cell, name, doc, builtin) = match kind {
        K::NotFound => (
            &NOT_FOUND_ERROR,
            "NotFoundError",
            "A file or directory does not exist: a twcodec.IoError and a FileNotFoundError \
             (errno ENOENT).",
            py.get_type::<PyFileNotFoundError>(),
        ),
        K::PermissionDenied => (
            &PERMISSION_DENIED_ERROR,
            "PermissionDeniedError",
            "No permission to read or write a file: a twcodec.IoError and a PermissionError \
             (errno EACCES or EPERM).",
            py.get_type::<PyPermissionError>(),
        ),
        K::IsADirectory => (
            &IS_DIRECTORY_ERROR,
            "IsDirectoryError",
            "A directory where a file is read or written: a twcodec.IoError and an \
             IsADirectoryError (errno EISDIR).",
            py.get_type::<PyIsADirectoryError>(),
        ),
        _ => return Ok(None),
    };
    let bases = (io_error_type(py)?.clone(), builtin);
    error_subclass(py, cell, name, doc, bases).map(Some)
}

fn busy_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    let doc = "The object (a Map, a Replay) is in use by another call: another thread is inside \
               a call that released the GIL (Map.render, Map.save, Map.convert, ...), and this \
               call would read what it changes or change what it reads. Raised at once, never \
               waited for; a twcodec.Error (kind 'busy') and a RuntimeError. Share the object \
               between threads under a threading.Lock.";
    let bases = (py.get_type::<Error>(), py.get_type::<PyRuntimeError>());
    error_subclass(py, &BUSY_ERROR, "BusyError", doc, bases)
}

/// The exception class names and the warning class, added to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("IoError", io_error_type(py)?)?;
    use std::io::ErrorKind as K;
    for kind in [K::NotFound, K::PermissionDenied, K::IsADirectory] {
        if let Some(ty) = io_kind_type(py, kind)? {
            m.add(ty.name()?, ty)?;
        }
    }
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
        let ty = match error.io_kind() {
            Some(io_kind) => io_kind_type(py, io_kind).transpose(),
            None => None,
        };
        match ty.unwrap_or_else(|| io_error_type(py)) {
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
            let errno = match os_error_code(error) {
                Some(code) => Some(code.into_pyobject(py)?.into_any()),
                None => python_errno(py, error.io_kind())?,
            };
            let strerror = match &errno {
                Some(errno) => Some(py.import("os")?.call_method1("strerror", (errno,))?),
                None => None,
            };
            value.setattr("errno", errno)?;
            value.setattr("strerror", strerror)?;
            value.setattr("filename", path)?;
        }
        Ok(())
    };
    if let Err(e) = set() {
        return e;
    }
    err
}

/// The operating system's error code behind an I/O error, when there is one.
fn os_error_code(error: &twcodec::Error) -> Option<i32> {
    std::error::Error::source(error)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .and_then(std::io::Error::raw_os_error)
}

/// The `errno` Python's builtins use for an I/O error of `kind` that the library found
/// itself (no OS error code): `ENOENT`, `EACCES`, `EISDIR`; `None` for other kinds.
fn python_errno(
    py: Python<'_>,
    kind: Option<std::io::ErrorKind>,
) -> PyResult<Option<Bound<'_, PyAny>>> {
    use std::io::ErrorKind as K;
    let name = match kind {
        Some(K::NotFound) => "ENOENT",
        Some(K::PermissionDenied) => "EACCES",
        Some(K::IsADirectory) => "EISDIR",
        _ => return Ok(None),
    };
    Ok(Some(py.import("errno")?.getattr(name)?))
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

/// A setter's value as `T`, or a `twcodec.Error` (kind `invalid_edit`) that names the field,
/// says what it takes and shows what it got: `Group.offset = (1099511627776, 0): takes (x, y),
/// two ints of 32 bits (out of range integral type conversion attempted)`. PyO3's own error
/// for a setter names neither the field nor what it takes.
pub(crate) fn field<'py, T>(value: &Bound<'py, PyAny>, field: &str, takes: &str) -> PyResult<T>
where
    T: for<'a> FromPyObject<'a, 'py>,
    for<'a> <T as FromPyObject<'a, 'py>>::Error: Into<PyErr>,
{
    value.extract::<T>().map_err(|error| {
        let py = value.py();
        let error: PyErr = error.into();
        let shown = value.repr().map_or_else(
            |_| "?".to_string(),
            |repr| repr.to_string_lossy().into_owned(),
        );
        let mut cut = shown.len().min(80);
        while !shown.is_char_boundary(cut) {
            cut -= 1;
        }
        let more = if cut < shown.len() { "..." } else { "" };
        let why = error.value(py).to_string();
        with_kind(
            py,
            Error::new_err(format!(
                "{field} = {}{more}: takes {takes} ({why})",
                &shown[..cut]
            )),
            "invalid_edit",
        )
    })
}
