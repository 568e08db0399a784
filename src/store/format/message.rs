//! A message of a context and its content parts, read from the raw dict.

use crate::store::error::{Result, StoreError};
use crate::store::format::media::base64_bytes;
use serde_json::{Map, Value};

/// Which special role a message plays in its context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Special {
    /// The system prompt (index 0, id = `system_prompt_message_id`).
    SystemPrompt,
    /// The tool definitions (first two messages, id = `tool_definitions_message_id`).
    ToolDefinitions,
}

impl Special {
    /// The name used in CLI JSON (`"system_prompt"`, `"tool_definitions"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Special::SystemPrompt => "system_prompt",
            Special::ToolDefinitions => "tool_definitions",
        }
    }
}

/// A borrowed view of one message dict.
#[derive(Clone, Copy, Debug)]
pub struct Message<'a> {
    raw: &'a Map<String, Value>,
}

/// One content part, decoded for display and for the window rules.
#[derive(Clone, Debug, PartialEq)]
pub enum Part<'a> {
    /// Plain text.
    Text(&'a str),
    /// The model's reasoning.
    Thinking(&'a str),
    /// An image, video, audio or pdf; only its kind and media type are shown.
    Media {
        kind: &'a str,
        media_type: Option<&'a str>,
        /// Bytes of the media, when its data is inline (base64).
        bytes: Option<u64>,
    },
    /// A call of a tool by the assistant.
    ToolUse {
        call_id: Option<&'a Value>,
        name: &'a str,
        arguments: &'a str,
    },
    /// What a tool returned.
    ToolResult {
        call_id: Option<&'a Value>,
        content: &'a str,
    },
    /// A tool definition (in the tool definitions message).
    ToolDefinition { name: &'a str, description: &'a str },
    /// A part type this version does not know; shown by its type name.
    Unknown(&'a str),
}

impl<'a> Message<'a> {
    /// Wraps a message dict.
    pub fn new(raw: &'a Map<String, Value>) -> Self {
        Message { raw }
    }

    /// The raw dict, the source of truth.
    pub fn raw(&self) -> &'a Map<String, Value> {
        self.raw
    }

    /// The message id (empty if the file has none).
    pub fn id(&self) -> &'a str {
        str_field(self.raw, "id")
    }

    /// `user`, `assistant`, `system` or `tool` (empty if missing).
    pub fn role(&self) -> &'a str {
        str_field(self.raw, "role")
    }

    /// The peteos class name in `_type` (`Message` when missing).
    pub fn type_name(&self) -> &'a str {
        match self.raw.get("_type") {
            Some(Value::String(s)) => s,
            _ => "Message",
        }
    }

    /// `_sequence_number`, if present and an integer.
    pub fn sequence(&self) -> Option<i64> {
        integer(self.raw.get("_sequence_number")?)
    }

    /// A cached `token_count`, if it is a non-negative integer.
    pub fn cached_token_count(&self) -> Option<u64> {
        self.raw.get("token_count")?.as_u64()
    }

    /// `creation_timestamp` as stored (ISO-8601 text).
    pub fn created(&self) -> Option<&'a str> {
        self.raw.get("creation_timestamp")?.as_str()
    }

    /// The content parts; string content (older files) is one text part.
    pub fn parts(&self) -> Vec<Part<'a>> {
        match self.raw.get("content") {
            Some(Value::String(s)) if !s.is_empty() => vec![Part::Text(s)],
            Some(Value::Array(items)) => items.iter().map(decode_part).collect(),
            _ => Vec::new(),
        }
    }

    /// A readable one-line rendering of all parts.
    pub fn one_line(&self) -> String {
        self.one_line_limited(usize::MAX)
    }

    /// [`Message::one_line`] cut after about `max` characters (with `…`);
    /// stops rendering there, so a huge message costs no more than a small one.
    pub fn one_line_limited(&self, max: usize) -> String {
        self.one_line_replaced(max, &[], &[])
    }

    /// [`Message::one_line_limited`] as the message would read with the
    /// tool results at the positions of `results` cleared (`(position,
    /// tokens)`) and the media parts at `media` named by a placeholder.
    pub fn one_line_replaced(
        &self,
        max: usize,
        results: &[(usize, u64)],
        media: &[usize],
    ) -> String {
        let mut out = String::new();
        let mut chars = 0;
        for (i, part) in self.parts().iter().enumerate() {
            if i > 0 {
                out.push_str(" | ");
            }
            // Collapsing never lengthens a text, so a cut prefix is enough;
            // a long text is cut before it is copied at all.
            let room = max.saturating_sub(chars).saturating_add(1);
            let summary = match (part, results.iter().find(|(p, _)| *p == i)) {
                (_, Some(&(_, tokens))) => crate::store::format::clear::placeholder(tokens),
                (
                    Part::Media {
                        kind,
                        media_type,
                        bytes,
                    },
                    None,
                ) if media.contains(&i) => {
                    crate::store::format::media::placeholder(kind, *media_type, *bytes)
                }
                _ => part.shortened(room.saturating_mul(4)).summary(),
            };
            let piece = collapse_whitespace(&summary[..byte_prefix(&summary, room)]);
            chars += piece.chars().count();
            out.push_str(&piece);
            if chars > max {
                let cut: String = out.chars().take(max).collect();
                return cut + "…";
            }
        }
        out
    }

    /// The parts on their own lines (thinking, tool calls and results marked,
    /// media as placeholders): the text of the detail pane.
    pub fn readable(&self) -> String {
        self.readable_limited(usize::MAX)
    }

    /// [`Message::readable`] with each part cut to about `max` characters, so
    /// a huge pasted text costs a screen no more than a page of it.
    pub fn readable_limited(&self, max: usize) -> String {
        self.parts()
            .iter()
            .map(|p| {
                let cut = p.shortened(max);
                let more = cut != *p;
                (cut, more)
            })
            .map(|(p, more)| {
                let text = p.readable_part();
                if more { format!("{text}…") } else { text }
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

impl Part<'_> {
    /// One part as the detail pane shows it.
    fn readable_part(&self) -> String {
        match self {
            Part::Text(t) => (*t).to_string(),
            Part::Thinking(t) => format!("[thinking]\n{t}"),
            Part::ToolUse { .. } | Part::ToolResult { .. } => {
                self.summary().replacen("] ", "]\n", 1)
            }
            other => other.summary(),
        }
    }
}

impl<'a> Part<'a> {
    /// The part with its long text fields cut to about `chars` characters.
    pub fn shortened(&self, chars: usize) -> Part<'a> {
        let cut = |t: &'a str| &t[..byte_prefix(t, chars)];
        match *self {
            Part::Text(t) => Part::Text(cut(t)),
            Part::Thinking(t) => Part::Thinking(cut(t)),
            Part::ToolUse {
                call_id,
                name,
                arguments,
            } => Part::ToolUse {
                call_id,
                name,
                arguments: cut(arguments),
            },
            Part::ToolResult { call_id, content } => Part::ToolResult {
                call_id,
                content: cut(content),
            },
            Part::ToolDefinition { name, description } => Part::ToolDefinition {
                name,
                description: cut(description),
            },
            ref other => other.clone(),
        }
    }

    /// A short rendering: text as is, everything else as a bracketed placeholder.
    pub fn summary(&self) -> String {
        match self {
            Part::Text(t) => (*t).to_string(),
            Part::Thinking(t) => format!("[thinking] {t}"),
            Part::Media {
                kind, media_type, ..
            } => match media_type {
                Some(mt) => format!("[{kind}: {mt}]"),
                None => format!("[{kind}]"),
            },
            Part::ToolUse {
                call_id,
                name,
                arguments,
            } => format!("[tool call {name} {}] {arguments}", call_id_text(*call_id)),
            Part::ToolResult { call_id, content } => {
                format!("[tool result {}] {content}", call_id_text(*call_id))
            }
            Part::ToolDefinition { name, description } => format!("[tool {name}] {description}"),
            Part::Unknown(kind) => format!("[unknown part: {kind}]"),
        }
    }

    /// The call id of a tool_use, as a comparable key (`None` when missing or null).
    pub fn tool_use_key(&self) -> Option<Option<String>> {
        match self {
            Part::ToolUse { call_id, .. } => Some(call_id_key(*call_id)),
            _ => None,
        }
    }

    /// The call id of a tool_result, as a comparable key.
    pub fn tool_result_key(&self) -> Option<Option<String>> {
        match self {
            Part::ToolResult { call_id, .. } => Some(call_id_key(*call_id)),
            _ => None,
        }
    }
}

/// Python compares call ids by value and treats a missing one as `None`.
fn call_id_key(call_id: Option<&Value>) -> Option<String> {
    match call_id {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    }
}

fn call_id_text(call_id: Option<&Value>) -> String {
    call_id_key(call_id).unwrap_or_else(|| "?".into())
}

/// One content part as stored, decoded.
pub(crate) fn decode_part(value: &Value) -> Part<'_> {
    let Value::Object(part) = value else {
        return Part::Unknown("not an object");
    };
    let kind = str_field(part, "type");
    match kind {
        "text" => Part::Text(str_field(part, "text")),
        "thinking" => Part::Thinking(str_field(part, "text")),
        "image" | "video" | "audio" | "pdf" => Part::Media {
            kind,
            media_type: part
                .get("source")
                .and_then(|s| s.get("media_type"))
                .and_then(Value::as_str),
            bytes: part
                .get("source")
                .and_then(|s| s.get("data"))
                .and_then(Value::as_str)
                .map(base64_bytes),
        },
        "tool_use" => Part::ToolUse {
            call_id: part.get("call_id"),
            name: str_field(part, "name"),
            arguments: str_field(part, "arguments"),
        },
        "tool_result" => Part::ToolResult {
            call_id: part.get("call_id"),
            content: str_field(part, "content"),
        },
        "tool" => Part::ToolDefinition {
            name: str_field(part, "name"),
            description: str_field(part, "description"),
        },
        "" => Part::Unknown("(no type)"),
        other => Part::Unknown(other),
    }
}

fn str_field<'a>(map: &'a Map<String, Value>, key: &str) -> &'a str {
    map.get(key).and_then(Value::as_str).unwrap_or("")
}

/// An integer JSON number (a float with no fraction counts, as Python sorts it).
pub(crate) fn integer(value: &Value) -> Option<i64> {
    if let Some(i) = value.as_i64() {
        return Some(i);
    }
    let f = value.as_f64()?;
    (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i64)
}

/// Byte length of the first `chars` characters of `text` (all of it if shorter).
fn byte_prefix(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| i)
}

/// Newlines and runs of blanks become single spaces, for one-line display.
pub fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    out
}

/// The one message of a context's file whose id starts with `arg`, from
/// the indices of those that do: none is "not found", several are listed
/// (as people number them) so a longer prefix can be given.
pub fn the_one_match(arg: &str, matches: &[usize], file: &std::path::Path) -> Result<usize> {
    match matches {
        [one] => Ok(*one),
        [] => Err(StoreError::NotFound(format!(
            "no message {arg:?} in the active context ({})",
            file.display()
        ))),
        many => Err(StoreError::Invalid(format!(
            "{arg:?} matches {} messages ({}); give more of the id",
            many.len(),
            many.iter()
                .map(|i| crate::humanize::message_number(*i))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(v: &Value) -> Message<'_> {
        Message::new(v.as_object().unwrap())
    }

    #[test]
    fn a_line_reads_as_the_fix_for_resuming_would_leave_it() {
        let v = json!({"role": "user", "content": [
            {"type": "text", "text": "what is wrong here?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAAAAAA"}},
            {"type": "tool_result", "call_id": "c", "content": "a long log"}
        ]});
        let m = Message::new(v.as_object().unwrap());
        assert_eq!(
            m.one_line_replaced(300, &[(2, 41)], &[1]),
            "what is wrong here? | [image removed: image/png, 6 B] | [tool result cleared: 41 tokens]"
        );
        assert_eq!(m.one_line_replaced(300, &[], &[]), m.one_line_limited(300));
    }

    #[test]
    fn parts_of_every_type_render() {
        let v = json!({"role": "assistant", "content": [
            {"type": "thinking", "text": "hmm"},
            {"type": "text", "text": "line one\n\nline two"},
            {"type": "tool_use", "call_id": "c1", "name": "bash", "arguments": "{\"cmd\": \"ls\"}"},
            {"type": "tool_result", "call_id": "c1", "content": "ok"},
            {"type": "image", "source": {"type": "base64", "data": "AA==", "media_type": "image/png"}},
            {"type": "tool", "name": "grep", "description": "search", "parameters": {}},
            {"type": "hologram", "x": 1},
            7
        ]});
        assert_eq!(
            msg(&v).one_line(),
            "[thinking] hmm | line one line two | [tool call bash c1] {\"cmd\": \"ls\"} | [tool result c1] ok | [image: image/png] | [tool grep] search | [unknown part: hologram] | [unknown part: not an object]"
        );
    }

    #[test]
    fn limited_lines_are_cut_without_rendering_everything() {
        let long = "word ".repeat(10_000);
        let v =
            json!({"content": [{"type": "text", "text": long}, {"type": "thinking", "text": "x"}]});
        let line = msg(&v).one_line_limited(20);
        assert_eq!(line.chars().count(), 21);
        assert!(line.ends_with('…'));
        let v = json!({"content": [{"type": "text", "text": "a\n\nb"}, {"type": "thinking", "text": "t"}]});
        assert_eq!(msg(&v).one_line_limited(100), "a b | [thinking] t");
        assert_eq!(msg(&v).readable(), "a\n\nb\n\n[thinking]\nt");
        let huge = json!({"content": [{"type": "text", "text": "x".repeat(1_000_000)}]});
        let shown = msg(&huge).readable_limited(100);
        assert_eq!(shown.chars().count(), 101, "cut, with an ellipsis");
    }

    #[test]
    fn string_content_is_one_text_part() {
        let v = json!({"role": "user", "content": "hello"});
        assert_eq!(msg(&v).parts(), vec![Part::Text("hello")]);
    }

    #[test]
    fn missing_fields_have_defaults() {
        let v = json!({"_sequence_number": 4.0, "token_count": -1});
        let m = msg(&v);
        assert_eq!((m.id(), m.role(), m.type_name()), ("", "", "Message"));
        assert_eq!(m.sequence(), Some(4));
        assert_eq!(m.cached_token_count(), None);
    }
}
