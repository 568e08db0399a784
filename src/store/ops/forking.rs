//! Writing a fork of the active context under the session's lock: what
//! every trim shares (window trims, drops and clears). The lock is taken,
//! everything is re-read under it and compared with what the preview saw,
//! then the fork is written in three atomic steps.

use crate::store::error::{Result, StoreError};
use crate::store::format::jsonfile;
use crate::store::format::{Context, Session, fork, fork_with, ids};
use crate::store::fs::atomic;
use crate::store::fs::lock::{self, SessionLock};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;

/// What the caller saw when it planned; the edit is refused if it changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The active context id at preview time.
    pub context_id: String,
    /// Its `_mutation_counter` at preview time.
    pub mutation_counter: i64,
}

/// A session held under its lock, with its active context read afresh.
pub(crate) struct Locked {
    _lock: SessionLock,
    session: Session,
    /// The active context, read under the lock.
    pub parent: Context,
}

/// Locks the session (`lock_dir`: the Loki session directory, or `dir`
/// itself), removes leftover temp files and reads the active context of the
/// conversation in `dir`; refuses if it is not what `expected` describes.
pub(crate) fn lock_active(
    dir: &Path,
    lock_dir: &Path,
    expected: Option<&Expected>,
) -> Result<Locked> {
    let lock = SessionLock::acquire(lock_dir, lock::DEFAULT_WAIT)?;
    atomic::remove_stale_temps(dir);
    let session = Session::load(dir)?;
    let parent = active(&session)?;
    if let Some(expected) = expected
        && (parent.id() != expected.context_id
            || parent.mutation_counter() != expected.mutation_counter)
    {
        return Err(StoreError::Busy(format!(
            "the conversation in {} changed since the preview (an agent may have written to it); review the trim again",
            dir.display()
        )));
    }
    Ok(Locked {
        _lock: lock,
        session,
        parent,
    })
}

impl Locked {
    /// Forks the parent keeping `kept` (with `replaced` messages copied
    /// instead of the parent's) and makes the fork active. Writes, in this
    /// order, each atomically: the new context file, the parent with the
    /// child in `children`, session.json pointing at the child; a crash in
    /// between leaves a consistent session.
    pub(crate) fn write_fork(
        &mut self,
        kept: &[usize],
        replaced: &HashMap<usize, Map<String, Value>>,
        child_id: &str,
        now: f64,
    ) -> Result<Context> {
        let child = fork_with(
            &self.parent,
            kept,
            replaced,
            child_id,
            &ids::iso_timestamp(now),
        )?;
        // The parent is checked before anything is written: a bad "children"
        // must not leave an orphan context file behind.
        push_child(&mut self.parent, child_id)?;
        jsonfile::create_object(child.path(), child.raw_dict())?;
        // A later step that fails (a full disk) is undone, so a failed trim
        // leaves the folder as it was: the child removed, the parent put
        // back as it was, byte for byte, from a hard link kept meanwhile.
        let parent = self.parent.path().to_path_buf();
        let held = atomic::hold(&parent);
        let undo = |e: StoreError, parent_written: bool| {
            undo_fork(e, child.path(), &parent, held.as_deref(), parent_written)
        };
        if let Err(e) = jsonfile::write_object(&parent, self.parent.raw_dict()) {
            return Err(undo(e, false));
        }
        self.session.set_active_context(child_id);
        if let Err(e) = self.session.save() {
            return Err(undo(e, true));
        }
        if let Some(held) = &held {
            // A leftover would be a hidden temp file, removed by the next writer.
            let _ = std::fs::remove_file(held);
        }
        Ok(child)
    }
}

/// Undoes the steps of a fork that were made before `error`: the parent
/// put back (when it was written) and the child removed. The error returned
/// is `error`, with what could not be undone, if anything.
fn undo_fork(
    error: StoreError,
    child: &Path,
    parent: &Path,
    held: Option<&Path>,
    parent_written: bool,
) -> StoreError {
    let mut failed = Vec::new();
    match (parent_written, held) {
        (true, Some(held)) => {
            if let Err(e) = atomic::put_back(held, parent) {
                failed.push(e.to_string());
            }
        }
        (true, None) => failed.push(format!(
            "{} keeps the new context in its \"children\"",
            parent.display()
        )),
        (false, Some(held)) => {
            let _ = std::fs::remove_file(held);
        }
        (false, None) => {}
    }
    if let Err(e) = atomic::remove_synced(child) {
        failed.push(e.to_string());
    }
    if failed.is_empty() {
        return error;
    }
    StoreError::Invalid(format!(
        "{error}; undoing the trim left part of it: {}",
        failed.join("; ")
    ))
}

/// The active context of `session`, which must have one.
pub(crate) fn active(session: &Session) -> Result<Context> {
    session.active_context()?.ok_or_else(|| {
        StoreError::NotFound(format!(
            "{} has no active context",
            session.session_path().display()
        ))
    })
}

fn push_child(parent: &mut Context, child_id: &str) -> Result<()> {
    // A "children" that is not a list is refused, naming the file.
    fork::children_of(parent)?;
    let children = parent
        .raw_dict_mut()
        .entry("children")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(children) = children {
        children.push(Value::String(child_id.to_string()));
    }
    Ok(())
}
