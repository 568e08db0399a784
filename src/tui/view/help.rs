//! The help overlay, generated from the keymap for the current screen,
//! scrolled when it is taller than the terminal.

use crate::tui::keymap::{self, Scope};
use crate::tui::model::{Model, Screen};
use crate::tui::msg::Action;
use crate::tui::theme::Theme;
use crate::tui::view::{centered, clear_popup};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

/// Draws the keys of the screen under the overlay, from line `scroll` on.
pub fn draw(frame: &mut Frame, model: &Model, scroll: usize, area: Rect, theme: Theme) {
    let mut lines = Vec::new();
    for scope in keymap::help_scopes(&model.screen) {
        lines.push(Line::styled(scope.title(), theme.title()));
        for (keys, help) in keymap::help_lines(*scope) {
            lines.push(key_line(&keys, help, theme));
        }
        lines.push(Line::raw(""));
    }
    if matches!(model.screen, Screen::List) {
        lines.push(Line::styled(
            "  Any other character types into the search.",
            theme.dim(),
        ));
        lines.push(Line::styled(
            "  ● an agent has the session open   ⚠ it cannot be read",
            theme.dim(),
        ));
    }
    for (keys, help) in keymap::global_help_lines() {
        lines.push(key_line(&keys, help, theme));
    }
    let height = (lines.len() as u16 + 2).min(area.height);
    let shown = usize::from(height.saturating_sub(2));
    let scroll = scroll.min(lines.len().saturating_sub(shown));
    let popup = centered(area, 76, height);
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

fn key_line<'a>(keys: &str, help: &'a str, theme: Theme) -> Line<'a> {
    Line::from(vec![
        Span::styled(format!("  {keys:<28}"), theme.key()),
        Span::raw(help),
    ])
}
