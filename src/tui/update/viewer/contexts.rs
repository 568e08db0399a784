//! The contexts (forks) of the open session: listed through the store with
//! how each stands to the active one (first quickly, then again with token
//! counts), made active (the undo of a trim), or deleted after a question.
//! What may be deleted is the store's rule: it is asked before the person is.

use crate::humanize;
use crate::store::{ContextInfo, DeletedContext, Relation};
use crate::tui::effect::Effect;
use crate::tui::model::{App, Confirm, ConfirmAction, ContextsView, Overlay, Viewer, ViewerMode};
use crate::tui::msg::Action;
use crate::tui::ops::{UiError, ViewerOp};
use crate::tui::update::{Step, move_cursor};

/// Opens the list, reading it.
pub fn open(viewer: &mut Viewer, app: &mut App) -> Step {
    let req = app.request();
    viewer.mode = ViewerMode::Contexts(ContextsView {
        waiting: req,
        ..ContextsView::default()
    });
    Step::effect(Effect::store(
        req,
        ViewerOp::ListContexts {
            record: viewer.record.clone(),
            encoding: None,
        },
    ))
}

/// The store listed the contexts: the cursor stays on the context it was
/// on (the active one at first); a list without tokens asks for them next.
/// A failed listing shows its error in place of the list.
pub fn on_listed(
    viewer: &mut Viewer,
    app: &mut App,
    req: u64,
    counted: bool,
    result: Result<Vec<ContextInfo>, UiError>,
) -> Step {
    let record = viewer.record.clone();
    let ViewerMode::Contexts(view) = &mut viewer.mode else {
        return Step::none();
    };
    if req != view.waiting {
        return Step::none();
    }
    let mut list = match result {
        Ok(list) => list,
        Err(e) if view.list.is_some() => {
            view.counted = true;
            app.complain(format!("cannot count the contexts' tokens: {e}"));
            return Step::none();
        }
        Err(e) => {
            view.error = Some(e);
            return Step::none();
        }
    };
    if !counted {
        // Counts already on screen stay until the new ones come.
        for context in &mut list {
            context.tokens = view
                .list
                .iter()
                .flatten()
                .find(|old| old.id == context.id)
                .and_then(|old| old.tokens);
        }
    }
    let last = list.len().saturating_sub(1);
    view.cursor = match view.chosen() {
        // A context deleted leaves the cursor on the row that took its place.
        Some(chosen) => list
            .iter()
            .position(|c| c.id == chosen.id)
            .unwrap_or(view.cursor.min(last)),
        None => list
            .iter()
            .position(|c| c.relation == Relation::Active)
            .unwrap_or(0),
    };
    view.list = Some(list);
    view.counted = counted;
    view.error = None;
    if counted {
        return Step::none();
    }
    view.waiting = app.request();
    Step::effect(Effect::store(
        view.waiting,
        ViewerOp::ListContexts {
            record,
            encoding: Some(app.settings.encoding),
        },
    ))
}

/// Keys in the list of contexts.
pub fn on_action(viewer: &mut Viewer, app: &mut App, action: Action) -> Step {
    let ViewerMode::Contexts(view) = &mut viewer.mode else {
        return Step::none();
    };
    let len = view.list.as_ref().map_or(0, Vec::len);
    if move_cursor(&mut view.cursor, len, action, app.page()) {
        return Step::none();
    }
    match action {
        Action::Back => {
            viewer.mode = ViewerMode::Browse;
            Step::none()
        }
        Action::Confirm => switch(viewer, app),
        Action::DeleteContext => ask_store(viewer, app),
        _ => Step::none(),
    }
}

/// Makes the chosen context active (nothing to do for the active one).
fn switch(viewer: &mut Viewer, app: &mut App) -> Step {
    let Some(chosen) = viewer.contexts().and_then(ContextsView::chosen) else {
        return Step::none();
    };
    if chosen.relation == Relation::Active {
        viewer.mode = ViewerMode::Browse;
        return Step::none();
    }
    if let Some(error) = &chosen.error {
        app.complain(format!("cannot switch to {}: {error}", chosen.id));
        return Step::none();
    }
    let context_id = chosen.id.clone();
    if viewer.record.agent.is_external() {
        // Another agent's subagent or side thread: read in the session's
        // place (its files are never made to point elsewhere).
        viewer.mode = ViewerMode::Browse;
        return Step::effects(super::side::open(viewer, app, context_id));
    }
    viewer.waiting = app.request();
    Step::effect(Effect::store(
        viewer.waiting,
        ViewerOp::SwitchContext {
            record: viewer.record.clone(),
            context_id,
        },
    ))
}

/// Asks the store whether the chosen context may be deleted.
fn ask_store(viewer: &mut Viewer, app: &mut App) -> Step {
    let record = viewer.record.clone();
    let ViewerMode::Contexts(view) = &mut viewer.mode else {
        return Step::none();
    };
    let Some(chosen) = view.chosen() else {
        return Step::none();
    };
    let context_id = chosen.id.clone();
    view.waiting = app.request();
    Step::effect(Effect::store(
        view.waiting,
        ViewerOp::CheckDeleteContext { record, context_id },
    ))
}

/// The store's answer: the question, or why not.
pub fn on_checked(
    viewer: &mut Viewer,
    app: &mut App,
    req: u64,
    context_id: &str,
    result: Result<(), UiError>,
) -> Step {
    let Some(view) = viewer.contexts().filter(|v| v.waiting == req) else {
        return Step::none();
    };
    match result {
        Ok(()) => {
            let context = view.list.iter().flatten().find(|c| c.id == context_id);
            app.overlay = Some(Overlay::Confirm(question(context_id, context)));
        }
        Err(e) => app.complain(format!("not deleted: {e}")),
    }
    Step::none()
}

/// What deleting `id` does, for the question.
fn question(id: &str, context: Option<&ContextInfo>) -> Confirm {
    let mut lines = Vec::new();
    if let Some(c) = context {
        let mut facts = vec![c.messages.map_or("messages unknown".into(), |n| {
            humanize::plural(n as u64, "message")
        })];
        if let Some(tokens) = c.tokens {
            facts.push(format!("{} tokens", humanize::count(tokens)));
        }
        if let Some(at) = c.created_at {
            facts.push(format!("made {}", humanize::datetime(at)));
        }
        lines.push(facts.join(", "));
        lines.push(match &c.origin_context_id {
            Some(parent) => format!("forked from {parent}"),
            None => "not a fork of another context".into(),
        });
    }
    lines.push(
        "Its file is deleted and its parent forgets it; the active context is untouched. This cannot be undone."
            .into(),
    );
    Confirm {
        title: format!("Delete context {id}?"),
        lines,
        action: ConfirmAction::DeleteContext { id: id.to_string() },
    }
}

/// The person said yes: the store deletes it (checking again under the lock).
pub fn on_delete_confirmed(viewer: &mut Viewer, app: &mut App, id: &str) -> Step {
    let record = viewer.record.clone();
    let ViewerMode::Contexts(view) = &mut viewer.mode else {
        return Step::none();
    };
    view.waiting = app.request();
    Step::effect(Effect::store(
        view.waiting,
        ViewerOp::DeleteContext {
            record,
            context_id: id.to_string(),
        },
    ))
}

/// The deletion is done (or was refused): say so and list again.
pub fn on_deleted(
    viewer: &mut Viewer,
    app: &mut App,
    req: u64,
    result: Result<DeletedContext, UiError>,
) -> Step {
    let record = viewer.record.clone();
    let ViewerMode::Contexts(view) = &mut viewer.mode else {
        return Step::none();
    };
    if req != view.waiting {
        return Step::none();
    }
    match result {
        Ok(deleted) => app.say(format!(
            "deleted context {}: {}",
            deleted.id,
            humanize::plural(deleted.messages as u64, "message")
        )),
        Err(e) => app.complain(format!("not deleted: {e}")),
    }
    view.waiting = app.request();
    Step::effect(Effect::store(
        view.waiting,
        ViewerOp::ListContexts {
            record,
            encoding: None,
        },
    ))
}
