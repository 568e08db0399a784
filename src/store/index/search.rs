//! Answering a query: from the index for the sessions it knows as they are
//! now, and from the files for the others (or, when asked, only from the
//! files). An answer says how much of the store it covers.

use crate::store::clock;
use crate::store::error::Result;
use crate::store::index::hit::{Hit, rank};
use crate::store::index::query::SearchQuery;
use crate::store::index::scan;
use crate::store::index::text::record_messages;
use crate::store::index::update::{Change, refresh, start_afresh_if_empty};
use crate::store::index::{Layout, SearchIndex};
use crate::store::parallel;
use crate::store::sources::record::SessionRecord;
use serde::Serialize;
use std::collections::HashSet;

/// How a search runs.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// Most hits returned.
    pub limit: usize,
    /// Only this session.
    pub session: Option<String>,
    /// Bring the index up to date first, for the sessions that changed
    /// (when no other process is writing it).
    pub update: bool,
    /// Search the files of sessions the index does not know as they are
    /// now, so the answer is complete (else they are left out, and counted).
    pub scan_stale: bool,
}

/// The answer.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SearchOutcome {
    /// The best hits, best first.
    pub hits: Vec<Hit>,
    /// Messages that matched in all (hits holds at most the limit).
    pub total: usize,
    /// Sessions the answer covers.
    pub covered: usize,
    /// Sessions in the store.
    pub sessions: usize,
    /// Anything a person should know about how it was answered.
    pub note: Option<String>,
}

impl SearchOutcome {
    /// True when every session of the store was searched.
    pub fn is_complete(&self) -> bool {
        self.covered == self.sessions
    }
}

/// Searches the files of `records` directly (no index).
pub fn direct(
    records: &[SessionRecord],
    query: &SearchQuery,
    limit: usize,
    layout: Layout,
) -> SearchOutcome {
    let found = parallel::map_ordered(records, |r| {
        let Ok((messages, _)) = record_messages(r, layout, false) else {
            return Vec::new();
        };
        let mut hits = scan::matching(&messages, query, (&r.id, r.shown_name(), r.last_used_at));
        for hit in &mut hits {
            hit.agent = r.agent;
        }
        hits
    });
    let mut hits: Vec<Hit> = found.into_iter().flatten().collect();
    let total = hits.len();
    rank(&mut hits);
    hits.truncate(limit);
    SearchOutcome {
        hits,
        total,
        covered: records.len(),
        sessions: records.len(),
        note: None,
    }
}

impl SearchIndex {
    /// Searches with the index. `names` are the sessions in the store now
    /// (directory names); `record_of` reads one's record, for sessions the
    /// index does not know as they are.
    pub fn search(
        &self,
        query: &SearchQuery,
        options: &SearchOptions,
        names: Vec<String>,
        record_of: &(dyn Fn(&str) -> SessionRecord + Sync),
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<SearchOutcome> {
        let (engine, mut note) = self.open()?;
        let (mut manifest, why) = self.manifest();
        if why.is_some() {
            note = why;
        }
        let names: Vec<String> = match &options.session {
            Some(id) => names.into_iter().filter(|n| n == id).collect(),
            None => names,
        };
        // Which sessions the index knows as they are now (a touch or a
        // rename makes a session stale too: its name and last use changed).
        let changes = self.changes(&names, &manifest);
        let mut stale: Vec<&String> = names
            .iter()
            .zip(&changes)
            .filter(|(_, c)| **c != Change::None)
            .map(|(n, _)| n)
            .collect();
        if options.update && !stale.is_empty() {
            if let Some(mut writer) = engine.writer()? {
                start_afresh_if_empty(&mut writer, &mut manifest, clock::now_seconds())?;
                refresh(
                    &engine,
                    &mut writer,
                    &mut manifest,
                    self,
                    &stale,
                    record_of,
                    progress,
                )?;
                engine.commit(&mut writer)?;
                manifest.save(self.dir()?)?;
                stale.clear();
            } else {
                note.get_or_insert(
                    "another process is updating the search index; sessions it has not reached were searched directly"
                        .into(),
                );
            }
        }
        engine.reload()?;
        let stale_set: HashSet<&str> = stale.iter().map(|s| s.as_str()).collect();
        let current: HashSet<&str> = names.iter().map(String::as_str).collect();
        // A little more than asked for: hits of sessions that changed are dropped.
        let (indexed_hits, indexed_total) =
            engine.search(query, options.session.as_deref(), options.limit + 200)?;
        let mut dropped = 0;
        let mut hits: Vec<Hit> = Vec::new();
        for mut hit in indexed_hits {
            let fresh = current.contains(hit.session_id.as_str())
                && !stale_set.contains(hit.session_id.as_str());
            match manifest.sessions.get(&hit.session_id).filter(|_| fresh) {
                Some(entry) => {
                    hit.session_name = entry.name.clone();
                    hit.last_used_at = entry.last_used_at;
                    hits.push(hit);
                }
                None => dropped += 1,
            }
        }
        let mut total = indexed_total - dropped;
        let mut covered = names.len() - stale.len();
        if options.scan_stale && !stale.is_empty() {
            let records: Vec<SessionRecord> = parallel::map_ordered(&stale, |n| record_of(n));
            let scanned = direct(&records, query, usize::MAX, self.layout);
            total += scanned.total;
            covered += records.len();
            hits.extend(scanned.hits);
        }
        rank(&mut hits);
        hits.truncate(options.limit);
        Ok(SearchOutcome {
            hits,
            total,
            covered,
            sessions: names.len(),
            note,
        })
    }
}
