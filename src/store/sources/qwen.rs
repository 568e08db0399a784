//! Qwen Code's sessions: `$QWEN_HOME` (else `~/.qwen`)
//! `/projects/<project>/chats/<id>.jsonl`, one record per line, each
//! `{uuid, parentUuid, sessionId, timestamp, type, cwd, message, …}`. The
//! conversation is the chain from the last record back through
//! `parentUuid` (a rewound branch is off it), records sharing a `uuid`
//! merged into one message, as Qwen Code rebuilds it. Messages are Gemini
//! `Content` (`{role, parts}`), read with Gemini CLI's part reader. Not
//! forked or moved here yet; a delete moves the file to our trash.

mod chain;
pub mod provider;

use crate::store::error::Result;
use crate::store::format::SessionId;
use crate::store::format::naming::name_from_prompt;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::{AgentRead, Opened, open_session, parse_time, scan_files};
use crate::store::sources::claude::{plain_dirs, plain_files};
use crate::store::sources::jsonl;
use crate::store::sources::record::SessionRecord;
use std::path::{Path, PathBuf};

/// Qwen Code's folder (`~/.qwen`). Opening does no I/O.
#[derive(Clone, Debug)]
pub struct QwenHome {
    dir: PathBuf,
}

impl QwenHome {
    /// The folder `dir` (`~/.qwen`).
    pub fn open(dir: &Path) -> QwenHome {
        QwenHome {
            dir: dir.to_path_buf(),
        }
    }

    /// Every session file, project by project. Qwen Code's archive
    /// (`chats/archive/`) is its own and is not listed.
    pub fn session_files(&self) -> Vec<PathBuf> {
        plain_dirs(&self.dir.join("projects"))
            .into_iter()
            .flat_map(|project| plain_files(&project.join("chats")))
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect()
    }

    /// The record of each session, in batches.
    pub fn scan(&self, on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool) -> Result<()> {
        scan_files(&self.session_files(), record_at, on_batch)
    }

    /// The session `record` read whole.
    pub fn read(record: &SessionRecord) -> Result<AgentRead> {
        let file = jsonl::read(&record.path)?;
        chain::read(&file, &record.id, &record.path)
    }
}

/// The id of the session file `path`: its name.
pub fn id_of(path: &Path) -> SessionId {
    SessionId::of_file(&stem(path), path)
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The record of the session file `path`, read whole (its title may be set
/// anywhere in it).
pub fn record_at(path: &Path) -> SessionRecord {
    let Opened {
        id,
        file,
        folder,
        user,
        mtime,
    } = match open_session(Agent::Qwen, path, &stem(path)) {
        Ok(opened) => opened,
        Err(damaged) => return *damaged,
    };
    let facts = chain::facts(&file);
    let prompt = facts.first_prompt.unwrap_or_default();
    let title = facts.title.unwrap_or_else(|| prompt.clone());
    let created = facts.first.and_then(|t| parse_time(&t)).unwrap_or(mtime);
    SessionRecord {
        agent: Agent::Qwen,
        name: name_from_prompt(&title),
        title,
        cwd: facts.cwd,
        first_prompt: prompt,
        user,
        created_at: created,
        last_used_at: facts
            .last
            .and_then(|t| parse_time(&t))
            .unwrap_or(mtime)
            .max(created),
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
