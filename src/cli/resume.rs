//! `loki-sessions resume SESSION [--print workspace|id|path]`.

use crate::cli::output;
use crate::cli::{CliEnv, CliError, PrintWhat};
use crate::store::LokiStore;
use crate::store::locate::{self, Target};
use clap::Args;

/// Arguments of `resume`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  cd \"$(loki-sessions resume 20261129-3f)\"\n  loki-sessions resume ./session/20261129-3f0c --print id"
)]
pub struct ResumeArgs {
    /// An id, a unique id prefix, or a path to a session directory.
    pub session: String,
    /// What to print.
    #[arg(long, value_enum, default_value = "workspace")]
    pub print: PrintWhat,
}

/// Touches the session and prints what was asked for.
pub fn run(env: &CliEnv, args: ResumeArgs) -> Result<(), CliError> {
    let target = locate::locate_in_loki(&env.store, &args.session)?;
    touch(&target, env.now)?;
    output::print_lines([printed(&target, args.print)])
}

/// Sets `last_used_at` of a Loki session under its lock (bare peteos
/// sessions have no meta.json, and resuming them writes nothing).
pub fn touch(target: &Target, now: f64) -> Result<(), CliError> {
    if target.is_loki {
        LokiStore::touch_at(target.lock_dir(), now)?;
    }
    Ok(())
}

/// The line `--print` asks for.
pub fn printed(target: &Target, what: PrintWhat) -> String {
    let path = match what {
        PrintWhat::Id => return target.record.id.clone(),
        PrintWhat::Path => target.record.path.clone(),
        PrintWhat::Workspace => target.workspace(),
    };
    path.to_string_lossy().into_owned()
}
