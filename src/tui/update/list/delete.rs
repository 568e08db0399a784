//! Deleting the selected session: the store is asked first what the
//! deletion would do (`ListOp::CheckDelete`), so a session it would refuse
//! is refused with the reason and never asked about, and the size the
//! question shows is the one the deletion frees; then the person is asked,
//! then the store deletes.

use super::rescan;
use crate::humanize;
use crate::store::{Agent, PurgeReport, SessionRecord};
use crate::tui::effect::Effect;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{App, Confirm, ConfirmAction, ListScreen, Overlay};
use crate::tui::msg::Action;
use crate::tui::ops::{DeleteCheck, ListOp, UiError};
use crate::tui::update::{Step, report_text};

/// Delete was pressed: asks the store what the deletion would do.
pub fn ask_store(list: &mut ListScreen, app: &mut App) -> Step {
    let Some(row) = list.selected_row() else {
        return Step::none();
    };
    let record = row.record.clone();
    let req = app.request();
    list.waiting.delete_check = Some(req);
    Step::effect(Effect::store(req, ListOp::CheckDelete { record }))
}

/// The store's answer: a refusal is said; a deletion it would do is asked
/// about, with its size and, for a damaged session, the damage.
pub fn on_checked(
    list: &mut ListScreen,
    app: &mut App,
    req: u64,
    id: &str,
    result: Result<DeleteCheck, UiError>,
) -> Step {
    if list.waiting.delete_check != Some(req) {
        return Step::none();
    }
    list.waiting.delete_check = None;
    let check = match result {
        Ok(check) => check,
        Err(e) => {
            app.complain(e);
            return Step::none();
        }
    };
    let Some(r) = list.by_id.get(id).map(|&i| &list.rows[i].record) else {
        return Step::none(); // the session left the list meanwhile
    };
    let mut lines = vec![
        format!("id    {}", r.id),
        format!("path  {}", r.path.display()),
        format!(
            "size  {}, last used {}",
            humanize::bytes(check.bytes),
            humanize::last_used(r.last_used_at, app.now)
        ),
    ];
    let title = match &check.damage {
        Some(error) => {
            lines.push(format!("It is damaged: {error}"));
            lines.push(
                "Its files are removed as they are, without being read. This cannot be undone."
                    .into(),
            );
            format!("Delete damaged session {}?", r.id)
        }
        None if r.agent.is_external() => {
            let with = if r.agent.provider().keeps_files_beside() {
                " with the files its agent keeps beside it"
            } else {
                ""
            };
            let trash = keymap::key_for(Scope::List, Action::Trash);
            if let Some(seconds) = check.recent {
                lines.push(recent_line(r.agent, seconds));
            }
            lines.push(format!(
                "It moves to the trash{with}; the trash ({trash}) puts it back."
            ));
            format!(
                "Delete {} session {}?",
                r.agent.display_name(),
                r.shown_name()
            )
        }
        None => {
            lines.push("The whole session directory is removed. This cannot be undone.".into());
            format!("Delete session {}?", r.name)
        }
    };
    app.overlay = Some(Overlay::Confirm(Confirm {
        title,
        lines,
        action: ConfirmAction::Delete {
            id: r.id.to_string(),
            damaged: check.damage.is_some(),
        },
    }));
    Step::none()
}

/// The user said yes to deleting session `id`.
pub fn on_delete_confirmed(list: &mut ListScreen, app: &mut App, id: &str, damaged: bool) -> Step {
    let Some(&index) = list.by_id.get(id) else {
        return Step::none();
    };
    let record = list.rows[index].record.clone();
    let req = app.request();
    list.waiting.delete = Some(req);
    Step::effect(Effect::store(
        req,
        ListOp::DeleteSession {
            record,
            even_damaged: damaged,
        },
    ))
}

/// The store deleted the session, or refused at the last check.
pub fn on_deleted(
    list: &mut ListScreen,
    app: &mut App,
    req: u64,
    record: &SessionRecord,
    result: Result<PurgeReport, UiError>,
) -> Step {
    if list.waiting.delete != Some(req) {
        return Step::none();
    }
    list.waiting.delete = None;
    match result {
        Ok(report) => match trashed_text(record, &report).unwrap_or_else(|| report_text(&report)) {
            (text, false) => app.say(text),
            (text, true) => app.complain(text),
        },
        Err(e) => app.complain(e),
    }
    Step::effects(rescan(list, app))
}

/// What a delete of another agent's session did: it went to the trash,
/// nothing was freed, and it can come back (None for Loki's own, deleted
/// for good, which `report_text` words).
fn trashed_text(record: &SessionRecord, report: &PurgeReport) -> Option<(String, bool)> {
    let id = report.removed.first()?;
    record.agent.is_external().then(|| {
        let key = keymap::key_for(Scope::List, Action::Trash);
        (
            format!(
                "moved {} session {} to the trash: {key} shows it, `loki-sessions restore {id}` brings it back",
                record.agent.display_name(),
                humanize::truncate(record.shown_name(), 40),
            ),
            false,
        )
    })
}

/// What the question says of a session changed moments ago.
pub fn recent_line(agent: Agent, seconds: u64) -> String {
    let when = if seconds < 60 {
        humanize::plural(seconds, "second")
    } else {
        humanize::plural(seconds / 60, "minute")
    };
    format!(
        "It changed {when} ago, but no other process has it open: {} is not writing to it now.",
        agent.display_name()
    )
}
