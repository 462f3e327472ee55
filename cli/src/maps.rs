//! Maps: `info`, `items`, `dump`, `check`, `resave`, `sample` and `schema`, and what `twcodec`
//! alone shows.

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use twcodec::{DatafileWriter, Error, LoadMode, Map, MapForm, Version};
use twcodec_tools::check::{self, rules::RuleSet, Finding, MapFindings};
use twcodec_tools::dump::{self, DumpOptions, TypeFilter};

use crate::assets::{embedding_notes, mapres_dir};
use crate::many::{batch, parse_jobs, split_found};
use crate::output::{
    explain_for, is_stdout, note, open, plural, refuse_terminal, without_path, Failure, Format, Out,
};
use crate::progress::Progress;

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Version, magic, header sizes, item types with counts, data totals and warnings.
    Info {
        /// The datafile (a .map file).
        file: PathBuf,
    },
    /// Every item as type, id and ints.
    Items {
        /// The datafile (a .map file).
        file: PathBuf,
        /// Only items of this type: a type id (5, 0xfffe), a name (layer, uuid-index,
        /// automapper), a UUID or a UUID name (mapitemtype-automapper-config@ddnet.tw).
        #[arg(long = "type", value_name = "T")]
        type_filter: Option<TypeFilter>,
        /// Show each item decoded as its map item type, one field per line.
        #[arg(long)]
        decode: bool,
    },
    /// The whole map, resolved: every item and field, tile layers summarized.
    Dump {
        /// The map.
        file: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Add an ASCII preview of the game layer.
        #[arg(long)]
        tiles: bool,
        /// Text made for line diffs, for git's `textconv` (`git log -p`, `git show`,
        /// `git blame`): a line per fact, things named rather than numbered, tiles a row per
        /// line. A file that is not a map is one line saying so (exit 0), so that git goes on.
        #[arg(long, conflicts_with_all = ["format", "tiles"])]
        for_diff: bool,
    },
    /// Check maps: what DDNet refuses or misreads (errors, warnings), with --ddnet what plays
    /// wrong, with --rules FILE a project's rules; a header line per map (`FILE: 1 error, 2
    /// warnings`), then a line per finding naming the map. Exit 1 when a map cannot be read,
    /// and with --strict (or --rules) when one has errors. With several maps (or directories,
    /// searched for .map files), they are checked in parallel and a summary line ends the
    /// output.
    ///
    /// --ddnet adds the gameplay checks (what plays wrong in DDNet: tiles the game does not
    /// define, flags it ignores or misreads, hook-through without effect, teleporters without
    /// exits, switch numbers without a switch, no spawn, start without finish, unset tune
    /// zones, speedups of force 0, speedups and stoppers facing a wall, tiles beyond the game
    /// layer), a line per kind and layer with its tiles (`x,y`) and the DDNet rule that
    /// decides it, the check's id in brackets. --rules FILE adds a project's rules (a TOML
    /// file: size limits, required and forbidden tiles, allowed settings, required info,
    /// image and sound rules, and the severity of each check; docs/checks.md).
    Check {
        /// Maps, or directories of maps.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Fail (exit 1) when a map has errors; without it (lenient) errors are shown and
        /// counted, and the exit code is 0.
        #[arg(long)]
        strict: bool,
        /// Also run the gameplay checks of DDNet's game code.
        #[arg(long)]
        ddnet: bool,
        /// Also apply the rules of this TOML file (and fail on errors, as --strict).
        #[arg(long, value_name = "FILE")]
        rules: Option<PathBuf>,
        /// Output: text lines, one JSON document, or GitHub Actions annotations
        /// (`::error file=...::...`).
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
        /// Threads (default: one per core).
        #[arg(long, short = 'j', value_parser = parse_jobs)]
        jobs: Option<usize>,
    },
    /// Write a datafile back; lossless unless asked to change something.
    ///
    /// Converting a DDNet map for Teeworlds 0.7, add --embed: 0.7 ships redrawn pictures
    /// under DDNet's names (grass_main, winter_main, ...), so a map with external images looks
    /// different in a 0.7 client; --embed --mapres DIR puts DDNet's pictures in the map, as
    /// DDNet's map_convert_07 does, and the map keeps its look.
    ///
    /// With --out-dir, every input (maps, and directories searched for .map files) is written
    /// under DIR at its path relative to the directory given (or by its name), in parallel,
    /// and a summary line ends the output; exit 1 when any failed.
    Resave {
        /// The datafile to read, then where to write it: a new or regular file is replaced
        /// atomically (a temporary file, then a rename; a replaced file keeps its mode), a
        /// device or FIFO is written in place, `-` is standard output. With --out-dir: the
        /// inputs.
        #[arg(required = true, value_name = "INPUT OUTPUT | INPUTS")]
        paths: Vec<PathBuf>,
        /// Write every input under this directory.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
        /// Threads with --out-dir (default: one per core).
        #[arg(long, short = 'j', requires = "out_dir", value_parser = parse_jobs)]
        jobs: Option<usize>,
        /// Datafile (container) version to write, 3 or 4 (default: the input's).
        #[arg(long, value_name = "3|4", value_parser = parse_version)]
        datafile_version: Option<Version>,
        /// Compress every data item again instead of keeping the stored bytes.
        #[arg(long)]
        recompress: bool,
        /// zlib level for new or recompressed data.
        #[arg(long, default_value_t = twcodec::DEFAULT_COMPRESSION_LEVEL,
              value_parser = clap::value_parser!(u32).range(0..=9))]
        level: u32,
        /// Convert the map to this game's form (through the map graph); standard error says
        /// what was changed, kept and dropped, one line each.
        #[arg(long, value_enum)]
        to: Option<Target>,
        /// With --to: embed every external image from --mapres first, so that the map looks
        /// as in DDNet in any client (use it for --to 0.7, whose pictures are redrawn).
        #[arg(long, requires = "to")]
        embed: bool,
        /// The folder of DDNet's pictures for --embed, NAME.png each (default:
        /// $TWCODEC_MAPRES).
        #[arg(long, value_name = "DIR", requires = "embed")]
        mapres: Option<PathBuf>,
    },
    /// Write the built-in sample map (a tiny DDNet map twcodec makes itself) to a file, to
    /// try the other commands on.
    Sample {
        /// Where to write it (`-`: standard output).
        output: PathBuf,
    },
    /// The format reference: every on-disk structure with each field's position, size, type
    /// and the condition under which it is present, read from the schema's binrw attributes.
    Schema {
        /// A structure (`GroupItem`, any case) or a document (datafile, map-items, snapshots,
        /// demos); every document without one.
        name: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = SchemaOutput::Markdown)]
        format: SchemaOutput,
        /// Write the Markdown files of every document and an index (README.md) into this
        /// directory, as committed under docs/format/.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["name", "format"])]
        out_dir: Option<PathBuf>,
    },
}

/// Output formats of `schema`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum SchemaOutput {
    /// Markdown tables, as in docs/format/.
    Markdown,
    /// JSON.
    Json,
}

/// Map forms `resave --to` converts to.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum Target {
    /// DDNet (and Teeworlds 0.6).
    Ddnet,
    /// Teeworlds 0.7.
    #[value(name = "0.7")]
    Teeworlds07,
}

fn parse_version(text: &str) -> Result<Version, String> {
    text.parse::<i32>()
        .ok()
        .and_then(Version::from_number)
        .ok_or_else(|| format!("`{text}` is not a datafile version (3 or 4)"))
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    match command {
        Commands::Info { file } => dump::info(&open(&file)?, out)?,
        Commands::Items {
            file,
            type_filter,
            decode,
        } => {
            let datafile = open(&file)?;
            if decode {
                dump::decoded_items(&datafile, type_filter, out)?;
            } else {
                dump::items(&datafile, type_filter, out)?;
            }
        }
        Commands::Dump {
            file,
            for_diff: true,
            ..
        } => match Map::open(&file) {
            Ok(map) => dump::map_for_diff(&map, out)?,
            // Without the path: git's files are temporary ones, named at random.
            Err(error) => writeln!(out, "not a map: {}", without_path(&error, &file))?,
        },
        Commands::Dump {
            file,
            format,
            tiles,
            for_diff: false,
        } => {
            let map = Map::open(&file)?;
            let options = DumpOptions::default().preview(tiles);
            match format {
                Format::Text => dump::map_text(&map, options, out)?,
                Format::Json => dump::map_json(&map, options, out)?,
            }
        }
        Commands::Check {
            files,
            strict,
            ddnet,
            rules,
            format,
            jobs,
        } => {
            let rules = match rules {
                Some(path) => {
                    let max = twcodec::Limits::default().max_file_size();
                    let bytes = twcodec::input::read_file(&path, max, "Limits::max_file_size")?;
                    let text = String::from_utf8(bytes).map_err(|_| {
                        Failure::Usage(format!("{}: not UTF-8 text", path.display()))
                    })?;
                    Some(RuleSet::parse(&text, &path.display().to_string())?)
                }
                None => None,
            };
            let options = CheckOptions {
                strict: strict || rules.is_some(),
                ddnet: ddnet || rules.as_ref().is_some_and(RuleSet::ddnet),
                rules,
                format,
            };
            return check(&files, &options, jobs, out);
        }
        Commands::Resave {
            paths,
            out_dir,
            jobs,
            datafile_version,
            recompress,
            level,
            to,
            embed,
            mapres,
        } => {
            let options = ResaveOptions {
                datafile_version,
                recompress,
                level,
                to,
                mapres: if embed {
                    Some(mapres_dir(mapres)?)
                } else {
                    None
                },
            };
            if let Some(out_dir) = out_dir {
                return batch(
                    &paths,
                    &out_dir,
                    jobs,
                    "map",
                    "resaving",
                    out,
                    |input, output| {
                        let mut notes = Vec::new();
                        let writer = resaved(input, &options, &mut notes)?;
                        writer.save(output)?;
                        notes.push(format!("wrote {}", output.display()));
                        Ok(notes)
                    },
                );
            }
            let [input, output] = &paths[..] else {
                return Err(Failure::Usage(
                    "resave takes INPUT OUTPUT, or --out-dir DIR and the inputs".into(),
                ));
            };
            let mut notes = Vec::new();
            let writer = resaved(input, &options, &mut notes);
            for line in &notes {
                note!("{line}");
            }
            let writer = writer?;
            if is_stdout(output) {
                refuse_terminal("a map")?;
                writer.write(&mut *out)?;
            } else {
                writer.save(output)?;
                writeln!(out, "wrote {}", output.display())?;
            }
        }
        Commands::Sample { output } => {
            let bytes = twcodec_testkit::sample::datafile();
            if is_stdout(&output) {
                refuse_terminal("a map")?;
                out.write_all(&bytes)?;
            } else {
                twcodec::fs::save(&output, &bytes)?;
                writeln!(out, "wrote {} ({} bytes)", output.display(), bytes.len())?;
            }
        }
        Commands::Schema {
            name,
            format,
            out_dir,
        } => schema(name.as_deref(), format, out_dir.as_deref(), out)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// What `twcodec` alone prints: what the tool is, a look at the built-in sample, and the
/// commands to try next.
pub(crate) fn intro(out: Out<'_>) -> Result<(), Failure> {
    let bytes = twcodec_testkit::sample::datafile();
    let map = Map::parse(&bytes)?;
    let game = map
        .game_layer()
        .and_then(|(_, tiles)| tiles.grid())
        .map_or(String::new(), |grid| {
            format!(" (the game layer {}x{} tiles)", grid.width(), grid.height())
        });
    writeln!(
        out,
        "twcodec reads, writes and explains the files of Teeworlds and DDNet: maps, snapshots and
demos. Without a command it shows its built-in sample, a tiny DDNet map it makes itself
({} bytes): {} groups, {} layers{game}, {} images, {} envelopes, {} sound.

Next, on a map of yours (the game keeps them in its maps/ folder) or on the sample, which
`twcodec sample sample.map` writes:
  twcodec info MAP.map          what the file holds: item types, counts, data sizes, warnings
  twcodec dump MAP.map          every item resolved, groups holding their layers (--format json)
  twcodec check MAP.map         broken references and other problems (--strict fails on errors)
  twcodec resave MAP.map OUT.map --to 0.7
                                convert it for Teeworlds 0.7 (or --to ddnet)
  twcodec demo info FILE.demo   a demo's header, embedded map and ticks
  twcodec help                  every command and option",
        bytes.len(),
        map.groups().len(),
        map.layers().len(),
        map.images().len(),
        map.envelopes().len(),
        map.sounds().len(),
    )?;
    Ok(())
}

/// `schema`: the reference on standard output, or its Markdown files in a directory.
fn schema(
    name: Option<&str>,
    format: SchemaOutput,
    out_dir: Option<&Path>,
    out: Out<'_>,
) -> Result<(), Failure> {
    if let Some(dir) = out_dir {
        for (file, text) in dump::schema_files() {
            let path = dir.join(file);
            twcodec::fs::save(&path, text.as_bytes())?;
            writeln!(out, "wrote {}", path.display())?;
        }
        return Ok(());
    }
    let selection = match name {
        Some(name) => dump::SchemaSelection::find(name).map_err(Failure::Usage)?,
        None => dump::SchemaSelection::All,
    };
    let format = match format {
        SchemaOutput::Markdown => dump::SchemaFormat::Markdown,
        SchemaOutput::Json => dump::SchemaFormat::Json,
    };
    dump::schema(&selection, format, out)?;
    Ok(())
}

/// How `check` reads and writes.
struct CheckOptions {
    strict: bool,
    ddnet: bool,
    rules: Option<RuleSet>,
    format: CheckFormat,
}

/// How `check` writes what it found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFormat {
    /// A line per finding, naming the file.
    Text,
    /// One JSON document: `{"maps": [{"file", "errors", "warnings", "notes", "findings"}]}`.
    Json,
    /// GitHub Actions workflow commands (`::error file=F,title=T::MESSAGE`).
    Github,
}

/// What checking one map found: its lines (each naming the file, as a compiler's do) and its
/// counts.
struct Checked {
    findings: MapFindings,
}

/// `check` of one map: every problem the reader and the resolver found (findings of check
/// `load`: errors for what DDNet refuses), then the gameplay checks and the rules asked for.
fn check_one(file: &Path, options: &CheckOptions) -> Result<Checked, Error> {
    let map = Map::open_with(file, LoadMode::Lenient)?;
    let mut findings = check::load_findings(&map);
    if options.ddnet {
        findings.extend(check::ddnet::check(&map));
    }
    if let Some(rules) = &options.rules {
        findings = rules.apply_severity(findings);
        let size = std::fs::metadata(file).ok().map(|m| m.len());
        findings.extend(rules.check(&map, size));
    }
    Ok(Checked {
        findings: MapFindings::new(file.display().to_string(), findings),
    })
}

impl Checked {
    /// The map's header line: `FILE: 1 error, 2 warnings` (`, 3 notes` when there are).
    fn header(&self, file: &Path) -> String {
        let f = &self.findings;
        let notes = if f.notes > 0 {
            format!(", {}", plural(f.notes, "note"))
        } else {
            String::new()
        };
        format!(
            "{}: {}, {}{notes}",
            file.display(),
            plural(f.errors, "error"),
            plural(f.warnings, "warning")
        )
    }

    /// Writes the map's header and lines (text) or annotations (GitHub).
    fn write(&self, file: &Path, format: CheckFormat, mode: &str, out: Out<'_>) -> io::Result<()> {
        let name = file.display().to_string();
        match format {
            CheckFormat::Text => {
                writeln!(out, "{}{mode}", self.header(file))?;
                for finding in &self.findings.findings {
                    writeln!(out, "{name}: {}", finding.text())?;
                }
            }
            CheckFormat::Github => {
                for finding in &self.findings.findings {
                    writeln!(out, "{}", finding.github(&name))?;
                }
            }
            CheckFormat::Json => {}
        }
        Ok(())
    }
}

/// What lenient `check` adds to its verdict line, once.
const LENIENT: &str = " (lenient: use --strict to fail on errors)";

/// `twcodec check`: each map's header line, then its findings, a line each naming the map;
/// several maps in parallel, in order, then a summary line (or one JSON document, or GitHub
/// annotations). Errors fail (exit 1) only with --strict or --rules. A map that cannot be
/// read fails in either mode.
fn check(
    paths: &[PathBuf],
    options: &CheckOptions,
    jobs: Option<usize>,
    out: Out<'_>,
) -> Result<ExitCode, Failure> {
    let strict = options.strict;
    let format = options.format;
    let mode = if strict || format != CheckFormat::Text {
        ""
    } else {
        LENIENT
    };
    if let [file] = paths {
        if !file.is_dir() {
            let checked = check_one(file, options)?;
            if format == CheckFormat::Json {
                check::write_json(std::slice::from_ref(&checked.findings), &mut *out)?;
            } else {
                checked.write(file, format, mode, out)?;
            }
            return Ok(ExitCode::from(u8::from(
                strict && checked.findings.errors > 0,
            )));
        }
    }
    let (files, unreadable_places) = split_found(twcodec_tools::scan::walk(paths, &["map"]));
    let progress = Progress::new(files.len() as u64, "checking");
    let (mut ok, mut warned, mut failed, mut unreadable) = (0, 0, 0, 0);
    let mut documents = Vec::new();
    let mut cannot_read = |path: &Path, why: String, out: Out<'_>| -> io::Result<()> {
        unreadable += 1;
        let name = path.display().to_string();
        match format {
            CheckFormat::Text => progress.print(out, |out| -> io::Result<()> {
                writeln!(out, "{name}: cannot be read: {why}")
            })?,
            CheckFormat::Github => progress.print(out, |out| -> io::Result<()> {
                let finding = Finding::new(
                    "load",
                    check::Severity::Error,
                    format!("cannot be read: {why}"),
                );
                writeln!(out, "{}", finding.github(&name))
            })?,
            CheckFormat::Json => documents.push(MapFindings::unreadable(name, why)),
        }
        Ok(())
    };
    // Places that could not be walked are files that could not be read.
    for (path, error) in &unreadable_places {
        cannot_read(path, error.to_string(), out)?;
    }
    let checked = twcodec_tools::scan::in_order(&files, jobs, |file| {
        let checked = check_one(file, options);
        progress.inc();
        (file.to_path_buf(), checked)
    })?;
    let mut maps = Vec::new();
    for (file, result) in checked {
        match result {
            Ok(checked) => {
                progress.print(out, |out| checked.write(&file, format, "", out))?;
                match (checked.findings.errors, checked.findings.warnings) {
                    (0, 0) => ok += 1,
                    (0, _) => warned += 1,
                    _ => failed += 1,
                }
                maps.push(checked.findings);
            }
            Err(error) => cannot_read(&file, explain_for(&error, &file), out)?,
        }
    }
    drop(progress);
    if format == CheckFormat::Json {
        documents.extend(maps);
        check::write_json(&documents, &mut *out)?;
    } else {
        writeln!(
            out,
            "{}: {ok} ok, {warned} with warnings, {failed} with errors, {unreadable} unreadable{mode}",
            plural(files.len() + unreadable_places.len(), "map")
        )?;
    }
    let fails = unreadable > 0 || (strict && failed > 0);
    Ok(ExitCode::from(u8::from(fails)))
}

/// What `resave` does to each input.
struct ResaveOptions {
    datafile_version: Option<Version>,
    recompress: bool,
    level: u32,
    to: Option<Target>,
    /// With --embed: the folder of pictures.
    mapres: Option<PathBuf>,
}

/// The writer of `input` resaved as `options` say, with what there is to say about it in
/// `notes` (warnings, conversion notes).
fn resaved(
    input: &Path,
    options: &ResaveOptions,
    notes: &mut Vec<String>,
) -> Result<DatafileWriter, Failure> {
    let datafile = open(input)?;
    for warning in datafile.warnings() {
        notes.push(format!("twcodec: warning: {}: {warning}", input.display()));
    }
    let writer = match options.to {
        None => DatafileWriter::from_datafile(&datafile),
        Some(target) => {
            let mut map = Map::from_datafile(&datafile).map_err(|e| e.with_path(input))?;
            let form = match target {
                Target::Ddnet => MapForm::Ddnet,
                Target::Teeworlds07 => MapForm::Teeworlds07,
            };
            convert(&mut map, input, form, options.mapres.as_deref(), notes)?;
            map.to_datafile()?
        }
    };
    let mut writer = writer
        .recompress(options.recompress)
        .compression_level(options.level);
    if let Some(version) = options.datafile_version {
        writer = writer.version(version);
    }
    Ok(writer)
}

/// `resave --to`: converts, embedding external images from `mapres` first with `--embed`, and
/// says what the conversion did, one line per note.
fn convert(
    map: &mut Map,
    input: &Path,
    form: MapForm,
    mapres: Option<&Path>,
    notes: &mut Vec<String>,
) -> Result<(), Failure> {
    let Some(mapres) = mapres else {
        let conversion = map.convert(form).map_err(|e| e.with_path(input))?;
        notes.extend(conversion_notes(&conversion, input));
        return Ok(());
    };
    let embedding = twcodec_tools::assets::convert_embedding(map, form, mapres)
        .map_err(|e| e.with_path(input))?;
    notes.extend(embedding_notes(&embedding, input));
    notes.extend(conversion_notes(&embedding.conversion, input));
    let (done, left) = (embedding.embedded.len(), embedding.left_external.len());
    notes.push(format!(
        "twcodec: embedded {done} of {} external images from {}",
        done + left,
        mapres.display()
    ));
    Ok(())
}

/// The lines on standard error about a conversion: a warning line per warning, a note line
/// per change, kept extension and dropped item.
fn conversion_notes(conversion: &twcodec::map::Conversion, map: &Path) -> Vec<String> {
    let map = map.display();
    (conversion.notes.iter())
        .map(|note| match note.action {
            twcodec::map::NoteAction::Warning => format!("twcodec: warning: {map}: {note}"),
            _ => format!("twcodec: note: {map}: {note}"),
        })
        .collect()
}
