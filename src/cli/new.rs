//! `loki-sessions new "<first prompt>" [--no-purge | --yes] [--json]`.

use crate::cli::ask;
use crate::cli::output;
use crate::cli::{CliEnv, CliError};
use crate::humanize;
use crate::store::SessionPaths;
use crate::store::{LokiOnly, PurgePlan};
use clap::Args;
use serde_json::json;

/// Arguments of `new`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  loki-sessions new \"Fix the login bug\"\n  loki-sessions new \"Fix the login bug\" --no-purge     make it, purge nothing\n  loki-sessions new \"Nightly run\" --yes </dev/null      a script that purges too\n  cd \"$(loki-sessions new 'Refactor the parser' --json | jq -r .workspace)\""
)]
pub struct NewArgs {
    /// The first prompt; the session is named after it.
    pub prompt: String,
    /// Do not purge stale sessions first.
    #[arg(long, conflicts_with = "yes")]
    pub no_purge: bool,
    /// Purge stale sessions first without asking (on a terminal `new` asks;
    /// without one it purges nothing unless this is given).
    #[arg(long, visible_alias = "purge")]
    pub yes: bool,
    /// Print the new session as JSON.
    #[arg(long)]
    pub json: bool,
    /// Sessions beyond the N most recently used are removed first; the age limit applies too [default: 100]
    #[arg(long, value_name = "N")]
    pub keep: Option<usize>,
    /// Purge removes sessions unused for longer than this [default: 30d]
    #[arg(long, value_name = "AGE")]
    pub max_age: Option<String>,
}

/// Starts a session. Stale sessions are purged first only when asked: a
/// person at a terminal is shown what the purge would remove and asked (No
/// by default), a script passes `--yes`; without either, nothing is deleted
/// and stderr says how many stale sessions were left and how to purge them
/// (the one rule of `purge` and `delete`: no deletion without a terminal's
/// yes or `--yes`). Each purged session is reported on stderr.
pub fn run(env: &CliEnv, args: NewArgs) -> Result<(), CliError> {
    env.store.check(LokiOnly::NewSession)?;
    let plan = if args.no_purge {
        None
    } else {
        let policy = env.policy(args.keep, args.max_age.as_deref())?;
        Some(env.store.purge_plan(policy, &[], env.now)?)
    };
    let plan = match plan {
        Some(plan) if plan.removals().next().is_some() && !args.yes => {
            if !ask::can_ask() {
                crate::note!("{}", left_unpurged(&plan, &policy_flags(&args)));
                None
            } else if ask::yes_or_no(&purge_summary(&plan, env.now), "Purge them first?")? {
                Some(plan)
            } else {
                crate::note!("nothing purged");
                None
            }
        }
        other => other,
    };
    let started = env.store.start_with(&args.prompt, plan, env.now)?;
    let mut purged_ids = Vec::new();
    if let Some((plan, report)) = &started.purged {
        for id in &report.removed {
            let entry = plan.entry(id);
            let name = entry.map_or("", |e| e.candidate.record.name.as_str());
            let reason = entry.map(|e| e.decision.to_string()).unwrap_or_default();
            crate::note!("purged {id} ({name}): {reason}");
            purged_ids.push(id.clone());
        }
        for (id, why) in report.skipped.iter().chain(&report.failed) {
            crate::note!("not purged {id}: {why}");
        }
    }
    let record = &started.record;
    if args.json {
        output::print_json(&json!({
            "id": record.id,
            "name": record.name,
            "path": record.path,
            "workspace": SessionPaths::new(&record.path).workspace(),
            "created_at": record.created_at,
            "purged": purged_ids,
        }))
    } else {
        output::print_lines([record.id.to_string()])
    }
}

/// What stderr says when no terminal could be asked and `--yes` was not
/// given: the stale sessions left, and the commands that purge them.
fn left_unpurged(plan: &PurgePlan, flags: &str) -> String {
    let count = plan.removals().count() as u64;
    format!(
        "left {} ({}) that a purge would remove: no terminal to ask and no --yes; \
         see them with `loki-sessions purge{flags} --dry-run`, remove them with \
         `loki-sessions purge{flags} --yes` (or `new --yes` next time)",
        humanize::plural(count, "stale session"),
        humanize::bytes(plan.bytes_freed())
    )
}

/// The purge policy flags given to `new`, to repeat them in a suggestion.
fn policy_flags(args: &NewArgs) -> String {
    let mut flags = String::new();
    if let Some(keep) = args.keep {
        flags.push_str(&format!(" --keep {keep}"));
    }
    if let Some(age) = &args.max_age {
        flags.push_str(&format!(
            " --max-age {}",
            shlex::try_quote(age).unwrap_or_default()
        ));
    }
    flags
}

/// What a purge before `new` would remove: how many, the first few with
/// their reasons, and the bytes.
fn purge_summary(plan: &PurgePlan, now: f64) -> Vec<String> {
    const SHOWN: usize = 5;
    let count = plan.removals().count();
    let mut lines = vec![format!(
        "Starting a session purges stale ones first: {count} would be removed ({}):",
        humanize::bytes(plan.bytes_freed())
    )];
    for entry in plan.removals().take(SHOWN) {
        let r = &entry.candidate.record;
        lines.push(format!(
            "  {}  {}  last used {}  ({})",
            humanize::truncate(&r.name, 36),
            humanize::bytes(entry.candidate.bytes),
            humanize::ago(r.last_used_at, now),
            entry.decision
        ));
    }
    if count > SHOWN {
        lines.push(format!("  … and {} more", count - SHOWN));
    }
    lines
}
