//! The counts the fix for resuming is planned on: each message it would
//! change, counted as changed, asked of the store once per size of the
//! tool results cleared (the turns kept need no count of their own).

use crate::store::{ClearedCounts, Encoding};
use crate::tui::effect::Effect;
use crate::tui::model::{App, EditKind, Viewer};
use crate::tui::ops::{UiError, ViewerOp};
use std::sync::Arc;

/// Asks for the replaced counts of the size on screen, when the fix is on
/// screen, the counts are complete and nobody asked for them yet.
pub fn ask_replaced(viewer: &mut Viewer, app: &mut App) -> Vec<Effect> {
    let encoding = app.settings.encoding;
    let Some(over) = viewer
        .edit()
        .filter(|e| e.kind == EditKind::Resumable)
        .map(|e| e.results_over)
    else {
        return Vec::new();
    };
    let asked = viewer
        .pending
        .replaced
        .is_some_and(|(_, e, o)| e == encoding && o == over);
    if asked || viewer.replaced.contains_key(&(encoding, over)) {
        return Vec::new();
    }
    let Some(counts) = viewer.complete_counts(encoding) else {
        return Vec::new();
    };
    let Some(loaded) = &viewer.loaded else {
        return Vec::new();
    };
    let Some(facts) = loaded.facts.clone() else {
        return Vec::new();
    };
    let req = app.request();
    viewer.pending.replaced = Some((req, encoding, over));
    vec![Effect::store(
        req,
        ViewerOp::CountReplaced {
            context: loaded.context.clone(),
            facts,
            counts,
            encoding,
            results_over: over,
        },
    )]
}

/// The replaced counts arrived: kept, and the fix planned (an answer a
/// newer size superseded is dropped).
pub fn on_replaced(
    viewer: &mut Viewer,
    app: &mut App,
    req: u64,
    encoding: Encoding,
    results_over: u64,
    result: Result<ClearedCounts, UiError>,
) -> Vec<Effect> {
    if viewer.pending.replaced.map(|(r, ..)| r) != Some(req) {
        return Vec::new();
    }
    viewer.pending.replaced = None;
    match result {
        Ok(counts) => {
            viewer
                .replaced
                .insert((encoding, results_over), Arc::new(counts));
            super::replan(viewer, app)
        }
        Err(e) => {
            app.complain(format!("cannot count what the fix replaces: {e}"));
            Vec::new()
        }
    }
}
