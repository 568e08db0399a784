//! Applying an edit by hand: Enter sends it to the store with what its
//! plan was made on (asking first when an agent owns the session), and the
//! store's answer becomes the status line.

use crate::humanize;
use crate::store::{Change, Expected};
use crate::tui::effect::Effect;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{
    App, ClearBy, Confirm, ConfirmAction, EditKind, EditState, Overlay, Viewer, ViewerMode,
};
use crate::tui::msg::Action;
use crate::tui::ops::{EditDone, EditPreview, UiError, ViewerOp};
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
    if state.kind == EditKind::Resumable {
        return measure(viewer, app);
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

/// Asks the store to lay the fix out as it would write it (the CLI's
/// `--dry-run`), so that the question before it states the bytes too.
fn measure(viewer: &mut Viewer, app: &mut App) -> Step {
    let ViewerMode::Edit(state) = &mut viewer.mode else {
        return Step::none();
    };
    let request = Change::Resumable(state.fix());
    state.measuring = true;
    viewer.waiting = app.request();
    Step::effect(Effect::store(
        viewer.waiting,
        ViewerOp::PreviewEdit {
            record: viewer.record.clone(),
            request,
            encoding: app.settings.encoding,
        },
    ))
}

/// The store's preview of the fix: asked to confirm, with its figures.
pub fn on_previewed(viewer: &mut Viewer, app: &mut App, result: Result<EditPreview, UiError>) {
    let agent_owned = viewer.loaded.as_ref().is_some_and(|l| l.agent_owned);
    let ViewerMode::Edit(state) = &mut viewer.mode else {
        return;
    };
    state.measuring = false;
    let preview = match result {
        Ok(p) => p,
        Err(e) => {
            app.complain(e);
            return;
        }
    };
    if !preview.changed {
        app.say("nothing to do: the session changed since, and needs no fix now");
        return;
    }
    state.measured = preview.bytes;
    let mut lines = vec![
        fix_summary(preview.media, preview.results, preview.dropped),
        match preview.bytes {
            Some((before, after)) => format!(
                "Tokens {} → {}; file {} → {}.",
                humanize::count(preview.tokens.0),
                humanize::count(preview.tokens.1),
                humanize::bytes(before),
                humanize::bytes(after)
            ),
            None => format!(
                "Tokens {} → {}.",
                humanize::count(preview.tokens.0),
                humanize::count(preview.tokens.1)
            ),
        },
    ];
    lines.push(if preview.new_session {
        "Writes a new session beside the original, which stays as it is; deleting the new one undoes it.".into()
    } else {
        format!(
            "Writes a new context and makes it active; the old one stays ({} switches back).",
            keymap::key_for(Scope::Viewer, Action::Contexts)
        )
    });
    if agent_owned {
        lines.push(
            "A running agent has this session open: what it writes next would not be in the fork."
                .into(),
        );
    }
    app.overlay = Some(Overlay::Confirm(Confirm {
        title: "Make it resumable?".into(),
        lines,
        action: ConfirmAction::Resumable,
    }));
}

/// `Replaces 2 images and documents; clears 1 tool result.` (what is
/// not done is left out).
fn fix_summary(media: usize, results: usize, dropped: usize) -> String {
    let mut said = Vec::new();
    if media > 0 {
        said.push(format!("replaces {}", humanize::media(media as u64)));
    }
    if results > 0 {
        said.push(format!(
            "clears {}",
            humanize::plural(results as u64, "tool result")
        ));
    }
    if dropped > 0 {
        said.push(format!(
            "drops {} of older turns",
            humanize::plural(dropped as u64, "message")
        ));
    }
    let text = said.join("; ");
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

fn nothing_to_do(state: &EditState) -> String {
    let mark = keymap::key_for(Scope::Edit, Action::Mark);
    if state.kind == EditKind::Resumable {
        return "nothing to do: no image, no document, no tool result over the size, no older turn"
            .into();
    }
    match (state.kind, state.clear_by) {
        (EditKind::Drop, _) => format!("nothing to drop: {mark} marks a message"),
        (EditKind::Clear, ClearBy::Marked) => {
            format!("nothing to clear: {mark} marks a tool result")
        }
        (EditKind::Clear | EditKind::Resumable, _) => {
            "nothing to clear: no tool result is chosen".into()
        }
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
    let what = if done.media > 0 || (done.dropped > 0 && done.cleared > 0) {
        format!(
            "replaced {}, cleared {}, dropped {}",
            humanize::media(done.media as u64),
            humanize::plural(done.cleared as u64, "result"),
            humanize::plural(done.dropped as u64, "message")
        )
    } else if done.dropped > 0 {
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
