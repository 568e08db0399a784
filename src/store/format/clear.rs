//! Clearing tool results: the content of a `tool_result` part replaced by a
//! short placeholder saying what was removed, the part's `call_id` and every
//! other field kept, so the conversation keeps its shape and its tool pairs.
//! A fix for resuming also replaces media parts (`format/media.rs`).

use crate::store::format::media;
use crate::store::format::message::Message;
use serde_json::{Map, Value, json};

/// What a cleared result's content starts with.
pub const PLACEHOLDER_PREFIX: &str = "[tool result cleared: ";

/// The field of a cleared message that names the message it replaces.
pub const CLEARED_FROM: &str = "cleared_from";

/// The placeholder for a result of `tokens` tokens:
/// `[tool result cleared: 41,230 tokens]`.
pub fn placeholder(tokens: u64) -> String {
    let unit = if tokens == 1 { "token" } else { "tokens" };
    format!("{PLACEHOLDER_PREFIX}{} {unit}]", thousands(tokens))
}

/// True when `content` is a placeholder already (clearing it again would
/// only lose the figure it states).
pub fn is_placeholder(content: Option<&Value>) -> bool {
    let Some(Value::String(text)) = content else {
        return false;
    };
    let Some(rest) = text.strip_prefix(PLACEHOLDER_PREFIX) else {
        return false;
    };
    let Some(number) = rest
        .strip_suffix(" tokens]")
        .or_else(|| rest.strip_suffix(" token]"))
    else {
        return false;
    };
    !number.is_empty() && number.chars().all(|c| c.is_ascii_digit() || c == ',')
}

/// Positions (in `content`) of the message's tool results that can be
/// cleared: `tool_result` parts whose content is not a placeholder yet.
pub fn clearable_parts(message: &Message<'_>) -> Vec<usize> {
    let Some(Value::Array(items)) = message.raw().get("content") else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let part = item.as_object()?;
            (part.get("type").and_then(Value::as_str) == Some("tool_result")
                && !is_placeholder(part.get("content")))
            .then_some(i)
        })
        .collect()
}

/// The message's content with the tool results at the positions in
/// `cleared` replaced (`(position, tokens it held)`), and the media parts
/// at the positions in `media` replaced by a text naming them.
pub fn cleared_content(message: &Message<'_>, cleared: &[(usize, u64)], media: &[usize]) -> Value {
    let mut content = message
        .raw()
        .get("content")
        .cloned()
        .unwrap_or_else(|| json!([]));
    if let Value::Array(items) = &mut content {
        for &(position, tokens) in cleared {
            if let Some(Value::Object(part)) = items.get_mut(position) {
                part.insert("content".into(), Value::String(placeholder(tokens)));
            }
        }
        for &position in media {
            if let Some(part) = items.get_mut(position) {
                *part = media::placeholder_part(part);
            }
        }
    }
    content
}

/// The message as a fork holds it once cleared: a new `id`, the original's
/// id in `cleared_from`, the results (and `media`) replaced, and no cached
/// `token_count` (it counted the old content). Every other field is kept,
/// in its place.
pub fn cleared_message(
    message: &Message<'_>,
    cleared: &[(usize, u64)],
    media: &[usize],
    new_id: &str,
) -> Map<String, Value> {
    let mut raw = message.raw().clone();
    let original = raw.get("id").cloned().unwrap_or(Value::Null);
    raw.insert("content".into(), cleared_content(message, cleared, media));
    raw.insert("id".into(), Value::String(new_id.to_string()));
    raw.shift_remove("token_count");
    raw.insert(CLEARED_FROM.into(), original);
    raw
}

/// `41230` as `41,230`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_state_the_tokens_and_are_recognised() {
        assert_eq!(placeholder(41_230), "[tool result cleared: 41,230 tokens]");
        assert_eq!(placeholder(1), "[tool result cleared: 1 token]");
        assert_eq!(
            placeholder(1_234_567),
            "[tool result cleared: 1,234,567 tokens]"
        );
        for n in [0, 1, 999, 1000, 41_230] {
            assert!(is_placeholder(Some(&json!(placeholder(n)))));
        }
        assert!(!is_placeholder(Some(&json!(
            "[tool result cleared: many tokens]"
        ))));
        assert!(!is_placeholder(Some(&json!("ok"))));
        assert!(!is_placeholder(None));
    }

    #[test]
    fn a_cleared_message_keeps_its_shape_and_names_the_original() {
        let v = json!({"role": "tool", "content": [
            {"type": "tool_result", "call_id": "c1", "content": "long output", "execution_status": "executed"},
            {"type": "tool_result", "call_id": "c2", "content": placeholder(7)},
            {"type": "text", "text": "note"}
        ], "_type": "Message", "id": "old", "token_count": 99, "x_extra": 1});
        let m = Message::new(v.as_object().unwrap());
        assert_eq!(
            clearable_parts(&m),
            vec![0],
            "a placeholder is not cleared again"
        );
        let cleared = cleared_message(&m, &[(0, 1200)], &[], "new");
        assert_eq!(cleared["id"], "new");
        assert_eq!(cleared[CLEARED_FROM], "old");
        assert!(!cleared.contains_key("token_count"));
        assert_eq!(
            cleared["content"][0],
            json!({"type": "tool_result", "call_id": "c1",
                   "content": "[tool result cleared: 1,200 tokens]", "execution_status": "executed"})
        );
        assert_eq!(cleared["content"][1], v["content"][1]);
        assert_eq!(cleared["content"][2], v["content"][2]);
        let keys: Vec<&str> = cleared.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["role", "content", "_type", "id", "x_extra", CLEARED_FROM]
        );
    }
}
