//! Running a resume command (`--exec` or `resume_command`, or another
//! agent's own: `claude --resume {id}`, overridable in `[resume]`) safely:
//! the template is split into words first, then `{id}`, `{workspace}` (or
//! `{cwd}`) and `{path}` are replaced inside each word, and the program
//! runs without a shell. A value holding `; rm -rf ~` stays one harmless
//! argument.

use crate::cli::{CliEnv, CliError};
use crate::store::Target;
use crate::store::safe_text::{is_unsafe, safe_line};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The placeholders of a template, each filled once.
const PLACEHOLDERS: [&str; 4] = ["{id}", "{workspace}", "{cwd}", "{path}"];

/// The argv for `template` with the placeholders filled in: each word is
/// scanned once, left to right, and a value put in is never scanned again
/// (an id `{path}` stays the text `{path}`).
pub fn argv(
    template: &str,
    id: &str,
    workspace: &str,
    path: &str,
) -> Result<Vec<String>, CliError> {
    let words = shlex::split(template).ok_or_else(|| {
        CliError::usage(format!(
            "cannot parse the resume command {:?} (unbalanced quotes?)",
            safe_line(template)
        ))
    })?;
    if words.is_empty() {
        return Err(CliError::usage("the resume command is empty"));
    }
    let values = [id, workspace, workspace, path];
    Ok(words.iter().map(|w| fill(w, &values)).collect())
}

/// `word` with each placeholder replaced by its value, in one pass.
fn fill(word: &str, values: &[&str; 4]) -> String {
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        rest = &rest[open..];
        match PLACEHOLDERS.iter().position(|p| rest.starts_with(p)) {
            Some(n) => {
                out.push_str(values[n]);
                rest = &rest[PLACEHOLDERS[n].len()..];
            }
            None => {
                out.push('{');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
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
        .map_err(|e| CliError::usage(format!("cannot run {:?}: {e}", safe_line(program))))?;
    Ok(status.code().map_or(1, |c| c.clamp(0, 255) as u8))
}

/// Another agent's resume command for `target`, and the folder it runs in:
/// the config's `[resume]` entry for the agent, else the agent's own
/// (`claude --resume={id}`, `codex resume -- {id}`, `gemini --resume={id}`).
/// None for Loki and peteos sessions. A folder recorded in the session must
/// be absolute and an existing directory, else the resume is refused.
pub fn agent_argv(
    env: &CliEnv,
    target: &Target,
) -> Result<Option<(Vec<String>, PathBuf)>, CliError> {
    agent_argv_from(env.config.resume.as_ref(), target)
}

/// [`agent_argv`] with the config's `[resume]` table given.
pub fn agent_argv_from(
    table: Option<&BTreeMap<String, String>>,
    target: &Target,
) -> Result<Option<(Vec<String>, PathBuf)>, CliError> {
    let agent = target.record.agent;
    let configured = table.and_then(|by_agent| by_agent.get(agent.name()).cloned());
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
    check_folder(&dir)?;
    Ok(Some((argv, dir)))
}

/// Refuses a recorded folder that is empty, not absolute (it would resolve
/// against wherever we were started, or read as an option of `cd`) or
/// holds a NUL. Whether it is there is asked only before running in it
/// ([`resume_agent`]): a printed command may be for where it will be.
fn check_folder(dir: &Path) -> Result<(), CliError> {
    let shown = safe_line(&dir.to_string_lossy()).into_owned();
    if dir.as_os_str().is_empty() {
        return Err(CliError::usage(
            "this session records an empty folder to work in; not resumed",
        ));
    }
    if !dir.is_absolute() {
        return Err(CliError::usage(format!(
            "the folder this session records, {shown:?}, is not an absolute path; not resumed"
        )));
    }
    if dir.as_os_str().as_encoded_bytes().contains(&0) {
        return Err(CliError::usage(format!(
            "the folder this session records, {shown:?}, holds a NUL; not resumed"
        )));
    }
    Ok(())
}

/// `cd DIR && PROGRAM ARGS…`, each word quoted for a POSIX shell.
pub fn shell_line(argv: &[String], dir: &Path) -> Result<String, CliError> {
    let words: Vec<String> = argv.iter().map(|w| quote(w)).collect::<Result<_, _>>()?;
    Ok(format!("{} && {}", cd_line(dir)?, words.join(" ")))
}

/// `cd DIR`, quoted for a POSIX shell.
pub fn cd_line(dir: &Path) -> Result<String, CliError> {
    Ok(format!("cd {}", quote(&dir.to_string_lossy())?))
}

/// `word` quoted for a POSIX shell, by a rule that cannot fail open: a
/// word of plain characters as it is, any other in single quotes (a `'`
/// as `'\''`). A word holding a control character (a NUL above all, which
/// no quoting carries) is refused: printed, it would act on a terminal.
pub fn quote(word: &str) -> Result<String, CliError> {
    if let Some(c) = word.chars().find(|&c| is_unsafe(c)) {
        return Err(CliError::usage(format!(
            "cannot print a shell command with the control character U+{:04X} in {:?}; resume it with `loki-sessions resume` instead",
            c as u32,
            safe_line(word)
        )));
    }
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b);
    if !word.is_empty() && word.bytes().all(plain) {
        return Ok(word.to_string());
    }
    Ok(format!("'{}'", word.replace('\'', "'\\''")))
}

/// Resumes another agent's session: runs its command in the folder it
/// worked in (which [`agent_argv`] checked, and which must be there now),
/// passing its exit code on.
pub fn resume_agent(argv: &[String], dir: &Path) -> Result<(), CliError> {
    if !dir.is_dir() {
        let shown = safe_line(&dir.to_string_lossy()).into_owned();
        let by_hand = shell_line(argv, dir).map_or_else(
            |_| String::new(),
            |line| format!("; resume it by hand: {line}"),
        );
        return Err(CliError::usage(format!(
            "the folder this session worked in, {shown}, is not there{by_hand}"
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
    fn placeholders_are_filled_once() {
        let filled = argv("x {id} {path}{id} {nope} {", "{path}", "/w", "/p").unwrap();
        assert_eq!(filled, vec!["x", "{path}", "/p{path}", "{nope}", "{"]);
        let filled = argv("x {workspace}", "i", "{id}", "/p").unwrap();
        assert_eq!(filled, vec!["x", "{id}"]);
    }

    #[test]
    fn the_quoter_cannot_fail_open() {
        assert_eq!(quote("plain-1.2/x").unwrap(), "plain-1.2/x");
        assert_eq!(quote("").unwrap(), "''");
        assert_eq!(quote("a b").unwrap(), "'a b'");
        assert_eq!(quote("it's").unwrap(), "'it'\\''s'");
        for bad in ["a\0b", "a\nb", "a\x1b]0;x\x07", "a\u{9b}", "a\u{202e}"] {
            assert!(quote(bad).is_err(), "{bad:?}");
        }
        // What the shell makes of a quoted word is the word.
        for word in ["$(touch x)", "`id`", "a'b\"c", "; rm -rf ~", "~", "*"] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {}", quote(word).unwrap()))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), word);
        }
    }

    #[test]
    fn a_folder_to_run_in_must_be_absolute_and_there() {
        for bad in ["", "-P", "../../../../etc", "rel/dir"] {
            assert!(check_folder(Path::new(bad)).is_err(), "{bad:?}");
        }
        let here = tempfile::tempdir().unwrap();
        assert!(check_folder(here.path()).is_ok());
        let argv = vec!["true".to_string()];
        let gone = resume_agent(&argv, &here.path().join("gone")).unwrap_err();
        assert!(
            gone.message.contains("resume it by hand: cd "),
            "{}",
            gone.message
        );
        assert!(resume_agent(&argv, here.path()).is_ok());
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
