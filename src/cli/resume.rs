//! `loki-sessions resume SESSION [--print workspace|id|path]`.

use crate::cli::output;
use crate::cli::{CliEnv, CliError, PrintWhat};
use crate::store::locate::Target;
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
    let target = env.source.locate(&args.session)?;
    env.source.resume(&target, env.now)?;
    output::print_lines([printed(&target, args.print)])
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
