//! Reading a session's conversation for display: the active context with a
//! summary of every other context (fork), and the last lines for a preview.

use crate::store::error::{Result, StoreError};
use crate::store::format::{Context, Session, tail};
use crate::store::sources::record::SessionRecord;
use std::path::Path;

/// One context (fork) of a session, summed up without loading it all.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextSummary {
    /// Context id.
    pub id: String,
    /// Messages in it (None if it could not be read).
    pub messages: Option<usize>,
    /// The context it was forked from.
    pub origin: Option<String>,
    /// Why it could not be read.
    pub error: Option<String>,
}

/// A session's active context, loaded, and a summary of all its contexts.
#[derive(Clone, Debug)]
pub struct Conversation {
    /// The active context.
    pub context: Context,
    /// Every context of the session, sorted by id.
    pub contexts: Vec<ContextSummary>,
    /// `is_active` in session.json: a running agent owns the session.
    pub agent_owned: bool,
}

/// Loads the conversation of the session at `record`. Reads only.
pub fn load(record: &SessionRecord) -> Result<Conversation> {
    let session = Session::load(&record.conversation_dir)?;
    let context = session.active_context()?.ok_or_else(|| {
        StoreError::NotFound(format!(
            "{} has no active context",
            session.session_path().display()
        ))
    })?;
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
                    .and_then(|p| tail::context_summary(&p))
            };
            match summary {
                Ok((messages, origin)) => ContextSummary {
                    messages: Some(messages),
                    origin,
                    error: None,
                    id,
                },
                Err(e) => ContextSummary {
                    messages: None,
                    origin: None,
                    error: Some(e.to_string()),
                    id,
                },
            }
        })
        .collect();
    Ok(Conversation {
        context,
        contexts,
        agent_owned: session.is_active(),
    })
}

/// True when session.json says a running agent owns the session
/// (`is_active`); false when it cannot be read.
pub fn agent_owned(record: &SessionRecord) -> bool {
    Session::load(&record.conversation_dir).is_ok_and(|s| s.is_active())
}

/// The index of the message whose id is `arg`, or starts with it (unique).
pub fn find_message(context: &Context, arg: &str) -> Result<usize> {
    if arg.is_empty() {
        return Err(StoreError::Invalid("the message argument is empty".into()));
    }
    if let Some(i) = context.messages().position(|m| m.id() == arg) {
        return Ok(i);
    }
    let matches: Vec<usize> = context
        .messages()
        .enumerate()
        .filter(|(_, m)| m.id().starts_with(arg))
        .map(|(i, _)| i)
        .collect();
    crate::store::format::the_one_match(arg, &matches, context.path())
}

/// The active context of the session at `record`; None when it has none.
pub fn active_context(record: &SessionRecord) -> Result<Option<Context>> {
    Session::load(&record.conversation_dir)?.active_context()
}

/// The last `n` messages of the active context as (role, one line of at
/// most `chars` characters), for a preview.
pub fn last_messages(
    record: &SessionRecord,
    n: usize,
    chars: usize,
) -> Result<Vec<(String, String)>> {
    let session = Session::load(&record.conversation_dir)?;
    let Some(context) = session.active_context()? else {
        return Ok(Vec::new());
    };
    let skip = context.len().saturating_sub(n);
    Ok(context
        .messages()
        .skip(skip)
        .map(|m| (m.role().to_string(), m.one_line_limited(chars)))
        .collect())
}

/// `is_active` of the session, after checking that its conversation can be
/// read: session.json and its active context parse and have the right
/// shape. A session with no conversation yet (an empty or missing memory/)
/// is fine. The one test of a damaged conversation: a purge spares such a
/// session and writers refuse it (`Target::writable`).
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
pub fn has_visible_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| !e.file_name().to_string_lossy().starts_with('.'))
    })
}
