//! `loki-sessions resume SESSION [--print workspace|id|path | --exec CMD] [--json]`.

use crate::cli::output;
use crate::cli::{CliEnv, CliError, PrintWhat, completions, resume_command};
use crate::store::Target;
use clap::Args;
use clap_complete::engine::ArgValueCandidates;
use serde_json::json;

/// Arguments of `resume`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  cd \"$(loki-sessions resume fix-the-login-bug)\"\n  cd \"$(loki-sessions resume fix-the-log)\"         a unique name prefix\n  loki-sessions resume 20261129-3f0c2a9e --print path\n  loki-sessions resume fix-the-login-bug --exec 'code {workspace}'\n  loki-sessions resume . --json                       the session this folder is in"
)]
pub struct ResumeArgs {
    /// The session: an id, a unique id prefix, a name, a unique name prefix, or a path.
    #[arg(add = ArgValueCandidates::new(completions::session_candidates))]
    pub session: String,
    /// What to print [default: workspace]. Another agent's session is
    /// resumed by running its own command (`claude --resume ID` in its
    /// folder) unless something else is asked; `--print command` prints that
    /// command.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub print: Option<PrintWhat>,
    /// Run CMD instead of printing; {id}, {workspace}, {path} are replaced.
    #[arg(long, value_name = "CMD", conflicts_with_all = ["print", "json"])]
    pub exec: Option<String>,
    /// Print the resumed session as JSON (id, name, path, workspace).
    #[arg(long, conflicts_with = "print")]
    pub json: bool,
}

/// How a resume ends: a line printed, a command run, or JSON.
#[derive(Clone, Debug)]
pub enum ResumeOutput {
    /// Print this part of the session.
    Print(PrintWhat),
    /// Run this command template (`--exec`, `resume_command`).
    Exec(String),
    /// Print the session as JSON.
    Json,
    /// Nothing asked: a Loki session prints its workspace, another agent's
    /// resumes in the agent (its own command, in its folder).
    Usual,
}

/// The warning for a session a running agent has open.
pub const AGENT_OWNS: &str =
    "warning: an agent has this session open (is_active in session.json); it may be writing to it";

/// Touches the session, then prints or runs what was asked for. The
/// top-level `--print` and `--exec` (`top`) apply when `resume` has none of
/// its own.
pub fn run(env: &CliEnv, args: ResumeArgs, top: ResumeOutput) -> Result<(), CliError> {
    let output = match (args.exec, args.print, args.json) {
        (Some(template), _, _) => ResumeOutput::Exec(template),
        (None, Some(what), _) => ResumeOutput::Print(what),
        (None, None, true) => ResumeOutput::Json,
        (None, None, false) => top,
    };
    let target = env.locate(&args.session)?;
    env.store.resume(&target, env.now)?;
    if env.store.agent_owns(&target) {
        crate::note!("{AGENT_OWNS}");
    }
    finish(env, &target, &output)
}

/// What a resume does last, for `resume` and for Enter in the UI alike.
pub fn finish(env: &CliEnv, target: &Target, output: &ResumeOutput) -> Result<(), CliError> {
    match output {
        ResumeOutput::Usual => match resume_command::agent_argv(env, target)? {
            Some((argv, dir)) => resume_command::resume_agent(&argv, &dir),
            None => output::print_lines([printed(env, target, PrintWhat::Workspace)?]),
        },
        ResumeOutput::Print(what) => output::print_lines([printed(env, target, *what)?]),
        ResumeOutput::Json => output::print_json(&json!({
            "id": target.record.id,
            "name": target.record.name,
            "path": target.record.path,
            "workspace": target.workspace(),
        })),
        ResumeOutput::Exec(template) => {
            let argv = resume_command::argv(
                template,
                &target.record.id,
                &target.workspace().to_string_lossy(),
                &target.record.path.to_string_lossy(),
            )?;
            match resume_command::run(&argv)? {
                0 => Ok(()),
                code => Err(CliError {
                    code,
                    message: String::new(),
                }),
            }
        }
    }
}

/// The line `--print` asks for.
pub fn printed(env: &CliEnv, target: &Target, what: PrintWhat) -> Result<String, CliError> {
    let path = match what {
        PrintWhat::Id => return Ok(target.record.id.to_string()),
        PrintWhat::Path => target.record.path.clone(),
        PrintWhat::Workspace => target.workspace(),
        PrintWhat::Command => {
            return match resume_command::agent_argv(env, target)? {
                Some((argv, dir)) => resume_command::shell_line(&argv, &dir),
                // A Loki session resumes in its workspace.
                None => resume_command::cd_line(&target.workspace()),
            };
        }
    };
    exact_line(&path)
}

/// `path` as one line for `cd "$(…)"`: exact, or refused when it holds a
/// character a terminal acts on (printed made safe, it would be another
/// path; printed raw, it would act on the terminal).
fn exact_line(path: &std::path::Path) -> Result<String, CliError> {
    let text = path.to_string_lossy();
    let safe = crate::store::safe_text::safe_line(&text);
    if safe != text {
        return Err(CliError::usage(format!(
            "the path {safe} holds control characters, so it is not printed"
        )));
    }
    Ok(text.into_owned())
}
