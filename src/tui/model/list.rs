//! The state of the session list, the home screen.

use crate::store::{SessionRecord, SessionStats};
use crate::tui::model::TextField;
use std::collections::{HashMap, HashSet};

/// One listed session and what is known of it so far.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionRow {
    /// From meta.json (or derived).
    pub record: SessionRecord,
    /// Size, messages, tokens: filled in by a background job.
    pub stats: Option<SessionStats>,
}

/// The session list, its filter and the requests it waits for.
#[derive(Clone, Debug)]
pub struct ListScreen {
    /// Every session, in the order they arrived.
    pub rows: Vec<SessionRow>,
    /// Row index of each id.
    pub by_id: HashMap<String, usize>,
    /// True until the scan has delivered every session.
    pub scanning: bool,
    /// What the user typed.
    pub query: TextField,
    /// Row indices to show, best first (filled by the matcher).
    pub visible: Vec<usize>,
    /// The query `visible` answers (may lag behind `query` for a moment).
    pub visible_query: String,
    /// False while `visible` ranks only the most recent sessions.
    pub visible_complete: bool,
    /// Position of the cursor in `visible`.
    pub selected: usize,
    /// Last lines of the selected session's conversation, for the preview.
    pub preview: Option<Preview>,
    /// Select this session when it shows up (after new/refresh).
    pub pending_select: Option<String>,
    /// Rows whose stats were asked for (so each is asked once).
    pub stats_asked: HashSet<usize>,
    /// The requests whose replies the list waits for.
    pub waiting: ListRequests,
}

/// Tags of the list's outstanding requests (see [`crate::tui::model::App::request`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListRequests {
    /// The store scan.
    pub scan: u64,
    /// The newest filter query.
    pub filter: u64,
    /// The preview load.
    pub preview: u64,
    /// Stats jobs (one tag per scan and encoding: every job of it counts).
    pub stats: u64,
    /// A deletion of one session.
    pub delete: Option<u64>,
}

/// The longest search, in characters: longer text finds nothing a shorter
/// one would not, and costs the matcher time on every key.
pub const QUERY_LIMIT: usize = 200;

impl Default for ListScreen {
    fn default() -> Self {
        ListScreen {
            rows: Vec::new(),
            by_id: HashMap::new(),
            scanning: false,
            query: TextField::new("", QUERY_LIMIT),
            visible: Vec::new(),
            visible_query: String::new(),
            visible_complete: false,
            selected: 0,
            preview: None,
            pending_select: None,
            stats_asked: HashSet::new(),
            waiting: ListRequests::default(),
        }
    }
}

impl ListScreen {
    /// The row under the cursor.
    pub fn selected_row(&self) -> Option<&SessionRow> {
        let index = *self.visible.get(self.selected)?;
        self.rows.get(index)
    }
}

/// The preview of the selected session.
#[derive(Clone, Debug, PartialEq)]
pub struct Preview {
    /// Which session it shows.
    pub id: String,
    /// The last messages as (role, one line), or why they could not be read.
    pub last_messages: Result<Vec<(String, String)>, String>,
}
