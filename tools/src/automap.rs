//! DDNet's automapper without the editor: its `.rules` files read, and a configuration applied
//! to a tile layer with a seed, tile for tile as the editor's `CAutomapper` does (docs: the
//! module docs here; issue 31 builds the command and the checks on it).
//!
//! - **Rule files.** Sections `[Name]` are configurations (numbered from 0 in file order, as the
//!   map's automapper item names them); `NewRun` starts a run, `Index ID [XFLIP] [YFLIP]
//!   [ROTATE]` a rule that writes that tile, `Pos X Y EMPTY|FULL|INDEX ...|NOTINDEX ...` a
//!   condition on the tile at that offset (a list of ids joined by `OR`, each with flags or
//!   `NONE` to test them), `Random N` (1 in N) or `Random N%`, `Modulo MX MY OX OY`,
//!   `NoDefaultRule`, `NoLayerCopy`. As in DDNet, a line starting with `#` or whitespace is
//!   ignored, and so is a line of another keyword; where DDNet reads memory it never set (an
//!   `Index` without a number, a `Pos` without a kind, an `OR` at the end, a rule line before
//!   any `Index`), this reader gives an error naming the file, the line and what was expected.
//! - **Applying.** Runs in order; each reads a copy of the layer (or, with `NoLayerCopy`, the
//!   layer as it is being written); tiles row by row; every rule that matches writes its tile,
//!   so the last one wins. Outside the layer a position reads as index -1: `FULL` holds there,
//!   `EMPTY` does not. `Random` draws from a hash of the seed, the run, the rule and the
//!   position, so the same seed gives the same tiles (seed 0 makes the editor draw at random).
//! - **Running.** [`automap`] does what `twcodec automap` and Python's `Map.automap` do: it
//!   finds the layer ([`twcodec::Map::find_layer`]: index or name) or every automatic layer,
//!   reads `IMAGE.rules` from a folder ([`AutomapOptions`]), takes the configuration and
//!   seed from the layer's automapper item unless given, checks every run, then runs each
//!   with [`automap_layer`], an outcome per layer ([`LayerOutcome`]).

use twcodec::map::Grid;
use twcodec::schema::map::tile::Tile;
use twcodec::Error;

/// The flag bits rules set and test (x flip, y flip, rotate).
const FLAG_BITS: u8 = 1 | 2 | 8;

/// A rules file: its configurations, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    /// The configurations (`[Name]` sections).
    pub configs: Vec<Config>,
}

/// A configuration: runs applied one after the other.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The name between the brackets.
    pub name: String,
    /// The runs, in order.
    pub runs: Vec<Run>,
}

/// A run: rules applied to every tile, reading a copy of the layer unless `copy` is false.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The rules, in file order (the last that matches a tile wins).
    pub rules: Vec<IndexRule>,
    /// Whether the run reads a copy of the layer as it was before the run (`NoLayerCopy` off).
    pub copy: bool,
}

/// A rule: the tile it writes and the conditions for it.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexRule {
    /// The tile index written (truncated to a byte, as DDNet stores it).
    pub id: i32,
    /// The flags written.
    pub flags: u8,
    /// Conditions on the tiles around; all must hold.
    pub positions: Vec<PosRule>,
    /// The chance to write where the conditions hold (1: always).
    pub probability: f32,
    /// `Modulo` conditions (mod x, mod y, offset x, offset y); any one must hold.
    pub modulo: Vec<[i32; 4]>,
    default_rule: bool,
}

/// A condition on the tile at an offset.
#[derive(Debug, Clone, PartialEq)]
pub struct PosRule {
    /// The offset from the tile.
    pub x: i32,
    /// The offset from the tile.
    pub y: i32,
    /// `NOTINDEX` (none of the list) rather than `INDEX` (one of it).
    pub not: bool,
    /// Ids, each with the flags it tests (`None`: any flags).
    pub list: Vec<(i32, Option<u8>)>,
}

/// The last run of the last configuration.
fn run(configs: &mut [Config]) -> Option<&mut Run> {
    configs.last_mut().and_then(|c| c.runs.last_mut())
}

/// The flag a word names.
fn flag(word: &str) -> Option<u8> {
    match word {
        "XFLIP" => Some(1),
        "YFLIP" => Some(2),
        "ROTATE" => Some(8),
        _ => None,
    }
}

impl Rules {
    /// Reads a rules file; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Rules, Error> {
        let mut configs: Vec<Config> = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.strip_prefix('\u{feff}').unwrap_or(line);
            let error = |what: &str| Error::malformed(format!("{file}:{}: {what}", number + 1));
            if line.is_empty() || line.starts_with(['#', ' ', '\t', '\r', '\x0b']) {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();

            if let Some(rest) = line.strip_prefix('[') {
                // DDNet takes the text after `[` without its last character.
                let mut name = rest.to_string();
                name.pop();
                configs.push(Config {
                    name,
                    runs: vec![Run {
                        rules: Vec::new(),
                        copy: true,
                    }],
                });
            } else if line.starts_with("NewRun") {
                let Some(config) = configs.last_mut() else {
                    return Err(error("NewRun before any [configuration]"));
                };
                config.runs.push(Run {
                    rules: Vec::new(),
                    copy: true,
                });
            } else if line.starts_with("Index") {
                let Some(run) = run(&mut configs) else {
                    return Err(error("Index before any [configuration]"));
                };
                let id = (words.get(1).and_then(|w| w.parse::<i32>().ok()))
                    .ok_or_else(|| error("expected a tile number after Index"))?;
                let flags = (words.iter().skip(2).take(3))
                    .filter_map(|w| flag(w))
                    .fold(0, |a, b| a | b);
                run.rules.push(IndexRule {
                    id,
                    flags,
                    positions: Vec::new(),
                    probability: 1.0,
                    modulo: Vec::new(),
                    default_rule: true,
                });
            } else if line.starts_with("Pos") {
                let rule = run(&mut configs).and_then(|r| r.rules.last_mut());
                let Some(rule) = rule else {
                    return Err(error("Pos before any Index"));
                };
                let number = |i: usize| words.get(i).and_then(|w| w.parse::<i32>().ok());
                let (Some(x), Some(y)) = (number(1), number(2)) else {
                    return Err(error("expected Pos X Y and a kind"));
                };
                let (not, list) = match words.get(3).copied() {
                    Some("EMPTY") => (false, vec![(0, None)]),
                    Some("FULL") => (true, vec![(0, None)]),
                    Some(kind @ ("INDEX" | "NOTINDEX")) => (
                        kind == "NOTINDEX",
                        pos_list(&words[4..]).map_err(|e| error(&e))?,
                    ),
                    Some(_) => continue,
                    None => {
                        return Err(error(
                            "expected EMPTY, FULL, INDEX or NOTINDEX after Pos X Y",
                        ))
                    }
                };
                rule.positions.push(PosRule { x, y, not, list });
            } else if let Some(rest) = line.strip_prefix("Random") {
                let rule = run(&mut configs).and_then(|r| r.rules.last_mut());
                let Some(rule) = rule else {
                    return Err(error("Random before any Index"));
                };
                let rest = rest.trim_start();
                let end = rest
                    .find(|c: char| {
                        !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))
                    })
                    .unwrap_or(rest.len());
                let value: f32 =
                    (rest[..end].parse()).map_err(|_| error("expected a number after Random"))?;
                rule.probability = match rest[end..].starts_with('%') {
                    true => value / 100.0,
                    false => 1.0 / value,
                };
            } else if line.starts_with("Modulo") {
                let rule = run(&mut configs).and_then(|r| r.rules.last_mut());
                let Some(rule) = rule else {
                    return Err(error("Modulo before any Index"));
                };
                let n = |i: usize| words.get(i).and_then(|w| w.parse::<i32>().ok());
                let (Some(mx), Some(my), Some(ox), Some(oy)) = (n(1), n(2), n(3), n(4)) else {
                    return Err(error("expected Modulo MX MY OX OY"));
                };
                let nonzero = |m: i32| if m == 0 { 1 } else { m };
                rule.modulo.push([nonzero(mx), nonzero(my), ox, oy]);
            } else if line.starts_with("NoDefaultRule") {
                let rule = run(&mut configs).and_then(|r| r.rules.last_mut());
                let Some(rule) = rule else {
                    return Err(error("NoDefaultRule before any Index"));
                };
                rule.default_rule = false;
            } else if line.starts_with("NoLayerCopy") {
                let Some(run) = run(&mut configs) else {
                    return Err(error("NoLayerCopy before any [configuration]"));
                };
                run.copy = false;
            }
        }
        // A rule without a condition on its own tile being empty applies to every tile that
        // is not (DDNet's default rule).
        for rule in configs
            .iter_mut()
            .flat_map(|c| c.runs.iter_mut())
            .flat_map(|r| r.rules.iter_mut())
        {
            let own = (rule.positions.iter()).find(|p| p.x == 0 && p.y == 0 && !p.not);
            let empty_allowed = own.is_some_and(|p| p.list.iter().any(|(id, _)| *id == 0));
            if !empty_allowed && rule.default_rule {
                rule.positions.push(PosRule {
                    x: 0,
                    y: 0,
                    not: true,
                    list: vec![(0, None)],
                });
            }
        }
        Ok(Rules { configs })
    }
}

/// The list of a `Pos X Y INDEX|NOTINDEX` line: ids joined by `OR`, each with up to three flag
/// words (or `NONE`) it tests.
fn pos_list(words: &[&str]) -> Result<Vec<(i32, Option<u8>)>, String> {
    let mut list = Vec::new();
    let mut i = 0;
    loop {
        let id = (words.get(i).and_then(|w| w.parse::<i32>().ok()))
            .ok_or_else(|| "expected a tile number in the list".to_string())?;
        i += 1;
        let mut tested: Option<u8> = None;
        let mut flags_taken = 0;
        loop {
            match words.get(i).copied() {
                Some("OR") => {
                    i += 1;
                    list.push((id, tested));
                    break;
                }
                None => {
                    list.push((id, tested));
                    return Ok(list);
                }
                Some(word) if flags_taken < 3 => {
                    flags_taken += 1;
                    i += 1;
                    match (word, flag(word)) {
                        ("NONE", _) => tested = Some(tested.unwrap_or(0)),
                        (_, Some(bit)) => tested = Some(tested.unwrap_or(0) | bit),
                        // An unknown word ends the list (DDNet reads no further).
                        _ => {
                            list.push((id, tested));
                            return Ok(list);
                        }
                    }
                }
                Some(_) => {
                    list.push((id, tested));
                    return Ok(list);
                }
            }
        }
    }
}

/// DDNet's integer hash of the automapper (a "triple32inc" mix).
pub fn hash_u32(n: u32) -> u32 {
    let mut n = n.wrapping_add(1);
    n ^= n >> 17;
    n = n.wrapping_mul(0xed5a_d4bb);
    n ^= n >> 11;
    n = n.wrapping_mul(0xac4c_1b51);
    n ^= n >> 15;
    n = n.wrapping_mul(0x3184_8bab);
    n ^= n >> 14;
    n
}

/// The random number (0..65536) of a rule at a position: the seed, the run, the rule (within
/// its run) and the position mixed.
pub fn hash_location(seed: u32, run: u32, rule: u32, x: i32, y: i32) -> u32 {
    let mut h: u32 = 1;
    for v in [seed, run, rule, x as u32, y as u32] {
        h = h.wrapping_mul(31).wrapping_add(hash_u32(v));
    }
    hash_u32(h.wrapping_mul(31)) % 65536
}

/// The most steps of work [`automap_layer`] takes (a step: one condition on one tile), as
/// the renderer's budget: a rules file that needs more for a layer is an error, before any
/// work.
pub const MAX_WORK: u64 = 1 << 32;

impl Config {
    /// The steps of work applying the configuration to `tiles` tiles takes.
    pub fn work(&self, tiles: usize) -> u64 {
        let per_tile: u64 = (self.runs.iter())
            .flat_map(|run| &run.rules)
            .map(|rule| {
                1 + rule
                    .positions
                    .iter()
                    .map(|p| p.list.len() as u64 + 1)
                    .sum::<u64>()
            })
            .sum();
        per_tile.saturating_mul(tiles as u64)
    }

    /// Applies the configuration to `grid` with `seed` (not 0: DDNet draws a random seed for
    /// 0, which cannot be reproduced).
    pub fn apply(&self, grid: &mut Grid<Tile>, seed: u32) {
        let (w, h) = (grid.width() as i32, grid.height() as i32);
        for (r, run) in self.runs.iter().enumerate() {
            let copy = run.copy.then(|| grid.clone());
            for y in 0..h {
                for x in 0..w {
                    for (i, rule) in run.rules.iter().enumerate() {
                        let read = copy.as_ref().unwrap_or(grid);
                        let at = |dx: i32, dy: i32| -> (i32, u8) {
                            // Offsets from a rules file may be any i32: no overflow.
                            let (px, py) =
                                (i64::from(x) + i64::from(dx), i64::from(y) + i64::from(dy));
                            if px < 0 || py < 0 || px >= i64::from(w) || py >= i64::from(h) {
                                return (-1, 0);
                            }
                            let tile = read
                                .get(px as usize, py as usize)
                                .copied()
                                .unwrap_or_default();
                            (i32::from(tile.id), tile.flags & FLAG_BITS)
                        };
                        let holds = rule.positions.iter().all(|p| {
                            let (id, flags) = at(p.x, p.y);
                            let found = (p.list.iter())
                                .any(|&(want, test)| want == id && test.is_none_or(|f| f == flags));
                            found != p.not
                        });
                        let modulo = rule.modulo.is_empty()
                            || rule.modulo.iter().any(|&[mx, my, ox, oy]| {
                                x.wrapping_add(ox).wrapping_rem(mx) == 0
                                    && y.wrapping_add(oy).wrapping_rem(my) == 0
                            });
                        let random = rule.probability >= 1.0
                            || (hash_location(seed, r as u32, i as u32, x, y) as f32)
                                < 65536.0f32 * rule.probability;
                        if holds && modulo && random {
                            if let Some(tile) = grid.get_mut(x as usize, y as usize) {
                                tile.id = rule.id as u8;
                                tile.flags = rule.flags;
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_gives_ddnets_numbers() {
        assert_eq!(hash_u32(0), 69_681_622);
        assert_eq!(hash_u32(1), 4_057_983_209);
        assert_eq!(hash_u32(u32::MAX), 0);
        assert_eq!(hash_location(1, 0, 0, 0, 0), 32138);
        assert_eq!(hash_location(1, 0, 0, 1, 0), 2528);
        assert_eq!(hash_location(1, 0, 0, 0, 1), 63082);
        assert_eq!(hash_location(12345, 1, 2, 3, 4), 56066);
        assert_eq!(hash_location(1_000_000_000, 0, 5, 100, 200), 42012);
        assert_eq!(hash_location(u32::MAX, 0, 0, 0, 0), 9927);
        assert_eq!(hash_location(42, 3, 17, 255, 511), 65160);
    }

    #[test]
    fn rules_read_as_ddnet_reads_them_and_bad_lines_are_errors() {
        let text = "#comment\n[Grass]\nIndex 1\nPos 0 -1 EMPTY\n  Index 99\nIndex 2 XFLIP ROTATE\n\
                    Pos 0 0 INDEX 33 OR 33 XFLIP YFLIP OR 34 NONE\nRandom 3\nNewRun\nIndex 5\n\
                    Random 50%\n[Other]\n";
        let rules = Rules::parse(text, "grass.rules").unwrap();
        assert_eq!(rules.configs.len(), 2);
        let grass = &rules.configs[0];
        assert_eq!(grass.name, "Grass");
        assert_eq!(grass.runs.len(), 2);
        let first = &grass.runs[0].rules;
        assert_eq!(first.len(), 2, "the indented Index 99 is ignored");
        assert_eq!((first[1].id, first[1].flags), (2, 9));
        assert_eq!(
            first[1].positions[0].list,
            [(33, None), (33, Some(3)), (34, Some(0))]
        );
        assert!((first[1].probability - 1.0 / 3.0).abs() < 1e-6);
        // The default rule: Index 1 applies to tiles that are not air.
        assert_eq!(first[0].positions.len(), 2);
        assert!(first[0].positions[1].not);
        assert_eq!(grass.runs[1].rules[0].probability, 0.5);
        for (bad, message) in [
            (
                "[A]\nIndex\n",
                "grass.rules:2: expected a tile number after Index",
            ),
            (
                "[A]\nIndex 1\nPos 0 0\n",
                "grass.rules:3: expected EMPTY, FULL, INDEX or NOTINDEX after Pos X Y",
            ),
            (
                "[A]\nIndex 1\nPos 0 0 INDEX 3 OR\n",
                "grass.rules:3: expected a tile number in the list",
            ),
            ("[A]\nPos 0 0 FULL\n", "grass.rules:2: Pos before any Index"),
            (
                "Index 1\n",
                "grass.rules:1: Index before any [configuration]",
            ),
        ] {
            let error = Rules::parse(bad, "grass.rules").unwrap_err();
            assert_eq!(error.message(), message);
        }
    }

    #[test]
    fn offsets_and_numbers_at_the_ends_of_their_range_do_not_overflow() {
        let text =
            "[A]\nIndex 300\nPos 2147483647 -2147483648 FULL\nModulo -1 -2147483648 2147483647 5\n\
                    Random 1e5\n";
        let rules = Rules::parse(text, "a.rules").unwrap();
        let mut grid = Grid::filled(
            3,
            2,
            Tile {
                id: 1,
                ..Tile::default()
            },
        )
        .unwrap();
        rules.configs[0].apply(&mut grid, u32::MAX);
        assert!((rules.configs[0].runs[0].rules[0].probability - 1e-5).abs() < 1e-9);
    }

    #[test]
    fn a_configuration_writes_the_last_matching_rule() {
        // Solid tiles with air above become 2 (a top edge), the others 1.
        let rules = Rules::parse("[Edges]\nIndex 1\nIndex 2\nPos 0 -1 EMPTY\n", "e.rules").unwrap();
        let mut grid = Grid::filled(3, 3, Tile::default()).unwrap();
        for x in 0..3 {
            for y in 1..3 {
                grid.get_mut(x, y).unwrap().id = 7;
            }
        }
        rules.configs[0].apply(&mut grid, 1);
        let ids: Vec<u8> = grid.tiles().iter().map(|t| t.id).collect();
        assert_eq!(ids, [0, 0, 0, 2, 2, 2, 1, 1, 1]);
    }
}

/// What [`automap_layer`] did to a layer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LayerRun {
    /// The layer's index.
    pub layer: usize,
    /// The configuration's name.
    pub config: String,
    /// The seed used.
    pub seed: u32,
    /// How many tiles changed.
    pub changed: usize,
}

/// The error unless `config` with `seed` can run on `layer` of `map`: a plain tiles layer
/// whose tiles loaded, a seed from 1, work within [`MAX_WORK`].
fn check_run(
    map: &twcodec::Map,
    layer: twcodec::map::ItemRef<twcodec::map::Layer>,
    config: &Config,
    seed: u32,
) -> Result<(), Error> {
    use twcodec::map::LayerContent;
    if seed == 0 {
        return Err(Error::invalid_edit(
            "seed 0 makes DDNet's editor draw a random seed; give a seed from 1",
        ));
    }
    let index = layer.index();
    let Some(target) = map.get(layer) else {
        return Err(Error::invalid_edit(format!("no layer #{index}")));
    };
    let LayerContent::Tiles(tiles) = target.content() else {
        return Err(Error::invalid_edit(format!(
            "layer #{index} is a {} layer; automappers run on tiles layers",
            target.kind_name()
        )));
    };
    let Some(stored) = tiles.grid() else {
        return Err(Error::invalid_edit(format!(
            "layer #{index}'s tiles did not load"
        )));
    };
    let work = config.work(stored.tiles().len());
    if work > MAX_WORK {
        return Err(Error::limit(format!(
            "configuration {:?} on layer #{index} takes {work} steps of work, more than {MAX_WORK}",
            config.name
        )));
    }
    Ok(())
}

/// Runs `config` with `seed` on tiles layer `layer` of `map` (a plain tiles layer whose tiles
/// loaded), as the editor's "Automap" button does; how many tiles changed. An error for
/// another kind of layer or seed 0 (the editor draws a random seed for 0), changing nothing.
pub fn automap_layer(
    map: &mut twcodec::Map,
    layer: twcodec::map::ItemRef<twcodec::map::Layer>,
    config: &Config,
    seed: u32,
) -> Result<LayerRun, Error> {
    use twcodec::map::LayerContent;
    check_run(map, layer, config, seed)?;
    let index = layer.index();
    let Some(LayerContent::Tiles(tiles)) = map.layer_mut(layer).map(|l| l.content_mut()) else {
        return Err(Error::invalid_edit(format!("no tiles layer #{index}")));
    };
    let Some(stored) = tiles.grid() else {
        return Err(Error::invalid_edit(format!(
            "layer #{index}'s tiles did not load"
        )));
    };
    let mut grid = stored.clone();
    config.apply(&mut grid, seed);
    let changed = (stored.tiles().iter().zip(grid.tiles()))
        .filter(|(a, b)| a.id != b.id || (a.flags & FLAG_BITS) != (b.flags & FLAG_BITS))
        .count();
    if changed > 0 {
        if let Some(tiles_mut) = tiles.grid_mut() {
            tiles_mut.tiles_mut().copy_from_slice(grid.tiles());
        }
    }
    Ok(LayerRun {
        layer: index,
        config: config.name.clone(),
        seed,
        changed,
    })
}

/// What [`automap`] runs: the folder of rules files, and the layer, configuration and seed
/// (from the layer's automapper item unless given).
///
/// ```
/// use twcodec_tools::automap::AutomapOptions;
/// let options = AutomapOptions::new("data/editor/automap").layer("Ground").seed(7);
/// assert_eq!(options.layer.as_deref(), Some("Ground"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AutomapOptions {
    /// The folder of rules files: a layer drawn with image `NAME` runs `NAME.rules` there
    /// (DDNet's data/editor/automap).
    pub rules_dir: std::path::PathBuf,
    /// The layer to run ([`twcodec::Map::find_layer`]: its index or name); `None` runs every
    /// tiles layer whose automapper item is automatic, with a configuration and a seed.
    pub layer: Option<String>,
    /// The configuration for [`AutomapOptions::layer`]: its name, or its number in the rules
    /// file; `None` takes the layer's automapper item's.
    pub config: Option<String>,
    /// The seed for [`AutomapOptions::layer`]; `None` takes the layer's automapper item's.
    pub seed: Option<u32>,
}

impl AutomapOptions {
    /// Every automatic layer, with the rules in `rules_dir`.
    pub fn new(rules_dir: impl Into<std::path::PathBuf>) -> AutomapOptions {
        AutomapOptions {
            rules_dir: rules_dir.into(),
            ..AutomapOptions::default()
        }
    }

    /// Runs this layer only (its index or name).
    pub fn layer(mut self, spec: impl Into<String>) -> AutomapOptions {
        self.layer = Some(spec.into());
        self
    }

    /// With this configuration (its name or number).
    pub fn config(mut self, config: impl Into<String>) -> AutomapOptions {
        self.config = Some(config.into());
        self
    }

    /// With this seed.
    pub fn seed(mut self, seed: u32) -> AutomapOptions {
        self.seed = Some(seed);
        self
    }
}

/// What [`automap`] did to one layer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LayerOutcome {
    /// The layer's index.
    pub layer: usize,
    /// Its name.
    pub name: String,
    /// Ran, or skipped.
    pub outcome: Outcome,
}

/// Whether a layer ran.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// The configuration ran.
    Ran(LayerRun),
    /// Skipped, running every automatic layer: its image has no rules file (this path).
    NoRules(std::path::PathBuf),
}

impl LayerOutcome {
    /// The outcome as one line, as the command line prints it.
    pub fn fact(&self) -> String {
        let LayerOutcome {
            layer,
            name,
            outcome,
        } = self;
        match outcome {
            Outcome::Ran(run) => format!(
                "layer #{layer} {name:?}: {:?} with seed {}: {} tiles changed",
                run.config, run.seed, run.changed
            ),
            Outcome::NoRules(path) => {
                format!(
                    "layer #{layer} {name:?}: no {} (left as it is)",
                    path.display()
                )
            }
        }
    }
}

/// What [`automap`] will do to a layer, once every layer is checked.
enum Planned {
    /// Run this configuration with this seed.
    Run(Config, u32),
    /// Skip it: no rules file at this path.
    Skip(std::path::PathBuf),
}

/// An error of kind [`twcodec::ErrorKind::InvalidOptions`].
fn bad_options(message: String) -> Error {
    Error::new(twcodec::ErrorKind::InvalidOptions, message)
}

/// Runs DDNet's automapper on `map` as `options` say, as the editor does: on one layer (with
/// the configuration and seed its automapper item holds unless the options give them), or
/// on every tiles layer whose automapper item is automatic with a configuration and a seed
/// (what the editor redoes on every edit). A layer's rules are `rules_dir/IMAGE.rules`, IMAGE
/// its image's name, read as any input file is (a regular file within
/// [`twcodec::Limits::max_file_size`]).
///
/// One outcome per layer, in layer order; running every automatic layer, a layer whose image
/// has no rules file is skipped ([`Outcome::NoRules`]). Every rules file is read and every
/// run checked before any runs, so an error changes nothing: a layer the map does not have,
/// a layer without an image, a configuration the rules file does not have (these three of
/// kind [`twcodec::ErrorKind::InvalidOptions`]), a rules file that cannot be read or has a
/// bad line, seed 0, another kind of layer, or a run beyond [`MAX_WORK`].
pub fn automap(
    map: &mut twcodec::Map,
    options: &AutomapOptions,
) -> Result<Vec<LayerOutcome>, Error> {
    use twcodec::map::{Layer, LayerContent};
    // The layers to run: (layer, config, seed) each.
    let mut runs = Vec::new();
    match &options.layer {
        Some(spec) => runs.push((map.find_layer(spec)?, options.config.clone(), options.seed)),
        None => {
            for (r, layer) in map.refs::<Layer>().zip(map.layers()) {
                let Some(item) = map.automapper_of(r).map(|a| a.item()) else {
                    continue;
                };
                let tiles = matches!(layer.content(), LayerContent::Tiles(_));
                if tiles && item.flags.automatic() && item.seed != 0 && item.config >= 0 {
                    runs.push((r, None, None));
                }
            }
        }
    }
    // Read and checked: each layer with what to do to it.
    let mut files: Vec<(std::path::PathBuf, Rules)> = Vec::new();
    let mut plan: Vec<(twcodec::map::ItemRef<Layer>, Planned)> = Vec::new();
    for (r, config, seed) in runs {
        let index = r.index();
        let item = map.automapper_of(r).map(|a| a.item().clone());
        let layer = map
            .get(r)
            .ok_or_else(|| bad_options(format!("no layer #{index}")))?;
        let image = layer.image(map).get().and_then(|i| map.get(i));
        let Some(name) = image.and_then(|i| i.name(map)) else {
            return Err(bad_options(format!(
                "layer #{index} has no image, so no rules file"
            )));
        };
        let path = options.rules_dir.join(format!("{name}.rules"));
        // Running every automatic layer: a layer whose image has no rules is left alone.
        if options.layer.is_none() && !path.exists() {
            plan.push((r, Planned::Skip(path)));
            continue;
        }
        let rules = match files.iter().position(|(p, _)| *p == path) {
            Some(i) => &files[i].1,
            None => {
                // A regular file, read with the bound of any input file; DDNet drops lines
                // that are not UTF-8, and a lossy one starts with no keyword, so it is
                // ignored alike.
                let max = twcodec::Limits::default().max_file_size();
                let bytes = twcodec::input::read_file(&path, max, "Limits::max_file_size")?;
                let text = String::from_utf8_lossy(&bytes);
                let rules = Rules::parse(&text, &path.display().to_string())?;
                files.push((path.clone(), rules));
                &files[files.len() - 1].1
            }
        };
        let chosen = match (&config, &item) {
            (Some(spec), _) => match spec.parse::<usize>() {
                Ok(n) => rules.configs.get(n),
                Err(_) => rules.configs.iter().find(|c| c.name == *spec),
            },
            (None, Some(item)) => usize::try_from(item.config)
                .ok()
                .and_then(|n| rules.configs.get(n)),
            (None, None) => None,
        };
        let Some(chosen) = chosen else {
            let names: Vec<&str> = rules.configs.iter().map(|c| c.name.as_str()).collect();
            return Err(bad_options(format!(
                "layer #{index}: no such configuration in {} (it has {names:?})",
                path.display()
            )));
        };
        // The item's int, as DDNet hands it to the automapper's unsigned hash.
        let seed = seed
            .or_else(|| item.as_ref().map(|i| i.seed as u32))
            .unwrap_or(0);
        check_run(map, r, chosen, seed)?;
        plan.push((r, Planned::Run(chosen.clone(), seed)));
    }
    let mut outcomes = Vec::with_capacity(plan.len());
    for (r, run) in plan {
        let name = map.get(r).map(|l| l.name()).unwrap_or_default();
        let outcome = match run {
            Planned::Run(config, seed) => Outcome::Ran(automap_layer(map, r, &config, seed)?),
            Planned::Skip(path) => Outcome::NoRules(path),
        };
        outcomes.push(LayerOutcome {
            layer: r.index(),
            name,
            outcome,
        });
    }
    Ok(outcomes)
}
