//! A Cursor CLI transcript as messages. A line is a message `{role,
//! message: {content: [blocks]}}` or a turn's end `{type: "turn_ended",
//! status, error?}`. An assistant's turn is written as several lines (its
//! text, a tool call, more text): consecutive assistant lines are one
//! message. A person's text comes wrapped (`<user_query>…</user_query>`,
//! with `<timestamp>` and `<user_info>` blocks beside it): shown unwrapped,
//! as Cursor shows it. Tool calls carry no id and their results are not
//! written, so a call stands alone.

use crate::store::error::Result;
use crate::store::sources::agent_read::{
    AgentRead, NewMessage, ThreadBuilder, text_part, thinking_part, tool_use_part,
};
use crate::store::sources::jsonl::{self, JsonlFile, LineSpan, Skipped};
use serde_json::Value;
use std::path::Path;

/// What a listing needs.
#[derive(Debug, Default)]
pub struct Facts {
    /// The first thing a person asked, unwrapped.
    pub first_prompt: Option<String>,
    /// The folder the first shell call that named one ran in.
    pub working_directory: Option<String>,
}

/// The listing's facts of `file`.
pub fn facts(file: &JsonlFile) -> Facts {
    let mut facts = Facts::default();
    let mut skipped = Skipped::default();
    for span in &file.spans {
        let Some(line) = jsonl::parse_line::<Value>(file.line_bytes(span), span, &mut skipped)
        else {
            continue;
        };
        for block in blocks(&line) {
            match (line.get("role").and_then(Value::as_str), kind(block)) {
                (Some("user"), "text") if facts.first_prompt.is_none() => {
                    facts.first_prompt = block
                        .get("text")
                        .and_then(Value::as_str)
                        .map(unwrapped)
                        .filter(|t| !t.is_empty());
                }
                (Some("assistant"), "tool_use") if facts.working_directory.is_none() => {
                    facts.working_directory = block
                        .get("input")
                        .and_then(|i| i.get("working_directory"))
                        .and_then(Value::as_str)
                        .filter(|d| d.starts_with('/'))
                        .map(str::to_string);
                }
                _ => {}
            }
        }
        if facts.first_prompt.is_some() && facts.working_directory.is_some() {
            break;
        }
    }
    facts
}

fn blocks(line: &Value) -> &[Value] {
    line.get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn kind(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

/// A person's text without Cursor's wrappers: the `<user_query>`'s inside
/// when there is one, `<timestamp>` and `<user_info>` blocks left out.
pub fn unwrapped(text: &str) -> String {
    if let Some(inside) = between(text, "<user_query>", "</user_query>") {
        return inside.trim().to_string();
    }
    let mut out = text.to_string();
    for tag in ["timestamp", "user_info"] {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        while let Some(start) = out.find(&open) {
            let Some(end) = out[start..].find(&close) else {
                break;
            };
            out.replace_range(start..start + end + close.len(), "");
        }
    }
    out.trim().to_string()
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(&text[start..end])
}

/// The conversation of `file` (thread `id`, a subagent's of `origin`).
pub fn read(file: &JsonlFile, id: &str, origin: Option<&str>, path: &Path) -> Result<AgentRead> {
    let mut skipped = file.skipped.clone();
    let mut thread = ThreadBuilder::default();
    let mut last_role = None;
    for span in &file.spans {
        let Some(line) = jsonl::parse_line::<Value>(file.line_bytes(span), span, &mut skipped)
        else {
            continue;
        };
        let role = line.get("role").and_then(Value::as_str);
        match (role, line.get("type").and_then(Value::as_str)) {
            (Some(role @ ("user" | "assistant" | "system")), _) => {
                let parts = parts_of(&line, role, span, &mut skipped);
                let joined = role == "assistant"
                    && last_role == Some("assistant")
                    && thread.last_mut().is_some_and(|(raw, lines)| {
                        if let Some(Value::Array(content)) = raw.get_mut("content") {
                            content.extend(parts.iter().cloned());
                        }
                        lines.push(*span);
                        true
                    });
                if !joined {
                    thread.push(message(role, parts, None, span));
                }
                last_role = Some(if role == "assistant" {
                    "assistant"
                } else {
                    "other"
                });
            }
            (None, Some("turn_ended")) => {
                last_role = None;
                let status = line.get("status").and_then(Value::as_str).unwrap_or("");
                if status != "success" {
                    let why = line.get("error").and_then(Value::as_str).unwrap_or(status);
                    let text = format!("[the turn ended: {why}]");
                    thread.push(message(
                        "system",
                        vec![text_part(text)],
                        Some("SystemNote"),
                        span,
                    ));
                }
            }
            (_, other) => skipped.unknown_type(other.unwrap_or("(no role)")),
        }
    }
    Ok(AgentRead {
        main: thread.finish(id, origin, path)?,
        others: Vec::new(),
        usage: Default::default(),
        title: None,
        skipped,
        context: None,
    })
}

fn message(
    role: &str,
    parts: Vec<Value>,
    kind: Option<&'static str>,
    span: &LineSpan,
) -> NewMessage {
    NewMessage {
        role: match role {
            "user" => "user",
            "assistant" => "assistant",
            _ => "system",
        },
        parts,
        id: format!("line-{}", span.line),
        timestamp: None,
        kind,
        model: None,
        lines: vec![*span],
    }
}

/// The parts of a message line: text (a person's unwrapped), thinking,
/// tool calls (each named by its line, having no id of its own).
fn parts_of(line: &Value, role: &str, span: &LineSpan, skipped: &mut Skipped) -> Vec<Value> {
    let mut out = Vec::new();
    for (n, block) in blocks(line).iter().enumerate() {
        let text = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or("");
        match kind(block) {
            "text" if role == "user" => out.push(text_part(unwrapped(text("text")))),
            "text" => out.push(text_part(text("text"))),
            "thinking" => out.push(thinking_part(text("thinking"))),
            "tool_use" => {
                let input = block.get("input").cloned().unwrap_or(Value::Null);
                let call = format!("line-{}-{n}", span.line);
                out.push(tool_use_part(&call, text("name"), input.to_string()));
            }
            other => {
                skipped.unknown_block(if other.is_empty() { "(no type)" } else { other });
                out.push(text_part(block.to_string()));
            }
        }
    }
    out
}
