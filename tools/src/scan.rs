//! Many files at once: every map, demo, ghost and teehistorian file under some paths, one [`Row`] each (`twcodec
//! scan`).
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("sample.map"), twcodec_testkit::sample::datafile())?;
//! let files = twcodec_tools::scan::find(&[dir.path()])?;
//! let rows: Vec<_> = twcodec_tools::scan::scan(&files, &Default::default())?.collect();
//! let map = rows[0].map.as_ref().unwrap();
//! assert_eq!((map.game_width, map.game_height), (Some(12), Some(8)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A file that fails to read or decode is a row with its `error`, never the end of the run.
//! Rows come in the order of the files, whatever the threads do: [`scan`] works through the
//! files in batches, each spread over rayon's threads and given back in order, so that memory
//! stays bounded by a batch however many files there are.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::dump::hex;
use twcodec::demo::Demo;
use twcodec::ghost::Ghost;
use twcodec::items::item_kind;
use twcodec::map::{DataItem, Decode, Layer, Map, Severity};
use twcodec::sniff::{sniff, FileKind};
use twcodec::Datafile;
use twcodec::Error;

/// What [`scan`] does for each file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScanOptions {
    /// Inflate and check all content (every data item, every tile, every demo chunk), not only
    /// what the items and headers say.
    pub deep: bool,
    /// Threads; `None` for rayon's global pool (one per core).
    pub jobs: Option<usize>,
}

/// Builder methods: `ScanOptions::default().deep(..)`, each setting the field of its name.
impl ScanOptions {
    /// Sets [`ScanOptions::deep`].
    pub fn deep(self, deep: bool) -> ScanOptions {
        ScanOptions { deep, ..self }
    }

    /// Sets [`ScanOptions::jobs`] (a number, or `None` for one thread per core).
    pub fn jobs(self, jobs: impl Into<Option<usize>>) -> ScanOptions {
        ScanOptions {
            jobs: jobs.into(),
            ..self
        }
    }
}

/// What a file is, by its first bytes ([`sniff`](twcodec::sniff)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A datafile (`DATA` or `ATAD`): a map.
    Map,
    /// A demo (`TWDEMO`).
    Demo,
    /// A DDNet ghost (`TWGHOST`).
    Ghost,
    /// A DDNet teehistorian file (the UUID of `teehistorian@ddnet.tw`).
    Teehistorian,
    /// None of them.
    Other,
}

impl Row {
    /// The row of a place that could not be read ([`Found::Unreadable`]).
    pub fn unreadable(path: &Path, error: &Error) -> Row {
        Row {
            path: path.display().to_string(),
            kind: Kind::Other,
            size: 0,
            sha256: None,
            crc32: None,
            error: Some(error.to_string()),
            map: None,
            demo: None,
            ghost: None,
            teehistorian: None,
        }
    }
}

/// One file of a scan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The file, as found.
    pub path: String,
    /// What it is.
    pub kind: Kind,
    /// Its size in bytes.
    pub size: u64,
    /// SHA-256 of the file, in hex (what DDNet compares maps by).
    pub sha256: Option<String>,
    /// CRC-32 of the file, in hex (what demo headers and the 0.6 protocol name maps by).
    pub crc32: Option<String>,
    /// Why the file could not be read or decoded.
    pub error: Option<String>,
    /// A map's summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map: Option<MapSummary>,
    /// A demo's summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demo: Option<DemoSummary>,
    /// A ghost's summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ghost: Option<GhostSummary>,
    /// A teehistorian file's summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teehistorian: Option<TeehistorianSummary>,
}

/// What a map holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MapSummary {
    /// Datafile version, 3 or 4.
    pub datafile_version: i32,
    /// `ddnet`, `teeworlds07` or `teeworlds03`.
    pub form: String,
    /// Items in the file.
    pub items: usize,
    /// Data items in the file.
    pub data_items: usize,
    /// Items by kind (`layer: 9`, `image: 3`, ...).
    pub item_kinds: BTreeMap<&'static str, usize>,
    /// Layers by kind (`tiles: 4`, `game: 1`, `quads: 2`, ...).
    pub layer_kinds: BTreeMap<&'static str, usize>,
    /// Groups.
    pub groups: usize,
    /// Width of the game layer in tiles.
    pub game_width: Option<i32>,
    /// Height of the game layer in tiles.
    pub game_height: Option<i32>,
    /// Images embedded in the map.
    pub images_embedded: usize,
    /// Images loaded by name from the game's `mapres`.
    pub images_external: usize,
    /// Sounds embedded in the map.
    pub sounds_embedded: usize,
    /// Sounds without data.
    pub sounds_external: usize,
    /// Envelopes.
    pub envelopes: usize,
    /// Problems DDNet refuses the map for ([`Severity::Error`]: what strict loading refuses
    /// and `twcodec check` counts as errors). Without [`ScanOptions::deep`], those found
    /// without decoding the layers' content.
    pub errors: usize,
    /// Other problems.
    pub warnings: usize,
    /// The first problem, as text.
    pub first_problem: Option<String>,
}

/// What a demo holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DemoSummary {
    /// Demo version, 3 to 6.
    pub demo_version: u8,
    /// Network protocol of the recording (`0.6 626fce9a778df4d4`).
    pub net_version: String,
    /// The map's name.
    pub map_name: String,
    /// The embedded map's size in bytes.
    pub map_size: u32,
    /// The map's CRC-32 from the header, in hex.
    pub map_crc32: String,
    /// Length in seconds, from the header.
    pub length: i32,
    /// `client` or `server`.
    pub recorded_by: String,
    /// With `deep`: ticks replayed.
    pub ticks: Option<usize>,
    /// With `deep`: message chunks.
    pub messages: Option<usize>,
}

/// What a ghost holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GhostSummary {
    /// Ghost version, 4 to 6.
    pub ghost_version: u8,
    /// The player's name.
    pub owner: String,
    /// The map's name.
    pub map_name: String,
    /// The race time in milliseconds, from the header.
    pub time_ms: i32,
    /// Characters, from the header.
    pub num_ticks: i32,
    /// With `deep`: the characters read, as DDNet's client reads them.
    pub characters: Option<usize>,
}

/// What a teehistorian file holds: its header's main fields, and with `deep` its records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TeehistorianSummary {
    /// The header's `game_uuid`.
    pub game_uuid: Option<String>,
    /// `server_name`.
    pub server_name: Option<String>,
    /// `start_time`.
    pub start_time: Option<String>,
    /// `game_type`.
    pub game_type: Option<String>,
    /// `map_name`.
    pub map_name: Option<String>,
    /// With `deep`: records read (all, or up to the one that does not read: the row's error).
    pub records: Option<usize>,
    /// With `deep`: tick of the last record.
    pub last_tick: Option<i32>,
    /// With `deep`: whether the file ends with `FINISH` (a server that stopped normally).
    pub finished: Option<bool>,
    /// With `deep`: distinct client ids.
    pub players: Option<usize>,
}

/// The extensions [`find`] looks for: maps, demos, ghosts and teehistorian files.
pub const EXTENSIONS: &[&str] = &["map", "demo", "gho", "teehistorian"];

/// Every `.map`, `.demo`, `.gho` and `.teehistorian` file under `paths` (recursively; a file given by name is
/// taken whatever its name), sorted within each path, paths in the order given.
pub fn find(paths: &[impl AsRef<Path>]) -> Result<Vec<PathBuf>, Error> {
    find_with(paths, EXTENSIONS)
}

/// Every file under `paths` whose extension is one of `extensions` (recursively; a file given
/// by name is taken whatever its name), sorted within each path, paths in the order given.
/// The first place that cannot be read is an error: [`walk`] goes on past it.
pub fn find_with(paths: &[impl AsRef<Path>], extensions: &[&str]) -> Result<Vec<PathBuf>, Error> {
    walk(paths, extensions)
        .into_iter()
        .map(|found| match found {
            Found::File(path) => Ok(path),
            Found::Unreadable(_, error) => Err(error),
        })
        .collect()
}

/// What [`walk`] found at one place.
#[derive(Debug)]
pub enum Found {
    /// A file to read.
    File(PathBuf),
    /// A folder (or a file's place) that could not be read, and why: a row of its own, never
    /// the end of the run.
    Unreadable(PathBuf, Error),
}

/// Every file under `paths` whose extension is one of `extensions`, as [`find_with`], and
/// every place on the way that could not be read (a folder without permission, a tree too
/// deep, a loop of links) in its place among them. Links are followed, to files and to
/// folders (a loop is an [`Found::Unreadable`] place), as a user who links maps into a folder
/// expects.
pub fn walk(paths: &[impl AsRef<Path>], extensions: &[&str]) -> Vec<Found> {
    let mut found = Vec::new();
    for path in paths {
        let path = path.as_ref();
        if !path.is_dir() {
            found.push(Found::File(path.to_path_buf()));
            continue;
        }
        let walk = walkdir::WalkDir::new(path)
            .follow_links(true)
            .sort_by_file_name();
        for entry in walk {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    let at = e.path().unwrap_or(path).to_path_buf();
                    let io = match e.loop_ancestor() {
                        Some(ancestor) => std::io::Error::other(format!(
                            "a link back to {}: a loop, not followed",
                            ancestor.display()
                        )),
                        None => e
                            .into_io_error()
                            .unwrap_or_else(|| std::io::Error::other("cannot be walked")),
                    };
                    let error = Error::io("read the directory", &at, io);
                    found.push(Found::Unreadable(at, error));
                    continue;
                }
            };
            let wanted = (entry.path().extension())
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)));
            if !entry.file_type().is_dir() && wanted {
                found.push(Found::File(entry.into_path()));
            }
        }
    }
    found
}

/// Files per batch and thread: enough to keep the threads busy, few enough to stream.
const BATCH_PER_THREAD: usize = 32;

/// The rows of `files`, in their order, computed in parallel on `options.jobs` threads.
/// Fails only when the threads cannot be started.
pub fn scan<'f>(
    files: &'f [PathBuf],
    options: &'f ScanOptions,
) -> Result<impl Iterator<Item = Row> + 'f, Error> {
    in_order(files, options.jobs, move |path| scan_file(path, options))
}

/// `work` of each of `files`, in the files' order, computed in parallel on `jobs` threads
/// (`None`: rayon's global pool, one per core), a batch at a time so that memory stays
/// bounded by a batch. Fails only when the threads cannot be started.
pub fn in_order<'f, T: Send + 'f>(
    files: &'f [PathBuf],
    jobs: Option<usize>,
    work: impl Fn(&Path) -> T + Sync + 'f,
) -> Result<impl Iterator<Item = T> + 'f, Error> {
    let pool = match jobs {
        None => None,
        Some(jobs) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(jobs.max(1))
                .build()
                .map_err(|e| Error::limit(format!("cannot start {jobs} threads: {e}")))?,
        ),
    };
    let threads = pool
        .as_ref()
        .map_or_else(rayon::current_num_threads, |p| p.current_num_threads());
    let batch = BATCH_PER_THREAD * threads.max(1);
    Ok(files.chunks(batch).flat_map(move |chunk| {
        let run = || {
            (chunk.par_iter())
                .map(|path| work(path))
                .collect::<Vec<_>>()
        };
        match &pool {
            Some(pool) => pool.install(run),
            None => run(),
        }
    }))
}

/// The row of one file.
pub fn scan_file(path: &Path, options: &ScanOptions) -> Row {
    let mut row = Row {
        path: path.display().to_string(),
        kind: Kind::Other,
        size: 0,
        sha256: None,
        crc32: None,
        error: None,
        map: None,
        demo: None,
        ghost: None,
        teehistorian: None,
    };
    let max = twcodec::Limits::DEFAULT.max_file_size();
    let bytes = match twcodec::input::read_file(path, max, "Limits::max_file_size") {
        Ok(bytes) => bytes,
        Err(e) => {
            row.error = Some(e.to_string());
            return row;
        }
    };
    row.size = bytes.len() as u64;
    row.sha256 = Some(hex(&Sha256::digest(&bytes)));
    row.crc32 = Some(format!("{:08x}", crc32fast::hash(&bytes)));
    let sniffed = sniff(&bytes);
    row.kind = match sniffed {
        Some(FileKind::Datafile) => Kind::Map,
        Some(FileKind::Demo) => Kind::Demo,
        Some(FileKind::Ghost) => Kind::Ghost,
        Some(FileKind::Teehistorian) => Kind::Teehistorian,
        _ => Kind::Other,
    };
    let result = match (row.kind, sniffed) {
        (Kind::Map, _) => map_summary(bytes, options).map(|m| row.map = Some(m)),
        (Kind::Demo, _) => demo_summary(bytes, options).map(|d| row.demo = Some(d)),
        (Kind::Ghost, _) => ghost_summary(bytes, options).map(|g| row.ghost = Some(g)),
        (Kind::Teehistorian, _) => teehistorian_summary(bytes, options, &mut row),
        (_, Some(kind)) => Err(kind.wrong_kind("a map, a demo, a ghost or a teehistorian file")),
        (_, None) => Err(Error::malformed(
            "neither a map (DATA), a demo (TWDEMO), a ghost (TWGHOST) nor a teehistorian file \
             (its UUID): unknown magic",
        )),
    };
    row.error = result.err().map(|e| e.to_string());
    row
}

fn map_summary(bytes: Vec<u8>, options: &ScanOptions) -> Result<MapSummary, Error> {
    let datafile = Datafile::parse(&bytes)?;
    let mut item_kinds = BTreeMap::new();
    for type_id in datafile.type_ids() {
        let count = datafile.items_of_type(type_id).len();
        *item_kinds
            .entry(item_kind(&datafile, type_id).name())
            .or_default() += count;
    }
    let (items, data_items) = (datafile.items().len(), datafile.data_count());
    let datafile_version = datafile.version().number();
    let decode = match options.deep {
        true => Decode::All,
        false => Decode::Lazy,
    };
    let map = Map::from_datafile_owned(datafile, decode)?;
    if options.deep {
        // The map inflated its layers' content as it decoded it: every other data item
        // (names, pictures, sounds, settings, unused ones) is inflated here, so that each is
        // inflated once.
        let decoded: HashSet<i32> = map
            .layers()
            .iter()
            .filter_map(Layer::content_data)
            .collect();
        for index in 0..map.data_count() {
            let raw = i32::try_from(index).unwrap_or(i32::MAX);
            if let (false, Some(data)) =
                (decoded.contains(&raw), map.item_ref::<DataItem>(raw).get())
            {
                map.data(data)?;
            }
        }
    }
    let mut layer_kinds = BTreeMap::new();
    for layer in map.layers() {
        *layer_kinds.entry(layer.kind_name()).or_default() += 1;
    }
    let game = map.game_layer().map(|(_, game)| game.item());
    let problems = map.problems();
    let errors = (problems.iter())
        .filter(|p| p.severity == Severity::Error)
        .count();
    let images_external = map.images().iter().filter(|i| i.is_external()).count();
    let sounds_embedded = map.sounds().iter().filter(|s| s.item().data >= 0).count();
    Ok(MapSummary {
        datafile_version,
        form: format!("{:?}", map.form()).to_lowercase(),
        items,
        data_items,
        item_kinds,
        layer_kinds,
        groups: map.groups().len(),
        game_width: game.map(|g| g.width),
        game_height: game.map(|g| g.height),
        images_embedded: map.images().len() - images_external,
        images_external,
        sounds_embedded,
        sounds_external: map.sounds().len() - sounds_embedded,
        envelopes: map.envelopes().len(),
        errors,
        warnings: problems.len() - errors,
        first_problem: problems.first().map(ToString::to_string),
    })
}

fn demo_summary(bytes: Vec<u8>, options: &ScanOptions) -> Result<DemoSummary, Error> {
    let demo = Demo::from_bytes(bytes)?;
    let header = demo.header();
    let (mut ticks, mut messages) = (None, None);
    if options.deep {
        let (mut t, mut m) = (0, 0);
        for frame in demo.replay() {
            let frame = frame?;
            t += 1;
            m += frame.messages.len();
        }
        (ticks, messages) = (Some(t), Some(m));
    }
    Ok(DemoSummary {
        demo_version: demo.version(),
        net_version: header.net_version.to_string_lossy(),
        map_name: demo.map_name(),
        map_size: header.map_size,
        map_crc32: format!("{:08x}", header.map_crc),
        length: header.length,
        recorded_by: header.kind.to_string_lossy(),
        ticks,
        messages,
    })
}

fn ghost_summary(bytes: Vec<u8>, options: &ScanOptions) -> Result<GhostSummary, Error> {
    let ghost = Ghost::from_bytes(bytes)?;
    let characters = match options.deep {
        true => Some(ghost.decode()?.characters.len()),
        false => None,
    };
    Ok(GhostSummary {
        ghost_version: ghost.version(),
        owner: ghost.owner(),
        map_name: ghost.map_name(),
        time_ms: ghost.time_ms(),
        num_ticks: ghost.header().num_ticks,
        characters,
    })
}

/// A teehistorian file's summary, into `row`: with `deep`, the records up to one that does not
/// read, whose error is the row's.
fn teehistorian_summary(bytes: Vec<u8>, options: &ScanOptions, row: &mut Row) -> Result<(), Error> {
    let th = twcodec::teehistorian::Teehistorian::from_bytes(bytes)?;
    let field = |key: &str| th.header_str(key).map(str::to_string);
    let mut summary = TeehistorianSummary {
        game_uuid: field("game_uuid"),
        server_name: field("server_name"),
        start_time: field("start_time"),
        game_type: field("game_type"),
        map_name: field("map_name"),
        records: None,
        last_tick: None,
        finished: None,
        players: None,
    };
    let mut error = None;
    if options.deep {
        let records = crate::teehistorian::summary(&th);
        summary.records = Some(records.records);
        summary.last_tick = records.last_tick;
        summary.finished = Some(records.finished);
        summary.players = Some(records.players.len());
        error = records.error;
    }
    row.teehistorian = Some(summary);
    match error {
        Some(error) => Err(Error::malformed(error)),
        None => Ok(()),
    }
}

/// A row as one line of CSV: the columns of [`CSV_HEADER`], censuses as `kind=count`
/// joined by `;`.
#[derive(Debug, Serialize)]
struct CsvRow<'r> {
    path: &'r str,
    kind: Kind,
    size: u64,
    sha256: Option<&'r str>,
    crc32: Option<&'r str>,
    error: Option<&'r str>,
    datafile_version: Option<i32>,
    form: Option<&'r str>,
    items: Option<usize>,
    data_items: Option<usize>,
    item_kinds: Option<String>,
    layer_kinds: Option<String>,
    groups: Option<usize>,
    game_width: Option<i32>,
    game_height: Option<i32>,
    images_embedded: Option<usize>,
    images_external: Option<usize>,
    sounds_embedded: Option<usize>,
    sounds_external: Option<usize>,
    envelopes: Option<usize>,
    errors: Option<usize>,
    warnings: Option<usize>,
    first_problem: Option<&'r str>,
    demo_version: Option<u8>,
    net_version: Option<&'r str>,
    map_name: Option<&'r str>,
    map_size: Option<u32>,
    map_crc32: Option<&'r str>,
    length: Option<i32>,
    recorded_by: Option<&'r str>,
    ticks: Option<usize>,
    messages: Option<usize>,
    ghost_version: Option<u8>,
    owner: Option<&'r str>,
    time_ms: Option<i32>,
    num_ticks: Option<i32>,
    characters: Option<usize>,
    game_uuid: Option<&'r str>,
    server_name: Option<&'r str>,
    start_time: Option<&'r str>,
    game_type: Option<&'r str>,
    records: Option<usize>,
    last_tick: Option<i32>,
    finished: Option<bool>,
    players: Option<usize>,
}

fn census(counts: &BTreeMap<&'static str, usize>) -> String {
    (counts.iter())
        .map(|(kind, n)| format!("{kind}={n}"))
        .collect::<Vec<_>>()
        .join(";")
}

impl Row {
    /// Writes the row as one CSV record (after a header [`csv_writer`] writes).
    pub fn write_csv<W: std::io::Write>(&self, out: &mut csv::Writer<W>) -> csv::Result<()> {
        let (m, d, g) = (self.map.as_ref(), self.demo.as_ref(), self.ghost.as_ref());
        let t = self.teehistorian.as_ref();
        out.serialize(CsvRow {
            path: &self.path,
            kind: self.kind,
            size: self.size,
            sha256: self.sha256.as_deref(),
            crc32: self.crc32.as_deref(),
            error: self.error.as_deref(),
            datafile_version: m.map(|m| m.datafile_version),
            form: m.map(|m| m.form.as_str()),
            items: m.map(|m| m.items),
            data_items: m.map(|m| m.data_items),
            item_kinds: m.map(|m| census(&m.item_kinds)),
            layer_kinds: m.map(|m| census(&m.layer_kinds)),
            groups: m.map(|m| m.groups),
            game_width: m.and_then(|m| m.game_width),
            game_height: m.and_then(|m| m.game_height),
            images_embedded: m.map(|m| m.images_embedded),
            images_external: m.map(|m| m.images_external),
            sounds_embedded: m.map(|m| m.sounds_embedded),
            sounds_external: m.map(|m| m.sounds_external),
            envelopes: m.map(|m| m.envelopes),
            errors: m.map(|m| m.errors),
            warnings: m.map(|m| m.warnings),
            first_problem: m.and_then(|m| m.first_problem.as_deref()),
            demo_version: d.map(|d| d.demo_version),
            net_version: d.map(|d| d.net_version.as_str()),
            map_name: (d.map(|d| d.map_name.as_str()))
                .or(g.map(|g| g.map_name.as_str()))
                .or(t.and_then(|t| t.map_name.as_deref())),
            map_size: d.map(|d| d.map_size),
            map_crc32: d.map(|d| d.map_crc32.as_str()),
            length: d.map(|d| d.length),
            recorded_by: d.map(|d| d.recorded_by.as_str()),
            ticks: d.and_then(|d| d.ticks),
            messages: d.and_then(|d| d.messages),
            ghost_version: g.map(|g| g.ghost_version),
            owner: g.map(|g| g.owner.as_str()),
            time_ms: g.map(|g| g.time_ms),
            num_ticks: g.map(|g| g.num_ticks),
            characters: g.and_then(|g| g.characters),
            game_uuid: t.and_then(|t| t.game_uuid.as_deref()),
            server_name: t.and_then(|t| t.server_name.as_deref()),
            start_time: t.and_then(|t| t.start_time.as_deref()),
            game_type: t.and_then(|t| t.game_type.as_deref()),
            records: t.and_then(|t| t.records),
            last_tick: t.and_then(|t| t.last_tick),
            finished: t.and_then(|t| t.finished),
            players: t.and_then(|t| t.players),
        })
    }

    /// Whether the file could not be read or decoded (its `error`).
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Whether the file is a map with errors: problems DDNet refuses the map for
    /// ([`Severity::Error`], what `twcodec check` counts as errors and `check --strict` fails
    /// on).
    pub fn has_errors(&self) -> bool {
        self.map.as_ref().is_some_and(|m| m.errors > 0)
    }
}

/// A CSV writer whose first record (written with the first row) is the header.
pub fn csv_writer<W: std::io::Write>(out: W) -> csv::Writer<W> {
    csv::WriterBuilder::new().has_headers(true).from_writer(out)
}
