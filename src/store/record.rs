//! What the store knows about one session, cheap facts and expensive ones.

use crate::store::error::{Result, StoreError};
use crate::store::peteos::{Context, Session, count};
use crate::store::tokens::{self, Encoding};
use crate::store::{disk, parallel};
use serde::Serialize;
use std::path::PathBuf;

/// One session as listed: read from meta.json (or derived for peteos folders).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SessionRecord {
    /// The directory name, which is the session's id.
    pub id: String,
    /// Slug of the first prompt.
    pub name: String,
    /// The user whose tree holds it.
    pub user: String,
    /// The prompt that started it.
    pub first_prompt: String,
    /// Seconds since the epoch.
    pub created_at: f64,
    /// Seconds since the epoch.
    pub last_used_at: f64,
    /// The session directory.
    pub path: PathBuf,
    /// The peteos conversation directory (`memory/` for Loki sessions).
    #[serde(skip)]
    pub conversation_dir: PathBuf,
    /// Why the session could not be read, if it could not.
    pub error: Option<String>,
}

impl SessionRecord {
    /// A record for an entry that could not be read.
    pub fn damaged(
        id: &str,
        path: PathBuf,
        conversation_dir: PathBuf,
        user: &str,
        error: String,
    ) -> Self {
        SessionRecord {
            id: id.to_string(),
            name: id.to_string(),
            user: user.to_string(),
            first_prompt: String::new(),
            created_at: 0.0,
            last_used_at: 0.0,
            path,
            conversation_dir,
            error: Some(error),
        }
    }

    /// True when the session's metadata could be read.
    pub fn is_readable(&self) -> bool {
        self.error.is_none()
    }
}

/// Orders records as every list shows them: most recently used first, then by
/// id so equal times have a stable order; damaged ones (time 0) sink.
pub fn sort_by_recent_use(records: &mut [SessionRecord]) {
    records.sort_by(|a, b| {
        b.last_used_at
            .total_cmp(&a.last_used_at)
            .then_with(|| a.id.cmp(&b.id))
    });
}

/// Every record a scan hands over, most recently used first.
pub fn listed(
    scan: impl FnOnce(&mut dyn FnMut(Vec<SessionRecord>) -> bool) -> Result<()>,
) -> Result<Vec<SessionRecord>> {
    let mut records = Vec::new();
    scan(&mut |batch| {
        records.extend(batch);
        true
    })?;
    sort_by_recent_use(&mut records);
    Ok(records)
}

/// The costlier facts about a session: size, messages, tokens, activity.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SessionStats {
    /// Bytes on disk of the whole session directory.
    pub bytes: u64,
    /// Messages in the active context (None if it could not be read).
    pub messages: Option<usize>,
    /// Total tokens of the active context, when asked for.
    pub tokens: Option<u64>,
    /// `is_active` from session.json.
    pub is_active: bool,
    /// Why the conversation could not be read, if it could not.
    pub error: Option<String>,
}

/// Gathers [`SessionStats`] for a record; `encoding` also counts tokens.
pub fn session_stats(record: &SessionRecord, encoding: Option<Encoding>) -> SessionStats {
    let mut stats = SessionStats {
        bytes: disk::file_bytes(&record.path),
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
                .and_then(|p| count::message_count(&p)),
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

/// `is_active` of the session, after checking that its conversation can be
/// read: session.json and its active context parse and have the right shape.
/// A session with no conversation yet (an empty or missing memory/) is fine.
/// The one test of a damaged conversation: a purge spares such a session and
/// writers refuse it (`Target::writable`).
pub fn conversation_state(record: &SessionRecord) -> Result<bool> {
    let session = match Session::load(&record.conversation_dir) {
        Ok(session) => session,
        Err(e) if e.is_not_found() && !has_visible_files(&record.conversation_dir) => {
            return Ok(false);
        }
        Err(e) => return Err(e),
    };
    session.active_context()?;
    Ok(session.is_active())
}

/// True when `dir` holds a visible file: conversation data without a
/// session.json is still data, so it is reported rather than taken as empty.
pub fn has_visible_files(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| !e.file_name().to_string_lossy().starts_with('.'))
    })
}

/// Effective token counts of every message of `ctx`, in order. Large
/// contexts are counted on all cores, in small slices handed out as threads
/// free up (messages differ a lot in length).
pub fn message_counts(ctx: &Context, encoding: Encoding) -> Result<Vec<u64>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    const SERIAL_BELOW: usize = 64;
    const SLICE: usize = 32;
    let messages: Vec<_> = ctx.messages().collect();
    if messages.len() < SERIAL_BELOW {
        return messages
            .iter()
            .map(|m| tokens::effective_count(m, encoding))
            .collect();
    }
    tokens::tokenizer(encoding)?;
    let workers = parallel::workers();
    let next = AtomicUsize::new(0);
    /// Counted slices of one thread: (first message, counts).
    type Slices = Vec<(usize, Vec<u64>)>;
    let parts: Vec<Result<Slices>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let start = next.fetch_add(SLICE, Ordering::Relaxed);
                        if start >= messages.len() {
                            return Ok(done);
                        }
                        let slice = &messages[start..(start + SLICE).min(messages.len())];
                        let counts = slice
                            .iter()
                            .map(|m| tokens::effective_count(m, encoding))
                            .collect::<Result<Vec<u64>>>()?;
                        done.push((start, counts));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(StoreError::Invalid("token counting panicked".into())))
            })
            .collect()
    });
    let mut counts = vec![0; messages.len()];
    for part in parts {
        for (start, slice) in part? {
            counts[start..start + slice.len()].copy_from_slice(&slice);
        }
    }
    Ok(counts)
}

/// Sum of the effective token counts of `ctx`.
pub fn total_tokens(ctx: &Context, encoding: Encoding) -> Result<u64> {
    Ok(message_counts(ctx, encoding)?.iter().sum())
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
