//! `twcodec.Snapshot` and `twcodec.SnapshotDelta` (`twcodec::snap`).

use std::sync::Arc;

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use twcodec::snap::{Form, Protocol, SizeTable, Snapshot, SnapshotBuilder, SnapshotDelta};

use crate::errors::{invalid_options, OrRaise};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySnapshot>()?;
    m.add_class::<PySnapshotDelta>()?;
    Ok(())
}

fn form(packed: bool) -> Form {
    match packed {
        true => Form::Packed,
        false => Form::Ints,
    }
}

/// The pre-agreed item sizes of a protocol named 'ddnet' (Teeworlds 0.6 and DDNet) or
/// 'teeworlds07'.
pub(crate) fn protocol(py: Python<'_>, name: &str) -> PyResult<Protocol> {
    match name {
        "ddnet" => Ok(Protocol::Ddnet06),
        "teeworlds07" => Ok(Protocol::Teeworlds07),
        other => Err(invalid_options(
            py,
            format!("protocol is 'ddnet' or 'teeworlds07', not {other:?}"),
        )),
    }
}

/// The ticks `twcodec_testkit::sample::game_snapshot` computes without overflow: it multiplies the tick
/// by up to 31 (a player's number), which panics past these in a debug build (as `.ci/run`
/// builds the package) and wraps in a release one. About 15 days at 50 ticks a second.
const SAMPLE_TICKS: std::ops::RangeInclusive<i32> = -(i32::MAX / 32)..=i32::MAX / 32;

fn sizes(py: Python<'_>, name: &str) -> PyResult<SizeTable> {
    Ok(protocol(py, name)?.sizes())
}

/// A snapshot (`twcodec::snap::Snapshot`): items of (type_id, id, ints), in stored order.
/// Immutable; shared, not copied, between the ticks of a demo replay.
#[pyclass(name = "Snapshot", module = "twcodec", frozen)]
pub(crate) struct PySnapshot {
    pub(crate) snap: Arc<Snapshot>,
}

#[pymethods]
impl PySnapshot {
    /// A snapshot of `items`, each (type_id, id, ints), in this order; DDNet's rules checked
    /// (at most 1024 items and 64 KiB, no duplicate keys).
    #[new]
    #[pyo3(signature = (items = Vec::new()))]
    fn new(items: Vec<(u16, u16, Vec<i32>)>) -> PyResult<PySnapshot> {
        let mut builder = SnapshotBuilder::new();
        for (type_id, id, data) in &items {
            builder.add_item(*type_id, *id, data).or_raise()?;
        }
        Ok(PySnapshot {
            snap: Arc::new(builder.finish().or_raise()?),
        })
    }

    /// The sample game snapshot of `twcodec_testkit::sample` at `tick` (a few characters, pickups and
    /// a flag, moving with the tick), for ticks within [`SAMPLE_TICKS`].
    #[staticmethod]
    fn sample(py: Python<'_>, tick: i32) -> PyResult<PySnapshot> {
        if !SAMPLE_TICKS.contains(&tick) {
            return Err(invalid_options(
                py,
                format!(
                    "the sample snapshot's tick is from {} to {}, not {tick}",
                    SAMPLE_TICKS.start(),
                    SAMPLE_TICKS.end()
                ),
            ));
        }
        Ok(PySnapshot {
            snap: Arc::new(twcodec_testkit::sample::game_snapshot(tick)),
        })
    }

    /// Reads a snapshot: 4-byte little-endian ints, or with `packed=True` the packed ints of
    /// the network and demos.
    #[staticmethod]
    #[pyo3(signature = (data, *, packed = false))]
    fn from_bytes(data: &[u8], packed: bool) -> PyResult<PySnapshot> {
        let snap = Snapshot::parse(data, form(packed)).or_raise()?;
        Ok(PySnapshot {
            snap: Arc::new(snap),
        })
    }

    /// The snapshot's bytes, in the form `from_bytes` reads.
    #[pyo3(signature = (*, packed = false))]
    fn to_bytes<'py>(&self, py: Python<'py>, packed: bool) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.snap.to_bytes(form(packed)))
    }

    /// The items as objects of `protocol` ('ddnet' or 'teeworlds07'), each a dict as
    /// `twcodec snap decode --format json` prints it: index, type_id, id, name, uuid (extended
    /// types), object (its kind and fields by name), note (why an item stayed ints).
    #[pyo3(signature = (protocol = "ddnet"))]
    fn objects<'py>(&self, py: Python<'py>, protocol: &str) -> PyResult<Bound<'py, PyAny>> {
        let protocol = self::protocol(py, protocol)?;
        let objects: Vec<_> = self.snap.objects(protocol).collect();
        crate::to_python(py, &objects)
    }

    /// Every item, in stored order, as (type_id, id, ints).
    fn items(&self) -> Vec<(u16, u16, Vec<i32>)> {
        (self.snap.items())
            .map(|item| (item.type_id(), item.id(), item.data.to_vec()))
            .collect()
    }

    /// The ints of the item of this type and id, or None.
    fn item(&self, type_id: u16, id: u16) -> Option<Vec<i32>> {
        self.snap.item(type_id, id).map(<[i32]>::to_vec)
    }

    /// DDNet's checksum: the sum of the item ints (wrapping).
    #[getter]
    fn checksum(&self) -> i32 {
        self.snap.checksum()
    }

    /// The snapshot `delta` makes of this one (DDNet's rules checked).
    fn apply(&self, delta: &PySnapshotDelta) -> PyResult<PySnapshot> {
        let snap = self.snap.apply(&delta.delta).or_raise()?;
        Ok(PySnapshot {
            snap: Arc::new(snap),
        })
    }

    /// The number of items (`len(snapshot)`).
    fn __len__(&self) -> usize {
        self.snap.len()
    }

    /// Equal when they have the same items by key (the order they are stored in aside).
    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Ok(other) = other.cast::<PySnapshot>() else {
            return Ok(py.NotImplemented());
        };
        let equal = *self.snap == *other.get().snap;
        match op {
            CompareOp::Eq => Ok(equal.into_pyobject(py)?.to_owned().into_any().unbind()),
            CompareOp::Ne => Ok((!equal).into_pyobject(py)?.to_owned().into_any().unbind()),
            _ => Ok(py.NotImplemented()),
        }
    }

    /// `<twcodec.Snapshot 14 items, checksum 123456>`.
    fn __repr__(&self) -> String {
        format!(
            "<twcodec.Snapshot {} items, checksum {}>",
            self.snap.len(),
            self.snap.checksum()
        )
    }
}

/// A snapshot delta (`twcodec::snap::SnapshotDelta`): removed keys and changed items as
/// wrapping differences.
#[pyclass(name = "SnapshotDelta", module = "twcodec", frozen)]
pub(crate) struct PySnapshotDelta {
    delta: SnapshotDelta,
}

#[pymethods]
impl PySnapshotDelta {
    /// The delta from `old` to `new`, as DDNet's server writes it.
    #[staticmethod]
    fn create(old: &PySnapshot, new: &PySnapshot) -> PyResult<PySnapshotDelta> {
        let delta = SnapshotDelta::create(&old.snap, &new.snap).or_raise()?;
        Ok(PySnapshotDelta { delta })
    }

    /// Reads a delta under `protocol`'s pre-agreed item sizes ('ddnet' or 'teeworlds07'):
    /// 4-byte ints, or with `packed=True` packed ints.
    #[staticmethod]
    #[pyo3(signature = (data, *, packed = false, protocol = "ddnet"))]
    fn from_bytes(
        py: Python<'_>,
        data: &[u8],
        packed: bool,
        protocol: &str,
    ) -> PyResult<PySnapshotDelta> {
        let sizes = sizes(py, protocol)?;
        let delta = SnapshotDelta::parse(data, form(packed), &sizes).or_raise()?;
        Ok(PySnapshotDelta { delta })
    }

    /// The delta's bytes, in the form `from_bytes` reads.
    #[pyo3(signature = (*, packed = false, protocol = "ddnet"))]
    fn to_bytes<'py>(
        &self,
        py: Python<'py>,
        packed: bool,
        protocol: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let sizes = sizes(py, protocol)?;
        let bytes = self.delta.to_bytes(form(packed), &sizes).or_raise()?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Whether the delta changes nothing.
    #[getter]
    fn is_empty(&self) -> bool {
        self.delta.is_empty()
    }

    /// The keys removed, as (type_id, id).
    #[getter]
    fn removed(&self) -> Vec<(u16, u16)> {
        (self.delta.removed().iter())
            .map(|key| (key.type_id(), key.id()))
            .collect()
    }

    /// The items added or changed, as (type_id, id, differences).
    #[getter]
    fn updates(&self) -> Vec<(u16, u16, Vec<i32>)> {
        (self.delta.updates())
            .map(|item| (item.type_id(), item.id(), item.data.to_vec()))
            .collect()
    }

    /// `<twcodec.SnapshotDelta 1 removed, 3 updated>`.
    fn __repr__(&self) -> String {
        format!(
            "<twcodec.SnapshotDelta {} removed, {} updated>",
            self.delta.removed().len(),
            self.delta.updates().len()
        )
    }
}
