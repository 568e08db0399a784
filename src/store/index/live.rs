//! Search indexes held open for a person typing: every key is a query, so
//! each index and its manifest are opened once and read again only when
//! their files changed (the updater, in the background, maybe in another
//! process, committed), and then only as a pair that matches (see
//! `consistent`). A session that changed since it was indexed is not
//! answered from the index: the sessions of the hits are checked against
//! their files (a few dozen at most, so a key stays fast) and those that
//! changed are searched in their files instead. Sessions that changed
//! without a hit wait for the next update; the coverage says how many
//! sessions the index holds. One index per source (the Loki tree, each
//! other agent's folder); their hits are ranked together.

use crate::store::error::Result;
use crate::store::index::engine::Engine;
use crate::store::index::hit::{Hit, rank};
use crate::store::index::manifest::{self, Manifest};
use crate::store::index::query::SearchQuery;
use crate::store::index::search::{SearchOutcome, Unreadable};
use crate::store::index::text::{record_messages, session_messages};
use crate::store::index::{Layout, SearchIndex, scan, stamp};
use crate::store::sources::agent::Agent;
use crate::store::sources::agents::AgentSource;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// How often a key asks for a manifest matching a new commit (a tenth of
/// a second at most: a key must not wait on a writer).
const ATTEMPTS: usize = 5;
/// Hits asked of the index beyond the limit, for those of changed sessions.
const SPARE: usize = 50;

/// Open indexes for searches as one types.
pub struct LiveSearch {
    parts: Vec<LiveIndex>,
}

/// One source's open index.
struct LiveIndex {
    /// Whose sessions it holds.
    agent: Agent,
    index: SearchIndex,
    engine: Engine,
    manifest: Manifest,
    /// Why the index is not used, when its files do not match.
    note: Option<String>,
    /// The indexed sessions whose conversation could not be read.
    damaged: Vec<Unreadable>,
    /// The stamps of the manifest and of tantivy's meta.json when read:
    /// other stamps mean a commit.
    seen: Option<(stamp::StampedFile, stamp::StampedFile)>,
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
                note: None,
                damaged: Vec::new(),
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
        let mut all = SearchOutcome {
            hits: Vec::new(),
            total: 0,
            covered: 0,
            sessions: 0,
            unreadable: Vec::new(),
            note: None,
        };
        for part in &mut self.parts {
            let one = part.search(query, limit)?;
            all.hits.extend(one.hits);
            all.total += one.total;
            all.covered += one.covered;
            all.unreadable.extend(one.unreadable);
            if let Some(note) = one.note {
                all.note = Some(super::join_notes(all.note.take(), note));
            }
        }
        rank(&mut all.hits);
        all.hits.truncate(limit);
        all.covered = all.covered.min(sessions);
        all.sessions = sessions.max(all.covered);
        Ok(all)
    }
}

impl LiveIndex {
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

    /// This index's best `limit` messages for `query` (its coverage is
    /// how many sessions it holds).
    fn search(&mut self, query: &SearchQuery, limit: usize) -> Result<SearchOutcome> {
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
                    hit.agent = self.agent;
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
        Ok(SearchOutcome {
            hits,
            total,
            covered: self.manifest.sessions.len(),
            sessions: self.manifest.sessions.len(),
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
            let same = if layout == Layout::Agent {
                checker.files_unchanged(&entry.files)
            } else {
                let dir = Path::new(&hit.session_id);
                let meta = layout.meta(dir);
                checker.unchanged(
                    &layout.conversation(dir),
                    &entry.files,
                    meta.as_deref(),
                    entry.meta.as_ref(),
                )
            };
            if !same {
                changed.push(hit.session_id.clone());
            }
        }
        changed
    }

    /// Session `id` searched in its files.
    fn scan(&self, id: &str, query: &SearchQuery) -> std::result::Result<Vec<Hit>, Unreadable> {
        let entry = self.manifest.sessions.get(id);
        let (name, used) = entry.map_or((id, 0.0), |e| (e.name.as_str(), e.last_used_at));
        let read = if self.index.layout == Layout::Agent {
            // Another agent's session: its own file is stamped first.
            let store = &self.index.store_dir;
            let file = entry
                .and_then(|e| e.files.first())
                .map(|f| store.join(&f.name));
            let record = file.map(|f| {
                AgentSource::new(self.agent, store)
                    .reader()
                    .record_of(id, &f)
            });
            match record {
                Some(record) => record_messages(&record, Layout::Agent, false),
                None => Ok((Vec::new(), Default::default())),
            }
        } else {
            let path: PathBuf = self.index.store_dir.join(id);
            session_messages(self.index.layout, &path, false)
        };
        read.map(|(messages, _)| {
            let mut hits = scan::matching(&messages, query, (id, name, used));
            for hit in &mut hits {
                hit.agent = self.agent;
            }
            hits
        })
        .map_err(|e| Unreadable {
            session_id: id.to_string(),
            error: e.to_string(),
        })
    }
}
