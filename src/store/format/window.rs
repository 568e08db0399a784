//! peteos's rolling windows as pure functions: which messages a trim keeps.
//!
//! Both return `None` when peteos would not fork (nothing to drop), else the
//! indices (display order) of every message the fork keeps, specials included.
//! What the windows need from a context is read once into a [`WindowFacts`],
//! so the viewer can re-plan a trim at every key without touching the JSON.

use crate::store::error::{Result, StoreError};
use crate::store::format::Context;
use std::collections::HashSet;
use std::path::PathBuf;

/// What a window keeps: indices into the parent's messages, in display order.
pub type Kept = Vec<usize>;

/// A tool call or result in a message, by call id (None: missing or null).
#[derive(Clone, Debug, PartialEq, Eq)]
enum ToolEvent {
    Use(Option<String>),
    Result(Option<String>),
}

/// The facts of a context the windows use.
#[derive(Clone, Debug)]
pub struct WindowFacts {
    len: usize,
    specials: Vec<usize>,
    /// Non-special messages with a sequence number: (seq, index), sorted by
    /// seq (stably, like Python's sort).
    entries: Vec<(i64, usize)>,
    mutation_counter: i64,
    /// Tool parts of each message, in part order (empty for most).
    tools: Vec<Vec<ToolEvent>>,
    path: PathBuf,
}

impl WindowFacts {
    /// Reads what the windows need from `ctx`.
    pub fn new(ctx: &Context) -> Self {
        let specials = ctx.special_indices();
        let mut entries: Vec<(i64, usize)> = ctx
            .messages()
            .enumerate()
            .filter(|(i, _)| !specials.contains(i))
            .filter_map(|(i, m)| m.sequence().map(|seq| (seq, i)))
            .collect();
        entries.sort_by_key(|(seq, _)| *seq);
        let tools = ctx
            .messages()
            .map(|m| {
                m.parts()
                    .iter()
                    .filter_map(|p| {
                        p.tool_use_key()
                            .map(ToolEvent::Use)
                            .or_else(|| p.tool_result_key().map(ToolEvent::Result))
                    })
                    .collect()
            })
            .collect();
        WindowFacts {
            len: ctx.len(),
            specials,
            entries,
            mutation_counter: ctx.mutation_counter(),
            tools,
            path: ctx.path().to_path_buf(),
        }
    }

    /// Number of messages of the context.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the context holds no message.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Indices of the special messages.
    pub fn specials(&self) -> &[usize] {
        &self.specials
    }

    /// The tool parts of message `index`, in part order: the call id (None
    /// when missing or null) and whether the part is a result (else a call).
    pub fn tool_parts(&self, index: usize) -> impl Iterator<Item = (&Option<String>, bool)> + '_ {
        self.tools[index].iter().map(|event| match event {
            ToolEvent::Use(key) => (key, false),
            ToolEvent::Result(key) => (key, true),
        })
    }

    /// `rolling_sequence_window(count)`: keep the last `count` non-special
    /// messages by sequence number. As in peteos, `count == 0` selects from
    /// the first sequence number, keeping all of them.
    pub fn sequence_window(&self, count: usize) -> Result<Option<Kept>> {
        let non_special_count = self.len - self.specials.len();
        if count >= non_special_count {
            return Ok(None);
        }
        // Python's entries[-count]: -0 is index 0.
        let first = if count == 0 {
            Some(0)
        } else {
            self.entries.len().checked_sub(count)
        };
        let Some(first) = first.filter(|&i| i < self.entries.len()) else {
            return Err(StoreError::shape(
                &self.path,
                format!(
                    "only {} of {non_special_count} messages have a _sequence_number; cannot keep the last {count}",
                    self.entries.len()
                ),
            ));
        };
        let selected = self.newest_from(first).map(|(_, i)| i);
        Ok(Some(self.with_specials(selected)))
    }

    /// `rolling_token_window(max_tokens)`: keep the newest non-special
    /// messages whose tokens, added to the specials', stay within
    /// `max_tokens`; then drop tool results whose call has no earlier kept
    /// tool use (in sequence order). `counts[i]` is message `i`'s count.
    pub fn token_window(&self, counts: &[u64], max_tokens: u64) -> Option<Kept> {
        if self.entries.is_empty() {
            return None;
        }
        let special_tokens: u64 = self.specials.iter().map(|&i| counts[i]).sum();
        let total = special_tokens + self.entries.iter().map(|(_, i)| counts[*i]).sum::<u64>();
        if total <= max_tokens {
            return None;
        }
        let mut running = special_tokens;
        let mut kept = 0;
        for (_, i) in self.entries.iter().rev() {
            if running + counts[*i] > max_tokens {
                break;
            }
            running += counts[*i];
            kept += 1;
        }
        let selected = self.newest_from(self.entries.len() - kept);
        let selected = self.strip_dangling_tool_results(selected);
        Some(self.with_specials(selected.into_iter()))
    }

    /// The entries from `first` on, among those below the mutation counter.
    ///
    /// peteos selects by sequence range (`seq >= entries[first].seq`), which
    /// is the same set when sequence numbers are unique, as peteos writes
    /// them. On damaged data with repeated numbers the range could take more
    /// messages than were counted; taking the entries themselves keeps a trim
    /// within what was asked.
    fn newest_from(&self, first: usize) -> impl Iterator<Item = (i64, usize)> + '_ {
        let hi = self.mutation_counter;
        self.entries[first..]
            .iter()
            .copied()
            .filter(move |(seq, _)| *seq < hi)
    }

    /// Drops messages holding a tool result whose call id has no tool use
    /// earlier among the kept messages; `selected` is in sequence order.
    fn strip_dangling_tool_results(
        &self,
        selected: impl Iterator<Item = (i64, usize)>,
    ) -> Vec<usize> {
        let mut open_calls: HashSet<&Option<String>> = HashSet::new();
        let mut kept = Vec::new();
        for (_, index) in selected {
            let events = &self.tools[index];
            let mut dangling = false;
            for event in events {
                match event {
                    ToolEvent::Use(key) => {
                        open_calls.insert(key);
                    }
                    ToolEvent::Result(key) => dangling |= !open_calls.contains(key),
                }
            }
            if dangling {
                continue;
            }
            for event in events {
                if let ToolEvent::Result(key) = event {
                    open_calls.remove(key);
                }
            }
            kept.push(index);
        }
        kept
    }

    /// Tokens of the special messages (system prompt, tool definitions):
    /// what every window keeps, so no budget below it can be met.
    pub fn fixed_tokens(&self, counts: &[u64]) -> u64 {
        self.specials.iter().map(|&i| counts[i]).sum()
    }

    /// How many of the `kept` messages (display order) hold a tool result
    /// whose call is not among the kept messages before it: what a
    /// sequence window can leave, as peteos's does.
    pub fn dangling_results(&self, kept: &[usize]) -> usize {
        let mut calls: HashSet<&Option<String>> = HashSet::new();
        let mut dangling = 0;
        for &index in kept {
            let mut this = false;
            for event in &self.tools[index] {
                match event {
                    ToolEvent::Use(key) => {
                        calls.insert(key);
                    }
                    ToolEvent::Result(key) => this |= !calls.contains(key),
                }
            }
            dangling += usize::from(this);
        }
        dangling
    }

    fn with_specials(&self, selected: impl Iterator<Item = usize>) -> Kept {
        let mut kept: Kept = selected.chain(self.specials.iter().copied()).collect();
        kept.sort_unstable();
        kept.dedup();
        kept
    }
}

/// `rolling_sequence_window(count)` on a context (see [`WindowFacts::sequence_window`]).
pub fn rolling_sequence_window(ctx: &Context, count: usize) -> Result<Option<Kept>> {
    WindowFacts::new(ctx).sequence_window(count)
}

/// `rolling_token_window(max_tokens)` on a context (see [`WindowFacts::token_window`]).
pub fn rolling_token_window(ctx: &Context, counts: &[u64], max_tokens: u64) -> Option<Kept> {
    WindowFacts::new(ctx).token_window(counts, max_tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use std::path::Path;

    fn ctx(messages: Vec<Value>) -> Context {
        let n = messages.len();
        let v = json!({"messages": messages, "_mutation_counter": n as i64 + 3,
            "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", n]]});
        Context::from_raw(v.as_object().unwrap().clone(), Path::new("c.json")).unwrap()
    }

    fn m(seq: i64, parts: Value) -> Value {
        json!({"role": "user", "id": format!("m{seq}"), "_sequence_number": seq, "content": parts})
    }

    #[test]
    fn sequence_window_keeps_the_last_count() {
        let c = ctx((3..8).map(|s| m(s, json!([]))).collect());
        assert_eq!(rolling_sequence_window(&c, 2).unwrap(), Some(vec![3, 4]));
        assert_eq!(rolling_sequence_window(&c, 5).unwrap(), None);
        assert_eq!(
            rolling_sequence_window(&c, 0).unwrap(),
            Some(vec![0, 1, 2, 3, 4])
        );
    }

    #[test]
    fn token_window_fits_the_budget_from_the_end() {
        let c = ctx((3..8).map(|s| m(s, json!([]))).collect());
        let counts = [10, 10, 10, 10, 10];
        assert_eq!(rolling_token_window(&c, &counts, 50), None);
        assert_eq!(rolling_token_window(&c, &counts, 29), Some(vec![3, 4]));
        assert_eq!(rolling_token_window(&c, &counts, 5), Some(vec![]));
    }

    #[test]
    fn repeated_sequence_numbers_never_take_more_than_counted() {
        // Found by the fuzzer: peteos's sequence range would keep 4 here.
        let c = ctx(vec![
            m(3, json!([])),
            m(4, json!([])),
            m(4, json!([])),
            m(5, json!([])),
        ]);
        let counts = [10, 10, 10, 10];
        let kept = rolling_token_window(&c, &counts, 25).unwrap();
        assert_eq!(kept.len(), 2);
        assert_eq!(rolling_sequence_window(&c, 2).unwrap(), Some(vec![2, 3]));
    }

    #[test]
    fn dangling_tool_results_are_dropped_in_sequence_order() {
        let c = ctx(vec![
            m(
                3,
                json!([{"type": "tool_use", "call_id": "a", "name": "x", "arguments": ""}]),
            ),
            m(
                4,
                json!([{"type": "tool_result", "call_id": "a", "content": ""}]),
            ),
            m(
                5,
                json!([{"type": "tool_use", "call_id": "b", "name": "x", "arguments": ""}]),
            ),
            m(
                6,
                json!([{"type": "tool_result", "call_id": "b", "content": ""}]),
            ),
            m(
                7,
                json!([{"type": "tool_result", "call_id": "b", "content": "again"}]),
            ),
        ]);
        let counts = [100, 1, 1, 1, 1];
        // Budget drops the first tool use, so its result dangles; the second
        // result of "b" dangles because the first one consumed the call.
        assert_eq!(rolling_token_window(&c, &counts, 10), Some(vec![2, 3]));
    }
}
