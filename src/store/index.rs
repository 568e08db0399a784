//! Search every message of every session: a full-text index (tantivy) kept
//! in the user's cache directory, never in the session tree, brought up to
//! date by reading again only the sessions whose files changed; and the
//! direct scan of the files it is tested against and falls back to.
//!
//! The index is a cache: one that is missing, damaged, of another format or
//! being written by another process is rebuilt or worked around, and an
//! answer that does not cover every session says so.

mod consistent;
mod directory;
mod engine;
pub(crate) mod hit;
mod known;
mod live;
mod manifest;
pub mod query;
mod scan;
pub(crate) mod search;
mod slot;
mod snippet;
mod stamp;
mod text;
mod update;
pub mod words;

pub use hit::Hit;
pub use known::Known;
pub use live::LiveSearch;
pub use query::{Role, SearchQuery};
pub use search::{SearchOptions, SearchOutcome, Unreadable};
pub use snippet::Snippet;
pub use update::UpdateReport;

use crate::store::error::{Result, StoreError};
use crate::store::ops::pricing::CostEstimate;
use crate::store::sources::layout::{MEMORY_DIR, META_FILE};
use engine::{Engine, OpenError};
use manifest::Manifest;
use serde::Serialize;
use slot::StoreIdentity;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where the files of a session are, by kind of store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `<id>/meta.json`, `<id>/memory/`.
    Loki,
    /// `<id>/` is the conversation.
    Folder,
    /// Another agent's session files, anywhere under the folder: their
    /// stamps name each file by its path in the folder.
    Agent,
}

impl Layout {
    fn meta(self, session_dir: &Path) -> Option<PathBuf> {
        (self == Layout::Loki).then(|| session_dir.join(META_FILE))
    }

    fn conversation(self, session_dir: &Path) -> PathBuf {
        match self {
            Layout::Loki => session_dir.join(MEMORY_DIR),
            Layout::Folder | Layout::Agent => session_dir.to_path_buf(),
        }
    }
}

/// The search index of one session folder.
#[derive(Clone, Debug)]
pub struct SearchIndex {
    /// Where the index lives (None: no cache directory on this system).
    dir: Option<PathBuf>,
    /// The session folder it indexes, as given.
    store_dir: PathBuf,
    /// Who that folder is (canonical path, device and inode).
    store: StoreIdentity,
    layout: Layout,
}

/// What `index` reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct IndexStatus {
    /// Where the index lives.
    pub path: Option<PathBuf>,
    /// Sessions indexed.
    pub sessions: usize,
    /// Messages indexed.
    pub messages: usize,
    /// Bytes the index takes.
    pub bytes: u64,
    /// When it was first built (seconds since the epoch).
    pub built_at: Option<f64>,
    /// When it was last brought up to date.
    pub updated_at: Option<f64>,
    /// Why it could not be used, if it could not.
    pub note: Option<String>,
}

/// A session's stats as the index last saw them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct IndexedStats {
    /// Bytes of its files.
    pub bytes: u64,
    /// Messages of the active context.
    pub messages: usize,
    /// Tokens of the active context in cl100k_base.
    pub tokens: Option<u64>,
    /// `is_active` in session.json.
    pub is_active: bool,
    /// Why its conversation could not be read.
    pub error: Option<String>,
    /// The tokens another agent recorded as spent, by model (boxed, as
    /// the two below: a Loki or peteos session has none, and 100k such
    /// stats held them inline at 200 bytes each).
    pub usage: Option<Box<crate::store::format::usage::UsageByModel>>,
    /// The context its agent's API last saw, with what came after counted.
    pub context: Option<Box<crate::store::sources::agent_read::RecordedContext>>,
    /// What `usage` would cost (set by the door, from its prices).
    pub cost: Option<Box<crate::store::ops::pricing::CostEstimate>>,
}

impl SearchIndex {
    /// The index of `store_dir` in `cache` or else the user's cache
    /// directory (`$XDG_CACHE_HOME/loki-sessions/<key of the folder>`, the
    /// key made of its canonical path, device and inode).
    pub fn for_store(store_dir: &Path, layout: Layout, cache: Option<&Path>) -> SearchIndex {
        let store = StoreIdentity::of(store_dir);
        let cache = cache.map(Path::to_path_buf).or_else(dirs::cache_dir);
        SearchIndex {
            dir: cache.map(|c| store.slot(&c)),
            store_dir: store_dir.to_path_buf(),
            store,
            layout,
        }
    }

    /// The index's folder made safe to write in (see `slot`), for a file
    /// kept beside the index (the token counts a trim made); None without
    /// a cache directory or when it cannot be made safe.
    pub fn prepared_dir(&self) -> Option<&Path> {
        let dir = self.dir.as_deref()?;
        slot::prepare(dir).ok()?;
        Some(dir)
    }

    /// The index's folder when a reader may trust it, for a file kept beside it.
    pub fn trusted_slot(&self) -> Option<&Path> {
        self.trusted_dir()
    }

    /// The index directory.
    fn dir(&self) -> Result<&Path> {
        self.dir.as_deref().ok_or_else(|| {
            StoreError::Failed(
                "there is no cache directory to keep the search index in (set XDG_CACHE_HOME)"
                    .into(),
            )
        })
    }

    /// Opens the index, its folder made safe first (see `slot`), rebuilding
    /// it from nothing when it is of another format or damaged (it is a
    /// cache); the note says what was replaced.
    fn open(&self) -> Result<(Engine, Option<String>)> {
        let dir = self.dir()?;
        // Opened (created, or rebuilt) by one opener at a time.
        let (held, prepared) = slot::prepare_held(dir)?;
        match Engine::open(dir) {
            Ok(engine) => Ok((engine, prepared)),
            Err(OpenError::Incompatible(why) | OpenError::Broken(why)) => {
                let note = format!(
                    "the search index in {} could not be used ({why}); it was rebuilt",
                    dir.display()
                );
                std::fs::remove_dir_all(dir)
                    .map_err(|e| StoreError::io("remove the damaged search index", dir, e))?;
                held.prepare_again(dir)?;
                let engine = Engine::open(dir).map_err(|e| {
                    let why = match e {
                        OpenError::Incompatible(w) | OpenError::Broken(w) => w,
                    };
                    StoreError::Failed(format!(
                        "cannot make a search index in {}: {why}",
                        dir.display()
                    ))
                })?;
                Ok((engine, Some(join_notes(prepared, note))))
            }
        }
    }

    /// The manifest, or an empty one (with why, when one was there but unusable).
    fn manifest(&self) -> (Manifest, Option<String>) {
        match self.load_manifest() {
            Ok(m) => (m, None),
            Err(manifest::Unusable::Missing) => (self.empty_manifest(), None),
            Err(manifest::Unusable::Invalid(why)) => (self.empty_manifest(), Some(why)),
        }
    }

    /// The manifest as it is on disk.
    fn load_manifest(&self) -> std::result::Result<Manifest, manifest::Unusable> {
        match self.dir() {
            Ok(dir) => Manifest::load(dir, &self.store),
            Err(_) => Err(manifest::Unusable::Missing),
        }
    }

    fn empty_manifest(&self) -> Manifest {
        Manifest {
            format: manifest::FORMAT,
            store: self.store.path.clone(),
            store_id: self.store.id,
            ..Manifest::default()
        }
    }

    /// The index directory when it is one a reader may trust (a real
    /// folder of this user); readers that change nothing read an untrusted
    /// one as no index.
    fn trusted_dir(&self) -> Option<&Path> {
        self.dir.as_deref().filter(|d| slot::is_trusted(d))
    }

    /// What the index holds now. Reads only.
    pub fn status(&self) -> IndexStatus {
        let path = self.dir.clone();
        if self.dir.is_none() {
            return IndexStatus {
                note: Some("no cache directory".into()),
                ..IndexStatus::default()
            };
        }
        let (manifest, note) = match self.trusted_dir() {
            Some(_) => self.manifest(),
            None => (self.empty_manifest(), None),
        };
        let built = !manifest.sessions.is_empty() || manifest.built_at > 0.0;
        IndexStatus {
            sessions: manifest.sessions.len(),
            messages: manifest.documents(),
            bytes: self.trusted_dir().map_or(0, dir_bytes),
            built_at: built.then_some(manifest.built_at),
            updated_at: built.then_some(manifest.updated_at),
            note: note.or_else(|| (!built).then(|| "not built yet".to_string())),
            path,
        }
    }

    /// Every indexed session's stats as last seen (empty when there is no
    /// index). Reads only.
    pub fn stats(&self) -> HashMap<String, IndexedStats> {
        self.with_view(|manifest| {
            manifest
                .sessions
                .iter()
                .map(|(id, e)| (id.to_string(), e.stats()))
                .collect()
        })
        .unwrap_or_default()
    }

    /// `f` of the manifest borrowed from its bytes (None when there is no
    /// usable one): a fraction of the owned manifest's memory, which matters
    /// at 100k sessions.
    fn with_view<R>(&self, f: impl FnOnce(&manifest::ManifestView) -> R) -> Option<R> {
        let dir = self.trusted_dir()?;
        let bytes = manifest::read(dir).ok()?;
        let view = manifest::ManifestView::decode(&bytes, dir, &self.store).ok()?;
        Some(f(&view))
    }

    /// The stats of the sessions in `ids` that the index knows as they are
    /// now (their files unchanged since they were read). Reads only. The
    /// manifest is walked a chunk of sessions at a time, each chunk checked
    /// on every core and then dropped: a listing of 100k sessions never
    /// holds them all decoded (an unusable manifest answers nothing).
    pub fn current_stats(&self, ids: &[String]) -> HashMap<String, IndexedStats> {
        const CHUNK: usize = 4096;
        let Some(dir) = self.trusted_dir() else {
            return HashMap::new();
        };
        let Ok(bytes) = manifest::read(dir) else {
            return HashMap::new();
        };
        // Hashed fast: each of the manifest's sessions is looked up here.
        let wanted: rustc_hash::FxHashSet<&str> = ids.iter().map(String::as_str).collect();
        let checker = stamp::Checker::new(&self.store_dir);
        let mut out = HashMap::with_capacity(ids.len());
        let walked = manifest::walk_sessions(&bytes, dir, &self.store, CHUNK, &mut |chunk| {
            let chunk: Vec<_> = chunk
                .into_iter()
                .filter(|(id, _)| wanted.contains(id))
                .collect();
            let current = crate::store::parallel::map_ordered(&chunk, |(id, entry)| {
                self.is_current(&checker, id, &entry.files, entry.meta.as_ref(), &|_| None)
            });
            out.extend(
                chunk
                    .into_iter()
                    .zip(current)
                    .filter(|(_, current)| *current)
                    .map(|((id, entry), _)| (id.to_string(), entry.into_stats())),
            );
        });
        match walked {
            Ok(()) => out,
            Err(_) => HashMap::new(),
        }
    }

    /// The manifest's bytes, when the index is one a reader may trust and
    /// has a manifest: read apart from its decoding
    /// ([`SearchIndex::known`]) so that a listing can decode it on one
    /// core while it looks at the files on the others.
    pub fn manifest_bytes(&self) -> Option<crate::store::fs::mapped::FileBytes> {
        manifest::read(self.trusted_dir()?).ok()
    }

    /// True when the index's folder has a manifest, looked at without
    /// reading it or trusting the folder yet (that is for the reading).
    pub fn may_have_manifest(&self) -> bool {
        self.dir.as_deref().is_some_and(|dir| {
            std::fs::symlink_metadata(dir.join(manifest::FILE)).is_ok_and(|m| m.is_file())
        })
    }

    /// What the manifest `bytes` (from [`SearchIndex::manifest_bytes`])
    /// knows, each session's usage read to `detail` and priced by `price`;
    /// None when it is damaged or another folder's.
    pub fn known<'a>(
        &'a self,
        bytes: &'a [u8],
        detail: crate::store::format::usage::UsageDetail,
        price: &mut dyn FnMut(&crate::store::format::usage::UsageByModel) -> CostEstimate,
    ) -> Option<Known<'a>> {
        let dir = self.trusted_dir()?;
        Known::read(self, dir, bytes, detail, price)
    }

    /// True when the files of session `id` are as `files` and `meta_stamp`
    /// recorded.
    fn is_current(
        &self,
        checker: &stamp::Checker,
        id: &str,
        files: &[manifest::StampView],
        meta_stamp: Option<&manifest::StampView>,
        seen: &dyn Fn(&str) -> Option<crate::store::fs::stamp::FileStamp>,
    ) -> bool {
        if self.layout == Layout::Agent {
            return checker.files_unchanged_seen(files, seen);
        }
        let dir = Path::new(id);
        let conversation = self.layout.conversation(dir);
        let meta = self.layout.meta(dir);
        checker.unchanged(&conversation, files, meta.as_deref(), meta_stamp)
    }
}

/// Two notes as one.
fn join_notes(first: Option<String>, second: String) -> String {
    match first {
        Some(first) => format!("{first}; {second}"),
        None => second,
    }
}

/// Byte ranges of `text` that `query` matches (its words, its phrases),
/// for marking them where a message is shown; none when the query does not
/// parse.
pub fn match_ranges(text: &str, query: &str) -> Vec<(usize, usize)> {
    let Ok(query) = SearchQuery::parse(query, false) else {
        return Vec::new();
    };
    let found = words::words(text);
    let texts: Vec<String> = found.iter().map(|w| w.text.clone()).collect();
    query
        .matched_positions(&texts)
        .into_iter()
        .map(|i| (found[i].from, found[i].to))
        .collect()
}

/// Bytes of the files directly in `dir` (tantivy keeps its files flat).
fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}
