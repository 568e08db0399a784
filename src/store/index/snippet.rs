//! A line of a message around what matched, with the matched words marked;
//! and a longer passage of it, its lines kept, for the list's preview.

use crate::store::format::safe_text::{is_unsafe, safe_line};
use crate::store::index::words::Word;

/// How much of a message an excerpt shows.
struct Shape {
    /// Characters of context shown before the first match.
    before: usize,
    /// Characters it holds at most.
    length: usize,
    /// Line breaks kept (a run of blank lines is one), else one line.
    lines: bool,
}

/// A hit's row: one line.
const SNIPPET: Shape = Shape {
    before: 24,
    length: 160,
    lines: false,
};

/// The preview of a hit: a few lines before the match, a screen after.
const PASSAGE: Shape = Shape {
    before: 240,
    length: 1600,
    lines: true,
};

/// A piece of a message, and where the matched words are in it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Snippet {
    /// The text: whitespace runs are one space (one newline in a
    /// passage); `…` where it was cut; controls as visible escapes.
    pub text: String,
    /// Byte ranges of `text` to highlight.
    #[serde(skip)]
    pub highlights: Vec<(usize, usize)>,
}

/// The snippet of `text` around the first of `matched` (indices into `words`).
pub fn snippet(text: &str, words: &[Word], matched: &[usize]) -> Snippet {
    excerpt(text, words, matched, &SNIPPET)
}

/// [`snippet`] longer and with its lines: what the preview of a hit shows.
pub fn passage(text: &str, words: &[Word], matched: &[usize]) -> Snippet {
    excerpt(text, words, matched, &PASSAGE)
}

fn excerpt(text: &str, words: &[Word], matched: &[usize], shape: &Shape) -> Snippet {
    let first = matched.first().map_or(0, |&i| words[i].from);
    // Back up a little, to the start of a word (of a line, for a passage)
    // when there is one nearby.
    let mut start = text[..first]
        .char_indices()
        .rev()
        .nth(shape.before.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    if start > 0 {
        let line = shape.lines.then(|| text[start..first].find('\n')).flatten();
        if let Some(at) = line.or_else(|| text[start..first].find(char::is_whitespace)) {
            start += at + 1;
        }
    }
    let marks: Vec<(usize, usize)> = matched
        .iter()
        .map(|&i| (words[i].from, words[i].to))
        .collect();
    let mut out = Snippet::default();
    if start > 0 {
        out.text.push('…');
    }
    let mut chars = 0;
    // The whitespace run being read: None outside one, else whether it
    // holds a line break.
    let mut space: Option<bool> = None;
    let mut open: Option<usize> = None;
    for (i, c) in text[start..].char_indices() {
        let at = start + i;
        if chars >= shape.length {
            close(&mut out, &mut open);
            out.text.push('…');
            return out;
        }
        if c.is_whitespace() {
            let newline = shape.lines && c == '\n';
            space = Some(space.unwrap_or(false) || newline);
            continue;
        }
        if let Some(newline) = space.take()
            && !out.text.is_empty()
        {
            close(&mut out, &mut open);
            out.text.push(if newline { '\n' } else { ' ' });
            chars += 1;
        }
        if marks.iter().any(|(from, to)| at >= *from && at < *to) {
            if open.is_none() {
                open = Some(out.text.len());
            }
        } else {
            close(&mut out, &mut open);
        }
        // A control or bidi character from the file shows as its visible
        // escape: the excerpt is safe wherever it is laid out, and its
        // marks stay on the text as shown.
        if is_unsafe(c) {
            out.text.push_str(&safe_line(c.encode_utf8(&mut [0; 4])));
        } else {
            out.text.push(c);
        }
        chars += 1;
    }
    close(&mut out, &mut open);
    out
}

fn close(out: &mut Snippet, open: &mut Option<usize>) {
    if let Some(from) = open.take() {
        out.highlights.push((from, out.text.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::index::words::words;

    #[test]
    fn the_snippet_shows_the_match_in_its_line() {
        let text = format!("{} the token\nexpired at noon", "word ".repeat(40));
        let ws = words(&text);
        let at = ws.iter().position(|w| w.text == "token").unwrap();
        let s = snippet(&text, &ws, &[at, at + 1]);
        assert!(
            s.text.starts_with('…') && s.text.contains("the token expired at noon"),
            "{}",
            s.text
        );
        let marked: Vec<&str> = s.highlights.iter().map(|&(a, b)| &s.text[a..b]).collect();
        assert_eq!(marked, ["token", "expired"]);
        let long = "x ".repeat(500);
        let ws = words(&long);
        assert!(snippet(&long, &ws, &[0]).text.ends_with('…'));
    }

    #[test]
    fn a_passage_keeps_its_lines_from_the_start_of_the_matchs_line() {
        let text = format!(
            "{}\nfirst line\n\n\n  the token\texpired\nlast",
            "word ".repeat(100)
        );
        let ws = words(&text);
        let at = ws.iter().position(|w| w.text == "token").unwrap();
        let p = passage(&text, &ws, &[at]);
        assert_eq!(p.text, "…first line\nthe token expired\nlast");
        let marked: Vec<&str> = p.highlights.iter().map(|&(a, b)| &p.text[a..b]).collect();
        assert_eq!(marked, ["token"]);
        // What a file hides in its text is shown, not acted on.
        let hostile = "the token \u{1b}]0;pwned\u{7} and \u{202e}reversed";
        let ws = words(hostile);
        let at = ws.iter().position(|w| w.text == "token").unwrap();
        for shown in [passage(hostile, &ws, &[at]), snippet(hostile, &ws, &[at])] {
            assert!(!shown.text.chars().any(is_unsafe), "{:?}", shown.text);
            assert!(
                shown.text.contains("\\x1b]0;pwned\\x07"),
                "{:?}",
                shown.text
            );
            assert_eq!(
                &shown.text[shown.highlights[0].0..shown.highlights[0].1],
                "token"
            );
        }
    }
}
