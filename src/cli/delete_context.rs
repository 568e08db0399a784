//! `loki-sessions delete-context SESSION CONTEXT [--yes]`.

use crate::cli::{CliEnv, CliError, completions};
use crate::cli::{ask, output};
use crate::humanize;
use clap::Args;
use clap_complete::engine::ArgValueCandidates;

/// Arguments of `delete-context`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  loki-sessions delete-context fix-the-login-bug 20261129-8d1b
  loki-sessions delete-context fix-the-login-bug 20261129-8d1b --yes

Refused for the active context, for its ancestors, for a context that has
forks of its own, and for damaged sessions. Its parent's children list loses
it first, then its file is deleted, under the session's lock.")]
pub struct DeleteContextArgs {
    /// The session: an id, a unique id prefix, a name, a unique name prefix, or a path.
    #[arg(add = ArgValueCandidates::new(completions::session_candidates))]
    pub session: String,
    /// The context to delete: its id or a unique prefix of it.
    pub context: String,
    /// Delete without asking.
    #[arg(long)]
    pub yes: bool,
}

/// Deletes a context after asking (or with --yes).
pub fn run(env: &CliEnv, args: DeleteContextArgs) -> Result<(), CliError> {
    let target = env.locate(&args.session)?;
    env.store.check_writable(&target)?;
    let id = env.store.find_context(&target, &args.context)?;
    env.store.check_delete_context(&target, &id)?;
    if !args.yes {
        ask::confirm(
            &[],
            &format!("Delete context {id} of session {}?", target.record.id),
            "refusing to delete without confirmation: stdin is not a terminal; pass --yes",
            "nothing deleted",
        )?;
    }
    let deleted = env.store.delete_context(&target, &id)?;
    let parent = deleted
        .parent
        .map_or(String::new(), |p| format!(" (forked from {p})"));
    output::print_lines([format!(
        "deleted context {}{parent}: {}",
        deleted.id,
        humanize::plural(deleted.messages as u64, "message")
    )])
}
