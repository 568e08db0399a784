//! The purge of another agent's sessions (those `Agent::moves_to_trash`):
//! the same policy as Loki's (keep the N most recently used, remove those
//! unused for longer than an age), but every removal is a move into our
//! trash through the function `delete` uses, so `restore` undoes it.
//!
//! In three steps like Loki's: [`gather`] the facts (I/O: what each session
//! would take along and its size, whether its agent may be writing to it),
//! [`AgentPurgeFacts::plan`] decides (pure: the UI re-plans at every policy
//! change), [`apply`] checks each removal again just before it moves.

use crate::store::error::StoreError;
use crate::store::ops::purge_apply::{PurgeProgress, PurgeReport};
use crate::store::ops::purge_plan::{Candidate, Fingerprint, KeepReason, PurgePlan, PurgePolicy};
use crate::store::ops::trash::{self, AskedBy, Blockers};
use crate::store::parallel;
use crate::store::sources::agent::Agent;
use crate::store::sources::provider::FolderSideFiles;
use crate::store::sources::record::SessionRecord;
use std::collections::{BTreeMap, HashMap};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Default for another agent: sessions unused for longer than this many
/// days go. Longer than Loki's: these are the agent's own history, which
/// its resume and its own tools read.
pub const AGENT_MAX_AGE_DAYS: f64 = 90.0;
/// Default for another agent: how many of the most recently used are kept
/// whatever their age.
pub const AGENT_KEEP: usize = 1000;

/// The conservative policy for another agent's sessions.
pub fn default_policy() -> PurgePolicy {
    PurgePolicy {
        keep: AGENT_KEEP,
        max_age_days: AGENT_MAX_AGE_DAYS,
    }
}

/// What a purge of one agent's sessions is decided on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentPurgeFacts {
    /// Whose sessions these are.
    pub agent: Agent,
    /// Every session of the agent, with what a delete would move of it
    /// (`bytes`) and the state it was seen in (`fingerprint`).
    pub candidates: Vec<Candidate>,
    /// The sessions its agent may be writing (changed in the last minutes,
    /// or open in a running process), by id, with why.
    pub busy: BTreeMap<String, String>,
}

impl AgentPurgeFacts {
    /// What a purge with `policy` would do: Loki's decision, and a session
    /// its agent may be writing spared with the reason. Pure.
    pub fn plan(&self, policy: PurgePolicy, exclude: &[String], now: f64) -> PurgePlan {
        PurgePlan::build_sparing(self.candidates.clone(), policy, exclude, now, |c| {
            self.busy
                .get(c.record.id.as_str())
                .map(|why| KeepReason::Busy { why: why.clone() })
        })
    }
}

/// Gathers the facts about `records` (every session of `agent`), in parallel;
/// the running processes' open files are read once for all of them, and
/// each Claude Code project folder's older subagent files once for its
/// sessions.
pub fn gather(agent: Agent, records: Vec<SessionRecord>, now: f64) -> AgentPurgeFacts {
    let blockers = Blockers::scan(&records);
    let in_folders = folder_side_files(&records);
    let facts = parallel::map_ordered(&records, |r| {
        let moved = trash::belongings_given(r, in_folders.get(&r.conversation_dir));
        let busy = trash::refusal_of(r, &moved, now, &blockers, false, AskedBy::Purge);
        (candidate(r.clone(), &moved), busy)
    });
    let mut busy = BTreeMap::new();
    let mut candidates = Vec::with_capacity(facts.len());
    for (c, why) in facts {
        if let Some(why) = why {
            busy.insert(c.record.id.to_string(), why);
        }
        candidates.push(c);
    }
    AgentPurgeFacts {
        agent,
        candidates,
        busy,
    }
}

/// What the agent keeps for its sessions in each folder of `records`
/// (Claude Code's older subagent files), each folder read once.
fn folder_side_files(records: &[SessionRecord]) -> HashMap<PathBuf, FolderSideFiles> {
    let mut folders: Vec<(Agent, PathBuf)> = records
        .iter()
        .map(|r| (r.agent, r.conversation_dir.clone()))
        .collect();
    folders.sort();
    folders.dedup();
    let found = parallel::map_ordered(&folders, |(agent, f)| agent.provider().folder_side_files(f));
    folders
        .into_iter()
        .zip(found)
        .filter_map(|((_, folder), files)| Some((folder, files?)))
        .collect()
}

/// The facts of one session: the bytes of everything a delete would move
/// (`moved`: the file, its side folder, its subagents' files), and its
/// fingerprint.
fn candidate(record: SessionRecord, moved: &[PathBuf]) -> Candidate {
    let bytes = trash::bytes_of(moved);
    let fingerprint = fingerprint(&record, moved);
    Candidate {
        record,
        bytes,
        is_active: false,
        locked: false,
        unreadable_conversation: None,
        crosses_filesystems: false,
        fingerprint,
    }
}

/// The state a removal is decided on: the session file's device, inode and
/// modification time, and the newest modification among what goes with it
/// (an agent appending to a subagent's file changes it).
fn fingerprint(record: &SessionRecord, moved: &[PathBuf]) -> Fingerprint {
    let meta = std::fs::symlink_metadata(&record.path).ok();
    Fingerprint {
        dev_ino: meta.as_ref().map_or((0, 0), |m| (m.dev(), m.ino())),
        meta_mtime_ns: meta.as_ref().map_or(0, mtime_ns),
        conversation_mtime_ns: moved
            .iter()
            .skip(1)
            .map(|p| newest_mtime_ns(p))
            .max()
            .unwrap_or(0),
    }
}

fn mtime_ns(m: &std::fs::Metadata) -> i128 {
    m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128
}

/// The newest modification of `path` and, for a folder, of what lies under it.
fn newest_mtime_ns(path: &Path) -> i128 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    let own = mtime_ns(&meta);
    if !meta.is_dir() {
        return own;
    }
    std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| newest_mtime_ns(&e.path()))
        .max()
        .unwrap_or(0)
        .max(own)
}

/// Moves every removal of `plan` into the trash at `trash_dir`, each
/// checked again just before (excluded, changed since the plan, and, by the
/// trash itself, busy). The report's `removed` are the ids moved; nothing
/// is freed until the trash is emptied, so `bytes_freed` stays 0.
pub fn apply(
    plan: &PurgePlan,
    trash_dir: &Path,
    root: &Path,
    exclude: &[String],
    now: f64,
    mut progress: impl FnMut(PurgeProgress),
) -> PurgeReport {
    let mut report = PurgeReport::default();
    let total = plan.removals().count();
    for (done, entry) in plan.removals().enumerate() {
        let planned = &entry.candidate;
        let id = planned.record.id.clone();
        match move_one(planned, trash_dir, root, exclude, now) {
            Ok(None) => report.removed.push(id.to_string()),
            Ok(Some(why)) => report.skipped.push((id.to_string(), why)),
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

/// Moves one session into the trash; `Some(why)` when a re-check spared it.
fn move_one(
    planned: &Candidate,
    trash_dir: &Path,
    root: &Path,
    exclude: &[String],
    now: f64,
) -> Result<Option<String>, StoreError> {
    if exclude.contains(&planned.record.id.to_string()) {
        return Ok(Some("it is the live session".into()));
    }
    if std::fs::symlink_metadata(&planned.record.path).is_err() {
        return Ok(Some("already gone".into()));
    }
    let fresh = candidate(planned.record.clone(), &trash::belongings(&planned.record));
    if fresh.fingerprint != planned.fingerprint {
        return Ok(Some("changed since the preview".into()));
    }
    // The same move `delete` makes, which checks again that the agent is
    // not writing to it.
    Ok(
        trash::trash_unless_busy(trash_dir, root, &planned.record, now, false, AskedBy::Purge)?
            .err(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: f64 = 86_400.0;
    const NOW: f64 = 1_800_000_000.0;

    fn candidate_at(id: &str, days_ago: f64) -> Candidate {
        Candidate {
            record: SessionRecord {
                id: id.into(),
                name: id.into(),
                agent: Agent::Claude,
                last_used_at: NOW - days_ago * DAY,
                path: PathBuf::from(id),
                ..SessionRecord::default()
            },
            bytes: 7,
            is_active: false,
            locked: false,
            unreadable_conversation: None,
            crosses_filesystems: false,
            fingerprint: Fingerprint::default(),
        }
    }

    #[test]
    fn a_busy_session_is_spared_only_where_the_policy_would_remove_it() {
        let facts = AgentPurgeFacts {
            agent: Agent::Claude,
            candidates: vec![
                candidate_at("new", 1.0),
                candidate_at("old", 200.0),
                candidate_at("old-busy", 150.0),
                candidate_at("new-busy", 2.0),
            ],
            busy: [("old-busy", "open"), ("new-busy", "open")]
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .into(),
        };
        let plan = facts.plan(default_policy(), &[], NOW);
        let said: Vec<(String, String)> = plan
            .entries
            .iter()
            .map(|e| (e.candidate.record.id.to_string(), e.decision.to_string()))
            .collect();
        assert_eq!(
            said,
            [
                ("new", "recent: #1, unused for 1 day"),
                ("new-busy", "recent: #2, unused for 2 days"),
                ("old-busy", "busy: open"),
                ("old", "stale: unused for 200 days (limit 90 days)"),
            ]
            .map(|(a, b)| (a.to_string(), b.to_string()))
        );
        assert_eq!(plan.bytes_freed(), 7);
    }
}
