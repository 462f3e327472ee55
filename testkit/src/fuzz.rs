//! The bodies of the fuzz targets (`fuzz/`, cargo-fuzz), here so that `tests/fuzz_smoke.rs`
//! runs the same code over seeds and mutated inputs under plain `cargo test`.
//!
//! Each body feeds arbitrary bytes to an entry point and uses whatever it accepts, and checks
//! the round trips the library promises; it panics only when a promise breaks (a panic inside
//! the library is a finding too). Inputs are read under [`FUZZ_LIMITS`], so that what a small
//! input may ask for stays within the fuzzer's memory.
//!
//! | target | entry points |
//! |---|---|
//! | `datafile` | [`Datafile::parse_with`], every lookup, every data item, the dumps, write -> read |
//! | `map_lenient`, `map_strict` | [`Map::from_datafile_with`] in each mode, the dumps |
//! | `map_roundtrip` | map write -> read -> write, identical the second time, also after converting to 0.7 and back |
//! | `tiles_07` | 0.7 tile expansion and compression: expand -> compress -> expand |
//! | `snapshot` | [`Snapshot`] from ints and from packed ints, write -> read |
//! | `delta` | [`SnapshotDelta`] from ints and packed, write -> read, apply, create -> apply |
//! | `packing` | variable-int unpacking, pack -> unpack |
//! | `huffman` | Huffman decoding, compress -> decompress |
//! | `demo` | [`Demo`]: header, chunks, replay, the embedded map, the dumps, messages decode -> encode |
//! | `demo_edit` | a demo written back (the same bytes), cut between two ticks the input's last 8 bytes give (the cut replays as the demo over its ticks), recorded again with [`DemoWriter`](twcodec::demo::DemoWriter), without its map and with the sample's |
//! | `teehistorian` | [`Teehistorian`]: header, every record (each written back to its bytes, each known extension payload encoded back), the summary and JSON lines of the tools |
//! | `ghost` | [`Ghost`](twcodec::ghost::Ghost): header, chunks, items, decode, the bytes back, re-encoding its items ([`GhostWriter`](twcodec::ghost::GhostWriter)) read back to the same items |
//! | `packet` | 0.7 packets: chunks, snapshot messages, joining, rebuilding, messages decode -> encode |
//! | `pack` | [`mapdir::pack`](twcodec_tools::mapdir::pack) of the sample's directory after the file edits the input describes (numbers changed, bytes overwritten, files added, deleted, moved); a map it builds is read back |
//! | `render` | [`render`](twcodec_tools::render::render) of a map at two small sizes and views, under [`FUZZ_RENDER_WORK`]; the [visual diff](twcodec_tools::visual_diff) of the map against itself (no changes) and against the sample, both ways |
//! | `demo_render` | a demo drawn ([`DemoRenderer`](twcodec_tools::render::world::DemoRenderer)): up to 12 instants of its [`Timeline`](twcodec_tools::render::world::Timeline) at 10 a second, 64 x 36 pixels, over its map (the sample's when its own does not load), with game pictures of a few pixels, under [`FUZZ_RENDER_WORK`] |
//! | `merge` | two maps from one input: [`Map::append`] and [`Map::replace_area`] (between them and into itself), the results written and read back |
//! | `transform` | a whole-map edit the first byte picks ([`Map::transform`], [`Map::reframe`], [`Map::shift`], [`Map::scale_time`]) on the map the rest holds, then write -> read -> write |
//! | `optimize` | a byte choosing the steps, then a map: [`Map::optimize`]; the physics layers keep their kinds and sizes, and the result is written and read back |
//! | `check` | a first byte picking: a map, checked for gameplay ([`twcodec_tools::check::ddnet::check`]) and by a rules file with every rule; or a rules file ([`twcodec_tools::check::rules::RuleSet::parse`]) applied to the sample |
//! | `automap` | an automapper rules file read ([`twcodec_tools::automap::Rules::parse`]), each configuration applied twice to a small layer with the same seed: the same tiles |
//! | `tile_edits` | a header of 8 bytes, then a map: [`Map::fill_game_tiles`] with the op and layer it picks, and [`Map::replace_tiles`] with the tiles, flags and area it gives; the results written and read back, each edit done twice doing nothing the second time |

use std::io;
use std::path::Path;

use twcodec_schema::map::tile::{cast_tiles, compress_skip, expand_skip, tiles_as_bytes, Tile};

use twcodec::demo::{ChunkContent, Demo};
use twcodec::huffman;
use twcodec::map::{Group, LayerContent, LoadMode, Map, MapForm};
use twcodec::netmsg;
use twcodec::packet::{AssembledSnap, Packet7, SnapMessage};
use twcodec::schema::teehistorian::Record;
use twcodec::snap::{self, packing, SizeTable, Snapshot, SnapshotDelta};
use twcodec::teehistorian::Teehistorian;
use twcodec::{Datafile, Limits};
use twcodec_tools::dump::{self, DumpOptions};

/// The limits fuzzing reads under: 1 MiB per data item, 8 MiB in all, 256 Ki tiles per layer
/// (1 MiB of tiles), 8 MiB of decoded layer content. What a small input may ask for stays far
/// below a fuzzer's memory, and inflating (zlib, instrumented too) stays a small part of each
/// run: the code past the inflate does the same for a 1 MiB item as for a 64 MiB one, and
/// hitting a limit is fuzzed as well.
pub const FUZZ_LIMITS: Limits = Limits::DEFAULT
    .with_max_data_size(1 << 20)
    .with_max_total_data(8 << 20)
    .with_max_tiles(256 << 10)
    .with_max_layer_data(8 << 20);

/// The work budget of the `render` target ([`Limits::max_render_work`]): about 4 million steps,
/// a few milliseconds of drawing. A map that needs more ends with the limit's error, which is
/// fuzzed as well.
pub const FUZZ_RENDER_WORK: u64 = 1 << 22;

/// The fuzz targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// The datafile reader.
    Datafile,
    /// Map loading, lenient.
    MapLenient,
    /// Map loading, strict.
    MapStrict,
    /// Map write -> read -> write.
    MapRoundTrip,
    /// 0.7 tile expansion and compression.
    Tiles07,
    /// Snapshots.
    Snapshot,
    /// Snapshot deltas.
    Delta,
    /// Variable-length ints.
    Packing,
    /// Huffman coding.
    Huffman,
    /// Demos.
    Demo,
    /// Demos written: back, cut, recorded again, another map or none.
    DemoEdit,
    /// Ghosts.
    Ghost,
    /// 0.7 packets.
    Packet,
    /// DDNet teehistorian files.
    Teehistorian,
    /// The map directory form: `pack` of an edited directory.
    Pack,
    /// Drawing maps.
    Render,
    /// Drawing demos.
    DemoRender,
    /// Between maps: append, replace an area.
    Merge,
    /// Optimizing maps: every step, or the steps the first byte picks.
    Optimize,
    /// Whole-map edits: mirror, flip, rotate, reframe, shift, scale time.
    Transform,
    /// Automapper rule files: read, then applied to a small layer.
    Automap,
    /// Map checks: gameplay checks and rules files.
    Check,
    /// Tiles changed in place: game tiles from a layer, one tile replaced by another.
    TileEdits,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 23] = [
        Target::Datafile,
        Target::MapLenient,
        Target::MapStrict,
        Target::MapRoundTrip,
        Target::Tiles07,
        Target::Snapshot,
        Target::Delta,
        Target::Packing,
        Target::Huffman,
        Target::Demo,
        Target::DemoEdit,
        Target::Ghost,
        Target::Packet,
        Target::Teehistorian,
        Target::Pack,
        Target::Render,
        Target::DemoRender,
        Target::Merge,
        Target::Optimize,
        Target::Transform,
        Target::Automap,
        Target::Check,
        Target::TileEdits,
    ];

    /// The target's name, as the fuzz binary is called.
    pub fn name(self) -> &'static str {
        match self {
            Target::Datafile => "datafile",
            Target::MapLenient => "map_lenient",
            Target::MapStrict => "map_strict",
            Target::MapRoundTrip => "map_roundtrip",
            Target::Tiles07 => "tiles_07",
            Target::Snapshot => "snapshot",
            Target::Delta => "delta",
            Target::Packing => "packing",
            Target::Huffman => "huffman",
            Target::Demo => "demo",
            Target::DemoEdit => "demo_edit",
            Target::Ghost => "ghost",
            Target::Packet => "packet",
            Target::Teehistorian => "teehistorian",
            Target::Pack => "pack",
            Target::Render => "render",
            Target::DemoRender => "demo_render",
            Target::Merge => "merge",
            Target::Optimize => "optimize",
            Target::Automap => "automap",
            Target::Check => "check",
            Target::Transform => "transform",
            Target::TileEdits => "tile_edits",
        }
    }

    /// Runs the target's body on `data`.
    pub fn run(self, data: &[u8]) {
        match self {
            Target::Datafile => datafile(data),
            Target::MapLenient => map(data, LoadMode::Lenient),
            Target::MapStrict => map(data, LoadMode::Strict),
            Target::MapRoundTrip => map_roundtrip(data),
            Target::Tiles07 => tiles_07(data),
            Target::Snapshot => snapshot(data),
            Target::Delta => delta(data),
            Target::Packing => packing_ints(data),
            Target::Huffman => huffman_coding(data),
            Target::Demo => demo(data),
            Target::DemoEdit => demo_edit(data),
            Target::Ghost => ghost(data),
            Target::Packet => packet(data),
            Target::Teehistorian => teehistorian(data),
            Target::Pack => pack_dir(data),
            Target::Render => render(data),
            Target::DemoRender => demo_render(data),
            Target::Merge => merge(data),
            Target::Optimize => optimize(data),
            Target::Automap => automap(data),
            Target::Check => check(data),
            Target::Transform => transform(data),
            Target::TileEdits => tile_edits(data),
        }
    }

    /// Seed inputs: made from the built-in samples and, when `corpus` is given (the
    /// `../shared/corpus` directory), from its smaller maps, its demos and packets.
    pub fn seeds(self, corpus: Option<&Path>) -> Vec<Vec<u8>> {
        seeds(self, corpus)
    }
}

/// The sample's game snapshots of ticks 1000 to 1009 recorded with [`DemoWriter`] over the
/// sample map.
///
/// [`DemoWriter`]: twcodec::demo::DemoWriter
fn sample_demo() -> Option<Vec<u8>> {
    use twcodec::demo::{DemoInfo, DemoWriter};
    let map = crate::sample::datafile();
    let info = DemoInfo::default();
    let mut writer = DemoWriter::new(io::Cursor::new(Vec::new()), &info, &map).ok()?;
    for tick in 1000..1010 {
        writer
            .snapshot(tick, &crate::sample::game_snapshot(tick))
            .ok()?;
    }
    Some(writer.finish().ok()?.into_inner())
}

/// A DDNet `data/` folder of game pictures a few pixels big (`game.png` 32 x 16, skins of
/// both kinds 8 x 4 and less, ...), made once for the process: what a render cuts, at its
/// smallest.
fn tiny_game_data() -> Option<&'static Path> {
    use std::sync::OnceLock;
    static DIR: OnceLock<Option<tempfile::TempDir>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().ok()?;
        let picture = |w: u32, h: u32| twcodec_tools::assets::Picture {
            width: w,
            height: h,
            rgba: (0..w * h * 4).map(|i| (i * 37 % 256) as u8).collect(),
        };
        let files: [(&str, u32, u32); 11] = [
            ("game.png", 32, 16),
            ("particles.png", 8, 8),
            ("emoticons.png", 4, 4),
            ("skins/default.png", 8, 4),
            ("skins/x_ninja.png", 16, 8),
            ("skins/body/standard.png", 2, 2),
            ("skins/marking/standard.png", 1, 1),
            ("skins/decoration/standard.png", 2, 1),
            ("skins/hands/standard.png", 2, 1),
            ("skins/feet/standard.png", 4, 2),
            ("skins/eyes/standard.png", 2, 4),
        ];
        for (name, w, h) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent()?).ok()?;
            std::fs::write(&path, picture(w, h).to_png().ok()?).ok()?;
        }
        Some(dir)
    });
    dir.as_ref().map(|dir| dir.path())
}

/// Draws a demo: up to 12 instants of its timeline at 10 a second, 64 x 36 pixels, following
/// its local player, over its map (the sample's when its own does not load under
/// [`FUZZ_LIMITS`]), with [`tiny_game_data`]; within [`FUZZ_RENDER_WORK`] or its error.
pub fn demo_render(data: &[u8]) {
    use twcodec_tools::render::world::{DemoRenderOptions, DemoRenderer, Timeline};
    let Ok(demo) = Demo::from_bytes(data.to_vec()) else {
        return;
    };
    let limits = FUZZ_LIMITS.with_max_render_work(FUZZ_RENDER_WORK);
    let map = demo.map_with(limits).or_else(|_| {
        let datafile = Datafile::parse_with(&crate::sample::datafile(), limits)?;
        Map::from_datafile(&datafile)
    });
    let Ok(map) = map else {
        return;
    };
    let mut options = DemoRenderOptions::default().size(64, 36).mapres(None);
    options.data = tiny_game_data().map(Path::to_path_buf);
    let Ok(mut renderer) = DemoRenderer::with_map(map, &options) else {
        return;
    };
    let Ok(timeline) = Timeline::new(&demo, 10.0) else {
        return;
    };
    for world in timeline.take(12) {
        let Ok(world) = world else {
            break;
        };
        match renderer.render(&world) {
            Ok(rendered) => {
                assert_eq!((rendered.picture.width, rendered.picture.height), (64, 36));
                assert_eq!(rendered.picture.rgba.len(), 64 * 36 * 4);
                assert!(rendered.work <= FUZZ_RENDER_WORK, "{} steps", rendered.work);
            }
            Err(error) => {
                assert_eq!(error.kind(), twcodec::ErrorKind::LimitExceeded, "{error}");
            }
        }
    }
}

/// Edits the sample's unpacked directory as `data` says, then packs it: `pack` may refuse, never
/// panic, and a map it builds reads back. `data` is a list of edits, each 3 bytes then a
/// payload: what (`op % 8`), which file (an index into the directory's files, sorted), the
/// payload's length, the payload. Edits: set the `k`-th number of a text file to an int of the
/// payload, overwrite bytes, append, cut, delete, rename within its folder, move to another
/// folder, write a new file.
pub fn pack_dir(data: &[u8]) {
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let root = dir.path();
    if twcodec_tools::mapdir::unpack(&crate::sample::datafile(), root).is_err() {
        return;
    }
    let mut rest = data;
    let mut edits = 0;
    while rest.len() >= 3 && edits < 32 {
        edits += 1;
        let (op, which, len) = (rest[0], usize::from(rest[1]), usize::from(rest[2]));
        let payload = &rest[3..(3 + len).min(rest.len())];
        rest = &rest[(3 + len).min(rest.len())..];
        let files = files_under(root);
        let folders = folders_under(root);
        let Some(file) = files.get(which % files.len().max(1)) else {
            continue;
        };
        let name = payload_name(payload);
        let _ = match op % 8 {
            0 => {
                // The k-th number of the text set to an int of the payload.
                let Some(text) = read_own(file).ok().and_then(|b| String::from_utf8(b).ok()) else {
                    continue;
                };
                let k = payload.first().copied().unwrap_or(0) as usize;
                let value = payload
                    .get(1..5)
                    .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .unwrap_or(-1);
                std::fs::write(file, set_number(&text, k, value))
            }
            1 => {
                let Ok(mut bytes) = read_own(file) else {
                    continue;
                };
                let at = payload.first().copied().unwrap_or(0) as usize % (bytes.len() + 1);
                let end = (at + payload.len().saturating_sub(1)).min(bytes.len());
                bytes.splice(at..end, payload.iter().skip(1).copied());
                std::fs::write(file, bytes)
            }
            2 => std::fs::OpenOptions::new()
                .append(true)
                .open(file)
                .and_then(|mut f| io::Write::write_all(&mut f, payload)),
            3 => std::fs::OpenOptions::new()
                .write(true)
                .open(file)
                .and_then(|f| f.set_len(payload.first().copied().unwrap_or(0) as u64)),
            4 => std::fs::remove_file(file),
            5 => std::fs::rename(file, file.with_file_name(format!("{name}.toml"))),
            6 => match folders
                .get(payload.first().copied().unwrap_or(0) as usize % folders.len().max(1))
            {
                Some(folder) => {
                    std::fs::rename(file, folder.join(file.file_name().unwrap_or_default()))
                }
                None => continue,
            },
            _ => match folders.get(which % folders.len().max(1)) {
                Some(folder) => std::fs::write(folder.join(format!("{name}.toml")), payload),
                None => continue,
            },
        };
    }
    if let Ok(bytes) = twcodec_tools::mapdir::pack(root) {
        let datafile = Datafile::parse_with(&bytes, FUZZ_LIMITS);
        if let Ok(datafile) = datafile {
            let _ = Map::from_datafile_with(&datafile, LoadMode::Lenient);
        }
    }
}

/// Every file under `dir`, by path.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => stack.push(path),
                Ok(_) => files.push(path),
                Err(_) => {}
            }
        }
    }
    files.sort();
    files
}

/// Every folder under `dir` (itself too), by path.
fn folders_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut folders = vec![dir.to_path_buf()];
    let mut at = 0;
    while at < folders.len() {
        if let Ok(entries) = std::fs::read_dir(&folders[at]) {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|k| k.is_dir()) {
                    folders.push(entry.path());
                }
            }
        }
        at += 1;
    }
    folders.sort();
    folders
}

/// A file name made of a payload: letters, digits, `-` and `_` only, never empty.
fn payload_name(payload: &[u8]) -> String {
    let name: String = (payload.iter().take(24))
        .map(|&b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' => b as char,
            _ => char::from(b'a' + b % 26),
        })
        .collect();
    if name.is_empty() {
        "new".to_string()
    } else {
        name
    }
}

/// `text` with its `k`-th number (counting runs of digits, with their `-`) set to `value`.
fn set_number(text: &str, k: usize, value: i32) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 12);
    let (mut i, mut n, mut copied) = (0, 0, 0);
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = if i > 0 && bytes[i - 1] == b'-' {
                i - 1
            } else {
                i
            };
            let mut end = i;
            while end < bytes.len() && bytes[end].is_ascii_digit() {
                end += 1;
            }
            if n == k {
                out.push_str(&text[copied..start]);
                out.push_str(&value.to_string());
                copied = end;
                break;
            }
            n += 1;
            i = end;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// Reads every part of a datafile and writes it back.
pub fn datafile(data: &[u8]) {
    let Ok(df) = Datafile::parse_with(data, FUZZ_LIMITS) else {
        return;
    };
    for type_id in df.type_ids() {
        let _ = df.items_of_type(type_id);
    }
    for &(type_id, uuid) in df.uuid_types() {
        assert_eq!(
            df.type_of_uuid(uuid).is_some(),
            df.uuid_of_type(type_id).is_some()
        );
        let _ = df.items_of_uuid(uuid);
    }
    for index in 0..df.data_count() {
        if let Ok(bytes) = df.data(index) {
            assert_eq!(Some(bytes.len()), df.data_size(index));
        }
    }
    let _ = dump::info(&df, &mut io::sink());
    let _ = dump::items(&df, None, &mut io::sink());
    let _ = dump::decoded_items(&df, None, &mut io::sink());
    let mut out = Vec::new();
    if df.write(&mut out).is_ok() {
        let again = Datafile::parse_with(&out, FUZZ_LIMITS).expect("a written datafile reads");
        assert_eq!(again.items(), df.items(), "items survive a write");
    }
}

/// Loads a map in `mode` and renders it.
pub fn map(data: &[u8], mode: LoadMode) {
    let Ok(df) = Datafile::parse_with(data, FUZZ_LIMITS) else {
        return;
    };
    let Ok(map) = Map::from_datafile_with(&df, mode) else {
        return;
    };
    if mode == LoadMode::Strict {
        assert!(map
            .problems()
            .iter()
            .all(|problem| problem.severity != twcodec::map::Severity::Error));
    }
    // One dump per mode: rendering walks every tile, and the fuzzer's time is better spent on
    // new inputs than on rendering each one twice.
    match mode {
        LoadMode::Lenient => drop(dump::map_text(
            &map,
            DumpOptions::default().preview(true),
            &mut io::sink(),
        )),
        // Strict, and any mode the codec adds later.
        _ => drop(dump::map_json(
            &map,
            DumpOptions::default().preview(false),
            &mut io::sink(),
        )),
    }
    for layer in map.layers() {
        let _ = layer.image(&map);
        if let LayerContent::Tiles(tiles) | LayerContent::Game(tiles) = layer.content() {
            let _ = tiles.color_envelope(&map);
        }
    }
    for image in map.images() {
        if let twcodec::map::Ref::To(data) = image.data(&map) {
            let _ = map.data(data);
        }
    }
}

/// Draws a map read under [`FUZZ_LIMITS`] and a work budget of [`FUZZ_RENDER_WORK`]: the whole
/// map in 48 x 32 pixels, and a camera the input's checksum places, zooms and times, with the
/// entities view at 60 %, 40 pixels wide. No files are read (no `mapres`, the plain entities
/// tileset). Each render gives a picture of the size asked for, within the budget, or the
/// error of a limit.
pub fn render(data: &[u8]) {
    use twcodec_tools::render::{RenderOptions, Size, View};
    let limits = FUZZ_LIMITS.with_max_render_work(FUZZ_RENDER_WORK);
    let Ok(df) = Datafile::parse_with(data, limits) else {
        return;
    };
    let Ok(map) = Map::from_datafile(&df) else {
        return;
    };
    let hash = crc32fast::hash(data);
    let plain = RenderOptions::default().mapres(None).entities_tileset(None);
    let whole = plain
        .clone()
        .size(Size::Pixels {
            width: 48,
            height: 32,
        })
        .view(View::Whole);
    // A camera anywhere in the first 256 x 256 tiles, at one of four zooms.
    let camera = plain
        .size(Size::Width(40))
        .view(View::Camera {
            x: f64::from(hash & 0xFF),
            y: f64::from((hash >> 8) & 0xFF),
            zoom: [0.25, 1.0, 4.0, 1e4][(hash >> 16) as usize % 4],
        })
        .time_ms(f64::from(hash >> 18))
        .entities(60);
    for options in [whole, camera] {
        // The PNG drawn piece by piece (`render_png`) is the picture's PNG, or the same error.
        let png = twcodec_tools::render::render_png(&map, &options);
        match twcodec_tools::render::render(&map, &options) {
            Ok(rendered) => {
                let picture = &rendered.picture;
                let (width, height) = (picture.width as usize, picture.height as usize);
                assert_eq!(picture.rgba.len(), width * height * 4);
                assert!(width == 48 || width == 40, "a picture {width} wide");
                assert!(rendered.work <= FUZZ_RENDER_WORK, "{} steps", rendered.work);
                let png = png.expect("render_png fails where render does not");
                assert!(
                    png.png == picture.to_png().expect("a PNG"),
                    "render_png differs"
                );
            }
            Err(error) => {
                assert_eq!(error.kind(), twcodec::ErrorKind::LimitExceeded, "{error}");
                let png_error = png.err().map(|e| e.to_string());
                assert_eq!(png_error, Some(error.to_string()));
            }
        }
    }
    visual_diff(&map);
}

/// The visual diff of a fuzzed map ([`twcodec_tools::visual_diff`]): against itself, nothing
/// changed; against the sample and the sample against it, a picture 64 pixels wide of the
/// area of the changes (or the error of a limit), whose outlines are where the picture is.
fn visual_diff(map: &Map) {
    use twcodec_tools::visual_diff::{changes, visual_diff, VisualDiffOptions};
    match changes(map, map) {
        Ok(found) => assert!(found.regions.is_empty(), "{:?}", found.regions),
        Err(error) => assert_eq!(error.kind(), twcodec::ErrorKind::LimitExceeded, "{error}"),
    }
    let Ok(sample) = crate::sample::map() else {
        return;
    };
    let options = VisualDiffOptions::default()
        .width(64)
        .mapres(None)
        .entities_tileset(None);
    for (old, new) in [(map, &sample), (&sample, map)] {
        match visual_diff(old, new, &options) {
            Ok(drawn) => {
                let picture = &drawn.picture;
                assert_eq!(picture.width, 64);
                let pixels = picture.width as usize * picture.height as usize;
                assert_eq!(picture.rgba.len(), pixels * 4);
                assert!(drawn.area.iter().all(|v| v.is_finite()), "{:?}", drawn.area);
            }
            Err(error) => assert_eq!(error.kind(), twcodec::ErrorKind::LimitExceeded, "{error}"),
        }
    }
}

/// Between maps: two maps from one input (a 4-byte little-endian length of the first, the
/// first, the second; an unreadable second map is the first again), read leniently. An area
/// the input's checksum places is copied from the second map into the first and from the
/// first into itself, and the second is appended to the first. Each may refuse, never panic,
/// and what it gives writes, and the written map reads back.
pub fn merge(data: &[u8]) {
    use twcodec::map::edit::TileRect;
    let Some((len, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let len = (u32::from_le_bytes(*len) as usize).min(rest.len());
    let (a, b) = rest.split_at(len);
    let load = |bytes: &[u8]| {
        let df = Datafile::parse_with(bytes, FUZZ_LIMITS).ok()?;
        Map::from_datafile(&df).ok()
    };
    let Some(first) = load(a) else {
        return;
    };
    let second = load(b).unwrap_or_else(|| first.clone());
    let hash = crc32fast::hash(data);
    let area = TileRect::new(
        hash & 0x1F,
        (hash >> 5) & 0x1F,
        ((hash >> 10) & 0x1F) + 1,
        ((hash >> 15) & 0x1F) + 1,
    );
    let to = ((hash >> 20) & 0x1F, (hash >> 25) & 0x1F);
    for source in [&second, &first] {
        let mut map = first.clone();
        if map.replace_area(source, area, to).is_ok() {
            written(&map);
        }
    }
    let mut map = first.clone();
    if map.append(&second).is_ok() {
        written(&map);
    }
}

/// Rules with every rule, for the `check` target's maps.
const CHECK_RULES: &str = "ddnet = true\n\
[limits]\nmax-file-size = 1000\nmax-width = 10\nmax-height = 10\nmax-layers = 2\n\
max-groups = 1\nmax-images = 1\nmax-envelopes = 1\nmax-sounds = 0\n\
[tiles]\nrequired = [\"spawn\", \"tele:tele-in\"]\nforbidden = [\"freeze\", \"switch:24\"]\n\
[settings]\nallowed = [\"sv_*\"]\nforbidden = [\"tune*\"]\n\
[info]\nrequired = [\"author\", \"license\"]\nlicenses = [\"CC0\"]\n\
[images]\nexternal = false\nmax-width = 64\nmax-height = 64\nmax-data-size = 100\n\
[sounds]\nallowed = false\nmax-data-size = 10\n\
[severity]\n\"no-spawn\" = \"warning\"\n\"load\" = \"off\"\n";

/// `check`: an even first byte makes the rest a map, checked for gameplay and by
/// [`CHECK_RULES`]; an odd one makes it a rules file, read and, when it reads, applied to the
/// sample. No panic; every tile a finding names lies in its layer.
pub fn check(data: &[u8]) {
    use twcodec_tools::check::{ddnet, load_findings, rules::RuleSet};
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (map, rules) = if pick % 2 == 0 {
        let Ok(map) = Map::parse_with(rest, LoadMode::Lenient) else {
            return;
        };
        let Ok(rules) = RuleSet::parse(CHECK_RULES, "fuzz.toml") else {
            panic!("the fuzz rules read");
        };
        (map, rules)
    } else {
        let Ok(rules) = RuleSet::parse(&String::from_utf8_lossy(rest), "fuzz.toml") else {
            return;
        };
        let Ok(map) = crate::sample::map() else {
            return;
        };
        (map, rules)
    };
    let mut findings = load_findings(&map);
    findings.extend(ddnet::check(&map));
    findings = rules.apply_severity(findings);
    findings.extend(rules.check(&map, Some(rest.len() as u64)));
    for finding in &findings {
        let _ = finding.text();
        let _ = finding.github("a,b:c.map");
        let Some(place) = &finding.layer else {
            continue;
        };
        let size = map
            .layers()
            .get(place.index)
            .and_then(|l| l.tilemap())
            .map(|t| (t.width, t.height));
        if let Some((w, h)) = size {
            for [x, y] in &finding.tiles {
                assert!(
                    i64::from(*x) < i64::from(w) && i64::from(*y) < i64::from(h),
                    "a finding's tile outside its layer"
                );
            }
        }
    }
}

/// Reads `data` as an automapper rules file; when it reads, applies each configuration to a
/// 16 x 16 layer made from the input's checksum, with a seed from it: no panic, and the same
/// tiles twice.
pub fn automap(data: &[u8]) {
    use twcodec::map::Grid;
    use twcodec::schema::map::tile::Tile;
    use twcodec_tools::automap::Rules;
    let text = String::from_utf8_lossy(data);
    let Ok(rules) = Rules::parse(&text, "fuzz.rules") else {
        return;
    };
    let hash = crc32fast::hash(data);
    let tiles: Vec<Tile> = (0..256u32)
        .map(|i| Tile {
            id: (hash.rotate_left(i % 32) as u8) % 4,
            flags: (i as u8) & 11,
            ..Tile::default()
        })
        .collect();
    for config in rules.configs.iter().take(4) {
        if config.work(256) > 1 << 24 {
            continue;
        }
        let Some(mut a) = Grid::new(16, 16, tiles.clone()) else {
            return;
        };
        let mut b = a.clone();
        config.apply(&mut a, hash);
        config.apply(&mut b, hash);
        assert!(a == b, "the same seed gave other tiles");
    }
}

/// Optimizes a map: the first byte picks the steps (bit `i` runs `Step::ALL[i]`), the rest is
/// the map. The steps may refuse, never panic; the optimized map writes and reads back, with
/// its physics layers as they were.
pub fn optimize(data: &[u8]) {
    use twcodec::map::edit::{OptimizeOptions, Step};
    let Some((&steps, bytes)) = data.split_first() else {
        return;
    };
    let Ok(df) = Datafile::parse_with(bytes, FUZZ_LIMITS) else {
        return;
    };
    let Ok(map) = Map::from_datafile(&df) else {
        return;
    };
    let mut options = OptimizeOptions::default().level(1);
    for (i, step) in Step::ALL.into_iter().enumerate() {
        if steps & (1 << i) == 0 {
            options = options.skip(step);
        }
    }
    let physics = |map: &Map| -> Vec<(String, Option<i32>, Option<i32>)> {
        (map.layers().iter())
            .filter(|l| l.is_physics())
            .map(|l| {
                let size = l.tilemap().map(|t| (t.width, t.height));
                (
                    l.kind_name().to_string(),
                    size.map(|s| s.0),
                    size.map(|s| s.1),
                )
            })
            .collect()
    };
    let mut optimized = map.clone();
    if optimized.optimize(&options).is_ok() {
        assert_eq!(
            physics(&optimized),
            physics(&map),
            "optimize changed the physics"
        );
        written(&optimized);
    }
}

/// Writes an edited map; if that works, the written map reads back (without limits: the bytes
/// are the writer's own).
fn written(map: &Map) {
    let Ok(bytes) = map
        .to_datafile()
        .and_then(|df| df.compression_level(1).to_vec())
    else {
        return;
    };
    let df = Datafile::parse_with(&bytes, Limits::UNLIMITED).expect("an edited map parses");
    Map::from_datafile(&df).expect("an edited map resolves");
}

/// Writes a map, reads and writes it again: the second write gives the same bytes. The same
/// after converting to Teeworlds 0.7, and back to DDNet.
pub fn map_roundtrip(data: &[u8]) {
    let Ok(df) = Datafile::parse_with(data, FUZZ_LIMITS) else {
        return;
    };
    let Ok(mut map) = Map::from_datafile(&df) else {
        return;
    };
    // Unchanged, the map writes the data it was read with: the same limits hold.
    same_twice(&map, FUZZ_LIMITS);
    for form in [MapForm::Teeworlds07, MapForm::Ddnet] {
        if map.convert(form).is_err() {
            return;
        }
        // Converted to DDNet, skip-compressed 0.7 tile layers are stored whole and RGB images
        // widen to RGBA, so the written map can declare more than the limits of its source
        // allow. It is read back without limits: the bytes are the writer's own, and reading
        // them allocates what writing them held, no more.
        same_twice(&map, Limits::UNLIMITED);
    }
}

/// How many edits the first byte of a `transform` input picks from (its low 3 bits; the
/// high 5 bits are the edit's amount).
const TRANSFORM_EDITS: u8 = 8;

/// The `transform` target: the first byte picks a whole-map edit and its amount, the rest is
/// a map read leniently. An edit that works leaves a map that writes, reads back and writes
/// the same bytes; one that fails is an error, never a panic.
pub fn transform(data: &[u8]) {
    use twcodec::map::{Margins, Transform};
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(df) = Datafile::parse_with(rest, FUZZ_LIMITS) else {
        return;
    };
    let Ok(mut map) = Map::from_datafile(&df) else {
        return;
    };
    let amount = i32::from(pick >> 3) - 16;
    let game_group = map
        .game_layer()
        .and_then(|(layer, _)| map.group_of(layer))
        .or_else(|| map.refs::<Group>().next());
    let done = match (pick % TRANSFORM_EDITS, game_group) {
        (edit @ 0..=4, _) => map.transform(Transform::ALL[usize::from(edit)]),
        (5, Some(group)) => map.reframe(group, Margins::uniform(amount)),
        (6, Some(group)) => map.shift(group, amount, -amount),
        (7, _) => map.scale_time(f64::from(pick >> 3) / 4.0),
        _ => return,
    };
    if done.is_ok() {
        // Extended layers can outgrow the source's limits: read back without them, as
        // `map_roundtrip` does after converting.
        same_twice(&map, Limits::UNLIMITED);
    }
}

/// The length of a `tile_edits` input's header, before the map.
const TILE_EDITS_HEADER: usize = 8;

/// The `tile_edits` target: 8 bytes, then a map read leniently. The bytes: which op (the low
/// 4 bits of the first, modulo 13) and switches (bit 4: `from` has flags, the orientation
/// bits of the fifth byte; bit 5: `to` has flags, the sixth byte; bit 6: an area), the layer
/// (an index, modulo the layers), the tile to replace, the tile to write, and the area's x,
/// y, width and height (255 stands for `u32::MAX`). [`Map::fill_game_tiles`] and
/// [`Map::replace_tiles`] each run on a copy of the map: either may refuse, never panic.
/// What they give writes and reads back, its physics layers as large as its game layer, and
/// the same edit again changes nothing.
pub fn tile_edits(data: &[u8]) {
    use twcodec::map::edit::{TileRect, TileSpec};
    use twcodec::map::{GameTileOp, Layer};
    let Some((header, rest)) = data.split_first_chunk::<TILE_EDITS_HEADER>() else {
        return;
    };
    let Ok(df) = Datafile::parse_with(rest, FUZZ_LIMITS) else {
        return;
    };
    let Ok(map) = Map::from_datafile(&df) else {
        return;
    };
    let [pick, layer, from, to, x, y, w, h] = *header;
    let count = map.layers().len();
    if count == 0 {
        return;
    }
    let index = usize::from(layer) % count;
    // A reference of the copy it edits (a clone is another map).
    let layer_of = |map: &Map| map.refs::<Layer>().nth(index);
    let physics_sizes = |map: &Map| {
        let game = map
            .game_layer()
            .map(|(_, t)| (t.item().width, t.item().height));
        (map.layers().iter())
            .filter(|l| l.is_physics())
            .all(|l| l.tilemap().map(|t| (t.width, t.height)) == game)
    };
    let op = GameTileOp::ALL[usize::from(pick & 0x0F) % GameTileOp::ALL.len()];
    let mut edited = map.clone();
    let sizes_before = physics_sizes(&map);
    let Some(layer) = layer_of(&edited) else {
        return;
    };
    if let Ok(report) = edited.fill_game_tiles(layer, op) {
        if sizes_before || report.enlarged.is_some() {
            assert!(
                physics_sizes(&edited),
                "game tiles left physics layers of other sizes"
            );
        }
        written(&edited);
        // References to layers are renewed when a layer was added before others.
        if let Some(again) = edited.refs::<Layer>().nth(report.layer) {
            let second = edited.fill_game_tiles(again, op);
            let second = second.expect("game tiles that worked work again");
            assert_eq!(
                (second.changed, second.front, second.enlarged),
                (0, 0, None),
                "game tiles twice changed more than once"
            );
        }
    }
    let mut from = TileSpec::new(from);
    if pick & 0x10 != 0 {
        from = from.with_flags(x & 11);
    }
    let mut to = TileSpec::new(to);
    if pick & 0x20 != 0 {
        to = to.with_flags(y);
    }
    let side = |v: u8| if v == 255 { u32::MAX } else { u32::from(v) };
    let area = (pick & 0x40 != 0).then(|| TileRect::new(side(x), side(y), side(w), side(h)));
    let mut edited = map.clone();
    let Some(layer) = layer_of(&edited) else {
        return;
    };
    if let Ok(report) = edited.replace_tiles(layer, from, to, area) {
        written(&edited);
        // What was written is another id: none of it is left to replace.
        if to.id != from.id {
            let second = edited.replace_tiles(layer, from, to, area);
            let second = second.expect("a replacement that worked works again");
            assert_eq!(
                second.replaced,
                0,
                "{}: tiles were left to replace",
                report.fact()
            );
        }
    }
}

/// Writes `map`; if that works, the written map reads under `limits`, and writes to the same
/// bytes. Zlib level 1 keeps deflating from taking most of the run; the property holds at every
/// level.
fn same_twice(map: &Map, limits: Limits) {
    let write = |map: &Map| map.to_datafile()?.compression_level(1).to_vec();
    let Ok(first) = write(map) else {
        return;
    };
    let df = Datafile::parse_with(&first, limits).expect("a written map parses");
    let again = Map::from_datafile(&df).expect("a written map resolves");
    let second = write(&again).expect("a map read back writes");
    assert!(
        first == second,
        "the second write of a map differs from the first"
    );
}

/// 0.7 tile expansion: the first 4 bytes are the tile count (below 2^20), the rest compressed
/// tiles. What expands compresses and expands back to the same tiles.
pub fn tiles_07(data: &[u8]) {
    let Some((count, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let count = (u32::from_le_bytes(*count) & 0xF_FFFF) as usize;
    let whole = rest.len() / 4 * 4;
    let Ok(compressed) = cast_tiles::<Tile>(&rest[..whole]) else {
        return;
    };
    let Ok(tiles) = expand_skip(compressed, count) else {
        return;
    };
    assert_eq!(tiles.len(), count);
    let again = compress_skip(&tiles);
    assert!(again.len() <= tiles.len());
    let expanded = expand_skip(&again, count).expect("compressed tiles expand");
    assert!(expanded == tiles, "tiles change through compression");
}

/// Snapshots from ints and from packed ints; what reads writes back to the same input, and its
/// objects of either protocol encode back to their items.
pub fn snapshot(data: &[u8]) {
    let ints = whole_ints(data);
    if let Ok(snapshot) = Snapshot::from_ints(&ints) {
        assert_eq!(snapshot.to_ints(), ints);
        let _ = snapshot.checksum();
        assert_eq!(snapshot.sorted(), snapshot);
        let _ = snapshot.extended_types().count();
        for protocol in [snap::Protocol::Ddnet06, snap::Protocol::Teeworlds07] {
            for (object, item) in snapshot.objects(protocol).zip(snapshot.items()) {
                assert_eq!(object.encode().expect("an object encodes"), item.data);
            }
            let _ = dump::snapshot_text(&snapshot, Some(protocol), &mut io::sink());
            let _ = dump::snapshot_json(&snapshot, Some(protocol), &mut io::sink());
        }
    }
    if let Ok(snapshot) = Snapshot::from_packed(data) {
        let again = Snapshot::from_packed(&snapshot.to_packed()).expect("packed snapshots read");
        assert_eq!(again.to_ints(), snapshot.to_ints());
    }
}

/// Deltas from ints and packed ints, under both protocols' sizes, applied to the sample, to the
/// empty snapshot and to a snapshot from the input; what applies gives a delta back.
pub fn delta(data: &[u8]) {
    let ints = whole_ints(data);
    // The first two bytes cut the input into a packed base snapshot and a packed delta.
    let base = match data.split_first_chunk::<2>() {
        Some((cut, rest)) => {
            let cut = usize::from(u16::from_le_bytes(*cut)).min(rest.len());
            let (snapshot, delta) = rest.split_at(cut);
            Snapshot::from_packed(snapshot).ok().zip(Some(delta))
        }
        None => None,
    };
    for sizes in [SizeTable::ddnet_06(), SizeTable::teeworlds_07()] {
        if let Ok(delta) = SnapshotDelta::from_ints(&ints, &sizes) {
            if !ints.is_empty() {
                assert_eq!(delta.to_ints(&sizes).expect("a read delta writes"), ints);
            }
            let _ = dump::delta_text(
                &delta,
                &sizes,
                Some(snap::Protocol::Ddnet06),
                &mut io::sink(),
            );
            apply_both_ways(&crate::sample::game_snapshot(3), &delta);
            apply_both_ways(&Snapshot::empty(), &delta);
        }
        if let Ok(delta) = SnapshotDelta::from_packed(data, &sizes) {
            apply_both_ways(&Snapshot::empty(), &delta);
        }
        if let Some((base, packed)) = &base {
            if let Ok(delta) = SnapshotDelta::from_packed(packed, &sizes) {
                apply_both_ways(base, &delta);
            }
        }
    }
}

/// Applies `delta` to `old`; when that works, the delta from `old` to the result applies to the
/// same result.
fn apply_both_ways(old: &Snapshot, delta: &SnapshotDelta) {
    let Ok(new) = old.apply(delta) else {
        return;
    };
    let again = SnapshotDelta::create(old, &new).expect("a delta between applied snapshots");
    assert_eq!(old.apply(&again).expect("a created delta applies"), new);
}

/// Variable-length ints: what unpacks packs and unpacks to the same ints.
pub fn packing_ints(data: &[u8]) {
    if let Ok(ints) = packing::unpack_ints(data) {
        assert!(ints.len() <= data.len());
        let packed = packing::pack_ints(&ints);
        assert!(
            packed.len() <= data.len(),
            "the packed form is the shortest"
        );
        assert_eq!(
            packing::unpack_ints(&packed).expect("packed ints unpack"),
            ints
        );
    }
}

/// Huffman coding: what decodes encodes and decodes to the same bytes, and any bytes encode.
pub fn huffman_coding(data: &[u8]) {
    if let Ok(decoded) = huffman::decompress(data, 1 << 16) {
        let coded = huffman::compress(&decoded);
        assert_eq!(
            huffman::decompress(&coded, decoded.len()).expect("coded data decodes"),
            decoded
        );
    }
    let coded = huffman::compress(data);
    assert_eq!(
        huffman::decompress(&coded, data.len()).expect("coded data decodes"),
        data
    );
}

/// Ghosts: header, chunks, items, decode; the bytes back; the items re-encoded and read back.
pub fn ghost(data: &[u8]) {
    use twcodec::ghost::{Ghost, GhostWriter};
    let Ok(ghost) = Ghost::from_bytes_with(data.to_vec(), FUZZ_LIMITS) else {
        return;
    };
    assert_eq!(ghost.to_bytes(), data);
    let _ = ghost.decode();
    let _ = ghost.check_ddnet();
    let items: Result<Vec<_>, _> = ghost.items().collect();
    let (Ok(items), Ok(writer)) = (items, GhostWriter::from_ghost(&ghost)) else {
        return;
    };
    // The writer refuses what DDNet refuses (no characters, a bad time, ...); what it writes
    // reads back to the same items.
    let Ok(bytes) = writer.finish() else { return };
    let again = Ghost::from_bytes(bytes).expect("a ghost GhostWriter wrote reads back");
    let again: Vec<_> = again
        .items()
        .map(|item| item.expect("its items decode"))
        .collect();
    let same = |a: &[twcodec::ghost::Item], b: &[twcodec::ghost::Item]| {
        a.iter()
            .map(|i| (i.item_type, &i.ints))
            .eq(b.iter().map(|i| (i.item_type, &i.ints)))
    };
    assert!(same(&items, &again), "re-encoded items differ");
}

/// Demos: header, every chunk, the replay, the embedded map, the dumps.
pub fn demo(data: &[u8]) {
    let Ok(demo) = Demo::from_bytes(data.to_vec()) else {
        return;
    };
    // The chunk headers and the embedded map (`Demo::map_with`), under the fuzz limits.
    let _ = dump::demo_info_with(&demo, FUZZ_LIMITS, &mut io::sink());
    // The replay, every snapshot's checksum.
    let _ = dump::demo_ticks(&demo, &mut io::sink());
    // The messages, which the replay keeps undecoded: what decodes encodes back.
    let protocol = demo.protocol().into();
    for chunk in demo.chunks() {
        let Ok(chunk) = chunk else { break };
        if let ChunkContent::Message(_) = chunk.content {
            if let (Ok(bytes), Ok(message)) = (chunk.message_bytes(), chunk.message(protocol)) {
                let _ = dump::message_line(&message);
                let again = netmsg::encode_padded(&message, protocol);
                assert_eq!(again.ok(), Some(bytes), "a demo message encodes back");
            }
        }
    }
}

/// One tick of a replay: the tick, the snapshot's ints, the messages' bytes; none when the
/// replay fails.
type ReplayTick = (i32, Option<Vec<i32>>, Vec<Vec<u8>>);

fn replay_ticks(demo: &Demo) -> Option<Vec<ReplayTick>> {
    let mut ticks = Vec::new();
    for frame in demo.replay() {
        let frame = frame.ok()?;
        let messages = (frame.messages.iter())
            .map(|chunk| chunk.message_bytes().ok())
            .collect::<Option<Vec<_>>>()?;
        ticks.push((frame.tick, frame.snapshot.map(|s| s.to_ints()), messages));
    }
    Some(ticks)
}

/// Demos written: back as they were read (the same bytes); cut between the ticks the last 8
/// bytes give (a cut that is made reads, and replays as the demo over its ticks when the
/// demo replays); recorded again from the replay (the same replay); without the map and
/// with the sample's (the same chunks).
pub fn demo_edit(data: &[u8]) {
    use twcodec::demo::{DemoInfo, DemoWriter};
    let Ok(demo) = Demo::from_bytes(data.to_vec()) else {
        return;
    };
    assert!(
        demo.to_bytes().ok().as_deref() == Some(data),
        "a demo is written back byte for byte"
    );
    let replayed = replay_ticks(&demo);
    let tail: [u8; 8] = data[data.len().saturating_sub(8)..]
        .iter()
        .copied()
        .chain([0; 8])
        .take(8)
        .collect::<Vec<_>>()
        .try_into()
        .expect("8 bytes");
    let range = demo.tick_range().ok().flatten();
    if let Some((first, last)) = range {
        let span = i64::from(last) - i64::from(first) + 1;
        let pick = |bytes: [u8; 4]| {
            (i64::from(first) + i64::from(u32::from_le_bytes(bytes)) % span.max(1)) as i32
        };
        let (a, b) = (
            pick(tail[..4].try_into().unwrap()),
            pick(tail[4..].try_into().unwrap()),
        );
        let (from, to) = (a.min(b), a.max(b));
        if let Ok((bytes, summary)) = demo.cut(from, to) {
            let cut = Demo::from_bytes(bytes).expect("a cut reads");
            assert!(from <= summary.first_tick && summary.first_tick <= summary.last_tick);
            assert!(summary.last_tick <= to && summary.length >= 0);
            if let Some(replayed) = &replayed {
                // From the first tick in the range with a snapshot, while the ticks stay in
                // the range.
                let expected: Vec<ReplayTick> = (replayed.iter().cloned())
                    .skip_while(|t| !((from..=to).contains(&t.0) && t.1.is_some()))
                    .take_while(|t| (summary.first_tick..=to).contains(&t.0))
                    .collect();
                assert!(
                    replay_ticks(&cut).as_ref() == Some(&expected),
                    "a cut replays as the demo over its ticks"
                );
            }
        }
    }
    // Recorded again from a replay that works, into the same version (4 at least: markers).
    if let Some(replayed) = replayed.as_ref().filter(|r| r.len() < 2000) {
        let info = DemoInfo {
            version: demo.version(),
            net_version: demo.header().net_version.to_string_lossy(),
            ..DemoInfo::default()
        };
        if let Ok(mut writer) = DemoWriter::new(io::Cursor::new(Vec::new()), &info, &[]) {
            let mut recorded = true;
            for (tick, snapshot, messages) in replayed {
                let snapshot = snapshot
                    .as_ref()
                    .and_then(|ints| Snapshot::from_ints(ints).ok());
                let written = match &snapshot {
                    Some(snapshot) => writer.snapshot(*tick, snapshot),
                    None => writer.tick(*tick, false),
                };
                recorded &=
                    written.is_ok() && messages.iter().all(|m| writer.message_bytes(m).is_ok());
                if !recorded {
                    break;
                }
            }
            if recorded {
                let bytes = writer.finish().expect("a recording ends").into_inner();
                let again = Demo::from_bytes(bytes).expect("a recording reads");
                assert!(
                    replay_ticks(&again).as_ref() == Some(replayed),
                    "a demo recorded again replays the same"
                );
            }
        }
    }
    if let Ok(stripped) = demo.strip_map() {
        let stripped = Demo::from_bytes(stripped).expect("a demo without its map reads");
        assert_eq!(stripped.chunks().count(), demo.chunks().count());
    }
    if let Ok(replaced) = demo.replace_map(&crate::sample::datafile(), None) {
        let replaced = Demo::from_bytes(replaced).expect("a demo with another map reads");
        assert_eq!(replaced.chunks().count(), demo.chunks().count());
    }
}

/// Teehistorian files: the header, every record written back to its bytes, every known
/// extension payload encoded back, the tools' summary and JSON lines.
pub fn teehistorian(data: &[u8]) {
    let Ok(th) = Teehistorian::from_bytes_with(data.to_vec(), FUZZ_LIMITS) else {
        return;
    };
    for at in th.records() {
        let Ok(at) = at else { break };
        let mut bytes = Vec::new();
        at.record
            .write(&mut bytes)
            .expect("a record that reads writes");
        assert_eq!(
            bytes,
            &data[at.offset..at.offset + at.len],
            "a record writes back to its bytes"
        );
        if let Record::Ex(ex) = &at.record {
            if let Some(payload) = ex.payload() {
                assert_eq!(payload.encode(), ex.data.0, "a payload encodes back");
            }
        }
        let _ = twcodec_tools::teehistorian::record_json(&at);
    }
    let _ = twcodec_tools::teehistorian::info(&th, &mut io::sink());
}

/// 0.7 packets: chunks, snapshot messages, joined and rebuilt against the empty snapshot.
pub fn packet(data: &[u8]) {
    let Ok(packet) = Packet7::parse(data) else {
        return;
    };
    let _ = packet.control_message();
    let _ = packet.trailing_bytes();
    for chunk in packet.chunks() {
        let Ok(chunk) = chunk else { break };
        let _ = chunk.message();
        let protocol = netmsg::Protocol::Teeworlds07;
        if let Ok(message) = netmsg::decode(chunk.data, protocol) {
            let again = netmsg::encode(&message, protocol);
            assert_eq!(
                again.ok().as_deref(),
                Some(chunk.data),
                "a message encodes back"
            );
        }
        if let Ok(Some(message)) = SnapMessage::parse(&chunk) {
            if let Ok(snap) = AssembledSnap::join(&[message]) {
                let _ = snap.rebuild(&Snapshot::empty());
            }
        }
    }
}

/// The whole 4-byte ints of `data` (little-endian).
fn whole_ints(data: &[u8]) -> Vec<i32> {
    data.chunks_exact(4)
        .map(|int| i32::from_le_bytes([int[0], int[1], int[2], int[3]]))
        .collect()
}

/// Largest corpus file taken as a seed.
const MAX_SEED: usize = 64 << 10;

/// The sample with a quads layer of quads at the ends of the 22.10 range: over the whole
/// picture, outside it, and across it.
fn extreme_quads() -> Option<Vec<u8>> {
    let mut map = crate::sample::map().ok()?;
    let group = map.refs::<Group>().last()?;
    let (min, max) = (i32::MIN, i32::MAX);
    let quad = |corners| crate::sample::quad(corners, [255, 0, 0, 128]);
    let quads = vec![
        quad([(min, min), (max, min), (min, max), (max, max)]),
        quad([(max, max), (max, max), (max, max), (max, max)]),
        quad([(0, 0), (2048, 0), (max, max), (max, max)]),
        quad([(min, 0), (max, 0), (min, 1024), (max, 1024)]),
    ];
    let layer = twcodec::map::Layer::new_quads("Extreme", quads).ok()?;
    map.add_layer(group, layer).ok()?;
    map.to_bytes().ok()
}

/// The files of a corpus directory up to [`MAX_SEED`] bytes, by name.
fn corpus_files(dir: &Path, extension: &str) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == extension))
        .collect();
    paths.sort();
    // Through the library's bounded reader: regular files up to MAX_SEED bytes, others left out.
    (paths.iter())
        .filter_map(|path| twcodec::input::read_file(path, MAX_SEED as u64, "the seed size").ok())
        .collect()
}

/// A file of the unpacked directory the `pack` target edits, through the library's bounded
/// reader (a regular file, no link, at most `FUZZ_LIMITS.max_data_size` bytes), as `pack`
/// itself reads it.
fn read_own(file: &Path) -> Result<Vec<u8>, twcodec::Error> {
    twcodec::input::read_own_file(file, FUZZ_LIMITS.max_data_size() as u64, "max_data_size")
}

/// The payloads of every data chunk of the corpus demos, with their decoded ints.
fn demo_chunks(corpus: Option<&Path>) -> Vec<(ChunkKindSeed, Vec<u8>, Vec<i32>)> {
    let Some(corpus) = corpus else {
        return Vec::new();
    };
    let mut chunks = Vec::new();
    for bytes in corpus_files(&corpus.join("demos"), "demo") {
        let Ok(demo) = Demo::from_bytes(bytes) else {
            continue;
        };
        for chunk in demo.chunks().flatten() {
            let kind = match chunk.content {
                ChunkContent::Snapshot(_) => ChunkKindSeed::Snapshot,
                ChunkContent::Delta(_) => ChunkKindSeed::Delta,
                _ => ChunkKindSeed::Other,
            };
            if let (Some(payload), Ok(ints)) = (chunk.payload(), chunk.ints()) {
                chunks.push((kind, payload.to_vec(), ints));
            }
        }
    }
    chunks
}

/// What a demo chunk seeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChunkKindSeed {
    Snapshot,
    Delta,
    Other,
}

fn seeds(target: Target, corpus: Option<&Path>) -> Vec<Vec<u8>> {
    let sample = crate::sample::datafile();
    let maps = || {
        let mut maps = vec![sample.clone()];
        if let Ok(mut map) = crate::sample::map() {
            if map.convert(MapForm::Teeworlds07).is_ok() {
                maps.extend(map.to_bytes());
            }
        }
        if let Some(corpus) = corpus {
            maps.extend(corpus_files(&corpus.join("maps"), "map"));
        }
        maps
    };
    let sample_snapshots = [1000, 1001].map(crate::sample::game_snapshot);
    let sample_delta = SnapshotDelta::create(&sample_snapshots[0], &sample_snapshots[1])
        .and_then(|delta| delta.to_ints(&SizeTable::ddnet_06()))
        .unwrap_or_default();
    match target {
        Target::Datafile | Target::MapLenient | Target::MapStrict | Target::MapRoundTrip => maps(),
        // DDNet's rule files, when the corpus has them, and a small one of each keyword.
        Target::Automap => {
            let mut seeds = vec![
                b"[A]\nIndex 1\nPos 0 -1 EMPTY\nRandom 3\nNewRun\nIndex 2 XFLIP\n\
                Pos 1 0 INDEX 1 OR 2 ROTATE\nRandom 50%\nModulo 2 2 0 1\nNoDefaultRule\n\
                NoLayerCopy\n"
                    .to_vec(),
            ];
            if let Some(corpus) = corpus {
                seeds.extend(corpus_files(&corpus.join("automap"), "rules"));
            }
            seeds.retain(|seed| seed.len() <= MAX_SEED);
            seeds
        }
        // Maps (byte 0), then rules files (byte 1): the documented example and one of each rule.
        Target::Check => {
            let mut seeds: Vec<Vec<u8>> = (maps().into_iter())
                .map(|map| [vec![0], map].concat())
                .collect();
            seeds.push([&[1][..], CHECK_RULES.as_bytes()].concat());
            seeds.retain(|seed| seed.len() <= MAX_SEED);
            seeds
        }
        // A byte of steps (all), then a map.
        Target::Optimize => (maps().into_iter())
            .map(|map| [vec![0xff], map].concat())
            .filter(|seed| seed.len() <= MAX_SEED)
            .collect(),
        // Each op on the sample's tiles layer, and replacing its game tiles (solid by
        // unhookable) whole and in an area; each other map with one op on a layer.
        Target::TileEdits => {
            let header = |pick: u8, layer: u8| [pick, layer, 1, 3, 1, 2, 4, 3];
            let mut seeds: Vec<Vec<u8>> = (0..13u8)
                .map(|op| [&header(op, 3)[..], &sample].concat())
                .collect();
            seeds.push([&header(0x40, 2)[..], &sample].concat());
            seeds.push([&header(0x70, 5)[..], &sample].concat());
            for (n, map) in maps().iter().enumerate().skip(1) {
                seeds.push([&header(n as u8 % 13, n as u8), map.as_slice()].concat());
            }
            seeds.retain(|seed| seed.len() <= MAX_SEED);
            seeds
        }
        Target::Transform => {
            // The sample with every edit, each other map with one; amount 1 (17 << 3).
            let pick = |edit: usize| (edit % usize::from(TRANSFORM_EDITS)) as u8 | 17 << 3;
            let mut seeds: Vec<Vec<u8>> = (0..usize::from(TRANSFORM_EDITS))
                .map(|edit| [&[pick(edit)][..], &sample].concat())
                .collect();
            for (n, map) in maps().iter().enumerate().skip(1) {
                seeds.push([&[pick(n)][..], map].concat());
            }
            seeds
        }
        Target::Render => {
            let mut seeds = maps();
            seeds.extend(extreme_quads());
            seeds
        }
        // Each map after the sample, and the sample after each map.
        Target::Merge => {
            let pair = |a: &[u8], b: &[u8]| {
                let mut seed = (a.len() as u32).to_le_bytes().to_vec();
                seed.extend_from_slice(a);
                seed.extend_from_slice(b);
                seed
            };
            let mut seeds = Vec::new();
            for map in maps() {
                seeds.push(pair(&map, &sample));
                seeds.push(pair(&sample, &map));
            }
            seeds.retain(|seed| seed.len() <= MAX_SEED);
            seeds
        }
        Target::Tiles07 => {
            let mut seeds = Vec::new();
            for bytes in maps() {
                let Ok(map) = Map::parse(&bytes) else {
                    continue;
                };
                for layer in map.layers() {
                    if let LayerContent::Tiles(tiles) | LayerContent::Game(tiles) = layer.content()
                    {
                        if let Some(grid) = tiles.grid() {
                            let count = grid.tiles().len() as u32;
                            let mut seed = count.to_le_bytes().to_vec();
                            seed.extend(tiles_as_bytes(&compress_skip(grid.tiles())));
                            if seed.len() <= MAX_SEED {
                                seeds.push(seed);
                            }
                        }
                    }
                }
            }
            seeds
        }
        Target::Snapshot => {
            let mut seeds: Vec<Vec<u8>> = sample_snapshots
                .iter()
                .flat_map(|s| [snap::ints_to_bytes(&s.to_ints()), s.to_packed()])
                .collect();
            for (kind, _, ints) in demo_chunks(corpus) {
                if kind == ChunkKindSeed::Snapshot {
                    seeds.push(packing::pack_ints(&ints));
                    seeds.push(snap::ints_to_bytes(&ints));
                }
            }
            seeds
        }
        Target::Delta => {
            let mut seeds = vec![
                snap::ints_to_bytes(&sample_delta),
                packing::pack_ints(&sample_delta),
            ];
            // A packed base and a packed delta behind a 2-byte cut.
            let base = sample_snapshots[0].to_packed();
            let mut cut = (base.len() as u16).to_le_bytes().to_vec();
            cut.extend(&base);
            cut.extend(packing::pack_ints(&sample_delta));
            seeds.push(cut);
            for (kind, _, ints) in demo_chunks(corpus) {
                if kind == ChunkKindSeed::Delta {
                    seeds.push(snap::ints_to_bytes(&ints));
                }
            }
            seeds
        }
        Target::Packing => {
            let mut seeds = vec![packing::pack_ints(&sample_delta)];
            seeds.extend(
                demo_chunks(corpus)
                    .into_iter()
                    .map(|(_, _, ints)| packing::pack_ints(&ints)),
            );
            seeds
        }
        Target::Pack => vec![
            // No edit; each kind of edit once on the first files.
            Vec::new(),
            vec![0, 40, 5, 3, 9, 0, 0, 0],
            vec![0, 41, 5, 0, 0xff, 0xff, 0xff, 0xff],
            vec![1, 30, 3, 0, b'x', b'y'],
            vec![4, 33, 0],
            vec![5, 34, 4, b'0', b'0', b'0', b'1'],
            vec![6, 35, 1, 2],
            vec![
                7, 3, 9, b'k', b'i', b'n', b'd', b'=', b'"', b'x', b'"', b'\n',
            ],
        ],
        Target::Huffman => {
            let mut seeds = vec![huffman::compress(&packing::pack_ints(&sample_delta))];
            seeds.extend(
                demo_chunks(corpus)
                    .into_iter()
                    .map(|(_, payload, _)| payload),
            );
            seeds
        }
        // The files DDNet's own writer made (tests/fixtures/teehistorian).
        Target::Teehistorian => corpus_files(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/teehistorian"),
            "teehistorian",
        ),
        Target::Demo | Target::DemoEdit => corpus.map_or_else(Vec::new, |corpus| {
            corpus_files(&corpus.join("demos"), "demo")
        }),
        // The corpus' small demos, and the sample's game snapshots recorded over the sample.
        Target::DemoRender => {
            let mut seeds = corpus.map_or_else(Vec::new, |corpus| {
                corpus_files(&corpus.join("demos"), "demo")
            });
            seeds.extend(sample_demo());
            seeds
        }
        // Ghosts DDNet's recorder wrote, and one twcodec wrote in version 4.
        Target::Ghost => vec![
            include_bytes!("../../tests/fixtures/ghosts/short.gho").to_vec(),
            include_bytes!("../../tests/fixtures/ghosts/notick.gho").to_vec(),
            include_bytes!("../../tests/fixtures/ghosts/unknown_type.gho").to_vec(),
            include_bytes!("../../tests/fixtures/ghosts/written_v4_mixed.gho").to_vec(),
        ],
        Target::Packet => corpus.map_or_else(Vec::new, |corpus| {
            corpus_files(
                &corpus
                    .join("demos")
                    .join("snapshot_vectors")
                    .join("teeworlds-go"),
                "bin",
            )
        }),
    }
}
