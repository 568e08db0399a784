//! GitHub Copilot CLI's sessions: `~/.copilot/session-state/<id>/` (or
//! `$COPILOT_HOME/session-state/<id>/`), one folder per session holding
//! `events.jsonl` (every event of the session, appended, a resume
//! included) and `workspace.yaml` (its name, folder and times). The folder's
//! name is the session's id. Only the events file is a session's; the
//! other files of the folder (checkpoints, a plan) are the agent's own.
//! Read only: Copilot CLI's sessions are not forked, trimmed, moved or
//! deleted here yet.

mod events;
pub mod provider;
mod workspace;

use crate::store::error::Result;
use crate::store::format::SessionId;
use crate::store::format::naming::name_from_prompt;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::{AgentRead, Opened, open_session, parse_time, scan_files};
use crate::store::sources::claude::plain_dirs;
use crate::store::sources::jsonl;
use crate::store::sources::record::SessionRecord;
use std::path::{Path, PathBuf};

/// The file of a session's events in its folder.
pub const EVENTS: &str = "events.jsonl";

/// Copilot CLI's folder (`~/.copilot`). Opening does no I/O.
#[derive(Clone, Debug)]
pub struct CopilotHome {
    dir: PathBuf,
}

impl CopilotHome {
    /// The folder `dir` (`~/.copilot`).
    pub fn open(dir: &Path) -> CopilotHome {
        CopilotHome {
            dir: dir.to_path_buf(),
        }
    }

    /// Every session's events file, by folder name. A folder without one
    /// (a session started and left before its first event) is no session.
    pub fn session_files(&self) -> Vec<PathBuf> {
        plain_dirs(&self.dir.join("session-state"))
            .into_iter()
            .map(|d| d.join(EVENTS))
            .filter(|f| std::fs::symlink_metadata(f).is_ok_and(|m| m.is_file()))
            .collect()
    }

    /// The record of each session, in batches.
    pub fn scan(&self, on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool) -> Result<()> {
        scan_files(&self.session_files(), record_at, on_batch)
    }

    /// The session `record` read whole, its subagents as threads of their own.
    pub fn read(record: &SessionRecord) -> Result<AgentRead> {
        let file = jsonl::read(&record.path)?;
        let mut read = events::read(&file, &record.id, &record.path)?;
        read.title = workspace::read(&record.conversation_dir).title();
        Ok(read)
    }
}

/// The id of the events file `path`: its folder's name.
pub fn id_of(path: &Path) -> SessionId {
    SessionId::of_file(&folder_name(path), path)
}

fn folder_name(path: &Path) -> String {
    path.parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The record of the events file `path`: its name and folder from
/// `workspace.yaml` where it says them, else from the events; the times
/// from the first and last events. The file is read whole (a first prompt
/// may come after long tool output of an earlier resume), once per listing.
pub fn record_at(path: &Path) -> SessionRecord {
    let Opened {
        id,
        file,
        folder,
        user,
        mtime,
    } = match open_session(Agent::Copilot, path, &folder_name(path)) {
        Ok(opened) => opened,
        Err(damaged) => return *damaged,
    };
    let facts = events::facts(&file);
    let yaml = workspace::read(&folder);
    let prompt = facts.first_prompt.unwrap_or_default();
    let title = yaml.title().unwrap_or_else(|| prompt.clone());
    let created = facts
        .started
        .or_else(|| yaml.get("created_at").and_then(parse_time))
        .unwrap_or(mtime);
    SessionRecord {
        agent: Agent::Copilot,
        name: name_from_prompt(&title),
        title,
        cwd: facts.cwd.or_else(|| yaml.get("cwd").map(str::to_string)),
        first_prompt: prompt,
        user,
        created_at: created,
        last_used_at: facts.last.unwrap_or(mtime).max(created),
        path: path.to_path_buf(),
        conversation_dir: folder,
        error: None,
        bytes: None,
        stamp: None,
        id,
        archived: false,
    }
}

#[cfg(test)]
mod tests;
