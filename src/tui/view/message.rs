//! One message full screen: a title, the rows on screen (only those are
//! drawn, from the row offsets the model keeps), labels and thinking set
//! apart, matches marked, and a line with the search and the position.
//! No side borders, so text selected with the terminal copies clean.

use crate::humanize;
use crate::render::theme::Theme;
use crate::tui::model::{Find, MessageView, Model, PartKind, Viewer};
use crate::tui::view::find_bar;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// Draws `view` of `viewer` in `area`.
pub fn draw(
    frame: &mut Frame,
    model: &Model,
    viewer: &Viewer,
    view: &MessageView,
    area: Rect,
    theme: Theme,
) {
    let [title, text, bar] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area);
    frame.render_widget(
        Block::new()
            .borders(Borders::TOP)
            .title(heading(model, viewer, view, theme)),
        title,
    );
    let first = view.scroll.min(view.rows.len().saturating_sub(1));
    let end = (first + usize::from(text.height)).min(view.rows.len());
    let lines: Vec<Line> = (first..end).map(|i| row_line(view, i, theme)).collect();
    let lines = if view.text.is_empty() {
        vec![Line::styled("(this message holds no content)", theme.dim())]
    } else {
        lines
    };
    frame.render_widget(Paragraph::new(lines), text);
    draw_bar(frame, view, first, end, bar, theme);
}

/// ` #14 assistant 78ac… 88 tokens `.
fn heading(model: &Model, viewer: &Viewer, view: &MessageView, theme: Theme) -> Line<'static> {
    let message = viewer
        .loaded
        .as_ref()
        .and_then(|l| l.context.message(view.index));
    let (role, id) = message.map_or(("", ""), |m| (m.role(), m.id()));
    let tokens = viewer
        .counts
        .get(&model.app.settings.encoding)
        .and_then(|c| c.get(view.index).copied().flatten())
        .map_or(String::new(), |n| {
            format!("   {}", humanize::plural(n, "token"))
        });
    Line::from(vec![
        Span::styled(
            format!(" {} ", humanize::message_number(view.index)),
            theme.title(),
        ),
        Span::styled(role.to_string(), theme.role(role)),
        Span::styled(format!(" {id}{tokens} "), theme.title()),
    ])
}

/// Row `i` of the text, styled by the part it is in, matches marked.
fn row_line(view: &MessageView, i: usize, theme: Theme) -> Line<'static> {
    let row = view.row(i);
    let base = match view.section_of(row.start) {
        Some(s) if row.start < s.body || s.kind == PartKind::Note => {
            theme.special().add_modifier(Modifier::BOLD)
        }
        Some(s) if s.kind == PartKind::Thinking => theme.dim().add_modifier(Modifier::ITALIC),
        _ => Style::new(),
    };
    let Some(find) = view.find.as_ref().filter(|f| !f.matches.is_empty()) else {
        return Line::styled(view.text[row].to_string(), base);
    };
    let mut spans = Vec::new();
    let mut at = row.start;
    let first = find.matches.partition_point(|m| m.end <= row.start);
    for (n, m) in find.matches.iter().enumerate().skip(first) {
        if m.start >= row.end {
            break;
        }
        let (start, end) = (m.start.max(row.start), m.end.min(row.end));
        if start > at {
            spans.push(Span::styled(view.text[at..start].to_string(), base));
        }
        let style = if find.current == Some(n) {
            theme.matched().add_modifier(Modifier::REVERSED)
        } else {
            theme.matched()
        };
        spans.push(Span::styled(view.text[start..end].to_string(), style));
        at = end;
    }
    if at < row.end {
        spans.push(Span::styled(view.text[at..row.end].to_string(), base));
    }
    Line::from(spans)
}

/// The search (or the field it is typed in) on the left, the position on
/// the right.
fn draw_bar(
    frame: &mut Frame,
    view: &MessageView,
    first: usize,
    end: usize,
    area: Rect,
    theme: Theme,
) {
    let position = format!(
        "lines {}-{} of {}{}",
        first + 1,
        end.max(first + 1),
        humanize::count(view.rows.len() as u64),
        if view.left_out > 0 { " (cut)" } else { "" }
    );
    let search = view.find.as_ref().map(|find| find_bar::Search {
        field: &find.field,
        editing: find.editing,
        counter: count_span(find, theme),
    });
    find_bar::draw(frame, search, position, 24, area, theme);
}

/// `match 3 of 12`, `12 matches`, `no match`.
fn count_span(find: &Find, theme: Theme) -> Span<'static> {
    let total = find.matches.len();
    let more = if find.more { "+" } else { "" };
    match (total, find.current) {
        (0, _) if find.field.is_empty() => Span::raw(""),
        (0, _) => Span::styled("no match", theme.error()),
        (_, Some(n)) => Span::raw(format!(
            "match {} of {}{more}",
            humanize::count(n as u64 + 1),
            humanize::count(total as u64)
        )),
        (1, None) => Span::raw("1 match"),
        (_, None) => Span::raw(format!("{}{more} matches", humanize::count(total as u64))),
    }
}
