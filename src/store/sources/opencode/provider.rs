//! OpenCode as the store sees it: one database holding every session,
//! read (never written) through a snapshot.

use super::{DATABASE, OpencodeData};
use crate::store::error::Result;
use crate::store::format::SessionId;
use crate::store::fs::watch::WatchRoot;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::AgentRead;
use crate::store::sources::provider::{EnvLookup, Provider, Titles};
use crate::store::sources::record::SessionRecord;
use std::path::{Path, PathBuf};

/// OpenCode.
pub struct Opencode;

impl Provider for Opencode {
    fn agent(&self) -> Agent {
        Agent::Opencode
    }

    fn name(&self) -> &'static str {
        "opencode"
    }

    fn display_name(&self) -> &'static str {
        "OpenCode"
    }

    /// Its sessions are rows of its database, which is not written here.
    fn moves_to_trash(&self) -> bool {
        false
    }

    fn kept_from_the_trash_because(&self) -> &'static str {
        "a session is rows of OpenCode's own database, which is never written here"
    }

    fn resume_command(&self) -> Option<&'static str> {
        Some("opencode --session={id}")
    }

    /// `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`.
    fn home(&self, home: Option<&Path>, env: EnvLookup<'_>) -> Option<PathBuf> {
        env("XDG_DATA_HOME")
            .filter(|d| d.is_absolute())
            .or_else(|| home.map(|h| h.join(".local").join("share")))
            .map(|d| d.join("opencode"))
    }

    fn scan(
        &self,
        root: &Path,
        on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool,
    ) -> Result<()> {
        OpencodeData::open(root).scan(on_batch)
    }

    /// The database alone does not say which session: named by the path,
    /// it is a damaged record that says so.
    fn record_at(&self, path: &Path, _: &Titles) -> SessionRecord {
        let why = format!(
            "{}: OpenCode keeps every session in this one database; name a session by its id",
            path.display()
        );
        super::damaged(DATABASE, path, why)
    }

    fn record_of(&self, id: &str, path: &Path, _: &Titles) -> SessionRecord {
        OpencodeData::record_of(id, path)
    }

    /// The database names no one session: its stand-in.
    fn id_of(&self, path: &Path) -> SessionId {
        SessionId::stand_in(path)
    }

    fn ids(&self, root: &Path) -> Vec<(SessionId, PathBuf)> {
        OpencodeData::open(root).ids()
    }

    fn read(&self, record: &SessionRecord) -> Result<AgentRead> {
        OpencodeData::read(record)
    }

    /// The database's journal, while OpenCode has it open: its writes land
    /// there first (the database file itself changes only when they are
    /// moved into it), so the search index's stamps see them.
    fn side_files(&self, record: &SessionRecord) -> Vec<PathBuf> {
        let mut journal = record.path.as_os_str().to_owned();
        journal.push("-wal");
        let journal = PathBuf::from(journal);
        if std::fs::symlink_metadata(&journal).is_ok_and(|m| m.is_file()) {
            vec![journal]
        } else {
            Vec::new()
        }
    }

    /// Its messages' and parts' rows.
    fn bytes(&self, record: &SessionRecord) -> u64 {
        OpencodeData::bytes(record)
    }

    fn keeps_files_beside(&self) -> bool {
        false
    }

    /// `<data>/opencode.db`.
    fn root_of_file(&self, file: &Path) -> Option<PathBuf> {
        file.parent().map(Path::to_path_buf)
    }

    /// The database, or its journal (where OpenCode's writes land first).
    fn is_shared_file(&self, path: &Path) -> bool {
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n == DATABASE || n == format!("{DATABASE}-wal"))
    }

    fn changed_since(
        &self,
        root: &Path,
        mark: Option<f64>,
    ) -> Option<(Vec<(SessionId, PathBuf)>, f64)> {
        OpencodeData::open(root).changed_since(mark)
    }

    /// The data folder itself: the database and its `-wal` change there.
    fn watch_root(&self, root: &Path) -> WatchRoot {
        WatchRoot::new(root.to_path_buf(), 0)
    }
}
