//! The fuzzy matcher on its own thread: the UI sends sessions and queries,
//! the matcher answers the newest query only ("latest wins"), narrowing from
//! the previous answer when the query grew. The query is read as fzf
//! reads it (`pattern`).

mod pattern;

use crate::store::SessionRecord;
use crate::tui::latest::{LatestWins, Out};
use crate::tui::model::SortKey;
use crate::tui::msg::Msg;
use crate::tui::ops::ListReply;
use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use pattern::{Field, Pattern};

/// What the matcher needs of a session to sort by it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SortFacts {
    /// Bytes of its files.
    pub bytes: u64,
    /// Messages of the active context.
    pub messages: u64,
    /// Tokens of the active context.
    pub tokens: u64,
    /// How full the context is: its tokens over its model's window, in
    /// parts per million.
    pub fill: u64,
    /// What it cost, in millionths of a dollar (0: unpriced or nothing).
    pub cost: u64,
}

/// Work for the matcher.
#[derive(Clone, Debug)]
pub enum MatcherJob {
    /// Add or replace sessions (by row number in the list).
    Add(Vec<(usize, SessionRecord)>),
    /// Forget these sessions (by row number): they went from the disk.
    Remove(Vec<usize>),
    /// Forget every session.
    Reset,
    /// What sessions sort by (size, messages, tokens), by row number.
    Facts(Vec<(usize, SortFacts)>),
    /// Answer a query (an empty one lists every session in `sort` order).
    Query {
        req: u64,
        query: String,
        sort: SortKey,
    },
}

/// What the matcher searches in one session.
#[derive(Debug, Clone)]
struct Entry {
    /// Whose session (`loki`, `claude`, …), for `@agent` terms.
    agent: &'static str,
    /// Read from the archive, for `@archived`.
    archived: bool,
    /// The folder it worked in, lower-cased, for `in:` terms.
    project: String,
    /// What the list shows as its name (another agent's title).
    label: String,
    name: String,
    prompt: String,
    id: String,
    /// The last folder of where it worked, as the PROJECT column shows it.
    folder: String,
    /// The fields lower-cased ([`LABEL`], [`NAME`], [`PROMPT`], [`ID`],
    /// [`FOLDER`]), for the cheap test that comes first.
    folded: [String; 5],
    /// Which ASCII letters and digits the fields hold (bit 63: something
    /// else too): a query with a character none holds is rejected at once.
    chars: u64,
    last_used_at: f64,
    created_at: f64,
    facts: SortFacts,
}

/// The places of the fields in [`Entry::folded`].
const LABEL: usize = 0;
const NAME: usize = 1;
const PROMPT: usize = 2;
const ID: usize = 3;
const FOLDER: usize = 4;

impl Entry {
    fn new(r: SessionRecord, facts: SortFacts) -> Entry {
        let prompt: String = r.first_prompt.chars().take(PROMPT_CHARS).collect();
        let label = r.label();
        let folder = r.project().unwrap_or("").to_string();
        let folded = [
            label.to_lowercase(),
            r.name.to_lowercase(),
            prompt.to_lowercase(),
            r.id.to_lowercase(),
            folder.to_lowercase(),
        ];
        let chars = folded
            .iter()
            .flat_map(|f| f.chars())
            .fold(0, |m, c| m | char_bit(c));
        Entry {
            agent: r.agent.name(),
            archived: r.archived,
            project: r.cwd.as_deref().unwrap_or("").to_lowercase(),
            label,
            name: r.name,
            prompt,
            id: r.id.into(),
            folder,
            folded,
            chars,
            last_used_at: r.last_used_at,
            created_at: r.created_at,
            facts,
        }
    }
}

impl Entry {
    /// What the list shows (the label, the project's folder), the name,
    /// the first prompt and the id, as the pattern matches them.
    fn fields(&self) -> [Field<'_>; 5] {
        let [label, name, prompt, id, folder] = &self.folded;
        [
            Field {
                text: &self.label,
                folded: label,
            },
            Field {
                text: &self.name,
                folded: name,
            },
            Field {
                text: &self.prompt,
                folded: prompt,
            },
            Field {
                text: &self.id,
                folded: id,
            },
            Field {
                text: &self.folder,
                folded: folder,
            },
        ]
    }

    /// The label, and the name where it differs (another agent's slug).
    fn named(&self) -> Option<&str> {
        (self.name != self.label).then_some(self.name.as_str())
    }
}

/// The bit of a (lower-case) character in [`Entry::chars`].
fn char_bit(c: char) -> u64 {
    match c {
        'a'..='z' => 1 << (c as u32 - 'a' as u32),
        '0'..='9' => 1 << (26 + c as u32 - '0' as u32),
        c if c.is_ascii() => 0,
        _ => 1 << 63,
    }
}

/// The searchable sessions and the last answer, for narrowing.
#[derive(Debug, Default)]
pub struct Matcher {
    entries: Vec<Option<Entry>>,
    /// Every row in one order, kept until the rows or their facts change.
    ordered: Option<(SortKey, Vec<usize>)>,
    last: Option<(String, Vec<usize>)>,
}

/// Most characters of a first prompt that are searched (long prompts would
/// cost time and rarely matter for finding a session).
const PROMPT_CHARS: usize = 160;
/// With more sessions than this, the most recent ones are ranked first and
/// sent as a partial answer, so the screen answers a key at once.
const FIRST_CHUNK: usize = 4_000;
/// The rest is ranked in slices this big, checking for newer work between them.
const LATER_CHUNK: usize = 4_000;

impl Matcher {
    /// Adds or replaces sessions.
    pub fn add(&mut self, rows: Vec<(usize, SessionRecord)>) {
        for (index, r) in rows {
            if self.entries.len() <= index {
                self.entries.resize(index + 1, None);
            }
            let facts = self.entries[index]
                .as_ref()
                .map(|e| e.facts)
                .unwrap_or_default();
            self.entries[index] = Some(Entry::new(r, facts));
        }
        self.ordered = None;
        self.last = None;
    }

    /// Forgets sessions that went.
    pub fn remove(&mut self, rows: Vec<usize>) {
        for index in rows {
            if let Some(entry) = self.entries.get_mut(index) {
                *entry = None;
            }
        }
        self.ordered = None;
        self.last = None;
    }

    /// Sets what rows sort by.
    pub fn facts(&mut self, rows: Vec<(usize, SortFacts)>) {
        for (index, facts) in rows {
            if let Some(Some(entry)) = self.entries.get_mut(index) {
                entry.facts = facts;
            }
        }
        if self
            .ordered
            .as_ref()
            .is_some_and(|(key, _)| *key != SortKey::LastUsed)
        {
            self.ordered = None;
        }
    }

    /// Forgets everything.
    pub fn reset(&mut self) {
        *self = Matcher::default();
    }

    /// Row numbers for `query`: best score first, then most recent use;
    /// every session by recency for an empty query.
    pub fn query(&mut self, query: &str) -> Vec<usize> {
        self.query_progressive(query, SortKey::LastUsed, |_| true)
            .unwrap_or_default()
    }

    /// [`Matcher::query`] for big stores: the most recent sessions are ranked
    /// first and handed to `progress` as a partial answer; the rest follows in
    /// slices, `progress(None)` being asked between them whether to go on
    /// (false abandons the query: a newer one arrived). `None` if abandoned.
    pub fn query_progressive(
        &mut self,
        query: &str,
        sort: SortKey,
        mut progress: impl FnMut(Option<&[usize]>) -> bool,
    ) -> Option<Vec<usize>> {
        let pattern = Pattern::parse(query);
        if pattern.is_empty() {
            return Some(self.order(sort).to_vec());
        }
        if pattern.only_agents() {
            let order = self.order(sort).to_vec();
            let entries = &self.entries;
            let kept: Vec<usize> = order
                .into_iter()
                .filter(|&i| {
                    entries[i]
                        .as_ref()
                        .is_some_and(|e| pattern.keeps(e.agent, &e.project, e.archived))
                })
                .collect();
            return Some(kept);
        }
        let recency = self.order(SortKey::LastUsed).to_vec();
        // A longer query usually matches a subset of what the shorter one
        // matched (`narrows_to` says when: not for a longer `!not`).
        let pool: Vec<usize> = match &self.last {
            Some((previous, rows)) if Pattern::parse(previous).narrows_to(&pattern) => rows.clone(),
            _ => recency,
        };
        let split = pool.len().min(FIRST_CHUNK);
        let (head, tail) = pool.split_at(split);
        let mut scored = score_all(&self.entries, head, query);
        if !tail.is_empty() && !progress(Some(&ranked(scored.clone()))) {
            return None;
        }
        for slice in tail.chunks(LATER_CHUNK) {
            scored.extend(score_all(&self.entries, slice, query));
            if scored.len() < pool.len() && !progress(None) {
                return None;
            }
        }
        let rows = ranked(scored);
        self.last = Some((query.to_string(), rows.clone()));
        Some(rows)
    }

    /// Every row in `sort` order (ties by last use, then id).
    fn order(&mut self, sort: SortKey) -> &[usize] {
        if self.ordered.as_ref().is_none_or(|(key, _)| *key != sort) {
            let entries = &self.entries;
            let mut rows: Vec<usize> = (0..entries.len())
                .filter(|i| entries[*i].is_some())
                .collect();
            let entry = |i: &usize| entries[*i].as_ref().expect("filtered above");
            rows.sort_by(|a, b| {
                let (ea, eb) = (entry(a), entry(b));
                let first = match sort {
                    SortKey::LastUsed => std::cmp::Ordering::Equal,
                    SortKey::Created => eb.created_at.total_cmp(&ea.created_at),
                    SortKey::Size => eb.facts.bytes.cmp(&ea.facts.bytes),
                    SortKey::Messages => eb.facts.messages.cmp(&ea.facts.messages),
                    SortKey::Tokens => eb.facts.tokens.cmp(&ea.facts.tokens),
                    SortKey::Fill => eb.facts.fill.cmp(&ea.facts.fill),
                    SortKey::Cost => eb.facts.cost.cmp(&ea.facts.cost),
                    SortKey::Name => ea.name.to_lowercase().cmp(&eb.name.to_lowercase()),
                };
                first
                    .then(eb.last_used_at.total_cmp(&ea.last_used_at))
                    .then_with(|| ea.id.cmp(&eb.id))
            });
            self.ordered = Some((sort, rows));
        }
        &self.ordered.as_ref().expect("set above").1
    }
}

/// Row numbers by score, best first; the sort is stable, so among equal
/// scores the pool's order (most recent use first) stays.
fn ranked(mut scored: Vec<(i64, usize)>) -> Vec<usize> {
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    scored.into_iter().map(|(_, i)| i).collect()
}

/// Scores of the matching rows of `pool`, on all cores, in pool order.
fn score_all(entries: &[Option<Entry>], pool: &[usize], query: &str) -> Vec<(i64, usize)> {
    let workers = if pool.len() > 4000 {
        crate::store::workers()
    } else {
        1
    };
    let per = pool.len().div_ceil(workers).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = pool
            .chunks(per)
            .map(|part| {
                scope.spawn(move || {
                    let pattern = Pattern::parse(query);
                    // The common query is one plain word: it keeps the fast
                    // paths below; terms (`a b`, `'a`, `^a`, `!a`) are scored
                    // one by one on every field.
                    let single = pattern.single_fuzzy();
                    // One or two characters say little about relevance: score
                    // them the linear way (their best place in the text)
                    // instead of the full dynamic programme, which is for
                    // real queries and costs far more on a large list.
                    let matcher = if single.is_some_and(|t| t.chars().count() <= 2) {
                        SkimMatcherV2::default().element_limit(1)
                    } else {
                        SkimMatcherV2::default()
                    };
                    let needle: Vec<char> = single
                        .unwrap_or_default()
                        .chars()
                        .flat_map(char::to_lowercase)
                        .collect();
                    let wanted = pattern.required_chars().fold(0, |m, c| m | char_bit(c));
                    let letter = single.and_then(one_ascii_char);
                    part.iter()
                        .filter_map(|&i| {
                            let e = entries[i].as_ref()?;
                            if e.chars & wanted != wanted
                                || !pattern.keeps(e.agent, &e.project, e.archived)
                            {
                                return None;
                            }
                            let score = match (letter, single) {
                                (Some(c), _) => letter_score(e, c),
                                (None, Some(term)) => best_score(&matcher, e, term, &needle),
                                (None, None) => pattern.score(&e.fields(), &matcher),
                            };
                            score.map(|s| (s, i))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// The best score of what the list shows (the label, the project's
/// folder), the id and, when the label does not match, the name (another
/// agent's slug) and then the first prompt: a name is the prompt's first
/// words, so scoring the prompt too would mostly find the same match again
/// at several times the cost.
fn best_score(matcher: &SkimMatcherV2, e: &Entry, query: &str, needle: &[char]) -> Option<i64> {
    let score = |i: usize, field: &str| {
        // Most fields cannot match at all; finding that out is cheap.
        contains_in_order(&e.folded[i], needle)
            .then(|| matcher.fuzzy_match(field, query))
            .flatten()
    };
    let label = score(LABEL, &e.label)
        .or_else(|| e.named().and_then(|name| score(NAME, name)))
        .or_else(|| score(PROMPT, &e.prompt));
    [label, score(ID, &e.id), score(FOLDER, &e.folder)]
        .into_iter()
        .flatten()
        .max()
}

/// The query's character when it is one ASCII letter or digit.
fn one_ascii_char(query: &str) -> Option<u8> {
    match query.as_bytes() {
        [c] if c.is_ascii_alphanumeric() => Some(*c),
        _ => None,
    }
}

/// The score of a one-character query: the best place of the character in
/// the name (or, when the name lacks it, the first prompt) and the id. The
/// first character counts most, then the start of a word, then a capital
/// inside a word (`myFile`), then anywhere; ties go to the most recent
/// session. One character has nothing else to weigh, and the fuzzy
/// scorer's general machinery costs far more than a scan of the bytes
/// on a large list. An upper-case query
/// matches that case only (smart case, as the scorer does).
fn letter_score(e: &Entry, c: u8) -> Option<i64> {
    let exact = c.is_ascii_uppercase();
    let field = |i: usize, original: &str| {
        let folded = e.folded[i].as_bytes();
        let text = original.as_bytes();
        // Lower-casing keeps ASCII bytes in place; when it moved some (rare
        // letters change length), the places are read from the folded text.
        if exact || folded.len() == text.len() {
            place_score(if exact { text } else { folded }, text, c)
        } else {
            place_score(folded, folded, c)
        }
    };
    let label = field(LABEL, &e.label)
        .or_else(|| e.named().and_then(|name| field(NAME, name)))
        .or_else(|| field(PROMPT, &e.prompt));
    [label, field(ID, &e.id), field(FOLDER, &e.folder)]
        .into_iter()
        .flatten()
        .max()
}

/// The best score of byte `c` in `text`, its places judged in `shape` (the
/// text as written, whose capitals mark words).
fn place_score(text: &[u8], shape: &[u8], c: u8) -> Option<i64> {
    let mut best = None;
    for (at, _) in text.iter().enumerate().filter(|(_, b)| **b == c) {
        let score = match at.checked_sub(1).map(|p| (shape[p], shape[at])) {
            None => 4,
            // Bytes of other scripts are letters of a word.
            Some((before, _)) if before.is_ascii() && !before.is_ascii_alphanumeric() => 3,
            Some((before, now)) if before.is_ascii_lowercase() && now.is_ascii_uppercase() => 2,
            Some(_) => 1,
        };
        best = best.max(Some(score));
        if score >= 3 {
            // Nothing later can beat the start of a word but the first
            // character, which is behind us.
            break;
        }
    }
    best
}

/// True when every char of `needle` occurs in `hay` in order (both lower
/// case): a fuzzy match is impossible otherwise.
fn contains_in_order(hay: &str, needle: &[char]) -> bool {
    if needle.iter().all(char::is_ascii) {
        // The common case, on bytes: a non-ASCII byte never equals an ASCII one.
        let mut wanted = needle.iter().map(|c| *c as u8);
        let Some(mut w) = wanted.next() else {
            return true;
        };
        for b in hay.bytes() {
            if b == w {
                match wanted.next() {
                    Some(next) => w = next,
                    None => return true,
                }
            }
        }
        return false;
    }
    let mut wanted = needle.iter().peekable();
    for c in hay.chars() {
        let Some(&&w) = wanted.peek() else { break };
        if c == w {
            wanted.next();
        }
    }
    wanted.peek().is_none()
}

/// Positions (char indices) in `text` that `query` matched, for highlighting.
pub fn highlight(text: &str, query: &str) -> Vec<usize> {
    Pattern::parse(query).highlight(text)
}

/// The matcher as a latest-wins job: rows and facts change its state in
/// order; of the queries only the newest is answered, and a query still
/// being ranked is abandoned when a newer one arrives.
impl LatestWins for Matcher {
    type Job = MatcherJob;
    type Query = (u64, String, SortKey);

    fn take(&mut self, job: MatcherJob) -> Option<Self::Query> {
        match job {
            MatcherJob::Add(rows) => self.add(rows),
            MatcherJob::Facts(rows) => self.facts(rows),
            MatcherJob::Remove(rows) => self.remove(rows),
            MatcherJob::Reset => self.reset(),
            MatcherJob::Query { req, query, sort } => return Some((req, query, sort)),
        }
        None
    }

    fn is_query(job: &MatcherJob) -> bool {
        matches!(job, MatcherJob::Query { .. })
    }

    fn answer(&mut self, (req, query, sort): Self::Query, out: &mut Out<'_>) {
        let answer = self.query_progressive(&query, sort, |rows| {
            if let Some(rows) = rows {
                out.send(Msg::reply(
                    req,
                    ListReply::Filtered {
                        query: query.clone(),
                        rows: rows.to_vec(),
                        complete: false,
                    },
                ));
            }
            !out.superseded()
        });
        if let Some(rows) = answer {
            out.send(Msg::reply(
                req,
                ListReply::Filtered {
                    query,
                    rows,
                    complete: true,
                },
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::latest;
    use crate::tui::ops::Reply;
    use std::path::PathBuf;

    fn record(id: &str, name: &str, prompt: &str, used: f64) -> SessionRecord {
        SessionRecord {
            id: id.into(),
            name: name.into(),
            user: "u".into(),
            first_prompt: prompt.into(),
            created_at: 0.0,
            last_used_at: used,
            path: PathBuf::new(),
            conversation_dir: PathBuf::new(),
            error: None,
            ..SessionRecord::default()
        }
    }

    #[test]
    fn at_agent_keeps_one_agents_sessions() {
        let mut m = Matcher::default();
        let mut claude = record("c1", "fix-login", "Fix login", 3.0);
        claude.agent = crate::store::Agent::Claude;
        let loki = record("l1", "fix-logout", "Fix logout", 2.0);
        m.add(vec![(0, claude), (1, loki)]);
        assert_eq!(m.query("fix"), vec![0, 1]);
        assert_eq!(m.query("@claude"), vec![0]);
        assert_eq!(m.query("!@claude"), vec![1]);
        assert_eq!(m.query("@loki fix"), vec![1]);
        assert_eq!(m.query("@loki @claude"), vec![0, 1]);
        assert_eq!(m.query("@codex"), Vec::<usize>::new());
    }

    #[test]
    fn at_archived_keeps_the_sessions_read_from_the_archive() {
        let mut m = Matcher::default();
        let mut kept = record("c1", "fix-login", "Fix login", 3.0);
        kept.agent = crate::store::Agent::Claude;
        kept.archived = true;
        let mut live = record("c2", "fix-logout", "Fix logout", 2.0);
        live.agent = crate::store::Agent::Claude;
        m.add(vec![(0, kept), (1, live)]);
        assert_eq!(m.query("@archived"), vec![0]);
        assert_eq!(m.query("!@archived fix"), vec![1]);
        assert_eq!(m.query("@claude @archived"), vec![0]);
    }

    #[test]
    fn the_filter_finds_what_the_list_shows() {
        let mut m = Matcher::default();
        // Another agent's session shows its title, not its slug.
        let mut titled = record("0a8f5c1e", "empty-repo", "make the repo", 3.0);
        titled.agent = crate::store::Agent::Claude;
        titled.title = "Empty Repo".into();
        titled.cwd = Some("/home/dev/src/shop-api".into());
        let loki = record("l1", "fix-logout", "Fix logout", 2.0);
        m.add(vec![(0, titled), (1, loki)]);
        assert_eq!(
            m.query("Empty Repo"),
            vec![0],
            "typed as shown, capitals and all"
        );
        assert_eq!(m.query("E"), vec![0], "a capital counts where it is shown");
        assert_eq!(m.query("empty-repo"), vec![0], "the slug still finds it");
        assert_eq!(m.query("shop-api"), vec![0], "the project's folder");
        assert_eq!(m.query("0a8f"), vec![0], "the id");
        assert_eq!(m.query("Fix"), vec![1]);
    }

    #[test]
    fn in_folder_keeps_the_sessions_worked_on_there() {
        let mut m = Matcher::default();
        let mut web = record("c1", "fix-login", "Fix login", 3.0);
        web.cwd = Some("/home/dev/src/Web-App".into());
        let mut infra = record("c2", "fix-cron", "Fix cron", 2.0);
        infra.cwd = Some("/home/dev/src/infra".into());
        let loki = record("l1", "fix-logout", "Fix logout", 1.0);
        m.add(vec![(0, web), (1, infra), (2, loki)]);
        assert_eq!(m.query("in:web-app"), vec![0], "any case");
        assert_eq!(m.query("in:src fix"), vec![0, 1]);
        assert_eq!(m.query("in:infra in:web"), vec![0, 1], "any of them");
        assert_eq!(m.query("!in:infra"), vec![0, 2]);
        assert_eq!(m.query("in:infra login"), Vec::<usize>::new());
        // `in:` alone is a word to search for, not an empty folder.
        assert!(Pattern::parse("in:").projects.is_empty());
    }

    #[test]
    fn empty_query_is_recency_and_queries_rank_and_narrow() {
        let mut m = Matcher::default();
        m.add(vec![
            (0, record("a1", "fix-login-bug", "Fix the login bug", 1.0)),
            (1, record("b2", "add-pagination", "Add pagination", 3.0)),
            (
                2,
                record("c3", "login-page-style", "Style the login page", 2.0),
            ),
        ]);
        assert_eq!(m.query(""), vec![1, 2, 0]);
        let login = m.query("login");
        assert_eq!(login.len(), 2);
        assert!(login.contains(&0) && login.contains(&2));
        assert_eq!(
            m.query("loginbug"),
            vec![0],
            "narrowed from the previous answer"
        );
        assert_eq!(m.query("b2"), vec![1], "ids are searched");
        assert_eq!(m.query("zzz"), Vec::<usize>::new());
        assert_eq!(highlight("fix-login-bug", "lgn"), vec![4, 6, 8]);
        assert!(contains_in_order("fix-login", &['f', 'l', 'n']));
        assert!(!contains_in_order("fix-login", &['n', 'f']));
        assert!(contains_in_order(&"ÉTÉ".to_lowercase(), &['é']));
        assert_eq!(
            m.query("PAGI"),
            Vec::<usize>::new(),
            "capitals ask for case (smart case)"
        );
    }

    #[test]
    fn one_letter_ranks_first_characters_then_word_starts_then_recency() {
        let mut m = Matcher::default();
        m.add(vec![
            (0, record("x0", "add-a-filter", "", 4.0)),
            (1, record("x1", "fix-login", "", 1.0)),
            (2, record("x2", "tidy-up", "", 5.0)),
            (3, record("x3", "wire-myFeature", "", 3.0)),
            (4, record("x4", "format-code", "", 2.0)),
            (5, record("x5", "stuff", "", 6.0)),
            (6, record("x6", "ÉTÉ-İf", "", 7.0)),
        ]);
        // First character (newest first), then word starts, then anywhere.
        assert_eq!(m.query("f"), vec![4, 1, 0, 3, 6, 5]);
        // Upper case: that case only, a capital inside a word counts.
        assert_eq!(m.query("F"), vec![3]);
        // Ids and digits too; nothing matches nothing.
        assert_eq!(m.query("5"), vec![5]);
        assert_eq!(m.query("q"), Vec::<usize>::new());
        assert_eq!(place_score(b"ab-ab", b"ab-ab", b'a'), Some(4));
        assert_eq!(place_score(b"xab-ab", b"xab-ab", b'a'), Some(3));
    }

    /// `n` sessions matching "fix" equally, the newest last; the oldest
    /// (row 0) is the best match, so only the complete ranking shows it first.
    /// Sort facts arriving while a query is ranked must not leave the query
    /// without its complete answer (they once abandoned it for good).
    #[test]
    fn facts_arriving_during_a_ranking_do_not_abandon_it() {
        let (jobs, inbox) = std::sync::mpsc::channel();
        let (replies, answers) = std::sync::mpsc::channel();
        let n = 60_000;
        let rows = big_matcher(n).entries.into_iter().enumerate();
        let rows = rows.map(|(i, e)| {
            let e = e.unwrap();
            (i, record(&e.id, &e.name, &e.prompt, e.last_used_at))
        });
        jobs.send(MatcherJob::Add(rows.collect())).unwrap();
        jobs.send(MatcherJob::Query {
            req: 1,
            query: "fix".into(),
            sort: SortKey::LastUsed,
        })
        .unwrap();
        let thread = std::thread::spawn(move || latest::run(Matcher::default(), inbox, replies));
        let wait = std::time::Duration::from_secs(20);
        let Ok(Msg::Reply {
            reply:
                Reply::List(ListReply::Filtered {
                    complete: false, ..
                }),
            ..
        }) = answers.recv_timeout(wait)
        else {
            panic!("a partial answer comes first");
        };
        // The ranking of the rest is under way: facts arrive.
        jobs.send(MatcherJob::Facts(vec![(0, SortFacts::default())]))
            .unwrap();
        match answers.recv_timeout(wait) {
            Ok(Msg::Reply {
                req: 1,
                reply:
                    Reply::List(ListReply::Filtered {
                        complete: true,
                        rows,
                        ..
                    }),
            }) => assert_eq!(rows.len(), n),
            other => panic!("the complete answer, not {other:?}"),
        }
        drop(jobs);
        thread.join().unwrap();
    }

    fn big_matcher(n: usize) -> Matcher {
        let mut m = Matcher::default();
        let rows = (0..n).map(|i| {
            let name = if i == 0 {
                "fix".to_string()
            } else {
                format!("task-{i}")
            };
            (
                i,
                record(
                    &format!("id{i:05}"),
                    &name,
                    "please fix the build",
                    i as f64,
                ),
            )
        });
        m.add(rows.collect());
        m
    }

    #[test]
    fn big_stores_get_the_recent_sessions_first_then_the_complete_ranking() {
        let n = 10_000;
        let mut m = big_matcher(n);
        let (mut partials, mut asked) = (Vec::new(), 0);
        let rows = m.query_progressive("fix", SortKey::LastUsed, |rows| {
            match rows {
                Some(rows) => partials.push(rows.to_vec()),
                None => asked += 1,
            }
            true
        });
        assert_eq!(partials.len(), 1, "one partial answer, before the rest");
        let newest: Vec<usize> = (n - FIRST_CHUNK..n).rev().collect();
        assert_eq!(
            partials[0], newest,
            "the partial answer: the newest sessions"
        );
        assert!(asked >= 1, "asked whether to go on between slices");
        let rows = rows.expect("not abandoned");
        assert_eq!(rows.len(), n, "the complete answer holds every match");
        assert_eq!(rows[0], 0, "and ranks the best (old) match first");
        assert_eq!(&rows[1..], (1..n).rev().collect::<Vec<_>>());
        // A small store is answered at once, with no partial answer.
        let mut small = big_matcher(FIRST_CHUNK);
        let answer =
            small.query_progressive("fix", SortKey::LastUsed, |_| panic!("no partial answer"));
        assert_eq!(answer.map(|r| r.len()), Some(FIRST_CHUNK));
    }

    #[test]
    fn a_newer_job_abandons_a_ranking_in_progress() {
        let mut m = big_matcher(10_000);
        // Stopped at the partial answer, or between later slices.
        assert_eq!(
            m.query_progressive("fix", SortKey::LastUsed, |_| false),
            None
        );
        let mut calls = 0;
        let stop_later = m.query_progressive("fix", SortKey::LastUsed, |rows| {
            calls += 1;
            rows.is_some()
        });
        assert_eq!((stop_later, calls), (None, 2));
        // An abandoned answer is never used to narrow the next query: the
        // longer query still sees every session.
        assert!(m.last.is_none());
        assert_eq!(m.query("fix b").len(), 10_000);
    }

    #[test]
    fn the_matcher_thread_answers_the_newest_query_partially_then_completely() {
        let (jobs, inbox) = std::sync::mpsc::channel();
        let (replies, answers) = std::sync::mpsc::channel();
        let rows = big_matcher(10_000).entries.into_iter().enumerate();
        let rows = rows.map(|(i, e)| {
            let e = e.unwrap();
            (i, record(&e.id, &e.name, &e.prompt, e.last_used_at))
        });
        jobs.send(MatcherJob::Add(rows.collect())).unwrap();
        for (req, query) in [(1, "fi"), (2, "fix")] {
            let query = query.to_string();
            jobs.send(MatcherJob::Query {
                req,
                query,
                sort: SortKey::LastUsed,
            })
            .unwrap();
        }
        drop(jobs);
        // Everything is queued before it starts, so it sees both queries.
        latest::run(Matcher::default(), inbox, replies);
        let got: Vec<(u64, bool, usize)> = answers
            .try_iter()
            .map(|msg| match msg {
                Msg::Reply {
                    req,
                    reply: Reply::List(ListReply::Filtered { rows, complete, .. }),
                } => (req, complete, rows.len()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(got, vec![(2, false, FIRST_CHUNK), (2, true, 10_000)]);
    }
}
