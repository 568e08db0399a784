//! What the list asks of the store, and its answers (with the matcher's
//! and the message search's, which the list also waits for).

use crate::store::{
    Decision, Encoding, IndexedStats, MovePlan, PurgeReport, RemoveReason, Reread, RetentionRule,
    SearchOutcome, SessionRecord, SessionRef, SessionStats, UpdateReport,
};
use crate::tui::model::{Preview, ResumeBlocked, ResumeCheck};
use crate::tui::ops::{ErrorKind, Job, Lane, Priority, UiError};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Messages the preview shows.
const PREVIEW_MESSAGES: usize = 4;
/// Characters of a message shown in the preview.
const LINE_CHARS: usize = 300;
/// Rows whose stats are gathered and sent together.
const STATS_CHUNK: usize = 8;
/// The index's update says how far it got at most this often.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// What a deletion would remove, for the question put to the person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeleteCheck {
    /// The bytes it frees.
    pub bytes: u64,
    /// Why it cannot be read, when it is damaged (its files are then
    /// removed unread, and the person is told so).
    pub damage: Option<String>,
    /// Seconds since another agent's session changed, when that was
    /// minutes ago (no other process has it open, or it would be refused).
    pub recent: Option<u64>,
}

/// A store operation of the list.
#[derive(Clone, Debug)]
pub enum ListOp {
    /// Read every session (answers `SessionsBatch`…, then `ScanDone`; a
    /// newer scan stops an older one).
    Scan,
    /// Bring the search index up to date in the background (answers
    /// `IndexProgress`…, then `IndexUpdated`).
    UpdateIndex,
    /// Read every session's stats from the index (answers `IndexStats`).
    LoadIndexStats,
    /// Gather size, messages and tokens of rows (answers `Stats`, a few
    /// rows at a time).
    Stats {
        rows: Vec<(usize, SessionRecord)>,
        encoding: Encoding,
    },
    /// Read the last messages of a session (answers `PreviewLoaded`).
    LoadPreview { record: SessionRecord },
    /// Start a session (answers `Created`).
    CreateSession { prompt: String },
    /// Rename a session (answers `Renamed`).
    RenameSession { record: SessionRecord, name: String },
    /// What deleting a session would do, before the person is asked
    /// (answers `DeleteChecked`).
    CheckDelete { record: SessionRecord },
    /// Delete one session, with the purge's safety checks (answers `Deleted`).
    DeleteSession {
        record: SessionRecord,
        even_damaged: bool,
    },
    /// Touch a session before resuming it (answers `Resumed`).
    /// The check runs first: a resume that cannot run keeps the UI
    /// (answers `NotResumable`).
    Resume {
        record: SessionRecord,
        check: ResumeCheck,
    },
    /// What moving `record` to the folder `to` would write (answers
    /// `MovePlanned`), or the move itself when `write` (answers `Moved`).
    Move {
        record: SessionRecord,
        to: PathBuf,
        write: bool,
    },
    /// Put back the archived session `id` where its agent keeps it
    /// (answers `RestoredArchived`).
    RestoreArchived { id: String },
    /// Read again the sessions the watcher saw change (answers `Reread`).
    Reread { sessions: Vec<SessionRef> },
    /// Tell the search index about the sessions the watcher saw change,
    /// and only them (answers `IndexFollowed`).
    IndexFollow { sessions: Vec<SessionRef> },
    /// When the agents' own cleanups delete `records` (answers `Retention`).
    Retention { records: Vec<SessionRecord> },
    /// Keeps in the archive those of `records` their agents' cleanups
    /// delete within `within` seconds (answers `KeptDue`).
    KeepDue {
        records: Vec<SessionRecord>,
        within: f64,
    },
}

/// An answer for the list.
#[derive(Clone, Debug)]
pub enum ListReply {
    /// Some sessions were read.
    SessionsBatch { records: Vec<SessionRecord> },
    /// The scan finished (or failed); `folder` is the session folder it read.
    ScanDone {
        folder: String,
        error: Option<UiError>,
    },
    /// The search index got this far: `done` of `total` sessions read.
    IndexProgress { done: usize, total: usize },
    /// The search index is up to date (or could not be brought up to date).
    IndexUpdated {
        result: Result<UpdateReport, UiError>,
    },
    /// Every session's stats as the index has them, by id.
    IndexStats {
        stats: HashMap<String, IndexedStats>,
    },
    /// When each session's agent deletes it by itself (by id), and the
    /// agents' rules.
    Retention {
        deletes_at: crate::store::DeletesAt,
        rules: Vec<RetentionRule>,
    },
    /// What keeping the due sessions did: how many were newly kept (or
    /// replaced by a newer copy), their bytes, and those that failed.
    KeptDue {
        within: f64,
        kept: usize,
        bytes: u64,
        failed: Vec<String>,
    },
    /// Stats of some sessions, by row number.
    Stats { stats: Vec<(usize, SessionStats)> },
    /// The preview of a session was read.
    PreviewLoaded { preview: Preview },
    /// A session was created.
    Created {
        result: Result<Box<SessionRecord>, UiError>,
    },
    /// A session was renamed.
    Renamed {
        result: Result<Box<SessionRecord>, UiError>,
    },
    /// What deleting session `id` would do: its size, measured as the
    /// deletion measures what it frees, and its damage; or why it would be
    /// refused (active, locked, live, another file system).
    DeleteChecked {
        id: String,
        result: Result<DeleteCheck, UiError>,
    },
    /// One session was deleted (or the deletion was refused).
    Deleted {
        /// The session asked about (whose it was words the answer).
        record: Box<SessionRecord>,
        result: Result<PurgeReport, UiError>,
    },
    /// What moving session `id` to `to` would write, or why it cannot.
    MovePlanned {
        id: String,
        to: PathBuf,
        result: Result<Box<MovePlan>, UiError>,
    },
    /// A session was moved: what was written and the trash entry of the
    /// old one.
    Moved {
        result: Result<(Box<MovePlan>, Option<String>), UiError>,
    },
    /// The archived session `id` was put back: the files written.
    RestoredArchived {
        id: String,
        result: Result<Vec<PathBuf>, UiError>,
    },
    /// The session to resume was touched.
    Resumed {
        result: Result<Box<SessionRecord>, UiError>,
    },
    /// The session to resume cannot be resumed from here (its agent's
    /// program is not installed, its folder is gone); nothing was touched.
    NotResumable { blocked: ResumeBlocked },
    /// Sessions the watcher named, read again (or gone).
    Reread { results: Vec<Reread> },
    /// The search index heard about the changed sessions.
    IndexFollowed {
        result: Result<UpdateReport, UiError>,
    },
    /// The matcher answered a query with row numbers, best first.
    Filtered {
        query: String,
        rows: Vec<usize>,
        /// False for a first answer ranking only the most recent sessions.
        complete: bool,
    },
    /// A message search answered.
    MessageHits {
        query: String,
        result: Result<SearchOutcome, UiError>,
    },
}

impl ListOp {
    /// Sizes and totals wait for idle cores; the index's update yields to
    /// the UI; the rest is what the person waits for.
    pub(super) fn priority(&self) -> Priority {
        match self {
            ListOp::Stats { .. } | ListOp::KeepDue { .. } => Priority::Idle,
            ListOp::UpdateIndex | ListOp::IndexFollow { .. } => Priority::Nice,
            _ => Priority::Normal,
        }
    }

    /// A newer scan makes an older one moot.
    pub(super) fn lane(&self) -> Option<Lane> {
        matches!(self, ListOp::Scan).then_some(Lane::Scan)
    }

    /// One call of the door (two for the stats, a chunk at a time).
    pub(super) fn run(self, job: &Job) -> ListReply {
        let store = job.store;
        match self {
            ListOp::Scan => {
                // A newer scan, or a UI that is gone, stops this one.
                let result = store.scan(|records| {
                    job.current() && job.send(ListReply::SessionsBatch { records })
                });
                ListReply::ScanDone {
                    folder: store.sessions_dir().display().to_string(),
                    error: result.err().map(UiError::from),
                }
            }
            ListOp::UpdateIndex => {
                let last = std::sync::Mutex::new(Instant::now());
                let progress = |done: usize, total: usize| {
                    let Ok(mut last) = last.lock() else { return };
                    if last.elapsed() >= PROGRESS_EVERY || done == total {
                        *last = Instant::now();
                        job.send(ListReply::IndexProgress { done, total });
                    }
                };
                let result = store
                    .update_index(job.now, &progress)
                    .map_err(UiError::from);
                ListReply::IndexUpdated { result }
            }
            ListOp::Retention { records } => ListReply::Retention {
                deletes_at: store.agent_deletes_at(&records, job.now),
                rules: store.retention_rules(),
            },
            ListOp::KeepDue { records, within } => {
                let results = store.archive_due_among(&records, within, job.now);
                let kept: Vec<_> = results
                    .iter()
                    .filter_map(|(_, r)| r.as_ref().ok())
                    .filter(|o| o.result != crate::store::Archived::Unchanged)
                    .collect();
                ListReply::KeptDue {
                    within,
                    kept: kept.len(),
                    bytes: kept.iter().map(|o| o.bytes).sum(),
                    failed: results
                        .iter()
                        .filter_map(|(id, r)| r.as_ref().err().map(|e| format!("{id}: {e}")))
                        .collect(),
                }
            }
            ListOp::LoadIndexStats => ListReply::IndexStats {
                stats: store.indexed_stats(),
            },
            ListOp::Stats { rows, encoding } => {
                let chunks = rows.len().div_ceil(STATS_CHUNK);
                let mut stats = Vec::new();
                for (n, chunk) in rows.chunks(STATS_CHUNK).enumerate() {
                    let records: Vec<SessionRecord> =
                        chunk.iter().map(|(_, r)| r.clone()).collect();
                    let counted = store.stats(&records, Some(encoding), &|_| {});
                    stats = chunk.iter().map(|(i, _)| *i).zip(counted).collect();
                    // Each chunk shows as it comes; the last is the answer.
                    if n + 1 < chunks {
                        job.send(ListReply::Stats {
                            stats: std::mem::take(&mut stats),
                        });
                    }
                }
                ListReply::Stats { stats }
            }
            ListOp::LoadPreview { record } => {
                let last_messages = store
                    .last_messages(&store.target(&record), PREVIEW_MESSAGES, LINE_CHARS)
                    .map_err(UiError::from);
                ListReply::PreviewLoaded {
                    preview: Preview {
                        id: record.id.into(),
                        last_messages,
                    },
                }
            }
            ListOp::CreateSession { prompt } => ListReply::Created {
                result: store
                    .start(&prompt, None, job.now)
                    .map(|started| Box::new(started.record))
                    .map_err(UiError::from),
            },
            ListOp::RenameSession { record, name } => ListReply::Renamed {
                result: store
                    .rename(&store.target(&record), &name)
                    .map(Box::new)
                    .map_err(UiError::from),
            },
            ListOp::CheckDelete { record } => ListReply::DeleteChecked {
                id: record.id.to_string(),
                result: delete_check(store, &record, job.now),
            },
            ListOp::DeleteSession {
                record,
                even_damaged,
            } => ListReply::Deleted {
                result: store
                    .delete(&store.target(&record), job.now, even_damaged)
                    .map_err(UiError::from),
                record: Box::new(record),
            },
            ListOp::Move { record, to, write } => {
                let result = store
                    .move_session(&store.target(&record), &to, job.now, write)
                    .map(|(plan, trashed)| (Box::new(plan), trashed))
                    .map_err(UiError::from);
                if write {
                    ListReply::Moved { result }
                } else {
                    ListReply::MovePlanned {
                        id: record.id.to_string(),
                        to,
                        result: result.map(|(plan, _)| plan),
                    }
                }
            }
            ListOp::RestoreArchived { id } => ListReply::RestoredArchived {
                result: store
                    .restore_archived(&id, job.now)
                    .map(|(_, written)| written)
                    .map_err(UiError::from),
                id,
            },
            ListOp::Reread { sessions } => ListReply::Reread {
                results: store.reread(&sessions),
            },
            ListOp::IndexFollow { sessions } => ListReply::IndexFollowed {
                result: store
                    .update_index_for(&sessions, job.now)
                    .map_err(UiError::from),
            },
            ListOp::Resume { record, check } => {
                let target = store.target(&record);
                match check.check(&target) {
                    Err(blocked) => ListReply::NotResumable { blocked },
                    Ok(()) => ListReply::Resumed {
                        result: store
                            .resume(&target, job.now)
                            .map(|()| Box::new(record))
                            .map_err(UiError::from),
                    },
                }
            }
        }
    }
}

/// The store's plan for deleting `record` (a damaged session is deletable
/// once the person is shown the damage), as the question needs it.
fn delete_check(
    store: &crate::store::Store,
    record: &SessionRecord,
    now: f64,
) -> Result<DeleteCheck, UiError> {
    let target = store.target(record);
    // Another agent's session goes to the trash; Loki's as the seed says.
    store.check_deletable(&target).map_err(UiError::from)?;
    let plan = store.delete_preview(&target, now, true);
    let entry = plan
        .entries
        .first()
        .ok_or_else(|| UiError::new(ErrorKind::Failed, "the deletion could not be planned"))?;
    match &entry.decision {
        Decision::Keep(reason) => Err(UiError::new(
            ErrorKind::Refused,
            format!("{} cannot be deleted: {reason}", record.name),
        )),
        Decision::Remove(RemoveReason::RequestedDamaged { error }) => Ok(DeleteCheck {
            bytes: entry.candidate.bytes,
            damage: Some(error.clone()),
            recent: None,
        }),
        Decision::Remove(_) => Ok(DeleteCheck {
            bytes: entry.candidate.bytes,
            damage: None,
            recent: record
                .agent
                .is_external()
                .then(|| crate::store::changed_recently(record, now))
                .flatten(),
        }),
    }
}
