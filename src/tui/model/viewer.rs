//! The state of the viewer of one session, with its sub-modes.

use crate::store::{
    Breakdown, ClearedCounts, Context, ContextInfo, EditFacts, Encoding, SessionRecord, Window,
    WindowPlan,
};
use crate::tui::model::{DiffView, EditState, MessageView, SizeOrder, TranscriptView};
use crate::tui::ops::UiError;
use std::collections::HashMap;
use std::sync::Arc;

/// A loaded conversation. Messages are rendered when they are on screen,
/// so a context of any length is ready as soon as it is parsed.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The active context.
    pub context: Arc<Context>,
    /// What trims, edits by hand and the breakdown need of it, read once
    /// on a worker after the load (None until it is read).
    pub facts: Option<Arc<EditFacts>>,
    /// A running agent owns the session (`is_active`): trims ask first.
    pub agent_owned: bool,
    /// Another agent's session: the tokens it recorded as spent, and
    /// their estimated cost, for the header.
    pub usage: Option<Box<(crate::store::Usage, Option<crate::store::CostEstimate>)>>,
    /// What could not be read of another agent's files.
    pub notes: Vec<String>,
    /// The context its agent's API saw at the last recorded request.
    pub recorded: Option<crate::store::RecordedContext>,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    /// The preview for `value` (None until every count is known, or when
    /// the store refuses the trim: then `problem` says why).
    pub plan: Option<WindowPlan>,
    /// Why there is no preview, when the store refused it.
    pub problem: Option<String>,
    /// A trim was sent to the store and has not answered.
    pub applying: bool,
    /// What + and - add or take: a message, or a round share of the
    /// context's tokens (1,000 while they are being counted).
    pub step: u64,
}

impl TrimState {
    /// What the store is asked to do.
    pub fn request(&self) -> Window {
        match self.kind {
            TrimKind::KeepLast => Window::KeepMessages(self.value as usize),
            TrimKind::Budget => Window::MaxTokens(self.value),
        }
    }

    /// What a person should know before applying the plan on screen.
    pub fn warnings(&self) -> Vec<String> {
        self.plan
            .as_ref()
            .map_or_else(Vec::new, |plan| plan.warnings(self.request()))
    }
}

/// What the viewer is doing.
#[derive(Clone, Debug, PartialEq)]
pub enum ViewerMode {
    /// Reading messages.
    Browse,
    /// Adjusting a trim.
    Trim(TrimState),
    /// Marking messages to drop, or tool results to clear.
    Edit(Box<EditState>),
    /// Where the tokens go, by kind.
    Breakdown,
    /// The session's contexts (forks): make one active, delete one.
    Contexts(ContextsView),
    /// Reading one message full screen.
    Message(Box<MessageView>),
    /// Every message as one document.
    Transcript(Box<TranscriptView>),
}

/// The list of a session's contexts in the viewer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContextsView {
    /// The row under the cursor.
    pub cursor: usize,
    /// The contexts, in tree order, once read.
    pub list: Option<Vec<ContextInfo>>,
    /// True once the list holds token counts (or counting them failed).
    pub counted: bool,
    /// Why they could not be read.
    pub error: Option<UiError>,
    /// The tag of the listing, check, deletion or comparison the list waits for.
    pub waiting: u64,
    /// The chosen context compared with its parent, when shown.
    pub diff: Option<DiffView>,
}

impl ContextsView {
    /// The context under the cursor.
    pub fn chosen(&self) -> Option<&ContextInfo> {
        self.list.as_ref()?.get(self.cursor)
    }
}

/// Tags of the requests the viewer makes beside its main one
/// ([`Viewer::waiting`]), each answered on its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pending {
    /// The edit facts of the loaded context.
    pub facts: u64,
    /// The cleared counts, and for which encoding.
    pub cleared: Option<(u64, Encoding)>,
    /// The counts of the fix for resuming: for which encoding and size.
    pub replaced: Option<(u64, Encoding, u64)>,
    /// An export being written.
    pub export: u64,
}

/// The viewer of one session.
#[derive(Clone, Debug)]
pub struct Viewer {
    /// The session.
    pub record: SessionRecord,
    /// The conversation, once loaded.
    pub loaded: Option<Loaded>,
    /// Why it could not be loaded.
    pub error: Option<UiError>,
    /// Token counts per encoding; `None` until counted.
    pub counts: HashMap<Encoding, Vec<Option<u64>>>,
    /// Selected message.
    pub selected: usize,
    /// Lines the detail pane is scrolled by.
    pub detail_scroll: u16,
    /// What the viewer is doing.
    pub mode: ViewerMode,
    /// The tag of the load, count, trim or switch the viewer waits for.
    pub waiting: u64,
    /// Select this message once loaded and mark what this query matched in
    /// it (opened from a message search).
    pub goto: Option<(String, String)>,
    /// The context the message to select is in (a search hit's), read
    /// in its place when it is not the session's own.
    pub goto_context: Option<String>,
    /// A side conversation shown read-only in the session's place (a
    /// subagent's, an older fork's), by context id.
    pub side: Option<String>,
    /// Words to mark in the message text (the message search's query).
    pub find: Option<String>,
    /// The transcript a message read full screen was opened from: Esc
    /// goes back to it.
    pub behind: Option<Box<TranscriptView>>,
    /// The side requests waited for.
    pub pending: Pending,
    /// Each clearable message's count once cleared, per encoding (asked
    /// once when a clear is first prepared).
    pub cleared: HashMap<Encoding, Arc<ClearedCounts>>,
    /// Each message's count once the fix for resuming replaces what it
    /// would in it, per encoding and size of the tool results cleared.
    pub replaced: HashMap<(Encoding, u64), Arc<ClearedCounts>>,
    /// Where the tokens go, once every message is counted and the edit facts read.
    pub breakdown: Option<Breakdown>,
    /// The table shows the messages largest first (once they are counted).
    pub sorted: bool,
    /// That order, once every message is counted.
    pub order: Option<SizeOrder>,
    /// The end is followed as the agent writes (`less +F`): new messages
    /// are selected, the transcript shows the last screen.
    pub follow: bool,
    /// Where the end was last asked to be followed: in the transcript
    /// (true) or the message list. `F` in the other pane follows there
    /// rather than stopping.
    pub follow_in_transcript: bool,
    /// The tag of the reading whose conversation is on screen: the viewer
    /// waits for nothing else when it is [`Viewer::waiting`].
    pub loaded_req: u64,
    /// The session changed on disk while the viewer waited for something
    /// else: it is read again once that is answered.
    pub dirty: bool,
}

impl Viewer {
    /// A viewer of `record` waiting for its conversation (request `req`).
    pub fn new(record: SessionRecord, req: u64) -> Self {
        Viewer {
            record,
            loaded: None,
            error: None,
            counts: HashMap::new(),
            selected: 0,
            detail_scroll: 0,
            mode: ViewerMode::Browse,
            waiting: req,
            goto: None,
            goto_context: None,
            side: None,
            find: None,
            behind: None,
            pending: Pending::default(),
            cleared: HashMap::new(),
            replaced: HashMap::new(),
            breakdown: None,
            sorted: false,
            order: None,
            follow: false,
            follow_in_transcript: false,
            loaded_req: 0,
            dirty: false,
        }
    }

    /// The table's row of message `index` (its index unless sorted).
    pub fn row_of(&self, index: usize) -> usize {
        self.order.as_ref().map_or(index, |o| o.row_of(index))
    }

    /// The message on table row `row`.
    pub fn message_at(&self, row: usize) -> usize {
        self.order.as_ref().map_or(row, |o| o.message_at(row))
    }

    /// Counts in the current encoding, if every message is counted.
    pub fn complete_counts(&self, encoding: Encoding) -> Option<Vec<u64>> {
        self.counts.get(&encoding)?.iter().copied().collect()
    }

    /// The trim being adjusted, if any.
    pub fn trim(&self) -> Option<&TrimState> {
        match &self.mode {
            ViewerMode::Trim(trim) => Some(trim),
            _ => None,
        }
    }

    /// The edit by hand being prepared, if any.
    pub fn edit(&self) -> Option<&EditState> {
        match &self.mode {
            ViewerMode::Edit(edit) => Some(edit),
            _ => None,
        }
    }

    /// The message read full screen, if one is.
    pub fn message(&self) -> Option<&MessageView> {
        match &self.mode {
            ViewerMode::Message(view) => Some(view),
            _ => None,
        }
    }

    /// The transcript, if it is showing.
    pub fn transcript(&self) -> Option<&TranscriptView> {
        match &self.mode {
            ViewerMode::Transcript(view) => Some(view),
            _ => None,
        }
    }

    /// The list of contexts, if it is open.
    pub fn contexts(&self) -> Option<&ContextsView> {
        match &self.mode {
            ViewerMode::Contexts(view) => Some(view),
            _ => None,
        }
    }

    /// The list of contexts, if it is open, to change.
    pub fn contexts_mut(&mut self) -> Option<&mut ContextsView> {
        match &mut self.mode {
            ViewerMode::Contexts(view) => Some(view),
            _ => None,
        }
    }
}
