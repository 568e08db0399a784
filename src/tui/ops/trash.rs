//! What the trash pane asks of the store, and its answers.

use crate::store::TrashEntry;
use crate::tui::ops::{Job, UiError};

/// A store operation of the trash pane.
#[derive(Clone, Debug)]
pub enum TrashOp {
    /// List what the trash holds (answers `Listed`).
    List,
    /// Put the session of trash entry `entry` (its folder's name: one
    /// session trashed twice is two entries) back where it was (answers
    /// `Restored`).
    Restore { entry: String },
    /// Delete for good the trash entries named (answers `Deleted`).
    Delete { entries: Vec<String> },
}

/// An answer for the trash pane.
#[derive(Clone, Debug)]
pub enum TrashReply {
    /// What the trash holds, newest first.
    Listed {
        result: Result<Vec<TrashEntry>, UiError>,
    },
    /// The session was put back (or why not).
    Restored { result: Result<TrashEntry, UiError> },
    /// Those entries are gone for good (or why not).
    Deleted {
        result: Result<Vec<TrashEntry>, UiError>,
    },
}

impl TrashOp {
    /// One call of the door.
    pub(super) fn run(self, job: &Job) -> TrashReply {
        match self {
            TrashOp::List => TrashReply::Listed {
                result: job
                    .store
                    .trash_list()
                    .map(newest_first)
                    .map_err(UiError::from),
            },
            TrashOp::Restore { entry } => TrashReply::Restored {
                result: job.store.restore(&entry).map_err(UiError::from),
            },
            TrashOp::Delete { entries } => TrashReply::Deleted {
                result: job.store.delete_for_good(&entries).map_err(UiError::from),
            },
        }
    }
}

/// The most recently trashed first (what a person looks for after a
/// delete), those of one purge by id.
fn newest_first(mut entries: Vec<TrashEntry>) -> Vec<TrashEntry> {
    entries.sort_by(|a, b| {
        b.trashed_at
            .total_cmp(&a.trashed_at)
            .then_with(|| a.id.cmp(&b.id))
    });
    entries
}
