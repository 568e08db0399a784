//! The per-session advisory lock every writer holds.
//!
//! Protocol (documented in docs/RELIABILITY.md): a writer opens the session
//! directory itself and takes an exclusive `flock` on it, then checks that the
//! path still names the directory it locked (a purge may have moved it away),
//! re-reads what it is about to change, writes with [`crate::store::fs::atomic`],
//! and releases the lock by dropping it. Locking the directory, not a lock
//! file inside it, means locking never writes into the user's data. Readers
//! take no lock: atomic replacement means they never see a torn file.

use crate::store::error::{IoContext, Result, StoreError};
use std::fs::{File, TryLockError};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

/// How long a writer waits for a busy session before giving up.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(5);

/// An exclusive lock on one session directory, released on drop.
#[derive(Debug)]
pub struct SessionLock {
    _handle: File,
}

impl SessionLock {
    /// Locks `dir`, waiting up to `wait` for another holder to finish.
    pub fn acquire(dir: &Path, wait: Duration) -> Result<SessionLock> {
        let deadline = Instant::now() + wait;
        let mut pause = Duration::from_millis(1);
        loop {
            match Self::try_acquire(dir)? {
                Some(lock) => return Ok(lock),
                None if Instant::now() >= deadline => {
                    return Err(StoreError::Locked {
                        path: dir.to_path_buf(),
                    });
                }
                None => {
                    thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
            }
        }
    }

    /// Locks `dir` if nobody else holds it; `Ok(None)` when it is busy.
    pub fn try_acquire(dir: &Path) -> Result<Option<SessionLock>> {
        // A directory only, never through a link, never waiting on a FIFO.
        let handle = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(dir)
            .ctx("open for locking", dir)?;
        match handle.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Ok(None),
            Err(TryLockError::Error(e)) => return Err(StoreError::io("lock", dir, e)),
        }
        // The directory may have been renamed away (purged) between open and
        // lock; then the lock guards nothing that is still reachable.
        let held = handle.metadata().ctx("inspect", dir)?;
        let now = std::fs::symlink_metadata(dir).ctx("inspect", dir)?;
        if held.dev() != now.dev() || held.ino() != now.ino() {
            return Err(StoreError::NotFound(format!(
                "{} was removed while waiting for its lock",
                dir.display()
            )));
        }
        Ok(Some(SessionLock { _handle: handle }))
    }

    /// True when some process holds the lock on `dir` right now.
    pub fn is_held_elsewhere(dir: &Path) -> Result<bool> {
        Ok(Self::try_acquire(dir)?.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_locker_waits_then_fails() {
        let dir = tempfile::tempdir().unwrap();
        let first = SessionLock::acquire(dir.path(), DEFAULT_WAIT).unwrap();
        assert!(SessionLock::is_held_elsewhere(dir.path()).unwrap());
        let err = SessionLock::acquire(dir.path(), Duration::from_millis(20)).unwrap_err();
        assert!(matches!(err, StoreError::Locked { .. }));
        drop(first);
        assert!(SessionLock::try_acquire(dir.path()).unwrap().is_some());
    }
}
