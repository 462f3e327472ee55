//! `twcodec transform`: mirror, flip, rotate, crop, extend or shift a map, and scale its
//! envelopes' time, over `Map::transform`, `Map::crop`, `Map::reframe`, `Map::shift` and
//! `Map::scale_time`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use twcodec::map::{Group, ItemRef, Margins, Transform};
use twcodec::Map;

use crate::output::{is_stdout, refuse_terminal, Failure, Out};

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Mirror, flip, rotate, crop, extend or shift a map, or scale its envelopes' time.
    ///
    /// The steps run in this order: --crop, --extend or --shift (in the map's own
    /// coordinates), then --mirror, --flip, --rotate, and --scale-time. Physics keeps the
    /// game's meaning (speedup angles, stopper and one-way directions, checkpoints, rotating
    /// lasers), and every group stays where the camera sees it. Nothing is written when a step
    /// fails.
    Transform {
        /// The map.
        map: PathBuf,
        /// Where to write the result (atomically; `-` is standard output).
        #[arg(short, long, value_name = "OUT")]
        output: PathBuf,
        /// Mirror left-right.
        #[arg(long)]
        mirror: bool,
        /// Flip top-bottom.
        #[arg(long)]
        flip: bool,
        /// Rotate clockwise by 90, 180 or 270 degrees (90 is the editor's T key).
        #[arg(long, value_name = "DEGREES", value_parser = parse_rotation)]
        rotate: Option<Transform>,
        /// Crop the group's tile layers to W x H tiles from column X, row Y of the group's
        /// frame (the game layer for the game group), keeping the world in place.
        #[arg(long, value_name = "X,Y,W,H", value_parser = parse_ints::<4>,
              conflicts_with_all = ["extend", "shift"])]
        crop: Option<[i32; 4]>,
        /// Add (or, negative, remove) tiles at the left, top, right and bottom of every tile
        /// layer of the group; added physics tiles are air, other layers repeat their edge.
        #[arg(long, value_name = "L,T,R,B", value_parser = parse_ints::<4>,
              allow_hyphen_values = true, conflicts_with = "shift")]
        extend: Option<[i32; 4]>,
        /// Move the group's tiles DX columns right and DY rows down inside their layers,
        /// which keep their size (the world stays in place; tiles pushed out are cut off).
        #[arg(long, value_name = "DX,DY", value_parser = parse_ints::<2>,
              allow_hyphen_values = true)]
        shift: Option<[i32; 2]>,
        /// The group --crop, --extend and --shift work on, by index (default: the game
        /// group).
        #[arg(long, value_name = "N")]
        group: Option<usize>,
        /// Multiply every envelope time by F (2 plays them half as fast): point times,
        /// bezier tangents, time offsets and sound source delays.
        #[arg(long, value_name = "F")]
        scale_time: Option<f64>,
    },
}

/// `--rotate`: 90, 180 or 270.
fn parse_rotation(value: &str) -> Result<Transform, String> {
    match value.trim() {
        "90" => Ok(Transform::Rotate90),
        "180" => Ok(Transform::Rotate180),
        "270" => Ok(Transform::Rotate270),
        _ => Err("the rotation is 90, 180 or 270 degrees".into()),
    }
}

/// `N` integers separated by commas.
fn parse_ints<const N: usize>(value: &str) -> Result<[i32; N], String> {
    let parts: Vec<&str> = value.split(',').map(str::trim).collect();
    if parts.len() != N {
        return Err(format!("{N} integers separated by commas, not {value:?}"));
    }
    let mut ints = [0; N];
    for (int, part) in ints.iter_mut().zip(parts) {
        *int = part
            .parse()
            .map_err(|_| format!("{part:?} is not an integer"))?;
    }
    Ok(ints)
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    let Commands::Transform {
        map: input,
        output,
        mirror,
        flip,
        rotate,
        crop,
        extend,
        shift,
        group,
        scale_time,
    } = command;
    let mut map = Map::open(&input)?;
    let edit = |map: &mut Map| -> Result<(), Failure> {
        if crop.is_some() || extend.is_some() || shift.is_some() {
            let group = chosen_group(map, group)?;
            if let Some([x, y, w, h]) = crop {
                map.crop(group, x, y, w, h)?;
            }
            if let Some([left, top, right, bottom]) = extend {
                let margins = Margins {
                    left,
                    top,
                    right,
                    bottom,
                };
                map.reframe(group, margins)?;
            }
            if let Some([dx, dy]) = shift {
                map.shift(group, dx, dy)?;
            }
        } else if group.is_some() {
            return Err(Failure::Usage(
                "--group chooses the group of --crop, --extend or --shift".into(),
            ));
        }
        let steps = [
            mirror.then_some(Transform::MirrorX),
            flip.then_some(Transform::FlipY),
            rotate,
        ];
        for step in steps.into_iter().flatten() {
            map.transform(step)?;
        }
        if let Some(factor) = scale_time {
            map.scale_time(factor)?;
        }
        Ok(())
    };
    edit(&mut map).map_err(|failure| match failure {
        Failure::Input(e) => Failure::Input(e.with_path(&input)),
        other => other,
    })?;
    if is_stdout(&output) {
        refuse_terminal("a map")?;
        let bytes = map.to_bytes()?;
        out.write_all(&bytes)?;
    } else {
        map.save(&output)?;
        writeln!(out, "wrote {}", output.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The group of `--group N`, or the game group.
fn chosen_group(map: &Map, group: Option<usize>) -> Result<ItemRef<Group>, Failure> {
    match group {
        Some(n) => map.refs::<Group>().nth(n).ok_or_else(|| {
            Failure::Usage(format!(
                "--group {n}: the map has {} groups",
                map.groups().len()
            ))
        }),
        None => {
            let game = map.game_layer().map(|(layer, _)| layer);
            game.and_then(|layer| map.group_of(layer)).ok_or_else(|| {
                Failure::Usage("the map has no game group: choose one with --group".into())
            })
        }
    }
}
