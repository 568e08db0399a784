//! A line of a message around what matched, with the matched words marked.

use crate::store::index::words::Word;

/// Characters of context shown before the first match.
const BEFORE: usize = 24;
/// Characters a snippet holds at most.
const LENGTH: usize = 160;

/// A piece of a message on one line, and where the matched words are in it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Snippet {
    /// The text: whitespace runs are one space; `…` where it was cut.
    pub text: String,
    /// Byte ranges of `text` to highlight.
    #[serde(skip)]
    pub highlights: Vec<(usize, usize)>,
}

/// The snippet of `text` around the first of `matched` (indices into `words`).
pub fn snippet(text: &str, words: &[Word], matched: &[usize]) -> Snippet {
    let first = matched.first().map_or(0, |&i| words[i].from);
    // Back up a little, to the start of a word when there is one nearby.
    let mut start = text[..first]
        .char_indices()
        .rev()
        .nth(BEFORE.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    if start > 0
        && let Some(space) = text[start..first].find(char::is_whitespace)
    {
        start += space + 1;
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
    let mut last_space = false;
    let mut open: Option<usize> = None;
    for (i, c) in text[start..].char_indices() {
        let at = start + i;
        if chars >= LENGTH {
            close(&mut out, &mut open);
            out.text.push('…');
            return out;
        }
        if marks.iter().any(|(from, to)| at >= *from && at < *to) {
            if open.is_none() {
                open = Some(out.text.len());
            }
        } else {
            close(&mut out, &mut open);
        }
        if c.is_whitespace() {
            if !last_space && !out.text.is_empty() {
                out.text.push(' ');
                chars += 1;
            }
            last_space = true;
        } else {
            out.text.push(c);
            chars += 1;
            last_space = false;
        }
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
}
