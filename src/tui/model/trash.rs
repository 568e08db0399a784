//! The state of the trash pane: the other agents' sessions a delete or a
//! purge moved into the trash, each one a key away from where it was.

use crate::store::{Agent, TrashEntry};
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
}

/// A trashed session's title, or its id when it had none.
pub fn shown_title(entry: &TrashEntry) -> &str {
    if entry.title.trim().is_empty() {
        &entry.id
    } else {
        &entry.title
    }
}
