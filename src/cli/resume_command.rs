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
