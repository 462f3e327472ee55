//! `twcodec automap`: DDNet's automapper without the editor (`twcodec_tools::automap`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use twcodec::map::{Layer, LayerContent};
use twcodec::Map;
use twcodec_tools::automap::{automap_layer, Rules};

use crate::output::{is_stdout, refuse_terminal, Failure, Out};

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Run DDNet's automapper rules on tiles layers, as the editor's Automap button does.
    ///
    /// With --layer, that layer (its index as `twcodec dump` shows it, or its name) with the
    /// configuration and seed its automapper item holds, unless --config and --seed say
    /// otherwise. Without --layer, every tiles layer whose automapper item is automatic and
    /// has a seed (what the editor redoes on every edit). The rules of a layer are
    /// DIR/IMAGE.rules, IMAGE its image's name. A line per layer run; nothing is written on an
    /// error.
    Automap {
        /// The map.
        map: PathBuf,
        /// Where to write the map: replaced atomically, `-` for standard output.
        #[arg(short, long, value_name = "OUT")]
        output: PathBuf,
        /// The folder of rule files (default: editor/automap beside $TWCODEC_MAPRES, as in
        /// DDNet's data folder).
        #[arg(long, value_name = "DIR")]
        rules: Option<PathBuf>,
        /// The layer to run: its index or its name.
        #[arg(long, value_name = "L")]
        layer: Option<String>,
        /// The configuration: its name or its number in the rules file.
        #[arg(long, value_name = "NAME", requires = "layer")]
        config: Option<String>,
        /// The seed (1 to 4294967295).
        #[arg(long, value_name = "N", requires = "layer")]
        seed: Option<u32>,
    },
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<ExitCode, Failure> {
    let Commands::Automap {
        map: input,
        output,
        rules,
        layer,
        config,
        seed,
    } = command;
    let to_stdout = is_stdout(&output);
    if to_stdout {
        refuse_terminal("a map")?;
    }
    let dir = match rules {
        Some(dir) => dir,
        None => twcodec_tools::assets::default_mapres()
            .map(|mapres| mapres.join("../editor/automap"))
            .ok_or_else(|| {
                Failure::Usage("no folder of rules: give --rules DIR or set $TWCODEC_MAPRES".into())
            })?,
    };
    let mut map = Map::open(&input)?;
    // The layers to run: (index, config, seed) each.
    let mut runs: Vec<(usize, Option<String>, Option<u32>)> = Vec::new();
    match &layer {
        Some(spec) => {
            let index = match spec.parse::<usize>() {
                Ok(index) if index < map.layers().len() => index,
                _ => (map.layers().iter())
                    .position(|l| l.name() == *spec)
                    .ok_or_else(|| Failure::Usage(format!("the map has no layer {spec:?}")))?,
            };
            runs.push((index, config.clone(), seed));
        }
        None => {
            for (index, r) in map.refs::<Layer>().enumerate() {
                let Some(item) = map.automapper_of(r).map(|a| a.item().clone()) else {
                    continue;
                };
                let tiles = matches!(map.layers()[index].content(), LayerContent::Tiles(_));
                if tiles && item.flags.automatic() && item.seed != 0 && item.config >= 0 {
                    runs.push((index, None, None));
                }
            }
        }
    }
    let mut lines = Vec::new();
    for (index, config, seed) in runs {
        let Some(r) = map.refs::<Layer>().nth(index) else {
            return Err(Failure::Usage(format!("the map has no layer #{index}")));
        };
        let item = map.automapper_of(r).map(|a| a.item().clone());
        let image = map.layers()[index]
            .image(&map)
            .get()
            .and_then(|i| map.get(i));
        let Some(name) = image.and_then(|i| i.name(&map)) else {
            return Err(Failure::Usage(format!(
                "layer #{index} has no image, so no rules file"
            )));
        };
        let path = dir.join(format!("{name}.rules"));
        // Running every automatic layer: a layer whose image has no rules is left alone.
        if layer.is_none() && !path.exists() {
            lines.push(format!(
                "layer #{index} {:?}: no {} (left as it is)",
                map.layers()[index].name(),
                path.display()
            ));
            continue;
        }
        // A regular file, read with the bound of any input file; DDNet drops lines that are
        // not UTF-8, and a lossy one starts with no keyword, so it is ignored alike.
        let max = twcodec::Limits::default().max_file_size();
        let bytes = twcodec::input::read_file(&path, max, "Limits::max_file_size")?;
        let text = String::from_utf8_lossy(&bytes);
        let rules = Rules::parse(&text, &path.display().to_string())?;
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
            return Err(Failure::Usage(format!(
                "layer #{index}: no such configuration in {} (it has {names:?}); give --config",
                path.display()
            )));
        };
        let seed = seed.or_else(|| item.as_ref().and_then(|i| u32::try_from(i.seed).ok()));
        let run = automap_layer(&mut map, r, chosen, seed.unwrap_or(0))?;
        lines.push(format!(
            "layer #{} {:?}: {:?} with seed {}: {} tiles changed",
            run.layer,
            map.layers()[index].name(),
            run.config,
            run.seed,
            run.changed
        ));
    }
    let writer = map.to_datafile()?;
    let text = lines.join("\n") + if lines.is_empty() { "" } else { "\n" };
    if to_stdout {
        eprint!("{text}");
        writer.write(&mut *out)?;
    } else {
        out.write_all(text.as_bytes())?;
        writer.save(&output)?;
        writeln!(out, "wrote {}", output.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
