//! A Claude Code session forked into a new one: the lines of the file as
//! they are, less the dropped ones, each with the new `sessionId` and its
//! `parentUuid` re-linked over dropped lines to the nearest kept ancestor,
//! so the conversation stays one chain. Every other byte of a kept line is
//! the agent's; a line whose tool results are cleared is the one line
//! written again (its results replaced by a placeholder), as is a line
//! whose images and documents are replaced by a text naming them (with
//! Claude Code's own copy of a file it read). Every kept line with a
//! `uuid` says where it came from, `forkedFrom {sessionId, messageUuid}`,
//! as Claude Code 2.1's `/branch` writes it. Lines of types
//! we do not know are kept as they are; damaged lines (not UTF-8, not one
//! JSON object) are left in the original only.
//! Pure: bytes in, bytes out; `ops/agent_fork.rs` reads and writes.

use crate::store::format::media;
use crate::store::sources::jsonl::fields::{replace_values, string_value, top_level_values};
use crate::store::sources::jsonl::{self, split_lines};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// What a fork changes, by the offset of each line in the original file.
#[derive(Debug, Default)]
pub struct ForkEdits {
    /// The lines dropped (the lines of the dropped messages).
    pub dropped: HashSet<u64>,
    /// The main conversation's kept message lines: one whose ancestors
    /// are all dropped is linked to the kept message line before it.
    pub main: HashSet<u64>,
    /// Lines whose tool results are cleared: `tool_use_id` -> placeholder.
    pub cleared: HashMap<u64, HashMap<String, String>>,
    /// Lines whose images and documents become a text naming them.
    pub media: HashSet<u64>,
    /// Replace Claude Code's own copies of the files it read
    /// (`toolUseResult.file.base64`, kept beside the content block that
    /// holds the same bytes) on every kept line.
    pub media_copies: bool,
}

/// The new file: the complete lines of `bytes` (a last line still being
/// written is left out) of session `from`, forked into session `new_id`
/// as `edits` says.
pub fn fork_bytes(bytes: &[u8], edits: &ForkEdits, from: &str, new_id: &str) -> Vec<u8> {
    let (spans, _) = split_lines(bytes, 0, 1);
    let new_id_json = serde_json::to_string(new_id).expect("a string serializes");
    // uuid -> the parent it gets in the fork (for a dropped line: what its
    // children get instead of it).
    let mut new_parent: HashMap<String, Option<String>> = HashMap::with_capacity(spans.len());
    let mut dropped_uuids: HashSet<String> = HashSet::new();
    let mut last_main: Option<String> = None;
    let mut out = Vec::with_capacity(bytes.len());
    for span in spans {
        let start = span.offset as usize;
        let line = &bytes[start..start + span.len as usize];
        // A damaged line (not UTF-8, not one JSON object) stays in the
        // original only: the agent skips it, and other readers of the fork
        // would stumble on it.
        let fields = std::str::from_utf8(line).ok().and(top_level_values(line));
        let Some(fields) = fields else {
            continue;
        };
        let uuid = string_value(line, &fields, "uuid");
        let parent = string_value(line, &fields, "parentUuid");
        let resolved = match &parent {
            Some(p) if dropped_uuids.contains(p) => new_parent.get(p).cloned().flatten(),
            other => other.clone(),
        };
        // A replayed copy of a dropped line goes with it.
        let mut dropped = edits.dropped.contains(&span.offset)
            || uuid.as_ref().is_some_and(|u| dropped_uuids.contains(u));
        let is_main = edits.main.contains(&span.offset);
        let mut relinked = resolved.clone();
        if !dropped && parent.is_some() && resolved.is_none() {
            if is_main {
                // The first kept message whose ancestors all went: it
                // follows the message kept before it (none: it is the root).
                relinked = last_main.clone();
            } else {
                // A line hanging only from dropped lines (an abandoned
                // branch, progress of a dropped call) goes with them.
                dropped = true;
            }
        }
        if let Some(u) = &uuid {
            if dropped {
                dropped_uuids.insert(u.clone());
                new_parent.entry(u.clone()).or_insert(relinked.clone());
            } else {
                new_parent.entry(u.clone()).or_insert(relinked.clone());
            }
        }
        if dropped {
            continue;
        }
        if is_main && let Some(u) = &uuid {
            last_main = Some(u.clone());
        }
        let has_session = fields.iter().any(|(k, _)| k == "sessionId");
        let rewrite = Rewrite {
            cleared: edits.cleared.get(&span.offset),
            media: edits.media.contains(&span.offset),
            copy: edits.media_copies && memchr::memmem::find(line, b"\"base64\"").is_some(),
        };
        let forked_from = uuid.as_ref().map(|u| forked_from(from, u));
        if (rewrite.cleared.is_some() || rewrite.media || rewrite.copy)
            && let Some(rewritten) =
                rewritten_line(line, &rewrite, new_id, &relinked, &parent, &forked_from)
        {
            out.extend_from_slice(&rewritten);
        } else {
            let mut replace: Vec<(&str, String)> = Vec::new();
            if has_session {
                replace.push(("sessionId", new_id_json.clone()));
            }
            if relinked != parent {
                replace.push(("parentUuid", json_opt(&relinked)));
            }
            let had_it = fields.iter().any(|(k, _)| k == "forkedFrom");
            if let (Some(f), true) = (&forked_from, had_it) {
                replace.push(("forkedFrom", f.to_string()));
            }
            let mut written = replace_values(line, &fields, &replace);
            if let (Some(f), false) = (&forked_from, had_it) {
                add_field(&mut written, "forkedFrom", &f.to_string());
            }
            out.extend_from_slice(&written);
        }
        out.extend_from_slice(jsonl::ending(bytes, &span));
    }
    out
}

/// Where a kept line came from: the original session and its own uuid.
fn forked_from(session: &str, uuid: &str) -> Value {
    serde_json::json!({"sessionId": session, "messageUuid": uuid})
}

/// Adds `"key":value` as the last field of the JSON object `line` (its
/// last byte, blanks aside, is the closing brace).
fn add_field(line: &mut Vec<u8>, key: &str, value: &str) {
    let Some(close) = line.iter().rposition(|b| !b.is_ascii_whitespace()) else {
        return;
    };
    if line[close] != b'}' {
        return;
    }
    let empty = line[..close]
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .is_some_and(|open| line[open] == b'{');
    let key = serde_json::to_string(key).expect("a string serializes");
    let field = format!("{}{key}:{value}", if empty { "" } else { "," });
    line.splice(close..close, field.into_bytes());
}

fn json_opt(v: &Option<String>) -> String {
    match v {
        Some(s) => serde_json::to_string(s).expect("a string serializes"),
        None => "null".into(),
    }
}

/// What is replaced in one line.
struct Rewrite<'a> {
    /// Results of these calls become these placeholders.
    cleared: Option<&'a HashMap<String, String>>,
    /// Images and documents become a text naming them.
    media: bool,
    /// Claude Code's copy of a file it read becomes a text naming it.
    copy: bool,
}

/// A line with `rewrite` applied (in `message.content` and in the copy
/// Claude Code keeps in `toolUseResult`), the new session id and parent.
/// None if the line is not what it seemed, or nothing in it changes.
fn rewritten_line(
    line: &[u8],
    rewrite: &Rewrite<'_>,
    new_id: &str,
    relinked: &Option<String>,
    parent: &Option<String>,
    forked_from: &Option<Value>,
) -> Option<Vec<u8>> {
    let mut v: Value = serde_json::from_slice(line).ok()?;
    let obj = v.as_object_mut()?;
    // The first result replaced: Claude Code's copy is of the line's result.
    let mut first: Option<String> = None;
    let mut media_replaced = false;
    if let Some(Value::Array(blocks)) = obj.get_mut("message").and_then(|m| m.get_mut("content")) {
        let old = std::mem::take(blocks);
        for mut block in old {
            let mut after = Vec::new();
            if let Some(b) = block.as_object_mut() {
                if rewrite.media && is_media_block(b) {
                    *b = text_block(media_text(b));
                    media_replaced = true;
                } else if is_result_block(b) {
                    // An image a tool returned is read as a part after its
                    // result: its text goes there, so the fork reads back
                    // as the plan counted it.
                    if rewrite.media
                        && let Some(Value::Array(items)) = b.get_mut("content")
                    {
                        items.retain_mut(|item| match item.as_object_mut() {
                            Some(o) if o.get("type").and_then(Value::as_str) == Some("image") => {
                                after.push(Value::Object(text_block(media_text(o))));
                                false
                            }
                            _ => true,
                        });
                        media_replaced |= !after.is_empty();
                    }
                    let id = b.get("tool_use_id").and_then(Value::as_str);
                    if let Some(text) = id.and_then(|id| rewrite.cleared?.get(id)) {
                        b.insert("content".into(), Value::String(text.clone()));
                        first.get_or_insert_with(|| text.clone());
                    }
                }
            }
            blocks.push(block);
            blocks.extend(after);
        }
    }
    let copy = obj.get("toolUseResult").and_then(file_copy_text);
    if let Some(text) = first
        && obj.contains_key("toolUseResult")
    {
        obj.insert("toolUseResult".into(), Value::String(text));
    } else if let Some(text) = copy.filter(|_| rewrite.copy || media_replaced) {
        obj.insert("toolUseResult".into(), Value::String(text));
    } else if !media_replaced && rewrite.cleared.is_none() {
        return None;
    }
    if obj.contains_key("sessionId") {
        obj.insert("sessionId".into(), Value::String(new_id.into()));
    }
    if relinked != parent {
        obj.insert(
            "parentUuid".into(),
            relinked.clone().map_or(Value::Null, Value::String),
        );
    }
    if let Some(f) = forked_from {
        obj.insert("forkedFrom".into(), f.clone());
    }
    serde_json::to_vec(&v).ok()
}

fn is_result_block(b: &Map<String, Value>) -> bool {
    matches!(
        b.get("type").and_then(Value::as_str),
        Some("tool_result" | "web_search_tool_result")
    )
}

/// An image, or a document the reader shows as media (not a text one).
fn is_media_block(b: &Map<String, Value>) -> bool {
    match b.get("type").and_then(Value::as_str) {
        Some("image") => true,
        Some("document") => {
            b.get("source")
                .and_then(|s| s.get("type"))
                .and_then(Value::as_str)
                != Some("text")
        }
        _ => false,
    }
}

/// The placeholder of a media block, named as the reader names its part
/// (a document is a `pdf`), so the fork counts as the plan did.
fn media_text(b: &Map<String, Value>) -> String {
    let kind = match b.get("type").and_then(Value::as_str) {
        Some("document") => "pdf",
        _ => "image",
    };
    let source = b.get("source");
    let field = |key: &str| source.and_then(|s| s.get(key)).and_then(Value::as_str);
    media::placeholder(
        kind,
        field("media_type"),
        field("data").map(media::base64_bytes),
    )
}

fn text_block(text: String) -> Map<String, Value> {
    let mut b = Map::new();
    b.insert("type".into(), Value::String("text".into()));
    b.insert("text".into(), Value::String(text));
    b
}

/// The placeholder of Claude Code's copy of a file it read
/// (`{"type": "image", "file": {"base64": ..., "type": "image/png"}}`),
/// if `result` is one.
fn file_copy_text(result: &Value) -> Option<String> {
    let file = result.get("file")?;
    let data = file.get("base64")?.as_str()?;
    let kind = result.get("type").and_then(Value::as_str).unwrap_or("file");
    let media_type = file
        .get("type")
        .and_then(Value::as_str)
        .filter(|t| t.contains('/'));
    Some(media::placeholder(
        kind,
        media_type,
        Some(media::base64_bytes(data)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(uuid: &str, parent: Option<&str>, extra: &str) -> String {
        let p = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(
            r#"{{"parentUuid":{p},"type":"user","uuid":"{uuid}","sessionId":"old","n":1.50{extra}}}"#
        )
    }

    fn offsets(text: &str) -> Vec<u64> {
        let mut out = vec![0u64];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                out.push(i as u64 + 1);
            }
        }
        out
    }

    /// `line` as the fork writes it: the new session id, and where it came from.
    fn forked(line: &str, uuid: &str) -> String {
        let body = line.replace("\"old\"", "\"new\"");
        format!(
            "{},\"forkedFrom\":{{\"sessionId\":\"old\",\"messageUuid\":\"{uuid}\"}}}}",
            body.strip_suffix('}').unwrap()
        )
    }

    #[test]
    fn nothing_dropped_changes_only_the_session_id_and_says_where_each_line_came_from() {
        let text = format!(
            "{}\n{}\n{{\"type\":\"file-history-snapshot\"}}\n",
            line("a", None, ""),
            line("b", Some("a"), "")
        );
        let want = format!(
            "{}\n{}\n{{\"type\":\"file-history-snapshot\"}}\n",
            forked(&line("a", None, ""), "a"),
            forked(&line("b", Some("a"), ""), "b")
        );
        let out = fork_bytes(text.as_bytes(), &ForkEdits::default(), "old", "new");
        assert_eq!(String::from_utf8(out).unwrap(), want);
        // Damaged lines stay in the original only.
        let mut bytes = format!("not json\n{text}").into_bytes();
        bytes.extend_from_slice(b"{\"a\":\"\xff\"}\n");
        let out = fork_bytes(&bytes, &ForkEdits::default(), "old", "new");
        assert_eq!(String::from_utf8(out).unwrap(), want);
        // A fork of a fork says its own original, not the first one's.
        let again = fork_bytes(want.as_bytes(), &ForkEdits::default(), "new", "third");
        let first: Value =
            serde_json::from_str(String::from_utf8(again).unwrap().lines().next().unwrap())
                .unwrap();
        assert_eq!(
            first["forkedFrom"],
            serde_json::json!({"sessionId": "new", "messageUuid": "a"})
        );
    }

    #[test]
    fn dropped_lines_are_linked_over_and_their_hangers_on_go() {
        // a <- b <- c <- d, and e hangs from b only (an abandoned branch).
        let text = [
            line("a", None, ""),
            line("b", Some("a"), ""),
            line("e", Some("b"), ""),
            line("c", Some("b"), ""),
            line("d", Some("c"), ""),
        ]
        .join("\n")
            + "\n";
        let at = offsets(&text);
        let mut edits = ForkEdits::default();
        edits.dropped.extend([at[0], at[1]]);
        edits.main.extend([at[3], at[4]]);
        let out = String::from_utf8(fork_bytes(text.as_bytes(), &edits, "old", "new")).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert_eq!(lines[0], forked(&line("c", None, ""), "c"));
        assert_eq!(lines[1], forked(&line("d", Some("c"), ""), "d"));
    }

    #[test]
    fn a_cleared_result_is_replaced_in_the_message_and_its_copy() {
        let extra = r#","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"long output"}]},"toolUseResult":{"stdout":"long output"}"#;
        let text = line("a", None, extra) + "\n";
        let mut edits = ForkEdits::default();
        edits.cleared.insert(
            0,
            HashMap::from([("t1".to_string(), "[cleared]".to_string())]),
        );
        let out = fork_bytes(text.as_bytes(), &edits, "old", "new");
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["message"]["content"][0]["content"], "[cleared]");
        assert_eq!(v["toolUseResult"], "[cleared]");
        assert_eq!(v["sessionId"], "new");
        assert!(!String::from_utf8(out).unwrap().contains("long output"));
    }
}
