//! The trash pane: what the trash holds, newest first; a key puts the
//! selected session back where it was (the store's `restore`, the call
//! `loki-sessions restore` makes), and the list reads the store again.

use crate::humanize;
use crate::tui::effect::Effect;
use crate::tui::model::{App, TrashFrom, TrashView, shown_title};
use crate::tui::msg::Action;
use crate::tui::ops::{TrashOp, TrashReply};
use crate::tui::update::{Go, Step, move_cursor};

/// A new pane, listing the trash; Esc goes back to `from`.
pub fn open(app: &mut App, from: TrashFrom) -> (TrashView, Vec<Effect>) {
    let mut trash = TrashView {
        from,
        ..TrashView::default()
    };
    let effects = list(&mut trash, app);
    (trash, effects)
}

fn list(trash: &mut TrashView, app: &mut App) -> Vec<Effect> {
    trash.waiting = app.request();
    vec![Effect::store(trash.waiting, TrashOp::List)]
}

/// Keys of the pane.
pub fn on_action(trash: &mut TrashView, app: &mut App, action: Action) -> Step {
    if trash.restoring.is_some() {
        return Step::none(); // one restore at a time; it takes a moment
    }
    let rows = trash.entries.as_ref().map_or(0, Vec::len);
    if move_cursor(&mut trash.selected, rows, action, app.page()) {
        return Step::none();
    }
    match action {
        Action::Back => Step::go(match trash.from {
            TrashFrom::List => Go::List,
            TrashFrom::Purge(agent) => Go::PurgeOf(agent),
        }),
        Action::Restore => restore(trash, app),
        Action::Refresh => Step::effects(list(trash, app)),
        _ => Step::none(),
    }
}

/// Puts the selected session back; nothing is asked (nothing is lost: a
/// file that is there again is never restored over).
fn restore(trash: &mut TrashView, app: &mut App) -> Step {
    let Some(entry) = trash.selected_entry() else {
        app.say("the trash is empty: nothing to restore");
        return Step::none();
    };
    let (id, entry) = (entry.id.clone(), entry.entry.clone());
    trash.restoring = Some(id);
    trash.waiting = app.request();
    Step::effect(Effect::store(trash.waiting, TrashOp::Restore { entry }))
}

/// A reply of the worker, to request `req`; older ones are dropped.
pub fn on_reply(trash: &mut TrashView, app: &mut App, req: u64, reply: TrashReply) -> Step {
    if req != trash.waiting {
        return Step::none();
    }
    match reply {
        TrashReply::Listed { result } => {
            match result {
                Ok(entries) => {
                    trash.selected = trash.selected.min(entries.len().saturating_sub(1));
                    trash.entries = Some(entries);
                    trash.error = None;
                }
                Err(e) => trash.error = Some(e),
            }
            Step::none()
        }
        TrashReply::Restored { result } => {
            trash.restoring = None;
            match result {
                Ok(entry) => {
                    let to = entry
                        .moves
                        .first()
                        .map(|m| m.from.display().to_string())
                        .unwrap_or_default();
                    app.say(format!(
                        "restored {} session {} to {to}",
                        entry.agent.display_name(),
                        humanize::truncate(shown_title(&entry), 40),
                    ));
                    Step {
                        effects: list(trash, app),
                        go: Some(Go::Rescan),
                    }
                }
                Err(e) => {
                    app.complain(e);
                    Step::effects(list(trash, app))
                }
            }
        }
    }
}
