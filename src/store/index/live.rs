//! A search index held open for a person typing: every key is a query, so
//! the index and its manifest are opened once and read again only when the
//! updater (in the background, maybe in another process) has committed.
//! It trusts the index as it is and says how many sessions it covers.

use crate::store::error::Result;
use crate::store::index::SearchIndex;
use crate::store::index::engine::Engine;
use crate::store::index::hit::rank;
use crate::store::index::manifest::Manifest;
use crate::store::index::query::SearchQuery;
use crate::store::index::search::SearchOutcome;
use std::time::SystemTime;

/// An open index for searches as one types.
pub struct LiveSearch {
    index: SearchIndex,
    engine: Engine,
    manifest: Manifest,
    /// The manifest file's time when read: a newer one means a commit.
    seen: Option<SystemTime>,
}

impl SearchIndex {
    /// Opens the index for searching as one types.
    pub fn live(&self) -> Result<LiveSearch> {
        let (engine, _) = self.open()?;
        let mut live = LiveSearch {
            index: self.clone(),
            engine,
            manifest: self.empty_manifest(),
            seen: None,
        };
        live.refresh()?;
        Ok(live)
    }
}

impl LiveSearch {
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

    /// The best `limit` messages for `query` among the indexed sessions;
    /// `sessions` is how many the store holds (for the coverage).
    pub fn search(
        &mut self,
        query: &SearchQuery,
        limit: usize,
        sessions: usize,
    ) -> Result<SearchOutcome> {
        self.refresh()?;
        let (found, total) = self.engine.search(query, None, limit)?;
        let mut hits = Vec::with_capacity(found.len());
        for mut hit in found {
            if let Some(entry) = self.manifest.sessions.get(&hit.session_id) {
                hit.session_name = entry.name.clone();
                hit.last_used_at = entry.last_used_at;
                hits.push(hit);
            }
        }
        rank(&mut hits);
        let covered = self.manifest.sessions.len().min(sessions);
        Ok(SearchOutcome {
            hits,
            total,
            covered,
            sessions: sessions.max(covered),
            note: None,
        })
    }
}
