//! `loki-sessions --host NAME pull SESSION [--to DIR] [--dry-run] [--json]`:
//! a Claude Code or Codex session of another machine copied here, where
//! its agent looks for it, its folder moved to where the project is on
//! this machine; and `pack SESSION`, which the host runs for it (hidden:
//! the stream is for `pull`, not for people).

use crate::cli::output;
use crate::cli::{CliEnv, CliError};
use crate::hosts::{self, Host};
use crate::humanize;
use clap::Args;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `pull`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  loki-sessions --host dev list --agent claude
  loki-sessions --host dev pull 0a8f5c1e --dry-run
  loki-sessions --host dev pull 0a8f5c1e --to ~/src/api
  loki-sessions resume 0a8f5c1e    then resumes it here

The session's own files come over ssh (a Claude Code session with its
subagents), are checked, and are written where the agent looks for them
here; nothing there changes. When the project is in another folder here,
--to names it and every line's folder is moved, as `move` does. A session
already here is never written over. Gemini CLI's sessions are not pulled.")]
pub struct PullArgs {
    /// The session there: its id, a unique id prefix, or a name.
    pub session: String,
    /// The folder the project is in on this machine (default: the folder
    /// it was worked in there, if this machine has it).
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,
    /// Say what would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `pack`.
#[derive(Debug, Args)]
pub struct PackArgs {
    /// The session.
    pub session: String,
}

/// Prints the stream `pull` reads: the session's files, read only.
pub fn pack(env: &CliEnv, args: &PackArgs) -> Result<(), CliError> {
    let target = env.locate_exactly(&args.session)?;
    let pack = env.store.pack_session(&target)?;
    let mut out = std::io::stdout().lock();
    out.write_all(&pack.to_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| CliError::usage(format!("cannot write the pack: {e}")))
}

/// Copies the session from the one host named.
pub fn run(
    env: &CliEnv,
    args: &PullArgs,
    chosen: &[Host],
    deadline: std::time::Duration,
) -> Result<(), CliError> {
    let [host] = chosen else {
        return Err(CliError::usage(
            "pull copies from one machine: name one host (--host NAME)",
        ));
    };
    if host.is_local() {
        return Err(CliError::usage(
            "pull copies from another machine: name a host of [hosts], not local",
        ));
    }
    let pack = hosts::fetch_pack(host, &args.session, deadline)
        .map_err(|why| CliError::usage(format!("host {}: {why}", host.name)))?;
    let to = match &args.to {
        Some(dir) => std::path::absolute(dir)
            .map_err(|e| CliError::usage(format!("{}: {e}", dir.display())))?,
        None => PathBuf::from(&pack.cwd),
    };
    let plan = env.store.pull_session(&pack, &to, !args.dry_run)?;
    if args.json {
        return output::print_json(&json!({
            "host": host.name,
            "id": plan.id,
            "agent": plan.agent,
            "from_folder": plan.from_folder,
            "to_folder": plan.to_folder,
            "to_file": plan.to_file,
            "lines_changed": plan.lines_changed,
            "files_written": plan.writes.len(),
            "bytes": plan.bytes,
            "dry_run": args.dry_run,
        }));
    }
    let moved = if plan.lines_changed == 0 {
        format!("in {}", plan.to_folder)
    } else {
        format!(
            "moved from {} to {} ({})",
            plan.from_folder,
            plan.to_folder,
            humanize::plural(plan.lines_changed as u64, "line")
        )
    };
    let mut lines = vec![format!(
        "{} {} session {} from {}: {}, {}, {moved}",
        if args.dry_run { "would pull" } else { "pulled" },
        plan.agent.display_name(),
        plan.id,
        host.name,
        humanize::plural(plan.writes.len() as u64, "file"),
        humanize::bytes(plan.bytes),
    )];
    lines.push(format!("  into {}", plan.to_file.display()));
    if !args.dry_run {
        lines.push(format!("resume it here: loki-sessions resume {}", plan.id));
    }
    output::print_lines(lines)
}
