//! Where names that come from an input decide where a write lands (`extract`'s picture
//! names, the files of `resave --out-dir` and `extract --out-dir` named after a folder someone
//! else made), no link the output directory holds takes the write elsewhere, and no name is
//! too long for the file system.

#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Output};

fn twcodec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args(args)
        .output()
        .expect("the twcodec binary runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The sample with an embedded image named `name`.
fn map_with_image(name: &str) -> twcodec::Map {
    let mut map = twcodec_testkit::sample::map().unwrap();
    map.add_embedded_image(name, 2, 2, vec![255u8; 16]).unwrap();
    map
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn extract_does_not_write_through_a_link_in_its_directory() {
    let root = tempfile::tempdir().unwrap();
    let outside = root.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let target = outside.join("target.png");
    std::fs::write(&target, b"not yours").unwrap();
    let map = map_with_image("victim");
    for link_to in [&target, &outside] {
        let dir = root.path().join("dir");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        std::os::unix::fs::symlink(link_to, dir.join("victim.png")).unwrap();
        let error = twcodec_tools::assets::extract(&map, &dir, twcodec_tools::assets::Only::All)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("victim.png is a symbolic link")
                && error.contains("nothing was written"),
            "{error}"
        );
        // Refused before anything was written: the other pictures are not there either.
        let written: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(written.len(), 1, "only the link");
        assert_eq!(std::fs::read(&target).unwrap(), b"not yours");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
    }
}

#[test]
fn out_dir_outputs_do_not_follow_links_in_the_output_directory() {
    let root = tempfile::tempdir().unwrap();
    let pool = root.path().join("pool");
    std::fs::create_dir(&pool).unwrap();
    map_with_image("pic").save(pool.join("s.map")).unwrap();
    let elsewhere = root.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let victim = elsewhere.join("victim");
    std::fs::write(&victim, b"not yours").unwrap();
    // resave --out-dir: OD/s.map -> ../elsewhere/victim.
    let out = root.path().join("od");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("s.map")).unwrap();
    let output = twcodec(&["resave", "--out-dir", s(&out), s(&pool)]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("s.map is a symbolic link"),
        "{}",
        text(&output)
    );
    assert_eq!(std::fs::read(&victim).unwrap(), b"not yours");
    // extract --out-dir: OD/s -> ../elsewhere.
    let assets = root.path().join("assets");
    std::fs::create_dir(&assets).unwrap();
    std::os::unix::fs::symlink(&elsewhere, assets.join("s")).unwrap();
    let output = twcodec(&["extract", "--out-dir", s(&assets), s(&pool)]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("is a symbolic link"),
        "{}",
        text(&output)
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 1);
}

#[test]
fn long_names_of_any_script_fit_a_file_name() {
    // 80 CJK characters: 240 bytes of UTF-8.
    let name = "洞".repeat(80);
    let map = map_with_image(&name);
    let dir = tempfile::tempdir().unwrap();
    let assets =
        twcodec_tools::assets::extract(&map, dir.path(), twcodec_tools::assets::Only::All).unwrap();
    let file = assets
        .iter()
        .find(|a| a.name.as_deref() == Some(name.as_str()))
        .and_then(|a| a.file.clone())
        .unwrap();
    assert!(file.len() <= 255 - 20, "{} bytes", file.len());
    assert!(file.starts_with("洞") && file.ends_with(".png"), "{file}");
    assert!(dir.path().join(&file).is_file());
}

#[test]
fn extract_does_not_write_into_a_fifo_named_after_a_picture() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("victim.png");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: no mkfifo");
        return;
    }
    let map = map_with_image("victim");
    let (send, receive) = std::sync::mpsc::channel();
    let path = dir.path().to_path_buf();
    std::thread::spawn(move || {
        let result = twcodec_tools::assets::extract(&map, &path, twcodec_tools::assets::Only::All);
        let _ = send.send(result.map(|a| a.len()).map_err(|e| e.to_string()));
    });
    let result = receive
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("extract ends at once");
    let error = result.unwrap_err();
    assert!(error.contains("victim.png: it is a FIFO"), "{error}");
}
