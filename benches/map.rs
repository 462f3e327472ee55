//! Map schema costs (issue "Map schema"):
//!
//! - `chillblock5/decode_tile_layers` against `chillblock5/inflate`: decoding every tile layer of
//!   `fddrace_ChillBlock5_big.map` (943 x 1075) from already inflated data must cost under 5 % of
//!   inflating the map's data.
//! - `expand_skip/*`: 0.7 tile expansion throughput (bytes of tiles out), target >= 1 GB/s.
//!
//! `cargo bench --bench map`.

mod common;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
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

criterion_group!(benches, bench);
criterion_main!(benches);
