//! `loki-sessions import SESSION_DIR [--json]`.

use crate::cli::output;
use crate::cli::{CliEnv, CliError};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `import`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  loki-sessions import ~/.peteos/sessions/20261129-3f0c2a54-…")]
pub struct ImportArgs {
    /// A peteos session directory (holding session.json); it is only read.
    pub session_dir: PathBuf,
    /// Print the new session as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Copies a peteos session into a new Loki session and prints its id.
pub fn run(env: &CliEnv, args: ImportArgs) -> Result<(), CliError> {
    let record = env.store.import(&args.session_dir, env.now)?;
    if args.json {
        output::print_json(&json!({
            "id": record.id, "name": record.name, "path": record.path,
            "first_prompt": record.first_prompt, "created_at": record.created_at,
        }))
    } else {
        output::print_lines([record.id])
    }
}
