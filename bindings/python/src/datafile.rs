//! `twcodec.Datafile`: the datafile layer under maps (items as ints, data inflated on request).

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use twcodec::Datafile;

use crate::errors::OrRaise;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDatafile>()
}

/// A datafile (`twcodec::Datafile`): every count, offset and size checked against the file;
/// items as (type_id, id, ints); data items inflated on request to their declared size.
#[pyclass(name = "Datafile", module = "twcodec", frozen)]
pub(crate) struct PyDatafile {
    df: Datafile,
}

/// An item as Python sees it: (type_id, id, ints).
type ItemTuple = (u16, u16, Vec<i32>);

fn item_tuple(item: &twcodec::schema::datafile::Item) -> ItemTuple {
    (item.key.type_id, item.key.id, item.data.clone())
}

#[pymethods]
impl PyDatafile {
    /// Reads a datafile.
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<PyDatafile> {
        let df = py.detach(|| Datafile::open(&path)).or_raise()?;
        Ok(PyDatafile { df })
    }

    /// Reads a datafile from its bytes.
    #[staticmethod]
    fn parse(py: Python<'_>, data: &[u8]) -> PyResult<PyDatafile> {
        let df = py.detach(|| Datafile::parse(data)).or_raise()?;
        Ok(PyDatafile { df })
    }

    /// The datafile version, 3 or 4.
    #[getter]
    fn version(&self) -> i32 {
        self.df.version().number()
    }

    /// What the reader accepted with a warning (old size fields, trailing bytes, ...), as text.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.df.warnings().iter().map(ToString::to_string).collect()
    }

    /// Every item, in file order, as (type_id, id, ints).
    fn items(&self) -> Vec<ItemTuple> {
        self.df.items().iter().map(item_tuple).collect()
    }

    /// The items of one type, as (type_id, id, ints).
    fn items_of_type(&self, type_id: u16) -> Vec<ItemTuple> {
        self.df
            .items_of_type(type_id)
            .iter()
            .map(item_tuple)
            .collect()
    }

    /// The ints of the item of this type and id, or None.
    fn item(&self, type_id: u16, id: u16) -> Option<Vec<i32>> {
        self.df.item(type_id, id).map(|item| item.data.clone())
    }

    /// The UUID item types the file declares, as (type_id, uuid as a hex string).
    fn uuid_types(&self) -> Vec<(u16, String)> {
        (self.df.uuid_types().iter())
            .map(|(type_id, uuid)| (*type_id, uuid.to_string()))
            .collect()
    }

    /// How many data items the file has.
    #[getter]
    fn data_count(&self) -> usize {
        self.df.data_count()
    }

    /// A data item, inflated to exactly its declared size.
    fn data<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyBytes>> {
        let data = py
            .detach(|| self.df.data(index).map(|d| d.into_owned()))
            .or_raise()?;
        Ok(PyBytes::new(py, &data))
    }

    /// The declared (inflated) size of a data item, or None past the last one.
    fn data_size(&self, index: usize) -> Option<usize> {
        self.df.data_size(index)
    }

    /// The file written back: the same bytes as read (unchanged data keeps its compressed
    /// bytes).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut bytes = Vec::new();
        py.detach(|| self.df.write(&mut bytes)).or_raise()?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The number of items (`len(datafile)`).
    fn __len__(&self) -> usize {
        self.df.items().len()
    }

    /// `<twcodec.Datafile version 4: 12 items, 3 data items>`.
    fn __repr__(&self) -> String {
        format!(
            "<twcodec.Datafile version {}: {} items, {} data items>",
            self.df.version().number(),
            self.df.items().len(),
            self.df.data_count()
        )
    }
}
