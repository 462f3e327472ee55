//! Many files: `scan`, and what the commands that take many maps share: finding the maps
//! under directories, and `batch`, which runs one command on each into an output directory
//! (`resave --out-dir`, `extract --out-dir`).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;
use twcodec::Error;

use crate::output::{csv_failure, explain_for, note, plural, Failure, Out, RowFormat};
use crate::progress::Progress;

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Every map, demo, ghost (`.gho`) and teehistorian file under the paths (recursively),
    /// in parallel, one row per file: kind, versions, sizes, item and layer census, game
    /// layer size, images and sounds, problems, hashes; a ghost's owner, map, time and ticks;
    /// a teehistorian file's game, server, start time, game type and map. A file that fails
    /// is a row with its error; rows keep the files' order. A summary goes to standard
    /// error; exit 1 when a file failed.
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
        /// Also inflate and check all content: every data item and tile, every demo chunk,
        /// every ghost item and teehistorian record.
        #[arg(long)]
        deep: bool,
    },
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        Commands::Scan {
            paths,
            format,
            jobs,
            deep,
        } => scan(&paths, format, jobs, deep, out),
    }
}

/// A thread count: at least 1.
pub(crate) fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(jobs) if jobs > 0 => Ok(jobs),
        _ => Err(format!("`{text}` is not a number of threads (1 or more)")),
    }
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
    let (files, unreadable) = split_found(twcodec_tools::scan::walk(
        paths,
        twcodec_tools::scan::EXTENSIONS,
    ));
    let unreadable: Vec<twcodec_tools::scan::Row> = (unreadable.iter())
        .map(|(path, error)| twcodec_tools::scan::Row::unreadable(path, error))
        .collect();
    let options = twcodec_tools::scan::ScanOptions::default()
        .deep(deep)
        .jobs(jobs);
    let progress = Progress::new(files.len() as u64, "scanning");
    let (mut maps, mut demos, mut ghosts, mut histories) = (0usize, 0usize, 0usize, 0usize);
    let (mut failed, mut with_errors) = (0usize, 0usize);
    // As `twcodec_tools::scan::scan`, counting each file as it is done.
    let rows = twcodec_tools::scan::in_order(&files, options.jobs, |path| {
        let row = twcodec_tools::scan::scan_file(path, &options);
        progress.inc();
        row
    })?;
    enum Sink<'o, 'w> {
        Csv(Box<csv::Writer<&'o mut (dyn Write + 'w)>>),
        Jsonl(&'o mut (dyn Write + 'w)),
    }
    let mut sink = match format {
        RowFormat::Csv => Sink::Csv(Box::new(twcodec_tools::scan::csv_writer(out))),
        RowFormat::Jsonl => Sink::Jsonl(out),
    };
    // The places that could not be read first, each a row with its error.
    for row in unreadable.into_iter().chain(rows) {
        match row.kind {
            twcodec_tools::scan::Kind::Map => maps += 1,
            twcodec_tools::scan::Kind::Demo => demos += 1,
            twcodec_tools::scan::Kind::Ghost => ghosts += 1,
            twcodec_tools::scan::Kind::Teehistorian => histories += 1,
            twcodec_tools::scan::Kind::Other => {}
        }
        failed += usize::from(row.failed());
        with_errors += usize::from(row.has_errors());
        match &mut sink {
            Sink::Csv(writer) => progress.print(&mut **writer, |writer| {
                row.write_csv(writer).map_err(csv_failure)
            })?,
            Sink::Jsonl(out) => progress.print(&mut **out, |out| -> Result<(), Failure> {
                serde_json::to_writer(&mut *out, &row).map_err(io::Error::from)?;
                out.write_all(b"\n")?;
                Ok(())
            })?,
        }
    }
    if let Sink::Csv(writer) = &mut sink {
        writer.flush()?;
    }
    drop(progress);
    // Ghosts and teehistorian files are named only where there are some, so that the line
    // of a map or demo collection stays as it was.
    let mut others_text = String::new();
    if ghosts > 0 {
        others_text += &format!("{ghosts} ghosts, ");
    }
    if histories > 0 {
        others_text += &format!("{histories} teehistorian files, ");
    }
    note!(
        "{} files: {maps} maps, {demos} demos, {others_text}{} other; {with_errors} maps with \
         errors, {failed} failed",
        files.len(),
        files.len() - maps - demos - ghosts - histories
    );
    Ok(ExitCode::from(u8::from(failed > 0)))
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
pub(crate) fn split_found(
    found: Vec<twcodec_tools::scan::Found>,
) -> (Vec<PathBuf>, Vec<(PathBuf, Error)>) {
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
pub(crate) fn batch(
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
    let progress = Progress::new(inputs.len() as u64, doing);
    let (mut done, mut failed) = (0, 0);
    // Places that could not be walked fail like inputs that cannot be read.
    for (place, error) in &unreadable {
        failed += 1;
        progress.print(out, |out| -> io::Result<()> {
            writeln!(out, "{}: failed: {error}", place.display())
        })?;
    }
    let one = |input: &Path| -> Result<Vec<String>, Failure> {
        let output = outputs.get(input).copied().unwrap_or(input);
        // The output's name comes from the input's place under a folder given: no link in
        // the output directory may take it elsewhere.
        twcodec::fs::check_output(out_dir, output)?;
        if let Some(parent) = output.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", parent.display())))?;
        }
        work(input, output)
    };
    let results = twcodec_tools::scan::in_order(&inputs, jobs, |input| {
        let result = one(input);
        progress.inc();
        result
    })?;
    for (input, result) in inputs.iter().zip(results) {
        let lines = match result {
            Ok(lines) => {
                done += 1;
                lines
            }
            Err(Failure::Output(error)) => return Err(Failure::Output(error)),
            Err(Failure::Input(error)) => {
                failed += 1;
                vec![format!(
                    "{}: failed: {}",
                    input.display(),
                    explain_for(&error, input)
                )]
            }
            Err(Failure::Usage(message)) => {
                failed += 1;
                vec![format!("{}: failed: {message}", input.display())]
            }
        };
        progress.print(out, |out| -> io::Result<()> {
            for line in lines {
                writeln!(out, "{line}")?;
            }
            Ok(())
        })?;
    }
    drop(progress);
    writeln!(
        out,
        "{}: {done} done, {failed} failed",
        plural(inputs.len() + unreadable.len(), "map")
    )?;
    Ok(ExitCode::from(u8::from(failed > 0)))
}
