//! Shared by the benchmarks: where the corpus is, and the raw inflate loops twcodec is measured
//! against.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `$TWCODEC_CORPUS/maps`, default `../shared/corpus/maps` beside the project.
pub fn maps_dir() -> PathBuf {
    corpus_dir().join("maps")
}

/// `$TWCODEC_CORPUS`, default `../shared/corpus` beside the project (the workspace's root,
/// above the manifest of whichever crate runs the benchmark).
pub fn corpus_dir() -> PathBuf {
    std::env::var_os("TWCODEC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
            let root = (manifest.ancestors())
                .find(|dir| dir.join("Cargo.lock").is_file())
                .unwrap_or(manifest);
            root.join("../shared/corpus")
        })
}

/// Every corpus map's path, sorted, or nothing (with a note) when the corpus is missing.
pub fn map_paths() -> Vec<PathBuf> {
    let dir = maps_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: no corpus at {}", dir.display());
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "map"))
        .collect();
    paths.sort();
    paths
}

/// One corpus map's bytes, or `None` (with a note) when the corpus is missing.
pub fn map_bytes(name: &str) -> Option<Vec<u8>> {
    let path = maps_dir().join(name);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(_) => {
            eprintln!("skipped: no corpus map at {}", path.display());
            None
        }
    }
}

/// What a user of flate2 alone writes to inflate data items: each stream into a buffer of its
/// declared size. The baseline twcodec's reading is measured against.
pub fn flate2_inflate<'a>(streams: impl IntoIterator<Item = &'a (Vec<u8>, usize)>) -> usize {
    use flate2::{Decompress, FlushDecompress};
    let mut total = 0;
    for (stored, size) in streams {
        let mut out = Vec::with_capacity(*size);
        Decompress::new(true)
            .decompress_vec(stored, &mut out, FlushDecompress::Finish)
            .unwrap();
        total += std::hint::black_box(&out).len();
    }
    total
}

/// One corpus map: its name (the file stem), its bytes, and each data item's stored zlib stream
/// and declared size.
pub struct CorpusMap {
    pub name: String,
    pub bytes: Vec<u8>,
    pub streams: Vec<(Vec<u8>, usize)>,
}

/// Every corpus map, sorted by name, or nothing (with a note) when the corpus is missing.
pub fn corpus() -> Vec<CorpusMap> {
    map_paths()
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            let df = twcodec::Datafile::parse(&bytes).unwrap();
            let streams = (0..df.data_count())
                .map(|i| {
                    (
                        df.stored_data(i).unwrap().to_vec(),
                        df.data_size(i).unwrap(),
                    )
                })
                .collect();
            CorpusMap {
                name: path.file_stem().unwrap().to_string_lossy().into_owned(),
                bytes,
                streams,
            }
        })
        .collect()
}

/// flate2 alone, the fastest way: one inflater reset for each stream, each stream into a zeroed
/// buffer of its declared size. The buffers are kept until all streams are inflated, as a
/// loaded map keeps what it decodes (call it once per map).
pub fn flate2_exact<'a>(streams: impl IntoIterator<Item = &'a (Vec<u8>, usize)>) -> usize {
    use flate2::{Decompress, FlushDecompress, Status};
    let mut inflater = Decompress::new(true);
    let mut kept = Vec::new();
    for (stored, size) in streams {
        let mut out = vec![0u8; *size];
        inflater.reset(true);
        let status = inflater
            .decompress(stored, &mut out, FlushDecompress::Finish)
            .unwrap();
        assert!(status == Status::StreamEnd && inflater.total_out() as usize == *size);
        kept.push(out);
    }
    std::hint::black_box(&kept).iter().map(Vec::len).sum()
}

/// libdeflate alone (`libdeflater`): one decompressor, each stream into a zeroed buffer of its
/// declared size. The buffers are kept until all streams are inflated, as a loaded map keeps
/// what it decodes (call it once per map).
pub fn libdeflate_inflate<'a>(streams: impl IntoIterator<Item = &'a (Vec<u8>, usize)>) -> usize {
    let mut decompressor = libdeflater::Decompressor::new();
    let mut kept = Vec::new();
    for (stored, size) in streams {
        let mut out = vec![0u8; *size];
        let produced = decompressor.zlib_decompress(stored, &mut out).unwrap();
        assert_eq!(produced, *size);
        kept.push(out);
    }
    std::hint::black_box(&kept).iter().map(Vec::len).sum()
}
