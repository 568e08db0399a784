//! Trimming a conversation: plan a window, then fork it into place under the lock.

use crate::store::error::Result;
use crate::store::format::edit_facts::EditFacts;
use crate::store::format::tokens::Encoding;
use crate::store::format::window::WindowFacts;
use crate::store::format::{Context, Session, check_fork, ids};
use crate::store::ops::agent_fork::AgentFork;
use crate::store::ops::count_cache::CountCache;
use crate::store::ops::counting::message_counts_kept;
use crate::store::ops::forking;
pub use crate::store::ops::forking::Expected;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// What to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrimRequest {
    /// `rolling_sequence_window(count)`: the last N non-special messages.
    KeepMessages(usize),
    /// `rolling_token_window(max_tokens)`: fit a token budget.
    MaxTokens(u64),
}

/// The effect of a trim on one context, before anything is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrimPlan {
    /// False when peteos would not fork (nothing to drop).
    pub changed: bool,
    /// Indices of the messages the result holds, in order.
    pub kept: Vec<usize>,
    /// Indices of the messages the result drops, in order.
    pub dropped: Vec<usize>,
    /// Total tokens of the context now.
    pub tokens_before: u64,
    /// Total tokens of the result.
    pub tokens_after: u64,
    /// Tokens of the system prompt and tool definitions, which every trim
    /// keeps: a budget below this keeps only them.
    pub fixed_tokens: u64,
    /// Kept messages holding a tool result whose call was dropped (a count
    /// window can leave these, as peteos's does; a token window never does).
    pub dangling_tool_results: usize,
    /// Messages the window kept that went with a dropped tool call or
    /// result ([`keep_pairs_whole`]): why "keep the last 20" can keep 18.
    pub dropped_with_their_pair: usize,
}

impl TrimPlan {
    /// What a person should know before applying the plan, if anything.
    pub fn warnings(&self, request: TrimRequest) -> Vec<String> {
        let mut out = Vec::new();
        if let TrimRequest::MaxTokens(budget) = request
            && budget < self.fixed_tokens
        {
            out.push(format!(
                "the system prompt and tool definitions alone take {} tokens, more than the budget of {}: only they are kept",
                self.fixed_tokens, budget
            ));
        }
        match self.dropped_with_their_pair {
            0 => {}
            1 => out.push(
                "1 more message is dropped with the tool call or result it pairs with (the agent refuses one without the other)".into(),
            ),
            n => out.push(format!(
                "{n} more messages are dropped with the tool calls or results they pair with (the agent refuses one without the other)"
            )),
        }
        match self.dangling_tool_results {
            0 => {}
            1 => out.push(
                "1 kept tool result belongs to a call that is cut off (peteos keeps it too)".into(),
            ),
            n => out.push(format!(
                "{n} kept tool results belong to calls that are cut off (peteos keeps them too)"
            )),
        }
        out
    }
}

/// Plans `request` on `ctx`, given the token count of each message; refuses
/// a plan whose fork could not be written, so a dry run refuses what the
/// write would.
pub fn plan_trim(ctx: &Context, counts: &[u64], request: TrimRequest) -> Result<TrimPlan> {
    let plan = plan_with_facts(&WindowFacts::new(ctx), counts, request)?;
    if plan.changed {
        check_fork(ctx, &plan.kept)?;
    }
    Ok(plan)
}

/// [`plan_trim`] on the window facts read beforehand (the viewer re-plans at every key).
pub fn plan_with_facts(
    index: &WindowFacts,
    counts: &[u64],
    request: TrimRequest,
) -> Result<TrimPlan> {
    let window = match request {
        TrimRequest::KeepMessages(n) => index.sequence_window(n)?,
        TrimRequest::MaxTokens(budget) => index.token_window(counts, budget),
    };
    let tokens_before: u64 = counts.iter().sum();
    let fixed_tokens = index.fixed_tokens(counts);
    let Some(kept) = window else {
        return Ok(TrimPlan {
            changed: false,
            kept: (0..index.len()).collect(),
            dropped: Vec::new(),
            tokens_before,
            tokens_after: tokens_before,
            fixed_tokens,
            dangling_tool_results: 0,
            dropped_with_their_pair: 0,
        });
    };
    let mut keep_mask = vec![false; index.len()];
    for &i in &kept {
        keep_mask[i] = true;
    }
    let dropped: Vec<usize> = (0..index.len()).filter(|&i| !keep_mask[i]).collect();
    let tokens_after = kept.iter().map(|&i| counts[i]).sum();
    let dangling_tool_results = index.dangling_results(&kept);
    Ok(TrimPlan {
        changed: true,
        kept,
        dropped,
        tokens_before,
        tokens_after,
        fixed_tokens,
        dangling_tool_results,
        dropped_with_their_pair: 0,
    })
}

/// `plan` with every message holding the other half of a tool pair of a
/// dropped message dropped too, to a fixed point: what another agent's
/// fork needs (its API refuses a result without its call, and a call
/// without its result). The viewer and the store both call it.
pub fn keep_pairs_whole(plan: &mut TrimPlan, facts: &EditFacts, counts: &[u64]) {
    if !plan.changed {
        return;
    }
    let mut dropped: HashSet<usize> = plan.dropped.iter().copied().collect();
    let mut todo: Vec<usize> = plan.dropped.clone();
    while let Some(i) = todo.pop() {
        for p in facts.partners(i) {
            if dropped.insert(p.index) {
                todo.push(p.index);
            }
        }
    }
    let window_kept = plan.kept.len();
    plan.kept.retain(|i| !dropped.contains(i));
    plan.dropped_with_their_pair += window_kept - plan.kept.len();
    plan.dropped = (0..facts.len()).filter(|i| dropped.contains(i)).collect();
    plan.tokens_after = plan.kept.iter().map(|&i| counts[i]).sum();
    plan.dangling_tool_results = 0;
}

/// What a trim did (or, for a dry run, would do).
#[derive(Clone, Debug)]
pub struct TrimOutcome {
    /// The plan, over the context that was active.
    pub plan: TrimPlan,
    /// The context that was active.
    pub parent: Context,
    /// The new active context, when the trim forked one (None for dry runs).
    pub child: Option<Context>,
    /// Another agent's session: the new session the trim writes beside it.
    pub fork: Option<AgentFork>,
}

impl TrimOutcome {
    /// Ids of the messages the result holds.
    pub fn kept_ids(&self) -> Vec<String> {
        ids_at(&self.parent, &self.plan.kept)
    }
    /// Ids of the messages the result drops.
    pub fn dropped_ids(&self) -> Vec<String> {
        ids_at(&self.parent, &self.plan.dropped)
    }
}

fn ids_at(ctx: &Context, indices: &[usize]) -> Vec<String> {
    indices
        .iter()
        .filter_map(|&i| ctx.message(i).map(|m| m.id().to_string()))
        .collect()
}

/// Plans a trim of the active context of the conversation in `dir`. Reads only.
/// Counts `cache` kept are taken, new ones kept in it.
pub fn preview(
    dir: &Path,
    request: TrimRequest,
    encoding: Encoding,
    cache: Option<&CountCache>,
) -> Result<TrimOutcome> {
    let parent = forking::active(&Session::load(dir)?)?;
    let counts = message_counts_kept(&parent, encoding, cache)?;
    let plan = plan_trim(&parent, &counts, request)?;
    Ok(TrimOutcome {
        plan,
        parent,
        child: None,
        fork: None,
    })
}

/// Trims the active context of the conversation in `dir`, holding the lock
/// on `lock_dir` (the Loki session directory, or `dir` itself). Everything is
/// re-read under the lock, then the fork is written
/// ([`forking::Locked::write_fork`]).
pub fn apply(
    dir: &Path,
    lock_dir: &Path,
    request: TrimRequest,
    encoding: Encoding,
    expected: Option<&Expected>,
    now: f64,
    cache: Option<&CountCache>,
) -> Result<TrimOutcome> {
    let mut locked = forking::lock_active(dir, lock_dir, expected)?;
    let counts = message_counts_kept(&locked.parent, encoding, cache)?;
    let plan = plan_trim(&locked.parent, &counts, request)?;
    let child = if plan.changed {
        Some(locked.write_fork(&plan.kept, &HashMap::new(), &ids::dated_id(now), now)?)
    } else {
        None
    };
    Ok(TrimOutcome {
        plan,
        parent: locked.parent,
        child,
        fork: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ops::contexts::activate;
    use serde_json::{Value, json};

    /// A session in a temp dir whose active context has `messages` user
    /// messages and `children` as given.
    fn session(messages: usize, children: Value) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let list: Vec<Value> = (0..messages)
            .map(|i| {
                json!({"role": "user", "id": format!("m{i}"), "_sequence_number": 3 + i,
                "content": [{"type": "text", "text": format!("hello {i}")}]})
            })
            .collect();
        let context = json!({"messages": list, "id": "c1", "content_map": {},
            "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", messages]],
            "message_sequence": messages, "_mutation_counter": 3 + messages, "children": children});
        let write = |name: &str, v: &Value| {
            std::fs::write(dir.path().join(name), serde_json::to_vec(v).unwrap()).unwrap()
        };
        write("c1.json", &context);
        write(
            "session.json",
            &json!({"uuid": "s", "active_context_id": "c1"}),
        );
        dir
    }

    fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_bad_children_field_refuses_the_trim_before_anything_is_written() {
        let dir = session(4, json!("not a list"));
        let before = files(dir.path());
        let err = apply(
            dir.path(),
            dir.path(),
            TrimRequest::KeepMessages(1),
            Encoding::Cl100kBase,
            None,
            1.8e9,
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("c1.json") && err.contains("children"), "{err}");
        assert_eq!(files(dir.path()), before, "no orphan context file");
    }

    #[test]
    fn a_trim_forks_and_switching_back_undoes_it() {
        let dir = session(4, json!([]));
        let parent_before = std::fs::read(dir.path().join("c1.json")).unwrap();
        let outcome = apply(
            dir.path(),
            dir.path(),
            TrimRequest::KeepMessages(1),
            Encoding::Cl100kBase,
            None,
            1.8e9,
            None,
        )
        .unwrap();
        let child = outcome.child.unwrap();
        let session = Session::load(dir.path()).unwrap();
        assert_eq!(session.active_context_id(), Some(child.id()));
        activate(dir.path(), dir.path(), "c1").unwrap();
        let session = Session::load(dir.path()).unwrap();
        assert_eq!(session.active_context_id(), Some("c1"), "undone on disk");
        let parent = session.active_context().unwrap().unwrap();
        assert_eq!(parent.children(), vec![child.id()]);
        let mut before: Value = serde_json::from_slice(&parent_before).unwrap();
        let mut after = Value::Object(parent.into_raw());
        before["children"] = json!([]);
        after["children"] = json!([]);
        assert_eq!(
            before, after,
            "the parent changed only by gaining its child"
        );
        assert!(activate(dir.path(), dir.path(), "missing").is_err());
        assert_eq!(
            Session::load(dir.path()).unwrap().active_context_id(),
            Some("c1"),
            "never pointed at a context that cannot be read"
        );
    }
}
