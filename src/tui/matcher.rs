//! The fuzzy matcher on its own thread: the UI sends sessions and queries,
//! the matcher answers the newest query only ("latest wins"), narrowing from
//! the previous answer when the query grew.

use crate::store::record::SessionRecord;
use crate::tui::msg::Msg;
use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use std::sync::mpsc::{Receiver, Sender};

/// Work for the matcher.
#[derive(Debug)]
pub enum MatcherJob {
    /// Add or replace sessions (by row index).
    Index(Vec<(usize, SessionRecord)>),
    /// Forget every session.
    Reset,
    /// Answer a query.
    Query { req: u64, query: String },
}

/// What the matcher searches in one session.
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    prompt: String,
    id: String,
    last_used_at: f64,
}

/// The searchable sessions and the last answer, for narrowing.
#[derive(Debug, Default)]
pub struct Matcher {
    entries: Vec<Option<Entry>>,
    by_recency: Option<Vec<usize>>,
    last: Option<(String, Vec<usize>)>,
}

/// Most characters of a first prompt that are searched (long prompts would
/// cost time and rarely matter for finding a session).
const PROMPT_CHARS: usize = 300;

impl Matcher {
    /// Adds or replaces sessions.
    pub fn index(&mut self, rows: Vec<(usize, SessionRecord)>) {
        for (index, r) in rows {
            if self.entries.len() <= index {
                self.entries.resize(index + 1, None);
            }
            self.entries[index] = Some(Entry {
                name: r.name,
                prompt: r.first_prompt.chars().take(PROMPT_CHARS).collect(),
                id: r.id,
                last_used_at: r.last_used_at,
            });
        }
        self.by_recency = None;
        self.last = None;
    }

    /// Forgets everything.
    pub fn reset(&mut self) {
        *self = Matcher::default();
    }

    /// Row indices for `query`: best score first, then most recent use;
    /// every session by recency for an empty query.
    pub fn query(&mut self, query: &str) -> Vec<usize> {
        let recency = self.recency().to_vec();
        if query.trim().is_empty() {
            return recency;
        }
        // A longer query can only match a subset of what the shorter matched.
        let pool: Vec<usize> = match &self.last {
            Some((previous, rows)) if query.starts_with(previous.as_str()) => rows.clone(),
            _ => recency,
        };
        let rows = score_all(&self.entries, &pool, query);
        self.last = Some((query.to_string(), rows.clone()));
        rows
    }

    fn recency(&mut self) -> &[usize] {
        let entries = &self.entries;
        self.by_recency.get_or_insert_with(|| {
            let mut rows: Vec<usize> = (0..entries.len())
                .filter(|i| entries[*i].is_some())
                .collect();
            rows.sort_by(|a, b| {
                let (ea, eb) = (entries[*a].as_ref(), entries[*b].as_ref());
                let ta = ea.map_or(0.0, |e| e.last_used_at);
                let tb = eb.map_or(0.0, |e| e.last_used_at);
                tb.total_cmp(&ta)
                    .then_with(|| ea.map(|e| &e.id).cmp(&eb.map(|e| &e.id)))
            });
            rows
        })
    }
}

/// Scores `pool` (in recency order) on all cores; a stable sort by score
/// keeps recency order among equal scores.
fn score_all(entries: &[Option<Entry>], pool: &[usize], query: &str) -> Vec<usize> {
    let workers = if pool.len() > 4000 {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        1
    };
    let per = pool.len().div_ceil(workers).max(1);
    let mut scored: Vec<(i64, usize)> = std::thread::scope(|scope| {
        let handles: Vec<_> = pool
            .chunks(per)
            .map(|part| {
                scope.spawn(move || {
                    let matcher = SkimMatcherV2::default();
                    part.iter()
                        .filter_map(|&i| {
                            let e = entries[i].as_ref()?;
                            best_score(&matcher, e, query).map(|s| (s, i))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    scored.into_iter().map(|(_, i)| i).collect()
}

fn best_score(matcher: &SkimMatcherV2, e: &Entry, query: &str) -> Option<i64> {
    [&e.name, &e.prompt, &e.id]
        .into_iter()
        .filter_map(|field| matcher.fuzzy_match(field, query))
        .max()
}

/// Positions (char indices) in `text` that `query` matched, for highlighting.
pub fn highlight(text: &str, query: &str) -> Vec<usize> {
    if query.is_empty() {
        return Vec::new();
    }
    SkimMatcherV2::default()
        .fuzzy_indices(text, query)
        .map(|(_, indices)| indices)
        .unwrap_or_default()
}

/// Runs the matcher until the UI goes away.
pub fn run(jobs: Receiver<MatcherJob>, replies: Sender<Msg>) {
    let mut matcher = Matcher::default();
    while let Ok(first) = jobs.recv() {
        let mut latest = None;
        for job in std::iter::once(first).chain(jobs.try_iter()) {
            match job {
                MatcherJob::Index(rows) => matcher.index(rows),
                MatcherJob::Reset => matcher.reset(),
                MatcherJob::Query { req, query } => latest = Some((req, query)),
            }
        }
        if let Some((req, query)) = latest {
            let rows = matcher.query(&query);
            if replies.send(Msg::Filtered { req, query, rows }).is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        }
    }

    #[test]
    fn empty_query_is_recency_and_queries_rank_and_narrow() {
        let mut m = Matcher::default();
        m.index(vec![
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
    }
}
