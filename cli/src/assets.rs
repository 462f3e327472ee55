//! Pictures and sounds: `render`, `extract`, `add-image`, `replace-image`, `embed`,
//! `replace-sound` and `add-sound`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use twcodec::{Map, MapForm};

use crate::many::{batch, parse_jobs};
use crate::output::{is_stdout, note, refuse_terminal, Failure, Out};
use crate::progress::Progress;

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Write every embedded image (as an RGBA PNG) and sound (as its .opus file) of a map into
    /// a directory, named after them; list the external ones, which the map only names.
    ///
    /// With --out-dir, every input (maps, and directories searched for .map files) is
    /// extracted into DIR/<its path without .map>/, in parallel, and a summary line ends the
    /// output; exit 1 when any failed.
    Extract {
        /// The map, then the directory to write into (created when missing). With --out-dir:
        /// the inputs.
        #[arg(required = true, value_name = "MAP DIR | INPUTS")]
        paths: Vec<PathBuf>,
        /// Extract every input under this directory.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
        /// Threads with --out-dir (default: one per core).
        #[arg(long, short = 'j', requires = "out_dir", value_parser = parse_jobs)]
        jobs: Option<usize>,
        /// Only images or only sounds.
        #[arg(long, value_enum)]
        only: Option<OnlyAssets>,
    },
    /// Add a PNG picture (any color type, stored as RGBA) to a map as an embedded image.
    AddImage {
        /// The map.
        file: PathBuf,
        /// The PNG file.
        png: PathBuf,
        /// The image's name in the map (default: the PNG's file name without `.png`).
        #[arg(long)]
        name: Option<String>,
        /// Where to write the map.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Replace the pixels of the image named NAME with a PNG (any color type, stored as RGBA);
    /// an external image becomes embedded. It keeps its name and place, so every layer drawn
    /// with it draws the new picture.
    ReplaceImage {
        /// The map.
        file: PathBuf,
        /// The image's name in the map.
        name: String,
        /// The PNG file.
        png: PathBuf,
        /// Where to write the map.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Embed every external image from the picture of its name in a folder of the game's
    /// pictures (DDNet's data/mapres): the map then draws the same everywhere.
    Embed {
        /// The map.
        file: PathBuf,
        /// The folder of pictures, NAME.png each (default: $TWCODEC_MAPRES).
        #[arg(long, value_name = "DIR")]
        mapres: Option<PathBuf>,
        /// Fail (and write nothing) when an image stays external.
        #[arg(long)]
        strict: bool,
        /// Where to write the map.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Replace the data of the sound named NAME with an Ogg Opus file.
    ReplaceSound {
        /// The map.
        file: PathBuf,
        /// The sound's name in the map.
        name: String,
        /// The Ogg Opus file (.opus).
        opus: PathBuf,
        /// Where to write the map.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Add an Ogg Opus file to a map as an embedded sound (DDNet).
    AddSound {
        /// The map.
        file: PathBuf,
        /// The Ogg Opus file (.opus).
        opus: PathBuf,
        /// The sound's name in the map (default: the file name without `.opus`).
        #[arg(long)]
        name: Option<String>,
        /// Where to write the map.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Draw a map to a PNG picture as the game shows it: tile layers with their tilesets,
    /// quads, envelopes at a time, parallax and clipping; --entities draws its physics.
    Render {
        /// The map.
        file: PathBuf,
        /// The PNG file to write (`-`: standard output).
        #[arg(short, long)]
        output: PathBuf,
        /// The folder of the game's pictures, for external images (default: $TWCODEC_MAPRES;
        /// DDNet's is `data/mapres`). Missing pictures are drawn as placeholders.
        #[arg(long)]
        mapres: Option<PathBuf>,
        /// The picture's width in pixels (default 1920).
        #[arg(long, conflicts_with_all = ["scale", "thumbnail"])]
        width: Option<u32>,
        /// The picture's height in pixels (default: the view's shape; 16:9 for --camera).
        #[arg(long, requires = "width")]
        height: Option<u32>,
        /// Pixels per tile instead of a width (32: the game's full size).
        #[arg(long, conflicts_with = "thumbnail")]
        scale: Option<f64>,
        /// The size of a picture for a use (instead of --width and --height); with --camera,
        /// its zoom too, unless --zoom is given.
        #[arg(long, value_enum, value_name = "PRESET")]
        thumbnail: Option<ThumbnailPreset>,
        /// Show this rectangle of tiles: X,Y,W,H (left, top, width, height, in tiles).
        #[arg(long, value_parser = parse_rect, value_name = "X,Y,W,H", conflicts_with_all = ["camera", "whole"])]
        crop: Option<[f64; 4]>,
        /// The time in seconds at which envelopes (moving quads, colors) are drawn.
        #[arg(long, default_value_t = 0.0)]
        time: f64,
        /// Center a game camera on this tile position, X,Y (default: the whole map).
        #[arg(long, value_parser = parse_point, conflicts_with = "whole")]
        camera: Option<(f64, f64)>,
        /// The camera's zoom: 1 sees what the game shows by default, 2 twice as much
        /// (default 1, or the --thumbnail preset's).
        #[arg(long, requires = "camera")]
        zoom: Option<f64>,
        /// Show the whole game layer (the default).
        #[arg(long)]
        whole: bool,
        /// Draw only the physics layers (game, front, tele, speedup, switch, tune) with an
        /// entities tileset, as the game's entities view.
        #[arg(long, conflicts_with = "entities_overlay")]
        entities: bool,
        /// Draw the physics layers over the map at this opacity in percent (the game's
        /// cl_overlay_entities).
        #[arg(long, value_parser = clap::value_parser!(u8).range(0..=100))]
        entities_overlay: Option<u8>,
        /// The entities tileset PNG (default: DDNet's, found around --mapres; else plain
        /// colors).
        #[arg(long)]
        entities_tileset: Option<PathBuf>,
        /// Leave out detail layers (the game's "high detail" off).
        #[arg(long)]
        no_detail: bool,
        /// Draw only these layers: indices (as `twcodec dump` numbers them) or names,
        /// separated by commas.
        #[arg(long, value_delimiter = ',')]
        layers: Vec<String>,
        /// The most steps of work the render may take (twcodec::Limits::max_render_work,
        /// default 4294967296): a map that needs more is an error, before anything is drawn.
        /// A step is about a nanosecond; raise it for big pictures of maps with many layers.
        #[arg(long, value_name = "STEPS")]
        max_work: Option<u64>,
    },
}

/// What `extract --only` takes.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum OnlyAssets {
    /// Images only.
    Images,
    /// Sounds only.
    Sounds,
}

/// What `render --thumbnail` takes (twcodec_tools::render::thumbnail::Thumbnail).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum ThumbnailPreset {
    /// 360x225: DDNet's website map pictures (ddnet.org/ranks/maps/NAME.png), a 1440x900
    /// screenshot scaled to 25% (ddnet-scripts map-release) shown at 360x225.
    Website,
    /// 1440x900: the game screenshot DDNet's website pictures are made from.
    Screenshot,
    /// 360x225, chosen: DDNet's server browser has no map pictures yet (ddnet#2892, draft
    /// ddnet#12815 names no size); the website's size.
    ServerBrowser,
    /// 1920x1080 (zoom 1.25 with --camera): twgpu's map photography.
    MapPhotography,
}

impl ThumbnailPreset {
    fn preset(self) -> twcodec_tools::render::thumbnail::Thumbnail {
        use twcodec_tools::render::thumbnail::Thumbnail;
        match self {
            ThumbnailPreset::Website => Thumbnail::Website,
            ThumbnailPreset::Screenshot => Thumbnail::Screenshot,
            ThumbnailPreset::ServerBrowser => Thumbnail::ServerBrowser,
            ThumbnailPreset::MapPhotography => Thumbnail::MapPhotography,
        }
    }
}

/// `X,Y,W,H` as four finite numbers, the last two positive.
pub(crate) fn parse_rect(text: &str) -> Result<[f64; 4], String> {
    let bad = || format!("{text:?} is not four numbers X,Y,W,H (width and height positive)");
    let parts: Vec<f64> = (text.split(','))
        .map(|part| part.trim().parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    match parts[..] {
        [x, y, w, h] if w > 0.0 && h > 0.0 => Ok([x, y, w, h]),
        _ => Err(bad()),
    }
}

/// `X,Y` as two numbers.
pub(crate) fn parse_point(text: &str) -> Result<(f64, f64), String> {
    let parse = |part: &str| part.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    match text.split_once(',') {
        Some((x, y)) => match (parse(x), parse(y)) {
            (Some(x), Some(y)) => Ok((x, y)),
            _ => Err(format!("{text:?} is not two numbers X,Y")),
        },
        None => Err(format!("{text:?} is not two numbers X,Y")),
    }
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        Commands::Extract {
            paths,
            out_dir,
            jobs,
            only,
        } => {
            let only = match only {
                None => twcodec_tools::assets::Only::All,
                Some(OnlyAssets::Images) => twcodec_tools::assets::Only::Images,
                Some(OnlyAssets::Sounds) => twcodec_tools::assets::Only::Sounds,
            };
            if let Some(out_dir) = out_dir {
                return batch(
                    &paths,
                    &out_dir,
                    jobs,
                    "",
                    "extracting",
                    out,
                    |input, dir| extract_one(input, dir, only),
                );
            }
            let [file, dir] = &paths[..] else {
                return Err(Failure::Usage(
                    "extract takes MAP DIR, or --out-dir DIR and the inputs".into(),
                ));
            };
            for line in extract_one(file, dir, only)? {
                writeln!(out, "{line}")?;
            }
        }
        Commands::AddImage {
            file,
            png,
            name,
            output,
        } => {
            let mut map = Map::open(&file)?;
            let picture = twcodec_tools::assets::read_png(&png, map.limits())?;
            if !picture.fits_tile_grid() {
                note!(
                    "twcodec: warning: {}: {}x{} is not a multiple of 16 on each side, so the \
                     picture cannot be a tileset of 16x16 tiles",
                    png.display(),
                    picture.width,
                    picture.height
                );
            }
            let name = match name {
                Some(name) => name,
                None => (png.file_stem())
                    .map(|stem| stem.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            };
            let image =
                map.add_embedded_image(&name, picture.width, picture.height, picture.rgba)?;
            map.save(&output)?;
            writeln!(
                out,
                "added image #{} {name:?} ({}x{}) to {}",
                image.index(),
                picture.width,
                picture.height,
                output.display()
            )?;
        }
        Commands::ReplaceImage {
            file,
            name,
            png,
            output,
        } => replace_image(&file, &name, &png, &output, out)?,
        Commands::Embed {
            file,
            mapres,
            strict,
            output,
        } => embed(&file, mapres, strict, &output, out)?,
        Commands::ReplaceSound {
            file,
            name,
            opus,
            output,
        } => replace_sound(&file, &name, &opus, &output, out)?,
        Commands::AddSound {
            file,
            opus,
            name,
            output,
        } => add_sound(&file, name, &opus, &output, out)?,
        Commands::Render {
            file,
            output,
            mapres,
            width,
            height,
            scale,
            thumbnail,
            crop,
            time,
            camera,
            zoom,
            whole: _,
            entities,
            entities_overlay,
            entities_tileset,
            no_detail,
            layers,
            max_work,
        } => {
            use twcodec_tools::render::{RenderOptions, Size, View};
            let map = match max_work {
                None => Map::open_with(&file, twcodec::Decode::Lazy)?,
                Some(steps) => {
                    let limits = twcodec::Limits::default().with_max_render_work(steps);
                    let datafile = twcodec::Datafile::open_with(&file, limits)?;
                    Map::from_datafile_owned(datafile, twcodec::LoadOptions::LAZY)
                        .map_err(|e| e.with_path(&file))?
                }
            };
            let thumbnail = thumbnail.map(ThumbnailPreset::preset);
            let size = match (width, height, scale, thumbnail) {
                (_, _, _, Some(preset)) => preset.size(),
                (Some(width), Some(height), _, _) => Size::Pixels { width, height },
                (Some(width), None, _, _) => Size::Width(width),
                (None, _, Some(scale), _) => Size::Scale(scale),
                (None, _, None, None) => Size::Width(1920),
            };
            let zoom = zoom.unwrap_or(thumbnail.map_or(1.0, |t| t.zoom()));
            let view = match (camera, crop) {
                (Some((x, y)), _) => View::Camera { x, y, zoom },
                (None, Some([x, y, width, height])) => View::Tiles {
                    x,
                    y,
                    width,
                    height,
                },
                (None, None) => View::Whole,
            };
            let layers = match layers.is_empty() {
                true => None,
                false => Some(twcodec_tools::render::select_layers(&map, &layers)?),
            };
            let defaults = RenderOptions::default();
            let default_mapres = defaults.mapres.clone();
            let options = defaults
                .size(size)
                .view(view)
                .time_ms(time * 1000.0)
                .entities(entities_overlay.unwrap_or(if entities { 100 } else { 0 }))
                .detail(!no_detail)
                .layers(layers)
                .mapres(mapres.or(default_mapres))
                .entities_tileset(entities_tileset);
            // A bar on a terminal for big pictures: one step per band of 16 rows.
            let progress = Progress::new(0, "drawing");
            // Drawn and compressed piece by piece: the PNG without the whole picture.
            let rendered = twcodec_tools::render::Renderer::new()
                .render_png_with_progress(&map, &options, &|done, total| {
                    progress.set(done as u64, total as u64);
                })
                // What the map asks for is the file's; what the options ask for is not.
                .map_err(|e| match e.kind() {
                    twcodec::ErrorKind::InvalidOptions => e,
                    _ => e.with_path(&file),
                })?;
            drop(progress);
            for warning in &rendered.warnings {
                note!("twcodec: warning: {}: {warning}", file.display());
            }
            let png = rendered.png;
            if is_stdout(&output) {
                refuse_terminal("a PNG picture")?;
                out.write_all(&png)?;
            } else {
                twcodec::fs::save(&output, &png)?;
                writeln!(
                    out,
                    "rendered {}x{} to {}",
                    rendered.width,
                    rendered.height,
                    output.display()
                )?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `extract` of one map into `dir`: the lines saying what was written.
fn extract_one(
    file: &Path,
    dir: &Path,
    only: twcodec_tools::assets::Only,
) -> Result<Vec<String>, Failure> {
    let map = Map::open(file)?;
    let assets = twcodec_tools::assets::extract(&map, dir, only)?;
    let mut lines = Vec::new();
    for asset in &assets {
        let kind = match asset.kind {
            twcodec_tools::assets::AssetKind::Image => "image",
            twcodec_tools::assets::AssetKind::Sound => "sound",
        };
        let name = asset.name.as_deref().unwrap_or("(no name)");
        lines.push(match &asset.file {
            Some(path) => format!(
                "{kind} #{} {name:?}: wrote {}",
                asset.index,
                dir.join(path).display()
            ),
            None => format!(
                "{kind} #{} {name:?}: external (the game's own picture or sound; not in the map)",
                asset.index
            ),
        });
    }
    Ok(lines)
}

/// Writes an edited map to `output` (`-`: standard output), then the report lines: on
/// standard output, or on standard error when the map went there.
fn write_map(map: &Map, output: &Path, lines: &[String], out: Out<'_>) -> Result<(), Failure> {
    if is_stdout(output) {
        refuse_terminal("a map")?;
        map.to_datafile()?.write(&mut *out)?;
        for line in lines {
            note!("{line}");
        }
    } else {
        map.save(output)?;
        for line in lines {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// The mapres folder: the one given, else `$TWCODEC_MAPRES`, else a usage error.
pub(crate) fn mapres_dir(mapres: Option<PathBuf>) -> Result<PathBuf, Failure> {
    mapres
        .or_else(twcodec_tools::assets::default_mapres)
        .ok_or_else(|| {
            Failure::Usage("no folder of pictures: give --mapres DIR or set $TWCODEC_MAPRES".into())
        })
}

/// The lines on standard error about an embedding: what was embedded, what stays external
/// and why, and warnings.
pub(crate) fn embedding_notes(
    embedding: &twcodec_tools::assets::Embedding,
    map: &Path,
) -> Vec<String> {
    let map = map.display();
    let mut lines = Vec::new();
    for left in &embedding.left_external {
        let name = left.name.as_deref().unwrap_or("(no name)");
        lines.push(format!(
            "twcodec: warning: {map}: image #{} {name:?} stays external: {}",
            left.image.index(),
            left.reason
        ));
    }
    for warning in &embedding.warnings {
        lines.push(format!("twcodec: warning: {map}: {warning}"));
    }
    lines
}

/// `embed`.
fn embed(
    file: &Path,
    mapres: Option<PathBuf>,
    strict: bool,
    output: &Path,
    out: Out<'_>,
) -> Result<(), Failure> {
    let mapres = mapres_dir(mapres)?;
    let mut map = Map::open(file)?;
    let embedding = twcodec_tools::assets::embed(&mut map, &mapres)?;
    for line in embedding_notes(&embedding, file) {
        note!("{line}");
    }
    if strict {
        embedding.require_all().map_err(|e| e.with_path(file))?;
    }
    let (done, left) = (embedding.embedded.len(), embedding.left_external.len());
    let mut lines: Vec<String> = (embedding.embedded.iter())
        .map(|e| {
            format!(
                "image #{} {:?}: embedded {} ({}x{})",
                e.image.index(),
                e.name,
                e.path.display(),
                e.width,
                e.height
            )
        })
        .collect();
    lines.push(format!(
        "embedded {done} of {} external images; wrote {}",
        done + left,
        output.display()
    ));
    write_map(&map, output, &lines, out)
}

/// `replace-image`.
fn replace_image(
    file: &Path,
    name: &str,
    png: &Path,
    output: &Path,
    out: Out<'_>,
) -> Result<(), Failure> {
    let mut map = Map::open(file)?;
    let picture = twcodec_tools::assets::read_png(png, map.limits())?;
    let (width, height) = (picture.width, picture.height);
    let replaced = twcodec_tools::assets::replace_image(&mut map, name, picture)
        .map_err(|e| e.with_path(file))?;
    for warning in &replaced.warnings {
        note!("twcodec: warning: {}: {warning}", png.display());
    }
    let index = replaced.image.index();
    let line = match (replaced.changed, replaced.was_external) {
        (false, _) => format!("image #{index} {name:?} holds these pixels already: unchanged"),
        (true, true) => {
            format!("image #{index} {name:?}: was external, now embedded ({width}x{height})")
        }
        (true, false) => {
            let (w, h) = replaced.old_size;
            format!("image #{index} {name:?}: replaced ({w}x{h} -> {width}x{height})")
        }
    };
    write_map(
        &map,
        output,
        &[line, format!("wrote {}", output.display())],
        out,
    )
}

/// `replace-sound`.
fn replace_sound(
    file: &Path,
    name: &str,
    opus: &Path,
    output: &Path,
    out: Out<'_>,
) -> Result<(), Failure> {
    let mut map = Map::open(file)?;
    let sound = twcodec_tools::assets::find_sound(&map, name).map_err(|e| e.with_path(file))?;
    let (bytes, head) = twcodec_tools::assets::read_opus(opus, map.limits())?;
    let what = opus_summary(bytes.len(), head);
    let done = match map.replace_sound(sound, bytes)? {
        true => "replaced",
        false => "unchanged (the same bytes)",
    };
    let line = format!("sound #{} {name:?}: {done} ({what})", sound.index());
    write_map(
        &map,
        output,
        &[line, format!("wrote {}", output.display())],
        out,
    )
}

/// `add-sound`.
fn add_sound(
    file: &Path,
    name: Option<String>,
    opus: &Path,
    output: &Path,
    out: Out<'_>,
) -> Result<(), Failure> {
    let mut map = Map::open(file)?;
    let (bytes, head) = twcodec_tools::assets::read_opus(opus, map.limits())?;
    let what = opus_summary(bytes.len(), head);
    let name = name.unwrap_or_else(|| {
        (opus.file_stem())
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let sound = map.add_sound(&name, bytes)?;
    if map.form() == MapForm::Teeworlds07 {
        note!(
            "twcodec: warning: {}: a Teeworlds 0.7 map: only DDNet plays map sounds",
            file.display()
        );
    }
    let line = format!("added sound #{} {name:?} ({what})", sound.index());
    write_map(
        &map,
        output,
        &[line, format!("wrote {}", output.display())],
        out,
    )
}

/// `N bytes of Opus, C channels`.
fn opus_summary(len: usize, head: twcodec_tools::assets::OpusHead) -> String {
    let plural = if head.channels == 1 { "" } else { "s" };
    format!("{len} bytes of Opus, {} channel{plural}", head.channels)
}
