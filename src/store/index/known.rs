//! What an index's manifest knows of each session, made ready for a
//! listing: decoded and priced beside the listing's look at the files,
//! then asked session by session whether its files are still as the index
//! saw them. The listing's records are many and already in hand, so each
//! asks by its id rather than the index looking for each of them.

use super::{IndexedStats, SearchIndex, manifest, stamp};
use crate::store::format::usage::{UsageByModel, UsageDetail, UsageTotals};
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
    /// What `index`'s manifest `bytes` knows, each session's usage read to
    /// `detail` and priced by `price`: kept as each session is decoded;
    /// None when the manifest is damaged or another folder's.
    pub(super) fn read(
        index: &'a SearchIndex,
        dir: &std::path::Path,
        bytes: &'a [u8],
        detail: UsageDetail,
        price: &mut dyn FnMut(&UsageByModel) -> CostEstimate,
    ) -> Option<Known<'a>> {
        let mut reading = Reading {
            known: Known {
                index,
                checker: stamp::Checker::new(&index.store_dir),
                by_id: Default::default(),
                sessions: Vec::new(),
                files: Vec::new(),
                stats: Vec::new(),
            },
            price,
        };
        match detail {
            UsageDetail::Totals => {
                manifest::walk_each::<UsageTotals>(bytes, dir, &index.store, &mut reading)
            }
            UsageDetail::ByQuarterHour => {
                manifest::walk_each::<UsageByModel>(bytes, dir, &index.store, &mut reading)
            }
        }
        .ok()?;
        Some(reading.known)
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

/// A manifest being read into [`Known`].
struct Reading<'k, 'a> {
    known: Known<'a>,
    price: &'k mut dyn FnMut(&UsageByModel) -> CostEstimate,
}

impl<'a, U: Into<UsageByModel>> manifest::SessionSink<'a, U> for Reading<'_, 'a> {
    fn expect(&mut self, sessions: usize) {
        let known = &mut self.known;
        known.by_id.reserve(sessions);
        known.sessions.reserve(sessions);
        known.stats.reserve(sessions);
        known.files.reserve(sessions);
    }

    fn session(&mut self, id: &'a str, mut entry: manifest::EntryView<'a, U>) {
        let known = &mut self.known;
        let at = known.sessions.len();
        let from = known.files.len();
        known.files.append(&mut entry.files);
        let files = from..known.files.len();
        let meta = entry.meta.take();
        let mut stats = entry.into_stats();
        stats.cost = stats.usage.as_deref().map(&mut *self.price).map(Box::new);
        known.stats.push(Some(Box::new(stats)));
        known.sessions.push(KnownSession { files, meta });
        known.by_id.insert(id, at);
    }
}
