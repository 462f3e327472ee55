//! Whole-map edits: `optimize` (smaller maps), `transform` (mirror, flip, rotate, crop,
//! extend, shift, scale time), `replace-area` and `append` (between maps), `automap`,
//! `game-tiles` and `replace-tiles` (tiles in place). Each command lives in its own file under
//! `edits/`, over one library call.

mod automap;
mod merge;
mod optimize;
mod tiles;
mod transform;

use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;

use twcodec::Map;

use crate::output::{is_stdout, refuse_terminal, Failure, Out};

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    #[command(flatten)]
    Optimize(optimize::Commands),
    #[command(flatten)]
    Transform(transform::Commands),
    #[command(flatten)]
    Merge(merge::Commands),
    #[command(flatten)]
    Automap(automap::Commands),
    #[command(flatten)]
    Tiles(tiles::Commands),
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        Commands::Optimize(command) => optimize::run(command, out),
        Commands::Transform(command) => transform::run(command, out),
        Commands::Merge(command) => merge::run(command, out),
        Commands::Automap(command) => automap::run(command, out),
        Commands::Tiles(command) => tiles::run(command, out),
    }
}

/// What the options ask for and the map does not have (a layer, a configuration): a usage
/// error (exit 2); anything else as it is.
fn usage(error: twcodec::Error) -> Failure {
    match error.kind() {
        twcodec::ErrorKind::InvalidOptions => Failure::Usage(error.message().to_string()),
        _ => Failure::Input(error),
    }
}

/// Writes the edited map (atomically, or to standard output for `-`) after the report, a
/// line per fact: on standard output, or on standard error when the map goes there. Nothing
/// is written when encoding fails.
fn save(map: &Map, output: &Path, lines: &[String], out: Out<'_>) -> Result<ExitCode, Failure> {
    let writer = map.to_datafile()?;
    let text = lines.join("\n") + if lines.is_empty() { "" } else { "\n" };
    if is_stdout(output) {
        refuse_terminal("a map")?;
        eprint!("{text}");
        writer.write(&mut *out)?;
    } else {
        out.write_all(text.as_bytes())?;
        writer.save(output)?;
        writeln!(out, "wrote {}", output.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
