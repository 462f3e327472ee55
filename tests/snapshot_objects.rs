//! Snapshot objects: every snapshot of every corpus demo decodes into the registry's objects
//! and encodes back to its ints; what the recorded sessions did (their READMEs and server
//! logs, `demos/traffic/*/` in the corpus) shows in the objects; `snap decode` of real
//! snapshots reviewed as a snapshot.

mod common;

use std::sync::Arc;

use common::{corpus_dir, insta_settings};
use twcodec::demo::{Demo, Update};
use twcodec::schema::netobj::common::{Team, Weapon};
use twcodec::snap::{ObjectItem, Protocol, SnapObject, SnapObjectKind, Snapshot, SnapshotBuilder};
use twcodec_tools::dump;

/// Snapshots with the ticks they start at.
type Ticks = Vec<(i32, Arc<Snapshot>)>;

/// The snapshots of a corpus demo with their ticks, each once (not again for the ticks it
/// holds for), or `None` without a corpus.
fn demo_snapshots(name: &str) -> Option<(Protocol, Ticks)> {
    let demo = Demo::open(corpus_dir()?.join("demos").join(name)).unwrap();
    let snapshots = demo
        .replay()
        .map(|frame| frame.unwrap())
        .filter(|frame| frame.update != Update::Unchanged)
        .filter_map(|frame| Some((frame.tick, frame.snapshot?)))
        .collect();
    Some((demo.protocol(), snapshots))
}

/// The objects of a snapshot.
fn objects(snapshot: &Snapshot, protocol: Protocol) -> Vec<ObjectItem> {
    snapshot.objects(protocol).collect()
}

#[test]
fn every_corpus_snapshot_decodes_and_encodes_back() {
    let Some(corpus) = corpus_dir() else { return };
    let mut demos = 0;
    for entry in std::fs::read_dir(corpus.join("demos")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "demo") {
            continue;
        }
        demos += 1;
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (protocol, snapshots) = demo_snapshots(&name).unwrap();
        let mut kinds = std::collections::BTreeSet::new();
        for (tick, snapshot) in &snapshots {
            let mut rebuilt = SnapshotBuilder::new();
            for object in snapshot.objects(protocol) {
                let at = format!("{name}, tick {tick}, item #{}", object.index);
                // Every item of a real session is an object the registry knows.
                assert_eq!(object.note, None, "{at}");
                assert_ne!(object.kind(), SnapObjectKind::Unknown, "{at}");
                kinds.insert(object.name().unwrap());
                let ints = object.encode().unwrap();
                assert_eq!(&ints[..], snapshot.get(object.key).unwrap(), "{at}");
                let json = serde_json::to_string(&object.object).unwrap();
                let back: SnapObject = serde_json::from_str(&json).unwrap();
                assert_eq!(back, object.object, "{at}: {json}");
                (rebuilt.add_item(object.key.type_id(), object.key.id(), &ints)).unwrap();
            }
            let rebuilt = rebuilt.finish().unwrap();
            assert_eq!(rebuilt.to_ints(), snapshot.to_ints(), "{name}, tick {tick}");
        }
        assert!(kinds.len() >= 6, "{name}: {kinds:?}");
    }
    assert_eq!(demos, 6);
}

/// The local player's character in each snapshot that has one, as `(tick, x, y)`.
fn local_positions(snapshots: &[(i32, Arc<Snapshot>)], protocol: Protocol) -> Vec<(i32, i32, i32)> {
    let mut positions = Vec::new();
    for (tick, snapshot) in snapshots {
        let objects = objects(snapshot, protocol);
        let local = objects.iter().find_map(|object| match &object.object {
            SnapObject::PlayerInfo(info) if info.local == 1 => Some(info.client_id),
            SnapObject::DeClientInfo7(info) if info.local == 1 => Some(object.key.id().into()),
            _ => None,
        });
        let core = objects.iter().find_map(|object| match &object.object {
            SnapObject::Character(c) if Some(object.key.id().into()) == local => Some(c.core),
            SnapObject::Character7(c) if Some(object.key.id().into()) == local => Some(c.core),
            _ => None,
        });
        if let Some(core) = core {
            positions.push((*tick, core.x, core.y));
        }
    }
    positions
}

/// The runs of a sequence's changes: +1 growing, -1 shrinking (standing still left out).
fn runs(values: impl Iterator<Item = i32>) -> Vec<i32> {
    let values: Vec<i32> = values.collect();
    let mut runs: Vec<i32> = Vec::new();
    for pair in values.windows(2) {
        let step = (pair[1] - pair[0]).signum();
        if step != 0 && runs.last() != Some(&step) {
            runs.push(step);
        }
    }
    runs
}

/// 064_ddnet_join_chat_walk_disconnect: "nameless tee" joins a DDNet 19.4 server, walks right,
/// falls, walks left, falls, walks right and shoots right (README, server log).
#[test]
fn ddnet_session_walks_right_left_right_falls_twice_and_shoots_right() {
    let Some((protocol, snapshots)) =
        demo_snapshots("064_ddnet_join_chat_walk_disconnect__client.demo")
    else {
        return;
    };
    assert_eq!(protocol, Protocol::Ddnet06);
    let first = objects(&snapshots[0].1, protocol);
    // The server log: ClientId=0, 'nameless tee' entered and joined the game.
    let client = first.iter().find_map(|object| match &object.object {
        SnapObject::ClientInfo(info) => Some((object.key.id(), info)),
        _ => None,
    });
    let (id, client) = client.unwrap();
    assert_eq!(id, 0);
    assert_eq!(client.name.to_string_lossy(), "nameless tee");
    assert_eq!(client.skin.to_string_lossy(), "default");
    let player = first.iter().find_map(|object| match &object.object {
        SnapObject::PlayerInfo(info) => Some(info),
        _ => None,
    });
    let player = player.unwrap();
    assert_eq!(
        (player.local, player.client_id, player.team),
        (1, 0, Team::RED)
    );
    // DDNet's own objects, through the UUIDs the snapshot announces.
    let game = first.iter().find_map(|object| match &object.object {
        SnapObject::GameInfoEx(game) => game.flags,
        _ => None,
    });
    assert!(game.unwrap().gametype_ddnet());
    assert!(first
        .iter()
        .any(|o| o.kind() == SnapObjectKind::DdnetCharacter));
    assert!(first
        .iter()
        .any(|o| o.kind() == SnapObjectKind::DdnetSpectatorInfo));

    let positions = local_positions(&snapshots, protocol);
    assert!(positions.len() > 100, "{}", positions.len());
    // Walking right, left, right; y only grows (falling twice, never jumping).
    let x = runs(positions.iter().map(|&(_, x, _)| x));
    assert_eq!(x, [1, -1, 1], "{positions:?}");
    assert_eq!(runs(positions.iter().map(|&(_, _, y)| y)), [1]);
    let (first_y, last_y) = (positions[0].2, positions[positions.len() - 1].2);
    assert!(
        last_y - first_y > 10 * 32,
        "fell more than 10 tiles: {first_y} to {last_y}"
    );

    // Shooting right: DDNet's projectiles, fired by client 0, flying right.
    let shots: Vec<_> = (snapshots.iter())
        .flat_map(|(_, snapshot)| objects(snapshot, protocol))
        .filter_map(|object| match object.object {
            SnapObject::DdnetProjectile(shot) => Some(shot),
            _ => None,
        })
        .collect();
    assert!(!shots.is_empty());
    for shot in &shots {
        assert_eq!((shot.owner, shot.kind), (0, Weapon::GUN));
        assert!(shot.vel_x > 0 && shot.flags.normalize_vel(), "{shot:?}");
    }
    // Where the tee stood when it shot: the projectile starts there, in hundredths.
    let (_, x, y) = positions[positions.len() - 1];
    assert!((shots[0].x / 100 - x).abs() < 32 && (shots[0].y / 100 - y).abs() < 32);
}

/// 075_tw_dm1_join_chat_walk_disconnect: "nameless tee" joins a Teeworlds 0.7.5 server alone
/// (warmup), walks left and shoots left (README, server log: team 0).
#[test]
fn teeworlds_07_session_walks_and_shoots_left() {
    let Some((protocol, snapshots)) =
        demo_snapshots("075_tw_dm1_join_chat_walk_disconnect__client.demo")
    else {
        return;
    };
    assert_eq!(protocol, Protocol::Teeworlds07);
    let first = objects(&snapshots[0].1, protocol);
    let client = first.iter().find_map(|object| match &object.object {
        SnapObject::DeClientInfo7(info) => Some((object.key.id(), info)),
        _ => None,
    });
    let (id, client) = client.unwrap();
    assert_eq!(id, 0);
    assert_eq!(client.name.to_string_lossy(), "nameless tee");
    assert_eq!((client.local, client.team), (1, Team::RED));
    assert_eq!(client.skin_part_names[0].to_string_lossy(), "standard");
    let game = first.iter().find_map(|object| match &object.object {
        SnapObject::GameData7(game) => Some(game),
        _ => None,
    });
    assert!(
        game.unwrap().game_state_flags.warmup(),
        "one player: warmup"
    );

    let positions = local_positions(&snapshots, protocol);
    let x = runs(positions.iter().map(|&(_, x, _)| x));
    assert_eq!(x[0], -1, "walks left first: {positions:?}");
    let (start, end) = (positions[0].1, positions[positions.len() - 1].1);
    assert!(
        start - end > 10 * 32,
        "walked more than 10 tiles left: {start} to {end}"
    );

    let shots: Vec<_> = (snapshots.iter())
        .flat_map(|(_, snapshot)| objects(snapshot, protocol))
        .filter_map(|object| match object.object {
            SnapObject::Projectile7(shot) => Some(shot),
            _ => None,
        })
        .collect();
    assert!(!shots.is_empty());
    for shot in &shots {
        assert_eq!(shot.kind, Weapon::GUN);
        assert!(shot.vel_x < 0, "flies left: {shot:?}");
    }
}

/// The events of a demo, as `(tick, name, client id or position)`.
fn events(name: &str) -> Option<Vec<(i32, &'static str, i32)>> {
    let (protocol, snapshots) = demo_snapshots(name)?;
    let mut events = Vec::new();
    for (tick, snapshot) in &snapshots {
        for object in snapshot.objects(protocol) {
            match &object.object {
                SnapObject::Death7(death) => events.push((*tick, "death", death.client_id)),
                SnapObject::Spawn7(spawn) => events.push((*tick, "spawn", spawn.x)),
                _ => {}
            }
        }
    }
    Some(events)
}

/// The names of the players in a 0.7 snapshot, by client id.
fn names(snapshot: &Snapshot) -> Vec<(u16, String)> {
    (snapshot.objects(Protocol::Teeworlds07))
        .filter_map(|object| match &object.object {
            SnapObject::DeClientInfo7(info) => Some((object.key.id(), info.name.to_string_lossy())),
            _ => None,
        })
        .collect()
}

/// The three tinycave sessions of two players on a Teeworlds 0.7.5 server (READMEs, server
/// logs): "foo" is client 0, "bar" client 1; the spawn points are 3 tiles apart.
#[test]
fn teeworlds_07_players_join_die_and_respawn() {
    if corpus_dir().is_none() {
        return;
    }

    // "bar" joins while "foo" is there, then "foo" leaves: killed as it leaves.
    let name = "075_tw_tinycave_other_player_disconnect__client_bar.demo";
    let (_, snapshots) = demo_snapshots(name).unwrap();
    assert_eq!(
        names(&snapshots[0].1),
        [(0, "foo".to_string()), (1, "bar".to_string())]
    );
    let last = &snapshots[snapshots.len() - 1].1;
    assert_eq!(names(last), [(1, "bar".to_string())]);
    assert_eq!(
        events(name)
            .unwrap()
            .iter()
            .map(|e| (e.1, e.2))
            .collect::<Vec<_>>(),
        [("death", 0)]
    );
    let characters: Vec<(u16, i32)> = (snapshots[0].1.objects(Protocol::Teeworlds07))
        .filter_map(|object| match &object.object {
            SnapObject::Character7(c) => Some((object.key.id(), c.core.x)),
            _ => None,
        })
        .collect();
    assert_eq!(characters, [(0, 112), (1, 208)], "3.5 and 6.5 tiles");

    // "foo" kills itself twice (the server log: weapon=-2 twice) and respawns each time.
    let name = "075_tw_tinycave_other_player_respawn__client_bar.demo";
    let events_of = events(name).unwrap();
    let kinds: Vec<_> = events_of.iter().map(|e| (e.1, e.2)).collect();
    assert_eq!(
        kinds,
        [("death", 0), ("spawn", 112), ("death", 0), ("spawn", 112)]
    );
    // Respawned after the 0.5 s of death at the least (25 ticks).
    assert!(events_of[1].0 - events_of[0].0 >= 25);

    // "foo" waits alone in warmup; "bar" joining starts the match, both spawn at once, then
    // "bar" leaves.
    let name = "075_tw_tinycave_other_player_join_round_start__client_foo.demo";
    let (protocol, snapshots) = demo_snapshots(name).unwrap();
    let game = |snapshot: &Snapshot| {
        (snapshot.objects(protocol)).find_map(|object| match object.object {
            SnapObject::GameData7(game) => Some(game),
            _ => None,
        })
    };
    let before = game(&snapshots[0].1).unwrap();
    let after = game(&snapshots[snapshots.len() - 1].1).unwrap();
    assert!(before.game_state_flags.warmup());
    assert!(!after.game_state_flags.warmup());
    assert!(
        after.game_start_tick > snapshots[0].0,
        "the match started during the demo"
    );
    let events_of = events(name).unwrap();
    let spawns: Vec<_> = events_of.iter().filter(|e| e.1 == "spawn").collect();
    assert_eq!(spawns.len(), 2);
    assert_eq!(spawns[0].0, spawns[1].0, "at the same tick");
    assert_eq!(events_of.last().map(|e| (e.1, e.2)), Some(("death", 1)));
}

/// 075_ddnet_tinycave_other_player_join: a DDNet 19.6 server sends 0.7 objects and its own
/// extended objects to the 0.7 client "foo" (README); "bar" (client 1) joins and leaves.
#[test]
fn ddnet_server_sends_extended_objects_to_0_7_clients() {
    let Some((protocol, snapshots)) =
        demo_snapshots("075_ddnet_tinycave_other_player_join__client_foo.demo")
    else {
        return;
    };
    assert_eq!(protocol, Protocol::Teeworlds07);
    let first = objects(&snapshots[0].1, protocol);
    let kinds: Vec<_> = first.iter().map(ObjectItem::kind).collect();
    for kind in [
        SnapObjectKind::ExtendedType7,
        SnapObjectKind::GameInfoEx,
        SnapObjectKind::DdnetCharacter,
        SnapObjectKind::DdnetPlayer,
        SnapObjectKind::SpectatorCount,
        SnapObjectKind::GameDataRace7,
        SnapObjectKind::DeTuneParams7,
    ] {
        assert!(kinds.contains(&kind), "{kind:?} in {kinds:?}");
    }
    assert_eq!(names(&snapshots[0].1), [(0, "foo".to_string())]);
    let with_bar = snapshots.iter().find(|(_, s)| names(s).len() == 2).unwrap();
    assert_eq!(
        names(&with_bar.1),
        [(0, "foo".to_string()), (1, "bar".to_string())]
    );
    // DDNet's part of foo's tee sits beside its 0.7 character, same id.
    let ddnet = first.iter().find_map(|object| match &object.object {
        SnapObject::DdnetCharacter(c) => Some((object.key.id(), c.clone())),
        _ => None,
    });
    let (id, ddnet) = ddnet.unwrap();
    assert_eq!(id, 0);
    assert_eq!(ddnet.jumps, Some(2), "a tee has 2 jumps");
    assert!(ddnet.flags.unwrap().weapon_gun());
}

/// `snap decode` of two real snapshots: the first of a DDNet 0.6 session (0.6 and extended
/// objects) and the first of a Teeworlds 0.7 session (two players).
#[test]
fn decoded_real_snapshots() {
    if corpus_dir().is_none() {
        return;
    }
    let mut text = String::new();
    for name in [
        "064_ddnet_join_chat_walk_disconnect__client.demo",
        "075_tw_tinycave_other_player_disconnect__client_bar.demo",
    ] {
        let (protocol, snapshots) = demo_snapshots(name).unwrap();
        let (tick, snapshot) = &snapshots[0];
        text += &format!("{name}, tick {tick}:\n");
        text += &dump::to_string(|out| dump::snapshot_text(snapshot, Some(protocol), out));
    }
    insta_settings().bind(|| insta::assert_snapshot!("snapshot_objects_corpus", text));
}

/// `snap decode --format json`: every object with its kind and fields, raw values only.
#[test]
fn json_of_a_real_snapshot() {
    let Some((protocol, snapshots)) =
        demo_snapshots("064_ddnet_join_chat_walk_disconnect__client.demo")
    else {
        return;
    };
    let snapshot = &snapshots[0].1;
    let text = dump::to_string(|out| dump::snapshot_json(snapshot, Some(protocol), out));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["items"], snapshot.len());
    assert_eq!(json["checksum"], snapshot.checksum());
    assert_eq!(json["protocol"], "0.6/DDNet");
    let objects = json["objects"].as_array().unwrap();
    let find = |name: &str| {
        (objects.iter())
            .find(|object| object["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {text}"))
    };
    let client = find("obj_client_info");
    assert_eq!(client["type_id"], 11);
    assert_eq!(client["object"]["kind"], "client_info");
    assert_eq!(client["object"]["name"], "nameless tee");
    let character = find("obj_character");
    assert_eq!(character["object"]["x"], 336);
    assert_eq!(character["object"]["weapon"], "Gun");
    let ddnet = find("obj_ddnet_character");
    assert_eq!(ddnet["type_id"], 0x7ffb);
    assert_eq!(ddnet["uuid"], "76ce455b-f9eb-3a48-add7-e04b941d045c");
    assert_eq!(
        ddnet["object"]["flags"],
        serde_json::json!(["solo", "weapon_hammer", "weapon_gun"])
    );
    // Written without a protocol: the items' ints.
    let text = dump::to_string(|out| dump::snapshot_json(snapshot, None, out));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["items_ints"][12]["ints"][1], 336);
}

/// Every numbered kind of both protocols renders as `name: value` fields, also with values
/// that no name stands for (`Other(-7)`).
#[test]
fn every_numbered_kind_renders_as_fields() {
    for (protocol, kinds) in [
        (Protocol::Ddnet06, SnapObjectKind::DDNET_06),
        (Protocol::Teeworlds07, SnapObjectKind::TEEWORLDS_07),
    ] {
        let mut builder = SnapshotBuilder::new();
        for kind in kinds {
            let ints = vec![-7; kind.fixed_ints().unwrap()];
            builder.add_item(kind.type_id().unwrap(), 1, &ints).unwrap();
        }
        let snapshot = builder.finish().unwrap();
        assert!(snapshot
            .objects(protocol)
            .all(|object| object.note.is_none()));
        let text = dump::to_string(|out| dump::snapshot_text(&snapshot, Some(protocol), out));
        for line in text.lines().skip(1) {
            assert!(!line.ends_with(": -7 -7"), "{line}");
        }
        assert!(text.contains("weapon: {Other: -7}"), "{text}");
        assert!(text.contains("x: -7 (-0.21875 tiles)"), "{text}");
        let flags = format!("unknown({:#x})", -7i32 as u32 & !0xFF);
        assert!(text.contains(&flags), "{flags} in {text}");
    }
}
