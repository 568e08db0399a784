//! A context of the list compared with its parent (the store's `diff`, on
//! a worker): what its fork dropped, cleared and gained since. Shown over
//! the list of contexts; Esc goes back to it.

use crate::store::ContextDiff;
use crate::tui::effect::Effect;
use crate::tui::model::{App, ContextsView, DiffView, Viewer, ViewerMode, body_len};
use crate::tui::msg::Action;
use crate::tui::ops::{UiError, ViewerOp};
use crate::tui::update::{Step, move_cursor};

/// Compares the chosen context with its parent.
pub fn open(viewer: &mut Viewer, app: &mut App) -> Step {
    let record = viewer.record.clone();
    let ViewerMode::Contexts(view) = &mut viewer.mode else {
        return Step::none();
    };
    let Some(chosen) = view.chosen() else {
        return Step::none();
    };
    let context_id = chosen.id.clone();
    let req = app.request();
    view.diff = Some(DiffView {
        context_id: context_id.clone(),
        result: None,
        scroll: 0,
        waiting: req,
    });
    Step::effect(Effect::store(
        req,
        ViewerOp::DiffContext {
            record,
            context_id,
            encoding: app.settings.encoding,
        },
    ))
}

/// The comparison arrived (kept if it is still the one asked for).
pub fn on_diffed(viewer: &mut Viewer, req: u64, result: Result<ContextDiff, UiError>) {
    if let Some(diff) = viewer
        .contexts_mut()
        .and_then(|view| view.diff.as_mut())
        .filter(|diff| diff.waiting == req)
    {
        diff.result = Some(result);
    }
}

/// Keys over the comparison: scrolling, and back to the list.
pub fn on_action(view: &mut ContextsView, action: Action, page: usize) {
    let Some(diff) = view.diff.as_mut() else {
        return;
    };
    if action == Action::Back {
        view.diff = None;
        return;
    }
    let lines = match &diff.result {
        Some(Ok(d)) => body_len(d),
        _ => 0,
    };
    // The last page shows the last line: no scrolling past it.
    move_cursor(
        &mut diff.scroll,
        lines.saturating_sub(page) + 1,
        action,
        page,
    );
}
