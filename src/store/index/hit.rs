//! A message that matched a search, and the order hits are shown in.

use crate::store::index::snippet::Snippet;
use crate::store::sources::agent::Agent;
use serde::Serialize;

/// One message that matched.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hit {
    /// Whose session it is.
    pub agent: Agent,
    /// The session.
    pub session_id: String,
    /// Its name.
    pub session_name: String,
    /// The active context when the message is in it, else a context that holds it.
    pub context_id: String,
    /// The message.
    pub message_id: String,
    /// Who wrote it.
    pub role: String,
    /// `_sequence_number` in that context.
    pub sequence: Option<i64>,
    /// A line of it around the match.
    pub snippet: String,
    /// Byte ranges of `snippet` that matched.
    #[serde(skip)]
    pub highlights: Vec<(usize, usize)>,
    /// More of the message around the match, its lines kept (the preview's).
    #[serde(skip)]
    pub passage: Snippet,
    /// Relevance: higher is better (BM25 from the index; a simpler measure
    /// of the same idea when the files are searched directly).
    pub score: f32,
    /// When the session was last used (the tie-breaker).
    #[serde(skip)]
    pub last_used_at: f64,
}

/// Best first: relevance, then the most recently used session, then a
/// stable order.
pub fn rank(hits: &mut [Hit]) {
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.last_used_at.total_cmp(&a.last_used_at))
            .then_with(|| a.session_id.cmp(&b.session_id))
            .then_with(|| a.sequence.cmp(&b.sequence))
    });
}
