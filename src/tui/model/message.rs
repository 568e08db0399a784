//! One message read full screen in the viewer: its text (cut at
//! [`MESSAGE_LIMIT`]), where each row starts when wrapped to the screen,
//! the scroll, and a search in it.

use crate::tui::model::TextField;
use std::ops::Range;
use std::sync::Arc;

/// Bytes of a message the full-screen view holds: hundreds of screens,
/// laid out in milliseconds; `loki-sessions show --message` prints the rest.
pub const MESSAGE_LIMIT: usize = 2_000_000;

/// The longest search, in characters.
pub const FIND_LIMIT: usize = 200;

/// The most matches a search marks (the count says when there are more).
pub const MATCH_LIMIT: usize = 100_000;

/// What a stretch of the text is, for its style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// Plain text.
    Text,
    /// The model's reasoning.
    Thinking,
    /// A tool call: its label and its arguments.
    ToolCall,
    /// A tool's result.
    ToolResult,
    /// Anything else: tool definitions, media, unknown parts.
    Other,
    /// The note that the text was cut.
    Note,
}

/// One part of the message in the text: a label line (for anything but
/// plain text), then its body.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// Where its first line starts (bytes into the text).
    pub start: usize,
    /// Where its body starts (equal to `start` when it has no label).
    pub body: usize,
    /// What it is.
    pub kind: PartKind,
}

/// A search in the message.
#[derive(Clone, Debug, PartialEq)]
pub struct Find {
    /// What is looked for (ASCII letters in any case).
    pub field: TextField,
    /// The field is open for typing.
    pub editing: bool,
    /// Where it was found, in order (bytes into the text).
    pub matches: Vec<Range<usize>>,
    /// The match the view went to.
    pub current: Option<usize>,
    /// True when there were more than [`MATCH_LIMIT`] matches.
    pub more: bool,
}

/// A message shown full screen, wrapped to the terminal's width.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageView {
    /// Its index in the active context.
    pub index: usize,
    /// Its text: every part, labelled, cut at [`MESSAGE_LIMIT`].
    pub text: Arc<str>,
    /// The parts in `text`, in order.
    pub sections: Vec<Section>,
    /// Bytes of the message left out of `text` (0 when it is whole).
    pub left_out: usize,
    /// The width `rows` were wrapped at.
    pub width: usize,
    /// Where each row starts (bytes into `text`), for `width`.
    pub rows: Vec<usize>,
    /// The first row on screen.
    pub scroll: usize,
    /// Rows on screen.
    pub height: usize,
    /// The search, if one was started.
    pub find: Option<Find>,
}

impl MessageView {
    /// The bytes of row `i` (its line break left out).
    pub fn row(&self, i: usize) -> Range<usize> {
        let start = self.rows.get(i).copied().unwrap_or(self.text.len());
        let end = self.rows.get(i + 1).copied().unwrap_or(self.text.len());
        let end = if self.text[start..end].ends_with('\n') {
            end - 1
        } else {
            end
        };
        start..end
    }

    /// The row holding byte `at`.
    pub fn row_of(&self, at: usize) -> usize {
        self.rows
            .partition_point(|&start| start <= at)
            .saturating_sub(1)
    }

    /// The part holding byte `at`.
    pub fn section_of(&self, at: usize) -> Option<&Section> {
        let i = self.sections.partition_point(|s| s.start <= at);
        i.checked_sub(1).map(|i| &self.sections[i])
    }

    /// The last first row that still fills the screen.
    pub fn max_scroll(&self) -> usize {
        self.rows.len().saturating_sub(self.height)
    }

    /// The rows on screen, `first..end`.
    pub fn visible(&self) -> Range<usize> {
        self.scroll..(self.scroll + self.height).min(self.rows.len())
    }

    /// The text rows and columns of the view on a terminal of `size`: the
    /// whole width, and the height less the status line, the keys, the
    /// message's title and the line of the search.
    pub fn area(size: (u16, u16)) -> (usize, usize) {
        (
            usize::from(size.0).max(1),
            usize::from(size.1.saturating_sub(4)).max(1),
        )
    }
}
