//! Finding where the tokens are: the breakdown by kind (arithmetic on the
//! counts the viewer holds, made when the last count arrives), the
//! messages largest first (from the largest) and back (the selection stays
//! on its message, so the largest can be read in its place),
//! and jumps to the next message over a size the person sets.

use crate::humanize;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{App, Input, InputPurpose, Overlay, SizeOrder, Viewer};
use crate::tui::msg::Action;
use crate::tui::update::move_cursor;

/// Brings the breakdown and the largest-first order up to date with the
/// counts of the current encoding: both wait until every message is
/// counted (a partial breakdown would read as the context's).
pub fn refresh(viewer: &mut Viewer, app: &App) {
    let counts = viewer.complete_counts(app.settings.encoding);
    let facts = viewer.loaded.as_ref().and_then(|l| l.facts.as_ref());
    viewer.breakdown = match (&counts, facts) {
        (Some(counts), Some(facts)) => Some(facts.breakdown(counts)),
        _ => None,
    };
    let was_sorted = viewer.order.is_some();
    viewer.order = match (&counts, viewer.sorted) {
        (Some(counts), true) => Some(SizeOrder::largest_first(counts)),
        _ => None,
    };
    // Largest first is for seeing the largest: it opens on the first row.
    if !was_sorted && viewer.order.is_some() {
        viewer.selected = viewer.message_at(0);
        viewer.detail_scroll = 0;
    }
}

/// Moves the selection by a cursor key, in the order the table shows;
/// true when `action` was such a key.
pub fn move_selection(viewer: &mut Viewer, action: Action, page: usize) -> bool {
    let len = viewer.loaded.as_ref().map_or(0, |l| l.len());
    let mut row = viewer.row_of(viewer.selected);
    if !move_cursor(&mut row, len, action, page) {
        return false;
    }
    viewer.selected = viewer.message_at(row);
    viewer.detail_scroll = 0;
    true
}

/// Sorts the messages largest first, showing the largest, or puts them
/// back in context order with the selected message still selected.
pub fn toggle_sort(viewer: &mut Viewer, app: &mut App) {
    let key = keymap::key_for(Scope::Viewer, Action::SortBySize);
    viewer.sorted = !viewer.sorted;
    refresh(viewer, app);
    if !viewer.sorted {
        app.say("messages in the context's order");
    } else if viewer.order.is_some() {
        app.say(format!(
            "largest messages first; {key} puts them back in order"
        ));
    } else {
        app.say("largest first once every message is counted");
    }
}

/// Selects the next (or previous) message, in the table's order, holding
/// more than the size set, counted so far.
pub fn jump(viewer: &mut Viewer, app: &mut App, forward: bool) {
    let len = viewer.loaded.as_ref().map_or(0, |l| l.len());
    let size = app.big_message;
    let from = viewer.row_of(viewer.selected);
    let found = {
        let Some(counts) = viewer.counts.get(&app.settings.encoding) else {
            return;
        };
        let big = |row: &usize| {
            counts
                .get(viewer.message_at(*row))
                .copied()
                .flatten()
                .is_some_and(|n| n > size)
        };
        if forward {
            (from + 1..len).find(big)
        } else {
            (0..from).rev().find(big)
        }
    };
    match found {
        Some(row) => {
            viewer.selected = viewer.message_at(row);
            viewer.detail_scroll = 0;
        }
        None => app.say(format!(
            "no message {} holds more than {} ({} sets the size)",
            if forward { "below" } else { "above" },
            humanize::plural(size, "token"),
            keymap::key_for(Scope::Viewer, Action::SetBigSize)
        )),
    }
}

/// Asks for the size the jumps go to messages over.
pub fn ask_size(app: &mut App) {
    let current = app.big_message.to_string();
    app.overlay = Some(Overlay::Input(Input::new(
        InputPurpose::BigMessage,
        &current,
    )));
}

/// The size typed: a number (`1,000` and `1_000` too) becomes the size;
/// anything else is refused and asked again.
pub fn on_size_typed(app: &mut App, text: &str) {
    match parse_number(text) {
        Some(size) => {
            app.big_message = size;
            app.say(format!(
                "{} and {} go to messages over {}",
                keymap::key_for(Scope::Viewer, Action::NextBig),
                keymap::key_for(Scope::Viewer, Action::PrevBig),
                humanize::plural(size, "token")
            ));
        }
        None => {
            app.complain(format!("{text:?} is not a number of tokens"));
            app.overlay = Some(Overlay::Input(Input::new(InputPurpose::BigMessage, text)));
        }
    }
}

/// A count as people type it: digits, with `,`, `_` or spaces between.
pub fn parse_number(text: &str) -> Option<u64> {
    let text = text.trim();
    let well_formed = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ',' | '_' | ' '))
        && text.chars().any(|c| c.is_ascii_digit());
    if !well_formed {
        return None;
    }
    text.chars()
        .filter(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()
}
