//! Searching the session files directly, without the index: correct and
//! slower, the reference the index is tested against, and how sessions the
//! index does not know yet are searched.

use crate::store::index::hit::Hit;
use crate::store::index::query::SearchQuery;
use crate::store::index::snippet::{passage, snippet};
use crate::store::index::text::Searchable;
use crate::store::index::words::words;

/// The messages of one session that match `query`.
pub fn matching(
    messages: &[Searchable],
    query: &SearchQuery,
    session: (&str, &str, f64),
) -> Vec<Hit> {
    let (session_id, session_name, last_used_at) = session;
    let mut hits = Vec::new();
    for m in messages {
        if query.role.is_some_and(|r| r.as_str() != m.role) {
            continue;
        }
        let found = words(&m.text);
        let texts: Vec<String> = found.iter().map(|w| w.text.clone()).collect();
        if !query.matches(&texts) {
            continue;
        }
        let matched = query.matched_positions(&texts);
        let shown = snippet(&m.text, &found, &matched);
        let passage = passage(&m.text, &found, &matched);
        hits.push(Hit {
            agent: Default::default(),
            session_id: session_id.to_string(),
            session_name: session_name.to_string(),
            context_id: m.context_id.clone(),
            message_id: m.message_id.clone(),
            role: m.role.clone(),
            sequence: m.sequence,
            snippet: shown.text,
            highlights: shown.highlights,
            passage,
            score: density(matched.len(), texts.len()),
            last_used_at,
        });
    }
    hits
}

/// More of the message matching, and a shorter message, rank higher (the
/// idea of BM25 without the statistics of a whole index).
fn density(matched: usize, len: usize) -> f32 {
    matched as f32 / (1.0 + (len as f32).ln_1p())
}
