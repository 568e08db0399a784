//! Everything that can happen to the UI: user intents and worker replies.

use crate::store::{
    Candidate, ClearedCounts, ContextDiff, ContextInfo, DeletedContext, EditIndex, Encoding,
    IndexedStats, PurgeProgress, PurgeReport, SearchOutcome, SessionRecord, SessionStats,
    UpdateReport,
};
use crate::tui::model::{Loaded, Preview};
use crate::tui::transcript::Hit;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use tui_input::InputRequest;

/// A user intent, produced by the keymap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Move the cursor up one row.
    Up,
    /// Move the cursor down one row.
    Down,
    /// Up one page.
    PageUp,
    /// Down one page.
    PageDown,
    /// To the first row.
    Home,
    /// To the last row.
    End,
    /// Resume the selected session (touch it and exit).
    Resume,
    /// Open the selected session in the viewer.
    Open,
    /// Leave the current screen (or cancel the current step).
    Back,
    /// Clear the query; quit when it is already empty.
    ClearOrQuit,
    /// Quit at once.
    Quit,
    /// Give the terminal back and stop, as Ctrl-Z does in a shell; `fg`
    /// comes back to the same screen.
    Suspend,
    /// Show the key help.
    Help,
    /// Ask for a first prompt and start a session.
    NewSession,
    /// Rename the selected session.
    Rename,
    /// Delete the selected session (asks first).
    Delete,
    /// Read the store again.
    Refresh,
    /// Open the purge preview.
    PurgePreview,
    /// Erase the last typed character.
    Backspace,
    /// Edit the text field in focus (move, delete a word, ...).
    Edit(InputRequest),
    /// Switch the list's search between session names and message text.
    ToggleSearchMode,
    /// Sort the sessions the next way (last used, created, size, ...).
    CycleSort,
    /// Show one agent's sessions, the next agent listed (then every one
    /// again): an `@agent` term at the start of the query.
    CycleAgent,
    /// Switch between cl100k_base and o200k_base.
    ToggleEncoding,
    /// Start trimming to the last N messages.
    TrimKeepLast,
    /// Start trimming to a token budget.
    TrimBudget,
    /// Keep more (N + step, or a bigger budget).
    More,
    /// Keep less.
    Less,
    /// Confirm the step on screen.
    Confirm,
    /// Answer yes to a question.
    Yes,
    /// Answer no to a question.
    No,
    /// Show the session's contexts (forks) to switch back to one.
    Contexts,
    /// Scroll the message detail down.
    DetailDown,
    /// Scroll the message detail up.
    DetailUp,
    /// Keep more sessions in the purge policy.
    KeepMore,
    /// Keep fewer sessions.
    KeepLess,
    /// Raise the purge's maximum age.
    AgeMore,
    /// Lower it.
    AgeLess,
    /// Show or hide the sessions kept for being recent.
    ToggleKept,
    /// Read the selected message full screen.
    ReadMessage,
    /// Start finding text in the message read.
    Find,
    /// Go to the next match.
    NextMatch,
    /// Go to the previous match.
    PrevMatch,
    /// Take the mouse, or give it back to the terminal to select text.
    ToggleMouse,
    /// Delete the selected context (asks first).
    DeleteContext,
    /// Switch the viewer between the table and the transcript.
    ToggleTranscript,
    /// Down half a screen.
    HalfPageDown,
    /// Up half a screen.
    HalfPageUp,
    /// To the next message's header.
    NextMessage,
    /// To the selected message's header, then the previous message's.
    PrevMessage,
    /// Show or hide thinking in the transcript.
    ToggleThinking,
    /// Tool calls and results: off, truncated, full.
    CycleTools,
    /// Markdown rendered, or the text as written.
    ToggleRaw,
    /// Copy the selected message's text to the clipboard.
    CopyMessage,
    /// Copy the session's id.
    CopySessionId,
    /// Copy the session's path.
    CopySessionPath,
    /// Show where the tokens go, by kind.
    Breakdown,
    /// Sort the messages largest first, or back in order.
    SortBySize,
    /// To the next message over the size set.
    NextBig,
    /// To the previous message over the size set.
    PrevBig,
    /// Set the size the jumps go to messages over.
    SetBigSize,
    /// Mark (or unmark) the selected message for an edit by hand.
    Mark,
    /// Mark every message from the last mark to the cursor.
    MarkRange,
    /// Start choosing tool results to clear.
    StartClear,
    /// Switch an edit by hand to dropping the marked messages.
    StartDrop,
    /// Choose which tool results a clear picks: marked, by size, by turns.
    CycleClearChoice,
    /// Compare the chosen context with its parent.
    Diff,
    /// Write the context's transcript to a file.
    Export,
}

/// What an edit by hand did, as the viewer reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditDone {
    /// The new active context (None: the edit changed nothing).
    pub child: Option<String>,
    /// Messages dropped (partners included).
    pub dropped: usize,
    /// Tool results cleared.
    pub cleared: usize,
    /// The context's tokens before.
    pub tokens_before: u64,
    /// The fork's tokens.
    pub tokens_after: u64,
}

/// Why an export was not written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExportError {
    /// The file exists: the person is asked whether to replace it.
    Exists,
    /// Anything else, to show.
    Failed(String),
}

/// A message to `update`.
#[derive(Clone, Debug)]
pub enum Msg {
    /// A user intent.
    Action(Action),
    /// A character typed into the query, a number or a text field.
    Type(char),
    /// Text pasted (bracketed paste): inserted as text, never as keys.
    Paste(String),
    /// The mouse wheel turned (positive: down).
    Scroll(i32),
    /// Time passed (seconds since the epoch now).
    Tick(f64),
    /// The process received this signal: end the UI, restoring the terminal.
    Signal(i32),
    /// The terminal has this many columns and rows.
    Resize(u16, u16),
    /// The search index got this far: `done` of `total` sessions read.
    IndexProgress { done: usize, total: usize },
    /// The search index is up to date (or could not be brought up to date).
    IndexUpdated {
        result: Result<UpdateReport, String>,
    },
    /// Every session's stats as the index has them, by id.
    IndexStats {
        stats: HashMap<String, IndexedStats>,
    },
    /// Fill the next slice of rows from the index's stats (`generation`
    /// names the stats it began with).
    FillIndexed { generation: u64 },
    /// A message search answered.
    MessageHits {
        req: u64,
        query: String,
        result: Result<SearchOutcome, String>,
    },
    /// Some sessions were read.
    SessionsBatch {
        req: u64,
        records: Vec<SessionRecord>,
    },
    /// The scan finished (or failed); `folder` is the session folder it read.
    ScanDone {
        req: u64,
        folder: String,
        error: Option<String>,
    },
    /// The matcher answered a query with row indices, best first.
    Filtered {
        req: u64,
        query: String,
        rows: Vec<usize>,
        /// False for a first answer ranking only the most recent sessions.
        complete: bool,
    },
    /// Stats of some sessions, by row index.
    Stats {
        req: u64,
        stats: Vec<(usize, SessionStats)>,
    },
    /// The preview of a session was read.
    PreviewLoaded { req: u64, preview: Preview },
    /// A conversation was loaded for the viewer.
    ConversationLoaded {
        req: u64,
        result: Result<Loaded, String>,
    },
    /// Token counts of messages `start..` were computed.
    Counted {
        req: u64,
        encoding: Encoding,
        start: usize,
        counts: Vec<u64>,
    },
    /// The transcript's search found these matches (`complete`: all of
    /// them; else the first one from the message on screen).
    TranscriptFound {
        req: u64,
        hits: Arc<Vec<Hit>>,
        complete: bool,
        more: bool,
    },
    /// Counting failed.
    CountFailed { req: u64, error: String },
    /// The edit index of a loaded context was read.
    EditIndexRead { req: u64, index: Arc<EditIndex> },
    /// The clearable messages were counted as cleared.
    ClearedCounted {
        req: u64,
        encoding: Encoding,
        result: Result<ClearedCounts, String>,
    },
    /// An edit by hand was applied (or refused).
    Edited {
        req: u64,
        result: Result<EditDone, String>,
    },
    /// A context was compared with its parent.
    Diffed {
        req: u64,
        result: Result<ContextDiff, String>,
    },
    /// An export was written (to the absolute path given), or not.
    Exported {
        req: u64,
        path: PathBuf,
        result: Result<PathBuf, ExportError>,
    },
    /// A trim was applied (or refused).
    Trimmed {
        req: u64,
        result: Result<Option<String>, String>,
    },
    /// The active context was switched.
    Switched {
        req: u64,
        result: Result<String, String>,
    },
    /// The contexts of the session were listed (`counted`: with tokens).
    ContextsListed {
        req: u64,
        counted: bool,
        result: Result<Vec<ContextInfo>, String>,
    },
    /// The store said whether a context may be deleted.
    DeleteContextChecked {
        req: u64,
        context_id: String,
        result: Result<(), String>,
    },
    /// A context was deleted (or the deletion was refused).
    ContextDeleted {
        req: u64,
        result: Result<DeletedContext, String>,
    },
    /// The facts for the purge preview were gathered.
    PurgeGathered {
        req: u64,
        result: Result<Arc<Vec<Candidate>>, String>,
    },
    /// Purge progress.
    PurgeProgress { req: u64, progress: PurgeProgress },
    /// The purge ended.
    PurgeDone {
        req: u64,
        result: Result<PurgeReport, String>,
    },
    /// One session was deleted (or the deletion was refused).
    Deleted {
        req: u64,
        result: Result<PurgeReport, String>,
    },
    /// A session was created.
    Created {
        result: Result<SessionRecord, String>,
    },
    /// A session was renamed.
    Renamed {
        result: Result<SessionRecord, String>,
    },
    /// The session to resume was touched.
    Resumed {
        result: Result<SessionRecord, String>,
    },
}
