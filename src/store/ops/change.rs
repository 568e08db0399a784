//! One change to a context, whatever the agent: what is asked (a window,
//! a drop, a clear, the fix for resuming), whether it is previewed or
//! written, and the one plan every kind makes. `native_fork.rs` writes it
//! for a Loki or peteos session, `agent_fork.rs` for another agent's; the
//! store's door picks between them, the only place the agent decides.

mod report;

pub use report::{AgentFork, ChangeReport, ClearedReport};

use crate::store::error::Result;
use crate::store::format::edit_facts::EditFacts;
use crate::store::format::tokens::Encoding;
use crate::store::format::{Context, check_fork};
use crate::store::ops::counting::{cleared_counts, replaced_counts};
use crate::store::ops::edit_plan::{
    ClearChoice, ClearedCounts, EditPlan, clear_targets, plan_clear, plan_drop,
};
use crate::store::ops::forking::Expected;
use crate::store::ops::resumable::{self, ResumableFix};
use crate::store::ops::window_plan::{Window, WindowPlan, keep_pairs_whole, plan_window};

/// A change to the active context. Each is written as a fork: the context
/// (or the other agent's session) it was made from stays as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Keep the newest messages a window holds: a drop of the oldest.
    Window(Window),
    /// Drop these messages (ids or unique prefixes). With `with_pairs` the
    /// other halves of their tool pairs go too; without it, a drop that
    /// would split a pair is refused, naming the partner.
    Drop {
        /// The messages asked for.
        messages: Vec<String>,
        /// Also drop the partners of tool pairs.
        with_pairs: bool,
    },
    /// Replace the content of tool results with a placeholder.
    Clear(ClearChoice),
    /// The common fix for a session too large to resume: media replaced,
    /// big tool results cleared, optionally only the last turns kept.
    Resumable(ResumableFix),
}

impl Change {
    /// True when planning needs only each message's count, so counts kept
    /// by an earlier look are all it takes (a clear counts new text).
    pub fn needs_only_counts(&self) -> bool {
        matches!(self, Change::Window(_) | Change::Drop { .. })
    }
}

/// Whether a change is only looked at or written.
#[derive(Clone, Copy, Debug)]
pub enum Mode<'a> {
    /// Plan and lay out the fork, write nothing: refused exactly where the
    /// write would be, so a dry run answers as the write.
    Preview,
    /// Write the fork; `expected` (what a preview was made on, if one was)
    /// refuses it if the context changed since.
    Write {
        /// What the preview saw.
        expected: Option<&'a Expected>,
    },
}

impl Mode<'_> {
    /// What the preview saw, when writing after one.
    pub fn expected(&self) -> Option<&Expected> {
        match self {
            Mode::Preview => None,
            Mode::Write { expected } => *expected,
        }
    }

    /// True when the fork is to be written.
    pub fn writes(&self) -> bool {
        matches!(self, Mode::Write { .. })
    }
}

/// A plan made on one context: the plan, the facts it was made on, and
/// what a person should know besides the figures.
pub(crate) struct Planned {
    pub plan: EditPlan,
    pub facts: EditFacts,
    pub notes: Vec<String>,
}

/// Plans `change` on `ctx` given the count of each message, counting the
/// new text a clear or a fix writes. With `whole_pairs` a window also
/// drops the other halves of the tool pairs it cuts (another agent's API
/// refuses a result without its call; peteos keeps them, as its own
/// windows do). Refuses a plan whose fork could not be written.
pub(crate) fn plan(
    ctx: &Context,
    change: &Change,
    encoding: Encoding,
    counts: Vec<u64>,
    whole_pairs: bool,
) -> Result<Planned> {
    let facts = EditFacts::new(ctx);
    let (plan, notes) = match change {
        Change::Window(window) => {
            let mut plan = plan_window(ctx, &counts, *window)?;
            if whole_pairs {
                keep_pairs_whole(&mut plan, &facts, &counts);
            }
            let notes = plan.warnings(*window);
            (from_window(plan), notes)
        }
        Change::Drop {
            messages,
            with_pairs,
        } => {
            let plan = plan_drop(&facts, &counts, messages, *with_pairs)?;
            let notes = plan.notes(&facts);
            (plan, notes)
        }
        Change::Clear(choice) => {
            let cleared = clear_counts(ctx, &facts, &counts, encoding, choice)?;
            let plan = plan_clear(&facts, &counts, &cleared, choice)?;
            let notes = plan.notes(&facts);
            (plan, notes)
        }
        Change::Resumable(fix) => {
            let replacements = resumable::replacements(&facts, &counts, fix)?;
            let after = replaced_counts(ctx, encoding, &replacements)?;
            let plan = resumable::plan(&facts, &counts, &after, fix)?;
            let notes = plan.notes(&facts);
            (plan, notes)
        }
    };
    if plan.changed {
        check_fork(ctx, &plan.kept)?;
    }
    Ok(Planned { plan, facts, notes })
}

/// The count of each message a clear chooses, once cleared.
fn clear_counts(
    ctx: &Context,
    facts: &EditFacts,
    counts: &[u64],
    encoding: Encoding,
    choice: &ClearChoice,
) -> Result<ClearedCounts> {
    let targets = clear_targets(facts, counts, choice)?;
    cleared_counts(ctx, facts, counts, encoding, &targets)
}

/// A window's plan as the plan of a drop: the messages it leaves out are
/// the ones dropped (the pairs it cut, for another agent, among them).
fn from_window(plan: WindowPlan) -> EditPlan {
    EditPlan {
        changed: plan.changed,
        kept: plan.kept,
        asked: plan.dropped.clone(),
        dropped: plan.dropped,
        partners: Vec::new(),
        cleared: Vec::new(),
        unchanged: Vec::new(),
        tokens_before: plan.tokens_before,
        tokens_after: plan.tokens_after,
    }
}
