//! `loki-sessions move SESSION --to DIR [--dry-run] [--json]`: another
//! agent's session moved where its project went, so the agent finds it
//! there again (the old one goes to the trash; `restore` brings it back).

use crate::cli::output;
use crate::cli::{CliEnv, CliError, completions};
use crate::humanize;
use clap::Args;
use clap_complete::engine::ArgValueCandidates;
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `move`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  loki-sessions move fix-the-login-bug --to ~/src/new-home --dry-run
  loki-sessions move 0a8f5c1e --to \"$PWD\"
  loki-sessions resume 0a8f5c1e --print command    now runs in the new folder

Claude Code keeps a project's sessions in a folder named after the
project's path, and Codex records the folder in the session: after a
project folder moves, the agent no longer offers its sessions there. This
writes the session again for DIR (Claude Code: into DIR's project folder,
with its subagents; every line's folder changed, every other byte kept)
and moves the old one to the trash. Gemini CLI's sessions are not moved.")]
pub struct MoveArgs {
    /// The session: an id, a unique id prefix, a name, a unique name prefix, or a path.
    #[arg(add = ArgValueCandidates::new(completions::session_candidates))]
    pub session: String,
    /// The folder the project is in now.
    #[arg(long, value_name = "DIR")]
    pub to: PathBuf,
    /// Say what would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Moves a session, or says what a move would do.
pub fn run(env: &CliEnv, args: MoveArgs) -> Result<(), CliError> {
    let to = std::path::absolute(&args.to)
        .map_err(|e| CliError::usage(format!("{}: {e}", args.to.display())))?;
    if !to.is_dir() {
        return Err(CliError::usage(format!(
            "{} is not a folder (move the project there first)",
            to.display()
        )));
    }
    let target = env.locate_exactly(&args.session)?;
    let (plan, trashed) = env
        .store
        .move_session(&target, &to, env.now, !args.dry_run)?;
    if args.json {
        return output::print_json(&json!({
            "id": plan.id,
            "agent": plan.agent,
            "from_folder": plan.from_folder,
            "to_folder": plan.to_folder,
            "from_file": plan.from_file,
            "to_file": plan.to_file,
            "lines_changed": plan.lines_changed,
            "files_written": plan.writes.len(),
            "dry_run": args.dry_run,
            "trash_entry": trashed,
        }));
    }
    let lines = humanize::plural(plan.lines_changed as u64, "line");
    let mut out = vec![format!(
        "{} {} from {} to {}: {lines} with the new folder, in {}",
        if args.dry_run { "would move" } else { "moved" },
        plan.id,
        plan.from_folder,
        plan.to_folder,
        plan.to_file.display()
    )];
    if let Some(entry) = trashed {
        out.push(format!(
            "the old one is in the trash (loki-sessions restore {entry} puts it back)"
        ));
    }
    output::print_lines(out)
}
