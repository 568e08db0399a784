//! peteos's rolling windows as pure functions: which messages a trim keeps.
//!
//! Both return `None` when peteos would not fork (nothing to drop), else the
//! indices (display order) of every message the fork keeps, specials included.

use crate::store::error::{Result, StoreError};
use crate::store::peteos::Context;
use std::collections::HashSet;

/// What a window keeps: indices into the parent's messages, in display order.
pub type Kept = Vec<usize>;

/// Non-special messages with a sequence number, sorted by it (stable, like Python).
fn sequenced_non_special(ctx: &Context, specials: &[usize]) -> Vec<(i64, usize)> {
    let mut entries: Vec<(i64, usize)> = ctx
        .messages()
        .enumerate()
        .filter(|(i, _)| !specials.contains(i))
        .filter_map(|(i, m)| m.sequence().map(|seq| (seq, i)))
        .collect();
    entries.sort_by_key(|(seq, _)| *seq);
    entries
}

/// `rolling_sequence_window(count)`: keep the last `count` non-special messages
/// by sequence number. As in peteos, `count == 0` selects from the first
/// sequence number, keeping all of them.
pub fn rolling_sequence_window(ctx: &Context, count: usize) -> Result<Option<Kept>> {
    let specials = ctx.special_indices();
    let non_special_count = ctx.len() - specials.len();
    if count >= non_special_count {
        return Ok(None);
    }
    let entries = sequenced_non_special(ctx, &specials);
    // Python's entries[-count]: -0 is index 0.
    let first = if count == 0 {
        Some(0)
    } else {
        entries.len().checked_sub(count)
    };
    let Some(first) = first.filter(|&i| i < entries.len()) else {
        return Err(StoreError::shape(
            ctx.path(),
            format!(
                "only {} of {non_special_count} messages have a _sequence_number; cannot keep the last {count}",
                entries.len()
            ),
        ));
    };
    Ok(Some(with_specials(
        newest_from(ctx, &entries, first),
        &specials,
    )))
}

/// The entries from `first` on, among those below the mutation counter.
///
/// peteos selects by sequence range (`seq >= entries[first].seq`), which is
/// the same set when sequence numbers are unique, as peteos writes them. On
/// damaged data with repeated numbers the range could take more messages
/// than were counted; taking the entries themselves keeps a trim within
/// what was asked.
fn newest_from<'a>(
    ctx: &Context,
    entries: &'a [(i64, usize)],
    first: usize,
) -> impl Iterator<Item = usize> + 'a {
    let hi = ctx.mutation_counter();
    entries[first..]
        .iter()
        .filter(move |(seq, _)| *seq < hi)
        .map(|(_, i)| *i)
}

/// `rolling_token_window(max_tokens)`: keep the newest non-special messages
/// whose tokens, added to the specials', stay within `max_tokens`; then drop
/// tool results whose call has no earlier kept tool use (in sequence order).
/// `counts[i]` is the token count of message `i` in the encoding in use.
pub fn rolling_token_window(ctx: &Context, counts: &[u64], max_tokens: u64) -> Option<Kept> {
    let specials = ctx.special_indices();
    let entries = sequenced_non_special(ctx, &specials);
    if entries.is_empty() {
        return None;
    }
    let special_tokens: u64 = specials.iter().map(|&i| counts[i]).sum();
    let total = special_tokens + entries.iter().map(|(_, i)| counts[*i]).sum::<u64>();
    if total <= max_tokens {
        return None;
    }
    let mut running = special_tokens;
    let mut kept = 0;
    for (_, i) in entries.iter().rev() {
        if running + counts[*i] > max_tokens {
            break;
        }
        running += counts[*i];
        kept += 1;
    }
    let first = entries.len() - kept;
    let selected: Vec<(i64, usize)> = newest_from(ctx, &entries, first)
        .map(|i| (ctx.message(i).and_then(|m| m.sequence()).unwrap_or(0), i))
        .collect();
    let selected = strip_dangling_tool_results(ctx, selected);
    Some(with_specials(selected.into_iter(), &specials))
}

/// Drops messages holding a tool result whose call id has no tool use earlier
/// among the kept messages. `selected` is in sequence order.
fn strip_dangling_tool_results(ctx: &Context, selected: Vec<(i64, usize)>) -> Vec<usize> {
    let mut open_calls: HashSet<Option<String>> = HashSet::new();
    let mut kept = Vec::with_capacity(selected.len());
    for (_, index) in selected {
        let Some(message) = ctx.message(index) else {
            continue;
        };
        let parts = message.parts();
        let mut dangling = false;
        for part in &parts {
            if let Some(key) = part.tool_use_key() {
                open_calls.insert(key);
            } else if let Some(key) = part.tool_result_key() {
                dangling |= !open_calls.contains(&key);
            }
        }
        if dangling {
            continue;
        }
        for key in parts.iter().filter_map(|p| p.tool_result_key()) {
            open_calls.remove(&key);
        }
        kept.push(index);
    }
    kept
}

fn with_specials(selected: impl Iterator<Item = usize>, specials: &[usize]) -> Kept {
    let mut kept: Kept = selected.chain(specials.iter().copied()).collect();
    kept.sort_unstable();
    kept.dedup();
    kept
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
