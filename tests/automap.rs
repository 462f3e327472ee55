//! The automapper (`twcodec_tools::automap`) on DDNet's own rule files and on the corpus layers
//! whose automapper configuration is automatic: those hold the editor's output, so running the
//! same configuration with the same seed must give the stored tiles.

mod common;

use twcodec::map::LayerContent;
use twcodec::Map;
use twcodec_tools::automap::Rules;

#[test]
fn ddnets_rule_files_read_and_automatic_layers_reproduce() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let rules_dir = dir.join("automap");
    let mut read = 0;
    for entry in std::fs::read_dir(&rules_dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rules") {
            let text = std::fs::read_to_string(&path).unwrap();
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            let rules = Rules::parse(&text, &file).unwrap_or_else(|e| panic!("{e}"));
            assert!(!rules.configs.is_empty(), "{file}");
            read += 1;
        }
    }
    assert_eq!(read, 16);
    // Every automatic layer with a seed and a rule file for its image.
    let (mut tried, mut same) = (0, 0);
    let mut misses = Vec::new();
    for path in common::corpus_maps().unwrap() {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let map = Map::open(&path).unwrap();
        for (index, layer) in map.layers().iter().enumerate() {
            let r = map.refs().nth(index).unwrap();
            let Some(automapper) = map.automapper_of(r) else {
                continue;
            };
            let item = automapper.item();
            let LayerContent::Tiles(tiles) = layer.content() else {
                continue;
            };
            if !item.flags.automatic() || item.seed == 0 || item.config < 0 {
                continue;
            }
            let Some(image) = layer.image(&map).get().and_then(|i| map.get(i)) else {
                continue;
            };
            let name = image.name(&map).unwrap_or_default();
            let Ok(text) = std::fs::read_to_string(rules_dir.join(format!("{name}.rules"))) else {
                continue;
            };
            let rules = Rules::parse(&text, &name).unwrap();
            let Some(config) = rules.configs.get(item.config as usize) else {
                continue;
            };
            let Some(stored) = tiles.grid() else {
                continue;
            };
            tried += 1;
            let mut grid = stored.clone();
            config.apply(&mut grid, item.seed as u32);
            // The editor adds the opaque flag (4) when saving; it is not the automapper's.
            let differ = (stored.tiles().iter().zip(grid.tiles()))
                .filter(|(a, b)| a.id != b.id || (a.flags & !4) != (b.flags & !4))
                .count();
            if differ == 0 {
                same += 1;
            } else {
                misses.push(format!(
                    "{file} layer #{index} ({name}, config {}): {differ} tiles differ",
                    item.config
                ));
            }
        }
    }
    eprintln!("automatic layers: {same} of {tried} reproduce");
    for miss in &misses {
        eprintln!("  {miss}");
    }
    // Pinned: issue 31 explains every miss; more reproducing is progress (update the pin).
    assert_eq!((same, tried), (4, 4), "{misses:#?}");
}

#[test]
fn the_command_runs_automatic_layers_or_one_and_writes_nothing_on_an_error() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let rules = dir.join("automap");
    let map = dir.join("maps/goresgen_minimalistic_blue.map");
    let out = tempfile::tempdir().unwrap();
    let output = out.path().join("out.map");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_twcodec"))
            .arg("automap")
            .arg(&map)
            .args(["--rules", rules.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap()
    };
    // Every automatic layer: they hold the editor's output already, so nothing changes.
    let all = run(&["-o", output.to_str().unwrap()]);
    assert_eq!(
        all.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&all.stderr)
    );
    let text = String::from_utf8(all.stdout).unwrap();
    assert!(
        text.starts_with("layer #2 \"Freeze\": \"Freeze\" with seed 1: 0 tiles changed\n"),
        "{text}"
    );
    assert_eq!(
        std::fs::read(&output).unwrap(),
        Map::open(&map).unwrap().to_bytes().unwrap()
    );
    // A configuration the rules do not have: an error naming those it has; nothing written.
    let bad_out = out.path().join("bad.map");
    let bad = run(&[
        "-o",
        bad_out.to_str().unwrap(),
        "--layer",
        "Freeze",
        "--config",
        "Nope",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        stderr.contains("no such configuration") && stderr.contains("[\"Freeze\"]"),
        "{stderr}"
    );
    assert!(!bad_out.exists());
    // Seed 0 cannot be reproduced: an error.
    let zero = run(&[
        "-o",
        bad_out.to_str().unwrap(),
        "--layer",
        "2",
        "--seed",
        "0",
    ]);
    assert_eq!(zero.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&zero.stderr).contains("seed 0"));
    assert!(!bad_out.exists());
}

/// `Random 96` at a hash of exactly 682: DDNet compares `(float)hash < 65536.0f * (1 / 96.0f)`,
/// 682.67, so the rule applies there (twmap-automapper 0.5.3 truncates the bound to 682 and
/// does not: the 3 of 48 seeded runs where it differs, docs/automap.md). With seed 2262, the
/// second rule's hash at (5, 6) is 682 (`hash_location`), and one other tile of the 8 x 8
/// layer passes.
#[test]
fn random_compares_as_ddnets_float() {
    use twcodec::map::Grid;
    use twcodec::schema::map::tile::Tile;
    use twcodec_tools::automap::hash_location;
    assert_eq!(hash_location(2262, 0, 1, 5, 6), 682);
    let rules = Rules::parse("[T]\nIndex 1\nIndex 2\nRandom 96\n", "t.rules").unwrap();
    let one = Tile {
        id: 1,
        ..Tile::default()
    };
    let mut grid = Grid::new(8, 8, vec![one; 64]).unwrap();
    rules.configs[0].apply(&mut grid, 2262);
    let twos: Vec<(usize, usize)> = (0..64)
        .filter(|i| grid.tiles()[*i].id == 2)
        .map(|i| (i % 8, i / 8))
        .collect();
    assert_eq!(twos.len(), 2, "{twos:?}");
    assert!(twos.contains(&(5, 6)), "{twos:?}");
}
