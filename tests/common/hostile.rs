//! Maps built to make loading or dumping cost far more than their size, from the sample map
//! (which loads strictly without a problem): used by `tests/hostile_maps.rs` (what the
//! library reports) and `tests/memory_maps.rs` (what it allocates).

use twcodec::schema::map::tile::{tiles_as_bytes, Tile};
use twcodec::{Datafile, DatafileWriter};

/// The sample as a writer, to change and add items to.
pub fn sample_writer() -> DatafileWriter {
    DatafileWriter::from_datafile(&Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap())
}

/// The ints of item (`type_id`, `id`).
pub fn item(writer: &mut DatafileWriter, type_id: u16, id: u16) -> &mut Vec<i32> {
    &mut writer
        .items_mut()
        .iter_mut()
        .find(|item| item.type_id() == type_id && item.id() == id)
        .unwrap()
        .data
}

/// Adds `count` copies of item (`type_id`, `id`) with ids from `first_id` up, each changed by
/// `change`.
pub fn copies(
    writer: &mut DatafileWriter,
    (type_id, id): (u16, u16),
    count: usize,
    first_id: u16,
    change: impl Fn(&mut Vec<i32>),
) {
    let mut ints = item(writer, type_id, id).clone();
    change(&mut ints);
    for n in 0..count {
        writer.add_item(type_id, first_id + n as u16, ints.clone());
    }
}

/// Item fields used here (see `twcodec items` of the sample): a tilemap layer's width, height,
/// tilemap version and data index; a group's layer range; an envelope's point range.
pub const TILEMAP_VERSION: usize = 3;
pub const WIDTH: usize = 4;
pub const HEIGHT: usize = 5;
pub const TILE_DATA: usize = 14;
pub const START_LAYER: usize = 5;
pub const NUM_LAYERS: usize = 6;
pub const START_POINT: usize = 2;
pub const NUM_POINTS: usize = 3;

/// The sample's tiles layer (layer 3, in group 1 with the game layer) made `width` x `height`
/// over `data`, plus `copies` of it sharing that data item, all in group 1.
pub fn shared_tiles(width: i32, height: i32, data: Vec<u8>, version: i32, count: usize) -> Vec<u8> {
    let mut writer = sample_writer();
    let index = writer.add_data(data) as i32;
    let layer = item(&mut writer, 5, 3);
    layer[TILEMAP_VERSION] = version;
    layer[WIDTH] = width;
    layer[HEIGHT] = height;
    layer[TILE_DATA] = index;
    copies(&mut writer, (5, 3), count, 100, |_| {});
    item(&mut writer, 4, 1)[NUM_LAYERS] += count as i32;
    writer.to_vec().unwrap()
}

/// 100 DDNet tile layers of 2048 x 2048 tiles share one 16 MiB data item (16 KiB stored): 1.6
/// GiB of tiles, each layer holding its own copy.
pub fn ddnet_layers_sharing_data() -> Vec<u8> {
    shared_tiles(2048, 2048, vec![0; 2048 * 2048 * 4], 3, 100)
}

/// 10 Teeworlds 0.7 tile layers of 8192 x 8192 tiles share one data item of 262144 tiles each
/// repeated 255 times (1 MiB, about 1 KiB stored): 2.7 GiB of tiles once expanded.
pub fn teeworlds07_layers_expanding() -> Vec<u8> {
    let run = Tile {
        skip: 255,
        ..Tile::default()
    };
    let compressed = vec![run; 8192 * 8192 / 256];
    shared_tiles(8192, 8192, tiles_as_bytes(&compressed).to_vec(), 4, 10)
}

/// The sample with its game layer 1 tile wide and 100000 tiles tall.
pub fn tall_game_layer() -> Vec<u8> {
    let mut writer = sample_writer();
    let mut tiles = vec![Tile::default(); 100_000];
    for tile in tiles.iter_mut().step_by(7) {
        tile.id = 1;
    }
    let index = writer.add_data(tiles_as_bytes(&tiles).to_vec()) as i32;
    let game = item(&mut writer, 5, 2);
    game[WIDTH] = 1;
    game[HEIGHT] = 100_000;
    game[TILE_DATA] = index;
    writer.to_vec().unwrap()
}

/// The sample with `envelopes` more envelopes and `points` envelope points of an unknown curve
/// type, every envelope covering every point.
pub fn envelopes_sharing_points(envelopes: usize, points: usize) -> Vec<u8> {
    let mut writer = sample_writer();
    let every = |ints: &mut Vec<i32>| {
        ints[START_POINT] = 0;
        ints[NUM_POINTS] = points as i32;
    };
    for id in 0..3 {
        every(item(&mut writer, 3, id));
    }
    copies(&mut writer, (3, 0), envelopes, 100, every);
    let ints = item(&mut writer, 6, 0);
    ints.clear();
    for n in 0..points as i32 {
        ints.extend([n * 10, 99, 0, 0, 0, 0]);
    }
    writer.to_vec().unwrap()
}

/// The sample with `layers` copies of its tiles layer and `groups` more groups, every group
/// holding every layer.
pub fn groups_sharing_layers(groups: usize, layers: usize) -> Vec<u8> {
    let mut writer = sample_writer();
    copies(&mut writer, (5, 3), layers, 100, |_| {});
    let total = 9 + layers as i32;
    let every = |ints: &mut Vec<i32>| {
        ints[START_LAYER] = 0;
        ints[NUM_LAYERS] = total;
    };
    for id in 0..2 {
        every(item(&mut writer, 4, id));
    }
    copies(&mut writer, (4, 1), groups, 100, every);
    writer.to_vec().unwrap()
}

/// A demo of `version` embedding `map`, then `chunks`: a tick marker for each `None`
/// (absolute tick 1 the first time, then one tick later each), else a data chunk of that kind
/// with that payload (Huffman-coded packed ints, see `twcodec::huffman`).
pub fn demo(
    version: u8,
    map: &[u8],
    chunks: &[Option<(twcodec::schema::demo::ChunkKind, Vec<u8>)>],
) -> Vec<u8> {
    use binrw::BinWrite;
    use twcodec::schema::demo::{
        ChunkHeader, DemoHeader, DemoStart, FixedString, TickValue, TimelineMarkers,
    };
    fn fixed<const N: usize>(text: &str) -> FixedString<N> {
        let mut bytes = [0; N];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        FixedString(bytes)
    }
    let start = DemoStart {
        header: DemoHeader {
            version,
            net_version: fixed("0.6 626fce9a778df4d4"),
            map_name: fixed("hostile"),
            map_size: map.len() as u32,
            map_crc: crc32fast::hash(map),
            kind: fixed("client"),
            length: 1,
            timestamp: fixed("2026-11-23 12:00:00"),
        },
        timeline: (version >= 4).then_some(TimelineMarkers {
            count: 0,
            ticks: [0; 64],
        }),
        sha256: None,
    };
    let mut out = std::io::Cursor::new(Vec::new());
    start.write(&mut out).unwrap();
    out.get_mut().extend_from_slice(map);
    out.set_position(out.get_ref().len() as u64);
    let mut first = true;
    for chunk in chunks {
        let (header, payload) = match chunk {
            None => {
                let tick = if first {
                    TickValue::Absolute(1)
                } else {
                    TickValue::Delta(1)
                };
                first = false;
                let header = ChunkHeader::TickMarker {
                    keyframe: false,
                    tick,
                    spare: 0,
                };
                (header, &[][..])
            }
            Some((kind, payload)) => {
                let size = payload.len() as u16;
                (ChunkHeader::data(*kind, size), &payload[..])
            }
        };
        header.write_args(&mut out, (version,)).unwrap();
        out.get_mut().extend_from_slice(payload);
        out.set_position(out.get_ref().len() as u64);
    }
    out.into_inner()
}

/// The sample with its settings in a data item of `len` zero bytes: `len` empty settings.
pub fn settings_of_zeros(len: usize) -> Vec<u8> {
    let mut writer = sample_writer();
    let index = writer.add_data(vec![0; len]) as i32;
    item(&mut writer, 1, 0)[5] = index;
    writer.to_vec().unwrap()
}
