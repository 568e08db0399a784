//! What the UI asks before it ends to resume a session: the program a
//! resume would run must be installed and the folder it runs in there.
//! Asked after the UI ended, "No such file or directory" would cost the
//! person their place in the list for nothing.

use crate::cli::resume::ResumeOutput;
use crate::cli::resume_command::{self, agent_argv_from, shell_line};
use crate::store::Target;
use crate::store::safe_text::safe_line;
use crate::tui::model::ResumeBlocked;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Refuses, with the command to run by hand, a resume of `target` the way
/// `output` says that could not start: another agent's program not on
/// `PATH`, its folder gone, an `--exec` program missing. A resume that
/// prints runs nothing and is always fine.
pub fn check(
    table: Option<&BTreeMap<String, String>>,
    target: &Target,
    output: &ResumeOutput,
) -> Result<(), ResumeBlocked> {
    let refused = |why: String| ResumeBlocked { why, command: None };
    match output {
        ResumeOutput::Print(_) | ResumeOutput::Json => Ok(()),
        ResumeOutput::Usual => {
            let Some((argv, dir)) =
                agent_argv_from(table, target).map_err(|e| refused(e.message))?
            else {
                return Ok(());
            };
            let command = shell_line(&argv, &dir).ok();
            let blocked = |why: String| ResumeBlocked {
                why,
                command: command.clone(),
            };
            if find_program(&argv[0]).is_none() {
                return Err(blocked(format!(
                    "{} is not installed here (no {} on PATH)",
                    target.record.agent.display_name(),
                    safe_line(&argv[0])
                )));
            }
            if !dir.is_dir() {
                return Err(blocked(format!(
                    "the folder this session worked in, {}, is not there",
                    safe_line(&dir.to_string_lossy())
                )));
            }
            Ok(())
        }
        ResumeOutput::Exec(template) => {
            let argv = resume_command::argv(
                template,
                &target.record.id,
                &target.workspace().to_string_lossy(),
                &target.record.path.to_string_lossy(),
            )
            .map_err(|e| refused(e.message))?;
            if find_program(&argv[0]).is_some() {
                return Ok(());
            }
            let words: Option<Vec<String>> =
                argv.iter().map(|w| resume_command::quote(w).ok()).collect();
            Err(ResumeBlocked {
                why: format!(
                    "the resume command's program {} is not installed here",
                    safe_line(&argv[0])
                ),
                command: words.map(|w| w.join(" ")),
            })
        }
    }
}

/// Where `program` would be run from: itself when it names a path, else
/// the first executable file of that name in `PATH` (as `execvp` looks).
pub fn find_program(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let path = PathBuf::from(program);
        return is_executable(&path).then_some(path);
    }
    let search = std::env::var_os("PATH")?;
    std::env::split_paths(&search)
        .map(|dir| {
            // An empty entry means the folder we are in.
            if dir.as_os_str().is_empty() {
                PathBuf::from(".").join(program)
            } else {
                dir.join(program)
            }
        })
        .find(|path| is_executable(path))
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_as_exec_would_find_them() {
        assert!(find_program("sh").is_some());
        assert!(find_program("no-such-program-anywhere-4e1f").is_none());
        assert!(find_program("/bin/sh").is_some());
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "").unwrap();
        assert!(
            find_program(&plain.to_string_lossy()).is_none(),
            "not executable"
        );
        assert!(
            find_program(&dir.path().to_string_lossy()).is_none(),
            "a folder"
        );
    }
}
