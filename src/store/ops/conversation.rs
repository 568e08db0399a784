//! Reading a session's conversation for display: the active context with a
//! summary of every other context (fork), and the last lines for a preview.

use crate::store::error::{Result, StoreError};
use crate::store::format::{Context, Session, tail};
use crate::store::sources::agent_read::AgentRead;
use crate::store::sources::agents;
use crate::store::sources::jsonl::LineSpan;
use crate::store::sources::record::SessionRecord;
use std::path::{Path, PathBuf};

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
    /// What could not be read (another agent's file: bad lines, unknown
    /// types), one sentence each; empty for Loki and peteos sessions.
    pub notes: Vec<String>,
    /// Where each message of `context` came from, for another agent's
    /// session (its file and lines); None for Loki and peteos sessions.
    pub source: Option<SourceLines>,
    /// The agent's own title as the whole file says it (a title set in the
    /// middle of a long file, which the list's read of its ends misses).
    pub title: Option<String>,
    /// The tokens another agent recorded as spent, by model.
    pub usage: Option<crate::store::format::usage::UsageByModel>,
    /// What that usage would cost (set by the door, from its prices).
    pub cost: Option<crate::store::ops::pricing::CostEstimate>,
    /// The context the agent's API saw at its last recorded request of
    /// the main conversation (`counted_after` not yet counted).
    pub recorded: Option<crate::store::sources::agent_read::RecordedContext>,
}

/// The lines of another agent's file each message was made from.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceLines {
    /// The file.
    pub file: PathBuf,
    /// For each message of the context, its lines in `file`.
    pub lines: Vec<Vec<LineSpan>>,
}

/// Another agent's session as a conversation: its main thread is the
/// active context; its subagents and side conversations are the others.
fn from_agent(read: AgentRead, records_usage: bool) -> Conversation {
    let summary = |t: &crate::store::sources::agent_read::Thread| ContextSummary {
        id: t.context.id().to_string(),
        messages: Some(t.context.len()),
        origin: t.context.origin_context_id().map(str::to_string),
        error: None,
    };
    let mut contexts: Vec<ContextSummary> = std::iter::once(&read.main)
        .chain(&read.others)
        .map(summary)
        .collect();
    contexts.sort_by(|a, b| a.id.cmp(&b.id));
    Conversation {
        source: Some(SourceLines {
            file: read.main.file.clone(),
            lines: read.main.lines,
        }),
        context: read.main.context,
        contexts,
        agent_owned: false,
        notes: read.skipped.sentences(),
        title: read.title,
        usage: records_usage.then_some(read.usage),
        cost: None,
        recorded: read.context,
    }
}

/// Loads the conversation of the session at `record`. Reads only.
pub fn load(record: &SessionRecord) -> Result<Conversation> {
    if record.agent.is_external() {
        return agents::read(record).map(|read| from_agent(read, record.agent.records_usage()));
    }
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
        notes: Vec::new(),
        source: None,
        title: None,
        usage: None,
        cost: None,
        recorded: None,
    })
}

/// True when session.json says a running agent owns the session
/// (`is_active`); false when it cannot be read.
pub fn agent_owned(record: &SessionRecord) -> bool {
    if record.agent.is_external() {
        return false;
    }
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
    if record.agent.is_external() {
        return agents::read(record).map(|r| Some(r.main.context));
    }
    Session::load(&record.conversation_dir)?.active_context()
}

/// The last `n` messages of the active context as (role, one line of at
/// most `chars` characters), for a preview.
pub fn last_messages(
    record: &SessionRecord,
    n: usize,
    chars: usize,
) -> Result<Vec<(String, String)>> {
    let context = if record.agent.is_external() {
        Some(agents::preview(record)?)
    } else {
        active_context(record)?
    };
    let Some(context) = context else {
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
    conversation_state_read(record).map(|state| state.is_active)
}

/// What [`conversation_state`] found, and which files told it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateRead {
    /// `is_active` of the session.
    pub is_active: bool,
    /// The files read: `Some` when it was session.json, with the active
    /// context's file name (None when it names none); `None` for another
    /// agent's session or a conversation without session.json.
    pub files: Option<Option<String>>,
}

/// [`conversation_state`], saying which files it read (a purge keeps the
/// answer while they stay as they were: `purge_checks`).
pub fn conversation_state_read(record: &SessionRecord) -> Result<StateRead> {
    if record.agent.is_external() {
        return agents::read(record).map(|_| StateRead {
            is_active: false,
            files: None,
        });
    }
    let session = match Session::load(&record.conversation_dir) {
        Ok(session) => session,
        Err(e) if e.is_not_found() && !has_visible_files(&record.conversation_dir) => {
            return Ok(StateRead {
                is_active: false,
                files: None,
            });
        }
        Err(e) => return Err(e),
    };
    session.check_active_context()?;
    let context = session.active_context_id().map(|id| format!("{id}.json"));
    Ok(StateRead {
        is_active: session.is_active(),
        files: Some(context),
    })
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
