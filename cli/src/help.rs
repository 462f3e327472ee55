//! Help: `twcodec --help` with the commands grouped by task, manual pages (`man`) and shell
//! completions (`completions`), all from the one definition of the commands that clap reads.
//!
//! clap lists subcommands under one heading. The groups here are the command modules: each
//! defines its commands as one enum, flattened into the top-level `Command`, so a command's
//! group is the module that defines it, and [`GROUPS`] gives each module its heading.

use std::fmt::Write as _;

use clap::builder::StyledStr;
use clap::{CommandFactory, Subcommand};

use crate::output::{Failure, Out};
use crate::{assets, demos, edits, ghosts, git, many, maps, teehistorian};

#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Shell completions on standard output, for bash, zsh, fish, elvish or powershell
    /// (`twcodec completions bash > ~/.local/share/bash-completion/completions/twcodec`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// The manual page (roff) on standard output: `twcodec man | man -l -`, or one
    /// command's page (`twcodec man unpack`, `twcodec man demo chat`).
    Man {
        /// The command, and its subcommand for `demo`, `snap` and `ghost`; the main page without one.
        command: Vec<String>,
    },
}

pub(crate) fn run(command: Commands, out: Out<'_>) -> Result<(), Failure> {
    match command {
        Commands::Completions { shell } => {
            // Generated whole first: the generators panic on a failing writer, and a closed
            // pipe must end the program quietly.
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut crate::Cli::command(), "twcodec", &mut text);
            out.write_all(&text)?;
        }
        Commands::Man { command } => out.write_all(&man_page(&command)?)?,
    }
    Ok(())
}

/// A heading of `twcodec --help` and the commands under it.
struct Group {
    heading: &'static str,
    /// Whether a command is the group's: the group's module defines it (its `Commands` knows
    /// the names).
    has: fn(&str) -> bool,
}

/// The groups of `twcodec --help`, in order, one per command module. The last also lists
/// clap's own `help`.
const GROUPS: &[Group] = &[
    Group {
        heading: "Maps",
        has: <maps::Commands as Subcommand>::has_subcommand,
    },
    Group {
        heading: "Pictures and sounds",
        has: <assets::Commands as Subcommand>::has_subcommand,
    },
    Group {
        heading: "Maps in git",
        has: <git::Commands as Subcommand>::has_subcommand,
    },
    Group {
        heading: "Editing maps",
        has: <edits::Commands as Subcommand>::has_subcommand,
    },
    Group {
        heading: "Demos and snapshots",
        has: <demos::Commands as Subcommand>::has_subcommand,
    },
    Group {
        heading: "Ghosts",
        has: <ghosts::Commands as Subcommand>::has_subcommand,
    },
    Group {
        heading: "Teehistorian (server recordings)",
        has: <teehistorian::Commands as Subcommand>::has_subcommand,
    },
    Group {
        heading: "Many files",
        has: <many::Commands as Subcommand>::has_subcommand,
    },
    Group {
        heading: "Help and shell",
        has: |name| <Commands as Subcommand>::has_subcommand(name) || name == CLAP_HELP,
    },
];

/// The command clap adds to print help.
const CLAP_HELP: &str = "help";

/// The help of `twcodec` itself: clap's, with the commands under the headings of [`GROUPS`]
/// where clap would list them under one. The groups fill the `{before-help}` slot of the
/// template (text there is shown as it is; the rest of a template is read for `{tags}`).
pub(crate) fn grouped(command: clap::Command) -> clap::Command {
    // A built copy, for clap's `help` command and the texts as clap shows them. (Building
    // the command itself would make `help` take a tree of commands, as for completions,
    // and change `twcodec help help`.)
    let mut built = command.clone();
    built.build();
    let header = built.get_styles().get_header();
    let mut template = StyledStr::new();
    let _ = write!(
        template,
        "{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{{before-help}}\
         {header}Options:{header:#}\n{{options}}{{after-help}}"
    );
    let list = command_list(&built);
    command.before_help(list).help_template(template)
}

/// Which of [`GROUPS`] lists each of `command`'s subcommands: a heading and the commands under
/// it, in the order of the definitions; a command in no group is under `None`.
fn groups(command: &clap::Command) -> Vec<(Option<&'static str>, Vec<&clap::Command>)> {
    let mut groups: Vec<(Option<&'static str>, Vec<&clap::Command>)> = GROUPS
        .iter()
        .map(|group| (Some(group.heading), Vec::new()))
        .collect();
    let mut ungrouped = Vec::new();
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        let name = sub.get_name();
        match GROUPS.iter().position(|group| (group.has)(name)) {
            Some(group) => groups[group].1.push(sub),
            None => ungrouped.push(sub),
        }
    }
    // Nothing is left out of the help: a command without a group still shows, under a
    // heading of its own (and the test that every command has a group fails).
    if !ungrouped.is_empty() {
        groups.push((None, ungrouped));
    }
    groups.retain(|(_, commands)| !commands.is_empty());
    groups
}

/// The grouped list, laid out as clap lays out its own: headings in its header style, names
/// in its literal style, each command's `about` after a column as wide as the longest name.
fn command_list(command: &clap::Command) -> StyledStr {
    let styles = command.get_styles();
    let (header, literal) = (styles.get_header(), styles.get_literal());
    let groups = groups(command);
    let longest = (groups.iter())
        .flat_map(|(_, commands)| commands.iter().map(|sub| sub.get_name().chars().count()))
        .fold(2, usize::max);
    let mut list = StyledStr::new();
    for (i, (heading, commands)) in groups.iter().enumerate() {
        if i > 0 {
            list.push_str("\n\n");
        }
        let heading = heading.unwrap_or("Other commands");
        let _ = write!(list, "{header}{heading}:{header:#}");
        for sub in commands {
            let name = sub.get_name();
            let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
            let pad = longest + 2 - name.chars().count();
            // A second line of an about (none has one yet) lines up under the first.
            let about = about.replace('\n', &format!("\n{:1$}", "", longest + 4));
            let line = format!("\n  {literal}{name}{literal:#}{:pad$}{about}", "");
            list.push_str(line.trim_end());
        }
    }
    list
}

/// The manual page of the command `path` names (`[]`: the main page), in roff: the same text
/// as `--help`, from the same definitions.
fn man_page(path: &[String]) -> Result<Vec<u8>, Failure> {
    let mut command = crate::Cli::command();
    command.build();
    let mut name = "twcodec".to_string();
    for word in path {
        let names: Vec<String> = (command.get_subcommands())
            .map(|sub| sub.get_name().to_string())
            .filter(|name| name != "help")
            .collect();
        let Some(sub) = command.find_subcommand(word).cloned() else {
            return Err(Failure::Usage(format!(
                "`{name}` has no command `{word}`{}; its commands: {}",
                twcodec_tools::nearest(word, &names)
                    .map_or(String::new(), |near| format!(" (did you mean `{near}`?)")),
                names.join(", ")
            )));
        };
        name = format!("{name}-{}", sub.get_name());
        command = sub;
    }
    let command = (command.name(name.clone()))
        .bin_name(name.replace('-', " "))
        .version(env!("CARGO_PKG_VERSION"));
    let mut page = Vec::new();
    clap_mangen::Man::new(command).render(&mut page)?;
    Ok(page)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::{grouped, groups, GROUPS};
    use crate::Cli;

    /// Every command is in exactly one group: the one module that defines it (clap's `help`
    /// in the last). A command added to the top-level `Command` itself, outside the group
    /// modules, fails here.
    #[test]
    fn every_command_is_in_exactly_one_group() {
        let mut command = Cli::command();
        command.build();
        let names: Vec<&str> = command
            .get_subcommands()
            .map(|sub| sub.get_name())
            .collect();
        assert!(names.len() >= 20, "{names:?}");
        for name in &names {
            let claimed: Vec<&str> = (GROUPS.iter())
                .filter(|group| (group.has)(name))
                .map(|group| group.heading)
                .collect();
            assert_eq!(claimed.len(), 1, "`{name}` is in the groups {claimed:?}");
        }
        let listed = groups(&command);
        assert!(
            listed.iter().all(|(heading, _)| heading.is_some()),
            "ungrouped commands"
        );
        assert_eq!(listed.len(), GROUPS.len(), "a group is empty");
        let count: usize = listed.iter().map(|(_, commands)| commands.len()).sum();
        assert_eq!(count, names.len());
    }

    /// The help lists each command once, under its heading, with clap's `about` of it, and
    /// the options after the groups.
    #[test]
    fn the_help_lists_every_command_once_under_its_heading() {
        let mut command = grouped(Cli::command());
        let help = command.render_long_help().to_string();
        let mut headings = Vec::new();
        let mut heading = "";
        let mut seen = Vec::new();
        for line in help.lines() {
            if let Some(name) = line.strip_suffix(':').filter(|_| !line.starts_with(' ')) {
                heading = name;
                headings.push(name);
            } else if let Some(rest) = line.strip_prefix("  ").filter(|_| heading != "Options") {
                if let Some(name) = rest.split(' ').next().filter(|name| !name.is_empty()) {
                    seen.push((heading, name.to_string(), rest.to_string()));
                }
            }
        }
        let wanted: Vec<&str> = GROUPS.iter().map(|group| group.heading).collect();
        assert_eq!(headings[..wanted.len()], wanted[..], "{help}");
        assert_eq!(headings[wanted.len()..], ["Options"], "{help}");
        for sub in command.get_subcommands() {
            let name = sub.get_name();
            let lines: Vec<_> = seen.iter().filter(|(_, seen, _)| seen == name).collect();
            assert_eq!(lines.len(), 1, "`{name}` in {help}");
            let (heading, _, rest) = lines[0];
            let group = GROUPS.iter().find(|group| (group.has)(name)).unwrap();
            assert_eq!(*heading, group.heading, "{name}");
            let about = sub.get_about().unwrap().to_string();
            assert_eq!(rest[name.len()..].trim_start(), about, "{name}");
        }
        assert_eq!(seen.len(), command.get_subcommands().count(), "{help}");
    }
}
