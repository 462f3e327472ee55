//! DDNet teehistorian files: `teehistorian info`, `dump` and `index`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use twcodec::teehistorian::Teehistorian;
use twcodec_tools::teehistorian as th;

use crate::output::{csv_failure, note, Failure, Out, RowFormat};

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// DDNet teehistorian files: the server's record of a game (every tick's player
    /// positions and inputs, joins, drops, messages, console commands).
    Teehistorian {
        #[command(subcommand)]
        command: Command,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Header fields (server, map, start time, changed settings and tuning), record counts
    /// by kind and extension, first and last tick, client ids seen, whether the file ends
    /// with FINISH. Exit 1 when a record does not read (the counts are those before it).
    Info {
        /// The teehistorian file.
        file: PathBuf,
    },
    /// The header as the first JSON line, then one JSON object per record: index, offset,
    /// tick, kind and fields (extensions by name with their decoded payload). Exit 1 when
    /// a record does not read, after the lines before it.
    Dump {
        /// The teehistorian file.
        file: PathBuf,
    },
    /// A demo of the game on MAP (the teehistorian names its map but does not hold it): one
    /// snapshot per tick that has records, every player with its name, characters at the
    /// recorded positions facing as their input says. Only positions are recorded, so the
    /// tees move but do not play (no velocity, hook, weapons). Warns when MAP's SHA-256 is
    /// not the header's `map_sha256`.
    ToDemo {
        /// The teehistorian file.
        file: PathBuf,
        /// The map the game was played on.
        #[arg(long)]
        map: PathBuf,
        /// The player whose view the demo is (its client id): the demo's local player.
        #[arg(long)]
        player: Option<i32>,
        /// Where to write the demo.
        #[arg(long, short)]
        output: PathBuf,
    },
    /// One row per `.teehistorian` file under folders (recursively; files given by name are
    /// read whatever their name): game and previous game UUIDs, server, start time, map,
    /// records, last tick, finished, players, joins, console commands, messages. A file
    /// that fails is a row with its error (exit 1 at the end).
    Index {
        /// Files and folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = RowFormat::Jsonl)]
        format: RowFormat,
        /// Threads (default: one per core).
        #[arg(long, short)]
        jobs: Option<usize>,
    },
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    let Commands::Teehistorian { command } = command;
    match command {
        Command::Info { file } => {
            let teehistorian = Teehistorian::open(&file)?;
            if th::info(&teehistorian, out)?.is_some() {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Dump { file } => {
            let teehistorian = Teehistorian::open(&file)?;
            if let Some(error) = th::dump(&teehistorian, out)? {
                return Err(error.with_path(&file).into());
            }
        }
        Command::ToDemo {
            file,
            map,
            player,
            output,
        } => {
            let teehistorian = Teehistorian::open(&file)?;
            let max = twcodec::Limits::DEFAULT.max_file_size();
            let map_bytes = twcodec::input::read_file(&map, max, "Limits::max_file_size")?;
            let sha256 = twcodec_tools::teehistorian::sha256_hex(&map_bytes);
            if let Some(want) = teehistorian.header_str("map_sha256") {
                if want != sha256 {
                    note!(
                        "twcodec: warning: {}: SHA-256 {sha256}, the teehistorian's map_sha256 is {want}",
                        map.display()
                    );
                }
            }
            let (demo, summary, failure) = th::to_demo(
                &teehistorian,
                &map_bytes,
                player,
                std::io::Cursor::new(Vec::new()),
            )?;
            twcodec::fs::save(&output, demo.get_ref())?;
            let tick = |t: Option<i32>| t.map_or("-".to_string(), |t| t.to_string());
            writeln!(
                out,
                "wrote {}: {} snapshots, ticks {} to {}, {} players",
                output.display(),
                summary.snapshots,
                tick(summary.first_tick),
                tick(summary.last_tick),
                summary.players.len()
            )?;
            if let Some(error) = failure {
                return Err(error.with_path(&file).into());
            }
        }
        Command::Index {
            paths,
            format,
            jobs,
        } => {
            let rows = th::index(&paths, jobs)?;
            let failed = rows.iter().any(|row| row.error.is_some());
            match format {
                RowFormat::Jsonl => {
                    for row in &rows {
                        serde_json::to_writer(&mut *out, row).map_err(std::io::Error::from)?;
                        out.write_all(b"\n")?;
                    }
                }
                RowFormat::Csv => {
                    let mut csv = twcodec_tools::scan::csv_writer(&mut *out);
                    for row in &rows {
                        csv.serialize(row).map_err(csv_failure)?;
                    }
                    csv.flush()?;
                }
            }
            if failed {
                out.flush()?;
                note!(
                    "twcodec: {} of {} files failed",
                    rows.iter().filter(|r| r.error.is_some()).count(),
                    rows.len()
                );
                return Ok(ExitCode::from(1));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
