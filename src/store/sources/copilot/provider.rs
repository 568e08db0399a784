//! GitHub Copilot CLI as the store sees it: where its sessions are, and
//! how each is read and watched.

use super::{CopilotHome, EVENTS};
use crate::store::error::Result;
use crate::store::format::SessionId;
use crate::store::fs::watch::WatchRoot;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::AgentRead;
use crate::store::sources::provider::{
    EnvLookup, FolderSideFiles, Provider, Titles, named_or_home, own_bytes,
};
use crate::store::sources::record::SessionRecord;
use std::path::{Path, PathBuf};

/// GitHub Copilot CLI.
pub struct Copilot;

impl Provider for Copilot {
    fn agent(&self) -> Agent {
        Agent::Copilot
    }

    fn name(&self) -> &'static str {
        "copilot"
    }

    fn display_name(&self) -> &'static str {
        "Copilot CLI"
    }

    /// Its whole folder goes: the events and everything beside them.
    fn moves_to_trash(&self) -> bool {
        true
    }

    fn resume_command(&self) -> Option<&'static str> {
        Some("copilot --resume={id}")
    }

    /// `$COPILOT_HOME`, else `~/.copilot`.
    fn home(&self, home: Option<&Path>, env: EnvLookup<'_>) -> Option<PathBuf> {
        named_or_home(env, "COPILOT_HOME", home, ".copilot")
    }

    fn scan(
        &self,
        root: &Path,
        on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool,
    ) -> Result<()> {
        CopilotHome::open(root).scan(on_batch)
    }

    fn record_at(&self, path: &Path, _: &Titles) -> SessionRecord {
        super::record_at(path)
    }

    /// Its folder is named by it.
    fn id_of(&self, path: &Path) -> SessionId {
        super::id_of(path)
    }

    fn session_files(&self, root: &Path) -> Vec<PathBuf> {
        CopilotHome::open(root).session_files()
    }

    fn read(&self, record: &SessionRecord) -> Result<AgentRead> {
        CopilotHome::read(record)
    }

    /// The whole of its own folder: checkpoints, a plan, files.
    fn bytes(&self, record: &SessionRecord) -> u64 {
        let all =
            crate::store::fs::disk::tree_facts(&record.conversation_dir).map_or(0, |f| f.bytes);
        all.max(own_bytes(record))
    }

    /// Everything else in its folder (`workspace.yaml`, checkpoints, a
    /// plan, files): a session is the folder. Its folder itself is left,
    /// empty (no session without its events file). Only regular files and
    /// folders: anything else there is left as it is.
    fn trash_belongings(
        &self,
        record: &SessionRecord,
        _: Option<&FolderSideFiles>,
    ) -> Vec<PathBuf> {
        if record.error.is_some() {
            return Vec::new();
        }
        let Ok(entries) = std::fs::read_dir(&record.conversation_dir) else {
            return Vec::new();
        };
        let mut out: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file() || t.is_dir()))
            .map(|e| e.path())
            .filter(|p| *p != record.path)
            .collect();
        out.sort();
        out
    }

    /// `<home>/session-state/<id>/events.jsonl`.
    fn root_of_file(&self, file: &Path) -> Option<PathBuf> {
        file.ancestors().nth(3).map(Path::to_path_buf)
    }

    fn watch_root(&self, root: &Path) -> WatchRoot {
        WatchRoot {
            dir: root.to_path_buf(),
            depth: 2,
            only: vec![(1, vec!["session-state".into()])],
        }
    }

    /// Its events, or its name and folder (`workspace.yaml`).
    fn session_file_of(&self, root: &Path, names: &[&str]) -> Option<PathBuf> {
        match names {
            ["session-state", id, name] if *name == EVENTS || *name == "workspace.yaml" => {
                Some(root.join("session-state").join(id).join(EVENTS))
            }
            _ => None,
        }
    }
}
