//! `twcodec automap`: DDNet's automapper without the editor (`twcodec_tools::automap`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use twcodec::Map;
use twcodec_tools::automap::{automap, AutomapOptions};

use super::{save, usage};
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
    let mut options = AutomapOptions::new(dir);
    options.layer = layer;
    options.config = config;
    options.seed = seed;
    let outcomes = automap(&mut map, &options).map_err(usage)?;
    let lines: Vec<String> = outcomes.iter().map(|o| o.fact()).collect();
    save(&map, &output, &lines, out)
}
