//! `loki-sessions resume SESSION [--print workspace|id|path]`.

use crate::cli::output;
use crate::cli::{CliEnv, CliError, PrintWhat, completions, resume_command};
use crate::store::Target;
use clap::Args;
use clap_complete::engine::ArgValueCandidates;

/// Arguments of `resume`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  cd \"$(loki-sessions resume fix-the-login-bug)\"\n  cd \"$(loki-sessions resume fix-the-log)\"         a unique name prefix\n  loki-sessions resume 20261129-3f0c2a9e --print path\n  loki-sessions resume ./session/20261129-3f0c2a9e-8d1b-4c55-9e7a-2b6f0d4c1a7e --print id"
)]
pub struct ResumeArgs {
    /// The session: an id, a unique id prefix, a name, a unique name prefix, or a path.
    #[arg(add = ArgValueCandidates::new(completions::session_candidates))]
    pub session: String,
    /// What to print [default: workspace]. Another agent's session is
    /// resumed by running its own command (`claude --resume ID` in its
    /// folder) unless this is given; `--print command` prints that command.
    #[arg(long, value_enum)]
    pub print: Option<PrintWhat>,
}

/// The warning for a session a running agent has open.
pub const AGENT_OWNS: &str =
    "warning: an agent has this session open (is_active in session.json); it may be writing to it";

/// Touches the session and prints what was asked for.
pub fn run(env: &CliEnv, args: ResumeArgs) -> Result<(), CliError> {
    let target = env.locate(&args.session)?;
    env.store.resume(&target, env.now)?;
    if env.store.agent_owns(&target) {
        eprintln!("{AGENT_OWNS}");
    }
    if args.print.is_none()
        && let Some((argv, dir)) = resume_command::agent_argv(env, &target)?
    {
        return resume_command::resume_agent(&argv, &dir);
    }
    let line = printed(env, &target, args.print.unwrap_or(PrintWhat::Workspace))?;
    output::print_lines([line])
}

/// The line `--print` asks for.
pub fn printed(env: &CliEnv, target: &Target, what: PrintWhat) -> Result<String, CliError> {
    let path = match what {
        PrintWhat::Id => return Ok(target.record.id.clone()),
        PrintWhat::Path => target.record.path.clone(),
        PrintWhat::Workspace => target.workspace(),
        PrintWhat::Command => {
            return Ok(match resume_command::agent_argv(env, target)? {
                Some((argv, dir)) => resume_command::shell_line(&argv, &dir),
                // A Loki session resumes in its workspace.
                None => resume_command::shell_line(&[], &target.workspace())
                    .trim_end_matches(" && ")
                    .to_string(),
            });
        }
    };
    Ok(path.to_string_lossy().into_owned())
}
