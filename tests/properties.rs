//! Properties checked on generated input (proptest; PROPTEST_CASES raises the
//! count for a long local run): parsing never panics and never accepts what
//! is not a JSON object; Python-style JSON round-trips; token counting never
//! fails on any text; both windows stay within what was asked, keep order and
//! the special messages; a fork is a well-formed context.

use loki_sessions::store::format::Meta;
use loki_sessions::store::format::pyjson::{self, PyJsonStyle};
use loki_sessions::store::format::tokens::{self, Encoding};
use loki_sessions::store::format::{Context, fork, window};
use loki_sessions::store::jsonfile;
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::path::Path;

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e300f64..1e300).prop_map(|x| json!(x)),
        "\\PC{0,20}".prop_map(Value::String),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,8}", inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A context like peteos writes: an optional system prompt, then messages
/// with increasing sequence numbers, some tool uses and results.
fn context_strategy() -> impl Strategy<Value = (Context, Vec<u64>)> {
    (any::<bool>(), prop::collection::vec((0u8..4, 1u64..500, 0usize..4), 0..40)).prop_map(|(system, specs)| {
        let mut messages = Vec::new();
        let mut counts = Vec::new();
        if system {
            messages.push(json!({"id": "sys", "_type": "SystemPromptMessage", "role": "system", "_sequence_number": 3, "content": []}));
            counts.push(50);
        }
        for (i, (kind, tokens, call)) in specs.iter().enumerate() {
            let content = match kind {
                0 => json!([{"type": "text", "text": format!("m{i}")}]),
                1 => json!([{"type": "tool_use", "call_id": format!("c{call}"), "name": "x", "arguments": ""}]),
                2 => json!([{"type": "tool_result", "call_id": format!("c{call}"), "content": "r"}]),
                _ => json!("plain string content"),
            };
            messages.push(json!({"id": format!("m{i}"), "role": "user", "_sequence_number": 4 + i, "content": content}));
            counts.push(*tokens);
        }
        let n = messages.len();
        let sp = usize::from(system);
        let raw = json!({"id": "ctx", "messages": messages, "_mutation_counter": 4 + n,
            "anchor_points": [["system_prompt", sp], ["tools", sp], ["messages", n]],
            "system_prompt_message_id": if system { json!("sys") } else { Value::Null }});
        let ctx = Context::from_raw(raw.as_object().unwrap().clone(), Path::new("ctx.json")).unwrap();
        (ctx, counts)
    })
}

proptest! {
    #[test]
    fn parsing_arbitrary_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let path = Path::new("x.json");
        if let Ok(map) = jsonfile::parse_object(path, &bytes) {
            let _ = Meta::from_raw(map.clone(), path);
            if let Ok(ctx) = Context::from_raw(map, path) {
                for m in ctx.messages() {
                    let _ = m.one_line();
                }
            }
        }
    }

    #[test]
    fn arbitrary_json_as_meta_and_context_never_panics(v in json_value()) {
        let path = Path::new("x.json");
        let Value::Object(map) = v else { return Ok(()) };
        let _ = Meta::from_raw(map.clone(), path);
        if let Ok(ctx) = Context::from_raw(map, path) {
            let _ = ctx.special_indices();
            let _ = ctx.anchor_points();
            for m in ctx.messages() {
                let _ = (m.one_line(), m.sequence(), m.cached_token_count());
                prop_assert!(tokens::effective_count(&m, Encoding::Cl100kBase).is_ok());
            }
            let counts: Vec<u64> = ctx.messages().map(|_| 1).collect();
            let _ = window::rolling_sequence_window(&ctx, 1);
            if let Some(kept) = window::rolling_token_window(&ctx, &counts, 1) {
                let _ = fork(&ctx, &kept, "child", "2026-01-01T00:00:00");
            }
        }
    }

    #[test]
    fn python_style_json_round_trips(v in json_value()) {
        let text = pyjson::dumps(&v, PyJsonStyle::TOKEN_TEXT);
        let back: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(canonical(&back), canonical(&v));
        let file = pyjson::dumps(&v, PyJsonStyle::FILE);
        prop_assert!(file.is_ascii());
        let back: Value = serde_json::from_str(&file).unwrap();
        prop_assert_eq!(canonical(&back), canonical(&v));
    }

    #[test]
    fn token_counting_takes_any_text(text in any::<String>()) {
        let n = tokens::count_text(&text, Encoding::Cl100kBase).unwrap();
        prop_assert!(n as usize <= text.len());
        prop_assert!(tokens::count_text(&text, Encoding::O200kBase).is_ok());
    }

    #[test]
    fn token_window_stays_in_budget_keeps_order_and_specials((ctx, counts) in context_strategy(), budget in 0u64..5000) {
        let specials = ctx.special_indices();
        let special_tokens: u64 = specials.iter().map(|&i| counts[i]).sum();
        match window::rolling_token_window(&ctx, &counts, budget) {
            None => prop_assert!(counts.iter().sum::<u64>() <= budget || ctx.len() == specials.len()),
            Some(kept) => {
                prop_assert!(kept.windows(2).all(|w| w[0] < w[1]), "display order kept");
                prop_assert!(specials.iter().all(|s| kept.contains(s)), "specials kept");
                let total: u64 = kept.iter().map(|&i| counts[i]).sum();
                prop_assert!(total <= budget.max(special_tokens), "within budget: {} > {}", total, budget);
                let child = fork(&ctx, &kept, "child", "2026-01-01T00:00:00").unwrap();
                check_fork(&ctx, &child, &kept)?;
            }
        }
    }

    #[test]
    fn sequence_window_never_keeps_more_than_asked((ctx, _) in context_strategy(), count in 1usize..50) {
        let specials = ctx.special_indices();
        if let Some(kept) = window::rolling_sequence_window(&ctx, count).unwrap() {
            let non_special = kept.iter().filter(|i| !specials.contains(i)).count();
            prop_assert_eq!(non_special, count);
            prop_assert!(specials.iter().all(|s| kept.contains(s)));
            prop_assert!(kept.windows(2).all(|w| w[0] < w[1]));
            // The kept ones are the newest.
            let last = ctx.len() - 1;
            prop_assert!(kept.contains(&last));
        } else {
            prop_assert!(count >= ctx.len() - specials.len());
        }
    }
}

/// A fork holds exactly the kept messages, in order, renumbered upwards, with
/// anchors sorted and ending at the message count.
fn check_fork(parent: &Context, child: &Context, kept: &[usize]) -> Result<(), TestCaseError> {
    let want: Vec<&str> = kept
        .iter()
        .map(|&i| parent.message(i).unwrap().id())
        .collect();
    let got: Vec<&str> = child.messages().map(|m| m.id()).collect();
    prop_assert_eq!(got, want);
    let seqs: Vec<i64> = child.messages().map(|m| m.sequence().unwrap()).collect();
    prop_assert!(seqs.windows(2).all(|w| w[0] < w[1]));
    let anchors = child.anchor_points().unwrap();
    prop_assert!(anchors.windows(2).all(|w| w[0].1 <= w[1].1));
    prop_assert_eq!(anchors.last().unwrap().1, child.len());
    prop_assert_eq!(
        child.special_indices().len(),
        parent.special_indices().len()
    );
    Ok(())
}

/// Numbers compared by value (Python prints 1e16 as 1e+16, -0 as 0).
fn canonical(v: &Value) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if n.to_string().contains(['.', 'e', 'E']) => json!(x),
            _ => json!(n.as_i64().map_or(n.to_string(), |i| i.to_string())),
        },
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), canonical(v))).collect())
        }
        other => other.clone(),
    }
}
