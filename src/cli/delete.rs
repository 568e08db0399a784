//! `loki-sessions delete SESSION [--yes] [--damaged] [--json]`: one session,
//! with every safety rule of a purge.

use crate::cli::ask;
use crate::cli::output;
use crate::cli::{CliEnv, CliError};
use crate::humanize;
use clap::Args;
use serde_json::json;

/// Arguments of `delete`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  loki-sessions delete fix-the-login-bug\n  loki-sessions delete 20261129-3f0c2a9e --yes --json\n  loki-sessions delete ./session/20261101-broken --damaged\nA session an agent has open (is_active) is never deleted; a damaged one only with --damaged."
)]
pub struct DeleteArgs {
    /// An id, a unique id prefix, or a path to a session directory.
    pub session: String,
    /// Delete without asking.
    #[arg(long)]
    pub yes: bool,
    /// Delete it although it cannot be read (its files are removed unread).
    #[arg(long)]
    pub damaged: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Deletes one session after saying what it is (and asking, on a terminal).
pub fn run(env: &CliEnv, args: DeleteArgs) -> Result<(), CliError> {
    let target = env.locate_exactly(&args.session)?;
    let r = &target.record;
    let stats = env
        .store
        .stats(std::slice::from_ref(r), None, &|_| {})
        .pop()
        .unwrap_or_default();
    if stats.is_active {
        return Err(CliError::usage(format!(
            "{} cannot be deleted: an agent has it open (is_active in {})",
            r.id,
            r.conversation_dir.join("session.json").display()
        )));
    }
    let damage = r.error.clone().or(stats.error.clone());
    if let (Some(error), false) = (&damage, args.damaged) {
        return Err(CliError::usage(format!(
            "session {} is damaged, so it is left as it is: {error}\nTo delete it anyway (its files are removed unread), pass --damaged",
            r.id
        )));
    }
    if !args.yes {
        if !ask::can_ask() {
            return Err(CliError::usage(
                "refusing to delete without confirmation: stdin is not a terminal; pass --yes",
            ));
        }
        let mut lines = vec![
            format!("{}  {}", r.id, r.name),
            format!("path       {}", r.path.display()),
            format!(
                "size       {}, last used {}",
                humanize::bytes(stats.bytes),
                humanize::ago(r.last_used_at, env.now)
            ),
        ];
        if let Some(error) = &damage {
            lines.push(format!("damaged    {error}"));
        }
        if !ask::yes_or_no(&lines, "Delete this session? It cannot be undone.")? {
            return Err(CliError::nothing("nothing deleted"));
        }
    }
    let report = env.store.delete(&target, env.now, args.damaged)?;
    if let Some((_, why)) = report.skipped.first().or(report.failed.first()) {
        return Err(CliError::usage(format!("{} was not deleted: {why}", r.id)));
    }
    if args.json {
        output::print_json(&json!({
            "deleted": r.id, "name": r.name, "path": r.path, "bytes_freed": report.bytes_freed,
        }))
    } else {
        output::print_lines([format!(
            "deleted {} ({}), freed {}",
            r.name,
            r.id,
            humanize::bytes(report.bytes_freed)
        )])
    }
}
