//! Gathering the facts a purge plan needs, and applying a plan safely.
//!
//! Safety rules, each checked again for every session just before it goes:
//! only direct children of the session folder, never a symlink, never on
//! another filesystem, never the live, active, locked or unreadable ones, and
//! only if nothing changed since the plan was made. A session is removed by
//! renaming it to a hidden trash name first (atomic: a reader sees it whole
//! or not at all), then deleting the trash.

use crate::store::atomic::{self, TEMP_PREFIX};
use crate::store::disk;
use crate::store::error::{Result, StoreError};
use crate::store::layout::{META_FILE, check_id};
use crate::store::lock::SessionLock;
use crate::store::parallel;
use crate::store::purge_plan::{Candidate, Decision, Fingerprint, PurgePlan, PurgePolicy};
use crate::store::record::{SessionRecord, conversation_state};
use serde::Serialize;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Gathers the facts about every record, in parallel.
pub fn gather_candidates(records: Vec<SessionRecord>) -> Vec<Candidate> {
    parallel::map_ordered(&records, |r| candidate(r.clone()))
}

/// The plan for `records` under `policy`: facts gathered, then decided.
pub fn plan(
    records: Vec<SessionRecord>,
    policy: PurgePolicy,
    exclude: &[String],
    now: f64,
) -> PurgePlan {
    PurgePlan::build(gather_candidates(records), policy, exclude, now)
}

/// The facts about one session.
pub fn candidate(record: SessionRecord) -> Candidate {
    let facts = disk::tree_facts(&record.path).unwrap_or_default();
    // A session whose conversation cannot be read is spared: deleting what
    // we failed to read could lose work.
    let (is_active, unreadable_conversation) = match conversation_state(&record) {
        Ok(is_active) => (is_active, None),
        Err(e) => (false, Some(e.to_string())),
    };
    let locked =
        record.is_readable() && SessionLock::is_held_elsewhere(&record.path).unwrap_or(false);
    let fingerprint = fingerprint(&record);
    Candidate {
        record,
        bytes: facts.bytes,
        is_active,
        locked,
        unreadable_conversation,
        crosses_filesystems: facts.crosses_filesystems,
        fingerprint,
    }
}

fn fingerprint(record: &SessionRecord) -> Fingerprint {
    let dev_ino = fs::symlink_metadata(&record.path).map_or((0, 0), |m| (m.dev(), m.ino()));
    Fingerprint {
        dev_ino,
        meta_mtime_ns: mtime_ns(&record.path.join(META_FILE)),
        conversation_mtime_ns: newest_mtime_ns(&record.conversation_dir),
    }
}

fn mtime_ns(path: &Path) -> i128 {
    fs::symlink_metadata(path).map_or(0, |m| {
        m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128
    })
}

/// The newest modification among the conversation's files: an agent that
/// appends a message changes it even if it does not touch meta.json.
fn newest_mtime_ns(dir: &Path) -> i128 {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| mtime_ns(&e.path()))
        .max()
        .unwrap_or(0)
        .max(mtime_ns(dir))
}

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
        match remove_one(&entry.candidate, folder, exclude) {
            Ok(Outcome::Removed) => {
                report.removed.push(id.clone());
                report.bytes_freed += entry.candidate.bytes;
            }
            Ok(Outcome::Skipped(why)) => report.skipped.push((id.clone(), why)),
            Err(e) => report.failed.push((id.clone(), e.to_string())),
        }
        progress(PurgeProgress {
            done: done + 1,
            total,
            id,
        });
    }
    report
}

enum Outcome {
    Removed,
    Skipped(String),
}

fn remove_one(planned: &Candidate, folder: &Path, exclude: &[String]) -> Result<Outcome> {
    let id = &planned.record.id;
    check_id(id)?;
    let dir = folder.join(id);
    if dir != planned.record.path {
        return Err(StoreError::Unsafe {
            path: planned.record.path.clone(),
            reason: format!("it is not a direct child of {}", folder.display()),
        });
    }
    if exclude.contains(id) {
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
    if let Some(why) = changed_since_plan(planned, &fresh) {
        return Ok(Outcome::Skipped(why));
    }
    let trash = folder.join(format!(
        "{TEMP_PREFIX}purge-{id}-{}",
        uuid::Uuid::new_v4().simple()
    ));
    fs::rename(&dir, &trash).map_err(|e| StoreError::io("move to trash", &dir, e))?;
    atomic::sync_dir(folder)?;
    drop(lock);
    fs::remove_dir_all(&trash).map_err(|e| StoreError::io("delete", &trash, e))?;
    Ok(Outcome::Removed)
}

/// Why the fresh facts no longer justify the removal, if they do not.
fn changed_since_plan(planned: &Candidate, fresh: &Candidate) -> Option<String> {
    if fresh.fingerprint != planned.fingerprint {
        return Some("changed since the preview".into());
    }
    if fresh.is_active {
        return Some("an agent marked it active".into());
    }
    if fresh.crosses_filesystems {
        return Some("a mount point lies inside".into());
    }
    if let Some(e) = &fresh.unreadable_conversation {
        return Some(format!("its conversation became unreadable: {e}"));
    }
    None
}

/// Deletes trash an interrupted purge left in `folder` (hidden, never listed).
pub fn remove_stale_trash(folder: &Path) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    let prefix = format!("{TEMP_PREFIX}purge-");
    for entry in entries.flatten() {
        let is_trash = entry.file_name().to_string_lossy().starts_with(&prefix);
        if is_trash && entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// True when the plan would remove `id`.
pub fn removes(plan: &PurgePlan, id: &str) -> bool {
    plan.entries
        .iter()
        .any(|e| e.candidate.record.id == id && matches!(e.decision, Decision::Remove(_)))
}
