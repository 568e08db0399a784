//! Work `update` asks the runtime to do; each result comes back as a `Msg`.

use crate::store::{
    Context, EditIndex, EditRequest, Encoding, Expected, PurgePlan, SessionRecord,
    TranscriptFormat, TrimRequest,
};
use crate::tui::finder::FindJob;
use crate::tui::matcher::MatcherJob;
use crate::tui::searcher::SearchJob;
use std::path::PathBuf;
use std::sync::Arc;

/// A side effect, performed off the UI thread.
#[derive(Clone, Debug)]
pub enum Effect {
    /// Read every session (answers `SessionsBatch`…, then `ScanDone`).
    Scan { req: u64 },
    /// Work for the fuzzy matcher of the list (a query answers `Filtered`;
    /// the newest query wins).
    Matcher(MatcherJob),
    /// Bring the search index up to date in the background (answers
    /// `IndexProgress`…, then `IndexUpdated`).
    UpdateIndex,
    /// Read every session's stats from the index (answers `IndexStats`).
    LoadIndexStats,
    /// Hand `FillIndexed { generation }` back at once: the rows are filled
    /// from the index's stats a slice per turn, so keys are answered in
    /// between (100k rows at once held the loop for 30 to 60 ms).
    ContinueFill { generation: u64 },
    /// Free the index's previous stats on a worker thread: freeing 100k
    /// entries took 30 ms of the UI thread.
    FreeStats {
        stats: std::collections::HashMap<String, crate::store::IndexedStats>,
    },
    /// Search the text of every message (answers `MessageHits`; latest wins).
    Search(SearchJob),
    /// Gather size, messages and tokens of rows (answers `Stats`).
    Stats {
        req: u64,
        rows: Vec<(usize, SessionRecord)>,
        encoding: Encoding,
    },
    /// Read the last messages of a session (answers `PreviewLoaded`).
    LoadPreview { req: u64, record: SessionRecord },
    /// Load a conversation (answers `ConversationLoaded`).
    LoadConversation { req: u64, record: SessionRecord },
    /// Count tokens of every message (answers `Counted` in chunks).
    CountTokens {
        req: u64,
        context: Arc<Context>,
        encoding: Encoding,
    },
    /// Read what edits by hand and the breakdown need of a context
    /// (answers `EditIndexRead`).
    ReadEditIndex { req: u64, context: Arc<Context> },
    /// Count each clearable message as it would be once cleared (answers
    /// `ClearedCounted`).
    CountCleared {
        req: u64,
        context: Arc<Context>,
        index: Arc<EditIndex>,
        counts: Vec<u64>,
        encoding: Encoding,
    },
    /// Find text in every part of every message of the open transcript
    /// (answers `TranscriptFound`, a first match early, then all; latest
    /// wins).
    Find(FindJob),
    /// Fork the active context (answers `Trimmed`).
    ApplyTrim {
        req: u64,
        record: SessionRecord,
        request: TrimRequest,
        encoding: Encoding,
        expected: Expected,
    },
    /// Fork the active context with messages dropped or tool results
    /// cleared (answers `Edited`).
    ApplyEdit {
        req: u64,
        record: SessionRecord,
        request: EditRequest,
        encoding: Encoding,
        expected: Expected,
    },
    /// Compare a context with its parent (answers `Diffed`).
    DiffContext {
        req: u64,
        record: SessionRecord,
        context_id: String,
        encoding: Encoding,
    },
    /// Write a context's transcript to a file (answers `Exported`).
    Export {
        req: u64,
        record: SessionRecord,
        context_id: String,
        path: PathBuf,
        format: TranscriptFormat,
        force: bool,
    },
    /// Make another context active (answers `Switched`).
    SwitchContext {
        req: u64,
        record: SessionRecord,
        context_id: String,
    },
    /// List every context of the session, with token counts when
    /// `encoding` is given (answers `ContextsListed`).
    ListContexts {
        req: u64,
        record: SessionRecord,
        encoding: Option<Encoding>,
    },
    /// Ask whether a context may be deleted (answers `DeleteContextChecked`).
    CheckDeleteContext {
        req: u64,
        record: SessionRecord,
        context_id: String,
    },
    /// Delete a context (answers `ContextDeleted`).
    DeleteContext {
        req: u64,
        record: SessionRecord,
        context_id: String,
    },
    /// Gather the facts for a purge plan (answers `PurgeGathered`).
    GatherPurge { req: u64 },
    /// Apply a purge plan (answers `PurgeProgress`…, then `PurgeDone`).
    ApplyPurge { req: u64, plan: PurgePlan },
    /// Delete one session, with the purge's safety checks (answers `Deleted`).
    DeleteSession {
        req: u64,
        record: SessionRecord,
        even_damaged: bool,
    },
    /// Start a session (answers `Created`).
    CreateSession { prompt: String },
    /// Rename a session (answers `Renamed`).
    RenameSession { record: SessionRecord, name: String },
    /// Touch a session before resuming it (answers `Resumed`).
    Resume { record: SessionRecord },
}
