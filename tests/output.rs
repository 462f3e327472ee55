//! What the `twcodec` binary writes and how it ends: files written safely (atomically for
//! regular files, in place for devices and FIFOs, modes kept, temporary files named after
//! their target and removed on signals), `-` as standard output, and clean exits when standard
//! output fails.

#![cfg(unix)]

mod common;

use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use common::hostile::envelopes_sharing_points;
use common::*;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_twcodec"))
}

fn twcodec(args: &[&str]) -> Output {
    bin().args(args).output().expect("the twcodec binary runs")
}

/// Runs `twcodec` under `sh` with a umask.
fn twcodec_with_umask(umask: &str, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// Files in `dir` whose names start with `.`: temporary files left behind.
fn hidden_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect()
}

#[test]
fn devices_and_fifos_are_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.map");
    std::fs::write(&input, small_v4()).unwrap();

    // A FIFO stays a FIFO, and its reader gets the map.
    let fifo = dir.path().join("pipe");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let output = twcodec(&["resave", path_str(&input), path_str(&fifo)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(reader.join().unwrap(), small_v4());
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(hidden_files(dir.path()).is_empty());

    // /dev/null takes the map and stays a device (it was replaced by a regular file when
    // run as root).
    let output = twcodec(&["resave", path_str(&input), "/dev/null"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());

    // /dev/full refuses it: exit 1, one line naming the path and the reason.
    if Path::new("/dev/full").exists() {
        let output = twcodec(&["resave", path_str(&input), "/dev/full"]);
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(
            stderr(&output),
            "twcodec: error: /dev/full: cannot write the datafile: No space left on device (os error 28)\n"
        );
        assert!(std::fs::metadata("/dev/full")
            .unwrap()
            .file_type()
            .is_char_device());
    }
}

#[test]
fn a_dash_is_standard_output_for_every_command_that_writes_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.map");
    std::fs::write(&input, small_v4()).unwrap();

    let output = twcodec(&["resave", path_str(&input), "-"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout, small_v4());
    assert!(!Path::new("-").exists());

    let output = twcodec(&["sample", "-"]);
    assert_eq!(output.stdout, twcodec_testkit::sample::datafile());

    let snapshots = dir.path().join("snaps");
    std::fs::create_dir(&snapshots).unwrap();
    let (old, new) = (
        twcodec_testkit::sample::game_snapshot(1),
        twcodec_testkit::sample::game_snapshot(2),
    );
    let delta = twcodec::snap::SnapshotDelta::create(&old, &new).unwrap();
    let form = twcodec::snap::Form::Packed;
    old.save(snapshots.join("old"), form).unwrap();
    delta
        .save(
            snapshots.join("delta"),
            form,
            &twcodec::snap::SizeTable::ddnet_06(),
        )
        .unwrap();
    let output = twcodec(&[
        "snap",
        "apply",
        path_str(&snapshots.join("old")),
        path_str(&snapshots.join("delta")),
        "--packed",
        "--output",
        "-",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let applied = old.apply(&delta).unwrap();
    assert_eq!(applied, new);
    assert!(
        output.stdout == applied.to_bytes(form),
        "only the snapshot, no text"
    );

    if let Some(corpus) = corpus_dir() {
        let demo = corpus.join("demos/064_ddnet_join_chat_walk_disconnect__client.demo");
        if demo.exists() {
            let output = twcodec(&["demo", "map", path_str(&demo), "-"]);
            assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
            let expected = twcodec::demo::Demo::open(&demo).unwrap().map_bytes();
            assert_eq!(output.stdout, expected);
        }
    }
}

#[test]
fn new_files_get_the_umask_and_replaced_files_keep_their_mode() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.map");
    std::fs::write(&input, small_v4()).unwrap();

    let new = dir.path().join("new.map");
    let output = twcodec_with_umask("027", &["resave", path_str(&input), path_str(&new)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        mode(&new),
        0o640,
        "0666 & !umask, not the temporary file's 0600"
    );

    let output = twcodec_with_umask("022", &["sample", path_str(&dir.path().join("s.map"))]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(mode(&dir.path().join("s.map")), 0o644);

    // `resave F F` keeps F's mode, whatever the umask.
    std::fs::set_permissions(&input, std::fs::Permissions::from_mode(0o664)).unwrap();
    let output = twcodec_with_umask("077", &["resave", path_str(&input), path_str(&input)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(mode(&input), 0o664);
    assert_eq!(std::fs::read(&input).unwrap(), small_v4());

    // A link to a file stays a link; the file it points to is replaced.
    let link = dir.path().join("link.map");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let output = twcodec(&["sample", path_str(&link)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read(&input).unwrap(),
        twcodec_testkit::sample::datafile()
    );
    assert_eq!(mode(&input), 0o664);
    assert!(hidden_files(dir.path()).is_empty());
}

#[test]
fn a_file_that_cannot_be_written_is_named_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.map");
    std::fs::write(&input, small_v4()).unwrap();
    let missing = dir.path().join("no_such_dir/out.map");
    let output = twcodec(&["resave", path_str(&input), path_str(&missing)]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!(
            "twcodec: error: cannot write {}: the directory {} does not exist\n",
            missing.display(),
            missing.parent().unwrap().display()
        )
    );

    let output = twcodec(&["resave", path_str(&input), path_str(dir.path())]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!(
            "twcodec: error: cannot write {}: it is a directory\n",
            dir.path().display()
        )
    );

    // Binary output is not written to a terminal: util-linux's `script` gives the command one
    // (a pseudo-terminal); where it is missing, the check is skipped, and says so.
    let command = format!("{} sample -", env!("CARGO_BIN_EXE_twcodec"));
    match Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
    {
        Ok(output) => {
            assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
            // On a terminal the label is colored: compare the text without its colors.
            let text =
                anstream::adapter::strip_str(&String::from_utf8_lossy(&output.stdout)).to_string();
            assert!(
                text.contains("twcodec: error: not writing a map to a terminal"),
                "{text}"
            );
            assert!(
                !text.contains("DATA"),
                "no map bytes on the terminal: {text}"
            );
        }
        Err(error) => eprintln!("skipped the terminal check: no `script` ({error})"),
    }
}

/// Bytes that do not compress: a splitmix64 stream.
fn noise(len: usize) -> Vec<u8> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut bytes = Vec::with_capacity(len + 8);
    while bytes.len() < len {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        bytes.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    bytes.truncate(len);
    bytes
}

#[test]
fn a_signal_at_any_moment_leaves_the_old_file_or_the_new_one_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.map");
    let target = dir.path().join("out.map");
    // Recompressing megabytes of noise at level 9 takes long enough to be caught in the act.
    let mut writer = twcodec::DatafileWriter::new();
    writer.add_item(0, 0, vec![1]);
    writer.add_data(noise(32 << 20));
    std::fs::write(&input, writer.compression_level(0).to_vec().unwrap()).unwrap();
    let resave = || {
        bin()
            .args([
                "resave",
                path_str(&input),
                path_str(&target),
                "--recompress",
            ])
            .args(["--level", "9"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // One whole run: what it writes.
    std::fs::write(&target, b"the old file").unwrap();
    assert!(resave().wait().unwrap().success());
    let new = std::fs::read(&target).unwrap();
    // SIGTERM: the handler removes the temporary file. SIGKILL: no handler runs; on Linux
    // the file is written unnamed (O_TMPFILE) and linked in once whole, so nothing is left
    // either (elsewhere a named temporary file stays: not checked there).
    let signals: &[&str] = if cfg!(target_os = "linux") {
        &["-TERM", "-KILL"]
    } else {
        &["-TERM"]
    };
    // Timed again before each round: on a loaded machine one run may take several times as
    // long as the next, and a round whose kills mostly land after the end is tried again.
    let mut caught = 0;
    for _round in 0..3 {
        if caught >= signals.len() * 3 {
            break;
        }
        caught = 0;
        std::fs::write(&target, b"the old file").unwrap();
        let start = Instant::now();
        assert!(resave().wait().unwrap().success());
        let whole = start.elapsed();
        for signal in signals {
            for tenth in [1, 3, 5, 7, 9, 10] {
                std::fs::write(&target, b"the old file").unwrap();
                let mut child = resave();
                std::thread::sleep(whole * tenth / 10);
                let killed = Command::new("kill")
                    .args([*signal, &child.id().to_string()])
                    .status()
                    .unwrap();
                let status = child.wait().unwrap();
                let mut err = String::new();
                child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut err)
                    .unwrap();
                assert!(!err.contains("panicked"), "{err}");
                caught += usize::from(killed.success() && !status.success());
                assert!(
                    hidden_files(dir.path()).is_empty(),
                    "{signal} at {tenth}/10 of the run left {:?}",
                    hidden_files(dir.path())
                );
                let now = std::fs::read(&target).unwrap();
                assert!(
                    now == b"the old file" || now == new,
                    "{signal} at {tenth}/10: a file neither old nor new ({} bytes)",
                    now.len()
                );
            }
        }
    }
    // Most kills land while it runs.
    assert!(
        caught >= signals.len() * 3,
        "{caught} runs caught in the act"
    );
}

#[test]
fn a_closed_pipe_ends_quietly_and_a_full_disk_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("points.map");
    std::fs::write(&map, envelopes_sharing_points(0, 200_000)).unwrap();

    // `twcodec dump MAP | head -1`: several megabytes, the reader gone after one line.
    for args in [
        &["dump", path_str(&map)][..],
        &["dump", "--format", "json", path_str(&map)],
        &["items", "--decode", path_str(&map)],
    ] {
        let mut child = bin()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(!line.is_empty());
        let output = child.wait_with_output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert_eq!(stderr(&output), "", "{args:?}");
    }

    // `twcodec info MAP > /dev/full`: one line and exit 1, for every printing command.
    if let Ok(full) = std::fs::File::create("/dev/full") {
        for args in [
            &["info", path_str(&map)][..],
            &["dump", path_str(&map)],
            &["check", path_str(&map)],
            &[],
            &["--help"],
            &["--version"],
        ] {
            let output = bin()
                .args(args)
                .stdout(full.try_clone().unwrap())
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(1), "{args:?}");
            assert_eq!(
                stderr(&output),
                "twcodec: error: writing standard output: No space left on device (os error 28)\n",
                "{args:?}"
            );
        }
    }
}
