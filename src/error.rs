//! The one public error type, and the warnings that do not stop loading.
//!
//! An [`Error`] says what went wrong ([`ErrorKind`] and a message), where (a byte offset when
//! known) and in which part of the file ([`Location`]):
//!
//! ```text
//! datafile header: item_size 4000 is larger than the file (1520 bytes left) (at byte 0x1c)
//! data #3: zlib stream inflates past its declared size of 4096 bytes (at byte 0x2a0)
//! ```

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use twcodec_schema::snapshot::SnapKey;

use crate::sniff::FileKind;
use twcodec_schema::SchemaError;

/// Who is at fault, following image-png: the input, this library's coverage, a limit, or I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input breaks the format.
    Malformed,
    /// The input is well-formed but uses something this library does not support.
    Unsupported,
    /// A size or count is beyond what this library accepts (zlib bombs, absurd counts), or
    /// beyond what the format can store when writing.
    LimitExceeded,
    /// Reading or writing a file failed.
    Io,
    /// An edit of a map graph that cannot be made: a reference of another map or from before
    /// an edit that moved items, a layer of the wrong kind, a value the item cannot hold.
    InvalidEdit,
    /// Options that ask for what cannot be done: a camera zoom of 0, a layer the map does not
    /// have, an entities view over 100 %.
    InvalidOptions,
}

/// The part of a datafile an error or warning is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Location {
    /// The version header or the header.
    Header,
    /// An entry of the item type table.
    ItemType {
        /// Index in the item type table.
        index: usize,
        /// The type id the entry names.
        type_id: i32,
    },
    /// An item.
    Item {
        /// Index of the item in the file.
        index: usize,
        /// The item's type id as stored.
        type_id: u16,
        /// The item's id.
        id: u16,
    },
    /// The item block as a whole, or an item whose key could not be read.
    ItemIndex {
        /// Index of the item in the file.
        index: usize,
    },
    /// A data item.
    Data {
        /// Index of the data item.
        index: usize,
    },
    /// An item of a snapshot, by its index in the snapshot, and its key once known.
    SnapItem {
        /// Index of the item in the snapshot.
        index: usize,
        /// The item's key, when it could be read.
        key: Option<SnapKey>,
    },
    /// A removed key of a snapshot delta.
    RemovedKey {
        /// Index among the removed keys.
        index: usize,
        /// The key.
        key: SnapKey,
    },
    /// An item delta (a new or changed item) of a snapshot delta.
    ItemDelta {
        /// Index among the item deltas.
        index: usize,
        /// The item's key, when it could be read.
        key: Option<SnapKey>,
    },
    /// A chunk of a demo.
    Chunk {
        /// Index among the demo's chunks.
        index: usize,
        /// The tick of the last tick marker, if any.
        tick: Option<i32>,
    },
    /// A record of a teehistorian file.
    Record {
        /// Index among the file's records.
        index: usize,
        /// The tick it belongs to.
        tick: i32,
    },
    /// A map item, by its kind and index among the items of its kind (the map graph's view).
    MapItem {
        /// What kind of item (`layer`, `image`, ...).
        kind: &'static str,
        /// Index among the items of its kind.
        index: usize,
        /// Type id in the datafile.
        type_id: u16,
        /// Id in the datafile.
        id: u16,
    },
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Location::Header => f.write_str("datafile header"),
            Location::ItemType { index, type_id } => {
                write!(f, "item type #{index} (type {type_id})")
            }
            Location::Item { index, type_id, id } => {
                write!(f, "item #{index} (type {type_id}, id {id})")
            }
            Location::ItemIndex { index } => write!(f, "item #{index}"),
            Location::Data { index } => write!(f, "data #{index}"),
            Location::SnapItem { index, key } => {
                write!(f, "snapshot item #{index}")?;
                write_key(f, key)
            }
            Location::RemovedKey { index, key } => {
                write!(f, "removed key #{index}")?;
                write_key(f, Some(key))
            }
            Location::ItemDelta { index, key } => {
                write!(f, "item delta #{index}")?;
                write_key(f, key)
            }
            Location::Chunk { index, tick } => {
                write!(f, "chunk #{index}")?;
                match tick {
                    Some(tick) => write!(f, " (tick {tick})"),
                    None => Ok(()),
                }
            }
            Location::Record { index, tick } => write!(f, "record #{index} (tick {tick})"),
            Location::MapItem {
                kind,
                index,
                type_id,
                id,
            } => write!(f, "{kind} #{index} (type {type_id}, id {id})"),
        }
    }
}

/// ` (type T, id I)` of a snapshot key, when known.
fn write_key(f: &mut fmt::Formatter<'_>, key: Option<SnapKey>) -> fmt::Result {
    match key {
        Some(key) => write!(f, " (type {}, id {})", key.type_id(), key.id()),
        None => Ok(()),
    }
}

/// The error of every fallible operation of this crate.
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    kind: ErrorKind,
    message: String,
    location: Option<Location>,
    offset: Option<u64>,
    path: Option<PathBuf>,
    source: Option<io::Error>,
    /// The [`io::ErrorKind`] of an I/O error that has no `source` (one twcodec finds itself:
    /// a directory where a file is read or written).
    io_kind: Option<io::ErrorKind>,
    file_kind: Option<FileKind>,
}

impl Error {
    /// An error of `kind` saying `message`; [`Error::at`], [`Error::located`] and
    /// [`Error::with_path`] add where.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            inner: Box::new(Inner {
                kind,
                message: message.into(),
                location: None,
                offset: None,
                path: None,
                source: None,
                io_kind: None,
                file_kind: None,
            }),
        }
    }

    /// An error of kind [`ErrorKind::Malformed`].
    pub fn malformed(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Malformed, message)
    }

    /// An error of kind [`ErrorKind::LimitExceeded`].
    pub fn limit(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::LimitExceeded, message)
    }

    /// An error of kind [`ErrorKind::InvalidEdit`].
    pub fn invalid_edit(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidEdit, message)
    }

    /// An [`ItemRef`](crate::map::ItemRef) that this map did not make, or made before an edit
    /// that moved items.
    pub(crate) fn stale_ref(kind: &str, index: usize) -> Error {
        Error::invalid_edit(format!(
            "{kind} #{index}: the reference is from another map or from before a removal or move of items"
        ))
    }

    /// An error of kind [`ErrorKind::Io`]: `cannot {action}: {source}`, naming `path`.
    pub fn io(action: &str, path: &Path, source: io::Error) -> Error {
        let mut error = Error::new(ErrorKind::Io, format!("cannot {action}: {source}"));
        error.inner.path = Some(path.to_owned());
        error.inner.source = Some(source);
        error
    }

    /// Keeps `source`, the operating system's error behind this one, as
    /// [`source`](std::error::Error::source) and for [`Error::io_kind`]; the message should
    /// already say what it says.
    pub(crate) fn caused_by(mut self, source: io::Error) -> Error {
        self.inner.source = Some(source);
        self
    }

    /// Sets the [`Error::io_kind`] of an I/O error that twcodec finds itself (a directory
    /// where a file is read), with no operating system error behind it.
    pub(crate) fn with_io_kind(mut self, kind: io::ErrorKind) -> Error {
        self.inner.io_kind = Some(kind);
        self
    }

    /// Sets the byte offset in the input.
    pub fn at(mut self, offset: impl TryInto<u64>) -> Error {
        self.inner.offset = offset.try_into().ok();
        self
    }

    /// Makes an offset relative to a part of the input absolute, given where that part starts;
    /// an error without offset gets the start.
    pub(crate) fn offset_by(mut self, base: u64) -> Error {
        self.inner.offset = Some(base + self.inner.offset.unwrap_or(0));
        self
    }

    /// Rewrites the byte offset, when there is one.
    pub(crate) fn map_offset(mut self, map: impl FnOnce(u64) -> u64) -> Error {
        self.inner.offset = self.inner.offset.map(map);
        self
    }

    /// Sets the part of the file the error is about, unless one is set already.
    pub fn located(mut self, location: Location) -> Error {
        self.inner.location.get_or_insert(location);
        self
    }

    /// Says that the input is a file of another kind than the reader reads: `kind`.
    pub(crate) fn of_kind(mut self, kind: FileKind) -> Error {
        self.inner.file_kind = Some(kind);
        self
    }

    /// Names the file the error is about, unless a path is set already.
    pub fn with_path(mut self, path: &Path) -> Error {
        self.inner.path.get_or_insert_with(|| path.to_owned());
        self
    }

    /// Converts an error of binrw, keeping the schema's own errors and the position.
    pub fn from_binrw(error: binrw::Error, what: &str) -> Error {
        match error {
            binrw::Error::Backtrace(backtrace) => Error::from_binrw(*backtrace.error, what),
            binrw::Error::Custom { pos, err } => match err.downcast::<SchemaError>() {
                Ok(schema) => {
                    let kind = match *schema {
                        SchemaError::UnsupportedVersion(_)
                        | SchemaError::UnsupportedDemoVersion(_)
                        | SchemaError::UnsupportedGhostVersion(_) => ErrorKind::Unsupported,
                        SchemaError::TooLarge { .. } => ErrorKind::LimitExceeded,
                        _ => ErrorKind::Malformed,
                    };
                    Error::new(kind, schema.to_string()).at(pos)
                }
                Err(other) => Error::malformed(format!("{what}: {other}")).at(pos),
            },
            binrw::Error::Io(io) if io.kind() == io::ErrorKind::UnexpectedEof => {
                Error::malformed(format!("the input ends inside the {what}"))
            }
            binrw::Error::Io(io) => {
                let mut error = Error::new(ErrorKind::Io, format!("{what}: {io}"));
                error.inner.source = Some(io);
                error
            }
            binrw::Error::AssertFail { pos, message } => {
                Error::malformed(format!("{what}: {message}")).at(pos)
            }
            binrw::Error::BadMagic { pos, .. } => {
                Error::malformed(format!("{what}: bad magic")).at(pos)
            }
            // An enum whose variants are picked by an earlier field: the picked variant's error
            // is the one that matters; the others only say that their layout does not apply.
            binrw::Error::EnumErrors {
                pos,
                variant_errors,
            } => match variant_errors
                .into_iter()
                .map(|(_, error)| error)
                .find(|error| {
                    !matches!(
                        error.custom_err::<SchemaError>(),
                        Some(SchemaError::OtherLayout)
                    )
                }) {
                Some(error) => Error::from_binrw(error, what),
                None => Error::malformed(format!("{what}: no layout applies")).at(pos),
            },
            other => Error::malformed(format!("{what}: no layout matches ({})", kind_of(&other))),
        }
    }

    /// Who is at fault.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The problem, without location, offset or path.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The part of the file the error is about, when known.
    pub fn location(&self) -> Option<Location> {
        self.inner.location
    }

    /// Byte offset in the input, when known.
    pub fn offset(&self) -> Option<u64> {
        self.inner.offset
    }

    /// The file being read or written, when the error came from a path.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// For an error of kind [`ErrorKind::Io`], what kind of I/O error it is, when known:
    /// [`NotFound`](io::ErrorKind::NotFound) for a missing file or directory,
    /// [`PermissionDenied`](io::ErrorKind::PermissionDenied),
    /// [`IsADirectory`](io::ErrorKind::IsADirectory) for a directory where a file is read or
    /// written, and so on. It is the kind of the operating system's error (the
    /// [`source`](std::error::Error::source), which also holds the OS error code) when there
    /// is one; `None` for errors of other kinds, and for I/O errors whose cause is twcodec's own
    /// rule (a symbolic link refused, a FIFO where a file is read).
    ///
    /// ```
    /// let error = twcodec::Map::open("no/such/file.map").unwrap_err();
    /// assert_eq!(error.kind(), twcodec::ErrorKind::Io);
    /// assert_eq!(error.io_kind(), Some(std::io::ErrorKind::NotFound));
    /// ```
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        let inner = &self.inner;
        inner.source.as_ref().map(io::Error::kind).or(inner.io_kind)
    }

    /// When the input is a file of another kind than the reader reads (a demo given to the
    /// datafile reader, a map given to the demo reader): what it is, by its magic
    /// ([`sniff`](crate::sniff)).
    pub fn file_kind(&self) -> Option<FileKind> {
        self.inner.file_kind
    }
}

/// The name of a binrw error variant that carries no useful text of its own.
fn kind_of(error: &binrw::Error) -> &'static str {
    match error {
        binrw::Error::NoVariantMatch { .. } => "no variant",
        binrw::Error::EnumErrors { .. } => "enum",
        _ => "unknown",
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.inner;
        if let Some(path) = &inner.path {
            write!(f, "{}: ", path.display())?;
        }
        write_located(f, inner.location, &inner.message, inner.offset)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.inner.kind)
            .field("message", &self.inner.message)
            .field("location", &self.inner.location)
            .field("offset", &self.inner.offset)
            .field("path", &self.inner.path)
            .field("io_kind", &self.io_kind())
            .field("file_kind", &self.inner.file_kind)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner
            .source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// `location: message (at byte 0x..)`, the shape of every error and warning line.
fn write_located(
    f: &mut fmt::Formatter<'_>,
    location: Option<Location>,
    message: &str,
    offset: Option<u64>,
) -> fmt::Result {
    if let Some(location) = location {
        write!(f, "{location}: ")?;
    }
    f.write_str(message)?;
    if let Some(offset) = offset {
        write!(f, " (at byte {offset:#x})")?;
    }
    Ok(())
}

/// Something unusual that real files contain and that does not stop loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// What was found.
    pub kind: WarningKind,
    /// The part of the file it is about.
    pub location: Option<Location>,
    /// Byte offset in the input, when known.
    pub offset: Option<u64>,
}

/// The kinds of [`Warning`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WarningKind {
    /// `size` and `swaplen` leave out the data-size table, as old version-4 writers computed them
    /// (docs/format-notes.md, "Datafile container"; DDNet fixes them on load).
    #[error("size and swaplen leave out the data-size table (written by an old version-4 writer)")]
    OldSizeFields,
    /// A header size field holds neither the right value nor the old writers' one.
    #[error("{field} is {found}, the file implies {expected}")]
    SizeFieldMismatch {
        /// `size` or `swaplen`.
        field: &'static str,
        /// The value in the file.
        found: i32,
        /// The value the rest of the file implies.
        expected: i64,
    },
    /// Bytes after the end of the data block; a re-save drops them.
    #[error("{len} trailing bytes after the data block (a re-save drops them)")]
    TrailingBytes {
        /// How many.
        len: u64,
    },
    /// The item type table is not sorted by type id; a re-save sorts it.
    #[error("item types are not sorted by type id (a re-save sorts them)")]
    UnsortedItemTypes,
    /// An item type table entry that lists no items.
    #[error("lists no items")]
    EmptyItemType,
    /// A second item with the same type and id (allowed for UUID index items, see
    /// [`WarningKind::DuplicateUuidIndexItem`]).
    #[error("another item of this type has this id")]
    DuplicateItemId,
    /// A second UUID index item for the same internal type (old DDNet tools wrote these).
    #[error("duplicate UUID index item for this type (written by old DDNet tools); the first one counts")]
    DuplicateUuidIndexItem,
    /// A UUID index item with fewer than the 4 ints of a UUID; its type has no UUID.
    #[error("UUID index item has {len} ints, a UUID needs 4")]
    ShortUuidIndexItem {
        /// Number of ints it has.
        len: usize,
    },
    /// A data item whose declared uncompressed size is 0 (DDNet refuses to load such data).
    #[error("declared uncompressed size is 0 (DDNet refuses to load it)")]
    EmptyData,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_located(f, self.location, &self.kind.to_string(), self.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_cross_threads() {
        fn send_sync<T: Send + Sync + 'static>() {}
        send_sync::<Error>();
        send_sync::<Warning>();
    }

    #[test]
    fn display_names_location_and_offset() {
        let error = Error::malformed("item_size 4000 is larger than the file (1520 bytes left)")
            .located(Location::Header)
            .at(0x1cu64);
        assert_eq!(
            error.to_string(),
            "datafile header: item_size 4000 is larger than the file (1520 bytes left) (at byte 0x1c)"
        );
        let error = error.with_path(Path::new("maps/x.map"));
        assert_eq!(
            error.to_string(),
            "maps/x.map: datafile header: item_size 4000 is larger than the file (1520 bytes left) (at byte 0x1c)"
        );
        assert_eq!(error.kind(), ErrorKind::Malformed);
        assert_eq!(error.offset(), Some(0x1c));
    }

    #[test]
    fn schema_errors_keep_kind_and_position() {
        let binrw = binrw::Error::Custom {
            pos: 4,
            err: Box::new(SchemaError::UnsupportedVersion(5)),
        };
        let error = Error::from_binrw(binrw, "version header");
        assert_eq!(error.kind(), ErrorKind::Unsupported);
        assert_eq!(
            error.to_string(),
            "unsupported datafile version 5 (only 3 and 4 exist) (at byte 0x4)"
        );
    }

    #[test]
    fn backtraces_never_reach_the_message() {
        use binrw::error::ContextExt;
        let inner = binrw::Error::AssertFail {
            pos: 8,
            message: "size must be even".into(),
        };
        let wrapped = inner.with_context(binrw::error::BacktraceFrame::Message("ctx".into()));
        let error = Error::from_binrw(wrapped, "item");
        assert_eq!(error.to_string(), "item: size must be even (at byte 0x8)");
    }
}
