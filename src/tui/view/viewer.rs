//! The context viewer: gauge, messages with token counts and running total,
//! the trim being adjusted, and the selected message in full.

use crate::humanize;
use crate::store::{Encoding, Special, match_ranges};
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{Model, TrimKind, Viewer};
use crate::tui::msg::Action;
use crate::tui::theme::Theme;
use crate::tui::view::{ViewState, contexts, message, scroll_into_view, transcript};
use crate::tui::wrap;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Cell, LineGauge, Paragraph, Row, Table, TableState, Wrap};
use std::collections::HashSet;

/// Characters of each part shown in the detail pane: pages of text, and a
/// huge paste still draws within a frame (`loki-sessions show` has it all).
const DETAIL_CHARS: usize = 20_000;

/// Characters of a message shown on its line (more than any screen is wide).
const LINE_CHARS: usize = 300;

/// Draws the viewer.
pub fn draw(frame: &mut Frame, model: &Model, state: &mut ViewState, area: Rect, theme: Theme) {
    let Some(viewer) = model.viewer() else {
        return;
    };
    if let Some(view) = viewer.message() {
        message::draw(frame, model, viewer, view, area, theme);
        return;
    }
    if let Some(view) = viewer.transcript() {
        transcript::draw(frame, model, viewer, view, area, theme);
        return;
    }
    let trim_height = viewer
        .trim()
        .map_or(0, |t| 2 + t.warnings().len().min(2) as u16);
    let detail_height = (area.height / 3).clamp(5, 14);
    let [header, gauge, table_area, trim_area, detail] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(4),
        Constraint::Length(trim_height),
        Constraint::Length(detail_height),
    ])
    .areas(area);
    let encoding = model.app.settings.encoding;
    let counts = viewer.counts.get(&encoding);
    let counted = counts.map_or(0, |c| c.iter().filter(|x| x.is_some()).count());
    let total: u64 = counts.map_or(0, |c| c.iter().flatten().sum());
    let len = viewer.loaded.as_ref().map_or(0, |l| l.len());

    let title = heading(viewer, len, encoding, usize::from(header.width), theme);
    frame.render_widget(Paragraph::new(title), header);
    draw_gauge(frame, model, gauge, total, counted, len, theme);

    if let Some(error) = &viewer.error {
        let text = Paragraph::new(vec![Line::styled(error.clone(), theme.error())])
            .wrap(Wrap { trim: true });
        frame.render_widget(text, table_area);
        return;
    }
    draw_messages(frame, model, viewer, state, table_area, theme);
    if let Some(trim) = viewer.trim() {
        draw_trim(frame, trim, len, trim_area, theme);
    }
    draw_detail(frame, viewer, detail, theme);
    if let Some(view) = viewer.contexts() {
        contexts::draw(frame, view, area, theme);
    }
}

/// The session's name, its context, how many messages and the encoding:
/// the count and the encoding always show; a narrow screen shortens the
/// context id, then cuts the name.
fn heading(
    viewer: &Viewer,
    len: usize,
    encoding: Encoding,
    width: usize,
    theme: Theme,
) -> Line<'static> {
    let facts = format!(
        "   {}   {encoding}",
        humanize::plural(len as u64, "message")
    );
    let id = viewer.loaded.as_ref().map_or("…", |l| l.context.id());
    let name = &viewer.record.name;
    let room = width.saturating_sub(wrap::columns(&facts));
    // The id takes what the name leaves, and at least its date and first
    // eight digits; then the name is cut (or, very narrow, the id goes).
    const PREFIX: &str = "   context ";
    let id_room = room.saturating_sub(wrap::columns(name) + PREFIX.len());
    let mut context = if id_room >= short_id(id).len() {
        format!("{PREFIX}{}", humanize::truncate(id, id_room))
    } else {
        format!("{PREFIX}{}", short_id(id))
    };
    if room.saturating_sub(wrap::columns(&context)) < 12 {
        context.clear();
    }
    let name = humanize::truncate(name, room.saturating_sub(wrap::columns(&context)));
    Line::from(vec![
        Span::styled(name, theme.title()),
        Span::styled(context + &facts, theme.dim()),
    ])
}

fn draw_gauge(
    frame: &mut Frame,
    model: &Model,
    area: Rect,
    total: u64,
    counted: usize,
    len: usize,
    theme: Theme,
) {
    let window = model.app.settings.window_tokens.max(1);
    // A total of what is counted so far would read as the context's size:
    // until every message is counted, the gauge shows the counting instead.
    let (ratio, label, style) = if counted < len {
        (
            counted as f64 / len as f64,
            format!(
                "counting… {} of {} messages",
                humanize::count(counted as u64),
                humanize::count(len as u64)
            ),
            theme.dim(),
        )
    } else {
        let style = if total > window {
            theme.error()
        } else {
            theme.key()
        };
        (
            (total as f64 / window as f64).min(1.0),
            format!(
                "{} / {} tokens ({:.0}% of the window)",
                humanize::count(total),
                humanize::count(window),
                100.0 * total as f64 / window as f64
            ),
            style,
        )
    };
    let gauge = LineGauge::default()
        .ratio(ratio)
        .label(label)
        .filled_style(style);
    frame.render_widget(gauge, area);
}

fn draw_messages(
    frame: &mut Frame,
    model: &Model,
    viewer: &Viewer,
    state: &mut ViewState,
    area: Rect,
    theme: Theme,
) {
    let Some(loaded) = &viewer.loaded else {
        frame.render_widget(Paragraph::new(Line::styled("loading…", theme.dim())), area);
        return;
    };
    let counts = viewer.counts.get(&model.app.settings.encoding);
    let dropped: HashSet<usize> = viewer
        .trim()
        .and_then(|t| t.plan.as_ref())
        .map(|p| p.dropped.iter().copied().collect())
        .unwrap_or_default();
    let height = usize::from(area.height.saturating_sub(2));
    let offset = &mut state.viewer_offset;
    scroll_into_view(offset, viewer.selected, height, loaded.len());
    // The running total needs every count before the first visible row.
    // The running total of what the context holds (after the trim on screen,
    // if any) needs every kept count before the first visible row.
    let mut running: u64 = counts.map_or(0, |c| {
        c.iter()
            .take(*offset)
            .enumerate()
            .filter(|(i, _)| !dropped.contains(i))
            .filter_map(|(_, n)| *n)
            .sum()
    });
    let ctx = &loaded.context;
    let specials = ctx.special_indices();
    let rows: Vec<Row> = (*offset..ctx.len().min(*offset + height))
        .filter_map(|i| ctx.message(i).map(|m| (i, m)))
        .map(|(i, m)| {
            let count = counts.and_then(|c| c.get(i).copied().flatten());
            let kept = !dropped.contains(&i);
            if kept {
                running += count.unwrap_or(0);
            }
            let special = specials.contains(&i).then(|| ctx.special_at(i)).flatten();
            let marker = match special {
                Some(Special::SystemPrompt) => Span::styled("◆ system", theme.special()),
                Some(Special::ToolDefinitions) => Span::styled("◆ tools", theme.special()),
                None => Span::styled(m.role().to_string(), theme.role(m.role())),
            };
            let row = Row::new([
                Cell::from(Line::from(i.to_string()).right_aligned()),
                Cell::from(Line::from(marker)),
                Cell::from(Line::from(count.map_or("…".into(), humanize::count)).right_aligned()),
                Cell::from(
                    Line::from(if count.is_some() && kept {
                        humanize::count(running)
                    } else {
                        String::new()
                    })
                    .right_aligned(),
                ),
                Cell::from(m.one_line_limited(LINE_CHARS)),
            ]);
            if kept { row } else { row.style(theme.dim()) }
        })
        .collect();
    let widths = [
        Constraint::Length(6),
        Constraint::Length(10),
        Constraint::Length(8),
        Constraint::Length(9),
        Constraint::Min(10),
    ];
    let block = Block::new()
        .borders(Borders::TOP)
        .title(Line::styled(" Messages ", theme.title()));
    let table = Table::new(rows, widths)
        .header(Row::new(["#", "ROLE", "TOKENS", "TOTAL", "TEXT"]).style(theme.title()))
        .block(block)
        .row_highlight_style(theme.selected());
    let mut table_state = TableState::default()
        .with_selected((!loaded.is_empty()).then(|| viewer.selected.saturating_sub(*offset)));
    frame.render_stateful_widget(table, area, &mut table_state);
}

fn draw_trim(
    frame: &mut Frame,
    trim: &crate::tui::model::TrimState,
    len: usize,
    area: Rect,
    theme: Theme,
) {
    let what = match (trim.kind, trim.value) {
        (TrimKind::KeepLast, 1) => "keep the last message".to_string(),
        (TrimKind::KeepLast, n) => format!("keep the last {} messages", humanize::count(n)),
        (TrimKind::Budget, n) => format!("fit in {}", humanize::plural(n, "token")),
    };
    let typing = if trim.typing.is_some() {
        " (typing)"
    } else {
        ""
    };
    let result = match &trim.plan {
        None if trim.applying => "writing the fork…".to_string(),
        None => "counting tokens…".to_string(),
        Some(plan) if !plan.changed => "nothing to drop: the context already fits".to_string(),
        Some(plan) => format!(
            "→ {} of {}, {} → {}, {} dropped (dimmed)",
            humanize::count(plan.kept.len() as u64),
            humanize::plural(len as u64, "message"),
            humanize::count(plan.tokens_before),
            humanize::plural(plan.tokens_after, "token"),
            humanize::count(plan.dropped.len() as u64)
        ),
    };
    let lines = vec![
        Line::from(vec![
            Span::styled("Trim: ", theme.title()),
            Span::styled(what, theme.key()),
            Span::styled(typing, theme.dim()),
            Span::raw("   "),
            Span::raw(result),
        ]),
        Line::styled(
            format!(
                "Nothing changes until {}; the current context stays on disk ({} switches back).",
                keymap::key_for(Scope::Trim, Action::Confirm),
                keymap::key_for(Scope::Viewer, Action::Contexts)
            ),
            theme.dim(),
        ),
    ];
    let mut lines = lines;
    for warning in trim.warnings().into_iter().take(2) {
        lines.insert(1, Line::styled(format!("Note: {warning}"), theme.error()));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

fn draw_detail(frame: &mut Frame, viewer: &Viewer, area: Rect, theme: Theme) {
    let Some(message) = viewer
        .loaded
        .as_ref()
        .and_then(|l| l.context.message(viewer.selected))
    else {
        return;
    };
    let title = format!(" #{} {} {} ", viewer.selected, message.role(), message.id());
    let block = Block::new()
        .borders(Borders::TOP)
        .title(Line::styled(title, theme.title()));
    let readable = message.readable_limited(DETAIL_CHARS);
    let body = match &viewer.find {
        Some(query) => marked_lines(&readable, &match_ranges(&readable, query), theme),
        None => Text::raw(readable),
    };
    let text = Paragraph::new(body)
        .block(block)
        .wrap(Wrap { trim: false })
        .scroll((viewer.detail_scroll, 0));
    frame.render_widget(text, area);
}

/// `text` as lines, the byte ranges `marks` in the match style.
fn marked_lines(text: &str, marks: &[(usize, usize)], theme: Theme) -> Text<'static> {
    let mut lines = Vec::new();
    let mut start = 0;
    for line in text.split('\n') {
        let end = start + line.len();
        let mut spans = Vec::new();
        let mut at = start;
        for &(from, to) in marks.iter().filter(|(f, t)| *f >= start && *t <= end) {
            if from < at {
                continue;
            }
            spans.push(Span::raw(text[at..from].to_string()));
            spans.push(Span::styled(text[from..to].to_string(), theme.matched()));
            at = to;
        }
        spans.push(Span::raw(text[at..end].to_string()));
        lines.push(Line::from(spans));
        start = end + 1;
    }
    Text::from(lines)
}

fn short_id(id: &str) -> &str {
    id.get(..17).unwrap_or(id)
}
