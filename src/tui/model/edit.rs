//! The state of an edit by hand in the viewer: messages marked to drop,
//! tool results chosen to clear, or the fix that makes a session resumable,
//! and the plan made from them at every key. Nothing here is written until
//! the person presses Enter.

use crate::store::{Change, ClearChoice, EditFacts, EditPlan, RESULTS_OVER, ResumableFix};
use std::collections::BTreeSet;

/// What an edit by hand does to the messages it picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditKind {
    /// The marked messages go, with the other halves of their tool pairs.
    Drop,
    /// The chosen tool results become short placeholders.
    Clear,
    /// Make it resumable: images and documents named, big tool results
    /// cleared, optionally only the last turns kept.
    Resumable,
}

/// Which number of the fix for resuming the arrows change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResumableBy {
    /// The size over which tool results are cleared.
    ResultsOver,
    /// The turns kept (0: every turn).
    KeepTurns,
}

/// Which tool results a clear picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClearBy {
    /// The messages marked one by one.
    Marked,
    /// Every tool result holding more than [`EditState::over`] tokens.
    Over,
    /// Every tool result before the last [`EditState::turns`] turns.
    OlderThanTurns,
}

impl ClearBy {
    /// The next choice, in the order Tab goes through them.
    pub fn next(self) -> ClearBy {
        match self {
            ClearBy::Marked => ClearBy::Over,
            ClearBy::Over => ClearBy::OlderThanTurns,
            ClearBy::OlderThanTurns => ClearBy::Marked,
        }
    }
}

/// The turns a clear "older than the last K turns" starts at.
pub const CLEAR_TURNS: u64 = 10;

/// An edit by hand being prepared in the viewer.
#[derive(Clone, Debug, PartialEq)]
pub struct EditState {
    /// Drop or clear.
    pub kind: EditKind,
    /// Messages marked to drop (indices): each kind keeps its own marks,
    /// so switching between them loses nothing.
    pub drop_marks: BTreeSet<usize>,
    /// Messages whose tool results are marked to clear.
    pub clear_marks: BTreeSet<usize>,
    /// The message marked last: a range runs from it to the cursor.
    pub last_mark: Option<usize>,
    /// Which tool results a clear picks.
    pub clear_by: ClearBy,
    /// The size of [`ClearBy::Over`], in tokens.
    pub over: u64,
    /// The turns of [`ClearBy::OlderThanTurns`].
    pub turns: u64,
    /// The fix for resuming: tool results over this many tokens are cleared.
    pub results_over: u64,
    /// The fix for resuming: the last turns kept (0: every turn).
    pub keep_turns: u64,
    /// Which of the fix's two numbers the arrows change.
    pub resumable_by: ResumableBy,
    /// The fix as the store previewed it, to confirm: its bytes before and
    /// after (None until asked for, on Enter).
    pub measured: Option<(u64, u64)>,
    /// Digits typed but not applied yet (for the number of a choice).
    pub typing: Option<String>,
    /// What the edit would do (None until the counts it needs are known).
    pub plan: Option<EditPlan>,
    /// Why the edit cannot be planned as it stands.
    pub problem: Option<String>,
    /// The edit was sent to the store and has not answered.
    pub applying: bool,
    /// The store is laying out the fix to confirm it (bytes included).
    pub measuring: bool,
}

impl EditState {
    /// A new edit of `kind` with nothing marked.
    pub fn new(kind: EditKind, over: u64) -> Self {
        EditState {
            kind,
            drop_marks: BTreeSet::new(),
            clear_marks: BTreeSet::new(),
            last_mark: None,
            clear_by: ClearBy::Marked,
            over,
            turns: CLEAR_TURNS,
            results_over: RESULTS_OVER,
            keep_turns: 0,
            resumable_by: ResumableBy::ResultsOver,
            measured: None,
            typing: None,
            plan: None,
            problem: None,
            applying: false,
            measuring: false,
        }
    }

    /// The marks of the current kind (a drop's for the fix, which has
    /// none of its own and ignores them).
    pub fn marks(&self) -> &BTreeSet<usize> {
        match self.kind {
            EditKind::Drop | EditKind::Resumable => &self.drop_marks,
            EditKind::Clear => &self.clear_marks,
        }
    }

    /// The marks of the current kind, to change.
    pub fn marks_mut(&mut self) -> &mut BTreeSet<usize> {
        match self.kind {
            EditKind::Drop | EditKind::Resumable => &mut self.drop_marks,
            EditKind::Clear => &mut self.clear_marks,
        }
    }

    /// True when the marks decide what the edit picks (a drop, or a clear
    /// of marked results); false for a clear by size or by turns, and for
    /// the fix.
    pub fn by_marks(&self) -> bool {
        match self.kind {
            EditKind::Drop => true,
            EditKind::Clear => self.clear_by == ClearBy::Marked,
            EditKind::Resumable => false,
        }
    }

    /// The number a choice by size or by turns is adjusted through, if
    /// the edit is such a choice.
    pub fn number(&self) -> Option<u64> {
        match (self.kind, self.clear_by, self.resumable_by) {
            (EditKind::Clear, ClearBy::Over, _) => Some(self.over),
            (EditKind::Clear, ClearBy::OlderThanTurns, _) => Some(self.turns),
            (EditKind::Resumable, _, ResumableBy::ResultsOver) => Some(self.results_over),
            (EditKind::Resumable, _, ResumableBy::KeepTurns) => Some(self.keep_turns),
            _ => None,
        }
    }

    /// The step the arrows change the number by: a thousand tokens, or one turn.
    pub fn step(&self) -> u64 {
        match (self.kind, self.clear_by, self.resumable_by) {
            (EditKind::Clear, ClearBy::Over, _) => 1_000,
            (EditKind::Resumable, _, ResumableBy::ResultsOver) => 1_000,
            _ => 1,
        }
    }

    /// Sets the number of the current choice (nothing for a choice by marks).
    pub fn set_number(&mut self, value: u64) {
        match (self.kind, self.clear_by, self.resumable_by) {
            (EditKind::Clear, ClearBy::Over, _) => self.over = value,
            (EditKind::Clear, ClearBy::OlderThanTurns, _) => self.turns = value,
            (EditKind::Resumable, _, ResumableBy::ResultsOver) => self.results_over = value,
            (EditKind::Resumable, _, ResumableBy::KeepTurns) => self.keep_turns = value,
            _ => {}
        }
        self.measured = None;
    }

    /// True while the store works on the edit (keys wait for it).
    pub fn busy(&self) -> bool {
        self.applying || self.measuring
    }

    /// The fix for resuming as the store takes it.
    pub fn fix(&self) -> ResumableFix {
        ResumableFix {
            results_over: self.results_over,
            keep_turns: (self.keep_turns > 0)
                .then(|| usize::try_from(self.keep_turns).unwrap_or(usize::MAX)),
        }
    }

    /// What the store is asked to do, the marks named by their ids.
    pub fn request(&self, index: &EditFacts) -> Change {
        let ids = || {
            self.marks()
                .iter()
                .map(|&i| index.id(i).to_string())
                .collect()
        };
        match (self.kind, self.clear_by) {
            (EditKind::Resumable, _) => Change::Resumable(self.fix()),
            (EditKind::Drop, _) => Change::Drop {
                messages: ids(),
                with_pairs: true,
            },
            (EditKind::Clear, ClearBy::Marked) => Change::Clear(ClearChoice::Messages(ids())),
            (EditKind::Clear, ClearBy::Over) => Change::Clear(ClearChoice::Over(self.over)),
            (EditKind::Clear, ClearBy::OlderThanTurns) => Change::Clear(
                ClearChoice::OlderThanTurns(usize::try_from(self.turns).unwrap_or(usize::MAX)),
            ),
        }
    }

    /// The choice of a clear as the planner takes it (None for marks).
    pub fn clear_choice(&self) -> Option<ClearChoice> {
        match self.clear_by {
            ClearBy::Marked => None,
            ClearBy::Over => Some(ClearChoice::Over(self.over)),
            ClearBy::OlderThanTurns => Some(ClearChoice::OlderThanTurns(
                usize::try_from(self.turns).unwrap_or(usize::MAX),
            )),
        }
    }
}
