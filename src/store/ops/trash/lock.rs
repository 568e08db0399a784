//! One change of the trash at a time, across threads and processes: a
//! move in, a restore, a delete for good and the finishing of what a kill
//! left half done each hold an exclusive `flock` on the trash folder. Else
//! a listing in one process (which finishes half-moved entries) could
//! move the files a delete in another is moving that very moment, and the
//! delete, finding them gone, would put everything back and fail.

use crate::store::error::{Result, StoreError};
use crate::store::fs::atomic;
use crate::store::fs::lock::SessionLock;
use std::path::Path;
use std::time::Duration;

/// How long a change waits for another one to finish (a purge moves one
/// session at a time, each taking the lock anew).
const WAIT: Duration = Duration::from_secs(10);

/// The trash held; released on drop.
pub(super) struct Held {
    _lock: SessionLock,
}

/// Holds the trash at `trash` (made if missing), waiting for another
/// holder to finish.
pub(super) fn hold(trash: &Path) -> Result<Held> {
    atomic::create_private_dir_all(trash)?;
    let lock = SessionLock::acquire(trash, WAIT).map_err(|e| match e {
        StoreError::Locked { path } => StoreError::Busy(format!(
            "another process kept the trash ({}) busy for {} s; try again",
            path.display(),
            WAIT.as_secs()
        )),
        other => other,
    })?;
    Ok(Held { _lock: lock })
}

/// Holds the trash if it is there and nobody holds it now (a listing then
/// finishes what a kill left half done; while another holds it, what looks
/// half done is that holder's work under way).
pub(super) fn try_hold(trash: &Path) -> Option<Held> {
    if !trash.is_dir() {
        return None;
    }
    SessionLock::try_acquire(trash)
        .ok()
        .flatten()
        .map(|lock| Held { _lock: lock })
}
