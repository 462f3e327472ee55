//! The game's pictures for the world: `game.png` (weapons, projectiles, pickups, flags, the
//! hook), `emoticons.png` and the skins, read from a DDNet `data/` folder and cut into one
//! texture per sprite, as DDNet's client cuts them (docs/demo-render.md, "The game's
//! pictures").

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::super::texture::{Alpha, Texture};
use crate::assets::Picture;

/// A sprite of `game.png`: its cell rectangle on the 32 x 16 grid of the picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Sprite {
    HookChain,
    HookHead,
    /// A weapon's body, by weapon number 0 to 5.
    Body(u8),
    /// A weapon's projectile (gun, shotgun, grenade, laser).
    Projectile(u8),
    /// A muzzle flash: weapon (gun 1, shotgun 2, ninja 5) and which of 3.
    Muzzle(u8, u8),
    Health,
    Armor,
    FlagBlue,
    FlagRed,
}

impl Sprite {
    /// Every sprite cut from `game.png`.
    const ALL: [Sprite; 27] = [
        Sprite::HookChain,
        Sprite::HookHead,
        Sprite::Body(0),
        Sprite::Body(1),
        Sprite::Body(2),
        Sprite::Body(3),
        Sprite::Body(4),
        Sprite::Body(5),
        Sprite::Projectile(1),
        Sprite::Projectile(2),
        Sprite::Projectile(3),
        Sprite::Projectile(4),
        Sprite::Muzzle(1, 0),
        Sprite::Muzzle(1, 1),
        Sprite::Muzzle(1, 2),
        Sprite::Muzzle(2, 0),
        Sprite::Muzzle(2, 1),
        Sprite::Muzzle(2, 2),
        Sprite::Muzzle(5, 0),
        Sprite::Muzzle(5, 1),
        Sprite::Muzzle(5, 2),
        Sprite::Health,
        Sprite::Armor,
        Sprite::FlagBlue,
        Sprite::FlagRed,
        Sprite::Projectile(0),
        Sprite::Projectile(5),
    ];

    /// Its cell rectangle `x, y, w, h` on the 32 x 16 grid of `game.png`; `None` for the
    /// sprites the game has no picture for (the hammer's and the ninja's projectiles).
    fn cells(self) -> Option<[u32; 4]> {
        Some(match self {
            Sprite::HookChain => [2, 0, 1, 1],
            Sprite::HookHead => [3, 0, 2, 1],
            Sprite::Body(0) => [2, 1, 4, 3],
            Sprite::Body(1) => [2, 4, 4, 2],
            Sprite::Body(2) => [2, 6, 8, 2],
            Sprite::Body(3) => [2, 8, 7, 2],
            Sprite::Body(4) => [2, 12, 7, 3],
            Sprite::Body(5) => [2, 10, 8, 2],
            Sprite::Projectile(1) => [6, 4, 2, 2],
            Sprite::Projectile(2) => [10, 6, 2, 2],
            Sprite::Projectile(3) => [10, 8, 2, 2],
            Sprite::Projectile(4) => [10, 12, 2, 2],
            // DDNet cuts the flashes 4 cells wide (Teeworlds 3): the artwork reaches into the
            // fourth.
            Sprite::Muzzle(1, i) => [8 + 4 * u32::from(i), 4, 4, 2],
            Sprite::Muzzle(2, i) => [12 + 4 * u32::from(i), 6, 4, 2],
            Sprite::Muzzle(5, i) => [25, 4 * u32::from(i), 7, 4],
            Sprite::Health => [10, 2, 2, 2],
            Sprite::Armor => [12, 2, 2, 2],
            Sprite::FlagBlue => [12, 8, 4, 8],
            Sprite::FlagRed => [16, 8, 4, 8],
            _ => return None,
        })
    }

    /// Its size as the game scales sprites: its diagonal 1, its sides in proportion.
    pub(crate) fn scale(self) -> [f64; 2] {
        match self.cells() {
            Some([_, _, w, h]) => {
                let diagonal = f64::from(w * w + h * h).sqrt();
                [f64::from(w) / diagonal, f64::from(h) / diagonal]
            }
            None => [1.0, 1.0],
        }
    }
}

/// The parts of a 0.6 skin (on its 8 x 4 grid of a 256 x 128 picture).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Part {
    Body,
    BodyOutline,
    Foot,
    FootOutline,
    Hand,
    HandOutline,
    /// Eyes: normal, angry, pain, happy, dead, surprise.
    Eyes(u8),
}

impl Part {
    const ALL: [Part; 12] = [
        Part::Body,
        Part::BodyOutline,
        Part::Foot,
        Part::FootOutline,
        Part::Hand,
        Part::HandOutline,
        Part::Eyes(0),
        Part::Eyes(1),
        Part::Eyes(2),
        Part::Eyes(3),
        Part::Eyes(4),
        Part::Eyes(5),
    ];

    fn cells(self) -> [u32; 4] {
        match self {
            Part::Body => [0, 0, 3, 3],
            Part::BodyOutline => [3, 0, 3, 3],
            Part::Foot => [6, 1, 2, 1],
            Part::FootOutline => [6, 2, 2, 1],
            Part::Hand => [6, 0, 1, 1],
            Part::HandOutline => [7, 0, 1, 1],
            Part::Eyes(i) => [2 + u32::from(i.min(5)), 3, 1, 1],
        }
    }
}

/// A skin cut into its parts: as drawn with its own colors, and made gray for custom colors.
#[derive(Debug)]
pub(crate) struct SkinTextures {
    pub original: HashMap<Part, Arc<Texture>>,
    pub colorable: HashMap<Part, Arc<Texture>>,
}

impl SkinTextures {
    /// The texture of `part`, colorable (gray) or not.
    pub(crate) fn part(&self, part: Part, colorable: bool) -> Option<&Arc<Texture>> {
        match colorable {
            true => self.colorable.get(&part),
            false => self.original.get(&part),
        }
    }
}

/// The most skins kept at once; more players' skins are read again when needed.
const MAX_SKINS: usize = 64;

/// The game's pictures, cut into sprites; skins read when first needed.
#[derive(Debug, Default)]
pub struct GameData {
    dir: Option<PathBuf>,
    sprites: HashMap<Sprite, Arc<Texture>>,
    emoticons: Vec<Arc<Texture>>,
    /// The three splats of `particles.png` (laser heads).
    splats: Vec<Arc<Texture>>,
    skins: Mutex<HashMap<String, Option<Arc<SkinTextures>>>>,
    /// 0.7 skin parts by kind and name.
    parts: Mutex<HashMap<(PartKind, String), PartEntry>>,
}

/// A 0.7 part read, or found missing.
type PartEntry = Option<Arc<PartTextures>>;

/// The six kinds of parts of a 0.7 skin, in the order of a player's info.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum PartKind {
    Body,
    Marking,
    Decoration,
    Hands,
    Feet,
    Eyes,
}

impl PartKind {
    /// The kinds in the order of a player's info.
    pub(crate) const ALL: [PartKind; 6] = [
        PartKind::Body,
        PartKind::Marking,
        PartKind::Decoration,
        PartKind::Hands,
        PartKind::Feet,
        PartKind::Eyes,
    ];

    /// Its folder under `skins/`.
    fn folder(self) -> &'static str {
        match self {
            PartKind::Body => "body",
            PartKind::Marking => "marking",
            PartKind::Decoration => "decoration",
            PartKind::Hands => "hands",
            PartKind::Feet => "feet",
            PartKind::Eyes => "eyes",
        }
    }

    /// The grid of its picture and its cells, in the order [`PartTextures::cells`] keeps them:
    /// body: outline, body, shadow, upper outline; marking: itself; decoration, hands and
    /// feet: the part, its outline; eyes: normal, angry, pain, happy, surprise.
    fn cells(self) -> ((u32, u32), &'static [[u32; 4]]) {
        match self {
            PartKind::Body => (
                (2, 2),
                &[[0, 0, 1, 1], [1, 0, 1, 1], [0, 1, 1, 1], [1, 1, 1, 1]],
            ),
            PartKind::Marking => ((1, 1), &[[0, 0, 1, 1]]),
            PartKind::Decoration | PartKind::Hands | PartKind::Feet => {
                ((2, 1), &[[0, 0, 1, 1], [1, 0, 1, 1]])
            }
            PartKind::Eyes => (
                (2, 4),
                &[
                    [0, 0, 1, 1],
                    [1, 0, 1, 1],
                    [0, 1, 1, 1],
                    [1, 1, 1, 1],
                    [0, 2, 1, 1],
                ],
            ),
        }
    }
}

/// A 0.7 skin part cut into its cells, as they are and made gray for custom colors.
#[derive(Debug)]
pub(crate) struct PartTextures {
    pub original: Vec<Arc<Texture>>,
    pub colorable: Vec<Arc<Texture>>,
}

impl PartTextures {
    /// Cell `i` (see [`PartKind::cells`]).
    pub(crate) fn cell(&self, i: usize, colorable: bool) -> Option<&Arc<Texture>> {
        match colorable {
            true => self.colorable.get(i),
            false => self.original.get(i),
        }
    }
}

/// The `w` x `h` cells at cell `x, y` of `picture`, whose grid has `grid` cells across and
/// down, as a texture of their own.
fn cut(picture: &Picture, grid: (u32, u32), [x, y, w, h]: [u32; 4]) -> Option<Texture> {
    let (cell_w, cell_h) = (picture.width / grid.0, picture.height / grid.1);
    let (left, top) = (x.checked_mul(cell_w)?, y.checked_mul(cell_h)?);
    let (width, height) = (w.checked_mul(cell_w)?, h.checked_mul(cell_h)?);
    if left.checked_add(width)? > picture.width || top.checked_add(height)? > picture.height {
        return None;
    }
    let (left, top, width, height) = (left as usize, top as usize, width as usize, height as usize);
    let stride = picture.width as usize * 4;
    let mut rgba = Vec::with_capacity(width * height * 4);
    for row in top..top + height {
        let start = row * stride + left * 4;
        rgba.extend_from_slice(picture.rgba.get(start..start + width * 4)?);
    }
    Texture::from_rgba(width, height, &rgba, 1, Alpha::Straight)
}

/// A picture of the data folder, or a warning saying why not.
fn read(dir: &Path, name: &str, warnings: &mut Vec<String>) -> Option<Picture> {
    let path = dir.join(name);
    if !path.is_file() {
        warnings.push(format!(
            "no {} in the data folder: drawn without it",
            path.display()
        ));
        return None;
    }
    match crate::assets::read_png(&path, twcodec::Limits::default()) {
        Ok(picture) => Some(picture),
        Err(e) => {
            warnings.push(format!("{e}: drawn without it"));
            None
        }
    }
}

impl GameData {
    /// Reads `game.png` and `emoticons.png` of `dir` (a DDNet `data/` folder); skins are read
    /// when first drawn. What is missing is drawn in plain shapes, with a warning.
    pub fn load(dir: Option<&Path>, warnings: &mut Vec<String>) -> GameData {
        let Some(dir) = dir else {
            warnings.push(
                "no data folder (--data or TWCODEC_DATA): tees and items drawn as plain shapes"
                    .to_string(),
            );
            return GameData::default();
        };
        let mut data = GameData {
            dir: Some(dir.to_path_buf()),
            ..GameData::default()
        };
        if let Some(game) = read(dir, "game.png", warnings) {
            for sprite in Sprite::ALL {
                let texture = sprite.cells().and_then(|cells| cut(&game, (32, 16), cells));
                if let Some(texture) = texture {
                    data.sprites.insert(sprite, Arc::new(texture));
                }
            }
        }
        if let Some(particles) = read(dir, "particles.png", warnings) {
            for i in 0..3 {
                if let Some(texture) = cut(&particles, (8, 8), [2 + i, 0, 1, 1]) {
                    data.splats.push(Arc::new(texture));
                }
            }
        }
        if let Some(emoticons) = read(dir, "emoticons.png", warnings) {
            for i in 0..16 {
                if let Some(texture) = cut(&emoticons, (4, 4), [i % 4, i / 4, 1, 1]) {
                    data.emoticons.push(Arc::new(texture));
                }
            }
        }
        data
    }

    /// The texture of a sprite of `game.png`.
    pub(crate) fn sprite(&self, sprite: Sprite) -> Option<&Arc<Texture>> {
        self.sprites.get(&sprite)
    }

    /// Emoticon `i` (0 to 15).
    pub(crate) fn emoticon(&self, i: i32) -> Option<&Arc<Texture>> {
        usize::try_from(i).ok().and_then(|i| self.emoticons.get(i))
    }

    /// Splat `i` of `particles.png` (0 to 2).
    pub(crate) fn splat(&self, i: usize) -> Option<&Arc<Texture>> {
        self.splats.get(i)
    }

    /// The 0.7 part of `kind` called `name` (`skins/KIND/NAME.png`), else the standard one;
    /// `None` for none (an empty name) or when neither reads.
    pub(crate) fn part(&self, kind: PartKind, name: &str) -> Option<Arc<PartTextures>> {
        if name.is_empty() {
            return None;
        }
        self.part_named(kind, name).or_else(|| match kind {
            PartKind::Marking | PartKind::Decoration => None,
            _ => self.part_named(kind, "standard"),
        })
    }

    fn part_named(&self, kind: PartKind, name: &str) -> Option<Arc<PartTextures>> {
        let dir = self.dir.as_deref()?;
        if !plain_name(name) {
            return None;
        }
        let mut parts = self.parts.lock().ok()?;
        let key = (kind, name.to_string());
        if let Some(part) = parts.get(&key) {
            return part.clone();
        }
        if parts.len() >= MAX_SKINS * 6 {
            parts.clear();
        }
        let path = dir
            .join("skins")
            .join(kind.folder())
            .join(format!("{name}.png"));
        let part = (path.is_file())
            .then(|| crate::assets::read_png(&path, twcodec::Limits::default()).ok())
            .flatten()
            .and_then(|picture| {
                let (grid, cells) = kind.cells();
                let gray = gray(&picture);
                let mut original = Vec::new();
                let mut colorable = Vec::new();
                for &cell in cells {
                    original.push(Arc::new(cut(&picture, grid, cell)?));
                    colorable.push(Arc::new(cut(&gray, grid, cell)?));
                }
                Some(PartTextures {
                    original,
                    colorable,
                })
            })
            .map(Arc::new);
        parts.insert(key, part.clone());
        part
    }

    /// The skin called `name` (`skins/NAME.png`), else `default`; `None` when neither reads.
    pub(crate) fn skin(&self, name: &str) -> Option<Arc<SkinTextures>> {
        self.skin_named(name).or_else(|| self.skin_named("default"))
    }

    fn skin_named(&self, name: &str) -> Option<Arc<SkinTextures>> {
        let dir = self.dir.as_deref()?;
        if !plain_name(name) {
            return None;
        }
        let mut skins = self.skins.lock().ok()?;
        if let Some(skin) = skins.get(name) {
            return skin.clone();
        }
        if skins.len() >= MAX_SKINS {
            skins.clear();
        }
        let path = dir.join("skins").join(format!("{name}.png"));
        let skin = (path.is_file())
            .then(|| crate::assets::read_png(&path, twcodec::Limits::default()).ok())
            .flatten()
            .and_then(|picture| skin_textures(&picture))
            .map(Arc::new);
        skins.insert(name.to_string(), skin.clone());
        skin
    }
}

/// Whether a name from a demo is a plain file name: one that never leaves the skins folder.
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && !name.contains(['/', '\\', '\0', ':'])
}

/// A picture in grays, each pixel its luma as DDNet's client computes it
/// (docs/demo-render.md, "Skins").
fn gray(picture: &Picture) -> Picture {
    let mut rgba = picture.rgba.clone();
    for p in rgba.chunks_exact_mut(4) {
        let luma = 0.2126 * f32::from(p[0]) + 0.7152 * f32::from(p[1]) + 0.0722 * f32::from(p[2]);
        let v = luma as u8;
        p[0] = v;
        p[1] = v;
        p[2] = v;
    }
    Picture {
        width: picture.width,
        height: picture.height,
        rgba,
    }
}

/// A 0.6 skin's parts, as they are and made colorable.
fn skin_textures(picture: &Picture) -> Option<SkinTextures> {
    if picture.width < 8 || picture.height < 4 {
        return None;
    }
    let gray = colorable(picture);
    let mut original = HashMap::new();
    let mut colorable = HashMap::new();
    for part in Part::ALL {
        original.insert(part, Arc::new(cut(picture, (8, 4), part.cells())?));
        colorable.insert(part, Arc::new(cut(&gray, (8, 4), part.cells())?));
    }
    Some(SkinTextures {
        original,
        colorable,
    })
}

/// A skin made gray for custom colors, as DDNet's client makes it: each pixel its luma; in
/// the body's cells the grays are then stretched so that the body's most common gray (among
/// its pixels more than half opaque) becomes 192 (docs/demo-render.md, "Skins").
fn colorable(picture: &Picture) -> Picture {
    let mut gray = gray(picture);
    let w = picture.width as usize;
    let (body_w, body_h) = (w * 3 / 8, picture.height as usize * 3 / 4);
    let mut counts = [0u32; 256];
    for y in 0..body_h {
        for p in gray.rgba[y * w * 4..][..body_w * 4].chunks_exact(4) {
            if p[3] > 128 {
                counts[usize::from(p[0])] += 1;
            }
        }
    }
    // The most common gray from 1 up; of equal counts the lowest.
    let mut most = 1usize;
    for v in 2..256 {
        if counts[v] > counts[most] {
            most = v;
        }
    }
    let most = most as f32;
    let target = 192.0f32;
    for y in 0..body_h {
        for p in gray.rgba[y * w * 4..][..body_w * 4].chunks_exact_mut(4) {
            let v = f32::from(p[0]);
            let mapped = if v <= most {
                v / most * target
            } else {
                (v - most) / (255.0 - most) * (255.0 - target) + target
            };
            let mapped = mapped.clamp(0.0, 255.0) as u8;
            p[0] = mapped;
            p[1] = mapped;
            p[2] = mapped;
        }
    }
    gray
}
