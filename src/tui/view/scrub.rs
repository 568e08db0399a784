//! The last step of every frame: no cell may hold a character a terminal
//! would act on rather than show. ratatui already drops graphemes with a C0
//! or C1 control; a bidi override (U+202E) is no control to it, and would
//! reorder what the terminal shows after it. Texts from files are made safe
//! where they are laid out (with visible escapes); this catches any place
//! that forgot, so nothing raw reaches the screen.

use crate::store::safe_text::is_unsafe;
use ratatui::buffer::Buffer;

/// Removes every character [`is_unsafe`] names from the cells of `buffer`.
pub fn scrub(buffer: &mut Buffer) {
    for cell in buffer.content.iter_mut() {
        let symbol = cell.symbol();
        if symbol.chars().any(is_unsafe) {
            let kept: String = symbol.chars().filter(|&c| !is_unsafe(c)).collect();
            cell.set_symbol(if kept.is_empty() { " " } else { &kept });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::widgets::{Paragraph, Widget};

    #[test]
    fn no_bidi_or_control_survives_a_frame() {
        let area = Rect::new(0, 0, 30, 1);
        let mut buffer = Buffer::empty(area);
        Paragraph::new("a\u{202e}b\u{2066}c\u{9b}d\x1be").render(area, &mut buffer);
        scrub(&mut buffer);
        let shown: String = buffer.content.iter().map(|c| c.symbol()).collect();
        assert!(!shown.chars().any(is_unsafe), "{shown:?}");
        assert!(shown.starts_with("abc"), "{shown:?}");
    }
}
