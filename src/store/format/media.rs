//! Images and documents replaced by a short text naming what was there:
//! `[image removed: image/png, 1.2 MiB]`. A session that no longer resumes
//! is most often one whose pictures and PDFs ride along in every request
//! (base64 in the JSON); the placeholder keeps the conversation's shape and
//! tells the model, and the person, what was left out.

use crate::humanize;
use crate::store::format::message::{Message, Part, decode_part};
use serde_json::{Value, json};

/// The text that replaces a media part of `kind` (`image`, `pdf`, ...):
/// `[image removed: image/png, 1.2 MiB]`, without the parts not known.
pub fn placeholder(kind: &str, media_type: Option<&str>, bytes: Option<u64>) -> String {
    let kind = if kind.is_empty() { "media" } else { kind };
    match (media_type, bytes) {
        (Some(mt), Some(n)) => format!("[{kind} removed: {mt}, {}]", humanize::bytes(n)),
        (Some(mt), None) => format!("[{kind} removed: {mt}]"),
        (None, Some(n)) => format!("[{kind} removed: {}]", humanize::bytes(n)),
        (None, None) => format!("[{kind} removed]"),
    }
}

/// The text part a media part becomes (one data key, as every part).
pub fn placeholder_part(part: &Value) -> Value {
    let text = match decode_part(part) {
        Part::Media {
            kind,
            media_type,
            bytes,
        } => placeholder(kind, media_type, bytes),
        _ => placeholder("media", None, None),
    };
    json!({"type": "text", "text": text})
}

/// Positions (in `content`) of the message's media parts: what a fix for
/// resuming replaces.
pub fn media_parts(message: &Message<'_>) -> Vec<usize> {
    message
        .parts()
        .iter()
        .enumerate()
        .filter_map(|(i, p)| matches!(p, Part::Media { .. }).then_some(i))
        .collect()
}

/// Bytes that base64 `data` decodes to, from its length (padding left out;
/// reading every character of a large image to say its size is not worth it).
pub fn base64_bytes(data: &str) -> u64 {
    let digits = data.trim_end_matches('=').len() as u64;
    digits * 3 / 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_name_the_kind_type_and_size() {
        assert_eq!(
            placeholder("image", Some("image/png"), Some(1_258_291)),
            "[image removed: image/png, 1.2 MiB]"
        );
        assert_eq!(
            placeholder("pdf", Some("application/pdf"), None),
            "[pdf removed: application/pdf]"
        );
        assert_eq!(placeholder("", None, Some(10)), "[media removed: 10 B]");
        let part = json!({"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "AAAAAAAA"}});
        assert_eq!(
            placeholder_part(&part),
            json!({"type": "text", "text": "[image removed: image/jpeg, 6 B]"})
        );
    }

    #[test]
    fn only_media_parts_are_found() {
        let v = json!({"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "source": {"type": "base64", "data": "AA=="}},
            {"type": "tool_result", "call_id": "c", "content": "x"},
            {"type": "pdf", "source": {"type": "base64", "data": "AA=="}}
        ]});
        let m = Message::new(v.as_object().unwrap());
        assert_eq!(media_parts(&m), vec![1, 3]);
    }
}
