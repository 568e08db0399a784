//! `loki-sessions new "<first prompt>" [--no-purge] [--json]`.

use crate::cli::output;
use crate::cli::{CliEnv, CliError};
use crate::store::SessionPaths;
use clap::Args;
use serde_json::json;

/// Arguments of `new`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  loki-sessions new \"Fix the login bug\"\n  cd \"$(loki-sessions new 'Refactor the parser' --json | jq -r .workspace)\""
)]
pub struct NewArgs {
    /// The first prompt; the session is named after it.
    pub prompt: String,
    /// Do not purge stale sessions first.
    #[arg(long)]
    pub no_purge: bool,
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

/// Starts a session; each purged session is reported on stderr.
pub fn run(env: &CliEnv, args: NewArgs) -> Result<(), CliError> {
    let policy = if args.no_purge {
        None
    } else {
        Some(env.policy(args.keep, args.max_age.as_deref())?)
    };
    let started = env.store.start(&args.prompt, policy, env.now)?;
    let mut purged_ids = Vec::new();
    if let Some((plan, report)) = &started.purged {
        for id in &report.removed {
            let entry = plan.entry(id);
            let name = entry.map_or("", |e| e.candidate.record.name.as_str());
            let reason = entry.map(|e| e.decision.to_string()).unwrap_or_default();
            eprintln!("purged {id} ({name}): {reason}");
            purged_ids.push(id.clone());
        }
        for (id, why) in report.skipped.iter().chain(&report.failed) {
            eprintln!("not purged {id}: {why}");
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
        output::print_lines([record.id.clone()])
    }
}
