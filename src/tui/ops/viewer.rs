//! What the viewer asks of the store, and its answers (with the
//! transcript search's, which the viewer also waits for).

use crate::render::transcript::TextMatch;
use crate::store::{
    Change, ChangeReport, ClearedCounts, Context, ContextDiff, ContextInfo, DeletedContext,
    EditFacts, Encoding, Expected, Mode, SessionRecord, TranscriptFormat, Window,
};
use crate::tui::model::Loaded;
use crate::tui::ops::{Job, Lane, Priority, UiError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A store operation of the viewer.
#[derive(Clone, Debug)]
pub enum ViewerOp {
    /// Load a conversation (answers `ConversationLoaded`): the session's
    /// own, or the side conversation `context` of it, read only.
    LoadConversation {
        record: SessionRecord,
        context: Option<String>,
    },
    /// Count tokens of every message (answers `Counted` slice by slice,
    /// then `CountingEnded`).
    CountTokens {
        record: SessionRecord,
        context: Arc<Context>,
        encoding: Encoding,
    },
    /// Count the messages from `from` on, the ones an agent appended
    /// since (answers `Counted` slice by slice, then `CountingEnded`).
    CountAppended {
        context: Arc<Context>,
        from: usize,
        encoding: Encoding,
    },
    /// Read the open session's conversation again after the watcher saw
    /// it change (answers `Followed`).
    Follow { record: SessionRecord },
    /// Read what edits by hand and the breakdown need of a context
    /// (answers `EditFactsRead`).
    ReadEditFacts { context: Arc<Context> },
    /// Count each clearable message as it would be once cleared (answers
    /// `ClearedCounted`).
    CountCleared {
        context: Arc<Context>,
        facts: Arc<EditFacts>,
        counts: Vec<u64>,
        encoding: Encoding,
    },
    /// Count each message the fix for resuming changes as it would be
    /// once fixed, for tool results over `results_over` (answers
    /// `ReplacedCounted`).
    CountReplaced {
        context: Arc<Context>,
        facts: Arc<EditFacts>,
        counts: Vec<u64>,
        encoding: Encoding,
        results_over: u64,
    },
    /// What an edit would write, as the CLI's `--dry-run` says it: the
    /// plan made again by the store, with the bytes (answers `EditPreviewed`).
    PreviewEdit {
        record: SessionRecord,
        request: Change,
        encoding: Encoding,
    },
    /// Fork the active context (answers `Trimmed`).
    ApplyTrim {
        record: SessionRecord,
        request: Window,
        encoding: Encoding,
        expected: Expected,
    },
    /// Fork the active context with messages dropped or tool results
    /// cleared (answers `Edited`).
    ApplyEdit {
        record: SessionRecord,
        request: Change,
        encoding: Encoding,
        expected: Expected,
    },
    /// Compare a context with its parent (answers `Diffed`).
    DiffContext {
        record: SessionRecord,
        context_id: String,
        encoding: Encoding,
    },
    /// Write a context's transcript to a file (answers `Exported`).
    Export {
        record: SessionRecord,
        context_id: String,
        path: PathBuf,
        format: TranscriptFormat,
        force: bool,
    },
    /// Make another context active (answers `Switched`).
    SwitchContext {
        record: SessionRecord,
        context_id: String,
    },
    /// List every context of the session, with token counts when
    /// `encoding` is given (answers `ContextsListed`).
    ListContexts {
        record: SessionRecord,
        encoding: Option<Encoding>,
    },
    /// Ask whether a context may be deleted (answers `DeleteContextChecked`).
    CheckDeleteContext {
        record: SessionRecord,
        context_id: String,
    },
    /// Delete a context (answers `ContextDeleted`).
    DeleteContext {
        record: SessionRecord,
        context_id: String,
    },
}

/// An answer for the viewer.
#[derive(Clone, Debug)]
pub enum ViewerReply {
    /// A conversation was loaded for the viewer.
    ConversationLoaded { result: Result<Loaded, UiError> },
    /// The open session's conversation was read again after a change.
    Followed { result: Result<Loaded, UiError> },
    /// Token counts of messages `start..` were computed.
    Counted {
        encoding: Encoding,
        start: usize,
        counts: Vec<u64>,
    },
    /// The counting ended: every slice was sent, or it stopped (a newer
    /// conversation), or it failed.
    CountingEnded { result: Result<(), UiError> },
    /// The edit facts of a loaded context were read.
    EditFactsRead { facts: Arc<EditFacts> },
    /// The clearable messages were counted as cleared.
    ClearedCounted {
        encoding: Encoding,
        result: Result<ClearedCounts, UiError>,
    },
    /// The messages the fix for resuming changes were counted as fixed.
    ReplacedCounted {
        encoding: Encoding,
        results_over: u64,
        result: Result<ClearedCounts, UiError>,
    },
    /// The store planned an edit: its figures, bytes included.
    EditPreviewed {
        result: Result<EditPreview, UiError>,
    },
    /// An edit by hand was applied (or refused).
    Edited { result: Result<EditDone, UiError> },
    /// A context was compared with its parent.
    Diffed {
        result: Result<ContextDiff, UiError>,
    },
    /// An export was written (to the absolute path given), or not.
    Exported {
        path: PathBuf,
        result: Result<PathBuf, UiError>,
    },
    /// A trim was applied (or refused).
    Trimmed {
        result: Result<Option<String>, UiError>,
    },
    /// The active context was switched.
    Switched { result: Result<String, UiError> },
    /// The contexts of the session were listed (`counted`: with tokens).
    ContextsListed {
        counted: bool,
        result: Result<Vec<ContextInfo>, UiError>,
    },
    /// The store said whether a context may be deleted.
    DeleteContextChecked {
        context_id: String,
        result: Result<(), UiError>,
    },
    /// A context was deleted (or the deletion was refused).
    ContextDeleted {
        result: Result<DeletedContext, UiError>,
    },
    /// The transcript's search found these matches (`complete`: all of
    /// them; else the first one from the message on screen).
    TranscriptFound {
        hits: Arc<Vec<TextMatch>>,
        complete: bool,
        more: bool,
    },
}

impl ViewerOp {
    /// Counting, and the facts a trim preview needs (read as the viewer
    /// opens, before any trim is asked for), yield to the UI: they still
    /// use every idle core, but the first frame is drawn first. The rest is
    /// what the person waits for.
    pub(super) fn priority(&self) -> Priority {
        match self {
            ViewerOp::CountTokens { .. }
            | ViewerOp::CountAppended { .. }
            | ViewerOp::CountCleared { .. }
            | ViewerOp::CountReplaced { .. }
            | ViewerOp::ReadEditFacts { .. } => Priority::Nice,
            ViewerOp::ListContexts {
                encoding: Some(_), ..
            } => Priority::Nice,
            _ => Priority::Normal,
        }
    }

    /// A newer load, trim or switch makes an older counting moot.
    pub(super) fn lane(&self) -> Option<Lane> {
        match self {
            ViewerOp::LoadConversation { .. }
            | ViewerOp::Follow { .. }
            | ViewerOp::CountTokens { .. }
            | ViewerOp::CountAppended { .. }
            | ViewerOp::ApplyTrim { .. }
            | ViewerOp::SwitchContext { .. } => Some(Lane::Conversation),
            _ => None,
        }
    }

    /// One call of the door (two for an export: make it, write it).
    pub(super) fn run(self, job: &Job) -> ViewerReply {
        let (store, now) = (job.store, job.now);
        match self {
            ViewerOp::LoadConversation { record, context } => {
                crate::render::transcript::prewarm_languages();
                let result = match context {
                    None => load(store, &record),
                    Some(id) => load_side(store, &record, &id),
                };
                ViewerReply::ConversationLoaded { result }
            }
            ViewerOp::Follow { record } => ViewerReply::Followed {
                result: load(store, &record),
            },
            ViewerOp::CountAppended {
                context,
                from,
                encoding,
            } => {
                let result = store.count_tokens_from(&context, from, encoding, &|start, counts| {
                    job.current()
                        && job.send(ViewerReply::Counted {
                            encoding,
                            start,
                            counts,
                        })
                });
                ViewerReply::CountingEnded {
                    result: result.map_err(UiError::from),
                }
            }
            ViewerOp::CountTokens {
                record,
                context,
                encoding,
            } => {
                // Stops when a newer conversation request superseded this one.
                let target = store.target(&record);
                let result =
                    store.count_tokens_kept(&target, &context, encoding, &|start, counts| {
                        job.current()
                            && job.send(ViewerReply::Counted {
                                encoding,
                                start,
                                counts,
                            })
                    });
                ViewerReply::CountingEnded {
                    result: result.map_err(UiError::from),
                }
            }
            ViewerOp::ReadEditFacts { context } => ViewerReply::EditFactsRead {
                facts: Arc::new(EditFacts::new(&context)),
            },
            ViewerOp::CountCleared {
                context,
                facts,
                counts,
                encoding,
            } => {
                let which: Vec<usize> = facts.clearable_messages().collect();
                ViewerReply::ClearedCounted {
                    encoding,
                    result: store
                        .cleared_counts(&context, &facts, &counts, encoding, &which)
                        .map_err(UiError::from),
                }
            }
            ViewerOp::CountReplaced {
                context,
                facts,
                counts,
                encoding,
                results_over,
            } => ViewerReply::ReplacedCounted {
                encoding,
                results_over,
                result: store
                    .replaced_counts(&context, &facts, &counts, encoding, results_over)
                    .map_err(UiError::from),
            },
            ViewerOp::PreviewEdit {
                record,
                request,
                encoding,
            } => ViewerReply::EditPreviewed {
                result: store
                    .change(
                        &store.target(&record),
                        &request,
                        encoding,
                        Mode::Preview,
                        now,
                    )
                    .map(|report| EditPreview::of(&report))
                    .map_err(UiError::from),
            },
            ViewerOp::ApplyTrim {
                record,
                request,
                encoding,
                expected,
            } => ViewerReply::Trimmed {
                result: store
                    .change(
                        &store.target(&record),
                        &Change::Window(request),
                        encoding,
                        Mode::Write {
                            expected: Some(&expected),
                        },
                        now,
                    )
                    .map(|report| report.made())
                    .map_err(UiError::from),
            },
            ViewerOp::ApplyEdit {
                record,
                request,
                encoding,
                expected,
            } => ViewerReply::Edited {
                result: store
                    .change(
                        &store.target(&record),
                        &request,
                        encoding,
                        Mode::Write {
                            expected: Some(&expected),
                        },
                        now,
                    )
                    .map(|report| edit_done(&report))
                    .map_err(UiError::from),
            },
            ViewerOp::DiffContext {
                record,
                context_id,
                encoding,
            } => ViewerReply::Diffed {
                result: store
                    .diff(&store.target(&record), Some(&context_id), encoding)
                    .map_err(UiError::from),
            },
            ViewerOp::Export {
                record,
                context_id,
                path,
                format,
                force,
            } => {
                let target = store.target(&record);
                let result = store
                    .export(&target, Some(&context_id), format)
                    .and_then(|text| store.write_export(&target, &path, &text, force))
                    .map(|()| absolute(&path))
                    .map_err(UiError::from);
                ViewerReply::Exported { path, result }
            }
            ViewerOp::SwitchContext { record, context_id } => ViewerReply::Switched {
                result: store
                    .activate_context(&store.target(&record), &context_id)
                    .map(|()| context_id)
                    .map_err(UiError::from),
            },
            ViewerOp::ListContexts { record, encoding } => ViewerReply::ContextsListed {
                counted: encoding.is_some(),
                result: store
                    .contexts(&store.target(&record), encoding)
                    .map_err(UiError::from),
            },
            ViewerOp::CheckDeleteContext { record, context_id } => {
                let result = store
                    .check_delete_context(&store.target(&record), &context_id)
                    .map_err(UiError::from);
                ViewerReply::DeleteContextChecked { context_id, result }
            }
            ViewerOp::DeleteContext { record, context_id } => ViewerReply::ContextDeleted {
                result: store
                    .delete_context(&store.target(&record), &context_id)
                    .map_err(UiError::from),
            },
        }
    }
}

/// The session's active context, as the viewer holds it.
fn load(store: &crate::store::Store, record: &SessionRecord) -> Result<Loaded, UiError> {
    store
        .load_conversation(&store.target(record))
        .map(|c| Loaded {
            facts: None,
            usage: c.usage.map(|u| Box::new((u.total(), c.cost))),
            notes: c.notes,
            recorded: c.recorded,
            context: Arc::new(c.context),
            agent_owned: c.agent_owned,
        })
        .map_err(UiError::from)
}

/// The side conversation `id` of `record` (a subagent's, an older
/// fork's), read only: no usage of its own, no edits.
fn load_side(
    store: &crate::store::Store,
    record: &SessionRecord,
    id: &str,
) -> Result<Loaded, UiError> {
    store
        .read_context(&store.target(record), id)
        .map(|context| Loaded {
            facts: None,
            usage: None,
            notes: Vec::new(),
            recorded: None,
            context: Arc::new(context),
            agent_owned: true,
        })
        .map_err(UiError::from)
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
    /// Images and documents replaced.
    pub media: usize,
    /// The context's tokens before.
    pub tokens_before: u64,
    /// The fork's tokens.
    pub tokens_after: u64,
    /// True when `child` is a new session of another agent (its original untouched).
    pub new_session: bool,
}

/// What the store's preview of an edit says, to confirm it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditPreview {
    /// False when the edit would change nothing.
    pub changed: bool,
    /// Messages it would drop.
    pub dropped: usize,
    /// Tool results it would clear.
    pub results: usize,
    /// Images and documents it would replace.
    pub media: usize,
    /// Tokens before and after.
    pub tokens: (u64, u64),
    /// Bytes of the file before, and of the new one.
    pub bytes: Option<(u64, u64)>,
    /// True when the edit writes a new session beside another agent's.
    pub new_session: bool,
}

impl EditPreview {
    fn of(report: &ChangeReport) -> EditPreview {
        let plan = &report.plan;
        EditPreview {
            changed: plan.changed,
            dropped: plan.dropped.len(),
            results: report.results_cleared(),
            media: report.media_replaced(),
            tokens: (plan.tokens_before, plan.tokens_after),
            bytes: report.bytes,
            new_session: report.fork.is_some(),
        }
    }
}

/// What the viewer reports of an applied edit.
fn edit_done(report: &ChangeReport) -> EditDone {
    EditDone {
        child: report.made(),
        new_session: report.fork.is_some(),
        dropped: report.plan.dropped.len(),
        cleared: report.results_cleared(),
        media: report.media_replaced(),
        tokens_before: report.plan.tokens_before,
        tokens_after: report.plan.tokens_after,
    }
}

/// `path` from the root, as the status line names where a file went (a
/// relative path is the process's current directory's).
fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    std::env::current_dir().map_or_else(|_| path.to_path_buf(), |dir| dir.join(path))
}
