//! The door's search: one index per source (the Loki tree or peteos
//! folder, and each other agent's folder), each kept in our cache, asked
//! together and answered as one.

use super::Store;
use crate::store::error::{Result, StoreError};
use crate::store::format::SessionId;
use crate::store::format::usage::UsageDetail;
use crate::store::index::{
    self, IndexStatus, IndexedStats, Layout, LiveSearch, SearchIndex, SearchOptions, SearchOutcome,
    SearchQuery, UpdateReport,
};
use crate::store::sources::agent::Agent;
use crate::store::sources::agents::{AgentSource, RecordReader};
use crate::store::sources::record::SessionRecord;
use std::collections::HashMap;

/// Each record's stats as the search indexes know them, in the records'
/// order (boxed: 100k sessions without stats are 100k empty places of 8
/// bytes, not of 90).
pub type StatsInOrder = Vec<Option<Box<IndexedStats>>>;

/// One source's index with what it needs to read sessions.
pub(super) struct Indexed {
    /// Whose sessions.
    agent: Agent,
    /// The index.
    index: SearchIndex,
    /// The sessions in the source now (ids); None for the Loki tree or
    /// peteos folder, listed when asked ([`Store::names_of`]: a search lists
    /// it while the index opens).
    names: Option<Vec<String>>,
    /// Another agent's source: each session's file by id, and what reads
    /// its record (a Loki tree reads them afresh by id).
    files: Option<(HashMap<String, std::path::PathBuf>, RecordReader)>,
}

use crate::store::format::tokens::Encoding;
use crate::store::ops::count_cache::CountCache;
use crate::store::ops::locate::Target;
use crate::store::ops::purge_checks::{self, PurgeChecks};

impl Store {
    /// The search index of the Loki tree or peteos folder.
    pub(super) fn primary_index(&self) -> SearchIndex {
        SearchIndex::for_store(&self.sessions_dir(), self.layout(), self.cache.as_deref())
    }

    /// Where the token counts of `target`'s messages are kept between
    /// runs: a file beside the search index of the Loki tree or peteos
    /// folder, named by the conversation's folder, or, for another agent's
    /// session, beside the index of that agent's folder, named by the
    /// session's file. Each count is filed under its message's exact text,
    /// so a file the agent has since appended to or rewritten keeps only
    /// what still holds. None when there is no cache directory.
    pub(super) fn count_cache(&self, target: &Target) -> Option<CountCache> {
        let index = self.count_index(target)?;
        // A slot a reader may trust is used as it is (its files are
        // checked when the index opens it); else it is made safe first.
        let dir = index.trusted_slot().or_else(|| index.prepared_dir())?;
        Some(CountCache::at(dir.join(count_file(target))))
    }

    /// What earlier purges found of the conversations of the Loki tree or
    /// peteos folder, kept beside its search index (none without a cache
    /// directory).
    pub(super) fn purge_checks(&self) -> PurgeChecks {
        let index = self.primary_index();
        match index.trusted_slot().or_else(|| index.prepared_dir()) {
            Some(dir) => PurgeChecks::load(dir.join(purge_checks::FILE)),
            None => PurgeChecks::none(),
        }
    }

    /// The index beside which `target`'s counts are kept.
    fn count_index(&self, target: &Target) -> Option<SearchIndex> {
        if !target.record.agent.is_external() {
            return Some(self.primary_index());
        }
        self.agent_sources()
            .find(|s| s.agent() == target.record.agent && target.record.path.starts_with(s.root()))
            .map(|s| self.agent_index(s))
    }

    /// Starts building the tokenizer's tables in the background (as
    /// `prewarm`) unless the counts of `target` were kept by an earlier
    /// run: then a trim needs the tables only for messages since changed.
    pub fn prewarm_counting(&self, target: &Target, encoding: Encoding) {
        let kept = self.count_index(target).is_some_and(|index| {
            index.trusted_slot().is_some_and(|dir| {
                std::fs::symlink_metadata(dir.join(count_file(target))).is_ok_and(|m| m.is_file())
            })
        });
        if !kept {
            crate::store::prewarm(encoding);
        }
    }

    /// The search index of another agent's folder.
    pub(super) fn agent_index(&self, source: &AgentSource) -> SearchIndex {
        SearchIndex::for_store(source.root(), Layout::Agent, self.cache.as_deref())
    }

    fn layout(&self) -> Layout {
        match self.kind() {
            crate::store::StoreKind::Loki => Layout::Loki,
            crate::store::StoreKind::PeteosFolder => Layout::Folder,
        }
    }

    /// Every source shown, with its index and its sessions now.
    fn indexed(&self) -> Result<Vec<Indexed>> {
        let mut out = Vec::new();
        if self.shows_primary() {
            out.push(Indexed {
                agent: self.primary_agent(),
                index: self.primary_index(),
                names: None,
                files: None,
            });
        }
        for source in self.agent_sources() {
            // Listed by their files' names: a session is read only when
            // the index does not know it as it is.
            let ids = source.ids();
            out.push(Indexed {
                agent: source.agent(),
                index: self.agent_index(source),
                names: Some(ids.iter().map(|(id, _)| id.to_string()).collect()),
                files: Some((
                    ids.into_iter().map(|(id, p)| (id.into(), p)).collect(),
                    source.reader(),
                )),
            });
        }
        Ok(out)
    }

    /// The sessions of `source` now.
    fn names_of(&self, source: &Indexed) -> Result<Vec<String>> {
        match &source.names {
            Some(names) => Ok(names.clone()),
            None => self.session_names(),
        }
    }

    /// The record of `id` in `source`.
    fn record_in(&self, source: &Indexed, id: &str) -> SessionRecord {
        match &source.files {
            None => self.record(id),
            Some((files, reader)) => files
                .get(id)
                .map(|p| reader.record_of(id, p))
                .unwrap_or_else(|| SessionRecord::gone(source.agent, id)),
        }
    }

    /// Messages matching `query`, from the search indexes where they know
    /// the sessions as they are (brought up to date first when
    /// `options.update`), from the files otherwise. When an index cannot be
    /// used at all its files are searched and the note says why.
    pub fn search(
        &self,
        query: &SearchQuery,
        options: &SearchOptions,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<SearchOutcome> {
        let mut all = SearchOutcome::default();
        let sources = self.indexed()?;
        for source in &sources {
            let record_of = |id: &str| self.record_in(source, id);
            let names = || self.names_of(source);
            let mut outcome = match source
                .index
                .search(query, options, &names, &record_of, progress)
            {
                Ok(outcome) => outcome,
                Err(e) => {
                    let records: Vec<SessionRecord> = self
                        .names_of(source)?
                        .iter()
                        .filter(|n| options.session.as_ref().is_none_or(|s| s == *n))
                        .map(|n| record_of(n))
                        .collect();
                    let mut outcome =
                        index::search::direct(&records, query, options.limit, self.layout());
                    outcome.note = Some(format!(
                        "{e}; the session files were searched directly instead"
                    ));
                    outcome
                }
            };
            for hit in &mut outcome.hits {
                hit.agent = source.agent;
            }
            merge(&mut all, outcome);
        }
        index::hit::rank(&mut all.hits);
        all.hits.truncate(options.limit);
        self.name_agent_hits(&sources, &mut all.hits);
        Ok(all)
    }

    /// Another agent's hits named as its sessions are named now: a title
    /// set since the index read the session (Codex's `session_index.jsonl`
    /// changes no session file) shows. One record read per session hit.
    fn name_agent_hits(&self, sources: &[Indexed], hits: &mut [index::hit::Hit]) {
        let mut names: HashMap<(Agent, String), String> = HashMap::new();
        for hit in hits.iter_mut().filter(|h| h.agent.is_external()) {
            let Some(source) = sources.iter().find(|s| s.agent == hit.agent) else {
                continue;
            };
            let name = names
                .entry((hit.agent, hit.session_id.clone()))
                .or_insert_with(|| {
                    let record = self.record_in(source, &hit.session_id);
                    record.shown_name().to_string()
                });
            if !name.is_empty() {
                hit.session_name = name.clone();
            }
        }
    }

    /// Messages matching `query`, read from the session files (no index):
    /// slower, and the reference the index is tested against.
    pub fn search_files(
        &self,
        query: &SearchQuery,
        options: &SearchOptions,
    ) -> Result<SearchOutcome> {
        let mut records = self.list()?;
        if let Some(id) = &options.session {
            records.retain(|r| &r.id == id);
        }
        Ok(index::search::direct(
            &records,
            query,
            options.limit,
            self.layout(),
        ))
    }

    /// Brings every search index up to date, reading again only the
    /// sessions whose files changed; `progress(done, to_read)` per source.
    pub fn update_index(
        &self,
        now: f64,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<UpdateReport> {
        self.each_index(|source, record_of| {
            source
                .index
                .update(self.names_of(source)?, record_of, now, progress)
        })
    }

    /// Builds every search index again from nothing.
    pub fn rebuild_index(
        &self,
        now: f64,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<UpdateReport> {
        self.each_index(|source, record_of| {
            source
                .index
                .rebuild(self.names_of(source)?, record_of, now, progress)
        })
    }

    fn each_index(
        &self,
        run: impl Fn(&Indexed, &(dyn Fn(&str) -> SessionRecord + Sync)) -> Result<UpdateReport>,
    ) -> Result<UpdateReport> {
        let started = std::time::Instant::now();
        let mut total = UpdateReport::default();
        for source in self.indexed()? {
            let record_of = |id: &str| self.record_in(&source, id);
            let report = run(&source, &record_of)?;
            total.sessions += report.sessions;
            total.read += report.read;
            total.removed += report.removed;
            total.busy |= report.busy;
            if let Some(note) = report.note {
                total.note = Some(match total.note.take() {
                    Some(before) => format!("{before}; {note}"),
                    None => note,
                });
            }
        }
        total.seconds = started.elapsed().as_secs_f64();
        Ok(total)
    }

    /// Every session, as [`Store::list`], with the stats the search indexes
    /// hold for those they know as they are now (each record's, in the
    /// records' order). The Loki tree's or peteos folder's are found by the
    /// sessions' names before the records are read, so its index's manifest
    /// is gone before they are there (the peak memory of listing 100k
    /// sessions); the agents' are asked of the records listed, so their
    /// folders are not walked twice. An agent session's usage is read to
    /// `detail`: [`UsageDetail::Totals`] leaves out when it was spent.
    pub fn list_with_indexed_stats(
        &self,
        detail: UsageDetail,
    ) -> Result<(Vec<SessionRecord>, StatsInOrder)> {
        let mut primary = HashMap::new();
        if self.shows_primary() {
            primary = self.priced(self.primary_index().current_stats(&self.session_names()?));
        }
        // Each agent's manifest is read and decoded (and priced) on a core
        // of its own while the listing looks at the files on the others
        // (decoding is a sizable share of a listing, on one core).
        let indexes: Vec<AgentIndex> = self
            .agent_sources()
            .map(|source| {
                let index = self.agent_index(source);
                AgentIndex {
                    source,
                    has_manifest: index.may_have_manifest(),
                    index,
                    manifest: std::sync::OnceLock::new(),
                }
            })
            .collect();
        let (records, known) = std::thread::scope(|scope| {
            let decoding = scope.spawn(|| {
                let mut estimate = self.prices.estimator();
                indexes
                    .iter()
                    .map(|i| {
                        if !i.has_manifest {
                            return None;
                        }
                        let bytes = i.manifest.get_or_init(|| i.index.manifest_bytes());
                        i.index.known(bytes.as_deref()?, detail, &mut estimate)
                    })
                    .collect::<Vec<_>>()
            });
            let records = crate::store::sources::record::listed(|on_batch| self.scan(on_batch));
            let known = decoding
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (records, known)
        });
        let records = records?;
        let mut known = known;
        // Each record's session checked on every core (when an agent's
        // index knows any: not for 100k Loki sessions), then its stats
        // taken. The stamp its file had when the listing looked at it
        // stands for that file, rather than a second look.
        let found = if known.iter().any(Option::is_some) {
            crate::store::parallel::map_ordered(&records, |r| {
                let k = indexes.iter().position(|i| i.holds(r))?;
                let root = indexes[k].source.root();
                known[k]
                    .as_ref()?
                    .current(&r.id, &|name| r.stamp_as(root, name))
            })
        } else {
            Vec::new()
        };
        let stats = records
            .iter()
            .enumerate()
            // Each index is asked of its own source's sessions: a session
            // restored from the archive has the same id in both.
            .map(|(n, r)| match indexes.iter().position(|i| i.holds(r)) {
                Some(k) => known[k].as_mut()?.take(found.get(n).copied().flatten()?),
                None => primary.remove(r.id.as_str()).map(Box::new),
            })
            .collect();
        Ok((records, stats))
    }

    /// Each session's cost set from its usage, by this store's prices.
    fn priced(&self, mut stats: HashMap<String, IndexedStats>) -> HashMap<String, IndexedStats> {
        let mut estimate = self.prices.estimator();
        for s in stats.values_mut() {
            s.cost = s.usage.as_deref().map(&mut estimate).map(Box::new);
        }
        stats
    }

    /// The stats the search indexes hold for those of `records` they know
    /// as they are now (token counts in cl100k_base without counting again).
    pub fn current_indexed_stats(
        &self,
        records: &[SessionRecord],
    ) -> HashMap<String, IndexedStats> {
        let mut out = HashMap::new();
        let ids_of = |agent: Agent| -> Vec<String> {
            records
                .iter()
                .filter(|r| r.agent == agent)
                .map(|r| r.id.to_string())
                .collect()
        };
        if self.shows_primary() {
            out.extend(
                self.primary_index()
                    .current_stats(&ids_of(self.primary_agent())),
            );
        }
        for source in self.agent_sources() {
            let ids = ids_of(source.agent());
            if !ids.is_empty() {
                out.extend(self.agent_index(source).current_stats(&ids));
            }
        }
        self.priced(out)
    }

    /// The search indexes held open for searching as one types (the UI):
    /// they are trusted as the background update leaves them, and say how
    /// many sessions they cover.
    pub fn live_search(&self) -> Result<LiveSearch> {
        let mut parts = Vec::new();
        if self.shows_primary() {
            parts.push((self.primary_agent(), self.primary_index()));
        }
        for source in self.agent_sources() {
            parts.push((source.agent(), self.agent_index(source)));
        }
        LiveSearch::open(parts)
    }

    /// What the search indexes hold together. Reads only.
    pub fn index_status(&self) -> IndexStatus {
        let mut statuses: Vec<IndexStatus> = Vec::new();
        if self.shows_primary() {
            statuses.push(self.primary_index().status());
        }
        for source in self.agent_sources() {
            statuses.push(self.agent_index(source).status());
        }
        let mut iter = statuses.into_iter();
        let Some(mut total) = iter.next() else {
            return IndexStatus::default();
        };
        for s in iter {
            total.sessions += s.sessions;
            total.messages += s.messages;
            total.bytes += s.bytes;
            total.built_at = min_some(total.built_at, s.built_at);
            total.updated_at = max_some(total.updated_at, s.updated_at);
            if total.note.is_none() && s.note.as_deref() != Some("not built yet") {
                total.note = s.note;
            }
        }
        total
    }

    /// Every session's stats as the indexes last saw them (by id). Reads only.
    pub fn indexed_stats(&self) -> HashMap<String, IndexedStats> {
        let mut out = HashMap::new();
        if self.shows_primary() {
            out.extend(self.primary_index().stats());
        }
        for source in self.agent_sources() {
            out.extend(self.agent_index(source).stats());
        }
        self.priced(out)
    }

    /// The names in the session folder that may be sessions (no hidden
    /// entries), without reading any of them.
    pub(super) fn session_names(&self) -> Result<Vec<String>> {
        let dir = self.sessions_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io("list sessions in", &dir, e)),
        };
        // Each by the id the listing gives it (a refused name by its stand-in).
        Ok(entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.'))
            .map(|n| SessionId::of_file(&n, &dir.join(&n)).to_string())
            .collect())
    }
}

/// Adds one source's answer to the whole.
fn merge(all: &mut SearchOutcome, outcome: SearchOutcome) {
    all.hits.extend(outcome.hits);
    all.total += outcome.total;
    all.covered += outcome.covered;
    all.sessions += outcome.sessions;
    all.unreadable.extend(outcome.unreadable);
    if let Some(note) = outcome.note {
        all.note = Some(match all.note.take() {
            Some(before) => format!("{before}; {note}"),
            None => note,
        });
    }
}

fn min_some(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn max_some(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// The name of the file keeping the counts of `target`'s messages, made of
/// its conversation's folder (another agent's: of its session file, as
/// one folder holds many sessions).
fn count_file(target: &Target) -> String {
    let named_by = if target.record.agent.is_external() {
        target.record.path.as_path()
    } else {
        target.conversation_dir()
    };
    format!(
        "counts-{}",
        uuid::Uuid::new_v5(
            &uuid::Uuid::NAMESPACE_URL,
            named_by.as_os_str().as_encoded_bytes()
        )
    )
}

/// An agent's source, its search index and the index's manifest as read.
struct AgentIndex<'s> {
    source: &'s AgentSource,
    index: SearchIndex,
    /// Whether the index's folder has a manifest to read.
    has_manifest: bool,
    /// Its bytes, read beside the listing.
    manifest: std::sync::OnceLock<Option<crate::store::fs::mapped::FileBytes>>,
}

impl AgentIndex<'_> {
    /// True when `record` is a session of this one's source.
    fn holds(&self, record: &SessionRecord) -> bool {
        record.agent == self.source.agent() && record.archived == self.source.is_archive()
    }
}
