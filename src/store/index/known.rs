//! What an index's manifest knows of each session, made ready for a
//! listing: decoded and priced beside the listing's look at the files,
//! then asked session by session whether its files are still as the index
//! saw them. The listing's records are many and already in hand, so each
//! asks by its id rather than the index looking for each of them.

use super::{IndexedStats, SearchIndex, manifest, stamp};
use crate::store::format::usage::UsageByModel;
use crate::store::fs::stamp::FileStamp;
use crate::store::ops::pricing::CostEstimate;

/// An index's sessions by id, each with its files' stamps and its stats.
pub struct Known<'a> {
    index: &'a SearchIndex,
    checker: stamp::Checker,
    /// Each session's place by its id (a small entry: 10k sessions' map
    /// is looked up by every record of a listing).
    by_id: rustc_hash::FxHashMap<&'a str, usize>,
    /// Each session by its place.
    sessions: Vec<KnownSession<'a>>,
    /// The stamps of every session's files, one after another (each
    /// session's in a vector of its own were 10k vectors to free at the
    /// end of a listing, on its critical path).
    files: Vec<manifest::StampView<'a>>,
    /// Each session's stats, by its place (taken by the first record that
    /// asks for them): apart from the map so that many threads may check
    /// the sessions at once and one then takes what they found.
    stats: Vec<Option<Box<IndexedStats>>>,
}

/// One session's files as the index saw them.
struct KnownSession<'a> {
    /// Where its files' stamps are in `files`.
    files: std::ops::Range<usize>,
    meta: Option<manifest::StampView<'a>>,
}

impl<'a> Known<'a> {
    /// The sessions of `entries`, decoded from `index`'s manifest, each
    /// one's usage priced by `price`.
    pub(super) fn of(
        index: &'a SearchIndex,
        entries: Vec<(&'a str, manifest::EntryView<'a>)>,
        price: &mut dyn FnMut(&UsageByModel) -> CostEstimate,
    ) -> Known<'a> {
        let mut by_id = rustc_hash::FxHashMap::default();
        by_id.reserve(entries.len());
        let mut sessions = Vec::with_capacity(entries.len());
        let mut stats = Vec::with_capacity(entries.len());
        let mut all_files = Vec::with_capacity(entries.len());
        for (at, (id, mut entry)) in entries.into_iter().enumerate() {
            let from = all_files.len();
            all_files.append(&mut entry.files);
            let files = from..all_files.len();
            let meta = entry.meta.take();
            let mut known = entry.into_stats();
            known.cost = known.usage.as_deref().map(&mut *price).map(Box::new);
            stats.push(Some(Box::new(known)));
            sessions.push(KnownSession { files, meta });
            by_id.insert(id, at);
        }
        Known {
            index,
            checker: stamp::Checker::new(&index.store_dir),
            by_id,
            sessions,
            files: all_files,
            stats,
        }
    }

    /// Where the stats of session `id` are when its files are as the index
    /// saw them, a file whose stamp `seen` gives (by its name in the
    /// folder: the listing just looked at it) compared with that stamp
    /// rather than looked at again.
    pub fn current(&self, id: &str, seen: &dyn Fn(&str) -> Option<FileStamp>) -> Option<usize> {
        let at = *self.by_id.get(id)?;
        let session = self.sessions.get(at)?;
        let files = &self.files[session.files.clone()];
        self.index
            .is_current(&self.checker, id, files, session.meta.as_ref(), seen)
            .then_some(at)
    }

    /// The stats at `at` (from [`Known::current`]). Given once: a second
    /// record of the same id (a copy of the file in another folder) gets
    /// none.
    pub fn take(&mut self, at: usize) -> Option<Box<IndexedStats>> {
        self.stats.get_mut(at)?.take()
    }
}
