//! The contexts (forks) of the session over the viewer: each with its
//! messages, tokens, creation time and how it stands to the active one,
//! forks indented under the context they came from.

use crate::humanize;
use crate::render::theme::Theme;
use crate::store::{ContextInfo, Relation};
use crate::tui::keymap::{self, Scope};
use crate::tui::model::ContextsView;
use crate::tui::msg::Action;
use crate::tui::view::{centered, clear_popup};
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, TableState, Wrap};

/// The messages' and the tokens' columns.
const MSGS: u16 = 6;
const TOKENS: u16 = 8;

/// Columns of everything but the context id (with the gaps between).
const FIXED_COLUMNS: u16 = 1 + 8 + MSGS + TOKENS + 16 + 5;

/// Draws the list over `area`.
pub fn draw(frame: &mut Frame, view: &ContextsView, area: Rect, theme: Theme) {
    let rows = view.list.as_ref().map_or(1, Vec::len) as u16;
    let height = (rows + 3).min(area.height.saturating_sub(2));
    // As wide as the longest id needs (with its indent), within the screen.
    let ids = view.list.iter().flatten().map(|c| 2 * c.depth + c.id.len());
    let wanted = 2 + FIXED_COLUMNS + ids.max().unwrap_or(40) as u16;
    let popup = centered(
        area,
        area.width.saturating_sub(6).min(wanted.max(74)),
        height,
    );
    clear_popup(frame, popup);
    let title = format!(
        " Contexts: {} makes one active (undo a trim), {} deletes one ",
        keymap::key_for(Scope::Contexts, Action::Confirm),
        keymap::key_for(Scope::Contexts, Action::DeleteContext)
    );
    let mut block = Block::bordered().title(Line::styled(title, theme.title()));
    if let Some(error) = view.chosen().and_then(|c| c.error.as_ref()) {
        block = block.title_bottom(Line::styled(
            format!(" unreadable: {error} "),
            theme.error(),
        ));
    }
    let Some(list) = &view.list else {
        let text = match &view.error {
            Some(e) => Line::styled(e.to_string(), theme.error()),
            None => Line::styled("reading the contexts…", theme.dim()),
        };
        let paragraph = Paragraph::new(text).block(block).wrap(Wrap { trim: true });
        frame.render_widget(paragraph, popup);
        return;
    };
    let id_width = popup.width.saturating_sub(2 + FIXED_COLUMNS).max(10);
    let rows: Vec<Row> = list
        .iter()
        .map(|c| context_row(c, view.counted, usize::from(id_width), theme))
        .collect();
    let widths = [
        Constraint::Length(1),
        Constraint::Length(id_width),
        Constraint::Length(8),
        Constraint::Length(MSGS),
        Constraint::Length(TOKENS),
        Constraint::Length(16),
    ];
    let header =
        Row::new(["", "CONTEXT", "RELATION", "MSGS", "TOKENS", "CREATED"]).style(theme.title());
    let table = Table::new(rows, widths)
        .header(header)
        .block(block)
        .row_highlight_style(theme.selected());
    let mut state = TableState::default().with_selected(Some(view.cursor));
    frame.render_stateful_widget(table, popup, &mut state);
}

fn context_row(c: &ContextInfo, counted: bool, id_width: usize, theme: Theme) -> Row<'static> {
    let id = humanize::truncate(&format!("{}{}", "  ".repeat(c.depth), c.id), id_width);
    let (mark, relation) = match c.relation {
        Relation::Active => (
            Cell::from(Line::styled("●", theme.key())),
            Cell::from(Line::styled("active", theme.key())),
        ),
        Relation::Ancestor => (Cell::from(""), Cell::from("ancestor")),
        Relation::Other => (
            Cell::from(""),
            Cell::from(Line::styled("other", theme.dim())),
        ),
    };
    let messages = c
        .messages
        .map_or("-".into(), |n| humanize::count_within(n as u64, MSGS));
    let tokens = match c.tokens {
        Some(n) => humanize::count_within(n, TOKENS),
        None if !counted && c.error.is_none() => "…".into(),
        None => "-".into(),
    };
    let created = match (&c.error, c.created_at) {
        (Some(_), _) => Cell::from(Line::styled("unreadable", theme.error())),
        (None, Some(at)) => Cell::from(humanize::datetime(at)),
        (None, None) => Cell::from("-"),
    };
    Row::new([
        mark,
        Cell::from(id),
        relation,
        Cell::from(Line::from(messages).right_aligned()),
        Cell::from(Line::from(tokens).right_aligned()),
        created,
    ])
}
