//! Tiles changed in place: `twcodec game-tiles` and `twcodec replace-tiles`, over
//! [`Map::fill_game_tiles`] and [`Map::replace_tiles`].

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use twcodec::map::edit::{TileRect, TileSpec};
use twcodec::map::GameTileOp;
use twcodec::Map;

use super::merge::parse_area;
use super::{save, usage};
use crate::output::{is_stdout, refuse_terminal, Failure, Out};

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Make game tiles from a tiles layer, as the editor's "Game tiles" button does.
    ///
    /// Every tile of layer L that is not empty puts OP's tile at its place in the game layer
    /// (for the check-teles, in the tele layer with number 1); empty tiles change nothing.
    /// L's group must scroll with the game layer: parallax 100 and an offset of whole tiles
    /// (a multiple of 32 px), which moves the tiles; tiles left of or above the game layer
    /// are left out, and the physics layers grow at their right and bottom, together, to
    /// hold the rest. Hookthrough writes unhookable ground (3) in the game layer and
    /// hookthrough (5) in the front layer, as the editor does with its DDNet entities; the
    /// other ops clear a hookthrough of the front layer where they write. A missing front or
    /// tele layer is added at the end of the game group. OP is one of air, hookable, death,
    /// unhookable, hookthrough, freeze, unfreeze, deep-freeze, deep-unfreeze,
    /// blue-check-tele, red-check-tele, live-freeze, live-unfreeze (or the editor's name,
    /// such as "Deep Freeze"). A line says what changed; nothing is written on an error.
    GameTiles {
        /// The map.
        map: PathBuf,
        /// Where to write the map: replaced atomically, `-` for standard output.
        #[arg(short, long, value_name = "OUT")]
        output: PathBuf,
        /// The tiles layer to make game tiles from: its index (as `twcodec dump` shows it) or
        /// its name.
        #[arg(long, value_name = "L")]
        layer: String,
        /// The game tile to make.
        #[arg(long, value_name = "OP", value_parser = parse_op)]
        op: GameTileOp,
    },
    /// Replace one tile by another in a tile layer, or in a rectangle of it.
    ///
    /// FROM and TO are ID or ID,FLAGS: a tile id (0 to 255; in tele, speedup, switch and
    /// tune layers, the tile's type) and flags, a number (0 to 255) or names joined by `+`:
    /// xflip (1), yflip (2), opaque (4), rotate (8), none (0). Without flags, FROM matches
    /// the id with any flags and TO keeps each tile's orientation; with flags, FROM matches
    /// that orientation only (x flip, y flip and rotate; the opaque bit, which DDNet's editor
    /// sets on save, is not compared) and TO writes those flags. TO 0 (air) without flags
    /// empties the tile. Other fields stay: tele and switch numbers, speedup force, speed
    /// and angle, switch delays. Tele, speedup and tune tiles have no flags. A line says how
    /// many tiles changed; nothing is written on an error.
    ReplaceTiles {
        /// The map.
        map: PathBuf,
        /// Where to write the map: replaced atomically, `-` for standard output.
        #[arg(short, long, value_name = "OUT")]
        output: PathBuf,
        /// The layer: its index (as `twcodec dump` shows it) or its name.
        #[arg(long, value_name = "L")]
        layer: String,
        /// The tile to replace: ID or ID,FLAGS (such as 1, 1,0 or 1,xflip+rotate).
        #[arg(long, value_name = "ID[,FLAGS]", value_parser = parse_tile)]
        from: TileSpec,
        /// The tile to write: ID or ID,FLAGS.
        #[arg(long, value_name = "ID[,FLAGS]", value_parser = parse_tile)]
        to: TileSpec,
        /// Only in this rectangle of the layer's tiles: column, row, width, height (default:
        /// the whole layer).
        #[arg(long, value_name = "X,Y,W,H", value_parser = parse_area)]
        area: Option<TileRect>,
    },
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        Commands::GameTiles {
            map: input,
            output,
            layer,
            op,
        } => {
            if is_stdout(&output) {
                refuse_terminal("a map")?;
            }
            let mut map = Map::open(&input)?;
            let layer = map.find_layer(&layer).map_err(usage)?;
            let report = map
                .fill_game_tiles(layer, op)
                .map_err(|e| e.with_path(&input))?;
            save(&map, &output, &[report.fact()], out)
        }
        Commands::ReplaceTiles {
            map: input,
            output,
            layer,
            from,
            to,
            area,
        } => {
            if is_stdout(&output) {
                refuse_terminal("a map")?;
            }
            let mut map = Map::open(&input)?;
            let layer = map.find_layer(&layer).map_err(usage)?;
            let report = map
                .replace_tiles(layer, from, to, area)
                .map_err(|e| e.with_path(&input))?;
            save(&map, &output, &[report.fact()], out)
        }
    }
}

/// `--op`: a game tile op by name.
fn parse_op(text: &str) -> Result<GameTileOp, String> {
    GameTileOp::from_name(text).ok_or_else(|| {
        let names: Vec<&str> = GameTileOp::ALL.iter().map(|op| op.name()).collect();
        format!(
            "{text:?} is not a game tile op; one of {}",
            names.join(", ")
        )
    })
}

/// `ID` or `ID,FLAGS`, the flags a number or names joined by `+`.
fn parse_tile(text: &str) -> Result<TileSpec, String> {
    let (id, flags) = match text.split_once(',') {
        Some((id, flags)) => (id, Some(flags)),
        None => (text, None),
    };
    let id = id.trim().parse::<u8>().map_err(|_| {
        format!("{id:?} in {text:?} is not a tile id (0 to 255); the form is ID or ID,FLAGS")
    })?;
    let spec = TileSpec::new(id);
    let Some(flags) = flags else {
        return Ok(spec);
    };
    let flags = flags.trim();
    if let Ok(number) = flags.parse::<u8>() {
        return Ok(spec.with_flags(number));
    }
    let mut byte = 0u8;
    for name in flags.split('+') {
        byte |= match name.trim().to_ascii_lowercase().as_str() {
            "xflip" => 1,
            "yflip" => 2,
            "opaque" => 4,
            "rotate" => 8,
            "none" => 0,
            other => {
                return Err(format!(
                    "{other:?} in {text:?} is not a flag: a number (0 to 255) or names joined \
                     by + (xflip, yflip, opaque, rotate, none)"
                ))
            }
        };
    }
    Ok(spec.with_flags(byte))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_and_ops_parse() {
        assert_eq!(parse_tile("7"), Ok(TileSpec::new(7)));
        assert_eq!(parse_tile(" 7 , 9"), Ok(TileSpec::new(7).with_flags(9)));
        assert_eq!(
            parse_tile("1,xflip+ROTATE"),
            Ok(TileSpec::new(1).with_flags(9))
        );
        assert_eq!(parse_tile("1,none"), Ok(TileSpec::new(1).with_flags(0)));
        assert!(parse_tile("256").is_err());
        assert!(parse_tile("1,spin").unwrap_err().contains("\"spin\""));
        assert!(parse_tile("1,300").is_err());
        assert!(parse_tile("").is_err());
        assert_eq!(parse_op("deep-freeze"), Ok(GameTileOp::DeepFreeze));
        assert_eq!(parse_op("Blue Check-Tele"), Ok(GameTileOp::BlueCheckTele));
        assert!(parse_op("frost").unwrap_err().contains("live-unfreeze"));
    }
}
