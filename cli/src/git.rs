//! Maps in git: `diff` (also as git's external diff driver, `diff --git`), and `unpack` and
//! `pack` of the directory form that git stores and reviews line by line.

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;

use crate::output::{hint, is_stdout, note, refuse_terminal, without_path, Failure, Format, Out};

/// What `diff --layout` takes.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum DiffLayout {
    /// Side by side, or above and below for an area more than twice as wide as high.
    Auto,
    /// Old left, new right.
    SideBySide,
    /// Old above, new below.
    Stacked,
}

/// What `diff --png` draws.
struct PictureArgs {
    png: PathBuf,
    area: twcodec_tools::visual_diff::Area,
    entities: bool,
    width: u32,
    layout: DiffLayout,
    mapres: Option<PathBuf>,
    entities_tileset: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Compare two maps (map files, or directories `unpack` wrote): what was added, removed
    /// and changed, by place, in human units; exit 0 when they are the same, 1 when they
    /// differ, 2 on error.
    Diff {
        /// The old map and the new map (with --git: the 1, 7 or 9 arguments git gives an
        /// external diff driver).
        #[arg(required = true, num_args = 1..=9)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Take git's arguments for an external diff driver (PATH OLD-FILE OLD-HEX OLD-MODE
        /// NEW-FILE NEW-HEX NEW-MODE, then NEW-PATH and git's rename lines for a rename; PATH
        /// alone for an unmerged path) and always exit 0, as git expects: a side that is not a
        /// map is a line saying so.
        #[arg(long)]
        git: bool,
        /// Also draw the changes to this PNG file (`-`: standard output, instead of the
        /// text): both maps at the same camera, old left and new right (or above and below),
        /// what changed outlined (green added, red removed, amber changed; dashed: the other
        /// map's place) and a legend. The area of the changes by default.
        #[arg(long, value_name = "OUT", conflicts_with = "git")]
        png: Option<PathBuf>,
        /// With --png: show the whole map instead of the area of the changes.
        #[arg(long, requires = "png", conflicts_with = "area")]
        whole: bool,
        /// With --png: show this rectangle of tiles, X,Y,W,H (left, top, width, height).
        #[arg(long, requires = "png", value_parser = crate::assets::parse_rect, value_name = "X,Y,W,H")]
        area: Option<[f64; 4]>,
        /// With --png: draw both maps in the entities view (game, front, tele, speedup,
        /// switch and tune layers) and outline only their changes.
        #[arg(long, requires = "png")]
        entities: bool,
        /// With --png: the picture's width in pixels (at least 64).
        #[arg(long, requires = "png", default_value_t = 1600, value_parser = clap::value_parser!(u32).range(64..))]
        width: u32,
        /// With --png: how the two maps are placed.
        #[arg(long, requires = "png", value_enum, default_value_t = DiffLayout::Auto)]
        layout: DiffLayout,
        /// With --png: the folder of the game's pictures, for external images (default:
        /// $TWCODEC_MAPRES).
        #[arg(long, requires = "png")]
        mapres: Option<PathBuf>,
        /// With --png --entities: the entities tileset PNG (default: DDNet's, found around
        /// --mapres; else plain colors).
        #[arg(long, requires = "png")]
        entities_tileset: Option<PathBuf>,
    },
    /// Write a map as a directory to read, edit and review (docs/mapdir.md): items as TOML,
    /// pictures as PNG, sounds as Opus, tiles as text; `pack` builds the map back, byte for
    /// byte when nothing changed.
    Unpack {
        /// The map (or any datafile).
        file: PathBuf,
        /// The directory to write (new, or empty).
        dir: PathBuf,
    },
    /// Build a map from a directory `unpack` wrote (and you edited); nothing is written when
    /// the directory has an error.
    Pack {
        /// The directory.
        dir: PathBuf,
        /// Where to write the map (`-`: standard output).
        #[arg(short, long)]
        output: PathBuf,
    },
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        Commands::Diff {
            files,
            format,
            git,
            png,
            whole,
            area,
            entities,
            width,
            layout,
            mapres,
            entities_tileset,
        } => {
            use twcodec_tools::visual_diff::Area;
            let picture = png.map(|png| PictureArgs {
                png,
                area: match (whole, area) {
                    (true, _) => Area::Whole,
                    (false, Some([x, y, width, height])) => Area::Tiles {
                        x,
                        y,
                        width,
                        height,
                    },
                    (false, None) => Area::Changes,
                },
                entities,
                width,
                layout,
                mapres,
                entities_tileset,
            });
            return diff(&files, format, git, picture, out);
        }
        Commands::Unpack { file, dir } => {
            let unpacked = twcodec_tools::mapdir::unpack_file(&file, &dir)?;
            writeln!(
                out,
                "unpacked {} items and {} data items ({} as raw bytes) into {}",
                unpacked.items,
                unpacked.data,
                unpacked.raw,
                dir.display()
            )?;
        }
        Commands::Pack { dir, output } => {
            let packed = twcodec_tools::mapdir::pack_with_notes(&dir)?;
            // What followed from deletions, on standard error (the map may be on standard
            // output).
            for line in &packed.notes {
                note!("twcodec: note: {}: {line}", dir.display());
            }
            let bytes = packed.bytes;
            if is_stdout(&output) {
                refuse_terminal("a map")?;
                out.write_all(&bytes)?;
            } else {
                twcodec::fs::save(&output, &bytes)?;
                writeln!(out, "packed {} into {}", dir.display(), output.display())?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `twcodec diff`: exit 0 for equal maps, 1 for different ones, 2 on error; with --git, git's
/// arguments and exit 0.
fn diff(
    files: &[PathBuf],
    format: Format,
    git: bool,
    picture: Option<PictureArgs>,
    out: Out<'_>,
) -> Result<ExitCode, Failure> {
    if git {
        return git_diff(files, format, out);
    }
    let [old, new] = files else {
        return Err(Failure::Usage(format!(
            "diff takes two maps, not {}",
            files.len()
        )));
    };
    // A map file, or a directory `unpack` wrote.
    let load = |file: &PathBuf| {
        twcodec_tools::mapdir::load(file).map_err(|e| Failure::Usage(format!("{e}{}", hint(&e))))
    };
    let (old_map, new_map) = (load(old)?, load(new)?);
    let Some(picture) = picture else {
        let changes = twcodec_tools::diff::diff(&old_map, &new_map);
        write_changes(&changes, format, out)?;
        return Ok(ExitCode::from(u8::from(!changes.is_empty())));
    };
    let drawn = draw_changes(old, &old_map, new, &new_map, &picture)?;
    let changes = &drawn.changes.diff;
    let code = ExitCode::from(u8::from(!changes.is_empty()));
    let png = drawn.picture.to_png()?;
    if is_stdout(&picture.png) {
        refuse_terminal("a PNG picture")?;
        out.write_all(&png)?;
        return Ok(code);
    }
    twcodec::fs::save(&picture.png, &png)?;
    write_changes(changes, format, out)?;
    note!(
        "twcodec: note: drew the changes ({}x{}, {} outlines) to {}",
        drawn.picture.width,
        drawn.picture.height,
        drawn.marks.len(),
        picture.png.display()
    );
    Ok(code)
}

/// `diff --png`: the picture of the changes, its warnings on standard error.
fn draw_changes(
    old: &Path,
    old_map: &twcodec::Map,
    new: &Path,
    new_map: &twcodec::Map,
    picture: &PictureArgs,
) -> Result<twcodec_tools::visual_diff::VisualDiff, Failure> {
    use twcodec_tools::visual_diff::{visual_diff, Layout, VisualDiffOptions};
    // The files' names, as labels: only written on the picture.
    let label = |path: &Path| {
        (path.file_name())
            .unwrap_or(path.as_os_str())
            .to_string_lossy()
            .into_owned()
    };
    let defaults = VisualDiffOptions::default();
    let default_mapres = defaults.mapres.clone();
    let options = defaults
        .width(picture.width)
        .area(picture.area)
        .entities(picture.entities)
        .layout(match picture.layout {
            DiffLayout::Auto => Layout::Auto,
            DiffLayout::SideBySide => Layout::SideBySide,
            DiffLayout::Stacked => Layout::Stacked,
        })
        .labels(label(old), label(new))
        .mapres(picture.mapres.clone().or(default_mapres))
        .entities_tileset(picture.entities_tileset.clone());
    let drawn = visual_diff(old_map, new_map, &options)?;
    for warning in &drawn.warnings {
        note!("twcodec: warning: {warning}");
    }
    Ok(drawn)
}

/// The changes as text or JSON.
fn write_changes(
    changes: &twcodec_tools::diff::MapDiff,
    format: Format,
    out: Out<'_>,
) -> io::Result<()> {
    match format {
        Format::Text => changes.write_text(out),
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, changes).map_err(io::Error::from)?;
            writeln!(out)
        }
    }
}

/// `twcodec diff --git`, git's external diff driver (git's `GIT_EXTERNAL_DIFF` and
/// `diff.<driver>.command`). git gives `PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX
/// NEW-MODE` for a changed, new or deleted path (a missing side is `/dev/null`), those and
/// `NEW-PATH` and its rename lines (`similarity index 90%`, `rename from ...`) for a renamed
/// path, and `PATH` alone for an unmerged one. git stops at a driver that fails, so whatever
/// the files hold this exits 0: a side that is not a map is a line saying so.
fn git_diff(args: &[PathBuf], format: Format, out: Out<'_>) -> Result<ExitCode, Failure> {
    let text = |arg: &PathBuf| arg.to_string_lossy().into_owned();
    let (path, old, old_hex, new, new_hex, new_path, rename) = match args {
        [path] => {
            writeln!(
                out,
                "twcodec diff {}: unmerged; resolve the conflict, then compare",
                path.display()
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        [path, old, old_hex, _, new, new_hex, _] => {
            (path, old, text(old_hex), new, text(new_hex), path, None)
        }
        [path, old, old_hex, _, new, new_hex, _, new_path, rename] => (
            path,
            old,
            text(old_hex),
            new,
            text(new_hex),
            new_path,
            Some(text(rename)),
        ),
        _ => {
            return Err(Failure::Usage(format!(
                "diff --git takes the 1, 7 or 9 arguments git gives an external diff driver, \
                 not {}",
                args.len()
            )))
        }
    };
    writeln!(
        out,
        "twcodec diff a/{} b/{}",
        path.display(),
        new_path.display()
    )?;
    for line in rename.iter().flat_map(|text| text.lines()) {
        writeln!(out, "{line}")?;
    }
    // A side git has no file for, and a side that is not a map, as a line each.
    let dev_null = |file: &PathBuf| file.as_os_str() == "/dev/null";
    // Without the path: git's files are temporary ones, named at random.
    let load =
        |file: &PathBuf| twcodec_tools::mapdir::load(file).map_err(|e| without_path(&e, file));
    let (old_map, new_map) = match (dev_null(old), dev_null(new)) {
        (true, true) => return Ok(ExitCode::SUCCESS),
        (true, false) => {
            match load(new) {
                Ok(_) => writeln!(out, "new map")?,
                Err(error) => writeln!(out, "new file, not a map: {error}")?,
            }
            return Ok(ExitCode::SUCCESS);
        }
        (false, true) => {
            match load(old) {
                Ok(_) => writeln!(out, "deleted map")?,
                Err(error) => writeln!(out, "deleted file, not a map: {error}")?,
            }
            return Ok(ExitCode::SUCCESS);
        }
        (false, false) => (load(old), load(new)),
    };
    let (old_map, new_map) = match (old_map, new_map) {
        (Ok(old), Ok(new)) => (old, new),
        (old, new) => {
            for (side, result) in [("old", old), ("new", new)] {
                if let Err(error) = result {
                    writeln!(out, "the {side} file is not a map: {error}")?;
                }
            }
            return Ok(ExitCode::SUCCESS);
        }
    };
    let changes = twcodec_tools::diff::diff(&old_map, &new_map);
    if changes.is_empty() && old_hex != new_hex {
        writeln!(out, "the same map (the files differ in how it is stored)")?;
    }
    write_changes(&changes, format, out)?;
    Ok(ExitCode::SUCCESS)
}
