//! Ghosts: `ghost info` and `ghost export` (`twcodec_tools::ghost`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use twcodec::ghost::Ghost;
use twcodec_tools::ghost::{self, MapFile};

use crate::output::{Failure, Out, RowFormat};

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// DDNet ghosts (`.gho`, a race the client recorded): header, characters, rows.
    Ghost {
        #[command(subcommand)]
        command: GhostCommand,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum GhostCommand {
    /// Header (version, owner, map name, map SHA-256 or CRC, time), what the chunks hold,
    /// characters and ticks, duration, start tick, skin; with --map, whether that map is the
    /// ghost's (its name and SHA-256, or CRC before version 6). Exit 1 when the items do not
    /// read as DDNet's client reads them, or the map is not the ghost's.
    Info {
        /// The ghost.
        file: PathBuf,
        /// A map file to compare with the ghost's map (its name is the file name without
        /// `.map`, as DDNet names maps).
        #[arg(long, value_name = "MAP")]
        map: Option<PathBuf>,
    },
    /// One row per tick: tick, time in seconds since the first tick, position, velocity,
    /// aim angle, walking direction, weapon, hook state and position, last attack tick.
    /// Positions are in world units (32 to a tile), velocities in 1/256 units per tick. For
    /// a ghost without ticks (older clients), the ticks are DDNet's estimate.
    Export {
        /// The ghost.
        file: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = RowFormat::Jsonl)]
        format: RowFormat,
    },
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    let Commands::Ghost { command } = command;
    match command {
        GhostCommand::Info { file, map } => {
            let ghost = Ghost::open(&file)?;
            let bytes = match &map {
                Some(path) => Some(twcodec::input::read_file(
                    path,
                    twcodec::Limits::DEFAULT.max_file_size(),
                    "Limits::max_file_size",
                )?),
                None => None,
            };
            let name = map.as_ref().map(|path| {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                let name = name.unwrap_or_default();
                name.strip_suffix(".map")
                    .map_or(name.clone(), str::to_string)
            });
            let map = match (&name, &bytes) {
                (Some(name), Some(bytes)) => Some(MapFile { name, bytes }),
                _ => None,
            };
            if ghost::info(&ghost, map, out)?.is_some() {
                return Ok(ExitCode::from(1));
            }
        }
        GhostCommand::Export { file, format } => {
            let ghost = Ghost::open(&file)?;
            let rows = ghost::rows(&ghost).map_err(|error| error.with_path(&file))?;
            match format {
                RowFormat::Jsonl => ghost::export_jsonl(&rows, out)?,
                RowFormat::Csv => ghost::export_csv(&rows, out)?,
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
