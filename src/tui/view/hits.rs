//! The hits of a message search: one row per message (its session, when
//! the session was last used, who wrote it, a line of it with the matched
//! words marked), a session's hits grouped under its best.

use crate::humanize;
use crate::render::theme::Theme;
use crate::store::Hit;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{HitRow, ListScreen, MessageHits, Model};
use crate::tui::msg::Action;
use crate::tui::view::scroll_into_view;
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};

/// Draws the hits under the search line: the session, when it was last
/// used, who wrote the message, and the words found in their sentence. A
/// session's hits are one row (`▸`, with how many) until Enter opens them.
pub fn draw(frame: &mut Frame, model: &Model, offset: &mut usize, area: Rect, theme: Theme) {
    let list = &model.list;
    let hits = &list.hits;
    let block = Block::new()
        .borders(Borders::TOP)
        .title(Line::styled(" Messages ", theme.title()));
    let height = usize::from(area.height.saturating_sub(2));
    // The message takes the room: the session's name gets a fifth of the
    // width (between 16 and 28 columns).
    let width = usize::from(area.width);
    let session_width = (width / 5).clamp(16, 28);
    let room = width.saturating_sub(session_width + USED + ROLE + 3);
    scroll_into_view(offset, hits.selected, height, hits.rows.len());
    let rows: Vec<Row> = hits
        .rows
        .iter()
        .skip(*offset)
        .take(height)
        .map(|row| {
            let hit = &hits.hits[row.hit];
            Row::new([
                Cell::from(session_cell(hit, row, session_width, theme)),
                // In an open group, where in the session each hit is
                // rather than the same date again.
                Cell::from(Line::styled(
                    match (row.group, hit.sequence) {
                        (0, Some(n)) => format!("message {n}"),
                        _ => humanize::last_used(hit.last_used_at, model.app.now),
                    },
                    theme.dim(),
                )),
                Cell::from(Line::styled(hit.role.clone(), theme.dim())),
                Cell::from(marked(&hit.snippet, &hit.highlights, room, theme)),
            ])
        })
        .collect();
    let widths = [
        Constraint::Length(session_width as u16),
        Constraint::Length(USED as u16),
        Constraint::Length(ROLE as u16),
        Constraint::Min(20),
    ];
    let table = Table::new(rows, widths)
        .header(Row::new(["SESSION", "USED", "ROLE", "MESSAGE"]).style(theme.title()))
        .block(block)
        .row_highlight_style(theme.selected());
    let selected = (!hits.rows.is_empty()).then(|| hits.selected.saturating_sub(*offset));
    let mut state = TableState::default().with_selected(selected);
    frame.render_stateful_widget(table, area, &mut state);
    if hits.hits.is_empty() {
        let inner = Rect::new(area.x + 1, area.y + 2, area.width.saturating_sub(2), 1);
        frame.render_widget(
            Paragraph::new(Line::styled(empty_text(list), theme.dim())),
            inner,
        );
    }
}

/// Columns of the USED and ROLE columns.
const USED: usize = 13;
const ROLE: usize = 9;

/// The session's name on its first row (`▸ 12` after it when it has more
/// hits, closed; `▾` open), an indent on the other rows of an open group.
fn session_cell(hit: &Hit, row: &HitRow, width: usize, theme: Theme) -> Line<'static> {
    if row.group == 0 {
        return Line::styled("  └", theme.dim());
    }
    if row.group == 1 {
        return Line::raw(humanize::truncate(&hit.session_name, width));
    }
    let count = format!(" {} {}", if row.open { '▾' } else { '▸' }, row.group);
    let name = humanize::truncate(
        &hit.session_name,
        width.saturating_sub(count.chars().count()),
    );
    Line::from(vec![Span::raw(name), Span::styled(count, theme.key())])
}

/// What the empty table says.
fn empty_text(list: &ListScreen) -> String {
    let hits = &list.hits;
    if list.query.is_empty() {
        return "Type words to find them in every message: \"an exact phrase\", role:user|assistant|tool|system.".into();
    }
    if let Some(error) = &hits.error {
        return error.to_string();
    }
    if !hits.answered {
        return "searching…".into();
    }
    format!(
        "No message matches. {} clears the query; {} searches names.",
        keymap::key_for(Scope::Messages, Action::ClearOrQuit),
        keymap::key_for(Scope::Messages, Action::ToggleSearchMode)
    )
}

/// The counts after the query: hits, sessions, and how much is indexed.
pub fn counts(hits: &MessageHits) -> String {
    if !hits.answered {
        return String::new();
    }
    let mut text = format!(
        "{} matching",
        humanize::plural(hits.total as u64, "message")
    );
    let sessions = hits.session_count();
    if sessions > 1 && hits.total == hits.hits.len() {
        text.push_str(&format!(
            " in {}",
            humanize::count(sessions as u64) + " sessions"
        ));
    }
    if hits.covered < hits.sessions {
        text.push_str(&format!(
            "  ({} of {} sessions indexed so far)",
            humanize::count(hits.covered as u64),
            humanize::count(hits.sessions as u64)
        ));
    }
    if hits.unreadable > 0 {
        text.push_str(&format!(
            "  ({} could not be read)",
            humanize::plural(hits.unreadable as u64, "session")
        ));
    }
    text
}

/// `text` with the byte ranges `marks` in the match style, its start cut
/// (with `…`) so the first match shows in `room` columns.
fn marked(text: &str, marks: &[(usize, usize)], room: usize, theme: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    let mut at = 0;
    // The first match and those close behind it (a phrase) should show.
    let cluster_end = marks.first().map(|&(start, _)| {
        marks
            .iter()
            .filter(|(from, _)| *from < start + 40)
            .map(|&(_, to)| to)
            .max()
            .unwrap_or(start)
    });
    if let Some(end) = cluster_end {
        let shown_to = unicode_width::UnicodeWidthStr::width(&text[..end.min(text.len())]);
        let excess = (shown_to + 8).saturating_sub(room);
        if excess > 0 {
            let mut width = 0;
            let cut = text
                .char_indices()
                .find(|(_, c)| {
                    width += unicode_width::UnicodeWidthChar::width(*c).unwrap_or(0);
                    width > excess
                })
                .map_or(0, |(i, _)| i);
            spans.push(Span::raw("…"));
            at = cut;
        }
    }
    for &(from, to) in marks {
        if from < at
            || to > text.len()
            || !text.is_char_boundary(from)
            || !text.is_char_boundary(to)
        {
            continue;
        }
        spans.push(Span::raw(text[at..from].to_string()));
        spans.push(Span::styled(text[from..to].to_string(), theme.matched()));
        at = to;
    }
    spans.push(Span::raw(text[at..].to_string()));
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counts_say_what_was_not_searched() {
        let hits = MessageHits {
            total: 3,
            covered: 8,
            sessions: 10,
            unreadable: 1,
            answered: true,
            ..MessageHits::default()
        };
        assert_eq!(
            counts(&hits),
            "3 messages matching  (8 of 10 sessions indexed so far)  (1 session could not be read)"
        );
    }
}
