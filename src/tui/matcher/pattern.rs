//! The list's query read as fzf reads it: terms separated by spaces, each
//! of which must match (in any order, each in the name, the first prompt or
//! the id). A plain term is fuzzy; `'word` must appear as written, `^word`
//! at the start of a field, `word$` at its end, `^word$` be the whole field,
//! and `!` before any of these turns it into a term that must not match
//! (`!word` is "does not contain word"). A term in lower case ignores case;
//! a capital makes it match case (smart case). `\ ` is a space inside a term.
//! `@agent` keeps the sessions of that agent (`@claude`, `@codex`, …;
//! several are any of them), `!@agent` leaves its sessions out. `in:text`
//! keeps the sessions whose project folder (the folder it worked in) holds
//! `text` (any case; several: any of them), `!in:text` leaves them out.
//! `@archived` keeps the sessions read from the archive (their agent
//! deleted them), `!@archived` leaves them out.

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

/// How one term matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TermKind {
    /// The characters in order, anywhere (the default).
    Fuzzy,
    /// `'word`: the word as written, anywhere.
    Exact,
    /// `^word`: at the start of the field.
    Prefix,
    /// `word$`: at the end of the field.
    Suffix,
    /// `^word$`: the whole field.
    Equal,
}

/// One term of a query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// How it matches.
    pub kind: TermKind,
    /// `!`: the row must not match it.
    pub negated: bool,
    /// The text, without its markers.
    pub text: String,
    /// True when the text has a capital: then case counts.
    pub case_sensitive: bool,
}

/// A parsed query: every term must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pattern {
    /// The terms, in the order typed; empty ones (`!`, `^`) are left out.
    pub terms: Vec<Term>,
    /// `@agent`: the agents whose sessions are kept (empty: every agent).
    pub agents: Vec<String>,
    /// `!@agent`: the agents whose sessions are left out.
    pub not_agents: Vec<String>,
    /// `in:text`: texts one of which the project folder must hold.
    pub projects: Vec<String>,
    /// `!in:text`: texts the project folder must not hold.
    pub not_projects: Vec<String>,
    /// `@archived` (true) or `!@archived` (false): only the sessions read
    /// from the archive, or none of them.
    pub archived: Option<bool>,
}

/// A field of a row as it is matched: as written and lower-cased.
#[derive(Clone, Copy)]
pub struct Field<'a> {
    /// The text as written.
    pub text: &'a str,
    /// The text lower-cased.
    pub folded: &'a str,
}

impl Pattern {
    /// Reads `query` (see the module's comment).
    pub fn parse(query: &str) -> Pattern {
        let mut pattern = Pattern::default();
        for word in split_terms(query) {
            if let Some(folder) = word.strip_prefix("!in:").filter(|f| !f.is_empty()) {
                pattern.not_projects.push(folder.to_lowercase());
            } else if let Some(folder) = word.strip_prefix("in:").filter(|f| !f.is_empty()) {
                pattern.projects.push(folder.to_lowercase());
            } else if word == "@archived" || word == "!@archived" {
                pattern.archived = Some(word == "@archived");
            } else if let Some(agent) = word.strip_prefix("!@") {
                pattern.not_agents.push(agent.to_lowercase());
            } else if let Some(agent) = word.strip_prefix('@') {
                pattern.agents.push(agent.to_lowercase());
            } else if let Some(term) = Term::parse(&word) {
                pattern.terms.push(term);
            }
        }
        pattern
    }

    /// True when nothing is asked: every row matches.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
            && self.agents.is_empty()
            && self.not_agents.is_empty()
            && self.projects.is_empty()
            && self.not_projects.is_empty()
            && self.archived.is_none()
    }

    /// True when the sessions of `agent` pass the `@agent` terms.
    pub fn allows(&self, agent: &str) -> bool {
        (self.agents.is_empty() || self.agents.iter().any(|a| a == agent))
            && !self.not_agents.iter().any(|a| a == agent)
    }

    /// True when a session of `agent` whose project folder is `folder`
    /// (lower-cased) passes the `@agent` and `in:` terms.
    pub fn keeps(&self, agent: &str, folder: &str, archived: bool) -> bool {
        self.archived.is_none_or(|wanted| wanted == archived)
            && self.allows(agent)
            && (self.projects.is_empty() || self.projects.iter().any(|p| folder.contains(p)))
            && !self.not_projects.iter().any(|p| folder.contains(p))
    }

    /// True when only `@agent` and `in:` terms are asked (the order of the
    /// rows then stays the list's own).
    pub fn only_agents(&self) -> bool {
        self.terms.is_empty() && !self.is_empty()
    }

    /// The one plain fuzzy term, if the query is just that.
    pub fn single_fuzzy(&self) -> Option<&str> {
        match self.terms.as_slice() {
            [t] if t.kind == TermKind::Fuzzy && !t.negated => Some(&t.text),
            _ => None,
        }
    }

    /// The lower-cased characters every matching row holds somewhere (the
    /// positive terms'), for the cheap test that comes first.
    pub fn required_chars(&self) -> impl Iterator<Item = char> + '_ {
        self.terms
            .iter()
            .filter(|t| !t.negated)
            .flat_map(|t| t.text.chars().flat_map(char::to_lowercase))
    }

    /// The row's score, or None when a term does not hold. A term is scored
    /// on its best field; `fuzzy` decides how fuzzy terms are scored.
    pub fn score(&self, fields: &[Field], fuzzy: &SkimMatcherV2) -> Option<i64> {
        let mut total = 0;
        for term in &self.terms {
            let best = fields.iter().filter_map(|f| term.score(*f, fuzzy)).max();
            match (best, term.negated) {
                (Some(score), false) => total += score,
                (None, true) => {}
                _ => return None,
            }
        }
        Some(total)
    }

    /// True when every row `next` matches also matches `self`, so that
    /// ranking `next` may start from `self`'s matches: the terms are the
    /// same but for the last, which `next` extends (not a suffix or a
    /// negation, whose longer forms match more), or `next` adds terms.
    pub fn narrows_to(&self, next: &Pattern) -> bool {
        let (old, new) = (&self.terms, &next.terms);
        if self.agents != next.agents
            || self.not_agents != next.not_agents
            || self.projects != next.projects
            || self.not_projects != next.not_projects
            || self.archived != next.archived
        {
            return false;
        }
        if old.len() > new.len() {
            return false;
        }
        let Some((last, same)) = old.split_last() else {
            return true;
        };
        if same.iter().zip(new).any(|(a, b)| a != b) {
            return false;
        }
        let grown = &new[same.len()];
        grown == last
            || (grown.kind == last.kind
                && grown.negated == last.negated
                && !last.negated
                && !matches!(last.kind, TermKind::Suffix | TermKind::Equal)
                && grown.case_sensitive == last.case_sensitive
                && grown.text.starts_with(&last.text))
    }

    /// Char indices of `text` the positive terms match, for highlighting.
    pub fn highlight(&self, text: &str) -> Vec<usize> {
        let folded = text.to_lowercase();
        let field = Field {
            text,
            folded: &folded,
        };
        let fuzzy = SkimMatcherV2::default();
        let mut at: Vec<usize> = self
            .terms
            .iter()
            .filter(|t| !t.negated)
            .flat_map(|t| t.positions(field, &fuzzy))
            .collect();
        at.sort_unstable();
        at.dedup();
        at
    }
}

impl Term {
    /// One word of the query, its markers read; None for a bare marker.
    fn parse(word: &str) -> Option<Term> {
        let (negated, rest) = match word.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, word),
        };
        let (kind, text) = if let Some(exact) = rest.strip_prefix('\'') {
            (TermKind::Exact, exact)
        } else if let Some(after) = rest.strip_prefix('^') {
            match after.strip_suffix('$') {
                Some(whole) if !whole.is_empty() => (TermKind::Equal, whole),
                _ => (TermKind::Prefix, after),
            }
        } else if let Some(before) = rest.strip_suffix('$').filter(|b| !b.is_empty()) {
            (TermKind::Suffix, before)
        } else if negated {
            // fzf: `!word` is "does not contain word", not a fuzzy test.
            (TermKind::Exact, rest)
        } else {
            (TermKind::Fuzzy, rest)
        };
        if text.is_empty() {
            return None;
        }
        Some(Term {
            kind,
            negated,
            text: text.to_string(),
            case_sensitive: text.chars().any(char::is_uppercase),
        })
    }

    /// The term's score on one field, None when it does not match there.
    fn score(&self, field: Field, fuzzy: &SkimMatcherV2) -> Option<i64> {
        if self.kind == TermKind::Fuzzy {
            return fuzzy.fuzzy_match(field.text, &self.text);
        }
        let (hay, needle) = self.compared(field);
        let found = match self.kind {
            TermKind::Exact => hay.find(needle.as_str()),
            TermKind::Prefix => hay.starts_with(needle.as_str()).then_some(0),
            TermKind::Suffix => hay
                .ends_with(needle.as_str())
                .then(|| hay.len() - needle.len()),
            TermKind::Equal => (hay == needle).then_some(0),
            TermKind::Fuzzy => None,
        }?;
        // As the fuzzy scorer does, more characters matched score more, and
        // a match at a word's start more than one inside a word.
        let at_word_start = hay[..found]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        Some(needle.chars().count() as i64 * 16 + if at_word_start { 8 } else { 0 })
    }

    /// The field and the text compared, in the case the term asks for.
    fn compared<'a>(&self, field: Field<'a>) -> (&'a str, String) {
        if self.case_sensitive {
            (field.text, self.text.clone())
        } else {
            (field.folded, self.text.to_lowercase())
        }
    }

    /// Char indices of the field this term matches.
    fn positions(&self, field: Field, fuzzy: &SkimMatcherV2) -> Vec<usize> {
        if self.kind == TermKind::Fuzzy {
            return fuzzy
                .fuzzy_indices(field.text, &self.text)
                .map(|(_, at)| at)
                .unwrap_or_default();
        }
        let (hay, needle) = self.compared(field);
        let start = match self.kind {
            TermKind::Exact => hay.find(needle.as_str()),
            TermKind::Prefix | TermKind::Equal => hay.starts_with(needle.as_str()).then_some(0),
            TermKind::Suffix => hay
                .ends_with(needle.as_str())
                .then(|| hay.len() - needle.len()),
            TermKind::Fuzzy => None,
        };
        // Lower-casing may change byte lengths: count chars in the text compared.
        match start {
            Some(byte) if hay.len() == field.text.len() => {
                let first = hay[..byte].chars().count();
                (first..first + needle.chars().count()).collect()
            }
            _ => Vec::new(),
        }
    }
}

/// The query's words: split at spaces, `\ ` kept as a space in a word.
fn split_terms(query: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = query.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                word.push(' ');
                chars.next();
            }
            c if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(query: &str, text: &str) -> bool {
        let folded = text.to_lowercase();
        let fields = [Field {
            text,
            folded: &folded,
        }];
        Pattern::parse(query)
            .score(&fields, &SkimMatcherV2::default())
            .is_some()
    }

    #[test]
    fn terms_match_in_any_order() {
        assert!(matches("load 502", "502 on load balancer"));
        assert!(matches("502 load", "502 on load balancer"));
        assert!(!matches("load 503", "502 on load balancer"));
    }

    #[test]
    fn exact_prefix_suffix_equal_and_not() {
        let name = "fix-the-login-bug";
        assert!(matches("'login", name));
        assert!(!matches("'lgn", name), "exact is not fuzzy");
        assert!(matches("lgn", name), "plain is fuzzy");
        assert!(matches("^fix", name) && !matches("^bug", name));
        assert!(matches("bug$", name) && !matches("fix$", name));
        assert!(matches("^fix-the-login-bug$", name) && !matches("^fix$", name));
        assert!(matches("!parser", name) && !matches("!login", name));
        assert!(matches("!^bug", name) && !matches("!^fix", name));
        assert!(matches("!fix$", name) && !matches("!bug$", name));
    }

    #[test]
    fn smart_case_and_escaped_spaces_and_bare_markers() {
        assert!(matches("'Login", "Fix the Login bug"));
        assert!(!matches("'Login", "fix the login bug"));
        assert!(matches("'login", "Fix the Login bug"));
        assert!(matches("'the\\ login", "fix the login bug"));
        assert!(!matches("'the\\ login", "login the fix"));
        assert!(Pattern::parse("! ^ '").is_empty());
        assert!(matches("fix !", "fix it"));
    }

    #[test]
    fn narrowing_only_where_the_longer_query_matches_less() {
        let p = |q| Pattern::parse(q);
        assert!(p("lo").narrows_to(&p("log")));
        assert!(p("lo").narrows_to(&p("lo 50")));
        assert!(p("'lo").narrows_to(&p("'log")));
        assert!(p("^lo").narrows_to(&p("^log")));
        assert!(
            !p("lo$").narrows_to(&p("log$")),
            "ends with log: not with lo"
        );
        assert!(
            !p("!lo").narrows_to(&p("!log")),
            "not log matches more than not lo"
        );
        assert!(!p("lo").narrows_to(&p("Lo")));
        assert!(!p("lo 50").narrows_to(&p("lo")));
        assert!(p("").narrows_to(&p("anything")));
    }

    #[test]
    fn highlight_marks_each_positive_term() {
        let p = Pattern::parse("'bug ^fix !parser");
        assert_eq!(p.highlight("fix-the-login-bug"), vec![0, 1, 2, 14, 15, 16]);
    }
}
