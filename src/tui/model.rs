//! The whole state of the terminal UI. `update` changes it; `view` draws it.

use crate::store::peteos::Context;
use crate::store::peteos::window::WindowIndex;
use crate::store::purge_apply::PurgeReport;
use crate::store::purge_plan::{Candidate, PurgePlan, PurgePolicy};
use crate::store::record::{SessionRecord, SessionStats};
use crate::store::tokens::Encoding;
use crate::store::trim::TrimPlan;
use std::collections::HashMap;
use std::sync::Arc;

/// Which screen is showing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The session list (home).
    List,
    /// One session's active context.
    Viewer,
    /// What a purge would delete.
    Purge,
}

/// Settings the user can change while the UI runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Encoding of token counts.
    pub encoding: Encoding,
    /// The model's context window, for the viewer's gauge.
    pub window_tokens: u64,
    /// Purge policy (editable in the purge preview).
    pub policy: PurgePolicy,
    /// Whether the store is a Loki tree (new and rename need one).
    pub loki: bool,
}

/// One listed session and what is known of it so far.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionRow {
    /// From meta.json (or derived).
    pub record: SessionRecord,
    /// Size, messages, tokens: filled in by a background job.
    pub stats: Option<SessionStats>,
}

/// The session list and its filter.
#[derive(Clone, Debug, Default)]
pub struct SessionList {
    /// Every session, in the order they arrived.
    pub rows: Vec<SessionRow>,
    /// Row index of each id.
    pub by_id: HashMap<String, usize>,
    /// True until the scan has delivered every session.
    pub scanning: bool,
    /// What the user typed.
    pub query: String,
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
}

/// The preview of the selected session.
#[derive(Clone, Debug, PartialEq)]
pub struct Preview {
    /// Which session it shows.
    pub id: String,
    /// The last messages as (role, one line), or why they could not be read.
    pub last_messages: Result<Vec<(String, String)>, String>,
}

/// A context of the session, for the forks list.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextInfo {
    /// Context id.
    pub id: String,
    /// Messages in it (None if it could not be read).
    pub messages: Option<usize>,
    /// The context it was forked from.
    pub origin: Option<String>,
    /// Why it could not be read.
    pub error: Option<String>,
}

/// A loaded conversation. Messages are rendered when they are on screen,
/// so a context of any length is ready as soon as it is parsed.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The active context.
    pub context: Arc<Context>,
    /// What trims need of it, read once.
    pub window: Arc<WindowIndex>,
    /// Every context of the session.
    pub contexts: Vec<ContextInfo>,
}

impl Loaded {
    /// Number of messages.
    pub fn len(&self) -> usize {
        self.context.len()
    }

    /// True when the context holds no message.
    pub fn is_empty(&self) -> bool {
        self.context.is_empty()
    }
}

/// How a trim is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrimKind {
    /// Keep the last N non-special messages.
    KeepLast,
    /// Fit a token budget.
    Budget,
}

/// The trim being adjusted in the viewer.
#[derive(Clone, Debug, PartialEq)]
pub struct TrimState {
    /// Messages or tokens.
    pub kind: TrimKind,
    /// The number chosen.
    pub value: u64,
    /// Digits typed but not applied yet.
    pub typing: Option<String>,
    /// The preview for `value` (None until every count is known).
    pub plan: Option<TrimPlan>,
    /// A trim was sent to the store and has not answered.
    pub applying: bool,
}

/// The viewer of one session.
#[derive(Clone, Debug)]
pub struct Viewer {
    /// The session.
    pub record: SessionRecord,
    /// The conversation, once loaded.
    pub loaded: Option<Loaded>,
    /// Why it could not be loaded.
    pub error: Option<String>,
    /// Token counts per encoding; `None` until counted.
    pub counts: HashMap<Encoding, Vec<Option<u64>>>,
    /// Selected message.
    pub selected: usize,
    /// Lines the detail pane is scrolled by.
    pub detail_scroll: u16,
    /// The trim being adjusted, if any.
    pub trim: Option<TrimState>,
    /// The forks list, when open: the selected entry.
    pub contexts_cursor: Option<usize>,
}

impl Viewer {
    /// Counts in the current encoding, if every message is counted.
    pub fn complete_counts(&self, encoding: Encoding) -> Option<Vec<u64>> {
        self.counts.get(&encoding)?.iter().copied().collect()
    }
}

/// The purge preview.
#[derive(Clone, Debug, Default)]
pub struct PurgeView {
    /// Facts about every session (gathered once per visit).
    pub candidates: Option<Arc<Vec<Candidate>>>,
    /// The plan for the current policy.
    pub plan: Option<PurgePlan>,
    /// Selected row of the plan.
    pub selected: usize,
    /// Show every kept session, not only those spared against the policy.
    pub show_all_kept: bool,
    /// Removal progress (done, total) while applying.
    pub applying: Option<(usize, usize)>,
    /// What the last apply did.
    pub report: Option<PurgeReport>,
    /// Why gathering failed.
    pub error: Option<String>,
}

/// A modal question.
#[derive(Clone, Debug, PartialEq)]
pub enum Overlay {
    /// The key help, generated from the keymap.
    Help,
    /// A yes/no question; No is the default.
    Confirm(Confirm),
    /// A line of text to type.
    Input(Input),
}

/// What a confirmed question does.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfirmAction {
    /// Apply the purge plan on screen.
    Purge,
    /// Delete one session.
    Delete { id: String },
}

/// A yes/no question.
#[derive(Clone, Debug, PartialEq)]
pub struct Confirm {
    /// The question.
    pub title: String,
    /// What will happen, line by line.
    pub lines: Vec<String>,
    /// What yes does.
    pub action: ConfirmAction,
}

/// What a typed line is for.
#[derive(Clone, Debug, PartialEq)]
pub enum InputPurpose {
    /// The first prompt of a new session.
    NewSession,
    /// A new name for a session.
    Rename { id: String },
}

/// A line being typed.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// What it is for.
    pub purpose: InputPurpose,
    /// The text so far.
    pub text: String,
}

/// A line at the bottom telling what happened.
#[derive(Clone, Debug, PartialEq)]
pub struct Status {
    /// The text.
    pub text: String,
    /// Errors are shown differently.
    pub is_error: bool,
}

/// How the UI ends.
#[derive(Clone, Debug, PartialEq)]
pub enum Exit {
    /// The user cancelled: print nothing, exit 130.
    Cancel,
    /// Resume this session (already touched).
    Resume(SessionRecord),
}

/// Numbers that tag requests so late replies to old ones are dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Requests {
    /// Store scans.
    pub scan: u64,
    /// Filter queries.
    pub filter: u64,
    /// Preview loads.
    pub preview: u64,
    /// Conversation loads and token counts.
    pub conversation: u64,
    /// Purge gathers and applies.
    pub purge: u64,
    /// Stats jobs.
    pub stats: u64,
}

/// The state of the UI.
#[derive(Clone, Debug)]
pub struct Model {
    /// The screen showing.
    pub mode: Mode,
    /// A modal over it.
    pub overlay: Option<Overlay>,
    /// Settings.
    pub settings: Settings,
    /// The clock (seconds since the epoch), advanced by ticks.
    pub now: f64,
    /// The list.
    pub list: SessionList,
    /// The viewer, when a session is open.
    pub viewer: Option<Viewer>,
    /// The purge preview, when open.
    pub purge: PurgeView,
    /// What just happened.
    pub status: Option<Status>,
    /// Set when the UI should end.
    pub exit: Option<Exit>,
    /// Request tags.
    pub requests: Requests,
    /// Terminal size (columns, rows), for paging.
    pub screen: (u16, u16),
    /// Select this session when it shows up in the list (after new/refresh).
    pub pending_select: Option<String>,
    /// Rows whose stats were asked for (so each is asked once).
    pub stats_asked: std::collections::HashSet<usize>,
}

impl Model {
    /// A fresh model before the first scan.
    pub fn new(settings: Settings, now: f64) -> Self {
        Model {
            mode: Mode::List,
            overlay: None,
            settings,
            now,
            list: SessionList::default(),
            viewer: None,
            purge: PurgeView::default(),
            status: None,
            exit: None,
            requests: Requests::default(),
            screen: (80, 24),
            pending_select: None,
            stats_asked: Default::default(),
        }
    }

    /// The row under the cursor in the list.
    pub fn selected_row(&self) -> Option<&SessionRow> {
        let index = *self.list.visible.get(self.list.selected)?;
        self.list.rows.get(index)
    }
}
