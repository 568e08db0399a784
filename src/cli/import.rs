//! `loki-sessions import SESSION_DIR [--json]`.

use crate::cli::output;
use crate::cli::{CliEnv, CliError};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `import`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  loki-sessions import ~/.peteos/sessions/20261129-3f0c2a9e-8d1b-4c55-9e7a-2b6f0d4c1a7e\n  loki-sessions import ~/.peteos/sessions/20261129-3f0c2a9e-8d1b-4c55-9e7a-2b6f0d4c1a7e --again\n\nA session already imported (a Loki session whose memory/session.json has the\nsame uuid) is not copied twice: the command names the copy and exits 1."
)]
pub struct ImportArgs {
    /// A peteos session directory (holding session.json); it is only read.
    #[arg(value_hint = clap::ValueHint::DirPath)]
    pub session_dir: PathBuf,
    /// Copy it even if it was imported before (a second, separate copy).
    #[arg(long)]
    pub again: bool,
    /// Print the new session as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Copies a peteos session into a new Loki session and prints its id.
pub fn run(env: &CliEnv, args: ImportArgs) -> Result<(), CliError> {
    let record = env.store.import(&args.session_dir, args.again, env.now)?;
    if args.json {
        output::print_json(&json!({
            "id": record.id, "name": record.name, "path": record.path,
            "first_prompt": record.first_prompt, "created_at": record.created_at,
        }))
    } else {
        output::print_lines([record.id.into()])
    }
}
