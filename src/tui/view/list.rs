//! The session list: search line, then one row per matching session.

use crate::humanize;
use crate::store::id_start;
use crate::tui::keymap::{self, Scope};
use crate::tui::matcher;
use crate::tui::model::{LIVE_MARK, ListMode, Model, SessionRow, SortKey, fill_alarm};
use crate::tui::msg::Action;
use crate::tui::theme::Theme;
use crate::tui::view::{hits, scroll_into_view, text_field};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};
use std::collections::HashSet;

/// Draws the search line and the visible rows.
pub fn draw(frame: &mut Frame, model: &Model, offset: &mut usize, area: Rect, theme: Theme) {
    let [search, table_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(area);
    draw_search(frame, model, search, theme);

    let list = &model.list;
    if list.mode == ListMode::Messages {
        hits::draw(frame, model, offset, table_area, theme);
        return;
    }
    let block = Block::new()
        .borders(Borders::TOP)
        .title(Line::styled(" Sessions ", theme.title()));
    let inner_height = usize::from(table_area.height.saturating_sub(2)); // border + header
    scroll_into_view(offset, list.selected, inner_height, list.visible.len());
    let on_screen: Vec<&SessionRow> = list
        .visible
        .iter()
        .skip(*offset)
        .take(inner_height)
        .filter_map(|&i| list.rows.get(i))
        .collect();
    let shared = shared_names(&on_screen);
    // The name column gets what the fixed columns and their gaps leave.
    let fixed: u16 = 14 + 6 + 8 + 5 + 9 + 5;
    let name_room = usize::from(table_area.width.saturating_sub(fixed));
    let rows: Vec<Row> = on_screen
        .iter()
        .map(|row| {
            let tell_apart = shared
                .contains(row.record.name.as_str())
                .then_some(name_room);
            let window = model.app.settings.window_for(&row.record);
            let facts = RowFacts {
                query: &list.visible_query,
                now: model.app.now,
                tell_apart,
                window,
            };
            session_row(row, &facts, theme)
        })
        .collect();
    let header =
        Row::new(["NAME", "LAST USED", "MSGS", "TOKENS", "FILL", "SIZE"]).style(theme.title());
    let widths = [
        Constraint::Min(20),
        Constraint::Length(14), // the longest age: "59 minutes ago"
        Constraint::Length(6),
        Constraint::Length(8),
        Constraint::Length(5), // "100%"
        Constraint::Length(9),
    ];
    let table = Table::new(rows, widths)
        .header(header)
        .block(block)
        .row_highlight_style(theme.selected());
    let mut table_state = TableState::default()
        .with_selected((!list.visible.is_empty()).then(|| list.selected.saturating_sub(*offset)));
    frame.render_stateful_widget(table, table_area, &mut table_state);
    if list.visible.is_empty() {
        let text = if list.scanning {
            "reading sessions…".to_string()
        } else if list.rows.is_empty() {
            // Say where we looked: an empty list from the wrong folder or
            // user should be obvious at a glance.
            let folder = list.folder.as_deref().unwrap_or("the session folder");
            format!(
                "No sessions in {folder}. {} starts one; loki-sessions --demo shows a demo \
                 store, --root DIR or LOKI_HOME opens another Loki home.",
                keymap::key_for(Scope::List, Action::NewSession)
            )
        } else {
            format!(
                "No session matches. {} clears the query.",
                keymap::key_for(Scope::List, Action::ClearOrQuit)
            )
        };
        let inner = Rect::new(
            table_area.x + 1,
            table_area.y + 2,
            table_area.width.saturating_sub(2),
            table_area.height.saturating_sub(2).min(4),
        );
        let paragraph = Paragraph::new(Line::styled(text, theme.dim()))
            .wrap(ratatui::widgets::Wrap { trim: true });
        frame.render_widget(paragraph, inner);
    }
}

fn draw_search(frame: &mut Frame, model: &Model, area: Rect, theme: Theme) {
    let list = &model.list;
    let messages = list.mode == ListMode::Messages;
    let prompt = if messages { "messages › " } else { "› " };
    let mut spans = vec![Span::styled(prompt, theme.key())];
    let room = usize::from(area.width).saturating_sub(34 + prompt.chars().count());
    spans.extend(text_field::spans(&list.query, room, theme));
    if messages {
        spans.push(Span::styled(
            format!("   {}", hits::counts(&list.hits)),
            theme.dim(),
        ));
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
        return;
    }
    let count = if list.query.is_empty() {
        humanize::plural(list.rows.len() as u64, "session")
    } else {
        format!(
            "{} of {}",
            humanize::count(list.visible.len() as u64),
            humanize::count(list.rows.len() as u64)
        )
    };
    let scanning = if list.scanning {
        "  reading…"
    } else if !list.visible_complete && !list.query.is_empty() {
        "  ranking…"
    } else {
        ""
    };
    spans.push(Span::styled(format!("   {count}{scanning}"), theme.dim()));
    if list.sort != SortKey::LastUsed && list.query.is_empty() {
        spans.push(Span::styled(
            format!("   sorted by {}", list.sort.label()),
            theme.key(),
        ));
    } else if list.query.is_empty() {
        spans.push(Span::styled(
            format!(
                "   type to search names; {} searches messages",
                keymap::key_for(Scope::List, Action::ToggleSearchMode)
            ),
            theme.dim(),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The names more than one of `rows` carry.
fn shared_names<'a>(rows: &[&'a SessionRow]) -> HashSet<&'a str> {
    let mut seen = HashSet::new();
    rows.iter()
        .map(|r| r.record.name.as_str())
        .filter(|name| !seen.insert(*name))
        .collect()
}

/// What a row is drawn with besides the row.
struct RowFacts<'q> {
    /// The query its name is marked for.
    query: &'q str,
    /// The time now.
    now: f64,
    /// The name column's width when another row on screen has the same
    /// name: the start of the id follows the name, which is cut to leave
    /// it room.
    tell_apart: Option<usize>,
    /// Its model's context window.
    window: u64,
}

/// A session's row.
fn session_row<'a>(row: &'a SessionRow, facts: &RowFacts, theme: Theme) -> Row<'a> {
    let (query, now, tell_apart) = (facts.query, facts.now, facts.tell_apart);
    let r = &row.record;
    if r.error.is_some() {
        return Row::new([
            Cell::from(Line::from(vec![
                Span::styled("⚠ damaged ", theme.error()),
                Span::raw(r.id.clone()),
            ])),
            Cell::from("-"),
            Cell::from(""),
            Cell::from(""),
            Cell::from(""),
            Cell::from(
                row.stats
                    .as_ref()
                    .map_or(String::new(), |s| humanize::bytes(s.bytes)),
            ),
        ]);
    }
    let mut name = match tell_apart {
        Some(room) => {
            let suffix = format!(" · {}", id_start(&r.id));
            // Two columns for a marker (● or ⚠) the row may get.
            let keep = room.saturating_sub(suffix.chars().count() + 2);
            let mut line = highlighted(&humanize::truncate(&r.name, keep), query, theme);
            line.spans.push(Span::styled(suffix, theme.dim()));
            line
        }
        None => highlighted(&r.name, query, theme),
    };
    if row.stats.as_ref().is_some_and(|s| s.error.is_some()) {
        // The meta is fine but the conversation is not: say so on the row.
        name.spans.insert(0, Span::styled("⚠ ", theme.error()));
    } else if row.stats.as_ref().is_some_and(|s| s.is_active) {
        // A running agent owns it: writing to it races with the agent.
        name.spans.insert(0, Span::styled("● ", theme.key()));
    }
    let (messages, tokens, size) = match &row.stats {
        Some(s) => (
            s.messages.map_or("?".into(), |m| humanize::count(m as u64)),
            s.tokens.map_or("?".into(), humanize::count),
            humanize::bytes(s.bytes),
        ),
        None => ("…".into(), "…".into(), "…".into()),
    };
    let fill = match row.stats.as_ref().and_then(|s| s.tokens) {
        Some(t) => {
            let text = format!("{:.0}%", 100.0 * t as f64 / facts.window.max(1) as f64);
            let style = match fill_alarm(t, facts.window) {
                Some(true) => theme.error(),
                Some(false) => theme.warn(),
                None => Style::new(),
            };
            Line::styled(text, style)
        }
        None => Line::from("…"),
    };
    // Changed on disk in the last minute: an agent is at work.
    let used = if row.changed_at.is_some_and(|at| now - at < LIVE_MARK) {
        Line::styled("● live", theme.key())
    } else {
        Line::from(humanize::ago(r.last_used_at, now))
    };
    Row::new([
        Cell::from(name),
        Cell::from(used),
        Cell::from(Line::from(messages).right_aligned()),
        Cell::from(Line::from(tokens).right_aligned()),
        Cell::from(fill.right_aligned()),
        Cell::from(Line::from(size).right_aligned()),
    ])
}

/// `text` with the characters `query` matched in the match style.
pub fn highlighted(text: &str, query: &str, theme: Theme) -> Line<'static> {
    let marks = matcher::highlight(text, query);
    if marks.is_empty() {
        return Line::from(text.to_string());
    }
    let spans: Vec<Span> = text
        .chars()
        .enumerate()
        .map(|(i, c)| {
            let style = if marks.contains(&i) {
                theme.matched()
            } else {
                Style::new()
            };
            Span::styled(c.to_string(), style)
        })
        .collect();
    Line::from(spans)
}
