//! The index's folder, its slot in the cache:
//! `<cache>/loki-sessions/<key>/`, the key made of the session folder's
//! canonical path, device and inode (so `/x/s1`, `s1` and `./s1/` are one
//! slot, and two folders typed alike from different places are two).
//!
//! The slot holds what people said in their sessions, so it is this user's
//! alone: `loki-sessions/` and the slot are real directories (never links),
//! owned by the user, 0700; every file in the slot is a regular file owned
//! by the user, 0600, no bigger than an index file can be. Anything else is
//! not trusted: a link or a file where a folder should be, or a slot with a
//! link, a FIFO, a device, a folder or an oversized file in it, is replaced
//! by a fresh folder, with a note (the index is a cache); a folder of
//! another user is refused. Since nobody else may write into a folder of
//! ours that is 0700, what is checked here stays true while it is used.

use crate::store::error::{IoContext, Result, StoreError};
use crate::store::fs::atomic::{self, DIR_MODE, FILE_MODE};
use crate::store::fs::disk::current_uid;
use crate::store::fs::lock::SessionLock;
use crate::store::index::directory::SMALL_FILE_LIMIT;
use crate::store::index::manifest;
use std::fs::{self, Permissions};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The folder holding every slot, in the cache directory.
const FOLDER: &str = "loki-sessions";
/// How long an opener waits for another to finish checking or opening a
/// slot (a check reads one folder; a rebuild of a damaged index removes one).
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Who a session folder is: its canonical path and, when it exists, its
/// device and inode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreIdentity {
    /// The folder's canonical path (as given, made absolute, if it does not exist).
    pub path: PathBuf,
    /// Its device and inode.
    pub id: Option<(u64, u64)>,
}

impl StoreIdentity {
    /// The identity of `store_dir` as it is now.
    pub fn of(store_dir: &Path) -> StoreIdentity {
        match fs::canonicalize(store_dir) {
            Ok(path) => {
                let id = fs::metadata(&path).ok().map(|m| (m.dev(), m.ino()));
                StoreIdentity { path, id }
            }
            Err(_) => StoreIdentity {
                path: std::path::absolute(store_dir).unwrap_or_else(|_| store_dir.to_path_buf()),
                id: None,
            },
        }
    }

    /// The slot of this folder under `cache`.
    pub fn slot(&self, cache: &Path) -> PathBuf {
        let mut name = self.path.as_os_str().as_encoded_bytes().to_vec();
        if let Some((dev, ino)) = self.id {
            name.extend(format!("\0{dev}:{ino}").bytes());
        }
        let key = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, &name);
        cache.join(FOLDER).join(key.to_string())
    }
}

/// True when `slot` and the folder holding it are real directories of
/// this user, for readers that change nothing (an untrusted slot is read
/// as no index at all).
pub fn is_trusted(slot: &Path) -> bool {
    let ours =
        |p: &Path| fs::symlink_metadata(p).is_ok_and(|m| m.is_dir() && m.uid() == current_uid());
    ours(slot) && slot.parent().is_some_and(ours)
}

/// Makes `slot` safe to open, creating what is missing; the note says what
/// was replaced, and why.
pub fn prepare(slot: &Path) -> Result<Option<String>> {
    Ok(prepare_held(slot)?.1)
}

/// The lock on the folder of every slot, held while a slot is checked,
/// opened or rebuilt: an index made by two openers at once would be
/// created twice (tantivy writes a fresh, empty `meta.json` for each), and
/// one opener's rebuild would pull the files from under the other's.
/// Threads and processes alike wait for it (each takes its own `flock`).
#[derive(Debug)]
pub struct Held {
    _lock: SessionLock,
}

impl Held {
    /// [`prepare`] again under the lock already held (after the slot was
    /// removed, to rebuild it).
    pub fn prepare_again(&self, slot: &Path) -> Result<Option<String>> {
        check_slot(slot)
    }
}

/// [`prepare`], the lock on the slots' folder kept for the caller to open
/// the index under.
pub fn prepare_held(slot: &Path) -> Result<(Held, Option<String>)> {
    let folder = slot.parent().unwrap_or(Path::new("."));
    // The cache directory itself is the user's choice (XDG_CACHE_HOME), links and all.
    if let Some(cache) = folder.parent().filter(|c| !c.as_os_str().is_empty()) {
        atomic::create_private_dir_all(cache)?;
    }
    let mut notes = Vec::new();
    private_dir(folder, &mut notes)?;
    let lock = SessionLock::acquire(folder, LOCK_WAIT).map_err(|e| match e {
        StoreError::Locked { path } => StoreError::Busy(format!(
            "another process kept {} locked for {} s while opening a search index; try again",
            path.display(),
            LOCK_WAIT.as_secs()
        )),
        other => other,
    })?;
    let held = Held { _lock: lock };
    notes.extend(check_slot(slot)?);
    Ok((held, (!notes.is_empty()).then(|| notes.join("; "))))
}

/// The slot made a real, private directory holding only what an index
/// holds; a slot that holds anything else is replaced by a fresh folder.
fn check_slot(slot: &Path) -> Result<Option<String>> {
    let mut notes = Vec::new();
    private_dir(slot, &mut notes)?;
    if let Err(why) = check_files(slot) {
        fs::remove_dir_all(slot).ctx("remove the untrusted search index", slot)?;
        atomic::create_private_dir(slot)?;
        notes.push(format!(
            "{} held {why}; it was replaced by a fresh folder",
            slot.display()
        ));
    }
    Ok((!notes.is_empty()).then(|| notes.join("; ")))
}

/// Makes `dir` a real directory of ours, 0700: made if missing, replaced if
/// a link or a file; a directory of another user is refused.
fn private_dir(dir: &Path, notes: &mut Vec<String>) -> Result<()> {
    let meta = match fs::symlink_metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return made(atomic::create_private_dir(dir), dir);
        }
        Err(e) => return Err(StoreError::io("inspect", dir, e)),
    };
    if !meta.is_dir() {
        // A link is removed, never followed: what it points at is not touched.
        let what = if meta.file_type().is_symlink() {
            "a symbolic link"
        } else {
            "not a folder"
        };
        fs::remove_file(dir).ctx("remove", dir)?;
        made(atomic::create_private_dir(dir), dir)?;
        notes.push(format!(
            "{} was {what}; it was replaced by a fresh folder (nothing it pointed at was touched)",
            dir.display()
        ));
        return Ok(());
    }
    if meta.uid() != current_uid() {
        return Err(StoreError::Unsafe {
            path: dir.to_path_buf(),
            reason: format!(
                "it belongs to uid {}, and the search index is kept only in a folder of this user (uid {})",
                meta.uid(),
                current_uid()
            ),
        });
    }
    if meta.mode() & 0o7777 != DIR_MODE {
        fs::set_permissions(dir, Permissions::from_mode(DIR_MODE)).ctx("make private", dir)?;
    }
    Ok(())
}

/// A folder made, or made meanwhile by another process (then checked again).
fn made(result: Result<()>, dir: &Path) -> Result<()> {
    match result {
        Err(_) if fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) => Ok(()),
        other => other,
    }
}

/// Checks every entry of the slot: regular files of ours, of a size the
/// index can have; loose modes are made 0600. Err says what does not belong.
/// A writer of another process goes on meanwhile (its lock is the index's
/// own, not ours): a file it removed since the listing is not a stranger.
fn check_files(slot: &Path) -> std::result::Result<(), String> {
    let entries = fs::read_dir(slot).map_err(|e| format!("an unreadable listing ({e})"))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("an unreadable listing ({e})"))?;
        check_file(&entry.path(), &entry.file_name())?;
    }
    Ok(())
}

/// One entry of the slot, as [`check_files`] checks it (Ok when it is gone).
fn check_file(path: &Path, name: &std::ffi::OsStr) -> std::result::Result<(), String> {
    let gone = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound;
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if gone(&e) => return Ok(()),
        Err(e) => return Err(format!("{name:?} ({e})")),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        return Err(format!("a symbolic link, {name:?}"));
    }
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a folder"
        } else {
            "a special file (a FIFO or a device)"
        };
        return Err(format!("{what}, {name:?}"));
    }
    if meta.uid() != current_uid() {
        return Err(format!("{name:?}, a file of uid {}", meta.uid()));
    }
    let limit = match name.to_str() {
        Some("meta.json" | ".managed.json") => SMALL_FILE_LIMIT,
        Some(manifest::FILE) => manifest::LIMIT,
        _ => u64::MAX,
    };
    if meta.len() > limit {
        return Err(format!(
            "{name:?} of {} bytes, more than such a file ever holds ({limit})",
            meta.len()
        ));
    }
    if meta.mode() & 0o7777 != FILE_MODE {
        match fs::set_permissions(path, Permissions::from_mode(FILE_MODE)) {
            Err(e) if !gone(&e) => {
                return Err(format!("{name:?}, which cannot be made private ({e})"));
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// A private slot under a fresh cache folder.
    fn fresh_slot() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let slot = tmp.path().join(FOLDER).join("slot");
        assert_eq!(prepare(&slot).unwrap(), None);
        (tmp, slot)
    }

    #[test]
    fn a_file_gone_since_the_listing_is_not_a_stranger() {
        let (_tmp, slot) = fresh_slot();
        let gone = slot.join("0a1b.idx");
        assert_eq!(check_file(&gone, gone.file_name().unwrap()), Ok(()));
    }

    #[test]
    fn a_writer_adding_and_removing_files_meanwhile_keeps_its_slot() {
        // As tantivy's writer does in another process: segment files made
        // and, after a merge or a commit, removed.
        let (_tmp, slot) = fresh_slot();
        let kept = slot.join("meta.json");
        fs::write(&kept, b"{}").unwrap();
        let stop = AtomicBool::new(false);
        let cycles = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let n = cycles.fetch_add(1, Ordering::Relaxed);
                    let made: Vec<PathBuf> = (0..32)
                        .map(|i| slot.join(format!("{n}-{i}.store")))
                        .collect();
                    for file in &made {
                        fs::write(file, b"segment").unwrap();
                    }
                    for file in &made {
                        fs::remove_file(file).unwrap();
                    }
                }
            });
            // Checks while the writer works, for a few hundred of its cycles.
            while cycles.load(Ordering::Relaxed) == 0 {
                std::thread::yield_now();
            }
            let mut round = 0;
            while cycles.load(Ordering::Relaxed) < 300 {
                let note = prepare(&slot).unwrap();
                assert_eq!(note, None, "round {round}");
                assert!(kept.is_file(), "round {round}: the slot was replaced");
                round += 1;
            }
            stop.store(true, Ordering::Relaxed);
        });
    }

    #[test]
    fn a_stranger_in_the_slot_still_replaces_it() {
        let (_tmp, slot) = fresh_slot();
        fs::create_dir(slot.join("nested")).unwrap();
        let note = prepare(&slot).unwrap().unwrap();
        assert!(note.contains("a folder, \"nested\""), "{note}");
        assert!(fs::read_dir(&slot).unwrap().next().is_none());
    }

    #[test]
    fn openers_wait_for_the_one_holding_the_folder() {
        let (_tmp, slot) = fresh_slot();
        let (held, _) = prepare_held(&slot).unwrap();
        let released = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let other = scope.spawn(|| {
                prepare(&slot).unwrap();
                released.load(Ordering::SeqCst)
            });
            std::thread::sleep(std::time::Duration::from_millis(100));
            released.store(true, Ordering::SeqCst);
            drop(held);
            assert!(other.join().unwrap(), "the second opener went ahead");
        });
    }
}
