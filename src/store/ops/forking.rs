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
        return Err(StoreError::Invalid(format!(
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
        jsonfile::write_object(self.parent.path(), self.parent.raw_dict())?;
        self.session.set_active_context(child_id);
        self.session.save()?;
        Ok(child)
    }
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
