//! The session list: streaming scan, filter, selection, preview, stats, and
//! the actions started from it (new, rename, delete, resume, open). Its
//! search of message text is `messages`; the search index's part is
//! `indexing`.

mod agents;
mod delete;
mod following;
mod indexing;
mod messages;
mod moving;
mod restore;

pub use delete::on_delete_confirmed;
pub use following::on_disk;
pub use moving::on_confirmed as on_move_confirmed;
pub use restore::on_confirmed as on_restore_confirmed;

use crate::store::{LokiOnly, SessionRecord, SessionStats};
use crate::tui::effect::Effect;
use crate::tui::matcher::MatcherJob;
use crate::tui::model::{
    App, Exit, Input, InputPurpose, ListMode, ListScreen, Overlay, ResumeBlocked, SessionRow,
    TrashFrom,
};
use crate::tui::msg::Action;
use crate::tui::ops::{ListOp, ListReply, UiError};
use crate::tui::update::{Go, Step, move_cursor};
use tui_input::InputRequest;

/// How many rows around the cursor get their stats gathered (a screenful
/// either way).
const STATS_WINDOW: usize = 40;

/// Forgets the rows and reads the store again.
pub fn rescan(list: &mut ListScreen, app: &mut App) -> Vec<Effect> {
    if list.pending_select.is_none() && list.moved {
        list.pending_select = list.selected_row().map(|r| r.record.id.to_string());
    }
    list.waiting.scan = app.request();
    list.waiting.stats = app.request();
    // A ranking asked for before names rows that are about to go: its
    // answer must not be taken (it pointed the cursor past the end).
    list.waiting.filter = app.request();
    list.ranked_all = false;
    list.rows.clear();
    list.by_id.clear();
    list.visible.clear();
    list.scanning = true;
    list.stats_asked.clear();
    vec![
        Effect::Matcher(MatcherJob::Reset),
        Effect::store(list.waiting.scan, ListOp::Scan),
    ]
}

/// A reply of the worker, the matcher or the message search for the list,
/// to request `req`.
pub fn on_reply(list: &mut ListScreen, app: &mut App, req: u64, reply: ListReply) -> Step {
    match reply {
        ListReply::SessionsBatch { records } => Step::effects(on_batch(list, app, req, records)),
        ListReply::ScanDone { folder, error } => {
            if req == list.waiting.scan {
                list.scanning = false;
                list.folder = Some(folder);
                // The rows came in batches and grew by doubling: what the
                // last doubling left unused goes (a large list's is big).
                list.rows.shrink_to_fit();
                if let Some(error) = error {
                    app.complain(error);
                }
                let mut effects = resume_if_listed(list, app);
                effects.extend(ask_retention(list, app));
                return Step::effects(effects);
            }
            Step::none()
        }
        ListReply::Filtered {
            query,
            rows,
            complete,
        } => Step::effects(on_filtered(list, app, req, query, rows, complete)),
        ListReply::Stats { stats } => Step::effects(on_stats(list, app, req, stats)),
        ListReply::PreviewLoaded { preview } => {
            if req == list.waiting.preview {
                list.preview = Some(preview);
            }
            Step::none()
        }
        ListReply::IndexProgress { done, total } => {
            indexing::on_progress(list, done, total);
            // The hits grow with the index (the searcher sees its commits).
            if list.mode == ListMode::Messages {
                return Step::effects(messages::search(list, app));
            }
            Step::none()
        }
        ListReply::IndexUpdated { result } => {
            let mut effects = indexing::on_updated(list, app, result);
            effects.extend(following::index_next(list, app));
            if list.mode == ListMode::Messages {
                effects.extend(messages::search(list, app));
            }
            Step::effects(effects)
        }
        ListReply::Retention { deletes_at, rules } => {
            if req == list.waiting.retention {
                list.agent_deletes_at = deletes_at;
                list.retention_rules = rules;
            }
            Step::none()
        }
        ListReply::KeptDue {
            within,
            kept,
            bytes,
            failed,
        } => {
            let mut said = Vec::new();
            if kept > 0 {
                said.push(format!(
                    "kept {} in the archive that their agents' own cleanups delete within {} ({}); archive_due = \"off\" in the config stops this",
                    crate::humanize::plural(kept as u64, "session"),
                    crate::humanize::ahead(within, 0.0),
                    crate::humanize::bytes(bytes)
                ));
            }
            if let Some(first) = failed.first() {
                said.push(format!(
                    "not archived: {first}{}",
                    match failed.len() {
                        1 => String::new(),
                        n => format!(
                            " (and {} more: loki-sessions archive --due-within 7d says why)",
                            n - 1
                        ),
                    }
                ));
                app.complain(said.join("; "));
            } else if !said.is_empty() {
                // After what the person just did (a move, a restore): said
                // after it, not over it.
                if let Some(prior) = app.status.as_ref().filter(|s| !s.is_error) {
                    said.insert(0, prior.text.clone());
                }
                app.say(said.join("; "));
            }
            Step::none()
        }
        ListReply::IndexStats { stats } => {
            let (effects, finished) = indexing::on_stats(list, app, stats);
            Step::effects(after_fill(list, app, effects, finished))
        }
        ListReply::MessageHits { query, result } => {
            messages::on_hits(list, req, query, result);
            Step::effects(after_move(list, app))
        }
        ListReply::Created { result } => on_created(list, app, result),
        ListReply::Renamed { result } => on_renamed(list, app, result),
        ListReply::DeleteChecked { id, result } => delete::on_checked(list, app, req, &id, result),
        ListReply::Deleted { record, result } => {
            delete::on_deleted(list, app, req, &record, result)
        }
        ListReply::MovePlanned { id, to, result } => {
            moving::on_planned(list, app, req, &id, to, result)
        }
        ListReply::Moved { result } => moving::on_moved(list, app, req, result),
        ListReply::RestoredArchived { id, result } => {
            restore::on_restored(list, app, req, &id, result)
        }
        ListReply::Reread { results } => following::on_reread(list, app, req, results),
        ListReply::IndexFollowed { result } => {
            Step::effects(following::on_index_followed(list, app, result))
        }
        ListReply::NotResumable { blocked } => {
            not_resumable(app, blocked);
            Step::none()
        }
        ListReply::Resumed { result } => match result {
            Ok(record) => Step::go(Go::Exit(Exit::Resume(*record))),
            Err(e) => {
                app.complain(e);
                Step::none()
            }
        },
    }
}

/// The next slice of rows to fill from the index's stats.
pub fn on_fill(list: &mut ListScreen, app: &mut App, generation: u64) -> Step {
    let (effects, finished) = indexing::on_fill(list, app, generation);
    Step::effects(after_fill(list, app, effects, finished))
}

fn on_batch(
    list: &mut ListScreen,
    app: &mut App,
    req: u64,
    records: Vec<SessionRecord>,
) -> Vec<Effect> {
    if req != list.waiting.scan {
        return Vec::new();
    }
    let first = list.rows.len();
    let mut added = Vec::with_capacity(records.len());
    for record in records {
        // A session the watcher already brought in is as new as it gets.
        if list.by_id.contains_key(record.id.as_str()) {
            continue;
        }
        let index = list.rows.len();
        list.by_id.insert(record.id.to_string(), index);
        added.push((index, record.clone()));
        list.rows.push(SessionRow::new(record));
    }
    let new_rows: Vec<usize> = (first..list.rows.len()).collect();
    // The matcher learns the rows before what they sort by.
    let mut effects = vec![Effect::Matcher(MatcherJob::Add(added))];
    effects.extend(indexing::fill(list, &app.settings, &new_rows));
    effects.push(refilter(list, app));
    effects
}

/// Once the last slice of rows is filled from the index, the list (sorted
/// perhaps by a column the index gave) is ranked again.
fn after_fill(
    list: &mut ListScreen,
    app: &mut App,
    mut effects: Vec<Effect>,
    finished: bool,
) -> Vec<Effect> {
    if finished && list.query.is_empty() {
        effects.push(refilter(list, app));
    }
    effects
}

/// Asks the matcher for the current query (latest wins).
fn refilter(list: &mut ListScreen, app: &mut App) -> Effect {
    list.waiting.filter = app.request();
    list.ranked_all = false;
    Effect::Matcher(MatcherJob::Query {
        req: list.waiting.filter,
        query: list.query.value().to_string(),
        sort: list.sort,
    })
}

fn on_filtered(
    list: &mut ListScreen,
    app: &mut App,
    req: u64,
    query: String,
    rows: Vec<usize>,
    complete: bool,
) -> Vec<Effect> {
    if req != list.waiting.filter {
        return Vec::new();
    }
    list.visible_complete = complete;
    list.ranked_all = complete;
    // The row under the cursor stays under it only once the person put
    // it there: before, the newest row is first, wherever it arrives.
    let keep_id = if query == list.visible_query && list.moved {
        list.selected_row().map(|r| r.record.id.to_string())
    } else {
        None
    };
    if query != list.visible_query {
        list.moved = false;
    }
    list.visible = rows;
    list.visible_query = query;
    let wanted = list.pending_select.clone().or(keep_id);
    let position = wanted.as_ref().and_then(|id| {
        let index = list.by_id.get(id)?;
        list.visible.iter().position(|r| r == index)
    });
    match position {
        Some(p) => {
            list.selected = p;
            if list.pending_select.is_some() {
                list.pending_select = None;
            }
        }
        None if list.visible_query.is_empty() && wanted.is_some() => {
            list.selected = list.selected.min(list.visible.len().saturating_sub(1));
        }
        None => list.selected = 0,
    }
    if list.to_top {
        list.selected = 0;
        list.to_top = !complete;
    }
    let mut effects = after_move(list, app);
    effects.extend(resume_if_listed(list, app));
    effects
}

/// Asks when the agents' own cleanups delete the sessions listed (other
/// agents' only: Loki keeps its own).
fn ask_retention(list: &mut ListScreen, app: &mut App) -> Vec<Effect> {
    let records: Vec<SessionRecord> = list
        .rows
        .iter()
        .filter(|r| r.record.agent.is_external())
        .map(|r| r.record.clone())
        .collect();
    if records.is_empty() {
        return Vec::new();
    }
    list.waiting.retention = app.request();
    let mut effects = Vec::new();
    if let Some(within) = app.settings.archive_due {
        // The `archive_due` setting: what is due is kept, off the UI thread
        // at idle priority (a copy already kept is only looked at).
        effects.push(Effect::store(
            app.request(),
            ListOp::KeepDue {
                records: records.clone(),
                within,
            },
        ));
    }
    effects.insert(
        0,
        Effect::store(list.waiting.retention, ListOp::Retention { records }),
    );
    effects
}

/// Resumes the first row if Enter waits for the listing and it is done.
fn resume_if_listed(list: &mut ListScreen, app: &mut App) -> Vec<Effect> {
    if !list.resume_when_listed || list.scanning || !list.ranked_all {
        return Vec::new();
    }
    list.resume_when_listed = false;
    resume_selected(list, app).effects
}

/// Stats arrived: the rows show them and the matcher sorts by them.
fn on_stats(
    list: &mut ListScreen,
    app: &App,
    req: u64,
    stats: Vec<(usize, SessionStats)>,
) -> Vec<Effect> {
    if req != list.waiting.stats {
        return Vec::new();
    }
    let mut facts = Vec::new();
    for (index, s) in stats {
        if let Some(row) = list.rows.get_mut(index) {
            let window = app.settings.window_for(&row.record);
            facts.push((index, indexing::facts_of(Some(&s), window)));
            row.stats = Some(s);
        }
    }
    if facts.is_empty() {
        return Vec::new();
    }
    vec![Effect::Matcher(MatcherJob::Facts(facts))]
}

/// Effects after the cursor moved (or the list came back into view): the
/// preview and the stats of the rows near the cursor.
pub fn after_move(list: &mut ListScreen, app: &mut App) -> Vec<Effect> {
    let mut effects = Vec::new();
    if let Some(row) = list.selected_row() {
        let shown = list.preview.as_ref().map(|p| p.id.as_str());
        if shown != Some(row.record.id.as_str()) {
            let record = row.record.clone();
            list.waiting.preview = app.request();
            effects.push(Effect::store(
                list.waiting.preview,
                ListOp::LoadPreview { record },
            ));
        }
    }
    if list.mode == ListMode::Messages {
        return effects; // hits, not rows: no stats to gather
    }
    if !list.visible_complete && !list.visible_query.is_empty() {
        return effects; // a partial ranking: stats wait for the final one
    }
    let from = list.selected.saturating_sub(STATS_WINDOW / 2);
    let wanted: Vec<(usize, SessionRecord)> = list
        .visible
        .iter()
        .skip(from)
        .take(STATS_WINDOW)
        .filter(|i| {
            // The index's stats have no tokens in o200k_base: count those here.
            list.rows[**i]
                .stats
                .as_ref()
                .is_none_or(|s| s.tokens.is_none() && s.error.is_none())
        })
        .filter(|i| !list.stats_asked.contains(i))
        .map(|i| (*i, list.rows[*i].record.clone()))
        .collect();
    if !wanted.is_empty() {
        list.stats_asked.extend(wanted.iter().map(|(i, _)| *i));
        effects.push(Effect::store(
            list.waiting.stats,
            ListOp::Stats {
                rows: wanted,
                encoding: app.settings.encoding,
            },
        ));
    }
    effects
}

/// A character typed into the query.
pub fn on_type(list: &mut ListScreen, app: &mut App, c: char) -> Step {
    on_edit(list, app, InputRequest::InsertChar(c))
}

/// An edit of the query: one new search when the text changed.
fn on_edit(list: &mut ListScreen, app: &mut App, request: InputRequest) -> Step {
    list.resume_when_listed = false;
    let full = list.query.value().chars().count() >= list.query.limit();
    if list.query.edit(request) {
        return Step::effects(requery(list, app));
    }
    if full && matches!(request, InputRequest::InsertChar(_)) {
        app.complain(limit_note(list.query.limit()));
    }
    Step::none()
}

/// Text pasted into the query: one edit and one search, however long.
pub fn on_paste(list: &mut ListScreen, app: &mut App, text: &str) -> Step {
    let pasted = list.query.paste(text);
    if pasted.cut {
        app.complain(limit_note(list.query.limit()));
    }
    if pasted.inserted == 0 {
        return Step::none();
    }
    Step::effects(requery(list, app))
}

/// Asks again for what the query finds, in the current search mode.
pub(super) fn requery(list: &mut ListScreen, app: &mut App) -> Vec<Effect> {
    match list.mode {
        ListMode::Sessions => vec![refilter(list, app)],
        ListMode::Messages => messages::search(list, app),
    }
}

fn limit_note(limit: usize) -> String {
    format!("the search holds at most {limit} characters; the rest was left out")
}

/// Keys of the list.
pub fn on_action(list: &mut ListScreen, app: &mut App, action: Action) -> Step {
    if list.mode == ListMode::Messages {
        if let Some(step) = messages::on_action(list, app, action) {
            if step.go.is_some() {
                return step;
            }
            let mut effects = step.effects;
            effects.extend(after_move(list, app));
            return Step::effects(effects);
        }
    } else if move_cursor(&mut list.selected, list.visible.len(), action, app.page()) {
        list.moved = true;
        list.resume_when_listed = false;
        return Step::effects(after_move(list, app));
    }
    if action != Action::Resume {
        list.resume_when_listed = false;
    }
    match action {
        Action::Edit(request) => on_edit(list, app, request),
        Action::ToggleSearchMode => {
            let mut effects = messages::toggle(list, app);
            if list.mode == ListMode::Sessions {
                effects.push(refilter(list, app));
            }
            effects.extend(after_move(list, app));
            Step::effects(effects)
        }
        Action::CycleAgent => agents::cycle(list, app),
        Action::CycleSort => {
            list.sort = list.sort.next();
            list.to_top = true;
            app.say(format!("sessions sorted by {}", list.sort.label()));
            Step::effect(refilter(list, app))
        }
        Action::ClearOrQuit => {
            if list.query.is_empty() && app.status.is_some() {
                // A message is on the status line: Esc dismisses it first.
                app.status = None;
                Step::none()
            } else if list.query.is_empty() {
                Step::go(Go::Exit(Exit::Cancel))
            } else {
                list.query.clear();
                Step::effects(requery(list, app))
            }
        }
        Action::Resume
            if !list.moved && (list.scanning || (!list.ranked_all && !list.rows.is_empty())) =>
        {
            // The first row is the newest only once every session is in.
            list.resume_when_listed = true;
            app.say("the newest session is resumed once every session is listed…");
            Step::none()
        }
        Action::Resume => resume_selected(list, app),
        Action::Open => match list.selected_row() {
            Some(row) => Step::go(Go::Viewer(row.record.clone())),
            None => Step::none(),
        },
        Action::Refresh => {
            app.say("reading the store again");
            Step::effects(rescan(list, app))
        }
        Action::NewSession => {
            if let Some(why) = app.settings.store_kind.refusal(LokiOnly::NewSession) {
                app.complain(why);
                return Step::none();
            }
            app.overlay = Some(Overlay::Input(Input::new(InputPurpose::NewSession, "")));
            Step::none()
        }
        Action::Rename => rename_selected(list, app),
        Action::Delete => delete::ask_store(list, app),
        Action::MoveSession => moving::ask_folder(list, app),
        Action::PurgePreview => Step::go(Go::Purge),
        Action::Trash => Step::go(Go::Trash(TrashFrom::List)),
        Action::Dashboard => Step::go(Go::Dashboard),
        Action::Hosts => Step::go(Go::Hosts),
        Action::ToggleEncoding => {
            app.settings.encoding = app.settings.encoding.next();
            app.say(format!("token counts now in {}", app.settings.encoding));
            list.waiting.stats = app.request();
            list.stats_asked.clear();
            for row in &mut list.rows {
                row.stats = None;
            }
            Step::effects(after_move(list, app))
        }
        _ => Step::none(),
    }
}

fn resume_selected(list: &ListScreen, app: &mut App) -> Step {
    let Some(row) = list.selected_row() else {
        return Step::none();
    };
    if row.record.archived {
        // Not where its agent looks: offered back first.
        return restore::ask(app, &row.record.clone());
    }
    if let Err(e) = row.record.resumable() {
        app.complain(format!("cannot resume: {e}"));
        return Step::none();
    }
    Step::effect(Effect::store(
        app.request(),
        ListOp::Resume {
            record: row.record.clone(),
            check: app.settings.resume_check.clone(),
        },
    ))
}

/// Keeps the UI when a resume could not run, says why, and copies the
/// command a person can run once it can.
fn not_resumable(app: &mut App, blocked: ResumeBlocked) {
    match blocked.command {
        Some(command) => {
            app.complain(format!("{}; copied the command: {command}", blocked.why));
            app.copy(command);
        }
        None => app.complain(blocked.why),
    }
}

fn rename_selected(list: &ListScreen, app: &mut App) -> Step {
    if let Some(why) = app.settings.store_kind.refusal(LokiOnly::Rename) {
        app.complain(why);
        return Step::none();
    }
    let Some(row) = list.selected_row() else {
        return Step::none();
    };
    if let Err(e) = row.record.writable() {
        app.complain(format!("cannot rename: {e}"));
        return Step::none();
    }
    app.overlay = Some(Overlay::Input(Input::new(
        InputPurpose::Rename {
            id: row.record.id.to_string(),
        },
        &row.record.name,
    )));
    Step::none()
}

/// Asks before deleting the selected session, saying up front what stands
/// in the way: an agent's session is refused at once, a damaged one gets a
/// question that names the damage.
/// A text field was filled in: a new session's first prompt or a new name.
pub fn on_input_done(
    list: &mut ListScreen,
    app: &mut App,
    purpose: InputPurpose,
    text: String,
) -> Step {
    match purpose {
        InputPurpose::NewSession => Step::effect(Effect::store(
            app.request(),
            ListOp::CreateSession { prompt: text },
        )),
        InputPurpose::Rename { id } => match list.by_id.get(&id) {
            Some(&index) => Step::effect(Effect::store(
                app.request(),
                ListOp::RenameSession {
                    record: list.rows[index].record.clone(),
                    name: text,
                },
            )),
            None => Step::none(), // the session left the list meanwhile
        },
        InputPurpose::Move { id } => moving::on_folder_typed(list, app, &id, &text),
        // The viewer's and the other machines' pane's lines go to them
        // (the router sees to it).
        InputPurpose::BigMessage | InputPurpose::Export | InputPurpose::PullTo { .. } => {
            Step::none()
        }
    }
}

fn on_created(
    list: &mut ListScreen,
    app: &mut App,
    result: Result<Box<SessionRecord>, UiError>,
) -> Step {
    match result {
        Ok(record) => {
            app.say(format!("created {} ({})", record.name, record.id));
            list.pending_select = Some(record.id.into());
            list.query.clear();
            Step::effects(rescan(list, app))
        }
        Err(e) => {
            app.complain(e);
            Step::none()
        }
    }
}

fn on_renamed(
    list: &mut ListScreen,
    app: &mut App,
    result: Result<Box<SessionRecord>, UiError>,
) -> Step {
    match result {
        Ok(record) => {
            app.say(format!("renamed to {}", record.name));
            let Some(&index) = list.by_id.get(record.id.as_str()) else {
                return Step::none();
            };
            list.rows[index].record = (*record).clone();
            Step::effects(vec![
                Effect::Matcher(MatcherJob::Add(vec![(index, *record)])),
                refilter(list, app),
            ])
        }
        Err(e) => {
            app.complain(e);
            Step::none()
        }
    }
}
