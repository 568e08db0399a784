//! What search reads of a session: every message of every context once
//! (a message a fork shares with its parent is one), with the text a
//! person would look for in it: what was written, the model's thinking, the
//! tool calls with their arguments, the tool results. Media and the tool
//! definitions (the same in every session) are left out.

use crate::store::error::{Result, StoreError};
use crate::store::format::tokens::Encoding;
use crate::store::format::usage::UsageByModel;
use crate::store::format::{Context, Session, Special};
use crate::store::index::Layout;
use crate::store::ops::conversation::has_visible_files;
use crate::store::ops::counting::message_counts;
use crate::store::sources::agents;
use crate::store::sources::record::SessionRecord;
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

/// The most of one message's text that search reads: its first 8 MiB (a
/// pasted log of hundreds of MB would cost the index several times its
/// size in memory). The index and the direct scan read the same part, so
/// they find the same messages; `search --help` and the guide say so.
pub const SEARCHED_BYTES: usize = 8 << 20;

/// One message as search sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Searchable {
    /// The message id (`<context>#<index>` when the file has none).
    pub message_id: String,
    /// The active context when the message is in it, else the first context
    /// (by id) that holds it.
    pub context_id: String,
    /// `user`, `assistant`, `tool` or `system`.
    pub role: String,
    /// `_sequence_number` in that context.
    pub sequence: Option<i64>,
    /// The searchable text.
    pub text: String,
}

/// Facts about the session gathered while its messages are read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts {
    /// Messages of the active context.
    pub messages: usize,
    /// Tokens of the active context in `cl100k_base` (None if not counted).
    pub tokens: Option<u64>,
    /// `is_active` in session.json.
    pub is_active: bool,
    /// The tokens another agent recorded as spent, by model.
    pub usage: Option<UsageByModel>,
    /// The context its agent's API last saw, with what came after counted.
    pub context: Option<crate::store::sources::agent_read::RecordedContext>,
}

/// [`session_messages`] of the session `record`, whatever its agent: a
/// Loki or peteos conversation directory, or another agent's files (its
/// main thread first, then its subagents').
pub fn record_messages(
    record: &SessionRecord,
    layout: Layout,
    count: bool,
) -> Result<(Vec<Searchable>, Facts)> {
    if !record.agent.is_external() {
        return session_messages(layout, &record.path, count);
    }
    let read = agents::read(record)?;
    let mut facts = Facts {
        messages: read.main.context.len(),
        usage: record.agent.records_usage().then_some(read.usage),
        ..Facts::default()
    };
    if count {
        let counts = message_counts(&read.main.context, Encoding::Cl100kBase)?;
        facts.tokens = Some(counts.iter().sum());
        facts.context = read
            .context
            .map(|c| crate::store::ops::stats::with_counted_after(c, &counts));
    }
    let contexts: Vec<Context> = std::iter::once(read.main.context)
        .chain(read.others.into_iter().map(|t| t.context))
        .collect();
    Ok((searchables(&contexts), facts))
}

/// The bytes of the session `record`'s files.
pub fn session_bytes(record: &SessionRecord) -> u64 {
    if record.agent.is_external() {
        agents::bytes(record)
    } else {
        crate::store::fs::disk::tree_facts(&record.path).map_or(0, |f| f.bytes)
    }
}

/// Every message of the conversation of the session in `session_dir` once,
/// the active context first; with `count`, the active context's tokens too.
/// A session directory (or a Loki session's `memory/`) that is a link is
/// not entered, as the listing never enters one; conversation files without
/// a session.json are damage, as the listing says, not an empty session.
pub fn session_messages(
    layout: Layout,
    session_dir: &Path,
    count: bool,
) -> Result<(Vec<Searchable>, Facts)> {
    let dir = layout.conversation(session_dir);
    refuse_links(session_dir, &dir)?;
    let session = match Session::load(&dir) {
        Ok(s) => s,
        Err(e) if e.is_not_found() && !has_visible_files(&dir) => {
            return Ok((Vec::new(), Facts::default()));
        }
        Err(e) => return Err(e),
    };
    let mut facts = Facts {
        is_active: session.is_active(),
        ..Facts::default()
    };
    let active = session.active_context()?;
    let mut contexts: Vec<Context> = Vec::new();
    if let Some(ctx) = active {
        facts.messages = ctx.len();
        if count {
            facts.tokens = Some(message_counts(&ctx, Encoding::Cl100kBase)?.iter().sum());
        }
        contexts.push(ctx);
    }
    for id in session.context_ids()? {
        if contexts.first().is_some_and(|c| c.id() == id) {
            continue;
        }
        // A fork that cannot be read is not searched; the active one must be.
        if let Ok(ctx) = session.load_context(&id) {
            contexts.push(ctx);
        }
    }
    Ok((searchables(&contexts), facts))
}

/// Every message of `contexts` once (by id), tool definitions left out.
fn searchables(contexts: &[Context]) -> Vec<Searchable> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for ctx in contexts {
        for (index, message) in ctx.messages().enumerate() {
            if ctx.special_at(index) == Some(Special::ToolDefinitions) {
                continue;
            }
            let id = match message.id() {
                "" => format!("{}#{index}", ctx.id()),
                id => id.to_string(),
            };
            if !seen.insert(id.clone()) {
                continue;
            }
            out.push(Searchable {
                message_id: id,
                context_id: ctx.id().to_string(),
                role: message.role().to_string(),
                sequence: message.sequence(),
                text: message_text(message.raw().get("content")),
            });
        }
    }
    out
}

/// Refuses a session directory that is not a directory or is a link, and a
/// conversation directory (inside it) that is a link.
fn refuse_links(session_dir: &Path, conversation: &Path) -> Result<()> {
    let link = |path: &Path| StoreError::Unsafe {
        path: path.to_path_buf(),
        reason: "it is a symbolic link; not followed".into(),
    };
    match std::fs::symlink_metadata(session_dir) {
        Ok(m) if m.file_type().is_symlink() => return Err(link(session_dir)),
        Ok(m) if !m.is_dir() => {
            return Err(StoreError::Invalid(format!(
                "{} is not a session directory",
                session_dir.display()
            )));
        }
        Ok(_) => {}
        Err(e) => return Err(StoreError::io("inspect", session_dir, e)),
    }
    if conversation != session_dir
        && std::fs::symlink_metadata(conversation).is_ok_and(|m| m.file_type().is_symlink())
    {
        return Err(link(conversation));
    }
    Ok(())
}

/// The first `max` bytes of `text`, cut at a character's edge.
fn prefix(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut at = max;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    &text[..at]
}

/// Adds `text` to `out` as far as [`SEARCHED_BYTES`] allows: a huge part
/// is never copied whole.
fn push_searched(out: &mut String, text: &str) {
    out.push_str(prefix(text, SEARCHED_BYTES.saturating_sub(out.len())));
}

/// The searchable text of a message's `content` (its first
/// [`SEARCHED_BYTES`]).
fn message_text(content: Option<&Value>) -> String {
    let parts = match content {
        Some(Value::String(s)) => return prefix(s, SEARCHED_BYTES).to_string(),
        Some(Value::Array(parts)) => parts,
        _ => return String::new(),
    };
    let mut out = String::new();
    for part in parts.iter().filter_map(Value::as_object) {
        let mut push = |v: Option<&Value>| {
            if out.len() >= SEARCHED_BYTES {
                return;
            }
            let text = value_text(v);
            if !text.is_empty() {
                if !out.is_empty() {
                    out.push('\n');
                }
                push_searched(&mut out, &text);
            }
        };
        match part.get("type").and_then(Value::as_str) {
            Some("text" | "thinking") => push(part.get("text")),
            Some("tool_use") => {
                push(part.get("name"));
                push(part.get("arguments"));
            }
            Some("tool_result") => push(part.get("content")),
            _ => {}
        }
    }
    out
}

/// A string as it is, anything else as compact JSON (arguments and results
/// are sometimes objects or lists).
fn value_text(value: Option<&Value>) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    Cow::Owned(match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => return Cow::Borrowed(s),
        Some(Value::Array(items)) if items.iter().all(Value::is_object) => items
            .iter()
            .filter_map(|item| item.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(other) => other.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_part_kind_is_searched_but_media() {
        let content = json!([
            {"type": "text", "text": "hello"},
            {"type": "thinking", "text": "hmm"},
            {"type": "tool_use", "call_id": "c", "name": "bash", "arguments": {"cmd": "ls"}},
            {"type": "tool_result", "call_id": "c", "content": "done"},
            {"type": "image", "source": {"data": "AAAA"}},
        ]);
        assert_eq!(
            message_text(Some(&content)),
            "hello\nhmm\nbash\n{\"cmd\":\"ls\"}\ndone"
        );
        assert_eq!(message_text(Some(&json!("plain"))), "plain");
    }

    #[test]
    fn a_huge_message_is_searched_in_its_first_part() {
        let text = "é".repeat(SEARCHED_BYTES);
        let cut = message_text(Some(&json!(text)));
        assert!(cut.len() <= SEARCHED_BYTES && cut.len() > SEARCHED_BYTES - 2);
        let parts = json!([{"type": "text", "text": "start"}, {"type": "text", "text": text}, {"type": "text", "text": "never"}]);
        let cut = message_text(Some(&parts));
        assert!(
            cut.starts_with("start\n") && cut.len() <= SEARCHED_BYTES,
            "{}",
            cut.len()
        );
        assert!(!cut.ends_with("never"));
        assert_eq!(message_text(Some(&json!("short"))), "short");
    }
}
