//! Moving the selected session where its project went (another agent's:
//! `move SESSION --to DIR` in the UI): the folder is asked for (the one it
//! was worked in to start from), the store says what the move would write
//! (`ListOp::Move` without writing), the person is asked with that in
//! front of them, and only then is it written, the old one to the trash.

use super::rescan;
use crate::humanize;
use crate::store::MovePlan;
use crate::store::safe_text::safe_line;
use crate::tui::effect::Effect;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{
    App, Confirm, ConfirmAction, Input, InputPurpose, ListScreen, Overlay, typed_folder,
};
use crate::tui::msg::Action;
use crate::tui::ops::{ListOp, UiError};
use crate::tui::update::Step;
use std::path::PathBuf;

/// Move was pressed: what the store could never move is refused at once;
/// else the folder is asked for.
pub fn ask_folder(list: &ListScreen, app: &mut App) -> Step {
    let Some(row) = list.selected_row() else {
        return Step::none();
    };
    let r = &row.record;
    if !r.agent.is_external() {
        app.complain(format!(
            "{} sessions do not depend on their folder: nothing to move",
            r.agent.display_name()
        ));
        return Step::none();
    }
    if let Err(e) = r.not_archived("moved") {
        app.complain(e.to_string());
        return Step::none();
    }
    app.overlay = Some(Overlay::Input(Input::new(
        InputPurpose::Move {
            id: r.id.to_string(),
        },
        r.cwd.as_deref().unwrap_or_default(),
    )));
    Step::none()
}

/// The folder was typed: a relative one is taken from where the UI runs,
/// `~/` from the home folder; the store is asked what the move would do.
pub fn on_folder_typed(list: &mut ListScreen, app: &mut App, id: &str, text: &str) -> Step {
    match typed_folder(text, "nothing moved") {
        Ok(to) => ask_store(list, app, id, to, false),
        Err(why) => {
            app.complain(why);
            Step::none()
        }
    }
}

/// Asks the store to move session `id` to `to`: what it would write, or
/// (`write`) the move itself; nothing when the session left the list.
fn ask_store(list: &mut ListScreen, app: &mut App, id: &str, to: PathBuf, write: bool) -> Step {
    let Some(&index) = list.by_id.get(id) else {
        return Step::none();
    };
    let req = app.request();
    list.waiting.moving = Some(req);
    Step::effect(Effect::store(
        req,
        ListOp::Move {
            record: list.rows[index].record.clone(),
            to,
            write,
        },
    ))
}

/// The store's preview: a refusal is said; a move it would do is asked
/// about, with what it writes.
pub fn on_planned(
    list: &mut ListScreen,
    app: &mut App,
    req: u64,
    id: &str,
    to: PathBuf,
    result: Result<Box<MovePlan>, UiError>,
) -> Step {
    if list.waiting.moving != Some(req) {
        return Step::none();
    }
    list.waiting.moving = None;
    let plan = match result {
        Ok(plan) => plan,
        Err(e) => {
            app.complain(format!("not moved: {e}"));
            return Step::none();
        }
    };
    let trash = keymap::key_for(Scope::List, Action::Trash);
    // Its name, as the list shows it (the id when it left the list).
    let name = list.by_id.get(id).map_or(id.to_string(), |&i| {
        list.rows[i].record.shown_name().to_string()
    });
    app.overlay = Some(Overlay::Confirm(Confirm {
        title: format!("Move {} session {name}?", plan.agent.display_name()),
        lines: vec![
            format!("from  {}", shown(&plan.from_folder)),
            format!("to    {}", shown(&plan.to_folder)),
            format!("file  {}", shown(&plan.to_file.display().to_string())),
            format!(
                "{} with the new folder, every other byte kept; {} written.",
                humanize::plural(plan.lines_changed as u64, "line"),
                humanize::plural(plan.writes.len() as u64, "file")
            ),
            format!("The old one moves to the trash ({trash} puts it back)."),
        ],
        action: ConfirmAction::Move { id: id.into(), to },
    }));
    Step::none()
}

/// A path or folder as the dialog shows it: it comes from the session's
/// file, so nothing in it reaches the terminal raw.
fn shown(text: &str) -> String {
    safe_line(text).into_owned()
}

/// The person said yes to the move previewed.
pub fn on_confirmed(list: &mut ListScreen, app: &mut App, id: &str, to: PathBuf) -> Step {
    ask_store(list, app, id, to, true)
}

/// The move was written (or refused at the last check).
pub fn on_moved(
    list: &mut ListScreen,
    app: &mut App,
    req: u64,
    result: Result<(Box<MovePlan>, Option<String>), UiError>,
) -> Step {
    if list.waiting.moving != Some(req) {
        return Step::none();
    }
    list.waiting.moving = None;
    match result {
        Ok((plan, _)) => {
            let trash = keymap::key_for(Scope::List, Action::Trash);
            app.say(format!(
                "moved {} to {}; the old one is in the trash ({trash})",
                plan.id,
                shown(&plan.to_folder)
            ));
            Step::effects(rescan(list, app))
        }
        Err(e) => {
            app.complain(format!("not moved: {e}"));
            Step::none()
        }
    }
}
