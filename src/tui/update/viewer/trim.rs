//! Adjusting a trim in the viewer: every change re-plans at once (pure), the
//! dropped messages are dimmed, and only Enter writes the fork. This module
//! knows only the trim's own state; the viewer hands it what it needs.

use crate::store::{TrimRequest, plan_with_index};
use crate::tui::model::{Loaded, TrimKind, TrimState};
use crate::tui::msg::Action;

/// What a key did to the trim, for the viewer to act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrimStep {
    /// Nothing changed.
    Nothing,
    /// The number changed: re-plan.
    Changed,
    /// Start over measured the other way.
    Restart(Action),
    /// Leave trim mode.
    Cancel,
    /// Write the fork.
    Apply,
}

/// A trim measured by `action`'s kind, starting at a sensible number: the
/// last 20 messages, or the model window (or 3/4 of the total if it fits).
pub fn start(action: Action, loaded: &Loaded, total: Option<u64>, window: u64) -> TrimState {
    let kind = if action == Action::TrimBudget {
        TrimKind::Budget
    } else {
        TrimKind::KeepLast
    };
    let non_special = (loaded.len() - loaded.window.specials().len()) as u64;
    let value = match kind {
        TrimKind::KeepLast => non_special.min(20),
        TrimKind::Budget => match total {
            Some(t) if t > window => window,
            Some(t) => round_down(t * 3 / 4, 1000),
            None => window,
        },
    };
    TrimState {
        kind,
        value,
        typing: None,
        plan: None,
        applying: false,
    }
}

fn round_down(n: u64, to: u64) -> u64 {
    if n > to { n - n % to } else { n }
}

/// Re-plans for the current number, if every count is known (`counts`).
pub fn replan(
    state: &mut TrimState,
    loaded: &Loaded,
    counts: Option<&[u64]>,
) -> Result<(), String> {
    let Some(counts) = counts else {
        state.plan = None;
        return Ok(());
    };
    match plan_with_index(&loaded.window, counts, state.request()) {
        Ok(plan) => {
            state.plan = Some(plan);
            Ok(())
        }
        Err(e) => {
            state.plan = None;
            Err(e.to_string())
        }
    }
}

/// The request to apply, if the plan on screen changes something.
pub fn ready_request(state: &TrimState) -> Option<TrimRequest> {
    if state.kind == TrimKind::KeepLast && state.value == 0 {
        return None;
    }
    state.plan.as_ref().filter(|p| p.changed)?;
    Some(state.request())
}

/// A character typed while trimming; true when it changed the number.
pub fn on_digit(state: &mut TrimState, c: char) -> bool {
    let Some(digit) = c.to_digit(10) else {
        return false;
    };
    let typing = state.typing.get_or_insert_with(String::new);
    if typing.len() < 12 {
        typing.push(char::from_digit(digit, 10).unwrap_or('0'));
    }
    state.value = typing.parse().unwrap_or(0);
    true
}

/// Pasted text while trimming: a number (digits and separators such as
/// `50,000`) replaces the one typed; anything else is ignored. True when
/// the number changed.
pub fn on_paste(state: &mut TrimState, text: &str) -> bool {
    let text = text.trim();
    let is_number = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ',' | '_' | '.' | ' '))
        && text.chars().any(|c| c.is_ascii_digit());
    if !is_number {
        return false;
    }
    let digits: String = text.chars().filter(char::is_ascii_digit).take(12).collect();
    state.value = digits.parse().unwrap_or(0);
    state.typing = Some(digits);
    true
}

/// Keys while trimming (paging is the viewer's).
pub fn on_action(state: &mut TrimState, action: Action) -> TrimStep {
    if state.applying {
        return TrimStep::Nothing;
    }
    let step = match state.kind {
        TrimKind::KeepLast => 1,
        TrimKind::Budget => 1000,
    };
    match action {
        Action::More => {
            state.value = state.value.saturating_add(step);
            state.typing = None;
        }
        Action::Less => {
            state.value = state
                .value
                .saturating_sub(step)
                .max(u64::from(state.kind == TrimKind::KeepLast));
            state.typing = None;
        }
        Action::Backspace => {
            if let Some(typing) = state.typing.as_mut() {
                typing.pop();
                state.value = typing.parse().unwrap_or(0);
            }
        }
        Action::TrimKeepLast | Action::TrimBudget => return TrimStep::Restart(action),
        Action::Back => return TrimStep::Cancel,
        Action::Confirm => return TrimStep::Apply,
        _ => return TrimStep::Nothing,
    }
    TrimStep::Changed
}
