//! `twcodec`: a thin command-line shell over the library's readers, writers and dumps.
//!
//! Exit codes: 0 success, 1 the input is invalid or unreadable, or an output cannot be written
//! (one message on stderr naming the problem and the file), 2 usage error. A closed pipe on
//! standard output ends the program quietly with 0, as Unix tools do.
//!
//! Every command that writes a file takes `-` for standard output.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use twcodec::demo::Demo;
use twcodec::map::Severity;
use twcodec::snap::{self, Decoded, Form, Protocol, SizeTable, Snapshot, SnapshotDelta};
use twcodec::{Datafile, DatafileWriter, Error, LoadMode, Map, MapForm, Version};
use twcodec_tools::dump::{self, DumpOptions, TypeFilter};

/// Read, write and explain Teeworlds and DDNet datafiles, maps, snapshots and demos.
///
/// With no command, shows `info` of a built-in sample datafile that twcodec generates itself.
#[derive(Debug, Parser)]
#[command(name = "twcodec", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Version, magic, header sizes, item types with counts, data totals and warnings.
    Info {
        /// The datafile (a .map file).
        file: PathBuf,
    },
    /// Every item as type, id and ints.
    Items {
        /// The datafile (a .map file).
        file: PathBuf,
        /// Only items of this type: a type id (5, 0xfffe), a name (layer, uuid-index,
        /// automapper), a UUID or a UUID name (mapitemtype-automapper-config@ddnet.tw).
        #[arg(long = "type", value_name = "T")]
        type_filter: Option<TypeFilter>,
        /// Show each item decoded as its map item type, one field per line.
        #[arg(long)]
        decode: bool,
    },
    /// The whole map, resolved: every item and field, tile layers summarized.
    Dump {
        /// The map.
        file: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Add an ASCII preview of the game layer.
        #[arg(long)]
        tiles: bool,
        /// Text made for line diffs, for git's `textconv` (`git log -p`, `git show`,
        /// `git blame`): a line per fact, things named rather than numbered, tiles a row per
        /// line. A file that is not a map is one line saying so (exit 0), so that git goes on.
        #[arg(long, conflicts_with_all = ["format", "tiles"])]
        for_diff: bool,
    },
    /// Every map and demo under the paths (recursively), in parallel, one row per file:
    /// kind, versions, sizes, item and layer census, game layer size, images and sounds,
    /// problems, hashes. A file that fails is a row with its error; rows keep the files'
    /// order. A summary goes to standard error; exit 1 when a file failed.
    Scan {
        /// Files and directories.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = RowFormat::Jsonl)]
        format: RowFormat,
        /// Threads (default: one per core).
        #[arg(long, short = 'j', value_parser = parse_jobs)]
        jobs: Option<usize>,
        /// Also inflate and check all content: every data item and tile, every demo chunk.
        #[arg(long)]
        deep: bool,
    },
    /// Check maps: a header line per map (`FILE: 1 error, 2 warnings`), then what the reader
    /// and the resolver find, a line each naming the map: `FILE: error: ...` for what DDNet
    /// refuses, `FILE: warning: ...` for the rest. Exit 1 when a map cannot be read, and with
    /// --strict when one has errors. With several maps (or directories, searched for .map
    /// files), they are checked in parallel and a summary line ends the output.
    Check {
        /// Maps, or directories of maps.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Fail (exit 1) when a map has errors; without it (lenient) errors are shown and
        /// counted, and the exit code is 0.
        #[arg(long)]
        strict: bool,
        /// Threads (default: one per core).
        #[arg(long, short = 'j', value_parser = parse_jobs)]
        jobs: Option<usize>,
    },
    /// Compare two maps (map files, or directories `unpack` wrote): what was added, removed
    /// and changed, by place, in human units; exit 0 when they are the same, 1 when they
    /// differ, 2 on error.
    Diff {
        /// The old map and the new map (with --git: the 1, 7 or 9 arguments git gives an
        /// external diff driver).
        #[arg(required = true, num_args = 1..=9)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Take git's arguments for an external diff driver (PATH OLD-FILE OLD-HEX OLD-MODE
        /// NEW-FILE NEW-HEX NEW-MODE, then NEW-PATH and git's rename lines for a rename; PATH
        /// alone for an unmerged path) and always exit 0, as git expects: a side that is not a
        /// map is a line saying so.
        #[arg(long)]
        git: bool,
    },
    /// Write every embedded image (as an RGBA PNG) and sound (as its .opus file) of a map into
    /// a directory, named after them; list the external ones, which the map only names.
    ///
    /// With --out-dir, every input (maps, and directories searched for .map files) is
    /// extracted into DIR/<its path without .map>/, in parallel, and a summary line ends the
    /// output; exit 1 when any failed.
    Extract {
        /// The map, then the directory to write into (created when missing). With --out-dir:
        /// the inputs.
        #[arg(required = true, value_name = "MAP DIR | INPUTS")]
        paths: Vec<PathBuf>,
        /// Extract every input under this directory.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
        /// Threads with --out-dir (default: one per core).
        #[arg(long, short = 'j', requires = "out_dir", value_parser = parse_jobs)]
        jobs: Option<usize>,
        /// Only images or only sounds.
        #[arg(long, value_enum)]
        only: Option<OnlyAssets>,
    },
    /// Add a PNG picture (any color type, stored as RGBA) to a map as an embedded image.
    AddImage {
        /// The map.
        file: PathBuf,
        /// The PNG file.
        png: PathBuf,
        /// The image's name in the map (default: the PNG's file name without `.png`).
        #[arg(long)]
        name: Option<String>,
        /// Where to write the map.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Replace the pixels of the image named NAME with a PNG (any color type, stored as RGBA);
    /// an external image becomes embedded. It keeps its name and place, so every layer drawn
    /// with it draws the new picture.
    ReplaceImage {
        /// The map.
        file: PathBuf,
        /// The image's name in the map.
        name: String,
        /// The PNG file.
        png: PathBuf,
        /// Where to write the map.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Embed every external image from the picture of its name in a folder of the game's
    /// pictures (DDNet's data/mapres): the map then draws the same everywhere.
    Embed {
        /// The map.
        file: PathBuf,
        /// The folder of pictures, NAME.png each (default: $TWCODEC_MAPRES).
        #[arg(long, value_name = "DIR")]
        mapres: Option<PathBuf>,
        /// Fail (and write nothing) when an image stays external.
        #[arg(long)]
        strict: bool,
        /// Where to write the map.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Replace the data of the sound named NAME with an Ogg Opus file.
    ReplaceSound {
        /// The map.
        file: PathBuf,
        /// The sound's name in the map.
        name: String,
        /// The Ogg Opus file (.opus).
        opus: PathBuf,
        /// Where to write the map.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Add an Ogg Opus file to a map as an embedded sound (DDNet).
    AddSound {
        /// The map.
        file: PathBuf,
        /// The Ogg Opus file (.opus).
        opus: PathBuf,
        /// The sound's name in the map (default: the file name without `.opus`).
        #[arg(long)]
        name: Option<String>,
        /// Where to write the map.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Write a map as a directory to read, edit and review (docs/mapdir.md): items as TOML,
    /// pictures as PNG, sounds as Opus, tiles as text; `pack` builds the map back, byte for
    /// byte when nothing changed.
    Unpack {
        /// The map (or any datafile).
        file: PathBuf,
        /// The directory to write (new, or empty).
        dir: PathBuf,
    },
    /// Build a map from a directory `unpack` wrote (and you edited); nothing is written when
    /// the directory has an error.
    Pack {
        /// The directory.
        dir: PathBuf,
        /// Where to write the map (`-`: standard output).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Draw a map to a PNG picture as the game shows it: tile layers with their tilesets,
    /// quads, envelopes at a time, parallax and clipping; --entities draws its physics.
    Render {
        /// The map.
        file: PathBuf,
        /// The PNG file to write (`-`: standard output).
        #[arg(short, long)]
        output: PathBuf,
        /// The folder of the game's pictures, for external images (default: $TWCODEC_MAPRES;
        /// DDNet's is `data/mapres`). Missing pictures are drawn as placeholders.
        #[arg(long)]
        mapres: Option<PathBuf>,
        /// The picture's width in pixels (default 1920).
        #[arg(long, conflicts_with = "scale")]
        width: Option<u32>,
        /// The picture's height in pixels (default: the view's shape; 16:9 for --camera).
        #[arg(long, requires = "width")]
        height: Option<u32>,
        /// Pixels per tile instead of a width (32: the game's full size).
        #[arg(long)]
        scale: Option<f64>,
        /// The time in seconds at which envelopes (moving quads, colors) are drawn.
        #[arg(long, default_value_t = 0.0)]
        time: f64,
        /// Center a game camera on this tile position, X,Y (default: the whole map).
        #[arg(long, value_parser = parse_point, conflicts_with = "whole")]
        camera: Option<(f64, f64)>,
        /// The camera's zoom: 1 sees what the game shows by default, 2 twice as much.
        #[arg(long, requires = "camera", default_value_t = 1.0)]
        zoom: f64,
        /// Show the whole game layer (the default).
        #[arg(long)]
        whole: bool,
        /// Draw only the physics layers (game, front, tele, speedup, switch, tune) with an
        /// entities tileset, as the game's entities view.
        #[arg(long, conflicts_with = "entities_overlay")]
        entities: bool,
        /// Draw the physics layers over the map at this opacity in percent (the game's
        /// cl_overlay_entities).
        #[arg(long, value_parser = clap::value_parser!(u8).range(0..=100))]
        entities_overlay: Option<u8>,
        /// The entities tileset PNG (default: DDNet's, found around --mapres; else plain
        /// colors).
        #[arg(long)]
        entities_tileset: Option<PathBuf>,
        /// Leave out detail layers (the game's "high detail" off).
        #[arg(long)]
        no_detail: bool,
        /// Draw only these layers: indices (as `twcodec dump` numbers them) or names,
        /// separated by commas.
        #[arg(long, value_delimiter = ',')]
        layers: Vec<String>,
        /// The most steps of work the render may take (twcodec::Limits::max_render_work,
        /// default 4294967296): a map that needs more is an error, before anything is drawn.
        /// A step is about a nanosecond; raise it for big pictures of maps with many layers.
        #[arg(long, value_name = "STEPS")]
        max_work: Option<u64>,
    },
    /// Write a datafile back; lossless unless asked to change something.
    ///
    /// Converting a DDNet map for Teeworlds 0.7, add --embed: 0.7 ships redrawn pictures
    /// under DDNet's names (grass_main, winter_main, ...), so a map with external images looks
    /// different in a 0.7 client; --embed --mapres DIR puts DDNet's pictures in the map, as
    /// DDNet's map_convert_07 does, and the map keeps its look.
    ///
    /// With --out-dir, every input (maps, and directories searched for .map files) is written
    /// under DIR at its path relative to the directory given (or by its name), in parallel,
    /// and a summary line ends the output; exit 1 when any failed.
    Resave {
        /// The datafile to read, then where to write it: a new or regular file is replaced
        /// atomically (a temporary file, then a rename; a replaced file keeps its mode), a
        /// device or FIFO is written in place, `-` is standard output. With --out-dir: the
        /// inputs.
        #[arg(required = true, value_name = "INPUT OUTPUT | INPUTS")]
        paths: Vec<PathBuf>,
        /// Write every input under this directory.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
        /// Threads with --out-dir (default: one per core).
        #[arg(long, short = 'j', requires = "out_dir", value_parser = parse_jobs)]
        jobs: Option<usize>,
        /// Datafile (container) version to write, 3 or 4 (default: the input's).
        #[arg(long, value_name = "3|4", value_parser = parse_version)]
        datafile_version: Option<Version>,
        /// Compress every data item again instead of keeping the stored bytes.
        #[arg(long)]
        recompress: bool,
        /// zlib level for new or recompressed data.
        #[arg(long, default_value_t = twcodec::DEFAULT_COMPRESSION_LEVEL,
              value_parser = clap::value_parser!(u32).range(0..=9))]
        level: u32,
        /// Convert the map to this game's form (through the map graph); standard error says
        /// what was changed, kept and dropped, one line each.
        #[arg(long, value_enum)]
        to: Option<Target>,
        /// With --to: embed every external image from --mapres first, so that the map looks
        /// as in DDNet in any client (use it for --to 0.7, whose pictures are redrawn).
        #[arg(long, requires = "to")]
        embed: bool,
        /// The folder of DDNet's pictures for --embed, NAME.png each (default:
        /// $TWCODEC_MAPRES).
        #[arg(long, value_name = "DIR", requires = "embed")]
        mapres: Option<PathBuf>,
    },
    /// Write the built-in sample map (a tiny DDNet map twcodec makes itself) to a file, to
    /// try the other commands on.
    Sample {
        /// Where to write it (`-`: standard output).
        output: PathBuf,
    },
    /// Demos: header, embedded map, chunks, and the snapshot at every tick.
    Demo {
        #[command(subcommand)]
        command: DemoCommand,
    },
    /// Snapshots and snapshot deltas, in files of 4-byte little-endian ints (the unpacked
    /// form) or, with --packed, of packed ints as on the network and in demos.
    Snap {
        #[command(subcommand)]
        command: SnapCommand,
    },
    /// The format reference: every on-disk structure with each field's position, size, type
    /// and the condition under which it is present, read from the schema's binrw attributes.
    Schema {
        /// A structure (`GroupItem`, any case) or a document (datafile, map-items, snapshots,
        /// demos); every document without one.
        name: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = SchemaOutput::Markdown)]
        format: SchemaOutput,
        /// Write the Markdown files of every document and an index (README.md) into this
        /// directory, as committed under docs/format/.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["name", "format"])]
        out_dir: Option<PathBuf>,
    },
    /// Shell completions on standard output, for bash, zsh, fish, elvish or powershell
    /// (`twcodec completions bash > ~/.local/share/bash-completion/completions/twcodec`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// The manual page (roff) on standard output: `twcodec man | man -l -`, or one
    /// command's page (`twcodec man unpack`, `twcodec man demo chat`).
    Man {
        /// The command, and its subcommand for `demo` and `snap`; the main page without one.
        command: Vec<String>,
    },
}

/// Output formats of `schema`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum SchemaOutput {
    /// Markdown tables, as in docs/format/.
    Markdown,
    /// JSON.
    Json,
}

#[derive(Debug, Subcommand)]
enum DemoCommand {
    /// Header, timeline markers, the embedded map (checked against the header's CRC and
    /// SHA-256), counts of chunks and ticks, duration.
    Info {
        /// The demo.
        file: PathBuf,
    },
    /// Replay the demo: every tick with its snapshot's item count and checksum.
    Ticks {
        /// The demo.
        file: PathBuf,
    },
    /// Write the embedded map to a file.
    Map {
        /// The demo.
        file: PathBuf,
        /// Where to write the map (`-`: standard output).
        output: PathBuf,
    },
    /// The chat: `[mm:ss.cc] name: text`, team chat, whispers, server messages and
    /// broadcasts, with the speakers' names as of the moment (from the snapshots' client
    /// info and 0.7's client info messages; `#3` when never named). A message that does not
    /// decode is reported on standard error, naming its chunk, tick and offset, and skipped
    /// (exit 1 at the end).
    Chat {
        /// The demo.
        file: PathBuf,
        /// Output format: lines, or one JSON object per line.
        #[arg(long, value_enum, default_value_t = ChatFormat::Text)]
        format: ChatFormat,
        /// Joins, leaves and kills too (`--> name joined`, `<-- name left`, `a killed b
        /// (weapon)`).
        #[arg(long)]
        events: bool,
    },
    /// One row per snapshot object per tick (tick, time in seconds since the first tick,
    /// type, id, the object's fields), streamed, for DuckDB, pandas or Spark.
    Export {
        /// The demo.
        file: PathBuf,
        /// Only these object types, comma-separated (`character,player_info`; with or
        /// without the `obj_` / `event_` prefix).
        #[arg(long, value_delimiter = ',')]
        objects: Vec<String>,
        /// Output format (CSV replays the demo twice: once for the columns).
        #[arg(long, value_enum, default_value_t = RowFormat::Jsonl)]
        format: RowFormat,
    },
}

#[derive(Debug, Subcommand)]
enum SnapCommand {
    /// Print a snapshot or a snapshot delta: a snapshot's items as the objects of the
    /// protocol (fields by name, positions also in tiles), a delta's items as ints.
    Decode {
        /// The snapshot or delta.
        file: PathBuf,
        /// The file holds packed ints.
        #[arg(long)]
        packed: bool,
        /// The protocol: its pre-agreed item sizes (they decide which item deltas carry
        /// their size) and its type names.
        #[arg(long, value_enum, default_value_t = Sizes::Ddnet06)]
        sizes: Sizes,
        /// What the file holds (default: a snapshot if it reads as one, else a delta).
        #[arg(long, value_enum)]
        kind: Option<Kind>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Apply a delta to a snapshot; print the resulting snapshot and its checksum.
    Apply {
        /// The old snapshot.
        snapshot: PathBuf,
        /// The delta.
        delta: PathBuf,
        /// Both files hold packed ints (and so will --output).
        #[arg(long)]
        packed: bool,
        /// The protocol, as for `decode`.
        #[arg(long, value_enum, default_value_t = Sizes::Ddnet06)]
        sizes: Sizes,
        /// Also write the resulting snapshot to this file (`-`: standard output, instead of
        /// the text).
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

/// Snapshot protocols for `--sizes`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Sizes {
    /// Teeworlds 0.6 and DDNet (types 1 to 20 pre-agreed).
    #[value(name = "0.6")]
    Ddnet06,
    /// Teeworlds 0.7 (types 1 to 22 pre-agreed).
    #[value(name = "0.7")]
    Teeworlds07,
    /// No pre-agreed sizes: every item delta carries its size.
    None,
}

impl Sizes {
    fn protocol(self) -> Option<Protocol> {
        match self {
            Sizes::Ddnet06 => Some(Protocol::Ddnet06),
            Sizes::Teeworlds07 => Some(Protocol::Teeworlds07),
            Sizes::None => None,
        }
    }

    fn table(self) -> SizeTable {
        self.protocol().map_or(SizeTable::none(), Protocol::sizes)
    }
}

/// What `snap decode` reads.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Kind {
    /// A snapshot.
    Snapshot,
    /// A snapshot delta.
    Delta,
}

/// Output formats of `dump` and `snap decode`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// Readable text (`dump`: one field per line).
    Text,
    /// JSON.
    Json,
}

/// What `extract --only` takes.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum OnlyAssets {
    /// Images only.
    Images,
    /// Sounds only.
    Sounds,
}

/// Map forms `resave --to` converts to.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Target {
    /// DDNet (and Teeworlds 0.6).
    Ddnet,
    /// Teeworlds 0.7.
    #[value(name = "0.7")]
    Teeworlds07,
}

/// A thread count: at least 1.
fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(jobs) if jobs > 0 => Ok(jobs),
        _ => Err(format!("`{text}` is not a number of threads (1 or more)")),
    }
}

fn parse_version(text: &str) -> Result<Version, String> {
    text.parse::<i32>()
        .ok()
        .and_then(Version::from_number)
        .ok_or_else(|| format!("`{text}` is not a datafile version (3 or 4)"))
}

/// Why a command stopped.
enum Failure {
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

type Out<'a> = &'a mut dyn Write;

/// A line on standard error; a failing standard error is ignored (there is nowhere left to
/// say it).
macro_rules! note {
    ($($arg:tt)*) => {{
        say(&format!($($arg)*));
    }};
}

/// Writes a line on standard error with its `error:`, `warning:` or `note:` label colored as
/// clap colors its own (bold red, yellow, cyan). anstream leaves the colors out where standard
/// error is not a terminal, and honours `NO_COLOR`, `CLICOLOR` and `CLICOLOR_FORCE`.
fn say(line: &str) {
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

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage(&error),
    };
    remove_temporary_files_on_signals();
    let mut out = BufWriter::new(io::stdout().lock());
    let result = run(cli.command, &mut out).and_then(|code| {
        out.flush()?;
        Ok(code)
    });
    match result {
        Ok(code) => code,
        Err(Failure::Input(error)) => {
            // What was printed before the error still goes out, ahead of it.
            let _ = out.flush();
            note!("twcodec: error: {error}{}", hint(&error));
            ExitCode::from(1)
        }
        Err(Failure::Output(error)) if error.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(Failure::Output(error)) => {
            note!("twcodec: error: writing standard output: {error}");
            ExitCode::from(1)
        }
        Err(Failure::Usage(message)) => {
            note!("twcodec: error: {message}");
            ExitCode::from(2)
        }
    }
}

/// The manual page of the command `path` names (`[]`: the main page), in roff: the same text
/// as `--help`, from the same definitions.
fn man_page(path: &[String]) -> Result<Vec<u8>, Failure> {
    let mut command = Cli::command();
    command.build();
    let mut name = "twcodec".to_string();
    for word in path {
        let names: Vec<String> = (command.get_subcommands())
            .map(|sub| sub.get_name().to_string())
            .filter(|name| name != "help")
            .collect();
        let Some(sub) = command.find_subcommand(word).cloned() else {
            return Err(Failure::Usage(format!(
                "`{name}` has no command `{word}`{}; its commands: {}",
                twcodec_tools::nearest(word, &names)
                    .map_or(String::new(), |near| format!(" (did you mean `{near}`?)")),
                names.join(", ")
            )));
        };
        name = format!("{name}-{}", sub.get_name());
        command = sub;
    }
    let command = (command.name(name.clone()))
        .bin_name(name.replace('-', " "))
        .version(env!("CARGO_PKG_VERSION"));
    let mut page = Vec::new();
    clap_mangen::Man::new(command).render(&mut page)?;
    Ok(page)
}

/// Help and version on standard output, usage errors on standard error (exit 2), as clap
/// prints them, but with a failing output reported as for any command.
fn usage(error: &clap::Error) -> ExitCode {
    match error.print() {
        Ok(()) => ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2)),
        Err(failure) if failure.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(failure) => {
            note!("twcodec: error: writing standard output: {failure}");
            ExitCode::from(1)
        }
    }
}

/// On SIGINT, SIGTERM and SIGHUP, removes the temporary files of a save in progress, then
/// ends the process as the signal would have.
fn remove_temporary_files_on_signals() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                twcodec::fs::remove_temporary_files();
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
    }
}

fn run(command: Option<Command>, out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        None => intro(out)?,
        Some(Command::Info { file }) => dump::info(&open(&file)?, out)?,
        Some(Command::Items {
            file,
            type_filter,
            decode,
        }) => {
            let datafile = open(&file)?;
            if decode {
                dump::decoded_items(&datafile, type_filter, out)?;
            } else {
                dump::items(&datafile, type_filter, out)?;
            }
        }
        Some(Command::Dump {
            file,
            for_diff: true,
            ..
        }) => match Map::open(&file) {
            Ok(map) => dump::map_for_diff(&map, out)?,
            // Without the path: git's files are temporary ones, named at random.
            Err(error) => writeln!(out, "not a map: {}", without_path(&error, &file))?,
        },
        Some(Command::Dump {
            file,
            format,
            tiles,
            for_diff: false,
        }) => {
            let map = Map::open(&file)?;
            let options = DumpOptions::default().preview(tiles);
            match format {
                Format::Text => dump::map_text(&map, options, out)?,
                Format::Json => dump::map_json(&map, options, out)?,
            }
        }
        Some(Command::Check {
            files,
            strict,
            jobs,
        }) => return check(&files, strict, jobs, out),
        Some(Command::Scan {
            paths,
            format,
            jobs,
            deep,
        }) => return scan(&paths, format, jobs, deep, out),
        Some(Command::Diff { files, format, git }) => return diff(&files, format, git, out),
        Some(Command::Resave {
            paths,
            out_dir,
            jobs,
            datafile_version,
            recompress,
            level,
            to,
            embed,
            mapres,
        }) => {
            let options = ResaveOptions {
                datafile_version,
                recompress,
                level,
                to,
                mapres: if embed {
                    Some(mapres_dir(mapres)?)
                } else {
                    None
                },
            };
            if let Some(out_dir) = out_dir {
                return batch(
                    &paths,
                    &out_dir,
                    jobs,
                    "map",
                    "resaving",
                    out,
                    |input, output| {
                        let mut notes = Vec::new();
                        let writer = resaved(input, &options, &mut notes)?;
                        writer.save(output)?;
                        notes.push(format!("wrote {}", output.display()));
                        Ok(notes)
                    },
                );
            }
            let [input, output] = &paths[..] else {
                return Err(Failure::Usage(
                    "resave takes INPUT OUTPUT, or --out-dir DIR and the inputs".into(),
                ));
            };
            let mut notes = Vec::new();
            let writer = resaved(input, &options, &mut notes);
            for line in &notes {
                note!("{line}");
            }
            let writer = writer?;
            if is_stdout(output) {
                refuse_terminal("a map")?;
                writer.write(&mut *out)?;
            } else {
                writer.save(output)?;
                writeln!(out, "wrote {}", output.display())?;
            }
        }
        Some(Command::Extract {
            paths,
            out_dir,
            jobs,
            only,
        }) => {
            let only = match only {
                None => twcodec_tools::assets::Only::All,
                Some(OnlyAssets::Images) => twcodec_tools::assets::Only::Images,
                Some(OnlyAssets::Sounds) => twcodec_tools::assets::Only::Sounds,
            };
            if let Some(out_dir) = out_dir {
                return batch(
                    &paths,
                    &out_dir,
                    jobs,
                    "",
                    "extracting",
                    out,
                    |input, dir| extract_one(input, dir, only),
                );
            }
            let [file, dir] = &paths[..] else {
                return Err(Failure::Usage(
                    "extract takes MAP DIR, or --out-dir DIR and the inputs".into(),
                ));
            };
            for line in extract_one(file, dir, only)? {
                writeln!(out, "{line}")?;
            }
        }
        Some(Command::AddImage {
            file,
            png,
            name,
            output,
        }) => {
            let mut map = Map::open(&file)?;
            let picture = twcodec_tools::assets::read_png(&png, map.limits())?;
            if !picture.fits_tile_grid() {
                note!(
                    "twcodec: warning: {}: {}x{} is not a multiple of 16 on each side, so the \
                     picture cannot be a tileset of 16x16 tiles",
                    png.display(),
                    picture.width,
                    picture.height
                );
            }
            let name = match name {
                Some(name) => name,
                None => (png.file_stem())
                    .map(|stem| stem.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            };
            let image =
                map.add_embedded_image(&name, picture.width, picture.height, picture.rgba)?;
            map.save(&output)?;
            writeln!(
                out,
                "added image #{} {name:?} ({}x{}) to {}",
                image.index(),
                picture.width,
                picture.height,
                output.display()
            )?;
        }
        Some(Command::ReplaceImage {
            file,
            name,
            png,
            output,
        }) => replace_image(&file, &name, &png, &output, out)?,
        Some(Command::Embed {
            file,
            mapres,
            strict,
            output,
        }) => embed(&file, mapres, strict, &output, out)?,
        Some(Command::ReplaceSound {
            file,
            name,
            opus,
            output,
        }) => replace_sound(&file, &name, &opus, &output, out)?,
        Some(Command::AddSound {
            file,
            opus,
            name,
            output,
        }) => add_sound(&file, name, &opus, &output, out)?,
        Some(Command::Unpack { file, dir }) => {
            let unpacked = twcodec_tools::mapdir::unpack_file(&file, &dir)?;
            writeln!(
                out,
                "unpacked {} items and {} data items ({} as raw bytes) into {}",
                unpacked.items,
                unpacked.data,
                unpacked.raw,
                dir.display()
            )?;
        }
        Some(Command::Pack { dir, output }) => {
            let packed = twcodec_tools::mapdir::pack_with_notes(&dir)?;
            // What followed from deletions, on standard error (the map may be on standard
            // output).
            for line in &packed.notes {
                note!("twcodec: note: {}: {line}", dir.display());
            }
            let bytes = packed.bytes;
            if is_stdout(&output) {
                refuse_terminal("a map")?;
                out.write_all(&bytes)?;
            } else {
                twcodec::fs::save(&output, &bytes)?;
                writeln!(out, "packed {} into {}", dir.display(), output.display())?;
            }
        }
        Some(Command::Render {
            file,
            output,
            mapres,
            width,
            height,
            scale,
            time,
            camera,
            zoom,
            whole: _,
            entities,
            entities_overlay,
            entities_tileset,
            no_detail,
            layers,
            max_work,
        }) => {
            use twcodec_tools::render::{RenderOptions, Size, View};
            let map = match max_work {
                None => Map::open_with(&file, twcodec::Decode::Lazy)?,
                Some(steps) => {
                    let limits = twcodec::Limits::default().with_max_render_work(steps);
                    let datafile = twcodec::Datafile::open_with(&file, limits)?;
                    Map::from_datafile_owned(datafile, twcodec::LoadOptions::LAZY)
                        .map_err(|e| e.with_path(&file))?
                }
            };
            let size = match (width, height, scale) {
                (Some(width), Some(height), _) => Size::Pixels { width, height },
                (Some(width), None, _) => Size::Width(width),
                (None, _, Some(scale)) => Size::Scale(scale),
                (None, _, None) => Size::Width(1920),
            };
            let view = match camera {
                Some((x, y)) => View::Camera { x, y, zoom },
                None => View::Whole,
            };
            let layers = match layers.is_empty() {
                true => None,
                false => Some(twcodec_tools::render::select_layers(&map, &layers)?),
            };
            let defaults = RenderOptions::default();
            let default_mapres = defaults.mapres.clone();
            let options = defaults
                .size(size)
                .view(view)
                .time_ms(time * 1000.0)
                .entities(entities_overlay.unwrap_or(if entities { 100 } else { 0 }))
                .detail(!no_detail)
                .layers(layers)
                .mapres(mapres.or(default_mapres))
                .entities_tileset(entities_tileset);
            // A bar on a terminal for big pictures: one step per band of 16 rows.
            let bar = progress_bar(0, "drawing");
            let rendered = twcodec_tools::render::Renderer::new()
                .render_with_progress(&map, &options, &|done, total| {
                    bar.set_length(total as u64);
                    bar.set_position(done as u64);
                })
                // What the map asks for is the file's; what the options ask for is not.
                .map_err(|e| match e.kind() {
                    twcodec::ErrorKind::InvalidOptions => e,
                    _ => e.with_path(&file),
                })?;
            bar.finish_and_clear();
            for warning in &rendered.warnings {
                note!("twcodec: warning: {}: {warning}", file.display());
            }
            let png = rendered.picture.to_png()?;
            if is_stdout(&output) {
                refuse_terminal("a PNG picture")?;
                out.write_all(&png)?;
            } else {
                twcodec::fs::save(&output, &png)?;
                writeln!(
                    out,
                    "rendered {}x{} to {}",
                    rendered.picture.width,
                    rendered.picture.height,
                    output.display()
                )?;
            }
        }
        Some(Command::Completions { shell }) => {
            // Generated whole first: the generators panic on a failing writer, and a closed
            // pipe must end the program quietly.
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "twcodec", &mut text);
            out.write_all(&text)?;
        }
        Some(Command::Man { command }) => out.write_all(&man_page(&command)?)?,
        Some(Command::Sample { output }) => {
            let bytes = twcodec_testkit::sample::datafile();
            if is_stdout(&output) {
                refuse_terminal("a map")?;
                out.write_all(&bytes)?;
            } else {
                twcodec::fs::save(&output, &bytes)?;
                writeln!(out, "wrote {} ({} bytes)", output.display(), bytes.len())?;
            }
        }
        Some(Command::Snap { command }) => snap(command, out)?,
        Some(Command::Schema {
            name,
            format,
            out_dir,
        }) => schema(name.as_deref(), format, out_dir.as_deref(), out)?,
        Some(Command::Demo { command }) => return demo(command, out),
    }
    Ok(ExitCode::SUCCESS)
}

/// What `twcodec` alone prints: what the tool is, a look at the built-in sample, and the
/// commands to try next.
fn intro(out: Out<'_>) -> Result<(), Failure> {
    let bytes = twcodec_testkit::sample::datafile();
    let map = Map::parse(&bytes)?;
    let game = map
        .game_layer()
        .and_then(|(_, tiles)| tiles.grid())
        .map_or(String::new(), |grid| {
            format!(" (the game layer {}x{} tiles)", grid.width(), grid.height())
        });
    writeln!(
        out,
        "twcodec reads, writes and explains the files of Teeworlds and DDNet: maps, snapshots and
demos. Without a command it shows its built-in sample, a tiny DDNet map it makes itself
({} bytes): {} groups, {} layers{game}, {} images, {} envelopes, {} sound.

Next, on a map of yours (the game keeps them in its maps/ folder) or on the sample, which
`twcodec sample sample.map` writes:
  twcodec info MAP.map          what the file holds: item types, counts, data sizes, warnings
  twcodec dump MAP.map          every item resolved, groups holding their layers (--format json)
  twcodec check MAP.map         broken references and other problems (--strict fails on errors)
  twcodec resave MAP.map OUT.map --to 0.7
                                convert it for Teeworlds 0.7 (or --to ddnet)
  twcodec demo info FILE.demo   a demo's header, embedded map and ticks
  twcodec help                  every command and option",
        bytes.len(),
        map.groups().len(),
        map.layers().len(),
        map.images().len(),
        map.envelopes().len(),
        map.sounds().len(),
    )?;
    Ok(())
}

/// `schema`: the reference on standard output, or its Markdown files in a directory.
fn schema(
    name: Option<&str>,
    format: SchemaOutput,
    out_dir: Option<&Path>,
    out: Out<'_>,
) -> Result<(), Failure> {
    if let Some(dir) = out_dir {
        for (file, text) in dump::schema_files() {
            let path = dir.join(file);
            twcodec::fs::save(&path, text.as_bytes())?;
            writeln!(out, "wrote {}", path.display())?;
        }
        return Ok(());
    }
    let selection = match name {
        Some(name) => dump::SchemaSelection::find(name).map_err(Failure::Usage)?,
        None => dump::SchemaSelection::All,
    };
    let format = match format {
        SchemaOutput::Markdown => dump::SchemaFormat::Markdown,
        SchemaOutput::Json => dump::SchemaFormat::Json,
    };
    dump::schema(&selection, format, out)?;
    Ok(())
}

/// `-` names standard output.
/// `X,Y` as two numbers.
fn parse_point(text: &str) -> Result<(f64, f64), String> {
    let parse = |part: &str| part.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    match text.split_once(',') {
        Some((x, y)) => match (parse(x), parse(y)) {
            (Some(x), Some(y)) => Ok((x, y)),
            _ => Err(format!("{text:?} is not two numbers X,Y")),
        },
        None => Err(format!("{text:?} is not two numbers X,Y")),
    }
}

fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Binary data is not written to a terminal (gzip's rule): a user asking for it meant a pipe.
fn refuse_terminal(what: &str) -> Result<(), Failure> {
    if io::stdout().is_terminal() {
        return Err(Failure::Usage(format!(
            "not writing {what} to a terminal: redirect standard output to a file or a pipe"
        )));
    }
    Ok(())
}

/// `demo info`, `demo ticks` and `demo map`; exit 1 when the chunks do not replay.
fn demo(command: DemoCommand, out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        DemoCommand::Info { file } => {
            if dump::demo_info(&Demo::open(&file)?, out)?.is_some() {
                return Ok(ExitCode::from(1));
            }
        }
        DemoCommand::Ticks { file } => {
            let demo = Demo::open(&file)?;
            if let Some(error) = dump::demo_ticks(&demo, out)? {
                return Err(error.with_path(&file).into());
            }
        }
        DemoCommand::Chat {
            file,
            format,
            events,
        } => {
            let demo = Demo::open(&file)?;
            let mut failed = false;
            let options = twcodec_tools::chat::ChatOptions::default().events(events);
            for line in twcodec_tools::chat::lines_with(&demo, options) {
                match line {
                    Ok(line) => match format {
                        ChatFormat::Text => writeln!(out, "{line}")?,
                        ChatFormat::Jsonl => {
                            serde_json::to_writer(&mut *out, &line).map_err(io::Error::from)?;
                            out.write_all(b"\n")?;
                        }
                    },
                    Err(error) => {
                        failed = true;
                        out.flush()?;
                        note!("twcodec: error: {}", error.with_path(&file));
                    }
                }
            }
            if failed {
                return Ok(ExitCode::from(1));
            }
        }
        DemoCommand::Export {
            file,
            objects,
            format,
        } => {
            let demo = Demo::open(&file)?;
            let filter = twcodec_tools::export::ObjectFilter::parse(&objects)?;
            demo_export(&demo, &filter, format, out).map_err(|failure| match failure {
                Failure::Input(error) => Failure::Input(error.with_path(&file)),
                other => other,
            })?;
        }
        DemoCommand::Map { file, output } => {
            let demo = Demo::open(&file)?;
            if is_stdout(&output) {
                refuse_terminal("a map")?;
                out.write_all(&demo.map_bytes())?;
            } else {
                demo.save_map(&output)?;
                writeln!(
                    out,
                    "wrote {} ({} bytes)",
                    output.display(),
                    demo.header().map_size
                )?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `demo export`: rows on standard output as they are made; a progress bar (by tick) on a
/// terminal.
fn demo_export(
    demo: &Demo,
    filter: &twcodec_tools::export::ObjectFilter,
    format: RowFormat,
    out: Out<'_>,
) -> Result<(), Failure> {
    use twcodec_tools::export::{cells, columns, ObjectRows};
    let ticks = demo.header().length.max(0) as u64 * twcodec::demo::TICKS_PER_SECOND as u64;
    let bar = progress_bar(ticks, "exporting");
    let mut last_tick = None;
    let mut tick_progress = |tick: i32| {
        let first = *last_tick.get_or_insert(tick);
        bar.set_position(tick.saturating_sub(first).max(0) as u64);
    };
    match format {
        RowFormat::Jsonl => {
            for row in ObjectRows::new(demo, filter) {
                let row = row?;
                tick_progress(row.tick);
                serde_json::to_writer(&mut *out, &row.to_json()).map_err(io::Error::from)?;
                out.write_all(b"\n")?;
            }
        }
        RowFormat::Csv => {
            let columns = columns(demo, filter)?;
            let mut writer = csv::Writer::from_writer(&mut *out);
            writer.write_record(&columns).map_err(csv_failure)?;
            for row in ObjectRows::new(demo, filter) {
                let row = row?;
                tick_progress(row.tick);
                writer
                    .write_record(cells(&row, &columns))
                    .map_err(csv_failure)?;
            }
            writer.flush()?;
        }
    }
    bar.finish_and_clear();
    Ok(())
}

/// `snap decode` and `snap apply`.
fn snap(command: SnapCommand, out: Out<'_>) -> Result<(), Failure> {
    let form = |packed| if packed { Form::Packed } else { Form::Ints };
    match command {
        SnapCommand::Decode {
            file,
            packed,
            sizes,
            kind,
            format,
        } => {
            let (form, table, protocol) = (form(packed), sizes.table(), sizes.protocol());
            let decoded = match kind {
                Some(Kind::Snapshot) => Decoded::Snapshot(Snapshot::open(&file, form)?),
                Some(Kind::Delta) => Decoded::Delta(SnapshotDelta::open(&file, form, &table)?),
                None => snap::load(&file, form, &table)?,
            };
            match (decoded, format) {
                (Decoded::Snapshot(snapshot), Format::Text) => {
                    dump::snapshot_text(&snapshot, protocol, out)?
                }
                (Decoded::Snapshot(snapshot), Format::Json) => {
                    dump::snapshot_json(&snapshot, protocol, out)?
                }
                (Decoded::Delta(delta), Format::Text) => {
                    dump::delta_text(&delta, &table, protocol, out)?
                }
                (Decoded::Delta(delta), Format::Json) => dump::delta_json(&delta, &table, out)?,
            }
        }
        SnapCommand::Apply {
            snapshot,
            delta,
            packed,
            sizes,
            output,
        } => {
            let (form, table) = (form(packed), sizes.table());
            let old = Snapshot::open(&snapshot, form)?;
            let delta_data = SnapshotDelta::open(&delta, form, &table)?;
            let new = old.apply(&delta_data).map_err(|e| e.with_path(&delta))?;
            match output {
                Some(output) if is_stdout(&output) => {
                    refuse_terminal("a snapshot")?;
                    out.write_all(&new.to_bytes(form))?;
                }
                Some(output) => {
                    dump::snapshot_text(&new, sizes.protocol(), out)?;
                    new.save(&output, form)?;
                    writeln!(out, "wrote {}", output.display())?;
                }
                None => dump::snapshot_text(&new, sizes.protocol(), out)?,
            }
        }
    }
    Ok(())
}

/// What checking one map found: its lines (each naming the file, as a compiler's do) and its
/// counts.
struct Checked {
    lines: Vec<String>,
    errors: usize,
    warnings: usize,
}

/// `check` of one map: every problem the reader and the resolver found, as `FILE: error: ...`
/// for what DDNet refuses ([`Severity::Error`]) and `FILE: warning: ...` for the rest, in
/// either mode (the mode decides only the exit code).
fn check_one(file: &Path) -> Result<Checked, Error> {
    let map = Map::open_with(file, LoadMode::Lenient)?;
    let mut lines = Vec::new();
    let mut errors = 0;
    for problem in map.problems() {
        let is_error = problem.severity == Severity::Error;
        errors += usize::from(is_error);
        let label = if is_error { "error" } else { "warning" };
        lines.push(format!("{}: {label}: {problem}", file.display()));
    }
    Ok(Checked {
        lines,
        errors,
        warnings: map.problems().len() - errors,
    })
}

impl Checked {
    /// The map's header line: `FILE: 1 error, 2 warnings`.
    fn header(&self, file: &Path) -> String {
        format!(
            "{}: {}, {}",
            file.display(),
            plural(self.errors, "error"),
            plural(self.warnings, "warning")
        )
    }
}

/// What lenient `check` adds to its verdict line, once.
const LENIENT: &str = " (lenient: use --strict to fail on errors)";

/// `N things`, with the plural's `s` when N is not 1.
fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `twcodec check`: each map's header line, then its problems, a line each naming the map;
/// several maps in parallel, in order, then a summary line. Errors are what DDNet refuses, in
/// either mode: counted and shown as `error:` always, failing (exit 1) only with --strict. A
/// map that cannot be read fails in either mode.
fn check(
    paths: &[PathBuf],
    strict: bool,
    jobs: Option<usize>,
    out: Out<'_>,
) -> Result<ExitCode, Failure> {
    let mode = if strict { "" } else { LENIENT };
    if let [file] = paths {
        if !file.is_dir() {
            let checked = check_one(file)?;
            writeln!(out, "{}{mode}", checked.header(file))?;
            for line in &checked.lines {
                writeln!(out, "{line}")?;
            }
            return Ok(ExitCode::from(u8::from(strict && checked.errors > 0)));
        }
    }
    let (files, unreadable_places) = split_found(twcodec_tools::scan::walk(paths, &["map"]));
    let progress = progress_bar(files.len() as u64, "checking");
    let (mut ok, mut warned, mut failed, mut unreadable) = (0, 0, 0, 0);
    // Places that could not be walked are files that could not be read.
    for (path, error) in &unreadable_places {
        unreadable += 1;
        writeln!(out, "{}: cannot be read: {error}", path.display())?;
    }
    for (file, result) in
        twcodec_tools::scan::in_order(&files, jobs, |file| (file.to_path_buf(), check_one(file)))?
    {
        progress.inc(1);
        match result {
            Ok(checked) => {
                writeln!(out, "{}", checked.header(&file))?;
                for line in &checked.lines {
                    writeln!(out, "{line}")?;
                }
                match (checked.errors, checked.warnings) {
                    (0, 0) => ok += 1,
                    (0, _) => warned += 1,
                    _ => failed += 1,
                }
            }
            Err(error) => {
                unreadable += 1;
                writeln!(
                    out,
                    "{}: cannot be read: {}",
                    file.display(),
                    explain_for(&error, &file)
                )?;
            }
        }
    }
    progress.finish_and_clear();
    writeln!(
        out,
        "{}: {ok} ok, {warned} with warnings, {failed} with errors, {unreadable} unreadable{mode}",
        plural(files.len() + unreadable_places.len(), "map")
    )?;
    let fails = unreadable > 0 || (strict && failed > 0);
    Ok(ExitCode::from(u8::from(fails)))
}

/// An error as a line that follows the file's name: without the path it already names, and
/// with a hint when the file is of another kind than the command reads.
fn explain_for(error: &Error, file: &Path) -> String {
    format!("{}{}", without_path(error, file), hint(error))
}

/// An error's text without the path `file` it starts with.
fn without_path(error: &Error, file: &Path) -> String {
    let text = error.to_string();
    let prefix = format!("{}: ", file.display());
    match text.strip_prefix(&prefix) {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

/// What to run on a file of another kind than the command reads, when the error says what the
/// file is: `; \`twcodec demo info FILE\` reads demos`.
fn hint(error: &Error) -> String {
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

/// What `resave` does to each input.
struct ResaveOptions {
    datafile_version: Option<Version>,
    recompress: bool,
    level: u32,
    to: Option<Target>,
    /// With --embed: the folder of pictures.
    mapres: Option<PathBuf>,
}

/// The writer of `input` resaved as `options` say, with what there is to say about it in
/// `notes` (warnings, conversion notes).
fn resaved(
    input: &Path,
    options: &ResaveOptions,
    notes: &mut Vec<String>,
) -> Result<DatafileWriter, Failure> {
    let datafile = open(input)?;
    for warning in datafile.warnings() {
        notes.push(format!("twcodec: warning: {}: {warning}", input.display()));
    }
    let writer = match options.to {
        None => DatafileWriter::from_datafile(&datafile),
        Some(target) => {
            let mut map = Map::from_datafile(&datafile).map_err(|e| e.with_path(input))?;
            let form = match target {
                Target::Ddnet => MapForm::Ddnet,
                Target::Teeworlds07 => MapForm::Teeworlds07,
            };
            convert(&mut map, input, form, options.mapres.as_deref(), notes)?;
            map.to_datafile()?
        }
    };
    let mut writer = writer
        .recompress(options.recompress)
        .compression_level(options.level);
    if let Some(version) = options.datafile_version {
        writer = writer.version(version);
    }
    Ok(writer)
}

/// `extract` of one map into `dir`: the lines saying what was written.
fn extract_one(
    file: &Path,
    dir: &Path,
    only: twcodec_tools::assets::Only,
) -> Result<Vec<String>, Failure> {
    let map = Map::open(file)?;
    let assets = twcodec_tools::assets::extract(&map, dir, only)?;
    let mut lines = Vec::new();
    for asset in &assets {
        let kind = match asset.kind {
            twcodec_tools::assets::AssetKind::Image => "image",
            twcodec_tools::assets::AssetKind::Sound => "sound",
        };
        let name = asset.name.as_deref().unwrap_or("(no name)");
        lines.push(match &asset.file {
            Some(path) => format!(
                "{kind} #{} {name:?}: wrote {}",
                asset.index,
                dir.join(path).display()
            ),
            None => format!(
                "{kind} #{} {name:?}: external (the game's own picture or sound; not in the map)",
                asset.index
            ),
        });
    }
    Ok(lines)
}

/// Each map `paths` name (files, and the `.map` files under directories) with its output
/// under `out_dir`: its path relative to the directory given, or its name, with `extension`
/// (`""`: none, for a directory of its own).
#[allow(clippy::type_complexity)]
fn outputs(
    paths: &[PathBuf],
    out_dir: &Path,
    extension: &str,
) -> Result<(Vec<(PathBuf, PathBuf)>, Vec<(PathBuf, Error)>), Failure> {
    let mut pairs = Vec::new();
    let mut unreadable = Vec::new();
    for path in paths {
        let (found, places) = split_found(twcodec_tools::scan::walk(
            std::slice::from_ref(path),
            &["map"],
        ));
        unreadable.extend(places);
        for input in found {
            let relative = match input.strip_prefix(path) {
                Ok(relative) if !relative.as_os_str().is_empty() => relative.to_path_buf(),
                _ => PathBuf::from(input.file_name().unwrap_or(input.as_os_str())),
            };
            let output = out_dir.join(relative).with_extension(extension);
            pairs.push((input, output));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for (input, output) in &pairs {
        if !seen.insert(output.clone()) {
            return Err(Failure::Usage(format!(
                "two inputs would be written to {} (the second is {})",
                output.display(),
                input.display()
            )));
        }
        if output == input {
            return Err(Failure::Usage(format!(
                "{} would be written over itself: choose another --out-dir",
                input.display()
            )));
        }
    }
    Ok((pairs, unreadable))
}

/// The files of a walk, and the places that could not be read with why.
fn split_found(found: Vec<twcodec_tools::scan::Found>) -> (Vec<PathBuf>, Vec<(PathBuf, Error)>) {
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for found in found {
        match found {
            twcodec_tools::scan::Found::File(path) => files.push(path),
            twcodec_tools::scan::Found::Unreadable(path, error) => unreadable.push((path, error)),
        }
    }
    (files, unreadable)
}

/// Runs `work` on each input map and its output under `out_dir`, in parallel, printing each
/// map's lines in order (`name: cannot ...` for one that fails) and a summary line; exit 1
/// when any failed.
fn batch(
    paths: &[PathBuf],
    out_dir: &Path,
    jobs: Option<usize>,
    extension: &str,
    doing: &str,
    out: Out<'_>,
    work: impl Fn(&Path, &Path) -> Result<Vec<String>, Failure> + Sync,
) -> Result<ExitCode, Failure> {
    let (pairs, unreadable) = outputs(paths, out_dir, extension)?;
    let inputs: Vec<PathBuf> = pairs.iter().map(|(input, _)| input.clone()).collect();
    let outputs: std::collections::HashMap<&Path, &Path> = pairs
        .iter()
        .map(|(i, o)| (i.as_path(), o.as_path()))
        .collect();
    let progress = progress_bar(inputs.len() as u64, doing);
    let (mut done, mut failed) = (0, 0);
    // Places that could not be walked fail like inputs that cannot be read.
    for (place, error) in &unreadable {
        failed += 1;
        writeln!(out, "{}: failed: {error}", place.display())?;
    }
    let results = twcodec_tools::scan::in_order(&inputs, jobs, |input| {
        let output = outputs.get(input).copied().unwrap_or(input);
        // The output's name comes from the input's place under a folder given: no link in
        // the output directory may take it elsewhere.
        twcodec::fs::check_output(out_dir, output)?;
        if let Some(parent) = output.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", parent.display())))?;
        }
        work(input, output)
    })?;
    for (input, result) in inputs.iter().zip(results) {
        progress.inc(1);
        match result {
            Ok(lines) => {
                done += 1;
                for line in lines {
                    writeln!(out, "{line}")?;
                }
            }
            Err(Failure::Output(error)) => return Err(Failure::Output(error)),
            Err(Failure::Input(error)) => {
                failed += 1;
                writeln!(
                    out,
                    "{}: failed: {}",
                    input.display(),
                    explain_for(&error, input)
                )?;
            }
            Err(Failure::Usage(message)) => {
                failed += 1;
                writeln!(out, "{}: failed: {message}", input.display())?;
            }
        }
    }
    progress.finish_and_clear();
    writeln!(
        out,
        "{}: {done} done, {failed} failed",
        plural(inputs.len() + unreadable.len(), "map")
    )?;
    Ok(ExitCode::from(u8::from(failed > 0)))
}

/// How `demo chat` writes lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ChatFormat {
    /// `[mm:ss.cc] name: text`.
    Text,
    /// One JSON object per line: tick, time, kind, client_id, name, target, text.
    Jsonl,
}

/// Rows of many files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum RowFormat {
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header line.
    Csv,
}

/// `twcodec scan`: rows on standard output, a summary on standard error; exit 1 when a file
/// failed (it is a row with its error all the same) or the paths cannot be listed. A map with
/// errors (what `check` counts as errors) is counted, and does not fail the scan, as lenient
/// `check` does not.
fn scan(
    paths: &[PathBuf],
    format: RowFormat,
    jobs: Option<usize>,
    deep: bool,
    out: Out<'_>,
) -> Result<ExitCode, Failure> {
    let (files, unreadable) = split_found(twcodec_tools::scan::walk(paths, &["map", "demo"]));
    let unreadable: Vec<twcodec_tools::scan::Row> = (unreadable.iter())
        .map(|(path, error)| twcodec_tools::scan::Row::unreadable(path, error))
        .collect();
    let options = twcodec_tools::scan::ScanOptions::default()
        .deep(deep)
        .jobs(jobs);
    let progress = progress_bar(files.len() as u64, "scanning");
    let (mut maps, mut demos, mut failed, mut with_errors) = (0usize, 0usize, 0usize, 0usize);
    enum Sink<'o, 'w> {
        Csv(Box<csv::Writer<&'o mut (dyn Write + 'w)>>),
        Jsonl(&'o mut (dyn Write + 'w)),
    }
    let mut sink = match format {
        RowFormat::Csv => Sink::Csv(Box::new(twcodec_tools::scan::csv_writer(out))),
        RowFormat::Jsonl => Sink::Jsonl(out),
    };
    // The places that could not be read first, each a row with its error.
    for row in unreadable
        .into_iter()
        .chain(twcodec_tools::scan::scan(&files, &options)?)
    {
        progress.inc(1);
        match row.kind {
            twcodec_tools::scan::Kind::Map => maps += 1,
            twcodec_tools::scan::Kind::Demo => demos += 1,
            twcodec_tools::scan::Kind::Other => {}
        }
        failed += usize::from(row.failed());
        with_errors += usize::from(row.has_errors());
        match &mut sink {
            Sink::Csv(writer) => row.write_csv(writer).map_err(csv_failure)?,
            Sink::Jsonl(out) => {
                serde_json::to_writer(&mut **out, &row).map_err(io::Error::from)?;
                out.write_all(b"\n")?;
            }
        }
    }
    if let Sink::Csv(writer) = &mut sink {
        writer.flush()?;
    }
    progress.finish_and_clear();
    note!(
        "{} files: {maps} maps, {demos} demos, {} other; {with_errors} maps with errors, {failed} \
         failed",
        files.len(),
        files.len() - maps - demos
    );
    Ok(ExitCode::from(u8::from(failed > 0)))
}

/// A CSV error: writing standard output, or a row that cannot be a record.
fn csv_failure(error: csv::Error) -> Failure {
    match error.into_kind() {
        csv::ErrorKind::Io(error) => Failure::Output(error),
        other => Failure::Output(io::Error::other(format!("{other:?}"))),
    }
}

/// A progress bar on standard error when it is a terminal and the work is more than a few
/// steps; hidden otherwise.
fn progress_bar(steps: u64, what: &str) -> indicatif::ProgressBar {
    // A length of 0 is set later (work whose size is known only once it starts).
    if !io::stderr().is_terminal() || steps == 1 {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(steps);
    let style =
        indicatif::ProgressStyle::with_template("{msg} {bar:30} {pos}/{len} {per_sec} eta {eta}");
    if let Ok(style) = style {
        bar.set_style(style);
    }
    bar.set_message(what.to_string());
    bar
}

/// `twcodec diff`: exit 0 for equal maps, 1 for different ones, 2 on error; with --git, git's
/// arguments and exit 0.
fn diff(files: &[PathBuf], format: Format, git: bool, out: Out<'_>) -> Result<ExitCode, Failure> {
    if git {
        return git_diff(files, format, out);
    }
    let [old, new] = files else {
        return Err(Failure::Usage(format!(
            "diff takes two maps, not {}",
            files.len()
        )));
    };
    // A map file, or a directory `unpack` wrote.
    let load = |file: &PathBuf| {
        twcodec_tools::mapdir::load(file).map_err(|e| Failure::Usage(format!("{e}{}", hint(&e))))
    };
    let changes = twcodec_tools::diff::diff(&load(old)?, &load(new)?);
    write_changes(&changes, format, out)?;
    Ok(ExitCode::from(u8::from(!changes.is_empty())))
}

/// The changes as text or JSON.
fn write_changes(
    changes: &twcodec_tools::diff::MapDiff,
    format: Format,
    out: Out<'_>,
) -> io::Result<()> {
    match format {
        Format::Text => changes.write_text(out),
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, changes).map_err(io::Error::from)?;
            writeln!(out)
        }
    }
}

/// `twcodec diff --git`, git's external diff driver (git's `GIT_EXTERNAL_DIFF` and
/// `diff.<driver>.command`). git gives `PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX
/// NEW-MODE` for a changed, new or deleted path (a missing side is `/dev/null`), those and
/// `NEW-PATH` and its rename lines (`similarity index 90%`, `rename from ...`) for a renamed
/// path, and `PATH` alone for an unmerged one. git stops at a driver that fails, so whatever
/// the files hold this exits 0: a side that is not a map is a line saying so.
fn git_diff(args: &[PathBuf], format: Format, out: Out<'_>) -> Result<ExitCode, Failure> {
    let text = |arg: &PathBuf| arg.to_string_lossy().into_owned();
    let (path, old, old_hex, new, new_hex, new_path, rename) = match args {
        [path] => {
            writeln!(
                out,
                "twcodec diff {}: unmerged; resolve the conflict, then compare",
                path.display()
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        [path, old, old_hex, _, new, new_hex, _] => {
            (path, old, text(old_hex), new, text(new_hex), path, None)
        }
        [path, old, old_hex, _, new, new_hex, _, new_path, rename] => (
            path,
            old,
            text(old_hex),
            new,
            text(new_hex),
            new_path,
            Some(text(rename)),
        ),
        _ => {
            return Err(Failure::Usage(format!(
                "diff --git takes the 1, 7 or 9 arguments git gives an external diff driver, \
                 not {}",
                args.len()
            )))
        }
    };
    writeln!(
        out,
        "twcodec diff a/{} b/{}",
        path.display(),
        new_path.display()
    )?;
    for line in rename.iter().flat_map(|text| text.lines()) {
        writeln!(out, "{line}")?;
    }
    // A side git has no file for, and a side that is not a map, as a line each.
    let dev_null = |file: &PathBuf| file.as_os_str() == "/dev/null";
    // Without the path: git's files are temporary ones, named at random.
    let load =
        |file: &PathBuf| twcodec_tools::mapdir::load(file).map_err(|e| without_path(&e, file));
    let (old_map, new_map) = match (dev_null(old), dev_null(new)) {
        (true, true) => return Ok(ExitCode::SUCCESS),
        (true, false) => {
            match load(new) {
                Ok(_) => writeln!(out, "new map")?,
                Err(error) => writeln!(out, "new file, not a map: {error}")?,
            }
            return Ok(ExitCode::SUCCESS);
        }
        (false, true) => {
            match load(old) {
                Ok(_) => writeln!(out, "deleted map")?,
                Err(error) => writeln!(out, "deleted file, not a map: {error}")?,
            }
            return Ok(ExitCode::SUCCESS);
        }
        (false, false) => (load(old), load(new)),
    };
    let (old_map, new_map) = match (old_map, new_map) {
        (Ok(old), Ok(new)) => (old, new),
        (old, new) => {
            for (side, result) in [("old", old), ("new", new)] {
                if let Err(error) = result {
                    writeln!(out, "the {side} file is not a map: {error}")?;
                }
            }
            return Ok(ExitCode::SUCCESS);
        }
    };
    let changes = twcodec_tools::diff::diff(&old_map, &new_map);
    if changes.is_empty() && old_hex != new_hex {
        writeln!(out, "the same map (the files differ in how it is stored)")?;
    }
    write_changes(&changes, format, out)?;
    Ok(ExitCode::SUCCESS)
}

fn open(path: &Path) -> Result<Datafile, Error> {
    Datafile::open(path)
}

/// Writes an edited map to `output` (`-`: standard output), then the report lines: on
/// standard output, or on standard error when the map went there.
fn write_map(map: &Map, output: &Path, lines: &[String], out: Out<'_>) -> Result<(), Failure> {
    if is_stdout(output) {
        refuse_terminal("a map")?;
        map.to_datafile()?.write(&mut *out)?;
        for line in lines {
            note!("{line}");
        }
    } else {
        map.save(output)?;
        for line in lines {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// The mapres folder: the one given, else `$TWCODEC_MAPRES`, else a usage error.
fn mapres_dir(mapres: Option<PathBuf>) -> Result<PathBuf, Failure> {
    mapres
        .or_else(twcodec_tools::assets::default_mapres)
        .ok_or_else(|| {
            Failure::Usage("no folder of pictures: give --mapres DIR or set $TWCODEC_MAPRES".into())
        })
}

/// `resave --to`: converts, embedding external images from `mapres` first with `--embed`, and
/// says what the conversion did, one line per note.
fn convert(
    map: &mut Map,
    input: &Path,
    form: MapForm,
    mapres: Option<&Path>,
    notes: &mut Vec<String>,
) -> Result<(), Failure> {
    let Some(mapres) = mapres else {
        let conversion = map.convert(form).map_err(|e| e.with_path(input))?;
        notes.extend(conversion_notes(&conversion, input));
        return Ok(());
    };
    let embedding = twcodec_tools::assets::convert_embedding(map, form, mapres)
        .map_err(|e| e.with_path(input))?;
    notes.extend(embedding_notes(&embedding, input));
    notes.extend(conversion_notes(&embedding.conversion, input));
    let (done, left) = (embedding.embedded.len(), embedding.left_external.len());
    notes.push(format!(
        "twcodec: embedded {done} of {} external images from {}",
        done + left,
        mapres.display()
    ));
    Ok(())
}

/// The lines on standard error about a conversion: a warning line per warning, a note line
/// per change, kept extension and dropped item.
fn conversion_notes(conversion: &twcodec::map::Conversion, map: &Path) -> Vec<String> {
    let map = map.display();
    (conversion.notes.iter())
        .map(|note| match note.action {
            twcodec::map::NoteAction::Warning => format!("twcodec: warning: {map}: {note}"),
            _ => format!("twcodec: note: {map}: {note}"),
        })
        .collect()
}

/// The lines on standard error about an embedding: what was embedded, what stays external
/// and why, and warnings.
fn embedding_notes(embedding: &twcodec_tools::assets::Embedding, map: &Path) -> Vec<String> {
    let map = map.display();
    let mut lines = Vec::new();
    for left in &embedding.left_external {
        let name = left.name.as_deref().unwrap_or("(no name)");
        lines.push(format!(
            "twcodec: warning: {map}: image #{} {name:?} stays external: {}",
            left.image.index(),
            left.reason
        ));
    }
    for warning in &embedding.warnings {
        lines.push(format!("twcodec: warning: {map}: {warning}"));
    }
    lines
}

/// `embed`.
fn embed(
    file: &Path,
    mapres: Option<PathBuf>,
    strict: bool,
    output: &Path,
    out: Out<'_>,
) -> Result<(), Failure> {
    let mapres = mapres_dir(mapres)?;
    let mut map = Map::open(file)?;
    let embedding = twcodec_tools::assets::embed(&mut map, &mapres)?;
    for line in embedding_notes(&embedding, file) {
        note!("{line}");
    }
    if strict {
        embedding.require_all().map_err(|e| e.with_path(file))?;
    }
    let (done, left) = (embedding.embedded.len(), embedding.left_external.len());
    let mut lines: Vec<String> = (embedding.embedded.iter())
        .map(|e| {
            format!(
                "image #{} {:?}: embedded {} ({}x{})",
                e.image.index(),
                e.name,
                e.path.display(),
                e.width,
                e.height
            )
        })
        .collect();
    lines.push(format!(
        "embedded {done} of {} external images; wrote {}",
        done + left,
        output.display()
    ));
    write_map(&map, output, &lines, out)
}

/// `replace-image`.
fn replace_image(
    file: &Path,
    name: &str,
    png: &Path,
    output: &Path,
    out: Out<'_>,
) -> Result<(), Failure> {
    let mut map = Map::open(file)?;
    let picture = twcodec_tools::assets::read_png(png, map.limits())?;
    let (width, height) = (picture.width, picture.height);
    let replaced = twcodec_tools::assets::replace_image(&mut map, name, picture)
        .map_err(|e| e.with_path(file))?;
    for warning in &replaced.warnings {
        note!("twcodec: warning: {}: {warning}", png.display());
    }
    let index = replaced.image.index();
    let line = match (replaced.changed, replaced.was_external) {
        (false, _) => format!("image #{index} {name:?} holds these pixels already: unchanged"),
        (true, true) => {
            format!("image #{index} {name:?}: was external, now embedded ({width}x{height})")
        }
        (true, false) => {
            let (w, h) = replaced.old_size;
            format!("image #{index} {name:?}: replaced ({w}x{h} -> {width}x{height})")
        }
    };
    write_map(
        &map,
        output,
        &[line, format!("wrote {}", output.display())],
        out,
    )
}

/// `replace-sound`.
fn replace_sound(
    file: &Path,
    name: &str,
    opus: &Path,
    output: &Path,
    out: Out<'_>,
) -> Result<(), Failure> {
    let mut map = Map::open(file)?;
    let sound = twcodec_tools::assets::find_sound(&map, name).map_err(|e| e.with_path(file))?;
    let (bytes, head) = twcodec_tools::assets::read_opus(opus, map.limits())?;
    let what = opus_summary(bytes.len(), head);
    let done = match map.replace_sound(sound, bytes)? {
        true => "replaced",
        false => "unchanged (the same bytes)",
    };
    let line = format!("sound #{} {name:?}: {done} ({what})", sound.index());
    write_map(
        &map,
        output,
        &[line, format!("wrote {}", output.display())],
        out,
    )
}

/// `add-sound`.
fn add_sound(
    file: &Path,
    name: Option<String>,
    opus: &Path,
    output: &Path,
    out: Out<'_>,
) -> Result<(), Failure> {
    let mut map = Map::open(file)?;
    let (bytes, head) = twcodec_tools::assets::read_opus(opus, map.limits())?;
    let what = opus_summary(bytes.len(), head);
    let name = name.unwrap_or_else(|| {
        (opus.file_stem())
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let sound = map.add_sound(&name, bytes)?;
    if map.form() == MapForm::Teeworlds07 {
        note!(
            "twcodec: warning: {}: a Teeworlds 0.7 map: only DDNet plays map sounds",
            file.display()
        );
    }
    let line = format!("added sound #{} {name:?} ({what})", sound.index());
    write_map(
        &map,
        output,
        &[line, format!("wrote {}", output.display())],
        out,
    )
}

/// `N bytes of Opus, C channels`.
fn opus_summary(len: usize, head: twcodec_tools::assets::OpusHead) -> String {
    let plural = if head.channels == 1 { "" } else { "s" };
    format!("{len} bytes of Opus, {} channel{plural}", head.channels)
}
