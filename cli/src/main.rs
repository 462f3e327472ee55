//! `twcodec`: a thin command-line shell over the library's readers, writers and dumps.
//!
//! Exit codes: 0 success, 1 the input is invalid or unreadable, or an output cannot be written
//! (one message on stderr naming the problem and the file), 2 usage error. A closed pipe on
//! standard output ends the program quietly with 0, as Unix tools do.
//!
//! Every command that writes a file takes `-` for standard output.
//!
//! The commands are in one module per group of `twcodec --help`: [`maps`], [`assets`]
//! (pictures and sounds), [`git`] (maps in git), [`demos`] (demos and snapshots), [`ghosts`]
//! (DDNet ghosts), [`teehistorian`] (DDNet teehistorian files), [`many`]
//! (many files) and [`help`] (help and shell); what they share is in [`output`] and
//! [`progress`].

mod assets;
mod demos;
mod edits;
mod ghosts;
mod git;
mod help;
mod many;
mod maps;
mod output;
mod progress;
mod teehistorian;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use output::{hint, note, Failure, Out};

/// Read, write and explain Teeworlds and DDNet datafiles, maps, snapshots and demos.
///
/// With no command, shows `info` of a built-in sample datafile that twcodec generates itself.
#[derive(Debug, Parser)]
#[command(name = "twcodec", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

/// Every command: the commands of each group module, flattened into one list (the groups of
/// `--help`, in its order).
#[derive(Debug, Subcommand)]
enum Command {
    #[command(flatten)]
    Maps(maps::Commands),
    #[command(flatten)]
    Assets(assets::Commands),
    #[command(flatten)]
    Git(git::Commands),
    #[command(flatten)]
    Edits(edits::Commands),
    #[command(flatten)]
    Demos(demos::Commands),
    #[command(flatten)]
    Ghosts(ghosts::Commands),
    #[command(flatten)]
    Teehistorian(teehistorian::Commands),
    #[command(flatten)]
    Many(many::Commands),
    #[command(flatten)]
    Help(help::Commands),
}

fn main() -> ExitCode {
    let mut command = help::grouped(Cli::command());
    let parsed = (command.try_get_matches_from_mut(std::env::args_os())).and_then(|mut matches| {
        Cli::from_arg_matches_mut(&mut matches).map_err(|error| error.format(&mut command))
    });
    let cli = match parsed {
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

/// Runs a command, or without one shows the built-in sample.
fn run(command: Option<Command>, out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        None => maps::intro(out).map(|()| ExitCode::SUCCESS),
        Some(Command::Maps(command)) => maps::run(command, out),
        Some(Command::Assets(command)) => assets::run(command, out),
        Some(Command::Git(command)) => git::run(command, out),
        Some(Command::Edits(command)) => edits::run(command, out),
        Some(Command::Demos(command)) => demos::run(command, out),
        Some(Command::Ghosts(command)) => ghosts::run(command, out),
        Some(Command::Teehistorian(command)) => teehistorian::run(command, out),
        Some(Command::Many(command)) => many::run(command, out),
        Some(Command::Help(command)) => help::run(command, out).map(|()| ExitCode::SUCCESS),
    }
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
