//! The person's prompt from a user line, read for the list without
//! building the line: only `message.content` is looked at, as a string or
//! as blocks whose `type` and `text` are kept (a tool result's content, or
//! any other field, is skipped unread). The same text as
//! [`Line::prompt_text`](super::Line::prompt_text) gives.

use serde::de::{Deserializer, IgnoredAny, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

#[derive(serde::Deserialize)]
struct Outer<'a> {
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
}

#[derive(serde::Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
}

/// A message's content as the prompt needs it: its text, joined.
enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Cow<'a, str>>),
    Other,
}

#[derive(serde::Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a list of blocks")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(s.to_string())))
            }
            fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(s)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut texts = Vec::new();
                while let Some(block) = seq.next_element::<Option<Block<'a>>>()? {
                    if let Some(Block {
                        kind: Some(kind),
                        text: Some(text),
                    }) = block
                        && kind == "text"
                    {
                        texts.push(text);
                    }
                }
                Ok(Content::Blocks(texts))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Other)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// The typed text of the user line `bytes` (already known to be a user
/// line that is neither meta nor a compact summary): Some(None) when it
/// holds none, None when the line is not read this way (then the caller
/// reads it leniently).
#[cfg(test)]
pub fn prompt(bytes: &[u8]) -> Option<Option<String>> {
    text(bytes).map(|t| t.filter(|t| !t.starts_with('<')))
}

/// The trimmed text of the user line `bytes`, tags and all (a slash
/// command's), as [`Line::user_text`](super::Line::user_text) gives it;
/// None when the line is not read this way.
pub fn text(bytes: &[u8]) -> Option<Option<String>> {
    let outer: Outer = serde_json::from_slice(bytes).ok()?;
    let text = match outer.message.and_then(|m| m.content) {
        Some(Content::Text(s)) => s.into_owned(),
        Some(Content::Blocks(texts)) => texts.join("\n"),
        Some(Content::Other) | None => return Some(None),
    };
    let trimmed = text.trim();
    Some((!trimmed.is_empty()).then(|| trimmed.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sources::claude::line::Line;

    #[test]
    fn the_same_prompt_as_the_whole_line_gives() {
        let lines: [&[u8]; 7] = [
            br#"{"type":"user","message":{"role":"user","content":"  fix the \"build\"\n"}}"#,
            br#"{"type":"user","message":{"content":[{"type":"text","text":"a"},{"type":"image","source":{}},{"type":"text","text":"b"}]}}"#,
            br#"{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"out"}]}]}}"#,
            br#"{"type":"user","message":{"content":"<command-name>/clear</command-name>"}}"#,
            br#"{"type":"user","message":{"content":null}}"#,
            br#"{"type":"user","message":{"content":{"odd":1}}}"#,
            br#"{"type":"user"}"#,
        ];
        for bytes in lines {
            let whole = Line::parse(bytes).unwrap().prompt_text();
            assert_eq!(
                prompt(bytes),
                Some(whole),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
        assert_eq!(prompt(br#"{"type":"user","message":7}"#), None);
    }
}
