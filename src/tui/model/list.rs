//! The state of the session list, the home screen.

use crate::store::{
    Agent, Hit, IndexedStats, RetentionRule, SessionRecord, SessionRef, SessionStats,
};
use crate::tui::model::{MessageHits, TextField};
use crate::tui::ops::UiError;
use std::collections::{HashMap, HashSet};

/// One listed session and what is known of it so far.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionRow {
    /// From meta.json (or derived).
    pub record: SessionRecord,
    /// Size, messages, tokens: filled in by a background job.
    pub stats: Option<SessionStats>,
    /// When a watcher last saw it change (seconds since the epoch): rows
    /// changed in the last minute carry a live mark.
    pub changed_at: Option<f64>,
    /// It went from the disk (the matcher no longer offers it).
    pub gone: bool,
}

impl SessionRow {
    /// A row for a record just read.
    pub fn new(record: SessionRecord) -> Self {
        SessionRow {
            record,
            stats: None,
            changed_at: None,
            gone: false,
        }
    }
}

/// How long a row changed by an agent carries the live mark, in seconds.
pub const LIVE_MARK: f64 = 60.0;

/// What the list asked of the store after changes on disk.
#[derive(Clone, Debug, Default)]
pub struct Following {
    /// The tag of the newest reading asked for each session, and when the
    /// change was seen: an older answer arriving late is not applied over
    /// a newer one.
    pub asked: HashMap<String, (u64, f64)>,
    /// Sessions the search index is still to hear about.
    pub index_pending: std::collections::BTreeSet<SessionRef>,
    /// The sessions the running update of the index was told about (put
    /// back if it could not be done).
    pub index_running: Option<Vec<SessionRef>>,
}

/// The session list, its filter and the requests it waits for.
#[derive(Clone, Debug)]
pub struct ListScreen {
    /// Every session, in the order they arrived.
    pub rows: Vec<SessionRow>,
    /// The row number of each id.
    pub by_id: HashMap<String, usize>,
    /// True until the scan has delivered every session.
    pub scanning: bool,
    /// The session folder the scan read (said when it holds nothing).
    pub folder: Option<String>,
    /// What the user typed.
    pub query: TextField,
    /// Row numbers to show, best first (filled by the matcher).
    pub visible: Vec<usize>,
    /// The query `visible` answers (may lag behind `query` for a moment).
    pub visible_query: String,
    /// False while `visible` ranks only the most recent sessions.
    pub visible_complete: bool,
    /// The matcher's newest complete answer ranks every row listed so far
    /// (false from the moment rows or the query change until it comes).
    pub ranked_all: bool,
    /// Enter came while the rows were still arriving on a cursor the
    /// person had not moved: the first row is resumed once every session
    /// is listed and ranked (it is the newest only then).
    pub resume_when_listed: bool,
    /// Position of the cursor in `visible`.
    pub selected: usize,
    /// Last lines of the selected session's conversation, for the preview.
    pub preview: Option<Preview>,
    /// Select this session when it shows up (after new/refresh).
    pub pending_select: Option<String>,
    /// The next complete answer of the matcher is shown from its first row
    /// (a new sort order shows its top, not the middle).
    pub to_top: bool,
    /// The person moved the cursor: answers of the matcher keep it on
    /// their row. Until then it stays on the first row, however the rows
    /// arrive (Enter at start resumes the newest).
    pub moved: bool,
    /// Rows whose stats were asked for (so each is asked once).
    pub stats_asked: HashSet<usize>,
    /// The requests whose replies the list waits for.
    pub waiting: ListRequests,
    /// What the query searches: names or every message.
    pub mode: ListMode,
    /// The answer to the newest message search.
    pub hits: MessageHits,
    /// The order of the sessions when there is no query.
    pub sort: SortKey,
    /// Where the search index is.
    pub index: IndexState,
    /// Stats the index holds, by id, for rows that arrive after them.
    pub indexed: HashMap<String, IndexedStats>,
    /// When each session's agent deletes it by itself (Claude Code's
    /// `cleanupPeriodDays`, Gemini CLI's retention), by id.
    pub agent_deletes_at: crate::store::DeletesAt,
    /// The agents' cleanup rules, as read from their settings.
    pub retention_rules: Vec<RetentionRule>,
    /// Rows from this one on are still to be filled from `indexed`, a
    /// slice per turn; `fill_generation` counts the stats received, so a
    /// slice of older stats is not continued.
    pub fill_from: Option<usize>,
    /// See `fill_from`.
    pub fill_generation: u64,
    /// What the list follows of the disk.
    pub following: Following,
}

/// Where the background update of the search index is.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum IndexState {
    /// Not started yet.
    #[default]
    Waiting,
    /// Reading changed sessions: `done` of `total`.
    Updating { done: usize, total: usize },
    /// Up to date.
    Ready,
    /// It could not be brought up to date (why); message search covers
    /// what the index has.
    Failed(UiError),
}

/// What the list's query searches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListMode {
    /// Names, first prompts and ids (fuzzy).
    #[default]
    Sessions,
    /// The text of every message (the search index).
    Messages,
}

/// The order of the sessions when there is no query.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SortKey {
    /// Most recently used first.
    #[default]
    LastUsed,
    /// Most recently created first.
    Created,
    /// Biggest first.
    Size,
    /// Most messages first.
    Messages,
    /// Most tokens first.
    Tokens,
    /// Fullest context first (tokens over the model's window).
    Fill,
    /// Costliest first (another agent's recorded usage, priced).
    Cost,
    /// A to Z.
    Name,
}

impl SortKey {
    /// The next order, for the key that cycles them.
    pub fn next(self) -> SortKey {
        match self {
            SortKey::LastUsed => SortKey::Created,
            SortKey::Created => SortKey::Size,
            SortKey::Size => SortKey::Messages,
            SortKey::Messages => SortKey::Tokens,
            SortKey::Tokens => SortKey::Fill,
            SortKey::Fill => SortKey::Cost,
            SortKey::Cost => SortKey::Name,
            SortKey::Name => SortKey::LastUsed,
        }
    }

    /// How the header names it.
    pub fn label(self) -> &'static str {
        match self {
            SortKey::LastUsed => "last used",
            SortKey::Created => "created",
            SortKey::Size => "size",
            SortKey::Messages => "messages",
            SortKey::Tokens => "tokens",
            SortKey::Fill => "context fill",
            SortKey::Cost => "cost",
            SortKey::Name => "name",
        }
    }
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
    /// The store's check of a deletion, before the person is asked.
    pub delete_check: Option<u64>,
    /// A deletion of one session.
    pub delete: Option<u64>,
    /// A restore of one session from the archive.
    pub restore: Option<u64>,
    /// A move of one session: its preview, then its write.
    pub moving: Option<u64>,
    /// The newest message search.
    pub search: u64,
    /// When the agents delete sessions by themselves.
    pub retention: u64,
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
            folder: None,
            query: TextField::new("", QUERY_LIMIT),
            visible: Vec::new(),
            visible_query: String::new(),
            visible_complete: false,
            ranked_all: false,
            resume_when_listed: false,
            selected: 0,
            preview: None,
            pending_select: None,
            to_top: false,
            moved: false,
            stats_asked: HashSet::new(),
            waiting: ListRequests::default(),
            mode: ListMode::default(),
            hits: MessageHits::default(),
            sort: SortKey::default(),
            index: IndexState::default(),
            indexed: HashMap::new(),
            agent_deletes_at: Default::default(),
            retention_rules: Vec::new(),
            fill_from: None,
            fill_generation: 0,
            following: Following::default(),
        }
    }
}

impl ListScreen {
    /// The session under the cursor (in message search, the selected
    /// hit's session).
    pub fn selected_row(&self) -> Option<&SessionRow> {
        let index = match self.mode {
            ListMode::Sessions => *self.visible.get(self.selected)?,
            ListMode::Messages => {
                let hit = self.hits.selected_hit()?;
                *self.by_id.get(&hit.session_id)?
            }
        };
        self.rows.get(index)
    }

    /// The selected hit of a message search.
    pub fn selected_hit(&self) -> Option<&Hit> {
        match self.mode {
            ListMode::Messages => self.hits.selected_hit(),
            ListMode::Sessions => None,
        }
    }

    /// The agent an `@agent` term at the start of the query shows alone.
    pub fn agent_filter(&self) -> Option<Agent> {
        self.query
            .value()
            .split(' ')
            .find(|w| !w.is_empty())
            .and_then(|w| w.strip_prefix('@'))
            .and_then(|name| name.parse::<Agent>().ok())
    }

    /// The agents whose sessions are listed, in their order, once each.
    pub fn listed_agents(&self) -> Vec<Agent> {
        let mut listed: Vec<Agent> = self.rows.iter().map(|r| r.record.agent).collect();
        listed.sort();
        listed.dedup();
        listed
    }
}

/// The preview of the selected session.
#[derive(Clone, Debug, PartialEq)]
pub struct Preview {
    /// Which session it shows.
    pub id: String,
    /// The last messages as (role, one line), or why they could not be read.
    pub last_messages: Result<Vec<(String, String)>, UiError>,
}
