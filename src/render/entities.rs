//! The pictures of the entities view: the entities tileset (the game's, found next to
//! `mapres`, or plain colors when there is none) and the speedup arrow.

use std::path::PathBuf;

use super::texture::Texture;
use super::RenderOptions;

/// Where DDNet keeps entities tilesets, relative to its `data/mapres` folder: the default
/// ("clear") set, then the "comfort" asset.
const NEXT_TO_MAPRES: [&str; 2] = [
    "../editor/entities_clear/ddnet.png",
    "../assets/entities/comfort/ddnet.png",
];

/// The entities tileset `options` name or imply, or plain colors and a warning saying why.
pub(super) fn tileset(options: &RenderOptions) -> (Texture, Option<String>) {
    let candidates: Vec<PathBuf> = match (&options.entities_tileset, &options.mapres) {
        (Some(path), _) => vec![path.clone()],
        (None, Some(mapres)) => NEXT_TO_MAPRES.iter().map(|p| mapres.join(p)).collect(),
        (None, None) => Vec::new(),
    };
    let explicit = options.entities_tileset.is_some();
    for path in &candidates {
        if !explicit && !path.is_file() {
            continue;
        }
        let loaded = crate::assets::read_png(path, crate::Limits::default()).and_then(|p| {
            Texture::from_rgba(p.width as usize, p.height as usize, &p.rgba)
                .ok_or_else(|| crate::Error::malformed("a picture of no pixels"))
        });
        match loaded {
            Ok(texture) => return (texture, None),
            Err(e) => {
                let why = format!(
                    "entities tileset {}: {e}; drawn in plain colors",
                    path.display()
                );
                return (plain(), Some(why));
            }
        }
    }
    let why = "no entities tileset (--entities-tileset, or DDNet's data folder around --mapres): \
               physics tiles drawn in plain colors";
    (plain(), Some(why.to_string()))
}

/// A tileset of plain squares: the main physics tiles in colors that say what they are
/// (solid gray, death red, unhookable dark, freeze blue), every other id a color of its own.
pub(super) fn plain() -> Texture {
    Texture::tile_colors(4, |index, x, y| {
        let edge = x == 0 || y == 0;
        let [r, g, b] = match index {
            1 => [110, 110, 110],
            2 => [220, 40, 40],
            3 => [45, 45, 60],
            9 | 12 => [120, 170, 255],
            _ => {
                let hash = (index as u32).wrapping_mul(2_654_435_761);
                [(hash >> 8) as u8, (hash >> 16) as u8, (hash >> 24) as u8]
            }
        };
        let shade = |c: u8| if edge { c / 2 } else { c };
        [
            shade(r),
            shade(g),
            shade(b),
            if index == 0 { 0 } else { 220 },
        ]
    })
}

/// The speedup arrow in cell 1 of a tileset: white with a dark edge, pointing right (+x).
pub(super) fn arrow() -> Texture {
    const SIZE: usize = 32;
    Texture::tile_colors(SIZE, |index, x, y| {
        if index != 1 {
            return [0; 4];
        }
        let (fx, fy) = (x as f32 + 0.5, (y as f32 + 0.5 - SIZE as f32 / 2.0).abs());
        // A shaft from 4 to 20 of height 6, a head from 16 to 28 narrowing to its tip.
        let shaft = (4.0..20.0).contains(&fx) && fy < 3.0;
        let head = (16.0..28.0).contains(&fx) && fy < (28.0 - fx) * 0.9;
        let inner_shaft = (5.0..20.0).contains(&fx) && fy < 2.0;
        let inner_head = (17.0..26.5).contains(&fx) && fy < (26.5 - fx) * 0.9;
        match (inner_shaft || inner_head, shaft || head) {
            (true, _) => [255, 255, 255, 255],
            (false, true) => [30, 30, 30, 255],
            _ => [0; 4],
        }
    })
}
