//! The help overlay, generated from the keymap for the current screen,
//! scrolled when it is taller than the terminal.

use crate::render::theme::Theme;
use crate::render::wrap::{self, columns};
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{Model, Screen};
use crate::tui::msg::Action;
use crate::tui::view::{centered, clear_popup};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

/// Columns of the keys before each help text.
const KEY_COLUMNS: usize = 28;

/// Draws the keys of the screen under the overlay, from line `scroll` on.
/// The popup is as wide as its longest line where the screen allows, and a
/// help text too long for it wraps under itself.
pub fn draw(frame: &mut Frame, model: &Model, scroll: usize, area: Rect, theme: Theme) {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut notes = Vec::new();
    for scope in keymap::help_scopes(&model.screen) {
        rows.push((String::new(), String::new()));
        notes.push((rows.len() - 1, scope.title().to_string()));
        for (keys, help) in keymap::help_lines(*scope) {
            rows.push((keys, help.to_string()));
        }
        rows.push((String::new(), String::new()));
    }
    let mut dim = Vec::new();
    if matches!(model.screen, Screen::List) {
        dim.push(
            "Any other character types into the search. Words match in any order, \
             as in fzf: 'word as written, ^word at the start, word$ at the end, \
             !word must not be there."
                .to_string(),
        );
        dim.push("● an agent has the session open   ⚠ it cannot be read".to_string());
    }
    let global: Vec<(String, String)> = keymap::global_help_lines()
        .into_iter()
        .map(|(k, h)| (k, h.to_string()))
        .collect();
    let longest = rows
        .iter()
        .chain(&global)
        .map(|(_, help)| KEY_COLUMNS + 2 + columns(help))
        .chain(dim.iter().map(|d| columns(d) + 2))
        .max()
        .unwrap_or(0);
    // A popup, not a page: at most 100 columns, the notes wrap.
    let width = (longest as u16 + 2).clamp(40, area.width.clamp(1, 100));
    let text_width = usize::from(width.saturating_sub(2));
    let mut lines = Vec::new();
    for (i, (keys, help)) in rows.iter().enumerate() {
        if let Some((_, title)) = notes.iter().find(|(at, _)| *at == i) {
            lines.push(Line::styled(title.clone(), theme.title()));
        } else if keys.is_empty() && help.is_empty() {
            lines.push(Line::raw(""));
        } else {
            lines.extend(key_lines(keys, help, text_width, theme));
        }
    }
    for note in &dim {
        for row in wrap::lines(note, text_width.saturating_sub(2)) {
            lines.push(Line::styled(format!("  {row}"), theme.dim()));
        }
    }
    for (keys, help) in &global {
        lines.extend(key_lines(keys, help, text_width, theme));
    }
    let height = (lines.len() as u16 + 2).min(area.height);
    let shown = usize::from(height.saturating_sub(2));
    let scroll = scroll.min(lines.len().saturating_sub(shown));
    let popup = centered(area, width, height);
    clear_popup(frame, popup);
    let close = keymap::key_for(Scope::Help, Action::Back);
    let title = if lines.len() > shown {
        let more = keymap::key_for(Scope::Help, Action::PageDown);
        format!(
            " Keys ({close} closes, ↑↓ {more} scroll: {}-{} of {}) ",
            scroll + 1,
            scroll + shown,
            lines.len()
        )
    } else {
        format!(" Keys ({close} closes) ")
    };
    let block = Block::bordered().title(Line::styled(title, theme.title()));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((scroll as u16, 0)),
        popup,
    );
}

/// A key and its help, the help wrapped beside the keys at `width`.
fn key_lines(keys: &str, help: &str, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let keys_width = KEY_COLUMNS.max(columns(keys) + 1);
    let rows = wrap::lines(help, width.saturating_sub(keys_width + 2).max(10));
    rows.into_iter()
        .enumerate()
        .map(|(i, row)| {
            let shown = if i == 0 { keys } else { "" };
            Line::from(vec![
                Span::styled(format!("  {shown:<keys_width$}"), theme.key()),
                Span::raw(row),
            ])
        })
        .collect()
}
