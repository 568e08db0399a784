//! A Codex rollout forked into a new one, as Codex's own fork writes it:
//! the first `session_meta` carries the new id and `forked_from_id` (the
//! original's id); every other kept line is copied byte for byte, but for
//! the lines whose tool outputs are cleared (their `output` replaced by a
//! placeholder) and the messages whose images become a text naming them
//! (`input_image` -> `input_text`). Lines of types we do not know are kept; damaged lines
//! (not JSON) are left in the original only. Pure: bytes in,
//! bytes out; `ops/agent_fork.rs` reads and writes.

use crate::store::format::media;
use crate::store::sources::codex::items::data_url;
use crate::store::sources::jsonl::{self, split_lines};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

/// What a fork changes, by the offset of each line in the original file.
#[derive(Debug, Default)]
pub struct ForkEdits {
    /// The lines dropped.
    pub dropped: HashSet<u64>,
    /// Lines whose tool output is cleared: `call_id` -> placeholder.
    pub cleared: HashMap<u64, HashMap<String, String>>,
    /// Message lines whose images become a text naming them.
    pub media: HashSet<u64>,
    /// Drop the copies of images Codex keeps for its own screen (the
    /// `images` data URLs of `user_message` events) on every kept line.
    pub media_copies: bool,
}

/// The file name Codex gives a rollout started at `stamp`
/// (`YYYY-MM-DDThh-mm-ss`) with id `id`.
pub fn file_name(stamp: &str, id: &str) -> String {
    format!("rollout-{stamp}-{id}.jsonl")
}

/// The new rollout: the complete lines of `bytes` (a last line still
/// being written is left out) forked into session `new_id`, from `old_id`.
pub fn fork_bytes(bytes: &[u8], edits: &ForkEdits, new_id: &str, old_id: &str) -> Vec<u8> {
    let (spans, _) = split_lines(bytes, 0, 1);
    let mut out = Vec::with_capacity(bytes.len());
    let mut meta_done = false;
    for span in spans {
        if edits.dropped.contains(&span.offset) {
            continue;
        }
        let start = span.offset as usize;
        let line = &bytes[start..start + span.len as usize];
        // A damaged line (not JSON) stays in the original only.
        if serde_json::from_slice::<serde::de::IgnoredAny>(line).is_err() {
            continue;
        }
        let rewritten = if !meta_done && is_type(line, "session_meta") {
            meta_done = true;
            meta_line(line, new_id, old_id)
        } else if let Some(cleared) = edits.cleared.get(&span.offset) {
            cleared_line(line, cleared)
        } else if edits.media.contains(&span.offset) {
            media_line(line)
        } else if edits.media_copies && memchr::memmem::find(line, b"\"images\"").is_some() {
            event_images_line(line)
        } else {
            None
        };
        out.extend_from_slice(rewritten.as_deref().unwrap_or(line));
        out.extend_from_slice(jsonl::ending(bytes, &span));
    }
    out
}

fn is_type(line: &[u8], kind: &str) -> bool {
    // Cheap first: most lines are not the one looked for.
    memchr::memmem::find(line, kind.as_bytes()).is_some()
        && serde_json::from_slice::<Value>(line)
            .is_ok_and(|v| v.get("type").and_then(Value::as_str) == Some(kind))
}

fn meta_line(line: &[u8], new_id: &str, old_id: &str) -> Option<Vec<u8>> {
    let mut v: Value = serde_json::from_slice(line).ok()?;
    let payload = v.get_mut("payload")?.as_object_mut()?;
    payload.insert("id".into(), Value::String(new_id.into()));
    payload.insert("forked_from_id".into(), Value::String(old_id.into()));
    serde_json::to_vec(&v).ok()
}

/// A `function_call_output` (or custom tool's) with its output replaced.
fn cleared_line(line: &[u8], cleared: &HashMap<String, String>) -> Option<Vec<u8>> {
    let mut v: Value = serde_json::from_slice(line).ok()?;
    let payload = v.get_mut("payload")?.as_object_mut()?;
    let id = payload.get("call_id").and_then(Value::as_str)?;
    let text = cleared.get(id)?.clone();
    payload.insert("output".into(), Value::String(text));
    serde_json::to_vec(&v).ok()
}

/// A message with each `input_image` replaced by an `input_text` naming
/// it, as the reader names the image part (so the fork counts as planned).
fn media_line(line: &[u8]) -> Option<Vec<u8>> {
    let mut v: Value = serde_json::from_slice(line).ok()?;
    let content = v.get_mut("payload")?.get_mut("content")?.as_array_mut()?;
    let mut changed = false;
    for item in content.iter_mut() {
        if item.get("type").and_then(Value::as_str) != Some("input_image") {
            continue;
        }
        let url = item.get("image_url").and_then(Value::as_str).unwrap_or("");
        let (media_type, data) = data_url(url);
        let text = media::placeholder("image", media_type, data.map(media::base64_bytes));
        *item = json!({"type": "input_text", "text": text});
        changed = true;
    }
    changed.then(|| serde_json::to_vec(&v).ok()).flatten()
}

/// A `user_message` event without the data URLs of its `images` (Codex
/// shows them; the conversation holds them too, in its message).
fn event_images_line(line: &[u8]) -> Option<Vec<u8>> {
    let mut v: Value = serde_json::from_slice(line).ok()?;
    if v.get("type").and_then(Value::as_str) != Some("event_msg") {
        return None;
    }
    let images = v.get_mut("payload")?.get_mut("images")?.as_array_mut()?;
    let before = images.len();
    images.retain(|i| !i.as_str().is_some_and(|u| u.starts_with("data:")));
    (images.len() != before)
        .then(|| serde_json::to_vec(&v).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meta_gets_the_new_id_and_the_rest_is_copied() {
        let text = concat!(
            r#"{"timestamp":"t","type":"session_meta","payload":{"id":"old","cwd":"/p"}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"big"}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"message","n":1.50}}"#,
            "\n",
        );
        let second = text.find("\n").unwrap() as u64 + 1;
        let mut edits = ForkEdits::default();
        edits.cleared.insert(
            second,
            HashMap::from([("c1".to_string(), "[cleared]".to_string())]),
        );
        let out = String::from_utf8(fork_bytes(text.as_bytes(), &edits, "new", "old")).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        let meta: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(meta["payload"]["id"], "new");
        assert_eq!(meta["payload"]["forked_from_id"], "old");
        assert_eq!(meta["payload"]["cwd"], "/p");
        let output: Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(output["payload"]["output"], "[cleared]");
        assert_eq!(lines[2], text.lines().nth(2).unwrap());
        edits.dropped.insert(second);
        let out = fork_bytes(text.as_bytes(), &edits, "new", "old");
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 2);
    }
}
