//! What edits by hand (drops and clears) and the token breakdown need of a
//! context, read once: ids, special messages, each message's parts with
//! their weights, which tool results can be cleared, where turns start and
//! which messages hold the two halves of each tool call. The viewer keeps
//! one and plans again at every key without touching the JSON.

use crate::store::error::{Result, StoreError};
use crate::store::format::Context;
use crate::store::format::breakdown::{Breakdown, MessageShape, TokenKind};
use crate::store::format::clear;
use crate::store::format::media;
use crate::store::format::message::{self, Special};
use crate::store::format::window::WindowFacts;
use std::collections::HashMap;
use std::path::PathBuf;

/// A message holding the other half of a tool pair of another message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partner {
    /// Index of the partner message.
    pub index: usize,
    /// The call id the two share (None: missing or null, which peteos
    /// treats as one id).
    pub call_id: Option<String>,
    /// True when the partner holds the result (the other message the call).
    pub is_result: bool,
}

/// The messages holding calls and results of one call id.
#[derive(Clone, Debug, Default)]
struct CallSides {
    uses: Vec<usize>,
    results: Vec<usize>,
}

/// The facts of a context that drops, clears and the breakdown use.
#[derive(Clone, Debug)]
pub struct EditFacts {
    window: WindowFacts,
    ids: Vec<String>,
    special: Vec<Option<Special>>,
    shapes: Vec<MessageShape>,
    /// Per message: positions of the tool results that can be cleared.
    clearable: Vec<Vec<usize>>,
    /// Per message: positions of its media parts (images, documents).
    media: Vec<Vec<usize>>,
    /// Messages that start a turn: a person's prompt.
    turn_starts: Vec<usize>,
    calls: HashMap<Option<String>, CallSides>,
    path: PathBuf,
}

impl EditFacts {
    /// Reads what edits need from `ctx` (one pass, no tokenizing).
    pub fn new(ctx: &Context) -> Self {
        let window = WindowFacts::new(ctx);
        let mut special = vec![None; ctx.len()];
        for &i in window.specials() {
            special[i] = ctx.special_at(i);
        }
        let messages: Vec<_> = ctx.messages().enumerate().collect();
        // Weighing the parts walks every byte of the content (a 100 MB
        // session's in a fork): on all cores.
        let shapes = crate::store::parallel::map_ordered(&messages, |(i, message)| {
            MessageShape::read(message, special[*i])
        });
        let mut ids = Vec::with_capacity(ctx.len());
        let mut clearable = Vec::with_capacity(ctx.len());
        let mut media = Vec::with_capacity(ctx.len());
        let mut turn_starts = Vec::new();
        for (i, message) in messages {
            ids.push(message.id().to_string());
            let shape = &shapes[i];
            let ordinary = special[i].is_none();
            clearable.push(if ordinary {
                clear::clearable_parts(&message)
            } else {
                Vec::new()
            });
            media.push(if ordinary {
                media::media_parts(&message)
            } else {
                Vec::new()
            });
            // A user message's text parts are user text (its role says so).
            if ordinary && shape.parts.iter().any(|p| p.kind == TokenKind::UserText) {
                turn_starts.push(i);
            }
        }
        let mut calls: HashMap<Option<String>, CallSides> = HashMap::new();
        for i in 0..ctx.len() {
            for (key, is_result) in window.tool_parts(i) {
                let sides = calls.entry(key.clone()).or_default();
                let list = if is_result {
                    &mut sides.results
                } else {
                    &mut sides.uses
                };
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
        EditFacts {
            window,
            ids,
            special,
            shapes,
            clearable,
            media,
            turn_starts,
            calls,
            path: ctx.path().to_path_buf(),
        }
    }

    /// The window facts of the same context (for window trims).
    pub fn window(&self) -> &WindowFacts {
        &self.window
    }

    /// Number of messages.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the context holds no message.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The id of message `index`.
    pub fn id(&self, index: usize) -> &str {
        &self.ids[index]
    }

    /// The special role of message `index`, if any.
    pub fn special(&self, index: usize) -> Option<Special> {
        self.special[index]
    }

    /// The parts of message `index` as the breakdown weighs them.
    pub fn shape(&self, index: usize) -> &MessageShape {
        &self.shapes[index]
    }

    /// The message `arg` names: its id, or a unique prefix of one.
    pub fn resolve(&self, arg: &str) -> Result<usize> {
        if arg.is_empty() {
            return Err(StoreError::Invalid("a message argument is empty".into()));
        }
        // A scan, not a map: ids are resolved a few at a time (the viewer
        // plans on indices), and a map of 10,000 ids costs more to build.
        if let Some(i) = self.ids.iter().position(|id| id == arg) {
            return Ok(i);
        }
        let matches: Vec<usize> = (0..self.len())
            .filter(|&i| self.ids[i].starts_with(arg))
            .collect();
        message::the_one_match(arg, &matches, &self.path)
    }

    /// Where the tokens go, from each message's count (`counts[i]` for
    /// message `i`): no tokenizing, only the weights read at [`EditFacts::new`].
    pub fn breakdown(&self, counts: &[u64]) -> Breakdown {
        Breakdown::of_shapes(self.shapes.iter().zip(counts.iter().copied()))
    }

    /// Message `index`'s `count` split among its parts.
    pub fn shares(&self, index: usize, count: u64) -> Vec<(TokenKind, u64)> {
        self.shapes[index].shares(count)
    }

    /// Positions of the tool results of message `index` that can be
    /// cleared (not special, not a placeholder already).
    pub fn clearable(&self, index: usize) -> &[usize] {
        &self.clearable[index]
    }

    /// Positions of the media parts (images, documents) of message
    /// `index`, if it is not special.
    pub fn media(&self, index: usize) -> &[usize] {
        &self.media[index]
    }

    /// Every message holding a tool result that can be cleared.
    pub fn clearable_messages(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).filter(|&i| !self.clearable[i].is_empty())
    }

    /// The clearable tool results of message `index` with the tokens each
    /// holds (its share of `count`): what their placeholders state.
    pub fn result_shares(&self, index: usize, count: u64) -> Vec<(usize, u64)> {
        let positions = &self.clearable[index];
        if positions.is_empty() {
            return Vec::new();
        }
        let shares = self.shares(index, count);
        positions.iter().map(|&p| (p, shares[p].1)).collect()
    }

    /// Indices of the messages that start a turn: ordinary `user` messages
    /// with text (a tool result alone does not start one).
    pub fn turn_starts(&self) -> &[usize] {
        &self.turn_starts
    }

    /// The messages holding the other half of a tool pair of message
    /// `index`: the results of its calls and the calls of its results.
    pub fn partners(&self, index: usize) -> Vec<Partner> {
        let mut out: Vec<Partner> = Vec::new();
        for (key, is_result) in self.window.tool_parts(index) {
            let Some(sides) = self.calls.get(key) else {
                continue;
            };
            let other = if is_result {
                &sides.uses
            } else {
                &sides.results
            };
            for &j in other {
                if j != index && !out.iter().any(|p| p.index == j) {
                    out.push(Partner {
                        index: j,
                        call_id: key.clone(),
                        is_result: !is_result,
                    });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use std::path::Path;

    fn ctx(messages: Vec<Value>) -> Context {
        let n = messages.len();
        let v = json!({"messages": messages, "_mutation_counter": n as i64 + 3,
            "system_prompt_message_id": "sys",
            "anchor_points": [["system_prompt", 1], ["tools", 1], ["messages", n]]});
        Context::from_raw(v.as_object().unwrap().clone(), Path::new("c.json")).unwrap()
    }

    fn conversation() -> Context {
        ctx(vec![
            json!({"id": "sys", "_type": "SystemPromptMessage", "role": "system",
                   "content": [{"type": "text", "text": "rules"}], "_sequence_number": 3}),
            json!({"id": "u1", "role": "user", "content": [{"type": "text", "text": "do it"}], "_sequence_number": 4}),
            json!({"id": "a1", "role": "assistant", "_sequence_number": 5, "content": [
                {"type": "tool_use", "call_id": "k1", "name": "bash", "arguments": "{}"},
                {"type": "tool_use", "call_id": "k2", "name": "bash", "arguments": "{}"}]}),
            json!({"id": "t1", "role": "tool", "_sequence_number": 6,
                   "content": [{"type": "tool_result", "call_id": "k1", "content": "out"}]}),
            json!({"id": "t2", "role": "tool", "_sequence_number": 7,
                   "content": [{"type": "tool_result", "call_id": "k2", "content": "[tool result cleared: 5 tokens]"}]}),
            json!({"id": "u2", "role": "user", "content": "next", "_sequence_number": 8}),
        ])
    }

    #[test]
    fn partners_are_the_other_halves_of_each_call() {
        let index = EditFacts::new(&conversation());
        let of = |i| {
            index
                .partners(i)
                .into_iter()
                .map(|p| (p.index, p.call_id, p.is_result))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            of(2),
            vec![(3, Some("k1".into()), true), (4, Some("k2".into()), true)]
        );
        assert_eq!(of(3), vec![(2, Some("k1".into()), false)]);
        assert!(of(1).is_empty());
    }

    #[test]
    fn ids_turns_specials_and_clearable_results() {
        let index = EditFacts::new(&conversation());
        assert_eq!(index.special(0), Some(Special::SystemPrompt));
        assert_eq!(index.resolve("t1").unwrap(), 3);
        assert_eq!(index.resolve("a").unwrap(), 2);
        assert!(
            index
                .resolve("u")
                .unwrap_err()
                .to_string()
                .contains("2 messages")
        );
        assert!(index.resolve("zz").unwrap_err().is_not_found());
        assert_eq!(index.turn_starts(), &[1, 5], "string content is text too");
        assert_eq!(index.clearable_messages().collect::<Vec<_>>(), vec![3]);
        assert_eq!(index.result_shares(3, 20), vec![(0, 20)]);
        let b = index.breakdown(&[10, 5, 30, 20, 8, 3]);
        assert_eq!(b.total(), 76);
        assert_eq!(b.get(TokenKind::SystemPrompt).tokens, 10);
        assert_eq!(b.get(TokenKind::ToolCalls).tokens, 30);
        assert_eq!(b.get(TokenKind::ToolResults).tokens, 28);
        assert_eq!(b.get(TokenKind::UserText).tokens, 8);
    }
}
