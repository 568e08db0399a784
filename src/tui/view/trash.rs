//! The trash pane: every session a delete or a purge of another agent's
//! sessions moved there, newest first, with whose it was, its size, when it
//! went and where it goes back to.

use crate::humanize;
use crate::render::theme::Theme;
use crate::store::TrashEntry;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{Model, TrashView, shown_title};
use crate::tui::msg::Action;
use crate::tui::view::{ViewState, scroll_into_view};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};

/// Draws the pane.
pub fn draw(frame: &mut Frame, model: &Model, state: &mut ViewState, area: Rect, theme: Theme) {
    let [header, summary, emptying, table_area, from] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("Trash   ", theme.title()),
            Span::styled(
                "other agents' sessions a delete or a purge moved here",
                theme.dim(),
            ),
        ])),
        header,
    );
    let Some(trash) = model.trash() else {
        return;
    };
    frame.render_widget(summary_line(trash, theme), summary);
    let Some(entries) = &trash.entries else {
        return;
    };
    frame.render_widget(emptying_line(trash, model.app.now, theme), emptying);
    let older_than = f64::from(trash.older_than_days) * 86_400.0;
    let height = usize::from(table_area.height.saturating_sub(2));
    let selected = trash.selected.min(entries.len().saturating_sub(1));
    scroll_into_view(&mut state.trash_offset, selected, height, entries.len());
    let rows: Vec<Row> = entries
        .iter()
        .skip(state.trash_offset)
        .take(height)
        .map(|e| {
            // What emptying would keep is dimmed: only the rest goes.
            let kept = model.app.now - e.trashed_at < older_than;
            let row = entry_row(e, model.app.now);
            if kept { row.style(theme.dim()) } else { row }
        })
        .collect();
    let widths = [
        Constraint::Length(11),
        Constraint::Min(20),
        Constraint::Length(14), // the longest age: "59 minutes ago"
        Constraint::Length(9),
        Constraint::Length(ID_WIDTH as u16),
    ];
    let table = Table::new(rows, widths)
        .header(Row::new(["AGENT", "SESSION", "TRASHED", "SIZE", "ID"]).style(theme.title()))
        .block(Block::new().borders(Borders::TOP))
        .row_highlight_style(theme.selected());
    let mut table_state = TableState::default()
        .with_selected((!entries.is_empty()).then(|| selected - state.trash_offset.min(selected)));
    frame.render_stateful_widget(table, table_area, &mut table_state);
    if let Some(entry) = trash.selected_entry() {
        let to = entry
            .moves
            .first()
            .map(|m| m.from.display().to_string())
            .unwrap_or_default();
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled("goes back to ", theme.dim()),
                Span::raw(to),
            ])),
            from,
        );
    }
}

/// How many, how big, and what a key does; or what is going on.
fn summary_line<'a>(trash: &TrashView, theme: Theme) -> Line<'a> {
    if let Some(id) = &trash.restoring {
        return Line::styled(format!("putting {id} back…"), theme.dim());
    }
    if let Some(count) = trash.deleting {
        return Line::styled(
            format!(
                "deleting {} for good…",
                humanize::plural(count as u64, "session")
            ),
            theme.dim(),
        );
    }
    if let Some(error) = &trash.error {
        return Line::styled(error.to_string(), theme.error());
    }
    match &trash.entries {
        None => Line::styled("reading the trash…", theme.dim()),
        Some(entries) if entries.is_empty() => Line::styled(
            "the trash is empty: a delete or a purge of another agent's sessions moves them here",
            theme.dim(),
        ),
        Some(entries) => Line::from(vec![
            Span::raw(format!(
                "{}, {}   ",
                humanize::plural(entries.len() as u64, "session"),
                humanize::bytes(entries.iter().map(|e| e.bytes).sum())
            )),
            Span::styled(keymap::key_for(Scope::Trash, Action::Restore), theme.key()),
            Span::styled(" puts the selected one back where it was", theme.dim()),
        ]),
    }
}

/// What the emptying key deletes for good: everything, or what was
/// trashed over the age chosen with `]` and `[`.
fn emptying_line<'a>(trash: &TrashView, now: f64, theme: Theme) -> Line<'a> {
    let Some(entries) = trash.entries.as_ref().filter(|e| !e.is_empty()) else {
        return Line::default();
    };
    let doomed = trash.doomed(now);
    let bytes = humanize::bytes(doomed.iter().map(|e| e.bytes).sum());
    let what = match trash.older_than_days {
        0 => format!(" deletes for good every session here ({bytes})   "),
        days if doomed.is_empty() => format!(
            " deletes nothing: none here was trashed over {} ago   ",
            humanize::plural(u64::from(days), "day")
        ),
        days => format!(
            " deletes for good the {} of {} trashed over {} ago ({bytes})   ",
            doomed.len(),
            entries.len(),
            humanize::plural(u64::from(days), "day")
        ),
    };
    Line::from(vec![
        Span::styled(keymap::key_for(Scope::Trash, Action::Delete), theme.key()),
        Span::styled(what, theme.dim()),
        Span::styled(
            format!(
                "{} {}",
                keymap::key_for(Scope::Trash, Action::AgeMore),
                keymap::key_for(Scope::Trash, Action::AgeLess)
            ),
            theme.key(),
        ),
        Span::styled(" by age", theme.dim()),
    ])
}

/// The id's first characters: enough to tell sessions apart, and what
/// `loki-sessions restore` takes (a unique prefix); the line under the
/// table shows the whole path of the selected one.
const ID_WIDTH: usize = 13;

fn entry_row<'a>(entry: &TrashEntry, now: f64) -> Row<'a> {
    Row::new([
        Cell::from(entry.agent.display_name()),
        Cell::from(shown_title(entry).to_string()),
        Cell::from(humanize::ago(entry.trashed_at, now)),
        Cell::from(Line::from(humanize::bytes(entry.bytes)).right_aligned()),
        Cell::from(humanize::truncate(&entry.id, ID_WIDTH)),
    ])
}
