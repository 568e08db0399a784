//! The list following the disk: the watcher names sessions that changed,
//! appeared or went; the list reads them again (`ListOp::Reread`), puts
//! each row right where it is (new ones added, gone ones dropped, the
//! selection and the query kept), marks them live, gathers their stats
//! again, and tells the search index about them alone
//! (`ListOp::IndexFollow`, one update at a time).

use crate::store::safe_text::safe_line;
use crate::store::{BUSY_SECONDS, UpdateReport};
use crate::store::{Reread, SessionRecord, StoreEvent};
use crate::tui::effect::Effect;
use crate::tui::matcher::MatcherJob;
use crate::tui::model::{App, IndexState, ListMode, ListScreen, SessionRow, watch_note};
use crate::tui::ops::{ListOp, UiError};
use crate::tui::update::Step;

/// What the watcher saw, at `at`.
pub fn on_disk(list: &mut ListScreen, app: &mut App, event: &StoreEvent, at: f64) -> Step {
    match event {
        StoreEvent::Mode(mode) => {
            app.watch = Some(mode.clone());
            if let Some(text) = watch_note(mode) {
                app.say(text);
            }
            Step::none()
        }
        StoreEvent::Everything => {
            app.say("more changed on disk than could be told apart: reading the store again");
            Step::effects(super::rescan(list, app))
        }
        StoreEvent::FolderGone(dir) => {
            app.complain(format!(
                "{} went: its sessions leave the list until it is back (it is looked for)",
                safe_line(&dir.to_string_lossy())
            ));
            Step::effects(super::rescan(list, app))
        }
        StoreEvent::FolderBack(dir) => {
            app.say(format!(
                "{} is there again: reading the store again",
                safe_line(&dir.to_string_lossy())
            ));
            Step::effects(super::rescan(list, app))
        }
        StoreEvent::Sessions(sessions) => {
            let req = app.request();
            for s in sessions {
                list.following.asked.insert(s.id.clone(), (req, at));
            }
            list.following
                .index_pending
                .extend(sessions.iter().cloned());
            let mut effects = vec![Effect::store(
                req,
                ListOp::Reread {
                    sessions: sessions.clone(),
                },
            )];
            effects.extend(index_next(list, app));
            Step::effects(effects)
        }
    }
}

/// True when the change seen at `at` looks like an agent writing the
/// session now. Another agent's session says when its last message was
/// written (its lines' times): a session put back from the trash, or a
/// fork we wrote, changes on disk but holds only old lines, and no agent
/// is writing it, so it is not marked live. A Loki session's `meta.json`
/// is not written at every message, so any change of it counts.
fn written_lately(record: &SessionRecord, at: f64) -> bool {
    !record.agent.is_external() || record.last_used_at >= at - BUSY_SECONDS
}

/// Sessions read again: rows updated, added or dropped where they are.
pub fn on_reread(list: &mut ListScreen, app: &mut App, req: u64, results: Vec<Reread>) -> Step {
    let mut added: Vec<(usize, SessionRecord)> = Vec::new();
    let mut removed = Vec::new();
    let mut changed = Vec::new();
    let selected = list.selected_row().map(|r| r.record.id.clone());
    let mut preview_stale = false;
    for result in results {
        let id = match &result {
            Reread::Present(record) => record.id.to_string(),
            Reread::Gone(session) => session.id.clone(),
        };
        // Only the newest reading of a session counts.
        let Some(&(asked, at)) = list.following.asked.get(&id) else {
            continue;
        };
        if asked != req {
            continue;
        }
        list.following.asked.remove(&id);
        preview_stale |= selected.as_deref() == Some(id.as_str());
        match result {
            Reread::Present(record) => {
                let index = match list.by_id.get(&id) {
                    Some(&index) => {
                        list.rows[index].record = (*record).clone();
                        index
                    }
                    None => {
                        let index = list.rows.len();
                        list.by_id.insert(id, index);
                        list.rows.push(SessionRow::new((*record).clone()));
                        index
                    }
                };
                let row = &mut list.rows[index];
                row.changed_at = written_lately(&record, at).then_some(at);
                row.gone = false;
                list.stats_asked.remove(&index);
                added.push((index, *record));
                changed.push(index);
            }
            Reread::Gone(_) => {
                if let Some(index) = list.by_id.remove(&id) {
                    list.rows[index].gone = true;
                    removed.push(index);
                }
            }
        }
    }
    if added.is_empty() && removed.is_empty() {
        return Step::none();
    }
    let mut effects = Vec::new();
    if !added.is_empty() {
        effects.push(Effect::Matcher(MatcherJob::Add(added)));
    }
    if !removed.is_empty() {
        effects.push(Effect::Matcher(MatcherJob::Remove(removed)));
    }
    // The rows that changed are what a person watches: their stats now,
    // wherever the cursor is.
    let wanted: Vec<(usize, SessionRecord)> = changed
        .iter()
        .map(|&i| (i, list.rows[i].record.clone()))
        .collect();
    if !wanted.is_empty() {
        list.stats_asked.extend(changed.iter().copied());
        effects.push(Effect::store(
            list.waiting.stats,
            ListOp::Stats {
                rows: wanted,
                encoding: app.settings.encoding,
            },
        ));
    }
    if preview_stale {
        // Asked again at the next move (or below).
        list.preview = None;
    }
    effects.push(super::refilter(list, app));
    Step::effects(effects)
}

/// The next update of the index for the sessions changed, when none runs
/// and the index's own start-up update is done.
pub fn index_next(list: &mut ListScreen, app: &mut App) -> Vec<Effect> {
    let f = &mut list.following;
    if f.index_running.is_some() || f.index_pending.is_empty() || list.index != IndexState::Ready {
        return Vec::new();
    }
    let sessions: Vec<_> = std::mem::take(&mut f.index_pending).into_iter().collect();
    f.index_running = Some(sessions.clone());
    vec![Effect::store(
        app.request(),
        ListOp::IndexFollow { sessions },
    )]
}

/// The index heard about the changed sessions (or could not: they wait
/// for the next one).
pub fn on_index_followed(
    list: &mut ListScreen,
    app: &mut App,
    result: Result<UpdateReport, UiError>,
) -> Vec<Effect> {
    let ran = list.following.index_running.take().unwrap_or_default();
    match result {
        Ok(report) if !report.busy => {}
        // Another process writes the index: the next change tries again.
        Ok(_) => {
            list.following.index_pending.extend(ran);
            return Vec::new();
        }
        Err(e) => {
            app.complain(format!(
                "the search index could not follow the changes: {e}"
            ));
        }
    }
    let mut effects = Vec::new();
    if list.mode == ListMode::Messages {
        effects.extend(super::messages::search(list, app));
    }
    effects.extend(index_next(list, app));
    effects
}
