//! File names of the directory form (docs/mapdir.md, "Layout"): numbers that are sort keys
//! compared as numbers, the kind of each item, and its name made safe for a shell.

use std::cmp::Ordering;

use twcodec_schema::map::layer::{LayerBody, LayerItem, PhysicsKind};

/// How many digits the numbers of `count` files take: at least `min`, enough for the last one,
/// so that a plain `ls` lists them in order too (`pack` compares them as numbers either way).
pub(crate) fn width(count: usize, min: usize) -> usize {
    let last = count.saturating_sub(1);
    let digits = last.checked_ilog10().map_or(1, |d| d as usize + 1);
    digits.max(min)
}

/// `number` with `width` digits.
pub(crate) fn number(number: usize, width: usize) -> String {
    format!("{number:0width$}")
}

/// The longest name part of a file name, in bytes.
const NAME_BYTES: usize = 48;

/// An item's name as part of a file name that a shell takes without quoting: letters and
/// digits of any script, `-`, `_`, `.`, `+`, `,`, `=`, `@` and `%` are kept, everything else
/// (spaces, quotes, slashes, `$`, `*`, ...) becomes `_`, runs of `_` become one, and the
/// result is cut to at most 48 bytes (on a character boundary). `None` when nothing is left.
pub(crate) fn word(name: &str) -> Option<String> {
    let mut out = String::with_capacity(name.len().min(NAME_BYTES));
    for c in name.chars() {
        let c = match c {
            c if c.is_alphanumeric() => c,
            '-' | '_' | '.' | '+' | ',' | '=' | '@' | '%' => c,
            _ => '_',
        };
        if c == '_' && out.ends_with('_') {
            continue;
        }
        if out.len() + c.len_utf8() > NAME_BYTES {
            break;
        }
        out.push(c);
    }
    let trimmed = out.trim_matches(['_', '.']);
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// `parts` joined with `-`, the name (when there is one) last, then `.toml`.
pub(crate) fn toml_file(parts: &[&str], name: Option<&str>) -> String {
    let mut file = parts.join("-");
    if let Some(word) = name.and_then(word) {
        file.push('-');
        file.push_str(&word);
    }
    file.push_str(".toml");
    file
}

/// The kind of a layer as its file name says it: `tiles`, `game`, `front`, `tele`, `speedup`,
/// `switch`, `tune`, `quads`, `sounds`, `deprecated-sounds` or `unknown`.
pub(crate) fn layer_kind(layer: &LayerItem) -> &'static str {
    match &layer.body {
        LayerBody::Tilemap(tilemap) => match tilemap.flags.kind() {
            PhysicsKind::Tiles => "tiles",
            PhysicsKind::Game => "game",
            PhysicsKind::Tele => "tele",
            PhysicsKind::Speedup => "speedup",
            PhysicsKind::Front => "front",
            PhysicsKind::Switch => "switch",
            PhysicsKind::Tune => "tune",
            PhysicsKind::Several => "physics",
        },
        LayerBody::Quads(_) => "quads",
        LayerBody::Sounds(_) => "sounds",
        LayerBody::DeprecatedSounds(_) => "deprecated-sounds",
        _ => "unknown",
    }
}

/// An item kind's name as a file name part (`uuid index` becomes `uuid-index`).
pub(crate) fn kind_word(kind: &str) -> String {
    kind.replace(' ', "-")
}

/// Compares two file names as people sort them: runs of digits by their value (`2` before
/// `10`, `100 Bg` after `11 Game`), everything else byte by byte; names equal that way by
/// their bytes. The numbers in the directory's file names are sort keys, and `pack` orders
/// groups, layers, images, envelopes and sounds this way.
pub(crate) fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) if p.is_ascii_digit() && q.is_ascii_digit() => {
                let (dx, rx) = split_digits(x);
                let (dy, ry) = split_digits(y);
                // By value: without leading zeros, a longer run is larger.
                let (vx, vy) = (strip_zeros(dx), strip_zeros(dy));
                let order = vx.len().cmp(&vy.len()).then_with(|| vx.cmp(vy));
                if order != Ordering::Equal {
                    return order;
                }
                (x, y) = (rx, ry);
            }
            (Some(p), Some(q)) => {
                if p != q {
                    return p.cmp(q);
                }
                (x, y) = (&x[1..], &y[1..]);
            }
        }
    }
}

fn split_digits(bytes: &[u8]) -> (&[u8], &[u8]) {
    let end = bytes
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(bytes.len());
    bytes.split_at(end)
}

fn strip_zeros(digits: &[u8]) -> &[u8] {
    let start = digits
        .iter()
        .position(|&b| b != b'0')
        .unwrap_or(digits.len());
    &digits[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_sort_by_value() {
        let mut names = vec![
            "100-Bg",
            "11-Game",
            "2-Sky",
            "010-x",
            "10-a",
            "99999999999999999999999-big",
            "9-z",
            "group.toml",
            "image-10-a.toml",
            "image-9-b.toml",
            "image-new.toml",
        ];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            [
                "2-Sky",
                "9-z",
                "10-a",
                "010-x",
                "11-Game",
                "100-Bg",
                "99999999999999999999999-big",
                "group.toml",
                "image-9-b.toml",
                "image-10-a.toml",
                "image-new.toml",
            ]
        );
    }

    #[test]
    fn names_need_no_quoting() {
        assert_eq!(word("Clouds B").as_deref(), Some("Clouds_B"));
        assert_eq!(word("a  /b$'c\"").as_deref(), Some("a_b_c"));
        assert_eq!(word("  ").as_deref(), None);
        assert_eq!(word("..").as_deref(), None);
        assert_eq!(word("Höhle 洞窟").as_deref(), Some("Höhle_洞窟"));
        // 80 CJK characters (240 bytes) are cut to at most 48 bytes on a character boundary.
        let long = word(&"洞".repeat(80)).unwrap();
        assert!(
            long.len() <= 48 && long.chars().all(|c| c == '洞'),
            "{long}"
        );
        assert_eq!(toml_file(&["007", "quads"], Some("")), "007-quads.toml");
        assert_eq!(
            toml_file(&["image", "03"], Some("grass main")),
            "image-03-grass_main.toml"
        );
    }

    #[test]
    fn widths_fit_the_last_number() {
        assert_eq!(width(0, 2), 2);
        assert_eq!(width(100, 2), 2);
        assert_eq!(width(101, 2), 3);
        assert_eq!(width(10_001, 3), 5);
        assert_eq!(number(7, 3), "007");
        assert_eq!(number(12345, 3), "12345");
    }
}
