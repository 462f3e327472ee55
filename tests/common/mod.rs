//! Shared test helpers: the corpus location, insta settings, and fixture generators.
//!
//! Every fixture is made here, by the project's own writer or by patching its output; see
//! `tests/fixtures/README.md`.

#![allow(dead_code)]

pub mod hostile;

use std::path::{Path, PathBuf};

use twcodec::schema::datafile::Magic;
use twcodec::schema::uuid::{uuid_from_name, uuid_to_ints, Uuid};
use twcodec::{DatafileWriter, Version};

/// Bytes allocated while `f` runs, for the test binaries whose global allocator is dhat's
/// (`tests/memory.rs`, `tests/memory_maps.rs`): an upper bound on the peak of `f`.
pub fn allocated(name: &str, f: impl FnOnce()) -> u64 {
    let before = dhat::HeapStats::get().total_bytes;
    f();
    let bytes = dhat::HeapStats::get().total_bytes - before;
    eprintln!("{name}: {bytes} bytes allocated");
    bytes
}

/// The repository's root: the codec's manifest folder, above the tool, command-line and
/// test-support crates whose tests also live in `tests/`.
pub fn root() -> &'static Path {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|dir| dir.join("snapshots").is_dir() && dir.join("schema").is_dir())
        .unwrap_or(manifest)
}

/// A mebibyte, for allocation bounds.
pub const MIB: u64 = 1 << 20;

/// The corpus directory (`TWCODEC_CORPUS`, default `../shared/corpus` beside the project), or
/// `None` with a note when it is missing. Under `CI=true` a missing corpus is a failure.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("TWCODEC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/corpus"));
    if dir.join("maps").is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "the corpus is missing at {} (set TWCODEC_CORPUS); CI=true requires it",
            dir.display()
        );
    }
    skipped(&dir);
    None
}

/// Says that the running test skipped its corpus checks, on standard error itself rather than
/// through `eprintln!`, which the test harness captures and shows only for failing tests: a
/// run without the corpus says so in its ordinary output.
fn skipped(dir: &Path) {
    use std::io::Write;
    let test = std::thread::current()
        .name()
        .unwrap_or("a corpus test")
        .to_string();
    let _ = writeln!(
        std::io::stderr(),
        "skipped: {test}: no corpus at {} (optional; set TWCODEC_CORPUS, see the README)",
        dir.display()
    );
}

/// Every `.map` file of the corpus, sorted by name.
pub fn corpus_maps() -> Option<Vec<PathBuf>> {
    let dir = corpus_dir()?.join("maps");
    let mut maps: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "map"))
        .collect();
    maps.sort();
    assert!(!maps.is_empty(), "no maps in {}", dir.display());
    Some(maps)
}

/// One corpus map's bytes by file name, or `None` (skipped) without a corpus.
pub fn corpus_map(name: &str) -> Option<Vec<u8>> {
    let path = corpus_dir()?.join("maps").join(name);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// insta settings shared by every test: snapshots in the top-level `snapshots/`.
pub fn insta_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings
}

pub fn automapper_uuid() -> Uuid {
    uuid_from_name("mapitemtype-automapper-config@ddnet.tw")
}

/// A small datafile writer: a version item, an info item, two data items and one UUID item.
pub fn small_writer() -> DatafileWriter {
    let mut w = DatafileWriter::new();
    let author = w.add_data(&b"author\0"[..]) as i32;
    let tiles = w.add_data(vec![1u8; 64]) as i32;
    w.add_item(0, 0, vec![1]);
    w.add_item(1, 0, vec![1, author, -1, -1, -1, tiles]);
    w.add_uuid_item(automapper_uuid(), 0, vec![1, 0, 0, -1, 0, 0])
        .unwrap();
    w
}

/// The bytes of [`small_writer`] as version 4 (its parts: see [`layout`]).
pub fn small_v4() -> Vec<u8> {
    small_writer().to_vec().unwrap()
}

/// Version 3 of the small file: data stored as is, no data-size table.
pub fn small_v3() -> Vec<u8> {
    small_writer().version(Version::V3).to_vec().unwrap()
}

/// The small file with the reversed `ATAD` magic.
pub fn small_atad() -> Vec<u8> {
    small_writer().magic(Magic::Atad).to_vec().unwrap()
}

/// The small file with the size fields old version-4 writers computed.
pub fn small_old_size_fields() -> Vec<u8> {
    small_writer().old_size_fields(true).to_vec().unwrap()
}

/// The small file with a second UUID index item for the automapper type, as old DDNet tools
/// wrote them.
pub fn small_duplicate_uuid_index() -> Vec<u8> {
    let mut w = small_writer();
    w.add_item(0xFFFF, 0xFFFE, uuid_to_ints(automapper_uuid()).to_vec());
    w.to_vec().unwrap()
}

/// Two item types listed in descending order: the writer's file for types 0 and 1 (one
/// one-int item each) with the two type ids swapped in the table and in the item keys.
pub fn unsorted_types() -> Vec<u8> {
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, vec![7]);
    w.add_item(1, 0, vec![8]);
    let mut bytes = w.to_vec().unwrap();
    // Item type table at 36: (type 0, start 0, num 1), (type 1, start 1, num 1).
    set_i32(&mut bytes, 36, 1);
    set_i32(&mut bytes, 48, 0);
    // Items at 36 + 24 + 8 = 68 and 80: keys type << 16 | id.
    set_i32(&mut bytes, 68, 1 << 16);
    set_i32(&mut bytes, 80, 0);
    bytes
}

/// Reads the little-endian i32 at `offset`.
pub fn get_i32(bytes: &[u8], offset: usize) -> i32 {
    i32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap())
}

/// Overwrites the little-endian i32 at `offset`.
pub fn set_i32(bytes: &mut [u8], offset: usize, value: i32) {
    bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
}

/// A copy of `bytes` with the i32 at `offset` replaced: the one-line generator of most
/// malformed inputs.
pub fn with_i32(bytes: &[u8], offset: usize, value: i32) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    set_i32(&mut bytes, offset, value);
    bytes
}

/// Byte offsets of the parts of a datafile, read from its header.
#[derive(Debug)]
pub struct Layout {
    pub item_types: usize,
    pub item_offsets: usize,
    pub data_offsets: usize,
    pub data_sizes: usize,
    pub items: usize,
    pub data: usize,
}

pub fn layout(bytes: &[u8]) -> Layout {
    let version = get_i32(bytes, 4);
    let (types, items, data, item_size) = (
        get_i32(bytes, 16) as usize,
        get_i32(bytes, 20) as usize,
        get_i32(bytes, 24) as usize,
        get_i32(bytes, 28) as usize,
    );
    let item_offsets = 36 + 12 * types;
    let data_offsets = item_offsets + 4 * items;
    let data_sizes = data_offsets + 4 * data;
    let items_start = data_sizes + if version == 4 { 4 * data } else { 0 };
    Layout {
        item_types: 36,
        item_offsets,
        data_offsets,
        data_sizes,
        items: items_start,
        data: items_start + item_size,
    }
}

/// The ints of an I32String of `N` ints.
pub fn name<const N: usize>(text: &str) -> [i32; N] {
    twcodec::schema::map::I32String::<N>::new(text.as_bytes()).ints
}

/// A datafile with an item of every map item type in every version and layout, including the
/// ones no corpus map has. With `teeworlds_07`, one envelope has version 3, which makes the
/// envelope points 22 ints each; without, points are DDNet's 6 ints plus the bezier UUID item.
pub fn every_item_writer(teeworlds_07: bool) -> DatafileWriter {
    let mut w = DatafileWriter::new();
    // Version and info, with and without DDNet settings.
    w.add_item(0, 0, vec![1]);
    w.add_item(1, 0, vec![1, 0, -1, 1, -1, 2]);
    w.add_item(1, 1, vec![1, 0, -1, 1, -1]);
    // Images: v1 external and embedded, v1 with a stray int, v2 RGB, RGBA and "auto" (-1).
    w.add_item(2, 0, vec![1, 1024, 1024, 1, 3, -1]);
    w.add_item(2, 1, vec![1, 2, 2, 0, 3, 4]);
    w.add_item(2, 2, vec![1, 1024, 1024, 1, 3, -1, 55566072]);
    w.add_item(2, 3, vec![2, 2, 2, 0, 3, 5, 0]);
    w.add_item(2, 4, vec![2, 2, 2, 0, 3, 4, 1]);
    w.add_item(2, 5, vec![2, 1024, 1024, 1, 3, -1, -1]);
    // Envelopes: the 0.4 form without a name, v1 named, v2 of each kind, and v3 (0.7).
    w.add_item(3, 0, vec![1, 3, 0, 2, -1]);
    let mut v1 = vec![1, 4, 2, 1];
    v1.extend(name::<8>("v1 color"));
    w.add_item(3, 1, v1);
    for (id, channels) in [(2u16, 1), (3, 3), (4, 4)] {
        let mut v2 = vec![2, channels, 0, 2];
        v2.extend(name::<8>("v2"));
        v2.push(id as i32 % 2);
        w.add_item(3, id, v2);
    }
    if teeworlds_07 {
        let mut v3 = vec![3, 4, 0, 3];
        v3.extend(name::<8>("bezier"));
        v3.push(1);
        w.add_item(3, 5, v3);
    }
    // Envelope points: every curve type and an unknown one.
    let curves = [0, 1, 2, 3, 4, 5, 527];
    let mut points = Vec::new();
    for (i, curve) in curves.iter().enumerate() {
        points.extend([i as i32 * 100, *curve, 1024, -512, 90 * 1024, 255]);
        if teeworlds_07 {
            points.extend((0..16).map(|k| if *curve == 5 { k + 1 } else { 0 }));
        }
    }
    w.add_item(6, 0, points);
    // Groups: v1, v2 with clipping, v3 named, and DDNet's group extension.
    w.add_item(4, 0, vec![1, 0, 0, 100, 100, 0, 2]);
    w.add_item(4, 1, vec![2, 32, -64, 50, 50, 2, 3, 1, 0, 0, 640, 480]);
    let mut v3 = vec![3, 0, 0, 100, 100, 5, 9, 0, 0, 0, 0, 0];
    v3.extend(name::<3>("Game"));
    w.add_item(4, 2, v3);
    let group_ex = twcodec::schema::uuid::uuid_from_name("mapitemtype-group@ddnet.tw");
    for id in 0..3 {
        w.add_uuid_item(group_ex, id, vec![1, [100, 50, 100][id as usize]])
            .unwrap();
    }
    // Layers: every tilemap layout, quads v1 and v2, sounds, deprecated sounds, unknown.
    let tilemap = |version: i32, flags: i32| {
        vec![
            0, 2, 0, version, 4, 3, flags, 255, 255, 255, 255, -1, 0, -1, 6,
        ]
    };
    let with = |mut base: Vec<i32>, rest: &[i32]| {
        base.extend_from_slice(rest);
        base
    };
    let layers: Vec<Vec<i32>> = vec![
        tilemap(2, 0),
        with(tilemap(2, 4), &[7, 8, 9, 10]),
        with(tilemap(3, 0), &name::<3>("Tiles")),
        with(
            with(tilemap(3, 1), &name::<3>("Game")),
            &[-1, -1, -1, -1, -1],
        ),
        with(
            with(tilemap(3, 0), &name::<3>("Garbage")),
            &[1044891068, 1065353216, 0, 1081610240],
        ),
        with(tilemap(4, 0), &name::<3>("0.7 tiles")),
        with(
            with(tilemap(322, 1), &name::<3>("Game")),
            &[-1, -1, -1, -1, -1],
        ),
        vec![0, 3, 1, 1, 1, 11, -1],
        with(vec![0, 3, 0, 2, 1, 11, 0], &name::<3>("Quads")),
        with(vec![0, 10, 0, 2, 1, 12, 0], &name::<3>("Sounds")),
        with(vec![0, 9, 0, 1, 1, 13, 0], &name::<3>("Old sounds")),
        vec![0, 7, 0, 5, 6, 7],
    ];
    for (id, layer) in layers.into_iter().enumerate() {
        w.add_item(5, id as u16, layer);
    }
    // A sound, DDNet's auto-mapper and test items, bezier tangents, unknown types.
    w.add_item(7, 0, vec![1, 0, 3, 14, 9000]);
    w.add_uuid_item(automapper_uuid(), 0, vec![1, 2, 0, 0, 42, 1])
        .unwrap();
    let test = twcodec::schema::uuid::uuid_from_name("mapitemtype-test@ddnet.tw");
    w.add_uuid_item(test, 0, vec![1, 2, 3, 4, 5]).unwrap();
    if !teeworlds_07 {
        let bezier = twcodec::schema::uuid::uuid_from_name("mapitemtype-envpoints-bezier@ddnet.tw");
        let tangents: Vec<i32> = (0..curves.len() as i32 * 16).collect();
        w.add_uuid_item(bezier, 0, tangents).unwrap();
    }
    let unknown = twcodec::schema::uuid::uuid_from_name("unknown@twcodec.invalid");
    w.add_uuid_item(unknown, 0, vec![7, 7]).unwrap();
    w.add_item(9, 0, vec![1, 2, 3]);
    w
}

/// Items and uncompressed data of two datafiles are equal.
pub fn assert_same_content(a: &twcodec::Datafile, b: &twcodec::Datafile) {
    assert_eq!(a.items(), b.items());
    assert_eq!(a.data_count(), b.data_count());
    for index in 0..a.data_count() {
        assert_eq!(
            a.data(index).unwrap(),
            b.data(index).unwrap(),
            "data #{index}"
        );
    }
}

/// A small deterministic generator (splitmix64), for mutations and tile patterns.
pub struct Rng(pub u64);

impl Rng {
    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 for `n` = 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}
