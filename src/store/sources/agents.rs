//! The other agents' folders as sources of the one store: each reads its
//! own format (`claude`, `codex`, `gemini`), and this is where a record is
//! sent to the reader of its agent.

use crate::store::error::{Result, StoreError};
use crate::store::format::SessionId;
use crate::store::sources::agent::{Agent, AgentHomes};
use crate::store::sources::agent_read::AgentRead;
use crate::store::sources::archived::{self, ArchivedSessions};
use crate::store::sources::claude::ClaudeProjects;
use crate::store::sources::codex::CodexHome;
use crate::store::sources::copilot::{self, CopilotHome};
use crate::store::sources::cursor::{self, CursorHome};
use crate::store::sources::gemini::GeminiHome;
use crate::store::sources::qwen::{self, QwenHome};
use crate::store::sources::record::SessionRecord;
use std::path::{Path, PathBuf};

/// One agent's folder, or its part of our archive.
#[derive(Clone, Debug)]
pub struct AgentSource {
    agent: Agent,
    root: PathBuf,
    /// The archive's part for the agent (`root` is `<archive>/<agent>`).
    archived: bool,
}

impl AgentSource {
    /// The source of `agent` at `root` (its `projects` folder, its home).
    pub fn new(agent: Agent, root: &Path) -> AgentSource {
        AgentSource {
            agent,
            root: root.to_path_buf(),
            archived: false,
        }
    }

    /// The archive's parts at `archive` (`<archive>/<agent>/`), those not
    /// made yet included: the archive may be written while a UI runs (a
    /// missing part lists nothing).
    pub fn archived(archive: &Path) -> Vec<AgentSource> {
        Agent::EXTERNAL
            .into_iter()
            .map(|agent| ArchivedSessions::of(agent, archive))
            .map(|a| AgentSource {
                agent: a.agent(),
                root: a.dir().to_path_buf(),
                archived: true,
            })
            .collect()
    }

    fn archive_part(&self) -> Option<ArchivedSessions> {
        self.archived
            .then(|| ArchivedSessions::of(self.agent, self.root.parent().unwrap_or(&self.root)))
    }

    /// Every source `homes` names whose folder exists.
    pub fn found(homes: &AgentHomes) -> Vec<AgentSource> {
        Agent::EXTERNAL
            .into_iter()
            .filter_map(|agent| {
                let root = homes.root_of(agent)?;
                std::fs::metadata(root)
                    .is_ok_and(|m| m.is_dir())
                    .then(|| AgentSource::new(agent, root))
            })
            .collect()
    }

    /// Whose sessions these are.
    pub fn agent(&self) -> Agent {
        self.agent
    }

    /// The folder read.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every session, in batches as they are read.
    pub fn scan(&self, on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool) -> Result<()> {
        if let Some(part) = self.archive_part() {
            return part.scan(on_batch);
        }
        match self.agent {
            Agent::Claude => ClaudeProjects::open(&self.root).scan(on_batch),
            Agent::Codex => CodexHome::open(&self.root).scan(on_batch),
            Agent::Gemini => GeminiHome::open(&self.root).scan(on_batch),
            Agent::Copilot => CopilotHome::open(&self.root).scan(on_batch),
            Agent::Qwen => QwenHome::open(&self.root).scan(on_batch),
            Agent::Cursor => CursorHome::open(&self.root).scan(on_batch),
            Agent::Loki | Agent::Peteos => Ok(()),
        }
    }

    /// The record of the session file `path` of this source.
    pub fn record_at(&self, path: &Path) -> SessionRecord {
        self.reader().record_at(path)
    }

    /// What reads this source's records one by one (having read once what
    /// every record needs: Codex's titles).
    pub fn reader(&self) -> RecordReader {
        RecordReader {
            archive: self.archive_part(),
            agent: self.agent,
            titles: match self.agent {
                Agent::Codex => CodexHome::open(&self.root).titles(),
                Agent::Claude
                | Agent::Gemini
                | Agent::Copilot
                | Agent::Qwen
                | Agent::Cursor
                | Agent::Loki
                | Agent::Peteos => Default::default(),
            },
        }
    }

    /// The id of the session kept in the file `path` of this source: its
    /// name says it (Claude Code's is the id, a Codex rollout's ends with
    /// it, Copilot CLI's folder is named by it), or Gemini CLI's first line
    /// does (read here).
    /// An id the check refuses is the file's stand-in, as its record says.
    pub fn id_of(&self, path: &Path) -> SessionId {
        if self.archived {
            let entry = path
                .parent()
                .and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            return SessionId::of_file(&entry, path);
        }
        match self.agent {
            Agent::Claude => SessionId::of_file(&stem(path), path),
            Agent::Codex => {
                let id = crate::store::sources::codex::lineage::rollout_id_of(path)
                    .unwrap_or_else(|| stem(path));
                SessionId::of_file(&id, path)
            }
            Agent::Copilot => copilot::id_of(path),
            Agent::Qwen => qwen::id_of(path),
            Agent::Cursor => cursor::id_of(path),
            Agent::Gemini | Agent::Loki | Agent::Peteos => {
                crate::store::sources::gemini::id_of(path)
            }
        }
    }

    /// The sessions of this source by id, each with its file, found
    /// without reading them where their file names say their ids (Claude
    /// Code's name is its id; a Codex rollout's name ends with it); Gemini
    /// CLI's first line says it. The search index lists sessions this way.
    pub fn ids(&self) -> Vec<(SessionId, PathBuf)> {
        if let Some(part) = self.archive_part() {
            return part.ids();
        }
        // Each file named by its id, as `id_of` reads it.
        let named = |files: Vec<PathBuf>| -> Vec<(SessionId, PathBuf)> {
            files.into_iter().map(|p| (self.id_of(&p), p)).collect()
        };
        match self.agent {
            Agent::Claude => named(ClaudeProjects::open(&self.root).session_paths()),
            Agent::Codex => named(CodexHome::open(&self.root).session_files()),
            Agent::Copilot => named(CopilotHome::open(&self.root).session_files()),
            Agent::Qwen => named(QwenHome::open(&self.root).session_files()),
            Agent::Cursor => named(CursorHome::open(&self.root).session_files()),
            Agent::Loki | Agent::Peteos => Vec::new(),
            Agent::Gemini => {
                let mut ids: Vec<(SessionId, PathBuf)> = GeminiHome::open(&self.root)
                    .session_files()
                    .into_iter()
                    .map(|p| (crate::store::sources::gemini::id_of(&p), p))
                    .collect();
                // A legacy .json whose session has a .jsonl is left out, as the list does.
                let with_jsonl: std::collections::HashSet<SessionId> = ids
                    .iter()
                    .filter(|(_, p)| p.extension().is_some_and(|e| e == "jsonl"))
                    .map(|(id, _)| id.clone())
                    .collect();
                ids.retain(|(id, p)| {
                    p.extension().is_some_and(|e| e == "jsonl") || !with_jsonl.contains(id)
                });
                ids
            }
        }
    }
}

/// Reads records of one source.
pub struct RecordReader {
    /// The archive's part, when the source is one.
    archive: Option<ArchivedSessions>,
    agent: Agent,
    titles: std::collections::HashMap<String, String>,
}

impl RecordReader {
    /// The record of the session file `path`.
    pub fn record_at(&self, path: &Path) -> SessionRecord {
        if let Some(part) = &self.archive {
            return part.record_at(path).unwrap_or_else(|| SessionRecord {
                agent: self.agent,
                archived: true,
                ..SessionRecord::damaged(
                    &stem(path),
                    path.to_path_buf(),
                    path.parent().unwrap_or(path).to_path_buf(),
                    &user_name(),
                    format!(
                        "{}: no archived session whose agent deleted it",
                        path.display()
                    ),
                )
            });
        }
        match self.agent {
            Agent::Claude => ClaudeProjects::record_at(path),
            Agent::Codex => crate::store::sources::codex::record_at(path, &self.titles),
            Agent::Copilot => copilot::record_at(path),
            Agent::Qwen => qwen::record_at(path),
            Agent::Cursor => cursor::record_at(path),
            Agent::Gemini | Agent::Loki | Agent::Peteos => {
                crate::store::sources::gemini::record_at(path)
            }
        }
    }
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The OS user, looked up once: a listing of 10,000 sessions would
/// otherwise read the password database 10,000 times (when `USER` is unset).
pub fn user_name() -> String {
    static USER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    USER.get_or_init(|| crate::store::fs::disk::os_user_name().unwrap_or_default())
        .clone()
}

/// The session of another agent `record` read whole.
pub fn read(record: &SessionRecord) -> Result<AgentRead> {
    if let Some(error) = &record.error {
        return Err(StoreError::Invalid(error.clone()));
    }
    if record.archived {
        return archived::read(record);
    }
    match record.agent {
        Agent::Claude => ClaudeProjects::read(record),
        Agent::Codex => CodexHome::read(record),
        Agent::Gemini => GeminiHome::read(record),
        Agent::Copilot => CopilotHome::read(record),
        Agent::Qwen => QwenHome::read(record),
        Agent::Cursor => CursorHome::read(record),
        Agent::Loki | Agent::Peteos => Err(StoreError::Invalid(format!(
            "session {} is not another agent's",
            record.id
        ))),
    }
}

/// Read from the end of a file for a preview.
const PREVIEW_BYTES: usize = 256 * 1024;

/// The last messages of `record` as a context, for a preview: from the end
/// of a long file alone (its chain is not followed there), from the whole
/// of a short one.
pub fn preview(record: &SessionRecord) -> Result<crate::store::format::Context> {
    if record.archived {
        return read(record).map(|r| r.main.context);
    }
    let size = std::fs::symlink_metadata(&record.path).map_or(0, |m| m.len());
    if size <= PREVIEW_BYTES as u64 * 4
        || matches!(
            record.agent,
            Agent::Gemini | Agent::Copilot | Agent::Qwen | Agent::Cursor
        )
    {
        return read(record).map(|r| r.main.context);
    }
    if let Some(error) = &record.error {
        return Err(StoreError::Invalid(error.clone()));
    }
    match record.agent {
        Agent::Claude => ClaudeProjects::tail(record, PREVIEW_BYTES),
        Agent::Codex => CodexHome::tail(record, PREVIEW_BYTES),
        Agent::Gemini
        | Agent::Copilot
        | Agent::Qwen
        | Agent::Cursor
        | Agent::Loki
        | Agent::Peteos => read(record).map(|r| r.main.context),
    }
}

/// The files of `record` (its own and its subagents'), for the size and
/// for the search index's stamps.
pub fn files(record: &SessionRecord) -> Vec<PathBuf> {
    let mut out = vec![record.path.clone()];
    if record.archived {
        // The manifest changes whenever the entry does.
        return out;
    }
    match record.agent {
        Agent::Claude => out.extend(ClaudeProjects::subagents(record)),
        Agent::Gemini => {
            let dir = record.conversation_dir.join(&record.id);
            out.extend(crate::store::sources::claude::plain_files(&dir));
        }
        Agent::Cursor => out.extend(cursor::subagent_files(record)),
        Agent::Codex | Agent::Copilot | Agent::Qwen | Agent::Loki | Agent::Peteos => {}
    }
    out
}

/// Apparent bytes of `record`'s files: its session file and the folder
/// an agent keeps beside it (Claude Code's `<id>/`: subagents, large tool
/// outputs; Gemini's subagents). Older Claude Code subagent files lying
/// beside the sessions are not counted: finding them means reading the
/// head of every such file of the project, too much for a listing.
pub fn bytes(record: &SessionRecord) -> u64 {
    if record.archived {
        return record.bytes.unwrap_or(0);
    }
    let own = std::fs::symlink_metadata(&record.path)
        .ok()
        .filter(|m| m.is_file())
        .map_or(0, |m| m.len());
    let beside = match record.agent {
        Agent::Claude | Agent::Gemini => {
            crate::store::fs::disk::tree_facts(&record.conversation_dir.join(&record.id))
                .map_or(0, |f| f.bytes)
        }
        // The rest of its own folder: checkpoints, a plan, files;
        // subagents' transcripts.
        Agent::Copilot | Agent::Cursor => {
            let all =
                crate::store::fs::disk::tree_facts(&record.conversation_dir).map_or(0, |f| f.bytes);
            return all.max(own);
        }
        Agent::Codex | Agent::Qwen | Agent::Loki | Agent::Peteos => 0,
    };
    own + beside
}
