//! The seam between the store and each agent's format: everything the
//! store needs to know about an agent, asked of its [`Provider`]. Each
//! agent implements it once, in its own folder (`claude/provider.rs`,
//! `codex/provider.rs`, ...); `Agent::provider` (in `agent.rs`) is the one
//! registry. Code outside the registry and the agents' folders asks the
//! provider and never matches on the agent.

use crate::store::error::{Result, StoreError};
use crate::store::format::{Context, SessionId};
use crate::store::fs::watch::WatchRoot;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::AgentRead;
use crate::store::sources::listing_cache::ListingCache;
use crate::store::sources::record::SessionRecord;
use crate::store::sources::retention::Rule;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Looks up an environment variable (None when unset or empty).
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<PathBuf>;

/// Files an agent keeps for its sessions that are found by reading their
/// folder once (Claude Code's older subagent files), by session id.
pub type FolderSideFiles = HashMap<String, Vec<PathBuf>>;

/// The sessions that read their history from another's file (Codex's
/// forks by reference), by the id of the session read.
pub type Dependants = HashMap<String, Vec<PathBuf>>;

/// Codex's titles by session id, read once per listing (empty for the
/// agents whose files carry their own).
pub type Titles = HashMap<String, String>;

/// How an agent's session is moved to another project folder (`move`,
/// `pull`): the files are laid out as one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLayout {
    /// A file under a folder named after the project (Claude Code's
    /// `projects/<mangled folder>/<id>.jsonl`, with its `<id>/` folder).
    ProjectFolder,
    /// A file that records its folder inside (a Codex rollout).
    FolderInside,
}

/// How an agent's sessions are forked (a trim is a fork beside the
/// original): the lines copied, and the new file laid out, as one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForkLayout {
    /// Claude Code: `<project>/<new id>.jsonl`, a `custom-title` line last.
    Claude,
    /// Codex: `sessions/YYYY/MM/DD/rollout-<time>-<new id>.jsonl`, a
    /// `thread_name_updated` event last.
    Codex,
}

/// One agent's format: where its sessions are, how each is read, watched,
/// moved, forked and cleaned up by the agent itself.
pub trait Provider: Sync {
    /// Which agent.
    fn agent(&self) -> Agent;

    /// The name used on the command line and in JSON (`claude`).
    fn name(&self) -> &'static str;

    /// The name a person reads (`Claude Code`).
    fn display_name(&self) -> &'static str;

    /// True for another agent's format, which loki-sessions only reads.
    fn is_external(&self) -> bool {
        true
    }

    /// True when the agent's files say what its sessions spent (the Cursor
    /// CLI's transcripts hold no tokens: no usage and no cost is shown,
    /// not a cost of nothing).
    fn records_usage(&self) -> bool {
        true
    }

    /// True when a delete or a purge moves a session to our trash (and
    /// `restore` puts it back).
    fn moves_to_trash(&self) -> bool {
        false
    }

    /// Why a delete does not move its sessions to the trash, when it does
    /// not (said to the person who asked).
    fn kept_from_the_trash_because(&self) -> &'static str {
        "their files are not moved to the trash yet"
    }

    /// The command that resumes a session, `{id}` standing for its id.
    fn resume_command(&self) -> Option<&'static str> {
        None
    }

    /// True when counting tokens in `encoding` counts as the agent's own
    /// model does (otherwise a count is an estimate).
    fn counts_exactly_in(&self, encoding: crate::store::Encoding) -> bool {
        let _ = encoding;
        false
    }

    /// The folder its sessions are listed from, found from the user's home
    /// and the environment (its `*_HOME` variable); None when there is no
    /// home.
    fn home(&self, home: Option<&Path>, env: EnvLookup<'_>) -> Option<PathBuf> {
        let _ = (home, env);
        None
    }

    /// Every session under `root`, in batches as they are read.
    fn scan(
        &self,
        root: &Path,
        on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool,
    ) -> Result<()> {
        let _ = (root, on_batch);
        Ok(())
    }

    /// The hash of the code that reads a record from a session file, for
    /// a provider that remembers records between listings (see
    /// `listing_cache`); None: every file is read at every listing.
    fn listing_rules(&self) -> Option<u64> {
        None
    }

    /// [`Provider::scan`], taking the records of files `cache` knows as they
    /// are from it and teaching it the others (a provider whose
    /// [`Provider::listing_rules`] are None scans as ever).
    fn scan_remembering(
        &self,
        root: &Path,
        cache: &ListingCache,
        on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool,
    ) -> Result<()> {
        let _ = cache;
        self.scan(root, on_batch)
    }

    /// What every record of `root` needs read once (Codex's titles).
    fn titles(&self, root: &Path) -> Titles {
        let _ = root;
        Titles::new()
    }

    /// The record of the session file `path`.
    fn record_at(&self, path: &Path, titles: &Titles) -> SessionRecord;

    /// The record of session `id`, kept in the file `path` (what `ids`
    /// said): for the agents that keep every session in one file (a
    /// database), the id says which.
    fn record_of(&self, id: &str, path: &Path, titles: &Titles) -> SessionRecord {
        let _ = id;
        self.record_at(path, titles)
    }

    /// The id of the session kept in the file `path` (its name says it, or
    /// its first line does); an id the check refuses is the file's
    /// stand-in, as its record says.
    fn id_of(&self, path: &Path) -> SessionId;

    /// The session files under `root`, found without reading them.
    fn session_files(&self, root: &Path) -> Vec<PathBuf> {
        let _ = root;
        Vec::new()
    }

    /// The sessions under `root` by id, each with its file (what the search
    /// index lists).
    fn ids(&self, root: &Path) -> Vec<(SessionId, PathBuf)> {
        self.session_files(root)
            .into_iter()
            .map(|p| (self.id_of(&p), p))
            .collect()
    }

    /// The session `record` read whole.
    fn read(&self, record: &SessionRecord) -> Result<AgentRead> {
        Err(StoreError::Invalid(format!(
            "session {} is not another agent's",
            record.id
        )))
    }

    /// The last messages of `record` read from the last `bytes` of its
    /// file alone, for a preview; None when the format is read whole.
    fn tail(&self, record: &SessionRecord, bytes: usize) -> Option<Result<Context>> {
        let _ = (record, bytes);
        None
    }

    /// The files the agent keeps for `record` beside its session file
    /// (subagents), for the size and for the search index's stamps.
    fn side_files(&self, record: &SessionRecord) -> Vec<PathBuf> {
        let _ = record;
        Vec::new()
    }

    /// Apparent bytes of `record`'s files: its own and what the agent keeps
    /// beside it.
    fn bytes(&self, record: &SessionRecord) -> u64 {
        own_bytes(record)
    }

    /// True when a delete takes files kept beside the session file.
    fn keeps_files_beside(&self) -> bool {
        true
    }

    /// What [`Provider::trash_belongings`] needs read once per folder, for
    /// a caller asking about every session of it (a purge); None when
    /// nothing is.
    fn folder_side_files(&self, folder: &Path) -> Option<FolderSideFiles> {
        let _ = folder;
        None
    }

    /// The files and folders deleting `record` moves beyond its own file,
    /// `folder_files` being what [`Provider::folder_side_files`] read of
    /// its folder, if the caller did.
    fn trash_belongings(
        &self,
        record: &SessionRecord,
        folder_files: Option<&FolderSideFiles>,
    ) -> Vec<PathBuf> {
        let _ = (record, folder_files);
        Vec::new()
    }

    /// The sessions reading their history from one of `records` (all this
    /// agent's), by the id of the one read: they stand in the way of a
    /// delete.
    fn dependants(&self, records: &[&SessionRecord]) -> Dependants {
        let _ = records;
        Dependants::new()
    }

    /// Why `record` must stay for the sake of the sessions reading it (of
    /// `dependants`, what [`Provider::dependants`] found), if it must.
    fn kept_for(&self, record: &SessionRecord, dependants: &Dependants) -> Option<String> {
        let _ = (record, dependants);
        None
    }

    /// The agent's folder, read off the path of a session file as the
    /// agent lays them out (for a trash entry older than the field that
    /// records it).
    fn root_of_file(&self, file: &Path) -> Option<PathBuf> {
        let _ = file;
        None
    }

    /// The folders to watch under `root`.
    fn watch_root(&self, root: &Path) -> WatchRoot {
        WatchRoot::new(root.to_path_buf(), 1)
    }

    /// The session file a changed path names, given the plain names of
    /// that path below `root`; None when it is not a session's.
    fn session_file_of(&self, root: &Path, names: &[&str]) -> Option<PathBuf> {
        let _ = (root, names);
        None
    }

    /// True when `path` is a file holding every session (OpenCode's
    /// database and its journal), whose changes [`Provider::changed_since`]
    /// says.
    fn is_shared_file(&self, path: &Path) -> bool {
        let _ = path;
        false
    }

    /// For an agent keeping every session in one file under `root`: the
    /// sessions changed after `mark` (what this returned last time; None:
    /// none yet, only the mark is wanted), each with that file, and the
    /// mark to give next time.
    fn changed_since(
        &self,
        root: &Path,
        mark: Option<f64>,
    ) -> Option<(Vec<(SessionId, PathBuf)>, f64)> {
        let _ = (root, mark);
        None
    }

    /// True when a file's id is read inside it (so a watcher remembers
    /// the ids of the files it saw, for when one goes).
    fn id_is_inside(&self) -> bool {
        false
    }

    /// The agent's own cleanup rule for the sessions under `root`, if it
    /// deletes old ones itself.
    fn cleanup_rule(&self, root: &Path) -> Option<Rule> {
        let _ = root;
        None
    }

    /// True when the agent's cleanup counts a session's age from its file's
    /// modification time (else from its last activity).
    fn ages_by_modification(&self) -> bool {
        false
    }

    /// Why this session of an agent whose sessions are forked cannot be,
    /// if it cannot.
    fn fork_refused(&self, record: &SessionRecord) -> Option<String> {
        let _ = record;
        None
    }

    /// How its sessions are forked, if they are.
    fn fork_layout(&self) -> Option<ForkLayout> {
        None
    }

    /// How its sessions move to another folder, or why they do not.
    fn move_layout(&self) -> std::result::Result<MoveLayout, &'static str> {
        Err("moving one is not supported yet")
    }
}

/// Apparent bytes of `record`'s own file.
pub fn own_bytes(record: &SessionRecord) -> u64 {
    std::fs::symlink_metadata(&record.path)
        .ok()
        .filter(|m| m.is_file())
        .map_or(0, |m| m.len())
}

/// A real folder at `path`, as a list of one (none when it is not a
/// folder there).
pub fn folder_if_there(path: PathBuf) -> Vec<PathBuf> {
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
        vec![path]
    } else {
        Vec::new()
    }
}

/// `dir`, or `home/<dot>` when the environment does not name it.
pub fn named_or_home(
    env: EnvLookup<'_>,
    variable: &str,
    home: Option<&Path>,
    dot: &str,
) -> Option<PathBuf> {
    env(variable).or_else(|| home.map(|h| h.join(dot)))
}

/// Loki's trees and peteos folders: the store's own sessions, read by its
/// backends, not by a provider.
pub struct Native {
    /// Which.
    pub agent: Agent,
    /// Its command-line name.
    pub name: &'static str,
    /// Its name for a person.
    pub display_name: &'static str,
}

impl Provider for Native {
    fn agent(&self) -> Agent {
        self.agent
    }

    fn name(&self) -> &'static str {
        self.name
    }

    fn display_name(&self) -> &'static str {
        self.display_name
    }

    fn is_external(&self) -> bool {
        false
    }

    fn records_usage(&self) -> bool {
        false
    }

    fn counts_exactly_in(&self, _: crate::store::Encoding) -> bool {
        // cl100k_base is peteos's own.
        true
    }

    fn record_at(&self, path: &Path, _: &Titles) -> SessionRecord {
        SessionRecord::damaged(
            &path.file_stem().unwrap_or_default().to_string_lossy(),
            path.to_path_buf(),
            path.parent().unwrap_or(path).to_path_buf(),
            &crate::store::sources::agents::user_name(),
            format!("{}: not another agent's session file", path.display()),
        )
    }

    fn id_of(&self, path: &Path) -> SessionId {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        SessionId::of_file(&stem, path)
    }

    fn move_layout(&self) -> std::result::Result<MoveLayout, &'static str> {
        Err("their folder is the session's own")
    }
}
