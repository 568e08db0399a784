//! `loki-sessions search QUERY [--json] [--limit N] [--role R] [--session S] [--no-index]`.

use crate::cli::output::{self, Progress};
use crate::cli::{CliEnv, CliError};
use crate::humanize;
use crate::store::{Role, SearchOptions, SearchQuery};
use clap::Args;
use std::sync::Mutex;

/// Arguments of `search`.
#[derive(Debug, Args)]
#[command(
    after_help = "Query: every word must be in the message (any case); \"a phrase\" must be there as written; role:user, role:assistant, role:tool or role:system keeps one role. A word like session.py or 東京 matches as a phrase. Of a message longer than 8 MiB (a pasted log), its first 8 MiB are searched.

Examples:
  loki-sessions search connection refused
  loki-sessions search '\"token expired\" role:tool' --limit 5
  loki-sessions search PR 4123 --json | jq -r '.[0].session_id'

Exit: 0 with hits, 1 with none, 2 for a bad query."
)]
pub struct SearchArgs {
    /// What to look for (several words are one query).
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
    /// Print JSON: an array of hits, best first.
    #[arg(long)]
    pub json: bool,
    /// Most hits shown.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub limit: usize,
    /// Only messages of this role: user, assistant, tool or system.
    #[arg(long, value_name = "ROLE")]
    pub role: Option<String>,
    /// Only this session (an id, a unique id prefix, a name, a unique name prefix, or a path).
    #[arg(long, value_name = "SESSION")]
    pub session: Option<String>,
    /// Read the session files instead of the index (slower; the reference).
    #[arg(long)]
    pub no_index: bool,
}

/// Searches the messages of every session.
pub fn run(env: &CliEnv, args: SearchArgs) -> Result<(), CliError> {
    let text = args.query.join(" ");
    let mut query =
        SearchQuery::parse(&text, false).map_err(|e| CliError::usage(format!("bad query: {e}")))?;
    if let Some(role) = &args.role {
        let role = Role::parse(role).map_err(CliError::usage)?;
        if query.role.is_some_and(|r| r != role) {
            return Err(CliError::usage(format!(
                "the query asks for role:{} and --role says {role}",
                query.role.map_or("", |r| r.as_str())
            )));
        }
        query.role = Some(role);
    }
    let session = match &args.session {
        Some(arg) => Some(env.locate(arg)?.record.id.into()),
        None => None,
    };
    let options = SearchOptions {
        limit: args.limit,
        session,
        update: true,
        scan_stale: true,
    };
    let outcome = if args.no_index {
        env.store.search_files(&query, &options)?
    } else {
        let progress = Mutex::new(Progress::new("indexing sessions"));
        let outcome = env.store.search(&query, &options, &|done, total| {
            if let Ok(mut p) = progress.lock() {
                p.update(done, total);
            }
        })?;
        if let Ok(mut p) = progress.lock() {
            p.finish();
        }
        outcome
    };
    if let Some(note) = &outcome.note {
        crate::note!("note: {note}");
    }
    for unreadable in &outcome.unreadable {
        crate::note!(
            "note: session {} could not be read, so it was not searched: {}",
            unreadable.session_id,
            unreadable.error
        );
    }
    if !outcome.is_complete() {
        crate::note!(
            "note: searched {} of {} sessions",
            humanize::count(outcome.covered as u64),
            humanize::count(outcome.sessions as u64)
        );
    }
    if args.json {
        output::print_json(&outcome.hits)?;
    } else {
        // Columns as wide as their longest entry (names cut at 32), so
        // short names line up with long ones.
        let names: Vec<String> = outcome
            .hits
            .iter()
            .map(|h| humanize::truncate(&h.session_name, 32))
            .collect();
        let width = names
            .iter()
            .map(|n| unicode_width::UnicodeWidthStr::width(n.as_str()))
            .max()
            .unwrap_or(0);
        let lines = outcome.hits.iter().zip(&names).map(|(h, name)| {
            format!(
                "{}  {:<14}  {:<9}  {}  {}",
                humanize::pad(name, width),
                humanize::last_used(h.last_used_at, env.now),
                h.role,
                humanize::id_prefix(&h.session_id, 17),
                h.snippet
            )
        });
        output::print_lines(lines)?;
        if outcome.total > outcome.hits.len() {
            crate::note!(
                "{} of {} matching messages shown (--limit)",
                outcome.hits.len(),
                humanize::count(outcome.total as u64)
            );
        }
    }
    if outcome.hits.is_empty() {
        Err(CliError::nothing(""))
    } else {
        Ok(())
    }
}
