//! What every command shares on the way out: why a command stopped ([`Failure`]), lines on
//! standard error ([`note!`], [`say`]), the `-` of standard output, and errors as lines that
//! name the file and say what to run instead.

use std::io::{self, IsTerminal, Write};
use std::path::Path;

use clap::ValueEnum;
use twcodec::{Datafile, Error};

/// Why a command stopped.
pub(crate) enum Failure {
    /// The input is invalid or unreadable, or an output file cannot be written.
    Input(Error),
    /// Standard output failed.
    Output(io::Error),
    /// The command cannot do what it was asked (exit 2, as for a usage error).
    Usage(String),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        Failure::Input(error)
    }
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Failure {
        Failure::Output(error)
    }
}

/// Standard output, locked and buffered, as every command writes it.
pub(crate) type Out<'a> = &'a mut dyn Write;

/// Output formats of `dump`, `diff` and `snap decode`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum Format {
    /// Readable text (`dump`: one field per line).
    Text,
    /// JSON.
    Json,
}

/// Rows of many files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RowFormat {
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header line.
    Csv,
}

/// A line on standard error; a failing standard error is ignored (there is nowhere left to
/// say it).
macro_rules! note {
    ($($arg:tt)*) => {{
        $crate::output::say(&format!($($arg)*));
    }};
}
pub(crate) use note;

/// Writes a line on standard error with its `error:`, `warning:` or `note:` label colored as
/// clap colors its own (bold red, yellow, cyan). anstream leaves the colors out where standard
/// error is not a terminal, and honours `NO_COLOR`, `CLICOLOR` and `CLICOLOR_FORCE`.
pub(crate) fn say(line: &str) {
    use anstyle::{AnsiColor, Style};
    let labels = [
        ("error:", AnsiColor::Red),
        ("warning:", AnsiColor::Yellow),
        ("note:", AnsiColor::Cyan),
    ];
    let mut stderr = anstream::stderr().lock();
    // The label is the first word after the `twcodec: ` or `FILE: ` that starts the line.
    let found = (labels.iter())
        .filter_map(|(label, color)| {
            line.find(&format!(": {label} "))
                .map(|at| (at + 2, *label, *color))
        })
        .chain(
            labels
                .iter()
                .filter(|(label, _)| line.starts_with(&format!("{label} ")))
                .map(|(label, color)| (0, *label, *color)),
        )
        .min_by_key(|(at, _, _)| *at);
    let _ = match found {
        Some((at, label, color)) => {
            let style = Style::new().bold().fg_color(Some(color.into()));
            writeln!(
                stderr,
                "{}{style}{label}{style:#}{}",
                &line[..at],
                &line[at + label.len()..]
            )
        }
        None => writeln!(stderr, "{line}"),
    };
}

/// `-` names standard output.
pub(crate) fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Binary data is not written to a terminal (gzip's rule): a user asking for it meant a pipe.
pub(crate) fn refuse_terminal(what: &str) -> Result<(), Failure> {
    if io::stdout().is_terminal() {
        return Err(Failure::Usage(format!(
            "not writing {what} to a terminal: redirect standard output to a file or a pipe"
        )));
    }
    Ok(())
}

/// `N things`, with the plural's `s` when N is not 1.
pub(crate) fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// A CSV error: writing standard output, or a row that cannot be a record.
pub(crate) fn csv_failure(error: csv::Error) -> Failure {
    match error.into_kind() {
        csv::ErrorKind::Io(error) => Failure::Output(error),
        other => Failure::Output(io::Error::other(format!("{other:?}"))),
    }
}

pub(crate) fn open(path: &Path) -> Result<Datafile, Error> {
    Datafile::open(path)
}

/// An error as a line that follows the file's name: without the path it already names, and
/// with a hint when the file is of another kind than the command reads.
pub(crate) fn explain_for(error: &Error, file: &Path) -> String {
    format!("{}{}", without_path(error, file), hint(error))
}

/// An error's text without the path `file` it starts with.
pub(crate) fn without_path(error: &Error, file: &Path) -> String {
    let text = error.to_string();
    let prefix = format!("{}: ", file.display());
    match text.strip_prefix(&prefix) {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

/// What to run on a file of another kind than the command reads, when the error says what the
/// file is: `; \`twcodec demo info FILE\` reads demos`.
pub(crate) fn hint(error: &Error) -> String {
    use twcodec::sniff::FileKind;
    let Some(kind) = error.file_kind() else {
        return String::new();
    };
    let file = error
        .path()
        .map_or_else(|| "FILE".to_string(), |path| path.display().to_string());
    match kind {
        FileKind::Datafile => {
            format!("; `twcodec info {file}` and `twcodec check {file}` read maps")
        }
        FileKind::Demo => format!("; `twcodec demo info {file}` reads demos"),
        FileKind::Teehistorian => {
            format!("; `twcodec teehistorian info {file}` reads teehistorian files")
        }
        FileKind::Ghost => format!("; `twcodec ghost info {file}` reads ghosts"),
        FileKind::Png => format!(
            "; `twcodec add-image MAP {file} -o OUT` adds a picture to a map (`replace-image` \
             replaces one, `embed` embeds the game's own)"
        ),
        FileKind::Ogg => format!(
            "; `twcodec add-sound MAP {file} -o OUT` adds a sound to a map (`replace-sound` \
             replaces one)"
        ),
        _ => String::new(),
    }
}
