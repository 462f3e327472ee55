//! A project's rules for its maps, from a TOML file (`twcodec check --rules FILE`): size
//! limits, tiles a map must have or must not have, the settings it may carry, the info fields
//! it must fill in, what its images and sounds may be, and the severity of each rule, the
//! gameplay checks' included. docs/checks.md has a whole example; every key is optional:
//!
//! ```toml
//! ddnet = true                      # also run the gameplay checks (check --ddnet)
//!
//! [limits]
//! max-file-size = 2_000_000         # bytes
//! max-width = 1000                  # the game layer, in tiles
//! max-height = 1000
//!
//! [tiles]
//! required = ["spawn", "start", "finish"]
//! forbidden = ["game:entities off", "tele:29"]
//!
//! [settings]
//! allowed = ["sv_*", "tune", "tune_zone"]
//!
//! [info]
//! required = ["author", "license"]
//!
//! [images]
//! external = false
//!
//! [severity]
//! "speedup-force-0" = "off"
//! "info.required" = "warning"
//! ```
//!
//! A tile is `[LAYER:]TILE`: `LAYER` one of `game`, `front`, `tele`, `speedup`, `switch`,
//! `tune` (without it, the game and front layers), `TILE` an id (0 to 255) or a name as
//! `twcodec` names tiles (`freeze`, `start`, `spawn`, `tele-in`, ...). A setting pattern
//! matches the command (the setting's first word), `*` any run of characters.

use std::collections::BTreeMap;

use serde::Deserialize;
use twcodec::map::{tile_name, DataItem, LayerContent};
use twcodec::schema::map::layer::PhysicsKind;
use twcodec::{Error, Map};

use super::{Finding, LayerPlace, Severity};

/// Every rule's id, as `[severity]` names it.
pub const RULES: &[&str] = &[
    "limits.max-file-size",
    "limits.max-width",
    "limits.max-height",
    "limits.max-layers",
    "limits.max-groups",
    "limits.max-images",
    "limits.max-envelopes",
    "limits.max-sounds",
    "tiles.required",
    "tiles.forbidden",
    "settings.allowed",
    "settings.forbidden",
    "info.required",
    "info.licenses",
    "images.external",
    "images.max-width",
    "images.max-height",
    "images.max-data-size",
    "sounds.allowed",
    "sounds.max-data-size",
];

/// A rules file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct File {
    #[serde(default)]
    ddnet: bool,
    #[serde(default)]
    limits: Limits,
    #[serde(default)]
    tiles: Tiles,
    #[serde(default)]
    settings: Settings,
    #[serde(default)]
    info: InfoRules,
    #[serde(default)]
    images: Images,
    #[serde(default)]
    sounds: Sounds,
    #[serde(default)]
    severity: BTreeMap<String, Level>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Limits {
    max_file_size: Option<u64>,
    max_width: Option<u64>,
    max_height: Option<u64>,
    max_layers: Option<u64>,
    max_groups: Option<u64>,
    max_images: Option<u64>,
    max_envelopes: Option<u64>,
    max_sounds: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Tiles {
    #[serde(default)]
    required: Vec<String>,
    #[serde(default)]
    forbidden: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Settings {
    allowed: Option<Vec<String>>,
    #[serde(default)]
    forbidden: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct InfoRules {
    #[serde(default)]
    required: Vec<InfoField>,
    licenses: Option<Vec<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum InfoField {
    Author,
    Version,
    Credits,
    License,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Images {
    external: Option<bool>,
    max_width: Option<u64>,
    max_height: Option<u64>,
    max_data_size: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Sounds {
    allowed: Option<bool>,
    max_data_size: Option<u64>,
}

/// A severity as a rules file writes it: `off` turns a check off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Level {
    Off,
    Note,
    Warning,
    Error,
}

/// A tile a rule names: the layer kinds it may be in and its ids.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TileSpec {
    text: String,
    kinds: Vec<PhysicsKind>,
    ids: Vec<u8>,
}

const KINDS: [(&str, PhysicsKind); 6] = [
    ("game", PhysicsKind::Game),
    ("front", PhysicsKind::Front),
    ("tele", PhysicsKind::Tele),
    ("speedup", PhysicsKind::Speedup),
    ("switch", PhysicsKind::Switch),
    ("tune", PhysicsKind::Tune),
];

impl TileSpec {
    fn parse(text: &str, file: &str, key: &str) -> Result<TileSpec, Error> {
        let (kinds, tile) = match text.split_once(':') {
            Some((layer, tile)) => {
                let Some((_, kind)) = KINDS.iter().find(|(name, _)| *name == layer.trim()) else {
                    return Err(Error::invalid_edit(format!(
                        "{file}: {key}: {text:?}: no layer kind {layer:?} (one of game, front, \
                         tele, speedup, switch, tune)"
                    )));
                };
                (vec![*kind], tile.trim())
            }
            None => (vec![PhysicsKind::Game, PhysicsKind::Front], text.trim()),
        };
        let ids: Vec<u8> = match tile.parse::<u8>() {
            Ok(id) => vec![id],
            Err(_) => (1..=255u8)
                .filter(|&id| kinds.iter().any(|&k| tile_name(k, id) == Some(tile)))
                .collect(),
        };
        if ids.is_empty() {
            let names: Vec<&str> = (kinds.iter())
                .flat_map(|&k| (1..=255u8).filter_map(move |id| tile_name(k, id)))
                .collect();
            let hint = crate::nearest(tile, &names)
                .map(|n| format!("; did you mean {n:?}?"))
                .unwrap_or_default();
            return Err(Error::invalid_edit(format!(
                "{file}: {key}: {text:?}: no tile of that name or id (0 to 255){hint}"
            )));
        }
        Ok(TileSpec {
            text: text.to_string(),
            kinds,
            ids,
        })
    }
}

/// A rules file, read and checked: [`RuleSet::check`] applies it to a map.
#[derive(Debug)]
pub struct RuleSet {
    file: File,
    required: Vec<TileSpec>,
    forbidden: Vec<TileSpec>,
    allowed: Option<Vec<glob::Pattern>>,
    forbidden_settings: Vec<glob::Pattern>,
}

impl RuleSet {
    /// Reads a rules file's text; `file` names it in errors. An unknown key, a wrong type, an
    /// unknown tile, layer, severity or check id is an error naming the file and the place.
    pub fn parse(text: &str, file: &str) -> Result<RuleSet, Error> {
        let parsed: File =
            toml::from_str(text).map_err(|e| Error::invalid_edit(format!("{file}: {e}")))?;
        let specs = |list: &[String], key: &str| -> Result<Vec<TileSpec>, Error> {
            list.iter().map(|t| TileSpec::parse(t, file, key)).collect()
        };
        let required = specs(&parsed.tiles.required, "tiles.required")?;
        let forbidden = specs(&parsed.tiles.forbidden, "tiles.forbidden")?;
        let patterns = |list: &[String], key: &str| -> Result<Vec<glob::Pattern>, Error> {
            (list.iter())
                .map(|p| {
                    glob::Pattern::new(p)
                        .map_err(|e| Error::invalid_edit(format!("{file}: {key}: {p:?}: {e}")))
                })
                .collect()
        };
        let allowed = match &parsed.settings.allowed {
            Some(list) => Some(patterns(list, "settings.allowed")?),
            None => None,
        };
        let forbidden_settings = patterns(&parsed.settings.forbidden, "settings.forbidden")?;
        for id in parsed.severity.keys() {
            let known = RULES.contains(&id.as_str())
                || super::ddnet::CHECKS.contains(&id.as_str())
                || id == "load";
            if !known {
                let all: Vec<&str> = (RULES.iter().chain(super::ddnet::CHECKS))
                    .copied()
                    .chain(["load"])
                    .collect();
                let hint = crate::nearest(id, &all)
                    .map(|n| format!("; did you mean {n:?}?"))
                    .unwrap_or_default();
                return Err(Error::invalid_edit(format!(
                    "{file}: [severity]: no check {id:?}{hint}"
                )));
            }
        }
        Ok(RuleSet {
            file: parsed,
            required,
            forbidden,
            allowed,
            forbidden_settings,
        })
    }

    /// Whether the file asks for the gameplay checks too (`ddnet = true`).
    pub fn ddnet(&self) -> bool {
        self.file.ddnet
    }

    /// The findings of `findings` with the severities the file sets: a finding of a check set
    /// to `off` is dropped.
    pub fn apply_severity(&self, findings: Vec<Finding>) -> Vec<Finding> {
        (findings.into_iter())
            .filter_map(|mut f| {
                match self.file.severity.get(&f.check) {
                    Some(Level::Off) => return None,
                    Some(Level::Note) => f.severity = Severity::Note,
                    Some(Level::Warning) => f.severity = Severity::Warning,
                    Some(Level::Error) => f.severity = Severity::Error,
                    None => {}
                }
                Some(f)
            })
            .collect()
    }

    /// The findings of the file's rules on `map` (of `file_size` bytes, when known), each of
    /// severity error unless `[severity]` says otherwise (applied here).
    pub fn check(&self, map: &Map, file_size: Option<u64>) -> Vec<Finding> {
        let mut found = Vec::new();
        let mut push = |check: &str, message: String| {
            found.push(Finding::new(check, Severity::Error, message));
        };
        let limits = &self.file.limits;
        let over = |limit: Option<u64>, value: u64| limit.filter(|&l| value > l);
        if let (Some(size), Some(max)) = (file_size, limits.max_file_size) {
            if size > max {
                push(
                    "limits.max-file-size",
                    format!("the file is {size} bytes, more than the {max} allowed"),
                );
            }
        }
        if let Some((_, game)) = map.game_layer() {
            let item = game.item();
            let (w, h) = (item.width.max(0) as u64, item.height.max(0) as u64);
            if let Some(max) = over(limits.max_width, w) {
                push(
                    "limits.max-width",
                    format!("the game layer is {w} tiles wide, more than the {max} allowed"),
                );
            }
            if let Some(max) = over(limits.max_height, h) {
                push(
                    "limits.max-height",
                    format!("the game layer is {h} tiles high, more than the {max} allowed"),
                );
            }
        }
        for (check, what, count, limit) in [
            (
                "limits.max-layers",
                "layers",
                map.layers().len(),
                limits.max_layers,
            ),
            (
                "limits.max-groups",
                "groups",
                map.groups().len(),
                limits.max_groups,
            ),
            (
                "limits.max-images",
                "images",
                map.images().len(),
                limits.max_images,
            ),
            (
                "limits.max-envelopes",
                "envelopes",
                map.envelopes().len(),
                limits.max_envelopes,
            ),
            (
                "limits.max-sounds",
                "sounds",
                map.sounds().len(),
                limits.max_sounds,
            ),
        ] {
            if let Some(max) = over(limit, count as u64) {
                push(
                    check,
                    format!("{count} {what}, more than the {max} allowed"),
                );
            }
        }
        self.tiles(map, &mut found);
        self.settings(map, &mut found);
        self.info(map, &mut found);
        self.images(map, &mut found);
        self.sounds(map, &mut found);
        self.apply_severity(found)
    }

    fn tiles(&self, map: &Map, found: &mut Vec<Finding>) {
        // Each physics layer DDNet plays with (the last of each kind in the groups): its
        // kind, place and tile ids.
        let mut layers: Vec<(PhysicsKind, LayerPlace, usize, Vec<u8>)> = Vec::new();
        fn ids<T: twcodec::schema::map::tile::TileKind>(
            tiles: &twcodec::map::TilesLayer<T>,
            id: impl Fn(&T) -> u8,
        ) -> (usize, Vec<u8>) {
            match tiles.grid() {
                Some(g) => (g.width().max(1), g.tiles().iter().map(id).collect()),
                None => (1, Vec::new()),
            }
        }
        for (kind, r) in super::played_layers(map) {
            let (Some(layer), Some(place)) = (map.get(r), LayerPlace::of(map, r)) else {
                continue;
            };
            let (width, ids) = match layer.content() {
                LayerContent::Game(t) | LayerContent::Front(t) => ids(t, |t| t.id),
                LayerContent::Tele(t) => ids(t, |t| t.id),
                LayerContent::Speedup(t) => ids(t, |t| t.id),
                LayerContent::Switch(t) => ids(t, |t| t.id),
                LayerContent::Tune(t) => ids(t, |t| t.id),
                _ => continue,
            };
            layers.push((kind, place, width, ids));
        }
        for spec in &self.required {
            let present = (layers.iter())
                .filter(|(kind, ..)| spec.kinds.contains(kind))
                .any(|(.., ids)| ids.iter().any(|id| spec.ids.contains(id)));
            if !present {
                found.push(Finding::new(
                    "tiles.required",
                    Severity::Error,
                    format!("no {:?} tile, which the rules require", spec.text),
                ));
            }
        }
        for spec in &self.forbidden {
            for (kind, place, width, ids) in &layers {
                let width = *width;
                if !spec.kinds.contains(kind) {
                    continue;
                }
                let tiles: Vec<[u32; 2]> = (ids.iter().enumerate())
                    .filter(|(_, id)| spec.ids.contains(id))
                    .map(|(i, _)| [(i % width) as u32, (i / width) as u32])
                    .collect();
                if !tiles.is_empty() {
                    found.push(
                        Finding::new(
                            "tiles.forbidden",
                            Severity::Error,
                            format!("{:?} tiles, which the rules forbid", spec.text),
                        )
                        .in_layer(Some(place.clone()))
                        .at(tiles),
                    );
                }
            }
        }
    }

    fn settings(&self, map: &Map, found: &mut Vec<Finding>) {
        if self.allowed.is_none() && self.forbidden_settings.is_empty() {
            return;
        }
        let settings = match map.info().map(|info| info.settings(map)) {
            Some(Ok(settings)) => settings.to_vec(),
            Some(Err(e)) => {
                found.push(Finding::new(
                    "settings.allowed",
                    Severity::Error,
                    format!("the settings cannot be read: {e}"),
                ));
                return;
            }
            None => Vec::new(),
        };
        for (n, setting) in settings.iter().enumerate() {
            let command = setting.split_whitespace().next().unwrap_or("");
            if let Some(allowed) = &self.allowed {
                if !allowed.iter().any(|p| p.matches(command)) {
                    found.push(Finding::new(
                        "settings.allowed",
                        Severity::Error,
                        format!(
                            "setting #{n} {setting:?}: command {command:?} is not one the \
                             rules allow"
                        ),
                    ));
                }
            }
            if self.forbidden_settings.iter().any(|p| p.matches(command)) {
                found.push(Finding::new(
                    "settings.forbidden",
                    Severity::Error,
                    format!("setting #{n} {setting:?}: the rules forbid command {command:?}"),
                ));
            }
        }
    }

    fn info(&self, map: &Map, found: &mut Vec<Finding>) {
        let info = map.info();
        let text = |field: InfoField| -> Option<String> {
            let info = info?;
            let value = match field {
                InfoField::Author => info.author(map),
                InfoField::Version => info.map_version(map),
                InfoField::Credits => info.credits(map),
                InfoField::License => info.license(map),
            }?;
            (!value.trim().is_empty()).then_some(value)
        };
        for &field in &self.file.info.required {
            if text(field).is_none() {
                let name = match field {
                    InfoField::Author => "author",
                    InfoField::Version => "version",
                    InfoField::Credits => "credits",
                    InfoField::License => "license",
                };
                found.push(Finding::new(
                    "info.required",
                    Severity::Error,
                    format!("the map info has no {name}, which the rules require"),
                ));
            }
        }
        if let (Some(licenses), Some(license)) =
            (&self.file.info.licenses, text(InfoField::License))
        {
            if !licenses.iter().any(|l| l.trim() == license.trim()) {
                found.push(Finding::new(
                    "info.licenses",
                    Severity::Error,
                    format!("license {license:?} is not one of the rules' {licenses:?}"),
                ));
            }
        }
    }

    fn images(&self, map: &Map, found: &mut Vec<Finding>) {
        let rules = &self.file.images;
        for (n, image) in map.images().iter().enumerate() {
            let name = image.name(map).unwrap_or_default();
            let item = image.item();
            if image.is_external() {
                if rules.external == Some(false) {
                    found.push(Finding::new(
                        "images.external",
                        Severity::Error,
                        format!(
                            "image #{n} {name:?} is external (the client's own picture), \
                             which the rules forbid: embed it"
                        ),
                    ));
                }
                continue;
            }
            let (w, h) = (item.width.max(0) as u64, item.height.max(0) as u64);
            if let Some(max) = rules.max_width.filter(|&m| w > m) {
                found.push(Finding::new(
                    "images.max-width",
                    Severity::Error,
                    format!("image #{n} {name:?} is {w} pixels wide, more than the {max} allowed"),
                ));
            }
            if let Some(max) = rules.max_height.filter(|&m| h > m) {
                found.push(Finding::new(
                    "images.max-height",
                    Severity::Error,
                    format!("image #{n} {name:?} is {h} pixels high, more than the {max} allowed"),
                ));
            }
            let size = (image.data(map).get()).and_then(|d| map.data_size(d));
            if let (Some(size), Some(max)) = (size, rules.max_data_size) {
                if size as u64 > max {
                    found.push(Finding::new(
                        "images.max-data-size",
                        Severity::Error,
                        format!(
                            "image #{n} {name:?} holds {size} bytes of pixels, more than the \
                             {max} allowed"
                        ),
                    ));
                }
            }
        }
    }

    fn sounds(&self, map: &Map, found: &mut Vec<Finding>) {
        let rules = &self.file.sounds;
        for (n, sound) in map.sounds().iter().enumerate() {
            let name = sound.name(map).unwrap_or_default();
            if rules.allowed == Some(false) {
                found.push(Finding::new(
                    "sounds.allowed",
                    Severity::Error,
                    format!("sound #{n} {name:?}: the rules allow no sounds"),
                ));
            }
            let size =
                (map.item_ref::<DataItem>(sound.item().data).get()).and_then(|d| map.data_size(d));
            if let (Some(size), Some(max)) = (size, rules.max_data_size) {
                if size as u64 > max {
                    found.push(Finding::new(
                        "sounds.max-data-size",
                        Severity::Error,
                        format!("sound #{n} {name:?} is {size} bytes, more than the {max} allowed"),
                    ));
                }
            }
        }
    }
}
