//! `twcodec demo chat`: the chat of the corpus demos, against the recorded sessions'
//! server logs (`demos/traffic/*/server_log.txt`).

mod common;

use common::corpus_dir;
use twcodec::demo::Demo;
use twcodec_tools::chat::{lines, lines_with, ChatLine, ChatOptions, LineKind};

fn chat(name: &str, events: bool) -> Option<Vec<ChatLine>> {
    let corpus = corpus_dir()?;
    let demo = Demo::open(corpus.join("demos").join(name)).unwrap();
    let options = ChatOptions::default().events(events);
    Some(
        lines_with(&demo, options)
            .collect::<Result<_, _>>()
            .unwrap(),
    )
}

#[test]
fn hello_in_both_protocols() {
    // The server logs: `chat: 0:-2:nameless tee: hello` (DDNet) and
    // `[chat]: 1:0:nameless tee: hello` (0.7).
    for demo in [
        "064_ddnet_join_chat_walk_disconnect__client.demo",
        "075_tw_dm1_join_chat_walk_disconnect__client.demo",
    ] {
        let Some(lines) = chat(demo, false) else {
            return;
        };
        assert_eq!(lines.len(), 1, "{demo}");
        let line = &lines[0];
        assert_eq!(line.kind, LineKind::Chat);
        assert_eq!(line.client_id, Some(0));
        assert_eq!(line.name.as_deref(), Some("nameless tee"));
        assert_eq!(line.text, "hello");
        assert!(line.to_string().ends_with("] nameless tee: hello"));
    }
}

#[test]
fn joins_leaves_and_kills_of_the_tinycave_sessions() {
    // "bar" joins while "foo" records, then leaves.
    let Some(join) = chat(
        "075_tw_tinycave_other_player_join_round_start__client_foo.demo",
        true,
    ) else {
        return;
    };
    let kinds: Vec<(LineKind, Option<&str>)> =
        join.iter().map(|l| (l.kind, l.name.as_deref())).collect();
    assert_eq!(
        kinds,
        [
            (LineKind::Join, Some("bar")),
            (LineKind::Kill, Some("bar")),
            (LineKind::Leave, Some("bar"))
        ]
    );
    // "foo" kills itself twice (server log: weapon=-2).
    let respawn = chat(
        "075_tw_tinycave_other_player_respawn__client_bar.demo",
        true,
    )
    .unwrap();
    let kills: Vec<String> = respawn.iter().map(|l| l.to_string()).collect();
    assert_eq!(
        kills,
        [
            "[00:02.04] foo died (self kill)",
            "[00:05.72] foo died (self kill)"
        ]
    );
    // Without events, the chat alone: none in these sessions.
    assert!(chat(
        "075_tw_tinycave_other_player_respawn__client_bar.demo",
        false
    )
    .unwrap()
    .is_empty());
}

#[test]
fn the_chat_of_every_corpus_demo() {
    let Some(corpus) = corpus_dir() else { return };
    let mut names: Vec<_> = std::fs::read_dir(corpus.join("demos"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "demo"))
        .collect();
    names.sort();
    let mut text = String::new();
    for path in names {
        let demo = Demo::open(&path).unwrap();
        text.push_str(&format!(
            "== {}\n",
            path.file_name().unwrap().to_string_lossy()
        ));
        for line in lines_with(&demo, ChatOptions::default().events(true)) {
            text.push_str(&format!("{}\n", line.unwrap()));
        }
        // Plain chat is the chat, server and broadcast lines of the full listing.
        let plain: Vec<ChatLine> = lines(&demo).collect::<Result<_, _>>().unwrap();
        assert!(plain.iter().all(|l| matches!(
            l.kind,
            LineKind::Chat | LineKind::Team | LineKind::Server | LineKind::Broadcast
        )));
    }
    common::insta_settings().bind(|| insta::assert_snapshot!("demo_chat_corpus", text));
}

#[test]
fn lines_read_as_people_write_them() {
    let line = |kind, name: &str, target: Option<&str>, text: &str| ChatLine {
        tick: 3000,
        time: 75.5,
        kind,
        client_id: Some(1),
        name: Some(name.into()),
        target: target.map(String::from),
        text: text.into(),
    };
    let shown = |l: ChatLine| l.to_string();
    assert_eq!(
        shown(line(LineKind::Chat, "a", None, "hi")),
        "[01:15.50] a: hi"
    );
    assert_eq!(
        shown(line(LineKind::Team, "a", None, "go")),
        "[01:15.50] [team] a: go"
    );
    assert_eq!(
        shown(line(LineKind::Whisper, "a", Some("b"), "psst")),
        "[01:15.50] [whisper] a -> b: psst"
    );
    assert_eq!(
        shown(line(LineKind::WhisperSent, "b", None, "psst")),
        "[01:15.50] [whisper] -> b: psst"
    );
    assert_eq!(
        shown(line(LineKind::Kill, "b", Some("a"), "laser")),
        "[01:15.50] a killed b (laser)"
    );
    assert_eq!(
        shown(line(LineKind::Leave, "b", None, "timeout")),
        "[01:15.50] <-- b left (timeout)"
    );
}
