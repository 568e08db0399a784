//! The trash pane: what the trash holds, newest first; a key puts the
//! selected session back where it was (the store's `restore`, the call
//! `loki-sessions restore` makes), and the list reads the store again.
//! Another empties it, after a question naming what goes for good (all,
//! or what was trashed over an age ago: `trash --empty --older-than`).

use crate::humanize;
use crate::tui::effect::Effect;
use crate::tui::model::{
    App, Confirm, ConfirmAction, EMPTY_AGES, Overlay, TrashFrom, TrashView, shown_title,
};
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
    if trash.restoring.is_some() || trash.deleting.is_some() {
        return Step::none(); // one change at a time; it takes a moment
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
        Action::Delete => {
            ask_to_empty(trash, app);
            Step::none()
        }
        Action::AgeMore => {
            let at = EMPTY_AGES.partition_point(|d| *d <= trash.older_than_days);
            trash.older_than_days = EMPTY_AGES[at.min(EMPTY_AGES.len() - 1)];
            Step::none()
        }
        Action::AgeLess => {
            let at = EMPTY_AGES.partition_point(|d| *d < trash.older_than_days);
            trash.older_than_days = EMPTY_AGES[at.saturating_sub(1)];
            Step::none()
        }
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

/// Asks before deleting for good what emptying would delete now; the
/// question names them, and yes deletes those and no other.
fn ask_to_empty(trash: &TrashView, app: &mut App) {
    let doomed = trash.doomed(app.now);
    if doomed.is_empty() {
        app.say(
            match (
                trash.entries.as_ref().map_or(0, Vec::len),
                trash.older_than_days,
            ) {
                (0, _) => "the trash is empty: nothing to delete".to_string(),
                (_, days) => format!(
                    "nothing in the trash was trashed over {} ago",
                    humanize::plural(u64::from(days), "day")
                ),
            },
        );
        return;
    }
    let bytes = doomed.iter().map(|e| e.bytes).sum();
    let mut lines = vec![format!(
        "They are deleted with their side files ({}); no restore brings them back.",
        humanize::bytes(bytes)
    )];
    lines.extend(doomed.iter().take(4).map(|e| {
        format!(
            "{:<11}  {}",
            e.agent.display_name(),
            humanize::truncate(shown_title(e), 40)
        )
    }));
    if doomed.len() > 4 {
        lines.push(format!(
            "… and {} more",
            humanize::count((doomed.len() - 4) as u64)
        ));
    }
    // What the status line said was about an earlier key, not this question.
    app.status = None;
    app.overlay = Some(Overlay::Confirm(Confirm {
        title: format!(
            "Delete {} for good?",
            humanize::plural(doomed.len() as u64, "session")
        ),
        lines,
        action: ConfirmAction::EmptyTrash {
            entries: doomed.iter().map(|e| e.entry.clone()).collect(),
        },
    }));
}

/// Yes to the question: the entries it named are deleted off the UI thread.
pub fn on_empty_confirmed(trash: &mut TrashView, app: &mut App, entries: Vec<String>) -> Step {
    trash.deleting = Some(entries.len());
    trash.waiting = app.request();
    Step::effect(Effect::store(trash.waiting, TrashOp::Delete { entries }))
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
        TrashReply::Deleted { result } => {
            trash.deleting = None;
            match result {
                Ok(gone) => app.say(format!(
                    "deleted {} for good, freed {}",
                    humanize::plural(gone.len() as u64, "session"),
                    humanize::bytes(gone.iter().map(|e| e.bytes).sum())
                )),
                Err(e) => app.complain(e),
            }
            Step::effects(list(trash, app))
        }
    }
}
