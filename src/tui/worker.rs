//! Performs effects off the UI thread and reports back as `Msg`s: a thin
//! dispatch from each `Effect` to one call of the store's door, [`Store`].

use crate::store::{
    Context, EditIndex, EditOutcome, Encoding, PurgePlan, PurgeReport, SessionRecord, Store,
    StoreError,
};
use crate::tui::effect::Effect;
use crate::tui::finder::{FindJob, Finder};
use crate::tui::latest;
use crate::tui::matcher::{Matcher, MatcherJob};
use crate::tui::model::{Loaded, Preview};
use crate::tui::msg::{EditDone, ExportError, Msg};
use crate::tui::searcher::{SearchJob, Searcher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::thread;

/// Messages the preview shows.
const PREVIEW_MESSAGES: usize = 4;
/// Characters of a message shown in the preview.
const LINE_CHARS: usize = 300;

/// Runs effects on threads; one per effect, except the matcher's jobs.
#[derive(Clone)]
pub struct Worker {
    store: Arc<Store>,
    replies: Sender<Msg>,
    matcher: Sender<MatcherJob>,
    searcher: Sender<SearchJob>,
    finder: Sender<FindJob>,
    /// The newest conversation request: older counting jobs stop early.
    conversation: Arc<AtomicU64>,
    /// The newest scan request: older scans stop early.
    scan: Arc<AtomicU64>,
    /// The clock for writes (seconds since the epoch).
    clock: fn() -> f64,
}

impl Worker {
    /// A worker over `store` answering on `replies`; it starts the
    /// matcher's, the message search's and the transcript search's threads.
    pub fn new(store: Arc<Store>, replies: Sender<Msg>, clock: fn() -> f64) -> Self {
        let matcher = latest::spawn(Matcher::default(), replies.clone());
        let searcher = latest::spawn(Searcher::new(store.clone()), replies.clone());
        let finder = latest::spawn(Finder::default(), replies.clone());
        Worker {
            store,
            replies,
            matcher,
            searcher,
            finder,
            conversation: Arc::new(AtomicU64::new(0)),
            scan: Arc::new(AtomicU64::new(0)),
            clock,
        }
    }

    /// Starts `effect`; never blocks on I/O.
    pub fn perform(&self, effect: Effect) {
        match effect {
            Effect::Matcher(job) => {
                let _ = self.matcher.send(job);
            }
            Effect::Search(job) => {
                let _ = self.searcher.send(job);
            }
            Effect::Find(job) => {
                let _ = self.finder.send(job);
            }
            Effect::ContinueFill { generation } => self.send(Msg::FillIndexed { generation }),
            other => self.spawn(other),
        }
    }

    fn spawn(&self, effect: Effect) {
        let worker = self.clone();
        thread::spawn(move || worker.run_now(effect));
    }

    fn send(&self, msg: Msg) {
        let _ = self.replies.send(msg);
    }

    /// Performs `effect` on the calling thread (the headless driver uses
    /// this to make runs deterministic). Matcher jobs are ignored here.
    pub fn run_now(&self, effect: Effect) {
        if let Effect::Scan { req } = &effect {
            self.scan.fetch_max(*req, Ordering::Relaxed);
        }
        if let Effect::LoadConversation { req, .. }
        | Effect::CountTokens { req, .. }
        | Effect::ApplyTrim { req, .. }
        | Effect::SwitchContext { req, .. } = &effect
        {
            self.conversation.fetch_max(*req, Ordering::Relaxed);
        }
        let now = (self.clock)();
        let store = &self.store;
        match effect {
            Effect::Scan { req } => {
                // A newer scan, or a UI that is gone, stops this one.
                let result = store.scan(|records| {
                    self.scan.load(Ordering::Relaxed) == req
                        && self
                            .replies
                            .send(Msg::SessionsBatch { req, records })
                            .is_ok()
                });
                self.send(Msg::ScanDone {
                    req,
                    folder: store.sessions_dir().display().to_string(),
                    error: result.err().map(|e| e.to_string()),
                });
            }
            Effect::Stats {
                req,
                rows,
                encoding,
            } => {
                // Sizes and token totals can wait; keys and the matcher cannot.
                lower_priority();
                for chunk in rows.chunks(8) {
                    let records: Vec<SessionRecord> =
                        chunk.iter().map(|(_, r)| r.clone()).collect();
                    let stats = store.stats(&records, Some(encoding), &|_| {});
                    let stats = chunk.iter().map(|(i, _)| *i).zip(stats).collect();
                    self.send(Msg::Stats { req, stats });
                }
            }
            Effect::LoadPreview { req, record } => {
                let last_messages = store
                    .last_messages(&store.target(&record), PREVIEW_MESSAGES, LINE_CHARS)
                    .map_err(|e| e.to_string());
                let preview = Preview {
                    id: record.id,
                    last_messages,
                };
                self.send(Msg::PreviewLoaded { req, preview });
            }
            Effect::LoadConversation { req, record } => {
                let result = store
                    .load_conversation(&store.target(&record))
                    .map(|c| Loaded {
                        index: None,
                        context: Arc::new(c.context),
                        agent_owned: c.agent_owned,
                    })
                    .map_err(|e| e.to_string());
                self.send(Msg::ConversationLoaded { req, result });
            }
            Effect::CountTokens {
                req,
                context,
                encoding,
            } => self.count(req, &context, encoding),
            Effect::ApplyTrim {
                req,
                record,
                request,
                encoding,
                expected,
            } => {
                let result = store
                    .trim(
                        &store.target(&record),
                        request,
                        encoding,
                        Some(&expected),
                        now,
                    )
                    .map(|outcome| outcome.child.map(|c| c.id().to_string()))
                    .map_err(|e| e.to_string());
                self.send(Msg::Trimmed { req, result });
            }
            Effect::ReadEditIndex { req, context } => {
                let index = Arc::new(EditIndex::new(&context));
                self.send(Msg::EditIndexRead { req, index });
            }
            Effect::CountCleared {
                req,
                context,
                index,
                counts,
                encoding,
            } => {
                be_polite();
                let which: Vec<usize> = index.clearable_messages().collect();
                let result = store
                    .cleared_counts(&context, &index, &counts, encoding, &which)
                    .map_err(|e| e.to_string());
                self.send(Msg::ClearedCounted {
                    req,
                    encoding,
                    result,
                });
            }
            Effect::ApplyEdit {
                req,
                record,
                request,
                encoding,
                expected,
            } => {
                let result = store
                    .edit(
                        &store.target(&record),
                        &request,
                        encoding,
                        Some(&expected),
                        now,
                    )
                    .map(|outcome| edit_done(&outcome))
                    .map_err(|e| e.to_string());
                self.send(Msg::Edited { req, result });
            }
            Effect::DiffContext {
                req,
                record,
                context_id,
                encoding,
            } => {
                let result = store
                    .diff(&store.target(&record), Some(&context_id), encoding)
                    .map_err(|e| e.to_string());
                self.send(Msg::Diffed { req, result });
            }
            Effect::Export {
                req,
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
                    .map_err(|e| match e {
                        StoreError::Exists { .. } => ExportError::Exists,
                        e => ExportError::Failed(e.to_string()),
                    });
                self.send(Msg::Exported { req, path, result });
            }
            Effect::SwitchContext {
                req,
                record,
                context_id,
            } => {
                let result = store
                    .activate_context(&store.target(&record), &context_id)
                    .map(|()| context_id)
                    .map_err(|e| e.to_string());
                self.send(Msg::Switched { req, result });
            }
            Effect::ListContexts {
                req,
                record,
                encoding,
            } => {
                if encoding.is_some() {
                    // Counting every context can wait for keys and drawing.
                    be_polite();
                }
                let result = store
                    .contexts(&store.target(&record), encoding)
                    .map_err(|e| e.to_string());
                let counted = encoding.is_some();
                self.send(Msg::ContextsListed {
                    req,
                    counted,
                    result,
                });
            }
            Effect::CheckDeleteContext {
                req,
                record,
                context_id,
            } => {
                let result = store
                    .check_delete_context(&store.target(&record), &context_id)
                    .map_err(|e| e.to_string());
                self.send(Msg::DeleteContextChecked {
                    req,
                    context_id,
                    result,
                });
            }
            Effect::DeleteContext {
                req,
                record,
                context_id,
            } => {
                let result = store
                    .delete_context(&store.target(&record), &context_id)
                    .map_err(|e| e.to_string());
                self.send(Msg::ContextDeleted { req, result });
            }
            Effect::GatherPurge { req } => {
                let result = store
                    .purge_candidates()
                    .map(Arc::new)
                    .map_err(|e| e.to_string());
                self.send(Msg::PurgeGathered { req, result });
            }
            Effect::ApplyPurge { req, plan } => {
                let result = self.apply_purge(req, &plan);
                self.send(Msg::PurgeDone { req, result });
            }
            Effect::DeleteSession {
                req,
                record,
                even_damaged,
            } => {
                let result = store
                    .delete(&store.target(&record), now, even_damaged)
                    .map_err(|e| e.to_string());
                self.send(Msg::Deleted { req, result });
            }
            Effect::CreateSession { prompt } => {
                let result = store
                    .start(&prompt, None, now)
                    .map(|started| started.record)
                    .map_err(|e| e.to_string());
                self.send(Msg::Created { result });
            }
            Effect::RenameSession { record, name } => {
                let result = store
                    .rename(&store.target(&record), &name)
                    .map_err(|e| e.to_string());
                self.send(Msg::Renamed { result });
            }
            Effect::Resume { record } => {
                let result = store
                    .resume(&store.target(&record), now)
                    .map(|()| record)
                    .map_err(|e| e.to_string());
                self.send(Msg::Resumed { result });
            }
            Effect::UpdateIndex => self.update_index(now),
            Effect::FreeStats { stats } => drop(stats),
            Effect::LoadIndexStats => {
                let stats = store.indexed_stats();
                self.send(Msg::IndexStats { stats });
            }
            Effect::ContinueFill { generation } => self.send(Msg::FillIndexed { generation }),
            // The headless driver answers these itself.
            Effect::Matcher(_) | Effect::Search(_) | Effect::Find(_) => {}
        }
    }

    /// Brings the search index up to date at a lower priority than the UI
    /// (nice 10: idle priority would starve it on a busy machine), saying
    /// how far it got at most ten times a second.
    fn update_index(&self, now: f64) {
        be_polite();
        let last = std::sync::Mutex::new(std::time::Instant::now());
        let progress = |done: usize, total: usize| {
            let Ok(mut last) = last.lock() else { return };
            if last.elapsed() >= std::time::Duration::from_millis(100) || done == total {
                *last = std::time::Instant::now();
                self.send(Msg::IndexProgress { done, total });
            }
        };
        let result = self
            .store
            .update_index(now, &progress)
            .map_err(|e| e.to_string());
        self.send(Msg::IndexUpdated { result });
    }

    fn apply_purge(&self, req: u64, plan: &PurgePlan) -> Result<PurgeReport, String> {
        self.store
            .apply_purge(plan, &[], |progress| {
                self.send(Msg::PurgeProgress { req, progress })
            })
            .map_err(|e| e.to_string())
    }

    /// Counts every message on all cores, sending counts slice by slice;
    /// stops when a newer conversation request superseded this one.
    fn count(&self, req: u64, context: &Context, encoding: Encoding) {
        // The counts fill in as they come; drawing and keys go first.
        be_polite();
        let result = self
            .store
            .count_tokens(context, encoding, &|start, counts| {
                self.conversation.load(Ordering::Relaxed) == req
                    && self
                        .replies
                        .send(Msg::Counted {
                            req,
                            encoding,
                            start,
                            counts,
                        })
                        .is_ok()
            });
        if let Err(e) = result {
            self.send(Msg::CountFailed {
                req,
                error: e.to_string(),
            });
        }
    }
}

/// What the viewer reports of an applied edit.
fn edit_done(outcome: &EditOutcome) -> EditDone {
    EditDone {
        child: outcome.child.as_ref().map(|c| c.id().to_string()),
        dropped: outcome.plan.dropped.len(),
        cleared: outcome.plan.cleared.iter().map(|c| c.results.len()).sum(),
        tokens_before: outcome.plan.tokens_before,
        tokens_after: outcome.plan.tokens_after,
    }
}

/// `path` from the root, as the status line names where a file went (a
/// relative path is the process's current directory's).
fn absolute(path: &std::path::Path) -> std::path::PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    std::env::current_dir().map_or_else(|_| path.to_path_buf(), |dir| dir.join(path))
}

/// Lets the calling thread (and the threads it starts) run only when the
/// cores are otherwise idle, so the UI and the matcher never wait for it.
/// Linux schedules threads one by one; if SCHED_IDLE is refused, nice 19.
fn lower_priority() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: both calls only change the scheduling of the calling thread.
    unsafe {
        if libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) != 0 {
            libc::setpriority(libc::PRIO_PROCESS, 0, 19);
        }
    }
}

/// Lowers the calling thread's priority a little (nice 10): it still uses
/// every idle core, but the UI thread wins when both want one.
fn be_polite() {
    // SAFETY: setpriority on the calling thread (who = 0) only changes its nice value.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}
