//! The state of the trash pane: the other agents' sessions a delete or a
//! purge moved into the trash, each one a key away from where it was.

use crate::store::{Agent, TrashEntry, trashed_before};
use crate::tui::ops::UiError;

/// The trash pane.
#[derive(Clone, Debug, Default)]
pub struct TrashView {
    /// What the trash holds, newest first (None until it is listed).
    pub entries: Option<Vec<TrashEntry>>,
    /// Selected row.
    pub selected: usize,
    /// Why listing or restoring failed.
    pub error: Option<UiError>,
    /// The tag of the listing or restore the pane waits for.
    pub waiting: u64,
    /// The session being put back, while it is.
    pub restoring: Option<String>,
    /// How many sessions are being deleted for good, while they are.
    pub deleting: Option<usize>,
    /// Emptying deletes only what was trashed at least this many days ago
    /// (0: everything), as `trash --empty --older-than` does.
    pub older_than_days: u32,
    /// Where Esc goes back to.
    pub from: TrashFrom,
}

/// Where the trash was opened from, so Esc goes back there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TrashFrom {
    /// The session list.
    #[default]
    List,
    /// The purge preview of this agent's sessions (None: the Loki tree's
    /// or the peteos folder's).
    Purge(Option<Agent>),
}

impl TrashView {
    /// The entry under the cursor.
    pub fn selected_entry(&self) -> Option<&TrashEntry> {
        self.entries.as_ref()?.get(self.selected)
    }

    /// What emptying the trash at `now` deletes for good.
    pub fn doomed(&self, now: f64) -> Vec<&TrashEntry> {
        let older_than = (self.older_than_days > 0).then(|| f64::from(self.older_than_days) * DAY);
        trashed_before(self.entries.as_deref().unwrap_or_default(), older_than, now)
    }
}

const DAY: f64 = 86_400.0;

/// The ages emptying may keep what is newer than, in days (0: keeps
/// nothing), one step of `]` or `[` each.
pub const EMPTY_AGES: [u32; 6] = [0, 1, 7, 30, 90, 365];

/// A trashed session's title, or its id when it had none.
pub fn shown_title(entry: &TrashEntry) -> &str {
    if entry.title.trim().is_empty() {
        &entry.id
    } else {
        &entry.title
    }
}
