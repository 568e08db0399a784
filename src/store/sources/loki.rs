//! A user's Loki session tree: read its sessions, create one, touch and
//! rename under the session lock, clean leftovers of killed writers.

use crate::store::error::{IoContext, Result, StoreError};
use crate::store::format::jsonfile;
use crate::store::format::meta::Meta;
use crate::store::format::naming::name_from_prompt;
use crate::store::format::{Session, SessionId, ids};
use crate::store::fs::atomic::{self, TEMP_PREFIX};
use crate::store::fs::disk;
use crate::store::fs::lock::{self, SessionLock};
use crate::store::fs::trash;
use crate::store::parallel;
use crate::store::sources::agent::Agent;
use crate::store::sources::layout::{Layout, SessionPaths, check_id};
use crate::store::sources::record::SessionRecord;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Temp directories older than this are leftovers of a killed writer.
const STALE_TEMP_AGE: Duration = Duration::from_secs(600);

/// One user's session tree under a root. Opening does no I/O.
#[derive(Clone, Debug)]
pub struct LokiTree {
    layout: Layout,
}

impl LokiTree {
    /// Whose sessions a Loki tree holds.
    pub const AGENT: Agent = Agent::Loki;

    /// The tree of `user` under `root` (`<root>/users/<user>/session`).
    pub fn open(root: &Path, user: &str) -> Result<LokiTree> {
        Ok(LokiTree {
            layout: Layout::new(root, user)?,
        })
    }

    /// The paths of this tree.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Refuses to go on when the user's tree belongs to another uid.
    pub fn check_ownership(&self) -> Result<()> {
        disk::check_owned_by_us(&self.layout.user_dir())?;
        disk::check_owned_by_us(&self.layout.sessions_dir())
    }

    /// Refuses a tree that is not there, naming what is missing: the root
    /// itself, or the user's folder when `<root>/users` holds other users'
    /// (naming them). A root with no users at all is an empty tree: fine.
    pub fn check_folder(&self) -> Result<()> {
        let root = self.layout.root();
        match fs::metadata(root) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(StoreError::Missing {
                    path: root.to_path_buf(),
                    message: format!("{} is not a directory", root.display()),
                });
            }
            Err(e) => {
                let why = if e.kind() == std::io::ErrorKind::NotFound {
                    "does not exist".to_string()
                } else {
                    format!("cannot be opened: {e}")
                };
                return Err(StoreError::Missing {
                    path: root.to_path_buf(),
                    message: format!("the Loki home {} {why}", root.display()),
                });
            }
        }
        let user_dir = self.layout.user_dir();
        if fs::symlink_metadata(&user_dir).is_ok() {
            return Ok(());
        }
        let users_dir = root.join("users");
        let mut users: Vec<String> = fs::read_dir(&users_dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| !n.starts_with('.'))
                    .collect()
            })
            .unwrap_or_default();
        if users.is_empty() {
            return Ok(());
        }
        users.sort();
        Err(StoreError::Missing {
            path: user_dir.clone(),
            message: format!(
                "no sessions of user {:?}: {} does not exist; {} holds the sessions of {} (pass --user NAME)",
                self.layout.user(),
                user_dir.display(),
                users_dir.display(),
                users.join(", ")
            ),
        })
    }

    /// Reads every session, handing records over in batches as they are read
    /// (in directory order) so a UI can show rows before the scan ends. The
    /// folder is listed as it is read: the first batch is small and comes
    /// before the listing of a big folder has finished. `on_batch` returns
    /// false to stop the scan (nobody is listening any more).
    pub fn scan(&self, mut on_batch: impl FnMut(Vec<SessionRecord>) -> bool) -> Result<()> {
        self.check_ownership()?;
        let dir = self.layout.sessions_dir();
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(StoreError::io("list sessions in", &dir, e)),
        };
        let workers = parallel::workers();
        const FIRST_BATCH: usize = 128;
        const BATCH: usize = 512;
        let mut pending = Vec::new();
        let mut batch = FIRST_BATCH;
        for entry in entries {
            let entry = entry.ctx("list sessions in", &dir)?;
            let name = entry.file_name().to_string_lossy().into_owned();
            // Hidden entries are our temp files; the listing says what each one is.
            if !name.starts_with('.') {
                pending.push((name, entry.file_type().ok()));
            }
            if pending.len() >= batch {
                if !on_batch(self.read_records(&pending)) {
                    return Ok(());
                }
                pending.clear();
                batch = BATCH * workers;
            }
        }
        if !pending.is_empty() {
            on_batch(self.read_records(&pending));
        }
        Ok(())
    }

    /// The records of `names` (read on all cores).
    fn read_records(&self, names: &[(String, Option<fs::FileType>)]) -> Vec<SessionRecord> {
        parallel::map_ordered(names, |(name, kind)| self.record_of_kind(name, *kind))
    }

    /// The record of the entry `name` in the session folder, damaged or not.
    pub fn record(&self, name: &str) -> SessionRecord {
        self.record_of_kind(name, None)
    }

    /// [`LokiTree::record`] when the entry's type is already known.
    fn record_of_kind(&self, name: &str, kind: Option<fs::FileType>) -> SessionRecord {
        let dir = self.layout.sessions_dir().join(name);
        if let Err(e) = check_id(name) {
            let memory = SessionPaths::new(&dir).memory();
            return SessionRecord::damaged(name, dir, memory, self.layout.user(), e.to_string());
        }
        LokiTree::record_at_kind(&dir, self.layout.user(), kind)
    }

    /// The record of the Loki session directory `dir`, damaged or not.
    pub fn record_at(dir: &Path, user: &str) -> SessionRecord {
        LokiTree::record_at_kind(dir, user, None)
    }

    fn record_at_kind(dir: &Path, user: &str, kind: Option<fs::FileType>) -> SessionRecord {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let paths = SessionPaths::new(dir);
        let damaged = |why: String| {
            SessionRecord::damaged(&name, dir.to_path_buf(), paths.memory(), user, why)
        };
        let kind = match kind {
            Some(kind) => Ok(kind),
            None => fs::symlink_metadata(dir).map(|m| m.file_type()),
        };
        match kind {
            Ok(m) if m.is_symlink() => {
                return damaged(format!(
                    "{} is a symbolic link; not followed",
                    dir.display()
                ));
            }
            Ok(m) if !m.is_dir() => {
                return damaged(format!("{} is not a session directory", dir.display()));
            }
            Ok(_) => {}
            Err(e) => return damaged(StoreError::io("inspect", dir, e).to_string()),
        }
        let id = match SessionId::check(&name) {
            Ok(id) => id,
            Err(why) => return damaged(why),
        };
        match Meta::load(&paths.meta()) {
            Ok(meta) => record_from_meta(id, dir, &meta, user),
            Err(e) => damaged(e.to_string()),
        }
    }

    /// The directory of session `id` if it exists as a real directory.
    pub fn session_dir(&self, id: &str) -> Result<PathBuf> {
        let dir = self.layout.session_dir(id)?;
        match fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => Ok(dir),
            Ok(_) => Err(StoreError::Unsafe {
                path: dir,
                reason: "it is not a plain directory".into(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(StoreError::NotFound(format!(
                    "no session {id:?} in {}",
                    self.layout.sessions_dir().display()
                )))
            }
            Err(e) => Err(StoreError::io("inspect", &dir, e)),
        }
    }

    /// Creates a session for `first_prompt` and returns its record. The new
    /// directory is built under a hidden name and renamed into place, so a
    /// crash never leaves a half-made session in the list. Does not purge:
    /// see `Store::start` for the seed's start, which purges first.
    pub fn create(&self, first_prompt: &str, now: f64) -> Result<SessionRecord> {
        self.check_ownership()?;
        self.remove_stale_leftovers();
        let id = ids::dated_id(now);
        self.build_in_place("new", &id, |staging| {
            self.build_session(staging, &id, first_prompt, now)
        })
    }

    /// Builds session `id` under a hidden staging name with `fill`, then
    /// renames it into place (never over an existing session), so a crash
    /// never leaves a half-made session in the list.
    pub(super) fn build_in_place(
        &self,
        kind: &str,
        id: &str,
        fill: impl FnOnce(&Path) -> Result<()>,
    ) -> Result<SessionRecord> {
        let sessions = self.layout.sessions_dir();
        atomic::create_private_dir_all(&sessions)?;
        let staging = sessions.join(atomic::staging_name(kind, id));
        atomic::create_private_dir(&staging)?;
        if let Err(e) = fill(&staging) {
            let _ = fs::remove_dir_all(&staging);
            return Err(e);
        }
        let dir = sessions.join(id);
        let moved = rustix::fs::renameat_with(
            rustix::fs::CWD,
            &staging,
            rustix::fs::CWD,
            &dir,
            rustix::fs::RenameFlags::NOREPLACE,
        );
        if let Err(e) = moved {
            let _ = fs::remove_dir_all(&staging);
            return Err(StoreError::io("move into place", &dir, e.into()));
        }
        atomic::sync_dir(&sessions)?;
        Ok(self.record(id))
    }

    fn build_session(&self, dir: &Path, id: &str, first_prompt: &str, now: f64) -> Result<()> {
        let paths = SessionPaths::new(dir);
        for sub in [paths.workspace(), paths.memory(), paths.cache()] {
            atomic::create_private_dir(&sub)?;
        }
        let name = name_from_prompt(first_prompt);
        let meta = Meta::new(
            &paths.meta(),
            id,
            &name,
            self.layout.user(),
            first_prompt,
            now,
        );
        atomic::write_private_file(&paths.meta(), jsonfile::render(meta.raw_dict()).as_bytes())?;
        let (session, context) = Session::create(&paths.memory(), id, now);
        let context_path = paths.memory().join(format!("{}.json", context.id()));
        atomic::write_private_file(
            &context_path,
            jsonfile::render(context.raw_dict()).as_bytes(),
        )?;
        atomic::write_private_file(
            &session.session_path(),
            jsonfile::render(session.raw_dict()).as_bytes(),
        )?;
        for d in [paths.memory(), paths.dir.clone()] {
            atomic::sync_dir(&d)?;
        }
        Ok(())
    }

    /// Renames session `id` (the name is stored as given, trimmed).
    pub fn rename(&self, id: &str, name: &str) -> Result<SessionRecord> {
        let name = name.trim();
        if name.is_empty() {
            return Err(StoreError::Invalid("a session name cannot be empty".into()));
        }
        self.update_meta(id, |meta| meta.set_name(name))
    }

    /// Read-modify-write of meta.json under the session lock.
    fn update_meta(&self, id: &str, change: impl FnOnce(&mut Meta)) -> Result<SessionRecord> {
        self.check_ownership()?;
        let dir = self.session_dir(id)?;
        update_meta_at(&dir, change)?;
        Ok(LokiTree::record_at(&dir, self.layout.user()))
    }

    /// Sets `last_used_at = now` on the Loki session at `dir`, wherever it is.
    pub fn touch_at(dir: &Path, now: f64) -> Result<()> {
        disk::check_owned_by_us(dir)?;
        update_meta_at(dir, |meta| meta.touch(now))
    }

    /// Removes leftovers of killed writers in the session folder: trash of
    /// an interrupted purge, and staging directories of `create`/`import`
    /// whose builder is gone (or that are too old to belong to a live one).
    pub fn remove_stale_leftovers(&self) {
        let sessions = self.layout.sessions_dir();
        trash::remove_stale_trash(&sessions);
        let Ok(entries) = fs::read_dir(&sessions) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(meta) = entry.metadata() else { continue };
            let old = meta
                .modified()
                .ok()
                .and_then(|m| m.elapsed().ok())
                .is_some_and(|age| age >= STALE_TEMP_AGE);
            let dead = atomic::staging_is_abandoned(&name);
            if name.starts_with(TEMP_PREFIX) && meta.is_dir() && (old || dead) {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// Changes meta.json of the session at `dir` under its lock, re-reading it
/// under the lock so a concurrent writer's change is never lost.
fn update_meta_at(dir: &Path, change: impl FnOnce(&mut Meta)) -> Result<()> {
    let _lock = SessionLock::acquire(dir, lock::DEFAULT_WAIT)?;
    atomic::remove_stale_temps(dir);
    let mut meta = Meta::load(&SessionPaths::new(dir).meta())?;
    change(&mut meta);
    meta.save()
}

/// A record from a readable meta.json; the directory name is the id.
fn record_from_meta(id: SessionId, dir: &Path, meta: &Meta, user: &str) -> SessionRecord {
    let name = match meta.name() {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => name_from_prompt(meta.first_prompt()),
    };
    SessionRecord {
        agent: LokiTree::AGENT,
        id,
        title: name.clone(),
        cwd: None,
        name,
        user: meta.user().unwrap_or(user).to_string(),
        first_prompt: meta.first_prompt().to_string(),
        created_at: meta.created_at(),
        last_used_at: meta.last_used_at(),
        path: dir.to_path_buf(),
        conversation_dir: SessionPaths::new(dir).memory(),
        error: None,
        bytes: None,
        stamp: None,
        archived: false,
    }
}
