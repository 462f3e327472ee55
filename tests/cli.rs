//! The `twcodec` binary: output, exit codes (0 ok, 1 bad input, 2 usage) and messages.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;

fn twcodec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .output()
        .expect("the twcodec binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A file in a fresh temporary directory, holding `bytes`.
fn temp_file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

fn assert_no_panic(output: &Output) {
    let err = stderr(output);
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
}

#[test]
fn no_arguments_shows_the_built_in_sample() {
    let output = twcodec(&[]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    // What the tool is, the sample in words a newcomer reads, and the commands to try next.
    assert!(text.starts_with("twcodec reads, writes and explains the files of Teeworlds and DDNet"));
    let bytes = twcodec_testkit::sample::datafile();
    assert!(text.contains(&format!("({} bytes): 2 groups, 9 layers (the game layer 12x8 tiles), 2 images, 3 envelopes, 1 sound.", bytes.len())), "{text}");
    for next in [
        "twcodec sample sample.map",
        "twcodec info MAP.map",
        "twcodec dump MAP.map",
        "twcodec check MAP.map",
        "twcodec demo info FILE.demo",
        "twcodec help",
    ] {
        assert!(text.contains(next), "{next}: {text}");
    }
    assert!(!text.contains("swaplen"), "{text}");
    assert!(text.lines().all(|line| line.len() <= 100), "{text}");

    // The sample it describes, as a file to try the commands on.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.map");
    let output = twcodec(&["sample", &path.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[test]
fn the_datafile_version_option_leaves_version_to_the_program() {
    let output = twcodec(&["--version"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        format!("twcodec {}\n", env!("CARGO_PKG_VERSION"))
    );
    let output = twcodec(&["resave", "in.map", "out.map", "--version", "3"]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "--version is not a resave option"
    );
    assert!(stderr(&output).contains("--version"), "{}", stderr(&output));
    let help = stdout(&twcodec(&["resave", "--help"]));
    assert!(help.contains("--datafile-version <3|4>"), "{help}");
}

#[test]
fn info_and_items_print_the_library_dumps() {
    let dir = tempfile::tempdir().unwrap();
    let file = temp_file(&dir, "small.map", &small_duplicate_uuid_index());
    let df = twcodec::Datafile::parse(&small_duplicate_uuid_index()).unwrap();

    let output = twcodec(&["info", &file]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        twcodec_tools::dump::to_string(|out| twcodec_tools::dump::info(&df, out))
    );

    let output = twcodec(&["items", &file, "--type", "uuid-index"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text
        .lines()
        .all(|line| line.contains("type 65535 (uuid index)")));

    let output = twcodec(&["items", &file, "--type", "1"]);
    assert_eq!(
        stdout(&output),
        "#1 type 1 (info) id 0: [1, 0, -1, -1, -1, 1]\n"
    );
}

#[test]
fn resave_is_lossless_and_converts_versions() {
    let dir = tempfile::tempdir().unwrap();
    let input = temp_file(&dir, "in.map", &small_old_size_fields());
    let output_path = dir.path().join("out.map");
    let out = output_path.to_string_lossy();

    let output = twcodec(&["resave", &input, &out]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        std::fs::read(&output_path).unwrap(),
        small_old_size_fields()
    );
    assert!(
        stderr(&output).contains("warning:"),
        "input warnings are shown"
    );

    let output = twcodec(&["resave", &input, &out, "--datafile-version", "3"]);
    assert_eq!(output.status.code(), Some(0));
    let v3 = twcodec::Datafile::open(&output_path).unwrap();
    assert_eq!(v3.version(), twcodec::Version::V3);

    let output = twcodec(&[
        "resave",
        &out,
        &out,
        "--datafile-version",
        "4",
        "--level",
        "9",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let v4 = twcodec::Datafile::open(&output_path).unwrap();
    assert_eq!(v4.items(), v3.items());
    assert_eq!(v4.data(1).unwrap(), v3.data(1).unwrap());

    let output = twcodec(&["resave", &input, &out, "--recompress", "--level", "0"]);
    assert_eq!(output.status.code(), Some(0));
    let stored = twcodec::Datafile::open(&output_path).unwrap();
    assert!(stored.stored_data(1).unwrap().len() > 64, "level 0 stores");
}

#[test]
fn transform_writes_the_edited_map_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = temp_file(&dir, "in.map", &twcodec_testkit::sample::datafile());
    let once = dir.path().join("once.map").to_string_lossy().into_owned();
    let twice = dir.path().join("twice.map").to_string_lossy().into_owned();
    let output = twcodec(&[
        "transform",
        &input,
        "-o",
        &once,
        "--mirror",
        "--rotate",
        "90",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), format!("wrote {once}\n"));
    let output = twcodec(&[
        "transform",
        &once,
        "-o",
        &twice,
        "--rotate",
        "90",
        "--mirror",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // Mirror then a quarter turn, twice over, is the identity.
    let game = |path: &str| {
        let map = twcodec::Map::open(path).unwrap();
        let (_, layer) = map.game_layer().expect("a game layer");
        layer.grid().expect("tiles").clone()
    };
    assert_eq!(game(&twice), game(&input));

    let refused = dir.path().join("refused.map");
    let path = refused.to_string_lossy();
    let output = twcodec(&["transform", &input, "-o", &path, "--crop", "0,0,1,1"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("the rectangle 1x1 is smaller than DDNet's 2x2 minimum"),
        "{}",
        stderr(&output)
    );
    assert!(!refused.exists(), "nothing is written");
    let output = twcodec(&["transform", &input, "-o", &path, "--rotate", "45"]);
    assert_eq!(output.status.code(), Some(2));
    let output = twcodec(&[
        "transform",
        &input,
        "-o",
        &path,
        "--crop",
        "0,0,2,2",
        "--shift",
        "1,1",
    ]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "--crop and --shift exclude each other"
    );
    assert!(!refused.exists(), "nothing is written");
}

#[test]
fn bad_input_exits_1_with_one_line_naming_file_and_problem() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, Vec<u8>); 3] = [
        ("text.map", b"this is not a map at all".to_vec()),
        ("v5.map", with_i32(&small_v4(), 4, 5)),
        ("cut.map", small_v4()[..200].to_vec()),
    ];
    let mut report = String::new();
    for (name, bytes) in cases {
        let file = temp_file(&dir, name, &bytes);
        for command in ["info", "items"] {
            let output = twcodec(&[command, &file]);
            assert_eq!(output.status.code(), Some(1), "{command} {name}");
            assert_no_panic(&output);
            let err = stderr(&output);
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains(&file), "{err}");
            if command == "info" {
                report.push_str(&err.replace(&file, name));
            }
        }
    }
    let missing = dir.path().join("missing.map");
    let output = twcodec(&["info", &missing.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).starts_with(&format!(
        "twcodec: error: {}: cannot read: ",
        missing.display()
    )));
    insta_settings().bind(|| insta::assert_snapshot!("cli_bad_input", report));
}

#[test]
fn a_corrupt_data_item_fails_resave_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let base = small_v4();
    let at = layout(&base);
    let file = temp_file(&dir, "bomb.map", &with_i32(&base, at.data_sizes + 4, 10));
    let out = dir.path().join("v3.map");
    let output = twcodec(&[
        "resave",
        &file,
        &out.to_string_lossy(),
        "--datafile-version",
        "3",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_no_panic(&output);
    assert!(
        stderr(&output)
            .contains("data #1: zlib stream inflates past its declared size of 10 bytes"),
        "{}",
        stderr(&output)
    );
    assert!(!Path::new(&out).exists(), "no half-written output");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["frobnicate"][..],
        &["info"],
        &["resave", "a.map"],
        &["resave", "a.map", "b.map", "--datafile-version", "5"],
        &["resave", "a.map", "b.map", "--level", "10"],
        &["items", "a.map", "--type", "nonsense"],
    ] {
        let output = twcodec(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_no_panic(&output);
    }
}

#[test]
fn dump_check_and_convert_through_the_map_graph() {
    let dir = tempfile::tempdir().unwrap();
    let sample = temp_file(&dir, "sample.map", &twcodec_testkit::sample::datafile());

    let output = twcodec(&["dump", &sample, "--tiles"]);
    assert_eq!(output.status.code(), Some(0));
    let map = twcodec_testkit::sample::map().unwrap();
    let options = twcodec_tools::dump::DumpOptions::default().preview(true);
    assert_eq!(
        stdout(&output),
        twcodec_tools::dump::to_string(|out| twcodec_tools::dump::map_text(&map, options, out))
    );

    let output = twcodec(&["dump", &sample, "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(json["form"], "Ddnet");

    let output = twcodec(&["check", &sample, "--strict"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        stdout(&output).ends_with("0 errors, 0 warnings\n"),
        "{}",
        stdout(&output)
    );

    let broken = {
        let df = twcodec::Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap();
        let mut writer = twcodec::DatafileWriter::from_datafile(&df);
        let layer = writer
            .items_mut()
            .iter_mut()
            .find(|item| item.type_id() == 5 && item.id() == 3)
            .unwrap();
        layer.data[13] = 7;
        temp_file(&dir, "broken.map", &writer.to_vec().unwrap())
    };
    // A tiles layer pointing at image 7 of 2: an error in either mode (DDNet refuses the
    // map); lenient checking shows and counts it, and exits 0.
    let output = twcodec(&["check", &broken]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output).lines().take(2).collect::<Vec<_>>(),
        [
            format!("{broken}: 1 error, 0 warnings (lenient: use --strict to fail on errors)"),
            format!("{broken}: error: layer #3 (type 5, id 3): field `image` = 7 points past the 2 images"),
        ]
    );
    let output = twcodec(&["check", &broken, "--strict"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).starts_with(&format!(
        "{broken}: 1 error, 0 warnings\n{broken}: error: layer #3 (type 5, id 3): field `image` = 7"
    )));

    let out = dir.path().join("seven.map");
    let output = twcodec(&["resave", &sample, &out.to_string_lossy(), "--to", "0.7"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let seven = twcodec::Map::open(&out).unwrap();
    assert_eq!(seven.form(), twcodec::MapForm::Teeworlds07);
    let output = twcodec(&["resave", &sample, &out.to_string_lossy(), "--to", "0.6"]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "an unknown target is a usage error"
    );

    let output = twcodec(&["dump", "/nonexistent.map"]);
    assert_eq!(output.status.code(), Some(1));
    assert_no_panic(&output);
}

#[test]
fn snap_decode_and_apply_print_the_library_dumps() {
    use twcodec::snap::{Form, Protocol, SizeTable, Snapshot, SnapshotDelta};
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (
        twcodec_testkit::sample::game_snapshot(20),
        twcodec_testkit::sample::game_snapshot(21),
    );
    let sizes = SizeTable::ddnet_06();
    let delta = SnapshotDelta::create(&old, &new).unwrap();
    for (form, flag) in [(Form::Ints, None), (Form::Packed, Some("--packed"))] {
        let old_file = temp_file(&dir, "old", &old.to_bytes(form));
        let delta_file = temp_file(&dir, "delta", &delta.to_bytes(form, &sizes).unwrap());
        let with_flag = |args: &[&str]| {
            let mut args = args.to_vec();
            args.extend(flag);
            twcodec(&args)
        };

        let output = with_flag(&["snap", "decode", &old_file]);
        assert_eq!(output.status.code(), Some(0));
        let protocol = Some(Protocol::Ddnet06);
        assert_eq!(
            stdout(&output),
            twcodec_tools::dump::to_string(|out| twcodec_tools::dump::snapshot_text(
                &old, protocol, out
            ))
        );

        let output = with_flag(&["snap", "decode", &delta_file]);
        assert_eq!(output.status.code(), Some(0));
        let expected = twcodec_tools::dump::to_string(|out| {
            twcodec_tools::dump::delta_text(&delta, &sizes, protocol, out)
        });
        assert_eq!(stdout(&output), expected);

        let output = with_flag(&["snap", "decode", &old_file, "--format", "json"]);
        let expected = twcodec_tools::dump::to_string(|out| {
            twcodec_tools::dump::snapshot_json(&old, protocol, out)
        });
        assert_eq!(stdout(&output), expected);
        let json: serde_json::Value = serde_json::from_str(&expected).unwrap();
        assert_eq!(json["objects"].as_array().unwrap().len(), old.len());

        // 0.7 names the same types differently.
        let output = with_flag(&["snap", "decode", &old_file, "--sizes", "0.7"]);
        let expected = twcodec_tools::dump::to_string(|out| {
            twcodec_tools::dump::snapshot_text(&old, Some(Protocol::Teeworlds07), out)
        });
        assert_eq!(stdout(&output), expected);

        let result = dir.path().join("result");
        let result_arg = result.to_string_lossy().into_owned();
        let output = with_flag(&[
            "snap",
            "apply",
            &old_file,
            &delta_file,
            "--output",
            &result_arg,
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let applied = old.apply(&delta).unwrap();
        let text = twcodec_tools::dump::to_string(|out| {
            twcodec_tools::dump::snapshot_text(&applied, protocol, out)
        });
        assert_eq!(stdout(&output), format!("{text}wrote {result_arg}\n"));
        assert!(text.contains(&format!("checksum {}", new.checksum())));
        assert_eq!(Snapshot::open(&result, form).unwrap(), new);
    }
}

#[test]
fn snap_bad_input_exits_1_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let odd = temp_file(&dir, "odd", &[1, 2, 3]);
    let output = twcodec(&["snap", "decode", &odd]);
    assert_eq!(output.status.code(), Some(1));
    assert_no_panic(&output);
    assert_eq!(
        stderr(&output),
        format!(
            "twcodec: error: {odd}: 3 bytes are not a whole number of 4-byte ints (at byte 0x0)\n"
        )
    );

    // A delta that removes an item the snapshot lacks.
    let snapshot = temp_file(&dir, "snapshot", &twcodec::snap::ints_to_bytes(&[0, 0]));
    let delta = temp_file(
        &dir,
        "delta",
        &twcodec::snap::ints_to_bytes(&[1, 0, 0, 0x0004_0001]),
    );
    let output = twcodec(&["snap", "apply", &snapshot, &delta]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!(
            "twcodec: error: {delta}: removed key #0 (type 4, id 1): the old snapshot has no item with \
             this key\n"
        )
    );

    // Forced to read a snapshot as a delta.
    let output = twcodec(&["snap", "decode", &snapshot, "--kind", "delta"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("a snapshot delta starts with 3 header ints"));

    let output = twcodec(&["snap", "decode", &snapshot, "--sizes", "0.8"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn demo_info_ticks_and_map_print_the_library_dumps() {
    let Some(corpus) = corpus_dir() else { return };
    let path = corpus
        .join("demos")
        .join("075_tw_tinycave_other_player_respawn__client_bar.demo");
    let file = path.to_string_lossy().into_owned();
    let demo = twcodec::demo::Demo::open(&path).unwrap();

    let output = twcodec(&["demo", "info", &file]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        twcodec_tools::dump::to_string(|out| twcodec_tools::dump::demo_info(&demo, out))
    );

    let output = twcodec(&["demo", "ticks", &file]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        twcodec_tools::dump::to_string(|out| twcodec_tools::dump::demo_ticks(&demo, out))
    );

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tinycave.map");
    let output = twcodec(&["demo", "map", &file, &out.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(std::fs::read(&out).unwrap(), &demo.map_bytes()[..]);
}

#[test]
fn demo_errors_exit_1() {
    let Some(corpus) = corpus_dir() else { return };
    let path = corpus
        .join("demos")
        .join("075_tw_tinycave_other_player_respawn__client_bar.demo");
    let good = std::fs::read(path).unwrap();
    let dir = tempfile::tempdir().unwrap();

    let not_a_demo = temp_file(&dir, "map.demo", &small_v4());
    let output = twcodec(&["demo", "info", &not_a_demo]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!(
            "twcodec: error: {not_a_demo}: not a demo: the file is a map (a datafile), it starts with \
             \"DATA\"; `twcodec info {not_a_demo}` and `twcodec check {not_a_demo}` read maps\n"
        )
    );

    // Cut inside the first snapshot chunk: info shows what it read, ticks fail after it.
    let cut = temp_file(&dir, "cut.demo", &good[..0x5ff + 100]);
    let output = twcodec(&["demo", "info", &cut]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("\nerror: chunk #1 (tick 2470): the chunk's 704 bytes"));
    let output = twcodec(&["demo", "ticks", &cut]);
    assert_eq!(output.status.code(), Some(1));
    assert_no_panic(&output);
    assert!(stderr(&output).starts_with(&format!("twcodec: error: {cut}: chunk #1 (tick 2470)")));
}

/// `demo cut`, `replace-map` and `strip-map` write what the library calls make, report
/// what they did, refuse bad points with exit 2 and write nothing then.
#[test]
fn demo_cut_replace_map_and_strip_map() {
    use twcodec::demo::{Demo, DemoTime};
    let Some(corpus) = corpus_dir() else { return };
    let path = corpus
        .join("demos")
        .join("064_ddnet_join_chat_walk_disconnect__client.demo");
    let file = path.to_string_lossy().into_owned();
    let demo = Demo::open(&path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str| dir.path().join(name).to_string_lossy().into_owned();

    let cut = out("cut.demo");
    let output = twcodec(&[
        "demo", "cut", &file, "-o", &cut, "--from", "1s", "--to", "0:06",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let (from, to) = (
        demo.resolve_time(DemoTime::Seconds(1.0)).unwrap(),
        demo.resolve_time(DemoTime::Seconds(6.0)).unwrap(),
    );
    let (expected, _) = demo.cut(from, to).unwrap();
    assert_eq!(std::fs::read(&cut).unwrap(), expected);
    assert_eq!(
        stdout(&output),
        format!(
            "cut ticks 1482 to 1732 (5.00 s, length 5 s), 0 timeline markers\nwrote {cut} ({} bytes)\n",
            expected.len()
        )
    );
    // Ticks as `demo ticks` shows them; the first tick with a snapshot from there on.
    let output = twcodec(&[
        "demo", "cut", &file, "-o", &cut, "--from", "1433", "--to", "end",
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).starts_with(
        "cut ticks 1434 to 1910 (9.52 s, length 9 s), 0 timeline markers\n\
         the cut starts at tick 1434, the first from 1433 on with a snapshot\n"
    ));

    let stripped = out("stripped.demo");
    let output = twcodec(&["demo", "strip-map", &file, "-o", &stripped]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(std::fs::read(&stripped).unwrap(), demo.strip_map().unwrap());
    assert!(stdout(&output).starts_with(
        "removed the map Tutorial (1060483 bytes, crc 801ce63d); players need it in their maps folder\n"
    ));

    let map = corpus.join("maps").join("ddnet_Tutorial.map");
    let replaced = out("replaced.demo");
    let output = twcodec(&[
        "demo",
        "replace-map",
        &stripped,
        &map.to_string_lossy(),
        "-o",
        &replaced,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // The map put back: the demo as it was.
    assert_eq!(
        std::fs::read(&replaced).unwrap(),
        std::fs::read(&path).unwrap()
    );
    assert!(stdout(&output).starts_with(
        "map Tutorial: 1060483 bytes, crc 801ce63d (was Tutorial: 0 bytes, crc 801ce63d)\n"
    ));

    // Bad points: exit 2, nothing written.
    let never = out("never.demo");
    for (args, message) in [
        (
            &["--from", "m1"][..],
            "twcodec: error: marker 1: the demo has 0 timeline markers\n",
        ),
        (
            &["--from", "5s", "--to", "1s"][..],
            "twcodec: error: the cut starts at tick 1682, after its end at tick 1482 (the demo \
             has ticks 1432 to 1910)\n",
        ),
        (
            &["--from", "99999"][..],
            "twcodec: error: the cut starts at tick 99999, after its end at tick 1910 (the demo \
             has ticks 1432 to 1910)\n",
        ),
    ] {
        let mut all = vec!["demo", "cut", &file, "-o", &never];
        all.extend(args);
        let output = twcodec(&all);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&output), message, "{args:?}");
        assert!(!dir.path().join("never.demo").exists());
    }
    let output = twcodec(&["demo", "cut", &file, "-o", &never, "--to", "soon"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("\"soon\" is not a point in a demo"));
    // A demo cut short inside a chunk: what is before the break is cut; a range past it
    // fails on the break, naming the chunk, and writes nothing.
    let good = std::fs::read(&path).unwrap();
    let broken = temp_file(&dir, "broken.demo", &good[..good.len() - 700]);
    let output = twcodec(&["demo", "cut", &broken, "-o", &cut, "--to", "2s"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("cut ticks 1432 to 1532 "));
    // To its end: the cut ends before the break, and says so.
    let output = twcodec(&["demo", "cut", &broken, "-o", &cut, "--from", "3s"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains(
            "\nthe demo breaks after tick 1786: chunk #354 (tick 1786): the chunk's 11 bytes \
             run past the end of the file (9 left) (at byte 0x103e4f)\n"
        ),
        "{}",
        stdout(&output)
    );
    let rescued = twcodec::demo::Demo::open(&cut).unwrap();
    assert_eq!(rescued.tick_range().unwrap(), Some((1582, 1786)));
    assert!(rescued.tail().is_empty());
    assert_eq!(rescued.header().length, 4);
    let output = twcodec(&["demo", "cut", &broken, "-o", &never, "--from", "8s"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).ends_with("(the demo has ticks 1432 to 1786)\n"));
    // A snapshot that does not read before the start: exit 1, naming the chunk.
    let mut bad = good.clone();
    let chunks = twcodec::demo::Demo::parse(&good).unwrap().chunks_offset();
    for byte in &mut bad[chunks + 8..chunks + 40] {
        *byte ^= 0x5a;
    }
    let bad = temp_file(&dir, "bad.demo", &bad);
    let output = twcodec(&["demo", "cut", &bad, "-o", &never, "--from", "3s"]);
    assert_eq!(output.status.code(), Some(1));
    assert_no_panic(&output);
    assert_eq!(
        stderr(&output),
        format!(
            "twcodec: error: {bad}: chunk #1 (tick 1432): snapshot: data_size 16 without items: \
             a snapshot without items has no data (byte 0x0 of its ints) (at byte 0x10306c)\n"
        )
    );
    assert!(!dir.path().join("never.demo").exists());
    let output = twcodec(&["demo", "replace-map", &file, &file, "-o", &never]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("the new map does not read as a map"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.path().join("never.demo").exists());
}

/// `check` reports what the datafile reader found too (it said `0 warnings` for a file whose
/// `info` showed a warning), and `--strict` fails on what DDNet refuses.
#[test]
fn check_reports_the_reader_and_the_resolver() {
    let dir = tempfile::tempdir().unwrap();
    let file = temp_file(&dir, "dup.map", &small_duplicate_uuid_index());
    let output = twcodec(&["check", &file]);
    let text = stdout(&output);
    assert!(
        text.contains("warning: datafile: item #")
            && text.contains("duplicate UUID index item for this type"),
        "{text}"
    );
    assert!(!text.contains(" 0 warnings"), "{text}");

    let mut channels = twcodec::DatafileWriter::from_datafile(
        &twcodec::Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap(),
    );
    let envelope = channels
        .items_mut()
        .iter_mut()
        .find(|item| item.type_id() == 3)
        .unwrap();
    envelope.data[1] = 100;
    let file = temp_file(&dir, "channels.map", &channels.to_vec().unwrap());
    let output = twcodec(&["check", &file]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "lenient: reported, not failed"
    );
    let output = twcodec(&["check", "--strict", &file]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains(&format!(
            "\n{file}: error: envelope #0 (type 3, id 0): field `channels` = 100"
        )),
        "{}",
        stdout(&output)
    );
}

#[test]
fn schema_prints_the_format_reference() {
    use twcodec_tools::dump::{self, SchemaFormat, SchemaSelection};

    // One structure, in any case, as the library renders it.
    let output = twcodec(&["schema", "groupitem"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let selection = SchemaSelection::find("GroupItem").unwrap();
    let text = stdout(&output);
    assert_eq!(
        text,
        dump::to_string(|out| dump::schema(&selection, SchemaFormat::Markdown, out))
    );
    assert!(text.starts_with("# GroupItem\n"), "{text}");
    assert!(
        text.contains("| [7..11] | `clip` | [`Option<Clip>`](#clip) | 5 | `version >= 2`, if the item holds it |"),
        "{text}"
    );

    // A document as JSON.
    let output = twcodec(&["schema", "map-items", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["name"], "map-items");

    // A name the reference does not have: a usage error naming close ones.
    let output = twcodec(&["schema", "GropItem"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert_eq!(
        stderr(&output),
        "twcodec: error: no structure or document `GropItem` in the format reference (close: \
         GroupItem); documents: datafile, map-items, snapshots, demos, ghosts, teehistorian, \
         messages, packet, and `twcodec schema` lists every structure\n"
    );

    // The files of docs/format/, as committed.
    let dir = tempfile::tempdir().unwrap();
    let output = twcodec(&["schema", "--out-dir", &dir.path().to_string_lossy()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    for (name, text) in dump::schema_files() {
        assert_eq!(
            std::fs::read_to_string(dir.path().join(&name)).unwrap(),
            text
        );
        assert!(stdout(&output).contains(&name));
    }
    let output = twcodec(&["schema", "GroupItem", "--out-dir", "x"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn batch_check_resave_extract_and_scan_over_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let sample = twcodec_testkit::sample::datafile();
    std::fs::create_dir(dir.path().join("pool")).unwrap();
    std::fs::create_dir(dir.path().join("pool/sub")).unwrap();
    std::fs::write(dir.path().join("pool/a.map"), &sample).unwrap();
    std::fs::write(dir.path().join("pool/sub/b.map"), &sample).unwrap();
    let pool = dir.path().join("pool");
    let pool = pool.to_str().unwrap();

    // check: each map's lines in order, then the summary; exit 0.
    let output = twcodec(&["check", "--strict", "-j", "2", pool]);
    assert_no_panic(&output);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with("a.map: 0 errors, 0 warnings"), "{text}");
    assert!(lines[1].ends_with("b.map: 0 errors, 0 warnings"), "{text}");
    assert_eq!(
        lines[2],
        "2 maps: 2 ok, 0 with warnings, 0 with errors, 0 unreadable"
    );
    assert_eq!(output.status.code(), Some(0));

    // resave --out-dir keeps the tree below the directory given, byte for byte.
    let out = dir.path().join("out");
    let output = twcodec(&["resave", "--out-dir", out.to_str().unwrap(), pool]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(std::fs::read(out.join("a.map")).unwrap(), sample);
    assert_eq!(std::fs::read(out.join("sub/b.map")).unwrap(), sample);
    assert!(stdout(&output).ends_with("2 maps: 2 done, 0 failed\n"));

    // extract --out-dir: a directory per map.
    let assets = dir.path().join("assets");
    let output = twcodec(&["extract", "--out-dir", assets.to_str().unwrap(), pool]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(assets.join("a").is_dir() && assets.join("sub/b").is_dir());

    // A broken map: a line naming it, the summary counts it, exit 1; the others still run.
    std::fs::write(dir.path().join("pool/c.map"), b"DATA cut short").unwrap();
    let output = twcodec(&["check", pool]);
    let text = stdout(&output);
    assert!(text.contains("c.map: cannot be read:"), "{text}");
    assert!(text.ends_with(
        "3 maps: 2 ok, 0 with warnings, 0 with errors, 1 unreadable (lenient: use --strict to \
         fail on errors)\n"
    ));
    assert_eq!(
        output.status.code(),
        Some(1),
        "unreadable fails in either mode"
    );
    let again = dir.path().join("again");
    let output = twcodec(&["resave", "--out-dir", again.to_str().unwrap(), pool]);
    assert!(stdout(&output).ends_with("3 maps: 2 done, 1 failed\n"));
    assert_eq!(output.status.code(), Some(1));

    // scan: a row per file, exit 1 for the one that failed; --jobs 0 is a usage error.
    let output = twcodec(&["scan", "--format", "csv", pool]);
    assert_eq!(stdout(&output).lines().count(), 4);
    assert_eq!(
        stderr(&output),
        "3 files: 3 maps, 0 demos, 0 other; 0 maps with errors, 1 failed\n"
    );
    assert_eq!(output.status.code(), Some(1));
    let output = twcodec(&["scan", "-j", "0", pool]);
    assert_eq!(output.status.code(), Some(2));

    // Two inputs for one output are refused before anything is written.
    let output = twcodec(&[
        "resave",
        "--out-dir",
        again.to_str().unwrap(),
        dir.path().join("pool/a.map").to_str().unwrap(),
        dir.path().join("pool/a.map").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("two inputs would be written to"));
}

#[test]
fn demo_chat_and_export_on_the_command_line() {
    let Some(corpus) = corpus_dir() else { return };
    let demo = corpus.join("demos/064_ddnet_join_chat_walk_disconnect__client.demo");
    let demo = demo.to_str().unwrap();
    let output = twcodec(&["demo", "chat", demo]);
    assert_eq!(stdout(&output), "[00:01.92] nameless tee: hello\n");
    let output = twcodec(&["demo", "chat", "--format", "jsonl", demo]);
    let line: serde_json::Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_eq!(line["name"], "nameless tee");
    assert_eq!(line["kind"], "chat");
    assert_eq!(line["tick"], 1432 + 96);
    let output = twcodec(&[
        "demo",
        "export",
        "--objects",
        "character",
        "--format",
        "csv",
        demo,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("tick,time,type,id,obj_tick,x,y,"),
        "{}",
        &text[..80]
    );
    assert!(text
        .lines()
        .skip(1)
        .all(|l| l.contains(",obj_character,0,")));
    let output = twcodec(&["demo", "export", "--objects", "nothing", demo]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no snapshot object is called \"nothing\""));
}

/// The sample with its tiles layer pointing at image 7 of 2: an error (DDNet refuses the map).
fn sample_with_an_error() -> Vec<u8> {
    let df = twcodec::Datafile::parse(&twcodec_testkit::sample::datafile()).unwrap();
    let mut writer = twcodec::DatafileWriter::from_datafile(&df);
    let layer = (writer.items_mut().iter_mut())
        .find(|item| item.type_id() == 5 && item.id() == 3)
        .unwrap();
    layer.data[13] = 7;
    writer.to_vec().unwrap()
}

/// One verdict per map: `check` (lenient or strict) and `scan` count the same maps as having
/// errors, what DDNet refuses; lenient only keeps the exit code 0. Before, lenient `check`
/// said `0 with errors`, `check --strict` of the same map failed and `scan` counted it among
/// `failed or with errors` and exited 0 even for a file that failed.
#[test]
fn check_and_scan_agree_on_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("pool")).unwrap();
    std::fs::write(
        dir.path().join("pool/a.map"),
        twcodec_testkit::sample::datafile(),
    )
    .unwrap();
    std::fs::write(dir.path().join("pool/b.map"), sample_with_an_error()).unwrap();
    let pool = dir.path().join("pool");
    let (pool, a, b) = (
        pool.to_str().unwrap(),
        dir.path().join("pool/a.map"),
        dir.path().join("pool/b.map"),
    );
    let (a, b) = (a.display(), b.display());

    // Lenient: the error shown as an error, each line naming its map after the map's header
    // line, "lenient" said once, in the summary; exit 0.
    let output = twcodec(&["check", pool]);
    assert_eq!(
        stdout(&output),
        format!(
            "{a}: 0 errors, 0 warnings\n\
             {b}: 1 error, 0 warnings\n\
             {b}: error: layer #3 (type 5, id 3): field `image` = 7 points past the 2 images\n\
             2 maps: 1 ok, 0 with warnings, 1 with errors, 0 unreadable (lenient: use --strict \
             to fail on errors)\n"
        )
    );
    assert_eq!(output.status.code(), Some(0));
    // Strict: the same lines, exit 1.
    let output = twcodec(&["check", "--strict", pool]);
    assert!(stdout(&output).contains(&format!("\n{b}: error: layer #3")));
    assert!(stdout(&output).ends_with("1 with errors, 0 unreadable\n"));
    assert!(!stdout(&output).contains("lenient"));
    assert_eq!(output.status.code(), Some(1));
    // scan counts the map with errors as check does; it read every file: exit 0.
    let output = twcodec(&["scan", pool]);
    assert_eq!(
        stderr(&output),
        "2 files: 2 maps, 0 demos, 0 other; 1 maps with errors, 0 failed\n"
    );
    assert_eq!(output.status.code(), Some(0));
    let rows: Vec<serde_json::Value> = (stdout(&output).lines())
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(rows[1]["map"]["errors"], 1);
    assert_eq!(rows[1]["error"], serde_json::Value::Null);

    // The corpus: the maps lenient check counts as with errors are scan's maps with errors,
    // and exactly the ones strict check fails.
    let Some(corpus) = corpus_dir() else { return };
    let maps = corpus.join("maps");
    let maps = maps.to_str().unwrap();
    let output = twcodec(&["check", maps]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    let with_errors: Vec<&str> = (text.lines())
        .filter_map(|line| {
            line.strip_suffix(" warnings")
                .or(line.strip_suffix(" warning"))
        })
        .filter_map(|line| line.rsplit_once(": "))
        .filter(|(_, counts)| !counts.starts_with("0 errors"))
        .map(|(file, _)| file)
        .collect();
    assert!(!with_errors.is_empty(), "{text}");
    let summary = text.lines().last().unwrap();
    assert!(
        summary.contains(&format!(" {} with errors,", with_errors.len())),
        "{summary}"
    );
    let output = twcodec(&["scan", maps]);
    assert_eq!(output.status.code(), Some(0));
    let scanned: Vec<String> = (stdout(&output).lines())
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|row| row["map"]["errors"].as_u64().unwrap_or(0) > 0)
        .map(|row| row["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(scanned, with_errors);
    for file in &with_errors {
        let output = twcodec(&["check", "--strict", file]);
        assert_eq!(output.status.code(), Some(1), "{file}");
    }
}

/// A file of another kind than the command reads is named for what it is, with the command
/// that reads it; before, `info` of a demo said `magic is "TWDE"`.
#[test]
fn the_wrong_kind_of_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let demo = temp_file(&dir, "x.demo", b"TWDEMO\0\x06 and the rest of a demo");
    let png = temp_file(
        &dir,
        "x.png",
        b"\x89PNG\r\n\x1a\n and the rest of a picture",
    );
    let ogg = temp_file(&dir, "x.opus", b"OggS\0\x02 and the rest of a sound");
    let map = temp_file(&dir, "x.map", &twcodec_testkit::sample::datafile());
    let png_map = temp_file(&dir, "picture.map", b"\x89PNG\r\n\x1a\n not a map");
    let cases = [
        (
            vec!["info", &demo],
            format!(
                "twcodec: error: {demo}: not a datafile (a map): the file is a demo, it starts with \
                 \"TWDEMO\\0\"; `twcodec demo info {demo}` reads demos\n"
            ),
        ),
        (
            vec!["demo", "info", &map],
            format!(
                "twcodec: error: {map}: not a demo: the file is a map (a datafile), it starts with \
                 \"DATA\"; `twcodec info {map}` and `twcodec check {map}` read maps\n"
            ),
        ),
        (
            vec!["dump", &png],
            format!(
                "twcodec: error: {png}: not a datafile (a map): the file is a PNG picture, it starts \
                 with \"\\x89PNG\\r\\n\\x1a\\n\"; `twcodec add-image MAP {png} -o OUT` adds a \
                 picture to a map (`replace-image` replaces one, `embed` embeds the game's own)\n"
            ),
        ),
        (
            vec!["check", &ogg],
            format!(
                "twcodec: error: {ogg}: not a datafile (a map): the file is an Ogg file (a sound), it \
                 starts with \"OggS\"; `twcodec add-sound MAP {ogg} -o OUT` adds a sound to a \
                 map (`replace-sound` replaces one)\n"
            ),
        ),
    ];
    for (args, expected) in cases {
        let output = twcodec(&args);
        assert_eq!(stderr(&output), expected, "{args:?}");
        assert_eq!(output.status.code(), Some(1), "{args:?}");
    }
    // Every command that opens a map or a demo says the same.
    for args in [
        vec!["items", &demo],
        vec!["render", &demo, "-o", "-"],
        vec!["resave", &demo, "out.map"],
        vec!["unpack", &demo, "out"],
        vec!["extract", &demo, "out"],
        vec!["add-image", &map, &map, "-o", "out.map"],
        vec!["add-sound", &map, &map, "-o", "out.map"],
        vec!["demo", "ticks", &map],
        vec!["demo", "chat", &map],
        vec!["diff", &map, &demo],
    ] {
        let output = twcodec(&args);
        let err = stderr(&output);
        assert!(
            err.contains(": the file is a demo, it starts with")
                || err.contains(": the file is a map (a datafile), it starts with"),
            "{args:?}: {err}"
        );
        assert_ne!(output.status.code(), Some(0), "{args:?}");
    }
    // A row of scan and a line of check say it too.
    let output = twcodec(&["check", &map, &png_map]);
    assert!(stdout(&output).contains(&format!(
        "{png_map}: cannot be read: not a datafile (a map): the file is a PNG picture"
    )));
    let output = twcodec(&["scan", &png_map]);
    assert!(stdout(&output).contains(
        "\"error\":\"not a map, a demo, a ghost or a teehistorian file: the file is a PNG picture, it starts with"
    ));
    assert_eq!(output.status.code(), Some(1));
}

/// Completions and manual pages come from the same definitions as `--help`: every command is
/// in them, a command's page is its own, and a misspelt command gets the nearest name.
#[test]
fn completions_and_manual_pages_name_every_command() {
    let commands = [
        "info",
        "items",
        "dump",
        "check",
        "scan",
        "diff",
        "resave",
        "extract",
        "unpack",
        "pack",
        "render",
        "sample",
        "demo",
        "snap",
        "schema",
        "completions",
        "man",
    ];
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = twcodec(&["completions", shell]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{shell}: {}",
            stderr(&output)
        );
        let text = stdout(&output);
        for command in commands {
            assert!(text.contains(command), "{shell} completions lack {command}");
        }
    }
    assert!(stdout(&twcodec(&["completions", "bash"])).contains("complete -F _twcodec"));
    let output = twcodec(&["completions", "nosh"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("[possible values: bash, elvish, fish, powershell, zsh]"));

    let main = stdout(&twcodec(&["man"]));
    assert!(main.contains(".TH twcodec 1"), "{main}");
    for command in commands {
        assert!(
            main.contains(&format!("twcodec\\-{command}(1)")),
            "{command}: {main}"
        );
    }
    let unpack = stdout(&twcodec(&["man", "unpack"]));
    assert!(unpack.contains(".TH twcodec-unpack 1"), "{unpack}");
    assert!(unpack.contains("\\fBtwcodec unpack\\fR"), "{unpack}");
    let chat = stdout(&twcodec(&["man", "demo", "chat"]));
    assert!(chat.contains(".TH twcodec-demo-chat 1"), "{chat}");
    assert!(chat.contains("\\-\\-format"), "{chat}");

    let output = twcodec(&["man", "unpak"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with(
            "twcodec: error: `twcodec` has no command `unpak` (did you mean `unpack`?); its commands: \
             info, items, dump,"
        ),
        "{}",
        stderr(&output)
    );
    let output = twcodec(&["man", "demo", "chta"]);
    assert!(stderr(&output).contains("`twcodec-demo` has no command `chta` (did you mean `chat`?)"));
}

/// `twcodec --help` lists the commands under a heading per task, each once, with the texts of
/// their definitions; `help` prints the same, `-h` the same groups.
#[test]
fn the_help_groups_the_commands_by_task() {
    let output = twcodec(&["--help"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let help = stdout(&output);
    insta_settings().bind(|| insta::assert_snapshot!("cli_help", help));
    let headings: Vec<&str> = (help.lines())
        .filter(|line| !line.starts_with(' ') && line.ends_with(':'))
        .collect();
    assert_eq!(
        headings,
        [
            "Maps:",
            "Pictures and sounds:",
            "Maps in git:",
            "Editing maps:",
            "Demos and snapshots:",
            "Ghosts:",
            "Teehistorian (server recordings):",
            "Many files:",
            "Help and shell:",
            "Options:"
        ]
    );
    assert!(!help.contains("Commands:"), "{help}");
    // Every command once: what the completions offer (from the same definitions).
    let bash = stdout(&twcodec(&["completions", "bash"]));
    let offered = (bash.lines())
        .find_map(|line| line.trim().strip_prefix("opts=\"-h -V --help --version "))
        .expect("the top-level words in the bash completions");
    let offered: Vec<&str> = offered.trim_end_matches('"').split(' ').collect();
    assert!(offered.len() >= 20, "{offered:?}");
    for command in offered {
        let lines = (help.lines())
            .filter(|line| {
                line.strip_prefix("  ").and_then(|l| l.split(' ').next()) == Some(command)
            })
            .count();
        assert_eq!(lines, 1, "{command}: {help}");
    }

    assert_eq!(stdout(&twcodec(&["help"])), help);
    let short = stdout(&twcodec(&["-h"]));
    for heading in &headings {
        assert_eq!(
            short.matches(&format!("\n{heading}\n")).count(),
            1,
            "{short}"
        );
    }
    // A command's own help is clap's, with its subcommands under clap's one heading.
    assert!(stdout(&twcodec(&["demo", "--help"])).contains("\nCommands:\n  info"));
}

/// `twcodec ARGS` with none of the color variables of the test's environment, only `env`.
fn with_color_env(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// The headings of the grouped help are styled as clap styles its own (`Options:`) where
/// colors are wanted, and plain under `NO_COLOR`.
#[test]
fn the_grouped_help_is_styled_as_clap_styles_it() {
    let run = |env: &[(&str, &str)]| {
        let output = with_color_env(&["--help"], env);
        assert_eq!(output.status.code(), Some(0));
        stdout(&output)
    };
    let colored = run(&[("CLICOLOR_FORCE", "1")]);
    let style_of = |text: &str| {
        let at = colored
            .find(text)
            .unwrap_or_else(|| panic!("{text}: {colored}"));
        let start = colored[..at].rfind('\n').map_or(0, |n| n + 1);
        colored[start..at].to_string()
    };
    let options = style_of("Options:");
    assert!(options.contains('\x1b'), "{colored:?}");
    for heading in ["Maps:", "Pictures and sounds:", "Help and shell:"] {
        assert_eq!(style_of(heading), options, "{heading}");
    }
    // Command names as clap shows its literals (the bold of `-h`).
    assert!(colored.contains("\n  \x1b[1minfo\x1b[0m "), "{colored:?}");
    let plain = run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(!plain.contains('\x1b'), "{plain:?}");
    assert_eq!(plain, run(&[]));
}

/// `error:`, `warning:` and `note:` are colored as clap colors its own where colors are asked
/// for (a terminal, or `CLICOLOR_FORCE`), never under `NO_COLOR`; piped (as in every other
/// test) the text is plain.
#[test]
fn labels_are_colored_only_where_colors_are_wanted() {
    let run = |env: &[(&str, &str)]| {
        let output = with_color_env(&["info", "/nonexistent/x.map"], env);
        assert_eq!(output.status.code(), Some(1));
        stderr(&output)
    };
    let plain = run(&[]);
    assert!(
        plain.starts_with("twcodec: error: /nonexistent/x.map: cannot read: "),
        "{plain}"
    );
    assert!(!plain.contains('\x1b'), "{plain:?}");
    let colored = run(&[("CLICOLOR_FORCE", "1")]);
    assert!(
        colored
            .starts_with("twcodec: \x1b[1m\x1b[31merror:\x1b[0m /nonexistent/x.map: cannot read"),
        "{colored:?}"
    );
    assert_eq!(run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]), plain);

    // A warning, from a command that goes on.
    let dir = tempfile::tempdir().unwrap();
    let png = temp_file(&dir, "odd.png", &odd_png());
    let map = temp_file(&dir, "s.map", &twcodec_testkit::sample::datafile());
    let out = dir.path().join("out.map");
    let output = Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(["add-image", &map, &png, "-o", out.to_str().unwrap()])
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).starts_with("twcodec: \x1b[1m\x1b[33mwarning:\x1b[0m "),
        "{:?}",
        stderr(&output)
    );
}

/// A 20 x 20 RGBA PNG: not a tileset of 16 x 16 tiles, so adding it warns.
fn odd_png() -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, 20, 20);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&[255; 20 * 20 * 4]).unwrap();
    writer.finish().unwrap();
    bytes
}
