//! What a full load costs in memory: on every corpus map, the heap's peak while the map loads
//! with everything decoded ([`Decode::All`]: tiles, quads, sources, image pixels, sound data)
//! is at most the content it decodes plus 10 % (and a little for the items of tiny maps): data
//! is inflated straight into the buffers the map keeps, tiles cast from them without a copy.
//!
//! `peak_alloc` measures the peak above what was allocated before the load (the file's bytes,
//! which the map takes over without copying). One test only: the allocator's counters are
//! global to the test binary.

mod common;

use common::{corpus_maps, MIB};
use peak_alloc::PeakAlloc;
use twcodec::map::LayerContent;
use twcodec::schema::map::quad::Quad;
use twcodec::schema::map::sound::SoundSource;
use twcodec::{Datafile, Decode, Map};

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

/// Bytes of decoded content a fully loaded map holds.
fn decoded_size(map: &Map) -> usize {
    fn grid<T: Copy>(grid: Option<&twcodec::map::Grid<T>>) -> usize {
        grid.map_or(0, |g| std::mem::size_of_val(g.tiles()))
    }
    let layers: usize = (map.layers().iter())
        .map(|layer| match layer.content() {
            LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => {
                grid(t.grid())
            }
            LayerContent::Tele(t) => grid(t.grid()),
            LayerContent::Speedup(t) => grid(t.grid()),
            LayerContent::Switch(t) => grid(t.grid()),
            LayerContent::Tune(t) => grid(t.grid()),
            LayerContent::Quads(q) => q.quads().map_or(0, |q| q.len() * Quad::SIZE),
            LayerContent::Sounds(s) => s.sources().map_or(0, |s| s.len() * SoundSource::SIZE),
            _ => 0,
        })
        .sum();
    let images: usize = (map.images().iter())
        .filter_map(|image| image.pixels(map).ok())
        .map(|pixels| pixels.bytes.len())
        .sum();
    let sounds: usize = (map.sounds().iter())
        .filter_map(|sound| sound.data(map).ok())
        .map(|data| data.len())
        .sum();
    layers + images + sounds
}

#[test]
fn a_full_load_costs_what_it_decodes() {
    let Some(paths) = corpus_maps() else { return };
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = bytes::Bytes::from(std::fs::read(&path).unwrap());
        let start = ALLOC.current_usage();
        ALLOC.reset_peak_usage();
        let map =
            Map::from_datafile_owned(Datafile::from_bytes(bytes).unwrap(), Decode::All).unwrap();
        let peak = ALLOC.peak_usage().saturating_sub(start);
        let decoded = decoded_size(&map);
        // The items (their ints) and the graph's own tables, for maps with little data.
        let slack = 256 << 10;
        eprintln!(
            "{name}: peak {:.2} MiB for {:.2} MiB decoded ({:.3}x)",
            peak as f64 / MIB as f64,
            decoded as f64 / MIB as f64,
            peak as f64 / decoded.max(1) as f64
        );
        assert!(
            peak <= decoded + decoded / 10 + slack,
            "{name}: peak {peak} bytes for {decoded} bytes decoded"
        );
    }
}
