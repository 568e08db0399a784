//! Properties of edits by hand on generated contexts (tool calls and
//! results with shared, repeated and missing partners): a drop never splits
//! a tool pair nor takes a special message, and drops nothing beyond what
//! was asked and the partners it names; a clear keeps every message and
//! every call id, and counts its copies as the counter does; the breakdown
//! adds up to the total.

use super::{check_fork, context_strategy};
use loki_sessions::store::format::tokens::{self, Encoding};
use loki_sessions::store::format::{Context, clear, fork_with};
use loki_sessions::store::{
    ClearChoice, EditFacts, StoreError, clear_targets, cleared_counts, plan_clear, plan_drop_at,
};
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;

/// Messages of one to five parts of every kind and of any size (so shares
/// have remainders to hand out), with any counts.
fn multi_part_context() -> impl Strategy<Value = (Context, Vec<u64>)> {
    let part = (0u8..6, "\\PC{0,40}").prop_map(|(kind, text)| match kind {
        0 => json!({"type": "text", "text": text}),
        1 => json!({"type": "thinking", "text": text}),
        2 => json!({"type": "tool_use", "call_id": "k", "name": "bash", "arguments": text}),
        3 => json!({"type": "tool_result", "call_id": "k", "content": text}),
        4 => json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": text}}),
        _ => json!({"type": "hologram", "x": text}),
    });
    let message = (
        prop::sample::select(vec!["user", "assistant", "tool", "system"]),
        prop::collection::vec(part, 0..5),
        0u64..100_000,
    );
    prop::collection::vec(message, 0..20).prop_map(|messages| {
        let (list, counts): (Vec<Value>, Vec<u64>) = messages
            .into_iter()
            .enumerate()
            .map(|(i, (role, parts, count))| {
                (
                    json!({"id": format!("m{i}"), "role": role, "content": parts}),
                    count,
                )
            })
            .unzip();
        let raw = json!({"id": "ctx", "messages": list});
        let ctx = Context::from_raw(raw.as_object().unwrap().clone(), Path::new("c.json")).unwrap();
        (ctx, counts)
    })
}

proptest! {
    #[test]
    fn drops_never_split_a_pair_nor_take_a_special(
        (ctx, counts) in context_strategy(),
        picks in prop::collection::vec(any::<Index>(), 1..6),
    ) {
        let index = EditFacts::new(&ctx);
        let ordinary: Vec<usize> = (0..ctx.len()).filter(|&i| index.special(i).is_none()).collect();
        prop_assume!(!ordinary.is_empty());
        let chosen: Vec<usize> = picks.iter().map(|p| ordinary[p.index(ordinary.len())]).collect();
        let plan = plan_drop_at(&index, &counts, &chosen, true).unwrap();
        let dropped: Vec<bool> = (0..ctx.len()).map(|i| plan.dropped.contains(&i)).collect();
        // Never a special message.
        for &s in index.window().specials() {
            prop_assert!(!dropped[s]);
        }
        // Exactly what was asked, and the partners the plan names.
        let mut named: Vec<usize> = chosen.clone();
        named.extend(plan.partners.iter().map(|p| p.index));
        named.sort_unstable();
        named.dedup();
        prop_assert_eq!(&named, &plan.dropped);
        for p in &plan.partners {
            prop_assert!(dropped[p.partner_of]);
            prop_assert!(index.partners(p.partner_of).iter().any(|q| q.index == p.index));
        }
        // No kept message has a partner dropped: no pair is split.
        for &k in &plan.kept {
            for partner in index.partners(k) {
                prop_assert!(!dropped[partner.index], "#{} kept, its partner #{} dropped", k, partner.index);
            }
        }
        // So no result dangles that did not dangle before.
        let all: Vec<usize> = (0..ctx.len()).collect();
        prop_assert!(index.window().dangling_results(&plan.kept) <= index.window().dangling_results(&all));
        let kept_tokens: u64 = plan.kept.iter().map(|&i| counts[i]).sum();
        prop_assert_eq!(plan.tokens_after, kept_tokens);
        let child = loki_sessions::store::format::fork(&ctx, &plan.kept, "child", "2026-01-01T00:00:00").unwrap();
        check_fork(&ctx, &child, &plan.kept)?;
        // Without pairs: allowed exactly when no partner had to go.
        match plan_drop_at(&index, &counts, &chosen, false) {
            Ok(alone) => {
                prop_assert!(plan.partners.is_empty());
                prop_assert_eq!(alone.dropped, plan.dropped);
            }
            Err(e) => {
                prop_assert!(!plan.partners.is_empty());
                prop_assert!(matches!(e, StoreError::SplitsToolPair(_)), "{}", e);
            }
        }
        // Asking for a special message is refused.
        if let Some(&s) = index.window().specials().first() {
            prop_assert!(plan_drop_at(&index, &counts, &[s], true).is_err());
        }
    }

    #[test]
    fn the_breakdown_adds_up_to_the_total((ctx, counts) in multi_part_context()) {
        let index = EditFacts::new(&ctx);
        let breakdown = index.breakdown(&counts);
        prop_assert_eq!(breakdown.total(), counts.iter().sum::<u64>());
        let parts: usize = breakdown.iter().map(|(_, t)| t.parts).sum();
        prop_assert_eq!(parts, (0..ctx.len()).map(|i| index.shape(i).parts.len()).sum::<usize>());
        for (i, &count) in counts.iter().enumerate() {
            prop_assert_eq!(index.shares(i, count).iter().map(|s| s.1).sum::<u64>(), count);
        }
    }

    #[test]
    fn clears_keep_every_message_and_call_id((ctx, counts) in context_strategy(), limit in 0u64..400) {
        let index = EditFacts::new(&ctx);
        let choice = ClearChoice::Over(limit);
        let targets = clear_targets(&index, &counts, &choice).unwrap();
        let cleared = cleared_counts(&ctx, &index, &counts, Encoding::Cl100kBase, &targets).unwrap();
        let plan = plan_clear(&index, &counts, &cleared, &choice).unwrap();
        prop_assert_eq!(plan.kept.len(), ctx.len());
        prop_assert!(plan.dropped.is_empty());
        let saved: u64 = plan.cleared.iter().map(|c| c.tokens_before - c.tokens_after).sum();
        prop_assert_eq!(plan.tokens_after, counts.iter().sum::<u64>() - saved);
        let replaced: HashMap<_, _> = plan
            .cleared
            .iter()
            .map(|c| {
                let m = ctx.message(c.index).unwrap();
                (c.index, clear::cleared_message(&m, &c.results, &c.media, &format!("new-{}", c.index)))
            })
            .collect();
        let child = fork_with(&ctx, &plan.kept, &replaced, "child", "2026-01-01T00:00:00").unwrap();
        prop_assert_eq!(child.len(), ctx.len());
        for (i, (before, after)) in ctx.messages().zip(child.messages()).enumerate() {
            let calls = |m: &loki_sessions::store::Message<'_>| -> Vec<Option<Option<String>>> {
                m.parts().iter().map(|p| p.tool_result_key().or(p.tool_use_key())).collect()
            };
            prop_assert_eq!(calls(&before), calls(&after), "call ids of #{}", i);
            if let Some(c) = plan.cleared.iter().find(|c| c.index == i) {
                prop_assert_eq!(after.raw()[clear::CLEARED_FROM].as_str(), Some(before.id()));
                prop_assert_eq!(tokens::computed_count(&after, Encoding::Cl100kBase).unwrap(), c.tokens_after);
                prop_assert!(c.tokens_after < c.tokens_before);
            } else {
                prop_assert_eq!(after.id(), before.id());
            }
        }
    }
}
