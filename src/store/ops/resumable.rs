//! "Make it resumable": the common fix for a conversation grown too large
//! to resume, in one edit. Images and documents become a text naming their
//! type and size, tool results over a size become the clear placeholder,
//! and, if asked, only the last K turns are kept (older messages dropped
//! with the other halves of their tool pairs). Planned, pure, on the same
//! facts and counts as drops and clears; written as they are (a fork).

use crate::store::error::{Result, StoreError};
use crate::store::format::edit_facts::EditFacts;
use crate::store::ops::edit_plan::{ClearedCounts, ClearedMessage, EditPlan, plan_drop_at};

/// Tool results holding more tokens than this are cleared unless told
/// otherwise: only outputs that dwarf a screen of text (a whole file, a
/// long log), which are what keep a session from resuming.
pub const RESULTS_OVER: u64 = 10_000;

/// What the fix does besides replacing every image and document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResumableFix {
    /// Tool results holding more tokens than this are cleared.
    pub results_over: u64,
    /// Keep only the last K turns (a turn starts at a person's prompt);
    /// None keeps every turn.
    pub keep_turns: Option<usize>,
}

impl Default for ResumableFix {
    fn default() -> Self {
        ResumableFix {
            results_over: RESULTS_OVER,
            keep_turns: None,
        }
    }
}

/// What the fix replaces in one message it keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// The message.
    pub index: usize,
    /// Tool results cleared: position in the content, tokens they held.
    pub results: Vec<(usize, u64)>,
    /// Positions of the media parts replaced.
    pub media: Vec<usize>,
}

/// The messages before the last `fix.keep_turns` turns (special messages
/// never among them).
fn older_turns(index: &EditFacts, fix: &ResumableFix) -> Vec<usize> {
    let Some(k) = fix.keep_turns else {
        return Vec::new();
    };
    let starts = index.turn_starts();
    if k == 0 || k >= starts.len() {
        return Vec::new();
    }
    let cut = starts[starts.len() - k];
    (0..cut).filter(|&i| index.special(i).is_none()).collect()
}

/// The drops of the fix: the messages of older turns, with the other
/// halves of their tool pairs.
fn drop_plan(index: &EditFacts, counts: &[u64], fix: &ResumableFix) -> Result<EditPlan> {
    if fix.keep_turns == Some(0) {
        return Err(StoreError::Invalid(
            "keep at least one turn (or every turn: leave the number out)".into(),
        ));
    }
    plan_drop_at(index, counts, &older_turns(index, fix), true)
}

/// What the fix replaces in each message it keeps, in order: every media
/// part, and every clearable tool result holding more than
/// `fix.results_over` tokens (its share of `counts[i]`).
pub fn replacements(
    index: &EditFacts,
    counts: &[u64],
    fix: &ResumableFix,
) -> Result<Vec<Replacement>> {
    let dropped = drop_plan(index, counts, fix)?.dropped;
    let mut gone = vec![false; index.len()];
    for i in dropped {
        gone[i] = true;
    }
    Ok((0..index.len())
        .filter(|&i| !gone[i])
        .filter_map(|i| {
            let results: Vec<(usize, u64)> = index
                .result_shares(i, counts[i])
                .into_iter()
                .filter(|&(_, tokens)| tokens > fix.results_over)
                .collect();
            let media = index.media(i).to_vec();
            (!results.is_empty() || !media.is_empty()).then_some(Replacement {
                index: i,
                results,
                media,
            })
        })
        .collect())
}

/// Plans the fix. `after` must hold the count of every message
/// [`replacements`] returns, as replaced (see `counting::replaced_counts`).
pub fn plan(
    index: &EditFacts,
    counts: &[u64],
    after: &ClearedCounts,
    fix: &ResumableFix,
) -> Result<EditPlan> {
    let mut plan = drop_plan(index, counts, fix)?;
    for r in replacements(index, counts, fix)? {
        let tokens_after = after.get(r.index).ok_or_else(|| {
            StoreError::Invalid(format!(
                "message {} was not counted as replaced; count it before planning",
                index.id(r.index)
            ))
        })?;
        let tokens_before = counts[r.index];
        plan.asked.push(r.index);
        if tokens_after >= tokens_before {
            plan.unchanged.push(r.index);
            continue;
        }
        plan.tokens_after -= tokens_before - tokens_after;
        plan.cleared.push(ClearedMessage {
            index: r.index,
            results: r.results,
            media: r.media,
            tokens_before,
            tokens_after,
        });
    }
    plan.asked.sort_unstable();
    plan.asked.dedup();
    plan.changed = !plan.dropped.is_empty() || !plan.cleared.is_empty();
    Ok(plan)
}

#[cfg(test)]
mod tests;
