//! Performs effects off the UI thread and reports back as `Msg`s.

use crate::store::peteos::window::WindowIndex;
use crate::store::peteos::{Context, Session, count};
use crate::store::purge_apply::{self, PurgeReport};
use crate::store::purge_plan::PurgePlan;
use crate::store::record::{SessionRecord, gather_stats};
use crate::store::tokens::{self, Encoding};
use crate::store::{SessionSource, trim};
use crate::tui::effect::Effect;
use crate::tui::matcher::MatcherJob;
use crate::tui::model::{ContextInfo, Loaded, Preview};
use crate::tui::msg::Msg;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::thread;

/// Characters of a message shown in the preview.
const LINE_CHARS: usize = 300;

/// How many messages are counted before their counts are sent.
const COUNT_CHUNK: usize = 200;

/// Runs effects on threads; one per effect, except the matcher's jobs.
#[derive(Clone)]
pub struct Worker {
    source: Arc<SessionSource>,
    replies: Sender<Msg>,
    matcher: Sender<MatcherJob>,
    /// The newest conversation request: older counting jobs stop early.
    conversation: Arc<AtomicU64>,
    /// The newest scan request: older scans stop early.
    scan: Arc<AtomicU64>,
    /// The clock for writes (seconds since the epoch).
    clock: fn() -> f64,
}

impl Worker {
    /// A worker over `source` answering on `replies`.
    pub fn new(
        source: Arc<SessionSource>,
        replies: Sender<Msg>,
        matcher: Sender<MatcherJob>,
        clock: fn() -> f64,
    ) -> Self {
        Worker {
            source,
            replies,
            matcher,
            conversation: Arc::new(AtomicU64::new(0)),
            scan: Arc::new(AtomicU64::new(0)),
            clock,
        }
    }

    /// Starts `effect`; never blocks on I/O.
    pub fn perform(&self, effect: Effect) {
        match effect {
            Effect::IndexForSearch { rows } => self.to_matcher(MatcherJob::Index(rows)),
            Effect::ResetSearch => self.to_matcher(MatcherJob::Reset),
            Effect::Filter { req, query } => self.to_matcher(MatcherJob::Query { req, query }),
            other => self.spawn(other),
        }
    }

    fn to_matcher(&self, job: MatcherJob) {
        let _ = self.matcher.send(job);
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
        match effect {
            Effect::Scan { req } => {
                // A newer scan, or a UI that is gone, stops this one.
                let result = self.source.scan(|records| {
                    self.scan.load(Ordering::Relaxed) == req
                        && self
                            .replies
                            .send(Msg::SessionsBatch { req, records })
                            .is_ok()
                });
                self.send(Msg::ScanDone {
                    req,
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
                    let stats = gather_stats(&records, Some(encoding), &|_| {});
                    let stats = chunk.iter().map(|(i, _)| *i).zip(stats).collect();
                    self.send(Msg::Stats { req, stats });
                }
            }
            Effect::LoadPreview { req, record } => {
                let preview = Preview {
                    id: record.id.clone(),
                    last_messages: last_messages(&record, 4),
                };
                self.send(Msg::PreviewLoaded { req, preview });
            }
            Effect::LoadConversation { req, record } => {
                let result = load_conversation(&record);
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
                let result = trim::apply(
                    &record.conversation_dir,
                    &record.path,
                    request,
                    encoding,
                    Some(&expected),
                    now,
                )
                .map(|outcome| outcome.child.map(|c| c.id().to_string()))
                .map_err(|e| e.to_string());
                self.send(Msg::Trimmed { req, result });
            }
            Effect::SwitchContext {
                req,
                record,
                context_id,
            } => {
                let result =
                    trim::switch_context(&record.conversation_dir, &record.path, &context_id)
                        .map(|()| context_id)
                        .map_err(|e| e.to_string());
                self.send(Msg::Switched { req, result });
            }
            Effect::GatherPurge { req } => {
                let result = self
                    .source
                    .list()
                    .map(|records| Arc::new(purge_apply::gather_candidates(records)))
                    .map_err(|e| e.to_string());
                self.send(Msg::PurgeGathered { req, result });
            }
            Effect::ApplyPurge { req, plan } => {
                let result = self.apply_purge(req, &plan);
                self.send(Msg::PurgeDone { req, result });
            }
            Effect::DeleteSession { req, record } => {
                let plan = PurgePlan::single(purge_apply::candidate(record), &[], now);
                let result = self.apply_purge(req, &plan);
                let result = result.and_then(|report| match plan.entries.first() {
                    Some(entry)
                        if report.removed.is_empty()
                            && report.failed.is_empty()
                            && report.skipped.is_empty() =>
                    {
                        Err(format!("not deleted: {}", entry.decision))
                    }
                    _ => Ok(report),
                });
                self.send(Msg::PurgeDone { req, result });
            }
            Effect::CreateSession { prompt } => {
                let result = self
                    .source
                    .start(&prompt, None, now)
                    .map(|started| started.record)
                    .map_err(|e| e.to_string());
                self.send(Msg::Created { result });
            }
            Effect::RenameSession { id, name } => {
                let result = self.source.rename(&id, &name).map_err(|e| e.to_string());
                self.send(Msg::Renamed { result });
            }
            Effect::Resume { record } => {
                let target = self.source.target(&record);
                let result = self
                    .source
                    .resume(&target, now)
                    .map(|()| record)
                    .map_err(|e| e.to_string());
                self.send(Msg::Resumed { result });
            }
            Effect::IndexForSearch { .. } | Effect::ResetSearch | Effect::Filter { .. } => {}
        }
    }

    fn apply_purge(&self, req: u64, plan: &PurgePlan) -> Result<PurgeReport, String> {
        self.source
            .apply_purge(plan, &[], |progress| {
                self.send(Msg::PurgeProgress { req, progress })
            })
            .map_err(|e| e.to_string())
    }

    /// Counts every message on all cores, sending counts chunk by chunk;
    /// stops when a newer conversation request superseded this one.
    fn count(&self, req: u64, context: &Context, encoding: Encoding) {
        // The counts fill in as they come; drawing and keys go first.
        be_polite();
        if let Err(e) = tokens::tokenizer(encoding) {
            self.send(Msg::CountFailed {
                req,
                error: e.to_string(),
            });
            return;
        }
        let messages: Vec<_> = context.messages().collect();
        let chunks: Vec<(usize, &[_])> = messages
            .chunks(COUNT_CHUNK)
            .enumerate()
            .map(|(i, c)| (i * COUNT_CHUNK, c))
            .collect();
        let workers = crate::store::parallel::workers().min(chunks.len().max(1));
        thread::scope(|scope| {
            for w in 0..workers {
                let chunks = &chunks;
                scope.spawn(move || {
                    for (start, chunk) in chunks.iter().skip(w).step_by(workers) {
                        if self.conversation.load(Ordering::Relaxed) != req {
                            return;
                        }
                        let counts: Result<Vec<u64>, _> = chunk
                            .iter()
                            .map(|m| tokens::effective_count(m, encoding))
                            .collect();
                        match counts {
                            Ok(counts) => self.send(Msg::Counted {
                                req,
                                encoding,
                                start: *start,
                                counts,
                            }),
                            Err(e) => {
                                self.send(Msg::CountFailed {
                                    req,
                                    error: e.to_string(),
                                });
                                return;
                            }
                        }
                    }
                });
            }
        });
    }
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

/// The session's active context prepared for display, and its contexts.
pub fn load_conversation(record: &SessionRecord) -> Result<Loaded, String> {
    let session = Session::load(&record.conversation_dir).map_err(|e| e.to_string())?;
    let context = session
        .active_context()
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{} has no active context", session.session_path().display()))?;
    let contexts = session
        .context_ids()
        .unwrap_or_default()
        .into_iter()
        .map(|id| {
            // The active one is loaded already; the others are only summed up.
            let summary = if id == context.id() {
                Ok((
                    context.len(),
                    context.origin_context_id().map(str::to_string),
                ))
            } else {
                session
                    .context_path(&id)
                    .and_then(|p| count::context_summary(&p))
            };
            match summary {
                Ok((messages, origin)) => ContextInfo {
                    messages: Some(messages),
                    origin,
                    error: None,
                    id,
                },
                Err(e) => ContextInfo {
                    messages: None,
                    origin: None,
                    error: Some(e.to_string()),
                    id,
                },
            }
        })
        .collect();
    Ok(Loaded {
        window: Arc::new(WindowIndex::new(&context)),
        context: Arc::new(context),
        contexts,
    })
}

pub fn last_messages(record: &SessionRecord, n: usize) -> Result<Vec<(String, String)>, String> {
    let session = Session::load(&record.conversation_dir).map_err(|e| e.to_string())?;
    let Some(context) = session.active_context().map_err(|e| e.to_string())? else {
        return Ok(Vec::new());
    };
    let skip = context.len().saturating_sub(n);
    Ok(context
        .messages()
        .skip(skip)
        .map(|m| (m.role().to_string(), m.one_line_limited(LINE_CHARS)))
        .collect())
}
