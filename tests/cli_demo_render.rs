//! `twcodec demo render` on a corpus demo: one picture, PNG frames and raw frames (the raw
//! frame of an instant is the picture of that instant), the frames' count, usage errors, a demo
//! from a stranger naming skins outside the skins folder, a closed pipe and a full disk.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use twcodec_tools::assets::decode_png;

fn twcodec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .env_remove("TWCODEC_DATA")
        .env_remove("TWCODEC_MAPRES")
        .output()
        .expect("the twcodec binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The dm1 demo of Teeworlds 0.7 (ticks 430 to 816), its game pictures and mapres; `None`
/// without the corpus (a failure under `CI=true`).
fn corpus() -> Option<(String, String, String)> {
    let corpus = common::corpus_dir()?;
    let path = |p: PathBuf| p.to_string_lossy().into_owned();
    Some((
        path(corpus.join("demos/075_tw_dm1_join_chat_walk_disconnect__client.demo")),
        path(corpus.join("gamedata/teeworlds07")),
        path(corpus.join("mapres/teeworlds07")),
    ))
}

fn png(path: &Path) -> twcodec_tools::assets::Picture {
    decode_png(&std::fs::read(path).unwrap(), twcodec::Limits::default()).unwrap()
}

#[test]
fn a_picture_frames_and_raw_frames_agree() {
    let Some((demo, data, mapres)) = corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let picture = dir.path().join("tick.png");
    let size = [
        "--width", "160", "--height", "90", "--data", &data, "--mapres", &mapres,
    ];
    let mut args = vec!["demo", "render", &demo, "--tick", "600"];
    let picture_arg = picture.to_string_lossy().into_owned();
    args.extend(["-o", &picture_arg]);
    args.extend(size);
    let output = twcodec(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("rendered tick 600 (160x90) to {picture_arg}\n")
    );
    let one = png(&picture);
    assert_eq!((one.width, one.height), (160, 90));

    // Ticks 600 to 650 at 10 frames a second: 600, 605, ... 650.
    let frames = dir.path().join("frames");
    let frames_arg = frames.to_string_lossy().into_owned();
    let mut args = vec![
        "demo",
        "render",
        &demo,
        "--frames",
        &frames_arg,
        "--fps",
        "10",
    ];
    args.extend(["--from", "600", "--to", "650"]);
    args.extend(size);
    let output = twcodec(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let mut names: Vec<String> = std::fs::read_dir(&frames)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let expected: Vec<String> = (0..11).map(|i| format!("frame_{i:06}.png")).collect();
    assert_eq!(names, expected);
    assert_eq!(png(&frames.join("frame_000000.png")), one);

    let mut args = vec!["demo", "render", &demo, "--raw", "--fps", "10"];
    args.extend(["--from", "600", "--to", "650"]);
    args.extend(size);
    let output = twcodec(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout.len(), 11 * 160 * 90 * 4);
    assert_eq!(&output.stdout[..160 * 90 * 4], &one.rgba[..]);
    assert_eq!(stderr(&output), "twcodec: wrote 11 frames of raw RGBA\n");
    // The fifth frame is the instant of tick 620.
    let fifth = png(&frames.join("frame_000004.png"));
    let at = 4 * 160 * 90 * 4;
    assert_eq!(&output.stdout[at..at + 160 * 90 * 4], &fifth.rgba[..]);
}

#[test]
fn usage_errors_exit_2() {
    let Some((demo, data, _)) = corpus() else {
        return;
    };
    let cases: [(&[&str], &str); 4] = [
        (&[], "say what to draw"),
        (&["--raw", "--fps", "0"], "frames a second"),
        (&["--tick", "99999", "-o", "x.png"], "tick"),
        (&["--raw", "--width", "0"], "pixels"),
    ];
    for (extra, message) in cases {
        let mut args = vec!["demo", "render", &demo, "--data", &data];
        args.extend(extra);
        let output = Command::new(env!("CARGO_BIN_EXE_twcodec"))
            .args(&args)
            .stdout(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{extra:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(message),
            "{extra:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn a_closed_pipe_ends_quietly_and_a_full_disk_is_one_line() {
    let Some((demo, data, mapres)) = corpus() else {
        return;
    };
    let args = [
        "demo", "render", &demo, "--raw", "--width", "64", "--height", "36", "--data", &data,
        "--mapres", &mapres,
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = vec![0; 64 * 36 * 4];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
    if let Ok(full) = std::fs::File::create("/dev/full") {
        let output = Command::new(env!("CARGO_BIN_EXE_twcodec"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(
            stderr(&output),
            "twcodec: error: writing standard output: No space left on device (os error 28)\n"
        );
    }
}
