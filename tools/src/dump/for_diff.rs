//! `twcodec dump --for-diff`: a map as text made for line diffs, what git's `textconv` runs
//! so that `git log -p`, `git show` and `git blame` show what changed in a map.
//!
//! The text is stable and says each fact on a line of its own:
//!
//! - Each thing starts a section with a line at column 0 that names it (`image "grass_main"`,
//!   `group "Game"`, `layer "Front" in group "Game"`), which git's default hunk headers pick
//!   up, so that a hunk says whose lines it changes. Its facts follow, indented, a line each.
//! - Things are named, never numbered: no item ids, item indices, data indices or byte
//!   offsets, which all shift when one item is added; references name what they point at
//!   (`image: "grass_main"`, `color_envelope: "Pulse"`). Only what the map orders itself keeps
//!   its order (images, envelopes, groups, layers, quads, sources, points).
//! - Tile layers list their tiles row by row (`y 12: . 1*5 . 17:8`), one line per row, so
//!   painting a tile changes one line. Tokens are those of the map directory (`twcodec
//!   unpack`, docs/mapdir.md, "Tiles"): the id, then the other fields joined by `:`, trailing
//!   zeros left out, `.` for air; `TOKEN*N` is N tiles in a row alike.
//! - Values are in the units of `twcodec dump` (src/units.rs): tiles, pixels, seconds,
//!   `rgba(...)` of 0..1. Embedded pictures and sounds are their size and CRC-32.
//!
//! Problems are left out (`twcodec check` lists them; they name items by index). Everything
//! is written as it is visited, a row of tiles at a time.

use std::io::{self, Write};

use twcodec_schema::map::tile::{Speedup, Switch, Tele, TileKind, Tune};

use super::text;
use crate::mapdir::tiles::TileText;
use crate::units;
use twcodec::map::{
    Envelope, Grid, Group, Image, Layer, LayerContent, Map, Ref, Sound, TilesLayer,
};

/// Writes `map` as text made for line diffs (see the module docs).
pub fn map_for_diff(map: &Map, out: &mut dyn Write) -> io::Result<()> {
    let version = map.version().map_or("none".to_string(), |v| v.to_string());
    let form = format!("{:?}", map.form()).to_lowercase();
    writeln!(out, "map: {form} form, version {version}")?;
    info(map, out)?;
    for image in map.images() {
        let name = quoted(image.name(map));
        let what = if image.is_external() {
            "external".to_string()
        } else {
            match image.data(map).get().map(|data| map.data(data)) {
                Some(Ok(bytes)) => match image.bytes_per_pixel(bytes.len()) {
                    Some(3) => format!("embedded RGB, {}", crc(&bytes)),
                    Some(_) => format!("embedded RGBA, {}", crc(&bytes)),
                    None => format!("embedded, unknown format, {}", crc(&bytes)),
                },
                Some(Err(error)) => format!("embedded, the data does not load: {error}"),
                None => "embedded, no data".to_string(),
            }
        };
        writeln!(out, "image {name}")?;
        writeln!(out, "  pixels: {what}")?;
        fields(out, image.item(), &["name", "data", "external"])?;
    }
    for sound in map.sounds() {
        let data = match sound.data(map) {
            Ok(bytes) => crc(&bytes),
            Err(error) => format!("none: {error}"),
        };
        writeln!(out, "sound {}", quoted(sound.name(map)))?;
        writeln!(out, "  opus: {data}")?;
        fields(out, sound.item(), &["name", "data", "data_size"])?;
    }
    for envelope in map.envelopes() {
        let item = envelope.item();
        writeln!(out, "envelope {}", units::quoted(&envelope.name()))?;
        writeln!(out, "  kind: {:?}", item.kind())?;
        fields(out, item, &["name", "start_point", "num_points"])?;
        let points = envelope.points(map);
        let bezier = envelope.bezier(map);
        for (i, point) in points.iter().enumerate() {
            write!(
                out,
                "  point {} {:?} {}",
                units::seconds(point.time),
                point.curve(),
                units::point_values(point, item.kind())
            )?;
            match bezier.and_then(|b| b.get(i)) {
                Some(b) if *b != Default::default() => writeln!(
                    out,
                    ", bezier in dx {:?} dy {:?} out dx {:?} dy {:?}",
                    b.in_tangent_dx, b.in_tangent_dy, b.out_tangent_dx, b.out_tangent_dy
                )?,
                _ => writeln!(out)?,
            }
        }
    }
    let mut in_groups = vec![false; map.layers().len()];
    for (group_ref, group) in map.refs::<Group>().zip(map.groups()) {
        let item = group.item();
        let name = units::quoted(&group.name());
        writeln!(out, "group {name}")?;
        fields(
            out,
            item,
            &[
                "name",
                "offset",
                "parallax",
                "clip",
                "start_layer",
                "num_layers",
            ],
        )?;
        writeln!(
            out,
            "  offset: {}",
            units::pixels(item.offset.x, item.offset.y)
        )?;
        writeln!(
            out,
            "  parallax: ({}%, {}%)",
            item.parallax.x, item.parallax.y
        )?;
        if let Some(c) = item.clip {
            let enabled = match c.enabled {
                0 => "off".to_string(),
                1 => "on".to_string(),
                other => format!("enabled {other}"),
            };
            writeln!(
                out,
                "  clip: {enabled} at {}, size {}",
                units::pixels(c.x, c.y),
                units::pixels(c.width, c.height)
            )?;
        }
        for layer_ref in map.refs::<Layer>() {
            if map.group_of(layer_ref) != Some(group_ref) {
                continue;
            }
            in_groups[layer_ref.index()] = true;
            if let Some(layer) = map.get(layer_ref) {
                let automapper = map.automapper_of(layer_ref);
                layer_text(map, layer, &format!("in group {name}"), automapper, out)?;
            }
        }
    }
    for (layer_ref, layer) in map.refs::<Layer>().zip(map.layers()) {
        if !in_groups[layer_ref.index()] {
            let automapper = map.automapper_of(layer_ref);
            layer_text(map, layer, "in no group", automapper, out)?;
        }
    }
    for other in map.other_items() {
        match other.uuid {
            Some(uuid) => writeln!(out, "other item {uuid} (type {})", other.type_id)?,
            None => writeln!(out, "other item of type {}", other.type_id)?,
        }
        writeln!(out, "  id: {}", other.id)?;
        writeln!(out, "  ints: {}", units::ints(&other.ints))?;
    }
    Ok(())
}

/// The info item's texts and the settings, a line each.
fn info(map: &Map, out: &mut dyn Write) -> io::Result<()> {
    let Some(info) = map.info() else {
        return Ok(());
    };
    writeln!(out, "info")?;
    for (what, text) in [
        ("author", info.author(map)),
        ("map_version", info.map_version(map)),
        ("credits", info.credits(map)),
        ("license", info.license(map)),
    ] {
        writeln!(out, "  {what}: {}", quoted(text))?;
    }
    fields(
        out,
        info.item(),
        &["author", "map_version", "credits", "license", "settings"],
    )?;
    match info.settings(map) {
        Ok(settings) => {
            for setting in settings.strings() {
                writeln!(out, "  setting: {}", units::quoted(&setting))?;
            }
        }
        Err(error) => writeln!(out, "  settings: do not load: {error}")?,
    }
    Ok(())
}

/// A layer: its header line, its facts, and its tiles, quads or sound sources.
fn layer_text(
    map: &Map,
    layer: &Layer,
    place: &str,
    automapper: Option<&twcodec::map::Automapper>,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out, "layer {} {place}", units::quoted(&layer.name()),)?;
    writeln!(out, "  kind: {}", layer.kind_name())?;
    let header = layer.header();
    writeln!(
        out,
        "  header: version {}, kind {}",
        header.version, header.kind
    )?;
    writeln!(out, "  detail: {}", layer.is_detail())?;
    if let Some(automapper) = automapper {
        write!(out, "  automapper:")?;
        let item = automapper.item();
        writeln!(
            out,
            " version {}, config {}, seed {}, automatic {}",
            item.version,
            item.config,
            item.seed,
            item.flags.automatic()
        )?;
        if !item.unknown_tail.is_empty() {
            writeln!(out, "  automapper unknown_tail: {:?}", item.unknown_tail)?;
        }
    }
    match layer.content() {
        LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => {
            tile_layer(map, t, out)
        }
        LayerContent::Tele(t) => tile_layer::<Tele>(map, t, out),
        LayerContent::Speedup(t) => tile_layer::<Speedup>(map, t, out),
        LayerContent::Switch(t) => tile_layer::<Switch>(map, t, out),
        LayerContent::Tune(t) => tile_layer::<Tune>(map, t, out),
        LayerContent::Quads(q) => {
            let item = q.item();
            fields(out, item, &["name", "data", "image", "num_quads"])?;
            writeln!(out, "  image: {}", image_name(map, item.image))?;
            match q.quads() {
                None => writeln!(out, "  quads: do not load"),
                Some(quads) => {
                    for quad in quads {
                        let [c0, c1, c2, c3, pivot] = quad.points.map(units::tiles);
                        writeln!(
                            out,
                            "  quad {c0} {c1} {c2} {c3}, pivot {pivot} tiles; colors {}; \
                             texture {}; position envelope {} {}; color envelope {} {}",
                            quad.colors.map(units::color255).join(" "),
                            quad.texture_coords
                                .map(|p| format!("({}, {})", units::fixed(p.x), units::fixed(p.y)))
                                .join(" "),
                            envelope_name(map, quad.position_envelope),
                            units::seconds(quad.position_envelope_offset),
                            envelope_name(map, quad.color_envelope),
                            units::seconds(quad.color_envelope_offset),
                        )?;
                    }
                    Ok(())
                }
            }
        }
        LayerContent::Sounds(s) => {
            let item = s.item();
            fields(out, item, &["name", "data", "sound", "num_sources"])?;
            writeln!(out, "  sound: {}", sound_name(map, item.sound))?;
            match s.sources() {
                None => writeln!(out, "  sources: do not load"),
                Some(sources) => {
                    for s in sources {
                        writeln!(
                            out,
                            "  source at {} tiles, {}; looping {}, panning {}, delay {}, \
                             falloff {}; position envelope {} {}; sound envelope {} {}",
                            units::tiles(s.position),
                            units::sound_shape(&s.shape),
                            s.looping,
                            s.panning,
                            units::seconds(s.delay),
                            s.falloff,
                            envelope_name(map, s.position_envelope),
                            units::seconds(s.position_envelope_offset),
                            envelope_name(map, s.sound_envelope),
                            units::seconds(s.sound_envelope_offset),
                        )?;
                    }
                    Ok(())
                }
            }
        }
        LayerContent::Unknown(ints) => writeln!(out, "  ints: {}", units::ints(ints)),
        // A kind the codec adds later: its item's fields above.
        _ => Ok(()),
    }
}

/// A tile layer's facts, then its tiles, a row per line.
fn tile_layer<T>(map: &Map, layer: &TilesLayer<T>, out: &mut dyn Write) -> io::Result<()>
where
    T: TileText + TileKind,
{
    let item = layer.item();
    let skip = &[
        "name",
        "data",
        "physics",
        "color",
        "color_envelope",
        "color_envelope_offset",
        "image",
    ];
    fields(out, item, skip)?;
    writeln!(out, "  color: {}", units::color255(item.color))?;
    writeln!(
        out,
        "  color_envelope: {} {}",
        envelope_name(map, item.color_envelope),
        units::seconds(item.color_envelope_offset)
    )?;
    writeln!(out, "  image: {}", image_name(map, item.image))?;
    match layer.grid() {
        Some(grid) => rows(grid, out),
        None => writeln!(out, "  tiles: do not load"),
    }
}

/// Each row of `grid` as `  y N: TOKEN TOKEN*N ...`.
fn rows<T: TileText>(grid: &Grid<T>, out: &mut dyn Write) -> io::Result<()> {
    let mut line = String::new();
    for (y, row) in grid.rows().enumerate() {
        line.clear();
        let mut tiles = row.iter().peekable();
        while let Some(tile) = tiles.next() {
            let mut count = 1;
            while tiles.next_if(|next| *next == tile).is_some() {
                count += 1;
            }
            line.push(' ');
            token(tile, &mut line);
            if count > 1 {
                line.push('*');
                line.push_str(&count.to_string());
            }
        }
        writeln!(out, "  y {y}:{line}")?;
    }
    Ok(())
}

/// A tile's token, as the map directory writes it: `.` for air, else the fields joined by `:`
/// without trailing zeros.
fn token<T: TileText>(tile: &T, line: &mut String) {
    if *tile == T::default() {
        line.push('.');
        return;
    }
    let fields = tile.fields();
    let len = fields.iter().rposition(|&f| f != 0).map_or(0, |p| p + 1);
    for (j, field) in fields[..len].iter().enumerate() {
        if j > 0 {
            line.push(':');
        }
        line.push_str(&field.to_string());
    }
}

/// The fields of a schema item not named in `skip`, a line each, indented once.
fn fields<T: serde::Serialize + ?Sized>(
    out: &mut dyn Write,
    item: &T,
    skip: &'static [&'static str],
) -> io::Result<()> {
    text::write_fields(out, item, 1, skip)
}

/// A name, quoted, or `none`.
fn quoted(name: Option<String>) -> String {
    name.map_or_else(|| "none".to_string(), |name| units::quoted(&name))
}

/// Size and CRC-32 of data: `1234 bytes, crc32 0123abcd`.
fn crc(bytes: &[u8]) -> String {
    format!(
        "{} bytes, crc32 {:08x}",
        bytes.len(),
        crc32fast::hash(bytes)
    )
}

/// A reference by the name of what it points at: `"Pulse"`, `none`, `dangling 7`.
fn by_name(target: Option<Option<String>>, raw: i32) -> String {
    match target {
        Some(name) => quoted(name),
        None if raw < 0 => "none".to_string(),
        None => format!("dangling {raw}"),
    }
}

fn image_name(map: &Map, raw: i32) -> String {
    let target = match map.item_ref::<Image>(raw) {
        Ref::To(r) => map.get(r).map(|image| image.name(map)),
        _ => None,
    };
    by_name(target, raw)
}

fn sound_name(map: &Map, raw: i32) -> String {
    let target = match map.item_ref::<Sound>(raw) {
        Ref::To(r) => map.get(r).map(|sound| sound.name(map)),
        _ => None,
    };
    by_name(target, raw)
}

fn envelope_name(map: &Map, raw: i32) -> String {
    let target = match map.item_ref::<Envelope>(raw) {
        Ref::To(r) => map.get(r).map(|envelope| Some(envelope.name())),
        _ => None,
    };
    by_name(target, raw)
}
