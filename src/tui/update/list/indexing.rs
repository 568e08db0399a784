//! The search index seen from the list: its background update (progress
//! in the header), and the stats it holds for every session (the size,
//! message and token columns of every row, and what the list sorts by).

use crate::store::{Encoding, IndexedStats, SessionStats, UpdateReport};
use crate::tui::effect::{Effect, SortFacts};
use crate::tui::model::{App, IndexState, ListScreen};

/// The update got this far.
pub fn on_progress(list: &mut ListScreen, done: usize, total: usize) {
    list.index = IndexState::Updating { done, total };
}

/// The update ended: read the stats it gathered.
pub fn on_updated(
    list: &mut ListScreen,
    app: &mut App,
    result: Result<UpdateReport, String>,
) -> Vec<Effect> {
    match result {
        Ok(report) => {
            list.index = IndexState::Ready;
            if let Some(note) = report.note {
                app.say(note);
            }
            vec![Effect::LoadIndexStats]
        }
        Err(why) => {
            list.index = IndexState::Failed(why);
            Vec::new()
        }
    }
}

/// Stats of every indexed session arrived: fill the rows (and remember them
/// for rows still to come), and tell the matcher what to sort by.
pub fn on_stats(
    list: &mut ListScreen,
    app: &App,
    stats: std::collections::HashMap<String, IndexedStats>,
) -> Vec<Effect> {
    list.indexed = stats;
    let rows: Vec<usize> = (0..list.rows.len()).collect();
    fill(list, app.settings.encoding, &rows)
}

/// Fills `rows` from the index's stats where the row has none yet; returns
/// the matcher's facts for them.
pub fn fill(list: &mut ListScreen, encoding: Encoding, rows: &[usize]) -> Vec<Effect> {
    let mut facts = Vec::new();
    for &index in rows {
        let row = &mut list.rows[index];
        let Some(indexed) = list.indexed.get(&row.record.id) else {
            continue;
        };
        if row.stats.is_none() {
            row.stats = Some(SessionStats {
                bytes: indexed.bytes,
                messages: Some(indexed.messages),
                // The index counts cl100k_base only.
                tokens: indexed.tokens.filter(|_| encoding == Encoding::Cl100kBase),
                is_active: indexed.is_active,
                error: indexed.error.clone(),
            });
        }
        facts.push((index, facts_of(row.stats.as_ref())));
    }
    if facts.is_empty() {
        Vec::new()
    } else {
        vec![Effect::SortFacts { rows: facts }]
    }
}

/// What the matcher sorts a row by.
pub fn facts_of(stats: Option<&SessionStats>) -> SortFacts {
    stats.map_or_else(SortFacts::default, |s| SortFacts {
        bytes: s.bytes,
        messages: s.messages.unwrap_or(0) as u64,
        tokens: s.tokens.unwrap_or(0),
    })
}
