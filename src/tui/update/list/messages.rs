//! The list's second search: the text of every message, through the search
//! index. Each hit is a row (the session, the role, a snippet); Enter
//! resumes its session, Tab opens the viewer at that message.

use crate::tui::effect::Effect;
use crate::tui::model::{App, ListMode, ListScreen, MessageHits};
use crate::tui::msg::Action;
use crate::tui::ops::UiError;
use crate::tui::searcher::SearchJob;
use crate::tui::update::{Go, Step, move_cursor};

/// Switches between searching names and searching messages; the query stays
/// and is asked again in the other way.
pub fn toggle(list: &mut ListScreen, app: &mut App) -> Vec<Effect> {
    list.mode = match list.mode {
        ListMode::Sessions => ListMode::Messages,
        ListMode::Messages => ListMode::Sessions,
    };
    match list.mode {
        ListMode::Messages => search(list, app),
        ListMode::Sessions => Vec::new(),
    }
}

/// Asks for the messages matching the query (latest wins).
pub fn search(list: &mut ListScreen, app: &mut App) -> Vec<Effect> {
    let query = list.query.value().to_string();
    if query.trim().is_empty() {
        list.hits = MessageHits::default();
        return Vec::new();
    }
    list.waiting.search = app.request();
    vec![Effect::Search(SearchJob {
        req: list.waiting.search,
        query,
        sessions: list.rows.len(),
    })]
}

/// The searcher answered.
pub fn on_hits(
    list: &mut ListScreen,
    req: u64,
    query: String,
    result: Result<crate::store::SearchOutcome, UiError>,
) {
    if req != list.waiting.search {
        return;
    }
    // The cursor stays on the same message when the answer is for more of
    // the same query (the index grew), else it starts at the best hit.
    let keep = (list.hits.query == query)
        .then(|| {
            list.selected_hit()
                .map(|h| (h.session_id.clone(), h.message_id.clone()))
        })
        .flatten();
    list.hits = match result {
        Ok(outcome) => MessageHits {
            query,
            hits: outcome.hits,
            selected: 0,
            total: outcome.total,
            covered: outcome.covered,
            sessions: outcome.sessions,
            unreadable: outcome.unreadable.len(),
            error: None,
            answered: true,
        },
        Err(why) => MessageHits {
            query,
            error: Some(why),
            answered: true,
            ..MessageHits::default()
        },
    };
    if let Some((session, message)) = keep {
        list.hits.selected = list
            .hits
            .hits
            .iter()
            .position(|h| h.session_id == session && h.message_id == message)
            .unwrap_or(0);
    }
}

/// Keys that act on the selected hit; None when the key is not one of them.
pub fn on_action(list: &mut ListScreen, app: &mut App, action: Action) -> Option<Step> {
    let len = list.hits.hits.len();
    if move_cursor(&mut list.hits.selected, len, action, app.page()) {
        return Some(Step::none());
    }
    let hit = list.selected_hit()?.clone();
    let row = list.by_id.get(&hit.session_id).map(|&i| &list.rows[i])?;
    match action {
        Action::Open => Some(Step::go(Go::ViewerAt {
            record: row.record.clone(),
            message_id: hit.message_id,
            query: list.hits.query.clone(),
        })),
        _ => None,
    }
}
