//! Answering a query: from the index for the sessions it knows as they are
//! now, and from the files for the others (or, when asked, only from the
//! files). An answer says how much of the store it covers.

use crate::store::clock;
use crate::store::error::Result;
use crate::store::index::consistent::READER_ATTEMPTS;
use crate::store::index::engine::Engine;
use crate::store::index::hit::{Hit, rank};
use crate::store::index::manifest::{self, Manifest, ManifestView};
use crate::store::index::query::SearchQuery;
use crate::store::index::scan;
use crate::store::index::text::record_messages;
use crate::store::index::update::{Change, refresh, start_afresh_if_empty};
use crate::store::index::{Layout, SearchIndex, join_notes};
use crate::store::parallel;
use crate::store::sources::record::SessionRecord;
use serde::Serialize;
use std::cell::OnceCell;
// Sets of session ids, hashed fast: a search builds them over the whole store.
use rustc_hash::FxHashSet as HashSet;

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
    /// Sessions the answer covers (searched, from the index or the files).
    pub covered: usize,
    /// Sessions in the store.
    pub sessions: usize,
    /// Sessions whose conversation could not be read, so were not searched
    /// (not counted in `covered`): each with why, the file named.
    pub unreadable: Vec<Unreadable>,
    /// Anything a person should know about how it was answered.
    pub note: Option<String>,
}

/// A session a search could not read.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Unreadable {
    /// The session.
    pub session_id: String,
    /// Why, naming the file.
    pub error: String,
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
        record_messages(r, layout, false)
            .map(|(messages, _)| {
                let mut hits =
                    scan::matching(&messages, query, (&r.id, r.shown_name(), r.last_used_at));
                for hit in &mut hits {
                    hit.agent = r.agent;
                }
                hits
            })
            .map_err(|e| Unreadable {
                session_id: r.id.to_string(),
                error: e.to_string(),
            })
    });
    let mut hits: Vec<Hit> = Vec::new();
    let mut unreadable = Vec::new();
    for result in found {
        match result {
            Ok(found) => hits.extend(found),
            Err(why) => unreadable.push(why),
        }
    }
    let total = hits.len();
    rank(&mut hits);
    hits.truncate(limit);
    SearchOutcome {
        hits,
        total,
        covered: records.len() - unreadable.len(),
        sessions: records.len(),
        unreadable,
        note: None,
    }
}

impl SearchIndex {
    /// Searches with the index. `names()` lists the sessions in the store
    /// now (directory names); `record_of` reads one's record, for sessions
    /// the index does not know as they are.
    pub fn search(
        &self,
        query: &SearchQuery,
        options: &SearchOptions,
        names: &(dyn Fn() -> Result<Vec<String>> + Sync),
        record_of: &(dyn Fn(&str) -> SessionRecord + Sync),
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<SearchOutcome> {
        // The store is listed while the index opens and its manifest is
        // read and decoded: each takes a while on a large store, alone on
        // one core otherwise.
        let bytes = OnceCell::new();
        let (opened, view, listed) = std::thread::scope(|scope| {
            let listing = scope.spawn(names);
            let opened = self.open();
            let view = match opened {
                Ok(_) => self.manifest_view(&bytes),
                Err(_) => None,
            };
            let listed = listing
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (opened, view, listed)
        });
        let (engine, opened) = opened?;
        let names: Vec<String> = match &options.session {
            Some(id) => listed?.into_iter().filter(|n| n == id).collect(),
            None => listed?,
        };
        if let Some(view) = view
            && let Some(mut outcome) =
                self.search_borrowed(&engine, query, options, &names, &view, record_of)?
        {
            outcome.note = opened;
            return Ok(outcome);
        }
        // The manifest of the commit the reader sees, or none. A first look;
        // a mismatch is settled under the writer lock when this search may
        // update the index, else looked at again while a writer finishes.
        let (mut manifest, mut mismatch) = self.consistent_manifest(&engine, 1)?;
        // Which sessions the index knows as they are now (a touch or a
        // rename makes a session stale too: its name and last use changed).
        let mut stale = self.stale(&names, &manifest);
        let mut note = opened;
        let needs_work = !stale.is_empty() || mismatch.is_some();
        // Kept until the search is done, so no other commit lands meanwhile.
        let mut writer = match options.update && needs_work {
            true => engine.writer()?,
            false => None,
        };
        if writer.is_none() && mismatch.is_some() {
            (manifest, mismatch) = self.consistent_manifest(&engine, READER_ATTEMPTS)?;
            stale = self.stale(&names, &manifest);
        }
        if options.update && needs_work {
            match writer.as_mut() {
                Some(writer) => {
                    // Under the writer lock what is on disk is settled.
                    let (settled, why) = self.consistent_manifest(&engine, 1)?;
                    manifest = settled;
                    if let Some(why) = why.or(mismatch.take()) {
                        note = Some(join_notes(note, format!("{why}; the index was rebuilt")));
                    }
                    start_afresh_if_empty(writer, &mut manifest, clock::now_seconds())?;
                    let stale_now = self.stale(&names, &manifest);
                    refresh(
                        &engine,
                        writer,
                        &mut manifest,
                        self,
                        &stale_now,
                        record_of,
                        progress,
                    )?;
                    self.commit(&engine, writer, &mut manifest)?;
                    engine.reload()?;
                    stale.clear();
                }
                None => {
                    note = Some(join_notes(
                        note,
                        "another process is updating the search index; sessions it has not reached were searched directly"
                            .into(),
                    ));
                }
            }
        }
        if let Some(why) = mismatch {
            note = Some(join_notes(
                note,
                format!("{why}; the session files were searched directly"),
            ));
        }
        let outcome = self.answer(&engine, query, options, &names, &manifest, &stale)?;
        drop(writer);
        let mut outcome = self.finish(outcome, query, options, &stale, record_of);
        outcome.note = note;
        Ok(outcome)
    }

    /// The search when the index needs no update, on the manifest borrowed
    /// from its bytes (decoding it into owned strings was a noticeable share
    /// of a search's CPU), used only when it names the
    /// commit the reader sees and holds its messages, as
    /// [`SearchIndex::consistent_manifest`] checks. `None` leaves the search
    /// to the owned manifest: there is none, it is not the commit's (a
    /// writer between the two, or a damaged pair: that path says why), or
    /// sessions changed and the search may update the index.
    fn search_borrowed(
        &self,
        engine: &Engine,
        query: &SearchQuery,
        options: &SearchOptions,
        names: &[String],
        view: &ManifestView,
        record_of: &(dyn Fn(&str) -> SessionRecord + Sync),
    ) -> Result<Option<SearchOutcome>> {
        let Some(commit) = engine.reload_and_name()? else {
            return Ok(None);
        };
        let documents: u64 = view.sessions.values().map(|e| e.documents as u64).sum();
        if view.sessions.is_empty()
            || view.commit != commit.payload.as_deref().unwrap_or("")
            || documents != commit.documents
        {
            return Ok(None);
        }
        let stamps = |name: &str| {
            let entry = view.sessions.get(name)?;
            Some((entry.files.as_slice(), entry.meta.as_ref()))
        };
        // Every session's conversation is checked, and meta.json (a name
        // and a last use) below only for the sessions the answer shows. The
        // index is asked meanwhile: its hits do not depend on which
        // sessions changed (those are dropped after).
        let empty = view.sessions.is_empty();
        let (changes, indexed) = std::thread::scope(|scope| {
            let asking = scope.spawn(|| self.indexed_hits(engine, query, options, empty));
            let changes = self.changes_with(names, stamps, false);
            let indexed = asking
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (changes, indexed)
        });
        let indexed = indexed?;
        let mut stale = self.stale_in(names, &changes);
        if options.update && !stale.is_empty() {
            return Ok(None);
        }
        let shown = shown_sessions(names, &indexed.0, &stale);
        let shown_changes = self.changes_of(&shown, stamps);
        let renamed = self.stale_in(&shown, &shown_changes);
        if !renamed.is_empty() {
            if options.update {
                return Ok(None);
            }
            let renamed: HashSet<&str> = renamed.iter().map(|n| n.as_str()).collect();
            stale.extend(names.iter().filter(|n| renamed.contains(n.as_str())));
        }
        let known = |id: &str| {
            view.sessions.get(id).map(|e| Known {
                name: e.name,
                last_used_at: e.last_used_at,
                error: e.error,
            })
        };
        let outcome = self.answer_of(indexed, names, &known, &stale);
        Ok(Some(
            self.finish(outcome, query, options, &stale, record_of),
        ))
    }

    /// The manifest as its bytes say (read into `bytes`), borrowed; None
    /// when there is none or it is not usable (the owned path says why).
    fn manifest_view<'a>(
        &self,
        bytes: &'a OnceCell<crate::store::fs::mapped::FileBytes>,
    ) -> Option<ManifestView<'a>> {
        let dir = self.dir().ok()?;
        let read = manifest::read(dir).ok()?;
        ManifestView::decode(bytes.get_or_init(|| read), dir, &self.store).ok()
    }

    /// The index's answer completed: the sessions it does not know as they
    /// are searched in their files when asked, the hits ranked and cut.
    fn finish(
        &self,
        mut outcome: SearchOutcome,
        query: &SearchQuery,
        options: &SearchOptions,
        stale: &[&String],
        record_of: &(dyn Fn(&str) -> SessionRecord + Sync),
    ) -> SearchOutcome {
        if options.scan_stale && !stale.is_empty() {
            let records: Vec<SessionRecord> = parallel::map_ordered(stale, |n| record_of(n));
            let scanned = direct(&records, query, usize::MAX, self.layout);
            outcome.total += scanned.total;
            outcome.covered += scanned.covered;
            outcome.hits.extend(scanned.hits);
            outcome.unreadable.extend(scanned.unreadable);
        }
        rank(&mut outcome.hits);
        outcome.hits.truncate(options.limit);
        outcome
    }

    /// The sessions of `names` the manifest does not know as they are.
    fn stale<'a>(&self, names: &'a [String], manifest: &Manifest) -> Vec<&'a String> {
        self.stale_in(names, &self.changes(names, manifest))
    }

    /// The sessions of `names` whose `changes` are not none.
    fn stale_in<'a>(&self, names: &'a [String], changes: &[Change]) -> Vec<&'a String> {
        names
            .iter()
            .zip(changes)
            .filter(|(_, c)| **c != Change::None)
            .map(|(n, _)| n)
            .collect()
    }

    /// The index's answer for the sessions of `names` it knows as they are
    /// (those not in `stale`), with their unreadable ones.
    fn answer(
        &self,
        engine: &Engine,
        query: &SearchQuery,
        options: &SearchOptions,
        names: &[String],
        manifest: &Manifest,
        stale: &[&String],
    ) -> Result<SearchOutcome> {
        let known = |id: &str| {
            manifest.sessions.get(id).map(|e| Known {
                name: &e.name,
                last_used_at: e.last_used_at,
                error: e.error.as_deref(),
            })
        };
        let indexed = self.indexed_hits(engine, query, options, manifest.sessions.is_empty())?;
        Ok(self.answer_of(indexed, names, &known, stale))
    }

    /// The index's best hits and how many matched in all: a little more
    /// than asked for, since hits of sessions that changed are dropped. An
    /// index whose manifest is not used (`empty`) answers nothing.
    fn indexed_hits(
        &self,
        engine: &Engine,
        query: &SearchQuery,
        options: &SearchOptions,
        empty: bool,
    ) -> Result<(Vec<Hit>, usize)> {
        match empty {
            true => Ok((Vec::new(), 0)),
            false => engine.search(query, options.session.as_deref(), options.limit + 200),
        }
    }

    /// [`SearchIndex::answer`] of the index's hits (`indexed`) for a
    /// manifest owned or borrowed: `known` gives what it holds of a session.
    fn answer_of<'m>(
        &self,
        (indexed_hits, indexed_total): (Vec<Hit>, usize),
        names: &[String],
        known: KnownOf<'_, 'm>,
        stale: &[&String],
    ) -> SearchOutcome {
        let stale_set: HashSet<&str> = stale.iter().map(|s| s.as_str()).collect();
        let fresh = |id: &str| !stale_set.contains(id);
        let current: HashSet<&str> = names.iter().map(String::as_str).collect();
        let mut dropped = 0;
        let mut hits: Vec<Hit> = Vec::new();
        for mut hit in indexed_hits {
            let known_now = current.contains(hit.session_id.as_str()) && fresh(&hit.session_id);
            match known_now.then(|| known(&hit.session_id)).flatten() {
                Some(entry) => {
                    hit.session_name = entry.name.to_string();
                    hit.last_used_at = entry.last_used_at;
                    hits.push(hit);
                }
                None => dropped += 1,
            }
        }
        let unreadable: Vec<Unreadable> = names
            .iter()
            .filter(|n| fresh(n))
            .filter_map(|n| {
                let error = known(n)?.error?.to_string();
                Some(Unreadable {
                    session_id: n.clone(),
                    error,
                })
            })
            .collect();
        SearchOutcome {
            hits,
            total: indexed_total - dropped,
            covered: names.len() - stale.len() - unreadable.len(),
            sessions: names.len(),
            unreadable,
            note: None,
        }
    }
}

/// The sessions of `names` (not `stale`) whose name and last use an answer
/// of `hits` shows, in the order of `names`.
fn shown_sessions(names: &[String], hits: &[Hit], stale: &[&String]) -> Vec<String> {
    let stale: HashSet<&str> = stale.iter().map(|s| s.as_str()).collect();
    let hit: HashSet<&str> = hits
        .iter()
        .map(|h| h.session_id.as_str())
        .filter(|id| !stale.contains(id))
        .collect();
    names
        .iter()
        .filter(|n| hit.contains(n.as_str()))
        .cloned()
        .collect()
}

/// What the manifest knows of a session, by id.
type KnownOf<'f, 'm> = &'f dyn Fn(&str) -> Option<Known<'m>>;

/// What an answer reads of a session the manifest knows.
struct Known<'m> {
    name: &'m str,
    last_used_at: f64,
    error: Option<&'m str>,
}
