//! Search indexes held open for a person typing: every key is a query, so
//! each index and its manifest are opened once and read again only when
//! the updater (in the background, maybe in another process) has committed.
//! They are trusted as they are, and say how many sessions they cover.
//! One index per source (the Loki tree, each other agent's folder); their
//! hits are ranked together.

use crate::store::error::Result;
use crate::store::index::SearchIndex;
use crate::store::index::engine::Engine;
use crate::store::index::hit::rank;
use crate::store::index::manifest::Manifest;
use crate::store::index::query::SearchQuery;
use crate::store::index::search::SearchOutcome;
use crate::store::sources::agent::Agent;
use std::time::SystemTime;

/// Open indexes for searches as one types.
pub struct LiveSearch {
    parts: Vec<LiveIndex>,
}

/// One source's open index.
struct LiveIndex {
    agent: Agent,
    index: SearchIndex,
    engine: Engine,
    manifest: Manifest,
    /// The manifest file's time when read: a newer one means a commit.
    seen: Option<SystemTime>,
}

impl SearchIndex {
    /// Opens the index for searching as one types.
    pub fn live(&self) -> Result<LiveSearch> {
        LiveSearch::open(vec![(Agent::default(), self.clone())])
    }
}

impl LiveSearch {
    /// Opens each index of `parts` (with whose sessions it holds).
    pub fn open(parts: Vec<(Agent, SearchIndex)>) -> Result<LiveSearch> {
        let mut out = Vec::with_capacity(parts.len());
        for (agent, index) in parts {
            let (engine, _) = index.open()?;
            let mut live = LiveIndex {
                agent,
                manifest: index.empty_manifest(),
                index,
                engine,
                seen: None,
            };
            live.refresh()?;
            out.push(live);
        }
        Ok(LiveSearch { parts: out })
    }

    /// The best `limit` messages for `query` among the indexed sessions;
    /// `sessions` is how many the store holds (for the coverage).
    pub fn search(
        &mut self,
        query: &SearchQuery,
        limit: usize,
        sessions: usize,
    ) -> Result<SearchOutcome> {
        let mut hits = Vec::new();
        let mut total = 0;
        let mut covered = 0;
        for part in &mut self.parts {
            part.refresh()?;
            let (found, found_total) = part.engine.search(query, None, limit)?;
            total += found_total;
            covered += part.manifest.sessions.len();
            for mut hit in found {
                if let Some(entry) = part.manifest.sessions.get(&hit.session_id) {
                    hit.session_name = entry.name.clone();
                    hit.last_used_at = entry.last_used_at;
                    hit.agent = part.agent;
                    hits.push(hit);
                }
            }
        }
        rank(&mut hits);
        hits.truncate(limit);
        let covered = covered.min(sessions);
        Ok(SearchOutcome {
            hits,
            total,
            covered,
            sessions: sessions.max(covered),
            note: None,
        })
    }
}

impl LiveIndex {
    /// Reads the index again if it changed since the last search.
    fn refresh(&mut self) -> Result<()> {
        let stamp = self
            .index
            .manifest_path()
            .and_then(|p| std::fs::metadata(p).ok())
            .and_then(|m| m.modified().ok());
        if stamp.is_some() && stamp == self.seen {
            return Ok(());
        }
        self.engine.reload()?;
        self.manifest = self.index.manifest().0;
        self.seen = stamp;
        Ok(())
    }
}
