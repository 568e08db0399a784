//! A session moved where its project went. When a person moves or renames
//! a project's folder, the agent no longer finds its sessions there:
//! Claude Code keeps them in a folder named after the project's path
//! (`projects/<the path, every character but letters, digits and '-' as
//! '-'>/`), and records the folder in every line's `cwd`; Codex records it
//! in the rollout's `session_meta.cwd` (and each turn's `turn_context`).
//! A move writes the session again as the agent would have for the new
//! folder (a new file; for Claude Code in the new project's folder, with
//! its side folder), then moves the old one into our trash, where
//! `restore` finds it. Each line keeps every byte but its folder (Claude
//! Code) or is written again with only that value changed (Codex). Gemini
//! CLI files a session under a project id kept in its own registry, which
//! is not written here: a move of one is refused, saying so.

use crate::store::error::{Result, StoreError};
use crate::store::fs::atomic;
use crate::store::sources::agent::Agent;
use crate::store::sources::jsonl::fields::{replace_values, string_value, top_level_values};
use crate::store::sources::jsonl::{self, split_lines};
use crate::store::sources::provider::MoveLayout;
use crate::store::sources::record::SessionRecord;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What a move writes: each new file with its bytes, and what it changes.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MovePlan {
    /// The session moved.
    pub id: String,
    /// Whose.
    pub agent: Agent,
    /// The folder the session was worked in.
    pub from_folder: String,
    /// The folder it moves to.
    pub to_folder: String,
    /// The session's file now.
    pub from_file: PathBuf,
    /// Its file after the move.
    pub to_file: PathBuf,
    /// Lines whose folder is rewritten.
    pub lines_changed: usize,
    /// Every file written, and its bytes (not serialized).
    #[serde(skip)]
    pub writes: Vec<(PathBuf, Vec<u8>)>,
}

/// Claude Code's name for a project's folder: its path, every character
/// but ASCII letters, digits and `-` made `-`.
pub fn claude_project_name(folder: &str) -> String {
    folder
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The move of `record` to `to` (an absolute folder), planned: nothing is
/// written. Refused for a session without a recorded folder, for a folder
/// that is not absolute, and for Gemini CLI's, Loki's and peteos' sessions.
pub fn plan(record: &SessionRecord, to: &Path) -> Result<MovePlan> {
    let refused = |why: &str| {
        Err(StoreError::Unsupported(format!(
            "{} sessions are not moved: {why}",
            record.agent.display_name()
        )))
    };
    let claude = match record.agent.provider().move_layout() {
        Ok(layout) => layout == MoveLayout::ProjectFolder,
        Err(why) => return refused(why),
    };
    if let Some(error) = &record.error {
        return Err(StoreError::Damaged(format!(
            "session {} is damaged and is not moved: {error}",
            record.id
        )));
    }
    let Some(to_folder) = to.to_str().filter(|_| to.is_absolute()) else {
        return Err(StoreError::Invalid(format!(
            "{} is not an absolute folder name",
            to.display()
        )));
    };
    let to_folder = to_folder.trim_end_matches('/').to_string();
    let Some(from_folder) = record.cwd.clone().filter(|c| !c.is_empty()) else {
        return Err(StoreError::Invalid(format!(
            "session {} records no folder, so there is nothing to move",
            record.id
        )));
    };
    if from_folder.trim_end_matches('/') == to_folder {
        return Err(StoreError::Invalid(format!(
            "session {} is already in {to_folder}",
            record.id
        )));
    }
    let bytes = jsonl::read(&record.path)?.bytes;
    let mut plan = MovePlan {
        id: record.id.to_string(),
        agent: record.agent,
        from_folder: from_folder.clone(),
        to_folder: to_folder.clone(),
        from_file: record.path.clone(),
        to_file: record.path.clone(),
        lines_changed: 0,
        writes: Vec::new(),
    };
    let moved = |text: &str| moved_folder(text, &from_folder, &to_folder);
    if claude {
        let projects = record
            .conversation_dir
            .parent()
            .ok_or_else(|| StoreError::Invalid("no projects folder".into()))?;
        let folder = projects.join(claude_project_name(&to_folder));
        let name = record.path.file_name().unwrap_or_default();
        plan.to_file = folder.join(name);
        let (new, changed) = claude_lines(&bytes, &moved);
        plan.lines_changed = changed;
        plan.writes.push((plan.to_file.clone(), new));
        // The side folder (subagents, large tool outputs) goes along.
        let side = record.conversation_dir.join(record.id.as_str());
        for file in crate::store::fs::disk::files_below(&side) {
            let Ok(rel) = file.strip_prefix(&side) else {
                continue;
            };
            let data = if file.extension().is_some_and(|e| e == "jsonl") {
                let (new, changed) = claude_lines(&jsonl::read(&file)?.bytes, &moved);
                plan.lines_changed += changed;
                new
            } else {
                std::fs::read(&file).map_err(|e| StoreError::io("read", &file, e))?
            };
            plan.writes
                .push((folder.join(record.id.as_str()).join(rel), data));
        }
    } else {
        let (new, changed) = codex_lines(&bytes, &moved);
        plan.lines_changed = changed;
        plan.writes.push((plan.to_file.clone(), new));
    }
    if plan.lines_changed == 0 {
        return Err(StoreError::Invalid(format!(
            "no line of session {} names {from_folder}",
            record.id
        )));
    }
    Ok(plan)
}

/// `text` with the folder `from` (or a folder inside it) made `to`'s.
pub(crate) fn moved_folder(text: &str, from: &str, to: &str) -> Option<String> {
    let from = from.trim_end_matches('/');
    if text == from {
        return Some(to.to_string());
    }
    text.strip_prefix(from)
        .filter(|rest| rest.starts_with('/'))
        .map(|rest| format!("{to}{rest}"))
}

/// Claude Code's lines with each `cwd` moved, every other byte kept; and
/// how many changed.
pub(crate) fn claude_lines(
    bytes: &[u8],
    moved: &dyn Fn(&str) -> Option<String>,
) -> (Vec<u8>, usize) {
    let spans = every_line(bytes);
    let mut out = Vec::with_capacity(bytes.len());
    let mut changed = 0;
    for span in &spans {
        let start = span.offset as usize;
        let line = &bytes[start..start + span.len as usize];
        let fields = top_level_values(line);
        let new_cwd = fields
            .as_ref()
            .and_then(|f| string_value(line, f, "cwd"))
            .and_then(|cwd| moved(&cwd));
        match (fields, new_cwd) {
            (Some(fields), Some(cwd)) => {
                let json = serde_json::to_string(&cwd).expect("a string serializes");
                out.extend_from_slice(&replace_values(line, &fields, &[("cwd", json)]));
                changed += 1;
            }
            _ => out.extend_from_slice(line),
        }
        out.extend_from_slice(jsonl::ending(bytes, span));
    }
    (out, changed)
}

/// A Codex rollout with `session_meta.cwd` and each `turn_context.cwd`
/// moved (those lines written again, the others kept byte for byte).
pub(crate) fn codex_lines(
    bytes: &[u8],
    moved: &dyn Fn(&str) -> Option<String>,
) -> (Vec<u8>, usize) {
    let spans = every_line(bytes);
    let mut out = Vec::with_capacity(bytes.len());
    let mut changed = 0;
    for span in &spans {
        let start = span.offset as usize;
        let line = &bytes[start..start + span.len as usize];
        let rewritten = serde_json::from_slice::<Value>(line)
            .ok()
            .and_then(|mut v| {
                let kind = v.get("type")?.as_str()?;
                if kind != "session_meta" && kind != "turn_context" {
                    return None;
                }
                let cwd = v.get("payload")?.get("cwd")?.as_str()?;
                let new = moved(cwd)?;
                v["payload"]["cwd"] = Value::String(new);
                serde_json::to_vec(&v).ok()
            });
        match rewritten {
            Some(new) => {
                out.extend_from_slice(&new);
                changed += 1;
            }
            None => out.extend_from_slice(line),
        }
        out.extend_from_slice(jsonl::ending(bytes, span));
    }
    (out, changed)
}

/// Every line of `bytes`, a last one without its newline too: a move
/// loses no byte of the session.
fn every_line(bytes: &[u8]) -> Vec<jsonl::LineSpan> {
    let (mut spans, partial) = split_lines(bytes, 0, 1);
    if partial {
        let line = 1 + memchr::memchr_iter(b'\n', bytes).count() as u32;
        spans.push(jsonl::tail_span(bytes, 0, line));
    }
    spans
}

/// Writes what `plan` says (each file created, never over one), then
/// `retire` moves the old session away (into the trash); a retire that
/// fails takes back what was written. A Codex rollout keeps its name: the
/// new one is written beside it under a temporary name and takes the name
/// once the old one is gone.
pub fn apply(plan: &MovePlan, retire: &dyn Fn() -> Result<String>) -> Result<String> {
    let same_place = plan.to_file == plan.from_file;
    for (path, _) in &plan.writes {
        if !same_place && std::fs::symlink_metadata(path).is_ok() {
            return Err(StoreError::Exists { path: path.clone() });
        }
    }
    let mut written: Vec<PathBuf> = Vec::new();
    let undo = |written: &[PathBuf]| {
        for p in written {
            let _ = std::fs::remove_file(p);
        }
    };
    for (path, bytes) in &plan.writes {
        let target = if same_place && *path == plan.to_file {
            staged(path)
        } else {
            path.clone()
        };
        if let Some(parent) = target.parent()
            && let Err(e) = std::fs::create_dir_all(parent)
        {
            undo(&written);
            return Err(StoreError::io("create", parent, e));
        }
        if let Err(e) = atomic::create_new_atomic(&target, bytes) {
            undo(&written);
            return Err(e);
        }
        written.push(target);
    }
    let entry = match retire() {
        Ok(entry) => entry,
        Err(e) => {
            undo(&written);
            return Err(e);
        }
    };
    if same_place {
        let staged = staged(&plan.to_file);
        std::fs::hard_link(&staged, &plan.to_file)
            .and_then(|()| std::fs::remove_file(&staged))
            .map_err(|e| {
                StoreError::Invalid(format!(
                    "the moved session is in {} and the old one in the trash (entry {entry}); it could not take its name back: {e}",
                    staged.display()
                ))
            })?;
    }
    Ok(entry)
}

/// Where a file that will take `path`'s name waits (hidden: nobody's session).
fn staged(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.moving-{}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_move_with_what_is_inside_them_and_nothing_else() {
        let m = |t: &str| moved_folder(t, "/home/ann/app", "/srv/app");
        assert_eq!(m("/home/ann/app").as_deref(), Some("/srv/app"));
        assert_eq!(m("/home/ann/app/web").as_deref(), Some("/srv/app/web"));
        assert_eq!(m("/home/ann/apple"), None);
        assert_eq!(m("/tmp"), None);
        assert_eq!(
            claude_project_name("/home/ann/my_app.v2"),
            "-home-ann-my-app-v2"
        );
    }

    #[test]
    fn claude_lines_keep_every_byte_but_their_folder() {
        let text = "{\"type\":\"user\",\"cwd\":\"/home/ann/app\",\"n\":1.50}\r\n{\"type\":\"summary\"}\n{\"cwd\":\"/home/ann/app/web\"}";
        let (out, changed) = claude_lines(text.as_bytes(), &|t| {
            moved_folder(t, "/home/ann/app", "/srv/app")
        });
        assert_eq!(changed, 2);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"type\":\"user\",\"cwd\":\"/srv/app\",\"n\":1.50}\r\n{\"type\":\"summary\"}\n{\"cwd\":\"/srv/app/web\"}\r\n"
        );
    }
}
