//! The help overlay, generated from the keymap for the current screen.

use crate::tui::keymap::{self, Scope};
use crate::tui::model::{Model, Screen};
use crate::tui::msg::Action;
use crate::tui::theme::Theme;
use crate::tui::view::centered;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

/// Draws the keys of the screen under the overlay.
pub fn draw(frame: &mut Frame, model: &Model, area: Rect, theme: Theme) {
    let scopes: &[Scope] = match model.screen {
        Screen::List => &[Scope::List],
        Screen::Viewer(_) => &[Scope::Viewer, Scope::Trim, Scope::Contexts],
        Screen::Purge(_) => &[Scope::Purge, Scope::Confirm],
    };
    let mut lines = Vec::new();
    for scope in scopes {
        lines.push(Line::styled(scope.title(), theme.title()));
        for (keys, help) in keymap::help_lines(*scope) {
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys:<28}"), theme.key()),
                Span::raw(help),
            ]));
        }
        lines.push(Line::raw(""));
    }
    if matches!(model.screen, Screen::List) {
        lines.push(Line::styled(
            "  Any other character types into the search.",
            theme.dim(),
        ));
    }
    for (keys, help) in keymap::global_help_lines() {
        lines.push(Line::from(vec![
            Span::styled(format!("  {keys:<28}"), theme.key()),
            Span::raw(help),
        ]));
    }
    let height = (lines.len() as u16 + 2).min(area.height);
    let popup = centered(area, 76, height);
    frame.render_widget(Clear, popup);
    let close = keymap::key_for(Scope::Help, Action::Back);
    let block = Block::bordered().title(Line::styled(
        format!(" Keys ({close} closes) "),
        theme.title(),
    ));
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}
