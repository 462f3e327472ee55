//! Map schema costs (issue "Map schema"):
//!
//! - `chillblock5/decode_tile_layers` against `chillblock5/inflate`: decoding every tile layer of
//!   `fddrace_ChillBlock5_big.map` (943 x 1075) from already inflated data must cost under 5 % of
//!   inflating the map's data.
//! - `expand_skip/*`: 0.7 tile expansion throughput (bytes of tiles out), target >= 1 GB/s.
//!
//! Map graph (issue "Resolver, navigable map graph, map writer"):
//!
//! - `load_all/*`: full load of every corpus map (parse, resolve, decode every tile layer, quad,
//!   source and envelope; images lazy) against `load_all/inflate_baseline`, a plain flate2 loop
//!   inflating every data item; target at most 1.10x. Measured in rayon's default pool and in a
//!   one-thread pool.
//!
//! Raw inflate baselines (issue 16), all in a one-thread pool and in the same run as twcodec's
//! arms:
//!
//! - `load_all/inflate_flate2`, `load_all/inflate_libdeflate`: every data item of every corpus
//!   map inflated into a zeroed buffer of its declared size by flate2 (zlib-rs) alone and by
//!   libdeflate (`libdeflater`) alone, each map's buffers kept until its last data item is
//!   inflated (as a load keeps what it decodes, and pays for fresh pages the same way). Targets for a full load, medians: at most 1.0x
//!   `inflate_libdeflate` in sum.
//! - `load_all/twcodec_data`: twcodec inflating the same data items (`Datafile::parse`, then
//!   `Datafile::data` for each): what twcodec's inflate costs against the raw loops. The
//!   `twcodec_*` arms above load maps with images lazy, so they inflate less than the raw loops.
//! - `per_map/<map>/{flate2,libdeflate,twcodec_data,twcodec}`: the same per corpus map.
//!   Targets: median over maps of twcodec / libdeflate at most 1.25x; the smallest maps
//!   (`kog_tiny_finishable`) at most 10 us above libdeflate. A new load mode is one more entry
//!   in the arms list given to [`bench_per_map`].
//! - `load_all/twcodec_full_{sequential,parallel}`, `per_map/<map>/twcodec_full`: twcodec's full
//!   load (`Decode::All`: every layer's content, image pixels and sound data), the arms the
//!   targets above are for; `twcodec_lazy*`: lazy opens (`Decode::Lazy`).
//! - `lazy_open/chillblock5/*`: lazy open of `fddrace_ChillBlock5_big.map` against parsing its
//!   datafile; target at most 2 ms.
//! - `threads/<map>/full_{one_thread,two_threads}`: full loads of the five biggest corpus maps
//!   in a one-thread and a two-thread pool; target two threads at most 0.6x one thread.
//! - `save_all/*`: writing every corpus map with all data compressed anew at level 6, against
//!   `save_all/deflate_baseline`, a plain flate2 loop deflating the same data; target at most
//!   1.2x. Parallel and sequential.
//!
//! `cargo bench --bench map`.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use twcodec::items::{decode_context, item_kind};
use twcodec::schema::map::layer::{LayerBody, PhysicsKind, TilemapLayer};
use twcodec::schema::map::tile::{
    cast_tiles, compress_skip, expand_skip, grid_len, Speedup, Switch, Tele, Tile, TileKind, Tune,
};
use twcodec::schema::map::{MapItem, MapItemKind};
use twcodec::Datafile;

/// Casts `data` to `T` and checks it holds the layer's tiles; the tile count.
fn cast_layer<T: TileKind>(data: &[u8], count: usize) -> usize {
    let tiles = cast_tiles::<T>(data).unwrap();
    assert_eq!(tiles.len(), count);
    black_box(tiles).len()
}

/// Decodes one tilemap's tiles from the inflated data items.
fn decode_layer(t: &TilemapLayer, data: &[Vec<u8>]) -> usize {
    let count = grid_len(t.width, t.height).unwrap();
    let index = t.tile_data().unwrap() as usize;
    let bytes = &data[index];
    match t.flags.kind() {
        PhysicsKind::Tele => cast_layer::<Tele>(bytes, count),
        PhysicsKind::Speedup => cast_layer::<Speedup>(bytes, count),
        PhysicsKind::Switch => cast_layer::<Switch>(bytes, count),
        PhysicsKind::Tune => cast_layer::<Tune>(bytes, count),
        _ if t.uses_tile_skip() => expand_skip(cast_tiles::<Tile>(bytes).unwrap(), count)
            .unwrap()
            .len(),
        _ => cast_layer::<Tile>(bytes, count),
    }
}

/// Decodes every layer item and every tile layer's tiles: what a map reader does after
/// inflating.
fn decode_tile_layers(df: &Datafile, data: &[Vec<u8>]) -> usize {
    let context = decode_context(df);
    let mut tiles = 0;
    for item in df.items_of_type(MapItemKind::Layer.type_id().unwrap()) {
        let kind = item_kind(df, item.type_id());
        if let MapItem::Layer(layer) = MapItem::decode(kind, &item.data, context).unwrap() {
            if let LayerBody::Tilemap(t) = &layer.body {
                tiles += decode_layer(t, data);
            }
        }
    }
    tiles
}

fn bench(c: &mut Criterion) {
    let Some(bytes) = common::map_bytes("fddrace_ChillBlock5_big.map") else {
        return;
    };
    let df = Datafile::parse(&bytes).unwrap();
    let data: Vec<Vec<u8>> = (0..df.data_count())
        .map(|i| df.data(i).unwrap().into_owned())
        .collect();

    let mut group = c.benchmark_group("chillblock5");
    group.sample_size(30);
    group.bench_function("inflate", |b| {
        b.iter(|| {
            (0..df.data_count())
                .map(|i| black_box(df.data(i).unwrap()).len())
                .sum::<usize>()
        })
    });
    group.bench_function("decode_tile_layers", |b| {
        b.iter(|| decode_tile_layers(&df, &data))
    });
    group.finish();

    // 0.7 expansion of the map's real layers, compressed the way Teeworlds 0.7 saves them.
    let context = decode_context(&df);
    let layers: Vec<(String, Vec<Tile>, usize)> = df
        .items_of_type(5)
        .iter()
        .filter_map(|item| {
            match MapItem::decode(MapItemKind::Layer, &item.data, context).unwrap() {
                MapItem::Layer(layer) => match layer.body {
                    LayerBody::Tilemap(t)
                        if matches!(t.flags.kind(), PhysicsKind::Game | PhysicsKind::Tiles) =>
                    {
                        let count = grid_len(t.width, t.height).unwrap();
                        let tiles = cast_tiles::<Tile>(&data[t.data as usize]).unwrap();
                        let name = format!("{:?}_{}", t.flags.kind(), item.id());
                        Some((name, compress_skip(tiles), count))
                    }
                    _ => None,
                },
                _ => None,
            }
        })
        .collect();
    let mut group = c.benchmark_group("expand_skip");
    group.sample_size(30);
    // The game layer, and the tiles layer with the most entries per tile (the least compressible).
    let game = layers.iter().find(|l| l.0.starts_with("Game")).unwrap();
    let densest = layers
        .iter()
        .filter(|l| l.0.starts_with("Tiles"))
        .max_by(|a, b| (a.1.len() as f64 / a.2 as f64).total_cmp(&(b.1.len() as f64 / b.2 as f64)))
        .unwrap();
    for (label, (_, compressed, count)) in [("game_layer", game), ("densest_tiles_layer", densest)]
    {
        eprintln!(
            "expand_skip/{label}: {} entries for {} tiles",
            compressed.len(),
            count
        );
        group.throughput(Throughput::Bytes((*count * 4) as u64));
        group.bench_function(label, |b| {
            b.iter(|| expand_skip(black_box(compressed), *count).unwrap().len())
        });
    }
    // The worst case: no two neighbouring tiles alike, one entry per tile.
    let count = game.2;
    let no_runs: Vec<Tile> = (0..count)
        .map(|i| Tile {
            id: (i % 251) as u8,
            ..Tile::default()
        })
        .collect();
    group.throughput(Throughput::Bytes((count * 4) as u64));
    group.bench_function("no_runs", |b| {
        b.iter(|| expand_skip(black_box(&no_runs), count).unwrap().len())
    });
    // All tile layers of the map one after another: the whole 0.7 decode of this map.
    let total: usize = layers.iter().map(|l| l.2 * 4).sum();
    group.throughput(Throughput::Bytes(total as u64));
    group.bench_function("all_layers", |b| {
        b.iter(|| {
            layers
                .iter()
                .map(|(_, compressed, count)| expand_skip(compressed, *count).unwrap().len())
                .sum::<usize>()
        })
    });
    group.finish();
}

/// Deflates every data item at level 6 with flate2 alone.
fn deflate_all(data: &[Vec<Vec<u8>>]) -> usize {
    use std::io::Write;
    let mut total = 0;
    for bytes in data.iter().flatten() {
        let mut encoder = flate2::write::ZlibEncoder::new(
            Vec::with_capacity(bytes.len() / 4),
            flate2::Compression::new(6),
        );
        encoder.write_all(bytes).unwrap();
        total += black_box(encoder.finish().unwrap()).len();
    }
    total
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
}

/// One arm of `per_map`: its name and what it does with one map.
type MapArm<'a> = (&'a str, &'a (dyn Fn(&common::CorpusMap) -> usize + Sync));

/// Runs every arm on every corpus map, as `per_map/<map>/<arm>`, in `pool`. The arms of one map
/// run one after the other, so that they meet the same state of the machine.
fn bench_per_map(
    c: &mut Criterion,
    corpus: &[common::CorpusMap],
    pool: &rayon::ThreadPool,
    arms: &[MapArm],
) {
    for map in corpus {
        let mut group = c.benchmark_group(format!("per_map/{}", map.name));
        // Four arms for each of 40 maps: short runs, and flat sampling so that the largest maps
        // need few iterations.
        group
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(1));
        for (arm, run) in arms {
            // Timed on the pool's thread: a round trip into the pool (about 13 us) costs more
            // than the smallest maps take to load.
            group.bench_function(*arm, |b| {
                b.iter_custom(|iters| {
                    pool.install(|| {
                        let start = Instant::now();
                        for _ in 0..iters {
                            black_box(run(map));
                        }
                        start.elapsed()
                    })
                })
            });
        }
        group.finish();
    }
}

/// twcodec's load of one map, decoding what `decode` says: the `twcodec*` arms.
fn load_with(bytes: &[u8], decode: twcodec::Decode) -> usize {
    black_box(twcodec::Map::parse_with(bytes, decode).unwrap())
        .layers()
        .len()
}

/// twcodec's default load of one map (every layer's content; images and sounds lazy).
fn load(bytes: &[u8]) -> usize {
    load_with(bytes, twcodec::Decode::Layers)
}

/// twcodec's full load of one map: every layer's content, every image's pixels and every
/// sound's data (`Decode::All`), what the raw inflate loops compare with.
fn load_full(bytes: &[u8]) -> usize {
    load_with(bytes, twcodec::Decode::All)
}

/// twcodec's lazy open of one map: groups, layers, references and the checks that need no
/// content (`Decode::Lazy`).
fn load_lazy(bytes: &[u8]) -> usize {
    load_with(bytes, twcodec::Decode::Lazy)
}

/// twcodec's inflate of every data item of one map (`Datafile::data`), what the raw inflate
/// loops do: the `twcodec_data` arms.
fn inflate_data(bytes: &[u8]) -> usize {
    let df = Datafile::parse(bytes).unwrap();
    (0..df.data_count())
        .map(|i| black_box(df.data(i).unwrap()).len())
        .sum()
}

fn bench_graph(c: &mut Criterion) {
    let corpus = common::corpus();
    if corpus.is_empty() {
        return;
    }
    let files: Vec<Vec<u8>> = corpus.iter().map(|m| m.bytes.clone()).collect();
    let streams = || corpus.iter().flat_map(|m| &m.streams);
    // The raw loops keep one map's buffers at a time, as the loads keep one map at a time.
    let per_map =
        |inflate: &dyn Fn(&common::CorpusMap) -> usize| corpus.iter().map(inflate).sum::<usize>();
    let load_files = |files: &[Vec<u8>]| files.iter().map(|bytes| load(bytes)).sum::<usize>();
    // Both ways run inside a rayon pool, so that they differ only in threads: code run on the
    // main thread and on a pool thread meets glibc's allocator differently (up to 40 % here).
    let sequential = one_thread();
    let parallel = rayon::ThreadPoolBuilder::new().build().unwrap();

    let mut group = c.benchmark_group("load_all");
    group.sample_size(10);
    group.bench_function("inflate_baseline", |b| {
        b.iter(|| sequential.install(|| common::flate2_inflate(streams())))
    });
    group.bench_function("inflate_flate2", |b| {
        b.iter(|| sequential.install(|| per_map(&|m| common::flate2_exact(&m.streams))))
    });
    group.bench_function("inflate_libdeflate", |b| {
        b.iter(|| sequential.install(|| per_map(&|m| common::libdeflate_inflate(&m.streams))))
    });
    group.bench_function("twcodec_data", |b| {
        b.iter(|| sequential.install(|| files.iter().map(|f| inflate_data(f)).sum::<usize>()))
    });
    group.bench_function("twcodec_parallel", |b| {
        b.iter(|| parallel.install(|| load_files(&files)))
    });
    group.bench_function("twcodec_sequential", |b| {
        b.iter(|| sequential.install(|| load_files(&files)))
    });
    let full_files = |files: &[Vec<u8>]| files.iter().map(|f| load_full(f)).sum::<usize>();
    group.bench_function("twcodec_full_sequential", |b| {
        b.iter(|| sequential.install(|| full_files(&files)))
    });
    group.bench_function("twcodec_full_parallel", |b| {
        b.iter(|| parallel.install(|| full_files(&files)))
    });
    group.bench_function("twcodec_lazy_sequential", |b| {
        b.iter(|| sequential.install(|| files.iter().map(|f| load_lazy(f)).sum::<usize>()))
    });
    group.finish();

    // Lazy open of the largest map, against parsing its datafile alone.
    if let Some(big) = corpus
        .iter()
        .find(|m| m.name.starts_with("fddrace_ChillBlock5_big"))
    {
        let mut group = c.benchmark_group("lazy_open");
        group.bench_function("chillblock5/datafile_parse", |b| {
            b.iter(|| sequential.install(|| black_box(Datafile::parse(&big.bytes).unwrap())))
        });
        group.bench_function("chillblock5/twcodec_lazy", |b| {
            b.iter(|| sequential.install(|| load_lazy(&big.bytes)))
        });
        group.finish();
    }

    // Full loads of the five biggest maps with one thread and with two.
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut biggest: Vec<&common::CorpusMap> = corpus.iter().collect();
    biggest.sort_by_key(|m| std::cmp::Reverse(m.bytes.len()));
    for map in biggest.into_iter().take(5) {
        let mut group = c.benchmark_group(format!("threads/{}", map.name));
        group.sample_size(10);
        group.bench_function("full_one_thread", |b| {
            b.iter(|| sequential.install(|| load_full(&map.bytes)))
        });
        group.bench_function("full_two_threads", |b| {
            b.iter(|| two.install(|| load_full(&map.bytes)))
        });
        group.finish();
    }

    bench_per_map(
        c,
        &corpus,
        &sequential,
        &[
            ("flate2", &|map| common::flate2_exact(&map.streams)),
            ("libdeflate", &|map| {
                common::libdeflate_inflate(&map.streams)
            }),
            ("twcodec_data", &|map| inflate_data(&map.bytes)),
            ("twcodec", &|map| load(&map.bytes)),
            ("twcodec_full", &|map| load_full(&map.bytes)),
            ("twcodec_lazy", &|map| load_lazy(&map.bytes)),
        ],
    );

    // Maps holding all their data, so that saving compresses every data item anew.
    let maps: Vec<twcodec::Map> = files
        .iter()
        .map(|bytes| {
            let mut map = twcodec::Map::parse(bytes).unwrap();
            map.detach_data().unwrap();
            map
        })
        .collect();
    let data: Vec<Vec<Vec<u8>>> = files
        .iter()
        .map(|bytes| {
            let df = Datafile::parse(bytes).unwrap();
            (0..df.data_count())
                .map(|i| df.data(i).unwrap().into_owned())
                .collect()
        })
        .collect();
    let save = |maps: &[twcodec::Map]| {
        maps.iter()
            .map(|map| black_box(map.to_bytes().unwrap()).len())
            .sum::<usize>()
    };
    let mut group = c.benchmark_group("save_all");
    group.sample_size(10);
    group.bench_function("deflate_baseline", |b| {
        b.iter(|| sequential.install(|| deflate_all(&data)))
    });
    group.bench_function("twcodec_parallel", |b| {
        b.iter(|| parallel.install(|| save(&maps)))
    });
    group.bench_function("twcodec_sequential", |b| {
        b.iter(|| sequential.install(|| save(&maps)))
    });
    group.finish();
}

criterion_group!(benches, bench, bench_graph);
criterion_main!(benches);
