//! A context compared with its parent, over the viewer's list of contexts:
//! the comparison the store made, and how its lines are laid out (the
//! totals stay on top; the sections below scroll).

use crate::store::{ContextDiff, DiffCleared, DiffMessage};
use crate::tui::ops::UiError;

/// A context compared with its parent.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffView {
    /// The context compared.
    pub context_id: String,
    /// The comparison, once made (or why it could not be).
    pub result: Option<Result<ContextDiff, UiError>>,
    /// Lines of the sections scrolled by.
    pub scroll: usize,
    /// The tag of the comparison asked for.
    pub waiting: u64,
}

/// One line of the scrolled part of a comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DiffLine<'a> {
    /// A section's title and how many messages it lists.
    Heading(DiffSection, usize),
    /// A message of the parent the context dropped.
    Dropped(&'a DiffMessage),
    /// A message whose tool results the context cleared.
    Cleared(&'a DiffCleared),
    /// A message the context gained since the fork.
    Added(&'a DiffMessage),
}

/// The sections of a comparison, in the order shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffSection {
    /// Messages of the parent the context does not hold.
    Dropped,
    /// Messages cleared in the context.
    Cleared,
    /// Messages added since the fork.
    Added,
}

/// Lines of the sections of `diff` (each empty section takes none).
pub fn body_len(diff: &ContextDiff) -> usize {
    [diff.dropped.len(), diff.cleared.len(), diff.added.len()]
        .iter()
        .map(|&n| if n > 0 { n + 1 } else { 0 })
        .sum()
}

/// Line `n` of the sections of `diff`.
pub fn body_line(diff: &ContextDiff, mut n: usize) -> Option<DiffLine<'_>> {
    let sections = [
        (DiffSection::Dropped, diff.dropped.len()),
        (DiffSection::Cleared, diff.cleared.len()),
        (DiffSection::Added, diff.added.len()),
    ];
    for (section, len) in sections {
        if len == 0 {
            continue;
        }
        if n == 0 {
            return Some(DiffLine::Heading(section, len));
        }
        if n <= len {
            let i = n - 1;
            return Some(match section {
                DiffSection::Dropped => DiffLine::Dropped(&diff.dropped[i]),
                DiffSection::Cleared => DiffLine::Cleared(&diff.cleared[i]),
                DiffSection::Added => DiffLine::Added(&diff.added[i]),
            });
        }
        n -= len + 1;
    }
    None
}
