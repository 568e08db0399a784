//! Whether a context file would load, decided without building it: the
//! same parser walks every value (numbers and strings decoded as a load
//! decodes them), but nothing is kept. A purge asks this of every session;
//! building each context's tree of values was most of its time.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// The visits of a scalar (a bool, a number, a string, null), each
/// answering `$answer`: every visitor here treats them alike.
macro_rules! scalars_answer {
    ($value:ty, $answer:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<$value, E> {
            Ok($answer)
        }
        fn visit_i64<E>(self, _: i64) -> Result<$value, E> {
            Ok($answer)
        }
        fn visit_u64<E>(self, _: u64) -> Result<$value, E> {
            Ok($answer)
        }
        fn visit_f64<E>(self, _: f64) -> Result<$value, E> {
            Ok($answer)
        }
        fn visit_str<E>(self, _: &str) -> Result<$value, E> {
            Ok($answer)
        }
        fn visit_unit<E>(self) -> Result<$value, E> {
            Ok($answer)
        }
    };
}

/// True only when `Context::load` of these bytes would succeed (a JSON
/// object after an optional BOM, whose last `"messages"`, if any, is a list
/// of objects). False may still load: the caller then loads the file, for
/// the answer and its words.
pub fn context_loads(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    if text.trim().is_empty() {
        return false;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let fine = matches!(de.deserialize_any(TopLevel), Ok(true));
    fine && de.end().is_ok()
}

/// The context's object: true when its last `"messages"` has the shape.
struct TopLevel;

impl<'de> Visitor<'de> for TopLevel {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut fine = true;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "messages" {
                fine = map.next_value_seed(Messages)?;
            } else {
                map.next_value_seed(Discard)?;
            }
        }
        Ok(fine)
    }

    // Anything but an object is not a context: walked to the end (so a
    // syntax error is still one), then refused.
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        Discard.visit_seq(seq).map(|_| false)
    }
    scalars_answer!(bool, false);
}

/// A `"messages"` value: true when it is a list of objects.
struct Messages;

impl<'de> de::DeserializeSeed<'de> for Messages {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(MessagesVisitor)
    }
}

struct MessagesVisitor;

impl<'de> Visitor<'de> for MessagesVisitor {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of messages")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let mut fine = true;
        while let Some(is_object) = seq.next_element_seed(ObjectOrNot)? {
            fine &= is_object;
        }
        Ok(fine)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        Discard.visit_map(map).map(|_| false)
    }
    scalars_answer!(bool, false);
}

/// One message: true when it is an object (walked whole either way).
struct ObjectOrNot;

impl<'de> de::DeserializeSeed<'de> for ObjectOrNot {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(ObjectOrNotVisitor)
    }
}

struct ObjectOrNotVisitor;

impl<'de> Visitor<'de> for ObjectOrNotVisitor {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a message")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        Discard.visit_map(map).map(|_| true)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        Discard.visit_seq(seq).map(|_| false)
    }
    scalars_answer!(bool, false);
}

/// Any value, decoded as a load decodes it (`deserialize_any`, not
/// `IgnoredAny`, which skips strings and numbers unchecked) and dropped.
struct Discard;

impl<'de> de::DeserializeSeed<'de> for Discard {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(Discard)
    }
}

impl<'de> Visitor<'de> for Discard {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(Discard)?.is_some() {
            map.next_value_seed(Discard)?;
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Discard)?.is_some() {}
        Ok(())
    }
    scalars_answer!((), ());
}

#[cfg(test)]
mod tests {
    use super::context_loads;
    use crate::store::format::Context;
    use crate::store::format::jsonfile::parse_object;
    use std::path::Path;

    /// What a load says of the same bytes.
    fn loads(bytes: &[u8]) -> bool {
        let path = Path::new("c.json");
        parse_object(path, bytes).is_ok_and(|raw| Context::from_raw(raw, path).is_ok())
    }

    #[test]
    fn says_what_a_load_says() {
        let cases: &[&[u8]] = &[
            br#"{"messages": [{"role": "user", "content": "hi"}]}"#,
            b"\xEF\xBB\xBF{\"messages\": []}",
            br#"{"id": "c", "x": [1, 2.5, -3, "\u00e9", null, true, {"a": {}}]}"#,
            br#"{"messages": [{"a": 1}, 2]}"#,
            br#"{"messages": {"a": 1}}"#,
            br#"{"messages": "none"}"#,
            br#"{"messages": 3, "messages": [{"a": 1}]}"#,
            br#"{"messages": [{"a": 1}], "messages": null}"#,
            br#"[{"messages": []}]"#,
            br#""a string""#,
            b"",
            b"   \n",
            br#"{"messages": [{"a": 1}]"#,
            br#"{"messages": [{"a": 1}]} trailing"#,
            br#"{"n": 1e400}"#,
            br#"{"s": "\ud800"}"#,
            br#"{"s": "\ud83d\ude00"}"#,
            br#"{"a": NaN}"#,
            br#"{"a": 1,}"#,
            b"{\"s\": \"\xff\"}",
            br#"{"deep": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
        ];
        for bytes in cases {
            assert_eq!(
                context_loads(bytes),
                loads(bytes),
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}
