//! The Cursor CLI as the store sees it: where its transcripts are, and how
//! each is read and watched.

use super::CursorHome;
use crate::store::error::Result;
use crate::store::format::SessionId;
use crate::store::fs::watch::WatchRoot;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::AgentRead;
use crate::store::sources::provider::{
    EnvLookup, FolderSideFiles, Provider, Titles, folder_if_there, own_bytes,
};
use crate::store::sources::record::SessionRecord;
use std::path::{Path, PathBuf};

/// The Cursor CLI's transcripts.
pub struct Cursor;

impl Provider for Cursor {
    fn agent(&self) -> Agent {
        Agent::Cursor
    }

    fn name(&self) -> &'static str {
        "cursor"
    }

    fn display_name(&self) -> &'static str {
        "Cursor CLI"
    }

    /// Its transcripts hold no tokens.
    fn records_usage(&self) -> bool {
        false
    }

    fn moves_to_trash(&self) -> bool {
        true
    }

    fn resume_command(&self) -> Option<&'static str> {
        Some("cursor-agent --resume={id}")
    }

    /// `~/.cursor`.
    fn home(&self, home: Option<&Path>, _: EnvLookup<'_>) -> Option<PathBuf> {
        home.map(|h| h.join(".cursor"))
    }

    fn scan(
        &self,
        root: &Path,
        on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool,
    ) -> Result<()> {
        CursorHome::open(root).scan(on_batch)
    }

    fn record_at(&self, path: &Path, _: &Titles) -> SessionRecord {
        super::record_at(path)
    }

    /// The transcript's name is the id.
    fn id_of(&self, path: &Path) -> SessionId {
        super::id_of(path)
    }

    fn session_files(&self, root: &Path) -> Vec<PathBuf> {
        CursorHome::open(root).session_files()
    }

    fn read(&self, record: &SessionRecord) -> Result<AgentRead> {
        CursorHome::read(record)
    }

    /// Its subagents' transcripts, in `<id>/subagents/`.
    fn side_files(&self, record: &SessionRecord) -> Vec<PathBuf> {
        super::subagent_files(record)
    }

    /// The whole of its `<id>/` folder.
    fn bytes(&self, record: &SessionRecord) -> u64 {
        let all =
            crate::store::fs::disk::tree_facts(&record.conversation_dir).map_or(0, |f| f.bytes);
        all.max(own_bytes(record))
    }

    /// Its subagents' transcripts, beside its own in `<id>/subagents/`
    /// (its own `<id>/` folder is left empty).
    fn trash_belongings(
        &self,
        record: &SessionRecord,
        _: Option<&FolderSideFiles>,
    ) -> Vec<PathBuf> {
        if record.error.is_some() {
            return Vec::new();
        }
        folder_if_there(record.conversation_dir.join("subagents"))
    }

    /// `<home>/projects/<project>/agent-transcripts/<id>/<id>.jsonl`.
    fn root_of_file(&self, file: &Path) -> Option<PathBuf> {
        file.ancestors().nth(5).map(Path::to_path_buf)
    }

    fn watch_root(&self, root: &Path) -> WatchRoot {
        WatchRoot {
            dir: root.to_path_buf(),
            depth: 5,
            only: vec![
                (1, vec!["projects".into()]),
                (3, vec!["agent-transcripts".into()]),
            ],
        }
    }

    /// A transcript, or a subagent's of it: the transcript's session.
    fn session_file_of(&self, root: &Path, names: &[&str]) -> Option<PathBuf> {
        match names {
            ["projects", project, "agent-transcripts", id, rest @ ..]
                if rest.last().is_some_and(|n| n.ends_with(".jsonl")) =>
            {
                Some(
                    root.join("projects")
                        .join(project)
                        .join("agent-transcripts")
                        .join(id)
                        .join(format!("{id}.jsonl")),
                )
            }
            _ => None,
        }
    }
}
