//! A demo drawn as the game draws it (`twcodec demo render`): the map, and over it, after the
//! game layer, the game world of each instant: tees with their skins, eyes, feet, hands and
//! weapons, hooks, projectiles, laser beams, pickups, flags, names and emoticons, mixed between
//! snapshots as DDNet's client does (docs/demo-render.md).
//!
//! Two steps, each usable alone:
//! - [`Timeline`] replays a demo and gives the [`World`] at instants a frame rate apart,
//!   holding two snapshots at a time whatever the demo's length;
//! - [`DemoRenderer`] draws a [`World`] over the map, with the game's pictures (`--data`, a
//!   DDNet `data/` folder: `game.png`, `emoticons.png`, `skins/`) and the map's.
//!
//! ```no_run
//! use twcodec::demo::Demo;
//! use twcodec_tools::render::world::{DemoRenderOptions, DemoRenderer, Timeline};
//!
//! let demo = Demo::open("race.demo")?;
//! let options = DemoRenderOptions::default().data("ddnet/data");
//! let mut renderer = DemoRenderer::new(&demo, &options)?;
//! for (i, world) in Timeline::new(&demo, 25.0)?.enumerate() {
//!     let frame = renderer.render(&world?)?;
//!     std::fs::write(format!("frame{i:05}.png"), frame.picture.to_png()?)?;
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod data;
mod draw;
mod physics;
mod state;

use std::path::PathBuf;
use std::sync::Arc;

use twcodec::demo::{Demo, Replay};
use twcodec::map::Map;
use twcodec::snap::{Protocol, Snapshot};
use twcodec::{Error, ErrorKind};

pub use data::GameData;
pub use physics::Collision;
pub use state::{
    flight_position, world_between, Beam, Emoticon, FlagView, Item, PickupLook, Player, Shot, Skin,
    Tee, World, EMOTICON_TICKS, TICKS_PER_SECOND,
};

use super::pictures::{FileCache, Textures};
use super::{Frame, RenderOptions, Rendered, Size, View};

/// What the camera looks at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Camera {
    /// The player who recorded the demo (or, while there is none, where the camera was).
    Local,
    /// The tee of this client id.
    Player(i32),
    /// A fixed point, in tiles.
    Fixed {
        /// Horizontal, in tiles.
        x: f64,
        /// Vertical, in tiles.
        y: f64,
    },
}

/// How a demo is drawn.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DemoRenderOptions {
    /// The picture's size in pixels.
    pub width: u32,
    /// The picture's height.
    pub height: u32,
    /// 1.0 shows what the game shows by default; 2.0 twice as much.
    pub zoom: f64,
    /// What the camera follows.
    pub camera: Camera,
    /// The game's pictures: a DDNet `data/` folder (`game.png`, `emoticons.png`, `skins/`);
    /// `None`: `$TWCODEC_DATA`, else tees and items drawn as plain shapes.
    pub data: Option<PathBuf>,
    /// The folder of the map's external pictures (`mapres`).
    pub mapres: Option<PathBuf>,
    /// Names above the tees.
    pub names: bool,
    /// The entities view in percent, as for maps ([`RenderOptions::entities`]).
    pub entities: u8,
    /// Detail layers.
    pub detail: bool,
}

impl Default for DemoRenderOptions {
    fn default() -> DemoRenderOptions {
        DemoRenderOptions {
            width: 1280,
            height: 720,
            zoom: 1.0,
            camera: Camera::Local,
            data: std::env::var_os("TWCODEC_DATA")
                .filter(|dir| !dir.is_empty())
                .map(PathBuf::from),
            mapres: crate::assets::default_mapres(),
            names: true,
            entities: 0,
            detail: true,
        }
    }
}

/// Builder methods, each setting the field of its name.
impl DemoRenderOptions {
    /// Sets the picture's size.
    pub fn size(self, width: u32, height: u32) -> DemoRenderOptions {
        DemoRenderOptions {
            width,
            height,
            ..self
        }
    }

    /// Sets [`DemoRenderOptions::zoom`].
    pub fn zoom(self, zoom: f64) -> DemoRenderOptions {
        DemoRenderOptions { zoom, ..self }
    }

    /// Sets [`DemoRenderOptions::camera`].
    pub fn camera(self, camera: Camera) -> DemoRenderOptions {
        DemoRenderOptions { camera, ..self }
    }

    /// Sets [`DemoRenderOptions::data`].
    pub fn data(self, data: impl Into<PathBuf>) -> DemoRenderOptions {
        DemoRenderOptions {
            data: Some(data.into()),
            ..self
        }
    }

    /// Sets [`DemoRenderOptions::mapres`].
    pub fn mapres(self, mapres: impl Into<Option<PathBuf>>) -> DemoRenderOptions {
        DemoRenderOptions {
            mapres: mapres.into(),
            ..self
        }
    }

    /// Sets [`DemoRenderOptions::names`].
    pub fn names(self, names: bool) -> DemoRenderOptions {
        DemoRenderOptions { names, ..self }
    }

    /// Sets [`DemoRenderOptions::entities`].
    pub fn entities(self, entities: u8) -> DemoRenderOptions {
        DemoRenderOptions { entities, ..self }
    }
}

/// A snapshot and its tick.
#[derive(Debug, Clone)]
struct Snap {
    snapshot: Arc<Snapshot>,
    tick: i32,
}

/// The world of a demo at instants `50 / fps` ticks apart, from its first snapshot to its last
/// ([`World`]; see the [module docs](self)). Two snapshots are held at a time; after an error
/// the iterator ends.
#[derive(Debug)]
pub struct Timeline<'d> {
    replay: Replay<'d>,
    protocol: Protocol,
    prev: Option<Snap>,
    next: Option<Snap>,
    /// The next instant, in ticks; `None` until the first snapshot is read.
    at: Option<f64>,
    step: f64,
    from: Option<f64>,
    to: Option<f64>,
    /// The emoticons shown in the last 2 seconds.
    emoticons: Vec<Emoticon>,
    demo: &'d Demo,
    /// What stale cores are moved forward through: the demo's map, read at the first instant
    /// unless [`Timeline::with_map`] gave one (`None` until then).
    collision: Option<Option<Arc<Collision>>>,
    /// The replay has no more ticks.
    ended: bool,
    done: bool,
}

impl<'d> Timeline<'d> {
    /// The instants of `demo`, `fps` a second of game time (50: every tick). Tees whose
    /// movement the server sent some ticks before are moved forward through the demo's map as
    /// the client does (without it, when the map does not load: [`Timeline::with_map`]).
    pub fn new(demo: &'d Demo, fps: f64) -> Result<Timeline<'d>, Error> {
        if !(fps.is_finite() && fps > 0.0 && fps <= 1000.0) {
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                format!("{fps} frames a second: more than 0 and at most 1000"),
            ));
        }
        Ok(Timeline {
            replay: demo.replay(),
            protocol: demo.protocol(),
            prev: None,
            next: None,
            at: None,
            step: TICKS_PER_SECOND / fps,
            from: None,
            to: None,
            emoticons: Vec::new(),
            demo,
            collision: None,
            ended: false,
            done: false,
        })
    }

    /// Moves stale tees forward through `map` (for a demo that embeds none, or another
    /// map than the one it embeds).
    pub fn with_map(self, map: &Map) -> Timeline<'d> {
        self.with_collision(Arc::new(Collision::new(map)))
    }

    /// [`Timeline::with_map`] with the map's collision made already (shared between
    /// timelines of one map).
    pub fn with_collision(self, collision: Arc<Collision>) -> Timeline<'d> {
        Timeline {
            collision: Some(Some(collision)),
            ..self
        }
    }

    /// Starts at tick `from` (a fraction for an instant between ticks) instead of the first
    /// snapshot.
    pub fn from_tick(self, from: f64) -> Timeline<'d> {
        Timeline {
            from: Some(from),
            ..self
        }
    }

    /// Ends at tick `to` (included) instead of the last snapshot.
    pub fn to_tick(self, to: f64) -> Timeline<'d> {
        Timeline {
            to: Some(to),
            ..self
        }
    }

    /// Reads the next tick of the replay into `next`; false at the end.
    fn pull(&mut self) -> Result<bool, Error> {
        let Some(frame) = self.replay.next().transpose()? else {
            self.ended = true;
            return Ok(false);
        };
        for chunk in &frame.messages {
            if let Ok(twcodec::netmsg::NetMessage::SvEmoticon(m)) = chunk.message(self.protocol) {
                self.emoticons.push(Emoticon {
                    client_id: m.client_id.0,
                    emoticon: m.emoticon.0,
                    tick: frame.tick,
                });
            }
        }
        let tick = frame.tick;
        self.emoticons
            .retain(|e| tick.saturating_sub(e.tick) <= EMOTICON_TICKS);
        if let Some(snapshot) = frame.snapshot {
            self.prev = self.next.take();
            self.next = Some(Snap { snapshot, tick });
        }
        Ok(true)
    }

    fn advance(&mut self) -> Result<Option<World>, Error> {
        // The first instant: the first snapshot's tick, or `from`.
        let at = match self.at {
            Some(at) => at,
            None => {
                while self.next.is_none() {
                    if !self.pull()? {
                        return Ok(None);
                    }
                }
                let first = self.next.as_ref().map_or(0.0, |s| f64::from(s.tick));
                let at = self.from.map_or(first, |from| from.max(first));
                self.at = Some(at);
                at
            }
        };
        if self.to.is_some_and(|to| at > to) {
            return Ok(None);
        }
        // Read on until `next` is past the instant.
        while !self.ended && self.next.as_ref().is_some_and(|s| f64::from(s.tick) <= at) {
            self.pull()?;
        }
        let (prev, next) = match (&self.prev, &self.next) {
            (Some(prev), Some(next)) if f64::from(next.tick) > at => (prev, next),
            // Past the last snapshot: only its own instant is drawn.
            (_, Some(last)) if f64::from(last.tick) <= at => {
                if f64::from(last.tick) < at {
                    return Ok(None);
                }
                (last, last)
            }
            _ => return Ok(None),
        };
        let demo = self.demo;
        let collision = self
            .collision
            .get_or_insert_with(|| demo.map().ok().map(|map| Arc::new(Collision::new(&map))));
        let span = f64::from(next.tick.saturating_sub(prev.tick));
        let intra = match span > 0.0 {
            true => (at - f64::from(prev.tick)) / span,
            false => 0.0,
        };
        let mut world = world_between(
            self.protocol,
            Some((&prev.snapshot, prev.tick)),
            (&next.snapshot, next.tick),
            intra,
            collision.as_deref(),
        );
        world.tick = at;
        world.emoticons = (self.emoticons.iter())
            .filter(|e| f64::from(e.tick) <= at)
            .copied()
            .collect();
        self.at = Some(at + self.step);
        Ok(Some(world))
    }
}

impl Iterator for Timeline<'_> {
    type Item = Result<World, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let world = self.advance().transpose();
        self.done = !matches!(world, Some(Ok(_)));
        world
    }
}

/// Draws the worlds of a demo over its map, keeping the map, its textures and the game's
/// pictures between frames.
pub struct DemoRenderer {
    map: Map,
    options: DemoRenderOptions,
    textures: Textures,
    /// What each layer drawn holds (the map does not change between frames).
    occupied: Vec<Option<super::Occupied>>,
    data: GameData,
    /// Where the camera was last: where it stays while there is nothing to follow.
    camera: Option<[f64; 2]>,
    warnings: Vec<String>,
}

impl std::fmt::Debug for DemoRenderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (f.debug_struct("DemoRenderer"))
            .field("options", &self.options)
            .field("camera", &self.camera)
            .finish_non_exhaustive()
    }
}

impl DemoRenderer {
    /// A renderer of `demo` over its embedded map.
    pub fn new(demo: &Demo, options: &DemoRenderOptions) -> Result<DemoRenderer, Error> {
        let map = demo.map()?;
        DemoRenderer::with_map(map, options)
    }

    /// A renderer over `map` (for a demo that embeds none, the map it was recorded on).
    pub fn with_map(map: Map, options: &DemoRenderOptions) -> Result<DemoRenderer, Error> {
        let files = FileCache::keeping_embedded();
        let mut warnings = Vec::new();
        let map_options = DemoRenderer::map_options(options, [0.0, 0.0]);
        let textures = Textures::load(&files, &map, &map_options, &mut warnings);
        let occupied = super::occupied_layers(&map, &map_options);
        let data = GameData::load(options.data.as_deref(), &mut warnings);
        Ok(DemoRenderer {
            map,
            options: options.clone(),
            textures,
            occupied,
            data,
            camera: None,
            warnings,
        })
    }

    /// What could not be drawn as asked so far: missing pictures of the map or of the game.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The map drawn under the world.
    pub fn map(&self) -> &Map {
        &self.map
    }

    fn map_options(options: &DemoRenderOptions, center: [f64; 2]) -> RenderOptions {
        RenderOptions::default()
            .size(Size::Pixels {
                width: options.width,
                height: options.height,
            })
            .view(View::Camera {
                x: center[0] / 32.0,
                y: center[1] / 32.0,
                zoom: options.zoom,
            })
            .entities(options.entities)
            .detail(options.detail)
            .mapres(options.mapres.clone())
    }

    /// Where the camera looks in `world`, in world units.
    fn center(&mut self, world: &World) -> [f64; 2] {
        let followed = match self.options.camera {
            Camera::Fixed { x, y } => return [x * 32.0, y * 32.0],
            Camera::Local => world.local.and_then(|id| world.tee(id)),
            Camera::Player(id) => world.tee(id),
        };
        if let Some(tee) = followed {
            self.camera = Some(tee.pos);
        }
        // Nothing followed yet: the first tee, else the middle of the map.
        let fallback = || {
            world.tees.first().map(|t| t.pos).unwrap_or_else(|| {
                let (w, h) = super::extent(&self.map);
                [w * 16.0, h * 16.0]
            })
        };
        *self.camera.get_or_insert_with(fallback)
    }

    /// Draws `world` over the map: the map's layers up to its game layer, the world, then the
    /// layers after; envelopes at the world's time since the start of the round.
    pub fn render(&mut self, world: &World) -> Result<Rendered, Error> {
        let center = self.center(world);
        let time_ms = world.tick / TICKS_PER_SECOND * 1000.0;
        let options = DemoRenderer::map_options(&self.options, center).time_ms(time_ms);
        if options.entities > 100 {
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                format!("an entities view of {}%: at most 100", options.entities),
            ));
        }
        let frame = Frame::new(&self.map, &options)?;
        let data = &self.data;
        let names = self.options.names;
        let map = &self.map;
        let mut world_ops = |mapping: &super::Mapping, budget: &mut super::Budget<'_>| {
            draw::world_ops(map, data, world, mapping, budget)
        };
        let (ops, work) = super::lay_out(
            &self.map,
            &options,
            &frame,
            &self.textures,
            &self.occupied,
            Some(&mut world_ops),
        )?;
        let mut picture = super::paint(&ops, &options, &frame, None);
        // Names go over everything, the map's foreground too.
        if names {
            draw::name_plates(&mut picture, world, &frame.screen());
        }
        Ok(Rendered {
            picture,
            warnings: Vec::new(),
            work,
        })
    }
}
