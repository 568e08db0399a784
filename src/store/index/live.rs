//! A search index held open for a person typing: every key is a query, so
//! the index and its manifest are opened once and read again only when
//! their files changed (the updater, in the background, maybe in another
//! process, committed), and then only as a pair that matches (see
//! `consistent`). A session that changed since it was indexed is not
//! answered from the index: the sessions of the hits are checked against
//! their files (a few dozen at most, so a key stays fast) and those that
//! changed are searched in their files instead. Sessions that changed
//! without a hit wait for the next update; the coverage says how many
//! sessions the index holds.

use crate::store::error::Result;
use crate::store::index::engine::Engine;
use crate::store::index::hit::{Hit, rank};
use crate::store::index::manifest::{self, Manifest};
use crate::store::index::query::SearchQuery;
use crate::store::index::search::{SearchOutcome, Unreadable};
use crate::store::index::text::session_messages;
use crate::store::index::{SearchIndex, scan, stamp};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// How often a key asks for a manifest matching a new commit (a tenth of
/// a second at most: a key must not wait on a writer).
const ATTEMPTS: usize = 5;
/// Hits asked of the index beyond the limit, for those of changed sessions.
const SPARE: usize = 50;

/// An open index for searches as one types.
pub struct LiveSearch {
    index: SearchIndex,
    engine: Engine,
    manifest: Manifest,
    /// Why the index is not used, when its files do not match.
    note: Option<String>,
    /// The indexed sessions whose conversation could not be read.
    damaged: Vec<Unreadable>,
    /// The stamps of the manifest and of tantivy's meta.json when read:
    /// other stamps mean a commit.
    seen: Option<(stamp::FileStamp, stamp::FileStamp)>,
}

impl SearchIndex {
    /// Opens the index for searching as one types.
    pub fn live(&self) -> Result<LiveSearch> {
        let (engine, _) = self.open()?;
        let mut live = LiveSearch {
            index: self.clone(),
            engine,
            manifest: self.empty_manifest(),
            note: None,
            damaged: Vec::new(),
            seen: None,
        };
        live.refresh()?;
        Ok(live)
    }
}

impl LiveSearch {
    /// Reads the index again if it changed since the last search.
    fn refresh(&mut self) -> Result<()> {
        let dir = self.index.dir.clone().unwrap_or_default();
        let stamps =
            stamp::file(&dir.join(manifest::FILE)).zip(stamp::file(&dir.join("meta.json")));
        if stamps.is_some() && stamps == self.seen {
            return Ok(());
        }
        let (manifest, note) = self.index.consistent_manifest(&self.engine, ATTEMPTS)?;
        self.damaged = (manifest.sessions.iter())
            .filter_map(|(id, e)| {
                Some(Unreadable {
                    session_id: id.clone(),
                    error: e.error.clone()?,
                })
            })
            .collect();
        self.manifest = manifest;
        self.note = note;
        self.seen = stamps;
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
        let (found, mut total) = if self.manifest.sessions.is_empty() {
            (Vec::new(), 0)
        } else {
            self.engine.search(query, None, limit + SPARE)?
        };
        let changed = self.changed_sessions(&found);
        let mut hits = Vec::with_capacity(found.len());
        for mut hit in found {
            match self.manifest.sessions.get(&hit.session_id) {
                Some(_) if changed.contains(&hit.session_id) => total = total.saturating_sub(1),
                Some(entry) => {
                    hit.session_name = entry.name.clone();
                    hit.last_used_at = entry.last_used_at;
                    hits.push(hit);
                }
                None => total = total.saturating_sub(1),
            }
        }
        let mut unreadable: Vec<Unreadable> = (self.damaged.iter())
            .filter(|d| !changed.contains(&d.session_id))
            .cloned()
            .collect();
        for id in &changed {
            match self.scan(id, query) {
                Ok(found) => {
                    total += found.len();
                    hits.extend(found);
                }
                Err(why) => unreadable.push(why),
            }
        }
        rank(&mut hits);
        hits.truncate(limit);
        let covered = self.manifest.sessions.len().min(sessions);
        Ok(SearchOutcome {
            hits,
            total,
            covered,
            sessions: sessions.max(covered),
            unreadable,
            note: self.note.clone(),
        })
    }

    /// The sessions of `hits` whose files changed since they were indexed.
    fn changed_sessions(&self, hits: &[Hit]) -> Vec<String> {
        let checker = stamp::Checker::new(&self.index.store_dir);
        let layout = self.index.layout;
        let mut seen = HashSet::new();
        let mut changed = Vec::new();
        for hit in hits {
            if !seen.insert(hit.session_id.as_str()) {
                continue;
            }
            let Some(entry) = self.manifest.sessions.get(&hit.session_id) else {
                continue;
            };
            let dir = Path::new(&hit.session_id);
            let meta = layout.meta(dir);
            let same = checker.unchanged(
                &layout.conversation(dir),
                &entry.files,
                meta.as_deref(),
                entry.meta.as_ref(),
            );
            if !same {
                changed.push(hit.session_id.clone());
            }
        }
        changed
    }

    /// Session `id` searched in its files.
    fn scan(&self, id: &str, query: &SearchQuery) -> std::result::Result<Vec<Hit>, Unreadable> {
        let path: PathBuf = self.index.store_dir.join(id);
        let entry = self.manifest.sessions.get(id);
        let (name, used) = entry.map_or((id, 0.0), |e| (e.name.as_str(), e.last_used_at));
        session_messages(self.index.layout, &path, false)
            .map(|(messages, _)| scan::matching(&messages, query, (id, name, used)))
            .map_err(|e| Unreadable {
                session_id: id.to_string(),
                error: e.to_string(),
            })
    }
}
