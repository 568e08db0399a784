//! Words as search sees them, the same for the index and the direct scan:
//! Unicode word boundaries (UAX #29, from `unicode-segmentation`), split
//! further at punctuation inside a word (`session.py` is `session` `py`),
//! lower-cased. Han, kana and Hangul characters are one word each, so a
//! part of a sentence in those scripts can be found (as a phrase of
//! characters); an emoji is a word of its own.

use unicode_segmentation::UnicodeSegmentation;

/// One word of a text: where it is, and its lower-case form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// Byte offset of its first character in the text.
    pub from: usize,
    /// Byte offset just past its last character.
    pub to: usize,
    /// The lower-case word.
    pub text: String,
}

/// The index keeps the first this many characters of a longer word (a
/// hash, a base64 blob), which keeps it small; such a word is still found,
/// the index's hits being checked against the words of their text.
pub const LONGEST_WORD: usize = 64;

/// `word` as the index holds it: its first [`LONGEST_WORD`] characters.
pub fn indexed_form(word: &str) -> &str {
    match word.char_indices().nth(LONGEST_WORD) {
        Some((end, _)) => &word[..end],
        None => word,
    }
}

/// The words of `text`, in order.
pub fn words(text: &str) -> Vec<Word> {
    word_iter(text).collect()
}

/// The words of `text` one at a time: the index's tokenizer takes them so,
/// holding a segment's words at most rather than the whole text's (tens of
/// millions in a pasted log).
pub fn word_iter(text: &str) -> impl Iterator<Item = Word> + '_ {
    text.split_word_bound_indices()
        .flat_map(|(start, segment)| {
            let mut out = Vec::new();
            if segment.chars().any(char::is_alphanumeric) {
                split_segment(start, segment, &mut out);
            } else if is_symbol_word(segment) {
                out.push(Word {
                    from: start,
                    to: start + segment.len(),
                    text: segment.to_string(),
                });
            }
            out
        })
}

/// Runs of letters and digits, with each character of a script written
/// without spaces taken alone.
fn split_segment(start: usize, segment: &str, out: &mut Vec<Word>) {
    let mut run: Option<usize> = None;
    let close = |run: &mut Option<usize>, end: usize, out: &mut Vec<Word>| {
        if let Some(from) = run.take() {
            let text = segment[from..end].to_lowercase();
            out.push(Word {
                from: start + from,
                to: start + end,
                text,
            });
        }
    };
    for (i, c) in segment.char_indices() {
        if is_unspaced_script(c) {
            close(&mut run, i, out);
            out.push(Word {
                from: start + i,
                to: start + i + c.len_utf8(),
                text: c.to_lowercase().collect(),
            });
        } else if c.is_alphanumeric() {
            run.get_or_insert(i);
        } else {
            close(&mut run, i, out);
        }
    }
    close(&mut run, segment.len(), out);
}

/// Scripts written without spaces between words.
fn is_unspaced_script(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF   // hiragana, katakana
        | 0x3400..=0x4DBF // CJK extension A
        | 0x4E00..=0x9FFF // CJK unified ideographs
        | 0xF900..=0xFAFF // CJK compatibility ideographs
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0x20000..=0x2FFFF)
}

/// A segment of symbols worth finding (an emoji, ✓), not spacing or
/// punctuation.
fn is_symbol_word(segment: &str) -> bool {
    segment.chars().any(|c| {
        !c.is_whitespace() && !c.is_ascii() && !is_general_punctuation(c) && !c.is_control()
    })
}

fn is_general_punctuation(c: char) -> bool {
    matches!(c as u32, 0x2000..=0x206F | 0x3000..=0x303F | 0xFF00..=0xFF0F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<String> {
        words(text).into_iter().map(|w| w.text).collect()
    }

    #[test]
    fn words_of_code_prose_and_other_scripts() {
        assert_eq!(
            texts("Fix src/auth/session.py: login_handler failed (PR #4123)"),
            [
                "fix", "src", "auth", "session", "py", "login", "handler", "failed", "pr", "4123"
            ]
        );
        assert_eq!(
            texts("Überprüfe die ÄNDERUNG"),
            ["überprüfe", "die", "änderung"]
        );
        assert_eq!(texts("東京オフィス"), ["東", "京", "オ", "フ", "ィ", "ス"]);
        assert_eq!(texts("deploy 🚀 done ✅"), ["deploy", "🚀", "done", "✅"]);
        // A long word is a word (40 Cyrillic letters are 80 bytes); the
        // index keeps its first 64 characters.
        let long = "д".repeat(40) + " " + &"z".repeat(70);
        assert_eq!(texts(&long), ["д".repeat(40), "z".repeat(70)]);
        assert_eq!(indexed_form(&"z".repeat(70)), "z".repeat(64));
        assert_eq!(indexed_form(&"д".repeat(40)), "д".repeat(40));
        let w = &words("a  Bc")[1];
        assert_eq!((w.from, w.to, w.text.as_str()), (3, 5, "bc"));
    }
}
