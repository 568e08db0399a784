//! A text field drawn as a line: the part around the cursor that fits,
//! with the cursor shown where the next character goes.

use crate::render::theme::Theme;
use crate::tui::model::TextField;
use ratatui::text::Span;
use unicode_width::UnicodeWidthChar;

/// The spans of `field` in `width` columns (the cursor takes one of them).
pub fn spans(field: &TextField, width: usize, theme: Theme) -> Vec<Span<'static>> {
    let width = width.saturating_sub(1).max(1);
    let scroll = field.scroll(width);
    let mut column = 0;
    let (mut before, mut after) = (String::new(), String::new());
    let mut used = 0;
    for (i, c) in field.value().chars().enumerate() {
        let w = c.width().unwrap_or(0);
        column += w;
        if column <= scroll {
            continue;
        }
        if used + w > width {
            break;
        }
        used += w;
        if i < field.cursor() {
            before.push(c);
        } else {
            after.push(c);
        }
    }
    vec![
        Span::raw(before),
        Span::styled("▏", theme.key()),
        Span::raw(after),
    ]
}
