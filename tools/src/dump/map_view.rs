//! The serializable view of a map behind `twcodec dump`: [`MapView`]. It borrows the map and
//! builds nothing ahead: each list (images, envelopes and their points, groups and their
//! layers, quads, sound sources, other items) is serialized element by element as the
//! serializer asks for it, so a dump to a writer holds one element at a time whatever the size
//! of the map.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use serde::ser::{self, Impossible, SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use twcodec_schema::map::envelope::{EnvPoint, EnvPointBezier};
use twcodec_schema::map::tile::{tiles_as_bytes, Speedup, Switch, Tele, Tile, TileKind, Tune};
use twcodec_schema::map::{I32String, MapItem};

use super::{DumpOptions, Lazy};
use crate::units;
use twcodec::map::{
    Claims, DataItem, Envelope, Grid, Group, Image, ItemRef, Layer, LayerContent, Map, Problem,
    Ref, Sound, TilesLayer,
};
use twcodec_schema::map::common::Point;
use twcodec_schema::map::envelope::EnvelopeKind;
use twcodec_schema::map::quad::Quad;
use twcodec_schema::map::sound::SoundSource;

/// The legend of the game layer preview.
pub(super) const PREVIEW_LEGEND: &str = "legend: # solid, % unhookable, x death, ~ freeze, \
    + unfreeze, [ start, ] finish, S spawn, F flag, o pickup, ? other";

/// Longest name the dump shows whole, in characters.
const MAX_NAME: usize = 256;

/// A map as a serializable tree: what `twcodec dump` prints, as text
/// ([`map_text`](super::map_text)) or JSON ([`map_json`](super::map_json)), for any serde
/// serializer.
///
/// Fields, in order: `form`, `version`, `info` (with the texts its data items hold),
/// `images`, `sounds`, `envelopes` (with their points), `groups` (holding their layers, each
/// with its item's fields and a summary of its tiles, or its quads or sound sources),
/// `layers_in_no_group` and `other_items` when there are any, `legacy_items` (the original
/// items of a Teeworlds 0.3 map, which the rest shows upgraded), `problems`, and
/// `game_layer_preview` when asked for. Shared data items are inflated once.
///
/// Units (src/units.rs): in the text form ([`map_text`](super::map_text)) positions, colors,
/// times, envelope point values, texture coordinates and references are shown in human units
/// in place of the raw values (`points: (0, 1) (2, 1) (0, 3) (2, 3), pivot (1, 2) tiles`,
/// `color: rgba(1, 1, 1, 1)`, `image: #1 "checker"`, `position_envelope: none`); every one
/// is exact or names its raw value, so nothing is lost. This view, as JSON, keeps every raw
/// value and adds `<field>_name` beside references and `<field>_tiles` beside fixed point
/// positions.
///
/// ```
/// use twcodec_tools::dump::{DumpOptions, MapView};
///
/// let map = twcodec::Map::parse(&twcodec_testkit::sample::datafile())?;
/// let mut json = Vec::new();
/// serde_json::to_writer(&mut json, &MapView::new(&map, DumpOptions::default()))?;
/// assert!(json.starts_with(br#"{"form":"Ddnet","version":1,"info":{"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct MapView<'m> {
    map: &'m Map,
    options: DumpOptions,
    /// Whether the values in human units replace the raw ones (the text form).
    text: bool,
    cache: RefCell<DataCache>,
}

impl<'m> MapView<'m> {
    /// The view of `map`.
    pub fn new(map: &'m Map, options: DumpOptions) -> MapView<'m> {
        MapView {
            map,
            options,
            text: false,
            cache: RefCell::new(DataCache::default()),
        }
    }

    /// The view of `map` for the text form: values in human units in place of the raw ones.
    pub(super) fn text(map: &'m Map, options: DumpOptions) -> MapView<'m> {
        MapView {
            text: true,
            ..MapView::new(map, options)
        }
    }

    /// The game layer preview: at most 120 columns and 480 rows (`--tiles`).
    pub(super) fn preview(&self) -> Option<Vec<String>> {
        self.map.game_layer().map(|(_, game)| preview(game))
    }
}

impl fmt::Debug for MapView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapView")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// The view without the game layer preview, which the text form prints on its own.
pub(super) struct WithoutPreview<'v, 'm>(pub(super) &'v MapView<'m>);

impl Serialize for MapView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_map_view(self, self.options.preview, serializer)
    }
}

impl Serialize for WithoutPreview<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_map_view(self.0, false, serializer)
    }
}

fn serialize_map_view<S: Serializer>(
    view: &MapView<'_>,
    preview: bool,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let map = view.map;
    let mut out = serializer.serialize_map(None)?;
    out.serialize_entry("form", &map.form())?;
    out.serialize_entry("version", &map.version())?;
    if map.info().is_some() {
        out.serialize_entry("info", &InfoView(view))?;
    }
    out.serialize_entry("images", &Images(view))?;
    out.serialize_entry("sounds", &Sounds(view))?;
    out.serialize_entry("envelopes", &Envelopes(view))?;
    out.serialize_entry("groups", &Groups(view))?;
    if map.refs::<Layer>().any(|r| map.group_of(r).is_none()) {
        out.serialize_entry("layers_in_no_group", &Orphans(view))?;
    }
    if !map.other_items().is_empty() {
        out.serialize_entry("other_items", &OtherItems(map))?;
    }
    if let Some(legacy) = map.legacy_datafile() {
        out.serialize_entry("legacy_items", &LegacyItems(legacy))?;
    }
    out.serialize_entry("problems", &Problems(&map.problems()))?;
    if preview {
        if let Some(lines) = view.preview() {
            out.serialize_entry("game_layer_preview", &lines)?;
        }
    }
    out.end()
}

/// Serializes the fields of a struct as entries of an open map, leaving out those named in
/// `skip`: a schema item's fields after the dump's own, as one structure.
fn flatten_into<M: SerializeMap, T: Serialize + ?Sized>(
    map: &mut M,
    item: &T,
    skip: &'static [&'static str],
) -> Result<(), M::Error> {
    item.serialize(Fields {
        map,
        skip,
        human: None,
    })
}

/// [`flatten_into`], with the fields `human` gives a [`Human`] value for shown in human units
/// (see [`Human`]).
fn flatten_human<M: SerializeMap, T: Serialize + ?Sized>(
    map: &mut M,
    item: &T,
    skip: &'static [&'static str],
    text: bool,
    human: &HumanFields<'_>,
) -> Result<(), M::Error> {
    item.serialize(Fields {
        map,
        skip,
        human: Some((text, human)),
    })
}

/// See [`flatten_into`].
struct Fields<'a, M> {
    map: &'a mut M,
    skip: &'static [&'static str],
    /// Whether the form is text, and the fields in human units.
    human: Option<(bool, &'a HumanFields<'a>)>,
}

/// The value in human units of each field that has one (see [`Human`]).
type HumanFields<'f> = dyn Fn(&str) -> Option<Human> + 'f;

/// A field in human units. The text form shows `text` in place of the raw value (unquoted:
/// `image: #1 "checker"`); JSON keeps the raw value, and adds `extra` beside it as
/// `<field>_<suffix>` when there is one (`"image_name": "checker"`,
/// `"points_tiles": [[0, 1], ...]`).
struct Human {
    text: String,
    extra: Option<(&'static str, serde_json::Value)>,
}

impl Human {
    fn text(text: String) -> Option<Human> {
        Some(Human { text, extra: None })
    }
}

/// A string the text form writes unquoted.
struct Bare<'t>(&'t str);

impl Serialize for Bare<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(super::text::BARE, self.0)
    }
}

fn not_a_structure<E: ser::Error>() -> E {
    E::custom("only a structure's fields can be merged into the dump")
}

macro_rules! refuse {
    ($($method:ident($($arg:ty),*)),* $(,)?) => {$(
        fn $method(self, $(_: $arg),*) -> Result<(), M::Error> {
            Err(not_a_structure())
        }
    )*};
}

impl<'a, M: SerializeMap> Serializer for Fields<'a, M> {
    type Ok = ();
    type Error = M::Error;
    type SerializeSeq = Impossible<(), M::Error>;
    type SerializeTuple = Impossible<(), M::Error>;
    type SerializeTupleStruct = Impossible<(), M::Error>;
    type SerializeTupleVariant = Impossible<(), M::Error>;
    type SerializeMap = Impossible<(), M::Error>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), M::Error>;

    refuse!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_none(self) -> Result<(), M::Error> {
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), M::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), M::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), M::Error> {
        Err(not_a_structure())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, M::Error> {
        Err(not_a_structure())
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, M::Error> {
        Err(not_a_structure())
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, M::Error> {
        Err(not_a_structure())
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, M::Error> {
        Err(not_a_structure())
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, M::Error> {
        Err(not_a_structure())
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self, M::Error> {
        Ok(self)
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, M::Error> {
        Err(not_a_structure())
    }
}

impl<M: SerializeMap> ser::SerializeStruct for Fields<'_, M> {
    type Ok = ();
    type Error = M::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), M::Error> {
        if self.skip.contains(&key) {
            return Ok(());
        }
        if let Some((text, human)) = self.human {
            if let Some(shown) = human(key) {
                if text {
                    return self.map.serialize_entry(key, &Bare(&shown.text));
                }
                self.map.serialize_entry(key, value)?;
                if let Some((suffix, extra)) = shown.extra {
                    self.map
                        .serialize_entry(&format!("{key}_{suffix}"), &extra)?;
                }
                return Ok(());
            }
        }
        self.map.serialize_entry(key, value)
    }

    fn skip_field(&mut self, _key: &'static str) -> Result<(), M::Error> {
        Ok(())
    }

    fn end(self) -> Result<(), M::Error> {
        Ok(())
    }
}

/// The data items the dump shows, each inflated once however many images or sounds share it:
/// a hostile map's thousands of images naming one big data item cost one inflate.
#[derive(Default)]
struct DataCache {
    /// Length and CRC-32 of each data item looked at, or why it does not load.
    summaries: HashMap<usize, Result<(usize, u32), String>>,
    /// Each name looked at, cut to [`MAX_NAME`] characters.
    names: HashMap<usize, Option<String>>,
}

impl MapView<'_> {
    fn summary(&self, data: Ref<DataItem>) -> Option<Result<(usize, u32), String>> {
        let data = data.get()?;
        let map = self.map;
        let mut cache = self.cache.borrow_mut();
        let summary = cache.summaries.entry(data.index()).or_insert_with(|| {
            map.data(data)
                .map(|bytes| (bytes.len(), crc32fast::hash(&bytes)))
                .map_err(|error| error.to_string())
        });
        Some(summary.clone())
    }

    fn name(&self, data: Ref<DataItem>) -> Option<String> {
        let index = data.get()?.index();
        let map = self.map;
        let mut cache = self.cache.borrow_mut();
        let name = cache.names.entry(index).or_insert_with(|| {
            let text = map.text(data)?;
            Some(match text.char_indices().nth(MAX_NAME) {
                Some((cut, _)) => format!("{}... ({} bytes)", &text[..cut], text.len()),
                None => text,
            })
        });
        name.clone()
    }
}

/// References and positions in human units (src/units.rs gives the conventions).
impl MapView<'_> {
    /// A reference: `#1 "checker"`, `none`, `dangling 7`; in JSON the name beside the raw
    /// value (`null` for none and dangling).
    fn reference(target: Option<(usize, String)>, raw: i32) -> Option<Human> {
        let text = units::reference(target.as_ref().map(|(i, n)| (*i, n.as_str())), raw);
        let name = target.map_or(serde_json::Value::Null, |(_, n)| n.into());
        Some(Human {
            text,
            extra: Some(("name", name)),
        })
    }

    fn image_ref(&self, raw: i32) -> Option<Human> {
        let map = self.map;
        let target = match map.item_ref::<Image>(raw) {
            Ref::To(r) => map.get(r).map(|image| {
                let name = self.name(map.item_ref::<DataItem>(image.item().name));
                (r.index(), name.unwrap_or_default())
            }),
            _ => None,
        };
        Self::reference(target, raw)
    }

    fn sound_ref(&self, raw: i32) -> Option<Human> {
        let map = self.map;
        let target = match map.item_ref::<Sound>(raw) {
            Ref::To(r) => map.get(r).map(|sound| {
                let name = self.name(map.item_ref::<DataItem>(sound.item().name));
                (r.index(), name.unwrap_or_default())
            }),
            _ => None,
        };
        Self::reference(target, raw)
    }

    fn envelope_ref(&self, raw: i32) -> Option<Human> {
        let map = self.map;
        let target = match map.item_ref::<Envelope>(raw) {
            Ref::To(r) => map
                .envelopes()
                .get(r.index())
                .map(|e| (r.index(), e.name())),
            _ => None,
        };
        Self::reference(target, raw)
    }
}

/// Fixed point world units in tiles, for JSON: `[x, y]`.
/// Milliseconds as seconds: `1.5s` in text, `"<field>_seconds": 1.5` beside the raw value in
/// JSON.
fn seconds(ms: i32) -> Option<Human> {
    Some(Human {
        text: units::seconds(ms),
        extra: Some(("seconds", serde_json::json!(units::in_seconds(ms)))),
    })
}

fn tiles_json(p: Point) -> serde_json::Value {
    serde_json::json!([units::fixed_tiles(p.x), units::fixed_tiles(p.y)])
}

struct InfoView<'v, 'm>(&'v MapView<'m>);

impl Serialize for InfoView<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(None)?;
        let map = self.0.map;
        let Some(info) = map.info() else {
            return out.end();
        };
        out.serialize_entry("author_text", &info.author(map))?;
        out.serialize_entry("map_version_text", &info.map_version(map))?;
        out.serialize_entry("credits_text", &info.credits(map))?;
        out.serialize_entry("license_text", &info.license(map))?;
        match info.settings(map) {
            Ok(settings) => out.serialize_entry("settings_text", &Lazy(|| settings.strings()))?,
            Err(error) => {
                out.serialize_entry("settings_text", &None::<()>)?;
                out.serialize_entry("settings_error", &error.to_string())?;
            }
        }
        flatten_into(&mut out, info.item(), &[])?;
        out.end()
    }
}

struct Images<'v, 'm>(&'v MapView<'m>);

impl Serialize for Images<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let view = self.0;
        let images = view.map.images().iter().enumerate();
        serializer.collect_seq(images.map(|(index, image)| ImageView { view, index, image }))
    }
}

struct ImageView<'v, 'm> {
    view: &'v MapView<'m>,
    index: usize,
    image: &'m Image,
}

impl Serialize for ImageView<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(None)?;
        let (view, image) = (self.view, self.image);
        let map = view.map;
        let pixels = if image.is_external() {
            "external".to_string()
        } else {
            match view.summary(image.data(map)) {
                Some(Ok((len, crc))) => match image.bytes_per_pixel(len) {
                    Some(bpp) => format!(
                        "embedded {}, {len} bytes, crc32 {crc:08x}",
                        if bpp == 3 { "RGB" } else { "RGBA" },
                    ),
                    None => format!("embedded, {len} bytes, unknown format"),
                },
                Some(Err(error)) => format!("embedded, data does not load: {error}"),
                None => "embedded, no data".to_string(),
            }
        };
        out.serialize_entry("index", &self.index)?;
        out.serialize_entry("id", &image.id())?;
        out.serialize_entry(
            "name_text",
            &view.name(map.item_ref::<DataItem>(image.item().name)),
        )?;
        out.serialize_entry("pixels", &pixels)?;
        flatten_into(&mut out, image.item(), &[])?;
        out.end()
    }
}

struct Sounds<'v, 'm>(&'v MapView<'m>);

impl Serialize for Sounds<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let view = self.0;
        let sounds = view.map.sounds().iter().enumerate();
        serializer.collect_seq(sounds.map(|(index, sound)| SoundView { view, index, sound }))
    }
}

struct SoundView<'v, 'm> {
    view: &'v MapView<'m>,
    index: usize,
    sound: &'m Sound,
}

impl Serialize for SoundView<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(None)?;
        let (view, sound) = (self.view, self.sound);
        let map = view.map;
        let data = match view.summary(map.item_ref::<DataItem>(sound.item().data)) {
            Some(Ok((len, crc))) => format!("{len} bytes, crc32 {crc:08x}"),
            Some(Err(error)) => format!("none: {error}"),
            None => "none: the sound has no data".to_string(),
        };
        out.serialize_entry("index", &self.index)?;
        out.serialize_entry("id", &sound.id())?;
        out.serialize_entry(
            "name_text",
            &view.name(map.item_ref::<DataItem>(sound.item().name)),
        )?;
        out.serialize_entry("opus", &data)?;
        flatten_into(&mut out, sound.item(), &[])?;
        out.end()
    }
}

struct Envelopes<'v, 'm>(&'v MapView<'m>);

impl Serialize for Envelopes<'_, '_> {
    /// Each envelope with its points; an envelope whose points overlap an earlier one's (an
    /// error the problems name) shows whose instead, so that the dump of envelopes sharing
    /// their points stays as long as the points.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        let map = self.0.map;
        let text = self.0.text;
        let count = map.envelope_points().map_or(0, |p| p.points().len());
        let mut claims = Claims::default();
        for (index, envelope) in map.envelopes().iter().enumerate() {
            let overlaps = envelope
                .range(count)
                .and_then(|range| claims.claim(range, index).taken)
                .map(|(_, other)| other);
            seq.serialize_element(&EnvelopeView {
                map,
                text,
                index,
                envelope,
                overlaps,
            })?;
        }
        seq.end()
    }
}

struct EnvelopeView<'m> {
    map: &'m Map,
    text: bool,
    index: usize,
    envelope: &'m Envelope,
    overlaps: Option<usize>,
}

impl Serialize for EnvelopeView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(None)?;
        let (map, envelope) = (self.map, self.envelope);
        out.serialize_entry("index", &self.index)?;
        out.serialize_entry("id", &envelope.id())?;
        out.serialize_entry("kind", &format_args!("{:?}", envelope.item().kind()))?;
        flatten_into(&mut out, envelope.item(), &[])?;
        match self.overlaps {
            Some(other) => out.serialize_entry("points_overlap_envelope", &other)?,
            None => {
                let points = envelope.points(map);
                let bezier = envelope.bezier(map);
                let (text, kind) = (self.text, envelope.item().kind());
                out.serialize_entry(
                    "points",
                    &Lazy(|| {
                        points.iter().enumerate().map(move |(i, point)| PointView {
                            point,
                            text,
                            kind,
                            bezier: bezier.and_then(|b| b.get(i)),
                        })
                    }),
                )?;
            }
        }
        out.end()
    }
}

struct PointView<'m> {
    point: &'m EnvPoint,
    text: bool,
    kind: EnvelopeKind,
    bezier: Option<&'m EnvPointBezier>,
}

impl Serialize for PointView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(None)?;
        let point = self.point;
        match self.text {
            true => out.serialize_entry("time", &Bare(&units::seconds(point.time)))?,
            false => {
                out.serialize_entry("time", &point.time)?;
                out.serialize_entry("time_seconds", &units::in_seconds(point.time))?;
            }
        }
        out.serialize_entry("curve", &format_args!("{:?}", point.curve()))?;
        match self.text {
            true => out.serialize_entry("values", &Bare(&units::point_values(point, self.kind)))?,
            false => {
                out.serialize_entry("values", &point.values)?;
                if let Some((suffix, values)) = units::point_values_json(point, self.kind) {
                    out.serialize_entry(&format!("values_{suffix}"), &values)?;
                }
            }
        }
        if let Some(bezier) = self.bezier.filter(|b| **b != EnvPointBezier::default()) {
            out.serialize_entry("bezier", bezier)?;
        }
        out.end()
    }
}

struct Groups<'v, 'm>(&'v MapView<'m>);

impl Serialize for Groups<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        let view = self.0;
        let map = view.map;
        // Each layer under the group it belongs to, in one pass over the layers.
        let mut members: Vec<Vec<ItemRef<Layer>>> = vec![Vec::new(); map.groups().len()];
        for l in map.refs::<Layer>() {
            if let Some(list) = map.group_of(l).and_then(|g| members.get_mut(g.index())) {
                list.push(l);
            }
        }
        for ((r, group), layers) in map.refs::<Group>().zip(map.groups()).zip(&members) {
            seq.serialize_element(&GroupView {
                view,
                group,
                index: r.index(),
                layers,
            })?;
        }
        seq.end()
    }
}

struct GroupView<'v, 'm, 'l> {
    view: &'v MapView<'m>,
    group: &'m Group,
    index: usize,
    layers: &'l [ItemRef<Layer>],
}

impl Serialize for GroupView<'_, '_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(None)?;
        out.serialize_entry("index", &self.index)?;
        out.serialize_entry("id", &self.group.id())?;
        let item = self.group.item();
        let view = self.view;
        flatten_human(&mut out, item, &[], view.text, &|key| match key {
            "offset" => Some(Human {
                text: units::pixels(item.offset.x, item.offset.y),
                extra: Some((
                    "tiles",
                    serde_json::json!([
                        f64::from(item.offset.x) / units::TILE,
                        f64::from(item.offset.y) / units::TILE
                    ]),
                )),
            }),
            "parallax" => Human::text(format!("({}%, {}%)", item.parallax.x, item.parallax.y)),
            "clip" => item.clip.map(|c| Human {
                text: format!(
                    "{} at {}, size {}",
                    match c.enabled {
                        0 => "off".to_string(),
                        1 => "on".to_string(),
                        other => format!("enabled {other}"),
                    },
                    units::pixels(c.x, c.y),
                    units::pixels(c.width, c.height)
                ),
                extra: None,
            }),
            _ => None,
        })?;
        out.serialize_entry(
            "layers",
            &Lazy(|| self.layers.iter().map(|&r| LayerView { view, layer: r })),
        )?;
        out.end()
    }
}

struct Orphans<'v, 'm>(&'v MapView<'m>);

impl Serialize for Orphans<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let view = self.0;
        let map = view.map;
        let orphans = map.refs::<Layer>().filter(|&r| map.group_of(r).is_none());
        serializer.collect_seq(orphans.map(|layer| LayerView { view, layer }))
    }
}

struct LayerView<'v, 'm> {
    view: &'v MapView<'m>,
    layer: ItemRef<Layer>,
}

/// A layer's name as its item holds it (`none` for items without one).
enum LayerName<'a> {
    Item(&'a Option<I32String<3>>),
    Text(String),
}

impl Serialize for LayerName<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            LayerName::Item(name) => name.serialize(serializer),
            LayerName::Text(text) => text.serialize(serializer),
        }
    }
}

impl Serialize for LayerView<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(None)?;
        let view = self.view;
        let map = view.map;
        let layer: &Layer = (map.get(self.layer))
            .ok_or_else(|| serde::ser::Error::custom("a layer reference of another map"))?;
        let name = match layer.content() {
            LayerContent::Quads(q) => LayerName::Item(&q.item().name),
            LayerContent::Sounds(s) => LayerName::Item(&s.item().name),
            LayerContent::Unknown(_) => LayerName::Text(layer.name()),
            _ => match layer.tilemap() {
                Some(tilemap) => LayerName::Item(&tilemap.name),
                None => LayerName::Text(layer.name()),
            },
        };
        out.serialize_entry("index", &self.layer.index())?;
        out.serialize_entry("id", &layer.id())?;
        out.serialize_entry("kind", layer.kind_name())?;
        out.serialize_entry("name", &name)?;
        out.serialize_entry("header", layer.header())?;
        if let Some(automapper) = map.automapper_of(self.layer) {
            out.serialize_entry("automapper", automapper.item())?;
        }
        match layer.content() {
            LayerContent::Tiles(t) | LayerContent::Game(t) | LayerContent::Front(t) => {
                tile_layer(&mut out, view, t)?
            }
            LayerContent::Tele(t) => tile_layer(&mut out, view, t)?,
            LayerContent::Speedup(t) => tile_layer(&mut out, view, t)?,
            LayerContent::Switch(t) => tile_layer(&mut out, view, t)?,
            LayerContent::Tune(t) => tile_layer(&mut out, view, t)?,
            LayerContent::Quads(q) => {
                let item = q.item();
                flatten_human(&mut out, item, ITEM_NAME, view.text, &|key| match key {
                    "image" => view.image_ref(item.image),
                    _ => None,
                })?;
                let quads = q.quads().map(|quads| {
                    Lazy(move || quads.iter().map(move |quad| QuadView { view, quad }))
                });
                out.serialize_entry("quads", &quads)?;
            }
            LayerContent::Sounds(s) => {
                let item = s.item();
                flatten_human(&mut out, item, ITEM_NAME, view.text, &|key| match key {
                    "sound" => view.sound_ref(item.sound),
                    _ => None,
                })?;
                let sources = s.sources().map(|sources| {
                    Lazy(move || {
                        sources
                            .iter()
                            .map(move |source| SourceView { view, source })
                    })
                });
                out.serialize_entry("sources", &sources)?;
            }
            LayerContent::Unknown(ints) => out.serialize_entry("ints", ints)?,
            // A kind the codec adds later: its item's fields above.
            _ => {}
        }
        out.end()
    }
}

/// A layer's item fields other than its name, which the layer's own fields show.
const ITEM_NAME: &[&str] = &["name"];

/// A tile layer of any kind: its item's fields, then the summary of its tiles.
fn tile_layer<M: SerializeMap, T: TileKind + TileId>(
    out: &mut M,
    view: &MapView<'_>,
    layer: &TilesLayer<T>,
) -> Result<(), M::Error> {
    let item = layer.item();
    flatten_human(out, item, ITEM_NAME, view.text, &|key| match key {
        "color" => Human::text(units::color255(item.color)),
        "color_envelope" => view.envelope_ref(item.color_envelope),
        "color_envelope_offset" => Human::text(units::seconds(item.color_envelope_offset)),
        "image" => view.image_ref(item.image),
        _ => None,
    })?;
    out.serialize_entry("tiles", &TilesSummary(layer))
}

/// A quad with its positions in tiles, colors as `rgba`, texture coordinates as fractions of
/// the image and its envelopes by name.
struct QuadView<'v, 'm> {
    view: &'v MapView<'m>,
    quad: &'m Quad,
}

impl Serialize for QuadView<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(None)?;
        let (view, quad) = (self.view, self.quad);
        flatten_human(&mut out, quad, &[], view.text, &|key| match key {
            "points" => {
                let [c0, c1, c2, c3, pivot] = quad.points.map(units::tiles);
                Some(Human {
                    text: format!("{c0} {c1} {c2} {c3}, pivot {pivot} tiles"),
                    extra: Some((
                        "tiles",
                        serde_json::Value::Array(quad.points.map(tiles_json).to_vec()),
                    )),
                })
            }
            "colors" => Human::text(quad.colors.map(units::color255).join(" ")),
            "texture_coords" => Human::text(
                quad.texture_coords
                    .map(|p| format!("({}, {})", units::fixed(p.x), units::fixed(p.y)))
                    .join(" "),
            ),
            "position_envelope" => view.envelope_ref(quad.position_envelope),
            "color_envelope" => view.envelope_ref(quad.color_envelope),
            "position_envelope_offset" => seconds(quad.position_envelope_offset),
            "color_envelope_offset" => seconds(quad.color_envelope_offset),
            _ => None,
        })?;
        out.end()
    }
}

/// A sound source with its position and shape in tiles, times in seconds and its envelopes
/// by name.
struct SourceView<'v, 'm> {
    view: &'v MapView<'m>,
    source: &'m SoundSource,
}

impl Serialize for SourceView<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(None)?;
        let (view, s) = (self.view, self.source);
        flatten_human(&mut out, s, &[], view.text, &|key| match key {
            "position" => Some(Human {
                text: format!("{} tiles", units::tiles(s.position)),
                extra: Some(("tiles", tiles_json(s.position))),
            }),
            "delay" => seconds(s.delay),
            "position_envelope" => view.envelope_ref(s.position_envelope),
            "sound_envelope" => view.envelope_ref(s.sound_envelope),
            "position_envelope_offset" => seconds(s.position_envelope_offset),
            "sound_envelope_offset" => seconds(s.sound_envelope_offset),
            "shape" => Human::text(units::sound_shape(&s.shape)),
            _ => None,
        })?;
        out.end()
    }
}

/// A tile layer's tiles in a few lines: size, layout, counts per tile id, a CRC-32.
struct TilesSummary<'l, T: TileKind>(&'l TilesLayer<T>);

impl<T: TileKind + TileId> Serialize for TilesSummary<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(grid) = self.0.grid() else {
            return serializer.serialize_none();
        };
        let mut out = serializer.serialize_map(None)?;
        out.serialize_entry("size", &format_args!("{}x{}", grid.width(), grid.height()))?;
        out.serialize_entry("layout", &self.0.layout())?;
        out.serialize_entry("counts_by_id", &Counts(grid))?;
        out.serialize_entry(
            "crc32",
            &format_args!("{:08x}", crc32fast::hash(tiles_as_bytes(grid.tiles()))),
        )?;
        out.end()
    }
}

/// How many tiles of each id a grid has, ids with none left out.
struct Counts<'g, T>(&'g Grid<T>);

impl<T: TileKind + TileId> Serialize for Counts<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut counts = [0usize; 256];
        for tile in self.0.tiles() {
            counts[usize::from(tile.tile_id())] += 1;
        }
        let present = counts.iter().enumerate().filter(|(_, &n)| n > 0);
        serializer.collect_map(present.map(|(id, n)| (id.to_string(), n)))
    }
}

/// The byte of a tile that says what it is.
pub(super) trait TileId {
    fn tile_id(&self) -> u8;
}

macro_rules! tile_id {
    ($($ty:ty),*) => {$(
        impl TileId for $ty {
            fn tile_id(&self) -> u8 {
                self.id
            }
        }
    )*};
}

tile_id!(Tile, Tele, Speedup, Switch, Tune);

struct OtherItems<'m>(&'m Map);

impl Serialize for OtherItems<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let map = self.0;
        serializer.collect_seq(map.other_items().iter().map(|other| {
            let decoded = map.decode_other(other);
            OtherItemView {
                type_id: other.type_id,
                id: other.id,
                uuid: other.uuid,
                ints: decoded.is_none().then_some(&other.ints[..]),
                decoded,
            }
        }))
    }
}

/// The items of the Teeworlds 0.3 file a map was upgraded from, decoded as 0.3 items.
struct LegacyItems<'m>(&'m twcodec::Datafile);

impl Serialize for LegacyItems<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let df = self.0;
        let context = twcodec::items::decode_context(df);
        serializer.collect_seq(df.items().iter().enumerate().map(|(index, item)| {
            let decoded = twcodec::items::decode_item(df, index, context).ok();
            OtherItemView {
                type_id: item.type_id(),
                id: item.id(),
                uuid: None,
                ints: decoded.is_none().then_some(&item.data[..]),
                decoded,
            }
        }))
    }
}

/// An item the graph does not model: decoded when its type is registered in the schema,
/// else its ints.
#[derive(Serialize)]
struct OtherItemView<'m> {
    #[serde(rename = "type")]
    type_id: u16,
    id: u16,
    #[serde(serialize_with = "uuid_text")]
    uuid: Option<twcodec_schema::uuid::Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ints: Option<&'m [i32]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decoded: Option<MapItem>,
}

fn uuid_text<S: Serializer>(
    uuid: &Option<twcodec_schema::uuid::Uuid>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match uuid {
        Some(uuid) => serializer.collect_str(uuid),
        None => serializer.serialize_none(),
    }
}

/// The problems as `error: ...` and `warning: ...` lines.
struct Problems<'m>(&'m [Problem]);

impl Serialize for Problems<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(ProblemText))
    }
}

struct ProblemText<'p>(&'p Problem);

impl Serialize for ProblemText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let severity = match self.0.severity {
            twcodec::map::Severity::Error => "error",
            twcodec::map::Severity::Warning => "warning",
        };
        serializer.collect_str(&format_args!("{severity}: {}", self.0))
    }
}

/// What a game tile id looks like in the preview, and how much it matters when a block of
/// tiles shares one character (DDNet game tile ids; entities from 192).
fn glyph(id: u8) -> (char, u8) {
    match id {
        0 => (' ', 0),
        1 => ('#', 5),
        2 => ('x', 6),
        3 => ('%', 4),
        9 | 12 => ('~', 3),
        11 | 13 => ('+', 2),
        33 => ('[', 7),
        34 => (']', 7),
        192..=194 => ('S', 9),
        195 | 196 => ('F', 9),
        197..=255 => ('o', 8),
        _ => ('?', 1),
    }
}

/// The game layer as text, at most 120 columns and 480 rows: each character stands for a
/// square block of tiles and shows its most important tile.
fn preview(game: &TilesLayer<Tile>) -> Vec<String> {
    let Some(grid) = game.grid() else {
        return Vec::new();
    };
    let scale = grid
        .width()
        .div_ceil(120)
        .max(grid.height().div_ceil(480))
        .max(1);
    (0..grid.height().div_ceil(scale))
        .map(|by| {
            (0..grid.width().div_ceil(scale))
                .map(|bx| {
                    let mut best = (' ', 0);
                    for y in by * scale..((by + 1) * scale).min(grid.height()) {
                        for x in bx * scale..((bx + 1) * scale).min(grid.width()) {
                            let g = glyph(grid.get(x, y).map_or(0, |t| t.id));
                            if g.1 > best.1 {
                                best = g;
                            }
                        }
                    }
                    best.0
                })
                .collect()
        })
        .collect()
}
