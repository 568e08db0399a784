//! The bar under a text being read (a message full screen, the transcript):
//! the search, or the field it is typed in, on the left, and where the
//! reader is on the right.

use crate::humanize;
use crate::render::theme::Theme;
use crate::render::wrap;
use crate::tui::model::TextField;
use crate::tui::view::text_field;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// A search shown in the bar: its field, whether it is being typed, and
/// its counter (`3/17`, `no match`).
pub struct Search<'a> {
    pub field: &'a TextField,
    pub editing: bool,
    pub counter: Span<'static>,
}

/// Draws the bar; `counter_room` is the width kept for the counter.
pub fn draw(
    frame: &mut Frame,
    search: Option<Search>,
    position: String,
    counter_room: usize,
    area: Rect,
    theme: Theme,
) {
    let room = usize::from(area.width).saturating_sub(wrap::columns(&position) + 2);
    let width = room.saturating_sub(counter_room).max(8);
    let mut spans = match search {
        Some(search) if search.editing => {
            let mut spans = vec![Span::styled("/", theme.key())];
            spans.extend(text_field::spans(search.field, width, theme));
            spans.push(Span::raw("  "));
            spans.push(search.counter);
            spans
        }
        Some(search) => vec![
            Span::styled(
                format!("/{}  ", humanize::truncate(search.field.value(), width)),
                theme.key(),
            ),
            search.counter,
        ],
        None => Vec::new(),
    };
    let used: usize = spans.iter().map(|s| wrap::columns(&s.content)).sum();
    spans.push(Span::raw(" ".repeat(
        usize::from(area.width).saturating_sub(used + wrap::columns(&position)),
    )));
    spans.push(Span::styled(position, theme.dim()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
