//! The list's second search: the text of every message, through the search
//! index. Each hit is a row (the session, the role, a snippet), a session's
//! hits grouped under its best; Enter opens a group and resumes a single
//! hit's session, Tab opens the viewer at that message.

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
    // the same query (the index grew), and the groups opened stay open;
    // else it starts at the best hit, every group closed.
    let same = list.hits.query == query;
    let keep = same
        .then(|| {
            list.selected_hit()
                .map(|h| (h.session_id.clone(), h.message_id.clone()))
        })
        .flatten();
    let opened = if same {
        std::mem::take(&mut list.hits.opened)
    } else {
        Default::default()
    };
    list.hits = match result {
        Ok(outcome) => MessageHits::answered(query, outcome, opened),
        Err(why) => MessageHits {
            query,
            error: Some(why),
            answered: true,
            ..MessageHits::default()
        },
    };
    if let Some((session, message)) = keep {
        list.hits.selected = list.hits.row_of(&session, &message).unwrap_or(0);
    }
}

/// Keys that act on the selected hit; None when the key is not one of them.
pub fn on_action(list: &mut ListScreen, app: &mut App, action: Action) -> Option<Step> {
    let len = list.hits.rows.len();
    if move_cursor(&mut list.hits.selected, len, action, app.page()) {
        return Some(Step::none());
    }
    // Enter on a session's hits grouped opens them (and on an open group,
    // closes it); on a single hit it resumes, as in the list.
    if action == Action::Resume && list.hits.toggle_group() {
        return Some(Step::none());
    }
    let hit = list.selected_hit()?.clone();
    let row = list.by_id.get(&hit.session_id).map(|&i| &list.rows[i])?;
    match action {
        Action::Open => Some(Step::go(Go::ViewerAt {
            record: row.record.clone(),
            message_id: hit.message_id,
            query: list.hits.query.clone(),
            context_id: hit.context_id,
        })),
        _ => None,
    }
}
