//! A search query: words that must all be present, `"exact phrases"`, and
//! `role:user|assistant|tool|system`. A word that is several words to the
//! search (`session.py`, `東京`) must match as a phrase.

use crate::store::index::words::words;
use std::fmt;

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person.
    User,
    /// The model.
    Assistant,
    /// A tool's result.
    Tool,
    /// The system prompt.
    System,
}

impl Role {
    /// Every role, as written in a query.
    pub const ALL: [Role; 4] = [Role::User, Role::Assistant, Role::Tool, Role::System];

    /// The role as stored in a message.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::System => "system",
        }
    }

    /// The role named `name` (any case).
    pub fn parse(name: &str) -> Result<Role, String> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str().eq_ignore_ascii_case(name))
            .ok_or_else(|| format!("unknown role {name:?}: use user, assistant, tool or system"))
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A parsed query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchQuery {
    /// Every clause must match: its words, consecutive, in order.
    pub clauses: Vec<Vec<String>>,
    /// Only messages of this role.
    pub role: Option<Role>,
    /// The last word of the last clause may be the start of a word (the
    /// person is still typing it).
    pub prefix_last: bool,
}

impl SearchQuery {
    /// Parses `text`. With `typing`, the last word matches as a prefix and an
    /// unclosed quote is a phrase still being typed; otherwise it is an error.
    pub fn parse(text: &str, typing: bool) -> Result<SearchQuery, String> {
        let mut clauses = Vec::new();
        let mut role = None;
        let mut rest = text.trim_start();
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('"') {
                let (phrase, next) = match after.find('"') {
                    Some(end) => (&after[..end], &after[end + 1..]),
                    None if typing => (after, ""),
                    None => return Err(format!("unclosed quote in {text:?}")),
                };
                push_clause(&mut clauses, phrase);
                rest = next.trim_start();
                continue;
            }
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '"')
                .unwrap_or(rest.len());
            let word = &rest[..end];
            match word.split_once(':') {
                Some((key, value)) if key.eq_ignore_ascii_case("role") => {
                    if typing && value.is_empty() && end == rest.len() {
                        // Still typing the role's name.
                    } else {
                        role = Some(Role::parse(value)?);
                    }
                }
                _ => push_clause(&mut clauses, word),
            }
            rest = rest[end..].trim_start();
        }
        if clauses.is_empty() {
            return Err(if text.trim().is_empty() {
                "the query is empty".to_string()
            } else {
                format!("{text:?} has no words to search for")
            });
        }
        let ends_in_word = text
            .chars()
            .last()
            .is_some_and(|c| !c.is_whitespace() && c != '"');
        Ok(SearchQuery {
            clauses,
            role,
            prefix_last: typing && ends_in_word,
        })
    }

    /// True when `words` (a message's, in order) satisfy every clause.
    pub fn matches(&self, words: &[String]) -> bool {
        let last = self.clauses.len().saturating_sub(1);
        self.clauses
            .iter()
            .enumerate()
            .all(|(i, clause)| find_clause(words, clause, self.prefix_last && i == last).is_some())
    }

    /// Positions (word indices) of every word some clause matched, for
    /// highlighting and snippets.
    pub fn matched_positions(&self, words: &[String]) -> Vec<usize> {
        let last = self.clauses.len().saturating_sub(1);
        let mut out = Vec::new();
        for (i, clause) in self.clauses.iter().enumerate() {
            let prefix = self.prefix_last && i == last;
            let mut from = 0;
            while let Some(at) = find_clause(&words[from..], clause, prefix) {
                out.extend(from + at..from + at + clause.len());
                from += at + 1;
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

fn push_clause(clauses: &mut Vec<Vec<String>>, text: &str) {
    let found: Vec<String> = words(text).into_iter().map(|w| w.text).collect();
    if !found.is_empty() {
        clauses.push(found);
    }
}

/// Where `clause` first occurs in `words` as consecutive words (the last
/// one as a prefix when `prefix`).
fn find_clause(words: &[String], clause: &[String], prefix: bool) -> Option<usize> {
    if clause.is_empty() || words.len() < clause.len() {
        return None;
    }
    let (body, tail) = clause.split_at(clause.len() - 1);
    (0..=words.len() - clause.len()).find(|&at| {
        body.iter().zip(&words[at..]).all(|(q, w)| q == w) && {
            let w = &words[at + body.len()];
            if prefix {
                w.starts_with(tail[0].as_str())
            } else {
                *w == tail[0]
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws(text: &str) -> Vec<String> {
        words(text).into_iter().map(|w| w.text).collect()
    }

    #[test]
    fn words_phrases_and_roles() {
        let q = SearchQuery::parse("login \"token expired\" role:Tool session.py", false).unwrap();
        assert_eq!(
            q.clauses,
            vec![
                vec!["login".to_string()],
                vec!["token".into(), "expired".into()],
                vec!["session".into(), "py".into()]
            ]
        );
        assert_eq!(q.role, Some(Role::Tool));
        assert!(q.matches(&ws("the login token expired in session.py")));
        assert!(
            !q.matches(&ws("login expired token session.py")),
            "phrase order"
        );
        assert!(SearchQuery::parse("role:robot x", false).is_err());
        assert!(SearchQuery::parse("\"open", false).is_err());
        assert!(SearchQuery::parse("\"open", true).is_ok(), "still typing");
        assert!(SearchQuery::parse("  ", false).is_err());
        assert!(SearchQuery::parse("role:user", false).is_err(), "no words");
    }

    #[test]
    fn typing_matches_the_last_word_as_a_prefix() {
        let q = SearchQuery::parse("login fai", true).unwrap();
        assert!(q.prefix_last && q.matches(&ws("login failed")));
        let q = SearchQuery::parse("login fai ", true).unwrap();
        assert!(!q.prefix_last && !q.matches(&ws("login failed")));
        let q = SearchQuery::parse("東京", false).unwrap();
        assert!(q.matches(&ws("東京オフィス向けの請求書")));
        assert_eq!(q.matched_positions(&ws("x 東京 東京")), vec![1, 2, 3, 4]);
    }
}
