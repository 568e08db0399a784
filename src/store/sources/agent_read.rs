//! Another agent's session read whole, in the store's own model: each
//! thread (the main conversation, a subagent, a sidechain) becomes a
//! context of peteos-shaped messages, so the viewer, `show`, the token
//! counter, the breakdown and the search index read it as they read a
//! Loki session. Each message keeps the lines of the file it came from.

use crate::store::error::Result;
use crate::store::format::Context;
use crate::store::format::usage::UsageByModel;
use crate::store::sources::jsonl::{LineSpan, Skipped};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// One thread of a session: the main conversation or a subagent's.
#[derive(Clone, Debug)]
pub struct Thread {
    /// Its messages as a context (`id` is the thread's id).
    pub context: Context,
    /// For each message of `context`, the lines of `file` it was made from.
    pub lines: Vec<Vec<LineSpan>>,
    /// The file the lines are in.
    pub file: PathBuf,
}

/// A session of another agent, read whole.
#[derive(Clone, Debug)]
pub struct AgentRead {
    /// The main conversation.
    pub main: Thread,
    /// Subagents and sidechains, shown with it (each its own context,
    /// forked in name from the main one).
    pub others: Vec<Thread>,
    /// Usage the agent recorded, by model.
    pub usage: UsageByModel,
    /// The agent's own title, if it keeps one.
    pub title: Option<String>,
    /// What could not be read, for the note shown with the session.
    pub skipped: Skipped,
    /// The context the agent's API saw at the last request of the main
    /// conversation it recorded, if it records one.
    pub context: Option<RecordedContext>,
}

/// The context an agent's API saw at a request, as the agent recorded it:
/// the whole prompt (system prompt and tool definitions included, which
/// the file does not hold), in the model's own tokens.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RecordedContext {
    /// Input, cache reads and cache writes of the request.
    pub tokens: u64,
    /// When it was recorded (seconds since the epoch).
    pub at: Option<f64>,
    /// The window the agent recorded with it (Codex's `model_context_window`).
    pub window: Option<u64>,
    /// The model of the request.
    pub model: String,
    /// Messages of the main context the request came after; those from
    /// here on were appended since, and are counted here (an estimate).
    pub messages_seen: usize,
    /// The tokens of those appended messages, counted here (cl100k_base):
    /// filled in where the messages are counted.
    pub counted_after: u64,
}

impl AgentRead {
    /// The thread whose context id is `id`.
    pub fn thread(&self, id: &str) -> Option<&Thread> {
        std::iter::once(&self.main)
            .chain(&self.others)
            .find(|t| t.context.id() == id)
    }
}

/// Builds the messages of one thread, numbering them as peteos would.
#[derive(Debug, Default)]
pub struct ThreadBuilder {
    messages: Vec<Value>,
    lines: Vec<Vec<LineSpan>>,
}

/// One message to add: its role, parts, and where it came from.
pub struct NewMessage {
    /// `user`, `assistant`, `tool` or `system`.
    pub role: &'static str,
    /// Its content parts, in the store's part shapes.
    pub parts: Vec<Value>,
    /// The agent's id for it (a uuid, a message id).
    pub id: String,
    /// When it was written (ISO-8601 text), if the agent said.
    pub timestamp: Option<String>,
    /// A message kind other than an ordinary message (a compaction
    /// boundary, a summary), shown as the message's type.
    pub kind: Option<&'static str>,
    /// The model that wrote it, for assistant messages.
    pub model: Option<String>,
    /// The lines it was made from.
    pub lines: Vec<LineSpan>,
}

impl ThreadBuilder {
    /// Messages pushed so far.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Adds a message at the end.
    pub fn push(&mut self, m: NewMessage) {
        // Room for every field at once: the map is not grown field by field.
        let mut raw = Map::with_capacity(7);
        raw.insert("role".into(), Value::String(m.role.into()));
        raw.insert("content".into(), Value::Array(m.parts));
        raw.insert("_type".into(), json!(m.kind.unwrap_or("Message")));
        raw.insert("id".into(), Value::String(m.id));
        if let Some(ts) = m.timestamp {
            raw.insert("creation_timestamp".into(), Value::String(ts));
        }
        raw.insert(
            "_sequence_number".into(),
            json!(self.messages.len() as u64 + 1),
        );
        if let Some(model) = m.model {
            raw.insert("model".into(), Value::String(model));
        }
        self.messages.push(Value::Object(raw));
        self.lines.push(m.lines);
    }

    /// The last message added, to merge a continuation into it.
    pub fn last_mut(&mut self) -> Option<(&mut Map<String, Value>, &mut Vec<LineSpan>)> {
        let raw = self.messages.last_mut()?.as_object_mut()?;
        let lines = self.lines.last_mut()?;
        Some((raw, lines))
    }

    /// The thread, as a context with id `id` read from `file`.
    pub fn finish(self, id: &str, origin: Option<&str>, file: &Path) -> Result<Thread> {
        let mut raw = Map::new();
        let count = self.messages.len();
        raw.insert("messages".into(), Value::Array(self.messages));
        raw.insert("id".into(), Value::String(id.into()));
        raw.insert("anchor_points".into(), json!([["messages", count]]));
        raw.insert("message_sequence".into(), json!(count));
        // Above every message's number, as peteos keeps it: the windows
        // take only messages numbered below it.
        raw.insert("_mutation_counter".into(), json!(count + 1));
        if let Some(origin) = origin {
            raw.insert("origin_context_id".into(), Value::String(origin.into()));
        }
        Ok(Thread {
            context: Context::from_raw(raw, file)?,
            lines: self.lines,
            file: file.to_path_buf(),
        })
    }
}

/// A part of these fields, in this order. Its texts are moved in: `json!`
/// would copy each (it serializes its values by reference), and a tool's
/// result can be megabytes.
fn part_of<const N: usize>(fields: [(&str, String); N]) -> Value {
    let mut part = Map::with_capacity(N + 1);
    for (key, text) in fields {
        part.insert(key.to_string(), Value::String(text));
    }
    Value::Object(part)
}

/// A text part.
pub fn text_part(text: impl Into<String>) -> Value {
    part_of([("type", "text".into()), ("text", text.into())])
}

/// A thinking part.
pub fn thinking_part(text: impl Into<String>) -> Value {
    part_of([("type", "thinking".into()), ("text", text.into())])
}

/// A tool call: `arguments` is JSON text, as peteos keeps it.
pub fn tool_use_part(call_id: &str, name: &str, arguments: String) -> Value {
    part_of([
        ("type", "tool_use".into()),
        ("call_id", call_id.into()),
        ("name", name.into()),
        ("arguments", arguments),
    ])
}

/// A tool's result; `error` marks a failed call.
pub fn tool_result_part(call_id: &str, content: String, error: bool) -> Value {
    let mut part = part_of([
        ("type", "tool_result".into()),
        ("call_id", call_id.into()),
        ("content", content),
    ]);
    if error {
        part["execution_status"] = json!("error");
    }
    part
}

/// A media part (`image`, `pdf`, …) with its media type and, when inline,
/// its base64 data (counted as the store counts media; never decoded).
pub fn media_part(kind: &str, media_type: Option<&str>, data: Option<&str>) -> Value {
    let mut source = Map::new();
    source.insert("type".into(), json!("base64"));
    if let Some(mt) = media_type {
        source.insert("media_type".into(), json!(mt));
    }
    if let Some(d) = data {
        source.insert("data".into(), json!(d));
    }
    let mut part = Map::with_capacity(2);
    part.insert("type".into(), Value::String(kind.into()));
    part.insert("source".into(), Value::Object(source));
    Value::Object(part)
}

/// The text of a JSON value a tool returned: a string as is, a list of
/// text blocks joined by lines, anything else as compact JSON.
pub fn value_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let texts: Vec<String> = items
                .iter()
                .map(|item| match item {
                    Value::String(s) => s.clone(),
                    Value::Object(o) => match o.get("text").and_then(Value::as_str) {
                        Some(t) => t.to_string(),
                        None => item.to_string(),
                    },
                    other => other.to_string(),
                })
                .collect();
            texts.join("\n")
        }
        other => other.to_string(),
    }
}

/// The records of the session files `files`, read on every core and
/// handed over 2,000 at a time as they are read (`on_batch` answering
/// false stops the scan).
pub fn scan_files(
    files: &[PathBuf],
    record_at: impl Fn(&Path) -> crate::store::sources::record::SessionRecord + Sync,
    on_batch: &mut dyn FnMut(Vec<crate::store::sources::record::SessionRecord>) -> bool,
) -> Result<()> {
    for chunk in files.chunks(2_000) {
        let batch = crate::store::parallel::map_ordered(chunk, |f| record_at(f));
        if !on_batch(batch) {
            break;
        }
    }
    Ok(())
}

/// A session file opened for its record: its checked id, its lines, the
/// folder holding it, the OS user and when it last changed.
pub struct Opened {
    pub id: crate::store::format::SessionId,
    pub file: crate::store::sources::jsonl::JsonlFile,
    pub folder: PathBuf,
    pub user: String,
    pub mtime: f64,
}

/// Opens the session file `path` of `agent`, whose id is `raw_id` (a name
/// the file or its folder gives): checked before it can name a path or an
/// argv. Err is the record listing it damaged, with why (never left out).
pub fn open_session(
    agent: crate::store::sources::agent::Agent,
    path: &Path,
    raw_id: &str,
) -> std::result::Result<Opened, Box<crate::store::sources::record::SessionRecord>> {
    use crate::store::sources::record::SessionRecord;
    let user = crate::store::sources::agents::user_name();
    let folder = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let damaged = |error: String| {
        Box::new(SessionRecord {
            agent,
            ..SessionRecord::damaged(raw_id, path.to_path_buf(), folder.clone(), &user, error)
        })
    };
    let id = crate::store::format::SessionId::check(raw_id).map_err(damaged)?;
    let file = crate::store::sources::jsonl::read(path).map_err(|e| damaged(e.to_string()))?;
    Ok(Opened {
        id,
        file,
        mtime: modified_seconds(path),
        folder,
        user,
    })
}

/// When the file `path` last changed (seconds since the epoch; 0 when it
/// cannot be read): a session's times when its lines say none.
pub fn modified_seconds(path: &Path) -> f64 {
    std::fs::symlink_metadata(path)
        .ok()
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The context id of a subagent whose agent calls it `raw`: its plain
/// characters only (it is shown, and named on the command line).
pub fn subagent_context_id(raw: &str) -> String {
    let plain: String = raw
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(64)
        .collect();
    format!("agent-{plain}")
}

/// Seconds since the epoch of an ISO-8601 / RFC 3339 time (`2026-11-20T10:00:00.123Z`).
pub fn parse_time(text: &str) -> Option<f64> {
    let t = humantime::parse_rfc3339_weak(text.trim_end_matches('Z'))
        .ok()
        .or_else(|| humantime::parse_rfc3339(text).ok())?;
    let d = t.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_with_and_without_zone_and_fraction() {
        assert_eq!(parse_time("2026-11-20T10:00:00Z"), Some(1_795_168_800.0));
        assert_eq!(
            parse_time("2026-11-20T10:00:00.500Z"),
            Some(1_795_168_800.5)
        );
        assert_eq!(parse_time("2026-11-20T10:00:00"), Some(1_795_168_800.0));
        assert_eq!(parse_time("soon"), None);
    }

    #[test]
    fn a_thread_is_a_context_the_store_reads() {
        let mut b = ThreadBuilder::default();
        b.push(NewMessage {
            role: "user",
            parts: vec![text_part("hi")],
            id: "u1".into(),
            timestamp: Some("2026-11-20T10:00:00Z".into()),
            kind: None,
            model: None,
            lines: vec![LineSpan {
                line: 1,
                offset: 0,
                len: 10,
            }],
        });
        let t = b.finish("s", None, Path::new("/x/s.jsonl")).unwrap();
        let m = t.context.message(0).unwrap();
        assert_eq!((m.role(), m.id(), m.sequence()), ("user", "u1", Some(1)));
        assert_eq!(t.lines[0][0].line, 1);
    }
}
