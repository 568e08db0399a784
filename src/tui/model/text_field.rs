//! One line of editable text (the search, a new prompt, a name) that
//! behaves like a shell line. Editing itself is `tui-input`'s; this adds a
//! length limit and pastes that stay text: a newline in a paste is a space,
//! never Enter.

use tui_input::{Input, InputRequest};

/// What a paste did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pasted {
    /// Characters inserted.
    pub inserted: usize,
    /// True when the paste was longer than the room left and was cut.
    pub cut: bool,
}

/// An editable line with a cursor and a limit in characters.
#[derive(Clone, Debug)]
pub struct TextField {
    input: Input,
    limit: usize,
}

impl PartialEq for TextField {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value() && self.cursor() == other.cursor()
    }
}

impl TextField {
    /// A field holding `value` (cut to `limit`), the cursor at its end.
    pub fn new(value: &str, limit: usize) -> Self {
        let value: String = value.chars().take(limit).collect();
        TextField {
            input: Input::new(value),
            limit,
        }
    }

    /// The text.
    pub fn value(&self) -> &str {
        self.input.value()
    }

    /// The cursor, in characters from the start.
    pub fn cursor(&self) -> usize {
        self.input.cursor()
    }

    /// The most characters the field takes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// True when the field holds no text.
    pub fn is_empty(&self) -> bool {
        self.value().is_empty()
    }

    /// Empties the field.
    pub fn clear(&mut self) {
        self.input.reset();
    }

    /// Applies one editing request; true when the text changed. A typed
    /// character past the limit is refused.
    pub fn edit(&mut self, request: InputRequest) -> bool {
        if matches!(request, InputRequest::InsertChar(_)) && self.is_full() {
            return false;
        }
        self.input
            .handle(request)
            .is_some_and(|changed| changed.value)
    }

    /// Inserts pasted text at the cursor as one edit: line breaks and tabs
    /// become spaces, other control characters are dropped, and what does
    /// not fit under the limit is cut (and said so).
    pub fn paste(&mut self, text: &str) -> Pasted {
        let room = self.limit.saturating_sub(self.value().chars().count());
        let mut clean = text
            .chars()
            .map(|c| {
                if matches!(c, '\n' | '\r' | '\t') {
                    ' '
                } else {
                    c
                }
            })
            .filter(|c| !c.is_control());
        let mut inserted = 0;
        for c in clean.by_ref().take(room) {
            self.input.handle(InputRequest::InsertChar(c));
            inserted += 1;
        }
        Pasted {
            inserted,
            cut: clean.next().is_some(),
        }
    }

    fn is_full(&self) -> bool {
        self.value().chars().count() >= self.limit
    }

    /// The first character shown when the field is `width` columns wide, so
    /// the cursor stays in view.
    pub fn scroll(&self, width: usize) -> usize {
        self.input.visual_scroll(width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paste_is_text_cut_to_the_limit() {
        let mut field = TextField::new("ab", 10);
        field.edit(InputRequest::GoToStart);
        let pasted = field.paste("why does\nthe build\r\n\u{7}fail please");
        assert_eq!(field.value(), "why doesab");
        assert_eq!(
            pasted,
            Pasted {
                inserted: 8,
                cut: true
            }
        );
        assert!(!field.edit(InputRequest::InsertChar('x')), "full");
        field.edit(InputRequest::GoToEnd);
        field.edit(InputRequest::DeletePrevWord);
        assert_eq!(field.value(), "why ");
        assert_eq!(TextField::new(&"z".repeat(50), 10).value().len(), 10);
    }

    #[test]
    fn a_huge_paste_costs_only_what_fits() {
        let mut field = TextField::new("", 200);
        let pasted = field.paste(&"x".repeat(5_000_000));
        assert_eq!((pasted.inserted, pasted.cut), (200, true));
        assert_eq!(field.value().len(), 200);
    }
}
