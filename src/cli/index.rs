//! `loki-sessions index [--rebuild] [--json]`: bring the search index up to
//! date (or build it again) and say what it holds.

use crate::cli::output::{self, Progress};
use crate::cli::{CliEnv, CliError};
use crate::humanize;
use clap::Args;
use serde_json::json;
use std::sync::Mutex;

/// Arguments of `index`.
#[derive(Debug, Args)]
#[command(
    after_help = "The index lives in $XDG_CACHE_HOME/loki-sessions/ (one per session folder); it is a cache, safe to delete.\n\nExamples:\n  loki-sessions index\n  loki-sessions index --rebuild --json"
)]
pub struct IndexArgs {
    /// Build it again from nothing.
    #[arg(long)]
    pub rebuild: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Updates the index and reports it.
pub fn run(env: &CliEnv, args: IndexArgs) -> Result<(), CliError> {
    let progress = Mutex::new(Progress::new("indexing sessions"));
    let show = |done: usize, total: usize| {
        if let Ok(mut p) = progress.lock() {
            p.update(done, total);
        }
    };
    let report = if args.rebuild {
        env.store.rebuild_index(env.now, &show)?
    } else {
        env.store.update_index(env.now, &show)?
    };
    if let Ok(mut p) = progress.lock() {
        p.finish();
    }
    let status = env.store.index_status();
    if let Some(note) = &report.note {
        crate::note!("note: {note}");
    }
    if args.json {
        return output::print_json(&json!({"status": status, "update": report}));
    }
    let path = status
        .path
        .as_ref()
        .map_or("-".into(), |p| p.display().to_string());
    output::print_lines([
        format!(
            "{}, {} indexed in {} ({})",
            humanize::plural(status.sessions as u64, "session"),
            humanize::plural(status.messages as u64, "message"),
            humanize::bytes(status.bytes),
            path
        ),
        format!(
            "read {} changed or new, removed {}, in {:.1} s{}",
            humanize::count(report.read as u64),
            humanize::count(report.removed as u64),
            report.seconds,
            status.built_at.map_or(String::new(), |t| format!(
                "; built {}",
                humanize::ago(t, env.now)
            ))
        ),
    ])
}
