//! The textures a render samples: the map's images (embedded, or external ones from the
//! `mapres` folder), the entities tileset and what is made from it, each read once per
//! [`Renderer`](super::Renderer).

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use rayon::prelude::*;

use super::entities::{self, Place};
use super::texture::{Alpha, Level, Px, Texture};
use super::{drawn, RenderOptions};
use twcodec::map::{Image, LayerContent, Map, Ref};

/// What a picture is sampled for: tilesets are cut into a 16 x 16 grid and, like the game,
/// resized first when their sides are not multiples of 16; quads take the picture as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Use {
    Tileset,
    Quads,
}

/// A texture, or why there is none.
type Loaded = Result<Arc<Texture>, String>;

impl Use {
    /// What `layer` samples its image for.
    pub(super) fn of(layer: &twcodec::map::Layer) -> Use {
        match layer.content() {
            LayerContent::Quads(_) => Use::Quads,
            _ => Use::Tileset,
        }
    }
}

/// Textures kept for the next render: files read (external images, the entities tileset) and,
/// when `keep_embedded`, the textures of embedded images, found again by their pixels. Within
/// [`MAX_CACHED_BYTES`] of pixels and [`MAX_CACHED_FILES`] entries: past either, the entries
/// used longest ago are dropped (and made again when asked for).
#[derive(Debug, Default)]
pub(super) struct FileCache {
    files: Mutex<Files>,
    /// Keep the textures of embedded images (a [`Renderer`](super::Renderer) does; a one-shot
    /// render, which would only copy their pixels, does not).
    keep_embedded: bool,
    /// The tune zones' tileset, and the entities tileset it was made from.
    tunes: Mutex<Option<(Weak<Texture>, Arc<Texture>)>>,
}

/// What a cached texture is made from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    /// A PNG file.
    File(PathBuf, Use, Alpha),
    /// An embedded image's pixels, by their size and CRC-32 (the pixels themselves are kept
    /// with the texture and compared, so that a picture is never taken for another).
    Embedded {
        width: usize,
        height: usize,
        usage: Use,
        alpha: Alpha,
        crc: u32,
    },
}

/// The cached textures, each with when it was last used.
#[derive(Debug, Default)]
struct Files {
    entries: HashMap<Key, Entry>,
    /// Bytes of pixels held (every mipmap level).
    bytes: usize,
    /// Counts uses, to tell which entry was used longest ago.
    clock: u64,
}

#[derive(Debug)]
struct Entry {
    loaded: Loaded,
    /// The pixels of an embedded image the texture was made from.
    source: Option<Vec<u8>>,
    /// Bytes held: the texture's and the source's.
    bytes: usize,
    used: u64,
}

/// The most bytes of pixels a [`FileCache`] keeps (every mipmap level counted): 1 GiB, about
/// 190 pictures of 1024 x 1024.
pub(super) const MAX_CACHED_BYTES: usize = 1 << 30;

/// The most files a [`FileCache`] keeps.
pub(super) const MAX_CACHED_FILES: usize = 1024;

/// The bytes of pixels a loaded file holds (none for one that failed).
fn size_of(loaded: &Loaded) -> usize {
    match loaded {
        Ok(texture) => (texture.levels.iter())
            .map(|l| l.pixels.len() * std::mem::size_of::<Px>())
            .sum(),
        Err(_) => 0,
    }
}

impl FileCache {
    /// A cache that also keeps the textures of embedded images.
    pub(super) fn keeping_embedded() -> FileCache {
        FileCache {
            keep_embedded: true,
            ..FileCache::default()
        }
    }

    /// The texture of the PNG file at `path`, read once (while it stays in the cache).
    fn get(&self, path: &Path, usage: Use, alpha: Alpha) -> Loaded {
        let key = Key::File(path.to_path_buf(), usage, alpha);
        if let Ok(mut files) = self.files.lock() {
            files.clock += 1;
            let now = files.clock;
            if let Some(entry) = files.entries.get_mut(&key) {
                entry.used = now;
                return entry.loaded.clone();
            }
        }
        let loaded = crate::assets::read_png(path, twcodec::Limits::default())
            .map_err(|e| e.to_string())
            .and_then(|p| {
                texture(
                    p.width as usize,
                    p.height as usize,
                    p.rgba.into(),
                    usage,
                    alpha,
                )
                .ok_or_else(|| format!("{} has no pixels", path.display()))
            })
            .map(Arc::new);
        if let Ok(mut files) = self.files.lock() {
            files.insert(
                key,
                loaded.clone(),
                None,
                MAX_CACHED_BYTES,
                MAX_CACHED_FILES,
            );
        }
        loaded
    }

    /// The texture of an embedded image's straight RGBA8 pixels, made once while it stays in
    /// the cache (with `keep_embedded`); `None` for an image of no pixels.
    fn embedded<'a>(
        &self,
        width: usize,
        height: usize,
        rgba: impl Into<Cow<'a, [u8]>>,
        usage: Use,
        alpha: Alpha,
    ) -> Option<Arc<Texture>> {
        let rgba = rgba.into();
        if !self.keep_embedded {
            return texture(width, height, rgba, usage, alpha).map(Arc::new);
        }
        let key = Key::Embedded {
            width,
            height,
            usage,
            alpha,
            crc: crc32fast::hash(&rgba),
        };
        if let Ok(mut files) = self.files.lock() {
            files.clock += 1;
            let now = files.clock;
            if let Some(entry) = files.entries.get_mut(&key) {
                if entry.source.as_deref() == Some(&*rgba) {
                    entry.used = now;
                    return entry.loaded.clone().ok();
                }
            }
        }
        let source = Some(rgba.to_vec());
        let made = Arc::new(texture(width, height, rgba, usage, alpha)?);
        if let Ok(mut files) = self.files.lock() {
            files.insert(
                key,
                Ok(made.clone()),
                source,
                MAX_CACHED_BYTES,
                MAX_CACHED_FILES,
            );
        }
        Some(made)
    }

    /// The tune zones' tileset made from the entities tileset `tileset`, made once for it.
    fn tunes(&self, tileset: &Arc<Texture>) -> Arc<Texture> {
        if let Ok(kept) = self.tunes.lock() {
            if let Some((from, tunes)) = kept.as_ref() {
                if from
                    .upgrade()
                    .is_some_and(|from| Arc::ptr_eq(&from, tileset))
                {
                    return tunes.clone();
                }
            }
        }
        let tunes = Arc::new(entities::tunes(tileset));
        if let Ok(mut kept) = self.tunes.lock() {
            *kept = Some((Arc::downgrade(tileset), tunes.clone()));
        }
        tunes
    }

    /// How many textures the cache holds (files read or failed to read, embedded images).
    pub(super) fn len(&self) -> usize {
        self.files.lock().map_or(0, |f| f.entries.len())
    }

    /// Drops every texture kept.
    pub(super) fn clear(&self) {
        if let Ok(mut files) = self.files.lock() {
            *files = Files::default();
        }
        if let Ok(mut tunes) = self.tunes.lock() {
            *tunes = None;
        }
    }
}

impl Files {
    /// Keeps `loaded` (made from `source`, for an embedded image), dropping the entries used
    /// longest ago to stay within `max_bytes` and `max_files` entries; a picture larger than
    /// `max_bytes` is not kept.
    fn insert(
        &mut self,
        key: Key,
        loaded: Loaded,
        source: Option<Vec<u8>>,
        max_bytes: usize,
        max_files: usize,
    ) {
        let bytes = size_of(&loaded) + source.as_ref().map_or(0, Vec::len);
        if bytes > max_bytes {
            return;
        }
        self.clock += 1;
        let entry = Entry {
            loaded,
            source,
            bytes,
            used: self.clock,
        };
        if let Some(old) = self.entries.insert(key, entry) {
            self.bytes -= old.bytes;
        }
        self.bytes += bytes;
        while self.bytes > max_bytes || self.entries.len() > max_files {
            let Some(oldest) = (self.entries.iter())
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(gone) = self.entries.remove(&oldest) {
                self.bytes -= gone.bytes;
            }
        }
    }
}

/// A texture of straight RGBA8 pixels for `usage`, kept as `alpha` says.
fn texture(
    width: usize,
    height: usize,
    rgba: Cow<'_, [u8]>,
    usage: Use,
    alpha: Alpha,
) -> Option<Texture> {
    let fits = width % 16 == 0 && height % 16 == 0;
    match usage {
        Use::Quads => return Texture::from_pixels(width, height, rgba, 1, alpha),
        Use::Tileset if fits => return Texture::from_pixels(width, height, rgba, 16, alpha),
        Use::Tileset => {}
    }
    // The game resizes such a tileset to the largest power of two within each side, at
    // least 16 (docs/format-notes.md, "Drawing a map").
    let side = |n: usize| match n {
        0 => 0,
        n => (1usize << (usize::BITS - 1 - n.leading_zeros())).max(16),
    };
    let (w, h) = (side(width), side(height));
    let level = Level {
        width,
        height,
        pixels: bytemuck::cast_slice::<u8, Px>(&rgba).to_vec(),
    };
    let mut resized = Vec::with_capacity(w * h * 4);
    for y in 0..h {
        for x in 0..w {
            let sx = (x as f32 + 0.5) * width as f32 / w as f32;
            let sy = (y as f32 + 0.5) * height as f32 / h as f32;
            resized.extend_from_slice(&level.bilinear_px(sx, sy));
        }
    }
    Texture::from_rgba(w, h, &resized, 16, alpha)
}

/// The pixels of a picture that is missing: a magenta and black checkerboard of 16 x 16
/// tiles, as games show a missing texture.
pub(super) fn placeholder(alpha: Alpha) -> Arc<Texture> {
    static PLACEHOLDER: entities::Once = [OnceLock::new(), OnceLock::new()];
    entities::made_once(&PLACEHOLDER, alpha, || {
        Texture::tile_colors(8, alpha, |index, x, y| {
            let dark =
                ((index % 16) + (index / 16) + usize::from(x >= 4) + usize::from(y >= 4)) % 2;
            if dark == 0 {
                [255, 0, 255, 255]
            } else {
                [0, 0, 0, 255]
            }
        })
    })
}

/// The textures one render samples.
pub(super) struct Textures {
    /// The map's images by index and use.
    pub images: HashMap<(usize, Use), Arc<Texture>>,
    pub entities: Option<Arc<Texture>>,
    pub arrow: Option<Arc<Texture>>,
    /// Numbers in the middle, upper and lower half of a tile.
    pub numbers: Option<[Arc<Texture>; 3]>,
    /// The tune tile in a color per tune zone (cell `n` for the `n`-th zone in the map).
    pub tunes: Option<Arc<Texture>>,
}

impl Textures {
    /// Every texture the layers `options` draw use; what cannot be read becomes a placeholder
    /// and a warning.
    pub fn load(
        cache: &FileCache,
        map: &Map,
        options: &RenderOptions,
        warnings: &mut Vec<String>,
    ) -> Textures {
        let mut wanted: Vec<(usize, Use)> = Vec::new();
        for (index, layer) in map.layers().iter().enumerate() {
            let usage = Use::of(layer);
            if let (true, Ref::To(image)) = (drawn(map, options, index, layer), layer.image(map)) {
                if !wanted.contains(&(image.index(), usage)) {
                    wanted.push((image.index(), usage));
                }
            }
        }
        // The biggest first (external pictures, of sizes not known yet, before the rest), so
        // that no thread is left with a big one while the others have finished.
        let pixels = |&(index, _): &(usize, Use)| {
            map.images().get(index).map_or(0, |image| {
                let item = image.item();
                match image.is_external() {
                    true => u64::MAX,
                    false => item.width.max(0) as u64 * item.height.max(0) as u64,
                }
            })
        };
        wanted.sort_by_key(|key| std::cmp::Reverse(pixels(key)));
        let loaded: Vec<_> = wanted
            .par_iter()
            .filter_map(|&(index, usage)| {
                let image = map.images().get(index)?;
                Some((
                    (index, usage),
                    image_texture(cache, map, options, index, image, usage),
                ))
            })
            .collect();
        let mut images = HashMap::new();
        for (key, (texture, warning)) in loaded {
            // An image used both ways warns once.
            if let Some(warning) = warning.filter(|w| !warnings.contains(w)) {
                warnings.push(warning);
            }
            images.insert(key, texture);
        }
        let alpha = options.filtering.alpha();
        let mut textures = Textures {
            images,
            entities: None,
            arrow: None,
            numbers: None,
            tunes: None,
        };
        if options.entities > 0 {
            let (tileset, warning) = entities_tileset(cache, options, alpha);
            warnings.extend(warning);
            let tunes = (map.layers().iter()).any(|l| matches!(l.content(), LayerContent::Tune(_)));
            if tunes {
                textures.tunes = Some(cache.tunes(&tileset));
            }
            textures.entities = Some(tileset);
            textures.arrow = Some(entities::arrow(alpha));
            textures.numbers = Some(
                [Place::Center, Place::Top, Place::Bottom].map(|p| entities::numbers(p, alpha)),
            );
        }
        textures
    }
}

/// An image's texture, or a placeholder and a warning saying why.
fn image_texture(
    cache: &FileCache,
    map: &Map,
    options: &RenderOptions,
    index: usize,
    image: &Image,
    usage: Use,
) -> (Arc<Texture>, Option<String>) {
    let name = image.name(map).unwrap_or_default();
    let alpha = options.filtering.alpha();
    let result = if image.is_external() {
        external_picture(cache, &name, options.mapres.as_deref(), usage, alpha)
    } else {
        (image.rgba8(map))
            .map_err(|e| e.to_string())
            .and_then(|p| {
                (cache.embedded(p.width, p.height, p.bytes, usage, alpha))
                    .ok_or_else(|| "an image of no pixels".to_string())
            })
            .map_err(|e| format!("embedded image #{index} {name:?}: {e}"))
    };
    match result {
        Ok(texture) => (texture, None),
        Err(why) => (
            placeholder(alpha),
            Some(format!("{why}; drawn as a placeholder")),
        ),
    }
}

/// An external image from `mapres/NAME.png`, or why not.
fn external_picture(
    cache: &FileCache,
    name: &str,
    mapres: Option<&Path>,
    usage: Use,
    alpha: Alpha,
) -> Result<Arc<Texture>, String> {
    let Some(dir) = mapres else {
        return Err(format!(
            "external image {name:?}: no mapres folder given (--mapres or TWCODEC_MAPRES)"
        ));
    };
    let Some(path) = crate::assets::mapres_png(dir, name) else {
        return Err(format!("external image {name:?}: not a plain file name"));
    };
    if !path.is_file() {
        return Err(format!(
            "external image {name:?}: no {} in the mapres folder",
            path.display()
        ));
    }
    cache
        .get(&path, usage, alpha)
        .map_err(|e| format!("external image {name:?}: {e}"))
}

/// Where DDNet keeps entities tilesets, relative to its `data/mapres` folder: the default
/// ("clear") set, then the "comfort" asset.
const NEXT_TO_MAPRES: [&str; 2] = [
    "../editor/entities_clear/ddnet.png",
    "../assets/entities/comfort/ddnet.png",
];

/// The entities tileset `options` name or imply, or plain colors and a warning saying why.
fn entities_tileset(
    cache: &FileCache,
    options: &RenderOptions,
    alpha: Alpha,
) -> (Arc<Texture>, Option<String>) {
    let path = match (&options.entities_tileset, &options.mapres) {
        (Some(path), _) => Some(path.clone()),
        (None, Some(mapres)) => NEXT_TO_MAPRES
            .iter()
            .map(|p| mapres.join(p))
            .find(|p| p.is_file()),
        (None, None) => None,
    };
    let Some(path) = path else {
        let why = "no entities tileset (--entities-tileset, or DDNet's data folder around \
                   --mapres): physics tiles drawn in plain colors";
        return (entities::plain(alpha), Some(why.to_string()));
    };
    match cache.get(&path, Use::Tileset, alpha) {
        Ok(texture) => (texture, None),
        Err(e) => {
            let why = format!("entities tileset: {e}; physics tiles drawn in plain colors");
            (entities::plain(alpha), Some(why))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_cache_drops_what_was_used_longest_ago() {
        let picture = |side: usize| {
            Ok(Arc::new(
                texture(
                    side,
                    side,
                    vec![9; side * side * 4].into(),
                    Use::Quads,
                    Alpha::Straight,
                )
                .unwrap(),
            ))
        };
        let key = |name: &str| Key::File(PathBuf::from(name), Use::Quads, Alpha::Straight);
        let one = size_of(&picture(16));
        assert!(one >= 16 * 16 * 4, "{one}");
        let mut files = Files::default();
        files.insert(key("a"), picture(16), None, 2 * one, 10);
        files.insert(key("b"), picture(16), None, 2 * one, 10);
        assert_eq!((files.entries.len(), files.bytes), (2, 2 * one));
        // "a" used again: "b" is now the oldest, and goes for "c".
        files.clock += 1;
        files.entries.get_mut(&key("a")).unwrap().used = files.clock;
        files.insert(key("c"), picture(16), None, 2 * one, 10);
        let mut kept: Vec<_> = files
            .entries
            .keys()
            .map(|k| match k {
                Key::File(path, ..) => path.display().to_string(),
                Key::Embedded { .. } => unreachable!(),
            })
            .collect();
        kept.sort();
        assert_eq!(kept, ["a", "c"]);
        assert_eq!(files.bytes, 2 * one);
        // By count too; failures cost no bytes; a picture past the whole budget is not kept.
        files.insert(key("missing"), Err("no file".into()), None, 2 * one, 2);
        assert_eq!(files.entries.len(), 2);
        assert!(files.entries.contains_key(&key("missing")));
        files.insert(key("big"), picture(64), None, 2 * one, 2);
        assert!(!files.entries.contains_key(&key("big")));
    }

    #[test]
    fn embedded_pictures_are_kept_by_their_pixels() {
        let cache = FileCache::keeping_embedded();
        let red = [200, 0, 0, 255].repeat(16 * 16);
        let mut blue = red.clone();
        blue[0..4].copy_from_slice(&[0, 0, 200, 255]);
        let first = cache
            .embedded(16, 16, &red[..], Use::Tileset, Alpha::Straight)
            .unwrap();
        let again = cache
            .embedded(16, 16, &red[..], Use::Tileset, Alpha::Straight)
            .unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(cache.len(), 1);
        // Other pixels, another size or another use: another texture.
        let other = cache
            .embedded(16, 16, &blue[..], Use::Tileset, Alpha::Straight)
            .unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
        let quads = cache
            .embedded(16, 16, &red[..], Use::Quads, Alpha::Straight)
            .unwrap();
        assert!(!Arc::ptr_eq(&first, &quads));
        assert_eq!(cache.len(), 3);
        // A CRC-32 that matches pixels that do not: never the wrong texture.
        let mut files = cache.files.lock().unwrap();
        let key = Key::Embedded {
            width: 16,
            height: 16,
            usage: Use::Tileset,
            alpha: Alpha::Straight,
            crc: crc32fast::hash(&blue),
        };
        files.entries.get_mut(&key).unwrap().source = Some(red.clone());
        drop(files);
        let checked = cache
            .embedded(16, 16, &blue[..], Use::Tileset, Alpha::Straight)
            .unwrap();
        assert!(!Arc::ptr_eq(&checked, &first) && !Arc::ptr_eq(&checked, &other));
        // A one-shot cache keeps nothing.
        let one_shot = FileCache::default();
        one_shot
            .embedded(16, 16, &red[..], Use::Tileset, Alpha::Straight)
            .unwrap();
        assert_eq!(one_shot.len(), 0);
        cache.clear();
        assert_eq!(cache.len(), 0);
    }

    #[test]
    fn tilesets_not_of_16_are_resized_as_the_game_does() {
        let rgba = vec![200; 100 * 40 * 4];
        let tileset = texture(100, 40, (&rgba[..]).into(), Use::Tileset, Alpha::Straight).unwrap();
        assert_eq!(
            (tileset.levels[0].width, tileset.levels[0].height),
            (64, 32)
        );
        let small = texture(
            5,
            3,
            vec![200; 5 * 3 * 4].into(),
            Use::Tileset,
            Alpha::Straight,
        )
        .unwrap();
        assert_eq!((small.levels[0].width, small.levels[0].height), (16, 16));
        let quads = texture(100, 40, rgba.into(), Use::Quads, Alpha::Straight).unwrap();
        assert_eq!((quads.levels[0].width, quads.levels[0].height), (100, 40));
        let fits = texture(
            32,
            16,
            vec![1; 32 * 16 * 4].into(),
            Use::Tileset,
            Alpha::Straight,
        )
        .unwrap();
        assert_eq!((fits.levels[0].width, fits.levels[0].height), (32, 16));
    }
}
