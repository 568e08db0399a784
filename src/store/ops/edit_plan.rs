//! Planning edits by hand, pure: dropping chosen messages (with the other
//! halves of their tool pairs) and clearing chosen tool results. The viewer
//! calls these at every mark on the [`EditFacts`] and the counts it holds;
//! `ops/change.rs` calls them again (under the session's lock, to write).

use crate::humanize;
use crate::store::error::{Result, StoreError};
use crate::store::format::Special;
use crate::store::format::breakdown::TokenKind;
use crate::store::format::edit_facts::{EditFacts, Partner};
use std::collections::VecDeque;

/// Which tool results a clear replaces. A message's clearable results are
/// cleared together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClearChoice {
    /// The results in these messages (ids or unique prefixes).
    Messages(Vec<String>),
    /// Every message whose clearable results hold more than this many tokens.
    Over(u64),
    /// Every result before the last K turns (0: every result).
    OlderThanTurns(usize),
}

/// A message dropped because it holds the other half of a tool pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairDrop {
    /// The message dropped.
    pub index: usize,
    /// The dropped message whose pair it completes.
    pub partner_of: usize,
    /// The call id they share.
    pub call_id: Option<String>,
    /// True when it holds the result (and `partner_of` the call).
    pub is_result: bool,
}

impl PairDrop {
    /// Why it goes: "the tool result of call K, whose call (message M) is dropped".
    pub fn reason(&self, index: &EditFacts) -> String {
        let call = self.call_id.as_deref().unwrap_or("(no id)");
        let partner = index.id(self.partner_of);
        if self.is_result {
            format!("the tool result of call {call}, whose call (message {partner}) is dropped")
        } else {
            format!("the tool call {call}, whose result (message {partner}) is dropped")
        }
    }
}

/// A message whose tool results (or media) an edit replaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClearedMessage {
    /// The message.
    pub index: usize,
    /// The results replaced: position in the content, tokens they held.
    pub results: Vec<(usize, u64)>,
    /// Positions of the media parts replaced by a text naming them (a fix
    /// for resuming; a clear leaves media alone).
    pub media: Vec<usize>,
    /// The message's count now.
    pub tokens_before: u64,
    /// Its count once cleared (counted on the new text).
    pub tokens_after: u64,
}

/// What an edit does to a context, before anything is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditPlan {
    /// False when the edit changes nothing (nothing is written).
    pub changed: bool,
    /// Indices of the messages the result holds (cleared ones included), in order.
    pub kept: Vec<usize>,
    /// Indices of the messages the result drops, in order.
    pub dropped: Vec<usize>,
    /// The messages the request chose, in order.
    pub asked: Vec<usize>,
    /// Messages dropped as the other halves of tool pairs, and why.
    pub partners: Vec<PairDrop>,
    /// Messages whose tool results are cleared.
    pub cleared: Vec<ClearedMessage>,
    /// Messages chosen for clearing but left as they are: the placeholder
    /// would take as many tokens or more.
    pub unchanged: Vec<usize>,
    /// Total tokens of the context now.
    pub tokens_before: u64,
    /// Total tokens of the result.
    pub tokens_after: u64,
}

impl EditPlan {
    fn unchanged_context(len: usize, tokens: u64) -> EditPlan {
        EditPlan {
            changed: false,
            kept: (0..len).collect(),
            dropped: Vec::new(),
            asked: Vec::new(),
            partners: Vec::new(),
            cleared: Vec::new(),
            unchanged: Vec::new(),
            tokens_before: tokens,
            tokens_after: tokens,
        }
    }

    /// What a person should know about the plan besides the figures.
    pub fn notes(&self, index: &EditFacts) -> Vec<String> {
        let mut out: Vec<String> = self
            .partners
            .iter()
            .map(|p| format!("also dropped {}: {}", index.id(p.index), p.reason(index)))
            .collect();
        match self.unchanged.len() {
            0 => {}
            1 => out.push(format!(
                "message {} is left as it is: its placeholder would not save tokens",
                index.id(self.unchanged[0])
            )),
            n => out.push(format!(
                "{n} chosen tool results are left as they are: their placeholders would not save tokens"
            )),
        }
        out
    }
}

/// The token count of each message once its tool results are cleared,
/// for the messages that were counted (see `Store::cleared_counts`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClearedCounts {
    counts: Vec<Option<u64>>,
}

impl ClearedCounts {
    /// No counts yet, for a context of `len` messages.
    pub fn new(len: usize) -> Self {
        ClearedCounts {
            counts: vec![None; len],
        }
    }

    /// Records the cleared count of message `index`.
    pub fn set(&mut self, index: usize, count: u64) {
        if let Some(slot) = self.counts.get_mut(index) {
            *slot = Some(count);
        }
    }

    /// The cleared count of message `index`, if counted.
    pub fn get(&self, index: usize) -> Option<u64> {
        self.counts.get(index).copied().flatten()
    }
}

/// Plans dropping the messages `messages` names (ids or unique prefixes).
pub fn plan_drop(
    index: &EditFacts,
    counts: &[u64],
    messages: &[String],
    with_pairs: bool,
) -> Result<EditPlan> {
    let chosen = resolve_all(index, messages)?;
    plan_drop_at(index, counts, &chosen, with_pairs)
}

/// [`plan_drop`] on message indices (what the viewer marks).
pub fn plan_drop_at(
    index: &EditFacts,
    counts: &[u64],
    chosen: &[usize],
    with_pairs: bool,
) -> Result<EditPlan> {
    check_counts(index, counts)?;
    let tokens_before: u64 = counts.iter().sum();
    let mut asked: Vec<usize> = chosen.to_vec();
    asked.sort_unstable();
    asked.dedup();
    if let Some(&bad) = asked.iter().find(|&&i| i >= index.len()) {
        return Err(StoreError::Invalid(format!(
            "message {} is beyond the context's {} messages",
            humanize::message_number(bad),
            index.len()
        )));
    }
    if asked.is_empty() {
        return Ok(EditPlan::unchanged_context(index.len(), tokens_before));
    }
    for &i in &asked {
        refuse_special(index, i, "dropped")?;
    }
    let mut drop_mask = vec![false; index.len()];
    for &i in &asked {
        drop_mask[i] = true;
    }
    // The other halves of tool pairs, and theirs in turn: a pair is never split.
    let mut partners = Vec::new();
    let mut queue: VecDeque<usize> = asked.iter().copied().collect();
    while let Some(i) = queue.pop_front() {
        for partner in index.partners(i) {
            if drop_mask[partner.index] {
                continue;
            }
            if !with_pairs || index.special(partner.index).is_some() {
                return Err(split_pair(index, i, &partner));
            }
            drop_mask[partner.index] = true;
            queue.push_back(partner.index);
            partners.push(PairDrop {
                index: partner.index,
                partner_of: i,
                call_id: partner.call_id,
                is_result: partner.is_result,
            });
        }
    }
    partners.sort_by_key(|p| p.index);
    let (dropped, kept): (Vec<usize>, Vec<usize>) = (0..index.len()).partition(|&i| drop_mask[i]);
    let tokens_after = kept.iter().map(|&i| counts[i]).sum();
    Ok(EditPlan {
        changed: true,
        kept,
        dropped,
        asked,
        partners,
        cleared: Vec::new(),
        unchanged: Vec::new(),
        tokens_before,
        tokens_after,
    })
}

/// Plans clearing the tool results `choice` picks. `cleared` must hold the
/// cleared count of every message [`clear_targets`] returns.
pub fn plan_clear(
    index: &EditFacts,
    counts: &[u64],
    cleared: &ClearedCounts,
    choice: &ClearChoice,
) -> Result<EditPlan> {
    let targets = clear_targets(index, counts, choice)?;
    plan_clear_at(index, counts, cleared, &targets)
}

/// [`plan_clear`] on message indices, each holding clearable results.
pub fn plan_clear_at(
    index: &EditFacts,
    counts: &[u64],
    cleared_counts: &ClearedCounts,
    targets: &[usize],
) -> Result<EditPlan> {
    check_counts(index, counts)?;
    let tokens_before: u64 = counts.iter().sum();
    let mut asked = targets.to_vec();
    asked.sort_unstable();
    asked.dedup();
    let mut cleared = Vec::new();
    let mut unchanged = Vec::new();
    let mut saved = 0;
    for &i in &asked {
        check_clearable(index, i)?;
        let after = cleared_counts.get(i).ok_or_else(|| {
            StoreError::Invalid(format!(
                "message {} was not counted as cleared; count it before planning",
                index.id(i)
            ))
        })?;
        if after >= counts[i] {
            unchanged.push(i);
            continue;
        }
        saved += counts[i] - after;
        cleared.push(ClearedMessage {
            index: i,
            results: index.result_shares(i, counts[i]),
            media: Vec::new(),
            tokens_before: counts[i],
            tokens_after: after,
        });
    }
    Ok(EditPlan {
        changed: !cleared.is_empty(),
        kept: (0..index.len()).collect(),
        dropped: Vec::new(),
        asked,
        partners: Vec::new(),
        cleared,
        unchanged,
        tokens_before,
        tokens_after: tokens_before - saved,
    })
}

/// The messages whose tool results `choice` picks, in order. Messages
/// named by id must hold a result that can be cleared.
pub fn clear_targets(
    index: &EditFacts,
    counts: &[u64],
    choice: &ClearChoice,
) -> Result<Vec<usize>> {
    check_counts(index, counts)?;
    match choice {
        ClearChoice::Messages(messages) => {
            let mut chosen = resolve_all(index, messages)?;
            chosen.sort_unstable();
            chosen.dedup();
            for &i in &chosen {
                check_clearable(index, i)?;
            }
            Ok(chosen)
        }
        ClearChoice::Over(limit) => Ok(index
            .clearable_messages()
            .filter(|&i| {
                let held: u64 = index.result_shares(i, counts[i]).iter().map(|r| r.1).sum();
                held > *limit
            })
            .collect()),
        ClearChoice::OlderThanTurns(turns) => {
            let starts = index.turn_starts();
            let cut = match *turns {
                0 => index.len(),
                k if k > starts.len() => 0,
                k => starts[starts.len() - k],
            };
            Ok(index
                .clearable_messages()
                .take_while(|&i| i < cut)
                .collect())
        }
    }
}

fn resolve_all(index: &EditFacts, messages: &[String]) -> Result<Vec<usize>> {
    messages.iter().map(|m| index.resolve(m)).collect()
}

fn check_counts(index: &EditFacts, counts: &[u64]) -> Result<()> {
    if counts.len() == index.len() {
        return Ok(());
    }
    Err(StoreError::Invalid(format!(
        "{} token counts for a context of {} messages",
        counts.len(),
        index.len()
    )))
}

fn describe(index: &EditFacts, i: usize) -> String {
    format!("message {} ({})", humanize::message_number(i), index.id(i))
}

fn refuse_special(index: &EditFacts, i: usize, what: &str) -> Result<()> {
    let role = match index.special(i) {
        None => return Ok(()),
        Some(Special::SystemPrompt) => "the system prompt",
        Some(Special::ToolDefinitions) => "the tool definitions",
    };
    Err(StoreError::Invalid(format!(
        "{} is {role}, which every context keeps: it cannot be {what}",
        describe(index, i)
    )))
}

fn check_clearable(index: &EditFacts, i: usize) -> Result<()> {
    refuse_special(index, i, "cleared")?;
    if !index.clearable(i).is_empty() {
        return Ok(());
    }
    let has_results = index
        .shape(i)
        .parts
        .iter()
        .any(|p| p.kind == TokenKind::ToolResults);
    let why = if has_results {
        "its tool results are cleared already"
    } else {
        "it holds no tool result"
    };
    Err(StoreError::Invalid(format!(
        "{} cannot be cleared: {why}",
        describe(index, i)
    )))
}

fn split_pair(index: &EditFacts, i: usize, partner: &Partner) -> StoreError {
    let call = partner.call_id.as_deref().unwrap_or("(no id)");
    let half = if partner.is_result {
        format!("the result of its call {call}")
    } else {
        format!("its call {call}")
    };
    let hint = if index.special(partner.index).is_some() {
        ", and every context keeps that message"
    } else {
        "; drop it too, or drop tool pairs together"
    };
    StoreError::SplitsToolPair(format!(
        "dropping {} would split a tool pair: {} holds {half}{hint}",
        describe(index, i),
        describe(index, partner.index),
    ))
}

#[cfg(test)]
mod tests;
