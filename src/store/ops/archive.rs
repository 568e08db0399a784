//! An archive of our own for other agents' sessions, so that what an
//! agent's cleanup deletes (Claude Code's `cleanupPeriodDays`, Gemini
//! CLI's retention) is kept: `$XDG_DATA_HOME/loki-sessions/archive/`,
//! private, one entry per session, `<agent>/<session id>/`, holding each
//! of the session's files (its file, its side folder, its subagents)
//! compressed with zstd (`<n>.zst`) and `manifest.json`, which names where
//! each came from (relative to the agent's folder), its size, SHA-256 and
//! times. Archiving copies: the agent's files are only read.
//!
//! An unchanged session is stored once (the manifest's content hash, over
//! every file's path and hash); a changed one replaces its older copy
//! (said). An entry is written under a hidden name and renamed into place,
//! so a kill leaves the old copy or the new. `restore` writes the files
//! back where they were, byte for byte (each checked against its hash
//! first: one that fails is reported and nothing is written), never over
//! anything, with a fresh modification time so the agent's next cleanup
//! does not take it again at once. One change of the archive at a time
//! (a `flock`).

use crate::store::error::{Result, StoreError};
use crate::store::format::SessionId;
use crate::store::fs::atomic;
use crate::store::fs::lock::SessionLock;
use crate::store::fs::open;
use crate::store::sources::agent::Agent;
pub use crate::store::sources::archived::Manifest;
use crate::store::sources::archived::{
    ArchivedFile, FORMAT, MANIFEST, file_bytes, hex, plain_relative, read_manifest,
};
use crate::store::sources::record::SessionRecord;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a change waits for another to finish.
const WAIT: Duration = Duration::from_secs(30);
/// zstd's level: Codex's own, quick, and compact on JSON Lines.
const LEVEL: i32 = 3;

/// Where the archive is by default.
pub fn default_dir() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("loki-sessions").join("archive"))
}

/// What archiving one session did.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Archived {
    /// Stored for the first time.
    New,
    /// Its copy was the same: nothing written.
    Unchanged,
    /// It had changed: the newest copy replaced the one archived then.
    Replaced {
        /// When the older copy was archived.
        older_archived_at: f64,
    },
}

/// One session archived.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArchiveOutcome {
    /// Whose.
    pub agent: Agent,
    /// The session.
    pub id: String,
    /// What was done.
    pub result: Archived,
    /// Its size, and stored.
    pub bytes: u64,
    /// Bytes the entry takes compressed.
    pub stored_bytes: u64,
}

/// The archive at a folder.
pub struct Archive {
    dir: PathBuf,
}

impl Archive {
    /// The archive in `dir` (made when first written).
    pub fn at(dir: &Path) -> Archive {
        Archive {
            dir: dir.to_path_buf(),
        }
    }

    fn entry_dir(&self, agent: Agent, id: &str) -> PathBuf {
        self.dir.join(agent.name()).join(id)
    }

    /// Archives `record`, whose files lie beneath `root` (its agent's
    /// folder), `files` the session's own first (its file, side folder,
    /// subagents). A session whose id is not a checked one is refused.
    pub fn put(
        &self,
        record: &SessionRecord,
        root: &Path,
        files: &[PathBuf],
        now: f64,
    ) -> Result<ArchiveOutcome> {
        if let Some(error) = &record.error {
            return Err(StoreError::Damaged(format!(
                "session {} is damaged and is not archived: {error}",
                record.id
            )));
        }
        SessionId::check(record.id.as_str()).map_err(StoreError::Invalid)?;
        let _held = self.hold()?;
        let paths = expand(files);
        let entry = self.entry_dir(record.agent, record.id.as_str());
        let older = read_manifest(&entry).ok();
        if let Some(old) = &older
            && same_files(old, root, &paths)
        {
            // Each file the same size and time as archived: not read again
            // (an archive of what is due runs at every start).
            return Ok(ArchiveOutcome {
                agent: record.agent,
                id: record.id.to_string(),
                result: Archived::Unchanged,
                bytes: old.bytes(),
                stored_bytes: stored_bytes(&entry),
            });
        }
        // Every file, read once: its bytes, hash and time.
        let mut read = Vec::new();
        for path in paths {
            let rel = path
                .strip_prefix(root)
                .map_err(|_| {
                    StoreError::Invalid(format!(
                        "{} is not inside {}; not archived",
                        path.display(),
                        root.display()
                    ))
                })?
                .to_path_buf();
            let mut file = open::regular(&path)?;
            let meta = file
                .metadata()
                .map_err(|e| StoreError::io("read", &path, e))?;
            let mut bytes = Vec::with_capacity(meta.len() as usize);
            file.read_to_end(&mut bytes)
                .map_err(|e| StoreError::io("read", &path, e))?;
            let mtime = meta.modified().map_or(0.0, seconds);
            read.push((rel, bytes, mtime));
        }
        let Some((main, _, _)) = read.first() else {
            return Err(StoreError::Invalid(format!(
                "session {} has no file to archive",
                record.id
            )));
        };
        let main = main.clone();
        let files: Vec<ArchivedFile> = read
            .iter()
            .enumerate()
            .map(|(n, (rel, bytes, mtime))| ArchivedFile {
                path: rel.clone(),
                bytes: bytes.len() as u64,
                sha256: hex(&Sha256::digest(bytes)),
                mtime: *mtime,
                stored: format!("{n}.zst"),
            })
            .collect();
        let content = content_hash(&files);
        if let Some(old) = &older
            && old.content_sha256 == content
        {
            return Ok(ArchiveOutcome {
                agent: record.agent,
                id: record.id.to_string(),
                result: Archived::Unchanged,
                bytes: old.bytes(),
                stored_bytes: stored_bytes(&entry),
            });
        }
        let manifest = Manifest {
            format: FORMAT,
            agent: record.agent,
            id: record.id.to_string(),
            title: record.title.clone(),
            cwd: record.cwd.clone(),
            created_at: record.created_at,
            last_used_at: record.last_used_at,
            archived_at: now,
            root: root.to_path_buf(),
            main,
            content_sha256: content,
            files,
        };
        let agent_dir = self.dir.join(record.agent.name());
        atomic::create_private_dir_all(&agent_dir)?;
        let fresh = tempfile::Builder::new()
            .prefix(".new-")
            .tempdir_in(&agent_dir)
            .map_err(|e| StoreError::io("create", &agent_dir, e))?;
        for (file, (_, bytes, _)) in manifest.files.iter().zip(&read) {
            let packed = zstd::encode_all(&bytes[..], LEVEL)
                .map_err(|e| StoreError::io("compress", &file.path, e))?;
            atomic::create_new_atomic(&fresh.path().join(&file.stored), &packed)?;
        }
        let text = serde_json::to_vec_pretty(&manifest).expect("a manifest serializes");
        atomic::create_new_atomic(&fresh.path().join(MANIFEST), &text)?;
        // The new copy takes the entry's name; the older one goes after.
        let fresh = fresh.keep();
        if older.is_some() {
            take_place(&fresh, &entry)?;
        } else {
            std::fs::rename(&fresh, &entry)
                .map_err(|e| StoreError::io("archive into", &entry, e))?;
        }
        atomic::sync_dir(&agent_dir)?;
        Ok(ArchiveOutcome {
            agent: record.agent,
            id: record.id.to_string(),
            result: match older {
                None => Archived::New,
                Some(old) => Archived::Replaced {
                    older_archived_at: old.archived_at,
                },
            },
            bytes: manifest.bytes(),
            stored_bytes: stored_bytes(&entry),
        })
    }

    /// Every entry's manifest, most recently archived first; an entry
    /// that cannot be read is reported as an error naming it, not skipped.
    pub fn list(&self) -> Vec<std::result::Result<Manifest, String>> {
        let mut out = Vec::new();
        for agent in Agent::EXTERNAL {
            let Ok(listing) = std::fs::read_dir(self.dir.join(agent.name())) else {
                continue;
            };
            for e in listing.flatten() {
                let name = e.file_name();
                if name.to_string_lossy().starts_with('.') {
                    continue;
                }
                out.push(read_manifest(&e.path()).map_err(|err| err.to_string()));
            }
        }
        out.sort_by(|a, b| match (a, b) {
            (Ok(a), Ok(b)) => b.archived_at.total_cmp(&a.archived_at),
            (Err(_), Ok(_)) => std::cmp::Ordering::Less,
            (Ok(_), Err(_)) => std::cmp::Ordering::Greater,
            (Err(a), Err(b)) => a.cmp(b),
        });
        out
    }

    /// The entry `arg` names: an id or a unique id prefix.
    pub fn find(&self, arg: &str) -> Result<Manifest> {
        let found: Vec<Manifest> = self
            .list()
            .into_iter()
            .flatten()
            .filter(|m| m.id == arg || m.id.starts_with(arg))
            .collect();
        match found.as_slice() {
            [] => Err(StoreError::NotFound(format!(
                "no archived session has the id or prefix {arg:?}"
            ))),
            [one] => Ok(one.clone()),
            many if many.iter().any(|m| m.id == arg) => {
                Ok(many.iter().find(|m| m.id == arg).cloned().expect("found"))
            }
            many => Err(StoreError::Invalid(format!(
                "{} archived sessions start with {arg:?}; give more of the id",
                many.len()
            ))),
        }
    }

    /// Writes `manifest`'s session back where it was, byte for byte, each
    /// file checked against its hash first; never over anything; each
    /// file dated `now` (so the agent's cleanup does not take it again at
    /// once). Returns the files written.
    pub fn restore(&self, manifest: &Manifest, now: f64) -> Result<Vec<PathBuf>> {
        let _held = self.hold()?;
        let entry = self.entry_dir(manifest.agent, &manifest.id);
        let mut files = Vec::new();
        for f in &manifest.files {
            if !plain_relative(&f.path) {
                return Err(StoreError::Unsafe {
                    path: f.path.clone(),
                    reason: "the archive names a path that climbs out of the agent's folder; nothing restored".into(),
                });
            }
            let bytes = file_bytes(&entry, f)
                .map_err(|e| StoreError::Invalid(format!("{e}; nothing restored")))?;
            let to = manifest.root.join(&f.path);
            if std::fs::symlink_metadata(&to).is_ok() {
                if f.path != manifest.main && holds(&to, &bytes) {
                    // A side file the agent left (or one restored before):
                    // already as archived, so it is not written again.
                    continue;
                }
                return Err(StoreError::Invalid(format!(
                    "{} is there already{}: nothing restored (never written over; move it away first)",
                    to.display(),
                    if f.path == manifest.main {
                        " (its agent still has this session)"
                    } else {
                        ", unlike the archived copy"
                    }
                )));
            }
            files.push((to, bytes));
        }
        let mut written = Vec::new();
        for (to, bytes) in &files {
            let made = to
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .map_err(|e| StoreError::io("create", to, e))
                .and_then(|()| atomic::create_new_atomic(to, bytes));
            if let Err(e) = made {
                for p in &written {
                    let _ = std::fs::remove_file(p);
                }
                return Err(e);
            }
            let when = std::time::UNIX_EPOCH + Duration::from_secs_f64(now.max(0.0));
            let _ = std::fs::File::options()
                .append(true)
                .open(to)
                .and_then(|f| f.set_modified(when));
            written.push(to.clone());
        }
        Ok(written)
    }

    /// Deletes the entries of `manifests` for good.
    pub fn delete(&self, manifests: &[Manifest]) -> Result<()> {
        let _held = self.hold()?;
        for m in manifests {
            let entry = self.entry_dir(m.agent, &m.id);
            std::fs::remove_dir_all(&entry).map_err(|e| StoreError::io("delete", &entry, e))?;
        }
        Ok(())
    }

    fn hold(&self) -> Result<SessionLock> {
        atomic::create_private_dir_all(&self.dir)?;
        SessionLock::acquire(&self.dir, WAIT)
    }
}

/// The files of `paths`, a folder's (a side folder) file by file.
fn expand(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        match std::fs::symlink_metadata(p) {
            Ok(m) if m.is_dir() => out.extend(crate::store::fs::disk::files_below(p)),
            Ok(m) if m.is_file() => out.push(p.clone()),
            _ => {}
        }
    }
    out
}

/// True when `path` is a regular file holding exactly `bytes`.
fn holds(path: &Path, bytes: &[u8]) -> bool {
    let Ok(mut file) = open::regular(path) else {
        return false;
    };
    let mut there = Vec::new();
    file.read_to_end(&mut there).is_ok() && there == bytes
}

/// True when `paths` are the files `old` archived (beneath `root`), each
/// of the size and modification time it had then.
fn same_files(old: &Manifest, root: &Path, paths: &[PathBuf]) -> bool {
    old.root == root
        && old.files.len() == paths.len()
        && old.files.iter().zip(paths).all(|(f, path)| {
            root.join(&f.path) == *path
                && std::fs::symlink_metadata(path).is_ok_and(|m| {
                    m.is_file()
                        && m.len() == f.bytes
                        && m.modified().map_or(0.0, seconds) == f.mtime
                })
        })
}

/// Puts the folder `fresh` in the place of `entry`: both swapped at once
/// (`RENAME_EXCHANGE`, so a kill leaves one copy or the other under the
/// name, never none), then the older copy, now at `fresh`, removed. A
/// filesystem without the exchange gets two renames, the older copy set
/// aside under a hidden name first.
fn take_place(fresh: &Path, entry: &Path) -> Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    match renameat_with(CWD, fresh, CWD, entry, RenameFlags::EXCHANGE) {
        Ok(()) => {}
        Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
            let retired = entry.with_file_name(format!(".old-{}", uuid::Uuid::new_v4()));
            std::fs::rename(entry, &retired).map_err(|e| StoreError::io("replace", entry, e))?;
            std::fs::rename(fresh, entry).map_err(|e| StoreError::io("archive into", entry, e))?;
            let _ = std::fs::remove_dir_all(&retired);
            return Ok(());
        }
        Err(e) => return Err(StoreError::io("replace", entry, e.into())),
    }
    let _ = std::fs::remove_dir_all(fresh);
    Ok(())
}

fn content_hash(files: &[ArchivedFile]) -> String {
    let mut h = Sha256::new();
    for f in files {
        h.update(f.path.to_string_lossy().as_bytes());
        h.update([0]);
        h.update(f.sha256.as_bytes());
        h.update([0]);
    }
    hex(&h.finalize())
}

fn stored_bytes(entry: &Path) -> u64 {
    std::fs::read_dir(entry)
        .map(|l| {
            l.flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

fn seconds(t: std::time::SystemTime) -> f64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}
