//! Running a resume command (`--exec` or `resume_command`, or another
//! agent's own: `claude --resume {id}`, overridable in `[resume]`) safely:
//! the template is split into words first, then `{id}`, `{workspace}` (or
//! `{cwd}`) and `{path}` are replaced inside each word, and the program
//! runs without a shell. A value holding `; rm -rf ~` stays one harmless
//! argument.

use crate::cli::{CliEnv, CliError};
use crate::store::Target;
use std::path::Path;
use std::process::Command;

/// The argv for `template` with the placeholders filled in.
pub fn argv(
    template: &str,
    id: &str,
    workspace: &str,
    path: &str,
) -> Result<Vec<String>, CliError> {
    let words = shlex::split(template).ok_or_else(|| {
        CliError::usage(format!(
            "cannot parse the resume command {template:?} (unbalanced quotes?)"
        ))
    })?;
    if words.is_empty() {
        return Err(CliError::usage("the resume command is empty"));
    }
    Ok(words
        .into_iter()
        .map(|w| {
            w.replace("{id}", id)
                .replace("{workspace}", workspace)
                .replace("{cwd}", workspace)
                .replace("{path}", path)
        })
        .collect())
}

/// Runs the command and returns its exit code.
pub fn run(argv: &[String]) -> Result<u8, CliError> {
    run_in(argv, None)
}

/// Runs the command in `dir` (or here) and returns its exit code.
pub fn run_in(argv: &[String], dir: Option<&Path>) -> Result<u8, CliError> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| CliError::usage("the resume command is empty"))?;
    let mut command = Command::new(program);
    command.args(args);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let status = command
        .status()
        .map_err(|e| CliError::usage(format!("cannot run {program:?}: {e}")))?;
    Ok(status.code().map_or(1, |c| c.clamp(0, 255) as u8))
}

/// Another agent's resume command for `target`, and the folder it runs in:
/// the config's `[resume]` entry for the agent, else the agent's own
/// (`claude --resume {id}`, `codex resume {id}`, `gemini --resume {id}`).
/// None for Loki and peteos sessions.
pub fn agent_argv(
    env: &CliEnv,
    target: &Target,
) -> Result<Option<(Vec<String>, std::path::PathBuf)>, CliError> {
    let agent = target.record.agent;
    let configured = env
        .config
        .resume
        .as_ref()
        .and_then(|by_agent| by_agent.get(agent.name()).cloned());
    let Some(template) = configured.or_else(|| agent.default_resume_command().map(str::to_string))
    else {
        return Ok(None);
    };
    let dir = target.workspace();
    let argv = argv(
        &template,
        &target.record.id,
        &dir.to_string_lossy(),
        &target.record.path.to_string_lossy(),
    )?;
    Ok(Some((argv, dir)))
}

/// `cd DIR && PROGRAM ARGS…`, each word quoted for a POSIX shell.
pub fn shell_line(argv: &[String], dir: &Path) -> String {
    let words: Vec<String> = argv.iter().map(|w| quote(w)).collect();
    format!("{} && {}", cd_line(dir), words.join(" "))
}

/// `cd DIR`, quoted for a POSIX shell.
pub fn cd_line(dir: &Path) -> String {
    format!("cd {}", quote(&dir.to_string_lossy()))
}

fn quote(word: &str) -> String {
    shlex::try_quote(word).map_or_else(|_| format!("'{word}'"), |q| q.into_owned())
}

/// Resumes another agent's session: runs its command in the folder it
/// worked in (which must still be there), passing its exit code on.
pub fn resume_agent(argv: &[String], dir: &Path) -> Result<(), CliError> {
    if !dir.is_dir() {
        return Err(CliError::usage(format!(
            "the folder this session worked in, {}, is not there; resume it by hand: {}",
            dir.display(),
            argv.join(" ")
        )));
    }
    match run_in(argv, Some(dir))? {
        0 => Ok(()),
        code => Err(CliError {
            code,
            message: String::new(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_cannot_inject_shell_syntax() {
        let evil = "x; touch /tmp/pwned $(id) `id` ' \"";
        let argv = argv("code --goto '{workspace}/main.rs' {id}", evil, "/w s", "/p").unwrap();
        assert_eq!(argv, vec!["code", "--goto", "/w s/main.rs", evil]);
        assert!(super::argv("echo 'unbalanced", "a", "b", "c").is_err());
        assert!(super::argv("   ", "a", "b", "c").is_err());
    }

    #[test]
    fn a_real_command_gets_the_value_as_one_inert_argument() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let evil = format!(
            "x; touch {0}/pwned $(touch {0}/pwned2) `touch {0}/pwned3`",
            dir.path().display()
        );
        let template = format!("sh -c 'printf %s \"$1\" > {}' sh {{id}}", out.display());
        let argv = argv(&template, &evil, "/w", "/p").unwrap();
        assert_eq!(run(&argv).unwrap(), 0);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), evil);
        for name in ["pwned", "pwned2", "pwned3"] {
            assert!(
                !dir.path().join(name).exists(),
                "{name} was created: injection"
            );
        }
    }
}
