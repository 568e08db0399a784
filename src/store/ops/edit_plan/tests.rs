use super::*;
use crate::store::format::Context;
use serde_json::{Value, json};
use std::path::Path;

/// sys, tools, u1, a1 (calls k1 k2), t1 (result k1), t2 (result k2),
/// a2 (text), u2, a3 (call k3), t3 (result k3), a4 (call k4, pending).
fn conversation() -> Context {
    let call = |id: &str, seq: i64, keys: &[&str]| {
        let parts: Vec<Value> = keys
            .iter()
            .map(|k| json!({"type": "tool_use", "call_id": k, "name": "bash", "arguments": "{}"}))
            .collect();
        json!({"id": id, "role": "assistant", "_sequence_number": seq, "content": parts})
    };
    let result = |id: &str, seq: i64, key: &str, text: &str| {
        json!({"id": id, "role": "tool", "_sequence_number": seq,
               "content": [{"type": "tool_result", "call_id": key, "content": text}]})
    };
    let text = |id: &str, role: &str, seq: i64| {
        json!({"id": id, "role": role, "_sequence_number": seq,
               "content": [{"type": "text", "text": format!("text of {id}")}]})
    };
    let messages = vec![
        json!({"id": "sys", "_type": "SystemPromptMessage", "role": "system", "content": [], "_sequence_number": 3}),
        json!({"id": "tools", "_type": "ToolDefinitionsMessage", "role": "tool", "content": [], "_sequence_number": 4}),
        text("u1", "user", 5),
        call("a1", 6, &["k1", "k2"]),
        result("t1", 7, "k1", &"x".repeat(400)),
        result("t2", 8, "k2", "ok"),
        text("a2", "assistant", 9),
        text("u2", "user", 10),
        call("a3", 11, &["k3"]),
        result("t3", 12, "k3", &"y".repeat(400)),
        call("a4", 13, &["k4"]),
    ];
    let n = messages.len();
    let v = json!({"messages": messages, "_mutation_counter": 14,
        "system_prompt_message_id": "sys", "tool_definitions_message_id": "tools",
        "anchor_points": [["system_prompt", 1], ["tools", 2], ["messages", n]]});
    Context::from_raw(v.as_object().unwrap().clone(), Path::new("c.json")).unwrap()
}

const COUNTS: [u64; 11] = [50, 40, 10, 20, 300, 8, 12, 10, 15, 310, 9];

fn ids(index: &EditFacts, indices: &[usize]) -> Vec<String> {
    indices.iter().map(|&i| index.id(i).to_string()).collect()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn dropping_a_call_takes_its_results_and_says_why() {
    let index = EditFacts::new(&conversation());
    let plan = plan_drop(&index, &COUNTS, &strings(&["t1"]), true).unwrap();
    assert!(plan.changed);
    assert_eq!(ids(&index, &plan.asked), ["t1"]);
    // t1's call is in a1, which also holds k2, whose result is t2.
    assert_eq!(ids(&index, &plan.dropped), ["a1", "t1", "t2"]);
    let why: Vec<String> = plan.partners.iter().map(|p| p.reason(&index)).collect();
    assert_eq!(
        why,
        [
            "the tool call k1, whose result (message t1) is dropped",
            "the tool result of call k2, whose call (message a1) is dropped"
        ]
    );
    assert_eq!(plan.tokens_before, COUNTS.iter().sum::<u64>());
    assert_eq!(plan.tokens_after, plan.tokens_before - 20 - 300 - 8);
    assert_eq!(plan.kept.len() + plan.dropped.len(), COUNTS.len());
}

#[test]
fn without_pairs_a_split_is_refused_naming_the_partner() {
    let index = EditFacts::new(&conversation());
    let err = plan_drop(&index, &COUNTS, &strings(&["a3"]), false).unwrap_err();
    assert!(matches!(err, StoreError::SplitsToolPair(_)), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("#9 (a3)") && text.contains("#10 (t3)") && text.contains("k3"),
        "{text}"
    );
    // Both halves asked: nothing is split, so no flag is needed.
    let plan = plan_drop(&index, &COUNTS, &strings(&["a3", "t3"]), false).unwrap();
    assert!(plan.partners.is_empty());
    // A call still waiting for its result has no partner.
    let plan = plan_drop(&index, &COUNTS, &strings(&["a4", "u1"]), false).unwrap();
    assert_eq!(ids(&index, &plan.dropped), ["u1", "a4"]);
}

#[test]
fn special_messages_cannot_be_dropped_or_cleared() {
    let index = EditFacts::new(&conversation());
    for (id, what) in [
        ("sys", "the system prompt"),
        ("tools", "the tool definitions"),
    ] {
        let err = plan_drop(&index, &COUNTS, &strings(&[id]), true)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(what) && err.contains("cannot be dropped"),
            "{err}"
        );
    }
    let choice = ClearChoice::Messages(strings(&["sys"]));
    let err = clear_targets(&index, &COUNTS, &choice)
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot be cleared"), "{err}");
    let choice = ClearChoice::Messages(strings(&["u1"]));
    let err = clear_targets(&index, &COUNTS, &choice)
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds no tool result"), "{err}");
}

#[test]
fn unknown_and_out_of_range_messages_are_errors() {
    let index = EditFacts::new(&conversation());
    assert!(
        plan_drop(&index, &COUNTS, &strings(&["nope"]), true)
            .unwrap_err()
            .is_not_found()
    );
    assert!(plan_drop_at(&index, &COUNTS, &[99], true).is_err());
    assert!(
        plan_drop_at(&index, &COUNTS[..3], &[2], true).is_err(),
        "counts of another context"
    );
    let none = plan_drop_at(&index, &COUNTS, &[], true).unwrap();
    assert!(!none.changed && none.dropped.is_empty());
}

#[test]
fn clear_targets_by_size_by_turns_and_by_id() {
    let index = EditFacts::new(&conversation());
    let targets = |choice| ids(&index, &clear_targets(&index, &COUNTS, &choice).unwrap());
    assert_eq!(targets(ClearChoice::Over(100)), ["t1", "t3"]);
    assert_eq!(targets(ClearChoice::Over(300)), ["t3"]);
    assert_eq!(targets(ClearChoice::Over(0)), ["t1", "t2", "t3"]);
    // Turns start at u1 and u2: the last turn is u2 on.
    assert_eq!(targets(ClearChoice::OlderThanTurns(1)), ["t1", "t2"]);
    assert!(targets(ClearChoice::OlderThanTurns(2)).is_empty());
    assert!(targets(ClearChoice::OlderThanTurns(5)).is_empty());
    assert_eq!(targets(ClearChoice::OlderThanTurns(0)), ["t1", "t2", "t3"]);
    assert_eq!(
        targets(ClearChoice::Messages(strings(&["t3", "t1", "t3"]))),
        ["t1", "t3"]
    );
}

#[test]
fn a_clear_plan_uses_the_cleared_counts_and_skips_what_saves_nothing() {
    let index = EditFacts::new(&conversation());
    let mut cleared = ClearedCounts::new(index.len());
    cleared.set(4, 20);
    cleared.set(5, 21); // "ok" was shorter than any placeholder
    cleared.set(9, 22);
    let plan = plan_clear(&index, &COUNTS, &cleared, &ClearChoice::Over(0)).unwrap();
    assert!(plan.changed);
    assert_eq!(plan.kept.len(), COUNTS.len(), "a clear keeps every message");
    assert!(plan.dropped.is_empty());
    let got: Vec<(usize, u64, u64)> = plan
        .cleared
        .iter()
        .map(|c| (c.index, c.tokens_before, c.tokens_after))
        .collect();
    assert_eq!(got, [(4, 300, 20), (9, 310, 22)]);
    assert_eq!(plan.cleared[0].results, vec![(0, 300)]);
    assert_eq!(plan.unchanged, [5]);
    assert_eq!(plan.tokens_after, plan.tokens_before - 280 - 288);
    assert!(plan.notes(&index)[0].contains("t2"));
    // A target that was not counted is an error, not a guess.
    let err = plan_clear(
        &index,
        &COUNTS,
        &ClearedCounts::new(11),
        &ClearChoice::Over(0),
    );
    assert!(err.is_err());
    // Nothing over the limit: no change.
    let plan = plan_clear(&index, &COUNTS, &cleared, &ClearChoice::Over(10_000)).unwrap();
    assert!(!plan.changed);
}
