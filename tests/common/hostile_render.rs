//! Maps built to make a render cost far more than their size (issue 28, untrusted input):
//! quads at the ends of the 22.10 range, hundreds of thousands of quads, thousands of layers,
//! tile layers whose one tile repeats over the whole picture. Each is a map of a 64 x 36 tile
//! game layer (a whole view at 1920 pixels wide is 1920 x 1080, one world unit per pixel) and
//! a group of what it names, written to bytes as an uploaded file would be.
//!
//! Used by `tests/render_hostile.rs` (what a render of each gives), `benches/render.rs` (how
//! long that takes) and `examples/render_hostile.rs` (one-shot times).

use twcodec::map::{Grid, Group, ItemRef, Layer, NewEnvelope, NewGroup};
use twcodec::schema::map::envelope::{CurveType, EnvPoint, EnvelopeKind};
use twcodec::schema::map::quad::Quad;
use twcodec::schema::map::tile::Tile;
use twcodec::Map;

/// The game layer's size in tiles.
pub const TILES: (usize, usize) = (64, 36);

/// The ends of the 22.10 range: 2^21 world units (65536 tiles) either way.
pub const MIN: i32 = i32::MIN;
pub const MAX: i32 = i32::MAX;

/// Opaque white, and a see-through red.
pub const WHITE: [i32; 4] = [255, 255, 255, 255];
pub const RED: [i32; 4] = [255, 0, 0, 128];

pub use twcodec_testkit::sample::quad;

/// A quad from one end of the 22.10 range to the other both ways: it covers the whole picture
/// of any view.
pub fn everywhere(color: [i32; 4]) -> Quad {
    quad([(MIN, MIN), (MAX, MIN), (MIN, MAX), (MAX, MAX)], color)
}

/// Quad `i` of a set far outside any picture: a tile at one of the four corners of the range.
pub fn far_away(i: usize) -> Quad {
    let (x, y) = match i % 4 {
        0 => (MIN, MIN),
        1 => (MAX - 32 * 1024, MIN),
        2 => (MIN, MAX - 32 * 1024),
        _ => (MAX - 32 * 1024, MAX - 32 * 1024),
    };
    let tile = 32 * 1024;
    quad(
        [(x, y), (x + tile, y), (x, y + tile), (x + tile, y + tile)],
        WHITE,
    )
}

/// A needle: from the top-left corner of the game layer to its bottom-right one, 2 world
/// units wide. Its bounding box is the whole picture; it covers about 2 pixels a row.
pub fn needle(color: [i32; 4]) -> Quad {
    let (w, h) = (TILES.0 as i32 * 32 * 1024, TILES.1 as i32 * 32 * 1024);
    let thick = 2 * 1024;
    quad([(0, 0), (thick, 0), (w, h), (w + thick, h)], color)
}

/// A map with the game layer and an empty group "Hostile" drawn after it.
pub fn base() -> (Map, ItemRef<Group>) {
    let mut map = twcodec_testkit::sample::empty_map().unwrap();
    let game = map.add_group(NewGroup::new("Game")).unwrap();
    let grid = Grid::filled(TILES.0, TILES.1, Tile::default()).unwrap();
    map.add_layer(game, Layer::new_game(grid).unwrap()).unwrap();
    let group = map.add_group(NewGroup::new("Hostile")).unwrap();
    (map, group)
}

/// The bytes of `map`, as a file holds them.
pub fn bytes(map: &Map) -> Vec<u8> {
    map.to_datafile().unwrap().to_vec().unwrap()
}

/// One quads layer of `quads`.
pub fn quads_layer(quads: Vec<Quad>) -> Vec<u8> {
    let (mut map, group) = base();
    let layer = Layer::new_quads("Quads", quads).unwrap();
    map.add_layer(group, layer).unwrap();
    bytes(&map)
}

/// Adds an embedded picture of 256 x 256 pixels (a tileset of 16 x 16 tiles of 16 pixels, each
/// pixel of its own color, nearly all see-through) and has `layer` drawn with it.
fn textured(map: &mut Map, layer: ItemRef<Layer>) {
    let image = match map.refs().next() {
        Some(image) => image,
        None => {
            let rgba: Vec<u8> = (0..256 * 256)
                .flat_map(|i: u32| {
                    [
                        i as u8,
                        (i >> 8) as u8,
                        (i * 7) as u8,
                        128 + (i % 128) as u8,
                    ]
                })
                .collect();
            map.add_embedded_image("picture", 256, 256, rgba).unwrap()
        }
    };
    map.set_layer_image(layer, Some(image)).unwrap();
}

/// One quads layer of `n` quads over the whole picture, drawn with a picture.
pub fn textured_quads(n: usize) -> Vec<u8> {
    let (mut map, group) = base();
    let layer = Layer::new_quads("Quads", vec![everywhere(WHITE); n]).unwrap();
    let layer = map.add_layer(group, layer).unwrap();
    textured(&mut map, layer);
    bytes(&map)
}

/// `n` tile layers as large as the game layer, every tile set, drawn with a picture.
pub fn textured_tile_layers(n: usize) -> Vec<u8> {
    let (mut map, group) = base();
    let mut grid = Grid::filled(TILES.0, TILES.1, Tile::default()).unwrap();
    for (i, tile) in grid.tiles_mut().iter_mut().enumerate() {
        tile.id = 1 + (i % 255) as u8;
    }
    let layer = Layer::new_tiles("Tiles", grid).unwrap();
    let layer = map.add_layer(group, layer).unwrap();
    textured(&mut map, layer);
    repeat_last_layer(&map, n)
}

/// The bytes of `map` with its last layer, the last of the last group, there `n` times: its
/// item copied under the next ids (sharing its data item), the group holding them all. Adding
/// thousands of layers one by one through the editing API takes a while.
fn repeat_last_layer(map: &Map, n: usize) -> Vec<u8> {
    let mut writer = map.to_datafile().unwrap();
    let items = writer.items_mut();
    let last = items.iter().rfind(|item| item.type_id() == 5).unwrap();
    let (id, ints) = (last.id(), last.data.clone());
    // A group's ints: version, offset x, y, parallax x, y, first layer, number of layers.
    let group = items.iter_mut().rfind(|item| item.type_id() == 4).unwrap();
    group.data[6] += n as i32 - 1;
    for k in 1..n {
        writer.add_item(5, id + k as u16, ints.clone());
    }
    writer.to_vec().unwrap()
}

/// `n` quads layers of one quad each.
pub fn quad_layers(n: usize, quad: Quad) -> Vec<u8> {
    let (mut map, group) = base();
    let layer = Layer::new_quads("Quad", vec![quad]).unwrap();
    map.add_layer(group, layer).unwrap();
    repeat_last_layer(&map, n)
}

/// `n` tile layers of one tile of `id` (with no image: a square of the layer's color) whose
/// tile the game repeats over the whole picture, as it does every edge tile.
pub fn tile_layers(n: usize, id: u8) -> Vec<u8> {
    let (mut map, group) = base();
    let tile = Tile {
        id,
        ..Tile::default()
    };
    let grid = Grid::filled(1, 1, tile).unwrap();
    let layer = Layer::new_tiles("Tile", grid).unwrap();
    map.add_layer(group, layer).unwrap();
    repeat_last_layer(&map, n)
}

/// One quads layer of `quads` copies of `quad`, each moved by a position envelope of `points`
/// points that every quad shares: all at time 0 and position 0, so that finding the segment
/// of a time looks at every point and finds none.
pub fn enveloped_quads(quads: usize, points: usize, quad: Quad) -> Vec<u8> {
    let (mut map, group) = base();
    let points = (0..points)
        .map(|_| EnvPoint {
            time: 0,
            curve_type: CurveType::LINEAR.to_i32(),
            values: [0; 4],
        })
        .collect();
    let envelope = map
        .add_envelope(NewEnvelope {
            points,
            ..NewEnvelope::new(EnvelopeKind::Position, "Slow")
        })
        .unwrap();
    let layer = Layer::new_quads("Quads", vec![quad; quads]).unwrap();
    let layer = map.add_layer(group, layer).unwrap();
    for i in 0..quads {
        map.set_quad_position_envelope(layer, i, Some(envelope))
            .unwrap();
    }
    bytes(&map)
}
