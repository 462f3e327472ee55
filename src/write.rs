//! The datafile writer: a builder of items and data items that writes version 4 (default) or 3.
//!
//! Item types are written sorted ascending, items of one type in the order they were added,
//! data items in index order. UUID item types get internal type ids from `0xFFFE` downward with
//! their UUID index items. `size`, `swaplen` and every count and offset are calculated by the
//! schema's [`DatafileLayout`].
//!
//! **Lossless re-save:** [`DatafileWriter::from_datafile`] keeps every data item's stored bytes,
//! the magic and the kind of size fields, so writing an unmodified version-4 file gives the same
//! bytes (trailing bytes after the data block aside, which the reader reports). Data that is new
//! or replaced is compressed at the configured level (default 6, as DDNet and Teeworlds write).
//!
//! **Files** are written by [`save`] and every `save` method of the crate the same way:
//! atomically through a temporary file named after the target for a new or regular file (the
//! replaced file's mode kept, `0666` less the umask for a new one), in place for a device or a
//! FIFO; [`remove_temporary_files`] is for a signal handler.

use std::borrow::Cow;
use std::io::{BufWriter, Write};
use std::path::Path;

use binrw::io::NoSeek;
use binrw::BinWrite;
use bytes::Bytes;
use twcodec_schema::datafile::{DataBlock, DatafileLayout, Item, Magic, Version};
use twcodec_schema::uuid::{Uuid, UuidIndexItem, OFFSET_UUID_TYPE, UUID_INDEX_TYPE};

use crate::datafile::{data_error, Datafile, SizeFields};
use crate::error::{Error, ErrorKind, Location};
use crate::limits::Limits;
use crate::zlib;

/// The zlib level DDNet and Teeworlds write with (zlib's default).
pub const DEFAULT_COMPRESSION_LEVEL: u32 = 6;

/// A data item's bytes as the file stores them, and its uncompressed size.
struct StoredData<'a> {
    bytes: Cow<'a, [u8]>,
    size: usize,
}

/// A data item to be written.
#[derive(Debug, Clone)]
enum DataSource {
    /// Uncompressed bytes; compressed when writing version 4.
    Plain(Bytes),
    /// A zlib stream as a version-4 file stores it, and its uncompressed size.
    Zlib { stored: Bytes, size: usize },
}

/// Builds a datafile from items and data items, then writes it.
///
/// ```
/// use twcodec::{Datafile, DatafileWriter};
///
/// let mut writer = DatafileWriter::new();
/// let text = writer.add_data(&b"hello\0"[..]);
/// writer.add_item(1, 0, vec![1, text as i32]);
/// let bytes = writer.to_vec()?;
///
/// let df = Datafile::parse(&bytes)?;
/// assert_eq!(df.item(1, 0).unwrap().data, [1, 0]);
/// assert_eq!(&*df.data(0)?, b"hello\0");
/// # Ok::<(), twcodec::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct DatafileWriter {
    version: Version,
    magic: Magic,
    old_size_fields: bool,
    level: u32,
    recompress: bool,
    limits: Limits,
    items: Vec<Item>,
    data: Vec<DataSource>,
}

impl Default for DatafileWriter {
    fn default() -> Self {
        DatafileWriter::new()
    }
}

impl DatafileWriter {
    /// An empty version-4 datafile with magic `DATA`, compressing at level 6.
    pub fn new() -> DatafileWriter {
        DatafileWriter {
            version: Version::V4,
            magic: Magic::Data,
            old_size_fields: false,
            level: DEFAULT_COMPRESSION_LEVEL,
            recompress: false,
            limits: Limits::DEFAULT,
            items: Vec::new(),
            data: Vec::new(),
        }
    }

    /// Everything `datafile` holds, to write it back losslessly: its items (UUID index items
    /// included, with their internal type ids), its data items' stored bytes, its version,
    /// magic and kind of size fields, and the [`Limits`] it was read under.
    pub fn from_datafile(datafile: &Datafile) -> DatafileWriter {
        let data = (0..datafile.data_count())
            .filter_map(|index| {
                let stored = datafile.stored_data(index)?;
                Some(match datafile.version() {
                    Version::V3 => DataSource::Plain(stored),
                    Version::V4 => DataSource::Zlib {
                        stored,
                        size: datafile.data_size(index)?,
                    },
                })
            })
            .collect();
        DatafileWriter {
            version: datafile.version(),
            magic: datafile.magic(),
            old_size_fields: datafile.size_fields() == SizeFields::OldVersion4,
            level: DEFAULT_COMPRESSION_LEVEL,
            recompress: false,
            limits: datafile.limits(),
            items: datafile.items().to_vec(),
            data,
        }
    }

    /// Writes version 3 (data stored as is) or 4 (zlib-compressed data).
    pub fn version(mut self, version: Version) -> DatafileWriter {
        self.version = version;
        self
    }

    /// Writes `DATA` (the default) or `ATAD`.
    pub fn magic(mut self, magic: Magic) -> DatafileWriter {
        self.magic = magic;
        self
    }

    /// Computes `size` and `swaplen` like old version-4 writers (only to reproduce such files).
    pub fn old_size_fields(mut self, old: bool) -> DatafileWriter {
        self.old_size_fields = old;
        self
    }

    /// The zlib level for new or changed data, 0..=9 (default 6).
    pub fn compression_level(mut self, level: u32) -> DatafileWriter {
        self.level = level;
        self
    }

    /// Compresses every data item again, not only new and changed ones.
    pub fn recompress(mut self, recompress: bool) -> DatafileWriter {
        self.recompress = recompress;
        self
    }

    /// The [`Limits`] a stored data item is inflated under, when writing it needs its bytes
    /// (recompressing, or writing version 3 from version-4 data): its
    /// [`max_data_size`](Limits::max_data_size). The defaults, or the source's.
    pub fn limits(mut self, limits: Limits) -> DatafileWriter {
        self.limits = limits;
        self
    }

    /// The items so far, in the order they were added.
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// The items so far, to change their ints.
    pub fn items_mut(&mut self) -> &mut [Item] {
        &mut self.items
    }

    /// Adds an item with a plain (internal) type id; returns its position in [`Self::items`].
    pub fn add_item(&mut self, type_id: u16, id: u16, data: Vec<i32>) -> usize {
        self.items.push(Item::new(type_id, id, data));
        self.items.len() - 1
    }

    /// The internal type id of `uuid`, if a UUID index item names it already. Scans the items.
    pub fn uuid_type(&self, uuid: Uuid) -> Option<u16> {
        self.items
            .iter()
            .filter(|item| item.type_id() == UUID_INDEX_TYPE)
            .find(|item| UuidIndexItem::decode(&item.data).is_some_and(|index| index.uuid == uuid))
            .map(Item::id)
    }

    /// Adds an item of a UUID item type, giving the type an internal type id (from `0xFFFE`
    /// downward) and a UUID index item the first time; returns the internal type id. Each call
    /// scans the items: to add many items of one UUID type, add the first one here and the rest
    /// with [`add_item`](Self::add_item) and the type id it returned.
    pub fn add_uuid_item(&mut self, uuid: Uuid, id: u16, data: Vec<i32>) -> Result<u16, Error> {
        let type_id = match self.uuid_type(uuid) {
            Some(type_id) => type_id,
            None => {
                let type_id = self.free_uuid_type()?;
                self.add_item(UUID_INDEX_TYPE, type_id, UuidIndexItem::new(uuid).encode());
                type_id
            }
        };
        self.add_item(type_id, id, data);
        Ok(type_id)
    }

    /// The highest internal type id below `0xFFFF` that no item or UUID index item uses.
    fn free_uuid_type(&self) -> Result<u16, Error> {
        // One pass over the items marks the used type ids.
        let mut used = vec![false; usize::from(u16::MAX) + 1];
        for item in &self.items {
            used[usize::from(item.type_id())] = true;
            if item.type_id() == UUID_INDEX_TYPE {
                used[usize::from(item.id())] = true;
            }
        }
        (OFFSET_UUID_TYPE + 1..UUID_INDEX_TYPE)
            .rev()
            .find(|&type_id| !used[usize::from(type_id)])
            .ok_or_else(|| Error::limit("every internal UUID type id is taken"))
    }

    /// Adds a data item of uncompressed bytes; returns its index.
    pub fn add_data(&mut self, data: impl Into<Bytes>) -> usize {
        self.data.push(DataSource::Plain(data.into()));
        self.data.len() - 1
    }

    /// Adds a data item already compressed as a zlib stream, with its uncompressed size; it is
    /// written as it is in version 4. Returns its index.
    pub fn add_zlib_data(&mut self, stored: impl Into<Bytes>, size: usize) -> usize {
        self.data.push(DataSource::Zlib {
            stored: stored.into(),
            size,
        });
        self.data.len() - 1
    }

    /// Replaces the data item at `index` with new uncompressed bytes.
    pub fn replace_data(&mut self, index: usize, data: impl Into<Bytes>) -> Result<(), Error> {
        let count = self.data.len();
        let slot = self.data.get_mut(index).ok_or_else(|| {
            Error::new(
                ErrorKind::Malformed,
                format!("data index {index} does not exist (the writer has {count} data items)"),
            )
        })?;
        *slot = DataSource::Plain(data.into());
        Ok(())
    }

    /// Number of data items so far.
    pub fn data_count(&self) -> usize {
        self.data.len()
    }

    /// Writes the datafile.
    pub fn write(&self, writer: impl Write) -> Result<(), Error> {
        if self.level > 9 {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!("compression level {} is not in 0..=9", self.level),
            ));
        }
        let stored = self.stored_data()?;
        let blocks: Vec<DataBlock<'_>> = stored
            .iter()
            .map(|data| DataBlock {
                stored: &data.bytes,
                size: data.size,
            })
            .collect();
        let items = self.sorted_items();
        let layout = DatafileLayout {
            magic: self.magic,
            version: self.version,
            old_size_fields: self.old_size_fields && self.version == Version::V4,
            items: &items,
            data: &blocks,
        };
        let mut out = NoSeek::new(BufWriter::new(writer));
        layout
            .write(&mut out)
            .map_err(|e| Error::from_binrw(e, "datafile"))?;
        out.into_inner()
            .flush()
            .map_err(|e| Error::new(ErrorKind::Io, format!("cannot write the datafile: {e}")))
    }

    /// Writes the datafile into a new vector.
    pub fn to_vec(&self) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        self.write(&mut out)?;
        Ok(out)
    }

    /// Writes the datafile to `path` atomically: into a temporary file beside it, then renamed
    /// over it, so a crash never leaves a half-written file.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        save_with(path.as_ref(), |file| self.write(file))
    }

    /// The items grouped by type in ascending order, each type's items in insertion order.
    fn sorted_items(&self) -> Cow<'_, [Item]> {
        if self.items.is_sorted_by_key(Item::type_id) {
            Cow::Borrowed(&self.items)
        } else {
            let mut items = self.items.clone();
            items.sort_by_key(Item::type_id);
            Cow::Owned(items)
        }
    }

    /// Each data item's bytes as this version stores them, with its uncompressed size. Data is
    /// compressed and inflated in parallel (rayon's pool; run inside a one-thread pool to write
    /// sequentially).
    fn stored_data(&self) -> Result<Vec<StoredData<'_>>, Error> {
        use rayon::prelude::*;
        self.data
            .par_iter()
            .enumerate()
            .map(|(index, source)| {
                let (bytes, size) = match (source, self.version) {
                    (DataSource::Plain(data), Version::V3) => {
                        (Cow::Borrowed(&data[..]), data.len())
                    }
                    (DataSource::Plain(data), Version::V4) => {
                        (Cow::Owned(zlib::deflate(data, self.level)), data.len())
                    }
                    (DataSource::Zlib { stored, size }, Version::V4) if !self.recompress => {
                        (Cow::Borrowed(&stored[..]), *size)
                    }
                    (DataSource::Zlib { stored, size }, Version::V4) => {
                        let data = self.inflate(index, stored, *size)?;
                        (Cow::Owned(zlib::deflate(&data, self.level)), *size)
                    }
                    (DataSource::Zlib { stored, size }, Version::V3) => {
                        (Cow::Owned(self.inflate(index, stored, *size)?), *size)
                    }
                };
                Ok(StoredData { bytes, size })
            })
            .collect()
    }

    /// Inflates a stored data item under the [`Limits::max_data_size`] of the writer.
    fn inflate(&self, index: usize, stored: &[u8], size: usize) -> Result<Vec<u8>, Error> {
        if size > self.limits.max_data_size() {
            return Err(Error::limit(format!(
                "declares {size} uncompressed bytes, more than the limit of {} \
                 (Limits::max_data_size)",
                self.limits.max_data_size()
            ))
            .located(Location::Data { index }));
        }
        zlib::inflate(stored, size).map_err(|e| data_error(index, None, e))
    }
}

/// An error unless `path`, a file under the output directory `base` whose name (or part of it)
/// comes from an input (an image's name, a map's place in a folder someone else made), can be
/// written without following a link the output tree holds: no folder between `base` and it,
/// and not the file itself, may be a symbolic link. `base` itself is the user's to choose.
///
/// [`save`] follows a link to replace the file it points to (a link made by the user keeps
/// pointing to the new file); a name that comes from an input must not be able to reach a
/// file outside the output directory that way.
pub fn check_output(base: &Path, path: &Path) -> Result<(), Error> {
    let Ok(relative) = path.strip_prefix(base) else {
        return Ok(());
    };
    let mut at = base.to_path_buf();
    for component in relative.components() {
        at.push(component);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(Error::new(
                    ErrorKind::Io,
                    format!(
                        "cannot write {}: {} is a symbolic link, and names that come from the \
                         input are never written through links in the output directory \
                         (remove it, or choose another directory); nothing was written",
                        path.display(),
                        at.display()
                    ),
                ))
            }
            // A FIFO or a device where the file goes would be written in place (and a FIFO
            // would wait for a reader): not where a name from the input may write.
            Ok(meta) if at == path && !meta.is_file() && !meta.is_dir() => {
                return Err(Error::new(
                    ErrorKind::Io,
                    format!(
                        "cannot write {}: it is {}, and a file named by the input is written \
                         only as a regular file; nothing was written",
                        path.display(),
                        crate::input::what_it_is(&meta)
                    ),
                ))
            }
            Ok(_) => {}
            // What is not there yet is made, not followed.
            Err(_) => return Ok(()),
        }
    }
    Ok(())
}

/// Writes `bytes` to a file safely: atomically for a new or regular file
/// (keeping a replaced file's mode), in place for a device or a FIFO.
pub fn save(path: impl AsRef<Path>, bytes: &[u8]) -> Result<(), Error> {
    let path = path.as_ref();
    save_with(path, |out| {
        out.write_all(bytes)
            .map_err(|error| Error::io("write", path, error))
    })
}

/// Writes a file the way a user expects of a tool that writes maps:
///
/// - A new file, or an existing regular file, is written atomically: into a temporary file
///   beside it named after it (`.NAME.XXXXXX.tmp`), synced, then renamed over it, so that a
///   failure or a crash never leaves half a file. A new file gets mode `0666` less the umask;
///   a replaced file keeps its mode (and its owner and group, where the process may set them).
///   A symbolic link to a regular file stays a link: the file it points to is replaced.
/// - An existing file that is not a regular file (a character device such as `/dev/null`, a
///   FIFO, a socket) is written in place, never replaced.
/// - The temporary file is removed on every error, and by [`remove_temporary_files`] (for a
///   signal handler).
///
/// Errors name the path and say why, in a user's words.
pub(crate) fn save_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
) -> Result<(), Error> {
    let failed = |why: String| cannot_write(path, why);
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            // A link keeps pointing to the file; the file itself is replaced.
            let target = std::fs::canonicalize(path).map_err(|e| failed(reason(&e)))?;
            replace(path, &target, Some(&meta), write)
        }
        Ok(meta) if meta.is_dir() => Err(failed("it is a directory".into())),
        Ok(_) => {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| failed(reason(&e)))?;
            write(&mut file).map_err(|e| e.with_path(path))?;
            file.flush().map_err(|e| failed(reason(&e)))
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            replace(path, path, None, write)
        }
        Err(error) => Err(failed(reason(&error))),
    }
}

/// `cannot write PATH: WHY`.
fn cannot_write(path: &Path, why: String) -> Error {
    Error::new(
        ErrorKind::Io,
        format!("cannot write {}: {why}", path.display()),
    )
}

/// Writes `target` (named `path` to the user) through a temporary file beside it.
fn replace(
    path: &Path,
    target: &Path,
    existing: Option<&std::fs::Metadata>,
    write: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
) -> Result<(), Error> {
    let failed = |why: String| cannot_write(path, why);
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .map_or_else(|| "output".into(), |name| name.to_string_lossy());
    // The temporary file's name within the 255 bytes of a name: its target's name cut to
    // 200 bytes, on a character boundary.
    let mut cut = name.len().min(200);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    let prefix = format!(".{}.", &name[..cut]);
    #[cfg(target_os = "linux")]
    if let Some(written) = unnamed::replace(dir, target, &prefix, existing) {
        let started = CANCELLED.load(std::sync::atomic::Ordering::SeqCst);
        let file = written.map_err(|e| failed(reason(&e)))?;
        let mut out = &file;
        write(&mut out).map_err(|e| e.with_path(path))?;
        return unnamed::finish(file, dir, target, &prefix, existing, started)
            .map_err(|e| failed(reason(&e)));
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    if existing.is_none() {
        // The umask applies, as to any new file.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let temp = builder.tempfile_in(dir).map_err(|error| {
        failed(match error.kind() {
            std::io::ErrorKind::NotFound => {
                format!("the directory {} does not exist", dir.display())
            }
            std::io::ErrorKind::PermissionDenied => {
                format!("no permission to create a file in {}", dir.display())
            }
            _ => format!(
                "cannot create a file in {}: {}",
                dir.display(),
                reason(&error)
            ),
        })
    })?;
    let _pending = Pending::register(temp.path());
    let mut file = temp.as_file();
    write(&mut file).map_err(|e| e.with_path(path))?;
    file.sync_all().map_err(|e| failed(reason(&e)))?;
    if let Some(meta) = existing {
        keep_mode_and_owner(file, meta).map_err(|e| failed(reason(&e)))?;
    }
    // Renamed under the registry's lock, so that a signal handler removes the temporary file
    // either before (and the rename never happens) or not at all.
    let _lock = lock_pending();
    temp.persist(target).map_err(|e| {
        failed(format!(
            "cannot rename the temporary file over it: {}",
            reason(&e.error)
        ))
    })?;
    Ok(())
}

/// Writing through an unnamed temporary file (Linux `O_TMPFILE`): the file has no name until
/// it is whole and synced, so that nothing is left behind whatever stops the process, even
/// `SIGKILL`. It is then linked in under its target's name (a new file), or under a temporary
/// name renamed over the target at once (a file replaced: only a kill between those two calls
/// leaves the temporary name). Where the file system or `/proc` does not allow it, the caller
/// writes through a named temporary file instead.
#[cfg(target_os = "linux")]
mod unnamed {
    use std::fs::File;
    use std::io;
    use std::os::fd::AsRawFd;
    use std::path::Path;

    use rustix::fs::{AtFlags, Mode, OFlags, CWD};

    /// An unnamed file in `dir` to write, or `None` where that is not possible.
    pub(super) fn replace(
        dir: &Path,
        _target: &Path,
        _prefix: &str,
        _existing: Option<&std::fs::Metadata>,
    ) -> Option<io::Result<File>> {
        // Linking it in needs /proc (linkat with AT_EMPTY_PATH needs a capability).
        if !Path::new("/proc/self/fd").is_dir() {
            return None;
        }
        let flags = OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC;
        // The umask applies, as to any new file.
        match rustix::fs::openat(CWD, dir, flags, Mode::from_raw_mode(0o666)) {
            Ok(fd) => Some(Ok(File::from(fd))),
            // No O_TMPFILE on this file system or kernel: a named temporary file.
            Err(e)
                if [
                    rustix::io::Errno::OPNOTSUPP,
                    rustix::io::Errno::ISDIR,
                    rustix::io::Errno::INVAL,
                    rustix::io::Errno::NOENT,
                ]
                .contains(&e) =>
            {
                None
            }
            Err(e) => Some(Err(e.into())),
        }
    }

    /// Syncs the written file and gives it its target's name.
    pub(super) fn finish(
        file: File,
        dir: &Path,
        target: &Path,
        prefix: &str,
        existing: Option<&std::fs::Metadata>,
        started: u64,
    ) -> io::Result<()> {
        file.sync_all()?;
        // Linked in under the registry's lock, and not after remove_temporary_files ran: a
        // save it interrupts fails, and the file it was to replace stays as it was.
        let cancelled = || {
            let now = super::CANCELLED.load(std::sync::atomic::Ordering::SeqCst);
            (now != started).then(|| {
                io::Error::new(
                    io::ErrorKind::Interrupted,
                    "stopped: its temporary file was removed",
                )
            })
        };
        if let Some(meta) = existing {
            super::keep_mode_and_owner(&file, meta)?;
        }
        let fd = format!("/proc/self/fd/{}", file.as_raw_fd());
        let link = |to: &Path| {
            rustix::fs::linkat(CWD, fd.as_str(), CWD, to, AtFlags::SYMLINK_FOLLOW)
                .map_err(io::Error::from)
        };
        if existing.is_none() {
            let _lock = super::lock_pending();
            if let Some(error) = cancelled() {
                return Err(error);
            }
            match link(target) {
                Ok(()) => return Ok(()),
                // Made meanwhile: replaced like any existing file.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
        let temp = tempfile::Builder::new()
            .prefix(prefix)
            .suffix(".tmp")
            .make_in(dir, |path| link(path))?;
        let _pending = super::Pending::register(temp.path());
        let _lock = super::lock_pending();
        if let Some(error) = cancelled() {
            return Err(error);
        }
        temp.persist(target).map(drop).map_err(|e| e.error)
    }
}

/// The replaced file's mode, owner and group on the new one (owner and group as far as the
/// process may set them).
fn keep_mode_and_owner(file: &std::fs::File, meta: &std::fs::Metadata) -> std::io::Result<()> {
    file.set_permissions(meta.permissions())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let mine = file.metadata()?;
        if (mine.uid(), mine.gid()) != (meta.uid(), meta.gid()) {
            // Only root may give a file away; a group is kept where the owner is a member.
            let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()))
                .or_else(|_| std::os::unix::fs::fchown(file, None, Some(meta.gid())));
            // fchown may clear the set-id bits: set the mode again.
            file.set_permissions(meta.permissions())?;
        }
    }
    Ok(())
}

/// An I/O error's reason without the paths some libraries add to it.
fn reason(error: &std::io::Error) -> String {
    let mut inner: &dyn std::error::Error = error;
    while let Some(source) = inner.source() {
        inner = source;
    }
    match error.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code).to_string(),
        None => inner.to_string(),
    }
}

/// How many times [`remove_temporary_files`] ran: a save through an unnamed temporary file
/// that began before it does not link its file in.
static CANCELLED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The temporary files being written now, for [`remove_temporary_files`].
static PENDING: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

/// A temporary file in [`PENDING`] while it lives.
struct Pending {
    path: std::path::PathBuf,
}

impl Pending {
    fn register(path: &Path) -> Pending {
        let path = path.to_path_buf();
        lock_pending().push(path.clone());
        Pending { path }
    }
}

/// The lock of [`PENDING`] (a panic elsewhere does not make the list unusable).
fn lock_pending() -> std::sync::MutexGuard<'static, Vec<std::path::PathBuf>> {
    PENDING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Drop for Pending {
    fn drop(&mut self) {
        let mut pending = lock_pending();
        if let Some(at) = pending.iter().position(|p| *p == self.path) {
            pending.swap_remove(at);
        }
    }
}

/// Removes the temporary files of the saves running now ([`Map::save`](crate::Map::save),
/// [`DatafileWriter::save`], ...), so that a program stopped by a signal leaves none behind.
/// Call it from a signal handling thread (the `signal-hook` or `ctrlc` crates) before the
/// process exits: a save it interrupts fails, as its temporary file is gone, and the file it
/// was to replace stays as it was. A save renaming its finished file completes first.
pub fn remove_temporary_files() {
    let mut pending = lock_pending();
    CANCELLED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    for path in pending.drain(..) {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files in `dir` other than `keep`.
    fn others(dir: &Path, keep: &str) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name != keep)
            .collect()
    }

    #[test]
    fn a_failed_save_leaves_the_file_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.map");
        std::fs::write(&path, b"old").unwrap();
        let error = save_with(&path, |out| {
            out.write_all(b"half").unwrap();
            Err(Error::malformed("the writer gave up"))
        })
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("{}: the writer gave up", path.display())
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert!(others(dir.path(), "out.map").is_empty());
    }

    #[test]
    fn removing_temporary_files_mid_save_fails_the_save_and_keeps_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.map");
        std::fs::write(&path, b"old").unwrap();
        let mut seen = Vec::new();
        let result = save_with(&path, |out| {
            out.write_all(b"new").unwrap();
            seen = others(dir.path(), "out.map");
            // What the signal handler does.
            remove_temporary_files();
            Ok(())
        });
        // Through an unnamed temporary file (Linux) no name shows; else a named one does.
        assert!(seen.len() <= 1, "{seen:?}");
        assert!(
            (seen.iter()).all(|s| s.starts_with(".out.map.") && s.ends_with(".tmp")),
            "{seen:?}"
        );
        assert!(result.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert!(others(dir.path(), "out.map").is_empty());
        // Saves after it work as before.
        save(&path, b"newer").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"newer");
    }
}
