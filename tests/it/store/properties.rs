//! Properties checked on generated input (proptest; PROPTEST_CASES raises the
//! count for a long local run): near-valid meta.json and context documents
//! (the real keys with right or wrong types, missing and extra fields, real
//! message lists) are accepted exactly when valid, rejected with an error
//! naming the file and the field, and keep unknown fields through a write;
//! only JSON objects are accepted; parsing damaged documents (a fifth of
//! which still parse) never panics and what parses is written back as it
//! was read; Python-style
//! JSON round-trips; token counting never fails on any text; both windows
//! stay within what was asked, keep order and the special messages; a fork
//! is a well-formed context; drops never split a tool pair, clears keep the
//! conversation's shape, the token breakdown adds up (properties/edits.rs).

use loki_sessions::store::format::Meta;
use loki_sessions::store::format::pyjson::{self, PyJsonStyle};
use loki_sessions::store::format::tokens::{self, Encoding};
use loki_sessions::store::format::{Context, fork, window};
use loki_sessions::store::jsonfile;
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::path::Path;

mod documents;
mod edits;

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

/// A document as damage leaves it: a valid meta.json or context with one
/// or two bytes replaced, removed or added, cut short, or a span repeated;
/// sometimes behind a BOM; now and then bytes at random. About a fifth
/// still parse (`generators_make_valid_and_invalid_documents` checks it),
/// so both branches are exercised.
fn damaged_document() -> impl Strategy<Value = Vec<u8>> {
    let source = prop_oneof![
        documents::meta().prop_map(|d| Value::Object(d.raw)),
        documents::context().prop_map(|d| Value::Object(d.raw)),
    ];
    let text = (source, any::<bool>()).prop_map(|(v, pretty)| match pretty {
        true => serde_json::to_vec_pretty(&v).unwrap(),
        false => serde_json::to_vec(&v).unwrap(),
    });
    let significant = prop::sample::select(b"{}[]\",:0e-\\ \n\t\xff\xc3\x00atn".to_vec());
    let edit = (
        0u8..5,
        any::<prop::sample::Index>(),
        significant,
        1usize..12,
    );
    let damaged = (text, prop::collection::vec(edit, 1..3), any::<bool>()).prop_map(
        |(mut bytes, edits, bom)| {
            for (kind, at, byte, len) in edits {
                if bytes.is_empty() {
                    break;
                }
                let i = at.index(bytes.len());
                match kind {
                    0..=2 => bytes[i] = byte,
                    3 | 4 => {
                        bytes.remove(i);
                    }
                    5 | 6 => bytes.insert(i, byte),
                    7 if len % 2 == 0 => bytes.truncate(i.max(bytes.len() * 9 / 10)),
                    _ => {
                        let end = (i + len).min(bytes.len());
                        let span = bytes[i..end].to_vec();
                        bytes.splice(i..i, span);
                    }
                }
            }
            if bom {
                bytes.splice(0..0, *b"\xEF\xBB\xBF");
            }
            bytes
        },
    );
    prop_oneof![
        3 => damaged,
        1 => prop::collection::vec(any::<u8>(), 0..300),
    ]
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
    fn parsing_damaged_documents_never_panics_or_takes_a_non_object(bytes in damaged_document()) {
        let path = Path::new("/store/x.json");
        match jsonfile::parse_object(path, &bytes) {
            Ok(map) => {
                let text = String::from_utf8_lossy(&bytes);
                let start = text.trim_start_matches(['\u{feff}', ' ', '\t', '\n', '\r']);
                prop_assert!(start.starts_with('{'), "accepted a non-object: {:?}", text);
                // What was accepted is written back and read again as it was.
                let again = jsonfile::parse_object(path, jsonfile::render(&map).as_bytes()).unwrap();
                prop_assert_eq!(canonical(&Value::Object(again)), canonical(&Value::Object(map.clone())));
                if let Err(e) = Meta::from_raw(map.clone(), path) {
                    prop_assert!(e.to_string().contains("/store/x.json"), "{}", e);
                }
                match Context::from_raw(map, path) {
                    Ok(ctx) => {
                        for m in ctx.messages() {
                            let _ = m.one_line();
                        }
                    }
                    Err(e) => prop_assert!(e.to_string().contains("/store/x.json"), "{}", e),
                }
            }
            Err(e) => prop_assert!(e.to_string().contains("/store/x.json"), "{}", e),
        }
    }

    #[test]
    fn only_json_objects_are_accepted(v in json_value()) {
        let bytes = serde_json::to_vec(&v).unwrap();
        match jsonfile::parse_object(Path::new("/store/x.json"), &bytes) {
            Ok(map) => prop_assert_eq!(Value::Object(map), v),
            Err(e) => {
                prop_assert!(!v.is_object());
                let e = e.to_string();
                prop_assert!(e.contains("/store/x.json") && e.contains("expected a JSON object"), "{}", e);
            }
        }
    }

    #[test]
    fn meta_documents_are_accepted_exactly_when_valid(doc in documents::meta()) {
        let path = Path::new("/store/s/meta.json");
        match (Meta::from_raw(doc.raw.clone(), path), doc.bad.is_empty()) {
            (Ok(meta), true) => {
                prop_assert_eq!(meta.last_used_at(), doc.raw["last_used_at"].as_f64().unwrap());
                // A write keeps every field, in order; a touch changes only last_used_at.
                let mut touched = meta.clone();
                touched.touch(1.5e9);
                let back = jsonfile::parse_object(path, jsonfile::render(touched.raw_dict()).as_bytes()).unwrap();
                prop_assert!(back.keys().eq(doc.raw.keys()), "key order kept");
                for (key, value) in &doc.raw {
                    let want = if key == "last_used_at" { json!(1.5e9) } else { value.clone() };
                    prop_assert_eq!(canonical(&back[key]), canonical(&want), "{}", key);
                }
            }
            (Err(e), false) => {
                let e = e.to_string();
                prop_assert!(e.contains("/store/s/meta.json"), "names the file: {}", e);
                prop_assert!(doc.bad.iter().any(|k| e.contains(&format!("{k:?}"))), "names the field: {} (bad: {:?})", e, doc.bad);
            }
            (result, _) => prop_assert!(false, "{:?} for {:?} (bad: {:?})", result.map(|_| ()), doc.raw, doc.bad),
        }
    }

    #[test]
    fn context_documents_are_accepted_exactly_when_valid(doc in documents::context()) {
        let path = Path::new("/store/s/memory/ctx.json");
        match (Context::from_raw(doc.raw.clone(), path), doc.bad) {
            (Ok(ctx), None) => {
                let ids: Vec<&str> = ctx.messages().map(|m| m.id()).collect();
                prop_assert_eq!(ids, doc.ids.iter().map(String::as_str).collect::<Vec<_>>());
                for m in ctx.messages() {
                    prop_assert!(tokens::effective_count(&m, Encoding::Cl100kBase).is_ok());
                }
                // Written and read back, the document is the same, unknown fields included.
                let text = jsonfile::render(ctx.raw_dict());
                let back = Context::from_raw(jsonfile::parse_object(path, text.as_bytes()).unwrap(), path).unwrap();
                prop_assert_eq!(canonical(&Value::Object(back.into_raw())), canonical(&Value::Object(doc.raw.clone())));
                // A fork keeping the last message keeps its unknown fields.
                if let Some(last) = ctx.len().checked_sub(1) {
                    let child = fork(&ctx, &[last], "child", "2026-01-01T00:00:00").unwrap();
                    let copied = child.message(child.len() - 1).unwrap();
                    let original = ctx.message(last).unwrap();
                    for (key, value) in original.raw().iter().filter(|(k, _)| k.starts_with("x_")) {
                        prop_assert_eq!(&copied.raw()[key], value);
                    }
                }
            }
            (Err(e), Some(what)) => {
                let e = e.to_string();
                prop_assert!(e.contains("/store/s/memory/ctx.json") && e.contains(&what), "{} (want {})", e, what);
            }
            (result, bad) => prop_assert!(false, "{:?} for {:?} (bad: {:?})", result.map(|_| ()), doc.raw, bad),
        }
    }

    #[test]
    fn python_style_json_round_trips(v in json_value()) {
        let text = pyjson::dumps(&v, PyJsonStyle::TOKEN_TEXT);
        prop_assert_eq!(pyjson::token_text_len(&v), text.len());
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

/// The generators make both outcomes, and every kind of damage: otherwise
/// the properties above would test one branch only.
#[test]
fn generators_make_valid_and_invalid_documents() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let metas: Vec<documents::MetaDoc> = (0..400)
        .map(|_| documents::meta().new_tree(&mut runner).unwrap().current())
        .collect();
    let valid = metas.iter().filter(|d| d.bad.is_empty()).count();
    assert!((80..320).contains(&valid), "{valid} of 400 metas valid");
    for key in ["id", "first_prompt", "created_at", "last_used_at"] {
        assert!(metas.iter().any(|d| d.bad == [key]), "{key} alone wrong");
    }
    let contexts: Vec<documents::ContextDoc> = (0..400)
        .map(|_| {
            documents::context()
                .new_tree(&mut runner)
                .unwrap()
                .current()
        })
        .collect();
    let valid = contexts.iter().filter(|d| d.bad.is_none()).count();
    assert!((80..320).contains(&valid), "{valid} of 400 contexts valid");
    let bad = |text: &str| {
        contexts
            .iter()
            .any(|d| d.bad.as_deref().is_some_and(|b| b.starts_with(text)))
    };
    assert!(bad("\"messages\" is") && bad("message #"));
    // Damaged documents: both outcomes, often.
    let path = Path::new("x.json");
    let parsed = (0..400)
        .filter(|_| {
            let bytes = damaged_document().new_tree(&mut runner).unwrap().current();
            jsonfile::parse_object(path, &bytes).is_ok()
        })
        .count();
    eprintln!("{parsed} of 400 damaged documents parse");
    assert!(
        (40..360).contains(&parsed),
        "{parsed} of 400 damaged documents parse"
    );
    assert!(contexts.iter().any(|d| !d.raw.contains_key("messages")));
    assert!(contexts.iter().any(|d| d.bad.is_none() && d.ids.len() > 5));
}

/// Under CI (`CI` set, and not "", "0" or "false") every property runs its
/// documented 256 cases: PROPTEST_CASES is refused.
#[test]
fn ci_runs_the_documented_cases() {
    let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"));
    assert!(
        !(ci && std::env::var_os("PROPTEST_CASES").is_some()),
        "PROPTEST_CASES is set under CI: it changes how many cases each property checks"
    );
}
