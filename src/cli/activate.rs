//! `loki-sessions activate SESSION CONTEXT [--json]`.

use crate::cli::output;
use crate::cli::{CliEnv, CliError, completions};
use clap::Args;
use clap_complete::engine::ArgValueCandidates;

/// Arguments of `activate`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  loki-sessions contexts fix-the-login-bug
  loki-sessions activate fix-the-login-bug 20261129-8d1b      undo a trim: the parent again
  loki-sessions activate fix-the-login-bug 20261129-8d1b --json

Only session.json's active_context_id changes, under the session's lock,
after the context has been read.")]
pub struct ActivateArgs {
    /// The session: an id, a unique id prefix, a name, a unique name prefix, or a path.
    #[arg(add = ArgValueCandidates::new(completions::session_candidates))]
    pub session: String,
    /// The context to make active: its id or a unique prefix of it.
    pub context: String,
    /// Print `{session, active_context_id}` as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Makes a context active and prints its id.
pub fn run(env: &CliEnv, args: ActivateArgs) -> Result<(), CliError> {
    let target = env.locate(&args.session)?;
    env.store.check_writable(&target)?;
    let id = env.store.find_context(&target, &args.context)?;
    env.store.activate_context(&target, &id)?;
    if args.json {
        output::print_json(&serde_json::json!({
            "session": target.record.id,
            "active_context_id": id,
        }))
    } else {
        output::print_lines([id])
    }
}
