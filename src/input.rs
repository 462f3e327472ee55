//! Reading a file that someone else may have made: one bounded reader for every input.
//!
//! [`read_file`] reads only regular files (following a link the caller named, as any command
//! does), refuses a FIFO, a device or a directory at once, before it is opened for reading, so
//! that nothing blocks (a FIFO) or runs on forever (`/dev/zero`), and never reads more than the
//! limit it is given, however large the file claims or grows to be. The limits come from
//! [`Limits`](crate::Limits) ([`max_file_size`](crate::Limits::max_file_size) for maps, demos
//! and snapshots, [`max_picture_file`](crate::Limits::max_picture_file) for PNG files,
//! [`max_data_size`](crate::Limits::max_data_size) for sounds and the files of an unpacked
//! map), and errors name the file and the limit.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("x.map");
//! std::fs::write(&path, twcodec_testkit::sample::datafile())?;
//! let bytes = twcodec::input::read_file(&path, 1 << 20, "Limits::max_file_size")?;
//! assert_eq!(bytes, twcodec_testkit::sample::datafile());
//! let error = twcodec::input::read_file(&path, 100, "Limits::max_file_size").unwrap_err();
//! assert!(error.to_string().contains("more than the 100 bytes Limits::max_file_size allows"));
//! let error = twcodec::input::read_file(dir.path(), 100, "Limits::max_file_size").unwrap_err();
//! assert!(error.to_string().contains("is a directory"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::Read;
use std::path::Path;

use crate::error::{Error, ErrorKind};

/// The bytes of the regular file at `path`, at most `max` of them; `limit` names the limit in
/// errors (`Limits::max_file_size`).
pub fn read_file(path: &Path, max: u64, limit: &str) -> Result<Vec<u8>, Error> {
    read(path, max, limit, true)
}

fn read(path: &Path, max: u64, limit: &str, follow: bool) -> Result<Vec<u8>, Error> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io("read", path, e))?;
    check(path, &meta, max, limit)?;
    let file = open(path, follow).map_err(|e| match e.raw_os_error() {
        // O_NOFOLLOW on a link that took the file's place.
        #[cfg(unix)]
        Some(code) if code == rustix::io::Errno::LOOP.raw_os_error() => a_link(path),
        _ => Error::io("read", path, e),
    })?;
    // The file opened may not be the file looked at: checked again.
    let meta = file.metadata().map_err(|e| Error::io("read", path, e))?;
    check(path, &meta, max, limit)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // One byte more than the limit tells a file that grew past it.
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", path, e))?;
    if bytes.len() as u64 > max {
        return Err(too_large(path, "grew past", max, limit));
    }
    Ok(bytes)
}

/// [`read_file`] of a file inside a directory someone else made (an unpacked map): a symbolic
/// link there is refused, not followed, so that the directory cannot make twcodec read a file
/// outside it (`data/000.txt -> /etc/hostname`).
pub fn read_own_file(path: &Path, max: u64, limit: &str) -> Result<Vec<u8>, Error> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| Error::io("read", path, e))?;
    if meta.file_type().is_symlink() {
        return Err(a_link(path));
    }
    read(path, max, limit, false)
}

/// The error for a symbolic link where a directory's own file or folder is expected.
pub fn a_link(path: &Path) -> Error {
    Error::new(
        ErrorKind::Io,
        format!(
            "{}: a symbolic link: twcodec reads only the directory's own files and folders, \
             never through a link (replace it with the file it points to)",
            path.display()
        ),
    )
}

/// The text of the regular file at `path` (see [`read_own_file`]); not UTF-8 is an error naming
/// it.
pub fn read_own_text(path: &Path, max: u64, limit: &str) -> Result<String, Error> {
    String::from_utf8(read_own_file(path, max, limit)?).map_err(|e| {
        Error::malformed(format!(
            "{}: not UTF-8 text (at byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// An error unless `meta` is a regular file of at most `max` bytes.
fn check(path: &Path, meta: &std::fs::Metadata, max: u64, limit: &str) -> Result<(), Error> {
    if !meta.is_file() {
        let error = Error::new(
            ErrorKind::Io,
            format!(
                "cannot read {}: it is {}, not a regular file",
                path.display(),
                what_it_is(meta)
            ),
        );
        return Err(match meta.is_dir() {
            true => error.with_io_kind(std::io::ErrorKind::IsADirectory),
            false => error,
        });
    }
    if meta.len() > max {
        return Err(too_large(path, "is", max, limit));
    }
    Ok(())
}

fn too_large(path: &Path, verb: &str, max: u64, limit: &str) -> Error {
    Error::limit(format!(
        "{} {verb} more than the {max} bytes {limit} allows",
        path.display()
    ))
}

/// `a directory`, `a FIFO`, `a character device`, ...
pub fn what_it_is(meta: &std::fs::Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        return "a directory";
    }
    if kind.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Opens `path` to read without blocking on a FIFO that took the place of the file looked at,
/// and, unless `follow`, without following a link that did.
fn open(path: &Path, follow: bool) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = OFlags::NONBLOCK;
        if !follow {
            flags |= OFlags::NOFOLLOW;
        }
        options.custom_flags(flags.bits() as i32);
    }
    #[cfg(not(unix))]
    let _ = follow;
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_is_refused_at_once() {
        let error = read_file(Path::new("/dev/zero"), 1 << 20, "the limit").unwrap_err();
        assert_eq!(
            error.to_string(),
            "cannot read /dev/zero: it is a character device, not a regular file"
        );
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let error = read_file(&fifo, 1 << 20, "the limit").unwrap_err();
            assert!(error
                .to_string()
                .ends_with("it is a FIFO, not a regular file"));
        }
    }
}
