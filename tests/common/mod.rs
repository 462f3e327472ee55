//! Shared test helpers: the corpus location, insta settings, and fixture generators.
//!
//! Every fixture is made here, by the project's own writer or by patching its output; see
//! `tests/fixtures/README.md`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use twcodec::schema::datafile::Magic;
use twcodec::schema::uuid::{uuid_from_name, uuid_to_ints, Uuid};
use twcodec::{DatafileWriter, Version};

/// The corpus directory (`TWCODEC_CORPUS`, default `../shared/corpus` beside the project), or
/// `None` with a note when it is missing. Under `CI=true` a missing corpus is a failure.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("TWCODEC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    if dir.join("maps").is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "the corpus is missing at {} (set TWCODEC_CORPUS); CI=true requires it",
            dir.display()
        );
    }
    eprintln!(
        "skipped: no corpus at {} (set TWCODEC_CORPUS to run this test)",
        dir.display()
    );
    None
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
