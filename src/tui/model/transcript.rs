//! The viewer's transcript mode: the whole active context as one document.
//! Messages are laid out when they come on screen (or are scrolled past),
//! at the screen's width, and kept until the width or the display settings
//! change; where the screen is, is a message and a row in it.

use crate::render::transcript::{Display, Laid, TextMatch};
use crate::tui::model::TextField;
use std::collections::HashSet;
use std::sync::Arc;

/// A search in the transcript.
#[derive(Clone, Debug, PartialEq)]
pub struct TranscriptFind {
    /// What is looked for (ASCII letters in any case).
    pub field: TextField,
    /// The field is open for typing.
    pub editing: bool,
    /// The matches, in document order (a first one alone until `complete`).
    pub hits: Arc<Vec<TextMatch>>,
    /// Every match is in `hits` (or the limit was reached).
    pub complete: bool,
    /// More matches than the finder keeps.
    pub more: bool,
    /// The match the view went to.
    pub current: Option<usize>,
    /// The tag of the search the field waits for.
    pub waiting: u64,
}

/// Where the screen is and what is laid out.
#[derive(Clone, Debug, PartialEq)]
pub struct TranscriptView {
    /// The message whose row is at the top of the screen.
    pub top: usize,
    /// That row, in the message's rows (0: its header).
    pub top_row: usize,
    /// Columns of text.
    pub width: usize,
    /// Rows of text on screen.
    pub height: usize,
    /// The settings the cached layouts were made with.
    pub laid_with: Display,
    /// Laid-out messages, by index; `None` until needed.
    pub laid: Vec<Option<Arc<Laid>>>,
    /// The last position that still fills the screen, once known.
    pub end: Option<(usize, usize)>,
    /// Parts shown whole against the settings (a search went there).
    pub unfolded: HashSet<(usize, usize)>,
    /// The search, if one was started.
    pub find: Option<TranscriptFind>,
}

impl TranscriptView {
    /// A view of `len` messages, not laid out yet.
    pub fn new(len: usize, display: Display) -> Self {
        TranscriptView {
            top: 0,
            top_row: 0,
            width: 0,
            height: 0,
            laid_with: display,
            laid: vec![None; len],
            end: None,
            unfolded: HashSet::new(),
            find: None,
        }
    }

    /// Rows and columns of text on a terminal of `size`: the whole width,
    /// the height less the status line, the keys, the title and the line
    /// of the search.
    pub fn area(size: (u16, u16)) -> (usize, usize) {
        (
            usize::from(size.0).max(1),
            usize::from(size.1.saturating_sub(4)).max(1),
        )
    }

    /// Messages laid out so far (the benchmark checks it stays small).
    pub fn laid_count(&self) -> usize {
        self.laid.iter().filter(|l| l.is_some()).count()
    }

    /// The layout of message `i`, if it is made.
    pub fn laid(&self, i: usize) -> Option<&Laid> {
        self.laid.get(i)?.as_deref()
    }

    /// The search being typed, if any.
    pub fn editing(&self) -> bool {
        self.find.as_ref().is_some_and(|f| f.editing)
    }
}
