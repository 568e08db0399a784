//! The search index seen from the list: its background update (progress
//! in the header), and the stats it holds for every session (the size,
//! message and token columns of every row, and what the list sorts by).

use crate::store::{Encoding, IndexedStats, SessionStats, UpdateReport};
use crate::tui::effect::Effect;
use crate::tui::matcher::{MatcherJob, SortFacts};
use crate::tui::model::{App, IndexState, ListScreen, Settings};
use crate::tui::ops::{ListOp, UiError};

/// The update got this far.
pub fn on_progress(list: &mut ListScreen, done: usize, total: usize) {
    list.index = IndexState::Updating { done, total };
}

/// The update ended: read the stats it gathered.
pub fn on_updated(
    list: &mut ListScreen,
    app: &mut App,
    result: Result<UpdateReport, UiError>,
) -> Vec<Effect> {
    match result {
        Ok(report) => {
            list.index = IndexState::Ready;
            if let Some(note) = report.note {
                app.say(note);
            }
            vec![Effect::store(app.request(), ListOp::LoadIndexStats)]
        }
        Err(why) => {
            list.index = IndexState::Failed(why);
            Vec::new()
        }
    }
}

/// Rows filled from the index's stats per turn of the loop.
const FILL_SLICE: usize = 2_000;

/// Stats of every indexed session arrived: remember them (for rows still to
/// come) and fill the rows, the first slice now and the rest on later turns.
/// The flag says whether this filled the last slice.
pub fn on_stats(
    list: &mut ListScreen,
    app: &App,
    stats: std::collections::HashMap<String, IndexedStats>,
) -> (Vec<Effect>, bool) {
    let old = std::mem::replace(&mut list.indexed, stats);
    list.fill_generation += 1;
    list.fill_from = Some(0);
    let (mut effects, finished) = fill_slice(list, app);
    if !old.is_empty() {
        effects.push(Effect::FreeStats { stats: old });
    }
    (effects, finished)
}

/// Fills the next slice of rows if `generation` is still the current
/// stats; the effects are the matcher's facts and, unless this was the last
/// slice, the request for the next.
pub fn on_fill(list: &mut ListScreen, app: &App, generation: u64) -> (Vec<Effect>, bool) {
    if generation != list.fill_generation {
        return (Vec::new(), false);
    }
    fill_slice(list, app)
}

fn fill_slice(list: &mut ListScreen, app: &App) -> (Vec<Effect>, bool) {
    let Some(from) = list.fill_from else {
        return (Vec::new(), false);
    };
    let to = (from + FILL_SLICE).min(list.rows.len());
    let rows: Vec<usize> = (from..to).collect();
    let mut effects = fill(list, &app.settings, &rows);
    if to < list.rows.len() {
        list.fill_from = Some(to);
        effects.push(Effect::ContinueFill {
            generation: list.fill_generation,
        });
        (effects, false)
    } else {
        list.fill_from = None;
        (effects, true)
    }
}

/// Fills `rows` from the index's stats where the row has none yet; returns
/// the matcher's facts for them.
pub fn fill(list: &mut ListScreen, settings: &Settings, rows: &[usize]) -> Vec<Effect> {
    let encoding = settings.encoding;
    let mut facts = Vec::new();
    for &index in rows {
        let row = &mut list.rows[index];
        let Some(indexed) = list.indexed.get(row.record.id.as_str()) else {
            continue;
        };
        // Stats read first (sizes) lack what only a whole read gives: the
        // index's usage, cost and recorded context fill them in.
        if let Some(stats) = &mut row.stats {
            if stats.usage.is_none() {
                stats.usage = indexed.usage.clone();
                stats.cost = indexed.cost.clone();
            }
            if stats.context.is_none() {
                stats.context = indexed.context.clone();
            }
        }
        if row.stats.is_none() {
            row.stats = Some(SessionStats {
                bytes: indexed.bytes,
                messages: Some(indexed.messages),
                // The index counts cl100k_base only.
                tokens: indexed.tokens.filter(|_| encoding == Encoding::Cl100kBase),
                is_active: indexed.is_active,
                error: indexed.error.clone(),
                usage: indexed.usage.clone(),
                context: indexed.context.clone(),
                cost: indexed.cost.clone(),
            });
        }
        let window = settings.window_for(&row.record);
        facts.push((index, facts_of(row.stats.as_ref(), window)));
    }
    if facts.is_empty() {
        Vec::new()
    } else {
        vec![Effect::Matcher(MatcherJob::Facts(facts))]
    }
}

/// What the matcher sorts a row by; `window` is its model's.
pub fn facts_of(stats: Option<&SessionStats>, window: u64) -> SortFacts {
    stats.map_or_else(SortFacts::default, |s| {
        let tokens = s.tokens.unwrap_or(0);
        let fill = crate::tui::model::context_of(s, window)
            .map_or(0, |c| (c.fraction * 1_000_000.0) as u64);
        SortFacts {
            bytes: s.bytes,
            messages: s.messages.unwrap_or(0) as u64,
            tokens,
            fill,
            cost: s
                .cost
                .as_ref()
                .and_then(|c| c.usd)
                .map_or(0, |usd| (usd * 1e6) as u64),
        }
    })
}
