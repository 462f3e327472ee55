//! Picture sizes for the places DDNet and its tools show map pictures (`twcodec render
//! --thumbnail`), each named after its use, with where the size comes from (docs/cli.md,
//! "render", lists them too).
//!
//! A preset is a size only ([`Size::Pixels`]): the view stays the caller's. DDNet's own map
//! pictures are game screenshots of one place of the map (see [`Thumbnail::Website`]), so a
//! picture like theirs is a camera view (`--camera X,Y`); the default whole view fits the
//! whole map into the preset's size instead.
//!
//! ```
//! use twcodec_tools::render::thumbnail::Thumbnail;
//! use twcodec_tools::render::Size;
//!
//! assert_eq!(Thumbnail::Website.size(), Size::Pixels { width: 360, height: 225 });
//! assert_eq!("screenshot".parse::<Thumbnail>(), Ok(Thumbnail::Screenshot));
//! ```

use std::str::FromStr;

use super::Size;

/// A picture size for a use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Thumbnail {
    /// 360 x 225: the map pictures of DDNet's website (`ddnet.org/ranks/maps/NAME.png`, shown
    /// on its map, release and mapper pages). DDNet's map release process makes each from a
    /// 1440 x 900 game screenshot scaled to 25% (ddnet/ddnet-scripts, `map-release`, step 2),
    /// and the pages show it at `width="360" height="225"` (ddnet/ddnet-scripts,
    /// `servers/scripts/releases.py`).
    Website,
    /// 1440 x 900: the game screenshot DDNet's website pictures are made from (ddnet-scripts,
    /// `map-release`: "a screenshot of the map on test server at 1440x900, HD on, no chat,
    /// no HUD").
    Screenshot,
    /// 360 x 225, chosen: DDNet's server browser shows no map pictures yet (ddnet/ddnet#2892
    /// asks for them; the draft ddnet/ddnet#12815 renders thumbnails for known maps and names
    /// no size). The website's size, so that one picture serves both.
    ServerBrowser,
    /// 1920 x 1080: twgpu's map photography (`twgpu-map-photography` of twgpu-tools), whose
    /// source as stored in the project's reference copy sets a resolution of 1920 x 1080 and
    /// a zoom of 1.25 (for a camera view; see docs/cli.md on what could not be checked).
    MapPhotography,
}

impl Thumbnail {
    /// Every preset, in the order the help lists them.
    pub const ALL: [Thumbnail; 4] = [
        Thumbnail::Website,
        Thumbnail::Screenshot,
        Thumbnail::ServerBrowser,
        Thumbnail::MapPhotography,
    ];

    /// The name the CLI takes: `website`, `screenshot`, `server-browser`, `map-photography`.
    pub fn name(self) -> &'static str {
        match self {
            Thumbnail::Website => "website",
            Thumbnail::Screenshot => "screenshot",
            Thumbnail::ServerBrowser => "server-browser",
            Thumbnail::MapPhotography => "map-photography",
        }
    }

    /// Width and height in pixels.
    pub fn pixels(self) -> (u32, u32) {
        match self {
            Thumbnail::Website | Thumbnail::ServerBrowser => (360, 225),
            Thumbnail::Screenshot => (1440, 900),
            Thumbnail::MapPhotography => (1920, 1080),
        }
    }

    /// The size to render at.
    pub fn size(self) -> Size {
        let (width, height) = self.pixels();
        Size::Pixels { width, height }
    }

    /// The zoom of a camera view the use draws at: 1.25 for map photography's default, else 1
    /// (the game's default view).
    pub fn zoom(self) -> f64 {
        match self {
            Thumbnail::MapPhotography => 1.25,
            _ => 1.0,
        }
    }
}

impl FromStr for Thumbnail {
    type Err = String;

    fn from_str(text: &str) -> Result<Thumbnail, String> {
        (Thumbnail::ALL.into_iter())
            .find(|t| t.name().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| {
                let names: Vec<&str> = Thumbnail::ALL.iter().map(|t| t.name()).collect();
                format!("no thumbnail preset {text:?}: {}", names.join(", "))
            })
    }
}

impl std::fmt::Display for Thumbnail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
