//! What the resolver finds wrong with a map: problems with a severity, the item they are about
//! and the field.

use std::fmt;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Severity {
    /// The map loads the same with or without it (duplicate physics layers, unknown curve types).
    Warning,
    /// The map is broken here; strict loading stops, lenient loading keeps what it can.
    Error,
}

/// The map item a problem is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ItemPlace {
    /// What kind of item (`layer`, `image`, ...).
    pub kind: &'static str,
    /// Its index among the items of its kind.
    pub index: usize,
    /// Its type id in the datafile.
    pub type_id: u16,
    /// Its id in the datafile.
    pub id: u16,
}

impl fmt::Display for ItemPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} #{} (type {}, id {})",
            self.kind, self.index, self.type_id, self.id
        )
    }
}

/// Something the resolver found wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Problem {
    /// Warning, or an error strict loading refuses.
    pub severity: Severity,
    /// The item, when the problem is about one.
    pub item: Option<ItemPlace>,
    /// The field, when the problem is about one.
    pub field: Option<&'static str>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    /// `layer #3 (type 5, id 3): field `image` = 7 points past the 2 image items`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(item) = &self.item {
            write!(f, "{item}: ")?;
        }
        if let Some(field) = self.field {
            write!(f, "field `{field}` ")?;
        }
        f.write_str(&self.message)
    }
}

impl Problem {
    /// The problem as an error (strict loading returns the first error this way).
    pub fn to_error(&self) -> crate::Error {
        let message = match self.field {
            Some(field) => format!("field `{field}` {}", self.message),
            None => self.message.clone(),
        };
        let error = crate::Error::malformed(message);
        match self.item {
            Some(item) => error.located(crate::Location::MapItem {
                kind: item.kind,
                index: item.index,
                type_id: item.type_id,
                id: item.id,
            }),
            None => error,
        }
    }
}

/// Collects problems while resolving.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    pub(crate) list: Vec<Problem>,
}

impl Problems {
    pub(crate) fn error(
        &mut self,
        item: Option<ItemPlace>,
        field: Option<&'static str>,
        message: impl Into<String>,
    ) {
        self.push(Severity::Error, item, field, message);
    }

    pub(crate) fn warning(
        &mut self,
        item: Option<ItemPlace>,
        field: Option<&'static str>,
        message: impl Into<String>,
    ) {
        self.push(Severity::Warning, item, field, message);
    }

    fn push(
        &mut self,
        severity: Severity,
        item: Option<ItemPlace>,
        field: Option<&'static str>,
        message: impl Into<String>,
    ) {
        self.list.push(Problem {
            severity,
            item,
            field,
            message: message.into(),
        });
    }
}
