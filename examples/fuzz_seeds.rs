//! Writes the seed corpus of every fuzz target to `fuzz/corpus/<target>/`, made from the
//! built-in samples and the shared corpus (`$TWCODEC_CORPUS`, default `../shared/corpus`):
//!
//! ```text
//! cargo run --release --example fuzz_seeds
//! ```
//!
//! The files are named by their CRC-32, so running it again adds nothing twice. `fuzz/corpus`
//! is not committed: the shared corpus stays outside the project.

use std::path::{Path, PathBuf};

use twcodec_testkit::fuzz::Target;

fn main() -> std::io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("TWCODEC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));
    let corpus = corpus.join("maps").is_dir().then_some(corpus);
    if corpus.is_none() {
        eprintln!("no shared corpus found: seeds from the built-in samples only");
    }
    for target in Target::ALL {
        let dir = root.join("fuzz").join("corpus").join(target.name());
        std::fs::create_dir_all(&dir)?;
        let seeds = target.seeds(corpus.as_deref());
        for seed in &seeds {
            let name = format!("seed-{:08x}", crc32fast::hash(seed));
            std::fs::write(dir.join(name), seed)?;
        }
        println!(
            "{}: {} seeds in {}",
            target.name(),
            seeds.len(),
            dir.display()
        );
    }
    Ok(())
}
