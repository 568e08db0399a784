//! Modal dialogs: a yes/no question (No by default) and a text field.

use crate::humanize;
use crate::render::theme::Theme;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{Confirm, Input, InputPurpose};
use crate::tui::msg::Action;
use crate::tui::view::{centered, clear_popup, text_field};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

/// The width of a question's box, in columns (less on a narrower screen).
const WIDTH: u16 = 74;

/// Draws a question.
pub fn draw_confirm(frame: &mut Frame, confirm: &Confirm, area: Rect, theme: Theme) {
    let mut lines: Vec<Line> = confirm.lines.iter().map(|l| Line::raw(l.clone())).collect();
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled(keymap::key_for(Scope::Confirm, Action::Yes), theme.key()),
        Span::raw(" yes    "),
        Span::styled(
            keymap::keys_for(Scope::Confirm, Action::No, 3, " / "),
            theme.key(),
        ),
        Span::raw(" no (default)"),
    ]));
    let width = WIDTH.min(area.width);
    // A long title is cut, by columns (a wide character takes two), with `…`.
    let title = humanize::truncate(&confirm.title, usize::from(width.saturating_sub(4)));
    let block = Block::bordered().title(Line::styled(format!(" {title} "), theme.error()));
    let question = Paragraph::new(lines).block(block).wrap(Wrap { trim: true });
    // As tall as its lines once wrapped (ratatui's own count), so the last
    // ones, the keys that answer among them, are never cut off.
    let rows = question.line_count(width.saturating_sub(2));
    let height = u16::try_from(rows).unwrap_or(u16::MAX).min(area.height);
    let popup = centered(area, width, height);
    clear_popup(frame, popup);
    frame.render_widget(question, popup);
}

/// Draws a text field.
pub fn draw_input(frame: &mut Frame, input: &Input, area: Rect, theme: Theme) {
    let (title, note) = match &input.purpose {
        InputPurpose::NewSession => (" New session: first prompt ", String::new()),
        InputPurpose::Rename { .. } => (" Rename session ", String::new()),
        InputPurpose::BigMessage => (
            " Jump to messages over how many tokens? ",
            format!(
                "{} and {} go to the next and the previous such message",
                keymap::key_for(Scope::Viewer, Action::NextBig),
                keymap::key_for(Scope::Viewer, Action::PrevBig)
            ),
        ),
        InputPurpose::Move { .. } => (
            " Move the session: the folder its project is in now ",
            "what changes is shown before anything is written".into(),
        ),
        InputPurpose::PullTo { .. } => (
            " Pull the session here: the folder its project is in on this machine ",
            "what is written is shown first; nothing on the other machine changes".into(),
        ),
        InputPurpose::Export => (
            " Export this context to a file ",
            ".md, .html (a page to share), .txt or .json; a bare name is in the current directory"
                .into(),
        ),
    };
    let lines = vec![
        Line::from(text_field::spans(&input.text, 66, theme)),
        Line::styled(note, theme.dim()),
        Line::from(vec![
            Span::styled(keymap::key_for(Scope::Input, Action::Confirm), theme.key()),
            Span::raw(" done    "),
            Span::styled(keymap::key_for(Scope::Input, Action::Back), theme.key()),
            Span::raw(" cancel"),
        ]),
    ];
    let popup = centered(area, 70, 5);
    clear_popup(frame, popup);
    let block = Block::bordered().title(Line::styled(title, theme.title()));
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}
