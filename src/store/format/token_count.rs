//! Counting tokens without making them: the count `encode_ordinary(text).len()`
//! of tiktoken, exactly, but faster (docs/PERFORMANCE.md).
//!
//! tiktoken first splits the text with a regular expression (each piece is
//! then merged by BPE on its own). Its pattern ends with `\s+(?!\S)`, a
//! look-ahead, so it runs on a backtracking engine, and that split was
//! most of the time a count took. Here the same pattern
//! without the look-ahead runs on a DFA, and the one case the look-ahead
//! decided is decided after the match (see [`next_piece`]); each piece is
//! then counted as tiktoken counts it: one token when the piece is one, else
//! by tiktoken's own merge (`byte_pair_split`) with the same ranks.
//! `tests` checks the counts against tiktoken's on texts chosen to hit
//! every branch of the pattern, and on random ones.

use regex_automata::meta::{Cache, Regex};
use regex_automata::{Anchored, Input};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use tiktoken_rs::{CoreBPE, Rank};

/// cl100k_base's pattern as tiktoken writes it, its possessive quantifiers
/// made greedy (no branch of it can match more by giving back what a
/// possessive one keeps, so they match the same) and `\s+(?!\S)|\s` made
/// `\s+`, which [`next_piece`] shortens where the look-ahead would have.
const CL100K: &str = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+";

/// o200k_base's pattern as tiktoken writes it, `\s+(?!\S)|\s+` made `\s+`.
const O200K: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+",
);

/// Pieces longer than this are counted by tiktoken itself: its merge for
/// long pieces is not quadratic, the one it exports is.
const LONG_PIECE: usize = 256;

/// Which pattern an encoding splits with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// cl100k_base's.
    Cl100k,
    /// o200k_base's.
    O200k,
}

/// A counter for one encoding: its split and its ranks.
pub struct Counter {
    split: Split,
    regex: Regex,
    ranks: FxHashMap<Vec<u8>, Rank>,
    /// tiktoken's own, for the long pieces.
    bpe: &'static CoreBPE,
}

impl Counter {
    /// The counter of `bpe`, whose pattern is `split`'s. The ranks are read
    /// back from `bpe` token by token (tiktoken does not lend its map), the
    /// special tokens left out as `encode_ordinary` leaves them out.
    pub fn new(split: Split, bpe: &'static CoreBPE) -> Result<Counter, String> {
        let pattern = match split {
            Split::Cl100k => CL100K,
            Split::O200k => O200K,
        };
        let regex = Regex::new(pattern).map_err(|e| e.to_string())?;
        let special = bpe.special_tokens();
        let mut ranks = FxHashMap::default();
        let mut misses = 0;
        let mut rank: Rank = 0;
        // Ranks are dense but for a few gaps before the special tokens; a
        // long run of unknown ranks is the end.
        while misses < 4096 {
            match bpe.decode_bytes(&[rank]) {
                Ok(bytes) if !std::str::from_utf8(&bytes).is_ok_and(|s| special.contains(s)) => {
                    misses = 0;
                    ranks.insert(bytes, rank);
                }
                _ => misses += 1,
            }
            rank += 1;
        }
        Ok(Counter {
            split,
            regex,
            ranks,
            bpe,
        })
    }

    /// How many ordinary tokens the ranks hold.
    pub fn vocabulary(&self) -> usize {
        self.ranks.len()
    }

    /// `bpe.encode_ordinary(text).len()`.
    pub fn count(&self, text: &str) -> u64 {
        thread_local! {
            static CACHES: RefCell<[Option<Cache>; 2]> = const { RefCell::new([None, None]) };
        }
        CACHES.with(|caches| {
            let mut caches = caches.borrow_mut();
            let cache =
                caches[self.split as usize].get_or_insert_with(|| self.regex.create_cache());
            let mut total = 0u64;
            let mut at = 0;
            while let Some(end) = next_piece(&self.regex, cache, text, at) {
                total += self.piece_tokens(&text[at..end]);
                at = end;
            }
            total
        })
    }

    fn piece_tokens(&self, piece: &str) -> u64 {
        let bytes = piece.as_bytes();
        if bytes.len() == 1 || self.ranks.contains_key(bytes) {
            1
        } else if bytes.len() <= LONG_PIECE {
            tiktoken_rs::byte_pair_split(bytes, &self.ranks).len() as u64
        } else {
            // Alone, a piece splits into itself again (each branch matched
            // as far as it could), so tiktoken counts just that piece.
            self.bpe.encode_ordinary(piece).len() as u64
        }
    }
}

/// The end of the piece tiktoken splits off `text` at `at`, None at the end.
/// The only branch whose match the look-ahead changed is the whitespace run
/// (`\s+`, no newline in it, not reaching the end of the text: the earlier
/// branches take those): `\s+(?!\S)` leaves its last character to start
/// the next piece (` word`), and a run of one is taken by `\s` whole. Every
/// other branch ends on something other than such a whitespace character.
fn next_piece(regex: &Regex, cache: &mut Cache, text: &str, at: usize) -> Option<usize> {
    if at >= text.len() {
        return None;
    }
    let input = Input::new(text).range(at..).anchored(Anchored::Yes);
    let Some(found) = regex.search_with(cache, &input) else {
        // Every character starts some branch; should none match, the rest
        // is one piece rather than a count that stops short.
        return Some(text.len());
    };
    // No branch matches nothing; were one to, the piece is one character.
    let end = if found.end() > at {
        found.end()
    } else {
        at + text[at..].chars().next().map_or(1, char::len_utf8)
    };
    if end == text.len() {
        return Some(end);
    }
    let piece = &text[at..end];
    let mut chars = piece.char_indices().rev();
    match (chars.next(), chars.next()) {
        (Some((last_at, last)), Some(_))
            if last.is_whitespace() && last != '\r' && last != '\n' =>
        {
            Some(at + last_at)
        }
        _ => Some(end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::format::tokens::{Encoding, counter, tokenizer};
    use proptest::prelude::*;

    fn counters() -> Vec<(&'static Counter, &'static CoreBPE)> {
        Encoding::ALL
            .into_iter()
            .map(|enc| (counter(enc).unwrap(), tokenizer(enc).unwrap()))
            .collect()
    }

    #[test]
    fn vocabularies_are_whole() {
        let sizes: Vec<usize> = counters().iter().map(|(c, _)| c.vocabulary()).collect();
        assert_eq!(sizes, [100_256, 199_998]);
    }

    #[test]
    fn counts_as_tiktoken_on_every_branch() {
        let texts = [
            "",
            " ",
            "  ",
            "hello world",
            "hello  world",
            "hello   world\n",
            "a \n b",
            "a  \n  b",
            "x\n\n\ny",
            "x \r\n\r\n  y",
            "tab\t\tsep",
            "end with spaces   ",
            "end with newline and spaces \n   ",
            "   leading",
            " 123456 7",
            "I'm, you're; they'll've 'S 'LL 'Ve",
            "\u{17f}'\u{17f} '\u{212a} K'S",
            "naïve café ＡＢＣ 全角　スペース",
            "emoji 🎉🎉 🎉  🎉\u{2028}x\u{85}y\u{a0}z",
            "path/to/file.rs:12: error[E0308]: mismatched types\n   --> src/main.rs",
            "{\"type\": \"text\", \"text\": \"hi\"}",
            "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAABlklEQVR4nA3LQQEAIQgAQSMQ",
            "combining e\u{301}\u{301} marks \u{301}\u{301}",
            "CamelCaseWords HTTPServer ÀÉÎõü",
        ];
        let long = "A".repeat(5000) + &"ab1/".repeat(400) + &" ".repeat(700) + "x";
        for (counter, bpe) in counters() {
            for text in texts.iter().copied().chain([long.as_str()]) {
                assert_eq!(
                    counter.count(text),
                    bpe.encode_ordinary(text).len() as u64,
                    "{:?} {text:?}",
                    counter.split
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn counts_as_tiktoken_on_random_text(
            text in proptest::collection::vec(
                prop_oneof![
                    Just(' '), Just('\t'), Just('\n'), Just('\r'), Just('\u{a0}'),
                    Just('\u{3000}'), Just('\u{2028}'), Just('\u{85}'), Just('\''),
                    Just('s'), Just('S'), Just('\u{17f}'), Just('t'), Just('l'),
                    Just('v'), Just('e'), Just('/'), Just('.'), Just('!'), Just('7'),
                    Just('٣'), Just('é'), Just('\u{301}'), Just('Ä'), Just('漢'),
                    Just('🎉'), Just('"'), Just('{'), Just('\\'),
                    any::<char>(),
                ],
                0..80,
            ).prop_map(|chars| chars.into_iter().collect::<String>())
        ) {
            for (counter, bpe) in counters() {
                prop_assert_eq!(counter.count(&text), bpe.encode_ordinary(&text).len() as u64);
            }
        }
    }
}
