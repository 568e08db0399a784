//! The Cursor CLI's transcripts: `~/.cursor/projects/<project>/
//! agent-transcripts/<id>/<id>.jsonl`, its subagents' in `<id>/subagents/`.
//! A transcript is the conversation only: each line a `{role, message:
//! {content: [blocks]}}` (`text`, `thinking`, `tool_use`), or a
//! `{type: "turn_ended", status}`. It holds no times, no model, no tokens
//! and no tool results (the CLI keeps those in its own database, not read
//! here), so a session's times are its file's and no usage is shown. Not
//! trimmed or moved here; a delete moves the transcript and its
//! subagents' to our trash.

pub mod provider;
mod transcript;

use crate::store::error::Result;
use crate::store::format::SessionId;
use crate::store::format::naming::name_from_prompt;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::{AgentRead, Opened, open_session, scan_files};
use crate::store::sources::claude::{plain_dirs, plain_files};
use crate::store::sources::jsonl;
use crate::store::sources::record::SessionRecord;
use std::path::{Path, PathBuf};

/// The Cursor CLI's folder (`~/.cursor`). Opening does no I/O.
#[derive(Clone, Debug)]
pub struct CursorHome {
    dir: PathBuf,
}

impl CursorHome {
    /// The folder `dir` (`~/.cursor`).
    pub fn open(dir: &Path) -> CursorHome {
        CursorHome {
            dir: dir.to_path_buf(),
        }
    }

    /// Every transcript: `<id>/<id>.jsonl` of each project's
    /// `agent-transcripts/`.
    pub fn session_files(&self) -> Vec<PathBuf> {
        plain_dirs(&self.dir.join("projects"))
            .into_iter()
            .flat_map(|project| plain_dirs(&project.join("agent-transcripts")))
            .filter_map(|dir| {
                let name = dir.file_name()?.to_string_lossy().into_owned();
                let file = dir.join(format!("{name}.jsonl"));
                std::fs::symlink_metadata(&file)
                    .is_ok_and(|m| m.is_file())
                    .then_some(file)
            })
            .collect()
    }

    /// The record of each session, in batches.
    pub fn scan(&self, on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool) -> Result<()> {
        scan_files(&self.session_files(), record_at, on_batch)
    }

    /// The session `record` read whole, its subagents as threads.
    pub fn read(record: &SessionRecord) -> Result<AgentRead> {
        let file = jsonl::read(&record.path)?;
        let mut read = transcript::read(&file, &record.id, None, &record.path)?;
        for path in subagent_files(record) {
            match jsonl::read(&path) {
                Ok(sub) => {
                    let id = crate::store::sources::agent_read::subagent_context_id(&stem(&path));
                    let thread = transcript::read(&sub, &id, Some(&record.id), &path)?;
                    read.skipped.absorb(thread.skipped);
                    read.others.push(thread.main);
                }
                Err(e) => read
                    .skipped
                    .other
                    .push(format!("a subagent's file could not be read: {e}")),
            }
        }
        Ok(read)
    }
}

/// The subagents' transcripts of `record` (`<id>/subagents/*.jsonl`).
pub fn subagent_files(record: &SessionRecord) -> Vec<PathBuf> {
    plain_files(&record.conversation_dir.join("subagents"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect()
}

/// The id of the transcript `path`: its name.
pub fn id_of(path: &Path) -> SessionId {
    SessionId::of_file(&stem(path), path)
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The record of the transcript `path`: titled by its first prompt, its
/// folder from a shell call that named one or from the project folder's
/// name, its times the file's.
pub fn record_at(path: &Path) -> SessionRecord {
    let Opened {
        id,
        file,
        folder,
        user,
        mtime,
    } = match open_session(Agent::Cursor, path, &stem(path)) {
        Ok(opened) => opened,
        Err(damaged) => return *damaged,
    };
    let facts = transcript::facts(&file);
    let project = folder
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned());
    let prompt = facts.first_prompt.unwrap_or_default();
    SessionRecord {
        agent: Agent::Cursor,
        name: name_from_prompt(&prompt),
        title: prompt.clone(),
        cwd: facts
            .working_directory
            .or_else(|| project.as_deref().and_then(folder_of_project)),
        first_prompt: prompt,
        user,
        created_at: mtime,
        last_used_at: mtime,
        path: path.to_path_buf(),
        conversation_dir: folder,
        error: None,
        bytes: None,
        stamp: None,
        id,
        archived: false,
    }
}

/// The folder a project's name stands for: Cursor names it by the path
/// with its leading `/` dropped and every `/` a `-`, which a `-` inside a
/// name makes ambiguous; the first reading whose every folder exists (the
/// shorter names tried first), else None. Names of digits alone (Cursor's
/// own ids), longer names than a path of 24 parts, and a name with a `.`
/// or `..` part (never Cursor's: it names a normal path) stand for nothing.
pub fn folder_of_project(name: &str) -> Option<String> {
    let parts: Vec<&str> = name.split('-').filter(|p| !p.is_empty()).collect();
    if parts.is_empty()
        || parts.len() > 24
        || parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit()))
        || parts.iter().any(|p| matches!(*p, "." | ".."))
    {
        return None;
    }
    existing_path(String::new(), &parts)
}

/// `base` (an existing folder, "" for `/`) with `parts` read as one or more
/// folders below it, each existing.
fn existing_path(base: String, parts: &[&str]) -> Option<String> {
    let is_dir = |p: &str| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    for k in 1..=parts.len() {
        let candidate = format!("{base}/{}", parts[..k].join("-"));
        if !is_dir(&candidate) {
            continue;
        }
        if k == parts.len() {
            return Some(candidate);
        }
        if let Some(found) = existing_path(candidate, &parts[k..]) {
            return Some(found);
        }
    }
    None
}

#[cfg(test)]
mod tests;
