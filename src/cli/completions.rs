//! `loki-sessions completions bash|zsh|fish`, and completing `SESSION`
//! arguments with the names and ids of the sessions there are.
//!
//! The script the shell loads is a small registration: at each Tab the shell
//! runs `COMPLETE=<shell> loki-sessions -- <the words so far>`, and clap's
//! completion engine answers from the same `Cli` the parser uses, so options
//! and subcommands never drift from the code, and sessions are always
//! current.

use crate::cli::env::{open_store, root_and_user, with_other_agents};
use crate::cli::{Cli, CliError};
use crate::humanize;
use crate::store::now_seconds;
use clap::{Args, CommandFactory};
use clap_complete::engine::CompletionCandidate;
use clap_complete::env::EnvCompleter;
use std::collections::HashMap;
use std::path::PathBuf;

/// The variable that asks the binary for completions.
const VAR: &str = "COMPLETE";
const BIN: &str = "loki-sessions";

/// Arguments of `completions`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  echo 'source <(loki-sessions completions bash)' >> ~/.bashrc
  echo 'source <(loki-sessions completions zsh)' >> ~/.zshrc
  loki-sessions completions fish > ~/.config/fish/completions/loki-sessions.fish

The script calls loki-sessions at each Tab (it must be on PATH), so session
names and ids complete too. Load it anew when you upgrade.")]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Shells we write completions for.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Shell {
    /// GNU bash.
    Bash,
    /// Z shell.
    Zsh,
    /// fish.
    Fish,
}

/// Prints the completion script.
pub fn run(args: CompletionsArgs) -> Result<(), CliError> {
    let shell: &dyn EnvCompleter = match args.shell {
        Shell::Bash => &clap_complete::env::Bash,
        Shell::Zsh => &clap_complete::env::Zsh,
        Shell::Fish => &clap_complete::env::Fish,
    };
    let mut out = Vec::new();
    shell.write_registration(VAR, BIN, BIN, BIN, &mut out)?;
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(())
}

/// Answers a completion request (`COMPLETE=<shell> loki-sessions -- …`)
/// and exits; does nothing on an ordinary run. Call it before anything
/// writes to stdout.
pub fn complete_from_env() {
    clap_complete::CompleteEnv::with_factory(Cli::command)
        .var(VAR)
        .complete();
}

/// The candidates for a `SESSION` argument: each session's name (with its
/// id, `name · id`, when another session has the same one), and, shown
/// only when no name fits what was typed, each id. The store is the one the command line being
/// completed names (`--root`, `--user`, `--peteos`, else `LOKI_HOME` and
/// the defaults); nothing is offered when it cannot be read.
pub fn session_candidates() -> Vec<CompletionCandidate> {
    let words: Vec<String> = std::env::args_os()
        .skip_while(|w| w != "--")
        .skip(1)
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    let root = flag_value(&words, "--root")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("LOKI_HOME").map(PathBuf::from));
    let root_given = root.is_some();
    let peteos = flag_value(&words, "--peteos").map(PathBuf::from);
    let Ok((root, user)) = root_and_user(root, flag_value(&words, "--user")) else {
        return Vec::new();
    };
    let Ok(store) = open_store(&root, &user, root_given, peteos.as_deref()) else {
        return Vec::new();
    };
    let agents: Vec<_> = flag_values(&words, "--agent")
        .filter_map(|a| a.parse().ok())
        .collect();
    let store = with_other_agents(store, &agents, !root_given && peteos.is_none());
    let Ok(records) = store.list() else {
        return Vec::new();
    };
    let now = now_seconds();
    let mut names: HashMap<&str, usize> = HashMap::new();
    for r in records.iter().filter(|r| r.is_readable()) {
        *names.entry(r.name.as_str()).or_default() += 1;
    }
    let mut out = Vec::new();
    for r in &records {
        let used = humanize::ago(r.last_used_at, now);
        // The shell prints candidates as they are: a name holding an
        // escape is offered by its id alone, its help made safe.
        let name_is_plain = !r.name.chars().any(crate::store::safe_text::is_unsafe);
        if r.is_readable() && name_is_plain {
            // A name two sessions share names neither: each is offered as
            // `name · id`, the form the list shows and `SESSION` takes, so
            // it still starts with what was typed.
            let value = match names.get(r.name.as_str()) {
                Some(1) => r.name.clone(),
                _ => format!("{} · {}", r.name, r.id),
            };
            out.push(
                CompletionCandidate::new(value).help(Some(format!("{used}, {}", r.id).into())),
            );
        }
        let name = crate::store::safe_text::safe_line(&r.name);
        out.push(
            CompletionCandidate::new(r.id.as_str())
                .help(Some(format!("{name}, {used}").into()))
                .hide(true),
        );
    }
    out
}

/// The value of `flag` in `words` (`--flag VALUE` or `--flag=VALUE`).
fn flag_value(words: &[String], flag: &str) -> Option<String> {
    let with_equals = format!("{flag}=");
    words.iter().enumerate().find_map(|(i, w)| {
        if w == flag {
            words.get(i + 1).cloned()
        } else {
            w.strip_prefix(&with_equals).map(str::to_string)
        }
    })
}

/// Every value of a repeatable `flag` in `words`.
fn flag_values<'a>(words: &'a [String], flag: &'a str) -> impl Iterator<Item = String> + 'a {
    let with_equals = format!("{flag}=");
    words.iter().enumerate().filter_map(move |(i, w)| {
        if w == flag {
            words.get(i + 1).cloned()
        } else {
            w.strip_prefix(&with_equals).map(str::to_string)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_in_both_forms() {
        let words: Vec<String> = ["loki-sessions", "--root=/r", "--user", "ann", "show", "fi"]
            .map(String::from)
            .into();
        assert_eq!(flag_value(&words, "--root").as_deref(), Some("/r"));
        assert_eq!(flag_value(&words, "--user").as_deref(), Some("ann"));
        assert_eq!(flag_value(&words, "--peteos"), None);
    }
}
