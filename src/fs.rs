//! Files written the way a user expects of a tool that writes maps: atomically (a crash
//! or a kill never leaves half a file, and on Linux not even a temporary file), keeping a
//! replaced file's mode, in place for a device or a FIFO, and never through a link an output
//! directory holds where a name comes from the input.
//!
//! [`Map::save`](crate::Map::save), [`DatafileWriter::save`](crate::DatafileWriter::save) and
//! the other `save` methods write through [`save`]; [`remove_temporary_files`] is for a signal
//! handler.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, ErrorKind};

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
    let failed = |error: std::io::Error| cannot_write(path, reason(&error)).caused_by(error);
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            // A link keeps pointing to the file; the file itself is replaced.
            let target = std::fs::canonicalize(path).map_err(failed)?;
            replace(path, &target, Some(&meta), write)
        }
        Ok(meta) if meta.is_dir() => Err(cannot_write(path, "it is a directory".into())
            .with_io_kind(std::io::ErrorKind::IsADirectory)),
        Ok(_) => {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(failed)?;
            write(&mut file).map_err(|e| e.with_path(path))?;
            file.flush().map_err(failed)
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            replace(path, path, None, write)
        }
        Err(error) => Err(failed(error)),
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
    let failed = |error: std::io::Error| cannot_write(path, reason(&error)).caused_by(error);
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
    // A save that began before remove_temporary_files ran gives up rather than name a file.
    let started = CANCELLED.load(std::sync::atomic::Ordering::SeqCst);
    #[cfg(target_os = "linux")]
    if let Some(written) = unnamed::replace(dir, target, &prefix, existing) {
        let file = written.map_err(failed)?;
        let mut out = &file;
        write(&mut out).map_err(|e| e.with_path(path))?;
        return unnamed::finish(file, dir, target, &prefix, existing, started).map_err(failed);
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    if existing.is_none() {
        // The umask applies, as to any new file.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    // Made and listed under the registry's lock, so that a signal handler either sees it or
    // has run before it (and then it is never made).
    let mut pending = lock_pending();
    if let Some(error) = stopped_since(started) {
        return Err(failed(error));
    }
    let temp = builder.tempfile_in(dir).map_err(|error| {
        let why = match error.kind() {
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
        };
        cannot_write(path, why).caused_by(error)
    })?;
    pending.push(temp.path().to_path_buf());
    drop(pending);
    let _pending = Pending {
        path: temp.path().to_path_buf(),
    };
    let mut file = temp.as_file();
    write(&mut file).map_err(|e| e.with_path(path))?;
    file.sync_all().map_err(failed)?;
    if let Some(meta) = existing {
        keep_mode_and_owner(file, meta).map_err(failed)?;
    }
    // Renamed under the registry's lock, so that a signal handler removes the temporary file
    // either before (and the rename never happens) or not at all.
    let _lock = lock_pending();
    if let Some(error) = stopped_since(started) {
        return Err(failed(error));
    }
    temp.persist(target).map_err(|e| {
        let why = format!(
            "cannot rename the temporary file over it: {}",
            reason(&e.error)
        );
        cannot_write(path, why).caused_by(e.error)
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
        let cancelled = || super::stopped_since(started);
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
        // Named, then renamed over the target, all under the registry's lock: a signal
        // handler waits for the rename (the save completes) or has run before the name is
        // made (the save fails), and never sees the name.
        let _lock = super::lock_pending();
        if let Some(error) = cancelled() {
            return Err(error);
        }
        let temp = tempfile::Builder::new()
            .prefix(prefix)
            .suffix(".tmp")
            .make_in(dir, |path| link(path))?;
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

/// An error if [`remove_temporary_files`] ran since `started` (a value of [`CANCELLED`]).
fn stopped_since(started: u64) -> Option<std::io::Error> {
    let now = CANCELLED.load(std::sync::atomic::Ordering::SeqCst);
    (now != started).then(|| {
        std::io::Error::new(
            std::io::ErrorKind::Interrupted,
            "stopped: its temporary file was removed",
        )
    })
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
/// [`DatafileWriter::save`](crate::DatafileWriter::save), ...), so that a program stopped by a signal leaves none behind.
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
    fn failed_saves_and_reads_keep_the_io_error_kind() {
        use std::io::ErrorKind as K;
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no such dir").join("out.map");
        let error = save(&missing, b"x").unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Io);
        assert_eq!(error.io_kind(), Some(K::NotFound), "{error}");
        assert!(error.to_string().contains("does not exist"), "{error}");
        let error = save(dir.path(), b"x").unwrap_err();
        assert_eq!(error.io_kind(), Some(K::IsADirectory), "{error}");
        let error = crate::input::read_file(dir.path(), 100, "limit").unwrap_err();
        assert_eq!(error.io_kind(), Some(K::IsADirectory), "{error}");
        let error = crate::input::read_file(&missing, 100, "limit").unwrap_err();
        assert_eq!(error.io_kind(), Some(K::NotFound), "{error}");
        assert_eq!(Error::malformed("x").io_kind(), None);
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
