//! Token counts of messages, exactly as peteos computes them.
//!
//! `tokens(msg) = len(encode(role + ": " + json.dumps(content, ensure_ascii=False)))`,
//! with an empty (falsy) content giving just `role + ": "`. Special-token text
//! such as `<|endoftext|>` is encoded as ordinary text.

use crate::store::error::{Result, StoreError};
use crate::store::format::Message;
use crate::store::format::pyjson::{self, PyJsonStyle};
use crate::store::format::token_count::{Counter, Split};
use serde_json::Value;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;
use tiktoken_rs::CoreBPE;

/// A tiktoken encoding we can count with.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Encoding {
    /// GPT-4 / GPT-3.5 (peteos's default).
    #[default]
    #[serde(rename = "cl100k_base")]
    Cl100kBase,
    /// GPT-4o and later.
    #[serde(rename = "o200k_base")]
    O200kBase,
}

impl Encoding {
    /// Every supported encoding, default first.
    pub const ALL: [Encoding; 2] = [Encoding::Cl100kBase, Encoding::O200kBase];

    /// The tiktoken name.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::O200kBase => "o200k_base",
        }
    }

    /// The other encoding (for a toggle key).
    pub fn next(self) -> Encoding {
        match self {
            Encoding::Cl100kBase => Encoding::O200kBase,
            Encoding::O200kBase => Encoding::Cl100kBase,
        }
    }

    /// Whether a cached `token_count` may stand for this encoding's count.
    /// peteos caches counts without recording the encoding and its default is
    /// cl100k_base, so only that encoding trusts the cache.
    pub fn trusts_cached_counts(self) -> bool {
        self == Encoding::Cl100kBase
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| format!("unknown encoding {s:?} (use cl100k_base or o200k_base)"))
    }
}

/// The BPE tables of `encoding`, built on first use and shared by the process.
pub fn tokenizer(encoding: Encoding) -> Result<&'static CoreBPE> {
    type Built = std::result::Result<CoreBPE, String>;
    static CL100K: OnceLock<Built> = OnceLock::new();
    static O200K: OnceLock<Built> = OnceLock::new();
    let cell = match encoding {
        Encoding::Cl100kBase => &CL100K,
        Encoding::O200kBase => &O200K,
    };
    let built = cell.get_or_init(|| {
        let made = match encoding {
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base(),
            Encoding::O200kBase => tiktoken_rs::o200k_base(),
        };
        made.map_err(|e| e.to_string())
    });
    built.as_ref().map_err(|message| StoreError::Tokenizer {
        encoding: encoding.name(),
        message: message.clone(),
    })
}

/// The counter of `encoding` (`token_count`: tiktoken's counts, faster),
/// built on first use with the tables and shared by the process.
pub fn counter(encoding: Encoding) -> Result<&'static Counter> {
    type Built = std::result::Result<Counter, String>;
    static CL100K: OnceLock<Built> = OnceLock::new();
    static O200K: OnceLock<Built> = OnceLock::new();
    let (cell, split) = match encoding {
        Encoding::Cl100kBase => (&CL100K, Split::Cl100k),
        Encoding::O200kBase => (&O200K, Split::O200k),
    };
    let bpe = tokenizer(encoding)?;
    let built = cell.get_or_init(|| Counter::new(split, bpe));
    built.as_ref().map_err(|message| StoreError::Tokenizer {
        encoding: encoding.name(),
        message: message.clone(),
    })
}

/// Starts building the tables of `encoding` on a background thread, so they
/// are ready (or nearly) when counting starts; building them takes long
/// enough to matter, and can overlap with reading the conversation.
pub fn prewarm(encoding: Encoding) {
    std::thread::spawn(move || {
        let _ = counter(encoding);
    });
}

/// Number of tokens of `text` under `encoding`, special-token text included as text.
pub fn count_text(text: &str, encoding: Encoding) -> Result<u64> {
    Ok(counter(encoding)?.count(text))
}

/// The text peteos encodes for a message: `role: <content as Python JSON>`.
pub fn message_text(message: &Message<'_>) -> String {
    let raw = message.raw();
    token_text(raw.get("role"), raw.get("content"))
}

/// The text peteos encodes for a message with this `role` and `content`
/// (for a message that does not exist yet, such as a cleared copy).
pub fn token_text(role: Option<&Value>, content: Option<&Value>) -> String {
    let role = python_str(role);
    let content = content.filter(|c| is_truthy(c));
    // Sized exactly first: grown by doubling, the text of a 200 MB paste
    // would hold up to twice its size (and three times while it moves).
    let mut text =
        String::with_capacity(role.len() + 2 + content.map_or(0, pyjson::token_text_len));
    text.push_str(&role);
    text.push_str(": ");
    if let Some(content) = content {
        pyjson::write_value(&mut text, content, PyJsonStyle::TOKEN_TEXT, 0);
    }
    text
}

/// The count peteos computes (ignores any cached `token_count`).
pub fn computed_count(message: &Message<'_>, encoding: Encoding) -> Result<u64> {
    count_text(&message_text(message), encoding)
}

/// The count peteos uses: a cached `token_count` wins where the encoding trusts it.
pub fn effective_count(message: &Message<'_>, encoding: Encoding) -> Result<u64> {
    match message.cached_token_count() {
        Some(cached) if encoding.trusts_cached_counts() => Ok(cached),
        _ => computed_count(message, encoding),
    }
}

/// How an f-string shows the `role` value (`None`, `True`, numbers as repr).
fn python_str(value: Option<&Value>) -> String {
    match value {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) => "None".into(),
        Some(Value::Bool(b)) => if *b { "True" } else { "False" }.into(),
        Some(other) => pyjson::dumps(other, PyJsonStyle::TOKEN_TEXT),
    }
}

/// Python truthiness of a JSON value (`if serialized` in peteos).
fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text_of(v: Value) -> String {
        message_text(&Message::new(v.as_object().unwrap()))
    }

    #[test]
    fn token_text_follows_peteos() {
        assert_eq!(
            text_of(json!({"role": "user", "content": [{"type": "text", "text": "héllo"}]})),
            "user: [{\"type\": \"text\", \"text\": \"héllo\"}]"
        );
        assert_eq!(text_of(json!({"role": "user", "content": []})), "user: ");
        assert_eq!(text_of(json!({"content": "hi"})), ": \"hi\"");
        assert_eq!(text_of(json!({"role": null})), "None: ");
    }

    #[test]
    fn special_token_text_counts_as_ordinary() {
        let n = count_text("<|endoftext|>", Encoding::Cl100kBase).unwrap();
        assert!(n > 1, "encoded as several ordinary tokens, got {n}");
    }

    #[test]
    fn cache_is_trusted_only_for_cl100k() {
        let v = json!({"role": "user", "content": [{"type": "text", "text": "hi"}], "token_count": 999});
        let m = Message::new(v.as_object().unwrap());
        assert_eq!(effective_count(&m, Encoding::Cl100kBase).unwrap(), 999);
        assert_ne!(effective_count(&m, Encoding::O200kBase).unwrap(), 999);
    }
}
