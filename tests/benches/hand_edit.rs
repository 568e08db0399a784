//! The viewer's trim by hand on the 10,002-message context, through the
//! real loop (`LOKI_BENCH_ONLY=edit cargo bench --bench tui`): Space to the
//! frame showing the new total, the order largest first and back, jumps to
//! messages over a size.

use crate::support::*;
use crossterm::event::{KeyCode, KeyModifiers};
use std::path::Path;
use std::time::{Duration, Instant};

/// What the trim by hand measured.
pub struct EditFigures {
    /// Space (mark or unmark) to the frame showing the new total.
    pub marks: Vec<Duration>,
    /// Marks on screen at the end of the marking (before unmarking).
    pub marked: usize,
    /// Tool partners planned with them.
    pub partners: usize,
    /// `s` to the frame with the messages largest first.
    pub sort: Vec<Duration>,
    /// `s` again, to the frame with them back in order.
    pub unsort: Vec<Duration>,
    /// `>` to the frame on the next message over 200 tokens.
    pub jumps: Vec<Duration>,
    /// The loop's longest turn through all of it.
    pub longest_turn: Duration,
}

/// Trimming by hand on the long session through the real loop: marks and
/// unmarks, the order largest first and back, jumps to big messages.
pub fn measure(root: &Path, big_id: &str) -> EditFigures {
    use loki_sessions::tui::model::Model;
    let mut live = scanned(root);
    let prefix: String = big_id.chars().take(18).collect();
    for c in prefix.chars() {
        live.key(KeyCode::Char(c), KeyModifiers::NONE);
    }
    live.run_until(LIMIT, |m| {
        m.list.visible_query == prefix
            && m.list.selected_row().is_some_and(|r| r.record.id == big_id)
    })
    .expect("the long session is selected");
    live.key(KeyCode::Tab, KeyModifiers::NONE);
    live.run_until(LIMIT, |m| m.viewer().is_some_and(|v| v.breakdown.is_some()))
        .expect("opened, counted, the breakdown made");
    live.run_until(Duration::from_millis(300), |_| false);
    live.longest_turn = Duration::ZERO;
    let marks_of = |m: &Model| {
        m.viewer()
            .and_then(|v| v.edit())
            .filter(|e| e.plan.is_some())
            .map(|e| e.marks().len())
    };
    // Near the end, where the running total on screen adds up the most rows.
    let len = live.model.viewer().unwrap().loaded.as_ref().unwrap().len();
    let start = len - 320;
    live.key(KeyCode::End, KeyModifiers::NONE);
    for _ in 0..319 {
        live.key(KeyCode::Up, KeyModifiers::NONE);
    }
    live.run_until(LIMIT, |m| m.viewer().is_some_and(|v| v.selected == start))
        .unwrap();
    let mut marks = Vec::new();
    // Space marks and moves down: 300 messages in a row (tool pairs among them).
    for want in 1..=300 {
        let sent = Instant::now();
        live.key(KeyCode::Char(' '), KeyModifiers::NONE);
        live.run_until(LIMIT, |m| marks_of(m) == Some(want))
            .expect("marked and planned");
        marks.push(sent.elapsed());
    }
    let (marked, partners) = {
        let edit = live.model.viewer().unwrap().edit().unwrap();
        (
            edit.marks().len(),
            edit.plan.as_ref().unwrap().partners.len(),
        )
    };
    // Then unmark the last 150, going back up.
    for want in (150..300).rev() {
        // Message start + want is the last one marked; Space moved below it.
        while live.model.viewer().unwrap().selected > start + want {
            let before = live.model.viewer().unwrap().selected;
            live.key(KeyCode::Up, KeyModifiers::NONE);
            live.run_until(LIMIT, |m| m.viewer().is_some_and(|v| v.selected != before))
                .expect("moved up");
        }
        let sent = Instant::now();
        live.key(KeyCode::Char(' '), KeyModifiers::NONE);
        live.run_until(LIMIT, |m| marks_of(m) == Some(want))
            .expect("unmarked and planned");
        marks.push(sent.elapsed());
    }
    live.key(KeyCode::Esc, KeyModifiers::NONE);
    live.run_until(LIMIT, |m| m.viewer().is_some_and(|v| v.edit().is_none()))
        .unwrap();
    let (mut sort, mut unsort) = (Vec::new(), Vec::new());
    for _ in 0..20 {
        let sent = Instant::now();
        live.key(KeyCode::Char('s'), KeyModifiers::NONE);
        live.run_until(LIMIT, |m| m.viewer().is_some_and(|v| v.order.is_some()))
            .expect("sorted");
        sort.push(sent.elapsed());
        let sent = Instant::now();
        live.key(KeyCode::Char('s'), KeyModifiers::NONE);
        live.run_until(LIMIT, |m| m.viewer().is_some_and(|v| v.order.is_none()))
            .expect("back in order");
        unsort.push(sent.elapsed());
    }
    live.key(KeyCode::Home, KeyModifiers::NONE);
    live.run_until(LIMIT, |m| m.viewer().is_some_and(|v| v.selected == 0))
        .unwrap();
    // The demo's messages hold at most about 500 tokens: jump over 200
    // (59 of them), set through the size's field.
    live.key(KeyCode::Char('='), KeyModifiers::NONE);
    live.key(KeyCode::Char('u'), KeyModifiers::CONTROL);
    for c in "200".chars() {
        live.key(KeyCode::Char(c), KeyModifiers::NONE);
    }
    live.key(KeyCode::Enter, KeyModifiers::NONE);
    live.run_until(LIMIT, |m| m.app.big_message == 200).unwrap();
    let mut jumps = Vec::new();
    for _ in 0..30 {
        let before = live.model.viewer().unwrap().selected;
        let sent = Instant::now();
        live.key(KeyCode::Char('>'), KeyModifiers::NONE);
        live.run_until(LIMIT, |m| m.viewer().is_some_and(|v| v.selected != before))
            .expect("a message over 200 tokens further down");
        jumps.push(sent.elapsed());
    }
    EditFigures {
        marks,
        marked,
        partners,
        sort,
        unsort,
        jumps,
        longest_turn: live.longest_turn,
    }
}
