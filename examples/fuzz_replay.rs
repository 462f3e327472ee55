//! Runs a fuzz target's body over every file of a corpus directory (or single files), without
//! a fuzzer, and reports the slowest inputs (median of three runs each) and the inputs with the
//! highest heap peak (bytes allocated at once, above what was allocated before the run): how
//! the "slowest input" and "peak memory" figures are measured.
//!
//! ```text
//! cargo run --release --example fuzz_replay -- map_strict fuzz/corpus/map_strict
//! cargo run --release --example fuzz_replay -- all        # every target over fuzz/corpus/<target>
//! ```

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use peak_alloc::PeakAlloc;
use twcodec_testkit::fuzz::Target;

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(name) = args.next() else {
        eprintln!("usage: fuzz_replay TARGET|all [FILE|DIR ...]");
        std::process::exit(2);
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join("corpus");
    let paths: Vec<PathBuf> = args.map(PathBuf::from).collect();
    let targets: Vec<Target> = if name == "all" {
        Target::ALL.to_vec()
    } else {
        match Target::ALL.iter().find(|t| t.name() == name) {
            Some(target) => vec![*target],
            None => {
                eprintln!("no target {name}");
                std::process::exit(2);
            }
        }
    };
    for target in targets {
        let paths = if paths.is_empty() {
            vec![root.join(target.name())]
        } else {
            paths.clone()
        };
        let files = files(&paths);
        let mut slowest: Vec<(Duration, &Path, usize)> = Vec::new();
        let mut heaviest: Vec<(usize, &Path, usize)> = Vec::new();
        let mut total = Duration::ZERO;
        for path in &files {
            let Ok(bytes) = std::fs::read(path) else {
                continue;
            };
            ALLOC.reset_peak_usage();
            let base = ALLOC.current_usage();
            target.run(&bytes);
            heaviest.push((ALLOC.peak_usage() - base, path, bytes.len()));
            // The median of three runs, so a first run's thread pool start or a page fault
            // storm does not make an input look slow.
            let mut runs = [Duration::ZERO; 3];
            for run in &mut runs {
                let start = Instant::now();
                target.run(&bytes);
                *run = start.elapsed();
            }
            runs.sort();
            let took = runs[1];
            total += took;
            slowest.push((took, path, bytes.len()));
        }
        slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
        heaviest.sort_by_key(|s| std::cmp::Reverse(s.0));
        println!(
            "{}: {} inputs in {:.3} s",
            target.name(),
            files.len(),
            total.as_secs_f64()
        );
        for (took, path, len) in slowest.iter().take(3) {
            println!(
                "  {:9.3} ms  {:6} B  {}",
                took.as_secs_f64() * 1e3,
                len,
                path.display()
            );
        }
        for (peak, path, len) in heaviest.iter().take(3) {
            println!(
                "  {:9.3} MiB heap peak  {:6} B  {}",
                *peak as f64 / f64::from(1 << 20),
                len,
                path.display()
            );
        }
    }
}

fn files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in paths {
        match std::fs::read_dir(path) {
            Ok(entries) => {
                let mut inner: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
                inner.sort();
                files.extend(inner);
            }
            Err(_) => files.push(path.clone()),
        }
    }
    files
}
