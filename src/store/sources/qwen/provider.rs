//! Qwen Code as the store sees it: where its sessions are, and how each is
//! read and watched.

use super::QwenHome;
use crate::store::error::Result;
use crate::store::format::SessionId;
use crate::store::fs::watch::WatchRoot;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::AgentRead;
use crate::store::sources::provider::{EnvLookup, Provider, Titles, named_or_home};
use crate::store::sources::record::SessionRecord;
use std::path::{Path, PathBuf};

/// Qwen Code.
pub struct Qwen;

impl Provider for Qwen {
    fn agent(&self) -> Agent {
        Agent::Qwen
    }

    fn name(&self) -> &'static str {
        "qwen"
    }

    fn display_name(&self) -> &'static str {
        "Qwen Code"
    }

    fn moves_to_trash(&self) -> bool {
        true
    }

    fn resume_command(&self) -> Option<&'static str> {
        Some("qwen --resume={id}")
    }

    /// `$QWEN_HOME`, else `~/.qwen`.
    fn home(&self, home: Option<&Path>, env: EnvLookup<'_>) -> Option<PathBuf> {
        named_or_home(env, "QWEN_HOME", home, ".qwen")
    }

    fn scan(
        &self,
        root: &Path,
        on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool,
    ) -> Result<()> {
        QwenHome::open(root).scan(on_batch)
    }

    fn record_at(&self, path: &Path, _: &Titles) -> SessionRecord {
        super::record_at(path)
    }

    /// The file's name is the id.
    fn id_of(&self, path: &Path) -> SessionId {
        super::id_of(path)
    }

    fn session_files(&self, root: &Path) -> Vec<PathBuf> {
        QwenHome::open(root).session_files()
    }

    fn read(&self, record: &SessionRecord) -> Result<AgentRead> {
        QwenHome::read(record)
    }

    /// Qwen Code keeps nothing beside a session file.
    fn keeps_files_beside(&self) -> bool {
        false
    }

    /// `<home>/projects/<project>/chats/<id>.jsonl`.
    fn root_of_file(&self, file: &Path) -> Option<PathBuf> {
        file.ancestors().nth(4).map(Path::to_path_buf)
    }

    fn watch_root(&self, root: &Path) -> WatchRoot {
        WatchRoot {
            dir: root.to_path_buf(),
            depth: 3,
            only: vec![(1, vec!["projects".into()]), (3, vec!["chats".into()])],
        }
    }

    fn session_file_of(&self, root: &Path, names: &[&str]) -> Option<PathBuf> {
        match names {
            ["projects", project, "chats", name] if name.ends_with(".jsonl") => {
                Some(root.join("projects").join(project).join("chats").join(name))
            }
            _ => None,
        }
    }
}
