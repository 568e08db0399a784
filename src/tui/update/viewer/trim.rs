//! Adjusting a trim in the viewer: every change re-plans at once (pure), the
//! dropped messages are dimmed, and only Enter writes the fork (asking
//! first when an agent owns the session). The functions on `TrimState`
//! know only the trim's own state; the rest is its glue with the viewer.

use crate::store::{Expected, Window, check_fork, keep_pairs_whole, plan_with_facts};
use crate::tui::effect::Effect;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{
    App, Confirm, ConfirmAction, Loaded, Overlay, TrimKind, TrimState, Viewer, ViewerMode,
};
use crate::tui::msg::Action;
use crate::tui::ops::{UiError, ViewerOp};
use crate::tui::update::Step;

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
    let non_special = (loaded.len() - loaded.context.special_indices().len()) as u64;
    let value = match kind {
        TrimKind::KeepLast => non_special.min(20),
        TrimKind::Budget => match total {
            Some(t) if t > window => window,
            Some(t) => round_down(t * 3 / 4, 1000),
            None => window,
        },
    };
    let step = match kind {
        TrimKind::KeepLast => 1,
        TrimKind::Budget => budget_step(total),
    };
    TrimState {
        kind,
        value,
        typing: None,
        plan: None,
        problem: None,
        applying: false,
        step,
    }
}

/// The step of a token budget: about a twentieth of the context's tokens,
/// rounded to 1, 2 or 5 times a power of ten, so that a small context is
/// not crossed in one press and a big one not in a hundred.
fn budget_step(total: Option<u64>) -> u64 {
    let Some(total) = total.filter(|t| *t > 0) else {
        return 1000;
    };
    let rough = (total / 20).max(1);
    let mut power = 1;
    while power * 10 <= rough {
        power *= 10;
    }
    [5, 2, 1]
        .into_iter()
        .map(|m| m * power)
        .find(|step| *step <= rough)
        .unwrap_or(power)
}

fn round_down(n: u64, to: u64) -> u64 {
    if n > to { n - n % to } else { n }
}

/// Re-plans for the current number, if every count is known (`counts`)
/// and the context.s edit facts are read; `external`: another agent's
/// session, whose fork keeps tool pairs whole.
pub fn replan(
    state: &mut TrimState,
    loaded: &Loaded,
    counts: Option<&[u64]>,
    external: bool,
) -> Result<(), String> {
    state.problem = None;
    let (Some(counts), Some(facts)) = (counts, &loaded.facts) else {
        state.plan = None;
        return Ok(());
    };
    let planned = plan_with_facts(facts.window(), counts, state.request()).and_then(|mut plan| {
        // Another agent's fork keeps tool pairs whole, as the store does.
        if external {
            keep_pairs_whole(&mut plan, facts, counts);
        }
        // Refused here, as the write would refuse it, not after Enter.
        if plan.changed {
            check_fork(&loaded.context, &plan.kept)?;
        }
        Ok(plan)
    });
    match planned {
        Ok(plan) => {
            state.plan = Some(plan);
            Ok(())
        }
        Err(e) => {
            state.plan = None;
            let why = e.reason_first();
            state.problem = Some(why.clone());
            Err(why)
        }
    }
}

/// The request to apply, if the plan on screen changes something.
pub fn ready_request(state: &TrimState) -> Option<Window> {
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
    let step = state.step;
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

/// Starts a trim measured as `action` says, at the number last chosen for
/// this session.
pub fn begin(viewer: &mut Viewer, app: &mut App, action: Action) {
    let Some(loaded) = &viewer.loaded else {
        return;
    };
    if let Err(e) = viewer.record.trimmable() {
        app.complain(e.to_string());
        return;
    }
    let total = viewer
        .complete_counts(app.settings.encoding)
        .map(|c| c.iter().sum());
    let mut state = start(action, loaded, total, app.settings.window_tokens);
    if let Some(value) = app.trims.get(&(viewer.record.id.to_string(), state.kind)) {
        state.value = *value;
    }
    viewer.mode = ViewerMode::Trim(state);
    let _ = super::replan(viewer, app); // a trim asks for nothing more
}

/// Keys while trimming.
pub fn on_viewer_action(viewer: &mut Viewer, app: &mut App, action: Action) -> Step {
    // The view moves while the trim stays as it is.
    if matches!(
        action,
        Action::PageUp | Action::PageDown | Action::Home | Action::End
    ) {
        super::sizes::move_selection(viewer, action, app.page());
        return Step::none();
    }
    let ViewerMode::Trim(state) = &mut viewer.mode else {
        return Step::none();
    };
    match on_action(state, action) {
        TrimStep::Nothing => Step::none(),
        TrimStep::Changed => Step::effects(super::replan(viewer, app)),
        TrimStep::Restart(action) => {
            begin(viewer, app, action);
            Step::none()
        }
        TrimStep::Cancel => {
            viewer.mode = ViewerMode::Browse;
            Step::none()
        }
        TrimStep::Apply => ask_or_apply(viewer, app),
    }
}

/// Applies the trim, asking first when an agent owns the session: it may be
/// appending right now, and the fork would miss what it writes next.
fn ask_or_apply(viewer: &mut Viewer, app: &mut App) -> Step {
    let agent_owned = viewer.loaded.as_ref().is_some_and(|l| l.agent_owned);
    let ready = matches!(&viewer.mode, ViewerMode::Trim(state) if ready_request(state).is_some());
    if agent_owned && ready {
        app.overlay = Some(Overlay::Confirm(Confirm {
            title: "An agent owns this session".into(),
            lines: vec![
                "session.json says a running agent has it open (is_active).".into(),
                "The trim takes the session's lock, but the agent may keep writing to the context it has loaded, and what it writes next would not be in the fork.".into(),
                "Trim it anyway?".into(),
            ],
            action: ConfirmAction::TrimAgentOwned,
        }));
        return Step::none();
    }
    apply(viewer, app)
}

/// Sends the trim to the store with what its preview was made on.
pub fn apply(viewer: &mut Viewer, app: &mut App) -> Step {
    let (Some(loaded), ViewerMode::Trim(state)) = (&viewer.loaded, &mut viewer.mode) else {
        return Step::none();
    };
    let Some(request) = ready_request(state) else {
        match (state.plan.as_ref().map(|p| p.changed), &state.problem) {
            (Some(false), _) => app.say("nothing to trim: the context already fits"),
            (None, Some(problem)) => app.complain(problem.clone()),
            _ => app.say("still counting tokens; try again in a moment"),
        }
        return Step::none();
    };
    state.applying = true;
    let expected = Expected {
        context_id: loaded.context.id().to_string(),
        mutation_counter: loaded.context.mutation_counter(),
    };
    viewer.waiting = app.request();
    Step::effect(Effect::store(
        viewer.waiting,
        ViewerOp::ApplyTrim {
            record: viewer.record.clone(),
            request,
            encoding: app.settings.encoding,
            expected,
        },
    ))
}

/// The store's answer to a trim.
pub fn on_trimmed(
    viewer: &mut Viewer,
    app: &mut App,
    result: Result<Option<String>, UiError>,
) -> Step {
    match result {
        Ok(Some(id)) if viewer.record.agent.is_external() => {
            app.say(format!(
                "trimmed: new session {}… beside the original, which is unchanged; it is in the list",
                id.get(..8).unwrap_or(&id)
            ));
            viewer.mode = ViewerMode::Browse;
            Step::go(crate::tui::update::Go::Rescan)
        }
        Ok(Some(id)) => {
            // The date and the first part of the id name it on screen, and
            // leave room at 80 columns for the key that undoes the trim.
            let short = id.get(..17).unwrap_or(&id);
            app.say(format!(
                "trimmed: new active context {short}…; press {} to switch back",
                keymap::key_for(Scope::Viewer, Action::Contexts)
            ));
            Step::effects(super::reload(viewer, app))
        }
        Ok(None) => {
            app.say("nothing to trim: the context already fits");
            Step::effects(super::reload(viewer, app))
        }
        Err(e) => {
            if let ViewerMode::Trim(state) = &mut viewer.mode {
                state.applying = false;
            }
            app.complain(e);
            Step::none()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::budget_step;

    #[test]
    fn a_budget_steps_by_a_round_share_of_the_context() {
        assert_eq!(
            budget_step(Some(754)),
            20,
            "565 to 0 took one step of 1,000"
        );
        assert_eq!(budget_step(Some(224_260)), 10_000);
        assert_eq!(budget_step(Some(60_000)), 2_000);
        assert_eq!(budget_step(Some(19)), 1);
        assert_eq!(budget_step(None), 1000, "before the counts");
    }
}
