//! The session list: search line, then one row per matching session.

use crate::humanize;
use crate::render::theme::Theme;
use crate::store::{CostEstimate, SessionRecord, id_start};
use crate::tui::keymap::{self, Scope};
use crate::tui::matcher;
use crate::tui::model::{LIVE_MARK, ListMode, Model, SessionRow, SortKey, context_of, fill_alarm};
use crate::tui::msg::Action;
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
    // With several agents' sessions listed, whose each is and the folder
    // it worked in have columns of their own (decided on every row, so the
    // columns do not come and go while scrolling).
    let mixed = list.rows.first().is_some_and(|first| {
        list.rows
            .iter()
            .any(|r| r.record.agent != first.record.agent)
    });
    // The project whenever the names keep 20 columns beside it (160
    // columns with the preview beside the list); on a narrow screen the
    // names keep the room.
    let project = mixed && table_area.width >= PROJECT_FROM;
    // What another agent's session cost, where some row has a figure and
    // the width allows after the project.
    let priced = list
        .rows
        .iter()
        .any(|r| r.stats.as_ref().is_some_and(|s| s.cost.is_some()));
    // Where both do not fit, the cost takes the size's place: the preview
    // says the size.
    let roomy = table_area.width >= if project { 120 } else { 90 };
    let size = !priced || roomy || !project;
    let cost = priced && (roomy || !size);
    // The name column gets what the fixed columns and their gaps leave.
    let extra = if mixed { AGENT + 1 } else { 0 }
        + if project { PROJECT + 1 } else { 0 }
        + if cost { COST + 1 } else { 0 };
    let fixed: u16 = 14 + 6 + 8 + 5 + 5 + if size { 9 + 1 } else { 0 } + extra - 1;
    let name_room = usize::from(table_area.width.saturating_sub(fixed));
    let look = RowLook {
        deletes_at: &list.agent_deletes_at,
        query: &list.visible_query,
        now: model.app.now,
        mixed,
        project,
        cost,
        size,
        theme,
    };
    let rows: Vec<Row> = on_screen
        .iter()
        .map(|row| {
            let tell_apart = shared
                .contains(row.record.name.as_str())
                .then_some(name_room);
            let window = model.app.settings.window_for(&row.record);
            session_row(row, &look, tell_apart, window)
        })
        .collect();
    let mut header = vec!["NAME", "LAST USED", "MSGS", "TOKENS", "FILL", "SIZE"];
    let mut widths = vec![
        Constraint::Min(20),
        Constraint::Length(14), // the longest age: "59 minutes ago"
        Constraint::Length(MSGS),
        Constraint::Length(TOKENS),
        Constraint::Length(5), // "100%"
        Constraint::Length(9),
    ];
    if !size {
        header.pop();
        widths.pop();
    }
    if cost {
        header.insert(5, "COST");
        widths.insert(5, Constraint::Length(COST));
    }
    if project {
        header.insert(1, "PROJECT");
        widths.insert(1, Constraint::Length(PROJECT));
    }
    if mixed {
        header.insert(0, "AGENT");
        widths.insert(0, Constraint::Length(AGENT));
    }
    let header = Row::new(header).style(theme.title());
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
            let folder = (model.app.settings.looked_in.as_deref())
                .or(list.folder.as_deref())
                .unwrap_or("the session folder");
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

/// The agent column's width: the longest agent name ("opencode"), checked
/// by a test.
const AGENT: u16 = 8;
/// The project column's width.
const PROJECT: u16 = 16;
/// The table width from which the project column shows: the fixed
/// columns (47 and their gaps), the agent's (9), the project's (17) and 20
/// for the names.
const PROJECT_FROM: u16 = 47 + AGENT + 1 + PROJECT + 1 + 20;
/// Columns of the COST column ("$123.45+?").
const COST: u16 = 9;
/// The messages' and the tokens' columns.
const MSGS: u16 = 6;
const TOKENS: u16 = 8;

/// What every row is drawn with.
struct RowLook<'a> {
    query: &'a str,
    now: f64,
    /// Several agents' sessions are listed: an agent column.
    mixed: bool,
    /// And room for a project column.
    project: bool,
    /// And room for a cost column.
    cost: bool,
    /// The size column (left out when the cost takes its place).
    size: bool,
    /// When each session's agent deletes it by itself, by id.
    deletes_at: &'a crate::store::DeletesAt,
    theme: Theme,
}

/// The cells of a row, with the agent's and the project's when the list
/// is mixed (`cells` are NAME, LAST USED, MSGS, TOKENS, FILL, SIZE).
fn with_agent<'a>(
    look: &RowLook<'_>,
    record: &SessionRecord,
    cost: Option<&CostEstimate>,
    mut cells: Vec<Cell<'a>>,
) -> Row<'a> {
    if !look.size {
        cells.pop();
    }
    if look.cost {
        let shown = cost.map_or(String::new(), |c| {
            humanize::dollars(c.usd, !c.unpriced_models.is_empty())
        });
        cells.insert(5, Cell::from(Line::from(shown).right_aligned()));
    }
    if look.project {
        let project = record.project().unwrap_or("-");
        let project = humanize::truncate(project, usize::from(PROJECT));
        cells.insert(1, Cell::from(Span::styled(project, look.theme.dim())));
    }
    if look.mixed {
        let agent = Span::styled(record.agent.name(), look.theme.dim());
        cells.insert(0, Cell::from(agent));
    }
    Row::new(cells)
}

/// A session's row; `tell_apart` (the name column's width) when another
/// row on screen has the same name: the start of the id follows the name,
/// which is cut to leave it room; `window`, its model's context window.
/// Another agent's session shows its title.
fn session_row<'a>(
    row: &'a SessionRow,
    look: &RowLook<'_>,
    tell_apart: Option<usize>,
    window: u64,
) -> Row<'a> {
    let (query, now, theme) = (look.query, look.now, look.theme);
    let r = &row.record;
    if r.error.is_some() {
        return with_agent(
            look,
            r,
            None,
            vec![
                Cell::from(Line::from(vec![
                    Span::styled("⚠ damaged ", theme.error()),
                    Span::raw(r.id.to_string()),
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
            ],
        );
    }
    let shown = crate::store::safe_text::safe_line(&r.label()).into_owned();
    let mut name = match tell_apart {
        Some(room) => {
            let suffix = format!(" · {}", id_start(&r.id));
            // Two columns for a marker (● or ⚠) the row may get.
            let keep = room.saturating_sub(suffix.chars().count() + 2);
            let mut line = highlighted(&humanize::truncate(&shown, keep), query, theme);
            line.spans.push(Span::styled(suffix, theme.dim()));
            line
        }
        None => highlighted(&shown, query, theme),
    };
    if r.archived {
        // Its agent deleted it; what is shown is our archived copy.
        name.spans
            .insert(0, Span::styled("archived · ", theme.dim()));
    } else if row.stats.as_ref().is_some_and(|s| s.error.is_some()) {
        // The meta is fine but the conversation is not: say so on the row.
        name.spans.insert(0, Span::styled("⚠ ", theme.error()));
    } else if look
        .deletes_at
        .get(r.id.as_str())
        .is_some_and(|at| *at - now < crate::tui::model::DELETES_SOON)
    {
        // Its agent's own cleanup deletes it within days (the preview says when).
        name.spans.insert(0, Span::styled("⚑ ", theme.warn()));
    } else if row.stats.as_ref().is_some_and(|s| s.is_active) {
        // A running agent owns it: writing to it races with the agent.
        name.spans.insert(0, Span::styled("● ", theme.key()));
    }
    let (messages, tokens, size) = match &row.stats {
        Some(s) => (
            s.messages
                .map_or("?".into(), |m| humanize::count_within(m as u64, MSGS)),
            s.tokens
                .map_or("?".into(), |t| humanize::count_within(t, TOKENS)),
            humanize::bytes(s.bytes),
        ),
        None => ("…".into(), "…".into(), "…".into()),
    };
    let context = row.stats.as_ref().and_then(|s| context_of(s, window));
    let fill = match context {
        Some(c) => {
            let text = format!("{:.0}%", 100.0 * c.fraction);
            let style = match fill_alarm(c.tokens, c.window) {
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
    with_agent(
        look,
        r,
        row.stats.as_ref().and_then(|s| s.cost.as_deref()),
        vec![
            Cell::from(name),
            Cell::from(used),
            Cell::from(Line::from(messages).right_aligned()),
            Cell::from(Line::from(tokens).right_aligned()),
            Cell::from(fill.right_aligned()),
            Cell::from(Line::from(size).right_aligned()),
        ],
    )
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_agent_column_holds_every_agent_s_name() {
        for agent in crate::store::Agent::ALL {
            assert!(agent.name().len() <= super::AGENT as usize, "{agent}");
        }
    }
}
