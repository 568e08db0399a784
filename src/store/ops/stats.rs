//! The costlier facts about a session, for the list's columns: size on
//! disk, messages and tokens of the active context, whether an agent owns it.

use crate::store::format::tokens::Encoding;
use crate::store::format::usage::UsageByModel;
use crate::store::format::{Session, tail};
use crate::store::fs::disk;
use crate::store::ops::conversation::has_visible_files;
use crate::store::ops::counting::{message_counts, total_tokens};
use crate::store::parallel;
use crate::store::sources::agent_read::RecordedContext;
use crate::store::sources::record::SessionRecord;
use serde::Serialize;

/// The costlier facts about a session: size, messages, tokens, activity.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SessionStats {
    /// The session's size: apparent bytes of its files (`fs::disk::TreeFacts`).
    pub bytes: u64,
    /// Messages in the active context (None if it could not be read).
    pub messages: Option<usize>,
    /// Total tokens of the active context, when asked for.
    pub tokens: Option<u64>,
    /// `is_active` from session.json.
    pub is_active: bool,
    /// Why the conversation could not be read, if it could not.
    pub error: Option<String>,
    /// The tokens another agent recorded as spent, by model (read with the
    /// tokens; None for Loki and peteos sessions, which record none; boxed,
    /// as the two below, so that 100k such stats do not hold 200 bytes
    /// each for them).
    pub usage: Option<Box<UsageByModel>>,
    /// The context the agent's API saw at its last recorded request, with
    /// what was appended since counted (read with the tokens).
    pub context: Option<Box<RecordedContext>>,
    /// What `usage` would cost (set by the door, from its prices).
    pub cost: Option<Box<crate::store::ops::pricing::CostEstimate>>,
}

/// [`session_stats`] of another agent's session: its size from the files'
/// sizes alone; messages, tokens and usage need the whole file, so they
/// are read only with the tokens.
fn agent_stats(record: &SessionRecord, encoding: Option<Encoding>) -> SessionStats {
    let mut stats = SessionStats {
        bytes: record
            .bytes
            .unwrap_or_else(|| crate::store::sources::agents::bytes(record)),
        ..SessionStats::default()
    };
    let Some(encoding) = encoding else {
        return stats;
    };
    match crate::store::sources::agents::read(record) {
        Ok(read) => {
            stats.messages = Some(read.main.context.len());
            match message_counts(&read.main.context, encoding) {
                Ok(counts) => {
                    stats.tokens = Some(counts.iter().sum());
                    stats.context = read
                        .context
                        .map(|c| Box::new(with_counted_after(c, &counts)));
                }
                Err(e) => stats.error = Some(e.to_string()),
            }
            stats.usage = record.agent.records_usage().then(|| Box::new(read.usage));
        }
        Err(e) => stats.error = Some(e.to_string()),
    }
    stats
}

/// `context` with the tokens of the messages after its request counted
/// (`counts`: every message of the main context's).
pub fn with_counted_after(mut context: RecordedContext, counts: &[u64]) -> RecordedContext {
    context.counted_after = counts.iter().skip(context.messages_seen).sum();
    context
}

/// Gathers [`SessionStats`] for a record; `encoding` also counts tokens.
pub fn session_stats(record: &SessionRecord, encoding: Option<Encoding>) -> SessionStats {
    if record.agent.is_external() {
        return agent_stats(record, encoding);
    }
    let mut stats = SessionStats {
        bytes: disk::tree_facts(&record.path).map_or(0, |f| f.bytes),
        ..SessionStats::default()
    };
    let session = match Session::load(&record.conversation_dir) {
        Ok(session) => session,
        Err(e) if e.is_not_found() && !has_visible_files(&record.conversation_dir) => {
            // A session the agent has not written a conversation for yet.
            stats.messages = Some(0);
            stats.tokens = encoding.map(|_| 0);
            return stats;
        }
        Err(e) => {
            stats.error = Some(e.to_string());
            return stats;
        }
    };
    stats.is_active = session.is_active();
    if encoding.is_none() {
        // Only the count is needed: read the end of the file, not all of it.
        let count = match session.active_context_id() {
            None => Ok(0),
            Some(id) => session
                .context_path(id)
                .and_then(|p| tail::message_count(&p)),
        };
        match count {
            Ok(n) => stats.messages = Some(n),
            Err(e) => stats.error = Some(e.to_string()),
        }
        return stats;
    }
    match session.active_context() {
        Ok(Some(ctx)) => {
            stats.messages = Some(ctx.len());
            if let Some(enc) = encoding {
                match total_tokens(&ctx, enc) {
                    Ok(total) => stats.tokens = Some(total),
                    Err(e) => stats.error = Some(e.to_string()),
                }
            }
        }
        Ok(None) => {
            stats.messages = Some(0);
            stats.tokens = encoding.map(|_| 0);
        }
        Err(e) => stats.error = Some(e.to_string()),
    }
    stats
}

/// Messages of `record`'s active context now (None when it cannot be
/// read), reading as little as its format allows: the end of a Loki or
/// peteos context file; another agent's whole file, which keeps no count.
pub fn message_count(record: &SessionRecord) -> Option<usize> {
    if record.agent.is_external() {
        return crate::store::sources::agents::read(record)
            .ok()
            .map(|read| read.main.context.len());
    }
    session_stats(record, None).messages
}

/// [`session_stats`] for every record, on all cores; `progress(done)` is
/// called as sessions finish.
pub fn gather_stats(
    records: &[SessionRecord],
    encoding: Option<Encoding>,
    progress: &(dyn Fn(usize) + Sync),
) -> Vec<SessionStats> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let done = AtomicUsize::new(0);
    parallel::map_ordered(records, |r| {
        let stats = session_stats(r, encoding);
        progress(done.fetch_add(1, Ordering::Relaxed) + 1);
        stats
    })
}
