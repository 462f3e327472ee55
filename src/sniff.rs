//! What a file is, by its first bytes: the one place that knows the magic of every kind of
//! file twcodec reads or takes in.
//!
//! Every reader asks here when its own magic is missing, so that an input of the wrong kind
//! (a demo given where a map goes, a map given to the demo reader, a PNG given as a map) is
//! named for what it is ([`Error::file_kind`](crate::Error::file_kind)), and `twcodec scan`
//! sorts files by it.
//!
//! ```
//! use twcodec::sniff::{sniff, FileKind};
//!
//! assert_eq!(sniff(&twcodec_testkit::sample::datafile()), Some(FileKind::Datafile));
//! assert_eq!(sniff(b"TWDEMO\0\x06"), Some(FileKind::Demo));
//! assert_eq!(sniff(b"TWGHOST\0\x06"), Some(FileKind::Ghost));
//! assert_eq!(sniff(b"\x89PNG\r\n\x1a\n"), Some(FileKind::Png));
//! assert_eq!(sniff(b"hello"), None);
//!
//! let error = twcodec::Datafile::parse(b"TWDEMO\0\x06 and the rest").unwrap_err();
//! assert_eq!(error.file_kind(), Some(FileKind::Demo));
//! ```

use std::fmt;

/// A kind of file twcodec knows by its magic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileKind {
    /// A datafile (`DATA`, or `ATAD` as big-endian writers put it): a map.
    Datafile,
    /// A demo (`TWDEMO\0`).
    Demo,
    /// A PNG picture (the 8-byte PNG signature).
    Png,
    /// An Ogg file (`OggS`), as map sounds are (Opus in Ogg).
    Ogg,
    /// A DDNet teehistorian file (the 16-byte UUID of `teehistorian@ddnet.tw`).
    Teehistorian,
    /// A DDNet ghost (`TWGHOST\0`), a recorded race.
    Ghost,
}

/// Each kind's magic (the first bytes of every file of the kind).
const MAGICS: &[(&[u8], FileKind)] = &[
    (b"DATA", FileKind::Datafile),
    (b"ATAD", FileKind::Datafile),
    (b"TWDEMO\0", FileKind::Demo),
    (b"\x89PNG\r\n\x1a\n", FileKind::Png),
    (b"OggS", FileKind::Ogg),
    (&twcodec_schema::teehistorian::MAGIC, FileKind::Teehistorian),
    (b"TWGHOST\0", FileKind::Ghost),
];

/// The longest magic: how many bytes [`sniff`] looks at.
pub const SNIFF_LEN: usize = 16;

/// What `bytes` (a file's first bytes, at least [`SNIFF_LEN`] of them when the file has them)
/// are, by their magic; `None` for none of the kinds.
pub fn sniff(bytes: &[u8]) -> Option<FileKind> {
    MAGICS
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
        .map(|&(_, kind)| kind)
}

impl FileKind {
    /// What it is, in words: `a map (a datafile)`, `a demo`, `a PNG picture`, `an Ogg file
    /// (a sound)`, `a ghost`.
    pub fn describe(self) -> &'static str {
        match self {
            FileKind::Datafile => "a map (a datafile)",
            FileKind::Demo => "a demo",
            FileKind::Png => "a PNG picture",
            FileKind::Ogg => "an Ogg file (a sound)",
            FileKind::Teehistorian => "a teehistorian file",
            FileKind::Ghost => "a ghost",
        }
    }

    /// Its magic, as it is shown in messages (`"TWDEMO\0"`).
    fn magic_text(self) -> String {
        if self == FileKind::Teehistorian {
            return "the UUID of teehistorian@ddnet.tw".to_string();
        }
        let magic = MAGICS
            .iter()
            .find(|(_, kind)| *kind == self)
            .map_or(&b""[..], |(magic, _)| magic);
        let text: String = (magic.iter())
            .map(|&byte| match byte {
                0 => "\\0".to_string(),
                _ => byte.escape_ascii().to_string(),
            })
            .collect();
        format!("\"{text}\"")
    }

    /// The error of a reader of `expected` given a file of this kind:
    /// `not a demo: the file is a map (a datafile), it starts with "DATA"`.
    pub fn wrong_kind(self, expected: &str) -> crate::Error {
        crate::Error::malformed(format!(
            "not {expected}: the file is {}, it starts with {}",
            self.describe(),
            self.magic_text()
        ))
        .of_kind(self)
    }

    /// The error of a reader of `expected` given `bytes`, when they are a file of another
    /// kind (`reads`: the kind the reader reads).
    pub fn check(bytes: &[u8], reads: FileKind, expected: &str) -> Result<(), crate::Error> {
        match sniff(bytes) {
            Some(kind) if kind != reads => Err(kind.wrong_kind(expected)),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_magic_and_short_input() {
        assert_eq!(sniff(b"ATAD\x04\0\0\0"), Some(FileKind::Datafile));
        assert_eq!(sniff(b"OggS\0\x02"), Some(FileKind::Ogg));
        assert_eq!(sniff(b"TWDEMO"), None, "the NUL belongs to the magic");
        assert_eq!(sniff(b""), None);
        let error = FileKind::Demo.wrong_kind("a datafile");
        assert_eq!(
            error.to_string(),
            "not a datafile: the file is a demo, it starts with \"TWDEMO\\0\""
        );
        assert_eq!(error.file_kind(), Some(FileKind::Demo));
    }
}
