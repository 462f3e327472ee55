//! Every fuzz target's body (`twcodec_testkit::fuzz`, run by cargo-fuzz in `fuzz/`) over its seeds and
//! a few thousand deterministic mutations of them, under plain `cargo test`: a regression of the
//! no-panic guarantee shows up without a fuzzer. Also every input that fuzzing found, kept in
//! `tests/fuzz_regressions.rs`.

mod common;

use common::Rng;
use twcodec_testkit::fuzz::Target;

/// Values that break sizes and counts.
const INTERESTING: [i32; 10] = [
    0,
    1,
    -1,
    2,
    0x7F,
    0x80,
    0xFF,
    0x7FFF_FFFF,
    i32::MIN,
    0x10000,
];

/// One mutation of `seed`, in the spirit of libFuzzer's: bit flips, bytes set, interesting ints
/// written (aligned, as the formats are made of ints), bytes inserted, removed or duplicated,
/// the input cut. One to four of them.
fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = data.len();
        match rng.below(7) {
            0 if len > 0 => {
                let at = rng.below(len);
                data[at] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let at = rng.below(len);
                data[at] = rng.next() as u8;
            }
            2 if len >= 4 => {
                let at = rng.below(len / 4) * 4;
                let value = INTERESTING[rng.below(INTERESTING.len())];
                data[at..at + 4].copy_from_slice(&value.to_le_bytes());
            }
            3 => {
                let at = rng.below(len + 1);
                data.insert(at, rng.next() as u8);
            }
            4 if len > 0 => {
                let at = rng.below(len);
                let end = (at + 1 + rng.below(16)).min(len);
                data.drain(at..end);
            }
            5 if len > 0 => {
                let at = rng.below(len);
                let end = (at + 1 + rng.below(64)).min(len);
                let copy = data[at..end].to_vec();
                let to = rng.below(data.len() + 1);
                data.splice(to..to, copy);
            }
            _ => data.truncate(rng.below(len + 1)),
        }
    }
    data
}

/// Runs `target` over its seeds and `mutations` mutated inputs.
fn smoke(target: Target, mutations: usize) {
    let corpus = common::corpus_dir();
    let seeds = target.seeds(corpus.as_deref());
    assert!(!seeds.is_empty(), "{}: no seeds", target.name());
    for seed in &seeds {
        target.run(seed);
    }
    let mut rng = Rng(0x0074_7763_6F64_6563 ^ target.name().len() as u64);
    for _ in 0..mutations {
        let seed = &seeds[rng.below(seeds.len())];
        let input = mutate(seed, &mut rng);
        target.run(&input);
    }
    // And plain noise.
    for len in [0, 1, 3, 4, 7, 8, 36, 100, 1000] {
        let noise: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        target.run(&noise);
    }
}

#[test]
fn datafile() {
    smoke(Target::Datafile, 3000);
}

#[test]
fn map_lenient() {
    smoke(Target::MapLenient, 2000);
}

#[test]
fn map_strict() {
    smoke(Target::MapStrict, 1000);
}

#[test]
fn map_roundtrip() {
    smoke(Target::MapRoundTrip, 1000);
}

#[test]
fn transform() {
    smoke(Target::Transform, 300);
}

#[test]
fn tiles_07() {
    smoke(Target::Tiles07, 3000);
}

#[test]
fn snapshot() {
    smoke(Target::Snapshot, 3000);
}

#[test]
fn delta() {
    smoke(Target::Delta, 3000);
}

#[test]
fn packing() {
    smoke(Target::Packing, 3000);
}

#[test]
fn huffman() {
    smoke(Target::Huffman, 3000);
}

#[test]
fn demo() {
    if common::corpus_dir().is_some() {
        smoke(Target::Demo, 2000);
    }
}

#[test]
fn teehistorian() {
    smoke(Target::Teehistorian, 3000);
}

#[test]
fn demo_edit() {
    if common::corpus_dir().is_some() {
        smoke(Target::DemoEdit, 1000);
    }
}

#[test]
fn ghost() {
    smoke(Target::Ghost, 3000);
}

#[test]
fn packet() {
    if common::corpus_dir().is_some() {
        smoke(Target::Packet, 3000);
    }
}

#[test]
fn pack() {
    // Each run unpacks the sample into a new directory: fewer runs than the in-memory targets.
    smoke(Target::Pack, 300);
}

#[test]
fn render() {
    smoke(Target::Render, 1000);
}

#[test]
fn demo_render() {
    // Seeds without the corpus too: the sample recorded.
    smoke(Target::DemoRender, 300);
}

#[test]
fn merge() {
    smoke(Target::Merge, 1000);
}

#[test]
fn optimize() {
    smoke(Target::Optimize, 300);
}

#[test]
fn automap() {
    smoke(Target::Automap, 1000);
}

#[test]
fn check() {
    smoke(Target::Check, 600);
}

#[test]
fn tile_edits() {
    smoke(Target::TileEdits, 500);
}
