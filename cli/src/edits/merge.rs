//! Between maps: `twcodec replace-area` (alias `copy-area`) and `twcodec append`, over
//! [`Map::replace_area`] and [`Map::append`].

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;
use twcodec::map::edit::TileRect;
use twcodec::Map;

use crate::output::{is_stdout, note, refuse_terminal, Failure, Out};

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Copy a rectangle of tiles from one map into another of the same structure.
    ///
    /// As DDNet's map_replace_area does: every tile layer (physics layers with their tele,
    /// speedup, switch and tune data) is cleared in TO's area and filled from FROM's; quads
    /// and sound sources whose pivot or position lies in the area are replaced by FROM's,
    /// moved; the envelopes they name come along. Both maps need the same layers, of the same
    /// kinds, in the same groups. Areas are in game-layer tiles; a group with another
    /// parallax or offset takes the part of it drawn at the middle of the screen while the
    /// camera passes over the area. Standard output says what changed, a line per layer and
    /// per envelope; nothing is written on error. Also called copy-area.
    #[command(alias = "copy-area")]
    ReplaceArea {
        /// The map to copy from.
        from: PathBuf,
        /// The area of FROM, in game-layer tiles: column, row, width, height.
        #[arg(value_name = "X,Y,W,H", value_parser = parse_area)]
        area: TileRect,
        /// The map to copy into.
        to: PathBuf,
        /// Where the area's top-left tile goes in TO.
        #[arg(value_name = "X,Y", value_parser = parse_place)]
        at: (u32, u32),
        /// Where to write the result (`-`: standard output); may be TO itself.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Append one map into another, as DDNet's editor does with "Append map".
    ///
    /// OTHER's images, sounds, envelopes and groups are added after MAP's, with every
    /// reference renumbered. Identical images are shared (same name and pixels, or the same
    /// pixels under another name), and an image whose name MAP has with other pixels is
    /// renamed `name (1)`; identical sounds and envelopes are shared too. OTHER's physics
    /// layers are dropped (MAP keeps its own); the other layers of its game group get a group
    /// of their own. Its new server settings are added. More than 64 images or sounds is an
    /// error. Standard output says what became of each item, a line each; nothing is written
    /// on error.
    Append {
        /// The map to append into.
        map: PathBuf,
        /// The map to append.
        other: PathBuf,
        /// Where to write the result (`-`: standard output); may be MAP itself.
        #[arg(short, long)]
        output: PathBuf,
    },
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        Commands::ReplaceArea {
            from,
            area,
            to,
            at,
            output,
        } => {
            let source = Map::open(&from)?;
            let mut map = Map::open(&to)?;
            let report = map
                .replace_area(&source, area, at)
                .map_err(|e| e.with_path(&to))?;
            save(&map, &output, &report.facts(), out)?;
        }
        Commands::Append { map, other, output } => {
            let appended = Map::open(&other)?;
            let mut target = Map::open(&map)?;
            let report = target.append(&appended).map_err(|e| e.with_path(&map))?;
            save(&target, &output, &report.facts(), out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the edited map (atomically, or to standard output for `-`), then the report a line
/// per fact: on standard output, or on standard error when the map goes there.
fn save(map: &Map, output: &Path, facts: &[String], out: Out<'_>) -> Result<(), Failure> {
    // Encoded first: an error here leaves the output untouched.
    let writer = map.to_datafile()?;
    if is_stdout(output) {
        refuse_terminal("a map")?;
        writer.write(&mut *out)?;
        for fact in facts {
            note!("{fact}");
        }
        return Ok(());
    }
    writer.save(output)?;
    for fact in facts {
        writeln!(out, "{fact}")?;
    }
    writeln!(out, "wrote {}", output.display())?;
    Ok(())
}

/// `X,Y,W,H` in tiles.
pub(super) fn parse_area(text: &str) -> Result<TileRect, String> {
    match numbers(text)?[..] {
        [x, y, width, height] => Ok(TileRect::new(x, y, width, height)),
        _ => Err(format!(
            "{text:?} is not X,Y,W,H (four numbers of tiles, such as 10,5,20,8)"
        )),
    }
}

/// `X,Y` in tiles.
fn parse_place(text: &str) -> Result<(u32, u32), String> {
    match numbers(text)?[..] {
        [x, y] => Ok((x, y)),
        _ => Err(format!(
            "{text:?} is not X,Y (two numbers of tiles, such as 40,5)"
        )),
    }
}

/// Comma-separated whole numbers of tiles.
fn numbers(text: &str) -> Result<Vec<u32>, String> {
    text.split(',')
        .map(|part| {
            part.trim().parse::<u32>().map_err(|_| {
                format!("{part:?} in {text:?} is not a whole number of tiles (0 to 4294967295)")
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_and_places_parse() {
        assert_eq!(parse_area("1,2,3,4"), Ok(TileRect::new(1, 2, 3, 4)));
        assert_eq!(parse_place(" 5, 6"), Ok((5, 6)));
        assert!(parse_area("1,2,3").is_err());
        assert!(parse_place("1,-2").is_err());
        assert!(parse_area("").is_err());
    }
}
