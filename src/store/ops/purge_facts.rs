//! The facts a purge plan is decided on, gathered with I/O: size on disk,
//! `is_active`, the lock, whether the conversation can be read, mounts, and
//! a fingerprint that the apply step compares against.

use crate::store::fs::disk;
use crate::store::fs::lock::SessionLock;
use crate::store::ops::conversation::conversation_state;
use crate::store::ops::purge_plan::{Candidate, Fingerprint};
use crate::store::parallel;
use crate::store::sources::layout::META_FILE;
use crate::store::sources::record::SessionRecord;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Gathers the facts about every record, in parallel.
pub fn gather_candidates(records: Vec<SessionRecord>) -> Vec<Candidate> {
    parallel::map_ordered(&records, |r| candidate(r.clone()))
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
