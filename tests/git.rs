//! twcodec in git, set up as the README's "Maps in git" says: `twcodec diff --git` as the
//! external diff driver (`git diff`) and `twcodec dump --for-diff` as the textconv (`git log
//! -p`, `git show`, `git blame`), in a temporary repository with no user or system
//! configuration. Every case runs the git binary; without one, the tests say so and pass.

use std::path::Path;
use std::process::{Command, Output};

use twcodec::map::LayerContent;
use twcodec::Map;

/// git, run in `dir` with no user or system configuration; it must succeed.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = git_output(dir, args);
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn git_output(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["-c", "init.defaultBranch=main", "-c", "core.pager=cat"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir)
        .env_remove("GIT_EXTERNAL_DIFF")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("git runs")
}

/// Whether git is there; says so when it is not.
fn have_git(test: &str) -> bool {
    match Command::new("git").arg("--version").output() {
        Ok(output) if output.status.success() => true,
        _ => {
            eprintln!("skipped: {test}: git is not installed");
            false
        }
    }
}

/// A repository set up as the README says: `.gitattributes` and the driver's two commands,
/// pointing at the binary under test.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    git(repo, &["init", "-q"]);
    let exe = env!("CARGO_BIN_EXE_twcodec");
    git(
        repo,
        &[
            "config",
            "diff.twcodec.command",
            &format!("'{exe}' diff --git"),
        ],
    );
    git(
        repo,
        &[
            "config",
            "diff.twcodec.textconv",
            &format!("'{exe}' dump --for-diff"),
        ],
    );
    std::fs::write(repo.join(".gitattributes"), "*.map diff=twcodec\n").unwrap();
    git(repo, &["add", ".gitattributes"]);
    git(repo, &["commit", "-q", "-m", "attributes"]);
    dir
}

/// The built-in sample with the game tiles at `(x, 2)` set to `id`, for each x.
fn painted(xs: &[usize], id: u8) -> Vec<u8> {
    let mut map = Map::parse(&twcodec_testkit::sample::datafile()).unwrap();
    let (game, _) = map.game_layer().unwrap();
    let layer = map.layer_mut(game).unwrap();
    let LayerContent::Game(tiles) = layer.content_mut() else {
        panic!("the game layer");
    };
    let grid = tiles.grid_mut().unwrap();
    for &x in xs {
        grid.get_mut(x, 2).unwrap().id = id;
    }
    map.to_bytes().unwrap()
}

fn write(repo: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(repo.join(name), bytes).unwrap();
}

/// A changed map in the work tree, the index and a commit: `git diff` and `git diff --cached`
/// say what changed by place (the driver), `git show` and `git log -p` show the changed row of
/// tiles as one line under the layer's name (the textconv), and `git blame` reads the text.
#[test]
fn a_changed_map() {
    if !have_git("a_changed_map") {
        return;
    }
    let dir = repo();
    let repo = dir.path();
    write(repo, "level.map", &twcodec_testkit::sample::datafile());
    git(repo, &["add", "level.map"]);
    git(repo, &["commit", "-q", "-m", "a map"]);
    write(repo, "level.map", &painted(&[3], 1));

    let expected = "twcodec diff a/level.map b/level.map\n\
                    group #1 \"Game\" / layer #2 \"Game\":\n  x 3, y 2: 0 -> 1\n";
    assert_eq!(git(repo, &["diff"]), expected);
    git(repo, &["add", "level.map"]);
    assert_eq!(git(repo, &["diff"]), "");
    assert_eq!(git(repo, &["diff", "--cached"]), expected);
    git(repo, &["commit", "-q", "-m", "a tile"]);
    assert_eq!(git(repo, &["diff", "HEAD~1", "HEAD"]), expected);

    // The textconv: one line of tiles changed, under the layer that holds it.
    let show = git(repo, &["show"]);
    assert!(
        show.contains("diff --git a/level.map b/level.map"),
        "{show}"
    );
    let hunks: Vec<&str> = show.lines().filter(|l| l.starts_with("@@")).collect();
    assert_eq!(hunks.len(), 1, "{show}");
    assert!(
        hunks[0].ends_with("@@ layer \"Game\" in group \"Game\""),
        "{show}"
    );
    let changed: Vec<&str> = (show.lines())
        .filter(|l| (l.starts_with('-') || l.starts_with('+')) && !l.starts_with("--"))
        .filter(|l| !l.starts_with("++"))
        .collect();
    assert_eq!(
        changed,
        ["-  y 2: 1 .*10 3", "+  y 2: 1 .*2 1 .*7 3"],
        "{show}"
    );
    let log = git(repo, &["log", "-p"]);
    assert!(log.contains("+  y 2: 1 .*2 1 .*7 3"), "{log}");
    assert!(
        log.contains("+  y 2: 1 .*10 3"),
        "the first commit's map: {log}"
    );
    assert!(!log.contains("Binary files"), "{log}");
    // The driver where asked for: --ext-diff.
    let log = git(repo, &["log", "-p", "--ext-diff", "-1"]);
    assert!(log.contains("  x 3, y 2: 0 -> 1"), "{log}");
    // git blame reads the text: the painted row is the second commit's.
    let blame = git(repo, &["blame", "-s", "level.map"]);
    let second = git(repo, &["rev-parse", "--short", "HEAD"]);
    let row = blame.lines().find(|l| l.ends_with("  y 2: 1 .*2 1 .*7 3"));
    assert!(row.is_some_and(|l| l.starts_with(second.trim())), "{blame}");
}

/// Renamed maps: git gives the driver nine arguments (two more than for a change: the new
/// path and its rename lines), which killed `git diff` before.
#[test]
fn a_renamed_map() {
    if !have_git("a_renamed_map") {
        return;
    }
    let dir = repo();
    let repo = dir.path();
    write(repo, "level.map", &twcodec_testkit::sample::datafile());
    git(repo, &["add", "level.map"]);
    git(repo, &["commit", "-q", "-m", "a map"]);

    // Renamed as it is.
    git(repo, &["mv", "level.map", "renamed.map"]);
    assert_eq!(
        git(repo, &["diff", "--cached"]),
        "twcodec diff a/level.map b/renamed.map\nsimilarity index 100%\n\
         rename from level.map\nrename to renamed.map\n"
    );
    git(repo, &["commit", "-q", "-m", "renamed"]);
    let show = git(repo, &["show"]);
    assert!(show.contains("rename to renamed.map"), "{show}");

    // Renamed and changed.
    git(repo, &["mv", "renamed.map", "moved.map"]);
    write(repo, "moved.map", &painted(&[3], 1));
    git(repo, &["add", "moved.map"]);
    let diff = git(repo, &["diff", "--cached"]);
    let lines: Vec<&str> = diff.lines().collect();
    assert_eq!(lines[0], "twcodec diff a/renamed.map b/moved.map", "{diff}");
    assert!(lines[1].starts_with("similarity index "), "{diff}");
    assert_eq!(
        lines[2..4],
        ["rename from renamed.map", "rename to moved.map"]
    );
    assert!(diff.ends_with("  x 3, y 2: 0 -> 1\n"), "{diff}");
    git(repo, &["commit", "-q", "-m", "moved and painted"]);
    let show = git(repo, &["show", "-M"]);
    assert!(show.contains("+  y 2: 1 .*2 1 .*7 3"), "{show}");
}

/// A new map and a deleted map are a line each; so is an unmerged path (one argument).
#[test]
fn a_new_a_deleted_and_an_unmerged_map() {
    if !have_git("a_new_a_deleted_and_an_unmerged_map") {
        return;
    }
    let dir = repo();
    let repo = dir.path();
    write(repo, "level.map", &twcodec_testkit::sample::datafile());
    git(repo, &["add", "level.map"]);
    assert_eq!(
        git(repo, &["diff", "--cached"]),
        "twcodec diff a/level.map b/level.map\nnew map\n"
    );
    git(repo, &["commit", "-q", "-m", "a map"]);
    let show = git(repo, &["show"]);
    assert!(show.contains("+layer \"Game\" in group \"Game\""), "{show}");
    git(repo, &["rm", "-q", "level.map"]);
    assert_eq!(
        git(repo, &["diff", "--cached"]),
        "twcodec diff a/level.map b/level.map\ndeleted map\n"
    );
    git(repo, &["commit", "-q", "-m", "gone"]);
    let show = git(repo, &["show"]);
    assert!(show.contains("-layer \"Game\" in group \"Game\""), "{show}");

    // Both sides of a merge paint the same tile: a conflict.
    write(repo, "level.map", &twcodec_testkit::sample::datafile());
    git(repo, &["add", "level.map"]);
    git(repo, &["commit", "-q", "-m", "back"]);
    git(repo, &["checkout", "-q", "-b", "side"]);
    write(repo, "level.map", &painted(&[3], 1));
    git(repo, &["commit", "-q", "-am", "side"]);
    git(repo, &["checkout", "-q", "main"]);
    write(repo, "level.map", &painted(&[3], 2));
    git(repo, &["commit", "-q", "-am", "main"]);
    let merge = git_output(repo, &["merge", "-q", "side"]);
    assert!(!merge.status.success(), "a conflict");
    assert_eq!(
        git(repo, &["diff", "--cached"]),
        "twcodec diff level.map: unmerged; resolve the conflict, then compare\n"
    );
    git(repo, &["diff"]);
}

/// A side that is not a map (text committed under a .map name, garbage) is a line saying so,
/// and git goes on.
#[test]
fn a_side_that_is_not_a_map() {
    if !have_git("a_side_that_is_not_a_map") {
        return;
    }
    let dir = repo();
    let repo = dir.path();
    write(repo, "level.map", b"a text file, not a map\n");
    git(repo, &["add", "level.map"]);
    assert_eq!(
        git(repo, &["diff", "--cached"]),
        "twcodec diff a/level.map b/level.map\nnew file, not a map: datafile header: not a \
         datafile: magic is \"a te\" (expected \"DATA\" or \"ATAD\") (at byte 0x0)\n"
    );
    git(repo, &["commit", "-q", "-m", "text"]);
    write(repo, "level.map", &twcodec_testkit::sample::datafile());
    assert_eq!(
        git(repo, &["diff"]),
        "twcodec diff a/level.map b/level.map\nthe old file is not a map: datafile header: not \
         a datafile: magic is \"a te\" (expected \"DATA\" or \"ATAD\") (at byte 0x0)\n"
    );
    git(repo, &["commit", "-q", "-am", "a map"]);
    // Garbage, and a demo, where the map was.
    write(repo, "level.map", &[0xff; 100]);
    let diff = git(repo, &["diff"]);
    assert!(diff.ends_with("\nthe new file is not a map: datafile header: not a datafile: magic is 0xffffffff (expected \"DATA\" or \"ATAD\") (at byte 0x0)\n"), "{diff}");
    write(repo, "level.map", b"TWDEMO\0\x06 a demo");
    let diff = git(repo, &["diff"]);
    assert!(
        diff.ends_with(
            "\nthe new file is not a map: not a datafile (a map): the file is a demo, it starts \
             with \"TWDEMO\\0\"\n"
        ),
        "{diff}"
    );
    git(repo, &["commit", "-q", "-am", "a demo"]);
    // The textconv of each, in the history.
    let log = git(repo, &["log", "-p"]);
    assert!(log.contains("+not a map: datafile header: not a datafile: magic is \"a te\""));
    assert!(log.contains("-not a map: datafile header: not a datafile: magic is \"a te\""));
    assert!(log.contains("+not a map: not a datafile (a map): the file is a demo"));
    assert!(log.contains("+layer \"Game\" in group \"Game\""), "{log}");
}

/// The textconv text is the same on every run, and `git diff` of two maps that differ only in
/// how they are stored says so.
#[test]
fn the_text_is_stable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("level.map");
    std::fs::write(&path, painted(&[3, 4], 9)).unwrap();
    let run = || {
        let output = Command::new(env!("CARGO_BIN_EXE_twcodec"))
            .args(["dump", "--for-diff"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8(output.stdout).unwrap()
    };
    let text = run();
    assert_eq!(text, run());
    assert!(text.contains("\n  y 2: 1 .*2 9*2 .*6 3\n"), "{text}");
    assert_eq!(
        text,
        twcodec_tools::dump::to_string(|out| twcodec_tools::dump::map_for_diff(
            &Map::open(&path).unwrap(),
            out
        ))
    );

    if !have_git("the_text_is_stable") {
        return;
    }
    let dir = repo();
    let repo = dir.path();
    write(repo, "level.map", &twcodec_testkit::sample::datafile());
    git(repo, &["add", "level.map"]);
    git(repo, &["commit", "-q", "-m", "a map"]);
    let map = Map::parse(&twcodec_testkit::sample::datafile()).unwrap();
    write(repo, "level.map", &map.to_bytes_with(0).unwrap());
    assert_eq!(
        git(repo, &["diff"]),
        "twcodec diff a/level.map b/level.map\nthe same map (the files differ in how it is \
         stored)\n"
    );
    assert_eq!(git(repo, &["diff", "--no-ext-diff"]), "", "the same text");
}
