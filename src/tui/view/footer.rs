//! The status line and the footer of main keys for the current scope.

use crate::humanize;
use crate::render::theme::Theme;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{IndexState, Model, watch_note};
use crate::tui::msg::Action;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

/// The last thing that happened; with nothing to say, that the mouse is
/// the terminal's (it stays so on every screen until turned back on).
pub fn draw_status(frame: &mut Frame, model: &Model, area: Rect, theme: Theme) {
    let Some(status) = &model.app.status else {
        if !model.app.mouse_capture {
            frame.render_widget(Paragraph::new(mouse_note(model)).style(theme.dim()), area);
            return;
        }
        // Nothing happened lately: say how far the search index got.
        let text = match &model.list.index {
            IndexState::Updating { total: 0, .. } => "indexing messages…".to_string(),
            IndexState::Updating { done, total } => format!(
                "indexing messages: {} of {} changed sessions read",
                humanize::count(*done as u64),
                humanize::count(*total as u64)
            ),
            IndexState::Failed(why) => format!("the search index is not up to date: {why}"),
            IndexState::Waiting | IndexState::Ready => match idle_note(model) {
                Some(text) => text,
                None => return,
            },
        };
        frame.render_widget(Paragraph::new(Line::styled(text, theme.dim())), area);
        return;
    };
    let style = if status.is_error {
        theme.error()
    } else {
        theme.dim()
    };
    frame.render_widget(status_paragraph(&status.text).style(style), area);
}

/// Lines a status message may take: a long one (an error naming a path
/// and the command to run) wraps rather than being cut at the edge.
const STATUS_LINES: u16 = 3;

/// The rows the status line takes at `width`: one, or as many as the
/// message needs, up to [`STATUS_LINES`].
pub fn status_height(model: &Model, width: u16) -> u16 {
    model.app.status.as_ref().map_or(1, |status| {
        let lines = status_paragraph(&status.text).line_count(width);
        u16::try_from(lines)
            .unwrap_or(u16::MAX)
            .clamp(1, STATUS_LINES)
    })
}

fn status_paragraph(text: &str) -> Paragraph<'_> {
    Paragraph::new(Line::raw(text)).wrap(Wrap { trim: false })
}

/// The main keys of the current scope, then help.
pub fn draw_keys(frame: &mut Frame, model: &Model, area: Rect, theme: Theme) {
    let mut spans = Vec::new();
    // A side conversation is read only: its footer offers no change.
    let hidden: &[Action] = match model.viewer() {
        Some(v) if v.side.is_some() => &crate::tui::model::SIDE_READ_ONLY,
        _ => &[],
    };
    for (key, what) in keymap::footer(keymap::scope(model), hidden) {
        spans.push(Span::styled(key, theme.key()));
        spans.push(Span::raw(format!(" {what}  ")));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// What the status line says when nothing happened lately: that the
/// viewer follows the end, or that the disk is polled.
fn idle_note(model: &Model) -> Option<String> {
    if model.viewer().is_some_and(|v| v.follow) {
        let key = keymap::key_for(Scope::Viewer, Action::Follow);
        return Some(format!(
            "following the end as the agent writes ({key} stops)"
        ));
    }
    model.app.watch.as_ref().and_then(watch_note)
}

/// `mouse off: …; m turns it back on` (naming where the key works when it
/// does not work here).
fn mouse_note(model: &Model) -> String {
    let here = keymap::key_for(keymap::scope(model), Action::ToggleMouse);
    let how = if here.is_empty() {
        format!(
            "{} in the viewer turns it back on",
            keymap::key_for(Scope::Viewer, Action::ToggleMouse)
        )
    } else {
        format!("{here} turns it back on")
    };
    format!("mouse off: select text with the mouse to copy it; {how}")
}
