//! Claude Code's content blocks (the Anthropic API's) as the store's parts:
//! `text` and `thinking` keep their text, `tool_use` its input as JSON
//! text, `tool_result` its content as text (an image inside it follows as
//! a part of its own), `image` and `document` become media. A block of a
//! type not known here is kept as it is, shown by its type, and counted.

use crate::store::sources::agent_read::{
    media_part, text_part, thinking_part, tool_result_part, tool_use_part, value_text,
};
use crate::store::sources::jsonl::Skipped;
use serde_json::{Map, Value};

/// The parts of a message's `content` (a string, or a list of blocks).
/// The content is taken, not copied: a 100 MB session moves its text once.
pub fn parts(content: Value, skipped: &mut Skipped) -> Vec<Value> {
    match content {
        Value::String(s) if s.is_empty() => Vec::new(),
        Value::String(s) => vec![text_part(s)],
        Value::Array(blocks) => {
            let mut out = Vec::with_capacity(blocks.len());
            for block in blocks {
                block_parts(block, &mut out, skipped);
            }
            out
        }
        Value::Null => Vec::new(),
        other => vec![text_part(other.to_string())],
    }
}

/// True when every block of `content` is a tool result (the line carries
/// results back, rather than words a person wrote).
pub fn only_tool_results(content: &Value) -> bool {
    match content {
        Value::Array(blocks) => {
            !blocks.is_empty()
                && blocks
                    .iter()
                    .all(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        }
        _ => false,
    }
}

fn block_parts(block: Value, out: &mut Vec<Value>, skipped: &mut Skipped) {
    let Value::Object(mut b) = block else {
        out.push(text_part(value_text(&block)));
        return;
    };
    let kind = take_str(&mut b, "type");
    match kind.as_str() {
        "text" => out.push(text_part(take_str(&mut b, "text"))),
        "thinking" => out.push(thinking_part(take_str(&mut b, "thinking"))),
        "redacted_thinking" => out.push(thinking_part("[redacted thinking]")),
        "tool_use" | "server_tool_use" => {
            let id = take_str(&mut b, "id");
            let name = take_str(&mut b, "name");
            let input = b.remove("input").unwrap_or(Value::Null);
            out.push(tool_use_part(&id, &name, input.to_string()));
        }
        "tool_result" | "web_search_tool_result" => {
            let id = take_str(&mut b, "tool_use_id");
            let error = b.get("is_error").and_then(Value::as_bool) == Some(true);
            let (text, media) = result_content(b.remove("content").unwrap_or(Value::Null));
            out.push(tool_result_part(&id, text, error));
            out.extend(media);
        }
        "image" => out.push(media(&mut b, "image")),
        "document" => {
            let is_text = b
                .get("source")
                .and_then(|s| s.get("type"))
                .and_then(Value::as_str)
                == Some("text");
            if is_text {
                let data = b
                    .get_mut("source")
                    .and_then(Value::as_object_mut)
                    .map(|s| take_str(s, "data"))
                    .unwrap_or_default();
                out.push(text_part(data));
            } else {
                out.push(media(&mut b, "pdf"));
            }
        }
        "tool_reference" => {
            let name = take_str(&mut b, "tool_name");
            out.push(text_part(format!("[tool reference {name}]")));
        }
        other => {
            skipped.unknown_block(if other.is_empty() { "(no type)" } else { other });
            b.insert("type".into(), Value::String(kind));
            out.push(Value::Object(b));
        }
    }
}

/// A tool result's content as text, and the images it holds as parts.
fn result_content(content: Value) -> (String, Vec<Value>) {
    let Value::Array(items) = content else {
        return (value_text(&content), Vec::new());
    };
    let mut texts = Vec::new();
    let mut media_parts = Vec::new();
    for item in items {
        match item {
            Value::Object(mut o) => match o.get("type").and_then(Value::as_str) {
                Some("text") => texts.push(take_str(&mut o, "text")),
                Some("image") => media_parts.push(media(&mut o, "image")),
                Some("tool_reference") => texts.push(format!(
                    "[tool reference {}]",
                    take_str(&mut o, "tool_name")
                )),
                _ => texts.push(Value::Object(o).to_string()),
            },
            other => texts.push(value_text(&other)),
        }
    }
    // One text (the usual case) is moved, not copied by a join.
    let text = if texts.len() == 1 {
        texts.pop().unwrap_or_default()
    } else {
        texts.join("\n")
    };
    (text, media_parts)
}

/// A media block (`source: {type, media_type, data}`) as a media part.
fn media(block: &mut Map<String, Value>, kind: &str) -> Value {
    let source = block.get_mut("source").and_then(Value::as_object_mut);
    match source {
        Some(s) => {
            let media_type = s
                .get("media_type")
                .and_then(Value::as_str)
                .map(str::to_string);
            let data = s.remove("data");
            media_part(
                kind,
                media_type.as_deref(),
                data.as_ref().and_then(Value::as_str),
            )
        }
        None => media_part(kind, None, None),
    }
}

/// Takes a string field out of `map` (empty when missing or not a string).
fn take_str(map: &mut Map<String, Value>, key: &str) -> String {
    match map.remove(key) {
        Some(Value::String(s)) => s,
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::format::{Context, Part};
    use serde_json::json;

    fn shown(content: Value) -> (Vec<String>, Skipped) {
        let mut skipped = Skipped::default();
        let parts = parts(content, &mut skipped);
        let raw = json!({"messages": [{"role": "assistant", "content": parts}]});
        let ctx =
            Context::from_raw(raw.as_object().unwrap().clone(), std::path::Path::new("x")).unwrap();
        let m = ctx.message(0).unwrap();
        (m.parts().iter().map(Part::summary).collect(), skipped)
    }

    #[test]
    fn every_block_type_becomes_a_part() {
        let (parts, skipped) = shown(json!([
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}},
            {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true, "content": [
                {"type": "text", "text": "a.txt"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
            ]},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "AA=="}},
            {"type": "hologram", "x": 1}
        ]));
        assert_eq!(
            parts,
            [
                "[thinking] hmm",
                "Looking.",
                "[tool call Bash toolu_1] {\"command\":\"ls\"}",
                "[tool result toolu_1] a.txt",
                "[image: image/png]",
                "[pdf: application/pdf]",
                "[unknown part: hologram]",
            ]
        );
        assert_eq!(skipped.unknown_blocks, vec![("hologram".to_string(), 1)]);
    }

    #[test]
    fn results_alone_are_a_tool_message() {
        assert!(only_tool_results(&json!([{"type": "tool_result"}])));
        assert!(!only_tool_results(
            &json!([{"type": "tool_result"}, {"type": "text"}])
        ));
        assert!(!only_tool_results(&json!("text")));
    }
}
