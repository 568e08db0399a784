//! Gemini CLI's records as the store's messages. A `user` record is the
//! person's prompt; a `gemini` record the model's answer (its thoughts,
//! text and tool calls), followed by a `tool` message with the results of
//! the calls that have one; `info`, `error` and `warning` are system notes.
//! Content is a Gemini `PartListUnion`: a string, or parts (`text`,
//! `inlineData`, `fileData`, `functionCall`, `functionResponse`).

use crate::store::format::usage::Usage;
use crate::store::sources::agent_read::{
    NewMessage, media_part, text_part, thinking_part, tool_result_part, tool_use_part, value_text,
};
use crate::store::sources::jsonl::{LineSpan, Skipped};
use serde_json::{Map, Value};

/// The messages one record shows as (none for an empty one).
pub fn messages(record: Value, span: LineSpan, skipped: &mut Skipped) -> Vec<NewMessage> {
    let Value::Object(mut r) = record else {
        return Vec::new();
    };
    let id = take_str(&mut r, "id");
    let timestamp = r
        .get("timestamp")
        .and_then(Value::as_str)
        .map(str::to_string);
    let kind = take_str(&mut r, "type");
    let content = r.remove("content").unwrap_or(Value::Null);
    let message = |role, parts, kind, model| NewMessage {
        role,
        parts,
        id: id.clone(),
        timestamp: timestamp.clone(),
        kind,
        model,
        lines: vec![span],
    };
    match kind.as_str() {
        "user" => vec![message("user", parts(content, skipped), None, None)],
        "gemini" => {
            let model = r.get("model").and_then(Value::as_str).map(str::to_string);
            let mut out_parts: Vec<Value> = Vec::new();
            if let Some(Value::Array(thoughts)) = r.get("thoughts") {
                for t in thoughts {
                    let subject = t.get("subject").and_then(Value::as_str).unwrap_or("");
                    let description = t.get("description").and_then(Value::as_str).unwrap_or("");
                    let text = match (subject.is_empty(), description.is_empty()) {
                        (false, false) => format!("{subject}: {description}"),
                        (false, true) => subject.to_string(),
                        _ => description.to_string(),
                    };
                    out_parts.push(thinking_part(text));
                }
            }
            out_parts.extend(parts(content, skipped));
            let mut results = Vec::new();
            if let Some(Value::Array(calls)) = r.remove("toolCalls") {
                for call in calls {
                    let Value::Object(mut c) = call else { continue };
                    let call_id = take_str(&mut c, "id");
                    let name = take_str(&mut c, "name");
                    let args = c.remove("args").unwrap_or(Value::Null);
                    out_parts.push(tool_use_part(&call_id, &name, args.to_string()));
                    let failed = matches!(
                        c.get("status").and_then(Value::as_str),
                        Some("error" | "cancelled")
                    );
                    let result = c.remove("result").filter(|v| !v.is_null());
                    let shown = match result {
                        Some(v) => Some(result_text(v)),
                        None => c.remove("resultDisplay").map(|d| value_text(&d)),
                    };
                    if let Some(text) = shown {
                        results.push(tool_result_part(&call_id, text, failed));
                    }
                }
            }
            let mut out = vec![message("assistant", out_parts, None, model)];
            if !results.is_empty() {
                let mut tool = message("tool", results, None, None);
                tool.id = format!("{id}#results");
                out.push(tool);
            }
            out
        }
        "info" | "error" | "warning" => {
            let text = format!("[{kind}] {}", value_text(&flatten(content)));
            vec![message(
                "system",
                vec![text_part(text)],
                Some("SystemNote"),
                None,
            )]
        }
        other => {
            skipped.unknown_type(if other.is_empty() { "(no type)" } else { other });
            Vec::new()
        }
    }
}

/// The usage a `gemini` record carries, as ccusage reads it: `tokens.input`
/// includes the cached tokens when the record's `total` says so (input,
/// output, thoughts and tool add up to it), and they are taken out then;
/// `tool` tokens are input; `thoughts` are billed as output but kept apart.
pub fn usage(record: &Value) -> Option<(String, Usage)> {
    if record.get("type").and_then(Value::as_str) != Some("gemini") {
        return None;
    }
    let t = record.get("tokens").filter(|t| t.is_object())?;
    let n = |k: &str| t.get(k).and_then(Value::as_u64).unwrap_or(0);
    let (input, output, cached, thoughts, tool) = (
        n("input"),
        n("output"),
        n("cached"),
        n("thoughts"),
        n("tool"),
    );
    let inclusive = cached > 0
        && t.get("total").and_then(Value::as_u64) == Some(input + output + thoughts + tool);
    let model = record
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    Some((
        model,
        Usage {
            input: if inclusive {
                input.saturating_sub(cached)
            } else {
                input
            } + tool,
            output,
            cache_read: cached,
            thoughts,
            ..Usage::default()
        },
    ))
}

/// The text a person typed in a `user` record, if it holds some.
pub fn prompt_text(record: &Value) -> Option<String> {
    if record.get("type").and_then(Value::as_str) != Some("user") {
        return None;
    }
    let text = match record.get("content")? {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        Value::Object(o) => o.get("text").and_then(Value::as_str)?.to_string(),
        _ => return None,
    };
    let text = text.trim();
    (!text.is_empty() && !text.starts_with('/')).then(|| text.to_string())
}

/// A `PartListUnion` as parts (Qwen Code's `Content` parts too).
pub(crate) fn parts(content: Value, skipped: &mut Skipped) -> Vec<Value> {
    let items = match content {
        Value::Null => return Vec::new(),
        Value::String(s) if s.is_empty() => return Vec::new(),
        Value::String(s) => return vec![text_part(s)],
        Value::Array(items) => items,
        obj @ Value::Object(_) => vec![obj],
        other => return vec![text_part(other.to_string())],
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Value::String(s) => out.push(text_part(s)),
            Value::Object(mut p) => {
                if p.get("thought").and_then(Value::as_bool) == Some(true) {
                    out.push(thinking_part(take_str(&mut p, "text")));
                } else if let Some(Value::String(t)) = p.remove("text") {
                    out.push(text_part(t));
                } else if let Some(d) = p.get("inlineData").or_else(|| p.get("fileData")) {
                    let mime = d.get("mimeType").and_then(Value::as_str);
                    let kind = match mime {
                        Some(m) if m.starts_with("audio/") => "audio",
                        Some(m) if m.starts_with("video/") => "video",
                        Some("application/pdf") => "pdf",
                        _ => "image",
                    };
                    out.push(media_part(
                        kind,
                        mime,
                        d.get("data").and_then(Value::as_str),
                    ));
                } else if let Some(call) = p.get("functionCall") {
                    let id = call.get("id").and_then(Value::as_str).unwrap_or("");
                    let name = call.get("name").and_then(Value::as_str).unwrap_or("");
                    let args = call.get("args").cloned().unwrap_or(Value::Null);
                    out.push(tool_use_part(id, name, args.to_string()));
                } else if let Some(resp) = p.remove("functionResponse") {
                    let id = resp
                        .get("id")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    out.push(tool_result_part(&id, response_text(&resp), false));
                } else {
                    let kind = p.keys().next().cloned().unwrap_or_else(|| "(empty)".into());
                    skipped.unknown_block(&kind);
                    p.insert("type".into(), Value::String(kind));
                    out.push(Value::Object(p));
                }
            }
            other => out.push(text_part(other.to_string())),
        }
    }
    out
}

/// A tool call's `result` (parts holding a `functionResponse`) as text.
fn result_text(result: Value) -> String {
    let items = match result {
        Value::Array(items) => items,
        other => vec![other],
    };
    items
        .iter()
        .map(|item| match item.get("functionResponse") {
            Some(resp) => response_text(resp),
            None => value_text(item),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text of a `functionResponse`: its `response.output` (or `error`),
/// else the whole response as JSON.
fn response_text(resp: &Value) -> String {
    let response = resp.get("response");
    match response.and_then(|r| r.get("output").or_else(|| r.get("error"))) {
        Some(v) => value_text(v),
        None => response.map(Value::to_string).unwrap_or_default(),
    }
}

/// Content of a note: its texts as one value.
fn flatten(content: Value) -> Value {
    match content {
        Value::Array(items) => Value::String(
            items
                .iter()
                .map(|i| {
                    i.get("text")
                        .and_then(Value::as_str)
                        .map_or_else(|| value_text(i), str::to_string)
                })
                .collect::<Vec<_>>()
                .join(""),
        ),
        other => other,
    }
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

    #[test]
    fn an_answer_with_tool_calls_is_followed_by_their_results() {
        let record = json!({
            "id": "m2", "timestamp": "2026-11-20T10:00:02Z", "type": "gemini", "model": "gemini-2.5-pro",
            "content": [{"text": "Let me look."}],
            "thoughts": [{"subject": "Plan", "description": "read the file", "timestamp": "t"}],
            "toolCalls": [{"id": "c1", "name": "read_file", "args": {"path": "a"}, "status": "success",
                "result": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "text of a"}}}]}],
            "tokens": {"input": 100, "output": 20, "cached": 30, "thoughts": 5, "tool": 0, "total": 125}
        });
        let (_, u) = usage(&record).unwrap();
        assert_eq!((u.input, u.output, u.cache_read), (70, 20, 30));
        let span = LineSpan {
            line: 2,
            offset: 0,
            len: 0,
        };
        let out = messages(record, span, &mut Skipped::default());
        assert_eq!(out.len(), 2);
        assert_eq!((out[0].role, out[1].role), ("assistant", "tool"));
        assert_eq!(out[0].parts.len(), 3);
        assert_eq!(out[1].parts[0]["content"], "text of a");
        assert_eq!(out[1].id, "m2#results");
    }

    #[test]
    fn prompts_are_user_text() {
        assert_eq!(
            prompt_text(&json!({"type": "user", "content": [{"text": "hi "}, {"text": "there"}]}))
                .as_deref(),
            Some("hi there")
        );
        assert_eq!(
            prompt_text(&json!({"type": "user", "content": "/clear"})),
            None
        );
        assert_eq!(
            prompt_text(&json!({"type": "gemini", "content": "x"})),
            None
        );
    }
}
