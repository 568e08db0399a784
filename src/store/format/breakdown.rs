//! Where a context's tokens go: each message's count split among its parts
//! and summed by kind (system prompt, tool definitions, user and assistant
//! text, thinking, tool calls, tool results, media, other).
//!
//! peteos counts a message as a whole, so a part has no count of its own.
//! The split is proportional to each part's share of the message's token
//! text, measured in bytes of the part's own JSON text (`json.dumps(part,
//! ensure_ascii=False)`), and exact: floor shares, then the tokens left over
//! one each to the parts with the largest remainders (ties: the earlier
//! part). So every message's shares add up to its count, and the breakdown
//! to the context's total. The weights are read once (an [`EditFacts`]
//! holds them); a breakdown is then arithmetic on the counts the caller
//! already has, with no second pass over the text.
//!
//! [`EditFacts`]: crate::store::format::edit_facts::EditFacts

use crate::store::format::message::{Message, Part, Special};
use crate::store::format::pyjson;
use serde_json::Value;

/// What a share of tokens is spent on.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    /// The system prompt message (all of it).
    SystemPrompt,
    /// The tool definitions message (all of it), and `tool` parts elsewhere.
    ToolDefinitions,
    /// Text of `user` messages.
    UserText,
    /// Text of `assistant` messages.
    AssistantText,
    /// The model's reasoning (`thinking` parts).
    Thinking,
    /// `tool_use` parts.
    ToolCalls,
    /// `tool_result` parts.
    ToolResults,
    /// Images, video, audio and pdf parts.
    Media,
    /// Anything else: text of other roles, unknown parts.
    Other,
}

impl TokenKind {
    /// Every kind, in the order a breakdown lists them.
    pub const ALL: [TokenKind; 9] = [
        TokenKind::SystemPrompt,
        TokenKind::ToolDefinitions,
        TokenKind::UserText,
        TokenKind::AssistantText,
        TokenKind::Thinking,
        TokenKind::ToolCalls,
        TokenKind::ToolResults,
        TokenKind::Media,
        TokenKind::Other,
    ];

    /// The name in JSON (`"tool_results"`).
    pub fn as_str(self) -> &'static str {
        match self {
            TokenKind::SystemPrompt => "system_prompt",
            TokenKind::ToolDefinitions => "tool_definitions",
            TokenKind::UserText => "user_text",
            TokenKind::AssistantText => "assistant_text",
            TokenKind::Thinking => "thinking",
            TokenKind::ToolCalls => "tool_calls",
            TokenKind::ToolResults => "tool_results",
            TokenKind::Media => "media",
            TokenKind::Other => "other",
        }
    }

    /// The name people read (`"tool results"`).
    pub fn label(self) -> &'static str {
        match self {
            TokenKind::SystemPrompt => "system prompt",
            TokenKind::ToolDefinitions => "tool definitions",
            TokenKind::UserText => "user text",
            TokenKind::AssistantText => "assistant text",
            TokenKind::Thinking => "thinking",
            TokenKind::ToolCalls => "tool calls",
            TokenKind::ToolResults => "tool results",
            TokenKind::Media => "media",
            TokenKind::Other => "other",
        }
    }

    fn slot(self) -> usize {
        self as usize
    }

    /// The kind of a part of an ordinary message whose role is `role`.
    fn of_part(part: &Part<'_>, role: &str) -> TokenKind {
        match part {
            Part::Text(_) => TokenKind::of_text(role),
            Part::Thinking(_) => TokenKind::Thinking,
            Part::Media { .. } => TokenKind::Media,
            Part::ToolUse { .. } => TokenKind::ToolCalls,
            Part::ToolResult { .. } => TokenKind::ToolResults,
            Part::ToolDefinition { .. } => TokenKind::ToolDefinitions,
            Part::Unknown(_) => TokenKind::Other,
        }
    }

    /// Text is the user's or the assistant's by the message's role.
    fn of_text(role: &str) -> TokenKind {
        match role {
            "user" => TokenKind::UserText,
            "assistant" => TokenKind::AssistantText,
            _ => TokenKind::Other,
        }
    }
}

/// One part of a message as the breakdown sees it: its kind and its weight
/// (bytes of its JSON text in the token text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartWeight {
    /// What the part is.
    pub kind: TokenKind,
    /// Bytes of `json.dumps(part, ensure_ascii=False)`.
    pub weight: u64,
}

/// A message's parts for the breakdown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageShape {
    /// The parts in order (empty when the content has none).
    pub parts: Vec<PartWeight>,
    /// The kind that takes the whole count when there are no parts (the
    /// text kind of the role).
    pub whole: TokenKind,
}

impl MessageShape {
    /// Reads a message; `special` gives every part its kind.
    pub fn read(message: &Message<'_>, special: Option<Special>) -> Self {
        let forced = special.map(|s| match s {
            Special::SystemPrompt => TokenKind::SystemPrompt,
            Special::ToolDefinitions => TokenKind::ToolDefinitions,
        });
        let role = message.role();
        let parts = match message.raw().get("content") {
            Some(value @ Value::String(s)) if !s.is_empty() => vec![PartWeight {
                kind: forced.unwrap_or(TokenKind::of_text(role)),
                weight: pyjson::token_text_len(value) as u64,
            }],
            Some(Value::Array(items)) => message
                .parts()
                .iter()
                .zip(items)
                .map(|(part, value)| PartWeight {
                    kind: forced.unwrap_or(TokenKind::of_part(part, role)),
                    weight: pyjson::token_text_len(value) as u64,
                })
                .collect(),
            _ => Vec::new(),
        };
        MessageShape {
            parts,
            whole: forced.unwrap_or(TokenKind::of_text(role)),
        }
    }

    /// The message's `count` split among its parts (one share per part, in
    /// order; one share of the whole kind when it has no parts).
    pub fn shares(&self, count: u64) -> Vec<(TokenKind, u64)> {
        if self.parts.is_empty() {
            return vec![(self.whole, count)];
        }
        let weights: Vec<u64> = self.parts.iter().map(|p| p.weight).collect();
        self.parts
            .iter()
            .zip(split_count(count, &weights))
            .map(|(p, share)| (p.kind, share))
            .collect()
    }
}

/// Splits `count` in proportion to `weights`, exactly: each gets the floor
/// of its proportional share, then the tokens left over go one each to the
/// largest remainders, ties to the earlier. All zero weights count as equal.
pub fn split_count(count: u64, weights: &[u64]) -> Vec<u64> {
    let sum: u128 = weights.iter().map(|&w| u128::from(w)).sum();
    let uniform = sum == 0;
    let weight = |i: usize| if uniform { 1 } else { u128::from(weights[i]) };
    let total = if uniform { weights.len() as u128 } else { sum };
    if total == 0 {
        return Vec::new();
    }
    let mut shares = Vec::with_capacity(weights.len());
    let mut remainders = Vec::with_capacity(weights.len());
    let mut left = u128::from(count);
    for i in 0..weights.len() {
        let exact = u128::from(count) * weight(i);
        let share = exact / total;
        // A share never exceeds `count`, so it fits in a u64.
        shares.push(share as u64);
        remainders.push(exact % total);
        left -= share;
    }
    if left > 0 {
        let mut order: Vec<usize> = (0..weights.len()).collect();
        // Largest remainder first; the stable sort keeps earlier parts first on ties.
        order.sort_by(|&a, &b| remainders[b].cmp(&remainders[a]));
        for &i in order.iter().take(left as usize) {
            shares[i] += 1;
        }
    }
    shares
}

/// Tokens, parts and messages of one kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct KindTotal {
    /// Messages with at least one share of this kind.
    pub messages: usize,
    /// Parts of this kind (a message without parts counts none).
    pub parts: usize,
    /// Tokens of this kind.
    pub tokens: u64,
}

/// A context's tokens by kind; the kinds add up to the total.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    totals: [KindTotal; 9],
}

impl Breakdown {
    /// Sums the shares of the messages `shapes[i]` with counts `counts[i]`.
    pub fn of_shapes<'a>(shapes: impl Iterator<Item = (&'a MessageShape, u64)>) -> Breakdown {
        let mut out = Breakdown::default();
        for (shape, count) in shapes {
            let mut seen = [false; 9];
            for (kind, tokens) in shape.shares(count) {
                let slot = kind.slot();
                out.totals[slot].tokens += tokens;
                if !std::mem::replace(&mut seen[slot], true) {
                    out.totals[slot].messages += 1;
                }
            }
            for part in &shape.parts {
                out.totals[part.kind.slot()].parts += 1;
            }
        }
        out
    }

    /// The totals of `kind`.
    pub fn get(&self, kind: TokenKind) -> KindTotal {
        self.totals[kind.slot()]
    }

    /// Every kind with its totals, in [`TokenKind::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (TokenKind, KindTotal)> + '_ {
        TokenKind::ALL.into_iter().map(|k| (k, self.get(k)))
    }

    /// The sum of every kind: the context's total.
    pub fn total(&self) -> u64 {
        self.totals.iter().map(|t| t.tokens).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_split_is_exact_and_proportional() {
        assert_eq!(split_count(10, &[1, 1]), vec![5, 5]);
        assert_eq!(split_count(10, &[1, 2, 1]), vec![3, 5, 2]);
        // 7 * 1/3 = 2.33 each: one left over goes to the earliest.
        assert_eq!(split_count(7, &[1, 1, 1]), vec![3, 2, 2]);
        assert_eq!(split_count(0, &[5, 9]), vec![0, 0]);
        assert_eq!(split_count(5, &[0, 0]), vec![3, 2]);
        let huge = split_count(u64::MAX, &[u64::MAX, 1]);
        assert_eq!(
            huge.iter().map(|&s| u128::from(s)).sum::<u128>(),
            u128::from(u64::MAX)
        );
    }

    #[test]
    fn u64_sum_helper_is_exact() {
        let shares = split_count(1_000_003, &[17, 400, 3, 9_999]);
        assert_eq!(shares.iter().sum::<u64>(), 1_000_003);
    }

    #[test]
    fn parts_are_weighed_by_their_json_text() {
        let v = json!({"role": "assistant", "content": [
            {"type": "thinking", "text": "hmm"},
            {"type": "tool_use", "call_id": "c", "name": "bash", "arguments": "{}"}
        ]});
        let m = Message::new(v.as_object().unwrap());
        let shape = MessageShape::read(&m, None);
        let thinking = r#"{"type": "thinking", "text": "hmm"}"#.len() as u64;
        let call = r#"{"type": "tool_use", "call_id": "c", "name": "bash", "arguments": "{}"}"#
            .len() as u64;
        assert_eq!(
            shape.parts,
            vec![
                PartWeight {
                    kind: TokenKind::Thinking,
                    weight: thinking
                },
                PartWeight {
                    kind: TokenKind::ToolCalls,
                    weight: call
                }
            ]
        );
        let shares = shape.shares(100);
        assert_eq!(shares.iter().map(|s| s.1).sum::<u64>(), 100);
        assert!(shares[1].1 > shares[0].1);
    }

    #[test]
    fn specials_and_empty_messages_go_whole_to_one_kind() {
        let v = json!({"role": "system", "content": [{"type": "text", "text": "be nice"}]});
        let m = Message::new(v.as_object().unwrap());
        let shape = MessageShape::read(&m, Some(Special::SystemPrompt));
        assert_eq!(shape.shares(9), vec![(TokenKind::SystemPrompt, 9)]);
        let v = json!({"role": "user", "content": []});
        let m = Message::new(v.as_object().unwrap());
        let shape = MessageShape::read(&m, None);
        assert!(shape.parts.is_empty());
        assert_eq!(shape.shares(2), vec![(TokenKind::UserText, 2)]);
        let v = json!({"role": "tool", "content": "plain"});
        let m = Message::new(v.as_object().unwrap());
        let shape = MessageShape::read(&m, None);
        assert_eq!(shape.shares(4), vec![(TokenKind::Other, 4)]);
    }

    #[test]
    fn a_breakdown_counts_messages_parts_and_tokens() {
        let v = json!({"role": "user", "content": [
            {"type": "text", "text": "a"}, {"type": "text", "text": "b"},
            {"type": "image", "source": {"media_type": "image/png", "data": "AAAA"}}
        ]});
        let m = Message::new(v.as_object().unwrap());
        let shape = MessageShape::read(&m, None);
        let b = Breakdown::of_shapes([(&shape, 30), (&shape, 31)].into_iter());
        assert_eq!(b.total(), 61);
        let text = b.get(TokenKind::UserText);
        assert_eq!((text.messages, text.parts), (2, 4));
        assert_eq!(b.get(TokenKind::Media).parts, 2);
        assert_eq!(b.get(TokenKind::Thinking), KindTotal::default());
    }
}
