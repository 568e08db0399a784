//! `loki-sessions archive`: keep other agents' sessions beyond their
//! agents' own cleanups (Claude Code's `cleanupPeriodDays`, Gemini CLI's
//! retention), in `$XDG_DATA_HOME/loki-sessions/archive/`, compressed.

use crate::cli::ask;
use crate::cli::output;
use crate::cli::{CliEnv, CliError, completions};
use crate::humanize;
use crate::store::{ArchiveOutcome, Archived, Manifest};
use clap::Args;
use clap_complete::engine::ArgValueCandidates;
use serde_json::json;

/// Arguments of `archive`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  loki-sessions archive 0a8f5c1e                              keep this one
  loki-sessions archive --agent claude --due-within 7d        what Claude Code deletes within 7 days
  loki-sessions archive --list
  loki-sessions restore 0a8f5c1e --from-archive               back into the agent's folder
  loki-sessions archive --delete 0a8f5c1e --yes

Archiving copies: the agent's files are only read. A session archived
again unchanged is not stored twice; a changed one replaces its older copy.")]
pub struct ArchiveArgs {
    /// Sessions to archive: ids, names or prefixes (another agent's).
    #[arg(add = ArgValueCandidates::new(completions::session_candidates))]
    pub sessions: Vec<String>,
    /// Archive what the agents' own cleanups delete within this long (7d, 48h).
    #[arg(long, value_name = "AGE", value_parser = crate::cli::trash::age, conflicts_with_all = ["list", "delete"])]
    pub due_within: Option<f64>,
    /// List the archive.
    #[arg(long, conflicts_with = "delete")]
    pub list: bool,
    /// Delete these archived sessions for good (asks first on a terminal).
    #[arg(long, value_name = "ID", num_args = 1..)]
    pub delete: Vec<String>,
    /// With --delete: without asking.
    #[arg(long)]
    pub yes: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Archives, lists or deletes.
pub fn run(env: &CliEnv, args: ArchiveArgs) -> Result<(), CliError> {
    if args.list {
        return list(env, args.json);
    }
    if !args.delete.is_empty() {
        return delete(env, &args.delete, args.yes, args.json);
    }
    let agent = env.agents.iter().copied().find(|a| a.is_external());
    let mut failed = 0;
    let outcomes: Vec<ArchiveOutcome> = match args.due_within {
        Some(within) => env
            .store
            .archive_due(agent, within, env.now)?
            .into_iter()
            .filter_map(|(id, result)| {
                result
                    .inspect_err(|why| {
                        failed += 1;
                        crate::note!("session {id} was not archived: {why}");
                    })
                    .ok()
            })
            .collect(),
        None if args.sessions.is_empty() => {
            return Err(CliError::usage(
                "name the sessions to archive, or give --due-within AGE (or --list)",
            ));
        }
        None => {
            let mut out = Vec::new();
            for arg in &args.sessions {
                let target = env.locate_exactly(arg)?;
                out.push(env.store.archive(&target, env.now)?);
            }
            out
        }
    };
    if failed > 0 {
        // What was archived is said first; the exit says not everything was.
        if args.json {
            output::print_json(&outcomes)?;
        } else {
            output::print_lines(outcomes.iter().map(outcome_line))?;
        }
        return Err(CliError::usage(format!(
            "{} not archived (said above)",
            humanize::plural(failed, "session")
        )));
    }
    if args.json {
        return output::print_json(&outcomes);
    }
    if outcomes.is_empty() {
        return output::print_lines(["nothing is due: no session is archived".to_string()]);
    }
    output::print_lines(outcomes.iter().map(outcome_line))
}

/// One line of what archiving a session did.
fn outcome_line(o: &ArchiveOutcome) -> String {
    let what = match &o.result {
        Archived::New => "archived".to_string(),
        Archived::Unchanged => "already archived, unchanged".to_string(),
        Archived::Replaced { older_archived_at } => format!(
            "archived, replacing the older copy of {}",
            humanize::datetime(*older_archived_at)
        ),
    };
    format!(
        "{} {}: {what} ({}, {} stored)",
        o.agent.display_name(),
        o.id,
        humanize::bytes(o.bytes),
        humanize::bytes(o.stored_bytes)
    )
}

/// What the `archive_due` setting did among `results`, for a note on
/// stderr: None when nothing new was kept (an unchanged copy is not news).
pub fn due_note(
    results: &[(String, crate::store::Result<ArchiveOutcome>)],
    within: f64,
) -> Option<String> {
    let kept: Vec<&ArchiveOutcome> = results
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok())
        .filter(|o| o.result != Archived::Unchanged)
        .collect();
    let failed: Vec<String> = results
        .iter()
        .filter_map(|(id, r)| r.as_ref().err().map(|e| format!("{id}: {e}")))
        .collect();
    if kept.is_empty() && failed.is_empty() {
        return None;
    }
    let mut lines = Vec::new();
    if !kept.is_empty() {
        lines.push(format!(
            "kept {} in the archive that their agents' own cleanups delete within {} ({}): `loki-sessions archive --list`; archive_due = \"off\" in the config stops this",
            humanize::plural(kept.len() as u64, "session"),
            humanize::ahead(within, 0.0),
            humanize::bytes(kept.iter().map(|o| o.bytes).sum())
        ));
    }
    lines.extend(failed.into_iter().map(|why| format!("not archived: {why}")));
    let note = lines.join("\n");
    Some(note)
}

fn manifest_json(m: &Manifest) -> serde_json::Value {
    json!({"agent": m.agent, "id": m.id, "title": m.title, "cwd": m.cwd,
        "last_used_at": m.last_used_at, "archived_at": m.archived_at, "bytes": m.bytes(),
        "files": m.files.len(), "from": m.root.join(&m.main),
        "original_is_there": m.original_is_there()})
}

fn list(env: &CliEnv, json: bool) -> Result<(), CliError> {
    let entries = env.store.archived()?;
    if json {
        let rows: Vec<serde_json::Value> = entries
            .iter()
            .map(|e| match e {
                Ok(m) => manifest_json(m),
                Err(why) => json!({"error": why}),
            })
            .collect();
        return output::print_json(&rows);
    }
    if entries.is_empty() {
        return Err(CliError::nothing("the archive is empty"));
    }
    output::print_lines(entries.iter().map(|e| match e {
        Ok(m) => format!(
            "{:<7} {}  {}  archived {}  {}",
            m.agent.name(),
            m.id,
            humanize::bytes(m.bytes()),
            humanize::datetime(m.archived_at),
            humanize::truncate(&m.title, 60)
        ),
        Err(why) => format!("damaged entry: {why}"),
    }))
}

fn delete(env: &CliEnv, args: &[String], yes: bool, json: bool) -> Result<(), CliError> {
    let manifests = env.store.find_archived(args)?;
    if !yes {
        let names: Vec<String> = manifests
            .iter()
            .map(|m| {
                format!(
                    "  {} {} ({})",
                    m.agent.display_name(),
                    m.id,
                    crate::store::safe_text::safe_line(&m.title)
                )
            })
            .collect();
        let question = format!(
            "Delete {} from the archive for good?",
            humanize::plural(manifests.len() as u64, "session")
        );
        ask::confirm(
            &names,
            &question,
            "deleting from the archive asks first; pass --yes where nobody can answer",
            "nothing deleted",
        )?;
    }
    env.store.delete_archived(&manifests)?;
    if json {
        return output::print_json(&manifests.iter().map(manifest_json).collect::<Vec<_>>());
    }
    output::print_lines(
        manifests
            .iter()
            .map(|m| format!("deleted {} from the archive", m.id)),
    )
}
