//! The session list: streaming scan, filter, selection, preview, stats, and
//! the actions started from it.

use crate::format;
use crate::store::record::{SessionRecord, SessionStats};
use crate::tui::effect::Effect;
use crate::tui::model::{
    Confirm, ConfirmAction, Exit, Input, InputPurpose, Mode, Model, Overlay, Preview, PurgeView,
    SessionRow, Viewer,
};
use crate::tui::msg::Action;
use crate::tui::update::{complain, move_cursor, page, purge, say};
use std::collections::HashMap;

/// How many rows around the cursor get their stats gathered (a screenful
/// either way).
const STATS_WINDOW: usize = 40;

/// Forgets the rows and reads the store again.
pub fn rescan(model: &mut Model) -> Vec<Effect> {
    if model.pending_select.is_none() {
        model.pending_select = model.selected_row().map(|r| r.record.id.clone());
    }
    model.requests.scan += 1;
    model.requests.stats += 1;
    model.list.rows.clear();
    model.list.by_id.clear();
    model.list.visible.clear();
    model.list.scanning = true;
    model.stats_asked.clear();
    vec![
        Effect::ResetSearch,
        Effect::Scan {
            req: model.requests.scan,
        },
    ]
}

/// Rows arrived from the scan.
pub fn on_batch(model: &mut Model, req: u64, records: Vec<SessionRecord>) -> Vec<Effect> {
    if req != model.requests.scan {
        return Vec::new();
    }
    let mut added = Vec::with_capacity(records.len());
    for record in records {
        let index = model.list.rows.len();
        model.list.by_id.insert(record.id.clone(), index);
        added.push((index, record.clone()));
        model.list.rows.push(SessionRow {
            record,
            stats: None,
        });
    }
    vec![Effect::IndexForSearch { rows: added }, refilter(model)]
}

/// The scan ended.
pub fn on_scan_done(model: &mut Model, req: u64, error: Option<String>) -> Vec<Effect> {
    if req != model.requests.scan {
        return Vec::new();
    }
    model.list.scanning = false;
    if let Some(error) = error {
        complain(model, error);
    }
    Vec::new()
}

/// Asks the matcher for the current query (latest wins).
pub fn refilter(model: &mut Model) -> Effect {
    model.requests.filter += 1;
    Effect::Filter {
        req: model.requests.filter,
        query: model.list.query.clone(),
    }
}

/// The matcher answered.
pub fn on_filtered(
    model: &mut Model,
    req: u64,
    query: String,
    rows: Vec<usize>,
    complete: bool,
) -> Vec<Effect> {
    if req != model.requests.filter {
        return Vec::new();
    }
    model.list.visible_complete = complete;
    let keep_id = if query == model.list.visible_query {
        model.selected_row().map(|r| r.record.id.clone())
    } else {
        None
    };
    model.list.visible = rows;
    model.list.visible_query = query;
    let wanted = model.pending_select.clone().or(keep_id);
    let position = wanted.as_ref().and_then(|id| {
        let index = model.list.by_id.get(id)?;
        model.list.visible.iter().position(|r| r == index)
    });
    match position {
        Some(p) => {
            model.list.selected = p;
            if model.pending_select.is_some() {
                model.pending_select = None;
            }
        }
        None if model.list.visible_query.is_empty() && wanted.is_some() => {
            model.list.selected = model
                .list
                .selected
                .min(model.list.visible.len().saturating_sub(1));
        }
        None => model.list.selected = 0,
    }
    after_move(model)
}

/// Stats arrived.
pub fn on_stats(model: &mut Model, req: u64, stats: Vec<(usize, SessionStats)>) -> Vec<Effect> {
    if req != model.requests.stats {
        return Vec::new();
    }
    for (index, s) in stats {
        if let Some(row) = model.list.rows.get_mut(index) {
            row.stats = Some(s);
        }
    }
    Vec::new()
}

/// The preview arrived.
pub fn on_preview(model: &mut Model, req: u64, preview: Preview) -> Vec<Effect> {
    if req == model.requests.preview {
        model.list.preview = Some(preview);
    }
    Vec::new()
}

/// Effects after the cursor moved: the preview and stats near it.
pub fn after_move(model: &mut Model) -> Vec<Effect> {
    let mut effects = Vec::new();
    if let Some(row) = model.selected_row() {
        let shown = model.list.preview.as_ref().map(|p| p.id.as_str());
        if shown != Some(row.record.id.as_str()) {
            let record = row.record.clone();
            model.requests.preview += 1;
            effects.push(Effect::LoadPreview {
                req: model.requests.preview,
                record,
            });
        }
    }
    if !model.list.visible_complete && !model.list.visible_query.is_empty() {
        return effects; // a partial ranking: stats wait for the final one
    }
    let from = model.list.selected.saturating_sub(STATS_WINDOW / 2);
    let wanted: Vec<(usize, SessionRecord)> = model
        .list
        .visible
        .iter()
        .skip(from)
        .take(STATS_WINDOW)
        .filter(|i| model.list.rows[**i].stats.is_none())
        .filter(|i| !model.stats_asked.contains(i))
        .map(|i| (*i, model.list.rows[*i].record.clone()))
        .collect();
    if !wanted.is_empty() {
        model.stats_asked.extend(wanted.iter().map(|(i, _)| *i));
        effects.push(Effect::Stats {
            req: model.requests.stats,
            rows: wanted,
            encoding: model.settings.encoding,
        });
    }
    effects
}

/// A character typed into the query.
pub fn on_type(model: &mut Model, c: char) -> Vec<Effect> {
    model.list.query.push(c);
    vec![refilter(model)]
}

/// Keys of the list.
pub fn on_action(model: &mut Model, action: Action) -> Vec<Effect> {
    let len = model.list.visible.len();
    let page = page(model);
    if move_cursor(&mut model.list.selected, len, action, page) {
        return after_move(model);
    }
    match action {
        Action::Backspace => {
            if model.list.query.pop().is_some() {
                return vec![refilter(model)];
            }
            Vec::new()
        }
        Action::ClearQuery => {
            model.list.query.clear();
            vec![refilter(model)]
        }
        Action::ClearOrQuit => {
            if model.list.query.is_empty() {
                model.exit = Some(Exit::Cancel);
                Vec::new()
            } else {
                model.list.query.clear();
                vec![refilter(model)]
            }
        }
        Action::Resume => resume_selected(model),
        Action::Open => open_selected(model),
        Action::Refresh => {
            say(model, "reading the store again");
            rescan(model)
        }
        Action::NewSession => {
            if !model.settings.loki {
                complain(
                    model,
                    "new sessions need a Loki tree; this is a peteos sessions folder",
                );
                return Vec::new();
            }
            model.overlay = Some(Overlay::Input(Input {
                purpose: InputPurpose::NewSession,
                text: String::new(),
            }));
            Vec::new()
        }
        Action::Rename => rename_selected(model),
        Action::Delete => delete_selected(model),
        Action::PurgePreview => purge::open(model),
        Action::ToggleEncoding => {
            model.settings.encoding = model.settings.encoding.next();
            say(
                model,
                format!("token counts now in {}", model.settings.encoding),
            );
            model.requests.stats += 1;
            model.stats_asked.clear();
            for row in &mut model.list.rows {
                row.stats = None;
            }
            after_move(model)
        }
        _ => Vec::new(),
    }
}

fn resume_selected(model: &mut Model) -> Vec<Effect> {
    let Some(row) = model.selected_row() else {
        return Vec::new();
    };
    if let Some(error) = &row.record.error {
        let text = format!("cannot resume a damaged session: {error}");
        complain(model, text);
        return Vec::new();
    }
    vec![Effect::Resume {
        record: row.record.clone(),
    }]
}

/// Opens `record` in the viewer.
pub fn open_record(model: &mut Model, record: SessionRecord) -> Vec<Effect> {
    model.requests.conversation += 1;
    model.mode = Mode::Viewer;
    model.viewer = Some(Viewer {
        record: record.clone(),
        loaded: None,
        error: None,
        counts: HashMap::new(),
        selected: 0,
        detail_scroll: 0,
        trim: None,
        contexts_cursor: None,
    });
    vec![Effect::LoadConversation {
        req: model.requests.conversation,
        record,
    }]
}

fn open_selected(model: &mut Model) -> Vec<Effect> {
    match model.selected_row() {
        Some(row) => {
            let record = row.record.clone();
            open_record(model, record)
        }
        None => Vec::new(),
    }
}

fn rename_selected(model: &mut Model) -> Vec<Effect> {
    if !model.settings.loki {
        complain(
            model,
            "renaming needs a Loki tree; names of peteos sessions come from their first prompt",
        );
        return Vec::new();
    }
    let Some(row) = model.selected_row() else {
        return Vec::new();
    };
    if let Some(error) = &row.record.error {
        let text = format!("cannot rename a damaged session: {error}");
        complain(model, text);
        return Vec::new();
    }
    model.overlay = Some(Overlay::Input(Input {
        purpose: InputPurpose::Rename {
            id: row.record.id.clone(),
        },
        text: row.record.name.clone(),
    }));
    Vec::new()
}

fn delete_selected(model: &mut Model) -> Vec<Effect> {
    let Some(row) = model.selected_row() else {
        return Vec::new();
    };
    let r = &row.record;
    let size = row
        .stats
        .as_ref()
        .map_or("size unknown".into(), |s| format::bytes(s.bytes));
    model.overlay = Some(Overlay::Confirm(Confirm {
        title: format!("Delete session {}?", r.name),
        lines: vec![
            format!("id    {}", r.id),
            format!("path  {}", r.path.display()),
            format!(
                "size  {size}, last used {}",
                format::ago(r.last_used_at, model.now)
            ),
            "The whole session directory is removed. This cannot be undone.".into(),
        ],
        action: ConfirmAction::Delete { id: r.id.clone() },
    }));
    Vec::new()
}

/// A session was created: select it after the rescan.
pub fn on_created(model: &mut Model, result: Result<SessionRecord, String>) -> Vec<Effect> {
    match result {
        Ok(record) => {
            say(model, format!("created {} ({})", record.name, record.id));
            model.pending_select = Some(record.id);
            model.list.query.clear();
            rescan(model)
        }
        Err(e) => {
            complain(model, e);
            Vec::new()
        }
    }
}

/// A session was renamed: update its row in place.
pub fn on_renamed(model: &mut Model, result: Result<SessionRecord, String>) -> Vec<Effect> {
    match result {
        Ok(record) => {
            say(model, format!("renamed to {}", record.name));
            let Some(&index) = model.list.by_id.get(&record.id) else {
                return Vec::new();
            };
            model.list.rows[index].record = record.clone();
            vec![
                Effect::IndexForSearch {
                    rows: vec![(index, record)],
                },
                refilter(model),
            ]
        }
        Err(e) => {
            complain(model, e);
            Vec::new()
        }
    }
}

/// The session to resume was touched: end the UI.
pub fn on_resumed(model: &mut Model, result: Result<SessionRecord, String>) -> Vec<Effect> {
    match result {
        Ok(record) => model.exit = Some(Exit::Resume(record)),
        Err(e) => complain(model, e),
    }
    Vec::new()
}

/// Clears the purge view (when leaving it).
pub fn reset_purge(model: &mut Model) {
    model.purge = PurgeView::default();
}
