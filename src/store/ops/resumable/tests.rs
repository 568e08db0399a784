use super::*;
use crate::store::format::tokens::Encoding;
use crate::store::format::{Context, clear, media};
use crate::store::ops::counting::{message_counts, replaced_counts};
use serde_json::{Value, json};
use std::path::Path;

/// sys, u1 (text + a big image), a1 (call k1), t1 (big result k1),
/// u2 (text), a2 (call k2), t2 (small result k2), u3 (text + pdf).
fn conversation() -> Context {
    let image = "A".repeat(40_000);
    let pdf = "B".repeat(8_000);
    let messages = vec![
        json!({"id": "sys", "_type": "SystemPromptMessage", "role": "system", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
        ], "_sequence_number": 1}),
        json!({"id": "u1", "role": "user", "_sequence_number": 2, "content": [
            {"type": "text", "text": "what is on this screen?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image}}
        ]}),
        json!({"id": "a1", "role": "assistant", "_sequence_number": 3, "content": [
            {"type": "tool_use", "call_id": "k1", "name": "cat", "arguments": "{}"}
        ]}),
        json!({"id": "t1", "role": "tool", "_sequence_number": 4, "content": [
            {"type": "tool_result", "call_id": "k1", "content": "word ".repeat(3_000)}
        ]}),
        json!({"id": "u2", "role": "user", "_sequence_number": 5, "content": [
            {"type": "text", "text": "and now?"}
        ]}),
        json!({"id": "a2", "role": "assistant", "_sequence_number": 6, "content": [
            {"type": "tool_use", "call_id": "k2", "name": "ls", "arguments": "{}"}
        ]}),
        json!({"id": "t2", "role": "tool", "_sequence_number": 7, "content": [
            {"type": "tool_result", "call_id": "k2", "content": "a.txt"}
        ]}),
        json!({"id": "u3", "role": "user", "_sequence_number": 8, "content": [
            {"type": "text", "text": "read this"},
            {"type": "pdf", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}}
        ]}),
    ];
    let v = json!({"messages": messages, "_mutation_counter": 9,
        "system_prompt_message_id": "sys",
        "anchor_points": [["system_prompt", 1], ["messages", 8]]});
    Context::from_raw(v.as_object().unwrap().clone(), Path::new("c.json")).unwrap()
}

fn planned(ctx: &Context, fix: &ResumableFix) -> (EditPlan, EditFacts, Vec<u64>) {
    let counts = message_counts(ctx, Encoding::Cl100kBase).unwrap();
    let index = EditFacts::new(ctx);
    let wanted = replacements(&index, &counts, fix).unwrap();
    let after = replaced_counts(ctx, Encoding::Cl100kBase, &wanted).unwrap();
    (plan(&index, &counts, &after, fix).unwrap(), index, counts)
}

fn ids(index: &EditFacts, indices: impl IntoIterator<Item = usize>) -> Vec<String> {
    indices
        .into_iter()
        .map(|i| index.id(i).to_string())
        .collect()
}

#[test]
fn media_and_big_results_are_replaced_and_the_rest_kept() {
    let ctx = conversation();
    let fix = ResumableFix {
        results_over: 1_000,
        keep_turns: None,
    };
    let (plan, index, counts) = planned(&ctx, &fix);
    assert!(plan.changed);
    assert!(plan.dropped.is_empty());
    let cleared: Vec<usize> = plan.cleared.iter().map(|c| c.index).collect();
    // The system prompt's image stays (special messages are kept as they
    // are); t2's result is small.
    assert_eq!(ids(&index, cleared), ["u1", "t1", "u3"]);
    assert_eq!(plan.cleared[0].media, vec![1]);
    assert!(plan.cleared[0].results.is_empty());
    assert_eq!(plan.cleared[1].results.len(), 1);
    assert!(plan.cleared[1].media.is_empty());
    assert_eq!(plan.cleared[2].media, vec![1]);
    // Each figure is the count of the replaced message, counted afresh.
    for c in &plan.cleared {
        let message = ctx.message(c.index).unwrap();
        let content = clear::cleared_content(&message, &c.results, &c.media);
        let text =
            crate::store::format::tokens::token_text(message.raw().get("role"), Some(&content));
        let fresh = crate::store::format::tokens::count_text(&text, Encoding::Cl100kBase).unwrap();
        assert_eq!(c.tokens_after, fresh);
        assert_eq!(c.tokens_before, counts[c.index]);
    }
    let saved: u64 = plan
        .cleared
        .iter()
        .map(|c| c.tokens_before - c.tokens_after)
        .sum();
    assert_eq!(plan.tokens_before, counts.iter().sum::<u64>());
    assert_eq!(plan.tokens_after, plan.tokens_before - saved);
    let content = clear::cleared_content(&ctx.message(1).unwrap(), &[], &[1]);
    assert_eq!(
        content[1],
        json!({"type": "text", "text": media::placeholder("image", Some("image/png"), Some(30_000))})
    );
}

#[test]
fn keeping_the_last_turns_drops_the_older_ones_whole() {
    let ctx = conversation();
    let fix = ResumableFix {
        results_over: u64::MAX,
        keep_turns: Some(2),
    };
    let (plan, index, _) = planned(&ctx, &fix);
    // Turns start at u1, u2, u3: the last two are u2.. and u3..; the first
    // turn goes with its tool pair; the system prompt stays.
    assert_eq!(ids(&index, plan.dropped.clone()), ["u1", "a1", "t1"]);
    assert_eq!(ids(&index, plan.kept.clone())[0], "sys");
    // The dropped image is not also counted as replaced.
    let cleared: Vec<usize> = plan.cleared.iter().map(|c| c.index).collect();
    assert_eq!(ids(&index, cleared), ["u3"]);
    // More turns than there are keeps every one.
    let every = ResumableFix {
        results_over: u64::MAX,
        keep_turns: Some(9),
    };
    assert!(planned(&ctx, &every).0.dropped.is_empty());
    let zero = ResumableFix {
        results_over: u64::MAX,
        keep_turns: Some(0),
    };
    let counts = message_counts(&ctx, Encoding::Cl100kBase).unwrap();
    assert!(replacements(&EditFacts::new(&ctx), &counts, &zero).is_err());
}

#[test]
fn a_conversation_without_media_or_big_results_is_left_alone() {
    let v: Value = json!({"messages": [
        {"id": "u", "role": "user", "_sequence_number": 1, "content": [{"type": "text", "text": "hi"}]},
        {"id": "a", "role": "assistant", "_sequence_number": 2, "content": [{"type": "text", "text": "hello"}]}
    ], "_mutation_counter": 3, "anchor_points": [["messages", 2]]});
    let ctx = Context::from_raw(v.as_object().unwrap().clone(), Path::new("c.json")).unwrap();
    let (plan, _, _) = planned(&ctx, &ResumableFix::default());
    assert!(!plan.changed);
    assert_eq!(plan.tokens_after, plan.tokens_before);
}
