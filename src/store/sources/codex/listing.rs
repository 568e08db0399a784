//! A Codex rollout as the list shows it, from the two ends of its file:
//! the `session_meta` (id, folder, start) and the first thing the person
//! typed from the first lines, the last use and a `thread_name_updated`
//! from the last ones, and the title from `session_index.jsonl`.

use crate::store::format::SessionId;
use crate::store::format::naming::name_from_prompt;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::parse_time;
use crate::store::sources::codex::{Line, items, thread_name};
use crate::store::sources::jsonl::{self, HeadTail};
use crate::store::sources::record::SessionRecord;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// Bytes read from each end first. The `session_meta` line holds the base
/// instructions, often several KB, so the head is larger than Claude's.
const FIRST_READ: usize = 16 * 1024;
/// Bytes read from each end when the first read held no whole line that says it.
const SECOND_READ: usize = 1024 * 1024;
/// The most of `session_index.jsonl` read.
const MAX_INDEX: u64 = 64 << 20;

#[derive(Debug, Default)]
struct Ends {
    id: Option<String>,
    cwd: Option<String>,
    prompt: Option<String>,
    first_time: Option<f64>,
    last_time: Option<f64>,
    thread_name: Option<String>,
    readable_lines: usize,
}

/// The record of the rollout `path`; `titles` are the names set by the
/// person (`session_index.jsonl`).
pub fn record_at(path: &Path, titles: &HashMap<String, String>) -> SessionRecord {
    let id_from_name = super::lineage::rollout_id_of(path).unwrap_or_else(|| {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let folder = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let user = crate::store::sources::agents::user_name();
    let damaged_as = |raw_id: &str, error: String| SessionRecord {
        agent: Agent::Codex,
        ..SessionRecord::damaged(raw_id, path.to_path_buf(), folder.clone(), &user, error)
    };
    let damaged = |error: String| damaged_as(&id_from_name, error);
    let read = |size: usize| jsonl::head_and_tail(path, size, size.min(64 * 1024));
    let (mut ends, mut file) = match read(FIRST_READ) {
        Ok(file) => (read_ends(&file), file),
        Err(e) => return damaged(e.to_string()),
    };
    if (ends.id.is_none() || ends.prompt.is_none()) && !file.head_is_whole() {
        match read(SECOND_READ) {
            Ok(bigger) => {
                ends = read_ends(&bigger);
                file = bigger;
            }
            Err(e) => return damaged(e.to_string()),
        }
    }
    let mtime = file.mtime;
    if ends.readable_lines == 0 && file.size > 0 {
        return damaged(format!(
            "{}: no line in its first and last KB is a Codex rollout line",
            path.display()
        ));
    }
    let raw_id = ends.id.unwrap_or(id_from_name.clone());
    let id = match SessionId::check(&raw_id) {
        Ok(id) => id,
        Err(why) => return damaged_as(&raw_id, why),
    };
    let prompt = ends.prompt.unwrap_or_default();
    let title = titles
        .get(id.as_str())
        .cloned()
        .or(ends.thread_name)
        .unwrap_or_else(|| prompt.clone());
    SessionRecord {
        agent: Agent::Codex,
        name: name_from_prompt(&title),
        title,
        cwd: ends.cwd,
        first_prompt: prompt,
        user,
        created_at: ends.first_time.unwrap_or(mtime),
        last_used_at: ends.last_time.unwrap_or(mtime),
        path: path.to_path_buf(),
        conversation_dir: folder,
        error: None,
        bytes: Some(file.size),
        stamp: None,
        id,
        archived: false,
    }
}

fn read_ends(file: &HeadTail) -> Ends {
    let mut ends = Ends::default();
    for bytes in file.head_lines() {
        let Ok(line) = serde_json::from_slice::<Line>(bytes) else {
            continue;
        };
        ends.readable_lines += 1;
        let p = &line.payload;
        match line.kind.as_deref() {
            Some("session_meta") if ends.id.is_none() => {
                ends.id = p.get("id").and_then(Value::as_str).map(str::to_string);
                ends.cwd = p.get("cwd").and_then(Value::as_str).map(str::to_string);
                ends.first_time = p
                    .get("timestamp")
                    .and_then(Value::as_str)
                    .and_then(parse_time)
                    .or_else(|| line.timestamp.as_deref().and_then(parse_time));
            }
            Some("event_msg")
                if ends.prompt.is_none()
                    && p.get("type").and_then(Value::as_str) == Some("user_message") =>
            {
                ends.prompt = p
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string);
            }
            Some("response_item") if ends.prompt.is_none() => {
                ends.prompt = typed_text(p);
            }
            _ => {}
        }
        if ends.first_time.is_none() {
            ends.first_time = line.timestamp.as_deref().and_then(parse_time);
        }
    }
    for bytes in file.tail_lines_rev() {
        let Ok(line) = serde_json::from_slice::<Line>(bytes) else {
            continue;
        };
        ends.readable_lines += 1;
        if ends.last_time.is_none() {
            ends.last_time = line.timestamp.as_deref().and_then(parse_time);
        }
        let is_name = line.kind.as_deref() == Some("event_msg")
            && line.payload.get("type").and_then(Value::as_str) == Some("thread_name_updated");
        if ends.thread_name.is_none() && is_name {
            ends.thread_name = thread_name(&line.payload);
        }
    }
    ends
}

/// The text of a user `message` item the person typed (not an injected one).
fn typed_text(payload: &Value) -> Option<String> {
    if payload.get("type").and_then(Value::as_str) != Some("message")
        || payload.get("role").and_then(Value::as_str) != Some("user")
    {
        return None;
    }
    let first = payload.get("content")?.as_array()?.first()?;
    if items::is_injected(first) {
        return None;
    }
    let text = first.get("text")?.as_str()?.trim();
    (!text.is_empty() && !text.starts_with('<')).then(|| text.to_string())
}

/// The titles of `session_index.jsonl`: `{id, thread_name, updated_at}`
/// per line, the last line of an id winning.
pub fn index_titles(path: &Path) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let Ok(file) = jsonl::read(path) else {
        return out;
    };
    if file.bytes.len() as u64 > MAX_INDEX {
        return out;
    }
    for span in &file.spans {
        let Ok(v) = serde_json::from_slice::<Value>(file.line_bytes(span)) else {
            continue;
        };
        let id = v.get("id").and_then(Value::as_str);
        let name = v.get("thread_name").and_then(Value::as_str).map(str::trim);
        if let (Some(id), Some(name)) = (id, name.filter(|n| !n.is_empty())) {
            out.insert(id.to_string(), name.to_string());
        }
    }
    out
}
