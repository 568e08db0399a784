//! Codex as the store sees it: where its rollouts are, and how each is
//! read, watched, moved and forked.

use super::{CodexHome, lineage};
use crate::store::Encoding;
use crate::store::error::Result;
use crate::store::format::{Context, SessionId};
use crate::store::fs::watch::WatchRoot;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::AgentRead;
use crate::store::sources::provider::{
    Dependants, EnvLookup, ForkLayout, MoveLayout, Provider, Titles, named_or_home,
};
use crate::store::sources::record::SessionRecord;
use std::path::{Path, PathBuf};

/// OpenAI's Codex CLI.
pub struct Codex;

impl Provider for Codex {
    fn agent(&self) -> Agent {
        Agent::Codex
    }

    fn name(&self) -> &'static str {
        "codex"
    }

    fn display_name(&self) -> &'static str {
        "Codex"
    }

    fn moves_to_trash(&self) -> bool {
        true
    }

    fn resume_command(&self) -> Option<&'static str> {
        // After `--`, the (checked) id could not be an option.
        Some("codex resume -- {id}")
    }

    /// Codex's models count in o200k_base.
    fn counts_exactly_in(&self, encoding: Encoding) -> bool {
        encoding == Encoding::O200kBase
    }

    /// `$CODEX_HOME`, else `~/.codex`.
    fn home(&self, home: Option<&Path>, env: EnvLookup<'_>) -> Option<PathBuf> {
        named_or_home(env, "CODEX_HOME", home, ".codex")
    }

    fn scan(
        &self,
        root: &Path,
        on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool,
    ) -> Result<()> {
        CodexHome::open(root).scan(on_batch)
    }

    /// The names the person set (`session_index.jsonl`).
    fn titles(&self, root: &Path) -> Titles {
        CodexHome::open(root).titles()
    }

    fn record_at(&self, path: &Path, titles: &Titles) -> SessionRecord {
        super::record_at(path, titles)
    }

    /// A rollout's name ends with its id.
    fn id_of(&self, path: &Path) -> SessionId {
        let id = lineage::rollout_id_of(path).unwrap_or_else(|| {
            path.file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        });
        SessionId::of_file(&id, path)
    }

    fn session_files(&self, root: &Path) -> Vec<PathBuf> {
        CodexHome::open(root).session_files()
    }

    fn read(&self, record: &SessionRecord) -> Result<AgentRead> {
        CodexHome::read(record)
    }

    fn tail(&self, record: &SessionRecord, bytes: usize) -> Option<Result<Context>> {
        Some(CodexHome::tail(record, bytes))
    }

    /// Codex keeps nothing beside a rollout.
    fn keeps_files_beside(&self) -> bool {
        false
    }

    /// `<home>/sessions/YYYY/MM/DD/<file>`, `<home>/archived_sessions/<file>`.
    fn root_of_file(&self, file: &Path) -> Option<PathBuf> {
        lineage::home_of(file)
    }

    /// The dated folders (four levels) and the archive.
    fn watch_root(&self, root: &Path) -> WatchRoot {
        WatchRoot {
            dir: root.to_path_buf(),
            depth: 4,
            only: vec![(1, vec!["sessions".into(), "archived_sessions".into()])],
        }
    }

    fn session_file_of(&self, root: &Path, names: &[&str]) -> Option<PathBuf> {
        match names {
            ["sessions", y, m, d, name] if is_rollout(name) => {
                Some(root.join("sessions").join(y).join(m).join(d).join(name))
            }
            ["archived_sessions", name] if is_rollout(name) => {
                Some(root.join("archived_sessions").join(name))
            }
            _ => None,
        }
    }

    /// The rollouts whose history starts in one of `records`' (forks by
    /// reference), by that rollout's id.
    fn dependants(&self, records: &[&SessionRecord]) -> Dependants {
        let mut homes: Vec<PathBuf> = records
            .iter()
            .filter_map(|r| lineage::home_of(&r.path))
            .collect();
        homes.sort();
        homes.dedup();
        let mut out = Dependants::new();
        for home in homes {
            out.extend(lineage::dependants(&home));
        }
        out
    }

    fn kept_for(&self, record: &SessionRecord, dependants: &Dependants) -> Option<String> {
        lineage::kept_for(&record.path, dependants)
    }

    /// A fork by reference: its first messages are its parent's file's, and
    /// a copy would need them laid out from there, which is not done yet.
    fn fork_refused(&self, record: &SessionRecord) -> Option<String> {
        let base = lineage::first_line(&record.path).and_then(|l| lineage::base_of(&l))?;
        Some(format!(
            "Codex session {} reads its first messages from rollout {} (a fork by reference); trimming such a session is not supported yet",
            record.id, base.rollout_id
        ))
    }

    fn fork_layout(&self) -> Option<ForkLayout> {
        Some(ForkLayout::Codex)
    }

    fn move_layout(&self) -> std::result::Result<MoveLayout, &'static str> {
        Ok(MoveLayout::FolderInside)
    }
}

/// A rollout's file name: plain or compressed (`.jsonl.zst`).
fn is_rollout(name: &str) -> bool {
    name.ends_with(".jsonl") || name.ends_with(".jsonl.zst")
}
