//! The purge plan as data: for every session, keep or remove, and why.
//!
//! Building a plan is pure: the facts about each session are gathered first
//! ([`Candidate`]), then [`PurgePlan::build`] decides. Applying a plan lives in
//! `purge_apply.rs` and re-checks each entry before it deletes anything.

use crate::store::sources::record::SessionRecord;
use serde::Serialize;

/// Seed default: sessions unused for longer than this many days are stale.
pub const MAX_AGE_DAYS: f64 = 30.0;
/// Seed default: how many of the most recently used sessions are kept.
pub const KEEP: usize = 100;
const DAY: f64 = 86_400.0;

/// When a session counts as stale.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PurgePolicy {
    /// Keep at most this many most recently used sessions.
    pub keep: usize,
    /// Sessions unused for longer than this many days are stale.
    pub max_age_days: f64,
}

impl Default for PurgePolicy {
    fn default() -> Self {
        PurgePolicy {
            keep: KEEP,
            max_age_days: MAX_AGE_DAYS,
        }
    }
}

/// What is known of one session before deciding (gathered with I/O).
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The listed session.
    pub record: SessionRecord,
    /// The session's size (apparent bytes of its files, as the list gives it).
    pub bytes: u64,
    /// `is_active` in its session.json.
    pub is_active: bool,
    /// Another process holds its lock.
    pub locked: bool,
    /// Why its conversation could not be checked for `is_active`, if so.
    pub unreadable_conversation: Option<String>,
    /// A directory inside lies on another filesystem.
    pub crosses_filesystems: bool,
    /// What must be unchanged when the plan is applied.
    pub fingerprint: Fingerprint,
}

/// The state a removal was decided on; apply skips the session if it differs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Fingerprint {
    /// Device and inode of the session directory.
    pub dev_ino: (u64, u64),
    /// meta.json's modification time in nanoseconds (and the bytes of its last use).
    pub meta_mtime_ns: i128,
    /// session.json's modification time in nanoseconds (0 if absent).
    pub conversation_mtime_ns: i128,
}

/// Why a session would be removed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RemoveReason {
    /// Unused for longer than the maximum age.
    Stale { unused_days: f64, max_age_days: f64 },
    /// Ranked past `keep` by last use.
    BeyondKeep { rank: usize, keep: usize },
    /// The user asked to delete this one session.
    Requested,
    /// The user asked to delete this one session although it cannot be
    /// read, having been told why (the other safety rules still hold).
    RequestedDamaged { error: String },
}

/// Why a session is kept.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeepReason {
    /// Within the policy.
    Recent { rank: usize, unused_days: f64 },
    /// The live session (excluded by the caller).
    Live,
    /// session.json says an agent owns it.
    Active,
    /// Another process holds its lock.
    Locked,
    /// meta.json (or the entry itself) could not be read.
    Unreadable { error: String },
    /// session.json could not be read, so `is_active` is unknown.
    UnreadableConversation { error: String },
    /// Part of it lies on another filesystem.
    CrossesFilesystems,
    /// Another agent may be writing to it (changed a moment ago, or open
    /// in a running process).
    Busy { why: String },
}

/// Keep or remove, with the reason.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Would be deleted.
    Remove(RemoveReason),
    /// Spared.
    Keep(KeepReason),
}

impl Decision {
    /// True when the session is kept simply because the policy keeps it
    /// (recent enough): not worth a line in a preview, unlike removals and
    /// sessions a safety rule spares.
    pub fn is_routine_keep(&self) -> bool {
        matches!(self, Decision::Keep(KeepReason::Recent { .. }))
    }
}

/// One session of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanEntry {
    /// The facts the decision was made on.
    pub candidate: Candidate,
    /// The decision.
    pub decision: Decision,
}

/// What a purge with a policy would do to every session.
#[derive(Clone, Debug, PartialEq)]
pub struct PurgePlan {
    /// The policy the plan follows.
    pub policy: PurgePolicy,
    /// The time the plan was made for.
    pub now: f64,
    /// Every session, most recently used first.
    pub entries: Vec<PlanEntry>,
}

impl PurgePlan {
    /// Decides for every candidate. `exclude` names live sessions to spare.
    pub fn build(
        candidates: Vec<Candidate>,
        policy: PurgePolicy,
        exclude: &[String],
        now: f64,
    ) -> Self {
        Self::build_sparing(candidates, policy, exclude, now, |_| None)
    }

    /// [`PurgePlan::build`] with one more safety rule, `also_spare`, asked
    /// of every session the policy and the other rules would remove (another
    /// agent's sessions: the ones it may be writing).
    pub fn build_sparing(
        mut candidates: Vec<Candidate>,
        policy: PurgePolicy,
        exclude: &[String],
        now: f64,
        also_spare: impl Fn(&Candidate) -> Option<KeepReason>,
    ) -> Self {
        candidates.sort_by(|a, b| {
            b.record
                .last_used_at
                .total_cmp(&a.record.last_used_at)
                .then_with(|| a.record.id.cmp(&b.record.id))
        });
        let mut rank = 0;
        let entries = candidates
            .into_iter()
            .map(|candidate| {
                if candidate.record.is_readable() {
                    rank += 1;
                }
                let decision = match decide(&candidate, rank, policy, exclude, now) {
                    Decision::Remove(reason) => match also_spare(&candidate) {
                        Some(keep) => Decision::Keep(keep),
                        None => Decision::Remove(reason),
                    },
                    keep => keep,
                };
                PlanEntry {
                    candidate,
                    decision,
                }
            })
            .collect();
        PurgePlan {
            policy,
            now,
            entries,
        }
    }

    /// A plan that removes the one session `candidate`, unless a safety rule
    /// (live, active, locked, unreadable, other filesystem) spares it. With
    /// `even_damaged`, a session that cannot be read goes too (the person
    /// asked knowing it); every other rule still holds.
    pub fn single(candidate: Candidate, exclude: &[String], now: f64, even_damaged: bool) -> Self {
        let damage = candidate
            .record
            .error
            .clone()
            .or_else(|| candidate.unreadable_conversation.clone());
        let decision = match (spare_reason(&candidate, exclude), damage) {
            (
                Some(KeepReason::Unreadable { .. } | KeepReason::UnreadableConversation { .. }),
                Some(error),
            ) if even_damaged => Decision::Remove(RemoveReason::RequestedDamaged { error }),
            (Some(keep), _) => Decision::Keep(keep),
            (None, _) => Decision::Remove(RemoveReason::Requested),
        };
        PurgePlan {
            policy: PurgePolicy::default(),
            now,
            entries: vec![PlanEntry {
                candidate,
                decision,
            }],
        }
    }

    /// Entries that would be removed.
    pub fn removals(&self) -> impl Iterator<Item = &PlanEntry> {
        self.entries
            .iter()
            .filter(|e| matches!(e.decision, Decision::Remove(_)))
    }

    /// Entries that are kept.
    pub fn kept(&self) -> impl Iterator<Item = &PlanEntry> {
        self.entries
            .iter()
            .filter(|e| matches!(e.decision, Decision::Keep(_)))
    }

    /// The entry of session `id`, if the plan has one.
    pub fn entry(&self, id: &str) -> Option<&PlanEntry> {
        self.entries.iter().find(|e| e.candidate.record.id == id)
    }

    /// Bytes the removals would free.
    pub fn bytes_freed(&self) -> u64 {
        self.removals().map(|e| e.candidate.bytes).sum()
    }
}

fn decide(
    c: &Candidate,
    rank: usize,
    policy: PurgePolicy,
    exclude: &[String],
    now: f64,
) -> Decision {
    if let Some(error) = &c.record.error {
        return Decision::Keep(KeepReason::Unreadable {
            error: error.clone(),
        });
    }
    let unused_days = ((now - c.record.last_used_at) / DAY).max(0.0);
    let removal = if now - c.record.last_used_at > policy.max_age_days * DAY {
        Some(RemoveReason::Stale {
            unused_days,
            max_age_days: policy.max_age_days,
        })
    } else if rank > policy.keep {
        Some(RemoveReason::BeyondKeep {
            rank,
            keep: policy.keep,
        })
    } else {
        None
    };
    let Some(reason) = removal else {
        return Decision::Keep(KeepReason::Recent { rank, unused_days });
    };
    match spare_reason(c, exclude) {
        Some(keep) => Decision::Keep(keep),
        None => Decision::Remove(reason),
    }
}

/// The safety rule that spares `c` whatever the policy says, if one does.
fn spare_reason(c: &Candidate, exclude: &[String]) -> Option<KeepReason> {
    if let Some(error) = &c.record.error {
        Some(KeepReason::Unreadable {
            error: error.clone(),
        })
    } else if exclude.contains(&c.record.id.to_string()) {
        Some(KeepReason::Live)
    } else if c.is_active {
        Some(KeepReason::Active)
    } else if c.locked {
        Some(KeepReason::Locked)
    } else if let Some(error) = &c.unreadable_conversation {
        Some(KeepReason::UnreadableConversation {
            error: error.clone(),
        })
    } else if c.crosses_filesystems {
        Some(KeepReason::CrossesFilesystems)
    } else {
        None
    }
}

impl std::fmt::Display for RemoveReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RemoveReason::Stale {
                unused_days,
                max_age_days,
            } => write!(
                f,
                "stale: unused for {} (limit {})",
                elapsed(*unused_days),
                limit(*max_age_days)
            ),
            RemoveReason::BeyondKeep { rank, keep } => write!(f, "beyond keep: #{rank} of {keep}"),
            RemoveReason::Requested => f.write_str("deleted on request"),
            RemoveReason::RequestedDamaged { error } => {
                write!(f, "deleted on request although damaged: {error}")
            }
        }
    }
}

impl std::fmt::Display for KeepReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeepReason::Recent { rank, unused_days } => {
                write!(f, "recent: #{rank}, unused for {}", elapsed(*unused_days))
            }
            KeepReason::Live => f.write_str("live: the current session"),
            KeepReason::Active => f.write_str("active: an agent owns it (is_active)"),
            KeepReason::Locked => f.write_str("locked: another process is writing to it"),
            KeepReason::Unreadable { error } => write!(f, "unreadable: {error}"),
            KeepReason::UnreadableConversation { error } => {
                write!(f, "unreadable conversation: {error}")
            }
            KeepReason::CrossesFilesystems => {
                f.write_str("crosses filesystems: a mount point lies inside")
            }
            KeepReason::Busy { why } => write!(f, "busy: {why}"),
        }
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Decision::Remove(r) => r.fmt(f),
            Decision::Keep(k) => k.fmt(f),
        }
    }
}

/// A time since last use in whole days, or whole hours under a day.
fn elapsed(days: f64) -> String {
    let hours = days * 24.0;
    if days >= 1.0 {
        counted(days.floor(), "day")
    } else if hours >= 1.0 {
        counted(hours.floor(), "hour")
    } else {
        "less than an hour".into()
    }
}

/// The age limit as it was given: `30 days`, `1.5 days`, `12 hours`.
fn limit(days: f64) -> String {
    if days >= 1.0 {
        counted(days, "day")
    } else {
        counted(days * 24.0, "hour")
    }
}

/// `1 day`, `2 days`, `1.5 days`: a number without a useless `.0`.
fn counted(n: f64, unit: &str) -> String {
    let number = if n.fract() == 0.0 {
        format!("{n:.0}")
    } else {
        format!("{}", (n * 100.0).round() / 100.0)
    };
    let s = if number == "1" { "" } else { "s" };
    format!("{number} {unit}{s}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const NOW: f64 = 1_800_000_000.0;

    fn candidate(id: &str, days_ago: f64) -> Candidate {
        Candidate {
            record: SessionRecord {
                id: id.into(),
                name: id.into(),
                user: "u".into(),
                first_prompt: String::new(),
                created_at: 0.0,
                last_used_at: NOW - days_ago * DAY,
                path: PathBuf::from(id),
                conversation_dir: PathBuf::from(id),
                error: None,
                ..SessionRecord::default()
            },
            bytes: 10,
            is_active: false,
            locked: false,
            unreadable_conversation: None,
            crosses_filesystems: false,
            fingerprint: Fingerprint::default(),
        }
    }

    fn reasons(plan: &PurgePlan) -> Vec<(String, String)> {
        plan.entries
            .iter()
            .map(|e| (e.candidate.record.id.to_string(), e.decision.to_string()))
            .collect()
    }

    #[test]
    fn stale_and_beyond_keep_are_removed_with_reasons() {
        let plan = PurgePlan::build(
            vec![
                candidate("old", 41.5),
                candidate("a", 1.0),
                candidate("b", 2.0),
                candidate("c", 3.0),
            ],
            PurgePolicy {
                keep: 2,
                max_age_days: 30.0,
            },
            &[],
            NOW,
        );
        assert_eq!(
            reasons(&plan),
            vec![
                ("a".into(), "recent: #1, unused for 1 day".into()),
                ("b".into(), "recent: #2, unused for 2 days".into()),
                ("c".into(), "beyond keep: #3 of 2".into()),
                (
                    "old".into(),
                    "stale: unused for 41 days (limit 30 days)".into()
                ),
            ]
        );
        assert_eq!(plan.bytes_freed(), 20);
    }

    #[test]
    fn reasons_read_as_sentences() {
        let stale = |unused_days, max_age_days| {
            RemoveReason::Stale {
                unused_days,
                max_age_days,
            }
            .to_string()
        };
        assert_eq!(stale(5.3, 5.0), "stale: unused for 5 days (limit 5 days)");
        assert_eq!(stale(1.2, 1.0), "stale: unused for 1 day (limit 1 day)");
        assert_eq!(
            stale(0.6, 0.5),
            "stale: unused for 14 hours (limit 12 hours)"
        );
        assert_eq!(stale(2.0, 1.5), "stale: unused for 2 days (limit 1.5 days)");
        assert_eq!(
            stale(0.01, 0.0),
            "stale: unused for less than an hour (limit 0 hours)"
        );
    }

    #[test]
    fn live_active_locked_unreadable_and_mounts_are_spared() {
        let mut active = candidate("active", 90.0);
        active.is_active = true;
        let mut locked = candidate("locked", 90.0);
        locked.locked = true;
        let mut broken = candidate("broken", 90.0);
        broken.record.error = Some("bad meta".into());
        let mut convo = candidate("convo", 90.0);
        convo.unreadable_conversation = Some("bad session.json".into());
        let mut mount = candidate("mount", 90.0);
        mount.crosses_filesystems = true;
        let plan = PurgePlan::build(
            vec![
                candidate("live", 90.0),
                active,
                locked,
                broken,
                convo,
                mount,
            ],
            PurgePolicy::default(),
            &["live".to_string()],
            NOW,
        );
        assert_eq!(plan.removals().count(), 0, "{:?}", reasons(&plan));
    }

    #[test]
    fn unreadable_sessions_do_not_take_a_keep_slot() {
        let mut broken = candidate("broken", 0.0);
        broken.record.error = Some("x".into());
        broken.record.last_used_at = 0.0;
        let plan = PurgePlan::build(
            vec![broken, candidate("a", 1.0)],
            PurgePolicy {
                keep: 1,
                max_age_days: 30.0,
            },
            &[],
            NOW,
        );
        assert_eq!(plan.removals().count(), 0);
    }
}
