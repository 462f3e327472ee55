//! `twcodec optimize`: a smaller map that looks and plays the same
//! (`twcodec::map::edit::OptimizeOptions`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use twcodec::map::edit::{OptimizeOptions, OptimizeReport, Step};
use twcodec::Map;

use crate::output::{is_stdout, refuse_terminal, Failure, Out};

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Make a map smaller without changing how it looks or plays.
    ///
    /// The steps, in order (all by default; --skip leaves some out):
    ///   unused       remove tile layers all air, quads layers without quads, sounds layers
    ///                without sources, layers in no group, groups left empty, and the images,
    ///                envelopes, sounds and data items nothing refers to; physics layers, the
    ///                game group and layers an auto-mapper configures stay
    ///   shrink       cut the air at the sides of tile layers down to one row or column
    ///                (the edge is drawn repeated outward); cuts at the left and top move the
    ///                group offset, so nothing moves in the world; physics layers keep the
    ///                game layer's size
    ///   cells        clear the cells of embedded tilesets that no tile uses (DDNet's
    ///                map_optimize), and every pixel of embedded images no layer draws
    ///   transparent  make fully transparent pixels black
    ///   dilate       spread opaque colors into the transparent pixels around them (up to
    ///                11 px, cell by cell in tilesets), so that mipmaps do not bleed
    ///   recompress   compress every data item again (--level, 9 by default)
    ///
    /// Each step's changes are printed, a line each, with the map's size after it.
    /// --dry-run prints the same and writes nothing.
    Optimize {
        /// The map.
        map: PathBuf,
        /// Where to write the smaller map: replaced atomically, `-` for standard output.
        #[arg(short, long, value_name = "OUT", required_unless_present = "dry_run")]
        output: Option<PathBuf>,
        /// Print what each step would change and the bytes it saves; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Leave steps out (comma-separated or repeated): unused, shrink, cells,
        /// transparent, dilate, recompress.
        #[arg(long, value_delimiter = ',', value_name = "STEP", value_parser = parse_step)]
        skip: Vec<Step>,
        /// Leave every picture step out (cells, transparent, dilate): embedded images keep
        /// every pixel, for mappers who do not want their tilesets touched.
        #[arg(long)]
        keep_images: bool,
        /// zlib level for new and recompressed data.
        #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(0..=9))]
        level: u32,
    },
}

/// A step by its name (the library's names, `Step::name`).
fn parse_step(name: &str) -> Result<Step, String> {
    Step::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Step::ALL.iter().map(|s| s.name()).collect();
        format!("not a step; the steps are {}", names.join(", "))
    })
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    let Commands::Optimize {
        map: input,
        output,
        dry_run,
        skip,
        keep_images,
        level,
    } = command;
    let mut options = OptimizeOptions::default().level(level).measure(true);
    if keep_images {
        options = options.keep_images();
    }
    for step in skip {
        options = options.skip(step);
    }
    // The report goes to standard error when the map goes to standard output.
    let to_stdout = !dry_run && output.as_deref().is_some_and(is_stdout);
    if to_stdout {
        refuse_terminal("a map")?;
    }
    let mut map = Map::open(&input)?;
    let report = map.optimize(&options)?;
    let writer = options.writer(&map)?;
    let mut text = Vec::new();
    print_report(&report, &mut text)?;
    if to_stdout {
        eprint!("{}", String::from_utf8_lossy(&text));
    } else {
        out.write_all(&text)?;
    }
    match output {
        Some(output) if !dry_run => {
            if to_stdout {
                writer.write(&mut *out)?;
            } else {
                writer.save(&output)?;
                writeln!(out, "wrote {}", output.display())?;
            }
        }
        _ => {}
    }
    Ok(ExitCode::SUCCESS)
}

/// The report: per step, its size line and its changes indented under it.
fn print_report(report: &OptimizeReport, out: &mut Vec<u8>) -> std::io::Result<()> {
    use std::io::Write;
    let mut before = report.bytes_before;
    for step in &report.steps {
        let size = match (before, step.bytes) {
            (Some(b), Some(a)) => format!(": {b} -> {a} bytes ({})", signed(a as i64 - b as i64)),
            _ => String::new(),
        };
        let changes = match step.changes.len() {
            0 => "no change".to_string(),
            1 => "1 change".to_string(),
            n => format!("{n} changes"),
        };
        writeln!(out, "{}: {changes}{size}", step.step)?;
        for change in &step.changes {
            writeln!(out, "  {change}")?;
        }
        before = step.bytes.or(before);
    }
    if let (Some(b), Some(a)) = (report.bytes_before, report.bytes_after()) {
        let percent = if b == 0 {
            100.0
        } else {
            a as f64 * 100.0 / b as f64
        };
        writeln!(out, "total: {b} -> {a} bytes ({percent:.1} %)")?;
    }
    Ok(())
}

/// A byte difference with its sign.
fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}
