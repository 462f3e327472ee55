//! Demos drawn (`twcodec_tools::render::world`, `twcodec demo render`): snapshots built here,
//! drawn over a map built here, with the game's pictures of the corpus (`gamedata/`), against
//! goldens (`tests/golden/demo/`, reviewed by eye; see `tests/golden/README.md`); frames of the
//! corpus demos at the moments their recordings' READMEs describe; the world's rules (who is
//! drawn, where, mixed between snapshots) checked on its values; the command line.
//!
//! `TWCODEC_BLESS=1 cargo test --test demo_render` accepts changed pictures.

mod common;
#[path = "common/golden.rs"]
mod golden;

use std::path::PathBuf;

use twcodec::demo::Demo;
use twcodec::map::{Grid, Layer, Map, NewGroup};
use twcodec::schema::map::tile::Tile;
use twcodec::schema::map::I32String;
use twcodec::snap::{Protocol, Snapshot, SnapshotBuilder};
use twcodec_tools::render::world::{
    world_between, Camera, DemoRenderOptions, DemoRenderer, Emoticon, Timeline, World,
};

/// The corpus' `gamedata/teeworlds06` (the game's pictures of 0.6, as DDNet's `data/`), or
/// `None` when the corpus is missing (a failure under `CI=true`).
fn data06() -> Option<PathBuf> {
    Some(common::corpus_dir()?.join("gamedata/teeworlds06"))
}

/// A map of 40 x 24 tiles: a game layer with solid ground from row 16 down and walls at
/// columns 0 and 27, and a tiles layer that shows the same in plain gray squares.
fn arena() -> Map {
    let mut map = twcodec_testkit::sample::empty_map().unwrap();
    let group = map.add_group(NewGroup::new("Game")).unwrap();
    let (w, h) = (40, 24);
    let solid = |x: usize, y: usize| y >= 16 || x == 27 || x == 0;
    let mut game = Grid::filled(w, h, Tile::default()).unwrap();
    let mut look = Grid::filled(w, h, Tile::default()).unwrap();
    for y in 0..h {
        for x in 0..w {
            if solid(x, y) {
                game.get_mut(x, y).unwrap().id = 1;
                look.get_mut(x, y).unwrap().id = 1;
            }
        }
    }
    map.add_layer(group, Layer::new_tiles("Ground", look).unwrap())
        .unwrap();
    map.add_layer(group, Layer::new_game(game).unwrap())
        .unwrap();
    map
}

/// A character of 0.6 (type 9): core, then player flags, health, armor, ammo, weapon, emote,
/// attack tick.
#[derive(Debug, Clone, Copy)]
struct Char {
    x: i32,
    y: i32,
    vel_x: i32,
    angle: f64,
    direction: i32,
    jumped: i32,
    hook: Option<(i32, i32)>,
    weapon: i32,
    emote: i32,
    attack_tick: i32,
    player_flags: i32,
}

impl Char {
    fn at(x: i32, y: i32) -> Char {
        Char {
            x,
            y,
            vel_x: 0,
            angle: 0.0,
            direction: 0,
            jumped: 0,
            hook: None,
            weapon: 1,
            emote: 0,
            attack_tick: 0,
            player_flags: 1,
        }
    }

    fn ints(&self, tick: i32) -> Vec<i32> {
        let (hook_state, (hook_x, hook_y)) = match self.hook {
            Some(at) => (5, at),
            None => (0, (self.x, self.y)),
        };
        vec![
            tick,
            self.x,
            self.y,
            self.vel_x,
            0,
            (self.angle * 256.0) as i32,
            self.direction,
            self.jumped,
            -1,
            hook_state,
            0,
            hook_x,
            hook_y,
            0,
            0,
            self.player_flags,
            10,
            0,
            -1,
            self.weapon,
            self.emote,
            self.attack_tick,
        ]
    }
}

/// Ints of a string as the snapshot stores it (`I32String`).
fn string<const N: usize>(text: &str) -> Vec<i32> {
    let s = I32String::<N>::new(text.as_bytes());
    s.ints.to_vec()
}

/// A 0.6 player: player info (local for client 0) and client info (name, skin, colors).
fn add_player(builder: &mut SnapshotBuilder, id: u16, skin: &str, colors: Option<(i32, i32)>) {
    let local = i32::from(id == 0);
    builder
        .add_item(10, id, &[local, i32::from(id), 0, 0, 0])
        .unwrap();
    let mut info = string::<4>(&format!("tee {id}"));
    info.extend(string::<3>(""));
    info.push(-1);
    info.extend(string::<6>(skin));
    let (custom, body, feet) = match colors {
        Some((body, feet)) => (1, body, feet),
        None => (0, 0, 0),
    };
    info.extend([custom, body, feet]);
    builder.add_item(11, id, &info).unwrap();
}

/// The world of one snapshot, as if it were in the snapshot before too (at the same tick: the
/// instant of the snapshot itself).
fn world_of(snapshot: &Snapshot, protocol: Protocol, tick: i32) -> World {
    world_between(
        protocol,
        Some((snapshot, tick)),
        (snapshot, tick),
        0.0,
        None,
    )
}

/// Draws `world` over the arena at a fixed camera on tile (x, y), `zoom`, 480 x 270, without
/// names (the corpus frames show them).
fn draw(world: &World, data: PathBuf, x: f64, y: f64, zoom: f64) -> twcodec_tools::assets::Picture {
    let options = DemoRenderOptions::default()
        .size(480, 270)
        .zoom(zoom)
        .camera(Camera::Fixed { x, y })
        .data(data)
        .names(false)
        .mapres(None);
    let mut renderer = DemoRenderer::with_map(arena(), &options).unwrap();
    let rendered = renderer.render(world).unwrap();
    rendered.picture
}

const TICK: i32 = 1000;

/// One tee per weapon (hammer, gun, shotgun, grenade launcher, laser, ninja sword), aiming
/// right on the top row, left in the middle and up to the right at the bottom; standing on
/// the ground, walking and in the air.
#[test]
fn weapons_in_every_direction() {
    let Some(data) = data06() else { return };
    let mut builder = SnapshotBuilder::new();
    let mut id = 0u16;
    for (row, angle) in [(0, 0.0), (1, std::f64::consts::PI), (2, -0.8)] {
        for weapon in 0..6 {
            let x = 4 * 32 + weapon * 128 + 16;
            let y = [8, 11, 14][row] * 32 + 16;
            let mut c = Char::at(x, y);
            c.weapon = weapon;
            c.angle = angle;
            builder.add_item(9, id, &c.ints(TICK)).unwrap();
            add_player(&mut builder, id, "default", None);
            id += 1;
        }
    }
    let snapshot = builder.finish().unwrap();
    let world = world_of(&snapshot, Protocol::Ddnet06, TICK);
    assert_eq!(world.tees.len(), 18);
    let picture = draw(&world, data, 15.0, 11.5, 0.6);
    golden::assert_golden("demo/weapons", &picture);
}

/// Eyes of every emote, in custom colors; a tee hooked to the wall, one walking with its air
/// jump used (darker feet), one typing (a bubble), one showing an emoticon, one recoiling from
/// a shot with the muzzle flash.
#[test]
fn emotes_colors_hook_and_bubbles() {
    let Some(data) = data06() else { return };
    let mut builder = SnapshotBuilder::new();
    // Colors, HSL packed: a red body, green feet; blue; yellow.
    let colors = [
        (0x00ff80, 0x55ff40),
        (0xaaff80, 0xaaff20),
        (0x2aff80, 0x2a0080),
    ];
    for emote in 0..6 {
        let mut c = Char::at(4 * 32 + emote * 96 + 16, 15 * 32 + 16);
        c.emote = emote;
        c.angle = -0.3;
        builder.add_item(9, emote as u16, &c.ints(TICK)).unwrap();
        let color = colors[emote as usize % 3];
        add_player(&mut builder, emote as u16, "default", Some(color));
    }
    let mut hooked = Char::at(22 * 32, 9 * 32);
    hooked.hook = Some((27 * 32, 7 * 32));
    hooked.angle = -0.3;
    builder.add_item(9, 6, &hooked.ints(TICK)).unwrap();
    add_player(&mut builder, 6, "bluekitty", None);
    let mut walking = Char::at(18 * 32, 15 * 32 + 16);
    walking.vel_x = 2560;
    walking.direction = 1;
    walking.jumped = 2;
    builder.add_item(9, 7, &walking.ints(TICK)).unwrap();
    add_player(&mut builder, 7, "redbopp", None);
    let mut typing = Char::at(8 * 32, 10 * 32);
    typing.player_flags = 1 | 4;
    builder.add_item(9, 8, &typing.ints(TICK)).unwrap();
    add_player(&mut builder, 8, "cammo", None);
    let emoticon = Char::at(12 * 32, 10 * 32);
    builder.add_item(9, 9, &emoticon.ints(TICK)).unwrap();
    add_player(&mut builder, 9, "twintri", None);
    let mut shooting = Char::at(16 * 32, 10 * 32);
    shooting.weapon = 2;
    shooting.attack_tick = TICK - 1;
    builder.add_item(9, 10, &shooting.ints(TICK)).unwrap();
    add_player(&mut builder, 10, "saddo", None);
    let snapshot = builder.finish().unwrap();
    let mut world = world_of(&snapshot, Protocol::Ddnet06, TICK);
    world.emoticons.push(Emoticon {
        client_id: 9,
        emoticon: 2,
        tick: TICK - 20,
    });
    // The hook ends at the wall, the walking tee has used its air jump.
    let hook = world.tee(6).unwrap().hook.unwrap();
    assert_eq!(hook, [864.0, 224.0]);
    assert!(world.tee(7).unwrap().air_jumped);
    let picture = draw(&world, data, 15.0, 11.5, 0.6);
    golden::assert_golden("demo/emotes_hook", &picture);
}

/// Projectiles of the gun, shotgun and grenade launcher in flight, a laser beam, pickups
/// (heart, shield, each weapon, the ninja sword) and both flags.
#[test]
fn projectiles_lasers_pickups_and_flags() {
    let Some(data) = data06() else { return };
    let mut builder = SnapshotBuilder::new();
    // Projectiles fired 5 ticks ago to the right (direction x 100).
    for (i, weapon) in [1, 2, 3].into_iter().enumerate() {
        let y = (8 + 2 * i as i32) * 32;
        builder
            .add_item(2, i as u16, &[4 * 32, y, 100, 0, weapon, TICK - 5])
            .unwrap();
    }
    // A laser beam shot 1 tick ago.
    builder
        .add_item(3, 10, &[20 * 32, 13 * 32, 12 * 32, 13 * 32, TICK - 1])
        .unwrap();
    // Pickups: health, armor, weapons 0 to 4, ninja.
    let pickups = [
        (0, 0),
        (1, 0),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
        (2, 4),
        (3, 5),
    ];
    for (i, (kind, subtype)) in pickups.into_iter().enumerate() {
        let x = (4 + 3 * i as i32) * 32;
        builder
            .add_item(4, 20 + i as u16, &[x, 15 * 32, kind, subtype])
            .unwrap();
    }
    // Flags at their stands: red and blue.
    builder.add_item(5, 0, &[27 * 32, 16 * 32, 0]).unwrap();
    builder.add_item(5, 1, &[28 * 32 + 16, 16 * 32, 1]).unwrap();
    let snapshot = builder.finish().unwrap();
    let world = world_of(&snapshot, Protocol::Ddnet06, TICK);
    assert_eq!(world.shots.len(), 3);
    // 5 ticks at 2200 units a second: 220 units from the start; the grenade falls.
    let gun = world.shots.iter().find(|s| s.id == 0).unwrap();
    assert!((gun.pos[0] - (128.0 + 220.0)).abs() < 1e-6, "{gun:?}");
    let grenade = world.shots.iter().find(|s| s.id == 2).unwrap();
    assert!((grenade.pos[1] - (12.0 * 32.0 + 7.0 / 10000.0 * 100.0 * 100.0)).abs() < 1e-6);
    assert_eq!(world.items.len(), 8);
    assert_eq!(world.flags.len(), 2);
    let picture = draw(&world, data, 15.0, 11.5, 0.6);
    golden::assert_golden("demo/items", &picture);
}

/// A frame of a corpus demo at `tick` (`DEMOS.md`): 480 x 270 at zoom 0.7, following the
/// player who recorded it, with the game's pictures of `data` and the map's of `mapres`.
fn demo_frame(
    name: &str,
    data: &str,
    mapres: &str,
    tick: i32,
) -> Option<(World, twcodec_tools::assets::Picture)> {
    let corpus = common::corpus_dir()?;
    let demo = Demo::open(corpus.join("demos").join(name)).unwrap();
    let options = DemoRenderOptions::default()
        .size(480, 270)
        .zoom(0.7)
        .data(corpus.join("gamedata").join(data))
        .mapres(Some(corpus.join("mapres").join(mapres)));
    let mut renderer = DemoRenderer::new(&demo, &options).unwrap();
    let world = Timeline::new(&demo, 50.0)
        .unwrap()
        .from_tick(f64::from(tick))
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(world.tick, f64::from(tick));
    let rendered = renderer.render(&world).unwrap();
    assert!(renderer.warnings().is_empty(), "{:?}", renderer.warnings());
    Some((world, rendered.picture))
}

const DDNET_064: &str = "064_ddnet_join_chat_walk_disconnect__client.demo";
const DM1_07: &str = "075_tw_dm1_join_chat_walk_disconnect__client.demo";
const TINYCAVE_07: &str = "075_tw_tinycave_other_player_respawn__client_bar.demo";

/// The DDNet recording "walking right, falling, walking left, falling, walking right,
/// shooting right": the player walking right, falling, and shooting right (the muzzle flash in
/// the tick after the shot).
#[test]
fn ddnet_demo_walks_falls_and_shoots_right() {
    let Some((world, picture)) = demo_frame(DDNET_064, "teeworlds06", "ddnet", 1600) else {
        return;
    };
    let tee = world.tee(world.local.unwrap()).unwrap();
    assert!(tee.vel[0] > 5.0 && tee.direction == 1, "{tee:?}");
    golden::assert_golden("demo/ddnet_walks_right", &picture);

    let (world, picture) = demo_frame(DDNET_064, "teeworlds06", "ddnet", 1652).unwrap();
    let tee = world.tee(world.local.unwrap()).unwrap();
    assert!(tee.vel[1] > 5.0, "{tee:?}");
    golden::assert_golden("demo/ddnet_falls", &picture);

    let (world, picture) = demo_frame(DDNET_064, "teeworlds06", "ddnet", 1728).unwrap();
    let tee = world.tee(world.local.unwrap()).unwrap();
    assert!((0.0..5.0).contains(&tee.since_attack), "{tee:?}");
    assert!(tee.angle.cos() > 0.9, "aims right: {tee:?}");
    golden::assert_golden("demo/ddnet_shoots_right", &picture);
}

/// The Teeworlds 0.7 recording on dm1 "walking left, shooting left": a 0.7 skin of parts,
/// walking left, then shooting left.
#[test]
fn teeworlds07_demo_walks_and_shoots_left() {
    let Some((world, picture)) = demo_frame(DM1_07, "teeworlds07", "teeworlds07", 600) else {
        return;
    };
    let tee = world.tee(world.local.unwrap()).unwrap();
    assert!(tee.vel[0] < -5.0 && tee.direction == -1, "{tee:?}");
    assert!(matches!(
        tee.player.skin,
        twcodec_tools::render::world::Skin::Seven { .. }
    ));
    golden::assert_golden("demo/dm1_walks_left", &picture);

    let (world, picture) = demo_frame(DM1_07, "teeworlds07", "teeworlds07", 667).unwrap();
    let tee = world.tee(world.local.unwrap()).unwrap();
    assert!((0.0..5.0).contains(&tee.since_attack), "{tee:?}");
    assert!(tee.angle.cos() < -0.9, "aims left: {tee:?}");
    golden::assert_golden("demo/dm1_shoots_left", &picture);
}

/// The 0.7 recording on tinycave where "bar" joins while "foo" plays, and "foo" kills itself
/// and respawns twice: both tees, three tiles apart; "foo" gone after its first kill; back
/// after its respawn.
#[test]
fn teeworlds07_demo_kill_and_respawn() {
    let Some((world, picture)) = demo_frame(TINYCAVE_07, "teeworlds07", "teeworlds07", 2500) else {
        return;
    };
    let names: Vec<&str> = world.tees.iter().map(|t| t.player.name.as_str()).collect();
    assert_eq!(names, ["foo", "bar"]);
    let gap = (world.tees[0].pos[0] - world.tees[1].pos[0]).abs();
    assert_eq!(gap, 96.0);
    golden::assert_golden("demo/tinycave_two_players", &picture);

    let (world, picture) = demo_frame(TINYCAVE_07, "teeworlds07", "teeworlds07", 2600).unwrap();
    let names: Vec<&str> = world.tees.iter().map(|t| t.player.name.as_str()).collect();
    assert_eq!(names, ["bar"]);
    golden::assert_golden("demo/tinycave_foo_dead", &picture);

    // Its character is back in the snapshot of tick 2722. The instant of tick 2720 is drawn
    // between the snapshots of 2720 and 2722, and the client draws a tee in both only: not
    // yet; the instant of 2722, between 2722 and 2724: back.
    let (world, _) = demo_frame(TINYCAVE_07, "teeworlds07", "teeworlds07", 2720).unwrap();
    assert_eq!(world.tees.len(), 1);
    let (world, _) = demo_frame(TINYCAVE_07, "teeworlds07", "teeworlds07", 2722).unwrap();
    assert_eq!(world.tees.len(), 2);
}

/// The README's picture (`docs/pictures/tutorial-demo.png`): the DDNet demo at tick 1728, drawn
/// as the README's command draws it.
#[test]
fn the_readme_picture_is_a_frame_of_the_ddnet_demo() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let demo = Demo::open(corpus.join("demos").join(DDNET_064)).unwrap();
    let options = DemoRenderOptions::default()
        .size(960, 540)
        .data(corpus.join("gamedata/teeworlds06"))
        .mapres(Some(corpus.join("mapres/ddnet")));
    let mut renderer = DemoRenderer::new(&demo, &options).unwrap();
    let world = Timeline::new(&demo, 50.0)
        .unwrap()
        .from_tick(1728.0)
        .next()
        .unwrap()
        .unwrap();
    let picture = renderer.render(&world).unwrap().picture;
    let readme = common::root().join("docs/pictures/tutorial-demo.png");
    if let Err(message) = golden::check_golden_file(&readme, "readme_tutorial_demo", &picture) {
        panic!("{message}");
    }
}

/// A snapshot from a stranger: values at the ends of the ints everywhere (positions, hooks,
/// angles, ticks, weapons, emotes, kinds, teams), lasers across the whole world, 64 tees
/// hooked to far away: drawn, or refused with the work limit's error, without a panic and
/// within the work the map's limits allow.
#[test]
fn hostile_snapshots_draw_within_the_budget() {
    let Some(data) = data06() else { return };
    let ends = [i32::MIN, -1, 0, 1, 0x7fff, i32::MAX];
    let mut builder = SnapshotBuilder::new();
    for id in 0..64u16 {
        let pick = |k: usize| ends[(usize::from(id) * 7 + k) % ends.len()];
        let mut ints = Char::at(pick(0), pick(1)).ints(pick(2));
        for (i, v) in ints.iter_mut().enumerate().skip(3) {
            *v = pick(i);
        }
        // Hooked, to a far point or to another tee.
        ints[9] = 5;
        ints[8] = i32::from(id % 70) - 3;
        builder.add_item(9, id, &ints).unwrap();
        add_player(&mut builder, id, "../default", Some((pick(3), pick(4))));
    }
    for id in 0..32u16 {
        let v = ends[usize::from(id) % ends.len()];
        let w = v.wrapping_neg();
        builder
            .add_item(2, id, &[v, w, v, v, i32::from(id % 8) - 1, v])
            .unwrap();
        builder.add_item(3, id, &[v, v, w, w, v]).unwrap();
        builder.add_item(4, id, &[v, v, v, w]).unwrap();
        builder.add_item(5, id, &[v, v, v]).unwrap();
    }
    let snapshot = builder.finish().unwrap();
    for tick in [i32::MIN, 0, i32::MAX] {
        let world = world_of(&snapshot, Protocol::Ddnet06, tick);
        for camera in [
            Camera::Local,
            Camera::Fixed { x: 0.0, y: 0.0 },
            Camera::Player(5),
        ] {
            let options = DemoRenderOptions::default()
                .size(320, 180)
                .camera(camera)
                .data(data.clone())
                .mapres(None);
            let mut renderer = DemoRenderer::with_map(arena(), &options).unwrap();
            match renderer.render(&world) {
                Ok(rendered) => {
                    assert_eq!(rendered.picture.rgba.len(), 320 * 180 * 4);
                    assert!(rendered.work <= twcodec::Limits::DEFAULT.max_render_work());
                }
                Err(e) => assert_eq!(e.kind(), twcodec::ErrorKind::LimitExceeded, "{e}"),
            }
        }
    }
}

/// A skin name from a demo never reads a file outside the skins folder: `../secret` (a red
/// picture beside `skins/`) is drawn as `default` (blue).
#[test]
fn skin_names_stay_in_the_skins_folder() {
    let dir = tempfile::tempdir().unwrap();
    let solid = |rgba: [u8; 4]| twcodec_tools::assets::Picture {
        width: 256,
        height: 128,
        rgba: rgba.repeat(256 * 128),
    };
    std::fs::create_dir_all(dir.path().join("skins")).unwrap();
    let write = |name: &str, rgba| {
        std::fs::write(dir.path().join(name), solid(rgba).to_png().unwrap()).unwrap();
    };
    write("secret.png", [255, 0, 0, 255]);
    write("skins/default.png", [0, 0, 255, 255]);
    for name in [
        "../secret",
        "/secret",
        "..",
        "skins/../../secret",
        "secret\0",
    ] {
        let mut builder = SnapshotBuilder::new();
        builder
            .add_item(9, 1, &Char::at(10 * 32, 10 * 32).ints(TICK))
            .unwrap();
        add_player(&mut builder, 1, name, None);
        let snapshot = builder.finish().unwrap();
        let world = world_of(&snapshot, Protocol::Ddnet06, TICK);
        let picture = draw(&world, dir.path().to_path_buf(), 10.0, 10.0, 0.5);
        let pixels: Vec<&[u8]> = picture.rgba.chunks(4).collect();
        assert!(
            pixels.iter().any(|p| p[2] > 200 && p[0] < 50),
            "{name:?}: no default skin"
        );
        assert!(
            !pixels.iter().any(|p| p[0] > 200 && p[2] < 50),
            "{name:?}: read outside"
        );
    }
}
