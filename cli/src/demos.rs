//! Demos and snapshots: `demo info`, `ticks`, `map`, `chat` and `export`; the demo edits
//! `demo cut`, `replace-map` and `strip-map`; `snap decode` and `snap apply`.

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use twcodec::demo::{Demo, DemoTime};
use twcodec::snap::{self, Decoded, Form, Protocol, SizeTable, Snapshot, SnapshotDelta};
use twcodec_tools::dump;

use crate::output::{
    csv_failure, is_stdout, note, plural, refuse_terminal, Failure, Format, Out, RowFormat,
};
use crate::progress::Progress;

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Demos: header, embedded map, chunks, and the snapshot at every tick.
    Demo {
        #[command(subcommand)]
        command: DemoCommand,
    },
    /// Snapshots and snapshot deltas, in files of 4-byte little-endian ints (the unpacked
    /// form) or, with --packed, of packed ints as on the network and in demos.
    Snap {
        #[command(subcommand)]
        command: SnapCommand,
    },
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        Commands::Demo { command } => demo(command, out),
        Commands::Snap { command } => {
            snap(command, out)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[derive(Debug, Subcommand)]
pub(crate) enum DemoCommand {
    /// Header, timeline markers, the embedded map (checked against the header's CRC and
    /// SHA-256), counts of chunks and ticks, duration.
    Info {
        /// The demo.
        file: PathBuf,
    },
    /// Replay the demo: every tick with its snapshot's item count and checksum.
    Ticks {
        /// The demo.
        file: PathBuf,
    },
    /// Write the embedded map to a file.
    Map {
        /// The demo.
        file: PathBuf,
        /// Where to write the map (`-`: standard output).
        output: PathBuf,
    },
    /// The chat: `[mm:ss.cc] name: text`, team chat, whispers, server messages and
    /// broadcasts, with the speakers' names as of the moment (from the snapshots' client
    /// info and 0.7's client info messages; `#3` when never named). A message that does not
    /// decode is reported on standard error, naming its chunk, tick and offset, and skipped
    /// (exit 1 at the end).
    Chat {
        /// The demo.
        file: PathBuf,
        /// Output format: lines, or one JSON object per line.
        #[arg(long, value_enum, default_value_t = ChatFormat::Text)]
        format: ChatFormat,
        /// Joins, leaves and kills too (`--> name joined`, `<-- name left`, `a killed b
        /// (weapon)`).
        #[arg(long)]
        events: bool,
    },
    /// One row per snapshot object per tick (tick, time in seconds since the first tick,
    /// type, id, the object's fields), streamed, for DuckDB, pandas or Spark.
    Export {
        /// The demo.
        file: PathBuf,
        /// Only these object types, comma-separated (`character,player_info`; with or
        /// without the `obj_` / `event_` prefix).
        #[arg(long, value_delimiter = ',')]
        objects: Vec<String>,
        /// Output format (CSV replays the demo twice: once for the columns).
        #[arg(long, value_enum, default_value_t = RowFormat::Jsonl)]
        format: RowFormat,
    },
    /// Cut a range of ticks into a demo of its own. It starts with a keyframe: the first
    /// tick from --from on that has a snapshot, its snapshot written in full; every chunk
    /// after it to --to is copied as it is, so the cut replays as the demo does over those
    /// ticks. The version, net version, type, timestamp and map stay; the header gets the
    /// cut's length and the timeline markers within it. Points are ticks as `demo ticks`
    /// shows them (`123456`), seconds from the first tick (`12.5s`, `1:02.5`), timeline
    /// markers (`m2` or `marker:2`, from 1), or `start` / `end`.
    Cut {
        /// The demo.
        file: PathBuf,
        /// Where to write the cut (`-`: standard output).
        #[arg(short, long)]
        output: PathBuf,
        /// Where the cut starts.
        #[arg(long, default_value = "start", value_parser = parse_time)]
        from: DemoTime,
        /// Where the cut ends (that tick included).
        #[arg(long, default_value = "end", value_parser = parse_time)]
        to: DemoTime,
    },
    /// Embed another map: the header's map size, CRC-32 and (version 6) SHA-256 become the
    /// new map's; every chunk stays as it is. For a demo recorded on a map that has since
    /// been updated, or to make a demo small again after strip-map.
    ReplaceMap {
        /// The demo.
        file: PathBuf,
        /// The map to embed.
        map: PathBuf,
        /// Where to write the demo (`-`: standard output).
        #[arg(short, long)]
        output: PathBuf,
        /// Also rename the map in the header (default: the name stays).
        #[arg(long)]
        name: Option<String>,
    },
    /// Draw the game as the client shows it: the map and, over it, the tees with their
    /// skins, eyes, feet, hands and weapons, hooks, projectiles, lasers, pickups, flags and
    /// emoticons, moving between snapshots as the client interpolates them. One picture
    /// (--tick T -o OUT.png), PNG frames (--frames DIR), or raw RGBA frames on standard
    /// output for a video encoder (--raw): `twcodec demo render D.demo --raw | ffmpeg -f
    /// rawvideo -pix_fmt rgba -s 1280x720 -r 50 -i - out.mp4`.
    Render {
        /// The demo.
        file: PathBuf,
        /// Draw the instant of this tick (a point as `cut` takes it) into the picture -o.
        #[arg(long, value_parser = parse_time, requires = "output", conflicts_with_all = ["frames", "raw"])]
        tick: Option<DemoTime>,
        /// The PNG file of --tick (`-`: standard output).
        #[arg(short, long, requires = "tick", conflicts_with_all = ["frames", "raw"])]
        output: Option<PathBuf>,
        /// Write every frame as a PNG picture into this folder (made if missing):
        /// frame_000000.png, frame_000001.png, ...
        #[arg(long, conflicts_with = "raw")]
        frames: Option<PathBuf>,
        /// Write the frames on standard output as raw RGBA, width x height x 4 bytes each.
        #[arg(long)]
        raw: bool,
        /// Frames per second of game time.
        #[arg(long, default_value_t = 50.0)]
        fps: f64,
        /// The first instant of --frames and --raw (a point as `cut` takes it).
        #[arg(long, value_parser = parse_time, default_value = "start")]
        from: DemoTime,
        /// The last instant of --frames and --raw.
        #[arg(long, value_parser = parse_time, default_value = "end")]
        to: DemoTime,
        /// The picture's width in pixels.
        #[arg(long, default_value_t = 1280)]
        width: u32,
        /// The picture's height in pixels.
        #[arg(long, default_value_t = 720)]
        height: u32,
        /// 1 sees what the game shows by default, 2 twice as much.
        #[arg(long, default_value_t = 1.0)]
        zoom: f64,
        /// Follow the tee of this client id (default: the player who recorded the demo).
        #[arg(long, conflicts_with = "camera")]
        follow: Option<i32>,
        /// A fixed camera on this tile position, X,Y.
        #[arg(long, value_parser = crate::assets::parse_point)]
        camera: Option<(f64, f64)>,
        /// The game's pictures: a DDNet `data/` folder with game.png, emoticons.png and
        /// skins/ (default: $TWCODEC_DATA). Without it, tees and items are plain shapes.
        #[arg(long)]
        data: Option<PathBuf>,
        /// The folder of the map's external pictures (default: $TWCODEC_MAPRES).
        #[arg(long)]
        mapres: Option<PathBuf>,
        /// The map, for a demo that embeds none.
        #[arg(long)]
        map: Option<PathBuf>,
        /// No names above the tees.
        #[arg(long)]
        no_names: bool,
        /// Draw the physics layers over the map at this opacity in percent.
        #[arg(long, value_parser = clap::value_parser!(u8).range(0..=100))]
        entities_overlay: Option<u8>,
    },
    /// Remove the embedded map. The header keeps the map's name, CRC-32 and SHA-256, so
    /// that DDNet's client plays the demo with the map from its maps folder when they match.
    StripMap {
        /// The demo.
        file: PathBuf,
        /// Where to write the demo (`-`: standard output).
        #[arg(short, long)]
        output: PathBuf,
    },
}

/// `--from` and `--to`.
fn parse_time(text: &str) -> Result<DemoTime, String> {
    text.parse()
        .map_err(|error: twcodec::Error| error.message().to_string())
}

/// Writes an edited demo (atomically, or to standard output for `-`) after the report: on
/// standard output, or on standard error when the demo goes there.
fn save_demo(bytes: &[u8], output: &Path, lines: &[String], out: Out<'_>) -> Result<(), Failure> {
    let text = lines.join("\n") + if lines.is_empty() { "" } else { "\n" };
    if is_stdout(output) {
        refuse_terminal("a demo")?;
        eprint!("{text}");
        out.write_all(bytes)?;
    } else {
        out.write_all(text.as_bytes())?;
        twcodec::fs::save(output, bytes)?;
        writeln!(out, "wrote {} ({} bytes)", output.display(), bytes.len())?;
    }
    Ok(())
}

/// An error of the options (a point the demo does not have): a usage error.
fn usage(error: twcodec::Error) -> Failure {
    match error.kind() {
        twcodec::ErrorKind::InvalidOptions => Failure::Usage(error.message().to_string()),
        _ => Failure::Input(error),
    }
}

#[derive(Debug, Subcommand)]
pub(crate) enum SnapCommand {
    /// Print a snapshot or a snapshot delta: a snapshot's items as the objects of the
    /// protocol (fields by name, positions also in tiles), a delta's items as ints.
    Decode {
        /// The snapshot or delta.
        file: PathBuf,
        /// The file holds packed ints.
        #[arg(long)]
        packed: bool,
        /// The protocol: its pre-agreed item sizes (they decide which item deltas carry
        /// their size) and its type names.
        #[arg(long, value_enum, default_value_t = Sizes::Ddnet06)]
        sizes: Sizes,
        /// What the file holds (default: a snapshot if it reads as one, else a delta).
        #[arg(long, value_enum)]
        kind: Option<Kind>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Apply a delta to a snapshot; print the resulting snapshot and its checksum.
    Apply {
        /// The old snapshot.
        snapshot: PathBuf,
        /// The delta.
        delta: PathBuf,
        /// Both files hold packed ints (and so will --output).
        #[arg(long)]
        packed: bool,
        /// The protocol, as for `decode`.
        #[arg(long, value_enum, default_value_t = Sizes::Ddnet06)]
        sizes: Sizes,
        /// Also write the resulting snapshot to this file (`-`: standard output, instead of
        /// the text).
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

/// Snapshot protocols for `--sizes`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum Sizes {
    /// Teeworlds 0.6 and DDNet (types 1 to 20 pre-agreed).
    #[value(name = "0.6")]
    Ddnet06,
    /// Teeworlds 0.7 (types 1 to 22 pre-agreed).
    #[value(name = "0.7")]
    Teeworlds07,
    /// No pre-agreed sizes: every item delta carries its size.
    None,
}

impl Sizes {
    fn protocol(self) -> Option<Protocol> {
        match self {
            Sizes::Ddnet06 => Some(Protocol::Ddnet06),
            Sizes::Teeworlds07 => Some(Protocol::Teeworlds07),
            Sizes::None => None,
        }
    }

    fn table(self) -> SizeTable {
        self.protocol().map_or(SizeTable::none(), Protocol::sizes)
    }
}

/// What `snap decode` reads.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum Kind {
    /// A snapshot.
    Snapshot,
    /// A snapshot delta.
    Delta,
}

/// How `demo chat` writes lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ChatFormat {
    /// `[mm:ss.cc] name: text`.
    Text,
    /// One JSON object per line: tick, time, kind, client_id, name, target, text.
    Jsonl,
}

/// `demo info`, `demo ticks` and `demo map`; exit 1 when the chunks do not replay.
fn demo(command: DemoCommand, out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        DemoCommand::Info { file } => {
            if dump::demo_info(&Demo::open(&file)?, out)?.is_some() {
                return Ok(ExitCode::from(1));
            }
        }
        DemoCommand::Ticks { file } => {
            let demo = Demo::open(&file)?;
            if let Some(error) = dump::demo_ticks(&demo, out)? {
                return Err(error.with_path(&file).into());
            }
        }
        DemoCommand::Chat {
            file,
            format,
            events,
        } => {
            let demo = Demo::open(&file)?;
            let mut failed = false;
            let options = twcodec_tools::chat::ChatOptions::default().events(events);
            for line in twcodec_tools::chat::lines_with(&demo, options) {
                match line {
                    Ok(line) => match format {
                        ChatFormat::Text => writeln!(out, "{line}")?,
                        ChatFormat::Jsonl => {
                            serde_json::to_writer(&mut *out, &line).map_err(io::Error::from)?;
                            out.write_all(b"\n")?;
                        }
                    },
                    Err(error) => {
                        failed = true;
                        out.flush()?;
                        note!("twcodec: error: {}", error.with_path(&file));
                    }
                }
            }
            if failed {
                return Ok(ExitCode::from(1));
            }
        }
        DemoCommand::Export {
            file,
            objects,
            format,
        } => {
            let demo = Demo::open(&file)?;
            let filter = twcodec_tools::export::ObjectFilter::parse(&objects)?;
            demo_export(&demo, &filter, format, out).map_err(|failure| match failure {
                Failure::Input(error) => Failure::Input(error.with_path(&file)),
                other => other,
            })?;
        }
        DemoCommand::Cut {
            file,
            output,
            from,
            to,
        } => {
            let demo = Demo::open(&file)?;
            let from = demo
                .resolve_time(from)
                .map_err(|e| usage(e.with_path(&file)))?;
            let to = demo
                .resolve_time(to)
                .map_err(|e| usage(e.with_path(&file)))?;
            let (bytes, cut) = demo
                .cut(from, to)
                .map_err(|error| usage(error.with_path(&file)))?;
            let seconds = f64::from(cut.last_tick - cut.first_tick) / 50.0;
            let mut lines = vec![format!(
                "cut ticks {} to {} ({seconds:.2} s, length {} s), {}",
                cut.first_tick,
                cut.last_tick,
                cut.length,
                plural(cut.markers.len(), "timeline marker")
            )];
            if let Some(broken) = &cut.broken {
                lines.push(format!(
                    "the demo breaks after tick {}: {broken}",
                    cut.last_tick
                ));
            }
            if cut.first_tick > from {
                lines.push(format!(
                    "the cut starts at tick {}, the first from {from} on with a snapshot",
                    cut.first_tick
                ));
            }
            save_demo(&bytes, &output, &lines, out)?;
        }
        DemoCommand::ReplaceMap {
            file,
            map,
            output,
            name,
        } => {
            let demo = Demo::open(&file)?;
            let limits = twcodec::Limits::DEFAULT;
            let map_bytes =
                twcodec::input::read_file(&map, limits.max_file_size(), "Limits::max_file_size")?;
            let bytes = demo
                .replace_map(&map_bytes, name.as_deref())
                .map_err(|error| error.with_path(&map))?;
            let replaced = Demo::from_bytes(bytes.clone())?;
            let lines = vec![format!(
                "map {}: {} bytes, crc {:08x} (was {}: {} bytes, crc {:08x})",
                replaced.map_name(),
                replaced.header().map_size,
                replaced.header().map_crc,
                demo.map_name(),
                demo.header().map_size,
                demo.header().map_crc
            )];
            save_demo(&bytes, &output, &lines, out)?;
        }
        DemoCommand::StripMap { file, output } => {
            let demo = Demo::open(&file)?;
            let bytes = demo.strip_map()?;
            let lines = vec![format!(
                "removed the map {} ({} bytes, crc {:08x}); players need it in their maps folder",
                demo.map_name(),
                demo.header().map_size,
                demo.header().map_crc
            )];
            save_demo(&bytes, &output, &lines, out)?;
        }
        DemoCommand::Render {
            file,
            tick,
            output,
            frames,
            raw,
            fps,
            from,
            to,
            width,
            height,
            zoom,
            follow,
            camera,
            data,
            mapres,
            map,
            no_names,
            entities_overlay,
        } => {
            use twcodec_tools::render::world::{Camera, DemoRenderOptions, DemoRenderer, Timeline};
            let demo = Demo::open(&file)?;
            let camera = match (follow, camera) {
                (Some(id), _) => Camera::Player(id),
                (None, Some((x, y))) => Camera::Fixed { x, y },
                (None, None) => Camera::Local,
            };
            let defaults = DemoRenderOptions::default();
            let data = data.or(defaults.data.clone());
            let mapres = mapres.or(defaults.mapres.clone());
            let mut options = defaults
                .size(width, height)
                .zoom(zoom)
                .camera(camera)
                .mapres(mapres)
                .names(!no_names)
                .entities(entities_overlay.unwrap_or(0));
            options.data = data;
            let mut renderer = match map {
                Some(path) => DemoRenderer::with_map(twcodec::map::Map::open(&path)?, &options)?,
                None => DemoRenderer::new(&demo, &options).map_err(|e| e.with_path(&file))?,
            };
            for warning in renderer.warnings() {
                note!("twcodec: warning: {warning}");
            }
            let resolve = |time: DemoTime| {
                demo.resolve_time(time)
                    .map_err(|e| usage(e.with_path(&file)))
            };
            let Some(output_path) = (match (&tick, &frames, raw) {
                (Some(_), _, _) => output.clone(),
                (None, Some(_), _) | (None, None, true) => None,
                (None, None, false) => {
                    return Err(Failure::Usage(
                        "say what to draw: --tick T -o OUT.png, --frames DIR or --raw".into(),
                    ))
                }
            }) else {
                return demo_frames(
                    &demo,
                    &mut renderer,
                    fps,
                    resolve(from)?,
                    resolve(to)?,
                    frames.as_deref(),
                    out,
                );
            };
            let at = resolve(tick.unwrap_or(DemoTime::Start))?;
            let world = Timeline::new(&demo, 50.0)
                .map_err(usage)?
                .with_map(renderer.map())
                .from_tick(f64::from(at))
                .next()
                .transpose()
                .map_err(|e| e.with_path(&file))?
                .ok_or_else(|| {
                    let range = match demo.tick_range() {
                        Ok(Some((first, last))) => format!("its ticks are {first} to {last}"),
                        _ => "it has no snapshot".to_string(),
                    };
                    Failure::Usage(format!(
                        "{}: nothing to draw at tick {at}: {range}",
                        file.display()
                    ))
                })?;
            let rendered = renderer.render(&world).map_err(usage)?;
            let png = rendered.picture.to_png()?;
            if is_stdout(&output_path) {
                refuse_terminal("a PNG picture")?;
                out.write_all(&png)?;
            } else {
                twcodec::fs::save(&output_path, &png)?;
                writeln!(
                    out,
                    "rendered tick {} ({}x{}) to {}",
                    world.tick,
                    rendered.picture.width,
                    rendered.picture.height,
                    output_path.display()
                )?;
            }
        }
        DemoCommand::Map { file, output } => {
            let demo = Demo::open(&file)?;
            if is_stdout(&output) {
                refuse_terminal("a map")?;
                out.write_all(&demo.map_bytes())?;
            } else {
                demo.save_map(&output)?;
                writeln!(
                    out,
                    "wrote {} ({} bytes)",
                    output.display(),
                    demo.header().map_size
                )?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `demo render --frames` and `--raw`: the frames from `from` to `to`, one at a time, as PNG
/// files in `dir` or raw RGBA on standard output; a progress bar on a terminal.
fn demo_frames(
    demo: &Demo,
    renderer: &mut twcodec_tools::render::world::DemoRenderer,
    fps: f64,
    from: i32,
    to: i32,
    dir: Option<&Path>,
    out: Out<'_>,
) -> Result<ExitCode, Failure> {
    use twcodec_tools::render::world::Timeline;
    if dir.is_none() {
        refuse_terminal("raw video frames")?;
    }
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::Input(twcodec::Error::io("making the folder", dir, e)))?;
    }
    let frames = (f64::from(to.saturating_sub(from)) * fps / 50.0)
        .floor()
        .max(0.0) as u64
        + 1;
    let progress = Progress::new(frames, "drawing frames");
    let timeline = Timeline::new(demo, fps)
        .map_err(usage)?
        .with_map(renderer.map())
        .from_tick(f64::from(from))
        .to_tick(f64::from(to));
    // Pipelined: a thread replays and draws the next frame while this one encodes and writes
    // the last. One frame waits between them at most, so memory stays that of three frames.
    let mut written = 0u64;
    std::thread::scope(|scope| -> Result<(), Failure> {
        let (send, frames) = std::sync::mpsc::sync_channel(1);
        scope.spawn(move || {
            for world in timeline {
                let rendered = world.and_then(|world| renderer.render(&world));
                let failed = rendered.is_err();
                // A closed channel: the writer stopped.
                if send.send(rendered).is_err() || failed {
                    break;
                }
            }
        });
        for rendered in frames {
            let rendered = rendered.map_err(usage)?;
            match dir {
                Some(dir) => {
                    let path = dir.join(format!("frame_{written:06}.png"));
                    twcodec::fs::save(&path, &rendered.picture.to_png()?)?;
                }
                None => out.write_all(&rendered.picture.rgba)?,
            }
            written += 1;
            progress.inc();
        }
        Ok(())
    })?;
    drop(progress);
    match dir {
        Some(dir) => writeln!(
            out,
            "wrote {} to {}",
            plural(written as usize, "frame"),
            dir.display()
        )?,
        None => {
            out.flush()?;
            note!(
                "twcodec: wrote {} of raw RGBA",
                plural(written as usize, "frame")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `demo export`: rows on standard output as they are made; a progress bar (by tick) on a
/// terminal.
fn demo_export(
    demo: &Demo,
    filter: &twcodec_tools::export::ObjectFilter,
    format: RowFormat,
    out: Out<'_>,
) -> Result<(), Failure> {
    use twcodec_tools::export::{cells, columns, ObjectRows};
    let ticks = demo.header().length.max(0) as u64 * twcodec::demo::TICKS_PER_SECOND as u64;
    let progress = Progress::new(ticks, "exporting");
    let mut last_tick = None;
    let mut tick_progress = |tick: i32| {
        let first = *last_tick.get_or_insert(tick);
        progress.set_position(tick.saturating_sub(first).max(0) as u64);
    };
    match format {
        RowFormat::Jsonl => {
            for row in ObjectRows::new(demo, filter) {
                let row = row?;
                tick_progress(row.tick);
                progress.print(out, |out| -> Result<(), Failure> {
                    serde_json::to_writer(&mut *out, &row.to_json()).map_err(io::Error::from)?;
                    out.write_all(b"\n")?;
                    Ok(())
                })?;
            }
        }
        RowFormat::Csv => {
            let columns = columns(demo, filter)?;
            let mut writer = csv::Writer::from_writer(&mut *out);
            writer.write_record(&columns).map_err(csv_failure)?;
            for row in ObjectRows::new(demo, filter) {
                let row = row?;
                tick_progress(row.tick);
                progress.print(&mut writer, |writer| {
                    writer
                        .write_record(cells(&row, &columns))
                        .map_err(csv_failure)
                })?;
            }
            writer.flush()?;
        }
    }
    drop(progress);
    Ok(())
}

/// `snap decode` and `snap apply`.
fn snap(command: SnapCommand, out: Out<'_>) -> Result<(), Failure> {
    let form = |packed| if packed { Form::Packed } else { Form::Ints };
    match command {
        SnapCommand::Decode {
            file,
            packed,
            sizes,
            kind,
            format,
        } => {
            let (form, table, protocol) = (form(packed), sizes.table(), sizes.protocol());
            let decoded = match kind {
                Some(Kind::Snapshot) => Decoded::Snapshot(Snapshot::open(&file, form)?),
                Some(Kind::Delta) => Decoded::Delta(SnapshotDelta::open(&file, form, &table)?),
                None => snap::load(&file, form, &table)?,
            };
            match (decoded, format) {
                (Decoded::Snapshot(snapshot), Format::Text) => {
                    dump::snapshot_text(&snapshot, protocol, out)?
                }
                (Decoded::Snapshot(snapshot), Format::Json) => {
                    dump::snapshot_json(&snapshot, protocol, out)?
                }
                (Decoded::Delta(delta), Format::Text) => {
                    dump::delta_text(&delta, &table, protocol, out)?
                }
                (Decoded::Delta(delta), Format::Json) => dump::delta_json(&delta, &table, out)?,
            }
        }
        SnapCommand::Apply {
            snapshot,
            delta,
            packed,
            sizes,
            output,
        } => {
            let (form, table) = (form(packed), sizes.table());
            let old = Snapshot::open(&snapshot, form)?;
            let delta_data = SnapshotDelta::open(&delta, form, &table)?;
            let new = old.apply(&delta_data).map_err(|e| e.with_path(&delta))?;
            match output {
                Some(output) if is_stdout(&output) => {
                    refuse_terminal("a snapshot")?;
                    out.write_all(&new.to_bytes(form))?;
                }
                Some(output) => {
                    dump::snapshot_text(&new, sizes.protocol(), out)?;
                    new.save(&output, form)?;
                    writeln!(out, "wrote {}", output.display())?;
                }
                None => dump::snapshot_text(&new, sizes.protocol(), out)?,
            }
        }
    }
    Ok(())
}
