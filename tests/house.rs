//! The repository as a newcomer finds it: no generated files at its root, comments that cite
//! files the project has, snapshot metadata that points at the assertions, and a test run
//! without the corpus that says it skipped.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    common::root()
}

/// Every `.rs` file under the project's source folders.
fn sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = [
        "src",
        "schema/src",
        "schema/derive/src",
        "tools/src",
        "cli/src",
        "testkit/src",
        "bindings/python/src",
        "tests",
        "benches",
        "examples",
        "fuzz",
    ]
    .iter()
    .map(|dir| root().join(dir))
    .collect();
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if !path.ends_with("target") && !path.ends_with("corpus") {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn the_repository_root_holds_no_generated_files() {
    let stray: Vec<String> = std::fs::read_dir(root())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| {
            [".bin", ".packed", ".map", ".demo", ".snap.new", ".tmp"]
                .iter()
                .any(|ext| name.ends_with(ext))
        })
        .collect();
    assert!(stray.is_empty(), "generated files at the root: {stray:?}");
}

#[test]
fn comments_cite_files_the_project_has() {
    let mut missing = Vec::new();
    for file in sources() {
        let text = std::fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let place = format!("{}:{}", file.display(), number + 1);
            // The notes beside the shared format documents are not the project's;
            // docs/format-notes.md is.
            if line.contains(&["NOTES", ".md"].concat()) {
                missing.push(format!("{place}: cites a file outside the project"));
            }
            let mut rest = line;
            while let Some(at) = rest.find("docs/") {
                let cited: String = rest[at..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || "/-_.".contains(*c))
                    .collect();
                let cited = cited.trim_end_matches('.');
                if cited.ends_with(".md") && !root().join(cited).exists() {
                    missing.push(format!("{place}: cites {cited}, which does not exist"));
                }
                rest = &rest[at + 5..];
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn snapshot_metadata_points_at_the_assertions() {
    let mut stale = Vec::new();
    let mut snapshots = 0;
    for entry in std::fs::read_dir(root().join("snapshots")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "snap") {
            continue;
        }
        snapshots += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        let header = text.split("\n---\n").next().unwrap_or_default();
        let field = |name: &str| {
            header
                .lines()
                .find_map(|line| line.strip_prefix(&format!("{name}: ")))
                .map(|value| value.trim().to_string())
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(source) = field("source") else {
            stale.push(format!("{name}: no source"));
            continue;
        };
        let Ok(code) = std::fs::read_to_string(root().join(&source)) else {
            stale.push(format!("{name}: its source {source} does not exist"));
            continue;
        };
        if let Some(line) = field("assertion_line") {
            let at: usize = line.parse().unwrap();
            let here = code.lines().nth(at - 1).unwrap_or_default();
            if !here.contains("snapshot!") {
                stale.push(format!(
                    "{name}: assertion_line {at} of {source} is `{}`",
                    here.trim()
                ));
            }
        }
    }
    assert!(snapshots > 50, "{snapshots} snapshots");
    assert!(
        stale.is_empty(),
        "{}\nrefresh the metadata with `INSTA_UPDATE=always INSTA_FORCE_UPDATE=1 cargo test \
         --workspace` (insta leaves matching snapshots as they are)",
        stale.join("\n")
    );
}

/// A test that reads the corpus, for the test below to run without one.
#[test]
fn reads_the_corpus() {
    if let Some(dir) = common::corpus_dir() {
        assert!(dir.join("maps").is_dir());
    }
}

#[test]
fn a_run_without_the_corpus_says_it_skipped() {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "reads_the_corpus"])
        .env("TWCODEC_CORPUS", "/nonexistent/corpus")
        .env_remove("CI")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains(
            "skipped: reads_the_corpus: no corpus at /nonexistent/corpus (optional; set \
             TWCODEC_CORPUS, see the README)"
        ),
        "the ordinary output names the skip: {text}"
    );
}

/// The code of docs/extending.md is code that compiles: each block names the file it is copied
/// from on its first line (`// from: PATH`) and must appear there, line for line (indentation
/// aside).
#[test]
fn the_extending_guide_quotes_compiled_code() {
    let guide = std::fs::read_to_string(root().join("docs/extending.md")).unwrap();
    let mut blocks = 0;
    let mut stale = Vec::new();
    for block in guide.split("```rust\n").skip(1) {
        let block = &block[..block.find("```").expect("a closed code block")];
        let mut lines = block.lines();
        let first = lines.next().unwrap_or_default();
        let path = first
            .trim()
            .strip_prefix("// from: ")
            .unwrap_or_else(|| panic!("a block without `// from: PATH`: {first}"));
        let quoted: Vec<&str> = lines.map(str::trim).collect();
        let source = std::fs::read_to_string(root().join(path)).unwrap();
        let source: Vec<&str> = source.lines().map(str::trim).collect();
        if !source.windows(quoted.len()).any(|window| window == quoted) {
            stale.push(format!("{path}:\n{}", quoted.join("\n")));
        }
        blocks += 1;
    }
    assert!(blocks >= 5, "only {blocks} code blocks");
    assert!(
        stale.is_empty(),
        "blocks that are not in their files:\n{}",
        stale.join("\n\n")
    );
}

/// The codec's modules (and the modules inside `map/` and `snap/`) name each other without a
/// cycle: what a module names through `crate::` or `super::` outside its tests, read as text.
#[test]
fn the_codec_modules_form_no_cycle() {
    use std::collections::{BTreeMap, BTreeSet};
    let src = root().join("src");
    let files: Vec<PathBuf> = sources()
        .into_iter()
        .filter(|path| path.starts_with(&src))
        .collect();
    // A file's module path below src: `map::edit::images`, `map`, `datafile`.
    let module = |path: &Path| -> Vec<String> {
        let relative = path.strip_prefix(&src).unwrap().with_extension("");
        let mut parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.last().map(String::as_str) == Some("mod") || parts == ["lib"] {
            parts.pop();
        }
        parts
    };
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module(f)).collect();
    // Edges at one level: below `parent` (empty for the crate), child to child.
    let edges_below = |parent: &[String]| -> BTreeMap<String, BTreeSet<String>> {
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for file in &files {
            let path = module(file);
            if path.len() <= parent.len() || path[..parent.len()] != *parent {
                continue;
            }
            let from = path[parent.len()].clone();
            let text = std::fs::read_to_string(file).unwrap();
            let text = text
                .split("#[cfg(test)]\nmod tests")
                .next()
                .unwrap_or_default();
            let prefixes: Vec<String> = match parent.is_empty() {
                true => vec!["crate::".into()],
                false => vec![
                    format!("crate::{}::", parent.join("::")),
                    // `super::` from a child file of `parent` (not from deeper files).
                    if path.len() == parent.len() + 1 {
                        "super::".into()
                    } else {
                        "\u{0}".into()
                    },
                ],
            };
            for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
                for prefix in &prefixes {
                    for (at, _) in line.match_indices(prefix.as_str()) {
                        let rest = &line[at + prefix.len()..];
                        let name: String = rest
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        let mut target = parent.to_vec();
                        target.push(name.clone());
                        if name != from && modules.contains(&target) {
                            edges.entry(from.clone()).or_default().insert(name);
                        }
                    }
                }
            }
        }
        edges
    };
    for parent in [vec![], vec!["map".to_string()], vec!["snap".to_string()]] {
        let edges = edges_below(&parent);
        // Any cycle shows as a module that reaches itself.
        for start in edges.keys() {
            let mut seen = BTreeSet::new();
            let mut stack: Vec<&String> = edges[start].iter().collect();
            while let Some(next) = stack.pop() {
                assert!(
                    next != start,
                    "module {}{start} reaches itself through {:?} (edges: {edges:?})",
                    parent.iter().map(|p| format!("{p}::")).collect::<String>(),
                    seen
                );
                if seen.insert(next.clone()) {
                    stack.extend(edges.get(next).into_iter().flatten());
                }
            }
        }
        assert!(
            parent.is_empty() || !edges.is_empty(),
            "no edges read below {parent:?}"
        );
    }
}
