//! One OpenCode session's rows as a thread of messages. A message row's
//! `data` is the message without its content: `role`, `time.created` (ms),
//! for an answer `modelID`, `tokens {input, output, reasoning, cache {read,
//! write}}`, `cost` and `error`. Its parts, in id order, are the content:
//! `text` (`synthetic` ones OpenCode added and does not show), `reasoning`,
//! `tool` (`callID`, `tool`, `state {status, input, output | error}`),
//! `file`, `agent`, `subtask`, and `compaction` (a person's turn that asks
//! for a summary: a boundary); `step-start`, `step-finish`, `snapshot`,
//! `patch` and `retry` hold nothing shown. A tool's result follows its
//! answer as a message of its own, as peteos keeps them.

use crate::store::error::Result;
use crate::store::format::usage::{Usage, UsageByModel};
use crate::store::sources::agent_read::{
    AgentRead, NewMessage, RecordedContext, ThreadBuilder, subagent_context_id, text_part,
    thinking_part, tool_result_part, tool_use_part, value_text,
};
use crate::store::sources::jsonl::Skipped;
use rusqlite::Connection;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// Part types that hold nothing a person reads.
const NOT_SHOWN: [&str; 5] = ["step-start", "step-finish", "snapshot", "patch", "retry"];

/// One message row and its parts' `data`, in order.
#[derive(Debug)]
pub struct MessageRow {
    /// The message's id (`msg_…`).
    pub id: String,
    /// Its `data`.
    pub data: String,
    /// Its parts' `data`, by part id.
    pub parts: Vec<String>,
}

/// One session's rows.
#[derive(Debug)]
pub struct SessionRows {
    /// Its id.
    pub id: String,
    /// The session it is a subagent of, if it is one.
    pub parent: Option<String>,
    /// Its messages, oldest first.
    pub messages: Vec<MessageRow>,
}

/// The rows of session `id` (`parent`: the session it is a subagent of).
pub fn rows(conn: &Connection, id: &str, parent: Option<&str>) -> rusqlite::Result<SessionRows> {
    let mut parts: HashMap<String, Vec<String>> = HashMap::new();
    let mut stmt = conn.prepare(
        "SELECT message_id, data FROM part WHERE session_id = ?1 ORDER BY message_id, id",
    )?;
    let found = stmt.query_map([id], |row| {
        Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
    })?;
    for row in found {
        let (message, data) = row?;
        parts.entry(message).or_default().push(data);
    }
    let mut stmt = conn
        .prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id")?;
    let found = stmt.query_map([id], |row| {
        Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
    })?;
    let mut messages = Vec::new();
    for row in found {
        let (id, data) = row?;
        let parts = parts.remove(&id).unwrap_or_default();
        messages.push(MessageRow { id, data, parts });
    }
    Ok(SessionRows {
        id: id.to_string(),
        parent: parent.map(str::to_string),
        messages,
    })
}

/// `rows` as a session read: its thread, usage, and the context its last
/// answer recorded.
pub fn thread(rows: &SessionRows, db: &Path) -> Result<AgentRead> {
    let mut builder = ThreadBuilder::default();
    let mut usage = UsageByModel::default();
    let mut skipped = Skipped::default();
    let mut context = None;
    for row in &rows.messages {
        let Ok(data) = serde_json::from_str::<Value>(&row.data) else {
            skipped
                .other
                .push(format!("message {} is not JSON", row.id));
            continue;
        };
        let parts: Vec<Value> = row
            .parts
            .iter()
            .filter_map(|p| match serde_json::from_str::<Value>(p) {
                Ok(v) => Some(v),
                Err(_) => {
                    skipped
                        .other
                        .push(format!("a part of message {} is not JSON", row.id));
                    None
                }
            })
            .collect();
        let at = data
            .get("time")
            .and_then(|t| t.get("created"))
            .and_then(Value::as_f64)
            .map(|ms| ms / 1000.0);
        let timestamp = at.map(iso);
        match data.get("role").and_then(Value::as_str) {
            Some("user") => {
                let (content, boundary) = user_parts(&parts, &mut skipped);
                if content.is_empty() {
                    continue;
                }
                builder.push(NewMessage {
                    role: if boundary { "system" } else { "user" },
                    parts: content,
                    id: row.id.clone(),
                    timestamp,
                    kind: boundary.then_some("CompactionBoundary"),
                    model: None,
                    lines: Vec::new(),
                });
            }
            Some("assistant") => {
                let model = text(&data, "modelID").unwrap_or_default().to_string();
                let (mut content, results) = answer_parts(&parts, &mut skipped);
                if let Some(error) = data.get("error") {
                    content.push(text_part(error_text(error)));
                }
                if let Some(u) = tokens(&data) {
                    usage.add_request(&model, &u, at);
                }
                if !content.is_empty() {
                    builder.push(NewMessage {
                        role: "assistant",
                        parts: content,
                        id: row.id.clone(),
                        timestamp: timestamp.clone(),
                        kind: None,
                        model: Some(model.clone()).filter(|m| !m.is_empty()),
                        lines: Vec::new(),
                    });
                }
                if let Some(u) = tokens(&data).filter(|u| u.prompt() > 0) {
                    context = Some(RecordedContext {
                        tokens: u.prompt(),
                        at,
                        window: None,
                        model: model.clone(),
                        messages_seen: builder.len(),
                        counted_after: 0,
                    });
                }
                if !results.is_empty() {
                    builder.push(NewMessage {
                        role: "tool",
                        parts: results,
                        id: format!("{}-results", row.id),
                        timestamp,
                        kind: None,
                        model: None,
                        lines: Vec::new(),
                    });
                }
            }
            other => skipped.unknown_type(other.unwrap_or("(no role)")),
        }
    }
    let context_id = match &rows.parent {
        None => rows.id.clone(),
        Some(_) => subagent_context_id(&rows.id),
    };
    let main = builder.finish(&context_id, rows.parent.as_deref(), db)?;
    Ok(AgentRead {
        main,
        others: Vec::new(),
        usage,
        title: None,
        skipped,
        context: context.filter(|_| rows.parent.is_none()),
    })
}

/// A person's turn: its text (not OpenCode's own), files, agents named and
/// subtasks asked for; true when it asks for a compaction.
fn user_parts(parts: &[Value], skipped: &mut Skipped) -> (Vec<Value>, bool) {
    let mut out = Vec::new();
    let mut boundary = false;
    for part in parts {
        match text(part, "type").unwrap_or("") {
            "text" if flag(part, "synthetic") || flag(part, "ignored") => {}
            "text" => out.push(text_part(text(part, "text").unwrap_or_default())),
            "file" => out.push(text_part(format!(
                "[file: {}]",
                text(part, "filename")
                    .or_else(|| text(part, "url").filter(|u| !u.starts_with("data:")))
                    .unwrap_or("attached")
            ))),
            "agent" => out.push(text_part(format!(
                "@{}",
                text(part, "name").unwrap_or_default()
            ))),
            "subtask" => out.push(text_part(format!(
                "[subtask for @{}] {}",
                text(part, "agent").unwrap_or_default(),
                text(part, "description").unwrap_or_default()
            ))),
            "compaction" => {
                boundary = true;
                out.push(text_part("[compacted]"));
            }
            kind if NOT_SHOWN.contains(&kind) => {}
            kind => skipped.unknown_block(kind),
        }
    }
    (out, boundary)
}

/// An answer's content (reasoning, text, tool calls) and its tools'
/// results.
fn answer_parts(parts: &[Value], skipped: &mut Skipped) -> (Vec<Value>, Vec<Value>) {
    let (mut content, mut results) = (Vec::new(), Vec::new());
    for part in parts {
        match text(part, "type").unwrap_or("") {
            "text" if flag(part, "synthetic") || flag(part, "ignored") => {}
            "text" => content.push(text_part(text(part, "text").unwrap_or_default())),
            "reasoning" => content.push(thinking_part(text(part, "text").unwrap_or_default())),
            "tool" => {
                let call = text(part, "callID").unwrap_or_default();
                let state = part.get("state").cloned().unwrap_or(Value::Null);
                let input = state.get("input").cloned().unwrap_or(Value::Null);
                content.push(tool_use_part(
                    call,
                    text(part, "tool").unwrap_or_default(),
                    input.to_string(),
                ));
                match text(&state, "status") {
                    Some("completed") => results.push(tool_result_part(
                        call,
                        state.get("output").map(value_text).unwrap_or_default(),
                        false,
                    )),
                    Some("error") => results.push(tool_result_part(
                        call,
                        state.get("error").map(value_text).unwrap_or_default(),
                        true,
                    )),
                    // Pending or running: no result yet.
                    _ => {}
                }
            }
            "file" => content.push(text_part(format!(
                "[file: {}]",
                text(part, "filename").unwrap_or("attached")
            ))),
            kind if NOT_SHOWN.contains(&kind) => {}
            kind => skipped.unknown_block(kind),
        }
    }
    (content, results)
}

/// The tokens an answer recorded: `input` holds no cached tokens.
fn tokens(data: &Value) -> Option<Usage> {
    let t = data.get("tokens")?;
    let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
    let cache = t.get("cache");
    let usage = Usage {
        input: n(t.get("input")),
        output: n(t.get("output")),
        cache_read: n(cache.and_then(|c| c.get("read"))),
        cache_write: n(cache.and_then(|c| c.get("write"))),
        thoughts: n(t.get("reasoning")),
        ..Usage::default()
    };
    (usage.total() > 0).then_some(usage)
}

/// An answer's error as OpenCode names it: `[MessageAbortedError: …]`.
fn error_text(error: &Value) -> String {
    let name = text(error, "name").unwrap_or("error");
    match error
        .get("data")
        .and_then(|d| d.get("message"))
        .and_then(Value::as_str)
    {
        Some(message) => format!("[{name}: {message}]"),
        None => format!("[{name}]"),
    }
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool) == Some(true)
}

/// Seconds since the epoch as ISO-8601 text (what a message's time is).
fn iso(seconds: f64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(seconds.max(0.0));
    humantime::format_rfc3339_millis(t).to_string()
}
