//! `twcodec demo export`: a row per snapshot object per tick, checked against what the
//! recorded sessions did (`demos/traffic/*/README.md` and `server_log.txt` in the corpus).

mod common;

use common::corpus_dir;
use twcodec::demo::Demo;
use twcodec_tools::export::{cells, columns, ObjectFilter, ObjectRows};

fn demo(name: &str) -> Option<Demo> {
    let corpus = corpus_dir()?;
    Some(Demo::open(corpus.join("demos").join(name)).unwrap())
}

const RESPAWN: &str = "075_tw_tinycave_other_player_respawn__client_bar.demo";

#[test]
fn deaths_and_spawns_of_the_respawn_session() {
    let Some(demo) = demo(RESPAWN) else { return };
    // "foo" (client 0) kills itself twice and respawns each time.
    let filter = ObjectFilter::parse(&["death", "event_spawn"]).unwrap();
    let rows: Vec<_> = ObjectRows::new(&demo, &filter)
        .collect::<Result<_, _>>()
        .unwrap();
    let seen: Vec<(&str, Option<i64>)> = rows
        .iter()
        .map(|r| {
            (
                r.kind.as_str(),
                r.fields.get("client_id").and_then(|v| v.as_i64()),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("event_death", Some(0)),
            ("event_spawn", None),
            ("event_death", Some(0)),
            ("event_spawn", None)
        ]
    );
    // Times are seconds since the first tick, at 50 ticks a second.
    let first = ObjectRows::new(&demo, &ObjectFilter::all())
        .next()
        .unwrap()
        .unwrap();
    for row in &rows {
        assert_eq!(row.time, f64::from(row.tick - first.tick) / 50.0);
    }
    assert!(rows.windows(2).all(|w| w[0].tick < w[1].tick));
}

#[test]
fn every_object_of_every_tick_is_a_row() {
    let Some(demo) = demo(RESPAWN) else { return };
    let protocol = demo.protocol();
    let expected: usize = demo
        .replay()
        .map(|frame| {
            frame
                .unwrap()
                .snapshot
                .map_or(0, |s| s.objects(protocol).len())
        })
        .sum();
    let rows = ObjectRows::new(&demo, &ObjectFilter::all()).count();
    assert_eq!(rows, expected);
    // Both players ("foo", client 0, and "bar", client 1) are in the game from the start.
    let filter = ObjectFilter::parse(&["player_info"]).unwrap();
    let players: Vec<(u16, Option<&str>)> = ObjectRows::new(&demo, &filter)
        .map(Result::unwrap)
        .take(2)
        .map(|r| {
            (
                r.id,
                r.fields
                    .get("player_flags")
                    .and_then(|v| v.as_str())
                    .map(|_| "set"),
            )
        })
        .collect();
    assert_eq!(players, [(0, Some("set")), (1, Some("set"))]);
}

#[test]
fn csv_has_a_column_for_every_field() {
    let Some(demo) = demo(RESPAWN) else { return };
    let filter = ObjectFilter::parse(&["character", "player_info"]).unwrap();
    let columns = columns(&demo, &filter).unwrap();
    assert_eq!(
        columns[..6],
        ["tick", "time", "type", "id", "obj_tick", "x"]
    );
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(&columns).unwrap();
    let mut count = 0;
    for row in ObjectRows::new(&demo, &filter) {
        let row = row.unwrap();
        let cells = cells(&row, &columns);
        assert_eq!(cells.len(), columns.len());
        // Every field of the row lands in its column.
        for (key, value) in &row.fields {
            let at = columns.iter().position(|c| c == key).unwrap();
            let text = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_string);
            assert_eq!(cells[at], text);
        }
        if count < 8 {
            writer.write_record(&cells).unwrap();
        }
        count += 1;
    }
    assert_eq!(count, 362 + 510);
    let text = String::from_utf8(writer.into_inner().unwrap()).unwrap();
    common::insta_settings().bind(|| insta::assert_snapshot!("demo_export_respawn_csv", text));
}

#[test]
fn unknown_object_names_are_refused_with_the_names_there_are() {
    let message = ObjectFilter::parse(&["charakter"]).unwrap_err().to_string();
    assert!(message.starts_with(
        "no snapshot object is called \"charakter\" (did you mean \"character\"?); there are "
    ));
    assert!(message.contains("obj_character"), "{message}");
}
