//! Whole-map edits: `optimize` (smaller maps), `transform` (mirror, flip, rotate, crop,
//! extend, shift, scale time), `replace-area` and `append` (between maps). Each command lives
//! in its own file under `edits/`, over one library call.

mod automap;
mod merge;
mod optimize;
mod transform;

use std::process::ExitCode;

use clap::Subcommand;

use crate::output::{Failure, Out};

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
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        Commands::Optimize(command) => optimize::run(command, out),
        Commands::Transform(command) => transform::run(command, out),
        Commands::Merge(command) => merge::run(command, out),
        Commands::Automap(command) => automap::run(command, out),
    }
}
