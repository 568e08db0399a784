//! The other agents' folders as sources of the one store: each is read
//! through its agent's provider (`provider.rs`), and its part of our
//! archive through `archived`.

use crate::store::error::{Result, StoreError};
use crate::store::format::SessionId;
use crate::store::sources::agent::{Agent, AgentHomes};
use crate::store::sources::agent_read::AgentRead;
use crate::store::sources::archived::{self, ArchivedSessions};
use crate::store::sources::listing_cache::ListingCache;
use crate::store::sources::provider::Titles;
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

    /// True for the archive's part of the agent's sessions.
    pub fn is_archive(&self) -> bool {
        self.archived
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
        self.agent.provider().scan(&self.root, on_batch)
    }

    /// [`AgentSource::scan`], a file `cache` knows as it is now not read
    /// again (the archive's part is read whole each time).
    pub fn scan_remembering(
        &self,
        cache: &ListingCache,
        on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool,
    ) -> Result<()> {
        if let Some(part) = self.archive_part() {
            return part.scan(on_batch);
        }
        self.agent
            .provider()
            .scan_remembering(&self.root, cache, on_batch)
    }

    /// The hash of the code that reads this source's records, when its
    /// provider remembers them between listings (never the archive's).
    pub fn listing_rules(&self) -> Option<u64> {
        if self.archived {
            return None;
        }
        self.agent.provider().listing_rules()
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
            titles: self.agent.provider().titles(&self.root),
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
        self.agent.provider().id_of(path)
    }

    /// The sessions of this source by id, each with its file, found
    /// without reading them where their file names say their ids (Claude
    /// Code's name is its id; a Codex rollout's name ends with it); Gemini
    /// CLI's first line says it. The search index lists sessions this way.
    pub fn ids(&self) -> Vec<(SessionId, PathBuf)> {
        if let Some(part) = self.archive_part() {
            return part.ids();
        }
        self.agent.provider().ids(&self.root)
    }
}

/// Reads records of one source.
pub struct RecordReader {
    /// The archive's part, when the source is one.
    archive: Option<ArchivedSessions>,
    agent: Agent,
    titles: Titles,
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
        self.agent.provider().record_at(path, &self.titles)
    }

    /// The record of session `id`, kept in the file `path` (as
    /// [`AgentSource::ids`] paired them).
    pub fn record_of(&self, id: &str, path: &Path) -> SessionRecord {
        if self.archive.is_some() {
            return self.record_at(path);
        }
        self.agent.provider().record_of(id, path, &self.titles)
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
        return Err(StoreError::Damaged(error.clone()));
    }
    if record.archived {
        return archived::read(record);
    }
    record.agent.provider().read(record)
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
    if let Some(error) = &record.error {
        return Err(StoreError::Damaged(error.clone()));
    }
    let size = std::fs::symlink_metadata(&record.path).map_or(0, |m| m.len());
    let tail = (size > PREVIEW_BYTES as u64 * 4)
        .then(|| record.agent.provider().tail(record, PREVIEW_BYTES))
        .flatten();
    tail.unwrap_or_else(|| read(record).map(|r| r.main.context))
}

/// The files of `record` (its own and its subagents'), for the size and
/// for the search index's stamps.
pub fn files(record: &SessionRecord) -> Vec<PathBuf> {
    let mut out = vec![record.path.clone()];
    if record.archived {
        // The manifest changes whenever the entry does.
        return out;
    }
    out.extend(record.agent.provider().side_files(record));
    out
}

/// Apparent bytes of `record`'s files: its session file and what its
/// agent keeps beside it.
pub fn bytes(record: &SessionRecord) -> u64 {
    if record.archived {
        return record.bytes.unwrap_or(0);
    }
    record.agent.provider().bytes(record)
}
