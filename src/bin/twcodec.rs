//! `twcodec`: a thin command-line shell over the library's readers, writers and dumps.
//!
//! Exit codes: 0 success, 1 the input is invalid or unreadable (one message on stderr naming
//! the problem and the file), 2 usage error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use twcodec::demo::Demo;
use twcodec::dump::{self, DumpOptions, TypeFilter};
use twcodec::map::Severity;
use twcodec::snap::{self, Decoded, Form, Protocol, SizeTable, Snapshot, SnapshotDelta};
use twcodec::{Datafile, DatafileWriter, Error, LoadMode, Map, MapForm, Version};

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
    },
    /// Check a map: list what the resolver finds; exit 1 on errors with --strict.
    Check {
        /// The map.
        file: PathBuf,
        /// Report broken references, ranges and data as errors (exit 1) instead of warnings.
        #[arg(long)]
        strict: bool,
    },
    /// Write a datafile back; lossless unless asked to change something.
    Resave {
        /// The datafile to read.
        input: PathBuf,
        /// Where to write it (atomically: a temporary file, then a rename).
        output: PathBuf,
        /// Datafile version to write (default: the input's).
        #[arg(long, value_parser = parse_version)]
        version: Option<Version>,
        /// Compress every data item again instead of keeping the stored bytes.
        #[arg(long)]
        recompress: bool,
        /// zlib level for new or recompressed data.
        #[arg(long, default_value_t = twcodec::DEFAULT_COMPRESSION_LEVEL,
              value_parser = clap::value_parser!(u32).range(0..=9))]
        level: u32,
        /// Convert the map to this game's form (through the map graph).
        #[arg(long, value_enum)]
        to: Option<Target>,
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
        /// Where to write the map.
        output: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
enum SnapCommand {
    /// Print a snapshot or a snapshot delta, one item per line.
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
        /// Also write the resulting snapshot to this file.
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

/// Output formats of `dump`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// One field per line.
    Text,
    /// JSON.
    Json,
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

fn parse_version(text: &str) -> Result<Version, String> {
    text.parse::<i32>()
        .ok()
        .and_then(Version::from_number)
        .ok_or_else(|| format!("`{text}` is not a datafile version (3 or 4)"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("twcodec: {error}");
            ExitCode::from(1)
        }
    }
}

fn run(command: Option<Command>) -> Result<ExitCode, Error> {
    match command {
        None => {
            let sample = Datafile::from_bytes(twcodec::sample::datafile())?;
            println!("built-in sample datafile (generated by twcodec)");
            print!("{}", dump::info(&sample));
        }
        Some(Command::Info { file }) => print!("{}", dump::info(&open(&file)?)),
        Some(Command::Items {
            file,
            type_filter,
            decode,
        }) => {
            let datafile = open(&file)?;
            if decode {
                print!("{}", dump::decoded_items(&datafile, type_filter));
            } else {
                print!("{}", dump::items(&datafile, type_filter));
            }
        }
        Some(Command::Dump {
            file,
            format,
            tiles,
        }) => {
            let map = Map::load(&file)?;
            let options = DumpOptions { preview: tiles };
            match format {
                Format::Text => print!("{}", dump::map_text(&map, options)),
                Format::Json => println!("{}", dump::map_json(&map, options)),
            }
        }
        Some(Command::Check { file, strict }) => return check(&file, strict),
        Some(Command::Resave {
            input,
            output,
            version,
            recompress,
            level,
            to,
        }) => {
            let datafile = open(&input)?;
            for warning in datafile.warnings() {
                eprintln!("twcodec: warning: {}: {warning}", input.display());
            }
            let writer = match to {
                None => DatafileWriter::from_datafile(&datafile),
                Some(target) => {
                    let mut map = Map::from_datafile(&datafile).map_err(|e| e.with_path(&input))?;
                    map.convert(match target {
                        Target::Ddnet => MapForm::Ddnet,
                        Target::Teeworlds07 => MapForm::Teeworlds07,
                    })
                    .map_err(|e| e.with_path(&input))?;
                    map.to_datafile()?
                }
            };
            let mut writer = writer.recompress(recompress).compression_level(level);
            if let Some(version) = version {
                writer = writer.version(version);
            }
            writer.save(&output)?;
            println!("wrote {}", output.display());
        }
        Some(Command::Snap { command }) => snap(command)?,
        Some(Command::Demo { command }) => return demo(command),
    }
    Ok(ExitCode::SUCCESS)
}

/// `demo info`, `demo ticks` and `demo map`; exit 1 when the chunks do not replay.
fn demo(command: DemoCommand) -> Result<ExitCode, Error> {
    match command {
        DemoCommand::Info { file } => {
            let text = dump::demo_info(&Demo::open(&file)?);
            print!("{text}");
            if text.contains("\nerror: ") {
                return Ok(ExitCode::from(1));
            }
        }
        DemoCommand::Ticks { file } => {
            let demo = Demo::open(&file)?;
            // The replay again, to fail with its error after printing what did replay.
            let text = dump::demo_ticks(&demo);
            print!("{text}");
            if let Some(Err(error)) = demo.replay().find(Result::is_err) {
                return Err(error.with_path(&file));
            }
        }
        DemoCommand::Map { file, output } => {
            let demo = Demo::open(&file)?;
            demo.save_map(&output)?;
            println!(
                "wrote {} ({} bytes)",
                output.display(),
                demo.header().map_size
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `snap decode` and `snap apply`.
fn snap(command: SnapCommand) -> Result<(), Error> {
    let form = |packed| if packed { Form::Packed } else { Form::Ints };
    match command {
        SnapCommand::Decode {
            file,
            packed,
            sizes,
            kind,
        } => {
            let (form, table, protocol) = (form(packed), sizes.table(), sizes.protocol());
            let decoded = match kind {
                Some(Kind::Snapshot) => Decoded::Snapshot(Snapshot::load(&file, form)?),
                Some(Kind::Delta) => Decoded::Delta(SnapshotDelta::load(&file, form, &table)?),
                None => snap::load(&file, form, &table)?,
            };
            match decoded {
                Decoded::Snapshot(snapshot) => {
                    print!("{}", dump::snapshot_text(&snapshot, protocol))
                }
                Decoded::Delta(delta) => print!("{}", dump::delta_text(&delta, &table, protocol)),
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
            let old = Snapshot::load(&snapshot, form)?;
            let delta_data = SnapshotDelta::load(&delta, form, &table)?;
            let new = old.apply(&delta_data).map_err(|e| e.with_path(&delta))?;
            print!("{}", dump::snapshot_text(&new, sizes.protocol()));
            if let Some(output) = output {
                new.save(&output, form)?;
                println!("wrote {}", output.display());
            }
        }
    }
    Ok(())
}

/// `check`: every problem on a line; errors only count in strict mode.
fn check(file: &Path, strict: bool) -> Result<ExitCode, Error> {
    let map = Map::load_with(file, LoadMode::Lenient)?;
    let mut errors = 0;
    for problem in map.problems() {
        let is_error = strict && problem.severity == Severity::Error;
        errors += usize::from(is_error);
        let label = if is_error { "error" } else { "warning" };
        println!("{label}: {problem}");
    }
    let warnings = map.problems().len() - errors;
    println!(
        "{}: {errors} errors, {warnings} warnings{}",
        file.display(),
        if strict {
            ""
        } else {
            " (lenient: use --strict to fail on errors)"
        }
    );
    Ok(if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn open(path: &Path) -> Result<Datafile, Error> {
    Datafile::open(path)
}
