//! Applying an edit by hand: Enter sends it to the store with what its
//! plan was made on (asking first when an agent owns the session), and the
//! store's answer becomes the status line.

use crate::humanize;
use crate::store::Expected;
use crate::tui::effect::Effect;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{
    App, ClearBy, Confirm, ConfirmAction, EditKind, EditState, Overlay, Viewer, ViewerMode,
};
use crate::tui::msg::Action;
use crate::tui::ops::{EditDone, UiError, ViewerOp};
use crate::tui::update::Step;

/// Enter: applies the edit, asking first when an agent owns the session
/// (it may be appending, and the fork would miss what it writes next).
pub fn ask_or_apply(viewer: &mut Viewer, app: &mut App) -> Step {
    let Some(state) = viewer.edit() else {
        return Step::none();
    };
    match (&state.plan, &state.problem) {
        (None, Some(problem)) => {
            app.complain(problem.clone());
            return Step::none();
        }
        (None, None) => {
            app.say("still counting tokens; try again in a moment");
            return Step::none();
        }
        (Some(plan), _) if !plan.changed => {
            app.say(nothing_to_do(state));
            return Step::none();
        }
        (Some(_), _) => {}
    }
    if viewer.loaded.as_ref().is_some_and(|l| l.agent_owned) {
        app.overlay = Some(Overlay::Confirm(Confirm {
            title: "An agent owns this session".into(),
            lines: vec![
                "session.json says a running agent has it open (is_active).".into(),
                "The edit takes the session's lock, but the agent may keep writing to the context it has loaded, and what it writes next would not be in the fork.".into(),
                "Apply it anyway?".into(),
            ],
            action: ConfirmAction::EditAgentOwned,
        }));
        return Step::none();
    }
    apply(viewer, app)
}

fn nothing_to_do(state: &EditState) -> String {
    let mark = keymap::key_for(Scope::Edit, Action::Mark);
    match (state.kind, state.clear_by) {
        (EditKind::Drop, _) => format!("nothing to drop: {mark} marks a message"),
        (EditKind::Clear, ClearBy::Marked) => {
            format!("nothing to clear: {mark} marks a tool result")
        }
        (EditKind::Clear, _) => "nothing to clear: no tool result is chosen".into(),
    }
}

/// Sends the edit to the store with what the plan was made on, so a
/// context changed since is refused rather than edited blind.
pub fn apply(viewer: &mut Viewer, app: &mut App) -> Step {
    let (Some(loaded), ViewerMode::Edit(state)) = (&viewer.loaded, &mut viewer.mode) else {
        return Step::none();
    };
    let Some(facts) = &loaded.facts else {
        return Step::none();
    };
    let request = state.request(facts);
    state.applying = true;
    let expected = Expected {
        context_id: loaded.context.id().to_string(),
        mutation_counter: loaded.context.mutation_counter(),
    };
    viewer.waiting = app.request();
    Step::effect(Effect::store(
        viewer.waiting,
        ViewerOp::ApplyEdit {
            record: viewer.record.clone(),
            request,
            encoding: app.settings.encoding,
            expected,
        },
    ))
}

/// The store's answer: says what happened, and whether the conversation
/// should be read again (it changed, or may have).
pub fn on_edited(viewer: &mut Viewer, app: &mut App, result: Result<EditDone, UiError>) -> bool {
    match result {
        Ok(done) => {
            app.say(report(&done));
            true
        }
        Err(e) => {
            if let ViewerMode::Edit(state) = &mut viewer.mode {
                state.applying = false;
            }
            app.complain(e);
            false
        }
    }
}

/// `dropped 5 messages (12,345 → 10,000 tokens), new fork; c switches back`
/// (80 columns hold it with six-figure totals).
fn report(done: &EditDone) -> String {
    if done.child.is_none() {
        return "nothing changed: the context already was so".into();
    }
    let what = if done.dropped > 0 {
        format!(
            "dropped {}",
            humanize::plural(done.dropped as u64, "message")
        )
    } else {
        format!(
            "cleared {}",
            humanize::plural(done.cleared as u64, "tool result")
        )
    };
    if done.new_session {
        let id = done.child.as_deref().unwrap_or("");
        return format!(
            "{what} ({} → {} tokens): new session {}… beside the original, which is unchanged",
            humanize::count(done.tokens_before),
            humanize::count(done.tokens_after),
            id.get(..8).unwrap_or(id)
        );
    }
    format!(
        "{what} ({} → {} tokens), new fork; {} switches back",
        humanize::count(done.tokens_before),
        humanize::count(done.tokens_after),
        keymap::key_for(Scope::Viewer, Action::Contexts)
    )
}
