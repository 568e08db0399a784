//! `loki-sessions delete SESSION [--yes] [--damaged] [--json]`: one session,
//! with every safety rule of a purge.

use crate::cli::ask;
use crate::cli::output;
use crate::cli::{CliEnv, CliError};
use crate::humanize;
use crate::store::{Decision, KeepReason, RemoveReason};
use clap::Args;
use serde_json::json;

/// Arguments of `delete`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  loki-sessions delete fix-the-login-bug\n  loki-sessions delete 20261129-3f0c2a9e --yes --json\n  loki-sessions delete ./session/20261101-broken --damaged\nA session an agent has open (is_active) is never deleted; a damaged one only with --damaged."
)]
pub struct DeleteArgs {
    /// The session: an id, a unique id prefix, a name, a unique name prefix, or a path (a name several sessions share is refused).
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
    env.store.check_deletable(&target)?;
    // An archived session (its agent deleted it) goes from the archive.
    let to_trash = target.record.agent.is_external() && !target.record.archived;
    let r = &target.record;
    // What the deletion would do, asked before the person is: a session it
    // would spare is refused with the reason, never asked about first.
    let plan = env.store.delete_preview(&target, env.now, args.damaged);
    let Some(entry) = plan.entries.first() else {
        return Err(CliError::usage(format!("{} cannot be deleted", r.id)));
    };
    if let Decision::Keep(reason) = &entry.decision {
        let hint = match reason {
            KeepReason::Unreadable { .. } | KeepReason::UnreadableConversation { .. } => {
                "\nTo delete it anyway (its files are removed unread), pass --damaged"
            }
            _ => "",
        };
        return Err(CliError::usage(format!(
            "{} cannot be deleted: {reason}{hint}",
            r.id
        )));
    }
    let damage = match &entry.decision {
        Decision::Remove(RemoveReason::RequestedDamaged { error }) => Some(error.clone()),
        _ => None,
    };
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
                humanize::bytes(entry.candidate.bytes),
                humanize::ago(r.last_used_at, env.now)
            ),
        ];
        if let Some(error) = &damage {
            lines.push(format!("damaged    {error}"));
        }
        if let Some(seconds) = to_trash
            .then(|| crate::store::changed_recently(r, env.now))
            .flatten()
        {
            lines.push(format!(
                "changed    {seconds} s ago; no other process has it open, so {} is not writing to it now",
                r.agent.display_name()
            ));
        }
        let question = if to_trash {
            "Delete this session? It goes to the trash: `loki-sessions restore` brings it back."
        } else if target.record.archived {
            "Delete this session from the archive? Its agent deleted it already: it is gone for good."
        } else {
            "Delete this session? It cannot be undone."
        };
        if !ask::yes_or_no(&lines, question)? {
            return Err(CliError::nothing("nothing deleted"));
        }
    }
    let report = env.store.delete(&target, env.now, args.damaged)?;
    if let Some((_, why)) = report.skipped.first().or(report.failed.first()) {
        return Err(CliError::usage(format!("{} was not deleted: {why}", r.id)));
    }
    if to_trash {
        let bytes = entry.candidate.bytes;
        return if args.json {
            output::print_json(&json!({
                "deleted": r.id, "name": r.shown_name(), "path": r.path, "bytes_freed": 0,
                "trashed": true, "bytes": bytes,
            }))
        } else {
            output::print_lines([format!(
                "moved {} session {} ({}, {}) to the trash; `loki-sessions restore {}` brings it back",
                r.agent.display_name(),
                r.id,
                r.shown_name(),
                humanize::bytes(bytes),
                r.id
            )])
        };
    }
    if args.json {
        output::print_json(&json!({
            "deleted": r.id, "name": r.name, "path": r.path, "bytes_freed": report.bytes_freed,
            "trashed": false,
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
