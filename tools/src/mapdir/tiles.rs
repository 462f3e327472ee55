//! Tile layers as text (docs/mapdir.md, "Tiles"): a header line, then one line per row and
//! one token per tile, so that painting a tile changes one line of a diff.
//!
//! A token is the tile's id, then its other fields in a fixed order, joined by `:`, trailing
//! zero fields left out; a tile of all zeros (air) is `.`:
//!
//! | kind | fields after the id |
//! |---|---|
//! | tiles, game, front | flags, skip, reserved |
//! | tele | number |
//! | speedup | force, max speed, reserved, angle (may be negative) |
//! | switch | number, flags, delay |
//! | tune | number |
//!
//! ```
//! use twcodec_tools::mapdir::tiles::{parse, write};
//! use twcodec::map::Grid;
//! use twcodec::schema::map::tile::Tile;
//!
//! let mut grid = Grid::filled(3, 2, Tile::default()).unwrap();
//! grid.get_mut(1, 0).unwrap().id = 1;
//! grid.get_mut(2, 1).unwrap().id = 17;
//! grid.get_mut(2, 1).unwrap().flags = 8;
//! let text = write(&grid, "game");
//! assert_eq!(text, "# 3x2 game\n. 1 .\n. . 17:8\n");
//! assert_eq!(parse::<Tile>(&text).unwrap(), grid);
//! # Ok::<(), twcodec::Error>(())
//! ```

use std::fmt::Write as _;

use twcodec_schema::map::tile::{Speedup, Switch, Tele, Tile, Tune};

use twcodec::map::Grid;
use twcodec::Error;

/// A tile type written as a token of numbers.
pub trait TileText: Copy + Default + PartialEq {
    /// The name and the range of each field, in token order (the id first).
    const FIELDS: &'static [(&'static str, i64, i64)];
    /// The id, then the other fields in token order.
    fn fields(&self) -> Vec<i64>;
    /// The tile of these fields (missing trailing fields are 0); `None` when a value does not
    /// fit its field or there are too many.
    fn from_fields(fields: &[i64]) -> Option<Self>;

    /// The tile a token stands for, or what is wrong with it: `"300" is not a tile id
    /// (0..=255)`.
    fn from_token(token: &str) -> Result<Self, String> {
        if token == "." {
            return Ok(Self::default());
        }
        let names = || {
            (Self::FIELDS.iter())
                .map(|(name, ..)| *name)
                .collect::<Vec<_>>()
                .join(":")
        };
        let parts: Vec<&str> = token.split(':').collect();
        if parts.len() > Self::FIELDS.len() {
            return Err(format!(
                "{token:?} has {} fields, a tile of this layer at most {} ({})",
                parts.len(),
                Self::FIELDS.len(),
                names()
            ));
        }
        let mut fields = Vec::with_capacity(parts.len());
        for (part, &(name, low, high)) in parts.iter().zip(Self::FIELDS) {
            let value = part
                .parse::<i64>()
                .ok()
                .filter(|v| (low..=high).contains(v));
            match value {
                Some(value) => fields.push(value),
                None if parts.len() == 1 => {
                    return Err(format!("{token:?} is not a tile {name} ({low}..={high})"))
                }
                None => {
                    return Err(format!(
                        "{token:?}: {part:?} is not a tile {name} ({low}..={high}; the \
                         fields are {})",
                        names()
                    ))
                }
            }
        }
        Self::from_fields(&fields).ok_or_else(|| format!("{token:?} is not a tile"))
    }
}

const BYTE: (i64, i64) = (0, 255);

/// The field at `i`, or 0.
fn at(fields: &[i64], i: usize) -> i64 {
    fields.get(i).copied().unwrap_or(0)
}

/// `fields` checked to have at most `n` values, each fitting a byte.
fn bytes<const N: usize>(fields: &[i64]) -> Option<[u8; N]> {
    if fields.len() > N {
        return None;
    }
    let mut out = [0u8; N];
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = u8::try_from(at(fields, i)).ok()?;
    }
    Some(out)
}

impl TileText for Tile {
    const FIELDS: &'static [(&'static str, i64, i64)] = &[
        ("id", BYTE.0, BYTE.1),
        ("flags", BYTE.0, BYTE.1),
        ("skip", BYTE.0, BYTE.1),
        ("reserved", BYTE.0, BYTE.1),
    ];
    fn fields(&self) -> Vec<i64> {
        [self.id, self.flags, self.skip, self.reserved]
            .map(i64::from)
            .to_vec()
    }
    fn from_fields(fields: &[i64]) -> Option<Tile> {
        let [id, flags, skip, reserved] = bytes::<4>(fields)?;
        Some(Tile {
            id,
            flags,
            skip,
            reserved,
        })
    }
}

impl TileText for Tele {
    const FIELDS: &'static [(&'static str, i64, i64)] =
        &[("id", BYTE.0, BYTE.1), ("number", BYTE.0, BYTE.1)];
    fn fields(&self) -> Vec<i64> {
        vec![i64::from(self.id), i64::from(self.number)]
    }
    fn from_fields(fields: &[i64]) -> Option<Tele> {
        let [id, number] = bytes::<2>(fields)?;
        Some(Tele { number, id })
    }
}

impl TileText for Speedup {
    const FIELDS: &'static [(&'static str, i64, i64)] = &[
        ("id", BYTE.0, BYTE.1),
        ("force", BYTE.0, BYTE.1),
        ("max speed", BYTE.0, BYTE.1),
        ("reserved", BYTE.0, BYTE.1),
        ("angle", i16::MIN as i64, i16::MAX as i64),
    ];
    fn fields(&self) -> Vec<i64> {
        vec![
            i64::from(self.id),
            i64::from(self.force),
            i64::from(self.max_speed),
            i64::from(self.reserved),
            i64::from(self.angle()),
        ]
    }
    fn from_fields(fields: &[i64]) -> Option<Speedup> {
        let [id, force, max_speed, reserved] = bytes::<4>(fields.get(..4.min(fields.len()))?)?;
        if fields.len() > 5 {
            return None;
        }
        let angle = i16::try_from(at(fields, 4)).ok()?;
        let mut tile = Speedup {
            force,
            max_speed,
            id,
            reserved,
            angle: [0; 2],
        };
        tile.set_angle(angle);
        Some(tile)
    }
}

impl TileText for Switch {
    const FIELDS: &'static [(&'static str, i64, i64)] = &[
        ("id", BYTE.0, BYTE.1),
        ("number", BYTE.0, BYTE.1),
        ("flags", BYTE.0, BYTE.1),
        ("delay", BYTE.0, BYTE.1),
    ];
    fn fields(&self) -> Vec<i64> {
        [self.id, self.number, self.flags, self.delay]
            .map(i64::from)
            .to_vec()
    }
    fn from_fields(fields: &[i64]) -> Option<Switch> {
        let [id, number, flags, delay] = bytes::<4>(fields)?;
        Some(Switch {
            number,
            id,
            flags,
            delay,
        })
    }
}

impl TileText for Tune {
    const FIELDS: &'static [(&'static str, i64, i64)] =
        &[("id", BYTE.0, BYTE.1), ("number", BYTE.0, BYTE.1)];
    fn fields(&self) -> Vec<i64> {
        vec![i64::from(self.id), i64::from(self.number)]
    }
    fn from_fields(fields: &[i64]) -> Option<Tune> {
        let [id, number] = bytes::<2>(fields)?;
        Some(Tune { number, id })
    }
}

/// The text of `grid`, with `kind` (a layer kind name) in the header.
pub fn write<T: TileText>(grid: &Grid<T>, kind: &str) -> String {
    let mut text = format!("# {}x{} {kind}\n", grid.width(), grid.height());
    for row in grid.rows() {
        for (i, tile) in row.iter().enumerate() {
            if i > 0 {
                text.push(' ');
            }
            if *tile == T::default() {
                text.push('.');
                continue;
            }
            let fields = tile.fields();
            let len = fields.iter().rposition(|&f| f != 0).map_or(0, |p| p + 1);
            for (j, field) in fields[..len].iter().enumerate() {
                if j > 0 {
                    text.push(':');
                }
                let _ = write!(text, "{field}");
            }
        }
        text.push('\n');
    }
    text
}

/// The grid `text` holds; errors name the line (1-based, as editors count: `:LINE:` after
/// the file's name), then the row and the column of the tile (from 0, as tile positions are
/// counted everywhere else) and what is wrong.
pub fn parse<T: TileText>(text: &str) -> Result<Grid<T>, Error> {
    let mut lines = text.lines().enumerate();
    let bad = |line: usize, what: String| Error::malformed(format!("{}: {what}", line + 1));
    let (width, height) = match lines.next() {
        Some((n, header)) => {
            let size = (header.strip_prefix("# "))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|size| size.split_once('x'))
                .and_then(|(w, h)| Some((w.parse::<usize>().ok()?, h.parse::<usize>().ok()?)));
            size.ok_or_else(|| {
                bad(
                    n,
                    format!("{header:?} is not a header `# WIDTHxHEIGHT kind`"),
                )
            })?
        }
        None => return Err(bad(0, "no header `# WIDTHxHEIGHT kind`".into())),
    };
    let limits = twcodec::Limits::default();
    let count = width
        .checked_mul(height)
        .filter(|&n| n <= limits.max_tiles())
        .filter(|&n| n.saturating_mul(std::mem::size_of::<T>()) <= limits.max_data_size())
        .ok_or_else(|| bad(0, format!("a layer of {width}x{height} tiles is too large (Limits::max_tiles, Limits::max_data_size)")))?;
    // Each tile takes two bytes of text at least: the header cannot ask for more.
    let mut tiles = Vec::with_capacity(count.min(text.len() / 2 + 1));
    let mut rows = 0;
    for (n, line) in lines {
        if rows == height {
            if line.trim().is_empty() {
                continue;
            }
            return Err(bad(n, format!("more than the {height} rows of the header")));
        }
        let before = tiles.len();
        for (column, token) in line.split_whitespace().enumerate() {
            if column >= width {
                let got = line.split_whitespace().count();
                return Err(bad(
                    n,
                    format!(
                        "row {rows} has {got} tiles, the layer is {width} wide (columns 0..={})",
                        width - 1
                    ),
                ));
            }
            let tile = T::from_token(token)
                .map_err(|why| bad(n, format!("row {rows}, column {column}: {why}")))?;
            tiles.push(tile);
        }
        let got = tiles.len() - before;
        if got != width {
            return Err(bad(
                n,
                format!("row {rows} has {got} tiles, the layer is {width} wide"),
            ));
        }
        rows += 1;
    }
    if rows != height {
        return Err(bad(
            text.lines().count(),
            format!("{rows} rows, the header says {height}"),
        ));
    }
    Grid::new(width, height, tiles)
        .ok_or_else(|| Error::malformed(format!("{width}x{height} tiles do not make a grid")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_errors() {
        let mut grid = Grid::filled(2, 1, Speedup::default()).unwrap();
        let tile = grid.get_mut(1, 0).unwrap();
        tile.id = 28;
        tile.force = 10;
        tile.set_angle(-90);
        let text = write(&grid, "speedup");
        assert_eq!(text, "# 2x1 speedup\n. 28:10:0:0:-90\n");
        assert_eq!(parse::<Speedup>(&text).unwrap(), grid);
        let error = |text: &str| parse::<Tile>(text).unwrap_err().to_string();
        assert_eq!(
            error("# 2x1 game\n1\n"),
            "2: row 0 has 1 tiles, the layer is 2 wide"
        );
        assert_eq!(
            error("# 2x1 game\n1 256\n"),
            "2: row 0, column 1: \"256\" is not a tile id (0..=255)"
        );
        assert_eq!(
            error("# 3x2 game\n. . .\n1 17:300 .\n"),
            "3: row 1, column 1: \"17:300\": \"300\" is not a tile flags (0..=255; the fields \
             are id:flags:skip:reserved)"
        );
        assert_eq!(
            error("# 2x1 game\n1 1:2:3:4:5\n"),
            "2: row 0, column 1: \"1:2:3:4:5\" has 5 fields, a tile of this layer at most 4 \
             (id:flags:skip:reserved)"
        );
        assert_eq!(
            error("# 2x1 game\n1 x\n"),
            "2: row 0, column 1: \"x\" is not a tile id (0..=255)"
        );
        assert_eq!(
            error("# 2x1 game\n1 1 1\n"),
            "2: row 0 has 3 tiles, the layer is 2 wide (columns 0..=1)"
        );
        let speedup = parse::<Speedup>("# 1x1 speedup\n28:1:0:0:40000\n").unwrap_err();
        assert!(speedup
            .to_string()
            .contains("is not a tile angle (-32768..=32767"));
        assert!(error("# 2x2 game\n1 1\n").contains("1 rows, the header says 2"));
        assert!(error("# 1x1 game\n1\n2\n").starts_with("3: more than the 1 rows"));
        assert!(error("game\n").starts_with("1: "));
        assert!(error("# 99999999x99999999 game\n").contains("too large"));
    }
}
