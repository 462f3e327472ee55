//! `twcodec transform`: not built yet.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use crate::output::{Failure, Out};

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Mirror, flip, rotate, crop, extend or shift a map, or scale its envelopes' time.
    Transform {
        /// The map.
        map: PathBuf,
    },
}

pub(crate) fn run(command: Commands, _out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        Commands::Transform { .. } => Err(Failure::Usage("not built yet".into())),
    }
}
