//! Enter on a session its agent deleted (read from our archive): it cannot
//! be resumed where it is not, so the person is asked whether to put it
//! back, byte for byte, where its agent keeps it; yes restores it off the
//! UI thread (`ListOp::RestoreArchived`), and the next Enter resumes it.

use super::rescan;
use crate::humanize;
use crate::store::SessionRecord;
use crate::tui::effect::Effect;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{App, Confirm, ConfirmAction, ListScreen, Overlay};
use crate::tui::msg::Action;
use crate::tui::ops::{ListOp, UiError};
use crate::tui::update::Step;
use std::path::PathBuf;

fn resume_key() -> String {
    keymap::key_for(Scope::List, Action::Resume)
}

/// Asks whether to restore the archived session `record`.
pub fn ask(app: &mut App, record: &SessionRecord) -> Step {
    let agent = record.agent.display_name();
    app.overlay = Some(Overlay::Confirm(Confirm {
        title: format!("Restore {agent} session {}?", record.shown_name()),
        lines: vec![
            format!("{agent} deleted it; what is listed is loki-sessions' archived copy."),
            format!(
                "Restore writes it back where {agent} keeps it, byte for byte, dated now, \
                 so its cleanup does not take it again at once."
            ),
            "Nothing is written over: a file already there stops the restore.".into(),
            format!("Once it is back, {} on its row resumes it.", resume_key()),
        ],
        action: ConfirmAction::RestoreArchived {
            id: record.id.to_string(),
        },
    }));
    Step::none()
}

/// The person said yes to restoring the archived session `id`.
pub fn on_confirmed(list: &mut ListScreen, app: &mut App, id: &str) -> Step {
    let req = app.request();
    list.waiting.restore = Some(req);
    Step::effect(Effect::store(
        req,
        ListOp::RestoreArchived { id: id.into() },
    ))
}

/// The archive's answer: the files written, or why nothing was.
pub fn on_restored(
    list: &mut ListScreen,
    app: &mut App,
    req: u64,
    id: &str,
    result: Result<Vec<PathBuf>, UiError>,
) -> Step {
    if list.waiting.restore != Some(req) {
        return Step::none();
    }
    list.waiting.restore = None;
    match result {
        Ok(written) => {
            let first = written.first().map_or(String::new(), |p| {
                // A name the archive kept from the agent's folder: made safe.
                let path = p.display().to_string();
                format!(" to {}", crate::store::safe_text::safe_line(&path))
            });
            app.say(format!(
                "restored session {id}{first} ({}); {} resumes it",
                humanize::plural(written.len() as u64, "file"),
                resume_key()
            ));
            Step::effects(rescan(list, app))
        }
        Err(e) => {
            app.complain(format!("session {id} was not restored: {e}"));
            Step::none()
        }
    }
}
