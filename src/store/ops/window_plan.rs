//! Planning a window, pure: which messages a rolling window keeps (the
//! newest, by count or by a token budget), as peteos's own windows do. A
//! window is a drop of the oldest messages: `ops/change.rs` turns its plan
//! into the one plan every change has. The viewer re-plans at every key.

use crate::store::error::Result;
use crate::store::format::edit_facts::EditFacts;
use crate::store::format::window::WindowFacts;
use crate::store::format::{Context, check_fork};
use std::collections::HashSet;

/// What to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Window {
    /// `rolling_sequence_window(count)`: the last N non-special messages.
    KeepMessages(usize),
    /// `rolling_token_window(max_tokens)`: fit a token budget.
    MaxTokens(u64),
}

/// The effect of a trim on one context, before anything is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowPlan {
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

impl WindowPlan {
    /// What a person should know before applying the plan, if anything.
    pub fn warnings(&self, request: Window) -> Vec<String> {
        let mut out = Vec::new();
        if let Window::MaxTokens(budget) = request
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
pub fn plan_window(ctx: &Context, counts: &[u64], request: Window) -> Result<WindowPlan> {
    let plan = plan_with_facts(&WindowFacts::new(ctx), counts, request)?;
    if plan.changed {
        check_fork(ctx, &plan.kept)?;
    }
    Ok(plan)
}

/// [`plan_window`] on the window facts read beforehand (the viewer re-plans at every key).
pub fn plan_with_facts(index: &WindowFacts, counts: &[u64], request: Window) -> Result<WindowPlan> {
    let window = match request {
        Window::KeepMessages(n) => index.sequence_window(n)?,
        Window::MaxTokens(budget) => index.token_window(counts, budget),
    };
    let tokens_before: u64 = counts.iter().sum();
    let fixed_tokens = index.fixed_tokens(counts);
    let Some(kept) = window else {
        return Ok(WindowPlan {
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
    Ok(WindowPlan {
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
pub fn keep_pairs_whole(plan: &mut WindowPlan, facts: &EditFacts, counts: &[u64]) {
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
