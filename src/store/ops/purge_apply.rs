//! Applying a purge plan safely.
//!
//! Safety rules, each checked again for every session just before it goes:
//! only direct children of the session folder, never a symlink, never on
//! another filesystem, never the live, active, locked or unreadable ones, and
//! only if nothing changed since the plan was made. A session is removed by
//! renaming it to a hidden trash name first (atomic: a reader sees it whole
//! or not at all), then deleting the trash.

use crate::store::error::{Result, StoreError};
use crate::store::fs::lock::SessionLock;
use crate::store::fs::trash;
use crate::store::ops::purge_facts::candidate;
use crate::store::ops::purge_plan::{Candidate, Decision, PurgePlan, RemoveReason};
use crate::store::sources::layout::check_id;
use serde::Serialize;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What applying a plan did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PurgeReport {
    /// Ids removed.
    pub removed: Vec<String>,
    /// Ids the plan would remove but the re-check spared, with why.
    pub skipped: Vec<(String, String)>,
    /// Ids whose removal failed, with the error.
    pub failed: Vec<(String, String)>,
    /// Bytes freed by the removals.
    pub bytes_freed: u64,
}

/// Progress of an apply: `done` of `total` removals handled, the last one `id`.
#[derive(Clone, Debug, PartialEq)]
pub struct PurgeProgress {
    /// Removals handled so far.
    pub done: usize,
    /// Removals in the plan.
    pub total: usize,
    /// The session just handled.
    pub id: String,
}

/// Applies `plan` to the session folder `folder`; `exclude` is re-checked too.
pub fn apply_plan(
    plan: &PurgePlan,
    folder: &Path,
    exclude: &[String],
    mut progress: impl FnMut(PurgeProgress),
) -> PurgeReport {
    let mut report = PurgeReport::default();
    let total = plan.removals().count();
    for (done, entry) in plan.removals().enumerate() {
        let id = entry.candidate.record.id.clone();
        let damaged_ok = matches!(
            entry.decision,
            Decision::Remove(RemoveReason::RequestedDamaged { .. })
        );
        match remove_one(&entry.candidate, folder, exclude, damaged_ok) {
            Ok(Outcome::Removed) => {
                report.removed.push(id.to_string());
                report.bytes_freed += entry.candidate.bytes;
            }
            Ok(Outcome::Skipped(why)) => report.skipped.push((id.to_string(), why)),
            Err(e) => report.failed.push((id.to_string(), e.to_string())),
        }
        progress(PurgeProgress {
            done: done + 1,
            total,
            id: id.into(),
        });
    }
    report
}

enum Outcome {
    Removed,
    Skipped(String),
}

fn remove_one(
    planned: &Candidate,
    folder: &Path,
    exclude: &[String],
    damaged_ok: bool,
) -> Result<Outcome> {
    let id = &planned.record.id;
    check_id(id)?;
    let dir = folder.join(id);
    if dir != planned.record.path {
        return Err(StoreError::Unsafe {
            path: planned.record.path.clone(),
            reason: format!("it is not a direct child of {}", folder.display()),
        });
    }
    if exclude.contains(&id.to_string()) {
        return Ok(Outcome::Skipped("it is the live session".into()));
    }
    let folder_dev = fs::symlink_metadata(folder)
        .map_err(|e| StoreError::io("inspect", folder, e))?
        .dev();
    let meta = match fs::symlink_metadata(&dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Outcome::Skipped("already gone".into()));
        }
        Err(e) => return Err(StoreError::io("inspect", &dir, e)),
    };
    if meta.file_type().is_symlink() || !meta.is_dir() {
        return Ok(Outcome::Skipped("no longer a plain directory".into()));
    }
    if meta.dev() != folder_dev {
        return Ok(Outcome::Skipped("it lies on another filesystem".into()));
    }
    let Some(lock) = SessionLock::try_acquire(&dir)? else {
        return Ok(Outcome::Skipped("locked by another process".into()));
    };
    let fresh = candidate(planned.record.clone());
    if let Some(why) = changed_since_plan(planned, &fresh, damaged_ok) {
        return Ok(Outcome::Skipped(why));
    }
    let trash = trash::move_to_trash(folder, &dir, id)?;
    drop(lock);
    fs::remove_dir_all(&trash).map_err(|e| StoreError::io("delete", &trash, e))?;
    Ok(Outcome::Removed)
}

/// Why the fresh facts no longer justify the removal, if they do not.
fn changed_since_plan(planned: &Candidate, fresh: &Candidate, damaged_ok: bool) -> Option<String> {
    if fresh.fingerprint != planned.fingerprint {
        return Some("changed since the preview".into());
    }
    if fresh.is_active {
        return Some("an agent marked it active".into());
    }
    if fresh.crosses_filesystems {
        return Some("a mount point lies inside".into());
    }
    if let Some(e) = fresh
        .unreadable_conversation
        .as_ref()
        .filter(|_| !damaged_ok)
    {
        return Some(format!("its conversation became unreadable: {e}"));
    }
    None
}
