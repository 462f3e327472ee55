//! numpy arrays over memory a `Map` owns, without copying it.
//!
//! A tile grid, a quads layer's quads and an RGBA image's pixels live in the Rust map (in a
//! `Vec` or in the map's cache of inflated data) at an address that does not change while the
//! map is not modified. An array over that memory is made read-only, and its numpy `base` is a
//! [`Keeper`] that holds the Python `Map` alive and counts itself in the map's [`Views`]. Every
//! method that modifies the map (`convert`, `Layer.set_tiles`) first checks that the count is
//! zero and raises `BufferError` otherwise, as `bytearray` does when a `memoryview` of it exists
//! and it is resized. So no array ever sees memory that was moved or freed.
//!
//! Threads: arrays are made under the map's read lock and the count is checked under its
//! write lock ([`crate::shared`]), so no array can appear between a change's check and the
//! change, whichever thread makes it; the count itself is atomic and read without the lock.
//!
//! What is not borrowed is moved: a rendered picture's buffer and RGB pixels widened to RGBA
//! are handed to numpy as they are (`PyArray::from_vec`), also without a copy.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use numpy::ndarray::{ArrayView, Dimension, IntoDimension, ShapeBuilder};
use numpy::{Element, PyArray, PyArrayMethods};
use pyo3::exceptions::PyBufferError;
use pyo3::prelude::*;

/// How many arrays borrow a map's memory.
#[derive(Debug, Default, Clone)]
pub(crate) struct Views(Arc<AtomicUsize>);

impl Views {
    /// An error when arrays still borrow the map: it cannot be modified now.
    pub(crate) fn check_none(&self, what: &str) -> PyResult<()> {
        match self.0.load(Ordering::SeqCst) {
            0 => Ok(()),
            n => Err(PyBufferError::new_err(format!(
                "cannot {what}: {n} numpy array(s) still view the map's tiles, quads or pixels \
                 (delete them, or take copies with .copy(), first)"
            ))),
        }
    }

    /// How many arrays borrow the map now.
    pub(crate) fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// The numpy `base` of an array that borrows a map's memory: keeps the map alive and counted.
#[pyclass(frozen, module = "twcodec")]
pub(crate) struct Keeper {
    _owner: Py<PyAny>,
    views: Views,
}

impl Drop for Keeper {
    fn drop(&mut self) {
        self.views.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A read-only array of `shape` over `data`, which `owner` owns and does not move or free
/// while `views` counts the array (see the module docs).
pub(crate) fn borrowed<'py, T: Element, D: Dimension>(
    owner: &Bound<'py, PyAny>,
    views: &Views,
    data: &[T],
    shape: impl IntoDimension<Dim = D>,
) -> PyResult<Bound<'py, PyArray<T, D>>> {
    let py = owner.py();
    let view = ArrayView::from_shape(shape.into_dimension().into_shape_with_order(), data)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("array shape: {e}")))?;
    views.0.fetch_add(1, Ordering::SeqCst);
    let keeper = Bound::new(
        py,
        Keeper {
            _owner: owner.clone().unbind(),
            views: views.clone(),
        },
    )?;
    // SAFETY: `data` is memory of the map `owner` wraps (a tile grid's Vec, a quads Vec, or
    // inflated data in the map's cache). The keeper, the array's base, holds `owner` alive
    // until the array is gone, and counts itself in `views` until then; every method that
    // modifies the map checks `views` first (`Views::check_none`) and fails while it is not
    // zero, so the memory is neither moved nor freed while the array exists. The array is made
    // read-only below, so Python does not write to memory Rust reads.
    let array = unsafe { PyArray::borrow_from_array(&view, keeper.into_any()) };
    read_only(&array)?;
    Ok(array)
}

/// Makes `array` read-only; an error (not a panic, as `readwrite()` would) when numpy's borrow
/// checking has it borrowed, which an array made just now never is.
pub(crate) fn read_only<T: Element, D: Dimension>(
    array: &Bound<'_, PyArray<T, D>>,
) -> PyResult<()> {
    let writable = (array.try_readwrite())
        .map_err(|e| PyBufferError::new_err(format!("a new array is borrowed: {e}")))?;
    writable.make_nonwriteable();
    Ok(())
}

/// An array of `shape` that takes over `data` (no copy).
pub(crate) fn owned<T: Element, D: Dimension>(
    py: Python<'_>,
    data: Vec<T>,
    shape: impl IntoDimension<Dim = D>,
) -> PyResult<Bound<'_, PyArray<T, D>>> {
    PyArray::from_vec(py, data).reshape(shape)
}
