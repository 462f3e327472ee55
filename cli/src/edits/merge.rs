//! `twcodec append`: not built yet.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use crate::output::{Failure, Out};

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Append one map into another.
    Append {
        /// The map.
        map: PathBuf,
    },
}

pub(crate) fn run(command: Commands, _out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        Commands::Append { .. } => Err(Failure::Usage("not built yet".into())),
    }
}
