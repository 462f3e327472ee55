//! `twcodec optimize`: not built yet.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use crate::output::{Failure, Out};

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Make a map smaller without changing how it looks or plays.
    Optimize {
        /// The map.
        map: PathBuf,
    },
}

pub(crate) fn run(command: Commands, _out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        Commands::Optimize { .. } => Err(Failure::Usage("not built yet".into())),
    }
}
