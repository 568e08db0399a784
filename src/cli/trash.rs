//! `loki-sessions trash [--json] [--empty [--older-than AGE] [--yes]]` and
//! `loki-sessions restore SESSION [--json]`: the other agents' sessions
//! `delete` moved into `$XDG_DATA_HOME/loki-sessions/trash/`.

use crate::cli::ask;
use crate::cli::output;
use crate::cli::{CliEnv, CliError};
use crate::humanize;
use crate::store::{TrashEntry, trashed_before};
use clap::Args;
use serde_json::{Value, json};

/// Arguments of `trash`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  loki-sessions trash
  loki-sessions trash --json
  loki-sessions trash --empty --older-than 30d --yes
`delete` moves a Claude Code, Codex, Gemini CLI, Copilot CLI, Qwen Code or
Cursor CLI session here, with its subagents' files and side folders;
`restore SESSION` puts it back. OpenCode sessions are not deleted here (the
refusal says why).")]
pub struct TrashArgs {
    /// Delete the sessions in the trash for good (asks first on a terminal).
    #[arg(long)]
    pub empty: bool,
    /// With --empty: only those trashed at least this long ago (30d, 12h, 2w).
    #[arg(long, value_name = "AGE", requires = "empty", value_parser = age)]
    pub older_than: Option<f64>,
    /// With --empty: without asking.
    #[arg(long, requires = "empty")]
    pub yes: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `restore`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  loki-sessions restore 889a9fd4\nThe session goes back where it was, its bytes and times as they were."
)]
pub struct RestoreArgs {
    /// The session in the trash (see `loki-sessions trash`), or with
    /// --from-archive in the archive: its id or a unique prefix.
    pub session: String,
    /// From the archive: its files written back into the agent's folder,
    /// byte for byte, dated now (so the agent's cleanup does not take it
    /// again at once); never over anything.
    #[arg(long)]
    pub from_archive: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// An age: a number of seconds, or with a unit (`30d`, `12h`, `2w`, `1h30m`).
pub(crate) fn age(text: &str) -> Result<f64, String> {
    let text = text.trim();
    let days = text
        .strip_suffix('w')
        .and_then(|n| n.parse::<f64>().ok())
        .map(|w| w * 7.0);
    let days = days.or_else(|| text.strip_suffix('d').and_then(|n| n.parse::<f64>().ok()));
    if let Some(d) = days {
        return Ok(d * 86_400.0);
    }
    humantime::parse_duration(text)
        .map(|d| d.as_secs_f64())
        .map_err(|e| format!("{text}: {e} (say 30d, 12h, 2w)"))
}

/// An age as a person says it: `1 day`, `36 hours`, `90 seconds`.
fn age_text(seconds: f64) -> String {
    match seconds as u64 {
        s if s % 86_400 == 0 => humanize::plural(s / 86_400, "day"),
        s if s % 3_600 == 0 => humanize::plural(s / 3_600, "hour"),
        s if s % 60 == 0 => humanize::plural(s / 60, "minute"),
        s => humanize::plural(s, "second"),
    }
}

fn entry_json(e: &TrashEntry) -> Value {
    json!({
        "id": e.id, "agent": e.agent, "title": e.title, "trashed_at": e.trashed_at,
        "bytes": e.bytes, "entry": e.entry, "state": e.state,
        "from": e.moves.iter().map(|m| m.from.display().to_string()).collect::<Vec<_>>(),
    })
}

/// Lists the trash, or empties it.
pub fn run(env: &CliEnv, args: TrashArgs) -> Result<(), CliError> {
    let entries = env.store.trash_list()?;
    if !args.empty {
        if args.json {
            return output::print_json(&Value::Array(entries.iter().map(entry_json).collect()));
        }
        if entries.is_empty() {
            return Err(CliError::nothing("the trash is empty"));
        }
        let lines = entries.iter().map(|e| {
            format!(
                "{:<36}  {:<11}  {:>9}  trashed {}  {}",
                e.id,
                e.agent.display_name(),
                humanize::bytes(e.bytes),
                humanize::ago(e.trashed_at, env.now),
                e.title
            )
        });
        return output::print_lines(lines);
    }
    let doomed = trashed_before(&entries, args.older_than, env.now);
    if doomed.is_empty() {
        return Err(CliError::nothing(match args.older_than {
            Some(age) if !entries.is_empty() => format!(
                "nothing in the trash was trashed over {} ago ({} there {} newer)",
                age_text(age),
                humanize::plural(entries.len() as u64, "session"),
                if entries.len() == 1 { "is" } else { "are" }
            ),
            _ => "the trash is empty: nothing to delete".to_string(),
        }));
    }
    if !args.yes {
        if !ask::can_ask() {
            return Err(CliError::usage(
                "refusing to empty the trash without confirmation: stdin is not a terminal; pass --yes",
            ));
        }
        let lines: Vec<String> = doomed
            .iter()
            .map(|e| format!("{}  {}", e.id, e.title))
            .collect();
        let question = format!(
            "Delete these {} for good? It cannot be undone.",
            humanize::plural(doomed.len() as u64, "session")
        );
        if !ask::yes_or_no(&lines, &question)? {
            return Err(CliError::nothing("nothing deleted"));
        }
    }
    // The entries listed and asked about, never one trashed since.
    let names: Vec<String> = doomed.iter().map(|e| e.entry.clone()).collect();
    let gone = env.store.delete_for_good(&names)?;
    if args.json {
        return output::print_json(&json!({
            "deleted": gone.iter().map(entry_json).collect::<Vec<_>>(),
            "bytes_freed": gone.iter().map(|e| e.bytes).sum::<u64>(),
        }));
    }
    output::print_lines([format!(
        "deleted {} for good, freed {}",
        humanize::plural(gone.len() as u64, "session"),
        humanize::bytes(gone.iter().map(|e| e.bytes).sum())
    )])
}

/// Puts a trashed session back.
pub fn restore(env: &CliEnv, args: RestoreArgs) -> Result<(), CliError> {
    if args.from_archive {
        let (m, written) = env.store.restore_archived(&args.session, env.now)?;
        if args.json {
            return output::print_json(&json!({
                "id": m.id, "agent": m.agent, "title": m.title,
                "written": written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            }));
        }
        return output::print_lines([
            format!(
                "restored {} session {} ({}) from the archive to {}",
                m.agent.display_name(),
                m.id,
                m.title,
                written
                    .first()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            ),
            "dated now, so the agent's own cleanup does not take it again at once".to_string(),
        ]);
    }
    let e = env.store.restore(&args.session)?;
    if args.json {
        return output::print_json(&entry_json(&e));
    }
    output::print_lines([format!(
        "restored {} session {} ({}) to {}",
        e.agent.display_name(),
        e.id,
        e.title,
        e.moves
            .first()
            .map(|m| m.from.display().to_string())
            .unwrap_or_default()
    )])
}
