//! Codex's rollout items as the store's messages: each `response_item` is
//! one message (a message's text and images, a reasoning summary, a tool
//! call, a tool's output), a `compacted` line a marker where the history was
//! compacted. Items of a type not known here are kept as a part of their
//! own type and counted.

use crate::store::sources::agent_read::{
    media_part, text_part, thinking_part, tool_result_part, tool_use_part, value_text,
};
use crate::store::sources::jsonl::Skipped;
use serde_json::{Map, Value};

/// A message made of one item: its role, parts and kind.
pub struct Item {
    /// `user`, `assistant`, `tool` or `system`.
    pub role: &'static str,
    /// Its parts.
    pub parts: Vec<Value>,
    /// A kind other than an ordinary message.
    pub kind: Option<&'static str>,
}

/// The message a `response_item` payload makes, if it shows as one.
pub fn response_item(payload: Value, skipped: &mut Skipped) -> Option<Item> {
    let Value::Object(mut p) = payload else {
        skipped.unknown_block("(not an object)");
        return None;
    };
    let kind = take_str(&mut p, "type");
    let item = |role, parts, kind| Some(Item { role, parts, kind });
    match kind.as_str() {
        "message" => {
            let role = match p.get("role").and_then(Value::as_str) {
                Some("assistant") => "assistant",
                Some("user") => "user",
                _ => "system",
            };
            let parts = content_parts(p.remove("content").unwrap_or(Value::Null), skipped);
            let injected = role == "user" && parts.first().is_some_and(is_injected);
            item(role, parts, injected.then_some("MetaMessage"))
        }
        "reasoning" => {
            let mut texts: Vec<String> = texts_of(p.get("summary"));
            texts.extend(texts_of(p.get("content")));
            if texts.is_empty() && p.get("encrypted_content").is_some_and(|e| !e.is_null()) {
                texts.push("[encrypted reasoning]".into());
            }
            item("assistant", vec![thinking_part(texts.join("\n\n"))], None)
        }
        "function_call" | "custom_tool_call" => {
            let call = take_str(&mut p, "call_id");
            let name = take_str(&mut p, "name");
            let args = match p.remove("arguments").or_else(|| p.remove("input")) {
                Some(Value::String(s)) => s,
                Some(other) => other.to_string(),
                None => String::new(),
            };
            item("assistant", vec![tool_use_part(&call, &name, args)], None)
        }
        "local_shell_call" => {
            let call = take_str(&mut p, "call_id");
            let action = p.remove("action").unwrap_or(Value::Null);
            item(
                "assistant",
                vec![tool_use_part(&call, "local_shell", action.to_string())],
                None,
            )
        }
        "web_search_call" => {
            let action = p.remove("action").unwrap_or(Value::Null);
            item(
                "assistant",
                vec![tool_use_part("", "web_search", action.to_string())],
                None,
            )
        }
        "function_call_output" | "custom_tool_call_output" => {
            let call = take_str(&mut p, "call_id");
            let (text, error) = output_text(p.remove("output").unwrap_or(Value::Null));
            item("tool", vec![tool_result_part(&call, text, error)], None)
        }
        "compaction" | "compaction_summary" => item(
            "system",
            vec![text_part("[compaction: the history before was summarised]")],
            Some("CompactionBoundary"),
        ),
        // Snapshots of the work tree for undo: bookkeeping, not conversation.
        "ghost_snapshot" => None,
        other => {
            skipped.unknown_block(if other.is_empty() { "(no type)" } else { other });
            p.insert("type".into(), Value::String(kind));
            item("assistant", vec![Value::Object(p)], None)
        }
    }
}

/// A `compacted` line: where the history was compacted, and the summary.
pub fn compacted(payload: &Value) -> Item {
    let message = payload.get("message").and_then(Value::as_str).unwrap_or("");
    Item {
        role: "system",
        parts: vec![text_part(format!("[compacted] {message}"))],
        kind: Some("CompactionBoundary"),
    }
}

/// A message's content items: `input_text` / `output_text` as text,
/// `input_image` (a data URL) as an image.
fn content_parts(content: Value, skipped: &mut Skipped) -> Vec<Value> {
    let Value::Array(items) = content else {
        return match content {
            Value::String(s) => vec![text_part(s)],
            _ => Vec::new(),
        };
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Value::Object(mut o) = item else { continue };
        match o.get("type").and_then(Value::as_str).unwrap_or("") {
            "input_text" | "output_text" | "text" => out.push(text_part(take_str(&mut o, "text"))),
            "input_image" => {
                let url = take_str(&mut o, "image_url");
                let (media_type, data) = data_url(&url);
                out.push(media_part("image", media_type, data));
            }
            other => {
                skipped.unknown_block(if other.is_empty() { "(no type)" } else { other });
                out.push(Value::Object(o));
            }
        }
    }
    out
}

/// A tool's output: a string; older rollouts an object `{content,
/// success}`; newer ones a list of content items.
fn output_text(output: Value) -> (String, bool) {
    match output {
        Value::Object(mut o) => {
            let failed = o.get("success").and_then(Value::as_bool) == Some(false);
            (
                value_text(&o.remove("content").unwrap_or(Value::Null)),
                failed,
            )
        }
        other => (value_text(&other), false),
    }
}

/// The texts of a reasoning `summary` or `content` list.
fn texts_of(list: Option<&Value>) -> Vec<String> {
    match list {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.get("text").and_then(Value::as_str))
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// The media type and base64 data of a `data:` URL.
pub fn data_url(url: &str) -> (Option<&str>, Option<&str>) {
    let Some(rest) = url.strip_prefix("data:") else {
        return (None, None);
    };
    match rest.split_once(',') {
        Some((head, data)) => (head.split(';').next().filter(|m| !m.is_empty()), Some(data)),
        None => (None, None),
    }
}

/// True for the texts Codex puts in the user's name (the environment, the
/// project's instructions) rather than words the person wrote.
pub fn is_injected(part: &Value) -> bool {
    let text = part
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim_start();
    text.starts_with("<environment_context>")
        || text.starts_with("<user_instructions>")
        || text.starts_with("# AGENTS.md instructions")
        || text.starts_with("<turn_aborted>")
}

fn take_str(map: &mut Map<String, Value>, key: &str) -> String {
    match map.remove(key) {
        Some(Value::String(s)) => s,
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn summary(v: Value) -> Option<(String, String)> {
        let item = response_item(v, &mut Skipped::default())?;
        let raw = json!({"messages": [{"role": item.role, "content": item.parts}]});
        let ctx = crate::store::format::Context::from_raw(
            raw.as_object().unwrap().clone(),
            std::path::Path::new("x"),
        )
        .unwrap();
        let m = ctx.message(0).unwrap();
        Some((m.role().to_string(), m.one_line()))
    }

    #[test]
    fn items_become_messages() {
        let s = |v| summary(v).unwrap();
        assert_eq!(
            s(
                json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}, {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}]})
            ),
            ("user".into(), "hi | [image: image/png]".into())
        );
        assert_eq!(
            s(
                json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": "think"}], "encrypted_content": "x"})
            ),
            ("assistant".into(), "[thinking] think".into())
        );
        assert_eq!(
            s(
                json!({"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": "c1"})
            ),
            (
                "assistant".into(),
                "[tool call shell c1] {\"command\":[\"ls\"]}".into()
            )
        );
        assert_eq!(
            s(
                json!({"type": "function_call_output", "call_id": "c1", "output": {"content": "boom", "success": false}})
            ),
            ("tool".into(), "[tool result c1] boom".into())
        );
        assert_eq!(
            s(
                json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]})
            ),
            ("system".into(), "rules".into())
        );
        assert!(summary(json!({"type": "ghost_snapshot", "ghost_commit": {}})).is_none());
        let mut skipped = Skipped::default();
        assert!(response_item(json!({"type": "hologram"}), &mut skipped).is_some());
        assert_eq!(skipped.unknown_blocks[0].0, "hologram");
    }
}
