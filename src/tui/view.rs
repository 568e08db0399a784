//! Drawing: one file per pane, all over borrowed model data. `ViewState`
//! holds only what rendering needs between frames (scroll offsets).

mod breakdown;
mod contexts;
mod dashboard;
mod dialog;
mod diff;
mod edit;
mod find_bar;
mod footer;
mod help;
pub(crate) mod hits;
mod hosts;
mod list;
mod message;
mod messages;
mod preview;
mod purge;
mod scrub;
mod text_field;
mod transcript;
mod trash;
mod viewer;

use crate::render::theme::Theme;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{Model, Overlay, Screen};
use crate::tui::msg::Action;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};

pub use crate::tui::model::MIN_SIZE;

/// Render-time state kept between frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ViewState {
    /// First visible row of the session list.
    pub list_offset: usize,
    /// First visible message in the viewer.
    pub viewer_offset: usize,
    /// First visible row of the purge preview.
    pub purge_offset: usize,
    /// First visible row of the trash.
    pub trash_offset: usize,
    /// First visible row of the other machines' pane.
    pub hosts_offset: usize,
    /// Styles.
    pub theme: Option<Theme>,
}

impl ViewState {
    /// A view state with the given theme.
    pub fn new(theme: Theme) -> Self {
        ViewState {
            theme: Some(theme),
            ..ViewState::default()
        }
    }

    fn theme(&self) -> Theme {
        self.theme.unwrap_or(Theme::dark())
    }
}

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, model: &Model, state: &mut ViewState) {
    draw_panes(frame, model, state);
    crate::render::theme::contrast::keep_selection_readable(frame.buffer_mut(), state.theme());
    scrub::scrub(frame.buffer_mut());
}

fn draw_panes(frame: &mut Frame, model: &Model, state: &mut ViewState) {
    let area = frame.area();
    let theme = state.theme();
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        let text = vec![
            Line::styled("Terminal too small", theme.error()),
            Line::from(format!(
                "loki-sessions needs at least {}x{}; this one is {}x{}.",
                MIN_SIZE.0, MIN_SIZE.1, area.width, area.height
            )),
            Line::from(format!(
                "Enlarge the window, or press {} to quit; until then every other key is ignored.",
                keymap::key_in_words(Scope::Everywhere, Action::Quit)
            )),
        ];
        frame.render_widget(
            Paragraph::new(text).wrap(ratatui::widgets::Wrap { trim: true }),
            area,
        );
        return;
    }
    let [body, status, keys] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(footer::status_height(model, area.width)),
        Constraint::Length(1),
    ])
    .areas(area);
    match &model.screen {
        Screen::List => draw_list_screen(frame, model, state, body),
        Screen::Viewer(_) => viewer::draw(frame, model, state, body, theme),
        Screen::Purge(_) => purge::draw(frame, model, state, body, theme),
        Screen::Trash(_) => trash::draw(frame, model, state, body, theme),
        Screen::Dashboard(_) => dashboard::draw(frame, model, body, theme),
        Screen::Hosts => hosts::draw(frame, model, state, body, theme),
    }
    footer::draw_status(frame, model, status, theme);
    footer::draw_keys(frame, model, keys, theme);
    match &model.app.overlay {
        Some(Overlay::Help(scroll)) => help::draw(frame, model, *scroll, area, theme),
        Some(Overlay::Confirm(confirm)) => dialog::draw_confirm(frame, confirm, area, theme),
        Some(Overlay::Input(input)) => dialog::draw_input(frame, input, area, theme),
        None => {}
    }
}

/// The list with the preview beside it (wide) or below it; a message
/// search's hits take the width, the message found below them.
fn draw_list_screen(frame: &mut Frame, model: &Model, state: &mut ViewState, area: Rect) {
    let theme = state.theme();
    let messages = model.list.mode == crate::tui::model::ListMode::Messages;
    let wide = area.width >= 140 && !messages;
    let (list_area, preview_area) = if wide {
        let [l, p] = Layout::horizontal([Constraint::Percentage(58), Constraint::Percentage(42)])
            .areas(area);
        (l, p)
    } else {
        let preview_height = if messages {
            (area.height * 2 / 5).clamp(7, 16)
        } else {
            (area.height / 3).clamp(7, 12)
        };
        let [l, p] =
            Layout::vertical([Constraint::Min(5), Constraint::Length(preview_height)]).areas(area);
        (l, p)
    };
    list::draw(frame, model, &mut state.list_offset, list_area, theme);
    preview::draw(frame, model, preview_area, wide, theme);
}

/// Keeps `selected` inside a window of `height` rows starting at `offset`.
pub fn scroll_into_view(offset: &mut usize, selected: usize, height: usize, len: usize) {
    if height == 0 {
        return;
    }
    if selected < *offset {
        *offset = selected;
    } else if selected >= *offset + height {
        *offset = selected + 1 - height;
    }
    *offset = (*offset).min(len.saturating_sub(height));
}

/// Empties `popup` for an overlay. A wide character of the screen beneath
/// that straddles its left edge is blanked too: left whole, a terminal draws
/// it over the popup's border (its second half is that border's cell), and
/// the border of that row is pushed aside.
pub fn clear_popup(frame: &mut Frame, popup: Rect) {
    frame.render_widget(Clear, popup);
    let Some(left) = popup.x.checked_sub(1) else {
        return;
    };
    let buffer = frame.buffer_mut();
    for y in popup.top()..popup.bottom() {
        let cell = &mut buffer[(left, y)];
        if unicode_width::UnicodeWidthStr::width(cell.symbol()) > 1 {
            cell.set_symbol(" ");
        }
    }
}

/// A rectangle of `width` x `height` centred in `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

#[cfg(test)]
mod tests;
