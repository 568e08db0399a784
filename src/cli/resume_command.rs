//! Running a resume command (`--exec` or `resume_command`) safely: the
//! template is split into words first, then `{id}`, `{workspace}` and
//! `{path}` are replaced inside each word, and the program runs without a
//! shell. A value holding `; rm -rf ~` stays one harmless argument.

use crate::cli::CliError;
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
                .replace("{path}", path)
        })
        .collect())
}

/// Runs the command and returns its exit code.
pub fn run(argv: &[String]) -> Result<u8, CliError> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| CliError::usage("the resume command is empty"))?;
    let status = Command::new(program)
        .args(args)
        .status()
        .map_err(|e| CliError::usage(format!("cannot run {program:?}: {e}")))?;
    Ok(status.code().map_or(1, |c| c.clamp(0, 255) as u8))
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
}
